//! Fetching from the closest replica (KIP-392, Kafka 2.4+): with
//! `replica.selector.class` set to Kafka's `RackAwareReplicaSelector`, a
//! leader answers a consumer that sent a `client.rack` with the in-sync
//! follower on that rack; the consumer reads from it up to the follower's
//! own high watermark, and goes back to the leader when that follower dies.

mod common;
use common::{find, run};
use kafka_sim::event::{Event, EventKind};
use kafka_sim::ids::{BrokerId, NodeId};
use kafka_sim::msg::Message;
use kafka_sim::Timeline;

const SELECTOR: &str =
    r#""replica.selector.class": "org.apache.kafka.common.replica.RackAwareReplicaSelector""#;

/// Three zones, one broker each; orders-0 on brokers 0 (leader), 1, 2; a
/// consumer in `rack` reading orders-0; 20 records, one every 100 ms.
fn scenario(broker_cfg: &str, rack: &str, commands: &str) -> String {
    let rack = if rack.is_empty() {
        String::new()
    } else {
        format!(r#", "client.rack": "{rack}""#)
    };
    format!(
        r#"{{"seed": 7, "run_until_ms": 9000,
        "cluster": {{"brokers": [0, 1, 2], "config": {{{broker_cfg}}},
                    "broker.rack": {{"0": "az-a", "1": "az-b", "2": "az-c"}}}},
        "topics": [{{"name": "orders", "partitions": 1, "replication.factor": 3, "fixed_start_index": 0}}],
        "producers": [{{"name": "p", "config": {{"acks": "all", "linger.ms": 0}}}}],
        "consumers": [{{"name": "c", "assign": ["orders-0"],
                        "config": {{"auto.offset.reset": "earliest"{rack}}}}}],
        "commands": [{}{commands}]}}"#,
        (0..20)
            .map(|i| format!(
                r#"{{"at_ms": {}, "type": "produce", "producer": "p", "topic": "orders", "key": "k", "value": "v{i}"}}"#,
                1000 + i * 100
            ))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The brokers the consumer sent fetches to, in order, with the times.
fn fetch_targets(t: &Timeline) -> Vec<(u64, BrokerId)> {
    t.events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::MessageSent {
                from: NodeId::Consumer(0),
                to: NodeId::Broker(b),
                message,
                ..
            } if matches!(**message, Message::Fetch(_)) => Some((e.time_ms, *b)),
            _ => None,
        })
        .collect()
}

fn consumed(t: &Timeline) -> Vec<String> {
    t.events()
        .iter()
        .flat_map(|e| match &e.kind {
            EventKind::RecordsConsumed { records, .. } => records
                .iter()
                .map(|r| r.value.clone().unwrap_or_default())
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

fn all_values() -> Vec<String> {
    (0..20).map(|i| format!("v{i}")).collect()
}

fn chosen(t: &Timeline) -> Vec<&Event> {
    find(t, |k| {
        matches!(k, EventKind::PreferredReadReplicaChosen { .. })
    })
}

#[test]
fn a_consumer_reads_from_the_in_rack_follower_up_to_its_high_watermark() {
    let t = run(&scenario(SELECTOR, "az-c", ""));
    let c = chosen(&t);
    assert_eq!(c.len(), 1, "the leader names the replica once");
    match &c[0].kind {
        EventKind::PreferredReadReplicaChosen {
            broker,
            replica,
            rack,
            ..
        } => {
            assert_eq!((broker.0, replica.0, rack.as_str()), (0, 2, "az-c"));
        }
        _ => unreachable!(),
    }
    let targets = fetch_targets(&t);
    let after: Vec<i32> = targets
        .iter()
        .filter(|(at, _)| *at > c[0].time_ms)
        .map(|(_, b)| b.0)
        .collect();
    assert!(after.len() > 10, "{targets:?}");
    assert!(
        after.iter().all(|b| *b == 2),
        "every later fetch goes to broker 2: {after:?}"
    );
    assert_eq!(consumed(&t), all_values());
    // Every record reached the consumer only once broker 2's own high
    // watermark covered it: the follower's HW trails the leader's.
    for e in find(&t, |k| matches!(k, EventKind::RecordsConsumed { .. })) {
        let EventKind::RecordsConsumed {
            high_watermark,
            records,
            ..
        } = &e.kind
        else {
            unreachable!()
        };
        let follower_hw = find(&t, |k| {
            matches!(k, EventKind::HighWatermarkUpdated { broker, leader: false, .. } if broker.0 == 2)
        })
        .into_iter()
        .filter(|h| h.id < e.id)
        .filter_map(|h| match &h.kind {
            EventKind::HighWatermarkUpdated { new, .. } => Some(*new),
            _ => None,
        })
        .next_back()
        .unwrap_or(0);
        assert!(
            records.last().unwrap().offset < follower_hw,
            "read past broker 2's HW"
        );
        assert!(*high_watermark <= follower_hw);
    }
    assert!(find(&t, |k| matches!(k, EventKind::GuaranteeBroken { .. })).is_empty());
}

#[test]
fn without_the_selector_or_a_client_rack_the_leader_serves() {
    for (cfg, rack) in [("", "az-c"), (SELECTOR, "")] {
        let t = run(&scenario(cfg, rack, ""));
        assert!(chosen(&t).is_empty());
        assert!(fetch_targets(&t).iter().all(|(_, b)| b.0 == 0));
        assert_eq!(consumed(&t), all_values());
    }
    // A consumer in the leader's own rack stays on the leader.
    let t = run(&scenario(SELECTOR, "az-a", ""));
    assert!(chosen(&t).is_empty());
    assert!(fetch_targets(&t).iter().all(|(_, b)| b.0 == 0));
}

/// As in Kafka 3.9: the failed fetch sends the consumer back to the leader,
/// but the leader names the dead follower again for as long as it stays in
/// the ISR and in the leader's metadata (its ZooKeeper session lives on), so
/// the consumer stalls until the controller shrinks the ISR.
#[test]
fn when_the_follower_dies_the_consumer_stalls_until_the_isr_shrinks() {
    let t = run(&scenario(
        &format!(r#"{SELECTOR}, "zookeeper.session.timeout.ms": 3000"#),
        "az-c",
        r#", {"at_ms": 1500, "type": "kill_broker", "broker": 2}"#,
    ));
    let cleared = find(&t, |k| {
        matches!(k, EventKind::PreferredReadReplicaCleared { .. })
    });
    assert!(!cleared.is_empty(), "the consumer forgets broker 2");
    let shrunk = find(&t, |k| {
        matches!(k, EventKind::IsrUpdatedByController { tp, new_isr, .. } if tp.partition == 0 && !new_isr.contains(&BrokerId(2)))
    })
    .first()
    .map(|e| e.time_ms)
    .expect("the ISR shrinks");
    let chosen_at: Vec<u64> = chosen(&t).iter().map(|e| e.time_ms).collect();
    assert!(
        chosen_at.len() > 2,
        "named again while in the ISR: {chosen_at:?}"
    );
    assert!(
        chosen_at.iter().all(|at| *at < shrunk),
        "{chosen_at:?} vs {shrunk}"
    );
    // The last choice made before the shrink fails once more; from then on
    // the leader serves.
    let last_clear = cleared.last().unwrap().time_ms;
    assert!(last_clear > shrunk);
    let after: Vec<i32> = fetch_targets(&t)
        .iter()
        .filter(|(at, _)| *at > last_clear)
        .map(|(_, b)| b.0)
        .collect();
    assert!(
        !after.is_empty() && after.iter().all(|b| *b == 0),
        "{after:?}"
    );
    // Nothing reaches the consumer between the kill and the shrink.
    let stalled = find(&t, |k| matches!(k, EventKind::RecordsConsumed { .. }))
        .iter()
        .filter(|e| e.time_ms > 1600 && e.time_ms < shrunk)
        .count();
    assert_eq!(stalled, 0);
    assert_eq!(consumed(&t), all_values());
}

#[test]
fn an_unknown_selector_class_is_refused_naming_the_key() {
    let e = kafka_sim::Scenario::from_json(&scenario(
        r#""replica.selector.class": "com.example.NearestSelector""#,
        "az-c",
        "",
    ))
    .unwrap_err();
    assert!(e.field.ends_with("replica.selector.class"), "{e}");
    assert!(e.to_string().contains("RackAwareReplicaSelector"), "{e}");
}

/// What the lesson `closest-replica.json` says happens, happens: remote
/// reads each record about half a second after local (one follower fetch
/// round later), never from the leader while broker 2 serves it, and both
/// get v4 to v6 once the ISR has shrunk: the leader, re-elected with the
/// smaller ISR, moves the high watermark at once (`Partition.makeLeader`
/// keeps the followers' LEOs and calls `maybeIncrementLeaderHW`, Kafka 3.9
/// lines 771-819), local reads them first and remote a poll later.
#[test]
fn the_closest_replica_lesson_narrates_what_happens() {
    let t = run(&common::repo_file("static/lessons/closest-replica.json"));
    let polls = |c: u32| -> Vec<(u64, Vec<i64>)> {
        t.events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::RecordsConsumed {
                    consumer, records, ..
                } if *consumer == c => {
                    Some((e.time_ms, records.iter().map(|r| r.offset).collect()))
                }
                _ => None,
            })
            .collect()
    };
    let (local, remote) = (polls(0), polls(1));
    for offset in 0..4 {
        let at = |p: &[(u64, Vec<i64>)]| p.iter().find(|(_, o)| o.contains(&offset)).unwrap().0;
        let late = at(&remote) - at(&local);
        assert!(
            (400..=600).contains(&late),
            "offset {offset}: remote {late} ms later"
        );
    }
    assert_eq!(remote.len(), 5, "{remote:?}");
    assert_eq!(remote[4].1, vec![4, 5, 6]);
    let local_at = local
        .iter()
        .find(|(_, o)| o == &vec![4, 5, 6])
        .expect("local reads 4-6")
        .0;
    assert!(local_at < remote[4].0, "{local:?} {remote:?}");
    let elected = t
        .events()
        .iter()
        .find(|e| {
            matches!(
                &e.kind,
                EventKind::BecameLeader {
                    leader_epoch: 1,
                    ..
                }
            )
        })
        .expect("re-elected")
        .time_ms;
    let moved = t
        .events()
        .iter()
        .find(|e| {
            matches!(
                &e.kind,
                EventKind::HighWatermarkUpdated {
                    leader: true,
                    old: 4,
                    new: 7,
                    ..
                }
            )
        })
        .expect("the HW reaches 7")
        .time_ms;
    assert_eq!(
        moved, elected,
        "the HW moves at the re-election, not a fetch later"
    );
    // Until broker 2 dies, remote's fetches go to broker 2 only, after the
    // leader named it; local's always to the leader.
    let named = chosen(&t)[0].time_ms;
    for e in t.events() {
        if let EventKind::MessageSent {
            from: NodeId::Consumer(c),
            to: NodeId::Broker(b),
            message,
            ..
        } = &e.kind
        {
            if !matches!(**message, Message::Fetch(_)) {
                continue;
            }
            match c {
                0 => assert_eq!(b.0, 0),
                _ if e.time_ms > named && e.time_ms < 3500 => {
                    assert_eq!(b.0, 2, "at {}", e.time_ms)
                }
                _ => {}
            }
        }
    }
}
