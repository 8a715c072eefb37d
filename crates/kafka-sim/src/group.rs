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
//! Not modelled: rack-aware assignment, the new consumer protocol (KIP-848),
//! transactional offset commits, offset expiry (`offsets.retention.minutes`),
//! `group.max.size`, and the new-member join timeout.

use crate::collections::{SortedMap, SortedSet};
use crate::event::EventKind;
use crate::group_records as rec;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::msg::{ErrorCode, JoinGroupMember, Message, Subscription};
use crate::sim::{Step, Timer, World};
use crate::storage::record::{self, BatchSpec, NewRecord};
use serde::{Deserialize, Serialize};

/// The internal topic holding committed offsets.
pub const OFFSETS_TOPIC: &str = "__consumer_offsets";

/// A classic group's state (`GroupState` in Kafka).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub enum GroupState {
    Empty,
    PreparingRebalance,
    CompletingRebalance,
    Stable,
}

/// A member as the coordinator keeps it (`MemberMetadata`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub member_id: String,
    pub group_instance_id: Option<String>,
    pub client_id: String,
    pub consumer: u32,
    pub session_timeout_ms: u64,
    pub rebalance_timeout_ms: u64,
    pub protocols: Vec<(String, Subscription)>,
    /// A JoinGroup waiting for the rebalance to finish: (from, correlation id).
    pub awaiting_join: Option<(NodeId, i32)>,
    pub awaiting_sync: Option<(NodeId, i32)>,
    pub assignment: Vec<TopicPartition>,
    /// The session ends at this time unless a heartbeat comes first.
    pub session_deadline: u64,
}

/// A group as its coordinator keeps it (`GroupMetadata`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub group_id: String,
    pub partition: i32,
    pub state: GroupState,
    pub generation_id: i32,
    pub protocol_name: Option<String>,
    pub leader_id: Option<String>,
    /// In join order (the first member becomes leader when none is left).
    pub members: Vec<Member>,
    /// Member ids handed out with MEMBER_ID_REQUIRED, not joined yet.
    pub pending_members: SortedSet<String>,
    pub offsets: SortedMap<TopicPartition, i64>,
    /// The initial delay may be extended until this time.
    pub initial_delay_until: u64,
    pub new_member_added: bool,
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
            offsets: SortedMap::new(),
            initial_delay_until: 0,
            new_member_added: false,
            next_member_seq: 0,
        }
    }
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
    pub groups: SortedMap<String, Group>,
    pub loaded: SortedSet<i32>,
    /// Coordinator writes waiting for the ISR, by delayed-produce id.
    pub writes: SortedMap<u64, GroupWrite>,
}

/// What a coordinator does once its write to `__consumer_offsets` is replicated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupWrite {
    Commit {
        group: String,
        member_id: String,
        from: NodeId,
        correlation_id: i32,
        offsets: Vec<(TopicPartition, i64)>,
    },
    Sync {
        group: String,
        generation: i32,
        assignments: Vec<(String, Vec<TopicPartition>)>,
    },
    /// A group record with no reply waiting (the group became empty).
    Store,
}

/// Where a member stands (`MemberState` in the Java client).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemberPhase {
    Unjoined,
    Joining,
    Syncing,
    Stable,
}

/// A consumer's membership in its group (the client's `ConsumerCoordinator`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberState {
    pub group_id: String,
    pub member_id: String,
    pub generation: i32,
    pub protocol: Option<String>,
    pub phase: MemberPhase,
    pub coordinator: Option<BrokerId>,
    pub find_in_flight: Option<i32>,
    pub join_in_flight: Option<i32>,
    pub sync_in_flight: Option<i32>,
    pub heartbeat_in_flight: Option<i32>,
    pub offset_fetch_in_flight: Option<(i32, Vec<TopicPartition>)>,
    pub commits_in_flight: SortedMap<i32, (Vec<(TopicPartition, i64)>, bool)>,
    /// Partitions whose committed offset has been asked for and answered.
    pub fetched: SortedSet<TopicPartition>,
    pub rejoin_needed: bool,
    /// The topics this member subscribes to (resolved for a pattern).
    pub subscription: Vec<String>,
    /// Partition counts the leader assigned with (a change triggers a rebalance).
    pub assigned_snapshot: SortedMap<String, i32>,
    pub is_leader: bool,
    pub last_poll_ms: u64,
    pub next_auto_commit_ms: u64,
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

// =============================================================================
// The coordinator (broker side)
// =============================================================================

impl World {
    fn groups(&self, b: BrokerId) -> &Groups {
        &self.brokers[&b].groups
    }
    fn groups_mut(&mut self, b: BrokerId) -> &mut Groups {
        &mut std::sync::Arc::make_mut(self.brokers.get_mut(&b).expect("broker")).groups
    }
    fn group(&self, b: BrokerId, g: &str) -> Option<&Group> {
        self.groups(b).groups.get(g)
    }
    fn group_mut(&mut self, b: BrokerId, g: &str) -> &mut Group {
        self.groups_mut(b).groups.get_mut(g).expect("group")
    }

    /// The offsets partition of a group.
    pub fn group_partition(&self, group: &str) -> i32 {
        crate::partitioner::coordinator_partition(
            group,
            self.k.sc.cluster.config.offsets_topic_num_partitions,
        )
    }

    /// Whether broker `b` coordinates partition `p` of `__consumer_offsets` now.
    fn is_coordinator_for(&self, b: BrokerId, p: i32) -> bool {
        let tp = TopicPartition::new(OFFSETS_TOPIC, p);
        self.brokers[&b]
            .partitions
            .get(&tp)
            .is_some_and(|x| x.is_leader)
            && self.groups(b).loaded.contains(&p)
    }

    pub(crate) fn coordinator_on_message(
        &mut self,
        b: BrokerId,
        from: NodeId,
        msg: Message,
    ) -> Step {
        match msg {
            Message::FindCoordinator {
                correlation_id,
                key,
            } => self.coordinator_find(b, from, correlation_id, &key),
            Message::JoinGroup {
                correlation_id,
                group_id,
                session_timeout_ms,
                rebalance_timeout_ms,
                member_id,
                group_instance_id,
                protocols,
                ..
            } => self.coordinator_join(
                b,
                from,
                correlation_id,
                &group_id,
                session_timeout_ms,
                rebalance_timeout_ms,
                member_id,
                group_instance_id,
                protocols,
            ),
            Message::SyncGroup {
                correlation_id,
                group_id,
                generation_id,
                member_id,
                assignments,
                ..
            } => self.coordinator_sync(
                b,
                from,
                correlation_id,
                &group_id,
                generation_id,
                &member_id,
                assignments,
            ),
            Message::Heartbeat {
                correlation_id,
                group_id,
                generation_id,
                member_id,
                ..
            } => {
                let error = self.coordinator_heartbeat(b, &group_id, generation_id, &member_id)?;
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
                let error = self.coordinator_leave(b, &group_id, &member_id)?;
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
            Message::OffsetCommit {
                correlation_id,
                group_id,
                generation_id,
                member_id,
                offsets,
            } => self.coordinator_commit(
                b,
                from,
                correlation_id,
                &group_id,
                generation_id,
                &member_id,
                offsets,
            ),
            Message::OffsetFetch {
                correlation_id,
                group_id,
                partitions,
            } => {
                let p = self.group_partition(&group_id);
                let reply = if !self.is_coordinator_for(b, p) {
                    Message::OffsetFetchResponse {
                        correlation_id,
                        error: Some(ErrorCode::NotCoordinator),
                        offsets: Vec::new(),
                    }
                } else {
                    let g = self.group(b, &group_id);
                    Message::OffsetFetchResponse {
                        correlation_id,
                        error: None,
                        offsets: partitions
                            .into_iter()
                            .map(|tp| {
                                let o = g.and_then(|g| g.offsets.get(&tp)).copied().unwrap_or(-1);
                                (tp, o)
                            })
                            .collect(),
                    }
                };
                self.k.send(bnode(b), from, reply).map(|_| ())
            }
            _ => Ok(()),
        }
    }

    /// FindCoordinator: the leader of the group's offsets partition, creating
    /// `__consumer_offsets` first if it does not exist.
    fn coordinator_find(&mut self, b: BrokerId, from: NodeId, cid: i32, group: &str) -> Step {
        let p = self.group_partition(group);
        let tp = TopicPartition::new(OFFSETS_TOPIC, p);
        let exists = self
            .zk
            .get(&format!("/brokers/topics/{OFFSETS_TOPIC}"))
            .is_some();
        if !exists {
            self.create_offsets_topic(b)?;
        }
        let leader = self.brokers[&b]
            .metadata
            .partitions
            .get(&tp)
            .map(|s| s.leader)
            .filter(|l| *l >= 0);
        let reply = match leader {
            Some(l) => Message::FindCoordinatorResponse {
                correlation_id: cid,
                error: None,
                node_id: l,
                partition: p,
            },
            None => Message::FindCoordinatorResponse {
                correlation_id: cid,
                error: Some(ErrorCode::CoordinatorNotAvailable),
                node_id: -1,
                partition: p,
            },
        };
        self.k.send(bnode(b), from, reply).map(|_| ())
    }

    /// The broker creates `__consumer_offsets` as `AutoTopicCreationManager`
    /// does: `offsets.topic.num.partitions` partitions, replication factor
    /// `offsets.topic.replication.factor`, refused while fewer brokers are alive.
    fn create_offsets_topic(&mut self, b: BrokerId) -> Step {
        let cfg = self.k.sc.cluster.config.clone();
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
        let spec = crate::scenario::TopicSpec {
            name: OFFSETS_TOPIC.into(),
            partitions: Some(cfg.offsets_topic_num_partitions),
            replication_factor: Some(cfg.offsets_topic_replication_factor),
            replica_assignment: None,
            fixed_start_index: None,
            config: Default::default(),
        };
        self.admin_create_topic_by(bnode(b), &spec)
    }

    /// A broker became leader of an offsets partition: load its groups.
    pub(crate) fn coordinator_on_leader(&mut self, b: BrokerId, tp: &TopicPartition) -> Step {
        if &*tp.topic != OFFSETS_TOPIC {
            return Ok(());
        }
        let p = tp.partition;
        if self.groups(b).loaded.contains(&p) {
            // Still the leader (a new leader epoch): Kafka keeps the groups it
            // has (`addLoadingPartition` refuses an owned partition).
            return Ok(());
        }
        // Read the whole log: the latest value per key wins, tombstones delete.
        let mut offsets: SortedMap<(String, TopicPartition), i64> = SortedMap::new();
        let mut metas: SortedMap<String, Option<rec::GroupValue>> = SortedMap::new();
        {
            let br = &self.brokers[&b];
            if let Some(log) = br.logs.get(tp) {
                let mut at = log.log_start_offset;
                while at < log.log_end_offset {
                    let Ok(data) = log.read(&br.disk, at, 1 << 20, log.log_end_offset, true) else {
                        break;
                    };
                    if data.bytes.is_empty() {
                        break;
                    }
                    let mut pos = 0usize;
                    let mut next = at;
                    while pos < data.bytes.len() {
                        let Ok(batch) = record::decode_batch(&data.bytes[pos..], pos as u64) else {
                            break;
                        };
                        pos += batch.header.size_in_bytes() as usize;
                        next = next.max(batch.header.last_offset() + 1);
                        for r in &batch.records {
                            let Some(key) = r.key.as_deref().and_then(rec::parse_key) else {
                                continue;
                            };
                            match key {
                                rec::OffsetsKey::Offset { group, tp } => {
                                    match r.value.as_deref().and_then(rec::parse_offset_value) {
                                        Some(v) => {
                                            offsets.insert((group, tp), v.offset);
                                        }
                                        None => {
                                            offsets.remove(&(group, tp));
                                        }
                                    }
                                }
                                rec::OffsetsKey::Group { group } => {
                                    metas.insert(
                                        group,
                                        r.value.as_deref().and_then(rec::parse_group_value),
                                    );
                                }
                            }
                        }
                    }
                    if next <= at {
                        break;
                    }
                    at = next;
                }
            }
        }
        let now = self.k.now;
        let mut groups: SortedMap<String, Group> = SortedMap::new();
        for ((g, tp), o) in &offsets {
            groups
                .entry(g.clone())
                .or_insert_with(|| Group::new(g, p))
                .offsets
                .insert(tp.clone(), *o);
        }
        for (g, v) in &metas {
            let Some(v) = v else { continue };
            let group = groups.entry(g.clone()).or_insert_with(|| Group::new(g, p));
            group.generation_id = v.generation;
            group.protocol_name = v.protocol.clone();
            group.leader_id = v.leader.clone();
            group.state = if v.members.is_empty() {
                GroupState::Empty
            } else {
                GroupState::Stable
            };
            for m in &v.members {
                let consumer = self
                    .consumers
                    .iter()
                    .position(|c| m.client_id == c.client_id())
                    .unwrap_or(0) as u32;
                group.members.push(Member {
                    member_id: m.member_id.clone(),
                    group_instance_id: m.group_instance_id.clone(),
                    client_id: m.client_id.clone(),
                    consumer,
                    session_timeout_ms: m.session_timeout_ms as u64,
                    rebalance_timeout_ms: m.rebalance_timeout_ms as u64,
                    protocols: vec![(
                        v.protocol.clone().unwrap_or_default(),
                        m.subscription.clone(),
                    )],
                    awaiting_join: None,
                    awaiting_sync: None,
                    assignment: m.assignment.clone(),
                    session_deadline: now + m.session_timeout_ms as u64,
                });
            }
        }
        let loaded: Vec<String> = groups.keys().cloned().collect();
        let n_offsets = offsets.len() as u32;
        self.k.gate()?;
        {
            let gs = self.groups_mut(b);
            gs.loaded.insert(p);
            gs.groups.retain(|_, g| g.partition != p);
            for (k, g) in groups {
                gs.groups.insert(k, g);
            }
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::GroupsLoaded {
                broker: b,
                partition: p,
                groups: loaded.clone(),
                offsets: n_offsets,
            },
        );
        for g in loaded {
            let members: Vec<(String, u64)> = self
                .group(b, &g)
                .map(|g| {
                    g.members
                        .iter()
                        .map(|m| (m.member_id.clone(), m.session_deadline))
                        .collect()
                })
                .unwrap_or_default();
            for (m, at) in members {
                self.k.set_timer(
                    bnode(b),
                    at,
                    Timer::GroupMemberExpiry {
                        group: g.clone(),
                        member: m,
                    },
                )?;
            }
        }
        Ok(())
    }

    /// A broker stopped leading an offsets partition: its groups move away.
    pub(crate) fn coordinator_on_resign(&mut self, b: BrokerId, tp: &TopicPartition) -> Step {
        if &*tp.topic != OFFSETS_TOPIC || !self.groups(b).loaded.contains(&tp.partition) {
            return Ok(());
        }
        let p = tp.partition;
        let gone: Vec<String> = self
            .groups(b)
            .groups
            .values()
            .filter(|g| g.partition == p)
            .map(|g| g.group_id.clone())
            .collect();
        // Requests parked in the groups get NOT_COORDINATOR.
        let mut replies = Vec::new();
        for g in &gone {
            for m in &self.group(b, g).expect("listed").members {
                if let Some((to, cid)) = m.awaiting_join {
                    replies.push((to, join_error(cid, ErrorCode::NotCoordinator, &m.member_id)));
                }
                if let Some((to, cid)) = m.awaiting_sync {
                    replies.push((
                        to,
                        Message::SyncGroupResponse {
                            correlation_id: cid,
                            error: Some(ErrorCode::NotCoordinator),
                            assignment: Vec::new(),
                        },
                    ));
                }
            }
        }
        self.k.gate()?;
        {
            let gs = self.groups_mut(b);
            gs.loaded.remove(&p);
            gs.groups.retain(|_, g| g.partition != p);
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::GroupsUnloaded {
                broker: b,
                partition: p,
                groups: gone,
            },
        );
        for (to, m) in replies {
            self.k.send(bnode(b), to, m)?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn coordinator_join(
        &mut self,
        b: BrokerId,
        from: NodeId,
        cid: i32,
        group_id: &str,
        session_timeout_ms: u64,
        rebalance_timeout_ms: u64,
        member_id: String,
        group_instance_id: Option<String>,
        protocols: Vec<(String, Subscription)>,
    ) -> Step {
        let p = self.group_partition(group_id);
        let reply_err = |w: &mut World, e: ErrorCode, m: &str| -> Step {
            w.k.send(bnode(b), from, join_error(cid, e, m)).map(|_| ())
        };
        if !self.is_coordinator_for(b, p) {
            return reply_err(self, ErrorCode::NotCoordinator, &member_id);
        }
        let cfg = &self.k.sc.cluster.config;
        if session_timeout_ms < cfg.group_min_session_timeout_ms
            || session_timeout_ms > cfg.group_max_session_timeout_ms
        {
            return reply_err(self, ErrorCode::InvalidSessionTimeout, &member_id);
        }
        let consumer = match from {
            NodeId::Consumer(c) => c,
            _ => 0,
        };
        if self.group(b, group_id).is_none() {
            self.k.gate()?;
            self.groups_mut(b)
                .groups
                .insert(group_id.to_string(), Group::new(group_id, p));
        }
        let g = self.group(b, group_id).expect("just ensured").clone();
        // The members must share at least one assignor with the group.
        if !g.members.is_empty()
            && !protocols.iter().any(|(n, _)| {
                g.members
                    .iter()
                    .filter(|m| m.member_id != member_id)
                    .all(|m| m.protocols.iter().any(|(x, _)| x == n))
            })
        {
            return reply_err(self, ErrorCode::InconsistentGroupProtocol, &member_id);
        }
        let client_id = self
            .consumers
            .get(consumer as usize)
            .map(|c| c.client_id())
            .unwrap_or_default();
        // Static member: the instance id keeps its place; a new member id
        // replaces the old one without a rebalance (KIP-345).
        if let Some(inst) = &group_instance_id {
            if let Some(old) = g
                .members
                .iter()
                .find(|m| m.group_instance_id.as_ref() == Some(inst))
                .cloned()
            {
                if member_id.is_empty() || member_id != old.member_id {
                    let new_id = self.new_member_id(b, group_id, &client_id);
                    self.k.gate()?;
                    let now = self.k.now;
                    {
                        let grp = self.group_mut(b, group_id);
                        let m = grp.member_mut(&old.member_id).expect("found");
                        m.member_id = new_id.clone();
                        m.consumer = consumer;
                        m.session_deadline = now + session_timeout_ms;
                        m.protocols = protocols.clone();
                        if grp.leader_id.as_deref() == Some(old.member_id.as_str()) {
                            grp.leader_id = Some(new_id.clone());
                        }
                    }
                    self.k.emit(
                        vec![bnode(b), from],
                        EventKind::StaticMemberReplaced {
                            broker: b,
                            group: group_id.to_string(),
                            group_instance_id: inst.clone(),
                            old_member_id: old.member_id.clone(),
                            new_member_id: new_id.clone(),
                        },
                    );
                    self.k.set_timer(
                        bnode(b),
                        now + session_timeout_ms,
                        Timer::GroupMemberExpiry {
                            group: group_id.to_string(),
                            member: new_id.clone(),
                        },
                    )?;
                    let g = self.group(b, group_id).expect("exists").clone();
                    if g.state == GroupState::Stable {
                        // Answer with the current generation; the member syncs
                        // and gets its old assignment back.
                        return self
                            .k
                            .send(bnode(b), from, current_generation(&g, cid, &new_id))
                            .map(|_| ());
                    }
                    return self.coordinator_add_or_update(
                        b,
                        from,
                        cid,
                        group_id,
                        &new_id,
                        None,
                        consumer,
                        &client_id,
                        session_timeout_ms,
                        rebalance_timeout_ms,
                        protocols,
                    );
                }
            }
        }
        if member_id.is_empty() {
            let new_id = self.new_member_id(b, group_id, &client_id);
            if group_instance_id.is_some() {
                // A static member joins at once with its new id.
                return self.coordinator_add_or_update(
                    b,
                    from,
                    cid,
                    group_id,
                    &new_id,
                    group_instance_id,
                    consumer,
                    &client_id,
                    session_timeout_ms,
                    rebalance_timeout_ms,
                    protocols,
                );
            }
            // KIP-394: hand out an id and ask the member to come back with it.
            self.k.gate()?;
            self.group_mut(b, group_id)
                .pending_members
                .insert(new_id.clone());
            self.k.emit(
                vec![bnode(b), from],
                EventKind::MemberIdAssigned {
                    broker: b,
                    group: group_id.to_string(),
                    member_id: new_id.clone(),
                },
            );
            let at = self.k.now + session_timeout_ms;
            self.k.set_timer(
                bnode(b),
                at,
                Timer::GroupMemberExpiry {
                    group: group_id.to_string(),
                    member: new_id.clone(),
                },
            )?;
            return reply_err(self, ErrorCode::MemberIdRequired, &new_id);
        }
        let known = g.member(&member_id).is_some() || g.pending_members.contains(&member_id);
        if !known {
            return reply_err(self, ErrorCode::UnknownMemberId, &member_id);
        }
        self.coordinator_add_or_update(
            b,
            from,
            cid,
            group_id,
            &member_id,
            group_instance_id,
            consumer,
            &client_id,
            session_timeout_ms,
            rebalance_timeout_ms,
            protocols,
        )
    }

    fn new_member_id(&mut self, b: BrokerId, group_id: &str, client_id: &str) -> String {
        // Kafka: clientId + "-" + a random UUID. Here a deterministic one.
        let g = self.group_mut(b, group_id);
        g.next_member_seq += 1;
        let seq = g.next_member_seq;
        let h = crate::partitioner::murmur2(format!("{group_id}/{client_id}/{seq}").as_bytes());
        format!("{client_id}-{:08x}-{seq:04x}", h as u32)
    }

    #[allow(clippy::too_many_arguments)]
    fn coordinator_add_or_update(
        &mut self,
        b: BrokerId,
        from: NodeId,
        cid: i32,
        group_id: &str,
        member_id: &str,
        group_instance_id: Option<String>,
        consumer: u32,
        client_id: &str,
        session_timeout_ms: u64,
        rebalance_timeout_ms: u64,
        protocols: Vec<(String, Subscription)>,
    ) -> Step {
        let now = self.k.now;
        let g = self.group(b, group_id).expect("exists").clone();
        let existing = g.member(member_id).cloned();
        match (&existing, g.state) {
            (Some(m), GroupState::Stable | GroupState::CompletingRebalance)
                if m.protocols == protocols
                    && g.leader_id.as_deref() != Some(member_id)
                    && g.state == GroupState::Stable =>
            {
                // Nothing changed: answer with the current generation.
                self.k.gate()?;
                self.group_mut(b, group_id)
                    .member_mut(member_id)
                    .expect("exists")
                    .session_deadline = now + session_timeout_ms;
                return self
                    .k
                    .send(bnode(b), from, current_generation(&g, cid, member_id))
                    .map(|_| ());
            }
            _ => {}
        }
        self.k.gate()?;
        {
            let grp = self.group_mut(b, group_id);
            grp.pending_members.remove(member_id);
            match grp.member_mut(member_id) {
                Some(m) => {
                    m.protocols = protocols;
                    m.awaiting_join = Some((from, cid));
                    m.consumer = consumer;
                    m.session_deadline = now + session_timeout_ms;
                    m.rebalance_timeout_ms = rebalance_timeout_ms;
                }
                None => {
                    grp.members.push(Member {
                        member_id: member_id.to_string(),
                        group_instance_id: group_instance_id.clone(),
                        client_id: client_id.to_string(),
                        consumer,
                        session_timeout_ms,
                        rebalance_timeout_ms,
                        protocols,
                        awaiting_join: Some((from, cid)),
                        awaiting_sync: None,
                        assignment: Vec::new(),
                        session_deadline: now + session_timeout_ms,
                    });
                    grp.new_member_added = true;
                    if grp.leader_id.is_none() {
                        grp.leader_id = Some(member_id.to_string());
                    }
                }
            }
        }
        self.k.emit(
            vec![from, bnode(b)],
            EventKind::MemberJoining {
                broker: b,
                group: group_id.to_string(),
                member_id: member_id.to_string(),
                group_instance_id,
                known: existing.is_some(),
            },
        );
        self.k.set_timer(
            bnode(b),
            now + session_timeout_ms,
            Timer::GroupMemberExpiry {
                group: group_id.to_string(),
                member: member_id.to_string(),
            },
        )?;
        let state = self.group(b, group_id).expect("exists").state;
        match state {
            GroupState::PreparingRebalance => self.coordinator_maybe_complete_join(b, group_id),
            _ => {
                let reason = if existing.is_some() {
                    format!("member {member_id} rejoined (its subscription or role changed)")
                } else {
                    format!("member {member_id} joined")
                };
                self.coordinator_prepare_rebalance(b, group_id, reason)
            }
        }
    }

    /// `prepareRebalance`: PreparingRebalance, waiting for every member's JoinGroup.
    fn coordinator_prepare_rebalance(
        &mut self,
        b: BrokerId,
        group_id: &str,
        reason: String,
    ) -> Step {
        let g = self.group(b, group_id).expect("exists").clone();
        // Members waiting in SyncGroup learn that another rebalance began.
        if g.state == GroupState::CompletingRebalance {
            for m in &g.members {
                if let Some((to, cid)) = m.awaiting_sync {
                    self.k.gate()?;
                    self.group_mut(b, group_id)
                        .member_mut(&m.member_id)
                        .expect("exists")
                        .awaiting_sync = None;
                    self.k.send(
                        bnode(b),
                        to,
                        Message::SyncGroupResponse {
                            correlation_id: cid,
                            error: Some(ErrorCode::RebalanceInProgress),
                            assignment: Vec::new(),
                        },
                    )?;
                }
            }
        }
        let was_empty = g.state == GroupState::Empty;
        let delay = self.k.sc.cluster.config.group_initial_rebalance_delay_ms;
        let now = self.k.now;
        let timeout = self.group(b, group_id).expect("exists").rebalance_timeout();
        self.k.gate()?;
        {
            let grp = self.group_mut(b, group_id);
            grp.state = GroupState::PreparingRebalance;
            grp.new_member_added = false;
            // During the initial delay the join completes only when the
            // delay runs out (InitialDelayedJoin), never early.
            grp.initial_delay_until = if was_empty && delay > 0 {
                now + timeout
            } else {
                0
            };
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::RebalanceStarted {
                broker: b,
                group: group_id.to_string(),
                generation: g.generation_id,
                reason,
                wait_ms: if was_empty && delay > 0 {
                    delay.min(timeout)
                } else {
                    timeout
                },
                initial_delay: was_empty && delay > 0,
            },
        );
        if was_empty && delay > 0 {
            self.k.set_timer(
                bnode(b),
                now + delay.min(timeout),
                Timer::GroupInitialDelay {
                    group: group_id.to_string(),
                },
            )
        } else {
            self.k.set_timer(
                bnode(b),
                now + timeout,
                Timer::GroupJoinDeadline {
                    group: group_id.to_string(),
                    generation: g.generation_id,
                },
            )?;
            self.coordinator_maybe_complete_join(b, group_id)
        }
    }

    /// `InitialDelayedJoin`: while members keep arriving, wait a little longer.
    pub(crate) fn coordinator_initial_delay(&mut self, b: BrokerId, g: &str) -> Step {
        let Some(grp) = self.group(b, g).cloned() else {
            return Ok(());
        };
        if grp.state != GroupState::PreparingRebalance {
            return Ok(());
        }
        let delay = self.k.sc.cluster.config.group_initial_rebalance_delay_ms;
        let remaining = grp.initial_delay_until.saturating_sub(self.k.now);
        if grp.new_member_added && remaining > 0 {
            self.k.gate()?;
            self.group_mut(b, g).new_member_added = false;
            let at = self.k.now + delay.min(remaining);
            return self
                .k
                .set_timer(bnode(b), at, Timer::GroupInitialDelay { group: g.into() });
        }
        self.coordinator_complete_join(b, g)
    }

    fn coordinator_maybe_complete_join(&mut self, b: BrokerId, g: &str) -> Step {
        let grp = self.group(b, g).expect("exists");
        if grp.state == GroupState::PreparingRebalance
            && grp.all_joined()
            && grp.initial_delay_until <= self.k.now
        {
            self.coordinator_complete_join(b, g)
        } else {
            Ok(())
        }
    }

    /// The rebalance timeout ran out: go on without the members that did not rejoin.
    pub(crate) fn coordinator_join_deadline(&mut self, b: BrokerId, g: &str, gen: i32) -> Step {
        match self.group(b, g) {
            Some(grp)
                if grp.state == GroupState::PreparingRebalance && grp.generation_id == gen =>
            {
                self.coordinator_complete_join(b, g)
            }
            _ => Ok(()),
        }
    }

    /// `onCompleteJoin`: the next generation begins.
    fn coordinator_complete_join(&mut self, b: BrokerId, g: &str) -> Step {
        let grp = self.group(b, g).expect("exists").clone();
        for m in grp.members.iter().filter(|m| m.awaiting_join.is_none()) {
            self.coordinator_remove_member(
                b,
                g,
                &m.member_id,
                "did not rejoin within the rebalance timeout (max.poll.interval.ms)",
            )?;
        }
        let grp = self.group(b, g).expect("exists").clone();
        let protocol = grp.select_protocol();
        let next_gen = grp.generation_id + 1;
        let leader = grp
            .leader_id
            .clone()
            .filter(|l| grp.member(l).is_some())
            .or_else(|| grp.members.first().map(|m| m.member_id.clone()));
        self.k.gate()?;
        let now = self.k.now;
        {
            let x = self.group_mut(b, g);
            x.generation_id = next_gen;
            x.initial_delay_until = 0;
            x.protocol_name = protocol.clone();
            x.leader_id = leader.clone();
            x.state = if x.members.is_empty() {
                GroupState::Empty
            } else {
                GroupState::CompletingRebalance
            };
            for m in &mut x.members {
                m.awaiting_join = None;
                // completeAndScheduleNextHeartbeatExpiration
                m.session_deadline = now + m.session_timeout_ms;
            }
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::GenerationStarted {
                broker: b,
                group: g.to_string(),
                generation: next_gen,
                protocol: protocol.clone(),
                leader: leader.clone(),
                members: grp.members.iter().map(|m| m.member_id.clone()).collect(),
            },
        );
        if grp.members.is_empty() {
            return self.coordinator_store_group(b, g, GroupWrite::Store);
        }
        for m in &grp.members {
            self.k.set_timer(
                bnode(b),
                now + m.session_timeout_ms,
                Timer::GroupMemberExpiry {
                    group: g.to_string(),
                    member: m.member_id.clone(),
                },
            )?;
        }
        let proto = protocol.clone().unwrap_or_default();
        let all: Vec<JoinGroupMember> = grp
            .members
            .iter()
            .map(|m| JoinGroupMember {
                member_id: m.member_id.clone(),
                group_instance_id: m.group_instance_id.clone(),
                subscription: m
                    .protocols
                    .iter()
                    .find(|(n, _)| *n == proto)
                    .map(|(_, s)| s.clone())
                    .unwrap_or(Subscription {
                        topics: Vec::new(),
                        owned_partitions: Vec::new(),
                        generation_id: -1,
                    }),
            })
            .collect();
        for m in &grp.members {
            let Some((to, cid)) = m.awaiting_join else {
                continue;
            };
            let is_leader = leader.as_deref() == Some(m.member_id.as_str());
            self.k.send(
                bnode(b),
                to,
                Message::JoinGroupResponse {
                    correlation_id: cid,
                    error: None,
                    generation_id: next_gen,
                    protocol_name: protocol.clone(),
                    leader: leader.clone().unwrap_or_default(),
                    member_id: m.member_id.clone(),
                    members: if is_leader { all.clone() } else { Vec::new() },
                },
            )?;
        }
        Ok(())
    }

    fn coordinator_remove_member(
        &mut self,
        b: BrokerId,
        g: &str,
        member: &str,
        reason: &str,
    ) -> Step {
        let Some(m) = self.group(b, g).and_then(|x| x.member(member)).cloned() else {
            return Ok(());
        };
        self.k.gate()?;
        {
            let x = self.group_mut(b, g);
            x.members.retain(|y| y.member_id != member);
            if x.leader_id.as_deref() == Some(member) {
                x.leader_id = x.members.first().map(|y| y.member_id.clone());
            }
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::MemberRemoved {
                broker: b,
                group: g.to_string(),
                member_id: member.to_string(),
                reason: reason.to_string(),
            },
        );
        if let Some((to, cid)) = m.awaiting_join {
            self.k.send(
                bnode(b),
                to,
                join_error(cid, ErrorCode::UnknownMemberId, member),
            )?;
        }
        Ok(())
    }

    pub(crate) fn coordinator_member_expiry(&mut self, b: BrokerId, g: &str, m: &str) -> Step {
        let Some(grp) = self.group(b, g).cloned() else {
            return Ok(());
        };
        if grp.pending_members.contains(m) {
            self.k.gate()?;
            self.group_mut(b, g).pending_members.remove(m);
            return self.coordinator_maybe_complete_join(b, g);
        }
        let Some(member) = grp.member(m) else {
            return Ok(());
        };
        // A member waiting in JoinGroup or SyncGroup has done its part: Kafka
        // counts it as alive (`MemberMetadata.hasSatisfiedHeartbeat`), and its
        // deadline starts again when the join completes.
        if member.session_deadline > self.k.now
            || member.awaiting_join.is_some()
            || member.awaiting_sync.is_some()
        {
            return Ok(());
        }
        let timeout = member.session_timeout_ms;
        self.coordinator_remove_member(
            b,
            g,
            m,
            &format!("no heartbeat within session.timeout.ms={timeout}"),
        )?;
        self.coordinator_after_member_left(b, g, m)
    }

    fn coordinator_after_member_left(&mut self, b: BrokerId, g: &str, m: &str) -> Step {
        match self.group(b, g).expect("exists").state {
            GroupState::Stable | GroupState::CompletingRebalance => {
                self.coordinator_prepare_rebalance(b, g, format!("member {m} left"))
            }
            GroupState::PreparingRebalance => self.coordinator_maybe_complete_join(b, g),
            GroupState::Empty => Ok(()),
        }
    }

    fn coordinator_heartbeat(
        &mut self,
        b: BrokerId,
        g: &str,
        gen: i32,
        member: &str,
    ) -> Step<Option<ErrorCode>> {
        let p = self.group_partition(g);
        if !self.is_coordinator_for(b, p) {
            return Ok(Some(ErrorCode::NotCoordinator));
        }
        let Some(grp) = self.group(b, g) else {
            return Ok(Some(ErrorCode::UnknownMemberId));
        };
        let Some(m) = grp.member(member) else {
            return Ok(Some(ErrorCode::UnknownMemberId));
        };
        let timeout = m.session_timeout_ms;
        let state = grp.state;
        if gen != grp.generation_id {
            return Ok(Some(ErrorCode::IllegalGeneration));
        }
        self.k.gate()?;
        let at = self.k.now + timeout;
        self.group_mut(b, g)
            .member_mut(member)
            .expect("exists")
            .session_deadline = at;
        self.k.set_timer(
            bnode(b),
            at,
            Timer::GroupMemberExpiry {
                group: g.into(),
                member: member.into(),
            },
        )?;
        Ok(match state {
            GroupState::PreparingRebalance => Some(ErrorCode::RebalanceInProgress),
            GroupState::Empty => Some(ErrorCode::UnknownMemberId),
            _ => None,
        })
    }

    fn coordinator_leave(&mut self, b: BrokerId, g: &str, member: &str) -> Step<Option<ErrorCode>> {
        let p = self.group_partition(g);
        if !self.is_coordinator_for(b, p) {
            return Ok(Some(ErrorCode::NotCoordinator));
        }
        if self.group(b, g).and_then(|x| x.member(member)).is_none() {
            return Ok(Some(ErrorCode::UnknownMemberId));
        }
        self.coordinator_remove_member(b, g, member, "sent LeaveGroup")?;
        self.coordinator_after_member_left(b, g, member)?;
        Ok(None)
    }

    #[allow(clippy::too_many_arguments)]
    fn coordinator_sync(
        &mut self,
        b: BrokerId,
        from: NodeId,
        cid: i32,
        g: &str,
        gen: i32,
        member: &str,
        assignments: Vec<(String, Vec<TopicPartition>)>,
    ) -> Step {
        let p = self.group_partition(g);
        let err = |e: ErrorCode| Message::SyncGroupResponse {
            correlation_id: cid,
            error: Some(e),
            assignment: Vec::new(),
        };
        if !self.is_coordinator_for(b, p) {
            return self
                .k
                .send(bnode(b), from, err(ErrorCode::NotCoordinator))
                .map(|_| ());
        }
        let Some(grp) = self.group(b, g).cloned() else {
            return self
                .k
                .send(bnode(b), from, err(ErrorCode::UnknownMemberId))
                .map(|_| ());
        };
        let Some(m) = grp.member(member) else {
            return self
                .k
                .send(bnode(b), from, err(ErrorCode::UnknownMemberId))
                .map(|_| ());
        };
        if gen != grp.generation_id {
            return self
                .k
                .send(bnode(b), from, err(ErrorCode::IllegalGeneration))
                .map(|_| ());
        }
        match grp.state {
            GroupState::Empty => self
                .k
                .send(bnode(b), from, err(ErrorCode::UnknownMemberId))
                .map(|_| ()),
            GroupState::PreparingRebalance => self
                .k
                .send(bnode(b), from, err(ErrorCode::RebalanceInProgress))
                .map(|_| ()),
            GroupState::Stable => {
                let a = m.assignment.clone();
                self.k
                    .send(
                        bnode(b),
                        from,
                        Message::SyncGroupResponse {
                            correlation_id: cid,
                            error: None,
                            assignment: a,
                        },
                    )
                    .map(|_| ())
            }
            GroupState::CompletingRebalance => {
                self.k.gate()?;
                self.group_mut(b, g)
                    .member_mut(member)
                    .expect("exists")
                    .awaiting_sync = Some((from, cid));
                if grp.leader_id.as_deref() == Some(member) {
                    // Members the leader left out get nothing.
                    let mut full: Vec<(String, Vec<TopicPartition>)> = grp
                        .members
                        .iter()
                        .map(|m| {
                            let a = assignments
                                .iter()
                                .find(|(id, _)| *id == m.member_id)
                                .map(|(_, a)| a.clone())
                                .unwrap_or_default();
                            (m.member_id.clone(), a)
                        })
                        .collect();
                    full.sort_by(|a, b| a.0.cmp(&b.0));
                    self.coordinator_store_group(
                        b,
                        g,
                        GroupWrite::Sync {
                            group: g.to_string(),
                            generation: gen,
                            assignments: full,
                        },
                    )?;
                }
                Ok(())
            }
        }
    }

    /// Writes the group record (`storeGroup`); what happens next waits for the ISR.
    fn coordinator_store_group(&mut self, b: BrokerId, g: &str, write: GroupWrite) -> Step {
        let grp = self.group(b, g).expect("exists").clone();
        let members: Vec<rec::StoredMember> = grp
            .members
            .iter()
            .map(|m| {
                let assignment = match &write {
                    GroupWrite::Sync { assignments, .. } => assignments
                        .iter()
                        .find(|(id, _)| *id == m.member_id)
                        .map(|(_, a)| a.clone())
                        .unwrap_or_default(),
                    _ => m.assignment.clone(),
                };
                let proto = grp.protocol_name.clone().unwrap_or_default();
                rec::StoredMember {
                    member_id: m.member_id.clone(),
                    group_instance_id: m.group_instance_id.clone(),
                    client_id: m.client_id.clone(),
                    client_host: format!("/consumer-{}", m.consumer),
                    rebalance_timeout_ms: m.rebalance_timeout_ms as i32,
                    session_timeout_ms: m.session_timeout_ms as i32,
                    subscription: m
                        .protocols
                        .iter()
                        .find(|(n, _)| *n == proto)
                        .map(|(_, s)| s.clone())
                        .unwrap_or(Subscription {
                            topics: Vec::new(),
                            owned_partitions: Vec::new(),
                            generation_id: -1,
                        }),
                    assignment,
                }
            })
            .collect();
        let value = rec::GroupValue {
            protocol_type: "consumer".into(),
            generation: grp.generation_id,
            protocol: grp.protocol_name.clone(),
            leader: grp.leader_id.clone(),
            current_state_timestamp: self.wall_ms(),
            members,
        };
        let r = NewRecord::new(
            Some(&rec::group_key(g)),
            Some(&rec::group_value(&value)),
            self.wall_ms(),
        );
        self.coordinator_append(b, grp.partition, vec![r], write)
    }

    /// Appends to `__consumer_offsets` as the leader with acks=all (the
    /// coordinator's `appendForGroup`), parking `write` until replicated.
    fn coordinator_append(
        &mut self,
        b: BrokerId,
        partition: i32,
        records: Vec<NewRecord>,
        write: GroupWrite,
    ) -> Step {
        let tp = TopicPartition::new(OFFSETS_TOPIC, partition);
        let bytes = record::build_batch(&BatchSpec::default(), &records);
        let Some(p) = self.brokers[&b]
            .partitions
            .get(&tp)
            .filter(|p| p.is_leader)
            .cloned()
        else {
            return self.coordinator_write_done(b, write, Some(ErrorCode::NotCoordinator));
        };
        let wall = self.wall_ms();
        let prepared =
            match self.brokers[&b].logs[&tp].prepare_leader_append(bytes, p.leader_epoch, wall) {
                Ok(x) => x,
                Err(_) => {
                    return self.coordinator_write_done(
                        b,
                        write,
                        Some(ErrorCode::CoordinatorNotAvailable),
                    )
                }
            };
        let required = prepared.last_offset + 1;
        self.append_prepared(b, &tp, prepared, true)?;
        self.check_leaders(&tp)?;
        self.complete_delayed_fetches(b, &tp)?;
        let timeout = 5000; // offsets.commit.timeout.ms
        let id = self.park_internal_produce(b, &tp, required, timeout)?;
        self.k.gate()?;
        self.groups_mut(b).writes.insert(id, write);
        self.maybe_increment_hw(b, &tp)?;
        self.try_complete_produce(b, id)
    }

    /// The parked write finished (replicated, or failed with `error`).
    pub(crate) fn coordinator_write_finished(
        &mut self,
        b: BrokerId,
        id: u64,
        error: Option<ErrorCode>,
    ) -> Step {
        let Some(write) = self.groups(b).writes.get(&id).cloned() else {
            return Ok(());
        };
        self.k.gate()?;
        self.groups_mut(b).writes.remove(&id);
        self.coordinator_write_done(b, write, error.map(coordinator_error))
    }

    fn coordinator_write_done(
        &mut self,
        b: BrokerId,
        write: GroupWrite,
        error: Option<ErrorCode>,
    ) -> Step {
        match write {
            GroupWrite::Store => Ok(()),
            GroupWrite::Commit {
                group,
                member_id,
                from,
                correlation_id,
                offsets,
            } => {
                if error.is_none() {
                    if self.group(b, &group).is_none() {
                        return Ok(());
                    }
                    self.k.gate()?;
                    {
                        let g = self.group_mut(b, &group);
                        for (tp, o) in &offsets {
                            g.offsets.insert(tp.clone(), *o);
                        }
                    }
                    self.k.emit(
                        vec![bnode(b), from],
                        EventKind::OffsetsCommitted {
                            broker: b,
                            group: group.clone(),
                            member_id,
                            offsets: offsets.clone(),
                        },
                    );
                }
                self.k
                    .send(
                        bnode(b),
                        from,
                        Message::OffsetCommitResponse {
                            correlation_id,
                            partitions: offsets.into_iter().map(|(tp, _)| (tp, error)).collect(),
                        },
                    )
                    .map(|_| ())
            }
            GroupWrite::Sync {
                group,
                generation,
                assignments,
            } => {
                let Some(grp) = self.group(b, &group).cloned() else {
                    return Ok(());
                };
                if grp.state != GroupState::CompletingRebalance || grp.generation_id != generation {
                    return Ok(());
                }
                if let Some(e) = error {
                    // Kafka resets the assignment and tells the waiting members.
                    for m in &grp.members {
                        if let Some((to, cid)) = m.awaiting_sync {
                            self.k.send(
                                bnode(b),
                                to,
                                Message::SyncGroupResponse {
                                    correlation_id: cid,
                                    error: Some(e),
                                    assignment: Vec::new(),
                                },
                            )?;
                        }
                    }
                    self.k.gate()?;
                    for m in &mut self.group_mut(b, &group).members {
                        m.awaiting_sync = None;
                    }
                    return self.coordinator_prepare_rebalance(
                        b,
                        &group,
                        format!("storing the assignment failed: {e:?}"),
                    );
                }
                self.k.gate()?;
                {
                    let g = self.group_mut(b, &group);
                    g.state = GroupState::Stable;
                    for m in &mut g.members {
                        m.assignment = assignments
                            .iter()
                            .find(|(id, _)| *id == m.member_id)
                            .map(|(_, a)| a.clone())
                            .unwrap_or_default();
                    }
                }
                self.k.emit(
                    vec![bnode(b)],
                    EventKind::GroupStable {
                        broker: b,
                        group: group.clone(),
                        generation,
                        assignment: assignments.iter().cloned().collect(),
                    },
                );
                let grp = self.group(b, &group).expect("exists").clone();
                for m in &grp.members {
                    if let Some((to, cid)) = m.awaiting_sync {
                        self.k.gate()?;
                        self.group_mut(b, &group)
                            .member_mut(&m.member_id)
                            .expect("exists")
                            .awaiting_sync = None;
                        self.k.send(
                            bnode(b),
                            to,
                            Message::SyncGroupResponse {
                                correlation_id: cid,
                                error: None,
                                assignment: m.assignment.clone(),
                            },
                        )?;
                    }
                }
                Ok(())
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn coordinator_commit(
        &mut self,
        b: BrokerId,
        from: NodeId,
        cid: i32,
        g: &str,
        gen: i32,
        member: &str,
        offsets: Vec<(TopicPartition, i64)>,
    ) -> Step {
        let p = self.group_partition(g);
        let fail = |w: &mut World, e: ErrorCode, detail: &str| -> Step {
            w.k.record(
                vec![bnode(b), from],
                EventKind::OffsetCommitRejected {
                    broker: b,
                    group: g.to_string(),
                    member_id: member.to_string(),
                    error: e,
                    detail: detail.to_string(),
                },
            )?;
            w.k.send(
                bnode(b),
                from,
                Message::OffsetCommitResponse {
                    correlation_id: cid,
                    partitions: offsets
                        .iter()
                        .map(|(tp, _)| (tp.clone(), Some(e)))
                        .collect(),
                },
            )
            .map(|_| ())
        };
        if !self.is_coordinator_for(b, p) {
            return fail(
                self,
                ErrorCode::NotCoordinator,
                "this broker does not lead the group's offsets partition",
            );
        }
        let grp = self.group(b, g).cloned();
        let standalone = gen < 0 && member.is_empty();
        if !standalone {
            let Some(grp) = &grp else {
                return fail(
                    self,
                    ErrorCode::UnknownMemberId,
                    "the group has no such member",
                );
            };
            if grp.member(member).is_none() {
                return fail(
                    self,
                    ErrorCode::UnknownMemberId,
                    "the group has no such member (it was removed)",
                );
            }
            if gen != grp.generation_id {
                return fail(
                    self,
                    ErrorCode::IllegalGeneration,
                    &format!(
                        "the commit is from generation {gen}; the group is in generation {}",
                        grp.generation_id
                    ),
                );
            }
            if grp.state == GroupState::CompletingRebalance {
                return fail(
                    self,
                    ErrorCode::RebalanceInProgress,
                    "the group is rebalancing",
                );
            }
        } else if grp.as_ref().is_some_and(|x| !x.members.is_empty()) {
            return fail(
                self,
                ErrorCode::UnknownMemberId,
                "a commit without a member id to a group with active members",
            );
        }
        if grp.is_none() {
            self.k.gate()?;
            self.groups_mut(b)
                .groups
                .insert(g.to_string(), Group::new(g, p));
        }
        let wall = self.wall_ms();
        let records: Vec<NewRecord> = offsets
            .iter()
            .map(|(tp, o)| {
                NewRecord::new(
                    Some(&rec::offset_key(g, tp)),
                    Some(&rec::offset_value(&rec::OffsetValue {
                        offset: *o,
                        leader_epoch: -1,
                        metadata: String::new(),
                        commit_timestamp: wall,
                    })),
                    wall,
                )
            })
            .collect();
        self.coordinator_append(
            b,
            p,
            records,
            GroupWrite::Commit {
                group: g.to_string(),
                member_id: member.to_string(),
                from,
                correlation_id: cid,
                offsets,
            },
        )
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
