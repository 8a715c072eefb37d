//! Runs a scenario file with no timeline (no checkpoints) and prints counts:
//! `cargo run --release -p kafka-sim --example headless -- SCENARIO.json`
use kafka_sim::{Scenario, World};
use std::sync::Arc;
fn main() {
    let path = std::env::args().nth(1).expect("SCENARIO.json");
    let sc = Scenario::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let t0 = std::time::Instant::now();
    let mut w = World::new(Arc::new(sc));
    let (mut events, mut steps) = (0u64, 0u64);
    let mut kinds: std::collections::BTreeMap<String, u64> = Default::default();
    while w.step() {
        steps += 1;
        for e in w.drain_events() {
            events += 1;
            *kinds.entry(e.kind.name()).or_default() += 1;
        }
        if steps % 200_000 == 0 {
            eprintln!(
                "{} ms simulated, {events} events, {:?}",
                w.now(),
                t0.elapsed()
            );
        }
    }
    let mut k: Vec<_> = kinds.into_iter().collect();
    k.sort_by_key(|x| std::cmp::Reverse(x.1));
    println!(
        "{events} events in {:?}; top: {:?}",
        t0.elapsed(),
        &k[..k.len().min(8)]
    );
}
