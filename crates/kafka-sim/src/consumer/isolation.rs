//! What a fetch hands the application (`CompletedFetch.nextFetchedRecord`,
//! Kafka 3.9 `clients/.../consumer/internals/CompletedFetch.java` lines
//! 200–245 and 355–390).
//!
//! * Control records (COMMIT/ABORT markers) are never returned, whatever the
//!   isolation level; the fetch position moves past them.
//! * With `isolation.level=read_committed` the broker answers only up to the
//!   last stable offset and lists the aborted transactions that overlap the
//!   answer (`AbortedTransaction{producerId, firstOffset}`). Going through the
//!   batches in order, every aborted transaction whose first offset is at or
//!   below the batch's last offset marks its producer as aborted; a
//!   transactional batch of a marked producer is skipped whole; that
//!   producer's ABORT marker unmarks it.
//! * Records below the fetch position (the start of a batch fetched again)
//!   are skipped.

use crate::collections::SortedSet;
use crate::event::ConsumedRecord;
use crate::storage::record::{self, ControlType};

pub use crate::msg::AbortedTransaction;

/// The transactional data batches of fetched bytes: (first offset, last
/// offset, producer id), for the read_committed check.
pub fn producers_of(bytes: &[u8]) -> Vec<(i64, i64, i64)> {
    record::split_batches(bytes)
        .map(|v| {
            v.into_iter()
                .filter(|(_, h)| h.is_transactional() && !h.is_control())
                .map(|(_, h)| (h.base_offset, h.last_offset(), h.producer_id))
                .collect()
        })
        .unwrap_or_default()
}

/// The records of a fetched partition the application gets, and the next
/// fetch offset (past skipped aborted batches and markers). Stops at the
/// first batch that does not decode.
pub fn deliverable(
    bytes: &[u8],
    position: i64,
    read_committed: bool,
    aborted: &[AbortedTransaction],
) -> (Vec<ConsumedRecord>, i64) {
    let mut queue: Vec<AbortedTransaction> = aborted.to_vec();
    queue.sort();
    let mut queue = queue.into_iter().peekable();
    let mut aborted_producers = SortedSet::new();
    let mut out = Vec::new();
    let mut next = position;
    let mut at = 0usize;
    while at < bytes.len() {
        let Ok(b) = record::decode_batch(&bytes[at..], at as u64) else {
            break;
        };
        at += b.header.size_in_bytes() as usize;
        let h = &b.header;
        if read_committed && h.has_producer_id() {
            while let Some(t) = queue.next_if(|t| t.first_offset <= h.last_offset()) {
                aborted_producers.insert(t.producer_id);
            }
            let abort_marker = record::marker_of(&b)
                .ok()
                .flatten()
                .is_some_and(|m| m.control_type == ControlType::Abort);
            if abort_marker {
                aborted_producers.remove(&h.producer_id);
            } else if h.is_transactional() && aborted_producers.contains(&h.producer_id) {
                next = next.max(h.next_offset());
                continue;
            }
        }
        for r in &b.records {
            let off = b.offset_of(r);
            if off < next {
                continue;
            }
            if h.is_control() {
                next = off + 1;
                continue;
            }
            out.push(ConsumedRecord {
                offset: off,
                key: r
                    .key
                    .as_ref()
                    .map(|k| String::from_utf8_lossy(k).into_owned()),
                value: r
                    .value
                    .as_ref()
                    .map(|v| String::from_utf8_lossy(v).into_owned()),
                timestamp: b.timestamp_of(r),
            });
            next = off + 1;
        }
    }
    (out, next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::record::{
        build_batch, build_end_txn_marker, BatchSpec, EndTxnMarker, NewRecord,
    };

    fn data(base: i64, pid: i64, txn: bool, values: &[&str]) -> Vec<u8> {
        let recs: Vec<NewRecord> = values
            .iter()
            .map(|v| NewRecord::new(None, Some(v.as_bytes()), 0))
            .collect();
        build_batch(
            &BatchSpec {
                base_offset: base,
                producer_id: pid,
                producer_epoch: if pid >= 0 { 0 } else { -1 },
                base_sequence: if pid >= 0 { 0 } else { -1 },
                transactional: txn,
                ..BatchSpec::default()
            },
            &recs,
        )
    }

    fn marker(base: i64, pid: i64, t: ControlType) -> Vec<u8> {
        let m = EndTxnMarker {
            control_type: t,
            coordinator_epoch: 0,
        };
        build_end_txn_marker(base, 0, 0, pid, 0, m)
    }

    /// Offsets 0: plain "p"; 1-2: producer 7 "a1", "a2" (aborted at 5);
    /// 3: producer 8 "c1" (committed at 6); 4: plain "q"; 5: ABORT(7);
    /// 6: COMMIT(8); 7: producer 7 "n1", a new transaction.
    fn log() -> Vec<u8> {
        [
            data(0, -1, false, &["p"]),
            data(1, 7, true, &["a1", "a2"]),
            data(3, 8, true, &["c1"]),
            data(4, -1, false, &["q"]),
            marker(5, 7, ControlType::Abort),
            marker(6, 8, ControlType::Commit),
            data(7, 7, true, &["n1"]),
        ]
        .concat()
    }

    fn values(r: &[ConsumedRecord]) -> Vec<String> {
        r.iter().map(|r| r.value.clone().unwrap()).collect()
    }

    #[test]
    fn read_uncommitted_sees_everything_but_markers() {
        let (recs, next) = deliverable(&log(), 0, false, &[]);
        assert_eq!(values(&recs), ["p", "a1", "a2", "c1", "q", "n1"]);
        assert_eq!(next, 8);
    }

    #[test]
    fn read_committed_skips_the_aborted_batches_only_up_to_their_marker() {
        let aborted = [AbortedTransaction {
            first_offset: 1,
            producer_id: 7,
        }];
        let (recs, next) = deliverable(&log(), 0, true, &aborted);
        // Producer 7's transaction after its ABORT marker ("n1") is not aborted.
        assert_eq!(values(&recs), ["p", "c1", "q", "n1"]);
        assert_eq!(next, 8);
        // Without the aborted list, nothing is dropped: the broker's list is
        // what tells aborted data apart.
        let (recs, _) = deliverable(&log(), 0, true, &[]);
        assert_eq!(recs.len(), 6);
    }

    #[test]
    fn a_fetch_of_only_markers_or_aborted_data_still_moves_the_position() {
        let bytes = [
            data(1, 7, true, &["a1", "a2"]),
            marker(3, 7, ControlType::Abort),
        ]
        .concat();
        let aborted = [AbortedTransaction {
            first_offset: 1,
            producer_id: 7,
        }];
        let (recs, next) = deliverable(&bytes, 1, true, &aborted);
        assert!(recs.is_empty());
        assert_eq!(next, 4, "past the marker");
        // Records before the position are not returned again.
        let (recs, next) = deliverable(&log(), 2, false, &[]);
        assert_eq!(values(&recs)[0], "a2");
        assert_eq!(next, 8);
    }
}
