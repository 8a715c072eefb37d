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
