//! The admin tools' views of the cluster at one moment, laid out exactly as
//! Kafka 3.9 prints them (M2):
//!
//! * [`topics`]: `kafka-topics.sh --describe` (`TopicCommand`, Kafka 3.9,
//!   `tools/.../TopicCommand.java`: `TopicDescription.printDescription`,
//!   lines 296-309, and `PartitionDescription.printDescription`, lines
//!   355-391). Topics in name order, partitions in number order. A ZooKeeper
//!   cluster has no eligible leader replicas (KIP-966 is KRaft only): the
//!   admin client falls back to `Metadata`, so every partition line ends with
//!   `Elr: N/A` and `LastKnownElr: N/A`.
//! * [`groups`]: `kafka-consumer-groups.sh --describe`
//!   (`ConsumerGroupCommand`, Kafka 3.9,
//!   `tools/.../consumer/group/ConsumerGroupCommand.java`: `printOffsets`
//!   and `printOffsetFormat`, lines 320-361; `collectGroupsOffsets`, lines
//!   697-742; `shouldPrintMemberState`, lines 282-313). Columns as wide as
//!   Kafka makes them (at least 15 for GROUP, TOPIC, CONSUMER-ID and HOST),
//!   every row starting with a newline. LOG-END-OFFSET is what `ListOffsets`
//!   answers for the latest offset of a read_uncommitted client: the
//!   leader's **high watermark**, not its log end offset, so LAG is
//!   HW − committed offset (G12).
//!
//! * [`group_members`] and [`group_states`]: `--describe --members
//!   [--verbose]` and `--describe --state` (`printMembers`, lines 363-424;
//!   `printStates`, lines 426-439), with their quirks kept: the state view
//!   pads the GROUP column to the coordinator column's width, and 3.9's
//!   verbose ASSIGNMENT lists each topic's partitions as `(0,1)` without the
//!   topic's name.
//!
//! Where Kafka's order comes from a hash map, this module follows it where
//! the map is Java's (a member's partitions, in `HashMap<TopicPartition, _>`
//! order, which [`crate::assignor::java_hash_order`] reproduces) and says
//! where it does not: members are listed by number of partitions, most
//! first, ties in the order they joined (Kafka: the coordinator's Scala
//! `HashMap` of members); a topic's `Configs:` lists its own overrides in
//! name order (Kafka also lists settings made in `server.properties`, in
//! the order of a Scala `HashMap`).

use crate::assignor::{java_hash_order, tp_hash};
use crate::broker::Broker;
use crate::group::{Group, GroupState};
use crate::ids::TopicPartition;
use crate::partitioner::java_string_hash;
use crate::sim::World;
use crate::zk::partition_state_path;

/// `MISSING_COLUMN_VALUE`.
const MISSING: &str = "-";

/// `kafka-topics.sh --describe [--topic T] [--exclude-internal]` at this
/// moment: one header line per topic, then one line per partition.
pub fn topics(w: &World, only: Option<&str>, exclude_internal: bool) -> String {
    let zk = w.zookeeper();
    let mut names = zk.children("/brokers/topics");
    names.sort();
    let mut out = String::new();
    for t in names
        .iter()
        .filter(|t| only.is_none_or(|o| o == t.as_str()))
        .filter(|t| !(exclude_internal && t.starts_with("__")))
    {
        let assignment = zk.topic_assignment(t);
        let Some(first) = assignment.values().next() else {
            continue;
        };
        let topic_id = zk.data_json(&format!("/brokers/topics/{t}")).and_then(|v| {
            v.get("topic_id")
                .and_then(|i| i.as_str())
                .map(str::to_string)
        });
        out.push_str(&format!("Topic: {t}"));
        if let Some(id) = topic_id {
            out.push_str(&format!("\tTopicId: {id}"));
        }
        out.push_str(&format!(
            "\tPartitionCount: {}\tReplicationFactor: {}\tConfigs: {}\n",
            assignment.len(),
            first.len(),
            topic_overrides(w, t)
        ));
        for (p, replicas) in &assignment {
            let state = zk.data_json(&partition_state_path(t, *p));
            let leader = state
                .as_ref()
                .and_then(|s| s.get("leader").and_then(|l| l.as_i64()))
                .filter(|l| *l >= 0);
            let isr: Vec<String> = state
                .as_ref()
                .and_then(|s| s.get("isr").and_then(|i| i.as_array()).cloned())
                .unwrap_or_default()
                .iter()
                .filter_map(|b| b.as_i64().map(|b| b.to_string()))
                .collect();
            out.push_str(&format!(
                "\tTopic: {t}\tPartition: {p}\tLeader: {}\tReplicas: {}\tIsr: {}\tElr: N/A\tLastKnownElr: N/A\n",
                leader.map_or("none".to_string(), |l| l.to_string()),
                replicas
                    .iter()
                    .map(|b| b.0.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
                isr.join(",")
            ));
        }
    }
    out
}

/// The topic's overrides (`/config/topics/<t>`), `name=value` joined by
/// commas, in name order.
fn topic_overrides(w: &World, t: &str) -> String {
    let Some(v) = w.zookeeper().data_json(&format!("/config/topics/{t}")) else {
        return String::new();
    };
    let Some(cfg) = v.get("config").and_then(|c| c.as_object()) else {
        return String::new();
    };
    let mut pairs: Vec<(String, String)> = cfg
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| {
            let value = match v {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Array(a) => a
                    .iter()
                    .map(|x| x.as_str().map_or(x.to_string(), str::to_string))
                    .collect::<Vec<_>>()
                    .join(","),
                other => other.to_string(),
            };
            (k.clone(), value)
        })
        .collect();
    pairs.sort();
    pairs
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// `kafka-consumer-groups.sh --describe --group G` (or `--all-groups`) at
/// this moment, stdout and stderr together in the order Kafka prints them.
pub fn groups(w: &World, only: Option<&str>) -> String {
    let mut out = String::new();
    for g in group_ids(w, only) {
        match coordinator_group(w, &g) {
            None => out.push_str(&format!("Error: Consumer group '{g}' does not exist.\n")),
            Some(group) => out.push_str(&describe_group(w, group)),
        }
    }
    out
}

/// The groups to describe (`--group G`, or every group anyone knows).
fn group_ids(w: &World, only: Option<&str>) -> Vec<String> {
    let mut ids: Vec<String> = w
        .consumers()
        .iter()
        .filter_map(|c| c.group.as_ref().map(|g| g.group_id.clone()))
        .chain(
            w.brokers()
                .values()
                .filter(|b| b.alive)
                .flat_map(|b| b.groups.groups.keys().cloned()),
        )
        .filter(|g| only.is_none_or(|o| o == g))
        .collect();
    if let Some(o) = only {
        ids.push(o.to_string());
    }
    ids.sort();
    ids.dedup();
    ids
}

/// `shouldPrintMemberState`'s notices, printed before a group's table.
fn state_notice(g: &Group) -> String {
    match g.state {
        GroupState::Empty => format!("\nConsumer group '{}' has no active members.\n", g.group_id),
        GroupState::PreparingRebalance | GroupState::CompletingRebalance => {
            format!(
                "\nWarning: Consumer group '{}' is rebalancing.\n",
                g.group_id
            )
        }
        GroupState::Stable => String::new(),
    }
}

/// `kafka-consumer-groups.sh --describe --members [--verbose]`.
pub fn group_members(w: &World, only: Option<&str>, verbose: bool) -> String {
    let mut out = String::new();
    for id in group_ids(w, only) {
        let Some(g) = coordinator_group(w, &id) else {
            out.push_str(&format!("Error: Consumer group '{id}' does not exist.\n"));
            continue;
        };
        out.push_str(&state_notice(g));
        if g.members.is_empty() {
            continue;
        }
        let hosts: Vec<String> = g
            .members
            .iter()
            .map(|m| format!("/consumer-{}", m.consumer))
            .collect();
        // printMembers' widths: each column at least its minimum, else its
        // longest value.
        let width = |min: usize, f: &dyn Fn(&crate::group::Member) -> usize| {
            g.members.iter().map(f).fold(min, usize::max)
        };
        let gw = g.group_id.chars().count().max(15);
        let cw = width(15, &|m| m.member_id.chars().count());
        let iw = width(17, &|m| {
            m.group_instance_id.as_deref().unwrap_or("").chars().count()
        });
        let hw = hosts.iter().map(|h| h.chars().count()).fold(15, usize::max);
        let lw = width(15, &|m| m.client_id.chars().count());
        let with_instance = g.members.iter().any(|m| m.group_instance_id.is_some());
        let line = |cols: [&str; 6]| {
            if with_instance {
                format!(
                    "{:<gw$} {:<cw$} {:<iw$} {:<hw$} {:<lw$} {:<15} ",
                    cols[0], cols[1], cols[2], cols[3], cols[4], cols[5]
                )
            } else {
                format!(
                    "{:<gw$} {:<cw$} {:<hw$} {:<lw$} {:<15} ",
                    cols[0], cols[1], cols[3], cols[4], cols[5]
                )
            }
        };
        out.push('\n');
        out.push_str(&line([
            "GROUP",
            "CONSUMER-ID",
            "GROUP-INSTANCE-ID",
            "HOST",
            "CLIENT-ID",
            "#PARTITIONS",
        ]));
        if verbose {
            out.push_str("ASSIGNMENT");
        }
        out.push('\n');
        for (m, host) in g.members.iter().zip(&hosts) {
            out.push_str(&line([
                &g.group_id,
                &m.member_id,
                m.group_instance_id.as_deref().unwrap_or(""),
                host,
                &m.client_id,
                &m.assignment.len().to_string(),
            ]));
            if verbose {
                out.push_str(&verbose_assignment(&m.assignment));
            }
            out.push('\n');
        }
    }
    out
}

/// 3.9's verbose ASSIGNMENT: per topic, its partitions as strings sorted
/// and joined `(0,1)`; those sorted and joined by `, ` (no topic names).
fn verbose_assignment(tps: &[TopicPartition]) -> String {
    if tps.is_empty() {
        return MISSING.to_string();
    }
    let mut by_topic: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    for tp in tps {
        by_topic
            .entry(&tp.topic)
            .or_default()
            .push(tp.partition.to_string());
    }
    let mut parts: Vec<String> = by_topic
        .into_values()
        .map(|mut v| {
            v.sort();
            format!("({})", v.join(","))
        })
        .collect();
    parts.sort();
    parts.join(", ")
}

/// `kafka-consumer-groups.sh --describe --state`.
pub fn group_states(w: &World, only: Option<&str>) -> String {
    let mut out = String::new();
    for id in group_ids(w, only) {
        let tp = TopicPartition::new("__consumer_offsets", w.group_partition(&id));
        let (Some(g), Some(leader)) = (coordinator_group(w, &id), w.current_leader(&tp)) else {
            out.push_str(&format!("Error: Consumer group '{id}' does not exist.\n"));
            continue;
        };
        out.push_str(&state_notice(g));
        let coordinator = format!("broker-{0}:9092  ({0})", leader.0);
        let cw = coordinator.chars().count().max(25);
        let line = |cols: [&str; 5]| {
            format!(
                "\n{:<cw$} {:<25} {:<20} {:<15} {}",
                cols[0], cols[1], cols[2], cols[3], cols[4]
            )
        };
        let state = format!("{:?}", g.state);
        out.push_str(&line([
            "GROUP",
            "COORDINATOR (ID)",
            "ASSIGNMENT-STRATEGY",
            "STATE",
            "#MEMBERS",
        ]));
        out.push_str(&line([
            &g.group_id,
            &coordinator,
            g.protocol_name.as_deref().unwrap_or(""),
            &state,
            &g.members.len().to_string(),
        ]));
        out.push('\n');
    }
    out
}

/// The group as its coordinator keeps it: the live leader of its
/// `__consumer_offsets` partition.
fn coordinator_group<'a>(w: &'a World, g: &str) -> Option<&'a Group> {
    let tp = TopicPartition::new("__consumer_offsets", w.group_partition(g));
    let leader = w.current_leader(&tp)?;
    let b: &Broker = w.brokers().get(&leader)?;
    b.groups.groups.get(g)
}

/// One row: (topic, partition, current offset, log end offset, lag,
/// consumer id, host, client id).
type Row = [String; 8];

fn describe_group(w: &World, g: &Group) -> String {
    let high_watermark = |tp: &TopicPartition| -> Option<i64> {
        let leader = w.current_leader(tp)?;
        w.brokers()
            .get(&leader)?
            .partitions
            .get(tp)
            .map(|p| p.high_watermark)
    };
    let row = |tp: &TopicPartition, who: Option<(&str, String, &str)>| -> Row {
        let offset = g.offsets.get(tp).copied();
        let end = high_watermark(tp);
        let lag = offset.filter(|o| *o != -1).and_then(|o| end.map(|e| e - o));
        let (id, host, client) = who.unwrap_or((MISSING, MISSING.to_string(), MISSING));
        [
            tp.topic.to_string(),
            tp.partition.to_string(),
            offset.map_or(MISSING.into(), |o| o.to_string()),
            end.map_or(MISSING.into(), |o| o.to_string()),
            lag.map_or(MISSING.into(), |o| o.to_string()),
            id.to_string(),
            host,
            client.to_string(),
        ]
    };
    let mut members: Vec<_> = g
        .members
        .iter()
        .filter(|m| !m.assignment.is_empty())
        .collect();
    members.sort_by_key(|m| std::cmp::Reverse(m.assignment.len()));
    let mut rows: Vec<Row> = Vec::new();
    for m in &members {
        let host = format!("/consumer-{}", m.consumer);
        for tp in hash_map_order(&m.assignment) {
            rows.push(row(tp, Some((&m.member_id, host.clone(), &m.client_id))));
        }
    }
    let assigned: Vec<&TopicPartition> = members.iter().flat_map(|m| &m.assignment).collect();
    let unassigned: Vec<TopicPartition> = g
        .offsets
        .keys()
        .filter(|tp| !assigned.contains(tp))
        .cloned()
        .collect();
    for tp in hash_map_order(&unassigned) {
        rows.push(row(tp, None));
    }
    let mut out = String::new();
    match g.state {
        GroupState::Empty => out.push_str(&format!(
            "\nConsumer group '{}' has no active members.\n",
            g.group_id
        )),
        GroupState::PreparingRebalance | GroupState::CompletingRebalance => out.push_str(&format!(
            "\nWarning: Consumer group '{}' is rebalancing.\n",
            g.group_id
        )),
        GroupState::Stable => {}
    }
    if rows.is_empty() {
        return out;
    }
    // printOffsetFormat: the variable columns at least 15 wide.
    let width = |i: usize, header: &str| -> usize {
        rows.iter()
            .map(|r| r[i].chars().count())
            .chain([15, header.len()])
            .max()
            .unwrap_or(15)
    };
    let group_w = g.group_id.chars().count().max(15);
    let (topic_w, id_w, host_w) = (width(0, ""), width(5, ""), width(6, ""));
    let line = |cols: [&str; 9]| {
        format!(
            "\n{:<group_w$} {:<topic_w$} {:<10} {:<15} {:<15} {:<15} {:<id_w$} {:<host_w$} {}",
            cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], cols[7], cols[8]
        )
    };
    out.push_str(&line([
        "GROUP",
        "TOPIC",
        "PARTITION",
        "CURRENT-OFFSET",
        "LOG-END-OFFSET",
        "LAG",
        "CONSUMER-ID",
        "HOST",
        "CLIENT-ID",
    ]));
    for r in &rows {
        out.push_str(&line([
            &g.group_id,
            &r[0],
            &r[1],
            &r[2],
            &r[3],
            &r[4],
            &r[5],
            &r[6],
            &r[7],
        ]));
    }
    out.push('\n');
    out
}

/// The partitions in the iteration order of a Java `HashMap` they were put
/// into sorted by partition number (`collectConsumerAssignment` sorts, then
/// `getLogOffsets` collects into a `HashMap`).
fn hash_map_order(tps: &[TopicPartition]) -> Vec<&TopicPartition> {
    let mut sorted: Vec<&TopicPartition> = tps.iter().collect();
    sorted.sort_by_key(|tp| tp.partition);
    let hashes: Vec<i32> = sorted
        .iter()
        .map(|tp| tp_hash(java_string_hash(&tp.topic), tp.partition))
        .collect();
    java_hash_order(&hashes)
        .into_iter()
        .map(|i| sorted[i])
        .collect()
}

/// `kafka-metadata-quorum --bootstrap-server … describe --status` (Kafka
/// 4.1.0, `tools/.../MetadataQuorumCommand.java`, lines 251-278 and
/// 296-330): eight lines, each label padded to 24 characters. The answer
/// comes from the quorum leader (`DescribeQuorum`); without one the tool
/// fails, as here. Voters have no directory id in a static quorum
/// (kraft.version 0), so none is printed for them; brokers send theirs.
pub fn quorum(w: &crate::sim::World) -> Result<String, String> {
    use crate::kraft::raft::Role;
    use crate::kraft::records::{cluster_id, directory_id};
    if w.controllers().is_empty() {
        return Err(
            "this cluster runs Kafka 3.9 with ZooKeeper: it has no controller quorum (kafka-metadata-quorum describes a KRaft cluster)".into(),
        );
    }
    let Some(leader) = w.active_controller() else {
        return Err("Error while describing the quorum: no controller leads the quorum now (NOT_LEADER_OR_FOLLOWER)".into());
    };
    let c = &w.controllers()[&leader];
    let Role::Leader(ls) = &c.raft.role else {
        return Err("the active controller is not the quorum leader".into());
    };
    let leo = c.raft.log_end_offset();
    let now = w.now();
    // The laggiest voter: the smallest end offset (the leader's own counts).
    let (lag_id, lag_end) = ls
        .ends
        .iter()
        .map(|(v, e)| (*v, if *v == leader { leo } else { *e }))
        .min_by_key(|(v, e)| (*e, *v))
        .unwrap_or((leader, leo));
    let lag_time = if lag_id == leader || lag_end >= leo {
        0
    } else {
        match ls.caught_up_at.get(&lag_id) {
            Some(t) => (now - t) as i64,
            None => -1,
        }
    };
    let voters: Vec<String> = c
        .raft
        .voters
        .iter()
        .map(|v| format!(r#"{{"id": {v}, "endpoints": ["CONTROLLER://controller-{v}:9093"]}}"#))
        .collect();
    let observers: Vec<String> = ls
        .observers
        .keys()
        .map(|o| format!(r#"{{"id": {o}, "directoryId": "{}"}}"#, directory_id(*o)))
        .collect();
    let line = |label: &str, value: String| format!("{:<24}{value}\n", format!("{label}:"));
    let mut out = String::new();
    out += &line("ClusterId", cluster_id(w.scenario().seed));
    out += &line("LeaderId", leader.to_string());
    out += &line("LeaderEpoch", c.raft.epoch.to_string());
    out += &line("HighWatermark", c.raft.high_watermark.to_string());
    out += &line("MaxFollowerLag", (leo - lag_end).max(0).to_string());
    out += &line("MaxFollowerLagTimeMs", lag_time.to_string());
    out += &line("CurrentVoters", format!("[{}]", voters.join(", ")));
    out += &line("CurrentObservers", format!("[{}]", observers.join(", ")));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scenario;

    fn world_at_end(json: &str) -> World {
        let sc = Scenario::from_json(json).unwrap();
        let mut t = crate::Timeline::new(sc).unwrap();
        t.run_to_end();
        t.head().clone()
    }

    /// TopicCommand's layout: tab-separated `Name: value` fields, the
    /// partition lines indented by a tab, Elr N/A in ZooKeeper mode.
    #[test]
    fn topics_are_described_as_kafka_topics_prints_them() {
        let w = world_at_end(
            r#"{"seed": 1, "run_until_ms": 2000,
                "cluster": {"brokers": [0, 1, 2]},
                "topics": [{"name": "first", "partitions": 2, "replication.factor": 3,
                            "replica.assignment": {"0": [1, 0, 2], "1": [2, 1, 0]},
                            "config": {"retention.ms": 60000, "cleanup.policy": "compact"}}],
                "commands": [{"at_ms": 1000, "type": "kill_broker", "broker": 2}]}"#,
        );
        let text = topics(&w, Some("first"), false);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(
            lines[0].starts_with("Topic: first\tTopicId: "),
            "{}",
            lines[0]
        );
        assert!(
            lines[0].ends_with("\tPartitionCount: 2\tReplicationFactor: 3\tConfigs: cleanup.policy=compact,retention.ms=60000"),
            "{}",
            lines[0]
        );
        // Broker 2's session has not expired at 2 s: the ISR still lists it.
        assert_eq!(
            lines[1],
            "\tTopic: first\tPartition: 0\tLeader: 1\tReplicas: 1,0,2\tIsr: 1,0,2\tElr: N/A\tLastKnownElr: N/A"
        );
        assert_eq!(
            lines[2],
            "\tTopic: first\tPartition: 1\tLeader: 2\tReplicas: 2,1,0\tIsr: 2,1,0\tElr: N/A\tLastKnownElr: N/A"
        );
        // --exclude-internal leaves __consumer_offsets out; without it, it is listed.
        assert!(!topics(&w, None, true).contains("__consumer_offsets"));
    }

    /// The session expires at 18 s (the default): the controller elects a
    /// new leader and shrinks the ISR, and the view says so.
    #[test]
    fn a_dead_leader_moves_and_leaves_the_isr_in_the_view() {
        let w = world_at_end(
            r#"{"seed": 1, "run_until_ms": 20000,
                "cluster": {"brokers": [0, 1, 2]},
                "topics": [{"name": "first", "partitions": 1, "replication.factor": 3,
                            "replica.assignment": {"0": [1, 0, 2]}}],
                "commands": [{"at_ms": 1000, "type": "kill_broker", "broker": 1}]}"#,
        );
        let text = topics(&w, Some("first"), false);
        assert!(
            text.contains("\tTopic: first\tPartition: 0\tLeader: 0\tReplicas: 1,0,2\tIsr: 0,2\t"),
            "{text}"
        );
    }

    /// ConsumerGroupCommand's layout: a leading newline per line, columns
    /// at least 15 wide (PARTITION 10), LOG-END-OFFSET = the high watermark.
    #[test]
    fn groups_are_described_as_kafka_consumer_groups_prints_them() {
        let w = world_at_end(
            r#"{"seed": 1, "run_until_ms": 12000,
                "cluster": {"brokers": [0, 1, 2], "config": {"offsets.topic.num.partitions": 3}},
                "topics": [{"name": "t", "partitions": 2, "replication.factor": 3}],
                "producers": [{"name": "p", "config": {"partitioner.ignore.keys": true}}],
                "consumers": [{"name": "c", "subscribe": ["t"], "config": {"group.id": "g", "auto.offset.reset": "earliest", "auto.commit.interval.ms": 1000}}],
                "commands": [{"at_ms": 5000, "type": "produce", "producer": "p", "topic": "t", "value": "v", "count": 4}]}"#,
        );
        let text = groups(&w, Some("g"));
        let lines: Vec<&str> = text.split('\n').collect();
        assert_eq!(lines[0], "", "every line starts with a newline: {text:?}");
        let header = format!(
            "{:<15} {:<15} {:<10} {:<15} {:<15} {:<15} ",
            "GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG"
        );
        assert!(lines[1].starts_with(&header), "{:?}", lines[1]);
        assert!(
            lines[1].ends_with(" HOST            CLIENT-ID"),
            "{:?}",
            lines[1]
        );
        assert_eq!(lines.len(), 5, "two partitions: {text}");
        let mut seen = Vec::new();
        for l in &lines[2..4] {
            let cols: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(cols[0], "g");
            assert_eq!(cols[1], "t");
            seen.push(cols[2].to_string());
            // Committed up to the high watermark: no lag.
            assert_eq!(cols[3], cols[4], "{l}");
            assert_eq!(cols[5], "0", "{l}");
            assert!(cols[6].starts_with("consumer-g-1-"), "{l}");
            assert_eq!(cols[7], "/consumer-0");
            assert_eq!(cols[8], "consumer-g-1");
        }
        seen.sort();
        assert_eq!(seen, ["0", "1"]);
        // A group nobody knows.
        assert_eq!(
            groups(&w, Some("nope")),
            "Error: Consumer group 'nope' does not exist.\n"
        );
    }

    /// `--members --verbose` and `--state`, with 3.9's own quirks.
    #[test]
    fn members_and_state_views_follow_kafkas_format_strings() {
        let w = world_at_end(
            r#"{"seed": 1, "run_until_ms": 9000,
                "cluster": {"brokers": [0, 1, 2], "config": {"offsets.topic.num.partitions": 3}},
                "topics": [{"name": "t", "partitions": 3, "replication.factor": 3}],
                "consumers": [{"name": "c", "subscribe": ["t"], "config": {"group.id": "g"}}]}"#,
        );
        let text = group_members(&w, Some("g"), true);
        let lines: Vec<&str> = text.split('\n').collect();
        assert_eq!(lines[0], "");
        // CONSUMER-ID as wide as the longest member id (at least 15).
        let id = lines[2].split_whitespace().nth(1).unwrap_or("");
        let cw = id.len().max(15);
        assert_eq!(
            lines[1],
            format!(
                "{:<15} {:<cw$} {:<15} {:<15} {:<15} ASSIGNMENT",
                "GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS"
            )
        );
        assert!(
            lines[2].starts_with("g               consumer-g-1-"),
            "{text}"
        );
        assert!(
            lines[2].ends_with(" consumer-g-1    3               (0,1,2)"),
            "{text:?}"
        );
        let state = group_states(&w, Some("g"));
        let rows: Vec<&str> = state.split('\n').collect();
        assert_eq!(rows[0], "");
        // GROUP padded to the coordinator column's width (25 at least).
        assert!(
            rows[1].starts_with(&format!("{:<25} {:<25} ", "GROUP", "COORDINATOR (ID)")),
            "{state:?}"
        );
        assert!(
            rows[2].starts_with(&format!("{:<25} broker-", "g")),
            "{state:?}"
        );
        assert!(
            rows[2].ends_with(&format!("{:<20} {:<15} 1", "range", "Stable")),
            "{state:?}"
        );
        assert_eq!(verbose_assignment(&[]), "-");
        assert_eq!(
            verbose_assignment(&[
                TopicPartition::new("b", 10),
                TopicPartition::new("b", 2),
                TopicPartition::new("a", 1)
            ]),
            "(1), (10,2)"
        );
    }

    /// `HashMap<TopicPartition, _>` order: bucket by the spread hash.
    #[test]
    fn a_members_partitions_come_in_java_hash_map_order() {
        let tps: Vec<TopicPartition> = (0..20).map(|p| TopicPartition::new("t", p)).collect();
        let order: Vec<i32> = hash_map_order(&tps).iter().map(|tp| tp.partition).collect();
        // 20 keys: capacity 32. "t".hashCode() = 116; hash(p) = 31 * (31 + p) + 116.
        let mut expect: Vec<i32> = (0..20).collect();
        expect.sort_by_key(|&p| {
            let h = 31 * (31 + p) + 116;
            (((h ^ (h >> 16)) & 31), p)
        });
        assert_eq!(order, expect);
        assert_ne!(order, (0..20).collect::<Vec<_>>(), "not simply sorted");
    }
}
