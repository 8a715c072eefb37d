//! The log cleaner: compaction for `cleanup.policy=compact` (S6).
//!
//! Kafka's `LogCleaner` keeps, for every key, only the latest record:
//!
//! 1. **Is the log dirty enough?** The *clean* part runs from the log start to
//!    the cleaner checkpoint (`cleaner-offset-checkpoint`); the *dirty* part
//!    from there to the first uncleanable offset: the smallest of the active
//!    segment's base offset, the high watermark (last stable offset), and the
//!    first segment younger than `min.compaction.lag.ms`. The log is cleaned
//!    when dirty bytes / (clean + dirty) bytes ≥ `min.cleanable.dirty.ratio`.
//! 2. **Offset map.** Read the dirty part and remember each key's latest offset.
//! 3. **Rewrite.** Every segment from the start to the end of the dirty part is
//!    copied, in groups whose combined size fits `segment.bytes`, keeping a
//!    record only if it is the latest for its key. Offsets are preserved (so
//!    they become non-contiguous) and each batch keeps its last offset.
//! 4. **Tombstones** (a key with a null value) survive the pass that first sees
//!    them, which stamps a *delete horizon* = now + `delete.retention.ms` into
//!    the batch (KIP-534, Kafka ≥ 3.1); a later pass after the horizon removes
//!    them, giving consumers time to see the delete.
//!
//! 5. **Transactions** (`CleanedTransactionMetadata`, LogCleaner.scala
//!    1236–1340 in Kafka 3.9, with `cleanInto`'s batch filter, 750–800):
//!    records of an aborted transaction (listed in `.txnindex`) are left out
//!    of the offset map and removed outright. An ABORT marker stays while a
//!    pass still finds records of its transaction (it then goes into the
//!    cleaned segment's `.txnindex`); a COMMIT marker stays while its
//!    transaction has batches. Once a marker's transaction has no batch
//!    left, the pass stamps a delete horizon into the marker's batch, as for
//!    a tombstone, and a pass after that horizon removes it.
//!
//! Simplified: the offset map has no size limit (Kafka bounds it by
//! `log.cleaner.dedupe.buffer.size` and may need several passes); batches left
//! empty are dropped (Kafka keeps an empty batch when it holds a live
//! producer's last sequence or epoch, or ends the cleaned range); each source
//! segment is appended to the cleaned segment as one message set (Kafka reads
//! in chunks of its I/O buffer).

use super::log::{segment_append, Log, MessageSet, Segment};
use super::paged::{Storage, StorageError};
use super::record::{
    build_batch, decode_batch, BatchSpec, ControlType, DecodedBatch, EndTxnMarker, NewRecord,
};
use super::txn_index::AbortedTxn;
use super::{index_file, log_file, time_index_file, txn_index_file};
use crate::collections::SortedMap;
use crate::config::Ratio;
use serde::{Deserialize, Serialize};

/// The cleaner's view of one log: how dirty it is and what it may clean.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cleanable {
    pub first_dirty_offset: i64,
    pub first_uncleanable_offset: i64,
    pub clean_bytes: u64,
    pub dirty_bytes: u64,
    /// dirty / (clean + dirty), in parts per million.
    pub dirty_ratio: Ratio,
    pub min_cleanable_dirty_ratio: Ratio,
    /// Worth cleaning now: dirty bytes exist and the ratio is reached.
    pub eligible: bool,
}

/// Why a record did not survive a cleaning pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RemovalReason {
    /// A later record has the same key.
    Superseded,
    /// A tombstone whose delete horizon has passed.
    TombstoneExpired,
    /// No key: a compacted log cannot keep it.
    NoKey,
    /// A record of an aborted transaction.
    AbortedTransaction,
    /// A transaction marker whose transaction has no records left, after its
    /// delete horizon.
    MarkerExpired,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemovedRecord {
    pub offset: i64,
    pub key: Option<String>,
    pub reason: RemovalReason,
}

/// One group of segments rewritten into one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CleanedGroup {
    pub source_base_offsets: Vec<i64>,
    pub new_base_offset: i64,
    pub bytes_before: u64,
    pub bytes_after: u64,
    pub records_before: u64,
    pub records_after: u64,
}

/// What a cleaning pass did, before and after.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CleanResult {
    pub cleanable: Cleanable,
    /// The offset map: each key of the dirty part and its latest offset.
    pub offset_map: Vec<(String, i64)>,
    pub groups: Vec<CleanedGroup>,
    pub removed: Vec<RemovedRecord>,
    /// Tombstones and transaction markers kept this pass, now carrying a
    /// delete horizon: (batch base offset, horizon).
    pub tombstones_marked: Vec<(i64, i64)>,
    /// The new checkpoint (first dirty offset for next time).
    pub end_offset: i64,
}

/// What the cleaner knows of transactions as it reads a log in offset order
/// (`CleanedTransactionMetadata`): which aborted transactions it has reached,
/// and which transactions have batches it has read.
#[derive(Default)]
struct CleanedTxns {
    /// Aborted transactions not reached yet, by first offset, last first.
    ahead: Vec<AbortedTxn>,
    /// Producers whose committed (or open) transaction has batches read.
    committed: crate::collections::SortedSet<i64>,
    /// Aborted transactions reached and not yet closed by their marker, by
    /// producer id, with whether a batch of theirs was read.
    aborted: SortedMap<i64, (AbortedTxn, bool)>,
    /// ABORT markers kept: the cleaned segment's `.txnindex`.
    index: Vec<AbortedTxn>,
}

impl CleanedTxns {
    fn add(&mut self, txns: Vec<AbortedTxn>) {
        self.ahead.extend(txns);
        self.ahead
            .sort_by_key(|t| std::cmp::Reverse(t.first_offset));
    }

    fn reach(&mut self, offset: i64) {
        while self.ahead.last().is_some_and(|t| t.first_offset <= offset) {
            let t = self.ahead.pop().expect("checked");
            self.aborted.entry(t.producer_id).or_insert((t, false));
        }
    }

    /// A data batch (`onBatchRead`): whether it belongs to an aborted
    /// transaction, and may go.
    fn on_batch(&mut self, b: &DecodedBatch) -> bool {
        self.reach(b.header.last_offset());
        if !b.header.is_transactional() {
            return false;
        }
        match self.aborted.get_mut(&b.header.producer_id) {
            Some((_, seen)) => {
                *seen = true;
                true
            }
            None => {
                self.committed.insert(b.header.producer_id);
                false
            }
        }
    }

    /// A control batch (`onControlBatchRead`): whether its marker may go
    /// (no batch of its transaction was read).
    fn on_control(&mut self, b: &DecodedBatch) -> bool {
        self.reach(b.header.last_offset());
        let pid = b.header.producer_id;
        let marker = b.records.first().map(EndTxnMarker::parse);
        match marker {
            None => true, // an empty control batch was cleaned already
            Some(Ok(m)) if m.control_type == ControlType::Abort => {
                match self.aborted.remove(&pid) {
                    Some((t, true)) => {
                        self.index.push(t);
                        false
                    }
                    _ => true,
                }
            }
            Some(Ok(_)) => !self.committed.remove(&pid),
            // Another control type is kept (`onControlBatchRead`, 3.9
            // `LogCleaner.scala` lines 1264-1291).
            Some(Err(_)) => false,
        }
    }
}

fn key_text(k: &Option<Vec<u8>>) -> Option<String> {
    k.as_ref().map(|k| String::from_utf8_lossy(k).into_owned())
}

/// `LogCleanerManager.cleanableOffsets` and `LogToClean.cleanableRatio`.
/// `high_watermark`: the partition's last stable offset (its high watermark
/// when no transaction is open), past which nothing is cleaned.
pub fn cleanable(log: &Log, high_watermark: i64, now_ms: i64) -> Cleanable {
    let first_dirty = if log.first_dirty_offset < log.log_start_offset
        || log.first_dirty_offset > log.log_end_offset
    {
        log.log_start_offset
    } else {
        log.first_dirty_offset
    };
    let mut uncleanable = high_watermark.min(log.active().base_offset);
    let lag = log.config.min_compaction_lag_ms as i64;
    if lag > 0 {
        for s in &log.segments[..log.segments.len() - 1] {
            if s.next_offset > first_dirty && s.largest_timestamp() > now_ms - lag {
                uncleanable = uncleanable.min(s.base_offset);
                break;
            }
        }
    }
    let uncleanable = uncleanable.max(first_dirty);
    let mut clean_bytes = 0;
    let mut dirty_bytes = 0;
    for s in &log.segments {
        if s.next_offset <= first_dirty {
            clean_bytes += s.size;
        } else if s.base_offset < uncleanable {
            dirty_bytes += s.size;
        }
    }
    let total = clean_bytes + dirty_bytes;
    let ratio = if total == 0 {
        0
    } else {
        (dirty_bytes as u128 * Ratio::ONE as u128 / total as u128) as u32
    };
    let min = log.config.min_cleanable_dirty_ratio;
    Cleanable {
        first_dirty_offset: first_dirty,
        first_uncleanable_offset: uncleanable,
        clean_bytes,
        dirty_bytes,
        dirty_ratio: Ratio(ratio),
        min_cleanable_dirty_ratio: min,
        eligible: dirty_bytes > 0 && ratio >= min.0,
    }
}

/// Runs one cleaning pass (`Cleaner.doClean`). Call only when
/// [`Cleanable::eligible`].
pub fn clean<S: Storage>(
    log: &mut Log,
    store: &mut S,
    plan: Cleanable,
    now_ms: i64,
) -> Result<CleanResult, StorageError> {
    // 1. The offset map over the dirty part.
    let mut map: SortedMap<Vec<u8>, i64> = SortedMap::new();
    let mut latest_offset = plan.first_dirty_offset - 1;
    let mut txns = CleanedTxns::default();
    txns.add(
        log.collect_aborted_transactions(
            store,
            plan.first_dirty_offset,
            plan.first_uncleanable_offset,
        )
        .unwrap_or_default(),
    );
    for s in &log.segments {
        if s.next_offset <= plan.first_dirty_offset
            || s.base_offset >= plan.first_uncleanable_offset
        {
            continue;
        }
        for b in read_segment(log, store, s)? {
            if b.header.last_offset() < plan.first_dirty_offset
                || b.header.base_offset >= plan.first_uncleanable_offset
            {
                continue;
            }
            // A marker's key is not a record key, and an aborted
            // transaction's records are not mapped (`buildOffsetMapForSegment`).
            let skip = if b.header.is_control() {
                txns.on_control(&b);
                true
            } else {
                txns.on_batch(&b)
            };
            let keyed = if skip { &[][..] } else { &b.records[..] };
            for r in keyed {
                let off = b.offset_of(r);
                if off >= plan.first_dirty_offset {
                    if let Some(k) = &r.key {
                        map.insert(k.clone(), off);
                    }
                }
            }
            latest_offset = latest_offset.max(b.header.last_offset());
        }
    }
    let end_offset = latest_offset + 1;

    // 2. Group the segments to rewrite (groupSegmentsBySize).
    let to_clean: Vec<usize> = (0..log.segments.len())
        .filter(|&i| log.segments[i].base_offset < end_offset && i + 1 < log.segments.len())
        .collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let max_size = log.config.segment_bytes;
    let max_index = log.config.segment_index_bytes;
    let mut i = 0;
    while i < to_clean.len() {
        let mut g = vec![to_clean[i]];
        let mut size = log.segments[to_clean[i]].size;
        let mut idx = log.segments[to_clean[i]].index_entries * 8;
        let mut tidx = log.segments[to_clean[i]].time_index_entries * 12;
        i += 1;
        while i < to_clean.len() {
            let s = &log.segments[to_clean[i]];
            let first = &log.segments[g[0]];
            let fits = size + s.size <= max_size
                && idx + s.index_entries * 8 <= max_index
                && tidx + s.time_index_entries * 12 <= max_index
                && (s.size == 0 || s.next_offset - 1 - first.base_offset <= i32::MAX as i64);
            if !fits {
                break;
            }
            size += s.size;
            idx += s.index_entries * 8;
            tidx += s.time_index_entries * 12;
            g.push(to_clean[i]);
            i += 1;
        }
        groups.push(g);
    }

    // 3. Rewrite each group into one segment.
    let mut removed = Vec::new();
    let mut marked = Vec::new();
    let mut results = Vec::new();
    let delete_retention = log.config.delete_retention_ms as i64;
    let interval = log.config.index_interval_bytes;
    let dir = log.dir.clone();
    let mut replacements: Vec<(Vec<usize>, Segment)> = Vec::new();
    // One reading of the transactions for the whole pass, group after group.
    let mut txns = CleanedTxns::default();
    for g in &groups {
        let first = log.segments[g[0]].clone();
        let tmp_dir = format!("{dir}.cleaning");
        let mut new_seg = Segment::new(first.base_offset, first.created_ms);
        for f in [
            log_file(&tmp_dir, first.base_offset),
            index_file(&tmp_dir, first.base_offset),
            time_index_file(&tmp_dir, first.base_offset),
        ] {
            if store.exists(&f) {
                store.delete(&f)?;
            }
            store.create(&f)?;
        }
        let mut records_before = 0;
        let mut records_after = 0;
        let bytes_before: u64 = g.iter().map(|&i| log.segments[i].size).sum();
        for &si in g {
            let src = log.segments[si].clone();
            // The aborted transactions over the whole source segment: the
            // cleaned `.txnindex` is rebuilt from them.
            txns.add(
                log.collect_aborted_transactions(store, src.base_offset, src.next_offset)
                    .unwrap_or_default(),
            );
            let mut chunk = Vec::new();
            let (mut chunk_last, mut chunk_max_ts, mut chunk_max_off) = (-1i64, -1i64, -1i64);
            for b in read_segment(log, store, &src)? {
                records_before += b.records.len() as u64;
                let horizon = b
                    .header
                    .has_delete_horizon()
                    .then_some(b.header.base_timestamp);
                let control = b.header.is_control();
                let may_go = if control {
                    txns.on_control(&b)
                } else {
                    txns.on_batch(&b)
                };
                // An aborted transaction's batch goes; a marker whose
                // transaction has no batch left goes after its horizon.
                let discard = may_go && (!control || horizon.is_some_and(|h| h <= now_ms));
                let mut kept = Vec::new();
                let mut changed = false;
                let mut has_tombstone = false;
                for r in &b.records {
                    let off = b.offset_of(r);
                    let keep = if discard {
                        removed.push(RemovedRecord {
                            offset: off,
                            key: if control { None } else { key_text(&r.key) },
                            reason: if control {
                                RemovalReason::MarkerExpired
                            } else {
                                RemovalReason::AbortedTransaction
                            },
                        });
                        false
                    } else if off > latest_offset || control {
                        true
                    } else if let Some(k) = &r.key {
                        let latest = off >= *map.get(k).unwrap_or(&i64::MIN);
                        let retain_delete = horizon.is_none_or(|h| now_ms < h);
                        if !latest {
                            removed.push(RemovedRecord {
                                offset: off,
                                key: key_text(&r.key),
                                reason: RemovalReason::Superseded,
                            });
                            false
                        } else if r.value.is_none() && !retain_delete {
                            removed.push(RemovedRecord {
                                offset: off,
                                key: key_text(&r.key),
                                reason: RemovalReason::TombstoneExpired,
                            });
                            false
                        } else {
                            true
                        }
                    } else {
                        removed.push(RemovedRecord {
                            offset: off,
                            key: None,
                            reason: RemovalReason::NoKey,
                        });
                        false
                    };
                    if keep {
                        has_tombstone |= r.value.is_none();
                        kept.push(NewRecord {
                            key: r.key.clone(),
                            value: r.value.clone(),
                            timestamp: b.timestamp_of(r),
                            headers: r.headers.clone(),
                            offset_delta: Some(r.offset_delta),
                        });
                    } else {
                        changed = true;
                    }
                }
                if kept.is_empty() {
                    continue;
                }
                records_after += kept.len() as u64;
                let needs_horizon = (has_tombstone || (control && may_go)) && horizon.is_none();
                let bytes = if !changed && !needs_horizon {
                    store.read(
                        &log_file(&dir, src.base_offset),
                        b.position,
                        b.header.size_in_bytes(),
                    )?
                } else {
                    let h = if needs_horizon {
                        let h = now_ms + delete_retention;
                        marked.push((b.header.base_offset, h));
                        Some(h)
                    } else {
                        horizon
                    };
                    build_batch(
                        &BatchSpec {
                            base_offset: b.header.base_offset,
                            partition_leader_epoch: b.header.partition_leader_epoch,
                            producer_id: b.header.producer_id,
                            producer_epoch: b.header.producer_epoch,
                            base_sequence: b.header.base_sequence,
                            log_append_time: b.header.is_log_append_time(),
                            delete_horizon_ms: h,
                            last_offset_delta: Some(b.header.last_offset_delta),
                            transactional: b.header.is_transactional(),
                            control: b.header.is_control(),
                        },
                        &kept,
                    )
                };
                let max_ts = kept.iter().map(|r| r.timestamp).max().unwrap_or(-1);
                if max_ts > chunk_max_ts {
                    chunk_max_ts = max_ts;
                    chunk_max_off = b.header.last_offset();
                }
                chunk_last = b.header.last_offset();
                chunk.extend_from_slice(&bytes);
            }
            if !chunk.is_empty() {
                segment_append(
                    store,
                    &tmp_dir,
                    &mut new_seg,
                    MessageSet {
                        bytes: &chunk,
                        largest_offset: chunk_last,
                        largest_timestamp: chunk_max_ts,
                        offset_of_max_timestamp: chunk_max_off,
                    },
                    interval,
                )?;
            }
        }
        // The cleaned segment's index: the ABORT markers it kept.
        let aborted = std::mem::take(&mut txns.index);
        let txn_file = txn_index_file(&tmp_dir, new_seg.base_offset);
        if store.exists(&txn_file) {
            store.delete(&txn_file)?;
        }
        if !aborted.is_empty() {
            store.create(&txn_file)?;
            for t in &aborted {
                store.append(&txn_file, &t.encode())?;
            }
            new_seg.txn_index_entries = aborted.len() as u64;
            new_seg.txn_last_offset = aborted.last().map(|t| t.last_offset);
        }
        let last_src = &log.segments[*g.last().expect("groups are not empty")];
        new_seg.next_offset = last_src.next_offset;
        new_seg.created_ms = last_src.created_ms;
        // The retired segment's final time-index entry, as on roll.
        if new_seg.max_timestamp_so_far >= 0 {
            let (ts, off) = (
                new_seg.max_timestamp_so_far,
                new_seg.offset_of_max_timestamp,
            );
            if ts > new_seg.last_time_entry.0 {
                store.append(
                    &time_index_file(&tmp_dir, new_seg.base_offset),
                    &super::index::encode_time_entry(ts, (off - new_seg.base_offset) as i32),
                )?;
                new_seg.time_index_entries += 1;
                new_seg.last_time_entry = (ts, off);
            }
        }
        results.push(CleanedGroup {
            source_base_offsets: g.iter().map(|&i| log.segments[i].base_offset).collect(),
            new_base_offset: new_seg.base_offset,
            bytes_before,
            bytes_after: new_seg.size,
            records_before,
            records_after,
        });
        replacements.push((g.clone(), new_seg));
    }

    // 4. Swap the cleaned segments in (Kafka: .cleaned → .swap → live).
    for (g, new_seg) in replacements.into_iter().rev() {
        for &i in g.iter().rev() {
            let base = log.segments[i].base_offset;
            for f in log.segment_files(store, base) {
                store.delete(&f)?;
            }
            log.segments.remove(i);
        }
        let tmp_dir = format!("{dir}.cleaning");
        let base = new_seg.base_offset;
        let mut moves = vec![
            (log_file(&tmp_dir, base), log_file(&dir, base)),
            (index_file(&tmp_dir, base), index_file(&dir, base)),
            (time_index_file(&tmp_dir, base), time_index_file(&dir, base)),
        ];
        if new_seg.txn_index_entries > 0 {
            moves.push((txn_index_file(&tmp_dir, base), txn_index_file(&dir, base)));
        }
        for (from, to) in moves {
            store.rename(&from, &to)?;
        }
        log.segments.insert(g[0], new_seg);
    }
    log.first_dirty_offset = end_offset;
    let mut offset_map: Vec<(String, i64)> = map
        .into_iter()
        .map(|(k, o)| (String::from_utf8_lossy(&k).into_owned(), o))
        .collect();
    offset_map.sort_by_key(|(_, o)| *o);
    Ok(CleanResult {
        cleanable: plan,
        offset_map,
        groups: results,
        removed,
        tombstones_marked: marked,
        end_offset,
    })
}

fn read_segment<S: Storage>(
    log: &Log,
    store: &S,
    s: &Segment,
) -> Result<Vec<super::record::DecodedBatch>, StorageError> {
    let bytes = store.read_all(&log_file(&log.dir, s.base_offset))?;
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos < bytes.len() {
        match decode_batch(&bytes[pos..], pos as u64) {
            Ok(b) => {
                pos += b.header.size_in_bytes() as usize;
                out.push(b);
            }
            Err(_) => break,
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{CleanupPolicy, LogConfig};
    use crate::ids::TopicPartition;
    use crate::storage::paged::MemStorage;
    use std::sync::Arc;

    fn compacted_log(s: &mut MemStorage, segment_bytes: u64) -> Log {
        let cfg = LogConfig {
            cleanup_policy: CleanupPolicy::COMPACT,
            segment_bytes,
            delete_retention_ms: 1000,
            ..LogConfig::default()
        };
        Log::create(s, TopicPartition::new("users", 0), Arc::new(cfg), 0).unwrap()
    }

    fn put(log: &mut Log, s: &mut MemStorage, key: &str, value: Option<&str>, ts: i64) {
        let b = build_batch(
            &BatchSpec::default(),
            &[NewRecord::new(
                Some(key.as_bytes()),
                value.map(str::as_bytes),
                ts,
            )],
        );
        let p = log.prepare_leader_append(b, 0, ts).unwrap();
        log.roll_and_append(s, &p, ts).unwrap();
    }

    fn live(log: &Log, s: &MemStorage) -> Vec<(i64, String, Option<String>)> {
        log.decode_all(s)
            .unwrap()
            .iter()
            .flat_map(|b| {
                b.records
                    .iter()
                    .map(|r| {
                        (
                            b.offset_of(r),
                            String::from_utf8_lossy(r.key.as_deref().unwrap()).into_owned(),
                            r.value
                                .as_ref()
                                .map(|v| String::from_utf8_lossy(v).into_owned()),
                        )
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    #[test]
    fn keeps_the_latest_value_per_key_with_gaps_in_offsets() {
        let mut s = MemStorage::default();
        let mut log = compacted_log(&mut s, 250);
        for (i, (k, v)) in [
            ("a", "1"),
            ("b", "1"),
            ("a", "2"),
            ("c", "1"),
            ("b", "2"),
            ("a", "3"),
            ("d", "1"),
        ]
        .into_iter()
        .enumerate()
        {
            put(&mut log, &mut s, k, Some(v), i as i64);
        }
        assert!(log.segments.len() >= 3);
        let c = cleanable(&log, log.log_end_offset, 10);
        assert!(c.eligible, "{c:?}");
        assert_eq!(c.first_uncleanable_offset, log.active().base_offset);
        let before_active: Vec<_> = live(&log, &s)
            .into_iter()
            .filter(|r| r.0 >= c.first_uncleanable_offset)
            .collect();
        let r = clean(&mut log, &mut s, c, 10).unwrap();
        let after = live(&log, &s);
        // Everything before the active segment keeps only the latest per key
        // (among cleaned records); the active segment is untouched.
        for rec in &before_active {
            assert!(after.contains(rec));
        }
        let offsets: Vec<i64> = after.iter().map(|r| r.0).collect();
        assert!(offsets.windows(2).all(|w| w[0] < w[1]));
        assert!(r
            .removed
            .iter()
            .all(|x| x.reason == RemovalReason::Superseded));
        assert!(!r.removed.is_empty());
        // A read of a removed offset gets the next surviving one.
        let gone = r.removed[0].offset;
        let d = log
            .read(&s, gone, 1 << 20, log.log_end_offset, true)
            .unwrap();
        assert!(d.batches[0].last_offset >= gone);
        assert!(log.decode_all(&s).unwrap().iter().all(|b| b.crc_valid()));
        assert_eq!(
            log.lookup_offset(&s, gone).result.map(|x| x.0 > gone),
            Some(true)
        );
    }

    #[test]
    fn tombstones_are_marked_then_removed_after_delete_retention() {
        let mut s = MemStorage::default();
        let mut log = compacted_log(&mut s, 120);
        put(&mut log, &mut s, "a", Some("1"), 0);
        put(&mut log, &mut s, "a", None, 1);
        put(&mut log, &mut s, "b", Some("1"), 2);
        put(&mut log, &mut s, "c", Some("1"), 3);
        let c = cleanable(&log, log.log_end_offset, 100);
        let r = clean(&mut log, &mut s, c, 100).unwrap();
        assert_eq!(r.tombstones_marked.len(), 1);
        assert_eq!(r.tombstones_marked[0].1, 1100);
        assert!(live(&log, &s).iter().any(|x| x.1 == "a" && x.2.is_none()));
        // More writes make the log dirty again; after the horizon the tombstone goes.
        put(&mut log, &mut s, "d", Some("1"), 4);
        put(&mut log, &mut s, "e", Some("1"), 5);
        put(&mut log, &mut s, "f", Some("1"), 6);
        let c = cleanable(&log, log.log_end_offset, 2000);
        let r = clean(&mut log, &mut s, c, 2000).unwrap();
        assert!(r
            .removed
            .iter()
            .any(|x| x.reason == RemovalReason::TombstoneExpired));
        assert!(!live(&log, &s).iter().any(|x| x.1 == "a"));
    }

    /// A one-record transactional batch of producer `pid`.
    fn put_txn(log: &mut Log, s: &mut MemStorage, pid: i64, key: &str, ts: i64) -> i64 {
        let spec = BatchSpec {
            producer_id: pid,
            producer_epoch: 0,
            base_sequence: 0,
            transactional: true,
            ..BatchSpec::default()
        };
        let b = build_batch(
            &spec,
            &[NewRecord::new(Some(key.as_bytes()), Some(b"v"), ts)],
        );
        let p = log.prepare_leader_append(b, 0, ts).unwrap();
        log.roll_and_append(s, &p, ts).unwrap();
        log.log_end_offset - 1
    }

    /// Producer `pid`'s marker; an ABORT is indexed as the leader indexes it.
    fn put_marker(
        log: &mut Log,
        s: &mut MemStorage,
        pid: i64,
        first: i64,
        t: ControlType,
        ts: i64,
    ) {
        let m = EndTxnMarker {
            control_type: t,
            coordinator_epoch: 0,
        };
        let b = super::super::record::build_end_txn_marker(0, ts, 0, pid, 0, m);
        let p = log.prepare_leader_append(b, 0, ts).unwrap();
        log.roll_and_append(s, &p, ts).unwrap();
        let at = log.log_end_offset - 1;
        if t == ControlType::Abort {
            let txn = AbortedTxn {
                producer_id: pid,
                first_offset: first,
                last_offset: at,
                last_stable_offset: first,
            };
            log.append_aborted_txn(s, txn).unwrap();
        }
    }

    /// Control batches left in the log: (offset, COMMIT or ABORT, delete horizon).
    fn markers(log: &Log, s: &MemStorage) -> Vec<(i64, ControlType, Option<i64>)> {
        log.decode_all(s)
            .unwrap()
            .iter()
            .filter(|b| b.header.is_control())
            .map(|b| {
                let m = crate::storage::record::marker_of(b).unwrap().unwrap();
                let h = b
                    .header
                    .has_delete_horizon()
                    .then_some(b.header.base_timestamp);
                (b.header.base_offset, m.control_type, h)
            })
            .collect()
    }

    /// Kafka's `CleanedTransactionMetadata`: an aborted transaction's records
    /// go at the first pass, which keeps its marker and indexes it in the
    /// cleaned segment; the next pass finds no records of it, stamps the
    /// marker with a delete horizon and drops it from `.txnindex`; a pass
    /// after the horizon removes the marker. A COMMIT marker stays while its
    /// transaction has a record, then goes the same way.
    #[test]
    fn aborted_records_go_and_markers_follow_their_transactions() {
        let mut s = MemStorage::default();
        let mut log = compacted_log(&mut s, 120);
        put_txn(&mut log, &mut s, 7, "a", 0); // 0: aborted
        put_txn(&mut log, &mut s, 7, "b", 1); // 1: aborted
        put_marker(&mut log, &mut s, 7, 0, ControlType::Abort, 2); // 2
        put_txn(&mut log, &mut s, 8, "c", 3); // 3: committed
        put_marker(&mut log, &mut s, 8, 3, ControlType::Commit, 4); // 4
        let mut next_ts = 5;
        let mut pass = |log: &mut Log, s: &mut MemStorage, now: i64| {
            // Fresh writes (new keys) until the log is dirty enough to clean.
            for _ in 0..50 {
                put(log, s, &format!("k{next_ts}"), Some("1"), next_ts);
                next_ts += 1;
                let c = cleanable(log, log.log_end_offset, now);
                if c.eligible {
                    return clean(log, s, c, now).unwrap();
                }
            }
            panic!("the log never became dirty enough")
        };
        let r = pass(&mut log, &mut s, 100);
        let gone: Vec<(i64, RemovalReason)> =
            r.removed.iter().map(|x| (x.offset, x.reason)).collect();
        assert_eq!(
            gone,
            vec![
                (0, RemovalReason::AbortedTransaction),
                (1, RemovalReason::AbortedTransaction)
            ]
        );
        assert_eq!(
            markers(&log, &s),
            vec![
                (2, ControlType::Abort, None),
                (4, ControlType::Commit, None)
            ]
        );
        let index = log
            .collect_aborted_transactions(&s, 0, log.log_end_offset)
            .unwrap();
        assert_eq!(
            index.len(),
            1,
            "the kept ABORT marker is indexed: {index:?}"
        );
        assert_eq!((index[0].first_offset, index[0].last_offset), (0, 2));
        assert!(
            live(&log, &s).iter().any(|x| x.0 == 3),
            "the committed record stays"
        );

        // Second pass: no record of producer 7 is left.
        let r = pass(&mut log, &mut s, 200);
        assert!(r.removed.is_empty(), "{:?}", r.removed);
        assert_eq!(
            markers(&log, &s),
            vec![
                (2, ControlType::Abort, Some(1200)),
                (4, ControlType::Commit, None)
            ]
        );
        assert!(r.tombstones_marked.contains(&(2, 1200)));
        assert!(log
            .collect_aborted_transactions(&s, 0, log.log_end_offset)
            .unwrap()
            .is_empty());

        // Producer 8's record is superseded; after the ABORT marker's horizon
        // it goes, and the COMMIT marker gets its own horizon.
        put(&mut log, &mut s, "c", Some("2"), 50);
        let r = pass(&mut log, &mut s, 2000);
        let gone: Vec<(i64, RemovalReason)> =
            r.removed.iter().map(|x| (x.offset, x.reason)).collect();
        assert!(
            gone.contains(&(2, RemovalReason::MarkerExpired)),
            "{gone:?}"
        );
        assert!(gone.contains(&(3, RemovalReason::Superseded)), "{gone:?}");
        // The COMMIT marker was read before its record went in this pass: it
        // still counts as having a batch.
        let r = pass(&mut log, &mut s, 2100);
        assert!(r.removed.is_empty(), "{:?}", r.removed);
        assert_eq!(
            markers(&log, &s),
            vec![(4, ControlType::Commit, Some(3100))]
        );
        let r = pass(&mut log, &mut s, 4000);
        let gone: Vec<(i64, RemovalReason)> =
            r.removed.iter().map(|x| (x.offset, x.reason)).collect();
        assert_eq!(gone, vec![(4, RemovalReason::MarkerExpired)]);
        assert!(markers(&log, &s).is_empty());
        assert!(log.decode_all(&s).unwrap().iter().all(|b| b.crc_valid()));
    }

    #[test]
    fn a_clean_log_is_not_eligible() {
        let mut s = MemStorage::default();
        let mut log = compacted_log(&mut s, 1 << 20);
        put(&mut log, &mut s, "a", Some("1"), 0);
        // Only the active segment: nothing cleanable.
        let c = cleanable(&log, 1, 0);
        assert!(!c.eligible);
        assert_eq!(c.dirty_bytes, 0);
    }
}
