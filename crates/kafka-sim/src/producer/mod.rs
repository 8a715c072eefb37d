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
//! Layout, after Kafka's classes: this file is `KafkaProducer` (start,
//! `InitProducerId`, `close`) and the state; `accumulator.rs` is the
//! `RecordAccumulator` with the send path in front of it; `sender.rs` is the
//! `Sender` and the answers it handles. All of it runs on a
//! `ProducerCx`: the kernel, the ledger's check, and this producer only.
//!
//! Simplified: no compression (`compression.type=none`), no transactions,
//! adaptive partitioning (`partitioner.adaptive.partitioning.enable`) is not
//! simulated (the sticky partition switches uniformly at random), and a
//! request holds at most one batch per partition with no `max.request.size`
//! limit.

use crate::broker::audit::Audit;
use crate::client::{Backoffs, Client, ClientCx, ClientMetadata};
use crate::client_config::ProducerConfig;
use crate::collections::{SortedMap, SortedSet};
use crate::event::EventKind;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::kernel::{Step, Timer};
use crate::msg::{ErrorCode, Message};
use crate::scenario::ProducerSpec;
use crate::storage::record::{self, NewRecord};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

mod accumulator;
mod sender;
mod txn;
pub use txn::{TxnCall, TxnClient};

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
    /// The record's number at this producer, in send order.
    pub id: u64,
    /// Its topic.
    pub topic: String,
    /// The partition it named, if any.
    pub partition: Option<i32>,
    /// Its key.
    pub key: Option<String>,
    /// Its value.
    pub value: Option<String>,
    /// When `send()` was called.
    pub send_ms: u64,
}

/// A record inside a batch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchRecord {
    /// The record's number at this producer.
    pub id: u64,
    /// Its key.
    pub key: Option<String>,
    /// Its value.
    pub value: Option<String>,
    /// Its timestamp (ms since the epoch).
    pub timestamp: i64,
}

/// A `ProducerBatch` in the accumulator or in flight.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProducerBatch {
    /// The batch's number at this producer.
    pub id: u64,
    /// Its partition.
    pub tp: TopicPartition,
    /// Its records, in order.
    pub records: Vec<BatchRecord>,
    /// Bytes the batch takes encoded (header included).
    pub bytes: u64,
    /// Buffer memory reserved for it.
    pub reserved: u64,
    /// When it was created (its `delivery.timeout.ms` counts from here).
    pub created_ms: u64,
    /// Sends so far.
    pub attempts: u32,
    /// No retry before this time (`retry.backoff.ms`).
    pub retry_at: u64,
    /// Its first sequence number once assigned (idempotence).
    pub base_sequence: Option<i32>,
    /// Whether it reached `batch.size` (ready at once).
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

/// One Produce request in flight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InFlight {
    /// The batches it carries.
    pub batches: Vec<ProducerBatch>,
    /// When it was sent.
    pub sent_ms: u64,
}

/// The sticky partition of one topic (records without a key).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StickyState {
    /// The partition.
    pub partition: i32,
    /// Bytes produced to it since the last switch.
    pub produced_bytes: u64,
    /// The partition given up at the last switch, for the explanation.
    pub previous: Option<i32>,
}

/// A producer client.
#[derive(Clone, Debug)]
pub struct Producer {
    /// Its index in the scenario (its node is `NodeId::Producer(index)`).
    pub index: u32,
    /// Its name in the scenario.
    pub name: String,
    /// Its settings (`ProducerConfig`).
    pub config: ProducerConfig,
    /// Whether it has started.
    pub started: bool,
    /// Its view of the cluster.
    pub metadata: ClientMetadata,
    /// The correlation id of its next request.
    pub next_correlation: i32,
    /// Its producer id (-1: none yet).
    pub producer_id: i64,
    /// Its producer epoch (-1: none yet).
    pub producer_epoch: i16,
    /// The InitProducerId request in flight, if any.
    pub init_pid_in_flight: Option<i32>,
    /// The accumulator: the batches waiting per partition, oldest first.
    pub accumulator: SortedMap<TopicPartition, VecDeque<ProducerBatch>>,
    /// Bytes of `buffer.memory` in use.
    pub buffer_used: u64,
    /// Records blocked in `send()` (metadata missing or the buffer full).
    pub blocked: VecDeque<PendingRecord>,
    /// The record and reason last reported as blocked, so a retry that
    /// blocks for the same reason is not reported twice.
    pub blocked_reported: Option<(u64, String)>,
    /// Produce requests in flight, per broker and correlation id.
    pub in_flight: SortedMap<BrokerId, SortedMap<i32, InFlight>>,
    /// The next sequence number per partition (idempotence).
    pub next_sequence: SortedMap<TopicPartition, i32>,
    /// Sequences sent and not yet acknowledged or failed, per partition.
    pub unacked: SortedMap<TopicPartition, SortedSet<i32>>,
    /// The sticky partition per topic.
    pub sticky: SortedMap<String, StickyState>,
    /// The round-robin counter per topic.
    pub round_robin: SortedMap<String, u32>,
    /// The number of the next record.
    pub next_record: u64,
    /// The number of the next batch.
    pub next_batch: u64,
    /// Times of pending ProducerWake timers.
    pub wakes: SortedSet<u64>,
    /// `close()` was called: `send()` is refused and every batch is ready.
    pub closing: bool,
    /// `close()` finished: nothing left to send or to wait for.
    pub closed: bool,
    /// The Sender was force-closed (`close(timeout)` ran out).
    pub force_closed: bool,
    /// Its `TransactionManager`, with a `transactional.id`.
    pub txn: Option<TxnClient>,
    /// The consumer of the read-process-write application whose
    /// transaction is running (told when it ends).
    pub pipeline_consumer: Option<u32>,
}

impl Producer {
    /// Producer number `index` as the scenario describes it, not started.
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
            txn: spec.config.transactional_id.as_deref().map(TxnClient::new),
            pipeline_consumer: None,
        }
    }

    /// Produce requests in flight to broker `b`.
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

/// One producer while it handles one work item: the kernel, the ledger lent
/// for the acknowledged-records check, and this producer only.
pub(crate) type ProducerCx<'a> = ClientCx<'a, Producer, Audit<'a>>;

impl Client for Producer {
    fn node(id: u32) -> NodeId {
        pnode(id)
    }

    fn network_parts(&mut self) -> (&mut ClientMetadata, Backoffs) {
        (&mut self.metadata, self.config.backoffs())
    }
}

impl ProducerCx<'_> {
    fn correlation(&mut self) -> i32 {
        let pr = self.me_mut();
        pr.next_correlation += 1;
        pr.next_correlation
    }

    pub(crate) fn timer(&mut self, timer: Timer) -> Step {
        let p = self.id;
        if self.me().closed {
            return Ok(()); // a closed producer's Sender thread has ended
        }
        match timer {
            Timer::ClientStart => {
                self.k.gate()?;
                self.me_mut().started = true;
                let cid = self.correlation();
                self.net().request_metadata(cid)?;
                // A transactional producer gets its id in initTransactions().
                if self.me().config.idempotence() && self.me().txn.is_none() {
                    self.init_pid()?;
                }
                let age = self.me().config.metadata_max_age_ms;
                self.k
                    .set_timer(pnode(p), self.k.now + age, Timer::MetadataRefresh)
            }
            Timer::MetadataRefresh => {
                let cid = self.correlation();
                self.net().request_metadata(cid)?;
                let age = self.me().config.metadata_max_age_ms;
                self.k
                    .set_timer(pnode(p), self.k.now + age, Timer::MetadataRefresh)
            }
            Timer::ProducerWake => self.progress(),
            Timer::InitProducerIdRetry => {
                if self.me().producer_id < 0 {
                    self.init_pid()
                } else {
                    Ok(())
                }
            }
            Timer::ProducerCloseTimeout { timeout_ms } => self.force_close(timeout_ms),
            Timer::ConnectionClosed { peer } => {
                // A transactional request to that broker fails at once
                // (`DisconnectException`) and is retried elsewhere.
                let txn_cid = self
                    .me()
                    .txn
                    .as_ref()
                    .and_then(|t| t.sent_to)
                    .filter(|(_, to)| *to == peer)
                    .map(|(cid, _)| cid);
                if let Some(cid) = txn_cid {
                    self.txn_request_lost(cid, ErrorCode::NetworkException)?;
                }
                let cids: Vec<i32> = self
                    .me()
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
                self.net().connection_failed(peer)?;
                for cid in cids {
                    self.request_failed(peer, cid, ErrorCode::NetworkException)?;
                }
                Ok(())
            }
            Timer::RequestTimeout { correlation_id } => {
                if self.net().metadata_failed(correlation_id)? {
                    return self.progress();
                }
                if self.txn_request_lost(correlation_id, ErrorCode::RequestTimedOut)? {
                    return Ok(());
                }
                if self.me().init_pid_in_flight == Some(correlation_id) {
                    self.k.gate()?;
                    self.me_mut().init_pid_in_flight = None;
                    return self.init_pid();
                }
                let found = self
                    .me()
                    .in_flight
                    .iter()
                    .find(|(_, m)| m.contains_key(&correlation_id))
                    .map(|(b, _)| *b);
                if let Some(b) = found {
                    self.request_failed(b, correlation_id, ErrorCode::RequestTimedOut)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn init_pid(&mut self) -> Step {
        let p = self.id;
        if self.me().init_pid_in_flight.is_some() {
            return Ok(());
        }
        let brokers = self.me().metadata.known_brokers(&self.k.sc);
        let now = self.k.now;
        let md = &self.me().metadata;
        let next = self.me().next_correlation;
        // A broker not waiting to reconnect (`leastLoadedNode`); when all
        // are, ask again after `retry.backoff.ms`.
        let pick = brokers[(next.wrapping_add(1) as usize) % brokers.len()];
        let to = if md.ready(now, pick) {
            pick
        } else {
            match md.least_loaded(&self.k.sc, now) {
                Some(b) => b,
                None => {
                    let at = now + self.me().config.retry_backoff_ms;
                    return self.k.set_timer(pnode(p), at, Timer::InitProducerIdRetry);
                }
            }
        };
        self.k.gate()?;
        let cid = self.correlation();
        self.me_mut().init_pid_in_flight = Some(cid);
        self.k.send(
            pnode(p),
            NodeId::Broker(to),
            Message::InitProducerId {
                correlation_id: cid,
                transactional_id: None,
                transaction_timeout_ms: self.me().config.transaction_timeout_ms as i32,
            },
        )?;
        let timeout = self.k.now + self.me().config.request_timeout_ms;
        self.k.set_timer(
            pnode(p),
            timeout,
            Timer::RequestTimeout {
                correlation_id: cid,
            },
        )
    }

    /// `producer.close()`: `KafkaProducer.close` with no timeout. The
    /// application may not `send()` any more; the Sender keeps running until
    /// the accumulator is empty and no request is in flight (retries
    /// included), then the producer is closed.
    ///
    /// With a timeout (`close(Duration)`): the same, but when the time runs
    /// out the Sender is force-closed (`Sender.forceClose`); a zero timeout
    /// force-closes at once, without the graceful part.
    pub(crate) fn close(&mut self, timeout_ms: Option<u64>) -> Step {
        let p = self.id;
        if self.me().closing {
            // close() is already waiting: only a timeout can cut it short.
            return self.close_deadline(timeout_ms);
        }
        self.k.gate()?;
        let pr = self.me_mut();
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
        self.close_deadline(timeout_ms)?;
        self.progress()
    }

    /// `close(timeout)`'s deadline: a zero timeout force-closes at once,
    /// another when it runs out; no timeout, never.
    fn close_deadline(&mut self, timeout_ms: Option<u64>) -> Step {
        let p = self.id;
        match timeout_ms {
            None => Ok(()),
            Some(0) => self.force_close(0),
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
    fn force_close(&mut self, timeout_ms: u64) -> Step {
        let p = self.id;
        let pr = self.me();
        if pr.closed {
            return Ok(());
        }
        self.k.gate()?;
        let pr = self.me_mut();
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
            self.fail_batch(b, "KafkaException: Producer is closed forcefully.".into())?;
        }
        for r in blocked {
            // The send() waited for the topic's metadata (ProducerMetadata
            // closes) or for buffer memory (the BufferPool closes).
            let error = if self.me().metadata.partition_count(&r.topic).is_none() {
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
        self.maybe_closed()
    }

    /// Ends a `close()` once nothing is left to send or to wait for.
    fn maybe_closed(&mut self) -> Step {
        let p = self.id;
        let pr = self.me();
        if !pr.closing
            || pr.closed
            || !pr.accumulator.is_empty()
            || !pr.blocked.is_empty()
            || pr.requests_in_flight() > 0
        {
            return Ok(());
        }
        self.k.gate()?;
        let pr = self.me_mut();
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
}
