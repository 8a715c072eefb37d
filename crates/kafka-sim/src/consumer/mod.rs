//! The consumer client (G1, G3, G4, G10): the poll loop.
//!
//! Kafka's consumer *pulls*: the application calls `poll()` in a loop; the
//! client fetches from each partition's leader (`Fetch` with `fetch.min.bytes`
//! and `fetch.max.wait.ms`, so an empty fetch waits at the broker instead of
//! spinning), buffers what comes back, and each `poll()` hands the
//! application at most `max.poll.records` records, advancing the partition's
//! *position*. A partition without a position starts where
//! `auto.offset.reset` says (`latest`: the high watermark; `earliest`: the log
//! start) or, in a group, at the committed offset. Only records below the
//! high watermark are ever returned.
//!
//! Layout, after Kafka's classes: this file is `KafkaConsumer` (the poll
//! loop, the handle `ConsumerCx`); `fetcher.rs` is the `Fetcher`;
//! `coordinator.rs` is the `ConsumerCoordinator` (the member side of a
//! group), with its offsets (`coordinator/offsets.rs`) and heartbeat thread
//! (`coordinator/heartbeat.rs`).

use crate::client::{Client, ClientCx, ClientMetadata};
use crate::client_config::{AutoOffsetReset, ConsumerConfig};
use crate::collections::{SortedMap, SortedSet};
use crate::event::{ConsumedRecord, EventKind};
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::kernel::{PipelineCall, Step, Timer};
use crate::msg::FetchRequest;
use crate::msg::{ErrorCode, FetchPartition, FetchPartitionResponse, Message};
use crate::scenario::{CommitMode, ConsumerSpec};
use audit::ConsumerAudit;
use std::collections::VecDeque;

pub(crate) mod audit;
mod fetcher;
pub mod isolation;
pub mod membership;

mod coordinator;

/// A consumer client.
#[derive(Clone, Debug)]
pub struct Consumer {
    /// Its index in the scenario (its node is `NodeId::Consumer(index)`).
    pub index: u32,
    /// Its name in the scenario.
    pub name: String,
    /// What the scenario says of it (never changed: shared with the
    /// consumer's clones, as its settings are).
    pub spec: std::sync::Arc<ConsumerSpec>,
    /// Its settings (`ConsumerConfig`).
    pub config: std::sync::Arc<ConsumerConfig>,
    /// Whether its process runs (false after a crash or close).
    pub alive: bool,
    /// Whether it has started (consumers may start late).
    pub started: bool,
    /// Its view of the cluster.
    pub metadata: ClientMetadata,
    /// The correlation id of its next request.
    pub next_correlation: i32,
    /// Partitions this consumer reads (from `assign()` or the group).
    pub assignment: Vec<TopicPartition>,
    /// Next offset to hand to the application, per partition.
    pub positions: SortedMap<TopicPartition, i64>,
    /// Fetched, not yet returned by `poll()`.
    pub buffered: SortedMap<TopicPartition, VecDeque<ConsumedRecord>>,
    /// High watermark from the last fetch response (for lag).
    pub high_watermarks: SortedMap<TopicPartition, i64>,
    /// Fetch requests in flight, per broker (their correlation ids).
    pub fetches_in_flight: SortedMap<BrokerId, i32>,
    /// KIP-392: partitions read from a follower the leader named, and until
    /// when (`SubscriptionState`'s preferred read replica and its expiry).
    pub preferred_read_replicas: SortedMap<TopicPartition, PreferredReadReplica>,
    /// ListOffsets requests in flight (for `auto.offset.reset`), by correlation id.
    pub list_offsets_in_flight: SortedMap<i32, Vec<TopicPartition>>,
    /// No fetch before this time (a backoff after an error).
    pub paused_until: u64,
    /// Records handed to the application so far.
    pub consumed: u64,
    /// Group membership state (None for a standalone consumer).
    pub group: Option<crate::group::MemberState>,
    /// Partitions already reported without an offset (`auto.offset.reset=none`).
    pub reset_failed: SortedSet<TopicPartition>,
    /// Records the application is processing now: (partition, first, last offset).
    pub processing: Vec<(TopicPartition, i64, i64)>,
    /// A read-process-write application: the records of the batch being
    /// processed (partition, offset, value), for its producer to write.
    pub pipeline_batch: Vec<(TopicPartition, i64, Option<String>)>,
}

/// A follower a consumer reads one partition from (KIP-392).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PreferredReadReplica {
    /// The follower the leader named.
    pub broker: BrokerId,
    /// When the consumer forgets it and asks the leader again (the time it
    /// was named + `metadata.max.age.ms`).
    pub expires_ms: u64,
}

impl Consumer {
    /// Consumer number `index` as the scenario describes it, not started.
    pub fn new(index: u32, spec: &ConsumerSpec) -> Consumer {
        Consumer {
            index,
            name: spec.name.clone(),
            spec: spec.clone().into(),
            config: spec.config.clone().into(),
            alive: true,
            started: false,
            metadata: ClientMetadata::default(),
            next_correlation: 0,
            assignment: spec.assign.clone().unwrap_or_default(),
            positions: SortedMap::new(),
            buffered: SortedMap::new(),
            high_watermarks: SortedMap::new(),
            fetches_in_flight: SortedMap::new(),
            preferred_read_replicas: SortedMap::new(),
            list_offsets_in_flight: SortedMap::new(),
            paused_until: 0,
            consumed: 0,
            reset_failed: Default::default(),
            processing: Vec::new(),
            pipeline_batch: Vec::new(),
            group: spec
                .config
                .group_id
                .as_ref()
                .filter(|_| spec.assign.is_none())
                .map(|g| crate::group::MemberState::new(g)),
        }
    }

    /// `client.id`, or Kafka's default `consumer-<group.id>-<n>`.
    pub fn client_id(&self) -> String {
        self.config
            .client_id
            .clone()
            .unwrap_or_else(|| match &self.config.group_id {
                Some(g) => format!("consumer-{g}-{}", self.index + 1),
                None => format!("consumer-{}", self.index + 1),
            })
    }

    /// Lag per assigned partition: high watermark − position (G12 uses the committed offset).
    pub fn lag(&self) -> SortedMap<TopicPartition, i64> {
        self.assignment
            .iter()
            .filter_map(|tp| {
                let hw = self.high_watermarks.get(tp)?;
                let pos = self.positions.get(tp)?;
                Some((tp.clone(), (hw - pos).max(0)))
            })
            .collect()
    }
}

fn cnode(c: u32) -> NodeId {
    NodeId::Consumer(c)
}

/// One consumer while it handles one work item: the kernel, the other
/// consumers lent to the single-owner check, and this consumer only.
pub(crate) type ConsumerCx<'a> = ClientCx<'a, Consumer, ConsumerAudit<'a>>;

impl Client for Consumer {
    fn node(id: u32) -> NodeId {
        cnode(id)
    }

    fn network_parts(&mut self) -> (&mut ClientMetadata, crate::client::Backoffs) {
        (&mut self.metadata, self.config.backoffs())
    }
}

impl ConsumerCx<'_> {
    pub(crate) fn correlation(&mut self) -> i32 {
        let x = self.me_mut();
        x.next_correlation += 1;
        x.next_correlation
    }

    pub(crate) fn timer(&mut self, timer: Timer) -> Step {
        let c = self.id;
        if !self.me().alive {
            return Ok(());
        }
        match timer {
            Timer::ClientStart => {
                self.k.gate()?;
                self.me_mut().started = true;
                let cid = self.correlation();
                self.net().request_metadata(cid)?;
                self.group_client_start()?;
                if self.me().spec.pipeline.is_some() {
                    self.k
                        .pipeline_calls
                        .push(PipelineCall::Start { consumer: c });
                }
                let at = self.k.now + self.me().config.poll_interval_ms;
                self.k.set_timer(cnode(c), at, Timer::ConsumerPoll)
            }
            Timer::ConsumerPoll => {
                self.poll()?;
                let at = self.k.now.max(self.me().paused_until) + self.me().config.poll_interval_ms;
                self.k.set_timer(cnode(c), at, Timer::ConsumerPoll)
            }
            Timer::RequestTimeout { correlation_id } => {
                if self.net().metadata_failed(correlation_id)? {
                    return Ok(());
                }
                let leader = self
                    .me()
                    .fetches_in_flight
                    .iter()
                    .find(|(_, cid)| **cid == correlation_id)
                    .map(|(b, _)| *b);
                if let Some(b) = leader {
                    self.k.gate()?;
                    self.me_mut().fetches_in_flight.remove(&b);
                    self.me_mut().metadata.stale = true;
                    self.fetch_failed(b)?;
                }
                if self
                    .me()
                    .list_offsets_in_flight
                    .contains_key(&correlation_id)
                {
                    self.k.gate()?;
                    self.me_mut().list_offsets_in_flight.remove(&correlation_id);
                }
                self.group_request_timeout(correlation_id)
            }
            Timer::ConsumerResume => self.processed(),
            Timer::ConnectionClosed { peer } => {
                self.group_connection_closed(peer)?;
                if !self.me().fetches_in_flight.contains_key(&peer) {
                    return Ok(());
                }
                self.k.gate()?;
                self.me_mut().fetches_in_flight.remove(&peer);
                self.me_mut().metadata.stale = true;
                self.fetch_failed(peer)?;
                self.k.emit(
                    vec![cnode(c)],
                    EventKind::ConnectionClosed {
                        node: cnode(c),
                        peer,
                        requests_failed: 1,
                    },
                );
                self.net().connection_failed(peer)
            }
            other => self.group_timer(other),
        }
    }

    /// Sends a request to a broker and arms its `request.timeout`-style timer
    /// (`Timer::RequestTimeout` with the same correlation id).
    pub(crate) fn request(
        &mut self,
        to: BrokerId,
        correlation_id: i32,
        timeout_ms: u64,
        msg: Message,
    ) -> Step {
        let c = self.id;
        let at = self.k.now + timeout_ms;
        self.k.send(cnode(c), NodeId::Broker(to), msg)?;
        self.k.arm_request_timeout(cnode(c), at, correlation_id)
    }

    /// One `poll()`: hand out buffered records, then keep fetches going.
    fn poll(&mut self) -> Step {
        if self.k.now < self.me().paused_until {
            return Ok(());
        }
        if self.group_blocks_poll() {
            // The application is blocked in commitSync().
            return Ok(());
        }
        if self.me().spec.pipeline.is_some() && !self.me().processing.is_empty() {
            // Blocked in commitTransaction() (a read-process-write loop).
            return Ok(());
        }
        self.group_on_poll()?;
        let md = &self.me().metadata;
        let expired = self.k.now >= md.last_update_ms + self.me().config.metadata_max_age_ms;
        if md.stale || md.partitions.is_empty() || expired {
            let cid = self.correlation();
            self.net().request_metadata(cid)?;
        }
        let returned = self.return_records()?;
        if !returned.is_empty() {
            self.start_processing(returned)?;
        }
        self.reset_positions()?;
        self.send_fetches()
    }

    /// The application got records from poll(): commit first if it commits
    /// before processing, then spend `processing_ms` on them.
    fn start_processing(&mut self, batch: Vec<(TopicPartition, i64, i64)>) -> Step {
        let c = self.id;
        if self.me().spec.pipeline.is_some() {
            // Read-process-write: the application waits for its
            // transaction (`commitTransaction()` blocks) before polling again.
            self.k.gate()?;
            self.me_mut().processing = batch;
            self.k
                .pipeline_calls
                .push(PipelineCall::Process { consumer: c });
            let until = self.k.now + self.me().config.processing_ms;
            return self.k.set_timer(cnode(c), until, Timer::ConsumerResume);
        }
        let mode = self.me().spec.commit;
        let ms = self.me().config.processing_ms;
        if mode == CommitMode::Auto && ms == 0 {
            return Ok(());
        }
        if mode == CommitMode::SyncBeforeProcessing {
            self.group_commit_command(true)?;
        }
        self.k.gate()?;
        let until = self.k.now + ms;
        {
            let x = self.me_mut();
            x.processing = batch;
            x.paused_until = x.paused_until.max(until);
        }
        self.k.set_timer(cnode(c), until, Timer::ConsumerResume)
    }

    /// Processing finished: record it, and commit if the application commits after.
    fn processed(&mut self) -> Step {
        let c = self.id;
        let done = self.me().processing.clone();
        if done.is_empty() {
            return Ok(());
        }
        if self.me().spec.pipeline.is_some() {
            // Processed inside the transaction: now commit it.
            self.k
                .pipeline_calls
                .push(PipelineCall::Commit { consumer: c });
            return Ok(());
        }
        self.k.gate()?;
        self.me_mut().processing.clear();
        self.k.emit(
            vec![cnode(c)],
            EventKind::RecordsProcessed {
                consumer: c,
                ranges: done,
            },
        );
        if self.me().spec.commit == CommitMode::SyncAfterProcessing {
            self.group_commit_command(true)?;
        }
        Ok(())
    }

    /// A read-process-write transaction ended. Committed: the batch is
    /// processed. Otherwise the application aborts and goes back to the
    /// group's committed offsets (`resetToLastCommittedPositions`): the
    /// batch's partitions lose their positions and buffered records and ask
    /// the coordinator again.
    pub(crate) fn pipeline_finished(&mut self, committed: bool) -> Step {
        let c = self.id;
        let done = self.me().processing.clone();
        self.k.gate()?;
        {
            let x = self.me_mut();
            x.processing.clear();
            x.pipeline_batch.clear();
            if !committed {
                for (tp, _, _) in &done {
                    x.positions.remove(tp);
                    x.buffered.remove(tp);
                    if let Some(g) = x.group.as_mut() {
                        g.fetched.remove(tp);
                    }
                }
            }
        }
        if committed && !done.is_empty() {
            self.k.emit(
                vec![cnode(c)],
                EventKind::RecordsProcessed {
                    consumer: c,
                    ranges: done,
                },
            );
        }
        Ok(())
    }

    /// Hands buffered records to the application; returns what it handed
    /// out, per partition (first and last offset).
    fn return_records(&mut self) -> Step<Vec<(TopicPartition, i64, i64)>> {
        let c = self.id;
        let mut out = Vec::new();
        let mut budget = self.me().config.max_poll_records as usize;
        let tps: Vec<TopicPartition> = self.me().assignment.clone();
        for tp in tps {
            if budget == 0 {
                break;
            }
            let n = self
                .me()
                .buffered
                .get(&tp)
                .map(|b| b.len())
                .unwrap_or(0)
                .min(budget);
            if n == 0 {
                continue;
            }
            self.k.gate()?;
            let hw = self.me().high_watermarks.get(&tp).copied().unwrap_or(-1);
            let recs: Vec<ConsumedRecord> = {
                let x = self.me_mut();
                let q = x.buffered.get_mut(&tp).expect("n > 0");
                let recs: Vec<ConsumedRecord> = q.drain(..n).collect();
                let last = recs.last().expect("n > 0").offset;
                x.positions.insert(tp.clone(), last + 1);
                x.consumed += n as u64;
                recs
            };
            budget -= n;
            if self.me().spec.pipeline.is_some() {
                let x = self.me_mut();
                x.pipeline_batch
                    .extend(recs.iter().map(|r| (tp.clone(), r.offset, r.value.clone())));
            }
            out.push((
                tp.clone(),
                recs.first().map(|r| r.offset).unwrap_or(-1),
                recs.last().map(|r| r.offset).unwrap_or(-1),
            ));
            self.k.emit(
                vec![cnode(c)],
                EventKind::RecordsConsumed {
                    consumer: c,
                    tp: tp.clone(),
                    records: recs,
                    high_watermark: hw,
                },
            );
            self.group_after_records_returned(&tp)?;
        }
        Ok(out)
    }

    pub(crate) fn on_message(&mut self, from: NodeId, msg: Message) -> Step {
        let c = self.id;
        if !self.me().alive {
            return Ok(());
        }
        if let NodeId::Broker(b) = from {
            self.net().connection_ok(b)?;
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
                    self.group_on_metadata()?;
                }
                Ok(())
            }
            Message::FetchResponse {
                correlation_id,
                partitions,
                ..
            } => {
                let NodeId::Broker(b) = from else {
                    return Ok(());
                };
                self.on_fetch_response(b, correlation_id, partitions)
            }
            Message::ListOffsetsResponse {
                correlation_id,
                partitions,
            } => {
                if !self
                    .me()
                    .list_offsets_in_flight
                    .contains_key(&correlation_id)
                {
                    return Ok(());
                }
                self.k.gate()?;
                self.me_mut().list_offsets_in_flight.remove(&correlation_id);
                let policy = self.me().config.auto_offset_reset;
                for (tp, err, off) in partitions {
                    if err.is_some() || off < 0 {
                        self.k.gate()?;
                        self.me_mut().metadata.stale = true;
                        continue;
                    }
                    self.k.gate()?;
                    self.me_mut().positions.insert(tp.clone(), off);
                    self.k.emit(
                        vec![cnode(c)],
                        EventKind::ConsumerPositionReset {
                            consumer: c,
                            tp,
                            position: off,
                            reason: format!(
                                "no committed offset: auto.offset.reset={} starts at the {}",
                                if policy == AutoOffsetReset::Earliest {
                                    "earliest"
                                } else {
                                    "latest"
                                },
                                if policy == AutoOffsetReset::Earliest {
                                    "log start offset"
                                } else {
                                    "high watermark"
                                }
                            ),
                        },
                    );
                }
                Ok(())
            }
            other => self.group_client_on_message(from, other),
        }
    }

    pub(crate) fn disconnected(&mut self, to: NodeId, msg: &Message) -> Step {
        if let NodeId::Broker(b) = to {
            self.net().connection_failed(b)?;
        }
        match (msg, to) {
            (Message::Fetch(FetchRequest { correlation_id, .. }), NodeId::Broker(b))
                if self.me().fetches_in_flight.get(&b) == Some(correlation_id) =>
            {
                self.k.gate()?;
                self.me_mut().fetches_in_flight.remove(&b);
                self.me_mut().metadata.stale = true;
                self.fetch_failed(b)
            }
            (Message::Metadata { correlation_id, .. }, _) => {
                self.net().metadata_failed(*correlation_id)?;
                Ok(())
            }
            (Message::ListOffsets { correlation_id, .. }, _) => {
                self.k.gate()?;
                self.me_mut().list_offsets_in_flight.remove(correlation_id);
                self.me_mut().metadata.stale = true;
                Ok(())
            }
            _ => self.group_disconnected(msg),
        }
    }
}
