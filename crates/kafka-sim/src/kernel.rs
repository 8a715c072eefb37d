//! The kernel of the simulation: the clock, the queue of pending work, the
//! seeded RNG, the event budget and the network, and the only operations
//! that change them: [`Kernel::gate`] before a change, [`Kernel::emit`] after
//! it, [`Kernel::send`] a message and [`Kernel::set_timer`]. (The rest of
//! a handler left for the next step is the broker's: `BrokerCx::continue_with`.)
//!
//! It knows nothing of brokers, ZooKeeper or clients: those nodes live in the
//! world (`World` in `sim/mod.rs`), which owns one kernel and runs each work
//! item by handing the kernel to the node it is for. A node's code reaches
//! other nodes only through [`Kernel::send`] (a message) — the kernel holds
//! no node state, only which incarnation of each process a message was
//! addressed to, so a restarted broker does not receive its previous life's
//! mail.
//!
//! The same split as turmoil's `Sim` (the host and the network) versus its
//! hosts, or raft-rs's `RawNode` (the caller drives, the node only reacts).

use crate::collections::{SortedMap, SortedSet};
use crate::event::{DropReason, Event, EventId, EventKind};
use crate::ids::{BrokerId, Millis, NodeId};
use crate::msg::Message;
use crate::rng::Rng;
use crate::scenario::Scenario;
use std::sync::Arc;

/// Returned by an apply operation when the event budget is spent: the handler
/// stops where it is (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frozen;

/// The result of a handler step: `Err(Frozen)` aborts it.
pub type Step<T = ()> = Result<T, Frozen>;

/// A timer a node set for itself.
#[derive(Clone, Debug, PartialEq)]
pub enum Timer {
    /// A broker's process starts (at time 0, or on a restart).
    BrokerStart,
    /// ZooKeeper expires a session that sent no heartbeat for
    /// `zookeeper.session.timeout.ms`.
    ZkSessionExpiry {
        /// The session.
        session_id: u64,
    },
    /// A leader checks its followers' lag (`isr-expiration`, every
    /// `replica.lag.time.max.ms / 2`).
    IsrExpiration,
    /// An AlterPartition got no answer: give up on it and let the ISR check retry.
    AlterPartitionTimeout {
        /// The partition.
        tp: crate::ids::TopicPartition,
        /// The partition epoch the request was sent in.
        partition_epoch: i32,
    },
    /// A broker writes `replication-offset-checkpoint`.
    HwCheckpoint,
    /// The OS writes dirty pages back to disk.
    OsFlush,
    /// A broker runs retention (`log.retention.check.interval.ms`).
    RetentionCheck,
    /// The log cleaner looks for a partition to compact (`log.cleaner.backoff.ms`).
    CleanerCheck,
    /// The `delete-file` task of segments renamed `.deleted`, run
    /// `file.delete.delay.ms` after the rename (`LocalLog.deleteSegmentFiles`).
    DeleteSegmentFiles {
        /// The partition whose files go.
        tp: crate::ids::TopicPartition,
    },
    /// The controller checks leader balance (`leader.imbalance.check.interval.seconds`).
    AutoLeaderRebalance,
    /// Send ControlledShutdown again (`controlled.shutdown.retry.backoff.ms`).
    ControlledShutdownRetry,
    /// A parked fetch reached `fetch.max.wait.ms`: answer with what there is.
    DelayedFetchExpiry {
        /// The parked fetch.
        id: u64,
    },
    /// A parked acks=all produce reached its timeout.
    DelayedProduceExpiry {
        /// The parked produce.
        id: u64,
    },
    /// A follower fetches from `leader` again after `replica.fetch.backoff.ms`.
    ReplicaFetchBackoff {
        /// The leader's broker.
        leader: BrokerId,
    },
    /// A request got no answer in time (clients and followers).
    RequestTimeout {
        /// The request's correlation id.
        correlation_id: i32,
    },
    /// The peer's process died or closed: our TCP connection to it was reset.
    ConnectionClosed {
        /// The broker at the other end.
        peer: BrokerId,
    },
    /// A client starts.
    ClientStart,
    /// The producer's sender thread wakes: `linger.ms` passed or a batch is ready.
    ProducerWake,
    /// A producer asks for its producer id again after an error, once
    /// `retry.backoff.ms` has passed.
    InitProducerIdRetry,
    /// `close(timeout)` ran out of time: force close what is left.
    ProducerCloseTimeout {
        /// The close timeout.
        timeout_ms: u64,
    },
    /// A client refreshes its metadata (`metadata.max.age.ms`, or after a backoff).
    MetadataRefresh,
    /// The application calls `poll()` again.
    ConsumerPoll,
    /// The consumer's heartbeat thread (`heartbeat.interval.ms`).
    ConsumerHeartbeat,
    /// `auto.commit.interval.ms` passed.
    ConsumerAutoCommit,
    /// A consumer's fetch backoff ends.
    ConsumerResume,
    /// The join phase of a rebalance ends (the rebalance timeout).
    GroupJoinDeadline {
        /// The group.
        group: String,
        /// The generation it was set in.
        generation: i32,
    },
    /// A member sent no heartbeat for `session.timeout.ms`.
    GroupMemberExpiry {
        /// The group.
        group: String,
        /// The member.
        member: String,
    },
    /// `group.initial.rebalance.delay.ms` passed for a new group.
    GroupInitialDelay {
        /// The group.
        group: String,
    },
    /// The transaction coordinator looks for transactions past their
    /// timeout (`transaction.abort.timed.out.transaction.cleanup.interval.ms`).
    TxnAbortCheck,
    /// The transaction coordinator sends the markers it could not send yet.
    TxnMarkerRetry {
        /// The transactional id.
        transactional_id: String,
    },
    /// A WriteTxnMarkers went unanswered for `request.timeout.ms`.
    TxnMarkerTimeout {
        /// Its correlation id.
        correlation_id: i32,
    },
    /// KRaft: a quorum node's state timer (the election timer, or a
    /// follower's fetch timer); only the latest one set counts.
    QuorumTimer {
        /// Which setting of the timer (a later one replaces it).
        generation: u64,
    },
    /// KRaft: the leader's check-quorum timer.
    QuorumCheck {
        /// Which setting of the timer.
        generation: u64,
    },
    /// KRaft: the leader sends BeginQuorumEpoch again to the voters that
    /// have not answered (every `controller.quorum.fetch.timeout.ms` / 2).
    QuorumBeginResend {
        /// The epoch it leads.
        epoch: i32,
    },
    /// KRaft: a resigned leader sends EndQuorumEpoch again.
    QuorumEndResend {
        /// The epoch it resigned.
        epoch: i32,
    },
    /// KRaft: the leader's append linger (`controller.quorum.append.linger.ms`) is over.
    QuorumLinger {
        /// The epoch it leads.
        epoch: i32,
    },
    /// KRaft: a parked Fetch of the metadata log waited its 500 ms.
    QuorumFetchExpiry {
        /// The parked fetch.
        id: u64,
    },
    /// KRaft: a node fetches the metadata log again (after a backoff).
    QuorumFetchRetry,
    /// KRaft: the process of controller `peer` ended: the connection to it
    /// was reset, and what was in flight to it failed.
    QuorumPeerClosed {
        /// The controller's `node.id`.
        peer: i32,
    },
    /// KRaft: a candidate asks the voters that did not answer again.
    QuorumVoteRetry {
        /// The epoch of the election.
        epoch: i32,
    },
    /// KRaft: the active controller's periodic task (`writeNoOpRecord`,
    /// every `metadata.max.idle.interval.ms`).
    ControllerNoOp {
        /// The epoch it leads.
        epoch: i32,
    },
    /// KRaft: the active controller looks for a broker to fence
    /// (`maybeFenceStaleBroker`, every `broker.session.timeout.ms` / 8).
    ControllerFenceCheck {
        /// The epoch it leads.
        epoch: i32,
    },
    /// KRaft: a broker's `BrokerLifecycleManager` sends its next
    /// registration or heartbeat.
    BrokerLifecycleTick {
        /// Which setting of the timer.
        generation: u64,
    },
    /// A partition leader's verify-only AddPartitionsToTxn went unanswered
    /// for `request.timeout.ms` (KIP-890 part 1).
    TxnVerificationTimeout {
        /// Its correlation id.
        correlation_id: i32,
    },
}

/// One item of pending work.
#[derive(Clone, Debug, PartialEq)]
pub enum Work {
    /// A message arrives.
    Deliver {
        /// The message's id.
        id: u64,
        /// The sender.
        from: NodeId,
        /// The destination.
        to: NodeId,
        /// The destination's life it was sent to (a restarted node drops it).
        to_incarnation: u32,
        /// The message (shared with its `MessageSent` event).
        msg: Arc<Message>,
        /// The event that recorded its sending.
        sent: EventId,
    },
    /// A timer fires.
    Timer {
        /// The node that set it.
        node: NodeId,
        /// The node's life it was set in (a restart cancels it).
        incarnation: u32,
        /// Which timer.
        timer: Timer,
        /// The event that set it.
        cause: Option<EventId>,
    },
    /// The scenario's `commands[index]`.
    Command {
        /// Its position in the scenario.
        index: u32,
    },
    /// Create the scenario's `topics[index]` (at time 0).
    InitialTopic {
        /// Its position in the scenario.
        index: u32,
    },
}

/// The pending work, in (time, sequence number) order.
///
/// Every checkpoint of the timeline holds a copy of it, and at scale it holds
/// a hundred thousand items (1,600 consumers with fetches parked or on the
/// wire). So the items due at one instant are a shared, copy-on-write
/// [`Bucket`]: a clone copies one pointer per pending instant, and a change
/// after it copies only the chunk of the bucket it touches (the next
/// instants, as it runs; far-off timers stay shared).
///
/// Sequence numbers only grow, so a bucket is in sequence order by pushing
/// to its back.
#[derive(Clone, Debug, Default)]
pub(crate) struct WorkQueue {
    at: std::collections::BTreeMap<Millis, Bucket>,
    len: usize,
    /// How many of the items are messages on the wire ([`Work::Deliver`]).
    deliveries: usize,
}

/// At most this many items in one chunk of a bucket.
const CHUNK: usize = 32;

/// Consecutive items of a bucket, by sequence number. A deque: the queue
/// takes items from the front, which a `Vec` would shift.
type Chunk = Arc<std::collections::VecDeque<(u64, Work)>>;

/// The items due at one instant, in sequence order, shared until changed,
/// in chunks of at most [`CHUNK`] that are shared too: an instant can hold
/// thousands (every request sent in one millisecond arms its timeout at the
/// same later instant), and a change after a checkpoint, or in the copy a
/// step makes to show the state inside a handler, copies the chunk it
/// touches and the list of chunks, not every item.
#[derive(Clone, Debug, Default)]
struct Bucket {
    chunks: Arc<Vec<Chunk>>,
}

impl Bucket {
    fn iter(&self) -> impl Iterator<Item = &(u64, Work)> {
        self.chunks.iter().flat_map(|c| c.iter())
    }

    fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// Adds an item after every other (its sequence is the largest).
    fn push(&mut self, item: (u64, Work)) {
        debug_assert!(self
            .chunks
            .last()
            .and_then(|c| c.back())
            .is_none_or(|(s, _)| *s < item.0));
        let chunks = Arc::make_mut(&mut self.chunks);
        match chunks.last_mut() {
            Some(c) if c.len() < CHUNK => Arc::make_mut(c).push_back(item),
            _ => {
                let mut c = std::collections::VecDeque::with_capacity(CHUNK);
                c.push_back(item);
                chunks.push(Arc::new(c));
            }
        }
    }

    /// Takes the item with sequence `seq`, if it is here.
    fn take(&mut self, seq: u64) -> Option<Work> {
        let k = self
            .chunks
            .partition_point(|c| c.back().is_some_and(|(s, _)| *s < seq));
        let i = self
            .chunks
            .get(k)?
            .binary_search_by_key(&seq, |(s, _)| *s)
            .ok()?;
        let chunks = Arc::make_mut(&mut self.chunks);
        let c = Arc::make_mut(&mut chunks[k]);
        let (_, work) = c.remove(i)?;
        if c.is_empty() {
            chunks.remove(k);
        }
        Some(work)
    }
}

impl WorkQueue {
    /// Adds `work` at `at`; `seq` is larger than any queued before.
    fn insert(&mut self, at: Millis, seq: u64, work: Work) {
        let bucket = self.at.entry(at).or_default();
        self.deliveries += usize::from(matches!(work, Work::Deliver { .. }));
        bucket.push((seq, work));
        self.len += 1;
    }

    /// The next item: its key and work.
    pub(crate) fn first(&self) -> Option<((Millis, u64), &Work)> {
        let (t, bucket) = self.at.iter().next()?;
        bucket.iter().next().map(|(seq, w)| ((*t, *seq), w))
    }

    /// Removes the item with this key, if queued.
    fn remove(&mut self, (at, seq): (Millis, u64)) -> Option<Work> {
        let mut entry = match self.at.entry(at) {
            std::collections::btree_map::Entry::Occupied(e) => e,
            std::collections::btree_map::Entry::Vacant(_) => return None,
        };
        let b = entry.get_mut();
        let work = b.take(seq)?;
        if b.is_empty() {
            entry.remove();
        }
        self.len -= 1;
        self.deliveries -= usize::from(matches!(work, Work::Deliver { .. }));
        Some(work)
    }

    /// Items queued.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Messages on the wire among them.
    pub(crate) fn deliveries(&self) -> usize {
        self.deliveries
    }

    /// Every item, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = ((Millis, u64), &Work)> {
        self.at
            .iter()
            .flat_map(|(t, b)| b.iter().map(move |(seq, w)| ((*t, *seq), w)))
    }
}

/// Links between nodes: latency, cuts and slow links (turmoil-style faults).
#[derive(Clone, Debug, Default)]
pub struct Network {
    /// One-way latency between brokers and clients.
    pub latency_ms: u64,
    /// One-way latency to and from ZooKeeper.
    pub zookeeper_latency_ms: u64,
    /// Cut links, as ordered pairs (smaller node first).
    pub cut: SortedSet<(NodeId, NodeId)>,
    /// Extra latency per link (ordered pair).
    pub extra: SortedMap<(NodeId, NodeId), u64>,
    /// When the last message sent each way along a link arrives, for the
    /// links where that is later than a message sent now would arrive
    /// without its slow-link extra (see [`Network::arrival`]): only those
    /// can hold a message back, so a link stays FIFO like TCP. On a run
    /// without slow links it stays empty. (It kept every pair that ever
    /// talked: with 1,600 consumers, inserting new pairs into the middle of
    /// that sorted map was nearly half of a run's time.)
    last_delivery: SortedMap<(NodeId, NodeId), Millis>,
}

/// A link's key: the pair of its ends, smaller first.
pub fn link_key(a: NodeId, b: NodeId) -> (NodeId, NodeId) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

impl Network {
    /// Whether the link between `a` and `b` is cut.
    pub fn is_cut(&self, a: NodeId, b: NodeId) -> bool {
        self.cut.contains(&link_key(a, b))
    }

    /// The one-way latency from `a` to `b` without a slow link's extra: it
    /// never changes during a run.
    fn base_latency(&self, a: NodeId, b: NodeId) -> u64 {
        if a == NodeId::ZooKeeper || b == NodeId::ZooKeeper {
            self.zookeeper_latency_ms
        } else {
            self.latency_ms
        }
    }

    /// The one-way latency from `a` to `b`, slow-link extra included.
    pub fn latency(&self, a: NodeId, b: NodeId) -> u64 {
        self.base_latency(a, b) + self.extra.get(&link_key(a, b)).copied().unwrap_or(0)
    }

    /// When a message sent from `from` to `to` at `now` arrives: after the
    /// link's latency, and not before the last one sent that way (FIFO).
    ///
    /// The base latency (without a slow link's extra) never changes and the
    /// clock only moves on, so a message that arrives no later than `now` +
    /// base can never hold a later one back (that one arrives at its own
    /// `now` + base at the earliest). Only later arrivals are kept: the
    /// times are the same as with every link's last arrival kept.
    pub fn arrival(&mut self, from: NodeId, to: NodeId, now: Millis) -> Millis {
        let soonest = now + self.base_latency(from, to);
        let mut at = now + self.latency(from, to);
        if let Some(last) = self.last_delivery.get(&(from, to)) {
            at = at.max(*last);
        }
        if at > soonest {
            self.last_delivery.insert((from, to), at);
        } else {
            self.last_delivery.remove(&(from, to));
        }
        at
    }

    /// How many links' last arrival times are kept: those that may still
    /// hold a message back.
    #[cfg(test)]
    fn links_tracked(&self) -> usize {
        self.last_delivery.len()
    }
}

/// The clock, queue, RNG, budget and network (see the module docs).
/// What a read-process-write application asks of its other client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PipelineCall {
    /// The consumer started: `initTransactions()` on its producer.
    Start { consumer: u32 },
    /// poll() returned records: write them and their offsets in a transaction.
    Process { consumer: u32 },
    /// Processing (`processing.ms`) is over: `commitTransaction()`.
    Commit { consumer: u32 },
    /// The producer's transaction ended: committed, abortable, or fatal.
    Ended {
        producer: u32,
        outcome: PipelineOutcome,
    },
}

/// How a read-process-write transaction ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PipelineOutcome {
    /// Committed: the records are processed.
    Committed,
    /// An abortable error: abort and go back to the committed offsets.
    Abortable,
    /// A fatal error (fenced): the application closes both clients.
    Fatal,
}

#[derive(Clone)]
pub(crate) struct Kernel {
    pub(crate) sc: Arc<Scenario>,
    pub(crate) now: Millis,
    pub(crate) rng: Rng,
    pub(crate) queue: WorkQueue,
    /// A process that ended as its handler's last act (a broker finishing a
    /// controlled shutdown): the world then resets its connections, which
    /// touches other nodes, so no handle can do it itself.
    pub(crate) process_exited: Option<NodeId>,
    /// Calls one client's application makes on another client of the same
    /// process (a read-process-write loop's consumer and producer): left
    /// here by a handle, carried out by the world after the step.
    pub(crate) pipeline_calls: Vec<PipelineCall>,
    seq: u64,
    pub(crate) next_message_id: u64,
    pub(crate) emitted: u64,
    pub(crate) budget: Option<u64>,
    pub(crate) out: Vec<Event>,
    /// The event the running handler reacts to (the cause of what it records).
    pub(crate) cause: Option<EventId>,
    pub(crate) net: Network,
    /// Which life of each process is running (a broker restart begins a new
    /// one); a message or timer for an earlier life is dropped.
    incarnations: SortedMap<NodeId, u32>,
    /// Request timeouts armed with [`Kernel::arm_request_timeout`] and not
    /// yet fired or disarmed: (node, correlation id) → their queue key.
    /// Thousands are armed at once at scale; only looked up by key, so a
    /// hash map (a sorted vector would shift them all on every request, and
    /// a tree's clone allocates every node).
    request_timers: crate::collections::FastMap<(NodeId, i32), (Millis, u64)>,
    /// The last UpdateMetadata a broker applied, for the others to share.
    pub(crate) metadata_share: Option<crate::broker::MetadataShare>,
}

impl Kernel {
    pub(crate) fn new(sc: Arc<Scenario>) -> Kernel {
        Kernel {
            rng: Rng::new(sc.seed),
            now: 0,
            queue: WorkQueue::default(),
            process_exited: None,
            pipeline_calls: Vec::new(),
            seq: 0,
            next_message_id: 0,
            emitted: 0,
            budget: None,
            out: Vec::new(),
            cause: None,
            net: Network {
                latency_ms: sc.cluster.network.latency_ms,
                zookeeper_latency_ms: sc.cluster.network.zookeeper_latency_ms,
                ..Network::default()
            },
            incarnations: SortedMap::new(),
            request_timers: Default::default(),
            metadata_share: None,
            sc,
        }
    }

    /// The sequence number the next queued item will take: every item queued
    /// so far has a smaller one.
    pub(crate) fn next_seq(&self) -> u64 {
        self.seq
    }

    /// Queues `work` at `at`; returns its key in the queue.
    pub(crate) fn schedule(&mut self, at: Millis, work: Work) -> (Millis, u64) {
        let key = (at, self.seq);
        self.queue.insert(at, self.seq, work);
        self.seq += 1;
        key
    }

    /// Schedules a timer outside the gate (used for scheduling-only work that a
    /// gated operation already accounted for).
    pub(crate) fn schedule_work_timer(
        &mut self,
        node: NodeId,
        incarnation: u32,
        timer: Timer,
        at: Millis,
    ) -> (Millis, u64) {
        let cause = self.cause;
        self.schedule(
            at,
            Work::Timer {
                node,
                incarnation,
                timer,
                cause,
            },
        )
    }

    /// Passes if one more event may be recorded. Every apply operation calls
    /// this *before* it changes anything.
    pub(crate) fn gate(&self) -> Step {
        match self.budget {
            Some(b) if self.emitted >= b => Err(Frozen),
            _ => Ok(()),
        }
    }

    /// Records an event (after the gate has passed and the change is made).
    pub(crate) fn emit(&mut self, nodes: Vec<NodeId>, kind: EventKind) -> EventId {
        let id = self.emitted;
        self.emitted += 1;
        self.out.push(Event {
            id,
            time_ms: self.now,
            nodes,
            cause: self.cause,
            kind,
        });
        id
    }

    /// Gate + emit, for events that change nothing else (decisions, notices).
    pub(crate) fn record(&mut self, nodes: Vec<NodeId>, kind: EventKind) -> Step<EventId> {
        self.gate()?;
        Ok(self.emit(nodes, kind))
    }

    /// The running life of a process (0 before its first start).
    pub(crate) fn incarnation(&self, node: NodeId) -> u32 {
        self.incarnations.get(&node).copied().unwrap_or(0)
    }

    /// A process starts again: its next life begins (returned).
    pub(crate) fn restart(&mut self, node: NodeId) -> u32 {
        let next = self.incarnation(node) + 1;
        self.incarnations.insert(node, next);
        next
    }

    /// Sends a message along the link `from → to` (one event: `MessageSent`,
    /// or `MessageDropped` when the link is cut).
    pub(crate) fn send(&mut self, from: NodeId, to: NodeId, msg: Message) -> Step<EventId> {
        self.gate()?;
        let id = self.next_message_id;
        self.next_message_id += 1;
        if self.net.is_cut(from, to) {
            let api = msg.api().to_string();
            return Ok(self.emit(
                vec![from, to],
                EventKind::MessageDropped {
                    id,
                    from,
                    to,
                    api,
                    reason: DropReason::LinkCut,
                },
            ));
        }
        let at = self.net.arrival(from, to, self.now);
        let ev_id = self.emitted;
        let msg = Arc::new(msg);
        self.schedule(
            at,
            Work::Deliver {
                id,
                from,
                to,
                to_incarnation: self.incarnation(to),
                msg: Arc::clone(&msg),
                sent: ev_id,
            },
        );
        Ok(self.emit(
            vec![from, to],
            EventKind::MessageSent {
                id,
                from,
                to,
                deliver_at: at,
                message: msg,
            },
        ))
    }

    /// Sets a timer for `node` at `at` (scheduling only: no event).
    pub(crate) fn set_timer(&mut self, node: NodeId, at: Millis, timer: Timer) -> Step {
        self.gate()?;
        let incarnation = self.incarnation(node);
        self.schedule_work_timer(node, incarnation, timer, at);
        Ok(())
    }

    /// Arms `node`'s timeout for its request `correlation_id`
    /// (`Timer::RequestTimeout` at `at`), to be disarmed when the answer
    /// is taken ([`Kernel::disarm_request_timeout`]).
    ///
    /// A timeout that outlives its answer would fire and do nothing, but
    /// until then it sits in the queue, and every checkpoint copies it: at
    /// `request.timeout.ms` = 30 s, a consumer fetching every few hundred
    /// milliseconds keeps about a hundred of them pending (in the
    /// 100-broker, 40-group scale scenario, 154,000 of the 257,000 queued
    /// items). Disarming removes nothing a learner could see: the trace
    /// is the same (the golden digests hold it).
    pub(crate) fn arm_request_timeout(
        &mut self,
        node: NodeId,
        at: Millis,
        correlation_id: i32,
    ) -> Step {
        self.gate()?;
        let incarnation = self.incarnation(node);
        let key = self.schedule_work_timer(
            node,
            incarnation,
            Timer::RequestTimeout { correlation_id },
            at,
        );
        self.request_timers.insert((node, correlation_id), key);
        Ok(())
    }

    /// The answer to `node`'s request `correlation_id` was taken: its
    /// timeout, if still pending, is removed from the queue.
    pub(crate) fn disarm_request_timeout(&mut self, node: NodeId, correlation_id: i32) {
        if let Some(key) = self.request_timers.remove(&(node, correlation_id)) {
            self.queue.remove(key);
        }
    }

    /// Takes the next item of work off the queue (forgetting an armed
    /// request timeout that fires).
    pub(crate) fn take(&mut self, key: (Millis, u64)) -> Option<Work> {
        let work = self.queue.remove(key)?;
        if let Work::Timer {
            node,
            timer: Timer::RequestTimeout { correlation_id },
            ..
        } = &work
        {
            if self.request_timers.get(&(*node, *correlation_id)) == Some(&key) {
                self.request_timers.remove(&(*node, *correlation_id));
            }
        }
        Some(work)
    }

    /// Wall-clock milliseconds (record timestamps, retention).
    pub(crate) fn wall_ms(&self) -> i64 {
        self.sc.clock_start_ms + self.now as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(i: u32) -> Work {
        Work::Command { index: i }
    }

    fn order(q: &WorkQueue) -> Vec<(Millis, u64)> {
        q.iter().map(|(k, _)| k).collect()
    }

    /// The queue runs in (time, sequence) order whatever the insertion
    /// order of times, removes any item by key, and a clone is independent
    /// of the queue it was taken from (buckets are copied on write).
    #[test]
    fn the_work_queue_orders_removes_and_copies_on_write() {
        let mut q = WorkQueue::default();
        for (seq, at) in [(0, 30), (1, 10), (2, 30), (3, 20), (4, 10)] {
            q.insert(at, seq, cmd(seq as u32));
        }
        assert_eq!(order(&q), [(10, 1), (10, 4), (20, 3), (30, 0), (30, 2)]);
        let snapshot = q.clone();
        assert_eq!(q.remove((30, 0)), Some(cmd(0)));
        assert_eq!(q.remove((30, 0)), None);
        assert_eq!(q.remove((99, 0)), None);
        assert_eq!(q.remove((10, 1)), Some(cmd(1)));
        q.insert(10, 5, cmd(5));
        assert_eq!(order(&q), [(10, 4), (10, 5), (20, 3), (30, 2)]);
        assert_eq!(q.first().map(|(k, _)| k), Some((10, 4)));
        assert_eq!(q.len(), 4);
        // The snapshot did not move.
        assert_eq!(snapshot.len(), 5);
        assert_eq!(
            order(&snapshot),
            [(10, 1), (10, 4), (20, 3), (30, 0), (30, 2)]
        );
        // An emptied instant leaves no bucket behind.
        assert_eq!(q.remove((20, 3)), Some(cmd(3)));
        assert_eq!(q.at.len(), 2);
        // A busy instant: a change to a copy copies the chunk it touches
        // (and the list of chunks), and shares the others.
        let mut busy = WorkQueue::default();
        for seq in 0..(3 * CHUNK as u64) {
            busy.insert(50, seq, cmd(seq as u32));
        }
        let kept = busy.clone();
        assert_eq!(busy.remove((50, 0)), Some(cmd(0)));
        assert_eq!(busy.remove((50, 40)), Some(cmd(40)));
        busy.insert(50, 1000, cmd(1000));
        let (now, then) = (&busy.at[&50].chunks, &kept.at[&50].chunks);
        assert_eq!((now.len(), then.len()), (4, 3));
        assert!(!Arc::ptr_eq(&now[0], &then[0]) && !Arc::ptr_eq(&now[1], &then[1]));
        assert!(Arc::ptr_eq(&now[2], &then[2]));
        assert_eq!(busy.len(), 3 * CHUNK - 1);
        assert_eq!(kept.len(), 3 * CHUNK);
        assert_eq!(
            order(&kept),
            (0..3 * CHUNK as u64).map(|s| (50, s)).collect::<Vec<_>>()
        );
    }
    proptest::proptest! {
        /// Against a sorted map, with copies taken along the way: inserts at
        /// a few busy instants (buckets of many chunks), removals anywhere
        /// (a disarmed timeout) and of the next item (a step). Every copy
        /// keeps what it held when taken, and the queue stays in order.
        #[test]
        fn the_work_queue_matches_a_sorted_map_and_copies_stay_put(
            ops in proptest::collection::vec((0u8..4, 0u64..6, 0usize..1000), 1..600),
        ) {
            let mut q = WorkQueue::default();
            let mut model = std::collections::BTreeMap::new();
            let mut copies: Vec<(WorkQueue, Vec<(Millis, u64)>)> = Vec::new();
            for (seq, (op, at, pick)) in ops.into_iter().enumerate() {
                let seq = seq as u64;
                match op {
                    0 | 1 => {
                        q.insert(at * 10, seq, cmd(seq as u32));
                        model.insert((at * 10, seq), seq as u32);
                    }
                    2 if !model.is_empty() => {
                        let key = *model.keys().nth(pick % model.len()).unwrap();
                        let want = model.remove(&key).map(cmd);
                        proptest::prop_assert_eq!(q.remove(key), want);
                        proptest::prop_assert_eq!(q.remove(key), None);
                    }
                    2 => {}
                    _ => {
                        let first = model.keys().next().copied();
                        proptest::prop_assert_eq!(q.first().map(|(k, _)| k), first);
                        if let Some(key) = first {
                            model.remove(&key);
                            proptest::prop_assert!(q.remove(key).is_some());
                        }
                        if pick % 4 == 0 {
                            copies.push((q.clone(), model.keys().copied().collect()));
                        }
                    }
                }
                proptest::prop_assert_eq!(q.len(), model.len());
            }
            proptest::prop_assert_eq!(order(&q), model.keys().copied().collect::<Vec<_>>());
            for (c, keys) in &copies {
                proptest::prop_assert_eq!(&order(c), keys);
                proptest::prop_assert_eq!(c.len(), keys.len());
            }
        }

        /// Keeping only the arrivals that can hold a message back changes no
        /// arrival: the network gives the same times as one that keeps
        /// every link's last arrival, with the clock moving on and slow
        /// links coming and going.
        #[test]
        fn keeping_only_late_arrivals_changes_no_arrival(
            sends in proptest::collection::vec(
                (0u32..800, 0u32..4, 0u64..2, 0u64..40, proptest::bool::ANY, proptest::bool::ANY),
                1..4000,
            ),
        ) {
            let mut net = Network { latency_ms: 5, zookeeper_latency_ms: 2, ..Network::default() };
            let mut every: std::collections::BTreeMap<(NodeId, NodeId), Millis> = Default::default();
            let mut now = 0;
            for (client, broker, tick, extra, reply, hot) in sends {
                now += tick;
                // Half the sends are on 8 busy links, where a slow message
                // holds the next ones back; the rest spread over 6,400.
                let client = if hot { client % 2 } else { client };
                let (c, b) = (NodeId::Consumer(client), NodeId::Broker(BrokerId(broker as i32)));
                let (from, to) = if reply { (b, c) } else { (c, b) };
                // A slow link now and then: a later message may arrive before
                // an earlier one would, so FIFO holds it back.
                if extra % 7 == 0 {
                    net.extra.insert(link_key(from, to), extra);
                } else if extra % 5 == 0 {
                    net.extra.remove(&link_key(from, to));
                }
                let mut want = now + net.latency(from, to);
                if let Some(last) = every.get(&(from, to)) {
                    want = want.max(*last);
                }
                every.insert((from, to), want);
                proptest::prop_assert_eq!(net.arrival(from, to, now), want);
                proptest::prop_assert!(net.links_tracked() <= every.len());
            }
        }
    }

    /// Without slow links no message can overtake another, so nothing is
    /// kept, however many links carry messages.
    #[test]
    fn a_network_without_slow_links_keeps_no_arrival_times() {
        let mut net = Network {
            latency_ms: 5,
            zookeeper_latency_ms: 2,
            ..Network::default()
        };
        for i in 0..5000u64 {
            let c = NodeId::Consumer((i % 1600) as u32);
            let b = NodeId::Broker(BrokerId((i % 100) as i32));
            assert_eq!(net.arrival(c, b, i / 3), i / 3 + 5);
            assert_eq!(net.arrival(NodeId::ZooKeeper, b, i / 3), i / 3 + 2);
        }
        assert_eq!(net.links_tracked(), 0);
        // A slow link keeps its last arrival until a later send passes it.
        let (c, b) = (NodeId::Consumer(0), NodeId::Broker(BrokerId(0)));
        net.extra.insert(link_key(c, b), 50);
        assert_eq!(net.arrival(c, b, 2000), 2055);
        net.extra.remove(&link_key(c, b));
        assert_eq!(
            net.arrival(c, b, 2001),
            2055,
            "held back behind the slow one"
        );
        assert_eq!(net.links_tracked(), 1);
        assert_eq!(net.arrival(c, b, 2050), 2055);
        assert_eq!(net.arrival(c, b, 2051), 2056);
        assert_eq!(net.links_tracked(), 0);
    }
}
