//! The transactional producer (`TransactionManager`, Kafka 3.9 clients):
//! `initTransactions()` finds the transaction coordinator (FindCoordinator,
//! key type TRANSACTION) and sends InitProducerId with the
//! `transactional.id`, which bumps the epoch and fences any older producer
//! with the same id; `beginTransaction()` is local; before the first batch
//! to a partition is sent, the Sender adds the partition to the transaction
//! (AddPartitionsToTxn: batches of a partition not yet added are not
//! drained); `commitTransaction()` waits until every batch is acknowledged
//! and sends EndTxn(commit); `abortTransaction()` fails the unsent batches
//! and sends EndTxn(abort). A transaction that never added a partition ends
//! without EndTxn. Errors follow the client: NOT_COORDINATOR and
//! COORDINATOR_NOT_AVAILABLE find the coordinator again,
//! CONCURRENT_TRANSACTIONS and COORDINATOR_LOAD_IN_PROGRESS retry after
//! `retry.backoff.ms`, PRODUCER_FENCED / INVALID_PRODUCER_EPOCH /
//! INVALID_TXN_STATE are fatal (only `close()` is left), and a failed send
//! inside a transaction makes it abortable.
//!
//! `sendOffsetsToTransaction(offsets, groupMetadata)` (KIP-98, KIP-447)
//! queues AddOffsetsToTxn (the group's `__consumer_offsets` partition joins
//! the transaction), then, at the group coordinator (FindCoordinator, key
//! type GROUP), TxnOffsetCommit with the consumer's generation and member
//! id; `commitTransaction()` sends EndTxn only once they are answered
//! (`AddOffsetsToTxnHandler`, `TxnOffsetCommitHandler`).
//!
//! Simplified: a `send()` in the wrong state fails before the interceptors
//! (Kafka checks after partitioning); the application's calls do not block
//! (a lesson leaves time for `commitTransaction()` to finish); offsets not
//! yet sent when the application aborts are dropped; no epoch bump per
//! transaction (KIP-890 part 2, not on in 3.9).
//!
//! KIP-360: a batch that fails inside a transaction (not while it is
//! already committing or aborting) sets `epochBumpRequired`; once the abort
//! completes the producer goes to INITIALIZING and sends InitProducerId,
//! which bumps its epoch, before it is READY again
//! (`TransactionManager.maybeTransitionToErrorState`,
//! `completeTransaction`, Kafka 3.9 lines 672-685 and 1178-1190). A late
//! write of the old epoch is then fenced by the partition leader's
//! verification (KIP-890 part 1, `broker/verification.rs`).

use super::*;
use crate::txn::ClientTxnState;

/// A `TransactionManager` call the application makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxnCall {
    /// `initTransactions()`.
    Init,
    /// `beginTransaction()`.
    Begin,
    /// `commitTransaction()`.
    Commit,
    /// `abortTransaction()`.
    Abort,
    /// `sendOffsetsToTransaction(offsets, groupMetadata)`.
    SendOffsets,
}

impl TxnCall {
    /// The Java method's name.
    pub fn name(self) -> &'static str {
        match self {
            TxnCall::Init => "initTransactions",
            TxnCall::Begin => "beginTransaction",
            TxnCall::Commit => "commitTransaction",
            TxnCall::Abort => "abortTransaction",
            TxnCall::SendOffsets => "sendOffsetsToTransaction",
        }
    }
}

/// The producer's transaction state (`TransactionManager`'s fields).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxnClient {
    /// The `transactional.id`.
    pub transactional_id: String,
    /// Where it stands.
    pub state: ClientTxnState,
    /// The coordinator, once found.
    pub coordinator: Option<BrokerId>,
    /// The FindCoordinator in flight, if any.
    pub find_in_flight: Option<i32>,
    /// The AddPartitionsToTxn in flight, if any.
    pub add_in_flight: Option<i32>,
    /// The EndTxn in flight, if any.
    pub end_in_flight: Option<i32>,
    /// Partitions in the transaction (AddPartitionsToTxn answered).
    pub added: SortedSet<TopicPartition>,
    /// Partitions in the AddPartitionsToTxn in flight.
    pub adding: SortedSet<TopicPartition>,
    /// No transactional request before this time (a backoff).
    pub retry_at: u64,
    /// `sendOffsetsToTransaction` calls not yet answered, oldest first.
    pub offsets: Vec<TxnOffsets>,
    /// The request of the first of them in flight, if any.
    pub offsets_in_flight: Option<(i32, OffsetsStep)>,
    /// The last transactional request sent, and to which broker (its
    /// connection closing fails it at once).
    pub sent_to: Option<(i32, BrokerId)>,
    /// KIP-360: a batch failed inside the transaction, so once the abort
    /// completes the producer bumps its epoch with InitProducerId before
    /// the next transaction (`TransactionManager.epochBumpRequired`): a
    /// write of the old epoch still in the network is then fenced.
    pub epoch_bump_required: bool,
}

/// One `sendOffsetsToTransaction` call: the consumer's positions and its
/// `ConsumerGroupMetadata`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxnOffsets {
    /// `group.id`.
    pub group_id: String,
    /// The consumer's generation.
    pub generation_id: i32,
    /// The consumer's member id.
    pub member_id: String,
    /// The offsets: the next record to read, per partition.
    pub offsets: Vec<(TopicPartition, i64)>,
    /// AddOffsetsToTxn answered: the group's partition is in the transaction.
    pub added: bool,
    /// The group coordinator, once found.
    pub coordinator: Option<BrokerId>,
}

/// Which request of `sendOffsetsToTransaction` is in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OffsetsStep {
    /// AddOffsetsToTxn, to the transaction coordinator.
    Add,
    /// FindCoordinator for the group.
    Find,
    /// TxnOffsetCommit, to the group coordinator.
    Commit,
}

impl TxnClient {
    /// A transactional producer before `initTransactions()`.
    pub fn new(transactional_id: &str) -> TxnClient {
        TxnClient {
            transactional_id: transactional_id.to_string(),
            state: ClientTxnState::Uninitialized,
            coordinator: None,
            find_in_flight: None,
            add_in_flight: None,
            end_in_flight: None,
            added: SortedSet::new(),
            adding: SortedSet::new(),
            retry_at: 0,
            offsets: Vec::new(),
            offsets_in_flight: None,
            sent_to: None,
            epoch_bump_required: false,
        }
    }

    fn busy(&self) -> bool {
        self.find_in_flight.is_some()
            || self.add_in_flight.is_some()
            || self.end_in_flight.is_some()
            || self.offsets_in_flight.is_some()
    }
}

impl Producer {
    /// Why the application's transaction call `call` throws now, in the
    /// client's words (`TransactionManager`'s state checks), or `None`.
    pub fn txn_refusal(&self, call: TxnCall) -> Option<String> {
        let Some(t) = &self.txn else {
            return Some(
                "IllegalStateException: Transactional method invoked on a non-transactional producer."
                    .into(),
            );
        };
        use ClientTxnState::*;
        let invalid = |to: ClientTxnState| {
            Some(format!(
                "IllegalStateException: TransactionalId {}: Invalid transition attempted from state {} to state {}",
                t.transactional_id,
                t.state.name(),
                to.name()
            ))
        };
        match (call, t.state) {
            (TxnCall::Init, Uninitialized)
            | (TxnCall::Begin, Ready)
            | (TxnCall::Commit | TxnCall::SendOffsets, InTransaction)
            | (TxnCall::Abort, InTransaction | AbortableError) => None,
            (TxnCall::Commit | TxnCall::SendOffsets, AbortableError | FatalError) => Some(
                "KafkaException: Cannot execute transactional method because we are in an error state"
                    .into(),
            ),
            (TxnCall::Init, _) => invalid(Initializing),
            (TxnCall::Begin, _) => invalid(InTransaction),
            (TxnCall::Commit, _) => invalid(CommittingTransaction),
            (TxnCall::Abort, _) => invalid(AbortingTransaction),
            (TxnCall::SendOffsets, s) => Some(format!(
                "IllegalStateException: Cannot send offsets if a transaction is not in progress (currentState= {})",
                s.name()
            )),
        }
    }

    /// Why `send()` throws now for a transactional producer
    /// (`failIfNotReadyForSend`), or `None`.
    pub fn send_refusal(&self) -> Option<String> {
        let t = self.txn.as_ref()?;
        match t.state {
            ClientTxnState::InTransaction => None,
            ClientTxnState::AbortableError | ClientTxnState::FatalError => Some(
                "KafkaException: Cannot perform send because at least one previous transactional or idempotent request has failed with errors."
                    .into(),
            ),
            ClientTxnState::Uninitialized | ClientTxnState::Initializing => Some(
                "IllegalStateException: Cannot perform a 'send' before completing a call to initTransactions when transactions are enabled."
                    .into(),
            ),
            s => Some(format!(
                "IllegalStateException: Cannot call send in state {}",
                s.name()
            )),
        }
    }
}

impl ProducerCx<'_> {
    fn txn(&self) -> Option<&TxnClient> {
        self.me().txn.as_ref()
    }
    fn txn_mut(&mut self) -> &mut TxnClient {
        self.me_mut()
            .txn
            .as_mut()
            .expect("a transactional producer")
    }

    /// Moves the transaction state, with its event.
    fn txn_to(&mut self, to: ClientTxnState, error: Option<ErrorCode>) -> Step {
        let p = self.id;
        let Some(t) = self.txn() else { return Ok(()) };
        let (from, id) = (t.state, t.transactional_id.clone());
        if from == to {
            return Ok(());
        }
        self.k.gate()?;
        self.txn_mut().state = to;
        if self.me().pipeline_consumer.is_some() {
            use crate::kernel::{PipelineCall, PipelineOutcome};
            let outcome = match (from, to) {
                (ClientTxnState::CommittingTransaction, ClientTxnState::Ready) => {
                    Some(PipelineOutcome::Committed)
                }
                (_, ClientTxnState::AbortableError) => Some(PipelineOutcome::Abortable),
                (_, ClientTxnState::FatalError) => Some(PipelineOutcome::Fatal),
                _ => None,
            };
            if let Some(outcome) = outcome {
                self.k.pipeline_calls.push(PipelineCall::Ended {
                    producer: p,
                    outcome,
                });
            }
        }
        self.k.emit(
            vec![pnode(p)],
            EventKind::ProducerTxnStateChanged {
                producer: p,
                transactional_id: id,
                from,
                to,
                error,
            },
        );
        Ok(())
    }

    /// One of the application's transaction calls, already found legal
    /// by [`Producer::txn_refusal`].
    pub(crate) fn txn_call(&mut self, call: TxnCall) -> Step {
        use ClientTxnState::*;
        match call {
            TxnCall::Init => self.txn_to(Initializing, None)?,
            TxnCall::Begin => self.txn_to(InTransaction, None)?,
            TxnCall::Commit => self.txn_to(CommittingTransaction, None)?,
            TxnCall::Abort => {
                self.txn_to(AbortingTransaction, None)?;
                self.txn_abort_unsent()?;
                self.k.gate()?;
                self.txn_mut().offsets.clear();
            }
            TxnCall::SendOffsets => {}
        }
        self.progress()
    }

    /// `sendOffsetsToTransaction(offsets, groupMetadata)`, already found
    /// legal by [`Producer::txn_refusal`].
    pub(crate) fn txn_send_offsets(
        &mut self,
        group_id: String,
        generation_id: i32,
        member_id: String,
        offsets: Vec<(TopicPartition, i64)>,
    ) -> Step {
        self.k.gate()?;
        self.txn_mut().offsets.push(TxnOffsets {
            group_id,
            generation_id,
            member_id,
            offsets,
            added: false,
            coordinator: None,
        });
        self.progress()
    }

    /// `abortUndrainedBatches`: batches not yet sent fail; those in flight
    /// are still answered.
    fn txn_abort_unsent(&mut self) -> Step {
        self.k.gate()?;
        let queued: Vec<ProducerBatch> = std::mem::take(&mut self.me_mut().accumulator)
            .into_iter()
            .flat_map(|(_, dq)| dq)
            .collect();
        for b in queued {
            self.fail_batch(
                b,
                "TransactionAbortedException: Failing batch since transaction was aborted".into(),
            )?;
        }
        Ok(())
    }

    /// Whether the Sender may drain a batch of `tp` (its partition is in the transaction).
    pub(super) fn txn_may_drain(&self, tp: &TopicPartition) -> bool {
        self.txn().is_none_or(|t| t.added.contains(tp))
    }

    /// The transactional request the Sender sends next, if any
    /// (`Sender.maybeSendAndPollTransactionalRequest`).
    pub(super) fn txn_pump(&mut self) -> Step {
        let p = self.id;
        let Some(t) = self.txn().cloned() else {
            return Ok(());
        };
        let now = self.k.now;
        if t.busy() || self.me().init_pid_in_flight.is_some() {
            return Ok(());
        }
        if t.retry_at > now {
            self.k.gate()?;
            if self.me_mut().wakes.insert(t.retry_at) {
                self.k
                    .set_timer(pnode(p), t.retry_at, Timer::ProducerWake)?;
            }
            return Ok(());
        }
        use ClientTxnState::*;
        let new_parts: Vec<TopicPartition> =
            if matches!(t.state, InTransaction | CommittingTransaction) {
                self.me()
                    .accumulator
                    .iter()
                    .filter(|(tp, dq)| !dq.is_empty() && !t.added.contains(tp))
                    .map(|(tp, _)| tp.clone())
                    .collect()
            } else {
                Vec::new()
            };
        let idle = self.me().accumulator.values().all(|d| d.is_empty())
            && self.me().blocked.is_empty()
            && self.me().requests_in_flight() == 0;
        let offsets = matches!(t.state, InTransaction | CommittingTransaction)
            && !t.offsets.is_empty()
            && new_parts.is_empty();
        if offsets && t.coordinator.is_some() {
            return self.txn_offsets_next();
        }
        let ending = matches!(t.state, CommittingTransaction | AbortingTransaction)
            && idle
            && t.offsets.is_empty();
        let wants = t.state == Initializing || !new_parts.is_empty() || ending || offsets;
        if !wants {
            return Ok(());
        }
        if ending && new_parts.is_empty() && t.added.is_empty() {
            // Nothing was ever added: the transaction ends on the client.
            return self.txn_to(Ready, None);
        }
        let Some(coordinator) = t.coordinator else {
            return self.txn_find_coordinator();
        };
        let to = NodeId::Broker(coordinator);
        let cid = self.correlation();
        let (pid, epoch) = (self.me().producer_id, self.me().producer_epoch);
        let id = t.transactional_id.clone();
        let msg = if t.state == Initializing {
            self.k.gate()?;
            self.me_mut().init_pid_in_flight = Some(cid);
            Message::InitProducerId {
                correlation_id: cid,
                transactional_id: Some(id),
                transaction_timeout_ms: self.me().config.transaction_timeout_ms as i32,
            }
        } else if !new_parts.is_empty() {
            self.k.gate()?;
            let tx = self.txn_mut();
            tx.add_in_flight = Some(cid);
            tx.adding = new_parts.iter().cloned().collect();
            Message::AddPartitionsToTxn {
                correlation_id: cid,
                transactional_id: id,
                producer_id: pid,
                producer_epoch: epoch,
                partitions: new_parts,
                verify_only: false,
            }
        } else {
            self.k.gate()?;
            self.txn_mut().end_in_flight = Some(cid);
            Message::EndTxn {
                correlation_id: cid,
                transactional_id: id,
                producer_id: pid,
                producer_epoch: epoch,
                committed: t.state == CommittingTransaction,
            }
        };
        self.txn_send(to, cid, msg)
    }

    /// The next request of the oldest `sendOffsetsToTransaction`:
    /// AddOffsetsToTxn, then FindCoordinator for the group, then TxnOffsetCommit.
    fn txn_offsets_next(&mut self) -> Step {
        let t = self.txn().cloned().expect("transactional");
        let o = t.offsets[0].clone();
        let (pid, epoch) = (self.me().producer_id, self.me().producer_epoch);
        let (to, step) = match (o.added, o.coordinator) {
            (false, _) => (t.coordinator.expect("checked"), OffsetsStep::Add),
            (true, None) => {
                let Some(to) = self.me().metadata.least_loaded(&self.k.sc, self.k.now) else {
                    return Ok(());
                };
                (to, OffsetsStep::Find)
            }
            (true, Some(c)) => (c, OffsetsStep::Commit),
        };
        let cid = self.correlation();
        let msg = match step {
            OffsetsStep::Add => Message::AddOffsetsToTxn {
                correlation_id: cid,
                transactional_id: t.transactional_id.clone(),
                producer_id: pid,
                producer_epoch: epoch,
                group_id: o.group_id.clone(),
            },
            OffsetsStep::Find => Message::FindCoordinator {
                correlation_id: cid,
                key: o.group_id.clone(),
                key_type: crate::msg::CoordinatorType::Group,
            },
            OffsetsStep::Commit => Message::TxnOffsetCommit(crate::msg::TxnOffsetCommitRequest {
                correlation_id: cid,
                transactional_id: t.transactional_id.clone(),
                group_id: o.group_id.clone(),
                producer_id: pid,
                producer_epoch: epoch,
                generation_id: o.generation_id,
                member_id: o.member_id.clone(),
                offsets: o.offsets.clone(),
            }),
        };
        self.k.gate()?;
        self.txn_mut().offsets_in_flight = Some((cid, step));
        self.txn_send(NodeId::Broker(to), cid, msg)
    }

    /// The answer to the offsets request `step` (or its loss: `error`).
    fn txn_offsets_answered(&mut self, step: OffsetsStep, error: Option<ErrorCode>) -> Step {
        use ClientTxnState::*;
        self.k.gate()?;
        self.txn_mut().offsets_in_flight = None;
        if self.txn_mut().offsets.is_empty() {
            return Ok(()); // aborted meanwhile
        }
        let backoff = self.me().config.retry_backoff_ms;
        let now = self.k.now;
        match (step, error) {
            (OffsetsStep::Add, None) => self.txn_mut().offsets[0].added = true,
            (OffsetsStep::Add, Some(e)) => return self.txn_request_failed(e),
            (OffsetsStep::Find, None) => {}
            (OffsetsStep::Commit, None) => {
                self.txn_mut().offsets.remove(0);
            }
            (
                OffsetsStep::Find | OffsetsStep::Commit,
                Some(
                    ErrorCode::NotCoordinator
                    | ErrorCode::CoordinatorNotAvailable
                    | ErrorCode::RequestTimedOut
                    | ErrorCode::NetworkException,
                ),
            ) => {
                let t = self.txn_mut();
                t.offsets[0].coordinator = None;
                t.retry_at = now + backoff;
            }
            (_, Some(e)) if e.is_retriable() => self.txn_mut().retry_at = now + backoff,
            (_, Some(ErrorCode::ProducerFenced | ErrorCode::InvalidProducerEpoch)) => {
                return self.txn_fatal(ErrorCode::ProducerFenced);
            }
            (
                _,
                Some(
                    e @ (ErrorCode::UnknownMemberId
                    | ErrorCode::IllegalGeneration
                    | ErrorCode::FencedInstanceId),
                ),
            ) => {
                // CommitFailedException: the consumer's group moved on.
                self.txn_mut().offsets.clear();
                return self.txn_to(AbortableError, Some(e));
            }
            (_, Some(e)) => return self.txn_fatal(e),
        }
        Ok(())
    }

    /// Sends a transactional request and arms its `request.timeout.ms`.
    fn txn_send(&mut self, to: NodeId, cid: i32, msg: Message) -> Step {
        let p = self.id;
        if let NodeId::Broker(b) = to {
            self.k.gate()?;
            self.txn_mut().sent_to = Some((cid, b));
        }
        self.k.send(pnode(p), to, msg)?;
        let timeout = self.k.now + self.me().config.request_timeout_ms;
        self.k.set_timer(
            pnode(p),
            timeout,
            Timer::RequestTimeout {
                correlation_id: cid,
            },
        )
    }

    fn txn_find_coordinator(&mut self) -> Step {
        let Some(to) = self.me().metadata.least_loaded(&self.k.sc, self.k.now) else {
            return Ok(());
        };
        let cid = self.correlation();
        self.k.gate()?;
        let key = {
            let t = self.txn_mut();
            t.find_in_flight = Some(cid);
            t.transactional_id.clone()
        };
        self.txn_send(
            NodeId::Broker(to),
            cid,
            Message::FindCoordinator {
                correlation_id: cid,
                key,
                key_type: crate::msg::CoordinatorType::Transaction,
            },
        )
    }

    /// A transactional request failed with `error` (an answer, a timeout or
    /// a lost connection): what the client does next.
    fn txn_request_failed(&mut self, error: ErrorCode) -> Step {
        use ClientTxnState::*;
        let backoff = self.me().config.retry_backoff_ms;
        self.k.gate()?;
        let now = self.k.now;
        let state = {
            let t = self.txn_mut();
            t.adding.clear();
            match error {
                ErrorCode::NotCoordinator
                | ErrorCode::CoordinatorNotAvailable
                | ErrorCode::NetworkException
                | ErrorCode::RequestTimedOut => {
                    t.coordinator = None;
                    t.retry_at = now + backoff;
                }
                _ => t.retry_at = now + backoff,
            }
            t.state
        };
        match error {
            ErrorCode::ProducerFenced
            | ErrorCode::InvalidProducerEpoch
            | ErrorCode::InvalidTxnState
            | ErrorCode::TransactionCoordinatorFenced
            | ErrorCode::InvalidTransactionTimeout => self.txn_fatal(error),
            ErrorCode::InvalidProducerIdMapping if state != Initializing => {
                self.txn_to(AbortableError, Some(error))
            }
            _ => Ok(()),
        }
    }

    /// A fatal error: the producer can only be closed; its batches fail.
    fn txn_fatal(&mut self, error: ErrorCode) -> Step {
        self.txn_to(ClientTxnState::FatalError, Some(error))?;
        self.k.gate()?;
        let queued: Vec<ProducerBatch> = std::mem::take(&mut self.me_mut().accumulator)
            .into_iter()
            .flat_map(|(_, dq)| dq)
            .collect();
        let why = match error {
            ErrorCode::ProducerFenced | ErrorCode::InvalidProducerEpoch => format!(
                "ProducerFencedException: There is a newer producer with the same transactionalId which fences the current one ({})",
                error.name_str()
            ),
            e => format!("KafkaException: {}", e.name_str()),
        };
        for b in queued {
            self.fail_batch(b, why.clone())?;
        }
        Ok(())
    }

    /// A produce in the transaction failed for good: the transaction must be
    /// aborted (or the producer was fenced).
    pub(super) fn txn_on_batch_failed(&mut self, error: ErrorCode) -> Step {
        let Some(t) = self.txn() else { return Ok(()) };
        match (error, t.state) {
            (_, ClientTxnState::FatalError) | (_, ClientTxnState::AbortingTransaction) => Ok(()),
            (ErrorCode::ProducerFenced | ErrorCode::InvalidProducerEpoch, _) => {
                self.txn_fatal(ErrorCode::ProducerFenced)
            }
            (_, ClientTxnState::InTransaction | ClientTxnState::CommittingTransaction) => {
                // `maybeTransitionToErrorState`: the epoch is bumped after
                // the abort unless the transaction was already completing.
                if t.state == ClientTxnState::InTransaction {
                    self.k.gate()?;
                    self.txn_mut().epoch_bump_required = true;
                }
                self.txn_to(ClientTxnState::AbortableError, Some(error))
            }
            _ => Ok(()),
        }
    }

    /// A response to a transactional request; `Ok(false)` if it is not one.
    pub(super) fn txn_on_message(&mut self, from: NodeId, msg: &Message) -> Step<bool> {
        let p = self.id;
        let Some(t) = self.txn().cloned() else {
            return Ok(false);
        };
        match msg {
            Message::FindCoordinatorResponse {
                correlation_id,
                error,
                node_id,
                partition,
            } if t.find_in_flight == Some(*correlation_id) => {
                self.k.gate()?;
                self.txn_mut().find_in_flight = None;
                match error {
                    None if *node_id >= 0 => {
                        self.txn_mut().coordinator = Some(BrokerId(*node_id));
                        self.k.emit(
                            vec![pnode(p), from],
                            EventKind::TxnCoordinatorFound {
                                producer: p,
                                transactional_id: t.transactional_id.clone(),
                                broker: BrokerId(*node_id),
                                partition: *partition,
                            },
                        );
                    }
                    _ => {
                        let at = self.k.now + self.me().config.retry_backoff_ms;
                        self.txn_mut().retry_at = at;
                    }
                }
            }
            Message::FindCoordinatorResponse {
                correlation_id,
                error,
                node_id,
                ..
            } if t.offsets_in_flight.map(|x| x.0) == Some(*correlation_id) => {
                let found = (*node_id >= 0).then_some(BrokerId(*node_id));
                match (error, found) {
                    (None, Some(c)) => {
                        self.k.gate()?;
                        if let Some(o) = self.txn_mut().offsets.first_mut() {
                            o.coordinator = Some(c);
                        }
                        self.txn_offsets_answered(OffsetsStep::Find, None)?;
                    }
                    (e, _) => self.txn_offsets_answered(
                        OffsetsStep::Find,
                        Some(e.unwrap_or(ErrorCode::CoordinatorNotAvailable)),
                    )?,
                }
            }
            Message::AddOffsetsToTxnResponse {
                correlation_id,
                error,
            } if t.offsets_in_flight == Some((*correlation_id, OffsetsStep::Add)) => {
                self.txn_offsets_answered(OffsetsStep::Add, *error)?;
            }
            Message::TxnOffsetCommitResponse {
                correlation_id,
                partitions,
            } if t.offsets_in_flight == Some((*correlation_id, OffsetsStep::Commit)) => {
                let e = partitions.iter().find_map(|(_, e)| *e);
                self.txn_offsets_answered(OffsetsStep::Commit, e)?;
            }
            Message::InitProducerIdResponse {
                correlation_id,
                error,
                producer_id,
                producer_epoch,
            } if self.me().init_pid_in_flight == Some(*correlation_id) => {
                self.k.gate()?;
                self.me_mut().init_pid_in_flight = None;
                match error {
                    None => {
                        {
                            let pr = self.me_mut();
                            pr.producer_id = *producer_id;
                            pr.producer_epoch = *producer_epoch;
                            // A new epoch numbers every partition from 0 again.
                            pr.next_sequence.clear();
                            pr.unacked.clear();
                        }
                        self.k.emit(
                            vec![pnode(p)],
                            EventKind::ProducerIdAssigned {
                                producer: p,
                                producer_id: *producer_id,
                                producer_epoch: *producer_epoch,
                            },
                        );
                        self.txn_to(ClientTxnState::Ready, None)?;
                    }
                    Some(e) => self.txn_request_failed(*e)?,
                }
            }
            Message::AddPartitionsToTxnResponse {
                correlation_id,
                results,
            } if t.add_in_flight == Some(*correlation_id) => {
                self.k.gate()?;
                self.txn_mut().add_in_flight = None;
                match results.iter().find_map(|(_, e)| *e) {
                    None => {
                        let tx = self.txn_mut();
                        let adding = std::mem::take(&mut tx.adding);
                        tx.added.extend(adding);
                    }
                    Some(e) => self.txn_request_failed(e)?,
                }
            }
            Message::EndTxnResponse {
                correlation_id,
                error,
            } if t.end_in_flight == Some(*correlation_id) => {
                self.k.gate()?;
                self.txn_mut().end_in_flight = None;
                match error {
                    None => {
                        // `completeTransaction`: with an epoch bump
                        // required, to INITIALIZING (InitProducerId with
                        // the current id and epoch), else READY.
                        let bump = {
                            let tx = self.txn_mut();
                            tx.added.clear();
                            std::mem::take(&mut tx.epoch_bump_required)
                        };
                        let next = if bump {
                            ClientTxnState::Initializing
                        } else {
                            ClientTxnState::Ready
                        };
                        self.txn_to(next, None)?;
                    }
                    Some(e) => self.txn_request_failed(*e)?,
                }
            }
            _ => return Ok(false),
        }
        self.progress()?;
        Ok(true)
    }

    /// A transactional request timed out or its connection broke; `Ok(false)`
    /// if `cid` is not one.
    pub(super) fn txn_request_lost(&mut self, cid: i32, error: ErrorCode) -> Step<bool> {
        let Some(t) = self.txn().cloned() else {
            return Ok(false);
        };
        if let Some((_, step)) = t.offsets_in_flight.filter(|x| x.0 == cid) {
            self.txn_offsets_answered(step, Some(error))?;
            self.progress()?;
            return Ok(true);
        }
        let ours = [t.find_in_flight, t.add_in_flight, t.end_in_flight].contains(&Some(cid))
            || self.me().init_pid_in_flight == Some(cid);
        if !ours {
            return Ok(false);
        }
        self.k.gate()?;
        {
            let pr = self.me_mut();
            if pr.init_pid_in_flight == Some(cid) {
                pr.init_pid_in_flight = None;
            }
            let tx = pr.txn.as_mut().expect("checked");
            for f in [
                &mut tx.find_in_flight,
                &mut tx.add_in_flight,
                &mut tx.end_in_flight,
            ] {
                if *f == Some(cid) {
                    *f = None;
                }
            }
        }
        self.txn_request_failed(error)?;
        self.progress()?;
        Ok(true)
    }
}
