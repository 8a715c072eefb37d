//! The aborted-transaction index, `.txnindex` (KIP-98).
//!
//! Each segment may have one. When a leader (or follower) appends an ABORT
//! marker for a transaction that wrote data to the partition, it appends one
//! 34-byte entry to the `.txnindex` of the segment the marker went into
//! (`UnifiedLog.append` → `LogSegment.updateTxnIndex`):
//!
//! ```text
//! version: int16 (= 0)  producerId: int64  firstOffset: int64
//! lastOffset: int64 (the marker's offset)  lastStableOffset: int64
//! ```
//!
//! `lastStableOffset` is the first offset of another producer's transaction
//! still open when the marker was written, else the marker's offset + 1
//! (`ProducerStateManager.lastStableOffset`). A `read_committed` fetch
//! collects the entries whose range overlaps what it returns
//! (`TransactionIndex.collectAbortedTxns`), so the consumer can drop the
//! aborted records. Kafka creates the file only on its first entry
//! (`TransactionIndex` opens its channel lazily) and requires last offsets
//! to increase. Follows Kafka 3.9 `AbortedTxn.java` and
//! `TransactionIndex.java` (storage/.../internals/log).

use super::DecodeError;
use serde::{Deserialize, Serialize};

/// Bytes of one entry (`AbortedTxn.TOTAL_SIZE`).
pub const ABORTED_TXN_SIZE: usize = 34;

/// One aborted transaction (`AbortedTxn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AbortedTxn {
    pub producer_id: i64,
    /// The transaction's first offset in this partition.
    pub first_offset: i64,
    /// The ABORT marker's offset.
    pub last_offset: i64,
    /// The LSO once the marker is written (see the module note).
    pub last_stable_offset: i64,
}

impl AbortedTxn {
    /// Whether producer `producer_id`'s record at `offset` belongs to this
    /// aborted transaction (between its first offset and its marker).
    pub fn holds(&self, producer_id: i64, offset: i64) -> bool {
        self.producer_id == producer_id && self.first_offset <= offset && offset <= self.last_offset
    }

    /// What a `read_committed` fetch response lists (`asAbortedTransaction`).
    pub fn as_aborted_transaction(&self) -> crate::msg::AbortedTransaction {
        crate::msg::AbortedTransaction {
            first_offset: self.first_offset,
            producer_id: self.producer_id,
        }
    }

    /// The 34 bytes Kafka writes (version 0).
    pub fn encode(&self) -> [u8; ABORTED_TXN_SIZE] {
        let mut b = [0u8; ABORTED_TXN_SIZE];
        b[2..10].copy_from_slice(&self.producer_id.to_be_bytes());
        b[10..18].copy_from_slice(&self.first_offset.to_be_bytes());
        b[18..26].copy_from_slice(&self.last_offset.to_be_bytes());
        b[26..34].copy_from_slice(&self.last_stable_offset.to_be_bytes());
        b
    }
}

fn i64_at(b: &[u8], at: usize) -> i64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    i64::from_be_bytes(a)
}

/// Reads a whole `.txnindex` file. A trailing fragment shorter than an entry
/// or a version other than 0 is an error naming its byte position (Kafka:
/// "Unexpected aborted transaction version").
pub fn decode_txn_index(bytes: &[u8]) -> Result<Vec<AbortedTxn>, DecodeError> {
    let mut out = Vec::with_capacity(bytes.len() / ABORTED_TXN_SIZE);
    for (i, e) in bytes.chunks(ABORTED_TXN_SIZE).enumerate() {
        let position = (i * ABORTED_TXN_SIZE) as u64;
        if e.len() < ABORTED_TXN_SIZE {
            return Err(DecodeError {
                position,
                field: "AbortedTxn",
                message: format!(
                    "{} bytes left, an entry takes {ABORTED_TXN_SIZE} (the file is cut short)",
                    e.len()
                ),
            });
        }
        let version = i16::from_be_bytes([e[0], e[1]]);
        if version != 0 {
            return Err(DecodeError {
                position,
                field: "version",
                message: format!("unexpected aborted transaction version {version} (only 0)"),
            });
        }
        out.push(AbortedTxn {
            producer_id: i64_at(e, 2),
            first_offset: i64_at(e, 10),
            last_offset: i64_at(e, 18),
            last_stable_offset: i64_at(e, 26),
        });
    }
    Ok(out)
}

/// `TransactionIndex.sanityCheck` (Kafka 3.9 `TransactionIndex.java`
/// lines 187-195, run by `LogSegment.sanityCheck` when a log loads): each
/// whole 34-byte entry is read (a shorter tail is not an entry, as
/// `hasNext` needs 34 bytes). A version above 0 is an error that stops the
/// load (`KafkaException`, not caught by the loader); an entry whose last
/// offset is below the segment's base offset makes the index corrupt
/// (`CorruptIndexException`, `Ok(Some(message))`): the loader then rebuilds
/// the segment.
pub fn sanity_check(bytes: &[u8], base_offset: i64, path: &str) -> Result<Option<String>, String> {
    for e in bytes.chunks_exact(ABORTED_TXN_SIZE) {
        let version = i16::from_be_bytes([e[0], e[1]]);
        if version > 0 {
            return Err(format!(
                "Unexpected aborted transaction version {version} in transaction index {path}, current version is 0"
            ));
        }
        let t = AbortedTxn {
            producer_id: i64_at(e, 2),
            first_offset: i64_at(e, 10),
            last_offset: i64_at(e, 18),
            last_stable_offset: i64_at(e, 26),
        };
        if t.last_offset < base_offset {
            return Ok(Some(format!(
                "Last offset of aborted transaction AbortedTxn(version=0, producerId={}, firstOffset={}, lastOffset={}, lastStableOffset={}) in index {path} is less than start offset {base_offset}",
                t.producer_id, t.first_offset, t.last_offset, t.last_stable_offset
            )));
        }
    }
    Ok(None)
}

/// `TransactionIndex.collectAbortedTxns`: the entries overlapping
/// `[fetch_offset, upper_bound)`, and whether the search is complete (an
/// entry's LSO reached the bound, so later segments cannot matter).
pub fn collect_aborted_txns(
    entries: &[AbortedTxn],
    fetch_offset: i64,
    upper_bound: i64,
) -> (Vec<AbortedTxn>, bool) {
    let mut found = Vec::new();
    for t in entries {
        if t.last_offset >= fetch_offset && t.first_offset < upper_bound {
            found.push(*t);
        }
        if t.last_stable_offset >= upper_bound {
            return (found, true);
        }
    }
    (found, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_34_big_endian_bytes_with_version_0_first() {
        let t = AbortedTxn {
            producer_id: 0x0102,
            first_offset: 5,
            last_offset: 9,
            last_stable_offset: 10,
        };
        let b = t.encode();
        let mut want = vec![0u8, 0];
        for v in [0x0102i64, 5, 9, 10] {
            want.extend_from_slice(&v.to_be_bytes());
        }
        assert_eq!(b.to_vec(), want);
        assert_eq!(decode_txn_index(&b).unwrap(), vec![t]);
    }

    #[test]
    fn a_cut_file_or_an_unknown_version_is_named() {
        let t = AbortedTxn {
            producer_id: 1,
            first_offset: 0,
            last_offset: 3,
            last_stable_offset: 4,
        };
        let mut two = t.encode().to_vec();
        two.extend_from_slice(&t.encode()[..20]);
        let e = decode_txn_index(&two).unwrap_err();
        assert_eq!((e.position, e.field), (34, "AbortedTxn"));
        let mut v1 = t.encode();
        v1[1] = 1;
        let e = decode_txn_index(&v1).unwrap_err();
        assert_eq!((e.position, e.field), (0, "version"));
    }

    /// Kafka 3.9 `TransactionIndexTest.testSanityCheck` and
    /// `TransactionIndex.sanityCheck`: an entry ending below the segment's
    /// base offset is corrupt; a version above 0 stops the load; a cut tail
    /// is not read.
    #[test]
    fn the_sanity_check_finds_entries_before_the_segment() {
        let t = |first, last| AbortedTxn {
            producer_id: 7,
            first_offset: first,
            last_offset: last,
            last_stable_offset: last + 1,
        };
        let mut b = Vec::new();
        for (f, l) in [(0, 10), (11, 50)] {
            b.extend_from_slice(&t(f, l).encode());
        }
        assert_eq!(sanity_check(&b, 0, "f"), Ok(None));
        let corrupt = sanity_check(&b, 100, "f").unwrap().expect("corrupt");
        assert!(
            corrupt.starts_with("Last offset of aborted transaction AbortedTxn(version=0, producerId=7, firstOffset=0, lastOffset=10")
                && corrupt.ends_with("in index f is less than start offset 100"),
            "{corrupt}"
        );
        let mut cut = t(120, 130).encode().to_vec();
        cut.extend_from_slice(&t(0, 10).encode()[..33]);
        assert_eq!(
            sanity_check(&cut, 100, "f"),
            Ok(None),
            "a cut tail is not an entry"
        );
        let mut v1 = t(120, 130).encode();
        v1[1] = 1;
        assert!(sanity_check(&v1, 100, "f")
            .unwrap_err()
            .contains("version 1"));
    }

    #[test]
    fn collecting_keeps_overlaps_and_stops_at_the_bound() {
        let t = |first, last, lso| AbortedTxn {
            producer_id: 7,
            first_offset: first,
            last_offset: last,
            last_stable_offset: lso,
        };
        let entries = [t(0, 4, 5), t(6, 9, 10), t(12, 20, 21)];
        // Fetch [5, 12): the first ended before 5; the third starts at 12.
        let (found, complete) = collect_aborted_txns(&entries, 5, 12);
        assert_eq!(found, vec![t(6, 9, 10)]);
        assert!(complete, "the third entry's LSO 21 ≥ 12 ends the search");
        // Fetch [0, 100): all, and the search must go on to later segments.
        let (found, complete) = collect_aborted_txns(&entries, 0, 100);
        assert_eq!(found.len(), 3);
        assert!(!complete);
    }
}
