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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Seeds the simulation's only random number generator.
    pub seed: u64,
    /// The simulation stops at this simulated time (ms).
    #[serde(default = "d_run_until")]
    pub run_until_ms: u64,
    /// Wall-clock time (ms since 1970) at simulated time 0, used for record
    /// timestamps and retention. Default: 2023-11-14T22:13:20Z.
    #[serde(default = "d_clock_start")]
    pub clock_start_ms: i64,
    pub cluster: ClusterSpec,
    #[serde(default)]
    pub topics: Vec<TopicSpec>,
    #[serde(default)]
    pub producers: Vec<ProducerSpec>,
    #[serde(default)]
    pub consumers: Vec<ConsumerSpec>,
    #[serde(default)]
    pub commands: Vec<TimedCommand>,
    /// A guided lesson over this scenario (narration and questions). Kept as
    /// data for the page; the simulation ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lesson: Option<serde_json::Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterSpec {
    /// The brokers' `broker.id`s.
    pub brokers: Vec<i32>,
    /// `server.properties` shared by every broker.
    #[serde(default)]
    pub config: BrokerConfig,
    #[serde(default)]
    pub network: NetworkConfig,
    /// The simulation's own: how often the OS writes dirty pages back to disk
    /// (Linux's `dirty_writeback_centisecs`, 5 s). Kafka does not fsync by
    /// default; a power failure loses what was not written back.
    #[serde(default = "d_os_flush")]
    pub os_flush_interval_ms: u64,
}

fn d_os_flush() -> u64 {
    5000
}

/// A topic created when the scenario starts (or by a `create_topic` command).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopicSpec {
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProducerSpec {
    pub name: String,
    #[serde(default)]
    pub config: ProducerConfig,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsumerSpec {
    pub name: String,
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
}

/// The application's commit habit (see [`ConsumerSpec::commit`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommitMode {
    #[default]
    Auto,
    SyncBeforeProcessing,
    SyncAfterProcessing,
}

impl CommitMode {
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
        producer: String,
        topic: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        value: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        partition: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        count: Option<u32>,
    },
    /// A hard failure: the process dies, its ZooKeeper session expires later.
    /// With `power_failure` the machine loses power too, and with it the page
    /// cache: log data not yet written back to disk is gone on restart.
    KillBroker {
        broker: i32,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        power_failure: bool,
    },
    /// A controlled shutdown: leaderships move first, then the broker stops.
    ShutdownBroker {
        broker: i32,
    },
    RestartBroker {
        broker: i32,
    },
    /// Packets between two nodes are lost until the link is healed.
    CutLink {
        a: NodeId,
        b: NodeId,
    },
    HealLink {
        a: NodeId,
        b: NodeId,
    },
    /// Adds latency to the link (a slow follower).
    SlowLink {
        a: NodeId,
        b: NodeId,
        extra_latency_ms: u64,
    },
    CreateTopic {
        topic: TopicSpec,
    },
    /// Raises the partition count to `partitions`.
    AddPartitions {
        topic: String,
        partitions: i32,
    },
    /// `kafka-leader-election --election-type preferred`.
    ElectPreferredLeaders {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        topic: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        partition: Option<i32>,
    },
    /// `kafka-reassign-partitions`: move a partition to new replicas.
    Reassign {
        topic: String,
        partition: i32,
        replicas: Vec<i32>,
    },
    /// An offset or timestamp lookup on one broker's copy, traced step by step.
    Lookup {
        broker: i32,
        topic: String,
        partition: i32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        offset: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timestamp: Option<i64>,
    },
    /// A producer starts (its spec, as in `producers`): `new KafkaProducer(props)`.
    AddProducer {
        producer: ProducerSpec,
    },
    /// `producer.close()`: no more `send()`; the Sender sends every batch
    /// still in the accumulator at once (`linger.ms` no longer waits) and
    /// waits for the requests in flight, then the producer stops.
    /// With `timeout_ms`, `producer.close(Duration.ofMillis(timeout_ms))`:
    /// whatever is still unsent or unanswered when it runs out is aborted
    /// (force close); `0` aborts at once (`close(Duration.ZERO)`).
    CloseProducer {
        producer: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
    },
    /// A consumer joins (its spec, as in `consumers`).
    AddConsumer {
        consumer: ConsumerSpec,
    },
    /// `consumer.close()`: leaves the group cleanly.
    StopConsumer {
        consumer: String,
    },
    /// The consumer's process dies: no LeaveGroup, the session times out.
    CrashConsumer {
        consumer: String,
    },
    /// `commitSync()` of the current positions.
    CommitSync {
        consumer: String,
    },
    /// `commitAsync()` of the current positions.
    CommitAsync {
        consumer: String,
    },
    /// The application stalls: no `poll()` for this long.
    PauseConsumer {
        consumer: String,
        duration_ms: u64,
    },
}

impl Command {
    pub fn name(&self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_string))
            .unwrap_or_default()
    }
}

/// A command and when it happens: `{"at_ms": 200, "type": "kill_broker", "broker": 1}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimedCommand {
    pub at_ms: u64,
    #[serde(flatten)]
    pub command: Command,
}

/// serde's derived structs also accept a JSON array, read by position
/// (`"config": [3, 7]` would set the first two settings): a scenario's
/// objects must be written as objects. Checked on the parsed text, at every
/// place the format has an object.
fn objects_are_objects(text: &str) -> Result<(), ConfigError> {
    use serde_json::Value;
    let Ok(root) = serde_json::from_str::<Value>(text) else {
        return Ok(()); // not JSON: the typed parse names the syntax error
    };
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
    obj(Some(&root), "").map_err(|e| ConfigError::new("", format!("a scenario {}", e.message)))?;
    obj(root.get("cluster"), "cluster")?;
    if let Some(c) = root.get("cluster") {
        obj(c.get("config"), "cluster.config")?;
        obj(c.get("network"), "cluster.network")?;
    }
    for (i, t) in list(&root, "topics").into_iter().enumerate() {
        topic(t, &format!("topics[{i}]"))?;
    }
    for key in ["producers", "consumers"] {
        for (i, c) in list(&root, key).into_iter().enumerate() {
            client(c, &format!("{key}[{i}]"))?;
        }
    }
    for (i, c) in list(&root, "commands").into_iter().enumerate() {
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

impl Scenario {
    /// Parses JSON, naming the field at fault (`topics[0].replication.factor`,
    /// through `serde_path_to_error`) and, for a syntax error, its line and
    /// column.
    pub fn from_json(text: &str) -> Result<Scenario, ConfigError> {
        // A file saved by an editor may start with a UTF-8 byte-order mark.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        objects_are_objects(text)?;
        let de = &mut serde_json::Deserializer::from_str(text);
        let s: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." { String::new() } else { path };
            ConfigError::new(path, e.into_inner().to_string())
        })?;
        s.validate()?;
        Ok(s)
    }

    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    pub fn producer_index(&self, name: &str) -> Option<usize> {
        self.producers.iter().position(|p| p.name == name)
    }

    pub fn consumer_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.consumers.iter().map(|c| c.name.clone()).collect();
        for c in &self.commands {
            if let Command::AddConsumer { consumer } = &c.command {
                v.push(consumer.name.clone());
            }
        }
        v
    }

    /// Cross-field checks a JSON schema cannot express.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if let Some(l) = &self.lesson {
            // The page refuses a scenario whose lesson it cannot read; so
            // does everything else that reads scenarios.
            crate::lesson::Lesson::from_value(l).map_err(|m| {
                let (field, why) = m.split_once(": ").unwrap_or(("lesson", m.as_str()));
                ConfigError::new(field, why)
            })?;
        }
        if let Some(f) = &self.format {
            if f != FORMAT {
                return Err(ConfigError::new(
                    "format",
                    format!("`{f}` is not a known format (expected {FORMAT})"),
                ));
            }
        }
        if self.run_until_ms == 0 || self.run_until_ms > MAX_RUN_MS {
            return Err(ConfigError::new(
                "run_until_ms",
                format!("must be between 1 and {MAX_RUN_MS} (one simulated day)"),
            ));
        }
        if !(0..=MAX_CLOCK_START_MS).contains(&self.clock_start_ms) {
            return Err(ConfigError::new(
                "clock_start_ms",
                format!("must be between 0 (1970) and {MAX_CLOCK_START_MS} (the end of year 9999)"),
            ));
        }
        let brokers = &self.cluster.brokers;
        if brokers.is_empty() {
            return Err(ConfigError::new(
                "cluster.brokers",
                "needs at least one broker id",
            ));
        }
        if brokers.len() > 1000 {
            return Err(ConfigError::new(
                "cluster.brokers",
                "at most 1000 brokers are simulated",
            ));
        }
        let mut seen = SortedSet::new();
        for (i, b) in brokers.iter().enumerate() {
            if *b < 0 {
                return Err(ConfigError::new(
                    format!("cluster.brokers[{i}]"),
                    "a broker.id must be 0 or more",
                ));
            }
            if !seen.insert(*b) {
                return Err(ConfigError::new(
                    format!("cluster.brokers[{i}]"),
                    format!("broker id {b} appears twice"),
                ));
            }
        }
        self.cluster.config.validate("cluster.config")?;
        for (key, n) in [
            ("num.partitions", self.cluster.config.num_partitions),
            (
                "offsets.topic.num.partitions",
                self.cluster.config.offsets_topic_num_partitions,
            ),
        ] {
            if n > MAX_PARTITIONS {
                return Err(ConfigError::new(
                    format!("cluster.config.{key}"),
                    format!("at most {MAX_PARTITIONS} partitions per topic are simulated"),
                ));
            }
        }
        self.cluster.network.validate("cluster.network")?;
        if self.cluster.os_flush_interval_ms == 0 {
            return Err(ConfigError::new(
                "cluster.os_flush_interval_ms",
                "must be at least 1 ms",
            ));
        }
        let mut topics = SortedSet::new();
        for (i, t) in self.topics.iter().enumerate() {
            self.validate_topic(t, &format!("topics[{i}]"))?;
            if !topics.insert(t.name.clone()) {
                return Err(ConfigError::new(
                    format!("topics[{i}].name"),
                    format!("topic `{}` is listed twice", t.name),
                ));
            }
        }
        let mut names = SortedSet::new();
        for (i, p) in self.producers.iter().enumerate() {
            if p.name.is_empty() {
                return Err(ConfigError::new(
                    format!("producers[{i}].name"),
                    "must not be empty",
                ));
            }
            if !names.insert(p.name.clone()) {
                return Err(ConfigError::new(
                    format!("producers[{i}].name"),
                    format!("`{}` is used twice", p.name),
                ));
            }
            p.config.validate(&format!("producers[{i}].config"))?;
        }
        // Producers the commands may name: the scenario's, then those started.
        let mut pnames: SortedSet<String> =
            SortedSet::from_iter(self.producers.iter().map(|p| p.name.clone()));
        let mut cnames = SortedSet::new();
        for (i, c) in self.consumers.iter().enumerate() {
            self.validate_consumer(c, &format!("consumers[{i}]"))?;
            if !cnames.insert(c.name.clone()) {
                return Err(ConfigError::new(
                    format!("consumers[{i}].name"),
                    format!("`{}` is used twice", c.name),
                ));
            }
        }
        let mut created: SortedSet<String> = topics.clone();
        let (mut produced_records, mut produced_bytes) = (0u64, 0u64);
        for (i, tc) in self.commands.iter().enumerate() {
            let at = format!("commands[{i}]");
            if tc.at_ms > self.run_until_ms {
                return Err(ConfigError::new(
                    format!("{at}.at_ms"),
                    format!("{} is after run_until_ms ({})", tc.at_ms, self.run_until_ms),
                ));
            }
            // Durations are added to the clock: keep them in Java's long range
            // (and a slow link's extra latency as short as a link's latency).
            {
                use crate::config::{check_ranges, kafka, JAVA_LONG_MAX};
                match &tc.command {
                    Command::SlowLink {
                        extra_latency_ms, ..
                    } => check_ranges(
                        &at,
                        &[kafka("extra_latency_ms", *extra_latency_ms, 0, 60_000)],
                    )?,
                    Command::CloseProducer {
                        timeout_ms: Some(t),
                        ..
                    } => check_ranges(&at, &[kafka("timeout_ms", *t, 0, JAVA_LONG_MAX)])?,
                    Command::PauseConsumer { duration_ms, .. } => {
                        check_ranges(&at, &[kafka("duration_ms", *duration_ms, 0, JAVA_LONG_MAX)])?
                    }
                    _ => {}
                }
            }
            let broker_ok = |b: i32, field: &str| -> Result<(), ConfigError> {
                if brokers.contains(&b) {
                    Ok(())
                } else {
                    Err(ConfigError::new(
                        format!("{at}.{field}"),
                        format!("no broker {b} in cluster.brokers {brokers:?}"),
                    ))
                }
            };
            let node_ok = |n: &NodeId, field: &str| -> Result<(), ConfigError> {
                match n {
                    NodeId::Broker(b) => broker_ok(b.0, field),
                    NodeId::Producer(p) if (*p as usize) < pnames.len() => Ok(()),
                    NodeId::Consumer(c) if (*c as usize) < self.consumer_names().len() => Ok(()),
                    NodeId::ZooKeeper => Ok(()),
                    other => Err(ConfigError::new(
                        format!("{at}.{field}"),
                        format!("no node {other} in this scenario"),
                    )),
                }
            };
            match &tc.command {
                Command::Produce {
                    producer,
                    topic,
                    partition,
                    count,
                    key,
                    value,
                } => {
                    let len =
                        key.as_ref().map_or(0, String::len) + value.as_ref().map_or(0, String::len);
                    if len > MAX_RECORD_BYTES {
                        // Kafka: RecordTooLargeException (max.request.size, 1 MB).
                        return Err(ConfigError::new(
                            format!("{at}.value"),
                            format!("the record is {len} bytes, more than max.request.size ({MAX_RECORD_BYTES}): Kafka's send() fails with RecordTooLargeException"),
                        ));
                    }
                    let n = u64::from(count.unwrap_or(1));
                    produced_records += n;
                    produced_bytes += n * len as u64;
                    if produced_records > MAX_PRODUCED_RECORDS
                        || produced_bytes > MAX_PRODUCED_BYTES
                    {
                        return Err(ConfigError::new(
                            format!("{at}.count"),
                            format!("the scenario's produce commands send more than {MAX_PRODUCED_RECORDS} records or {MAX_PRODUCED_BYTES} bytes of keys and values in all, the most one scenario may send"),
                        ));
                    }
                    if !pnames.contains(producer) {
                        return Err(ConfigError::new(
                            format!("{at}.producer"),
                            format!("no producer named `{producer}` in producers or started before this command"),
                        ));
                    }
                    if !created.contains(topic) {
                        return Err(ConfigError::new(
                            format!("{at}.topic"),
                            format!("topic `{topic}` is not created before this command"),
                        ));
                    }
                    if partition.is_some_and(|p| p < 0) {
                        return Err(ConfigError::new(
                            format!("{at}.partition"),
                            "must be 0 or more",
                        ));
                    }
                    if count.is_some_and(|c| c == 0 || c > 100_000) {
                        return Err(ConfigError::new(
                            format!("{at}.count"),
                            "must be between 1 and 100000",
                        ));
                    }
                }
                Command::KillBroker { broker, .. }
                | Command::ShutdownBroker { broker }
                | Command::RestartBroker { broker } => broker_ok(*broker, "broker")?,
                Command::CutLink { a, b }
                | Command::HealLink { a, b }
                | Command::SlowLink { a, b, .. } => {
                    node_ok(a, "a")?;
                    node_ok(b, "b")?;
                    if matches!(tc.command, Command::CutLink { .. })
                        && (*a == NodeId::ZooKeeper || *b == NodeId::ZooKeeper)
                    {
                        return Err(ConfigError::new(
                            format!("{at}.b"),
                            "links to ZooKeeper cannot be cut: ZooKeeper session heartbeats are not simulated (kill the broker instead)",
                        ));
                    }
                    if a == b {
                        return Err(ConfigError::new(
                            format!("{at}.b"),
                            "a link joins two different nodes",
                        ));
                    }
                }
                Command::CreateTopic { topic } => {
                    self.validate_topic(topic, &format!("{at}.topic"))?;
                    if !created.insert(topic.name.clone()) {
                        return Err(ConfigError::new(
                            format!("{at}.topic.name"),
                            format!("Topic '{}' already exists.", topic.name),
                        ));
                    }
                }
                Command::AddPartitions { topic, partitions } => {
                    if !created.contains(topic) {
                        return Err(ConfigError::new(
                            format!("{at}.topic"),
                            format!("no topic `{topic}`"),
                        ));
                    }
                    if *partitions < 1 || *partitions > MAX_PARTITIONS {
                        return Err(ConfigError::new(
                            format!("{at}.partitions"),
                            format!("must be between 1 and {MAX_PARTITIONS} (at most {MAX_PARTITIONS} partitions per topic are simulated)"),
                        ));
                    }
                }
                Command::ElectPreferredLeaders { topic, .. } => {
                    if let Some(t) = topic {
                        if !created.contains(t) {
                            return Err(ConfigError::new(
                                format!("{at}.topic"),
                                format!("no topic `{t}`"),
                            ));
                        }
                    }
                }
                Command::Reassign {
                    topic, replicas, ..
                } => {
                    if !created.contains(topic) {
                        return Err(ConfigError::new(
                            format!("{at}.topic"),
                            format!("no topic `{topic}`"),
                        ));
                    }
                    if replicas.is_empty() {
                        return Err(ConfigError::new(
                            format!("{at}.replicas"),
                            "needs at least one replica",
                        ));
                    }
                    let mut s = SortedSet::new();
                    for (j, r) in replicas.iter().enumerate() {
                        broker_ok(*r, &format!("replicas[{j}]"))?;
                        if !s.insert(r) {
                            return Err(ConfigError::new(
                                format!("{at}.replicas[{j}]"),
                                format!("broker {r} is listed twice"),
                            ));
                        }
                    }
                }
                Command::Lookup {
                    broker,
                    topic,
                    offset,
                    timestamp,
                    ..
                } => {
                    broker_ok(*broker, "broker")?;
                    if !created.contains(topic) {
                        return Err(ConfigError::new(
                            format!("{at}.topic"),
                            format!("no topic `{topic}`"),
                        ));
                    }
                    if offset.is_some() == timestamp.is_some() {
                        return Err(ConfigError::new(
                            format!("{at}.offset"),
                            "give exactly one of offset and timestamp",
                        ));
                    }
                }
                Command::AddProducer { producer } => {
                    if producer.name.is_empty() {
                        return Err(ConfigError::new(
                            format!("{at}.producer.name"),
                            "must not be empty",
                        ));
                    }
                    producer.config.validate(&format!("{at}.producer.config"))?;
                    if !pnames.insert(producer.name.clone()) {
                        return Err(ConfigError::new(
                            format!("{at}.producer.name"),
                            format!("`{}` is used twice", producer.name),
                        ));
                    }
                }
                Command::CloseProducer { producer, .. } => {
                    if !pnames.contains(producer) {
                        return Err(ConfigError::new(
                            format!("{at}.producer"),
                            format!("no producer named `{producer}` in producers or started before this command"),
                        ));
                    }
                }
                Command::AddConsumer { consumer } => {
                    self.validate_consumer(consumer, &format!("{at}.consumer"))?;
                    if !cnames.insert(consumer.name.clone()) {
                        return Err(ConfigError::new(
                            format!("{at}.consumer.name"),
                            format!("`{}` is used twice", consumer.name),
                        ));
                    }
                }
                Command::StopConsumer { consumer }
                | Command::CrashConsumer { consumer }
                | Command::CommitSync { consumer }
                | Command::CommitAsync { consumer }
                | Command::PauseConsumer { consumer, .. } => {
                    if !cnames.contains(consumer) {
                        return Err(ConfigError::new(
                            format!("{at}.consumer"),
                            format!("no consumer named `{consumer}` before this command"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    fn validate_topic(&self, t: &TopicSpec, at: &str) -> Result<(), ConfigError> {
        validate_topic_name(&t.name).map_err(|m| ConfigError::new(format!("{at}.name"), m))?;
        if t.name.starts_with("__") {
            return Err(ConfigError::new(
                format!("{at}.name"),
                "names starting with __ are Kafka's internal topics (__consumer_offsets is created by the brokers)",
            ));
        }
        let n_brokers = self.cluster.brokers.len() as i32;
        if let Some(p) = t.partitions {
            if p < 1 {
                return Err(ConfigError::new(
                    format!("{at}.partitions"),
                    "Number of partitions must be larger than 0.",
                ));
            }
            if p > MAX_PARTITIONS {
                return Err(ConfigError::new(
                    format!("{at}.partitions"),
                    format!("at most {MAX_PARTITIONS} partitions per topic are simulated"),
                ));
            }
        }
        if let Some(rf) = t.replication_factor {
            if rf < 1 {
                return Err(ConfigError::new(
                    format!("{at}.replication.factor"),
                    "Replication factor must be larger than 0.",
                ));
            }
            if rf > n_brokers {
                return Err(ConfigError::new(
                    format!("{at}.replication.factor"),
                    format!("Replication factor: {rf} larger than available brokers: {n_brokers}."),
                ));
            }
        }
        if t.replication_factor.is_none() && t.replica_assignment.is_none() {
            let rf = self.cluster.config.default_replication_factor;
            if rf > n_brokers {
                return Err(ConfigError::new(
                    format!("{at}.replication.factor"),
                    format!("Replication factor: {rf} larger than available brokers: {n_brokers} (the topic takes default.replication.factor)"),
                ));
            }
        }
        if let Some(a) = &t.replica_assignment {
            if a.len() > MAX_PARTITIONS as usize {
                return Err(ConfigError::new(
                    format!("{at}.replica.assignment"),
                    format!(
                        "lists {} partitions; at most {MAX_PARTITIONS} per topic are simulated",
                        a.len()
                    ),
                ));
            }
            let mut rf = None;
            for (k, reps) in a {
                let p: i32 = k.parse().map_err(|_| {
                    ConfigError::new(
                        format!("{at}.replica.assignment"),
                        format!("`{k}` is not a partition number"),
                    )
                })?;
                if p < 0 || p as usize >= a.len() {
                    return Err(ConfigError::new(
                        format!("{at}.replica.assignment"),
                        format!("partitions must be numbered 0..{} without gaps", a.len()),
                    ));
                }
                if reps.is_empty() {
                    return Err(ConfigError::new(
                        format!("{at}.replica.assignment.{k}"),
                        "needs at least one replica",
                    ));
                }
                if *rf.get_or_insert(reps.len()) != reps.len() {
                    return Err(ConfigError::new(
                        format!("{at}.replica.assignment.{k}"),
                        "every partition must have the same number of replicas",
                    ));
                }
                let mut s = SortedSet::new();
                for r in reps {
                    if !self.cluster.brokers.contains(r) {
                        return Err(ConfigError::new(
                            format!("{at}.replica.assignment.{k}"),
                            format!("no broker {r} in cluster.brokers"),
                        ));
                    }
                    if !s.insert(r) {
                        return Err(ConfigError::new(
                            format!("{at}.replica.assignment.{k}"),
                            format!("broker {r} holds two replicas of one partition"),
                        ));
                    }
                }
            }
            if let (Some(want), Some(have)) = (t.replication_factor, rf) {
                if want as usize != have {
                    return Err(ConfigError::new(
                        format!("{at}.replication.factor"),
                        format!("says {want} but replica.assignment gives each partition {have} replicas"),
                    ));
                }
            }
            if let Some(p) = t.partitions {
                if p as usize != a.len() {
                    return Err(ConfigError::new(
                        format!("{at}.partitions"),
                        format!("says {p} but replica.assignment lists {}", a.len()),
                    ));
                }
            }
        }
        if let Some(i) = t.fixed_start_index {
            if i < 0 || i >= n_brokers {
                return Err(ConfigError::new(
                    format!("{at}.fixed_start_index"),
                    format!(
                        "must be between 0 and {} (an index into the sorted broker list)",
                        n_brokers - 1
                    ),
                ));
            }
        }
        let lc = self.cluster.config.log_config(&t.config);
        lc.validate(at, "config.")?;
        Ok(())
    }

    fn validate_consumer(&self, c: &ConsumerSpec, at: &str) -> Result<(), ConfigError> {
        if c.name.is_empty() {
            return Err(ConfigError::new(format!("{at}.name"), "must not be empty"));
        }
        c.config.validate(&format!("{at}.config"))?;
        let ways = [
            c.subscribe.is_some(),
            c.subscribe_pattern.is_some(),
            c.assign.is_some(),
        ]
        .iter()
        .filter(|b| **b)
        .count();
        if ways != 1 {
            return Err(ConfigError::new(
                format!("{at}.subscribe"),
                "give exactly one of subscribe, subscribe_pattern and assign",
            ));
        }
        if (c.subscribe.is_some() || c.subscribe_pattern.is_some()) && c.config.group_id.is_none() {
            return Err(ConfigError::new(
                format!("{at}.config.group.id"),
                "subscribe() needs a group.id (use assign for a consumer without a group)",
            ));
        }
        if c.start_at_ms > MAX_RUN_MS {
            return Err(ConfigError::new(
                format!("{at}.start_at_ms"),
                format!("must be at most {MAX_RUN_MS} (one simulated day)"),
            ));
        }
        if let Some(topics) = &c.subscribe {
            if let Some(i) = topics.iter().position(|t| t.trim().is_empty()) {
                // KafkaConsumer.subscribe: IllegalArgumentException.
                return Err(ConfigError::new(
                    format!("{at}.subscribe[{i}]"),
                    "Topic collection to subscribe to cannot contain null or empty topic",
                ));
            }
        }
        if c.assign.is_some() && !c.commit.is_auto() {
            // Kafka: commitSync() without a group.id throws
            // InvalidGroupIdException; with one, an assign() consumer commits
            // as a standalone consumer, which the simulation does not model.
            let why = if c.config.group_id.is_none() {
                "commitSync() needs a group.id (Kafka throws InvalidGroupIdException without one)"
            } else {
                "commits of an assign() consumer (a standalone consumer with a group.id) are not simulated; use subscribe for a consumer group"
            };
            return Err(ConfigError::new(format!("{at}.commit"), why));
        }
        if let Some(p) = &c.subscribe_pattern {
            crate::regex::Regex::new(p)
                .map_err(|e| ConfigError::new(format!("{at}.subscribe_pattern"), e))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"{
        "seed": 1,
        "cluster": {"brokers": [0, 1, 2]},
        "topics": [{"name": "first", "partitions": 1, "replication.factor": 3}],
        "producers": [{"name": "p"}],
        "commands": [
            {"at_ms": 100, "type": "produce", "producer": "p", "topic": "first", "key": "k", "value": "v"},
            {"at_ms": 200, "type": "kill_broker", "broker": 1}
        ]
    }"#;

    #[test]
    fn a_minimal_scenario_parses_and_round_trips() {
        let s = Scenario::from_json(MINIMAL).unwrap();
        assert_eq!(s.commands.len(), 2);
        assert_eq!(
            s.commands[1].command,
            Command::KillBroker {
                broker: 1,
                power_failure: false
            }
        );
        let again = Scenario::from_json(&s.to_json_pretty()).unwrap();
        assert_eq!(again, s);
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (
                MINIMAL.replace("\"broker\": 1", "\"broker\": 7"),
                "commands[1].broker",
            ),
            (
                MINIMAL.replace("\"replication.factor\": 3", "\"replication.factor\": 4"),
                "topics[0].replication.factor",
            ),
            (
                MINIMAL.replace("\"kill_broker\"", "\"explode_broker\""),
                "commands[1]",
            ),
            (MINIMAL.replace("\"seed\": 1,", ""), ""),
            (
                MINIMAL.replace("\"producer\": \"p\",", "\"producer\": \"q\","),
                "commands[0].producer",
            ),
            (
                MINIMAL.replace("\"first\", \"partitions\"", "\"fi rst\", \"partitions\""),
                "topics[0].name",
            ),
            (
                MINIMAL.replace(
                    "{\"brokers\"",
                    "{\"config\": {\"min.insync.replica\": 2}, \"brokers\"",
                ),
                "cluster.config",
            ),
        ];
        for (text, field) in cases {
            let e = Scenario::from_json(&text).unwrap_err();
            assert!(e.field.starts_with(field), "expected {field}, got {e}");
            assert!(!e.message.is_empty());
        }
        let e = Scenario::from_json("{not json").unwrap_err();
        assert!(e.message.contains("line 1"), "{e}");
    }

    #[test]
    fn errors_name_the_field_wherever_it_is() {
        let cases = [
            // A command that is not the last one, and the last one.
            (
                MINIMAL.replace(
                    "\"producer\": \"p\",",
                    "\"producer\": \"p\", \"count\": \"x\",",
                ),
                "commands[0]",
                "invalid type: string \"x\", expected u32",
            ),
            (
                MINIMAL.replace("\"broker\": 1}", "\"broker\": \"one\"}"),
                "commands[1]",
                "invalid type: string \"one\", expected i32",
            ),
            (
                MINIMAL.replace("{\"at_ms\": 200, ", "{"),
                "commands[1]",
                "missing field `at_ms`",
            ),
            (
                MINIMAL.replace(
                    "[{\"name\": \"p\"}]",
                    "[{\"name\": \"p\", \"acks\": \"most\"}]",
                ),
                "producers[0].acks",
                "acks",
            ),
            (
                MINIMAL.replace("\"partitions\": 1,", "\"partitions\": 1.5,"),
                "topics[0].partitions",
                "invalid type: floating point",
            ),
            (
                MINIMAL.replace("\"name\": \"first\", ", ""),
                "topics[0]",
                "missing field `name`",
            ),
            (
                MINIMAL.replace("\"seed\": 1,", "\"seed\": 1, \"sed\": 2,"),
                "sed",
                "unknown field `sed`",
            ),
        ];
        for (text, field, message) in cases {
            let e = Scenario::from_json(&text).unwrap_err();
            assert_eq!(e.field, field, "{e}");
            assert!(e.message.contains(message), "{e}");
            assert!(e.message.contains(" at line "), "the position is kept: {e}");
        }
    }

    #[test]
    fn unknown_command_fields_are_refused() {
        let t = MINIMAL.replace("\"broker\": 1}", "\"broker\": 1, \"brokr\": 2}");
        let e = Scenario::from_json(&t).unwrap_err();
        assert!(e.to_string().contains("brokr"), "{e}");
    }
}
