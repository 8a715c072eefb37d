//! Configuration, under Kafka's own names and with Kafka's own defaults.
//!
//! The simulation follows **Apache Kafka 3.9**, the last release line whose
//! controller runs on ZooKeeper (the controller design the source notes
//! describe). Every knob a scenario can set is spelled exactly as in Kafka's
//! documentation (`min.insync.replicas`, `replica.lag.time.max.ms`, ...), so a
//! learner can look it up; knobs that belong to the simulation itself rather
//! than to Kafka (link latency, say) use `snake_case` so the two never mix.
//!
//! Ratios that Kafka keeps as a `double` (`min.cleanable.dirty.ratio`) are held
//! as parts per million: the engine uses no floating point, so a trace cannot
//! differ between platforms.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

mod validate;

/// A configuration or scenario problem, with the field it concerns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigError {
    /// Where the problem is, as a path into the scenario (`topics[0].replication.factor`).
    pub field: String,
    /// Why, in a sentence a person understands.
    pub message: String,
}

impl ConfigError {
    /// An error naming `field`, with `message`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

/// A ratio in parts per million (`0.5` is `500_000`). Written in JSON as a
/// decimal number, as in Kafka's properties.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ratio(pub u32);

impl Ratio {
    /// A ratio of 1 (one million parts per million).
    pub const ONE: u32 = 1_000_000;
}

impl Serialize for Ratio {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let whole = self.0 / Ratio::ONE;
        let frac = self.0 % Ratio::ONE;
        let text = if frac == 0 {
            format!("{whole}.0")
        } else {
            let f = format!("{frac:06}");
            format!("{whole}.{}", f.trim_end_matches('0'))
        };
        let n: serde_json::Number = text.parse().map_err(serde::ser::Error::custom)?;
        n.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Ratio {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = serde_json::Number::deserialize(d)?;
        // Parse the decimal text ourselves: exact, and no float rounding.
        let text = plain_decimal(&n.to_string());
        parse_ratio(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "{text} is not a ratio between 0 and 1 with at most 6 decimals"
            ))
        })
    }
}

/// `1e-6` → `0.000001`, `2.5E1` → `25`: serde_json writes small and large
/// floats in exponent form; the ratio is read from plain decimal text.
fn plain_decimal(text: &str) -> String {
    let Some((mantissa, exp)) = text.split_once(['e', 'E']) else {
        return text.to_string();
    };
    let Ok(exp) = exp.parse::<i32>() else {
        return text.to_string();
    };
    if !(-30..=30).contains(&exp) {
        return text.to_string();
    }
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    let point = int.len() as i32 + exp;
    if point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        format!(
            "{}.{}",
            &digits[..point as usize],
            &digits[point as usize..]
        )
    }
}

fn parse_ratio(text: &str) -> Option<Ratio> {
    let (whole, frac) = match text.split_once('.') {
        Some((w, f)) => (w, f),
        None => (text, ""),
    };
    if frac.len() > 6 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: u32 = whole.parse().ok()?;
    let mut f = frac.to_string();
    while f.len() < 6 {
        f.push('0');
    }
    let frac: u32 = f.parse().ok()?;
    let v = whole.checked_mul(Ratio::ONE)?.checked_add(frac)?;
    (v <= Ratio::ONE).then_some(Ratio(v))
}

/// `cleanup.policy`: `delete`, `compact`, or both (`compact,delete`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CleanupPolicy {
    /// Whether old segments are deleted by retention.
    pub delete: bool,
    /// Whether the log is compacted.
    pub compact: bool,
}

impl CleanupPolicy {
    /// `delete`.
    pub const DELETE: CleanupPolicy = CleanupPolicy {
        delete: true,
        compact: false,
    };
    /// `compact`.
    pub const COMPACT: CleanupPolicy = CleanupPolicy {
        delete: false,
        compact: true,
    };
}

impl fmt::Display for CleanupPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.compact, self.delete) {
            (true, true) => write!(f, "compact,delete"),
            (true, false) => write!(f, "compact"),
            (false, true) => write!(f, "delete"),
            (false, false) => write!(f, ""),
        }
    }
}

impl Serialize for CleanupPolicy {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for CleanupPolicy {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let mut p = CleanupPolicy {
            delete: false,
            compact: false,
        };
        for part in s.split(',').map(str::trim) {
            match part {
                "delete" => p.delete = true,
                "compact" => p.compact = true,
                other => {
                    return Err(serde::de::Error::custom(format!(
                        "`{other}` is not a cleanup.policy (expected delete, compact or compact,delete)"
                    )))
                }
            }
        }
        if !p.delete && !p.compact {
            return Err(serde::de::Error::custom(
                "cleanup.policy is empty (expected delete, compact or compact,delete)",
            ));
        }
        Ok(p)
    }
}

/// Whether `v` is older than inter-broker protocol 0.11.0, the first with
/// record format v2 (`MetadataVersion.highestSupportedRecordVersion`: V0
/// below 0.10.0, V1 below 0.11.0). Assumes [`ibp_is_known`].
pub fn ibp_before_record_v2(v: &str) -> bool {
    let base = v.split('-').next().unwrap_or("");
    let mut parts = base.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    major == 0 && minor < 11
}

/// Whether `v` names a Kafka release (`0.10.2`, `0.11.0-IV2`, `2.8`, `3.9`):
/// `inter.broker.protocol.version`'s values (`MetadataVersion`).
pub fn ibp_is_known(v: &str) -> bool {
    let base = v.split('-').next().unwrap_or("");
    let parts: Vec<&str> = base.split('.').collect();
    let num = |s: &str| !s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit());
    match parts.as_slice() {
        [a, b] | [a, b, _] if num(a) && num(b) => {
            let (major, minor): (u32, u32) = (a.parse().unwrap_or(99), b.parse().unwrap_or(99));
            let patch_ok = parts.get(2).is_none_or(|p| num(p));
            patch_ok
                && ((major == 0 && (8..=11).contains(&minor))
                    || ((1..=3).contains(&major) && minor <= 9))
        }
        _ => false,
    }
}

/// `message.timestamp.type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TimestampType {
    /// The producer's timestamp.
    CreateTime,
    /// The broker's clock when it appended.
    LogAppendTime,
}

macro_rules! defaults {
    ($($name:ident: $t:ty = $v:expr;)*) => {
        $(fn $name() -> $t { $v })*
    };
}

defaults! {
    d_segment_bytes: u64 = 1_073_741_824;
    d_segment_index_bytes: u64 = 10_485_760;
    d_index_interval_bytes: u64 = 4096;
    d_retention_bytes: i64 = -1;
    d_cleanup: CleanupPolicy = CleanupPolicy::DELETE;
    d_dirty_ratio: Ratio = Ratio(500_000);
    d_delete_retention_ms: u64 = 86_400_000;
    d_file_delete_delay_ms: u64 = 60_000;
    d_min_compaction_lag_ms: u64 = 0;
    d_ts_type: TimestampType = TimestampType::CreateTime;
    d_one_i32: i32 = 1;
    d_false: bool = false;
    d_true: bool = true;
    d_replica_lag: u64 = 30_000;
    d_fetch_wait: u64 = 500;
    d_fetch_min_bytes: u64 = 1;
    d_fetch_max_bytes: u64 = 1_048_576;
    d_fetch_backoff: u64 = 1000;
    d_hw_checkpoint: u64 = 5000;
    d_imbalance_pct: u32 = 10;
    d_imbalance_interval_s: u64 = 300;
    d_zk_session: u64 = 18_000;
    d_retention_check: u64 = 300_000;
    d_initial_task_delay: u64 = 30_000;
    d_cleaner_backoff: u64 = 15_000;
    d_offsets_partitions: i32 = 50;
    d_offsets_rf: i32 = 3;
    d_offsets_segment_bytes: u64 = 104_857_600;
    d_txn_partitions: i32 = 50;
    d_txn_rf: i32 = 3;
    d_txn_min_isr: i32 = 2;
    d_txn_segment_bytes: u64 = 104_857_600;
    d_txn_max_timeout: u64 = 900_000;
    d_txn_abort_interval: u64 = 10_000;
    d_initial_rebalance_delay: u64 = 3000;
    d_min_session: u64 = 6000;
    d_max_session: u64 = 1_800_000;
    d_ibp: String = "3.9".to_string();
    d_request_timeout: u64 = 30_000;
    d_shutdown_retries: u32 = 3;
    d_shutdown_backoff: u64 = 5000;
}

/// Per-topic log settings (`segment.bytes`, `retention.ms`, ...). Unset keys
/// take the broker's `log.*` defaults, as in Kafka.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopicConfigOverrides {
    /// `cleanup.policy` for this topic (unset: the broker's default).
    #[serde(
        rename = "cleanup.policy",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub cleanup_policy: Option<CleanupPolicy>,
    /// `segment.bytes` for this topic (unset: the broker's default).
    #[serde(
        rename = "segment.bytes",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub segment_bytes: Option<u64>,
    /// `segment.ms` for this topic (unset: the broker's default).
    #[serde(
        rename = "segment.ms",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub segment_ms: Option<u64>,
    /// `segment.index.bytes` for this topic (unset: the broker's default).
    #[serde(
        rename = "segment.index.bytes",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub segment_index_bytes: Option<u64>,
    /// `index.interval.bytes` for this topic (unset: the broker's default).
    #[serde(
        rename = "index.interval.bytes",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub index_interval_bytes: Option<u64>,
    /// `retention.ms` for this topic (unset: the broker's default).
    #[serde(
        rename = "retention.ms",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub retention_ms: Option<i64>,
    /// `retention.bytes` for this topic (unset: the broker's default).
    #[serde(
        rename = "retention.bytes",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub retention_bytes: Option<i64>,
    /// `min.insync.replicas` for this topic (unset: the broker's default).
    #[serde(
        rename = "min.insync.replicas",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub min_insync_replicas: Option<i32>,
    /// `unclean.leader.election.enable` for this topic (unset: the broker's default).
    #[serde(
        rename = "unclean.leader.election.enable",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub unclean_leader_election_enable: Option<bool>,
    /// `min.cleanable.dirty.ratio` for this topic (unset: the broker's default).
    #[serde(
        rename = "min.cleanable.dirty.ratio",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub min_cleanable_dirty_ratio: Option<Ratio>,
    /// `delete.retention.ms` for this topic (unset: the broker's default).
    #[serde(
        rename = "delete.retention.ms",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub delete_retention_ms: Option<u64>,
    /// `file.delete.delay.ms` for this topic (unset: the broker's default).
    #[serde(
        rename = "file.delete.delay.ms",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub file_delete_delay_ms: Option<u64>,
    /// `min.compaction.lag.ms` for this topic (unset: the broker's default).
    #[serde(
        rename = "min.compaction.lag.ms",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub min_compaction_lag_ms: Option<u64>,
    /// `message.timestamp.type` for this topic (unset: the broker's default).
    #[serde(
        rename = "message.timestamp.type",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub message_timestamp_type: Option<TimestampType>,
}

/// The broker's `server.properties`, the subset the simulation acts on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrokerConfig {
    /// `default.replication.factor`: replicas of an auto-created topic, or of one created without a replication factor.
    #[serde(rename = "default.replication.factor", default = "d_one_i32")]
    pub default_replication_factor: i32,
    /// `num.partitions`: partitions of a topic created without a count.
    #[serde(rename = "num.partitions", default = "d_one_i32")]
    pub num_partitions: i32,
    /// `min.insync.replicas`: with acks=all, the fewest in-sync replicas a write needs (at most the replica count, Kafka ≥ 3.7).
    #[serde(rename = "min.insync.replicas", default = "d_one_i32")]
    pub min_insync_replicas: i32,
    /// `unclean.leader.election.enable`: whether a replica outside the ISR may become leader when no ISR member is alive (data loss).
    #[serde(rename = "unclean.leader.election.enable", default = "d_false")]
    pub unclean_leader_election_enable: bool,
    /// `auto.leader.rebalance.enable`: whether the controller moves leadership back to preferred leaders.
    #[serde(rename = "auto.leader.rebalance.enable", default = "d_true")]
    pub auto_leader_rebalance_enable: bool,
    /// `leader.imbalance.per.broker.percentage`: the share of a broker's partitions led elsewhere that triggers a preferred leader election.
    #[serde(
        rename = "leader.imbalance.per.broker.percentage",
        default = "d_imbalance_pct"
    )]
    pub leader_imbalance_per_broker_percentage: u32,
    /// `leader.imbalance.check.interval.seconds`: how often the controller checks leader balance.
    #[serde(
        rename = "leader.imbalance.check.interval.seconds",
        default = "d_imbalance_interval_s"
    )]
    pub leader_imbalance_check_interval_seconds: u64,
    /// `controlled.shutdown.enable`: whether a stopping broker first asks the controller to move its leaderships.
    #[serde(rename = "controlled.shutdown.enable", default = "d_true")]
    pub controlled_shutdown_enable: bool,
    /// `controlled.shutdown.max.retries`: how many ControlledShutdown
    /// requests a broker sends while partitions are left to move, before it
    /// shuts down anyway.
    #[serde(
        rename = "controlled.shutdown.max.retries",
        default = "d_shutdown_retries"
    )]
    pub controlled_shutdown_max_retries: u32,
    /// `controlled.shutdown.retry.backoff.ms`: the wait between them.
    #[serde(
        rename = "controlled.shutdown.retry.backoff.ms",
        default = "d_shutdown_backoff"
    )]
    pub controlled_shutdown_retry_backoff_ms: u64,
    /// `replica.lag.time.max.ms`: a follower that has not caught up for this long leaves the ISR.
    #[serde(rename = "replica.lag.time.max.ms", default = "d_replica_lag")]
    pub replica_lag_time_max_ms: u64,
    /// `replica.fetch.wait.max.ms`: the longest a leader holds a follower's fetch.
    #[serde(rename = "replica.fetch.wait.max.ms", default = "d_fetch_wait")]
    pub replica_fetch_wait_max_ms: u64,
    /// `replica.fetch.min.bytes`: a leader holds a follower's fetch until this many bytes are ready.
    #[serde(rename = "replica.fetch.min.bytes", default = "d_fetch_min_bytes")]
    pub replica_fetch_min_bytes: u64,
    /// `replica.fetch.max.bytes`: the most bytes per partition in a follower's fetch.
    #[serde(rename = "replica.fetch.max.bytes", default = "d_fetch_max_bytes")]
    pub replica_fetch_max_bytes: u64,
    /// `replica.fetch.backoff.ms`: a follower's wait before fetching again after an error.
    #[serde(rename = "replica.fetch.backoff.ms", default = "d_fetch_backoff")]
    pub replica_fetch_backoff_ms: u64,
    /// `replica.selector.class`: how a leader picks the replica a consumer
    /// should read from (KIP-392). Unset: always the leader. Kafka's one
    /// selector, `org.apache.kafka.common.replica.RackAwareReplicaSelector`,
    /// sends a consumer with a `client.rack` to an in-sync replica on its
    /// rack.
    #[serde(
        rename = "replica.selector.class",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub replica_selector_class: Option<String>,
    /// `replica.high.watermark.checkpoint.interval.ms`: how often a broker writes `replication-offset-checkpoint`.
    #[serde(
        rename = "replica.high.watermark.checkpoint.interval.ms",
        default = "d_hw_checkpoint"
    )]
    pub replica_high_watermark_checkpoint_interval_ms: u64,
    /// KRaft (Kafka 4.1) `controller.quorum.election.timeout.ms` (default 1000): a voter that hears from no leader for a random time between this and twice this starts a (pre-)vote (KIP-595, KIP-996).
    #[serde(
        rename = "controller.quorum.election.timeout.ms",
        default = "d_controller_quorum_election_timeout_ms",
        skip_serializing_if = "is_d_controller_quorum_election_timeout_ms"
    )]
    pub controller_quorum_election_timeout_ms: u64,
    /// KRaft (Kafka 4.1) `controller.quorum.fetch.timeout.ms` (default 2000): a follower voter with no successful Fetch from its leader for this long starts a pre-vote; a leader not fetched from by a majority for 1.5 times this resigns (check-quorum).
    #[serde(
        rename = "controller.quorum.fetch.timeout.ms",
        default = "d_controller_quorum_fetch_timeout_ms",
        skip_serializing_if = "is_d_controller_quorum_fetch_timeout_ms"
    )]
    pub controller_quorum_fetch_timeout_ms: u64,
    /// KRaft (Kafka 4.1) `controller.quorum.election.backoff.max.ms` (default 1000): the longest a voter waits before standing for election after its leader resigned (EndQuorumEpoch).
    #[serde(
        rename = "controller.quorum.election.backoff.max.ms",
        default = "d_controller_quorum_election_backoff_max_ms",
        skip_serializing_if = "is_d_controller_quorum_election_backoff_max_ms"
    )]
    pub controller_quorum_election_backoff_max_ms: u64,
    /// KRaft (Kafka 4.1) `controller.quorum.request.timeout.ms` (default 2000): how long a quorum request (Vote, BeginQuorumEpoch, EndQuorumEpoch, Fetch) waits for its answer.
    #[serde(
        rename = "controller.quorum.request.timeout.ms",
        default = "d_controller_quorum_request_timeout_ms",
        skip_serializing_if = "is_d_controller_quorum_request_timeout_ms"
    )]
    pub controller_quorum_request_timeout_ms: u64,
    /// KRaft (Kafka 4.1) `controller.quorum.retry.backoff.ms` (default 20): the wait before a failed quorum request is sent again.
    #[serde(
        rename = "controller.quorum.retry.backoff.ms",
        default = "d_controller_quorum_retry_backoff_ms",
        skip_serializing_if = "is_d_controller_quorum_retry_backoff_ms"
    )]
    pub controller_quorum_retry_backoff_ms: u64,
    /// KRaft (Kafka 4.1) `controller.quorum.append.linger.ms` (default 25): how long the quorum leader gathers metadata records before it writes them as one batch.
    #[serde(
        rename = "controller.quorum.append.linger.ms",
        default = "d_controller_quorum_append_linger_ms",
        skip_serializing_if = "is_d_controller_quorum_append_linger_ms"
    )]
    pub controller_quorum_append_linger_ms: u64,
    /// KRaft (Kafka 4.1) `broker.heartbeat.interval.ms` (default 2000): how often a broker sends BrokerHeartbeat to the active controller.
    #[serde(
        rename = "broker.heartbeat.interval.ms",
        default = "d_broker_heartbeat_interval_ms",
        skip_serializing_if = "is_d_broker_heartbeat_interval_ms"
    )]
    pub broker_heartbeat_interval_ms: u64,
    /// KRaft (Kafka 4.1) `broker.session.timeout.ms` (default 9000): a broker that sends no heartbeat for longer than this is fenced by the active controller.
    #[serde(
        rename = "broker.session.timeout.ms",
        default = "d_broker_session_timeout_ms",
        skip_serializing_if = "is_d_broker_session_timeout_ms"
    )]
    pub broker_session_timeout_ms: u64,
    /// KRaft (Kafka 4.1) `metadata.max.idle.interval.ms` (default 500): how often the active controller writes a NoOpRecord, so the metadata log moves even when nothing happens (0: never).
    #[serde(
        rename = "metadata.max.idle.interval.ms",
        default = "d_metadata_max_idle_interval_ms",
        skip_serializing_if = "is_d_metadata_max_idle_interval_ms"
    )]
    pub metadata_max_idle_interval_ms: u64,
    /// `zookeeper.session.timeout.ms`: a broker silent this long loses its session and its ephemeral znodes.
    #[serde(rename = "zookeeper.session.timeout.ms", default = "d_zk_session")]
    pub zookeeper_session_timeout_ms: u64,
    /// Below `0.11` followers truncate to their high watermark (the source
    /// notes' rule); from `0.11` on they use leader epochs (KIP-101).
    #[serde(rename = "inter.broker.protocol.version", default = "d_ibp")]
    pub inter_broker_protocol_version: String,
    /// `log.segment.bytes`: a segment rolls when it would grow past this size.
    #[serde(rename = "log.segment.bytes", default = "d_segment_bytes")]
    pub log_segment_bytes: u64,
    /// `log.roll.ms`: a segment rolls when its first record is this old (wins over `log.roll.hours`).
    #[serde(
        rename = "log.roll.ms",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub log_roll_ms: Option<u64>,
    /// `log.roll.hours`: a segment rolls when its first record is this old.
    #[serde(
        rename = "log.roll.hours",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub log_roll_hours: Option<u64>,
    /// `log.index.size.max.bytes`: the most bytes of one segment's `.index` (and `.timeindex`).
    #[serde(rename = "log.index.size.max.bytes", default = "d_segment_index_bytes")]
    pub log_index_size_max_bytes: u64,
    /// `log.index.interval.bytes`: bytes of records between two `.index` entries.
    #[serde(
        rename = "log.index.interval.bytes",
        default = "d_index_interval_bytes"
    )]
    pub log_index_interval_bytes: u64,
    /// `log.retention.ms`: segments older than this are deleted (wins over minutes and hours; -1: forever).
    #[serde(
        rename = "log.retention.ms",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub log_retention_ms: Option<i64>,
    /// `log.retention.minutes`: segments older than this are deleted (wins over hours).
    #[serde(
        rename = "log.retention.minutes",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub log_retention_minutes: Option<i64>,
    /// `log.retention.hours`: segments older than this are deleted.
    #[serde(
        rename = "log.retention.hours",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub log_retention_hours: Option<i64>,
    /// `log.retention.bytes`: a partition's log is cut back to this size (-1: no limit).
    #[serde(rename = "log.retention.bytes", default = "d_retention_bytes")]
    pub log_retention_bytes: i64,
    /// `log.retention.check.interval.ms`: how often retention runs.
    #[serde(
        rename = "log.retention.check.interval.ms",
        default = "d_retention_check"
    )]
    pub log_retention_check_interval_ms: u64,
    /// `log.initial.task.delay.ms` (an internal setting of Kafka 3.9,
    /// `LogConfig` `defineInternal`, default 30000): the log manager's
    /// periodic tasks, the retention check among them, first run this long
    /// after it starts (`LogManager.startup`, Kafka 3.9 lines 627-640).
    /// Kafka's own tests set it low to see retention at once; so do the
    /// lessons here.
    #[serde(rename = "log.initial.task.delay.ms", default = "d_initial_task_delay")]
    pub log_initial_task_delay_ms: u64,
    /// `log.cleanup.policy`: `delete` (retention), `compact` (keep the last record per key), or both.
    #[serde(rename = "log.cleanup.policy", default = "d_cleanup")]
    pub log_cleanup_policy: CleanupPolicy,
    /// `log.cleaner.min.cleanable.ratio`: the dirty share of a log that makes the cleaner compact it.
    #[serde(rename = "log.cleaner.min.cleanable.ratio", default = "d_dirty_ratio")]
    pub log_cleaner_min_cleanable_ratio: Ratio,
    /// `log.cleaner.delete.retention.ms`: how long a tombstone is kept after compaction.
    #[serde(
        rename = "log.cleaner.delete.retention.ms",
        default = "d_delete_retention_ms"
    )]
    pub log_cleaner_delete_retention_ms: u64,
    /// `log.cleaner.min.compaction.lag.ms`: records younger than this are not compacted.
    #[serde(
        rename = "log.cleaner.min.compaction.lag.ms",
        default = "d_min_compaction_lag_ms"
    )]
    pub log_cleaner_min_compaction_lag_ms: u64,
    /// `log.cleaner.backoff.ms`: the cleaner's wait when nothing needs cleaning.
    #[serde(rename = "log.cleaner.backoff.ms", default = "d_cleaner_backoff")]
    pub log_cleaner_backoff_ms: u64,
    /// `log.segment.delete.delay.ms`: how long a `.deleted` file waits before it is removed.
    #[serde(
        rename = "log.segment.delete.delay.ms",
        default = "d_file_delete_delay_ms"
    )]
    pub log_segment_delete_delay_ms: u64,
    /// `log.message.timestamp.type`: `CreateTime` (the producer's) or `LogAppendTime` (the broker's).
    #[serde(rename = "log.message.timestamp.type", default = "d_ts_type")]
    pub log_message_timestamp_type: TimestampType,
    /// `offsets.topic.num.partitions`: partitions of `__consumer_offsets`.
    #[serde(
        rename = "offsets.topic.num.partitions",
        default = "d_offsets_partitions"
    )]
    pub offsets_topic_num_partitions: i32,
    /// `offsets.topic.replication.factor`: replicas of `__consumer_offsets`.
    #[serde(rename = "offsets.topic.replication.factor", default = "d_offsets_rf")]
    pub offsets_topic_replication_factor: i32,
    /// `offsets.topic.segment.bytes`: the segment size of `__consumer_offsets`.
    #[serde(
        rename = "offsets.topic.segment.bytes",
        default = "d_offsets_segment_bytes"
    )]
    pub offsets_topic_segment_bytes: u64,
    /// `transaction.state.log.num.partitions`: partitions of `__transaction_state`.
    #[serde(
        rename = "transaction.state.log.num.partitions",
        default = "d_txn_partitions"
    )]
    pub transaction_state_log_num_partitions: i32,
    /// `transaction.state.log.replication.factor`: replicas of `__transaction_state`.
    #[serde(
        rename = "transaction.state.log.replication.factor",
        default = "d_txn_rf"
    )]
    pub transaction_state_log_replication_factor: i32,
    /// `transaction.state.log.min.isr`: `min.insync.replicas` of `__transaction_state`.
    #[serde(rename = "transaction.state.log.min.isr", default = "d_txn_min_isr")]
    pub transaction_state_log_min_isr: i32,
    /// `transaction.state.log.segment.bytes`: the segment size of `__transaction_state`.
    #[serde(
        rename = "transaction.state.log.segment.bytes",
        default = "d_txn_segment_bytes"
    )]
    pub transaction_state_log_segment_bytes: u64,
    /// `transaction.max.timeout.ms`: the largest `transaction.timeout.ms` a producer may ask for.
    #[serde(rename = "transaction.max.timeout.ms", default = "d_txn_max_timeout")]
    pub transaction_max_timeout_ms: u64,
    /// `transaction.abort.timed.out.transaction.cleanup.interval.ms`: how often the coordinator looks for transactions past their timeout.
    #[serde(
        rename = "transaction.abort.timed.out.transaction.cleanup.interval.ms",
        default = "d_txn_abort_interval"
    )]
    pub transaction_abort_timed_out_transaction_cleanup_interval_ms: u64,
    /// `transaction.partition.verification.enable` (KIP-890 part 1, on by
    /// default since 3.6): before a partition leader appends a producer's
    /// first transactional batch of a transaction, it asks the transaction
    /// coordinator whether the partition was added (AddPartitionsToTxn,
    /// verify only), so a late write cannot open a transaction the
    /// coordinator knows nothing of.
    #[serde(
        rename = "transaction.partition.verification.enable",
        default = "d_true"
    )]
    pub transaction_partition_verification_enable: bool,
    /// `group.initial.rebalance.delay.ms`: how long a new group waits for more members before its first rebalance.
    #[serde(
        rename = "group.initial.rebalance.delay.ms",
        default = "d_initial_rebalance_delay"
    )]
    pub group_initial_rebalance_delay_ms: u64,
    /// `group.min.session.timeout.ms`: the smallest `session.timeout.ms` a member may ask for.
    #[serde(rename = "group.min.session.timeout.ms", default = "d_min_session")]
    pub group_min_session_timeout_ms: u64,
    /// `group.max.session.timeout.ms`: the largest `session.timeout.ms` a member may ask for.
    #[serde(rename = "group.max.session.timeout.ms", default = "d_max_session")]
    pub group_max_session_timeout_ms: u64,
    /// `request.timeout.ms`: how long a broker waits for an answer to its own requests.
    #[serde(rename = "request.timeout.ms", default = "d_request_timeout")]
    pub request_timeout_ms: u64,
}

/// Java's `int` range, the type of Kafka's `INT` settings.
pub const JAVA_INT_MAX: u64 = i32::MAX as u64;
/// Java's `long` range, the type of Kafka's `LONG` settings. Every duration
/// fits here, so `now + setting` never overflows the simulated clock (at
/// most a day, far below `u64::MAX - i64::MAX`).
pub const JAVA_LONG_MAX: u64 = i64::MAX as u64;

/// One setting's allowed range, checked by [`check_ranges`]: Kafka's
/// `ConfigDef` type (INT or LONG) and validator (`atLeast(n)`), and where
/// the simulation needs more, its own lower bound with the reason.
pub(crate) struct Range<'a> {
    pub key: &'a str,
    pub value: u64,
    pub min: u64,
    pub max: u64,
    /// Why `min` (when it is not Kafka's own): said in the message.
    pub why_min: &'a str,
}

/// Checks each [`Range`], naming the first setting out of range.
pub(crate) fn check_ranges(at: &str, ranges: &[Range<'_>]) -> Result<(), ConfigError> {
    for r in ranges {
        if r.value < r.min {
            let why = if r.why_min.is_empty() {
                String::new()
            } else {
                format!(" ({})", r.why_min)
            };
            return Err(ConfigError::new(
                format!("{at}.{}", r.key),
                format!("must be at least {}{why}", r.min),
            ));
        }
        if r.value > r.max {
            let ty = if r.max == JAVA_INT_MAX {
                " (Kafka reads it as a Java int)"
            } else if r.max == JAVA_LONG_MAX {
                " (Kafka reads it as a Java long)"
            } else {
                ""
            };
            return Err(ConfigError::new(
                format!("{at}.{}", r.key),
                format!("must be at most {}{ty}", r.max),
            ));
        }
    }
    Ok(())
}

/// `request.timeout.ms` (broker, producer and consumer: a Java int): a
/// request that times out the instant it is sent would be retried at once,
/// forever, so the simulation needs at least 1.
pub(crate) fn request_timeout(value: u64) -> Range<'static> {
    Range {
        key: "request.timeout.ms",
        value,
        min: 1,
        max: JAVA_INT_MAX,
        why_min: "a request that times out the instant it is sent is retried at once, forever",
    }
}

/// A setting whose range is Kafka's type and validator alone.
pub(crate) fn kafka(key: &str, value: u64, min: u64, max: u64) -> Range<'_> {
    Range {
        key,
        value,
        min,
        max,
        why_min: "",
    }
}

/// An interval the simulation runs as a timer: 0 would set it again for the
/// same instant forever (Kafka's own scheduler refuses a period of 0, or its
/// thread would spin), so the simulation needs at least 1.
pub(crate) fn interval(key: &str, value: u64, max: u64) -> Range<'_> {
    Range {
        key,
        value,
        min: 1,
        max,
        why_min: "an interval of 0 would fire again at the same instant forever",
    }
}

/// A settings struct with every field at its default: read from `{}`, so the
/// `#[serde(default = …)]` attributes are the one place defaults are written.
/// Kafka's rack-aware `ReplicaSelector` (KIP-392), the value of
/// `replica.selector.class` that turns on fetching from followers.
pub const RACK_AWARE_REPLICA_SELECTOR: &str =
    "org.apache.kafka.common.replica.RackAwareReplicaSelector";

fn d_controller_quorum_election_timeout_ms() -> u64 {
    1000
}
fn is_d_controller_quorum_election_timeout_ms(v: &u64) -> bool {
    *v == d_controller_quorum_election_timeout_ms()
}
fn d_controller_quorum_fetch_timeout_ms() -> u64 {
    2000
}
fn is_d_controller_quorum_fetch_timeout_ms(v: &u64) -> bool {
    *v == d_controller_quorum_fetch_timeout_ms()
}
fn d_controller_quorum_election_backoff_max_ms() -> u64 {
    1000
}
fn is_d_controller_quorum_election_backoff_max_ms(v: &u64) -> bool {
    *v == d_controller_quorum_election_backoff_max_ms()
}
fn d_controller_quorum_request_timeout_ms() -> u64 {
    2000
}
fn is_d_controller_quorum_request_timeout_ms(v: &u64) -> bool {
    *v == d_controller_quorum_request_timeout_ms()
}
fn d_controller_quorum_retry_backoff_ms() -> u64 {
    20
}
fn is_d_controller_quorum_retry_backoff_ms(v: &u64) -> bool {
    *v == d_controller_quorum_retry_backoff_ms()
}
fn d_controller_quorum_append_linger_ms() -> u64 {
    25
}
fn is_d_controller_quorum_append_linger_ms(v: &u64) -> bool {
    *v == d_controller_quorum_append_linger_ms()
}
fn d_broker_heartbeat_interval_ms() -> u64 {
    2000
}
fn is_d_broker_heartbeat_interval_ms(v: &u64) -> bool {
    *v == d_broker_heartbeat_interval_ms()
}
fn d_broker_session_timeout_ms() -> u64 {
    9000
}
fn is_d_broker_session_timeout_ms(v: &u64) -> bool {
    *v == d_broker_session_timeout_ms()
}
fn d_metadata_max_idle_interval_ms() -> u64 {
    500
}
fn is_d_metadata_max_idle_interval_ms(v: &u64) -> bool {
    *v == d_metadata_max_idle_interval_ms()
}

/// The KRaft settings (Kafka 4.1 mode) with their values, in the order
/// Kafka's docs list them: a scenario in 3.9 mode may not set them.
impl BrokerConfig {
    pub(crate) fn kraft_settings(&self) -> [(&'static str, u64, u64); 9] {
        [
            (
                "controller.quorum.election.timeout.ms",
                self.controller_quorum_election_timeout_ms,
                d_controller_quorum_election_timeout_ms(),
            ),
            (
                "controller.quorum.fetch.timeout.ms",
                self.controller_quorum_fetch_timeout_ms,
                d_controller_quorum_fetch_timeout_ms(),
            ),
            (
                "controller.quorum.election.backoff.max.ms",
                self.controller_quorum_election_backoff_max_ms,
                d_controller_quorum_election_backoff_max_ms(),
            ),
            (
                "controller.quorum.request.timeout.ms",
                self.controller_quorum_request_timeout_ms,
                d_controller_quorum_request_timeout_ms(),
            ),
            (
                "controller.quorum.retry.backoff.ms",
                self.controller_quorum_retry_backoff_ms,
                d_controller_quorum_retry_backoff_ms(),
            ),
            (
                "controller.quorum.append.linger.ms",
                self.controller_quorum_append_linger_ms,
                d_controller_quorum_append_linger_ms(),
            ),
            (
                "broker.heartbeat.interval.ms",
                self.broker_heartbeat_interval_ms,
                d_broker_heartbeat_interval_ms(),
            ),
            (
                "broker.session.timeout.ms",
                self.broker_session_timeout_ms,
                d_broker_session_timeout_ms(),
            ),
            (
                "metadata.max.idle.interval.ms",
                self.metadata_max_idle_interval_ms,
                d_metadata_max_idle_interval_ms(),
            ),
        ]
    }
}

pub(crate) fn defaults<T: serde::de::DeserializeOwned>() -> T {
    serde_json::from_str("{}").expect("every setting has a default")
}

impl Default for BrokerConfig {
    fn default() -> Self {
        defaults()
    }
}

/// The log settings in force for one topic: the topic's overrides, else the
/// broker's `log.*` defaults. Field names are the topic-level Kafka keys.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LogConfig {
    /// `cleanup.policy` in force for this topic.
    #[serde(rename = "cleanup.policy")]
    pub cleanup_policy: CleanupPolicy,
    /// `segment.bytes` in force for this topic.
    #[serde(rename = "segment.bytes")]
    pub segment_bytes: u64,
    /// `segment.ms` in force for this topic.
    #[serde(rename = "segment.ms")]
    pub segment_ms: u64,
    /// `segment.index.bytes` in force for this topic.
    #[serde(rename = "segment.index.bytes")]
    pub segment_index_bytes: u64,
    /// `index.interval.bytes` in force for this topic.
    #[serde(rename = "index.interval.bytes")]
    pub index_interval_bytes: u64,
    /// `-1` = keep forever.
    #[serde(rename = "retention.ms")]
    pub retention_ms: i64,
    /// `-1` = no size limit.
    #[serde(rename = "retention.bytes")]
    pub retention_bytes: i64,
    /// `min.insync.replicas` in force for this topic.
    #[serde(rename = "min.insync.replicas")]
    pub min_insync_replicas: i32,
    /// `unclean.leader.election.enable` in force for this topic.
    #[serde(rename = "unclean.leader.election.enable")]
    pub unclean_leader_election_enable: bool,
    /// `min.cleanable.dirty.ratio` in force for this topic.
    #[serde(rename = "min.cleanable.dirty.ratio")]
    pub min_cleanable_dirty_ratio: Ratio,
    /// `delete.retention.ms` in force for this topic.
    #[serde(rename = "delete.retention.ms")]
    pub delete_retention_ms: u64,
    /// `file.delete.delay.ms` in force for this topic.
    #[serde(rename = "file.delete.delay.ms")]
    pub file_delete_delay_ms: u64,
    /// `min.compaction.lag.ms` in force for this topic.
    #[serde(rename = "min.compaction.lag.ms")]
    pub min_compaction_lag_ms: u64,
    /// `message.timestamp.type` in force for this topic.
    #[serde(rename = "message.timestamp.type")]
    pub message_timestamp_type: TimestampType,
}

impl Default for LogConfig {
    fn default() -> Self {
        BrokerConfig::default().log_config(&TopicConfigOverrides::default())
    }
}

impl BrokerConfig {
    /// `log.retention.ms`, else `log.retention.minutes`, else
    /// `log.retention.hours` (168, seven days): Kafka's order of precedence.
    /// Kafka (`KafkaConfig.logRetentionTimeMillis`): a negative value, in
    /// any of the three, keeps the log forever (-1).
    pub fn effective_retention_ms(&self) -> i64 {
        let ms = if let Some(ms) = self.log_retention_ms {
            ms
        } else if let Some(m) = self.log_retention_minutes {
            m.saturating_mul(60_000)
        } else {
            self.log_retention_hours
                .unwrap_or(168)
                .saturating_mul(3_600_000)
        };
        if ms < 0 {
            -1
        } else {
            ms
        }
    }

    /// `log.roll.ms`, else `log.roll.hours` (168).
    pub fn effective_roll_ms(&self) -> u64 {
        if let Some(ms) = self.log_roll_ms {
            return ms;
        }
        self.log_roll_hours.unwrap_or(168).saturating_mul(3_600_000)
    }

    /// The log settings for a topic: its overrides over the broker's `log.*` defaults.
    pub fn log_config(&self, o: &TopicConfigOverrides) -> LogConfig {
        LogConfig {
            cleanup_policy: o.cleanup_policy.unwrap_or(self.log_cleanup_policy),
            segment_bytes: o.segment_bytes.unwrap_or(self.log_segment_bytes),
            segment_ms: o.segment_ms.unwrap_or(self.effective_roll_ms()),
            segment_index_bytes: o
                .segment_index_bytes
                .unwrap_or(self.log_index_size_max_bytes),
            index_interval_bytes: o
                .index_interval_bytes
                .unwrap_or(self.log_index_interval_bytes),
            retention_ms: o.retention_ms.unwrap_or(self.effective_retention_ms()),
            retention_bytes: o.retention_bytes.unwrap_or(self.log_retention_bytes),
            min_insync_replicas: o.min_insync_replicas.unwrap_or(self.min_insync_replicas),
            unclean_leader_election_enable: o
                .unclean_leader_election_enable
                .unwrap_or(self.unclean_leader_election_enable),
            min_cleanable_dirty_ratio: o
                .min_cleanable_dirty_ratio
                .unwrap_or(self.log_cleaner_min_cleanable_ratio),
            delete_retention_ms: o
                .delete_retention_ms
                .unwrap_or(self.log_cleaner_delete_retention_ms),
            file_delete_delay_ms: o
                .file_delete_delay_ms
                .unwrap_or(self.log_segment_delete_delay_ms),
            min_compaction_lag_ms: o
                .min_compaction_lag_ms
                .unwrap_or(self.log_cleaner_min_compaction_lag_ms),
            message_timestamp_type: o
                .message_timestamp_type
                .unwrap_or(self.log_message_timestamp_type),
        }
    }
}

impl LogConfig {}

/// Settings of the simulated network (the simulation's own, hence snake_case).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkConfig {
    /// One-way latency of every link between brokers and clients, in ms.
    #[serde(default = "d_latency")]
    pub latency_ms: u64,
    /// One-way latency between a broker and ZooKeeper, in ms.
    #[serde(default = "d_zk_latency")]
    pub zookeeper_latency_ms: u64,
}

fn d_latency() -> u64 {
    5
}
fn d_zk_latency() -> u64 {
    2
}

impl Default for NetworkConfig {
    fn default() -> Self {
        NetworkConfig {
            latency_ms: d_latency(),
            zookeeper_latency_ms: d_zk_latency(),
        }
    }
}

impl NetworkConfig {}

#[cfg(test)]
mod tests;
