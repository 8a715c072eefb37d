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

use crate::collections::SortedMap;
use crate::msg::ErrorCode;
use crate::storage::log::BatchInfo;
use crate::storage::record;
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
}

impl ProducerEntry {
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
}

fn in_sequence(last_seq: i32, next_seq: i32) -> bool {
    next_seq == last_seq.wrapping_add(1) || (next_seq == 0 && last_seq == i32::MAX)
}

impl ProducerStates {
    /// Checks an incoming batch set from a client. `Ok(Some((first, last)))` =
    /// a duplicate already written at those offsets; `Err` = refused.
    pub fn check(&self, bytes: &[u8]) -> Result<Option<(i64, i64)>, (ErrorCode, String)> {
        let Ok(batches) = record::split_batches(bytes) else {
            return Ok(None);
        };
        for (_, h) in batches {
            if !h.has_producer_id() || h.base_sequence < 0 {
                continue;
            }
            let Some(e) = self.producers.get(&h.producer_id) else {
                continue; // a new producer (or one whose state expired): accepted
            };
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
            let last = h.last_sequence();
            if let Some(dup) = e
                .batches
                .iter()
                .find(|b| b.first_seq == h.base_sequence && b.last_seq == last)
            {
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

    /// Remembers an appended batch (leader and followers alike).
    pub fn record(&mut self, b: &BatchInfo) {
        if b.producer_id < 0 || b.base_sequence < 0 {
            return;
        }
        let e = self
            .producers
            .entry(b.producer_id)
            .or_insert(ProducerEntry {
                epoch: b.producer_epoch,
                batches: VecDeque::new(),
            });
        if b.producer_epoch > e.epoch {
            e.epoch = b.producer_epoch;
            e.batches.clear();
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
    }

    /// Forgets batches at or above `log_end_offset` (after a truncation).
    pub fn truncate(&mut self, log_end_offset: i64) {
        for e in self.producers.values_mut() {
            e.batches.retain(|b| b.last_offset < log_end_offset);
        }
        self.producers.retain(|_, e| !e.batches.is_empty());
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
        let recs: Vec<NewRecord> = (0..n)
            .map(|_| NewRecord::new(Some(b"k"), Some(b"v"), 0))
            .collect();
        build_batch(
            &BatchSpec {
                producer_id: pid,
                producer_epoch: epoch,
                base_sequence: seq,
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
        }
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
}
