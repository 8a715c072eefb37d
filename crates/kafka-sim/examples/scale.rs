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
//! it in the page.
use kafka_sim::{Scenario, World};
use std::sync::Arc;

fn scenario(partitions: usize, groups: usize, members: usize) -> String {
    let topics = 30usize.min(partitions.max(1));
    let per_topic = partitions / topics;
    let topic_json: Vec<String> = (0..topics)
        .map(|t| {
            format!(r#"{{"name": "t{t}", "partitions": {per_topic}, "replication.factor": 3}}"#)
        })
        .collect();
    let producers: Vec<String> = (0..3)
        .map(|p| format!(r#"{{"name": "p{p}", "config": {{"linger.ms": 5, "partitioner.ignore.keys": true}}}}"#))
        .collect();
    let mut cmds = Vec::new();
    for p in 0..3 {
        for burst in 0..300 {
            cmds.push(format!(
                r#"{{"at_ms": {}, "type": "produce", "producer": "p{p}", "topic": "t{}", "key": "k", "value": "{}", "count": 100}}"#,
                2000 + burst * 20 + p * 7,
                (burst as usize + p as usize) % topics,
                "x".repeat(90)
            ));
        }
    }
    let topic_names: Vec<String> = (0..topics).map(|t| format!("\"t{t}\"")).collect();
    let mut consumers = Vec::new();
    for g in 0..groups {
        for m in 0..members {
            consumers.push(format!(
                r#"{{"name": "g{g}-c{m}", "subscribe": [{}], "config": {{"group.id": "g{g}", "auto.offset.reset": "earliest"}}}}"#,
                topic_names.join(",")
            ));
        }
    }
    let brokers: Vec<String> = (0..100).map(|b| b.to_string()).collect();
    format!(
        r#"{{"seed": 1, "run_until_ms": 12000,
            "cluster": {{"brokers": [{}], "config": {{"offsets.topic.num.partitions": 50}}}},
            "topics": [{}],
            "producers": [{}],
            "consumers": [{}],
            "commands": [{}]}}"#,
        brokers.join(","),
        topic_json.join(","),
        producers.join(","),
        consumers.join(","),
        cmds.join(",")
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: usize| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (partitions, groups, members) = (num(0, 3000), num(1, 40), num(2, 40));
    let text = scenario(partitions, groups, members);
    if let Some(i) = args.iter().position(|a| a == "--write") {
        std::fs::write(&args[i + 1], &text).expect("writable");
    }
    let sc = Scenario::from_json(&text).unwrap_or_else(|e| panic!("{e}"));
    let t0 = std::time::Instant::now();
    let mut w = World::new(Arc::new(sc));
    let mut events = 0u64;
    while w.step() {
        events += w.drain_events().len() as u64;
    }
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "100 brokers, {partitions} partitions, {groups} groups x {members}: {events} events in {secs:.2} s ({:.1} us/event), simulated to {} ms",
        secs * 1e6 / events.max(1) as f64,
        w.now()
    );
}
