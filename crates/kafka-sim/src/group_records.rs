//! The records of `__consumer_offsets`, byte for byte as Kafka's group
//! coordinator writes them (`GroupMetadataManager`, the generated
//! `OffsetCommitKey`/`OffsetCommitValue` and `GroupMetadataKey`/
//! `GroupMetadataValue` schemas, and the consumer's embedded protocol,
//! `ConsumerProtocolSubscription` / `ConsumerProtocolAssignment`).
//!
//! * offset commit: key v1 `(group, topic, partition)`, value v3
//!   `(offset, leaderEpoch, metadata, commitTimestamp)`;
//! * group metadata: key v2 `(group)`, value v3 (protocol type, generation,
//!   protocol, leader, state timestamp, members with their subscription and
//!   assignment bytes).
//!
//! All of these are non-flexible versions: strings have an int16 length,
//! nullable ones −1 for null; arrays an int32 count; bytes an int32 length.

use crate::collections::SortedMap;
use crate::ids::TopicPartition;
use crate::msg::Subscription;

/// A key in `__consumer_offsets`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OffsetsKey {
    /// `OffsetCommitKey` (version 1): a group's committed offset of one partition.
    Offset {
        /// The group.
        group: String,
        /// The partition.
        tp: TopicPartition,
    },
    /// `GroupMetadataKey` (version 2): a group's metadata.
    Group {
        /// The group.
        group: String,
    },
}

/// A committed offset (`OffsetCommitValue` v3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffsetValue {
    /// The committed offset: the next record to consume.
    pub offset: i64,
    /// The leader epoch of the last consumed record (-1: unknown).
    pub leader_epoch: i32,
    /// The metadata string the consumer attached.
    pub metadata: String,
    /// When it was committed (ms since the epoch).
    pub commit_timestamp: i64,
}

/// One member as stored in `GroupMetadataValue`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredMember {
    /// The member id.
    pub member_id: String,
    /// Its `group.instance.id`, if static.
    pub group_instance_id: Option<String>,
    /// Its `client.id`.
    pub client_id: String,
    /// The host it connected from.
    pub client_host: String,
    /// Its rebalance timeout (`max.poll.interval.ms`).
    pub rebalance_timeout_ms: i32,
    /// Its `session.timeout.ms`.
    pub session_timeout_ms: i32,
    /// Its subscription (the chosen assignor's bytes, decoded).
    pub subscription: Subscription,
    /// Its assignment.
    pub assignment: Vec<TopicPartition>,
}

/// `GroupMetadataValue` v3.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupValue {
    /// `consumer` for consumer groups.
    pub protocol_type: String,
    /// The generation.
    pub generation: i32,
    /// The assignor chosen.
    pub protocol: Option<String>,
    /// The leader's member id.
    pub leader: Option<String>,
    /// When the group last changed state (ms since the epoch).
    pub current_state_timestamp: i64,
    /// The members.
    pub members: Vec<StoredMember>,
}

/// A writer of Kafka's non-flexible schema types (shared with the
/// transaction log's records, `txn::log`).
pub(crate) struct W(pub(crate) Vec<u8>);

impl W {
    pub(crate) fn i16(&mut self, v: i16) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }
    pub(crate) fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }
    pub(crate) fn i64(&mut self, v: i64) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }
    pub(crate) fn str(&mut self, s: &str) {
        self.i16(s.len() as i16);
        self.0.extend_from_slice(s.as_bytes());
    }
    pub(crate) fn nstr(&mut self, s: &Option<String>) {
        match s {
            Some(s) => self.str(s),
            None => self.i16(-1),
        }
    }
    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.i32(b.len() as i32);
        self.0.extend_from_slice(b);
    }
    pub(crate) fn partitions(&mut self, tps: &[TopicPartition]) {
        let mut by_topic: SortedMap<&str, Vec<i32>> = SortedMap::new();
        for tp in tps {
            by_topic.entry(&tp.topic).or_default().push(tp.partition);
        }
        self.i32(by_topic.len() as i32);
        for (t, ps) in by_topic {
            self.str(t);
            self.i32(ps.len() as i32);
            for p in ps {
                self.i32(p);
            }
        }
    }
}

/// A reader of the same types; `None` on anything short or malformed.
pub(crate) struct R<'a>(pub(crate) &'a [u8], pub(crate) usize);

impl<'a> R<'a> {
    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.0.get(self.1..self.1.checked_add(n)?)?;
        self.1 += n;
        Some(s)
    }
    pub(crate) fn i16(&mut self) -> Option<i16> {
        Some(i16::from_be_bytes(self.take(2)?.try_into().ok()?))
    }
    pub(crate) fn i32(&mut self) -> Option<i32> {
        Some(i32::from_be_bytes(self.take(4)?.try_into().ok()?))
    }
    pub(crate) fn i64(&mut self) -> Option<i64> {
        Some(i64::from_be_bytes(self.take(8)?.try_into().ok()?))
    }
    pub(crate) fn nstr(&mut self) -> Option<Option<String>> {
        let n = self.i16()?;
        if n < 0 {
            return Some(None);
        }
        Some(Some(
            String::from_utf8(self.take(n as usize)?.to_vec()).ok()?,
        ))
    }
    pub(crate) fn str(&mut self) -> Option<String> {
        self.nstr()?
    }
    pub(crate) fn nbytes(&mut self) -> Option<Option<&'a [u8]>> {
        let n = self.i32()?;
        if n < 0 {
            return Some(None);
        }
        Some(Some(self.take(n as usize)?))
    }
    pub(crate) fn count(&mut self) -> Option<usize> {
        let n = self.i32()?;
        (0..=1_000_000).contains(&n).then_some(n as usize)
    }
    pub(crate) fn partitions(&mut self) -> Option<Vec<TopicPartition>> {
        let mut out = Vec::new();
        for _ in 0..self.count()? {
            let t = self.str()?;
            for _ in 0..self.count()? {
                out.push(TopicPartition::new(t.as_str(), self.i32()?));
            }
        }
        Some(out)
    }
}

/// The bytes of an `OffsetCommitKey` v1.
pub fn offset_key(group: &str, tp: &TopicPartition) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.i16(1);
    w.str(group);
    w.str(&tp.topic);
    w.i32(tp.partition);
    w.0
}

/// The bytes of an `OffsetCommitValue` v3.
pub fn offset_value(v: &OffsetValue) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.i16(3);
    w.i64(v.offset);
    w.i32(v.leader_epoch);
    w.str(&v.metadata);
    w.i64(v.commit_timestamp);
    w.0
}

/// The bytes of a `GroupMetadataKey` v2.
pub fn group_key(group: &str) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.i16(2);
    w.str(group);
    w.0
}

/// `ConsumerProtocolSubscription` v3.
pub fn subscription_bytes(s: &Subscription) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.i16(3);
    w.i32(s.topics.len() as i32);
    for t in &s.topics {
        w.str(t);
    }
    w.i32(-1); // userData: null
    w.partitions(&s.owned_partitions);
    w.i32(s.generation_id);
    w.nstr(&s.rack_id); // rackId: null without client.rack
    w.0
}

/// `ConsumerProtocolAssignment` v3.
pub fn assignment_bytes(a: &[TopicPartition]) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.i16(3);
    w.partitions(a);
    w.i32(-1); // userData: null
    w.0
}

/// The bytes of a `GroupMetadataValue` v3.
pub fn group_value(v: &GroupValue) -> Vec<u8> {
    let mut w = W(Vec::new());
    w.i16(3);
    w.str(&v.protocol_type);
    w.i32(v.generation);
    w.nstr(&v.protocol);
    w.nstr(&v.leader);
    w.i64(v.current_state_timestamp);
    w.i32(v.members.len() as i32);
    for m in &v.members {
        w.str(&m.member_id);
        w.nstr(&m.group_instance_id);
        w.str(&m.client_id);
        w.str(&m.client_host);
        w.i32(m.rebalance_timeout_ms);
        w.i32(m.session_timeout_ms);
        w.bytes(&subscription_bytes(&m.subscription));
        w.bytes(&assignment_bytes(&m.assignment));
    }
    w.0
}

/// Reads either key back (`None`: not a key this module writes).
pub fn parse_key(b: &[u8]) -> Option<OffsetsKey> {
    let mut r = R(b, 0);
    match r.i16()? {
        0 | 1 => Some(OffsetsKey::Offset {
            group: r.str()?,
            tp: {
                let t = r.str()?;
                TopicPartition::new(t.as_str(), r.i32()?)
            },
        }),
        2 => Some(OffsetsKey::Group { group: r.str()? }),
        _ => None,
    }
}

/// Reads an `OffsetCommitValue` back.
pub fn parse_offset_value(b: &[u8]) -> Option<OffsetValue> {
    let mut r = R(b, 0);
    if r.i16()? != 3 {
        return None;
    }
    Some(OffsetValue {
        offset: r.i64()?,
        leader_epoch: r.i32()?,
        metadata: r.str()?,
        commit_timestamp: r.i64()?,
    })
}

fn parse_subscription(b: &[u8]) -> Option<Subscription> {
    let mut r = R(b, 0);
    let v = r.i16()?;
    let mut topics = Vec::new();
    for _ in 0..r.count()? {
        topics.push(r.str()?);
    }
    r.nbytes()?;
    let owned_partitions = if v >= 1 { r.partitions()? } else { Vec::new() };
    let generation_id = if v >= 2 { r.i32()? } else { -1 };
    let rack_id = if v >= 3 { r.nstr()? } else { None };
    Some(Subscription {
        topics,
        owned_partitions,
        generation_id,
        rack_id,
    })
}

fn parse_assignment(b: &[u8]) -> Option<Vec<TopicPartition>> {
    let mut r = R(b, 0);
    r.i16()?;
    r.partitions()
}

/// Reads a `GroupMetadataValue` back.
pub fn parse_group_value(b: &[u8]) -> Option<GroupValue> {
    let mut r = R(b, 0);
    if r.i16()? != 3 {
        return None;
    }
    let protocol_type = r.str()?;
    let generation = r.i32()?;
    let protocol = r.nstr()?;
    let leader = r.nstr()?;
    let current_state_timestamp = r.i64()?;
    let mut members = Vec::new();
    for _ in 0..r.count()? {
        let member_id = r.str()?;
        let group_instance_id = r.nstr()?;
        let client_id = r.str()?;
        let client_host = r.str()?;
        let rebalance_timeout_ms = r.i32()?;
        let session_timeout_ms = r.i32()?;
        let subscription = parse_subscription(r.nbytes()?.unwrap_or(&[]))?;
        let assignment = parse_assignment(r.nbytes()?.unwrap_or(&[]))?;
        members.push(StoredMember {
            member_id,
            group_instance_id,
            client_id,
            client_host,
            rebalance_timeout_ms,
            session_timeout_ms,
            subscription,
            assignment,
        });
    }
    Some(GroupValue {
        protocol_type,
        generation,
        protocol,
        leader,
        current_state_timestamp,
        members,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_commit_records_have_kafkas_layout() {
        let tp = TopicPartition::new("t", 3);
        let k = offset_key("g", &tp);
        // version 1, "g", "t", partition 3
        assert_eq!(k, [0, 1, 0, 1, b'g', 0, 1, b't', 0, 0, 0, 3]);
        let v = OffsetValue {
            offset: 42,
            leader_epoch: -1,
            metadata: String::new(),
            commit_timestamp: 1000,
        };
        let b = offset_value(&v);
        assert_eq!(b.len(), 2 + 8 + 4 + 2 + 8);
        assert_eq!(&b[..2], &[0, 3]);
        assert_eq!(parse_offset_value(&b), Some(v));
        assert_eq!(
            parse_key(&k),
            Some(OffsetsKey::Offset {
                group: "g".into(),
                tp
            })
        );
    }

    #[test]
    fn group_metadata_round_trips() {
        let v = GroupValue {
            protocol_type: "consumer".into(),
            generation: 7,
            protocol: Some("range".into()),
            leader: Some("c-1".into()),
            current_state_timestamp: 99,
            members: vec![StoredMember {
                member_id: "c-1".into(),
                group_instance_id: Some("i".into()),
                client_id: "c".into(),
                client_host: "/10.0.0.1".into(),
                rebalance_timeout_ms: 300000,
                session_timeout_ms: 45000,
                subscription: Subscription {
                    topics: vec!["t".into()],
                    owned_partitions: vec![TopicPartition::new("t", 0)],
                    generation_id: 6,
                    rack_id: Some("az-1".into()),
                },
                assignment: vec![TopicPartition::new("t", 0), TopicPartition::new("t", 1)],
            }],
        };
        assert_eq!(parse_group_value(&group_value(&v)), Some(v));
        assert_eq!(
            parse_key(&group_key("g")),
            Some(OffsetsKey::Group { group: "g".into() })
        );
        assert_eq!(parse_key(&[0, 9]), None);
    }
}
