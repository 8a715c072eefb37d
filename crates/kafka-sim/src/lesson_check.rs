//! Lessons against a run: which events a step's reference counts, the
//! engine's answer to a question (a field of its event), and the check a run
//! makes that every question can be answered. Apart from `lesson` (the
//! format, which a scenario validates) so that `lesson` does not import
//! `event`: events carry the scenario's commands, and the format must not
//! depend back on them.

use crate::event::Event;
use crate::lesson::{EventRef, Lesson};

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
    /// The checker for `lesson`'s questions.
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
