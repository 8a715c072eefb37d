//! The trace: numbered, past-tense events.
//!
//! Everything that changes in the simulation is one [`Event`]: it has an id
//! (its position in the trace), the simulated time, the nodes involved, the
//! event that caused it (a message's send, say) and a [`EventKind`] carrying
//! the facts. Captions in English and Chinese are derived from the kind
//! (`caption.rs`), so the trace stays small and a caption can never disagree
//! with the data.

use crate::collections::SortedMap;
use crate::election::{Candidate, ElectionAlgorithm};
use crate::ids::{BrokerId, Millis, NodeId, TopicPartition};
use crate::msg::FetchRequest;
use crate::msg::{ErrorCode, Message, ZkChange};
use crate::placement::PlacementChoices;
use crate::scenario::Command;
use crate::storage::cleaner::CleanResult;
use crate::storage::log::{Appended, LookupStep, RetentionApplied, RollInfo, Truncated};
use serde::{Deserialize, Serialize};

mod fields;

pub type EventId = u64;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub id: EventId,
    pub time_ms: Millis,
    pub nodes: Vec<NodeId>,
    pub cause: Option<EventId>,
    pub kind: EventKind,
}

/// How much an event matters to a learner, for filtering the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Importance {
    /// Background chatter: idle fetch cycles, checkpoints.
    Routine,
    Normal,
    /// Elections, failures, broken guarantees.
    Key,
}

/// Why a message never arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// The link between the two nodes is cut.
    LinkCut,
    /// The destination is down.
    DestinationDown,
    /// The destination restarted since the message was sent (connection reset).
    ConnectionReset,
}

/// Why a follower cut its log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum TruncateReason {
    /// Pre-KIP-101 rule: cut to the high watermark (on becoming a follower or restarting).
    HighWatermark { high_watermark: i64 },
    /// KIP-101: the leader said where the follower's last epoch ends.
    LeaderEpoch { epoch: i32, end_offset: i64 },
    /// The leader's log starts after everything the follower has.
    BelowLogStart { log_start_offset: i64 },
    /// The machine lost power: what the OS had not written back is gone.
    PowerFailure { flushed_offset: i64 },
}

/// A promise Kafka makes, checked by the simulation as it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Guarantee {
    /// A record the producer was told is written is still in the leader's log.
    AcknowledgedRecordsSurvive,
    /// At most one broker leads a partition in a given leader epoch.
    OneLeaderPerEpoch,
    /// The high watermark never passes the log end offset of an ISR member.
    HighWatermarkWithinIsr,
    /// A leader's high watermark never moves backwards.
    HighWatermarkMonotonic,
    /// A partition is owned by at most one member of a group.
    SingleOwnerPerPartition,
    /// Replicas hold the same records at the same offsets (below the high watermark).
    ReplicasConsistent,
}

/// A fact about the simulation, in the past tense.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// A user command from the scenario took effect.
    CommandIssued {
        index: u32,
        command: Command,
    },
    /// A command could not be carried out (it names why).
    CommandRejected {
        index: u32,
        reason: String,
    },

    // ---- brokers and ZooKeeper -------------------------------------------
    BrokerStarted {
        broker: BrokerId,
        incarnation: u32,
        recovered_logs: u32,
    },
    BrokerStopped {
        broker: BrokerId,
        controlled: bool,
    },
    ZkSessionOpened {
        broker: BrokerId,
        session_id: u64,
    },
    ZkSessionExpired {
        broker: BrokerId,
        session_id: u64,
        timeout_ms: u64,
    },
    ZnodeCreated {
        path: String,
        data: String,
        ephemeral_owner: Option<BrokerId>,
        by: NodeId,
    },
    ZnodeUpdated {
        path: String,
        data: String,
        version: i32,
        by: NodeId,
    },
    ZnodeDeleted {
        path: String,
        by: NodeId,
    },
    ZnodeExists {
        path: String,
        by: NodeId,
        holder: String,
    },
    WatchFired {
        watcher: BrokerId,
        path: String,
        change: ZkChange,
    },
    ControllerElected {
        broker: BrokerId,
        epoch: i32,
    },
    ControllerLoaded {
        broker: BrokerId,
        epoch: i32,
        live_brokers: Vec<BrokerId>,
        partitions: u32,
    },
    ControllerMoved {
        broker: BrokerId,
        new_controller: i32,
    },
    StaleControllerIgnored {
        broker: BrokerId,
        request_epoch: i32,
        known_epoch: i32,
    },
    BrokerChangeNoticed {
        controller: BrokerId,
        added: Vec<BrokerId>,
        removed: Vec<BrokerId>,
        bounced: Vec<BrokerId>,
    },

    // ---- topics and leadership ------------------------------------------
    TopicCreated {
        topic: String,
        assignment: SortedMap<i32, Vec<BrokerId>>,
        placement: Option<PlacementChoices>,
    },
    TopicCreationFailed {
        topic: String,
        error: String,
    },
    PartitionsAdded {
        topic: String,
        assignment: SortedMap<i32, Vec<BrokerId>>,
    },
    LeaderElected {
        tp: TopicPartition,
        algorithm: ElectionAlgorithm,
        old_leader: i32,
        leader: BrokerId,
        leader_epoch: i32,
        isr: Vec<BrokerId>,
        unclean: bool,
        candidates: Vec<Candidate>,
    },
    NoLeaderElected {
        tp: TopicPartition,
        algorithm: ElectionAlgorithm,
        candidates: Vec<Candidate>,
        isr: Vec<BrokerId>,
    },
    IsrUpdatedByController {
        tp: TopicPartition,
        old_isr: Vec<BrokerId>,
        new_isr: Vec<BrokerId>,
        leader_epoch: i32,
        partition_epoch: i32,
        reason: String,
    },
    ReassignmentStarted {
        tp: TopicPartition,
        original: Vec<BrokerId>,
        target: Vec<BrokerId>,
        adding: Vec<BrokerId>,
        removing: Vec<BrokerId>,
    },
    ReassignmentCompleted {
        tp: TopicPartition,
        replicas: Vec<BrokerId>,
        removed: Vec<BrokerId>,
    },
    PreferredLeaderImbalance {
        controller: BrokerId,
        broker: BrokerId,
        imbalanced: u32,
        total: u32,
        percentage: u32,
    },

    // ---- network -----------------------------------------------------------
    MessageSent {
        id: u64,
        from: NodeId,
        to: NodeId,
        deliver_at: Millis,
        message: Message,
    },
    MessageDropped {
        id: u64,
        from: NodeId,
        to: NodeId,
        api: String,
        reason: DropReason,
    },
    LinkChanged {
        a: NodeId,
        b: NodeId,
        cut: bool,
        extra_latency_ms: u64,
    },
    /// A node's connection to a broker was reset (the broker's process ended).
    ConnectionClosed {
        node: NodeId,
        peer: BrokerId,
        requests_failed: u32,
    },
    /// A client could not reach a broker and waits before connecting again
    /// (`reconnect.backoff.ms`, doubling up to `reconnect.backoff.max.ms`).
    ReconnectBackoff {
        node: NodeId,
        peer: BrokerId,
        failures: u32,
        backoff_ms: u64,
    },

    // ---- replicas ------------------------------------------------------------
    BecameLeader {
        broker: BrokerId,
        tp: TopicPartition,
        leader_epoch: i32,
        isr: Vec<BrokerId>,
        high_watermark: i64,
        log_end_offset: i64,
    },
    BecameFollower {
        broker: BrokerId,
        tp: TopicPartition,
        leader: i32,
        leader_epoch: i32,
        high_watermark: i64,
        log_end_offset: i64,
    },
    ReplicaStopped {
        broker: BrokerId,
        tp: TopicPartition,
        deleted: bool,
    },
    LogCreated {
        broker: BrokerId,
        tp: TopicPartition,
        dir: String,
    },
    LogTruncated {
        broker: BrokerId,
        tp: TopicPartition,
        truncated: Truncated,
        reason: TruncateReason,
    },
    BatchAppended {
        broker: BrokerId,
        tp: TopicPartition,
        leader: bool,
        appended: Appended,
    },
    AppendRejected {
        broker: BrokerId,
        tp: TopicPartition,
        error: ErrorCode,
        detail: String,
    },
    SegmentRolled {
        broker: BrokerId,
        tp: TopicPartition,
        roll: RollInfo,
    },
    FollowerFetchRecorded {
        broker: BrokerId,
        tp: TopicPartition,
        follower: BrokerId,
        follower_leo: i64,
        leader_leo: i64,
        caught_up: bool,
    },
    HighWatermarkUpdated {
        broker: BrokerId,
        tp: TopicPartition,
        old: i64,
        new: i64,
        leader: bool,
        isr_leos: Vec<(BrokerId, i64)>,
    },
    HighWatermarkHeld {
        broker: BrokerId,
        tp: TopicPartition,
        isr_size: u32,
        min_insync_replicas: i32,
    },
    IsrChangeProposed {
        broker: BrokerId,
        tp: TopicPartition,
        old_isr: Vec<BrokerId>,
        new_isr: Vec<BrokerId>,
        reason: String,
    },
    IsrChangeApplied {
        broker: BrokerId,
        tp: TopicPartition,
        isr: Vec<BrokerId>,
        partition_epoch: i32,
    },
    IsrChangeRejected {
        broker: BrokerId,
        tp: TopicPartition,
        error: ErrorCode,
    },
    HighWatermarkCheckpointed {
        broker: BrokerId,
        partitions: u32,
    },
    LogFlushed {
        broker: BrokerId,
        partitions: u32,
    },
    DivergenceDetected {
        broker: BrokerId,
        tp: TopicPartition,
        follower: BrokerId,
        epoch: i32,
        end_offset: i64,
    },

    // ---- requests on the broker -------------------------------------------
    ProduceRejected {
        broker: BrokerId,
        tp: TopicPartition,
        error: ErrorCode,
        detail: String,
    },
    /// An idempotent producer's retry of a batch the log already holds
    /// (same producer id, epoch and sequence): not appended again, and
    /// answered without an error, with the offset it was first written at
    /// (Kafka's `ProducerStateManager` duplicate check).
    DuplicateAcknowledged {
        broker: BrokerId,
        tp: TopicPartition,
        base_offset: i64,
    },
    ProduceCompleted {
        broker: BrokerId,
        tp: TopicPartition,
        base_offset: i64,
        acks: i16,
        waited_for_isr: bool,
    },
    ProduceParked {
        broker: BrokerId,
        tp: TopicPartition,
        required_offset: i64,
        isr: Vec<BrokerId>,
    },
    ProduceTimedOut {
        broker: BrokerId,
        tp: TopicPartition,
        required_offset: i64,
    },
    FetchParked {
        broker: BrokerId,
        from: NodeId,
        max_wait_ms: u64,
        min_bytes: u64,
    },
    FetchRejected {
        broker: BrokerId,
        tp: TopicPartition,
        from: NodeId,
        error: ErrorCode,
    },

    // ---- storage ------------------------------------------------------------
    SegmentsDeleted {
        broker: BrokerId,
        tp: TopicPartition,
        applied: RetentionApplied,
    },
    FilesDeleted {
        broker: BrokerId,
        files: Vec<String>,
    },
    LogCleaned {
        broker: BrokerId,
        tp: TopicPartition,
        result: CleanResult,
    },
    CleanerSkipped {
        broker: BrokerId,
        tp: TopicPartition,
        dirty_ratio_ppm: u32,
        min_ratio_ppm: u32,
    },
    LookupStepped {
        broker: BrokerId,
        tp: TopicPartition,
        target: String,
        step: LookupStep,
    },

    // ---- clients -------------------------------------------------------------
    MetadataUpdated {
        client: NodeId,
        partitions: u32,
        leaders: SortedMap<TopicPartition, i32>,
    },
    ProducerIdAssigned {
        producer: u32,
        producer_id: i64,
        producer_epoch: i16,
    },
    /// An interceptor's `onSend` saw (and maybe changed) the record.
    RecordIntercepted {
        producer: u32,
        record: u64,
        interceptor: String,
        value_before: Option<String>,
        value_after: Option<String>,
    },
    /// The serializers turned key and value into bytes.
    RecordSerialized {
        producer: u32,
        record: u64,
        key_bytes: Option<Vec<u8>>,
        value_bytes: Option<Vec<u8>>,
        serializer: String,
    },
    /// The partitioner chose a partition, and why.
    RecordPartitioned {
        producer: u32,
        record: u64,
        tp: TopicPartition,
        choice: crate::partitioner::PartitionChoice,
    },
    /// `send()` blocked: no buffer memory (or no metadata) yet.
    ProducerBlocked {
        producer: u32,
        record: u64,
        reason: String,
        max_block_ms: u64,
    },
    /// The RecordAccumulator took the record into a batch.
    RecordAccumulated {
        producer: u32,
        record: u64,
        tp: TopicPartition,
        batch: u64,
        new_batch: bool,
        batch_records: u32,
        batch_bytes: u64,
        batch_size: u64,
        buffer_used: u64,
        buffer_memory: u64,
    },
    /// The Sender drained ready batches into one request for a broker.
    BatchesDrained {
        producer: u32,
        broker: BrokerId,
        batches: Vec<DrainedBatch>,
        in_flight: u32,
        max_in_flight: u32,
    },
    RecordAcknowledged {
        producer: u32,
        record: u64,
        tp: TopicPartition,
        offset: i64,
        key: Option<String>,
        value: Option<String>,
        acks: i16,
    },
    RecordFailed {
        producer: u32,
        record: u64,
        tp: Option<TopicPartition>,
        error: String,
        key: Option<String>,
        value: Option<String>,
    },
    ProduceRetried {
        producer: u32,
        tp: TopicPartition,
        batch: u64,
        attempt: u32,
        error: ErrorCode,
        backoff_ms: u64,
    },
    InterceptorAcknowledged {
        producer: u32,
        record: u64,
        interceptor: String,
        offset: i64,
    },
    /// `producer.close()` was called: what is still to send or to wait for.
    ProducerClosing {
        producer: u32,
        batches: u32,
        records: u32,
        in_flight: u32,
    },
    /// `close(timeout)` ran out (or was `close(Duration.ZERO)`): the Sender
    /// was force-closed. Every batch not yet answered is aborted, also
    /// those whose requests are in flight (a broker may still append them:
    /// the application is told they failed), and records whose `send()`
    /// waited for `buffer.memory` fail too.
    ProducerForceClosed {
        producer: u32,
        timeout_ms: u64,
        batches: u32,
        records: u32,
        in_flight: u32,
    },
    /// `close()` returned: every batch was sent and answered (or aborted,
    /// after a force close).
    ProducerClosed {
        producer: u32,
        records_sent: u64,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        forced: bool,
    },
    RecordsConsumed {
        consumer: u32,
        tp: TopicPartition,
        records: Vec<ConsumedRecord>,
        high_watermark: i64,
    },
    /// The application finished processing what poll() gave it.
    RecordsProcessed {
        consumer: u32,
        /// (partition, first offset, last offset).
        ranges: Vec<(TopicPartition, i64, i64)>,
    },
    ConsumerPositionReset {
        consumer: u32,
        tp: TopicPartition,
        position: i64,
        reason: String,
    },

    // ---- consumer groups: the coordinator -------------------------------------
    /// A broker became coordinator for the groups of an offsets partition and
    /// read their state back from `__consumer_offsets`.
    GroupsLoaded {
        broker: BrokerId,
        partition: i32,
        groups: Vec<String>,
        offsets: u32,
    },
    GroupsUnloaded {
        broker: BrokerId,
        partition: i32,
        groups: Vec<String>,
    },
    /// KIP-394: a first JoinGroup gets a member id and MEMBER_ID_REQUIRED.
    MemberIdAssigned {
        broker: BrokerId,
        group: String,
        member_id: String,
    },
    MemberJoining {
        broker: BrokerId,
        group: String,
        member_id: String,
        group_instance_id: Option<String>,
        known: bool,
    },
    StaticMemberReplaced {
        broker: BrokerId,
        group: String,
        group_instance_id: String,
        old_member_id: String,
        new_member_id: String,
    },
    RebalanceStarted {
        broker: BrokerId,
        group: String,
        generation: i32,
        reason: String,
        wait_ms: u64,
        initial_delay: bool,
    },
    GenerationStarted {
        broker: BrokerId,
        group: String,
        generation: i32,
        protocol: Option<String>,
        leader: Option<String>,
        members: Vec<String>,
    },
    MemberRemoved {
        broker: BrokerId,
        group: String,
        member_id: String,
        reason: String,
    },
    GroupStable {
        broker: BrokerId,
        group: String,
        generation: i32,
        assignment: SortedMap<String, Vec<TopicPartition>>,
    },
    OffsetsCommitted {
        broker: BrokerId,
        group: String,
        member_id: String,
        offsets: Vec<(TopicPartition, i64)>,
    },
    OffsetCommitRejected {
        broker: BrokerId,
        group: String,
        member_id: String,
        error: ErrorCode,
        detail: String,
    },

    // ---- consumer groups: the member ------------------------------------------
    CoordinatorFound {
        consumer: u32,
        group: String,
        broker: BrokerId,
        partition: i32,
    },
    CoordinatorLost {
        consumer: u32,
        broker: BrokerId,
        reason: String,
    },
    JoinedGroup {
        consumer: u32,
        group: String,
        generation: i32,
        member_id: String,
        leader: bool,
        protocol: Option<String>,
    },
    /// The leader member ran the assignor.
    AssignmentComputed {
        consumer: u32,
        group: String,
        generation: i32,
        strategy: String,
        partitions_per_topic: SortedMap<String, i32>,
        assignment: SortedMap<String, Vec<TopicPartition>>,
        /// Cooperative only: what members must give up first.
        revoke: SortedMap<String, Vec<TopicPartition>>,
    },
    PartitionsRevoked {
        consumer: u32,
        generation: i32,
        partitions: Vec<TopicPartition>,
        /// `onPartitionsLost`: the group moved on without this member.
        lost: bool,
    },
    PartitionsAssigned {
        consumer: u32,
        generation: i32,
        assignment: Vec<TopicPartition>,
        added: Vec<TopicPartition>,
    },
    RejoinRequested {
        consumer: u32,
        reason: String,
    },
    LeftGroup {
        consumer: u32,
        group: String,
        member_id: String,
        sent_leave_group: bool,
        reason: String,
    },
    OffsetCommitSent {
        consumer: u32,
        generation: i32,
        offsets: Vec<(TopicPartition, i64)>,
        sync: bool,
        reason: String,
    },
    OffsetCommitFailed {
        consumer: u32,
        offsets: Vec<(TopicPartition, i64)>,
        error: ErrorCode,
        detail: String,
    },

    // ---- guarantees -----------------------------------------------------------
    GuaranteeBroken {
        guarantee: Guarantee,
        tp: Option<TopicPartition>,
        detail: String,
    },
}

/// A record as a consumer application saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsumedRecord {
    pub offset: i64,
    pub key: Option<String>,
    pub value: Option<String>,
    pub timestamp: i64,
}

pub use crate::ids::ids_list;

/// A batch as the Sender put it in a request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrainedBatch {
    pub batch: u64,
    pub tp: TopicPartition,
    pub records: u32,
    pub bytes: u64,
    pub base_sequence: i32,
    pub attempt: u32,
    /// Why it went now: `full`, `linger.ms`, `retry`, or `with others` (drained
    /// along with a ready batch for the same broker).
    pub reason: String,
}
