//! The shipped lessons (`static/lessons/`), natively: each one is listed in
//! the index, opens, finds every step's event, and every question's right
//! answer is among its choices and graded right; together they cover every
//! concept ID of the checklist.
#![cfg(not(target_arch = "wasm32"))]

use kafka_sim::collections::SortedSet;
use kafka_visualiser::lessons::{LessonIndex, LESSONS_DIR};
use kafka_visualiser::state::{load_scenario, LessonState};
use std::path::PathBuf;

/// The checklist's IDs (docs/concepts.md): (taught by the notes' lessons,
/// planned beyond the notes).
fn concepts() -> (SortedSet<String>, SortedSet<String>) {
    let text =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/concepts.md"))
            .unwrap();
    let (notes, beyond) = text
        .split_once("## Beyond the notes")
        .expect("docs/concepts.md has its \"Beyond the notes\" section");
    let ids = |t: &str| -> SortedSet<String> {
        t.lines()
            .filter_map(|l| l.strip_prefix("- "))
            .filter_map(|l| l.split_whitespace().next())
            .map(str::to_string)
            .collect()
    };
    (ids(notes), ids(beyond))
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(LESSONS_DIR)
}

fn index() -> LessonIndex {
    let text = std::fs::read_to_string(dir().join("index.json")).unwrap();
    LessonIndex::from_json(&text).unwrap()
}

#[test]
fn every_lesson_file_is_in_the_index_and_every_entry_exists() {
    let listed: SortedSet<String> = index().lessons.iter().map(|l| l.file.clone()).collect();
    let on_disk: SortedSet<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json") && n != "index.json")
        .collect();
    assert_eq!(listed, on_disk);
}

/// Opens one lesson, checks every step and grades every question; returns
/// its concepts and how many questions it asks.
fn check_lesson(file: &str, text: &str) -> (Vec<String>, usize) {
    let mut player = load_scenario(file, text).unwrap_or_else(|e| panic!("{e}"));
    let lesson = LessonState::load(&mut player)
        .unwrap_or_else(|e| panic!("{file}: {e}"))
        .unwrap_or_else(|| panic!("{file}: no lesson"));
    let mut questions = 0;
    let mut last = None;
    for (k, step) in lesson.lesson.steps.iter().enumerate() {
        let at = lesson
            .target(k)
            .unwrap_or_else(|| panic!("{file}: step {k}: its event never happens"));
        // Steps follow the story in order.
        assert!(
            last.is_none_or(|l| at >= l),
            "{file}: step {k} comes before step {}",
            k - 1
        );
        last = Some(at);
        if step.ask.is_some() {
            let (_, truth) = lesson.grade(&player, k, "").unwrap();
            assert!(
                step.choices.contains(&truth),
                "{file}: step {k}: the engine says {truth:?}, not among {:?}",
                step.choices
            );
            assert_eq!(
                lesson.grade(&player, k, &truth),
                Some((true, truth.clone()))
            );
            let wrong = step.choices.iter().find(|c| **c != truth).unwrap();
            assert_eq!(lesson.grade(&player, k, wrong).map(|g| g.0), Some(false));
            questions += 1;
        }
    }
    // The whole scenario runs to its end.
    while player.step_significant() {}
    assert!(player.at_end(), "{file}");
    (lesson.lesson.concepts.clone(), questions)
}

#[test]
fn every_lesson_plays_to_the_end_and_every_question_is_answered_right_by_the_engine() {
    let mut covered = SortedSet::new();
    let mut questions = 0;
    for entry in index().lessons {
        let text = std::fs::read_to_string(dir().join(&entry.file)).unwrap();
        let title = kafka_sim::Scenario::from_json(&text).unwrap().name;
        assert_eq!(
            title, entry.title.en,
            "{}: the index's title is the scenario's name",
            entry.file
        );
        let (concepts, n) = check_lesson(&entry.file, &text);
        assert_eq!(
            concepts, entry.concepts,
            "{}: the index lists the lesson's concepts",
            entry.file
        );
        covered.extend(concepts);
        questions += n;
    }
    // The built-in examples' lessons (the page's Examples menu) count too.
    for file in kafka_visualiser::state::EXAMPLES {
        let text = &std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("scenarios")
                .join(file),
        )
        .unwrap();
        if serde_json::from_str::<serde_json::Value>(text)
            .unwrap()
            .get("lesson")
            .is_some()
        {
            let (concepts, n) = check_lesson(file, text);
            covered.extend(concepts);
            questions += n;
        }
    }
    let (notes, beyond) = concepts();
    for c in &notes {
        assert!(covered.contains(c), "no lesson teaches {c}");
    }
    for c in &covered {
        assert!(
            notes.contains(c) || beyond.contains(c),
            "a lesson names {c}, which docs/concepts.md does not list"
        );
    }
    assert!(questions >= 40, "only {questions} questions");
}

#[test]
fn the_checklist_is_in_the_repository_with_every_id_once() {
    let (notes, beyond) = concepts();
    assert_eq!(
        notes.len(),
        37,
        "C1-C5, R1-R7, S1-S7, P1-P6, G1-G12: {notes:?}"
    );
    for id in ["T1", "T2", "T3", "A1", "M1", "M2"] {
        assert!(beyond.contains(id), "{id} is missing from docs/concepts.md");
    }
    assert!(notes.iter().all(|id| !beyond.contains(id)));
}
