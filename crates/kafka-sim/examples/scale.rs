//! The scale scenarios of issue 24, generated from the documented format and
//! run headless (no trace kept), reporting events, CPU time and µs per
//! event. Measure memory around it:
//! `/usr/bin/time -v target/release/examples/scale PARTITIONS GROUPS [MEMBERS] [--write FILE]`
//!
//! * 100 brokers, `PARTITIONS` partitions at RF 3 over 30 topics;
//! * 3 producers writing 30,000 records each (bursts of 100 from 2 s on);
//! * `GROUPS` consumer groups of `MEMBERS` (default 40) members, every group
//!   subscribed to all 30 topics, so each group spreads all partitions over
//!   its members.
//!
//! `--write FILE` also saves the scenario, to run it with the CLI or open
//! it in the page. `--one-topic` makes issue 46's variant: one topic of
//! `PARTITIONS` partitions that every group subscribes to, 15 s.
use kafka_sim::scenario::scale::{one_topic, scale};
use kafka_sim::{Scenario, World};
use std::sync::Arc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: usize| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (partitions, groups, members) = (num(0, 3000), num(1, 40), num(2, 40));
    let text = if args.iter().any(|a| a == "--one-topic") {
        one_topic(partitions, groups, members)
    } else {
        scale(partitions, groups, members)
    };
    if let Some(i) = args.iter().position(|a| a == "--write") {
        std::fs::write(&args[i + 1], &text).expect("writable");
    }
    let sc = Scenario::from_json(&text).unwrap_or_else(|e| panic!("{e}"));
    let t0 = std::time::Instant::now();
    let mut w = World::new(Arc::new(sc));
    let mut events = 0u64;
    // The partition entries the messages carry: per-partition work, which
    // a larger cluster does more of in each fetch, as Kafka does.
    let mut entries = 0u64;
    while w.step() {
        for e in w.drain_events() {
            events += 1;
            if let kafka_sim::event::EventKind::MessageSent { message, .. } = &e.kind {
                entries += message.partition_entries() as u64;
            }
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "100 brokers, {partitions} partitions, {groups} groups x {members}: {events} events in {secs:.2} s ({:.2} us/event), simulated to {} ms; {entries} partition entries in messages ({:.2} us per event + entry)",
        secs * 1e6 / events.max(1) as f64,
        w.now(),
        secs * 1e6 / (events + entries).max(1) as f64
    );
}
