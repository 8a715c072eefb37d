//! The records of the `__cluster_metadata` log (Kafka 4.1.0), as
//! `kafka-dump-log --cluster-metadata-decoder` prints them.
//!
//! Each is one of the generated `ApiMessage`s under
//! `metadata/src/main/resources/common/metadata/` (`RegisterBrokerRecord.json`
//! is apiKey 0, `BrokerRegistrationChangeRecord.json` 17, `NoOpRecord.json`
//! 20, `FeatureLevelRecord.json` 12, `ConfigRecord.json` 4,
//! `BeginTransactionRecord.json` 23, `EndTransactionRecord.json` 24), except
//! `LeaderChange`, the control record a new quorum leader writes first
//! (`LeaderChangeMessage`, `KafkaRaftClient.onBecomeLeader`). The payload
//! JSON follows `DumpLogSegments`' `{"type", "version", "data"}` shape, with
//! the fields in camelCase and defaults left out (tagged fields).
//!
//! Their bytes, and the batches of the log on disk, are in `codec.rs`.

use serde::{Deserialize, Serialize};

/// A record of the metadata log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MetadataRecord {
    /// Control record: a new leader took the quorum (`LeaderChangeMessage`).
    LeaderChange {
        /// The new leader.
        leader_id: i32,
        /// The voters.
        voters: Vec<i32>,
        /// The voters that granted it their vote.
        granting_voters: Vec<i32>,
    },
    /// Opens a metadata transaction (the bootstrap records are written in one).
    BeginTransactionRecord {
        /// Its name.
        name: String,
    },
    /// Closes a metadata transaction.
    EndTransactionRecord,
    /// A feature's finalized level (`metadata.version`, `kraft.version`, …).
    FeatureLevelRecord {
        /// The feature.
        name: String,
        /// Its level.
        feature_level: i16,
    },
    /// A dynamic configuration value.
    ConfigRecord {
        /// 4 = BROKER (an empty name: the cluster default), 2 = TOPIC.
        resource_type: i8,
        /// The broker id or topic ("" for the cluster).
        resource_name: String,
        /// The key.
        name: String,
        /// The value.
        value: String,
    },
    /// A broker registered (BrokerRegistration): fenced until caught up.
    RegisterBrokerRecord {
        /// `brokerId`.
        broker_id: i32,
        /// `incarnationId` (one per process start).
        incarnation_id: u32,
        /// `brokerEpoch`: the offset of this record.
        broker_epoch: i64,
        /// `rack`.
        rack: Option<String>,
        /// `fenced` (true at registration).
        fenced: bool,
    },
    /// A registered broker's fencing or controlled shutdown changed.
    BrokerRegistrationChangeRecord {
        /// `brokerId`.
        broker_id: i32,
        /// `brokerEpoch`.
        broker_epoch: i64,
        /// `fenced`: 1 fence, -1 unfence, 0 unchanged.
        fenced: i8,
        /// `inControlledShutdown`: 1 the broker entered controlled shutdown
        /// (record version 1), 0 unchanged.
        #[serde(default, skip_serializing_if = "is_zero")]
        in_controlled_shutdown: i8,
    },
    /// Nothing: the active controller writes one every
    /// `metadata.max.idle.interval.ms`.
    NoOpRecord,
    /// A topic was created (`TopicRecord.json`, apiKey 2).
    TopicRecord {
        /// `name`.
        name: String,
        /// `topicId` (a `Uuid`, printed in URL-safe base64).
        topic_id: String,
    },
    /// A new partition (`PartitionRecord.json`, apiKey 3, version 2).
    PartitionRecord {
        /// `partitionId`.
        partition_id: i32,
        /// `topicId`.
        topic_id: String,
        /// The topic's name (not in Kafka's record: for captions).
        topic: String,
        /// `replicas`, the preferred leader first.
        replicas: Vec<i32>,
        /// `isr`.
        isr: Vec<i32>,
        /// `leader`.
        leader: i32,
        /// `leaderEpoch`.
        leader_epoch: i32,
        /// `partitionEpoch`.
        partition_epoch: i32,
    },
    /// A change to a partition (`PartitionChangeRecord.json`, apiKey 5,
    /// version 2): only what changes is set.
    PartitionChangeRecord {
        /// `partitionId`.
        partition_id: i32,
        /// `topicId`.
        topic_id: String,
        /// The topic's name (not in Kafka's record: for captions).
        topic: String,
        /// `isr` (None: unchanged).
        isr: Option<Vec<i32>>,
        /// `leader` (-2: unchanged; -1: none). A new leader bumps the
        /// leader epoch.
        leader: i32,
        /// `eligibleLeaderReplicas` (KIP-966; None: unchanged).
        eligible_leader_replicas: Option<Vec<i32>>,
        /// `lastKnownElr` (None: unchanged).
        last_known_elr: Option<Vec<i32>>,
        /// `leaderRecoveryState` (KIP-704; None: unchanged, 1: RECOVERING
        /// after an unclean election, 0: RECOVERED).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        leader_recovery_state: Option<i8>,
    },
    /// A block of producer ids was handed to a broker (`ProducerIdsRecord.json`,
    /// apiKey 15): the next block starts at `next_producer_id`.
    ProducerIdsRecord {
        /// `brokerId`.
        broker_id: i32,
        /// `brokerEpoch`.
        broker_epoch: i64,
        /// `nextProducerId`.
        next_producer_id: i64,
    },
}

fn is_zero(v: &i8) -> bool {
    *v == 0
}

/// `PartitionChangeRecord.leader` when the leader does not change.
pub const NO_LEADER_CHANGE: i32 = -2;

impl MetadataRecord {
    /// Whether it is a control record (written in a control batch).
    pub fn is_control(&self) -> bool {
        matches!(self, MetadataRecord::LeaderChange { .. })
    }

    /// The record type's name as `kafka-dump-log` prints it.
    pub fn type_name(&self) -> &'static str {
        match self {
            MetadataRecord::LeaderChange { .. } => "LeaderChange",
            MetadataRecord::BeginTransactionRecord { .. } => "BEGIN_TRANSACTION_RECORD",
            MetadataRecord::EndTransactionRecord => "END_TRANSACTION_RECORD",
            MetadataRecord::FeatureLevelRecord { .. } => "FEATURE_LEVEL_RECORD",
            MetadataRecord::ConfigRecord { .. } => "CONFIG_RECORD",
            MetadataRecord::RegisterBrokerRecord { .. } => "REGISTER_BROKER_RECORD",
            MetadataRecord::BrokerRegistrationChangeRecord { .. } => {
                "BROKER_REGISTRATION_CHANGE_RECORD"
            }
            MetadataRecord::NoOpRecord => "NO_OP_RECORD",
            MetadataRecord::TopicRecord { .. } => "TOPIC_RECORD",
            MetadataRecord::PartitionRecord { .. } => "PARTITION_RECORD",
            MetadataRecord::PartitionChangeRecord { .. } => "PARTITION_CHANGE_RECORD",
            MetadataRecord::ProducerIdsRecord { .. } => "PRODUCER_IDS_RECORD",
        }
    }
}

/// A process's `IncarnationId` as Kafka prints a `Uuid` (URL-safe base64 of
/// 16 bytes, no padding): derived from the broker id and its life here.
pub fn incarnation_uuid(broker: i32, incarnation: u32) -> String {
    let mut bytes = [0u8; 16];
    bytes[..4].copy_from_slice(&broker.to_be_bytes());
    bytes[12..].copy_from_slice(&incarnation.to_be_bytes());
    // A version-4 style marker, so it does not read as all zeros.
    bytes[6] = 0x40;
    bytes[8] = 0x80;
    base64_url(&bytes)
}

/// The cluster's id as `kafka-storage format` would have written it, here
/// derived from the scenario's seed (URL-safe base64 of 16 bytes).
pub fn cluster_id(seed: u64) -> String {
    let mut rng = crate::rng::Rng::new(seed ^ 0x4b52_4146_545f_4944);
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&rng.next_u64().to_be_bytes());
    bytes[8..].copy_from_slice(&rng.next_u64().to_be_bytes());
    base64_url(&bytes)
}

/// A topic's `topicId` (URL-safe base64 of 16 bytes), from the controller's
/// random numbers (`Uuid.randomUuid`).
pub fn topic_id(rng: &mut crate::rng::Rng) -> String {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&rng.next_u64().to_be_bytes());
    bytes[8..].copy_from_slice(&rng.next_u64().to_be_bytes());
    // Version 4, variant 2, as `Uuid.randomUuid` makes them.
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    base64_url(&bytes)
}

/// A log directory's `directory.id` (URL-safe base64), derived from the node.
pub fn directory_id(node: i32) -> String {
    incarnation_uuid(node, 0xD1D1)
}

pub(crate) fn base64_url(b: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in b.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, x)| n | (u32::from(*x) << (16 - 8 * i)));
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// A record at its offset, in the epoch of the leader that wrote it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetadataEntry {
    /// Its offset in `__cluster_metadata-0`.
    pub offset: i64,
    /// The leader epoch it was written in (`partitionLeaderEpoch`).
    pub epoch: i32,
    /// The record.
    pub record: MetadataRecord,
    /// On the first record of each batch the leader wrote: how many records
    /// the batch holds and its timestamp (the leader's append time).
    /// Followers copy batches whole, so they write the same bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<(u32, i64)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records print in the shape `kafka-dump-log --cluster-metadata-decoder`
    /// gives, defaults left out.
    #[test]
    fn records_print_as_kafka_dump_log_decodes_them() {
        assert_eq!(
            MetadataRecord::NoOpRecord.dump(),
            r#"payload: {"type":"NO_OP_RECORD","version":0,"data":{}}"#
        );
        let fence = MetadataRecord::BrokerRegistrationChangeRecord {
            broker_id: 2,
            broker_epoch: 123,
            fenced: 1,
            in_controlled_shutdown: 0,
        };
        assert!(fence.dump().contains(r#""fenced":1"#), "{}", fence.dump());
        let same = MetadataRecord::BrokerRegistrationChangeRecord {
            broker_id: 2,
            broker_epoch: 123,
            fenced: 0,
            in_controlled_shutdown: 0,
        };
        assert!(!same.dump().contains("fenced"), "{}", same.dump());
        let lc = MetadataRecord::LeaderChange {
            leader_id: 3001,
            voters: vec![3000, 3001, 3002],
            granting_voters: vec![3001, 3002],
        };
        assert!(lc.is_control());
        assert!(lc.dump().starts_with(" LeaderChange: {"), "{}", lc.dump());
        assert!(lc.dump().contains(r#""leaderId":3001"#));
    }

    #[test]
    fn incarnation_ids_are_22_characters_of_url_safe_base64() {
        let a = incarnation_uuid(1, 0);
        assert_eq!(a.len(), 22, "{a}");
        assert!(a
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
        assert_ne!(a, incarnation_uuid(1, 1));
        assert_eq!(base64_url(b"Man"), "TWFu");
        assert_eq!(base64_url(b"Ma"), "TWE");
    }
}
