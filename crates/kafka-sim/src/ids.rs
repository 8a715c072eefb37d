//! Identifiers, in Kafka's own words.
//!
//! Kafka identifies a broker by its `broker.id` (a Java `int`), a partition by
//! `TopicPartition` (topic name + partition number, written `topic-N`), and every
//! byte position and offset with a Java `long`. The simulation keeps those widths
//! exactly (`i32` ids, `i64` offsets, `u64` sizes) instead of `usize`, because
//! `usize` is 32 bits in the browser and the trace must be identical natively and
//! in wasm.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::sync::Arc;

/// A broker's `broker.id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BrokerId(pub i32);

impl fmt::Display for BrokerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A record offset within one partition (Kafka: `long offset`).
pub type Offset = i64;

/// Simulated time in milliseconds since the scenario started.
pub type Millis = u64;

/// `topic-partition`, Kafka's `TopicPartition`. The topic name is shared
/// (`Arc<str>`) because thousands of replicas refer to the same few names.
#[derive(Clone, Debug)]
pub struct TopicPartition {
    /// The topic's name.
    pub topic: Arc<str>,
    /// The partition number.
    pub partition: i32,
}

// Ordered by topic, then partition. Most comparisons are between copies of
// the same shared name, so equal pointers skip comparing the bytes.
impl PartialEq for TopicPartition {
    fn eq(&self, o: &Self) -> bool {
        self.partition == o.partition
            && (Arc::ptr_eq(&self.topic, &o.topic) || self.topic == o.topic)
    }
}

impl Eq for TopicPartition {}

// Hashes the name's bytes, so it agrees with `eq` whether or not the names
// share an allocation.
impl std::hash::Hash for TopicPartition {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.topic.hash(h);
        self.partition.hash(h);
    }
}

impl Ord for TopicPartition {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        if Arc::ptr_eq(&self.topic, &o.topic) {
            return self.partition.cmp(&o.partition);
        }
        self.topic
            .cmp(&o.topic)
            .then(self.partition.cmp(&o.partition))
    }
}

impl PartialOrd for TopicPartition {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl TopicPartition {
    /// The partition `partition` of `topic`.
    pub fn new(topic: impl Into<Arc<str>>, partition: i32) -> Self {
        TopicPartition {
            topic: topic.into(),
            partition,
        }
    }

    /// Parses Kafka's `topic-N` form (the topic itself may contain dashes).
    pub fn parse(s: &str) -> Option<TopicPartition> {
        let (topic, p) = s.rsplit_once('-')?;
        if topic.is_empty() {
            return None;
        }
        let partition: i32 = p.parse().ok()?;
        if partition < 0 {
            return None;
        }
        Some(TopicPartition::new(topic, partition))
    }
}

impl fmt::Display for TopicPartition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.topic, self.partition)
    }
}

impl Serialize for TopicPartition {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for TopicPartition {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        TopicPartition::parse(&s).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "`{s}` is not a topic-partition (expected the form `topic-N`, e.g. `first-0`)"
            ))
        })
    }
}

/// Every participant that can send or receive a message, or own a znode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NodeId {
    /// A Kafka broker.
    Broker(BrokerId),
    /// The ZooKeeper ensemble (one node in the simulation).
    ZooKeeper,
    /// A KRaft controller (`process.roles=controller`, Kafka 4.1 mode), by
    /// its `node.id`: a voter of the `__cluster_metadata` quorum.
    Controller(i32),
    /// A producer client, numbered in scenario order.
    Producer(u32),
    /// A consumer client, numbered in scenario order.
    Consumer(u32),
    /// The person running the scenario (kill a broker, cut a link, ...).
    User,
}

impl NodeId {
    /// The node of broker `id`.
    pub fn broker(id: i32) -> NodeId {
        NodeId::Broker(BrokerId(id))
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeId::Broker(b) => write!(f, "broker-{b}"),
            NodeId::ZooKeeper => write!(f, "zookeeper"),
            NodeId::Controller(c) => write!(f, "controller-{c}"),
            NodeId::Producer(p) => write!(f, "producer-{p}"),
            NodeId::Consumer(c) => write!(f, "consumer-{c}"),
            NodeId::User => write!(f, "user"),
        }
    }
}

impl std::str::FromStr for NodeId {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "`{s}` is not a node (expected broker-N, controller-N, producer-N, consumer-N, zookeeper or user)"
            )
        };
        match s {
            "zookeeper" => return Ok(NodeId::ZooKeeper),
            "user" => return Ok(NodeId::User),
            _ => {}
        }
        let (kind, n) = s.split_once('-').ok_or_else(bad)?;
        match kind {
            "broker" => n.parse().map(NodeId::broker).map_err(|_| bad()),
            "controller" => n.parse().map(NodeId::Controller).map_err(|_| bad()),
            "producer" => n.parse().map(NodeId::Producer).map_err(|_| bad()),
            "consumer" => n.parse().map(NodeId::Consumer).map_err(|_| bad()),
            _ => Err(bad()),
        }
    }
}

impl Serialize for NodeId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for NodeId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// `[0, 1, 2]`: broker ids as Kafka prints an ISR or a replica list.
pub fn ids_list(ids: &[BrokerId]) -> String {
    let v: Vec<String> = ids.iter().map(|b| b.0.to_string()).collect();
    format!("[{}]", v.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_partition_parses_names_with_dashes() {
        let tp = TopicPartition::parse("my-topic-12").unwrap();
        assert_eq!(&*tp.topic, "my-topic");
        assert_eq!(tp.partition, 12);
        assert_eq!(tp.to_string(), "my-topic-12");
        assert!(TopicPartition::parse("nodash").is_none());
        assert!(TopicPartition::parse("-3").is_none());
        assert!(TopicPartition::parse("t-x").is_none());
    }

    #[test]
    fn node_ids_round_trip_through_text() {
        for n in [
            NodeId::broker(3),
            NodeId::ZooKeeper,
            NodeId::Controller(3000),
            NodeId::Producer(0),
            NodeId::Consumer(7),
            NodeId::User,
        ] {
            assert_eq!(n.to_string().parse::<NodeId>().unwrap(), n);
        }
        assert!("broker-x".parse::<NodeId>().is_err());
        assert!("router-1".parse::<NodeId>().is_err());
    }
}

#[cfg(test)]
mod order {
    use super::TopicPartition;
    use proptest::prelude::*;

    proptest! {
        /// Topic-partitions order as (name, partition) does, by the names'
        /// bytes (short names, names sharing a prefix, zero bytes), whether
        /// two names share one allocation or not.
        #[test]
        fn topic_partitions_order_by_name_then_partition(
            a in "[a-c\\x00]{0,10}",
            b in "[a-c\\x00]{0,10}",
            pa in 0i32..3,
            pb in 0i32..3,
        ) {
            let (x, y) = (TopicPartition::new(a.as_str(), pa), TopicPartition::new(b.as_str(), pb));
            let want = (a.as_str(), pa).cmp(&(b.as_str(), pb));
            prop_assert_eq!(x.cmp(&y), want);
            prop_assert_eq!(y.cmp(&x), want.reverse());
            prop_assert_eq!(x == y, want.is_eq());
            let shared = TopicPartition::new(x.topic.clone(), pb);
            prop_assert_eq!(x.cmp(&shared), pa.cmp(&pb));
        }
    }
}
