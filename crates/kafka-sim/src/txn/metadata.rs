//! A transactional id's state at its coordinator (`TransactionMetadata`).
//!
//! Transitions happen in two steps, as in Kafka: `prepare_*` checks the move
//! is legal from the current state (`validPreviousStates`) and returns the
//! target ([`TxnTransit`]) while the metadata records it as *pending*; once
//! the target is written to `__transaction_state` and replicated,
//! [`TxnMetadata::complete_transition`] applies it after the checks of
//! `completeTransitionTo`. Kafka throws `IllegalStateException` on an
//! illegal move; here it is an `Err` naming both states, and the
//! coordinator answers the client with the error Kafka's handler would.

use crate::collections::SortedSet;
use crate::ids::TopicPartition;
use crate::msg::ErrorCode;
use serde::{Deserialize, Serialize};

/// A transaction's state (`TransactionState`), with Kafka's ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum TxnState {
    /// No transaction open (after InitProducerId, or once one completed and
    /// expired).
    Empty,
    /// Partitions were added: a transaction is open.
    Ongoing,
    /// EndTxn(commit) is written: the markers are being sent.
    PrepareCommit,
    /// EndTxn(abort) or a timeout is written: the markers are being sent.
    PrepareAbort,
    /// Every COMMIT marker is written.
    CompleteCommit,
    /// Every ABORT marker is written.
    CompleteAbort,
    /// The transactional id expired (`transactional.id.expiration.ms`).
    Dead,
    /// A new InitProducerId (or a timeout) fences the open transaction's
    /// producer by bumping the epoch, then aborts it.
    PrepareEpochFence,
}

impl TxnState {
    /// The id stored in `TransactionLogValue.TransactionStatus`.
    pub fn id(self) -> i8 {
        match self {
            TxnState::Empty => 0,
            TxnState::Ongoing => 1,
            TxnState::PrepareCommit => 2,
            TxnState::PrepareAbort => 3,
            TxnState::CompleteCommit => 4,
            TxnState::CompleteAbort => 5,
            TxnState::Dead => 6,
            TxnState::PrepareEpochFence => 7,
        }
    }

    /// `TransactionState.fromId`; `None` for an unknown id.
    pub fn from_id(id: i8) -> Option<TxnState> {
        TxnState::ALL.into_iter().find(|s| s.id() == id)
    }

    /// Every state, in id order.
    pub const ALL: [TxnState; 8] = [
        TxnState::Empty,
        TxnState::Ongoing,
        TxnState::PrepareCommit,
        TxnState::PrepareAbort,
        TxnState::CompleteCommit,
        TxnState::CompleteAbort,
        TxnState::Dead,
        TxnState::PrepareEpochFence,
    ];

    /// Kafka's name (`Empty`, `PrepareCommit`, ...).
    pub fn name(self) -> &'static str {
        match self {
            TxnState::Empty => "Empty",
            TxnState::Ongoing => "Ongoing",
            TxnState::PrepareCommit => "PrepareCommit",
            TxnState::PrepareAbort => "PrepareAbort",
            TxnState::CompleteCommit => "CompleteCommit",
            TxnState::CompleteAbort => "CompleteAbort",
            TxnState::Dead => "Dead",
            TxnState::PrepareEpochFence => "PrepareEpochFence",
        }
    }

    /// The states this one may be entered from (`validPreviousStates`).
    pub fn valid_previous(self) -> &'static [TxnState] {
        use TxnState::*;
        match self {
            Empty => &[Empty, CompleteCommit, CompleteAbort],
            Ongoing => &[Ongoing, Empty, CompleteCommit, CompleteAbort],
            PrepareCommit => &[Ongoing],
            PrepareAbort => &[Ongoing, PrepareEpochFence],
            CompleteCommit => &[PrepareCommit],
            CompleteAbort => &[PrepareAbort],
            Dead => &[Empty, CompleteAbort, CompleteCommit],
            PrepareEpochFence => &[Ongoing],
        }
    }

    /// `hasPendingTransaction`: a transaction is open or being decided.
    pub fn has_pending_transaction(self) -> bool {
        matches!(
            self,
            TxnState::Ongoing | TxnState::PrepareAbort | TxnState::PrepareCommit
        )
    }

    /// `isExpirationAllowed`: the id may expire in this state.
    pub fn is_expiration_allowed(self) -> bool {
        matches!(
            self,
            TxnState::Empty | TxnState::CompleteCommit | TxnState::CompleteAbort
        )
    }
}

/// The target of a transition (`TxnTransitMetadata`): what is written to
/// `__transaction_state`, and applied once it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxnTransit {
    /// The producer id after the transition.
    pub producer_id: i64,
    /// The producer id before it.
    pub last_producer_id: i64,
    /// The producer epoch after the transition.
    pub producer_epoch: i16,
    /// The previous epoch, kept to recognise a retried InitProducerId.
    pub last_producer_epoch: i16,
    /// `transaction.timeout.ms`.
    pub txn_timeout_ms: i32,
    /// The target state.
    pub state: TxnState,
    /// The transaction's partitions.
    pub partitions: SortedSet<TopicPartition>,
    /// When the transaction began (-1: none).
    pub txn_start_ms: i64,
    /// When the transition was made.
    pub last_update_ms: i64,
}

/// A transactional id at its coordinator (`TransactionMetadata`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxnMetadata {
    /// The `transactional.id`.
    pub transactional_id: String,
    /// Its producer id.
    pub producer_id: i64,
    /// The producer id before the last rotation (-1: none).
    pub last_producer_id: i64,
    /// Its producer epoch (-1 until the first InitProducerId completes).
    pub producer_epoch: i16,
    /// The epoch before the last bump (-1: none).
    pub last_producer_epoch: i16,
    /// `transaction.timeout.ms`, as the producer asked.
    pub txn_timeout_ms: i32,
    /// The current state.
    pub state: TxnState,
    /// The partitions of the open transaction.
    pub partitions: SortedSet<TopicPartition>,
    /// When the open transaction began (-1: none).
    pub txn_start_ms: i64,
    /// When the metadata last changed.
    pub last_update_ms: i64,
    /// The state being written to the log, if a transition is in progress.
    pub pending: Option<TxnState>,
    /// A fence's epoch bump failed to be written: do not bump again.
    pub has_failed_epoch_fence: bool,
}

/// `TransactionMetadata.isEpochExhausted`: epochs stop below `i16::MAX`.
pub fn is_epoch_exhausted(epoch: i16) -> bool {
    epoch >= i16::MAX - 1
}

impl TxnMetadata {
    /// A new id's metadata: Empty, with no epoch yet and no transaction
    /// start (`TransactionCoordinator.handleInitProducerId`, 3.9 lines
    /// 135-143, builds it with the constructor's `txnStartTimestamp = -1`,
    /// `TransactionMetadata.scala` line 228; the start is set by the first
    /// AddPartitions).
    pub fn new(transactional_id: &str, producer_id: i64, txn_timeout_ms: i32, now_ms: i64) -> Self {
        TxnMetadata {
            transactional_id: transactional_id.to_string(),
            producer_id,
            last_producer_id: -1,
            producer_epoch: -1,
            last_producer_epoch: -1,
            txn_timeout_ms,
            state: TxnState::Empty,
            partitions: SortedSet::new(),
            txn_start_ms: -1,
            last_update_ms: now_ms,
            pending: None,
            has_failed_epoch_fence: false,
        }
    }

    /// `TransactionStateManager.timedOutTransactions` (3.9 lines 120-139):
    /// an Ongoing transaction with no transition pending whose start plus
    /// timeout is strictly before now.
    pub fn has_timed_out(&self, now_ms: i64) -> bool {
        self.state == TxnState::Ongoing
            && self.pending.is_none()
            && self.txn_start_ms + i64::from(self.txn_timeout_ms) < now_ms
    }

    /// `prepareTransitionTo`: checks the move and marks it pending.
    #[allow(clippy::too_many_arguments)]
    fn prepare(
        &mut self,
        state: TxnState,
        producer_id: i64,
        epoch: i16,
        last_epoch: i16,
        timeout: i32,
        partitions: SortedSet<TopicPartition>,
        start: i64,
        now: i64,
    ) -> Result<TxnTransit, String> {
        if let Some(p) = self.pending {
            return Err(format!(
                "{}: preparing a transition to {} while {} is pending",
                self.transactional_id,
                state.name(),
                p.name()
            ));
        }
        if producer_id < 0 {
            return Err(format!("illegal new producer id {producer_id}"));
        }
        if state != TxnState::Dead && epoch < 0 {
            return Err(format!("illegal new producer epoch {epoch}"));
        }
        if !state.valid_previous().contains(&self.state) {
            return Err(format!(
                "{}: {} cannot follow {}",
                self.transactional_id,
                state.name(),
                self.state.name()
            ));
        }
        self.pending = Some(state);
        Ok(TxnTransit {
            producer_id,
            last_producer_id: self.producer_id,
            producer_epoch: epoch,
            last_producer_epoch: last_epoch,
            txn_timeout_ms: timeout,
            state,
            partitions,
            txn_start_ms: start,
            last_update_ms: now,
        })
    }

    /// `prepareIncrementProducerEpoch` (InitProducerId): bump the epoch and
    /// go to Empty. With the epoch the producer last had (KIP-360), a retry
    /// is answered with the same epoch, and a stale one is `PRODUCER_FENCED`.
    pub fn prepare_increment_epoch(
        &mut self,
        timeout: i32,
        expected_epoch: Option<i16>,
        now: i64,
    ) -> Result<Result<TxnTransit, ErrorCode>, String> {
        if is_epoch_exhausted(self.producer_epoch) {
            return Err(format!(
                "cannot allocate any more producer epochs for producer id {}",
                self.producer_id
            ));
        }
        let bumped = self.producer_epoch + 1;
        let (next, last) = match expected_epoch {
            None => (bumped, -1),
            Some(e) if self.producer_epoch == -1 || e == self.producer_epoch => {
                (bumped, self.producer_epoch)
            }
            Some(e) if e == self.last_producer_epoch => {
                (self.producer_epoch, self.last_producer_epoch)
            }
            Some(_) => return Ok(Err(ErrorCode::ProducerFenced)),
        };
        let pid = self.producer_id;
        self.prepare(
            TxnState::Empty,
            pid,
            next,
            last,
            timeout,
            SortedSet::new(),
            -1,
            now,
        )
        .map(Ok)
    }

    /// `prepareProducerIdRotation`: a new producer id at epoch 0 (when the
    /// epoch is exhausted).
    pub fn prepare_producer_id_rotation(
        &mut self,
        new_producer_id: i64,
        timeout: i32,
        now: i64,
        record_last_epoch: bool,
    ) -> Result<TxnTransit, String> {
        if self.state.has_pending_transaction() {
            return Err("cannot rotate producer ids while a transaction is still pending".into());
        }
        let last = if record_last_epoch {
            self.producer_epoch
        } else {
            -1
        };
        self.prepare(
            TxnState::Empty,
            new_producer_id,
            0,
            last,
            timeout,
            SortedSet::new(),
            -1,
            now,
        )
    }

    /// `prepareFenceProducerEpoch`: bump the epoch (unless a previous fence
    /// failed to be written) to fence the open transaction's producer.
    pub fn prepare_fence_epoch(&mut self) -> Result<TxnTransit, String> {
        if self.producer_epoch == i16::MAX {
            return Err("cannot fence a producer at epoch Short.MaxValue".into());
        }
        let bumped = if self.has_failed_epoch_fence {
            self.producer_epoch
        } else {
            self.producer_epoch + 1
        };
        let (pid, timeout, parts, start, last) = (
            self.producer_id,
            self.txn_timeout_ms,
            self.partitions.clone(),
            self.txn_start_ms,
            self.last_update_ms,
        );
        self.prepare(
            TxnState::PrepareEpochFence,
            pid,
            bumped,
            -1,
            timeout,
            parts,
            start,
            last,
        )
    }

    /// `prepareAddPartitions` (AddPartitionsToTxn / AddOffsetsToTxn): go to
    /// Ongoing with the union of the partitions; a new transaction starts now.
    pub fn prepare_add_partitions(
        &mut self,
        added: &SortedSet<TopicPartition>,
        now: i64,
    ) -> Result<TxnTransit, String> {
        let start = match self.state {
            TxnState::Empty | TxnState::CompleteAbort | TxnState::CompleteCommit => now,
            _ => self.txn_start_ms,
        };
        let parts = self
            .partitions
            .iter()
            .chain(added.iter())
            .cloned()
            .collect();
        let (pid, epoch, last, timeout) = (
            self.producer_id,
            self.producer_epoch,
            self.last_producer_epoch,
            self.txn_timeout_ms,
        );
        self.prepare(
            TxnState::Ongoing,
            pid,
            epoch,
            last,
            timeout,
            parts,
            start,
            now,
        )
    }

    /// A fence followed by its abort, as `TransactionCoordinator` does for
    /// an InitProducerId or a timeout that finds the transaction open:
    /// `prepareFenceProducerEpoch` bumps the epoch in memory (the bumped
    /// epoch is never handed to a producer), then `endTransaction(ABORT,
    /// isFromClient = false)` prepares PrepareAbort with it. The record
    /// written is the PrepareAbort.
    pub fn prepare_fenced_abort(&mut self, now: i64) -> Result<TxnTransit, String> {
        let fence = self.prepare_fence_epoch()?;
        self.pending = None;
        self.producer_epoch = fence.producer_epoch;
        self.last_producer_epoch = -1;
        self.prepare_abort_or_commit(TxnState::PrepareAbort, now)
    }

    /// The metadata a loading coordinator rebuilds from a stored value
    /// (`TransactionLog.readTxnRecordValue`, version 0: no previous id).
    pub fn from_stored(transactional_id: &str, v: &super::log::StoredTxn) -> TxnMetadata {
        TxnMetadata {
            transactional_id: transactional_id.to_string(),
            producer_id: v.producer_id,
            last_producer_id: -1,
            producer_epoch: v.producer_epoch,
            last_producer_epoch: -1,
            txn_timeout_ms: v.txn_timeout_ms,
            state: v.state,
            partitions: v.partitions.clone(),
            txn_start_ms: v.txn_start_ms,
            last_update_ms: v.last_update_ms,
            pending: None,
            has_failed_epoch_fence: false,
        }
    }

    /// `prepareAbortOrCommit` (EndTxn, or a timeout's abort).
    pub fn prepare_abort_or_commit(
        &mut self,
        state: TxnState,
        now: i64,
    ) -> Result<TxnTransit, String> {
        let (pid, epoch, last, timeout, parts, start) = (
            self.producer_id,
            self.producer_epoch,
            self.last_producer_epoch,
            self.txn_timeout_ms,
            self.partitions.clone(),
            self.txn_start_ms,
        );
        self.prepare(state, pid, epoch, last, timeout, parts, start, now)
    }

    /// `prepareComplete`: every marker is written.
    pub fn prepare_complete(&mut self, now: i64) -> Result<TxnTransit, String> {
        let state = if self.state == TxnState::PrepareCommit {
            TxnState::CompleteCommit
        } else {
            TxnState::CompleteAbort
        };
        self.has_failed_epoch_fence = false;
        let (pid, epoch, last, timeout, start) = (
            self.producer_id,
            self.producer_epoch,
            self.last_producer_epoch,
            self.txn_timeout_ms,
            self.txn_start_ms,
        );
        self.prepare(
            state,
            pid,
            epoch,
            last,
            timeout,
            SortedSet::new(),
            start,
            now,
        )
    }

    /// `prepareDead`: the id expires.
    pub fn prepare_dead(&mut self) -> Result<TxnTransit, String> {
        let (pid, epoch, last, timeout, start, upd) = (
            self.producer_id,
            self.producer_epoch,
            self.last_producer_epoch,
            self.txn_timeout_ms,
            self.txn_start_ms,
            self.last_update_ms,
        );
        self.prepare(
            TxnState::Dead,
            pid,
            epoch,
            last,
            timeout,
            SortedSet::new(),
            start,
            upd,
        )
    }

    /// The write of a pending transition failed: forget it (Kafka's
    /// `pendingState = None` in the append callback's error path).
    pub fn abandon_pending(&mut self) {
        self.pending = None;
    }

    /// `completeTransitionTo`: applies a written transition after Kafka's
    /// checks (the pending state matches; epochs, partitions, timeout and
    /// start time are as the target state requires).
    pub fn complete_transition(&mut self, t: &TxnTransit) -> Result<(), String> {
        let Some(to) = self.pending else {
            return Err(format!(
                "{}: completing a transition to {} with none pending",
                self.transactional_id,
                t.state.name()
            ));
        };
        let fail = || {
            Err(format!(
                "{}: the transition from {} to {} carries unexpected metadata",
                self.transactional_id,
                self.state.name(),
                t.state.name()
            ))
        };
        if to != t.state {
            return fail();
        }
        let same_epoch =
            t.producer_epoch == self.producer_epoch && t.producer_id == self.producer_id;
        match to {
            TxnState::Empty => {
                // `validProducerEpochBump` (3.9 lines 502-506) adds in Int:
                // a fence to 32767 then a rotation must not overflow.
                let bump = i32::from(t.producer_epoch) == i32::from(self.producer_epoch) + 1
                    || (t.producer_epoch == 0 && t.producer_id != self.producer_id);
                if (self.producer_epoch != t.producer_epoch && !bump)
                    || !t.partitions.is_empty()
                    || t.txn_start_ms != -1
                {
                    return fail();
                }
                self.txn_timeout_ms = t.txn_timeout_ms;
                self.producer_epoch = t.producer_epoch;
                self.last_producer_epoch = t.last_producer_epoch;
                self.producer_id = t.producer_id;
                self.last_producer_id = t.last_producer_id;
            }
            TxnState::Ongoing => {
                if !same_epoch
                    || !self.partitions.is_subset(&t.partitions)
                    || self.txn_timeout_ms != t.txn_timeout_ms
                {
                    return fail();
                }
                self.txn_start_ms = t.txn_start_ms;
                self.partitions.extend(t.partitions.iter().cloned());
            }
            TxnState::PrepareAbort | TxnState::PrepareCommit => {
                if !same_epoch
                    || self.partitions != t.partitions
                    || self.txn_timeout_ms != t.txn_timeout_ms
                    || self.txn_start_ms != t.txn_start_ms
                {
                    return fail();
                }
            }
            TxnState::CompleteAbort | TxnState::CompleteCommit => {
                if !same_epoch || self.txn_timeout_ms != t.txn_timeout_ms || t.txn_start_ms == -1 {
                    return fail();
                }
                self.txn_start_ms = t.txn_start_ms;
                self.partitions.clear();
            }
            TxnState::PrepareEpochFence | TxnState::Dead => return fail(),
        }
        self.last_update_ms = t.last_update_ms;
        self.pending = None;
        self.state = to;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tp(p: i32) -> TopicPartition {
        TopicPartition::new("out", p)
    }

    fn apply(m: &mut TxnMetadata, t: Result<TxnTransit, String>) {
        let t = t.expect("legal transition");
        m.complete_transition(&t).expect("completes");
    }

    #[test]
    fn a_fenced_abort_bumps_the_epoch_once_and_prepares_the_abort() {
        let mut m = TxnMetadata::new("tx", 7, 60_000, 0);
        let t = m.prepare_increment_epoch(60_000, None, 1).unwrap();
        apply(&mut m, t.map_err(|e| e.name()));
        let t = m.prepare_add_partitions(&[tp(0)].into(), 2);
        apply(&mut m, t);
        let t = m
            .prepare_fenced_abort(3)
            .expect("an open transaction can be fenced");
        assert_eq!((t.state, t.producer_epoch), (TxnState::PrepareAbort, 1));
        assert_eq!(t.partitions, [tp(0)].into());
        // The write failed: the next fence keeps the bumped epoch.
        m.abandon_pending();
        m.has_failed_epoch_fence = true;
        let t = m.prepare_fenced_abort(4).unwrap();
        assert_eq!(t.producer_epoch, 1, "a failed fence is not bumped twice");
        apply(&mut m, Ok(t));
        assert_eq!((m.state, m.producer_epoch), (TxnState::PrepareAbort, 1));
    }

    /// `TransactionMetadata.validProducerEpochBump` adds in Int: a
    /// transaction fenced from 32766 to 32767 whose abort completes, then an
    /// InitProducerId rotating to a new producer id, completes (it panicked
    /// with an i16 overflow).
    #[test]
    fn a_rotation_after_a_fence_to_the_last_epoch_completes() {
        let mut m = TxnMetadata::new("tx", 7, 60_000, 0);
        let t = m.prepare_increment_epoch(60_000, None, 1).unwrap();
        apply(&mut m, t.map_err(|e| e.name()));
        m.producer_epoch = i16::MAX - 1;
        let t = m.prepare_add_partitions(&[tp(0)].into(), 2);
        apply(&mut m, t);
        let t = m.prepare_fenced_abort(3).expect("can fence at 32766");
        assert_eq!(t.producer_epoch, i16::MAX);
        apply(&mut m, Ok(t));
        let t = m.prepare_complete(4);
        apply(&mut m, t);
        assert_eq!(
            (m.state, m.producer_epoch),
            (TxnState::CompleteAbort, i16::MAX)
        );
        let t = m.prepare_producer_id_rotation(8, 60_000, 5, true);
        apply(&mut m, t);
        assert_eq!(
            (m.producer_id, m.producer_epoch, m.last_producer_epoch),
            (8, 0, i16::MAX)
        );
    }

    /// `timedOutTransactions` uses a strict `<` (3.9 line 130): a
    /// transaction exactly at its deadline is not yet aborted.
    #[test]
    fn a_transaction_times_out_only_strictly_after_its_deadline() {
        let mut m = TxnMetadata::new("tx", 7, 5_000, 0);
        let t = m.prepare_increment_epoch(5_000, None, 1).unwrap();
        apply(&mut m, t.map_err(|e| e.name()));
        assert!(!m.has_timed_out(1_000_000), "Empty never times out");
        let t = m.prepare_add_partitions(&[tp(0)].into(), 1_000);
        apply(&mut m, t);
        assert!(!m.has_timed_out(6_000), "at the deadline");
        assert!(m.has_timed_out(6_001), "one ms past it");
    }

    /// A new id's metadata has no transaction start until a partition is
    /// added (`TransactionCoordinator.handleInitProducerId`, 3.9 lines
    /// 135-143, and the constructor default at line 228).
    #[test]
    fn new_metadata_has_no_transaction_start() {
        let m = TxnMetadata::new("tx", 7, 60_000, 1234);
        assert_eq!((m.txn_start_ms, m.last_update_ms), (-1, 1234));
    }

    #[test]
    fn a_transaction_goes_round_and_commits() {
        let mut m = TxnMetadata::new("tx", 1000, 60_000, 0);
        let t = m.prepare_increment_epoch(60_000, None, 5).unwrap();
        apply(&mut m, t.map_err(|e| e.name()));
        assert_eq!(
            (m.state, m.producer_epoch, m.last_producer_epoch),
            (TxnState::Empty, 0, -1)
        );
        let parts: SortedSet<_> = [tp(0), tp(1)].into();
        let t = m.prepare_add_partitions(&parts, 10);
        apply(&mut m, t);
        assert_eq!(m.state, TxnState::Ongoing);
        assert_eq!(
            m.txn_start_ms, 10,
            "the transaction starts at its first AddPartitions"
        );
        // A second AddPartitions keeps the start time and adds.
        let t = m.prepare_add_partitions(&[tp(2)].into(), 20);
        apply(&mut m, t);
        assert_eq!((m.txn_start_ms, m.partitions.len()), (10, 3));
        let t = m.prepare_abort_or_commit(TxnState::PrepareCommit, 30);
        apply(&mut m, t);
        assert_eq!(m.partitions.len(), 3, "kept until the markers are written");
        let t = m.prepare_complete(40);
        apply(&mut m, t);
        assert_eq!(m.state, TxnState::CompleteCommit);
        assert!(m.partitions.is_empty());
        // The next transaction starts again from CompleteCommit.
        let t = m.prepare_add_partitions(&[tp(0)].into(), 50);
        apply(&mut m, t);
        assert_eq!(m.txn_start_ms, 50);
    }

    #[test]
    fn illegal_moves_and_a_second_pending_move_are_refused() {
        let mut m = TxnMetadata::new("tx", 7, 60_000, 0);
        // Before any InitProducerId the epoch is -1: refused for that first.
        let e = m
            .prepare_abort_or_commit(TxnState::PrepareCommit, 1)
            .unwrap_err();
        assert!(e.contains("illegal new producer epoch -1"), "{e}");
        m.producer_epoch = 0;
        let e = m
            .prepare_abort_or_commit(TxnState::PrepareCommit, 1)
            .unwrap_err();
        assert!(e.contains("PrepareCommit cannot follow Empty"), "{e}");
        let _pending = m.prepare_increment_epoch(60_000, None, 1).unwrap();
        let e = m.prepare_add_partitions(&[tp(0)].into(), 2).unwrap_err();
        assert!(e.contains("while Empty is pending"), "{e}");
        // A transit for another state does not complete the pending one.
        let mut other = m.clone();
        other.pending = None;
        let wrong = TxnTransit {
            state: TxnState::Ongoing,
            ..other
                .prepare_increment_epoch(60_000, None, 1)
                .unwrap()
                .unwrap()
        };
        assert!(m.complete_transition(&wrong).is_err());
    }

    #[test]
    fn every_state_checks_kafkas_valid_previous_states() {
        // For every (from, to), preparing `to` from `from` is legal exactly
        // when Kafka lists `from` among `to`'s valid previous states.
        for from in TxnState::ALL {
            for to in [TxnState::PrepareCommit, TxnState::PrepareAbort] {
                let mut m = TxnMetadata::new("tx", 1, 1000, 0);
                m.producer_epoch = 0;
                m.state = from;
                let ok = m.prepare_abort_or_commit(to, 1).is_ok();
                assert_eq!(ok, to.valid_previous().contains(&from), "{from:?} → {to:?}");
            }
            let mut m = TxnMetadata::new("tx", 1, 1000, 0);
            m.producer_epoch = 0;
            m.state = from;
            let ok = m.prepare_add_partitions(&[tp(0)].into(), 1).is_ok();
            let want = matches!(
                from,
                TxnState::Ongoing
                    | TxnState::Empty
                    | TxnState::CompleteCommit
                    | TxnState::CompleteAbort
            );
            assert_eq!(ok, want, "{from:?} → Ongoing");
        }
        for s in TxnState::ALL {
            assert_eq!(TxnState::from_id(s.id()), Some(s));
        }
        assert_eq!(TxnState::from_id(8), None);
    }

    #[test]
    fn init_producer_id_bumps_and_recognises_retries_and_zombies() {
        let mut m = TxnMetadata::new("tx", 1, 1000, 0);
        m.producer_epoch = 4;
        m.last_producer_epoch = 3;
        // A new producer (no expected epoch): 4 → 5, last -1.
        let t = m
            .clone()
            .prepare_increment_epoch(1000, None, 1)
            .unwrap()
            .unwrap();
        assert_eq!((t.producer_epoch, t.last_producer_epoch), (5, -1));
        // The current producer recovering (expects 4): 5, last 4.
        let t = m
            .clone()
            .prepare_increment_epoch(1000, Some(4), 1)
            .unwrap()
            .unwrap();
        assert_eq!((t.producer_epoch, t.last_producer_epoch), (5, 4));
        // A retry of a bump that succeeded (expects 3 = last): no bump.
        let t = m
            .clone()
            .prepare_increment_epoch(1000, Some(3), 1)
            .unwrap()
            .unwrap();
        assert_eq!((t.producer_epoch, t.last_producer_epoch), (4, 3));
        // A zombie (expects 2): fenced.
        assert_eq!(
            m.clone().prepare_increment_epoch(1000, Some(2), 1).unwrap(),
            Err(ErrorCode::ProducerFenced)
        );
        m.producer_epoch = i16::MAX - 1;
        assert!(
            m.prepare_increment_epoch(1000, None, 1).is_err(),
            "exhausted"
        );
    }

    #[test]
    fn a_fence_bumps_once_then_aborts() {
        let mut m = TxnMetadata::new("tx", 1, 1000, 0);
        m.producer_epoch = 2;
        m.state = TxnState::Ongoing;
        m.partitions = [tp(0)].into();
        let fence = m.prepare_fence_epoch().unwrap();
        assert_eq!(
            (fence.state, fence.producer_epoch),
            (TxnState::PrepareEpochFence, 3)
        );
        // Kafka never completes PrepareEpochFence: it moves on to PrepareAbort.
        assert!(m.complete_transition(&fence).is_err());
        let mut m2 = m.clone();
        m2.pending = None;
        m2.has_failed_epoch_fence = true;
        assert_eq!(
            m2.prepare_fence_epoch().unwrap().producer_epoch,
            2,
            "no second bump"
        );
    }
}
