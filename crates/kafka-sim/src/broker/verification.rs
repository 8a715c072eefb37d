//! KIP-890 part 1 on the partition leader (Kafka 3.9,
//! `transaction.partition.verification.enable`, on by default): before a
//! leader appends a producer's first transactional batch of a transaction
//! on a partition, it asks the transaction coordinator whether the
//! partition was added to the transaction. Without this, a produce that
//! arrives late, after its transaction was aborted, would open a
//! transaction the coordinator knows nothing of: no marker would ever close
//! it, its last stable offset would stay put and `read_committed` consumers
//! would stall (a *hanging transaction*).
//!
//! Followed, by class and line of Kafka 3.9:
//! * `ReplicaManager.handleProduceAppend` (808-901): a request with
//!   transactional batches goes through
//!   `maybeStartTransactionVerificationForPartitions` (1044-1100): each led
//!   partition whose producer has no transaction open here
//!   (`UnifiedLog.maybeStartTransactionVerification`, 610-615) gets a
//!   verification entry and its guard (`ProducerStateManager`
//!   `maybeCreateVerificationStateEntry`, here
//!   [`ProducerStates::maybe_start_verification`]); with no guard to get,
//!   the produce is appended at once.
//! * `AddPartitionsToTxnManager.verifyTransaction` (89-118): the
//!   coordinator is the leader of the id's `__transaction_state` partition
//!   in the metadata cache, alive; without one every partition gets
//!   `COORDINATOR_NOT_AVAILABLE`. Response handling (188-244): a
//!   disconnection or timeout is `NETWORK_EXCEPTION` for every partition;
//!   `PRODUCER_FENCED` becomes `INVALID_PRODUCER_EPOCH`;
//!   `TRANSACTION_ABORTABLE` goes through as it is, since a 3.9 producer
//!   sends Produce v11.
//! * `postVerificationCallback` (831-878): `INVALID_TXN_STATE` with "Partition
//!   was not added to the transaction"; `CONCURRENT_TRANSACTIONS`,
//!   `NETWORK_EXCEPTION`, `COORDINATOR_LOAD_IN_PROGRESS`,
//!   `COORDINATOR_NOT_AVAILABLE` and `NOT_COORDINATOR` become the retriable
//!   `NOT_ENOUGH_REPLICAS` "Unable to verify the partition has been added to
//!   the transaction. Underlying error: …"; any other error as it is. Those
//!   partitions are answered before any append (no
//!   `FailedProduceRequestsPerSec`); the others are appended with their
//!   guards, which the append checks (`UnifiedLog`
//!   `analyzeAndValidateProducerState`, 1029-1092, here
//!   [`ProducerStates::check_verified`]).
//!
//! Simplified: each held produce sends its own request (Kafka's manager
//! batches the verifications of one coordinator into one request, at most
//! one in flight per coordinator, and answers `NETWORK_EXCEPTION` to an
//! older entry of the same transactional id it replaces); TxnOffsetCommit
//! is not verified; `VerificationFailureRate` and `VerificationTimeMs` are
//! not measured; a failed verification's entry is not expired after
//! `producer.id.expiration.ms` (a day, longer than any run).
//!
//! [`ProducerStates::maybe_start_verification`]: crate::producer_state::ProducerStates::maybe_start_verification
//! [`ProducerStates::check_verified`]: crate::producer_state::ProducerStates::check_verified

use super::*;
use crate::msg::Bytes;
use crate::storage::record;
use crate::txn::TRANSACTION_STATE_TOPIC;

impl BrokerCx<'_> {
    /// The leader's side of Produce (`ReplicaManager.handleProduceAppend`):
    /// verify what needs verifying, then append.
    pub(super) fn broker_on_produce(
        &mut self,
        from: NodeId,
        correlation_id: i32,
        acks: i16,
        timeout_ms: u64,
        transactional_id: Option<String>,
        topic_data: Vec<(TopicPartition, Bytes)>,
    ) -> Step {
        let on = self
            .k
            .sc
            .cluster
            .config
            .transaction_partition_verification_enable;
        let txn_id = transactional_id.filter(|_| on);
        let now = self.k.now;
        let mut guards = SortedMap::new();
        let mut producer = None;
        for (tp, bytes) in topic_data.iter().filter(|_| txn_id.is_some()) {
            let Ok(batches) = record::split_batches(bytes.as_slice()) else {
                continue;
            };
            let Some((_, h)) = batches
                .into_iter()
                .find(|(_, h)| h.has_producer_id() && h.is_transactional() && !h.is_control())
            else {
                continue;
            };
            if !self.me().partitions.get(tp).is_some_and(|p| p.is_leader) {
                continue; // answered NOT_LEADER_OR_FOLLOWER by the append
            }
            self.k.gate()?;
            let br = self.me_mut();
            let states = br.producer_states.entry(tp.clone()).or_default();
            if let Some(g) = states.maybe_start_verification(
                h.producer_id,
                h.base_sequence,
                h.producer_epoch,
                now,
                &mut br.last_guard,
            ) {
                guards.insert(tp.clone(), g);
                producer = Some((h.producer_id, h.producer_epoch));
            }
        }
        let (Some(txn_id), Some((producer_id, producer_epoch))) = (txn_id, producer) else {
            // Nothing to verify: appended at once.
            return self.produce_append(
                from,
                correlation_id,
                acks,
                timeout_ms,
                topic_data,
                &SortedMap::new(),
                Vec::new(),
            );
        };
        let b = self.id;
        let coordinator = {
            let p = self.txn_partition(&txn_id);
            let md = &self.me().metadata;
            md.partitions
                .get(&TopicPartition::new(TRANSACTION_STATE_TOPIC, p))
                .filter(|s| s.leader >= 0)
                .map(|s| BrokerId(s.leader))
                .filter(|l| md.live_brokers.contains(l))
        };
        let partitions: Vec<TopicPartition> = guards.keys().cloned().collect();
        self.k.gate()?;
        let cid = {
            let br = self.me_mut();
            br.next_correlation += 1;
            let cid = br.next_correlation;
            br.verifications.insert(
                cid,
                PendingVerification {
                    from,
                    correlation_id,
                    acks,
                    timeout_ms,
                    topic_data,
                    guards,
                },
            );
            cid
        };
        self.k.record(
            vec![bnode(b), from],
            EventKind::TxnVerificationStarted {
                broker: b,
                transactional_id: txn_id.clone(),
                producer_id,
                partitions: partitions.clone(),
                coordinator,
            },
        )?;
        let Some(c) = coordinator else {
            return self.broker_on_verification_failed(cid, ErrorCode::CoordinatorNotAvailable);
        };
        self.k.send(
            bnode(b),
            bnode(c),
            Message::AddPartitionsToTxn {
                correlation_id: cid,
                transactional_id: txn_id,
                producer_id,
                producer_epoch,
                partitions,
                verify_only: true,
            },
        )?;
        let timeout = self.k.sc.cluster.config.request_timeout_ms;
        self.k.set_timer(
            bnode(b),
            self.k.now + timeout,
            Timer::TxnVerificationTimeout {
                correlation_id: cid,
            },
        )
    }

    /// The verification could not be answered (no coordinator, a
    /// disconnection, `request.timeout.ms`): `error` for every partition.
    pub(super) fn broker_on_verification_failed(&mut self, cid: i32, error: ErrorCode) -> Step {
        let Some(v) = self.me().verifications.get(&cid) else {
            return Ok(());
        };
        let results = v
            .guards
            .keys()
            .map(|tp| (tp.clone(), Some(error)))
            .collect();
        self.broker_on_verification_response(cid, results)
    }

    /// The coordinator's answer (`AddPartitionsToTxnManager` response
    /// handling, then `postVerificationCallback`): failed partitions are
    /// answered at once, the others appended with their guards.
    pub(super) fn broker_on_verification_response(
        &mut self,
        cid: i32,
        results: Vec<(TopicPartition, Option<ErrorCode>)>,
    ) -> Step {
        let b = self.id;
        if !self.me().verifications.contains_key(&cid) {
            return Ok(()); // answered already (a timeout, then the answer)
        }
        self.k.gate()?;
        let mut v = self.me_mut().verifications.remove(&cid).expect("checked");
        let mut done = Vec::new();
        for (tp, cause) in results {
            let Some(cause) = cause else { continue };
            if !v.guards.contains_key(&tp) {
                continue;
            }
            // `AddPartitionsToTxnManager`: the coordinator's words as a
            // produce v11 reads them.
            let mapped = match cause {
                ErrorCode::ProducerFenced => ErrorCode::InvalidProducerEpoch,
                e => e,
            };
            let (error, detail) = match mapped {
                ErrorCode::InvalidTxnState => (
                    ErrorCode::InvalidTxnState,
                    "Partition was not added to the transaction".to_string(),
                ),
                ErrorCode::ConcurrentTransactions
                | ErrorCode::NetworkException
                | ErrorCode::CoordinatorLoadInProgress
                | ErrorCode::CoordinatorNotAvailable
                | ErrorCode::NotCoordinator => (
                    ErrorCode::NotEnoughReplicas,
                    format!(
                        "Unable to verify the partition has been added to the transaction. Underlying error: {}",
                        mapped.name_str()
                    ),
                ),
                e => (e, String::new()),
            };
            self.k.record(
                vec![bnode(b), v.from],
                EventKind::ProduceVerificationFailed {
                    broker: b,
                    tp: tp.clone(),
                    error,
                    cause,
                    detail,
                },
            )?;
            v.topic_data.retain(|(t, _)| *t != tp);
            v.guards.remove(&tp);
            done.push(ProducePartitionResponse {
                tp,
                error: Some(error),
                base_offset: -1,
                log_start_offset: -1,
            });
        }
        self.produce_append(
            v.from,
            v.correlation_id,
            v.acks,
            v.timeout_ms,
            v.topic_data,
            &v.guards,
            done,
        )
    }
}
