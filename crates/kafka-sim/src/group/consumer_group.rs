//! The group coordinator's side of the consumer group protocol of KIP-848
//! (`group.protocol=consumer`), as Apache Kafka 4.1.0 (`13f70256db3c`) runs
//! it: a sans-IO state machine for one consumer group, driven by
//! `ConsumerGroupHeartbeat` requests, session and rebalance timeouts and
//! topic changes, which writes its decisions as records and changes its
//! state only by replaying them, as Kafka's coordinator does.
//!
//! Followed, class by class (group-coordinator module):
//! - `GroupMetadataManager.consumerGroupHeartbeat` (lines 2179–2330): get or
//!   create the member (`getOrMaybeSubscribe{Dynamic,Static}ConsumerGroupMember`,
//!   2886–3010), check its epoch (`throwIfConsumerGroupMemberEpochIsInvalid`,
//!   1516–1535: a greater epoch, or a smaller one that is not the previous
//!   epoch with owned partitions inside the assignment, is
//!   FENCED_MEMBER_EPOCH), update it, bump the group epoch when the
//!   subscriptions or the subscribed topics' metadata changed
//!   (`updateSubscriptionMetadata`, 3637–3700), compute a new target
//!   assignment when the group epoch is ahead of the assignment epoch
//!   (`TargetAssignmentBuilder.build`), reconcile the member
//!   (`maybeReconcile`, 3460–3510), and answer with the member epoch, the
//!   heartbeat interval and, when it changed or the request was full, the
//!   assignment.
//! - `CurrentAssignmentBuilder` (modern/consumer): the member states STABLE,
//!   UNREVOKED_PARTITIONS, UNRELEASED_PARTITIONS and UNKNOWN; a member keeps
//!   its epoch until it has revoked what it must give up (it says so by
//!   leaving those partitions out of the owned partitions of a heartbeat),
//!   and it gets a partition only once no other member holds it at any
//!   epoch (`currentPartitionEpoch` is -1). Its tests are ported.
//! - `consumerGroupLeave` / `consumerGroupFenceMembers` (3904–4100): a leave
//!   (epoch -1), a session timeout (`group.consumer.session.timeout.ms`,
//!   45,000 ms) or a rebalance timeout (the member's `rebalanceTimeoutMs`
//!   while in UNREVOKED_PARTITIONS at the same epoch) removes the member
//!   with three tombstones and bumps the group epoch; a static member's
//!   leave (epoch -2) keeps its assignment for its instance id until the
//!   session timeout, and a new member with that instance id takes it over
//!   (`replaceMember`); while the old one has not left, UNRELEASED_INSTANCE_ID.
//! - `ConsumerGroup.validateOffsetCommit` (646–674): a commit with another
//!   member epoch is STALE_MEMBER_EPOCH, from an unknown member
//!   UNKNOWN_MEMBER_ID.
//! - The records and their replay (`GroupMetadataManager.replay`,
//!   5092–5264): ConsumerGroupMetadata (group epoch, metadata hash),
//!   ConsumerGroupMemberMetadata, ConsumerGroupTargetAssignmentMember,
//!   ConsumerGroupTargetAssignmentMetadata and
//!   ConsumerGroupCurrentMemberAssignment. Kafka 4.1 writes no
//!   ConsumerGroupPartitionMetadata (the metadata hash replaced it; only a
//!   tombstone for one left by an older version). A new coordinator loads
//!   a group by replaying them ([`ConsumerGroup::load`]) and schedules every
//!   member's session timeout afresh.
//!
//! The member order the assignors see is Kafka's: the group's members live
//! in a `TimelineHashMap` (its `BaseHashTable`: Fibonacci hashing of
//! `String.hashCode` into a power-of-two table that starts at two slots,
//! collisions kept in arrays, iterated slot by slot with each slot's array
//! read backwards), and `TargetAssignmentBuilder` copies them into a
//! `java.util.HashMap`, whose order the assignor gets ([`JavaOrder`]).
//!
//! Not modelled (yet): the byte encoding of the records (they are events
//! and values here), the metadata hash's XXH3 value (a hash of the
//! subscribed topics' names and partition counts stands in: it changes
//! when Kafka's does), `subscribed.topic.regex`, rack-aware assignment,
//! the topic order of a member's current assignment beyond `HashMap`
//! buckets, and members of the classic protocol in a consumer group.

use crate::assignor::server::{self, OrderedAssignment, ServerMember, ServerRequest};
use crate::collections::SortedMap;
use crate::msg::ErrorCode;
use crate::partitioner::java_string_hash;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Topic name → partitions.
pub type Partitions = SortedMap<String, BTreeSet<i32>>;

/// `ConsumerGroupHeartbeatRequest.LEAVE_GROUP_MEMBER_EPOCH`.
pub const LEAVE_GROUP_MEMBER_EPOCH: i32 = -1;
/// `ConsumerGroupHeartbeatRequest.LEAVE_GROUP_STATIC_MEMBER_EPOCH`.
pub const LEAVE_GROUP_STATIC_MEMBER_EPOCH: i32 = -2;

/// `group.consumer.session.timeout.ms` (default; range 45,000–60,000).
pub const SESSION_TIMEOUT_MS: u64 = 45_000;
/// `group.consumer.heartbeat.interval.ms` (default; range 5,000–15,000).
pub const HEARTBEAT_INTERVAL_MS: u64 = 5_000;
/// `group.consumer.assignors`: the first is the default.
pub const ASSIGNORS: [&str; 2] = ["uniform", "range"];

/// `MemberState`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MemberState {
    /// Reconciled, or waiting for nothing.
    Stable,
    /// Must revoke partitions before it can move on.
    UnrevokedPartitions,
    /// Waits for partitions another member still holds.
    UnreleasedPartitions,
    /// A state this coordinator does not know.
    Unknown,
}

impl MemberState {
    /// Kafka's name.
    pub fn name(self) -> &'static str {
        match self {
            MemberState::Stable => "STABLE",
            MemberState::UnrevokedPartitions => "UNREVOKED_PARTITIONS",
            MemberState::UnreleasedPartitions => "UNRELEASED_PARTITIONS",
            MemberState::Unknown => "UNKNOWN",
        }
    }
}

/// `ConsumerGroupMember`: what the coordinator knows of a member.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    /// The member id (the client makes it, a `Uuid`).
    pub member_id: String,
    /// `group.instance.id` of a static member.
    pub instance_id: Option<String>,
    /// `client.rack`.
    pub rack_id: Option<String>,
    /// `rebalanceTimeoutMs` (the client's `max.poll.interval.ms`).
    pub rebalance_timeout_ms: i32,
    /// The topics it subscribes to, by name (a set, sorted).
    pub subscribed_topic_names: Vec<String>,
    /// The assignor it asked for (`group.remote.assignor`).
    pub server_assignor: Option<String>,
    /// The member epoch.
    pub member_epoch: i32,
    /// The epoch before the last change.
    pub previous_member_epoch: i32,
    /// Its reconciliation state.
    pub state: MemberState,
    /// The partitions it owns or may own at its epoch.
    pub assigned: Partitions,
    /// The partitions it must revoke.
    pub pending_revocation: Partitions,
}

impl Member {
    /// `new ConsumerGroupMember.Builder(memberId).build()`.
    pub fn new(member_id: &str) -> Member {
        Member {
            member_id: member_id.to_string(),
            instance_id: None,
            rack_id: None,
            rebalance_timeout_ms: -1,
            subscribed_topic_names: Vec::new(),
            server_assignor: None,
            member_epoch: 0,
            previous_member_epoch: -1,
            state: MemberState::Stable,
            assigned: Partitions::new(),
            pending_revocation: Partitions::new(),
        }
    }

    /// `Builder.updateMemberEpoch`: the epoch moves, the old one becomes the
    /// previous epoch.
    fn update_member_epoch(&mut self, epoch: i32) {
        self.previous_member_epoch = self.member_epoch;
        self.member_epoch = epoch;
    }

    /// `isReconciledTo`.
    pub fn is_reconciled_to(&self, target_epoch: i32) -> bool {
        self.state == MemberState::Stable && self.member_epoch == target_epoch
    }
}

fn count(p: &Partitions) -> usize {
    p.values().map(BTreeSet::len).sum()
}

/// True if `owned` (None: not sent) may still hold a partition of `a`
/// (`CurrentAssignmentBuilder.ownsRevokedPartitions`).
fn owns_any(owned: Option<&Partitions>, a: &Partitions) -> bool {
    let Some(owned) = owned else { return true };
    owned
        .iter()
        .any(|(t, ps)| a.get(t).is_some_and(|r| ps.iter().any(|p| r.contains(p))))
}

/// `isSubset`: every owned partition is in `target` (None is not).
fn is_subset(owned: Option<&Partitions>, target: &Partitions) -> bool {
    let Some(owned) = owned else { return false };
    owned.iter().all(|(t, ps)| {
        target
            .get(t)
            .is_some_and(|tp| ps.iter().all(|p| tp.contains(p)))
    })
}

/// `CurrentAssignmentBuilder.build`: the member's next state towards the
/// target assignment of `target_epoch`. `partition_epoch` gives the epoch
/// of a partition's current holder, or -1. Err is FENCED_MEMBER_EPOCH (a
/// member in an unknown state that still owns partitions).
pub fn reconcile(
    member: &Member,
    target_epoch: i32,
    target: &Partitions,
    partition_epoch: &dyn Fn(&str, i32) -> i32,
    owned: Option<&Partitions>,
) -> Result<Member, String> {
    let next =
        |epoch: i32| next_assignment(member, epoch, target_epoch, target, partition_epoch, owned);
    Ok(match member.state {
        MemberState::Stable if member.member_epoch != target_epoch => next(member.member_epoch),
        MemberState::Stable => member.clone(),
        MemberState::UnrevokedPartitions => {
            if owns_any(owned, &member.pending_revocation) {
                member.clone()
            } else {
                next(member.member_epoch + 1)
            }
        }
        MemberState::UnreleasedPartitions => next(member.member_epoch),
        MemberState::Unknown => {
            if owned.is_none_or(|o| !o.is_empty()) {
                return Err("The consumer group member is in a unknown state. The member must abandon all its partitions and rejoin.".into());
            }
            next(target_epoch)
        }
    })
}

/// `CurrentAssignmentBuilder.computeNextAssignment`.
fn next_assignment(
    member: &Member,
    member_epoch: i32,
    target_epoch: i32,
    target: &Partitions,
    partition_epoch: &dyn Fn(&str, i32) -> i32,
    owned: Option<&Partitions>,
) -> Member {
    let mut unreleased = false;
    let mut assigned = Partitions::new();
    let mut revoke = Partitions::new();
    let mut to_assign = Partitions::new();
    let topics: BTreeSet<&String> = target.keys().chain(member.assigned.keys()).collect();
    let empty = BTreeSet::new();
    for t in topics {
        let want = target.get(t).unwrap_or(&empty);
        let cur = member.assigned.get(t).unwrap_or(&empty);
        let keep: BTreeSet<i32> = cur.intersection(want).copied().collect();
        let gone: BTreeSet<i32> = cur.difference(&keep).copied().collect();
        let mut new: BTreeSet<i32> = want.difference(&keep).copied().collect();
        let before = new.len();
        new.retain(|p| partition_epoch(t, *p) == -1);
        unreleased |= new.len() != before;
        if !keep.is_empty() {
            assigned.insert(t.clone(), keep);
        }
        if !gone.is_empty() {
            revoke.insert(t.clone(), gone);
        }
        if !new.is_empty() {
            to_assign.insert(t.clone(), new);
        }
    }
    let mut m = member.clone();
    if !revoke.is_empty() && owns_any(owned, &revoke) {
        m.state = MemberState::UnrevokedPartitions;
        m.update_member_epoch(member_epoch);
        m.assigned = assigned;
        m.pending_revocation = revoke;
        return m;
    }
    for (t, ps) in to_assign.iter() {
        assigned
            .entry(t.clone())
            .or_default()
            .extend(ps.iter().copied());
    }
    m.state = if unreleased {
        MemberState::UnreleasedPartitions
    } else {
        MemberState::Stable
    };
    m.update_member_epoch(target_epoch);
    m.assigned = assigned;
    m.pending_revocation = Partitions::new();
    m
}

/// Iteration orders of Kafka's Java collections that decide which member
/// the assignors see first.
pub struct JavaOrder;

impl JavaOrder {
    /// `BaseHashTable.findSlot`: Fibonacci hashing of `hashCode`, the top
    /// `log2(slots)` bits.
    pub fn base_hash_slot(hash: i32, slots: usize) -> usize {
        let log2size = 32 - (slots as u32).leading_zeros();
        let shift = 65 - log2size;
        ((i64::from(hash).wrapping_mul(-7_046_029_254_386_353_131) as u64) >> shift) as usize
    }

    /// The order a `java.util.HashMap<String, _>` iterates keys put in
    /// `keys`' order: by bucket of the spread `hashCode` in the table the
    /// puts grew (16, doubled past 0.75 full), then by insertion.
    pub fn hash_map(keys: &[&str]) -> Vec<usize> {
        let mut cap = 16usize;
        while keys.len() > cap * 3 / 4 {
            cap *= 2;
        }
        let mask = (cap - 1) as u32;
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_by_key(|&i| {
            let h = java_string_hash(keys[i]) as u32;
            ((h ^ (h >> 16)) & mask, i)
        });
        order
    }
}

/// The member ids of a group in the order its `TimelineHashMap` iterates
/// them (`BaseHashTable`, `SnapshottableHashTable.CurrentIterator`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimelineOrder {
    slots: Vec<Vec<String>>,
    size: usize,
}

impl TimelineOrder {
    /// `new TimelineHashMap<>(registry, 0)`: two slots.
    pub fn new() -> Self {
        TimelineOrder {
            slots: vec![Vec::new(); 2],
            size: 0,
        }
    }

    fn slot(&self, key: &str) -> usize {
        JavaOrder::base_hash_slot(java_string_hash(key), self.slots.len())
    }

    /// `baseAddOrReplace`: a new key may first double the table.
    pub fn add(&mut self, key: &str) {
        if self.slots[self.slot(key)].iter().any(|k| k == key) {
            return;
        }
        if (self.size + 1) as f64 * 0.75 > self.slots.len() as f64 {
            let grown = vec![Vec::new(); self.slots.len() * 2];
            let old = std::mem::replace(&mut self.slots, grown);
            for k in old.into_iter().flatten() {
                let s = self.slot(&k);
                self.slots[s].push(k);
            }
        }
        let s = self.slot(key);
        self.slots[s].push(key.to_string());
        self.size += 1;
    }

    /// `baseRemove`.
    pub fn remove(&mut self, key: &str) {
        let s = self.slot(key);
        if let Some(i) = self.slots[s].iter().position(|k| k == key) {
            self.slots[s].remove(i);
            self.size -= 1;
        }
    }

    /// Iteration order: slot by slot, each slot's array backwards.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.slots
            .iter()
            .flat_map(|s| s.iter().rev().map(String::as_str))
    }
}

/// A ConsumerGroupMemberMetadata value: the member's subscription.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberMetadata {
    /// `group.instance.id` of a static member.
    pub instance_id: Option<String>,
    /// `client.rack`.
    pub rack_id: Option<String>,
    /// `rebalanceTimeoutMs` (the client's `max.poll.interval.ms`); -1 unknown.
    pub rebalance_timeout_ms: i32,
    /// The topics it subscribes to, by name.
    pub subscribed_topic_names: Vec<String>,
    /// The assignor it asked for (`group.remote.assignor`).
    pub server_assignor: Option<String>,
}

/// A ConsumerGroupCurrentMemberAssignment value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurrentAssignment {
    /// The member epoch.
    pub member_epoch: i32,
    /// The epoch before the last change.
    pub previous_member_epoch: i32,
    /// Its reconciliation state.
    pub state: MemberState,
    /// The partitions it owns or may own at its epoch.
    pub assigned: Partitions,
    /// The partitions it must revoke.
    pub pending_revocation: Partitions,
}

/// A record the coordinator writes to `__consumer_offsets` for a consumer
/// group (None: a tombstone).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "PascalCase")]
pub enum GroupRecord {
    /// ConsumerGroupMetadata: the group epoch and the metadata hash.
    ConsumerGroupMetadata {
        /// The group epoch.
        epoch: i32,
        /// The hash of the subscribed topics' metadata.
        metadata_hash: u64,
    },
    /// ConsumerGroupMemberMetadata.
    ConsumerGroupMemberMetadata {
        /// The member.
        member_id: String,
        /// Its subscription; None: a tombstone.
        value: Option<MemberMetadata>,
    },
    /// ConsumerGroupTargetAssignmentMember.
    ConsumerGroupTargetAssignmentMember {
        /// The member.
        member_id: String,
        /// Its target; None: a tombstone.
        partitions: Option<Partitions>,
    },
    /// ConsumerGroupTargetAssignmentMetadata.
    ConsumerGroupTargetAssignmentMetadata {
        /// The epoch of the target assignment.
        assignment_epoch: i32,
    },
    /// ConsumerGroupCurrentMemberAssignment.
    ConsumerGroupCurrentMemberAssignment {
        /// The member.
        member_id: String,
        /// Its epochs, state and partitions; None: a tombstone.
        value: Option<CurrentAssignment>,
    },
}

/// A `ConsumerGroupHeartbeat` request.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeartbeatRequest {
    /// The member id (the client makes it, a `Uuid`).
    pub member_id: String,
    /// The member epoch.
    pub member_epoch: i32,
    /// `group.instance.id` of a static member.
    pub instance_id: Option<String>,
    /// `client.rack`.
    pub rack_id: Option<String>,
    /// -1: unchanged.
    pub rebalance_timeout_ms: i32,
    /// None: unchanged.
    pub subscribed_topic_names: Option<Vec<String>>,
    /// The assignor it asked for (`group.remote.assignor`).
    pub server_assignor: Option<String>,
    /// The partitions the member owns; None: unchanged since last sent.
    pub owned: Option<Partitions>,
}

/// A `ConsumerGroupHeartbeat` response.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeartbeatResponse {
    /// The member id (the client makes it, a `Uuid`).
    pub member_id: String,
    /// The member epoch.
    pub member_epoch: i32,
    /// `group.consumer.heartbeat.interval.ms`.
    pub heartbeat_interval_ms: u64,
    /// The member's whole assignment, when it changed or was asked for.
    pub assignment: Option<Partitions>,
}

/// An error answer: the code and Kafka's message.
pub type Refusal = (ErrorCode, String);

/// What one request or timer did: the records written (already replayed
/// into the group) and the answer.
#[derive(Clone, Debug)]
pub struct Outcome<T> {
    /// The records written, already replayed into the group.
    pub records: Vec<GroupRecord>,
    /// The answer.
    pub answer: Result<T, Refusal>,
}

/// The coordinator's state of one consumer group (`ConsumerGroup`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConsumerGroup {
    /// `group.id`.
    pub group_id: String,
    /// Bumped when the subscriptions or their topics change.
    pub group_epoch: i32,
    /// The epoch of the target assignment.
    pub assignment_epoch: i32,
    /// The hash of the subscribed topics' metadata.
    pub metadata_hash: u64,
    /// Member id → member.
    pub members: SortedMap<String, Member>,
    order: TimelineOrder,
    /// Member id → its target assignment.
    pub target: SortedMap<String, Partitions>,
    /// (topic, partition) → the epoch of the member holding it
    /// (`currentPartitionEpoch`).
    pub partition_epochs: SortedMap<(String, i32), i32>,
    /// Member id → when its session expires (a timer, not a record).
    pub session_deadlines: SortedMap<String, u64>,
    /// Member id → (the epoch it must leave, when), while it has
    /// partitions to revoke (a timer).
    pub rebalance_deadlines: SortedMap<String, (i32, u64)>,
    /// `group.consumer.session.timeout.ms`.
    pub session_timeout_ms: u64,
    /// `group.consumer.heartbeat.interval.ms`.
    pub heartbeat_interval_ms: u64,
}

/// A hash of the subscribed topics' names and partition counts (stands in
/// for Kafka's XXH3 metadata hash, `ModernGroup.computeMetadataHash`).
fn metadata_hash<'a>(
    subscribed: impl Iterator<Item = &'a str>,
    topics: &SortedMap<String, i32>,
) -> u64 {
    let set: BTreeSet<&str> = subscribed.filter(|t| topics.contains_key(*t)).collect();
    if set.is_empty() {
        return 0;
    }
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for t in set {
        for b in t.bytes().chain(topics[t].to_be_bytes()) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

fn refuse<T>(code: ErrorCode, msg: String) -> Result<T, Refusal> {
    Err((code, msg))
}

impl ConsumerGroup {
    /// An empty group (`getOrMaybeCreateConsumerGroup`).
    pub fn new(group_id: &str) -> Self {
        ConsumerGroup {
            group_id: group_id.to_string(),
            group_epoch: 0,
            assignment_epoch: 0,
            metadata_hash: 0,
            members: SortedMap::new(),
            order: TimelineOrder::new(),
            target: SortedMap::new(),
            partition_epochs: SortedMap::new(),
            session_deadlines: SortedMap::new(),
            rebalance_deadlines: SortedMap::new(),
            session_timeout_ms: SESSION_TIMEOUT_MS,
            heartbeat_interval_ms: HEARTBEAT_INTERVAL_MS,
        }
    }

    /// A new coordinator's copy: the records replayed in order, then every
    /// member's session timeout scheduled from `now`, and the rebalance
    /// timeout of those that must revoke.
    pub fn load(group_id: &str, records: &[GroupRecord], now: u64) -> Result<Self, String> {
        let mut g = ConsumerGroup::new(group_id);
        for r in records {
            g.replay(r)?;
        }
        let ids: Vec<String> = g.members.keys().cloned().collect();
        for id in ids {
            g.session_deadlines
                .insert(id.clone(), now + g.session_timeout_ms);
            let m = &g.members[&id];
            if m.state == MemberState::UnrevokedPartitions {
                let at = now + m.rebalance_timeout_ms.max(0) as u64;
                g.rebalance_deadlines.insert(id, (m.member_epoch, at));
            }
        }
        Ok(g)
    }

    /// The member ids in the order of the group's `TimelineHashMap`.
    pub fn member_order(&self) -> Vec<&str> {
        self.order.iter().collect()
    }

    /// `currentPartitionEpoch`.
    pub fn partition_epoch(&self, t: &str, p: i32) -> i32 {
        self.partition_epochs
            .get(&(t.to_string(), p))
            .copied()
            .unwrap_or(-1)
    }

    fn static_member(&self, instance: &str) -> Option<&Member> {
        self.members
            .values()
            .find(|m| m.instance_id.as_deref() == Some(instance))
    }

    fn epochs_remove(&mut self, m: &Member) -> Result<(), String> {
        for (t, ps) in m.assigned.iter().chain(m.pending_revocation.iter()) {
            for p in ps {
                match self.partition_epochs.remove(&(t.clone(), *p)) {
                    Some(e) if e == m.member_epoch => {}
                    other => {
                        return Err(format!(
                            "IllegalStateException: Cannot remove the epoch {} from {t}-{p} because the partition is still owned at a different epoch {other:?}",
                            m.member_epoch
                        ))
                    }
                }
            }
        }
        Ok(())
    }

    fn epochs_add(&mut self, m: &Member) -> Result<(), String> {
        for (t, ps) in m.assigned.iter().chain(m.pending_revocation.iter()) {
            for p in ps {
                if let Some(prev) = self
                    .partition_epochs
                    .insert((t.clone(), *p), m.member_epoch)
                {
                    return Err(format!(
                        "IllegalStateException: Cannot set the epoch of {t}-{p} to {} because the partition is still owned at epoch {prev}",
                        m.member_epoch
                    ));
                }
            }
        }
        Ok(())
    }

    /// `updateMember`: the member's partition epochs follow it.
    fn update_member(&mut self, m: Member) -> Result<(), String> {
        if let Some(old) = self.members.get(&m.member_id).cloned() {
            self.epochs_remove(&old)?;
        }
        self.epochs_add(&m)?;
        self.order.add(&m.member_id);
        self.members.insert(m.member_id.clone(), m);
        Ok(())
    }

    /// Applies one record, as `GroupMetadataManager.replay` does.
    pub fn replay(&mut self, r: &GroupRecord) -> Result<(), String> {
        match r {
            GroupRecord::ConsumerGroupMetadata {
                epoch,
                metadata_hash,
            } => {
                self.group_epoch = *epoch;
                self.metadata_hash = *metadata_hash;
            }
            GroupRecord::ConsumerGroupMemberMetadata { member_id, value } => match value {
                Some(v) => {
                    let mut m = self
                        .members
                        .get(member_id)
                        .cloned()
                        .unwrap_or_else(|| Member::new(member_id));
                    m.instance_id.clone_from(&v.instance_id);
                    m.rack_id.clone_from(&v.rack_id);
                    m.rebalance_timeout_ms = v.rebalance_timeout_ms;
                    m.subscribed_topic_names
                        .clone_from(&v.subscribed_topic_names);
                    m.server_assignor.clone_from(&v.server_assignor);
                    self.update_member(m)?;
                }
                None => {
                    if let Some(m) = self.members.get(member_id) {
                        if m.member_epoch != LEAVE_GROUP_MEMBER_EPOCH {
                            return Err(format!("IllegalStateException: Received a tombstone record to delete member {member_id} with invalid leave epoch {}.", m.member_epoch));
                        }
                        self.members.remove(member_id);
                        self.order.remove(member_id);
                        self.session_deadlines.remove(member_id);
                        self.rebalance_deadlines.remove(member_id);
                    }
                }
            },
            GroupRecord::ConsumerGroupTargetAssignmentMember {
                member_id,
                partitions,
            } => match partitions {
                Some(p) => {
                    self.target.insert(member_id.clone(), p.clone());
                }
                None => {
                    self.target.remove(member_id);
                }
            },
            GroupRecord::ConsumerGroupTargetAssignmentMetadata { assignment_epoch } => {
                self.assignment_epoch = *assignment_epoch;
            }
            GroupRecord::ConsumerGroupCurrentMemberAssignment { member_id, value } => {
                let Some(old) = self.members.get(member_id).cloned() else {
                    if let Some(v) = value {
                        let mut m = Member::new(member_id);
                        apply_current(&mut m, v);
                        self.update_member(m)?;
                    }
                    return Ok(());
                };
                let mut m = old;
                match value {
                    Some(v) => apply_current(&mut m, v),
                    None => {
                        m.member_epoch = LEAVE_GROUP_MEMBER_EPOCH;
                        m.previous_member_epoch = LEAVE_GROUP_MEMBER_EPOCH;
                        m.assigned = Partitions::new();
                        m.pending_revocation = Partitions::new();
                    }
                }
                self.update_member(m)?;
            }
        }
        Ok(())
    }

    fn apply(&mut self, records: &[GroupRecord]) -> Result<(), String> {
        for r in records {
            self.replay(r)?;
        }
        Ok(())
    }

    /// `removeMember`: three tombstones.
    fn remove_member_records(records: &mut Vec<GroupRecord>, id: &str) {
        records.push(GroupRecord::ConsumerGroupCurrentMemberAssignment {
            member_id: id.to_string(),
            value: None,
        });
        records.push(GroupRecord::ConsumerGroupTargetAssignmentMember {
            member_id: id.to_string(),
            partitions: None,
        });
        records.push(GroupRecord::ConsumerGroupMemberMetadata {
            member_id: id.to_string(),
            value: None,
        });
    }

    /// `consumerGroupFenceMember`: the member's records removed and the
    /// group epoch bumped.
    fn fence_records(&self, id: &str, topics: &SortedMap<String, i32>) -> Vec<GroupRecord> {
        let mut records = Vec::new();
        Self::remove_member_records(&mut records, id);
        let hash = metadata_hash(
            self.members
                .values()
                .filter(|m| m.member_id != id)
                .flat_map(|m| m.subscribed_topic_names.iter().map(String::as_str)),
            topics,
        );
        records.push(GroupRecord::ConsumerGroupMetadata {
            epoch: self.group_epoch + 1,
            metadata_hash: hash,
        });
        records
    }

    /// The records written (and replayed) for a change the state machine
    /// refused to replay would be a bug in the model: it is reported as an
    /// error answer naming Kafka's IllegalStateException.
    fn commit<T>(&mut self, records: Vec<GroupRecord>, answer: T) -> Outcome<T> {
        match self.apply(&records) {
            Ok(()) => Outcome {
                records,
                answer: Ok(answer),
            },
            Err(e) => Outcome {
                records,
                answer: refuse(ErrorCode::UnknownServerError, e),
            },
        }
    }

    /// Handles a `ConsumerGroupHeartbeat` at `now`, with the topics of the
    /// metadata image (name → partition count) and their ids.
    pub fn heartbeat(
        &mut self,
        req: &HeartbeatRequest,
        topics: &SortedMap<String, i32>,
        topic_ids: &SortedMap<String, String>,
        now: u64,
    ) -> Outcome<HeartbeatResponse> {
        if let Err(e) = check_request(req) {
            return Outcome {
                records: Vec::new(),
                answer: Err(e),
            };
        }
        if req.member_epoch == LEAVE_GROUP_MEMBER_EPOCH
            || req.member_epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH
        {
            return self.leave(req, topics);
        }
        match self.regular_heartbeat(req, topics, topic_ids, now) {
            Ok((records, answer)) => {
                let out = self.commit(records, answer);
                if let Ok(resp) = &out.answer {
                    self.schedule_timers(&resp.member_id, now);
                }
                out
            }
            Err(e) => Outcome {
                records: Vec::new(),
                answer: Err(e),
            },
        }
    }

    fn schedule_timers(&mut self, id: &str, now: u64) {
        self.session_deadlines
            .insert(id.to_string(), now + self.session_timeout_ms);
        match self.members.get(id) {
            Some(m) if m.state == MemberState::UnrevokedPartitions => {
                let keep = self
                    .rebalance_deadlines
                    .get(id)
                    .is_some_and(|(e, _)| *e == m.member_epoch);
                if !keep {
                    let at = now + m.rebalance_timeout_ms.max(0) as u64;
                    self.rebalance_deadlines
                        .insert(id.to_string(), (m.member_epoch, at));
                }
            }
            _ => {
                self.rebalance_deadlines.remove(id);
            }
        }
    }

    /// `consumerGroupLeave`.
    fn leave(
        &mut self,
        req: &HeartbeatRequest,
        topics: &SortedMap<String, i32>,
    ) -> Outcome<HeartbeatResponse> {
        let resp = |epoch: i32| HeartbeatResponse {
            member_id: req.member_id.clone(),
            member_epoch: epoch,
            heartbeat_interval_ms: 0,
            assignment: None,
        };
        let member = match &req.instance_id {
            None => match self.members.get(&req.member_id) {
                Some(m) => m.clone(),
                None => return self.unknown_member(&req.member_id),
            },
            Some(inst) => match self.static_member(inst) {
                None => {
                    return Outcome {
                        records: Vec::new(),
                        answer: refuse(
                            ErrorCode::UnknownMemberId,
                            format!("Instance id {inst} is unknown."),
                        ),
                    }
                }
                Some(m) if m.member_id != req.member_id => {
                    return Outcome {
                        records: Vec::new(),
                        answer: refuse(
                            ErrorCode::FencedInstanceId,
                            format!(
                                "Static member {} with instance id {inst} was fenced by member {}.",
                                req.member_id, m.member_id
                            ),
                        ),
                    }
                }
                Some(m) => m.clone(),
            },
        };
        if req.instance_id.is_some() && req.member_epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH {
            // consumerGroupStaticMemberGroupLeave: epoch -2, assignment kept.
            let records = vec![GroupRecord::ConsumerGroupCurrentMemberAssignment {
                member_id: member.member_id.clone(),
                value: Some(CurrentAssignment {
                    member_epoch: LEAVE_GROUP_STATIC_MEMBER_EPOCH,
                    previous_member_epoch: member.previous_member_epoch,
                    state: member.state,
                    assigned: member.assigned.clone(),
                    pending_revocation: Partitions::new(),
                }),
            }];
            self.rebalance_deadlines.remove(&member.member_id);
            return self.commit(records, resp(LEAVE_GROUP_STATIC_MEMBER_EPOCH));
        }
        let records = self.fence_records(&member.member_id, topics);
        self.commit(records, resp(req.member_epoch))
    }

    fn unknown_member<T>(&self, id: &str) -> Outcome<T> {
        Outcome {
            records: Vec::new(),
            answer: refuse(
                ErrorCode::UnknownMemberId,
                format!("Member {id} is not a member of group {}.", self.group_id),
            ),
        }
    }

    /// `throwIfConsumerGroupMemberEpochIsInvalid`.
    fn check_epoch(m: &Member, received: i32, owned: Option<&Partitions>) -> Result<(), Refusal> {
        let tail = format!(
            "than the one known by the group coordinator ({}). The member must abandon all its partitions and rejoin.",
            m.member_epoch
        );
        if received > m.member_epoch {
            return refuse(
                ErrorCode::FencedMemberEpoch,
                format!("The consumer group member has a greater member epoch ({received}) {tail}"),
            );
        }
        if received < m.member_epoch
            && (received != m.previous_member_epoch || !is_subset(owned, &m.assigned))
        {
            return refuse(
                ErrorCode::FencedMemberEpoch,
                format!("The consumer group member has a smaller member epoch ({received}) {tail}"),
            );
        }
        Ok(())
    }

    /// `consumerGroupHeartbeat` for a member that stays.
    fn regular_heartbeat(
        &mut self,
        req: &HeartbeatRequest,
        topics: &SortedMap<String, i32>,
        topic_ids: &SortedMap<String, String>,
        now: u64,
    ) -> Result<(Vec<GroupRecord>, HeartbeatResponse), Refusal> {
        let _ = now;
        let joining = req.member_epoch == 0;
        let mut records = Vec::new();
        let owned = req.owned.as_ref();
        let member = match &req.instance_id {
            None => match self.members.get(&req.member_id) {
                Some(m) => {
                    Self::check_epoch(m, req.member_epoch, owned)?;
                    m.clone()
                }
                None if joining => Member::new(&req.member_id),
                None => {
                    return refuse(
                        ErrorCode::UnknownMemberId,
                        format!(
                            "Member {} is not a member of group {}.",
                            req.member_id, self.group_id
                        ),
                    )
                }
            },
            Some(inst) => {
                let existing = self.static_member(inst).cloned();
                if joining {
                    match existing {
                        None => self
                            .members
                            .get(&req.member_id)
                            .cloned()
                            .unwrap_or_else(|| Member::new(&req.member_id)),
                        Some(old) => {
                            if old.member_epoch != LEAVE_GROUP_STATIC_MEMBER_EPOCH {
                                return refuse(
                                    ErrorCode::UnreleasedInstanceId,
                                    format!("Static member {} with instance id {inst} cannot join the group because the instance id is owned by {} member.", req.member_id, old.member_id),
                                );
                            }
                            // replaceMember: the new id takes the old one's place.
                            let mut new = old.clone();
                            new.member_id.clone_from(&req.member_id);
                            new.member_epoch = 0;
                            new.previous_member_epoch = 0;
                            Self::remove_member_records(&mut records, &old.member_id);
                            records.push(member_metadata_record(&new));
                            records.push(GroupRecord::ConsumerGroupTargetAssignmentMember {
                                member_id: new.member_id.clone(),
                                partitions: Some(
                                    self.target.get(&old.member_id).cloned().unwrap_or_default(),
                                ),
                            });
                            records.push(current_assignment_record(&new));
                            new
                        }
                    }
                } else {
                    let Some(old) = existing else {
                        return refuse(
                            ErrorCode::UnknownMemberId,
                            format!("Instance id {inst} is unknown."),
                        );
                    };
                    if old.member_id != req.member_id {
                        return refuse(
                            ErrorCode::FencedInstanceId,
                            format!(
                                "Static member {} with instance id {inst} was fenced by member {}.",
                                req.member_id, old.member_id
                            ),
                        );
                    }
                    Self::check_epoch(&old, req.member_epoch, owned)?;
                    old
                }
            }
        };
        let is_new = !self.members.contains_key(&member.member_id);
        // 1. The member, updated.
        let mut updated = member.clone();
        if req.instance_id.is_some() {
            updated.instance_id.clone_from(&req.instance_id);
        }
        if req.rack_id.is_some() {
            updated.rack_id.clone_from(&req.rack_id);
        }
        if req.rebalance_timeout_ms != -1 {
            updated.rebalance_timeout_ms = req.rebalance_timeout_ms;
        }
        if req.server_assignor.is_some() {
            updated.server_assignor.clone_from(&req.server_assignor);
        }
        if let Some(names) = &req.subscribed_topic_names {
            let set: BTreeSet<String> = names.iter().cloned().collect();
            updated.subscribed_topic_names = set.into_iter().collect();
        }
        let mut bump = self.group_epoch == 0;
        if updated != member || is_new {
            records.push(member_metadata_record(&updated));
            bump |= updated.subscribed_topic_names != member.subscribed_topic_names;
        }
        // updateSubscriptionMetadata: the hash of what the group subscribes to.
        let hash = metadata_hash(
            self.members
                .values()
                .filter(|m| m.member_id != updated.member_id)
                .chain(std::iter::once(&updated))
                .flat_map(|m| m.subscribed_topic_names.iter().map(String::as_str)),
            topics,
        );
        bump |= hash != self.metadata_hash;
        let mut group_epoch = self.group_epoch;
        if bump {
            group_epoch += 1;
            records.push(GroupRecord::ConsumerGroupMetadata {
                epoch: group_epoch,
                metadata_hash: hash,
            });
        }
        // 2. A new target assignment if the group epoch moved past it.
        let (target_epoch, target) = if group_epoch > self.assignment_epoch {
            let mut new_targets = self.target_assignment(&updated, topics, topic_ids)?;
            let order = self.spec_order(&updated);
            for id in &order {
                let new = new_targets.remove(id).unwrap_or_default();
                if self.target.get(id) != Some(&new) {
                    records.push(GroupRecord::ConsumerGroupTargetAssignmentMember {
                        member_id: id.clone(),
                        partitions: Some(new.clone()),
                    });
                }
                new_targets.insert(id.clone(), new);
            }
            records.push(GroupRecord::ConsumerGroupTargetAssignmentMetadata {
                assignment_epoch: group_epoch,
            });
            (
                group_epoch,
                new_targets.remove(&updated.member_id).unwrap_or_default(),
            )
        } else {
            // `ConsumerGroup.targetAssignment(memberId, instanceId)`: a
            // static member's by its instance id.
            let by_instance = || {
                let inst = updated.instance_id.as_deref()?;
                let old = self.static_member(inst)?;
                self.target.get(&old.member_id)
            };
            (
                self.assignment_epoch,
                self.target
                    .get(&updated.member_id)
                    .or_else(by_instance)
                    .cloned()
                    .unwrap_or_default(),
            )
        };
        // 3. Reconcile.
        let reconciled = if updated.is_reconciled_to(target_epoch) {
            updated.clone()
        } else {
            let pe = |t: &str, p: i32| self.partition_epoch(t, p);
            let next = reconcile(&updated, target_epoch, &target, &pe, owned)
                .map_err(|e| (ErrorCode::FencedMemberEpoch, e))?;
            if next != updated {
                records.push(current_assignment_record(&next));
            }
            next
        };
        let full = req.rebalance_timeout_ms != -1
            && req.subscribed_topic_names.is_some()
            && req.owned.is_some();
        let changed = reconciled.assigned != member.assigned;
        Ok((
            records,
            HeartbeatResponse {
                member_id: reconciled.member_id.clone(),
                member_epoch: reconciled.member_epoch,
                heartbeat_interval_ms: self.heartbeat_interval_ms,
                assignment: (joining || full || changed).then(|| reconciled.assigned.clone()),
            },
        ))
    }

    /// The members as `TargetAssignmentBuilder` puts them in its HashMap:
    /// the group's in `TimelineHashMap` order, then the updated member if
    /// new (a member that left as a static member and whose id was
    /// replaced is left out).
    fn spec_order(&self, updated: &Member) -> Vec<String> {
        let mut ids: Vec<&str> = self
            .order
            .iter()
            .filter(|id| {
                self.members[*id].instance_id.is_none()
                    || *id == updated.member_id
                    || self.members[*id].instance_id != updated.instance_id
            })
            .collect();
        if !ids.contains(&updated.member_id.as_str()) {
            ids.push(&updated.member_id);
        }
        JavaOrder::hash_map(&ids)
            .into_iter()
            .map(|i| ids[i].to_string())
            .collect()
    }

    /// The assignor the group uses (`preferredServerAssignor`: the one most
    /// members asked for, else the default).
    fn assignor(&self, updated: &Member) -> &'static str {
        let mut counts: Vec<(&str, usize)> = Vec::new();
        for m in self
            .members
            .values()
            .filter(|m| m.member_id != updated.member_id)
            .chain(std::iter::once(updated))
        {
            if let Some(a) = &m.server_assignor {
                match counts.iter_mut().find(|(n, _)| n == a) {
                    Some((_, c)) => *c += 1,
                    None => counts.push((a, 1)),
                }
            }
        }
        let names: Vec<&str> = counts.iter().map(|(n, _)| *n).collect();
        let order = JavaOrder::hash_map(&names);
        let mut best: Option<(&str, usize)> = None;
        for i in order {
            if best.is_none_or(|(_, c)| counts[i].1 > c) {
                best = Some(counts[i]);
            }
        }
        let name = best.map_or(ASSIGNORS[0], |(n, _)| n);
        if name == "range" {
            "server-range"
        } else {
            "uniform"
        }
    }

    /// `TargetAssignmentBuilder.build`: member id → its new target.
    fn target_assignment(
        &self,
        updated: &Member,
        topics: &SortedMap<String, i32>,
        topic_ids: &SortedMap<String, String>,
    ) -> Result<SortedMap<String, Partitions>, Refusal> {
        let order = self.spec_order(updated);
        let members: Vec<ServerMember> = order
            .iter()
            .map(|id| {
                let m = if *id == updated.member_id {
                    updated
                } else {
                    &self.members[id]
                };
                // A new static member takes over the target of the one it
                // replaces.
                let current = self
                    .target
                    .get(id)
                    .or_else(|| {
                        let inst = m.instance_id.as_deref()?;
                        let old = self.static_member(inst)?;
                        self.target.get(&old.member_id)
                    })
                    .cloned()
                    .unwrap_or_default();
                ServerMember {
                    member_id: id.clone(),
                    instance_id: m.instance_id.clone(),
                    rack_id: m.rack_id.clone(),
                    subscribed_topics: m
                        .subscribed_topic_names
                        .iter()
                        .filter(|t| topics.contains_key(*t))
                        .cloned()
                        .collect(),
                    current_assignment: OrderedAssignment(
                        current
                            .into_iter()
                            .filter(|(t, _)| topics.contains_key(t))
                            .map(|(t, ps)| {
                                let n = topics[&t];
                                (t, ps.into_iter().filter(|p| *p < n).collect())
                            })
                            .collect(),
                    ),
                }
            })
            .collect();
        let request = ServerRequest {
            topics: topics.clone(),
            topic_ids: topic_ids
                .iter()
                .filter(|(t, _)| topics.contains_key(*t))
                .map(|(t, i)| (t.clone(), i.clone()))
                .collect(),
            members,
            partition_racks: SortedMap::new(),
            subscription_type: None,
        };
        let a = server::assign(self.assignor(updated), &request)
            .map_err(|e| (ErrorCode::UnknownServerError, e))?;
        Ok(a.into_iter()
            .map(|(id, ts)| {
                let ts: Partitions = ts
                    .into_iter()
                    .filter(|(_, ps)| !ps.is_empty())
                    .map(|(t, ps)| (t, ps.into_iter().collect()))
                    .collect();
                (id, ts)
            })
            .collect())
    }

    /// Fires the timers due at `now`: a member whose session expired, or
    /// which kept partitions to revoke past its rebalance timeout at the
    /// same epoch, is fenced. Returns the fenced member ids with the
    /// records written.
    pub fn expire(
        &mut self,
        topics: &SortedMap<String, i32>,
        now: u64,
    ) -> Vec<(String, Outcome<()>)> {
        let mut out = Vec::new();
        loop {
            let session = self
                .session_deadlines
                .iter()
                .find(|(_, at)| **at <= now)
                .map(|(id, _)| id.clone());
            let rebalance = self
                .rebalance_deadlines
                .iter()
                .find(|(id, (e, at))| {
                    *at <= now && self.members.get(*id).is_some_and(|m| m.member_epoch == *e)
                })
                .map(|(id, _)| id.clone());
            let Some(id) = session.or(rebalance) else {
                break;
            };
            self.session_deadlines.remove(&id);
            self.rebalance_deadlines.remove(&id);
            if !self.members.contains_key(&id) {
                continue;
            }
            let records = self.fence_records(&id, topics);
            out.push((id, self.commit(records, ())));
        }
        self.rebalance_deadlines.retain(|_, (_, at)| *at > now);
        out
    }

    /// `validateOffsetCommit` for a member of the consumer protocol.
    pub fn validate_offset_commit(
        &self,
        member_id: &str,
        member_epoch: i32,
    ) -> Result<(), Refusal> {
        if member_epoch < 0 && self.members.is_empty() {
            return Ok(());
        }
        let Some(m) = self.members.get(member_id) else {
            return refuse(
                ErrorCode::UnknownMemberId,
                format!(
                    "Member {member_id} is not a member of group {}.",
                    self.group_id
                ),
            );
        };
        if member_epoch != m.member_epoch {
            return refuse(
                ErrorCode::StaleMemberEpoch,
                format!(
                    "The received member epoch {member_epoch} does not match the expected member epoch {}.",
                    m.member_epoch
                ),
            );
        }
        Ok(())
    }
}

fn apply_current(m: &mut Member, v: &CurrentAssignment) {
    m.member_epoch = v.member_epoch;
    m.previous_member_epoch = v.previous_member_epoch;
    m.state = v.state;
    m.assigned.clone_from(&v.assigned);
    m.pending_revocation.clone_from(&v.pending_revocation);
}

fn member_metadata_record(m: &Member) -> GroupRecord {
    GroupRecord::ConsumerGroupMemberMetadata {
        member_id: m.member_id.clone(),
        value: Some(MemberMetadata {
            instance_id: m.instance_id.clone(),
            rack_id: m.rack_id.clone(),
            rebalance_timeout_ms: m.rebalance_timeout_ms,
            subscribed_topic_names: m.subscribed_topic_names.clone(),
            server_assignor: m.server_assignor.clone(),
        }),
    }
}

fn current_assignment_record(m: &Member) -> GroupRecord {
    GroupRecord::ConsumerGroupCurrentMemberAssignment {
        member_id: m.member_id.clone(),
        value: Some(CurrentAssignment {
            member_epoch: m.member_epoch,
            previous_member_epoch: m.previous_member_epoch,
            state: m.state,
            assigned: m.assigned.clone(),
            pending_revocation: m.pending_revocation.clone(),
        }),
    }
}

/// `GroupCoordinatorService.throwIfConsumerGroupHeartbeatRequestIsInvalid`.
pub fn check_request(req: &HeartbeatRequest) -> Result<(), Refusal> {
    let bad = |m: &str| refuse(ErrorCode::InvalidRequest, m.to_string());
    if req.member_id.is_empty() {
        return bad("MemberId can't be empty.");
    }
    if req.instance_id.as_deref() == Some("") {
        return bad("InstanceId can't be empty.");
    }
    if req.rack_id.as_deref() == Some("") {
        return bad("RackId can't be empty.");
    }
    if req.member_epoch == 0 {
        if req.rebalance_timeout_ms == -1 {
            return bad("RebalanceTimeoutMs must be provided in first request.");
        }
        if req.owned.as_ref().is_none_or(|o| !o.is_empty()) {
            return bad("TopicPartitions must be empty when (re-)joining.");
        }
        if req.subscribed_topic_names.is_none() {
            return bad("Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.");
        }
    } else if req.member_epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH {
        if req.instance_id.is_none() {
            return bad("InstanceId can't be null.");
        }
    } else if req.member_epoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH {
        return bad("MemberEpoch is invalid.");
    }
    if let Some(a) = &req.server_assignor {
        if !ASSIGNORS.contains(&a.as_str()) {
            return refuse(
                ErrorCode::UnsupportedAssignor,
                format!(
                    "ServerAssignor {a} is not supported. Supported assignors: {}.",
                    ASSIGNORS.join(", ")
                ),
            );
        }
    }
    Ok(())
}

/// How many partitions a member's assignment holds.
pub fn partition_count(p: &Partitions) -> usize {
    count(p)
}

#[cfg(test)]
#[path = "consumer_group_tests.rs"]
mod tests;
