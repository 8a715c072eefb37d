//! Golden traces: scenario + seed → the narrated events, compared as text,
//! for every shipped scenario and lesson; and each one's digest over every
//! event (routine ones too) in `golden/digests.txt`.
//! Regenerate on purpose with `UPDATE_GOLDEN=1 cargo test -p kafka-sim --test golden`
//! and review the diff.

use kafka_sim::event::Importance;
use kafka_sim::names::ClientNames;
use kafka_sim::{Lang, Scenario, Timeline};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run(name: &str) -> Timeline {
    run_file(&root().join(format!("scenarios/{name}.json")))
}

fn run_file(path: &std::path::Path) -> Timeline {
    let text = std::fs::read_to_string(path).unwrap();
    let mut t = Timeline::new(Scenario::from_json(&text).unwrap()).unwrap();
    t.run_to_end();
    t
}

/// Every scenario the project ships: the examples and the lessons, by name.
fn shipped() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for dir in ["scenarios", "static/lessons"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let stem = path.file_stem().unwrap().to_string_lossy().to_string();
            if path.extension().is_some_and(|e| e == "json") && stem != "index" {
                out.push((stem, path));
            }
        }
    }
    out.sort();
    out
}

/// The narrated events (routine ones left out), clients by their names.
fn narrate(t: &Timeline, lang: Lang) -> String {
    let names = ClientNames::from_world(t.head());
    t.events()
        .iter()
        .filter(|e| e.kind.importance() > Importance::Routine)
        .map(|e| {
            format!(
                "#{} {} ms  {}\n",
                e.id,
                e.time_ms,
                names.apply(&e.caption(lang))
            )
        })
        .collect()
}

/// The golden file of a scenario's narration in `lang`.
fn narration_file(name: &str, lang: Lang) -> String {
    format!("{name}.{}.txt", if lang == Lang::En { "en" } else { "zh" })
}

/// Compares `actual` with `crates/kafka-sim/tests/golden/<file>`.
fn check(file: &str, actual: &str) {
    let path = root().join("crates/kafka-sim/tests/golden").join(file);
    if std::env::var("UPDATE_GOLDEN").is_ok() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected != actual {
        let first = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{file}: trace differs from {} at line {}:\n  expected: {:?}\n  actual:   {:?}\n(UPDATE_GOLDEN=1 to regenerate, then review the diff)",
            path.display(),
            first + 1,
            expected.lines().nth(first),
            actual.lines().nth(first)
        );
    }
}

#[test]
fn leader_failover_golden_trace_in_chinese() {
    // (Its English narration is checked with every shipped scenario's.)
    let t = run("leader-failover");
    check(
        &narration_file("leader-failover", Lang::Zh),
        &narrate(&t, Lang::Zh),
    );
}

/// A golden for each shipped scenario: its narration in English, and its
/// digest over all events. A new scenario or lesson fails here until its
/// golden is written (UPDATE_GOLDEN=1), so none ships unpinned.
#[test]
fn every_shipped_scenario_has_a_golden_trace() {
    let scenarios = shipped();
    assert!(scenarios.len() >= 16, "{} scenarios found", scenarios.len());
    let mut digests = String::new();
    for (name, path) in &scenarios {
        let t = run_file(path);
        digests.push_str(&format!(
            "{name} {:016x} {}\n",
            t.digest(),
            t.events().len()
        ));
        check(&narration_file(name, Lang::En), &narrate(&t, Lang::En));
    }
    check("digests.txt", &digests);
}

#[test]
fn digest_is_pinned_and_shared_with_the_browser_test() {
    let t = run("leader-failover");
    let actual = format!("{:016x}", t.digest());
    if std::env::var("UPDATE_GOLDEN").is_ok() {
        std::fs::write(
            root().join("scenarios/leader-failover.digest"),
            format!("{actual}\n"),
        )
        .unwrap();
        return;
    }
    let pinned = std::fs::read_to_string(root().join("scenarios/leader-failover.digest")).unwrap();
    assert_eq!(
        actual,
        pinned.trim(),
        "the trace changed: if on purpose, UPDATE_GOLDEN=1 and review the golden diff"
    );
}

/// Every metric of `leader-failover`, read every 500 ms, as one number:
/// what the browser test must get too.
fn metrics_fingerprint() -> String {
    let sc = Scenario::from_json(
        &std::fs::read_to_string(root().join("scenarios/leader-failover.json")).unwrap(),
    )
    .unwrap();
    format!("{:016x}", kafka_sim::metrics::fingerprint(sc, 500).unwrap())
}

#[test]
fn metrics_are_pinned_and_shared_with_the_browser_test() {
    let actual = metrics_fingerprint();
    let path = root().join("scenarios/leader-failover.metrics-digest");
    if std::env::var("UPDATE_GOLDEN").is_ok() {
        std::fs::write(&path, format!("{actual}\n")).unwrap();
        return;
    }
    let pinned = std::fs::read_to_string(path).unwrap();
    assert_eq!(
        actual,
        pinned.trim(),
        "the metrics changed: if on purpose, UPDATE_GOLDEN=1"
    );
}

#[test]
fn same_scenario_same_trace_byte_for_byte() {
    let a = run("leader-failover");
    let b = run("leader-failover");
    let ja: Vec<String> = a
        .events()
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect();
    let jb: Vec<String> = b
        .events()
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect();
    assert_eq!(ja, jb);
    // And events round-trip through JSON.
    let back: kafka_sim::Event = serde_json::from_str(&ja[ja.len() / 2]).unwrap();
    assert_eq!(&back, &a.events()[ja.len() / 2]);
}
