//! Guided lessons: narration tied to events of a scenario, and questions
//! asked *before* an event happens (predict, then reveal), graded against the
//! engine's own event.
//!
//! A lesson is the `lesson` object of a scenario file (see
//! `docs/lesson-format.md`), so a teacher writes or edits one without
//! rebuilding and opens it with "Load scenario…":
//!
//! ```json
//! "lesson": {
//!   "concepts": ["C3", "R4"],
//!   "steps": [
//!     {"at": {"type": "leader_elected", "nth": 2},
//!      "ask": {"en": "Broker 1 died. Which broker leads first-0 now?", "zh": "…"},
//!      "choices": ["0", "1", "2"],
//!      "answer": "/leader",
//!      "explain": {"en": "The first live ISR member in AR order.", "zh": "…"}},
//!     {"at": {"type": "log_truncated"}, "say": {"en": "…", "zh": "…"}}
//!   ]
//! }
//! ```
//!
//! `at` names an event by its JSON `type` and which occurrence (`nth`, from
//! 1). `answer` names a field of that event (`/leader`): the right choice is
//! whatever the engine says there. Or it names one of Kafka's metrics of one
//! process (`metric:UnderMinIsrPartitionCount@broker-0`, an attribute after
//! a dot: `metric:FailedProduceRequestsPerSec.Count@broker-0`): the right
//! choice is the value it reads right after that event (M1). Or it asks the
//! counterexample finder (`explore:acknowledged_records_survive`, with the
//! search's bounds in `explore`): the right choice is `yes` when a bounded,
//! seeded search of fault schedules breaks that guarantee, `no` when it
//! does not (see [`crate::explore::question`]).
//!
//! The model lives in the engine so that the page and `kafka-sim run` accept
//! and refuse the same lessons: [`Lesson::from_value`] when a scenario is
//! read, `lesson_check::AnswerCheck` over the trace (every question's answer must be a
//! field the page can read off its event).

use crate::collections::SortedMap;
use crate::Lang;
use serde::Deserialize;

/// A text in English and, optionally, 简体中文.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Text {
    /// English.
    pub en: String,
    /// 简体中文 (empty: the English is shown).
    #[serde(default)]
    pub zh: String,
}

impl Text {
    /// The text in `lang` (English when there is no 中文).
    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::Zh if !self.zh.is_empty() => &self.zh,
            _ => &self.en,
        }
    }
}

fn one() -> u32 {
    1
}

/// An event of the trace, by type and match count.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventRef {
    /// The event's type (`leader_elected`).
    #[serde(rename = "type")]
    pub kind: String,
    /// Which match counts (1: the first).
    #[serde(default = "one")]
    pub nth: u32,
    /// Only events whose fields have these values count (the same fields as
    /// `answer` reads), e.g. `{"step": "index_result"}` for a lookup.
    #[serde(default)]
    pub with: SortedMap<String, String>,
}

/// One stop of a lesson: something to say, or a question to ask, at an event.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// This step opens a chapter of the lesson, with this title: the page
    /// lists the chapters and jumps to one.
    #[serde(default)]
    pub chapter: Option<Text>,
    /// The event the step is about.
    pub at: EventRef,
    /// Shown once the event has happened.
    #[serde(default)]
    pub say: Option<Text>,
    /// Asked just before the event happens.
    #[serde(default)]
    pub ask: Option<Text>,
    /// For a question: the event that carries out the decision, when it
    /// comes before `at` (the controller writes the partition's new state
    /// before it reports `leader_elected`; a coordinator sends the
    /// assignment before the member reports it). Playback stops just before
    /// this event, so nothing on the page shows the decision until the
    /// learner answers. Counted like `at` (its `nth` match in the trace),
    /// and it must come at or before `at`.
    #[serde(default)]
    pub before: Option<EventRef>,
    /// The question's choices: each is also the value graded against the
    /// engine's answer, so it reads as the event's field does.
    #[serde(default)]
    pub choices: Vec<String>,
    /// The choices as a 中文 learner reads them, one per choice, in the same
    /// order (empty: the choices as written; an empty entry: that choice as
    /// written). Kafka's own names (`NOT_ENOUGH_REPLICAS`, `PrepareCommit`,
    /// `/controller`) need none; words do (`it fails`).
    #[serde(default)]
    pub choices_zh: Vec<String>,
    /// A field of the event (e.g. `/leader`), a metric, or a question to
    /// the counterexample finder (`explore:GUARANTEE`): the engine's answer.
    #[serde(default)]
    pub answer: Option<String>,
    /// For an `explore:` answer: the bounds of the search.
    #[serde(default)]
    pub explore: Option<Finder>,
    /// Why the answer is what it is, shown after the learner answers.
    #[serde(default)]
    pub explain: Option<Text>,
    /// The page's view this step talks about (`cluster`, `producer`,
    /// `storage`, `groups`, `metrics`): brought forward when the step is
    /// shown; the learner can still switch away.
    #[serde(default)]
    pub view: Option<String>,
    /// The partition this step is about (`first-0`): the page marks its
    /// replicas in the drawing while the step is shown.
    #[serde(default)]
    pub highlight: Option<String>,
}

impl Step {
    /// How a learner reading `lang` sees `value`: its `choices_zh` label in
    /// 中文 when it is one of the choices and has one, else `value` itself
    /// (so an engine answer that is not among the choices reads as it is).
    pub fn choice_label<'a>(&'a self, lang: Lang, value: &'a str) -> &'a str {
        if lang == Lang::Zh {
            if let Some(i) = self.choices.iter().position(|c| c == value) {
                if let Some(z) = self.choices_zh.get(i).filter(|z| !z.is_empty()) {
                    return z;
                }
            }
        }
        value
    }
}

/// The bounds of a lesson's question to the counterexample finder: which
/// clients take part, which faults a schedule may hold and how many, and
/// how many schedules the search runs (a count, not a time, so the answer
/// is the same natively and in the page).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finder {
    /// The producers and consumers (by name) the search keeps; the others
    /// are left out with their commands. Empty: all of them.
    #[serde(default)]
    pub clients: Vec<String>,
    /// The fault kinds a schedule may hold (`crash`, `restart`, `cut` …,
    /// as `kafka-sim explore --faults` names them).
    pub faults: Vec<String>,
    /// The most faults in one schedule.
    #[serde(default = "Finder::default_max_faults")]
    pub max_faults: u32,
    /// The most schedules the search runs before it answers `no`.
    #[serde(default = "Finder::default_schedules")]
    pub schedules: u64,
    /// The search's seed.
    #[serde(default = "Finder::default_seed")]
    pub seed: u64,
}

impl Finder {
    fn default_max_faults() -> u32 {
        2
    }
    fn default_schedules() -> u64 {
        1000
    }
    fn default_seed() -> u64 {
        1
    }
}

/// The most schedules a lesson's question may ask the finder to run.
pub const MAX_FINDER_SCHEDULES: u64 = 20_000;

/// The views a lesson step may bring forward (the page's tab names).
pub const STEP_VIEWS: [&str; 5] = ["cluster", "producer", "storage", "groups", "metrics"];

/// The `lesson` object of a scenario (docs/lesson-format.md).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    /// Concept IDs of `docs/concepts.md` this lesson covers.
    #[serde(default)]
    pub concepts: Vec<String>,
    /// The lesson's title in both languages (the page's header shows it in
    /// the learner's language; without it, the scenario's `name`).
    #[serde(default)]
    pub title: Option<Text>,
    /// The setup, in plain words: shown when the lesson opens.
    #[serde(default)]
    pub setup: Option<Text>,
    /// What the learner will be able to say at the end: shown with the setup.
    #[serde(default)]
    pub goal: Option<Text>,
    /// The one thing to remember: shown in the recap at the end.
    #[serde(default)]
    pub takeaway: Option<Text>,
    /// The steps, in trace order.
    pub steps: Vec<Step>,
}

impl Lesson {
    /// Reads the lesson of a scenario, naming the field at fault.
    pub fn from_value(v: &serde_json::Value) -> Result<Lesson, String> {
        let l: Lesson = serde_json::from_value(v.clone()).map_err(|e| format!("lesson: {e}"))?;
        for (i, s) in l.steps.iter().enumerate() {
            let at = format!("lesson.steps[{i}]");
            if s.at.nth == 0 {
                return Err(format!("{at}.at.nth: occurrences count from 1"));
            }
            if s.say.is_none() && s.ask.is_none() {
                return Err(format!(
                    "{at}: give `say` (narration) or `ask` (a question)"
                ));
            }
            if s.before.is_some() && s.ask.is_none() {
                return Err(format!(
                    "{at}.before: only a question stops before its decision (this step has no `ask`)"
                ));
            }
            if let Some(v) = s.view.as_deref().filter(|v| !STEP_VIEWS.contains(v)) {
                return Err(format!(
                    "{at}.view: \"{v}\" is not a view; use one of {}",
                    STEP_VIEWS.join(", ")
                ));
            }
            if let Some(h) = s.highlight.as_deref().filter(|h| {
                !h.rsplit_once('-')
                    .is_some_and(|(t, p)| !t.is_empty() && p.parse::<u32>().is_ok())
            }) {
                return Err(format!(
                    "{at}.highlight: \"{h}\" is not a partition (write it as topic-partition, like first-0)"
                ));
            }
            if s.before.as_ref().is_some_and(|b| b.nth == 0) {
                return Err(format!("{at}.before.nth: occurrences count from 1"));
            }
            if s.ask.is_some() {
                if s.choices.len() < 2 {
                    return Err(format!(
                        "{at}.choices: a question needs at least two choices"
                    ));
                }
                if !s.choices_zh.is_empty() && s.choices_zh.len() != s.choices.len() {
                    return Err(format!(
                        "{at}.choices_zh: {} labels for {} choices (one per choice, in order)",
                        s.choices_zh.len(),
                        s.choices.len()
                    ));
                }
                match &s.answer {
                    Some(p) if p.starts_with('/') => {}
                    Some(p) if p.starts_with("metric:") && p.contains('@') => {}
                    Some(p) if p.len() > "explore:".len() && p.starts_with("explore:") => {
                        let Some(f) = &s.explore else {
                            return Err(format!(
                                "{at}.explore: a question to the finder needs its bounds (`faults`, and optionally `clients`, `max_faults`, `schedules`, `seed`)"
                            ));
                        };
                        if f.faults.is_empty() {
                            return Err(format!("{at}.explore.faults: name at least one fault kind"));
                        }
                        if !(1..=5).contains(&f.max_faults) {
                            return Err(format!("{at}.explore.max_faults: 1 to 5"));
                        }
                        if !(1..=MAX_FINDER_SCHEDULES).contains(&f.schedules) {
                            return Err(format!(
                                "{at}.explore.schedules: 1 to {MAX_FINDER_SCHEDULES}"
                            ));
                        }
                        if s.choices.iter().any(|c| c != "yes" && c != "no") {
                            return Err(format!(
                                "{at}.choices: the finder answers \"yes\" or \"no\""
                            ));
                        }
                    }
                    _ => {
                        return Err(format!(
                            "{at}.answer: a question needs a field of the event, like \"/leader\", a metric, like \"metric:UnderMinIsrPartitionCount@broker-0\", or a question to the finder, like \"explore:acknowledged_records_survive\""
                        ))
                    }
                }
            }
            if s.explore.is_some()
                && !s
                    .answer
                    .as_deref()
                    .is_some_and(|a| a.starts_with("explore:"))
            {
                return Err(format!(
                    "{at}.explore: only a question answered by the finder (`explore:GUARANTEE`) has search bounds"
                ));
            }
        }
        Ok(l)
    }
}
