//! Transaction markers, both ends (Kafka 3.9).
//!
//! **Coordinator** (`TransactionMarkerChannelManager` with
//! `TransactionMarkerRequestCompletionHandler`): once PrepareCommit or
//! PrepareAbort is written, the coordinator prepares the complete state
//! (so any other request meanwhile gets CONCURRENT_TRANSACTIONS) and sends
//! one WriteTxnMarkers per partition leader, from its metadata cache. A
//! partition whose leader is unknown, or that answers a retriable error
//! (NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS, REQUEST_TIMED_OUT, …), is
//! sent again; INVALID_PRODUCER_EPOCH or TRANSACTION_COORDINATOR_FENCED
//! stop the sending (a newer coordinator or producer owns it); a partition
//! that no longer exists is dropped. When every partition is marked, the
//! complete state (CompleteCommit / CompleteAbort) is written.
//!
//! **Partition leader** (`KafkaApis.handleWriteTxnMarkersRequest`): each
//! marker is appended as a control batch with `requiredAcks = -1` and origin
//! COORDINATOR, after the producer state's checks (the coordinator epoch may
//! not go back, the producer epoch may not go back), and answered once the
//! ISR has it. The append completes the producer's transaction on that
//! partition: the last stable offset moves past it, and an ABORT fills the
//! `.txnindex` (see `producer_state`).
//!
//! Simplified: the coordinator retries after a fixed 100 ms instead of at
//! its send thread's next poll, and a lost request is given up after
//! `request.timeout.ms`.

use super::coordinator::bnode;
use super::metadata::TxnState;
use super::*;
use crate::broker::BrokerCx;
use crate::event::EventKind;
use crate::kernel::{Step, Timer};
use crate::msg::{ErrorCode, Message, TxnMarkerEntry};
use crate::storage::record::{self, ControlType, EndTxnMarker};

/// The coordinator's wait before it sends a marker again.
pub(super) const MARKER_RETRY_MS: u64 = 100;

impl BrokerCx<'_> {
    /// PrepareCommit/PrepareAbort of `id` is written: prepare the complete
    /// state and send the markers (`sendTxnMarkersCallback`).
    pub(super) fn txn_begin_markers(&mut self, id: &str, coordinator_epoch: i32) -> Step {
        let Some(mut m) = self.txns().metas.get(id).cloned() else {
            return Ok(());
        };
        let committed = match m.state {
            TxnState::PrepareCommit => true,
            TxnState::PrepareAbort => false,
            _ => return Ok(()),
        };
        let Ok(complete) = m.prepare_complete(self.k.wall_ms()) else {
            return Ok(());
        };
        let pm = PendingMarkers {
            producer_id: m.producer_id,
            producer_epoch: m.producer_epoch,
            committed,
            coordinator_epoch,
            remaining: m.partitions.iter().cloned().collect(),
            in_flight: SortedSet::new(),
            complete,
        };
        self.k.gate()?;
        {
            let t = self.txns_mut();
            t.metas.insert(id.to_string(), m);
            t.markers.insert(id.to_string(), pm);
        }
        self.txn_send_markers(id)
    }

    /// Sends WriteTxnMarkers for the partitions of `id` not yet marked nor
    /// in flight, one request per leader.
    pub(crate) fn txn_send_markers(&mut self, id: &str) -> Step {
        let b = self.id;
        let Some(pm) = self.txns().markers.get(id).cloned() else {
            // Every marker is written; the complete record failed to be
            // written before: write it again.
            return self.txn_retry_complete(id);
        };
        if pm.remaining.is_empty() {
            return self.txn_write_complete(id);
        }
        let mut by_leader: SortedMap<BrokerId, Vec<TopicPartition>> = SortedMap::new();
        let mut gone = Vec::new();
        let mut unknown = false;
        for tp in pm.remaining.iter().filter(|tp| !pm.in_flight.contains(tp)) {
            match self.me().metadata.partitions.get(tp) {
                None if self
                    .zk
                    .get(&format!("/brokers/topics/{}", tp.topic))
                    .is_none() =>
                {
                    gone.push(tp.clone())
                }
                Some(s) if s.leader >= 0 => by_leader
                    .entry(BrokerId(s.leader))
                    .or_default()
                    .push(tp.clone()),
                _ => unknown = true,
            }
        }
        if !gone.is_empty() {
            self.k.gate()?;
            let pm = self.txns_mut().markers.get_mut(id).expect("exists");
            for tp in &gone {
                pm.remaining.remove(tp);
            }
            if pm.remaining.is_empty() {
                return self.txn_write_complete(id);
            }
        }
        for (leader, parts) in by_leader {
            self.k.gate()?;
            let cid = {
                let t = self.txns_mut();
                t.next_correlation += 1;
                let cid = t.next_correlation;
                t.marker_requests
                    .insert(cid, (id.to_string(), leader, parts.clone()));
                let pm = t.markers.get_mut(id).expect("exists");
                pm.in_flight.extend(parts.iter().cloned());
                cid
            };
            self.k.send(
                bnode(b),
                NodeId::Broker(leader),
                Message::WriteTxnMarkers {
                    correlation_id: cid,
                    markers: vec![TxnMarkerEntry {
                        producer_id: pm.producer_id,
                        producer_epoch: pm.producer_epoch,
                        committed: pm.committed,
                        coordinator_epoch: pm.coordinator_epoch,
                        partitions: parts,
                    }],
                },
            )?;
            let timeout = self.k.sc.cluster.config.request_timeout_ms;
            self.k.set_timer(
                bnode(b),
                self.k.now + timeout,
                Timer::TxnMarkerTimeout {
                    correlation_id: cid,
                },
            )?;
        }
        if unknown {
            self.k.set_timer(
                bnode(b),
                self.k.now + MARKER_RETRY_MS,
                Timer::TxnMarkerRetry {
                    transactional_id: id.to_string(),
                },
            )?;
        }
        Ok(())
    }

    /// A WriteTxnMarkers answer (or its failure: every partition gets `all`).
    pub(crate) fn txn_on_markers_response(
        &mut self,
        cid: i32,
        results: Vec<(TopicPartition, Option<ErrorCode>)>,
        all: Option<ErrorCode>,
    ) -> Step {
        let b = self.id;
        let Some((id, _leader, parts)) = self.txns().marker_requests.get(&cid).cloned() else {
            return Ok(());
        };
        self.k.gate()?;
        self.txns_mut().marker_requests.remove(&cid);
        if !self.txns().markers.contains_key(&id) {
            return Ok(());
        }
        let mut retry = false;
        let mut stop = false;
        {
            let pm = self.txns_mut().markers.get_mut(&id).expect("checked");
            for tp in &parts {
                pm.in_flight.remove(tp);
                let e = match all {
                    Some(e) => Some(e),
                    None => results
                        .iter()
                        .find(|(t, _)| t == tp)
                        .map(|(_, e)| *e)
                        .unwrap_or(Some(ErrorCode::NetworkException)),
                };
                match e {
                    None => {
                        pm.remaining.remove(tp);
                    }
                    Some(ErrorCode::InvalidProducerEpoch)
                    | Some(ErrorCode::TransactionCoordinatorFenced) => stop = true,
                    Some(_) => retry = true,
                }
            }
        }
        if stop {
            // A newer producer epoch or coordinator owns the transaction:
            // this coordinator stops (`removeMarkersForTxn`).
            self.k.gate()?;
            self.txns_mut().markers.remove(&id);
            return Ok(());
        }
        if self.txns().markers[&id].remaining.is_empty() {
            return self.txn_write_complete(&id);
        }
        if retry {
            self.k.set_timer(
                bnode(b),
                self.k.now + MARKER_RETRY_MS,
                Timer::TxnMarkerRetry {
                    transactional_id: id,
                },
            )?;
        }
        Ok(())
    }

    /// The partition leader's side: WriteTxnMarkers.
    pub(crate) fn broker_on_write_txn_markers(
        &mut self,
        from: NodeId,
        cid: i32,
        markers: Vec<TxnMarkerEntry>,
    ) -> Step {
        let b = self.id;
        let key = (from, cid);
        let results = markers
            .iter()
            .flat_map(|m| {
                m.partitions
                    .iter()
                    .map(|tp| (m.producer_id, tp.clone(), None))
            })
            .collect();
        self.k.gate()?;
        self.txns_mut()
            .marker_replies
            .insert(key, MarkerReply { results });
        for m in &markers {
            let control_type = if m.committed {
                ControlType::Commit
            } else {
                ControlType::Abort
            };
            for tp in &m.partitions {
                let wall = self.k.wall_ms();
                let bytes = record::build_end_txn_marker(
                    0,
                    wall,
                    -1,
                    m.producer_id,
                    m.producer_epoch,
                    EndTxnMarker {
                        control_type,
                        coordinator_epoch: m.coordinator_epoch,
                    },
                );
                let leads = self.me().partitions.get(tp).is_some_and(|p| p.is_leader);
                let checked = if !leads {
                    Err(if self.me().logs.contains_key(tp) {
                        ErrorCode::NotLeaderOrFollower
                    } else {
                        ErrorCode::UnknownTopicOrPartition
                    })
                } else {
                    self.me()
                        .producer_states
                        .get(tp)
                        .map(|s| s.check(&bytes))
                        .unwrap_or(Ok(None))
                        .map(|_| ())
                        .map_err(|(e, _)| e)
                };
                let appended = match checked {
                    Err(e) => Err(e),
                    Ok(()) => {
                        let timeout = self.k.sc.cluster.config.request_timeout_ms;
                        self.append_as_coordinator(tp, bytes, timeout)?
                    }
                };
                match appended {
                    Err(e) => self.marker_result(key, m.producer_id, tp, Some(e))?,
                    Ok(delayed) => {
                        let (offset, lso) = {
                            let br = self.me();
                            let log = &br.logs[tp];
                            let hw = br.partitions[tp].high_watermark;
                            (
                                log.log_end_offset - 1,
                                br.last_stable_offset(tp, hw, log.log_start_offset),
                            )
                        };
                        self.k.gate()?;
                        self.txns_mut()
                            .marker_writes
                            .insert(delayed, (key, m.producer_id, tp.clone(), m.committed));
                        self.k.emit(
                            vec![bnode(b), from],
                            EventKind::TxnMarkerWritten {
                                broker: b,
                                tp: tp.clone(),
                                producer_id: m.producer_id,
                                producer_epoch: m.producer_epoch,
                                committed: m.committed,
                                coordinator_epoch: m.coordinator_epoch,
                                offset,
                                last_stable_offset: lso,
                            },
                        );
                        self.settle_coordinator_append(tp, delayed)?;
                    }
                }
            }
        }
        self.maybe_answer_markers(key)
    }

    /// A marker this broker wrote as leader is replicated (or failed).
    pub(super) fn marker_write_finished(&mut self, id: u64, error: Option<ErrorCode>) -> Step {
        let Some((key, pid, tp, committed)) = self.txns().marker_writes.get(&id).cloned() else {
            return Ok(());
        };
        self.k.gate()?;
        self.txns_mut().marker_writes.remove(&id);
        if error.is_none() && &*tp.topic == crate::group::OFFSETS_TOPIC {
            // `KafkaApis.handleWriteTxnMarkersRequest`: the group coordinator
            // completes the offsets the transaction wrote.
            self.coordinator_txn_completed(pid, tp.partition, committed)?;
        }
        self.marker_result(key, pid, &tp, error)?;
        self.maybe_answer_markers(key)
    }

    fn marker_result(
        &mut self,
        key: (NodeId, i32),
        pid: i64,
        tp: &TopicPartition,
        error: Option<ErrorCode>,
    ) -> Step {
        self.k.gate()?;
        if let Some(r) = self.txns_mut().marker_replies.get_mut(&key) {
            if let Some(slot) = r
                .results
                .iter_mut()
                .find(|(p, t, res)| *p == pid && t == tp && res.is_none())
            {
                slot.2 = Some(error);
            }
        }
        Ok(())
    }

    /// Answers a WriteTxnMarkers once every partition has its result.
    fn maybe_answer_markers(&mut self, key: (NodeId, i32)) -> Step {
        let b = self.id;
        let done = self
            .txns()
            .marker_replies
            .get(&key)
            .is_some_and(|r| r.results.iter().all(|(_, _, res)| res.is_some()));
        if !done {
            return Ok(());
        }
        self.k.gate()?;
        let r = self
            .txns_mut()
            .marker_replies
            .remove(&key)
            .expect("checked");
        let mut results: Vec<(i64, crate::msg::PartitionErrors)> = Vec::new();
        for (pid, tp, res) in r.results {
            let res = res.expect("all known");
            match results.iter_mut().find(|(p, _)| *p == pid) {
                Some((_, v)) => v.push((tp, res)),
                None => results.push((pid, vec![(tp, res)])),
            }
        }
        self.k
            .send(
                bnode(b),
                key.0,
                Message::WriteTxnMarkersResponse {
                    correlation_id: key.1,
                    results,
                },
            )
            .map(|_| ())
    }
}
