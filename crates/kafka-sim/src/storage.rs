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
