//! Kafka 4.1 (KRaft): topics and partitions through the quorum controller,
//! each behaviour the way Kafka 4.1.0's `ReplicationControlManager` and
//! `PartitionChangeBuilder` do it (see `kraft/replication.rs`).

mod common;

use kafka_sim::event::EventKind;
use kafka_sim::ids::{BrokerId, TopicPartition};
use kafka_sim::kraft::records::MetadataRecord;
use kafka_sim::Timeline;

fn scenario(run_until: u64, topic: &str, producers: &str, commands: &str) -> String {
    format!(
        r#"{{"seed": 3, "kafka_version": "4.1", "run_until_ms": {run_until},
            "cluster": {{"brokers": [0, 1, 2], "controllers": [3000, 3001, 3002],
                         "network": {{"latency_ms": 5}}}},
            "topics": [{topic}],
            "producers": [{producers}],
            "commands": [{commands}]}}"#
    )
}

const TOPIC: &str = r#"{"name": "t", "replica.assignment": {"0": [0, 1, 2]},
                        "config": {"min.insync.replicas": 2}}"#;
const PRODUCER: &str = r#"{"name": "p", "config": {"acks": "all"}}"#;

/// The committed metadata records of the active controller.
fn records(t: &Timeline) -> Vec<MetadataRecord> {
    let w = t.head();
    let c = &w.controllers()[&w.active_controller().expect("an active controller")];
    let end = c.raft.committed_end() as usize;
    c.raft.log[..end].iter().map(|e| e.record.clone()).collect()
}

/// A PartitionChangeRecord's (ISR, leader, ELR).
type Change = (Option<Vec<i32>>, i32, Option<Vec<i32>>);

fn changes(t: &Timeline) -> Vec<Change> {
    records(t)
        .into_iter()
        .filter_map(|r| match r {
            MetadataRecord::PartitionChangeRecord {
                isr,
                leader,
                eligible_leader_replicas,
                ..
            } => Some((isr, leader, eligible_leader_replicas)),
            _ => None,
        })
        .collect()
}

fn leader_of(t: &Timeline, tp: &TopicPartition) -> Vec<(i32, i32)> {
    t.head()
        .brokers()
        .values()
        .filter(|b| b.alive)
        .filter_map(|b| {
            b.partitions
                .get(tp)
                .filter(|p| p.is_leader)
                .map(|p| (b.id.0, p.leader_epoch))
        })
        .collect()
}

fn cut(at: u64, broker: i32, heal: bool) -> String {
    let kind = if heal { "heal_link" } else { "cut_link" };
    (3000..3003)
        .map(|c| format!(r#"{{"at_ms": {at}, "type": "{kind}", "a": "broker-{broker}", "b": "controller-{c}"}}"#))
        .collect::<Vec<_>>()
        .join(",")
}

/// The scenario's topic is created once the brokers are unfenced: a
/// TopicRecord, its ConfigRecord, then a PartitionRecord whose ISR is the
/// active replicas and whose leader is the first of them, epochs 0; the
/// brokers replay it and become leader and followers (no LeaderAndIsr).
#[test]
fn a_topic_is_created_through_the_metadata_log_and_the_brokers_replay_it() {
    let t = common::run(&scenario(4000, TOPIC, "", ""));
    let r = records(&t);
    let at = r
        .iter()
        .position(|r| matches!(r, MetadataRecord::TopicRecord { .. }))
        .expect("a TopicRecord");
    let MetadataRecord::TopicRecord { name, topic_id } = &r[at] else {
        unreachable!()
    };
    assert_eq!(name, "t");
    assert_eq!(topic_id.len(), 22, "a Uuid in base64");
    assert!(
        matches!(&r[at + 1], MetadataRecord::ConfigRecord { resource_type: 2, name, value, .. } if name == "min.insync.replicas" && value == "2")
    );
    assert!(
        matches!(&r[at + 2], MetadataRecord::PartitionRecord { replicas, isr, leader: 0, leader_epoch: 0, partition_epoch: 0, .. } if replicas == &[0, 1, 2] && isr == &[0, 1, 2]),
        "{:?}",
        r[at + 2]
    );
    // Every broker was unfenced before (the records just before the topic).
    let unfenced = r[..at]
        .iter()
        .filter(|r| {
            matches!(
                r,
                MetadataRecord::BrokerRegistrationChangeRecord { fenced: -1, .. }
            )
        })
        .count();
    assert_eq!(unfenced, 3);
    let tp = TopicPartition::new("t", 0);
    assert_eq!(leader_of(&t, &tp), vec![(0, 0)]);
    let followers = common::find(
        &t,
        |k| matches!(k, EventKind::BecameFollower { tp: x, leader: 0, .. } if *x == tp),
    );
    assert_eq!(followers.len(), 2);
    assert!(common::find(
        &t,
        |k| matches!(k, EventKind::MessageSent { message, .. } if message.api() == "LeaderAndIsr")
    )
    .is_empty());
    // The topic's config reached the brokers' logs.
    let w = t.head();
    assert_eq!(
        w.brokers()[&BrokerId(1)].logs[&tp]
            .config
            .min_insync_replicas,
        2
    );
}

/// The leader dies: after `broker.session.timeout.ms` the controller fences
/// it, and in the same batch a PartitionChangeRecord takes it out of the
/// ISR and makes the next ISR replica leader (leader epoch 1). The
/// acknowledged record is on the new leader.
#[test]
fn a_dead_leader_is_fenced_and_the_next_isr_replica_leads() {
    let cmds = r#"{"at_ms": 3000, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "v"},
                  {"at_ms": 4000, "type": "kill_broker", "broker": 0}"#;
    let t = common::run(&scenario(16000, TOPIC, PRODUCER, cmds));
    let ch = changes(&t);
    assert_eq!(ch, vec![(Some(vec![1, 2]), 1, None)], "{ch:?}");
    let tp = TopicPartition::new("t", 0);
    assert_eq!(leader_of(&t, &tp), vec![(1, 1)]);
    let became = common::find(&t, |k| {
        matches!(
            k,
            EventKind::BecameLeader {
                broker: BrokerId(1),
                ..
            }
        )
    })[0];
    // Fenced after the session (9 s) plus at most one fence check (1125 ms).
    assert!(
        (11000..=14200).contains(&became.time_ms),
        "{}",
        became.time_ms
    );
    assert_eq!(common::log_values(&t, 1, &tp), vec!["v"]);
    let acked = common::find(&t, |k| matches!(k, EventKind::RecordAcknowledged { .. }));
    assert_eq!(acked.len(), 1);
}

/// A follower's ISR changes go to the active controller as AlterPartition;
/// an ISR shrink keeps the leader epoch (metadata.version ≥ 3.6), and the
/// follower that comes back is added with a new partition epoch.
#[test]
fn isr_changes_go_to_the_active_controller() {
    let cmds = r#"{"at_ms": 4000, "type": "kill_broker", "broker": 2},
                  {"at_ms": 15000, "type": "restart_broker", "broker": 2}"#;
    let t = common::run(&scenario(20000, TOPIC, "", cmds));
    let ch = changes(&t);
    // Fenced: out of the ISR, no leader change; back: in again (AlterPartition).
    assert_eq!(
        ch,
        vec![
            (Some(vec![0, 1]), -2, None),
            (Some(vec![0, 1, 2]), -2, None)
        ]
    );
    let w = t.head();
    let p = &w.brokers()[&BrokerId(0)].partitions[&TopicPartition::new("t", 0)];
    assert_eq!((p.leader_epoch, p.partition_epoch), (0, 2));
    assert_eq!(p.isr, vec![BrokerId(0), BrokerId(1), BrokerId(2)]);
    let sent = common::find(
        &t,
        |k| matches!(k, EventKind::MessageSent { message, to, .. } if message.api() == "AlterPartition" && matches!(to, kafka_sim::ids::NodeId::Controller(_))),
    );
    assert_eq!(sent.len(), 1, "one AlterPartition, to a controller");
}

/// KIP-966, Eligible Leader Replicas (on in a new 4.1 cluster): with
/// `min.insync.replicas` 2, a replica that leaves a 2-replica ISR is kept
/// as an ELR, the high watermark waits while the ISR is under min ISR, and
/// when the last ISR member dies the partition has no leader rather than
/// an out-of-date one. The ELR member, unfenced again, leads with every
/// committed record.
#[test]
fn eligible_leader_replicas_keep_the_committed_records() {
    let mut cmds = vec![
        r#"{"at_ms": 3000, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "one"}"#.to_string(),
        cut(4000, 2, false),
        cut(15000, 1, false),
        r#"{"at_ms": 26000, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "two"}"#.to_string(),
        r#"{"at_ms": 27000, "type": "kill_broker", "broker": 0}"#.to_string(),
        cut(38000, 1, true),
    ];
    cmds.retain(|c| !c.is_empty());
    let t = common::run(&scenario(44000, TOPIC, PRODUCER, &cmds.join(",")));
    let ch = changes(&t);
    assert_eq!(
        ch,
        vec![
            // 2 fenced: ISR [0,1] is still at min ISR 2, no ELR.
            (Some(vec![0, 1]), -2, None),
            // 1 fenced: ISR [0] under min ISR: 1 becomes eligible.
            (Some(vec![0]), -2, Some(vec![1])),
            // 0 (the leader) fenced: no ISR, no leader, ELR [0,1].
            (Some(vec![]), -1, Some(vec![0, 1])),
            // 1 unfenced: elected from the ELR; it is the ISR.
            (Some(vec![1]), 1, Some(vec![0])),
        ],
        "{ch:?}"
    );
    // "two" came while the ISR was [0], under min ISR: refused (acks=all).
    let refused = t.events().iter().any(|e| {
        e.caption(kafka_sim::Lang::En)
            .contains("NOT_ENOUGH_REPLICAS")
    });
    assert!(refused);
    let tp = TopicPartition::new("t", 0);
    assert_eq!(leader_of(&t, &tp).first().map(|l| l.0), Some(1));
    let values = common::log_values(&t, 1, &tp);
    assert_eq!(values.first().map(String::as_str), Some("one"));
    // Broker 2, out of date, never led.
    assert!(common::find(&t, |k| matches!(
        k,
        EventKind::BecameLeader {
            broker: BrokerId(2),
            ..
        }
    ))
    .is_empty());
}

/// An idempotent producer's id comes from a block the broker got from the
/// active controller (AllocateProducerIds → ProducerIdsRecord).
#[test]
fn producer_ids_come_in_blocks_from_the_controller() {
    let cmds = r#"{"at_ms": 3000, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "v"}"#;
    let t = common::run(&scenario(4000, TOPIC, PRODUCER, cmds));
    let blocks: Vec<i64> = records(&t)
        .into_iter()
        .filter_map(|r| match r {
            MetadataRecord::ProducerIdsRecord {
                next_producer_id, ..
            } => Some(next_producer_id),
            _ => None,
        })
        .collect();
    assert!(!blocks.is_empty());
    assert_eq!(blocks[0], 1000, "the first block is 0–999");
    for w in blocks.windows(2) {
        assert_eq!(w[1] - w[0], 1000);
    }
    let assigned = common::find(&t, |k| matches!(k, EventKind::ProducerIdAssigned { .. }));
    assert_eq!(assigned.len(), 1);
}

/// Kafka 4.0 made `linger.ms` 5 (KIP-1030): a 4.1 producer that does not
/// set it waits 5 ms; one that sets it keeps its value.
#[test]
fn a_kafka_4_producer_lingers_5_ms_by_default() {
    let sc = kafka_sim::Scenario::from_json(&scenario(100, TOPIC, PRODUCER, "")).unwrap();
    assert_eq!(sc.producers[0].config.linger_ms, 5);
    let own = r#"{"name": "p", "config": {"linger.ms": 0}}"#;
    let sc = kafka_sim::Scenario::from_json(&scenario(100, TOPIC, own, "")).unwrap();
    assert_eq!(sc.producers[0].config.linger_ms, 0);
    let old = r#"{"seed": 1, "cluster": {"brokers": [0]}, "producers": [{"name": "p"}]}"#;
    let sc = kafka_sim::Scenario::from_json(old).unwrap();
    assert_eq!(sc.producers[0].config.linger_ms, 0, "3.9 keeps 0");
}

/// A consumer of the classic group protocol on a 4.1 cluster: the broker
/// it asks for its coordinator creates `__consumer_offsets` through the
/// active controller (CreateTopics → TopicRecord, its compaction
/// ConfigRecords, one PartitionRecord per partition), and the group forms
/// and reads the record.
#[test]
fn a_classic_consumer_group_runs_on_kraft() {
    let consumer = r#"{"name": "c", "subscribe": ["t"], "config": {"group.id": "g", "auto.offset.reset": "earliest"}}"#;
    let json = scenario(8000, TOPIC, PRODUCER, r#"{"at_ms": 2500, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "v"}"#)
        .replace(r#""commands": ["#, &format!(r#""consumers": [{consumer}], "commands": ["#));
    let t = common::run(&json);
    let sent = common::find(
        &t,
        |k| matches!(k, EventKind::MessageSent { message, to: kafka_sim::ids::NodeId::Controller(_), .. } if message.api() == "CreateTopics"),
    );
    assert_eq!(sent.len(), 1, "one CreateTopics, from a broker");
    let r = records(&t);
    let at = r
        .iter()
        .position(|r| matches!(r, MetadataRecord::TopicRecord { name, .. } if name == "__consumer_offsets"))
        .expect("__consumer_offsets created");
    assert!(
        matches!(&r[at + 1], MetadataRecord::ConfigRecord { name, value, .. } if name == "cleanup.policy" && value == "compact")
    );
    let parts = r
        .iter()
        .filter(|r| matches!(r, MetadataRecord::PartitionRecord { topic, .. } if topic == "__consumer_offsets"))
        .count();
    assert_eq!(parts, 50, "offsets.topic.num.partitions");
    let polled = t.events().iter().any(|e| {
        e.caption(kafka_sim::Lang::En)
            .contains("poll() returned 1 record")
    });
    assert!(polled);
    let stable = t
        .events()
        .iter()
        .any(|e| e.caption(kafka_sim::Lang::En).contains("Stable"));
    assert!(stable);
}

/// A 4.1 broker opens its listeners only once the controller first
/// unfences it (`BrokerServer.startup`): clients that come earlier are
/// refused and back off; none is refused by a RUNNING broker.
#[test]
fn a_kraft_broker_accepts_clients_only_once_unfenced() {
    let t = common::run(&scenario(4000, TOPIC, PRODUCER, ""));
    let refused = common::find(&t, |k| {
        matches!(
            k,
            EventKind::MessageDropped {
                reason: kafka_sim::event::DropReason::NotListening,
                ..
            }
        )
    });
    assert!(
        !refused.is_empty(),
        "the producer starts before the cluster is up"
    );
    let running = common::find(&t, |k| {
        matches!(
            k,
            EventKind::BrokerLifecycleChanged {
                state: kafka_sim::event::BrokerLifecycle::Running,
                ..
            }
        )
    });
    let first_running = running.iter().map(|e| e.time_ms).max().expect("running");
    for e in refused {
        assert!(
            e.time_ms <= first_running,
            "refused at {} ms, after {first_running}",
            e.time_ms
        );
    }
    let assigned = common::find(&t, |k| matches!(k, EventKind::ProducerIdAssigned { .. }));
    assert_eq!(assigned.len(), 1);
}
