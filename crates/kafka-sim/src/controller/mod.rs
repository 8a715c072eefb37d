//! The controller (C1–C5): the one broker that runs the cluster's control
//! plane, as Kafka's ZooKeeper-based `KafkaController` does.
//!
//! * **Election.** Every broker tries to create the ephemeral `/controller`
//!   znode; the first wins, bumps `/controller_epoch`, and loads the cluster's
//!   state from ZooKeeper. When it dies, its znode vanishes with its session,
//!   every broker's watch fires, and the race runs again. Requests carry the
//!   controller epoch; brokers ignore a stale controller (fencing).
//! * **Broker changes.** A watch on `/brokers/ids` tells the controller who
//!   joined or left. A dead leader's partitions get a new leader
//!   (`OfflinePartitionLeaderElectionStrategy`); a dead follower leaves the ISR
//!   (the ZooKeeper controller bumps the leader epoch when it does this).
//! * **Topics.** A watch on `/brokers/topics` reports new topics; each new
//!   partition's leader is the first live replica and its ISR the live replicas.
//! * **ISR changes** from leaders arrive as `AlterPartition` (KIP-497) and are
//!   written to the partition's state znode (its version is the partition epoch).
//! * **Preferred leaders.** By command, or every
//!   `leader.imbalance.check.interval.seconds` when
//!   `auto.leader.rebalance.enable`, for brokers whose imbalance passes
//!   `leader.imbalance.per.broker.percentage`.
//! * **Controlled shutdown** moves leaderships off a stopping broker first.
//!
//! Every decision writes ZooKeeper first, then tells brokers with
//! `LeaderAndIsr` (the replicas) and `UpdateMetadata` (everyone).
//!
//! Layout, after Kafka's classes: this file is `KafkaController` (election of
//! the controller, failover, ZooKeeper watches, broker changes, the work list
//! and the request batch, `ControllerChannelManager`'s role); `election.rs`
//! is the partition and replica state machines; `topics.rs` topic creation
//! and changes; `reassignment.rs` partition reassignment; `shutdown.rs`
//! controlled shutdown.

use crate::broker::Broker;
use crate::broker::BrokerCx;
use crate::broker::Continuation;
use crate::collections::{SortedMap, SortedSet};
use crate::election::{elect, ElectionAlgorithm, ElectionInput};
use crate::event::EventKind;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::kernel::{Step, Timer};
use crate::msg::{ErrorCode, Message, PartitionState};
use crate::zk::{partition_state_json, partition_state_path};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::sync::Arc;

mod election;
use election::IsrChange;
mod reassignment;
mod shutdown;
mod topics;

/// A partition's leader and ISR as the controller knows them (`LeaderIsrAndControllerEpoch`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaderIsr {
    /// The leader (-1: none).
    pub leader: i32,
    /// The leader epoch.
    pub leader_epoch: i32,
    /// The in-sync replicas.
    pub isr: Vec<BrokerId>,
    /// The epoch of the controller that wrote it.
    pub controller_epoch: i32,
    /// The state znode's version.
    pub partition_epoch: i32,
}

/// The controller's in-memory view (`ControllerContext`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControllerContext {
    /// The controller's epoch.
    pub epoch: i32,
    /// The brokers registered in `/brokers/ids`.
    pub live: SortedSet<BrokerId>,
    /// Broker epochs (KIP-380): the czxid of each live broker's registration,
    /// so a broker that restarted between two looks is recognised.
    pub broker_epochs: SortedMap<BrokerId, u64>,
    /// Brokers in a controlled shutdown.
    pub shutting_down: SortedSet<BrokerId>,
    /// Each partition's assigned replicas (AR), preferred leader first.
    pub assignments: SortedMap<TopicPartition, Vec<BrokerId>>,
    /// Each partition's leader and ISR, as in its state znode.
    pub states: SortedMap<TopicPartition, LeaderIsr>,
    /// The topics it knows.
    pub topics: SortedSet<String>,
    /// Reassignments in progress: partition → (original replicas, target replicas).
    pub reassigning: SortedMap<TopicPartition, (Vec<BrokerId>, Vec<BrokerId>)>,
}

/// Requests to send once a decision is written (`ControllerBrokerRequestBatch`).
#[derive(Clone, Default)]
pub(crate) struct Batch {
    leader_and_isr: SortedMap<BrokerId, Vec<Arc<PartitionState>>>,
    metadata: SortedSet<TopicPartition>,
    all_metadata: bool,
    /// The state last added, to share with the next replica's request when
    /// it is the same (the callers add one partition's state to each of its
    /// replicas in turn). At 1,000 brokers and replication factor 30, a batch
    /// creating 29,950 partitions held 900,000 states of 30-broker lists,
    /// copied into every checkpoint taken while the controller worked.
    last: Option<Arc<PartitionState>>,
}

impl Batch {
    pub(crate) fn is_empty(&self) -> bool {
        self.leader_and_isr.is_empty() && self.metadata.is_empty() && !self.all_metadata
    }
}

/// One item of the controller's work list (see [`ControllerWork`]).
#[derive(Clone)]
pub(crate) enum ControllerOp {
    /// `onNewPartitionCreation` for a topic: watch and record it if it is
    /// new, then expands into one `NewPartition` per partition in its
    /// assignment and a `TopicDone`.
    StartTopic {
        topic: String,
        watch: bool,
    },
    /// NewPartition → OnlinePartition, unless the controller knows it.
    NewPartition {
        tp: TopicPartition,
        replicas: Vec<BrokerId>,
    },
    /// The topic's metadata goes out with the batch.
    TopicDone(String),
    /// Elect a leader if the partition is offline (`OfflinePartitionLeaderElectionStrategy`).
    ElectOffline(TopicPartition),
    Elect(TopicPartition, ElectionAlgorithm),
    /// `dead` leaves every ISR it is in: expands, when reached, into one
    /// `RemoveOne` per partition.
    RemoveFromIsr {
        dead: BrokerId,
        reason: &'static str,
    },
    RemoveOne {
        tp: TopicPartition,
        st: LeaderIsr,
        dead: BrokerId,
        reason: &'static str,
    },
    /// A controlled shutdown: the broker leaves the ISR of a partition it follows.
    ShutdownLeaveIsr {
        tp: TopicPartition,
        s: BrokerId,
    },
    /// `onBrokerStartup`: LeaderAndIsr for the newcomers' replicas, then an
    /// offline election for every partition.
    BrokersStarted(Vec<BrokerId>),
}

/// The rest of a topic change, broker change or controlled shutdown (see
/// [`Continuation`](crate::broker::Continuation)).
#[derive(Clone)]
pub(crate) struct ControllerWork {
    c: BrokerId,
    ops: VecDeque<ControllerOp>,
    batch: Batch,
    /// Answer this broker's ControlledShutdown after the batch is sent.
    shutdown_reply: Option<BrokerId>,
}

impl ControllerWork {
    /// The controller doing the work.
    pub(crate) fn broker(&self) -> BrokerId {
        self.c
    }

    /// A rough size of a clone: its work list (an item with its replica
    /// list), and its batch's entries (the states they point to are shared
    /// between clones).
    pub(crate) fn approx_bytes(&self) -> u64 {
        let requests: usize = self
            .batch
            .leader_and_isr
            .values()
            .map(|v| 24 + v.len() * 8)
            .sum();
        (self.ops.len() * 96 + requests + self.batch.metadata.len() * 24) as u64
    }
}

impl ControllerWork {
    fn new(c: BrokerId, ops: VecDeque<ControllerOp>) -> ControllerWork {
        ControllerWork {
            c,
            ops,
            batch: Batch::default(),
            shutdown_reply: None,
        }
    }
}

fn zk_partition_state(zk: &crate::zk::ZooKeeper, tp: &TopicPartition) -> Option<LeaderIsr> {
    let path = partition_state_path(&tp.topic, tp.partition);
    let node = zk.get(&path)?;
    let v: serde_json::Value = serde_json::from_str(&node.data).ok()?;
    Some(LeaderIsr {
        leader: v.get("leader")?.as_i64()? as i32,
        leader_epoch: v.get("leader_epoch")?.as_i64()? as i32,
        isr: v
            .get("isr")?
            .as_array()?
            .iter()
            .filter_map(|x| x.as_i64())
            .map(|x| BrokerId(x as i32))
            .collect(),
        controller_epoch: v.get("controller_epoch")?.as_i64()? as i32,
        partition_epoch: node.version,
    })
}

impl BrokerCx<'_> {
    /// The controller's state (this broker is the controller).
    fn ctl(&self) -> &ControllerContext {
        self.me()
            .controller
            .as_ref()
            .expect("this broker is the controller")
    }

    fn ctl_mut(&mut self) -> &mut ControllerContext {
        self.me_mut()
            .controller
            .as_mut()
            .expect("this broker is the controller")
    }
}

impl BrokerCx<'_> {
    pub(crate) fn is_controller(&self) -> bool {
        self.me().is_active_controller()
    }

    /// Tries to win `/controller` (at startup, or when the znode disappears).
    pub(crate) fn controller_try_elect(&mut self) -> Step {
        let b = self.id;
        self.zkc().watch(b, "/controller")?;
        if self.zk.get("/controller").is_some() {
            let holder = self.zk.controller_id();
            if holder != Some(b) {
                self.zkc()
                    .create(NodeId::Broker(b), "/controller", String::new(), Some(b))?;
            }
            return Ok(());
        }
        let data = format!(
            "{{\"version\":2,\"brokerid\":{},\"timestamp\":\"{}\",\"kraftControllerEpoch\":-1}}",
            b.0,
            self.k.wall_ms()
        );
        if !self
            .zkc()
            .create(NodeId::Broker(b), "/controller", data, Some(b))?
        {
            return Ok(());
        }
        let epoch = self.zk.controller_epoch() + 1;
        self.zkc()
            .set(NodeId::Broker(b), "/controller_epoch", epoch.to_string())?;
        self.k.gate()?;
        self.me_mut().controller = Some(ControllerContext {
            epoch,
            ..Default::default()
        });
        self.k.emit(
            vec![NodeId::Broker(b)],
            EventKind::ControllerElected { broker: b, epoch },
        );
        self.on_controller_failover()
    }

    /// `onControllerFailover`: load everything from ZooKeeper, then bring every
    /// partition online and tell every broker.
    fn on_controller_failover(&mut self) -> Step {
        let c = self.id;
        for p in [
            "/brokers/ids",
            "/brokers/topics",
            "/admin/reassign_partitions",
        ] {
            self.zkc().watch(c, p)?;
        }
        let live: SortedSet<BrokerId> = SortedSet::from_iter(self.zk.live_brokers());
        let epochs = self.zk.live_broker_epochs();
        let mut assignments = SortedMap::new();
        let mut states = SortedMap::new();
        let mut topics = SortedSet::new();
        for t in self.zk.children("/brokers/topics") {
            self.zkc().watch(c, &format!("/brokers/topics/{t}"))?;
            topics.insert(t.clone());
            // One shared name for all the topic's partitions: comparing two
            // of them (map lookups everywhere) then skips the bytes.
            let name: Arc<str> = Arc::from(t.as_str());
            for (p, reps) in self.zk.topic_assignment(&t) {
                let tp = TopicPartition::new(name.clone(), p);
                if let Some(st) = zk_partition_state(self.zk, &tp) {
                    states.insert(tp.clone(), st);
                }
                assignments.insert(tp, reps);
            }
        }
        let epoch = self.ctl().epoch;
        self.k.gate()?;
        let n = assignments.len() as u32;
        {
            let ctx = self.ctl_mut();
            ctx.live = live.clone();
            ctx.broker_epochs = epochs;
            ctx.assignments = assignments;
            ctx.states = states;
            ctx.topics = topics;
        }
        self.k.emit(
            vec![NodeId::Broker(c)],
            EventKind::ControllerLoaded {
                broker: c,
                epoch,
                live_brokers: live.iter().copied().collect(),
                partitions: n,
            },
        );
        let mut batch = Batch {
            all_metadata: true,
            ..Default::default()
        };
        // replicaStateMachine.startup: every live replica of an online partition
        // hears the current state from the new controller.
        let parts: Vec<TopicPartition> = self.ctl().assignments.keys().cloned().collect();
        for tp in &parts {
            let (ar, st) = {
                let ctx = self.ctl();
                (ctx.assignments[tp].clone(), ctx.states.get(tp).cloned())
            };
            match st {
                None => self.controller_init_partition(tp, &mut batch)?,
                Some(st) if st.leader >= 0 && live.contains(&BrokerId(st.leader)) => {
                    for r in ar.iter().filter(|r| live.contains(r)) {
                        self.batch_leader_and_isr(&mut batch, *r, tp, false);
                    }
                }
                Some(_) => {}
            }
        }
        // partitionStateMachine.startup: offline partitions get a leader.
        self.controller_elect_offline(&parts, &mut batch)?;
        // Replicas on brokers that are gone leave the ISR.
        let dead_in_isr: Vec<BrokerId> = {
            let ctx = self.ctl();
            SortedSet::from_iter(
                ctx.states
                    .values()
                    .flat_map(|s| s.isr.iter().copied())
                    .filter(|b| !live.contains(b)),
            )
            .into_iter()
            .collect()
        };
        for d in dead_in_isr {
            self.controller_remove_from_isr(
                d,
                &mut batch,
                "its broker is not registered in ZooKeeper",
            )?;
        }
        self.controller_flush(batch)?;
        if self.k.sc.cluster.config.auto_leader_rebalance_enable {
            let at = self.k.now
                + self
                    .k
                    .sc
                    .cluster
                    .config
                    .leader_imbalance_check_interval_seconds
                    * 1000;
            self.k
                .set_timer(NodeId::Broker(c), at, Timer::AutoLeaderRebalance)?;
        }
        Ok(())
    }

    fn partition_state_msg(&self, tp: &TopicPartition, is_new: bool) -> PartitionState {
        let ctx = self.ctl();
        let st = &ctx.states[tp];
        PartitionState {
            tp: tp.clone(),
            controller_epoch: st.controller_epoch,
            leader: st.leader,
            leader_epoch: st.leader_epoch,
            isr: st.isr.clone(),
            partition_epoch: st.partition_epoch,
            replicas: ctx.assignments[tp].clone(),
            adding_replicas: ctx
                .reassigning
                .get(tp)
                .map(|(original, target)| {
                    target
                        .iter()
                        .copied()
                        .filter(|r| !original.contains(r))
                        .collect()
                })
                .unwrap_or_default(),
            is_new,
        }
    }

    fn batch_leader_and_isr(
        &self,
        batch: &mut Batch,
        to: BrokerId,
        tp: &TopicPartition,
        is_new: bool,
    ) {
        let s = self.partition_state_msg(tp, is_new);
        let s = match batch.last.take() {
            Some(last) if *last == s => last,
            _ => Arc::new(s),
        };
        batch.last = Some(Arc::clone(&s));
        let v = batch.leader_and_isr.entry(to).or_default();
        v.retain(|x| &x.tp != tp);
        v.push(s);
        batch.metadata.insert(tp.clone());
    }

    /// Writes a partition's new leader and ISR to ZooKeeper and the context.
    fn controller_write_state(
        &mut self,
        tp: &TopicPartition,
        leader: i32,
        leader_epoch: i32,
        isr: Vec<BrokerId>,
    ) -> Step<i32> {
        let c = self.id;
        let epoch = self.ctl().epoch;
        let path = partition_state_path(&tp.topic, tp.partition);
        let version = self.zkc().set(
            NodeId::Broker(c),
            &path,
            partition_state_json(leader, leader_epoch, &isr, epoch),
        )?;
        self.k.gate()?;
        self.ctl_mut().states.insert(
            tp.clone(),
            LeaderIsr {
                leader,
                leader_epoch,
                isr,
                controller_epoch: epoch,
                partition_epoch: version,
            },
        );
        Ok(version)
    }

    /// Sends the batched LeaderAndIsr and UpdateMetadata requests.
    pub(crate) fn controller_flush(&mut self, batch: Batch) -> Step {
        let c = self.id;
        if batch.is_empty() {
            return Ok(());
        }
        let epoch = self.ctl().epoch;
        for (to, partitions) in batch.leader_and_isr {
            self.k.send(
                NodeId::Broker(c),
                NodeId::Broker(to),
                Message::LeaderAndIsr {
                    controller_id: c,
                    controller_epoch: epoch,
                    partitions,
                },
            )?;
        }
        let (live, parts): (Vec<BrokerId>, Vec<TopicPartition>) = {
            let ctx = self.ctl();
            let parts = if batch.all_metadata {
                ctx.states.keys().cloned().collect()
            } else {
                batch
                    .metadata
                    .into_iter()
                    .filter(|t| ctx.states.contains_key(t))
                    .collect()
            };
            (ctx.live.iter().copied().collect(), parts)
        };
        // One body for every broker: the trace stores it once.
        let states: Arc<[PartitionState]> = parts
            .iter()
            .map(|tp| self.partition_state_msg(tp, false))
            .collect();
        for to in &live {
            self.k.send(
                NodeId::Broker(c),
                NodeId::Broker(*to),
                Message::UpdateMetadata {
                    controller_id: c,
                    controller_epoch: epoch,
                    live_brokers: live.clone(),
                    partitions: Arc::clone(&states),
                },
            )?;
        }
        Ok(())
    }

    /// A watch fired on a broker that is (or may become) the controller.
    pub(crate) fn controller_on_watch(&mut self, path: &str) -> Step {
        let b = self.id;
        if path == "/controller" {
            if self.zk.get("/controller").is_none() {
                if self.me().controller.is_some() {
                    // We lost our own znode (session trouble): resign.
                    self.k.gate()?;
                    self.me_mut().controller = None;
                    self.k.emit(
                        vec![NodeId::Broker(b)],
                        EventKind::ControllerMoved {
                            broker: b,
                            new_controller: -1,
                        },
                    );
                }
                return self.controller_try_elect();
            }
            if self.me().controller.is_some() && self.zk.controller_id() != Some(b) {
                self.k.gate()?;
                self.me_mut().controller = None;
                let now = self.zk.controller_id().map(|x| x.0).unwrap_or(-1);
                self.k.emit(
                    vec![NodeId::Broker(b)],
                    EventKind::ControllerMoved {
                        broker: b,
                        new_controller: now,
                    },
                );
            }
            return Ok(());
        }
        if !self.is_controller() {
            return Ok(());
        }
        if path == "/brokers/ids" {
            return self.controller_on_broker_change();
        }
        if path == "/brokers/topics" {
            return self.controller_on_topic_change();
        }
        if path == "/admin/reassign_partitions" {
            return self.controller_on_reassign_request();
        }
        if let Some(topic) = path.strip_prefix("/brokers/topics/") {
            if !topic.contains('/') {
                let topic = topic.to_string();
                return self.controller_on_partition_modification(&topic);
            }
        }
        Ok(())
    }

    fn controller_on_broker_change(&mut self) -> Step {
        let c = self.id;
        let now_epochs = self.zk.live_broker_epochs();
        let now_live: SortedSet<BrokerId> = SortedSet::from_iter(now_epochs.keys().copied());
        let (old, old_epochs) = {
            let ctx = self.ctl();
            (ctx.live.clone(), ctx.broker_epochs.clone())
        };
        // A broker whose registration is newer than the one we knew restarted
        // in between (KIP-380): it is handled as a failure and a startup.
        let bounced: Vec<BrokerId> = now_live
            .intersection(&old)
            .copied()
            .filter(|b| now_epochs.get(b) > old_epochs.get(b))
            .collect();
        let mut added: Vec<BrokerId> = now_live.difference(&old).copied().collect();
        let mut removed: Vec<BrokerId> = old.difference(&now_live).copied().collect();
        if added.is_empty() && removed.is_empty() && bounced.is_empty() {
            return Ok(());
        }
        self.k.gate()?;
        {
            let ctx = self.ctl_mut();
            ctx.live = now_live.clone();
            ctx.broker_epochs = now_epochs;
            for r in removed.iter().chain(&bounced) {
                ctx.shutting_down.remove(r);
            }
        }
        self.k.emit(
            vec![NodeId::Broker(c)],
            EventKind::BrokerChangeNoticed {
                controller: c,
                added: added.clone(),
                removed: removed.clone(),
                bounced: bounced.clone(),
            },
        );
        removed.extend(bounced.iter().copied());
        added.extend(bounced.iter().copied());
        let mut ops = VecDeque::new();
        if !removed.is_empty() {
            // onBrokerFailure → onReplicasBecomeOffline: elect first, then shrink ISRs.
            let parts = self.ctl().assignments.keys().cloned();
            ops.extend(parts.map(ControllerOp::ElectOffline));
            ops.extend(removed.iter().map(|d| ControllerOp::RemoveFromIsr {
                dead: *d,
                reason: "died (its ZooKeeper session ended)",
            }));
        }
        if !added.is_empty() {
            ops.push_back(ControllerOp::BrokersStarted(added));
        }
        self.controller_work_next(ControllerWork::new(c, ops))
    }

    /// One partition of the controller's work list (partitions with nothing
    /// to do are passed over in the same step); the step after the last
    /// sends the batched requests (and, for a controlled shutdown, the reply).
    pub(crate) fn controller_work_next(&mut self, mut k: ControllerWork) -> Step {
        let c = k.c;
        while let Some(op) = k.ops.pop_front() {
            let before = self.k.emitted;
            match op {
                ControllerOp::StartTopic { topic, watch } => {
                    if watch {
                        self.zkc().watch(c, &format!("/brokers/topics/{topic}"))?;
                        self.k.gate()?;
                        self.ctl_mut().topics.insert(topic.clone());
                    }
                    let parts = self.zk.topic_assignment(&topic);
                    let n = parts.len();
                    let name: Arc<str> = Arc::from(topic.as_str());
                    for (i, (p, replicas)) in parts.into_iter().enumerate() {
                        let tp = TopicPartition::new(name.clone(), p);
                        k.ops.insert(i, ControllerOp::NewPartition { tp, replicas });
                    }
                    k.ops.insert(n, ControllerOp::TopicDone(topic));
                }
                ControllerOp::NewPartition { tp, replicas } => {
                    if !self.ctl().assignments.contains_key(&tp) {
                        self.k.gate()?;
                        self.ctl_mut().assignments.insert(tp.clone(), replicas);
                        self.controller_init_partition(&tp, &mut k.batch)?;
                    }
                }
                ControllerOp::TopicDone(topic) => {
                    k.batch
                        .metadata
                        .insert(TopicPartition::new(topic.as_str(), 0));
                }
                ControllerOp::ElectOffline(tp) => {
                    self.controller_elect_offline(std::slice::from_ref(&tp), &mut k.batch)?
                }
                ControllerOp::Elect(tp, algorithm) => {
                    self.controller_elect(&tp, algorithm, &mut k.batch)?;
                }
                ControllerOp::RemoveFromIsr { dead, reason } => {
                    // The partitions are read now, after the elections before it.
                    let parts = self.controller_isr_members(dead);
                    for (i, (tp, st)) in parts.into_iter().enumerate() {
                        k.ops.insert(
                            i,
                            ControllerOp::RemoveOne {
                                tp,
                                st,
                                dead,
                                reason,
                            },
                        );
                    }
                }
                ControllerOp::RemoveOne {
                    tp,
                    st,
                    dead,
                    reason,
                } => self.controller_remove_one(dead, &tp, st, &mut k.batch, reason)?,
                ControllerOp::ShutdownLeaveIsr { tp, s } => {
                    self.controller_shutdown_leave_isr(s, &tp, &mut k.batch)?
                }
                ControllerOp::BrokersStarted(added) => {
                    // onBrokerStartup: tell the newcomer about its replicas, then
                    // bring back partitions that were offline.
                    k.batch.all_metadata = true;
                    let parts: Vec<(TopicPartition, Vec<BrokerId>)> = self
                        .ctl()
                        .assignments
                        .iter()
                        .map(|(t, a)| (t.clone(), a.clone()))
                        .collect();
                    for (tp, ar) in &parts {
                        let has_state = self.ctl().states.contains_key(tp);
                        for a in &added {
                            if ar.contains(a) && has_state {
                                self.batch_leader_and_isr(&mut k.batch, *a, tp, false);
                            }
                        }
                    }
                    for (i, (tp, _)) in parts.into_iter().enumerate() {
                        k.ops.insert(i, ControllerOp::ElectOffline(tp));
                    }
                }
            }
            if self.k.emitted > before && !k.ops.is_empty() {
                return self.continue_with(Continuation::Controller(k));
            }
        }
        self.controller_flush(k.batch)?;
        let Some(s) = k.shutdown_reply else {
            return Ok(());
        };
        let remaining: Vec<TopicPartition> = self
            .ctl()
            .states
            .iter()
            .filter(|(_, st)| st.leader == s.0)
            .map(|(tp, _)| tp.clone())
            .collect();
        self.k.send(
            NodeId::Broker(c),
            NodeId::Broker(s),
            Message::ControlledShutdownResponse {
                error: None,
                partitions_remaining: remaining,
            },
        )?;
        Ok(())
    }
}

impl Broker {
    /// Whether this broker currently runs the controller.
    pub fn is_active_controller(&self) -> bool {
        self.alive && self.controller.is_some()
    }
}
