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

/// A file of the repository, by its path from the root
/// (`scenarios/leader-failover.json`, `static/lessons/racks.json`).
pub fn repo_file(path: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
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

/// How many seeds a sweep runs: the environment variable `var` if set
/// (`FAULT_SEEDS=5000`), else `default`.
pub fn seeds(var: &str, default: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs `check` on seeds `0..n` and fails with the number of failed seeds
/// and the first failure's message; returns every passing seed's result.
pub fn sweep<T>(n: u64, check: impl Fn(u64) -> Result<T, String>) -> Vec<T> {
    let mut passed = Vec::new();
    let mut failures = Vec::new();
    for seed in 0..n {
        match check(seed) {
            Ok(t) => passed.push(t),
            Err(msg) => failures.push(msg),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} seeds failed; first:\n{}",
        failures.len(),
        failures[0]
    );
    passed
}

/// A sweep's single-seed mode, to look at a failure: with `{name}_SEED=n`
/// it checks seed `n` alone (panicking with its message), or with
/// `{name}_JSON` set too prints that seed's scenario instead. Returns
/// whether it ran (the sweep then stops).
pub fn one_seed<T>(
    name: &str,
    scenario: impl Fn(u64) -> String,
    check: impl Fn(u64) -> Result<T, String>,
) -> bool {
    let Ok(one) = std::env::var(format!("{name}_SEED")) else {
        return false;
    };
    let seed: u64 = one.parse().expect("a seed number");
    if std::env::var_os(format!("{name}_JSON")).is_some() {
        println!("{}", scenario(seed));
    } else if let Err(e) = check(seed) {
        panic!("{e}");
    }
    true
}

/// The sweeps' loop over one seed: builds the world of `json`, steps it
/// to the end and stops at the first `guarantee_broken` event or world
/// invariant broken (`check_world`), checked after every step. `on_event`
/// sees each event; `after_step` sees the world after each step (with the
/// number of events so far) and may fail the seed. Returns the world at
/// the end and the number of events.
pub fn run_checked(
    seed: u64,
    json: &str,
    mut on_event: impl FnMut(&Event),
    mut after_step: impl FnMut(&kafka_sim::World, u64) -> Result<(), String>,
) -> Result<(kafka_sim::World, u64), String> {
    let sc = Scenario::from_json(json)
        .map_err(|e| format!("seed {seed}: bad generated scenario: {e}\n{json}"))?;
    let mut w = kafka_sim::World::new(std::sync::Arc::new(sc));
    let mut events = 0u64;
    while w.step() {
        for e in w.drain_events() {
            events += 1;
            if let EventKind::GuaranteeBroken {
                guarantee, detail, ..
            } = &e.kind
            {
                return Err(format!(
                    "seed {seed}: event #{} at {} ms broke {guarantee:?}: {detail}\n{json}",
                    e.id, e.time_ms
                ));
            }
            on_event(&e);
        }
        let v = w.check_invariants();
        if !v.is_empty() {
            return Err(format!("seed {seed} at {} ms: {v:?}\n{json}", w.now()));
        }
        after_step(&w, events).map_err(|m| {
            format!(
                "seed {seed} at {} ms (event {events}): {m}\n{json}",
                w.now()
            )
        })?;
    }
    Ok((w, events))
}
