//! The producer inspector: for each producer, the pipeline the followed
//! record went through (click a stage to seek to its event), the
//! RecordAccumulator's deques filling toward `batch.size` and `linger.ms`,
//! and the Sender's in-flight requests with their sequence numbers.

use crate::i18n::{t, Lang};
use crate::model::producer::{ProducerModel, ProducerPanel};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ProducerProps {
    pub model: Rc<ProducerModel>,
    pub lang: Lang,
    /// A lesson question is open: the transactions panel holds back its
    /// state diagram, whose arrows would answer it.
    #[prop_or_default]
    pub held: bool,
    /// Seek to an event (its id).
    pub on_seek: Callback<u64>,
}

/// The pipeline's stages in Kafka's order: (stage id, label key).
const STAGES: [(&str, &str); 6] = [
    ("interceptor", "st_interceptor"),
    ("serializer", "st_serializer"),
    ("partitioner", "st_partitioner"),
    ("accumulator", "st_accumulator"),
    ("sender", "st_sender"),
    ("ack", "st_ack"),
];

fn percent(part: u64, whole: u64) -> u64 {
    (part.saturating_mul(100) / whole.max(1)).min(100)
}

fn panel(p: &ProducerPanel, lang: Lang, on_seek: &Callback<u64>) -> Html {
    let reached = |s: &str| {
        p.journey
            .iter()
            .any(|x| x.stage == s || (s == "ack" && x.stage == "failed"))
    };
    html! {
        <section class="producer" aria-label={format!("{} {}", t(lang, "producer"), p.name)}>
            <h3>{ format!("{} {}", t(lang, "producer"), p.name) }</h3>
            <p class="facts">
                { format!("producerId {} · epoch {} · buffer.memory {} / {} {}",
                    p.producer_id, p.producer_epoch, p.buffer_used, p.buffer_memory, t(lang, "bytes")) }
                if let Some((id, state)) = &p.txn {
                    { format!(" · transactional.id {id} · {state}") }
                }
                if p.blocked > 0 {
                    { format!(" · {} {}", p.blocked, t(lang, "blocked_records")) }
                }
                if p.closed {
                    <strong class="producer-state">{ format!(" · {}", t(lang, "producer_closed")) }</strong>
                } else if p.closing {
                    <strong class="producer-state">{ format!(" · {}", t(lang, "producer_closing")) }</strong>
                }
            </p>
            <details class="settings">
                <summary>{ t(lang, "settings") }</summary>
                <dl class="settings-list">
                    { for p.settings.iter().map(|(k, v)| html! {
                        <><dt class="mono">{ *k }</dt><dd class="mono">{ if v.is_empty() { "–".to_string() } else { v.clone() } }</dd></>
                    }) }
                </dl>
            </details>
            <ol class="pipeline" aria-label={t(lang, "pipeline")}>
                { for STAGES.iter().map(|(s, key)| html! {
                    <li class={classes!("stage-box", reached(s).then_some("reached"),
                        p.journey.iter().any(|x| x.current && (x.stage == *s || (*s == "ack" && x.stage == "failed"))).then_some("now"))}>
                        { t(lang, key) }
                    </li>
                }) }
            </ol>
            if let Some(r) = p.record {
                <h4>{ format!("{} #{r}", t(lang, "record")) }</h4>
                <ol class="journey">
                    { for p.journey.iter().map(|s| {
                        let cb = on_seek.clone();
                        let id = s.event;
                        html! {
                            <li class={classes!("journey-step", format!("js-{}", s.stage), s.current.then_some("now"))}>
                                <button class="small link" title={format!("#{id}")} aria-label={format!("{} #{id}", t(lang, "seek_to"))}
                                    onclick={Callback::from(move |_: MouseEvent| cb.emit(id))}>{ format!("#{id}") }</button>
                                {" "}<strong>{ s.title.clone() }</strong>
                                <ul>{ for s.lines.iter().map(|l| html! { <li class="mono">{ l.clone() }</li> }) }</ul>
                            </li>
                        }
                    }) }
                </ol>
            } else {
                <p class="facts">{ t(lang, "no_record_yet") }</p>
            }
            <h4>{ t(lang, "accumulator") }</h4>
            if p.deques.iter().all(|d| d.batches.is_empty()) {
                <p class="facts">{ t(lang, "deques_empty") }</p>
            }
            <ul class="deques">
                { for p.deques.iter().filter(|d| !d.batches.is_empty()).map(|d| html! {
                    <li class="deque">
                        <span class="mono tp">{ d.tp.clone() }</span>
                        { for d.batches.iter().map(|b| html! {
                            <span class={classes!("batch", b.full.then_some("full"))}
                                title={b.records_text.clone()}>
                                <span class="mono">{ format!("batch {} · {} rec · {}/{} B{}", b.batch, b.records, b.bytes, b.batch_size,
                                    b.base_sequence.map(|s| format!(" · seq {s}")).unwrap_or_default()) }</span>
                                <span class="bar" role="meter" aria-label="batch.size" aria-valuemin="0" aria-valuemax={b.batch_size.to_string()} aria-valuenow={b.bytes.to_string()}>
                                    <span class="fill" style={format!("width:{}%", percent(b.bytes, b.batch_size))}></span>
                                </span>
                                <span class="bar linger" role="meter" aria-label="linger.ms" aria-valuemin="0" aria-valuemax={p.linger_ms.to_string()} aria-valuenow={b.age_ms.min(p.linger_ms).to_string()}>
                                    <span class="fill" style={format!("width:{}%", percent(b.age_ms, p.linger_ms.max(1)))}></span>
                                </span>
                                <span class="small-note">{ format!("{} ms / linger.ms {}{}", b.age_ms, p.linger_ms,
                                    if b.attempts > 0 { format!(" · attempt {}", b.attempts) } else { String::new() }) }</span>
                            </span>
                        }) }
                    </li>
                }) }
            </ul>
            <h4>{ format!("{} ({} / max.in.flight.requests.per.connection {})", t(lang, "in_flight"),
                p.requests.len(), p.max_in_flight) }</h4>
            if p.requests.is_empty() {
                <p class="facts">{ t(lang, "none_in_flight") }</p>
            } else {
                <table class="grid requests">
                    <thead><tr><th>{"broker"}</th><th>{"correlationId"}</th><th>{ t(lang, "sent_at") }</th><th>{"batches (partition · baseSequence · records)"}</th></tr></thead>
                    <tbody>
                    { for p.requests.iter().map(|r| html! {
                        <tr>
                            <td class="num">{ r.broker }</td><td class="num">{ r.correlation_id }</td>
                            <td class="num">{ format!("{} ms", r.sent_ms) }</td>
                            <td class="mono">{ r.batches.iter().map(|(tp, s, n)| format!("{tp} · {} · {n}",
                                s.map(|s| s.to_string()).unwrap_or_else(|| "–".into()))).collect::<Vec<_>>().join("; ") }</td>
                        </tr>
                    }) }
                    </tbody>
                </table>
            }
            if !p.next_sequence.is_empty() {
                <p class="facts mono">{ format!("{}: {}", t(lang, "next_sequence"),
                    p.next_sequence.iter().map(|(tp, s)| format!("{tp}={s}")).collect::<Vec<_>>().join(", ")) }</p>
            }
        </section>
    }
}

#[component]
pub fn ProducerView(p: &ProducerProps) -> Html {
    let lang = p.lang;
    html! {
        <div class="inspector" id="producer-inspector">
            if p.model.producers.is_empty() {
                <p class="facts">{ t(lang, "no_producers") }</p>
            }
            if let Some(m) = &p.model.txn {
                <crate::components::transactions::TransactionsView model={m.clone()} lang={lang} held={p.held} />
            }
            { for p.model.producers.iter().map(|x| panel(x, lang, &p.on_seek)) }
        </div>
    }
}
