//! Golden traces: scenario + seed → the narrated events, compared as text.
//! Regenerate on purpose with `UPDATE_GOLDEN=1 cargo test -p kafka-sim --test golden`
//! and review the diff.

use kafka_sim::event::Importance;
use kafka_sim::{Lang, Scenario, Timeline};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run(name: &str) -> Timeline {
    let text = std::fs::read_to_string(root().join(format!("scenarios/{name}.json"))).unwrap();
    let mut t = Timeline::new(Scenario::from_json(&text).unwrap()).unwrap();
    t.run_to_end();
    t
}

fn narrate(t: &Timeline, lang: Lang) -> String {
    t.events()
        .iter()
        .filter(|e| e.kind.importance() > Importance::Routine)
        .map(|e| format!("#{} {} ms  {}\n", e.id, e.time_ms, e.caption(lang)))
        .collect()
}

fn check(name: &str, lang: Lang, actual: &str) {
    let path = root().join(format!(
        "crates/kafka-sim/tests/golden/{name}.{}.txt",
        if lang == Lang::En { "en" } else { "zh" }
    ));
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
            "{name}: trace differs from {} at line {}:\n  expected: {:?}\n  actual:   {:?}\n(UPDATE_GOLDEN=1 to regenerate, then review the diff)",
            path.display(),
            first + 1,
            expected.lines().nth(first),
            actual.lines().nth(first)
        );
    }
}

#[test]
fn leader_failover_golden_trace() {
    let t = run("leader-failover");
    check("leader-failover", Lang::En, &narrate(&t, Lang::En));
    check("leader-failover", Lang::Zh, &narrate(&t, Lang::Zh));
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
