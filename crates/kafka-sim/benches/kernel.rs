//! Kernel benchmarks: building a long trace, and seeking in it (the cost of
//! "step back" and of jumping anywhere on the timeline).
//!
//! Run with `cargo bench -p kafka-sim --bench kernel`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use kafka_sim::{Scenario, Timeline};

/// Three brokers, six partitions at RF 3, a producer sending 30,000 keyed
/// records in bursts: well over 100,000 events.
pub fn busy_scenario() -> Scenario {
    let mut commands = Vec::new();
    for i in 0..300 {
        commands.push(format!(
            r#"{{"at_ms": {}, "type": "produce", "producer": "p", "topic": "t", "key": "k{i}", "value": "v", "count": 100}}"#,
            100 + i * 50
        ));
    }
    let json = format!(
        r#"{{"seed": 1, "run_until_ms": 20000,
            "cluster": {{"brokers": [0, 1, 2]}},
            "topics": [{{"name": "t", "partitions": 6, "replication.factor": 3}}],
            "producers": [{{"name": "p", "config": {{"linger.ms": 5}}}}],
            "commands": [{}]}}"#,
        commands.join(",")
    );
    Scenario::from_json(&json).expect("valid benchmark scenario")
}

fn bench(c: &mut Criterion) {
    let mut t = Timeline::new(busy_scenario()).unwrap();
    let n = t.extend_to(100_000);
    assert!(
        n >= 100_000,
        "the benchmark scenario is too short: {n} events"
    );
    eprintln!("trace: {n} events, {} checkpoints", t.checkpoints());

    let mut g = c.benchmark_group("kernel");
    g.sample_size(20);
    g.bench_function("simulate 100k events", |b| {
        b.iter(|| {
            let mut t = Timeline::new(busy_scenario()).unwrap();
            black_box(t.extend_to(100_000))
        })
    });
    let mut x: u64 = 12345;
    g.bench_function("seek to a random step of 100k", |b| {
        b.iter(|| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let target = (x >> 33) % 100_000;
            black_box(t.state_at(target).events_emitted())
        })
    });
    g.bench_function("step back from step 99,999", |b| {
        b.iter(|| black_box(t.state_at(99_998).events_emitted()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
