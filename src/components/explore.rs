//! "Can this break?" (Tools): the counterexample finder
//! ([`kafka_sim::explore`]) on the open scenario. The learner picks one of
//! the engine's guarantees; the search runs in slices of a few
//! milliseconds between frames (an interval timer), so the page never
//! freezes, and shows its progress: schedules tried and the best
//! counterexample so far. Stop keeps the best. A counterexample is shrunk
//! the same way, then opened in the timeline at the violating event, with
//! the engine's own caption of it; opening it branches the timeline (the
//! scenario with the faults added as its commands, as acting does).

use crate::i18n::{t, Lang};
use kafka_sim::event::Guarantee;
use kafka_sim::explore::shrink::Shrinker;
use kafka_sim::explore::{guarantee_name, Counterexample, FaultKind, Request, Search};
use kafka_sim::scenario::{Command, Scenario, TimedCommand};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The guarantees a learner may ask about, with their labels' keys.
pub const GUARANTEES: [(Guarantee, &str); 5] = [
    (Guarantee::AcknowledgedRecordsSurvive, "g_acknowledged"),
    (Guarantee::ReadCommittedIsolation, "g_read_committed"),
    (Guarantee::SingleOwnerPerPartition, "g_single_owner"),
    (Guarantee::ExactlyOncePipeline, "g_exactly_once"),
    (Guarantee::ReplicasConsistent, "g_replicas_consistent"),
];

/// Wall-clock budget of the search, then of the shrink, in milliseconds.
pub const BUDGET_MS: f64 = 10_000.0;
/// One slice of work between frames, in milliseconds.
const SLICE_MS: f64 = 12.0;

/// Where a search stands.
#[derive(Clone, Debug, PartialEq)]
pub enum Phase {
    Idle,
    Searching,
    Shrinking,
    /// Finished: the counterexample (as scenario text and the violating
    /// event), or none.
    Done(Option<Found>),
    /// The scenario cannot be searched (the message says why).
    Refused(String),
}

/// A counterexample ready to open.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub text: String,
    pub event: u64,
    pub time_ms: u64,
    pub faults: usize,
    pub events: u64,
    pub detail: String,
    /// What the faults are, one line each ("1,914 ms: kill_broker 0").
    pub schedule: Vec<String>,
    /// The i18n key of a note saying the settings make this break
    /// expected (acks=1 does not promise it), if they do.
    pub expected: Option<&'static str>,
    /// The i18n key of the guarantee's label.
    pub label: &'static str,
}

/// The progress shown while working.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    pub phase: Phase,
    pub tried: u64,
    pub best: Option<(usize, u64)>,
}

/// Why the settings make a break of `g` expected, as an i18n key.
pub fn expected_break(sc: &Scenario, g: Guarantee) -> Option<&'static str> {
    match g {
        Guarantee::AcknowledgedRecordsSurvive => {
            if sc
                .producer_specs()
                .any(|p| p.config.acks != kafka_sim::client_config::Acks::ALL)
            {
                Some("x_expected_acks")
            } else if sc.cluster.config.unclean_leader_election_enable
                || sc
                    .topics
                    .iter()
                    .any(|t| t.config.unclean_leader_election_enable == Some(true))
            {
                Some("x_expected_unclean")
            } else {
                None
            }
        }
        Guarantee::ReadCommittedIsolation => sc
            .consumers
            .iter()
            .any(|c| {
                c.config.isolation_level != kafka_sim::client_config::IsolationLevel::ReadCommitted
            })
            .then_some("x_expected_uncommitted"),
        _ => None,
    }
}

/// A fault command in a line ("kill_broker 0", "cut_link broker-0 broker-1").
fn fault_line(at: u64, c: &Command) -> String {
    let v = serde_json::to_value(c).unwrap_or_default();
    let kind = v
        .get("type")
        .and_then(|x| x.as_str())
        .unwrap_or("?")
        .to_string();
    let what: Vec<String> = ["broker", "a", "b", "consumer", "extra_latency_ms"]
        .iter()
        .filter_map(|k| {
            v.get(*k)
                .map(|x| x.to_string().trim_matches('"').to_string())
        })
        .collect();
    let power = if v.get("power_failure").and_then(|x| x.as_bool()) == Some(true) {
        " (power_failure)"
    } else {
        ""
    };
    format!("{at} ms: {kind} {}{power}", what.join(" "))
}

/// The counterexample as the page shows it. `base`: the commands of the
/// scenario searched, whose own faults (a lesson's slow link) are not
/// counted or listed as the finder's.
fn found(c: &Counterexample, g: Guarantee, base: &[TimedCommand]) -> Found {
    let mut theirs: Vec<&TimedCommand> = base
        .iter()
        .filter(|x| kafka_sim::explore::is_fault(&x.command))
        .collect();
    let added: Vec<&TimedCommand> = c
        .scenario
        .commands
        .iter()
        .filter(|x| kafka_sim::explore::is_fault(&x.command))
        .filter(|x| match theirs.iter().position(|b| *b == *x) {
            Some(i) => {
                theirs.remove(i);
                false
            }
            None => true,
        })
        .collect();
    Found {
        text: c.scenario.to_json_pretty(),
        event: c.violation.event,
        time_ms: c.violation.time_ms,
        faults: added.len(),
        events: c.events,
        // The engine numbers clients; the learner knows them by name.
        detail: kafka_sim::names::ClientNames {
            producers: c
                .scenario
                .producers
                .iter()
                .map(|p| p.name.clone())
                .collect(),
            consumers: c
                .scenario
                .consumers
                .iter()
                .map(|x| x.name.clone())
                .collect(),
        }
        .apply(&c.violation.detail),
        schedule: added
            .iter()
            .map(|x| fault_line(x.at_ms, &x.command))
            .collect(),
        expected: expected_break(&c.scenario, g),
        label: GUARANTEES
            .iter()
            .find(|(x, _)| *x == g)
            .map_or("g_acknowledged", |(_, k)| k),
    }
}

/// The search or shrink in progress.
enum Job {
    Search(Box<Search>, f64),
    Shrink(Box<Shrinker>, f64),
}

#[derive(Properties, PartialEq)]
pub struct ExploreProps {
    pub lang: Lang,
    /// The open scenario's text.
    pub source: AttrValue,
    /// Open a counterexample: its scenario text and the violating event.
    pub on_open: Callback<(String, u64)>,
}

/// The search of the open scenario, without its lesson, for a break of `g`.
pub fn search_of(source: &str, g: Guarantee) -> Result<Search, String> {
    let mut sc = Scenario::from_json(source).map_err(|e| format!("{}: {}", e.field, e.message))?;
    sc.lesson = None;
    let req = Request {
        guarantee: g,
        faults: FaultKind::ALL.to_vec(),
        max_faults: 3,
        seed: 1,
    };
    Search::new(sc, req)
}

fn now() -> f64 {
    js_sys::Date::now()
}

#[component]
pub fn ExplorePanel(p: &ExploreProps) -> Html {
    let lang = p.lang;
    let choice = use_state(|| 0usize);
    let progress = use_state(|| Progress {
        phase: Phase::Idle,
        tried: 0,
        best: None,
    });
    let job: Rc<RefCell<Option<Job>>> = use_mut_ref(|| None);
    // The searched scenario's own commands (its own faults are not the finder's).
    let base: Rc<RefCell<Rc<Vec<TimedCommand>>>> = use_mut_ref(Rc::default);
    let timer: Rc<RefCell<Option<gloo_timers::callback::Interval>>> = use_mut_ref(|| None);
    let g = GUARANTEES[*choice].0;

    let start = {
        let (job, timer, progress, source, base) = (
            job.clone(),
            timer.clone(),
            progress.clone(),
            p.source.clone(),
            base.clone(),
        );
        Callback::from(move |_: MouseEvent| {
            match search_of(&source, g) {
                Ok(s) => {
                    *base.borrow_mut() = Rc::new(s.base().commands.clone());
                    *job.borrow_mut() = Some(Job::Search(Box::new(s), now()));
                }
                Err(e) => {
                    progress.set(Progress {
                        phase: Phase::Refused(e),
                        tried: 0,
                        best: None,
                    });
                    return;
                }
            }
            progress.set(Progress {
                phase: Phase::Searching,
                tried: 0,
                best: None,
            });
            let (job, timer2, progress, base) =
                (job.clone(), timer.clone(), progress.clone(), base.clone());
            // The interval is dropped from a timeout of its own, never from
            // inside its own callback.
            let end = move |t: Rc<RefCell<Option<gloo_timers::callback::Interval>>>| {
                gloo_timers::callback::Timeout::new(0, move || {
                    t.borrow_mut().take();
                })
                .forget();
            };
            let tick = move || {
                let next = work(&mut job.borrow_mut(), g, &base.borrow());
                let done = next
                    .as_ref()
                    .is_none_or(|n| matches!(n.phase, Phase::Done(_)));
                if let Some(next) = next {
                    progress.set(next);
                }
                if done {
                    end(timer2.clone());
                }
            };
            *timer.borrow_mut() = Some(gloo_timers::callback::Interval::new(16, tick));
        })
    };
    let stop = {
        let (job, progress, base) = (job.clone(), progress.clone(), base.clone());
        Callback::from(move |_: MouseEvent| {
            // The search stops; its best so far is shrunk (the shrink's
            // own Stop ends that, keeping its best).
            let mut j = job.borrow_mut();
            match j.take() {
                Some(Job::Search(s, _)) => match s.found().cloned() {
                    Some(c) => *j = Some(Job::Shrink(Box::new(Shrinker::new(c, g)), now())),
                    None => {
                        progress.set(Progress {
                            phase: Phase::Done(None),
                            tried: s.tried(),
                            best: None,
                        });
                    }
                },
                Some(Job::Shrink(sh, _)) => {
                    progress.set(Progress {
                        phase: Phase::Done(Some(found(sh.best(), g, &base.borrow()))),
                        tried: progress.tried,
                        best: Some((sh.best().faults, sh.best().events)),
                    });
                }
                None => {}
            }
        })
    };
    let on_choice = {
        let choice = choice.clone();
        Callback::from(move |e: Event| {
            let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
            choice.set(s.value().parse().unwrap_or(0));
        })
    };
    let busy = matches!(progress.phase, Phase::Searching | Phase::Shrinking);
    let status = match &progress.phase {
        Phase::Idle => String::new(),
        Phase::Searching | Phase::Shrinking => {
            let what = if progress.phase == Phase::Searching {
                t(lang, "x_searching")
            } else {
                t(lang, "x_shrinking")
            };
            match progress.best {
                Some((f, e)) => format!(
                    "{what} · {} {} · {} {f} / {e}",
                    progress.tried,
                    t(lang, "x_schedules"),
                    t(lang, "x_best")
                ),
                None => format!("{what} · {} {}", progress.tried, t(lang, "x_schedules")),
            }
        }
        Phase::Done(None) => format!(
            "{} ({} {})",
            t(lang, "x_none"),
            progress.tried,
            t(lang, "x_schedules")
        ),
        Phase::Done(Some(_)) => String::new(),
        Phase::Refused(e) => format!("{} {e}", t(lang, "x_refused")),
    };
    html! {
        <div class="explore" id="explore">
            <p class="hint">{ t(lang, "x_hint") }</p>
            <label>{ t(lang, "x_guarantee") }{" "}
                <select id="explore-guarantee" onchange={on_choice} disabled={busy}>
                    { for GUARANTEES.iter().enumerate().map(|(i, (gg, key))| html! {
                        <option value={i.to_string()} selected={i == *choice}>{ format!("{} ({})", t(lang, key), guarantee_name(*gg)) }</option>
                    }) }
                </select>
            </label>
            <div class="jump-row">
                <button id="btn-explore" onclick={start} disabled={busy}>{ t(lang, "x_search") }</button>
                <button id="btn-explore-stop" onclick={stop} disabled={!busy}>{ t(lang, "x_stop") }</button>
            </div>
            if !status.is_empty() {
                <p class="facts" id="explore-status" role="status">{ status }</p>
            }
            if let Phase::Done(Some(f)) = &progress.phase {
                <div class="explore-found" id="explore-found" role="status">
                    <p><strong>{ t(lang, "x_found") }</strong>{" "}
                        { format!("{} {} · {} {} ({} ms): {}", f.faults, t(lang, "x_faults"), t(lang, "x_broke_at"), f.event, f.time_ms, f.detail) }</p>
                    if !f.schedule.is_empty() {
                        <ul class="mono">{ for f.schedule.iter().map(|l| html! { <li>{ l.clone() }</li> }) }</ul>
                    }
                    if let Some(key) = f.expected {
                        <p class="small-note">{ t(lang, key) }</p>
                    }
                    <button id="btn-explore-open" onclick={{
                        let (cb, text, event) = (p.on_open.clone(), f.text.clone(), f.event);
                        Callback::from(move |_: MouseEvent| cb.emit((text.clone(), event)))
                    }}>{ t(lang, "x_open") }</button>
                </div>
            }
        </div>
    }
}

/// One slice of work: search or shrink steps until the slice's time is
/// up; moves from searching to shrinking to done by the budgets.
fn work(job: &mut Option<Job>, g: Guarantee, base: &[TimedCommand]) -> Option<Progress> {
    let until = now() + SLICE_MS;
    loop {
        match job.take() {
            Some(Job::Search(mut s, began)) => {
                while now() < until && !s.finished() {
                    s.step();
                }
                let out_of_time = now() - began > BUDGET_MS;
                if s.finished() || out_of_time {
                    match s.found().cloned() {
                        Some(c) => {
                            let tried = s.tried();
                            *job = Some(Job::Shrink(Box::new(Shrinker::new(c.clone(), g)), now()));
                            if now() >= until {
                                return Some(Progress {
                                    phase: Phase::Shrinking,
                                    tried,
                                    best: Some((c.faults, c.events)),
                                });
                            }
                            continue;
                        }
                        None => {
                            return Some(Progress {
                                phase: Phase::Done(None),
                                tried: s.tried(),
                                best: None,
                            });
                        }
                    }
                }
                let p = Progress {
                    phase: Phase::Searching,
                    tried: s.tried(),
                    best: s.found().map(|c| (c.faults, c.events)),
                };
                *job = Some(Job::Search(s, began));
                return Some(p);
            }
            Some(Job::Shrink(mut sh, began)) => {
                while now() < until && sh.step() {}
                let best = sh.best();
                let (tried, _) = sh.counts();
                if sh.done() || now() - began > BUDGET_MS {
                    return Some(Progress {
                        phase: Phase::Done(Some(found(best, g, base))),
                        tried,
                        best: Some((best.faults, best.events)),
                    });
                }
                let p = Progress {
                    phase: Phase::Shrinking,
                    tried,
                    best: Some((best.faults, best.events)),
                };
                *job = Some(Job::Shrink(sh, began));
                return Some(p);
            }
            // Stopped from the panel, which showed the result itself.
            None => return None,
        }
    }
}

/// What the finder answered a lesson's question: the schedules it ran,
/// the bounds, and the shrunk counterexample if it found one.
#[derive(Clone, Debug, PartialEq)]
pub struct Explored {
    pub tried: u64,
    pub found: Option<Found>,
    pub max_faults: u32,
    pub faults: Vec<String>,
    /// The search could not run (the message says why).
    pub refused: Option<String>,
}

impl Explored {
    /// The answer a prediction is graded against.
    pub fn answer(&self) -> &'static str {
        kafka_sim::explore::question::answer(self.found.is_some())
    }
}

#[derive(Properties, PartialEq)]
pub struct LessonFinderProps {
    pub lang: Lang,
    /// The open scenario's text.
    pub source: AttrValue,
    /// The question's step, its answer (`explore:GUARANTEE`) and bounds.
    pub step: usize,
    pub answer: AttrValue,
    pub finder: kafka_sim::lesson::Finder,
    /// The learner's prediction, as shown.
    pub predicted: AttrValue,
    /// The finder's answer.
    pub on_done: Callback<Explored>,
}

/// A lesson's question to the finder, after the learner predicted: the
/// search runs in slices between frames (as in Tools), showing the
/// schedules tried, and reports what it found.
#[component]
pub fn LessonFinder(p: &LessonFinderProps) -> Html {
    let lang = p.lang;
    let progress = use_state(|| (0u64, false));
    {
        let (progress, on_done, answer, finder) = (
            progress.clone(),
            p.on_done.clone(),
            p.answer.clone(),
            p.finder.clone(),
        );
        use_effect_with((p.step, p.source.clone()), move |(_, source)| {
            let (max_faults, kinds) = (finder.max_faults, finder.faults.clone());
            let bounds = move |tried, found, refused| Explored {
                tried,
                found,
                max_faults,
                faults: kinds.clone(),
                refused,
            };
            let question = Scenario::from_json(source)
                .map_err(|e| format!("{}: {}", e.field, e.message))
                .and_then(|sc| {
                    kafka_sim::explore::question::Question::new(&sc, &answer, &finder)
                        .map(|q| (q, sc.commands))
                });
            let mut interval = None;
            match question {
                Err(why) => {
                    let (on_done, e) = (on_done.clone(), bounds(0, None, Some(why)));
                    gloo_timers::callback::Timeout::new(0, move || on_done.emit(e)).forget();
                }
                Ok((q, base)) => {
                    let q = Rc::new(RefCell::new(Some(q)));
                    interval = Some(gloo_timers::callback::Interval::new(16, move || {
                        let mut slot = q.borrow_mut();
                        let Some(question) = slot.as_mut() else {
                            return;
                        };
                        let until = now() + SLICE_MS;
                        let mut more = true;
                        while more && now() < until {
                            more = question.step();
                        }
                        if more {
                            progress.set(question.progress());
                            return;
                        }
                        let Some(o) = question.outcome() else {
                            return;
                        };
                        let g = o.guarantee;
                        let e = bounds(o.tried, o.found.as_ref().map(|c| found(c, g, &base)), None);
                        *slot = None;
                        // Reported from a timeout of its own: the answer
                        // unmounts this panel, which drops the interval,
                        // never from inside its own callback.
                        let on_done = on_done.clone();
                        gloo_timers::callback::Timeout::new(0, move || on_done.emit(e)).forget();
                    }));
                }
            }
            move || drop(interval)
        });
    }
    let (tried, breaking) = *progress;
    html! {
        <div class="finder" id="finder" role="status">
            <p><strong>{ t(lang, "x_predicted") }{" "}</strong>{ p.predicted.to_string() }</p>
            <p class="facts">{ format!("{} · {tried} {}", t(lang, if breaking { "x_shrinking" } else { "x_lesson_searching" }), t(lang, "x_schedules")) }</p>
        </div>
    }
}

/// The finder's answer under a question's feedback: the bounds it
/// searched, and the counterexample with a link that opens it in a new
/// tab (the lesson stays where it is in this one).
pub fn finder_result(lang: Lang, e: &Explored) -> Html {
    if let Some(why) = &e.refused {
        return html! { <p class="small-note" id="finder-result">{ format!("{} {why}", t(lang, "x_refused")) }</p> };
    }
    let bounds = format!(
        "{} {} · ≤ {} {} ({})",
        e.tried,
        t(lang, "x_schedules"),
        e.max_faults,
        t(lang, "x_faults"),
        e.faults.join(", ")
    );
    match &e.found {
        None => html! {
            <p class="finder-result" id="finder-result"><strong>{ t(lang, "x_lesson_none") }</strong>{" "}{ bounds }</p>
        },
        Some(f) => {
            // The link opens the replay just after the break (a link's
            // step is the cursor, which shows the events before it).
            let href = format!(
                "#{}",
                crate::state::links::share_fragment(
                    &f.text,
                    f.event + 1,
                    crate::state::View::Cluster
                )
            );
            let broke = match lang {
                Lang::En => format!(
                    "{}: broken {} ms into the replay. {}",
                    t(lang, f.label),
                    f.time_ms,
                    f.detail
                ),
                Lang::Zh => format!(
                    "{}：重放到 {} ms 时被破坏。{}",
                    t(lang, f.label),
                    f.time_ms,
                    f.detail
                ),
            };
            html! {
                <div class="finder-result explore-found" id="finder-result">
                    <p><strong>{ t(lang, "x_found") }</strong>{" "}{ broke }</p>
                    if f.schedule.is_empty() {
                        <p>{ t(lang, "x_no_fault") }</p>
                    } else {
                        <p>{ t(lang, "x_added") }</p>
                        <ul class="mono">{ for f.schedule.iter().map(|l| html! { <li>{ l.clone() }</li> }) }</ul>
                    }
                    <p class="facts">{ bounds }</p>
                    <a id="finder-watch" href={href} target="_blank" rel="noopener">{ t(lang, "x_watch") }</a>
                </div>
            }
        }
    }
}
