//! The producer's `Sender` (`org.apache.kafka.clients.producer.internals.
//! Sender`): each wake it sends what the accumulator has ready, at most
//! `max.in.flight.requests.per.connection` requests per broker, and handles
//! the answers (`handleProduceResponse` → `completeBatch`): success
//! acknowledges the batch, a retriable error re-queues it (`reenqueue`, in
//! sequence order when idempotent), anything else fails it; a broken
//! connection fails every request in flight to that broker.

use super::*;
use crate::collections::{SortedMap, SortedSet};
use crate::event::EventKind;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::invariants::AckedRecord;
use crate::kernel::Step;
use crate::msg::{ErrorCode, Message, ProducePartitionResponse};

impl ProducerCx<'_> {
    /// Retries blocked `send()`s, then runs the Sender.
    pub(super) fn progress(&mut self) -> Step {
        let p = self.id;
        if self.me().closed {
            return Ok(()); // a closed producer's Sender thread has ended
        }
        // Blocked sends whose max.block.ms ran out fail with a TimeoutException.
        let now = self.k.now;
        let max_block = self.me().config.max_block_ms;
        while let Some(front) = self.me().blocked.front().cloned() {
            if now >= front.send_ms + max_block {
                self.k.gate()?;
                self.me_mut().blocked.pop_front();
                self.k.emit(vec![pnode(p)], EventKind::RecordFailed {
                    producer: p,
                    record: front.id,
                    tp: None,
                    error: format!("TimeoutException: send() blocked for more than max.block.ms={max_block}"),
                    key: front.key.clone(),
                    value: front.value.clone(),
                });
                continue;
            }
            // Try it again: if it blocks again, stop (keep send() order).
            self.k.gate()?;
            self.me_mut().blocked.pop_front();
            let blocked_again = {
                let before = self.me().blocked.len();
                let ok = self.try_accumulate(&front)?;
                if !ok && self.me().blocked.len() > before {
                    // It went to the back: move it to the front again.
                    self.k.gate()?;
                    let r = self.me_mut().blocked.pop_back().expect("just pushed");
                    self.me_mut().blocked.push_front(r);
                    true
                } else {
                    false
                }
            };
            if blocked_again {
                break;
            }
        }
        self.sender()
    }

    /// One pass of the Sender thread (`Sender.sendProducerData`).
    pub(super) fn sender(&mut self) -> Step {
        let now = self.k.now;
        let cfg = self.me().config.clone();
        self.expire()?;
        if self.me().metadata.stale
            || self.me().accumulator.keys().any(|tp| {
                self.me().metadata.leader(tp).is_none() && !self.me().accumulator[tp].is_empty()
            })
        {
            let cid = self.correlation();
            self.net().request_metadata(cid)?;
        }
        self.txn_pump()?;
        if cfg.idempotence() && self.me().producer_id < 0 {
            return self.schedule_wake(); // no producer id yet: nothing can be sent
        }
        // ready(): which leaders have a sendable batch at the head of a deque?
        // (A broker the client waits to reconnect to is not `client.ready`.)
        let exhausted = !self.me().blocked.is_empty();
        let leaders: SortedSet<BrokerId> = SortedSet::from_iter(
            self.me()
                .accumulator
                .keys()
                .filter_map(|tp| self.me().metadata.leader(tp)),
        );
        let unready: SortedSet<BrokerId> = SortedSet::from_iter(
            leaders
                .into_iter()
                .filter(|b| !self.me().metadata.ready(self.k.now, *b)),
        );
        let mut ready: SortedMap<BrokerId, Vec<TopicPartition>> = SortedMap::new();
        for (tp, dq) in &self.me().accumulator {
            let Some(b) = dq.front() else { continue };
            let Some(leader) = self.me().metadata.leader(tp) else {
                continue;
            };
            if b.retry_at > now || unready.contains(&leader) {
                continue;
            }
            let full = dq.len() > 1 || b.full;
            let lingered = now >= b.created_ms + cfg.linger_ms;
            // After close() the accumulator is closed: every batch is sendable
            // (RecordAccumulator.ready: `full || expired || exhausted || closed`).
            if full || lingered || b.attempts > 0 || exhausted || self.me().closing {
                ready.entry(leader).or_default().push(tp.clone());
            }
        }
        for (leader, ready_tps) in ready {
            while (self.me().in_flight_count(leader) as u32)
                < cfg.max_in_flight_requests_per_connection
            {
                if !self.drain(leader, &ready_tps)? {
                    break;
                }
            }
        }
        self.schedule_wake()?;
        self.maybe_closed()
    }

    pub(super) fn complete_batch(&mut self, b: ProducerBatch, base_offset: i64) -> Step {
        let p = self.id;
        self.k.gate()?;
        self.release(&b);
        let acks = self.me().config.acks.0;
        let interceptors = self.me().config.interceptor_classes.clone();
        for (i, r) in b.records.iter().enumerate() {
            let offset = if base_offset >= 0 {
                base_offset + i as i64
            } else {
                -1
            };
            // InterceptorCallback.onCompletion: the interceptors'
            // onAcknowledgement first, then the record's own callback; the
            // future is done after the batch's callbacks
            // (ProducerBatch.completeFutureAndFireCallbacks).
            for ic in &interceptors {
                self.k.record(
                    vec![pnode(p)],
                    EventKind::InterceptorAcknowledged {
                        producer: p,
                        record: r.id,
                        interceptor: ic.clone(),
                        offset,
                    },
                )?;
            }
            self.k.record(
                vec![pnode(p)],
                EventKind::RecordAcknowledged {
                    producer: p,
                    record: r.id,
                    tp: b.tp.clone(),
                    offset,
                    key: r.key.clone(),
                    value: r.value.clone(),
                    acks,
                },
            )?;
            self.audit.ack(
                self.k,
                &b.tp,
                offset,
                AckedRecord {
                    producer: p,
                    key: r.key.as_ref().map(|k| k.as_bytes().to_vec()),
                    value: r.value.as_ref().map(|v| v.as_bytes().to_vec()),
                    acks,
                },
            )?;
        }
        if acks != 0 && base_offset >= 0 {
            let n = b.records.len() as i64;
            self.audit
                .check_batch(self.k, &b.tp, base_offset, base_offset + n - 1)?;
        }
        Ok(())
    }

    pub(super) fn fail_batch(&mut self, b: ProducerBatch, error: String) -> Step {
        let p = self.id;
        self.k.gate()?;
        self.release(&b);
        for r in &b.records {
            self.k.record(
                vec![pnode(p)],
                EventKind::RecordFailed {
                    producer: p,
                    record: r.id,
                    tp: Some(b.tp.clone()),
                    error: error.clone(),
                    key: r.key.clone(),
                    value: r.value.clone(),
                },
            )?;
        }
        Ok(())
    }

    /// Puts a failed batch back (`RecordAccumulator.reenqueue`): at the front,
    /// or in sequence order for the idempotent producer.
    pub(super) fn reenqueue(&mut self, mut b: ProducerBatch, error: ErrorCode) -> Step {
        let p = self.id;
        let cfg = self.me().config.clone();
        let exp = b.attempts.saturating_sub(1).min(20);
        let backoff = (cfg.retry_backoff_ms.saturating_mul(1u64 << exp))
            .min(cfg.retry_backoff_max_ms.max(cfg.retry_backoff_ms));
        self.k.gate()?;
        b.retry_at = self.k.now + backoff;
        let (tp, id, attempt) = (b.tp.clone(), b.id, b.attempts);
        let pr = self.me_mut();
        let dq = pr.accumulator.entry(tp.clone()).or_default();
        if cfg.idempotence() && b.base_sequence.is_some() {
            let seq = b.base_sequence;
            let pos = dq
                .iter()
                .position(|x| x.base_sequence.is_none() || x.base_sequence > seq)
                .unwrap_or(dq.len());
            dq.insert(pos, b);
        } else {
            dq.push_front(b);
        }
        self.k.emit(
            vec![pnode(p)],
            EventKind::ProduceRetried {
                producer: p,
                tp,
                batch: id,
                attempt,
                error,
                backoff_ms: backoff,
            },
        );
        Ok(())
    }

    pub(super) fn handle_error(&mut self, b: ProducerBatch, error: ErrorCode) -> Step {
        let cfg = self.me().config.clone();
        let retriable = error.is_retriable()
            || (cfg.idempotence() && error == ErrorCode::OutOfOrderSequenceNumber);
        let within = self.k.now < b.created_ms + cfg.delivery_timeout();
        if matches!(
            error,
            ErrorCode::NotLeaderOrFollower
                | ErrorCode::UnknownTopicOrPartition
                | ErrorCode::LeaderNotAvailable
                | ErrorCode::NetworkException
                | ErrorCode::RequestTimedOut
        ) {
            self.k.gate()?;
            self.me_mut().metadata.stale = true;
        }
        if retriable && b.attempts <= cfg.retries && within {
            self.reenqueue(b, error)
        } else {
            self.fail_batch(b, error.name())?;
            self.txn_on_batch_failed(error)
        }
    }

    pub(super) fn request_failed(&mut self, b: BrokerId, cid: i32, error: ErrorCode) -> Step {
        self.k.gate()?;
        let Some(f) = self
            .me_mut()
            .in_flight
            .get_mut(&b)
            .and_then(|m| m.remove(&cid))
        else {
            return Ok(());
        };
        for batch in f.batches {
            self.handle_error(batch, error)?;
        }
        self.progress()
    }

    pub(crate) fn disconnected(&mut self, to: NodeId, msg: &Message) -> Step {
        if let NodeId::Broker(b) = to {
            self.net().connection_failed(b)?;
        }
        match (msg, to) {
            (Message::Produce { correlation_id, .. }, NodeId::Broker(b)) => {
                self.request_failed(b, *correlation_id, ErrorCode::NetworkException)
            }
            (Message::Metadata { correlation_id, .. }, _) => {
                if self.net().metadata_failed(*correlation_id)? {
                    let cid = self.correlation();
                    self.net().request_metadata(cid)?;
                }
                Ok(())
            }
            (
                Message::InitProducerId { correlation_id, .. }
                | Message::FindCoordinator { correlation_id, .. }
                | Message::AddPartitionsToTxn { correlation_id, .. }
                | Message::AddOffsetsToTxn { correlation_id, .. }
                | Message::TxnOffsetCommit(crate::msg::TxnOffsetCommitRequest {
                    correlation_id, ..
                })
                | Message::EndTxn { correlation_id, .. },
                _,
            ) if self.txn_request_lost(*correlation_id, ErrorCode::NetworkException)? => Ok(()),
            (Message::InitProducerId { correlation_id, .. }, _)
                if self.me().init_pid_in_flight == Some(*correlation_id) =>
            {
                // Asked again after `retry.backoff.ms`, as after an error.
                self.k.gate()?;
                self.me_mut().init_pid_in_flight = None;
                let at = self.k.now + self.me().config.retry_backoff_ms;
                self.k
                    .set_timer(pnode(self.id), at, Timer::InitProducerIdRetry)
            }
            _ => Ok(()),
        }
    }

    pub(crate) fn on_message(&mut self, from: NodeId, msg: Message) -> Step {
        let p = self.id;
        if self.me().closed {
            return Ok(()); // its connections are closed
        }
        if let NodeId::Broker(b) = from {
            self.net().connection_ok(b)?;
        }
        if self.txn_on_message(from, &msg)? {
            return Ok(());
        }
        match msg {
            Message::MetadataResponse {
                correlation_id,
                brokers,
                partitions,
                ..
            } => {
                if self
                    .net()
                    .on_metadata(correlation_id, brokers, partitions)?
                {
                    self.progress()?;
                }
                Ok(())
            }
            Message::InitProducerIdResponse {
                correlation_id,
                error,
                producer_id,
                producer_epoch,
            } => {
                if self.me().init_pid_in_flight != Some(correlation_id) {
                    return Ok(());
                }
                self.k.gate()?;
                self.me_mut().init_pid_in_flight = None;
                if error.is_some() {
                    // Retried after `retry.backoff.ms` (a KRaft broker
                    // without a producer id block answers
                    // COORDINATOR_LOAD_IN_PROGRESS while it fetches one).
                    let at = self.k.now + self.me().config.retry_backoff_ms;
                    return self.k.set_timer(pnode(p), at, Timer::InitProducerIdRetry);
                }
                {
                    let pr = self.me_mut();
                    pr.producer_id = producer_id;
                    pr.producer_epoch = producer_epoch;
                }
                self.k.emit(
                    vec![pnode(p)],
                    EventKind::ProducerIdAssigned {
                        producer: p,
                        producer_id,
                        producer_epoch,
                    },
                );
                self.progress()
            }
            Message::ProduceResponse {
                correlation_id,
                responses,
            } => {
                let NodeId::Broker(b) = from else {
                    return Ok(());
                };
                self.k.gate()?;
                let Some(f) = self
                    .me_mut()
                    .in_flight
                    .get_mut(&b)
                    .and_then(|m| m.remove(&correlation_id))
                else {
                    return Ok(());
                };
                for batch in f.batches {
                    let r: Option<&ProducePartitionResponse> =
                        responses.iter().find(|r| r.tp == batch.tp);
                    match r {
                        Some(r) if r.error.is_none() => {
                            self.complete_batch(batch, r.base_offset)?
                        }
                        Some(r) => self.handle_error(batch, r.error.expect("checked"))?,
                        None => self.handle_error(batch, ErrorCode::NetworkException)?,
                    }
                }
                self.progress()
            }
            _ => Ok(()),
        }
    }
}
