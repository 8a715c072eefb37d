//! The group protocol as a sequence diagram: one lifeline per consumer and
//! broker, one arrow per request or response (FindCoordinator, JoinGroup,
//! SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch), newest at
//! the bottom, errors in vermillion.

use crate::i18n::{t, Lang};
use crate::model::inspect::SequenceModel;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SequenceProps {
    pub model: Rc<SequenceModel>,
    pub lang: Lang,
}

const COL: i32 = 150;
const ROW: i32 = 26;
const TOP: i32 = 40;

#[component]
pub fn SequenceView(p: &SequenceProps) -> Html {
    let m = &p.model;
    let lang = p.lang;
    // Lifelines are named "consumer c" / "broker 0".
    let lifeline = |name: &str| match name.strip_prefix("consumer ") {
        Some(rest) => format!("{} {rest}", t(lang, "consumer")),
        None => name.to_string(),
    };
    if m.messages.is_empty() {
        return html! { <p class="facts" id="sequence-empty">{ t(p.lang, "no_group_messages") }</p> };
    }
    let width = (m.lifelines.len() as i32 * COL + 60).max(400);
    let height = TOP + m.messages.len() as i32 * ROW + 20;
    let x = |i: usize| 80 + i as i32 * COL;
    html! {
        <svg class="sequence" id="sequence" viewBox={format!("0 0 {width} {height}")} role="img"
            aria-label={t(p.lang, "sequence")}>
            <defs>
                <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M 0 0 L 10 5 L 0 10 z" />
                </marker>
            </defs>
            { for m.lifelines.iter().enumerate().map(|(i, name)| html! {
                <g class="lifeline">
                    <text x={x(i).to_string()} y="18">{ lifeline(name) }</text>
                    <line x1={x(i).to_string()} y1="26" x2={x(i).to_string()} y2={height.to_string()} />
                </g>
            }) }
            { for m.messages.iter().enumerate().map(|(row, msg)| {
                let y = TOP + row as i32 * ROW;
                let (x1, x2) = (x(msg.from), x(msg.to));
                let mid = (x1 + x2) / 2;
                html! {
                    <g class={classes!("seq-msg", msg.error.then_some("error"))}>
                        <title>{ format!("#{} · {} {} ms · {} {} ms: {}", msg.event, t(lang, "sent_at"), msg.time_ms, t(lang, "arrives_at"), msg.deliver_ms, crate::i18n::engine_text(lang, &msg.label)) }</title>
                        <line x1={x1.to_string()} y1={y.to_string()} x2={x2.to_string()} y2={(y + 8).to_string()} marker-end="url(#arrow)" />
                        <text x={mid.to_string()} y={(y - 3).to_string()}>{ crate::i18n::engine_text(lang, &msg.label).chars().take(60).collect::<String>() }</text>
                        <text class="t" x="4" y={(y + 4).to_string()}>{ format!("{} ms", msg.time_ms) }</text>
                    </g>
                }
            }) }
        </svg>
    }
}
