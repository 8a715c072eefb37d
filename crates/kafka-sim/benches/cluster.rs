//! Cluster benchmarks (`cargo bench -p kafka-sim --bench cluster`):
//! * simulated throughput: records produced → replicated at RF 3 →
//!   acknowledged (acks=all), per second of real time, on 3 brokers / 6
//!   partitions and on 100 brokers / 3,000 partitions;
//! * the producer's partitioner + RecordAccumulator for 100-byte records;
//! * the scale series of issue 24 (`kafka_sim::scenario::scale`): 100
//!   brokers at 1,000 / 3,000 / 10,000 partitions with one group of 40,
//!   and 3,000 partitions with 10 groups of 40, in events per second (the
//!   40-group run takes about 25 s each time: `examples/scale.rs` reports
//!   it, with its memory, under `/usr/bin/time -v`).

use criterion::{black_box, criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use kafka_sim::event::EventKind;
use kafka_sim::{Scenario, World};
use std::sync::Arc;

fn scenario(
    brokers: usize,
    partitions: usize,
    records: usize,
    bursts: usize,
    until: u64,
) -> Scenario {
    let per = records / bursts;
    let cmds: Vec<String> = (0..bursts)
        .map(|i| {
            format!(
                r#"{{"at_ms": {}, "type": "produce", "producer": "p", "topic": "t", "key": "key-{i}", "value": "{}", "count": {per}}}"#,
                2000 + i as u64 * 10,
                "x".repeat(90)
            )
        })
        .collect();
    let ids: Vec<String> = (0..brokers).map(|b| b.to_string()).collect();
    Scenario::from_json(&format!(
        r#"{{"seed": 1, "run_until_ms": {until},
            "cluster": {{"brokers": [{}]}},
            "topics": [{{"name": "t", "partitions": {partitions}, "replication.factor": 3}}],
            "producers": [{{"name": "p", "config": {{"linger.ms": 5, "partitioner.ignore.keys": true}}}}],
            "commands": [{}]}}"#,
        ids.join(","),
        cmds.join(",")
    ))
    .expect("valid benchmark scenario")
}

/// Runs to the end; returns (acknowledged records, events).
fn run(sc: &Scenario) -> (u64, u64) {
    let mut w = World::new(Arc::new(sc.clone()));
    let (mut acked, mut events) = (0, 0);
    while w.step() {
        for e in w.drain_events() {
            events += 1;
            if matches!(e.kind, EventKind::RecordAcknowledged { .. }) {
                acked += 1;
            }
        }
    }
    (acked, events)
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("throughput (produce → RF 3 → acks=all)");
    g.sample_size(10);
    g.sampling_mode(SamplingMode::Flat);
    for (name, brokers, partitions, records, bursts, until) in [
        (
            "3 brokers, 6 partitions, 20,000 records",
            3,
            6,
            20_000,
            200,
            5_000,
        ),
        (
            "100 brokers, 3,000 partitions, 30,000 records",
            100,
            3000,
            30_000,
            300,
            6_000,
        ),
    ] {
        let sc = scenario(brokers, partitions, records, bursts, until);
        let (acked, events) = run(&sc);
        assert_eq!(
            acked as usize, records,
            "{name}: every record is acknowledged"
        );
        eprintln!("{name}: {events} events per run");
        g.throughput(Throughput::Elements(acked));
        g.bench_function(name, |b| b.iter(|| black_box(run(&sc))));
    }
    g.finish();

    // Partitioner + accumulator: 100,000 keyed 100-byte records into one
    // producer that never sends (linger.ms 10 minutes, 1 MB batches).
    let acc = Scenario::from_json(&format!(
        r#"{{"seed": 1, "run_until_ms": 1000, "cluster": {{"brokers": [0]}},
            "topics": [{{"name": "t", "partitions": 12}}],
            "producers": [{{"name": "p", "config": {{"linger.ms": 600000, "batch.size": 1048576, "delivery.timeout.ms": 700000}}}}],
            "commands": [{{"at_ms": 500, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "{}", "count": 100000}}]}}"#,
        "v".repeat(96)
    ))
    .unwrap();
    let mut g = c.benchmark_group("producer pipeline");
    g.sample_size(10);
    g.sampling_mode(SamplingMode::Flat);
    g.throughput(Throughput::Elements(100_000));
    g.bench_function("serialize + partition + accumulate 100-byte records", |b| {
        b.iter(|| black_box(run(&acc)))
    });
    g.finish();
}

fn scale(c: &mut Criterion) {
    let mut g = c.benchmark_group("scale (100 brokers, 3 x 30,000 records)");
    g.sample_size(10);
    g.sampling_mode(SamplingMode::Flat);
    for (partitions, groups) in [(1000, 1), (3000, 1), (10_000, 1), (3000, 10)] {
        let sc = Scenario::from_json(&kafka_sim::scenario::scale::scale(partitions, groups, 40))
            .expect("valid scale scenario");
        let (_, events) = run(&sc);
        eprintln!("{partitions} partitions, {groups} group(s) of 40: {events} events per run");
        g.throughput(Throughput::Elements(events));
        g.bench_function(
            format!("{partitions} partitions, {groups} group(s) of 40"),
            |b| b.iter(|| black_box(run(&sc))),
        );
    }
    g.finish();
}

criterion_group!(benches, bench, scale);
criterion_main!(benches);
