//! Consumer groups (G2, G5–G12): the group coordinator on the broker, with
//! the classic group protocol of Kafka 3.9. The member side (the consumer's
//! `ConsumerCoordinator`) is `consumer/coordinator.rs`; it is described here
//! too, since the two halves make one protocol.
//!
//! **Coordinator.** A group lives on the leader of `__consumer_offsets`
//! partition `Utils.abs(groupId.hashCode) % offsets.topic.num.partitions`
//! (the topic is created by the brokers on the first FindCoordinator). The
//! group moves through Empty → PreparingRebalance → CompletingRebalance →
//! Stable. A rebalance waits for every known member to send JoinGroup again
//! (or for the rebalance timeout, `max.poll.interval.ms`, after which the
//! stragglers are removed); the first JoinGroup into an Empty group waits
//! `group.initial.rebalance.delay.ms` for more members. The generation goes
//! up by one, the protocol is chosen by Kafka's vote (each member votes for
//! its first assignor that every member supports), and the leader member
//! gets everyone's subscription. The leader's SyncGroup carries the
//! assignment; the coordinator writes the group record to `__consumer_offsets`
//! (acks=all) and then hands each member its part. Members that stop
//! heartbeating for `session.timeout.ms` are removed. Offset commits are
//! records in the same partition, answered once replicated. A broker that
//! becomes leader of an offsets partition loads its groups and offsets from
//! the log; one that loses it forgets them (members get NOT_COORDINATOR and
//! look for the new coordinator).
//!
//! **Member.** The consumer finds the coordinator, joins (a first JoinGroup
//! without a member id is answered with MEMBER_ID_REQUIRED and an id, as since
//! KIP-394), runs the assignor if it is the leader, syncs, heartbeats every
//! `heartbeat.interval.ms` from its heartbeat thread, leaves the group if the
//! application does not call `poll()` within `max.poll.interval.ms`, fetches
//! committed offsets for new partitions and commits (auto-commit every
//! `auto.commit.interval.ms`, or `commitSync`/`commitAsync`). The rebalance
//! protocol is EAGER (revoke everything before joining) unless every assignor
//! in `partition.assignment.strategy` is cooperative, then COOPERATIVE
//! (revoke only what moves; a second rebalance hands it out).
//!
//! Layout, after Kafka's classes: this file holds the group state
//! (`GroupMetadata`), request dispatch and `FindCoordinator`;
//! `coordinator.rs` is `GroupCoordinator` (join, sync, heartbeat, leave);
//! `metadata_manager.rs` is `GroupMetadataManager` (load, store, commit).
//!
//! **Transactional offsets** (KIP-98, KIP-447; `metadata_manager.rs`): a
//! transactional producer's TxnOffsetCommit is checked like a member's
//! commit, written as a transactional batch of its producer id, and kept
//! *pending* until the transaction's marker reaches the offsets partition:
//! COMMIT makes the offsets the group's committed offsets, ABORT drops them.
//! Meanwhile an OffsetFetch with `require_stable` (a read_committed
//! consumer) is answered UNSTABLE_OFFSET_COMMIT for those partitions, so a
//! new owner never starts from an offset that is about to change.
//!
//! The coordinator's side of the consumer group protocol of KIP-848 (Kafka
//! 4.1) is `consumer_group.rs`, a state machine of its own that scenario
//! runs do not use yet.
//!
//! Not modelled: rack-aware assignment, offset expiry (`offsets.retention.minutes`),
//! `group.max.size`, and the new-member join timeout.

use crate::broker::BrokerCx;
use crate::collections::{SortedMap, SortedSet};
use crate::event::EventKind;
use crate::group_records as rec;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::kernel::{Step, Timer};
use crate::msg::{ErrorCode, JoinGroupMember, Message, Subscription};
use crate::storage::record::{self, BatchSpec, NewRecord};
use serde::{Deserialize, Serialize};

pub mod consumer_group;
mod coordinator;
mod metadata_manager;

/// The internal topic holding committed offsets.
pub const OFFSETS_TOPIC: &str = "__consumer_offsets";

/// A classic group's state (`GroupState` in Kafka).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub enum GroupState {
    /// No members (offsets may remain).
    Empty,
    /// A rebalance began: waiting for the members to join.
    PreparingRebalance,
    /// Joined: waiting for the leader's assignment (SyncGroup).
    CompletingRebalance,
    /// Every member has its assignment.
    Stable,
}

/// A member as the coordinator keeps it (`MemberMetadata`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The member id.
    pub member_id: String,
    /// Its `group.instance.id`, if static.
    pub group_instance_id: Option<String>,
    /// Its `client.id`.
    pub client_id: String,
    /// The consumer it is (its index: where the answers go).
    pub consumer: u32,
    /// Its `session.timeout.ms`.
    pub session_timeout_ms: u64,
    /// Its rebalance timeout (`max.poll.interval.ms`).
    pub rebalance_timeout_ms: u64,
    /// The assignors it supports, with its subscription, in preference order
    /// (shared: a JoinGroup replaces them whole, and the coordinator's
    /// clones need not copy every member's topic list).
    pub protocols: std::sync::Arc<[(String, Subscription)]>,
    /// A JoinGroup waiting for the rebalance to finish: (from, correlation id).
    pub awaiting_join: Option<(NodeId, i32)>,
    /// A SyncGroup waiting for the leader's assignment: (from, correlation id).
    pub awaiting_sync: Option<(NodeId, i32)>,
    /// Its partitions in this generation.
    pub assignment: Vec<TopicPartition>,
    /// The session ends at this time unless a heartbeat comes first.
    pub session_deadline: u64,
}

/// A group as its coordinator keeps it (`GroupMetadata`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The group's `group.id`.
    pub group_id: String,
    /// Its `__consumer_offsets` partition.
    pub partition: i32,
    /// Its state.
    pub state: GroupState,
    /// Its generation.
    pub generation_id: i32,
    /// The assignor chosen for this generation.
    pub protocol_name: Option<String>,
    /// The leader's member id.
    pub leader_id: Option<String>,
    /// In join order (the first member becomes leader when none is left).
    pub members: Vec<Member>,
    /// Member ids handed out with MEMBER_ID_REQUIRED, not joined yet.
    pub pending_members: SortedSet<String>,
    /// Committed offsets, per partition (shared with the group's clones
    /// until a commit: a heartbeat copies the group, not these maps).
    pub offsets: std::sync::Arc<SortedMap<TopicPartition, i64>>,
    /// Where each committed offset's record was appended in
    /// `__consumer_offsets` (its batch's base offset,
    /// `CommitRecordMetadataAndOffset.appendedBatchOffset`): a commit replaces
    /// the committed offset only if it was appended later (`olderThan`).
    pub offsets_at: std::sync::Arc<SortedMap<TopicPartition, i64>>,
    /// Transactional offsets not yet decided, per producer id: the offset
    /// and, once its write is replicated, where it was appended
    /// (`pendingTransactionalOffsetCommits`).
    pub pending_txn: SortedMap<i64, SortedMap<TopicPartition, (i64, Option<i64>)>>,
    /// The initial delay may be extended until this time.
    pub initial_delay_until: u64,
    /// A member joined during the initial delay (the delay is extended).
    pub new_member_added: bool,
    /// A counter for new member ids.
    pub next_member_seq: u64,
}

impl Group {
    fn new(group_id: &str, partition: i32) -> Group {
        Group {
            group_id: group_id.to_string(),
            partition,
            state: GroupState::Empty,
            generation_id: 0,
            protocol_name: None,
            leader_id: None,
            members: Vec::new(),
            pending_members: SortedSet::new(),
            offsets: Default::default(),
            offsets_at: Default::default(),
            pending_txn: SortedMap::new(),
            initial_delay_until: 0,
            new_member_added: false,
            next_member_seq: 0,
        }
    }
    /// Sets `tp`'s committed offset and where its record was appended
    /// (the maps are copied first if a clone of the group shares them).
    fn set_offset(&mut self, tp: &TopicPartition, offset: i64, appended_at: i64) {
        std::sync::Arc::make_mut(&mut self.offsets).insert(tp.clone(), offset);
        std::sync::Arc::make_mut(&mut self.offsets_at).insert(tp.clone(), appended_at);
    }

    /// The member with id `id`.
    pub fn member(&self, id: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.member_id == id)
    }
    fn member_mut(&mut self, id: &str) -> Option<&mut Member> {
        self.members.iter_mut().find(|m| m.member_id == id)
    }
    fn all_joined(&self) -> bool {
        self.pending_members.is_empty() && self.members.iter().all(|m| m.awaiting_join.is_some())
    }
    fn rebalance_timeout(&self) -> u64 {
        self.members
            .iter()
            .map(|m| m.rebalance_timeout_ms)
            .max()
            .unwrap_or(0)
    }
    /// Kafka's `selectProtocol`: every member votes for its first assignor
    /// that all members support; the most votes wins (ties: first in the
    /// first member's preference order).
    fn select_protocol(&self) -> Option<String> {
        let first = self.members.first()?;
        let candidates: Vec<&String> = first
            .protocols
            .iter()
            .map(|(n, _)| n)
            .filter(|n| {
                self.members
                    .iter()
                    .all(|m| m.protocols.iter().any(|(x, _)| x == *n))
            })
            .collect();
        let mut votes: SortedMap<&String, usize> = SortedMap::new();
        for m in &self.members {
            if let Some((n, _)) = m.protocols.iter().find(|(n, _)| candidates.contains(&n)) {
                *votes.entry(n).or_default() += 1;
            }
        }
        let best = votes.values().copied().max()?;
        candidates
            .into_iter()
            .find(|c| votes.get(c) == Some(&best))
            .cloned()
    }
}

/// All groups a broker coordinates, and the offsets partitions it has loaded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Groups {
    /// The groups, by id.
    pub groups: SortedMap<String, Group>,
    /// The `__consumer_offsets` partitions loaded.
    pub loaded: SortedSet<i32>,
    /// Coordinator writes waiting for the ISR, by delayed-produce id, with
    /// the offset their batch was appended at.
    pub writes: SortedMap<u64, (GroupWrite, i64)>,
}

/// What a coordinator does once its write to `__consumer_offsets` is replicated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupWrite {
    /// An offset commit: answer the member once it is replicated.
    Commit {
        /// The group.
        group: String,
        /// The member.
        member_id: String,
        /// Who sent it.
        from: NodeId,
        /// The request's correlation id.
        correlation_id: i32,
        /// The committed offsets.
        offsets: Vec<(TopicPartition, i64)>,
    },
    /// A generation's assignment: answer the members' SyncGroup once it is replicated.
    Sync {
        /// The group.
        group: String,
        /// The generation.
        generation: i32,
        /// Each member's partitions.
        assignments: Vec<(String, Vec<TopicPartition>)>,
    },
    /// A transactional offset commit: answer the producer once it is replicated.
    TxnCommit {
        /// The group.
        group: String,
        /// The producer id whose transaction holds the offsets.
        producer_id: i64,
        /// Who sent it.
        from: NodeId,
        /// The request's correlation id.
        correlation_id: i32,
        /// The offsets.
        offsets: Vec<(TopicPartition, i64)>,
    },
    /// A group record with no reply waiting (the group became empty).
    Store,
}

/// Where a member stands (`MemberState` in the Java client).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemberPhase {
    /// Not in a group (or left).
    Unjoined,
    /// JoinGroup sent, waiting.
    Joining,
    /// SyncGroup sent, waiting for the assignment.
    Syncing,
    /// Has its assignment.
    Stable,
}

/// A consumer's membership in its group (the client's `ConsumerCoordinator`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberState {
    /// The `group.id`.
    pub group_id: String,
    /// Its member id (empty before the first join).
    pub member_id: String,
    /// Its generation (-1: none).
    pub generation: i32,
    /// The assignor chosen.
    pub protocol: Option<String>,
    /// Where it stands.
    pub phase: MemberPhase,
    /// Its coordinator, once found.
    pub coordinator: Option<BrokerId>,
    /// The FindCoordinator in flight, if any.
    pub find_in_flight: Option<i32>,
    /// The JoinGroup in flight, if any.
    pub join_in_flight: Option<i32>,
    /// The SyncGroup in flight, if any.
    pub sync_in_flight: Option<i32>,
    /// The Heartbeat in flight, if any.
    pub heartbeat_in_flight: Option<i32>,
    /// The OffsetFetch in flight and its partitions, if any.
    pub offset_fetch_in_flight: Option<(i32, Vec<TopicPartition>)>,
    /// OffsetCommits in flight: their offsets and whether synchronous, by correlation id.
    pub commits_in_flight: SortedMap<i32, (Vec<(TopicPartition, i64)>, bool)>,
    /// Partitions whose committed offset has been asked for and answered.
    pub fetched: SortedSet<TopicPartition>,
    /// Whether it must join again.
    pub rejoin_needed: bool,
    /// The topics this member subscribes to (resolved for a pattern).
    pub subscription: Vec<String>,
    /// Partition counts the leader assigned with (a change triggers a rebalance).
    pub assigned_snapshot: SortedMap<String, i32>,
    /// Whether it leads the group (runs the assignor).
    pub is_leader: bool,
    /// When the application last called `poll()`.
    pub last_poll_ms: u64,
    /// When the next auto-commit is due.
    pub next_auto_commit_ms: u64,
    /// No coordinator request before this time (a backoff).
    pub retry_at_ms: u64,
    /// A commitSync the application is blocked on.
    pub sync_commit_pending: bool,
    /// When the coordinator last answered a heartbeat (or the member joined):
    /// after `session.timeout.ms` of silence the client gives the coordinator up.
    pub last_heartbeat_ok_ms: u64,
    /// A commit asked for while the coordinator was unknown: (sync, why).
    pub pending_commit: Option<(bool, String)>,
}

impl MemberState {
    /// Whether a request to the coordinator waits for its answer (its
    /// connection closing fails it: `DisconnectException`).
    pub fn awaits_coordinator(&self) -> bool {
        self.join_in_flight.is_some()
            || self.sync_in_flight.is_some()
            || self.heartbeat_in_flight.is_some()
            || self.offset_fetch_in_flight.is_some()
            || !self.commits_in_flight.is_empty()
    }

    /// A member of `group_id`, not joined.
    pub fn new(group_id: &str) -> MemberState {
        MemberState {
            group_id: group_id.to_string(),
            member_id: String::new(),
            generation: -1,
            protocol: None,
            phase: MemberPhase::Unjoined,
            coordinator: None,
            find_in_flight: None,
            join_in_flight: None,
            sync_in_flight: None,
            heartbeat_in_flight: None,
            offset_fetch_in_flight: None,
            commits_in_flight: SortedMap::new(),
            fetched: SortedSet::new(),
            rejoin_needed: true,
            subscription: Vec::new(),
            assigned_snapshot: SortedMap::new(),
            is_leader: false,
            last_poll_ms: 0,
            next_auto_commit_ms: 0,
            retry_at_ms: 0,
            sync_commit_pending: false,
            last_heartbeat_ok_ms: 0,
            pending_commit: None,
        }
    }
}

fn bnode(b: BrokerId) -> NodeId {
    NodeId::Broker(b)
}

/// Partitions in sorted order (as events list them).
pub(crate) fn names(tps: &[TopicPartition]) -> Vec<TopicPartition> {
    let mut v = tps.to_vec();
    v.sort();
    v
}

/// Maps a failed `__consumer_offsets` append to what the coordinator answers
/// (`GroupMetadataManager`'s error mapping).
fn coordinator_error(e: ErrorCode) -> ErrorCode {
    match e {
        ErrorCode::NotLeaderOrFollower => ErrorCode::NotCoordinator,
        ErrorCode::MessageTooLarge | ErrorCode::RecordListTooLarge => e,
        _ => ErrorCode::CoordinatorNotAvailable,
    }
}

/// The `__consumer_offsets` partition of a group: `abs(hashCode(group.id))
/// % offsets.topic.num.partitions`.
pub(crate) fn group_partition(sc: &crate::scenario::Scenario, group: &str) -> i32 {
    crate::partitioner::coordinator_partition(group, sc.cluster.config.offsets_topic_num_partitions)
}

// =============================================================================
// The coordinator (broker side)
// =============================================================================

impl BrokerCx<'_> {
    fn groups(&self) -> &Groups {
        &self.me().groups
    }
    fn groups_mut(&mut self) -> &mut Groups {
        &mut self.me_mut().groups
    }
    fn group(&self, g: &str) -> Option<&Group> {
        self.groups().groups.get(g)
    }
    fn group_mut(&mut self, g: &str) -> &mut Group {
        self.groups_mut().groups.get_mut(g).expect("group")
    }

    /// The offsets partition of a group.
    fn group_partition(&self, group: &str) -> i32 {
        group_partition(&self.k.sc, group)
    }

    /// Whether broker `b` coordinates partition `p` of `__consumer_offsets` now.
    fn is_coordinator_for(&self, p: i32) -> bool {
        let tp = TopicPartition::new(OFFSETS_TOPIC, p);
        self.me().partitions.get(&tp).is_some_and(|x| x.is_leader)
            && self.groups().loaded.contains(&p)
    }

    pub(crate) fn coordinator_on_message(&mut self, from: NodeId, msg: Message) -> Step {
        let b = self.id;
        match msg {
            Message::FindCoordinator {
                correlation_id,
                key,
                key_type: crate::msg::CoordinatorType::Transaction,
            } => self.txn_find(from, correlation_id, &key),
            Message::FindCoordinator {
                correlation_id,
                key,
                ..
            } => self.coordinator_find(from, correlation_id, &key),
            Message::JoinGroup(req) => self.coordinator_join(from, req),
            Message::SyncGroup(req) => self.coordinator_sync(from, req),
            Message::Heartbeat {
                correlation_id,
                group_id,
                generation_id,
                member_id,
                ..
            } => {
                let error = self.coordinator_heartbeat(&group_id, generation_id, &member_id)?;
                self.k
                    .send(
                        bnode(b),
                        from,
                        Message::HeartbeatResponse {
                            correlation_id,
                            error,
                        },
                    )
                    .map(|_| ())
            }
            Message::LeaveGroup {
                correlation_id,
                group_id,
                member_id,
            } => {
                let error = self.coordinator_leave(&group_id, &member_id)?;
                self.k
                    .send(
                        bnode(b),
                        from,
                        Message::LeaveGroupResponse {
                            correlation_id,
                            error,
                        },
                    )
                    .map(|_| ())
            }
            Message::OffsetCommit(req) => self.coordinator_commit(from, req),
            Message::TxnOffsetCommit(req) => self.coordinator_txn_commit(from, req),
            Message::OffsetFetch {
                correlation_id,
                group_id,
                partitions,
                require_stable,
            } => {
                let p = self.group_partition(&group_id);
                let reply = if !self.is_coordinator_for(p) {
                    Message::OffsetFetchResponse {
                        correlation_id,
                        error: Some(ErrorCode::NotCoordinator),
                        offsets: Vec::new(),
                        unstable: Vec::new(),
                    }
                } else {
                    let g = self.group(&group_id);
                    // `getOffsets`: with requireStable, a partition whose
                    // offset a transaction (or a commit being replicated)
                    // is still writing is UNSTABLE_OFFSET_COMMIT.
                    let unstable: Vec<TopicPartition> = partitions
                        .iter()
                        .filter(|tp| require_stable && self.coordinator_has_pending(&group_id, tp))
                        .cloned()
                        .collect();
                    Message::OffsetFetchResponse {
                        correlation_id,
                        error: None,
                        offsets: partitions
                            .into_iter()
                            .map(|tp| {
                                let o = g
                                    .and_then(|g| g.offsets.get(&tp))
                                    .filter(|_| !unstable.contains(&tp))
                                    .copied()
                                    .unwrap_or(-1);
                                (tp, o)
                            })
                            .collect(),
                        unstable,
                    }
                };
                self.k.send(bnode(b), from, reply).map(|_| ())
            }
            _ => Ok(()),
        }
    }

    /// FindCoordinator: the leader of the group's offsets partition, creating
    /// `__consumer_offsets` first if it does not exist.
    fn coordinator_find(&mut self, from: NodeId, cid: i32, group: &str) -> Step {
        let p = self.group_partition(group);
        let exists = match self.me().kraft.as_ref() {
            Some(kr) => kr.image.topics.contains_key(OFFSETS_TOPIC),
            None => self
                .zk
                .get(&format!("/brokers/topics/{OFFSETS_TOPIC}"))
                .is_some(),
        };
        if !exists {
            self.create_offsets_topic()?;
        }
        self.answer_find_coordinator(from, cid, OFFSETS_TOPIC, p)
    }

    /// FindCoordinator's answer: the leader of partition `p` of the
    /// coordinator's topic in this broker's metadata cache, or
    /// COORDINATOR_NOT_AVAILABLE while it has none.
    pub(crate) fn answer_find_coordinator(
        &mut self,
        from: NodeId,
        cid: i32,
        topic: &str,
        p: i32,
    ) -> Step {
        let b = self.id;
        let tp = TopicPartition::new(topic, p);
        let leader = self
            .me()
            .metadata
            .partitions
            .get(&tp)
            .map(|s| s.leader)
            .filter(|l| *l >= 0);
        let reply = Message::FindCoordinatorResponse {
            correlation_id: cid,
            error: leader
                .is_none()
                .then_some(ErrorCode::CoordinatorNotAvailable),
            node_id: leader.unwrap_or(-1),
            partition: p,
        };
        self.k.send(bnode(b), from, reply).map(|_| ())
    }

    /// The broker creates `__consumer_offsets` as `AutoTopicCreationManager`
    /// does: `offsets.topic.num.partitions` partitions, replication factor
    /// `offsets.topic.replication.factor`, refused while fewer brokers are alive.
    fn create_offsets_topic(&mut self) -> Step {
        let b = self.id;
        let cfg = self.k.sc.cluster.config.clone();
        let mut spec = crate::scenario::TopicSpec {
            name: OFFSETS_TOPIC.into(),
            partitions: Some(cfg.offsets_topic_num_partitions),
            replication_factor: Some(cfg.offsets_topic_replication_factor),
            replica_assignment: None,
            fixed_start_index: None,
            config: Default::default(),
        };
        if self.me().kraft.is_some() {
            // KRaft: CreateTopics to the active controller, which places
            // it and answers INVALID_REPLICATION_FACTOR when too few
            // brokers are registered; with the topic's configs
            // (`GroupCoordinator.groupMetadataTopicConfigs`).
            spec.config = crate::config::TopicConfigOverrides {
                cleanup_policy: Some(crate::config::CleanupPolicy::COMPACT),
                segment_bytes: Some(cfg.offsets_topic_segment_bytes),
                ..Default::default()
            };
            return self.kraft_create_topic(spec);
        }
        let alive = self.zk.live_brokers().len() as i32;
        if alive < cfg.offsets_topic_replication_factor {
            return self.k.record(
                vec![bnode(b)],
                EventKind::TopicCreationFailed {
                    topic: OFFSETS_TOPIC.into(),
                    error: format!(
                        "Number of alive brokers '{alive}' does not meet the required replication factor '{}' for the offsets topic (configured via 'offsets.topic.replication.factor'). This error can be ignored if the cluster is starting up and not all brokers are up yet.",
                        cfg.offsets_topic_replication_factor
                    ),
                },
            ).map(|_| ());
        }
        self.zkc().admin_create_topic_by(bnode(b), &spec)
    }
}

/// A JoinGroupResponse with the group's current generation (no rebalance).
fn current_generation(g: &Group, cid: i32, member_id: &str) -> Message {
    Message::JoinGroupResponse {
        correlation_id: cid,
        error: None,
        generation_id: g.generation_id,
        protocol_name: g.protocol_name.clone(),
        leader: g.leader_id.clone().unwrap_or_default(),
        member_id: member_id.to_string(),
        members: Vec::new(),
    }
}

fn join_error(cid: i32, e: ErrorCode, member_id: &str) -> Message {
    Message::JoinGroupResponse {
        correlation_id: cid,
        error: Some(e),
        generation_id: -1,
        protocol_name: None,
        leader: String::new(),
        member_id: member_id.to_string(),
        members: Vec::new(),
    }
}

// =============================================================================
// The member (consumer side)
// =============================================================================
