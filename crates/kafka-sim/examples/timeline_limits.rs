//! Runs a scenario the way the page does (a `Timeline` keeping every event
//! and its checkpoints) up to an event cap, and reports what it took, for the
//! limits in docs/scenario-format.md. Measure memory around it:
//! `/usr/bin/time -v target/release/examples/timeline_limits SCENARIO.json [MAX_EVENTS]`
use kafka_sim::{Scenario, Timeline};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("SCENARIO.json [MAX_EVENTS]");
    let cap: u64 = args
        .next()
        .map(|n| n.parse().expect("MAX_EVENTS"))
        .unwrap_or(1_000_000);
    let text = std::fs::read_to_string(&path).expect("readable");
    let sc = Scenario::from_json(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let t0 = std::time::Instant::now();
    let mut t = Timeline::new(sc).expect("valid");
    t.set_max_events(cap);
    t.run_to_end();
    let ran = t0.elapsed();
    let t1 = std::time::Instant::now();
    let _ = t.state_at(t.len() / 2);
    println!(
        "{} events, {} checkpoints, simulated to {} ms in {:.2} s; a seek to the middle {:.1} ms; stopped early: {}",
        t.len(),
        t.checkpoints(),
        t.head().now(),
        ran.as_secs_f64(),
        t1.elapsed().as_secs_f64() * 1000.0,
        t.stopped_early().unwrap_or_else(|| "no".into())
    );
}
