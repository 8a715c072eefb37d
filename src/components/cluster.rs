//! The cluster in SVG: ZooKeeper, brokers with their replicas (leader /
//! follower / out of the ISR, log end offset and high watermark on each log),
//! clients, and the messages in flight between them.
//!
//! Colours follow the Okabe–Ito palette (safe for colour-blind viewers) and
//! every state also has a shape or a word, never colour alone.

use crate::i18n::{t, Lang};
use crate::model::cluster::{BrokerView, ClusterModel, MessageView, ReplicaView};
use kafka_sim::collections::SortedSet;
use kafka_sim::ids::NodeId;
use std::rc::Rc;
use yew::prelude::*;

pub const WIDTH: i32 = 1000;
/// The narrowest horizontal slot a broker box gets (see `layout`).
const MIN_SLOT: i32 = 220;
const BROKER_TOP: i32 = 120;
const ROW_H: i32 = 52;
const HEADER_H: i32 = 46;
/// Kafka 4.1: the two lines of a broker's lifecycle under its name
/// (state, broker epoch), above its replica rows.
const LIFECYCLE_H: i32 = 40;
/// The vertical gap between two rows of brokers (room for the arcs of the
/// messages between them).
const ROW_GAP: i32 = 70;
/// Brokers side by side; more wrap onto further rows of equal length, so
/// that ten brokers draw at a readable size instead of one wide strip.
const MAX_PER_ROW: usize = 5;
/// Replica rows drawn per broker (fewer when the brokers wrap); the rest
/// are summed up in one line, so a large cluster stays readable (and fast
/// to draw).
const MAX_ROWS: usize = 12;
const MAX_ROWS_WRAPPED: usize = 7;
/// Client boxes (producers on the left, consumers on the right) drawn one
/// above the other; more are summed up in the last one, and their messages
/// leave from it.
const MAX_CLIENTS: usize = 8;
const CLIENT_STEP: i32 = 70;

/// What a menu acts on.
#[derive(Clone, Debug, PartialEq)]
pub enum MenuNode {
    Broker(i32),
    /// A producer or consumer, by its name in the scenario.
    Producer(String),
    Consumer(String),
    /// The network link between two nodes (either way round).
    Link(NodeId, NodeId),
}

/// A request for a node's action menu: the node, whether it is alive, and
/// where to open the menu (CSS pixels in the viewport).
#[derive(Clone, Debug, PartialEq)]
pub struct NodeMenu {
    pub node: MenuNode,
    pub alive: bool,
    pub x: i32,
    pub y: i32,
}

/// The handlers that open a node's menu: right-click (or long-press) on
/// the node, and Enter, Space, the menu key or Shift+F10 on its name.
fn menu_handlers(
    cb: &Callback<NodeMenu>,
    node: MenuNode,
    alive: bool,
) -> (Callback<MouseEvent>, Callback<KeyboardEvent>) {
    let oncontextmenu = {
        let (cb, node) = (cb.clone(), node.clone());
        Callback::from(move |e: MouseEvent| {
            e.prevent_default();
            cb.emit(NodeMenu {
                node: node.clone(),
                alive,
                x: e.client_x(),
                y: e.client_y(),
            })
        })
    };
    let onkeydown = {
        let cb = cb.clone();
        Callback::from(move |e: KeyboardEvent| {
            let menu_key = matches!(e.key().as_str(), "Enter" | " " | "ContextMenu")
                || (e.key() == "F10" && e.shift_key());
            if !menu_key {
                return;
            }
            e.prevent_default();
            e.stop_propagation();
            let at = e
                .target_dyn_into::<web_sys::Element>()
                .map(|el| el.get_bounding_client_rect());
            let (x, y) = at
                .map(|r| ((r.left() + 24.0) as i32, (r.top() + 32.0) as i32))
                .unwrap_or((40, 40));
            cb.emit(NodeMenu {
                node: node.clone(),
                alive,
                x,
                y,
            })
        })
    };
    (oncontextmenu, onkeydown)
}

/// Above this many messages in flight, only their dots are drawn.
pub const CROWDED_MESSAGES: usize = 60;
#[derive(Properties, PartialEq)]
pub struct ClusterProps {
    pub model: Rc<ClusterModel>,
    pub lang: Lang,
    /// A node's menu was asked for (right-click, long-press, Enter or the
    /// menu key on it): which node, and where (page coordinates).
    pub on_broker: Callback<NodeMenu>,
    /// What the event a log line seeked to changed: `b1`, `b1:first-0`, `p0`, `c0`.
    #[prop_or_default]
    pub marks: Rc<SortedSet<String>>,
    /// A message was clicked (None: its details closed).
    #[prop_or_default]
    pub on_message: Callback<Option<u64>>,
    /// While playing: the simulated clock between this event and the next,
    /// along which the messages travel until the next step.
    #[prop_or_default]
    pub clock: Option<MotionClock>,
    /// The partition the lesson points at now (`first-0`): its replicas
    /// are marked.
    #[prop_or_default]
    pub highlight: Option<AttrValue>,
    /// Projector mode: the drawing is laid out larger for its width.
    #[prop_or_default]
    pub projector: bool,
}

/// Projector mode's zoom of the drawing (percent).
const PROJECTOR_ZOOM_PCT: i32 = 130;

/// The drawing's width and the viewport's height, as laid out now.
fn measure(svg: &NodeRef, zoom_pct: i32) -> Option<Fit> {
    let el = svg.cast::<web_sys::Element>()?;
    let width = el.get_bounding_client_rect().width() as i32;
    let height = web_sys::window()?.inner_height().ok()?.as_f64()? as i32;
    (width > 0).then_some(Fit {
        width_px: width,
        min_height_px: height * MIN_HEIGHT_PCT / 100,
        zoom_pct,
    })
}

/// The simulated clock while playing: from the time of the event shown to
/// the time of the event the next step will show, over the wall-clock
/// interval between two steps. The messages in flight move along it, so a
/// request crosses its link in step with its simulated latency instead of
/// jumping from event to event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionClock {
    /// The player's cursor (a new step restarts the clock).
    pub cursor: u64,
    pub from_ms: u64,
    pub to_ms: u64,
    /// Wall-clock milliseconds between two steps at the current speed.
    pub over_ms: u32,
}

impl MotionClock {
    /// Simulated time `elapsed_ms` of wall-clock time after the step.
    fn at(&self, elapsed_ms: f64) -> f64 {
        let f = (elapsed_ms / self.over_ms.max(1) as f64).clamp(0.0, 1.0);
        self.from_ms as f64 + self.to_ms.saturating_sub(self.from_ms) as f64 * f
    }
}

/// A message's way across the drawing: a quadratic Bézier curve from its
/// sender to its receiver, and when it travels on it (simulated ms).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Route {
    from: (i32, i32),
    ctrl: (i32, i32),
    to: (i32, i32),
    sent_ms: u64,
    span_ms: u64,
}

impl Route {
    fn new(l: &Layout, msg: &MessageView) -> Route {
        let from = anchor(l, msg.from);
        let to = anchor(l, msg.to);
        // Between brokers the path arcs above the boxes; otherwise straight.
        let both_brokers = matches!((msg.from, msg.to), (NodeId::Broker(_), NodeId::Broker(_)));
        let ctrl = if both_brokers {
            ((from.0 + to.0) / 2, from.1.min(to.1) - 60)
        } else {
            ((from.0 + to.0) / 2, (from.1 + to.1) / 2)
        };
        Route {
            from,
            ctrl,
            to,
            sent_ms: msg.sent_ms,
            span_ms: msg.arrives_ms.saturating_sub(msg.sent_ms).max(1),
        }
    }

    /// The point `f` thousandths along the curve.
    fn at(&self, f: i64) -> (i32, i32) {
        let f = f.clamp(0, 1000);
        let q = |a: i32, c: i32, b: i32| {
            let g = 1000 - f;
            ((g * g * a as i64 + 2 * g * f * c as i64 + f * f * b as i64) / 1_000_000) as i32
        };
        (
            q(self.from.0, self.ctrl.0, self.to.0),
            q(self.from.1, self.ctrl.1, self.to.1),
        )
    }

    /// Thousandths of the way travelled at simulated time `t_ms` (the view
    /// model's `progress_permille` at whole milliseconds).
    fn permille_at(&self, t_ms: f64) -> i64 {
        let done = (t_ms - self.sent_ms as f64).clamp(0.0, self.span_ms as f64);
        (done * 1000.0 / self.span_ms as f64) as i64
    }

    fn d(&self) -> String {
        let ((x0, y0), (cx, cy), (x1, y1)) = (self.from, self.ctrl, self.to);
        format!("M{x0},{y0} Q{cx},{cy} {x1},{y1}")
    }
}

/// Moves the messages in flight along their routes on `clock`, once per
/// animation frame, by translating each `g.msg` (yew owns their `cx`/`cy`,
/// which stay those of the event shown). Returns what stops it and puts them
/// back (the next step draws them where the clock has brought them).
fn start_motion(
    group: NodeRef,
    routes: Rc<Vec<(Route, (i32, i32))>>,
    clock: MotionClock,
) -> Option<impl FnOnce()> {
    use std::cell::{Cell, RefCell};
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let window = web_sys::window()?;
    // The learner asked for less motion: the messages move with the steps only.
    if crate::io::browser::reduced_motion() {
        return None;
    }
    if clock.to_ms <= clock.from_ms || routes.is_empty() {
        return None;
    }
    type Frame = Closure<dyn FnMut(f64)>;
    let frame: Rc<RefCell<Option<Frame>>> = Rc::new(RefCell::new(None));
    let pending = Rc::new(Cell::new(None::<i32>));
    let start = Rc::new(Cell::new(None::<f64>));
    let place = {
        let (group, routes) = (group.clone(), routes.clone());
        move |t_ms: Option<f64>| {
            let Some(g) = group.cast::<web_sys::Element>() else {
                return;
            };
            let kids = g.children();
            match t_ms {
                Some(t) => {
                    for (i, (r, (x0, y0))) in routes.iter().enumerate() {
                        let Some(k) = kids.item(i as u32) else { break };
                        let (x, y) = r.at(r.permille_at(t));
                        let _ = k.set_attribute(
                            "transform",
                            &format!("translate({} {})", x - x0, y - y0),
                        );
                    }
                }
                // All of them: the next step may have reordered the group.
                None => {
                    for i in 0..kids.length() {
                        if let Some(k) = kids.item(i) {
                            let _ = k.remove_attribute("transform");
                        }
                    }
                }
            }
        }
    };
    {
        let (again, pending, window) = (frame.clone(), pending.clone(), window.clone());
        let place = place.clone();
        *frame.borrow_mut() = Some(Closure::new(move |now: f64| {
            let t0 = start.get().unwrap_or(now);
            start.set(Some(t0));
            let elapsed = now - t0;
            place(Some(clock.at(elapsed)));
            pending.set(None);
            if elapsed < clock.over_ms as f64 {
                if let Some(f) = again.borrow().as_ref() {
                    pending.set(
                        window
                            .request_animation_frame(f.as_ref().unchecked_ref())
                            .ok(),
                    );
                }
            }
        }));
    }
    pending.set(
        window
            .request_animation_frame(frame.borrow().as_ref()?.as_ref().unchecked_ref())
            .ok(),
    );
    Some(move || {
        if let Some(id) = pending.take() {
            let _ = window.cancel_animation_frame(id);
        }
        // Breaks the closure's cycle through `again`.
        frame.borrow_mut().take();
        place(None);
    })
}

/// A node as the page names it: clients by their scenario names.
fn node_name(n: NodeId, m: &ClusterModel, lang: Lang) -> String {
    let (producer, consumer) = (t(lang, "producer"), t(lang, "consumer"));
    match n {
        NodeId::Broker(b) => format!("broker {}", b.0),
        NodeId::Producer(i) => match m.producers.get(i as usize) {
            Some((name, _)) => format!("{producer} {name}"),
            None => format!("{producer} {i}"),
        },
        NodeId::Consumer(i) => match m.consumers.get(i as usize) {
            Some((name, _)) => format!("{consumer} {name}"),
            None => format!("{consumer} {i}"),
        },
        NodeId::ZooKeeper => "ZooKeeper".into(),
        NodeId::Controller(c) => format!("{} {c}", t(lang, "controller")),
        NodeId::User => t(lang, "you").into(),
    }
}

/// The clicked message: what it carries, as the engine holds it.
pub fn message_detail(
    d: &crate::model::cluster::MessageDetail,
    m: &ClusterModel,
    lang: Lang,
    on_close: &Callback<Option<u64>>,
) -> Html {
    let close = on_close.reform(|_: MouseEvent| None);
    html! {
        <div class="msg-detail" id="msg-detail" role="region" aria-label={format!("{} {}", d.api, t(lang, "message_detail"))}>
            <strong>{ format!("{} · {} → {}", d.api, node_name(d.from, m, lang), node_name(d.to, m, lang)) }</strong>
            {" "}<span class="small-note">{ format!("{} {} ms · {} {} ms", t(lang, "sent_at"), d.sent_ms, t(lang, "arrives_at"), d.arrives_ms) }</span>
            <button class="small" id="msg-detail-close" onclick={close} aria-label={t(lang, "dismiss")}>{"✕"}</button>
            <p>{ crate::i18n::engine_text(lang, &d.summary) }</p>
            <pre class="mono">{ d.json.clone() }</pre>
        </div>
    }
}

/// What the page gives the drawing, in CSS pixels: its width (0: not
/// measured yet, the base layout), the height it should fill at least, and
/// how large a drawing unit is drawn, in percent (100; more in projector
/// mode). A measured drawing is laid out for its width, so that its text is
/// drawn at its own size times the zoom whatever the screen: brokers wrap
/// onto more rows on a narrow screen instead of shrinking.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Fit {
    pub width_px: i32,
    pub min_height_px: i32,
    pub zoom_pct: i32,
}

/// The margin on a side without clients, and with them (their boxes are
/// 110 wide, centred 70 from the edge).
const BARE_MARGIN: i32 = 24;
const CLIENT_MARGIN: i32 = 150;
/// The drawing fills at least this share of the viewport's height (percent),
/// the room going above the brokers, where the messages to and from
/// ZooKeeper travel.
pub const MIN_HEIGHT_PCT: i32 = 60;

struct Layout {
    /// The drawing's width in SVG units: [`WIDTH`] (or the measured width
    /// over the zoom), or more when the brokers need it (the page scales
    /// the drawing to fit).
    width: i32,
    /// The top of the first row of brokers (and of the clients' column).
    top: i32,
    /// Each broker's id and the top-left corner of its box.
    broker_xy: Vec<(i32, (i32, i32))>,
    broker_w: i32,
    broker_h: i32,
    /// Where a box's replica rows start, below its name (and in 4.1 its
    /// lifecycle lines).
    head_h: i32,
    /// Replica rows drawn in each box.
    max_rows: usize,
    /// How many producers and consumers there are.
    clients: (usize, usize),
    height: i32,
    /// Kafka 4.1: each controller's `node.id` and the top-left corner of its
    /// box (the row where ZooKeeper is drawn in 3.9).
    controller_xy: Vec<(i32, (i32, i32))>,
}

/// A KRaft controller's box.
const CONTROLLER_W: i32 = 180;
const CONTROLLER_H: i32 = 60;
const CONTROLLER_GAP: i32 = 16;

/// The slot (from the top) of client `i` of `count`: beyond MAX_CLIENTS,
/// the last slot holds the rest.
fn client_slot(i: usize, count: usize) -> usize {
    i.min(clients_alone(count))
}

/// How many of `count` clients get a box of their own.
fn clients_alone(count: usize) -> usize {
    if count > MAX_CLIENTS {
        MAX_CLIENTS - 1
    } else {
        count
    }
}

/// The brokers' ids, row by row. Up to MAX_PER_ROW side by side; more wrap
/// onto rows of equal length (10 brokers: two rows of 5). With racks
/// (`broker.rack`), racks in name order, each rack's brokers together and a
/// rack never split across rows unless it alone is longer than a row;
/// brokers without a rack last.
fn broker_rows(m: &ClusterModel, max_per_row: usize) -> Vec<Vec<i32>> {
    let n = m.brokers.len().max(1);
    if m.brokers.iter().all(|b| b.rack.is_none()) {
        let per_row = n.div_ceil(n.div_ceil(max_per_row));
        return m
            .brokers
            .chunks(per_row)
            .map(|c| c.iter().map(|b| b.id).collect())
            .collect();
    }
    let mut order: Vec<&BrokerView> = m.brokers.iter().collect();
    order.sort_by(|a, b| (a.rack.is_none(), &a.rack, a.id).cmp(&(b.rack.is_none(), &b.rack, b.id)));
    let mut racks: Vec<Vec<i32>> = Vec::new();
    for (i, b) in order.iter().enumerate() {
        if i == 0 || order[i - 1].rack != b.rack {
            racks.push(Vec::new());
        }
        racks.last_mut().expect("pushed").push(b.id);
    }
    let mut rows: Vec<Vec<i32>> = Vec::new();
    for rack in racks {
        match rows.last_mut() {
            Some(row) if row.len() + rack.len() <= max_per_row => row.extend(rack),
            _ => rows.extend(rack.chunks(max_per_row).map(<[i32]>::to_vec)),
        }
    }
    rows
}

/// The width a replica row needs for its partition's name (15 px, bold) and
/// its marks (`HW 12 LEO 15`, 14 px) side by side, in drawing units, from
/// generous per-character widths (the page's sans-serif fonts).
fn row_text_width(m: &ClusterModel) -> i32 {
    let (mut name, mut marks) = (0, 0);
    for b in &m.brokers {
        for r in b.replicas.iter() {
            name = name.max(r.tp.chars().count() as i32);
            marks = marks.max(format!("HW {} LEO {}", r.hw, r.leo).len() as i32);
        }
    }
    // Badge and gap (34), name, a gap, marks, right padding (8).
    34 + name * 10 + 12 + marks * 9 + 8
}

#[cfg(test)]
fn layout(m: &ClusterModel) -> Layout {
    layout_in(m, &Fit::default())
}

fn layout_in(m: &ClusterModel, fit: &Fit) -> Layout {
    let measured = fit.width_px > 0;
    let zoom = if fit.zoom_pct > 0 { fit.zoom_pct } else { 100 };
    // Measured, a side without clients keeps a small margin only.
    let margin = |clients: usize| {
        if measured && clients == 0 {
            BARE_MARGIN
        } else {
            CLIENT_MARGIN
        }
    };
    let (left, right) = (margin(m.producers.len()), margin(m.consumers.len()));
    // Each broker gets at least MIN_SLOT, and room for its rows' names and
    // marks, so that its replica rows (name, log bar, HW and LEO marks) fit
    // in its box: a full row wraps or widens the drawing instead of
    // overlapping.
    let min_slot = MIN_SLOT.max(row_text_width(m) + 20);
    let room = if measured {
        fit.width_px * 100 / zoom
    } else {
        WIDTH
    };
    // Not measured, a full row widens the drawing (the page scales it).
    let fits = if measured {
        ((room - left - right) / min_slot).clamp(1, MAX_PER_ROW as i32) as usize
    } else {
        MAX_PER_ROW
    };
    let rows_of_brokers = broker_rows(m, fits);
    let broker_rows = rows_of_brokers.len().max(1);
    let per_row = rows_of_brokers
        .iter()
        .map(Vec::len)
        .max()
        .unwrap_or(1)
        .max(1) as i32;
    let width = room.max(left + right + per_row * min_slot);
    let slot = (width - left - right) / per_row;
    let broker_w = (slot - 20).clamp(60, 240.max(min_slot - 20));
    let max_rows = if broker_rows > 1 {
        MAX_ROWS_WRAPPED
    } else {
        MAX_ROWS
    };
    let rows = m
        .brokers
        .iter()
        .map(|b| b.replicas.len().min(max_rows + 1))
        .max()
        .unwrap_or(0) as i32;
    let head_h = if m.brokers.iter().any(|b| b.lifecycle.is_some()) {
        HEADER_H + LIFECYCLE_H
    } else {
        HEADER_H
    };
    let broker_h = head_h + rows.max(1) * ROW_H + 10;
    // Tall enough for the clients' boxes too.
    let clients = (m.producers.len(), m.consumers.len());
    let slots = clients.0.max(clients.1).clamp(1, MAX_CLIENTS) as i32;
    let natural = |top: i32| {
        (top + broker_rows as i32 * (broker_h + ROW_GAP) - ROW_GAP)
            .max(top + 30 + (slots - 1) * CLIENT_STEP + 20)
            + 40
    };
    // The height the page asks for, in drawing units: what is left over
    // goes half above the brokers (where the messages to and from
    // ZooKeeper travel), half below them.
    let wanted = if measured {
        (fit.min_height_px as i64 * width as i64 / fit.width_px as i64) as i32
    } else {
        0
    };
    let extra = (wanted - natural(BROKER_TOP)).max(0);
    let top = BROKER_TOP + extra / 2;
    let broker_xy = rows_of_brokers
        .iter()
        .enumerate()
        .flat_map(|(row, ids)| {
            // A shorter row (the last) is centred under the longer ones.
            let indent = slot * (per_row - ids.len() as i32) / 2;
            ids.iter().enumerate().map(move |(col, id)| {
                let x = left + indent + slot * col as i32 + (slot - broker_w) / 2;
                (*id, (x, top + row as i32 * (broker_h + ROW_GAP)))
            })
        })
        .collect();
    let controller_xy = match &m.quorum {
        Some(q) => {
            let n = q.controllers.len() as i32;
            let row = n * CONTROLLER_W + (n - 1).max(0) * CONTROLLER_GAP;
            let x0 = (width - row) / 2;
            q.controllers
                .iter()
                .enumerate()
                .map(|(i, c)| (c.id, (x0 + i as i32 * (CONTROLLER_W + CONTROLLER_GAP), 4)))
                .collect()
        }
        None => Vec::new(),
    };
    Layout {
        controller_xy,
        width,
        top,
        broker_xy,
        broker_w,
        broker_h,
        head_h,
        max_rows,
        clients,
        height: natural(top) + extra - (top - BROKER_TOP),
    }
}

/// The centre of a client's box.
fn client_center(l: &Layout, n: NodeId) -> (i32, i32) {
    match n {
        NodeId::Producer(p) => (
            70,
            l.top + 30 + client_slot(p as usize, l.clients.0) as i32 * CLIENT_STEP,
        ),
        NodeId::Consumer(c) => (
            l.width - 70,
            l.top + 30 + client_slot(c as usize, l.clients.1) as i32 * CLIENT_STEP,
        ),
        _ => anchor(l, n),
    }
}

/// Where a node's messages leave and arrive: the top of a broker's box, the
/// inner edge of a client's (clear of its name).
fn anchor(l: &Layout, n: NodeId) -> (i32, i32) {
    match n {
        NodeId::Broker(b) => l
            .broker_xy
            .iter()
            .find(|(id, _)| *id == b.0)
            .map(|(_, (x, y))| (x + l.broker_w / 2, *y))
            .unwrap_or((l.width / 2, l.top)),
        NodeId::ZooKeeper => (l.width / 2, 56),
        NodeId::Controller(c) => l
            .controller_xy
            .iter()
            .find(|(id, _)| *id == c)
            .map(|(_, (x, y))| (x + CONTROLLER_W / 2, y + CONTROLLER_H + 8))
            .unwrap_or((l.width / 2, 56)),
        NodeId::Producer(_) => {
            let (x, y) = client_center(l, n);
            (x + 55, y)
        }
        NodeId::Consumer(_) => {
            let (x, y) = client_center(l, n);
            (x - 55, y)
        }
        NodeId::User => (l.width / 2, 0),
    }
}

/// Kafka 4.1: the controller quorum, one box per voter: its role and epoch,
/// its metadata log end and high watermark.
fn quorum_boxes(l: &Layout, q: &crate::model::cluster::QuorumView, lang: Lang) -> Html {
    use kafka_sim::event::QuorumRole;
    html! {
        <g class="quorum" id="quorum" role="group" aria-label={format!("{}: epoch {}", t(lang, "quorum"), q.epoch)}>
            { for q.controllers.iter().map(|c| {
                let (x, y) = l.controller_xy.iter().find(|(id, _)| *id == c.id).map(|(_, xy)| *xy).unwrap_or((0, 4));
                let role = match c.role {
                    QuorumRole::Leader => "leader",
                    QuorumRole::Follower => "follower",
                    QuorumRole::Candidate => "candidate",
                    QuorumRole::Prospective => "prospective",
                    QuorumRole::Unattached => "unattached",
                    QuorumRole::Resigned => "resigned",
                };
                let state = if c.alive {
                    format!("{} · epoch {}", t(lang, &format!("quorum_{role}")), c.epoch)
                } else {
                    t(lang, "quorum_down").to_string()
                };
                let hw = if c.hw < 0 { "?".to_string() } else { c.hw.to_string() };
                let cx = x + CONTROLLER_W / 2;
                html! {
                    <g class={classes!("controller", role, (!c.alive).then_some("dead"))} id={format!("controller-{}", c.id)}>
                        <title>{ format!("{} {}: {state}, LEO {}, HW {hw}", t(lang, "controller"), c.id, c.leo) }</title>
                        <rect x={x.to_string()} y={y.to_string()} width={CONTROLLER_W.to_string()} height={CONTROLLER_H.to_string()} rx="10" />
                        <text x={cx.to_string()} y={(y + 17).to_string()}>{ format!("{}{} {}", if c.role == QuorumRole::Leader && c.alive { "★ " } else { "" }, t(lang, "controller"), c.id) }</text>
                        <text class="small" x={cx.to_string()} y={(y + 35).to_string()}>{ state }</text>
                        <text class="small" x={cx.to_string()} y={(y + 52).to_string()}>{ format!("LEO {} · HW {hw}", c.leo) }</text>
                    </g>
                }
            }) }
        </g>
    }
}

/// Up to this many offsets, a replica's log is drawn one numbered cell per
/// offset; a longer log is a bar with its HW and LEO marked.
pub const MAX_CELLS: i64 = 10;
/// Cell fills by leader epoch (light, so the offset numbers on them keep
/// AA contrast): two replicas whose cells differ in colour at the same
/// offset hold different records there.
const EPOCH_FILLS: [&str; 4] = ["#cfe6f5", "#fde2b8", "#cdeee0", "#f1d3e6"];

fn replica_row(
    r: &ReplicaView,
    (x, y, w): (i32, i32, i32),
    alive: bool,
    max_leo: i64,
    lang: Lang,
    changed: bool,
    taught: bool,
) -> Html {
    // A stopped broker's replica is neither leader nor follower: it is down.
    let (class, label) = if !alive {
        ("role-badge down", "✕")
    } else if r.leader {
        ("role-badge leader", "L")
    } else if r.in_isr {
        ("role-badge follower", "F")
    } else {
        ("role-badge osr", "F")
    };
    let role = if !alive {
        t(lang, "down")
    } else if r.leader {
        t(lang, "leader")
    } else {
        t(lang, "follower")
    };
    // The ISR as the leader holds it; the broker's own copy may lag.
    let isr = if r.in_isr || r.leader { "ISR" } else { "OSR" };
    let lag = r.own_view_lags.then(|| {
        let own = if r.in_isr { "OSR" } else { "ISR" };
        format!("; {} {own}", t(lang, "own_view_lags"))
    });
    let (bar_x, bar_w) = (x + 8, (w - 16).max(20));
    let top = y + 26;
    let len = r.leo - r.log_start.max(0);
    // Integer pixels throughout: SVG needs no fractions here, and leaving
    // floats out keeps float formatting out of the page.
    let cells = if max_leo <= MAX_CELLS && len >= 0 {
        // One numbered cell per offset, filled by the epoch it was written
        // in; committed ones (below the HW) outlined solid, the rest dashed.
        let cw = (bar_w as i64 / MAX_CELLS) as i32;
        (r.log_start.max(0)..r.leo)
            .map(|o| {
                let cx = bar_x + o as i32 * cw;
                let committed = o < r.hw;
                let epoch = r.epoch_of(o);
                let fill = epoch
                    .map(|e| EPOCH_FILLS[e.rem_euclid(EPOCH_FILLS.len() as i32) as usize])
                    .unwrap_or("#eeeeee");
                html! {
                    <g class={classes!("cell", committed.then_some("committed"))} data-offset={o.to_string()}
                        data-epoch={epoch.map(|e| e.to_string()).unwrap_or_default()}>
                        <title>{ format!("{} {o} · leader epoch {}", t(lang, "offset"), epoch.map(|e| e.to_string()).unwrap_or("?".into())) }</title>
                        <rect x={(cx + 1).to_string()} y={top.to_string()} width={(cw - 2).to_string()} height="20" rx="2" fill={fill} />
                        <text class="offset" x={(cx + cw / 2).to_string()} y={(top + 15).to_string()}>{ o }</text>
                    </g>
                }
            })
            .collect::<Html>()
    } else {
        let scale = |o: i64| bar_x + (o.max(0) * bar_w as i64 / max_leo.max(1)) as i32;
        html! {
            <>
                <rect class="span committed" x={scale(r.log_start).to_string()} y={top.to_string()}
                    width={(scale(r.hw) - scale(r.log_start)).max(0).to_string()} height="20" />
                <rect class="span" x={scale(r.hw).to_string()} y={top.to_string()}
                    width={(scale(r.leo) - scale(r.hw)).max(0).to_string()} height="20" />
            </>
        }
    };
    // What the latest truncation cut (and the log has not written again):
    // struck-out cells, while the log is drawn cell by cell.
    let ghosts = match r.truncated {
        Some((from, to)) if max_leo <= MAX_CELLS => {
            let cw = (bar_w as i64 / MAX_CELLS) as i32;
            (from..to.min(MAX_CELLS))
                .map(|o| {
                    let cx = bar_x + o as i32 * cw;
                    html! {
                        <g class="cell truncated" data-offset={o.to_string()}>
                            <title>{ format!("{} {o}: {}", t(lang, "offset"), t(lang, "truncated_cell")) }</title>
                            <rect x={(cx + 1).to_string()} y={top.to_string()} width={(cw - 2).to_string()} height="20" rx="2" />
                            <text class="offset" x={(cx + cw / 2).to_string()} y={(top + 15).to_string()}>{ o }</text>
                            <line x1={(cx + 2).to_string()} y1={(top + 18).to_string()} x2={(cx + cw - 2).to_string()} y2={(top + 2).to_string()} />
                        </g>
                    }
                })
                .collect::<Html>()
        }
        _ => Html::default(),
    };
    let pos = |o: i64| {
        if max_leo <= MAX_CELLS {
            bar_x + o as i32 * (bar_w as i64 / MAX_CELLS) as i32
        } else {
            bar_x + (o.max(0) * bar_w as i64 / max_leo.max(1)) as i32
        }
    };
    html! {
        <g class={classes!("replica", changed.then_some("changed"), taught.then_some("taught"))} data-tp={r.tp.clone()} data-role={label}>
            if taught {
                <rect class="taught-frame" x={(x + 2).to_string()} y={(y - 1).to_string()} width={(w - 4).to_string()} height={(ROW_H - 2).to_string()} rx="6" />
            }
            <title>{ format!("{} — {role} ({isr}{}{}), {} {}, LEO {}, HW {}, leader epoch {}", r.tp, lag.clone().unwrap_or_default(), if r.in_elr { format!("; ELR: {}", t(lang, "elr_mark")) } else { String::new() }, t(lang, "log_start"), r.log_start, r.leo, r.hw, r.leader_epoch) }</title>
            <g class={class} data-isr={isr}>
                <rect x={(x + 6).to_string()} y={(y + 2).to_string()} width="22" height="22" rx="4" />
                <text x={(x + 17).to_string()} y={(y + 18).to_string()}>{ label }</text>
            </g>
            if let Some(lag) = &lag {
                // Not yet told: a dot on the badge's corner (its tooltip says why).
                <g class="lag-mark">
                    <title>{ lag.trim_start_matches("; ").to_string() }</title>
                    <circle cx={(x + 28).to_string()} cy={(y + 3).to_string()} r="5" />
                </g>
            }
            <text x={(x + 34).to_string()} y={(y + 18).to_string()} class="tp">{ r.tp.clone() }
                if r.in_elr && !r.leader {
                    <tspan class="elr-mark">{ " · ELR" }<title>{ t(lang, "elr_mark") }</title></tspan>
                }
            </text>
            <text class="marks" x={(x + w - 8).to_string()} y={(y + 18).to_string()}>
                <tspan class="hw-label">{ format!("HW {}", r.hw) }</tspan>{" "}<tspan class="leo-label">{ format!("LEO {}", r.leo) }</tspan>
            </text>
            <rect class="bar" x={bar_x.to_string()} y={top.to_string()} width={bar_w.to_string()} height="20" />
            { cells }
            { ghosts }
            <line class="hw" x1={pos(r.hw).to_string()} x2={pos(r.hw).to_string()} y1={(top - 3).to_string()} y2={(top + 23).to_string()} />
        </g>
    }
}

/// A dashed frame, named, around each rack's brokers (per row of boxes):
/// where `broker.rack` puts them, so a learner sees replicas spread across
/// racks. Nothing without racks.
fn rack_groups(m: &ClusterModel, l: &Layout, lang: Lang) -> Html {
    // (rack, row top) → the boxes' left edges.
    let mut groups: Vec<(&str, i32, i32, i32)> = Vec::new();
    for (id, (x, y)) in &l.broker_xy {
        let Some(rack) = m
            .brokers
            .iter()
            .find(|b| b.id == *id)
            .and_then(|b| b.rack.as_deref())
        else {
            continue;
        };
        match groups.iter_mut().find(|g| g.0 == rack && g.1 == *y) {
            Some(g) => {
                g.2 = g.2.min(*x);
                g.3 = g.3.max(*x);
            }
            None => groups.push((rack, *y, *x, *x)),
        }
    }
    html! {
        <g class="racks">
            { for groups.iter().map(|(rack, top, first, last)| html! {
                <g class="rack" data-rack={rack.to_string()}>
                    <rect x={(first - 8).to_string()} y={(top - 28).to_string()}
                        width={(last - first + l.broker_w + 16).to_string()} height={(l.broker_h + 36).to_string()} rx="14" />
                    <text x={(first - 2).to_string()} y={(top - 10).to_string()}>{ format!("{} {rack}", t(lang, "rack")) }</text>
                </g>
            }) }
        </g>
    }
}

#[derive(Properties, PartialEq)]
struct BrokerBoxProps {
    broker: BrokerView,
    xy: (i32, i32),
    broker_w: i32,
    broker_h: i32,
    head_h: i32,
    max_rows: usize,
    max_leo: i64,
    lang: Lang,
    on_broker: Callback<NodeMenu>,
    /// The marks of "what changed" on this broker (`b1`, `b1:t-0`).
    marks: Vec<String>,
    /// The partition the lesson points at, if this broker holds it.
    highlight: Option<AttrValue>,
}

/// One broker's box. A component of its own, so a step redraws only the
/// boxes whose broker (or the scale of the logs) changed: a hundred brokers
/// with their replica rows are drawn at scale.
#[component]
fn BrokerBox(p: &BrokerBoxProps) -> Html {
    let marks: SortedSet<String> = p.marks.iter().cloned().collect();
    broker_box(p, &marks)
}

fn broker_box(p: &BrokerBoxProps, marks: &SortedSet<String>) -> Html {
    let BrokerBoxProps {
        broker: b,
        xy: (x, top),
        broker_w,
        broker_h,
        head_h,
        max_rows,
        max_leo,
        lang,
        on_broker,
        highlight,
        ..
    } = p;
    let (x, top, broker_w, broker_h, head_h, max_rows, max_leo, lang) = (
        *x, *top, *broker_w, *broker_h, *head_h, *max_rows, *max_leo, *lang,
    );
    let highlight = highlight.as_deref();
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
    // Acting on a broker is a menu (right-click, long-press, Enter or the
    // menu key), never a bare click: a newcomer's first exploratory click
    // must not branch the timeline.
    let (oncontextmenu, onkeydown) = menu_handlers(on_broker, MenuNode::Broker(b.id), b.alive);
    let more = b
        .replicas
        .get(max_rows..)
        .filter(|r| !r.is_empty())
        .map(|rest| more_line(rest, lang));
    let narrow = broker_w < 230;
    let badge_w = if narrow { 26 } else { 112 };
    let hint = t(lang, "broker_menu_hint");
    html! {
        <g {class} id={format!("broker-{}", b.id)} role="group" {oncontextmenu}
            aria-label={format!("Broker {}{}", b.id, if status.is_empty() { String::new() } else { format!(", {status}") })}>
            <title>{ hint }</title>
            <rect class="box" x={x.to_string()} y={top.to_string()} width={broker_w.to_string()} height={broker_h.to_string()} rx="10" />
            // The broker's name is its menu button (keyboard: Enter, Space,
            // the menu key or Shift+F10).
            <g class="handle" role="button" tabindex="0" aria-haspopup="menu" {onkeydown}
                aria-label={format!("Broker {}: {hint}", b.id)}>
                <text class="name" x={(x + 12).to_string()} y={(top + 24).to_string()}>{ format!("Broker {}", b.id) }</text>
            </g>
            if b.controller {
                // A narrow box (many brokers) has room for the crown only; the
                // group's ARIA label still says "controller".
                <g class="badge">
                    <rect x={(x + broker_w - 10 - badge_w).to_string()} y={(top + 8).to_string()} width={badge_w.to_string()} height="22" rx="11" />
                    <text x={(x + broker_w - 10 - badge_w / 2).to_string()} y={(top + 23).to_string()}>{ if narrow { "♛".to_string() } else { format!("♛ {}", t(lang, "controller")) } }</text>
                </g>
            }
            if !b.alive {
                <text class={if b.started { "down" } else { "down waiting" }} x={(x + broker_w - 12).to_string()} y={(top + 24).to_string()}>
                    { if b.started { format!("✕ {}", t(lang, "down")) } else { t(lang, "not_started").to_string() } }
                </text>
            }
            if let Some(lc) = &b.lifecycle {
                { lifecycle_line(lc, b.alive, (x, top + HEADER_H + 14), broker_w - 24, lang) }
            }
            { for b.replicas.iter().take(max_rows).enumerate().map(|(i, r)| replica_row(r, (x, top + head_h + i as i32 * ROW_H, broker_w), b.alive, max_leo, lang,
                marks.contains(&format!("b{}:{}", b.id, r.tp)), highlight.is_some_and(|h| h == r.tp))) }
            if let Some((head, counts)) = more {
                <text class="more" x={(x + 12).to_string()} y={(top + head_h + max_rows as i32 * ROW_H + 16).to_string()}>
                    <tspan>{ head }</tspan>
                    <tspan class="detail" x={(x + 12).to_string()} dy="16">{ counts }</tspan>
                </text>
            }
        </g>
    }
}

/// Kafka 4.1: a broker's lifecycle (Kafka's state names) and whether the
/// active controller has it fenced. A dead broker is shown as the
/// controller sees it: still unfenced until its session
/// (`broker.session.timeout.ms`) runs out, then fenced.
fn lifecycle_line(
    lc: &crate::model::cluster::LifecycleView,
    alive: bool,
    (x, y): (i32, i32),
    width: i32,
    lang: Lang,
) -> Html {
    use kafka_sim::event::BrokerLifecycle;
    // A live broker: its own state first (Kafka's names); "fenced" only
    // while the active controller has it fenced and it has heard it
    // registered.
    let (first, fenced) = match (alive, lc.state, lc.fenced) {
        (true, None, _) => (t(lang, "lc_unregistered").to_string(), false),
        (true, Some(state), f) => {
            let state = match state {
                BrokerLifecycle::Starting => "STARTING",
                BrokerLifecycle::Recovery => "RECOVERY",
                BrokerLifecycle::Running => "RUNNING",
                BrokerLifecycle::PendingControlledShutdown => "PENDING_CONTROLLED_SHUTDOWN",
                BrokerLifecycle::ShuttingDown => "SHUTTING_DOWN",
            };
            match f {
                Some(true) => (format!("{state} · {}", t(lang, "lc_fenced")), true),
                _ => (state.to_string(), false),
            }
        }
        (false, _, Some(true)) => (t(lang, "lc_dead_fenced").to_string(), true),
        (false, _, Some(false)) => (t(lang, "lc_dead_unfenced").to_string(), false),
        (false, _, None) => return Html::default(),
    };
    html! {
        <text class={classes!("lifecycle", fenced.then_some("fenced"))} x={(x + 12).to_string()} y={y.to_string()}>
            // A long line (Kafka's PENDING_CONTROLLED_SHUTDOWN, "not
            // fenced yet (session open)") is squeezed to the box rather
            // than cut off (about 8.5 px a Latin letter at this size).
            if first.is_ascii() && first.len() as i32 * 17 / 2 > width {
                <tspan textLength={width.to_string()} lengthAdjust="spacingAndGlyphs">{ first }</tspan>
            } else {
                <tspan>{ first }</tspan>
            }
            if lc.broker_epoch >= 0 {
                <tspan class="detail" x={(x + 12).to_string()} dy="17">{ format!("broker epoch {}", lc.broker_epoch) }</tspan>
            }
        </text>
    }
}

/// The summary of the replicas not drawn: how many, then how many lead,
/// follow, and are out of the ISR (two lines, to fit a narrow box).
fn more_line(rest: &[ReplicaView], lang: Lang) -> (String, String) {
    let leaders = rest.iter().filter(|r| r.leader).count();
    let osr = rest.iter().filter(|r| !r.in_isr && !r.leader).count();
    let counts = format!(
        "{leaders} {} · {} {} · {osr} OSR",
        t(lang, "leader"),
        rest.len() - leaders,
        t(lang, "follower")
    );
    let head = match lang {
        Lang::En => format!("+{} more replicas", rest.len()),
        Lang::Zh => format!("另有 {} 个副本未画出", rest.len()),
    };
    (head, counts)
}

/// The box that sums up the producers (or consumers) beyond MAX_CLIENTS - 1:
/// how many, and their names in its tooltip. Their messages leave from it.
fn more_clients(
    l: &Layout,
    m: &ClusterModel,
    lang: Lang,
    marks: &SortedSet<String>,
    producers: bool,
) -> Html {
    let (list, tag, id) = if producers {
        (&m.producers, "p", "producers-more")
    } else {
        (&m.consumers, "c", "consumers-more")
    };
    let first = clients_alone(list.len());
    let rest = &list[first..];
    if first == list.len() {
        return html! {};
    }
    let node = if producers {
        NodeId::Producer(first as u32)
    } else {
        NodeId::Consumer(first as u32)
    };
    let (x, y) = client_center(l, node);
    let dead = rest.iter().all(|(_, alive)| !alive);
    let changed = (first..list.len()).any(|i| marks.contains(&format!("{tag}{i}")));
    let names: Vec<&str> = rest.iter().map(|(n, _)| n.as_str()).collect();
    let label = match lang {
        Lang::En => format!("+{} more", rest.len()),
        Lang::Zh => format!("另 {} 个", rest.len()),
    };
    let title = if names.len() > 40 {
        format!(
            "{} … {}",
            names[..20].join(", "),
            names[names.len() - 20..].join(", ")
        )
    } else {
        names.join(", ")
    };
    html! {
        <g class={classes!("client", if producers { "producer" } else { "consumer" }, "more", dead.then_some("dead"), changed.then_some("changed"))} {id}
            role="group" aria-label={format!("{label}: {}", names.join(", "))}>
            <title>{ title }</title>
            <rect x={(x - 55).to_string()} y={(y - 20).to_string()} width="110" height="40" rx="8" />
            <text x={x.to_string()} y={(y + 5).to_string()}>{ if producers { format!("▶ {label}") } else { format!("{label} ◀") } }</text>
        </g>
    }
}

/// Where a link between two nodes is drawn: between their anchors, but
/// from the bottom of a broker's box to a broker on a lower row, so that the
/// line and its ✕ stay clear of the upper box.
fn link_ends(l: &Layout, a: NodeId, b: NodeId) -> ((i32, i32), (i32, i32)) {
    let (mut p, mut q) = (client_center(l, a), client_center(l, b));
    if let (NodeId::Broker(_), NodeId::Broker(_)) = (a, b) {
        if p.1 < q.1 {
            p.1 += l.broker_h;
        } else if q.1 < p.1 {
            q.1 += l.broker_h;
        }
    }
    (p, q)
}

/// A link between two brokers of one row with a box between them arcs
/// above the row (so it does not run behind that box): the quadratic
/// curve's control point, and the point halfway along the curve where its
/// mark goes. None: a straight line, marked at its middle.
fn link_arc(l: &Layout, a: NodeId, b: NodeId) -> Option<((i32, i32), (i32, i32))> {
    let (p, q) = link_ends(l, a, b);
    let both = matches!((a, b), (NodeId::Broker(_), NodeId::Broker(_)));
    if !both || p.1 != q.1 || (p.0 - q.0).abs() <= l.broker_w * 3 / 2 {
        return None;
    }
    let mid_x = (p.0 + q.0) / 2;
    Some(((mid_x, p.1 - 64), (mid_x, p.1 - 32)))
}

/// Where a link's mark (✕, extra latency) goes.
fn link_mark(l: &Layout, a: NodeId, b: NodeId) -> (i32, i32) {
    let (p, q) = link_ends(l, a, b);
    link_arc(l, a, b).map_or(((p.0 + q.0) / 2, (p.1 + q.1) / 2), |(_, apex)| apex)
}

/// A link's line: straight, or arcing over the boxes between.
fn link_line(l: &Layout, a: NodeId, b: NodeId) -> Html {
    let (p, q) = link_ends(l, a, b);
    match link_arc(l, a, b) {
        Some((c, _)) => html! {
            <path d={format!("M {} {} Q {} {} {} {}", p.0, p.1, c.0, c.1, q.0, q.1)} />
        },
        None => html! {
            <line x1={p.0.to_string()} y1={p.1.to_string()} x2={q.0.to_string()} y2={q.1.to_string()} />
        },
    }
}

/// Each cut link, drawn as a broken line between its two nodes with a ✕
/// whose menu heals it. (Links that are up are not drawn: a message on its
/// way shows the link it uses, and has the menu that cuts it.)
fn cut_links(l: &Layout, m: &ClusterModel, lang: Lang, on_menu: &Callback<NodeMenu>) -> Html {
    html! {
        <g class="net-links">
            { for m.cut_links.iter().map(|&(a, b)| {
                let mid = link_mark(l, a, b);
                let (oncontextmenu, onkeydown) = menu_handlers(on_menu, MenuNode::Link(a, b), false);
                let label = format!("{} {} ↔ {}: {}", t(lang, "link_cut"), node_name(a, m, lang), node_name(b, m, lang), t(lang, "broker_menu_hint"));
                html! {
                    <g class="net-link cut" id={format!("link-{a}-{b}")} {oncontextmenu}>
                        { link_line(l, a, b) }
                        <g class="handle" role="button" tabindex="0" aria-haspopup="menu" aria-label={label} {onkeydown}>
                            <circle cx={mid.0.to_string()} cy={mid.1.to_string()} r="13" />
                            <text x={mid.0.to_string()} y={(mid.1 + 6).to_string()}>{"✕"}</text>
                        </g>
                    </g>
                }
            }) }
        </g>
    }
}

/// Each slow link (`slow_link`), drawn as a dotted line between its two
/// nodes with its extra latency at the middle, so a narration that names a
/// slow link has it on screen.
fn slow_links(l: &Layout, m: &ClusterModel, lang: Lang) -> Html {
    html! {
        <g class="net-links">
            { for m.slow_links.iter().map(|&(a, b, extra)| {
                let mid = link_mark(l, a, b);
                let label = format!("{} {} ↔ {}: +{extra} ms", t(lang, "link_slow"), node_name(a, m, lang), node_name(b, m, lang));
                html! {
                    <g class="net-link slow" id={format!("slow-{a}-{b}")} role="img" aria-label={label.clone()}>
                        <title>{ label }</title>
                        { link_line(l, a, b) }
                        <text x={mid.0.to_string()} y={(mid.1 + 5).to_string()}>{ format!("+{extra} ms") }</text>
                    </g>
                }
            }) }
        </g>
    }
}

#[derive(Properties, PartialEq)]
struct MessageDotProps {
    id: u64,
    api: &'static str,
    /// The name drawn beside the dot.
    name: &'static str,
    summary: String,
    from: NodeId,
    to: NodeId,
    sent_ms: u64,
    arrives_ms: u64,
    /// Where the event shown puts it on its route.
    x: i32,
    y: i32,
    selected: bool,
    /// Where its API's name goes, from the dot: (dx, dy of the baseline,
    /// anchored at its end); None: no room clear of other text.
    label: Option<(i32, i32, bool)>,
    /// Its link is up (its menu offers to cut it, else to heal it).
    up: bool,
    lang: Lang,
    on_message: Callback<Option<u64>>,
    on_broker: Callback<NodeMenu>,
}

/// One message in flight: a dot (and its API's name where it has room) that
/// opens its details. A component of its own, so a step redraws only the
/// dots that moved or changed: hundreds are drawn at scale, and most stay
/// where they were from one event to the next.
/// A box in drawing units: x, y, width, height.
type Rect = (i32, i32, i32, i32);

fn meet(a: &Rect, b: &Rect) -> bool {
    a.0 < b.0 + b.2 && b.0 < a.0 + a.2 && a.1 < b.1 + b.3 && b.1 < a.1 + a.3
}

/// Where each message's API name goes (14 px, beside its dot: right and
/// above, right and below, left and above, left and below), so that no
/// name covers another or the text of ZooKeeper, a client or a broker; a
/// name with no clear place is left out (its dot keeps its title and
/// label). The selected message is placed first and always named; crowded,
/// only it is.
fn label_places(
    l: &Layout,
    m: &ClusterModel,
    dots: &[(i32, i32)],
    selected: Option<u64>,
    crowded: bool,
) -> Vec<Option<(i32, i32, bool)>> {
    // What is drawn already: ZooKeeper, the clients' boxes, the brokers'
    // boxes (with their rack's name above them), the controllers' boxes,
    // the cut links' ✕.
    let racks = m.brokers.iter().any(|b| b.rack.is_some());
    let mut taken: Vec<Rect> = vec![(l.width / 2 - 80, 10, 160, 46)];
    for i in 0..clients_alone(l.clients.0) + usize::from(l.clients.0 > MAX_CLIENTS) {
        let (x, y) = client_center(l, NodeId::Producer(i as u32));
        taken.push((x - 55, y - 20, 110, 40));
    }
    for i in 0..clients_alone(l.clients.1) + usize::from(l.clients.1 > MAX_CLIENTS) {
        let (x, y) = client_center(l, NodeId::Consumer(i as u32));
        taken.push((x - 55, y - 20, 110, 40));
    }
    for (_, (x, y)) in &l.broker_xy {
        let above = if racks { 28 } else { 0 };
        taken.push((
            x - 10 * i32::from(racks),
            y - above,
            l.broker_w + 20 * i32::from(racks),
            l.broker_h + above,
        ));
    }
    // Kafka 4.1: the controllers' boxes (their state and LEO · HW lines).
    for (_, (x, y)) in &l.controller_xy {
        taken.push((*x, *y, CONTROLLER_W, CONTROLLER_H));
    }
    for &(a, b) in &m.cut_links {
        let mid = link_mark(l, a, b);
        taken.push((mid.0 - 14, mid.1 - 14, 28, 28));
    }
    let mut places = vec![None; dots.len()];
    let order = (0..dots.len())
        .filter(|&i| selected == Some(m.messages[i].id))
        .chain((0..dots.len()).filter(|&i| !crowded && selected != Some(m.messages[i].id)));
    for i in order.collect::<Vec<_>>() {
        let (x, y) = dots[i];
        // A generous width for 14 px capitals and lower case; the glyph
        // box runs 13 above the baseline and 4 below.
        let w = m.messages[i].name.len() as i32 * 9 + 4;
        let boxed = |(dx, dy, end): (i32, i32, bool)| -> Rect {
            let left = if end { x + dx - w } else { x + dx };
            (left - 2, y + dy - 14, w + 4, 20)
        };
        let inside =
            |r: &Rect| r.0 >= 0 && r.1 >= 0 && r.0 + r.2 <= l.width && r.1 + r.3 <= l.height;
        let choice = [
            (10, -8, false),
            (10, 22, false),
            (-10, -8, true),
            (-10, 22, true),
        ]
        .into_iter()
        .find(|&c| {
            let r = boxed(c);
            inside(&r) && !taken.iter().any(|t| meet(t, &r))
        });
        let choice = choice.or((selected == Some(m.messages[i].id)).then_some((10, -8, false)));
        if let Some(c) = choice {
            taken.push(boxed(c));
            places[i] = Some(c);
        }
    }
    places
}

#[component]
fn MessageDot(p: &MessageDotProps) -> Html {
    let (id, selected) = (p.id, p.selected);
    let onclick = {
        let cb = p.on_message.clone();
        Callback::from(move |_: MouseEvent| cb.emit(if selected { None } else { Some(id) }))
    };
    // The link it travels on has a menu (cut it, or heal it).
    let (oncontextmenu, on_menu_key) =
        menu_handlers(&p.on_broker, MenuNode::Link(p.from, p.to), p.up);
    let onkeydown = {
        let cb = p.on_message.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                e.prevent_default();
                cb.emit(Some(id));
            } else {
                on_menu_key.emit(e);
            }
        })
    };
    let summary = crate::i18n::engine_text(p.lang, &p.summary);
    let (x, y) = (p.x, p.y);
    html! {
        <g class={classes!("msg", p.api, selected.then_some("selected"))} data-api={p.api} data-id={id.to_string()}
            tabindex="0" role="button" aria-label={summary.clone()} {onclick} {onkeydown} {oncontextmenu}>
            <title>{ format!("{summary} ({} → {} ms)", p.sent_ms, p.arrives_ms) }</title>
            <circle cx={x.to_string()} cy={y.to_string()} r="7" />
            if let Some((dx, dy, end)) = p.label {
                <text x={(x + dx).to_string()} y={(y + dy).to_string()} text-anchor={end.then_some("end")}>{ p.name }</text>
            }
        </g>
    }
}

#[component]
pub fn ClusterView(p: &ClusterProps) -> Html {
    let m = &p.model;
    // Laid out for the width the page gives it, measured after each render
    // and when the window changes size (a change of a few pixels, such as a
    // scroll bar, keeps the layout).
    let svg_ref = use_node_ref();
    let fit = use_state_eq(Fit::default);
    let zoom_pct = if p.projector { PROJECTOR_ZOOM_PCT } else { 100 };
    {
        let (svg_ref, fit) = (svg_ref.clone(), fit.clone());
        use_effect(move || {
            if let Some(now) = measure(&svg_ref, zoom_pct) {
                let same = (now.width_px - fit.width_px).abs() <= 4
                    && now.min_height_px == fit.min_height_px
                    && now.zoom_pct == fit.zoom_pct;
                if !same {
                    fit.set(now);
                }
            }
        });
    }
    {
        let (svg_ref, fit) = (svg_ref.clone(), fit.clone());
        use_effect_with(zoom_pct, move |&zoom_pct| {
            let listener = crate::io::browser::listen_window("resize", move |_| {
                if let Some(now) = measure(&svg_ref, zoom_pct) {
                    fit.set(now);
                }
            });
            move || drop(listener)
        });
    }
    let l = layout_in(m, &fit);
    let lang = p.lang;
    let controller = m.brokers.iter().find(|b| b.controller).map(|b| b.id);
    let label = format!(
        "{}: {} broker, {} {}",
        t(lang, "cluster"),
        m.brokers.len(),
        t(lang, "controller"),
        controller
            .map(|c| c.to_string())
            .unwrap_or_else(|| t(lang, "fig_none").into())
    );
    // Brokers hang off ZooKeeper in 3.9, off the active controller in 4.1
    // (none drawn while no controller leads: a line would name one).
    let zk = match &m.quorum {
        Some(q) => q.leader.map(|c| anchor(&l, NodeId::Controller(c))),
        None => Some(anchor(&l, NodeId::ZooKeeper)),
    };
    // Crowded (a burst of hundreds): dots only. Each route's dashed curve
    // and label is unreadable in the crowd and costs the most to paint; the
    // selected one keeps both, and every dot keeps its title and ARIA label.
    let crowded = m.messages.len() > CROWDED_MESSAGES;
    let selected = m.detail.as_ref().map(|d| d.id);
    // Each message's route, and where on it the event shown puts it.
    let routes: Rc<Vec<(Route, (i32, i32))>> = Rc::new(
        m.messages
            .iter()
            .map(|msg| {
                let r = Route::new(&l, msg);
                (r, r.at(msg.progress_permille as i64))
            })
            .collect(),
    );
    let dots: Vec<(i32, i32)> = routes.iter().map(|(_, xy)| *xy).collect();
    let labels = label_places(&l, m, &dots, selected, crowded);
    let group = use_node_ref();
    {
        let (group, routes) = (group.clone(), routes.clone());
        use_effect_with(p.clock, move |clock| {
            let stop = clock.and_then(|c| start_motion(group, routes, c));
            move || {
                if let Some(stop) = stop {
                    stop()
                }
            }
        });
    }
    html! {
        <>
        <svg id="cluster" ref={svg_ref} class={classes!("cluster", p.clock.is_some().then_some("playing"))} viewBox={format!("0 0 {} {}", l.width, l.height)} role="group" aria-label={label}
             preserveAspectRatio="xMidYMin meet">
            <g class="links">
                { for m.brokers.iter().filter(|_| zk.is_some()).map(|b| {
                    let (bx, by) = anchor(&l, NodeId::broker(b.id));
                    let zk = zk.unwrap_or_default();
                    html!{ <line class="zk-link" x1={zk.0.to_string()} y1={zk.1.to_string()} x2={bx.to_string()} y2={by.to_string()} /> }
                }) }
            </g>
            { slow_links(&l, m, lang) }
            { cut_links(&l, m, lang, &p.on_broker) }
            if let Some(q) = &m.quorum {
                { quorum_boxes(&l, q, lang) }
            } else {
            <g class="zookeeper" id="zookeeper">
                <rect x={(l.width / 2 - 80).to_string()} y="10" width="160" height="46" rx="23" />
                <text x={(l.width / 2).to_string()} y="31">{"ZooKeeper"}</text>
                <text class="small" x={(l.width / 2).to_string()} y="47">{ format!("controller_epoch {}", m.controller_epoch) }</text>
            </g>
            }
            { for m.producers.iter().enumerate().take(clients_alone(m.producers.len())).map(|(i, (name, alive))| {
                let (x, y) = client_center(&l, NodeId::Producer(i as u32));
                let (oncontextmenu, onkeydown) = menu_handlers(&p.on_broker, MenuNode::Producer(name.clone()), *alive);
                html!{
                    <g class={classes!("client", "producer", (!alive).then_some("dead"), p.marks.contains(&format!("p{i}")).then_some("changed"))} id={format!("producer-{i}")}
                        role="group" aria-label={format!("{} {name}", t(lang, "producer"))} {oncontextmenu}>
                        <rect x={(x - 55).to_string()} y={(y - 20).to_string()} width="110" height="40" rx="8" />
                        <g class="handle" role="button" tabindex="0" aria-haspopup="menu" {onkeydown}
                            aria-label={format!("▶ {name}: {}", t(lang, "broker_menu_hint"))}>
                            <text x={x.to_string()} y={(y + 5).to_string()}>{ format!("▶ {name}") }</text>
                        </g>
                    </g>
                }
            }) }
            { more_clients(&l, m, lang, &p.marks, true) }
            { for m.consumers.iter().enumerate().take(clients_alone(m.consumers.len())).map(|(i, (name, alive))| {
                let (x, y) = client_center(&l, NodeId::Consumer(i as u32));
                let (oncontextmenu, onkeydown) = menu_handlers(&p.on_broker, MenuNode::Consumer(name.clone()), *alive);
                html!{
                    <g class={classes!("client", "consumer", (!alive).then_some("dead"), p.marks.contains(&format!("c{i}")).then_some("changed"))} id={format!("consumer-{i}")}
                        role="group" aria-label={format!("{} {name}", t(lang, "consumer"))} {oncontextmenu}>
                        <rect x={(x - 55).to_string()} y={(y - 20).to_string()} width="110" height="40" rx="8" />
                        <g class="handle" role="button" tabindex="0" aria-haspopup="menu" {onkeydown}
                            aria-label={format!("{name} ◀: {}", t(lang, "broker_menu_hint"))}>
                            <text x={x.to_string()} y={(y + 5).to_string()}>{ format!("{name} ◀") }</text>
                        </g>
                    </g>
                }
            }) }
            { more_clients(&l, m, lang, &p.marks, false) }
            // The routes under the brokers: a curve between two rows of
            // brokers passes behind the boxes of the first row.
            <g class="routes" aria-hidden="true">
                { for m.messages.iter().zip(routes.iter()).filter(|(msg, _)| !crowded || selected == Some(msg.id)).map(|(msg, (r, _))| html! {
                    <path key={msg.id} class={classes!("path", (selected == Some(msg.id)).then_some("selected"))} d={r.d()} />
                }) }
            </g>
            { rack_groups(m, &l, lang) }
            { for m.brokers.iter().map(|b| {
                let xy = l.broker_xy.iter().find(|(id, _)| *id == b.id).map(|(_, xy)| *xy).unwrap_or((0, l.top));
                // The marks on this broker (usually none), so a box whose
                // broker and marks did not change is not drawn again.
                let prefix = format!("b{}", b.id);
                let marks: Vec<String> = p.marks.iter()
                    .filter(|k| k.strip_prefix(&prefix).is_some_and(|r| r.is_empty() || r.starts_with(':')))
                    .cloned().collect();
                let highlight = p.highlight.clone().filter(|h| b.replicas.iter().any(|r| r.tp == h.as_str()));
                html! {
                    <BrokerBox key={b.id} broker={b.clone()} {xy} broker_w={l.broker_w} broker_h={l.broker_h} head_h={l.head_h}
                        max_rows={l.max_rows} max_leo={m.max_leo} {lang} on_broker={p.on_broker.clone()} {marks} {highlight} />
                }
            }) }
            <g class="messages" ref={group}>
                { for m.messages.iter().zip(routes.iter()).zip(labels.iter()).map(|((msg, &(_, (x, y))), &label)| html! {
                    <MessageDot key={msg.id} id={msg.id} api={msg.api} name={msg.name} summary={msg.summary.clone()}
                        from={msg.from} to={msg.to} sent_ms={msg.sent_ms} arrives_ms={msg.arrives_ms}
                        {x} {y} selected={selected == Some(msg.id)} {label}
                        up={!crate::state::menu::is_cut(&m.cut_links, msg.from, msg.to)} {lang}
                        on_message={p.on_message.clone()} on_broker={p.on_broker.clone()} />
                }) }
            </g>
            if m.undrawn > 0 {
                <text class="undrawn" x="12" y={(l.height - 10).to_string()}>
                    { format!("+{} {}", m.undrawn, t(lang, "msgs_undrawn")) }
                </text>
            }
        </svg>
        if let Some(d) = &m.detail {
            { message_detail(d, m, lang, &p.on_message) }
        }
        </>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cluster::BrokerView;

    fn model(brokers: usize, replicas: usize) -> ClusterModel {
        let replica = |i: usize| ReplicaView {
            tp: format!("t-{i}"),
            leader: i.is_multiple_of(3),
            in_isr: true,
            log_start: 0,
            leo: 0,
            hw: 0,
            leader_epoch: 0,
            epochs: Vec::new(),
            truncated: None,
            own_view_lags: false,
            in_elr: false,
        };
        ClusterModel {
            brokers: (0..brokers)
                .map(|b| BrokerView {
                    id: b as i32,
                    alive: true,
                    started: true,
                    controller: b == 0,
                    rack: None,
                    replicas: std::rc::Rc::new((0..replicas).map(replica).collect()),
                    lifecycle: None,
                })
                .collect(),
            producers: vec![],
            consumers: vec![],
            messages: vec![],
            undrawn: 0,
            max_leo: 0,
            controller_epoch: 1,
            cut_links: vec![],
            slow_links: vec![],
            detail: None,
            quorum: None,
        }
    }

    /// The boxes' rectangles: (x, y, w, h).
    fn boxes(l: &Layout) -> Vec<(i32, i32, i32, i32)> {
        l.broker_xy
            .iter()
            .map(|(_, (x, y))| (*x, *y, l.broker_w, l.broker_h))
            .collect()
    }

    #[test]
    fn brokers_wrap_onto_rows_of_equal_length_without_overlapping() {
        for (n, rows) in [
            (1, 1),
            (3, 1),
            (5, 1),
            (6, 2),
            (7, 2),
            (10, 2),
            (11, 3),
            (20, 4),
        ] {
            let l = layout(&model(n, 100));
            let b = boxes(&l);
            let mut tops: Vec<i32> = b.iter().map(|r| r.1).collect();
            tops.dedup();
            assert_eq!(tops.len(), rows, "{n} brokers");
            // Rows differ in length by one at most, the longer ones first.
            let per_row: Vec<usize> = tops
                .iter()
                .map(|t| b.iter().filter(|r| r.1 == *t).count())
                .collect();
            assert!(
                per_row.windows(2).all(|w| w[0] >= w[1] && w[0] - w[1] <= 1),
                "{n}: {per_row:?}"
            );
            assert!(per_row[0] <= MAX_PER_ROW);
            for (i, r) in b.iter().enumerate() {
                // Inside the drawing, clear of the clients' margins.
                assert!(r.0 >= 150 && r.0 + r.2 <= l.width - 150, "{n}: {r:?}");
                assert!(r.1 >= BROKER_TOP && r.1 + r.3 <= l.height, "{n}: {r:?}");
                for s in &b[i + 1..] {
                    let apart = r.0 + r.2 <= s.0
                        || s.0 + s.2 <= r.0
                        || r.1 + r.3 <= s.1
                        || s.1 + s.3 <= r.1;
                    assert!(apart, "{n} brokers: {r:?} overlaps {s:?}");
                }
            }
            // A box is wide enough for a replica row's name, bar and marks.
            assert!(l.broker_w >= 200, "{n}: {}", l.broker_w);
        }
    }

    /// With `broker.rack`, each rack's brokers stand side by side in one
    /// frame per row, racks in name order, and no frame holds another
    /// rack's broker.
    #[test]
    fn brokers_of_a_rack_stand_together_in_one_frame() {
        let mut m = model(6, 3);
        for b in &mut m.brokers {
            b.rack = Some(["az-b", "az-a", "az-c"][b.id as usize % 3].to_string());
        }
        let l = layout(&m);
        let x = |id: i32| l.broker_xy.iter().find(|(b, _)| *b == id).unwrap().1;
        // Rack order a, b, c: 1 4 | 0 3 | 2 5; a rack is never split across
        // rows (a and b share the first, c has the second).
        let order: Vec<i32> = {
            let mut v: Vec<(i32, i32, i32)> = (0..6).map(|b| (x(b).1, x(b).0, b)).collect();
            v.sort();
            v.into_iter().map(|(_, _, b)| b).collect()
        };
        assert_eq!(order, [1, 4, 0, 3, 2, 5]);
        for (a, b) in [(1, 4), (0, 3), (2, 5)] {
            assert_eq!(x(a).1, x(b).1, "brokers {a} and {b} share a rack and a row");
        }
        assert_ne!(x(0).1, x(2).1);
        let html = format!("{:?}", rack_groups(&m, &l, Lang::En));
        for rack in ["az-a", "az-b", "az-c"] {
            assert!(html.contains(&format!("rack {rack}")), "{html}");
        }
        // Without racks: id order and no frames.
        let plain = layout(&model(6, 3));
        let ids: Vec<i32> = plain.broker_xy.iter().map(|(b, _)| *b).collect();
        assert_eq!(ids, [0, 1, 2, 3, 4, 5]);
        assert!(!format!("{:?}", rack_groups(&model(6, 3), &plain, Lang::En)).contains("rack "));
    }

    #[test]
    fn clients_fit_in_the_drawing_and_many_share_the_last_box() {
        for count in [1, 3, 8, 9, 72] {
            let mut m = model(3, 0);
            m.producers = (0..count).map(|i| (format!("p{i}"), true)).collect();
            m.consumers = (0..2).map(|i| (format!("c{i}"), true)).collect();
            let l = layout(&m);
            let ys: Vec<i32> = (0..count)
                .map(|i| anchor(&l, NodeId::Producer(i as u32)).1)
                .collect();
            // Every box (40 high around its anchor) is inside the drawing.
            assert!(
                ys.iter().all(|y| y + 20 <= l.height),
                "{count}: {ys:?} in {}",
                l.height
            );
            let mut slots = ys.clone();
            slots.dedup();
            assert_eq!(slots.len(), count.min(MAX_CLIENTS), "{count}");
            assert_eq!(
                clients_alone(count),
                if count > MAX_CLIENTS {
                    MAX_CLIENTS - 1
                } else {
                    count
                }
            );
            // The consumers keep their own slots.
            assert_ne!(
                anchor(&l, NodeId::Consumer(0)),
                anchor(&l, NodeId::Consumer(1))
            );
        }
    }

    #[test]
    fn three_brokers_draw_one_row_of_twelve_replicas_at_the_base_width() {
        let l = layout(&model(3, 100));
        assert_eq!(l.width, WIDTH);
        assert_eq!(l.max_rows, MAX_ROWS);
        let l = layout(&model(10, 100));
        assert_eq!(l.max_rows, MAX_ROWS_WRAPPED);
        // The drawing keeps a projector-friendly scale: at most 1.5× the
        // base width for ten brokers (it was 2.2× in one row).
        assert!(l.width * 2 <= WIDTH * 3, "{}", l.width);
    }

    /// Measured, the drawing is laid out for its width at the zoom asked:
    /// brokers wrap onto more rows on a narrow screen (a unit stays about a
    /// pixel, so the text keeps its size), projector mode makes every unit
    /// larger, a long partition name widens the boxes, and the drawing is as
    /// tall as asked, the brokers lower.
    #[test]
    fn a_measured_drawing_is_laid_out_for_its_width() {
        let m = model(3, 2);
        let at = |w, zoom| {
            layout_in(
                &m,
                &Fit {
                    width_px: w,
                    min_height_px: 600,
                    zoom_pct: zoom,
                },
            )
        };
        let rows = |l: &Layout| {
            let mut tops: Vec<i32> = l.broker_xy.iter().map(|(_, (_, y))| *y).collect();
            tops.dedup();
            tops.len()
        };
        let wide = at(1060, 100);
        assert_eq!((wide.width, rows(&wide)), (1060, 1));
        let narrow = at(600, 100);
        assert_eq!((narrow.width, rows(&narrow)), (600, 2));
        let projector = at(1060, 130);
        assert_eq!(projector.width, 1060 * 100 / 130);
        for (l, px) in [(&wide, 1060), (&narrow, 600), (&projector, 1060)] {
            // As tall as asked (600 px) at its scale, the brokers lower.
            assert!(l.height * px / l.width >= 599, "{} units", l.height);
            assert!(l.top > BROKER_TOP);
        }
        let mut long = model(3, 1);
        for b in &mut long.brokers {
            std::rc::Rc::make_mut(&mut b.replicas)[0].tp = "a-long-topic-name-0".into();
        }
        let l = layout_in(
            &long,
            &Fit {
                width_px: 1060,
                min_height_px: 0,
                zoom_pct: 100,
            },
        );
        assert!(
            l.broker_w >= row_text_width(&long),
            "{} < {}",
            l.broker_w,
            row_text_width(&long)
        );
    }

    fn message(sent_ms: u64, arrives_ms: u64, now_ms: u64) -> MessageView {
        let span = arrives_ms.saturating_sub(sent_ms).max(1);
        MessageView {
            id: 1,
            from: NodeId::Producer(0),
            to: NodeId::broker(1),
            api: "Produce",
            name: "Produce",
            summary: String::new(),
            progress_permille: (now_ms.saturating_sub(sent_ms).min(span) * 1000 / span) as u32,
            sent_ms,
            arrives_ms,
        }
    }

    #[test]
    fn a_route_runs_from_sender_to_receiver_in_step_with_the_simulated_clock() {
        let l = layout(&model(3, 2));
        let m = message(10, 15, 12);
        let r = Route::new(&l, &m);
        assert_eq!(r.at(0), anchor(&l, m.from));
        assert_eq!(r.at(1000), anchor(&l, m.to));
        // At whole milliseconds the clock agrees with the view model's
        // progress, so the next step draws a message where the clock left it.
        for now in 8..18 {
            let shown = message(10, 15, now).progress_permille as i64;
            assert_eq!(r.permille_at(now as f64), shown, "at {now} ms");
        }
        // Between them it moves on, never back, and stops on arrival.
        let ps: Vec<i64> = (0..=40)
            .map(|i| r.permille_at(10.0 + i as f64 * 0.25))
            .collect();
        assert!(ps.windows(2).all(|w| w[0] <= w[1]), "{ps:?}");
        assert_eq!(r.permille_at(12.5), 500);
        assert_eq!(r.permille_at(99.0), 1000);
    }

    #[test]
    fn the_motion_clock_runs_from_this_event_to_the_next_over_one_step() {
        let c = MotionClock {
            cursor: 7,
            from_ms: 100,
            to_ms: 140,
            over_ms: 700,
        };
        assert_eq!(c.at(0.0), 100.0);
        assert_eq!(c.at(350.0), 120.0);
        assert_eq!(c.at(700.0), 140.0);
        // Late frames hold at the next event's time; they never pass it.
        assert_eq!(c.at(5_000.0), 140.0);
        let still = MotionClock { to_ms: 100, ..c };
        assert_eq!(still.at(350.0), 100.0);
    }

    #[test]
    fn the_replicas_not_drawn_are_counted_by_role() {
        let m = model(1, 30);
        let (head, counts) = more_line(&m.brokers[0].replicas[12..], Lang::En);
        assert_eq!(head, "+18 more replicas");
        // t-12, t-15, …, t-27 lead: 6 of 18.
        assert_eq!(counts, "6 leader · 12 follower · 0 OSR");
        assert!(more_line(&m.brokers[0].replicas[12..], Lang::Zh)
            .0
            .contains("18"));
    }
}
