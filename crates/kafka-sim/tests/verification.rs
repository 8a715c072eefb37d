//! KIP-890 part 1, partition verification (Kafka 3.9,
//! `transaction.partition.verification.enable`, on by default), and the
//! KIP-360 epoch bump after a failed transactional send.
//!
//! The scenario is KIP-890's motivating case: a transactional produce is
//! delayed in the network past its request timeout; the batch fails, the
//! application aborts, the producer bumps its epoch (KIP-360), and only
//! then does the old request reach the partition leader. Without
//! verification the leader appends it (same producer id, the epoch its ABORT
//! marker carried, sequence 0 of that epoch): a transaction the coordinator
//! knows nothing of, which no marker will ever close, so the partition's
//! last stable offset stays there and read_committed consumers stall for
//! good. With verification the leader first asks the coordinator, which
//! answers PRODUCER_FENCED, and the write is refused.

mod common;

use kafka_sim::event::EventKind;
use kafka_sim::ids::TopicPartition;
use kafka_sim::msg::ErrorCode;

fn hanging(verification: bool) -> String {
    format!(
        r#"{{"seed": 7, "run_until_ms": 12000,
            "cluster": {{"brokers": [0, 1, 2], "config": {{"transaction.state.log.num.partitions": 5,
                "transaction.partition.verification.enable": {verification}}}}},
            "topics": [{{"name": "payments", "partitions": 1, "replication.factor": 3}}],
            "producers": [{{"name": "tx", "config": {{"transactional.id": "payments-tx", "request.timeout.ms": 1000, "delivery.timeout.ms": 1000}}}},
                          {{"name": "plain", "config": {{"acks": "all"}}}}],
            "consumers": [{{"name": "committed", "assign": ["payments-0"],
                "config": {{"auto.offset.reset": "earliest", "isolation.level": "read_committed"}}}}],
            "commands": [
              {{"at_ms": 500, "type": "init_transactions", "producer": "tx"}},
              {{"at_ms": 1500, "type": "begin_transaction", "producer": "tx"}},
              {{"at_ms": 1510, "type": "produce", "producer": "tx", "topic": "payments", "partition": 0, "key": "alice", "value": "-10"}},
              {{"at_ms": 2000, "type": "commit_transaction", "producer": "tx"}},
              {{"at_ms": 3000, "type": "begin_transaction", "producer": "tx"}},
              {{"at_ms": 3005, "type": "slow_link", "a": "producer-0", "b": "broker-0", "extra_latency_ms": 3000}},
              {{"at_ms": 3010, "type": "produce", "producer": "tx", "topic": "payments", "partition": 0, "key": "carol", "value": "-99"}},
              {{"at_ms": 4400, "type": "heal_link", "a": "producer-0", "b": "broker-0"}},
              {{"at_ms": 4500, "type": "abort_transaction", "producer": "tx"}},
              {{"at_ms": 7000, "type": "produce", "producer": "plain", "topic": "payments", "partition": 0, "key": "dave", "value": "+5"}}]}}"#
    )
}

/// The keys `committed` (read_committed) was given, in order.
fn committed_keys(t: &kafka_sim::Timeline) -> Vec<String> {
    t.events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RecordsConsumed {
                consumer: 0,
                records,
                ..
            } => Some(records.clone()),
            _ => None,
        })
        .flatten()
        .map(|r| r.key.unwrap_or_default())
        .collect()
}

/// The values of payments-0's data records on its leader, markers aside
/// (a marker's value is its version and coordinator epoch, zeros here).
fn data(t: &kafka_sim::Timeline) -> Vec<String> {
    common::log_values(t, 0, &TopicPartition::new("payments", 0))
        .into_iter()
        .filter(|v| !v.starts_with('\0'))
        .collect()
}

/// The producer's epoch bump (KIP-360) happens either way: the aborted
/// transaction's batch failed, so the abort is followed by InitProducerId.
fn assert_epoch_bumped(t: &kafka_sim::Timeline) {
    let assigned: Vec<i16> = common::find(t, |k| {
        matches!(k, EventKind::ProducerIdAssigned { producer: 0, .. })
    })
    .iter()
    .map(|e| match &e.kind {
        EventKind::ProducerIdAssigned { producer_epoch, .. } => *producer_epoch,
        _ => unreachable!(),
    })
    .collect();
    assert_eq!(
        assigned,
        vec![0, 1],
        "initTransactions, then the bump after the abort"
    );
}

#[test]
fn without_verification_a_late_write_hangs_the_partition() {
    let t = common::run(&hanging(false));
    assert_epoch_bumped(&t);
    assert!(
        common::find(&t, |k| matches!(
            k,
            EventKind::TxnVerificationStarted { .. }
        ))
        .is_empty(),
        "the setting is off: no leader asks the coordinator"
    );
    // The late batch is appended after the ABORT marker.
    assert_eq!(data(&t), ["-10", "-99", "+5"]);
    // And the read_committed consumer never gets past it: alice only.
    assert_eq!(committed_keys(&t), vec!["alice"]);
}

#[test]
fn with_verification_the_late_write_is_refused_and_reads_go_on() {
    let t = common::run(&hanging(true));
    assert_epoch_bumped(&t);
    let refused = common::find(&t, |k| {
        matches!(k, EventKind::ProduceVerificationFailed { .. })
    });
    assert_eq!(refused.len(), 1, "the late write, and nothing else");
    match &refused[0].kind {
        EventKind::ProduceVerificationFailed {
            tp, error, cause, ..
        } => {
            assert_eq!(tp.to_string(), "payments-0");
            // The coordinator has epoch 1 now: PRODUCER_FENCED, which the
            // leader's AddPartitionsToTxnManager turns into
            // INVALID_PRODUCER_EPOCH for the produce.
            assert_eq!(*cause, ErrorCode::ProducerFenced);
            assert_eq!(*error, ErrorCode::InvalidProducerEpoch);
        }
        _ => unreachable!(),
    }
    assert!(
        refused[0].time_ms > 6000,
        "it arrives after the slow link's 3 s"
    );
    // Every transactional first write was verified before the append; the
    // committed one passed.
    let started = common::find(&t, |k| {
        matches!(k, EventKind::TxnVerificationStarted { .. })
    });
    assert_eq!(started.len(), 2, "alice's first write, and the late carol");
    assert_eq!(committed_keys(&t), vec!["alice", "dave"]);
    assert_eq!(data(&t), ["-10", "+5"]);
}

/// Verification changes nothing a correct run does: the transactions lesson
/// commits and aborts the same records with the setting on or off (only
/// the extra round trip differs).
#[test]
fn verification_keeps_what_a_correct_run_commits() {
    let lesson = common::repo_file("static/lessons/transactions.json");
    let mut v: serde_json::Value = serde_json::from_str(&lesson).unwrap();
    let markers = |v: &serde_json::Value| {
        let t = common::run(&v.to_string());
        let mut m: Vec<String> =
            common::find(&t, |k| matches!(k, EventKind::TxnMarkerWritten { .. }))
                .iter()
                .map(|e| match &e.kind {
                    EventKind::TxnMarkerWritten {
                        tp,
                        committed,
                        offset,
                        ..
                    } => format!("{tp} {committed} @{offset}"),
                    _ => unreachable!(),
                })
                .collect();
        m.sort();
        (
            m,
            common::find(&t, |k| {
                matches!(k, EventKind::TxnVerificationStarted { .. })
            })
            .len(),
        )
    };
    let (on, asked_on) = markers(&v);
    v["cluster"]["config"]["transaction.partition.verification.enable"] = false.into();
    let (off, asked_off) = markers(&v);
    assert_eq!(on, off);
    assert!(asked_on > 0 && asked_off == 0, "{asked_on} {asked_off}");
}
