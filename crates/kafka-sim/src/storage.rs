//! Storage: a partition's log, in Kafka's own on-disk formats.
//!
//! A topic is only a name; each partition is a directory (`first-0`) holding
//! *segments*. A segment is three files named by its base offset, zero-padded
//! to 20 digits: `00000000000000000000.log` (record batches, appended
//! sequentially), `.index` (a sparse offset → position index) and `.timeindex`
//! (a sparse timestamp → offset index). Kafka relies on the OS page cache; the
//! simulation keeps files on a paged in-memory [`paged::Storage`].
//!
//! Modules, in Kafka's words:
//! * [`record`]: the v2 record batch (magic 2) codec, with CRC-32C.
//! * [`index`]: `.index` / `.timeindex` entries and Kafka's index search.
//! * [`log`]: `LogSegment` + `UnifiedLog`: append, roll, read, truncate,
//!   retention, and the step-by-step offset / timestamp lookups.
//! * [`cleaner`]: the log cleaner (compaction).
//! * [`paged`]: the page-based file store.

pub mod cleaner;
pub mod crc32c;
pub mod index;
pub mod log;
pub mod paged;
pub mod record;
pub mod txn_index;
pub mod varint;

use serde::{Deserialize, Serialize};
use std::fmt;

/// Bytes that are not a valid Kafka structure: where, which field, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecodeError {
    /// Absolute byte position in the file (or request) being decoded.
    pub position: u64,
    /// Kafka's name for the field that could not be read.
    pub field: &'static str,
    pub message: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at byte {}: {}: {}",
            self.position, self.field, self.message
        )
    }
}

impl std::error::Error for DecodeError {}

/// `00000000000000000042` — Kafka's `LogFileUtils.filenamePrefixFromOffset`.
pub fn filename_prefix(offset: i64) -> String {
    format!("{offset:020}")
}

/// `<dir>/<20-digit base offset><ext>`, in one allocation (fetches name a
/// segment's files on every read).
fn segment_file(dir: &str, base_offset: i64, ext: &str) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(dir.len() + 22 + ext.len());
    s.push_str(dir);
    s.push('/');
    let _ = write!(s, "{base_offset:020}");
    s.push_str(ext);
    s
}

/// A segment file's name written into a buffer on the stack: the untraced
/// lookup names two files per call, and a heap string each time was a
/// measurable part of it (issue 24). Names longer than the buffer (a
/// directory near Kafka's 249-character topic limit) fall back to the heap.
pub(crate) enum SegmentName {
    /// `stem`: the length of the name before its extension.
    Stack {
        buf: [u8; 128],
        stem: usize,
        len: usize,
    },
    Heap(String),
}

impl SegmentName {
    pub(crate) fn new(dir: &str, base_offset: i64, ext: &str) -> SegmentName {
        let len = dir.len() + 1 + 20 + ext.len();
        if len > 128 || base_offset < 0 {
            return SegmentName::Heap(segment_file(dir, base_offset, ext));
        }
        let mut buf = [0u8; 128];
        buf[..dir.len()].copy_from_slice(dir.as_bytes());
        buf[dir.len()] = b'/';
        let digits = &mut buf[dir.len() + 1..dir.len() + 21];
        let mut n = base_offset as u64;
        for d in digits.iter_mut().rev() {
            *d = b'0' + (n % 10) as u8;
            n /= 10;
        }
        let stem = dir.len() + 21;
        buf[stem..len].copy_from_slice(ext.as_bytes());
        SegmentName::Stack { buf, stem, len }
    }

    /// The same segment's file with extension `ext` (its digits are not
    /// written again).
    pub(crate) fn with_ext(&self, ext: &str) -> SegmentName {
        match self {
            SegmentName::Stack { buf, stem, .. } if stem + ext.len() <= buf.len() => {
                let (mut buf, stem) = (*buf, *stem);
                buf[stem..stem + ext.len()].copy_from_slice(ext.as_bytes());
                SegmentName::Stack {
                    buf,
                    stem,
                    len: stem + ext.len(),
                }
            }
            _ => {
                let name = self.as_str();
                let stem = name.rfind('.').unwrap_or(name.len());
                SegmentName::Heap(format!("{}{ext}", &name[..stem]))
            }
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        match self {
            // Only ASCII digits and '/' were added to a valid &str.
            SegmentName::Stack { buf, len, .. } => {
                std::str::from_utf8(&buf[..*len]).expect("built from a str and ASCII")
            }
            SegmentName::Heap(s) => s,
        }
    }
}

pub fn log_file(dir: &str, base_offset: i64) -> String {
    segment_file(dir, base_offset, ".log")
}

pub fn index_file(dir: &str, base_offset: i64) -> String {
    segment_file(dir, base_offset, ".index")
}

pub fn time_index_file(dir: &str, base_offset: i64) -> String {
    segment_file(dir, base_offset, ".timeindex")
}

/// The aborted-transaction index; it exists only once an entry is written.
pub fn txn_index_file(dir: &str, base_offset: i64) -> String {
    segment_file(dir, base_offset, ".txnindex")
}

#[cfg(test)]
mod tests {
    #[test]
    fn stack_names_equal_the_heap_ones() {
        let long = "t".repeat(240) + "-7";
        for dir in ["first-0", "a-12", long.as_str()] {
            for base in [0, 42, 1_000_000, i64::MAX] {
                for ext in [".log", ".index", ".timeindex", ".txnindex"] {
                    let name = super::SegmentName::new(dir, base, ext);
                    assert_eq!(name.as_str(), super::segment_file(dir, base, ext));
                    // Another extension on the same segment, either way round.
                    for other in [".log", ".index", ".timeindex", ".txnindex"] {
                        let sibling = name.with_ext(other);
                        assert_eq!(sibling.as_str(), super::segment_file(dir, base, other));
                    }
                }
            }
        }
    }

    #[test]
    fn file_names_are_twenty_digit_base_offsets() {
        assert_eq!(
            super::log_file("first-0", 0),
            "first-0/00000000000000000000.log"
        );
        assert_eq!(
            super::time_index_file("t-3", 368_769),
            "t-3/00000000000000368769.timeindex"
        );
    }
}
