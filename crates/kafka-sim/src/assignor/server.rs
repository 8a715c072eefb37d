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
//! Not yet: the uniform assignor's heterogeneous builder.

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
            if let Some(p) = parts.iter().find(|p| **p < 0) {
                return Err(format!(
                    "members[{i}].current_assignment.{t}: partition {p}"
                ));
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

/// Answers a request for the server-side `strategy` (`server-range`).
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
        "uniform" => Err(
            "the uniform assignor's heterogeneous builder (members subscribed to different topics) is not modelled yet; the homogeneous one and --strategy server-range are"
                .into(),
        ),
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
