//! Scenarios: a cluster, its topics and clients, a seed, and a timed list of
//! commands. The same scenario always produces the same trace.
//!
//! The format is JSON (documented in `docs/scenario-format.md`). Kafka's own
//! settings keep their dotted names (`"min.insync.replicas": 2`); the
//! simulation's own fields are `snake_case`. Parsing reports the exact field
//! that is wrong (`commands[2].broker: no broker 7 ...`) and never panics.

use crate::client_config::{ConsumerConfig, ProducerConfig};
use crate::collections::{SortedMap, SortedSet};
use crate::config::{BrokerConfig, ConfigError, NetworkConfig, TopicConfigOverrides};
use crate::ids::{NodeId, TopicPartition};
use serde::{Deserialize, Serialize};

mod position;
pub mod scale;
mod validate;

/// The format identifier written into exported scenarios.
pub const FORMAT: &str = "kafka-visualiser/scenario@1";
/// The longest a scenario may run, in simulated milliseconds (one day).
pub const MAX_RUN_MS: u64 = 86_400_000;
/// The largest record (key and value) a `produce` command may send: the
/// producer's `max.request.size` default (1 MB).
pub const MAX_RECORD_BYTES: usize = 1_048_576;
/// The most records all of a scenario's `produce` commands may send.
pub const MAX_PRODUCED_RECORDS: u64 = 1_000_000;
/// The most bytes of keys and values all `produce` commands may send.
pub const MAX_PRODUCED_BYTES: u64 = 8 * 1_048_576;
/// The latest `clock_start_ms` (9999-12-31T23:59:59.999Z): record timestamps
/// stay far inside Java's `long`.
pub const MAX_CLOCK_START_MS: i64 = 253_402_300_799_999;
/// The most partitions one topic may have in a scenario (`partitions`,
/// `num.partitions`, `offsets.topic.num.partitions`, `add_partitions`,
/// `replica.assignment`).
pub const MAX_PARTITIONS: i32 = 10_000;
/// The most partitions a scenario may declare in all: its topics, the
/// topics its `create_topic` commands create, the totals its
/// `add_partitions` commands ask for, and `__consumer_offsets` when it has
/// consumers. Memory grows with partitions (about 65 KB each in a run);
/// this keeps a shared link from exhausting a browser tab (issue 24).
pub const MAX_TOTAL_PARTITIONS: u64 = 30_000;
/// The most clients (producers and consumers, with those added by
/// commands) a scenario may declare: enough for 40 groups of 40 members.
pub const MAX_CLIENTS: usize = 2_000;

fn d_run_until() -> u64 {
    10_000
}
fn d_clock_start() -> i64 {
    1_700_000_000_000
}

/// A whole scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The file's format version, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// The scenario's name (shown on the page).
    #[serde(default)]
    pub name: String,
    /// What it shows, in a sentence or two.
    #[serde(default)]
    pub description: String,
    /// Seeds the simulation's only random number generator.
    pub seed: u64,
    /// The Kafka the scenario runs: `"3.9"` (the default: the controller on
    /// ZooKeeper, as the course notes teach it) or `"4.1"` (KRaft: a quorum
    /// of controllers replaces ZooKeeper; see `kraft/`).
    #[serde(default, skip_serializing_if = "KafkaVersion::is_default")]
    pub kafka_version: KafkaVersion,
    /// The simulation stops at this simulated time (ms).
    #[serde(default = "d_run_until")]
    pub run_until_ms: u64,
    /// Wall-clock time (ms since 1970) at simulated time 0, used for record
    /// timestamps and retention. Default: 2023-11-14T22:13:20Z.
    #[serde(default = "d_clock_start")]
    pub clock_start_ms: i64,
    /// The brokers and their `server.properties`.
    pub cluster: ClusterSpec,
    /// Topics created at the start.
    #[serde(default)]
    pub topics: Vec<TopicSpec>,
    /// Producers.
    #[serde(default)]
    pub producers: Vec<ProducerSpec>,
    /// Consumers.
    #[serde(default)]
    pub consumers: Vec<ConsumerSpec>,
    /// Commands, in time order.
    #[serde(default)]
    pub commands: Vec<TimedCommand>,
    /// Guarantees checked on every consumer, also where Kafka does not
    /// promise them: `["read_committed_isolation"]` checks a
    /// read_uncommitted consumer as if it were read_committed (the
    /// counterexample finder asks this, `kafka-sim explore`). Empty (the
    /// default): each guarantee where Kafka promises it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub check_every_consumer: Vec<crate::event::Guarantee>,
    /// A guided lesson over this scenario (narration and questions). Kept as
    /// data for the page; the simulation ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lesson: Option<serde_json::Value>,
}

/// The cluster: broker ids, their shared settings and the network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterSpec {
    /// The brokers' `broker.id`s.
    pub brokers: Vec<i32>,
    /// Kafka 4.1 only: the `node.id`s of the controllers
    /// (`process.roles=controller`), which are the voters of
    /// `controller.quorum.voters`. Kafka 3.9 here has no controllers of
    /// its own: one broker is elected controller through ZooKeeper.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controllers: Vec<i32>,
    /// `server.properties` shared by every broker.
    #[serde(default)]
    pub config: BrokerConfig,
    /// The simulated network (latencies).
    #[serde(default)]
    pub network: NetworkConfig,
    /// The simulation's own: how often the OS writes dirty pages back to disk
    /// (Linux's `dirty_writeback_centisecs`, 5 s). Kafka does not fsync by
    /// default; a power failure loses what was not written back.
    #[serde(default = "d_os_flush")]
    pub os_flush_interval_ms: u64,
    /// The simulation's own: how a follower truncates its log when it
    /// follows a new leader or restarts. Kafka 3.9 always uses leader epochs;
    /// `high_watermark` replays Kafka before 0.11 (before KIP-101), the rule
    /// the source notes teach. Not a Kafka setting: a Kafka 3.9 broker refuses
    /// the `inter.broker.protocol.version` (0.10.2 and older) that behaved so.
    #[serde(default, skip_serializing_if = "FollowerTruncation::is_default")]
    pub follower_truncation: FollowerTruncation,
    /// Each broker's `broker.rack` (`{"0": "a", "1": "b"}`): the rack (or
    /// availability zone) it stands in. With racks on every broker, topic
    /// creation places each partition's replicas on different racks
    /// (`placement`); with racks on some but not all, Kafka refuses to place.
    #[serde(
        rename = "broker.rack",
        default,
        skip_serializing_if = "SortedMap::is_empty"
    )]
    pub broker_rack: SortedMap<i32, String>,
}

/// The Kafka release a scenario follows.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum KafkaVersion {
    /// Apache Kafka 3.9: the controller is a broker elected through
    /// ZooKeeper (the era of the course notes).
    #[default]
    #[serde(rename = "3.9")]
    V3_9,
    /// Apache Kafka 4.1.0: KRaft. A quorum of controllers keeps the cluster's
    /// metadata in the `__cluster_metadata` log; there is no ZooKeeper.
    #[serde(rename = "4.1")]
    V4_1,
}

impl KafkaVersion {
    /// Whether this is the default (3.9).
    pub fn is_default(&self) -> bool {
        *self == KafkaVersion::V3_9
    }

    /// Whether the cluster runs KRaft (4.1).
    pub fn is_kraft(self) -> bool {
        self == KafkaVersion::V4_1
    }

    /// The version as written in a scenario (`3.9`).
    pub fn as_str(self) -> &'static str {
        match self {
            KafkaVersion::V3_9 => "3.9",
            KafkaVersion::V4_1 => "4.1",
        }
    }
}

/// Whether `r` is a rack name the simulation takes: 1 to 255 characters,
/// none of them a control character. (Kafka takes any string; the limit
/// keeps drawings and captions readable.)
pub fn rack_is_valid(r: &str) -> bool {
    !r.is_empty() && r.chars().count() <= 255 && !r.chars().any(char::is_control)
}

/// How a follower finds where its log stops agreeing with its new leader's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FollowerTruncation {
    /// Kafka 0.11 and later (KIP-101, and since 2.7 KIP-595's diverging
    /// epoch in `Fetch`): ask the leader where the follower's last epoch
    /// ended and truncate there; records below that survive.
    #[default]
    LeaderEpoch,
    /// Kafka before 0.11: cut the log back to the follower's own high
    /// watermark and fetch from there. Replicas can diverge or lose records.
    HighWatermark,
}

impl FollowerTruncation {
    /// Whether this is the default (leader epochs).
    pub fn is_default(&self) -> bool {
        *self == FollowerTruncation::LeaderEpoch
    }

    /// Whether followers use leader epochs (KIP-101).
    pub fn uses_leader_epochs(self) -> bool {
        self == FollowerTruncation::LeaderEpoch
    }
}

fn d_os_flush() -> u64 {
    5000
}

/// A topic created when the scenario starts (or by a `create_topic` command).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopicSpec {
    /// The topic's name.
    pub name: String,
    /// Default: the broker's `num.partitions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partitions: Option<i32>,
    /// Default: the broker's `default.replication.factor`.
    #[serde(
        rename = "replication.factor",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub replication_factor: Option<i32>,
    /// Explicit placement, partition → replicas (as `--replica-assignment`).
    #[serde(
        rename = "replica.assignment",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub replica_assignment: Option<SortedMap<String, Vec<i32>>>,
    /// Fixes Kafka's random start index (and first shift) of the placement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed_start_index: Option<i32>,
    /// Topic-level configs (`segment.bytes`, `retention.ms`, ...).
    #[serde(default)]
    pub config: TopicConfigOverrides,
}

/// A producer of the scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProducerSpec {
    /// Its name (commands refer to it).
    pub name: String,
    /// Its settings (`ProducerConfig`).
    #[serde(default)]
    pub config: ProducerConfig,
}

/// A consumer of the scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsumerSpec {
    /// Its name (commands refer to it).
    pub name: String,
    /// Its settings (`ConsumerConfig`).
    #[serde(default)]
    pub config: ConsumerConfig,
    /// `subscribe(topics)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<Vec<String>>,
    /// `subscribe(Pattern)`, a regular expression over topic names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe_pattern: Option<String>,
    /// `assign(partitions)`: a standalone consumer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assign: Option<Vec<TopicPartition>>,
    /// When the consumer starts (ms); default at once.
    #[serde(default)]
    pub start_at_ms: u64,
    /// What the application does about commits around its processing (G11):
    /// `auto` (only `enable.auto.commit`), `sync_before_processing` (commitSync
    /// right after poll() returns, then process: at-most-once) or
    /// `sync_after_processing` (process, then commitSync: at-least-once).
    #[serde(default, skip_serializing_if = "CommitMode::is_auto")]
    pub commit: CommitMode,
    /// A read-process-write application (exactly-once, KIP-98/447): each
    /// batch poll() returns is written to `topic` by the transactional
    /// producer `producer`, with the consumer's positions sent in the same
    /// transaction (`sendOffsetsToTransaction`), then committed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<PipelineSpec>,
}

/// The output of a read-process-write application (see [`ConsumerSpec::pipeline`]).
/// Each output record's key names the input record it was made from
/// (`orders-0@3`) and its value is the input's value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipelineSpec {
    /// The transactional producer (its `transactional.id` must be set).
    pub producer: String,
    /// The topic it writes to.
    pub topic: String,
}

/// The application's commit habit (see [`ConsumerSpec::commit`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommitMode {
    /// `enable.auto.commit`: positions are committed in the background.
    #[default]
    Auto,
    /// `commitSync()` right after `poll()`, before processing (at most once).
    SyncBeforeProcessing,
    /// `commitSync()` after processing (at least once).
    SyncAfterProcessing,
}

impl CommitMode {
    /// Whether offsets are committed automatically.
    pub fn is_auto(&self) -> bool {
        *self == CommitMode::Auto
    }
}

/// Something the person running the scenario does, written
/// `{"type": "kill_broker", "broker": 1}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// `producer.send(new ProducerRecord(topic, partition, key, value))`,
    /// `count` times (values get `-1`, `-2`, ... appended when count > 1).
    Produce {
        /// The producer's name.
        producer: String,
        /// The topic.
        topic: String,
        /// The key (none: a null key).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<String>,
        /// The value (none: a tombstone).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        value: Option<String>,
        /// The partition (none: the partitioner chooses).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        partition: Option<i32>,
        /// How many records like it (default 1).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        count: Option<u32>,
    },
    /// A hard failure: the process dies, its ZooKeeper session expires later.
    /// With `power_failure` the machine loses power too, and with it the page
    /// cache: log data not yet written back to disk is gone on restart.
    KillBroker {
        /// The broker's id.
        broker: i32,
        /// A power failure: what the page cache had not written back is lost too.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        power_failure: bool,
    },
    /// A controlled shutdown: leaderships move first, then the broker stops.
    ShutdownBroker {
        /// The broker's id.
        broker: i32,
    },
    /// Starts a stopped broker; it recovers its logs from disk.
    RestartBroker {
        /// The broker's id.
        broker: i32,
    },
    /// Kafka 4.1: a controller's process dies (`kill -9`); its metadata log
    /// and `quorum-state` file stay on disk.
    KillController {
        /// The controller's `node.id`.
        controller: i32,
    },
    /// Kafka 4.1: a controller stops gracefully. A quorum leader first
    /// resigns (`EndQuorumEpoch`, naming its preferred successors).
    ShutdownController {
        /// The controller's `node.id`.
        controller: i32,
    },
    /// Kafka 4.1: starts a stopped controller; it reads its log and
    /// `quorum-state` back.
    RestartController {
        /// The controller's `node.id`.
        controller: i32,
    },
    /// Packets between two nodes are lost until the link is healed.
    CutLink {
        /// One end of the link.
        a: NodeId,
        /// The other end.
        b: NodeId,
    },
    /// Heals a cut link.
    HealLink {
        /// One end of the link.
        a: NodeId,
        /// The other end.
        b: NodeId,
    },
    /// Adds latency to the link (a slow follower).
    SlowLink {
        /// One end of the link.
        a: NodeId,
        /// The other end.
        b: NodeId,
        /// Latency added on top of the base, in milliseconds.
        extra_latency_ms: u64,
    },
    /// `kafka-topics --create`.
    CreateTopic {
        /// The topic to create.
        #[serde(deserialize_with = "via_value")]
        topic: TopicSpec,
    },
    /// Raises the partition count to `partitions`.
    AddPartitions {
        /// The topic.
        topic: String,
        /// Its partition count after the change.
        partitions: i32,
    },
    /// `kafka-leader-election --election-type preferred`.
    ElectPreferredLeaders {
        /// Only this topic (none: every topic).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        topic: Option<String>,
        /// Only this partition of it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        partition: Option<i32>,
    },
    /// `kafka-reassign-partitions`: move a partition to new replicas.
    Reassign {
        /// The topic.
        topic: String,
        /// The partition.
        partition: i32,
        /// The new replicas, preferred leader first.
        replicas: Vec<i32>,
    },
    /// An offset or timestamp lookup on one broker's copy, traced step by step.
    Lookup {
        /// The broker whose log is searched.
        broker: i32,
        /// The topic.
        topic: String,
        /// The partition.
        partition: i32,
        /// The offset to find.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        offset: Option<i64>,
        /// The timestamp to find (the first record at or after it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timestamp: Option<i64>,
    },
    /// A producer starts (its spec, as in `producers`): `new KafkaProducer(props)`.
    AddProducer {
        /// The producer to add.
        #[serde(deserialize_with = "via_value")]
        producer: ProducerSpec,
    },
    /// `producer.close()`: no more `send()`; the Sender sends every batch
    /// still in the accumulator at once (`linger.ms` no longer waits) and
    /// waits for the requests in flight, then the producer stops.
    /// With `timeout_ms`, `producer.close(Duration.ofMillis(timeout_ms))`:
    /// whatever is still unsent or unanswered when it runs out is aborted
    /// (force close); `0` aborts at once (`close(Duration.ZERO)`).
    CloseProducer {
        /// The producer's name.
        producer: String,
        /// `close(timeout)`: force-close after this long (none: wait).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
    },
    /// `producer.initTransactions()`: find the transaction coordinator and
    /// get the producer id and a new epoch (fencing an older producer with
    /// the same `transactional.id`). The producer needs a `transactional.id`.
    InitTransactions {
        /// The producer's name.
        producer: String,
    },
    /// `producer.beginTransaction()`.
    BeginTransaction {
        /// The producer's name.
        producer: String,
    },
    /// `producer.commitTransaction()`: send what is buffered, then EndTxn(commit).
    CommitTransaction {
        /// The producer's name.
        producer: String,
    },
    /// `producer.abortTransaction()`: drop what is unsent, then EndTxn(abort).
    AbortTransaction {
        /// The producer's name.
        producer: String,
    },
    /// `producer.sendOffsetsToTransaction(positions, consumer.groupMetadata())`:
    /// the consumer's current positions become part of the producer's
    /// transaction, committed for its group only if the transaction commits
    /// (the read-process-write loop of exactly-once).
    SendOffsetsToTransaction {
        /// The producer's name.
        producer: String,
        /// The consumer whose positions and group metadata are sent.
        consumer: String,
    },
    /// A consumer joins (its spec, as in `consumers`).
    AddConsumer {
        /// The consumer to add.
        #[serde(deserialize_with = "via_value")]
        consumer: ConsumerSpec,
    },
    /// `consumer.close()`: leaves the group cleanly.
    StopConsumer {
        /// The consumer's name.
        consumer: String,
    },
    /// The consumer's process dies: no LeaveGroup, the session times out.
    CrashConsumer {
        /// The consumer's name.
        consumer: String,
    },
    /// `commitSync()` of the current positions.
    CommitSync {
        /// The consumer's name.
        consumer: String,
    },
    /// `commitAsync()` of the current positions.
    CommitAsync {
        /// The consumer's name.
        consumer: String,
    },
    /// The application stalls: no `poll()` for this long.
    PauseConsumer {
        /// The consumer's name.
        consumer: String,
        /// How long the application stops calling `poll()`.
        duration_ms: u64,
    },
}

impl Command {
    /// The command's type, as in the JSON (`kill_broker`).
    pub fn name(&self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_string))
            .unwrap_or_default()
    }

    /// Reads a command from its object's fields (`type` and the variant's
    /// own), with serde's messages: a missing `type`, an unknown one, an
    /// unknown or missing field.
    pub fn from_fields(
        fields: serde_json::Map<String, serde_json::Value>,
    ) -> Result<Command, serde_json::Error> {
        use serde::de::Error;
        match fields.get("type") {
            Some(serde_json::Value::String(_)) | None => {}
            Some(other) => {
                return Err(serde_json::Error::custom(format!(
                    "type must be a string naming the command, not {other}"
                )))
            }
        }
        Command::deserialize(serde_json::Value::Object(fields))
    }
}

/// A command and when it happens: `{"at_ms": 200, "type": "kill_broker", "broker": 1}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimedCommand {
    /// When it runs, in simulated milliseconds.
    pub at_ms: u64,
    /// The command.
    #[serde(flatten)]
    pub command: Command,
}

/// Read by hand rather than through `#[serde(flatten)]`: `at_ms` is read
/// from the object's fields (so an error still names `commands[i].at_ms`)
/// and the other fields are the command ([`Command::from_fields`]). serde's
/// flattening reader would also take `"type": 3` as the fourth command
/// (a variant index), and answer with that command's missing field. (It was
/// also about 45 KB of the page's code; that is not why it stays.)
impl<'de> Deserialize<'de> for TimedCommand {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = TimedCommand;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a command object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<TimedCommand, A::Error> {
                use serde::de::Error;
                let mut at_ms = None;
                let mut rest = serde_json::Map::new();
                while let Some(key) = map.next_key::<String>()? {
                    if key == "at_ms" {
                        // Through the map, so an error names `commands[i].at_ms`.
                        at_ms = Some(map.next_value::<u64>()?);
                    } else {
                        rest.insert(key, map.next_value()?);
                    }
                }
                let at_ms = at_ms.ok_or_else(|| A::Error::missing_field("at_ms"))?;
                let command = Command::from_fields(rest).map_err(A::Error::custom)?;
                Ok(TimedCommand { at_ms, command })
            }
        }
        d.deserialize_map(Fields)
    }
}

/// serde's derived structs also accept a JSON array, read by position
/// (`"config": [3, 7]` would set the first two settings): a scenario's
/// objects must be written as objects. Checked on the parsed text, at every
/// place the format has an object.
fn objects_are_objects(root: &serde_json::Value) -> Result<(), ConfigError> {
    use serde_json::Value;
    fn obj(v: Option<&Value>, path: &str) -> Result<(), ConfigError> {
        match v {
            None | Some(Value::Object(_)) => Ok(()),
            Some(other) => Err(ConfigError::new(
                path,
                format!(
                    "must be a JSON object {{…}}, not {}",
                    match other {
                        Value::Array(_) => "an array",
                        Value::String(_) => "a string",
                        Value::Number(_) => "a number",
                        Value::Bool(_) => "true or false",
                        _ => "null",
                    }
                ),
            )),
        }
    }
    fn list<'a>(v: &'a Value, key: &str) -> Vec<&'a Value> {
        v.get(key)
            .and_then(Value::as_array)
            .map(|a| a.iter().collect())
            .unwrap_or_default()
    }
    fn client(c: &Value, at: &str) -> Result<(), ConfigError> {
        obj(Some(c), at)?;
        obj(c.get("config"), &format!("{at}.config"))
    }
    fn topic(t: &Value, at: &str) -> Result<(), ConfigError> {
        obj(Some(t), at)?;
        obj(t.get("config"), &format!("{at}.config"))?;
        obj(
            t.get("replica.assignment"),
            &format!("{at}.replica.assignment"),
        )
    }
    obj(Some(root), "").map_err(|e| ConfigError::new("", format!("a scenario {}", e.message)))?;
    obj(root.get("cluster"), "cluster")?;
    if let Some(c) = root.get("cluster") {
        obj(c.get("config"), "cluster.config")?;
        obj(c.get("network"), "cluster.network")?;
    }
    for (i, t) in list(root, "topics").into_iter().enumerate() {
        topic(t, &format!("topics[{i}]"))?;
    }
    for key in ["producers", "consumers"] {
        for (i, c) in list(root, key).into_iter().enumerate() {
            client(c, &format!("{key}[{i}]"))?;
        }
    }
    for (i, c) in list(root, "commands").into_iter().enumerate() {
        let at = format!("commands[{i}]");
        obj(Some(c), &at)?;
        match c.get("type").and_then(Value::as_str) {
            Some("create_topic") => topic(&c["topic"], &format!("{at}.topic"))?,
            Some("add_producer") => client(&c["producer"], &format!("{at}.producer"))?,
            Some("add_consumer") => client(&c["consumer"], &format!("{at}.consumer"))?,
            _ => {}
        }
    }
    Ok(())
}

/// Reads a typed value from a parsed tree, naming the field at fault
/// (`topics[0].replication.factor`, through `serde_path_to_error`) and,
/// given the text it was parsed from, the line and column of that field.
fn from_value_at<T: serde::de::DeserializeOwned>(
    v: serde_json::Value,
    text: Option<&str>,
) -> Result<T, ConfigError> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let mut message = e.inner().to_string();
        if let Some((line, column)) = text.and_then(|t| position::line_column(t, e.path())) {
            message = format!("{message} at line {line} column {column}");
        }
        ConfigError::new(path, message)
    })
}

/// A command's nested topic, producer or consumer, read through the same
/// typed path as the scenario's own lists (`from_value_at`): serde's
/// internally tagged `Command` would otherwise read it a second way, from
/// its buffered content, and the page would carry both readers.
fn via_value<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    use serde::de::Error;
    let v = serde_json::Value::deserialize(d)?;
    from_value_at(v, None).map_err(|e| {
        D::Error::custom(if e.field.is_empty() {
            e.message
        } else {
            format!("{}: {}", e.field, e.message)
        })
    })
}

/// Kafka's topic name rule (`Topic.validate`): 1–249 of `[a-zA-Z0-9._-]`, not `.` or `..`.
pub fn validate_topic_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("Topic name is illegal, it can't be empty".into());
    }
    if name == "." || name == ".." {
        return Err("Topic name cannot be \".\" or \"..\"".into());
    }
    if name.len() > 249 {
        return Err(format!(
            "Topic name is illegal, it can't be longer than 249 characters, topic name: {name}"
        ));
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
    {
        return Err(format!(
            "Topic name \"{name}\" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'"
        ));
    }
    Ok(())
}

/// Kafka 4.0 changed the producer's `linger.ms` default from 0 to 5
/// (KIP-1030): a 4.1 scenario's producer that does not set it gets 5.
fn kafka_4_client_defaults(root: &mut serde_json::Value) {
    if root.get("kafka_version").and_then(|v| v.as_str()) != Some("4.1") {
        return;
    }
    let Some(producers) = root.get_mut("producers").and_then(|p| p.as_array_mut()) else {
        return;
    };
    for p in producers {
        let Some(obj) = p.as_object_mut() else {
            continue;
        };
        let config = obj
            .entry("config")
            .or_insert_with(|| serde_json::Value::Object(Default::default()));
        if let Some(c) = config.as_object_mut() {
            c.entry("linger.ms").or_insert(serde_json::Value::from(5));
        }
    }
}

impl Scenario {
    /// Parses JSON, naming the field at fault (`topics[0].replication.factor`,
    /// through `serde_path_to_error`) and, for a syntax error, its line and
    /// column.
    pub fn from_json(text: &str) -> Result<Scenario, ConfigError> {
        // A file saved by an editor may start with a UTF-8 byte-order mark.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        // The syntax first (its error names the line and column), then the
        // fields from the parsed tree: one typed path for every scenario,
        // whether it comes from a file, a link or a command's nested spec.
        let root: serde_json::Value =
            serde_json::from_str(text).map_err(|e| ConfigError::new("", e.to_string()))?;
        objects_are_objects(&root)?;
        let mut root = root;
        kafka_4_client_defaults(&mut root);
        let s: Scenario = from_value_at(root, Some(text))?;
        s.validate()?;
        Ok(s)
    }

    /// The scenario as indented JSON (what a download contains).
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The index of the producer named `name`.
    pub fn producer_index(&self, name: &str) -> Option<usize> {
        self.producers.iter().position(|p| p.name == name)
    }

    /// Every producer the scenario declares or starts with `add_producer`.
    pub fn producer_specs(&self) -> impl Iterator<Item = &ProducerSpec> {
        self.producers
            .iter()
            .chain(self.commands.iter().filter_map(|c| match &c.command {
                Command::AddProducer { producer } => Some(producer),
                _ => None,
            }))
    }

    /// Whether a producer named `name` (declared or added) has a `transactional.id`.
    pub fn is_transactional_producer(&self, name: &str) -> bool {
        self.producer_specs()
            .any(|p| p.name == name && p.config.transactional_id.is_some())
    }

    /// The consumers' names, in scenario order.
    pub fn consumer_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.consumers.iter().map(|c| c.name.clone()).collect();
        for c in &self.commands {
            if let Command::AddConsumer { consumer } = &c.command {
                v.push(consumer.name.clone());
            }
        }
        v
    }
}

#[cfg(test)]
mod tests;
