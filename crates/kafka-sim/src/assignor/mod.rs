//! The consumer group's partition assignors (G6–G9), as the group leader runs
//! them: `RangeAssignor`, `RoundRobinAssignor`, `StickyAssignor` and
//! `CooperativeStickyAssignor`, giving Kafka's results member by member and in
//! Kafka's order within each member's list.
//!
//! Where Kafka's answer depends on the iteration order of a Java `HashMap`
//! (the topic order of the range assignor, the member order in which the
//! sticky assignor keeps previously owned partitions), this module reproduces
//! that order: bucket index `(h ^ h >>> 16) & (capacity − 1)` of Java's
//! `String.hashCode`, capacity growing from 16 at load factor 0.75, insertion
//! order within a bucket. Java's treeified buckets (a bucket of 9+ colliding
//! keys) are not modelled.
//!
//! Rack-aware Range (KIP-881, Kafka 3.5+; `RangeAssignor.assignPartitions`,
//! Kafka 3.9 lines 125-215): when members send a `client.rack` and the
//! partitions' replicas have racks that differ between partitions, a first
//! pass gives each member, within Range's per-topic quotas, partitions with
//! a replica on its rack (co-partitioned topics, same members and partition
//! count, move together); the ordinary Range pass places the rest, and each
//! member's list is then sorted by topic and partition. The sticky
//! assignors are rack-aware too (KIP-881; see the `sticky` module);
//! RoundRobin ignores racks, as in Kafka.
//!
//! The sticky algorithm follows `AbstractStickyAssignor`: the *constrained*
//! builder when every member subscribes to the same topics (keep up to the
//! quota of what each member owned, hand out the rest round robin), otherwise
//! the *general* builder (assign to the least loaded member, then move
//! partitions until balanced, preferring the previous owner, and keep the old
//! assignment if moving did not improve the balance). Previously owned
//! partitions claimed by several members go to the one with the highest
//! generation; claimed twice in the same generation, to neither.
//!
//! The cooperative assignor runs the same algorithm, then takes out of the
//! result every partition that changes owner: in this round its old owner only
//! revokes it, and it is assigned in the next round (KIP-429).

use crate::client_config::AssignorName;
use crate::collections::{SortedMap, SortedSet};
use crate::partitioner::java_string_hash;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::{HashMap, VecDeque};
use std::fmt;

pub mod server;
mod sticky;
use sticky::*;

/// Kafka's `AbstractStickyAssignor.DEFAULT_GENERATION`.
pub const DEFAULT_GENERATION: i32 = -1;

/// One member's subscription as the leader sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemberSubscription {
    /// The member's id.
    pub member_id: String,
    /// Its `group.instance.id`, if static.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_instance_id: Option<String>,
    /// The topics it subscribes to.
    pub topics: Vec<String>,
    /// Partitions the member owned in its last generation (`topic-N`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub owned_partitions: Vec<PartitionName>,
    /// The generation its owned partitions are from (the sticky assignors'
    /// `generation` field), if it sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i32>,
    /// Its `client.rack`, if it set one (KIP-881).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rack_id: Option<String>,
}

/// Topic → for each partition, the racks of its replicas (what the leader
/// reads off its metadata: the brokers' `broker.rack`).
pub type PartitionRacks = SortedMap<String, Vec<SortedSet<String>>>;

/// A partition written `topic-N`, as Kafka prints a `TopicPartition`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PartitionName {
    /// The topic.
    pub topic: String,
    /// The partition number.
    pub partition: i32,
}

impl PartitionName {
    /// The partition `partition` of `topic`.
    pub fn new(topic: &str, partition: i32) -> PartitionName {
        PartitionName {
            topic: topic.to_string(),
            partition,
        }
    }
    /// Parses `<topic>-<partition>` (the partition is the text after the last `-`).
    pub fn parse(s: &str) -> Option<PartitionName> {
        let (t, p) = s.rsplit_once('-')?;
        let partition: i32 = p.parse().ok()?;
        (!t.is_empty() && partition >= 0 && !p.starts_with('+'))
            .then(|| PartitionName::new(t, partition))
    }
}

impl fmt::Display for PartitionName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.topic, self.partition)
    }
}

impl Serialize for PartitionName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for PartitionName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        PartitionName::parse(&s).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "`{s}` is not a partition (expected topic-N, e.g. orders-0)"
            ))
        })
    }
}

/// What the leader hands out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AssignmentResult {
    /// Member id → partitions, in the order the assignor produced them.
    pub assignment: SortedMap<String, Vec<PartitionName>>,
    /// Member id → owned partitions it must give up before the next round
    /// (owned − assigned). Under the eager protocol a member revokes
    /// everything before it rejoins; this is what actually changes hands.
    pub revoke: SortedMap<String, Vec<PartitionName>>,
}

/// Input an assignor cannot work with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssignError(pub String);

impl fmt::Display for AssignError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AssignError {}

/// Java's `String.compareTo`: UTF-16 code units.
pub fn java_cmp(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// Java's `HashMap` spread of a hash code.
fn spread(h: i32) -> u32 {
    let h = h as u32;
    h ^ (h >> 16)
}

/// The table size of a `HashMap` built with `new HashMap<>()` and `n` puts.
fn java_capacity(n: usize) -> usize {
    let mut cap = 16;
    while n * 4 > cap * 3 {
        cap *= 2;
    }
    cap
}

/// Indices of `hashes` (inserted in index order) in Java `HashMap` iteration order.
pub fn java_hash_order(hashes: &[i32]) -> Vec<usize> {
    let mask = (java_capacity(hashes.len()) - 1) as u32;
    let mut order: Vec<usize> = (0..hashes.len()).collect();
    order.sort_by_key(|&i| (spread(hashes[i]) & mask, i));
    order
}

/// `TopicPartition.hashCode`.
pub fn tp_hash(topic_hash: i32, partition: i32) -> i32 {
    31i32
        .wrapping_add(partition)
        .wrapping_mul(31)
        .wrapping_add(topic_hash)
}

/// A partition inside the assignors: topic index (topics sorted the Java way) and number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Tp {
    t: u32,
    p: i32,
}

/// The validated input, with topics and members indexed.
struct Ctx {
    /// Subscribed topics that exist, sorted by Java's `String.compareTo`.
    topics: Vec<String>,
    topic_hash: Vec<i32>,
    counts: Vec<i32>,
    /// First global index of each topic's partitions.
    offsets: Vec<usize>,
    total: usize,
    member_ids: Vec<String>,
    instance_ids: Vec<Option<String>>,
    /// Rank of each member id in Java string order.
    rank: Vec<usize>,
    /// Members in the iteration order of Kafka's `subscriptions` map.
    hash_order: Vec<usize>,
    /// Each member's existing subscribed topics, in its own order.
    subs: Vec<Vec<u32>>,
    subscribed: Vec<Vec<bool>>,
    /// Owned partitions that exist, in the member's order.
    owned: Vec<Vec<Tp>>,
    generation: Vec<Option<i32>>,
    /// Subscription topics as given (for the all-equal check).
    raw_topics: Vec<SortedSet<String>>,
}

impl Ctx {
    fn new(
        partitions_per_topic: &SortedMap<String, i32>,
        members: &[MemberSubscription],
    ) -> Result<Ctx, AssignError> {
        let mut seen = SortedSet::new();
        for m in members {
            if m.member_id.is_empty() {
                return Err(AssignError("a member has an empty member_id".into()));
            }
            if !seen.insert(m.member_id.as_str()) {
                return Err(AssignError(format!(
                    "member `{}` appears twice",
                    m.member_id
                )));
            }
        }
        for (t, n) in partitions_per_topic {
            if *n < 0 {
                return Err(AssignError(format!(
                    "topic `{t}` has {n} partitions; a count cannot be negative"
                )));
            }
        }
        let mut names: Vec<String> = SortedSet::from_iter(
            members
                .iter()
                .flat_map(|m| m.topics.iter())
                .filter(|t| partitions_per_topic.get(*t).is_some_and(|n| *n > 0))
                .cloned(),
        )
        .into_iter()
        .collect();
        names.sort_by(|a, b| java_cmp(a, b));
        let index: HashMap<&str, u32> = names
            .iter()
            .enumerate()
            .map(|(i, t)| (t.as_str(), i as u32))
            .collect();
        let counts: Vec<i32> = names.iter().map(|t| partitions_per_topic[t]).collect();
        let mut offsets = Vec::with_capacity(names.len());
        let mut total = 0usize;
        for c in &counts {
            offsets.push(total);
            total += *c as usize;
        }
        let mut subs = Vec::new();
        let mut subscribed = Vec::new();
        let mut owned = Vec::new();
        for m in members {
            let mut s = Vec::new();
            let mut bits = vec![false; names.len()];
            for t in &m.topics {
                if let Some(&i) = index.get(t.as_str()) {
                    if !bits[i as usize] {
                        bits[i as usize] = true;
                        s.push(i);
                    }
                }
            }
            let mut o = Vec::new();
            let mut dup = SortedSet::new();
            for pn in &m.owned_partitions {
                if let Some(n) = partitions_per_topic.get(&pn.topic) {
                    if pn.partition >= *n {
                        return Err(AssignError(format!(
                            "member `{}` owns {pn} but `{}` has {n} partition(s)",
                            m.member_id, pn.topic
                        )));
                    }
                }
                if !dup.insert(pn.clone()) {
                    return Err(AssignError(format!(
                        "member `{}` lists {pn} twice in owned_partitions",
                        m.member_id
                    )));
                }
                if let Some(&i) = index.get(pn.topic.as_str()) {
                    o.push(Tp {
                        t: i,
                        p: pn.partition,
                    });
                }
            }
            subs.push(s);
            subscribed.push(bits);
            owned.push(o);
        }
        let mut by_name: Vec<usize> = (0..members.len()).collect();
        by_name.sort_by(|&a, &b| java_cmp(&members[a].member_id, &members[b].member_id));
        let mut rank = vec![0; members.len()];
        for (r, &m) in by_name.iter().enumerate() {
            rank[m] = r;
        }
        let hashes: Vec<i32> = members
            .iter()
            .map(|m| java_string_hash(&m.member_id))
            .collect();
        Ok(Ctx {
            topic_hash: names.iter().map(|t| java_string_hash(t)).collect(),
            topics: names,
            counts,
            offsets,
            total,
            member_ids: members.iter().map(|m| m.member_id.clone()).collect(),
            instance_ids: members
                .iter()
                .map(|m| m.group_instance_id.clone())
                .collect(),
            rank,
            hash_order: java_hash_order(&hashes),
            subs,
            subscribed,
            owned,
            generation: members.iter().map(|m| m.generation).collect(),
            raw_topics: members
                .iter()
                .map(|m| m.topics.iter().cloned().collect())
                .collect(),
        })
    }

    fn gidx(&self, tp: Tp) -> usize {
        self.offsets[tp.t as usize] + tp.p as usize
    }

    fn name(&self, tp: Tp) -> PartitionName {
        PartitionName::new(&self.topics[tp.t as usize], tp.p)
    }

    fn members(&self) -> usize {
        self.member_ids.len()
    }

    /// `MemberInfo.compareTo`: static members first by instance id, then by member id.
    fn member_info_cmp(&self, a: usize, b: usize) -> Ordering {
        match (&self.instance_ids[a], &self.instance_ids[b]) {
            (Some(x), Some(y)) => java_cmp(x, y),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => self.rank[a].cmp(&self.rank[b]),
        }
    }

    fn sorted_members(&self, filter: impl Fn(usize) -> bool) -> Vec<usize> {
        let mut v: Vec<usize> = (0..self.members()).filter(|&m| filter(m)).collect();
        v.sort_by(|&a, &b| self.member_info_cmp(a, b));
        v
    }

    fn all_partitions(&self, order: &[u32]) -> Vec<Tp> {
        let mut v = Vec::with_capacity(self.total);
        for &t in order {
            for p in 0..self.counts[t as usize] {
                v.push(Tp { t, p });
            }
        }
        v
    }
}

/// Runs one assignor over a group, without racks.
pub fn assign(
    strategy: AssignorName,
    partitions_per_topic: &SortedMap<String, i32>,
    members: &[MemberSubscription],
) -> Result<AssignmentResult, AssignError> {
    assign_with_racks(
        strategy,
        partitions_per_topic,
        &PartitionRacks::new(),
        members,
    )
}

/// Runs one assignor over a group, with the members' racks and the
/// partitions' replica racks (KIP-881): what a group leader runs.
pub fn assign_with_racks(
    strategy: AssignorName,
    partitions_per_topic: &SortedMap<String, i32>,
    partition_racks: &PartitionRacks,
    members: &[MemberSubscription],
) -> Result<AssignmentResult, AssignError> {
    assign_racks(
        strategy,
        partitions_per_topic,
        partition_racks,
        members,
        false,
    )
}

/// [`assign_with_racks`]; `prefer_racks` is Kafka's test-only
/// `preferRackAwareLogic` (rack-aware even when every partition has a
/// replica on every rack), for the ported tests.
fn assign_racks(
    strategy: AssignorName,
    partitions_per_topic: &SortedMap<String, i32>,
    partition_racks: &PartitionRacks,
    members: &[MemberSubscription],
    prefer_racks: bool,
) -> Result<AssignmentResult, AssignError> {
    let ctx = Ctx::new(partitions_per_topic, members)?;
    let lists = match strategy {
        AssignorName::Range => {
            let racks = RackInfo::new(&ctx, partition_racks, members);
            if racks.any_needed {
                range_rack_aware(&ctx, &racks)
            } else {
                range(&ctx)
            }
        }
        AssignorName::RoundRobin => round_robin(&ctx),
        AssignorName::Sticky => {
            let racks = StickyRacks::new(&ctx, partition_racks, members, prefer_racks);
            sticky(&ctx, &racks).0
        }
        AssignorName::CooperativeSticky => {
            let racks = StickyRacks::new(&ctx, partition_racks, members, prefer_racks);
            let (mut lists, transferring) = sticky(&ctx, &racks);
            let transferring = match transferring {
                Some(t) => t,
                None => compute_transferring(&ctx, &lists),
            };
            for (tp, m) in transferring {
                lists[m].retain(|x| *x != tp);
            }
            lists
        }
    };
    let mut assignment = SortedMap::new();
    let mut revoke = SortedMap::new();
    for (m, list) in lists.iter().enumerate() {
        let id = ctx.member_ids[m].clone();
        let assigned: SortedSet<Tp> = SortedSet::from_iter(list.iter().copied());
        let gone: Vec<PartitionName> = members[m]
            .owned_partitions
            .iter()
            .filter(|pn| {
                let keep = ctx
                    .topics
                    .binary_search_by(|t| java_cmp(t, &pn.topic))
                    .ok()
                    .map(|t| Tp {
                        t: t as u32,
                        p: pn.partition,
                    });
                !keep.is_some_and(|tp| assigned.contains(&tp))
            })
            .cloned()
            .collect();
        revoke.insert(id.clone(), gone);
        assignment.insert(id, list.iter().map(|tp| ctx.name(*tp)).collect());
    }
    Ok(AssignmentResult { assignment, revoke })
}

/// `RangeAssignor`: per topic, consecutive ranges to the members sorted by id;
/// the first `partitions % members` get one more.
fn range(ctx: &Ctx) -> Vec<Vec<Tp>> {
    // The topic order of Kafka's partitionsPerTopic HashMap, filled from a
    // HashSet of all subscribed topics gathered member by member.
    let mut insertion: Vec<u32> = Vec::new();
    let mut seen = vec![false; ctx.topics.len()];
    for &m in &ctx.hash_order {
        for &t in &ctx.subs[m] {
            if !seen[t as usize] {
                seen[t as usize] = true;
                insertion.push(t);
            }
        }
    }
    let hashes: Vec<i32> = insertion
        .iter()
        .map(|&t| ctx.topic_hash[t as usize])
        .collect();
    let order: Vec<u32> = java_hash_order(&hashes)
        .into_iter()
        .map(|i| insertion[i])
        .collect();
    let mut out = vec![Vec::new(); ctx.members()];
    for t in order {
        let consumers = ctx.sorted_members(|m| ctx.subscribed[m][t as usize]);
        if consumers.is_empty() {
            continue;
        }
        let n = ctx.counts[t as usize] as usize;
        let per = n / consumers.len();
        let mut extra = n % consumers.len();
        let mut next = 0;
        for m in consumers {
            let take = per + usize::from(extra > 0);
            if take > per {
                extra -= 1;
            }
            for p in next..next + take {
                out[m].push(Tp { t, p: p as i32 });
            }
            next += take;
        }
    }
    out
}

/// Racks for the rack-aware Range pass: each member's (non-empty) rack and,
/// per topic, each partition's replica racks and whether the topic needs
/// rack-aware assignment.
struct RackInfo {
    member: Vec<Option<String>>,
    /// Per topic index: per partition, the replicas' racks; empty when no
    /// member of the topic has a rack (Kafka's `partitionRacks` is then
    /// empty, so its size, the grouping key, is 0).
    partitions: Vec<Vec<SortedSet<String>>>,
    /// Per topic index: `useRackAwareAssignment`.
    needed: Vec<bool>,
    any_needed: bool,
}

impl RackInfo {
    fn new(ctx: &Ctx, racks: &PartitionRacks, members: &[MemberSubscription]) -> RackInfo {
        let member: Vec<Option<String>> = members
            .iter()
            .map(|m| m.rack_id.clone().filter(|r| !r.is_empty()))
            .collect();
        let mut partitions = Vec::new();
        let mut needed = Vec::new();
        for t in 0..ctx.topics.len() {
            let consumer_racks: SortedSet<&String> = (0..ctx.members())
                .filter(|&m| ctx.subscribed[m][t])
                .filter_map(|m| member[m].as_ref())
                .collect();
            let per: Vec<SortedSet<String>> = if consumer_racks.is_empty() {
                Vec::new()
            } else {
                (0..ctx.counts[t] as usize)
                    .map(|p| {
                        racks
                            .get(&ctx.topics[t])
                            .and_then(|v| v.get(p).cloned())
                            .unwrap_or_default()
                    })
                    .collect()
            };
            let all: SortedSet<&String> = per.iter().flat_map(|s| s.iter()).collect();
            // AbstractPartitionAssignor.useRackAwareAssignment (not the
            // test-only preferRackAwareLogic): some member rack has replicas,
            // and not every partition has replicas on every rack.
            let need = !consumer_racks.is_empty()
                && consumer_racks.iter().any(|r| all.contains(r))
                && !per
                    .iter()
                    .all(|s| s.len() == all.len() && s.iter().all(|r| all.contains(r)));
            partitions.push(per);
            needed.push(need);
        }
        let any_needed = needed.iter().any(|n| *n);
        RackInfo {
            member,
            partitions,
            needed,
            any_needed,
        }
    }

    /// `racksMatch`: a member without a rack matches anything; one with a
    /// rack, a partition with a replica there.
    fn matches(&self, m: usize, t: u32, p: i32) -> bool {
        match &self.member[m] {
            None => true,
            Some(r) => self.partitions[t as usize]
                .get(p as usize)
                .is_some_and(|s| s.contains(r)),
        }
    }
}

/// One topic's Range state (`TopicAssignmentState`).
struct TopicRange {
    t: u32,
    /// Its members in `MemberInfo` order.
    consumers: Vec<usize>,
    unassigned: Vec<i32>,
    assigned: Vec<usize>,
    per: usize,
    extra: i64,
}

impl TopicRange {
    fn max_assignable(&self, m: usize) -> usize {
        (self.per + usize::from(self.extra > 0)).saturating_sub(self.assigned[m])
    }

    fn assign(&mut self, m: usize, parts: &[i32], out: &mut [Vec<Tp>]) {
        out[m].extend(parts.iter().map(|&p| Tp { t: self.t, p }));
        self.assigned[m] += parts.len();
        if self.assigned[m] > self.per {
            self.extra -= 1;
        }
        self.unassigned.retain(|p| !parts.contains(p));
    }

    /// `assignRanges`: each member in turn takes up to its quota of the
    /// unassigned partitions `may` allows, in partition order.
    fn assign_ranges(&mut self, may: impl Fn(usize, i32) -> bool, out: &mut [Vec<Tp>]) {
        for m in self.consumers.clone() {
            if self.unassigned.is_empty() {
                break;
            }
            let take: Vec<i32> = self
                .unassigned
                .iter()
                .copied()
                .filter(|&p| may(m, p))
                .take(self.max_assignable(m))
                .collect();
            if !take.is_empty() {
                self.assign(m, &take, out);
            }
        }
    }
}

/// Rack-aware `RangeAssignor.assignPartitions`: the rack-matching pass
/// (`assignWithRackMatching`), then plain ranges for what is left, then each
/// member's list sorted by topic and partition.
fn range_rack_aware(ctx: &Ctx, racks: &RackInfo) -> Vec<Vec<Tp>> {
    let mut out = vec![Vec::new(); ctx.members()];
    let mut states: Vec<TopicRange> = (0..ctx.topics.len() as u32)
        .map(|t| {
            let consumers = ctx.sorted_members(|m| ctx.subscribed[m][t as usize]);
            let n = ctx.counts[t as usize] as usize;
            let k = consumers.len();
            TopicRange {
                t,
                per: n.checked_div(k).unwrap_or(0),
                extra: n.checked_rem(k).unwrap_or(0) as i64,
                consumers,
                unassigned: (0..n as i32).collect(),
                assigned: vec![0; ctx.members()],
            }
        })
        .collect();
    // Grouped by (members with their racks, number of partitions with rack
    // information); the groups' order does not change the result.
    let mut groups: Vec<(Vec<usize>, usize, Vec<usize>)> = Vec::new();
    for (i, s) in states.iter().enumerate() {
        let size = racks.partitions[s.t as usize].len();
        match groups
            .iter_mut()
            .find(|g| g.0 == s.consumers && g.1 == size)
        {
            Some(g) => g.2.push(i),
            None => groups.push((s.consumers.clone(), size, vec![i])),
        }
    }
    for (consumers, size, members) in groups {
        if members.len() > 1 {
            // assignCoPartitionedWithRackMatching: partition p of every
            // topic in the group to the first member that matches them all.
            let mut remaining = consumers.clone();
            for p in 0..size as i32 {
                let found = remaining.iter().copied().find(|&m| {
                    members.iter().all(|&i| {
                        racks.matches(m, states[i].t, p) && states[i].max_assignable(m) > 0
                    })
                });
                if let Some(m) = found {
                    for &i in &members {
                        states[i].assign(m, &[p], &mut out);
                    }
                    if members.iter().all(|&i| states[i].max_assignable(m) == 0) {
                        remaining.retain(|&x| x != m);
                        if remaining.is_empty() {
                            break;
                        }
                    }
                }
            }
        } else {
            let i = members[0];
            if racks.needed[states[i].t as usize] {
                let t = states[i].t;
                states[i].assign_ranges(|m, p| racks.matches(m, t, p), &mut out);
            }
        }
    }
    for s in &mut states {
        s.assign_ranges(|_, _| true, &mut out);
    }
    for list in &mut out {
        list.sort();
    }
    out
}

/// `RoundRobinAssignor`: all partitions sorted by topic, dealt in turn to the
/// members sorted by id, skipping members not subscribed to the topic.
fn round_robin(ctx: &Ctx) -> Vec<Vec<Tp>> {
    let members = ctx.sorted_members(|_| true);
    let mut out = vec![Vec::new(); ctx.members()];
    if members.is_empty() {
        return out;
    }
    let order: Vec<u32> = (0..ctx.topics.len() as u32).collect();
    let mut at = 0;
    for tp in ctx.all_partitions(&order) {
        while !ctx.subscribed[members[at]][tp.t as usize] {
            at = (at + 1) % members.len();
        }
        out[members[at]].push(tp);
        at = (at + 1) % members.len();
    }
    out
}

#[cfg(test)]
mod tests;
