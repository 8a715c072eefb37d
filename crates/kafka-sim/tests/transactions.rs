//! Transactions in storage and at the consumer, over many seeds: producers
//! interleave transactions that commit or abort (and plain writes) into a
//! partition log through the leader's producer state, which writes the
//! markers' effects (`.txnindex`, LSO). A `read_committed` fetch from any
//! position, bounded by the LSO with the aborted transactions the log
//! collects, must hand the application exactly the committed records in
//! offset order; `read_uncommitted` every data record; neither a marker.

mod common;

use kafka_sim::config::LogConfig;
use kafka_sim::consumer::isolation::{deliverable, AbortedTransaction};
use kafka_sim::ids::TopicPartition;
use kafka_sim::producer_state::ProducerStates;
use kafka_sim::storage::log::Log;
use kafka_sim::storage::paged::MemStorage;
use kafka_sim::storage::record::{
    build_batch, build_end_txn_marker, BatchSpec, ControlType, EndTxnMarker, NewRecord,
};
use std::collections::BTreeMap;
use std::sync::Arc;

struct Gen(u64);
impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// What a seed writes, and the truth about each data record.
struct Written {
    log: Log,
    store: MemStorage,
    states: ProducerStates,
    /// offset → (value, committed?) for every data record; open
    /// transactions' records are absent from "committed".
    data: BTreeMap<i64, (String, Option<bool>)>,
}

fn write(seed: u64) -> Written {
    let mut g = Gen(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut store = MemStorage::default();
    let cfg = LogConfig {
        segment_bytes: 600 + g.below(2000),
        ..LogConfig::default()
    };
    let mut log = Log::create(&mut store, TopicPartition::new("t", 0), Arc::new(cfg), 0).unwrap();
    let mut states = ProducerStates::default();
    let mut seq: BTreeMap<i64, i32> = BTreeMap::new();
    let mut open: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    let mut data: BTreeMap<i64, (String, Option<bool>)> = BTreeMap::new();
    let producers = 1 + g.below(4) as i64;
    for step in 0..(20 + g.below(60)) {
        let pid = g.below(producers as u64) as i64 + 10;
        let roll = g.below(10);
        let bytes = if roll < 2 {
            // A plain write from no producer.
            build_batch(
                &BatchSpec::default(),
                &[NewRecord::new(
                    None,
                    Some(format!("plain-{step}").as_bytes()),
                    step as i64,
                )],
            )
        } else if roll < 4 && open.contains_key(&pid) {
            let kind = if g.below(2) == 0 {
                ControlType::Abort
            } else {
                ControlType::Commit
            };
            let m = EndTxnMarker {
                control_type: kind,
                coordinator_epoch: 0,
            };
            for off in open.remove(&pid).unwrap() {
                if let Some(d) = data.get_mut(&off) {
                    d.1 = Some(kind == ControlType::Commit);
                }
            }
            build_end_txn_marker(0, step as i64, 0, pid, 0, m)
        } else {
            let n = 1 + g.below(3) as usize;
            let s = seq.entry(pid).or_insert(0);
            let recs: Vec<NewRecord> = (0..n)
                .map(|i| {
                    NewRecord::new(
                        None,
                        Some(format!("{pid}-{step}-{i}").as_bytes()),
                        step as i64,
                    )
                })
                .collect();
            let b = build_batch(
                &BatchSpec {
                    producer_id: pid,
                    producer_epoch: 0,
                    base_sequence: *s,
                    transactional: true,
                    ..BatchSpec::default()
                },
                &recs,
            );
            *s += n as i32;
            b
        };
        states.check(&bytes).expect("a well-formed run is accepted");
        let p = log.prepare_leader_append(bytes, 0, step as i64).unwrap();
        let (_, a) = log.roll_and_append(&mut store, &p, step as i64).unwrap();
        for b in &a.batches {
            if b.marker.is_some() {
                continue;
            }
            let committed = if b.producer_id < 0 { Some(true) } else { None };
            for off in b.base_offset..=b.last_offset {
                if b.producer_id >= 0 {
                    open.entry(b.producer_id).or_default().push(off);
                }
                data.insert(off, (String::new(), committed));
            }
        }
        states
            .apply_appended(&mut log, &mut store, &a.batches)
            .unwrap();
    }
    // Fill in the values from the log itself.
    for b in log.decode_all(&store).unwrap() {
        for r in &b.records {
            if let Some(d) = data.get_mut(&b.offset_of(r)) {
                d.0 = String::from_utf8(r.value.clone().unwrap()).unwrap();
            }
        }
    }
    Written {
        log,
        store,
        states,
        data,
    }
}

#[test]
fn read_committed_delivers_exactly_the_committed_records_over_1000_seeds() {
    let mut aborted_seen = 0;
    let mut segments_seen = 0;
    let mut fetches = 0;
    for seed in 0..1000u64 {
        let mut w = write(seed);
        let leo = w.log.log_end_offset;
        // Everything is replicated: the HW is the log end.
        w.states.on_high_watermark_updated(leo);
        let lso = w.states.last_stable_offset(leo, 0);
        // The LSO is the first record of the earliest transaction still open.
        let first_open = w
            .data
            .iter()
            .find(|(_, (_, c))| c.is_none())
            .map(|(o, _)| *o)
            .unwrap_or(leo);
        assert_eq!(lso, first_open, "seed {seed}");
        segments_seen += w.log.segments.len();
        for start in [0, leo / 3, leo / 2, lso] {
            if start > lso {
                continue; // a read_committed consumer cannot be past the LSO
            }
            // The leader's read_committed answer: up to the LSO, with the
            // aborted transactions that overlap it.
            let fetched = w.log.read(&w.store, start, u64::MAX, lso, true).unwrap();
            let aborted: Vec<AbortedTransaction> = w
                .log
                .collect_aborted_transactions(&w.store, start, lso)
                .unwrap()
                .iter()
                .map(|t| t.as_aborted_transaction())
                .collect();
            aborted_seen += aborted.len();
            fetches += 1;
            let (got, _) = deliverable(&fetched.bytes, start, true, &aborted);
            let want: Vec<&str> = w
                .data
                .range(start..lso)
                .filter(|(_, (_, c))| *c == Some(true))
                .map(|(_, (v, _))| v.as_str())
                .collect();
            let got_v: Vec<&str> = got.iter().map(|r| r.value.as_deref().unwrap()).collect();
            assert_eq!(got_v, want, "seed {seed}, read_committed from {start}");
            assert!(
                got.iter().all(|r| r.offset < lso),
                "nothing at or above the LSO"
            );
            // read_uncommitted: every data record up to the HW, no marker.
            let all = w.log.read(&w.store, start, u64::MAX, leo, true).unwrap();
            let (got, _) = deliverable(&all.bytes, start, false, &[]);
            let want: Vec<&str> = w
                .data
                .range(start..)
                .map(|(_, (v, _))| v.as_str())
                .collect();
            let got_v: Vec<&str> = got.iter().map(|r| r.value.as_deref().unwrap()).collect();
            assert_eq!(got_v, want, "seed {seed}, read_uncommitted from {start}");
        }
    }
    // The sweep did exercise aborts across segments.
    eprintln!(
        "1,000 seeds: {segments_seen} segments, {aborted_seen} aborted transactions listed to fetches, {fetches} fetches checked"
    );
    assert!(
        aborted_seen > 1000,
        "aborted transactions listed: {aborted_seen}"
    );
    assert!(segments_seen > 2000, "segments: {segments_seen}");
}

/// The same run with a `read_committed` and a `read_uncommitted` consumer.
/// With no transactions every offset is stable: the LSO the broker sends
/// equals the high watermark and both consumers get the same records.
#[test]
fn without_transactions_read_committed_reads_what_read_uncommitted_reads() {
    use kafka_sim::event::EventKind;
    use kafka_sim::msg::Message;
    use kafka_sim::{Scenario, Timeline};
    let run = |level: &str| {
        let json = format!(
            r#"{{"seed": 3, "run_until_ms": 8000,
                "cluster": {{"brokers": [0, 1, 2]}},
                "topics": [{{"name": "t", "partitions": 2, "replication.factor": 3}}],
                "producers": [{{"name": "p", "config": {{"acks": "all"}}}}],
                "consumers": [{{"name": "c", "assign": ["t-0", "t-1"],
                  "config": {{"auto.offset.reset": "earliest", "isolation.level": "{level}"}}}}],
                "commands": [
                  {{"at_ms": 500, "type": "produce", "producer": "p", "topic": "t", "key": "a", "value": "x", "count": 30}},
                  {{"at_ms": 900, "type": "produce", "producer": "p", "topic": "t", "key": "b", "value": "y", "count": 30}}
                ]}}"#
        );
        let mut t = Timeline::new(Scenario::from_json(&json).unwrap()).unwrap();
        t.run_to_end();
        let mut consumed = Vec::new();
        let mut lsos = Vec::new();
        for e in t.events() {
            match &e.kind {
                EventKind::RecordsConsumed { tp, records, .. } => {
                    for r in records {
                        consumed.push((tp.clone(), r.offset, r.value.clone()));
                    }
                }
                EventKind::MessageSent { message, .. } => {
                    if let Message::FetchResponse { partitions, .. } = &**message {
                        for p in partitions.iter().filter(|p| p.error.is_none()) {
                            lsos.push((p.last_stable_offset, p.high_watermark));
                        }
                    }
                }
                _ => {}
            }
        }
        (consumed, lsos)
    };
    let (committed, lsos) = run("read_committed");
    let (uncommitted, plain) = run("read_uncommitted");
    assert_eq!(committed.len(), 60, "both bursts");
    assert_eq!(committed, uncommitted);
    let to_consumer: Vec<_> = lsos.iter().filter(|(l, _)| l.is_some()).collect();
    assert!(
        !to_consumer.is_empty(),
        "the read_committed fetches carry the LSO"
    );
    assert!(
        to_consumer.iter().all(|(l, hw)| *l == Some(*hw)),
        "{to_consumer:?}"
    );
    assert!(
        plain.iter().all(|(l, _)| l.is_none()),
        "only read_committed gets it"
    );
}

/// The cleaner stops at the last stable offset: an open transaction holds
/// back compaction of everything from its first record on, as the broker
/// passes the LSO to `cleanable` (`LogCleanerManager.cleanableOffsets`).
#[test]
fn an_open_transaction_bounds_what_the_cleaner_may_clean() {
    use kafka_sim::storage::cleaner::cleanable;
    let mut bounded = 0;
    for seed in 0..200u64 {
        let mut w = write(seed);
        let leo = w.log.log_end_offset;
        w.states.on_high_watermark_updated(leo);
        let lso = w.states.last_stable_offset(leo, w.log.log_start_offset);
        let c = cleanable(&w.log, lso, 0);
        assert!(c.first_uncleanable_offset <= lso, "seed {seed}");
        if lso < w.log.active().base_offset {
            assert_eq!(
                c.first_uncleanable_offset, lso,
                "seed {seed}: the LSO bounds it"
            );
            bounded += 1;
        }
    }
    assert!(
        bounded > 20,
        "seeds with an open transaction below the active segment: {bounded}"
    );
}

/// The scenario of the end-to-end tests: three brokers, `out` with two
/// partitions, a transactional producer `tx`, a `read_committed` and a
/// `read_uncommitted` consumer assigned both partitions.
fn txn_scenario(commands: &str, until: u64, extra_cluster: &str) -> String {
    format!(
        r#"{{"seed": 7, "run_until_ms": {until},
            "cluster": {{"brokers": [0, 1, 2], "config": {{"transaction.state.log.num.partitions": 5{extra_cluster}}}}},
            "topics": [{{"name": "out", "partitions": 2, "replication.factor": 3}}],
            "producers": [{{"name": "tx", "config": {{"transactional.id": "orders-tx"}}}}],
            "consumers": [
              {{"name": "committed", "assign": ["out-0", "out-1"],
                "config": {{"auto.offset.reset": "earliest", "isolation.level": "read_committed"}}}},
              {{"name": "uncommitted", "assign": ["out-0", "out-1"],
                "config": {{"auto.offset.reset": "earliest"}}}}],
            "commands": [{commands}]}}"#
    )
}

/// Values each consumer's poll() returned, by consumer index.
fn consumed_values(t: &kafka_sim::Timeline) -> Vec<Vec<String>> {
    use kafka_sim::event::EventKind;
    let mut out = vec![Vec::new(), Vec::new()];
    for e in t.events() {
        if let EventKind::RecordsConsumed {
            consumer, records, ..
        } = &e.kind
        {
            for r in records {
                out[*consumer as usize].push(r.value.clone().unwrap_or_default());
            }
        }
    }
    for v in &mut out {
        v.sort();
    }
    out
}

/// One transaction committed, the next aborted: the coordinator's states
/// go Empty → Ongoing → PrepareCommit → CompleteCommit, then round again to
/// CompleteAbort (each AddPartitionsToTxn is a transition of its own); each partition gets a COMMIT then an ABORT marker; the
/// read_committed consumer sees only the committed records, the
/// read_uncommitted one sees all of them.
#[test]
fn a_committed_and_an_aborted_transaction_end_to_end() {
    use kafka_sim::event::EventKind;
    use kafka_sim::txn::metadata::TxnState;
    let cmds = r#"
        {"at_ms": 500, "type": "init_transactions", "producer": "tx"},
        {"at_ms": 1500, "type": "begin_transaction", "producer": "tx"},
        {"at_ms": 1510, "type": "produce", "producer": "tx", "topic": "out", "partition": 0, "value": "c0"},
        {"at_ms": 1520, "type": "produce", "producer": "tx", "topic": "out", "partition": 1, "value": "c1"},
        {"at_ms": 2000, "type": "commit_transaction", "producer": "tx"},
        {"at_ms": 3000, "type": "begin_transaction", "producer": "tx"},
        {"at_ms": 3010, "type": "produce", "producer": "tx", "topic": "out", "partition": 0, "value": "a0"},
        {"at_ms": 3020, "type": "produce", "producer": "tx", "topic": "out", "partition": 1, "value": "a1"},
        {"at_ms": 3500, "type": "abort_transaction", "producer": "tx"}"#;
    let t = common::run(&txn_scenario(cmds, 8000, ""));
    let states: Vec<TxnState> = t
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TxnStateChanged { to, .. } => Some(*to),
            _ => None,
        })
        .collect();
    use TxnState::*;
    assert_eq!(
        states,
        vec![
            Empty,
            Ongoing,
            PrepareCommit,
            CompleteCommit,
            // a0 and a1 are sent 10 ms apart: two AddPartitionsToTxn.
            Ongoing,
            Ongoing,
            PrepareAbort,
            CompleteAbort
        ]
    );
    let markers: Vec<(String, bool)> = t
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TxnMarkerWritten { tp, committed, .. } => Some((tp.to_string(), *committed)),
            _ => None,
        })
        .collect();
    assert_eq!(markers.len(), 4, "{markers:?}");
    let got = consumed_values(&t);
    assert_eq!(got[0], vec!["c0", "c1"], "read_committed");
    assert_eq!(got[1], vec!["a0", "a1", "c0", "c1"], "read_uncommitted");
}

/// The times of the coordinator's transitions to `to`.
fn transition_times(t: &kafka_sim::Timeline, to: kafka_sim::txn::metadata::TxnState) -> Vec<u64> {
    use kafka_sim::event::EventKind;
    t.events()
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::TxnStateChanged { to: x, .. } if *x == to))
        .map(|e| e.time_ms)
        .collect()
}

/// A coordinator that dies between PrepareCommit and CompleteCommit: the
/// broker that takes over `__transaction_state` reads PrepareCommit back,
/// sends the markers again and completes the commit; the read_committed
/// consumer gets the records exactly once.
#[test]
fn a_new_coordinator_completes_a_commit_its_predecessor_prepared() {
    use kafka_sim::event::EventKind;
    use kafka_sim::txn::metadata::TxnState;
    let base = r#"
        {"at_ms": 500, "type": "init_transactions", "producer": "tx"},
        {"at_ms": 1500, "type": "begin_transaction", "producer": "tx"},
        {"at_ms": 1510, "type": "produce", "producer": "tx", "topic": "out", "partition": 0, "value": "c0"},
        {"at_ms": 1520, "type": "produce", "producer": "tx", "topic": "out", "partition": 1, "value": "c1"},
        {"at_ms": 2000, "type": "commit_transaction", "producer": "tx"}"#;
    let calm = common::run(&txn_scenario(base, 6000, ""));
    let prepared = transition_times(&calm, TxnState::PrepareCommit)[0];
    let completed = transition_times(&calm, TxnState::CompleteCommit)[0];
    assert!(completed > prepared + 1, "{prepared} {completed}");
    let coordinator = calm
        .events()
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::TxnStateChanged { broker, .. } => Some(broker.0),
            _ => None,
        })
        .unwrap();
    let cmds = format!(
        r#"{base}, {{"at_ms": {}, "type": "kill_broker", "broker": {coordinator}}}"#,
        prepared + 1
    );
    let t = common::run(&txn_scenario(&cmds, 60_000, ""));
    let loaded = t
        .events()
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::TxnsLoaded {
                broker, completing, ..
            } if !completing.is_empty() => Some((broker.0, completing.clone())),
            _ => None,
        })
        .expect("a new coordinator loads the prepared commit");
    assert_ne!(loaded.0, coordinator);
    assert_eq!(loaded.1, vec!["orders-tx".to_string()]);
    let done: Vec<i32> = t
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TxnStateChanged {
                broker,
                to: TxnState::CompleteCommit,
                ..
            } => Some(broker.0),
            _ => None,
        })
        .collect();
    assert_eq!(done, vec![loaded.0], "the new coordinator completes it");
    let got = consumed_values(&t);
    assert_eq!(got[0], vec!["c0", "c1"], "read_committed, once each");
}

/// Zombie fencing: a second producer with the same `transactional.id`
/// calls initTransactions while the first has a transaction open. The
/// coordinator bumps the epoch, aborts the open transaction (the new
/// producer hears CONCURRENT_TRANSACTIONS and retries), then hands the new
/// producer the next epoch. The zombie's commit is PRODUCER_FENCED: fatal.
#[test]
fn a_second_producer_with_the_same_transactional_id_fences_the_first() {
    use kafka_sim::event::EventKind;
    use kafka_sim::txn::metadata::TxnState;
    use kafka_sim::txn::{ClientTxnState, TxnCause};
    let cmds = r#"
        {"at_ms": 500, "type": "init_transactions", "producer": "tx"},
        {"at_ms": 1500, "type": "begin_transaction", "producer": "tx"},
        {"at_ms": 1510, "type": "produce", "producer": "tx", "topic": "out", "partition": 0, "value": "zombie"},
        {"at_ms": 1600, "type": "add_producer", "producer": {"name": "tx2", "config": {"transactional.id": "orders-tx"}}},
        {"at_ms": 2000, "type": "init_transactions", "producer": "tx2"},
        {"at_ms": 4000, "type": "commit_transaction", "producer": "tx"}"#;
    let t = common::run(&txn_scenario(cmds, 8000, ""));
    let fenced: Vec<(TxnState, i16, TxnCause)> = t
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TxnStateChanged {
                to,
                producer_epoch,
                cause,
                ..
            } => Some((*to, *producer_epoch, *cause)),
            _ => None,
        })
        .collect();
    assert!(
        fenced.contains(&(TxnState::PrepareAbort, 1, TxnCause::Fence)),
        "{fenced:?}"
    );
    assert!(fenced.contains(&(TxnState::CompleteAbort, 1, TxnCause::Markers)));
    assert_eq!(
        fenced.last(),
        Some(&(TxnState::Empty, 2, TxnCause::Client)),
        "the new producer gets epoch 2"
    );
    assert!(
        t.events()
            .iter()
            .any(|e| matches!(&e.kind, EventKind::MessageSent { message, .. }
            if matches!(&**message, kafka_sim::msg::Message::InitProducerIdResponse {
                error: Some(kafka_sim::msg::ErrorCode::ConcurrentTransactions), .. }))),
        "the new producer is told to retry"
    );
    let zombie_fatal = t.events().iter().any(|e| {
        matches!(
            &e.kind,
            EventKind::ProducerTxnStateChanged {
                producer: 0,
                to: ClientTxnState::FatalError,
                error: Some(kafka_sim::msg::ErrorCode::ProducerFenced),
                ..
            }
        )
    });
    assert!(zombie_fatal, "the zombie's commit is fenced");
    let got = consumed_values(&t);
    assert!(got[0].is_empty(), "read_committed: {:?}", got[0]);
    assert_eq!(got[1], vec!["zombie"], "read_uncommitted");
}

/// A transaction left open past `transaction.timeout.ms` is aborted by the
/// coordinator's periodic check, with the epoch bumped so the late commit is
/// fenced.
#[test]
fn an_open_transaction_past_its_timeout_is_aborted() {
    use kafka_sim::event::EventKind;
    use kafka_sim::txn::metadata::TxnState;
    use kafka_sim::txn::TxnCause;
    let cmds = r#"
        {"at_ms": 500, "type": "init_transactions", "producer": "tx"},
        {"at_ms": 1500, "type": "begin_transaction", "producer": "tx"},
        {"at_ms": 1510, "type": "produce", "producer": "tx", "topic": "out", "partition": 1, "value": "late"},
        {"at_ms": 20000, "type": "commit_transaction", "producer": "tx"}"#;
    let json = txn_scenario(cmds, 25_000, "").replace(
        r#""transactional.id": "orders-tx""#,
        r#""transactional.id": "orders-tx", "transaction.timeout.ms": 5000"#,
    );
    let t = common::run(&json);
    let aborted = t
        .events()
        .iter()
        .find(|e| {
            matches!(
                &e.kind,
                EventKind::TxnStateChanged {
                    to: TxnState::PrepareAbort,
                    cause: TxnCause::Timeout,
                    ..
                }
            )
        })
        .expect("the timeout aborts it");
    // Started at about 1.5 s; the check runs every 10 s: the first check
    // after 6.5 s is at 10 s after the coordinator loaded.
    assert!(
        aborted.time_ms >= 6500 && aborted.time_ms < 20_000,
        "{}",
        aborted.time_ms
    );
    let got = consumed_values(&t);
    assert!(got[0].is_empty(), "{:?}", got[0]);
    // The late commit is refused: the timeout's fence bumped the epoch.
    assert!(t.events().iter().any(|e| matches!(
        &e.kind,
        EventKind::ProducerTxnStateChanged {
            to: kafka_sim::txn::ClientTxnState::FatalError,
            error: Some(kafka_sim::msg::ErrorCode::ProducerFenced),
            ..
        }
    )));
}
