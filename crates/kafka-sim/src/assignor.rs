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
//! order within a bucket. Two things are not modelled: rack-aware assignment
//! (`client.rack`; the simulation's consumers have no rack) and Java's
//! treeified buckets (a bucket of 9+ colliding keys).
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

/// Kafka's `AbstractStickyAssignor.DEFAULT_GENERATION`.
pub const DEFAULT_GENERATION: i32 = -1;

/// One member's subscription as the leader sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemberSubscription {
    pub member_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_instance_id: Option<String>,
    pub topics: Vec<String>,
    /// Partitions the member owned in its last generation (`topic-N`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub owned_partitions: Vec<PartitionName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i32>,
}

/// A partition written `topic-N`, as Kafka prints a `TopicPartition`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PartitionName {
    pub topic: String,
    pub partition: i32,
}

impl PartitionName {
    pub fn new(topic: &str, partition: i32) -> PartitionName {
        PartitionName {
            topic: topic.to_string(),
            partition,
        }
    }
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
fn tp_hash(topic_hash: i32, partition: i32) -> i32 {
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

/// Runs one assignor over a group.
pub fn assign(
    strategy: AssignorName,
    partitions_per_topic: &SortedMap<String, i32>,
    members: &[MemberSubscription],
) -> Result<AssignmentResult, AssignError> {
    let ctx = Ctx::new(partitions_per_topic, members)?;
    let lists = match strategy {
        AssignorName::Range => range(&ctx),
        AssignorName::RoundRobin => round_robin(&ctx),
        AssignorName::Sticky => sticky(&ctx).0,
        AssignorName::CooperativeSticky => {
            let (mut lists, transferring) = sticky(&ctx);
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

/// Previously owned partitions after the generation rules, and whether all
/// members subscribe to the same topics (`allSubscriptionsEqual`).
struct Owned {
    all_equal: bool,
    max_generation: i32,
    current: Vec<Vec<Tp>>,
    multiple_owners: SortedSet<Tp>,
}

fn previously_owned(ctx: &Ctx) -> Owned {
    let mut all_equal = true;
    let mut first: Option<&SortedSet<String>> = None;
    let mut max_generation = DEFAULT_GENERATION;
    let mut current = vec![Vec::new(); ctx.members()];
    let mut owner_of: HashMap<Tp, usize> = HashMap::new();
    let mut multiple_owners = SortedSet::new();
    for &m in &ctx.hash_order {
        match first {
            None => first = Some(&ctx.raw_topics[m]),
            Some(f) if *f != ctx.raw_topics[m] => all_equal = false,
            _ => {}
        }
        let gen = ctx.generation[m].unwrap_or(DEFAULT_GENERATION);
        max_generation = max_generation.max(gen);
        for &tp in &ctx.owned[m] {
            match owner_of.get(&tp).copied() {
                None => {
                    current[m].push(tp);
                    owner_of.insert(tp, m);
                }
                Some(other) => {
                    let other_gen = ctx.generation[other].unwrap_or(DEFAULT_GENERATION);
                    if gen == other_gen {
                        multiple_owners.insert(tp);
                        current[other].retain(|x| *x != tp);
                        owner_of.insert(tp, m);
                    } else if gen > other_gen {
                        current[m].push(tp);
                        current[other].retain(|x| *x != tp);
                        owner_of.insert(tp, m);
                    }
                }
            }
        }
    }
    Owned {
        all_equal,
        max_generation,
        current,
        multiple_owners,
    }
}

/// The sticky assignment, and (constrained case only) the partitions that
/// change owner, partition → new owner.
/// Per member (input order), its partitions.
type Lists = Vec<Vec<Tp>>;
/// Partitions changing owner: (partition, new owner).
type Transfers = Vec<(Tp, usize)>;

fn sticky(ctx: &Ctx) -> (Lists, Option<Transfers>) {
    if ctx.members() == 0 {
        return (Vec::new(), Some(Vec::new()));
    }
    let owned = previously_owned(ctx);
    if owned.all_equal {
        let (lists, transferring) = constrained(ctx, owned);
        (lists, Some(transferring))
    } else {
        (General::new(ctx, owned).build(), None)
    }
}

/// `ConstrainedAssignmentBuilder`: every member subscribes to the same topics.
fn constrained(ctx: &Ctx, owned: Owned) -> (Vec<Vec<Tp>>, Vec<(Tp, usize)>) {
    let n = ctx.members();
    let total = ctx.total;
    let min_quota = total / n;
    let max_quota = total.div_ceil(n);
    let expected_over = total % n;
    let mut current_over = 0usize;
    let mut under: Vec<usize> = Vec::new();
    let mut exact: VecDeque<usize> = VecDeque::new();
    let mut assignment: Vec<Vec<Tp>> = vec![Vec::new(); n];
    let mut assigned = vec![false; total];
    let mut maybe_revoked: HashMap<Tp, usize> = HashMap::new();
    let mut transferring: Vec<(Tp, usize)> = Vec::new();

    for &m in &ctx.hash_order {
        let mut mine: Vec<Tp> = owned.current[m]
            .iter()
            .copied()
            .filter(|tp| !owned.multiple_owners.contains(tp))
            .collect();
        mine.sort_by(|a, b| a.p.cmp(&b.p).then(a.t.cmp(&b.t)));
        if mine.len() < min_quota {
            for tp in &mine {
                assigned[ctx.gidx(*tp)] = true;
            }
            assignment[m].extend(mine);
            under.push(m);
        } else if mine.len() >= max_quota && current_over < expected_over {
            current_over += 1;
            if current_over == expected_over {
                exact.clear();
            }
            for tp in &mine[..max_quota] {
                assigned[ctx.gidx(*tp)] = true;
            }
            assignment[m].extend_from_slice(&mine[..max_quota]);
            for tp in &mine[max_quota..] {
                maybe_revoked.insert(*tp, m);
            }
        } else {
            for tp in &mine[..min_quota] {
                assigned[ctx.gidx(*tp)] = true;
            }
            assignment[m].extend_from_slice(&mine[..min_quota]);
            for tp in &mine[min_quota..] {
                maybe_revoked.insert(*tp, m);
            }
            if current_over < expected_over {
                exact.push_back(m);
            }
        }
    }

    let mut unassigned = Vec::with_capacity(total);
    for t in 0..ctx.topics.len() as u32 {
        for p in 0..ctx.counts[t as usize] {
            let tp = Tp { t, p };
            if !assigned[ctx.gidx(tp)] {
                unassigned.push(tp);
            }
        }
    }
    under.sort_by_key(|&m| ctx.rank[m]);
    exact.make_contiguous().sort_by_key(|&m| ctx.rank[m]);

    // assignRoundRobin: an iterator over `under` that restarts at its head.
    let mut pos = 0usize;
    for tp in unassigned {
        let m;
        let mut from_under = false;
        if pos < under.len() {
            m = under[pos];
            pos += 1;
            from_under = true;
        } else if under.is_empty() && exact.is_empty() {
            // Kafka throws IllegalStateException here; the quotas make it unreachable.
            break;
        } else if under.is_empty() {
            m = exact.pop_front().expect("checked non-empty");
        } else {
            pos = 0;
            m = under[pos];
            pos += 1;
            from_under = true;
        }
        assignment[m].push(tp);
        if maybe_revoked.get(&tp).is_some_and(|&o| o != m) || owned.multiple_owners.contains(&tp) {
            transferring.push((tp, m));
        }
        let count = assignment[m].len();
        if count == min_quota {
            if from_under {
                pos -= 1;
                under.remove(pos);
            }
            exact.push_back(m);
        }
        // (Kafka counts members reaching maxQuota here only to log a warning.)
    }
    (assignment, transferring)
}

/// A Java `HashSet<TopicPartition>` small enough to scan: enough to know
/// which element its iterator returns first.
#[derive(Default)]
struct JavaSet {
    items: Vec<(Tp, u64)>,
    max_len: usize,
}

impl JavaSet {
    fn insert(&mut self, tp: Tp, seq: u64) {
        if !self.items.iter().any(|(x, _)| *x == tp) {
            self.items.push((tp, seq));
            self.max_len = self.max_len.max(self.items.len());
        }
    }
    fn remove(&mut self, tp: Tp) {
        self.items.retain(|(x, _)| *x != tp);
    }
    fn first(&self, ctx: &Ctx) -> Option<Tp> {
        let mask = (java_capacity(self.max_len) - 1) as u32;
        self.items
            .iter()
            .min_by_key(|(tp, seq)| {
                (
                    spread(tp_hash(ctx.topic_hash[tp.t as usize], tp.p)) & mask,
                    *seq,
                )
            })
            .map(|(tp, _)| *tp)
    }
}

/// `PartitionMovements`: which partitions moved between which members, so a
/// move back undoes an earlier move instead of adding another.
#[derive(Default)]
struct Movements {
    moves: HashMap<Tp, (usize, usize)>,
    by_topic: HashMap<u32, HashMap<(usize, usize), JavaSet>>,
    seq: u64,
}

impl Movements {
    fn remove_record(&mut self, tp: Tp) -> (usize, usize) {
        let pair = self.moves.remove(&tp).expect("recorded movement");
        let topic = self.by_topic.get_mut(&tp.t).expect("topic movements");
        let set = topic.get_mut(&pair).expect("pair movements");
        set.remove(tp);
        if set.items.is_empty() {
            topic.remove(&pair);
        }
        if topic.is_empty() {
            self.by_topic.remove(&tp.t);
        }
        pair
    }
    fn add_record(&mut self, tp: Tp, pair: (usize, usize)) {
        self.moves.insert(tp, pair);
        self.seq += 1;
        self.by_topic
            .entry(tp.t)
            .or_default()
            .entry(pair)
            .or_default()
            .insert(tp, self.seq);
    }
    fn move_partition(&mut self, tp: Tp, old: usize, new: usize) {
        if self.moves.contains_key(&tp) {
            let existing = self.remove_record(tp);
            if existing.0 != new {
                self.add_record(tp, (existing.0, new));
            }
        } else {
            self.add_record(tp, (old, new));
        }
    }
    fn actual_partition_to_move(&self, ctx: &Ctx, tp: Tp, mut old: usize, new: usize) -> Tp {
        let Some(topic) = self.by_topic.get(&tp.t) else {
            return tp;
        };
        if let Some(pair) = self.moves.get(&tp) {
            old = pair.0;
        }
        match topic.get(&(new, old)) {
            None => tp,
            Some(set) => set.first(ctx).unwrap_or(tp),
        }
    }
}

/// `GeneralAssignmentBuilder`: members subscribe to different topics.
struct General<'a> {
    ctx: &'a Ctx,
    max_generation: i32,
    /// None once a member is set aside as unable to take part.
    current: Vec<Option<Vec<Tp>>>,
    /// Owner per global partition index (`currentPartitionConsumer`).
    owner: Vec<Option<usize>>,
    /// Members sorted by (assignment size, member id).
    sorted: SortedSet<(usize, usize)>,
    by_rank: Vec<usize>,
    /// Number of members subscribed to each topic.
    potential: Vec<usize>,
    sorted_all: Vec<Tp>,
    revocation_required: bool,
    movements: Movements,
    original_owned: Vec<Vec<Tp>>,
}

impl<'a> General<'a> {
    fn new(ctx: &'a Ctx, owned: Owned) -> General<'a> {
        let n = ctx.members();
        let mut potential = vec![0usize; ctx.topics.len()];
        for s in &ctx.subs {
            for &t in s {
                potential[t as usize] += 1;
            }
        }
        let mut owner = vec![None; ctx.total];
        for (m, list) in owned.current.iter().enumerate() {
            for tp in list {
                owner[ctx.gidx(*tp)] = Some(m);
            }
        }
        let mut topic_order: Vec<u32> = (0..ctx.topics.len() as u32).collect();
        topic_order.sort_by_key(|&t| (potential[t as usize], t));
        let mut by_rank = vec![0; n];
        for m in 0..n {
            by_rank[ctx.rank[m]] = m;
        }
        General {
            ctx,
            max_generation: owned.max_generation,
            current: owned.current.into_iter().map(Some).collect(),
            owner,
            sorted: SortedSet::new(),
            by_rank,
            sorted_all: ctx.all_partitions(&topic_order),
            potential,
            revocation_required: false,
            movements: Movements::default(),
            original_owned: ctx.owned.clone(),
        }
    }

    fn size(&self, m: usize) -> usize {
        self.current[m].as_ref().map_or(0, Vec::len)
    }

    fn key(&self, m: usize) -> (usize, usize) {
        (self.size(m), self.ctx.rank[m])
    }

    fn build(mut self) -> Vec<Vec<Tp>> {
        let ctx = self.ctx;
        // prepopulateCurrentAssignments: the owners of older generations.
        let mut prev: HashMap<Tp, (usize, i32)> = HashMap::new();
        for &m in &ctx.hash_order {
            let gen = match ctx.generation[m] {
                Some(g) if g < self.max_generation => g,
                None if self.max_generation > DEFAULT_GENERATION => DEFAULT_GENERATION,
                _ => continue,
            };
            for &tp in &self.original_owned[m] {
                match prev.get(&tp) {
                    Some(&(_, g)) if gen <= g => {}
                    _ => {
                        prev.insert(tp, (m, gen));
                    }
                }
            }
        }
        // assignOwnedPartitions: drop what a member no longer subscribes to.
        let mut assigned = vec![false; ctx.total];
        for m in 0..ctx.members() {
            let list = self.current[m].take().unwrap_or_default();
            let mut keep = Vec::with_capacity(list.len());
            for tp in list {
                if ctx.subscribed[m][tp.t as usize] {
                    assigned[ctx.gidx(tp)] = true;
                    keep.push(tp);
                } else {
                    self.revocation_required = true;
                }
            }
            self.current[m] = Some(keep);
        }
        let mut unassigned: Vec<Tp> = self
            .sorted_all
            .iter()
            .copied()
            .filter(|tp| !assigned[ctx.gidx(*tp)])
            .collect();
        for m in 0..ctx.members() {
            self.sorted.insert(self.key(m));
        }
        self.balance(&prev, &mut unassigned);
        self.current
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect()
    }

    fn max_assignment_size(&self, m: usize) -> usize {
        self.ctx.subs[m]
            .iter()
            .map(|&t| self.ctx.counts[t as usize] as usize)
            .sum()
    }

    fn is_balanced(&self) -> bool {
        let (Some(&(min, _)), Some(&(max, _))) = (self.sorted.first(), self.sorted.last()) else {
            return true;
        };
        if min + 1 >= max {
            return true;
        }
        for &(size, r) in &self.sorted {
            let m = self.by_rank[r];
            if size == self.max_assignment_size(m) {
                continue;
            }
            for &t in &self.ctx.subs[m] {
                for p in 0..self.ctx.counts[t as usize] {
                    let g = self.ctx.gidx(Tp { t, p });
                    match self.owner[g] {
                        Some(o)
                            if o != m && self.current[o].is_some() && size + 1 < self.size(o) =>
                        {
                            return false;
                        }
                        _ => {}
                    }
                }
            }
        }
        true
    }

    fn balance_score(lists: &[Option<Vec<Tp>>]) -> i64 {
        let sizes: Vec<i64> = lists.iter().flatten().map(|l| l.len() as i64).collect();
        let mut score = 0;
        for i in 0..sizes.len() {
            for j in i + 1..sizes.len() {
                score += (sizes[i] - sizes[j]).abs();
            }
        }
        score
    }

    fn assign_to_least_loaded(&mut self, tp: Tp) {
        let found = self
            .sorted
            .iter()
            .map(|&(_, r)| self.by_rank[r])
            .find(|&m| self.ctx.subscribed[m][tp.t as usize]);
        if let Some(m) = found {
            self.sorted.remove(&self.key(m));
            self.current[m].get_or_insert_with(Vec::new).push(tp);
            self.owner[self.ctx.gidx(tp)] = Some(m);
            self.sorted.insert(self.key(m));
        }
    }

    fn can_participate(&self, m: usize) -> bool {
        let size = self.size(m);
        if size < self.max_assignment_size(m) {
            return true;
        }
        self.current[m]
            .as_ref()
            .is_some_and(|l| l.iter().any(|tp| self.potential[tp.t as usize] >= 2))
    }

    fn balance(&mut self, prev: &HashMap<Tp, (usize, i32)>, unassigned: &mut Vec<Tp>) {
        let ctx = self.ctx;
        let initializing = self.sorted.last().is_none_or(|&(size, _)| size == 0);
        for tp in unassigned.clone() {
            if self.potential[tp.t as usize] > 0 {
                self.assign_to_least_loaded(tp);
            }
        }
        let fixed_topic = |t: u32| self.potential[t as usize] < 2;
        self.sorted_all.retain(|tp| !fixed_topic(tp.t));
        unassigned.retain(|tp| !fixed_topic(tp.t));
        let mut fixed: Vec<(usize, Vec<Tp>)> = Vec::new();
        for m in 0..ctx.members() {
            if !self.can_participate(m) {
                self.sorted.remove(&self.key(m));
                fixed.push((m, self.current[m].take().unwrap_or_default()));
            }
        }
        let pre_balance = self.current.clone();
        let pre_owner = self.owner.clone();
        if !self.revocation_required {
            let list = unassigned.clone();
            self.perform_reassignments(&list, prev);
        }
        let list = self.sorted_all.clone();
        let performed = self.perform_reassignments(&list, prev);
        if !initializing
            && performed
            && Self::balance_score(&self.current) >= Self::balance_score(&pre_balance)
        {
            self.current = pre_balance;
            self.owner = pre_owner;
            self.sorted = (0..ctx.members())
                .filter(|&m| self.current[m].is_some())
                .map(|m| self.key(m))
                .collect();
        }
        for (m, list) in fixed {
            self.current[m] = Some(list);
            self.sorted.insert(self.key(m));
        }
    }

    fn perform_reassignments(&mut self, list: &[Tp], prev: &HashMap<Tp, (usize, i32)>) -> bool {
        let mut performed = false;
        loop {
            let mut modified = false;
            for &tp in list {
                if self.is_balanced() {
                    break;
                }
                let Some(m) = self.owner[self.ctx.gidx(tp)] else {
                    continue;
                };
                if let Some(&(p, _)) = prev.get(&tp) {
                    if self.current[p].is_some() && self.size(m) > self.size(p) + 1 {
                        self.reassign(tp, p);
                        performed = true;
                        modified = true;
                        continue;
                    }
                }
                let size = self.size(m);
                let more_loaded = (0..self.ctx.members()).any(|o| {
                    self.ctx.subscribed[o][tp.t as usize]
                        && self.current[o].is_some()
                        && size > self.size(o) + 1
                });
                if more_loaded {
                    let to = self
                        .sorted
                        .iter()
                        .map(|&(_, r)| self.by_rank[r])
                        .find(|&o| self.ctx.subscribed[o][tp.t as usize])
                        .expect("a subscriber exists");
                    self.reassign(tp, to);
                    performed = true;
                    modified = true;
                }
            }
            if !modified {
                return performed;
            }
        }
    }

    fn reassign(&mut self, tp: Tp, to: usize) {
        let from = self.owner[self.ctx.gidx(tp)].expect("assigned");
        let actual = self
            .movements
            .actual_partition_to_move(self.ctx, tp, from, to);
        let old = self.owner[self.ctx.gidx(actual)].expect("assigned");
        self.sorted.remove(&self.key(old));
        self.sorted.remove(&self.key(to));
        self.movements.move_partition(actual, old, to);
        if let Some(l) = self.current[old].as_mut() {
            if let Some(i) = l.iter().position(|x| *x == actual) {
                l.remove(i);
            }
        }
        self.current[to].get_or_insert_with(Vec::new).push(actual);
        self.owner[self.ctx.gidx(actual)] = Some(to);
        self.sorted.insert(self.key(to));
        self.sorted.insert(self.key(old));
    }
}

/// `computePartitionsTransferringOwnership`: assigned to one member, owned by another.
fn compute_transferring(ctx: &Ctx, lists: &[Vec<Tp>]) -> Vec<(Tp, usize)> {
    let mut added: Vec<(Tp, usize)> = Vec::new();
    let mut revoked: SortedSet<Tp> = SortedSet::new();
    for (m, list) in lists.iter().enumerate() {
        let owned: SortedSet<Tp> = SortedSet::from_iter(ctx.owned[m].iter().copied());
        let assigned: SortedSet<Tp> = SortedSet::from_iter(list.iter().copied());
        added.extend(
            list.iter()
                .filter(|tp| !owned.contains(tp))
                .map(|tp| (*tp, m)),
        );
        revoked.extend(ctx.owned[m].iter().filter(|tp| !assigned.contains(tp)));
    }
    added.retain(|(tp, _)| revoked.contains(tp));
    added
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(id: &str, topics: &[&str]) -> MemberSubscription {
        MemberSubscription {
            member_id: id.into(),
            group_instance_id: None,
            topics: topics.iter().map(|t| t.to_string()).collect(),
            owned_partitions: Vec::new(),
            generation: None,
        }
    }

    fn names(r: &AssignmentResult, m: &str) -> Vec<String> {
        r.assignment[m].iter().map(|p| p.to_string()).collect()
    }

    fn topics(t: &[(&str, i32)]) -> SortedMap<String, i32> {
        t.iter().map(|(n, c)| (n.to_string(), *c)).collect()
    }

    #[test]
    fn java_hash_order_matches_a_java_hashmap() {
        // new HashMap<>() with "c", "a", "b" put in that order iterates a, b, c
        // (hash codes 97, 98, 99 fall in buckets 1, 2, 3).
        let h: Vec<i32> = ["c", "a", "b"]
            .iter()
            .map(|s| java_string_hash(s))
            .collect();
        assert_eq!(java_hash_order(&h), vec![1, 2, 0]);
        // "Aa" and "BB" collide (2112): insertion order decides.
        let h: Vec<i32> = ["BB", "Aa"].iter().map(|s| java_string_hash(s)).collect();
        assert_eq!(java_hash_order(&h), vec![0, 1]);
        assert_eq!(java_capacity(12), 16);
        assert_eq!(java_capacity(13), 32);
    }

    #[test]
    fn range_seven_partitions_three_consumers_is_3_2_2() {
        let r = assign(
            AssignorName::Range,
            &topics(&[("t", 7)]),
            &[
                member("c3", &["t"]),
                member("c1", &["t"]),
                member("c2", &["t"]),
            ],
        )
        .unwrap();
        assert_eq!(names(&r, "c1"), ["t-0", "t-1", "t-2"]);
        assert_eq!(names(&r, "c2"), ["t-3", "t-4"]);
        assert_eq!(names(&r, "c3"), ["t-5", "t-6"]);
    }

    #[test]
    fn range_static_members_sort_first_by_instance_id() {
        let mut a = member("a", &["t"]);
        let mut z = member("z", &["t"]);
        z.group_instance_id = Some("i1".into());
        a.group_instance_id = Some("i2".into());
        let r = assign(AssignorName::Range, &topics(&[("t", 3)]), &[a, z]).unwrap();
        assert_eq!(names(&r, "z"), ["t-0", "t-1"]);
        assert_eq!(names(&r, "a"), ["t-2"]);
    }

    #[test]
    fn roundrobin_unequal_subscriptions() {
        // Kafka's javadoc example: C0 subscribes t0; C1 t0, t1; C2 t0, t1, t2.
        let r = assign(
            AssignorName::RoundRobin,
            &topics(&[("t0", 1), ("t1", 2), ("t2", 3)]),
            &[
                member("C0", &["t0"]),
                member("C1", &["t0", "t1"]),
                member("C2", &["t0", "t1", "t2"]),
            ],
        )
        .unwrap();
        assert_eq!(names(&r, "C0"), ["t0-0"]);
        assert_eq!(names(&r, "C1"), ["t1-0"]);
        assert_eq!(names(&r, "C2"), ["t1-1", "t2-0", "t2-1", "t2-2"]);
    }

    #[test]
    fn sticky_keeps_ownership_when_a_member_leaves() {
        // Kafka's StickyAssignor javadoc: 3 consumers, t0..t3 with 2 partitions each.
        let t = topics(&[("t0", 2), ("t1", 2), ("t2", 2), ("t3", 2)]);
        let all = ["t0", "t1", "t2", "t3"];
        let first = assign(
            AssignorName::Sticky,
            &t,
            &[member("C0", &all), member("C1", &all), member("C2", &all)],
        )
        .unwrap();
        assert_eq!(names(&first, "C0"), ["t0-0", "t1-1", "t3-0"]);
        assert_eq!(names(&first, "C1"), ["t0-1", "t2-0", "t3-1"]);
        assert_eq!(names(&first, "C2"), ["t1-0", "t2-1"]);
        let mut c0 = member("C0", &all);
        c0.owned_partitions = first.assignment["C0"].clone();
        c0.generation = Some(1);
        let mut c2 = member("C2", &all);
        c2.owned_partitions = first.assignment["C2"].clone();
        c2.generation = Some(1);
        let second = assign(AssignorName::Sticky, &t, &[c0, c2]).unwrap();
        // C0 and C2 keep everything (owned first, sorted by partition then
        // topic); C1's three partitions are dealt round robin to the members
        // below quota, C0 first.
        assert_eq!(names(&second, "C0"), ["t0-0", "t3-0", "t1-1", "t0-1"]);
        assert_eq!(names(&second, "C2"), ["t1-0", "t2-1", "t2-0", "t3-1"]);
        // Eager: nothing had to be taken away from C0 or C2.
        assert!(second.revoke["C0"].is_empty() && second.revoke["C2"].is_empty());
    }

    #[test]
    fn cooperative_revokes_first_and_assigns_next_round() {
        let t = topics(&[("t", 4)]);
        let mut a = member("a", &["t"]);
        a.owned_partitions = (0..4).map(|p| PartitionName::new("t", p)).collect();
        a.generation = Some(1);
        let b = member("b", &["t"]);
        let r1 = assign(AssignorName::CooperativeSticky, &t, &[a.clone(), b.clone()]).unwrap();
        assert_eq!(names(&r1, "a"), ["t-0", "t-1"]);
        assert!(r1.assignment["b"].is_empty(), "{:?}", r1);
        assert_eq!(
            r1.revoke["a"]
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>(),
            ["t-2", "t-3"]
        );
        // Second round: a now owns t-0, t-1 in generation 2.
        a.owned_partitions = r1.assignment["a"].clone();
        a.generation = Some(2);
        let r2 = assign(AssignorName::CooperativeSticky, &t, &[a, b]).unwrap();
        assert_eq!(names(&r2, "a"), ["t-0", "t-1"]);
        assert_eq!(names(&r2, "b"), ["t-2", "t-3"]);
    }

    #[test]
    fn generation_rules_for_doubly_claimed_partitions() {
        let t = topics(&[("t", 2)]);
        let mut a = member("a", &["t"]);
        let mut b = member("b", &["t"]);
        a.owned_partitions = vec![PartitionName::new("t", 0)];
        b.owned_partitions = vec![PartitionName::new("t", 0), PartitionName::new("t", 1)];
        a.generation = Some(5);
        b.generation = Some(4);
        // The higher generation wins t-0; b keeps t-1.
        let r = assign(AssignorName::Sticky, &t, &[a.clone(), b.clone()]).unwrap();
        assert_eq!(names(&r, "a"), ["t-0"]);
        assert_eq!(names(&r, "b"), ["t-1"]);
        assert_eq!(
            r.revoke["b"]
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>(),
            ["t-0"]
        );
    }

    #[test]
    fn bad_input_is_named() {
        let t = topics(&[("t", 2)]);
        let e = assign(
            AssignorName::Range,
            &t,
            &[member("a", &["t"]), member("a", &["t"])],
        )
        .unwrap_err();
        assert!(e.0.contains("`a` appears twice"), "{e}");
        let mut m = member("a", &["t"]);
        m.owned_partitions = vec![PartitionName::new("t", 9)];
        let e = assign(AssignorName::Sticky, &t, &[m]).unwrap_err();
        assert!(e.0.contains("owns t-9"), "{e}");
        assert_eq!(
            PartitionName::parse("my-topic-12"),
            Some(PartitionName::new("my-topic", 12))
        );
        assert_eq!(PartitionName::parse("nodash"), None);
    }
}
