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
use std::sync::Arc;

mod fields;

/// An event's number in the trace: 0, 1, 2, … in the order they happened.
pub type EventId = u64;

/// One entry of the trace: what happened, when, where, and because of what.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Its number in the trace.
    pub id: EventId,
    /// When it happened, in simulated milliseconds since the start.
    pub time_ms: Millis,
    /// The nodes it happened on (the page highlights them).
    pub nodes: Vec<NodeId>,
    /// The event whose handling led to this one (a message's arrival, a
    /// timer set by it), if any.
    pub cause: Option<EventId>,
    /// What happened.
    pub kind: EventKind,
}

/// How much an event matters to a learner, for filtering the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Importance {
    /// Background chatter: idle fetch cycles, checkpoints.
    Routine,
    /// Everything else: messages, appends, commits.
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
    /// A KRaft broker does not listen yet: it opens its listeners once
    /// first unfenced (connection refused).
    NotListening,
}

/// Why a follower cut its log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum TruncateReason {
    /// Pre-KIP-101 rule: cut to the high watermark (on becoming a follower or restarting).
    HighWatermark {
        /// The follower's own high watermark.
        high_watermark: i64,
    },
    /// KIP-101: the leader said where the follower's last epoch ends.
    LeaderEpoch {
        /// The largest epoch both logs hold.
        epoch: i32,
        /// Where that epoch ends on the leader.
        end_offset: i64,
    },
    /// The leader answered with an epoch this follower never had: it cut to
    /// where its own largest earlier epoch ends and asks again (one round
    /// of several; `getOffsetTruncationState`).
    UnknownLeaderEpoch {
        /// The epoch the leader answered with.
        leader_epoch: i32,
        /// The follower's largest epoch below it.
        epoch: i32,
        /// Where that epoch ends in the follower's log.
        end_offset: i64,
    },
    /// The leader's log starts after everything the follower has.
    BelowLogStart {
        /// The leader's log start offset.
        log_start_offset: i64,
    },
    /// The machine lost power: what the OS had not written back is gone.
    PowerFailure {
        /// The offset up to which the log was on disk.
        flushed_offset: i64,
    },
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
    /// A `read_committed` consumer gets no record of an aborted transaction
    /// and none at or above the last stable offset.
    ReadCommittedIsolation,
    /// A read-process-write pipeline's committed output holds each input
    /// record below the group's committed offset once, and no other.
    ExactlyOncePipeline,
    /// KRaft: at most one controller is quorum leader in a given epoch.
    OneQuorumLeaderPerEpoch,
    /// KRaft: a metadata record, once committed (below the quorum high
    /// watermark), stays at its offset on every node that has it and in
    /// the log of every later quorum leader.
    CommittedMetadataSurvives,
}

/// A state of a node of the KRaft quorum (`EpochState` implementations).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuorumRole {
    /// Knows no leader and runs no election (`UnattachedState`).
    Unattached,
    /// Runs a pre-vote in its current epoch (`ProspectiveState`, KIP-996).
    Prospective,
    /// Stands for election in a new epoch (`CandidateState`).
    Candidate,
    /// Leads the quorum (`LeaderState`): the active controller.
    Leader,
    /// Fetches from the leader (`FollowerState`).
    Follower,
    /// Was leader in this epoch and gave it up (`ResignedState`).
    Resigned,
}

/// Why a quorum node changed state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuorumReason {
    /// The process started and read its `quorum-state` file.
    Started,
    /// Its election timer ran out.
    ElectionTimeout,
    /// A follower fetched nothing from its leader for `controller.quorum.fetch.timeout.ms`.
    FetchTimeout,
    /// A majority granted its pre-vote.
    PreVoteWon,
    /// A majority rejected its pre-vote.
    PreVoteLost,
    /// A majority granted its vote.
    VoteWon,
    /// It granted its vote to a candidate.
    VoteGranted,
    /// A message carried a higher epoch.
    HigherEpoch,
    /// It learned who leads its epoch.
    LeaderDiscovered,
    /// No majority fetched from it for 1.5 × `controller.quorum.fetch.timeout.ms` (check-quorum).
    CheckQuorumFailed,
    /// It is shutting down and resigns.
    Shutdown,
    /// Its leader resigned (EndQuorumEpoch) and named it a successor.
    LeaderResigned,
}

/// A broker's state as `BrokerLifecycleManager` keeps it (KRaft).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum BrokerLifecycle {
    /// Registered, catching up with the metadata log.
    Starting,
    /// Caught up; waiting for the controller to unfence it.
    Recovery,
    /// Unfenced: it may lead partitions.
    Running,
    /// Asked to shut down: heartbeats ask the controller to move its
    /// leaderships first (`wantShutDown`).
    PendingControlledShutdown,
    /// The controller let it go: it stops.
    ShuttingDown,
}

/// A fact about the simulation, in the past tense.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// A user command from the scenario took effect.
    CommandIssued {
        /// The command's position in the scenario.
        index: u32,
        /// The command (boxed: it is the largest field of any event).
        command: Box<Command>,
    },
    /// A command could not be carried out (it names why).
    CommandRejected {
        /// The command's position in the scenario.
        index: u32,
        /// Why, in Kafka's words where Kafka has them.
        reason: String,
    },

    // ---- KRaft (Kafka 4.1): the controller quorum -------------------------
    /// A node of the `__cluster_metadata` quorum changed state
    /// (`QuorumState`'s transitions, KIP-595 and KIP-996).
    QuorumStateChanged {
        /// The node (a controller, or a broker as an observer).
        node: NodeId,
        /// The epoch it is now in.
        epoch: i32,
        /// Its new state.
        state: QuorumRole,
        /// The leader it knows in that epoch, if any.
        leader: Option<i32>,
        /// The voter it voted for in that epoch, if any.
        voted_for: Option<i32>,
        /// Why.
        reason: QuorumReason,
    },
    /// Records were appended to a node's `__cluster_metadata` log: written
    /// by the quorum leader, or fetched from it by a follower or observer.
    MetadataAppended {
        /// The node whose log grew.
        node: NodeId,
        /// The epoch of the records' batch.
        epoch: i32,
        /// The records, with their offsets.
        records: Vec<crate::kraft::records::MetadataEntry>,
        /// The node's high watermark after it (-1: unknown).
        high_watermark: i64,
    },
    /// A node cut the end off its metadata log: the leader answered that it
    /// diverges (`DivergingEpoch`).
    MetadataTruncated {
        /// The node.
        node: NodeId,
        /// Its log end offset afterwards.
        to_offset: i64,
        /// Records cut.
        removed: u32,
    },
    /// A node's quorum high watermark moved: the records below it are
    /// committed, and the node applied them.
    QuorumCommitted {
        /// The node.
        node: NodeId,
        /// Its new high watermark.
        high_watermark: i64,
    },
    /// A broker's lifecycle moved on (`BrokerLifecycleManager`: STARTING,
    /// RECOVERY, RUNNING, ...).
    BrokerLifecycleChanged {
        /// The broker.
        broker: BrokerId,
        /// Its new state.
        state: BrokerLifecycle,
        /// Its broker epoch (-1 before it registered).
        broker_epoch: i64,
    },
    /// A controller's process started (Kafka 4.1), its log read back.
    ControllerStarted {
        /// Its `node.id`.
        node: i32,
        /// Which life of the process this is.
        incarnation: u32,
        /// Records in its metadata log.
        log_end_offset: i64,
    },
    /// A controller's process stopped.
    ControllerStopped {
        /// Its `node.id`.
        node: i32,
        /// A graceful shutdown rather than a crash.
        controlled: bool,
    },

    // ---- brokers and ZooKeeper -------------------------------------------
    /// A broker's process started (`KafkaServer.startup`), its logs loaded.
    BrokerStarted {
        /// The broker it happened on.
        broker: BrokerId,
        /// Which life of the process this is (0 first, one more per restart).
        incarnation: u32,
        /// Logs rebuilt from their `.log` files after an unclean stop.
        recovered_logs: u32,
    },
    /// A broker's ControlledShutdown did not move everything (partitions it
    /// still leads, or an error): it asks again after
    /// `controlled.shutdown.retry.backoff.ms` (`KafkaServer.controlledShutdown`).
    ControlledShutdownRetried {
        /// The broker shutting down.
        broker: BrokerId,
        /// Requests sent so far.
        attempt: u32,
        /// `controlled.shutdown.max.retries`: requests it sends at most.
        max_retries: u32,
        /// The controller's error, if any.
        error: Option<ErrorCode>,
        /// Partitions the controller could not move.
        partitions_remaining: Vec<TopicPartition>,
        /// `controlled.shutdown.retry.backoff.ms`.
        backoff_ms: u64,
    },
    /// A broker used up `controlled.shutdown.max.retries` with partitions
    /// still to move, and shuts down anyway (they go offline or move when
    /// its session ends).
    ControlledShutdownGaveUp {
        /// The broker shutting down.
        broker: BrokerId,
        /// Requests it sent.
        attempts: u32,
        /// Partitions the controller could not move.
        partitions_remaining: Vec<TopicPartition>,
    },
    /// A broker's process stopped.
    BrokerStopped {
        /// The broker it happened on.
        broker: BrokerId,
        /// Whether it shut down cleanly (controlled shutdown) rather than crashed.
        controlled: bool,
    },
    /// A broker's startup failed and its process exited:
    /// `/brokers/ids/<id>` still belonged to another ZooKeeper session (the
    /// previous process's, not yet expired), so registering failed with
    /// NODEEXISTS (`KafkaZkClient.registerBroker`, `checkedEphemeralCreate`;
    /// `KafkaServer.startup` then shuts down and `Kafka.main` exits).
    BrokerRegistrationFailed {
        /// The broker it happened on.
        broker: BrokerId,
        /// The session that still owns `/brokers/ids/<id>`.
        owner_session: u64,
        /// The session this start opened, closed as the process exits.
        session_id: u64,
        /// `zookeeper.session.timeout.ms`: how long after the old process
        /// died its session (and so the znode) goes.
        timeout_ms: u64,
    },
    /// A broker opened a ZooKeeper session.
    ZkSessionOpened {
        /// The broker it happened on.
        broker: BrokerId,
        /// The ZooKeeper session id.
        session_id: u64,
    },
    /// ZooKeeper expired a broker's session after `zookeeper.session.timeout.ms` without a heartbeat; its ephemeral znodes go.
    ZkSessionExpired {
        /// The broker it happened on.
        broker: BrokerId,
        /// The ZooKeeper session id.
        session_id: u64,
        /// `zookeeper.session.timeout.ms`.
        timeout_ms: u64,
    },
    /// A znode was created.
    ZnodeCreated {
        /// The znode's path.
        path: String,
        /// The znode's data.
        data: String,
        /// The broker whose session owns it, if ephemeral.
        ephemeral_owner: Option<BrokerId>,
        /// The node that made the change.
        by: NodeId,
    },
    /// A znode's data was replaced.
    ZnodeUpdated {
        /// The znode's path.
        path: String,
        /// The znode's data.
        data: String,
        /// Its new version.
        version: i32,
        /// The node that made the change.
        by: NodeId,
    },
    /// A znode was deleted.
    ZnodeDeleted {
        /// The znode's path.
        path: String,
        /// The node that made the change.
        by: NodeId,
    },
    /// A create failed with NODEEXISTS: the znode is already there.
    ZnodeExists {
        /// The znode's path.
        path: String,
        /// The node that tried to create it.
        by: NodeId,
        /// The existing znode's data.
        holder: String,
    },
    /// A watch a broker had set on a znode fired.
    WatchFired {
        /// The broker that set the watch.
        watcher: BrokerId,
        /// The znode's path.
        path: String,
        /// What happened to the znode.
        change: ZkChange,
    },
    /// A broker won `/controller` and became the controller.
    ControllerElected {
        /// The new controller.
        broker: BrokerId,
        /// Its controller epoch (`/controller_epoch` + 1).
        epoch: i32,
    },
    /// The new controller read the cluster from ZooKeeper (`onControllerFailover`).
    ControllerLoaded {
        /// The controller.
        broker: BrokerId,
        /// The controller epoch.
        epoch: i32,
        /// The brokers registered in `/brokers/ids`.
        live_brokers: Vec<BrokerId>,
        /// How many partitions it loaded.
        partitions: u32,
    },
    /// A broker learned it is no longer the controller and gave the role up.
    ControllerMoved {
        /// The former controller.
        broker: BrokerId,
        /// The broker holding `/controller` now (-1: none).
        new_controller: i32,
    },
    /// A broker refused a request from a controller with an older epoch (a zombie controller).
    StaleControllerIgnored {
        /// The broker it happened on.
        broker: BrokerId,
        /// The epoch the request carried.
        request_epoch: i32,
        /// The newest epoch the broker has seen.
        known_epoch: i32,
    },
    /// The controller saw `/brokers/ids` change (`BrokerChange`).
    BrokerChangeNoticed {
        /// The controller.
        controller: BrokerId,
        /// Brokers that registered.
        added: Vec<BrokerId>,
        /// Brokers whose registration went.
        removed: Vec<BrokerId>,
        /// Brokers that re-registered with a new broker epoch.
        bounced: Vec<BrokerId>,
    },

    // ---- topics and leadership ------------------------------------------
    /// A topic's assignment was written (`AdminZkClient.createTopic`).
    TopicCreated {
        /// The topic.
        topic: String,
        /// The replicas of each partition, preferred leader first.
        assignment: SortedMap<i32, Vec<BrokerId>>,
        /// The random choices of `assignReplicasToBrokers`, if it placed them.
        placement: Option<PlacementChoices>,
        /// Placed by the KRaft controller's `StripedReplicaPlacer`.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        striped: bool,
    },
    /// A topic could not be created.
    TopicCreationFailed {
        /// The topic.
        topic: String,
        /// Kafka's error, with its message.
        error: String,
    },
    /// A topic got more partitions (`kafka-topics --alter --partitions`).
    PartitionsAdded {
        /// The topic.
        topic: String,
        /// The replicas of each new partition.
        assignment: SortedMap<i32, Vec<BrokerId>>,
    },
    /// The controller chose a partition's leader.
    LeaderElected {
        /// The partition.
        tp: TopicPartition,
        /// The election rule the controller applied.
        algorithm: ElectionAlgorithm,
        /// The leader before (-1: none).
        old_leader: i32,
        /// The new leader.
        leader: BrokerId,
        /// The new leader epoch.
        leader_epoch: i32,
        /// The ISR after the election.
        isr: Vec<BrokerId>,
        /// Whether the leader came from outside the ISR (`unclean.leader.election.enable`).
        unclean: bool,
        /// Each assigned replica in order, and why it could or could not lead.
        candidates: Vec<Candidate>,
    },
    /// No replica could lead a partition: it is offline.
    NoLeaderElected {
        /// The partition.
        tp: TopicPartition,
        /// The election rule the controller applied.
        algorithm: ElectionAlgorithm,
        /// Each assigned replica in order, and why it could or could not lead.
        candidates: Vec<Candidate>,
        /// The ISR the controller had.
        isr: Vec<BrokerId>,
    },
    /// The controller rewrote a partition's ISR (a replica died or shut down).
    IsrUpdatedByController {
        /// The partition.
        tp: TopicPartition,
        /// The ISR before.
        old_isr: Vec<BrokerId>,
        /// The ISR after.
        new_isr: Vec<BrokerId>,
        /// The new leader epoch.
        leader_epoch: i32,
        /// The partition epoch (the version of its state znode).
        partition_epoch: i32,
        /// Why, in words.
        reason: String,
    },
    /// A partition reassignment began (KIP-455): the new replicas are added first.
    ReassignmentStarted {
        /// The partition.
        tp: TopicPartition,
        /// The replicas before.
        original: Vec<BrokerId>,
        /// The replicas asked for.
        target: Vec<BrokerId>,
        /// Replicas being added.
        adding: Vec<BrokerId>,
        /// Replicas to remove once the new ones are in sync.
        removing: Vec<BrokerId>,
    },
    /// A reassignment finished: the target replicas are in sync and the old ones removed.
    ReassignmentCompleted {
        /// The partition.
        tp: TopicPartition,
        /// The replicas now.
        replicas: Vec<BrokerId>,
        /// The replicas removed.
        removed: Vec<BrokerId>,
    },
    /// The controller measured a broker's leader imbalance (`leader.imbalance.per.broker.percentage`).
    PreferredLeaderImbalance {
        /// The controller.
        controller: BrokerId,
        /// The broker measured.
        broker: BrokerId,
        /// Partitions it should lead (it is first in their replicas) that another broker leads.
        imbalanced: u32,
        /// Partitions it is the preferred leader of.
        total: u32,
        /// `imbalanced / total` in percent.
        percentage: u32,
    },

    // ---- network -----------------------------------------------------------
    /// A node sent a message; it arrives at `deliver_at`.
    MessageSent {
        /// The message's id.
        id: u64,
        /// The sender.
        from: NodeId,
        /// The destination.
        to: NodeId,
        /// When it arrives (simulated milliseconds).
        deliver_at: Millis,
        /// The request or response: the same allocation the delivery holds,
        /// so a message is stored once however many views keep the event.
        message: Arc<Message>,
    },
    /// A message never arrived.
    MessageDropped {
        /// The message's id.
        id: u64,
        /// The sender.
        from: NodeId,
        /// The destination.
        to: NodeId,
        /// The request's name.
        api: String,
        /// Why it was lost.
        reason: DropReason,
    },
    /// A network link between two nodes was cut, healed or slowed.
    LinkChanged {
        /// One end.
        a: NodeId,
        /// The other end.
        b: NodeId,
        /// Whether the link is now cut.
        cut: bool,
        /// Latency added on top of the base, in milliseconds.
        extra_latency_ms: u64,
    },
    /// A node's connection to a broker was reset (the broker's process ended).
    ConnectionClosed {
        /// The node whose connection it is.
        node: NodeId,
        /// The broker at the other end.
        peer: BrokerId,
        /// Requests in flight on it that failed.
        requests_failed: u32,
    },
    /// A client could not reach a broker and waits before connecting again
    /// (`reconnect.backoff.ms`, doubling up to `reconnect.backoff.max.ms`).
    ReconnectBackoff {
        /// The node whose connection it is.
        node: NodeId,
        /// The broker at the other end.
        peer: BrokerId,
        /// Connection attempts that failed in a row.
        failures: u32,
        /// How long it waits first, in milliseconds.
        backoff_ms: u64,
    },

    // ---- replicas ------------------------------------------------------------
    /// A broker became a partition's leader (`Partition.makeLeader`).
    BecameLeader {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The leader epoch.
        leader_epoch: i32,
        /// The ISR it starts with.
        isr: Vec<BrokerId>,
        /// The high watermark.
        high_watermark: i64,
        /// The log end offset (LEO).
        log_end_offset: i64,
    },
    /// A broker became a partition's follower (`Partition.makeFollower`).
    BecameFollower {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The leader it follows (-1: none).
        leader: i32,
        /// The leader epoch.
        leader_epoch: i32,
        /// The high watermark.
        high_watermark: i64,
        /// The log end offset (LEO).
        log_end_offset: i64,
    },
    /// A broker stopped being a replica of a partition (`StopReplica`).
    ReplicaStopped {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// Whether its log was deleted too.
        deleted: bool,
    },
    /// A broker created a partition's log directory.
    LogCreated {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The directory, `<topic>-<partition>`.
        dir: String,
    },
    /// A replica cut the end of its log.
    LogTruncated {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// What was cut.
        truncated: Truncated,
        /// The rule that set the truncation offset.
        reason: TruncateReason,
    },
    /// A broker appended record batches to a partition's log.
    BatchAppended {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// Whether it appended as the leader (it assigned the offsets) or as a follower.
        leader: bool,
        /// Where the batches went: offsets, segment, position, index entries
        /// (boxed, as every large field of an event is: see `Event`'s size test).
        appended: Box<Appended>,
    },
    /// A broker refused to append (a corrupt batch, a sequence gap).
    AppendRejected {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// Kafka's error code.
        error: ErrorCode,
        /// What went wrong, in words.
        detail: String,
    },
    /// A partition's active segment was closed and a new one opened.
    SegmentRolled {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// Why, and the new segment's base offset.
        roll: RollInfo,
    },
    /// A leader recorded how far a follower has fetched (`updateFollowerFetchState`).
    FollowerFetchRecorded {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The follower.
        follower: BrokerId,
        /// The follower's log end offset (the fetch offset).
        follower_leo: i64,
        /// The leader's log end offset.
        leader_leo: i64,
        /// Whether the follower has reached the leader's LEO (`lastCaughtUpTimeMs` moves).
        caught_up: bool,
    },
    /// A leader moved a partition's high watermark (`maybeIncrementLeaderHW`).
    HighWatermarkUpdated {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The high watermark before.
        old: i64,
        /// The high watermark after: the smallest LEO in the ISR.
        new: i64,
        /// The leader.
        leader: bool,
        /// Each ISR member's log end offset.
        isr_leos: Vec<(BrokerId, i64)>,
    },
    /// The high watermark could not move: the ISR is smaller than `min.insync.replicas`.
    HighWatermarkHeld {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// How many replicas are in the ISR.
        isr_size: u32,
        /// The partition's `min.insync.replicas` (at most its replica count).
        min_insync_replicas: i32,
    },
    /// A leader asked the controller to change the ISR (AlterPartition, KIP-497).
    IsrChangeProposed {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The ISR before.
        old_isr: Vec<BrokerId>,
        /// The ISR after.
        new_isr: Vec<BrokerId>,
        /// Why: a follower caught up, or fell behind `replica.lag.time.max.ms`.
        reason: String,
    },
    /// A leader applied the ISR the controller committed.
    IsrChangeApplied {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The in-sync replicas.
        isr: Vec<BrokerId>,
        /// The partition epoch (the version of its state znode).
        partition_epoch: i32,
    },
    /// The controller refused a leader's ISR change.
    IsrChangeRejected {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// Kafka's error code.
        error: ErrorCode,
    },
    /// A broker wrote `replication-offset-checkpoint` (`replica.high.watermark.checkpoint.interval.ms`).
    HighWatermarkCheckpointed {
        /// The broker it happened on.
        broker: BrokerId,
        /// How many partitions it wrote.
        partitions: u32,
    },
    /// The OS wrote a broker's page cache to disk.
    LogFlushed {
        /// The broker it happened on.
        broker: BrokerId,
        /// How many partitions had unwritten data.
        partitions: u32,
    },
    /// A leader told a follower that its log diverges (KIP-101/279 `divergingEpoch`).
    DivergenceDetected {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The follower.
        follower: BrokerId,
        /// The largest epoch the two logs share.
        epoch: i32,
        /// Where that epoch ends on the leader: the follower truncates there.
        end_offset: i64,
    },

    // ---- requests on the broker -------------------------------------------
    /// A leader refused a Produce request.
    ProduceRejected {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// Kafka's error code.
        error: ErrorCode,
        /// What went wrong, in words.
        detail: String,
    },
    /// An idempotent producer's retry of a batch the log already holds
    /// (same producer id, epoch and sequence): not appended again, and
    /// answered without an error, with the offset it was first written at
    /// (Kafka's `ProducerStateManager` duplicate check).
    DuplicateAcknowledged {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The offset the batch was written at the first time.
        base_offset: i64,
    },
    /// A leader answered a Produce request with success.
    ProduceCompleted {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The offset of the batch's first record.
        base_offset: i64,
        /// The producer's `acks` (0, 1, or -1 for all).
        acks: i16,
        /// Whether it waited for the ISR (acks=all) before answering.
        waited_for_isr: bool,
    },
    /// A Produce request with acks=all waits in the purgatory for the ISR to catch up.
    ProduceParked {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The offset every ISR member must reach (the batch's last offset + 1).
        required_offset: i64,
        /// The in-sync replicas.
        isr: Vec<BrokerId>,
    },
    /// A parked Produce request reached its `timeout_ms` (REQUEST_TIMED_OUT).
    ProduceTimedOut {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The offset every ISR member must reach (the batch's last offset + 1).
        required_offset: i64,
    },
    /// A fetch waits in the purgatory for `fetch.min.bytes`, at most `fetch.max.wait.ms`.
    FetchParked {
        /// The broker it happened on.
        broker: BrokerId,
        /// The node that fetched.
        from: NodeId,
        /// `fetch.max.wait.ms` (or `replica.fetch.wait.max.ms`).
        max_wait_ms: u64,
        /// `fetch.min.bytes` (or `replica.fetch.min.bytes`).
        min_bytes: u64,
    },
    /// KIP-392: the leader answered a consumer's fetch with no records and
    /// the replica to read from instead (`replica.selector.class`).
    PreferredReadReplicaChosen {
        /// The leader.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The consumer that fetched.
        from: NodeId,
        /// The replica it should fetch from.
        replica: BrokerId,
        /// The rack they share (the consumer's `client.rack`).
        rack: String,
    },
    /// KIP-392: a consumer stopped fetching a partition from a follower and
    /// goes back to the leader.
    PreferredReadReplicaCleared {
        /// The consumer (its index in the scenario).
        consumer: u32,
        /// The partition.
        tp: TopicPartition,
        /// The follower it was reading from.
        replica: BrokerId,
        /// Why, in Kafka's terms.
        reason: String,
    },
    /// A broker refused a fetch for a partition.
    FetchRejected {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The node that fetched.
        from: NodeId,
        /// Kafka's error code.
        error: ErrorCode,
    },

    // ---- storage ------------------------------------------------------------
    /// Retention deleted old segments (`deleteOldSegments`).
    SegmentsDeleted {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// Which pass, which segments, and the new log start offset (boxed).
        applied: Box<RetentionApplied>,
    },
    /// Files renamed `.deleted` were removed after `file.delete.delay.ms`.
    FilesDeleted {
        /// The broker it happened on.
        broker: BrokerId,
        /// The files.
        files: Vec<String>,
    },
    /// The log cleaner compacted a partition.
    LogCleaned {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// What it read, kept and removed (boxed).
        result: Box<CleanResult>,
    },
    /// The cleaner left a partition alone: too little of its log is dirty.
    CleanerSkipped {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The dirty share of the log, in parts per million.
        dirty_ratio_ppm: u32,
        /// `min.cleanable.dirty.ratio`, in parts per million.
        min_ratio_ppm: u32,
    },
    /// One step of finding an offset or a timestamp in a log.
    LookupStepped {
        /// The broker it happened on.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The offset or timestamp looked for.
        target: String,
        /// The step.
        step: LookupStep,
    },

    // ---- clients -------------------------------------------------------------
    /// A client's metadata changed.
    MetadataUpdated {
        /// The client node.
        client: NodeId,
        /// How many partitions it knows.
        partitions: u32,
        /// The leader of each partition the response named (shared with
        /// the response).
        leaders: crate::msg::LeaderView,
    },
    /// A producer got its producer id and epoch (InitProducerId).
    ProducerIdAssigned {
        /// The producer (its index in the scenario).
        producer: u32,
        /// The producer id.
        producer_id: i64,
        /// The producer epoch.
        producer_epoch: i16,
    },
    /// An interceptor's `onSend` saw (and maybe changed) the record.
    RecordIntercepted {
        /// The producer (its index in the scenario).
        producer: u32,
        /// The record's number at this producer, in send order.
        record: u64,
        /// The interceptor's class name.
        interceptor: String,
        /// The value before.
        value_before: Option<String>,
        /// The value after.
        value_after: Option<String>,
    },
    /// The serializers turned key and value into bytes.
    RecordSerialized {
        /// The producer (its index in the scenario).
        producer: u32,
        /// The record's number at this producer, in send order.
        record: u64,
        /// The key's bytes.
        key_bytes: Option<Vec<u8>>,
        /// The value's bytes.
        value_bytes: Option<Vec<u8>>,
        /// The serializers' class names.
        serializer: String,
    },
    /// The partitioner chose a partition, and why.
    RecordPartitioned {
        /// The producer (its index in the scenario).
        producer: u32,
        /// The record's number at this producer, in send order.
        record: u64,
        /// The partition.
        tp: TopicPartition,
        /// How: the key's hash, the sticky partition, or the record's own.
        choice: crate::partitioner::PartitionChoice,
    },
    /// `send()` blocked: no buffer memory (or no metadata) yet.
    ProducerBlocked {
        /// The producer (its index in the scenario).
        producer: u32,
        /// The record's number at this producer, in send order.
        record: u64,
        /// Why, in words.
        reason: String,
        /// `max.block.ms`.
        max_block_ms: u64,
    },
    /// The RecordAccumulator took the record into a batch.
    RecordAccumulated {
        /// The producer (its index in the scenario).
        producer: u32,
        /// The record's number at this producer, in send order.
        record: u64,
        /// The partition.
        tp: TopicPartition,
        /// The batch's number at this producer.
        batch: u64,
        /// Whether the record opened a new batch.
        new_batch: bool,
        /// Records in the batch now.
        batch_records: u32,
        /// The batch's size now.
        batch_bytes: u64,
        /// `batch.size`.
        batch_size: u64,
        /// Bytes of `buffer.memory` in use.
        buffer_used: u64,
        /// `buffer.memory`.
        buffer_memory: u64,
    },
    /// The Sender drained ready batches into one request for a broker.
    BatchesDrained {
        /// The producer (its index in the scenario).
        producer: u32,
        /// The broker the request goes to.
        broker: BrokerId,
        /// The batches drained.
        batches: Vec<DrainedBatch>,
        /// Requests sent and not yet answered.
        in_flight: u32,
        /// `max.in.flight.requests.per.connection`.
        max_in_flight: u32,
    },
    /// A producer learned that a record is written.
    RecordAcknowledged {
        /// The producer (its index in the scenario).
        producer: u32,
        /// The record's number at this producer, in send order.
        record: u64,
        /// The partition.
        tp: TopicPartition,
        /// The offset it was written at (-1 with acks=0).
        offset: i64,
        /// The record's key.
        key: Option<String>,
        /// The record's value.
        value: Option<String>,
        /// The producer's `acks` (0, 1, or -1 for all).
        acks: i16,
    },
    /// A record failed for good (its callback got the error).
    RecordFailed {
        /// The producer (its index in the scenario).
        producer: u32,
        /// The record's number at this producer, in send order.
        record: u64,
        /// The partition.
        tp: Option<TopicPartition>,
        /// Kafka's error code.
        error: String,
        /// The record's key.
        key: Option<String>,
        /// The record's value.
        value: Option<String>,
    },
    /// A producer will send a batch again after an error.
    ProduceRetried {
        /// The producer (its index in the scenario).
        producer: u32,
        /// The partition.
        tp: TopicPartition,
        /// The batch's number at this producer.
        batch: u64,
        /// Which attempt this will be.
        attempt: u32,
        /// Kafka's error code.
        error: ErrorCode,
        /// How long it waits first, in milliseconds.
        backoff_ms: u64,
    },
    /// A producer interceptor's `onAcknowledgement` ran.
    InterceptorAcknowledged {
        /// The producer (its index in the scenario).
        producer: u32,
        /// The record's number at this producer, in send order.
        record: u64,
        /// The interceptor's class name.
        interceptor: String,
        /// The record's offset.
        offset: i64,
    },
    /// `producer.close()` was called: what is still to send or to wait for.
    ProducerClosing {
        /// The producer (its index in the scenario).
        producer: u32,
        /// Batches left.
        batches: u32,
        /// Records left.
        records: u32,
        /// Requests sent and not yet answered.
        in_flight: u32,
    },
    /// `close(timeout)` ran out (or was `close(Duration.ZERO)`): the Sender
    /// was force-closed. Every batch not yet answered is aborted, also
    /// those whose requests are in flight (a broker may still append them:
    /// the application is told they failed), and records whose `send()`
    /// waited for `buffer.memory` fail too.
    ProducerForceClosed {
        /// The producer (its index in the scenario).
        producer: u32,
        /// The close timeout.
        timeout_ms: u64,
        /// Batches that failed.
        batches: u32,
        /// Records that failed.
        records: u32,
        /// Requests sent and not yet answered.
        in_flight: u32,
    },
    /// `close()` returned: every batch was sent and answered (or aborted,
    /// after a force close).
    ProducerClosed {
        /// The producer (its index in the scenario).
        producer: u32,
        /// Records acknowledged in its life.
        records_sent: u64,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        /// Whether it closed by force.
        forced: bool,
    },
    /// `poll` returned records of one partition.
    RecordsConsumed {
        /// The consumer (its index in the scenario).
        consumer: u32,
        /// The partition.
        tp: TopicPartition,
        /// The records.
        records: Vec<ConsumedRecord>,
        /// The high watermark the fetch reported.
        high_watermark: i64,
    },
    /// The application finished processing what poll() gave it.
    RecordsProcessed {
        /// The consumer (its index in the scenario).
        consumer: u32,
        /// (partition, first offset, last offset).
        ranges: Vec<(TopicPartition, i64, i64)>,
    },
    /// A consumer's position was set by `auto.offset.reset` or a seek.
    ConsumerPositionReset {
        /// The consumer (its index in the scenario).
        consumer: u32,
        /// The partition.
        tp: TopicPartition,
        /// The new position.
        position: i64,
        /// Why, in words.
        reason: String,
    },

    // ---- consumer groups: the coordinator -------------------------------------
    /// A broker became coordinator for the groups of an offsets partition and
    /// read their state back from `__consumer_offsets`.
    GroupsLoaded {
        /// The broker it happened on.
        broker: BrokerId,
        /// The `__consumer_offsets` partition.
        partition: i32,
        /// The groups found.
        groups: Vec<String>,
        /// How many committed offsets it loaded.
        offsets: u32,
    },
    /// A broker became transaction coordinator for a `__transaction_state`
    /// partition and read its transactional ids back.
    TxnsLoaded {
        /// The broker it happened on.
        broker: BrokerId,
        /// The `__transaction_state` partition.
        partition: i32,
        /// The coordinator epoch (the partition's leader epoch).
        coordinator_epoch: i32,
        /// The transactional ids found.
        transactional_ids: Vec<String>,
        /// Those found in PrepareCommit/PrepareAbort: their markers go out again.
        completing: Vec<String>,
    },
    /// The transaction coordinator wrote a transition to `__transaction_state`
    /// (replicated) and applied it.
    TxnStateChanged {
        /// The coordinator.
        broker: BrokerId,
        /// The `transactional.id`.
        transactional_id: String,
        /// The producer id.
        producer_id: i64,
        /// The producer epoch.
        producer_epoch: i16,
        /// The state before.
        from: crate::txn::metadata::TxnState,
        /// The state now.
        to: crate::txn::metadata::TxnState,
        /// The transaction's partitions in the record written.
        partitions: Vec<TopicPartition>,
        /// Why.
        cause: crate::txn::TxnCause,
    },
    /// A partition leader wrote a transaction marker (a control batch).
    TxnMarkerWritten {
        /// The leader.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The producer whose transaction it ends.
        producer_id: i64,
        /// Its epoch.
        producer_epoch: i16,
        /// COMMIT (true) or ABORT.
        committed: bool,
        /// The coordinator epoch the marker carries.
        coordinator_epoch: i32,
        /// The marker's offset.
        offset: i64,
        /// The partition's last stable offset after it.
        last_stable_offset: i64,
    },
    /// The group coordinator applied a transaction's marker to the offsets
    /// that transaction committed for a group (`sendOffsetsToTransaction`):
    /// COMMIT makes them the group's committed offsets, ABORT drops them.
    TxnOffsetsCompleted {
        /// The group coordinator.
        broker: BrokerId,
        /// The consumer group (`group.id`).
        group: String,
        /// The producer whose transaction held them.
        producer_id: i64,
        /// COMMIT (true) or ABORT.
        committed: bool,
        /// The offsets made committed (COMMIT: those not older than the
        /// committed ones, `olderThan`) or dropped (ABORT), per partition.
        offsets: Vec<(TopicPartition, i64)>,
    },
    /// A transactional producer found its transaction coordinator.
    TxnCoordinatorFound {
        /// The producer (its index in the scenario).
        producer: u32,
        /// Its `transactional.id`.
        transactional_id: String,
        /// The coordinator.
        broker: BrokerId,
        /// The id's `__transaction_state` partition.
        partition: i32,
    },
    /// KIP-890 part 1: a partition leader holds a transactional produce and
    /// asks the transaction coordinator whether these partitions are in the
    /// producer's transaction (AddPartitionsToTxn, verify only), because the
    /// producer has no transaction open on them here
    /// (`ReplicaManager.maybeStartTransactionVerificationForPartitions`).
    TxnVerificationStarted {
        /// The partition leader.
        broker: BrokerId,
        /// The producer's `transactional.id`.
        transactional_id: String,
        /// Its producer id.
        producer_id: i64,
        /// The partitions to verify.
        partitions: Vec<TopicPartition>,
        /// The coordinator asked (none: the leader knows no live one, and
        /// answers `COORDINATOR_NOT_AVAILABLE` at once).
        coordinator: Option<BrokerId>,
    },
    /// KIP-890 part 1: the verification failed, so the leader answered the
    /// produce for this partition without appending it
    /// (`ReplicaManager.handleProduceAppend`'s `postVerificationCallback`).
    ProduceVerificationFailed {
        /// The partition leader.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// What the producer is answered.
        error: ErrorCode,
        /// The coordinator's answer (or the network's) that caused it.
        cause: ErrorCode,
        /// Kafka's message for it (empty: none).
        detail: String,
    },
    /// A transactional producer's `TransactionManager` changed state.
    ProducerTxnStateChanged {
        /// The producer (its index in the scenario).
        producer: u32,
        /// Its `transactional.id`.
        transactional_id: String,
        /// The state before.
        from: crate::txn::ClientTxnState,
        /// The state now.
        to: crate::txn::ClientTxnState,
        /// The error that caused it, if any.
        error: Option<ErrorCode>,
    },
    /// A broker stopped coordinating an offsets partition and dropped its groups.
    GroupsUnloaded {
        /// The broker it happened on.
        broker: BrokerId,
        /// The `__consumer_offsets` partition.
        partition: i32,
        /// The groups dropped.
        groups: Vec<String>,
    },
    /// KIP-394: a first JoinGroup gets a member id and MEMBER_ID_REQUIRED.
    MemberIdAssigned {
        /// The broker it happened on.
        broker: BrokerId,
        /// The consumer group (`group.id`).
        group: String,
        /// The member's id in the group.
        member_id: String,
    },
    /// A member's JoinGroup reached the coordinator.
    MemberJoining {
        /// The broker it happened on.
        broker: BrokerId,
        /// The consumer group (`group.id`).
        group: String,
        /// The member's id in the group.
        member_id: String,
        /// The static member's `group.instance.id`, if any.
        group_instance_id: Option<String>,
        /// Whether the member was already in the group.
        known: bool,
    },
    /// A static member came back with a new member id, in its old place and without a rebalance (KIP-345).
    StaticMemberReplaced {
        /// The broker it happened on.
        broker: BrokerId,
        /// The consumer group (`group.id`).
        group: String,
        /// The static member's `group.instance.id`, if any.
        group_instance_id: String,
        /// Its member id before.
        old_member_id: String,
        /// Its member id now.
        new_member_id: String,
    },
    /// The group began a rebalance (PreparingRebalance).
    RebalanceStarted {
        /// The broker it happened on.
        broker: BrokerId,
        /// The consumer group (`group.id`).
        group: String,
        /// The generation that ends.
        generation: i32,
        /// Why, in words.
        reason: String,
        /// How long the coordinator waits for the members to join.
        wait_ms: u64,
        /// Whether this is `group.initial.rebalance.delay.ms` for a new group.
        initial_delay: bool,
    },
    /// The coordinator completed the join: a new generation with its leader and members (CompletingRebalance).
    GenerationStarted {
        /// The broker it happened on.
        broker: BrokerId,
        /// The consumer group (`group.id`).
        group: String,
        /// The group's generation.
        generation: i32,
        /// The assignor the group chose.
        protocol: Option<String>,
        /// The leader's member id.
        leader: Option<String>,
        /// The members' ids.
        members: Vec<String>,
    },
    /// The coordinator removed a member.
    MemberRemoved {
        /// The broker it happened on.
        broker: BrokerId,
        /// The consumer group (`group.id`).
        group: String,
        /// The member's id in the group.
        member_id: String,
        /// Why, in words.
        reason: String,
    },
    /// The leader's assignment arrived (SyncGroup): the group is Stable.
    GroupStable {
        /// The broker it happened on.
        broker: BrokerId,
        /// The consumer group (`group.id`).
        group: String,
        /// The group's generation.
        generation: i32,
        /// Each member's partitions.
        assignment: SortedMap<String, Vec<TopicPartition>>,
    },
    /// The coordinator stored committed offsets in `__consumer_offsets`.
    OffsetsCommitted {
        /// The broker it happened on.
        broker: BrokerId,
        /// The consumer group (`group.id`).
        group: String,
        /// The member's id in the group.
        member_id: String,
        /// The offsets, per partition.
        offsets: Vec<(TopicPartition, i64)>,
    },
    /// The coordinator refused an offset commit.
    OffsetCommitRejected {
        /// The broker it happened on.
        broker: BrokerId,
        /// The consumer group (`group.id`).
        group: String,
        /// The member's id in the group.
        member_id: String,
        /// Kafka's error code.
        error: ErrorCode,
        /// What went wrong, in words.
        detail: String,
    },

    // ---- consumer groups: the member ------------------------------------------
    /// A consumer found its group coordinator (FindCoordinator).
    CoordinatorFound {
        /// The consumer (its index in the scenario).
        consumer: u32,
        /// The consumer group (`group.id`).
        group: String,
        /// The coordinator.
        broker: BrokerId,
        /// The group's `__consumer_offsets` partition.
        partition: i32,
    },
    /// A consumer lost its coordinator and must find it again.
    CoordinatorLost {
        /// The consumer (its index in the scenario).
        consumer: u32,
        /// The former coordinator.
        broker: BrokerId,
        /// Why, in words.
        reason: String,
    },
    /// A consumer learned its generation, its member id and the leader.
    JoinedGroup {
        /// The consumer (its index in the scenario).
        consumer: u32,
        /// The consumer group (`group.id`).
        group: String,
        /// The group's generation.
        generation: i32,
        /// The member's id in the group.
        member_id: String,
        /// The leader's member id.
        leader: bool,
        /// The assignor the group chose.
        protocol: Option<String>,
    },
    /// The leader member ran the assignor.
    AssignmentComputed {
        /// The consumer (its index in the scenario).
        consumer: u32,
        /// The consumer group (`group.id`).
        group: String,
        /// The group's generation.
        generation: i32,
        /// The assignor.
        strategy: String,
        /// The partition count of each subscribed topic.
        partitions_per_topic: SortedMap<String, i32>,
        /// Each member's partitions.
        assignment: SortedMap<String, Vec<TopicPartition>>,
        /// Cooperative only: what members must give up first.
        revoke: SortedMap<String, Vec<TopicPartition>>,
    },
    /// A consumer gave up partitions (`onPartitionsRevoked`, or `onPartitionsLost`).
    PartitionsRevoked {
        /// The consumer (its index in the scenario).
        consumer: u32,
        /// The group's generation.
        generation: i32,
        /// The partitions.
        partitions: Vec<TopicPartition>,
        /// `onPartitionsLost`: the group moved on without this member.
        lost: bool,
    },
    /// A consumer got its assignment (`onPartitionsAssigned`).
    PartitionsAssigned {
        /// The consumer (its index in the scenario).
        consumer: u32,
        /// The group's generation.
        generation: i32,
        /// The partitions it owns now.
        assignment: Vec<TopicPartition>,
        /// The partitions new to it.
        added: Vec<TopicPartition>,
    },
    /// A consumer must join the group again.
    RejoinRequested {
        /// The consumer (its index in the scenario).
        consumer: u32,
        /// Why, in words.
        reason: String,
    },
    /// A consumer left its group.
    LeftGroup {
        /// The consumer (its index in the scenario).
        consumer: u32,
        /// The consumer group (`group.id`).
        group: String,
        /// The member's id in the group.
        member_id: String,
        /// Whether it sent LeaveGroup (a static member does not).
        sent_leave_group: bool,
        /// Why, in words.
        reason: String,
    },
    /// A consumer sent an OffsetCommit.
    OffsetCommitSent {
        /// The consumer (its index in the scenario).
        consumer: u32,
        /// The group's generation.
        generation: i32,
        /// The offsets, per partition.
        offsets: Vec<(TopicPartition, i64)>,
        /// Whether `commitSync` (it waits) rather than `commitAsync`.
        sync: bool,
        /// What triggered it: auto-commit, a revoke, or the application.
        reason: String,
    },
    /// An offset commit failed.
    OffsetCommitFailed {
        /// The consumer (its index in the scenario).
        consumer: u32,
        /// The offsets, per partition.
        offsets: Vec<(TopicPartition, i64)>,
        /// Kafka's error code.
        error: ErrorCode,
        /// What went wrong, in words.
        detail: String,
    },

    // ---- guarantees -----------------------------------------------------------
    /// One of Kafka's guarantees was broken here (see `invariants`).
    GuaranteeBroken {
        /// Which guarantee.
        guarantee: Guarantee,
        /// The partition, if it concerns one.
        tp: Option<TopicPartition>,
        /// What happened, with the offsets and brokers involved.
        detail: String,
    },
}

/// A record as a consumer application saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsumedRecord {
    /// Its offset in the partition.
    pub offset: i64,
    /// Its key, as text (none: a null key).
    pub key: Option<String>,
    /// Its value, as text (none: a tombstone).
    pub value: Option<String>,
    /// Its timestamp (ms since the epoch).
    pub timestamp: i64,
}

pub use crate::ids::ids_list;

/// A batch as the Sender put it in a request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrainedBatch {
    /// The batch's number at this producer.
    pub batch: u64,
    /// Its partition.
    pub tp: TopicPartition,
    /// Records in it.
    pub records: u32,
    /// Its size in bytes.
    pub bytes: u64,
    /// The sequence number of its first record (idempotence; -1 without).
    pub base_sequence: i32,
    /// Which attempt this is (1: the first send).
    pub attempt: u32,
    /// Why it went now: `full`, `linger.ms`, `retry`, or `with others` (drained
    /// along with a ready batch for the same broker).
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page keeps every event of a trace (up to a million), so an event's
    /// own size is paid a million times: a large field goes behind a `Box`
    /// or an `Arc` (a message's body is the `Arc` its delivery holds), and
    /// the inline part stays what the common events need. Issue 24 measured
    /// 432 bytes before the large fields were moved out.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn an_event_stays_small_inline() {
        assert!(
            std::mem::size_of::<EventKind>() <= 128,
            "EventKind is {} bytes: box the new large field",
            std::mem::size_of::<EventKind>()
        );
        assert!(std::mem::size_of::<Event>() <= 184);
    }

    /// A message sent is stored once: the event and the delivery share it.
    #[test]
    fn a_sent_message_is_shared_with_its_delivery() {
        let sc = crate::Scenario::from_json(
            r#"{"seed": 1, "run_until_ms": 500, "cluster": {"brokers": [0, 1]},
                "topics": [{"name": "t", "partitions": 1, "replication.factor": 2}]}"#,
        )
        .unwrap();
        let mut w = crate::World::new(std::sync::Arc::new(sc));
        let mut shared = 0;
        while w.step() {
            for e in w.drain_events() {
                if let EventKind::MessageSent { message, .. } = &e.kind {
                    // The delivery still queued holds the other reference.
                    shared += usize::from(Arc::strong_count(message) == 2);
                }
            }
        }
        assert!(shared > 10, "{shared} messages shared");
    }
}
