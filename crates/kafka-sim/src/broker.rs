//! A broker: its disk, its replicas, and the replication protocol (R1–R7).
//!
//! * **Leader side** (`Partition` + `ReplicaManager`): appends produce
//!   requests; answers fetches (followers up to the log end offset, consumers
//!   up to the high watermark), holding an empty fetch up to `max.wait.ms`
//!   (long polling); records each follower's fetch offset as its LEO and moves
//!   the high watermark to the smallest LEO of the (maximal) ISR — but not
//!   while the ISR is smaller than `min.insync.replicas` (Kafka ≥ 3.7,
//!   KAFKA-15583); shrinks the ISR of followers that have not caught up for
//!   `replica.lag.time.max.ms` and expands it when a follower reaches the high
//!   watermark, both through the controller (`AlterPartition`).
//! * **Follower side** (`ReplicaFetcherThread`): one fetcher per leader broker
//!   sends `Fetch` in a loop, appends what comes back and takes the leader's
//!   high watermark (so it learns the new HW one fetch later).
//! * **Truncation** after a leader change or a restart follows
//!   `inter.broker.protocol.version`: below 0.11 the follower cuts its log to
//!   its high watermark (the source notes' rule); from 0.11 on it uses leader
//!   epochs (KIP-101; since 2.7 the follower sends its last fetched epoch in
//!   each `Fetch` and the leader answers with the diverging epoch's end).
//! * **acks**: `acks=all` waits (in "purgatory") until the high watermark
//!   passes the batch; `NOT_ENOUGH_REPLICAS` when the ISR is below
//!   `min.insync.replicas` before appending.
//!
//! The log (segments, indexes) is on the broker's paged disk and survives a
//! restart, as does `replication-offset-checkpoint` (the HW, written every
//! `replica.high.watermark.checkpoint.interval.ms`). Everything else is memory.

use crate::collections::{SortedMap, SortedSet};
use crate::config::LogConfig;
use crate::controller::ControllerContext;
use crate::event::{EventKind, TruncateReason};
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::msg::{
    Bytes, DivergingEpoch, ErrorCode, FetchPartition, FetchPartitionResponse, Message,
    PartitionMetadata, PartitionState, ProducePartitionResponse,
};
use crate::sim::{Continuation, Step, Timer, World};
use crate::storage::log::{AppendError, Log};
use crate::storage::paged::MemStorage;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// What the leader knows of one follower (`Replica` / `ReplicaState`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteReplica {
    /// The follower's log end offset, as its last fetch offset told us (-1 unknown).
    pub leo: i64,
    pub last_caught_up_ms: u64,
    pub last_fetch_ms: u64,
    pub last_fetch_leader_leo: i64,
}

/// One replica's in-memory state on this broker (`kafka.cluster.Partition`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Partition {
    pub tp: TopicPartition,
    /// Assigned replicas (AR), preferred leader first.
    pub replicas: Vec<BrokerId>,
    pub isr: Vec<BrokerId>,
    pub leader: i32,
    pub leader_epoch: i32,
    pub partition_epoch: i32,
    pub high_watermark: i64,
    pub is_leader: bool,
    /// Leader only: the followers as the leader sees them.
    pub remote: SortedMap<BrokerId, RemoteReplica>,
    /// An ISR change sent to the controller and not yet answered.
    pub pending_isr: Option<Vec<BrokerId>>,
    /// Leader only: the log end offset when this leader epoch began.
    pub leader_epoch_start_offset: i64,
}

impl Partition {
    /// KIP-497's "maximal" ISR: the committed ISR plus a pending change's members.
    pub fn maximal_isr(&self) -> Vec<BrokerId> {
        let mut m: SortedSet<BrokerId> = SortedSet::from_iter(self.isr.iter().copied());
        if let Some(p) = &self.pending_isr {
            m.extend(p.iter().copied());
        }
        m.into_iter().collect()
    }
}

/// One partition a follower fetches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchState {
    pub leader_epoch: i32,
    /// Checked against the leader once in this leader epoch (replicas_consistent).
    pub verified: bool,
    /// Waiting out `replica.fetch.backoff.ms` after an error, until this time.
    pub delayed_until: u64,
}

/// A follower's fetcher for one leader broker (`ReplicaFetcherThread`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fetcher {
    pub partitions: SortedMap<TopicPartition, FetchState>,
    pub in_flight: Option<i32>,
}

/// A fetch held until data arrives or `max.wait.ms` passes (`DelayedFetch`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DelayedFetch {
    pub from: NodeId,
    pub correlation_id: i32,
    pub replica_id: i32,
    pub partitions: Vec<FetchPartition>,
    pub min_bytes: u64,
    pub max_bytes: u64,
}

/// One partition of an `acks=all` produce waiting for the ISR (`DelayedProduce`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DelayedProducePart {
    pub tp: TopicPartition,
    pub base_offset: i64,
    pub required_offset: i64,
    pub result: Option<Option<ErrorCode>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DelayedProduce {
    pub from: NodeId,
    pub correlation_id: i32,
    pub parts: Vec<DelayedProducePart>,
    /// Partitions answered at once (errors), sent with the rest.
    pub done: Vec<ProducePartitionResponse>,
}

/// What a broker serves to clients (`MetadataCache`), from UpdateMetadata.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetadataCache {
    pub controller_id: i32,
    pub live_brokers: Vec<BrokerId>,
    pub partitions: SortedMap<TopicPartition, PartitionState>,
}

/// A broker.
#[derive(Clone)]
pub struct Broker {
    pub id: BrokerId,
    pub alive: bool,
    /// Bumped on every start; stale timers and connections are dropped.
    pub incarnation: u32,
    pub registered: bool,
    pub shutting_down: bool,
    /// The broker's disk (survives restarts).
    pub disk: MemStorage,
    /// Partition logs on disk (survive restarts).
    pub logs: SortedMap<TopicPartition, Log>,
    /// `replication-offset-checkpoint` (survives restarts).
    pub hw_checkpoint: SortedMap<TopicPartition, i64>,
    pub partitions: SortedMap<TopicPartition, Partition>,
    pub metadata: MetadataCache,
    pub controller: Option<ControllerContext>,
    pub known_controller_epoch: i32,
    pub fetchers: SortedMap<BrokerId, Fetcher>,
    pub delayed_fetches: SortedMap<u64, DelayedFetch>,
    pub delayed_produces: SortedMap<u64, DelayedProduce>,
    pub next_delayed: u64,
    pub next_correlation: i32,
    /// Idempotent producer state per partition (see `producer_state.rs`).
    pub producer_states: SortedMap<TopicPartition, crate::producer_state::ProducerStates>,
    /// The block of producer ids this broker hands out: (next, last).
    pub producer_id_block: Option<(i64, i64)>,
    pub groups: crate::group::Groups,
}

impl Broker {
    pub fn new(id: BrokerId) -> Broker {
        Broker {
            id,
            alive: false,
            incarnation: 0,
            registered: false,
            shutting_down: false,
            disk: MemStorage::default(),
            logs: SortedMap::new(),
            hw_checkpoint: SortedMap::new(),
            partitions: SortedMap::new(),
            metadata: MetadataCache {
                controller_id: -1,
                ..Default::default()
            },
            controller: None,
            known_controller_epoch: 0,
            fetchers: SortedMap::new(),
            delayed_fetches: SortedMap::new(),
            delayed_produces: SortedMap::new(),
            next_delayed: 0,
            next_correlation: 0,
            producer_states: SortedMap::new(),
            producer_id_block: None,
            groups: Default::default(),
        }
    }

    pub fn log_end_offset(&self, tp: &TopicPartition) -> Option<i64> {
        self.logs.get(tp).map(|l| l.log_end_offset)
    }

    pub fn leader_of(&self, tp: &TopicPartition) -> Option<&Partition> {
        self.partitions.get(tp).filter(|p| p.is_leader)
    }
}

/// The rest of a LeaderAndIsr request being applied (see
/// [`Continuation`](crate::sim::Continuation)).
#[derive(Clone)]
pub(crate) struct LeaderAndIsrWork {
    b: BrokerId,
    controller_id: BrokerId,
    controller_epoch: i32,
    parts: std::collections::VecDeque<PartitionState>,
    results: Vec<(TopicPartition, Option<ErrorCode>)>,
}

fn bnode(b: BrokerId) -> NodeId {
    NodeId::Broker(b)
}

impl World {
    fn br(&self, b: BrokerId) -> &Broker {
        &self.brokers[&b]
    }

    fn brm(&mut self, b: BrokerId) -> &mut Broker {
        std::sync::Arc::make_mut(self.brokers.get_mut(&b).expect("broker exists"))
    }

    /// The log settings of a topic: its `/config/topics/<t>` overrides over the
    /// broker's `log.*` defaults.
    pub(crate) fn topic_log_config(&self, topic: &str) -> LogConfig {
        /// `/config/topics/<t>`: `{"version": 1, "config": {...}}`.
        #[derive(serde::Deserialize)]
        struct TopicConfigZnode {
            #[serde(default)]
            config: crate::config::TopicConfigOverrides,
        }
        let overrides = self
            .zk
            .nodes
            .get(&format!("/config/topics/{topic}"))
            .and_then(|n| serde_json::from_str::<TopicConfigZnode>(&n.data).ok())
            .map(|z| z.config)
            .unwrap_or_default();
        let mut lc = self.k.sc.cluster.config.log_config(&overrides);
        if topic == crate::group::OFFSETS_TOPIC {
            lc.cleanup_policy = crate::config::CleanupPolicy::COMPACT;
            lc.segment_bytes = self.k.sc.cluster.config.offsets_topic_segment_bytes;
        }
        lc
    }

    pub(crate) fn broker_timer(&mut self, b: BrokerId, timer: Timer) -> Step {
        if !self.br(b).alive && timer != Timer::BrokerStart {
            return Ok(());
        }
        let cfg = self.k.sc.cluster.config.clone();
        match timer {
            Timer::BrokerStart => self.broker_start(b),
            Timer::IsrExpiration => {
                self.broker_maybe_shrink_isr(b)?;
                self.k.set_timer(
                    bnode(b),
                    self.k.now + cfg.replica_lag_time_max_ms / 2,
                    Timer::IsrExpiration,
                )
            }
            Timer::HwCheckpoint => {
                self.broker_checkpoint_hw(b)?;
                self.k.set_timer(
                    bnode(b),
                    self.k.now + cfg.replica_high_watermark_checkpoint_interval_ms,
                    Timer::HwCheckpoint,
                )
            }
            Timer::OsFlush => {
                self.broker_os_flush(b)?;
                self.k.set_timer(
                    bnode(b),
                    self.k.now + self.k.sc.cluster.os_flush_interval_ms,
                    Timer::OsFlush,
                )
            }
            Timer::RetentionCheck => {
                self.broker_retention(b)?;
                self.k.set_timer(
                    bnode(b),
                    self.k.now + cfg.log_retention_check_interval_ms,
                    Timer::RetentionCheck,
                )
            }
            Timer::CleanerCheck => {
                self.broker_clean(b)?;
                self.k.set_timer(
                    bnode(b),
                    self.k.now + cfg.log_cleaner_backoff_ms,
                    Timer::CleanerCheck,
                )
            }
            Timer::AutoLeaderRebalance => {
                if self.is_controller(b) {
                    self.controller_auto_rebalance(b)?;
                }
                Ok(())
            }
            Timer::AlterPartitionTimeout {
                tp,
                partition_epoch,
            } => {
                let stale = self.br(b).partitions.get(&tp).is_some_and(|p| {
                    p.is_leader && p.pending_isr.is_some() && p.partition_epoch == partition_epoch
                });
                if stale {
                    self.k.gate()?;
                    self.brm(b)
                        .partitions
                        .get_mut(&tp)
                        .expect("checked")
                        .pending_isr = None;
                    self.k.emit(
                        vec![bnode(b)],
                        EventKind::IsrChangeRejected {
                            broker: b,
                            tp,
                            error: ErrorCode::RequestTimedOut,
                        },
                    );
                }
                Ok(())
            }
            Timer::ConnectionClosed { peer } => self.broker_connection_closed(b, peer),
            Timer::DelayedFetchExpiry { id } => {
                if let Some(d) = self.brm(b).delayed_fetches.remove(&id) {
                    self.broker_answer_fetch(b, d)?;
                }
                Ok(())
            }
            Timer::DelayedProduceExpiry { id } => self.broker_expire_produce(b, id),
            Timer::ReplicaFetchBackoff { leader } => self.fetcher_maybe_send(b, leader),
            Timer::RequestTimeout { correlation_id } => {
                let leader = self
                    .br(b)
                    .fetchers
                    .iter()
                    .find(|(_, f)| f.in_flight == Some(correlation_id))
                    .map(|(l, _)| *l);
                if let Some(l) = leader {
                    self.k.gate()?;
                    if let Some(f) = self.brm(b).fetchers.get_mut(&l) {
                        f.in_flight = None;
                    }
                    self.fetcher_maybe_send(b, l)?;
                }
                Ok(())
            }
            Timer::GroupJoinDeadline { group, generation } => {
                self.coordinator_join_deadline(b, &group, generation)
            }
            Timer::GroupMemberExpiry { group, member } => {
                self.coordinator_member_expiry(b, &group, &member)
            }
            Timer::GroupInitialDelay { group } => self.coordinator_initial_delay(b, &group),
            _ => Ok(()),
        }
    }

    /// Startup: recover logs from disk, open a ZooKeeper session, register
    /// `/brokers/ids/<id>`, run for controller, start periodic tasks.
    fn broker_start(&mut self, b: BrokerId) -> Step {
        self.k.gate()?;
        let cfg = self.k.sc.cluster.config.clone();
        let inc = self.k.restart(bnode(b));
        let recovered = {
            let br = self.brm(b);
            br.alive = true;
            br.incarnation = inc;
            br.registered = false;
            br.shutting_down = false;
            br.logs.len() as u32
        };
        self.k.emit(
            vec![bnode(b)],
            EventKind::BrokerStarted {
                broker: b,
                incarnation: inc,
                recovered_logs: recovered,
            },
        );
        self.zk_open_session(b)?;
        self.broker_register(b)?;
        let now = self.k.now;
        self.k.set_timer(
            bnode(b),
            now + cfg.replica_lag_time_max_ms / 2,
            Timer::IsrExpiration,
        )?;
        self.k.set_timer(
            bnode(b),
            now + cfg.replica_high_watermark_checkpoint_interval_ms,
            Timer::HwCheckpoint,
        )?;
        self.k.set_timer(
            bnode(b),
            now + cfg.log_retention_check_interval_ms,
            Timer::RetentionCheck,
        )?;
        self.k.set_timer(
            bnode(b),
            now + cfg.log_cleaner_backoff_ms,
            Timer::CleanerCheck,
        )?;
        self.k.set_timer(
            bnode(b),
            now + self.k.sc.cluster.os_flush_interval_ms,
            Timer::OsFlush,
        )?;
        Ok(())
    }

    /// Creates `/brokers/ids/<id>`; if a previous life's znode is still there
    /// (its session has not expired yet), watch it and try again when it goes.
    fn broker_register(&mut self, b: BrokerId) -> Step {
        let path = format!("/brokers/ids/{}", b.0);
        let data = format!(
            "{{\"features\":{{}},\"listener_security_protocol_map\":{{\"PLAINTEXT\":\"PLAINTEXT\"}},\"endpoints\":[\"PLAINTEXT://broker-{0}:9092\"],\"jmx_port\":-1,\"port\":9092,\"host\":\"broker-{0}\",\"version\":5,\"timestamp\":\"{1}\"}}",
            b.0,
            self.wall_ms()
        );
        if self.zk_create(bnode(b), &path, data, Some(b))? {
            self.k.gate()?;
            self.brm(b).registered = true;
            self.controller_try_elect(b)
        } else {
            self.zk_watch(b, &path)
        }
    }

    /// Hard kill: the process dies; memory is lost, the disk is kept.
    /// The OS writes back dirty pages: the logs are on disk up to their end.
    fn broker_os_flush(&mut self, b: BrokerId) -> Step {
        let n = self
            .br(b)
            .logs
            .values()
            .filter(|l| l.flushed_offset != l.log_end_offset)
            .count() as u32;
        if n == 0 {
            return Ok(());
        }
        self.k.gate()?;
        for l in self.brm(b).logs.values_mut() {
            l.flushed_offset = l.log_end_offset;
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::LogFlushed {
                broker: b,
                partitions: n,
            },
        );
        Ok(())
    }

    /// A power failure: the page cache is gone, so each log loses what the OS
    /// had not written back (Kafka does not fsync each write).
    pub(crate) fn broker_lose_page_cache(&mut self, b: BrokerId) -> Step {
        let cut: Vec<(TopicPartition, i64)> = self
            .br(b)
            .logs
            .iter()
            .filter(|(_, l)| l.flushed_offset < l.log_end_offset)
            .map(|(tp, l)| (tp.clone(), l.flushed_offset))
            .collect();
        for (tp, to) in cut {
            self.truncate(
                b,
                &tp,
                to,
                TruncateReason::PowerFailure { flushed_offset: to },
            )?;
        }
        Ok(())
    }

    /// The broker's process ended: every TCP connection to it resets, so
    /// the peers with requests in flight learn of it after one link latency
    /// (a power failure sends no reset: they wait for their timeouts).
    pub(crate) fn broker_connections_reset(&mut self, b: BrokerId) -> Step {
        let mut peers: Vec<NodeId> = Vec::new();
        for p in &self.producers {
            if p.in_flight.get(&b).is_some_and(|m| !m.is_empty()) {
                peers.push(NodeId::Producer(p.index));
            }
        }
        for c in &self.consumers {
            if c.alive && c.fetches_in_flight.contains_key(&b) {
                peers.push(NodeId::Consumer(c.index));
            }
        }
        for x in self.brokers.values().filter(|x| x.alive && x.id != b) {
            let fetching = x.fetchers.get(&b).is_some_and(|f| f.in_flight.is_some());
            let altering = x.metadata.controller_id == b.0
                && x.partitions.values().any(|p| p.pending_isr.is_some());
            if fetching || altering {
                peers.push(NodeId::Broker(x.id));
            }
        }
        for node in peers {
            let at = self.k.now + self.k.net.latency(node, bnode(b));
            self.k
                .set_timer(node, at, Timer::ConnectionClosed { peer: b })?;
        }
        Ok(())
    }

    /// Our connection to `peer` was reset: fetches to it and ISR changes sent
    /// to it (as controller) are given up and retried.
    fn broker_connection_closed(&mut self, b: BrokerId, peer: BrokerId) -> Step {
        let fetch = self
            .br(b)
            .fetchers
            .get(&peer)
            .and_then(|f| f.in_flight)
            .is_some();
        let pending: Vec<TopicPartition> = if self.br(b).metadata.controller_id == peer.0 {
            self.br(b)
                .partitions
                .iter()
                .filter(|(_, p)| p.pending_isr.is_some())
                .map(|(t, _)| t.clone())
                .collect()
        } else {
            vec![]
        };
        if !fetch && pending.is_empty() {
            return Ok(());
        }
        self.k.gate()?;
        if let Some(f) = self.brm(b).fetchers.get_mut(&peer) {
            f.in_flight = None;
        }
        for tp in &pending {
            if let Some(p) = self.brm(b).partitions.get_mut(tp) {
                p.pending_isr = None;
            }
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::ConnectionClosed {
                node: bnode(b),
                peer,
                requests_failed: fetch as u32 + pending.len() as u32,
            },
        );
        if fetch {
            let at = self.k.now + self.k.sc.cluster.config.replica_fetch_backoff_ms;
            self.k
                .set_timer(bnode(b), at, Timer::ReplicaFetchBackoff { leader: peer })?;
        }
        Ok(())
    }

    pub(crate) fn broker_kill(&mut self, b: BrokerId, controlled: bool) -> Step {
        self.k.gate()?;
        {
            let br = self.brm(b);
            br.alive = false;
            br.partitions.clear();
            br.fetchers.clear();
            br.delayed_fetches.clear();
            br.delayed_produces.clear();
            br.metadata = MetadataCache {
                controller_id: -1,
                ..Default::default()
            };
            br.controller = None;
            br.groups = Default::default();
            br.registered = false;
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::BrokerStopped {
                broker: b,
                controlled,
            },
        );
        if controlled {
            self.zk_close_session(b, false)
        } else {
            self.zk_broker_died(b)
        }
    }

    pub(crate) fn broker_on_message(&mut self, b: BrokerId, from: NodeId, msg: Message) -> Step {
        match msg {
            Message::WatchNotification { path, change } => {
                self.k.record(
                    vec![NodeId::ZooKeeper, bnode(b)],
                    EventKind::WatchFired {
                        watcher: b,
                        path: path.clone(),
                        change,
                    },
                )?;
                if path == format!("/brokers/ids/{}", b.0) && !self.br(b).registered {
                    return self.broker_register(b);
                }
                self.controller_on_watch(b, &path)
            }
            Message::LeaderAndIsr {
                controller_id,
                controller_epoch,
                partitions,
            } => self.broker_on_leader_and_isr(b, controller_id, controller_epoch, partitions),
            Message::UpdateMetadata {
                controller_id,
                controller_epoch,
                live_brokers,
                partitions,
            } => {
                if controller_epoch < self.br(b).known_controller_epoch {
                    return self
                        .k
                        .record(
                            vec![bnode(b)],
                            EventKind::StaleControllerIgnored {
                                broker: b,
                                request_epoch: controller_epoch,
                                known_epoch: self.br(b).known_controller_epoch,
                            },
                        )
                        .map(|_| ());
                }
                self.k.gate()?;
                let br = self.brm(b);
                br.known_controller_epoch = controller_epoch;
                br.metadata.controller_id = controller_id.0;
                br.metadata.live_brokers = live_brokers;
                for p in partitions {
                    br.metadata.partitions.insert(p.tp.clone(), p);
                }
                // Metadata updates are frequent and change no replica: routine, no event.
                Ok(())
            }
            Message::LeaderAndIsrResponse { .. } => Ok(()),
            Message::StopReplica {
                controller_epoch,
                partitions,
                delete,
            } => {
                if controller_epoch < self.br(b).known_controller_epoch {
                    return Ok(());
                }
                for tp in partitions {
                    self.broker_stop_replica(b, &tp, delete)?;
                }
                Ok(())
            }
            Message::AlterPartition {
                broker,
                tp,
                leader_epoch,
                new_isr,
                partition_epoch,
            } => {
                if self.is_controller(b) {
                    self.controller_on_alter_partition(
                        b,
                        broker,
                        tp,
                        leader_epoch,
                        new_isr,
                        partition_epoch,
                    )
                } else {
                    self.k
                        .send(
                            bnode(b),
                            from,
                            Message::AlterPartitionResponse {
                                tp,
                                error: Some(ErrorCode::NotController),
                                leader: -1,
                                leader_epoch: -1,
                                isr: vec![],
                                partition_epoch: -1,
                            },
                        )
                        .map(|_| ())
                }
            }
            Message::AlterPartitionResponse {
                tp,
                error,
                leader_epoch,
                isr,
                partition_epoch,
                ..
            } => self.broker_on_alter_partition_response(
                b,
                tp,
                error,
                leader_epoch,
                isr,
                partition_epoch,
            ),
            Message::ControlledShutdown { broker } => {
                if self.is_controller(b) {
                    self.controller_on_controlled_shutdown(b, broker)
                } else {
                    self.k
                        .send(
                            bnode(b),
                            from,
                            Message::ControlledShutdownResponse {
                                error: Some(ErrorCode::NotController),
                                partitions_remaining: vec![],
                            },
                        )
                        .map(|_| ())
                }
            }
            Message::ControlledShutdownResponse { .. } => {
                if self.br(b).shutting_down {
                    self.broker_kill(b, true)?;
                    self.broker_connections_reset(b)
                } else {
                    Ok(())
                }
            }
            Message::Produce {
                correlation_id,
                acks,
                timeout_ms,
                topic_data,
            } => self.broker_on_produce(b, from, correlation_id, acks, timeout_ms, topic_data),
            Message::Fetch {
                correlation_id,
                replica_id,
                max_wait_ms,
                min_bytes,
                max_bytes,
                partitions,
            } => self.broker_on_fetch(
                b,
                from,
                correlation_id,
                replica_id,
                max_wait_ms,
                min_bytes,
                max_bytes,
                partitions,
            ),
            Message::FetchResponse {
                correlation_id,
                partitions,
                ..
            } => {
                if let NodeId::Broker(leader) = from {
                    self.follower_on_fetch_response(b, leader, correlation_id, partitions)
                } else {
                    Ok(())
                }
            }
            Message::Metadata {
                correlation_id,
                topics,
            } => self.broker_on_metadata(b, from, correlation_id, topics),
            Message::ListOffsets {
                correlation_id,
                partitions,
            } => self.broker_on_list_offsets(b, from, correlation_id, partitions),
            Message::InitProducerId { correlation_id } => {
                self.broker_on_init_producer_id(b, from, correlation_id)
            }
            other => self.coordinator_on_message(b, from, other),
        }
    }

    /// A request of ours could not reach a dead broker.
    pub(crate) fn broker_disconnected(&mut self, b: BrokerId, to: NodeId, msg: &Message) -> Step {
        if let Message::AlterPartition {
            tp,
            partition_epoch,
            ..
        } = msg
        {
            // The controller died with our request: the next ISR check retries.
            let pending =
                self.br(b).partitions.get(tp).is_some_and(|p| {
                    p.pending_isr.is_some() && p.partition_epoch == *partition_epoch
                });
            if pending {
                self.k.gate()?;
                self.brm(b)
                    .partitions
                    .get_mut(tp)
                    .expect("checked")
                    .pending_isr = None;
                self.k.emit(
                    vec![bnode(b)],
                    EventKind::IsrChangeRejected {
                        broker: b,
                        tp: tp.clone(),
                        error: ErrorCode::NetworkException,
                    },
                );
            }
            return Ok(());
        }
        if let (Message::Fetch { correlation_id, .. }, NodeId::Broker(leader)) = (msg, to) {
            if self.br(b).fetchers.get(&leader).and_then(|f| f.in_flight) == Some(*correlation_id) {
                self.k.gate()?;
                if let Some(f) = self.brm(b).fetchers.get_mut(&leader) {
                    f.in_flight = None;
                }
                let at = self.k.now + self.k.sc.cluster.config.replica_fetch_backoff_ms;
                self.k
                    .set_timer(bnode(b), at, Timer::ReplicaFetchBackoff { leader })?;
            }
        }
        Ok(())
    }

    fn broker_ensure_log(&mut self, b: BrokerId, tp: &TopicPartition) -> Step {
        if self.br(b).logs.contains_key(tp) {
            return Ok(());
        }
        let cfg = Arc::new(self.topic_log_config(&tp.topic));
        self.k.gate()?;
        let wall = self.wall_ms();
        let br = self.brm(b);
        let log = Log::create(&mut br.disk, tp.clone(), cfg, wall)
            .expect("a new log directory can be created");
        let dir = log.dir.clone();
        br.logs.insert(tp.clone(), log);
        self.k.emit(
            vec![bnode(b)],
            EventKind::LogCreated {
                broker: b,
                tp: tp.clone(),
                dir,
            },
        );
        Ok(())
    }

    /// `becomeLeaderOrFollower`.
    fn broker_on_leader_and_isr(
        &mut self,
        b: BrokerId,
        controller_id: BrokerId,
        controller_epoch: i32,
        parts: Vec<PartitionState>,
    ) -> Step {
        let known = self.br(b).known_controller_epoch;
        if controller_epoch < known {
            self.k.record(
                vec![bnode(b)],
                EventKind::StaleControllerIgnored {
                    broker: b,
                    request_epoch: controller_epoch,
                    known_epoch: known,
                },
            )?;
            return self
                .k
                .send(
                    bnode(b),
                    bnode(controller_id),
                    Message::LeaderAndIsrResponse {
                        controller_epoch,
                        error: Some(ErrorCode::StaleControllerEpoch),
                        partitions: vec![],
                    },
                )
                .map(|_| ());
        }
        self.k.gate()?;
        self.brm(b).known_controller_epoch = controller_epoch;
        self.broker_leader_and_isr_next(LeaderAndIsrWork {
            b,
            controller_id,
            controller_epoch,
            parts: parts.into(),
            results: Vec::new(),
        })
    }

    /// One partition of a LeaderAndIsr request (partitions this broker does
    /// not host, or whose state is not newer, are passed over in the same
    /// step); the rest is left for the next step, and the response goes
    /// after the last.
    pub(crate) fn broker_leader_and_isr_next(&mut self, mut k: LeaderAndIsrWork) -> Step {
        let b = k.b;
        while let Some(ps) = k.parts.pop_front() {
            if !ps.replicas.contains(&b) {
                continue;
            }
            let current = self.br(b).partitions.get(&ps.tp).map(|p| p.leader_epoch);
            if current.is_some_and(|e| ps.leader_epoch <= e) {
                k.results.push((ps.tp.clone(), None));
                continue; // not newer: Kafka ignores it
            }
            self.broker_ensure_log(b, &ps.tp)?;
            if ps.leader == b.0 {
                self.make_leader(b, &ps)?;
            } else {
                self.make_follower(b, &ps)?;
            }
            k.results.push((ps.tp.clone(), None));
            if !k.parts.is_empty() {
                return self.k.continue_with(Continuation::LeaderAndIsr(k));
            }
        }
        self.k.send(
            bnode(b),
            bnode(k.controller_id),
            Message::LeaderAndIsrResponse {
                controller_epoch: k.controller_epoch,
                error: None,
                partitions: k.results,
            },
        )?;
        Ok(())
    }

    fn starting_hw(&self, b: BrokerId, tp: &TopicPartition) -> i64 {
        let br = self.br(b);
        let leo = br.logs.get(tp).map(|l| l.log_end_offset).unwrap_or(0);
        let hw = br
            .partitions
            .get(tp)
            .map(|p| p.high_watermark)
            .or_else(|| br.hw_checkpoint.get(tp).copied())
            .unwrap_or(0);
        hw.min(leo)
    }

    fn make_leader(&mut self, b: BrokerId, ps: &PartitionState) -> Step {
        let hw = self.starting_hw(b, &ps.tp);
        self.k.gate()?;
        let now = self.k.now;
        let br = self.brm(b);
        for f in br.fetchers.values_mut() {
            f.partitions.remove(&ps.tp);
        }
        let log = br.logs.get_mut(&ps.tp).expect("log ensured");
        let leo = log.log_end_offset;
        log.assign_epoch(ps.leader_epoch, leo);
        let remote = ps
            .replicas
            .iter()
            .filter(|r| **r != b)
            .map(|r| {
                (
                    *r,
                    RemoteReplica {
                        leo: -1,
                        last_caught_up_ms: if ps.isr.contains(r) { now } else { 0 },
                        last_fetch_ms: 0,
                        last_fetch_leader_leo: -1,
                    },
                )
            })
            .collect();
        br.partitions.insert(
            ps.tp.clone(),
            Partition {
                tp: ps.tp.clone(),
                replicas: ps.replicas.clone(),
                isr: ps.isr.clone(),
                leader: b.0,
                leader_epoch: ps.leader_epoch,
                partition_epoch: ps.partition_epoch,
                high_watermark: hw,
                is_leader: true,
                remote,
                pending_isr: None,
                leader_epoch_start_offset: leo,
            },
        );
        self.k.emit(
            vec![bnode(b)],
            EventKind::BecameLeader {
                broker: b,
                tp: ps.tp.clone(),
                leader_epoch: ps.leader_epoch,
                isr: ps.isr.clone(),
                high_watermark: hw,
                log_end_offset: leo,
            },
        );
        self.check_acked_records(&ps.tp)?;
        self.check_leaders(&ps.tp)?;
        self.maybe_increment_hw(b, &ps.tp)?;
        self.fail_delayed_produces(b, &ps.tp, None)?;
        self.coordinator_on_leader(b, &ps.tp)
    }

    fn make_follower(&mut self, b: BrokerId, ps: &PartitionState) -> Step {
        let hw = self.starting_hw(b, &ps.tp);
        let was_leader = self
            .br(b)
            .partitions
            .get(&ps.tp)
            .is_some_and(|p| p.is_leader);
        self.k.gate()?;
        let leo = self.br(b).logs[&ps.tp].log_end_offset;
        {
            let br = self.brm(b);
            for f in br.fetchers.values_mut() {
                f.partitions.remove(&ps.tp);
            }
            br.partitions.insert(
                ps.tp.clone(),
                Partition {
                    tp: ps.tp.clone(),
                    replicas: ps.replicas.clone(),
                    isr: ps.isr.clone(),
                    leader: ps.leader,
                    leader_epoch: ps.leader_epoch,
                    partition_epoch: ps.partition_epoch,
                    high_watermark: hw,
                    is_leader: false,
                    remote: SortedMap::new(),
                    pending_isr: None,
                    leader_epoch_start_offset: -1,
                },
            );
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::BecameFollower {
                broker: b,
                tp: ps.tp.clone(),
                leader: ps.leader,
                leader_epoch: ps.leader_epoch,
                high_watermark: hw,
                log_end_offset: leo,
            },
        );
        if was_leader {
            self.fail_delayed_produces(b, &ps.tp, Some(ErrorCode::NotLeaderOrFollower))?;
        }
        self.coordinator_on_resign(b, &ps.tp)?;
        if !self.k.sc.cluster.config.uses_leader_epochs() && leo > hw {
            // The source notes' rule: cut everything at or above the high watermark.
            self.truncate(
                b,
                &ps.tp,
                hw,
                TruncateReason::HighWatermark { high_watermark: hw },
            )?;
        }
        if ps.leader >= 0 {
            let leader = BrokerId(ps.leader);
            self.k.gate()?;
            self.brm(b)
                .fetchers
                .entry(leader)
                .or_default()
                .partitions
                .insert(
                    ps.tp.clone(),
                    FetchState {
                        leader_epoch: ps.leader_epoch,
                        verified: false,
                        delayed_until: 0,
                    },
                );
            self.fetcher_maybe_send(b, leader)?;
        }
        Ok(())
    }

    /// StopReplica: stop following (and with `delete`, remove the log and its files).
    fn broker_stop_replica(&mut self, b: BrokerId, tp: &TopicPartition, delete: bool) -> Step {
        self.k.gate()?;
        let br = self.brm(b);
        br.partitions.remove(tp);
        for f in br.fetchers.values_mut() {
            f.partitions.remove(tp);
        }
        if delete {
            if let Some(log) = br.logs.remove(tp) {
                for f in crate::storage::paged::Storage::list(&br.disk, &format!("{}/", log.dir)) {
                    let _ = crate::storage::paged::Storage::delete(&mut br.disk, &f);
                }
            }
            br.hw_checkpoint.remove(tp);
            br.producer_states.remove(tp);
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::ReplicaStopped {
                broker: b,
                tp: tp.clone(),
                deleted: delete,
            },
        );
        self.complete_delayed_produces(b, tp)?;
        self.coordinator_on_resign(b, tp)
    }

    pub(crate) fn truncate(
        &mut self,
        b: BrokerId,
        tp: &TopicPartition,
        to: i64,
        reason: TruncateReason,
    ) -> Step {
        self.k.gate()?;
        let br = self.brm(b);
        let Some(log) = br.logs.get_mut(tp) else {
            return Ok(());
        };
        let truncated = log
            .truncate_to(&mut br.disk, to)
            .expect("truncation of an existing log");
        if let Some(t) = truncated {
            let leo = log.log_end_offset;
            if let Some(p) = br.partitions.get_mut(tp) {
                p.high_watermark = p.high_watermark.min(leo);
            }
            if let Some(s) = br.producer_states.get_mut(tp) {
                s.truncate(leo);
            }
            self.k.emit(
                vec![bnode(b)],
                EventKind::LogTruncated {
                    broker: b,
                    tp: tp.clone(),
                    truncated: t,
                    reason,
                },
            );
        }
        Ok(())
    }

    /// Sends the next Fetch to `leader` if nothing is in flight.
    pub(crate) fn fetcher_maybe_send(&mut self, b: BrokerId, leader: BrokerId) -> Step {
        let now = self.k.now;
        let Some(f) = self.br(b).fetchers.get(&leader) else {
            return Ok(());
        };
        if f.in_flight.is_some() || !self.br(b).alive {
            return Ok(());
        }
        let epochs = self.k.sc.cluster.config.uses_leader_epochs();
        let cfg = &self.k.sc.cluster.config;
        let (wait, min_bytes, max_bytes) = (
            cfg.replica_fetch_wait_max_ms,
            cfg.replica_fetch_min_bytes,
            cfg.replica_fetch_max_bytes,
        );
        let mut parts = Vec::new();
        let mut next_wake: Option<u64> = None;
        for (tp, st) in &f.partitions {
            if st.delayed_until > now {
                next_wake =
                    Some(next_wake.map_or(st.delayed_until, |w: u64| w.min(st.delayed_until)));
                continue;
            }
            let log = &self.br(b).logs[tp];
            parts.push(FetchPartition {
                tp: tp.clone(),
                fetch_offset: log.log_end_offset,
                current_leader_epoch: st.leader_epoch,
                last_fetched_epoch: if epochs {
                    log.latest_epoch().unwrap_or(-1)
                } else {
                    -1
                },
                partition_max_bytes: max_bytes,
            });
        }
        if parts.is_empty() {
            if let Some(w) = next_wake {
                self.k
                    .set_timer(bnode(b), w, Timer::ReplicaFetchBackoff { leader })?;
            }
            return Ok(());
        }
        self.k.gate()?;
        let br = self.brm(b);
        br.next_correlation += 1;
        let cid = br.next_correlation;
        br.fetchers.get_mut(&leader).expect("exists").in_flight = Some(cid);
        self.k.send(
            bnode(b),
            bnode(leader),
            Message::Fetch {
                correlation_id: cid,
                replica_id: b.0,
                max_wait_ms: wait,
                min_bytes,
                max_bytes: 10 * 1024 * 1024,
                partitions: parts,
            },
        )?;
        let timeout = self.k.now + self.k.sc.cluster.config.request_timeout_ms;
        self.k.set_timer(
            bnode(b),
            timeout,
            Timer::RequestTimeout {
                correlation_id: cid,
            },
        )
    }

    /// The leader's side of Fetch.
    #[allow(clippy::too_many_arguments)]
    fn broker_on_fetch(
        &mut self,
        b: BrokerId,
        from: NodeId,
        correlation_id: i32,
        replica_id: i32,
        max_wait_ms: u64,
        min_bytes: u64,
        max_bytes: u64,
        partitions: Vec<FetchPartition>,
    ) -> Step {
        if replica_id >= 0 {
            // Followers' fetch offsets are their log end offsets: record them first.
            for fp in &partitions {
                self.leader_record_follower_fetch(b, BrokerId(replica_id), fp)?;
            }
        }
        let d = DelayedFetch {
            from,
            correlation_id,
            replica_id,
            partitions,
            min_bytes,
            max_bytes,
        };
        let (responses, bytes, urgent) = self.read_fetch(b, &d);
        if urgent || bytes >= min_bytes || max_wait_ms == 0 {
            return self.send_fetch_response(b, &d, responses);
        }
        self.k.gate()?;
        let br = self.brm(b);
        br.next_delayed += 1;
        let id = br.next_delayed;
        br.delayed_fetches.insert(id, d);
        self.k.emit(
            vec![bnode(b), from],
            EventKind::FetchParked {
                broker: b,
                from,
                max_wait_ms,
                min_bytes,
            },
        );
        self.k.set_timer(
            bnode(b),
            self.k.now + max_wait_ms,
            Timer::DelayedFetchExpiry { id },
        )
    }

    /// Reads what a fetch would return now: the responses, the bytes, and
    /// whether something (an error, a divergence) must be answered at once.
    fn read_fetch(
        &self,
        b: BrokerId,
        d: &DelayedFetch,
    ) -> (Vec<FetchPartitionResponse>, u64, bool) {
        let br = self.br(b);
        let mut out = Vec::new();
        let mut total = 0u64;
        let mut urgent = false;
        for fp in &d.partitions {
            let mut r = FetchPartitionResponse {
                tp: fp.tp.clone(),
                error: None,
                high_watermark: -1,
                log_start_offset: -1,
                log_end_offset: -1,
                diverging_epoch: None,
                records: Bytes::default(),
            };
            let Some(p) = br.partitions.get(&fp.tp).filter(|p| p.is_leader) else {
                r.error = Some(ErrorCode::NotLeaderOrFollower);
                urgent = true;
                out.push(r);
                continue;
            };
            if fp.current_leader_epoch >= 0 && fp.current_leader_epoch < p.leader_epoch {
                r.error = Some(ErrorCode::FencedLeaderEpoch);
                urgent = true;
                out.push(r);
                continue;
            }
            if fp.current_leader_epoch > p.leader_epoch {
                r.error = Some(ErrorCode::UnknownLeaderEpoch);
                urgent = true;
                out.push(r);
                continue;
            }
            let log = &br.logs[&fp.tp];
            r.high_watermark = p.high_watermark;
            r.log_start_offset = log.log_start_offset;
            r.log_end_offset = log.log_end_offset;
            if d.replica_id >= 0 && fp.last_fetched_epoch >= 0 {
                let (epoch, end) = log.end_offset_for_epoch(fp.last_fetched_epoch);
                if epoch < fp.last_fetched_epoch || end < fp.fetch_offset {
                    r.diverging_epoch = Some(DivergingEpoch {
                        epoch,
                        end_offset: end,
                    });
                    urgent = true;
                    out.push(r);
                    continue;
                }
            }
            let upper = if d.replica_id >= 0 {
                log.log_end_offset
            } else {
                p.high_watermark
            };
            let budget = fp
                .partition_max_bytes
                .min(d.max_bytes.saturating_sub(total));
            match log.read(&br.disk, fp.fetch_offset, budget, upper, total == 0) {
                Ok(data) => {
                    total += data.bytes.len() as u64;
                    r.records = Bytes::new(data.bytes);
                }
                Err(_) => {
                    r.error = Some(ErrorCode::OffsetOutOfRange);
                    urgent = true;
                }
            }
            out.push(r);
        }
        (out, total, urgent)
    }

    fn send_fetch_response(
        &mut self,
        b: BrokerId,
        d: &DelayedFetch,
        partitions: Vec<FetchPartitionResponse>,
    ) -> Step {
        for r in &partitions {
            if let Some(e) = r.error {
                self.k.record(
                    vec![bnode(b), d.from],
                    EventKind::FetchRejected {
                        broker: b,
                        tp: r.tp.clone(),
                        from: d.from,
                        error: e,
                    },
                )?;
            }
            if let Some(div) = r.diverging_epoch {
                if let NodeId::Broker(f) = d.from {
                    self.k.record(
                        vec![bnode(b), d.from],
                        EventKind::DivergenceDetected {
                            broker: b,
                            tp: r.tp.clone(),
                            follower: f,
                            epoch: div.epoch,
                            end_offset: div.end_offset,
                        },
                    )?;
                }
            }
        }
        self.k
            .send(
                bnode(b),
                d.from,
                Message::FetchResponse {
                    correlation_id: d.correlation_id,
                    error: None,
                    partitions,
                },
            )
            .map(|_| ())
    }

    fn broker_answer_fetch(&mut self, b: BrokerId, d: DelayedFetch) -> Step {
        let (responses, _, _) = self.read_fetch(b, &d);
        self.send_fetch_response(b, &d, responses)
    }

    /// Completes parked fetches that now have enough data (after an append or
    /// a high watermark move on `tp`).
    pub(crate) fn complete_delayed_fetches(&mut self, b: BrokerId, tp: &TopicPartition) -> Step {
        let ids: Vec<u64> = self
            .br(b)
            .delayed_fetches
            .iter()
            .filter(|(_, d)| d.partitions.iter().any(|p| &p.tp == tp))
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            let d = self.br(b).delayed_fetches[&id].clone();
            let (responses, bytes, urgent) = self.read_fetch(b, &d);
            if urgent || bytes >= d.min_bytes {
                self.k.gate()?;
                self.brm(b).delayed_fetches.remove(&id);
                self.send_fetch_response(b, &d, responses)?;
            }
        }
        Ok(())
    }

    /// `updateFollowerFetchState`: the follower's fetch offset is its LEO.
    fn leader_record_follower_fetch(
        &mut self,
        b: BrokerId,
        f: BrokerId,
        fp: &FetchPartition,
    ) -> Step {
        let now = self.k.now;
        let lag = self.k.sc.cluster.config.replica_lag_time_max_ms;
        let Some(p) = self.br(b).partitions.get(&fp.tp).filter(|p| p.is_leader) else {
            return Ok(());
        };
        if fp.current_leader_epoch != p.leader_epoch || !p.remote.contains_key(&f) {
            return Ok(());
        }
        let leader_leo = self.br(b).logs[&fp.tp].log_end_offset;
        if fp.last_fetched_epoch >= 0 {
            let (e, end) = self.br(b).logs[&fp.tp].end_offset_for_epoch(fp.last_fetched_epoch);
            if e < fp.last_fetched_epoch || end < fp.fetch_offset {
                return Ok(()); // diverging: the follower must truncate first
            }
        }
        if fp.fetch_offset > leader_leo {
            return Ok(());
        }
        self.k.gate()?;
        let r = self
            .brm(b)
            .partitions
            .get_mut(&fp.tp)
            .expect("checked")
            .remote
            .get_mut(&f)
            .expect("checked");
        let caught_up = if fp.fetch_offset >= leader_leo {
            r.last_caught_up_ms = r.last_caught_up_ms.max(now);
            true
        } else {
            if fp.fetch_offset >= r.last_fetch_leader_leo && r.last_fetch_leader_leo >= 0 {
                r.last_caught_up_ms = r.last_caught_up_ms.max(r.last_fetch_ms);
            }
            now.saturating_sub(r.last_caught_up_ms) <= lag
        };
        let changed = r.leo != fp.fetch_offset;
        r.leo = fp.fetch_offset;
        r.last_fetch_leader_leo = r.last_fetch_leader_leo.max(leader_leo);
        r.last_fetch_ms = now;
        if changed {
            self.k.emit(
                vec![bnode(b), bnode(f)],
                EventKind::FollowerFetchRecorded {
                    broker: b,
                    tp: fp.tp.clone(),
                    follower: f,
                    follower_leo: fp.fetch_offset,
                    leader_leo,
                    caught_up,
                },
            );
        }
        self.maybe_expand_isr(b, &fp.tp, f)?;
        self.maybe_increment_hw(b, &fp.tp)
    }

    /// `maybeIncrementLeaderHW`.
    pub(crate) fn maybe_increment_hw(&mut self, b: BrokerId, tp: &TopicPartition) -> Step {
        let now = self.k.now;
        let lag = self.k.sc.cluster.config.replica_lag_time_max_ms;
        let br = self.br(b);
        let Some(p) = br.partitions.get(tp).filter(|p| p.is_leader) else {
            return Ok(());
        };
        let log = &br.logs[tp];
        let leo = log.log_end_offset;
        let min_isr = log.config.min_insync_replicas;
        let maximal = p.maximal_isr();
        let mut new_hw = leo;
        for (id, r) in &p.remote {
            // A caught-up replica about to join the ISR is waited for only
            // while it may join (`isReplicaIsrEligible`: with ZooKeeper, the
            // broker's metadata cache lists it as alive).
            let eligible = br.metadata.live_brokers.contains(id);
            let caught_up = r.leo == leo || now.saturating_sub(r.last_caught_up_ms) <= lag;
            if r.leo < new_hw && (maximal.contains(id) || caught_up && eligible && r.leo >= 0) {
                new_hw = r.leo;
            }
        }
        if new_hw <= p.high_watermark {
            return Ok(());
        }
        if (p.isr.len() as i32) < min_isr {
            // Kafka ≥ 3.7: the high watermark waits until the ISR is big enough again.
            return self
                .k
                .record(
                    vec![bnode(b)],
                    EventKind::HighWatermarkHeld {
                        broker: b,
                        tp: tp.clone(),
                        isr_size: p.isr.len() as u32,
                        min_insync_replicas: min_isr,
                    },
                )
                .map(|_| ());
        }
        let mut isr_leos = vec![(b, leo)];
        for id in &maximal {
            if let Some(r) = p.remote.get(id) {
                isr_leos.push((*id, r.leo));
            }
        }
        let old = p.high_watermark;
        self.k.gate()?;
        self.brm(b)
            .partitions
            .get_mut(tp)
            .expect("checked")
            .high_watermark = new_hw;
        self.k.emit(
            vec![bnode(b)],
            EventKind::HighWatermarkUpdated {
                broker: b,
                tp: tp.clone(),
                old,
                new: new_hw,
                leader: true,
                isr_leos,
            },
        );
        self.check_hw_within_isr(b, tp)?;
        self.complete_delayed_produces(b, tp)?;
        self.complete_delayed_fetches(b, tp)
    }

    fn maybe_expand_isr(&mut self, b: BrokerId, tp: &TopicPartition, f: BrokerId) -> Step {
        let Some(p) = self.br(b).partitions.get(tp).filter(|p| p.is_leader) else {
            return Ok(());
        };
        if p.isr.contains(&f) || p.pending_isr.is_some() {
            return Ok(());
        }
        // `canAddReplicaToIsr`: only a broker the metadata cache lists as alive.
        if !self.br(b).metadata.live_brokers.contains(&f) {
            return Ok(());
        }
        let Some(r) = p.remote.get(&f) else {
            return Ok(());
        };
        if r.leo >= p.high_watermark && r.leo >= p.leader_epoch_start_offset {
            let mut new_isr = p.isr.clone();
            new_isr.push(f);
            let reason = format!(
                "follower {} caught up: its LEO {} reached the high watermark {}",
                f.0, r.leo, p.high_watermark
            );
            self.propose_isr(b, tp, new_isr, reason)?;
        }
        Ok(())
    }

    /// `maybeShrinkIsr`, run every `replica.lag.time.max.ms / 2`.
    fn broker_maybe_shrink_isr(&mut self, b: BrokerId) -> Step {
        let now = self.k.now;
        let lag = self.k.sc.cluster.config.replica_lag_time_max_ms;
        let mut todo = Vec::new();
        for (tp, p) in &self.br(b).partitions {
            if !p.is_leader || p.pending_isr.is_some() {
                continue;
            }
            let leo = self.br(b).logs[tp].log_end_offset;
            let out: Vec<BrokerId> = p
                .isr
                .iter()
                .copied()
                .filter(|id| *id != b)
                .filter(|id| {
                    p.remote.get(id).is_none_or(|r| {
                        r.leo != leo && now.saturating_sub(r.last_caught_up_ms) > lag
                    })
                })
                .collect();
            if !out.is_empty() {
                let new_isr: Vec<BrokerId> =
                    p.isr.iter().copied().filter(|x| !out.contains(x)).collect();
                let reason = format!(
                    "follower{} {} not caught up for more than replica.lag.time.max.ms={lag}",
                    if out.len() > 1 { "s" } else { "" },
                    crate::event::ids_list(&out)
                );
                todo.push((tp.clone(), new_isr, reason));
            }
        }
        for (tp, isr, reason) in todo {
            self.propose_isr(b, &tp, isr, reason)?;
        }
        Ok(())
    }

    fn propose_isr(
        &mut self,
        b: BrokerId,
        tp: &TopicPartition,
        new_isr: Vec<BrokerId>,
        reason: String,
    ) -> Step {
        let controller = self.br(b).metadata.controller_id;
        if controller < 0 {
            return Ok(());
        }
        self.k.gate()?;
        let (old, epoch, pe) = {
            let p = self.brm(b).partitions.get_mut(tp).expect("leader");
            p.pending_isr = Some(new_isr.clone());
            (p.isr.clone(), p.leader_epoch, p.partition_epoch)
        };
        self.k.emit(
            vec![bnode(b)],
            EventKind::IsrChangeProposed {
                broker: b,
                tp: tp.clone(),
                old_isr: old,
                new_isr: new_isr.clone(),
                reason,
            },
        );
        self.k.send(
            bnode(b),
            bnode(BrokerId(controller)),
            Message::AlterPartition {
                broker: b,
                tp: tp.clone(),
                leader_epoch: epoch,
                new_isr,
                partition_epoch: pe,
            },
        )?;
        let at = self.k.now + self.k.sc.cluster.config.request_timeout_ms;
        self.k.set_timer(
            bnode(b),
            at,
            Timer::AlterPartitionTimeout {
                tp: tp.clone(),
                partition_epoch: pe,
            },
        )
    }

    fn broker_on_alter_partition_response(
        &mut self,
        b: BrokerId,
        tp: TopicPartition,
        error: Option<ErrorCode>,
        leader_epoch: i32,
        isr: Vec<BrokerId>,
        partition_epoch: i32,
    ) -> Step {
        let Some(p) = self.br(b).partitions.get(&tp) else {
            return Ok(());
        };
        if !p.is_leader || p.pending_isr.is_none() {
            return Ok(());
        }
        self.k.gate()?;
        let p = self.brm(b).partitions.get_mut(&tp).expect("checked");
        p.pending_isr = None;
        if let Some(e) = error {
            self.k.emit(
                vec![bnode(b)],
                EventKind::IsrChangeRejected {
                    broker: b,
                    tp,
                    error: e,
                },
            );
            return Ok(());
        }
        if leader_epoch != p.leader_epoch {
            return Ok(());
        }
        p.isr = isr.clone();
        p.partition_epoch = partition_epoch;
        self.k.emit(
            vec![bnode(b)],
            EventKind::IsrChangeApplied {
                broker: b,
                tp: tp.clone(),
                isr,
                partition_epoch,
            },
        );
        self.maybe_increment_hw(b, &tp)
    }

    /// The follower's side: append, take the leader's high watermark, fetch again.
    fn follower_on_fetch_response(
        &mut self,
        b: BrokerId,
        leader: BrokerId,
        cid: i32,
        parts: Vec<FetchPartitionResponse>,
    ) -> Step {
        if self.br(b).fetchers.get(&leader).and_then(|f| f.in_flight) != Some(cid) {
            return Ok(());
        }
        self.k.gate()?;
        self.brm(b)
            .fetchers
            .get_mut(&leader)
            .expect("checked")
            .in_flight = None;
        let backoff = self.k.sc.cluster.config.replica_fetch_backoff_ms;
        for r in parts {
            let following = self
                .br(b)
                .fetchers
                .get(&leader)
                .is_some_and(|f| f.partitions.contains_key(&r.tp));
            if !following {
                continue;
            }
            if let Some(e) = r.error {
                if e == ErrorCode::OffsetOutOfRange {
                    let my_leo = self.br(b).logs[&r.tp].log_end_offset;
                    if my_leo > r.log_end_offset && r.log_end_offset >= 0 {
                        self.truncate(
                            b,
                            &r.tp,
                            r.log_end_offset,
                            TruncateReason::HighWatermark {
                                high_watermark: r.log_end_offset,
                            },
                        )?;
                    } else if r.log_start_offset > my_leo {
                        self.k.gate()?;
                        let wall = self.wall_ms();
                        let br = self.brm(b);
                        let log = br.logs.get_mut(&r.tp).expect("exists");
                        let old = log.log_end_offset;
                        log.truncate_fully_and_start_at(&mut br.disk, r.log_start_offset, wall)
                            .expect("log exists");
                        self.k.emit(
                            vec![bnode(b)],
                            EventKind::LogTruncated {
                                broker: b,
                                tp: r.tp.clone(),
                                truncated: crate::storage::log::Truncated {
                                    to_offset: r.log_start_offset,
                                    old_log_end_offset: old,
                                    bytes_removed: 0,
                                    segments_removed: vec![],
                                },
                                reason: TruncateReason::BelowLogStart {
                                    log_start_offset: r.log_start_offset,
                                },
                            },
                        );
                    }
                    continue;
                }
                self.k.gate()?;
                let until = self.k.now + backoff;
                if let Some(st) = self
                    .brm(b)
                    .fetchers
                    .get_mut(&leader)
                    .and_then(|f| f.partitions.get_mut(&r.tp))
                {
                    st.delayed_until = until;
                }
                continue;
            }
            if let Some(div) = r.diverging_epoch {
                // KIP-101: cut to where our last epoch ends on the leader (or
                // where it ends for us, if that is earlier).
                let log = &self.br(b).logs[&r.tp];
                let hw = self
                    .br(b)
                    .partitions
                    .get(&r.tp)
                    .map(|p| p.high_watermark)
                    .unwrap_or(0);
                let to = if div.end_offset < 0 {
                    // The leader knows nothing of our epoch: fall back to the high watermark.
                    hw
                } else {
                    let (my_epoch, my_end) = log.end_offset_for_epoch(div.epoch);
                    if my_epoch == div.epoch {
                        div.end_offset.min(my_end)
                    } else {
                        div.end_offset.min(log.log_end_offset)
                    }
                };
                let to = to.max(0);
                self.truncate(
                    b,
                    &r.tp,
                    to,
                    TruncateReason::LeaderEpoch {
                        epoch: div.epoch,
                        end_offset: div.end_offset,
                    },
                )?;
                continue;
            }
            if !r.records.is_empty() {
                self.follower_append(b, &r.tp, r.records.0.to_vec())?;
            }
            let verified = self
                .br(b)
                .fetchers
                .get(&leader)
                .and_then(|f| f.partitions.get(&r.tp))
                .is_none_or(|s| s.verified);
            if !verified {
                self.k.gate()?;
                if let Some(st) = self
                    .brm(b)
                    .fetchers
                    .get_mut(&leader)
                    .and_then(|f| f.partitions.get_mut(&r.tp))
                {
                    st.verified = true;
                }
                self.check_replicas_consistent(b, leader, &r.tp)?;
            }
            let log = &self.br(b).logs[&r.tp];
            let new_hw = r
                .high_watermark
                .min(log.log_end_offset)
                .max(log.log_start_offset);
            let old = self
                .br(b)
                .partitions
                .get(&r.tp)
                .map(|p| p.high_watermark)
                .unwrap_or(0);
            if new_hw != old {
                self.k.gate()?;
                if let Some(p) = self.brm(b).partitions.get_mut(&r.tp) {
                    p.high_watermark = new_hw;
                }
                self.k.emit(
                    vec![bnode(b)],
                    EventKind::HighWatermarkUpdated {
                        broker: b,
                        tp: r.tp.clone(),
                        old,
                        new: new_hw,
                        leader: false,
                        isr_leos: vec![],
                    },
                );
            }
        }
        self.fetcher_maybe_send(b, leader)
    }

    fn follower_append(&mut self, b: BrokerId, tp: &TopicPartition, bytes: Vec<u8>) -> Step {
        let prepared = match self.br(b).logs[tp].prepare_follower_append(bytes) {
            Ok(p) => p,
            Err(e) => {
                return self
                    .k
                    .record(
                        vec![bnode(b)],
                        EventKind::AppendRejected {
                            broker: b,
                            tp: tp.clone(),
                            error: ErrorCode::CorruptMessage,
                            detail: e.to_string(),
                        },
                    )
                    .map(|_| ())
            }
        };
        self.append_prepared(b, tp, prepared, false)
    }

    /// Roll if needed, then append: two events.
    pub(crate) fn append_prepared(
        &mut self,
        b: BrokerId,
        tp: &TopicPartition,
        p: crate::storage::log::PreparedAppend,
        leader: bool,
    ) -> Step {
        let wall = self.wall_ms();
        if let Some(reason) = self.br(b).logs[tp].roll_reason(&p, wall) {
            self.k.gate()?;
            let br = self.brm(b);
            let log = br.logs.get_mut(tp).expect("exists");
            let roll = log
                .roll(&mut br.disk, reason, Some(p.first_offset), wall)
                .expect("roll");
            self.k.emit(
                vec![bnode(b)],
                EventKind::SegmentRolled {
                    broker: b,
                    tp: tp.clone(),
                    roll,
                },
            );
        }
        self.k.gate()?;
        let br = self.brm(b);
        let log = br.logs.get_mut(tp).expect("exists");
        let appended = log.append(&mut br.disk, &p).expect("append");
        let states = br.producer_states.entry(tp.clone()).or_default();
        for batch in &appended.batches {
            states.record(batch);
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::BatchAppended {
                broker: b,
                tp: tp.clone(),
                leader,
                appended,
            },
        );
        Ok(())
    }

    /// The leader's side of Produce.
    fn broker_on_produce(
        &mut self,
        b: BrokerId,
        from: NodeId,
        correlation_id: i32,
        acks: i16,
        timeout_ms: u64,
        topic_data: Vec<(TopicPartition, Bytes)>,
    ) -> Step {
        let mut done = Vec::new();
        let mut waiting = Vec::new();
        for (tp, bytes) in topic_data {
            let reject = |w: &mut World,
                          e: ErrorCode,
                          detail: String,
                          done: &mut Vec<ProducePartitionResponse>|
             -> Step {
                w.k.record(
                    vec![bnode(b), from],
                    EventKind::ProduceRejected {
                        broker: b,
                        tp: tp.clone(),
                        error: e,
                        detail,
                    },
                )?;
                done.push(ProducePartitionResponse {
                    tp: tp.clone(),
                    error: Some(e),
                    base_offset: -1,
                    log_start_offset: -1,
                });
                Ok(())
            };
            let Some(p) = self
                .br(b)
                .partitions
                .get(&tp)
                .filter(|p| p.is_leader)
                .cloned()
            else {
                reject(
                    self,
                    ErrorCode::NotLeaderOrFollower,
                    format!("broker {} does not lead {tp}", b.0),
                    &mut done,
                )?;
                continue;
            };
            let log = &self.br(b).logs[&tp];
            let min_isr = log.config.min_insync_replicas;
            if acks == -1 && (p.isr.len() as i32) < min_isr {
                reject(
                    self,
                    ErrorCode::NotEnoughReplicas,
                    format!(
                        "the ISR {} is smaller than min.insync.replicas={min_isr}",
                        crate::event::ids_list(&p.isr)
                    ),
                    &mut done,
                )?;
                continue;
            }
            if log.config.cleanup_policy.compact
                && crate::storage::record::split_batches(&bytes.0).is_ok()
            {
                let missing_key = crate::producer_state::has_record_without_key(&bytes.0);
                if missing_key {
                    reject(
                        self,
                        ErrorCode::InvalidRecord,
                        "Compacted topic cannot accept message without key".into(),
                        &mut done,
                    )?;
                    continue;
                }
            }
            // Idempotence: duplicates are acknowledged with their first offsets.
            match self
                .br(b)
                .producer_states
                .get(&tp)
                .map(|s| s.check(&bytes.0))
                .unwrap_or(Ok(None))
            {
                Err((e, detail)) => {
                    reject(self, e, detail, &mut done)?;
                    continue;
                }
                Ok(Some((dup_base, dup_last))) => {
                    // Acknowledged again with the original offsets, not appended
                    // twice; with acks=all it still waits until those are
                    // committed (Kafka puts it in purgatory like any append).
                    self.k.record(
                        vec![bnode(b), from],
                        EventKind::DuplicateAcknowledged {
                            broker: b,
                            tp: tp.clone(),
                            base_offset: dup_base,
                        },
                    )?;
                    waiting.push(DelayedProducePart {
                        tp: tp.clone(),
                        base_offset: dup_base,
                        required_offset: dup_last + 1,
                        result: None,
                    });
                    continue;
                }
                Ok(None) => {}
            }
            let wall = self.wall_ms();
            let prepared = match log.prepare_leader_append(bytes.0.to_vec(), p.leader_epoch, wall) {
                Ok(x) => x,
                Err(e) => {
                    let code = match e {
                        AppendError::RecordTooLarge { .. } => ErrorCode::RecordListTooLarge,
                        _ => ErrorCode::CorruptMessage,
                    };
                    reject(self, code, e.to_string(), &mut done)?;
                    continue;
                }
            };
            let base = prepared.first_offset;
            let required = prepared.last_offset + 1;
            self.append_prepared(b, &tp, prepared, true)?;
            self.check_leaders(&tp)?;
            self.complete_delayed_fetches(b, &tp)?;
            self.maybe_increment_hw(b, &tp)?;
            waiting.push(DelayedProducePart {
                tp: tp.clone(),
                base_offset: base,
                required_offset: required,
                result: None,
            });
        }
        if acks == 0 {
            return Ok(());
        }
        if acks == 1 {
            for w in waiting {
                self.k.record(
                    vec![bnode(b), from],
                    EventKind::ProduceCompleted {
                        broker: b,
                        tp: w.tp.clone(),
                        base_offset: w.base_offset,
                        acks,
                        waited_for_isr: false,
                    },
                )?;
                done.push(ProducePartitionResponse {
                    tp: w.tp,
                    error: None,
                    base_offset: w.base_offset,
                    log_start_offset: 0,
                });
            }
            return self
                .k
                .send(
                    bnode(b),
                    from,
                    Message::ProduceResponse {
                        correlation_id,
                        responses: done,
                    },
                )
                .map(|_| ());
        }
        let d = DelayedProduce {
            from,
            correlation_id,
            parts: waiting,
            done,
        };
        self.k.gate()?;
        let br = self.brm(b);
        br.next_delayed += 1;
        let id = br.next_delayed;
        br.delayed_produces.insert(id, d);
        for p in self.br(b).delayed_produces[&id].parts.clone() {
            let isr = self.br(b).partitions[&p.tp].maximal_isr();
            self.k.record(
                vec![bnode(b)],
                EventKind::ProduceParked {
                    broker: b,
                    tp: p.tp.clone(),
                    required_offset: p.required_offset,
                    isr,
                },
            )?;
        }
        self.k.set_timer(
            bnode(b),
            self.k.now + timeout_ms,
            Timer::DelayedProduceExpiry { id },
        )?;
        self.try_complete_produce(b, id)
    }

    /// `checkEnoughReplicasReachOffset` for each waiting partition.
    pub(crate) fn try_complete_produce(&mut self, b: BrokerId, id: u64) -> Step {
        let Some(d) = self.br(b).delayed_produces.get(&id).cloned() else {
            return Ok(());
        };
        let mut d2 = d.clone();
        for part in d2.parts.iter_mut().filter(|p| p.result.is_none()) {
            let br = self.br(b);
            match br.partitions.get(&part.tp).filter(|p| p.is_leader) {
                None => part.result = Some(Some(ErrorCode::NotLeaderOrFollower)),
                Some(p) if p.high_watermark >= part.required_offset => {
                    let min_isr = br.logs[&part.tp].config.min_insync_replicas;
                    part.result = Some(if (p.maximal_isr().len() as i32) < min_isr {
                        Some(ErrorCode::NotEnoughReplicasAfterAppend)
                    } else {
                        None
                    });
                }
                Some(_) => {}
            }
        }
        if d2.parts.iter().any(|p| p.result.is_none()) {
            if d2 != d {
                self.k.gate()?;
                self.brm(b).delayed_produces.insert(id, d2);
            }
            return Ok(());
        }
        self.k.gate()?;
        self.brm(b).delayed_produces.remove(&id);
        let mut responses = d2.done.clone();
        for p in &d2.parts {
            let err = p.result.expect("all done");
            if err.is_none() {
                self.k.record(
                    vec![bnode(b), d2.from],
                    EventKind::ProduceCompleted {
                        broker: b,
                        tp: p.tp.clone(),
                        base_offset: p.base_offset,
                        acks: -1,
                        waited_for_isr: true,
                    },
                )?;
            }
            responses.push(ProducePartitionResponse {
                tp: p.tp.clone(),
                error: err,
                base_offset: if err.is_none() { p.base_offset } else { -1 },
                log_start_offset: 0,
            });
        }
        self.answer_delayed_produce(b, id, &d2, responses)
    }

    /// A delayed produce is over (complete or expired): answer the client, or,
    /// for the group coordinator's own write to __consumer_offsets, carry on
    /// with what was waiting for it.
    fn answer_delayed_produce(
        &mut self,
        b: BrokerId,
        id: u64,
        d: &DelayedProduce,
        responses: Vec<ProducePartitionResponse>,
    ) -> Step {
        if d.from == bnode(b) {
            let err = responses.iter().find_map(|r| r.error);
            return self.coordinator_write_finished(b, id, err);
        }
        self.k
            .send(
                bnode(b),
                d.from,
                Message::ProduceResponse {
                    correlation_id: d.correlation_id,
                    responses,
                },
            )
            .map(|_| ())
    }

    /// Parks an append the broker made itself (the group coordinator's
    /// acks=all write) until the ISR has it; returns the delayed-produce id.
    pub(crate) fn park_internal_produce(
        &mut self,
        b: BrokerId,
        tp: &TopicPartition,
        required_offset: i64,
        timeout_ms: u64,
    ) -> Step<u64> {
        self.k.gate()?;
        let br = self.brm(b);
        br.next_delayed += 1;
        let id = br.next_delayed;
        br.delayed_produces.insert(
            id,
            DelayedProduce {
                from: bnode(b),
                correlation_id: -1,
                parts: vec![DelayedProducePart {
                    tp: tp.clone(),
                    base_offset: required_offset - 1,
                    required_offset,
                    result: None,
                }],
                done: Vec::new(),
            },
        );
        self.k.set_timer(
            bnode(b),
            self.k.now + timeout_ms,
            Timer::DelayedProduceExpiry { id },
        )?;
        Ok(id)
    }

    fn complete_delayed_produces(&mut self, b: BrokerId, tp: &TopicPartition) -> Step {
        let ids: Vec<u64> = self
            .br(b)
            .delayed_produces
            .iter()
            .filter(|(_, d)| d.parts.iter().any(|p| &p.tp == tp))
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            self.try_complete_produce(b, id)?;
        }
        Ok(())
    }

    /// Leadership moved: waiting produces on `tp` fail (or are re-checked).
    fn fail_delayed_produces(
        &mut self,
        b: BrokerId,
        tp: &TopicPartition,
        _err: Option<ErrorCode>,
    ) -> Step {
        self.complete_delayed_produces(b, tp)
    }

    fn broker_expire_produce(&mut self, b: BrokerId, id: u64) -> Step {
        let Some(d) = self.br(b).delayed_produces.get(&id).cloned() else {
            return Ok(());
        };
        self.k.gate()?;
        self.brm(b).delayed_produces.remove(&id);
        let mut responses = d.done.clone();
        for p in &d.parts {
            let err = p.result.unwrap_or(Some(ErrorCode::RequestTimedOut));
            if p.result.is_none() {
                self.k.record(
                    vec![bnode(b)],
                    EventKind::ProduceTimedOut {
                        broker: b,
                        tp: p.tp.clone(),
                        required_offset: p.required_offset,
                    },
                )?;
            }
            responses.push(ProducePartitionResponse {
                tp: p.tp.clone(),
                error: err,
                base_offset: -1,
                log_start_offset: 0,
            });
        }
        self.answer_delayed_produce(b, id, &d, responses)
    }

    fn broker_checkpoint_hw(&mut self, b: BrokerId) -> Step {
        let hws: SortedMap<TopicPartition, i64> = SortedMap::from_iter(
            self.br(b)
                .partitions
                .iter()
                .map(|(tp, p)| (tp.clone(), p.high_watermark)),
        );
        if hws.is_empty()
            || hws
                .iter()
                .all(|(tp, hw)| self.br(b).hw_checkpoint.get(tp) == Some(hw))
        {
            return Ok(());
        }
        self.k.gate()?;
        let n = hws.len() as u32;
        self.brm(b).hw_checkpoint.extend(hws);
        self.k.emit(
            vec![bnode(b)],
            EventKind::HighWatermarkCheckpointed {
                broker: b,
                partitions: n,
            },
        );
        Ok(())
    }

    /// The log retention task (`LogManager.cleanupLogs`): three passes per log.
    fn broker_retention(&mut self, b: BrokerId) -> Step {
        let tps: Vec<TopicPartition> = self.br(b).logs.keys().cloned().collect();
        let wall = self.wall_ms();
        for tp in tps {
            let hw = self
                .br(b)
                .partitions
                .get(&tp)
                .map(|p| p.high_watermark)
                .unwrap_or_else(|| self.br(b).hw_checkpoint.get(&tp).copied().unwrap_or(0));
            let delete = self.br(b).logs[&tp].config.cleanup_policy.delete;
            for pass in [
                crate::storage::log::RetentionPass::LogStartOffset,
                crate::storage::log::RetentionPass::RetentionBytes,
                crate::storage::log::RetentionPass::RetentionMs,
            ] {
                if !delete && pass != crate::storage::log::RetentionPass::LogStartOffset {
                    continue;
                }
                let Some(plan) = self.br(b).logs[&tp].plan_retention(pass, wall, hw) else {
                    continue;
                };
                self.k.gate()?;
                let now = self.k.now;
                let br = self.brm(b);
                let log = br.logs.get_mut(&tp).expect("exists");
                let applied = log
                    .apply_retention(&mut br.disk, &plan, wall, now)
                    .expect("retention");
                self.k.emit(
                    vec![bnode(b)],
                    EventKind::SegmentsDeleted {
                        broker: b,
                        tp: tp.clone(),
                        applied,
                    },
                );
            }
            let due = self.br(b).logs[&tp]
                .pending_deletes
                .iter()
                .any(|p| p.delete_at_ms <= self.k.now);
            if due {
                self.k.gate()?;
                let now = self.k.now;
                let br = self.brm(b);
                let log = br.logs.get_mut(&tp).expect("exists");
                let files = log.delete_expired_files(&mut br.disk, now);
                self.k
                    .emit(vec![bnode(b)], EventKind::FilesDeleted { broker: b, files });
            }
        }
        Ok(())
    }

    /// The log cleaner thread: compact the dirtiest eligible log.
    fn broker_clean(&mut self, b: BrokerId) -> Step {
        let wall = self.wall_ms();
        let mut best: Option<(u32, TopicPartition, crate::storage::cleaner::Cleanable)> = None;
        for (tp, log) in &self.br(b).logs {
            if !log.config.cleanup_policy.compact {
                continue;
            }
            let hw = self
                .br(b)
                .partitions
                .get(tp)
                .map(|p| p.high_watermark)
                .unwrap_or(0);
            let c = crate::storage::cleaner::cleanable(log, hw, wall);
            if c.eligible && best.as_ref().is_none_or(|(r, _, _)| c.dirty_ratio.0 > *r) {
                best = Some((c.dirty_ratio.0, tp.clone(), c));
            }
        }
        let Some((_, tp, plan)) = best else {
            return Ok(());
        };
        self.k.gate()?;
        let br = self.brm(b);
        let log = br.logs.get_mut(&tp).expect("exists");
        let result =
            crate::storage::cleaner::clean(log, &mut br.disk, plan, wall).expect("cleaning");
        self.k.emit(
            vec![bnode(b)],
            EventKind::LogCleaned {
                broker: b,
                tp,
                result,
            },
        );
        Ok(())
    }

    fn broker_on_metadata(
        &mut self,
        b: BrokerId,
        from: NodeId,
        correlation_id: i32,
        topics: Option<Vec<String>>,
    ) -> Step {
        let md = &self.br(b).metadata;
        let mut partitions = Vec::new();
        let mut unknown = Vec::new();
        let wanted: Option<SortedSet<&String>> = topics.as_ref().map(|t| t.iter().collect());
        for (tp, s) in &md.partitions {
            if wanted
                .as_ref()
                .is_some_and(|w| !w.contains(&tp.topic.to_string()))
            {
                continue;
            }
            let leader_alive = md.live_brokers.contains(&BrokerId(s.leader));
            partitions.push(PartitionMetadata {
                tp: tp.clone(),
                error: if leader_alive {
                    None
                } else {
                    Some(ErrorCode::LeaderNotAvailable)
                },
                leader: if leader_alive { s.leader } else { -1 },
                leader_epoch: s.leader_epoch,
                replicas: s.replicas.clone(),
                isr: s.isr.clone(),
            });
        }
        if let Some(ts) = &topics {
            for t in ts {
                if !partitions.iter().any(|p| &*p.tp.topic == t) {
                    unknown.push(t.clone());
                }
            }
        }
        let brokers = md.live_brokers.clone();
        let controller_id = md.controller_id;
        self.k
            .send(
                bnode(b),
                from,
                Message::MetadataResponse {
                    correlation_id,
                    brokers,
                    controller_id,
                    partitions,
                    unknown_topics: unknown,
                },
            )
            .map(|_| ())
    }

    fn broker_on_list_offsets(
        &mut self,
        b: BrokerId,
        from: NodeId,
        correlation_id: i32,
        parts: Vec<(TopicPartition, i64)>,
    ) -> Step {
        let br = self.br(b);
        let mut out = Vec::new();
        for (tp, ts) in parts {
            match br.partitions.get(&tp).filter(|p| p.is_leader) {
                None => out.push((tp, Some(ErrorCode::NotLeaderOrFollower), -1)),
                Some(p) => {
                    let log = &br.logs[&tp];
                    let off = match ts {
                        -2 => log.log_start_offset,
                        -1 => p.high_watermark,
                        t => log
                            .lookup_timestamp(&br.disk, t)
                            .result
                            .map(|r| r.0)
                            .unwrap_or(p.high_watermark),
                    };
                    out.push((tp, None, off));
                }
            }
        }
        self.k
            .send(
                bnode(b),
                from,
                Message::ListOffsetsResponse {
                    correlation_id,
                    partitions: out,
                },
            )
            .map(|_| ())
    }

    /// InitProducerId: hand out the next id of this broker's block, claiming a
    /// new block of 1000 from `/latest_producer_id_block` when needed.
    fn broker_on_init_producer_id(
        &mut self,
        b: BrokerId,
        from: NodeId,
        correlation_id: i32,
    ) -> Step {
        let needs_block = self
            .br(b)
            .producer_id_block
            .is_none_or(|(next, end)| next > end);
        if needs_block {
            let path = "/latest_producer_id_block";
            let last_end = self
                .zk
                .data_json(path)
                .and_then(|v| {
                    v.get("block_end")
                        .and_then(|x| x.as_str().and_then(|s| s.parse::<i64>().ok()))
                })
                .unwrap_or(-1);
            let (start, end) = (last_end + 1, last_end + 1000);
            let data = format!(
                "{{\"version\":1,\"broker\":{},\"block_start\":\"{start}\",\"block_end\":\"{end}\"}}",
                b.0
            );
            self.zk_set(bnode(b), path, data)?;
            self.k.gate()?;
            self.brm(b).producer_id_block = Some((start, end));
        }
        self.k.gate()?;
        let block = self
            .brm(b)
            .producer_id_block
            .as_mut()
            .expect("claimed above");
        let pid = block.0;
        block.0 += 1;
        self.k
            .send(
                bnode(b),
                from,
                Message::InitProducerIdResponse {
                    correlation_id,
                    error: None,
                    producer_id: pid,
                    producer_epoch: 0,
                },
            )
            .map(|_| ())
    }

    /// Carries out a traced lookup on broker `b`'s copy of `tp`.
    pub(crate) fn broker_lookup(
        &mut self,
        b: BrokerId,
        tp: &TopicPartition,
        offset: Option<i64>,
        timestamp: Option<i64>,
    ) -> Step {
        let br = self.br(b);
        let Some(log) = br.logs.get(tp) else {
            return self
                .k
                .record(
                    vec![bnode(b)],
                    EventKind::CommandRejected {
                        index: 0,
                        reason: format!("broker {} has no replica of {tp}", b.0),
                    },
                )
                .map(|_| ());
        };
        let (lookup, target) = match (offset, timestamp) {
            (Some(o), _) => (log.lookup_offset(&br.disk, o), format!("offset {o}")),
            (_, Some(t)) => (log.lookup_timestamp(&br.disk, t), format!("timestamp {t}")),
            _ => return Ok(()),
        };
        for step in lookup.steps {
            self.k.record(
                vec![bnode(b)],
                EventKind::LookupStepped {
                    broker: b,
                    tp: tp.clone(),
                    target: target.clone(),
                    step,
                },
            )?;
        }
        Ok(())
    }
}

impl PartitionState {
    pub fn leader_id(&self) -> Option<BrokerId> {
        (self.leader >= 0).then_some(BrokerId(self.leader))
    }
}
