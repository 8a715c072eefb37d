//! Producer and consumer configuration, under Kafka's names and with the
//! defaults of the Kafka 3.9 clients.
//!
//! Defaults that changed across versions and matter in lessons: since 3.0 a
//! producer has `acks=all` and `enable.idempotence=true` (before: `acks=1`,
//! no idempotence); `linger.ms` is 0 in 3.x (4.0 made it 5); consumers use
//! `[RangeAssignor, CooperativeStickyAssignor]` and `session.timeout.ms`
//! 45000 (3.0+; 10000 before).

use crate::config::ConfigError;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// `acks` as a producer configures it: `0`, `1` or `all`.
pub fn acks_name(acks: i16) -> &'static str {
    match acks {
        0 => "0",
        1 => "1",
        _ => "all",
    }
}

/// `acks`: 0, 1 or all (-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Acks(pub i16);

impl Acks {
    /// `acks=all` (-1): the whole ISR.
    pub const ALL: Acks = Acks(-1);
}

impl fmt::Display for Acks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(acks_name(self.0))
    }
}

impl Serialize for Acks {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(acks_name(self.0))
    }
}

impl<'de> Deserialize<'de> for Acks {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        let s = match &v {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            _ => String::new(),
        };
        match s.as_str() {
            "0" => Ok(Acks(0)),
            "1" => Ok(Acks(1)),
            "all" | "-1" => Ok(Acks(-1)),
            _ => Err(serde::de::Error::custom(format!(
                "{v} is not a value of acks (expected 0, 1, all or -1)"
            ))),
        }
    }
}

/// Which partitioner the producer uses (`partitioner.class`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PartitionerClass {
    /// Unset: Kafka's built-in logic (explicit partition, else murmur2 of the
    /// key, else the sticky partition; KIP-794).
    #[serde(rename = "default")]
    BuiltIn,
    /// `RoundRobinPartitioner`: every record to the next partition in turn.
    #[serde(rename = "org.apache.kafka.clients.producer.RoundRobinPartitioner")]
    RoundRobin,
}

macro_rules! d {
    ($($name:ident: $t:ty = $v:expr;)*) => { $(fn $name() -> $t { $v })* };
}

d! {
    d_acks: Acks = Acks::ALL;
    d_true: bool = true;
    d_false: bool = false;
    d_linger: u64 = 0;
    d_batch: u64 = 16_384;
    d_buffer: u64 = 33_554_432;
    d_max_block: u64 = 60_000;
    d_inflight: u32 = 5;
    d_retries: u32 = 2_147_483_647;
    d_backoff: u64 = 100;
    d_backoff_max: u64 = 1000;
    d_reconnect: u64 = 50;
    d_reconnect_max: u64 = 1000;
    d_request_timeout: u64 = 30_000;
    d_txn_timeout: u64 = 60_000;
    d_partitioner: PartitionerClass = PartitionerClass::BuiltIn;
    d_metadata_age: u64 = 300_000;
    d_strategies: Vec<AssignorName> = vec![AssignorName::Range, AssignorName::CooperativeSticky];
    d_auto_commit_interval: u64 = 5000;
    d_reset: AutoOffsetReset = AutoOffsetReset::Latest;
    d_session: u64 = 45_000;
    d_heartbeat: u64 = 3000;
    d_max_poll_interval: u64 = 300_000;
    d_max_poll_records: u32 = 500;
    d_fetch_min: u64 = 1;
    d_fetch_wait: u64 = 500;
    d_fetch_max: u64 = 52_428_800;
    d_partition_fetch_max: u64 = 1_048_576;
    d_poll_interval: u64 = 100;
    d_string_serializer: String = "org.apache.kafka.common.serialization.StringSerializer".into();
    d_compression: String = "none".into();
}

/// The clients' backoffs (`retry.backoff.ms`, `retry.backoff.max.ms`,
/// `reconnect.backoff.ms`, `reconnect.backoff.max.ms`): Java longs, at least 0.
fn backoffs(
    retry: u64,
    retry_max: u64,
    reconnect: u64,
    reconnect_max: u64,
) -> [crate::config::Range<'static>; 4] {
    use crate::config::{kafka, JAVA_LONG_MAX};
    [
        kafka("retry.backoff.ms", retry, 0, JAVA_LONG_MAX),
        kafka("retry.backoff.max.ms", retry_max, 0, JAVA_LONG_MAX),
        kafka("reconnect.backoff.ms", reconnect, 0, JAVA_LONG_MAX),
        kafka("reconnect.backoff.max.ms", reconnect_max, 0, JAVA_LONG_MAX),
    ]
}

/// The producer's configuration (`ProducerConfig`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProducerConfig {
    /// `client.id`: an id for the client's requests and logs (default `producer-<n>` / `consumer-<group>-<n>`).
    #[serde(rename = "client.id", default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// `acks`: how many replicas must have a record before the leader answers: `0` none, `1` the leader, `all` the ISR.
    #[serde(default = "d_acks")]
    pub acks: Acks,
    /// `enable.idempotence` as the scenario set it; unset, Kafka's default
    /// (true) holds unless another setting rules it out: see
    /// [`ProducerConfig::idempotence`].
    #[serde(
        rename = "enable.idempotence",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub enable_idempotence: Option<bool>,
    /// `linger.ms`: how long a batch may wait for more records before it is sent.
    #[serde(rename = "linger.ms", default = "d_linger")]
    pub linger_ms: u64,
    /// `batch.size`: the most bytes of one batch per partition.
    #[serde(rename = "batch.size", default = "d_batch")]
    pub batch_size: u64,
    /// `buffer.memory`: the bytes the producer may hold unsent; `send()` blocks when it is full.
    #[serde(rename = "buffer.memory", default = "d_buffer")]
    pub buffer_memory: u64,
    /// `max.block.ms`: how long `send()` may block for metadata or buffer space.
    #[serde(rename = "max.block.ms", default = "d_max_block")]
    pub max_block_ms: u64,
    /// `max.in.flight.requests.per.connection`: unanswered requests per broker connection.
    #[serde(
        rename = "max.in.flight.requests.per.connection",
        default = "d_inflight"
    )]
    pub max_in_flight_requests_per_connection: u32,
    /// `retries`: how many times a failed batch is sent again (within `delivery.timeout.ms`).
    #[serde(default = "d_retries")]
    pub retries: u32,
    /// `retry.backoff.ms`: the wait before a retry, doubling up to `retry.backoff.max.ms`.
    #[serde(rename = "retry.backoff.ms", default = "d_backoff")]
    pub retry_backoff_ms: u64,
    /// `retry.backoff.max.ms`: the longest wait before a retry.
    #[serde(rename = "retry.backoff.max.ms", default = "d_backoff_max")]
    pub retry_backoff_max_ms: u64,
    /// `reconnect.backoff.ms`: the wait before connecting to a broker again, doubling up to `reconnect.backoff.max.ms`.
    #[serde(rename = "reconnect.backoff.ms", default = "d_reconnect")]
    pub reconnect_backoff_ms: u64,
    /// `reconnect.backoff.max.ms`: the longest wait before connecting again.
    #[serde(rename = "reconnect.backoff.max.ms", default = "d_reconnect_max")]
    pub reconnect_backoff_max_ms: u64,
    /// `delivery.timeout.ms` as the scenario set it; unset, Kafka's default
    /// (120000) raised to `linger.ms + request.timeout.ms` if that is
    /// larger: see [`ProducerConfig::delivery_timeout`].
    #[serde(
        rename = "delivery.timeout.ms",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub delivery_timeout_ms: Option<u64>,
    /// `request.timeout.ms`: how long the client waits for an answer before it gives the request up.
    #[serde(rename = "request.timeout.ms", default = "d_request_timeout")]
    pub request_timeout_ms: u64,
    /// `partitioner.class`: how a record without a partition gets one.
    #[serde(rename = "partitioner.class", default = "d_partitioner")]
    pub partitioner_class: PartitionerClass,
    /// `partitioner.ignore.keys`: whether keyed records use the sticky partition too.
    #[serde(rename = "partitioner.ignore.keys", default = "d_false")]
    pub partitioner_ignore_keys: bool,
    /// `metadata.max.age.ms`: metadata is refreshed at least this often.
    #[serde(rename = "metadata.max.age.ms", default = "d_metadata_age")]
    pub metadata_max_age_ms: u64,
    /// `key.serializer`: the class that turns keys into bytes.
    #[serde(rename = "key.serializer", default = "d_string_serializer")]
    pub key_serializer: String,
    /// `value.serializer`: the class that turns values into bytes.
    #[serde(rename = "value.serializer", default = "d_string_serializer")]
    pub value_serializer: String,
    /// Only `none`: the simulation does not compress.
    #[serde(rename = "compression.type", default = "d_compression")]
    pub compression_type: String,
    /// `transactional.id`: makes the producer transactional (exactly-once,
    /// KIP-98); it must be unique among the application's producers.
    #[serde(
        rename = "transactional.id",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub transactional_id: Option<String>,
    /// `transaction.timeout.ms`: the coordinator aborts a transaction open longer than this.
    #[serde(rename = "transaction.timeout.ms", default = "d_txn_timeout")]
    pub transaction_timeout_ms: u64,
    /// Interceptors the lesson installs, by name (see `producer.rs`).
    #[serde(
        rename = "interceptor.classes",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub interceptor_classes: Vec<String>,
}

impl Default for ProducerConfig {
    fn default() -> Self {
        crate::config::defaults()
    }
}

/// `delivery.timeout.ms`'s default.
const DEFAULT_DELIVERY_TIMEOUT_MS: u64 = 120_000;

impl ProducerConfig {
    /// Whether the producer is idempotent, as Kafka 3.9 decides
    /// (`ProducerConfig.postProcessAndValidateIdempotenceConfigs`): an
    /// explicit `enable.idempotence` holds (and `validate` refuses the
    /// settings it conflicts with); left at its default, idempotence is
    /// quietly turned off by `acks` other than `all`, `retries=0`, or more
    /// than 5 requests in flight per connection.
    pub fn idempotence(&self) -> bool {
        match self.enable_idempotence {
            Some(explicit) => explicit,
            None => {
                self.acks == Acks::ALL
                    && self.retries > 0
                    && self.max_in_flight_requests_per_connection <= 5
            }
        }
    }

    /// `delivery.timeout.ms` in force (`KafkaProducer.configureDeliveryTimeout`):
    /// an explicit value holds (and must be at least `linger.ms +
    /// request.timeout.ms`); the default is raised to that sum when it is
    /// smaller.
    pub fn delivery_timeout(&self) -> u64 {
        match self.delivery_timeout_ms {
            Some(explicit) => explicit,
            None => DEFAULT_DELIVERY_TIMEOUT_MS.max(self.linger_and_request_timeout()),
        }
    }

    /// `linger.ms + request.timeout.ms`, capped at a Java int as Kafka does.
    fn linger_and_request_timeout(&self) -> u64 {
        self.linger_ms
            .saturating_add(self.request_timeout_ms)
            .min(crate::config::JAVA_INT_MAX)
    }

    /// Kafka's own checks (`ProducerConfig.postProcessAndValidateIdempotenceConfigs`
    /// and friends), with the key named.
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        use crate::config::{
            check_ranges, interval, kafka, request_timeout, JAVA_INT_MAX, JAVA_LONG_MAX,
        };
        let (int, long) = (JAVA_INT_MAX, JAVA_LONG_MAX);
        check_ranges(
            at,
            &[
                kafka("linger.ms", self.linger_ms, 0, long),
                kafka("batch.size", self.batch_size, 0, int),
                kafka("buffer.memory", self.buffer_memory, 0, long),
                kafka("max.block.ms", self.max_block_ms, 0, long),
                kafka(
                    "transaction.timeout.ms",
                    self.transaction_timeout_ms,
                    1,
                    int,
                ),
                kafka("retries", self.retries as u64, 0, int),
                kafka("delivery.timeout.ms", self.delivery_timeout(), 0, int),
                request_timeout(self.request_timeout_ms),
                interval("metadata.max.age.ms", self.metadata_max_age_ms, long),
                kafka(
                    "max.in.flight.requests.per.connection",
                    self.max_in_flight_requests_per_connection as u64,
                    1,
                    int,
                ),
            ],
        )?;
        check_ranges(
            at,
            &backoffs(
                self.retry_backoff_ms,
                self.retry_backoff_max_ms,
                self.reconnect_backoff_ms,
                self.reconnect_backoff_max_ms,
            ),
        )?;
        let f = |k: &str| format!("{at}.{k}");
        if self.batch_size == 0 {
            return Err(ConfigError::new(f("batch.size"), "must be positive"));
        }
        if self.buffer_memory < self.batch_size {
            return Err(ConfigError::new(
                f("buffer.memory"),
                "must be at least batch.size (a batch has to fit in the buffer)",
            ));
        }
        // Only an explicit enable.idempotence=true conflicts; at its default
        // these settings turn idempotence off (see `idempotence`).
        if self.enable_idempotence == Some(true) {
            if self.max_in_flight_requests_per_connection > 5 {
                return Err(ConfigError::new(
                    f("max.in.flight.requests.per.connection"),
                    "must be at most 5 to use the idempotent producer (Kafka keeps the last 5 batches per producer)",
                ));
            }
            if self.acks != Acks::ALL {
                return Err(ConfigError::new(
                    f("acks"),
                    "must be all in order to use the idempotent producer (set enable.idempotence=false to use acks=0 or 1)",
                ));
            }
            if self.retries == 0 {
                return Err(ConfigError::new(
                    f("retries"),
                    "must be greater than 0 to use the idempotent producer",
                ));
            }
        }
        if self.transactional_id.is_some() && !self.idempotence() {
            // ProducerConfig.postProcessAndValidateIdempotenceConfigs.
            return Err(ConfigError::new(
                f("transactional.id"),
                "Cannot set a transactional.id without also enabling idempotence (enable.idempotence=true, acks=all, retries > 0, at most 5 in flight)",
            ));
        }
        if self.transactional_id.as_deref() == Some("") {
            return Err(ConfigError::new(
                f("transactional.id"),
                "must not be empty (leave it out for a non-transactional producer)",
            ));
        }
        if self
            .delivery_timeout_ms
            .is_some_and(|d| d < self.linger_and_request_timeout())
        {
            return Err(ConfigError::new(
                f("delivery.timeout.ms"),
                "should be equal to or larger than linger.ms + request.timeout.ms",
            ));
        }
        if self.compression_type != "none" {
            return Err(ConfigError::new(
                f("compression.type"),
                "the simulation does not compress: only none is supported",
            ));
        }
        for s in [&self.key_serializer, &self.value_serializer] {
            if s != "org.apache.kafka.common.serialization.StringSerializer" {
                return Err(ConfigError::new(
                    f("key.serializer"),
                    "only org.apache.kafka.common.serialization.StringSerializer is simulated",
                ));
            }
        }
        Ok(())
    }
}

/// An assignor in `partition.assignment.strategy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum AssignorName {
    /// `RangeAssignor`: per topic, consecutive partitions to each member.
    Range,
    /// `RoundRobinAssignor`: every partition in turn over the members.
    RoundRobin,
    /// `StickyAssignor`: balanced, keeping as much of the last assignment as it can.
    Sticky,
    /// `CooperativeStickyAssignor`: sticky, with incremental (cooperative) rebalances.
    CooperativeSticky,
}

impl AssignorName {
    /// The protocol name the assignor registers with the group coordinator.
    pub fn protocol_name(self) -> &'static str {
        match self {
            AssignorName::Range => "range",
            AssignorName::RoundRobin => "roundrobin",
            AssignorName::Sticky => "sticky",
            AssignorName::CooperativeSticky => "cooperative-sticky",
        }
    }
    /// The assignor's Java class name.
    pub fn class_name(self) -> &'static str {
        match self {
            AssignorName::Range => "org.apache.kafka.clients.consumer.RangeAssignor",
            AssignorName::RoundRobin => "org.apache.kafka.clients.consumer.RoundRobinAssignor",
            AssignorName::Sticky => "org.apache.kafka.clients.consumer.StickyAssignor",
            AssignorName::CooperativeSticky => {
                "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"
            }
        }
    }
    /// The assignor named by its class name or its protocol name (`range`, …).
    pub fn parse(s: &str) -> Option<AssignorName> {
        [
            AssignorName::Range,
            AssignorName::RoundRobin,
            AssignorName::Sticky,
            AssignorName::CooperativeSticky,
        ]
        .into_iter()
        .find(|a| a.protocol_name() == s || a.class_name() == s)
    }
    /// CooperativeSticky supports the COOPERATIVE protocol; the rest EAGER only.
    pub fn is_cooperative(self) -> bool {
        self == AssignorName::CooperativeSticky
    }
}

impl Serialize for AssignorName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.protocol_name())
    }
}

impl<'de> Deserialize<'de> for AssignorName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        AssignorName::parse(&s).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "`{s}` is not an assignor (expected range, roundrobin, sticky, cooperative-sticky or a Kafka class name)"
            ))
        })
    }
}

/// `auto.offset.reset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AutoOffsetReset {
    /// Start at the high watermark: only new records.
    Latest,
    /// Start at the log start offset: everything kept.
    Earliest,
    /// Fail with `NoOffsetForPartitionException`.
    None,
}

/// `isolation.level`: which records a consumer reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IsolationLevel {
    /// Every record below the high watermark, aborted transactions included
    /// (Kafka's default).
    #[default]
    ReadUncommitted,
    /// Only committed records: fetches stop at the last stable offset and
    /// skip aborted transactions.
    ReadCommitted,
}

impl IsolationLevel {
    /// Kafka's name of the value.
    pub fn name(self) -> &'static str {
        match self {
            IsolationLevel::ReadUncommitted => "read_uncommitted",
            IsolationLevel::ReadCommitted => "read_committed",
        }
    }

    /// Whether this is Kafka's default (left out when written).
    pub fn is_default(&self) -> bool {
        *self == IsolationLevel::ReadUncommitted
    }
}

/// The consumer's configuration (`ConsumerConfig`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsumerConfig {
    /// `client.id`: an id for the client's requests and logs (default `producer-<n>` / `consumer-<group>-<n>`).
    #[serde(rename = "client.id", default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// `group.id`: the consumer group it joins (none: a consumer that assigns itself).
    #[serde(rename = "group.id", default, skip_serializing_if = "Option::is_none")]
    pub group_id: Option<String>,
    /// `group.instance.id`: a static member's id (KIP-345): rejoining under it needs no rebalance.
    #[serde(
        rename = "group.instance.id",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub group_instance_id: Option<String>,
    /// `client.rack`: the rack (availability zone) the consumer runs in
    /// (default empty: none). Sent in its subscription; the rack-aware
    /// Range assignor (KIP-881, Kafka 3.5+) prefers partitions with a
    /// replica on that rack.
    #[serde(
        rename = "client.rack",
        default,
        skip_serializing_if = "String::is_empty"
    )]
    pub client_rack: String,
    /// `group.protocol`: `classic` (the default in 3.9 and 4.1) or
    /// `consumer` (KIP-848, not modelled yet: refused).
    #[serde(
        rename = "group.protocol",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub group_protocol: Option<String>,
    /// `partition.assignment.strategy`: the assignors it supports, in preference order.
    #[serde(rename = "partition.assignment.strategy", default = "d_strategies")]
    pub partition_assignment_strategy: Vec<AssignorName>,
    /// `enable.auto.commit`: whether positions are committed every `auto.commit.interval.ms`.
    #[serde(rename = "enable.auto.commit", default = "d_true")]
    pub enable_auto_commit: bool,
    /// `auto.commit.interval.ms`: how often positions are committed automatically.
    #[serde(rename = "auto.commit.interval.ms", default = "d_auto_commit_interval")]
    pub auto_commit_interval_ms: u64,
    /// `auto.offset.reset`: where to start when there is no committed offset.
    #[serde(rename = "auto.offset.reset", default = "d_reset")]
    pub auto_offset_reset: AutoOffsetReset,
    /// `isolation.level`: `read_uncommitted` (default) or `read_committed`
    /// (only committed transactional records, up to the last stable offset).
    #[serde(
        rename = "isolation.level",
        default,
        skip_serializing_if = "IsolationLevel::is_default"
    )]
    pub isolation_level: IsolationLevel,
    /// `session.timeout.ms`: the coordinator removes a member silent for this long.
    #[serde(rename = "session.timeout.ms", default = "d_session")]
    pub session_timeout_ms: u64,
    /// `heartbeat.interval.ms`: how often the member sends a heartbeat.
    #[serde(rename = "heartbeat.interval.ms", default = "d_heartbeat")]
    pub heartbeat_interval_ms: u64,
    /// `max.poll.interval.ms`: the longest time between two `poll()` calls before the member leaves the group (also its rebalance timeout).
    #[serde(rename = "max.poll.interval.ms", default = "d_max_poll_interval")]
    pub max_poll_interval_ms: u64,
    /// `max.poll.records`: the most records one `poll()` returns.
    #[serde(rename = "max.poll.records", default = "d_max_poll_records")]
    pub max_poll_records: u32,
    /// `fetch.min.bytes`: the broker holds a fetch until this many bytes are ready (or `fetch.max.wait.ms`).
    #[serde(rename = "fetch.min.bytes", default = "d_fetch_min")]
    pub fetch_min_bytes: u64,
    /// `fetch.max.wait.ms`: the longest the broker holds a fetch.
    #[serde(rename = "fetch.max.wait.ms", default = "d_fetch_wait")]
    pub fetch_max_wait_ms: u64,
    /// `fetch.max.bytes`: the most bytes one fetch response carries.
    #[serde(rename = "fetch.max.bytes", default = "d_fetch_max")]
    pub fetch_max_bytes: u64,
    /// `max.partition.fetch.bytes`: the most bytes per partition in one fetch response.
    #[serde(
        rename = "max.partition.fetch.bytes",
        default = "d_partition_fetch_max"
    )]
    pub max_partition_fetch_bytes: u64,
    /// `retry.backoff.ms`: the wait before a retry, doubling up to `retry.backoff.max.ms`.
    #[serde(rename = "retry.backoff.ms", default = "d_backoff")]
    pub retry_backoff_ms: u64,
    /// `retry.backoff.max.ms`: the longest wait before a retry.
    #[serde(rename = "retry.backoff.max.ms", default = "d_backoff_max")]
    pub retry_backoff_max_ms: u64,
    /// `reconnect.backoff.ms`: the wait before connecting to a broker again, doubling up to `reconnect.backoff.max.ms`.
    #[serde(rename = "reconnect.backoff.ms", default = "d_reconnect")]
    pub reconnect_backoff_ms: u64,
    /// `reconnect.backoff.max.ms`: the longest wait before connecting again.
    #[serde(rename = "reconnect.backoff.max.ms", default = "d_reconnect_max")]
    pub reconnect_backoff_max_ms: u64,
    /// `request.timeout.ms`: how long the client waits for an answer before it gives the request up.
    #[serde(rename = "request.timeout.ms", default = "d_request_timeout")]
    pub request_timeout_ms: u64,
    /// `metadata.max.age.ms`: metadata is refreshed at least this often.
    #[serde(rename = "metadata.max.age.ms", default = "d_metadata_age")]
    pub metadata_max_age_ms: u64,
    /// The simulation's own: how often the application calls `poll()`.
    #[serde(default = "d_poll_interval")]
    pub poll_interval_ms: u64,
    /// The simulation's own: how long the application takes per poll's records.
    #[serde(default)]
    pub processing_ms: u64,
}

impl Default for ConsumerConfig {
    fn default() -> Self {
        crate::config::defaults()
    }
}

impl ConsumerConfig {
    /// Kafka's own checks (`ConsumerConfig` and the group rules), with the key named.
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        use crate::config::{
            check_ranges, interval, kafka, request_timeout, JAVA_INT_MAX, JAVA_LONG_MAX,
        };
        let (int, long) = (JAVA_INT_MAX, JAVA_LONG_MAX);
        check_ranges(
            at,
            &[
                interval("heartbeat.interval.ms", self.heartbeat_interval_ms, int),
                kafka("session.timeout.ms", self.session_timeout_ms, 0, int),
                kafka("max.poll.interval.ms", self.max_poll_interval_ms, 1, int),
                interval("auto.commit.interval.ms", self.auto_commit_interval_ms, int),
                kafka("max.poll.records", self.max_poll_records as u64, 1, int),
                kafka("fetch.min.bytes", self.fetch_min_bytes, 0, int),
                kafka("fetch.max.wait.ms", self.fetch_max_wait_ms, 0, int),
                kafka("fetch.max.bytes", self.fetch_max_bytes, 0, int),
                kafka(
                    "max.partition.fetch.bytes",
                    self.max_partition_fetch_bytes,
                    0,
                    int,
                ),
                request_timeout(self.request_timeout_ms),
                interval("metadata.max.age.ms", self.metadata_max_age_ms, long),
                interval("poll_interval_ms", self.poll_interval_ms, long),
                kafka("processing_ms", self.processing_ms, 0, long),
            ],
        )?;
        check_ranges(
            at,
            &backoffs(
                self.retry_backoff_ms,
                self.retry_backoff_max_ms,
                self.reconnect_backoff_ms,
                self.reconnect_backoff_max_ms,
            ),
        )?;
        let f = |k: &str| format!("{at}.{k}");
        if let Some(g) = &self.group_id {
            if g.is_empty() {
                // Kafka: an empty group.id is refused by the group APIs
                // (InvalidGroupIdException) since 2.2 (KIP-289).
                return Err(ConfigError::new(
                    f("group.id"),
                    "must not be empty (Kafka refuses an empty group.id: InvalidGroupIdException)",
                ));
            }
        }
        if let Some(p) = &self.group_protocol {
            // ConsumerConfig's validator: the names of GroupProtocol,
            // case-insensitive.
            if p.eq_ignore_ascii_case("consumer") {
                return Err(ConfigError::new(
                    f("group.protocol"),
                    "consumer (the consumer group protocol of KIP-848) is not modelled yet: consumers run the classic protocol, the default in Kafka 3.9 and 4.1 (kafka-sim assign --strategy uniform|server-range shows the broker's assignors)",
                ));
            }
            if !p.eq_ignore_ascii_case("classic") {
                return Err(ConfigError::new(
                    f("group.protocol"),
                    format!("`{p}` is not a group protocol (classic or consumer)"),
                ));
            }
        }
        if self.partition_assignment_strategy.is_empty() {
            return Err(ConfigError::new(
                f("partition.assignment.strategy"),
                "must name at least one assignor",
            ));
        }
        if self.heartbeat_interval_ms >= self.session_timeout_ms {
            return Err(ConfigError::new(
                f("heartbeat.interval.ms"),
                "must be lower than session.timeout.ms",
            ));
        }
        if self.group_instance_id.is_some() && self.group_id.is_none() {
            return Err(ConfigError::new(
                f("group.instance.id"),
                "needs a group.id (static membership is a group feature)",
            ));
        }
        if !self.client_rack.is_empty() && !crate::scenario::rack_is_valid(&self.client_rack) {
            return Err(ConfigError::new(
                f("client.rack"),
                "a rack name is 1 to 255 characters, none of them a control character",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn producer_defaults_follow_kafka_3_9() {
        let p = ProducerConfig::default();
        assert_eq!(p.acks, Acks::ALL);
        assert!(p.idempotence());
        assert_eq!(p.linger_ms, 0);
        assert_eq!(p.batch_size, 16_384);
        assert_eq!(p.buffer_memory, 32 * 1024 * 1024);
        assert_eq!(p.max_in_flight_requests_per_connection, 5);
        assert_eq!(p.delivery_timeout(), 120_000);
        p.validate("producers[0].config").unwrap();
    }

    /// `group.protocol`: classic runs (any case), consumer is refused by
    /// name until KIP-848's protocol is modelled, anything else named.
    #[test]
    fn group_protocol_classic_runs_and_consumer_is_refused_by_name() {
        let c = |v: &str| {
            let cfg: ConsumerConfig =
                serde_json::from_str(&format!(r#"{{"group.id": "g", "group.protocol": "{v}"}}"#))
                    .unwrap();
            cfg.validate("consumers[0].config")
                .map_err(|e| e.to_string())
        };
        assert!(c("classic").is_ok() && c("CLASSIC").is_ok());
        assert!(c("consumer")
            .unwrap_err()
            .contains("KIP-848) is not modelled yet"));
        assert!(c("eager")
            .unwrap_err()
            .contains("`eager` is not a group protocol"));
    }

    #[test]
    fn acks_accepts_kafkas_spellings() {
        for (s, v) in [
            ("\"all\"", -1),
            ("-1", -1),
            ("\"-1\"", -1),
            ("0", 0),
            ("\"1\"", 1),
        ] {
            assert_eq!(serde_json::from_str::<Acks>(s).unwrap(), Acks(v), "{s}");
        }
        assert!(serde_json::from_str::<Acks>("2").is_err());
    }

    #[test]
    fn explicit_idempotence_needs_acks_all() {
        let p: ProducerConfig =
            serde_json::from_str(r#"{"acks": 1, "enable.idempotence": true}"#).unwrap();
        assert_eq!(
            p.validate("producers[0].config").unwrap_err().field,
            "producers[0].config.acks"
        );
        let p: ProducerConfig =
            serde_json::from_str(r#"{"acks": 1, "enable.idempotence": false}"#).unwrap();
        p.validate("p").unwrap();
    }

    #[test]
    fn consumer_defaults_and_assignor_names() {
        let c = ConsumerConfig::default();
        assert_eq!(
            c.partition_assignment_strategy,
            vec![AssignorName::Range, AssignorName::CooperativeSticky]
        );
        assert_eq!(c.session_timeout_ms, 45_000);
        assert_eq!(c.auto_offset_reset, AutoOffsetReset::Latest);
        let c: ConsumerConfig = serde_json::from_str(
            r#"{"partition.assignment.strategy": ["org.apache.kafka.clients.consumer.StickyAssignor"]}"#,
        )
        .unwrap();
        assert_eq!(c.partition_assignment_strategy, vec![AssignorName::Sticky]);
    }

    fn producer(json: &str) -> Result<ProducerConfig, ConfigError> {
        let p: ProducerConfig = serde_json::from_str(json).unwrap();
        p.validate("p").map(|_| p)
    }

    /// Kafka 3.9 `ProducerConfig.postProcessAndValidateIdempotenceConfigs`:
    /// at its default, idempotence gives way to acks=1, retries=0 or more
    /// than 5 in flight; set explicitly, it conflicts with each of them.
    #[test]
    fn idempotence_at_its_default_gives_way_and_set_explicitly_conflicts() {
        for other in [
            r#""acks": "1""#,
            r#""acks": "0""#,
            r#""retries": 0"#,
            r#""max.in.flight.requests.per.connection": 6"#,
        ] {
            let p = producer(&format!("{{{other}}}")).expect(other);
            assert!(!p.idempotence(), "{other} turns default idempotence off");
            let explicit = producer(&format!(r#"{{"enable.idempotence": true, {other}}}"#));
            assert!(explicit.is_err(), "{other} with enable.idempotence=true");
        }
        assert!(producer("{}").unwrap().idempotence());
        let off = producer(r#"{"enable.idempotence": false, "acks": "1"}"#).unwrap();
        assert!(!off.idempotence());
    }

    /// `KafkaProducer.configureDeliveryTimeout`: the default rises to
    /// linger.ms + request.timeout.ms; an explicit smaller value is refused.
    #[test]
    fn delivery_timeout_default_rises_to_linger_plus_request_timeout() {
        let p = producer(r#"{"linger.ms": 100000, "request.timeout.ms": 30000}"#).unwrap();
        assert_eq!(p.delivery_timeout(), 130_000);
        let e = producer(
            r#"{"linger.ms": 100000, "request.timeout.ms": 30000, "delivery.timeout.ms": 120000}"#,
        )
        .unwrap_err();
        assert!(e.to_string().contains("delivery.timeout.ms"), "{e}");
        assert_eq!(producer("{}").unwrap().delivery_timeout(), 120_000);
    }
}
