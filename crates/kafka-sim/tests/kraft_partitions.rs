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

/// Controlled shutdown through heartbeats (BrokerLifecycleManager,
/// BrokerHeartbeatManager, RCM.handleBrokerInControlledShutdown): the
/// broker enters PENDING_CONTROLLED_SHUTDOWN; the controller records it in
/// controlled shutdown, takes it out of the ISR and moves its leadership in
/// one batch; once it leads nothing and the other brokers have replayed
/// that, it is fenced and told to shut down, and it stops cleanly. No
/// session timeout passes: the partition has a leader throughout.
#[test]
fn a_controlled_shutdown_moves_leaderships_through_heartbeats() {
    use kafka_sim::event::BrokerLifecycle;
    let cmds = r#"{"at_ms": 3000, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "v"},
                  {"at_ms": 4000, "type": "shutdown_broker", "broker": 0},
                  {"at_ms": 9000, "type": "restart_broker", "broker": 0}"#;
    let t = common::run(&scenario(25000, TOPIC, PRODUCER, cmds));
    let recs = records(&t);
    let ics = recs
        .iter()
        .position(|r| {
            matches!(
                r,
                MetadataRecord::BrokerRegistrationChangeRecord {
                    broker_id: 0,
                    in_controlled_shutdown: 1,
                    ..
                }
            )
        })
        .expect("the in-controlled-shutdown record");
    assert!(
        matches!(
            &recs[ics + 1],
            MetadataRecord::PartitionChangeRecord { isr: Some(isr), leader: 1, .. } if isr == &vec![1, 2]
        ),
        "{:?}",
        recs[ics + 1]
    );
    let states: Vec<(u64, BrokerLifecycle)> = common::find(&t, |k| {
        matches!(
            k,
            EventKind::BrokerLifecycleChanged {
                broker: BrokerId(0),
                ..
            }
        )
    })
    .iter()
    .filter_map(|e| match &e.kind {
        EventKind::BrokerLifecycleChanged { state, .. } => Some((e.time_ms, *state)),
        _ => None,
    })
    .collect();
    let pending = states
        .iter()
        .find(|(_, s)| *s == BrokerLifecycle::PendingControlledShutdown)
        .expect("pending")
        .0;
    let down = states
        .iter()
        .find(|(_, s)| *s == BrokerLifecycle::ShuttingDown)
        .expect("shutting down")
        .0;
    assert_eq!(pending, 4000);
    // The other brokers' next heartbeats (every 2 s) report the offset.
    assert!(down > pending && down <= pending + 2500, "{down}");
    let stopped = common::find(&t, |k| {
        matches!(
            k,
            EventKind::BrokerStopped {
                broker: BrokerId(0),
                controlled: true
            }
        )
    });
    assert_eq!(stopped.len(), 1);
    let became = common::find(&t, |k| {
        matches!(
            k,
            EventKind::BecameLeader {
                broker: BrokerId(1),
                ..
            }
        )
    });
    assert!(
        became[0].time_ms < down,
        "the leadership moved before it stopped"
    );
    // Its session lives on after the shutdown: the new process is refused
    // (DUPLICATE_BROKER_REGISTRATION) until it expires, then registers and
    // is back in the ISR.
    let tp = TopicPartition::new("t", 0);
    let w = t.head();
    let isr = &w.brokers()[&BrokerId(1)].partitions[&tp].isr;
    assert_eq!(isr.len(), 3, "{isr:?}");
    assert_eq!(common::log_values(&t, 0, &tp), vec!["v"]);
}

/// KIP-966 keeps a replica that shut down cleanly in the ELR when it comes
/// back (its previousBrokerEpoch matches, CCM:432-437); one that crashed
/// may have lost unflushed records, so its registration takes it out of
/// the ELR first (RCM.handleBrokerShutdown, 1445-1456).
#[test]
fn a_clean_restart_stays_eligible_an_unclean_one_does_not() {
    for (stop, clean) in [("shutdown_broker", true), ("kill_broker", false)] {
        // 2 dies (fenced after its session): ISR [0, 1], still ≥ min ISR 2.
        // Then 1 stops: ISR [0] < 2, so 1 goes to the ELR.
        let cmds = format!(
            r#"{{"at_ms": 3000, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "v"}},
               {{"at_ms": 4000, "type": "kill_broker", "broker": 2}},
               {{"at_ms": 16000, "type": "{stop}", "broker": 1}},
               {{"at_ms": 30000, "type": "restart_broker", "broker": 1}}"#
        );
        let t = common::run(&scenario(36000, TOPIC, PRODUCER, &cmds));
        let ch = changes(&t);
        assert!(
            ch.iter()
                .any(|(isr, _, elr)| isr.as_deref() == Some(&[0][..])
                    && elr.as_deref() == Some(&[1][..])),
            "{stop}: ISR [0], ELR [1]: {ch:?}"
        );
        let recs = records(&t);
        let register = recs
            .iter()
            .rposition(|r| matches!(r, MetadataRecord::RegisterBrokerRecord { broker_id: 1, .. }))
            .expect("registered again");
        let cleaned = matches!(
            &recs[register - 1],
            MetadataRecord::PartitionChangeRecord { eligible_leader_replicas: Some(e), .. } if e.is_empty()
        );
        assert_eq!(cleaned, !clean, "{stop}: {:?}", &recs[register - 1]);
    }
}

/// Clients added during a 4.1 run: a consumer started later joins its
/// group through the same classic protocol, and a producer started later
/// writes.
#[test]
fn clients_added_during_a_kraft_run_join_and_write() {
    let cmds = r#"{"at_ms": 3000, "type": "add_producer", "producer": {"name": "late", "config": {"acks": "all"}}},
                  {"at_ms": 3500, "type": "produce", "producer": "late", "topic": "t", "key": "k", "value": "v"},
                  {"at_ms": 4000, "type": "add_consumer", "consumer": {"name": "c", "subscribe": ["t"],
                     "config": {"group.id": "g", "auto.offset.reset": "earliest"}}}"#;
    let t = common::run(&scenario(12000, TOPIC, PRODUCER, cmds));
    let acked = common::find(&t, |k| matches!(k, EventKind::RecordAcknowledged { .. }));
    assert_eq!(acked.len(), 1);
    let joined = common::find(&t, |k| matches!(k, EventKind::JoinedGroup { .. }));
    assert!(!joined.is_empty(), "the added consumer joined its group");
    assert!(joined[0].time_ms >= 4000);
}

/// `unclean.leader.election.enable` on KRaft (Election.UNCLEAN): when the
/// only ISR member goes, the controller elects the first live replica
/// outside the ISR in the same batch, marks the partition RECOVERING, and
/// the acknowledged record only the old leader had is lost. Here the
/// departure is a controlled shutdown, which in 3.9 never elects outside
/// the ISR.
#[test]
fn an_unclean_election_on_kraft_marks_the_partition_recovering() {
    let topic = r#"{"name": "r", "replica.assignment": {"0": [0, 2]},
                    "config": {"unclean.leader.election.enable": true}}"#;
    let cmds = r#"{"at_ms": 2500, "type": "cut_link", "a": "broker-0", "b": "broker-2"},
                  {"at_ms": 3000, "type": "produce", "producer": "p", "topic": "r", "key": "k", "value": "only-on-0"},
                  {"at_ms": 50000, "type": "shutdown_broker", "broker": 0}"#;
    let producer = r#"{"name": "p", "config": {"acks": "1", "enable.idempotence": false}}"#;
    let t = common::run(&scenario(60000, topic, producer, cmds));
    let recs = records(&t);
    let unclean = recs
        .iter()
        .find_map(|r| match r {
            MetadataRecord::PartitionChangeRecord {
                leader: 2,
                isr,
                leader_recovery_state,
                ..
            } => Some((isr.clone(), *leader_recovery_state)),
            _ => None,
        })
        .expect("broker 2 elected");
    assert_eq!(unclean, (Some(vec![2]), Some(1)));
    let lost = common::find(&t, |k| matches!(k, EventKind::GuaranteeBroken { .. }));
    assert_eq!(lost.len(), 1, "the acknowledged record is gone");
    assert!(lost[0].time_ms >= 50000);
}
