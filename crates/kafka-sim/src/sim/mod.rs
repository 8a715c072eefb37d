//! The world: every node (brokers, ZooKeeper, clients), the invariant
//! ledger, and the kernel (`kernel.rs`: the clock, a queue of pending work
//! ordered by `(time, sequence)`, the RNG, the network, and the one place
//! where events are recorded).
//!
//! [`World::step`] pops the next item (a message delivery, a timer, a
//! scenario command), advances the clock to it and hands it to its node:
//! a client through its handle (`ProducerCx`, `ConsumerCx`: the kernel and
//! that node only), the broker side through its `impl World` handlers.
//! Handlers never mutate state directly: each change goes through a small
//! *apply* operation that first passes the kernel's gate and then records
//! exactly one event, so the trace is complete by construction ("nothing
//! happens off the record").
//!
//! The gate is also how the timeline shows the state *at* any event: run with
//! a budget of `n` events and the handler that would record event `n + 1`
//! stops (with [`Frozen`]) before changing anything; the world then is exactly
//! the state after event `n`, even in the middle of a handler. A frozen world
//! is for display only and is never stepped again.
//!
//! A handler that walks hundreds of partitions (the controller creating a
//! 1,000-partition topic, a broker applying a LeaderAndIsr for 300 replicas)
//! does not do it in one step: it leaves a `Continuation` that the next
//! steps run one partition at a time, before any other work. The trace is the
//! same as if it had run at once (nothing else can come in between), but every
//! partition ends a step, so the timeline can resume between any two of them
//! instead of replaying the whole handler to show one event in its middle.

use crate::collections::SortedMap;
use crate::event::{DropReason, Event, EventKind};
use crate::ids::{BrokerId, Millis, NodeId, TopicPartition};
pub use crate::kernel::{link_key, Frozen, Network, Step, Timer, Work};
use crate::msg::Message;
use crate::scenario::Scenario;
use std::sync::Arc;

mod commands;
mod pipeline;

pub(crate) use crate::broker::Continuation;
pub(crate) use crate::kernel::Kernel;
/// How many steps in a row may run work *made at the instant they run* and
/// record nothing before the world stops as stuck. A timer that keeps
/// setting itself for the same instant (an interval of 0) records nothing
/// and would otherwise spin forever, so the event cap would never stop it.
/// Work queued before the clock reached the instant (a large cluster's
/// hundreds of thousands of fetch responses due at one millisecond) is a
/// finite backlog, however long: draining it is progress, and it never
/// counts here. Only work the instant keeps making for itself can loop.
pub const MAX_QUIET_STEPS: u32 = 100_000;

/// The whole simulated system. Cloning it is a checkpoint (segment pages are
/// shared copy-on-write).
#[derive(Clone)]
pub struct World {
    k: Kernel,
    /// The rest of the handler being run (a broker's; see the module docs),
    /// with the cause it ran under.
    continuation: Option<(Continuation, Option<crate::event::EventId>)>,
    frozen: bool,
    /// Steps in a row at `quiet_at` that ran work made at that instant
    /// and recorded nothing (see [`MAX_QUIET_STEPS`]).
    quiet: u32,
    quiet_at: Millis,
    /// The first sequence number of work queued at `quiet_at` or later:
    /// items below it were queued before the instant began.
    quiet_seq: u64,
    /// Why the world stopped making progress (see [`MAX_QUIET_STEPS`]).
    halted: Option<String>,
    /// Each broker behind an `Arc`, so a clone of the world (a checkpoint,
    /// the state shown at an event) shares them and a broker is copied only
    /// when a later step changes it (`Arc::make_mut`).
    brokers: SortedMap<BrokerId, Arc<crate::broker::Broker>>,
    /// Shared by clones like the brokers, copied when a step writes to it
    /// (thousands of znodes at scale, and most steps only read them).
    zk: Arc<crate::zk::ZooKeeper>,
    /// Kafka 4.1: the KRaft controllers, by `node.id`.
    controllers: SortedMap<i32, Arc<crate::kraft::Controller>>,
    producers: Vec<Arc<crate::producer::Producer>>,
    consumers: Vec<Arc<crate::consumer::Consumer>>,
    ledger: crate::invariants::Ledger,
    /// What Kafka's meters and client sensors have counted (see [`crate::metrics`]).
    metrics: crate::metrics::Recorder,
}

impl World {
    /// Builds the initial world of a validated scenario: brokers start at time
    /// 0 in the listed order, then the scenario's topics are created, then the
    /// commands run at their times.
    pub fn new(sc: Arc<Scenario>) -> World {
        let mut w = World {
            k: Kernel::new(sc.clone()),
            continuation: None,
            frozen: false,
            quiet: 0,
            // No instant yet: the first step begins one.
            quiet_at: Millis::MAX,
            quiet_seq: 0,
            halted: None,
            brokers: SortedMap::new(),
            zk: Default::default(),
            controllers: SortedMap::new(),
            producers: Vec::new(),
            consumers: Vec::new(),
            ledger: Default::default(),
            metrics: Default::default(),
        };
        let kraft = sc.kafka_version.is_kraft();
        let voters = sc.cluster.controllers.clone();
        // Kafka 4.1: the controllers start first, then the brokers.
        for id in &voters {
            w.controllers.insert(
                *id,
                Arc::new(crate::kraft::Controller::new(*id, voters.clone())),
            );
            w.k.schedule(
                0,
                Work::Timer {
                    node: NodeId::Controller(*id),
                    incarnation: 0,
                    timer: Timer::BrokerStart,
                    cause: None,
                },
            );
        }
        for id in &sc.cluster.brokers {
            let b = BrokerId(*id);
            let mut broker = crate::broker::Broker::new(b);
            if kraft {
                broker.kraft = Some(crate::broker::lifecycle::BrokerKraft::new(
                    *id,
                    voters.clone(),
                ));
            }
            w.brokers.insert(b, Arc::new(broker));
            w.k.schedule(
                0,
                Work::Timer {
                    node: NodeId::Broker(b),
                    incarnation: 0,
                    timer: Timer::BrokerStart,
                    cause: None,
                },
            );
        }
        // With KRaft the active controller creates them once the brokers
        // are unfenced (`kraft/replication.rs`).
        for i in 0..sc.topics.len() {
            if !kraft {
                w.k.schedule(0, Work::InitialTopic { index: i as u32 });
            }
        }
        for (i, p) in sc.producers.iter().enumerate() {
            w.producers
                .push(Arc::new(crate::producer::Producer::new(i as u32, p)));
            w.k.schedule(
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
                .push(Arc::new(crate::consumer::Consumer::new(i as u32, c)));
            w.k.schedule(
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
            w.k.schedule(c.at_ms, Work::Command { index: i as u32 });
        }
        w
    }

    /// The scenario this world runs.
    pub fn scenario(&self) -> &Scenario {
        &self.k.sc
    }

    /// A rough size of a clone of this world in bytes (shared segment pages
    /// excluded), used to bound the timeline's checkpoint memory: the
    /// brokers' partitions and replicas, the queued work, and the metrics
    /// recorder (which at 100 brokers and 1,600 consumers is megabytes),
    /// and what a handler that goes on over steps has left (a controller
    /// creating 29,950 partitions holds its work list and batch).
    /// A queued item counts 48 bytes, not its size: the items due at one
    /// instant share one bucket with clones until the head changes it. (At
    /// 40 groups of 40, 276,000 items queued, a checkpoint costs about 22 MB
    /// measured and this says 36; at 160 bytes an item it said 67.)
    pub fn approx_clone_bytes(&self) -> u64 {
        let replicas: u64 = self.brokers.values().map(|b| b.logs.len() as u64).sum();
        let partitions: u64 = self
            .brokers
            .values()
            .map(|b| b.partitions.len() as u64)
            .sum();
        4096 + replicas * 1200
            + partitions * 400
            + self.k.queue.len() as u64 * 48
            + self.metrics.approx_bytes()
            + self
                .continuation
                .as_ref()
                .map_or(0, |(c, _)| c.approx_bytes())
    }

    /// Items of work queued: messages in flight, timers set, commands to come.
    pub fn pending_work(&self) -> usize {
        self.k.queue.len()
    }

    /// How many messages are on the wire (the [`Work::Deliver`] items of
    /// [`World::pending`]).
    pub fn messages_in_flight(&self) -> usize {
        self.k.queue.deliveries()
    }

    /// Simulated time of the last step, in ms.
    pub fn now(&self) -> Millis {
        self.k.now
    }

    /// Wall-clock milliseconds (record timestamps, retention).
    pub fn wall_ms(&self) -> i64 {
        self.k.wall_ms()
    }

    /// Events recorded so far (the id of the next one).
    pub fn events_emitted(&self) -> u64 {
        self.k.emitted
    }

    /// Whether the world stopped at its event budget (display only: never stepped again).
    pub fn is_frozen(&self) -> bool {
        self.frozen
    }

    /// Why the world stopped short of `run_until_ms`, if it did: a timer
    /// that spins at one instant without recording anything (see
    /// [`MAX_QUIET_STEPS`]). A stopped world steps no further.
    pub fn halted(&self) -> Option<&str> {
        self.halted.as_deref()
    }

    /// Time of the next pending work item (now, while a handler split
    /// over steps has more to run).
    pub fn next_time(&self) -> Option<Millis> {
        if self.continuation.is_some() {
            return Some(self.k.now);
        }
        self.k.queue.first().map(|((t, _), _)| t)
    }

    /// Pending work, in order (for the message-flow view: deliveries in flight).
    pub fn pending(&self) -> impl Iterator<Item = (Millis, &Work)> {
        self.k.queue.iter().map(|((t, _), w)| (t, w))
    }

    /// Limits how many events may be recorded in total; beyond it handlers stop.
    pub fn set_budget(&mut self, budget: Option<u64>) {
        self.k.budget = budget;
    }

    /// Takes the events recorded since the last call.
    pub fn drain_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.k.out)
    }

    /// A producer's handle: the kernel, the ledger's check and that producer
    /// alone (see [`crate::producer::ProducerCx`]).
    pub(crate) fn producer_cx(&mut self, p: u32) -> crate::producer::ProducerCx<'_> {
        crate::producer::ProducerCx {
            k: &mut self.k,
            audit: crate::broker::audit::Audit::new(
                &mut self.ledger,
                crate::broker::audit::BrokerView::all(&self.brokers),
            ),
            id: p,
            me: &mut self.producers[p as usize],
        }
    }

    /// A consumer's handle: the kernel, the other consumers lent to the
    /// single-owner check, and that consumer alone (see
    /// [`crate::consumer::ConsumerCx`]).
    pub(crate) fn consumer_cx(&mut self, c: u32) -> crate::consumer::ConsumerCx<'_> {
        let (audit, me) = crate::consumer::audit::ConsumerAudit::split(
            &mut self.consumers,
            c as usize,
            crate::broker::audit::BrokerView::all(&self.brokers),
            &mut self.ledger,
        );
        crate::consumer::ConsumerCx {
            k: &mut self.k,
            audit,
            id: c,
            me,
        }
    }

    pub(crate) fn node_alive(&self, node: NodeId) -> bool {
        match node {
            NodeId::Broker(b) => self.brokers.get(&b).is_some_and(|b| b.alive),
            NodeId::Consumer(c) => self.consumers.get(c as usize).is_some_and(|c| c.alive),
            NodeId::Controller(c) => self.controllers.get(&c).is_some_and(|c| c.alive),
            _ => true,
        }
    }

    /// Whether `to` accepts a request from `from` (answers come back over
    /// connections it opened itself): a KRaft broker opens
    /// its listeners (but the controller's) only once it was first
    /// unfenced, RUNNING (`BrokerServer.startup`, 4.1.0 lines 640-660:
    /// `enableRequestProcessing` after waiting to be unfenced).
    fn listening(&self, to: NodeId, from: NodeId) -> bool {
        let NodeId::Broker(b) = to else {
            return true;
        };
        if matches!(from, NodeId::Controller(_)) {
            return true;
        }
        self.brokers
            .get(&b)
            .and_then(|b| b.kraft.as_ref())
            .is_none_or(|k| k.listening)
    }

    /// Runs one work item. Returns false when nothing is left before
    /// `run_until_ms`. After `Frozen` the world is marked frozen.
    pub fn step(&mut self) -> bool {
        let first = self.k.out.len();
        let ran = self.step_inner();
        if self.k.out.len() > first {
            // The recorder sees the world after the step (a retried batch
            // is back in its queue): moved out while it reads the rest.
            let mut m = std::mem::take(&mut self.metrics);
            for e in &self.k.out[first..] {
                m.observe(e, self);
            }
            self.metrics = m;
        }
        ran
    }

    /// What the metrics have counted up to now (see [`crate::metrics::read`]).
    pub fn metrics(&self) -> &crate::metrics::Recorder {
        &self.metrics
    }

    fn step_inner(&mut self) -> bool {
        assert!(!self.frozen, "a frozen world is for display only");
        if let Some((k, cause)) = self.continuation.take() {
            self.k.cause = cause;
            let done = match k {
                Continuation::LeaderAndIsr(k) => self.bcx(k.broker()).broker_leader_and_isr_next(k),
                Continuation::Controller(k) => self.bcx(k.broker()).controller_work_next(k),
            };
            if done.is_err() {
                self.frozen = true;
            }
            self.k.cause = None;
            return true;
        }
        let Some(((t, seq), _)) = self.k.queue.first() else {
            return false;
        };
        if t > self.k.sc.run_until_ms {
            return false;
        }
        if self.halted.is_some() {
            return false;
        }
        let work = self.k.take((t, seq)).expect("just seen");
        if self.quiet_at != t {
            // A new instant: everything queued so far was made before it.
            self.quiet_at = t;
            self.quiet_seq = self.k.next_seq();
            self.quiet = 0;
        }
        self.k.now = t;
        let before = self.k.emitted;
        if self
            .dispatch(work)
            .and_then(|_| self.run_pipeline_calls())
            .is_err()
        {
            self.frozen = true;
        }
        self.k.cause = None;
        if self.k.emitted != before {
            self.quiet = 0;
        } else if seq >= self.quiet_seq {
            self.quiet += 1;
            if self.quiet > MAX_QUIET_STEPS {
                self.halted = Some(self.stuck_reason());
            }
        }
        true
    }

    /// What a stuck world says: the instant, and the work that keeps coming
    /// back there (the next pending item, at that same instant).
    fn stuck_reason(&self) -> String {
        let what = match self.k.queue.first() {
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
            self.k.now, self.quiet
        )
    }

    fn dispatch(&mut self, work: Work) -> Step {
        match work {
            Work::Command { index } => {
                self.k.cause = None;
                self.run_command(index)
            }
            Work::InitialTopic { index } => {
                self.k.cause = None;
                let spec = self.k.sc.topics[index as usize].clone();
                self.zkc().admin_create_topic(&spec, index, true)
            }
            Work::Timer {
                node,
                incarnation,
                timer,
                cause,
            } => {
                if self.k.incarnation(node) != incarnation && timer != Timer::BrokerStart {
                    return Ok(()); // a timer of a previous life of a restarted broker
                }
                self.k.cause = cause;
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
                self.k.cause = Some(sent);
                // A process that is down, a connection reset by a restart,
                // a KRaft broker not listening yet: the sender learns at once.
                let refused = if !self.node_alive(to) {
                    Some(DropReason::DestinationDown)
                } else if self.k.incarnation(to) != to_incarnation {
                    Some(DropReason::ConnectionReset)
                } else if !msg.is_response() && !self.listening(to, from) {
                    Some(DropReason::NotListening)
                } else {
                    None
                };
                if let Some(reason) = refused {
                    self.k.record(
                        vec![from, to],
                        EventKind::MessageDropped {
                            id,
                            from,
                            to,
                            api: msg.api().to_string(),
                            reason,
                        },
                    )?;
                    return self.on_undeliverable(from, to, &msg);
                }
                if self.k.net.is_cut(from, to) {
                    return self
                        .k
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
                self.on_message(from, to, Arc::unwrap_or_clone(msg))
            }
        }
    }

    /// A broker handler that ended its own process (after a controlled
    /// shutdown, or a start that could not register) left word in the
    /// kernel; its peers' connections to it reset now (a global act).
    fn after_process_exit(&mut self) -> Step {
        match self.k.process_exited.take() {
            Some(NodeId::Broker(x)) => self.broker_connections_reset(x),
            _ => Ok(()),
        }
    }

    fn on_timer(&mut self, node: NodeId, timer: Timer) -> Step {
        match node {
            NodeId::Broker(b) => {
                self.bcx(b).broker_timer(timer)?;
                self.after_process_exit()
            }
            NodeId::Producer(p) => self.producer_cx(p).timer(timer),
            NodeId::Consumer(c) => self.consumer_cx(c).timer(timer),
            NodeId::ZooKeeper => self.zkc().timer(timer),
            NodeId::Controller(c) => self.ccx(c).timer(timer),
            NodeId::User => Ok(()),
        }
    }

    fn on_message(&mut self, from: NodeId, to: NodeId, msg: Message) -> Step {
        match to {
            NodeId::Broker(b) => {
                self.bcx(b).broker_on_message(from, msg)?;
                self.after_process_exit()
            }
            NodeId::Producer(p) => self.producer_cx(p).on_message(from, msg),
            NodeId::Consumer(c) => self.consumer_cx(c).on_message(from, msg),
            NodeId::Controller(c) => self.ccx(c).on_message(from, msg),
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
            NodeId::Producer(p) => self.producer_cx(p).disconnected(to, msg),
            NodeId::Consumer(c) => self.consumer_cx(c).disconnected(to, msg),
            NodeId::Broker(b) => self.bcx(b).broker_disconnected(to, msg),
            NodeId::Controller(c) => self.ccx(c).disconnected(msg),
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
        self.k.gate()?;
        let k = link_key(a, b);
        if let Some(c) = cut {
            if c {
                self.k.net.cut.insert(k);
            } else {
                self.k.net.cut.remove(&k);
                self.k.net.extra.remove(&k);
            }
        }
        if let Some(e) = extra {
            self.k.net.extra.insert(k, e);
        }
        let kind = EventKind::LinkChanged {
            a,
            b,
            cut: self.k.net.cut.contains(&k),
            extra_latency_ms: self.k.net.extra.get(&k).copied().unwrap_or(0),
        };
        self.k.emit(vec![a, b], kind);
        Ok(())
    }

    /// The brokers, by id.
    pub fn brokers(&self) -> &SortedMap<BrokerId, Arc<crate::broker::Broker>> {
        &self.brokers
    }

    /// ZooKeeper's state.
    pub fn zookeeper(&self) -> &crate::zk::ZooKeeper {
        &self.zk
    }

    /// Kafka 4.1: the KRaft controllers, by `node.id` (none in 3.9).
    pub fn controllers(&self) -> &SortedMap<i32, Arc<crate::kraft::Controller>> {
        &self.controllers
    }

    /// Kafka 4.1: the active controller (the quorum leader), if any.
    pub fn active_controller(&self) -> Option<i32> {
        self.controllers
            .values()
            .filter(|c| c.is_active())
            .max_by_key(|c| c.raft.epoch)
            .map(|c| c.id)
    }

    /// The network: links, latencies and faults.
    pub fn network(&self) -> &Network {
        &self.k.net
    }

    /// The producers, in scenario order.
    pub fn producers(&self) -> &[Arc<crate::producer::Producer>] {
        &self.producers
    }

    /// The consumers, in scenario order.
    pub fn consumers(&self) -> &[Arc<crate::consumer::Consumer>] {
        &self.consumers
    }

    /// What the invariant checks remember.
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

impl World {
    /// The handle through which broker `b` handles one work item.
    pub(crate) fn bcx(&mut self, b: BrokerId) -> crate::broker::BrokerCx<'_> {
        let (audit, me) =
            crate::broker::audit::BrokerAudit::split(&mut self.ledger, &mut self.brokers, b);
        crate::broker::BrokerCx {
            k: &mut self.k,
            zk: &mut self.zk,
            id: b,
            me,
            audit,
            next: &mut self.continuation,
        }
    }
}

impl World {
    /// The handle through which controller `c` handles one work item.
    pub(crate) fn ccx(&mut self, c: i32) -> crate::kraft::ControllerCx<'_> {
        crate::kraft::ControllerCx {
            k: &mut self.k,
            ledger: &mut self.ledger.quorum,
            me: self.controllers.get_mut(&c).expect("controller exists"),
        }
    }
}

impl World {
    /// ZooKeeper, for the world's own acts.
    pub(crate) fn zkc(&mut self) -> crate::zk::ZkCx<'_> {
        crate::zk::ZkCx {
            k: &mut self.k,
            zk: Arc::make_mut(&mut self.zk),
        }
    }
}

impl World {
    /// The offsets partition of a group.
    pub fn group_partition(&self, group: &str) -> i32 {
        crate::group::group_partition(&self.k.sc, group)
    }
}

impl World {
    /// The broker currently leading `tp` (alive, with the highest leader epoch).
    pub fn current_leader(&self, tp: &TopicPartition) -> Option<BrokerId> {
        crate::broker::audit::current_leader(
            crate::broker::audit::BrokerView::all(&self.brokers),
            tp,
        )
    }

    /// The always-true invariants over the whole world: `(guarantee,
    /// detail)` for each violation. The property tests call this after
    /// every step.
    pub fn check_invariants(&self) -> Vec<(crate::event::Guarantee, String)> {
        crate::broker::audit::check_brokers(crate::broker::audit::BrokerView::all(&self.brokers))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> World {
        let sc =
            Scenario::from_json(r#"{"seed": 1, "run_until_ms": 100, "cluster": {"brokers": [0]}}"#)
                .unwrap();
        World::new(Arc::new(sc))
    }

    /// Issue 46: a large cluster can have far more than
    /// [`MAX_QUIET_STEPS`] deliveries due at one instant, queued before it
    /// began. Draining them records nothing for each (here: timers of a
    /// previous life of the broker) but is progress, not a loop.
    #[test]
    fn a_busy_instant_queued_before_it_is_not_a_loop() {
        let mut w = world();
        let n = MAX_QUIET_STEPS as usize + 50_000;
        for _ in 0..n {
            w.k.schedule(
                50,
                Work::Timer {
                    node: NodeId::Broker(BrokerId(0)),
                    incarnation: 7,
                    timer: Timer::IsrExpiration,
                    cause: None,
                },
            );
        }
        while w.step() {}
        assert_eq!(w.halted(), None);
        assert!(w.pending().all(|(t, _)| t != 50), "all drained");
    }

    /// Work an instant keeps making for itself and that records nothing is
    /// still stopped (the guard's reason to be).
    #[test]
    fn work_made_again_and_again_at_one_instant_is_stopped() {
        let mut w = world();
        let stale = Work::Timer {
            node: NodeId::Broker(BrokerId(0)),
            incarnation: 7,
            timer: Timer::IsrExpiration,
            cause: None,
        };
        w.k.schedule(50, stale.clone());
        // Each stale timer, once run, queues the next one at the same
        // instant, as an interval of 0 would.
        let mut steps = 0u64;
        while w.next_time().is_some_and(|t| t <= 50) && w.halted().is_none() {
            let at_50 = w.next_time() == Some(50);
            if !w.step() {
                break;
            }
            if at_50 && w.pending().all(|(t, _)| t != 50) {
                w.k.schedule(50, stale.clone());
            }
            steps += 1;
            assert!(steps < 10 * MAX_QUIET_STEPS as u64, "never stopped");
        }
        let why = w.halted().expect("stopped");
        assert!(why.contains("at 50 ms"), "{why}");
    }
}
