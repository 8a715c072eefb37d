//! Practice: endless questions drawn from the engine's exercise templates
//! (`kafka_sim::exercises`) at three levels, each graded by the engine's own
//! answer, with a running score kept in the learner's progress.

use crate::i18n::{t, Lang};
use kafka_sim::exercises::{generate, Kind, Level};
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
const KINDS: [(Kind, &str, &str); 9] = [
    (
        Kind::Partition,
        "partition for a key (P2)",
        "key 对应的分区（P2）",
    ),
    (
        Kind::Coordinator,
        "group coordinator (G6)",
        "组协调者（G6）",
    ),
    (
        Kind::Assignment,
        "partition assignment (G5)",
        "分区分配（G5）",
    ),
    (Kind::Election, "leader election (C3)", "leader 选举（C3）"),
    (Kind::HighWatermark, "high watermark (R2)", "高水位（R2）"),
    (Kind::Placement, "replica placement (C4)", "副本分配（C4）"),
    (Kind::Lookup, "offset lookup (S3)", "位移查找（S3）"),
    (Kind::Retention, "retention (S5)", "日志保留（S5）"),
    (Kind::Compaction, "compaction (S6)", "日志压缩（S6）"),
];

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
    let (answered, right) = props.score;
    let score = match lang {
        Lang::En => format!("Score: {right} right of {answered} answered"),
        Lang::Zh => format!("得分：已答 {answered} 题，答对 {right} 题"),
    };
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
            <p class="practice-question" id="practice-question">
                { if lang == Lang::Zh { ex.question_zh.clone() } else { ex.question_en.clone() } }
            </p>
            <div class="choices" role="group" aria-label={t(lang, "predict")}>
                { for ex.choices.iter().enumerate().map(|(i, c)| {
                    let done = chosen.is_some();
                    let class = classes!(
                        "choice",
                        (done && *c == ex.answer).then_some("is-answer"),
                        (chosen.as_deref() == Some(c.as_str()) && *c != ex.answer).then_some("is-wrong"),
                    );
                    let onclick = {
                        let (chosen, on_answer, c, answer) = (chosen.clone(), props.on_answer.clone(), c.clone(), ex.answer.clone());
                        Callback::from(move |_: MouseEvent| {
                            if chosen.is_none() {
                                on_answer.emit(c == answer);
                                chosen.set(Some(c.clone()));
                            }
                        })
                    };
                    html! { <button id={format!("practice-choice-{i}")} class={class} disabled={done} {onclick}>{ c.clone() }</button> }
                }) }
            </div>
            if let Some(c) = &*chosen {
                <div class={classes!("feedback", if *c == ex.answer { "right" } else { "wrong" })} id="practice-feedback" role="status">
                    <strong>{ if *c == ex.answer { t(lang, "right") } else { t(lang, "wrong") } }</strong>{" "}
                    { match lang {
                        Lang::En => format!("The simulation says {}. ", ex.answer),
                        Lang::Zh => format!("模拟结果：{}。", ex.answer),
                    } }
                    { ex.explanation.clone() }
                </div>
                <button id="practice-next" onclick={on_next}>{ t(lang, "practice_next") }</button>
            }
        </section>
    }
}
