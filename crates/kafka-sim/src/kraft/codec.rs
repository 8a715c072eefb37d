//! The bytes of `__cluster_metadata-0` (Kafka 4.1.0): each metadata record
//! as `MetadataRecordSerde` writes it into a record's value, and the
//! `LeaderChange` control record as `MemoryRecordsBuilder` writes it; read
//! back as `kafka-dump-log --cluster-metadata-decoder` prints them.
//!
//! Followed, in Kafka 4.1.0 (`13f70256db3c`):
//! * `AbstractApiMessageSerde.write` / `read`: a value is the frame version
//!   (unsigned varint 1), the record's `apiKey` and version (unsigned
//!   varints), then the message. A frame version other than 1, an unknown
//!   type or bytes left over are errors.
//! * The generated message classes: every metadata record is a flexible
//!   version, so strings and arrays are compact (length + 1 as an unsigned
//!   varint, 0 for null), a `uuid` is 16 bytes, and a message ends with its
//!   tagged fields (count, then tag, size and bytes for each field not at
//!   its default, in tag order).
//! * The schemas under `metadata/src/main/resources/common/metadata/` and
//!   `LeaderChangeMessage.json` (the control record's value; its key is
//!   `ControlRecordType.LEADER_CHANGE`'s: version 0, type 2).
//! * `JsonConverterGenerator`: the JSON lists every field of the version in
//!   schema order, a tagged field only when not at its default; `Uuid`s
//!   print as URL-safe base64 without padding.
//! * `BatchBuilder.writeRecord` / `writeDefaultBatchHeader` (the batch around
//!   them): no key, one timestamp for the batch (the append time), no
//!   producer id, the Raft epoch as `partitionLeaderEpoch`.

use super::records::{directory_id, incarnation_uuid, MetadataEntry, MetadataRecord};
use crate::storage::record::{build_batch, BatchSpec, NewRecord};

/// A field's type in a schema.
#[derive(Clone, Copy, Debug)]
enum Ty {
    I8,
    I16,
    I32,
    I64,
    U16,
    Bool,
    Uuid,
    Str,
    /// `[]int32`.
    Ints,
    /// `[]uuid`.
    Uuids,
    /// An array of structs with these fields.
    Structs(&'static [F]),
}

/// A field of a schema.
#[derive(Clone, Copy, Debug)]
struct F {
    /// Its JSON name (camelCase, as the converters print it).
    name: &'static str,
    ty: Ty,
    /// The first version that has it.
    since: i16,
    /// Whether null is allowed.
    nullable: bool,
    /// Its tag, for a tagged field.
    tag: Option<u32>,
    /// A tagged field's default.
    default: D,
}

/// A tagged field's default value.
#[derive(Clone, Copy, Debug)]
enum D {
    Null,
    Int(i64),
    NoUuids,
}

impl D {
    fn value(self) -> V {
        match self {
            D::Null => V::Null,
            D::Int(i) => V::Int(i),
            D::NoUuids => V::Uuids(Vec::new()),
        }
    }
}

const fn f(name: &'static str, ty: Ty) -> F {
    F {
        name,
        ty,
        since: 0,
        nullable: false,
        tag: None,
        default: D::Null,
    }
}

const fn since(mut x: F, v: i16) -> F {
    x.since = v;
    x
}

const fn nullable(mut x: F) -> F {
    x.nullable = true;
    x
}

const fn tagged(mut x: F, tag: u32, default: D) -> F {
    x.tag = Some(tag);
    x.default = default;
    x
}

/// A field's value.
#[derive(Clone, Debug, PartialEq, Eq)]
enum V {
    Null,
    Int(i64),
    Bool(bool),
    Uuid([u8; 16]),
    Str(String),
    Ints(Vec<i32>),
    Uuids(Vec<[u8; 16]>),
    Structs(Vec<Vec<V>>),
}

const ENDPOINT: &[F] = &[
    f("name", Ty::Str),
    f("host", Ty::Str),
    f("port", Ty::U16),
    f("securityProtocol", Ty::I16),
];
const FEATURE: &[F] = &[
    f("name", Ty::Str),
    f("minSupportedVersion", Ty::I16),
    f("maxSupportedVersion", Ty::I16),
];
const VOTER: &[F] = &[f("voterId", Ty::I32)];

const REGISTER_BROKER: &[F] = &[
    f("brokerId", Ty::I32),
    since(f("isMigratingZkBroker", Ty::Bool), 2),
    f("incarnationId", Ty::Uuid),
    f("brokerEpoch", Ty::I64),
    f("endPoints", Ty::Structs(ENDPOINT)),
    f("features", Ty::Structs(FEATURE)),
    nullable(f("rack", Ty::Str)),
    f("fenced", Ty::Bool),
    since(f("inControlledShutdown", Ty::Bool), 1),
    tagged(since(f("logDirs", Ty::Uuids), 3), 0, D::NoUuids),
];
const TOPIC: &[F] = &[f("name", Ty::Str), f("topicId", Ty::Uuid)];
const PARTITION: &[F] = &[
    f("partitionId", Ty::I32),
    f("topicId", Ty::Uuid),
    f("replicas", Ty::Ints),
    f("isr", Ty::Ints),
    f("removingReplicas", Ty::Ints),
    f("addingReplicas", Ty::Ints),
    f("leader", Ty::I32),
    tagged(f("leaderRecoveryState", Ty::I8), 0, D::Int(0)),
    f("leaderEpoch", Ty::I32),
    f("partitionEpoch", Ty::I32),
    since(f("directories", Ty::Uuids), 1),
    tagged(
        nullable(since(f("eligibleLeaderReplicas", Ty::Ints), 2)),
        1,
        D::Null,
    ),
    tagged(nullable(since(f("lastKnownElr", Ty::Ints), 2)), 2, D::Null),
];
const CONFIG: &[F] = &[
    f("resourceType", Ty::I8),
    f("resourceName", Ty::Str),
    f("name", Ty::Str),
    nullable(f("value", Ty::Str)),
];
const PARTITION_CHANGE: &[F] = &[
    f("partitionId", Ty::I32),
    f("topicId", Ty::Uuid),
    tagged(nullable(f("isr", Ty::Ints)), 0, D::Null),
    tagged(f("leader", Ty::I32), 1, D::Int(-2)),
    tagged(nullable(f("replicas", Ty::Ints)), 2, D::Null),
    tagged(nullable(f("removingReplicas", Ty::Ints)), 3, D::Null),
    tagged(nullable(f("addingReplicas", Ty::Ints)), 4, D::Null),
    tagged(f("leaderRecoveryState", Ty::I8), 5, D::Int(-1)),
    tagged(nullable(since(f("directories", Ty::Uuids), 1)), 8, D::Null),
    tagged(
        nullable(since(f("eligibleLeaderReplicas", Ty::Ints), 2)),
        6,
        D::Null,
    ),
    tagged(nullable(since(f("lastKnownElr", Ty::Ints), 2)), 7, D::Null),
];
const FEATURE_LEVEL: &[F] = &[f("name", Ty::Str), f("featureLevel", Ty::I16)];
const PRODUCER_IDS: &[F] = &[
    f("brokerId", Ty::I32),
    f("brokerEpoch", Ty::I64),
    f("nextProducerId", Ty::I64),
];
const BROKER_REGISTRATION_CHANGE: &[F] = &[
    f("brokerId", Ty::I32),
    f("brokerEpoch", Ty::I64),
    tagged(f("fenced", Ty::I8), 0, D::Int(0)),
    tagged(since(f("inControlledShutdown", Ty::I8), 1), 1, D::Int(0)),
    tagged(since(f("logDirs", Ty::Uuids), 2), 2, D::NoUuids),
];
const NO_OP: &[F] = &[];
const BEGIN_TRANSACTION: &[F] = &[f("name", Ty::Str)];
const LEADER_CHANGE: &[F] = &[
    f("version", Ty::I16),
    f("leaderId", Ty::I32),
    f("voters", Ty::Structs(VOTER)),
    f("grantingVoters", Ty::Structs(VOTER)),
];

/// `MetadataRecordType`: apiKey, the name `kafka-dump-log` prints, the
/// schema, and the highest version Kafka 4.1 reads.
const TYPES: &[(i16, &str, &[F], i16)] = &[
    (0, "REGISTER_BROKER_RECORD", REGISTER_BROKER, 3),
    (2, "TOPIC_RECORD", TOPIC, 0),
    (3, "PARTITION_RECORD", PARTITION, 2),
    (4, "CONFIG_RECORD", CONFIG, 0),
    (5, "PARTITION_CHANGE_RECORD", PARTITION_CHANGE, 2),
    (12, "FEATURE_LEVEL_RECORD", FEATURE_LEVEL, 0),
    (15, "PRODUCER_IDS_RECORD", PRODUCER_IDS, 0),
    (
        17,
        "BROKER_REGISTRATION_CHANGE_RECORD",
        BROKER_REGISTRATION_CHANGE,
        2,
    ),
    (20, "NO_OP_RECORD", NO_OP, 0),
    (23, "BEGIN_TRANSACTION_RECORD", BEGIN_TRANSACTION, 0),
    (24, "END_TRANSACTION_RECORD", NO_OP, 0),
];

/// The features a 4.1 broker registers with (`BrokerFeatures`), sorted by
/// name: the range this build supports of each feature the bootstrap
/// finalizes.
const BROKER_FEATURES: &[(&str, i16, i16)] = &[
    ("eligible.leader.replicas.version", 0, 1),
    ("group.version", 0, 1),
    ("kraft.version", 0, 1),
    ("metadata.version", 7, 27),
    ("transaction.version", 0, 2),
];

// ---- the wire format -------------------------------------------------

struct W(Vec<u8>);

impl W {
    fn uvarint(&mut self, mut v: u32) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    fn value(&mut self, ty: Ty, nullable: bool, v: &V) {
        match (ty, v) {
            (Ty::I8, V::Int(i)) => self.0.push(*i as i8 as u8),
            (Ty::I16, V::Int(i)) => self.0.extend((*i as i16).to_be_bytes()),
            (Ty::U16, V::Int(i)) => self.0.extend((*i as u16).to_be_bytes()),
            (Ty::I32, V::Int(i)) => self.0.extend((*i as i32).to_be_bytes()),
            (Ty::I64, V::Int(i)) => self.0.extend(i.to_be_bytes()),
            (Ty::Bool, V::Bool(b)) => self.0.push(u8::from(*b)),
            (Ty::Uuid, V::Uuid(u)) => self.0.extend(u),
            (Ty::Str, V::Str(s)) => {
                self.uvarint(s.len() as u32 + 1);
                self.0.extend(s.as_bytes());
            }
            (Ty::Ints, V::Ints(xs)) => {
                self.uvarint(xs.len() as u32 + 1);
                for x in xs {
                    self.0.extend(x.to_be_bytes());
                }
            }
            (Ty::Uuids, V::Uuids(xs)) => {
                self.uvarint(xs.len() as u32 + 1);
                for x in xs {
                    self.0.extend(x);
                }
            }
            (Ty::Structs(fields), V::Structs(items)) => {
                self.uvarint(items.len() as u32 + 1);
                for item in items {
                    self.message(fields, 0, item);
                }
            }
            (_, V::Null) if nullable => self.uvarint(0),
            (ty, v) => unreachable!("a {ty:?} field given {v:?}"),
        }
    }

    /// A message of `version`: its fields, then its tagged fields.
    fn message(&mut self, schema: &[F], version: i16, values: &[V]) {
        let mut tags: Vec<(u32, Vec<u8>)> = Vec::new();
        for (fd, v) in schema.iter().zip(values) {
            if fd.since > version {
                continue;
            }
            match fd.tag {
                None => self.value(fd.ty, fd.nullable, v),
                Some(tag) if *v != fd.default.value() => {
                    let mut w = W(Vec::new());
                    w.value(fd.ty, fd.nullable, v);
                    tags.push((tag, w.0));
                }
                Some(_) => {}
            }
        }
        tags.sort_by_key(|(t, _)| *t);
        self.uvarint(tags.len() as u32);
        for (tag, bytes) in tags {
            self.uvarint(tag);
            self.uvarint(bytes.len() as u32);
            self.0.extend(bytes);
        }
    }
}

struct R<'a> {
    b: &'a [u8],
    pos: usize,
}

impl R<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self.pos.checked_add(n).filter(|e| *e <= self.b.len());
        let Some(end) = end else {
            return Err(format!(
                "needs {n} more byte(s) at position {}, has {}",
                self.pos,
                self.b.len() - self.pos
            ));
        };
        let s = &self.b[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn uvarint(&mut self) -> Result<u32, String> {
        let mut v: u32 = 0;
        for i in 0..5 {
            let byte = self.take(1)?[0];
            v |= u32::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("a varint longer than 5 bytes".into())
    }

    /// A compact length: `None` for null.
    fn len(&mut self) -> Result<Option<usize>, String> {
        let n = self.uvarint()?;
        if n == 0 {
            return Ok(None);
        }
        let n = n as usize - 1;
        if n > self.b.len() - self.pos {
            return Err(format!("a length of {n} past the end of the record"));
        }
        Ok(Some(n))
    }

    fn be<const N: usize>(&mut self) -> Result<[u8; N], String> {
        Ok(self.take(N)?.try_into().expect("N bytes"))
    }

    fn value(&mut self, ty: Ty, nullable: bool) -> Result<V, String> {
        let v = match ty {
            Ty::I8 => V::Int(i64::from(self.be::<1>()?[0] as i8)),
            Ty::I16 => V::Int(i64::from(i16::from_be_bytes(self.be()?))),
            Ty::U16 => V::Int(i64::from(u16::from_be_bytes(self.be()?))),
            Ty::I32 => V::Int(i64::from(i32::from_be_bytes(self.be()?))),
            Ty::I64 => V::Int(i64::from_be_bytes(self.be()?)),
            Ty::Bool => V::Bool(self.be::<1>()?[0] != 0),
            Ty::Uuid => V::Uuid(self.be()?),
            _ => {
                let Some(n) = self.len()? else {
                    return if nullable {
                        Ok(V::Null)
                    } else {
                        Err("null in a field that cannot be null".into())
                    };
                };
                match ty {
                    Ty::Str => V::Str(
                        String::from_utf8(self.take(n)?.to_vec())
                            .map_err(|_| "a string that is not UTF-8".to_string())?,
                    ),
                    Ty::Ints => V::Ints(
                        (0..n)
                            .map(|_| Ok(i32::from_be_bytes(self.be()?)))
                            .collect::<Result<_, String>>()?,
                    ),
                    Ty::Uuids => V::Uuids((0..n).map(|_| self.be()).collect::<Result<_, _>>()?),
                    Ty::Structs(fields) => V::Structs(
                        (0..n)
                            .map(|_| self.message(fields, 0))
                            .collect::<Result<_, _>>()?,
                    ),
                    _ => unreachable!("fixed-size types are read above"),
                }
            }
        };
        Ok(v)
    }

    /// A message of `version`: values in schema order (tagged fields at
    /// their default unless present).
    fn message(&mut self, schema: &[F], version: i16) -> Result<Vec<V>, String> {
        let mut out = Vec::with_capacity(schema.len());
        for fd in schema {
            out.push(if fd.since > version || fd.tag.is_some() {
                fd.default.value()
            } else {
                self.value(fd.ty, fd.nullable)?
            });
        }
        let count = self.uvarint()?;
        for _ in 0..count {
            let tag = self.uvarint()?;
            let size = self.uvarint()? as usize;
            let bytes = self.take(size)?;
            let at = schema
                .iter()
                .position(|fd| fd.tag == Some(tag) && fd.since <= version);
            // Unknown tags are skipped, as Kafka keeps them aside.
            if let Some(i) = at {
                let mut r = R { b: bytes, pos: 0 };
                out[i] = r.value(schema[i].ty, schema[i].nullable)?;
                if r.pos != bytes.len() {
                    return Err(format!("tagged field {} has bytes left over", tag));
                }
            }
        }
        Ok(out)
    }
}

// ---- JSON, as the generated converters print it ------------------------

fn json(schema: &[F], version: i16, values: &[V]) -> String {
    let mut parts = Vec::new();
    for (fd, v) in schema.iter().zip(values) {
        if fd.since > version || (fd.tag.is_some() && *v == fd.default.value()) {
            continue;
        }
        let s = match v {
            V::Null => "null".to_string(),
            V::Int(i) => i.to_string(),
            V::Bool(b) => b.to_string(),
            V::Uuid(u) => quote(&uuid_text(u)),
            V::Str(s) => quote(s),
            V::Ints(xs) => {
                let items: Vec<String> = xs.iter().map(i32::to_string).collect();
                format!("[{}]", items.join(","))
            }
            V::Uuids(xs) => {
                let items: Vec<String> = xs.iter().map(|u| quote(&uuid_text(u))).collect();
                format!("[{}]", items.join(","))
            }
            V::Structs(items) => {
                let Ty::Structs(fields) = fd.ty else {
                    unreachable!("struct values belong to struct fields")
                };
                let items: Vec<String> = items.iter().map(|i| json(fields, 0, i)).collect();
                format!("[{}]", items.join(","))
            }
        };
        parts.push(format!("{}:{s}", quote(fd.name)));
    }
    format!("{{{}}}", parts.join(","))
}

fn quote(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// `Uuid.toString`: URL-safe base64 of the 16 bytes, no padding.
fn uuid_text(u: &[u8; 16]) -> String {
    super::records::base64_url(u)
}

/// The 16 bytes of a `Uuid` printed as URL-safe base64 (22 characters).
pub(crate) fn uuid_bytes(s: &str) -> [u8; 16] {
    let mut bits: u32 = 0;
    let mut n = 0;
    let mut out = Vec::with_capacity(16);
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => continue,
        };
        bits = (bits << 6) | u32::from(v);
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
        }
    }
    out.resize(16, 0);
    out.try_into().expect("16 bytes")
}

// ---- the records ----------------------------------------------------------

fn int(i: impl Into<i64>) -> V {
    V::Int(i.into())
}

fn ints(xs: &[i32]) -> V {
    V::Ints(xs.to_vec())
}

fn opt_ints(xs: &Option<Vec<i32>>) -> V {
    xs.as_ref().map_or(V::Null, |x| ints(x))
}

fn voters(ids: &[i32]) -> V {
    V::Structs(ids.iter().map(|i| vec![int(*i)]).collect())
}

impl MetadataRecord {
    /// The apiKey, the version Kafka 4.1 writes, and the field values in
    /// schema order (`None` for the `LeaderChange` control record).
    fn fields(&self) -> Option<(i16, i16, Vec<V>)> {
        use MetadataRecord as M;
        let r = match self {
            M::LeaderChange { .. } => return None,
            M::RegisterBrokerRecord {
                broker_id,
                incarnation_id,
                broker_epoch,
                rack,
                fenced,
            } => (
                0,
                3,
                vec![
                    int(*broker_id),
                    V::Bool(false),
                    V::Uuid(uuid_bytes(&incarnation_uuid(*broker_id, *incarnation_id))),
                    int(*broker_epoch),
                    V::Structs(vec![vec![
                        V::Str("PLAINTEXT".into()),
                        V::Str(format!("broker-{broker_id}")),
                        int(9092),
                        int(0),
                    ]]),
                    V::Structs(
                        BROKER_FEATURES
                            .iter()
                            .map(|(n, lo, hi)| vec![V::Str((*n).into()), int(*lo), int(*hi)])
                            .collect(),
                    ),
                    rack.clone().map_or(V::Null, V::Str),
                    V::Bool(*fenced),
                    V::Bool(false),
                    V::Uuids(vec![uuid_bytes(&directory_id(*broker_id))]),
                ],
            ),
            M::TopicRecord { name, topic_id } => (
                2,
                0,
                vec![V::Str(name.clone()), V::Uuid(uuid_bytes(topic_id))],
            ),
            M::PartitionRecord {
                partition_id,
                topic_id,
                replicas,
                isr,
                leader,
                leader_epoch,
                partition_epoch,
                ..
            } => (
                3,
                2,
                vec![
                    int(*partition_id),
                    V::Uuid(uuid_bytes(topic_id)),
                    ints(replicas),
                    ints(isr),
                    ints(&[]),
                    ints(&[]),
                    int(*leader),
                    int(0),
                    int(*leader_epoch),
                    int(*partition_epoch),
                    V::Uuids(
                        replicas
                            .iter()
                            .map(|r| uuid_bytes(&directory_id(*r)))
                            .collect(),
                    ),
                    V::Null,
                    V::Null,
                ],
            ),
            M::ConfigRecord {
                resource_type,
                resource_name,
                name,
                value,
            } => (
                4,
                0,
                vec![
                    int(*resource_type),
                    V::Str(resource_name.clone()),
                    V::Str(name.clone()),
                    V::Str(value.clone()),
                ],
            ),
            M::PartitionChangeRecord {
                partition_id,
                topic_id,
                isr,
                leader,
                eligible_leader_replicas,
                last_known_elr,
                leader_recovery_state,
                ..
            } => (
                5,
                2,
                vec![
                    int(*partition_id),
                    V::Uuid(uuid_bytes(topic_id)),
                    opt_ints(isr),
                    int(*leader),
                    V::Null,
                    V::Null,
                    V::Null,
                    int(leader_recovery_state.unwrap_or(-1)),
                    V::Null,
                    opt_ints(eligible_leader_replicas),
                    opt_ints(last_known_elr),
                ],
            ),
            M::FeatureLevelRecord {
                name,
                feature_level,
            } => (12, 0, vec![V::Str(name.clone()), int(*feature_level)]),
            M::ProducerIdsRecord {
                broker_id,
                broker_epoch,
                next_producer_id,
            } => (
                15,
                0,
                vec![int(*broker_id), int(*broker_epoch), int(*next_producer_id)],
            ),
            M::BrokerRegistrationChangeRecord {
                broker_id,
                broker_epoch,
                fenced,
                in_controlled_shutdown,
            } => (
                17,
                // RCM:1432 writes the controlled-shutdown change as version 1.
                i16::from(*in_controlled_shutdown != 0),
                vec![
                    int(*broker_id),
                    int(*broker_epoch),
                    int(*fenced),
                    int(*in_controlled_shutdown),
                    V::Uuids(Vec::new()),
                ],
            ),
            M::NoOpRecord => (20, 0, vec![]),
            M::BeginTransactionRecord { name } => (23, 0, vec![V::Str(name.clone())]),
            M::EndTransactionRecord => (24, 0, vec![]),
        };
        Some(r)
    }

    /// The record's value bytes: `MetadataRecordSerde` framing, or for the
    /// `LeaderChange` control record the `LeaderChangeMessage` (version 0).
    pub fn value_bytes(&self) -> Vec<u8> {
        let mut w = W(Vec::new());
        match (self, self.fields()) {
            (
                MetadataRecord::LeaderChange {
                    leader_id,
                    voters: vs,
                    granting_voters,
                },
                _,
            ) => w.message(
                LEADER_CHANGE,
                0,
                &[int(0), int(*leader_id), voters(vs), voters(granting_voters)],
            ),
            (_, Some((key, version, values))) => {
                w.uvarint(1);
                w.uvarint(key as u32);
                w.uvarint(version as u32);
                let schema = TYPES
                    .iter()
                    .find(|t| t.0 == key)
                    .expect("every record type has a schema")
                    .2;
                w.message(schema, version, &values);
            }
            (_, None) => unreachable!("only LeaderChange has no fields"),
        }
        w.0
    }

    /// What `kafka-dump-log --cluster-metadata-decoder` prints for it,
    /// read back from its own bytes.
    pub fn dump(&self) -> String {
        let bytes = self.value_bytes();
        if self.is_control() {
            decode_leader_change(&bytes).unwrap_or_else(|e| e)
        } else {
            decode_value(&bytes).unwrap_or_else(|e| e)
        }
    }
}

/// The control record's key for `LeaderChange` (`ControlRecordType`).
pub const LEADER_CHANGE_KEY: [u8; 4] = [0, 0, 0, 2];

/// Decodes a metadata record's value as `ClusterMetadataLogMessageParser`
/// does: `payload: {"type":…,"version":…,"data":{…}}`.
pub fn decode_value(bytes: &[u8]) -> Result<String, String> {
    let mut r = R { b: bytes, pos: 0 };
    let frame = r.uvarint()?;
    if frame != 1 {
        return Err(format!(
            "Could not deserialize metadata record due to unknown frame version {frame} (only frame version 1 is supported)"
        ));
    }
    let key = r.uvarint()?;
    let version = r.uvarint()?;
    let Some((_, name, schema, max)) = TYPES.iter().find(|t| t.0 as u32 == key) else {
        return Err(format!("Unknown metadata id {key}"));
    };
    if version > *max as u32 {
        return Err(format!("{name} has no version {version}"));
    }
    let values = r
        .message(schema, version as i16)
        .map_err(|e| format!("Failed to deserialize record with type {key}: {e}"))?;
    if r.pos != bytes.len() {
        return Err(format!(
            "Found {} byte(s) of garbage after {key}",
            bytes.len() - r.pos
        ));
    }
    Ok(format!(
        "payload: {{\"type\":{},\"version\":{version},\"data\":{}}}",
        quote(name),
        json(schema, version as i16, &values)
    ))
}

/// Decodes a `LeaderChange` control record's value as `DumpLogSegments`
/// prints it: ` LeaderChange: {…}`.
pub fn decode_leader_change(bytes: &[u8]) -> Result<String, String> {
    let mut r = R { b: bytes, pos: 0 };
    let values = r.message(LEADER_CHANGE, 0)?;
    if r.pos != bytes.len() {
        return Err(format!(
            "Found {} byte(s) of garbage after LeaderChange",
            bytes.len() - r.pos
        ));
    }
    Ok(format!(
        " LeaderChange: {}",
        json(LEADER_CHANGE, 0, &values)
    ))
}

/// One batch of the metadata log, as `BatchBuilder` builds it: `entries`
/// (all of one epoch, consecutive offsets), appended at `append_ms`.
pub fn build_metadata_batch(entries: &[MetadataEntry], append_ms: i64) -> Vec<u8> {
    let first = entries.first().expect("a batch has records");
    let control = first.record.is_control();
    let records: Vec<NewRecord> = entries
        .iter()
        .map(|e| {
            let key = control.then_some(&LEADER_CHANGE_KEY[..]);
            NewRecord::new(key, Some(&e.record.value_bytes()), append_ms)
        })
        .collect();
    build_batch(
        &BatchSpec {
            base_offset: first.offset,
            partition_leader_epoch: first.epoch,
            control,
            ..BatchSpec::default()
        },
        &records,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_kind() -> Vec<MetadataRecord> {
        use MetadataRecord as M;
        let t = "Yb3NXnm8TRqAWvfG2DAPCA".to_string();
        vec![
            M::LeaderChange {
                leader_id: 3001,
                voters: vec![3000, 3001, 3002],
                granting_voters: vec![3001, 3002],
            },
            M::BeginTransactionRecord {
                name: "Bootstrap records".into(),
            },
            M::FeatureLevelRecord {
                name: "metadata.version".into(),
                feature_level: 27,
            },
            M::ConfigRecord {
                resource_type: 4,
                resource_name: String::new(),
                name: "min.insync.replicas".into(),
                value: "2".into(),
            },
            M::EndTransactionRecord,
            M::RegisterBrokerRecord {
                broker_id: 1,
                incarnation_id: 2,
                broker_epoch: 9,
                rack: Some("az-1".into()),
                fenced: true,
            },
            M::BrokerRegistrationChangeRecord {
                broker_id: 1,
                broker_epoch: 9,
                fenced: -1,
                in_controlled_shutdown: 0,
            },
            M::BrokerRegistrationChangeRecord {
                broker_id: 1,
                broker_epoch: 9,
                fenced: 0,
                in_controlled_shutdown: 1,
            },
            M::NoOpRecord,
            M::TopicRecord {
                name: "t".into(),
                topic_id: t.clone(),
            },
            M::PartitionRecord {
                partition_id: 0,
                topic_id: t.clone(),
                topic: "t".into(),
                replicas: vec![1, 2, 0],
                isr: vec![1, 2, 0],
                leader: 1,
                leader_epoch: 0,
                partition_epoch: 0,
            },
            M::PartitionChangeRecord {
                partition_id: 0,
                topic_id: t,
                topic: "t".into(),
                isr: Some(vec![1]),
                leader: 1,
                eligible_leader_replicas: Some(vec![2]),
                last_known_elr: None,
                leader_recovery_state: Some(1),
            },
            M::ProducerIdsRecord {
                broker_id: 0,
                broker_epoch: 8,
                next_producer_id: 2000,
            },
        ]
    }

    /// A NoOpRecord is the frame version, apiKey 20, version 0, and an
    /// empty tagged-field section: four bytes.
    #[test]
    fn a_no_op_record_is_four_bytes() {
        assert_eq!(MetadataRecord::NoOpRecord.value_bytes(), [1, 20, 0, 0]);
    }

    /// A FeatureLevelRecord, byte by byte against the schema.
    #[test]
    fn a_feature_level_record_follows_its_schema() {
        let r = MetadataRecord::FeatureLevelRecord {
            name: "kraft.version".into(),
            feature_level: 1,
        };
        let mut want = vec![1, 12, 0, 14];
        want.extend(b"kraft.version");
        want.extend([0, 1, 0]);
        assert_eq!(r.value_bytes(), want);
        assert_eq!(
            r.dump(),
            r#"payload: {"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"kraft.version","featureLevel":1}}"#
        );
    }

    /// Tagged fields go in tag order after the fields, only when not at
    /// their default: a PartitionChangeRecord moving only the leader.
    #[test]
    fn a_partition_change_writes_only_its_changes_as_tagged_fields() {
        let r = MetadataRecord::PartitionChangeRecord {
            partition_id: 3,
            topic_id: "AAAAAAAAAAAAAAAAAAAAAA".into(),
            topic: "t".into(),
            isr: None,
            leader: 2,
            eligible_leader_replicas: None,
            last_known_elr: None,
            leader_recovery_state: None,
        };
        let mut want = vec![1, 5, 2, 0, 0, 0, 3];
        want.extend([0; 16]);
        want.extend([1, 1, 4, 0, 0, 0, 2]);
        assert_eq!(r.value_bytes(), want);
        assert!(r.dump().ends_with(
            r#""data":{"partitionId":3,"topicId":"AAAAAAAAAAAAAAAAAAAAAA","leader":2}}"#
        ));
    }

    #[test]
    fn every_record_reads_back_as_kafka_dump_log_prints_it() {
        for r in every_kind() {
            let d = r.dump();
            assert!(
                d.starts_with("payload: {\"type\":\"")
                    || d.starts_with(" LeaderChange: {\"version\":0,"),
                "{d}"
            );
            assert!(!d.contains("Error") && !d.contains("garbage"), "{d}");
        }
        let reg = every_kind()[5].dump();
        assert!(reg.contains(r#""endPoints":[{"name":"PLAINTEXT","host":"broker-1","port":9092,"securityProtocol":0}]"#), "{reg}");
        assert!(
            reg.contains(
                r#""rack":"az-1","fenced":true,"inControlledShutdown":false,"logDirs":[""#
            ),
            "{reg}"
        );
    }

    /// Hostile bytes: every truncation and every single-byte change of every
    /// record decodes or fails with a message, never panics.
    #[test]
    fn damaged_values_fail_with_a_message() {
        for r in every_kind() {
            let b = r.value_bytes();
            for cut in 0..b.len() {
                let _ = decode_value(&b[..cut]);
                let _ = decode_leader_change(&b[..cut]);
            }
            for i in 0..b.len() {
                for x in [0u8, 0x7f, 0x80, 0xff] {
                    let mut d = b.clone();
                    d[i] = x;
                    let _ = decode_value(&d);
                    let _ = decode_leader_change(&d);
                }
            }
        }
        assert!(decode_value(&[0, 20, 0, 0])
            .unwrap_err()
            .contains("frame version 0"));
        assert!(decode_value(&[1, 99, 0, 0])
            .unwrap_err()
            .contains("Unknown metadata id 99"));
        assert!(decode_value(&[1, 20, 0, 0, 7])
            .unwrap_err()
            .contains("garbage"));
    }

    #[test]
    fn uuids_read_back_from_their_text() {
        let s = "Yb3NXnm8TRqAWvfG2DAPCA";
        assert_eq!(uuid_text(&uuid_bytes(s)), s);
    }
}
