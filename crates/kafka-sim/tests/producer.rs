//! The producer pipeline (P1–P6), asserted on the trace.

use kafka_sim::event::{EventKind, Guarantee};
use kafka_sim::ids::TopicPartition;
use kafka_sim::msg::ErrorCode;
use kafka_sim::producer::PartitionChoice;
use kafka_sim::Timeline;

mod common;
use common::{find, log_values, run};

fn scenario(
    brokers: &str,
    topic: &str,
    producer: &str,
    commands: &str,
    until: u64,
    extra: &str,
) -> String {
    format!(
        r#"{{"seed": 1, "run_until_ms": {until},
            "cluster": {{"brokers": [{brokers}], "config": {{"zookeeper.session.timeout.ms": 6000 {extra}}}}},
            "topics": [{topic}],
            "producers": [{{"name": "p", "config": {producer}}}],
            "commands": [{commands}]}}"#
    )
}

/// The partitioner's choice for each record, in send order.
fn choices(t: &Timeline) -> Vec<PartitionChoice> {
    t.events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RecordPartitioned { choice, .. } => Some(choice.clone()),
            _ => None,
        })
        .collect()
}

fn drained(t: &Timeline) -> Vec<(u64, u32, String)> {
    find(t, |k| matches!(k, EventKind::BatchesDrained { .. }))
        .iter()
        .flat_map(|e| match &e.kind {
            EventKind::BatchesDrained { batches, .. } => batches
                .iter()
                .map(|b| (e.time_ms, b.records, b.reason.clone()))
                .collect::<Vec<_>>(),
            _ => vec![],
        })
        .collect()
}

/// A first send that fetches the topic's metadata, so later sends in a test
/// do not wait for it (the first `send()` to a topic blocks on metadata).
/// `log_values` leaves it out.
const WARM: &str = r#"{"at_ms": 100, "type": "produce", "producer": "p", "topic": "t", "value": "warm-up", "partition": 0},"#;

const ONE: &str = r#"{"name": "t", "partitions": 1, "replication.factor": 1}"#;

#[test]
fn a_batch_goes_when_it_reaches_batch_size() {
    // 60-byte values: three fill a 200-byte batch; linger.ms is long.
    let v = "x".repeat(60);
    let t = run(&scenario(
        "0",
        ONE,
        r#"{"linger.ms": 5000, "batch.size": 200}"#,
        &format!(
            r#"{{"at_ms": 500, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "{v}", "count": 7}}"#
        ),
        3000,
        "",
    ));
    let d = drained(&t);
    assert!(d.len() >= 2, "{d:?}");
    assert!(d[0].2.starts_with("full"), "{d:?}");
    assert!(d[0].0 < 1000, "a full batch does not wait for linger.ms");
    let acc = find(&t, |k| {
        matches!(
            k,
            EventKind::RecordAccumulated {
                new_batch: true,
                ..
            }
        )
    });
    assert!(acc.len() >= 3);
}

#[test]
fn a_batch_goes_after_linger_ms_with_what_it_has() {
    let t = run(&scenario(
        "0",
        ONE,
        r#"{"linger.ms": 100}"#,
        r#"{"at_ms": 500, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "a"},
           {"at_ms": 520, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "b"},
           {"at_ms": 540, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "c"}"#,
        2000,
        "",
    ));
    let d = drained(&t);
    assert_eq!(d.len(), 1, "{d:?}");
    // The first send waits for the topic's metadata; linger.ms counts from
    // the batch's creation.
    let created = find(&t, |k| {
        matches!(
            k,
            EventKind::RecordAccumulated {
                new_batch: true,
                ..
            }
        )
    })[0]
        .time_ms;
    assert!(created > 500);
    assert_eq!((d[0].0, d[0].1), (created + 100, 3));
    assert!(d[0].2.contains("linger.ms=100"));
}

#[test]
fn keys_go_to_murmur2_partitions_and_keyless_records_stick() {
    let t = run(&scenario(
        "0",
        r#"{"name": "t", "partitions": 6, "replication.factor": 1}"#,
        r#"{"batch.size": 16384}"#,
        r#"{"at_ms": 500, "type": "produce", "producer": "p", "topic": "t", "key": "foobar", "value": "v"},
           {"at_ms": 600, "type": "produce", "producer": "p", "topic": "t", "value": "x", "count": 20},
           {"at_ms": 700, "type": "produce", "producer": "p", "topic": "t", "value": "y", "partition": 4}"#,
        2000,
        "",
    ));
    let choices = choices(&t);
    assert_eq!(
        choices[0],
        PartitionChoice::Key {
            murmur2: -790_332_482,
            positive: 1_357_151_166,
            num_partitions: 6,
            partition: 1_357_151_166 % 6
        }
    );
    // 20 small keyless records stay on one sticky partition (far below batch.size).
    let sticky: Vec<i32> = choices[1..21].iter().map(|c| c.partition()).collect();
    assert!(sticky.iter().all(|p| *p == sticky[0]), "{sticky:?}");
    assert!(matches!(choices[1], PartitionChoice::Sticky { .. }));
    assert_eq!(choices[21], PartitionChoice::Explicit { partition: 4 });
}

#[test]
fn the_sticky_partition_switches_after_batch_size_bytes() {
    let v = "x".repeat(100);
    let t = run(&scenario(
        "0",
        r#"{"name": "t", "partitions": 8, "replication.factor": 1}"#,
        r#"{"batch.size": 500, "linger.ms": 0}"#,
        &format!(
            r#"{{"at_ms": 500, "type": "produce", "producer": "p", "topic": "t", "value": "{v}", "count": 40}}"#
        ),
        2000,
        "",
    ));
    let parts: Vec<i32> = choices(&t).iter().map(|c| c.partition()).collect();
    let switches = parts.windows(2).filter(|w| w[0] != w[1]).count();
    assert!(switches >= 3, "{parts:?}");
    assert!(
        find(&t, |k| matches!(
            k,
            EventKind::RecordPartitioned {
                choice: PartitionChoice::Sticky {
                    switched_from: Some(_),
                    ..
                },
                ..
            }
        ))
        .len()
            >= 3
    );
}

#[test]
fn round_robin_partitioner_cycles() {
    let t = run(&scenario(
        "0",
        r#"{"name": "t", "partitions": 3, "replication.factor": 1}"#,
        r#"{"partitioner.class": "org.apache.kafka.clients.producer.RoundRobinPartitioner"}"#,
        r#"{"at_ms": 500, "type": "produce", "producer": "p", "topic": "t", "key": "same", "value": "v", "count": 6}"#,
        2000,
        "",
    ));
    let parts: Vec<i32> = choices(&t).iter().map(|c| c.partition()).collect();
    assert_eq!(parts, vec![0, 1, 2, 0, 1, 2]);
}

/// Three sends to three partitions at once with room for two batches
/// (each new batch reserves batch.size = 16 KiB of buffer.memory = 32 KiB).
/// With `cut`, the leader is unreachable so nothing frees memory.
fn buffer_full(cut: bool, max_block_ms: u64) -> (Timeline, Vec<u64>) {
    let cut_cmd = if cut {
        r#"{"at_ms": 300, "type": "cut_link", "a": "producer-0", "b": "broker-0"},"#
    } else {
        ""
    };
    let t = run(&scenario(
        "0",
        r#"{"name": "t", "partitions": 4, "replication.factor": 1}"#,
        &format!(
            r#"{{"buffer.memory": 32768, "max.block.ms": {max_block_ms}, "delivery.timeout.ms": 60000}}"#
        ),
        &format!(
            r#"{{"at_ms": 100, "type": "produce", "producer": "p", "topic": "t", "value": "warm-up", "partition": 3}},
           {cut_cmd}
           {{"at_ms": 500, "type": "produce", "producer": "p", "topic": "t", "value": "v", "partition": 0}},
           {{"at_ms": 500, "type": "produce", "producer": "p", "topic": "t", "value": "v", "partition": 1}},
           {{"at_ms": 500, "type": "produce", "producer": "p", "topic": "t", "value": "v", "partition": 2}}"#
        ),
        3000,
        "",
    ));
    let blocked = find(
        &t,
        |k| matches!(k, EventKind::ProducerBlocked { reason, .. } if reason.contains("buffer.memory")),
    )
    .iter()
    .map(|e| e.time_ms)
    .collect();
    (t, blocked)
}

#[test]
fn send_blocks_when_buffer_memory_is_full_and_fails_after_max_block_ms() {
    let (t, blocked) = buffer_full(true, 1000);
    assert_eq!(blocked, vec![500], "reported once, not again on each retry");
    let failed = find(
        &t,
        |k| matches!(k, EventKind::RecordFailed { error, .. } if error.contains("max.block.ms")),
    );
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].time_ms, 1500);
}

#[test]
fn a_blocked_send_resumes_when_memory_frees() {
    let (t, blocked) = buffer_full(false, 5000);
    assert_eq!(blocked, vec![500]);
    assert_eq!(
        find(&t, |k| matches!(k, EventKind::RecordAcknowledged { .. })).len(),
        4,
        "warm-up and the three"
    );
}

#[test]
fn retries_after_a_leader_change_refresh_metadata() {
    let t = run(&scenario(
        "0, 1, 2",
        r#"{"name": "t", "partitions": 1, "replication.factor": 3, "replica.assignment": {"0": [0, 1, 2]}}"#,
        "{}",
        &format!(
            r#"{WARM}{{"at_ms": 500, "type": "kill_broker", "broker": 0}},
           {{"at_ms": 600, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "v"}}"#
        ),
        12_000,
        "",
    ));
    assert!(!find(&t, |k| matches!(k, EventKind::ProduceRetried { .. })).is_empty());
    let ack = find(&t, |k| matches!(k, EventKind::RecordAcknowledged { .. }));
    assert_eq!(ack.len(), 2, "warm-up and the record");
    assert!(ack[1].time_ms > 6500, "after the election");
    // The producer refreshed its metadata to find the new leader.
    let md_after = find(
        &t,
        |k| matches!(k, EventKind::MetadataUpdated { leaders, .. } if leaders.values().any(|l| l == 1)),
    );
    assert!(!md_after.is_empty());
}

/// The produce request reaches the leader but its response is lost, so the
/// producer retries a batch that is already written.
fn lost_response(idempotence: bool) -> Timeline {
    let producer = if idempotence {
        r#"{"request.timeout.ms": 1000, "delivery.timeout.ms": 10000}"#.to_string()
    } else {
        r#"{"request.timeout.ms": 1000, "delivery.timeout.ms": 10000, "enable.idempotence": false}"#
            .to_string()
    };
    run(&scenario(
        "0",
        ONE,
        &producer,
        &format!(
            r#"{WARM}{{"at_ms": 500, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "once"}},
           {{"at_ms": 507, "type": "cut_link", "a": "producer-0", "b": "broker-0"}},
           {{"at_ms": 900, "type": "heal_link", "a": "producer-0", "b": "broker-0"}}"#
        ),
        4000,
        "",
    ))
}

#[test]
fn without_idempotence_a_retry_writes_a_duplicate() {
    let t = lost_response(false);
    assert!(!find(&t, |k| matches!(
        k,
        EventKind::ProduceRetried {
            error: ErrorCode::RequestTimedOut,
            ..
        }
    ))
    .is_empty());
    assert_eq!(
        log_values(&t, 0, &TopicPartition::new("t", 0)),
        vec!["once", "once"]
    );
}

#[test]
fn with_idempotence_the_broker_drops_the_duplicate() {
    let t = lost_response(true);
    assert!(!find(&t, |k| matches!(k, EventKind::ProduceRetried { .. })).is_empty());
    // Kafka answers a duplicate with no error and the original offsets
    // (ProducerStateManager's duplicate check), not with an error code.
    assert_eq!(
        find(&t, |k| matches!(k, EventKind::DuplicateAcknowledged { .. })).len(),
        1
    );
    assert!(find(&t, |k| matches!(k, EventKind::ProduceRejected { .. })).is_empty());
    assert_eq!(
        log_values(&t, 0, &TopicPartition::new("t", 0)),
        vec!["once"]
    );
    let acks: Vec<i64> = find(&t, |k| matches!(k, EventKind::RecordAcknowledged { .. }))
        .iter()
        .map(|e| match e.kind {
            EventKind::RecordAcknowledged { offset, .. } => offset,
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(
        acks,
        vec![0, 1],
        "warm-up, then the record once, with its original offset"
    );
}

/// A record sent while a batch waits to be retried opens a new batch: a
/// drained batch is closed (`RecordAccumulator.drain` closes it), so the
/// retry carries exactly the records and sequence numbers of its first send.
/// (Had it taken the new record, the idempotent leader would refuse it as
/// out of order for ever: it holds sequence 1 already.)
#[test]
fn a_batch_waiting_for_its_retry_takes_no_new_record() {
    let t = run(&scenario(
        "0",
        ONE,
        r#"{"request.timeout.ms": 1000, "delivery.timeout.ms": 10000}"#,
        &format!(
            r#"{WARM}{{"at_ms": 500, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "once"}},
           {{"at_ms": 507, "type": "cut_link", "a": "producer-0", "b": "broker-0"}},
           {{"at_ms": 900, "type": "heal_link", "a": "producer-0", "b": "broker-0"}},
           {{"at_ms": 1560, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "later"}}"#
        ),
        4000,
        "",
    ));
    let retried = find(&t, |k| matches!(k, EventKind::ProduceRetried { .. }));
    assert_eq!(retried.len(), 1);
    assert!(retried[0].time_ms < 1560, "the retry waits at 1,560 ms");
    let later = find(&t, |k| {
        matches!(k, EventKind::RecordAccumulated { record: 3, .. })
    });
    assert!(
        matches!(
            later[0].kind,
            EventKind::RecordAccumulated {
                new_batch: true,
                ..
            }
        ),
        "{:?}",
        later[0].kind
    );
    assert!(find(&t, |k| matches!(k, EventKind::ProduceRejected { .. })).is_empty());
    assert_eq!(
        log_values(&t, 0, &TopicPartition::new("t", 0)),
        vec!["once", "later"]
    );
}

/// Two batches sent to the old leader just after a controlled shutdown moved
/// leadership away: both fail and are put back, once.
fn two_in_flight(idempotence: bool) -> Timeline {
    let producer = if idempotence {
        r#"{"linger.ms": 0}"#
    } else {
        r#"{"linger.ms": 0, "enable.idempotence": false}"#
    };
    run(&scenario(
        "0, 1, 2",
        r#"{"name": "t", "partitions": 1, "replication.factor": 3, "replica.assignment": {"0": [0, 1, 2]}}"#,
        producer,
        &format!(
            r#"{WARM}{{"at_ms": 500, "type": "shutdown_broker", "broker": 0}},
           {{"at_ms": 515, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "A"}},
           {{"at_ms": 516, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "B"}}"#
        ),
        12_000,
        "",
    ))
}

#[test]
fn without_idempotence_retries_can_reorder_records() {
    let t = two_in_flight(false);
    assert_eq!(
        log_values(&t, 1, &TopicPartition::new("t", 0)),
        vec!["B", "A"]
    );
}

#[test]
fn with_idempotence_retries_keep_the_order() {
    let t = two_in_flight(true);
    assert_eq!(
        log_values(&t, 1, &TopicPartition::new("t", 0)),
        vec!["A", "B"]
    );
}

/// The leader acknowledges and dies before any follower copies the record.
fn leader_dies_early(acks: &str) -> Timeline {
    run(&scenario(
        "0, 1, 2",
        r#"{"name": "t", "partitions": 1, "replication.factor": 3, "replica.assignment": {"0": [0, 1, 2]}}"#,
        &format!(
            r#"{{"acks": "{acks}", "enable.idempotence": false, "delivery.timeout.ms": 60000}}"#
        ),
        r#"{"at_ms": 500, "type": "cut_link", "a": "broker-0", "b": "broker-1"},
           {"at_ms": 500, "type": "cut_link", "a": "broker-0", "b": "broker-2"},
           {"at_ms": 600, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "precious"},
           {"at_ms": 800, "type": "kill_broker", "broker": 0}"#,
        30_000,
        "",
    ))
}

#[test]
fn acks_0_and_1_lose_records_on_leader_failure_and_acks_all_does_not() {
    let lost = |t: &Timeline| {
        find(t, |k| {
            matches!(
                k,
                EventKind::GuaranteeBroken {
                    guarantee: Guarantee::AcknowledgedRecordsSurvive,
                    ..
                }
            )
        })
        .len()
    };
    let zero = leader_dies_early("0");
    let one = leader_dies_early("1");
    let all = leader_dies_early("all");
    let tp = TopicPartition::new("t", 0);
    // acks=0: the producer counted it sent (offset unknown); it is gone.
    assert_eq!(
        find(&zero, |k| matches!(
            k,
            EventKind::RecordAcknowledged { offset: -1, .. }
        ))
        .len(),
        1
    );
    assert!(log_values(&zero, 1, &tp).is_empty());
    // acks=1: acknowledged at an offset, then lost, and the step is flagged.
    assert_eq!(
        find(&one, |k| matches!(
            k,
            EventKind::RecordAcknowledged { offset: 0, .. }
        ))
        .len(),
        1
    );
    assert_eq!(lost(&one), 1);
    assert!(log_values(&one, 1, &tp).is_empty());
    // acks=all: never acknowledged while the followers could not copy it; the
    // producer retries and the record lands on the new leader.
    assert_eq!(lost(&all), 0);
    assert_eq!(log_values(&all, 1, &tp), vec!["precious"]);
}

#[test]
fn interceptors_see_sends_and_acknowledgements() {
    let t = run(&scenario(
        "0",
        ONE,
        r#"{"interceptor.classes": ["uppercase-value", "audit"]}"#,
        r#"{"at_ms": 500, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "hello"}"#,
        2000,
        "",
    ));
    assert_eq!(
        find(&t, |k| matches!(k, EventKind::RecordIntercepted { .. })).len(),
        2
    );
    assert_eq!(
        find(&t, |k| matches!(
            k,
            EventKind::InterceptorAcknowledged { .. }
        ))
        .len(),
        2
    );
    assert_eq!(
        log_values(&t, 0, &TopicPartition::new("t", 0)),
        vec!["HELLO"]
    );
}

#[test]
fn in_flight_requests_are_capped_per_connection() {
    let t = run(&scenario(
        "0",
        r#"{"name": "t", "partitions": 1, "replication.factor": 1}"#,
        r#"{"max.in.flight.requests.per.connection": 2, "enable.idempotence": false, "acks": 1}"#,
        &format!(
            r#"{WARM}{{"at_ms": 400, "type": "slow_link", "a": "producer-0", "b": "broker-0", "extra_latency_ms": 200}},
           {{"at_ms": 500, "type": "produce", "producer": "p", "topic": "t", "value": "a"}},
           {{"at_ms": 501, "type": "produce", "producer": "p", "topic": "t", "value": "b"}},
           {{"at_ms": 502, "type": "produce", "producer": "p", "topic": "t", "value": "c"}}"#
        ),
        3000,
        "",
    ));
    let max = find(&t, |k| matches!(k, EventKind::BatchesDrained { .. }))
        .iter()
        .map(|e| match e.kind {
            EventKind::BatchesDrained { in_flight, .. } => in_flight,
            _ => 0,
        })
        .max()
        .unwrap();
    assert_eq!(max, 2);
    assert_eq!(
        find(&t, |k| matches!(k, EventKind::RecordAcknowledged { .. })).len(),
        4,
        "warm-up and a, b, c"
    );
}

#[test]
fn a_producer_started_by_a_command_gets_an_id_and_its_records_are_acknowledged() {
    let text = scenario(
        "0, 1, 2",
        r#"{"name": "t", "partitions": 3, "replication.factor": 3}"#,
        r#"{"linger.ms": 0}"#,
        r#"{"at_ms": 500, "type": "add_producer", "producer": {"name": "late", "config": {"acks": "all"}}},
           {"at_ms": 800, "type": "produce", "producer": "late", "topic": "t", "key": "k", "value": "v"}"#,
        3000,
        "",
    );
    let t = run(&text);
    // The new producer is index 1: it starts at 500 ms, gets a producer id
    // (idempotence is on by default), and its record is acknowledged.
    let pid = t.events().iter().find_map(|e| match &e.kind {
        EventKind::ProducerIdAssigned {
            producer: 1,
            producer_id,
            ..
        } => Some((e.time_ms, *producer_id)),
        _ => None,
    });
    let (at, id) = pid.expect("the started producer asked for an id");
    assert!(at >= 500, "{at}");
    assert!(id >= 0);
    let acked = t.events().iter().any(|e| {
        matches!(&e.kind,
        EventKind::RecordAcknowledged { producer: 1, value: Some(v), acks: -1, .. } if v == "v")
    });
    assert!(
        acked,
        "the started producer's record is acknowledged with acks=all"
    );
    // Naming a producer before it is started, or starting one twice, is refused.
    let early = scenario(
        "0",
        r#"{"name": "t", "partitions": 1, "replication.factor": 1}"#,
        "{}",
        r#"{"at_ms": 100, "type": "produce", "producer": "late", "topic": "t", "value": "v"},
           {"at_ms": 500, "type": "add_producer", "producer": {"name": "late"}}"#,
        1000,
        "",
    );
    let e = kafka_sim::Scenario::from_json(&early).unwrap_err();
    assert_eq!(e.field, "commands[0].producer", "{e:?}");
    assert!(e.message.contains("no producer named `late`"), "{e:?}");
    let twice = scenario(
        "0",
        r#"{"name": "t", "partitions": 1, "replication.factor": 1}"#,
        "{}",
        r#"{"at_ms": 500, "type": "add_producer", "producer": {"name": "p"}}"#,
        1000,
        "",
    );
    let e = kafka_sim::Scenario::from_json(&twice).unwrap_err();
    assert_eq!(e.field, "commands[0].producer.name");
    assert!(e.message.contains("used twice"));
}

#[test]
fn close_sends_lingering_batches_at_once_waits_for_answers_and_refuses_later_sends() {
    // linger.ms=5000: without close() the three records would wait until
    // about 5,200 ms. close() at 300 ms makes every batch ready at once.
    let text = scenario(
        "0, 1, 2",
        r#"{"name": "t", "partitions": 3, "replication.factor": 3}"#,
        r#"{"linger.ms": 5000, "acks": "all"}"#,
        &format!(
            r#"{WARM}
               {{"at_ms": 200, "type": "produce", "producer": "p", "topic": "t", "key": "a", "value": "x", "count": 3}},
               {{"at_ms": 300, "type": "close_producer", "producer": "p"}},
               {{"at_ms": 400, "type": "produce", "producer": "p", "topic": "t", "key": "a", "value": "late"}},
               {{"at_ms": 500, "type": "close_producer", "producer": "p"}}"#
        ),
        20_000,
        "",
    );
    let t = run(&text);
    let closing = find(&t, |k| matches!(k, EventKind::ProducerClosing { .. }));
    assert_eq!(closing.len(), 1, "one close() took effect");
    let EventKind::ProducerClosing {
        batches, records, ..
    } = &closing[0].kind
    else {
        unreachable!()
    };
    // The warm-up record lingers too (partition 0); key "a" goes elsewhere.
    assert_eq!(
        (*batches, *records),
        (2, 4),
        "two batches (warm-up, and x-1..x-3) waited"
    );
    assert_eq!(closing[0].time_ms, 300);
    // The lingering batch went at 300 ms, because of close().
    let d = drained(&t);
    assert!(
        d.contains(&(300, 3, "close()".to_string())),
        "drained at close: {d:?}"
    );
    assert!(d.iter().all(|(at, _, _)| *at <= 300), "{d:?}");
    // close() returned after the acknowledgements, and only then.
    let acked: Vec<u64> = find(&t, |k| {
        matches!(k, EventKind::RecordAcknowledged { producer: 0, .. })
    })
    .iter()
    .map(|e| e.id)
    .collect();
    assert_eq!(acked.len(), 4, "warm-up and x-1..x-3");
    let closed = find(&t, |k| {
        matches!(k, EventKind::ProducerClosed { producer: 0, .. })
    });
    assert_eq!(closed.len(), 1);
    assert!(acked.iter().all(|a| *a < closed[0].id));
    // send() after close() throws; a second close() is refused.
    let rejected: Vec<String> = find(&t, |k| matches!(k, EventKind::CommandRejected { .. }))
        .iter()
        .map(|e| match &e.kind {
            EventKind::CommandRejected { reason, .. } => reason.clone(),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(rejected.len(), 2, "{rejected:?}");
    assert!(
        rejected[0].starts_with("IllegalStateException"),
        "{rejected:?}"
    );
    assert!(rejected[1].contains("already closed"), "{rejected:?}");
    let tp = TopicPartition::new("t", {
        let EventKind::RecordAcknowledged { tp, .. } = &find(
            &t,
            |k| matches!(k, EventKind::RecordAcknowledged { value: Some(v), .. } if v == "x-1"),
        )[0]
        .kind
        else {
            unreachable!()
        };
        tp.partition
    });
    assert_eq!(log_values(&t, 0, &tp), vec!["x-1", "x-2", "x-3"]);
    // Closed: no more requests from it (its metadata refresh timer is dead).
    let after = t.events().iter().filter(|e| {
        e.id > closed[0].id
            && matches!(
                &e.kind,
                EventKind::MessageSent {
                    from: kafka_sim::ids::NodeId::Producer(0),
                    ..
                }
            )
    });
    assert_eq!(after.count(), 0);
}

#[test]
fn close_waits_for_a_batch_whose_leader_is_unreachable_until_delivery_timeout() {
    // The only replica's broker is down: the batch cannot be sent. close()
    // (without a timeout) waits until delivery.timeout.ms fails it.
    let text = scenario(
        "0",
        ONE,
        r#"{"linger.ms": 0, "delivery.timeout.ms": 4000, "request.timeout.ms": 1000}"#,
        &format!(
            r#"{WARM}
               {{"at_ms": 300, "type": "kill_broker", "broker": 0}},
               {{"at_ms": 400, "type": "produce", "producer": "p", "topic": "t", "value": "lost", "partition": 0}},
               {{"at_ms": 500, "type": "close_producer", "producer": "p"}}"#
        ),
        20_000,
        "",
    );
    let t = run(&text);
    let failed = find(
        &t,
        |k| matches!(k, EventKind::RecordFailed { value: Some(v), .. } if v == "lost"),
    );
    assert_eq!(failed.len(), 1, "the record fails by delivery.timeout.ms");
    let closed = find(&t, |k| matches!(k, EventKind::ProducerClosed { .. }));
    assert_eq!(closed.len(), 1);
    assert!(closed[0].id > failed[0].id);
    assert!(closed[0].time_ms >= 4400, "{}", closed[0].time_ms);
    // Closing a producer that does not exist is a scenario error.
    let bad = scenario(
        "0",
        ONE,
        "{}",
        r#"{"at_ms": 100, "type": "close_producer", "producer": "nobody"}"#,
        1000,
        "",
    );
    let e = kafka_sim::Scenario::from_json(&bad).unwrap_err();
    assert_eq!(e.field, "commands[0].producer", "{e:?}");
}

/// A cluster of one broker with 400 ms links: requests stay in flight long
/// enough for a close to catch them. A warm-up record at 100 ms brings the
/// topic's metadata (acknowledged at about 2,500 ms).
fn slow_links(producer: &str, commands: &str) -> String {
    format!(
        r#"{{"seed": 1, "run_until_ms": 8000,
            "cluster": {{"brokers": [0], "network": {{"latency_ms": 400}}}},
            "topics": [{ONE}],
            "producers": [{{"name": "p", "config": {producer}}}],
            "commands": [{WARM} {commands}]}}"#
    )
}

fn acknowledged(t: &Timeline) -> Vec<String> {
    find(t, |k| matches!(k, EventKind::RecordAcknowledged { .. }))
        .iter()
        .map(|e| match &e.kind {
            EventKind::RecordAcknowledged { value, .. } => value.clone().unwrap_or_default(),
            _ => unreachable!(),
        })
        .collect()
}

fn failures(t: &Timeline) -> Vec<(String, String)> {
    find(t, |k| matches!(k, EventKind::RecordFailed { .. }))
        .iter()
        .map(|e| match &e.kind {
            EventKind::RecordFailed { value, error, .. } => {
                (value.clone().unwrap_or_default(), error.clone())
            }
            _ => unreachable!(),
        })
        .collect()
}

#[test]
fn close_with_a_zero_timeout_aborts_queued_and_in_flight_batches_at_once() {
    // "a" is in flight (400 ms each way) when close(Duration.ZERO) comes;
    // "b" waits behind it (max.in.flight.requests.per.connection = 1).
    let t = run(&slow_links(
        r#"{"linger.ms": 0, "max.in.flight.requests.per.connection": 1}"#,
        r#"{"at_ms": 3000, "type": "produce", "producer": "p", "topic": "t", "value": "a", "partition": 0},
           {"at_ms": 3100, "type": "produce", "producer": "p", "topic": "t", "value": "b", "partition": 0},
           {"at_ms": 3200, "type": "close_producer", "producer": "p", "timeout_ms": 0},
           {"at_ms": 3300, "type": "close_producer", "producer": "p", "timeout_ms": 0}"#,
    ));
    let forced = find(&t, |k| matches!(k, EventKind::ProducerForceClosed { .. }));
    assert_eq!(forced.len(), 1);
    assert_eq!(forced[0].time_ms, 3200);
    let EventKind::ProducerForceClosed {
        timeout_ms,
        batches,
        records,
        in_flight,
        ..
    } = forced[0].kind
    else {
        unreachable!()
    };
    assert_eq!((timeout_ms, batches, records, in_flight), (0, 2, 2, 1));
    let failed = failures(&t);
    assert_eq!(failed.len(), 2, "{failed:?}");
    assert!(failed
        .iter()
        .all(|(_, e)| e == "KafkaException: Producer is closed forcefully."));
    // close() returns at once, after the failures; nothing is acknowledged.
    let closed = find(&t, |k| {
        matches!(k, EventKind::ProducerClosed { forced: true, .. })
    });
    assert_eq!(closed.len(), 1);
    assert_eq!(closed[0].time_ms, 3200);
    assert_eq!(acknowledged(&t), ["warm-up"]);
    // The request in flight still reaches the broker, which appends "a":
    // the application was told it failed. "b" never left the producer.
    // (log_values leaves the warm-up out.)
    assert_eq!(log_values(&t, 0, &TopicPartition::new("t", 0)), ["a"]);
    // A second close is refused: it is closed.
    let rejected = find(&t, |k| matches!(k, EventKind::CommandRejected { .. }));
    assert_eq!(rejected.len(), 1);
}

#[test]
fn close_with_a_timeout_force_closes_only_if_the_time_runs_out() {
    // Long enough: the same as close() (the answer comes at about 3,800 ms).
    let t = run(&slow_links(
        r#"{"linger.ms": 0}"#,
        r#"{"at_ms": 3000, "type": "produce", "producer": "p", "topic": "t", "value": "a", "partition": 0},
           {"at_ms": 3100, "type": "close_producer", "producer": "p", "timeout_ms": 3000}"#,
    ));
    assert!(find(&t, |k| matches!(k, EventKind::ProducerForceClosed { .. })).is_empty());
    assert_eq!(acknowledged(&t), ["warm-up", "a"]);
    let closed = find(&t, |k| {
        matches!(k, EventKind::ProducerClosed { forced: false, .. })
    });
    assert_eq!(closed.len(), 1);
    assert!(closed[0].time_ms < 4000, "{}", closed[0].time_ms);

    // Too short: the Sender is force-closed when it runs out, 200 ms later.
    let t = run(&slow_links(
        r#"{"linger.ms": 0}"#,
        r#"{"at_ms": 3000, "type": "produce", "producer": "p", "topic": "t", "value": "a", "partition": 0},
           {"at_ms": 3100, "type": "close_producer", "producer": "p", "timeout_ms": 200}"#,
    ));
    let forced = find(&t, |k| matches!(k, EventKind::ProducerForceClosed { .. }));
    assert_eq!(forced.len(), 1);
    assert_eq!(forced[0].time_ms, 3300);
    assert_eq!(failures(&t).len(), 1);
    assert_eq!(acknowledged(&t), ["warm-up"]);
    let closed = find(&t, |k| {
        matches!(k, EventKind::ProducerClosed { forced: true, .. })
    });
    assert_eq!(closed[0].time_ms, 3300);

    // close() waiting, then close(Duration.ZERO): cut short at once.
    let t = run(&slow_links(
        r#"{"linger.ms": 0}"#,
        r#"{"at_ms": 3000, "type": "produce", "producer": "p", "topic": "t", "value": "a", "partition": 0},
           {"at_ms": 3100, "type": "close_producer", "producer": "p"},
           {"at_ms": 3150, "type": "close_producer", "producer": "p", "timeout_ms": 0}"#,
    ));
    let forced = find(&t, |k| matches!(k, EventKind::ProducerForceClosed { .. }));
    assert_eq!(forced.len(), 1);
    assert_eq!(forced[0].time_ms, 3150);
    assert_eq!(
        find(&t, |k| matches!(k, EventKind::ProducerClosing { .. })).len(),
        1
    );
}
