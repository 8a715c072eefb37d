//! Assignor benchmarks (`cargo bench -p kafka-sim --bench assignor`).
//!
//! Kafka's own large case (`AbstractStickyAssignorTest.
//! testLargeAssignmentAndGroupWithUniformSubscription`, which allows 30 s on
//! the JVM): 500 topics × 2,000 partitions = 1,000,000 partitions, 2,000
//! members all subscribing to every topic. Measured: the first assignment,
//! and the rebalance after `consumer0` leaves (every other member reporting
//! what it owns, so the sticky path keeps it). Range and round robin on the
//! same group for comparison.

use criterion::{black_box, criterion_group, criterion_main, Criterion, SamplingMode};
use kafka_sim::assignor::{assign, MemberSubscription};
use kafka_sim::client_config::AssignorName;
use kafka_sim::collections::SortedMap;
use std::time::Duration;

const TOPICS: usize = 500;
const PARTITIONS: i32 = 2_000;
const MEMBERS: usize = 2_000;

fn group() -> (SortedMap<String, i32>, Vec<MemberSubscription>) {
    let topics: Vec<String> = (0..TOPICS).map(|t| format!("topic{t}")).collect();
    let ppt = topics.iter().map(|t| (t.clone(), PARTITIONS)).collect();
    let members = (0..MEMBERS)
        .map(|i| MemberSubscription {
            member_id: format!("consumer{i}"),
            group_instance_id: None,
            topics: topics.clone(),
            owned_partitions: Vec::new(),
            generation: None,
            rack_id: None,
        })
        .collect();
    (ppt, members)
}

fn large(c: &mut Criterion) {
    let (ppt, members) = group();
    let first = assign(AssignorName::Sticky, &ppt, &members).expect("valid group");
    let total: usize = first.assignment.values().map(Vec::len).sum();
    assert_eq!(total, TOPICS * PARTITIONS as usize);
    let rejoin: Vec<MemberSubscription> = members[1..]
        .iter()
        .map(|m| MemberSubscription {
            owned_partitions: first.assignment[&m.member_id].clone(),
            generation: Some(1),
            ..m.clone()
        })
        .collect();

    let mut g = c.benchmark_group("1,000,000 partitions, 2,000 members");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    g.bench_function("sticky: first assignment", |b| {
        b.iter(|| black_box(assign(AssignorName::Sticky, &ppt, &members).unwrap()))
    });
    g.bench_function("sticky: rebalance after a member leaves", |b| {
        b.iter(|| black_box(assign(AssignorName::Sticky, &ppt, &rejoin).unwrap()))
    });
    g.bench_function("cooperative-sticky: rebalance after a member leaves", |b| {
        b.iter(|| black_box(assign(AssignorName::CooperativeSticky, &ppt, &rejoin).unwrap()))
    });
    g.bench_function("range", |b| {
        b.iter(|| black_box(assign(AssignorName::Range, &ppt, &members).unwrap()))
    });
    g.bench_function("roundrobin", |b| {
        b.iter(|| black_box(assign(AssignorName::RoundRobin, &ppt, &members).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, large);
criterion_main!(benches);
