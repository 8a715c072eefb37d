//! `.index` and `.timeindex`: Kafka's sparse indexes.
//!
//! * Offset index (`OffsetIndex`): 8-byte big-endian entries
//!   `(relative offset: int32, file position: int32)`; relative to the
//!   segment's base offset so that 4 bytes are enough.
//! * Time index (`TimeIndex`): 12-byte entries `(timestamp: int64, relative
//!   offset: int32)`, appended only when the timestamp grows.
//!
//! Entries are sparse: one per `index.interval.bytes` of log (see
//! `LogSegment.append`). A lookup is Kafka's `AbstractIndex` binary search
//! for the largest entry ≤ the target, including its cache-friendly "warm
//! section" (the last 8192 bytes of entries are searched first when the target
//! falls among them). Every entry the search reads is reported as a [`Probe`]
//! so the UI can animate the search.

use super::paged::{FileReader, Storage, StorageError};
use super::DecodeError;
use serde::{Deserialize, Serialize};

pub const OFFSET_INDEX_ENTRY_SIZE: u64 = 8;
pub const TIME_INDEX_ENTRY_SIZE: u64 = 12;
/// Kafka's `AbstractIndex.warmEntries()` is `8192 / entrySize`.
const WARM_SECTION_BYTES: u64 = 8192;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexKind {
    /// `.index`: searched by offset.
    Offset,
    /// `.timeindex`: searched by timestamp.
    Time,
}

impl IndexKind {
    pub fn entry_size(self) -> u64 {
        match self {
            IndexKind::Offset => OFFSET_INDEX_ENTRY_SIZE,
            IndexKind::Time => TIME_INDEX_ENTRY_SIZE,
        }
    }
    pub fn warm_entries(self) -> u64 {
        WARM_SECTION_BYTES / self.entry_size()
    }
}

/// One decoded index entry, offsets made absolute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexEntry {
    pub slot: u64,
    /// Offset index: the offset. Time index: the timestamp. (The search key.)
    pub key: i64,
    /// Offset index: the file position. Time index: the offset.
    pub value: i64,
}

pub fn encode_offset_entry(relative_offset: i32, position: i32) -> [u8; 8] {
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&relative_offset.to_be_bytes());
    b[4..].copy_from_slice(&position.to_be_bytes());
    b
}

pub fn encode_time_entry(timestamp: i64, relative_offset: i32) -> [u8; 12] {
    let mut b = [0u8; 12];
    b[..8].copy_from_slice(&timestamp.to_be_bytes());
    b[8..].copy_from_slice(&relative_offset.to_be_bytes());
    b
}

/// Decodes one entry's raw bytes.
pub fn decode_entry(kind: IndexKind, base_offset: i64, slot: u64, b: &[u8]) -> IndexEntry {
    match kind {
        IndexKind::Offset => {
            let rel = i32::from_be_bytes([b[0], b[1], b[2], b[3]]);
            let pos = i32::from_be_bytes([b[4], b[5], b[6], b[7]]);
            IndexEntry {
                slot,
                key: base_offset + rel as i64,
                value: pos as i64,
            }
        }
        IndexKind::Time => {
            let mut t = [0u8; 8];
            t.copy_from_slice(&b[..8]);
            let rel = i32::from_be_bytes([b[8], b[9], b[10], b[11]]);
            IndexEntry {
                slot,
                key: i64::from_be_bytes(t),
                value: base_offset + rel as i64,
            }
        }
    }
}

/// Reads slot `slot` of an index file.
pub fn read_entry<S: Storage>(
    store: &S,
    file: &str,
    kind: IndexKind,
    base_offset: i64,
    slot: u64,
) -> Result<IndexEntry, StorageError> {
    read_entry_in(&store.reader(file)?, kind, base_offset, slot)
}

/// Decodes a whole index file (for `dump-log` and the storage inspector).
pub fn decode_index(
    kind: IndexKind,
    base_offset: i64,
    bytes: &[u8],
) -> Result<Vec<IndexEntry>, DecodeError> {
    let size = kind.entry_size() as usize;
    if !bytes.len().is_multiple_of(size) {
        return Err(DecodeError {
            position: (bytes.len() - bytes.len() % size) as u64,
            field: match kind {
                IndexKind::Offset => "offset index entry",
                IndexKind::Time => "time index entry",
            },
            message: format!(
                "the file is {} bytes, not a multiple of the {size}-byte entry size",
                bytes.len()
            ),
        });
    }
    Ok(bytes
        .chunks_exact(size)
        .enumerate()
        .map(|(i, c)| decode_entry(kind, base_offset, i as u64, c))
        .collect())
}

/// Why the search looked at an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeRole {
    /// First entry of the warm section: is the target among the newest entries?
    WarmSectionCheck,
    /// Entry 0: is the target below everything in the index?
    FirstEntryCheck,
    /// A midpoint of the binary search.
    BinarySearch,
}

/// One entry read during a lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Probe {
    pub role: ProbeRole,
    pub entry: IndexEntry,
    /// The search range before this probe (slots, inclusive).
    pub lo: u64,
    pub hi: u64,
    /// `entry.key` compared with the target: -1 less, 0 equal, 1 greater.
    pub cmp: i8,
}

fn cmp(a: i64, b: i64) -> i8 {
    match a.cmp(&b) {
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    }
}

/// Kafka's `largestLowerBoundSlotFor`: the slot of the largest entry whose key
/// is ≤ `target`, or `None` when the index is empty or every key is larger.
/// Each entry read is pushed to `probes`.
pub fn largest_lower_bound<S: Storage>(
    store: &S,
    file: &str,
    kind: IndexKind,
    base_offset: i64,
    entries: u64,
    target: i64,
    probes: &mut Vec<Probe>,
) -> Result<Option<u64>, StorageError> {
    let f = store.reader(file)?;
    search(&f, kind, base_offset, entries, target, Some(probes))
}

/// [`largest_lower_bound`] without recording its probes: the simulation's
/// own reads (a fetch, a truncation), on a file already opened.
pub fn largest_lower_bound_in(
    file: &FileReader,
    kind: IndexKind,
    base_offset: i64,
    entries: u64,
    target: i64,
) -> Result<Option<u64>, StorageError> {
    search(file, kind, base_offset, entries, target, None)
}

/// Reads slot `slot` of an index file already opened.
pub fn read_entry_in(
    file: &FileReader,
    kind: IndexKind,
    base_offset: i64,
    slot: u64,
) -> Result<IndexEntry, StorageError> {
    let n = kind.entry_size() as usize;
    let position = slot * kind.entry_size();
    if let Some(bytes) = file.slice(position, n) {
        return Ok(decode_entry(kind, base_offset, slot, bytes));
    }
    let mut buf = [0u8; 12];
    file.read_into(position, &mut buf[..n])?;
    Ok(decode_entry(kind, base_offset, slot, &buf[..n]))
}

fn search(
    file: &FileReader,
    kind: IndexKind,
    base_offset: i64,
    entries: u64,
    target: i64,
    mut probes: Option<&mut Vec<Probe>>,
) -> Result<Option<u64>, StorageError> {
    if entries == 0 {
        return Ok(None);
    }
    // An index that fits one page (up to 512 offset entries, 341 time
    // entries at 4 KiB) is read from that page's bytes directly.
    let n = kind.entry_size();
    let one_page = entries
        .checked_mul(n)
        .and_then(|len| file.slice(0, usize::try_from(len).ok()?));
    let read = |slot: u64| match one_page {
        Some(bytes) => {
            let at = (slot * n) as usize;
            Ok(decode_entry(
                kind,
                base_offset,
                slot,
                &bytes[at..at + n as usize],
            ))
        }
        None => read_entry_in(file, kind, base_offset, slot),
    };
    let first_hot = (entries as i64 - 1 - kind.warm_entries() as i64).max(0) as u64;
    let e = read(first_hot)?;
    let c = cmp(e.key, target);
    if let Some(p) = probes.as_deref_mut() {
        p.push(Probe {
            role: ProbeRole::WarmSectionCheck,
            entry: e,
            lo: 0,
            hi: entries - 1,
            cmp: c,
        });
    }
    if c < 0 {
        return binary_search(&read, target, first_hot, entries - 1, probes).map(Some);
    }
    let e0 = read(0)?;
    let c0 = cmp(e0.key, target);
    if let Some(p) = probes.as_deref_mut() {
        p.push(Probe {
            role: ProbeRole::FirstEntryCheck,
            entry: e0,
            lo: 0,
            hi: first_hot,
            cmp: c0,
        });
    }
    if c0 > 0 {
        return Ok(None);
    }
    binary_search(&read, target, 0, first_hot, probes).map(Some)
}

fn binary_search(
    read: &dyn Fn(u64) -> Result<IndexEntry, StorageError>,
    target: i64,
    begin: u64,
    end: u64,
    mut probes: Option<&mut Vec<Probe>>,
) -> Result<u64, StorageError> {
    let (mut lo, mut hi) = (begin, end);
    while lo < hi {
        // Kafka's `(lo + hi + 1) >>> 1`: the upper middle.
        let mid = (lo + hi).div_ceil(2);
        let e = read(mid)?;
        let c = cmp(e.key, target);
        if let Some(p) = probes.as_deref_mut() {
            p.push(Probe {
                role: ProbeRole::BinarySearch,
                entry: e,
                lo,
                hi,
                cmp: c,
            });
        }
        match c {
            1 => hi = mid - 1,
            -1 => lo = mid,
            _ => return Ok(mid),
        }
    }
    Ok(lo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::paged::MemStorage;

    fn index_with(offsets: &[(i32, i32)]) -> MemStorage {
        let mut s = MemStorage::default();
        s.create("i").unwrap();
        for (o, p) in offsets {
            s.append("i", &encode_offset_entry(*o, *p)).unwrap();
        }
        s
    }

    #[test]
    fn finds_the_largest_entry_not_above_the_target() {
        let entries: Vec<(i32, i32)> = (0..50).map(|i| (i * 10 + 3, i * 4100)).collect();
        let s = index_with(&entries);
        let base = 1000;
        for target in [1000, 1003, 1004, 1012, 1013, 1250, 1493, 2000] {
            let mut probes = Vec::new();
            let got =
                largest_lower_bound(&s, "i", IndexKind::Offset, base, 50, target, &mut probes)
                    .unwrap();
            let naive = entries
                .iter()
                .rposition(|(o, _)| base + *o as i64 <= target)
                .map(|i| i as u64);
            assert_eq!(got, naive, "target {target}");
            assert!(!probes.is_empty());
            // log2(50) + the two range checks bounds the number of probes.
            assert!(probes.len() <= 8, "{} probes", probes.len());
        }
    }

    #[test]
    fn the_warm_section_is_searched_first_for_recent_targets() {
        // 2000 entries > 1024 warm entries: a target near the end is found
        // without touching entry 0.
        let entries: Vec<(i32, i32)> = (0..2000).map(|i| (i, i * 8)).collect();
        let s = index_with(&entries);
        let mut probes = Vec::new();
        let got =
            largest_lower_bound(&s, "i", IndexKind::Offset, 0, 2000, 1990, &mut probes).unwrap();
        assert_eq!(got, Some(1990));
        assert_eq!(probes[0].role, ProbeRole::WarmSectionCheck);
        assert_eq!(probes[0].entry.slot, 2000 - 1 - 1024);
        assert!(probes.iter().all(|p| p.role != ProbeRole::FirstEntryCheck));
        let mut probes = Vec::new();
        let got =
            largest_lower_bound(&s, "i", IndexKind::Offset, 0, 2000, 10, &mut probes).unwrap();
        assert_eq!(got, Some(10));
        assert_eq!(probes[1].role, ProbeRole::FirstEntryCheck);
    }

    #[test]
    fn time_entries_round_trip() {
        let b = encode_time_entry(1_700_000_000_123, 7);
        let e = decode_entry(IndexKind::Time, 100, 0, &b);
        assert_eq!(e.key, 1_700_000_000_123);
        assert_eq!(e.value, 107);
        assert!(decode_index(IndexKind::Time, 0, &b[..11]).is_err());
    }
}
