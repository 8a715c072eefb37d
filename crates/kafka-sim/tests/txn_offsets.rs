//! `sendOffsetsToTransaction`: a consumer's positions committed inside a
//! producer's transaction (KIP-98, KIP-447). The offsets become the group's
//! committed offsets only when the transaction commits; an abort drops them;
//! while the transaction is undecided, a read_committed consumer's
//! OffsetFetch is answered UNSTABLE_OFFSET_COMMIT and it waits.

mod common;

use kafka_sim::event::EventKind;
use kafka_sim::msg::Message;

/// Three brokers; `in` holds four records written at 100 ms; consumer `c1`
/// of group `g` (read_committed, no auto-commit) joins (after the group's
/// initial rebalance delay of 3 s) and reads them; `tx` writes to
/// `out` transactionally. `c2` may be added by the commands.
fn scenario(commands: &str) -> String {
    format!(
        r#"{{"seed": 11, "run_until_ms": 16000,
            "cluster": {{"brokers": [0, 1, 2], "config": {{"transaction.state.log.num.partitions": 5, "offsets.topic.num.partitions": 5}}}},
            "topics": [{{"name": "in", "partitions": 1, "replication.factor": 3}},
                       {{"name": "out", "partitions": 1, "replication.factor": 3}}],
            "producers": [{{"name": "src"}}, {{"name": "tx", "config": {{"transactional.id": "copier"}}}}],
            "consumers": [{{"name": "c1", "subscribe": ["in"],
                "config": {{"group.id": "g", "enable.auto.commit": false, "auto.offset.reset": "earliest",
                           "isolation.level": "read_committed"}}}}],
            "commands": [
              {{"at_ms": 100, "type": "produce", "producer": "src", "topic": "in", "value": "v", "count": 4}},
              {{"at_ms": 500, "type": "init_transactions", "producer": "tx"}},
              {{"at_ms": 6000, "type": "begin_transaction", "producer": "tx"}},
              {{"at_ms": 6010, "type": "produce", "producer": "tx", "topic": "out", "value": "copy", "count": 4}},
              {{"at_ms": 6020, "type": "send_offsets_to_transaction", "producer": "tx", "consumer": "c1"}}
              {commands}]}}"#
    )
}

/// The command adding `c2`, a second member of group `g` like `c1`.
fn add_c2(at_ms: u64) -> String {
    format!(
        r#"{{"at_ms": {at_ms}, "type": "add_consumer", "consumer": {{"name": "c2", "subscribe": ["in"],
            "config": {{"group.id": "g", "enable.auto.commit": false, "auto.offset.reset": "earliest",
                       "isolation.level": "read_committed"}}}}}}"#
    )
}

fn completed(t: &kafka_sim::Timeline) -> Vec<(u64, bool, String)> {
    t.events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TxnOffsetsCompleted {
                committed,
                offsets,
                group,
                ..
            } => Some((
                e.time_ms,
                *committed,
                format!(
                    "{group}: {}",
                    offsets
                        .iter()
                        .map(|(tp, o)| format!("{tp}@{o}"))
                        .collect::<Vec<_>>()
                        .join(",")
                ),
            )),
            _ => None,
        })
        .collect()
}

/// Where consumer `c` started reading `in-0` from its group's committed offset.
fn committed_start(t: &kafka_sim::Timeline, c: u32) -> Option<(u64, i64)> {
    t.events().iter().find_map(|e| match &e.kind {
        EventKind::ConsumerPositionReset {
            consumer,
            position,
            reason,
            ..
        } if *consumer == c && reason.starts_with("the committed offset") => {
            Some((e.time_ms, *position))
        }
        _ => None,
    })
}

/// Committed: the offsets become the group's, and the next owner of the
/// partition starts after the four records the transaction copied.
#[test]
fn offsets_sent_in_a_committed_transaction_become_the_groups() {
    let t = common::run(&scenario(&format!(
        r#", {{"at_ms": 6500, "type": "commit_transaction", "producer": "tx"}},
            {{"at_ms": 8000, "type": "stop_consumer", "consumer": "c1"}}, {}"#,
        add_c2(8100)
    )));
    assert_eq!(
        completed(&t)
            .into_iter()
            .map(|x| (x.1, x.2))
            .collect::<Vec<_>>(),
        vec![(true, "g: in-0@4".to_string())]
    );
    // The __consumer_offsets partition got the transaction's COMMIT marker too.
    let marked: Vec<String> = t
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TxnMarkerWritten {
                tp,
                committed: true,
                ..
            } => Some(tp.topic.to_string()),
            _ => None,
        })
        .collect();
    assert!(
        marked.contains(&"__consumer_offsets".to_string()),
        "{marked:?}"
    );
    assert_eq!(committed_start(&t, 1).map(|x| x.1), Some(4));
}

/// `olderThan`: a member's own commit appended after the transaction's
/// offset commit stays the group's when the transaction commits later
/// (`GroupMetadata.completePendingTxnOffsetCommit`). Here `c1` reads four
/// more records and commits 8 with commitSync while the transaction that
/// sent 4 is open; the COMMIT applies nothing, and the next owner starts
/// at 8, not 4.
#[test]
fn a_transactions_offsets_do_not_replace_a_commit_appended_after_them() {
    let t = common::run(&scenario(&format!(
        r#", {{"at_ms": 6100, "type": "produce", "producer": "src", "topic": "in", "value": "w", "count": 4}},
            {{"at_ms": 7000, "type": "commit_sync", "consumer": "c1"}},
            {{"at_ms": 7500, "type": "commit_transaction", "producer": "tx"}},
            {{"at_ms": 8000, "type": "stop_consumer", "consumer": "c1"}}, {}"#,
        add_c2(8100)
    )));
    let commits: Vec<Vec<(String, i64)>> = t
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::OffsetsCommitted { offsets, .. } => {
                Some(offsets.iter().map(|(tp, o)| (tp.to_string(), *o)).collect())
            }
            _ => None,
        })
        .collect();
    assert!(
        commits.contains(&vec![("in-0".to_string(), 8)]),
        "{commits:?}"
    );
    assert_eq!(
        completed(&t)
            .into_iter()
            .map(|x| (x.1, x.2))
            .collect::<Vec<_>>(),
        vec![(true, "g: ".to_string())],
        "the transaction committed and applied nothing"
    );
    assert_eq!(committed_start(&t, 1).map(|x| x.1), Some(8));
}

/// Aborted: the offsets are dropped; the next owner reads the four records
/// again (they were never copied: the copies were aborted with them).
#[test]
fn offsets_sent_in_an_aborted_transaction_are_dropped() {
    let t = common::run(&scenario(&format!(
        r#", {{"at_ms": 6500, "type": "abort_transaction", "producer": "tx"}},
            {{"at_ms": 8000, "type": "stop_consumer", "consumer": "c1"}}, {}"#,
        add_c2(8100)
    )));
    // The abort came before the TxnOffsetCommit finished or after: either
    // way nothing of it is committed.
    assert!(completed(&t).iter().all(|c| !c.1), "{:?}", completed(&t));
    assert_eq!(
        committed_start(&t, 1),
        None,
        "no committed offset: auto.offset.reset"
    );
    let c2_read: usize = t
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RecordsConsumed {
                consumer: 1,
                records,
                ..
            } => Some(records.len()),
            _ => None,
        })
        .sum();
    assert_eq!(c2_read, 4);
}

/// Undecided: a read_committed consumer taking the partition over while
/// the transaction is open gets UNSTABLE_OFFSET_COMMIT and asks again;
/// it starts only once the commit decided the offset, and starts after it.
#[test]
fn a_read_committed_consumer_waits_for_an_undecided_offset() {
    let t = common::run(&scenario(&format!(
        r#", {{"at_ms": 6500, "type": "stop_consumer", "consumer": "c1"}}, {},
            {{"at_ms": 11000, "type": "commit_transaction", "producer": "tx"}}"#,
        add_c2(6600)
    )));
    let unstable_at: Vec<u64> = t
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::MessageSent { message, .. } => match &**message {
                Message::OffsetFetchResponse { unstable, .. } if !unstable.is_empty() => {
                    Some(e.time_ms)
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert!(
        unstable_at.len() >= 2,
        "asked again while undecided: {unstable_at:?}"
    );
    let done = completed(&t);
    assert_eq!(done.len(), 1, "{done:?}");
    assert!(done[0].1);
    assert!(unstable_at.iter().all(|at| *at < done[0].0));
    let (at, pos) = committed_start(&t, 1).expect("c2 starts from the committed offset");
    assert_eq!(pos, 4);
    assert!(
        at >= done[0].0,
        "started at {at}, before the commit at {}",
        done[0].0
    );
}

/// The records consumer `c`'s poll() returned, in order.
fn consumed(t: &kafka_sim::Timeline, c: u32) -> Vec<kafka_sim::event::ConsumedRecord> {
    t.events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RecordsConsumed {
                consumer, records, ..
            } if *consumer == c => Some(records.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

/// Values a consumer's poll() returned, in order.
fn read_by(t: &kafka_sim::Timeline, c: u32) -> Vec<String> {
    consumed(t, c)
        .into_iter()
        .map(|r| r.value.unwrap_or_default())
        .collect()
}

/// The read-process-write loop of exactly-once, crashed in the middle:
/// instance 1 copies `in` to `out` and sends its positions in the
/// transaction, then dies (consumer and producer) before committing.
/// Instance 2, with the same `transactional.id`, fences it (the open
/// transaction is aborted, its offsets dropped), finds no committed offset,
/// copies the four records again and commits. A read_committed reader of
/// `out` sees each copy once; a read_uncommitted one sees the aborted
/// copies too.
#[test]
fn a_transactional_copy_survives_a_crash_exactly_once() {
    let member = r#""group.id": "g", "enable.auto.commit": false, "auto.offset.reset": "earliest",
        "isolation.level": "read_committed", "session.timeout.ms": 6000, "heartbeat.interval.ms": 2000"#;
    let json = format!(
        r#"{{"seed": 5, "run_until_ms": 26000,
            "cluster": {{"brokers": [0, 1, 2], "config": {{"transaction.state.log.num.partitions": 5, "offsets.topic.num.partitions": 5}}}},
            "topics": [{{"name": "in", "partitions": 1, "replication.factor": 3}},
                       {{"name": "out", "partitions": 1, "replication.factor": 3}}],
            "producers": [{{"name": "src"}}, {{"name": "tx1", "config": {{"transactional.id": "copier"}}}}],
            "consumers": [
              {{"name": "c1", "subscribe": ["in"], "config": {{{member}}}}},
              {{"name": "committed", "assign": ["out-0"], "config": {{"auto.offset.reset": "earliest", "isolation.level": "read_committed"}}}},
              {{"name": "uncommitted", "assign": ["out-0"], "config": {{"auto.offset.reset": "earliest"}}}}],
            "commands": [
              {{"at_ms": 100, "type": "produce", "producer": "src", "topic": "in", "value": "v", "count": 4}},
              {{"at_ms": 500, "type": "init_transactions", "producer": "tx1"}},
              {{"at_ms": 6000, "type": "begin_transaction", "producer": "tx1"}},
              {{"at_ms": 6010, "type": "produce", "producer": "tx1", "topic": "out", "value": "copy", "count": 4}},
              {{"at_ms": 6020, "type": "send_offsets_to_transaction", "producer": "tx1", "consumer": "c1"}},
              {{"at_ms": 6200, "type": "crash_consumer", "consumer": "c1"}},
              {{"at_ms": 6200, "type": "close_producer", "producer": "tx1", "timeout_ms": 0}},
              {{"at_ms": 9000, "type": "add_producer", "producer": {{"name": "tx2", "config": {{"transactional.id": "copier"}}}}}},
              {{"at_ms": 9000, "type": "add_consumer", "consumer": {{"name": "c2", "subscribe": ["in"], "config": {{{member}}}}}}},
              {{"at_ms": 9100, "type": "init_transactions", "producer": "tx2"}},
              {{"at_ms": 20000, "type": "begin_transaction", "producer": "tx2"}},
              {{"at_ms": 20010, "type": "produce", "producer": "tx2", "topic": "out", "value": "copy", "count": 4}},
              {{"at_ms": 20020, "type": "send_offsets_to_transaction", "producer": "tx2", "consumer": "c2"}},
              {{"at_ms": 20500, "type": "commit_transaction", "producer": "tx2"}}]}}"#
    );
    let t = common::run(&json);
    let rejected: Vec<String> = t
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::CommandRejected { reason, .. } => Some(reason.clone()),
            _ => None,
        })
        .collect();
    assert!(rejected.is_empty(), "{rejected:?}");
    // Instance 1's offsets were dropped with its transaction, instance 2's committed.
    let done: Vec<(bool, String)> = completed(&t).into_iter().map(|x| (x.1, x.2)).collect();
    assert_eq!(
        done,
        vec![
            (false, "g: in-0@4".to_string()),
            (true, "g: in-0@4".to_string())
        ]
    );
    // c2 (consumer 3) started over: there was no committed offset.
    assert_eq!(read_by(&t, 3), vec!["v-1", "v-2", "v-3", "v-4"]);
    assert_eq!(read_by(&t, 1), vec!["copy-1", "copy-2", "copy-3", "copy-4"]);
    assert_eq!(
        read_by(&t, 2).len(),
        8,
        "read_uncommitted sees the aborted copies too"
    );
}

/// The committed output of a pipeline, as a read_committed reader got it:
/// each output key names its input (`in-0@3`).
fn output_keys(t: &kafka_sim::Timeline, reader: u32) -> Vec<String> {
    consumed(t, reader)
        .into_iter()
        .map(|r| r.key.unwrap_or_default())
        .collect()
}

/// The pipeline of `a_pipeline_copies_each_record_once_across_a_crash`: the
/// source writes 80 records to `in` in four bursts; `c1` (with `tx1`)
/// copies them to `out`, crashes at 4,150 ms and `c2` (with `tx2`) takes
/// over; `reader` reads `out` read_committed. `intruder`, a plain
/// producer, is there for `extra` commands.
fn crashing_pipeline(extra: &str) -> String {
    let member = r#""group.id": "g", "enable.auto.commit": false, "auto.offset.reset": "earliest",
        "isolation.level": "read_committed", "session.timeout.ms": 6000, "heartbeat.interval.ms": 2000"#;
    format!(
        r#"{{"seed": 9, "run_until_ms": 40000,
            "cluster": {{"brokers": [0, 1, 2], "config": {{"transaction.state.log.num.partitions": 5, "offsets.topic.num.partitions": 5}}}},
            "topics": [{{"name": "in", "partitions": 2, "replication.factor": 3}},
                       {{"name": "out", "partitions": 1, "replication.factor": 3}}],
            "producers": [{{"name": "src", "config": {{"linger.ms": 5}}}}, {{"name": "tx1", "config": {{"transactional.id": "copier"}}}},
                          {{"name": "intruder"}}],
            "consumers": [
              {{"name": "c1", "subscribe": ["in"], "pipeline": {{"producer": "tx1", "topic": "out"}}, "config": {{{member}}}}},
              {{"name": "reader", "assign": ["out-0"], "config": {{"auto.offset.reset": "earliest", "isolation.level": "read_committed"}}}}],
            "commands": [
              {{"at_ms": 100, "type": "produce", "producer": "src", "topic": "in", "value": "a", "count": 20}},
              {{"at_ms": 4000, "type": "produce", "producer": "src", "topic": "in", "value": "b", "count": 20}},
              {{"at_ms": 4150, "type": "crash_consumer", "consumer": "c1"}},
              {{"at_ms": 4150, "type": "close_producer", "producer": "tx1", "timeout_ms": 0}},
              {{"at_ms": 6000, "type": "produce", "producer": "src", "topic": "in", "value": "c", "count": 20}},
              {{"at_ms": 8000, "type": "add_producer", "producer": {{"name": "tx2", "config": {{"transactional.id": "copier"}}}}}},
              {{"at_ms": 8000, "type": "add_consumer", "consumer": {{"name": "c2", "subscribe": ["in"], "pipeline": {{"producer": "tx2", "topic": "out"}}, "config": {{{member}}}}}}},
              {extra}
              {{"at_ms": 20000, "type": "produce", "producer": "src", "topic": "in", "value": "d", "count": 20}}]}}"#
    )
}

/// `exactly_once_pipeline` is checked whenever the pipeline's transaction
/// completes, against the output's committed records and the group's
/// committed offsets: a second copy of an input, or a copy of an input whose
/// offset is not committed, written into `out` by another producer, is
/// reported at the pipeline's next completed transaction.
#[test]
fn the_exactly_once_guarantee_reports_a_copy_too_many() {
    let broken = |extra: &str| {
        let t = common::run(&crashing_pipeline(extra));
        t.events()
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::GuaranteeBroken {
                    guarantee, detail, ..
                } => Some((*guarantee, e.time_ms, detail.clone())),
                _ => None,
            })
            .expect("a guarantee breaks")
    };
    // After every input is copied; the source's last record starts one more transaction.
    let (g, at, d) = broken(
        r#"{"at_ms": 30000, "type": "produce", "producer": "intruder", "topic": "out", "key": "in-1@0", "value": "again"},
           {"at_ms": 32000, "type": "produce", "producer": "src", "topic": "in", "value": "e"},"#,
    );
    assert_eq!(g, kafka_sim::event::Guarantee::ExactlyOncePipeline);
    assert!(
        at > 32000,
        "found when the next transaction completes: {at}"
    );
    assert!(
        d.contains("input in-1@0 is in the committed output twice"),
        "{d}"
    );
    let (g, _, d) = broken(
        r#"{"at_ms": 10000, "type": "produce", "producer": "intruder", "topic": "out", "key": "in-1@500", "value": "early"},"#,
    );
    assert_eq!(g, kafka_sim::event::Guarantee::ExactlyOncePipeline);
    assert!(
        d.contains("the copy of in-1@500, is committed but group g's committed offset of in-1 is"),
        "{d}"
    );
}

/// The same loop as a pipeline (`"pipeline": {"producer", "topic"}`): the
/// application copies whatever poll() returns, transaction by transaction,
/// while the source keeps writing; it crashes mid-stream and a second
/// instance takes over. Every input record is in the committed output
/// exactly once.
#[test]
fn a_pipeline_copies_each_record_once_across_a_crash() {
    let t = common::run(&crashing_pipeline(""));
    assert!(
        !t.events()
            .iter()
            .any(|e| matches!(e.kind, EventKind::GuaranteeBroken { .. })),
        "no guarantee breaks"
    );
    let mut keys = output_keys(&t, 1);
    let n = keys.len();
    keys.sort();
    keys.dedup();
    assert_eq!(n, keys.len(), "a copy committed twice");
    // The 80 inputs, each once: in-0@0.. and in-1@0.. by what the source wrote.
    let written: usize = t
        .events()
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::RecordAcknowledged { producer: 0, .. }))
        .count();
    assert_eq!(written, 80);
    assert_eq!(keys.len(), 80, "every input copied: {keys:?}");
    // The crash left a transaction open, with copies in out-0: the second
    // instance's initTransactions() aborted it.
    let aborted = t
        .events()
        .iter()
        .filter(|e| {
            matches!(&e.kind, EventKind::TxnMarkerWritten { committed: false, tp, .. } if &*tp.topic == "out")
        })
        .count();
    assert_eq!(aborted, 1);
}
