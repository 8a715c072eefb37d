//! Transactions in storage and at the consumer, over many seeds: producers
//! interleave transactions that commit or abort (and plain writes) into a
//! partition log through the leader's producer state, which writes the
//! markers' effects (`.txnindex`, LSO). A `read_committed` fetch from any
//! position, bounded by the LSO with the aborted transactions the log
//! collects, must hand the application exactly the committed records in
//! offset order; `read_uncommitted` every data record; neither a marker.

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
