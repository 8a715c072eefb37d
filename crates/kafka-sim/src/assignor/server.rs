//! The group coordinator's assignors for the consumer group protocol of
//! KIP-848 (`group.protocol=consumer`, Kafka 4.1.0): the broker computes
//! the target assignment from a `GroupSpec` (members, their subscriptions
//! and current assignments, the group's subscription type) and the topics'
//! partition counts. The answer is a `GroupAssignment`: for every member
//! the assignor returns, topic → partitions.
//!
//! Modelled so far: the server-side **range** assignor
//! (`org.apache.kafka.coordinator.group.assignor.RangeAssignor`, 4.1.0
//! `13f70256db3c`): members sorted with static members first (by
//! `group.instance.id`), then by member id; for each topic, the members
//! subscribed to it take consecutive ranges, the first
//! `partitions % members` one more. Homogeneous groups take the topics of
//! the first member in that order; heterogeneous ones count the
//! subscribers of each topic. Unlike the client's range assignor it is
//! not rack-aware, and it is not sticky. Its tests are ported from
//! `RangeAssignorTest` (see `server_tests`).
//!
//! The subscription type a group derives follows
//! `ModernGroup.subscriptionType`: HOMOGENEOUS when no topic is subscribed
//! or every subscribed topic has every member as subscriber.
//!
//! And the **uniform** assignor's homogeneous builder
//! (`UniformHomogeneousAssignmentBuilder`, see [`uniform_homogeneous`]),
//! whose result depends on the iteration order of a Java `HashSet` of
//! topic ids (reproduced from `Uuid.hashCode` and `HashMap`'s buckets) and
//! on the order members and their current assignments are iterated (the
//! request's order). Its tests are ported from
//! `OptimizedUniformAssignmentBuilderTest`.
//!
//! And its heterogeneous builder (`UniformHeterogeneousAssignmentBuilder`,
//! see [`uniform_heterogeneous`]), which sorts topics by partitions per
//! subscriber and breaks ties by `Uuid.compareTo`, so it depends on the
//! member order only. Its tests are ported from
//! `UniformHeterogeneousAssignmentBuilderTest`.

use super::java_cmp;
use crate::collections::SortedMap;
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::cmp::Ordering;
use std::fmt;

/// `SubscriptionType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SubscriptionType {
    /// Every member subscribes to the same topics.
    Homogeneous,
    /// Not.
    Heterogeneous,
}

/// Topic name → partitions, in the order given (Kafka's results can depend
/// on the order an assignor iterates a member's current assignment).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OrderedAssignment(pub Vec<(String, Vec<i32>)>);

impl<'de> Deserialize<'de> for OrderedAssignment {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedAssignment;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of topic name → partition numbers")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                let mut out: Vec<(String, Vec<i32>)> = Vec::new();
                while let Some((k, v)) = m.next_entry::<String, Vec<i32>>()? {
                    if out.iter().any(|(t, _)| *t == k) {
                        return Err(serde::de::Error::custom(format!("topic `{k}` twice")));
                    }
                    out.push((k, v));
                }
                Ok(OrderedAssignment(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// A member as the assignor sees it (`MemberSubscriptionAndAssignmentImpl`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerMember {
    /// `memberId`.
    pub member_id: String,
    /// `group.instance.id` of a static member.
    #[serde(default)]
    pub instance_id: Option<String>,
    /// `client.rack`.
    #[serde(default)]
    pub rack_id: Option<String>,
    /// The topics it subscribes to, by name.
    pub subscribed_topics: Vec<String>,
    /// Its current (target) assignment.
    #[serde(default)]
    pub current_assignment: OrderedAssignment,
}

/// A request for `kafka-sim assign --strategy server-range|uniform`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerRequest {
    /// Topic name → partition count.
    pub topics: SortedMap<String, i32>,
    /// Topic name → its id (URL-safe base64, 22 characters); derived from
    /// the name when left out.
    #[serde(default)]
    pub topic_ids: SortedMap<String, String>,
    /// The members.
    pub members: Vec<ServerMember>,
    /// Topic → each partition's replica racks (the uniform assignor's
    /// rack awareness; range ignores them).
    #[serde(default)]
    pub partition_racks: SortedMap<String, Vec<Vec<String>>>,
    /// Overrides the subscription type the group would derive.
    #[serde(default)]
    pub subscription_type: Option<SubscriptionType>,
}

/// Member id → topic name → partitions ascending (a `GroupAssignment`),
/// members in the request's order.
pub type ServerAssignment = Vec<(String, SortedMap<String, Vec<i32>>)>;

/// `ModernGroup.subscriptionType`.
pub fn derive_subscription_type(members: &[ServerMember]) -> SubscriptionType {
    let mut counts: SortedMap<&str, usize> = SortedMap::new();
    for m in members {
        let mut seen: Vec<&str> = m.subscribed_topics.iter().map(String::as_str).collect();
        seen.sort_unstable();
        seen.dedup();
        for t in seen {
            *counts.entry(t).or_default() += 1;
        }
    }
    if counts.values().all(|c| *c == members.len()) {
        SubscriptionType::Homogeneous
    } else {
        SubscriptionType::Heterogeneous
    }
}

/// Checks a request as the CLI takes it (one message naming the problem).
pub fn check_request(
    r: &ServerRequest,
    max_members: usize,
    max_partitions: i64,
) -> Result<(), String> {
    if r.members.len() > max_members {
        return Err(format!("members: at most {max_members} members"));
    }
    let mut total = 0i64;
    for (t, n) in r.topics.iter() {
        if t.is_empty() {
            return Err("topics: a topic name must not be empty".into());
        }
        if *n < 0 {
            return Err(format!("topics.{t}: {n} partitions"));
        }
        total += i64::from(*n);
    }
    if total > max_partitions {
        return Err(format!(
            "topics: {total} partitions in all; at most {max_partitions} are assigned at once"
        ));
    }
    for (t, id) in r.topic_ids.iter() {
        if !r.topics.contains_key(t) {
            return Err(format!("topic_ids.{t}: not in topics"));
        }
        let ok = id.len() == 22
            && id
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_');
        if !ok {
            return Err(format!(
                "topic_ids.{t}: `{id}` is not a topic id (22 characters of URL-safe base64)"
            ));
        }
    }
    for (t, racks) in r.partition_racks.iter() {
        let n = r.topics.get(t).copied().unwrap_or(0).max(0) as usize;
        if racks.len() != n {
            return Err(format!(
                "partition_racks.{t}: {} entries for {n} partition(s)",
                racks.len()
            ));
        }
    }
    let mut holders: std::collections::HashMap<(&str, i32), usize> =
        std::collections::HashMap::new();
    for (i, m) in r.members.iter().enumerate() {
        if m.member_id.is_empty() {
            return Err(format!("members[{i}].member_id: must not be empty"));
        }
        if r.members[..i].iter().any(|o| o.member_id == m.member_id) {
            return Err(format!("members[{i}].member_id: `{}` twice", m.member_id));
        }
        if let Some(inst) = &m.instance_id {
            if r.members[..i]
                .iter()
                .any(|o| o.instance_id.as_ref() == Some(inst))
            {
                return Err(format!("members[{i}].instance_id: `{inst}` twice"));
            }
        }
        for (t, parts) in &m.current_assignment.0 {
            let n = r.topics.get(t).copied();
            if let Some(p) = parts
                .iter()
                .find(|p| **p < 0 || n.is_some_and(|n| **p >= n))
            {
                return Err(match n {
                    Some(n) if *p >= 0 => format!(
                        "members[{i}].current_assignment.{t}: partition {p}, but {t} has {n} partition(s)"
                    ),
                    _ => format!("members[{i}].current_assignment.{t}: partition {p}"),
                });
            }
            for p in parts {
                match holders.insert((t.as_str(), *p), i) {
                    Some(o) if o == i => {
                        return Err(format!(
                            "members[{i}].current_assignment.{t}: partition {p} twice"
                        ))
                    }
                    Some(o) => {
                        return Err(format!(
                        "members[{i}].current_assignment.{t}: partition {p} is also held by `{}`",
                        r.members[o].member_id
                    ))
                    }
                    None => {}
                }
            }
        }
    }
    Ok(())
}

/// `RangeAssignor.sortMemberIds`: static members first by instance id,
/// then the others by member id (Java's `String.compareTo`).
fn sorted_members(members: &[ServerMember]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..members.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&members[a], &members[b]);
        match (&x.instance_id, &y.instance_id) {
            (Some(i), Some(j)) => java_cmp(i, j),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => java_cmp(&x.member_id, &y.member_id),
        }
    });
    order
}

/// A topic's ranges being handed out (`RangeAssignor.TopicMetadata`).
struct Ranges {
    partitions: i32,
    members: i32,
    min_quota: i32,
    extra: i32,
    next: i32,
}

impl Ranges {
    /// `addPartitionsToAssignment`: the next member's range, if not empty.
    fn next_range(&mut self) -> Option<std::ops::Range<i32>> {
        if self.min_quota < 0 {
            self.min_quota = self.partitions / self.members;
            self.extra = self.partitions % self.members;
        }
        let mut quota = self.min_quota;
        if self.extra > 0 {
            quota += 1;
            self.extra -= 1;
        }
        let start = self.next;
        let end = (start + quota).min(self.partitions);
        self.next = end;
        (start < end).then_some(start..end)
    }
}

/// A member's topics as a set (a name given twice counts once), in the
/// order given.
fn subs(m: &ServerMember) -> Vec<&str> {
    let mut seen: Vec<&str> = Vec::new();
    for t in &m.subscribed_topics {
        if !seen.contains(&t.as_str()) {
            seen.push(t);
        }
    }
    seen
}

/// The message of Kafka's `PartitionAssignorException` for a subscription
/// to a topic the metadata does not have.
pub const NON_EXISTENT_TOPIC: &str = "Member is subscribed to a non-existent topic";

/// The server-side range assignor (`RangeAssignor.assign`).
pub fn range(
    topics: &SortedMap<String, i32>,
    members: &[ServerMember],
    subscription: SubscriptionType,
) -> Result<ServerAssignment, String> {
    let mut out: ServerAssignment = members
        .iter()
        .map(|m| (m.member_id.clone(), SortedMap::new()))
        .collect();
    if members.is_empty() {
        return Ok(out);
    }
    let order = sorted_members(members);
    let new_ranges = |t: &str, n_members: i32| -> Result<Ranges, String> {
        let partitions = *topics.get(t).ok_or(NON_EXISTENT_TOPIC)?;
        Ok(Ranges {
            partitions,
            members: n_members,
            min_quota: -1,
            extra: -1,
            next: 0,
        })
    };
    let mut ranges: SortedMap<String, Ranges> = SortedMap::new();
    match subscription {
        SubscriptionType::Homogeneous => {
            let n = members.len() as i32;
            for t in subs(&members[order[0]]) {
                ranges.insert(t.to_string(), new_ranges(t, n)?);
            }
            for &i in &order {
                for (t, r) in ranges.iter_mut() {
                    if let Some(rg) = r.next_range() {
                        out[i].1.insert(t.clone(), rg.collect());
                    }
                }
            }
        }
        SubscriptionType::Heterogeneous => {
            for &i in &order {
                for t in subs(&members[i]) {
                    if !ranges.contains_key(t) {
                        ranges.insert(t.to_string(), new_ranges(t, 0)?);
                    }
                    if let Some(r) = ranges.get_mut(t) {
                        r.members += 1;
                    }
                }
            }
            for &i in &order {
                for t in subs(&members[i]) {
                    let Some(r) = ranges.get_mut(t) else { continue };
                    if let Some(rg) = r.next_range() {
                        out[i].1.insert(t.to_string(), rg.collect());
                    }
                }
            }
        }
    }
    Ok(out)
}

/// `Uuid.hashCode`: the high and low halves of `msb ^ lsb`, XORed.
pub fn uuid_hash(id: &str) -> i32 {
    let b = crate::kraft::codec::uuid_bytes(id);
    let msb = i64::from_be_bytes(b[..8].try_into().expect("8 bytes"));
    let lsb = i64::from_be_bytes(b[8..].try_into().expect("8 bytes"));
    let x = msb ^ lsb;
    ((x >> 32) as i32) ^ (x as i32)
}

/// The id of a topic the request gives no id for: a version-4 `Uuid` drawn
/// from the simulation's random numbers seeded with the name's 64-bit
/// FNV-1a hash.
pub fn derived_topic_id(name: &str) -> String {
    let seed = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    crate::kraft::records::topic_id(&mut crate::rng::Rng::new(seed))
}

/// The order `new HashSet<>(c)` iterates `ids` (given in `c`'s order):
/// by bucket of the spread hash in a table of
/// `tableSizeFor(max(n / 0.75 + 1, 16))`, then insertion order.
fn java_hash_set_order(ids: &[String]) -> Vec<usize> {
    let n = ids.len();
    let wanted = ((n as f32 / 0.75) as usize + 1).max(16);
    let cap = wanted.next_power_of_two();
    let mask = (cap - 1) as u32;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| {
        let h = uuid_hash(&ids[i]) as u32;
        ((h ^ (h >> 16)) & mask, i)
    });
    order
}

/// The uniform assignor's homogeneous builder
/// (`UniformHomogeneousAssignmentBuilder`): the first member's topics, in
/// `HashSet` order of their ids; each member keeps what it has up to its
/// quota (the first `total % members` members that can use one get an
/// extra partition), the rest and every partition nobody holds go, in
/// order, to the members still below their quota. Members are iterated in
/// the request's order, a member's current assignment in its order.
pub fn uniform_homogeneous(
    topics: &SortedMap<String, i32>,
    ids: &SortedMap<String, String>,
    members: &[ServerMember],
) -> Result<ServerAssignment, String> {
    let Some(first) = members.first() else {
        return Ok(Vec::new());
    };
    let subscribed = subs(first);
    if subscribed.is_empty() {
        return Ok(Vec::new());
    }
    let id_of = |t: &str| ids.get(t).cloned().unwrap_or_else(|| derived_topic_id(t));
    let subscribed_ids: Vec<String> = subscribed.iter().map(|t| id_of(t)).collect();
    let order = java_hash_set_order(&subscribed_ids);
    let held = |t: &str, p: i32| {
        members.iter().any(|m| {
            m.current_assignment
                .0
                .iter()
                .any(|(n, ps)| n == t && ps.contains(&p))
        })
    };
    let mut unassigned: Vec<(String, i32)> = Vec::new();
    let mut total = 0i64;
    for &i in &order {
        let t = subscribed[i];
        let Some(n) = topics.get(t) else {
            return Err(format!(
                "Members are subscribed to topic {} which doesn't exist in the topic metadata.",
                subscribed_ids[i]
            ));
        };
        for p in 0..*n {
            if !held(t, p) {
                unassigned.push((t.to_string(), p));
            }
        }
        total += i64::from(*n);
    }
    let count = members.len() as i64;
    let min_quota = total / count;
    let mut extra_left = total % count;
    let mut out: ServerAssignment = Vec::with_capacity(members.len());
    let mut unfilled: Vec<(usize, i64)> = Vec::new();
    for (index, m) in members.iter().enumerate() {
        let mut quota = min_quota;
        let mut has_extra = false;
        if extra_left > 0 {
            quota += 1;
            has_extra = true;
        }
        let mut mine: SortedMap<String, Vec<i32>> = SortedMap::new();
        for (t, parts) in &m.current_assignment.0 {
            if !subscribed.contains(&t.as_str()) {
                continue;
            }
            let mut kept = Vec::new();
            if parts.len() as i64 <= quota {
                quota -= parts.len() as i64;
                kept.clone_from(parts);
            } else {
                for p in parts {
                    if quota > 0 {
                        quota -= 1;
                        kept.push(*p);
                    } else {
                        unassigned.push((t.clone(), *p));
                    }
                }
            }
            if !kept.is_empty() {
                mine.entry(t.clone()).or_default().extend(kept);
            }
        }
        if quota > 0 && has_extra && count - index as i64 > extra_left {
            quota -= 1;
            has_extra = false;
        }
        if quota > 0 {
            unfilled.push((index, quota));
        }
        if has_extra {
            extra_left -= 1;
        }
        out.push((m.member_id.clone(), mine));
    }
    let mut next = 0;
    for (index, quota) in unfilled {
        for _ in 0..quota {
            let Some((t, p)) = unassigned.get(next) else {
                break;
            };
            next += 1;
            out[index].1.entry(t.clone()).or_default().push(*p);
        }
    }
    if next < unassigned.len() {
        return Err("Partitions were left unassigned".into());
    }
    for (_, topics) in out.iter_mut() {
        for ps in topics.values_mut() {
            ps.sort_unstable();
            ps.dedup();
        }
    }
    Ok(out)
}

/// `Uuid.compareTo`: the most significant half, then the least, each as a
/// signed `long`.
fn uuid_order(id: &str) -> (i64, i64) {
    let b = crate::kraft::codec::uuid_bytes(id);
    (
        i64::from_be_bytes(b[..8].try_into().expect("8 bytes")),
        i64::from_be_bytes(b[8..].try_into().expect("8 bytes")),
    )
}

/// `UniformHeterogeneousAssignmentBuilder.MAX_ITERATION_COUNT`.
const MAX_ITERATION_COUNT: usize = 16;

/// `UniformHeterogeneousAssignmentBuilder.MemberAssignmentBalancer`: two
/// ranges over the members sorted by partition count, the least loaded
/// growing rightwards and the most loaded leftwards. Sizes are read live,
/// as Kafka's balancer reads the builder's array.
struct Balancer {
    sorted: Vec<usize>,
    least_end: usize,
    least_count: i64,
    next_least: usize,
    most_start: usize,
    most_end: usize,
    most_count: i64,
    next_most: isize,
}

impl Balancer {
    fn new() -> Self {
        Balancer {
            sorted: Vec::new(),
            least_end: 0,
            least_count: -1,
            next_least: 0,
            most_start: 0,
            most_end: 0,
            most_count: 1,
            next_most: -1,
        }
    }

    /// `initialize`: returns the spread between the most and least loaded.
    fn initialize(&mut self, members: &[usize], sizes: &[i64]) -> i64 {
        self.sorted.clear();
        self.sorted.extend_from_slice(members);
        self.sorted.sort_by_key(|&m| (sizes[m], m));
        let n = self.sorted.len();
        let (first, last) = (sizes[self.sorted[0]], sizes[self.sorted[n - 1]]);
        self.least_end = 0;
        self.least_count = first - 1;
        self.next_least = 0;
        self.most_start = n;
        self.most_end = n;
        self.most_count = last + 1;
        self.next_most = n as isize - 1;
        last - first
    }

    /// `nextLeastLoadedMember`.
    fn next_least_loaded(&mut self, sizes: &[i64]) -> usize {
        if self.next_least >= self.least_end {
            self.least_count += 1;
            while self.least_end < self.sorted.len()
                && sizes[self.sorted[self.least_end]] == self.least_count
            {
                self.least_end += 1;
            }
            self.next_least = 0;
        }
        let m = self.sorted[self.next_least];
        self.next_least += 1;
        m
    }

    /// `nextMostLoadedMember`: `None` when no member can give one up.
    fn next_most_loaded(&mut self, sizes: &[i64]) -> Option<usize> {
        if self.next_most < self.most_start as isize {
            if self.most_end <= self.most_start && self.most_start > 0 {
                self.most_count = sizes[self.sorted[self.most_start - 1]];
            } else {
                self.most_count -= 1;
            }
            while self.most_start > 0 && sizes[self.sorted[self.most_start - 1]] == self.most_count
            {
                self.most_start -= 1;
            }
            self.next_most = self.most_end as isize - 1;
        }
        let at = usize::try_from(self.next_most).ok()?;
        self.next_most -= 1;
        Some(self.sorted[at])
    }

    /// `excludeMostLoadedMember`: the member last returned leaves the most
    /// loaded range (swapped to its end, which contracts).
    fn exclude_most_loaded(&mut self) {
        let at = (self.next_most + 1) as usize;
        self.sorted.swap(at, self.most_end - 1);
        self.most_end -= 1;
    }

    fn is_balanced(&self) -> bool {
        self.most_count - self.least_count <= 1
    }
}

/// The state of `UniformHeterogeneousAssignmentBuilder`, topics by name.
struct Heterogeneous<'a> {
    topics: &'a SortedMap<String, i32>,
    /// Each subscribed topic's subscribers, member indices ascending.
    subscribers: SortedMap<&'a str, Vec<usize>>,
    /// The `Uuid.compareTo` key of each subscribed topic.
    order_key: SortedMap<&'a str, (i64, i64)>,
    /// Member index → topic → partitions (`targetAssignment`).
    target: Vec<SortedMap<String, std::collections::BTreeSet<i32>>>,
    /// `memberTargetAssignmentSizes`.
    sizes: Vec<i64>,
    /// `targetAssignmentPartitionOwners`: -1 for none.
    owners: SortedMap<&'a str, Vec<i64>>,
}

impl Heterogeneous<'_> {
    fn partitions(&self, t: &str) -> i32 {
        self.topics.get(t).copied().unwrap_or(0)
    }

    /// `topicComparator`: partitions per subscriber descending, then
    /// subscriber count ascending, then topic id ascending.
    fn sort_topics(&self, mut ts: Vec<&str>) -> Vec<String> {
        ts.sort_by(|a, b| {
            let (pa, pb) = (f64::from(self.partitions(a)), f64::from(self.partitions(b)));
            let (sa, sb) = (self.subscribers[*a].len(), self.subscribers[*b].len());
            (pb / sb as f64)
                .total_cmp(&(pa / sa as f64))
                .then(sa.cmp(&sb))
                .then(self.order_key[*a].cmp(&self.order_key[*b]))
        });
        ts.into_iter().map(str::to_string).collect()
    }

    fn assign_partition(&mut self, t: &str, p: i32, member: usize) {
        let old = self.owners[t][p as usize];
        if let Ok(old) = usize::try_from(old) {
            if let Some(set) = self.target[old].get_mut(t) {
                set.remove(&p);
                if set.is_empty() {
                    self.target[old].remove(t);
                }
            }
            self.sizes[old] -= 1;
        }
        self.target[member]
            .entry(t.to_string())
            .or_default()
            .insert(p);
        if let Some(o) = self.owners.get_mut(t) {
            o[p as usize] = member as i64;
        }
        self.sizes[member] += 1;
    }

    /// `balanceTopic`: moves the topic's partitions from its most loaded
    /// subscribers to its least loaded until they differ by at most one;
    /// returns how many moved.
    fn balance_topic(&mut self, t: &str, b: &mut Balancer) -> usize {
        let mut moved = 0;
        let subs = self.subscribers[t].clone();
        if b.initialize(&subs, &self.sizes) <= 1 {
            return moved;
        }
        let owners = self.owners[t].clone();
        let mut parts: Vec<i32> = (0..self.partitions(t)).collect();
        parts.sort_by_key(|&p| (owners[p as usize], p));
        let mut start: SortedMap<i64, usize> = SortedMap::new();
        let mut end: SortedMap<i64, usize> = SortedMap::new();
        for (i, &p) in parts.iter().enumerate() {
            let o = owners[p as usize];
            start.entry(o).or_insert(i);
            end.insert(o, i + 1);
        }
        while !b.is_balanced() {
            let mut most = None;
            while let Some(m) = b.next_most_loaded(&self.sizes) {
                let key = m as i64;
                let has = match (start.get(&key), end.get(&key)) {
                    (Some(s), Some(e)) => e > s,
                    _ => false,
                };
                if has {
                    most = Some(m);
                    break;
                }
                b.exclude_most_loaded();
            }
            let Some(most) = most else { break };
            let e = end
                .get_mut(&(most as i64))
                .expect("a member with partitions");
            *e -= 1;
            let p = parts[*e];
            let least = b.next_least_loaded(&self.sizes);
            if b.is_balanced() {
                break;
            }
            self.assign_partition(t, p, least);
            moved += 1;
        }
        moved
    }
}

/// The uniform assignor's heterogeneous builder
/// (`UniformHeterogeneousAssignmentBuilder`, Kafka 4.1.0): every member
/// keeps what it holds of the topics it still subscribes to; the
/// partitions nobody holds go, topic by topic (most partitions per
/// subscriber first, then fewest subscribers, then topic id), each to the
/// topic's least loaded subscriber (fewest partitions, then first in
/// member order); then, for at most `MAX_ITERATION_COUNT` rounds over the
/// topics with two or more subscribers, a topic's last partitions move
/// from its most loaded subscribers to its least loaded until they differ
/// by at most one. Balance comes before stickiness. Members are numbered
/// in the request's order (Kafka's tests sort them by id).
pub fn uniform_heterogeneous(
    topics: &SortedMap<String, i32>,
    ids: &SortedMap<String, String>,
    members: &[ServerMember],
) -> Result<ServerAssignment, String> {
    let id_of = |t: &str| ids.get(t).cloned().unwrap_or_else(|| derived_topic_id(t));
    let member_subs: Vec<Vec<&str>> = members.iter().map(subs).collect();
    let mut subscribers: SortedMap<&str, Vec<usize>> = SortedMap::new();
    for (i, ts) in member_subs.iter().enumerate() {
        for t in ts {
            if !topics.contains_key(*t) {
                return Err(format!(
                    "Members are subscribed to topic {} which doesn't exist in the topic metadata.",
                    id_of(t)
                ));
            }
            subscribers.entry(*t).or_default().push(i);
        }
    }
    if subscribers.is_empty() {
        return Ok(Vec::new());
    }
    let mut h = Heterogeneous {
        topics,
        order_key: subscribers
            .keys()
            .map(|t| (*t, uuid_order(&id_of(t))))
            .collect(),
        owners: subscribers
            .keys()
            .map(|t| (*t, vec![-1; topics[*t].max(0) as usize]))
            .collect(),
        subscribers,
        target: vec![SortedMap::new(); members.len()],
        sizes: vec![0; members.len()],
    };
    // maybeRevokePartitions: keep what is still subscribed.
    for (i, m) in members.iter().enumerate() {
        for (t, parts) in &m.current_assignment.0 {
            if !member_subs[i].contains(&t.as_str()) {
                continue;
            }
            let owners = h.owners.get_mut(t.as_str()).expect("a subscribed topic");
            for &p in parts {
                let slot = owners.get_mut(p as usize).ok_or_else(|| {
                    format!(
                        "member {} holds {t}-{p}, but {t} has {} partitions",
                        m.member_id, topics[t]
                    )
                })?;
                *slot = i as i64;
            }
            h.sizes[i] += parts.len() as i64;
            h.target[i].insert(t.clone(), parts.iter().copied().collect());
        }
    }
    // computeUnassignedPartitions and assignRemainingPartitions.
    let unassigned: Vec<&str> = h
        .owners
        .iter()
        .filter(|(_, o)| o.contains(&-1))
        .map(|(t, _)| *t)
        .collect();
    let mut b = Balancer::new();
    for t in h.sort_topics(unassigned) {
        let subs = h.subscribers[t.as_str()].clone();
        b.initialize(&subs, &h.sizes);
        let free: Vec<i32> = (0..h.partitions(&t))
            .filter(|&p| h.owners[t.as_str()][p as usize] == -1)
            .collect();
        for p in free {
            let least = b.next_least_loaded(&h.sizes);
            h.assign_partition(&t, p, least);
        }
    }
    // balance / balanceTopics.
    let movable: Vec<&str> = h
        .subscribers
        .iter()
        .filter(|(_, s)| s.len() >= 2)
        .map(|(t, _)| *t)
        .collect();
    let sorted = h.sort_topics(movable);
    let mut last: Option<usize> = None;
    'rounds: for _ in 0..MAX_ITERATION_COUNT {
        for (i, t) in sorted.iter().enumerate() {
            if last == Some(i) {
                break 'rounds;
            }
            if h.balance_topic(t, &mut b) > 0 || last.is_none() {
                last = Some(i);
            }
        }
    }
    Ok(members
        .iter()
        .zip(h.target)
        .map(|(m, ts)| {
            let ts = ts
                .into_iter()
                .map(|(t, ps)| (t, ps.into_iter().collect()))
                .collect();
            (m.member_id.clone(), ts)
        })
        .collect())
}

/// Answers a request for the server-side `strategy` (`server-range` or
/// `uniform`, which picks its builder by the group's subscription type as
/// `UniformAssignor.assign` does).
pub fn assign(strategy: &str, r: &ServerRequest) -> Result<ServerAssignment, String> {
    let subscription = r
        .subscription_type
        .unwrap_or_else(|| derive_subscription_type(&r.members));
    match strategy {
        "server-range" => range(&r.topics, &r.members, subscription)
            .map_err(|e| format!("PartitionAssignorException: {e}")),
        "uniform" if subscription == SubscriptionType::Homogeneous => {
            uniform_homogeneous(&r.topics, &r.topic_ids, &r.members)
                .map_err(|e| format!("PartitionAssignorException: {e}"))
        }
        "uniform" => uniform_heterogeneous(&r.topics, &r.topic_ids, &r.members)
            .map_err(|e| format!("PartitionAssignorException: {e}")),
        other => Err(format!(
            "`{other}` is not a broker-side assignor (uniform, server-range)"
        )),
    }
}

/// The CLI's answer: `{"assignment":{"MEMBER":{"TOPIC":[partitions]}}}`,
/// members in the request's order, topics by name.
pub fn answer_json(a: &ServerAssignment) -> String {
    let q = |s: &str| serde_json::Value::from(s).to_string();
    let members: Vec<String> = a
        .iter()
        .map(|(m, topics)| {
            let t: Vec<String> = topics
                .iter()
                .map(|(t, p)| {
                    let p: Vec<String> = p.iter().map(i32::to_string).collect();
                    format!("{}:[{}]", q(t), p.join(","))
                })
                .collect();
            format!("{}:{{{}}}", q(m), t.join(","))
        })
        .collect();
    format!("{{\"assignment\":{{{}}}}}", members.join(","))
}

#[cfg(test)]
#[path = "server_tests.rs"]
mod server_tests;
