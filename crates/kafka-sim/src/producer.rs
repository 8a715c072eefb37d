//! The producer client (P1–P6), stage by stage as in `KafkaProducer`:
//!
//! 1. **Interceptors** (`ProducerInterceptor.onSend`) see each record first.
//! 2. **Serializers** turn key and value into bytes (`StringSerializer`: UTF-8).
//! 3. **Partitioner**: explicit partition, else murmur2 of the key, else the
//!    sticky partition (see `partitioner.rs`).
//! 4. **RecordAccumulator**: per-partition deques of batches up to
//!    `batch.size`, drawing from `buffer.memory`; `send()` blocks up to
//!    `max.block.ms` when the buffer is full.
//! 5. **Sender**: a batch is *ready* when full, when `linger.ms` has passed, or
//!    when its retry backoff is over; for each ready leader the sender drains
//!    one batch per partition that broker leads into one `Produce` request,
//!    keeping at most `max.in.flight.requests.per.connection` in flight.
//! 6. **Responses**: success acknowledges every record of the batch (then the
//!    interceptors' `onAcknowledgement`); a retriable error re-queues the
//!    batch after `retry.backoff.ms` (doubling up to `retry.backoff.max.ms`,
//!    Kafka ≥ 3.7, without its ±20% jitter) while `delivery.timeout.ms`
//!    allows, refreshing metadata when the leader moved.
//!
//! With `enable.idempotence` the producer first gets a producer id
//! (`InitProducerId`) and numbers each partition's batches; a retry keeps its
//! sequence, so the broker can drop duplicates and refuse gaps, and batches
//! are re-queued in sequence order. Without it, a failed batch retried while a
//! later one succeeded lands *after* it: records reorder.
//!
//! Simplified: no compression (`compression.type=none`), no transactions,
//! adaptive partitioning (`partitioner.adaptive.partitioning.enable`) is not
//! simulated (the sticky partition switches uniformly at random), and a
//! request holds at most one batch per partition with no `max.request.size`
//! limit.

use crate::client::{ClientMetadata, ClientRef};
use crate::client_config::{PartitionerClass, ProducerConfig};
use crate::collections::{SortedMap, SortedSet};
use crate::event::EventKind;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::msg::{Bytes, ErrorCode, Message, ProducePartitionResponse};
use crate::partitioner::{murmur2, to_positive};
use crate::scenario::ProducerSpec;
use crate::sim::{Step, Timer, World};
use crate::storage::record::{self, BatchSpec, NewRecord, RECORD_BATCH_OVERHEAD};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Interceptors a lesson can install by name in `interceptor.classes`.
pub const KNOWN_INTERCEPTORS: [&str; 2] = ["uppercase-value", "audit"];

// The partitioner's decision and the Sender's batches are reported in
// events; they live beside the partitioner and the events (low modules), so
// `event` does not import the producer.
pub use crate::event::DrainedBatch;
pub use crate::partitioner::PartitionChoice;

/// A record between `send()` and the accumulator (blocked on metadata or memory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingRecord {
    pub id: u64,
    pub topic: String,
    pub partition: Option<i32>,
    pub key: Option<String>,
    pub value: Option<String>,
    pub send_ms: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchRecord {
    pub id: u64,
    pub key: Option<String>,
    pub value: Option<String>,
    pub timestamp: i64,
}

/// A `ProducerBatch` in the accumulator or in flight.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProducerBatch {
    pub id: u64,
    pub tp: TopicPartition,
    pub records: Vec<BatchRecord>,
    /// Bytes the batch takes encoded (header included).
    pub bytes: u64,
    /// Buffer memory reserved for it.
    pub reserved: u64,
    pub created_ms: u64,
    pub attempts: u32,
    pub retry_at: u64,
    pub base_sequence: Option<i32>,
    pub full: bool,
}

impl ProducerBatch {
    fn new_records(&self) -> Vec<NewRecord> {
        self.records
            .iter()
            .map(|r| {
                NewRecord::new(
                    r.key.as_deref().map(str::as_bytes),
                    r.value.as_deref().map(str::as_bytes),
                    r.timestamp,
                )
            })
            .collect()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InFlight {
    pub batches: Vec<ProducerBatch>,
    pub sent_ms: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StickyState {
    pub partition: i32,
    pub produced_bytes: u64,
    /// The partition given up at the last switch, for the explanation.
    pub previous: Option<i32>,
}

/// A producer client.
#[derive(Clone, Debug)]
pub struct Producer {
    pub index: u32,
    pub name: String,
    pub config: ProducerConfig,
    pub started: bool,
    pub metadata: ClientMetadata,
    pub next_correlation: i32,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub init_pid_in_flight: Option<i32>,
    pub accumulator: SortedMap<TopicPartition, VecDeque<ProducerBatch>>,
    pub buffer_used: u64,
    pub blocked: VecDeque<PendingRecord>,
    /// The record and reason last reported as blocked, so a retry that
    /// blocks for the same reason is not reported twice.
    pub blocked_reported: Option<(u64, String)>,
    pub in_flight: SortedMap<BrokerId, SortedMap<i32, InFlight>>,
    pub next_sequence: SortedMap<TopicPartition, i32>,
    /// Sequences sent and not yet acknowledged or failed, per partition.
    pub unacked: SortedMap<TopicPartition, SortedSet<i32>>,
    pub sticky: SortedMap<String, StickyState>,
    pub round_robin: SortedMap<String, u32>,
    pub next_record: u64,
    pub next_batch: u64,
    /// Times of pending ProducerWake timers.
    pub wakes: SortedSet<u64>,
    /// `close()` was called: `send()` is refused and every batch is ready.
    pub closing: bool,
    /// `close()` finished: nothing left to send or to wait for.
    pub closed: bool,
    /// The Sender was force-closed (`close(timeout)` ran out).
    pub force_closed: bool,
}

impl Producer {
    pub fn new(index: u32, spec: &ProducerSpec) -> Producer {
        Producer {
            index,
            name: spec.name.clone(),
            config: spec.config.clone(),
            started: false,
            metadata: ClientMetadata::default(),
            next_correlation: 0,
            producer_id: -1,
            producer_epoch: -1,
            init_pid_in_flight: None,
            accumulator: SortedMap::new(),
            buffer_used: 0,
            blocked: VecDeque::new(),
            blocked_reported: None,
            in_flight: SortedMap::new(),
            next_sequence: SortedMap::new(),
            unacked: SortedMap::new(),
            sticky: SortedMap::new(),
            round_robin: SortedMap::new(),
            next_record: 0,
            next_batch: 0,
            wakes: Default::default(),
            closing: false,
            closed: false,
            force_closed: false,
        }
    }

    pub fn in_flight_count(&self, b: BrokerId) -> usize {
        self.in_flight.get(&b).map(|m| m.len()).unwrap_or(0)
    }

    /// Produce requests in flight, to every broker.
    pub fn requests_in_flight(&self) -> usize {
        self.in_flight.values().map(|m| m.len()).sum()
    }

    /// Batches in the accumulator, over every partition.
    pub fn batches_waiting(&self) -> usize {
        self.accumulator.values().map(|d| d.len()).sum()
    }

    /// Exact size a record adds to a batch (`DefaultRecord.sizeInBytes`).
    fn record_size(
        batch: Option<&ProducerBatch>,
        key: &Option<String>,
        value: &Option<String>,
        ts: i64,
    ) -> u64 {
        let (delta, base_ts) = match batch {
            Some(b) => (
                b.records.len() as i32,
                b.records.first().map(|r| r.timestamp).unwrap_or(ts),
            ),
            None => (0, ts),
        };
        let r = NewRecord::new(
            key.as_deref().map(str::as_bytes),
            value.as_deref().map(str::as_bytes),
            ts,
        );
        let body = record::record_body_size(delta, ts - base_ts, &r);
        (crate::storage::varint::varint_size(body as i32) + body) as u64
    }
}

fn pnode(p: u32) -> NodeId {
    NodeId::Producer(p)
}

fn text(b: &Option<String>) -> Option<String> {
    b.clone()
}

impl World {
    fn pr(&self, p: u32) -> &Producer {
        &self.producers[p as usize]
    }

    fn prm(&mut self, p: u32) -> &mut Producer {
        &mut self.producers[p as usize]
    }

    fn producer_correlation(&mut self, p: u32) -> i32 {
        let pr = self.prm(p);
        pr.next_correlation += 1;
        pr.next_correlation
    }

    pub(crate) fn producer_timer(&mut self, p: u32, timer: Timer) -> Step {
        if self.pr(p).closed {
            return Ok(()); // a closed producer's Sender thread has ended
        }
        match timer {
            Timer::ClientStart => {
                self.k.gate()?;
                self.prm(p).started = true;
                let cid = self.producer_correlation(p);
                self.client_request_metadata(ClientRef::Producer(p), cid)?;
                if self.pr(p).config.enable_idempotence {
                    self.producer_init_pid(p)?;
                }
                let age = self.pr(p).config.metadata_max_age_ms;
                self.k
                    .set_timer(pnode(p), self.k.now + age, Timer::MetadataRefresh)
            }
            Timer::MetadataRefresh => {
                let cid = self.producer_correlation(p);
                self.client_request_metadata(ClientRef::Producer(p), cid)?;
                let age = self.pr(p).config.metadata_max_age_ms;
                self.k
                    .set_timer(pnode(p), self.k.now + age, Timer::MetadataRefresh)
            }
            Timer::ProducerWake => self.producer_progress(p),
            Timer::ProducerCloseTimeout { timeout_ms } => self.producer_force_close(p, timeout_ms),
            Timer::ConnectionClosed { peer } => {
                let cids: Vec<i32> = self
                    .pr(p)
                    .in_flight
                    .get(&peer)
                    .map(|m| m.keys().copied().collect())
                    .unwrap_or_default();
                if cids.is_empty() {
                    return Ok(());
                }
                self.k.record(
                    vec![pnode(p)],
                    EventKind::ConnectionClosed {
                        node: pnode(p),
                        peer,
                        requests_failed: cids.len() as u32,
                    },
                )?;
                self.client_connection_failed(&ClientRef::Producer(p), peer)?;
                for cid in cids {
                    self.producer_request_failed(p, peer, cid, ErrorCode::NetworkException)?;
                }
                Ok(())
            }
            Timer::RequestTimeout { correlation_id } => {
                if self.client_metadata_failed(ClientRef::Producer(p), correlation_id)? {
                    return self.producer_progress(p);
                }
                if self.pr(p).init_pid_in_flight == Some(correlation_id) {
                    self.k.gate()?;
                    self.prm(p).init_pid_in_flight = None;
                    return self.producer_init_pid(p);
                }
                let found = self
                    .pr(p)
                    .in_flight
                    .iter()
                    .find(|(_, m)| m.contains_key(&correlation_id))
                    .map(|(b, _)| *b);
                if let Some(b) = found {
                    self.producer_request_failed(p, b, correlation_id, ErrorCode::RequestTimedOut)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn producer_init_pid(&mut self, p: u32) -> Step {
        if self.pr(p).init_pid_in_flight.is_some() {
            return Ok(());
        }
        let brokers = self.client_known_brokers(&self.pr(p).metadata);
        self.k.gate()?;
        let cid = self.producer_correlation(p);
        let to = brokers[(cid as usize) % brokers.len()];
        self.prm(p).init_pid_in_flight = Some(cid);
        self.k.send(
            pnode(p),
            NodeId::Broker(to),
            Message::InitProducerId {
                correlation_id: cid,
            },
        )?;
        let timeout = self.k.now + self.pr(p).config.request_timeout_ms;
        self.k.set_timer(
            pnode(p),
            timeout,
            Timer::RequestTimeout {
                correlation_id: cid,
            },
        )
    }

    /// `producer.send(record)`: the first three stages, then the accumulator.
    pub(crate) fn producer_send(
        &mut self,
        p: u32,
        topic: &str,
        partition: Option<i32>,
        key: Option<String>,
        value: Option<String>,
    ) -> Step {
        self.k.gate()?;
        let id = {
            let pr = self.prm(p);
            pr.next_record += 1;
            pr.next_record
        };
        let mut value = value;
        for ic in self.pr(p).config.interceptor_classes.clone() {
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
        if !self.pr(p).blocked.is_empty() {
            // Others are already waiting: keep send() order.
            return self.producer_block(p, rec, "earlier records are still waiting".into());
        }
        if !self.producer_try_accumulate(p, &rec)? {
            return Ok(());
        }
        self.producer_progress(p)
    }

    fn producer_block(&mut self, p: u32, rec: PendingRecord, reason: String) -> Step {
        self.k.gate()?;
        let id = rec.id;
        self.prm(p).blocked.push_back(rec);
        let max_block = self.pr(p).config.max_block_ms;
        let key = Some((id, reason.clone()));
        if self.pr(p).blocked_reported == key {
            return self.producer_schedule_wake(p);
        }
        self.prm(p).blocked_reported = key;
        self.k.emit(
            vec![pnode(p)],
            EventKind::ProducerBlocked {
                producer: p,
                record: id,
                reason,
                max_block_ms: max_block,
            },
        );
        self.producer_schedule_wake(p)
    }

    /// Partition and append one record; `Ok(false)` if it had to block.
    fn producer_try_accumulate(&mut self, p: u32, rec: &PendingRecord) -> Step<bool> {
        let Some(n) = self.pr(p).metadata.partition_count(&rec.topic) else {
            self.k.gate()?;
            self.prm(p).metadata.stale = true;
            self.producer_block(
                p,
                rec.clone(),
                format!("waiting for metadata of topic {}", rec.topic),
            )?;
            let cid = self.producer_correlation(p);
            self.client_request_metadata(ClientRef::Producer(p), cid)?;
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
        let cfg = self.pr(p).config.clone();
        let ts = self.wall_ms();
        // Would a new batch be needed, and is there memory for it?
        let size_if_new =
            Producer::record_size(None, &rec.key, &rec.value, ts) + RECORD_BATCH_OVERHEAD as u64;
        let choice = self.producer_partition(p, rec, n)?;
        let tp = TopicPartition::new(rec.topic.as_str(), choice.partition());
        // Borrow the open batch: cloning it here made appends quadratic.
        let last = self.pr(p).accumulator.get(&tp).and_then(|d| d.back());
        let fits = last.is_some_and(|b| {
            !b.full
                && b.bytes + Producer::record_size(Some(b), &rec.key, &rec.value, ts)
                    <= cfg.batch_size.max(b.reserved)
        });
        let reserve = cfg.batch_size.max(size_if_new);
        if !fits && self.pr(p).buffer_used + reserve > cfg.buffer_memory {
            self.producer_block(
                p,
                rec.clone(),
                format!(
                    "buffer.memory={} is used up ({} bytes in batches waiting to be sent)",
                    cfg.buffer_memory,
                    self.pr(p).buffer_used
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
            let pr = self.prm(p);
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
            let pr = self.prm(p);
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
                .pr(p)
                .accumulator
                .get(&tp)
                .is_some_and(|d| d.iter().all(|b| b.full));
            let pr = self.prm(p);
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

    fn producer_partition(&mut self, p: u32, rec: &PendingRecord, n: i32) -> Step<PartitionChoice> {
        let cfg = self.pr(p).config.clone();
        if let Some(part) = rec.partition {
            return Ok(PartitionChoice::Explicit { partition: part });
        }
        if cfg.partitioner_class == PartitionerClass::RoundRobin {
            self.k.gate()?;
            let c = self
                .prm(p)
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
            .pr(p)
            .sticky
            .get(&rec.topic)
            .map(|s| s.partition)
            .filter(|x| *x >= 0 && *x < n);
        let (partition, switched_from) = match current {
            Some(c) => (c, None),
            None => {
                let previous = self.pr(p).sticky.get(&rec.topic).and_then(|s| s.previous);
                let pick = self.k.rng.below(n as u64) as i32;
                let st = self.prm(p).sticky.entry(rec.topic.clone()).or_default();
                st.partition = pick;
                (pick, previous.filter(|x| *x >= 0))
            }
        };
        let produced = self
            .pr(p)
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

    /// Retries blocked `send()`s, then runs the Sender.
    fn producer_progress(&mut self, p: u32) -> Step {
        if self.pr(p).closed {
            return Ok(()); // a closed producer's Sender thread has ended
        }
        // Blocked sends whose max.block.ms ran out fail with a TimeoutException.
        let now = self.k.now;
        let max_block = self.pr(p).config.max_block_ms;
        while let Some(front) = self.pr(p).blocked.front().cloned() {
            if now >= front.send_ms + max_block {
                self.k.gate()?;
                self.prm(p).blocked.pop_front();
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
            self.prm(p).blocked.pop_front();
            let blocked_again = {
                let before = self.pr(p).blocked.len();
                let ok = self.producer_try_accumulate(p, &front)?;
                if !ok && self.pr(p).blocked.len() > before {
                    // It went to the back: move it to the front again.
                    self.k.gate()?;
                    let r = self.prm(p).blocked.pop_back().expect("just pushed");
                    self.prm(p).blocked.push_front(r);
                    true
                } else {
                    false
                }
            };
            if blocked_again {
                break;
            }
        }
        self.producer_sender(p)
    }

    /// One pass of the Sender thread (`Sender.sendProducerData`).
    fn producer_sender(&mut self, p: u32) -> Step {
        let now = self.k.now;
        let cfg = self.pr(p).config.clone();
        self.producer_expire(p)?;
        if self.pr(p).metadata.stale
            || self.pr(p).accumulator.keys().any(|tp| {
                self.pr(p).metadata.leader(tp).is_none() && !self.pr(p).accumulator[tp].is_empty()
            })
        {
            let cid = self.producer_correlation(p);
            self.client_request_metadata(ClientRef::Producer(p), cid)?;
        }
        if cfg.enable_idempotence && self.pr(p).producer_id < 0 {
            return self.producer_schedule_wake(p); // no producer id yet: nothing can be sent
        }
        // ready(): which leaders have a sendable batch at the head of a deque?
        // (A broker the client waits to reconnect to is not `client.ready`.)
        let exhausted = !self.pr(p).blocked.is_empty();
        let leaders: SortedSet<BrokerId> = SortedSet::from_iter(
            self.pr(p)
                .accumulator
                .keys()
                .filter_map(|tp| self.pr(p).metadata.leader(tp)),
        );
        let unready: SortedSet<BrokerId> = SortedSet::from_iter(
            leaders
                .into_iter()
                .filter(|b| !self.client_ready(&ClientRef::Producer(p), *b)),
        );
        let mut ready: SortedMap<BrokerId, Vec<TopicPartition>> = SortedMap::new();
        for (tp, dq) in &self.pr(p).accumulator {
            let Some(b) = dq.front() else { continue };
            let Some(leader) = self.pr(p).metadata.leader(tp) else {
                continue;
            };
            if b.retry_at > now || unready.contains(&leader) {
                continue;
            }
            let full = dq.len() > 1 || b.full;
            let lingered = now >= b.created_ms + cfg.linger_ms;
            // After close() the accumulator is closed: every batch is sendable
            // (RecordAccumulator.ready: `full || expired || exhausted || closed`).
            if full || lingered || b.attempts > 0 || exhausted || self.pr(p).closing {
                ready.entry(leader).or_default().push(tp.clone());
            }
        }
        for (leader, ready_tps) in ready {
            while (self.pr(p).in_flight_count(leader) as u32)
                < cfg.max_in_flight_requests_per_connection
            {
                if !self.producer_drain(p, leader, &ready_tps)? {
                    break;
                }
            }
        }
        self.producer_schedule_wake(p)?;
        self.producer_maybe_closed(p)
    }

    /// `producer.close()`: `KafkaProducer.close` with no timeout. The
    /// application may not `send()` any more; the Sender keeps running until
    /// the accumulator is empty and no request is in flight (retries
    /// included), then the producer is closed.
    ///
    /// With a timeout (`close(Duration)`): the same, but when the time runs
    /// out the Sender is force-closed (`Sender.forceClose`); a zero timeout
    /// force-closes at once, without the graceful part.
    pub(crate) fn producer_close(&mut self, p: u32, timeout_ms: Option<u64>) -> Step {
        if self.pr(p).closing {
            // close() is already waiting: only a timeout can cut it short.
            return self.producer_close_deadline(p, timeout_ms);
        }
        self.k.gate()?;
        let pr = self.prm(p);
        pr.closing = true;
        let batches = pr.batches_waiting() as u32;
        let records = pr.blocked.len() as u32
            + pr.accumulator
                .values()
                .flatten()
                .map(|b| b.records.len() as u32)
                .sum::<u32>();
        let in_flight = pr.requests_in_flight() as u32;
        self.k.emit(
            vec![pnode(p)],
            EventKind::ProducerClosing {
                producer: p,
                batches,
                records,
                in_flight,
            },
        );
        self.producer_close_deadline(p, timeout_ms)?;
        self.producer_progress(p)
    }

    /// `close(timeout)`'s deadline: a zero timeout force-closes at once,
    /// another when it runs out; no timeout, never.
    fn producer_close_deadline(&mut self, p: u32, timeout_ms: Option<u64>) -> Step {
        match timeout_ms {
            None => Ok(()),
            Some(0) => self.producer_force_close(p, 0),
            Some(t) => {
                let at = self.k.now + t;
                self.k
                    .set_timer(pnode(p), at, Timer::ProducerCloseTimeout { timeout_ms: t })
            }
        }
    }

    /// `Sender.forceClose`: the Sender stops at once and
    /// `RecordAccumulator.abortIncompleteBatches` fails every batch not yet
    /// answered, those in flight included (their responses, if any come,
    /// are not read: the connections are closed). A `send()` still waiting
    /// for `buffer.memory` fails as the buffer pool closes.
    fn producer_force_close(&mut self, p: u32, timeout_ms: u64) -> Step {
        let pr = self.pr(p);
        if pr.closed {
            return Ok(());
        }
        self.k.gate()?;
        let pr = self.prm(p);
        pr.closing = true;
        pr.force_closed = true;
        let queued: Vec<ProducerBatch> = std::mem::take(&mut pr.accumulator)
            .into_iter()
            .flat_map(|(_, dq)| dq)
            .collect();
        // In the order they were sent, per broker.
        let flying: Vec<ProducerBatch> = std::mem::take(&mut pr.in_flight)
            .into_iter()
            .flat_map(|(_, m)| m)
            .flat_map(|(_, f)| f.batches)
            .collect();
        let blocked: Vec<PendingRecord> = std::mem::take(&mut pr.blocked).into();
        let records = queued
            .iter()
            .chain(&flying)
            .map(|b| b.records.len() as u32)
            .sum();
        self.k.emit(
            vec![pnode(p)],
            EventKind::ProducerForceClosed {
                producer: p,
                timeout_ms,
                batches: (queued.len() + flying.len()) as u32,
                records,
                in_flight: flying.len() as u32,
            },
        );
        // Oldest first: those in flight, then those still queued.
        for b in flying.into_iter().chain(queued) {
            self.producer_fail_batch(
                p,
                b,
                "KafkaException: Producer is closed forcefully.".into(),
            )?;
        }
        for r in blocked {
            // The send() waited for the topic's metadata (ProducerMetadata
            // closes) or for buffer memory (the BufferPool closes).
            let error = if self.pr(p).metadata.partition_count(&r.topic).is_none() {
                "KafkaException: Requested metadata update after close"
            } else {
                "KafkaException: Producer closed while allocating memory"
            };
            self.k.record(
                vec![pnode(p)],
                EventKind::RecordFailed {
                    producer: p,
                    record: r.id,
                    tp: None,
                    error: error.into(),
                    key: r.key.clone(),
                    value: r.value.clone(),
                },
            )?;
        }
        self.producer_maybe_closed(p)
    }

    /// Ends a `close()` once nothing is left to send or to wait for.
    fn producer_maybe_closed(&mut self, p: u32) -> Step {
        let pr = self.pr(p);
        if !pr.closing
            || pr.closed
            || !pr.accumulator.is_empty()
            || !pr.blocked.is_empty()
            || pr.requests_in_flight() > 0
        {
            return Ok(());
        }
        self.k.gate()?;
        let pr = self.prm(p);
        pr.closed = true;
        let records_sent = pr.next_record;
        let forced = pr.force_closed;
        self.k.emit(
            vec![pnode(p)],
            EventKind::ProducerClosed {
                producer: p,
                records_sent,
                forced,
            },
        );
        Ok(())
    }

    /// `drain()` for one broker: the head batch of every partition it leads.
    fn producer_drain(
        &mut self,
        p: u32,
        leader: BrokerId,
        ready_tps: &[TopicPartition],
    ) -> Step<bool> {
        let now = self.k.now;
        let cfg = self.pr(p).config.clone();
        let tps: Vec<TopicPartition> = self
            .pr(p)
            .accumulator
            .iter()
            .filter(|(tp, dq)| !dq.is_empty() && self.pr(p).metadata.leader(tp) == Some(leader))
            .map(|(tp, _)| tp.clone())
            .collect();
        let mut drained = Vec::new();
        for tp in tps {
            let b = self.pr(p).accumulator[&tp]
                .front()
                .cloned()
                .expect("non-empty");
            if b.retry_at > now {
                continue;
            }
            if cfg.enable_idempotence {
                // A retried batch waits until it is the first unacknowledged
                // sequence of its partition (Sender.shouldStopDrainBatchesForPartition):
                // in effect one request in flight while retrying.
                let first_unacked = self
                    .pr(p)
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
        let cid = self.producer_correlation(p);
        let mut topic_data = Vec::new();
        let mut shown = Vec::new();
        let mut batches = Vec::new();
        let (pid, epoch) = (self.pr(p).producer_id, self.pr(p).producer_epoch);
        for (tp, mut b) in drained {
            self.producer_pop_batch(p, &tp);
            if cfg.enable_idempotence && b.base_sequence.is_none() {
                let pr = self.prm(p);
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
                    .pr(p)
                    .accumulator
                    .get(&tp)
                    .is_some_and(|d| !d.is_empty())
            {
                "full (batch.size)".to_string()
            } else if now >= b.created_ms + cfg.linger_ms {
                format!("linger.ms={} passed", cfg.linger_ms)
            } else if ready_tps.contains(&tp) && self.pr(p).closing {
                "close()".to_string()
            } else if ready_tps.contains(&tp) {
                "buffer.memory exhausted".to_string()
            } else {
                "with another batch for the same broker".to_string()
            };
            b.attempts += 1;
            let spec = BatchSpec {
                producer_id: if cfg.enable_idempotence { pid } else { -1 },
                producer_epoch: if cfg.enable_idempotence { epoch } else { -1 },
                base_sequence: b.base_sequence.unwrap_or(-1),
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
        let in_flight_now = self.pr(p).in_flight_count(leader) as u32 + 1;
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
            self.prm(p).in_flight.entry(leader).or_default().insert(
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
                topic_data,
            },
        )?;
        if acks == 0 {
            // Nobody answers acks=0: the batch is done once it is on the wire.
            for b in batches {
                self.producer_complete_batch(p, b, -1)?;
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

    fn producer_schedule_wake(&mut self, p: u32) -> Step {
        let now = self.k.now;
        let cfg = self.pr(p).config.clone();
        let mut next: Option<u64> = None;
        let mut consider = |t: u64| {
            if t > now {
                next = Some(next.map_or(t, |n: u64| n.min(t)));
            }
        };
        for dq in self.pr(p).accumulator.values() {
            if let Some(b) = dq.front() {
                consider(b.created_ms + cfg.linger_ms);
                consider(b.retry_at);
                consider(b.created_ms + cfg.delivery_timeout_ms);
            }
        }
        if let Some(f) = self.pr(p).blocked.front() {
            consider(f.send_ms + cfg.max_block_ms);
        }
        let md = &self.pr(p).metadata;
        let waiting = self.pr(p).accumulator.values().any(|d| !d.is_empty())
            || !self.pr(p).blocked.is_empty();
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
        let pr = self.prm(p);
        pr.wakes.retain(|w| *w > now);
        if let Some(t) = next {
            if pr.wakes.insert(t) {
                self.k.set_timer(pnode(p), t, Timer::ProducerWake)?;
            }
        }
        Ok(())
    }

    /// Fails batches older than `delivery.timeout.ms` that are not in flight.
    fn producer_expire(&mut self, p: u32) -> Step {
        let now = self.k.now;
        let dt = self.pr(p).config.delivery_timeout_ms;
        let expired: Vec<TopicPartition> = self
            .pr(p)
            .accumulator
            .iter()
            .filter(|(_, dq)| dq.front().is_some_and(|b| now >= b.created_ms + dt))
            .map(|(tp, _)| tp.clone())
            .collect();
        for tp in expired {
            while let Some(b) = self
                .pr(p)
                .accumulator
                .get(&tp)
                .and_then(|d| d.front())
                .filter(|b| now >= b.created_ms + dt)
                .cloned()
            {
                self.k.gate()?;
                self.producer_pop_batch(p, &tp);
                let msg = format!(
                    "TimeoutException: Expiring {} record(s) for {tp}: {} ms has passed since batch creation",
                    b.records.len(),
                    now - b.created_ms
                );
                self.producer_fail_batch(p, b, msg)?;
            }
        }
        Ok(())
    }

    /// Takes the head batch of a partition's deque, dropping the deque when
    /// it empties (so the Sender only ever walks partitions with batches).
    fn producer_pop_batch(&mut self, p: u32, tp: &TopicPartition) {
        let pr = self.prm(p);
        if let Some(dq) = pr.accumulator.get_mut(tp) {
            dq.pop_front();
            if dq.is_empty() {
                pr.accumulator.remove(tp);
            }
        }
    }

    /// A batch is done (acknowledged or failed): free its memory and sequence.
    fn producer_release(&mut self, p: u32, b: &ProducerBatch) {
        let pr = self.prm(p);
        pr.buffer_used = pr.buffer_used.saturating_sub(b.reserved);
        if let (Some(seq), Some(set)) = (b.base_sequence, pr.unacked.get_mut(&b.tp)) {
            set.remove(&seq);
        }
    }

    fn producer_complete_batch(&mut self, p: u32, b: ProducerBatch, base_offset: i64) -> Step {
        self.k.gate()?;
        self.producer_release(p, &b);
        let acks = self.pr(p).config.acks.0;
        let interceptors = self.pr(p).config.interceptor_classes.clone();
        for (i, r) in b.records.iter().enumerate() {
            let offset = if base_offset >= 0 {
                base_offset + i as i64
            } else {
                -1
            };
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
            self.ledger_ack(
                p,
                &b.tp,
                offset,
                r.key.as_ref().map(|k| k.as_bytes().to_vec()),
                r.value.as_ref().map(|v| v.as_bytes().to_vec()),
                acks,
            )?;
        }
        if acks != 0 && base_offset >= 0 {
            let n = b.records.len() as i64;
            self.ledger_check_batch(&b.tp, base_offset, base_offset + n - 1)?;
        }
        Ok(())
    }

    fn producer_fail_batch(&mut self, p: u32, b: ProducerBatch, error: String) -> Step {
        self.k.gate()?;
        self.producer_release(p, &b);
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
    fn producer_reenqueue(&mut self, p: u32, mut b: ProducerBatch, error: ErrorCode) -> Step {
        let cfg = self.pr(p).config.clone();
        let exp = b.attempts.saturating_sub(1).min(20);
        let backoff = (cfg.retry_backoff_ms.saturating_mul(1u64 << exp))
            .min(cfg.retry_backoff_max_ms.max(cfg.retry_backoff_ms));
        self.k.gate()?;
        b.retry_at = self.k.now + backoff;
        let (tp, id, attempt) = (b.tp.clone(), b.id, b.attempts);
        let pr = self.prm(p);
        let dq = pr.accumulator.entry(tp.clone()).or_default();
        if cfg.enable_idempotence && b.base_sequence.is_some() {
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

    fn producer_handle_error(&mut self, p: u32, b: ProducerBatch, error: ErrorCode) -> Step {
        let cfg = self.pr(p).config.clone();
        let retriable = error.is_retriable()
            || (cfg.enable_idempotence && error == ErrorCode::OutOfOrderSequenceNumber);
        let within = self.k.now < b.created_ms + cfg.delivery_timeout_ms;
        if matches!(
            error,
            ErrorCode::NotLeaderOrFollower
                | ErrorCode::UnknownTopicOrPartition
                | ErrorCode::LeaderNotAvailable
                | ErrorCode::NetworkException
                | ErrorCode::RequestTimedOut
        ) {
            self.k.gate()?;
            self.prm(p).metadata.stale = true;
        }
        if retriable && b.attempts <= cfg.retries && within {
            self.producer_reenqueue(p, b, error)
        } else {
            self.producer_fail_batch(p, b, error.name())
        }
    }

    fn producer_request_failed(&mut self, p: u32, b: BrokerId, cid: i32, error: ErrorCode) -> Step {
        self.k.gate()?;
        let Some(f) = self
            .prm(p)
            .in_flight
            .get_mut(&b)
            .and_then(|m| m.remove(&cid))
        else {
            return Ok(());
        };
        for batch in f.batches {
            self.producer_handle_error(p, batch, error)?;
        }
        self.producer_progress(p)
    }

    pub(crate) fn producer_disconnected(&mut self, p: u32, to: NodeId, msg: &Message) -> Step {
        if let NodeId::Broker(b) = to {
            self.client_connection_failed(&ClientRef::Producer(p), b)?;
        }
        match (msg, to) {
            (Message::Produce { correlation_id, .. }, NodeId::Broker(b)) => {
                self.producer_request_failed(p, b, *correlation_id, ErrorCode::NetworkException)
            }
            (Message::Metadata { correlation_id, .. }, _) => {
                if self.client_metadata_failed(ClientRef::Producer(p), *correlation_id)? {
                    let cid = self.producer_correlation(p);
                    self.client_request_metadata(ClientRef::Producer(p), cid)?;
                }
                Ok(())
            }
            (Message::InitProducerId { correlation_id }, _)
                if self.pr(p).init_pid_in_flight == Some(*correlation_id) =>
            {
                self.k.gate()?;
                self.prm(p).init_pid_in_flight = None;
                self.producer_init_pid(p)
            }
            _ => Ok(()),
        }
    }

    pub(crate) fn producer_on_message(&mut self, p: u32, from: NodeId, msg: Message) -> Step {
        if self.pr(p).closed {
            return Ok(()); // its connections are closed
        }
        if let NodeId::Broker(b) = from {
            self.client_connection_ok(&ClientRef::Producer(p), b)?;
        }
        match msg {
            Message::MetadataResponse {
                correlation_id,
                brokers,
                partitions,
                ..
            } => {
                if self.client_on_metadata(
                    ClientRef::Producer(p),
                    correlation_id,
                    brokers,
                    partitions,
                )? {
                    self.producer_progress(p)?;
                }
                Ok(())
            }
            Message::InitProducerIdResponse {
                correlation_id,
                error,
                producer_id,
                producer_epoch,
            } => {
                if self.pr(p).init_pid_in_flight != Some(correlation_id) {
                    return Ok(());
                }
                self.k.gate()?;
                self.prm(p).init_pid_in_flight = None;
                if error.is_some() {
                    return self.producer_init_pid(p);
                }
                {
                    let pr = self.prm(p);
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
                self.producer_progress(p)
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
                    .prm(p)
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
                            self.producer_complete_batch(p, batch, r.base_offset)?
                        }
                        Some(r) => {
                            self.producer_handle_error(p, batch, r.error.expect("checked"))?
                        }
                        None => {
                            self.producer_handle_error(p, batch, ErrorCode::NetworkException)?
                        }
                    }
                }
                self.producer_progress(p)
            }
            _ => Ok(()),
        }
    }
}
