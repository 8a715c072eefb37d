//! The records of `__transaction_state`, byte for byte
//! (`TransactionLog.keyToBytes` / `valueToBytes`, Kafka 3.9).
//!
//! * key: version 0 (int16), then `TransactionalId` (string: int16 length);
//! * value: version 0 (int16; Kafka 3.9 writes version 1, the flexible
//!   one, only when the `transaction.version` feature is above 0, which a
//!   ZooKeeper cluster does not finalize: `usesFlexibleRecords`; both are
//!   read back, as `readTxnRecordValue` does), then
//!   `ProducerId` int64, `ProducerEpoch` int16, `TransactionTimeoutMs` int32,
//!   `TransactionStatus` int8, `TransactionPartitions` (nullable array,
//!   int32 count, −1 for null: null in Empty) of `{Topic, PartitionIds
//!   [int32]}`, `TransactionLastUpdateTimestampMs` int64,
//!   `TransactionStartTimestampMs` int64.
//!
//! One choice is ours: Kafka groups the partitions by topic from a hash set,
//! so its order of topics and partition ids is the set's iteration order;
//! here they are sorted. A record with one topic and partitions in order is
//! byte-identical.

use super::metadata::{TxnState, TxnTransit};
use crate::collections::SortedSet;
use crate::group_records::{R, W};
use crate::ids::TopicPartition;

/// The key of a transactional id's record.
pub fn key(transactional_id: &str) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.i16(0);
    w.str(transactional_id);
    w.0
}

/// The value of a transition (`valueToBytes`, version 0).
pub fn value(t: &TxnTransit) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.i16(0);
    w.i64(t.producer_id);
    w.i16(t.producer_epoch);
    w.i32(t.txn_timeout_ms);
    w.0.push(t.state.id() as u8);
    if t.state == TxnState::Empty {
        w.i32(-1);
    } else {
        let tps: Vec<TopicPartition> = t.partitions.iter().cloned().collect();
        w.partitions(&tps);
    }
    w.i64(t.last_update_ms);
    w.i64(t.txn_start_ms);
    w.0
}

/// A record read back (`readTxnRecordKey` + `readTxnRecordValue`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxnRecord {
    /// The `transactional.id`.
    pub transactional_id: String,
    /// The stored state; `None` for a tombstone (the id expired).
    pub value: Option<StoredTxn>,
}

/// What a value holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredTxn {
    /// The producer id.
    pub producer_id: i64,
    /// The producer epoch.
    pub producer_epoch: i16,
    /// `transaction.timeout.ms`.
    pub txn_timeout_ms: i32,
    /// The state.
    pub state: TxnState,
    /// The partitions (empty in Empty).
    pub partitions: SortedSet<TopicPartition>,
    /// When it last changed.
    pub last_update_ms: i64,
    /// When the transaction began.
    pub txn_start_ms: i64,
}

/// Reads a key; `None` if it is not a version-0 transaction log key.
pub fn parse_key(b: &[u8]) -> Option<String> {
    let mut r = R(b, 0);
    if r.i16()? != 0 {
        return None;
    }
    let id = r.str()?;
    (r.1 == b.len()).then_some(id)
}

/// Reads a value of version 0 or 1 (`TransactionLog.readTxnRecordValue`,
/// 3.9 lines 117-146: `TransactionLogValue.json` has versions 0-1, 1 the
/// flexible one with compact arrays and strings and tagged fields). The
/// partitions of an Empty value are ignored, and bytes after the last field
/// are not checked, as in Kafka. `None` if malformed or of another version.
pub fn parse_value(b: &[u8]) -> Option<StoredTxn> {
    let mut r = R(b, 0);
    let version = r.i16()?;
    if !(0..=1).contains(&version) {
        return None;
    }
    let flexible = version == 1;
    let producer_id = r.i64()?;
    let producer_epoch = r.i16()?;
    let txn_timeout_ms = r.i32()?;
    let state = TxnState::from_id(r.take(1)?[0] as i8)?;
    let mut partitions = SortedSet::new();
    // Nullable array: int32 count (-1 null) in v0, uvarint count + 1 (0
    // null) in v1.
    let topics = if flexible {
        uvarint(&mut r)?.checked_sub(1)
    } else {
        let n = r.i32()?;
        if n < -1 {
            return None;
        }
        u32::try_from(n).ok()
    };
    for _ in 0..topics.unwrap_or(0) {
        let topic = if flexible {
            let len = uvarint(&mut r)?.checked_sub(1)?;
            String::from_utf8(r.take(len as usize)?.to_vec()).ok()?
        } else {
            r.str()?
        };
        let ids = if flexible {
            uvarint(&mut r)?.checked_sub(1)?
        } else {
            u32::try_from(r.i32()?).ok()?
        };
        for _ in 0..ids {
            partitions.insert(TopicPartition::new(topic.as_str(), r.i32()?));
        }
        if flexible {
            skip_tagged_fields(&mut r)?;
        }
    }
    let last_update_ms = r.i64()?;
    let txn_start_ms = r.i64()?;
    if flexible {
        skip_tagged_fields(&mut r)?;
    }
    if state == TxnState::Empty {
        partitions.clear();
    }
    Some(StoredTxn {
        producer_id,
        producer_epoch,
        txn_timeout_ms,
        state,
        partitions,
        last_update_ms,
        txn_start_ms,
    })
}

/// An unsigned varint of a flexible version (at most 5 bytes).
fn uvarint(r: &mut R) -> Option<u32> {
    let mut v: u32 = 0;
    for i in 0..5 {
        let byte = r.take(1)?[0];
        v |= u32::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// Skips a tagged-field section: a count, then each field's tag, size and
/// bytes (unknown tags are kept aside by Kafka's reader and ignored).
fn skip_tagged_fields(r: &mut R) -> Option<()> {
    for _ in 0..uvarint(r)? {
        uvarint(r)?;
        let size = uvarint(r)?;
        r.take(size as usize)?;
    }
    Some(())
}

/// Reads a record: key, and value or tombstone.
pub fn parse(key: &[u8], value: Option<&[u8]>) -> Option<TxnRecord> {
    let transactional_id = parse_key(key)?;
    let value = match value {
        None => None,
        Some(v) => Some(parse_value(v)?),
    };
    Some(TxnRecord {
        transactional_id,
        value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transit(state: TxnState, parts: &[(&str, i32)]) -> TxnTransit {
        TxnTransit {
            producer_id: 1000,
            last_producer_id: 1000,
            producer_epoch: 3,
            last_producer_epoch: 2,
            txn_timeout_ms: 60_000,
            state,
            partitions: parts
                .iter()
                .map(|(t, p)| TopicPartition::new(*t, *p))
                .collect(),
            txn_start_ms: 1_700_000_000_000,
            last_update_ms: 1_700_000_000_500,
        }
    }

    #[test]
    fn the_key_is_version_0_and_a_short_string() {
        assert_eq!(key("tx-1"), vec![0, 0, 0, 4, b't', b'x', b'-', b'1']);
        assert_eq!(parse_key(&key("tx-1")).as_deref(), Some("tx-1"));
        assert_eq!(parse_key(&[0, 1, 0, 0]), None, "unknown key version");
    }

    #[test]
    fn a_value_is_laid_out_field_by_field() {
        let v = value(&transit(TxnState::Ongoing, &[("out", 1), ("out", 0)]));
        let mut want = vec![0u8, 0]; // version 0
        want.extend_from_slice(&1000i64.to_be_bytes());
        want.extend_from_slice(&3i16.to_be_bytes());
        want.extend_from_slice(&60_000i32.to_be_bytes());
        want.push(1); // Ongoing
        want.extend_from_slice(&1i32.to_be_bytes()); // one topic
        want.extend_from_slice(&[0, 3, b'o', b'u', b't']);
        want.extend_from_slice(&2i32.to_be_bytes());
        want.extend_from_slice(&0i32.to_be_bytes());
        want.extend_from_slice(&1i32.to_be_bytes());
        want.extend_from_slice(&1_700_000_000_500i64.to_be_bytes()); // last update
        want.extend_from_slice(&1_700_000_000_000i64.to_be_bytes()); // start
        assert_eq!(v, want);
        let back = parse_value(&v).unwrap();
        assert_eq!(back.state, TxnState::Ongoing);
        assert_eq!(back.partitions.len(), 2);
        assert_eq!((back.producer_id, back.producer_epoch), (1000, 3));
    }

    /// Version 1, the flexible one (`TransactionLogValue.json`, versions
    /// 0-1, flexible 1+), is read as Kafka 3.9 reads it: compact array and
    /// string lengths as uvarint + 1, an empty tag buffer after each topic
    /// and at the end; a tagged field is skipped. One topic "t" with
    /// partition 0 is 43 bytes (48 in version 0).
    #[test]
    fn a_version_1_value_is_read() {
        let mut v = vec![0u8, 1]; // version 1
        v.extend_from_slice(&1000i64.to_be_bytes());
        v.extend_from_slice(&3i16.to_be_bytes());
        v.extend_from_slice(&60_000i32.to_be_bytes());
        v.push(1); // Ongoing
        v.push(2); // one topic (count + 1)
        v.extend_from_slice(&[2, b't']); // "t" (length + 1)
        v.push(2); // one partition id
        v.extend_from_slice(&0i32.to_be_bytes());
        v.push(0); // the topic's tag buffer
        v.extend_from_slice(&1_700_000_000_500i64.to_be_bytes());
        v.extend_from_slice(&1_700_000_000_000i64.to_be_bytes());
        v.push(0); // the value's tag buffer
        assert_eq!(v.len(), 43);
        assert_eq!(value(&transit(TxnState::Ongoing, &[("t", 0)])).len(), 48);
        let back = parse_value(&v).expect("version 1 is read");
        assert_eq!(
            (
                back.producer_id,
                back.producer_epoch,
                back.txn_timeout_ms,
                back.state
            ),
            (1000, 3, 60_000, TxnState::Ongoing)
        );
        assert_eq!(back.partitions, [TopicPartition::new("t", 0)].into());
        assert_eq!(
            (back.last_update_ms, back.txn_start_ms),
            (1_700_000_000_500, 1_700_000_000_000)
        );
        // A tagged field (tag 5, 2 bytes) at the end is skipped.
        let mut tagged = v.clone();
        *tagged.last_mut().unwrap() = 1;
        tagged.extend_from_slice(&[5, 2, 0xab, 0xcd]);
        assert_eq!(parse_value(&tagged), Some(back.clone()));
        // A value cut anywhere is refused.
        for cut in 0..42 {
            assert_eq!(parse_value(&v[..cut]), None, "cut at {cut}");
        }
        // Version 2 is unknown to 3.9.
        let mut v2 = v;
        v2[1] = 2;
        assert_eq!(parse_value(&v2), None);
    }

    #[test]
    fn empty_writes_null_partitions_and_damage_is_refused() {
        let v = value(&transit(TxnState::Empty, &[]));
        // version, pid, epoch, timeout, status, then -1 for null.
        assert_eq!(&v[17..21], &(-1i32).to_be_bytes());
        assert_eq!(v.len(), 2 + 8 + 2 + 4 + 1 + 4 + 8 + 8);
        assert!(parse_value(&v).unwrap().partitions.is_empty());
        for cut in 0..v.len() {
            assert_eq!(parse_value(&v[..cut]), None, "cut at {cut}");
        }
        let mut bad = v.clone();
        bad[16] = 9; // no state 9
        assert_eq!(parse_value(&bad), None);
        // Kafka's reader does not look past the last field.
        let mut trailing = v;
        trailing.push(0);
        assert!(parse_value(&trailing).is_some());
        assert_eq!(parse(&key("t"), None).unwrap().value, None, "tombstone");
    }
}
