//! A partition's log: segments, append, roll, read, truncation, retention and
//! the traced lookups (Kafka's `LogSegment`, `LocalLog` and `UnifiedLog`).
//!
//! What follows Kafka exactly (3.9):
//! * **Index entries** (`LogSegment.append`): after appending a message set at
//!   `physicalPosition`, if more than `index.interval.bytes` were appended since
//!   the last entry, write `(largest offset of the set, physicalPosition)` to the
//!   offset index and `(max timestamp so far, its offset)` to the time index
//!   (only if the timestamp grew); then count the set's bytes.
//! * **Rolling** (`LogSegment.shouldRoll`): roll before an append when the
//!   segment would pass `segment.bytes`, when it is non-empty and
//!   `segment.ms` has passed since its first batch's timestamp, when either
//!   index is full (`segment.index.bytes`), or when the offset would not fit in
//!   4 bytes relative to the base offset. The retiring segment gets a final
//!   time-index entry (`onBecomeInactiveSegment`).
//! * **Retention** (`UnifiedLog.deleteOldSegments`): three passes in order —
//!   log start offset breach, `retention.bytes`, `retention.ms` — each deleting
//!   whole segments from the oldest, never a segment that reaches beyond the
//!   high watermark, never an empty active segment. Current Kafka *does* delete
//!   the active segment once it is wholly expired and below the high watermark:
//!   it rolls a new empty segment first. Deleted files are renamed `.deleted`
//!   and removed after `file.delete.delay.ms`.
//!
//! What is simplified: reads return whole batches (Kafka may cut the last batch
//! of a fetch mid-way and let the client drop the fragment); the leader epoch
//! cache keeps only what KIP-101 truncation needs.

use super::index::{self, IndexEntry, IndexKind, Probe};
use super::paged::{FileReader, Storage, StorageError};
use super::record::{self, BatchHeader, RECORD_BATCH_OVERHEAD};
use super::txn_index::{self, AbortedTxn, ABORTED_TXN_SIZE};
use super::{index_file, log_file, time_index_file, txn_index_file, DecodeError, SegmentName};
use crate::config::LogConfig;
use crate::ids::TopicPartition;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

mod lookup;
pub use lookup::{Lookup, LookupStep};
mod recovery;
mod retention;
pub use retention::{DeletedSegment, RetentionApplied, RetentionPass, RetentionPlan};
mod truncate;

/// One segment's bookkeeping (the bytes live in the [`Storage`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment {
    pub base_offset: i64,
    /// Bytes in the `.log` file.
    pub size: u64,
    pub index_entries: u64,
    pub time_index_entries: u64,
    /// Offset of the last offset-index entry (entries must grow).
    pub last_index_offset: Option<i64>,
    /// Last time-index entry: `(timestamp, offset)`; `(-1, base)` when empty.
    pub last_time_entry: (i64, i64),
    /// `maxTimestampAndOffsetSoFar`: `(-1, -1)` until a batch is appended.
    pub max_timestamp_so_far: i64,
    pub offset_of_max_timestamp: i64,
    pub bytes_since_last_index_entry: u64,
    /// Timestamp used for `segment.ms` rolling: the first batch's max timestamp.
    pub rolling_based_timestamp: Option<i64>,
    /// Wall-clock creation time (used for `segment.ms` when batches carry no timestamp).
    pub created_ms: i64,
    /// One past the last offset stored here (= base offset when empty).
    pub next_offset: i64,
    /// Entries in `.txnindex` (the file exists only when this is above 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub txn_index_entries: u64,
    /// The last offset of the last `.txnindex` entry (they must grow).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub txn_last_offset: Option<i64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Segment {
    /// One entry appended to this segment's `.txnindex` in `dir`, created on
    /// the first. Kafka refuses an entry whose last offset does not grow
    /// (`TransactionIndex.append`); so does this.
    pub(crate) fn append_aborted_txn<S: Storage>(
        &mut self,
        store: &mut S,
        dir: &str,
        txn: AbortedTxn,
    ) -> Result<(), String> {
        let file = txn_index_file(dir, self.base_offset);
        if let Some(prev) = self.txn_last_offset {
            if prev >= txn.last_offset {
                return Err(format!(
                    "the last offset of appended transactions must increase, but {} is not greater than {prev} in {file}",
                    txn.last_offset
                ));
            }
        }
        if !store.exists(&file) {
            store.create(&file).map_err(|e| e.to_string())?;
        }
        store
            .append(&file, &txn.encode())
            .map_err(|e| e.to_string())?;
        self.txn_index_entries += 1;
        self.txn_last_offset = Some(txn.last_offset);
        Ok(())
    }

    pub(crate) fn new(base_offset: i64, now_ms: i64) -> Segment {
        Segment {
            base_offset,
            size: 0,
            index_entries: 0,
            time_index_entries: 0,
            last_index_offset: None,
            last_time_entry: (-1, base_offset),
            max_timestamp_so_far: -1,
            offset_of_max_timestamp: -1,
            bytes_since_last_index_entry: 0,
            rolling_based_timestamp: None,
            created_ms: now_ms,
            next_offset: base_offset,
            txn_index_entries: 0,
            txn_last_offset: None,
        }
    }

    /// `largestTimestamp`: the max record timestamp, else the last-modified time.
    pub fn largest_timestamp(&self) -> i64 {
        if self.max_timestamp_so_far >= 0 {
            self.max_timestamp_so_far
        } else {
            self.created_ms
        }
    }

    fn can_convert_to_relative(&self, offset: i64) -> bool {
        let rel = offset - self.base_offset;
        (0..=i32::MAX as i64).contains(&rel)
    }
}

/// An entry of the leader epoch cache (`leader-epoch-checkpoint`, KIP-101).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EpochEntry {
    pub epoch: i32,
    pub start_offset: i64,
}

/// Files renamed `.deleted`, waiting for `file.delete.delay.ms`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingDelete {
    pub files: Vec<String>,
    pub delete_at_ms: u64,
}

/// Why an append was refused (Kafka's error codes, as data).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "error")]
pub enum AppendError {
    /// `CORRUPT_MESSAGE`: a batch failed validation (CRC, magic, length).
    CorruptMessage { detail: String },
    /// `RECORD_LIST_TOO_LARGE` / `MESSAGE_TOO_LARGE`: bigger than a segment.
    RecordTooLarge { size: u64, segment_bytes: u64 },
    /// A follower received batches that do not start at its log end offset.
    OutOfOrderOffsets { expected: i64, got: i64 },
    /// An empty request.
    Empty,
}

impl fmt::Display for AppendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppendError::CorruptMessage { detail } => write!(f, "CORRUPT_MESSAGE: {detail}"),
            AppendError::RecordTooLarge {
                size,
                segment_bytes,
            } => write!(
                f,
                "RECORD_LIST_TOO_LARGE: {size} bytes do not fit in a segment of segment.bytes={segment_bytes}"
            ),
            AppendError::OutOfOrderOffsets { expected, got } => {
                write!(f, "out of order offsets: expected {expected}, got {got}")
            }
            AppendError::Empty => write!(f, "no record batches to append"),
        }
    }
}

impl From<DecodeError> for AppendError {
    fn from(e: DecodeError) -> Self {
        AppendError::CorruptMessage {
            detail: e.to_string(),
        }
    }
}

/// One batch of a prepared append.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchInfo {
    pub base_offset: i64,
    pub last_offset: i64,
    pub records: i32,
    pub size: u64,
    pub max_timestamp: i64,
    pub partition_leader_epoch: i32,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    /// Written inside a transaction.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub transactional: bool,
    /// The COMMIT or ABORT marker, when this is a control batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marker: Option<record::EndTxnMarker>,
}

impl BatchInfo {
    fn from_header(h: &BatchHeader) -> BatchInfo {
        BatchInfo {
            transactional: h.is_transactional(),
            marker: None,
            base_offset: h.base_offset,
            last_offset: h.last_offset(),
            records: h.records_count,
            size: h.size_in_bytes(),
            max_timestamp: h.max_timestamp,
            partition_leader_epoch: h.partition_leader_epoch,
            producer_id: h.producer_id,
            producer_epoch: h.producer_epoch,
            base_sequence: h.base_sequence,
        }
    }
}

/// A validated message set with offsets assigned, ready to be appended
/// (Kafka's `LogAppendInfo` + the validated `MemoryRecords`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreparedAppend {
    pub bytes: Vec<u8>,
    pub batches: Vec<BatchInfo>,
    pub first_offset: i64,
    pub last_offset: i64,
    pub max_timestamp: i64,
    /// The shallow offset (batch last offset) of the max timestamp.
    pub offset_of_max_timestamp: i64,
}

impl PreparedAppend {
    fn from_batches(
        bytes: Vec<u8>,
        headers: &[(usize, BatchHeader)],
    ) -> Result<PreparedAppend, AppendError> {
        let mut batches = Vec::with_capacity(headers.len());
        for (pos, h) in headers {
            let mut info = BatchInfo::from_header(h);
            // Only a producer's control batch is a transaction marker
            // (`UnifiedLog.analyzeAndValidateProducerState` looks at batches
            // with a producer id); KRaft's LeaderChange has none.
            if h.is_control() && h.has_producer_id() {
                let end = *pos + h.size_in_bytes() as usize;
                let decoded = record::decode_batch(&bytes[*pos..end], *pos as u64)?;
                info.marker =
                    record::marker_of(&decoded).map_err(|detail| AppendError::CorruptMessage {
                        detail: format!("control batch at offset {}: {detail}", h.base_offset),
                    })?;
            }
            batches.push(info);
        }
        let mut max_ts = -1;
        let mut off_max = -1;
        for (_, h) in headers {
            if h.max_timestamp > max_ts {
                max_ts = h.max_timestamp;
                off_max = h.last_offset();
            }
        }
        Ok(PreparedAppend {
            first_offset: headers[0].1.base_offset,
            last_offset: headers[headers.len() - 1].1.last_offset(),
            batches,
            bytes,
            max_timestamp: max_ts,
            offset_of_max_timestamp: off_max,
        })
    }
}

/// Why the active segment is rolled (`shouldRoll`'s conditions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RollReason {
    /// The append would take the segment past `segment.bytes`.
    SegmentBytes,
    /// `segment.ms` has passed since the segment's first batch.
    SegmentMs,
    /// The offset index is full (`segment.index.bytes`).
    OffsetIndexFull,
    /// The time index is full.
    TimeIndexFull,
    /// An offset would not fit in 4 bytes relative to the base offset.
    RelativeOffsetOverflow,
    /// Retention is deleting every segment, the active one included.
    Retention,
}

/// What a roll did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RollInfo {
    pub reason: RollReason,
    pub old_base_offset: i64,
    pub new_base_offset: i64,
    /// The final time-index entry written to the retiring segment, if any.
    pub final_time_index_entry: Option<(i64, i64)>,
}

/// What an append did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Appended {
    pub segment_base_offset: i64,
    pub position: u64,
    pub size: u64,
    pub first_offset: i64,
    pub last_offset: i64,
    pub batches: Vec<BatchInfo>,
    /// `(offset, position)` written to `.index`, if the interval was passed.
    pub index_entry: Option<(i64, u64)>,
    /// `(timestamp, offset)` written to `.timeindex`, if any.
    pub time_index_entry: Option<(i64, i64)>,
    /// Bytes since the last index entry, after this append.
    pub bytes_since_last_index_entry: u64,
    pub log_end_offset: i64,
}

/// `OFFSET_OUT_OF_RANGE`, as data.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OffsetOutOfRange {
    pub requested: i64,
    pub log_start_offset: i64,
    pub log_end_offset: i64,
}

/// Batches read for a fetch.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FetchData {
    pub bytes: Vec<u8>,
    pub batches: Vec<BatchInfo>,
}

/// What a truncation did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Truncated {
    pub to_offset: i64,
    pub old_log_end_offset: i64,
    pub bytes_removed: u64,
    pub segments_removed: Vec<i64>,
}

/// Appends a time-index entry if the timestamp grew (`TimeIndex.maybeAppend`).
fn time_index_maybe_append<S: Storage>(
    store: &mut S,
    dir: &str,
    seg: &mut Segment,
    timestamp: i64,
    offset: i64,
) -> Result<Option<(i64, i64)>, StorageError> {
    if timestamp > seg.last_time_entry.0 && offset >= seg.last_time_entry.1 {
        let rel = (offset - seg.base_offset) as i32;
        store.append(
            &time_index_file(dir, seg.base_offset),
            &index::encode_time_entry(timestamp, rel),
        )?;
        seg.time_index_entries += 1;
        seg.last_time_entry = (timestamp, offset);
        return Ok(Some((timestamp, offset)));
    }
    Ok(None)
}

/// The index entries an append wrote: `(offset, position)` in `.index`,
/// `(timestamp, offset)` in `.timeindex`.
pub type IndexWrites = (Option<(i64, u64)>, Option<(i64, i64)>);

/// What `LogSegment.append` is given: the batches' bytes and, over them,
/// the largest offset, the largest timestamp and the offset that has it.
pub(crate) struct MessageSet<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) largest_offset: i64,
    pub(crate) largest_timestamp: i64,
    pub(crate) offset_of_max_timestamp: i64,
}

/// `LogSegment.append`: the message set goes at the end of `.log`; then, if
/// more than `index_interval` bytes were appended since the last index entry,
/// `(largest offset, position of this set)` goes into `.index` and the max
/// timestamp so far into `.timeindex`. Returns the entries written.
pub(crate) fn segment_append<S: Storage>(
    store: &mut S,
    dir: &str,
    seg: &mut Segment,
    set: MessageSet<'_>,
    index_interval: u64,
) -> Result<IndexWrites, StorageError> {
    let MessageSet {
        bytes,
        largest_offset,
        largest_timestamp,
        offset_of_max_timestamp,
    } = set;
    let physical_position = seg.size;
    if physical_position == 0 {
        seg.rolling_based_timestamp = Some(largest_timestamp);
    }
    store.append(&log_file(dir, seg.base_offset), bytes)?;
    seg.size += bytes.len() as u64;
    if largest_timestamp > seg.max_timestamp_so_far {
        seg.max_timestamp_so_far = largest_timestamp;
        seg.offset_of_max_timestamp = offset_of_max_timestamp;
    }
    let mut index_entry = None;
    let mut time_index_entry = None;
    if seg.bytes_since_last_index_entry > index_interval {
        if seg.last_index_offset.is_none_or(|o| largest_offset > o) {
            let rel = (largest_offset - seg.base_offset) as i32;
            store.append(
                &index_file(dir, seg.base_offset),
                &index::encode_offset_entry(rel, physical_position as i32),
            )?;
            seg.index_entries += 1;
            seg.last_index_offset = Some(largest_offset);
            index_entry = Some((largest_offset, physical_position));
        }
        let (ts, off) = (seg.max_timestamp_so_far, seg.offset_of_max_timestamp);
        time_index_entry = time_index_maybe_append(store, dir, seg, ts, off)?;
        seg.bytes_since_last_index_entry = 0;
    }
    seg.bytes_since_last_index_entry += bytes.len() as u64;
    seg.next_offset = largest_offset + 1;
    Ok((index_entry, time_index_entry))
}

/// A partition's log on one broker.
#[derive(Clone, Debug)]
pub struct Log {
    pub tp: TopicPartition,
    /// The directory: `topic-partition`.
    pub dir: String,
    pub config: Arc<LogConfig>,
    /// Ascending by base offset; never empty. The last one is active.
    pub segments: Vec<Segment>,
    pub log_start_offset: i64,
    pub log_end_offset: i64,
    pub epochs: Vec<EpochEntry>,
    /// The cleaner's checkpoint: where the dirty (uncleaned) part starts.
    pub first_dirty_offset: i64,
    pub pending_deletes: Vec<PendingDelete>,
    /// Everything below this offset is on disk; above it only in the page
    /// cache (lost on a power failure).
    pub flushed_offset: i64,
}

impl Log {
    /// Creates an empty log with its first segment at offset 0.
    pub fn create<S: Storage>(
        store: &mut S,
        tp: TopicPartition,
        config: Arc<LogConfig>,
        now_ms: i64,
    ) -> Result<Log, StorageError> {
        let dir = tp.to_string();
        let mut log = Log {
            tp,
            dir,
            config,
            segments: Vec::new(),
            log_start_offset: 0,
            log_end_offset: 0,
            epochs: Vec::new(),
            first_dirty_offset: 0,
            pending_deletes: Vec::new(),
            flushed_offset: 0,
        };
        log.create_segment_files(store, 0)?;
        log.segments.push(Segment::new(0, now_ms));
        Ok(log)
    }

    pub(crate) fn create_segment_files<S: Storage>(
        &self,
        store: &mut S,
        base: i64,
    ) -> Result<(), StorageError> {
        for f in [
            log_file(&self.dir, base),
            index_file(&self.dir, base),
            time_index_file(&self.dir, base),
        ] {
            if store.exists(&f) {
                store.delete(&f)?;
            }
            store.create(&f)?;
        }
        Ok(())
    }

    /// The files of the segment at `base`: `.log`, `.index`, `.timeindex`,
    /// and `.txnindex` when it has one.
    pub(crate) fn segment_files<S: Storage>(&self, store: &S, base: i64) -> Vec<String> {
        let mut files = vec![
            log_file(&self.dir, base),
            index_file(&self.dir, base),
            time_index_file(&self.dir, base),
        ];
        let txn = txn_index_file(&self.dir, base);
        if store.exists(&txn) {
            files.push(txn);
        }
        files
    }

    /// `LogSegment.updateTxnIndex` for an aborted transaction whose marker
    /// went into the active segment (see [`Segment::append_aborted_txn`]).
    pub fn append_aborted_txn<S: Storage>(
        &mut self,
        store: &mut S,
        txn: AbortedTxn,
    ) -> Result<(), String> {
        let last = self.segments.len() - 1;
        self.segments[last].append_aborted_txn(store, &self.dir, txn)
    }

    /// The entries of one segment's `.txnindex` (none when it has no file).
    pub fn aborted_txns_of<S: Storage>(
        &self,
        store: &S,
        seg: &Segment,
    ) -> Result<Vec<AbortedTxn>, DecodeError> {
        if seg.txn_index_entries == 0 {
            return Ok(Vec::new());
        }
        let bytes = store
            .read_all(&txn_index_file(&self.dir, seg.base_offset))
            .map_err(|e| DecodeError {
                position: 0,
                field: "txnindex file",
                message: e.to_string(),
            })?;
        txn_index::decode_txn_index(&bytes)
    }

    /// `LocalLog.collectAbortedTransactions`: the aborted transactions that
    /// overlap `[start_offset, upper_bound)`, from the segment holding
    /// `start_offset` onwards until an entry's LSO reaches the bound (what a
    /// `read_committed` fetch returns beside its records).
    pub fn collect_aborted_transactions<S: Storage>(
        &self,
        store: &S,
        start_offset: i64,
        upper_bound: i64,
    ) -> Result<Vec<AbortedTxn>, DecodeError> {
        let first = self
            .segments
            .iter()
            .rposition(|s| s.base_offset <= start_offset)
            .unwrap_or(0);
        let mut out = Vec::new();
        for seg in &self.segments[first..] {
            let entries = self.aborted_txns_of(store, seg)?;
            let (found, complete) =
                txn_index::collect_aborted_txns(&entries, start_offset, upper_bound);
            out.extend(found);
            if complete {
                break;
            }
        }
        Ok(out)
    }

    pub fn active(&self) -> &Segment {
        self.segments.last().expect("a log always has a segment")
    }

    /// Total bytes of `.log` files (Kafka's `UnifiedLog.size`).
    pub fn size(&self) -> u64 {
        self.segments.iter().map(|s| s.size).sum()
    }

    pub fn max_index_entries(&self) -> u64 {
        self.config.segment_index_bytes / index::OFFSET_INDEX_ENTRY_SIZE
    }

    pub fn max_time_index_entries(&self) -> u64 {
        self.config.segment_index_bytes / index::TIME_INDEX_ENTRY_SIZE
    }

    /// Validates a producer's message set and assigns offsets from the log end
    /// offset, stamping the leader epoch (`LogValidator`, uncompressed path).
    pub fn prepare_leader_append(
        &self,
        mut bytes: Vec<u8>,
        leader_epoch: i32,
        now_ms: i64,
    ) -> Result<PreparedAppend, AppendError> {
        if bytes.is_empty() {
            return Err(AppendError::Empty);
        }
        let mut headers = record::split_batches(&bytes)?;
        let total = bytes.len() as u64;
        if total > self.config.segment_bytes {
            return Err(AppendError::RecordTooLarge {
                size: total,
                segment_bytes: self.config.segment_bytes,
            });
        }
        let log_append_time =
            self.config.message_timestamp_type == crate::config::TimestampType::LogAppendTime;
        let mut next = self.log_end_offset;
        for (pos, h) in headers.iter_mut() {
            let end = *pos + h.size_in_bytes() as usize;
            let slice = &mut bytes[*pos..end];
            record::set_base_offset(slice, next);
            record::set_partition_leader_epoch(slice, leader_epoch);
            if log_append_time {
                record::set_log_append_time(slice, now_ms);
            }
            *h = record::read_header(slice, *pos as u64)?;
            next = h.next_offset();
        }
        PreparedAppend::from_batches(bytes, &headers)
    }

    /// Validates batches fetched from the leader (offsets already assigned).
    pub fn prepare_follower_append(&self, bytes: Vec<u8>) -> Result<PreparedAppend, AppendError> {
        if bytes.is_empty() {
            return Err(AppendError::Empty);
        }
        let headers = record::split_batches(&bytes)?;
        let first = headers[0].1.base_offset;
        if first < self.log_end_offset {
            return Err(AppendError::OutOfOrderOffsets {
                expected: self.log_end_offset,
                got: first,
            });
        }
        PreparedAppend::from_batches(bytes, &headers)
    }

    /// `LogSegment.shouldRoll` for the active segment before appending `p`.
    pub fn roll_reason(&self, p: &PreparedAppend, now_ms: i64) -> Option<RollReason> {
        let seg = self.active();
        let size = seg.size as i64;
        let messages = p.bytes.len() as i64;
        let waited = match seg.rolling_based_timestamp {
            Some(ts) if ts >= 0 => p.max_timestamp - ts,
            _ => now_ms - seg.created_ms,
        };
        if size > self.config.segment_bytes as i64 - messages {
            Some(RollReason::SegmentBytes)
        } else if size > 0 && waited > self.config.segment_ms as i64 {
            Some(RollReason::SegmentMs)
        } else if seg.index_entries >= self.max_index_entries() {
            Some(RollReason::OffsetIndexFull)
        } else if seg.time_index_entries >= self.max_time_index_entries() {
            Some(RollReason::TimeIndexFull)
        } else if !seg.can_convert_to_relative(p.last_offset) {
            Some(RollReason::RelativeOffsetOverflow)
        } else {
            None
        }
    }

    /// `roll`: retires the active segment and starts a new one at
    /// `max(expected_next_offset, log end offset)`.
    pub fn roll<S: Storage>(
        &mut self,
        store: &mut S,
        reason: RollReason,
        expected_next_offset: Option<i64>,
        now_ms: i64,
    ) -> Result<RollInfo, StorageError> {
        let new_base = expected_next_offset.unwrap_or(0).max(self.log_end_offset);
        let old_base = self.active().base_offset;
        if old_base == new_base && self.active().size == 0 {
            // Kafka deletes and recreates an empty active segment at the same offset.
            self.create_segment_files(store, new_base)?;
            let last = self.segments.len() - 1;
            self.segments[last] = Segment::new(new_base, now_ms);
            return Ok(RollInfo {
                reason,
                old_base_offset: old_base,
                new_base_offset: new_base,
                final_time_index_entry: None,
            });
        }
        // onBecomeInactiveSegment: the biggest timestamp seen goes into the time index.
        let last = self.segments.len() - 1;
        let (ts, off) = (
            self.segments[last].max_timestamp_so_far,
            self.segments[last].offset_of_max_timestamp,
        );
        let final_entry = if ts >= 0 {
            time_index_maybe_append(store, &self.dir, &mut self.segments[last], ts, off)?
        } else {
            None
        };
        self.create_segment_files(store, new_base)?;
        self.segments.push(Segment::new(new_base, now_ms));
        Ok(RollInfo {
            reason,
            old_base_offset: old_base,
            new_base_offset: new_base,
            final_time_index_entry: final_entry,
        })
    }

    /// `LogSegment.append` on the active segment (call [`Log::roll_reason`] and
    /// [`Log::roll`] first).
    pub fn append<S: Storage>(
        &mut self,
        store: &mut S,
        p: &PreparedAppend,
    ) -> Result<Appended, StorageError> {
        let interval = self.config.index_interval_bytes;
        let last = self.segments.len() - 1;
        let position = self.segments[last].size;
        let (index_entry, time_index_entry) = segment_append(
            store,
            &self.dir,
            &mut self.segments[last],
            MessageSet {
                bytes: &p.bytes,
                largest_offset: p.last_offset,
                largest_timestamp: p.max_timestamp,
                offset_of_max_timestamp: p.offset_of_max_timestamp,
            },
            interval,
        )?;
        self.log_end_offset = p.last_offset + 1;
        for b in &p.batches {
            if b.partition_leader_epoch >= 0 {
                self.assign_epoch(b.partition_leader_epoch, b.base_offset);
            }
        }
        let seg = &self.segments[last];
        Ok(Appended {
            segment_base_offset: seg.base_offset,
            position,
            size: p.bytes.len() as u64,
            first_offset: p.first_offset,
            last_offset: p.last_offset,
            batches: p.batches.clone(),
            index_entry,
            time_index_entry,
            bytes_since_last_index_entry: seg.bytes_since_last_index_entry,
            log_end_offset: self.log_end_offset,
        })
    }

    /// Roll if needed, then append: the whole of `UnifiedLog.append` after
    /// validation. Returns the roll (if any) and the append.
    pub fn roll_and_append<S: Storage>(
        &mut self,
        store: &mut S,
        p: &PreparedAppend,
        now_ms: i64,
    ) -> Result<(Option<RollInfo>, Appended), StorageError> {
        let rolled = match self.roll_reason(p, now_ms) {
            Some(reason) => Some(self.roll(store, reason, Some(p.first_offset), now_ms)?),
            None => None,
        };
        Ok((rolled, self.append(store, p)?))
    }

    /// Leader epoch cache: record that `epoch` starts at `start_offset`.
    pub fn assign_epoch(&mut self, epoch: i32, start_offset: i64) {
        match self.epochs.last() {
            Some(last) if last.epoch >= epoch => {}
            _ => self.epochs.push(EpochEntry {
                epoch,
                start_offset,
            }),
        }
    }

    pub fn latest_epoch(&self) -> Option<i32> {
        self.epochs.last().map(|e| e.epoch)
    }

    /// `LeaderEpochFileCache.endOffsetFor(epoch)` (KIP-101): the largest epoch
    /// ≤ the requested one and the offset where the next epoch began; for the
    /// latest epoch, the log end offset; for an epoch older than all known,
    /// the requested epoch and the start of the first later one; `(-1, -1)`
    /// when nothing is known.
    pub fn end_offset_for_epoch(&self, requested: i32) -> (i32, i64) {
        if requested < 0 {
            return (-1, -1);
        }
        if self.latest_epoch() == Some(requested) {
            return (requested, self.log_end_offset);
        }
        let Some(higher) = self.epochs.iter().find(|e| e.epoch > requested) else {
            return (-1, -1);
        };
        match self.epochs.iter().rev().find(|e| e.epoch <= requested) {
            None => (requested, higher.start_offset),
            Some(floor) => (floor.epoch, higher.start_offset),
        }
    }

    /// Reads the batch header at `position` of a segment's `.log`.
    pub fn header_at<S: Storage>(
        &self,
        store: &S,
        base: i64,
        position: u64,
    ) -> Result<BatchHeader, DecodeError> {
        let name = log_file(&self.dir, base);
        let file = store.reader(&name).map_err(|e| DecodeError {
            position,
            field: "batch header",
            message: e.to_string(),
        })?;
        header_in(&file, position)
    }

    fn segment_index_for(&self, offset: i64) -> Option<usize> {
        // floor entry by base offset
        match self
            .segments
            .binary_search_by(|s| s.base_offset.cmp(&offset))
        {
            Ok(i) => Some(i),
            Err(0) => None,
            Err(i) => Some(i - 1),
        }
    }

    /// Position of the first batch in segment `ix` whose last offset is ≥
    /// `offset` (`translateOffset`), scanning from the index's answer.
    fn translate_offset<S: Storage>(
        &self,
        store: &S,
        ix: usize,
        offset: i64,
    ) -> Result<Option<u64>, StorageError> {
        let seg = &self.segments[ix];
        let index_name = index_file(&self.dir, seg.base_offset);
        let log_name = log_file(&self.dir, seg.base_offset);
        self.translate_in(
            &store.reader(&index_name)?,
            &store.reader(&log_name)?,
            ix,
            offset,
        )
    }

    /// [`Log::translate_offset`] on files already opened: no probe is
    /// recorded (the traced walk is `lookup_offset`, for the learner).
    fn translate_in(
        &self,
        index: &FileReader,
        log: &FileReader,
        ix: usize,
        offset: i64,
    ) -> Result<Option<u64>, StorageError> {
        let seg = &self.segments[ix];
        let slot = index::largest_lower_bound_in(
            index,
            IndexKind::Offset,
            seg.base_offset,
            seg.index_entries,
            offset,
        )?;
        let mut pos = match slot {
            Some(s) => {
                index::read_entry_in(index, IndexKind::Offset, seg.base_offset, s)?.value as u64
            }
            None => 0,
        };
        while pos < seg.size {
            let (last_offset, size) = span_in(log, pos).map_err(|e| StorageError::OutOfBounds {
                file: format!("{} ({e})", log_file(&self.dir, seg.base_offset)),
                position: pos,
                len: 0,
                file_len: seg.size,
            })?;
            if last_offset >= offset {
                return Ok(Some(pos));
            }
            pos += size;
        }
        Ok(None)
    }

    /// Where the batch holding `offset` (or the next one) starts: its
    /// segment's base offset and its position in that `.log`. The
    /// simulation's own path, untraced; [`Log::lookup_offset`] walks the
    /// same search step by step.
    pub fn locate<S: Storage>(&self, store: &S, offset: i64) -> Option<(i64, u64)> {
        if offset < self.log_start_offset || offset >= self.log_end_offset {
            return None;
        }
        let mut ix = self.segment_index_for(offset)?;
        let mut first = true;
        while ix < self.segments.len() {
            let seg = &self.segments[ix];
            let log_name = SegmentName::new(&self.dir, seg.base_offset, ".log");
            let log = store.reader(log_name.as_str()).ok()?;
            let found = if first {
                let index_name = log_name.with_ext(".index");
                let index = store.reader(index_name.as_str()).ok()?;
                self.translate_in(&index, &log, ix, offset).ok()?
            } else if seg.size > 0 {
                span_in(&log, 0).ok().map(|_| 0)
            } else {
                None
            };
            if let Some(pos) = found {
                return Some((seg.base_offset, pos));
            }
            first = false;
            ix += 1;
        }
        None
    }

    /// Reads whole batches starting with the one that holds `start_offset` (or
    /// the next surviving one), stopping before `max_offset` (exclusive: the
    /// high watermark for consumers, the log end offset for followers) and
    /// after `max_bytes` (at least one batch when `min_one_message`).
    pub fn read<S: Storage>(
        &self,
        store: &S,
        start_offset: i64,
        max_bytes: u64,
        max_offset: i64,
        min_one_message: bool,
    ) -> Result<FetchData, OffsetOutOfRange> {
        if start_offset > self.log_end_offset || start_offset < self.log_start_offset {
            return Err(OffsetOutOfRange {
                requested: start_offset,
                log_start_offset: self.log_start_offset,
                log_end_offset: self.log_end_offset,
            });
        }
        let mut out = FetchData::default();
        if start_offset >= max_offset {
            return Ok(out);
        }
        let Some(mut ix) = self.segment_index_for(start_offset) else {
            return Ok(out);
        };
        let mut first = true;
        loop {
            let seg = &self.segments[ix];
            let log_name = SegmentName::new(&self.dir, seg.base_offset, ".log");
            let Ok(log) = store.reader(log_name.as_str()) else {
                return Ok(out);
            };
            let start = if first {
                let index_name = log_name.with_ext(".index");
                match store
                    .reader(index_name.as_str())
                    .and_then(|index| self.translate_in(&index, &log, ix, start_offset))
                {
                    Ok(Some(p)) => Some(p),
                    _ => None,
                }
            } else {
                Some(0)
            };
            first = false;
            if let Some(mut pos) = start {
                while pos < seg.size {
                    let Ok(h) = header_in(&log, pos) else {
                        return Ok(out);
                    };
                    if h.last_offset() >= max_offset {
                        return Ok(out);
                    }
                    let size = h.size_in_bytes();
                    let over = out.bytes.len() as u64 + size > max_bytes;
                    if over && !(min_one_message && out.batches.is_empty()) {
                        return Ok(out);
                    }
                    let at = out.bytes.len();
                    out.bytes.resize(at + size as usize, 0);
                    if log.read_into(pos, &mut out.bytes[at..]).is_err() {
                        out.bytes.truncate(at);
                        return Ok(out);
                    }
                    out.batches.push(BatchInfo::from_header(&h));
                    pos += size;
                }
            }
            ix += 1;
            if ix >= self.segments.len() {
                return Ok(out);
            }
        }
    }
}

/// The last offset and the size of the batch at `position` of an opened
/// `.log`: all a scan for an offset needs. They are in the header's first
/// 27 bytes, which a read touches in one cache line more often than the
/// whole 61; it fails where [`header_in`] fails, with the same error.
fn span_in(log: &FileReader, position: u64) -> Result<(i64, u64), DecodeError> {
    if position.saturating_add(RECORD_BATCH_OVERHEAD as u64) <= log.len() {
        if let Some(span) = log
            .slice(position, record::SPAN_BYTES)
            .and_then(record::read_span)
        {
            return Ok(span);
        }
    }
    header_in(log, position).map(|h| (h.last_offset(), h.size_in_bytes()))
}

/// Reads the batch header at `position` of an opened `.log`.
fn header_in(log: &FileReader, position: u64) -> Result<BatchHeader, DecodeError> {
    if let Some(bytes) = log.slice(position, RECORD_BATCH_OVERHEAD) {
        return record::read_header(bytes, position);
    }
    let mut buf = [0u8; RECORD_BATCH_OVERHEAD];
    log.read_into(position, &mut buf).map_err(|e| DecodeError {
        position,
        field: "batch header",
        message: e.to_string(),
    })?;
    record::read_header(&buf, position)
}

#[cfg(test)]
mod tests;
