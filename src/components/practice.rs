//! Practice: endless questions drawn from the engine's exercise templates
//! (`kafka_sim::exercises`) at three levels, each graded by the engine's own
//! answer, with a running score kept in the learner's progress. The question's
//! instance is drawn (the partitions, the members, the AR/ISR/live table, the
//! replicas' LEOs, the placement grid, the index entries, the segments, the
//! records), and a drawn element that is an answer is a button: clicking it
//! answers, like clicking a choice.

use crate::i18n::{t, Lang};
use kafka_sim::exercises::{generate, Exercise, Instance, Kind, Level, NONE};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PracticeProps {
    pub lang: Lang,
    /// (answered, right) over all visits.
    pub score: (u32, u32),
    /// Where the question sequence starts (so a new visit brings new questions).
    pub first_seed: u64,
    pub on_answer: Callback<bool>,
}

const LEVELS: [(Level, &str, &str); 3] = [
    (Level::Easy, "easy", "简单"),
    (Level::Medium, "medium", "中等"),
    (Level::Hard, "hard", "困难"),
];

/// Template labels: (kind, English, Chinese).
const KINDS: [(Kind, &str, &str); 11] = [
    (Kind::Partition, "partition for a key", "key 对应的分区"),
    (Kind::Coordinator, "group coordinator", "组协调者"),
    (Kind::Assignment, "partition assignment", "分区分配"),
    (Kind::Election, "leader election", "leader 选举"),
    (Kind::HighWatermark, "high watermark", "高水位"),
    (Kind::Placement, "replica placement", "副本分配"),
    (Kind::Lookup, "offset lookup", "位移查找"),
    (Kind::Retention, "retention", "日志保留"),
    (Kind::Compaction, "compaction", "日志压缩"),
    (
        Kind::ReadCommitted,
        "read_committed and the LSO",
        "read_committed 与 LSO",
    ),
    (
        Kind::ServerAssignment,
        "broker-side assignment (KIP-848)",
        "broker 端分配（KIP-848）",
    ),
];

/// A choice as the learner reads it ("none" is a word).
fn choice_label(lang: Lang, c: &str) -> String {
    if c == NONE {
        t(lang, "fig_none").to_string()
    } else {
        c.to_string()
    }
}

/// One drawn element: a button that answers `value`, or plain text when
/// there is nothing to click or the question is answered.
fn cell(
    text: String,
    value: Option<String>,
    extra: Option<&'static str>,
    ex: &Exercise,
    chosen: Option<&str>,
    on_choose: &Callback<String>,
) -> Html {
    let Some(v) = value else {
        return html! { <span class={classes!("cell", extra)}>{ text }</span> };
    };
    let done = chosen.is_some();
    let class = classes!(
        "cell",
        "pick",
        extra,
        (done && v == ex.answer).then_some("is-answer"),
        (chosen == Some(v.as_str()) && v != ex.answer).then_some("is-wrong"),
    );
    let onclick = {
        let (on_choose, v) = (on_choose.clone(), v.clone());
        Callback::from(move |_: MouseEvent| on_choose.emit(v.clone()))
    };
    html! { <button class={class} disabled={done} data-choice={v} {onclick}>{ text }</button> }
}

fn yes_no(lang: Lang, b: bool) -> &'static str {
    t(lang, if b { "fig_yes" } else { "fig_no" })
}

/// The drawing of a question's instance.
fn figure(lang: Lang, ex: &Exercise, chosen: Option<&str>, on_choose: &Callback<String>) -> Html {
    let c = |text: String, value: Option<String>, extra: Option<&'static str>| {
        cell(text, value, extra, ex, chosen, on_choose)
    };
    let body = match &ex.instance {
        Instance::Partition {
            key,
            to_positive,
            partitions,
            ..
        } => html! { <>
            <p class="fig-line">{ format!("key \"{key}\" · toPositive(murmur2) = {to_positive}") }</p>
            <p class="fig-label">{ t(lang, "fig_partitions") }</p>
            <div class="cells">{ for (0..*partitions).map(|p| c(p.to_string(), Some(p.to_string()), None)) }</div>
        </> },
        Instance::Coordinator {
            group,
            abs,
            partitions,
            ..
        } => html! { <>
            <p class="fig-line">{ format!("{} \"{group}\" · Utils.abs(hashCode) = {abs}", t(lang, "fig_group")) }</p>
            <p class="fig-label">{ "__consumer_offsets" }</p>
            <div class="cells">{ for (0..*partitions).map(|p| c(p.to_string(), Some(p.to_string()), None)) }</div>
        </> },
        Instance::Assignment {
            assignor,
            topics,
            members,
            topic,
            partition,
        } => html! { <>
            <p class="fig-line">{ format!("partition.assignment.strategy = {assignor}") }</p>
            <div class="cells">{ for topics.iter().flat_map(|(tn, n)| (0..*n).map(move |p| (tn.clone(), p))).map(|(tn, p)| {
                let asked = &tn == topic && p == *partition;
                c(format!("{tn}-{p}{}", if asked { " ?" } else { "" }), None, asked.then_some("asked"))
            }) }</div>
            <table class="grid fig-table">
                <tr><th>{ t(lang, "fig_member") }</th><th>{ t(lang, "fig_subscribes") }</th></tr>
                { for members.iter().map(|(m, subs)| html! {
                    <tr><td>{ c(m.clone(), Some(m.clone()), None) }</td><td>{ subs.join(", ") }</td></tr>
                }) }
            </table>
        </> },
        Instance::ServerAssignment {
            topic,
            partitions,
            members,
            joined,
            partition,
        } => html! { <>
            <p class="fig-line">{ format!("group.protocol=consumer · group.remote.assignor=uniform · {topic}: {partitions}") }</p>
            <table class="grid fig-table">
                <tr><th>{ t(lang, "fig_member") }</th><th>{ t(lang, "fig_holds") }</th></tr>
                { for members.iter().map(|(m, held)| html! {
                    <tr>
                        <td>{ c(m.clone(), Some(m.clone()), (m == joined).then_some("asked")) }</td>
                        <td>{ if held.is_empty() { "—".to_string() } else { held.iter().map(|p| format!("{topic}-{p}")).collect::<Vec<_>>().join(", ") } }</td>
                    </tr>
                }) }
            </table>
            <p class="fig-line">{ format!("{} {topic}-{partition}", t(lang, "fig_asked")) }</p>
        </> },
        Instance::Election {
            replicas,
            died,
            unclean_leader_election_enable,
        } => html! { <>
            <p class="fig-line">{ format!("unclean.leader.election.enable = {unclean_leader_election_enable}") }</p>
            <table class="grid fig-table">
                <tr><th>{ t(lang, "ar_order") }</th><th>{ t(lang, "broker") }</th><th>{ "ISR" }</th><th>{ t(lang, "alive") }</th></tr>
                { for replicas.iter().enumerate().map(|(i, r)| html! {
                    <tr class={classes!((!r.alive).then_some("dead"))}>
                        <td class="num">{ i + 1 }</td>
                        <td>{ c(r.broker.to_string(), Some(r.broker.to_string()), None) }
                            if r.broker == *died { {" "}<span class="died">{ t(lang, "fig_died_leader") }</span> }
                        </td>
                        <td>{ yes_no(lang, r.in_isr) }</td>
                        <td>{ yes_no(lang, r.alive) }</td>
                    </tr>
                }) }
            </table>
            <div class="cells">{ c(t(lang, "fig_none_offline").to_string(), Some(NONE.to_string()), None) }</div>
        </> },
        Instance::HighWatermark { leader, replicas } => {
            let max = replicas.iter().map(|r| r.leo).max().unwrap_or(1).max(1);
            html! {
                <table class="grid fig-table">
                    <tr><th>{ t(lang, "broker") }</th><th>{ "LEO" }</th><th>{ "ISR" }</th></tr>
                    { for replicas.iter().map(|r| html! {
                        <tr class={classes!((!r.in_isr).then_some("dead"))}>
                            <td>{ format!("{}{}", r.broker, if r.broker == *leader { t(lang, "fig_leader_mark") } else { "" }) }</td>
                            <td>
                                <span class="leo-bar" style={format!("width: {}%", 10 + 80 * r.leo / max)}></span>
                                { c(r.leo.to_string(), Some(r.leo.to_string()), None) }
                            </td>
                            <td>{ yes_no(lang, r.in_isr) }</td>
                        </tr>
                    }) }
                </table>
            }
        }
        Instance::Placement {
            brokers,
            replication_factor,
            known,
            asked,
            ..
        } => html! { <>
            <p class="fig-line">{ format!("{} 0–{} · replication.factor = {replication_factor}", t(lang, "fig_brokers"), brokers - 1) }</p>
            <table class="grid fig-table">
                <tr><th>{ t(lang, "fig_partition") }</th>
                    { for (0..*replication_factor).map(|j| html! { <th>{ format!("{} {j}", t(lang, "fig_replica")) }</th> }) }
                </tr>
                { for known.iter().enumerate().map(|(p, rs)| html! {
                    <tr><td class="num">{ p }</td>{ for rs.iter().map(|b| html! { <td class="num">{ b }</td> }) }</tr>
                }) }
                <tr class="asked"><td class="num">{ asked }</td>
                    { for (0..*replication_factor).map(|_| html! { <td class="num">{ "?" }</td> }) }
                </tr>
            </table>
        </> },
        Instance::Lookup {
            base_offset,
            entries,
            target,
        } => html! { <>
            <p class="fig-line">{ format!("{base_offset:020}.index · {} {target}", t(lang, "fig_target")) }</p>
            <div class="cells">
                { c(format!("{} → 0", t(lang, "fig_segment_start")), Some("0".into()), None) }
                { for entries.iter().map(|(o, p)| c(format!("{o} → {p}"), Some(p.to_string()), None)) }
            </div>
        </> },
        Instance::Retention {
            segments,
            retention_ms,
            now_ms,
            log_end_offset,
        } => html! { <>
            <p class="fig-line">{ format!("retention.ms = {retention_ms} · {} {} s", t(lang, "fig_now"), now_ms / 1000) }</p>
            <div class="cells">
                { for segments.iter().map(|s| c(
                    format!("[{}–{}] {} {} s", s.first_offset, s.last_offset, t(lang, "fig_newest"), s.newest_ms / 1000),
                    Some(s.first_offset.to_string()),
                    None,
                )) }
                { c(format!("{} {log_end_offset}", t(lang, "fig_log_end")), Some(log_end_offset.to_string()), None) }
            </div>
        </> },
        Instance::ReadCommitted {
            entries,
            high_watermark,
        } => html! { <>
            <div class="cells">{ for entries.iter().map(|e| c(
                match (e.producer_id, e.marker) {
                    (-1, _) => format!("{}: —", e.offset),
                    (p, None) => format!("{}: p{p}", e.offset),
                    (p, Some(m)) => format!("{}: {m} p{p}", e.offset),
                },
                None,
                e.marker.map(|_| "marker"),
            )) }</div>
            <p class="fig-line">{ format!("HW {high_watermark} · {}", t(lang, "fig_txn_legend")) }</p>
        </> },
        Instance::Compaction {
            records,
            active_from,
        } => html! { <>
            <div class="cells">{ for records.iter().map(|r| c(
                format!("{}: {}={}", r.offset, r.key, r.value),
                None,
                (r.offset >= *active_from).then_some("active"),
            )) }</div>
            <p class="fig-line">{ format!("{} {active_from}", t(lang, "fig_active_from")) }</p>
        </> },
    };
    html! {
        <figure class="practice-figure" id="practice-figure" aria-label={t(lang, "fig_label")}>{ body }</figure>
    }
}

#[component]
pub fn PracticeView(props: &PracticeProps) -> Html {
    let lang = props.lang;
    let kind = use_state(|| 0usize);
    let level = use_state(|| 0usize);
    let seed = use_state(|| props.first_seed);
    let chosen = use_state(|| None::<String>);
    let ex = generate(KINDS[*kind].0, LEVELS[*level].0, *seed);
    let pick =
        |label: (&'static str, &'static str)| if lang == Lang::Zh { label.1 } else { label.0 };
    // A pick from a list of `len` (question kind, level) starts a new question.
    let on_pick = |which: &UseStateHandle<usize>, len: usize| {
        let (which, chosen) = (which.clone(), chosen.clone());
        Callback::from(move |e: Event| {
            let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
            if let Ok(i) = s.value().parse::<usize>() {
                which.set(i.min(len - 1));
                chosen.set(None);
            }
        })
    };
    let on_kind = on_pick(&kind, KINDS.len());
    let on_level = on_pick(&level, LEVELS.len());
    let on_next = {
        let (seed, chosen) = (seed.clone(), chosen.clone());
        Callback::from(move |_: MouseEvent| {
            seed.set(*seed + 1);
            chosen.set(None);
        })
    };
    // Answering, from a choice button or the drawing: once per question.
    let on_choose = {
        let (chosen, on_answer, answer) =
            (chosen.clone(), props.on_answer.clone(), ex.answer.clone());
        Callback::from(move |c: String| {
            if chosen.is_none() {
                on_answer.emit(c == answer);
                chosen.set(Some(c));
            }
        })
    };
    let (answered, right) = props.score;
    let score = match lang {
        Lang::En => format!("Score: {right} right of {answered} answered"),
        Lang::Zh => format!("得分：已答 {answered} 题，答对 {right} 题"),
    };
    let zh = lang == Lang::Zh;
    html! {
        <section class="practice" id="practice" aria-label={t(lang, "view_practice")}>
            <div class="practice-head">
                <label>{ t(lang, "practice_kind") }{" "}
                    <select id="practice-kind" onchange={on_kind}>
                        { for KINDS.iter().enumerate().map(|(i, (_, en, zh))| html! {
                            <option value={i.to_string()} selected={i == *kind}>{ pick((en, zh)) }</option>
                        }) }
                    </select>
                </label>
                <label>{ t(lang, "practice_level") }{" "}
                    <select id="practice-level" onchange={on_level}>
                        { for LEVELS.iter().enumerate().map(|(i, (_, en, zh))| html! {
                            <option value={i.to_string()} selected={i == *level}>{ pick((en, zh)) }</option>
                        }) }
                    </select>
                </label>
                <span class="score" id="practice-score">{ score }</span>
            </div>
            <p class="practice-question" id="practice-question">{ ex.question(zh).to_string() }</p>
            { figure(lang, &ex, chosen.as_deref(), &on_choose) }
            <div class="choices" role="group" aria-label={t(lang, "predict")}>
                { for ex.choices.iter().enumerate().map(|(i, c)| {
                    let done = chosen.is_some();
                    let class = classes!(
                        "choice",
                        (done && *c == ex.answer).then_some("is-answer"),
                        (chosen.as_deref() == Some(c.as_str()) && *c != ex.answer).then_some("is-wrong"),
                    );
                    let onclick = {
                        let (on_choose, c) = (on_choose.clone(), c.clone());
                        Callback::from(move |_: MouseEvent| on_choose.emit(c.clone()))
                    };
                    html! { <button id={format!("practice-choice-{i}")} class={class} disabled={done} {onclick}>{ choice_label(lang, c) }</button> }
                }) }
            </div>
            if let Some(c) = &*chosen {
                <div class={classes!("feedback", if *c == ex.answer { "right" } else { "wrong" })} id="practice-feedback" role="status">
                    <strong>{ if *c == ex.answer { t(lang, "right") } else { t(lang, "wrong") } }</strong>{" "}
                    { match lang {
                        Lang::En => format!("The simulation says {}. ", choice_label(lang, &ex.answer)),
                        Lang::Zh => format!("模拟结果：{}。", choice_label(lang, &ex.answer)),
                    } }
                    { ex.explanation(zh).to_string() }
                </div>
                <button id="practice-next" onclick={on_next}>{ t(lang, "practice_next") }</button>
            }
        </section>
    }
}
