//! The simulation kernel: a clock, a deterministic queue, and the one place
//! where events are recorded.
//!
//! The [`World`] holds every node (brokers, ZooKeeper, clients) and a queue of
//! pending work ordered by `(time, sequence)`: message deliveries, timers and
//! the scenario's commands. [`World::step`] pops the next item, advances the
//! clock to it and runs its handler. Handlers never mutate state directly:
//! each change goes through a small *apply* operation that first passes the
//! [`World::gate`] and then records exactly one event, so the trace is
//! complete by construction ("nothing happens off the record").
//!
//! The gate is also how the timeline shows the state *at* any event: run with
//! a budget of `n` events and the handler that would record event `n + 1`
//! stops (with [`Frozen`]) before changing anything; the world then is exactly
//! the state after event `n`, even in the middle of a handler. A frozen world
//! is for display only and is never stepped again.
//!
//! A handler that walks hundreds of partitions (the controller creating a
//! 1,000-partition topic, a broker applying a LeaderAndIsr for 300 replicas)
//! does not do it in one step: it leaves a [`Continuation`] that the next
//! steps run one partition at a time, before any other work. The trace is the
//! same as if it had run at once (nothing else can come in between), but every
//! partition ends a step, so the timeline can resume between any two of them
//! instead of replaying the whole handler to show one event in its middle.

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

/// How many steps in a row may run at one simulated instant and record
/// nothing before the world stops as stuck. Real work at one instant records
/// events (a message sent, a state changed) or drains the queue; a timer
/// that keeps setting itself for the same instant (an interval of 0) does
/// neither, and would otherwise spin forever without a single event, so the
/// event cap would never stop it.
pub const MAX_QUIET_STEPS: u32 = 100_000;

/// A timer a node set for itself.
#[derive(Clone, Debug, PartialEq)]
pub enum Timer {
    BrokerStart,
    ZkSessionExpiry {
        session_id: u64,
    },
    IsrExpiration,
    /// An AlterPartition got no answer: give up on it and let the ISR check retry.
    AlterPartitionTimeout {
        tp: crate::ids::TopicPartition,
        partition_epoch: i32,
    },
    HwCheckpoint,
    /// The OS writes dirty pages back to disk.
    OsFlush,
    RetentionCheck,
    CleanerCheck,
    AutoLeaderRebalance,
    DelayedFetchExpiry {
        id: u64,
    },
    DelayedProduceExpiry {
        id: u64,
    },
    ReplicaFetchBackoff {
        leader: BrokerId,
    },
    /// A request got no answer in time (clients and followers).
    RequestTimeout {
        correlation_id: i32,
    },
    /// The peer's process died or closed: our TCP connection to it was reset.
    ConnectionClosed {
        peer: BrokerId,
    },
    ClientStart,
    ProducerWake,
    /// `close(timeout)` ran out of time: force close what is left.
    ProducerCloseTimeout {
        timeout_ms: u64,
    },
    MetadataRefresh,
    ConsumerPoll,
    ConsumerHeartbeat,
    ConsumerAutoCommit,
    ConsumerResume,
    GroupJoinDeadline {
        group: String,
        generation: i32,
    },
    GroupMemberExpiry {
        group: String,
        member: String,
    },
    GroupInitialDelay {
        group: String,
    },
}

/// One item of pending work.
#[derive(Clone, Debug, PartialEq)]
pub enum Work {
    Deliver {
        id: u64,
        from: NodeId,
        to: NodeId,
        to_incarnation: u32,
        msg: Message,
        sent: EventId,
    },
    Timer {
        node: NodeId,
        incarnation: u32,
        timer: Timer,
        cause: Option<EventId>,
    },
    /// The scenario's `commands[index]`.
    Command { index: u32 },
    /// Create the scenario's `topics[index]` (at time 0).
    InitialTopic { index: u32 },
}

/// The rest of a handler that goes on partition by partition (see the
/// module docs). Runs at the same simulated time, before any queued work.
#[derive(Clone)]
pub(crate) enum Continuation {
    /// `becomeLeaderOrFollower`, partition by partition, then the response
    /// (`broker.rs`).
    LeaderAndIsr(crate::broker::LeaderAndIsrWork),
    /// The controller's work list: a topic change partition by partition
    /// (`onNewPartitionCreation`), a broker change or controlled shutdown
    /// election by election, then the batch of requests (`controller.rs`).
    Controller(crate::controller::ControllerWork),
}

/// Links between nodes: latency, cuts and slow links (turmoil-style faults).
#[derive(Clone, Debug, Default)]
pub struct Network {
    pub latency_ms: u64,
    pub zookeeper_latency_ms: u64,
    /// Cut links, as ordered pairs (smaller node first).
    pub cut: SortedSet<(NodeId, NodeId)>,
    /// Extra latency per link (ordered pair).
    pub extra: SortedMap<(NodeId, NodeId), u64>,
    /// Last delivery time per direction, so a link stays FIFO like TCP.
    pub last_delivery: SortedMap<(NodeId, NodeId), Millis>,
}

pub fn link_key(a: NodeId, b: NodeId) -> (NodeId, NodeId) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

impl Network {
    pub fn is_cut(&self, a: NodeId, b: NodeId) -> bool {
        self.cut.contains(&link_key(a, b))
    }

    pub fn latency(&self, a: NodeId, b: NodeId) -> u64 {
        let base = if a == NodeId::ZooKeeper || b == NodeId::ZooKeeper {
            self.zookeeper_latency_ms
        } else {
            self.latency_ms
        };
        base + self.extra.get(&link_key(a, b)).copied().unwrap_or(0)
    }
}

/// The whole simulated system. Cloning it is a checkpoint (segment pages are
/// shared copy-on-write).
#[derive(Clone)]
pub struct World {
    pub(crate) sc: Arc<Scenario>,
    pub(crate) now: Millis,
    pub(crate) rng: Rng,
    queue: std::collections::BTreeMap<(Millis, u64), Work>,
    /// The rest of the handler being run, with the cause it ran under.
    continuation: Option<(Continuation, Option<EventId>)>,
    seq: u64,
    pub(crate) next_message_id: u64,
    emitted: u64,
    budget: Option<u64>,
    frozen: bool,
    /// Steps in a row at `quiet_at` that recorded nothing.
    quiet: u32,
    quiet_at: Millis,
    /// Why the world stopped making progress (see [`MAX_QUIET_STEPS`]).
    halted: Option<String>,
    out: Vec<Event>,
    pub(crate) cause: Option<EventId>,
    /// Each broker behind an `Arc`, so a clone of the world (a checkpoint,
    /// the state shown at an event) shares them and a broker is copied only
    /// when a later step changes it (`Arc::make_mut`).
    pub(crate) brokers: SortedMap<BrokerId, Arc<crate::broker::Broker>>,
    pub(crate) zk: crate::zk::ZooKeeper,
    pub(crate) net: Network,
    pub(crate) producers: Vec<crate::producer::Producer>,
    pub(crate) consumers: Vec<crate::consumer::Consumer>,
    pub(crate) ledger: crate::invariants::Ledger,
}

impl World {
    /// Builds the initial world of a validated scenario: brokers start at time
    /// 0 in the listed order, then the scenario's topics are created, then the
    /// commands run at their times.
    pub fn new(sc: Arc<Scenario>) -> World {
        let mut w = World {
            rng: Rng::new(sc.seed),
            now: 0,
            queue: std::collections::BTreeMap::new(),
            continuation: None,
            seq: 0,
            next_message_id: 0,
            emitted: 0,
            budget: None,
            frozen: false,
            quiet: 0,
            quiet_at: 0,
            halted: None,
            out: Vec::new(),
            cause: None,
            brokers: SortedMap::new(),
            zk: crate::zk::ZooKeeper::default(),
            net: Network {
                latency_ms: sc.cluster.network.latency_ms,
                zookeeper_latency_ms: sc.cluster.network.zookeeper_latency_ms,
                ..Network::default()
            },
            producers: Vec::new(),
            consumers: Vec::new(),
            ledger: Default::default(),
            sc: sc.clone(),
        };
        for id in &sc.cluster.brokers {
            let b = BrokerId(*id);
            w.brokers.insert(b, Arc::new(crate::broker::Broker::new(b)));
            w.schedule(
                0,
                Work::Timer {
                    node: NodeId::Broker(b),
                    incarnation: 0,
                    timer: Timer::BrokerStart,
                    cause: None,
                },
            );
        }
        for i in 0..sc.topics.len() {
            w.schedule(0, Work::InitialTopic { index: i as u32 });
        }
        for (i, p) in sc.producers.iter().enumerate() {
            w.producers
                .push(crate::producer::Producer::new(i as u32, p));
            w.schedule(
                0,
                Work::Timer {
                    node: NodeId::Producer(i as u32),
                    incarnation: 0,
                    timer: Timer::ClientStart,
                    cause: None,
                },
            );
        }
        for (i, c) in sc.consumers.iter().enumerate() {
            w.consumers
                .push(crate::consumer::Consumer::new(i as u32, c));
            w.schedule(
                c.start_at_ms,
                Work::Timer {
                    node: NodeId::Consumer(i as u32),
                    incarnation: 0,
                    timer: Timer::ClientStart,
                    cause: None,
                },
            );
        }
        for (i, c) in sc.commands.iter().enumerate() {
            w.schedule(c.at_ms, Work::Command { index: i as u32 });
        }
        w
    }

    pub fn scenario(&self) -> &Scenario {
        &self.sc
    }

    /// A rough size of a clone of this world in bytes (shared segment pages
    /// excluded), used to bound the timeline's checkpoint memory.
    pub fn approx_clone_bytes(&self) -> u64 {
        let replicas: u64 = self.brokers.values().map(|b| b.logs.len() as u64).sum();
        let partitions: u64 = self
            .brokers
            .values()
            .map(|b| b.partitions.len() as u64)
            .sum();
        4096 + replicas * 1200 + partitions * 400 + self.queue.len() as u64 * 160
    }

    /// Simulated time of the last step, in ms.
    pub fn now(&self) -> Millis {
        self.now
    }

    /// Wall-clock milliseconds (record timestamps, retention).
    pub fn wall_ms(&self) -> i64 {
        self.sc.clock_start_ms + self.now as i64
    }

    /// Events recorded so far (the id of the next one).
    pub fn events_emitted(&self) -> u64 {
        self.emitted
    }

    pub fn is_frozen(&self) -> bool {
        self.frozen
    }

    /// Why the world stopped short of `run_until_ms`, if it did: a timer
    /// that spins at one instant without recording anything (see
    /// [`MAX_QUIET_STEPS`]). A stopped world steps no further.
    pub fn halted(&self) -> Option<&str> {
        self.halted.as_deref()
    }

    pub(crate) fn schedule(&mut self, at: Millis, work: Work) {
        self.queue.insert((at, self.seq), work);
        self.seq += 1;
    }

    /// Schedules a timer outside the gate (used for scheduling-only work that a
    /// gated operation already accounted for).
    pub(crate) fn schedule_work_timer(
        &mut self,
        node: NodeId,
        incarnation: u32,
        timer: Timer,
        at: Millis,
    ) {
        let cause = self.cause;
        self.schedule(
            at,
            Work::Timer {
                node,
                incarnation,
                timer,
                cause,
            },
        );
    }

    /// Leaves the rest of the current handler for the next step (gated: it
    /// records no event, like scheduling a timer).
    pub(crate) fn continue_with(&mut self, k: Continuation) -> Step {
        self.gate()?;
        debug_assert!(self.continuation.is_none(), "one handler at a time");
        self.continuation = Some((k, self.cause));
        Ok(())
    }

    /// Time of the next pending work item.
    pub fn next_time(&self) -> Option<Millis> {
        self.queue.keys().next().map(|(t, _)| *t)
    }

    /// Pending work, in order (for the message-flow view: deliveries in flight).
    pub fn pending(&self) -> impl Iterator<Item = (Millis, &Work)> {
        self.queue.iter().map(|((t, _), w)| (*t, w))
    }

    /// Limits how many events may be recorded in total; beyond it handlers stop.
    pub fn set_budget(&mut self, budget: Option<u64>) {
        self.budget = budget;
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

    /// Takes the events recorded since the last call.
    pub fn drain_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.out)
    }

    pub(crate) fn incarnation(&self, node: NodeId) -> u32 {
        match node {
            NodeId::Broker(b) => self.brokers.get(&b).map(|b| b.incarnation).unwrap_or(0),
            _ => 0,
        }
    }

    pub(crate) fn node_alive(&self, node: NodeId) -> bool {
        match node {
            NodeId::Broker(b) => self.brokers.get(&b).is_some_and(|b| b.alive),
            NodeId::Consumer(c) => self.consumers.get(c as usize).is_some_and(|c| c.alive),
            _ => true,
        }
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
        let mut at = self.now + self.net.latency(from, to);
        if let Some(last) = self.net.last_delivery.get(&(from, to)) {
            at = at.max(*last);
        }
        self.net.last_delivery.insert((from, to), at);
        let ev_id = self.emitted;
        self.schedule(
            at,
            Work::Deliver {
                id,
                from,
                to,
                to_incarnation: self.incarnation(to),
                msg: msg.clone(),
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
        let cause = self.cause;
        self.schedule(
            at,
            Work::Timer {
                node,
                incarnation,
                timer,
                cause,
            },
        );
        Ok(())
    }

    /// Runs one work item. Returns false when nothing is left before
    /// `run_until_ms`. After `Frozen` the world is marked frozen.
    pub fn step(&mut self) -> bool {
        assert!(!self.frozen, "a frozen world is for display only");
        if let Some((k, cause)) = self.continuation.take() {
            self.cause = cause;
            let done = match k {
                Continuation::LeaderAndIsr(k) => self.broker_leader_and_isr_next(k),
                Continuation::Controller(k) => self.controller_work_next(k),
            };
            if done.is_err() {
                self.frozen = true;
            }
            self.cause = None;
            return true;
        }
        let Some((&(t, seq), _)) = self.queue.iter().next() else {
            return false;
        };
        if t > self.sc.run_until_ms {
            return false;
        }
        if self.halted.is_some() {
            return false;
        }
        let work = self.queue.remove(&(t, seq)).expect("just seen");
        self.now = t;
        let before = self.emitted;
        if self.dispatch(work).is_err() {
            self.frozen = true;
        }
        self.cause = None;
        if self.emitted != before {
            self.quiet = 0;
        } else if self.quiet > 0 && self.quiet_at == t {
            self.quiet += 1;
            if self.quiet > MAX_QUIET_STEPS {
                self.halted = Some(self.stuck_reason());
            }
        } else {
            self.quiet = 1;
            self.quiet_at = t;
        }
        true
    }

    /// What a stuck world says: the instant, and the work that keeps coming
    /// back there (the next pending item, at that same instant).
    fn stuck_reason(&self) -> String {
        let what = match self.queue.iter().next() {
            Some((_, Work::Timer { node, timer, .. })) => {
                format!(
                    "the {} timer of {node} keeps firing at that instant",
                    timer_name(timer)
                )
            }
            Some((_, Work::Deliver { msg, to, .. })) => {
                format!(
                    "{} requests to {to} keep arriving at that instant",
                    msg.api()
                )
            }
            Some((_, Work::Command { index })) => format!("commands[{index}] is next"),
            Some((_, Work::InitialTopic { index })) => format!("topics[{index}] is next"),
            None => "nothing is left to run".to_string(),
        };
        format!(
            "the simulation stopped at {} ms: {} steps in a row at that instant recorded nothing ({what}); a setting of 0 for an interval is the usual cause",
            self.now, self.quiet
        )
    }

    fn dispatch(&mut self, work: Work) -> Step {
        match work {
            Work::Command { index } => {
                self.cause = None;
                self.run_command(index)
            }
            Work::InitialTopic { index } => {
                self.cause = None;
                let spec = self.sc.topics[index as usize].clone();
                self.admin_create_topic(&spec, index, true)
            }
            Work::Timer {
                node,
                incarnation,
                timer,
                cause,
            } => {
                if self.incarnation(node) != incarnation && timer != Timer::BrokerStart {
                    return Ok(()); // a timer of a previous life of a restarted broker
                }
                self.cause = cause;
                self.on_timer(node, timer)
            }
            Work::Deliver {
                id,
                from,
                to,
                to_incarnation,
                msg,
                sent,
            } => {
                self.cause = Some(sent);
                if !self.node_alive(to) {
                    self.record(
                        vec![from, to],
                        EventKind::MessageDropped {
                            id,
                            from,
                            to,
                            api: msg.api().to_string(),
                            reason: DropReason::DestinationDown,
                        },
                    )?;
                    return self.on_undeliverable(from, to, &msg);
                }
                if self.incarnation(to) != to_incarnation {
                    self.record(
                        vec![from, to],
                        EventKind::MessageDropped {
                            id,
                            from,
                            to,
                            api: msg.api().to_string(),
                            reason: DropReason::ConnectionReset,
                        },
                    )?;
                    return self.on_undeliverable(from, to, &msg);
                }
                if self.net.is_cut(from, to) {
                    return self
                        .record(
                            vec![from, to],
                            EventKind::MessageDropped {
                                id,
                                from,
                                to,
                                api: msg.api().to_string(),
                                reason: DropReason::LinkCut,
                            },
                        )
                        .map(|_| ());
                }
                self.on_message(from, to, msg)
            }
        }
    }

    fn on_timer(&mut self, node: NodeId, timer: Timer) -> Step {
        match node {
            NodeId::Broker(b) => self.broker_timer(b, timer),
            NodeId::Producer(p) => self.producer_timer(p, timer),
            NodeId::Consumer(c) => self.consumer_timer(c, timer),
            NodeId::ZooKeeper => self.zk_timer(timer),
            NodeId::User => Ok(()),
        }
    }

    fn on_message(&mut self, from: NodeId, to: NodeId, msg: Message) -> Step {
        match to {
            NodeId::Broker(b) => self.broker_on_message(b, from, msg),
            NodeId::Producer(p) => self.producer_on_message(p, from, msg),
            NodeId::Consumer(c) => self.consumer_on_message(c, from, msg),
            _ => Ok(()),
        }
    }

    /// A request could not be delivered because its destination is down: the
    /// sender's connection breaks (a process crash resets TCP connections), so
    /// clients and followers learn at once instead of waiting for a timeout.
    fn on_undeliverable(&mut self, from: NodeId, to: NodeId, msg: &Message) -> Step {
        if !self.node_alive(from) {
            return Ok(());
        }
        match from {
            NodeId::Producer(p) => self.producer_disconnected(p, to, msg),
            NodeId::Consumer(c) => self.consumer_disconnected(c, to, msg),
            NodeId::Broker(b) => self.broker_disconnected(b, to, msg),
            _ => Ok(()),
        }
    }

    /// Applies a link fault (one event).
    pub(crate) fn apply_link(
        &mut self,
        a: NodeId,
        b: NodeId,
        cut: Option<bool>,
        extra: Option<u64>,
    ) -> Step {
        self.gate()?;
        let k = link_key(a, b);
        if let Some(c) = cut {
            if c {
                self.net.cut.insert(k);
            } else {
                self.net.cut.remove(&k);
                self.net.extra.remove(&k);
            }
        }
        if let Some(e) = extra {
            self.net.extra.insert(k, e);
        }
        let kind = EventKind::LinkChanged {
            a,
            b,
            cut: self.net.cut.contains(&k),
            extra_latency_ms: self.net.extra.get(&k).copied().unwrap_or(0),
        };
        self.emit(vec![a, b], kind);
        Ok(())
    }

    pub fn brokers(&self) -> &SortedMap<BrokerId, Arc<crate::broker::Broker>> {
        &self.brokers
    }

    pub fn zookeeper(&self) -> &crate::zk::ZooKeeper {
        &self.zk
    }

    pub fn network(&self) -> &Network {
        &self.net
    }

    pub fn producers(&self) -> &[crate::producer::Producer] {
        &self.producers
    }

    pub fn consumers(&self) -> &[crate::consumer::Consumer] {
        &self.consumers
    }

    pub fn ledger(&self) -> &crate::invariants::Ledger {
        &self.ledger
    }

    /// The controller broker according to ZooKeeper's `/controller`.
    pub fn controller_id(&self) -> Option<BrokerId> {
        self.zk.controller_id()
    }
}

/// A timer's name as written in messages (`ConsumerHeartbeat`).
fn timer_name(t: &Timer) -> String {
    let debug = format!("{t:?}");
    debug
        .split([' ', '{', '('])
        .next()
        .unwrap_or_default()
        .to_string()
}
