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
//! whatever the engine says there.
//!
//! The model lives in the engine so that the page and `kafka-sim run` accept
//! and refuse the same lessons: [`Lesson::from_value`] when a scenario is
//! read, [`AnswerCheck`] over the trace (every question's answer must be a
//! field the page can read off its event).

use crate::collections::SortedMap;
use crate::event::Event;
use crate::Lang;
use serde::Deserialize;

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Text {
    pub en: String,
    #[serde(default)]
    pub zh: String,
}

impl Text {
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

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventRef {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default = "one")]
    pub nth: u32,
    /// Only events whose fields have these values count (the same fields as
    /// `answer` reads), e.g. `{"step": "index_result"}` for a lookup.
    #[serde(default)]
    pub with: SortedMap<String, String>,
}

impl EventRef {
    /// Whether `e` is an event this reference counts.
    pub fn matches(&self, e: &Event) -> bool {
        e.kind.name_str() == self.kind
            && self
                .with
                .iter()
                .all(|(k, v)| e.kind.field(k).as_deref() == Some(v.as_str()))
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
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
    #[serde(default)]
    pub choices: Vec<String>,
    /// A field of the event (e.g. `/leader`): the engine's answer.
    #[serde(default)]
    pub answer: Option<String>,
    #[serde(default)]
    pub explain: Option<Text>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    /// Concept IDs of `docs/concepts.md` this lesson covers.
    #[serde(default)]
    pub concepts: Vec<String>,
    /// The setup, in plain words: shown when the lesson opens.
    #[serde(default)]
    pub setup: Option<Text>,
    /// What the learner will be able to say at the end: shown with the setup.
    #[serde(default)]
    pub goal: Option<Text>,
    /// The one thing to remember: shown in the recap at the end.
    #[serde(default)]
    pub takeaway: Option<Text>,
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
            if s.before.as_ref().is_some_and(|b| b.nth == 0) {
                return Err(format!("{at}.before.nth: occurrences count from 1"));
            }
            if s.ask.is_some() {
                if s.choices.len() < 2 {
                    return Err(format!(
                        "{at}.choices: a question needs at least two choices"
                    ));
                }
                match &s.answer {
                    Some(p) if p.starts_with('/') => {}
                    _ => {
                        return Err(format!(
                            "{at}.answer: a question needs a field of the event, like \"/leader\""
                        ))
                    }
                }
            }
        }
        Ok(l)
    }
}

/// The engine's answer: the field `/name` of the event, as text (the page
/// reads the fields questions ask about, see `EventKind::field`).
pub fn truth(event: &Event, pointer: &str) -> Option<String> {
    event.kind.field(pointer.strip_prefix('/')?)
}

/// Whether `e` is the `nth` event of its kind in `events` up to and including it.
pub fn occurrence(events: &[Event], index: usize) -> u32 {
    let name = events[index].kind.name_str();
    events[..=index]
        .iter()
        .filter(|e| e.kind.name_str() == name)
        .count() as u32
}

/// Checks, event by event as a run records them, that every question's
/// answer is a field of its event the page can read (what the page checks
/// when it opens a lesson).
pub struct AnswerCheck {
    /// (step index, its event reference, the answer's field, occurrences seen).
    pending: Vec<(usize, EventRef, String, u32)>,
    /// (step index, its `before` reference, occurrences seen).
    before: Vec<(usize, EventRef, u32)>,
}

impl AnswerCheck {
    pub fn new(lesson: &Lesson) -> AnswerCheck {
        AnswerCheck {
            pending: lesson
                .steps
                .iter()
                .enumerate()
                .filter_map(|(i, s)| Some((i, s.at.clone(), s.answer.clone()?, 0)))
                .collect(),
            before: lesson
                .steps
                .iter()
                .enumerate()
                .filter_map(|(i, s)| Some((i, s.before.clone()?, 0)))
                .collect(),
        }
    }

    /// Looks at the next event of the run.
    pub fn see(&mut self, e: &Event) -> Result<(), String> {
        for (_, b, seen) in &mut self.before {
            if *seen < b.nth && b.matches(e) {
                *seen += 1;
            }
        }
        for (i, at, answer, seen) in &mut self.pending {
            if *seen < at.nth && at.matches(e) {
                *seen += 1;
                let early = self
                    .before
                    .iter()
                    .find(|(k, b, got)| k == i && *got < b.nth && *seen == at.nth);
                if let Some((_, b, _)) = early {
                    return Err(format!(
                        "lesson.steps[{i}].before: no {} event (occurrence {}) comes before the step's {} event",
                        b.kind, b.nth, at.kind
                    ));
                }
                if *seen == at.nth && truth(e, answer).is_none() {
                    return Err(format!(
                        "lesson.steps[{i}].answer: a {} event has no field {answer} the page can read",
                        at.kind
                    ));
                }
            }
        }
        Ok(())
    }
}
