//! The broker's memory of idempotent producers (P6): `ProducerStateManager`.
//!
//! For each producer id the leader keeps the metadata of its last five batches
//! (first and last sequence, their offsets) and the producer epoch. A batch
//! whose sequences match one of them is a *duplicate* (a retry of something
//! already written): it is acknowledged with the original offsets and not
//! appended again. A batch whose first sequence is not the last one + 1 is
//! *out of order* (`OUT_OF_ORDER_SEQUENCE_NUMBER`), and so is a new (higher)
//! epoch whose first sequence is not 0. A lower epoch is fenced
//! (`INVALID_PRODUCER_EPOCH`). Follows `ProducerAppendInfo.checkProducerEpoch`
//! and `checkSequence` of Kafka 3.9 (`storage/.../ProducerAppendInfo.java`).
//!
//! **Transactions (KIP-98).** A producer's first transactional batch opens a
//! transaction at its offset (`currentTxnFirstOffset`, `ongoingTxns`); its
//! COMMIT or ABORT marker closes it. The partition's *first unstable offset*
//! is the first offset of a transaction still open, or of one whose marker
//! is not yet below the high watermark (`unreplicatedTxns`,
//! `firstUnstableOffset`); the last stable offset is that, capped by the high
//! watermark (`UnifiedLog.lastStableOffset`). An aborted transaction is
//! written to the marker's segment's `.txnindex` with the LSO of that moment
//! (`lastStableOffset(completedTxn)`, `LogSegment.updateTxnIndex`). A
//! non-transactional batch in an open transaction is `INVALID_TXN_STATE`; a
//! marker from an older coordinator epoch is `TRANSACTION_COORDINATOR_FENCED`
//! (`appendDataBatch`, `checkCoordinatorEpoch`). Follows Kafka 3.9
//! `ProducerStateManager.java` lines 270–310 and 550–585 and
//! `ProducerAppendInfo.java` `append`/`appendEndTxnMarker`.

use crate::collections::SortedMap;
use crate::msg::ErrorCode;
use crate::storage::log::{BatchInfo, Log};
use crate::storage::paged::Storage;
use crate::storage::record;
use crate::storage::txn_index::AbortedTxn;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Kafka keeps this many batches per producer (`ProducerStateEntry.NUM_BATCHES_TO_RETAIN`).
pub const NUM_BATCHES_TO_RETAIN: usize = 5;

/// One batch a producer wrote (`BatchMetadata`): its sequence numbers and
/// offsets, kept to recognise a retry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchMetadata {
    /// The first record's sequence number.
    pub first_seq: i32,
    /// The last record's sequence number.
    pub last_seq: i32,
    /// The first record's offset.
    pub first_offset: i64,
    /// The last record's offset.
    pub last_offset: i64,
}

/// What a partition's leader knows of one producer id (`ProducerStateEntry`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProducerEntry {
    /// The producer epoch.
    pub epoch: i16,
    /// Its last batches, at most [`NUM_BATCHES_TO_RETAIN`], oldest first.
    pub batches: VecDeque<BatchMetadata>,
    /// The epoch of the transaction coordinator that wrote its last marker
    /// (-1: none yet).
    #[serde(default = "no_epoch", skip_serializing_if = "is_no_epoch")]
    pub coordinator_epoch: i32,
    /// The first offset of its open transaction here, if one is open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_txn_first_offset: Option<i64>,
}

fn no_epoch() -> i32 {
    -1
}

fn is_no_epoch(e: &i32) -> bool {
    *e == -1
}

impl ProducerEntry {
    fn new(epoch: i16) -> ProducerEntry {
        ProducerEntry {
            epoch,
            batches: VecDeque::new(),
            coordinator_epoch: -1,
            current_txn_first_offset: None,
        }
    }

    /// `maybeUpdateProducerEpoch`: a new epoch forgets the old batches.
    fn set_epoch(&mut self, epoch: i16) {
        if self.epoch != epoch {
            self.epoch = epoch;
            self.batches.clear();
        }
    }
}

/// A transaction whose marker was just appended (`CompletedTxn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletedTxn {
    /// The transactional producer.
    pub producer_id: i64,
    /// Its first record in this partition.
    pub first_offset: i64,
    /// The marker's offset.
    pub last_offset: i64,
    /// ABORT (else COMMIT).
    pub aborted: bool,
}

impl ProducerEntry {
    /// The batch already written that `h` retries (same first and last
    /// sequence, `ProducerStateEntry.findDuplicateBatch`), if any; the
    /// caller checks the epoch.
    fn duplicate_of(&self, h: &record::BatchHeader) -> Option<&BatchMetadata> {
        self.batches
            .iter()
            .find(|b| b.first_seq == h.base_sequence && b.last_seq == h.last_sequence())
    }

    /// The last sequence number written (-1: none yet).
    pub fn last_seq(&self) -> i32 {
        self.batches.back().map(|b| b.last_seq).unwrap_or(-1)
    }
}

/// A partition's producer state (`ProducerStateManager`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProducerStates {
    /// Each producer id's entry.
    pub producers: SortedMap<i64, ProducerEntry>,
    /// Open transactions: first offset → producer id (`ongoingTxns`).
    #[serde(default, skip_serializing_if = "SortedMap::is_empty")]
    pub ongoing: SortedMap<i64, i64>,
    /// Decided transactions whose marker is not yet below the high
    /// watermark: first offset → (producer id, marker offset)
    /// (`unreplicatedTxns`).
    #[serde(default, skip_serializing_if = "SortedMap::is_empty")]
    pub unreplicated: SortedMap<i64, (i64, i64)>,
    /// KIP-890 part 1: producers whose first transactional batch here is
    /// being verified with the transaction coordinator
    /// (`verificationStates`). In memory only, as in Kafka: not in
    /// snapshots, gone when the broker stops.
    #[serde(skip)]
    pub verifying: SortedMap<i64, VerificationEntry>,
}

/// A verification in progress (`VerificationStateEntry`, Kafka 3.9
/// `storage/.../VerificationStateEntry.java`): the guard the append must
/// present, and the lowest sequence and latest epoch seen while verifying.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerificationEntry {
    /// The guard (`VerificationGuard`): unique per entry, never 0 (0 is
    /// Kafka's `SENTINEL`, "no verification").
    pub guard: u64,
    /// The lowest first sequence of the batches waiting for it.
    pub lowest_sequence: i32,
    /// Their producer epoch.
    pub epoch: i16,
    /// When it was created, in simulated ms.
    pub created_ms: u64,
}

fn in_sequence(last_seq: i32, next_seq: i32) -> bool {
    next_seq == last_seq.wrapping_add(1) || (next_seq == 0 && last_seq == i32::MAX)
}

impl ProducerStates {
    /// Whether `producer_id` has a transaction open on this partition
    /// (`UnifiedLog.hasOngoingTransaction`).
    pub fn has_ongoing_txn(&self, producer_id: i64) -> bool {
        self.producers
            .get(&producer_id)
            .is_some_and(|e| e.current_txn_first_offset.is_some())
    }

    /// `UnifiedLog.maybeStartTransactionVerification`: `None` (Kafka's
    /// `SENTINEL`) when the producer already has a transaction open here, so
    /// nothing needs verifying; else the guard of its verification entry,
    /// made now with a fresh guard from `next_guard` unless one exists
    /// (`maybeCreateVerificationStateEntry`, then
    /// `maybeUpdateLowestSequenceAndEpoch`).
    pub fn maybe_start_verification(
        &mut self,
        producer_id: i64,
        sequence: i32,
        epoch: i16,
        now_ms: u64,
        next_guard: &mut u64,
    ) -> Option<u64> {
        if self.has_ongoing_txn(producer_id) {
            return None;
        }
        let e = self.verifying.entry(producer_id).or_insert_with(|| {
            *next_guard += 1;
            VerificationEntry {
                guard: *next_guard,
                lowest_sequence: sequence,
                epoch,
                created_ms: now_ms,
            }
        });
        if epoch == e.epoch && sequence < e.lowest_sequence {
            e.lowest_sequence = sequence;
        }
        if epoch > e.epoch {
            e.epoch = epoch;
            e.lowest_sequence = sequence;
        }
        Some(e.guard)
    }

    /// Checks an incoming batch set from a client. `Ok(Some((first, last)))` =
    /// a duplicate already written at those offsets; `Err` = refused.
    pub fn check(&self, bytes: &[u8]) -> Result<Option<(i64, i64)>, (ErrorCode, String)> {
        self.check_verified(bytes, None)
    }

    /// [`check`](Self::check) with KIP-890 part 1's rule when `verification`
    /// is `Some(guard)` (`transaction.partition.verification.enable`; the
    /// guard the produce holds, 0 for none): a transactional batch of a
    /// producer with no transaction open here must present its verification
    /// entry's guard, or it is `INVALID_TXN_STATE` ("Record was not part of
    /// an ongoing transaction", `UnifiedLog.analyzeAndValidateProducerState`,
    /// after the duplicate check); and while a verification entry exists, a
    /// batch may not start above its lowest sequence
    /// (`ProducerAppendInfo.checkSequence`).
    pub fn check_verified(
        &self,
        bytes: &[u8],
        verification: Option<u64>,
    ) -> Result<Option<(i64, i64)>, (ErrorCode, String)> {
        let Ok(batches) = record::split_batches(bytes) else {
            return Ok(None);
        };
        for (pos, h) in batches {
            if h.is_control() && h.has_producer_id() {
                self.check_marker(&bytes[pos..], &h)?;
                continue;
            }
            if let (Some(guard), true) = (verification, h.is_transactional()) {
                if h.has_producer_id() && !self.has_ongoing_txn(h.producer_id) {
                    let duplicate = self
                        .producers
                        .get(&h.producer_id)
                        .filter(|e| e.epoch == h.producer_epoch)
                        .and_then(|e| e.duplicate_of(&h))
                        .is_some();
                    let entry = self.verifying.get(&h.producer_id);
                    if !duplicate && (guard == 0 || entry.map(|v| v.guard) != Some(guard)) {
                        return Err((
                            ErrorCode::InvalidTxnState,
                            "Record was not part of an ongoing transaction".into(),
                        ));
                    }
                    if let Some(v) =
                        entry.filter(|v| !duplicate && h.base_sequence > v.lowest_sequence)
                    {
                        return Err((
                            ErrorCode::OutOfOrderSequenceNumber,
                            format!(
                                "Out of order sequence number for producer {}: {} (incoming seq. number), {} (earliest seen sequence)",
                                h.producer_id, h.base_sequence, v.lowest_sequence
                            ),
                        ));
                    }
                }
            }
            if !h.has_producer_id() || h.base_sequence < 0 {
                continue;
            }
            let Some(e) = self.producers.get(&h.producer_id) else {
                continue; // a new producer (or one whose state expired): accepted
            };
            if e.current_txn_first_offset.is_some() && !h.is_transactional() {
                return Err((
                    ErrorCode::InvalidTxnState,
                    format!(
                        "expected a transactional write from producer {}: its transaction is open",
                        h.producer_id
                    ),
                ));
            }
            if h.producer_epoch < e.epoch {
                return Err((
                    ErrorCode::InvalidProducerEpoch,
                    format!(
                        "producer epoch {} is older than the current {}",
                        h.producer_epoch, e.epoch
                    ),
                ));
            }
            if h.producer_epoch > e.epoch {
                // A new epoch starts its sequences again at 0
                // (`ProducerAppendInfo.checkSequence`, Kafka 3.9).
                if h.base_sequence != 0 {
                    return Err((
                        ErrorCode::OutOfOrderSequenceNumber,
                        format!(
                            "producer {} began its new epoch {} at sequence {}, not 0 (current epoch {})",
                            h.producer_id, h.producer_epoch, h.base_sequence, e.epoch
                        ),
                    ));
                }
                continue;
            }
            if let Some(dup) = e.duplicate_of(&h) {
                return Ok(Some((dup.first_offset, dup.last_offset)));
            }
            if !in_sequence(e.last_seq(), h.base_sequence) {
                return Err((
                    ErrorCode::OutOfOrderSequenceNumber,
                    format!(
                        "producer {} sent sequence {} but the next expected is {}",
                        h.producer_id,
                        h.base_sequence,
                        e.last_seq().wrapping_add(1)
                    ),
                ));
            }
        }
        Ok(None)
    }

    /// A marker batch from the coordinator (`appendEndTxnMarker`): the
    /// producer epoch must not be older, nor the coordinator epoch.
    fn check_marker(
        &self,
        bytes: &[u8],
        h: &record::BatchHeader,
    ) -> Result<(), (ErrorCode, String)> {
        let Some(e) = self.producers.get(&h.producer_id) else {
            return Ok(());
        };
        if h.producer_epoch < e.epoch {
            return Err((
                ErrorCode::InvalidProducerEpoch,
                format!(
                    "marker for producer {} has epoch {}, older than the current {}",
                    h.producer_id, h.producer_epoch, e.epoch
                ),
            ));
        }
        let marker = record::decode_batch(bytes, 0)
            .ok()
            .and_then(|b| record::marker_of(&b).ok().flatten());
        if let Some(m) = marker {
            if m.coordinator_epoch < e.coordinator_epoch {
                return Err((
                    ErrorCode::TransactionCoordinatorFenced,
                    format!(
                        "marker for producer {} from coordinator epoch {} (zombie), current {}",
                        h.producer_id, m.coordinator_epoch, e.coordinator_epoch
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Remembers an appended batch (leader and followers alike). Returns the
    /// transaction a marker completed, if it wrote data here.
    pub fn record(&mut self, b: &BatchInfo) -> Option<CompletedTxn> {
        if b.producer_id < 0 {
            return None;
        }
        if b.transactional || b.marker.is_some() {
            // Any transactional append, data or marker, from any origin ends
            // a verification (`UnifiedLog.updateProducers`,
            // `clearVerificationStateEntry`): a later batch needs a new one.
            self.verifying.remove(&b.producer_id);
        }
        if let Some(m) = b.marker {
            let e = self
                .producers
                .entry(b.producer_id)
                .or_insert_with(|| ProducerEntry::new(b.producer_epoch));
            let completed = e.current_txn_first_offset.map(|first| CompletedTxn {
                producer_id: b.producer_id,
                first_offset: first,
                last_offset: b.base_offset,
                aborted: m.control_type == record::ControlType::Abort,
            });
            e.set_epoch(b.producer_epoch);
            e.coordinator_epoch = m.coordinator_epoch;
            e.current_txn_first_offset = None;
            return completed;
        }
        if b.base_sequence < 0 {
            return None;
        }
        let e = self
            .producers
            .entry(b.producer_id)
            .or_insert_with(|| ProducerEntry::new(b.producer_epoch));
        if b.producer_epoch > e.epoch {
            e.set_epoch(b.producer_epoch);
        }
        if b.transactional && e.current_txn_first_offset.is_none() {
            e.current_txn_first_offset = Some(b.base_offset);
            self.ongoing.insert(b.base_offset, b.producer_id);
        }
        let last_seq = {
            let s = b.base_sequence as i64 + (b.last_offset - b.base_offset);
            if s > i32::MAX as i64 {
                (s - i32::MAX as i64 - 1) as i32
            } else {
                s as i32
            }
        };
        e.batches.push_back(BatchMetadata {
            first_seq: b.base_sequence,
            last_seq,
            first_offset: b.base_offset,
            last_offset: b.last_offset,
        });
        while e.batches.len() > NUM_BATCHES_TO_RETAIN {
            e.batches.pop_front();
        }
        None
    }

    /// `lastStableOffset(completedTxn)`: the first offset of another
    /// producer's open transaction, else just past the marker.
    pub fn last_stable_offset_after(&self, c: &CompletedTxn) -> i64 {
        self.ongoing
            .iter()
            .find(|(_, pid)| **pid != c.producer_id)
            .map(|(first, _)| *first)
            .unwrap_or(c.last_offset + 1)
    }

    /// `completeTxn`: the transaction is decided, but stays unstable until
    /// its marker is below the high watermark.
    pub fn complete_txn(&mut self, c: &CompletedTxn) {
        self.ongoing.remove(&c.first_offset);
        self.unreplicated
            .insert(c.first_offset, (c.producer_id, c.last_offset));
    }

    /// `onHighWatermarkUpdated`: decided transactions whose marker is now
    /// below the high watermark no longer hold the LSO back.
    pub fn on_high_watermark_updated(&mut self, high_watermark: i64) {
        self.unreplicated
            .retain(|_, (_, last)| *last >= high_watermark);
    }

    /// `firstUnstableOffset`: the earliest open or unreplicated transaction.
    pub fn first_unstable_offset(&self) -> Option<i64> {
        let a = self.ongoing.keys().next().copied();
        let b = self.unreplicated.keys().next().copied();
        match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// `UnifiedLog.lastStableOffset`: the first unstable offset (never below
    /// the log start offset) if it is below the high watermark, else the
    /// high watermark.
    pub fn last_stable_offset(&self, high_watermark: i64, log_start_offset: i64) -> i64 {
        match self.first_unstable_offset() {
            Some(f) if f.max(log_start_offset) < high_watermark => f.max(log_start_offset),
            _ => high_watermark,
        }
    }

    /// The `.txnindex` entry of an aborted transaction just completed, with
    /// the last stable offset after it (`LogSegment.updateTxnIndex`).
    pub fn aborted_txn_entry(&self, c: &CompletedTxn) -> AbortedTxn {
        AbortedTxn {
            producer_id: c.producer_id,
            first_offset: c.first_offset,
            last_offset: c.last_offset,
            last_stable_offset: self.last_stable_offset_after(c),
        }
    }

    /// Takes appended batches into account and writes each aborted
    /// transaction they complete to the log's `.txnindex`, as
    /// `UnifiedLog.append` does after `LocalLog.append`.
    pub fn apply_appended<S: Storage>(
        &mut self,
        log: &mut Log,
        store: &mut S,
        batches: &[BatchInfo],
    ) -> Result<Vec<CompletedTxn>, String> {
        let mut done = Vec::new();
        for b in batches {
            if let Some(c) = self.record(b) {
                if c.aborted {
                    log.append_aborted_txn(store, self.aborted_txn_entry(&c))?;
                }
                self.complete_txn(&c);
                done.push(c);
            }
        }
        Ok(done)
    }

    /// Forgets batches at or above `log_end_offset` (after a truncation). A
    /// transaction whose marker was cut off is open again; one whose first
    /// record was cut off is gone (Kafka reloads the state from the log).
    pub fn truncate(&mut self, log_end_offset: i64) {
        for e in self.producers.values_mut() {
            e.batches.retain(|b| b.last_offset < log_end_offset);
            if e.current_txn_first_offset
                .is_some_and(|f| f >= log_end_offset)
            {
                e.current_txn_first_offset = None;
            }
        }
        self.ongoing.retain(|first, _| *first < log_end_offset);
        let reopened: Vec<(i64, i64)> = self
            .unreplicated
            .iter()
            .filter(|(first, (_, last))| **first < log_end_offset && *last >= log_end_offset)
            .map(|(first, (pid, _))| (*first, *pid))
            .collect();
        self.unreplicated
            .retain(|_, (_, last)| *last < log_end_offset);
        for (first, pid) in reopened {
            self.ongoing.insert(first, pid);
            if let Some(e) = self.producers.get_mut(&pid) {
                e.current_txn_first_offset = Some(first);
            }
        }
        self.producers.retain(|_, e| {
            !e.batches.is_empty()
                || e.current_txn_first_offset.is_some()
                || e.coordinator_epoch >= 0
        });
    }
}

/// Whether any record in these batches has no key (refused by compacted topics).
pub fn has_record_without_key(bytes: &[u8]) -> bool {
    let mut pos = 0;
    while pos < bytes.len() {
        match record::decode_batch(&bytes[pos..], pos as u64) {
            Ok(b) => {
                if b.records.iter().any(|r| r.key.is_none()) {
                    return true;
                }
                pos += b.header.size_in_bytes() as usize;
            }
            Err(_) => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::record::{build_batch, BatchSpec, NewRecord};

    fn batch(pid: i64, epoch: i16, seq: i32, n: usize) -> Vec<u8> {
        batch_of(pid, epoch, seq, n, false)
    }

    fn batch_of(pid: i64, epoch: i16, seq: i32, n: usize, transactional: bool) -> Vec<u8> {
        let recs: Vec<NewRecord> = (0..n)
            .map(|_| NewRecord::new(Some(b"k"), Some(b"v"), 0))
            .collect();
        build_batch(
            &BatchSpec {
                producer_id: pid,
                producer_epoch: epoch,
                base_sequence: seq,
                transactional,
                ..BatchSpec::default()
            },
            &recs,
        )
    }

    fn info(pid: i64, seq: i32, base: i64, n: i64) -> BatchInfo {
        BatchInfo {
            base_offset: base,
            last_offset: base + n - 1,
            records: n as i32,
            size: 0,
            max_timestamp: 0,
            partition_leader_epoch: 0,
            producer_id: pid,
            producer_epoch: 0,
            base_sequence: seq,
            transactional: false,
            marker: None,
        }
    }

    fn tx(pid: i64, epoch: i16, seq: i32, n: usize) -> Vec<u8> {
        batch_of(pid, epoch, seq, n, true)
    }

    /// KIP-890 part 1 on the append (`UnifiedLog`
    /// `analyzeAndValidateProducerState`, `batchMissingRequiredVerification`;
    /// `ProducerStateManager.maybeCreateVerificationStateEntry`;
    /// `ProducerAppendInfo.checkSequence`, Kafka 3.9).
    #[test]
    fn a_transactional_batch_needs_its_verification_guard() {
        let mut s = ProducerStates::default();
        let not_part = Err((
            ErrorCode::InvalidTxnState,
            "Record was not part of an ongoing transaction".to_string(),
        ));
        // No verification: refused, with or without a stale guard.
        assert_eq!(s.check_verified(&tx(7, 0, 0, 1), Some(0)), not_part);
        assert_eq!(s.check_verified(&tx(7, 0, 0, 1), Some(41)), not_part);
        // The setting off: nothing checked.
        assert_eq!(s.check_verified(&tx(7, 0, 0, 1), None), Ok(None));
        // Non-transactional batches are never checked.
        assert_eq!(s.check_verified(&batch(8, 0, 0, 1), Some(0)), Ok(None));
        let mut next = 0;
        let g = s.maybe_start_verification(7, 3, 0, 100, &mut next).unwrap();
        assert_eq!((g, next), (1, 1), "a fresh guard, never the SENTINEL 0");
        assert_eq!(
            s.maybe_start_verification(7, 1, 0, 200, &mut next),
            Some(g),
            "the same entry: the same guard"
        );
        assert_eq!(
            s.verifying[&7].lowest_sequence, 1,
            "the lowest sequence seen"
        );
        assert_eq!(s.check_verified(&tx(7, 0, 1, 1), Some(g + 1)), not_part);
        assert_eq!(
            s.check_verified(&tx(7, 0, 3, 1), Some(g)).unwrap_err().0,
            ErrorCode::OutOfOrderSequenceNumber,
            "above the lowest sequence being verified"
        );
        assert_eq!(s.check_verified(&tx(7, 0, 1, 1), Some(g)), Ok(None));
        // A newer epoch restarts the lowest sequence.
        s.maybe_start_verification(7, 0, 1, 300, &mut next);
        assert_eq!(
            (s.verifying[&7].epoch, s.verifying[&7].lowest_sequence),
            (1, 0)
        );
        // The append clears the entry and opens the transaction: later
        // batches of it need no guard, and no new verification starts.
        let mut i = info(7, 0, 0, 1);
        i.transactional = true;
        s.record(&i);
        assert!(s.verifying.is_empty());
        assert_eq!(s.maybe_start_verification(7, 1, 0, 400, &mut next), None);
        assert_eq!(s.check_verified(&tx(7, 0, 1, 1), Some(0)), Ok(None));
        // A duplicate is acknowledged before the guard is checked.
        let mut t = ProducerStates::default();
        t.record(&info(9, 0, 5, 1));
        t.producers.get_mut(&9).unwrap().current_txn_first_offset = None;
        assert_eq!(t.check_verified(&tx(9, 0, 0, 1), Some(0)), Ok(Some((5, 5))));
    }

    #[test]
    fn duplicates_are_found_and_gaps_refused() {
        let mut s = ProducerStates::default();
        assert_eq!(s.check(&batch(7, 0, 0, 2)), Ok(None));
        s.record(&info(7, 0, 10, 2));
        assert_eq!(
            s.check(&batch(7, 0, 0, 2)),
            Ok(Some((10, 11))),
            "a retry of seq 0-1"
        );
        assert_eq!(s.check(&batch(7, 0, 2, 1)), Ok(None), "the next batch");
        assert_eq!(
            s.check(&batch(7, 0, 5, 1)).unwrap_err().0,
            ErrorCode::OutOfOrderSequenceNumber
        );
        s.record(&info(7, 2, 12, 1));
        s.truncate(12);
        assert_eq!(s.producers[&7].last_seq(), 1);
    }

    #[test]
    fn a_new_epoch_must_start_at_sequence_0() {
        let mut s = ProducerStates::default();
        s.record(&info(7, 0, 10, 3));
        let (e, why) = s.check(&batch(7, 1, 3, 1)).unwrap_err();
        assert_eq!(e, ErrorCode::OutOfOrderSequenceNumber, "{why}");
        assert!(why.contains("new epoch 1 at sequence 3"), "{why}");
        assert_eq!(s.check(&batch(7, 1, 0, 1)), Ok(None), "epoch 1 from 0");
        assert_eq!(s.check(&batch(7, 0, 3, 1)), Ok(None), "epoch 0 goes on");
    }

    #[test]
    fn only_five_batches_are_remembered() {
        let mut s = ProducerStates::default();
        for i in 0..7 {
            s.record(&info(1, i, i as i64, 1));
        }
        assert_eq!(s.producers[&1].batches.len(), NUM_BATCHES_TO_RETAIN);
        // The oldest retries are no longer recognised as duplicates.
        assert!(s.check(&batch(1, 0, 0, 1)).is_err());
        assert_eq!(s.check(&batch(1, 0, 6, 1)), Ok(Some((6, 6))));
    }

    mod transactions {
        use super::*;
        use crate::config::LogConfig;
        use crate::ids::TopicPartition;
        use crate::storage::paged::MemStorage;
        use crate::storage::record::{build_end_txn_marker, ControlType, EndTxnMarker};
        use crate::storage::txn_index_file;
        use std::sync::Arc;

        struct Part {
            log: Log,
            store: MemStorage,
            states: ProducerStates,
        }

        impl Part {
            fn new() -> Part {
                let mut store = MemStorage::default();
                let tp = TopicPartition::new("t", 0);
                let log = Log::create(&mut store, tp, Arc::new(LogConfig::default()), 0).unwrap();
                Part {
                    log,
                    store,
                    states: ProducerStates::default(),
                }
            }
            fn append(&mut self, bytes: Vec<u8>) -> Vec<CompletedTxn> {
                self.states.check(&bytes).expect("accepted");
                let p = self.log.prepare_leader_append(bytes, 0, 0).unwrap();
                let (_, a) = self.log.roll_and_append(&mut self.store, &p, 0).unwrap();
                self.states
                    .apply_appended(&mut self.log, &mut self.store, &a.batches)
                    .unwrap()
            }
        }

        fn txn_batch(pid: i64, seq: i32, n: usize) -> Vec<u8> {
            let recs: Vec<NewRecord> = (0..n)
                .map(|_| NewRecord::new(Some(b"k"), Some(b"v"), 0))
                .collect();
            build_batch(
                &BatchSpec {
                    producer_id: pid,
                    producer_epoch: 0,
                    base_sequence: seq,
                    transactional: true,
                    ..BatchSpec::default()
                },
                &recs,
            )
        }

        fn marker(pid: i64, t: ControlType, coordinator_epoch: i32) -> Vec<u8> {
            let m = EndTxnMarker {
                control_type: t,
                coordinator_epoch,
            };
            build_end_txn_marker(0, 0, -1, pid, 0, m)
        }

        /// `LogSegment.sanityCheck` runs `TransactionIndex.sanityCheck` at
        /// load (Kafka 3.9 `LogSegment.java` lines 184-195): an entry whose
        /// last offset is below the segment's base offset makes the index
        /// corrupt, and the loader warns and rebuilds it from the log
        /// (`LogLoader.loadSegmentFiles`, lines 302-344).
        #[test]
        fn a_corrupt_txnindex_is_rebuilt_from_the_log_on_recovery() {
            let mut p = Part::new();
            p.append(txn_batch(1, 0, 2)); // offsets 0-1
            p.append(txn_batch(2, 0, 1)); // offset 2
            p.append(marker(1, ControlType::Abort, 0)); // offset 3
            p.append(marker(2, ControlType::Abort, 0)); // offset 4
            let file = txn_index_file(&p.log.dir, 0);
            let good = p.store.read_all(&file).unwrap();
            assert_eq!(good.len(), 68);
            // An entry ending before the segment's base offset 0.
            let bad = AbortedTxn {
                producer_id: 9,
                first_offset: -10,
                last_offset: -5,
                last_stable_offset: 0,
            };
            p.store.delete(&file).unwrap();
            p.store.create(&file).unwrap();
            p.store.append(&file, &bad.encode()).unwrap();
            let recover = |p: &mut Part, notes: &mut Vec<String>| {
                let (tp, config) = (p.log.tp.clone(), p.log.config.clone());
                Log::recover_noting(&mut p.store, tp, &p.log.dir, config, notes).unwrap()
            };
            let mut notes = Vec::new();
            let again = recover(&mut p, &mut notes);
            assert_eq!(notes.len(), 1, "{notes:?}");
            assert!(
                notes[0].contains("Found a corrupted index file")
                    && notes[0].contains("lastOffset=-5")
                    && notes[0].contains("is less than start offset 0"),
                "{}",
                notes[0]
            );
            assert_eq!(
                p.store.read_all(&file).unwrap(),
                good,
                "rebuilt byte for byte"
            );
            assert_eq!(
                (
                    again.segments[0].txn_index_entries,
                    again.segments[0].txn_last_offset
                ),
                (2, Some(4))
            );
            // A sound index is taken as it is, with no note.
            let mut notes = Vec::new();
            recover(&mut p, &mut notes);
            assert!(notes.is_empty());
        }

        #[test]
        fn an_abort_is_indexed_with_the_lso_of_its_moment() {
            let mut p = Part::new();
            assert!(p.append(txn_batch(1, 0, 2)).is_empty()); // offsets 0-1
            assert!(p.append(txn_batch(2, 0, 1)).is_empty()); // offset 2
            assert_eq!(p.states.first_unstable_offset(), Some(0));
            // The LSO is held at 0 whatever the high watermark.
            assert_eq!(p.states.last_stable_offset(3, 0), 0);
            let done = p.append(marker(1, ControlType::Abort, 0)); // offset 3
            assert_eq!(
                done,
                vec![CompletedTxn {
                    producer_id: 1,
                    first_offset: 0,
                    last_offset: 3,
                    aborted: true
                }]
            );
            // Producer 2's transaction (from offset 2) is still open.
            let index = p.log.collect_aborted_transactions(&p.store, 0, 4).unwrap();
            assert_eq!(
                index,
                vec![AbortedTxn {
                    producer_id: 1,
                    first_offset: 0,
                    last_offset: 3,
                    last_stable_offset: 2
                }]
            );
            // Decided but not replicated: unstable until the HW passes 3.
            assert_eq!(p.states.first_unstable_offset(), Some(0));
            p.states.on_high_watermark_updated(4);
            assert_eq!(p.states.first_unstable_offset(), Some(2));
            assert_eq!(p.states.last_stable_offset(4, 0), 2);
            // A commit writes no index entry.
            let done = p.append(marker(2, ControlType::Commit, 0)); // offset 4
            assert!(!done[0].aborted);
            assert_eq!(p.log.active().txn_index_entries, 1);
            p.states.on_high_watermark_updated(5);
            assert_eq!(p.states.first_unstable_offset(), None);
            assert_eq!(p.states.last_stable_offset(5, 0), 5, "LSO = HW");
            // The file holds exactly the one 34-byte entry.
            let f = txn_index_file(&p.log.dir, 0);
            assert_eq!(p.store.read_all(&f).unwrap().len(), 34);
        }

        #[test]
        fn a_marker_with_no_data_completes_nothing() {
            let mut p = Part::new();
            assert!(p.append(marker(9, ControlType::Abort, 0)).is_empty());
            assert_eq!(p.log.active().txn_index_entries, 0);
            assert!(
                !p.store.exists(&txn_index_file(&p.log.dir, 0)),
                "no file until an entry"
            );
        }

        #[test]
        fn transactional_misuse_and_zombie_coordinators_are_refused() {
            let mut p = Part::new();
            p.append(txn_batch(1, 0, 1));
            // A plain idempotent batch while the transaction is open.
            let plain = batch(1, 0, 1, 1);
            assert_eq!(
                p.states.check(&plain).unwrap_err().0,
                ErrorCode::InvalidTxnState
            );
            p.append(marker(1, ControlType::Commit, 5));
            // A marker from coordinator epoch 4 after one from 5.
            let zombie = marker(1, ControlType::Abort, 4);
            assert_eq!(
                p.states.check(&zombie).unwrap_err().0,
                ErrorCode::TransactionCoordinatorFenced
            );
            assert_eq!(p.states.check(&marker(1, ControlType::Abort, 5)), Ok(None));
        }

        #[test]
        fn truncating_below_a_marker_reopens_its_transaction() {
            let mut p = Part::new();
            p.append(txn_batch(1, 0, 2)); // 0-1
            p.append(marker(1, ControlType::Abort, 0)); // 2
            assert_eq!(p.log.active().txn_index_entries, 1);
            p.log.truncate_to(&mut p.store, 2).unwrap();
            p.states.truncate(2);
            assert_eq!(p.log.active().txn_index_entries, 0);
            assert_eq!(
                p.store
                    .read_all(&txn_index_file(&p.log.dir, 0))
                    .unwrap()
                    .len(),
                0
            );
            assert_eq!(p.states.first_unstable_offset(), Some(0), "open again");
            assert_eq!(p.states.producers[&1].current_txn_first_offset, Some(0));
            // The abort comes back (as a new leader would write it): indexed again.
            p.append(marker(1, ControlType::Abort, 0));
            assert_eq!(p.log.active().txn_index_entries, 1);
            // And a log recovered from the files counts it.
            let again = Log::recover(
                &mut p.store,
                p.log.tp.clone(),
                &p.log.dir,
                p.log.config.clone(),
            )
            .unwrap();
            assert_eq!(again.segments[0].txn_index_entries, 1);
            assert_eq!(again.segments[0].txn_last_offset, Some(2));
        }
    }
}
