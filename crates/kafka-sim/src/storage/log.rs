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
use super::paged::{Storage, StorageError};
use super::record::{self, BatchHeader, RECORD_BATCH_OVERHEAD};
use super::{index_file, log_file, time_index_file, DecodeError};
use crate::config::LogConfig;
use crate::ids::TopicPartition;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

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
}

impl Segment {
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
}

impl BatchInfo {
    fn from_header(h: &BatchHeader) -> BatchInfo {
        BatchInfo {
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
    fn from_batches(bytes: Vec<u8>, headers: &[(usize, BatchHeader)]) -> PreparedAppend {
        let mut max_ts = -1;
        let mut off_max = -1;
        for (_, h) in headers {
            if h.max_timestamp > max_ts {
                max_ts = h.max_timestamp;
                off_max = h.last_offset();
            }
        }
        PreparedAppend {
            first_offset: headers[0].1.base_offset,
            last_offset: headers[headers.len() - 1].1.last_offset(),
            batches: headers
                .iter()
                .map(|(_, h)| BatchInfo::from_header(h))
                .collect(),
            bytes,
            max_timestamp: max_ts,
            offset_of_max_timestamp: off_max,
        }
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

/// The three retention passes, in Kafka's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RetentionPass {
    LogStartOffset,
    RetentionBytes,
    RetentionMs,
}

/// Segments a retention pass will delete.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetentionPlan {
    pub pass: RetentionPass,
    pub segments: Vec<i64>,
    /// Every segment goes, so a new active segment is rolled first.
    pub roll_first: bool,
    /// Why, in numbers (largest timestamp vs the cutoff, or size vs the limit).
    pub detail: String,
}

/// What a retention pass did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetentionApplied {
    pub pass: RetentionPass,
    pub rolled: Option<RollInfo>,
    pub deleted: Vec<DeletedSegment>,
    pub log_start_offset: i64,
    pub detail: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeletedSegment {
    pub base_offset: i64,
    pub next_offset: i64,
    pub size: u64,
    pub largest_timestamp: i64,
}

/// One step of a traced lookup (S3, S4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum LookupStep {
    /// Binary search over the segments' base offsets (Kafka keeps them in a
    /// skip-list map and asks for the floor entry: the same answer).
    SegmentProbe {
        lo: u32,
        hi: u32,
        mid: u32,
        base_offset: i64,
        cmp: i8,
    },
    /// Timestamp lookups take the first segment whose largest timestamp is ≥ the target.
    SegmentTimestampCheck {
        base_offset: i64,
        largest_timestamp: i64,
        matches: bool,
    },
    SegmentChosen {
        base_offset: i64,
        index_entries: u64,
        time_index_entries: u64,
        size: u64,
    },
    IndexProbe {
        kind: IndexKind,
        probe: Probe,
    },
    /// The index search's answer: the entry used, or none (start of the file).
    IndexResult {
        kind: IndexKind,
        entry: Option<IndexEntry>,
        /// Where the scan of `.log` starts.
        start_position: u64,
    },
    BatchScanned {
        position: u64,
        base_offset: i64,
        last_offset: i64,
        size: u64,
        max_timestamp: i64,
        /// The target is in this batch (or, for a timestamp, a record at or after it).
        hit: bool,
    },
    Found {
        offset: i64,
        position: u64,
        batch_base_offset: i64,
        batch_last_offset: i64,
        timestamp: Option<i64>,
    },
    NotFound {
        reason: String,
    },
}

/// What a lookup found, plus every step it took.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lookup {
    pub steps: Vec<LookupStep>,
    /// `(offset, position of its batch)`.
    pub result: Option<(i64, u64)>,
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

/// `LogSegment.append`: the message set goes at the end of `.log`; then, if
/// more than `index_interval` bytes were appended since the last index entry,
/// `(largest offset, position of this set)` goes into `.index` and the max
/// timestamp so far into `.timeindex`. Returns the entries written.
#[allow(clippy::too_many_arguments)]
pub(crate) fn segment_append<S: Storage>(
    store: &mut S,
    dir: &str,
    seg: &mut Segment,
    bytes: &[u8],
    largest_offset: i64,
    largest_timestamp: i64,
    offset_of_max_timestamp: i64,
    index_interval: u64,
) -> Result<IndexWrites, StorageError> {
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
        Ok(PreparedAppend::from_batches(bytes, &headers))
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
        Ok(PreparedAppend::from_batches(bytes, &headers))
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
            &p.bytes,
            p.last_offset,
            p.max_timestamp,
            p.offset_of_max_timestamp,
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
        let mut buf = [0u8; RECORD_BATCH_OVERHEAD];
        store
            .read_into(&name, position, &mut buf)
            .map_err(|e| DecodeError {
                position,
                field: "batch header",
                message: e.to_string(),
            })?;
        record::read_header(&buf, position)
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
    ) -> Result<Option<(u64, BatchHeader)>, StorageError> {
        let seg = &self.segments[ix];
        let mut probes = Vec::new();
        let slot = index::largest_lower_bound(
            store,
            &index_file(&self.dir, seg.base_offset),
            IndexKind::Offset,
            seg.base_offset,
            seg.index_entries,
            offset,
            &mut probes,
        )?;
        let mut pos = match slot {
            Some(s) => {
                index::read_entry(
                    store,
                    &index_file(&self.dir, seg.base_offset),
                    IndexKind::Offset,
                    seg.base_offset,
                    s,
                )?
                .value as u64
            }
            None => 0,
        };
        while pos < seg.size {
            let h = self.header_at(store, seg.base_offset, pos).map_err(|e| {
                StorageError::OutOfBounds {
                    file: format!("{} ({e})", log_file(&self.dir, seg.base_offset)),
                    position: pos,
                    len: 0,
                    file_len: seg.size,
                }
            })?;
            if h.last_offset() >= offset {
                return Ok(Some((pos, h)));
            }
            pos += h.size_in_bytes();
        }
        Ok(None)
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
            let start = if first {
                match self.translate_offset(store, ix, start_offset) {
                    Ok(Some((p, _))) => Some(p),
                    _ => None,
                }
            } else {
                Some(0)
            };
            first = false;
            if let Some(mut pos) = start {
                while pos < seg.size {
                    let Ok(h) = self.header_at(store, seg.base_offset, pos) else {
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
                    let Ok(b) = store.read(&log_file(&self.dir, seg.base_offset), pos, size) else {
                        return Ok(out);
                    };
                    out.bytes.extend_from_slice(&b);
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

    /// `truncateTo(offset)`: removes every record at or above `offset`
    /// (a follower after a leader change, or on restart).
    pub fn truncate_to<S: Storage>(
        &mut self,
        store: &mut S,
        offset: i64,
    ) -> Result<Option<Truncated>, StorageError> {
        if offset >= self.log_end_offset {
            return Ok(None);
        }
        let old_leo = self.log_end_offset;
        if self.segments[0].base_offset > offset {
            let bytes = self.size();
            let removed = self.segments.iter().map(|s| s.base_offset).collect();
            self.truncate_fully_and_start_at(store, offset, self.active().created_ms)?;
            return Ok(Some(Truncated {
                to_offset: offset,
                old_log_end_offset: old_leo,
                bytes_removed: bytes,
                segments_removed: removed,
            }));
        }
        let mut bytes_removed = 0;
        let mut segments_removed = Vec::new();
        while self.segments.len() > 1 && self.active().base_offset > offset {
            let s = self.segments.pop().expect("len > 1");
            bytes_removed += s.size;
            segments_removed.push(s.base_offset);
            for f in [
                log_file(&self.dir, s.base_offset),
                index_file(&self.dir, s.base_offset),
                time_index_file(&self.dir, s.base_offset),
            ] {
                store.delete(&f)?;
            }
        }
        let ix = self.segments.len() - 1;
        let position = self.translate_offset(store, ix, offset)?.map(|(p, _)| p);
        let dir = self.dir.clone();
        let seg = &mut self.segments[ix];
        // Offset index: keep entries below `offset`.
        let keep = {
            let mut probes = Vec::new();
            let slot = index::largest_lower_bound(
                store,
                &index_file(&dir, seg.base_offset),
                IndexKind::Offset,
                seg.base_offset,
                seg.index_entries,
                offset,
                &mut probes,
            )?;
            match slot {
                None => 0,
                Some(s) => {
                    let e = index::read_entry(
                        store,
                        &index_file(&dir, seg.base_offset),
                        IndexKind::Offset,
                        seg.base_offset,
                        s,
                    )?;
                    if e.key == offset {
                        s
                    } else {
                        s + 1
                    }
                }
            }
        };
        store.truncate(
            &index_file(&dir, seg.base_offset),
            keep * index::OFFSET_INDEX_ENTRY_SIZE,
        )?;
        seg.index_entries = keep;
        seg.last_index_offset = if keep == 0 {
            None
        } else {
            Some(
                index::read_entry(
                    store,
                    &index_file(&dir, seg.base_offset),
                    IndexKind::Offset,
                    seg.base_offset,
                    keep - 1,
                )?
                .key,
            )
        };
        // Time index: keep entries whose offset is below `offset`.
        let tfile = time_index_file(&dir, seg.base_offset);
        let mut tkeep = seg.time_index_entries;
        while tkeep > 0 {
            let e = index::read_entry(store, &tfile, IndexKind::Time, seg.base_offset, tkeep - 1)?;
            if e.value < offset {
                break;
            }
            tkeep -= 1;
        }
        store.truncate(&tfile, tkeep * index::TIME_INDEX_ENTRY_SIZE)?;
        seg.time_index_entries = tkeep;
        seg.last_time_entry = if tkeep == 0 {
            (-1, seg.base_offset)
        } else {
            let e = index::read_entry(store, &tfile, IndexKind::Time, seg.base_offset, tkeep - 1)?;
            (e.key, e.value)
        };
        if let Some(pos) = position {
            bytes_removed += seg.size - pos;
            store.truncate(&log_file(&dir, seg.base_offset), pos)?;
            seg.size = pos;
        }
        if seg.size == 0 {
            seg.rolling_based_timestamp = None;
        }
        seg.bytes_since_last_index_entry = 0;
        seg.next_offset = offset.max(seg.base_offset);
        // readLargestTimestamp: rescan what is left.
        let base = seg.base_offset;
        let size = seg.size;
        let (mut max_ts, mut max_off) = (-1i64, -1i64);
        let mut pos = 0;
        while pos < size {
            let h = match self.header_at(store, base, pos) {
                Ok(h) => h,
                Err(_) => break,
            };
            if h.max_timestamp > max_ts {
                max_ts = h.max_timestamp;
                max_off = h.last_offset();
            }
            pos += h.size_in_bytes();
        }
        let seg = &mut self.segments[ix];
        seg.max_timestamp_so_far = max_ts;
        seg.offset_of_max_timestamp = max_off;
        self.log_end_offset = offset;
        self.log_start_offset = self.log_start_offset.min(offset);
        self.first_dirty_offset = self.first_dirty_offset.min(offset);
        self.flushed_offset = self.flushed_offset.min(offset);
        self.epochs.retain(|e| e.start_offset < offset);
        Ok(Some(Truncated {
            to_offset: offset,
            old_log_end_offset: old_leo,
            bytes_removed,
            segments_removed,
        }))
    }

    /// Deletes everything and starts an empty log at `offset`.
    pub fn truncate_fully_and_start_at<S: Storage>(
        &mut self,
        store: &mut S,
        offset: i64,
        now_ms: i64,
    ) -> Result<(), StorageError> {
        for s in std::mem::take(&mut self.segments) {
            for f in [
                log_file(&self.dir, s.base_offset),
                index_file(&self.dir, s.base_offset),
                time_index_file(&self.dir, s.base_offset),
            ] {
                store.delete(&f)?;
            }
        }
        self.create_segment_files(store, offset)?;
        self.segments.push(Segment::new(offset, now_ms));
        self.log_start_offset = offset;
        self.log_end_offset = offset;
        self.first_dirty_offset = offset;
        self.flushed_offset = offset;
        self.epochs.clear();
        Ok(())
    }

    /// Plans one retention pass (`deletableSegments` with that pass's predicate).
    pub fn plan_retention(
        &self,
        pass: RetentionPass,
        now_ms: i64,
        high_watermark: i64,
    ) -> Option<RetentionPlan> {
        let cfg = &self.config;
        let mut size_left: i64 = match pass {
            RetentionPass::RetentionBytes => {
                if cfg.retention_bytes < 0 || (self.size() as i64) < cfg.retention_bytes {
                    return None;
                }
                self.size() as i64 - cfg.retention_bytes
            }
            RetentionPass::RetentionMs if cfg.retention_ms < 0 => return None,
            _ => 0,
        };
        let mut deletable = Vec::new();
        let mut detail = String::new();
        for (i, seg) in self.segments.iter().enumerate() {
            let next = self.segments.get(i + 1);
            let upper = next.map(|n| n.base_offset).unwrap_or(self.log_end_offset);
            let last_and_empty = next.is_none() && seg.size == 0;
            if high_watermark < upper || last_and_empty {
                break;
            }
            let ok = match pass {
                RetentionPass::LogStartOffset => {
                    next.is_some_and(|n| n.base_offset <= self.log_start_offset)
                }
                RetentionPass::RetentionBytes => {
                    if size_left - seg.size as i64 >= 0 {
                        size_left -= seg.size as i64;
                        true
                    } else {
                        false
                    }
                }
                RetentionPass::RetentionMs => now_ms - seg.largest_timestamp() > cfg.retention_ms,
            };
            if !ok {
                break;
            }
            if detail.is_empty() {
                detail = match pass {
                    RetentionPass::LogStartOffset => {
                        format!(
                            "log start offset {} is past the segment",
                            self.log_start_offset
                        )
                    }
                    RetentionPass::RetentionBytes => format!(
                        "log size {} bytes exceeds retention.bytes={}",
                        self.size(),
                        cfg.retention_bytes
                    ),
                    RetentionPass::RetentionMs => format!(
                        "largest timestamp {} is more than retention.ms={} before now ({now_ms})",
                        seg.largest_timestamp(),
                        cfg.retention_ms
                    ),
                };
            }
            deletable.push(seg.base_offset);
        }
        if deletable.is_empty() {
            return None;
        }
        Some(RetentionPlan {
            pass,
            roll_first: deletable.len() == self.segments.len(),
            segments: deletable,
            detail,
        })
    }

    /// Carries out a retention plan: roll if every segment goes, rename the
    /// deleted segments' files `.deleted` (removed after `file.delete.delay.ms`),
    /// and move the log start offset up.
    pub fn apply_retention<S: Storage>(
        &mut self,
        store: &mut S,
        plan: &RetentionPlan,
        now_ms: i64,
        sim_now: u64,
    ) -> Result<RetentionApplied, StorageError> {
        let mut to_delete = plan.segments.clone();
        let mut rolled = None;
        if plan.roll_first {
            let r = self.roll(store, RollReason::Retention, None, now_ms)?;
            if to_delete.last() == Some(&r.new_base_offset) {
                to_delete.pop();
            }
            rolled = Some(r);
        }
        let mut deleted = Vec::new();
        for base in to_delete {
            let Some(ix) = self.segments.iter().position(|s| s.base_offset == base) else {
                continue;
            };
            let s = self.segments.remove(ix);
            let mut files = Vec::new();
            for f in [
                log_file(&self.dir, base),
                index_file(&self.dir, base),
                time_index_file(&self.dir, base),
            ] {
                let to = format!("{f}.deleted");
                store.rename(&f, &to)?;
                files.push(to);
            }
            self.pending_deletes.push(PendingDelete {
                files,
                delete_at_ms: sim_now + self.config.file_delete_delay_ms,
            });
            deleted.push(DeletedSegment {
                base_offset: s.base_offset,
                next_offset: s.next_offset,
                size: s.size,
                largest_timestamp: s.largest_timestamp(),
            });
        }
        let first = self.segments[0].base_offset;
        if first > self.log_start_offset {
            self.log_start_offset = first;
        }
        self.first_dirty_offset = self.first_dirty_offset.max(self.log_start_offset);
        Ok(RetentionApplied {
            pass: plan.pass,
            rolled,
            deleted,
            log_start_offset: self.log_start_offset,
            detail: plan.detail.clone(),
        })
    }

    /// Removes `.deleted` files whose delay has passed; returns their names.
    pub fn delete_expired_files<S: Storage>(&mut self, store: &mut S, sim_now: u64) -> Vec<String> {
        let mut gone = Vec::new();
        self.pending_deletes.retain(|p| {
            if p.delete_at_ms <= sim_now {
                for f in &p.files {
                    if store.delete(f).is_ok() {
                        gone.push(f.clone());
                    }
                }
                false
            } else {
                true
            }
        });
        gone
    }

    fn segment_search_traced(&self, target: i64, steps: &mut Vec<LookupStep>) -> Option<usize> {
        let n = self.segments.len();
        if self.segments[0].base_offset > target {
            steps.push(LookupStep::SegmentProbe {
                lo: 0,
                hi: n as u32 - 1,
                mid: 0,
                base_offset: self.segments[0].base_offset,
                cmp: 1,
            });
            return None;
        }
        let (mut lo, mut hi) = (0usize, n - 1);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            let b = self.segments[mid].base_offset;
            let c = match b.cmp(&target) {
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => 1,
            };
            steps.push(LookupStep::SegmentProbe {
                lo: lo as u32,
                hi: hi as u32,
                mid: mid as u32,
                base_offset: b,
                cmp: c,
            });
            match c {
                1 => hi = mid - 1,
                -1 => lo = mid,
                _ => {
                    lo = mid;
                    break;
                }
            }
        }
        Some(lo)
    }

    fn chosen(&self, ix: usize) -> LookupStep {
        let s = &self.segments[ix];
        LookupStep::SegmentChosen {
            base_offset: s.base_offset,
            index_entries: s.index_entries,
            time_index_entries: s.time_index_entries,
            size: s.size,
        }
    }

    /// S3, step by step: find the segment by base offset, binary-search its
    /// `.index` for the largest entry ≤ `target`, then scan `.log` forward
    /// batch by batch until the batch holding `target` (or the next surviving
    /// offset, in a compacted log).
    pub fn lookup_offset<S: Storage>(&self, store: &S, target: i64) -> Lookup {
        let mut steps = Vec::new();
        if target < self.log_start_offset || target >= self.log_end_offset {
            steps.push(LookupStep::NotFound {
                reason: format!(
                    "offset {target} is outside the log [{}, {}) (OFFSET_OUT_OF_RANGE)",
                    self.log_start_offset, self.log_end_offset
                ),
            });
            return Lookup {
                steps,
                result: None,
            };
        }
        let Some(mut ix) = self.segment_search_traced(target, &mut steps) else {
            steps.push(LookupStep::NotFound {
                reason: format!("offset {target} is below the first segment"),
            });
            return Lookup {
                steps,
                result: None,
            };
        };
        steps.push(self.chosen(ix));
        let mut from_index = true;
        loop {
            let seg = &self.segments[ix];
            let mut start = 0u64;
            if from_index {
                let mut probes = Vec::new();
                let ifile = index_file(&self.dir, seg.base_offset);
                let slot = index::largest_lower_bound(
                    store,
                    &ifile,
                    IndexKind::Offset,
                    seg.base_offset,
                    seg.index_entries,
                    target,
                    &mut probes,
                )
                .ok()
                .flatten();
                steps.extend(probes.into_iter().map(|probe| LookupStep::IndexProbe {
                    kind: IndexKind::Offset,
                    probe,
                }));
                let entry = slot.and_then(|s| {
                    index::read_entry(store, &ifile, IndexKind::Offset, seg.base_offset, s).ok()
                });
                start = entry.map(|e| e.value as u64).unwrap_or(0);
                steps.push(LookupStep::IndexResult {
                    kind: IndexKind::Offset,
                    entry,
                    start_position: start,
                });
            }
            from_index = false;
            let mut pos = start;
            while pos < seg.size {
                let Ok(h) = self.header_at(store, seg.base_offset, pos) else {
                    steps.push(LookupStep::NotFound {
                        reason: format!("unreadable batch at position {pos}"),
                    });
                    return Lookup {
                        steps,
                        result: None,
                    };
                };
                // Compaction can empty the tail of a batch (it keeps the batch's
                // last offset), so a batch "reaching" the target may hold no
                // record at or after it: then the scan goes on.
                let first = if h.last_offset() >= target {
                    self.first_offset_at_or_after(store, seg.base_offset, pos, target)
                } else {
                    None
                };
                let hit = first.is_some();
                steps.push(LookupStep::BatchScanned {
                    position: pos,
                    base_offset: h.base_offset,
                    last_offset: h.last_offset(),
                    size: h.size_in_bytes(),
                    max_timestamp: h.max_timestamp,
                    hit,
                });
                if let Some(found) = first {
                    steps.push(LookupStep::Found {
                        offset: found,
                        position: pos,
                        batch_base_offset: h.base_offset,
                        batch_last_offset: h.last_offset(),
                        timestamp: None,
                    });
                    return Lookup {
                        steps,
                        result: Some((found, pos)),
                    };
                }
                pos += h.size_in_bytes();
            }
            ix += 1;
            if ix >= self.segments.len() {
                steps.push(LookupStep::NotFound {
                    reason: format!("no record at or after offset {target}"),
                });
                return Lookup {
                    steps,
                    result: None,
                };
            }
            steps.push(self.chosen(ix));
        }
    }

    /// The first record offset ≥ `target` in the batch at `pos` (compaction
    /// leaves gaps, so it may be larger than `target`).
    fn first_offset_at_or_after<S: Storage>(
        &self,
        store: &S,
        base: i64,
        pos: u64,
        target: i64,
    ) -> Option<i64> {
        let h = self.header_at(store, base, pos).ok()?;
        let bytes = store
            .read(&log_file(&self.dir, base), pos, h.size_in_bytes())
            .ok()?;
        let b = record::decode_batch(&bytes, pos).ok()?;
        b.records
            .iter()
            .map(|r| b.offset_of(r))
            .find(|o| *o >= target)
    }

    /// S4, step by step (`fetchOffsetByTimestamp`): the first segment whose
    /// largest timestamp is ≥ `target`; its `.timeindex` for the largest entry
    /// ≤ `target`; `.index` for that entry's offset; then scan `.log` for the
    /// first record with a timestamp ≥ `target`.
    pub fn lookup_timestamp<S: Storage>(&self, store: &S, target: i64) -> Lookup {
        let mut steps = Vec::new();
        let mut ix = None;
        for (i, s) in self.segments.iter().enumerate() {
            let m = s.largest_timestamp() >= target && s.size > 0;
            steps.push(LookupStep::SegmentTimestampCheck {
                base_offset: s.base_offset,
                largest_timestamp: s.largest_timestamp(),
                matches: m,
            });
            if m {
                ix = Some(i);
                break;
            }
        }
        let Some(ix) = ix else {
            steps.push(LookupStep::NotFound {
                reason: format!("no segment holds a timestamp at or after {target}"),
            });
            return Lookup {
                steps,
                result: None,
            };
        };
        steps.push(self.chosen(ix));
        let seg = &self.segments[ix];
        let tfile = time_index_file(&self.dir, seg.base_offset);
        let mut probes = Vec::new();
        let tslot = index::largest_lower_bound(
            store,
            &tfile,
            IndexKind::Time,
            seg.base_offset,
            seg.time_index_entries,
            target,
            &mut probes,
        )
        .ok()
        .flatten();
        steps.extend(probes.into_iter().map(|probe| LookupStep::IndexProbe {
            kind: IndexKind::Time,
            probe,
        }));
        let tentry = tslot.and_then(|s| {
            index::read_entry(store, &tfile, IndexKind::Time, seg.base_offset, s).ok()
        });
        let from_offset = tentry
            .map(|e| e.value)
            .unwrap_or(seg.base_offset)
            .max(self.log_start_offset);
        steps.push(LookupStep::IndexResult {
            kind: IndexKind::Time,
            entry: tentry,
            start_position: 0,
        });
        let ifile = index_file(&self.dir, seg.base_offset);
        let mut probes = Vec::new();
        let slot = index::largest_lower_bound(
            store,
            &ifile,
            IndexKind::Offset,
            seg.base_offset,
            seg.index_entries,
            from_offset,
            &mut probes,
        )
        .ok()
        .flatten();
        steps.extend(probes.into_iter().map(|probe| LookupStep::IndexProbe {
            kind: IndexKind::Offset,
            probe,
        }));
        let entry = slot.and_then(|s| {
            index::read_entry(store, &ifile, IndexKind::Offset, seg.base_offset, s).ok()
        });
        let mut pos = entry.map(|e| e.value as u64).unwrap_or(0);
        steps.push(LookupStep::IndexResult {
            kind: IndexKind::Offset,
            entry,
            start_position: pos,
        });
        while pos < seg.size {
            let Ok(h) = self.header_at(store, seg.base_offset, pos) else {
                break;
            };
            let mut hit = None;
            if h.max_timestamp >= target {
                if let Ok(bytes) = store.read(
                    &log_file(&self.dir, seg.base_offset),
                    pos,
                    h.size_in_bytes(),
                ) {
                    if let Ok(b) = record::decode_batch(&bytes, pos) {
                        hit = b
                            .records
                            .iter()
                            .map(|r| (b.offset_of(r), b.timestamp_of(r)))
                            .find(|(o, t)| *t >= target && *o >= from_offset);
                    }
                }
            }
            steps.push(LookupStep::BatchScanned {
                position: pos,
                base_offset: h.base_offset,
                last_offset: h.last_offset(),
                size: h.size_in_bytes(),
                max_timestamp: h.max_timestamp,
                hit: hit.is_some(),
            });
            if let Some((o, t)) = hit {
                steps.push(LookupStep::Found {
                    offset: o,
                    position: pos,
                    batch_base_offset: h.base_offset,
                    batch_last_offset: h.last_offset(),
                    timestamp: Some(t),
                });
                return Lookup {
                    steps,
                    result: Some((o, pos)),
                };
            }
            pos += h.size_in_bytes();
        }
        steps.push(LookupStep::NotFound {
            reason: format!("no record with a timestamp at or after {target}"),
        });
        Lookup {
            steps,
            result: None,
        }
    }

    /// A clean shutdown (`LogSegment.close`): the active segment's time index
    /// gets its final entry, as on a roll. Returns it, if one was written.
    pub fn close<S: Storage>(&mut self, store: &mut S) -> Result<Option<(i64, i64)>, StorageError> {
        let last = self.segments.len() - 1;
        let (ts, off) = (
            self.segments[last].max_timestamp_so_far,
            self.segments[last].offset_of_max_timestamp,
        );
        if ts < 0 {
            return Ok(None);
        }
        time_index_maybe_append(store, &self.dir, &mut self.segments[last], ts, off)
    }

    /// Rebuilds a log from the segment files in `dir` (as Kafka's log
    /// recovery does): each `.log` is scanned batch by batch; the indexes are
    /// taken as they are. A batch that does not decode ends its segment.
    pub fn recover<S: Storage>(
        store: &S,
        tp: TopicPartition,
        dir: &str,
        config: Arc<LogConfig>,
    ) -> Result<Log, String> {
        let mut bases: Vec<i64> = store
            .list(&format!("{dir}/"))
            .iter()
            .filter_map(|f| f.strip_suffix(".log"))
            .filter_map(|f| f.rsplit('/').next())
            .filter_map(|n| n.parse().ok())
            .collect();
        bases.sort();
        if bases.is_empty() {
            return Err(format!("{dir}: no .log segment files"));
        }
        let mut segments = Vec::new();
        for base in bases {
            let mut seg = Segment::new(base, 0);
            let size = store.len(&log_file(dir, base)).map_err(|e| e.to_string())?;
            let mut pos = 0;
            let mut buf = [0u8; RECORD_BATCH_OVERHEAD];
            while pos + RECORD_BATCH_OVERHEAD as u64 <= size {
                if store
                    .read_into(&log_file(dir, base), pos, &mut buf)
                    .is_err()
                {
                    break;
                }
                let Ok(h) = record::read_header(&buf, pos) else {
                    break;
                };
                if pos + h.size_in_bytes() > size {
                    break;
                }
                if h.max_timestamp > seg.max_timestamp_so_far {
                    seg.max_timestamp_so_far = h.max_timestamp;
                    seg.offset_of_max_timestamp = h.last_offset();
                }
                if seg.rolling_based_timestamp.is_none() {
                    seg.rolling_based_timestamp = Some(h.max_timestamp);
                }
                seg.next_offset = h.next_offset();
                pos += h.size_in_bytes();
            }
            seg.size = pos;
            sanity_check_indexes(store, dir, &seg)?;
            let ilen = store.len(&index_file(dir, base)).unwrap_or(0);
            seg.index_entries = ilen / index::OFFSET_INDEX_ENTRY_SIZE;
            if seg.index_entries > 0 {
                let e = index::read_entry(
                    store,
                    &index_file(dir, base),
                    IndexKind::Offset,
                    base,
                    seg.index_entries - 1,
                )
                .map_err(|e| e.to_string())?;
                seg.last_index_offset = Some(e.key);
            }
            let tlen = store.len(&time_index_file(dir, base)).unwrap_or(0);
            seg.time_index_entries = tlen / index::TIME_INDEX_ENTRY_SIZE;
            if seg.time_index_entries > 0 {
                let e = index::read_entry(
                    store,
                    &time_index_file(dir, base),
                    IndexKind::Time,
                    base,
                    seg.time_index_entries - 1,
                )
                .map_err(|e| e.to_string())?;
                seg.last_time_entry = (e.key, e.value);
            }
            segments.push(seg);
        }
        let log_start_offset = segments[0].base_offset;
        let log_end_offset = segments.last().map(|s| s.next_offset).unwrap_or(0);
        Ok(Log {
            tp,
            dir: dir.to_string(),
            config,
            segments,
            log_start_offset,
            log_end_offset,
            epochs: Vec::new(),
            first_dirty_offset: log_start_offset,
            pending_deletes: Vec::new(),
            flushed_offset: log_end_offset,
        })
    }

    /// Every batch in the log, decoded (for the inspector and tests).
    pub fn decode_all<S: Storage>(
        &self,
        store: &S,
    ) -> Result<Vec<record::DecodedBatch>, DecodeError> {
        let mut out = Vec::new();
        for s in &self.segments {
            let bytes = store
                .read_all(&log_file(&self.dir, s.base_offset))
                .map_err(|e| DecodeError {
                    position: 0,
                    field: "log file",
                    message: e.to_string(),
                })?;
            let mut pos = 0usize;
            while pos < bytes.len() {
                let b = record::decode_batch(&bytes[pos..], pos as u64)?;
                pos += b.header.size_in_bytes() as usize;
                out.push(b);
            }
        }
        Ok(out)
    }
}

/// Kafka's index sanity checks (`OffsetIndex.sanityCheck`,
/// `TimeIndex.sanityCheck`, and the entry order `AbstractIndex` relies on),
/// run when a log is recovered from files: a file whose length is not a whole
/// number of entries, an offset index whose offsets do not increase or whose
/// positions go backwards or past the end of the `.log`, or a time index
/// whose timestamps go backwards or whose offsets fall outside the segment,
/// is corrupt. Kafka then deletes the index and rebuilds it from the log;
/// here the message names the file and the entry, and the lookup stops
/// instead of trusting it.
fn sanity_check_indexes<S: Storage>(store: &S, dir: &str, seg: &Segment) -> Result<(), String> {
    let base = seg.base_offset;
    for (kind, file) in [
        (IndexKind::Offset, index_file(dir, base)),
        (IndexKind::Time, time_index_file(dir, base)),
    ] {
        let len = store.len(&file).unwrap_or(0);
        if len == 0 {
            continue;
        }
        let mut bytes = vec![0u8; len as usize];
        store
            .read_into(&file, 0, &mut bytes)
            .map_err(|e| format!("{file}: cannot read: {e}"))?;
        let corrupt = |why: String| {
            format!(
                "{file}: corrupt index ({why}); Kafka would delete it and rebuild it from the .log"
            )
        };
        let entries = index::decode_index(kind, base, &bytes).map_err(|e| corrupt(e.message))?;
        let mut prev: Option<&index::IndexEntry> = None;
        for (i, e) in entries.iter().enumerate() {
            match kind {
                IndexKind::Offset => {
                    if e.key < base || e.key >= seg.next_offset.max(base + 1) {
                        return Err(corrupt(format!(
                            "entry {i} names offset {}, outside the segment's offsets {base}..{}",
                            e.key, seg.next_offset
                        )));
                    }
                    if e.value < 0 || e.value as u64 >= seg.size.max(1) {
                        return Err(corrupt(format!(
                            "entry {i} points at position {}, outside the {}-byte .log",
                            e.value, seg.size
                        )));
                    }
                    if let Some(p) = prev {
                        if e.key <= p.key || e.value < p.value {
                            return Err(corrupt(format!(
                                "entry {i} (offset {}, position {}) does not follow entry {} (offset {}, position {})",
                                e.key,
                                e.value,
                                i - 1,
                                p.key,
                                p.value
                            )));
                        }
                    }
                }
                IndexKind::Time => {
                    if e.value < base || e.value > seg.next_offset {
                        return Err(corrupt(format!(
                            "entry {i} names offset {}, outside the segment's offsets {base}..{}",
                            e.value, seg.next_offset
                        )));
                    }
                    if let Some(p) = prev {
                        if e.key < p.key || e.value < p.value {
                            return Err(corrupt(format!(
                                "entry {i} (timestamp {}, offset {}) goes back from entry {} (timestamp {}, offset {})",
                                e.key,
                                e.value,
                                i - 1,
                                p.key,
                                p.value
                            )));
                        }
                    }
                }
            }
            prev = Some(e);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::paged::MemStorage;
    use crate::storage::record::{build_batch, BatchSpec, NewRecord};

    fn cfg(segment_bytes: u64, index_interval: u64) -> Arc<LogConfig> {
        Arc::new(LogConfig {
            segment_bytes,
            index_interval_bytes: index_interval,
            ..LogConfig::default()
        })
    }

    fn batch(n: usize, value_len: usize, ts: i64) -> Vec<u8> {
        let recs: Vec<NewRecord> = (0..n)
            .map(|i| {
                NewRecord::new(
                    Some(format!("k{i}").as_bytes()),
                    Some(&vec![b'x'; value_len]),
                    ts + i as i64,
                )
            })
            .collect();
        build_batch(&BatchSpec::default(), &recs)
    }

    fn append(
        log: &mut Log,
        s: &mut MemStorage,
        bytes: Vec<u8>,
        now: i64,
    ) -> (Option<RollInfo>, Appended) {
        let p = log.prepare_leader_append(bytes, 0, now).unwrap();
        log.roll_and_append(s, &p, now).unwrap()
    }

    #[test]
    fn offsets_are_assigned_from_the_log_end_offset() {
        let mut s = MemStorage::default();
        let mut log =
            Log::create(&mut s, TopicPartition::new("t", 0), cfg(1 << 20, 4096), 0).unwrap();
        let (_, a) = append(&mut log, &mut s, batch(3, 10, 1000), 0);
        assert_eq!((a.first_offset, a.last_offset, a.position), (0, 2, 0));
        let (_, b) = append(&mut log, &mut s, batch(2, 10, 2000), 0);
        assert_eq!((b.first_offset, b.last_offset), (3, 4));
        assert_eq!(b.position, a.size);
        assert_eq!(log.log_end_offset, 5);
        let all = log.decode_all(&s).unwrap();
        assert_eq!(all.len(), 2);
        assert!(all.iter().all(|b| b.crc_valid()));
    }

    #[test]
    fn index_entries_follow_the_index_interval_rule() {
        // Batches of one record with a 180-byte value are 252 bytes: positions
        // 0, 252, 504, 756. With index.interval.bytes=700 the first entry is
        // written for the batch at 756, when 756 > 700 bytes have gone by.
        let mut s = MemStorage::default();
        let mut log = Log::create(
            &mut s,
            TopicPartition::new("first", 0),
            cfg(1 << 20, 700),
            0,
        )
        .unwrap();
        let mut positions = Vec::new();
        let mut entries = Vec::new();
        for i in 0..6 {
            let (_, a) = append(&mut log, &mut s, batch(1, 180, 1000 + i), 0);
            assert_eq!(a.size, 252);
            positions.push(a.position);
            entries.push(a.index_entry);
        }
        assert_eq!(positions, vec![0, 252, 504, 756, 1008, 1260]);
        assert_eq!(entries, vec![None, None, None, Some((3, 756)), None, None]);
        let lookup = log.lookup_offset(&s, 3);
        assert_eq!(lookup.result, Some((3, 756)));
        assert!(matches!(
            lookup
                .steps
                .iter()
                .find(|s| matches!(s, LookupStep::IndexResult { .. })),
            Some(LookupStep::IndexResult {
                start_position: 756,
                ..
            })
        ));
    }

    #[test]
    fn segments_roll_at_segment_bytes_and_retire_with_a_time_index_entry() {
        let mut s = MemStorage::default();
        let mut log = Log::create(&mut s, TopicPartition::new("t", 0), cfg(600, 4096), 0).unwrap();
        let mut rolls = Vec::new();
        for i in 0..5 {
            let (r, _) = append(&mut log, &mut s, batch(1, 180, 1000 + i), 0);
            rolls.push(r);
        }
        // 252 + 252 = 504 fits in 600; a third would make 756 > 600.
        assert!(rolls[0].is_none() && rolls[1].is_none());
        let r = rolls[2].as_ref().unwrap();
        assert_eq!(r.reason, RollReason::SegmentBytes);
        assert_eq!((r.old_base_offset, r.new_base_offset), (0, 2));
        assert_eq!(r.final_time_index_entry, Some((1001, 1)));
        assert_eq!(
            s.list("t-0/"),
            vec![
                "t-0/00000000000000000000.index",
                "t-0/00000000000000000000.log",
                "t-0/00000000000000000000.timeindex",
                "t-0/00000000000000000002.index",
                "t-0/00000000000000000002.log",
                "t-0/00000000000000000002.timeindex",
                "t-0/00000000000000000004.index",
                "t-0/00000000000000000004.log",
                "t-0/00000000000000000004.timeindex",
            ]
        );
        assert_eq!(log.lookup_offset(&s, 3).result, Some((3, 252)));
    }

    #[test]
    fn reads_stop_at_the_high_watermark_and_refuse_out_of_range() {
        let mut s = MemStorage::default();
        let mut log =
            Log::create(&mut s, TopicPartition::new("t", 0), cfg(1 << 20, 4096), 0).unwrap();
        for i in 0..4 {
            append(&mut log, &mut s, batch(2, 5, i), 0);
        }
        let d = log.read(&s, 0, 1 << 20, 4, true).unwrap();
        assert_eq!(d.batches.len(), 2);
        let d = log.read(&s, 3, 1 << 20, 8, true).unwrap();
        assert_eq!(d.batches[0].base_offset, 2);
        assert_eq!(log.read(&s, 8, 100, 8, true).unwrap().batches.len(), 0);
        assert!(log.read(&s, 9, 100, 8, true).is_err());
        let one = log.read(&s, 0, 1, 8, true).unwrap();
        assert_eq!(one.batches.len(), 1, "min one message");
        assert_eq!(log.read(&s, 0, 1, 8, false).unwrap().batches.len(), 0);
    }

    #[test]
    fn truncation_removes_records_segments_and_index_entries() {
        let mut s = MemStorage::default();
        let mut log = Log::create(&mut s, TopicPartition::new("t", 0), cfg(600, 200), 0).unwrap();
        for i in 0..8 {
            append(&mut log, &mut s, batch(1, 180, 1000 + i), 0);
        }
        assert_eq!(log.segments.len(), 4);
        let t = log.truncate_to(&mut s, 5).unwrap().unwrap();
        assert_eq!(t.old_log_end_offset, 8);
        assert_eq!(log.log_end_offset, 5);
        assert_eq!(t.segments_removed, vec![6]);
        assert_eq!(log.segments.len(), 3);
        assert_eq!(log.active().size, 252);
        let (_, a) = append(&mut log, &mut s, batch(1, 180, 2000), 0);
        assert_eq!(a.first_offset, 5);
        assert!(log.decode_all(&s).unwrap().iter().all(|b| b.crc_valid()));
        assert!(log.truncate_to(&mut s, 99).unwrap().is_none());
    }

    #[test]
    fn time_retention_deletes_expired_segments_and_moves_the_log_start_offset() {
        let mut s = MemStorage::default();
        let mut c = (*cfg(600, 4096)).clone();
        c.retention_ms = 10_000;
        let mut log = Log::create(&mut s, TopicPartition::new("t", 0), Arc::new(c), 0).unwrap();
        for i in 0..6 {
            append(&mut log, &mut s, batch(1, 180, 1000 * i), 0);
        }
        // segments: [0,1] ts ≤1000, [2,3] ts ≤3000, [4,5] ts ≤5000 (active)
        let plan = log
            .plan_retention(RetentionPass::RetentionMs, 13_500, 6)
            .unwrap();
        assert_eq!(plan.segments, vec![0, 2]);
        // Not past the high watermark: with HW 3 only the first segment qualifies.
        assert_eq!(
            log.plan_retention(RetentionPass::RetentionMs, 13_500, 3)
                .unwrap()
                .segments,
            vec![0]
        );
        let applied = log.apply_retention(&mut s, &plan, 13_500, 100).unwrap();
        assert_eq!(applied.log_start_offset, 4);
        assert!(s.exists("t-0/00000000000000000000.log.deleted"));
        assert!(log.read(&s, 1, 100, 6, true).is_err());
        assert_eq!(log.delete_expired_files(&mut s, 100 + 60_000).len(), 6);
        // Everything expired: the active segment goes too, after a roll.
        let plan = log
            .plan_retention(RetentionPass::RetentionMs, 100_000, 6)
            .unwrap();
        assert!(plan.roll_first);
        let applied = log.apply_retention(&mut s, &plan, 100_000, 200).unwrap();
        assert_eq!(applied.rolled.unwrap().new_base_offset, 6);
        assert_eq!(log.log_start_offset, 6);
        assert_eq!(log.segments.len(), 1);
    }

    #[test]
    fn size_retention_keeps_the_log_under_retention_bytes() {
        let mut s = MemStorage::default();
        let mut c = (*cfg(600, 4096)).clone();
        c.retention_bytes = 800;
        let mut log = Log::create(&mut s, TopicPartition::new("t", 0), Arc::new(c), 0).unwrap();
        for i in 0..6 {
            append(&mut log, &mut s, batch(1, 180, i), 0);
        }
        // 1512 bytes in 3 segments of 504 and retention.bytes=800: 712 bytes must
        // go, and only whole segments go, so one segment (504) is deleted.
        let plan = log
            .plan_retention(RetentionPass::RetentionBytes, 0, 6)
            .unwrap();
        assert_eq!(plan.segments, vec![0]);
        assert!(log
            .plan_retention(RetentionPass::RetentionMs, 0, 6)
            .is_none());
    }

    #[test]
    fn timestamp_lookup_finds_the_first_record_at_or_after() {
        let mut s = MemStorage::default();
        let mut log = Log::create(&mut s, TopicPartition::new("t", 0), cfg(600, 100), 0).unwrap();
        for i in 0..6 {
            append(&mut log, &mut s, batch(1, 180, 1000 * (i + 1)), 0);
        }
        assert_eq!(log.lookup_timestamp(&s, 2500).result.map(|r| r.0), Some(2));
        assert_eq!(log.lookup_timestamp(&s, 1000).result.map(|r| r.0), Some(0));
        assert_eq!(log.lookup_timestamp(&s, 6000).result.map(|r| r.0), Some(5));
        assert!(log.lookup_timestamp(&s, 6001).result.is_none());
    }

    #[test]
    fn corrupt_produce_batches_are_refused() {
        let mut s = MemStorage::default();
        let log = Log::create(&mut s, TopicPartition::new("t", 0), cfg(1 << 20, 4096), 0).unwrap();
        let mut b = batch(1, 10, 0);
        let n = b.len();
        b[n - 1] ^= 0xff;
        assert!(matches!(
            log.prepare_leader_append(b, 0, 0),
            Err(AppendError::CorruptMessage { .. })
        ));
        assert!(log.prepare_leader_append(batch(100, 100, 0), 0, 0).is_ok());
        let small = Log::create(&mut s, TopicPartition::new("u", 0), cfg(100, 4096), 0).unwrap();
        assert!(matches!(
            small.prepare_leader_append(batch(2, 100, 0), 0, 0),
            Err(AppendError::RecordTooLarge { .. })
        ));
    }

    #[test]
    fn leader_epoch_end_offsets() {
        let mut s = MemStorage::default();
        let mut log =
            Log::create(&mut s, TopicPartition::new("t", 0), cfg(1 << 20, 4096), 0).unwrap();
        let p = log.prepare_leader_append(batch(3, 1, 0), 0, 0).unwrap();
        log.roll_and_append(&mut s, &p, 0).unwrap();
        let p = log.prepare_leader_append(batch(2, 1, 0), 2, 0).unwrap();
        log.roll_and_append(&mut s, &p, 0).unwrap();
        assert_eq!(log.end_offset_for_epoch(0), (0, 3));
        assert_eq!(log.end_offset_for_epoch(1), (0, 3));
        assert_eq!(log.end_offset_for_epoch(2), (2, 5));
    }
}
