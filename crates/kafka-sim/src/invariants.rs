//! Kafka's promises, checked as the simulation runs (stateright-style named
//! properties).
//!
//! When one is broken the engine records a `GuaranteeBroken` event at that
//! exact step, so a lesson can point at it ("here the acknowledged record was
//! lost: acks=1 and the leader died before a follower copied it").
//!
//! * `acknowledged_records_survive` — every record a producer was told is
//!   written (acks=1 or all) is still in the current leader's log. Kafka
//!   promises this for acks=all with `min.insync.replicas` ≥ 2 and clean
//!   elections while fewer than RF replicas fail; with acks=1, an unclean
//!   election or the pre-KIP-101 truncation rule it can break, and the
//!   simulation shows where.
//! * `read_committed_isolation` — a `read_committed` consumer never gets a
//!   record whose transaction the current leader's `.txnindex` lists as
//!   aborted, nor
//!   one at or above the last stable offset the broker answered with
//!   (checked when the fetch response is buffered, `consumer/audit.rs`).
//! * `exactly_once_pipeline` — a read-process-write pipeline
//!   (`ConsumerSpec::pipeline`) has copied each input record once: whenever
//!   its `transactional.id`'s transaction completes (CompleteCommit or
//!   CompleteAbort, when every marker is written), the committed records of
//!   its output topic (below each leader's LSO, aborted ones left out) name
//!   each input once, none at or above the group's committed offset, and
//!   every input record from the first copied to that offset has its copy
//!   (`broker/audit.rs`).
//! * `one_leader_per_epoch`, `high_watermark_within_isr`,
//!   `high_watermark_monotonic` — internal consistency Kafka always keeps;
//!   they are here to catch mistakes in the simulation itself.
//!
//! This module keeps what the checks remember (the [`Ledger`]); the checks
//! themselves run where the facts are: `broker/audit.rs` (the brokers'
//! logs, lent to a producer's or a broker's handle), `consumer/audit.rs`
//! (the other consumers), and `World::check_invariants` (the always-true
//! ones on a whole world, which the property tests call after every step).

use crate::collections::{SortedMap, SortedSet};
use crate::event::Guarantee;
use crate::ids::{BrokerId, TopicPartition};
use crate::storage::log::Log;
use crate::storage::paged::MemStorage;
use crate::storage::record;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A record a producer saw acknowledged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AckedRecord {
    /// The producer that sent it (its index).
    pub producer: u32,
    /// Its key.
    pub key: Option<Vec<u8>>,
    /// Its value.
    pub value: Option<Vec<u8>>,
    /// The `acks` it was sent with.
    pub acks: i16,
}

/// What the checks remember between steps.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    /// Acknowledged records per partition, by offset. Each partition's map
    /// is shared with the checkpoints that hold it until it changes, so a
    /// checkpoint (and every seek) does not copy every record acknowledged
    /// so far.
    pub acked: SortedMap<TopicPartition, Arc<SortedMap<i64, AckedRecord>>>,
    /// Acknowledged records already reported lost (reported once).
    pub lost: SortedSet<(TopicPartition, i64)>,
    /// (broker, its incarnation, partition) → (leader epoch, highest HW seen
    /// in it). A restarted broker is a new leader even in the same epoch: its
    /// high watermark starts again from its checkpoint.
    pub leader_hw: SortedMap<(BrokerId, u32, TopicPartition), (i32, i64)>,
    /// The guarantees already reported broken, per partition (each is reported once).
    pub reported: SortedSet<(Guarantee, TopicPartition)>,
    /// The pipelines `exactly_once_pipeline` follows, by `transactional.id`
    /// (each is added when it starts; checkpoints share the map).
    pub pipelines: Arc<SortedMap<String, PipelineAudit>>,
    /// KRaft: each epoch's quorum leader and the committed metadata records.
    pub quorum: crate::kraft::raft::QuorumLedger,
}

/// What `exactly_once_pipeline` knows of a pipeline from its scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineAudit {
    /// The group whose offsets its transactions commit.
    pub group: String,
    /// The topic it writes.
    pub output: String,
    /// `auto.offset.reset=earliest`: it copies each input partition from
    /// its log start offset (otherwise from the first record it copied).
    pub from_start: bool,
}

/// A record's key and value.
pub type KeyValue = (Option<Vec<u8>>, Option<Vec<u8>>);

/// The record at `offset` in a log: key and value, if present.
pub fn record_at(log: &Log, disk: &MemStorage, offset: i64) -> Option<KeyValue> {
    if offset < log.log_start_offset || offset >= log.log_end_offset {
        return None;
    }
    let data = log
        .read(disk, offset, u64::MAX, log.log_end_offset, true)
        .ok()?;
    let b = record::decode_batch(&data.bytes, 0).ok()?;
    b.records
        .iter()
        .find(|r| b.offset_of(r) == offset)
        .map(|r| (r.key.clone(), r.value.clone()))
}

/// Each batch of a log from the one holding `lo` to the last that starts
/// below `hi`, read in one pass.
fn batches_between(
    log: &Log,
    disk: &MemStorage,
    lo: i64,
    hi: i64,
    f: &mut dyn FnMut(&record::DecodedBatch),
) {
    let Ok(data) = log.read(disk, lo, u64::MAX, hi, true) else {
        return;
    };
    let mut pos = 0usize;
    while pos < data.bytes.len() {
        let Ok(b) = record::decode_batch(&data.bytes[pos..], pos as u64) else {
            break;
        };
        pos += b.header.size_in_bytes() as usize;
        if b.header.base_offset >= hi {
            break;
        }
        f(&b);
    }
}

/// Key and value of every record in `[lo, hi)` of a log, read in one pass.
pub fn records_between(log: &Log, disk: &MemStorage, lo: i64, hi: i64) -> SortedMap<i64, KeyValue> {
    let mut out = SortedMap::new();
    if lo >= hi || lo < log.log_start_offset || lo >= log.log_end_offset {
        return out;
    }
    batches_between(log, disk, lo, hi, &mut |b| {
        for r in &b.records {
            let o = b.offset_of(r);
            if o >= lo && o < hi {
                out.insert(o, (r.key.clone(), r.value.clone()));
            }
        }
    });
    out
}

/// Offset and key of each record of committed data in `[lo, hi)` of a log
/// (`hi` at most its last stable offset): control records and the records
/// of transactions its `.txnindex` lists as aborted are left out, as a
/// read_committed consumer leaves them.
pub fn committed_records(
    log: &Log,
    disk: &MemStorage,
    lo: i64,
    hi: i64,
) -> Vec<(i64, Option<Vec<u8>>)> {
    let mut out = Vec::new();
    let lo = lo.max(log.log_start_offset);
    if lo >= hi || lo >= log.log_end_offset {
        return out;
    }
    let aborted = log
        .collect_aborted_transactions(disk, lo, hi)
        .unwrap_or_default();
    batches_between(log, disk, lo, hi, &mut |b| {
        let h = &b.header;
        for r in b.records.iter().filter(|_| !h.is_control()) {
            let o = b.offset_of(r);
            let dropped = h.is_transactional() && aborted.iter().any(|t| t.holds(h.producer_id, o));
            if o >= lo && o < hi && !dropped {
                out.push((o, r.key.clone()));
            }
        }
    });
    out
}
