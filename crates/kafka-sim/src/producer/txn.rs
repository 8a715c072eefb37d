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
//! Simplified: a `send()` in the wrong state fails before the interceptors
//! (Kafka checks after partitioning); the application's calls do not block
//! (a lesson leaves time for `commitTransaction()` to finish); no
//! `sendOffsetsToTransaction` yet; no KIP-890 (epoch bump per transaction,
//! broker-side partition verification).

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
}

impl TxnCall {
    /// The Java method's name.
    pub fn name(self) -> &'static str {
        match self {
            TxnCall::Init => "initTransactions",
            TxnCall::Begin => "beginTransaction",
            TxnCall::Commit => "commitTransaction",
            TxnCall::Abort => "abortTransaction",
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
        }
    }

    fn busy(&self) -> bool {
        self.find_in_flight.is_some()
            || self.add_in_flight.is_some()
            || self.end_in_flight.is_some()
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
            | (TxnCall::Commit, InTransaction)
            | (TxnCall::Abort, InTransaction | AbortableError) => None,
            (TxnCall::Commit, AbortableError | FatalError) => Some(
                "KafkaException: Cannot execute transactional method because we are in an error state"
                    .into(),
            ),
            (TxnCall::Init, _) => invalid(Initializing),
            (TxnCall::Begin, _) => invalid(InTransaction),
            (TxnCall::Commit, _) => invalid(CommittingTransaction),
            (TxnCall::Abort, _) => invalid(AbortingTransaction),
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
            }
        }
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
        let ending = matches!(t.state, CommittingTransaction | AbortingTransaction) && idle;
        let wants = t.state == Initializing || !new_parts.is_empty() || ending;
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

    /// Sends a transactional request and arms its `request.timeout.ms`.
    fn txn_send(&mut self, to: NodeId, cid: i32, msg: Message) -> Step {
        let p = self.id;
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
                        self.txn_mut().added.clear();
                        self.txn_to(ClientTxnState::Ready, None)?;
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
