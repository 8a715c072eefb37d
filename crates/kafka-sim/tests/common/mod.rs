//! Helpers shared by the trace-asserting integration tests.
#![allow(dead_code)]

use kafka_sim::caption::Lang;
use kafka_sim::event::EventKind;
use kafka_sim::ids::{BrokerId, TopicPartition};
use kafka_sim::{Event, Scenario, Timeline};

/// Runs a scenario to its end. With `DUMP=1` the trace is printed (shown by
/// `cargo test -- --nocapture`, or when the test fails).
pub fn run(json: &str) -> Timeline {
    let mut t = Timeline::new(Scenario::from_json(json).unwrap()).unwrap();
    t.run_to_end();
    if std::env::var_os("DUMP").is_some() {
        for e in t.events() {
            eprintln!("{:>5} {:>6} {}", e.id, e.time_ms, e.caption(Lang::En));
        }
    }
    t
}

/// Every event whose kind matches.
pub fn find(t: &Timeline, f: impl Fn(&EventKind) -> bool) -> Vec<&Event> {
    t.events().iter().filter(|e| f(&e.kind)).collect()
}

/// Values in the log of `tp` on `broker`, in offset order, leaving out
/// records whose value is `warm-up`.
pub fn log_values(t: &Timeline, broker: i32, tp: &TopicPartition) -> Vec<String> {
    let w = t.head();
    let b = &w.brokers()[&BrokerId(broker)];
    b.logs[tp]
        .decode_all(&b.disk)
        .unwrap()
        .iter()
        .flat_map(|x| {
            x.records
                .iter()
                .map(|r| String::from_utf8_lossy(r.value.as_deref().unwrap_or(b"")).into_owned())
                .collect::<Vec<_>>()
        })
        .filter(|v| v != "warm-up")
        .collect()
}
