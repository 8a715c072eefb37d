//! A broker: its disk, its replicas, and the replication protocol (R1–R7).
//!
//! * **Leader side** (`Partition` + `ReplicaManager`): appends produce
//!   requests; answers fetches (followers up to the log end offset, consumers
//!   up to the high watermark), holding an empty fetch up to `max.wait.ms`
//!   (long polling); records each follower's fetch offset as its LEO and moves
//!   the high watermark to the smallest LEO of the (maximal) ISR — but not
//!   while the ISR is smaller than `min.insync.replicas` (Kafka ≥ 3.7,
//!   KAFKA-15583), counted as at most the number of replicas
//!   (`Partition.effectiveMinIsr`, used by `maybeIncrementLeaderHW`,
//!   `appendRecordsToLeader` and `checkEnoughReplicasReachOffset`); shrinks the ISR of followers that have not caught up for
//!   `replica.lag.time.max.ms` and expands it when a follower reaches the high
//!   watermark, both through the controller (`AlterPartition`).
//! * **Follower side** (`ReplicaFetcherThread`): one fetcher per leader broker
//!   sends `Fetch` in a loop, appends what comes back and takes the leader's
//!   high watermark (so it learns the new HW one fetch later).
//! * **Truncation** after a leader change or a restart uses leader epochs
//!   (KIP-101; since 2.7 the follower sends its last fetched epoch in each
//!   `Fetch` and the leader answers with the diverging epoch's end). A
//!   scenario can set `cluster.follower_truncation: "high_watermark"` to
//!   replay Kafka before 0.11, where the follower cut its log to its high
//!   watermark (the source notes' rule). That is a knob of the simulation:
//!   Kafka 3.9 refuses `inter.broker.protocol.version` below 0.11.0, the
//!   versions that behaved so (see `config::validate`).
//! * **acks**: `acks=all` waits (in "purgatory") until the high watermark
//!   passes the batch; `NOT_ENOUGH_REPLICAS` when the ISR is below
//!   `min.insync.replicas` before appending.
//!
//! The log (segments, indexes) is on the broker's paged disk and survives a
//! restart, as does `replication-offset-checkpoint` (the HW, written every
//! `replica.high.watermark.checkpoint.interval.ms`). Everything else is memory.
//!
//! Layout, after Kafka's classes: this file is the broker process
//! (`KafkaServer`: start, registration, crash, connections) and its state;
//! `apis.rs` is `KafkaApis` (dispatch and the small requests);
//! `replica_manager.rs` is `ReplicaManager` (LeaderAndIsr, StopReplica,
//! appends); `purgatory.rs` holds `DelayedFetch`/`DelayedProduce` and the
//! fetch path; `isr.rs` is `Partition`'s HW and ISR work; `fetcher.rs` is
//! the `ReplicaFetcherThread`; `log_manager.rs` is `LogManager`.

use crate::collections::{HintedMap, SortedMap, SortedSet};
use crate::config::LogConfig;
use crate::controller::ControllerContext;
use crate::event::EventId;
use crate::event::{EventKind, TruncateReason};
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::kernel::{Kernel, Step, Timer};
use crate::msg::FetchRequest;
use crate::msg::{
    Bytes, DivergingEpoch, ErrorCode, FetchPartition, FetchPartitionResponse, Message,
    PartitionMetadata, PartitionState, PartitionTable, ProducePartitionResponse,
};
use crate::storage::log::{AppendError, Log};
use crate::storage::paged::MemStorage;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

mod apis;
pub(crate) mod audit;
mod fetcher;
mod isr;
pub mod lifecycle;
mod log_manager;
mod metadata_publisher;
mod purgatory;
mod replica_manager;
mod shutdown;
mod verification;

/// What the leader knows of one follower (`Replica` / `ReplicaState`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteReplica {
    /// The follower's log end offset, as its last fetch offset told us (-1 unknown).
    pub leo: i64,
    /// When the follower last reached the leader's log end offset (`lastCaughtUpTimeMs`).
    pub last_caught_up_ms: u64,
    /// When its last fetch arrived.
    pub last_fetch_ms: u64,
    /// The leader's log end offset at that fetch.
    pub last_fetch_leader_leo: i64,
    /// The follower's log start offset, as its last fetch told us.
    pub log_start_offset: i64,
}

/// One replica's in-memory state on this broker (`kafka.cluster.Partition`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Partition {
    /// The partition.
    pub tp: TopicPartition,
    /// Assigned replicas (AR), preferred leader first.
    pub replicas: Vec<BrokerId>,
    /// Replicas a reassignment is adding (empty when none is under way).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub adding_replicas: Vec<BrokerId>,
    /// The in-sync replicas.
    pub isr: Vec<BrokerId>,
    /// The leader (-1: none).
    pub leader: i32,
    /// The leader epoch.
    pub leader_epoch: i32,
    /// The partition epoch (the version of its state znode).
    pub partition_epoch: i32,
    /// The high watermark.
    pub high_watermark: i64,
    /// Whether this broker leads it.
    pub is_leader: bool,
    /// Leader only: the followers as the leader sees them.
    pub remote: SortedMap<BrokerId, RemoteReplica>,
    /// An ISR change sent to the controller and not yet answered.
    pub pending_isr: Option<Vec<BrokerId>>,
    /// Leader only: the log end offset when this leader epoch began.
    pub leader_epoch_start_offset: i64,
}

impl Partition {
    /// `Partition.isUnderReplicated` (Kafka 3.9 line 367): the leader holds
    /// fewer in-sync replicas than the replication factor, which during a
    /// reassignment is the original count, the replicas being added left
    /// out (`OngoingReassignmentState`, lines 171-177). The committed ISR
    /// is compared, and added replicas that joined it count.
    pub fn is_under_replicated(&self) -> bool {
        let replication_factor = self
            .replicas
            .iter()
            .filter(|r| !self.adding_replicas.contains(r))
            .count();
        self.is_leader && replication_factor > self.isr.len()
    }

    /// KIP-497's "maximal" ISR: the committed ISR plus a pending change's members.
    pub fn maximal_isr(&self) -> Vec<BrokerId> {
        let mut m: SortedSet<BrokerId> = SortedSet::from_iter(self.isr.iter().copied());
        if let Some(p) = &self.pending_isr {
            m.extend(p.iter().copied());
        }
        m.into_iter().collect()
    }

    /// `Partition.effectiveMinIsr` (Kafka ≥ 3.7, `kafka.cluster.Partition`):
    /// the topic's `min.insync.replicas`, but never more than the replicas
    /// the leader has (itself and its followers). Used for the
    /// high-watermark hold, `NOT_ENOUGH_REPLICAS` and
    /// `NOT_ENOUGH_REPLICAS_AFTER_APPEND`.
    pub fn effective_min_isr(&self, configured: i32) -> i32 {
        configured.min(self.remote.len() as i32 + 1)
    }
}

/// One partition a follower fetches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchState {
    /// The leader epoch the follower fetches in.
    pub leader_epoch: i32,
    /// Checked against the leader once in this leader epoch (replicas_consistent).
    pub verified: bool,
    /// Waiting out `replica.fetch.backoff.ms` after an error, until this time.
    pub delayed_until: u64,
}

/// A follower's fetcher for one leader broker (`ReplicaFetcherThread`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fetcher {
    /// The partitions fetched from this leader.
    pub partitions: SortedMap<TopicPartition, FetchState>,
    /// The correlation id of the fetch in flight, if any.
    pub in_flight: Option<i32>,
}

/// A fetch held until data arrives or `max.wait.ms` passes (`DelayedFetch`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DelayedFetch {
    /// Who fetched.
    pub from: NodeId,
    /// The request's correlation id.
    pub correlation_id: i32,
    /// The fetching follower's id (-1: a consumer).
    pub replica_id: i32,
    /// The partitions asked for.
    pub partitions: Vec<FetchPartition>,
    /// `fetch.min.bytes` (or `replica.fetch.min.bytes`).
    pub min_bytes: u64,
    /// `fetch.max.bytes` (or `replica.fetch.max.bytes`).
    pub max_bytes: u64,
    /// A consumer's `client.rack` (empty: none).
    pub rack_id: String,
    /// A consumer's `isolation.level`.
    pub isolation_level: crate::client_config::IsolationLevel,
}

/// One partition of an `acks=all` produce waiting for the ISR (`DelayedProduce`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DelayedProducePart {
    /// The partition.
    pub tp: TopicPartition,
    /// The offset the batch was written at.
    pub base_offset: i64,
    /// The offset every ISR member must reach (the batch's last offset + 1).
    pub required_offset: i64,
    /// The answer once decided (`Some(None)`: success).
    pub result: Option<Option<ErrorCode>>,
}

/// An `acks=all` produce waiting for the ISR (`DelayedProduce`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DelayedProduce {
    /// Who produced.
    pub from: NodeId,
    /// The request's correlation id.
    pub correlation_id: i32,
    /// Its partitions still waiting.
    pub parts: Vec<DelayedProducePart>,
    /// Partitions answered at once (errors), sent with the rest.
    pub done: Vec<ProducePartitionResponse>,
}

/// A produce held while its transactional partitions are verified with the
/// transaction coordinator (KIP-890 part 1; the callback
/// `ReplicaManager.handleProduceAppend` hands to
/// `AddPartitionsToTxnManager.verifyTransaction`).
#[derive(Clone, Debug, PartialEq)]
pub struct PendingVerification {
    /// Who produced.
    pub from: NodeId,
    /// The produce's correlation id.
    pub correlation_id: i32,
    /// Its `acks`.
    pub acks: i16,
    /// Its timeout.
    pub timeout_ms: u64,
    /// Its batches, appended once the answer comes.
    pub topic_data: Vec<(TopicPartition, crate::msg::Bytes)>,
    /// The guard each verified partition's append must present.
    pub guards: SortedMap<TopicPartition, u64>,
}

/// What a broker serves to clients (`MetadataCache`), from UpdateMetadata.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetadataCache {
    /// The controller's id (-1: unknown).
    pub controller_id: i32,
    /// The live brokers.
    pub live_brokers: Vec<BrokerId>,
    /// Each partition's leader, ISR and replicas. Shared copy-on-write: a
    /// broker is copied whenever it changes after a checkpoint, and this is
    /// its largest part (every partition of the cluster) while it changes
    /// only at UpdateMetadata.
    pub partitions: Arc<SortedMap<TopicPartition, PartitionState>>,
    /// What a Metadata request for every topic is answered with, built at
    /// each UpdateMetadata ([`MetadataCache::build_client_view`]) and shared
    /// by the responses.
    #[serde(skip)]
    pub client_view: PartitionTable,
}

impl MetadataCache {
    /// Applies an UpdateMetadata: its live brokers, and its partition
    /// states over those known. Shares the cache `share` holds when that
    /// came from the same request body applied to the same cache, and
    /// leaves its own there for the next broker (see [`MetadataShare`]).
    pub(crate) fn update(
        &mut self,
        live: Vec<BrokerId>,
        states: Arc<[PartitionState]>,
        share: &mut Option<MetadataShare>,
    ) {
        self.live_brokers = live;
        if let Some(s) = share
            .as_ref()
            .filter(|s| share_metadata() && s.applies(&self.partitions, &states))
        {
            self.partitions = s.after.clone();
            self.client_view = s.client_view.clone();
            return;
        }
        let before = self.partitions.clone();
        let cache = Arc::make_mut(&mut self.partitions);
        for p in states.iter() {
            cache.insert(p.tp.clone(), p.clone());
        }
        self.client_view = self.build_client_view(None);
        *share = Some(MetadataShare {
            before,
            states,
            after: self.partitions.clone(),
            client_view: self.client_view.clone(),
        });
    }

    /// The MetadataResponse partitions for `topics` (all when `None`): a
    /// partition whose leader is not a live broker answers
    /// LEADER_NOT_AVAILABLE with leader -1.
    pub fn build_client_view(&self, topics: Option<&[String]>) -> PartitionTable {
        let wanted: Option<SortedSet<&str>> =
            topics.map(|t| t.iter().map(String::as_str).collect());
        let partitions = self
            .partitions
            .iter()
            .filter(|(tp, _)| wanted.as_ref().is_none_or(|w| w.contains(&*tp.topic)))
            .map(|(tp, s)| {
                let leader_alive = self.live_brokers.contains(&BrokerId(s.leader));
                PartitionMetadata {
                    tp: tp.clone(),
                    error: (!leader_alive).then_some(ErrorCode::LeaderNotAvailable),
                    leader: if leader_alive { s.leader } else { -1 },
                    leader_epoch: s.leader_epoch,
                    replicas: s.replicas.clone(),
                    isr: s.isr.clone(),
                }
            })
            .collect();
        PartitionTable::new(partitions)
    }
}

/// The metadata cache the last UpdateMetadata a broker applied left it
/// with, and what it was applied to. The controller sends one body to every
/// broker, so brokers that had the same cache before (the same allocation,
/// or none) end with the same one: the first to apply it builds it and the
/// others share it (`MetadataCache::partitions` and `client_view`). At 100
/// brokers and 10,000 partitions that was 100 copies of every broadcast, each
/// built partition by partition. Nothing a learner or the trace sees
/// changes: the cache holds what applying the request would give.
#[derive(Clone)]
pub(crate) struct MetadataShare {
    pub(crate) before: Arc<SortedMap<TopicPartition, PartitionState>>,
    pub(crate) states: Arc<[PartitionState]>,
    pub(crate) after: Arc<SortedMap<TopicPartition, PartitionState>>,
    pub(crate) client_view: PartitionTable,
}

impl MetadataShare {
    /// Whether applying `states` to `cache` gives `after`: the same request
    /// body (one allocation, kept alive here, so the address names it; one
    /// broadcast's, so with the same live brokers) on the same cache (or
    /// two empty ones).
    pub(crate) fn applies(
        &self,
        cache: &Arc<SortedMap<TopicPartition, PartitionState>>,
        states: &Arc<[PartitionState]>,
    ) -> bool {
        Arc::ptr_eq(&self.states, states)
            && (Arc::ptr_eq(&self.before, cache) || (self.before.is_empty() && cache.is_empty()))
    }
}

#[cfg(test)]
thread_local! {
    /// Set by a test to build every broker's cache itself, as before sharing.
    pub(crate) static NO_METADATA_SHARE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether brokers share what an UpdateMetadata broadcast builds (always,
/// but in the test that compares it with building each).
pub(crate) fn share_metadata() -> bool {
    #[cfg(test)]
    return !NO_METADATA_SHARE.with(|c| c.get());
    #[cfg(not(test))]
    true
}

/// A broker.
#[derive(Clone)]
pub struct Broker {
    /// Its id (`broker.id`).
    pub id: BrokerId,
    /// Whether its process runs.
    pub alive: bool,
    /// Bumped on every start; stale timers and connections are dropped.
    pub incarnation: u32,
    /// Whether it has registered in `/brokers/ids`.
    pub registered: bool,
    /// Whether the `highwatermark-checkpoint` task runs in this process: it
    /// starts after the first LeaderAndIsr (`hwThreadInitialized`).
    pub hw_checkpoint_started: bool,
    /// Whether it is in a controlled shutdown.
    pub shutting_down: bool,
    /// ControlledShutdown requests sent in this shutdown
    /// (`KafkaServer.controlledShutdown` tries `controlled.shutdown.max.retries` times).
    pub shutdown_attempts: u32,
    /// The broker's disk (survives restarts).
    pub disk: MemStorage,
    /// Partition logs on disk (survive restarts).
    pub logs: HintedMap<TopicPartition, Log>,
    /// `replication-offset-checkpoint` (survives restarts).
    pub hw_checkpoint: SortedMap<TopicPartition, i64>,
    /// The partitions it holds a replica of, in memory.
    pub partitions: HintedMap<TopicPartition, Partition>,
    /// What it serves to clients (`MetadataCache`).
    pub metadata: MetadataCache,
    /// The controller's state, while it is the controller.
    pub controller: Option<ControllerContext>,
    /// The newest controller epoch it has seen (older requests are refused).
    pub known_controller_epoch: i32,
    /// Its fetchers, one per leader broker.
    pub fetchers: SortedMap<BrokerId, Fetcher>,
    /// Fetches parked in the purgatory, by id.
    /// A parked fetch never changes, so it is shared with the broker's
    /// clones (a broker leading partitions that 1,600 consumers read holds
    /// hundreds of them).
    pub delayed_fetches: SortedMap<u64, Arc<DelayedFetch>>,
    /// Produces parked in the purgatory, by id.
    pub delayed_produces: SortedMap<u64, DelayedProduce>,
    /// The id of the next parked request.
    pub next_delayed: u64,
    /// The correlation id of its next request.
    pub next_correlation: i32,
    /// KIP-890 part 1: produces held for verification, by the correlation
    /// id of their AddPartitionsToTxn (`AddPartitionsToTxnManager`).
    pub verifications: SortedMap<i32, PendingVerification>,
    /// The last verification guard handed out (`VerificationGuard`'s
    /// counter; 0 is the `SENTINEL`).
    pub last_guard: u64,
    /// Idempotent producer state per partition (see `producer_state.rs`).
    pub producer_states: SortedMap<TopicPartition, crate::producer_state::ProducerStates>,
    /// The block of producer ids this broker hands out: (next, last).
    pub producer_id_block: Option<(i64, i64)>,
    /// The groups it coordinates (`GroupCoordinator`).
    pub groups: crate::group::Groups,
    /// The transactional ids it coordinates (`TransactionCoordinator`).
    pub txns: crate::txn::Txns,
    /// Kafka 4.1 (KRaft): its Raft observer and lifecycle manager.
    pub kraft: Option<lifecycle::BrokerKraft>,
}

impl Broker {
    /// The last stable offset of this broker's replica of `tp`, given its
    /// high watermark and log start offset (the high watermark when no
    /// transaction was ever written here).
    pub fn last_stable_offset(
        &self,
        tp: &TopicPartition,
        high_watermark: i64,
        log_start_offset: i64,
    ) -> i64 {
        self.producer_states
            .get(tp)
            .map(|s| s.last_stable_offset(high_watermark, log_start_offset))
            .unwrap_or(high_watermark)
    }

    /// Broker `id`, not started, with an empty disk.
    pub fn new(id: BrokerId) -> Broker {
        Broker {
            id,
            alive: false,
            incarnation: 0,
            registered: false,
            hw_checkpoint_started: false,
            shutting_down: false,
            shutdown_attempts: 0,
            disk: MemStorage::default(),
            logs: HintedMap::default(),
            hw_checkpoint: SortedMap::new(),
            partitions: HintedMap::default(),
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
            verifications: SortedMap::new(),
            last_guard: 0,
            producer_states: SortedMap::new(),
            producer_id_block: None,
            groups: Default::default(),
            txns: Default::default(),
            kraft: None,
        }
    }

    /// The log end offset of `tp` here, if it has a log.
    pub fn log_end_offset(&self, tp: &TopicPartition) -> Option<i64> {
        self.logs.get(tp).map(|l| l.log_end_offset)
    }

    /// `tp`'s state here if this broker leads it.
    pub fn leader_of(&self, tp: &TopicPartition) -> Option<&Partition> {
        self.partitions.get(tp).filter(|p| p.is_leader)
    }
}

/// The rest of a LeaderAndIsr request being applied (see
/// [`Continuation`](crate::broker::Continuation)).
#[derive(Clone)]
pub(crate) struct LeaderAndIsrWork {
    b: BrokerId,
    controller_id: BrokerId,
    controller_epoch: i32,
    parts: std::collections::VecDeque<Arc<PartitionState>>,
    results: Vec<(TopicPartition, Option<ErrorCode>)>,
}

/// One broker while it handles one work item: the kernel, ZooKeeper
/// through the broker's ZooKeeper client, and this broker only. Every role a
/// broker plays (replica manager, fetcher, controller, group coordinator)
/// runs on this handle, so it reaches another broker or a client only by
/// sending it a message: the compiler enforces it.
///
/// ZooKeeper is reached as Kafka's `KafkaZkClient` reaches it, synchronously:
/// a handler reads znodes directly (`zk`) and changes them through
/// [`BrokerCx::zkc`], whose every write is an event.
///
/// `me` is the broker's `Arc` in the world, copied on the first change
/// (`Arc::make_mut`), so checkpoints keep sharing an unchanged broker.
pub(crate) struct BrokerCx<'a> {
    pub(crate) k: &'a mut Kernel,
    pub(crate) zk: &'a mut Arc<crate::zk::ZooKeeper>,
    pub(crate) id: BrokerId,
    /// This broker (read it with [`BrokerCx::me`], change it with
    /// [`BrokerCx::me_mut`]).
    pub(crate) me: &'a mut Arc<Broker>,
    /// The ledger and the other brokers, for the invariant checks only.
    pub(crate) audit: audit::BrokerAudit<'a>,
    /// Where [`BrokerCx::continue_with`] leaves the rest of a handler.
    pub(crate) next: &'a mut Option<(Continuation, Option<EventId>)>,
}

/// The rest of a broker's handler that goes on partition by partition (see
/// `sim/mod.rs`). The world runs it at the same simulated time, before any
/// queued work.
#[derive(Clone)]
pub(crate) enum Continuation {
    /// `becomeLeaderOrFollower`, partition by partition, then the response
    /// (`replica_manager.rs`).
    LeaderAndIsr(LeaderAndIsrWork),
    /// The controller's work list: a topic change partition by partition
    /// (`onNewPartitionCreation`), a broker change or controlled shutdown
    /// election by election, then the batch of requests (`controller/`).
    Controller(crate::controller::ControllerWork),
}

impl Continuation {
    /// A rough size of a clone, for `World::approx_clone_bytes`: a
    /// checkpoint taken while a handler goes on copies what it has left.
    pub(crate) fn approx_bytes(&self) -> u64 {
        match self {
            Continuation::LeaderAndIsr(k) => {
                // The states are shared with the request; the rest is copied.
                (k.parts.len() * 8 + k.results.len() * 32) as u64
            }
            Continuation::Controller(k) => k.approx_bytes(),
        }
    }
}

impl<'a> BrokerCx<'a> {
    /// This broker, read-only.
    pub(crate) fn me(&self) -> &Broker {
        self.me
    }

    /// This broker, to change: copied first if a checkpoint still shares it.
    pub(crate) fn me_mut(&mut self) -> &mut Broker {
        Arc::make_mut(self.me)
    }

    /// Leaves the rest of the current handler for the next step (gated: it
    /// records no event, like scheduling a timer).
    pub(crate) fn continue_with(&mut self, c: Continuation) -> Step {
        self.k.gate()?;
        debug_assert!(self.next.is_none(), "one handler at a time");
        *self.next = Some((c, self.k.cause));
        Ok(())
    }

    /// The broker's ZooKeeper client: every write is an event, and a write
    /// fires the watches set on its path.
    pub(crate) fn zkc(&mut self) -> crate::zk::ZkCx<'_> {
        crate::zk::ZkCx {
            k: self.k,
            zk: Arc::make_mut(self.zk),
        }
    }
}

impl LeaderAndIsrWork {
    /// The broker applying the request.
    pub(crate) fn broker(&self) -> BrokerId {
        self.b
    }
}

fn bnode(b: BrokerId) -> NodeId {
    NodeId::Broker(b)
}

impl BrokerCx<'_> {
    /// The log settings of a topic: its `/config/topics/<t>` overrides over the
    /// broker's `log.*` defaults.
    pub(crate) fn topic_log_config(&self, topic: &str) -> LogConfig {
        /// `/config/topics/<t>`: `{"version": 1, "config": {...}}`.
        #[derive(serde::Deserialize)]
        struct TopicConfigZnode {
            #[serde(default)]
            config: crate::config::TopicConfigOverrides,
        }
        let overrides = match self.me().kraft.as_ref() {
            // KRaft: the topic's ConfigRecords.
            Some(kr) => kr.image.topic_overrides(topic),
            None => self
                .zk
                .nodes
                .get(&format!("/config/topics/{topic}"))
                .and_then(|n| serde_json::from_str::<TopicConfigZnode>(&n.data).ok())
                .map(|z| z.config)
                .unwrap_or_default(),
        };
        let mut lc = self.k.sc.cluster.config.log_config(&overrides);
        if topic == crate::group::OFFSETS_TOPIC {
            lc.cleanup_policy = crate::config::CleanupPolicy::COMPACT;
            lc.segment_bytes = self.k.sc.cluster.config.offsets_topic_segment_bytes;
        }
        lc
    }

    pub(crate) fn broker_timer(&mut self, timer: Timer) -> Step {
        let b = self.id;
        if !self.me().alive && timer != Timer::BrokerStart {
            return Ok(());
        }
        let cfg = self.k.sc.cluster.config.clone();
        if self.me().kraft.is_some() {
            match &timer {
                Timer::QuorumTimer { .. }
                | Timer::QuorumFetchRetry
                | Timer::QuorumPeerClosed { .. }
                | Timer::BrokerLifecycleTick { .. } => return self.kraft_timer(timer),
                Timer::RequestTimeout { correlation_id }
                    if *correlation_id >= crate::kraft::raft::OBSERVER_CORRELATION_BASE
                        || self.me().kraft.as_ref().is_some_and(|k| {
                            k.in_flight == Some(*correlation_id)
                                || k.pid_request == Some(*correlation_id)
                                || k.creating.contains_key(correlation_id)
                        }) =>
                {
                    return self.kraft_timer(timer)
                }
                _ => {}
            }
        }
        match timer {
            Timer::BrokerStart => self.broker_start(),
            Timer::IsrExpiration => {
                self.broker_maybe_shrink_isr()?;
                self.k.set_timer(
                    bnode(b),
                    self.k.now + cfg.replica_lag_time_max_ms / 2,
                    Timer::IsrExpiration,
                )
            }
            Timer::HwCheckpoint => {
                self.broker_checkpoint_hw()?;
                self.k.set_timer(
                    bnode(b),
                    self.k.now + cfg.replica_high_watermark_checkpoint_interval_ms,
                    Timer::HwCheckpoint,
                )
            }
            Timer::OsFlush => {
                self.broker_os_flush()?;
                self.k.set_timer(
                    bnode(b),
                    self.k.now + self.k.sc.cluster.os_flush_interval_ms,
                    Timer::OsFlush,
                )
            }
            Timer::RetentionCheck => {
                self.broker_retention()?;
                self.k.set_timer(
                    bnode(b),
                    self.k.now + cfg.log_retention_check_interval_ms,
                    Timer::RetentionCheck,
                )
            }
            Timer::DeleteSegmentFiles { tp } => self.broker_delete_segment_files(&tp),
            Timer::CleanerCheck => {
                self.broker_clean()?;
                self.k.set_timer(
                    bnode(b),
                    self.k.now + cfg.log_cleaner_backoff_ms,
                    Timer::CleanerCheck,
                )
            }
            Timer::ControlledShutdownRetry => self.broker_send_controlled_shutdown(),
            Timer::AutoLeaderRebalance => {
                if self.is_controller() {
                    self.controller_auto_rebalance()?;
                }
                Ok(())
            }
            Timer::AlterPartitionTimeout {
                tp,
                partition_epoch,
            } => {
                let stale = self.me().partitions.get(&tp).is_some_and(|p| {
                    p.is_leader && p.pending_isr.is_some() && p.partition_epoch == partition_epoch
                });
                if stale {
                    self.k.gate()?;
                    self.me_mut()
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
            Timer::ConnectionClosed { peer } => self.broker_connection_closed(peer),
            Timer::DelayedFetchExpiry { id } => {
                if let Some(d) = self.me_mut().delayed_fetches.remove(&id) {
                    self.broker_answer_fetch(&d)?;
                }
                Ok(())
            }
            Timer::DelayedProduceExpiry { id } => self.broker_expire_produce(id),
            Timer::ReplicaFetchBackoff { leader } => self.fetcher_maybe_send(leader),
            Timer::RequestTimeout { correlation_id } => {
                let leader = self
                    .me()
                    .fetchers
                    .iter()
                    .find(|(_, f)| f.in_flight == Some(correlation_id))
                    .map(|(l, _)| *l);
                if let Some(l) = leader {
                    // A failed fetch delays the partitions by
                    // `replica.fetch.backoff.ms` before the next one
                    // (`AbstractFetcherThread.processFetchRequest` →
                    // `handlePartitionsWithErrors` → `delayPartitions`).
                    self.k.gate()?;
                    if let Some(f) = self.me_mut().fetchers.get_mut(&l) {
                        f.in_flight = None;
                    }
                    let at = self.k.now + self.k.sc.cluster.config.replica_fetch_backoff_ms;
                    self.k
                        .set_timer(bnode(b), at, Timer::ReplicaFetchBackoff { leader: l })?;
                }
                Ok(())
            }
            Timer::GroupJoinDeadline { group, generation } => {
                self.coordinator_join_deadline(&group, generation)
            }
            Timer::GroupMemberExpiry { group, member } => {
                self.coordinator_member_expiry(&group, &member)
            }
            Timer::GroupInitialDelay { group } => self.coordinator_initial_delay(&group),
            Timer::TxnAbortCheck => self.txn_abort_check(),
            Timer::TxnMarkerRetry { transactional_id } => self.txn_send_markers(&transactional_id),
            Timer::TxnVerificationTimeout { correlation_id } => {
                self.broker_on_verification_failed(correlation_id, ErrorCode::NetworkException)
            }
            Timer::TxnMarkerTimeout { correlation_id } => self.txn_on_markers_response(
                correlation_id,
                Vec::new(),
                Some(ErrorCode::RequestTimedOut),
            ),
            _ => Ok(()),
        }
    }

    /// Startup: recover logs from disk, open a ZooKeeper session, register
    /// `/brokers/ids/<id>`, run for controller, start periodic tasks.
    fn broker_start(&mut self) -> Step {
        let b = self.id;
        self.k.gate()?;
        let cfg = self.k.sc.cluster.config.clone();
        let inc = self.k.restart(bnode(b));
        let recovered = {
            let br = self.me_mut();
            br.alive = true;
            br.incarnation = inc;
            br.registered = false;
            br.shutting_down = false;
            br.shutdown_attempts = 0;
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
        self.broker_delete_stray_files()?;
        if self.me().kraft.is_some() {
            // Kafka 4.1: no ZooKeeper; it registers with the active controller.
            self.kraft_start()?;
        } else {
            let session = self.zkc().open_session(b)?;
            if !self.broker_register(session)? {
                return Ok(());
            }
        }
        let now = self.k.now;
        self.k.set_timer(
            bnode(b),
            now + cfg.replica_lag_time_max_ms / 2,
            Timer::IsrExpiration,
        )?;
        // `LogManager.startup`: the retention task first runs after
        // `log.initial.task.delay.ms`, then every interval.
        self.k.set_timer(
            bnode(b),
            now + cfg.log_initial_task_delay_ms,
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

    /// Creates `/brokers/ids/<id>` (`KafkaZkClient.registerBroker`, Kafka
    /// 3.9 lines 109-115). If the znode still belongs to another session (the
    /// previous process's, not yet expired), `checkedEphemeralCreate` throws
    /// NODEEXISTS (lines 2218-2236: a fresh client's session id matches no
    /// owner, so it does not re-create); `KafkaServer.startup` catches it,
    /// shuts down and the process exits (lines 675-681). `Ok(false)` then.
    fn broker_register(&mut self, session: u64) -> Step<bool> {
        let b = self.id;
        let path = format!("/brokers/ids/{}", b.0);
        // BrokerIdZNode v5's JSON; "rack" only when broker.rack is set.
        let rack = match self.k.sc.cluster.broker_rack.get(&b.0) {
            Some(r) => format!(",\"rack\":{}", serde_json::Value::from(r.as_str())),
            None => String::new(),
        };
        let data = format!(
            "{{\"features\":{{}},\"listener_security_protocol_map\":{{\"PLAINTEXT\":\"PLAINTEXT\"}},\"endpoints\":[\"PLAINTEXT://broker-{0}:9092\"]{rack},\"jmx_port\":-1,\"port\":9092,\"host\":\"broker-{0}\",\"version\":5,\"timestamp\":\"{1}\"}}",
            b.0,
            self.k.wall_ms()
        );
        if self.zkc().create(bnode(b), &path, data, Some(b))? {
            self.k.gate()?;
            self.me_mut().registered = true;
            self.controller_try_elect()?;
            return Ok(true);
        }
        let owner_session = self.zk.get(&path).and_then(|n| n.session).unwrap_or(0);
        self.k.gate()?;
        self.broker_forget();
        self.k.emit(
            vec![bnode(b), NodeId::ZooKeeper],
            EventKind::BrokerRegistrationFailed {
                broker: b,
                owner_session,
                session_id: session,
                timeout_ms: self.k.sc.cluster.config.zookeeper_session_timeout_ms,
            },
        );
        // The exiting process closes its own session; the old one still
        // runs out its timeout.
        self.zkc().close_session(b, false)?;
        self.k.process_exited = Some(bnode(b));
        Ok(false)
    }

    /// Hard kill: the process dies; memory is lost, the disk is kept.
    /// The OS writes back dirty pages: the logs are on disk up to their end.
    fn broker_os_flush(&mut self) -> Step {
        let b = self.id;
        let n = self
            .me()
            .logs
            .values()
            .filter(|l| l.flushed_offset != l.log_end_offset)
            .count() as u32;
        if n == 0 {
            return Ok(());
        }
        self.k.gate()?;
        for l in self.me_mut().logs.values_mut() {
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
    pub(crate) fn broker_lose_page_cache(&mut self) -> Step {
        let cut: Vec<(TopicPartition, i64)> = self
            .me()
            .logs
            .iter()
            .filter(|(_, l)| l.flushed_offset < l.log_end_offset)
            .map(|(tp, l)| (tp.clone(), l.flushed_offset))
            .collect();
        for (tp, to) in cut {
            self.truncate(&tp, to, TruncateReason::PowerFailure { flushed_offset: to })?;
        }
        Ok(())
    }

    /// Our connection to `peer` was reset: fetches to it and ISR changes sent
    /// to it (as controller) are given up and retried.
    fn broker_connection_closed(&mut self, peer: BrokerId) -> Step {
        let b = self.id;
        let fetch = self
            .me()
            .fetchers
            .get(&peer)
            .and_then(|f| f.in_flight)
            .is_some();
        let pending: Vec<TopicPartition> = if self.me().metadata.controller_id == peer.0 {
            self.me()
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
        if let Some(f) = self.me_mut().fetchers.get_mut(&peer) {
            f.in_flight = None;
        }
        for tp in &pending {
            if let Some(p) = self.me_mut().partitions.get_mut(tp) {
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

    pub(crate) fn broker_kill(&mut self, controlled: bool) -> Step {
        let b = self.id;
        self.k.gate()?;
        let epoch = self.me().kraft.as_ref().map(|k| k.broker_epoch);
        self.broker_forget();
        if let (true, Some(epoch), Some(k)) = (controlled, epoch, self.me_mut().kraft.as_mut()) {
            // A clean stop writes the broker epoch to the clean-shutdown
            // files (`LogManager.shutdown(brokerEpoch)`).
            k.clean_shutdown_epoch = epoch;
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::BrokerStopped {
                broker: b,
                controlled,
            },
        );
        if self.me().kraft.is_some() {
            Ok(())
        } else if controlled {
            self.zkc().close_session(b, false)
        } else {
            self.zkc().broker_died(b)
        }
    }

    /// The process ends: everything in memory goes; the disk stays.
    fn broker_forget(&mut self) {
        let br = self.me_mut();
        br.alive = false;
        br.partitions.clear();
        br.fetchers.clear();
        br.delayed_fetches.clear();
        br.delayed_produces.clear();
        br.verifications.clear();
        for s in br.producer_states.values_mut() {
            s.verifying.clear();
        }
        br.metadata = MetadataCache {
            controller_id: -1,
            ..Default::default()
        };
        br.controller = None;
        br.groups = Default::default();
        br.txns = Default::default();
        br.registered = false;
        br.hw_checkpoint_started = false;
        if let Some(k) = br.kraft.as_mut() {
            k.crash();
        }
    }

    /// A request of ours could not reach a dead broker.
    pub(crate) fn broker_disconnected(&mut self, to: NodeId, msg: &Message) -> Step {
        let b = self.id;
        if self.me().kraft.is_some() && matches!(to, NodeId::Controller(_)) {
            return self.kraft_disconnected(msg);
        }
        if let Message::AddPartitionsToTxn {
            correlation_id,
            verify_only: true,
            ..
        } = msg
        {
            return self
                .broker_on_verification_failed(*correlation_id, ErrorCode::NetworkException);
        }
        if let Message::WriteTxnMarkers { correlation_id, .. } = msg {
            return self.txn_on_markers_response(
                *correlation_id,
                Vec::new(),
                Some(ErrorCode::NetworkException),
            );
        }
        if let Message::AlterPartition {
            tp,
            partition_epoch,
            ..
        } = msg
        {
            // The controller died with our request: the next ISR check retries.
            let pending =
                self.me().partitions.get(tp).is_some_and(|p| {
                    p.pending_isr.is_some() && p.partition_epoch == *partition_epoch
                });
            if pending {
                self.k.gate()?;
                self.me_mut()
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
        if let (Message::Fetch(FetchRequest { correlation_id, .. }), NodeId::Broker(leader)) =
            (msg, to)
        {
            if self.me().fetchers.get(&leader).and_then(|f| f.in_flight) == Some(*correlation_id) {
                self.k.gate()?;
                if let Some(f) = self.me_mut().fetchers.get_mut(&leader) {
                    f.in_flight = None;
                }
                let at = self.k.now + self.k.sc.cluster.config.replica_fetch_backoff_ms;
                self.k
                    .set_timer(bnode(b), at, Timer::ReplicaFetchBackoff { leader })?;
            }
        }
        Ok(())
    }
}

impl PartitionState {
    /// The leader, if any.
    pub fn leader_id(&self) -> Option<BrokerId> {
        (self.leader >= 0).then_some(BrokerId(self.leader))
    }
}

#[cfg(test)]
mod metadata_share_tests {
    use super::NO_METADATA_SHARE;
    use crate::{Scenario, World};
    use std::sync::Arc;

    /// Each broker's metadata cache, as allocations: how many distinct.
    fn copies(w: &World) -> usize {
        let mut ptrs: Vec<usize> = w
            .brokers()
            .values()
            .map(|b| Arc::as_ptr(&b.metadata.partitions) as usize)
            .collect();
        ptrs.sort_unstable();
        ptrs.dedup();
        ptrs.len()
    }

    /// A share applies only to the same request body (the allocation, not
    /// equal contents) and the same cache before (the allocation, or two
    /// empty ones).
    #[test]
    fn a_share_applies_to_the_same_body_on_the_same_cache() {
        use super::{MetadataShare, PartitionTable, SortedMap};
        use crate::ids::{BrokerId, TopicPartition};
        use crate::msg::PartitionState;
        let state = |leader| PartitionState {
            tp: TopicPartition::new("t", 0),
            controller_epoch: 1,
            leader,
            leader_epoch: 0,
            isr: vec![BrokerId(leader)],
            partition_epoch: 0,
            replicas: vec![BrokerId(leader)],
            adding_replicas: vec![],
            is_new: true,
        };
        let states: Arc<[PartitionState]> = Arc::from(vec![state(0)]);
        let mut full = SortedMap::new();
        full.insert(TopicPartition::new("t", 0), state(1));
        let (empty, full) = (Arc::new(SortedMap::new()), Arc::new(full));
        let share = |before: &Arc<SortedMap<TopicPartition, PartitionState>>| MetadataShare {
            before: before.clone(),
            states: states.clone(),
            after: Arc::new(SortedMap::new()),
            client_view: PartitionTable::default(),
        };
        let (from_full, from_empty) = (share(&full), share(&empty));
        assert!(from_full.applies(&full, &states));
        assert!(from_empty.applies(&Arc::new(SortedMap::new()), &states));
        // An equal cache in another allocation: not known to be the same.
        assert!(!from_full.applies(&Arc::new((*full).clone()), &states));
        assert!(!from_full.applies(&empty, &states));
        assert!(!from_empty.applies(&full, &states));
        let equal_body: Arc<[PartitionState]> = Arc::from(vec![state(0)]);
        assert!(!from_full.applies(&full, &equal_body));
    }

    /// Sharing what an UpdateMetadata broadcast builds changes nothing a
    /// learner or the trace sees: run with it and without it, the same
    /// events step by step, and every broker's cache and client view equal
    /// (checked every `every` steps); with it, the brokers hold fewer copies.
    #[test]
    fn brokers_share_what_a_broadcast_builds_and_nothing_else_changes() {
        let scale = crate::scenario::scale::scale(300, 1, 4);
        for (text, every, most) in [
            (
                include_str!("../../../../scenarios/leader-failover.json"),
                1,
                u32::MAX,
            ),
            (
                include_str!("../../../../scenarios/group-rebalance.json"),
                1,
                u32::MAX,
            ),
            (scale.as_str(), 500, 20_000),
        ] {
            let sc = Arc::new(Scenario::from_json(text).unwrap());
            let (mut shared, mut each) = (World::new(sc.clone()), World::new(sc));
            let (mut fewer, mut steps) = (0, 0);
            loop {
                let ran = shared.step();
                NO_METADATA_SHARE.with(|c| c.set(true));
                let ran_each = each.step();
                NO_METADATA_SHARE.with(|c| c.set(false));
                assert_eq!(ran, ran_each);
                assert_eq!(shared.drain_events(), each.drain_events(), "step {steps}");
                steps += 1;
                if steps % every == 0 || !ran {
                    for (id, b) in shared.brokers().iter() {
                        let b2 = &each.brokers()[id];
                        assert_eq!(b.metadata, b2.metadata, "broker {id:?} at step {steps}");
                    }
                    fewer += usize::from(copies(&shared) < copies(&each));
                }
                if !ran || steps >= most {
                    break;
                }
            }
            assert!(fewer > 0, "the brokers shared no cache");
            assert!(copies(&each) > 1 && copies(&shared) < copies(&each));
        }
    }
}
