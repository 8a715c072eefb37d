use super::*;
use crate::{Scenario, Timeline};

fn repo_file(path: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn every_metric_is_documented_once_in_both_languages() {
    let mut names: Vec<&str> = defs().map(|d| d.name).collect();
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), n, "a metric is defined twice");
    for d in defs() {
        assert!(d.mbean.starts_with("kafka."), "{}", d.name);
        for text in [d.meaning, d.meaning_zh, d.computed, d.mirrors] {
            assert!(!text.trim().is_empty(), "{}", d.name);
        }
        assert!(
            d.meaning_zh
                .chars()
                .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
            "{}: the Chinese meaning is not Chinese",
            d.name
        );
        assert!(d.mirrors.contains("Kafka 3.9"), "{}", d.name);
    }
}

#[test]
fn every_metric_is_read_under_its_own_mbean() {
    // A run with brokers, a producer and a consumer group reads every metric.
    let mut seen = std::collections::BTreeSet::new();
    for path in [
        "scenarios/group-rebalance.json",
        "scenarios/leader-failover.json",
    ] {
        let mut t = Timeline::new(Scenario::from_json(&repo_file(path)).unwrap()).unwrap();
        let end = t.run_to_end();
        for n in [end / 2, end] {
            for r in read(&t.state_at(n)) {
                let d = def(r.name).expect("defined");
                assert!(
                    r.mbean.starts_with(d.mbean),
                    "{} under {}",
                    r.mbean,
                    d.mbean
                );
                match d.kind {
                    Kind::Gauge => assert_eq!(r.attribute, "Value"),
                    Kind::Meter => assert!(["Count", "OneMinuteRate"].contains(&r.attribute)),
                    Kind::Client => assert_eq!(r.attribute, d.name),
                    Kind::Histogram => assert!(
                        r.attribute == "Count"
                            || r.attribute == "OneMinuteRate"
                            || r.attribute.ends_with("Percentile")
                            || r.attribute == "Mean"
                            || r.attribute == "Max"
                    ),
                }
                seen.insert(r.name);
            }
        }
    }
    let missing: Vec<&str> = defs()
        .map(|d| d.name)
        .filter(|n| !seen.contains(n))
        .collect();
    assert!(missing.is_empty(), "never read: {missing:?}");
}

#[test]
fn what_moved_lists_changed_and_new_series() {
    let json = repo_file("scenarios/leader-failover.json");
    let mut t = Timeline::new(Scenario::from_json(&json).unwrap()).unwrap();
    let end = t.run_to_end();
    let appended = t
        .events()
        .iter()
        .position(|e| matches!(e.kind, EventKind::BatchAppended { leader: true, .. }))
        .unwrap() as u64;
    let before = read(&t.state_at(appended));
    let after = read(&t.state_at(appended + 1));
    let changed = |before: &[Reading], after: &[Reading]| -> Vec<Reading> {
        previous(before, after)
            .into_iter()
            .zip(after)
            .filter(|(b, r)| moved(*b, r.value))
            .map(|(_, r)| r.clone())
            .collect()
    };
    let m = changed(&before, &after);
    assert!(m
        .iter()
        .any(|r| r.name == "MessagesInPerSec" && r.attribute == "Count"));
    assert!(m.iter().any(|r| r.name == "LogEndOffset"));
    assert!(!m.iter().any(|r| r.name == "LeaderCount"));
    // The same read twice moves nothing (NaN included).
    let again = read(&t.state_at(end));
    assert!(changed(&again, &read(&t.state_at(end))).is_empty());
    // Where the lists part (a series gone, the rest shifted), each series
    // still finds its own earlier value, and a new one has none.
    let mut shifted = again.clone();
    let gone = shifted.remove(3);
    let prev = previous(&shifted, &again);
    assert_eq!(prev.len(), again.len());
    for (i, (p, r)) in prev.iter().zip(&again).enumerate() {
        if i == 3 {
            assert_eq!(*p, None, "{} is new", gone.mbean);
        } else {
            assert!(
                p.is_some_and(|v| v == r.value || v.is_nan() && r.value.is_nan()),
                "{i}"
            );
        }
    }
}

#[test]
fn values_display_as_people_read_them() {
    assert_eq!(display(3.0), "3");
    assert_eq!(display(0.2), "0.200");
    assert_eq!(display(f64::NAN), "NaN");
    assert_eq!(display(-1.0), "-1");
}
