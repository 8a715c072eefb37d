//! The two control planes on one failure: a partition leader's broker
//! dies, in Kafka 3.9 (ZooKeeper) and Kafka 4.1 (KRaft), from the same
//! seed and with each version's defaults. Measured from the crash to the
//! last new leader of the partitions it led: the time, and the messages
//! the control plane sent to bring every broker the news (3.9: the
//! controller's LeaderAndIsr and UpdateMetadata; 4.1: the quorum leader's
//! Fetch answers carrying metadata records other than NoOps).
//!
//! The test runs 3 brokers with 6 partitions; `CONTROL_PLANES_LARGE=1`
//! adds 10 brokers with 1,000 partitions (run it with `--release
//! --nocapture` to read the figures).

use kafka_sim::event::EventKind;
use kafka_sim::ids::{BrokerId, NodeId, TopicPartition};
use kafka_sim::kraft::records::MetadataRecord;
use kafka_sim::msg::Message;
use kafka_sim::{Scenario, World};
use std::collections::BTreeSet;

const KILL_MS: u64 = 6000;

fn scenario(kraft: bool, brokers: i32, partitions: i32) -> String {
    let ids: Vec<i32> = (0..brokers).collect();
    let version = if kraft {
        r#""kafka_version": "4.1","#
    } else {
        ""
    };
    let controllers = if kraft {
        r#", "controllers": [3000, 3001, 3002]"#
    } else {
        ""
    };
    format!(
        r#"{{"seed": 11, {version} "run_until_ms": {},
            "cluster": {{"brokers": {ids:?}{controllers}, "network": {{"latency_ms": 2}}}},
            "topics": [{{"name": "t", "partitions": {partitions}, "replication.factor": 3}}],
            "commands": [{{"at_ms": {KILL_MS}, "type": "kill_broker", "broker": 1}}]}}"#,
        KILL_MS + 40_000
    )
}

#[derive(Debug)]
struct Recovery {
    /// Partitions broker 1 led when it died.
    led: usize,
    /// From the crash to the last of them led again.
    ms: u64,
    /// Control-plane messages to brokers in that time.
    messages: u64,
}

fn measure(kraft: bool, brokers: i32, partitions: i32) -> Recovery {
    let sc = Scenario::from_json(&scenario(kraft, brokers, partitions)).unwrap();
    let mut w = World::new(std::sync::Arc::new(sc));
    // What broker 1 leads just before the step that kills it.
    let mut waiting: BTreeSet<TopicPartition> = BTreeSet::new();
    while w.brokers()[&BrokerId(1)].alive || w.now() < KILL_MS {
        waiting = w.brokers()[&BrokerId(1)]
            .partitions
            .iter()
            .filter(|(_, p)| p.is_leader)
            .map(|(tp, _)| tp.clone())
            .collect();
        assert!(w.step(), "the run ended before the crash");
        w.drain_events();
    }
    let led = waiting.len();
    assert!(led > 0, "broker 1 leads nothing");
    let (mut last, mut messages) = (KILL_MS, 0u64);
    while !waiting.is_empty() && w.step() {
        for e in w.drain_events() {
            match &e.kind {
                EventKind::BecameLeader { tp, .. } if waiting.remove(tp) => last = e.time_ms,
                EventKind::MessageSent {
                    to: NodeId::Broker(_),
                    message,
                    ..
                } => {
                    let control = match &**message {
                        Message::LeaderAndIsr { .. } | Message::UpdateMetadata { .. } => true,
                        Message::RaftFetchResponse { records, .. } => records.iter().any(|r| {
                            !matches!(
                                r.record,
                                MetadataRecord::NoOpRecord | MetadataRecord::LeaderChange { .. }
                            )
                        }),
                        _ => false,
                    };
                    messages += u64::from(control);
                }
                _ => {}
            }
        }
    }
    assert!(waiting.is_empty(), "never led again: {waiting:?}");
    Recovery {
        led,
        ms: last - KILL_MS,
        messages,
    }
}

fn compare(brokers: i32, partitions: i32) -> (Recovery, Recovery) {
    let zk = measure(false, brokers, partitions);
    let kraft = measure(true, brokers, partitions);
    eprintln!(
        "{brokers} brokers, {partitions} partitions: broker 1 led {} (3.9) / {} (4.1); \
         3.9 ZooKeeper: every one led again {} ms after the crash, {} LeaderAndIsr/UpdateMetadata; \
         4.1 KRaft: {} ms, {} metadata Fetch answers",
        zk.led, kraft.led, zk.ms, zk.messages, kraft.ms, kraft.messages
    );
    (zk, kraft)
}

/// Both control planes recover every partition the dead broker led. The
/// wait is the failure detection of each: ZooKeeper's session
/// (`zookeeper.session.timeout.ms`, 18 s by default in 3.9) against the
/// controller's broker session (`broker.session.timeout.ms`, 9 s in 4.1),
/// plus one fence check (every 9 s / 8).
#[test]
fn a_dead_leader_is_replaced_in_both_modes() {
    let (zk, kraft) = compare(3, 6);
    assert!((18_000..18_000 + 1_000).contains(&zk.ms), "{zk:?}");
    assert!((7_000..9_000 + 1_200).contains(&kraft.ms), "{kraft:?}");
    assert!(zk.messages > 0 && kraft.messages > 0);
    if std::env::var_os("CONTROL_PLANES_LARGE").is_some() {
        compare(10, 1000);
    }
}
