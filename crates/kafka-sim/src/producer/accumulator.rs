//! The `RecordAccumulator` (`org.apache.kafka.clients.producer.internals.
//! RecordAccumulator`) and the front of `KafkaProducer.doSend`: a record
//! goes through the interceptors, serializers and partitioner, then into its
//! partition's deque of batches, drawing from `buffer.memory` (`send()`
//! blocks up to `max.block.ms` when it is full); `ready`/`drain` hand the
//! Sender one batch per partition a leader leads; `delivery.timeout.ms`
//! expires batches that waited too long (`expiredBatches`).

use super::*;
use crate::client_config::PartitionerClass;
use crate::event::EventKind;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::kernel::{Step, Timer};
use crate::msg::{Bytes, Message};
use crate::partitioner::{murmur2, to_positive};
use crate::storage::record::{self, BatchSpec, RECORD_BATCH_OVERHEAD};

impl ProducerCx<'_> {
    /// `producer.send(record)`: the first three stages, then the accumulator.
    pub(crate) fn send(
        &mut self,
        topic: &str,
        partition: Option<i32>,
        key: Option<String>,
        value: Option<String>,
    ) -> Step {
        let p = self.id;
        self.k.gate()?;
        let id = {
            let pr = self.me_mut();
            pr.next_record += 1;
            pr.next_record
        };
        let mut value = value;
        for ic in self.me().config.interceptor_classes.clone() {
            let before = value.clone();
            if ic == "uppercase-value" {
                value = value.map(|v| v.to_uppercase());
            }
            self.k.record(
                vec![pnode(p)],
                EventKind::RecordIntercepted {
                    producer: p,
                    record: id,
                    interceptor: ic,
                    value_before: before,
                    value_after: value.clone(),
                },
            )?;
        }
        self.k.record(
            vec![pnode(p)],
            EventKind::RecordSerialized {
                producer: p,
                record: id,
                key_bytes: key.as_ref().map(|k| k.as_bytes().to_vec()),
                value_bytes: value.as_ref().map(|v| v.as_bytes().to_vec()),
                serializer: "StringSerializer (UTF-8)".into(),
            },
        )?;
        let rec = PendingRecord {
            id,
            topic: topic.to_string(),
            partition,
            key,
            value,
            send_ms: self.k.now,
        };
        if !self.me().blocked.is_empty() {
            // Others are already waiting: keep send() order.
            return self.block(rec, "earlier records are still waiting".into());
        }
        if !self.try_accumulate(&rec)? {
            return Ok(());
        }
        self.progress()
    }

    pub(super) fn block(&mut self, rec: PendingRecord, reason: String) -> Step {
        let p = self.id;
        self.k.gate()?;
        let id = rec.id;
        self.me_mut().blocked.push_back(rec);
        let max_block = self.me().config.max_block_ms;
        let key = Some((id, reason.clone()));
        if self.me().blocked_reported == key {
            return self.schedule_wake();
        }
        self.me_mut().blocked_reported = key;
        self.k.emit(
            vec![pnode(p)],
            EventKind::ProducerBlocked {
                producer: p,
                record: id,
                reason,
                max_block_ms: max_block,
            },
        );
        self.schedule_wake()
    }

    /// Partition and append one record; `Ok(false)` if it had to block.
    pub(super) fn try_accumulate(&mut self, rec: &PendingRecord) -> Step<bool> {
        let p = self.id;
        let Some(n) = self.me().metadata.partition_count(&rec.topic) else {
            self.k.gate()?;
            self.me_mut().metadata.stale = true;
            self.block(
                rec.clone(),
                format!("waiting for metadata of topic {}", rec.topic),
            )?;
            let cid = self.correlation();
            self.net().request_metadata(cid)?;
            return Ok(false);
        };
        if let Some(part) = rec.partition {
            if part >= n {
                self.k.record(vec![pnode(p)], EventKind::RecordFailed {
                    producer: p,
                    record: rec.id,
                    tp: None,
                    error: format!("Invalid partition given with record: {part} is not in the range [0...{n})."),
                    key: text(&rec.key),
                    value: text(&rec.value),
                })?;
                return Ok(false);
            }
        }
        let cfg = self.me().config.clone();
        let ts = self.k.wall_ms();
        // Would a new batch be needed, and is there memory for it?
        let size_if_new =
            Producer::record_size(None, &rec.key, &rec.value, ts) + RECORD_BATCH_OVERHEAD as u64;
        let choice = self.partition(rec, n)?;
        let tp = TopicPartition::new(rec.topic.as_str(), choice.partition());
        // Borrow the open batch: cloning it here made appends quadratic.
        let last = self.me().accumulator.get(&tp).and_then(|d| d.back());
        // A batch once drained is closed (`RecordAccumulator.drain` calls
        // `batch.close()`, and a closed `MemoryRecordsBuilder` has no room):
        // a retried batch put back at the tail takes no new record.
        let fits = last.is_some_and(|b| {
            !b.full
                && b.attempts == 0
                && b.bytes + Producer::record_size(Some(b), &rec.key, &rec.value, ts)
                    <= cfg.batch_size.max(b.reserved)
        });
        let reserve = cfg.batch_size.max(size_if_new);
        if !fits && self.me().buffer_used + reserve > cfg.buffer_memory {
            self.block(
                rec.clone(),
                format!(
                    "buffer.memory={} is used up ({} bytes in batches waiting to be sent)",
                    cfg.buffer_memory,
                    self.me().buffer_used
                ),
            )?;
            return Ok(false);
        }
        self.k.record(
            vec![pnode(p)],
            EventKind::RecordPartitioned {
                producer: p,
                record: rec.id,
                tp: tp.clone(),
                choice: choice.clone(),
            },
        )?;
        self.k.gate()?;
        let now = self.k.now;
        let (batch_id, new_batch, nrec, bytes, used) = {
            let pr = self.me_mut();
            let dq = pr.accumulator.entry(tp.clone()).or_default();
            if fits {
                let b = dq.back_mut().expect("fits implies a batch");
                let add = Producer::record_size(Some(b), &rec.key, &rec.value, ts);
                b.records.push(BatchRecord {
                    id: rec.id,
                    key: rec.key.clone(),
                    value: rec.value.clone(),
                    timestamp: ts,
                });
                b.bytes += add;
                (b.id, false, b.records.len() as u32, b.bytes, pr.buffer_used)
            } else {
                if let Some(prev) = dq.back_mut() {
                    prev.full = true;
                }
                pr.next_batch += 1;
                let id = pr.next_batch;
                pr.buffer_used += reserve;
                dq.push_back(ProducerBatch {
                    id,
                    tp: tp.clone(),
                    records: vec![BatchRecord {
                        id: rec.id,
                        key: rec.key.clone(),
                        value: rec.value.clone(),
                        timestamp: ts,
                    }],
                    bytes: size_if_new,
                    reserved: reserve,
                    created_ms: now,
                    attempts: 0,
                    retry_at: 0,
                    base_sequence: None,
                    full: false,
                });
                (id, true, 1, size_if_new, pr.buffer_used)
            }
        };
        // A batch that cannot take another minimal record is full.
        {
            let pr = self.me_mut();
            if let Some(b) = pr.accumulator.get_mut(&tp).and_then(|d| d.back_mut()) {
                if b.bytes + 7 > cfg.batch_size.max(b.reserved) {
                    b.full = true;
                }
            }
        }
        self.k.emit(
            vec![pnode(p)],
            EventKind::RecordAccumulated {
                producer: p,
                record: rec.id,
                tp: tp.clone(),
                batch: batch_id,
                new_batch,
                batch_records: nrec,
                batch_bytes: bytes,
                batch_size: cfg.batch_size,
                buffer_used: used,
                buffer_memory: cfg.buffer_memory,
            },
        );
        // Sticky partition bookkeeping (BuiltInPartitioner.updatePartitionInfo).
        if let PartitionChoice::Sticky { .. } = choice {
            let added = Producer::record_size(None, &rec.key, &rec.value, ts);
            let all_full = self
                .me()
                .accumulator
                .get(&tp)
                .is_some_and(|d| d.iter().all(|b| b.full));
            let pr = self.me_mut();
            let st = pr.sticky.entry(rec.topic.clone()).or_default();
            st.produced_bytes += added;
            let switch = st.produced_bytes >= cfg.batch_size
                && (all_full || st.produced_bytes >= 2 * cfg.batch_size);
            if switch {
                st.produced_bytes = 0;
                st.previous = Some(st.partition);
                st.partition = -1; // pick a new one on the next keyless record
            }
        }
        Ok(true)
    }

    pub(super) fn partition(&mut self, rec: &PendingRecord, n: i32) -> Step<PartitionChoice> {
        let cfg = self.me().config.clone();
        if let Some(part) = rec.partition {
            return Ok(PartitionChoice::Explicit { partition: part });
        }
        if cfg.partitioner_class == PartitionerClass::RoundRobin {
            self.k.gate()?;
            let c = self
                .me_mut()
                .round_robin
                .entry(rec.topic.clone())
                .or_insert(0);
            let counter = *c;
            *c = c.wrapping_add(1);
            return Ok(PartitionChoice::RoundRobin {
                partition: (to_positive(counter as i32)) % n,
                counter,
            });
        }
        if let (Some(k), false) = (&rec.key, cfg.partitioner_ignore_keys) {
            let h = murmur2(k.as_bytes());
            let pos = to_positive(h);
            return Ok(PartitionChoice::Key {
                murmur2: h,
                positive: pos,
                num_partitions: n,
                partition: pos % n,
            });
        }
        self.k.gate()?;
        let current = self
            .me()
            .sticky
            .get(&rec.topic)
            .map(|s| s.partition)
            .filter(|x| *x >= 0 && *x < n);
        let (partition, switched_from) = match current {
            Some(c) => (c, None),
            None => {
                let previous = self.me().sticky.get(&rec.topic).and_then(|s| s.previous);
                let pick = self.k.rng.below(n as u64) as i32;
                let st = self.me_mut().sticky.entry(rec.topic.clone()).or_default();
                st.partition = pick;
                (pick, previous.filter(|x| *x >= 0))
            }
        };
        let produced = self
            .me()
            .sticky
            .get(&rec.topic)
            .map(|s| s.produced_bytes)
            .unwrap_or(0);
        Ok(PartitionChoice::Sticky {
            partition,
            produced_bytes: produced,
            batch_size: cfg.batch_size,
            switched_from,
        })
    }

    /// `drain()` for one broker: the head batch of every partition it leads.
    pub(super) fn drain(&mut self, leader: BrokerId, ready_tps: &[TopicPartition]) -> Step<bool> {
        let p = self.id;
        let now = self.k.now;
        let cfg = self.me().config.clone();
        let tps: Vec<TopicPartition> = self
            .me()
            .accumulator
            .iter()
            .filter(|(tp, dq)| !dq.is_empty() && self.me().metadata.leader(tp) == Some(leader))
            .map(|(tp, _)| tp.clone())
            .collect();
        let mut drained = Vec::new();
        for tp in tps {
            let b = self.me().accumulator[&tp]
                .front()
                .cloned()
                .expect("non-empty");
            if b.retry_at > now || !self.txn_may_drain(&tp) {
                continue;
            }
            if cfg.idempotence() {
                // A retried batch waits until it is the first unacknowledged
                // sequence of its partition (Sender.shouldStopDrainBatchesForPartition):
                // in effect one request in flight while retrying.
                let first_unacked = self
                    .me()
                    .unacked
                    .get(&tp)
                    .and_then(|s| s.iter().next().copied());
                if let (Some(first), Some(seq)) = (first_unacked, b.base_sequence) {
                    if seq != first {
                        continue;
                    }
                }
            }
            drained.push((tp, b));
        }
        if drained.is_empty() {
            return Ok(false);
        }
        self.k.gate()?;
        let cid = self.correlation();
        let mut topic_data = Vec::new();
        let mut shown = Vec::new();
        let mut batches = Vec::new();
        let (pid, epoch) = (self.me().producer_id, self.me().producer_epoch);
        for (tp, mut b) in drained {
            self.pop_batch(&tp);
            if cfg.idempotence() && b.base_sequence.is_none() {
                let pr = self.me_mut();
                let seq = pr.next_sequence.entry(tp.clone()).or_insert(0);
                let s0 = *seq;
                b.base_sequence = Some(s0);
                *seq = seq.wrapping_add(b.records.len() as i32);
                pr.unacked.entry(tp.clone()).or_default().insert(s0);
            }
            let reason = if b.attempts > 0 {
                "retry".to_string()
            } else if b.full
                || self
                    .me()
                    .accumulator
                    .get(&tp)
                    .is_some_and(|d| !d.is_empty())
            {
                "full (batch.size)".to_string()
            } else if now >= b.created_ms + cfg.linger_ms {
                format!("linger.ms={} passed", cfg.linger_ms)
            } else if ready_tps.contains(&tp) && self.me().closing {
                "close()".to_string()
            } else if ready_tps.contains(&tp) {
                "buffer.memory exhausted".to_string()
            } else {
                "with another batch for the same broker".to_string()
            };
            b.attempts += 1;
            let spec = BatchSpec {
                producer_id: if cfg.idempotence() { pid } else { -1 },
                producer_epoch: if cfg.idempotence() { epoch } else { -1 },
                base_sequence: b.base_sequence.unwrap_or(-1),
                transactional: self.me().txn.is_some(),
                ..BatchSpec::default()
            };
            let bytes = record::build_batch(&spec, &b.new_records());
            shown.push(DrainedBatch {
                batch: b.id,
                tp: tp.clone(),
                records: b.records.len() as u32,
                bytes: bytes.len() as u64,
                base_sequence: b.base_sequence.unwrap_or(-1),
                attempt: b.attempts,
                reason,
            });
            topic_data.push((tp.clone(), Bytes::new(bytes)));
            batches.push(b);
        }
        let in_flight_now = self.me().in_flight_count(leader) as u32 + 1;
        self.k.emit(
            vec![pnode(p)],
            EventKind::BatchesDrained {
                producer: p,
                broker: leader,
                batches: shown,
                in_flight: in_flight_now,
                max_in_flight: cfg.max_in_flight_requests_per_connection,
            },
        );
        let acks = cfg.acks.0;
        // In flight from the drain on (so the state after the drain shows
        // it); acks=0 requests are never answered, so never in flight.
        let batches = if acks == 0 {
            batches
        } else {
            self.me_mut().in_flight.entry(leader).or_default().insert(
                cid,
                InFlight {
                    batches,
                    sent_ms: now,
                },
            );
            Vec::new()
        };
        self.k.send(
            pnode(p),
            NodeId::Broker(leader),
            Message::Produce {
                correlation_id: cid,
                acks,
                timeout_ms: cfg.request_timeout_ms,
                transactional_id: cfg.transactional_id.clone(),
                topic_data,
            },
        )?;
        if acks == 0 {
            // Nobody answers acks=0: the batch is done once it is on the wire.
            for b in batches {
                self.complete_batch(b, -1)?;
            }
            return Ok(true);
        }
        self.k.gate()?;
        self.k.set_timer(
            pnode(p),
            now + cfg.request_timeout_ms,
            Timer::RequestTimeout {
                correlation_id: cid,
            },
        )?;
        Ok(true)
    }

    pub(super) fn schedule_wake(&mut self) -> Step {
        let p = self.id;
        let now = self.k.now;
        let cfg = self.me().config.clone();
        let mut next: Option<u64> = None;
        let mut consider = |t: u64| {
            if t > now {
                next = Some(next.map_or(t, |n: u64| n.min(t)));
            }
        };
        for dq in self.me().accumulator.values() {
            if let Some(b) = dq.front() {
                consider(b.created_ms + cfg.linger_ms);
                consider(b.retry_at);
                consider(b.created_ms + cfg.delivery_timeout());
            }
        }
        if let Some(f) = self.me().blocked.front() {
            consider(f.send_ms + cfg.max_block_ms);
        }
        let md = &self.me().metadata;
        let waiting =
            self.me().accumulator.values().any(|d| !d.is_empty()) || !self.me().blocked.is_empty();
        if waiting && md.stale && md.in_flight.is_none() {
            consider(md.next_metadata_ms);
        }
        if waiting {
            if let Some(t) = md
                .backoff
                .values()
                .map(|x| x.until_ms)
                .filter(|t| *t > now)
                .min()
            {
                consider(t);
            }
        }
        self.k.gate()?;
        // Wakes are never cancelled (a stale one finds nothing to do); only
        // schedule one that is not already pending.
        let pr = self.me_mut();
        pr.wakes.retain(|w| *w > now);
        if let Some(t) = next {
            if pr.wakes.insert(t) {
                self.k.set_timer(pnode(p), t, Timer::ProducerWake)?;
            }
        }
        Ok(())
    }

    /// Fails batches older than `delivery.timeout.ms` that are not in flight.
    pub(super) fn expire(&mut self) -> Step {
        let now = self.k.now;
        let dt = self.me().config.delivery_timeout();
        let expired: Vec<TopicPartition> = self
            .me()
            .accumulator
            .iter()
            .filter(|(_, dq)| dq.front().is_some_and(|b| now >= b.created_ms + dt))
            .map(|(tp, _)| tp.clone())
            .collect();
        for tp in expired {
            while let Some(b) = self
                .me()
                .accumulator
                .get(&tp)
                .and_then(|d| d.front())
                .filter(|b| now >= b.created_ms + dt)
                .cloned()
            {
                self.k.gate()?;
                self.pop_batch(&tp);
                let msg = format!(
                    "TimeoutException: Expiring {} record(s) for {tp}: {} ms has passed since batch creation",
                    b.records.len(),
                    now - b.created_ms
                );
                self.fail_batch(b, msg)?;
            }
        }
        Ok(())
    }

    /// Takes the head batch of a partition's deque, dropping the deque when
    /// it empties (so the Sender only ever walks partitions with batches).
    pub(super) fn pop_batch(&mut self, tp: &TopicPartition) {
        let pr = self.me_mut();
        if let Some(dq) = pr.accumulator.get_mut(tp) {
            dq.pop_front();
            if dq.is_empty() {
                pr.accumulator.remove(tp);
            }
        }
    }

    /// A batch is done (acknowledged or failed): free its memory and sequence.
    pub(super) fn release(&mut self, b: &ProducerBatch) {
        let pr = self.me_mut();
        pr.buffer_used = pr.buffer_used.saturating_sub(b.reserved);
        if let (Some(seq), Some(set)) = (b.base_sequence, pr.unacked.get_mut(&b.tp)) {
            set.remove(&seq);
        }
    }
}
