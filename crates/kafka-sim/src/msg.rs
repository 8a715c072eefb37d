//! Requests and responses on the wire, named after Kafka's APIs.
//!
//! Every interaction between nodes is one of these messages, sent along a link
//! with latency and shown in the trace (`MessageSent`). Protocol outcomes are
//! data: a response carries an [`ErrorCode`] under Kafka's name
//! (`NOT_LEADER_OR_FOLLOWER`, `NOT_ENOUGH_REPLICAS`, ...) rather than the
//! simulation failing. Records travel as the real v2 batch bytes.

use crate::client_config::IsolationLevel;
use crate::ids::{BrokerId, TopicPartition};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::sync::Arc;

/// Raw bytes (record batches on the wire), shown as hex in JSON.
///
/// A trace that keeps a million events (the page's) need not keep what every
/// message carried: [`Bytes::elided`] keeps only the length, which captions
/// and views show. Elided bytes read as empty and cannot be written as JSON
/// (the whole run is replayed for that: [`crate::Timeline::digest`]); the
/// simulation itself never sees them, only the trace does.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Bytes {
    data: Arc<[u8]>,
    /// The length of bytes no longer kept (see [`Bytes::elided`]).
    elided: Option<u64>,
}

impl Bytes {
    pub fn new(v: Vec<u8>) -> Bytes {
        Bytes {
            data: v.into(),
            elided: None,
        }
    }

    /// How many bytes (kept or not).
    pub fn len(&self) -> usize {
        self.elided.map_or(self.data.len(), |n| n as usize)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes (empty once elided).
    pub fn as_slice(&self) -> &[u8] {
        &self.data
    }

    /// The same length, without the bytes.
    pub fn elided(&self) -> Bytes {
        Bytes {
            data: Arc::from(Vec::new()),
            elided: Some(self.len() as u64),
        }
    }

    /// Whether only the length is kept.
    pub fn is_elided(&self) -> bool {
        self.elided.is_some()
    }
}

impl fmt::Debug for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.elided {
            None => write!(f, "Bytes({} bytes)", self.data.len()),
            Some(n) => write!(f, "Bytes({n} bytes, elided)"),
        }
    }
}

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.elided.is_some() {
            return Err(serde::ser::Error::custom(
                "these bytes were elided from a kept trace: replay the run to write them",
            ));
        }
        // Lower-case hex, two digits a byte (a record batch is thousands of
        // bytes: no formatting machinery per byte).
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut hex = String::with_capacity(self.data.len() * 2);
        for &b in self.data.iter() {
            hex.push(DIGITS[usize::from(b >> 4)] as char);
            hex.push(DIGITS[usize::from(b & 0xf)] as char);
        }
        s.serialize_str(&hex)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s.len() % 2 != 0 {
            return Err(serde::de::Error::custom("hex string of odd length"));
        }
        let mut v = Vec::with_capacity(s.len() / 2);
        for i in (0..s.len()).step_by(2) {
            let b = u8::from_str_radix(&s[i..i + 2], 16)
                .map_err(|_| serde::de::Error::custom("not a hex string"))?;
            v.push(b);
        }
        Ok(Bytes::new(v))
    }
}

/// Kafka's error codes (`org.apache.kafka.common.protocol.Errors`), the ones
/// the simulation produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    OffsetOutOfRange,
    CorruptMessage,
    UnknownTopicOrPartition,
    LeaderNotAvailable,
    NotLeaderOrFollower,
    RequestTimedOut,
    MessageTooLarge,
    StaleControllerEpoch,
    NotEnoughReplicas,
    NotEnoughReplicasAfterAppend,
    InvalidRecord,
    FencedLeaderEpoch,
    UnknownLeaderEpoch,
    NotController,
    InvalidUpdateVersion,
    IneligibleReplica,
    CoordinatorNotAvailable,
    NotCoordinator,
    IllegalGeneration,
    InconsistentGroupProtocol,
    UnknownMemberId,
    InvalidSessionTimeout,
    RebalanceInProgress,
    MemberIdRequired,
    FencedInstanceId,
    GroupMaxSizeReached,
    OutOfOrderSequenceNumber,
    DuplicateSequenceNumber,
    InvalidProducerEpoch,
    UnknownProducerId,
    RecordListTooLarge,
    BrokerNotAvailable,
    NetworkException,
    InvalidTxnState,
    TransactionCoordinatorFenced,
    ProducerFenced,
    ConcurrentTransactions,
    CoordinatorLoadInProgress,
    InvalidTransactionTimeout,
    InvalidProducerIdMapping,
    UnstableOffsetCommit,
    TransactionAbortable,
    /// `INVALID_REQUEST` (42).
    InvalidRequest,
    /// `STALE_BROKER_EPOCH` (77): the broker epoch is not the one registered.
    StaleBrokerEpoch,
    /// `DUPLICATE_BROKER_REGISTRATION` (101): another process holds the id.
    DuplicateBrokerRegistration,
    /// `BROKER_ID_NOT_REGISTERED` (102).
    BrokerIdNotRegistered,
    /// `INVALID_REPLICATION_FACTOR` (38).
    InvalidReplicationFactor,
    /// `TOPIC_ALREADY_EXISTS` (36).
    TopicAlreadyExists,
    /// `UNKNOWN_SERVER_ERROR` (-1): an unexpected exception on the broker.
    UnknownServerError,
    /// `FENCED_MEMBER_EPOCH` (110): KIP-848, the member epoch is not the
    /// coordinator's; the member must rejoin without its partitions.
    FencedMemberEpoch,
    /// `UNRELEASED_INSTANCE_ID` (111): KIP-848, the static member's instance
    /// id is still held by a member that has not left.
    UnreleasedInstanceId,
    /// `UNSUPPORTED_ASSIGNOR` (112): KIP-848, no such broker-side assignor.
    UnsupportedAssignor,
    /// `STALE_MEMBER_EPOCH` (113): KIP-848, an offset commit with an old
    /// member epoch.
    StaleMemberEpoch,
}

impl ErrorCode {
    /// Kafka's name, e.g. `NOT_LEADER_OR_FOLLOWER`.
    pub fn name(self) -> String {
        self.name_str().to_string()
    }

    /// Kafka's name as a static string (serde's SCREAMING_SNAKE_CASE tag).
    pub fn name_str(self) -> &'static str {
        match self {
            ErrorCode::OffsetOutOfRange => "OFFSET_OUT_OF_RANGE",
            ErrorCode::CorruptMessage => "CORRUPT_MESSAGE",
            ErrorCode::UnknownTopicOrPartition => "UNKNOWN_TOPIC_OR_PARTITION",
            ErrorCode::LeaderNotAvailable => "LEADER_NOT_AVAILABLE",
            ErrorCode::NotLeaderOrFollower => "NOT_LEADER_OR_FOLLOWER",
            ErrorCode::RequestTimedOut => "REQUEST_TIMED_OUT",
            ErrorCode::MessageTooLarge => "MESSAGE_TOO_LARGE",
            ErrorCode::StaleControllerEpoch => "STALE_CONTROLLER_EPOCH",
            ErrorCode::NotEnoughReplicas => "NOT_ENOUGH_REPLICAS",
            ErrorCode::NotEnoughReplicasAfterAppend => "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
            ErrorCode::InvalidRecord => "INVALID_RECORD",
            ErrorCode::FencedLeaderEpoch => "FENCED_LEADER_EPOCH",
            ErrorCode::UnknownLeaderEpoch => "UNKNOWN_LEADER_EPOCH",
            ErrorCode::NotController => "NOT_CONTROLLER",
            ErrorCode::InvalidUpdateVersion => "INVALID_UPDATE_VERSION",
            ErrorCode::IneligibleReplica => "INELIGIBLE_REPLICA",
            ErrorCode::CoordinatorNotAvailable => "COORDINATOR_NOT_AVAILABLE",
            ErrorCode::NotCoordinator => "NOT_COORDINATOR",
            ErrorCode::IllegalGeneration => "ILLEGAL_GENERATION",
            ErrorCode::InconsistentGroupProtocol => "INCONSISTENT_GROUP_PROTOCOL",
            ErrorCode::UnknownMemberId => "UNKNOWN_MEMBER_ID",
            ErrorCode::InvalidSessionTimeout => "INVALID_SESSION_TIMEOUT",
            ErrorCode::RebalanceInProgress => "REBALANCE_IN_PROGRESS",
            ErrorCode::MemberIdRequired => "MEMBER_ID_REQUIRED",
            ErrorCode::FencedInstanceId => "FENCED_INSTANCE_ID",
            ErrorCode::GroupMaxSizeReached => "GROUP_MAX_SIZE_REACHED",
            ErrorCode::OutOfOrderSequenceNumber => "OUT_OF_ORDER_SEQUENCE_NUMBER",
            ErrorCode::DuplicateSequenceNumber => "DUPLICATE_SEQUENCE_NUMBER",
            ErrorCode::InvalidProducerEpoch => "INVALID_PRODUCER_EPOCH",
            ErrorCode::UnknownProducerId => "UNKNOWN_PRODUCER_ID",
            ErrorCode::RecordListTooLarge => "RECORD_LIST_TOO_LARGE",
            ErrorCode::BrokerNotAvailable => "BROKER_NOT_AVAILABLE",
            ErrorCode::NetworkException => "NETWORK_EXCEPTION",
            ErrorCode::InvalidTxnState => "INVALID_TXN_STATE",
            ErrorCode::TransactionAbortable => "TRANSACTION_ABORTABLE",
            ErrorCode::TransactionCoordinatorFenced => "TRANSACTION_COORDINATOR_FENCED",
            ErrorCode::ProducerFenced => "PRODUCER_FENCED",
            ErrorCode::ConcurrentTransactions => "CONCURRENT_TRANSACTIONS",
            ErrorCode::CoordinatorLoadInProgress => "COORDINATOR_LOAD_IN_PROGRESS",
            ErrorCode::InvalidTransactionTimeout => "INVALID_TRANSACTION_TIMEOUT",
            ErrorCode::InvalidProducerIdMapping => "INVALID_PRODUCER_ID_MAPPING",
            ErrorCode::UnstableOffsetCommit => "UNSTABLE_OFFSET_COMMIT",
            ErrorCode::InvalidRequest => "INVALID_REQUEST",
            ErrorCode::StaleBrokerEpoch => "STALE_BROKER_EPOCH",
            ErrorCode::DuplicateBrokerRegistration => "DUPLICATE_BROKER_REGISTRATION",
            ErrorCode::BrokerIdNotRegistered => "BROKER_ID_NOT_REGISTERED",
            ErrorCode::InvalidReplicationFactor => "INVALID_REPLICATION_FACTOR",
            ErrorCode::TopicAlreadyExists => "TOPIC_ALREADY_EXISTS",
            ErrorCode::UnknownServerError => "UNKNOWN_SERVER_ERROR",
            ErrorCode::FencedMemberEpoch => "FENCED_MEMBER_EPOCH",
            ErrorCode::UnreleasedInstanceId => "UNRELEASED_INSTANCE_ID",
            ErrorCode::UnsupportedAssignor => "UNSUPPORTED_ASSIGNOR",
            ErrorCode::StaleMemberEpoch => "STALE_MEMBER_EPOCH",
        }
    }

    /// Whether Kafka's clients retry this error (`RetriableException`).
    pub fn is_retriable(self) -> bool {
        matches!(
            self,
            ErrorCode::NotLeaderOrFollower
                | ErrorCode::LeaderNotAvailable
                | ErrorCode::UnknownTopicOrPartition
                | ErrorCode::RequestTimedOut
                | ErrorCode::NotEnoughReplicas
                | ErrorCode::NotEnoughReplicasAfterAppend
                | ErrorCode::CorruptMessage
                | ErrorCode::FencedLeaderEpoch
                | ErrorCode::UnknownLeaderEpoch
                | ErrorCode::CoordinatorNotAvailable
                | ErrorCode::NotCoordinator
                | ErrorCode::NetworkException
                | ErrorCode::BrokerNotAvailable
                | ErrorCode::ConcurrentTransactions
                | ErrorCode::CoordinatorLoadInProgress
                | ErrorCode::UnstableOffsetCommit
        )
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// A partition's state as the controller sends it (`LeaderAndIsrPartitionState`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionState {
    pub tp: TopicPartition,
    pub controller_epoch: i32,
    pub leader: i32,
    pub leader_epoch: i32,
    pub isr: Vec<BrokerId>,
    /// The znode version of the partition state (`partitionEpoch`).
    pub partition_epoch: i32,
    pub replicas: Vec<BrokerId>,
    /// Replicas a reassignment is adding (`addingReplicas`, LeaderAndIsr
    /// v3+): empty unless one is under way.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub adding_replicas: Vec<BrokerId>,
    pub is_new: bool,
}

/// Metadata of one partition (`MetadataResponsePartition`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionMetadata {
    pub tp: TopicPartition,
    pub error: Option<ErrorCode>,
    /// `-1` when no leader is available.
    pub leader: i32,
    pub leader_epoch: i32,
    pub replicas: Vec<BrokerId>,
    pub isr: Vec<BrokerId>,
}

/// A MetadataResponse's partitions, sorted by partition and shared: a
/// broker builds its table once per UpdateMetadata, and every response, the
/// clients that keep it and the trace events that carry it hold one copy
/// (serialized as the plain list).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PartitionTable(Arc<Vec<PartitionMetadata>>);

impl PartitionTable {
    /// A table of `partitions` (sorted here; the last of duplicates wins).
    pub fn new(mut partitions: Vec<PartitionMetadata>) -> PartitionTable {
        partitions.reverse();
        partitions.sort_by(|a, b| a.tp.cmp(&b.tp));
        partitions.dedup_by(|later, first| later.tp == first.tp);
        PartitionTable(Arc::new(partitions))
    }

    /// The entry of `tp`.
    pub fn get(&self, tp: &TopicPartition) -> Option<&PartitionMetadata> {
        self.0
            .binary_search_by(|p| p.tp.cmp(tp))
            .ok()
            .map(|i| &self.0[i])
    }

    /// The entries of one topic.
    pub fn topic(&self, topic: &str) -> &[PartitionMetadata] {
        let from = self.0.partition_point(|p| &*p.tp.topic < topic);
        let to = self.0.partition_point(|p| &*p.tp.topic <= topic);
        &self.0[from..to]
    }

    /// Every entry, in partition order.
    pub fn iter(&self) -> std::slice::Iter<'_, PartitionMetadata> {
        self.0.iter()
    }

    /// How many partitions.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// This table updated with `newer`: its entries replace these, the
    /// rest stay. When `newer` covers every partition here, it is `newer`
    /// itself, shared.
    pub fn updated_with(&self, newer: &PartitionTable) -> PartitionTable {
        if self.iter().all(|p| newer.get(&p.tp).is_some()) {
            return newer.clone();
        }
        let mut all: Vec<PartitionMetadata> = self
            .iter()
            .filter(|p| newer.get(&p.tp).is_none())
            .cloned()
            .collect();
        all.extend(newer.iter().cloned());
        PartitionTable::new(all)
    }
}

/// The leader of each partition of a [`PartitionTable`], shared with it:
/// what a `metadata_updated` event shows, serialized as a map from
/// partition to leader.
#[derive(Clone, Debug, Default)]
pub struct LeaderView(PartitionTable);

impl LeaderView {
    /// The leaders of `table`'s partitions.
    pub fn of(table: &PartitionTable) -> LeaderView {
        LeaderView(table.clone())
    }

    /// (partition, leader) in partition order; -1: none.
    pub fn iter(&self) -> impl Iterator<Item = (&TopicPartition, i32)> {
        self.0.iter().map(|p| (&p.tp, p.leader))
    }

    /// The leaders, in partition order.
    pub fn values(&self) -> impl Iterator<Item = i32> + '_ {
        self.0.iter().map(|p| p.leader)
    }

    /// The leader of `tp`.
    pub fn get(&self, tp: &TopicPartition) -> Option<i32> {
        self.0.get(tp).map(|p| p.leader)
    }

    /// How many partitions.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl PartialEq for LeaderView {
    fn eq(&self, o: &Self) -> bool {
        self.len() == o.len() && self.iter().eq(o.iter())
    }
}

impl Serialize for LeaderView {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for LeaderView {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let m = crate::collections::SortedMap::<TopicPartition, i32>::deserialize(d)?;
        Ok(LeaderView(PartitionTable::new(
            m.into_iter()
                .map(|(tp, leader)| PartitionMetadata {
                    tp,
                    error: None,
                    leader,
                    leader_epoch: -1,
                    replicas: Vec::new(),
                    isr: Vec::new(),
                })
                .collect(),
        )))
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchPartition {
    pub tp: TopicPartition,
    pub fetch_offset: i64,
    pub current_leader_epoch: i32,
    /// The epoch of the last batch the follower has (Kafka ≥ 2.7 sends it so
    /// the leader can detect a diverging log; -1 when unknown).
    pub last_fetched_epoch: i32,
    /// A follower's log start offset (-1 from a consumer).
    #[serde(default = "minus_one", skip_serializing_if = "is_minus_one")]
    pub log_start_offset: i64,
    pub partition_max_bytes: u64,
}

fn minus_one() -> i64 {
    -1
}

fn is_minus_one(v: &i64) -> bool {
    *v == -1
}

/// The leader's answer when a follower's log diverges (`EpochEndOffset`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DivergingEpoch {
    pub epoch: i32,
    pub end_offset: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchPartitionResponse {
    pub tp: TopicPartition,
    pub error: Option<ErrorCode>,
    pub high_watermark: i64,
    pub log_start_offset: i64,
    pub log_end_offset: i64,
    pub diverging_epoch: Option<DivergingEpoch>,
    /// KIP-392: the replica the consumer should fetch from instead (the
    /// leader answers with no records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_read_replica: Option<BrokerId>,
    /// `LastStableOffset` (v4+). Kafka sends it on every answer; here only
    /// to a `read_committed` fetch, the one that uses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_stable_offset: Option<i64>,
    /// `AbortedTransactions` (v4+, `read_committed` only): each aborted
    /// transaction overlapping the records.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aborted_transactions: Vec<AbortedTransaction>,
    pub records: Bytes,
}

/// An aborted transaction as a fetch response lists it
/// (`FetchResponseData.AbortedTransaction`). Ordered by first offset, as
/// the consumer takes them (`CompletedFetch`'s priority queue).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct AbortedTransaction {
    /// The transaction's first offset in the partition.
    pub first_offset: i64,
    /// Its producer.
    pub producer_id: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProducePartitionResponse {
    pub tp: TopicPartition,
    pub error: Option<ErrorCode>,
    pub base_offset: i64,
    pub log_start_offset: i64,
}

/// `FetchRequest`: a follower (its broker id) or a consumer (`replica_id`
/// -1) asks a leader for records from each partition's fetch offset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FetchRequest {
    pub correlation_id: i32,
    /// The follower's broker id, or -1 for a consumer.
    pub replica_id: i32,
    pub max_wait_ms: u64,
    pub min_bytes: u64,
    pub max_bytes: u64,
    pub partitions: Vec<FetchPartition>,
    /// A consumer's `client.rack` (v11+ `RackId`; empty when unset).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rack_id: String,
    /// `IsolationLevel` (v4+): a `read_committed` consumer is answered up to
    /// the last stable offset, with the aborted transactions listed.
    #[serde(default, skip_serializing_if = "IsolationLevel::is_default")]
    pub isolation_level: IsolationLevel,
}

/// `JoinGroupRequest`: a member asks to join (or rejoin) a group, with
/// the assignors it supports in preference order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JoinGroupRequest {
    pub correlation_id: i32,
    pub group_id: String,
    pub session_timeout_ms: u64,
    pub rebalance_timeout_ms: u64,
    pub member_id: String,
    pub group_instance_id: Option<String>,
    pub protocol_type: String,
    /// (assignor name, subscription) in preference order.
    pub protocols: Vec<(String, Subscription)>,
    /// `client.id`, from the request header (`RequestHeader.clientId`), not
    /// the JoinGroup body, so the trace does not show it.
    #[serde(skip)]
    pub client_id: String,
}

/// `SyncGroupRequest`: every member asks for its assignment; the leader's
/// carries everyone's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SyncGroupRequest {
    pub correlation_id: i32,
    pub group_id: String,
    pub generation_id: i32,
    pub member_id: String,
    pub group_instance_id: Option<String>,
    /// Only from the leader: member → assigned partitions.
    pub assignments: Vec<(String, Vec<TopicPartition>)>,
}

/// `OffsetCommitRequest`: a member commits positions for its partitions
/// in a generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OffsetCommitRequest {
    pub correlation_id: i32,
    pub group_id: String,
    pub generation_id: i32,
    pub member_id: String,
    pub offsets: Vec<(TopicPartition, i64)>,
}

/// `TxnOffsetCommitRequest`: a transactional producer commits a consumer
/// group's offsets inside its transaction (`sendOffsetsToTransaction`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TxnOffsetCommitRequest {
    pub correlation_id: i32,
    pub transactional_id: String,
    pub group_id: String,
    pub producer_id: i64,
    pub producer_epoch: i16,
    /// KIP-447: the consumer's generation and member id, checked like an OffsetCommit's.
    pub generation_id: i32,
    pub member_id: String,
    pub offsets: Vec<(TopicPartition, i64)>,
}

/// A message on the wire.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "api")]
pub enum Message {
    // ---- KRaft (Kafka 4.1): the controller quorum and the brokers' lifecycle ----
    /// A (pre-)vote request (`VoteRequest`, KIP-595; `PreVote`, KIP-996).
    Vote {
        correlation_id: i32,
        /// The candidate's epoch (`ReplicaEpoch`): the epoch it stands in
        /// (its current one for a pre-vote, one more for a vote).
        epoch: i32,
        /// The candidate's `node.id`.
        candidate: i32,
        /// The epoch of the last record in its log (`LastOffsetEpoch`).
        last_epoch: i32,
        /// Its log end offset (`LastOffset`).
        last_offset: i64,
        /// A pre-vote: asks whether it would win, changing nothing.
        pre_vote: bool,
    },
    VoteResponse {
        correlation_id: i32,
        error: Option<ErrorCode>,
        /// The voter's epoch and the leader it knows (-1: none).
        epoch: i32,
        leader: i32,
        granted: bool,
        pre_vote: bool,
    },
    /// The new quorum leader announces itself (`BeginQuorumEpochRequest`).
    BeginQuorumEpoch {
        correlation_id: i32,
        epoch: i32,
        leader: i32,
    },
    BeginQuorumEpochResponse {
        correlation_id: i32,
        error: Option<ErrorCode>,
        epoch: i32,
        leader: i32,
    },
    /// A resigning leader (`EndQuorumEpochRequest`): the voters may elect
    /// another, the most caught-up of `preferred_successors` first.
    EndQuorumEpoch {
        correlation_id: i32,
        epoch: i32,
        leader: i32,
        preferred_successors: Vec<i32>,
    },
    EndQuorumEpochResponse {
        correlation_id: i32,
        error: Option<ErrorCode>,
        epoch: i32,
        leader: i32,
    },
    /// A Fetch of `__cluster_metadata-0` from the quorum leader, by a voter
    /// or an observer (a broker). Its API is `Fetch`, as for any partition.
    RaftFetch {
        correlation_id: i32,
        /// The fetching node (`ReplicaId`).
        replica: i32,
        /// The leader epoch it believes current.
        epoch: i32,
        /// Its log end offset (`FetchOffset`) and the epoch of its last
        /// record (`LastFetchedEpoch`).
        fetch_offset: i64,
        last_fetched_epoch: i32,
        /// Its high watermark (-1: unknown).
        high_watermark: i64,
    },
    RaftFetchResponse {
        correlation_id: i32,
        error: Option<ErrorCode>,
        epoch: i32,
        /// The leader this node knows (-1: none).
        leader: i32,
        high_watermark: i64,
        /// `DivergingEpoch`: the follower's log diverges; it truncates to
        /// (epoch, end offset) and fetches again.
        diverging: Option<(i32, i64)>,
        /// The records from `fetch_offset` on.
        records: Vec<crate::kraft::records::MetadataEntry>,
    },
    /// A broker registers with the active controller (`BrokerRegistrationRequest`).
    BrokerRegistration {
        correlation_id: i32,
        broker: i32,
        /// The process's `IncarnationId` (one per start).
        incarnation: u32,
        /// The broker epoch of its previous life (-1: none), for the
        /// controller to tell a clean restart from an unclean one.
        previous_broker_epoch: i64,
        /// Its `broker.rack`, if set.
        rack: Option<String>,
    },
    BrokerRegistrationResponse {
        correlation_id: i32,
        error: Option<ErrorCode>,
        /// The broker epoch: the offset of its RegisterBrokerRecord.
        broker_epoch: i64,
    },
    /// `BrokerHeartbeatRequest`.
    BrokerHeartbeat {
        correlation_id: i32,
        broker: i32,
        broker_epoch: i64,
        /// The highest metadata offset it has applied (-1: none).
        current_metadata_offset: i64,
        /// Not ready to be unfenced yet.
        want_fence: bool,
        want_shut_down: bool,
    },
    BrokerHeartbeatResponse {
        correlation_id: i32,
        error: Option<ErrorCode>,
        /// It has applied the metadata log up to its own registration.
        is_caught_up: bool,
        is_fenced: bool,
        should_shut_down: bool,
    },
    /// Broker → active controller: create a topic (`CreateTopicsRequest`,
    /// from the broker's `AutoTopicCreationManager` for an internal topic).
    CreateTopics {
        correlation_id: i32,
        topic: Box<crate::scenario::TopicSpec>,
    },
    /// Its answer.
    CreateTopicsResponse {
        correlation_id: i32,
        topic: String,
        error: Option<ErrorCode>,
        /// Kafka's error message.
        message: Option<String>,
    },
    /// Broker → active controller: a block of producer ids (KIP-730,
    /// `AllocateProducerIdsRequest`).
    AllocateProducerIds {
        correlation_id: i32,
        broker: i32,
        broker_epoch: i64,
    },
    /// The block: ids `first .. first + length`.
    AllocateProducerIdsResponse {
        correlation_id: i32,
        error: Option<ErrorCode>,
        first: i64,
        length: i32,
    },
    /// Controller → broker: become leader or follower (`LeaderAndIsrRequest`).
    LeaderAndIsr {
        controller_id: BrokerId,
        controller_epoch: i32,
        /// A partition's state is one allocation shared by the requests to
        /// all its replicas: the controller's batch adds the same state to
        /// each replica's request (`addLeaderAndIsrRequestForBrokers`).
        partitions: Vec<Arc<PartitionState>>,
    },
    LeaderAndIsrResponse {
        controller_epoch: i32,
        error: Option<ErrorCode>,
        partitions: Vec<(TopicPartition, Option<ErrorCode>)>,
    },
    /// Controller → every broker: the cluster metadata to serve to clients.
    UpdateMetadata {
        controller_id: BrokerId,
        controller_epoch: i32,
        live_brokers: Vec<BrokerId>,
        /// Shared by the requests of one broadcast.
        partitions: Arc<[PartitionState]>,
    },
    /// Controller → broker: stop replicating (and maybe delete) partitions.
    StopReplica {
        controller_epoch: i32,
        partitions: Vec<TopicPartition>,
        delete: bool,
    },
    /// Leader → controller: change the ISR (KIP-497).
    AlterPartition {
        broker: BrokerId,
        tp: TopicPartition,
        leader_epoch: i32,
        new_isr: Vec<BrokerId>,
        partition_epoch: i32,
    },
    AlterPartitionResponse {
        tp: TopicPartition,
        error: Option<ErrorCode>,
        leader: i32,
        leader_epoch: i32,
        isr: Vec<BrokerId>,
        partition_epoch: i32,
    },
    /// Broker → controller: move my leaderships away before I stop.
    ControlledShutdown {
        broker: BrokerId,
    },
    ControlledShutdownResponse {
        error: Option<ErrorCode>,
        partitions_remaining: Vec<TopicPartition>,
    },
    /// ZooKeeper → watcher: a watched znode changed.
    WatchNotification {
        path: String,
        change: ZkChange,
    },
    Produce {
        correlation_id: i32,
        /// 0, 1 or -1 (`all`).
        acks: i16,
        timeout_ms: u64,
        /// A transactional producer's `transactional.id` (the request's
        /// `TransactionalId`): the leader verifies with its coordinator.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        transactional_id: Option<String>,
        topic_data: Vec<(TopicPartition, Bytes)>,
    },
    ProduceResponse {
        correlation_id: i32,
        responses: Vec<ProducePartitionResponse>,
    },
    Fetch(FetchRequest),
    FetchResponse {
        correlation_id: i32,
        error: Option<ErrorCode>,
        partitions: Vec<FetchPartitionResponse>,
    },
    Metadata {
        correlation_id: i32,
        /// `None` = all topics.
        topics: Option<Vec<String>>,
    },
    MetadataResponse {
        correlation_id: i32,
        brokers: Vec<BrokerId>,
        controller_id: i32,
        partitions: PartitionTable,
        /// Topics asked for that do not exist.
        unknown_topics: Vec<String>,
    },
    ListOffsets {
        correlation_id: i32,
        /// -2 earliest, -1 latest, else a timestamp.
        partitions: Vec<(TopicPartition, i64)>,
    },
    ListOffsetsResponse {
        correlation_id: i32,
        partitions: Vec<(TopicPartition, Option<ErrorCode>, i64)>,
    },
    InitProducerId {
        correlation_id: i32,
        /// The producer's `transactional.id` (none: an idempotent producer).
        transactional_id: Option<String>,
        /// Its `transaction.timeout.ms`.
        transaction_timeout_ms: i32,
    },
    InitProducerIdResponse {
        correlation_id: i32,
        error: Option<ErrorCode>,
        producer_id: i64,
        producer_epoch: i16,
    },
    FindCoordinator {
        correlation_id: i32,
        key: String,
        /// A group or a transactional id.
        key_type: CoordinatorType,
    },
    FindCoordinatorResponse {
        correlation_id: i32,
        error: Option<ErrorCode>,
        node_id: i32,
        /// The `__consumer_offsets` (or `__transaction_state`) partition that decides it.
        partition: i32,
    },
    AddPartitionsToTxn {
        correlation_id: i32,
        transactional_id: String,
        producer_id: i64,
        producer_epoch: i16,
        partitions: Vec<TopicPartition>,
        /// KIP-890 part 1: a partition leader asks whether the partitions
        /// are already in the transaction, adding nothing (the broker's
        /// version 4+ request, `VerifyOnly`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        verify_only: bool,
    },
    AddPartitionsToTxnResponse {
        correlation_id: i32,
        results: Vec<(TopicPartition, Option<ErrorCode>)>,
    },
    EndTxn {
        correlation_id: i32,
        transactional_id: String,
        producer_id: i64,
        producer_epoch: i16,
        /// Commit (true) or abort.
        committed: bool,
    },
    EndTxnResponse {
        correlation_id: i32,
        error: Option<ErrorCode>,
    },
    /// `sendOffsetsToTransaction` step 1: the group's `__consumer_offsets`
    /// partition joins the transaction.
    AddOffsetsToTxn {
        correlation_id: i32,
        transactional_id: String,
        producer_id: i64,
        producer_epoch: i16,
        group_id: String,
    },
    AddOffsetsToTxnResponse {
        correlation_id: i32,
        error: Option<ErrorCode>,
    },
    /// Step 2, to the group coordinator.
    TxnOffsetCommit(TxnOffsetCommitRequest),
    TxnOffsetCommitResponse {
        correlation_id: i32,
        partitions: PartitionErrors,
    },
    WriteTxnMarkers {
        correlation_id: i32,
        markers: Vec<TxnMarkerEntry>,
    },
    WriteTxnMarkersResponse {
        correlation_id: i32,
        /// Per producer id, each partition's result.
        results: Vec<(i64, PartitionErrors)>,
    },
    JoinGroup(JoinGroupRequest),
    JoinGroupResponse {
        correlation_id: i32,
        error: Option<ErrorCode>,
        generation_id: i32,
        protocol_name: Option<String>,
        leader: String,
        member_id: String,
        /// Only the leader gets the members and their subscriptions.
        members: Vec<JoinGroupMember>,
    },
    SyncGroup(SyncGroupRequest),
    SyncGroupResponse {
        correlation_id: i32,
        error: Option<ErrorCode>,
        assignment: Vec<TopicPartition>,
    },
    Heartbeat {
        correlation_id: i32,
        group_id: String,
        generation_id: i32,
        member_id: String,
        group_instance_id: Option<String>,
    },
    HeartbeatResponse {
        correlation_id: i32,
        error: Option<ErrorCode>,
    },
    LeaveGroup {
        correlation_id: i32,
        group_id: String,
        member_id: String,
    },
    LeaveGroupResponse {
        correlation_id: i32,
        error: Option<ErrorCode>,
    },
    OffsetCommit(OffsetCommitRequest),
    OffsetCommitResponse {
        correlation_id: i32,
        partitions: Vec<(TopicPartition, Option<ErrorCode>)>,
    },
    OffsetFetch {
        correlation_id: i32,
        group_id: String,
        partitions: Vec<TopicPartition>,
        /// KIP-447 (a read_committed consumer): refuse an offset that a
        /// transaction has written but not yet decided.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        require_stable: bool,
    },
    OffsetFetchResponse {
        correlation_id: i32,
        error: Option<ErrorCode>,
        /// -1 = no committed offset.
        offsets: Vec<(TopicPartition, i64)>,
        /// Partitions answered UNSTABLE_OFFSET_COMMIT (their offset is -1).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        unstable: Vec<TopicPartition>,
    },
}

/// Each partition's result in a response (`None`: no error).
pub type PartitionErrors = Vec<(TopicPartition, Option<ErrorCode>)>;

/// FindCoordinator's key type (`FindCoordinatorRequest.CoordinatorType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CoordinatorType {
    /// A consumer group (`__consumer_offsets`).
    Group,
    /// A transactional id (`__transaction_state`).
    Transaction,
}

/// One marker of a WriteTxnMarkers request (`WritableTxnMarker`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxnMarkerEntry {
    pub producer_id: i64,
    pub producer_epoch: i16,
    /// COMMIT (true) or ABORT.
    pub committed: bool,
    pub coordinator_epoch: i32,
    pub partitions: Vec<TopicPartition>,
}

/// What a consumer subscribes with (`ConsumerProtocolSubscription`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subscription {
    pub topics: Vec<String>,
    pub owned_partitions: Vec<TopicPartition>,
    pub generation_id: i32,
    /// The member's `client.rack` (v3's `rackId`), if set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rack_id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JoinGroupMember {
    pub member_id: String,
    pub group_instance_id: Option<String>,
    pub subscription: Subscription,
}

/// A change to a watched znode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ZkChange {
    Created,
    Deleted,
    DataChanged,
    ChildrenChanged,
}

impl Message {
    /// How many partition entries the message carries (a fetch's
    /// partitions, a LeaderAndIsr's states, …): the per-partition work a
    /// broker or client does for it. The scale figures count work as events
    /// plus these entries (`examples/scale.rs`, issue 46).
    pub fn partition_entries(&self) -> usize {
        match self {
            Message::LeaderAndIsr { partitions, .. } => partitions.len(),
            Message::LeaderAndIsrResponse { partitions, .. } => partitions.len(),
            Message::UpdateMetadata { partitions, .. } => partitions.len(),
            Message::StopReplica { partitions, .. } => partitions.len(),
            Message::Produce { topic_data, .. } => topic_data.len(),
            Message::ProduceResponse { responses, .. } => responses.len(),
            Message::Fetch(f) => f.partitions.len(),
            Message::FetchResponse { partitions, .. } => partitions.len(),
            Message::MetadataResponse { partitions, .. } => partitions.len(),
            Message::ListOffsets { partitions, .. } => partitions.len(),
            Message::ListOffsetsResponse { partitions, .. } => partitions.len(),
            Message::OffsetCommit(r) => r.offsets.len(),
            Message::OffsetCommitResponse { partitions, .. } => partitions.len(),
            Message::OffsetFetch { partitions, .. } => partitions.len(),
            Message::OffsetFetchResponse { offsets, .. } => offsets.len(),
            _ => 0,
        }
    }

    /// The same message without the record bytes it carries (their lengths
    /// kept, see [`Bytes::elided`]), or None when it carries none: what a
    /// light trace keeps of a Produce or a FetchResponse.
    pub fn without_bytes(&self) -> Option<Message> {
        match self {
            Message::Produce { topic_data, .. }
                if topic_data.iter().any(|(_, b)| !b.is_empty()) =>
            {
                let mut m = self.clone();
                if let Message::Produce { topic_data, .. } = &mut m {
                    for (_, b) in topic_data.iter_mut() {
                        *b = b.elided();
                    }
                }
                Some(m)
            }
            Message::FetchResponse { partitions, .. }
                if partitions.iter().any(|p| !p.records.is_empty()) =>
            {
                let mut m = self.clone();
                if let Message::FetchResponse { partitions, .. } = &mut m {
                    for p in partitions.iter_mut() {
                        p.records = p.records.elided();
                    }
                }
                Some(m)
            }
            _ => None,
        }
    }

    /// The top-level error of a response, if it has one.
    pub fn error(&self) -> Option<ErrorCode> {
        match self {
            Message::LeaderAndIsrResponse { error, .. }
            | Message::AlterPartitionResponse { error, .. }
            | Message::ControlledShutdownResponse { error, .. }
            | Message::FetchResponse { error, .. }
            | Message::InitProducerIdResponse { error, .. }
            | Message::FindCoordinatorResponse { error, .. }
            | Message::EndTxnResponse { error, .. }
            | Message::AddOffsetsToTxnResponse { error, .. }
            | Message::JoinGroupResponse { error, .. }
            | Message::SyncGroupResponse { error, .. }
            | Message::HeartbeatResponse { error, .. }
            | Message::LeaveGroupResponse { error, .. }
            | Message::OffsetFetchResponse { error, .. }
            | Message::VoteResponse { error, .. }
            | Message::BeginQuorumEpochResponse { error, .. }
            | Message::EndQuorumEpochResponse { error, .. }
            | Message::RaftFetchResponse { error, .. }
            | Message::BrokerRegistrationResponse { error, .. }
            | Message::BrokerHeartbeatResponse { error, .. }
            | Message::AllocateProducerIdsResponse { error, .. }
            | Message::CreateTopicsResponse { error, .. } => *error,
            _ => None,
        }
    }

    /// Whether it answers a request (it travels back over the connection
    /// the requester opened).
    pub fn is_response(&self) -> bool {
        self.api().ends_with("Response")
    }

    /// Kafka's API name (`Produce`, `Fetch`, `LeaderAndIsr`, ...).
    pub fn api(&self) -> &'static str {
        match self {
            Message::LeaderAndIsr { .. } => "LeaderAndIsr",
            Message::LeaderAndIsrResponse { .. } => "LeaderAndIsrResponse",
            Message::UpdateMetadata { .. } => "UpdateMetadata",
            Message::StopReplica { .. } => "StopReplica",
            Message::AlterPartition { .. } => "AlterPartition",
            Message::AlterPartitionResponse { .. } => "AlterPartitionResponse",
            Message::ControlledShutdown { .. } => "ControlledShutdown",
            Message::ControlledShutdownResponse { .. } => "ControlledShutdownResponse",
            Message::WatchNotification { .. } => "WatchNotification",
            Message::Produce { .. } => "Produce",
            Message::ProduceResponse { .. } => "ProduceResponse",
            Message::Fetch(..) => "Fetch",
            Message::FetchResponse { .. } => "FetchResponse",
            Message::Metadata { .. } => "Metadata",
            Message::MetadataResponse { .. } => "MetadataResponse",
            Message::ListOffsets { .. } => "ListOffsets",
            Message::ListOffsetsResponse { .. } => "ListOffsetsResponse",
            Message::InitProducerId { .. } => "InitProducerId",
            Message::InitProducerIdResponse { .. } => "InitProducerIdResponse",
            Message::FindCoordinator { .. } => "FindCoordinator",
            Message::FindCoordinatorResponse { .. } => "FindCoordinatorResponse",
            Message::AddPartitionsToTxn { .. } => "AddPartitionsToTxn",
            Message::AddPartitionsToTxnResponse { .. } => "AddPartitionsToTxnResponse",
            Message::EndTxn { .. } => "EndTxn",
            Message::EndTxnResponse { .. } => "EndTxnResponse",
            Message::AddOffsetsToTxn { .. } => "AddOffsetsToTxn",
            Message::AddOffsetsToTxnResponse { .. } => "AddOffsetsToTxnResponse",
            Message::TxnOffsetCommit(..) => "TxnOffsetCommit",
            Message::TxnOffsetCommitResponse { .. } => "TxnOffsetCommitResponse",
            Message::WriteTxnMarkers { .. } => "WriteTxnMarkers",
            Message::WriteTxnMarkersResponse { .. } => "WriteTxnMarkersResponse",
            Message::JoinGroup(..) => "JoinGroup",
            Message::JoinGroupResponse { .. } => "JoinGroupResponse",
            Message::SyncGroup(..) => "SyncGroup",
            Message::SyncGroupResponse { .. } => "SyncGroupResponse",
            Message::Heartbeat { .. } => "Heartbeat",
            Message::HeartbeatResponse { .. } => "HeartbeatResponse",
            Message::LeaveGroup { .. } => "LeaveGroup",
            Message::LeaveGroupResponse { .. } => "LeaveGroupResponse",
            Message::OffsetCommit(..) => "OffsetCommit",
            Message::OffsetCommitResponse { .. } => "OffsetCommitResponse",
            Message::OffsetFetch { .. } => "OffsetFetch",
            Message::OffsetFetchResponse { .. } => "OffsetFetchResponse",
            Message::Vote { .. } => "Vote",
            Message::VoteResponse { .. } => "VoteResponse",
            Message::BeginQuorumEpoch { .. } => "BeginQuorumEpoch",
            Message::BeginQuorumEpochResponse { .. } => "BeginQuorumEpochResponse",
            Message::EndQuorumEpoch { .. } => "EndQuorumEpoch",
            Message::EndQuorumEpochResponse { .. } => "EndQuorumEpochResponse",
            Message::RaftFetch { .. } => "Fetch",
            Message::RaftFetchResponse { .. } => "FetchResponse",
            Message::BrokerRegistration { .. } => "BrokerRegistration",
            Message::BrokerRegistrationResponse { .. } => "BrokerRegistrationResponse",
            Message::BrokerHeartbeat { .. } => "BrokerHeartbeat",
            Message::BrokerHeartbeatResponse { .. } => "BrokerHeartbeatResponse",
            Message::AllocateProducerIds { .. } => "AllocateProducerIds",
            Message::CreateTopics { .. } => "CreateTopics",
            Message::CreateTopicsResponse { .. } => "CreateTopicsResponse",
            Message::AllocateProducerIdsResponse { .. } => "AllocateProducerIdsResponse",
        }
    }

    /// A one-line summary for captions and hover text.
    pub fn summary(&self) -> String {
        match self {
            Message::LeaderAndIsr { partitions, .. } => {
                let p: Vec<String> = partitions
                    .iter()
                    .take(3)
                    .map(|p| format!("{} leader {} epoch {}", p.tp, p.leader, p.leader_epoch))
                    .collect();
                let more = if partitions.len() > 3 {
                    format!(" (+{} more)", partitions.len() - 3)
                } else {
                    String::new()
                };
                format!("LeaderAndIsr [{}]{more}", p.join("; "))
            }
            Message::UpdateMetadata { partitions, .. } => {
                format!("UpdateMetadata ({} partitions)", partitions.len())
            }
            Message::AlterPartition { tp, new_isr, .. } => {
                format!(
                    "AlterPartition {tp} ISR → {}",
                    crate::ids::ids_list(new_isr)
                )
            }
            Message::AlterPartitionResponse { tp, error, isr, .. } => match error {
                Some(e) => format!("AlterPartitionResponse {tp}: {e}"),
                None => format!(
                    "AlterPartitionResponse {tp}: ISR {}",
                    crate::ids::ids_list(isr)
                ),
            },
            Message::Produce {
                topic_data, acks, ..
            } => {
                let bytes: usize = topic_data.iter().map(|(_, b)| b.len()).sum();
                let tps: Vec<String> = topic_data.iter().map(|(t, _)| t.to_string()).collect();
                format!(
                    "Produce {} (acks={}, {bytes} bytes)",
                    tps.join(", "),
                    acks_name(*acks)
                )
            }
            Message::ProduceResponse { responses, .. } => {
                let r: Vec<String> = responses
                    .iter()
                    .map(|r| match r.error {
                        Some(e) => format!("{}: {e}", r.tp),
                        None => format!("{}: base offset {}", r.tp, r.base_offset),
                    })
                    .collect();
                format!("ProduceResponse {}", r.join("; "))
            }
            Message::Fetch(FetchRequest {
                replica_id,
                partitions,
                ..
            }) => {
                let p: Vec<String> = partitions
                    .iter()
                    .take(3)
                    .map(|p| format!("{} from {}", p.tp, p.fetch_offset))
                    .collect();
                let more = if partitions.len() > 3 {
                    format!(" (+{} more)", partitions.len() - 3)
                } else {
                    String::new()
                };
                let who = if *replica_id >= 0 {
                    "follower"
                } else {
                    "consumer"
                };
                format!("Fetch ({who}) {}{more}", p.join(", "))
            }
            Message::FetchResponse {
                partitions, error, ..
            } => {
                if let Some(e) = error {
                    return format!("FetchResponse: {e}");
                }
                let p: Vec<String> = partitions
                    .iter()
                    .take(3)
                    .map(|p| match p.error {
                        Some(e) => format!("{}: {e}", p.tp),
                        None => format!(
                            "{}: {} bytes, HW {}",
                            p.tp,
                            p.records.len(),
                            p.high_watermark
                        ),
                    })
                    .collect();
                format!("FetchResponse {}", p.join("; "))
            }
            Message::WatchNotification { path, change } => format!("watch: {path} {change:?}"),
            Message::JoinGroup(JoinGroupRequest {
                group_id,
                member_id,
                ..
            }) => {
                format!(
                    "JoinGroup {group_id} as {}",
                    if member_id.is_empty() {
                        "(new member)"
                    } else {
                        member_id
                    }
                )
            }
            Message::JoinGroupResponse {
                error,
                generation_id,
                ..
            } => match error {
                Some(e) => format!("JoinGroupResponse: {e}"),
                None => format!("JoinGroupResponse generation {generation_id}"),
            },
            Message::SyncGroupResponse {
                error, assignment, ..
            } => match error {
                Some(e) => format!("SyncGroupResponse: {e}"),
                None => format!(
                    "SyncGroupResponse [{}]",
                    assignment
                        .iter()
                        .map(|t| t.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
            Message::AddPartitionsToTxn {
                partitions,
                verify_only: true,
                ..
            } => format!(
                "AddPartitionsToTxn {} (verify only)",
                partitions
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Message::AddPartitionsToTxnResponse { results, .. }
                if results.iter().any(|(_, e)| e.is_some()) =>
            {
                format!(
                    "AddPartitionsToTxnResponse {}",
                    results
                        .iter()
                        .map(|(t, e)| format!("{t}: {}", e.map_or("NONE", |e| e.name_str())))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
            Message::OffsetCommit(OffsetCommitRequest { offsets, .. }) => format!(
                "OffsetCommit {}",
                offsets
                    .iter()
                    .map(|(t, o)| format!("{t}={o}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Message::Vote {
                epoch,
                candidate,
                last_epoch,
                last_offset,
                pre_vote,
                ..
            } => format!(
                "{} epoch {epoch} for {candidate} (log end {last_offset}, last epoch {last_epoch})",
                if *pre_vote { "PreVote" } else { "Vote" }
            ),
            Message::VoteResponse {
                error: None,
                epoch,
                granted,
                pre_vote,
                ..
            } => format!(
                "{}Response epoch {epoch}: {}",
                if *pre_vote { "PreVote" } else { "Vote" },
                if *granted { "granted" } else { "rejected" }
            ),
            Message::BeginQuorumEpoch { epoch, leader, .. } => {
                format!("BeginQuorumEpoch epoch {epoch}, leader {leader}")
            }
            Message::EndQuorumEpoch {
                epoch,
                leader,
                preferred_successors,
                ..
            } => format!(
                "EndQuorumEpoch epoch {epoch}, leader {leader} resigns (successors {preferred_successors:?})"
            ),
            Message::RaftFetch {
                fetch_offset,
                last_fetched_epoch,
                epoch,
                ..
            } => format!(
                "Fetch __cluster_metadata-0 from {fetch_offset} (last epoch {last_fetched_epoch}, leader epoch {epoch})"
            ),
            Message::RaftFetchResponse {
                error: None,
                high_watermark,
                diverging: Some((e, o)),
                ..
            } => format!("FetchResponse HW {high_watermark}: diverging, truncate to {o} (epoch {e})"),
            Message::RaftFetchResponse {
                error: None,
                high_watermark,
                records,
                ..
            } => format!(
                "FetchResponse __cluster_metadata-0: {} record{}, HW {high_watermark}",
                records.len(),
                if records.len() == 1 { "" } else { "s" }
            ),
            Message::BrokerRegistration { broker, .. } => format!("BrokerRegistration broker {broker}"),
            Message::BrokerRegistrationResponse {
                error: None,
                broker_epoch,
                ..
            } => format!("BrokerRegistrationResponse broker epoch {broker_epoch}"),
            Message::BrokerHeartbeat {
                broker,
                current_metadata_offset,
                want_fence,
                ..
            } => format!(
                "BrokerHeartbeat broker {broker}, metadata offset {current_metadata_offset}{}",
                if *want_fence { ", wants fence" } else { "" }
            ),
            Message::BrokerHeartbeatResponse {
                error: None,
                is_caught_up,
                is_fenced,
                ..
            } => format!(
                "BrokerHeartbeatResponse {}{}",
                if *is_fenced { "fenced" } else { "unfenced" },
                if *is_caught_up { ", caught up" } else { "" }
            ),
            Message::AllocateProducerIds { broker, .. } => {
                format!("AllocateProducerIds broker {broker}")
            }
            Message::CreateTopics { topic, .. } => format!("CreateTopics {}", topic.name),
            Message::CreateTopicsResponse {
                topic, error: None, ..
            } => format!("CreateTopicsResponse {topic}"),
            Message::AllocateProducerIdsResponse {
                error: None,
                first,
                length,
                ..
            } => format!(
                "AllocateProducerIdsResponse ids {first}–{}",
                first + i64::from(*length) - 1
            ),
            other => {
                let err = other.error().map(|e| format!(": {}", e.name_str()));
                format!("{}{}", other.api(), err.unwrap_or_default())
            }
        }
    }
}

pub use crate::client_config::acks_name;

#[cfg(test)]
mod name_tests {
    use super::ErrorCode;

    #[test]
    fn error_names_match_their_serde_tags() {
        for n in [
            "OFFSET_OUT_OF_RANGE",
            "CORRUPT_MESSAGE",
            "UNKNOWN_TOPIC_OR_PARTITION",
            "LEADER_NOT_AVAILABLE",
            "NOT_LEADER_OR_FOLLOWER",
            "REQUEST_TIMED_OUT",
            "MESSAGE_TOO_LARGE",
            "STALE_CONTROLLER_EPOCH",
            "NOT_ENOUGH_REPLICAS",
            "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
            "INVALID_RECORD",
            "FENCED_LEADER_EPOCH",
            "UNKNOWN_LEADER_EPOCH",
            "NOT_CONTROLLER",
            "INVALID_UPDATE_VERSION",
            "INELIGIBLE_REPLICA",
            "COORDINATOR_NOT_AVAILABLE",
            "NOT_COORDINATOR",
            "ILLEGAL_GENERATION",
            "INCONSISTENT_GROUP_PROTOCOL",
            "UNKNOWN_MEMBER_ID",
            "INVALID_SESSION_TIMEOUT",
            "REBALANCE_IN_PROGRESS",
            "MEMBER_ID_REQUIRED",
            "FENCED_INSTANCE_ID",
            "GROUP_MAX_SIZE_REACHED",
            "OUT_OF_ORDER_SEQUENCE_NUMBER",
            "DUPLICATE_SEQUENCE_NUMBER",
            "INVALID_PRODUCER_EPOCH",
            "UNKNOWN_PRODUCER_ID",
            "RECORD_LIST_TOO_LARGE",
            "BROKER_NOT_AVAILABLE",
            "NETWORK_EXCEPTION",
            "UNSTABLE_OFFSET_COMMIT",
        ] {
            let e: ErrorCode = serde_json::from_value(serde_json::Value::String(n.into())).unwrap();
            assert_eq!(e.name_str(), n);
            assert_eq!(
                serde_json::to_value(e).unwrap(),
                serde_json::Value::String(n.into())
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Bytes;

    #[test]
    fn bytes_are_written_as_two_lower_case_hex_digits_each_and_read_back() {
        let all: Vec<u8> = (0..=255).collect();
        let want: String = all.iter().map(|b| format!("{b:02x}")).collect();
        let json = serde_json::to_string(&Bytes::new(all.clone())).unwrap();
        assert_eq!(json, format!("\"{want}\""));
        let back: Bytes = serde_json::from_str(&json).unwrap();
        assert_eq!(back, Bytes::new(all));
        assert_eq!(serde_json::to_string(&Bytes::new(vec![])).unwrap(), "\"\"");
    }
}
