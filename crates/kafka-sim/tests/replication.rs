//! Cluster, controller and replication behaviour, asserted on the trace (C1–C5, R1–R7).

use kafka_sim::event::{EventKind, Guarantee, TruncateReason};
use kafka_sim::ids::{BrokerId, TopicPartition};
use kafka_sim::msg::ErrorCode;
use kafka_sim::{Scenario, Timeline};

fn scenario_file(name: &str) -> String {
    common::repo_file(&format!("scenarios/{name}.json"))
}

mod common;
use common::{find, log_values, run};

fn b(i: i32) -> BrokerId {
    BrokerId(i)
}

fn broken(t: &Timeline, g: Guarantee) -> usize {
    find(
        t,
        |k| matches!(k, EventKind::GuaranteeBroken { guarantee, .. } if *guarantee == g),
    )
    .len()
}

/// A three-broker cluster with a 6 s ZooKeeper session, one RF-3 topic, and commands.
fn cluster(config: &str, topic: &str, producer: &str, commands: &str, until: u64) -> String {
    format!(
        r#"{{"seed": 1, "run_until_ms": {until},
            "cluster": {{"brokers": [0, 1, 2], "config": {{"zookeeper.session.timeout.ms": 6000 {config}}}}},
            "topics": [{topic}],
            "producers": [{{"name": "p", "config": {producer}}}],
            "commands": [{commands}]}}"#
    )
}

#[test]
fn controller_election_and_failover_with_epoch_fencing() {
    let t = run(&cluster(
        "",
        r#"{"name": "t", "partitions": 3, "replication.factor": 3}"#,
        "{}",
        r#"{"at_ms": 500, "type": "kill_broker", "broker": 0}"#,
        9000,
    ));
    let elected = find(&t, |k| matches!(k, EventKind::ControllerElected { .. }));
    assert!(
        matches!(elected[0].kind, EventKind::ControllerElected { broker, epoch: 1 } if broker == b(0))
    );
    // Broker 0 was the controller; when its session expires another broker wins with epoch 2.
    assert!(matches!(
        elected[1].kind,
        EventKind::ControllerElected { epoch: 2, .. }
    ));
    assert!(elected[1].time_ms >= 6500);
    // Every partition 0 led gets a new leader; every ISR loses broker 0.
    let w = t.head();
    for (_, br) in w.brokers().iter().filter(|(id, _)| **id != b(0)) {
        for p in br.partitions.values() {
            assert!(p.leader != 0 && !p.isr.contains(&b(0)), "{p:?}");
        }
    }
}

#[test]
fn source_note_election_ar_1_0_2() {
    let t = run(&scenario_file("leader-failover"));
    let elections: Vec<(BrokerId, Vec<BrokerId>)> =
        find(&t, |k| matches!(k, EventKind::LeaderElected { .. }))
            .iter()
            .map(|e| match &e.kind {
                EventKind::LeaderElected { leader, isr, .. } => (*leader, isr.clone()),
                _ => unreachable!(),
            })
            .collect();
    assert_eq!(elections[0], (b(1), vec![b(1), b(0), b(2)]));
    assert_eq!(elections[1], (b(0), vec![b(0), b(2)]));
    let z = t
        .head()
        .zookeeper()
        .get("/brokers/topics/first/partitions/0/state")
        .unwrap();
    assert!(
        z.data.contains(r#""leader":0"#) && z.data.contains(r#""isr":[0,2]"#),
        "{}",
        z.data
    );
}

#[test]
fn source_note_hw_5_leo_8_truncation() {
    let t = run(&scenario_file("hw-truncation"));
    let kill = find(&t, |k| {
        matches!(
            k,
            EventKind::CommandIssued { command, .. }
                if matches!(**command, kafka_sim::scenario::Command::KillBroker { .. })
        )
    })[0]
        .id;
    // At the kill: leader 0 has LEO 8 and HW 5; broker 1 has 5, broker 2 has 7.
    let mut t2 =
        Timeline::new(Scenario::from_json(&scenario_file("hw-truncation")).unwrap()).unwrap();
    let w = t2.state_at(kill + 1);
    let tp = kafka_sim::TopicPartition::new("first", 0);
    let leo = |i| w.brokers()[&b(i)].logs[&tp].log_end_offset;
    assert_eq!((leo(0), leo(1), leo(2)), (8, 5, 7));
    assert_eq!(w.brokers()[&b(0)].partitions[&tp].high_watermark, 5);
    // Broker 1 becomes leader; broker 2 cuts 5 and 6.
    let trunc = find(
        &t,
        |k| matches!(k, EventKind::LogTruncated { broker, .. } if *broker == b(2)),
    );
    match &trunc[0].kind {
        EventKind::LogTruncated {
            truncated, reason, ..
        } => {
            assert_eq!((truncated.old_log_end_offset, truncated.to_offset), (7, 5));
            assert_eq!(*reason, TruncateReason::HighWatermark { high_watermark: 5 });
        }
        _ => unreachable!(),
    }
    assert!(
        broken(&t, Guarantee::AcknowledgedRecordsSurvive) >= 1,
        "acks=1 records were lost and reported"
    );
}

#[test]
fn kip_101_divergence_with_hw_truncation_and_not_with_epochs() {
    let hw = run(&scenario_file("kip101-divergence"));
    assert_eq!(
        broken(&hw, Guarantee::ReplicasConsistent),
        1,
        "pure HW truncation lets the logs diverge"
    );
    let ep = run(&scenario_file("kip101-epochs"));
    assert_eq!(
        broken(&ep, Guarantee::ReplicasConsistent),
        0,
        "leader epochs prevent it"
    );
    assert!(
        find(&ep, |k| matches!(
            k,
            EventKind::LogTruncated {
                reason: TruncateReason::LeaderEpoch {
                    epoch: 0,
                    end_offset: 3
                },
                ..
            }
        ))
        .len()
            == 1
    );
    // And at the end broker 2 holds exactly the leader's records.
    let w = ep.head();
    let tp = kafka_sim::TopicPartition::new("t", 0);
    let recs = |i| {
        let br = &w.brokers()[&b(i)];
        let log = &br.logs[&tp];
        (0..log.log_end_offset)
            .map(|o| kafka_sim::invariants::record_at(log, &br.disk, o))
            .collect::<Vec<_>>()
    };
    assert_eq!(recs(1), recs(2));
}

#[test]
fn follower_learns_the_high_watermark_one_fetch_later() {
    let t = run(&cluster(
        "",
        r#"{"name": "t", "partitions": 1, "replication.factor": 3, "replica.assignment": {"0": [0, 1, 2]}}"#,
        "{}",
        r#"{"at_ms": 100, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "v"}"#,
        3000,
    ));
    let leader_hw = find(&t, |k| {
        matches!(
            k,
            EventKind::HighWatermarkUpdated {
                leader: true,
                new: 1,
                ..
            }
        )
    })[0];
    let follower_hw = find(&t, |k| {
        matches!(
            k,
            EventKind::HighWatermarkUpdated {
                leader: false,
                new: 1,
                ..
            }
        )
    });
    assert_eq!(follower_hw.len(), 2);
    for f in follower_hw {
        assert!(f.id > leader_hw.id && f.time_ms > leader_hw.time_ms);
    }
}

#[test]
fn acks_all_waits_for_the_isr_and_refuses_below_min_insync() {
    let t = run(&cluster(
        r#", "min.insync.replicas": 2"#,
        r#"{"name": "t", "partitions": 1, "replication.factor": 3, "replica.assignment": {"0": [0, 1, 2]}}"#,
        "{}",
        r#"{"at_ms": 100, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "a"},
           {"at_ms": 200, "type": "kill_broker", "broker": 1},
           {"at_ms": 300, "type": "kill_broker", "broker": 2},
           {"at_ms": 7000, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "b"}"#,
        9000,
    ));
    assert_eq!(
        find(&t, |k| matches!(
            k,
            EventKind::ProduceCompleted {
                waited_for_isr: true,
                ..
            }
        ))
        .len(),
        1
    );
    // Once the ISR is down to broker 0 alone (< min.insync.replicas=2): NOT_ENOUGH_REPLICAS, retried.
    assert!(!find(&t, |k| matches!(
        k,
        EventKind::ProduceRejected {
            error: ErrorCode::NotEnoughReplicas,
            ..
        }
    ))
    .is_empty());
    assert!(!find(&t, |k| matches!(
        k,
        EventKind::ProduceRetried {
            error: ErrorCode::NotEnoughReplicas,
            ..
        }
    ))
    .is_empty());
    assert_eq!(
        find(&t, |k| matches!(k, EventKind::RecordAcknowledged { .. })).len(),
        1
    );
}

#[test]
fn isr_shrinks_after_replica_lag_time_max_and_expands_when_caught_up() {
    let t = run(&cluster(
        r#", "replica.lag.time.max.ms": 4000"#,
        r#"{"name": "t", "partitions": 1, "replication.factor": 3, "replica.assignment": {"0": [0, 1, 2]}}"#,
        r#"{"acks": 1, "enable.idempotence": false}"#,
        r#"{"at_ms": 100, "type": "cut_link", "a": "broker-0", "b": "broker-2"},
           {"at_ms": 200, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "v", "count": 3},
           {"at_ms": 9000, "type": "heal_link", "a": "broker-0", "b": "broker-2"}"#,
        34_000,
    ));
    let shrink = find(
        &t,
        |k| matches!(k, EventKind::IsrChangeApplied { isr, .. } if *isr == vec![b(0), b(1)]),
    );
    assert_eq!(shrink.len(), 1);
    assert!(
        shrink[0].time_ms >= 4200 && shrink[0].time_ms < 9000,
        "{}",
        shrink[0].time_ms
    );
    // The follower's fetch sent into the cut link is only given up after
    // request.timeout.ms (30 s, like replica.socket.timeout.ms); then it
    // catches up and rejoins.
    let grow = find(
        &t,
        |k| matches!(k, EventKind::IsrChangeApplied { isr, .. } if isr.len() == 3),
    );
    assert_eq!(grow.len(), 1);
    assert!(grow[0].time_ms > 30_000, "{}", grow[0].time_ms);
    // The change went through the controller (AlterPartition → ZooKeeper).
    assert!(find(&t, |k| matches!(k, EventKind::IsrUpdatedByController { reason, .. } if reason.contains("AlterPartition"))).len() >= 2);
}

#[test]
fn high_watermark_waits_while_the_isr_is_below_min_insync() {
    let t = run(&cluster(
        r#", "min.insync.replicas": 2, "replica.lag.time.max.ms": 3000"#,
        r#"{"name": "t", "partitions": 1, "replication.factor": 2, "replica.assignment": {"0": [0, 1]}}"#,
        r#"{"acks": 1, "enable.idempotence": false}"#,
        r#"{"at_ms": 100, "type": "cut_link", "a": "broker-0", "b": "broker-1"},
           {"at_ms": 5000, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "v"}"#,
        7000,
    ));
    assert!(!find(&t, |k| matches!(
        k,
        EventKind::HighWatermarkHeld {
            isr_size: 1,
            min_insync_replicas: 2,
            ..
        }
    ))
    .is_empty());
    assert!(find(&t, |k| matches!(
        k,
        EventKind::HighWatermarkUpdated { leader: true, .. }
    ))
    .is_empty());
}

#[test]
fn unclean_election_only_when_enabled_and_it_loses_data() {
    let commands = r#"{"at_ms": 100, "type": "cut_link", "a": "broker-0", "b": "broker-1"},
           {"at_ms": 200, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "v", "count": 2},
           {"at_ms": 4000, "type": "kill_broker", "broker": 0}"#;
    let topic = r#"{"name": "t", "partitions": 1, "replication.factor": 2, "replica.assignment": {"0": [0, 1]}}"#;
    let producer = r#"{"acks": 1, "enable.idempotence": false}"#;
    let clean = run(&cluster(
        r#", "replica.lag.time.max.ms": 2000"#,
        topic,
        producer,
        commands,
        12000,
    ));
    assert_eq!(
        find(&clean, |k| matches!(k, EventKind::NoLeaderElected { .. })).len(),
        1
    );
    let unclean = run(&cluster(
        r#", "replica.lag.time.max.ms": 2000, "unclean.leader.election.enable": true"#,
        topic,
        producer,
        commands,
        12000,
    ));
    let e = find(&unclean, |k| {
        matches!(k, EventKind::LeaderElected { unclean: true, .. })
    });
    assert_eq!(e.len(), 1);
    assert!(broken(&unclean, Guarantee::AcknowledgedRecordsSurvive) >= 1);
}

#[test]
fn preferred_leader_election_and_automatic_rebalance() {
    let topic =
        r#"{"name": "t", "partitions": 3, "replication.factor": 3, "fixed_start_index": 0}"#;
    let commands = r#"{"at_ms": 100, "type": "kill_broker", "broker": 1},
           {"at_ms": 7000, "type": "restart_broker", "broker": 1}"#;
    // Without auto rebalance broker 1 stays a follower everywhere...
    let off = run(&cluster(
        r#", "auto.leader.rebalance.enable": false"#,
        topic,
        "{}",
        commands,
        30_000,
    ));
    let w = off.head();
    assert!(w.brokers()[&b(1)].partitions.values().all(|p| !p.is_leader));
    // ...with it, the controller's periodic check moves the preferred leader back.
    let on = run(&cluster(
        r#", "leader.imbalance.check.interval.seconds": 20"#,
        topic,
        "{}",
        commands,
        30_000,
    ));
    assert!(!find(
        &on,
        |k| matches!(k, EventKind::PreferredLeaderImbalance { broker, .. } if *broker == b(1))
    )
    .is_empty());
    let pref = find(
        &on,
        |k| matches!(k, EventKind::LeaderElected { algorithm: kafka_sim::election::ElectionAlgorithm::Preferred, leader, .. } if *leader == b(1)),
    );
    assert_eq!(pref.len(), 1);
    // And by command.
    let cmd = run(&cluster(
        r#", "auto.leader.rebalance.enable": false"#,
        topic,
        "{}",
        &format!(
            r#"{commands}, {{"at_ms": 15000, "type": "elect_preferred_leaders", "topic": "t"}}"#
        ),
        20_000,
    ));
    assert_eq!(
        find(&cmd, |k| matches!(
            k,
            EventKind::LeaderElected {
                algorithm: kafka_sim::election::ElectionAlgorithm::Preferred,
                ..
            }
        ))
        .len(),
        1
    );
}

#[test]
fn controlled_shutdown_moves_leadership_first() {
    let t = run(&cluster(
        "",
        r#"{"name": "t", "partitions": 1, "replication.factor": 3, "replica.assignment": {"0": [1, 0, 2]}}"#,
        "{}",
        r#"{"at_ms": 500, "type": "shutdown_broker", "broker": 1}"#,
        3000,
    ));
    let e = find(&t, |k| {
        matches!(
            k,
            EventKind::LeaderElected {
                algorithm: kafka_sim::election::ElectionAlgorithm::ControlledShutdown,
                ..
            }
        )
    });
    assert_eq!(e.len(), 1);
    let stopped = find(&t, |k| {
        matches!(
            k,
            EventKind::BrokerStopped {
                controlled: true,
                ..
            }
        )
    });
    assert_eq!(stopped.len(), 1);
    assert!(
        e[0].id < stopped[0].id,
        "the leadership moved before the broker stopped"
    );
    // Its session closed at once: no 6 s wait.
    assert!(stopped[0].time_ms < 600);
}

/// A partition with no other replica cannot move: the controller lists it
/// as remaining, and the broker asks again `controlled.shutdown.retry.
/// backoff.ms` later, `controlled.shutdown.max.retries` requests in all,
/// then stops anyway (`KafkaServer.controlledShutdown`, Kafka 3.9).
#[test]
fn controlled_shutdown_retries_while_partitions_remain_then_stops_anyway() {
    let t = run(&cluster(
        "",
        r#"{"name": "t", "partitions": 1, "replication.factor": 1, "replica.assignment": {"0": [1]}}"#,
        "{}",
        r#"{"at_ms": 500, "type": "shutdown_broker", "broker": 1}"#,
        20000,
    ));
    let retried: Vec<(u32, u64)> = find(&t, |k| {
        matches!(k, EventKind::ControlledShutdownRetried { .. })
    })
    .iter()
    .filter_map(|e| match &e.kind {
        EventKind::ControlledShutdownRetried {
            attempt,
            partitions_remaining,
            ..
        } => {
            assert_eq!(partitions_remaining, &[TopicPartition::new("t", 0)]);
            Some((*attempt, e.time_ms))
        }
        _ => None,
    })
    .collect();
    assert_eq!(retried.iter().map(|r| r.0).collect::<Vec<_>>(), [1, 2]);
    assert!(retried[1].1 >= retried[0].1 + 5000, "{retried:?}");
    let gave_up = find(&t, |k| {
        matches!(k, EventKind::ControlledShutdownGaveUp { attempts: 3, .. })
    });
    assert_eq!(gave_up.len(), 1);
    let stopped = find(&t, |k| {
        matches!(
            k,
            EventKind::BrokerStopped {
                controlled: true,
                ..
            }
        )
    });
    assert_eq!(stopped.len(), 1);
    // Two backoffs of 5 s after the first request at 500 ms.
    assert!(
        stopped[0].time_ms >= 10_500,
        "stopped at {}",
        stopped[0].time_ms
    );
    assert!(gave_up[0].id < stopped[0].id);
}

#[test]
fn restarted_follower_truncates_to_its_checkpointed_hw_and_rejoins_the_isr() {
    // Kafka before 0.11 (the notes' rule): truncate to the high watermark.
    let t = run(&cluster(
        "",
        r#"{"name": "t", "partitions": 1, "replication.factor": 3, "replica.assignment": {"0": [0, 1, 2]}}"#,
        r#"{"acks": 1, "enable.idempotence": false}"#,
        r#"{"at_ms": 100, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "v", "count": 3},
           {"at_ms": 5200, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "w", "count": 2},
           {"at_ms": 5300, "type": "kill_broker", "broker": 2},
           {"at_ms": 11400, "type": "restart_broker", "broker": 2}"#,
        18_000,
    )
    .replace(
        r#""cluster": {"#,
        r#""cluster": {"follower_truncation": "high_watermark", "#,
    ));
    // Broker 2's last checkpoint (at 5 s) said HW 3; it comes back, truncates there, refetches.
    let tr = find(
        &t,
        |k| matches!(k, EventKind::LogTruncated { broker, .. } if *broker == b(2)),
    );
    assert_eq!(tr.len(), 1);
    assert!(matches!(
        tr[0].kind,
        EventKind::LogTruncated {
            reason: TruncateReason::HighWatermark { high_watermark: 3 },
            ..
        }
    ));
    let rejoin = find(
        &t,
        |k| matches!(k, EventKind::IsrChangeApplied { isr, .. } if isr.contains(&b(2)) && isr.len() == 3),
    );
    assert!(rejoin.iter().any(|e| e.id > tr[0].id));
    let w = t.head();
    let tp = kafka_sim::TopicPartition::new("t", 0);
    assert_eq!(w.brokers()[&b(2)].logs[&tp].log_end_offset, 5);
}

/// Kafka 3.9 (`KafkaZkClient.registerBroker` → `checkedEphemeralCreate`)
/// will not start a broker while `/brokers/ids/<id>` belongs to its previous
/// process's session: NODEEXISTS, and the process exits. After the session
/// expires, the same restart works; after a controlled shutdown (which
/// closes the session) it works at once.
#[test]
fn restart_before_the_old_session_expires_fails_with_nodeexists_and_exits() {
    let t = run(&cluster(
        "",
        r#"{"name": "t", "partitions": 1, "replication.factor": 3}"#,
        "{}",
        r#"{"at_ms": 1000, "type": "kill_broker", "broker": 2},
           {"at_ms": 2000, "type": "restart_broker", "broker": 2},
           {"at_ms": 3000, "type": "restart_broker", "broker": 2},
           {"at_ms": 7100, "type": "restart_broker", "broker": 2},
           {"at_ms": 9000, "type": "shutdown_broker", "broker": 1},
           {"at_ms": 9500, "type": "restart_broker", "broker": 1}"#,
        12_000,
    ));
    let failed = find(&t, |k| {
        matches!(k, EventKind::BrokerRegistrationFailed { .. })
    });
    // Both restarts inside the 6 s session (killed at 1 s: until 7 s) fail.
    assert_eq!(failed.len(), 2, "{failed:?}");
    for (f, at) in failed.iter().zip([2000, 3000]) {
        assert_eq!(f.time_ms, at);
        match &f.kind {
            EventKind::BrokerRegistrationFailed {
                broker,
                owner_session,
                session_id,
                timeout_ms,
            } => {
                assert_eq!(*broker, b(2));
                assert_ne!(owner_session, session_id);
                assert_eq!(*timeout_ms, 6000);
            }
            _ => unreachable!(),
        }
    }
    // The failed process is down: the restart after it is accepted, not
    // refused as "running"; the third start registers.
    let registered = find(
        &t,
        |k| matches!(k, EventKind::ZnodeCreated { path, .. } if path == "/brokers/ids/2"),
    );
    assert_eq!(registered.len(), 2, "at start and at 7.1 s");
    assert!(registered[1].time_ms >= 7100);
    let w = t.head();
    assert!(w.brokers()[&b(2)].alive && w.brokers()[&b(2)].registered);
    // A controlled shutdown closed broker 1's session: its restart works.
    assert!(failed.iter().all(|f| f.time_ms < 9000));
    assert!(w.brokers()[&b(1)].alive && w.brokers()[&b(1)].registered);
    // The failing process's own session was closed, not left to expire.
    let sessions: Vec<_> = w.zookeeper().sessions.values().filter(|s| s.open).collect();
    assert_eq!(
        sessions.len(),
        3,
        "one open session per running broker: {sessions:?}"
    );
}

/// `broker.rack` on every broker: each broker registers its rack in
/// ZooKeeper, and topic creation reads it back and places every partition's
/// replicas on different racks (AdminZkClient → AdminUtils, rack-aware).
/// With racks on some brokers only, creation fails as AdminZkClient fails.
#[test]
fn topics_are_placed_rack_aware_from_the_racks_brokers_register() {
    let racks = r#""broker.rack": {"0": "az-a", "1": "az-a", "2": "az-b", "3": "az-b", "4": "az-c", "5": "az-c"}"#;
    let t = run(&format!(
        r#"{{"seed": 4, "run_until_ms": 1000,
            "cluster": {{"brokers": [0, 1, 2, 3, 4, 5], {racks}}},
            "topics": [{{"name": "t", "partitions": 12, "replication.factor": 3}}],
            "commands": [{{"at_ms": 500, "type": "create_topic", "topic": {{"name": "u", "partitions": 6, "replication.factor": 2}}}}]}}"#
    ));
    let zone = |b: &BrokerId| ["az-a", "az-a", "az-b", "az-b", "az-c", "az-c"][b.0 as usize];
    let created = find(&t, |k| matches!(k, EventKind::TopicCreated { .. }));
    let user: Vec<_> = created
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::TopicCreated { topic, .. } if !topic.starts_with("__")))
        .collect();
    assert_eq!(user.len(), 2);
    for e in user {
        let EventKind::TopicCreated {
            assignment,
            placement,
            ..
        } = &e.kind
        else {
            unreachable!()
        };
        let list = placement.as_ref().unwrap().rack_alternated.clone().unwrap();
        assert_eq!(list, [0, 2, 4, 1, 3, 5].map(b).to_vec());
        for reps in assignment.values() {
            let zones: std::collections::BTreeSet<_> = reps.iter().map(zone).collect();
            assert_eq!(zones.len(), reps.len(), "{reps:?} shares a zone");
        }
        let c = e.caption(kafka_sim::Lang::En);
        assert!(c.contains("rack-aware"), "{c}");
        let zh = e.caption(kafka_sim::Lang::Zh);
        assert!(zh.contains("机架感知"), "{zh}");
    }
    // The registration carries the rack, as Kafka's BrokerIdZNode does.
    let w = t.head();
    let reg = w.zookeeper().data_json("/brokers/ids/3").unwrap();
    assert_eq!(reg["rack"], "az-b");
    // Racks on some brokers only: AdminZkClient (Enforced) refuses.
    let t = run(r#"{"seed": 4, "run_until_ms": 500,
            "cluster": {"brokers": [0, 1, 2], "broker.rack": {"0": "a", "1": "b"}},
            "topics": [{"name": "t", "partitions": 1, "replication.factor": 2}]}"#);
    let failed = find(
        &t,
        |k| matches!(k, EventKind::TopicCreationFailed { topic, .. } if topic == "t"),
    );
    assert_eq!(failed.len(), 1);
    let c = failed[0].caption(kafka_sim::Lang::En);
    assert!(c.contains("Not all brokers have rack information"), "{c}");
    // A rack for a broker that is not in the cluster is a scenario error.
    let e = Scenario::from_json(
        r#"{"seed": 1, "run_until_ms": 10,
            "cluster": {"brokers": [0], "broker.rack": {"9": "a"}}}"#,
    )
    .unwrap_err();
    assert_eq!(e.field, "cluster.broker.rack.9");
}

#[test]
fn reassignment_moves_a_partition_to_new_brokers() {
    let t = run(r#"{"seed": 3, "run_until_ms": 4000,
        "cluster": {"brokers": [0, 1, 2, 3]},
        "topics": [{"name": "t", "partitions": 1, "replication.factor": 2, "replica.assignment": {"0": [0, 1]}}],
        "producers": [{"name": "p"}],
        "commands": [
          {"at_ms": 100, "type": "produce", "producer": "p", "topic": "t", "key": "a", "value": "1", "count": 5},
          {"at_ms": 500, "type": "reassign", "topic": "t", "partition": 0, "replicas": [2, 3]},
          {"at_ms": 2000, "type": "produce", "producer": "p", "topic": "t", "key": "b", "value": "2"}]}"#);
    assert_eq!(
        find(&t, |k| matches!(k, EventKind::ReassignmentCompleted { .. })).len(),
        1
    );
    let w = t.head();
    let tp = kafka_sim::TopicPartition::new("t", 0);
    assert!(
        !w.brokers()[&b(0)].logs.contains_key(&tp) && !w.brokers()[&b(1)].logs.contains_key(&tp)
    );
    assert_eq!(w.brokers()[&b(2)].logs[&tp].log_end_offset, 6);
    assert_eq!(w.brokers()[&b(3)].logs[&tp].log_end_offset, 6);
    assert_eq!(
        find(&t, |k| matches!(k, EventKind::RecordAcknowledged { .. })).len(),
        6
    );
    assert!(w.zookeeper().get("/admin/reassign_partitions").is_none());
}

#[test]
fn four_brokers_sixteen_partitions_rf3_in_the_cluster() {
    let t = run(
        r#"{"seed": 5, "run_until_ms": 500, "cluster": {"brokers": [0, 1, 2, 3]},
        "topics": [{"name": "t", "partitions": 16, "replication.factor": 3, "fixed_start_index": 0}]}"#,
    );
    let w = t.head();
    let mut leaders = [0; 4];
    for br in w.brokers().values() {
        for p in br.partitions.values().filter(|p| p.is_leader) {
            leaders[br.id.0 as usize] += 1;
            assert_eq!(p.replicas[0], br.id, "the preferred replica leads");
        }
        // Every broker holds 12 of the 48 replicas.
        assert_eq!(br.logs.len(), 12);
    }
    assert_eq!(leaders, [4, 4, 4, 4]);
}

#[test]
fn controller_and_leader_and_isr_work_goes_partition_by_partition_with_the_trace_unchanged() {
    // Topic creation, a broker failure (session expiry), a controlled
    // shutdown, restarts, added partitions and a second topic on 6 brokers:
    // every long handler now ends a step per partition. The digest was
    // taken from the engine before that change (c42236f), so the split
    // changed no event. (Re-pinned when follower fetches began to carry
    // their log start offset, a field of Kafka's FetchRequest: the same
    // 7,501 events, one more field in each follower Fetch; and again when
    // InitProducerId gained its transactional fields, the same events; and
    // when a re-elected leader began to keep its followers' LEOs and move
    // the high watermark at once, as `Partition.makeLeader` does: 7,455
    // events, the fetch-learned LEOs and late HW moves gone; and when the
    // HW checkpoint task began at the first LeaderAndIsr and a clean
    // shutdown wrote one more; and when a batch drained once stopped taking
    // new records while it waits for its retry, as Kafka closes a drained
    // batch: records sent meanwhile open a batch of their own, 7,473
    // events.)
    let mut cmds: Vec<String> = (0..30)
        .map(|i| format!(r#"{{"at_ms": {}, "type": "produce", "producer": "p", "topic": "t", "key": "k{i}", "value": "v", "count": 5}}"#, 1000 + i * 300))
        .collect();
    cmds.push(r#"{"at_ms": 3000, "type": "kill_broker", "broker": 3}"#.into());
    cmds.push(r#"{"at_ms": 4000, "type": "shutdown_broker", "broker": 4}"#.into());
    cmds.push(r#"{"at_ms": 12000, "type": "restart_broker", "broker": 3}"#.into());
    cmds.push(r#"{"at_ms": 13000, "type": "restart_broker", "broker": 4}"#.into());
    cmds.push(
        r#"{"at_ms": 16000, "type": "add_partitions", "topic": "t", "partitions": 80}"#.into(),
    );
    cmds.push(r#"{"at_ms": 17000, "type": "create_topic", "topic": {"name": "u", "partitions": 30, "replication.factor": 2}}"#.into());
    let text = format!(
        r#"{{"seed": 1, "run_until_ms": 25000, "cluster": {{"brokers": [0, 1, 2, 3, 4, 5], "config": {{"zookeeper.session.timeout.ms": 6000}}}},
            "topics": [{{"name": "t", "partitions": 60, "replication.factor": 3}}],
            "producers": [{{"name": "p"}}], "commands": [{}]}}"#,
        cmds.join(",")
    );
    let t = run(&text);
    assert_eq!(t.len(), 7473);
    assert_eq!(format!("{:016x}", t.digest()), "550e597b48e97f4b");
    let isr_updates = t
        .events()
        .iter()
        .filter(|e| matches!(e.kind, EventKind::IsrUpdatedByController { .. }))
        .count();
    assert_eq!(isr_updates, 98);
    // No step is long: the largest are a produce command's 5 records and a
    // leader answering a follower's fetch, not a 60-partition handler.
    let longest = (1..=t.len())
        .map(|n| n - t.boundary_at_or_before(n))
        .max()
        .unwrap();
    assert!(longest <= 40, "an event {longest} events into its step");
}

/// Kafka ≥ 3.7 (`Partition.effectiveMinIsr`): `min.insync.replicas` above
/// the replica count counts as the replica count, for the high-watermark
/// hold, `NOT_ENOUGH_REPLICAS` and `NOT_ENOUGH_REPLICAS_AFTER_APPEND`. An RF 1
/// topic with `min.insync.replicas=2` takes acks=all writes and moves its
/// high watermark; an RF 3 topic with `min.insync.replicas=5` does so with
/// all three in the ISR.
#[test]
fn min_insync_replicas_above_the_replica_count_counts_as_the_replica_count() {
    for (rf, min_isr) in [(1, 2), (3, 5)] {
        let replicas: Vec<String> = (0..rf).map(|i| i.to_string()).collect();
        let t = run(&cluster(
            &format!(r#", "min.insync.replicas": {min_isr}"#),
            &format!(
                r#"{{"name": "t", "partitions": 1, "replication.factor": {rf}, "replica.assignment": {{"0": [{}]}}}}"#,
                replicas.join(", ")
            ),
            "{}",
            r#"{"at_ms": 100, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "a"}"#,
            3000,
        ));
        let acked = find(&t, |k| matches!(k, EventKind::RecordAcknowledged { .. })).len();
        assert_eq!(
            acked, 1,
            "RF {rf}, min.insync.replicas={min_isr}: the record is acknowledged"
        );
        let refused = find(&t, |k| {
            matches!(
                k,
                EventKind::ProduceRejected {
                    error: ErrorCode::NotEnoughReplicas | ErrorCode::NotEnoughReplicasAfterAppend,
                    ..
                } | EventKind::HighWatermarkHeld { .. }
            )
        });
        assert!(
            refused.is_empty(),
            "RF {rf}: {:?}",
            refused.first().map(|e| e.caption(kafka_sim::Lang::En))
        );
        let w = t.head();
        let tp = TopicPartition::new("t", 0);
        assert_eq!(
            w.brokers()[&b(0)].partitions[&tp].high_watermark,
            1,
            "RF {rf}"
        );
    }
}

/// A follower whose fetch times out waits `replica.fetch.backoff.ms` before
/// the next one (`AbstractFetcherThread.processFetchRequest` →
/// `handlePartitionsWithErrors` → `delayPartitions`, Kafka 3.9), instead of
/// sending again at once.
#[test]
fn a_timed_out_follower_fetch_backs_off_before_the_next() {
    let t = run(&cluster(
        r#", "request.timeout.ms": 2000, "replica.fetch.backoff.ms": 1000"#,
        r#"{"name": "t", "partitions": 1, "replication.factor": 3, "replica.assignment": {"0": [0, 1, 2]}}"#,
        "{}",
        r#"{"at_ms": 1000, "type": "cut_link", "a": "broker-0", "b": "broker-2"}"#,
        12_000,
    ));
    // Fetches from broker 2 to broker 0 while the link is cut: each is lost,
    // times out after request.timeout.ms, and the next waits 1000 ms more.
    let sends: Vec<u64> = t
        .events()
        .iter()
        .filter(|e| e.time_ms > 1000)
        .filter(|e| match &e.kind {
            EventKind::MessageDropped { from, to, api, .. } => {
                *from == kafka_sim::NodeId::Broker(b(2))
                    && *to == kafka_sim::NodeId::Broker(b(0))
                    && api == "Fetch"
            }
            _ => false,
        })
        .map(|e| e.time_ms)
        .collect();
    assert!(sends.len() >= 3, "{sends:?}");
    for w in sends.windows(2) {
        assert!(
            w[1] - w[0] >= 2000 + 1000,
            "fetches at {sends:?}: request.timeout.ms + replica.fetch.backoff.ms apart"
        );
    }
}

/// The follower (broker 2) holds epochs 0 and 3; the leader (broker 1)
/// holds 0, 1 and 5 (offline spells took 2 and 4). The leader answers the
/// follower's epoch 3 with "epoch 1 ends at offset 2", an epoch the
/// follower never had. Kafka
/// (`AbstractFetcherThread.getOffsetTruncationState`) then truncates to
/// where the follower's own largest epoch below 1 ends (epoch 0, offset 1)
/// and asks again with epoch 0; the second answer matches and the replicas
/// converge. Truncating to the leader's end offset instead keeps the epoch-2
/// record and diverges on every fetch, forever.
#[test]
fn truncation_converges_over_rounds_when_the_follower_lacks_the_leaders_epoch() {
    let produce = |at: u64, v: &str| {
        format!(
            r#"{{"at_ms": {at}, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "{v}"}}"#
        )
    };
    let commands = [
        produce(200, "r0"),
        r#"{"at_ms": 1000, "type": "kill_broker", "broker": 2}"#.into(),
        produce(8000, "r1"),
        r#"{"at_ms": 9000, "type": "kill_broker", "broker": 1}"#.into(),
        r#"{"at_ms": 16000, "type": "restart_broker", "broker": 2}"#.into(),
        produce(18000, "r2"),
        r#"{"at_ms": 19000, "type": "kill_broker", "broker": 2}"#.into(),
        r#"{"at_ms": 26000, "type": "restart_broker", "broker": 1}"#.into(),
        produce(28000, "r3"),
        r#"{"at_ms": 29000, "type": "restart_broker", "broker": 2}"#.into(),
    ]
    .join(",");
    let topic = r#"{"name": "t", "partitions": 1, "replication.factor": 2, "replica.assignment": {"0": [1, 2]}}"#;
    let t = run(&cluster(
        r#", "unclean.leader.election.enable": true"#,
        topic,
        r#"{"acks": 1, "enable.idempotence": false}"#,
        &commands,
        40000,
    ));
    let tp = TopicPartition::new("t", 0);
    // The setup: broker 2 leads an epoch (unclean) that broker 1 never sees,
    // then broker 1 leads a later one (unclean) and broker 2 comes back.
    let elected: Vec<(i32, i32)> = find(&t, |k| matches!(k, EventKind::LeaderElected { .. }))
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::LeaderElected {
                leader,
                leader_epoch,
                ..
            } => Some((leader.0, *leader_epoch)),
            _ => None,
        })
        .collect();
    let leaders: Vec<i32> = elected.iter().map(|(b, _)| *b).collect();
    assert_eq!(leaders, [1, 2, 1], "{elected:?}");
    assert_eq!(log_values(&t, 1, &tp), ["r0", "r1", "r3"]);
    // Two rounds: the first cuts the follower to the end of its epoch 0
    // (offset 1) without finishing; the second finds the logs agree.
    assert_eq!(log_values(&t, 2, &tp), ["r0", "r1", "r3"]);
    let rounds = find(&t, |k| matches!(k, EventKind::DivergenceDetected { .. }));
    assert!(rounds.len() <= 3, "{} divergence rounds", rounds.len());
    let cuts: Vec<i64> = find(
        &t,
        |k| matches!(k, EventKind::LogTruncated { broker, .. } if broker.0 == 2),
    )
    .iter()
    .filter_map(|e| match &e.kind {
        EventKind::LogTruncated { truncated, .. } => Some(truncated.to_offset),
        _ => None,
    })
    .collect();
    assert!(cuts.contains(&1), "the follower cut to offset 1: {cuts:?}");
}

/// Seeking restores a checkpoint (one of the spaced ones, or one of the
/// recent ones near the head) and replays: a world restored at any step
/// boundary, near the end of the run as anywhere else, runs on to exactly
/// the recorded events.
#[test]
fn a_world_restored_anywhere_runs_on_to_the_recorded_trace() {
    let text = scenario_file("group-rebalance");
    let mut t = kafka_sim::Timeline::new(kafka_sim::Scenario::from_json(&text).unwrap()).unwrap();
    let n = t.run_to_end();
    assert!(t.checkpoints() > 4, "{} checkpoints", t.checkpoints());
    let trace = t.events().to_vec();
    for target in [n - 1, n - 2, n - 5, n - 40, n - 300, n / 2, n / 3, 100, 1] {
        let b = t.boundary_at_or_before(target);
        let mut w = t.boundary_world(b);
        assert_eq!(w.events_emitted(), b);
        let mut got = Vec::new();
        while got.len() < 60 && w.step() {
            got.extend(w.drain_events());
        }
        let end = (b as usize + got.len()).min(trace.len());
        assert_eq!(
            &got[..end - b as usize],
            &trace[b as usize..end],
            "from {b}"
        );
        assert_eq!(t.state_at(target).events_emitted(), target);
    }
}

#[test]
fn the_last_election_before_any_event_is_the_one_a_scan_back_finds() {
    let t = ran_to_end("group-rebalance");
    let n = t.len();
    let elected = |e: &kafka_sim::Event| matches!(e.kind, EventKind::LeaderElected { .. });
    let trace = t.events().to_vec();
    assert!(trace.iter().filter(|e| elected(e)).count() > 2);
    for i in 0..=n {
        let scanned = trace[..i as usize].iter().rev().find(|e| elected(e));
        assert_eq!(
            t.last_election_before(i).map(|e| e.id),
            scanned.map(|e| e.id),
            "before event {i}"
        );
    }
}

/// ZooKeeper's write count moves with every znode created, set or deleted
/// (the page keeps what it read from the tree until it moves).
#[test]
fn zookeepers_write_count_moves_with_every_znode_event() {
    let mut t = ran_to_end("leader-failover");
    let n = t.len();
    let trace = t.events().to_vec();
    let mut writes = 0;
    for i in 0..=n {
        assert_eq!(
            t.state_at(i).zookeeper().writes(),
            writes,
            "after {i} events"
        );
        if let Some(e) = trace.get(i as usize) {
            if matches!(
                e.kind,
                EventKind::ZnodeCreated { .. }
                    | EventKind::ZnodeUpdated { .. }
                    | EventKind::ZnodeDeleted { .. }
            ) {
                writes += 1;
            }
        }
    }
    assert!(trace
        .iter()
        .any(|e| matches!(e.kind, EventKind::ZnodeDeleted { .. })));
}

/// The timeline of the scenario file `name`, run to its end.
fn ran_to_end(name: &str) -> kafka_sim::Timeline {
    let mut t =
        kafka_sim::Timeline::new(kafka_sim::Scenario::from_json(&scenario_file(name)).unwrap())
            .unwrap();
    t.run_to_end();
    t
}

/// The controller adds one partition's state to the LeaderAndIsr request of
/// each of its replicas (`addLeaderAndIsrRequestForBrokers`): the requests
/// share that state, one allocation per partition, not one per replica.
#[test]
fn leader_and_isr_requests_share_each_partitions_state() {
    use kafka_sim::msg::{Message, PartitionState};
    use std::collections::BTreeMap;
    use std::sync::Arc;
    let t = run(r#"{"seed": 3, "run_until_ms": 500,
        "cluster": {"brokers": [0, 1, 2, 3, 4]},
        "topics": [{"name": "t", "partitions": 40, "replication.factor": 3}]}"#);
    let mut states: BTreeMap<TopicPartition, Vec<Arc<PartitionState>>> = BTreeMap::new();
    for e in t.events() {
        if let EventKind::MessageSent { message, .. } = &e.kind {
            if let Message::LeaderAndIsr { partitions, .. } = &**message {
                for p in partitions.iter().filter(|p| p.tp.topic.as_ref() == "t") {
                    states.entry(p.tp.clone()).or_default().push(Arc::clone(p));
                }
            }
        }
    }
    assert_eq!(states.len(), 40);
    for (tp, s) in &states {
        assert_eq!(s.len(), 3, "{tp}: one request per replica");
        assert!(s.iter().all(|x| Arc::ptr_eq(x, &s[0])), "{tp}: copies");
    }
}

/// Each retention rename schedules its own `delete-file` task exactly
/// `file.delete.delay.ms` later (`LocalLog.deleteSegmentFiles`, Kafka 3.9
/// lines 909-936), not at the next retention check; a broker restarted
/// before the task runs removes the stray `.deleted` files as it loads
/// (`LogLoader`, lines 229-233).
#[test]
fn deleted_segment_files_go_exactly_file_delete_delay_after_the_rename() {
    let text = common::repo_file("static/lessons/retention-and-compaction.json");
    let t = run(&text);
    let renamed: Vec<u64> = t
        .events()
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::SegmentsDeleted { applied, .. } if !applied.deleted.is_empty()))
        .map(|e| e.time_ms)
        .collect();
    let removed: Vec<u64> = t
        .events()
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::FilesDeleted { .. }))
        .map(|e| e.time_ms)
        .collect();
    assert_eq!(renamed, vec![4000, 6000]);
    assert_eq!(
        removed,
        vec![4500, 6500],
        "file.delete.delay.ms is 500 here"
    );

    // With a long delay and a restart in between, the files go at startup.
    let long = text
        .replace(r#""file.delete.delay.ms": 500"#, r#""file.delete.delay.ms": 60000"#)
        .replace(
            r#""commands": ["#,
            r#""commands": [{"at_ms": 4200, "type": "kill_broker", "broker": 0}, {"at_ms": 4300, "type": "restart_broker", "broker": 0},"#,
        );
    assert_ne!(long, text);
    let t = run(&long);
    let gone: Vec<(u64, usize)> = t
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::FilesDeleted { files, .. } => Some((e.time_ms, files.len())),
            _ => None,
        })
        .collect();
    assert_eq!(gone.first(), Some(&(4300, 3)), "{gone:?}");
}

/// The retention task first runs `log.initial.task.delay.ms` (30 s, an
/// internal setting) after the log manager starts, then every
/// `log.retention.check.interval.ms` (`LogManager.startup`, Kafka 3.9 lines
/// 627-633). The retention lesson sets the delay to 0; with Kafka's
/// default its first deletion waits until 30 s, though the segments are
/// due at 4 s.
#[test]
fn the_first_retention_check_waits_the_initial_task_delay() {
    let text = common::repo_file("static/lessons/retention-and-compaction.json");
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let config = v["cluster"]["config"].as_object_mut().unwrap();
    assert_eq!(config.remove("log.initial.task.delay.ms"), Some(0.into()));
    v["run_until_ms"] = 40_000.into();
    v.as_object_mut().unwrap().remove("lesson");
    let t = run(&v.to_string());
    let deleted: Vec<u64> = t
        .events()
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::SegmentsDeleted { applied, .. } if !applied.deleted.is_empty()))
        .map(|e| e.time_ms)
        .collect();
    assert_eq!(deleted.first(), Some(&30_000), "{deleted:?}");
}

/// `ReplicaManager.checkpointHighWatermarks` rewrites
/// `replication-offset-checkpoint` with the partitions a broker hosts now
/// (Kafka 3.9 lines 2431-2453): a partition moved away by a reassignment
/// drops out of the old replicas' files.
#[test]
fn the_hw_checkpoint_lists_only_partitions_still_hosted() {
    let t = run(r#"{"seed": 3, "run_until_ms": 16000,
        "cluster": {"brokers": [0, 1, 2, 3]},
        "topics": [{"name": "t", "partitions": 1, "replication.factor": 2, "replica.assignment": {"0": [0, 1]}},
                   {"name": "u", "partitions": 1, "replication.factor": 2, "replica.assignment": {"0": [0, 1]}}],
        "producers": [{"name": "p"}],
        "commands": [
          {"at_ms": 100, "type": "produce", "producer": "p", "topic": "t", "key": "a", "value": "1", "count": 5},
          {"at_ms": 6000, "type": "reassign", "topic": "t", "partition": 0, "replicas": [2, 3]}]}"#);
    let w = t.head();
    let t0 = kafka_sim::TopicPartition::new("t", 0);
    let u0 = kafka_sim::TopicPartition::new("u", 0);
    let cp = &w.brokers()[&b(0)].hw_checkpoint;
    assert!(!cp.contains_key(&t0), "{cp:?}");
    assert!(cp.contains_key(&u0), "{cp:?}");
    assert_eq!(w.brokers()[&b(2)].hw_checkpoint.get(&t0), Some(&5));
}

/// The `highwatermark-checkpoint` task starts after a broker's first
/// LeaderAndIsr with no delay, then runs every
/// `replica.high.watermark.checkpoint.interval.ms` (ReplicaManager, Kafka
/// 3.9 lines 358-361, 2060-2062); a clean shutdown writes one last
/// checkpoint (`shutdown(checkpointHW = true)`, lines 2535-2548), so the
/// restarted broker starts from the exact high watermark.
#[test]
fn the_hw_checkpoint_starts_at_the_first_leader_and_isr_and_ends_at_a_clean_stop() {
    let t = run(r#"{"seed": 1, "run_until_ms": 5000,
        "cluster": {"brokers": [0, 1, 2]},
        "topics": [{"name": "t", "partitions": 1, "replication.factor": 3, "replica.assignment": {"0": [0, 1, 2]}}],
        "producers": [{"name": "p", "config": {"acks": "all"}}],
        "commands": [
          {"at_ms": 100, "type": "produce", "producer": "p", "topic": "t", "key": "a", "value": "1", "count": 5},
          {"at_ms": 2000, "type": "shutdown_broker", "broker": 1}]}"#);
    let checkpoints = |broker: i32| -> Vec<u64> {
        t.events()
            .iter()
            .filter(|e| matches!(&e.kind, EventKind::HighWatermarkCheckpointed { broker: x, .. } if x.0 == broker))
            .map(|e| e.time_ms)
            .collect()
    };
    let became = t
        .events()
        .iter()
        .find(|e| matches!(&e.kind, EventKind::BecameFollower { broker, .. } if broker.0 == 1))
        .expect("broker 1 follows")
        .time_ms;
    let stopped = t
        .events()
        .iter()
        .find(|e| matches!(&e.kind, EventKind::BrokerStopped { broker, controlled: true } if broker.0 == 1))
        .expect("broker 1 stops cleanly")
        .time_ms;
    let one = checkpoints(1);
    assert_eq!(one.first(), Some(&became), "{one:?}");
    assert_eq!(one.last(), Some(&stopped), "{one:?}");
    let w = t.head();
    assert_eq!(
        w.brokers()[&b(1)]
            .hw_checkpoint
            .get(&kafka_sim::TopicPartition::new("t", 0)),
        Some(&5),
        "the last HW, written at the clean stop"
    );
}
