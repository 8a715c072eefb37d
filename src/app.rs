//! The application: one reducer holding the player, and the page layout.

use crate::components::cluster::{ClusterView, MotionClock};
use crate::components::controls::Controls;
use crate::components::event_log::{EventLog, LogLine};
use crate::components::groups::GroupsView;
use crate::components::storage::StorageView;
use crate::i18n::{t, Lang};
use crate::io::browser::download;
use crate::model::cluster::ClusterModel;
use crate::model::inspect::{GroupsModel, StorageModel};
use crate::player::Player;
use crate::state::links::{Link, Open};
use crate::state::{
    load_scenario, lookup_command, Action, AppState, LessonState, View, DEFAULT_SCENARIO, EXAMPLES,
    JUMP_KINDS,
};
use kafka_sim::collections::SortedSet;
use kafka_sim::event::{EventKind, Importance};
use std::cell::RefCell;
use std::ops::Not;
use std::rc::Rc;
use yew::prelude::*;

/// The list of what one event changed (shown after a log line is clicked).
fn changes_panel(c: &[crate::model::diff::Change], id: u64, lang: Lang) -> Html {
    let v = |x: &Option<String>| {
        x.as_deref()
            .map(|s| crate::model::diff::localize(s, lang))
            .unwrap_or_else(|| "–".into())
    };
    html! {
        <div class="changes" id="changes" role="status">
            <strong>{ match lang {
                Lang::En => format!("Event #{id} changed:"),
                Lang::Zh => format!("事件 #{id} 改变了："),
            } }</strong>
            if c.is_empty() {
                {" "}{ t(lang, "changed_nothing") }
            }
            <ul>
                { for c.iter().take(crate::model::diff::MAX_CHANGES).map(|x| html! {
                    <li><span class="what">{ crate::model::diff::localize(&x.what, lang) }</span>{": "}
                        <span class="before mono">{ v(&x.before) }</span>{" → "}<span class="after mono">{ v(&x.after) }</span></li>
                }) }
                if c.len() > crate::model::diff::MAX_CHANGES {
                    <li>{ format!("… {} {}", c.len() - crate::model::diff::MAX_CHANGES, t(lang, "more")) }</li>
                }
            </ul>
        </div>
    }
}

/// What the lesson panel shows besides the lesson itself.
/// Non-routine events after a narration's event beyond which the page marks
/// the narration as said earlier.
const STALE_AFTER: usize = 40;

struct LessonPanel<'a> {
    l: &'a LessonState,
    lang: Lang,
    cursor: u64,
    at_end: bool,
    /// The library's title for the lesson open (None: an example, a file).
    title: Option<String>,
    /// The scenario's own description (the setup when the lesson has none).
    description: &'a str,
    /// The events before the cursor (to tell how long ago a narration was).
    past: &'a [kafka_sim::Event],
    /// The next lesson in the notes' order: (slug, title).
    next: Option<(String, String)>,
    on_open: Callback<Open>,
    /// The scenario's text (what the finder searches).
    source: AttrValue,
}

/// The lesson: its setup and goal before it starts, then narration, the open
/// question and the feedback, and a recap with the next lesson at its end.
/// The verdict's first sentence: what the learner said, what the run did.
/// When they agree, it says so once instead of naming the answer twice.
fn verdict(lang: Lang, chosen: &str, truth: &str) -> String {
    match (lang, chosen == truth) {
        (Lang::En, false) => format!("You said {chosen}; the simulation says {truth}."),
        (Lang::En, true) => format!("You said {chosen}, as the simulation did."),
        (Lang::Zh, false) => format!("你的答案：{chosen}；模拟结果：{truth}。"),
        (Lang::Zh, true) => format!("你的答案 {chosen} 与模拟结果一致。"),
    }
}

/// `text` cut where a line may break inside a long Java-style name: before
/// a capital that follows a small letter, and after an underscore
/// (`NoOffsetForPartition|Exception`, `INVALID_|PRODUCER_|EPOCH`). Words
/// under 16 characters are left whole. The pieces join back to `text`.
pub fn name_pieces(text: &str) -> Vec<String> {
    const LONG: usize = 16;
    let mut parts: Vec<String> = vec![String::new()];
    for word in text.split_inclusive(' ') {
        if word.trim_end().chars().count() < LONG {
            parts.last_mut().unwrap().push_str(word);
            continue;
        }
        let mut prev: Option<char> = None;
        for ch in word.chars() {
            if prev.is_some_and(|p| (p.is_lowercase() && ch.is_uppercase()) || p == '_') {
                parts.push(String::new());
            }
            parts.last_mut().unwrap().push(ch);
            prev = Some(ch);
        }
    }
    parts
}

/// Text with a line-break opportunity (`<wbr>`) at each of its
/// [`name_pieces`], so a narrow panel wraps a choice between the words of
/// a name rather than at an arbitrary letter. The text itself is unchanged.
fn breakable(text: &str) -> Html {
    let parts = name_pieces(text);
    let n = parts.len();
    html! {
        { for parts.into_iter().enumerate().map(|(i, p)| html! {
            <>{ p }if i + 1 < n { <wbr /> }</>
        }) }
    }
}

#[cfg(test)]
mod name_tests {
    use super::name_pieces;

    #[test]
    fn long_names_break_between_their_words_and_join_back() {
        for (text, want) in [
            (
                "none: it throws NoOffsetForPartitionException",
                vec![
                    "none: it throws No",
                    "Offset",
                    "For",
                    "Partition",
                    "Exception",
                ],
            ),
            (
                "INVALID_PRODUCER_EPOCH",
                vec!["INVALID_", "PRODUCER_", "EPOCH"],
            ),
            ("PrepareCommit", vec!["PrepareCommit"]),
            ("2, 3", vec!["2, 3"]),
        ] {
            let got = name_pieces(text);
            assert_eq!(got, want, "{text}");
            assert_eq!(got.concat(), text);
        }
    }
}

fn lesson_panel(p: &LessonPanel, dispatcher: &UseReducerDispatcher<AppState>) -> Html {
    let (l, lang, cursor) = (p.l, p.lang, p.cursor);
    let steps = &l.lesson.steps;
    // The latest narration whose event has happened, and how many
    // non-routine events have happened since: past STALE_AFTER it is marked
    // as earlier, so it does not read as the explanation of what is on screen.
    let said = steps
        .iter()
        .zip(l.targets.iter())
        .filter(|(s, t)| s.say.is_some() && t.is_some_and(|t| t < cursor))
        .max_by_key(|(_, t)| **t)
        .and_then(|(s, t)| Some((s.say.as_ref()?, (*t)? as usize)));
    let say = said.map(|(s, _)| s);
    let stale = said.is_some_and(|(_, t)| {
        p.past
            .get(t + 1..)
            .unwrap_or_default()
            .iter()
            .filter(|e| e.kind.importance() > Importance::Routine)
            .nth(STALE_AFTER)
            .is_some()
    });
    // The chapters, and the one the cursor is in.
    let chapters = l.chapters();
    // Before the first chapter's step, the learner is in the first chapter.
    let current_chapter = chapters
        .iter()
        .rposition(|(_, at)| *at <= cursor)
        .or((!chapters.is_empty()).then_some(0));
    let asked = steps.iter().filter(|s| s.ask.is_some()).count();
    let right = l.answers.values().filter(|(_, r, _)| *r).count();
    // Before the first answer, only how many questions there are (not
    // "0 of 0 answered right").
    let score = match (lang, l.answers.len()) {
        (Lang::En, 0) => format!("{asked} question(s) · none answered yet"),
        (Lang::Zh, 0) => format!("共 {asked} 题 · 尚未作答"),
        (Lang::En, n) => format!("{right} of {n} answered right · {asked} question(s)"),
        (Lang::Zh, n) => format!("已答 {n} 题，答对 {right} 题 · 共 {asked} 题"),
    };
    let setup = l
        .lesson
        .setup
        .as_ref()
        .map(|s| s.get(lang).to_string())
        .unwrap_or_else(|| p.description.to_string());
    let starting = cursor == 0 && l.asking.is_none();
    html! {
        <aside class="lesson" id="lesson" aria-label={t(lang, "lesson")}>
            <div class="lesson-head">
                // The page's header names the lesson; without chapters, so does this.
                if chapters.len() <= 1 {
                    <strong>{ p.title.clone().unwrap_or_else(|| t(lang, "lesson").to_string()) }</strong>
                }
                if chapters.len() > 1 {
                    <nav class="chapters" id="chapters" aria-label={t(lang, "chapters")}>
                        <ol>
                        { for chapters.iter().enumerate().map(|(i, (k, _))| {
                            let k = *k;
                            let d = dispatcher.clone();
                            let title = steps[k].chapter.as_ref().map(|c| c.get(lang).to_string()).unwrap_or_default();
                            let here = current_chapter == Some(i);
                            html! {
                                <li><button id={format!("chapter-{i}")} class={classes!("chapter", here.then_some("current"))} title={title.clone()}
                                    aria-current={here.then_some("step")}
                                    onclick={Callback::from(move |_: MouseEvent| d.dispatch(Action::Chapter(k)))}>{ title }</button></li>
                            }
                        }) }
                        </ol>
                    </nav>
                }
                <span class="score" id="score">{ score }</span>
            </div>
            <div class="lesson-body">
            <div class="lesson-text">
            if starting {
                <div class="intro" id="lesson-intro">
                    if !setup.is_empty() {
                        <p id="lesson-setup"><strong>{ t(lang, "setup") }{" "}</strong>{ setup }</p>
                    }
                    if let Some(g) = &l.lesson.goal {
                        <p id="lesson-goal"><strong>{ t(lang, "goal") }{" "}</strong>{ g.get(lang).to_string() }</p>
                    }

                </div>
            } else if let Some(s) = say.filter(|_| !(stale && (l.asking.is_some() || l.last.is_some()))) {
                // (A stale narration is not shown above a question, nor
                // above its verdict: the question sets its own scene.)
                <p class={classes!("say", stale.then_some("stale"))} id="say">
                    if stale { <span class="earlier">{ t(lang, "said_earlier") }{" "}</span> }
                    { s.get(lang).to_string() }</p>
            }
            if let Some(k) = l.asking {
                <div class="question" id="question" role="group" aria-label={t(lang, "predict")}>
                    <p><strong>{ t(lang, "predict") }{" "}</strong>{ steps[k].ask.as_ref().map(|a| a.get(lang).to_string()).unwrap_or_default() }</p>
                    if let (Some((_, predicted)), Some(answer), Some(finder)) = (
                        l.finding.as_ref().filter(|(f, _)| *f == k),
                        steps[k].answer.as_ref(),
                        steps[k].explore.as_ref(),
                    ) {
                        <crate::components::explore::LessonFinder lang={lang} source={p.source.clone()}
                            step={k} answer={AttrValue::from(answer.clone())} finder={finder.clone()}
                            predicted={AttrValue::from(steps[k].choice_label(lang, predicted).to_string())}
                            on_done={{ let (d, c) = (dispatcher.clone(), predicted.clone());
                                Callback::from(move |e| d.dispatch(Action::Explored(k, c.clone(), e))) }} />
                    } else {
                        <div class="choices">
                            { for steps[k].choices.iter().enumerate().map(|(i, c)| {
                                let d = dispatcher.clone();
                                let choice = c.clone();
                                // A question to the finder: the prediction
                                // first, then the search grades it.
                                let finder = steps[k].explore.is_some();
                                html! {
                                    <button id={format!("choice-{i}")} class="choice"
                                        onclick={Callback::from(move |_: MouseEvent| d.dispatch(if finder {
                                            Action::Predict(k, choice.clone())
                                        } else {
                                            Action::Answer(k, choice.clone())
                                        }))}>{ breakable(steps[k].choice_label(lang, c)) }</button>
                                }
                            }) }
                        </div>
                        if let Some(why) = l.explored.get(&k).and_then(|e| e.refused.as_ref()) {
                            <p class="small-note" id="finder-refused">{ format!("{} {why}", t(lang, "x_refused")) }</p>
                        }
                    }
                </div>
            } else if let Some(k) = l.last {
                if let Some((chosen, ok, truth)) = l.answers.get(&k) {
                    <div class={classes!("feedback", if *ok { "right" } else { "wrong" })} id="feedback" role="status">
                        // The question stays in sight above its verdict.
                        <p class="asked" id="asked">{ steps[k].ask.as_ref().map(|a| a.get(lang).to_string()).unwrap_or_default() }</p>
                        <strong>{ if *ok { t(lang, "right") } else { t(lang, "wrong") } }</strong>{" "}
                        { verdict(lang, steps[k].choice_label(lang, chosen), steps[k].choice_label(lang, truth)) }{" "}
                        { steps[k].explain.as_ref().map(|e| e.get(lang).to_string()).unwrap_or_default() }
                        if let Some(e) = l.explored.get(&k) {
                            { crate::components::explore::finder_result(lang, e) }
                        }
                    </div>
                }
            }
            </div>
            if !p.at_end && l.asking.is_none() {
                <p class="continue-row">
                    <button id="btn-continue" class="primary" aria-keyshortcuts="c"
                        onclick={{ let d = dispatcher.clone(); Callback::from(move |_: MouseEvent| d.dispatch(crate::io::browser::continue_action())) }}>
                        { t(lang, "continue") }<kbd>{"c"}</kbd></button>
                    <span class="hint">{ t(lang, "continue_hint") }</span>
                </p>
            }
            </div>
            if p.at_end && l.asking.is_none() {
                <div class="recap" id="recap" role="status">
                    <strong>{ t(lang, "recap") }{" "}</strong>
                    { match lang {
                        Lang::En => format!("You answered {right} of {asked} right."),
                        Lang::Zh => format!("{asked} 题中答对 {right} 题。"),
                    } }{" "}
                    if let Some(tk) = &l.lesson.takeaway {
                        { tk.get(lang).to_string() }
                    }
                    if let Some((slug, title)) = p.next.clone() {
                        {" "}
                        <button id="btn-next-lesson" class="primary"
                            onclick={p.on_open.reform(move |_: MouseEvent| Open::Lesson(slug.clone()))}>
                            { format!("{} {title} →", t(lang, "next_lesson")) }</button>
                    }
                </div>
            }
        </aside>
    }
}

#[derive(Properties, PartialEq)]
pub struct AppProps {
    /// Scenario JSON to open (the default lesson when absent).
    #[prop_or_default]
    pub scenario: Option<AttrValue>,
}

/// Captions already written for the log, by event id, and what they were
/// written for (the player, the language, the learner's own commands and
/// how many clients had names): a step writes only the lines it adds. (A
/// caption of a large group names every partition of its assignment, and
/// writing 300 of them again on every step cost more than the step.)
#[derive(Default)]
pub struct Captions {
    context: Option<(u64, Lang, SortedSet<u32>, usize, usize)>,
    by_id: std::collections::BTreeMap<u64, AttrValue>,
}

/// The log's lines: the last 300 shown events at least, from an event id
/// that is a multiple of 100. The first line moves only every hundred
/// events, so a step appends a line instead of shifting all of them (which
/// made the browser redo every line's text and layout on each step).
pub fn log_lines(
    p: &Player,
    lang: Lang,
    hide_routine: bool,
    mine: &SortedSet<u32>,
    names: &crate::state::ClientNames,
    captions: &mut Captions,
) -> Vec<LogLine> {
    const MAX_LINES: usize = 120;
    const ALIGN: u64 = 100;
    let past = p.past();
    let current = p.current().map(|c| c.id);
    let shown = |e: &&kafka_sim::Event| {
        !hide_routine || e.kind.importance() > Importance::Routine || Some(e.id) == current
    };
    let first = past
        .iter()
        .rev()
        .filter(shown)
        .take(MAX_LINES)
        .last()
        .map(|e| e.id / ALIGN * ALIGN)
        .unwrap_or(0);
    let context = Some((
        p.id(),
        lang,
        mine.clone(),
        names.producers.len(),
        names.consumers.len(),
    ));
    if captions.context != context {
        *captions = Captions {
            context,
            ..Default::default()
        };
    }
    // Only the lines shown stay (the window moves on as the cursor does).
    captions.by_id = captions.by_id.split_off(&first);
    captions.by_id.split_off(&(past.len() as u64));
    past[first as usize..]
        .iter()
        .filter(shown)
        .map(|e| LogLine {
            id: e.id,
            time_ms: e.time_ms,
            caption: captions
                .by_id
                .entry(e.id)
                .or_insert_with(|| crate::state::caption(e, lang, mine, names).into())
                .clone(),
            key: e.kind.importance() == Importance::Key,
            broken: matches!(e.kind, EventKind::GuaranteeBroken { .. }),
        })
        .collect()
}

#[component]
pub fn App(props: &AppProps) -> Html {
    let given = props.scenario.clone();
    // The link is read when the page starts (a share link is unpacked once,
    // not on every render), and again on every `hashchange` (below).
    let state = use_reducer(move || {
        let lang = crate::io::browser::saved_lang().unwrap_or(Lang::En);
        let default =
            || Player::from_json(DEFAULT_SCENARIO).expect("the built-in scenario is valid");
        let mut s = match given {
            // A scenario handed to the component (tests, embedding): it opens
            // as it is, without the start screen.
            Some(text) => match load_scenario("the scenario", &text) {
                Ok(mut p) => {
                    let lesson = LessonState::load(&mut p);
                    let mut s = AppState::new(p, lang);
                    match lesson {
                        Ok(l) => s.lesson = l,
                        Err(e) => s.error = Some(e),
                    }
                    s
                }
                Err(e) => {
                    let mut s = AppState::new(default(), lang);
                    s.error = Some(e);
                    s
                }
            },
            None => {
                let link = Link::parse(&crate::state::links::current_hash());
                let embed = link.embed;
                let s = Rc::new(AppState::new(default(), lang)).reduce(Action::Follow(link));
                let mut s = (*s).clone();
                s.embed = embed;
                s
            }
        };
        if s.opened.is_none() {
            // A scenario handed to the component still takes the link's way
            // of showing it: a challenge, an embed.
            let link = Link::parse(&crate::state::links::current_hash());
            s.challenge |= link.challenge;
            s.embed = link.embed;
        }
        let (progress, reset) = crate::state::progress::load();
        s.progress = Rc::new(progress);
        if s.notice.is_none() {
            s.notice = reset;
        }
        if let Some(e) = s.embed {
            s.player.borrow_mut().seek(e.from);
            s.playing = true;
        }
        s
    });

    // What the learner chose is kept in the browser: the language and the
    // progress (the reducer touches no browser).
    use_effect_with(state.lang, |lang| crate::io::browser::save_lang(*lang));
    use_effect_with(state.progress.clone(), |p| crate::state::progress::save(p));

    // A link that names a lesson or an example not built in: read it, then
    // follow the link again for its step and view.
    {
        let dispatcher = state.dispatcher();
        use_effect_with(state.pending.clone(), move |pending| {
            if let Some(link) = pending.clone() {
                wasm_bindgen_futures::spawn_local(crate::io::lessons::open_link(link, move |a| {
                    dispatcher.dispatch(a)
                }));
            }
        });
    }

    // A link pasted into this tab, Back and Forward: go where it points.
    {
        let dispatcher = state.dispatcher();
        let given = props.scenario.is_some();
        use_effect_with((), move |_| {
            let listener = (!given).then(|| {
                crate::io::browser::listen_window("hashchange", move |_| {
                    dispatcher.dispatch(Action::Follow(Link::parse(
                        &crate::state::links::current_hash(),
                    )))
                })
            });
            move || drop(listener)
        });
    }

    // The lesson library (the start screen and the lesson menu list it).
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                if let Ok(index) = crate::io::lessons::load_index().await {
                    dispatcher.dispatch(Action::Library(Rc::new(index)));
                }
            });
        });
    }

    // Playback timer.
    {
        let dispatcher = state.dispatcher();
        let playing = state.playing;
        let ms = state.step_interval_ms();
        use_effect_with((playing, ms), move |(playing, ms)| {
            let timer = playing.then(|| {
                gloo_timers::callback::Interval::new(*ms, move || dispatcher.dispatch(Action::Tick))
            });
            move || drop(timer)
        });
    }

    // Keyboard shortcuts on the whole page.
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            let listener = crate::io::keys::install(move |action| dispatcher.dispatch(action));
            move || drop(listener)
        });
    }

    let d = |a: fn() -> Action| {
        let dispatcher = state.dispatcher();
        Callback::from(move |_| dispatcher.dispatch(a()))
    };
    let player = state.player.borrow();
    let lang = state.lang;
    let now = player.time_ms();
    let view = state.view;
    let election = (view == View::Cluster)
        .then(|| crate::components::election::ElectionModel::latest(&player).map(Rc::new))
        .flatten();
    let cluster_cache = use_mut_ref(crate::model::cluster::ClusterCache::default);
    let model = Rc::new({
        let mut m = ClusterModel::from_world_cached(
            player.world(),
            now,
            |sent| player.event(sent).map(|e| e.time_ms),
            state.msg_sel,
            &mut cluster_cache.borrow_mut(),
        );
        m.mark_truncations(player.past());
        m
    });
    // While playing, the messages travel on the simulated clock up to the
    // event the next step will show.
    let clock = state.playing.then(|| MotionClock {
        cursor: player.cursor(),
        from_ms: now,
        to_ms: player.next_time_ms(state.hide_routine).unwrap_or(now),
        over_ms: state.step_interval_ms(),
    });
    // Both read ZooKeeper only: kept until the tree changes (thousands of
    // partition znodes are parsed for the placement table).
    let zk_key = (player.id(), player.world().zookeeper().writes());
    let placement = use_memo((view == View::Cluster).then_some(zk_key), |key| {
        key.and_then(|_| crate::components::placement::PlacementModel::from_world(player.world()))
            .map(Rc::new)
    });
    let placement = (*placement).clone();
    // The admin tools' views cost a pass over every partition: computed
    // only while the learner has them open.
    let describe_open = use_state(|| false);
    let on_describe_toggle = {
        let open = describe_open.clone();
        Callback::from(move |now: bool| open.set(now))
    };
    let describe = match view {
        View::Cluster => Some((
            "topics",
            (*describe_open).then(|| kafka_sim::describe::topics(player.world(), None, true)),
        )),
        View::Groups => Some((
            "groups",
            (*describe_open).then(|| {
                let w = player.world();
                let cmd = "$ kafka-consumer-groups.sh --bootstrap-server broker-0:9092 --describe --all-groups";
                format!(
                    "{}\n{cmd} --members --verbose\n{}\n{cmd} --state\n{}",
                    kafka_sim::describe::groups(w, None),
                    kafka_sim::describe::group_members(w, None, true),
                    kafka_sim::describe::group_states(w, None)
                )
            }),
        )),
        _ => None,
    }
    .map(|(what, text)| (what, Rc::new(text.unwrap_or_default())));
    let zk_changed = player.current().and_then(|e| e.kind.field("path"));
    let zk_rows = use_memo(
        (view == View::Cluster).then_some((zk_key, zk_changed)),
        |key| {
            key.as_ref().map(|(_, changed)| {
                Rc::new(crate::model::cluster::zk_rows(
                    player.world(),
                    changed.as_deref(),
                ))
            })
        },
    );
    let zk_rows = (*zk_rows).clone();
    // Kafka 4.1: the metadata log instead of the ZooKeeper tree.
    let metadata_log = (view == View::Cluster)
        .then(|| {
            let changed: Vec<i64> = match player.current().map(|e| &e.kind) {
                Some(kafka_sim::event::EventKind::MetadataAppended { records, .. }) => {
                    records.iter().map(|r| r.offset).collect()
                }
                _ => Vec::new(),
            };
            crate::model::cluster::metadata_log(player.world(), &changed, lang)
        })
        .flatten()
        .map(Rc::new);
    let storage = (view == View::Storage).then(|| {
        let lesson_tp = state
            .lesson
            .as_ref()
            .and_then(|l| l.highlight(player.cursor()));
        Rc::new(StorageModel::from_world(
            player.world(),
            state.storage_sel.as_deref(),
            lesson_tp.as_deref(),
            state.batch_sel,
            player.past(),
            lang,
        ))
    });
    let producer = (view == View::Producer).then(|| {
        Rc::new(crate::model::producer::ProducerModel::from_world(
            player.world(),
            player.past(),
            now,
            lang,
        ))
    });
    let groups = (view == View::Groups).then(|| Rc::new(GroupsModel::from_world(player.world())));
    // The samples only grow along a run: copied when there are new ones.
    let samples_key = (view == View::Metrics).then(|| (player.id(), player.metric_samples().len()));
    let samples = use_memo(samples_key, |key| {
        Rc::new(match key {
            Some(_) => player.metric_samples().to_vec(),
            None => Vec::new(),
        })
    });
    let metrics = (view == View::Metrics).then(|| {
        let w = player.world();
        // Per-partition readings only while they fit a table.
        let logs: usize = w.brokers().values().map(|b| b.logs.len()).sum();
        Rc::new(crate::components::metrics::MetricsModel {
            cursor: player.cursor(),
            time_ms: now,
            run_until_ms: player.scenario().run_until_ms,
            samples: (*samples).clone(),
            live: Rc::new(kafka_sim::metrics::chart_values(w, now)),
            readings: Rc::new(kafka_sim::metrics::read_with(
                w,
                w.metrics().last_event_ms(),
                logs <= 64,
            )),
        })
    });
    let sequence = (view == View::Groups).then(|| {
        let names: Vec<String> = player
            .world()
            .consumers()
            .iter()
            .map(|c| c.name.clone())
            .collect();
        Rc::new(crate::model::inspect::sequence(
            player.past(),
            40,
            state.hide_routine.not(),
            &names,
        ))
    });
    let on_select_storage = {
        let dispatcher = state.dispatcher();
        Callback::from(move |k: String| dispatcher.dispatch(Action::SelectStorage(k)))
    };
    let on_download = {
        let player = state.player.clone();
        let dispatcher = state.dispatcher();
        Callback::from(move |(broker, path): (i32, String)| {
            let bytes = crate::model::inspect::file_bytes(player.borrow().world(), broker, &path);
            let name = path.rsplit('/').next().unwrap_or(&path).to_string();
            let result = match bytes {
                Some(b) => download(&name, &b),
                None => Err(format!("{path}: the file is gone at this step")),
            };
            if let Err(e) = result {
                dispatcher.dispatch(Action::LoadFailed(e));
            }
        })
    };
    // The page's own moves go through the address (a new history entry), so
    // Back returns to the previous lesson or view. A scenario handed to the
    // component (tests) has no address of its own: it moves at once.
    let listening = props.scenario.is_none();
    let navigate = {
        let dispatcher = state.dispatcher();
        move |fragment: String| {
            if listening {
                crate::state::links::go(&fragment);
            } else {
                dispatcher.dispatch(Action::Follow(Link::parse(&fragment)));
            }
        }
    };
    let opened = state.opened.clone();
    let tab = |v: View, id: &'static str, key: &'static str| {
        let dispatcher = state.dispatcher();
        let opened = opened.clone();
        html! {
            <button id={id} role="tab" aria-selected={(view == v).to_string()} class={classes!("tab", (view == v).then_some("active"))}
                onclick={Callback::from(move |_: MouseEvent| {
                    // Lessons, examples and free play have short addresses:
                    // the view joins the history. A shared or loaded
                    // scenario's view changes in place.
                    if let (true, Some(o)) = (listening, opened.as_ref().filter(|o| !matches!(o, Open::Shared(_)))) {
                        crate::state::links::push(&Link::fragment(o, Some(v)));
                    }
                    dispatcher.dispatch(Action::SetView(v))
                })}>{ t(lang, key) }</button>
        }
    };
    let on_example = {
        let navigate = navigate.clone();
        Callback::from(move |e: Event| {
            let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let Some(file) = EXAMPLES.iter().find(|f| **f == s.value()) else {
                return;
            };
            navigate(Link::fragment(
                &Open::Example(file.trim_end_matches(".json").into()),
                None,
            ));
        })
    };
    let on_lesson_pick = {
        let navigate = navigate.clone();
        Callback::from(move |e: Event| {
            let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let file = s.value();
            if file.is_empty() {
                return;
            }
            navigate(Link::fragment(
                &Open::Lesson(file.trim_end_matches(".json").into()),
                None,
            ));
        })
    };
    let on_open = {
        let navigate = navigate.clone();
        Callback::from(move |open: Open| navigate(Link::fragment(&open, None)))
    };
    let on_open_next = on_open.clone();
    let names = crate::state::ClientNames::from_world(player.world());
    let captions = use_mut_ref(Captions::default);
    let lines = log_lines(
        &player,
        lang,
        state.hide_routine,
        &state.mine,
        &names,
        &mut captions.borrow_mut(),
    );
    let current = player.current().map(|e| e.id);
    // A lesson question is open or waits at this stop: views hold back
    // what would answer it.
    let asking = state
        .lesson
        .as_ref()
        .is_some_and(|l| l.question_pending(player.cursor()));
    let election_held = state
        .lesson
        .as_ref()
        .and_then(|l| l.pending_question_kind(player.cursor()))
        == Some("leader_elected");
    let highlight: Option<AttrValue> = state
        .lesson
        .as_ref()
        .and_then(|l| l.highlight(player.cursor()))
        .map(AttrValue::from);
    let changes = state
        .changes
        .as_ref()
        .filter(|(id, _)| Some(*id) == current)
        .map(|(_, c)| c.clone());
    let marks: Rc<SortedSet<String>> = Rc::new(
        changes
            .iter()
            .flat_map(|c| c.iter().filter_map(|x| x.mark.clone()))
            .collect(),
    );
    let caption = player
        .current()
        .map(|e| crate::state::caption(e, lang, &state.mine, &names))
        .unwrap_or_else(|| t(lang, "no_events").to_string());
    let on_seek = {
        let dispatcher = state.dispatcher();
        use_callback((), move |id, _| dispatcher.dispatch(Action::Seek(id)))
    };
    let on_lang = d(|| Action::ToggleLang);
    let on_file = {
        let dispatcher = state.dispatcher();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            input.set_value("");
            let dispatcher = dispatcher.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let name = file.name();
                let text = wasm_bindgen_futures::JsFuture::from(file.text()).await;
                let action = match text.ok().and_then(|t| t.as_string()) {
                    None => {
                        Action::LoadFailed(format!("{name}: the file could not be read as text"))
                    }
                    Some(t) => match load_scenario(&name, &t) {
                        Ok(p) => Action::Loaded(Rc::new(RefCell::new(p))),
                        Err(m) => Action::LoadFailed(m),
                    },
                };
                dispatcher.dispatch(action);
            });
        })
    };
    // A scenario text opens as a new timeline at an event, then `then`.
    let open_at = |file: &'static str, then: fn() -> Action| {
        let dispatcher = state.dispatcher();
        Callback::from(
            move |(text, event): (String, u64)| match load_scenario(file, &text) {
                Ok(p) => {
                    dispatcher.dispatch(Action::Loaded(Rc::new(RefCell::new(p))));
                    dispatcher.dispatch(Action::Seek(event));
                    dispatcher.dispatch(then());
                }
                Err(m) => dispatcher.dispatch(Action::LoadFailed(m)),
            },
        )
    };
    // A run of the control-plane comparison opens at its failure, on the
    // cluster view.
    let on_planes_open = open_at("control-planes.json", || Action::SetView(View::Cluster));
    // A counterexample opens at its violating event.
    let on_explore_open = open_at("counterexample.json", || Action::ToggleDrawer);
    // Faults and broken guarantees on the time axis; not in a lesson,
    // where a mark ahead of the cursor would answer a question.
    let timeline_marks = use_memo(
        (
            player.id(),
            player.known_len(),
            state.lesson.is_some(),
            lang,
        ),
        |(_, _, lesson, lang)| {
            if *lesson {
                return Vec::new();
            }
            let mut v = Vec::new();
            for (i, e) in player.known_events().iter().enumerate() {
                let class = match &e.kind {
                    kafka_sim::event::EventKind::CommandIssued { command, .. }
                        if kafka_sim::explore::is_fault(command) =>
                    {
                        "fault"
                    }
                    kafka_sim::event::EventKind::GuaranteeBroken { .. } => "broken",
                    _ => continue,
                };
                v.push((i as u64 + 1, class, e.caption(*lang)));
                if v.len() >= 100 {
                    break;
                }
            }
            v
        },
    );
    let on_dismiss = d(|| Action::DismissError);
    let on_scrub = {
        let dispatcher = state.dispatcher();
        Callback::from(move |n: u64| dispatcher.dispatch(Action::SeekTo(n)))
    };
    let jump_kind = use_state(|| JUMP_KINDS[0].0);
    let on_jump_kind = {
        let jump_kind = jump_kind.clone();
        Callback::from(move |e: Event| {
            let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
            if let Some((k, _, _)) = JUMP_KINDS.iter().find(|(k, _, _)| *k == s.value()) {
                jump_kind.set(k);
            }
        })
    };
    let on_jump = {
        let dispatcher = state.dispatcher();
        let kind = *jump_kind;
        Callback::from(move |_: MouseEvent| dispatcher.dispatch(Action::NextOfKind(kind)))
    };
    let share_link = use_state(|| None::<String>);
    let share_challenge = use_state(|| false);
    let on_share = {
        let share_link = share_link.clone();
        let text = player.source().to_string();
        let step = player.cursor();
        let challenge = *share_challenge;
        Callback::from(move |_: MouseEvent| {
            let mut frag = crate::state::links::share_fragment(&text, step, view);
            if challenge {
                frag += "&challenge=1";
            }
            let Some(w) = web_sys::window() else { return };
            let base = w.location().href().unwrap_or_default();
            let base = base.split('#').next().unwrap_or("").to_string();
            // Put it in the address bar too (no reload, no history entry).
            if let Ok(h) = w.history() {
                let _ = h.replace_state_with_url(
                    &wasm_bindgen::JsValue::NULL,
                    "",
                    Some(&format!("#{frag}")),
                );
            }
            share_link.set(Some(format!("{base}#{frag}")));
        })
    };
    let stage_ref = use_node_ref();
    let on_export = {
        let stage_ref = stage_ref.clone();
        let player = state.player.clone();
        let dispatcher = state.dispatcher();
        Callback::from(move |e: Event| {
            let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let what = s.value();
            s.set_value("");
            let stem = crate::io::export::file_stem(&player.borrow().scenario().name);
            let done = match what.as_str() {
                "scenario" => crate::io::export::scenario(&player.borrow()),
                "trace" => crate::io::export::trace(&player.borrow()),
                "svg" | "png" => {
                    let dispatcher = dispatcher.clone();
                    let Some(stage) = stage_ref.cast::<web_sys::Element>() else {
                        return;
                    };
                    wasm_bindgen_futures::spawn_local(async move {
                        let r = if what == "svg" {
                            crate::io::export::svg(stem, stage).await
                        } else {
                            crate::io::export::png(stem, stage).await
                        };
                        if let Err(e) = r {
                            dispatcher.dispatch(Action::Problem(e));
                        }
                    });
                    Ok(())
                }
                _ => Ok(()),
            };
            if let Err(e) = done {
                dispatcher.dispatch(Action::Problem(e));
            }
        })
    };
    let on_help_toggle = d(|| Action::ToggleHelp);
    let on_help_close = d(|| Action::CloseHelp);
    // Callbacks made once, so the panels they go to render only when their
    // own data change (a new Callback each render would re-render them on
    // every step).
    let on_command = {
        let d = state.dispatcher();
        use_callback((), move |c, _| d.dispatch(Action::Act(c)))
    };
    let on_reconfigure = {
        let d = state.dispatcher();
        use_callback((), move |e, _| d.dispatch(Action::Reconfigure(e)))
    };
    let on_broker = {
        let d = state.dispatcher();
        use_callback((), move |m, _| d.dispatch(Action::OpenMenu(m)))
    };
    let on_message = {
        let d = state.dispatcher();
        use_callback((), move |id, _| d.dispatch(Action::SelectMessage(id)))
    };
    let on_batch = {
        let d = state.dispatcher();
        use_callback((), move |(seg, pos), _| {
            d.dispatch(Action::SelectBatch(seg, pos))
        })
    };
    let on_lookup = {
        let d = state.dispatcher();
        use_callback(
            lang,
            move |r: crate::components::storage::LookupRequest, lang| {
                d.dispatch(match lookup_command(&r, *lang) {
                    Ok(c) => Action::Act(c),
                    Err(e) => Action::Problem(e),
                })
            },
        )
    };
    let on_practice = {
        let d = state.dispatcher();
        use_callback((), move |r, _| d.dispatch(Action::PracticeAnswered(r)))
    };
    let stage = html! {
        <section class="stage" id="stage" tabindex="-1" aria-label={t(lang, "views")} ref={stage_ref}>
            <div class="tabs" role="tablist" aria-label={t(lang, "views")}>
                { tab(View::Cluster, "tab-cluster", "view_cluster") }
                { tab(View::Producer, "tab-producer", "view_producer") }
                { tab(View::Storage, "tab-storage", "view_storage") }
                { tab(View::Groups, "tab-groups", "view_groups") }
                { tab(View::Metrics, "tab-metrics", "view_metrics") }
                { tab(View::Practice, "tab-practice", "view_practice") }
                { tab(View::Planes, "tab-planes", "view_planes") }
            </div>
            if view != View::Practice && view != View::Planes {
                <p class="caption" id="caption" aria-live="polite">{ caption }</p>
            }
            if view == View::Planes {
                <crate::components::planes::PlanesView lang={lang} on_open={on_planes_open} />
            } else if view == View::Practice {
                <crate::components::practice::PracticeView lang={lang}
                    score={(state.progress.practice_answered, state.progress.practice_right)}
                    first_seed={state.progress.practice_answered as u64}
                    on_answer={on_practice} />
            } else if let Some(m) = producer {
                <crate::components::producer::ProducerView model={m} lang={lang} on_seek={on_seek.clone()} held={asking} />
            } else if let Some(m) = storage {
                <StorageView model={m} lang={lang} on_select={on_select_storage} on_download={on_download}
                    on_batch={on_batch} on_lookup={on_lookup} on_seek={on_seek.clone()} />
            } else if let Some(m) = metrics {
                <crate::components::metrics::MetricsView model={m} lang={lang} on_seek_to={on_scrub.clone()} />
            } else if let Some(m) = groups {
                <GroupsView model={m} lang={lang} held={asking} />
                if let Some((what, text)) = describe.clone() {
                    <crate::components::describe::DescribeView {what} {text} lang={lang} open={*describe_open} on_toggle={on_describe_toggle.clone()} />
                }
                <h3 class="seq-title">{ t(lang, "sequence") }</h3>
                if let Some(s) = sequence {
                    <crate::components::sequence::SequenceView model={s} lang={lang} />
                }
            } else {
                <ClusterView model={model} lang={lang} on_broker={on_broker} marks={marks} on_message={on_message} {clock} {highlight} projector={state.projector} />
                <crate::components::election::ElectionView model={election} lang={lang} held={election_held} />
                <crate::components::placement::PlacementView model={placement} lang={lang} held={election_held} />
                if let Some(log) = metadata_log {
                    <crate::components::zk_tree::MetadataLog {log} lang={lang} />
                } else if let Some(rows) = zk_rows {
                    <crate::components::zk_tree::ZkTree rows={rows} lang={lang} />
                }
                if let Some((what, text)) = describe {
                    <crate::components::describe::DescribeView {what} {text} lang={lang} open={*describe_open} on_toggle={on_describe_toggle} />
                }
            }
        </section>
    };
    // The panel's settings change only with the scenario text.
    let config_groups = use_memo(player.source().to_string(), |s| {
        crate::state::config::settings(s)
    });
    let act = {
        let sc = player.scenario();
        let w = player.world();
        let mut nodes: Vec<String> = w
            .brokers()
            .keys()
            .map(|b| format!("broker-{}", b.0))
            .collect();
        nodes.extend((0..w.producers().len()).map(|i| format!("producer-{i}")));
        nodes.extend((0..w.consumers().len()).map(|i| format!("consumer-{i}")));
        // 4.1: the controllers where 3.9 has ZooKeeper.
        let controllers: Vec<(i32, bool)> =
            w.controllers().values().map(|c| (c.id, c.alive)).collect();
        if controllers.is_empty() {
            nodes.push("zookeeper".into());
        } else {
            nodes.extend(controllers.iter().map(|(c, _)| format!("controller-{c}")));
        }
        html! {
            <crate::components::act::Act lang={lang}
                brokers={w.brokers().values().map(|b| (b.id.0, b.alive)).collect::<Vec<_>>()}
                producers={w.producers().iter().map(|p| p.name.clone()).collect::<Vec<_>>()}
                topics={sc.topics.iter().map(|t| t.name.clone()).collect::<Vec<_>>()}
                consumers={w.consumers().iter().map(|c| c.name.clone()).collect::<Vec<_>>()}
                groups={w.consumers().iter().filter_map(|c| c.config.group_id.clone()).collect::<Vec<_>>()}
                nodes={nodes}
                {controllers}
                on_command={on_command.clone()} />
        }
    };
    let controls = html! {
        <Controls lang={lang} marks={timeline_marks} cursor={player.cursor()} known_len={player.known_len()} length_final={player.length_final()}
            time_ms={now} playing={state.playing} speed_label={state.speed_label()}
            on_back={d(|| Action::Back)} on_step={d(|| Action::Step)} on_play={d(|| Action::TogglePlay)}
            on_start={d(|| Action::ToStart)} on_speed={d(|| Action::NextSpeed)} on_seek_to={on_scrub} />
    };
    let lang_attr = if lang == Lang::Zh { "zh-CN" } else { "en" };
    if state.embed.is_some() {
        // Embedded in another page: the drawing, its caption and playback only.
        return html! {
            <div class="app embed" id="embed" lang={lang_attr}>
                { controls }
                { stage }
            </div>
        };
    }
    let entry_title = state
        .lesson_slug
        .as_deref()
        .and_then(|slug| {
            state
                .library
                .as_ref()?
                .find(slug)
                .map(|e| e.title.get(lang).to_string())
        })
        .or_else(|| {
            let l = state.lesson.as_ref()?;
            l.lesson.title.as_ref().map(|t| t.get(lang).to_string())
        });
    let next_lesson = state.lesson_slug.as_deref().and_then(|slug| {
        let lib = state.library.as_ref()?;
        let i = lib.lessons.iter().position(|l| l.slug() == slug)?;
        lib.lessons
            .get(i + 1)
            .map(|l| (l.slug().to_string(), l.title.get(lang).to_string()))
    });
    let menu = state.menu.clone().map(|m| {
        let w = player.world();
        let cx = crate::state::menu::MenuContext {
            brokers: w.brokers().keys().map(|b| b.0).collect(),
            cut: w.network().cut.iter().copied().collect(),
            names: names.clone(),
            topics: w
                .scenario()
                .topics
                .iter()
                .map(|t| t.name.clone())
                .filter(|t| !t.starts_with("__"))
                .collect(),
        };
        let (title, items) = crate::state::menu::entries(&m.node, m.alive, &cx, lang);
        let close = d(|| Action::CloseHelp).reform(|_: MouseEvent| ());
        html! {
            <div class="menu" id="node-menu" role="menu" aria-label={title.clone()}
                style={format!("left: {}px; top: {}px", m.x.max(0), m.y.max(0))}>
                <p class="menu-title">{ title }</p>
                if items.is_empty() {
                    <p class="hint">{ t(lang, "no_actions") }</p>
                }
                { for items.into_iter().map(|item| {
                    let c = on_command.clone();
                    let command = item.command;
                    html! {
                        <button role="menuitem" id={item.id}
                            onclick={Callback::from(move |_: MouseEvent| c.emit(command.clone()))}>
                            { item.label }</button>
                    }
                }) }
                <button role="menuitem" id="menu-close" onclick={close}>{ t(lang, "dismiss") }</button>
            </div>
        }
    });
    let drawer = html! {
        <aside class="drawer" id="drawer" hidden={!state.drawer} aria-label={t(lang, "tools")}>
            <div class="drawer-head">
                <h2>{ t(lang, "tools") }</h2>
                <button id="btn-drawer-close" onclick={d(|| Action::ToggleDrawer).reform(|_: MouseEvent| ())} aria-label={t(lang, "dismiss")}>{ t(lang, "dismiss") }</button>
            </div>
            <section aria-label={t(lang, "open_section")}>
                <h3>{ t(lang, "open_section") }</h3>
                <label class="examples">{ t(lang, "examples") }{" "}
                    <select id="example" onchange={on_example}>
                        <option value="" selected=true disabled=true>{"…"}</option>
                        { for EXAMPLES.iter().map(|n| html! { <option value={*n}>{ n.trim_end_matches(".json") }</option> }) }
                    </select>
                </label>
                if let Some(lib) = &state.library {
                    <label class="lessons">{ t(lang, "lessons") }{" "}
                        <select id="lesson-pick" onchange={on_lesson_pick}>
                            <option value="" selected={!lib.lessons.iter().any(|l| state.lesson_slug.as_deref() == Some(l.slug()))} disabled=true>{"…"}</option>
                            { for lib.lessons.iter().map(|l| html! {
                                <option value={l.file.clone()} selected={state.lesson_slug.as_deref() == Some(l.slug())}>
                                    { format!("{}{}", l.title.get(lang),
                                        state.progress.lessons.get(l.slug()).map(|p| format!(" ✓ {}/{}", p.right(), p.questions)).unwrap_or_default()) }
                                </option>
                            }) }
                        </select>
                    </label>
                }
                <label class="file-button">
                    { t(lang, "load") }
                    <input id="load-scenario" type="file" accept=".json,application/json" onchange={on_file} />
                </label>
            </section>
            <section aria-label={t(lang, "playback")}>
                <h3>{ t(lang, "playback") }</h3>
                <label class="toggle">
                    <input id="routine" type="checkbox" checked={state.hide_routine} onclick={d(|| Action::ToggleRoutine).reform(|_: MouseEvent| ())} />
                    { t(lang, "hide_routine") }
                </label>
                <div class="jump-row">
                    <label class="jump">{ t(lang, "jump") }{" "}
                        <select id="jump-kind" onchange={on_jump_kind}>
                            { for JUMP_KINDS.iter().map(|(k, en, zh)| html! {
                                <option value={*k} selected={*k == *jump_kind}>{ if lang == Lang::Zh { *zh } else { *en } }</option>
                            }) }
                        </select>
                    </label>
                    <button id="btn-next-kind" onclick={on_jump} title="n">{ t(lang, "next") }</button>
                </div>
            </section>
            <section aria-label={t(lang, "act_section")}>
                <h3>{ t(lang, "act_section") }</h3>
                { act }
                <crate::components::config::ConfigPanel lang={lang}
                    groups={config_groups}
                    on_apply={on_reconfigure} />
            </section>
            <section aria-label={t(lang, "x_title")}>
                <h3>{ t(lang, "x_title") }</h3>
                <crate::components::explore::ExplorePanel lang={lang}
                    source={AttrValue::from(player.source().to_string())}
                    on_open={on_explore_open} />
            </section>
            <section aria-label={t(lang, "share_section")}>
                <h3>{ t(lang, "share_section") }</h3>
                <button id="btn-share" onclick={on_share} title={t(lang, "share_hint")}>{ t(lang, "share") }</button>
                if state.lesson.is_some() {
                    <label class="challenge">
                        <input id="share-challenge" type="checkbox" checked={*share_challenge}
                            onchange={{ let c = share_challenge.clone(); Callback::from(move |_: Event| c.set(!*c)) }} />
                        { t(lang, "challenge") }
                    </label>
                }
                if let Some(link) = &*share_link {
                    <p class="share" id="share-link">
                        { t(lang, "share_done") }{" "}
                        <input type="text" readonly=true value={link.clone()} aria-label={t(lang, "share")} />
                        <br />{ t(lang, "embed_code") }{" "}
                        <input id="embed-code" type="text" readonly=true aria-label={t(lang, "embed_code")}
                            value={format!("<iframe src=\"{link}&embed=1&from=0&to={}&loop=1\" width=\"1000\" height=\"620\"></iframe>", player.known_len())} />
                    </p>
                }
                <label class="export">{ t(lang, "export") }{" "}
                    <select id="export" onchange={on_export}>
                        <option value="" selected=true>{"…"}</option>
                        <option value="scenario">{ t(lang, "export_scenario") }</option>
                        <option value="trace">{ t(lang, "export_trace") }</option>
                        <option value="svg">{ t(lang, "export_svg") }</option>
                        <option value="png">{ t(lang, "export_png") }</option>
                    </select>
                </label>
            </section>
        </aside>
    };
    let on_skip = Callback::from(|e: MouseEvent| {
        // Not a fragment link: the address names lessons, not page parts.
        e.prevent_default();
        if let Some(el) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id("stage"))
            .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok())
        {
            let _ = el.focus();
        }
    });
    let on_home = {
        let navigate = navigate.clone();
        Callback::from(move |_: MouseEvent| navigate(String::new()))
    };
    html! {
        <div class={classes!("app", state.projector.then_some("projector"), state.start.then_some("starting"))} lang={lang_attr}>
            <a class="skip" href="#stage" onclick={on_skip}>{ t(lang, "skip") }</a>
            <header>
                <h1>{ t(lang, "title") }</h1>
                <button id="btn-home" class="home" onclick={on_home} aria-current={state.start.then_some("page")}>{ t(lang, "home") }</button>
                if !state.start {
                    <div class="scenario-name" id="scenario-name">{ entry_title.clone().unwrap_or_else(|| player.scenario().name.clone()) }</div>
                    // The Kafka this scenario runs: 3.9 with ZooKeeper, or 4.1 with KRaft.
                    <span class={classes!("mode", player.scenario().kafka_version.is_kraft().then_some("kraft"))} id="kafka-mode"
                        title={t(lang, if player.scenario().kafka_version.is_kraft() { "mode_kraft_hint" } else { "mode_zk_hint" })}>
                        { t(lang, if player.scenario().kafka_version.is_kraft() { "mode_kraft" } else { "mode_zk" }) }
                    </span>
                }
                <div class="header-tools">
                    if !state.start {
                        <button id="btn-tools" aria-expanded={state.drawer.to_string()} aria-controls="drawer"
                            onclick={d(|| Action::ToggleDrawer).reform(|_: MouseEvent| ())}>{ t(lang, "tools") }</button>
                    }
                    <button id="btn-help" onclick={on_help_toggle.reform(|_: MouseEvent| ())} aria-label={t(lang, "shortcuts")} title="?">{"?"}</button>
                    <button id="btn-projector" aria-pressed={state.projector.to_string()} onclick={d(|| Action::ToggleProjector).reform(|_: MouseEvent| ())}>{ t(lang, "projector") }</button>
                    <button id="btn-lang" onclick={Callback::from(move |_: MouseEvent| on_lang.emit(()))} aria-label={format!("{} (Language / 语言)", t(lang, "lang"))}>{ t(lang, "lang") }</button>
                </div>
            </header>
            if let Some(err) = &state.error {
                <div class="error" role="alert" id="error">
                    <strong>{ t(lang, state.error_about) }</strong>{" "}{ err.clone() }{" "}
                    <span class="kept">{ t(lang, "kept") }</span>
                    <button onclick={Callback::from(move |_: MouseEvent| on_dismiss.emit(()))} aria-label={t(lang, "dismiss")}>{"✕"}</button>
                </div>
            }
            if let Some(n) = &state.notice {
                <p class="notice" role="status" id="notice">{ n.clone() }</p>
            }
            if state.help {
                <div class="help" role="dialog" aria-modal="true" aria-label={t(lang, "shortcuts")} id="help">
                    <h2>{ t(lang, "shortcuts") }</h2>
                    <dl>
                        { for crate::io::keys::SHORTCUTS.iter().map(|(k, en, zh)| html! {
                            <><dt><kbd>{ *k }</kbd></dt><dd>{ if lang == Lang::Zh { *zh } else { *en } }</dd></>
                        }) }
                    </dl>
                    <button id="btn-help-close" onclick={on_help_close.reform(|_: MouseEvent| ())}>{ t(lang, "dismiss") }</button>
                </div>
            }
            if state.start {
                <crate::components::start::StartScreen lang={lang} library={state.library.clone()}
                    progress={state.progress.clone()} on_open={on_open} />
            } else {
                // The 3.9 vs 4.1 view runs its own two clusters: the
                // timeline's controls, lesson, changes and log are not about
                // it, so it has the page to itself.
                if view != View::Planes {
                    { controls }
                }
                if let Some(why) = player.at_end().then(|| player.stopped_early()).flatten() {
                    <p class="notice" role="status" id="stopped-early">{ t(lang, "stopped_early") }{ crate::i18n::engine_text(lang, &why) }</p>
                }
                // The lesson beside the drawing on a wide screen, above it on
                // a narrower one (the grid's areas in style.css); in this
                // order for the keyboard either way.
                <main class={classes!((view == View::Planes).then_some("solo"))}>
                    if view == View::Planes {
                        { stage }
                    } else {
                    if let Some(l) = &state.lesson {
                        { lesson_panel(&LessonPanel {
                            l, lang, cursor: player.cursor(), at_end: player.at_end(),
                            title: entry_title, description: &player.scenario().description, past: player.past(),
                            next: next_lesson, on_open: on_open_next,
                            source: AttrValue::from(player.source().to_string()),
                        }, &state.dispatcher()) }
                    }
                    if state.lesson.is_none() && state.opened == Some(Open::Play) {
                        <aside class="lesson free-play" id="free-play-hint" aria-label={t(lang, "free_play")}>
                            <p><strong>{ t(lang, "free_play") }</strong>{" · "}{ t(lang, "free_play_hint") }</p>
                        </aside>
                    }
                    if let (Some(c), Some(id)) = (&changes, current) {
                        { changes_panel(c, id, lang) }
                    }
                    { stage }
                    <EventLog lang={lang} lines={lines} current={current} on_seek={on_seek} />
                    }
                </main>
                { drawer }
                { menu.unwrap_or_default() }
            }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The log written from the captions kept is the log written afresh,
    /// step after step, after jumps back, in the other language, and with
    /// routine events shown or hidden.
    #[test]
    fn the_log_from_kept_captions_is_the_log_written_afresh() {
        let mut p = Player::from_json(include_str!("../scenarios/group-rebalance.json")).unwrap();
        let names = crate::state::ClientNames::from_world(p.world());
        let mine = SortedSet::new();
        let mut kept = Captions::default();
        let mut x = 3u64;
        let mut steps = 0;
        while p.step() && steps < 3_000 {
            steps += 1;
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            let lang = if x >> 62 == 0 { Lang::Zh } else { Lang::En };
            let hide = x >> 61 & 1 == 0;
            if x >> 58 == 0 {
                p.seek(p.cursor().saturating_sub(150));
            }
            let fresh = log_lines(&p, lang, hide, &mine, &names, &mut Captions::default());
            let from_kept = log_lines(&p, lang, hide, &mine, &names, &mut kept);
            assert!(fresh == from_kept, "at {}", p.cursor());
            // Only the window's captions are kept.
            let first = fresh.first().map_or(0, |l| l.id / 100 * 100);
            assert!(kept
                .by_id
                .keys()
                .all(|&id| id >= first && id < p.past().len() as u64));
        }
        assert!(steps > 1_000);
        assert!(!kept.by_id.is_empty());
    }
}
