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

use crate::broker::Broker;
use crate::collections::{SortedMap, SortedSet};
use crate::election::{elect, ElectionAlgorithm, ElectionInput};
use crate::event::EventKind;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::msg::{ErrorCode, Message, PartitionState};
use crate::sim::{Continuation, Step, Timer, World};
use crate::zk::{partition_state_json, partition_state_path};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// A partition's leader and ISR as the controller knows them (`LeaderIsrAndControllerEpoch`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaderIsr {
    pub leader: i32,
    pub leader_epoch: i32,
    pub isr: Vec<BrokerId>,
    pub controller_epoch: i32,
    /// The state znode's version.
    pub partition_epoch: i32,
}

/// The controller's in-memory view (`ControllerContext`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControllerContext {
    pub epoch: i32,
    pub live: SortedSet<BrokerId>,
    /// Broker epochs (KIP-380): the czxid of each live broker's registration,
    /// so a broker that restarted between two looks is recognised.
    pub broker_epochs: SortedMap<BrokerId, u64>,
    pub shutting_down: SortedSet<BrokerId>,
    pub assignments: SortedMap<TopicPartition, Vec<BrokerId>>,
    pub states: SortedMap<TopicPartition, LeaderIsr>,
    pub topics: SortedSet<String>,
    /// Reassignments in progress: partition → (original replicas, target replicas).
    pub reassigning: SortedMap<TopicPartition, (Vec<BrokerId>, Vec<BrokerId>)>,
}

/// Requests to send once a decision is written (`ControllerBrokerRequestBatch`).
#[derive(Clone, Default)]
pub(crate) struct Batch {
    leader_and_isr: SortedMap<BrokerId, Vec<PartitionState>>,
    metadata: SortedSet<TopicPartition>,
    all_metadata: bool,
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
/// [`Continuation`](crate::sim::Continuation)).
#[derive(Clone)]
pub(crate) struct ControllerWork {
    c: BrokerId,
    ops: VecDeque<ControllerOp>,
    batch: Batch,
    /// Answer this broker's ControlledShutdown after the batch is sent.
    shutdown_reply: Option<BrokerId>,
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

fn ctl(w: &World, c: BrokerId) -> &ControllerContext {
    w.brokers[&c]
        .controller
        .as_ref()
        .expect("this broker is the controller")
}

fn ctl_mut(w: &mut World, c: BrokerId) -> &mut ControllerContext {
    w.brokers
        .get_mut(&c)
        .and_then(|b| std::sync::Arc::make_mut(b).controller.as_mut())
        .expect("this broker is the controller")
}

impl World {
    pub(crate) fn is_controller(&self, b: BrokerId) -> bool {
        self.brokers
            .get(&b)
            .is_some_and(|x| x.alive && x.controller.is_some())
    }

    /// Tries to win `/controller` (at startup, or when the znode disappears).
    pub(crate) fn controller_try_elect(&mut self, b: BrokerId) -> Step {
        self.zk_watch(b, "/controller")?;
        if self.zk.get("/controller").is_some() {
            let holder = self.zk.controller_id();
            if holder != Some(b) {
                self.zk_create(NodeId::Broker(b), "/controller", String::new(), Some(b))?;
            }
            return Ok(());
        }
        let data = format!(
            "{{\"version\":2,\"brokerid\":{},\"timestamp\":\"{}\",\"kraftControllerEpoch\":-1}}",
            b.0,
            self.wall_ms()
        );
        if !self.zk_create(NodeId::Broker(b), "/controller", data, Some(b))? {
            return Ok(());
        }
        let epoch = self.zk.controller_epoch() + 1;
        self.zk_set(NodeId::Broker(b), "/controller_epoch", epoch.to_string())?;
        self.k.gate()?;
        std::sync::Arc::make_mut(self.brokers.get_mut(&b).expect("exists")).controller =
            Some(ControllerContext {
                epoch,
                ..Default::default()
            });
        self.k.emit(
            vec![NodeId::Broker(b)],
            EventKind::ControllerElected { broker: b, epoch },
        );
        self.on_controller_failover(b)
    }

    /// `onControllerFailover`: load everything from ZooKeeper, then bring every
    /// partition online and tell every broker.
    fn on_controller_failover(&mut self, c: BrokerId) -> Step {
        for p in [
            "/brokers/ids",
            "/brokers/topics",
            "/admin/reassign_partitions",
        ] {
            self.zk_watch(c, p)?;
        }
        let live: SortedSet<BrokerId> = SortedSet::from_iter(self.zk.live_brokers());
        let epochs = self.zk.live_broker_epochs();
        let mut assignments = SortedMap::new();
        let mut states = SortedMap::new();
        let mut topics = SortedSet::new();
        for t in self.zk.children("/brokers/topics") {
            self.zk_watch(c, &format!("/brokers/topics/{t}"))?;
            topics.insert(t.clone());
            for (p, reps) in self.zk_topic_assignment(&t) {
                let tp = TopicPartition::new(t.as_str(), p);
                if let Some(st) = self.zk_partition_state(&tp) {
                    states.insert(tp.clone(), st);
                }
                assignments.insert(tp, reps);
            }
        }
        let epoch = ctl(self, c).epoch;
        self.k.gate()?;
        let n = assignments.len() as u32;
        {
            let ctx = ctl_mut(self, c);
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
        let parts: Vec<TopicPartition> = ctl(self, c).assignments.keys().cloned().collect();
        for tp in &parts {
            let (ar, st) = {
                let ctx = ctl(self, c);
                (ctx.assignments[tp].clone(), ctx.states.get(tp).cloned())
            };
            match st {
                None => self.controller_init_partition(c, tp, &mut batch)?,
                Some(st) if st.leader >= 0 && live.contains(&BrokerId(st.leader)) => {
                    for r in ar.iter().filter(|r| live.contains(r)) {
                        self.batch_leader_and_isr(c, &mut batch, *r, tp, false);
                    }
                }
                Some(_) => {}
            }
        }
        // partitionStateMachine.startup: offline partitions get a leader.
        self.controller_elect_offline(c, &parts, &mut batch)?;
        // Replicas on brokers that are gone leave the ISR.
        let dead_in_isr: Vec<BrokerId> = {
            let ctx = ctl(self, c);
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
                c,
                d,
                &mut batch,
                "its broker is not registered in ZooKeeper",
            )?;
        }
        self.controller_flush(c, batch)?;
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

    fn zk_topic_assignment(&self, topic: &str) -> SortedMap<i32, Vec<BrokerId>> {
        let mut out = SortedMap::new();
        if let Some(v) = self.zk.data_json(&format!("/brokers/topics/{topic}")) {
            if let Some(ps) = v.get("partitions").and_then(|p| p.as_object()) {
                for (k, reps) in ps {
                    if let (Ok(p), Some(arr)) = (k.parse::<i32>(), reps.as_array()) {
                        out.insert(
                            p,
                            arr.iter()
                                .filter_map(|x| x.as_i64())
                                .map(|x| BrokerId(x as i32))
                                .collect(),
                        );
                    }
                }
            }
        }
        out
    }

    fn zk_partition_state(&self, tp: &TopicPartition) -> Option<LeaderIsr> {
        let path = partition_state_path(&tp.topic, tp.partition);
        let node = self.zk.get(&path)?;
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

    fn partition_state_msg(
        &self,
        c: BrokerId,
        tp: &TopicPartition,
        is_new: bool,
    ) -> PartitionState {
        let ctx = ctl(self, c);
        let st = &ctx.states[tp];
        PartitionState {
            tp: tp.clone(),
            controller_epoch: st.controller_epoch,
            leader: st.leader,
            leader_epoch: st.leader_epoch,
            isr: st.isr.clone(),
            partition_epoch: st.partition_epoch,
            replicas: ctx.assignments[tp].clone(),
            is_new,
        }
    }

    fn batch_leader_and_isr(
        &self,
        c: BrokerId,
        batch: &mut Batch,
        to: BrokerId,
        tp: &TopicPartition,
        is_new: bool,
    ) {
        let s = self.partition_state_msg(c, tp, is_new);
        let v = batch.leader_and_isr.entry(to).or_default();
        v.retain(|x| &x.tp != tp);
        v.push(s);
        batch.metadata.insert(tp.clone());
    }

    /// Writes a partition's new leader and ISR to ZooKeeper and the context.
    fn controller_write_state(
        &mut self,
        c: BrokerId,
        tp: &TopicPartition,
        leader: i32,
        leader_epoch: i32,
        isr: Vec<BrokerId>,
    ) -> Step<i32> {
        let epoch = ctl(self, c).epoch;
        let path = partition_state_path(&tp.topic, tp.partition);
        let version = self.zk_set(
            NodeId::Broker(c),
            &path,
            partition_state_json(leader, leader_epoch, &isr, epoch),
        )?;
        self.k.gate()?;
        ctl_mut(self, c).states.insert(
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

    /// NewPartition → OnlinePartition: the first live replica leads.
    fn controller_init_partition(
        &mut self,
        c: BrokerId,
        tp: &TopicPartition,
        batch: &mut Batch,
    ) -> Step {
        let (ar, live) = {
            let ctx = ctl(self, c);
            (ctx.assignments[tp].clone(), ctx.live.clone())
        };
        let live_reps: Vec<BrokerId> = ar.iter().copied().filter(|r| live.contains(r)).collect();
        let Some(leader) = live_reps.first().copied() else {
            let candidates = ar
                .iter()
                .map(|b| crate::election::Candidate {
                    broker: *b,
                    alive: false,
                    in_isr: false,
                    shutting_down: false,
                    chosen: false,
                })
                .collect();
            self.k.record(
                vec![NodeId::Broker(c)],
                EventKind::NoLeaderElected {
                    tp: tp.clone(),
                    algorithm: ElectionAlgorithm::Offline,
                    candidates,
                    isr: vec![],
                },
            )?;
            return Ok(());
        };
        self.controller_write_state(c, tp, leader.0, 0, live_reps.clone())?;
        let candidates = ar
            .iter()
            .map(|b| crate::election::Candidate {
                broker: *b,
                alive: live.contains(b),
                in_isr: live.contains(b),
                shutting_down: false,
                chosen: *b == leader,
            })
            .collect();
        self.k.record(
            vec![NodeId::Broker(c), NodeId::Broker(leader)],
            EventKind::LeaderElected {
                tp: tp.clone(),
                algorithm: ElectionAlgorithm::Offline,
                old_leader: -1,
                leader,
                leader_epoch: 0,
                isr: live_reps.clone(),
                unclean: false,
                candidates,
            },
        )?;
        for r in &live_reps {
            self.batch_leader_and_isr(c, batch, *r, tp, true);
        }
        Ok(())
    }

    /// Runs an election for one partition and records the outcome.
    fn controller_elect(
        &mut self,
        c: BrokerId,
        tp: &TopicPartition,
        algorithm: ElectionAlgorithm,
        batch: &mut Batch,
    ) -> Step<Option<BrokerId>> {
        let (ar, st, live, down) = {
            let ctx = ctl(self, c);
            let Some(st) = ctx.states.get(tp).cloned() else {
                return Ok(None);
            };
            (
                ctx.assignments[tp].clone(),
                st,
                ctx.live.clone(),
                ctx.shutting_down.clone(),
            )
        };
        let unclean = self
            .topic_log_config(&tp.topic)
            .unclean_leader_election_enable;
        let input = ElectionInput {
            algorithm,
            assignment: ar.clone(),
            isr: st.isr.clone(),
            live: live
                .iter()
                .copied()
                .filter(|b| algorithm == ElectionAlgorithm::ControlledShutdown || !down.contains(b))
                .collect(),
            unclean_leader_election_enable: unclean,
            shutting_down: down.iter().copied().collect(),
        };
        let out = elect(&input);
        let Some(leader) = out.leader else {
            self.k.record(
                vec![NodeId::Broker(c)],
                EventKind::NoLeaderElected {
                    tp: tp.clone(),
                    algorithm,
                    candidates: out.candidates,
                    isr: st.isr.clone(),
                },
            )?;
            return Ok(None);
        };
        let new_epoch = st.leader_epoch + 1;
        self.controller_write_state(c, tp, leader.0, new_epoch, out.isr.clone())?;
        self.k.record(
            vec![NodeId::Broker(c), NodeId::Broker(leader)],
            EventKind::LeaderElected {
                tp: tp.clone(),
                algorithm,
                old_leader: st.leader,
                leader,
                leader_epoch: new_epoch,
                isr: out.isr.clone(),
                unclean: out.unclean,
                candidates: out.candidates,
            },
        )?;
        if out.unclean {
            self.k.record(vec![NodeId::Broker(c)], EventKind::GuaranteeBroken {
                guarantee: crate::event::Guarantee::AcknowledgedRecordsSurvive,
                tp: Some(tp.clone()),
                detail: format!(
                    "unclean leader election: broker {} was not in the ISR {}, so records it never copied are gone",
                    leader.0,
                    crate::event::ids_list(&st.isr)
                ),
            })?;
        }
        for r in ar.iter().filter(|r| live.contains(r)) {
            self.batch_leader_and_isr(c, batch, *r, tp, false);
        }
        Ok(Some(leader))
    }

    /// Offline partitions among `parts` (no live leader) get a new leader.
    fn controller_elect_offline(
        &mut self,
        c: BrokerId,
        parts: &[TopicPartition],
        batch: &mut Batch,
    ) -> Step {
        for tp in parts {
            let offline = {
                let ctx = ctl(self, c);
                match ctx.states.get(tp) {
                    Some(st) => st.leader < 0 || !ctx.live.contains(&BrokerId(st.leader)),
                    None => false,
                }
            };
            if offline {
                self.controller_elect(c, tp, ElectionAlgorithm::Offline, batch)?;
            }
        }
        Ok(())
    }

    /// OfflineReplica: `dead` leaves every ISR it is in (`removeReplicasFromIsr`).
    /// If it was the only ISR member it stays, with no leader, so an unclean
    /// election later knows who had the data.
    fn controller_remove_from_isr(
        &mut self,
        c: BrokerId,
        dead: BrokerId,
        batch: &mut Batch,
        reason: &str,
    ) -> Step {
        for (tp, st) in self.controller_isr_members(c, dead) {
            self.controller_remove_one(c, dead, &tp, st, batch, reason)?;
        }
        Ok(())
    }

    /// The partitions whose ISR holds `b`, with their state now.
    fn controller_isr_members(&self, c: BrokerId, b: BrokerId) -> Vec<(TopicPartition, LeaderIsr)> {
        ctl(self, c)
            .states
            .iter()
            .filter(|(_, s)| s.isr.contains(&b))
            .map(|(tp, s)| (tp.clone(), s.clone()))
            .collect()
    }

    /// `dead` leaves the ISR of one partition whose state was `st`.
    fn controller_remove_one(
        &mut self,
        c: BrokerId,
        dead: BrokerId,
        tp: &TopicPartition,
        st: LeaderIsr,
        batch: &mut Batch,
        reason: &str,
    ) -> Step {
        let new_leader = if st.leader == dead.0 { -1 } else { st.leader };
        let new_isr: Vec<BrokerId> = if st.isr.len() == 1 {
            st.isr.clone()
        } else {
            st.isr.iter().copied().filter(|b| *b != dead).collect()
        };
        if new_leader == st.leader && new_isr == st.isr {
            return Ok(());
        }
        let reason = format!("broker {} {reason}", dead.0);
        self.controller_change_isr(c, tp, &st, new_leader, new_isr, reason, Some(dead), batch)
    }

    /// Writes a partition's new leader and ISR (one leader epoch up), records
    /// why, and batches a LeaderAndIsr for its live replicas but `skip`.
    #[allow(clippy::too_many_arguments)]
    fn controller_change_isr(
        &mut self,
        c: BrokerId,
        tp: &TopicPartition,
        st: &LeaderIsr,
        new_leader: i32,
        new_isr: Vec<BrokerId>,
        reason: String,
        skip: Option<BrokerId>,
        batch: &mut Batch,
    ) -> Step {
        let epoch = st.leader_epoch + 1;
        let pe = self.controller_write_state(c, tp, new_leader, epoch, new_isr.clone())?;
        self.k.record(
            vec![NodeId::Broker(c)],
            EventKind::IsrUpdatedByController {
                tp: tp.clone(),
                old_isr: st.isr.clone(),
                new_isr,
                leader_epoch: epoch,
                partition_epoch: pe,
                reason,
            },
        )?;
        let live = ctl(self, c).live.clone();
        let ar = ctl(self, c).assignments[tp].clone();
        for r in ar.iter().filter(|r| live.contains(r) && Some(**r) != skip) {
            self.batch_leader_and_isr(c, batch, *r, tp, false);
        }
        Ok(())
    }

    /// Sends the batched LeaderAndIsr and UpdateMetadata requests.
    pub(crate) fn controller_flush(&mut self, c: BrokerId, batch: Batch) -> Step {
        if batch.is_empty() {
            return Ok(());
        }
        let epoch = ctl(self, c).epoch;
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
            let ctx = ctl(self, c);
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
        let states: Vec<PartitionState> = parts
            .iter()
            .map(|tp| self.partition_state_msg(c, tp, false))
            .collect();
        for to in &live {
            self.k.send(
                NodeId::Broker(c),
                NodeId::Broker(*to),
                Message::UpdateMetadata {
                    controller_id: c,
                    controller_epoch: epoch,
                    live_brokers: live.clone(),
                    partitions: states.clone(),
                },
            )?;
        }
        Ok(())
    }

    /// A watch fired on a broker that is (or may become) the controller.
    pub(crate) fn controller_on_watch(&mut self, b: BrokerId, path: &str) -> Step {
        if path == "/controller" {
            if self.zk.get("/controller").is_none() {
                if self.brokers[&b].controller.is_some() {
                    // We lost our own znode (session trouble): resign.
                    self.k.gate()?;
                    std::sync::Arc::make_mut(self.brokers.get_mut(&b).expect("exists"))
                        .controller = None;
                    self.k.emit(
                        vec![NodeId::Broker(b)],
                        EventKind::ControllerMoved {
                            broker: b,
                            new_controller: -1,
                        },
                    );
                }
                return self.controller_try_elect(b);
            }
            if self.brokers[&b].controller.is_some() && self.zk.controller_id() != Some(b) {
                self.k.gate()?;
                std::sync::Arc::make_mut(self.brokers.get_mut(&b).expect("exists")).controller =
                    None;
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
        if !self.is_controller(b) {
            return Ok(());
        }
        if path == "/brokers/ids" {
            return self.controller_on_broker_change(b);
        }
        if path == "/brokers/topics" {
            return self.controller_on_topic_change(b);
        }
        if path == "/admin/reassign_partitions" {
            return self.controller_on_reassign_request(b);
        }
        if let Some(topic) = path.strip_prefix("/brokers/topics/") {
            if !topic.contains('/') {
                let topic = topic.to_string();
                return self.controller_on_partition_modification(b, &topic);
            }
        }
        Ok(())
    }

    fn controller_on_broker_change(&mut self, c: BrokerId) -> Step {
        let now_epochs = self.zk.live_broker_epochs();
        let now_live: SortedSet<BrokerId> = SortedSet::from_iter(now_epochs.keys().copied());
        let (old, old_epochs) = {
            let ctx = ctl(self, c);
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
            let ctx = ctl_mut(self, c);
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
            let parts = ctl(self, c).assignments.keys().cloned();
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
            let before = self.events_emitted();
            match op {
                ControllerOp::StartTopic { topic, watch } => {
                    if watch {
                        self.zk_watch(c, &format!("/brokers/topics/{topic}"))?;
                        self.k.gate()?;
                        ctl_mut(self, c).topics.insert(topic.clone());
                    }
                    let parts = self.zk_topic_assignment(&topic);
                    let n = parts.len();
                    for (i, (p, replicas)) in parts.into_iter().enumerate() {
                        let tp = TopicPartition::new(topic.as_str(), p);
                        k.ops.insert(i, ControllerOp::NewPartition { tp, replicas });
                    }
                    k.ops.insert(n, ControllerOp::TopicDone(topic));
                }
                ControllerOp::NewPartition { tp, replicas } => {
                    if !ctl(self, c).assignments.contains_key(&tp) {
                        self.k.gate()?;
                        ctl_mut(self, c).assignments.insert(tp.clone(), replicas);
                        self.controller_init_partition(c, &tp, &mut k.batch)?;
                    }
                }
                ControllerOp::TopicDone(topic) => {
                    k.batch
                        .metadata
                        .insert(TopicPartition::new(topic.as_str(), 0));
                }
                ControllerOp::ElectOffline(tp) => {
                    self.controller_elect_offline(c, std::slice::from_ref(&tp), &mut k.batch)?
                }
                ControllerOp::Elect(tp, algorithm) => {
                    self.controller_elect(c, &tp, algorithm, &mut k.batch)?;
                }
                ControllerOp::RemoveFromIsr { dead, reason } => {
                    // The partitions are read now, after the elections before it.
                    let parts = self.controller_isr_members(c, dead);
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
                } => self.controller_remove_one(c, dead, &tp, st, &mut k.batch, reason)?,
                ControllerOp::ShutdownLeaveIsr { tp, s } => {
                    self.controller_shutdown_leave_isr(c, s, &tp, &mut k.batch)?
                }
                ControllerOp::BrokersStarted(added) => {
                    // onBrokerStartup: tell the newcomer about its replicas, then
                    // bring back partitions that were offline.
                    k.batch.all_metadata = true;
                    let parts: Vec<(TopicPartition, Vec<BrokerId>)> = ctl(self, c)
                        .assignments
                        .iter()
                        .map(|(t, a)| (t.clone(), a.clone()))
                        .collect();
                    for (tp, ar) in &parts {
                        let has_state = ctl(self, c).states.contains_key(tp);
                        for a in &added {
                            if ar.contains(a) && has_state {
                                self.batch_leader_and_isr(c, &mut k.batch, *a, tp, false);
                            }
                        }
                    }
                    for (i, (tp, _)) in parts.into_iter().enumerate() {
                        k.ops.insert(i, ControllerOp::ElectOffline(tp));
                    }
                }
            }
            if self.events_emitted() > before && !k.ops.is_empty() {
                return self.k.continue_with(Continuation::Controller(k));
            }
        }
        self.controller_flush(c, k.batch)?;
        let Some(s) = k.shutdown_reply else {
            return Ok(());
        };
        let remaining: Vec<TopicPartition> = ctl(self, c)
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

    /// New topics in `/brokers/topics`: watch each, then create its
    /// partitions (`onNewPartitionCreation`), then send the requests.
    fn controller_on_topic_change(&mut self, c: BrokerId) -> Step {
        let known = ctl(self, c).topics.clone();
        let ops = self
            .zk
            .children("/brokers/topics")
            .into_iter()
            .filter(|t| !known.contains(t))
            .map(|topic| ControllerOp::StartTopic { topic, watch: true })
            .collect();
        self.controller_work_next(ControllerWork::new(c, ops))
    }

    /// Partitions added to a topic the controller knows.
    fn controller_on_partition_modification(&mut self, c: BrokerId, topic: &str) -> Step {
        let op = ControllerOp::StartTopic {
            topic: topic.to_string(),
            watch: false,
        };
        self.controller_work_next(ControllerWork::new(c, VecDeque::from([op])))
    }

    /// AlterPartition from a leader (KIP-497).
    pub(crate) fn controller_on_alter_partition(
        &mut self,
        c: BrokerId,
        from: BrokerId,
        tp: TopicPartition,
        leader_epoch: i32,
        new_isr: Vec<BrokerId>,
        partition_epoch: i32,
    ) -> Step {
        let (st, live) = {
            let ctx = ctl(self, c);
            (ctx.states.get(&tp).cloned(), ctx.live.clone())
        };
        let reply = |w: &mut World, error: Option<ErrorCode>, st: &LeaderIsr| {
            w.k.send(
                NodeId::Broker(c),
                NodeId::Broker(from),
                Message::AlterPartitionResponse {
                    tp: tp.clone(),
                    error,
                    leader: st.leader,
                    leader_epoch: st.leader_epoch,
                    isr: st.isr.clone(),
                    partition_epoch: st.partition_epoch,
                },
            )
            .map(|_| ())
        };
        let Some(st) = st else {
            let empty = LeaderIsr {
                leader: -1,
                leader_epoch: -1,
                isr: vec![],
                controller_epoch: 0,
                partition_epoch: -1,
            };
            return reply(self, Some(ErrorCode::UnknownTopicOrPartition), &empty);
        };
        if leader_epoch != st.leader_epoch || st.leader != from.0 {
            return reply(self, Some(ErrorCode::FencedLeaderEpoch), &st);
        }
        if partition_epoch != st.partition_epoch {
            return reply(self, Some(ErrorCode::InvalidUpdateVersion), &st);
        }
        if new_isr.iter().any(|b| !live.contains(b)) {
            return reply(self, Some(ErrorCode::IneligibleReplica), &st);
        }
        let pe =
            self.controller_write_state(c, &tp, st.leader, st.leader_epoch, new_isr.clone())?;
        self.k.record(
            vec![NodeId::Broker(c)],
            EventKind::IsrUpdatedByController {
                tp: tp.clone(),
                old_isr: st.isr.clone(),
                new_isr,
                leader_epoch: st.leader_epoch,
                partition_epoch: pe,
                reason: format!("AlterPartition from leader {}", from.0),
            },
        )?;
        let st = ctl(self, c).states[&tp].clone();
        reply(self, None, &st)?;
        let mut batch = Batch::default();
        batch.metadata.insert(tp.clone());
        self.controller_maybe_complete_reassignment(c, &tp, &mut batch)?;
        self.controller_flush(c, batch)
    }

    /// `/admin/reassign_partitions` appeared or changed: start what is new.
    fn controller_on_reassign_request(&mut self, c: BrokerId) -> Step {
        let Some(v) = self.zk.data_json("/admin/reassign_partitions") else {
            return Ok(());
        };
        let wanted: Vec<(TopicPartition, Vec<BrokerId>)> = v
            .get("partitions")
            .and_then(|p| p.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|x| {
                        let t = x.get("topic")?.as_str()?;
                        let p = x.get("partition")?.as_i64()? as i32;
                        let r = x
                            .get("replicas")?
                            .as_array()?
                            .iter()
                            .filter_map(|b| b.as_i64())
                            .map(|b| BrokerId(b as i32))
                            .collect();
                        Some((TopicPartition::new(t, p), r))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut batch = Batch::default();
        for (tp, target) in wanted {
            let known = ctl(self, c).assignments.contains_key(&tp);
            let already = ctl(self, c)
                .reassigning
                .get(&tp)
                .is_some_and(|(_, t)| *t == target);
            if !known || already {
                continue;
            }
            self.controller_reassign_start(c, &tp, target, &mut batch)?;
        }
        self.controller_flush(c, batch)
    }

    /// Phase A (KIP-455): RS = TRS + ORS, the new replicas start and catch up.
    fn controller_reassign_start(
        &mut self,
        c: BrokerId,
        tp: &TopicPartition,
        target: Vec<BrokerId>,
        batch: &mut Batch,
    ) -> Step {
        let original = ctl(self, c).assignments[tp].clone();
        let mut full: Vec<BrokerId> = target.clone();
        for r in &original {
            if !full.contains(r) {
                full.push(*r);
            }
        }
        let adding: Vec<BrokerId> = target
            .iter()
            .copied()
            .filter(|r| !original.contains(r))
            .collect();
        let removing: Vec<BrokerId> = original
            .iter()
            .copied()
            .filter(|r| !target.contains(r))
            .collect();
        self.k.gate()?;
        {
            let ctx = ctl_mut(self, c);
            ctx.reassigning
                .insert(tp.clone(), (original.clone(), target.clone()));
            ctx.assignments.insert(tp.clone(), full.clone());
        }
        self.k.record(
            vec![NodeId::Broker(c)],
            EventKind::ReassignmentStarted {
                tp: tp.clone(),
                original: original.clone(),
                target: target.clone(),
                adding: adding.clone(),
                removing: removing.clone(),
            },
        )?;
        self.controller_write_topic_znode(c, &tp.topic)?;
        if let Some(st) = ctl(self, c).states.get(tp).cloned() {
            self.controller_write_state(c, tp, st.leader, st.leader_epoch + 1, st.isr.clone())?;
            let live = ctl(self, c).live.clone();
            for r in full.iter().filter(|r| live.contains(r)) {
                self.batch_leader_and_isr(c, batch, *r, tp, false);
            }
        }
        self.controller_maybe_complete_reassignment(c, tp, batch)
    }

    /// Phase B: once every target replica is in the ISR, the assignment becomes
    /// the target, the leader moves if it is not in it, and the old replicas
    /// leave the ISR and are deleted.
    fn controller_maybe_complete_reassignment(
        &mut self,
        c: BrokerId,
        tp: &TopicPartition,
        batch: &mut Batch,
    ) -> Step {
        let Some((original, target)) = ctl(self, c).reassigning.get(tp).cloned() else {
            return Ok(());
        };
        let Some(st) = ctl(self, c).states.get(tp).cloned() else {
            return Ok(());
        };
        let live = ctl(self, c).live.clone();
        if !target
            .iter()
            .all(|r| st.isr.contains(r) && live.contains(r))
        {
            return Ok(());
        }
        let removing: Vec<BrokerId> = original
            .iter()
            .copied()
            .filter(|r| !target.contains(r))
            .collect();
        self.k.gate()?;
        ctl_mut(self, c)
            .assignments
            .insert(tp.clone(), target.clone());
        if st.leader < 0
            || !target.contains(&BrokerId(st.leader))
            || !live.contains(&BrokerId(st.leader))
        {
            self.controller_elect(c, tp, ElectionAlgorithm::Reassign, batch)?;
        } else {
            self.controller_write_state(c, tp, st.leader, st.leader_epoch + 1, st.isr.clone())?;
            for r in target.iter().filter(|r| live.contains(r)) {
                self.batch_leader_and_isr(c, batch, *r, tp, false);
            }
        }
        // The old replicas leave the ISR (OfflineReplica), then are deleted.
        let st = ctl(self, c).states[tp].clone();
        let new_isr: Vec<BrokerId> = st
            .isr
            .iter()
            .copied()
            .filter(|b| !removing.contains(b))
            .collect();
        if new_isr != st.isr && !new_isr.is_empty() {
            self.controller_write_state(c, tp, st.leader, st.leader_epoch + 1, new_isr)?;
            // Every remaining replica hears the new epoch (Kafka sends it to
            // the assignment minus the removed replicas).
            for r in target.iter().filter(|r| live.contains(r)) {
                self.batch_leader_and_isr(c, batch, *r, tp, false);
            }
        }
        let epoch = ctl(self, c).epoch;
        for r in removing.iter().filter(|r| live.contains(r)) {
            self.k.send(
                NodeId::Broker(c),
                NodeId::Broker(*r),
                Message::StopReplica {
                    controller_epoch: epoch,
                    partitions: vec![tp.clone()],
                    delete: true,
                },
            )?;
        }
        self.k.gate()?;
        ctl_mut(self, c).reassigning.remove(tp);
        self.controller_write_topic_znode(c, &tp.topic)?;
        self.k.record(
            vec![NodeId::Broker(c)],
            EventKind::ReassignmentCompleted {
                tp: tp.clone(),
                replicas: target,
                removed: removing,
            },
        )?;
        // Drop it from /admin/reassign_partitions; delete the znode when empty.
        if let Some(v) = self.zk.data_json("/admin/reassign_partitions") {
            let rest: Vec<serde_json::Value> = v
                .get("partitions")
                .and_then(|p| p.as_array())
                .map(|a| {
                    a.iter()
                        .filter(|x| {
                            !(x.get("topic").and_then(|t| t.as_str()) == Some(&*tp.topic)
                                && x.get("partition").and_then(|p| p.as_i64())
                                    == Some(tp.partition as i64))
                        })
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            if rest.is_empty() {
                self.zk_delete(NodeId::Broker(c), "/admin/reassign_partitions")?;
            } else {
                let data = serde_json::json!({"version": 1, "partitions": rest}).to_string();
                self.zk_set(NodeId::Broker(c), "/admin/reassign_partitions", data)?;
            }
        }
        batch.all_metadata = true;
        Ok(())
    }

    /// Rewrites `/brokers/topics/<t>` from the context (with reassignment state).
    fn controller_write_topic_znode(&mut self, c: BrokerId, topic: &str) -> Step {
        let ctx = ctl(self, c);
        let mut parts = SortedMap::new();
        let mut adding = SortedMap::new();
        let mut removing = SortedMap::new();
        for (tp, reps) in ctx.assignments.iter().filter(|(tp, _)| &*tp.topic == topic) {
            parts.insert(tp.partition, reps.clone());
            if let Some((o, t)) = ctx.reassigning.get(tp) {
                adding.insert(
                    tp.partition,
                    t.iter()
                        .copied()
                        .filter(|r| !o.contains(r))
                        .collect::<Vec<_>>(),
                );
                removing.insert(
                    tp.partition,
                    o.iter()
                        .copied()
                        .filter(|r| !t.contains(r))
                        .collect::<Vec<_>>(),
                );
            }
        }
        let list = |m: &SortedMap<i32, Vec<BrokerId>>| {
            m.iter()
                .map(|(p, r)| {
                    format!(
                        "\"{p}\":[{}]",
                        r.iter()
                            .map(|b| b.0.to_string())
                            .collect::<Vec<_>>()
                            .join(",")
                    )
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        let id = self.topic_id(topic);
        let data = format!(
            "{{\"partitions\":{{{}}},\"topic_id\":\"{id}\",\"adding_replicas\":{{{}}},\"removing_replicas\":{{{}}},\"version\":3}}",
            list(&parts),
            list(&adding),
            list(&removing)
        );
        self.zk_set(NodeId::Broker(c), &format!("/brokers/topics/{topic}"), data)
            .map(|_| ())
    }

    /// `kafka-reassign-partitions --execute`: the admin writes the request.
    pub(crate) fn admin_reassign(&mut self, topic: &str, partition: i32, replicas: &[i32]) -> Step {
        let entry =
            serde_json::json!({"topic": topic, "partition": partition, "replicas": replicas});
        let mut parts: Vec<serde_json::Value> = self
            .zk
            .data_json("/admin/reassign_partitions")
            .and_then(|v| v.get("partitions").and_then(|p| p.as_array().cloned()))
            .unwrap_or_default();
        parts.retain(|x| {
            !(x.get("topic").and_then(|t| t.as_str()) == Some(topic)
                && x.get("partition").and_then(|p| p.as_i64()) == Some(partition as i64))
        });
        parts.push(entry);
        let data = serde_json::json!({"version": 1, "partitions": parts}).to_string();
        self.zk_set(NodeId::User, "/admin/reassign_partitions", data)
            .map(|_| ())
    }

    /// Preferred-replica election for the given partitions (or all).
    pub(crate) fn controller_elect_preferred(
        &mut self,
        c: BrokerId,
        only: Option<Vec<TopicPartition>>,
    ) -> Step {
        let parts: Vec<TopicPartition> = {
            let ctx = ctl(self, c);
            ctx.states
                .iter()
                .filter(|(tp, st)| {
                    only.as_ref().is_none_or(|o| o.contains(tp))
                        && ctx
                            .assignments
                            .get(*tp)
                            .and_then(|a| a.first())
                            .is_some_and(|p| p.0 != st.leader)
                })
                .map(|(tp, _)| tp.clone())
                .collect()
        };
        let mut batch = Batch::default();
        for tp in parts {
            self.controller_elect(c, &tp, ElectionAlgorithm::Preferred, &mut batch)?;
        }
        self.controller_flush(c, batch)
    }

    /// `checkAndTriggerAutoLeaderRebalance`: per broker, the share of the
    /// partitions it should lead (it is their first replica) but does not.
    pub(crate) fn controller_auto_rebalance(&mut self, c: BrokerId) -> Step {
        let pct = self
            .k
            .sc
            .cluster
            .config
            .leader_imbalance_per_broker_percentage;
        let mut todo = Vec::new();
        let per_broker: SortedMap<BrokerId, (u32, u32, Vec<TopicPartition>)> = {
            let ctx = ctl(self, c);
            let mut m: SortedMap<BrokerId, (u32, u32, Vec<TopicPartition>)> = SortedMap::new();
            for (tp, ar) in &ctx.assignments {
                let Some(pref) = ar.first() else { continue };
                let Some(st) = ctx.states.get(tp) else {
                    continue;
                };
                let e = m.entry(*pref).or_default();
                e.1 += 1;
                if st.leader != pref.0 {
                    e.0 += 1;
                    if ctx.live.contains(pref)
                        && st.isr.contains(pref)
                        && !ctx.shutting_down.contains(pref)
                    {
                        e.2.push(tp.clone());
                    }
                }
            }
            m
        };
        for (b, (imbalanced, total, candidates)) in per_broker {
            // imbalance ratio = imbalanced / total, compared with the percentage.
            if total > 0 && imbalanced * 100 > pct * total {
                self.k.record(
                    vec![NodeId::Broker(c)],
                    EventKind::PreferredLeaderImbalance {
                        controller: c,
                        broker: b,
                        imbalanced,
                        total,
                        percentage: pct,
                    },
                )?;
                todo.extend(candidates);
            }
        }
        if !todo.is_empty() {
            self.controller_elect_preferred(c, Some(todo))?;
        }
        let at = self.k.now
            + self
                .k
                .sc
                .cluster
                .config
                .leader_imbalance_check_interval_seconds
                * 1000;
        self.k
            .set_timer(NodeId::Broker(c), at, Timer::AutoLeaderRebalance)
    }

    /// ControlledShutdown from broker `s`: move its leaderships, drop it from ISRs.
    pub(crate) fn controller_on_controlled_shutdown(&mut self, c: BrokerId, s: BrokerId) -> Step {
        self.k.gate()?;
        ctl_mut(self, c).shutting_down.insert(s);
        let (led, followed): (Vec<TopicPartition>, Vec<TopicPartition>) = {
            let ctx = ctl(self, c);
            let led = ctx
                .states
                .iter()
                .filter(|(tp, st)| st.leader == s.0 && ctx.assignments[*tp].len() > 1)
                .map(|(tp, _)| tp.clone())
                .collect();
            let followed = ctx
                .states
                .iter()
                .filter(|(_, st)| st.leader != s.0 && st.isr.contains(&s))
                .map(|(tp, _)| tp.clone())
                .collect();
            (led, followed)
        };
        let ops = led
            .into_iter()
            .map(|tp| ControllerOp::Elect(tp, ElectionAlgorithm::ControlledShutdown))
            .chain(
                followed
                    .into_iter()
                    .map(|tp| ControllerOp::ShutdownLeaveIsr { tp, s }),
            )
            .collect();
        self.controller_work_next(ControllerWork {
            shutdown_reply: Some(s),
            ..ControllerWork::new(c, ops)
        })
    }

    /// A broker shutting down leaves the ISR of a partition it follows.
    fn controller_shutdown_leave_isr(
        &mut self,
        c: BrokerId,
        s: BrokerId,
        tp: &TopicPartition,
        batch: &mut Batch,
    ) -> Step {
        let st = ctl(self, c).states[tp].clone();
        if st.isr.len() <= 1 {
            return Ok(());
        }
        let new_isr: Vec<BrokerId> = st.isr.iter().copied().filter(|b| *b != s).collect();
        let reason = format!("broker {} is shutting down", s.0);
        self.controller_change_isr(c, tp, &st, st.leader, new_isr, reason, None, batch)
    }

    /// The scenario's admin (`kafka-topics --create`): place replicas and write
    /// `/brokers/topics/<t>`; the controller takes it from there.
    pub(crate) fn admin_create_topic(
        &mut self,
        spec: &crate::scenario::TopicSpec,
        index: u32,
        initial: bool,
    ) -> Step {
        let _ = (index, initial);
        self.admin_create_topic_by(NodeId::User, spec)
    }

    /// Creates a topic the way `AdminZkClient` does, on behalf of `actor` (the
    /// user's admin client, or a broker auto-creating `__consumer_offsets`).
    pub(crate) fn admin_create_topic_by(
        &mut self,
        actor: NodeId,
        spec: &crate::scenario::TopicSpec,
    ) -> Step {
        let cfg = &self.k.sc.cluster.config;
        let partitions = spec.partitions.unwrap_or(cfg.num_partitions);
        let rf = spec
            .replication_factor
            .unwrap_or(cfg.default_replication_factor);
        if self
            .zk
            .get(&format!("/brokers/topics/{}", spec.name))
            .is_some()
        {
            self.k.record(
                vec![actor],
                EventKind::TopicCreationFailed {
                    topic: spec.name.clone(),
                    error: format!(
                        "TOPIC_ALREADY_EXISTS: Topic '{}' already exists.",
                        spec.name
                    ),
                },
            )?;
            return Ok(());
        }
        let (assignment, choices) = if let Some(a) = &spec.replica_assignment {
            let mut m = SortedMap::new();
            for (k, v) in a {
                m.insert(
                    k.parse::<i32>().unwrap_or(0),
                    v.iter().map(|b| BrokerId(*b)).collect(),
                );
            }
            (m, None)
        } else {
            // Kafka places on the brokers registered now.
            let live = self.zk.live_brokers();
            let brokers = if live.is_empty() {
                self.k
                    .sc
                    .cluster
                    .brokers
                    .iter()
                    .map(|b| BrokerId(*b))
                    .collect()
            } else {
                live
            };
            self.k.gate()?;
            match crate::placement::assign_replicas_to_brokers(
                &brokers,
                partitions,
                rf,
                spec.fixed_start_index.unwrap_or(-1),
                -1,
                &mut self.k.rng,
            ) {
                Ok((a, ch)) => (a, Some(ch)),
                Err(e) => {
                    self.k.record(
                        vec![actor],
                        EventKind::TopicCreationFailed {
                            topic: spec.name.clone(),
                            error: e.to_string(),
                        },
                    )?;
                    return Ok(());
                }
            }
        };
        let overrides = serde_json::to_value(&spec.config).unwrap_or_default();
        let cfg_json = format!("{{\"version\":1,\"config\":{overrides}}}");
        self.zk_set(actor, &format!("/config/topics/{}", spec.name), cfg_json)?;
        self.k.record(
            vec![actor],
            EventKind::TopicCreated {
                topic: spec.name.clone(),
                assignment: assignment.clone(),
                placement: choices,
            },
        )?;
        self.zk_create(
            actor,
            &format!("/brokers/topics/{}", spec.name),
            topic_znode_json(&assignment, &self.topic_id(&spec.name)),
            None,
        )?;
        Ok(())
    }

    /// A topic id (Kafka's `Uuid`, URL-safe base64 of 16 bytes) derived from the name.
    fn topic_id(&self, name: &str) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ self.k.sc.seed;
        let mut bytes = Vec::new();
        for round in 0..2u64 {
            for b in name.bytes().chain(round.to_le_bytes()) {
                h ^= b as u64;
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
            bytes.extend_from_slice(&h.to_be_bytes());
        }
        base64_url(&bytes)
    }

    /// `kafka-topics --alter --partitions N`.
    pub(crate) fn admin_add_partitions(&mut self, topic: &str, total: i32) -> Step {
        let current = self.zk_topic_assignment(topic);
        let have = current.len() as i32;
        if total <= have {
            self.k.record(vec![NodeId::User], EventKind::CommandRejected {
                index: 0,
                reason: format!("INVALID_PARTITIONS: Topic currently has {have} partitions, which is higher than the requested {total}."),
            })?;
            return Ok(());
        }
        let live = self.zk.live_brokers();
        let rf = current.values().next().map(|v| v.len() as i32).unwrap_or(1);
        self.k.gate()?;
        let start_index = current
            .get(&0)
            .and_then(|r| r.first())
            .and_then(|l| live.iter().position(|b| b == l))
            .map(|i| i as i32)
            .unwrap_or(-1);
        let added = match crate::placement::assign_replicas_to_brokers(
            &live,
            total - have,
            rf,
            start_index,
            have,
            &mut self.k.rng,
        ) {
            Ok((a, _)) => a,
            Err(e) => {
                self.k.record(
                    vec![NodeId::User],
                    EventKind::CommandRejected {
                        index: 0,
                        reason: e.to_string(),
                    },
                )?;
                return Ok(());
            }
        };
        let mut all = current;
        all.extend(added.clone());
        self.k.record(
            vec![NodeId::User],
            EventKind::PartitionsAdded {
                topic: topic.to_string(),
                assignment: added,
            },
        )?;
        let id = self.topic_id(topic);
        self.zk_set(
            NodeId::User,
            &format!("/brokers/topics/{topic}"),
            topic_znode_json(&all, &id),
        )?;
        Ok(())
    }
}

fn base64_url(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, b)| acc | (*b as u32) << (16 - 8 * i));
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// `/brokers/topics/<t>` as Kafka 3.x writes it.
pub fn topic_znode_json(assignment: &SortedMap<i32, Vec<BrokerId>>, topic_id: &str) -> String {
    let parts: Vec<String> = assignment
        .iter()
        .map(|(p, r)| {
            let r: Vec<String> = r.iter().map(|b| b.0.to_string()).collect();
            format!("\"{p}\":[{}]", r.join(","))
        })
        .collect();
    format!(
        "{{\"partitions\":{{{}}},\"topic_id\":\"{topic_id}\",\"adding_replicas\":{{}},\"removing_replicas\":{{}},\"version\":3}}",
        parts.join(",")
    )
}

impl Broker {
    /// Whether this broker currently runs the controller.
    pub fn is_active_controller(&self) -> bool {
        self.alive && self.controller.is_some()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn topic_ids_look_like_kafka_uuids() {
        assert_eq!(super::base64_url(&[0u8; 16]).len(), 22);
    }
}
