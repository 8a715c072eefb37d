//! Validating a parsed scenario: every check a real cluster or client
//! makes at startup (Kafka's config validators, `Topic.validate`, the
//! clients' `ConfigDef` ranges) plus the scenario's own rules (known
//! brokers, commands in time order), each error naming its field.

use super::*;

impl Scenario {
    /// The scenario-wide bounds: [`MAX_CLIENTS`] clients and
    /// [`MAX_TOTAL_PARTITIONS`] partitions in all (each topic's own bound,
    /// [`MAX_PARTITIONS`], is checked with the topic).
    fn check_size(&self) -> Result<(), ConfigError> {
        let added_clients = self
            .commands
            .iter()
            .filter(|c| {
                matches!(
                    c.command,
                    Command::AddProducer { .. } | Command::AddConsumer { .. }
                )
            })
            .count();
        let clients = self.producers.len() + self.consumers.len() + added_clients;
        if clients > MAX_CLIENTS {
            return Err(ConfigError::new(
                "consumers",
                format!(
                    "{clients} producers and consumers (with those the commands add); at most {MAX_CLIENTS} are simulated"
                ),
            ));
        }
        let default = self.cluster.config.num_partitions.max(1) as u64;
        let count = |t: &TopicSpec| -> u64 {
            match (t.partitions, &t.replica_assignment) {
                (Some(p), _) => p.max(0) as u64,
                (None, Some(a)) => a.len() as u64,
                (None, None) => default,
            }
        };
        let mut total: u64 = self.topics.iter().map(count).sum();
        for c in &self.commands {
            total += match &c.command {
                Command::CreateTopic { topic } => count(topic),
                Command::AddPartitions { partitions, .. } => (*partitions).max(0) as u64,
                _ => 0,
            };
        }
        if !self.consumers.is_empty() || added_clients > 0 {
            total += self.cluster.config.offsets_topic_num_partitions.max(0) as u64;
        }
        let transactional = self
            .producer_specs()
            .any(|p| p.config.transactional_id.is_some());
        if transactional {
            total += self
                .cluster
                .config
                .transaction_state_log_num_partitions
                .max(0) as u64;
        }
        if total > MAX_TOTAL_PARTITIONS {
            return Err(ConfigError::new(
                "topics",
                format!(
                    "{total} partitions in all (topics, create_topic and add_partitions commands, __consumer_offsets, __transaction_state); at most {MAX_TOTAL_PARTITIONS} are simulated"
                ),
            ));
        }
        Ok(())
    }

    /// What each Kafka version has and has not: controllers and KRaft
    /// settings only in 4.1, ZooKeeper's only in 3.9, and what the 4.1 mode
    /// does not model yet refused by name, so nothing of one version runs
    /// silently in the other.
    fn validate_version(&self) -> Result<(), ConfigError> {
        let controllers = &self.cluster.controllers;
        let cfg = &self.cluster.config;
        if !self.kafka_version.is_kraft() {
            if !controllers.is_empty() {
                return Err(ConfigError::new(
                    "cluster.controllers",
                    "only a Kafka 4.1 (KRaft) cluster has controllers of its own; set \"kafka_version\": \"4.1\" (in Kafka 3.9 one broker is elected controller through ZooKeeper)",
                ));
            }
            for (key, value, default) in cfg.kraft_settings() {
                if value != default {
                    return Err(ConfigError::new(
                        format!("cluster.config.{key}"),
                        "is a KRaft setting, and this scenario runs Kafka 3.9 with ZooKeeper; set \"kafka_version\": \"4.1\" to use it",
                    ));
                }
            }
            return Ok(());
        }
        if controllers.is_empty() {
            return Err(ConfigError::new(
                "cluster.controllers",
                "a Kafka 4.1 cluster runs KRaft and needs its controller quorum: list the controllers' node.id (controller.quorum.voters), e.g. [3000, 3001, 3002]",
            ));
        }
        if controllers.len() > 9 {
            return Err(ConfigError::new(
                "cluster.controllers",
                "at most 9 controllers are simulated (3 or 5 is usual)",
            ));
        }
        let mut seen = SortedSet::new();
        for (i, c) in controllers.iter().enumerate() {
            let at = format!("cluster.controllers[{i}]");
            if *c < 0 {
                return Err(ConfigError::new(at, "a node.id must be 0 or more"));
            }
            if !seen.insert(*c) {
                return Err(ConfigError::new(at, format!("node.id {c} appears twice")));
            }
            if self.cluster.brokers.contains(c) {
                return Err(ConfigError::new(
                    at,
                    format!("node.id {c} is both a broker and a controller (process.roles=broker,controller, combined mode), which is not modelled yet: give the controllers ids of their own"),
                ));
            }
        }
        let defaults = crate::config::BrokerConfig::default();
        if cfg.zookeeper_session_timeout_ms != defaults.zookeeper_session_timeout_ms {
            return Err(ConfigError::new(
                "cluster.config.zookeeper.session.timeout.ms",
                "Kafka 4.1 has no ZooKeeper (removed in 4.0), so this setting does nothing",
            ));
        }
        // Removed with ZooKeeper in Kafka 4.0: a KRaft broker's controlled
        // shutdown goes through its heartbeats and has no retries.
        if cfg.controlled_shutdown_max_retries != defaults.controlled_shutdown_max_retries {
            return Err(ConfigError::new(
                "cluster.config.controlled.shutdown.max.retries",
                "Kafka 4.1 has no such setting (removed in 4.0 with ZooKeeper): a KRaft broker's controlled shutdown goes through its heartbeats, with no retries",
            ));
        }
        if cfg.controlled_shutdown_retry_backoff_ms != defaults.controlled_shutdown_retry_backoff_ms
        {
            return Err(ConfigError::new(
                "cluster.config.controlled.shutdown.retry.backoff.ms",
                "Kafka 4.1 has no such setting (removed in 4.0 with ZooKeeper): a KRaft broker's controlled shutdown goes through its heartbeats, with no retries",
            ));
        }
        // Kafka 4.1 parts the simulation does not model yet: refused by
        // name rather than run with 3.9's behaviour.
        let later = "is not modelled yet in Kafka 4.1 mode; a 4.1 scenario runs the controller quorum, the brokers' registration, heartbeats and fencing, topics and their partitions, idempotent producers and consumers of the classic group protocol";
        for (i, c) in self.consumers.iter().enumerate() {
            if c.pipeline.is_some() {
                return Err(ConfigError::new(
                    format!("consumers[{i}].pipeline"),
                    format!(
                        "a consume-transform-produce pipeline (transactions v2, KIP-890) {later}"
                    ),
                ));
            }
        }
        // Declared producers, then those a command adds, under the same
        // 4.1 rules (and likewise consumers).
        let added = self
            .commands
            .iter()
            .enumerate()
            .filter_map(|(i, c)| match &c.command {
                Command::AddProducer { producer } => {
                    Some((format!("commands[{i}].producer"), producer))
                }
                _ => None,
            });
        let producers = self
            .producers
            .iter()
            .enumerate()
            .map(|(i, p)| (format!("producers[{i}]"), p))
            .chain(added);
        for (i, c) in self.commands.iter().enumerate() {
            if let Command::AddConsumer { consumer } = &c.command {
                if consumer.pipeline.is_some() {
                    return Err(ConfigError::new(
                        format!("commands[{i}].consumer.pipeline"),
                        format!(
                            "a consume-transform-produce pipeline (transactions v2, KIP-890) {later}"
                        ),
                    ));
                }
            }
        }
        for (at, p) in producers {
            // Kafka 4: idempotence on (the default) and more than 5 in
            // flight is a ConfigException, no longer a quiet switch-off
            // (ProducerConfig.postProcessAndValidateIdempotenceConfigs,
            // 4.1.0 lines 606-610).
            let in_flight = p.config.max_in_flight_requests_per_connection;
            if p.config.enable_idempotence != Some(false) && in_flight > 5 {
                return Err(ConfigError::new(
                    format!("{at}.config.max.in.flight.requests.per.connection"),
                    format!("To use the idempotent producer, max.in.flight.requests.per.connection must be set to at most 5. Current value is {in_flight}. (Kafka 3.9 turned idempotence off quietly; Kafka 4 refuses: set enable.idempotence=false to send more)"),
                ));
            }
            if p.config.transactional_id.is_some() {
                return Err(ConfigError::new(
                    format!("{at}.config.transactional.id"),
                    format!("a transactional producer (transactions v2, KIP-890, the 4.1 default) {later}"),
                ));
            }
        }
        for (i, tc) in self.commands.iter().enumerate() {
            let at = format!("commands[{i}]");
            match &tc.command {
                Command::KillBroker { .. }
                | Command::ShutdownBroker { .. }
                | Command::AddProducer { .. }
                | Command::AddConsumer { .. }
                | Command::RestartBroker { .. }
                | Command::Produce { .. }
                | Command::CloseProducer { .. }
                | Command::Lookup { .. }
                | Command::StopConsumer { .. }
                | Command::CrashConsumer { .. }
                | Command::CommitSync { .. }
                | Command::CommitAsync { .. }
                | Command::PauseConsumer { .. }
                | Command::CutLink { .. }
                | Command::HealLink { .. }
                | Command::SlowLink { .. } => {}
                Command::KillController { controller }
                | Command::ShutdownController { controller }
                | Command::RestartController { controller } => {
                    if !controllers.contains(controller) {
                        return Err(ConfigError::new(
                            format!("{at}.controller"),
                            format!(
                                "no controller {controller} in cluster.controllers {controllers:?}"
                            ),
                        ));
                    }
                }
                other => {
                    let name = serde_json::to_value(other)
                        .ok()
                        .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_string))
                        .unwrap_or_default();
                    return Err(ConfigError::new(
                        format!("{at}.type"),
                        format!("`{name}` {later}"),
                    ));
                }
            }
        }
        Ok(())
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
        self.validate_version()?;
        for (key, n) in [
            ("num.partitions", self.cluster.config.num_partitions),
            (
                "offsets.topic.num.partitions",
                self.cluster.config.offsets_topic_num_partitions,
            ),
            (
                "transaction.state.log.num.partitions",
                self.cluster.config.transaction_state_log_num_partitions,
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
        for (b, rack) in self.cluster.broker_rack.iter() {
            if !brokers.contains(b) {
                return Err(ConfigError::new(
                    format!("cluster.broker.rack.{b}"),
                    format!("no broker {b} in cluster.brokers {brokers:?}"),
                ));
            }
            if !super::rack_is_valid(rack) {
                return Err(ConfigError::new(
                    format!("cluster.broker.rack.{b}"),
                    "a rack name is 1 to 255 characters, none of them a control character",
                ));
            }
        }
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
                    NodeId::ZooKeeper if !self.kafka_version.is_kraft() => Ok(()),
                    NodeId::Controller(c) if self.cluster.controllers.contains(c) => Ok(()),
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
                Command::KillController { .. }
                | Command::ShutdownController { .. }
                | Command::RestartController { .. } => {
                    // Checked against cluster.controllers in validate_version.
                    if !self.kafka_version.is_kraft() {
                        return Err(ConfigError::new(
                            format!("{at}.type"),
                            "a Kafka 3.9 cluster has no KRaft controllers (its controller is a broker elected through ZooKeeper); set \"kafka_version\": \"4.1\"",
                        ));
                    }
                }
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
                Command::InitTransactions { producer }
                | Command::BeginTransaction { producer }
                | Command::CommitTransaction { producer }
                | Command::AbortTransaction { producer }
                | Command::SendOffsetsToTransaction { producer, .. } => {
                    if let Command::SendOffsetsToTransaction { consumer, .. } = &tc.command {
                        if !cnames.contains(consumer.as_str()) {
                            return Err(ConfigError::new(
                                format!("{at}.consumer"),
                                format!("no consumer named `{consumer}` before this command"),
                            ));
                        }
                    }
                    if !pnames.contains(producer) {
                        return Err(ConfigError::new(
                            format!("{at}.producer"),
                            format!("no producer named `{producer}` in producers or started before this command"),
                        ));
                    }
                    if !self.is_transactional_producer(producer) {
                        return Err(ConfigError::new(
                            format!("{at}.producer"),
                            format!("producer `{producer}` has no transactional.id: IllegalStateException: Transactional method invoked on a non-transactional producer."),
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
        // Each field's own bound first (more precise), then the totals.
        self.check_size()?;
        Ok(())
    }

    pub(super) fn validate_topic(&self, t: &TopicSpec, at: &str) -> Result<(), ConfigError> {
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

    pub(super) fn validate_consumer(&self, c: &ConsumerSpec, at: &str) -> Result<(), ConfigError> {
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
        if let Some(pl) = &c.pipeline {
            // A read-process-write application: its own producer commits
            // the offsets, inside the transaction.
            let problem = if !self.is_transactional_producer(&pl.producer) {
                Some((
                    "pipeline.producer",
                    format!(
                        "no producer named `{}` with a transactional.id",
                        pl.producer
                    ),
                ))
            } else if c.subscribe.is_none() && c.subscribe_pattern.is_none() {
                Some((
                    "pipeline",
                    "a pipeline's consumer subscribes in a group (its offsets go to the group)"
                        .to_string(),
                ))
            } else if c.config.enable_auto_commit || !c.commit.is_auto() {
                Some(("config.enable.auto.commit", "must be false in a pipeline: the offsets are committed in the producer's transaction".to_string()))
            } else {
                None
            };
            if let Some((field, why)) = problem {
                return Err(ConfigError::new(format!("{at}.{field}"), why));
            }
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
