//! KRaft, the Kafka 4.1 mode (`"kafka_version": "4.1"`): a quorum of
//! controllers keeps the cluster's metadata in the `__cluster_metadata` log
//! instead of ZooKeeper.
//!
//! * `raft.rs`: the Raft client every node runs (`KafkaRaftClient`): the
//!   controllers vote, the brokers observe.
//! * `records.rs`: the metadata records.
//! * this file: the controller process (`ControllerServer`,
//!   `process.roles=controller`) and, on the quorum leader, the active
//!   controller (`QuorumController` with `ClusterControlManager`): broker
//!   registration, heartbeats and fencing, the NoOpRecord every
//!   `metadata.max.idle.interval.ms`, and the rule that a write is
//!   answered only once committed (QC:743-842, 956-1010).
//!
//! The broker's side (`BrokerLifecycleManager`) is `broker/lifecycle.rs`.
//! Citations are Kafka 4.1.0 (commit 13f70256db3c of `confluentinc/kafka`):
//! `QC` = `metadata/.../controller/QuorumController.java`, `CCM` =
//! `ClusterControlManager.java`, `RCM` = `ReplicationControlManager.java`,
//! `BHM` = `BrokerHeartbeatManager.java`; see docs/research/kraft-4.1.md.

pub mod codec;
pub mod raft;
pub mod records;
pub mod replication;

use crate::collections::SortedMap;
use crate::event::{EventKind, QuorumReason};
use crate::ids::{Millis, NodeId, TopicPartition};
use crate::kernel::{Kernel, Step, Timer};
use crate::msg::{ErrorCode, Message};
use raft::{QuorumLedger, RaftClient, RaftCx};
use records::MetadataRecord;

/// `metadata.version` of a new 4.1 cluster: 4.1-IV1, feature level 27
/// (`MetadataVersion.java:111-114`).
pub const METADATA_VERSION_LEVEL: i16 = 27;

/// A broker as the metadata log registers it (`BrokerRegistration`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokerRegistration {
    /// Its broker epoch: the offset of its RegisterBrokerRecord.
    pub epoch: i64,
    /// The process life that registered.
    pub incarnation: u32,
    /// Fenced: it may not lead or join an ISR.
    pub fenced: bool,
    /// In controlled shutdown: it may not lead either (CCM `isActive`).
    pub in_controlled_shutdown: bool,
    /// Its rack.
    pub rack: Option<String>,
}

/// What the committed (or, on the active controller, the written) metadata
/// says: the image every node replays from the log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClusterImage {
    /// Registered brokers.
    pub brokers: SortedMap<i32, BrokerRegistration>,
    /// Finalized features (`metadata.version`, …).
    pub features: SortedMap<String, i16>,
    /// Dynamic configs: (resource type, resource name, key) → value.
    pub configs: SortedMap<(i8, String, String), String>,
    /// Topics by name.
    pub topics: SortedMap<String, TopicImage>,
    /// Topic names by id.
    pub topic_names: SortedMap<String, String>,
    /// The first producer id of the next block (`ProducerIdsRecord`).
    pub next_producer_id: i64,
}

/// A topic in the image (`TopicImage`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopicImage {
    /// Its `topicId`.
    pub id: String,
    /// Its partitions.
    pub partitions: SortedMap<i32, PartitionRegistration>,
}

/// A partition as the metadata log says (`PartitionRegistration`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartitionRegistration {
    /// The assigned replicas, the preferred leader first.
    pub replicas: Vec<i32>,
    /// The in-sync replicas.
    pub isr: Vec<i32>,
    /// Eligible leader replicas (KIP-966): replicas that left the ISR while
    /// it was below `min.insync.replicas`, and so hold every committed record.
    pub elr: Vec<i32>,
    /// The last known ELR (here: the last leader, once none is left).
    pub last_known_elr: Vec<i32>,
    /// The leader (-1: none).
    pub leader: i32,
    /// The leader epoch.
    pub leader_epoch: i32,
    /// The partition epoch: bumped by every change.
    pub partition_epoch: i32,
    /// `LeaderRecoveryState.RECOVERING` (KIP-704): elected uncleanly, and
    /// its leader has not yet said it recovered.
    pub recovering: bool,
}

impl ClusterImage {
    /// Replays the records of `log` from `*applied` up to `end` (at most the
    /// log's end), moving `*applied` on. Returns the partitions that changed.
    pub fn replay_up_to(
        &mut self,
        log: &[records::MetadataEntry],
        applied: &mut i64,
        end: i64,
    ) -> Vec<TopicPartition> {
        let end = end.min(log.len() as i64);
        let mut changed = Vec::new();
        while *applied < end {
            changed.extend(self.replay(&log[*applied as usize].record));
            *applied += 1;
        }
        changed
    }

    /// A partition's registration.
    pub fn partition(&self, tp: &TopicPartition) -> Option<&PartitionRegistration> {
        self.topics.get(&*tp.topic)?.partitions.get(&tp.partition)
    }

    /// Whether broker `b` is registered, unfenced and not in controlled
    /// shutdown (`ClusterControlManager.isActive`).
    pub fn is_active(&self, b: i32) -> bool {
        self.brokers
            .get(&b)
            .is_some_and(|r| !r.fenced && !r.in_controlled_shutdown)
    }

    /// Replays one record; returns the partition it changed, if any.
    pub fn replay(&mut self, r: &MetadataRecord) -> Option<TopicPartition> {
        match r {
            MetadataRecord::TopicRecord { name, topic_id } => {
                self.topic_names.insert(topic_id.clone(), name.clone());
                self.topics.insert(
                    name.clone(),
                    TopicImage {
                        id: topic_id.clone(),
                        partitions: SortedMap::new(),
                    },
                );
            }
            MetadataRecord::PartitionRecord {
                partition_id,
                topic_id,
                replicas,
                isr,
                leader,
                leader_epoch,
                partition_epoch,
                ..
            } => {
                let name = self.topic_names.get(topic_id)?.clone();
                let t = self.topics.get_mut(&name)?;
                t.partitions.insert(
                    *partition_id,
                    PartitionRegistration {
                        replicas: replicas.clone(),
                        isr: isr.clone(),
                        elr: Vec::new(),
                        last_known_elr: Vec::new(),
                        recovering: false,
                        leader: *leader,
                        leader_epoch: *leader_epoch,
                        partition_epoch: *partition_epoch,
                    },
                );
                return Some(TopicPartition::new(name.as_str(), *partition_id));
            }
            MetadataRecord::PartitionChangeRecord {
                partition_id,
                topic_id,
                isr,
                leader,
                eligible_leader_replicas,
                last_known_elr,
                leader_recovery_state,
                ..
            } => {
                // `PartitionRegistration.merge`.
                let name = self.topic_names.get(topic_id)?.clone();
                let p = self
                    .topics
                    .get_mut(&name)?
                    .partitions
                    .get_mut(partition_id)?;
                if let Some(isr) = isr {
                    p.isr = isr.clone();
                }
                if *leader != records::NO_LEADER_CHANGE {
                    p.leader = *leader;
                    p.leader_epoch += 1;
                }
                if let Some(e) = eligible_leader_replicas {
                    p.elr = e.clone();
                }
                if let Some(l) = last_known_elr {
                    p.last_known_elr = l.clone();
                }
                if let Some(r) = leader_recovery_state {
                    p.recovering = *r == 1;
                }
                p.partition_epoch += 1;
                return Some(TopicPartition::new(name.as_str(), *partition_id));
            }
            MetadataRecord::ProducerIdsRecord {
                next_producer_id, ..
            } => {
                self.next_producer_id = *next_producer_id;
            }
            MetadataRecord::FeatureLevelRecord {
                name,
                feature_level,
            } => {
                self.features.insert(name.clone(), *feature_level);
            }
            MetadataRecord::ConfigRecord {
                resource_type,
                resource_name,
                name,
                value,
            } => {
                self.configs.insert(
                    (*resource_type, resource_name.clone(), name.clone()),
                    value.clone(),
                );
            }
            MetadataRecord::RegisterBrokerRecord {
                broker_id,
                incarnation_id,
                broker_epoch,
                rack,
                fenced,
            } => {
                self.brokers.insert(
                    *broker_id,
                    BrokerRegistration {
                        epoch: *broker_epoch,
                        incarnation: *incarnation_id,
                        fenced: *fenced,
                        in_controlled_shutdown: false,
                        rack: rack.clone(),
                    },
                );
            }
            MetadataRecord::BrokerRegistrationChangeRecord {
                broker_id,
                broker_epoch,
                fenced,
                in_controlled_shutdown,
            } => {
                if let Some(b) = self.brokers.get_mut(broker_id) {
                    if b.epoch == *broker_epoch && *fenced != 0 {
                        b.fenced = *fenced > 0;
                    }
                    if b.epoch == *broker_epoch && *in_controlled_shutdown > 0 {
                        b.in_controlled_shutdown = true;
                    }
                }
            }
            MetadataRecord::LeaderChange { .. }
            | MetadataRecord::BeginTransactionRecord { .. }
            | MetadataRecord::EndTransactionRecord
            | MetadataRecord::NoOpRecord => {}
        }
        None
    }
}

/// What the active controller keeps in memory (`QuorumController` while it
/// is active): broker sessions and the answers waiting for a commit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Active {
    /// The quorum epoch it leads.
    pub epoch: i32,
    /// Each registered broker's last contact (`BrokerHeartbeatTracker`).
    pub contact: SortedMap<i32, Millis>,
    /// `BrokerHeartbeatManager.active`: each unfenced broker not shutting
    /// down, with the metadata offset its last heartbeat reported.
    pub metadata_offsets: SortedMap<i32, i64>,
    /// `controlledShutdownOffset` of each broker in controlled shutdown: it
    /// may stop once every active broker has replayed this far.
    pub shutdown_offsets: SortedMap<i32, i64>,
    /// Answers sent once the record at their offset commits
    /// (`deferredEventQueue`): (offset, to, message).
    pub deferred: Vec<(i64, NodeId, Message)>,
}

/// `BrokerControlState`: where a broker stands in the heartbeat manager.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HeartbeatState {
    Fenced,
    Unfenced,
    ControlledShutdown,
    ShutdownNow,
}

/// A controller process (`process.roles=controller`).
#[derive(Clone, Debug, PartialEq)]
pub struct Controller {
    /// Its `node.id`.
    pub id: i32,
    /// Whether its process runs.
    pub alive: bool,
    /// Which life of the process runs.
    pub incarnation: u32,
    /// Its Raft client (its log and `quorum-state` survive a crash).
    pub raft: RaftClient,
    /// The metadata as replayed from the log.
    pub image: ClusterImage,
    /// Records `0..applied` are replayed into the image.
    pub applied: i64,
    /// Set while it is the active controller.
    pub active: Option<Active>,
}

impl Controller {
    /// Controller `id` of the quorum `voters`, not started, empty disk.
    pub fn new(id: i32, voters: Vec<i32>) -> Controller {
        Controller {
            id,
            alive: false,
            incarnation: 0,
            raft: RaftClient::new(id, voters, 0),
            image: ClusterImage::default(),
            applied: 0,
            active: None,
        }
    }

    /// Whether it is the active controller (leads the quorum).
    pub fn is_active(&self) -> bool {
        self.alive && self.active.is_some()
    }
}

/// The NOT_CONTROLLER answer in place of an answer that waited for a commit.
fn not_controller(msg: Message) -> Message {
    match msg {
        Message::BrokerRegistrationResponse { correlation_id, .. } => {
            Message::BrokerRegistrationResponse {
                correlation_id,
                error: Some(ErrorCode::NotController),
                broker_epoch: -1,
            }
        }
        Message::BrokerHeartbeatResponse { correlation_id, .. } => {
            Message::BrokerHeartbeatResponse {
                correlation_id,
                error: Some(ErrorCode::NotController),
                is_caught_up: false,
                is_fenced: true,
                should_shut_down: false,
            }
        }
        other => other,
    }
}

/// A controller's handle: the kernel, the quorum ledger and that controller.
pub(crate) struct ControllerCx<'a> {
    pub k: &'a mut Kernel,
    pub ledger: &'a mut QuorumLedger,
    pub me: &'a mut std::sync::Arc<Controller>,
}

fn cnode(id: i32) -> NodeId {
    NodeId::Controller(id)
}

impl ControllerCx<'_> {
    pub(crate) fn me(&self) -> &Controller {
        self.me
    }

    fn me_mut(&mut self) -> &mut Controller {
        std::sync::Arc::make_mut(self.me)
    }

    /// Runs `f` on the Raft client, then acts on what changed: leadership
    /// won or lost, records committed.
    fn raft<T>(&mut self, f: impl FnOnce(&mut RaftCx<'_>) -> Step<T>) -> Step<T> {
        let node = cnode(self.me().id);
        let was_leader = self.me().raft.is_leader();
        let out = {
            let c = std::sync::Arc::make_mut(self.me);
            let mut cx = RaftCx {
                k: self.k,
                node,
                r: &mut c.raft,
                ledger: self.ledger,
            };
            f(&mut cx)
        };
        let now_leader = self.me().raft.is_leader();
        if was_leader && !now_leader {
            self.renounce()?;
        }
        if !was_leader && now_leader {
            self.claim()?;
        }
        self.after_commit()?;
        out
    }

    /// The process starts (or restarts): the log and `quorum-state` are
    /// read back, and the image replayed from what is known committed.
    pub fn start(&mut self) -> Step {
        self.k.gate()?;
        let id = self.me().id;
        let inc = self.k.restart(cnode(id));
        {
            let c = self.me_mut();
            c.alive = true;
            c.incarnation = inc;
            c.image = ClusterImage::default();
            c.applied = 0;
            c.active = None;
        }
        let leo = self.me().raft.log_end_offset();
        self.k.emit(
            vec![cnode(id)],
            EventKind::ControllerStarted {
                node: id,
                incarnation: inc,
                log_end_offset: leo,
            },
        );
        self.raft(|r| r.start())
    }

    /// The process dies (`controlled`: after resigning).
    pub fn stop(&mut self, controlled: bool) -> Step {
        let id = self.me().id;
        if controlled && self.me().raft.is_leader() {
            // Graceful: resign first, telling the voters (KRC:3441-3462).
            self.raft(|r| r.resign(QuorumReason::Shutdown))?;
        }
        self.k.gate()?;
        {
            let c = self.me_mut();
            c.alive = false;
            c.active = None;
            c.raft.crash();
            c.image = ClusterImage::default();
            c.applied = 0;
        }
        self.k.emit(
            vec![cnode(id)],
            EventKind::ControllerStopped {
                node: id,
                controlled,
            },
        );
        Ok(())
    }

    /// A timer of this controller fired.
    pub fn timer(&mut self, timer: Timer) -> Step {
        if !self.me().alive && timer != Timer::BrokerStart {
            return Ok(());
        }
        match timer {
            Timer::BrokerStart => self.start(),
            Timer::QuorumTimer { generation } => self.raft(|r| r.on_state_timer(generation)),
            Timer::QuorumCheck { generation } => self.raft(|r| r.on_check_quorum(generation)),
            Timer::QuorumBeginResend { epoch } => self.raft(|r| r.on_begin_resend(epoch)),
            Timer::QuorumEndResend { epoch } => self.raft(|r| r.on_end_resend(epoch)),
            Timer::QuorumLinger { epoch } => self.raft(|r| r.on_linger(epoch)),
            Timer::QuorumFetchExpiry { id } => self.raft(|r| r.on_fetch_expiry(id)),
            Timer::QuorumFetchRetry => self.raft(|r| r.on_fetch_retry()),
            Timer::QuorumVoteRetry { epoch } => self.raft(|r| r.on_vote_retry(epoch)),
            Timer::RequestTimeout { correlation_id } => {
                self.raft(|r| r.on_request_failed(correlation_id, false))
            }
            Timer::QuorumPeerClosed { peer } => self.raft(|r| r.on_peer_closed(peer)),
            Timer::ControllerNoOp { epoch } => self.write_no_op(epoch),
            Timer::ControllerFenceCheck { epoch } => self.fence_check(epoch),
            _ => Ok(()),
        }
    }

    /// A message for this controller.
    pub fn on_message(&mut self, from: NodeId, msg: Message) -> Step {
        match msg {
            Message::BrokerRegistration {
                correlation_id,
                broker,
                incarnation,
                previous_broker_epoch,
                rack,
            } => self.on_registration(
                from,
                correlation_id,
                broker,
                incarnation,
                previous_broker_epoch,
                rack,
            ),
            Message::BrokerHeartbeat {
                correlation_id,
                broker,
                broker_epoch,
                current_metadata_offset,
                want_fence,
                want_shut_down,
            } => self.on_heartbeat(
                from,
                correlation_id,
                broker,
                broker_epoch,
                current_metadata_offset,
                want_fence,
                want_shut_down,
            ),
            Message::AlterPartition {
                broker,
                tp,
                leader_epoch,
                new_isr,
                partition_epoch,
            } => self.on_alter_partition(
                from,
                broker.0,
                tp,
                leader_epoch,
                new_isr.iter().map(|b| b.0).collect(),
                partition_epoch,
            ),
            Message::AllocateProducerIds {
                correlation_id,
                broker,
                broker_epoch,
            } => self.on_allocate_producer_ids(from, correlation_id, broker, broker_epoch),
            Message::CreateTopics {
                correlation_id,
                topic,
            } => self.on_create_topics(from, correlation_id, &topic),
            other => self.raft(|r| r.on_message(from, other)),
        }
    }

    /// A request of this controller could not reach a process that is down.
    pub fn disconnected(&mut self, msg: &Message) -> Step {
        let c = match msg {
            Message::Vote { correlation_id, .. }
            | Message::BeginQuorumEpoch { correlation_id, .. }
            | Message::EndQuorumEpoch { correlation_id, .. }
            | Message::RaftFetch { correlation_id, .. } => *correlation_id,
            _ => return Ok(()),
        };
        self.raft(|r| r.on_request_failed(c, true))
    }

    // ---- the active controller --------------------------------------------

    /// It became the quorum leader: it claims the active role
    /// (`QuorumController.claim`, QC:1056-1103). On an empty log it writes
    /// the bootstrap records in a metadata transaction, with the
    /// cluster-wide `min.insync.replicas` that ELR needs
    /// (`ActivationRecordsGenerator`, lines 40-112); every registered
    /// broker gets a new session from now (CCM:312-324).
    fn claim(&mut self) -> Step {
        let epoch = self.me().raft.epoch;
        let now = self.k.now;
        let id = self.me().id;
        // Replay what the log holds beyond what was applied (this node's
        // own uncommitted tail included: the leader replays before commit).
        self.replay_to(self.me().raft.log_end_offset());
        // `ClusterControlManager.activate` (CCM:312-324): a new
        // BrokerHeartbeatManager, with a session from now for every
        // unfenced broker (a fenced one has none), each active at metadata
        // offset -1 until it heartbeats.
        let unfenced: Vec<i32> = self
            .me()
            .image
            .brokers
            .iter()
            .filter(|(_, r)| !r.fenced)
            .map(|(b, _)| *b)
            .collect();
        let contact = unfenced.iter().map(|b| (*b, now)).collect();
        let metadata_offsets = unfenced.iter().map(|b| (*b, -1)).collect();
        self.me_mut().active = Some(Active {
            epoch,
            contact,
            metadata_offsets,
            shutdown_offsets: Default::default(),
            deferred: Vec::new(),
        });
        if !self.me().image.features.contains_key("metadata.version") {
            let cfg = &self.k.sc.cluster.config;
            let min_isr = cfg.min_insync_replicas.to_string();
            let records = vec![
                MetadataRecord::BeginTransactionRecord {
                    name: "Bootstrap records".into(),
                },
                MetadataRecord::FeatureLevelRecord {
                    name: "metadata.version".into(),
                    feature_level: METADATA_VERSION_LEVEL,
                },
                MetadataRecord::FeatureLevelRecord {
                    name: "eligible.leader.replicas.version".into(),
                    feature_level: 1,
                },
                MetadataRecord::FeatureLevelRecord {
                    name: "group.version".into(),
                    feature_level: 1,
                },
                MetadataRecord::FeatureLevelRecord {
                    name: "transaction.version".into(),
                    feature_level: 2,
                },
                MetadataRecord::ConfigRecord {
                    resource_type: 4,
                    resource_name: String::new(),
                    name: "min.insync.replicas".into(),
                    value: min_isr,
                },
                MetadataRecord::EndTransactionRecord,
            ];
            self.write(records)?;
        }
        self.maybe_create_scenario_topics()?;
        let cfg = &self.k.sc.cluster.config;
        let (noop, session) = (
            cfg.metadata_max_idle_interval_ms,
            cfg.broker_session_timeout_ms,
        );
        if noop > 0 {
            self.k
                .set_timer(cnode(id), now + noop, Timer::ControllerNoOp { epoch })?;
        }
        self.k.set_timer(
            cnode(id),
            now + (session / 8).max(1),
            Timer::ControllerFenceCheck { epoch },
        )
    }

    /// It stopped leading: answers waiting for a commit fail with
    /// NOT_CONTROLLER, and the image goes back to what is committed
    /// (QC:1162-1178).
    fn renounce(&mut self) -> Step {
        let deferred = self
            .me_mut()
            .active
            .take()
            .map(|a| a.deferred)
            .unwrap_or_default();
        let committed = self.me().raft.committed_end();
        let c = self.me_mut();
        c.image = ClusterImage::default();
        c.applied = 0;
        self.replay_to(committed);
        // The answers waiting for a commit fail with NOT_CONTROLLER.
        let id = self.me().id;
        for (_, to, msg) in deferred {
            self.k.send(cnode(id), to, not_controller(msg))?;
        }
        Ok(())
    }

    fn replay_to(&mut self, end: i64) {
        let c = self.me_mut();
        c.image.replay_up_to(&c.raft.log, &mut c.applied, end);
    }

    /// Records were committed: a standby replays them; the active
    /// controller sends the answers that waited for them.
    fn after_commit(&mut self) -> Step {
        let committed = self.me().raft.committed_end();
        if self.me().active.is_none() {
            self.replay_to(committed);
            return Ok(());
        }
        let hw = self.me().raft.high_watermark;
        let ready: Vec<(i64, NodeId, Message)> = {
            let Some(a) = self.me_mut().active.as_mut() else {
                return Ok(());
            };
            let (ready, wait) = std::mem::take(&mut a.deferred)
                .into_iter()
                .partition(|(o, _, _)| *o < hw);
            a.deferred = wait;
            ready
        };
        let id = self.me().id;
        for (_, to, msg) in ready {
            self.k.send(cnode(id), to, msg)?;
        }
        Ok(())
    }

    /// The active controller writes records: replayed at once, committed
    /// later. Returns the offset of the last.
    pub(crate) fn write(&mut self, records: Vec<MetadataRecord>) -> Step<Option<i64>> {
        let last = self.raft(|r| r.prepare_append(records.clone()))?;
        if last.is_some() {
            let c = self.me_mut();
            for r in &records {
                c.image.replay(r);
            }
        }
        Ok(last)
    }

    /// Answers once everything written so far is committed (a write with
    /// no records of its own still waits for those before it, QC:780-798).
    pub(crate) fn answer_after_commit(
        &mut self,
        offset: Option<i64>,
        to: NodeId,
        msg: Message,
    ) -> Step {
        let hw = self.me().raft.high_watermark;
        let pending = offset.unwrap_or(self.me().raft.next_offset() - 1);
        if pending < hw {
            let id = self.me().id;
            return self.k.send(cnode(id), to, msg).map(|_| ());
        }
        self.k.gate()?;
        if let Some(a) = self.me_mut().active.as_mut() {
            a.deferred.push((pending, to, msg));
        }
        Ok(())
    }

    fn write_no_op(&mut self, epoch: i32) -> Step {
        if self.me().active.as_ref().is_none_or(|a| a.epoch != epoch) {
            return Ok(());
        }
        self.write(vec![MetadataRecord::NoOpRecord])?;
        let at = self.k.now + self.k.sc.cluster.config.metadata_max_idle_interval_ms;
        let id = self.me().id;
        self.k
            .set_timer(cnode(id), at, Timer::ControllerNoOp { epoch })
    }

    /// `maybeFenceStaleBroker`: at most one broker whose session ran out
    /// (no contact for more than `broker.session.timeout.ms`) is fenced per
    /// run, the one silent longest (RCM:1670-1695).
    fn fence_check(&mut self, epoch: i32) -> Step {
        let Some(a) = self.me().active.as_ref().filter(|a| a.epoch == epoch) else {
            return Ok(());
        };
        let session = self.k.sc.cluster.config.broker_session_timeout_ms;
        let now = self.k.now;
        let stale = self
            .me()
            .image
            .brokers
            .iter()
            .filter(|(_, r)| !r.fenced)
            .filter_map(|(b, r)| {
                let last = a.contact.get(b).copied().unwrap_or(0);
                (last + session < now).then_some((last, *b, r.epoch))
            })
            .min();
        if let Some((_, broker_id, broker_epoch)) = stale {
            // The expired session is removed (`maybeRemoveExpired`): a
            // new process of that broker may register at once.
            self.k.gate()?;
            if let Some(a) = self.me_mut().active.as_mut() {
                a.contact.remove(&broker_id);
                a.metadata_offsets.remove(&broker_id);
                a.shutdown_offsets.remove(&broker_id);
            }
            let records = self.broker_fenced_records(broker_id, broker_epoch);
            self.write(records)?;
        }
        let id = self.me().id;
        self.k.set_timer(
            cnode(id),
            now + (session / 8).max(1),
            Timer::ControllerFenceCheck { epoch },
        )
    }

    /// Answers at once, with nothing to wait for (an error, or a request
    /// refused before anything is written).
    pub(crate) fn reply_now(&mut self, to: NodeId, msg: Message) -> Step {
        let id = self.me().id;
        self.k.send(cnode(id), to, msg).map(|_| ())
    }

    /// BrokerRegistration (CCM:345-470): a new incarnation is registered
    /// fenced, its broker epoch the offset of its RegisterBrokerRecord; a
    /// different process under an id whose session is still live is refused.
    fn on_registration(
        &mut self,
        from: NodeId,
        correlation_id: i32,
        broker: i32,
        incarnation: u32,
        previous_broker_epoch: i64,
        rack: Option<String>,
    ) -> Step {
        let refuse = |error| Message::BrokerRegistrationResponse {
            correlation_id,
            error: Some(error),
            broker_epoch: -1,
        };
        let Some(a) = self.me().active.as_ref() else {
            return self.reply_now(from, refuse(ErrorCode::NotController));
        };
        let session = self.k.sc.cluster.config.broker_session_timeout_ms;
        if let Some(existing) = self.me().image.brokers.get(&broker) {
            let live = a
                .contact
                .get(&broker)
                .is_some_and(|t| t + session >= self.k.now);
            if live && existing.incarnation != incarnation {
                return self.reply_now(from, refuse(ErrorCode::DuplicateBrokerRegistration));
            }
            if existing.incarnation == incarnation {
                // The same process asking again keeps its epoch (CCM:450-457).
                let msg = Message::BrokerRegistrationResponse {
                    correlation_id,
                    error: None,
                    broker_epoch: existing.epoch,
                };
                return self.answer_after_commit(None, from, msg);
            }
        }
        // The broker epoch is the offset the batch starts at (QC:1987-1990);
        // a new incarnation's records first clean up after the last one,
        // which shut down uncleanly (CCM:432-437).
        let broker_epoch = self.me().raft.next_offset();
        // A clean shutdown is one whose broker epoch the broker read back
        // from its clean-shutdown files (CCM:361-365, 432-437).
        let mut records = match self.me().image.brokers.get(&broker) {
            Some(r) => self.broker_restarted_records(broker, r.epoch == previous_broker_epoch),
            None => Vec::new(),
        };
        records.push(MetadataRecord::RegisterBrokerRecord {
            broker_id: broker,
            incarnation_id: incarnation,
            broker_epoch,
            rack,
            fenced: true,
        });
        let last = self.write(records)?;
        let now = self.k.now;
        if let Some(a) = self.me_mut().active.as_mut() {
            // `BrokerHeartbeatManager.register`: a new state, not active.
            a.contact.insert(broker, now);
            a.metadata_offsets.remove(&broker);
            a.shutdown_offsets.remove(&broker);
        }
        let msg = Message::BrokerRegistrationResponse {
            correlation_id,
            error: None,
            broker_epoch,
        };
        self.answer_after_commit(last, from, msg)
    }

    /// BrokerHeartbeat: the contact time first, then the state machine of
    /// `BrokerHeartbeatManager.calculateNextBrokerState` (BHM:399-476) and
    /// `ReplicationControlManager.processBrokerHeartbeat` (RCM:1603-1640):
    /// a fenced broker caught up with its own registration and not asking
    /// to stay fenced is unfenced; a running broker asking to shut down with
    /// leaderships enters controlled shutdown (its leaderships move, it
    /// leaves every ISR), and is told to shut down once it leads nothing
    /// and every active broker has replayed those changes.
    #[allow(clippy::too_many_arguments)]
    fn on_heartbeat(
        &mut self,
        from: NodeId,
        correlation_id: i32,
        broker: i32,
        broker_epoch: i64,
        current_metadata_offset: i64,
        want_fence: bool,
        want_shut_down: bool,
    ) -> Step {
        use HeartbeatState::*;
        let refuse = |error| Message::BrokerHeartbeatResponse {
            correlation_id,
            error: Some(error),
            is_caught_up: false,
            is_fenced: true,
            should_shut_down: false,
        };
        let Some(a) = self.me().active.as_ref() else {
            return self.reply_now(from, refuse(ErrorCode::NotController));
        };
        let shutdown_offset = a.shutdown_offsets.get(&broker).copied();
        let lowest_active = a
            .metadata_offsets
            .values()
            .copied()
            .min()
            .unwrap_or(i64::MAX);
        let Some(reg) = self.me().image.brokers.get(&broker).cloned() else {
            return self.reply_now(from, refuse(ErrorCode::BrokerIdNotRegistered));
        };
        if reg.epoch != broker_epoch {
            return self.reply_now(from, refuse(ErrorCode::StaleBrokerEpoch));
        }
        let now = self.k.now;
        self.k.gate()?;
        if let Some(a) = self.me_mut().active.as_mut() {
            a.contact.insert(broker, now);
        }
        let caught_up = current_metadata_offset >= reg.epoch;
        // `hasLeaderships`, asked only of a broker that wants to shut down
        // or is shutting down (a scan of every partition, kept off the
        // ordinary heartbeat).
        let leads = || {
            self.me()
                .image
                .topics
                .values()
                .any(|t| t.partitions.values().any(|p| p.leader == broker))
        };
        let current = if shutdown_offset.is_some() {
            ControlledShutdown
        } else if reg.fenced {
            Fenced
        } else {
            Unfenced
        };
        let next = match current {
            Fenced if want_shut_down => ShutdownNow,
            Fenced if !want_fence && caught_up => Unfenced,
            Fenced => Fenced,
            Unfenced if want_fence && want_shut_down => ShutdownNow,
            Unfenced if want_fence => Fenced,
            Unfenced if want_shut_down && leads() => ControlledShutdown,
            Unfenced if want_shut_down => ShutdownNow,
            Unfenced => Unfenced,
            ControlledShutdown if leads() => ControlledShutdown,
            ControlledShutdown if shutdown_offset.unwrap_or(0) <= lowest_active => ShutdownNow,
            ControlledShutdown | ShutdownNow => current,
        };
        let mut last = None;
        if current != next {
            let records = match next {
                Fenced | ShutdownNow => self.broker_fenced_records(broker, broker_epoch),
                Unfenced => self.broker_unfenced_records(broker, broker_epoch),
                ControlledShutdown => {
                    self.broker_in_controlled_shutdown_records(broker, broker_epoch, &reg)
                }
            };
            last = self.write(records)?;
            if next == Unfenced {
                self.maybe_create_scenario_topics()?;
            }
        }
        // `touch`, then (in controlled shutdown) the offset this batch ends
        // at (`maybeUpdateControlledShutdownOffset`, QC:1961-1965).
        let end = last.unwrap_or_else(|| self.me().raft.next_offset() - 1);
        if let Some(a) = self.me_mut().active.as_mut() {
            a.metadata_offsets.remove(&broker);
            match next {
                Fenced | ShutdownNow => {
                    a.shutdown_offsets.remove(&broker);
                }
                Unfenced => {
                    a.metadata_offsets.insert(broker, current_metadata_offset);
                }
                ControlledShutdown => {
                    a.shutdown_offsets.entry(broker).or_insert(end);
                }
            }
        }
        let msg = Message::BrokerHeartbeatResponse {
            correlation_id,
            error: None,
            is_caught_up: caught_up,
            is_fenced: matches!(next, Fenced | ShutdownNow),
            should_shut_down: next == ShutdownNow,
        };
        self.answer_after_commit(last, from, msg)
    }
}
