//! Lessons against a run: which events a step's reference counts, the
//! engine's answer to a question (a field of its event), and the check a run
//! makes that every question can be answered. Apart from `lesson` (the
//! format, which a scenario validates) so that `lesson` does not import
//! `event`: events carry the scenario's commands, and the format must not
//! depend back on them.

use crate::event::Event;
use crate::lesson::{EventRef, Lesson};
use crate::sim::World;

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

/// Whether a question's answer is read from Kafka's metrics
/// (`metric:NAME[.ATTRIBUTE]@NODE`) rather than from its event.
pub fn is_metric(answer: &str) -> bool {
    answer.starts_with("metric:")
}

/// The engine's answer to a metric question (`metric:NAME[.ATTRIBUTE]@NODE`,
/// e.g. `metric:UnderMinIsrPartitionCount@broker-0` or
/// `metric:FailedProduceRequestsPerSec.Count@broker-0`) in `w`, the world
/// right after the question's event: the value that metric of that process
/// reads, as the metrics view shows it. The attribute defaults to `Value`
/// for a gauge, `Count` for a meter or histogram, the metric itself for a
/// client metric. None if no such metric is read there.
pub fn metric_truth(w: &World, answer: &str) -> Option<String> {
    let (what, node) = answer.strip_prefix("metric:")?.split_once('@')?;
    let (name, attribute) = match what.split_once('.') {
        Some((n, a)) => (n, Some(a)),
        None => (what, None),
    };
    let def = crate::metrics::def(name)?;
    let attribute = attribute.unwrap_or(match def.kind {
        crate::metrics::Kind::Gauge => "Value",
        crate::metrics::Kind::Meter | crate::metrics::Kind::Histogram => "Count",
        crate::metrics::Kind::Client => def.name,
    });
    crate::metrics::read(w)
        .into_iter()
        .find(|r| r.name == name && r.attribute == attribute && r.node.to_string() == node)
        .map(|r| crate::metrics::display(r.value))
}

/// Whether a question is answered by the counterexample finder
/// (`explore:GUARANTEE`) rather than by its event.
pub fn is_explore(answer: &str) -> bool {
    answer.starts_with("explore:")
}

/// Checks every question to the finder in `lesson` against scenario `sc`:
/// the guarantee and fault kinds exist, the clients it keeps are the
/// scenario's, and the finder can search it. Cheap: nothing is run.
pub fn check_finder_questions(
    sc: &crate::scenario::Scenario,
    lesson: &Lesson,
) -> Result<(), String> {
    for (i, s) in lesson.steps.iter().enumerate() {
        if let (Some(a), Some(f)) = (s.answer.as_deref().filter(|a| is_explore(a)), &s.explore) {
            crate::explore::question::Question::new(sc, a, f)
                .map_err(|e| format!("lesson.steps[{i}].answer: {e}"))?;
        }
    }
    Ok(())
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

    /// Looks at the next event of the run (`w`: the world after the step
    /// that recorded it, where a metric answer is read).
    pub fn see(&mut self, e: &Event, w: &World) -> Result<(), String> {
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
                if is_explore(answer) {
                    // Answered by a search, not by this event.
                } else if *seen == at.nth && is_metric(answer) {
                    if metric_truth(w, answer).is_none() {
                        return Err(format!(
                            "lesson.steps[{i}].answer: {answer} is not a metric the page reads after the step's {} event (see kafka-sim metrics --list)",
                            at.kind
                        ));
                    }
                } else if *seen == at.nth && truth(e, answer).is_none() {
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
