//! Consumer groups on the trace (G1–G12): coordinator lookup, the rebalance
//! protocol, assignment, offsets, failures. Each test runs a scenario and
//! asserts what the events say. `DUMP=1 cargo test --test groups NAME -- --nocapture`
//! prints a trace.

mod common;
use common::{find, run};
use kafka_sim::collections::{SortedMap, SortedSet};
use kafka_sim::event::EventKind;
use kafka_sim::ids::TopicPartition;
use kafka_sim::Timeline;

fn consumer(name: &str, extra: &str) -> String {
    format!(
        r#"{{"name": "{name}", "subscribe": ["orders"], "config": {{"group.id": "g", "auto.offset.reset": "earliest"{extra}}}}}"#
    )
}

fn scenario(until: u64, consumers: &[String], commands: &str, broker_cfg: &str) -> String {
    format!(
        r#"{{"seed": 3, "run_until_ms": {until},
        "cluster": {{"brokers": [0, 1, 2], "config": {{"offsets.topic.num.partitions": 5{broker_cfg}}}}},
        "topics": [{{"name": "orders", "partitions": 6, "replication.factor": 3}}],
        "producers": [{{"name": "p", "config": {{"partitioner.ignore.keys": true, "linger.ms": 5}}}}],
        "consumers": [{}],
        "commands": [{commands}]}}"#,
        consumers.join(",")
    )
}

/// `n` records into each of the six partitions.
fn produce_each(at: u64, n: u32) -> String {
    (0..6)
        .map(|p| format!(r#"{{"at_ms": {at}, "type": "produce", "producer": "p", "topic": "orders", "partition": {p}, "value": "v{at}", "count": {n}}}"#))
        .collect::<Vec<_>>()
        .join(",")
}

fn produce(at: u64, n: u32) -> String {
    format!(
        r#"{{"at_ms": {at}, "type": "produce", "producer": "p", "topic": "orders", "value": "v{at}", "count": {n}}}"#
    )
}

/// The last assignment each consumer reported.
fn owned(t: &Timeline) -> SortedMap<u32, Vec<TopicPartition>> {
    let mut m = SortedMap::new();
    for e in t.events() {
        match &e.kind {
            EventKind::PartitionsAssigned {
                consumer,
                assignment,
                ..
            } => {
                m.insert(*consumer, assignment.clone());
            }
            EventKind::PartitionsRevoked {
                consumer,
                partitions,
                ..
            } => {
                m.entry(*consumer)
                    .or_insert_with(Vec::new)
                    .retain(|t| !partitions.contains(t));
            }
            _ => {}
        }
    }
    m
}

/// (consumer, partition, offset) of every record handed to an application.
fn consumed(t: &Timeline) -> Vec<(u32, TopicPartition, i64)> {
    let mut v = Vec::new();
    for e in t.events() {
        if let EventKind::RecordsConsumed {
            consumer,
            tp,
            records,
            ..
        } = &e.kind
        {
            for r in records {
                v.push((*consumer, tp.clone(), r.offset));
            }
        }
    }
    v
}

fn no_broken_guarantees(t: &Timeline) {
    let broken = find(t, |k| matches!(k, EventKind::GuaranteeBroken { .. }));
    assert!(
        broken.is_empty(),
        "{:?}",
        broken.first().map(|e| e.caption(kafka_sim::Lang::En))
    );
}

#[test]
fn three_members_share_six_partitions_and_consume_everything_once() {
    let t = run(&scenario(
        20_000,
        &[consumer("a", ""), consumer("b", ""), consumer("c", "")],
        &produce(8_000, 60),
        "",
    ));
    no_broken_guarantees(&t);
    // One coordinator lookup answer per member, all naming the same broker and
    // the partition abs("g".hashCode()) % 5 = 103 % 5 = 3.
    let found = find(&t, |k| matches!(k, EventKind::CoordinatorFound { .. }));
    assert_eq!(found.len(), 3);
    for e in &found {
        let EventKind::CoordinatorFound { partition, .. } = &e.kind else {
            unreachable!()
        };
        assert_eq!(*partition, 3);
    }
    // KIP-394: each first JoinGroup is answered with a member id.
    assert_eq!(
        find(&t, |k| matches!(k, EventKind::MemberIdAssigned { .. })).len(),
        3
    );
    // One generation, the range assignor (the default list's first), 2 each.
    let gens = find(&t, |k| matches!(k, EventKind::GenerationStarted { .. }));
    assert_eq!(gens.len(), 1);
    let EventKind::GenerationStarted {
        protocol, members, ..
    } = &gens[0].kind
    else {
        unreachable!()
    };
    assert_eq!(protocol.as_deref(), Some("range"));
    assert_eq!(members.len(), 3);
    let o = owned(&t);
    assert_eq!(o.values().map(Vec::len).collect::<Vec<_>>(), [2, 2, 2]);
    // Every record once, by the owner of its partition.
    let c = consumed(&t);
    assert_eq!(c.len(), 60);
    let unique: SortedSet<_> = c.iter().map(|(_, tp, o)| (tp.clone(), *o)).collect();
    assert_eq!(unique.len(), 60);
    for (who, tp, _) in &c {
        assert!(
            o[who].contains(tp),
            "consumer {who} read {tp} it does not own"
        );
    }
    // Auto-commit reached the coordinator: the last commit per partition covers everything.
    let mut committed: SortedMap<TopicPartition, i64> = SortedMap::new();
    for e in find(&t, |k| matches!(k, EventKind::OffsetsCommitted { .. })) {
        let EventKind::OffsetsCommitted { offsets, .. } = &e.kind else {
            unreachable!()
        };
        for (tp, off) in offsets {
            committed.insert(tp.clone(), *off);
        }
    }
    assert_eq!(committed.values().sum::<i64>(), 60, "{committed:?}");
}

#[test]
fn a_crashed_member_is_expelled_after_the_session_timeout_and_its_partitions_resume_from_the_commit(
) {
    let t = run(&scenario(
        40_000,
        &[
            consumer(
                "a",
                r#", "session.timeout.ms": 10000, "heartbeat.interval.ms": 3000"#,
            ),
            consumer(
                "b",
                r#", "session.timeout.ms": 10000, "heartbeat.interval.ms": 3000"#,
            ),
        ],
        &[
            produce_each(5_000, 10),
            r#"{"at_ms": 15000, "type": "crash_consumer", "consumer": "b"}"#.into(),
            produce_each(16_000, 10),
        ]
        .join(","),
        "",
    ));
    no_broken_guarantees(&t);
    let removed = find(&t, |k| matches!(k, EventKind::MemberRemoved { .. }));
    assert_eq!(removed.len(), 1);
    let EventKind::MemberRemoved { reason, .. } = &removed[0].kind else {
        unreachable!()
    };
    assert!(reason.contains("session.timeout.ms=10000"), "{reason}");
    // Expelled session.timeout.ms after b's last heartbeat, which came at most
    // one heartbeat.interval.ms before the crash.
    assert!(
        (22_000..=25_100).contains(&removed[0].time_ms),
        "{}",
        removed[0].time_ms
    );
    // a ends up with all six partitions, and for b's it starts at b's commits.
    let o = owned(&t);
    assert_eq!(o[&0].len(), 6);
    // Eager: a gave up its own three too, and takes all six back at their
    // committed offsets: its own at 20, b's at 10 (b auto-committed the first
    // ten before it crashed; the second ten arrived after).
    let resumed: Vec<i64> = find(&t, |k| matches!(k, EventKind::ConsumerPositionReset { consumer: 0, reason, .. } if reason.contains("the committed offset")))
        .iter()
        .map(|e| match &e.kind { EventKind::ConsumerPositionReset { position, .. } => *position, _ => -1 })
        .collect();
    assert_eq!(resumed, [20, 20, 20, 10, 10, 10]);
    // Nothing is lost and nothing read twice: b had committed all it read.
    let c = consumed(&t);
    let unique: SortedSet<_> = c.iter().map(|(_, tp, o)| (tp.clone(), *o)).collect();
    assert_eq!(unique.len(), 120);
    assert_eq!(c.len(), 120);
}

#[test]
fn stop_sends_leave_group_and_rebalances_at_once() {
    let t = run(&scenario(
        16_000,
        &[consumer("a", ""), consumer("b", "")],
        r#"{"at_ms": 9000, "type": "stop_consumer", "consumer": "b"}"#,
        "",
    ));
    no_broken_guarantees(&t);
    let left = find(&t, |k| {
        matches!(
            k,
            EventKind::LeftGroup {
                consumer: 1,
                sent_leave_group: true,
                ..
            }
        )
    });
    assert_eq!(left.len(), 1);
    let removed = find(
        &t,
        |k| matches!(k, EventKind::MemberRemoved { reason, .. } if reason == "sent LeaveGroup"),
    );
    assert_eq!(removed.len(), 1);
    assert!(
        removed[0].time_ms - left[0].time_ms < 50,
        "the coordinator hears it at once"
    );
    assert_eq!(owned(&t)[&0].len(), 6);
}

#[test]
fn the_coordinator_moves_with_the_offsets_partition_leader() {
    // g's offsets partition is __consumer_offsets-3; find its leader from the
    // trace and kill it.
    let base = scenario(9_000, &[consumer("a", "")], &produce(5_000, 12), "");
    let t = run(&base);
    let found = find(&t, |k| matches!(k, EventKind::CoordinatorFound { .. }));
    let EventKind::CoordinatorFound { broker, .. } = &found[0].kind else {
        unreachable!()
    };
    let coord = broker.0;
    let t = run(&scenario(
        40_000,
        &[consumer("a", "")],
        &[
            produce(5_000, 12),
            format!(r#"{{"at_ms": 12000, "type": "kill_broker", "broker": {coord}}}"#),
            produce(30_000, 12),
        ]
        .join(","),
        r#", "zookeeper.session.timeout.ms": 6000"#,
    ));
    no_broken_guarantees(&t);
    // A new leader of __consumer_offsets-3 loads g with its committed offsets.
    let loaded = find(
        &t,
        |k| matches!(k, EventKind::GroupsLoaded { partition: 3, groups, .. } if groups.contains(&"g".to_string())),
    );
    assert_eq!(loaded.len(), 1, "exactly one broker took over g");
    let EventKind::GroupsLoaded {
        broker, offsets, ..
    } = &loaded[0].kind
    else {
        unreachable!()
    };
    assert_ne!(broker.0, coord);
    assert_eq!(
        *offsets, 6,
        "all six partitions' commits were read back from the log"
    );
    // The member found the new coordinator and kept consuming: all 24 records, no repeats.
    let found: Vec<i32> = find(&t, |k| matches!(k, EventKind::CoordinatorFound { .. }))
        .iter()
        .map(|e| match &e.kind {
            EventKind::CoordinatorFound { broker, .. } => broker.0,
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(found.first(), Some(&coord));
    assert_eq!(found.last(), Some(&broker.0));
    let c = consumed(&t);
    let unique: SortedSet<_> = c.iter().map(|(_, tp, o)| (tp.clone(), *o)).collect();
    assert_eq!(unique.len(), 24);
    assert_eq!(
        c.len(),
        24,
        "the group was restored without a rebalance: no record read twice"
    );
}

#[test]
fn cooperative_rebalance_revokes_only_what_moves_eager_revokes_everything() {
    let strategy = |s: &str| format!(r#", "partition.assignment.strategy": ["{s}"]"#);
    let run_with = |s: &str| {
        run(&scenario(
            20_000,
            &[
                consumer("a", &strategy(s)),
                consumer("b", &strategy(s)),
                format!(
                    r#"{{"name": "c", "subscribe": ["orders"], "start_at_ms": 10000, "config": {{"group.id": "g"{}}}}}"#,
                    strategy(s)
                ),
            ],
            "",
            "",
        ))
    };
    let coop = run_with("cooperative-sticky");
    no_broken_guarantees(&coop);
    // a and b had 3 each; c joins. Round one: a and b each give up one partition, keep two.
    let revoked: Vec<usize> = find(&coop, |k| matches!(k, EventKind::PartitionsRevoked { .. }))
        .iter()
        .map(|e| match &e.kind {
            EventKind::PartitionsRevoked { partitions, .. } => partitions.len(),
            _ => 0,
        })
        .collect();
    assert_eq!(revoked, [1, 1], "only the partitions that move are revoked");
    // Two rebalances after c starts: the revoking round and the assigning round.
    let gens = find(&coop, |k| matches!(k, EventKind::GenerationStarted { .. }));
    assert_eq!(gens.len(), 3, "initial + two cooperative rounds");
    let o = owned(&coop);
    assert_eq!(o.values().map(Vec::len).collect::<Vec<_>>(), [2, 2, 2]);
    // Eager: everyone revokes everything, one rebalance.
    let eager = run_with("sticky");
    no_broken_guarantees(&eager);
    let revoked: Vec<usize> = find(&eager, |k| matches!(k, EventKind::PartitionsRevoked { .. }))
        .iter()
        .map(|e| match &e.kind {
            EventKind::PartitionsRevoked { partitions, .. } => partitions.len(),
            _ => 0,
        })
        .collect();
    assert_eq!(revoked, [3, 3]);
    assert_eq!(
        find(&eager, |k| matches!(k, EventKind::GenerationStarted { .. })).len(),
        2
    );
    // Sticky keeps a's and b's two partitions in both.
    let e = owned(&eager);
    assert_eq!(e.values().map(Vec::len).collect::<Vec<_>>(), [2, 2, 2]);
}

#[test]
fn a_static_member_that_returns_within_the_session_keeps_its_partitions_without_a_rebalance() {
    let st = r#", "group.instance.id": "box-1", "session.timeout.ms": 20000"#;
    let t = run(&scenario(
        30_000,
        &[consumer("a", ""), consumer("b", st)],
        &[
            r#"{"at_ms": 10000, "type": "crash_consumer", "consumer": "b"}"#.to_string(),
            format!(
                r#"{{"at_ms": 14000, "type": "add_consumer", "consumer": {}}}"#,
                consumer("b2", st)
            ),
        ]
        .join(","),
        "",
    ));
    no_broken_guarantees(&t);
    let replaced = find(&t, |k| matches!(k, EventKind::StaticMemberReplaced { .. }));
    assert_eq!(replaced.len(), 1);
    // Only the initial rebalance: the crash and return caused none.
    assert_eq!(
        find(&t, |k| matches!(k, EventKind::RebalanceStarted { .. })).len(),
        1
    );
    let o = owned(&t);
    assert_eq!(o[&1], o[&2], "b2 got exactly b's partitions back");
}

#[test]
fn a_stalled_poll_loop_leaves_the_group_and_its_later_commit_fails() {
    let t = run(&scenario(
        40_000,
        &[
            consumer(
                "a",
                r#", "max.poll.interval.ms": 8000, "enable.auto.commit": false"#,
            ),
            consumer("b", r#", "max.poll.interval.ms": 8000"#),
        ],
        &[
            produce(5_000, 12),
            r#"{"at_ms": 9000, "type": "pause_consumer", "consumer": "a", "duration_ms": 12000}"#
                .into(),
            r#"{"at_ms": 21500, "type": "commit_sync", "consumer": "a"}"#.into(),
        ]
        .join(","),
        "",
    ));
    no_broken_guarantees(&t);
    let left = find(
        &t,
        |k| matches!(k, EventKind::LeftGroup { consumer: 0, reason, .. } if reason.contains("max.poll.interval.ms=8000")),
    );
    assert_eq!(
        left.len(),
        1,
        "the heartbeat thread notices the stalled poll loop"
    );
    assert!(
        find(
            &t,
            |k| matches!(k, EventKind::MemberRemoved { reason, .. } if reason == "sent LeaveGroup")
        )
        .len()
            == 1
    );
    // b takes over everything in the next generation; a rejoins after the pause.
    assert!(owned(&t)[&0].len() + owned(&t)[&1].len() == 6);
}

#[test]
fn a_member_cut_off_from_its_coordinator_is_expelled_and_its_late_commit_is_refused() {
    // a loses its link to the coordinator (broker 2 leads __consumer_offsets-3
    // in this scenario) for longer than its session: it is removed, b takes
    // everything in the next generation, and a's commitSync after the link
    // heals is answered UNKNOWN_MEMBER_ID: Kafka's CommitFailedException.
    let t = run(&scenario(
        40_000,
        &[
            consumer(
                "a",
                r#", "session.timeout.ms": 10000, "heartbeat.interval.ms": 3000, "enable.auto.commit": false, "request.timeout.ms": 5000"#,
            ),
            consumer("b", ""),
        ],
        &[
            produce_each(5_000, 5),
            r#"{"at_ms": 9000, "type": "cut_link", "a": "consumer-0", "b": "broker-2"}"#.into(),
            r#"{"at_ms": 24000, "type": "heal_link", "a": "consumer-0", "b": "broker-2"}"#.into(),
            r#"{"at_ms": 24100, "type": "commit_sync", "consumer": "a"}"#.into(),
        ]
        .join(","),
        "",
    ));
    no_broken_guarantees(&t);
    let found = find(&t, |k| {
        matches!(k, EventKind::CoordinatorFound { consumer: 0, .. })
    });
    let EventKind::CoordinatorFound { broker, .. } = &found[0].kind else {
        unreachable!()
    };
    assert_eq!(broker.0, 2, "the scenario assumes broker 2 coordinates g");
    let removed = find(
        &t,
        |k| matches!(k, EventKind::MemberRemoved { reason, .. } if reason.contains("session.timeout.ms=10000")),
    );
    assert_eq!(removed.len(), 1);
    let failed = find(&t, |k| {
        matches!(k, EventKind::OffsetCommitFailed { consumer: 0, .. })
    });
    assert!(!failed.is_empty(), "a's late commit is refused");
    let EventKind::OffsetCommitFailed { error, detail, .. } = &failed[0].kind else {
        unreachable!()
    };
    assert_eq!(*error, kafka_sim::msg::ErrorCode::UnknownMemberId);
    assert!(detail.starts_with("CommitFailedException"), "{detail}");
    // a learns it lost its partitions, rejoins, and the two share them again.
    assert!(!find(&t, |k| matches!(
        k,
        EventKind::PartitionsRevoked {
            consumer: 0,
            lost: true,
            ..
        }
    ))
    .is_empty());
    let o = owned(&t);
    assert_eq!(o[&0].len() + o[&1].len(), 6);
    assert_eq!(o[&0].len(), 3);
}

#[test]
fn a_regex_subscription_picks_up_a_new_matching_topic() {
    let t = run(r#"{"seed": 3, "run_until_ms": 30000,
        "cluster": {"brokers": [0, 1, 2], "config": {"offsets.topic.num.partitions": 5}},
        "topics": [{"name": "orders-eu", "partitions": 2, "replication.factor": 3}, {"name": "audit", "partitions": 1, "replication.factor": 3}],
        "consumers": [{"name": "a", "subscribe_pattern": "orders-.*", "config": {"group.id": "g", "metadata.max.age.ms": 5000}}],
        "commands": [{"at_ms": 12000, "type": "create_topic", "topic": {"name": "orders-us", "partitions": 2, "replication.factor": 3}}]}"#);
    no_broken_guarantees(&t);
    let o = owned(&t);
    let topics: SortedSet<String> = o[&0].iter().map(|tp| tp.topic.to_string()).collect();
    assert_eq!(
        topics,
        ["orders-eu".to_string(), "orders-us".to_string()]
            .into_iter()
            .collect()
    );
    assert_eq!(
        find(&t, |k| matches!(k, EventKind::GenerationStarted { .. })).len(),
        2
    );
}

#[test]
fn more_partitions_for_a_subscribed_topic_trigger_a_rebalance() {
    let t = run(&scenario(
        30_000,
        &[
            consumer("a", r#", "metadata.max.age.ms": 5000"#),
            consumer("b", r#", "metadata.max.age.ms": 5000"#),
        ],
        r#"{"at_ms": 12000, "type": "add_partitions", "topic": "orders", "partitions": 8}"#,
        "",
    ));
    no_broken_guarantees(&t);
    let o = owned(&t);
    assert_eq!(o[&0].len() + o[&1].len(), 8);
    assert!(find(&t, |k| matches!(k, EventKind::RejoinRequested { reason, .. } if reason.contains("partition counts changed"))).len() == 1);
}

#[test]
fn auto_offset_reset_none_without_a_commit_says_so() {
    let t = run(&scenario(
        12_000,
        &[consumer("a", "").replace(
            r#""auto.offset.reset": "earliest""#,
            r#""auto.offset.reset": "none""#,
        )],
        "",
        "",
    ));
    let resets = find(
        &t,
        |k| matches!(k, EventKind::ConsumerPositionReset { reason, .. } if reason.contains("NoOffsetForPartitionException")),
    );
    assert_eq!(resets.len(), 6);
}

#[test]
fn offsets_topic_needs_enough_brokers_for_its_replication_factor() {
    let t = run(
        r#"{"seed": 1, "run_until_ms": 3000, "cluster": {"brokers": [0]},
        "topics": [{"name": "orders", "partitions": 1}],
        "consumers": [{"name": "a", "subscribe": ["orders"], "config": {"group.id": "g"}}]}"#,
    );
    let failed = find(
        &t,
        |k| matches!(k, EventKind::TopicCreationFailed { error, .. } if error.contains("offsets.topic.replication.factor")),
    );
    assert!(!failed.is_empty());
    assert!(find(&t, |k| matches!(k, EventKind::JoinedGroup { .. })).is_empty());
}

/// How often each (partition, offset) was seen.
type Counts = SortedMap<(TopicPartition, i64), u32>;

/// (processed, consumed) record counts per (partition, offset).
fn processed_and_consumed(t: &Timeline) -> (Counts, Counts) {
    let mut processed = SortedMap::new();
    for e in t.events() {
        if let EventKind::RecordsProcessed { ranges, .. } = &e.kind {
            for (tp, a, b) in ranges {
                for o in *a..=*b {
                    *processed.entry((tp.clone(), o)).or_insert(0) += 1;
                }
            }
        }
    }
    let mut handed_out = SortedMap::new();
    for (_, tp, o) in consumed(t) {
        *handed_out.entry((tp, o)).or_insert(0) += 1;
    }
    (processed, handed_out)
}

fn delivery(commit: &str) -> Timeline {
    run(&scenario(
        45_000,
        &[
            format!(
                r#"{{"name": "a", "subscribe": ["orders"], "commit": "{commit}", "config": {{"group.id": "g", "auto.offset.reset": "earliest", "enable.auto.commit": false, "processing_ms": 3000, "session.timeout.ms": 10000, "heartbeat.interval.ms": 3000}}}}"#
            ),
            format!(
                r#"{{"name": "b", "subscribe": ["orders"], "commit": "{commit}", "config": {{"group.id": "g", "auto.offset.reset": "earliest", "enable.auto.commit": false, "processing_ms": 100}}}}"#
            ),
        ],
        &[
            produce_each(8_000, 5),
            r#"{"at_ms": 9500, "type": "crash_consumer", "consumer": "a"}"#.into(),
        ]
        .join(","),
        "",
    ))
}

#[test]
fn commit_before_processing_loses_records_when_the_consumer_crashes_mid_batch() {
    let t = delivery("sync_before_processing");
    no_broken_guarantees(&t);
    let (processed, consumed) = processed_and_consumed(&t);
    // a's 15 records were committed, then a crashed while processing them:
    // b starts after them. Nobody ever processes them (at most once).
    assert_eq!(consumed.len(), 30, "every record was handed out once");
    assert!(consumed.values().all(|n| *n == 1));
    assert_eq!(processed.len(), 15, "only b's share was ever processed");
}

#[test]
fn commit_after_processing_duplicates_records_when_the_consumer_crashes_mid_batch() {
    let t = delivery("sync_after_processing");
    no_broken_guarantees(&t);
    let (processed, consumed) = processed_and_consumed(&t);
    // a crashed before committing: b reads a's 15 again (at least once).
    assert_eq!(processed.len(), 30, "everything was processed");
    let twice = consumed.values().filter(|n| **n == 2).count();
    assert_eq!(twice, 15, "a's batch was handed out twice");
}

#[test]
fn order_holds_within_a_partition_and_partitions_interleave() {
    // One consumer, two partitions, records produced alternately to each.
    let cmds: Vec<String> = (0..10)
        .map(|i| {
            format!(
                r#"{{"at_ms": {}, "type": "produce", "producer": "p", "topic": "orders", "partition": {}, "value": "m{i}"}}"#,
                8000 + i * 150,
                i % 2
            )
        })
        .collect();
    let t = run(&scenario(15_000, &[consumer("a", "")], &cmds.join(","), ""));
    let mut per: SortedMap<i32, Vec<i64>> = SortedMap::new();
    let mut sequence = Vec::new();
    for (_, tp, o) in consumed(&t) {
        per.entry(tp.partition).or_default().push(o);
        sequence.push(tp.partition);
    }
    for offs in per.values() {
        assert!(
            offs.windows(2).all(|w| w[0] < w[1]),
            "in order within a partition: {offs:?}"
        );
    }
    assert_eq!(per[&0].len() + per[&1].len(), 10);
    let switches = sequence.windows(2).filter(|w| w[0] != w[1]).count();
    assert!(
        switches >= 2,
        "records from the two partitions interleave: {sequence:?}"
    );
}

#[test]
fn event_names_match_their_serde_tags() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut kinds = SortedSet::new();
    for f in [
        "group-rebalance.json",
        "leader-failover.json",
        "kip101-divergence.json",
        "hw-truncation.json",
    ] {
        let t = run(&std::fs::read_to_string(root.join(f)).unwrap());
        for e in t.events() {
            let v = serde_json::to_value(&e.kind).unwrap();
            assert_eq!(v["type"].as_str(), Some(e.kind.name_str()));
            kinds.insert(e.kind.name_str());
        }
    }
    assert!(kinds.len() > 40, "{} kinds seen", kinds.len());
}

#[test]
fn the_log_cleaner_compacts_consumer_offsets_to_the_latest_commit_per_key() {
    // Auto-commit every 200 ms into small segments: the cleaner keeps only the
    // newest record per (group, topic, partition) key in the cleaned part.
    let t = run(&scenario(
        70_000,
        &[consumer("a", r#", "auto.commit.interval.ms": 200"#)],
        &produce_each(8_000, 5),
        r#", "offsets.topic.segment.bytes": 2048"#,
    ));
    no_broken_guarantees(&t);
    let commits = find(&t, |k| matches!(k, EventKind::OffsetsCommitted { .. })).len();
    assert!(commits > 100, "{commits} commits");
    let cleaned = find(
        &t,
        |k| matches!(k, EventKind::LogCleaned { tp, .. } if &*tp.topic == "__consumer_offsets"),
    );
    assert!(!cleaned.is_empty(), "the cleaner ran on __consumer_offsets");
    // Read the coordinator's copy back: far fewer records than commits, and
    // the newest value per key is what the group has in memory.
    let w = t.head();
    let (broker, group) = w
        .brokers()
        .values()
        .find_map(|b| b.groups.groups.get("g").map(|g| (b, g)))
        .expect("a coordinator holds g");
    let tp = TopicPartition::new("__consumer_offsets", group.partition);
    let batches = broker.logs[&tp].decode_all(&broker.disk).unwrap();
    let mut latest: SortedMap<TopicPartition, i64> = SortedMap::new();
    let mut records = 0;
    for b in &batches {
        for r in &b.records {
            records += 1;
            if let Some(kafka_sim::group_records::OffsetsKey::Offset { tp, .. }) = r
                .key
                .as_deref()
                .and_then(kafka_sim::group_records::parse_key)
            {
                if let Some(v) = r
                    .value
                    .as_deref()
                    .and_then(kafka_sim::group_records::parse_offset_value)
                {
                    latest.insert(tp, v.offset);
                }
            }
        }
    }
    assert!(
        records < commits * 6 / 2,
        "{records} records left of {} written",
        commits * 6
    );
    assert_eq!(&latest, &*group.offsets);
}

#[test]
fn auto_offset_reset_latest_skips_what_was_written_before_the_consumer_started() {
    let t = run(&scenario(
        25_000,
        &[r#"{"name": "late", "subscribe": ["orders"], "start_at_ms": 9000, "config": {"group.id": "g"}}"#.to_string()],
        &[produce_each(5_000, 3), produce_each(20_000, 2)].join(","),
        "",
    ));
    let resets: Vec<i64> = find(&t, |k| matches!(k, EventKind::ConsumerPositionReset { reason, .. } if reason.contains("latest")))
        .iter()
        .map(|e| match &e.kind { EventKind::ConsumerPositionReset { position, .. } => *position, _ => -1 })
        .collect();
    assert_eq!(
        resets, [3; 6],
        "each partition starts at its high watermark"
    );
    let c = consumed(&t);
    assert_eq!(c.len(), 12, "only the records written after it joined");
    assert!(c.iter().all(|(_, _, o)| *o >= 3));
}

#[test]
fn a_commit_from_the_previous_generation_gets_illegal_generation() {
    // b's link to the coordinator turns slow (8 s) just before its
    // JoinGroupResponse is sent: for a while b still believes it is in
    // generation 1 while the group, b included, has moved to generation 2.
    // The commitSync it sends meanwhile carries generation 1:
    // ILLEGAL_GENERATION.
    // Cooperative, so b keeps (and commits) its partitions while it rejoins.
    let coop = r#", "partition.assignment.strategy": ["cooperative-sticky"]"#;
    let members = |extra: &str| {
        vec![
            consumer("a", coop),
            consumer(
                "b",
                &format!(
                    r#"{coop}, "session.timeout.ms": 20000, "enable.auto.commit": false{extra}"#
                ),
            ),
            format!(
                r#"{{"name": "c", "subscribe": ["orders"], "start_at_ms": 12000, "config": {{"group.id": "g"{coop}}}}}"#
            ),
        ]
    };
    let base = scenario(40_000, &members(""), &produce_each(5_000, 2), "");
    let t = run(&base);
    // When does the coordinator answer b's JoinGroup for generation 2?
    let answer = find(&t, |k| {
        matches!(
            k,
            EventKind::MessageSent {
                to: kafka_sim::NodeId::Consumer(1),
                message,
                ..
            } if matches!(**message, kafka_sim::msg::Message::JoinGroupResponse {
                generation_id: 2,
                ..
            })
        )
    });
    let EventKind::MessageSent {
        from: kafka_sim::NodeId::Broker(coord),
        ..
    } = answer[0].kind
    else {
        unreachable!()
    };
    let at = answer[0].time_ms;
    let cut = format!(
        r#"{{"at_ms": {}, "type": "slow_link", "a": "consumer-1", "b": "broker-{}", "extra_latency_ms": 8000}},
           {{"at_ms": {}, "type": "commit_sync", "consumer": "b"}}"#,
        at - 1,
        coord.0,
        at + 2000
    );
    let t = run(&scenario(
        40_000,
        &members(""),
        &[produce_each(5_000, 2), cut].join(","),
        "",
    ));
    no_broken_guarantees(&t);
    let rejected = find(&t, |k| {
        matches!(
            k,
            EventKind::OffsetCommitRejected {
                error: kafka_sim::msg::ErrorCode::IllegalGeneration,
                ..
            }
        )
    });
    assert_eq!(rejected.len(), 1, "the coordinator refuses generation 1");
    let EventKind::OffsetCommitRejected { detail, .. } = &rejected[0].kind else {
        unreachable!()
    };
    assert!(
        detail.contains("generation 1") && detail.contains("generation 2"),
        "{detail}"
    );
    let failed = find(&t, |k| {
        matches!(
            k,
            EventKind::OffsetCommitFailed {
                consumer: 1,
                error: kafka_sim::msg::ErrorCode::IllegalGeneration,
                ..
            }
        )
    });
    assert_eq!(failed.len(), 1);
}

/// Kafka's `MemberMetadata.hasSatisfiedHeartbeat`: a member waiting in
/// JoinGroup is alive, even when the delayed initial join takes longer than
/// its session timeout (3 members: 3 s delay, extended once per newcomer).
#[test]
fn members_waiting_in_join_group_are_not_expired_by_their_session_timeout() {
    let cs: Vec<String> = ["a", "b", "c"]
        .iter()
        .map(|n| consumer(n, r#", "session.timeout.ms": 6000"#))
        .collect();
    let t = run(&scenario(12_000, &cs, "", ""));
    let first_generation = find(&t, |k| matches!(k, EventKind::GenerationStarted { .. }));
    let first = first_generation.first().expect("a generation starts");
    let EventKind::GenerationStarted { members, .. } = &first.kind else {
        unreachable!()
    };
    assert_eq!(members.len(), 3, "all three members make generation 1");
    let removed = find(&t, |k| matches!(k, EventKind::MemberRemoved { .. }));
    assert!(
        removed.iter().all(|e| e.id > first.id),
        "nobody was removed while waiting to join: {:?}",
        removed
            .iter()
            .map(|e| e.caption(kafka_sim::Lang::En))
            .collect::<Vec<_>>()
    );
    // Once in the group they heartbeat, so nobody is removed afterwards either.
    assert!(removed.is_empty(), "{} removed", removed.len());
}

/// One broker, `offsets.topic.replication.factor=1` and the broker's
/// `min.insync.replicas=2`: the coordinator's acks=all write of the group
/// counts min.insync.replicas as 1 (`Partition.effectiveMinIsr`, Kafka ≥ 3.7),
/// so SyncGroup succeeds and the member gets its partitions, as on Kafka 3.9.
#[test]
fn a_one_broker_cluster_with_min_insync_2_lets_a_group_settle() {
    let json = format!(
        r#"{{"seed": 3, "run_until_ms": 8000,
        "cluster": {{"brokers": [0], "config": {{"offsets.topic.num.partitions": 5, "offsets.topic.replication.factor": 1, "min.insync.replicas": 2}}}},
        "topics": [{{"name": "orders", "partitions": 2, "replication.factor": 1}}],
        "consumers": [{}],
        "commands": []}}"#,
        consumer("c0", "")
    );
    let t = run(&json);
    let o = owned(&t);
    assert_eq!(o.get(&0).map(|v| v.len()), Some(2), "{o:?}");
    let unavailable = find(&t, |k| {
        matches!(
            k,
            EventKind::MessageSent { message, .. }
                if matches!(**message, kafka_sim::msg::Message::SyncGroupResponse { error: Some(_), .. })
        )
    });
    assert!(
        unavailable.is_empty(),
        "{:?}",
        unavailable.first().map(|e| e.caption(kafka_sim::Lang::En))
    );
    no_broken_guarantees(&t);
}

/// KIP-881: consumers with `client.rack` in a cluster with `broker.rack`
/// get, from the rack-aware Range assignor, the partitions whose replica is
/// in their own zone; the leader reads the replicas' racks off its metadata.
/// Without `client.rack`, the same group gets plain ranges across zones.
#[test]
fn client_rack_makes_range_assign_partitions_in_each_members_zone() {
    let json = |racks: bool| {
        let c = |name: &str, zone: &str| {
            let rack = if racks {
                format!(r#", "client.rack": "{zone}""#)
            } else {
                String::new()
            };
            format!(
                r#"{{"name": "{name}", "subscribe": ["orders"], "config": {{"group.id": "g", "client.id": "{name}"{rack}}}}}"#
            )
        };
        format!(
            r#"{{"seed": 3, "run_until_ms": 8000,
            "cluster": {{"brokers": [0, 1, 2], "config": {{"offsets.topic.num.partitions": 3, "offsets.topic.replication.factor": 3}},
                        "broker.rack": {{"0": "az-a", "1": "az-b", "2": "az-c"}}}},
            "topics": [{{"name": "orders", "partitions": 6, "replication.factor": 1, "fixed_start_index": 0}}],
            "consumers": [{}, {}, {}]}}"#,
            c("ca", "az-a"),
            c("cb", "az-b"),
            c("cc", "az-c")
        )
    };
    // orders-p is on broker p % 3: az-a holds 0 and 3, az-b 1 and 4, az-c 2 and 5.
    let zone_of = |p: i32| ["az-a", "az-b", "az-c"][(p % 3) as usize];
    let last_assignment = |t: &Timeline| -> SortedMap<String, Vec<TopicPartition>> {
        let a = find(t, |k| matches!(k, EventKind::AssignmentComputed { .. }));
        match &a.last().expect("an assignment").kind {
            EventKind::AssignmentComputed { assignment, .. } => assignment.clone(),
            _ => unreachable!(),
        }
    };
    let in_zone = |t: &Timeline| {
        let a = last_assignment(t);
        assert_eq!(a.len(), 3, "{a:?}");
        for (member, parts) in a.iter() {
            let zone = match &member[..3] {
                "ca-" => "az-a",
                "cb-" => "az-b",
                "cc-" => "az-c",
                other => panic!("member {other}"),
            };
            assert_eq!(parts.len(), 2, "{member}: {parts:?}");
            for tp in parts {
                assert_eq!(zone_of(tp.partition), zone, "{member} got {tp}");
            }
        }
    };
    let t = run(&json(true));
    in_zone(&t);
    // No client.rack: Range's consecutive ranges, two of them across zones.
    let plain = last_assignment(&run(&json(false)));
    let crossing = plain
        .iter()
        .filter(|(m, parts)| {
            let zone = ["az-a", "az-b", "az-c"][["ca-", "cb-", "cc-"]
                .iter()
                .position(|p| m.starts_with(p))
                .unwrap()];
            parts.iter().any(|tp| zone_of(tp.partition) != zone)
        })
        .count();
    assert!(crossing >= 2, "{plain:?}");
    // The sticky assignors are rack-aware too (KIP-881): a group on
    // cooperative-sticky ends with the same in-zone assignment.
    let coop = json(true).replace(
        r#""client.rack""#,
        r#""partition.assignment.strategy": ["cooperative-sticky"], "client.rack""#,
    );
    let t = run(&coop);
    assert!(
        !find(&t, |k| matches!(k, EventKind::AssignmentComputed { strategy, .. } if strategy == "cooperative-sticky")).is_empty(),
        "the group ran cooperative-sticky"
    );
    in_zone(&t);
    no_broken_guarantees(&t);
}

/// A fetch answered disarms its `request.timeout.ms` timer: the queue holds
/// the requests in flight, not every request of the last 30 seconds (which
/// every checkpoint of the page's timeline would copy).
#[test]
fn answered_requests_leave_no_timeouts_queued() {
    let text = scenario(
        20_000,
        &[consumer("a", ""), consumer("b", ""), consumer("c", "")],
        &produce_each(1000, 20),
        "",
    );
    let sc = kafka_sim::Scenario::from_json(&text).unwrap();
    let mut w = kafka_sim::World::new(std::sync::Arc::new(sc));
    let (mut fetches, mut most) = (0, 0);
    while w.step() {
        for e in w.drain_events() {
            if let EventKind::MessageSent {
                from: kafka_sim::NodeId::Consumer(_) | kafka_sim::NodeId::Broker(_),
                message,
                ..
            } = &e.kind
            {
                fetches += usize::from(matches!(**message, kafka_sim::msg::Message::Fetch(_)));
            }
        }
        most = most.max(w.pending_work());
    }
    // Consumers and followers fetch hundreds of times in 20 s, all within
    // one request.timeout.ms (30 s): with every timeout left queued until
    // it fired, the queue peaked at 505 items; disarmed, at 124.
    assert!(fetches > 300, "{fetches} fetches");
    assert!(
        most * 2 < fetches,
        "{most} items queued at most ({fetches} fetches)"
    );
}
