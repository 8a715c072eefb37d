//! The cluster in SVG: ZooKeeper, brokers with their replicas (leader /
//! follower / out of the ISR, log end offset and high watermark on each log),
//! clients, and the messages in flight between them.
//!
//! Colours follow the Okabe–Ito palette (safe for colour-blind viewers) and
//! every state also has a shape or a word, never colour alone.

use crate::i18n::{t, Lang};
use crate::view_model::{BrokerView, ClusterModel, ReplicaView};
use kafka_sim::collections::SortedSet;
use kafka_sim::ids::NodeId;
use std::rc::Rc;
use yew::prelude::*;

pub const WIDTH: i32 = 1000;
/// The narrowest horizontal slot a broker box gets (see `layout`).
const MIN_SLOT: i32 = 190;
const BROKER_TOP: i32 = 120;
const ROW_H: i32 = 40;
const HEADER_H: i32 = 46;
/// Replica rows drawn per broker; the rest are summed up in one line, so a
/// large cluster stays readable (and fast to draw).
const MAX_ROWS: usize = 12;

/// Above this many messages in flight, only their dots are drawn.
pub const CROWDED_MESSAGES: usize = 60;
#[derive(Properties, PartialEq)]
pub struct ClusterProps {
    pub model: Rc<ClusterModel>,
    pub lang: Lang,
    /// A broker was clicked: (its id, alive?).
    pub on_broker: Callback<(i32, bool)>,
    /// What the event a log line seeked to changed: `b1`, `b1:first-0`, `p0`, `c0`.
    #[prop_or_default]
    pub marks: Rc<SortedSet<String>>,
    /// A message was clicked (None: its details closed).
    #[prop_or_default]
    pub on_message: Callback<Option<u64>>,
}

fn node_name(n: NodeId) -> String {
    match n {
        NodeId::Broker(b) => format!("broker {}", b.0),
        NodeId::Producer(i) => format!("producer {i}"),
        NodeId::Consumer(i) => format!("consumer {i}"),
        NodeId::ZooKeeper => "ZooKeeper".into(),
        NodeId::User => "you".into(),
    }
}

/// The clicked message: what it carries, as the engine holds it.
pub fn message_detail(
    d: &crate::view_model::MessageDetail,
    lang: Lang,
    on_close: &Callback<Option<u64>>,
) -> Html {
    let close = on_close.reform(|_: MouseEvent| None);
    html! {
        <div class="msg-detail" id="msg-detail" role="region" aria-label={format!("{} {}", d.api, t(lang, "message_detail"))}>
            <strong>{ format!("{} · {} → {}", d.api, node_name(d.from), node_name(d.to)) }</strong>
            {" "}<span class="small-note">{ format!("{} {} ms · {} {} ms", t(lang, "sent_at"), d.sent_ms, t(lang, "arrives_at"), d.arrives_ms) }</span>
            <button class="small" id="msg-detail-close" onclick={close} aria-label={t(lang, "dismiss")}>{"✕"}</button>
            <p>{ d.summary.clone() }</p>
            <pre class="mono">{ d.json.clone() }</pre>
        </div>
    }
}

struct Layout {
    /// The drawing's width in SVG units: [`WIDTH`], or more when the brokers
    /// need it (the page scales the drawing to fit).
    width: i32,
    broker_x: Vec<(i32, i32)>,
    broker_w: i32,
    broker_h: i32,
    height: i32,
}

fn layout(m: &ClusterModel) -> Layout {
    let n = m.brokers.len().max(1) as i32;
    let left = 150;
    // Each broker gets at least MIN_SLOT, so that its replica rows (name,
    // log bar, HW and LEO marks) fit in its box: many brokers widen the
    // drawing instead of overlapping.
    let width = WIDTH.max(2 * left + n * MIN_SLOT);
    let right = width - left;
    let slot = (right - left) / n;
    let broker_w = (slot - 20).clamp(60, 240);
    let rows = m
        .brokers
        .iter()
        .map(|b| b.replicas.len().min(MAX_ROWS + 1))
        .max()
        .unwrap_or(0) as i32;
    let broker_h = HEADER_H + rows.max(1) * ROW_H + 10;
    let broker_x = m
        .brokers
        .iter()
        .enumerate()
        .map(|(i, b)| (b.id, left + slot * i as i32 + (slot - broker_w) / 2))
        .collect();
    Layout {
        width,
        broker_x,
        broker_w,
        broker_h,
        height: BROKER_TOP + broker_h + 40,
    }
}

fn anchor(l: &Layout, n: NodeId) -> (i32, i32) {
    match n {
        NodeId::Broker(b) => l
            .broker_x
            .iter()
            .find(|(id, _)| *id == b.0)
            .map(|(_, x)| (x + l.broker_w / 2, BROKER_TOP))
            .unwrap_or((l.width / 2, BROKER_TOP)),
        NodeId::ZooKeeper => (l.width / 2, 56),
        NodeId::Producer(p) => (70, BROKER_TOP + 30 + p as i32 * 70),
        NodeId::Consumer(c) => (l.width - 70, BROKER_TOP + 30 + c as i32 * 70),
        NodeId::User => (l.width / 2, 0),
    }
}

fn replica_row(
    r: &ReplicaView,
    (x, y, w): (i32, i32, i32),
    max_leo: i64,
    lang: Lang,
    changed: bool,
) -> Html {
    let (fill, label, dash) = if r.leader {
        ("#0072B2", "L", "")
    } else if r.in_isr {
        ("#56B4E9", "F", "")
    } else {
        ("#D55E00", "F", "4 2")
    };
    let bar_x = x + 78;
    let bar_w = (w - 88).max(20);
    // Integer pixels throughout: SVG needs no fractions here, and leaving
    // floats out keeps float formatting out of the page.
    let scale = |o: i64| bar_x + (o.max(0) * bar_w as i64 / max_leo.max(1)) as i32;
    let role = if r.leader {
        t(lang, "leader")
    } else {
        t(lang, "follower")
    };
    let isr = if r.in_isr || r.leader { "ISR" } else { "OSR" };
    let cells = if max_leo <= 48 {
        // Few records: one cell per offset, committed ones (below HW) solid.
        let cw = (bar_w as i64 / max_leo.max(1)).max(1) as i32;
        (r.log_start.max(0)..r.leo)
            .map(|o| {
                let cx = bar_x + o as i32 * cw;
                let committed = o < r.hw;
                html! {
                    <rect class={if committed { "cell committed" } else { "cell" }}
                        x={cx.to_string()} y={(y + 8).to_string()}
                        width={(cw - 1).max(1).to_string()} height="12" />
                }
            })
            .collect::<Html>()
    } else {
        html! {
            <>
                <rect class="cell committed" x={scale(r.log_start).to_string()} y={(y + 8).to_string()}
                    width={(scale(r.hw) - scale(r.log_start)).max(0).to_string()} height="12" />
                <rect class="cell" x={scale(r.hw).to_string()} y={(y + 8).to_string()}
                    width={(scale(r.leo) - scale(r.hw)).max(0).to_string()} height="12" />
            </>
        }
    };
    html! {
        <g class={classes!("replica", changed.then_some("changed"))} data-tp={r.tp.clone()} data-role={label}>
            <title>{ format!("{} — {role} ({isr}), log start {}, LEO {}, HW {}, leader epoch {}", r.tp, r.log_start, r.leo, r.hw, r.leader_epoch) }</title>
            <rect x={(x + 6).to_string()} y={(y + 4).to_string()} width="20" height="20" rx="4" fill={fill} stroke="#222" stroke-dasharray={dash} />
            <text x={(x + 16).to_string()} y={(y + 18).to_string()} class="role">{ label }</text>
            <text x={(x + 32).to_string()} y={(y + 18).to_string()} class="tp">{ r.tp.clone() }</text>
            <rect class="bar" x={bar_x.to_string()} y={(y + 8).to_string()} width={bar_w.to_string()} height="12" />
            { cells }
            <line class="hw" x1={scale(r.hw).to_string()} x2={scale(r.hw).to_string()} y1={(y + 4).to_string()} y2={(y + 24).to_string()} />
            <text class={if scale(r.hw) > bar_x + bar_w - 44 { "mark end" } else { "mark" }} x={scale(r.hw).to_string()} y={(y + 34).to_string()}>{ format!("HW {}", r.hw) }</text>
            <text class="mark leo" x={(x + 30).to_string()} y={(y + 34).to_string()}>{ format!("LEO {}", r.leo) }</text>
        </g>
    }
}

fn broker_box(
    b: &BrokerView,
    x: i32,
    l: &Layout,
    max_leo: i64,
    lang: Lang,
    on_broker: &Callback<(i32, bool)>,
    marks: &SortedSet<String>,
) -> Html {
    let mut class = classes!("broker");
    if marks.contains(&format!("b{}", b.id)) {
        class.push("changed");
    }
    if !b.alive {
        class.push("dead");
    }
    if b.controller {
        class.push("controller");
    }
    let status = if !b.started {
        t(lang, "not_started")
    } else if !b.alive {
        t(lang, "down")
    } else if b.controller {
        t(lang, "controller")
    } else {
        ""
    };
    // Clicking a broker kills a live one and restarts a stopped one (a command
    // in the scenario: the timeline branches here).
    let onclick = {
        let (cb, id, alive) = (on_broker.clone(), b.id, b.alive);
        Callback::from(move |_: MouseEvent| cb.emit((id, alive)))
    };
    let narrow = l.broker_w < 200;
    let badge_w = if narrow { 26 } else { 86 };
    let hint = if b.alive {
        t(lang, "click_kill")
    } else {
        t(lang, "click_restart")
    };
    html! {
        <g {class} id={format!("broker-{}", b.id)} role="group" {onclick}
            aria-label={format!("Broker {}{}", b.id, if status.is_empty() { String::new() } else { format!(", {status}") })}>
            <title>{ hint }</title>
            <rect class="box" x={x.to_string()} y={BROKER_TOP.to_string()} width={l.broker_w.to_string()} height={l.broker_h.to_string()} rx="10" />
            <text class="name" x={(x + 12).to_string()} y={(BROKER_TOP + 24).to_string()}>{ format!("Broker {}", b.id) }</text>
            if b.controller {
                // A narrow box (many brokers) has room for the crown only; the
                // group's ARIA label still says "controller".
                <g class="badge">
                    <rect x={(x + l.broker_w - 10 - badge_w).to_string()} y={(BROKER_TOP + 8).to_string()} width={badge_w.to_string()} height="22" rx="11" />
                    <text x={(x + l.broker_w - 10 - badge_w / 2).to_string()} y={(BROKER_TOP + 23).to_string()}>{ if narrow { "♛".to_string() } else { format!("♛ {}", t(lang, "controller")) } }</text>
                </g>
            }
            if !b.alive {
                <text class={if b.started { "down" } else { "down waiting" }} x={(x + l.broker_w - 12).to_string()} y={(BROKER_TOP + 24).to_string()}>
                    { if b.started { format!("✕ {}", t(lang, "down")) } else { t(lang, "not_started").to_string() } }
                </text>
            }
            { for b.replicas.iter().take(MAX_ROWS).enumerate().map(|(i, r)| replica_row(r, (x, BROKER_TOP + HEADER_H + i as i32 * ROW_H, l.broker_w), max_leo, lang,
                marks.contains(&format!("b{}:{}", b.id, r.tp)))) }
            if b.replicas.len() > MAX_ROWS {
                <text class="more" x={(x + 12).to_string()} y={(BROKER_TOP + HEADER_H + MAX_ROWS as i32 * ROW_H + 20).to_string()}>
                    { more_line(&b.replicas[MAX_ROWS..]) }
                </text>
            }
        </g>
    }
}

/// The summary of the replicas not drawn.
fn more_line(rest: &[ReplicaView]) -> String {
    format!(
        "+{} more: {} leader, {} follower, {} out of ISR",
        rest.len(),
        rest.iter().filter(|r| r.leader).count(),
        rest.iter().filter(|r| !r.leader).count(),
        rest.iter().filter(|r| !r.in_isr).count()
    )
}

#[component]
pub fn ClusterView(p: &ClusterProps) -> Html {
    let m = &p.model;
    let l = layout(m);
    let lang = p.lang;
    let controller = m.brokers.iter().find(|b| b.controller).map(|b| b.id);
    let label = format!(
        "{}: {} brokers, controller {}",
        t(lang, "cluster"),
        m.brokers.len(),
        controller
            .map(|c| c.to_string())
            .unwrap_or_else(|| "none".into())
    );
    let zk = anchor(&l, NodeId::ZooKeeper);
    html! {
        <>
        <svg id="cluster" class="cluster" viewBox={format!("0 0 {} {}", l.width, l.height)} role="group" aria-label={label}
             preserveAspectRatio="xMidYMin meet">
            <g class="links">
                { for m.brokers.iter().map(|b| {
                    let (bx, by) = anchor(&l, NodeId::broker(b.id));
                    html!{ <line class="zk-link" x1={zk.0.to_string()} y1={zk.1.to_string()} x2={bx.to_string()} y2={by.to_string()} /> }
                }) }
            </g>
            <g class="zookeeper" id="zookeeper">
                <rect x={(l.width / 2 - 80).to_string()} y="10" width="160" height="46" rx="23" />
                <text x={(l.width / 2).to_string()} y="31">{"ZooKeeper"}</text>
                <text class="small" x={(l.width / 2).to_string()} y="47">{ format!("controller_epoch {}", m.controller_epoch) }</text>
            </g>
            { for m.producers.iter().enumerate().map(|(i, (name, alive))| {
                let (x, y) = anchor(&l, NodeId::Producer(i as u32));
                html!{
                    <g class={classes!("client", "producer", (!alive).then_some("dead"), p.marks.contains(&format!("p{i}")).then_some("changed"))} id={format!("producer-{i}")}>
                        <rect x={(x - 55).to_string()} y={(y - 20).to_string()} width="110" height="40" rx="8" />
                        <text x={x.to_string()} y={(y + 5).to_string()}>{ format!("▶ {name}") }</text>
                    </g>
                }
            }) }
            { for m.consumers.iter().enumerate().map(|(i, (name, alive))| {
                let (x, y) = anchor(&l, NodeId::Consumer(i as u32));
                html!{
                    <g class={classes!("client", "consumer", (!alive).then_some("dead"), p.marks.contains(&format!("c{i}")).then_some("changed"))} id={format!("consumer-{i}")}>
                        <rect x={(x - 55).to_string()} y={(y - 20).to_string()} width="110" height="40" rx="8" />
                        <text x={x.to_string()} y={(y + 5).to_string()}>{ format!("{name} ◀") }</text>
                    </g>
                }
            }) }
            { for m.brokers.iter().map(|b| {
                let x = l.broker_x.iter().find(|(id, _)| *id == b.id).map(|(_, x)| *x).unwrap_or(0);
                broker_box(b, x, &l, m.max_leo, lang, &p.on_broker, &p.marks)
            }) }
            <g class="messages">
                { for m.messages.iter().map(|msg| {
                    // Crowded (a burst of hundreds): dots only. Each route's
                    // dashed curve and label is unreadable in the crowd and
                    // costs the most to paint; the selected one keeps both,
                    // and every dot keeps its title and ARIA label.
                    let crowded = m.messages.len() > CROWDED_MESSAGES;
                    let (x0, y0) = anchor(&l, msg.from);
                    let (x1, y1) = anchor(&l, msg.to);
                    // Progress in thousandths along a quadratic Bézier curve.
                    let f = msg.progress_permille.min(1000) as i64;
                    // Between brokers the path arcs above the boxes; otherwise straight.
                    let both_brokers = matches!((msg.from, msg.to), (NodeId::Broker(_), NodeId::Broker(_)));
                    let (cx, cy) = if both_brokers {
                        ((x0 + x1) / 2, BROKER_TOP - 60)
                    } else {
                        ((x0 + x1) / 2, (y0 + y1) / 2)
                    };
                    let q = |a: i32, c: i32, b: i32| {
                        let g = 1000 - f;
                        ((g * g * a as i64 + 2 * g * f * c as i64 + f * f * b as i64) / 1_000_000) as i32
                    };
                    let (x, y) = (q(x0, cx, x1), q(y0, cy, y1));
                    let cb = p.on_message.clone();
                    let id = msg.id;
                    let selected = m.detail.as_ref().is_some_and(|d| d.id == id);
                    let onclick = {
                        let cb = cb.clone();
                        Callback::from(move |_: MouseEvent| cb.emit(if selected { None } else { Some(id) }))
                    };
                    let onkeydown = Callback::from(move |e: KeyboardEvent| if e.key() == "Enter" {
                        e.prevent_default();
                        cb.emit(Some(id));
                    });
                    html!{
                        <g key={id} class={classes!("msg", msg.api, selected.then_some("selected"))} data-api={msg.api} data-id={id.to_string()}
                            tabindex="0" role="button" aria-label={msg.summary.clone()} {onclick} {onkeydown}>
                            <title>{ format!("{} ({} → {} ms)", msg.summary, msg.sent_ms, msg.arrives_ms) }</title>
                            if !crowded || selected {
                                <path class="path" d={format!("M{x0},{y0} Q{cx},{cy} {x1},{y1}")} />
                            }
                            <circle cx={x.to_string()} cy={y.to_string()} r="7" />
                            if !crowded || selected {
                                <text x={(x + 10).to_string()} y={(y - 8).to_string()}>{ msg.api }</text>
                            }
                        </g>
                    }
                }) }
            </g>
        </svg>
        if let Some(d) = &m.detail {
            { message_detail(d, lang, &p.on_message) }
        }
        </>
    }
}
