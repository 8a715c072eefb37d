//! Kafka's v2 record batch ("magic 2"), byte for byte.
//!
//! Since Kafka 0.11 every `.log` file, produce request and fetch response
//! carries records in this layout (`DefaultRecordBatch` / `DefaultRecord`):
//!
//! ```text
//! baseOffset: int64            ┐ LOG_OVERHEAD (12 bytes)
//! batchLength: int32           ┘ bytes that follow this field
//! partitionLeaderEpoch: int32
//! magic: int8 (= 2)
//! crc: uint32                  CRC-32C of everything from `attributes` to the end
//! attributes: int16            bits 0-2 compression, 3 timestamp type,
//!                              4 transactional, 5 control, 6 delete horizon set
//! lastOffsetDelta: int32
//! baseTimestamp: int64
//! maxTimestamp: int64
//! producerId: int64
//! producerEpoch: int16
//! baseSequence: int32
//! records count: int32         ── 61 bytes of header (RECORD_BATCH_OVERHEAD)
//! records: [Record]
//!
//! Record:
//! length: varint  attributes: int8  timestampDelta: varlong  offsetDelta: varint
//! keyLength: varint  key  valueLength: varint  value  headers count: varint
//! Header: headerKeyLength: varint  headerKey  headerValueLength: varint  value
//! ```
//!
//! Because the CRC starts at `attributes`, a broker can stamp the real
//! `baseOffset` and `partitionLeaderEpoch` into a producer's batch without
//! recomputing it, which is exactly what the leader does on append. The
//! simulation does not compress (compression bits are always 0).

use super::crc32c::crc32c;
use super::varint::{varint_size, varlong_size, write_varint, write_varlong, Reader};
use super::DecodeError;
use serde::{Deserialize, Serialize};

pub const MAGIC_V2: i8 = 2;
/// `baseOffset` + `batchLength`.
pub const LOG_OVERHEAD: usize = 12;
/// Size of the batch header, records excluded.
pub const RECORD_BATCH_OVERHEAD: usize = 61;
pub const NO_PRODUCER_ID: i64 = -1;
pub const NO_PRODUCER_EPOCH: i16 = -1;
pub const NO_SEQUENCE: i32 = -1;
pub const NO_PARTITION_LEADER_EPOCH: i32 = -1;
pub const NO_TIMESTAMP: i64 = -1;

pub const BASE_OFFSET_OFFSET: usize = 0;
pub const LENGTH_OFFSET: usize = 8;
pub const PARTITION_LEADER_EPOCH_OFFSET: usize = 12;
pub const MAGIC_OFFSET: usize = 16;
pub const CRC_OFFSET: usize = 17;
pub const ATTRIBUTES_OFFSET: usize = 21;
pub const LAST_OFFSET_DELTA_OFFSET: usize = 23;
pub const BASE_TIMESTAMP_OFFSET: usize = 27;
pub const MAX_TIMESTAMP_OFFSET: usize = 35;
pub const PRODUCER_ID_OFFSET: usize = 43;
pub const PRODUCER_EPOCH_OFFSET: usize = 51;
pub const BASE_SEQUENCE_OFFSET: usize = 53;
pub const RECORDS_COUNT_OFFSET: usize = 57;

const TIMESTAMP_TYPE_MASK: i16 = 0x08;
const TRANSACTIONAL_MASK: i16 = 0x10;
const CONTROL_MASK: i16 = 0x20;
const DELETE_HORIZON_MASK: i16 = 0x40;
const COMPRESSION_MASK: i16 = 0x07;

/// The batch header, decoded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchHeader {
    pub base_offset: i64,
    pub batch_length: i32,
    pub partition_leader_epoch: i32,
    pub magic: i8,
    pub crc: u32,
    pub attributes: i16,
    pub last_offset_delta: i32,
    pub base_timestamp: i64,
    pub max_timestamp: i64,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub records_count: i32,
}

impl BatchHeader {
    pub fn last_offset(&self) -> i64 {
        // Wraps as Java's long does: a corrupt header must not panic.
        self.base_offset.wrapping_add(self.last_offset_delta as i64)
    }
    pub fn next_offset(&self) -> i64 {
        self.last_offset() + 1
    }
    /// Whole batch, `baseOffset` and `batchLength` included.
    pub fn size_in_bytes(&self) -> u64 {
        self.batch_length as u64 + LOG_OVERHEAD as u64
    }
    pub fn compression_code(&self) -> i16 {
        self.attributes & COMPRESSION_MASK
    }
    pub fn is_log_append_time(&self) -> bool {
        self.attributes & TIMESTAMP_TYPE_MASK != 0
    }
    pub fn is_transactional(&self) -> bool {
        self.attributes & TRANSACTIONAL_MASK != 0
    }
    pub fn is_control(&self) -> bool {
        self.attributes & CONTROL_MASK != 0
    }
    /// KIP-534: the cleaner stores a tombstone's delete horizon in `baseTimestamp`.
    pub fn has_delete_horizon(&self) -> bool {
        self.attributes & DELETE_HORIZON_MASK != 0
    }
    pub fn has_producer_id(&self) -> bool {
        self.producer_id >= 0
    }
    /// The sequence number of the batch's last record (wrapping as Kafka does).
    pub fn last_sequence(&self) -> i32 {
        if self.base_sequence == NO_SEQUENCE {
            return NO_SEQUENCE;
        }
        let s = self.base_sequence as i64 + self.last_offset_delta as i64;
        if s > i32::MAX as i64 {
            (s - i32::MAX as i64 - 1) as i32
        } else {
            s as i32
        }
    }
}

/// One record header (`Header` in Kafka).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordHeader {
    pub key: String,
    pub value: Option<Vec<u8>>,
}

/// A record as stored inside a batch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Bytes of the record body, as in its leading `length` varint.
    pub length: i32,
    pub attributes: i8,
    pub timestamp_delta: i64,
    pub offset_delta: i32,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    pub headers: Vec<RecordHeader>,
}

/// A record to be written: what a producer hands to the batch builder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewRecord {
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    pub timestamp: i64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<RecordHeader>,
    /// Offset delta to write; `None` = the record's position in the batch.
    /// (Only the log cleaner writes gaps, when it drops records.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset_delta: Option<i32>,
}

impl NewRecord {
    pub fn new(key: Option<&[u8]>, value: Option<&[u8]>, timestamp: i64) -> NewRecord {
        NewRecord {
            key: key.map(<[u8]>::to_vec),
            value: value.map(<[u8]>::to_vec),
            timestamp,
            headers: Vec::new(),
            offset_delta: None,
        }
    }
}

/// The batch-level fields a writer chooses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchSpec {
    pub base_offset: i64,
    pub partition_leader_epoch: i32,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub log_append_time: bool,
    /// Set by the cleaner (KIP-534); replaces `baseTimestamp`.
    pub delete_horizon_ms: Option<i64>,
    /// `lastOffsetDelta` to write; `None` = records count − 1. The cleaner keeps
    /// the original delta so a batch's last offset survives compaction.
    pub last_offset_delta: Option<i32>,
    /// Attribute bit 4: written inside a transaction (KIP-98).
    #[serde(default)]
    pub transactional: bool,
    /// Attribute bit 5: a control batch (a transaction marker).
    #[serde(default)]
    pub control: bool,
}

impl Default for BatchSpec {
    fn default() -> Self {
        BatchSpec {
            base_offset: 0,
            partition_leader_epoch: NO_PARTITION_LEADER_EPOCH,
            producer_id: NO_PRODUCER_ID,
            producer_epoch: NO_PRODUCER_EPOCH,
            base_sequence: NO_SEQUENCE,
            log_append_time: false,
            delete_horizon_ms: None,
            last_offset_delta: None,
            transactional: false,
            control: false,
        }
    }
}

fn bytes_field_size(b: &Option<Vec<u8>>) -> usize {
    match b {
        None => varint_size(-1),
        Some(v) => varint_size(v.len() as i32) + v.len(),
    }
}

fn write_bytes_field(out: &mut Vec<u8>, b: &Option<Vec<u8>>) {
    match b {
        None => write_varint(out, -1),
        Some(v) => {
            write_varint(out, v.len() as i32);
            out.extend_from_slice(v);
        }
    }
}

/// Size in bytes of one record body (what its `length` varint holds).
pub fn record_body_size(offset_delta: i32, timestamp_delta: i64, r: &NewRecord) -> usize {
    let mut n = 1; // attributes
    n += varlong_size(timestamp_delta);
    n += varint_size(offset_delta);
    n += bytes_field_size(&r.key);
    n += bytes_field_size(&r.value);
    n += varint_size(r.headers.len() as i32);
    for h in &r.headers {
        n += varint_size(h.key.len() as i32) + h.key.len();
        n += bytes_field_size(&h.value);
    }
    n
}

/// Size of a whole batch holding `records`, as `build_batch` would write it.
pub fn batch_size(records: &[NewRecord]) -> usize {
    let base_ts = records.first().map(|r| r.timestamp).unwrap_or(NO_TIMESTAMP);
    let mut n = RECORD_BATCH_OVERHEAD;
    for (i, r) in records.iter().enumerate() {
        let delta = r.offset_delta.unwrap_or(i as i32);
        let body = record_body_size(delta, r.timestamp - base_ts, r);
        n += varint_size(body as i32) + body;
    }
    n
}

/// Encodes a batch exactly as Kafka's `MemoryRecordsBuilder` does for an
/// uncompressed v2 batch: `baseTimestamp` is the first record's timestamp,
/// `maxTimestamp` the largest (or the append time), deltas relative to them.
pub fn build_batch(spec: &BatchSpec, records: &[NewRecord]) -> Vec<u8> {
    let first_ts = records.first().map(|r| r.timestamp).unwrap_or(NO_TIMESTAMP);
    // With a delete horizon (KIP-534) `baseTimestamp` holds the horizon and the
    // record deltas are taken from it, as MemoryRecordsBuilder does.
    let base_ts = spec.delete_horizon_ms.unwrap_or(first_ts);
    let max_ts = records
        .iter()
        .map(|r| r.timestamp)
        .max()
        .unwrap_or(NO_TIMESTAMP);
    let mut out = Vec::with_capacity(batch_size(records));
    out.extend_from_slice(&spec.base_offset.to_be_bytes());
    out.extend_from_slice(&0i32.to_be_bytes()); // batchLength, patched below
    out.extend_from_slice(&spec.partition_leader_epoch.to_be_bytes());
    out.push(MAGIC_V2 as u8);
    out.extend_from_slice(&0u32.to_be_bytes()); // crc, patched below
    let mut attributes: i16 = 0;
    if spec.log_append_time {
        attributes |= TIMESTAMP_TYPE_MASK;
    }
    if spec.transactional {
        attributes |= TRANSACTIONAL_MASK;
    }
    if spec.control {
        attributes |= CONTROL_MASK;
    }
    if spec.delete_horizon_ms.is_some() {
        attributes |= DELETE_HORIZON_MASK;
    }
    out.extend_from_slice(&attributes.to_be_bytes());
    let last_delta = spec.last_offset_delta.unwrap_or_else(|| {
        records
            .last()
            .map(|r| r.offset_delta.unwrap_or(records.len() as i32 - 1))
            .unwrap_or(0)
    });
    out.extend_from_slice(&last_delta.to_be_bytes());
    out.extend_from_slice(&base_ts.to_be_bytes());
    out.extend_from_slice(&max_ts.to_be_bytes());
    out.extend_from_slice(&spec.producer_id.to_be_bytes());
    out.extend_from_slice(&spec.producer_epoch.to_be_bytes());
    out.extend_from_slice(&spec.base_sequence.to_be_bytes());
    out.extend_from_slice(&(records.len() as i32).to_be_bytes());
    for (i, r) in records.iter().enumerate() {
        let delta = r.offset_delta.unwrap_or(i as i32);
        let ts_delta = r.timestamp - base_ts;
        let body = record_body_size(delta, ts_delta, r);
        write_varint(&mut out, body as i32);
        out.push(0); // record attributes: unused, always 0
        write_varlong(&mut out, ts_delta);
        write_varint(&mut out, delta);
        write_bytes_field(&mut out, &r.key);
        write_bytes_field(&mut out, &r.value);
        write_varint(&mut out, r.headers.len() as i32);
        for h in &r.headers {
            write_varint(&mut out, h.key.len() as i32);
            out.extend_from_slice(h.key.as_bytes());
            write_bytes_field(&mut out, &h.value);
        }
    }
    let batch_length = (out.len() - LOG_OVERHEAD) as i32;
    out[LENGTH_OFFSET..LENGTH_OFFSET + 4].copy_from_slice(&batch_length.to_be_bytes());
    let crc = crc32c(&out[ATTRIBUTES_OFFSET..]);
    out[CRC_OFFSET..CRC_OFFSET + 4].copy_from_slice(&crc.to_be_bytes());
    out
}

/// The type of a transaction marker (`ControlRecordType`: ABORT = 0,
/// COMMIT = 1; the other types belong to KRaft's own log).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ControlType {
    Abort,
    Commit,
}

impl ControlType {
    /// The type id written in the control record's key.
    pub fn id(self) -> i16 {
        match self {
            ControlType::Abort => 0,
            ControlType::Commit => 1,
        }
    }
    /// Kafka's name, as `kafka-dump-log` prints it.
    pub fn name(self) -> &'static str {
        match self {
            ControlType::Abort => "ABORT",
            ControlType::Commit => "COMMIT",
        }
    }
}

/// A COMMIT or ABORT marker (`EndTransactionMarker`): the one record of a
/// control batch, written by a partition's leader when the transaction
/// coordinator sends WriteTxnMarkers.
///
/// Key (`ControlRecordType.recordKey`, 4 bytes): `version: int16 = 0`,
/// `type: int16`. Value (`END_TXN_MARKER_SCHEMA_VERSION_V0`, 6 bytes):
/// `version: int16 = 0`, `coordinator_epoch: int32`. The batch is
/// transactional and control, carries the producer id and epoch, and has no
/// sequence (`MemoryRecords.writeEndTransactionalMarker`, Kafka 3.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndTxnMarker {
    pub control_type: ControlType,
    pub coordinator_epoch: i32,
}

/// Size of a marker batch: the 61-byte header and one 17-byte record
/// (`CURRENT_END_TXN_SCHEMA_RECORD_SIZE`).
pub const END_TXN_MARKER_BATCH_SIZE: usize = RECORD_BATCH_OVERHEAD + 17;

impl EndTxnMarker {
    /// The control record's key: version 0, then the type.
    pub fn key(&self) -> Vec<u8> {
        let mut k = 0i16.to_be_bytes().to_vec();
        k.extend_from_slice(&self.control_type.id().to_be_bytes());
        k
    }
    /// The control record's value: version 0, then the coordinator epoch.
    pub fn value(&self) -> Vec<u8> {
        let mut v = 0i16.to_be_bytes().to_vec();
        v.extend_from_slice(&self.coordinator_epoch.to_be_bytes());
        v
    }

    /// Reads a control record back (`EndTransactionMarker.deserialize`,
    /// 3.9 lines 96-124): a control type other than ABORT or COMMIT is an
    /// error, as Kafka's `ensureTransactionMarkerControlType` throws for it.
    pub fn parse(r: &Record) -> Result<EndTxnMarker, String> {
        let control_type = match ControlRecordType::parse(r)? {
            (ControlRecordType::Abort, _) => ControlType::Abort,
            (ControlRecordType::Commit, _) => ControlType::Commit,
            // Kafka's message, its missing space included.
            (other, _) => {
                return Err(format!(
                    "Invalid control record type for end transaction marker{}",
                    other.name()
                ))
            }
        };
        let value = r.value.as_deref().unwrap_or_default();
        if value.len() < 6 {
            return Err(format!(
                "an end transaction marker value needs 6 bytes (version, coordinator_epoch), found {}",
                value.len()
            ));
        }
        let version = i16::from_be_bytes([value[0], value[1]]);
        if version < 0 {
            return Err(format!(
                "end transaction marker version {version} is negative"
            ));
        }
        Ok(EndTxnMarker {
            control_type,
            coordinator_epoch: i32::from_be_bytes([value[2], value[3], value[4], value[5]]),
        })
    }
}

/// Every control record type Kafka 3.9 names (`ControlRecordType`, lines
/// 45-56): the transaction markers, and KRaft's own (leader change,
/// snapshot header and footer, kraft.version, voters). An id it does not
/// know is UNKNOWN (-1), never an error (`fromTypeId`, lines 104-124).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ControlRecordType {
    Abort,
    Commit,
    LeaderChange,
    SnapshotHeader,
    SnapshotFooter,
    KraftVersion,
    KraftVoters,
    Unknown,
}

impl ControlRecordType {
    /// `ControlRecordType.fromTypeId`.
    pub fn from_type_id(id: i16) -> Self {
        match id {
            0 => Self::Abort,
            1 => Self::Commit,
            2 => Self::LeaderChange,
            3 => Self::SnapshotHeader,
            4 => Self::SnapshotFooter,
            5 => Self::KraftVersion,
            6 => Self::KraftVoters,
            _ => Self::Unknown,
        }
    }

    /// Kafka's enum name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Abort => "ABORT",
            Self::Commit => "COMMIT",
            Self::LeaderChange => "LEADER_CHANGE",
            Self::SnapshotHeader => "SNAPSHOT_HEADER",
            Self::SnapshotFooter => "SNAPSHOT_FOOTER",
            Self::KraftVersion => "KRAFT_VERSION",
            Self::KraftVoters => "KRAFT_VOTERS",
            Self::Unknown => "UNKNOWN",
        }
    }

    /// `ControlRecordType.parse`: the type of a control record and the id in
    /// its key (`parseTypeId`, lines 88-102: a key under 4 bytes or a
    /// negative version is an error).
    pub fn parse(r: &Record) -> Result<(Self, i16), String> {
        let key = r.key.as_deref().unwrap_or_default();
        if key.len() < 4 {
            return Err(format!(
                "a control record key needs 4 bytes (version, type), found {}",
                key.len()
            ));
        }
        let version = i16::from_be_bytes([key[0], key[1]]);
        if version < 0 {
            return Err(format!("control record key version {version} is negative"));
        }
        let id = i16::from_be_bytes([key[2], key[3]]);
        Ok((Self::from_type_id(id), id))
    }
}

/// What `kafka-dump-log` prints for a control record (`DumpLogSegments`,
/// 3.9 lines 311-331): a transaction marker's type and coordinator epoch,
/// any other type by name and id (`controlType: UNKNOWN(9)`), or what is
/// wrong with it.
pub fn describe_control(r: &Record) -> String {
    match ControlRecordType::parse(r) {
        Ok((ControlRecordType::Abort | ControlRecordType::Commit, _)) => {
            match EndTxnMarker::parse(r) {
                Ok(m) => format!(
                    "endTxnMarker: {} coordinatorEpoch: {}",
                    m.control_type.name(),
                    m.coordinator_epoch
                ),
                Err(e) => format!("invalid control record: {e}"),
            }
        }
        Ok((t, id)) => format!("controlType: {}({id})", t.name()),
        Err(e) => format!("invalid control record: {e}"),
    }
}

/// A marker batch as a leader writes it: transactional, control, the
/// producer's id and epoch, no sequence, one record at `timestamp`
/// (`MemoryRecordsBuilder.appendEndTxnMarker`).
pub fn build_end_txn_marker(
    base_offset: i64,
    timestamp: i64,
    partition_leader_epoch: i32,
    producer_id: i64,
    producer_epoch: i16,
    marker: EndTxnMarker,
) -> Vec<u8> {
    let record = NewRecord::new(Some(&marker.key()), Some(&marker.value()), timestamp);
    build_batch(
        &BatchSpec {
            base_offset,
            partition_leader_epoch,
            producer_id,
            producer_epoch,
            transactional: true,
            control: true,
            ..BatchSpec::default()
        },
        &[record],
    )
}

/// The marker of a control batch (`None`: not a control batch, or an empty
/// one). A control type that is not a transaction marker is an error, as
/// `ProducerAppendInfo.append` deserializes every non-empty control batch
/// (3.9 lines 149-157).
pub fn marker_of(batch: &DecodedBatch) -> Result<Option<EndTxnMarker>, String> {
    if !batch.header.is_control() {
        return Ok(None);
    }
    match batch.records.first() {
        Some(r) => EndTxnMarker::parse(r).map(Some),
        // An empty control batch: the cleaner removed the whole transaction.
        None => Ok(None),
    }
}

/// The smallest `batchLength` a header may give: the header after the
/// length field, with no records.
const MIN_BATCH_LENGTH: i32 = (RECORD_BATCH_OVERHEAD - LOG_OVERHEAD) as i32;

/// Bytes of a header that hold the base offset, the length, the magic and
/// the last offset delta (what [`read_span`] reads).
pub const SPAN_BYTES: usize = LAST_OFFSET_DELTA_OFFSET + 4;

/// The last offset and the size in bytes of the batch whose header starts
/// `bytes`, when the length and magic pass [`read_header`]'s checks (`None`
/// otherwise, or when `bytes` is shorter than [`SPAN_BYTES`]).
pub fn read_span(bytes: &[u8]) -> Option<(i64, u64)> {
    let h = bytes.first_chunk::<SPAN_BYTES>()?;
    let base_offset = i64::from_be_bytes(*h.first_chunk::<8>()?);
    let batch_length = i32::from_be_bytes(h[LENGTH_OFFSET..LENGTH_OFFSET + 4].try_into().ok()?);
    let delta = i32::from_be_bytes(h[LAST_OFFSET_DELTA_OFFSET..SPAN_BYTES].try_into().ok()?);
    let ok = batch_length >= MIN_BATCH_LENGTH && h[MAGIC_OFFSET] as i8 == MAGIC_V2;
    ok.then(|| {
        (
            base_offset.wrapping_add(delta as i64),
            batch_length as u64 + LOG_OVERHEAD as u64,
        )
    })
}

/// Reads the 61-byte header at the start of `bytes` (`pos` = its position in
/// the file, for messages). Checks magic and length, not the CRC.
pub fn read_header(bytes: &[u8], pos: u64) -> Result<BatchHeader, DecodeError> {
    let mut r = Reader::new(bytes, pos);
    let base_offset = r.i64("baseOffset")?;
    let batch_length = r.i32("batchLength")?;
    if batch_length < MIN_BATCH_LENGTH {
        return Err(DecodeError {
            position: pos + LENGTH_OFFSET as u64,
            field: "batchLength",
            message: format!(
                "{batch_length} is smaller than the minimum batch size {} (record batch is corrupt)",
                RECORD_BATCH_OVERHEAD - LOG_OVERHEAD
            ),
        });
    }
    let partition_leader_epoch = r.i32("partitionLeaderEpoch")?;
    let magic = r.i8("magic")?;
    if magic != MAGIC_V2 {
        return Err(DecodeError {
            position: pos + MAGIC_OFFSET as u64,
            field: "magic",
            message: format!("magic {magic} is not supported (only v2 record batches, magic 2)"),
        });
    }
    Ok(BatchHeader {
        base_offset,
        batch_length,
        partition_leader_epoch,
        magic,
        crc: r.u32("crc")?,
        attributes: r.i16("attributes")?,
        last_offset_delta: r.i32("lastOffsetDelta")?,
        base_timestamp: r.i64("baseTimestamp")?,
        max_timestamp: r.i64("maxTimestamp")?,
        producer_id: r.i64("producerId")?,
        producer_epoch: r.i16("producerEpoch")?,
        base_sequence: r.i32("baseSequence")?,
        records_count: r.i32("recordsCount")?,
    })
}

/// A batch read back from bytes, with its CRC checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecodedBatch {
    /// Position of the batch in the file it was read from.
    pub position: u64,
    pub header: BatchHeader,
    pub computed_crc: u32,
    pub records: Vec<Record>,
}

impl DecodedBatch {
    pub fn crc_valid(&self) -> bool {
        self.computed_crc == self.header.crc
    }
    /// Absolute offset of the `i`th record.
    pub fn offset_of(&self, r: &Record) -> i64 {
        self.header.base_offset + r.offset_delta as i64
    }
    /// Absolute timestamp of a record (its delta from `baseTimestamp`; with
    /// `LogAppendTime`, the batch's `maxTimestamp`).
    pub fn timestamp_of(&self, r: &Record) -> i64 {
        if self.header.is_log_append_time() {
            self.header.max_timestamp
        } else {
            self.header.base_timestamp + r.timestamp_delta
        }
    }
}

fn read_bytes_field(
    r: &mut Reader<'_>,
    field: &'static str,
) -> Result<Option<Vec<u8>>, DecodeError> {
    let len = r.varint(field)?;
    if len == -1 {
        return Ok(None);
    }
    if len < -1 {
        return Err(DecodeError {
            position: 0,
            field,
            message: format!("length {len} is negative"),
        });
    }
    Ok(Some(r.take(len as usize, field)?.to_vec()))
}

/// Decodes the batch at the start of `bytes` (`pos` = its file position).
/// Records are decoded even when the CRC does not match, so a dump can show
/// them next to the bad checksum; use [`DecodedBatch::crc_valid`].
pub fn decode_batch(bytes: &[u8], pos: u64) -> Result<DecodedBatch, DecodeError> {
    let header = read_header(bytes, pos)?;
    let size = header.size_in_bytes() as usize;
    if bytes.len() < size {
        return Err(DecodeError {
            position: pos + LENGTH_OFFSET as u64,
            field: "batchLength",
            message: format!(
                "batch claims {size} bytes but only {} are present",
                bytes.len()
            ),
        });
    }
    let body = &bytes[..size];
    let computed_crc = crc32c(&body[ATTRIBUTES_OFFSET..]);
    if header.records_count < 0 {
        return Err(DecodeError {
            position: pos + RECORDS_COUNT_OFFSET as u64,
            field: "recordsCount",
            message: format!("{} is negative", header.records_count),
        });
    }
    let mut r = Reader::new(
        &body[RECORD_BATCH_OVERHEAD..],
        pos + RECORD_BATCH_OVERHEAD as u64,
    );
    // Each record takes at least 7 bytes, so a huge count cannot make us allocate.
    let mut records =
        Vec::with_capacity((header.records_count as usize).min(r.remaining() / 7 + 1));
    for _ in 0..header.records_count {
        let start = r.position();
        let length = r.varint("record length")?;
        if length < 0 {
            return Err(DecodeError {
                position: pos + (RECORD_BATCH_OVERHEAD + start) as u64,
                field: "record length",
                message: format!("{length} is negative"),
            });
        }
        let body_start = r.position();
        let attributes = r.i8("record attributes")?;
        let timestamp_delta = r.varlong("timestampDelta")?;
        let offset_delta = r.varint("offsetDelta")?;
        let key = read_bytes_field(&mut r, "keyLength").map_err(|e| fix_pos(e, pos, &r))?;
        let value = read_bytes_field(&mut r, "valueLength").map_err(|e| fix_pos(e, pos, &r))?;
        let n_headers = r.varint("headers count")?;
        if n_headers < 0 {
            return Err(DecodeError {
                position: pos + (RECORD_BATCH_OVERHEAD + r.position()) as u64,
                field: "headers count",
                message: format!("{n_headers} is negative"),
            });
        }
        let mut headers = Vec::new();
        for _ in 0..n_headers {
            let klen = r.varint("headerKeyLength")?;
            if klen < 0 {
                return Err(DecodeError {
                    position: pos + (RECORD_BATCH_OVERHEAD + r.position()) as u64,
                    field: "headerKeyLength",
                    message: format!("{klen} is negative"),
                });
            }
            let k = r.take(klen as usize, "headerKey")?;
            let key = String::from_utf8_lossy(k).into_owned();
            let value =
                read_bytes_field(&mut r, "headerValueLength").map_err(|e| fix_pos(e, pos, &r))?;
            headers.push(RecordHeader { key, value });
        }
        let consumed = r.position() - body_start;
        if consumed != length as usize {
            return Err(DecodeError {
                position: pos + (RECORD_BATCH_OVERHEAD + start) as u64,
                field: "record length",
                message: format!("says {length} bytes but the record's fields take {consumed}"),
            });
        }
        records.push(Record {
            length,
            attributes,
            timestamp_delta,
            offset_delta,
            key,
            value,
            headers,
        });
    }
    if r.remaining() != 0 {
        return Err(DecodeError {
            position: pos + (RECORD_BATCH_OVERHEAD + r.position()) as u64,
            field: "recordsCount",
            message: format!(
                "{} records leave {} unread bytes in the batch",
                header.records_count,
                r.remaining()
            ),
        });
    }
    Ok(DecodedBatch {
        position: pos,
        header,
        computed_crc,
        records,
    })
}

/// One field of a batch where it sits in the bytes, for a hex view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldSpan {
    /// Kafka's name for the field (`baseOffset`, `timestampDelta`, ...).
    pub name: &'static str,
    /// Byte range within the batch.
    pub start: usize,
    pub len: usize,
    /// The decoded value, as text.
    pub value: String,
    /// The record it belongs to (None: the batch header).
    pub record: Option<u32>,
}

/// The batch at the start of `bytes`, field by field with byte ranges that
/// cover it exactly (header, then each record's varints, key, value and
/// headers). Fails as [`decode_batch`] does on a malformed batch.
pub fn batch_layout(bytes: &[u8]) -> Result<Vec<FieldSpan>, DecodeError> {
    let decoded = decode_batch(bytes, 0)?;
    let h = &decoded.header;
    let body = &bytes[..h.size_in_bytes() as usize];
    let mut r = Reader::new(body, 0);
    let mut out = Vec::new();
    let mut push = |r: &Reader<'_>, start: usize, name, record, value: String| {
        out.push(FieldSpan {
            name,
            start,
            len: r.position() - start,
            value,
            record,
        })
    };
    macro_rules! field {
        ($name:expr, $rec:expr, $read:expr) => {{
            let start = r.position();
            let v = $read(&mut r)?;
            push(&r, start, $name, $rec, v);
        }};
    }
    let text = |b: &[u8]| format!("\"{}\"", String::from_utf8_lossy(b));
    field!("baseOffset", None, |r: &mut Reader<'_>| r
        .i64("baseOffset")
        .map(|v| v.to_string()));
    field!("batchLength", None, |r: &mut Reader<'_>| r
        .i32("batchLength")
        .map(|v| v.to_string()));
    field!("partitionLeaderEpoch", None, |r: &mut Reader<'_>| r
        .i32("partitionLeaderEpoch")
        .map(|v| v.to_string()));
    field!("magic", None, |r: &mut Reader<'_>| r
        .i8("magic")
        .map(|v| v.to_string()));
    let crc_ok = decoded.crc_valid();
    field!("crc", None, |r: &mut Reader<'_>| r.u32("crc").map(
        |v| format!(
            "0x{v:08x} (CRC-32C of attributes…end: {})",
            if crc_ok { "valid" } else { "INVALID" }
        )
    ));
    field!("attributes", None, |r: &mut Reader<'_>| r
        .i16("attributes")
        .map(|v| format!(
            "{v} (compression {}, {}{}{})",
            v & 0x7,
            if v & 0x8 != 0 {
                "LogAppendTime"
            } else {
                "CreateTime"
            },
            if v & 0x10 != 0 { ", transactional" } else { "" },
            if v & 0x20 != 0 { ", control" } else { "" }
        )));
    field!("lastOffsetDelta", None, |r: &mut Reader<'_>| r
        .i32("lastOffsetDelta")
        .map(|v| v.to_string()));
    field!("baseTimestamp", None, |r: &mut Reader<'_>| r
        .i64("baseTimestamp")
        .map(|v| v.to_string()));
    field!("maxTimestamp", None, |r: &mut Reader<'_>| r
        .i64("maxTimestamp")
        .map(|v| v.to_string()));
    field!("producerId", None, |r: &mut Reader<'_>| r
        .i64("producerId")
        .map(|v| v.to_string()));
    field!("producerEpoch", None, |r: &mut Reader<'_>| r
        .i16("producerEpoch")
        .map(|v| v.to_string()));
    field!("baseSequence", None, |r: &mut Reader<'_>| r
        .i32("baseSequence")
        .map(|v| v.to_string()));
    field!("recordsCount", None, |r: &mut Reader<'_>| r
        .i32("recordsCount")
        .map(|v| v.to_string()));
    for i in 0..h.records_count.max(0) as u32 {
        let rec = Some(i);
        let num = |v: i64| v.to_string();
        field!("length", rec, |r: &mut Reader<'_>| r
            .varint("length")
            .map(|v| num(v as i64)));
        field!("attributes", rec, |r: &mut Reader<'_>| r
            .i8("attributes")
            .map(|v| num(v as i64)));
        field!("timestampDelta", rec, |r: &mut Reader<'_>| r
            .varlong("timestampDelta")
            .map(num));
        field!("offsetDelta", rec, |r: &mut Reader<'_>| r
            .varint("offsetDelta")
            .map(|v| format!("{v} (offset {})", h.base_offset + v as i64)));
        for (len_name, name) in [("keyLength", "key"), ("valueLength", "value")] {
            let start = r.position();
            let n = r.varint(len_name)?;
            push(&r, start, len_name, rec, n.to_string());
            if n > 0 {
                let start = r.position();
                let b = r.take(n as usize, name)?;
                push(&r, start, name, rec, text(b));
            }
        }
        let start = r.position();
        let n = r.varint("headersCount")?;
        push(&r, start, "headersCount", rec, n.to_string());
        for _ in 0..n {
            let start = r.position();
            let k = r.varint("headerKeyLength")?;
            push(&r, start, "headerKeyLength", rec, k.to_string());
            let start = r.position();
            let b = r.take(k.max(0) as usize, "headerKey")?;
            push(&r, start, "headerKey", rec, text(b));
            let start = r.position();
            let v = r.varint("headerValueLength")?;
            push(&r, start, "headerValueLength", rec, v.to_string());
            if v > 0 {
                let start = r.position();
                let b = r.take(v as usize, "headerValue")?;
                push(&r, start, "headerValue", rec, text(b));
            }
        }
    }
    Ok(out)
}

fn fix_pos(mut e: DecodeError, pos: u64, r: &Reader<'_>) -> DecodeError {
    if e.position == 0 {
        e.position = pos + (RECORD_BATCH_OVERHEAD + r.position()) as u64;
    }
    e
}

/// Checks a batch the way a broker does before appending it
/// (`DefaultRecordBatch.ensureValid`): size, magic, then the CRC.
pub fn ensure_valid(bytes: &[u8], pos: u64) -> Result<BatchHeader, DecodeError> {
    let h = read_header(bytes, pos)?;
    let size = h.size_in_bytes() as usize;
    if bytes.len() < size {
        return Err(DecodeError {
            position: pos + LENGTH_OFFSET as u64,
            field: "batchLength",
            message: format!(
                "batch claims {size} bytes but only {} are present",
                bytes.len()
            ),
        });
    }
    let computed = crc32c(&bytes[ATTRIBUTES_OFFSET..size]);
    if computed != h.crc {
        return Err(DecodeError {
            position: pos + CRC_OFFSET as u64,
            field: "crc",
            message: format!(
                "record is corrupt (stored crc = {}, computed crc = {computed})",
                h.crc
            ),
        });
    }
    Ok(h)
}

/// Stamps offsets into a batch, as the leader does on append
/// (`setLastOffset`): not covered by the CRC.
pub fn set_base_offset(bytes: &mut [u8], base_offset: i64) {
    bytes[BASE_OFFSET_OFFSET..BASE_OFFSET_OFFSET + 8].copy_from_slice(&base_offset.to_be_bytes());
}

/// Stamps the leader epoch into a batch (`setPartitionLeaderEpoch`).
pub fn set_partition_leader_epoch(bytes: &mut [u8], epoch: i32) {
    bytes[PARTITION_LEADER_EPOCH_OFFSET..PARTITION_LEADER_EPOCH_OFFSET + 4]
        .copy_from_slice(&epoch.to_be_bytes());
}

/// `setMaxTimestamp(LOG_APPEND_TIME, now)`: sets the type bit and the time, and
/// recomputes the CRC (both fields are covered by it).
pub fn set_log_append_time(bytes: &mut [u8], now: i64) {
    let mut attrs = i16::from_be_bytes([bytes[ATTRIBUTES_OFFSET], bytes[ATTRIBUTES_OFFSET + 1]]);
    attrs |= TIMESTAMP_TYPE_MASK;
    bytes[ATTRIBUTES_OFFSET..ATTRIBUTES_OFFSET + 2].copy_from_slice(&attrs.to_be_bytes());
    bytes[MAX_TIMESTAMP_OFFSET..MAX_TIMESTAMP_OFFSET + 8].copy_from_slice(&now.to_be_bytes());
    let len =
        i32::from_be_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize + LOG_OVERHEAD;
    let crc = crc32c(&bytes[ATTRIBUTES_OFFSET..len]);
    bytes[CRC_OFFSET..CRC_OFFSET + 4].copy_from_slice(&crc.to_be_bytes());
}

/// Splits a buffer of back-to-back batches (a `MemoryRecords`) into their
/// headers and positions, checking each one's CRC.
pub fn split_batches(bytes: &[u8]) -> Result<Vec<(usize, BatchHeader)>, DecodeError> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos < bytes.len() {
        let h = ensure_valid(&bytes[pos..], pos as u64)?;
        let size = h.size_in_bytes() as usize;
        out.push((pos, h));
        pos += size;
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
