//! Exactly-once (KIP-98): the transaction coordinator's state and records.
//!
//! A transactional producer (`transactional.id`) is served by the
//! *transaction coordinator*: the leader of `__transaction_state` partition
//! `Utils.abs(transactionalId.hashCode) % transaction.state.log.num.partitions`
//! (50 partitions, replication factor 3 and `min.insync.replicas` 2 by
//! default; the topic is created on the first FindCoordinator of key type
//! TRANSACTION). For each transactional id the coordinator keeps a
//! [`metadata::TxnMetadata`]: the producer id and epoch, the partitions of
//! the transaction, and its state:
//!
//! ```text
//!   Empty ──AddPartitionsToTxn──▶ Ongoing ──EndTxn(commit)──▶ PrepareCommit ──markers──▶ CompleteCommit
//!     ▲                             │   └──EndTxn(abort) / timeout──▶ PrepareAbort ──markers──▶ CompleteAbort
//!     └──InitProducerId (epoch+1)───┘        (PrepareEpochFence: a new InitProducerId fences an open one)
//! ```
//!
//! Every transition is first written to `__transaction_state` as a
//! [`log`] record (acks=all) and only then applied; a coordinator that takes
//! over a partition reads the records back and finishes what was in
//! progress. In PrepareCommit/PrepareAbort the coordinator sends
//! WriteTxnMarkers to the leader of each partition of the transaction; each
//! writes a COMMIT or ABORT control batch (see `storage::record`), which
//! moves the partition's last stable offset and, for an abort, fills its
//! `.txnindex` (see `producer_state` and `storage::txn_index`).
//!
//! This module holds the coordinator's state machine and its log records,
//! following Kafka 3.9 `kafka/coordinator/transaction/TransactionMetadata.scala`
//! (states, `validPreviousStates`, the `prepare*` methods and
//! `completeTransitionTo`) and `TransactionLog.scala` with the generated
//! `TransactionLogKey`/`TransactionLogValue` schemas. The broker requests,
//! the producer's `TransactionManager` and the consumer's `read_committed`
//! fetch build on it.

pub mod log;
pub mod metadata;

/// The internal topic of the transaction coordinators.
pub const TRANSACTION_STATE_TOPIC: &str = "__transaction_state";

/// The transaction coordinator's partition of a transactional id
/// (`TransactionStateManager.partitionFor`): the same rule as a group's.
pub fn partition_for(transactional_id: &str, partitions: i32) -> i32 {
    crate::partitioner::coordinator_partition(transactional_id, partitions)
}

mod coordinator;
mod markers;
mod state_manager;

use crate::collections::{SortedMap, SortedSet};
use crate::ids::{BrokerId, NodeId, TopicPartition};
use metadata::{TxnMetadata, TxnTransit};
use serde::{Deserialize, Serialize};

/// Why the coordinator made a transition (shown with it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TxnCause {
    /// The producer asked (InitProducerId, AddPartitionsToTxn, EndTxn).
    Client,
    /// A new InitProducerId found the transaction open: fenced and aborted.
    Fence,
    /// The transaction ran past `transaction.timeout.ms`: fenced and aborted.
    Timeout,
    /// Every marker is written: the transaction is complete.
    Markers,
}

/// What a coordinator answers once its write to `__transaction_state` is replicated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TxnReply {
    /// Nobody waits (a timeout's abort, a completion).
    None,
    /// InitProducerId: the new id and epoch.
    InitPid {
        /// The client.
        from: NodeId,
        /// Its request's correlation id.
        cid: i32,
    },
    /// InitProducerId that found the transaction open: CONCURRENT_TRANSACTIONS, retry.
    FencedInit {
        /// The client.
        from: NodeId,
        /// Its request's correlation id.
        cid: i32,
    },
    /// AddPartitionsToTxn.
    AddPartitions {
        /// The client.
        from: NodeId,
        /// Its request's correlation id.
        cid: i32,
        /// The partitions it adds.
        partitions: Vec<TopicPartition>,
        /// It was AddOffsetsToTxn (its group's `__consumer_offsets` partition).
        offsets: bool,
    },
    /// EndTxn.
    EndTxn {
        /// The client.
        from: NodeId,
        /// Its request's correlation id.
        cid: i32,
    },
}

/// A transition being written (`TxnTransitMetadata` with its callback).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxnWrite {
    /// The transactional id.
    pub transactional_id: String,
    /// The target.
    pub transit: TxnTransit,
    /// The coordinator epoch it was made in.
    pub coordinator_epoch: i32,
    /// Who waits for it.
    pub reply: TxnReply,
    /// Why.
    pub cause: TxnCause,
}

/// The markers of one completing transaction (`PendingCompleteTxn` and the
/// channel manager's queues).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingMarkers {
    /// The producer id the markers carry.
    pub producer_id: i64,
    /// The producer epoch the markers carry.
    pub producer_epoch: i16,
    /// COMMIT or ABORT.
    pub committed: bool,
    /// The coordinator epoch the markers carry.
    pub coordinator_epoch: i32,
    /// Partitions not yet marked.
    pub remaining: SortedSet<TopicPartition>,
    /// Partitions in a WriteTxnMarkers request now.
    pub in_flight: SortedSet<TopicPartition>,
    /// The complete transition, written once every marker is.
    pub complete: TxnTransit,
}

/// A WriteTxnMarkers the broker answers as a partition leader: each
/// partition's result, filled in as its marker is replicated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkerReply {
    /// Per producer id and partition: the result once known.
    pub results: Vec<(i64, TopicPartition, Option<Option<crate::msg::ErrorCode>>)>,
}

/// The transaction coordinator's state on one broker
/// (`TransactionStateManager`'s cache and the marker channel's queues).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Txns {
    /// The metadata of every transactional id this broker coordinates.
    pub metas: SortedMap<String, TxnMetadata>,
    /// Loaded `__transaction_state` partitions and their coordinator epoch.
    pub loaded: SortedMap<i32, i32>,
    /// Transitions waiting for the ISR, by delayed-produce id.
    pub writes: SortedMap<u64, TxnWrite>,
    /// Transactions whose markers are being written, by transactional id.
    pub markers: SortedMap<String, PendingMarkers>,
    /// WriteTxnMarkers in flight: correlation id → (transactional id, broker, partitions).
    pub marker_requests: SortedMap<i32, (String, BrokerId, Vec<TopicPartition>)>,
    /// The correlation id of the next WriteTxnMarkers.
    pub next_correlation: i32,
    /// As a partition leader: a marker waiting for the ISR, by
    /// delayed-produce id → the request it answers, the producer, the partition.
    pub marker_writes: SortedMap<u64, ((NodeId, i32), i64, TopicPartition, bool)>,
    /// WriteTxnMarkers being answered as a partition leader.
    pub marker_replies: SortedMap<(NodeId, i32), MarkerReply>,
    /// Whether the timed-out transaction check is scheduled.
    pub abort_check_armed: bool,
}

impl TxnCause {
    /// Its name in events (`client`, `fence`, `timeout`, `markers`).
    pub fn name(self) -> &'static str {
        match self {
            TxnCause::Client => "client",
            TxnCause::Fence => "fence",
            TxnCause::Timeout => "timeout",
            TxnCause::Markers => "markers",
        }
    }
}

/// The producer's `TransactionManager.State` (Kafka 3.9 clients).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ClientTxnState {
    /// Before `initTransactions()`.
    Uninitialized,
    /// `initTransactions()`: finding the coordinator, InitProducerId.
    Initializing,
    /// Ready for `beginTransaction()`.
    Ready,
    /// Between `beginTransaction()` and commit or abort.
    InTransaction,
    /// `commitTransaction()`: flushing, then EndTxn(commit).
    CommittingTransaction,
    /// `abortTransaction()`: unsent batches dropped, then EndTxn(abort).
    AbortingTransaction,
    /// A send failed: only `abortTransaction()` is allowed.
    AbortableError,
    /// Fenced or otherwise unusable: only `close()` is allowed.
    FatalError,
}

impl ClientTxnState {
    /// Kafka's name (`IN_TRANSACTION`).
    pub fn name(self) -> &'static str {
        match self {
            ClientTxnState::Uninitialized => "UNINITIALIZED",
            ClientTxnState::Initializing => "INITIALIZING",
            ClientTxnState::Ready => "READY",
            ClientTxnState::InTransaction => "IN_TRANSACTION",
            ClientTxnState::CommittingTransaction => "COMMITTING_TRANSACTION",
            ClientTxnState::AbortingTransaction => "ABORTING_TRANSACTION",
            ClientTxnState::AbortableError => "ABORTABLE_ERROR",
            ClientTxnState::FatalError => "FATAL_ERROR",
        }
    }
}
