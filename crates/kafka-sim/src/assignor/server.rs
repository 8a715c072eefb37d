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
//! Not yet: the uniform assignor (`group.remote.assignor`'s default; its
//! homogeneous and heterogeneous builders).

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
    // Each member's topics (a set: a name given twice counts once).
    fn subs(m: &ServerMember) -> Vec<&str> {
        let mut seen: Vec<&str> = Vec::new();
        for t in &m.subscribed_topics {
            if !seen.contains(&t.as_str()) {
                seen.push(t);
            }
        }
        seen
    }
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

/// Answers a request for the server-side `strategy` (`server-range`).
pub fn assign(strategy: &str, r: &ServerRequest) -> Result<ServerAssignment, String> {
    let subscription = r
        .subscription_type
        .unwrap_or_else(|| derive_subscription_type(&r.members));
    match strategy {
        "server-range" => range(&r.topics, &r.members, subscription)
            .map_err(|e| format!("PartitionAssignorException: {e}")),
        "uniform" => Err(
            "the uniform assignor (group.remote.assignor=uniform) is not modelled yet; --strategy server-range runs the broker's range assignor"
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
