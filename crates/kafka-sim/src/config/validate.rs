//! Validating settings as Kafka does at startup: each key's type and
//! validator (`ConfigDef.Range`, `ValidList`), the cross-checks of
//! `KafkaConfig` and `LogConfig.validateValues`, and the few lower bounds
//! the simulation adds (an interval of 0 would spin its timer), each error
//! naming the key.

use super::*;

impl BrokerConfig {
    /// Checks values Kafka itself would refuse, naming the key.
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        // Each setting's own range first (Kafka's type and validator), then
        // the checks across settings.
        let (int, long) = (JAVA_INT_MAX, JAVA_LONG_MAX);
        check_ranges(
            at,
            &[
                Range {
                    key: "replica.lag.time.max.ms",
                    value: self.replica_lag_time_max_ms,
                    min: 2,
                    max: long,
                    why_min: "the ISR check runs every replica.lag.time.max.ms / 2 (ReplicaManager's isr-expiration task), and Kafka's scheduler refuses a period of 0",
                },
                kafka("replica.fetch.wait.max.ms", self.replica_fetch_wait_max_ms, 0, int),
                kafka("replica.fetch.min.bytes", self.replica_fetch_min_bytes, 0, int),
                kafka("replica.fetch.max.bytes", self.replica_fetch_max_bytes, 0, int),
                kafka("replica.fetch.backoff.ms", self.replica_fetch_backoff_ms, 0, int),
                interval(
                    "replica.high.watermark.checkpoint.interval.ms",
                    self.replica_high_watermark_checkpoint_interval_ms,
                    long,
                ),
                kafka("zookeeper.session.timeout.ms", self.zookeeper_session_timeout_ms, 1, int),
                interval("controller.quorum.election.timeout.ms", self.controller_quorum_election_timeout_ms, int),
                interval("controller.quorum.fetch.timeout.ms", self.controller_quorum_fetch_timeout_ms, int),
                kafka("controller.quorum.election.backoff.max.ms", self.controller_quorum_election_backoff_max_ms, 0, int),
                interval("controller.quorum.request.timeout.ms", self.controller_quorum_request_timeout_ms, int),
                kafka("controller.quorum.retry.backoff.ms", self.controller_quorum_retry_backoff_ms, 0, int),
                kafka("controller.quorum.append.linger.ms", self.controller_quorum_append_linger_ms, 0, int),
                interval("broker.heartbeat.interval.ms", self.broker_heartbeat_interval_ms, int),
                interval("broker.session.timeout.ms", self.broker_session_timeout_ms, int),
                kafka("metadata.max.idle.interval.ms", self.metadata_max_idle_interval_ms, 0, int),
                kafka("log.roll.ms", self.log_roll_ms.unwrap_or(1), 1, long),
                kafka("log.roll.hours", self.log_roll_hours.unwrap_or(1), 1, int),
                kafka("log.index.size.max.bytes", self.log_index_size_max_bytes, 4, int),
                kafka("log.index.interval.bytes", self.log_index_interval_bytes, 0, int),
                interval(
                    "log.retention.check.interval.ms",
                    self.log_retention_check_interval_ms,
                    long,
                ),
                kafka(
                    "log.initial.task.delay.ms",
                    self.log_initial_task_delay_ms,
                    0,
                    long,
                ),
                kafka(
                    "log.cleaner.delete.retention.ms",
                    self.log_cleaner_delete_retention_ms,
                    0,
                    long,
                ),
                kafka(
                    "log.cleaner.min.compaction.lag.ms",
                    self.log_cleaner_min_compaction_lag_ms,
                    0,
                    long,
                ),
                interval("log.cleaner.backoff.ms", self.log_cleaner_backoff_ms, long),
                kafka("log.segment.delete.delay.ms", self.log_segment_delete_delay_ms, 0, long),
                kafka("offsets.topic.segment.bytes", self.offsets_topic_segment_bytes, 1, int),
                kafka(
                    "transaction.state.log.segment.bytes",
                    self.transaction_state_log_segment_bytes,
                    1,
                    int,
                ),
                kafka("transaction.max.timeout.ms", self.transaction_max_timeout_ms, 1, int),
                kafka(
                    "transaction.abort.timed.out.transaction.cleanup.interval.ms",
                    self.transaction_abort_timed_out_transaction_cleanup_interval_ms,
                    1,
                    int,
                ),
                kafka(
                    "group.initial.rebalance.delay.ms",
                    self.group_initial_rebalance_delay_ms,
                    0,
                    int,
                ),
                kafka("group.min.session.timeout.ms", self.group_min_session_timeout_ms, 0, int),
                kafka("group.max.session.timeout.ms", self.group_max_session_timeout_ms, 0, int),
                request_timeout(self.request_timeout_ms),
                kafka(
                    "controlled.shutdown.max.retries",
                    self.controlled_shutdown_max_retries as u64,
                    0,
                    int,
                ),
                kafka(
                    "controlled.shutdown.retry.backoff.ms",
                    self.controlled_shutdown_retry_backoff_ms,
                    0,
                    long,
                ),
                kafka(
                    "leader.imbalance.check.interval.seconds",
                    self.leader_imbalance_check_interval_seconds,
                    1,
                    long / 1000,
                ),
            ],
        )?;
        let f = |k: &str| format!("{at}.{k}");
        if self.default_replication_factor < 1 {
            return Err(ConfigError::new(
                f("default.replication.factor"),
                "must be at least 1",
            ));
        }
        if self.num_partitions < 1 {
            return Err(ConfigError::new(f("num.partitions"), "must be at least 1"));
        }
        if self.min_insync_replicas < 1 {
            return Err(ConfigError::new(
                f("min.insync.replicas"),
                "must be at least 1",
            ));
        }
        if self.leader_imbalance_per_broker_percentage > 100 {
            return Err(ConfigError::new(
                f("leader.imbalance.per.broker.percentage"),
                "is a percentage: at most 100",
            ));
        }
        if self.replica_fetch_wait_max_ms >= self.replica_lag_time_max_ms {
            // Kafka refuses this too: a follower waiting longer than the lag limit
            // would be thrown out of the ISR while it waits.
            return Err(ConfigError::new(
                f("replica.fetch.wait.max.ms"),
                "must be less than replica.lag.time.max.ms (Kafka requires it, or followers drop out of the ISR while waiting)",
            ));
        }
        if self.offsets_topic_num_partitions < 1 {
            return Err(ConfigError::new(
                f("offsets.topic.num.partitions"),
                "must be at least 1",
            ));
        }
        if self.offsets_topic_replication_factor < 1 {
            return Err(ConfigError::new(
                f("offsets.topic.replication.factor"),
                "must be at least 1",
            ));
        }
        for (key, n) in [
            (
                "transaction.state.log.num.partitions",
                self.transaction_state_log_num_partitions,
            ),
            (
                "transaction.state.log.replication.factor",
                self.transaction_state_log_replication_factor,
            ),
            (
                "transaction.state.log.min.isr",
                self.transaction_state_log_min_isr,
            ),
        ] {
            if n < 1 {
                return Err(ConfigError::new(f(key), "must be at least 1"));
            }
        }
        if self.group_min_session_timeout_ms > self.group_max_session_timeout_ms {
            return Err(ConfigError::new(
                f("group.min.session.timeout.ms"),
                "must not exceed group.max.session.timeout.ms",
            ));
        }
        for (key, v) in [
            ("log.retention.ms", self.log_retention_ms),
            ("log.retention.minutes", self.log_retention_minutes),
            ("log.retention.hours", self.log_retention_hours),
        ] {
            // Kafka: -1 (or any negative value) keeps the log forever.
            if let Some(v) = v {
                let max = if key == "log.retention.ms" {
                    i64::MAX
                } else {
                    i32::MAX as i64
                };
                if v > max {
                    return Err(ConfigError::new(
                        format!("{at}.{key}"),
                        format!("must be at most {max}"),
                    ));
                }
            }
        }
        if let Some(class) = &self.replica_selector_class {
            if class != RACK_AWARE_REPLICA_SELECTOR {
                return Err(ConfigError::new(
                    format!("{at}.replica.selector.class"),
                    format!(
                        "`{class}` is not a ReplicaSelector the simulation has; Kafka ships one, {RACK_AWARE_REPLICA_SELECTOR} (leave the key out to read from leaders only)"
                    ),
                ));
            }
        }
        if !ibp_is_known(&self.inter_broker_protocol_version) {
            return Err(ConfigError::new(
                format!("{at}.inter.broker.protocol.version"),
                format!(
                    "`{}` is not a Kafka version (expected one such as 0.11.0, 2.8 or 3.9)",
                    self.inter_broker_protocol_version
                ),
            ));
        }
        // KafkaConfig.validateValues (3.9, lines 1040-1043): the message
        // format (log.message.format.version, ignored from IBP 3.0 but not
        // below it, default 3.0-IV1, record format v2) needs a protocol that
        // carries it. Kafka refuses to start; so does the simulation, which
        // writes only record format v2.
        if ibp_before_record_v2(&self.inter_broker_protocol_version) {
            return Err(ConfigError::new(
                format!("{at}.inter.broker.protocol.version"),
                format!(
                    "Kafka 3.9 refuses to start: log.message.format.version 3.0-IV1 can only be used when inter.broker.protocol.version is set to version 0.11.0 or higher (got {}). To replay Kafka before 0.11, which truncated followers to their high watermark, set cluster.follower_truncation to \"high_watermark\"",
                    self.inter_broker_protocol_version
                ),
            ));
        }
        let lc = self.log_config(&TopicConfigOverrides::default());
        lc.validate(at, "log.")
    }
}

impl LogConfig {
    /// Kafka's own lower bounds (`segment.bytes` ≥ 14, the size of a record
    /// batch's log overhead; index sizes at least one entry).
    pub fn validate(&self, at: &str, prefix: &str) -> Result<(), ConfigError> {
        let f = |k: &str| format!("{at}.{prefix}{k}");
        if self.segment_bytes < 14 {
            return Err(ConfigError::new(
                f("segment.bytes"),
                "must be at least 14 (Kafka's minimum: the size of a batch header's log overhead)",
            ));
        }
        if self.segment_bytes > i32::MAX as u64 {
            return Err(ConfigError::new(
                f("segment.bytes"),
                "must fit in a Java int (at most 2147483647)",
            ));
        }
        if self.segment_index_bytes < 8 {
            return Err(ConfigError::new(
                f("segment.index.bytes"),
                "must hold at least one 8-byte index entry",
            ));
        }
        if self.segment_ms == 0 {
            return Err(ConfigError::new(f("segment.ms"), "must be positive"));
        }
        if self.retention_ms < -1 {
            return Err(ConfigError::new(
                f("retention.ms"),
                "must be -1 (forever) or at least 0",
            ));
        }
        if self.retention_bytes < -1 {
            return Err(ConfigError::new(
                f("retention.bytes"),
                "must be -1 (no limit) or at least 0",
            ));
        }
        if self.min_insync_replicas < 1 {
            return Err(ConfigError::new(
                f("min.insync.replicas"),
                "must be at least 1",
            ));
        }
        Ok(())
    }
}

impl NetworkConfig {
    /// Checks the network's settings, naming the key.
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        if self.latency_ms == 0 {
            return Err(ConfigError::new(
                format!("{at}.latency_ms"),
                "must be at least 1 ms (a message cannot arrive the instant it is sent)",
            ));
        }
        if self.zookeeper_latency_ms == 0 {
            return Err(ConfigError::new(
                format!("{at}.zookeeper_latency_ms"),
                "must be at least 1 ms",
            ));
        }
        if self.latency_ms > 60_000 || self.zookeeper_latency_ms > 60_000 {
            return Err(ConfigError::new(
                format!("{at}.latency_ms"),
                "must be at most 60000 ms",
            ));
        }
        Ok(())
    }
}
