//! The transaction coordinator on a broker (`TransactionCoordinator`,
//! Kafka 3.9 `kafka/coordinator/transaction/TransactionCoordinator.scala`):
//! FindCoordinator for a transactional id, InitProducerId with a
//! transactional id (`handleInitProducerId`, `prepareInitProducerIdTransit`),
//! AddPartitionsToTxn (`handleAddPartitionsToTransaction`, the client's
//! path of versions ≤ 3), EndTxn (`handleEndTransaction` / `endTransaction`)
//! and the abort of transactions past `transaction.timeout.ms`
//! (`abortTimedOutTransactions`). Each answer follows the order of Kafka's
//! checks, so a learner sees the same error a real client gets.
//!
//! Every transition is written to `__transaction_state` first
//! (`state_manager.rs`) and applied when the write is replicated; the
//! markers are `markers.rs`.

use super::metadata::{TxnMetadata, TxnState};
use super::*;
use crate::broker::BrokerCx;
use crate::collections::SortedSet;
use crate::event::EventKind;
use crate::ids::{NodeId, TopicPartition};
use crate::kernel::{Step, Timer};
use crate::msg::{ErrorCode, Message};

pub(super) fn bnode(b: crate::ids::BrokerId) -> NodeId {
    NodeId::Broker(b)
}

impl BrokerCx<'_> {
    pub(crate) fn txns(&self) -> &Txns {
        &self.me().txns
    }
    pub(crate) fn txns_mut(&mut self) -> &mut Txns {
        &mut self.me_mut().txns
    }

    /// The `__transaction_state` partition of a transactional id.
    pub(crate) fn txn_partition(&self, transactional_id: &str) -> i32 {
        partition_for(
            transactional_id,
            self.k
                .sc
                .cluster
                .config
                .transaction_state_log_num_partitions,
        )
    }

    /// `TransactionStateManager.getTransactionState`'s first checks: this
    /// broker leads the id's partition and has loaded it (its coordinator
    /// epoch), or the error a client gets.
    pub(super) fn txn_owner(&self, transactional_id: &str) -> Result<i32, ErrorCode> {
        let p = self.txn_partition(transactional_id);
        let tp = TopicPartition::new(TRANSACTION_STATE_TOPIC, p);
        let leads = self.me().partitions.get(&tp).is_some_and(|x| x.is_leader);
        match self.txns().loaded.get(&p) {
            Some(epoch) if leads => Ok(*epoch),
            _ if leads => Err(ErrorCode::CoordinatorLoadInProgress),
            _ => Err(ErrorCode::NotCoordinator),
        }
    }

    /// FindCoordinator with key type TRANSACTION: the leader of the id's
    /// `__transaction_state` partition, creating the topic on first use.
    pub(crate) fn txn_find(&mut self, from: NodeId, cid: i32, transactional_id: &str) -> Step {
        let p = self.txn_partition(transactional_id);
        let exists = self
            .zk
            .get(&format!("/brokers/topics/{TRANSACTION_STATE_TOPIC}"))
            .is_some();
        if !exists {
            self.create_transaction_state_topic()?;
        }
        self.answer_find_coordinator(from, cid, TRANSACTION_STATE_TOPIC, p)
    }

    /// `AutoTopicCreationManager` for `__transaction_state`: the partitions
    /// and replicas the broker settings name, with the topic configs of
    /// `TransactionStateManager.transactionTopicConfigs` (compacted,
    /// `min.insync.replicas` = `transaction.state.log.min.isr`, its own
    /// segment size, no unclean election); refused while too few brokers live.
    fn create_transaction_state_topic(&mut self) -> Step {
        let b = self.id;
        let cfg = self.k.sc.cluster.config.clone();
        let alive = self.zk.live_brokers().len() as i32;
        if alive < cfg.transaction_state_log_replication_factor {
            return self
                .k
                .record(
                    vec![bnode(b)],
                    EventKind::TopicCreationFailed {
                        topic: TRANSACTION_STATE_TOPIC.into(),
                        error: format!(
                            "Number of alive brokers '{alive}' does not meet the required replication factor '{}' for the transactions state topic (configured via 'transaction.state.log.replication.factor'). This error can be ignored if the cluster is starting up and not all brokers are up yet.",
                            cfg.transaction_state_log_replication_factor
                        ),
                    },
                )
                .map(|_| ());
        }
        let config = crate::config::TopicConfigOverrides {
            cleanup_policy: Some(crate::config::CleanupPolicy::COMPACT),
            segment_bytes: Some(cfg.transaction_state_log_segment_bytes),
            min_insync_replicas: Some(cfg.transaction_state_log_min_isr),
            unclean_leader_election_enable: Some(false),
            ..Default::default()
        };
        let spec = crate::scenario::TopicSpec {
            name: TRANSACTION_STATE_TOPIC.into(),
            partitions: Some(cfg.transaction_state_log_num_partitions),
            replication_factor: Some(cfg.transaction_state_log_replication_factor),
            replica_assignment: None,
            fixed_start_index: None,
            config,
        };
        self.zkc().admin_create_topic_by(bnode(b), &spec)
    }

    /// An answer to a request the coordinator refuses (the error is in it,
    /// and the message's caption shows it).
    fn txn_refuse(&mut self, from: NodeId, reply: Message) -> Step {
        let b = self.id;
        self.k.send(bnode(b), from, reply).map(|_| ())
    }

    /// InitProducerId with a transactional id (`handleInitProducerId`).
    pub(crate) fn txn_init_producer_id(
        &mut self,
        from: NodeId,
        cid: i32,
        transactional_id: &str,
        timeout_ms: i32,
    ) -> Step {
        let answer = |error: Option<ErrorCode>| Message::InitProducerIdResponse {
            correlation_id: cid,
            error,
            producer_id: -1,
            producer_epoch: -1,
        };
        let max = self.k.sc.cluster.config.transaction_max_timeout_ms;
        if timeout_ms <= 0 || timeout_ms as u64 > max {
            let e = ErrorCode::InvalidTransactionTimeout;
            return self.txn_refuse(from, answer(Some(e)));
        }
        let coordinator_epoch = match self.txn_owner(transactional_id) {
            Ok(e) => e,
            Err(e) => return self.txn_refuse(from, answer(Some(e))),
        };
        let now = self.k.wall_ms();
        if !self.txns().metas.contains_key(transactional_id) {
            let pid = self.next_producer_id()?;
            self.k.gate()?;
            self.txns_mut().metas.insert(
                transactional_id.to_string(),
                TxnMetadata::new(transactional_id, pid, timeout_ms, now),
            );
        }
        let meta = self.txns().metas[transactional_id].clone();
        // prepareInitProducerIdTransit
        if meta.pending.is_some()
            || matches!(meta.state, TxnState::PrepareAbort | TxnState::PrepareCommit)
        {
            let e = ErrorCode::ConcurrentTransactions;
            return self.txn_refuse(from, answer(Some(e)));
        }
        let mut m = meta.clone();
        let (transit, reply, cause) = match meta.state {
            TxnState::Ongoing => {
                // Abort the open transaction first (fencing its producer);
                // the client is told CONCURRENT_TRANSACTIONS and retries.
                let t = m.prepare_fenced_abort(now).map_err(|_| ());
                (t, TxnReply::FencedInit { from, cid }, TxnCause::Fence)
            }
            _ => {
                let t = if super::metadata::is_epoch_exhausted(meta.producer_epoch) {
                    let pid = self.next_producer_id()?;
                    m.prepare_producer_id_rotation(pid, timeout_ms, now, false)
                        .map_err(|_| ())
                } else {
                    match m.prepare_increment_epoch(timeout_ms, None, now) {
                        Ok(Ok(t)) => Ok(t),
                        _ => Err(()),
                    }
                };
                (t, TxnReply::InitPid { from, cid }, TxnCause::Client)
            }
        };
        let Ok(transit) = transit else {
            let e = ErrorCode::ConcurrentTransactions;
            return self.txn_refuse(from, answer(Some(e)));
        };
        self.txn_store(
            m,
            transactional_id,
            transit,
            coordinator_epoch,
            reply,
            cause,
        )
    }

    /// The producer id and epoch checks shared by AddPartitionsToTxn and
    /// EndTxn: the metadata, or the error to answer.
    fn txn_checked(
        &self,
        transactional_id: &str,
        producer_id: i64,
        producer_epoch: i16,
        from_client: bool,
    ) -> Result<(i32, TxnMetadata), ErrorCode> {
        let coordinator_epoch = self.txn_owner(transactional_id)?;
        let Some(m) = self.txns().metas.get(transactional_id) else {
            return Err(ErrorCode::InvalidProducerIdMapping);
        };
        if m.producer_id != producer_id {
            return Err(ErrorCode::InvalidProducerIdMapping);
        }
        if (from_client && producer_epoch != m.producer_epoch) || producer_epoch < m.producer_epoch
        {
            return Err(ErrorCode::ProducerFenced);
        }
        Ok((coordinator_epoch, m.clone()))
    }

    /// AddPartitionsToTxn (`handleAddPartitionsToTransaction`) and
    /// AddOffsetsToTxn (`offsets`: `KafkaApis.handleAddOffsetsToTxnRequest`
    /// adds the group's `__consumer_offsets` partition the same way).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn txn_add_partitions(
        &mut self,
        from: NodeId,
        cid: i32,
        transactional_id: &str,
        producer_id: i64,
        producer_epoch: i16,
        partitions: Vec<TopicPartition>,
        offsets: bool,
    ) -> Step {
        let answer = |error: Option<ErrorCode>, parts: &[TopicPartition]| {
            add_answer(cid, error, parts, offsets)
        };
        let (coordinator_epoch, meta) =
            match self.txn_checked(transactional_id, producer_id, producer_epoch, true) {
                Ok(x) => x,
                Err(e) => {
                    let r = answer(Some(e), &partitions);
                    return self.txn_refuse(from, r);
                }
            };
        if meta.pending.is_some()
            || matches!(meta.state, TxnState::PrepareCommit | TxnState::PrepareAbort)
        {
            let e = ErrorCode::ConcurrentTransactions;
            let r = answer(Some(e), &partitions);
            return self.txn_refuse(from, r);
        }
        let added: SortedSet<TopicPartition> = partitions.iter().cloned().collect();
        if meta.state == TxnState::Ongoing && added.is_subset(&meta.partitions) {
            let b = self.id;
            return self
                .k
                .send(bnode(b), from, answer(None, &partitions))
                .map(|_| ());
        }
        let mut m = meta;
        let now = self.k.wall_ms();
        let Ok(transit) = m.prepare_add_partitions(&added, now) else {
            let e = ErrorCode::InvalidTxnState;
            let r = answer(Some(e), &partitions);
            return self.txn_refuse(from, r);
        };
        self.txn_store(
            m,
            transactional_id,
            transit,
            coordinator_epoch,
            TxnReply::AddPartitions {
                from,
                cid,
                partitions,
                offsets,
            },
            TxnCause::Client,
        )
    }

    /// KIP-890 part 1, the coordinator's side: a partition leader asks
    /// whether `partitions` are in the producer's transaction
    /// (AddPartitionsToTxn with `VerifyOnly`,
    /// `TransactionCoordinator.handleVerifyPartitionsInTransaction`, Kafka
    /// 3.9 lines 341-386). Nothing is written. The errors of
    /// `getTransactionState` and of the producer id and epoch go to every
    /// partition; `PrepareCommit` / `PrepareAbort` answer
    /// `CONCURRENT_TRANSACTIONS`; otherwise each partition is fine if the
    /// transaction lists it and `TRANSACTION_ABORTABLE` if not, whatever the
    /// state (an `Empty` or `Complete…` transaction lists none). A pending
    /// transition is not checked, as in Kafka.
    pub(crate) fn txn_verify_partitions(
        &mut self,
        from: NodeId,
        cid: i32,
        transactional_id: &str,
        producer_id: i64,
        producer_epoch: i16,
        partitions: Vec<TopicPartition>,
    ) -> Step {
        let b = self.id;
        let all = |e: ErrorCode| partitions.iter().map(|tp| (tp.clone(), Some(e))).collect();
        let results: Vec<(TopicPartition, Option<ErrorCode>)> =
            match self.txn_checked(transactional_id, producer_id, producer_epoch, true) {
                Err(e) => all(e),
                Ok((_, m))
                    if matches!(m.state, TxnState::PrepareCommit | TxnState::PrepareAbort) =>
                {
                    all(ErrorCode::ConcurrentTransactions)
                }
                Ok((_, m)) => partitions
                    .iter()
                    .map(|tp| {
                        let listed = m.partitions.contains(tp);
                        (
                            tp.clone(),
                            (!listed).then_some(ErrorCode::TransactionAbortable),
                        )
                    })
                    .collect(),
            };
        self.k
            .send(
                bnode(b),
                from,
                Message::AddPartitionsToTxnResponse {
                    correlation_id: cid,
                    results,
                },
            )
            .map(|_| ())
    }

    /// EndTxn (`handleEndTransaction`): commit or abort.
    pub(crate) fn txn_end(
        &mut self,
        from: NodeId,
        cid: i32,
        transactional_id: &str,
        producer_id: i64,
        producer_epoch: i16,
        committed: bool,
    ) -> Step {
        let b = self.id;
        let answer = |error: Option<ErrorCode>| Message::EndTxnResponse {
            correlation_id: cid,
            error,
        };
        let (coordinator_epoch, meta) =
            match self.txn_checked(transactional_id, producer_id, producer_epoch, true) {
                Ok(x) => x,
                Err(e) => return self.txn_refuse(from, answer(Some(e))),
            };
        if meta.pending.is_some() {
            let e = ErrorCode::ConcurrentTransactions;
            return self.txn_refuse(from, answer(Some(e)));
        }
        use TxnState::*;
        let outcome: Result<(), ErrorCode> = match (meta.state, committed) {
            (Ongoing, _) => Ok(()),
            // A retry of an EndTxn that already completed.
            (CompleteCommit, true) | (CompleteAbort, false) => {
                return self.k.send(bnode(b), from, answer(None)).map(|_| ());
            }
            (PrepareCommit, true) | (PrepareAbort, false) => Err(ErrorCode::ConcurrentTransactions),
            _ => Err(ErrorCode::InvalidTxnState),
        };
        if let Err(e) = outcome {
            return self.txn_refuse(from, answer(Some(e)));
        }
        let mut m = meta;
        let target = if committed {
            PrepareCommit
        } else {
            PrepareAbort
        };
        let Ok(transit) = m.prepare_abort_or_commit(target, self.k.wall_ms()) else {
            let e = ErrorCode::InvalidTxnState;
            return self.txn_refuse(from, answer(Some(e)));
        };
        self.txn_store(
            m,
            transactional_id,
            transit,
            coordinator_epoch,
            TxnReply::EndTxn { from, cid },
            TxnCause::Client,
        )
    }

    /// `abortTimedOutTransactions`, every
    /// `transaction.abort.timed.out.transaction.cleanup.interval.ms`: an
    /// Ongoing transaction older than its `transaction.timeout.ms` is fenced
    /// and aborted.
    pub(crate) fn txn_abort_check(&mut self) -> Step {
        if !self.txns().abort_check_armed {
            return Ok(());
        }
        if self.txns().loaded.is_empty() {
            self.k.gate()?;
            self.txns_mut().abort_check_armed = false;
            return Ok(());
        }
        let now = self.k.wall_ms();
        let expired: Vec<String> = self
            .txns()
            .metas
            .values()
            .filter(|m| m.has_timed_out(now))
            .map(|m| m.transactional_id.clone())
            .collect();
        for id in expired {
            let Ok(coordinator_epoch) = self.txn_owner(&id) else {
                continue;
            };
            let mut m = self.txns().metas[&id].clone();
            let Ok(transit) = m.prepare_fenced_abort(now) else {
                continue;
            };
            self.txn_store(
                m,
                &id,
                transit,
                coordinator_epoch,
                TxnReply::None,
                TxnCause::Timeout,
            )?;
        }
        self.txn_next_abort_check()
    }

    /// Starts the periodic timeout check when the first partition loads.
    pub(super) fn txn_arm_abort_check(&mut self) -> Step {
        if self.txns().abort_check_armed {
            return Ok(());
        }
        self.k.gate()?;
        self.txns_mut().abort_check_armed = true;
        self.txn_next_abort_check()
    }

    /// The next timed-out-transaction check, one
    /// `transaction.abort.timed.out.transaction.cleanup.interval.ms` from now.
    fn txn_next_abort_check(&mut self) -> Step {
        let b = self.id;
        let every = self
            .k
            .sc
            .cluster
            .config
            .transaction_abort_timed_out_transaction_cleanup_interval_ms;
        self.k
            .set_timer(bnode(b), self.k.now + every, Timer::TxnAbortCheck)
    }

    /// Keeps `m` (its transition now pending) and writes the transition.
    fn txn_store(
        &mut self,
        m: TxnMetadata,
        id: &str,
        transit: super::metadata::TxnTransit,
        coordinator_epoch: i32,
        reply: TxnReply,
        cause: TxnCause,
    ) -> Step {
        self.k.gate()?;
        self.txns_mut().metas.insert(id.to_string(), m);
        self.txn_append(id, transit, coordinator_epoch, reply, cause)
    }

    /// The transition `t` of `id` is written: apply it, tell the learner,
    /// answer the client and start what comes next.
    pub(super) fn txn_applied(&mut self, w: TxnWrite) -> Step {
        let b = self.id;
        let id = w.transactional_id.as_str();
        let Some(mut m) = self.txns().metas.get(id).cloned() else {
            return Ok(());
        };
        let from_state = m.state;
        if m.complete_transition(&w.transit).is_err() {
            // Kafka throws here (the metadata moved under the write); the
            // client's request times out. Nothing is applied.
            return Ok(());
        }
        self.k.gate()?;
        self.txns_mut().metas.insert(id.to_string(), m.clone());
        self.k.emit(
            vec![bnode(b)],
            EventKind::TxnStateChanged {
                broker: b,
                transactional_id: id.to_string(),
                producer_id: m.producer_id,
                producer_epoch: m.producer_epoch,
                from: from_state,
                to: m.state,
                partitions: w.transit.partitions.iter().cloned().collect(),
                cause: w.cause,
            },
        );
        // A fence's InitProducerId is told to retry once the abort is written.
        let error = matches!(w.reply, TxnReply::FencedInit { .. })
            .then_some(ErrorCode::ConcurrentTransactions);
        if let Some((to, reply)) = answer(w.reply, error, Some(&m)) {
            self.k.send(bnode(b), to, reply)?;
        }
        if matches!(m.state, TxnState::PrepareCommit | TxnState::PrepareAbort) {
            self.txn_begin_markers(id, w.coordinator_epoch)?;
        }
        if matches!(m.state, TxnState::CompleteCommit | TxnState::CompleteAbort) {
            self.check_exactly_once(id)?;
        }
        Ok(())
    }

    /// The write of `w` failed with `error`: forget the pending transition
    /// and tell the client (`appendTransactionToLog`'s error mapping).
    pub(super) fn txn_write_failed(&mut self, w: TxnWrite, error: ErrorCode) -> Step {
        let id = w.transactional_id.as_str();
        let error = match error {
            ErrorCode::NotLeaderOrFollower => ErrorCode::NotCoordinator,
            ErrorCode::NotCoordinator => ErrorCode::NotCoordinator,
            _ => ErrorCode::CoordinatorNotAvailable,
        };
        // Only the coordinator epoch that made the write may undo its
        // pending transition: after a reload (a new leader epoch of the
        // partition) the metadata is the reloaded one, whose own write may be
        // in flight (`appendTransactionToLog`'s error branch, "the
        // coordinator epoch has changed", TransactionStateManager.scala
        // 705–725 in Kafka 3.9).
        let p = self.txn_partition(id);
        let same_epoch = self.txns().loaded.get(&p) == Some(&w.coordinator_epoch);
        if same_epoch && self.txns().metas.contains_key(id) {
            self.k.gate()?;
            let fence = w.cause == TxnCause::Fence || w.cause == TxnCause::Timeout;
            let m = self.txns_mut().metas.get_mut(id).expect("checked");
            m.abandon_pending();
            if fence {
                m.has_failed_epoch_fence = true;
            }
        }
        if w.reply == TxnReply::None
            && matches!(
                w.transit.state,
                TxnState::CompleteCommit | TxnState::CompleteAbort
            )
            && error != ErrorCode::NotCoordinator
        {
            // The markers are written: try the complete record again a
            // little later (`txnLogAppendRetryQueue`).
            let b = self.id;
            return self.k.set_timer(
                bnode(b),
                self.k.now + super::markers::MARKER_RETRY_MS,
                Timer::TxnMarkerRetry {
                    transactional_id: id.to_string(),
                },
            );
        }
        match answer(w.reply, Some(error), None) {
            Some((to, reply)) => self.txn_refuse(to, reply),
            None => Ok(()),
        }
    }
}

/// The answer a written (or failed) transition owes its client: the
/// request's response with `error`, or on success the id and epoch of `m`.
fn answer(
    reply: TxnReply,
    error: Option<ErrorCode>,
    m: Option<&TxnMetadata>,
) -> Option<(NodeId, Message)> {
    let (pid, epoch) = match (error, m) {
        (None, Some(m)) => (m.producer_id, m.producer_epoch),
        _ => (-1, -1),
    };
    Some(match reply {
        TxnReply::None => return None,
        TxnReply::InitPid { from, cid } | TxnReply::FencedInit { from, cid } => (
            from,
            Message::InitProducerIdResponse {
                correlation_id: cid,
                error,
                producer_id: pid,
                producer_epoch: epoch,
            },
        ),
        TxnReply::AddPartitions {
            from,
            cid,
            partitions,
            offsets,
        } => (from, add_answer(cid, error, &partitions, offsets)),
        TxnReply::EndTxn { from, cid } => (
            from,
            Message::EndTxnResponse {
                correlation_id: cid,
                error,
            },
        ),
    })
}

/// The answer to AddPartitionsToTxn, or to AddOffsetsToTxn (`offsets`).
fn add_answer(
    cid: i32,
    error: Option<ErrorCode>,
    partitions: &[TopicPartition],
    offsets: bool,
) -> Message {
    if offsets {
        Message::AddOffsetsToTxnResponse {
            correlation_id: cid,
            error,
        }
    } else {
        Message::AddPartitionsToTxnResponse {
            correlation_id: cid,
            results: partitions.iter().map(|tp| (tp.clone(), error)).collect(),
        }
    }
}
