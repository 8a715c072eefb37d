//! The learner's progress, kept in the browser (localStorage) between visits:
//! the questions answered in each lesson and the Practice score.
//!
//! Stored as small versioned text, one line per lesson:
//!
//! ```text
//! kafka-visualiser progress 1
//! lesson storage-lookup 5 0=1 2=0
//! practice 12 9
//! ```
//!
//! (`lesson SLUG QUESTIONS STEP=RIGHT…`, `practice ANSWERED RIGHT`). Data that
//! cannot be read (another version, a damaged line) is reset with a message
//! saying why; it never stops the page.

use kafka_sim::collections::SortedMap;

pub const KEY: &str = "kafka-visualiser.progress";
const HEADER: &str = "kafka-visualiser progress 1";

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LessonProgress {
    /// How many questions the lesson asks.
    pub questions: u32,
    /// Lesson step → answered right (the latest answer counts).
    pub answers: SortedMap<u32, bool>,
}

impl LessonProgress {
    pub fn right(&self) -> usize {
        self.answers.values().filter(|r| **r).count()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    pub lessons: SortedMap<String, LessonProgress>,
    pub practice_answered: u32,
    pub practice_right: u32,
}

impl Progress {
    /// Reads saved progress, naming what is wrong with it.
    pub fn parse(text: &str) -> Result<Progress, String> {
        let mut lines = text.lines();
        match lines.next() {
            Some(HEADER) => {}
            Some(h) if h.starts_with("kafka-visualiser progress ") => {
                return Err(format!(
                    "it was saved by another version ({:?})",
                    h.trim_start_matches("kafka-visualiser progress ")
                ))
            }
            _ => return Err("it is not Kafka Visualiser progress data".into()),
        }
        let mut p = Progress::default();
        for (n, line) in lines.enumerate() {
            let bad = || format!("line {} is damaged: {line:?}", n + 2);
            let mut w = line.split(' ');
            match w.next() {
                Some("lesson") => {
                    let slug = w.next().filter(|s| !s.is_empty()).ok_or_else(bad)?;
                    let questions = w.next().and_then(|q| q.parse().ok()).ok_or_else(bad)?;
                    let mut answers = SortedMap::new();
                    for a in w {
                        let (k, r) = a.split_once('=').ok_or_else(bad)?;
                        let k = k.parse().map_err(|_| bad())?;
                        let r = match r {
                            "1" => true,
                            "0" => false,
                            _ => return Err(bad()),
                        };
                        answers.insert(k, r);
                    }
                    p.lessons
                        .insert(slug.to_string(), LessonProgress { questions, answers });
                }
                Some("practice") => {
                    let mut num = || w.next().and_then(|x| x.parse::<u32>().ok()).ok_or_else(bad);
                    p.practice_answered = num()?;
                    p.practice_right = num()?;
                }
                Some("") | None => {}
                Some(_) => return Err(bad()),
            }
        }
        Ok(p)
    }

    pub fn to_text(&self) -> String {
        let mut out = format!("{HEADER}\n");
        for (slug, l) in &self.lessons {
            out += &format!("lesson {slug} {}", l.questions);
            for (k, r) in &l.answers {
                out += &format!(" {k}={}", u8::from(*r));
            }
            out.push('\n');
        }
        out += &format!(
            "practice {} {}\n",
            self.practice_answered, self.practice_right
        );
        out
    }

    /// Records an answer to lesson step `k` (slugs are plain names: no spaces).
    pub fn record_lesson(&mut self, slug: &str, questions: u32, k: u32, right: bool) {
        let slug: String = slug.chars().filter(|c| !c.is_whitespace()).collect();
        let l = self.lessons.entry(slug).or_default();
        l.questions = questions;
        l.answers.insert(k, right);
    }

    pub fn record_practice(&mut self, right: bool) {
        self.practice_answered += 1;
        self.practice_right += u32::from(right);
    }
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// The saved progress, and a message if what was saved had to be reset.
pub fn load() -> (Progress, Option<String>) {
    let Some(text) = storage().and_then(|s| s.get_item(KEY).ok().flatten()) else {
        return (Progress::default(), None);
    };
    match Progress::parse(&text) {
        Ok(p) => (p, None),
        Err(why) => {
            let fresh = Progress::default();
            save(&fresh);
            (
                fresh,
                Some(format!(
                    "Your saved progress could not be read ({why}), so it was reset."
                )),
            )
        }
    }
}

pub fn save(p: &Progress) {
    if let Some(s) = storage() {
        let _ = s.set_item(KEY, &p.to_text());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_round_trips_through_its_text() {
        let mut p = Progress::default();
        p.record_lesson("storage-lookup", 5, 2, true);
        p.record_lesson("storage-lookup", 5, 4, false);
        p.record_lesson("leader election", 3, 1, true);
        p.record_practice(true);
        p.record_practice(false);
        let back = Progress::parse(&p.to_text()).unwrap();
        assert_eq!(back, p);
        assert_eq!(back.lessons["storage-lookup"].right(), 1);
        assert!(back.lessons.contains_key("leaderelection"));
        assert_eq!((back.practice_answered, back.practice_right), (2, 1));
    }

    #[test]
    fn unreadable_progress_is_refused_with_the_reason() {
        assert!(Progress::parse("{\"json\": true}")
            .unwrap_err()
            .contains("not Kafka Visualiser"));
        assert!(Progress::parse("kafka-visualiser progress 7\n")
            .unwrap_err()
            .contains("another version"));
        let e = Progress::parse("kafka-visualiser progress 1\nlesson x 3 1=yes\n").unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        let e = Progress::parse("kafka-visualiser progress 1\npractice 1\n").unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        assert_eq!(
            Progress::parse("kafka-visualiser progress 1\n"),
            Ok(Progress::default())
        );
    }
}
