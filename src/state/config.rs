//! The configuration panel's model: the settings a learner most often changes,
//! under Kafka's own names, with the value the scenario sets (empty: Kafka's
//! default, shown from the engine's own default configuration), and applying
//! edits to the scenario text. A changed configuration changes the whole run,
//! so the page reloads it from the start; a value the engine refuses is named
//! and the current scenario stays.

use kafka_sim::client_config::{AutoOffsetReset, ConsumerConfig, ProducerConfig};
use kafka_sim::config::{BrokerConfig, LogConfig};
use serde_json::{Map, Value};

/// One editable setting.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    /// JSON pointer of the object holding it: `/topics/0/config`.
    pub at: String,
    /// Kafka's name: `min.insync.replicas`.
    pub key: &'static str,
    /// As the scenario sets it ("" when it leaves Kafka's default).
    pub value: String,
    pub default: String,
}

/// A group of settings: the cluster, a topic, a producer, a consumer.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    pub title: String,
    pub settings: Vec<Setting>,
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(text).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

/// A group's title in `lang` (titles are built in English:
/// "cluster (server.properties)", "topic t", "producer p", "consumer c").
pub fn title(lang: crate::i18n::Lang, title: &str) -> String {
    if lang == crate::i18n::Lang::En {
        return title.to_string();
    }
    for (en, zh) in [
        ("cluster ", "集群 "),
        ("topic ", "主题 "),
        ("producer ", "生产者 "),
        ("consumer ", "消费者 "),
    ] {
        if let Some(rest) = title.strip_prefix(en) {
            return format!("{zh}{rest}");
        }
    }
    title.to_string()
}

fn group(v: &Value, title: String, at: String, keys: &[(&'static str, String)]) -> Group {
    let obj = v.pointer(&at);
    Group {
        title,
        settings: keys
            .iter()
            .map(|(key, default)| Setting {
                at: at.clone(),
                key,
                value: obj.and_then(|o| o.get(*key)).map(text).unwrap_or_default(),
                default: default.clone(),
            })
            .collect(),
    }
}

/// The settings of a scenario, as the panel lists them.
pub fn settings(source: &str) -> Vec<Group> {
    let Ok(v) = serde_json::from_str::<Value>(source) else {
        return Vec::new();
    };
    let b = BrokerConfig::default();
    let l = LogConfig::default();
    let p = ProducerConfig::default();
    let c = ConsumerConfig::default();
    // Kafka 4.1: KRaft's settings where 3.9 has ZooKeeper's, and the
    // producer's `linger.ms` default of 4.0 (KIP-1030).
    let kraft = v.get("kafka_version").and_then(Value::as_str) == Some("4.1");
    let mut cluster = vec![
        ("min.insync.replicas", b.min_insync_replicas.to_string()),
        (
            "unclean.leader.election.enable",
            b.unclean_leader_election_enable.to_string(),
        ),
        (
            "replica.lag.time.max.ms",
            b.replica_lag_time_max_ms.to_string(),
        ),
    ];
    if kraft {
        cluster.extend([
            (
                "broker.session.timeout.ms",
                b.broker_session_timeout_ms.to_string(),
            ),
            (
                "broker.heartbeat.interval.ms",
                b.broker_heartbeat_interval_ms.to_string(),
            ),
            (
                "controller.quorum.election.timeout.ms",
                b.controller_quorum_election_timeout_ms.to_string(),
            ),
            (
                "controller.quorum.fetch.timeout.ms",
                b.controller_quorum_fetch_timeout_ms.to_string(),
            ),
        ]);
    } else {
        cluster.extend([
            (
                "zookeeper.session.timeout.ms",
                b.zookeeper_session_timeout_ms.to_string(),
            ),
            (
                "auto.leader.rebalance.enable",
                b.auto_leader_rebalance_enable.to_string(),
            ),
        ]);
    }
    let mut out = vec![group(
        &v,
        "cluster (server.properties)".into(),
        "/cluster/config".into(),
        &cluster,
    )];
    let list = |name: &str| {
        v.get(name)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let name = |x: &Value, i: usize| x.get("name").map(text).unwrap_or_else(|| i.to_string());
    for (i, t) in list("topics").iter().enumerate() {
        let mut g = group(
            &v,
            format!("topic {}", name(t, i)),
            format!("/topics/{i}"),
            &[
                ("partitions", b.num_partitions.to_string()),
                (
                    "replication.factor",
                    b.default_replication_factor.to_string(),
                ),
            ],
        );
        g.settings.extend(
            group(
                &v,
                String::new(),
                format!("/topics/{i}/config"),
                &[
                    ("min.insync.replicas", b.min_insync_replicas.to_string()),
                    ("cleanup.policy", l.cleanup_policy.to_string()),
                    ("segment.bytes", l.segment_bytes.to_string()),
                    ("retention.ms", l.retention_ms.to_string()),
                ],
            )
            .settings,
        );
        out.push(g);
    }
    for (i, x) in list("producers").iter().enumerate() {
        out.push(group(
            &v,
            format!("producer {}", name(x, i)),
            format!("/producers/{i}/config"),
            &[
                ("acks", p.acks.to_string()),
                ("enable.idempotence", p.idempotence().to_string()),
                (
                    "linger.ms",
                    if kraft {
                        "5".into()
                    } else {
                        p.linger_ms.to_string()
                    },
                ),
                ("batch.size", p.batch_size.to_string()),
                (
                    "max.in.flight.requests.per.connection",
                    p.max_in_flight_requests_per_connection.to_string(),
                ),
            ],
        ));
    }
    for (i, x) in list("consumers").iter().enumerate() {
        let reset = match c.auto_offset_reset {
            AutoOffsetReset::Latest => "latest",
            AutoOffsetReset::Earliest => "earliest",
            AutoOffsetReset::None => "none",
        };
        out.push(group(
            &v,
            format!("consumer {}", name(x, i)),
            format!("/consumers/{i}/config"),
            &[
                ("group.id", String::new()),
                (
                    "partition.assignment.strategy",
                    c.partition_assignment_strategy
                        .iter()
                        .map(|a| a.protocol_name())
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
                ("enable.auto.commit", c.enable_auto_commit.to_string()),
                ("auto.offset.reset", reset.to_string()),
                ("isolation.level", c.isolation_level.name().to_string()),
            ],
        ));
    }
    out
}

/// A typed value as JSON: whole numbers and true/false as such, a list for
/// `partition.assignment.strategy`, text otherwise.
fn typed(key: &str, s: &str) -> Value {
    let s = s.trim();
    if key == "partition.assignment.strategy" {
        return Value::Array(
            s.split(',')
                .map(|x| Value::from(x.trim()))
                .filter(|x| x != "")
                .collect(),
        );
    }
    if let Ok(n) = s.parse::<i64>() {
        return n.into();
    }
    match s {
        "true" => true.into(),
        "false" => false.into(),
        _ => s.into(),
    }
}

/// The scenario text with `edits` ((object pointer, key, typed text); empty
/// text removes the key, back to Kafka's default) applied.
pub fn apply(source: &str, edits: &[(String, String, String)]) -> Result<String, String> {
    let mut v: Value =
        serde_json::from_str(source).map_err(|e| format!("the scenario text: {e}"))?;
    for (at, key, value) in edits {
        // Create the object (e.g. a producer's `config`) if the scenario has none.
        let mut cur = &mut v;
        for seg in at.split('/').skip(1) {
            cur = match cur {
                Value::Object(m) => m
                    .entry(seg.to_string())
                    .or_insert_with(|| Value::Object(Map::new())),
                Value::Array(a) => seg
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| a.get_mut(i))
                    .ok_or_else(|| format!("{at}: not in the scenario"))?,
                _ => return Err(format!("{at}: not an object")),
            };
        }
        let obj = cur
            .as_object_mut()
            .ok_or_else(|| format!("{at}: not an object"))?;
        if value.trim().is_empty() {
            obj.remove(key);
        } else {
            obj.insert(key.clone(), typed(key, value));
        }
    }
    Ok(v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENARIO: &str = include_str!("../../scenarios/leader-failover.json");

    #[test]
    fn settings_show_the_scenarios_values_and_kafkas_defaults() {
        let g = settings(SCENARIO);
        let find = |title: &str, key: &str| {
            g.iter()
                .find(|g| g.title == title)
                .and_then(|g| g.settings.iter().find(|s| s.key == key))
                .cloned()
                .unwrap()
        };
        let zk = find(
            "cluster (server.properties)",
            "zookeeper.session.timeout.ms",
        );
        assert_eq!((zk.value.as_str(), zk.default.as_str()), ("6000", "18000"));
        assert_eq!(
            find("cluster (server.properties)", "replica.lag.time.max.ms").default,
            "30000"
        );
        assert_eq!(find("topic first", "segment.bytes").value, "1048576");
        assert_eq!(find("topic first", "segment.bytes").default, "1073741824");
        assert_eq!(find("topic first", "retention.ms").default, "604800000");
        assert_eq!(find("producer p", "acks").value, "all");
        assert_eq!(find("producer p", "batch.size").default, "16384");
        assert_eq!(find("consumer c", "auto.offset.reset").default, "latest");
        assert_eq!(
            find("consumer c", "isolation.level").default,
            "read_uncommitted"
        );
        assert_eq!(
            find("consumer c", "partition.assignment.strategy").default,
            "range, cooperative-sticky"
        );
    }

    /// A 4.1 scenario lists KRaft's settings, not ZooKeeper's, and the
    /// producer's `linger.ms` default of Kafka 4 (5).
    #[test]
    fn a_kraft_scenario_lists_kraft_settings() {
        let text = include_str!("../../scenarios/kraft-leader-failover.json");
        let g = settings(text);
        let cluster = &g[0];
        let keys: Vec<&str> = cluster.settings.iter().map(|s| s.key).collect();
        assert!(keys.contains(&"broker.session.timeout.ms"), "{keys:?}");
        assert!(!keys.contains(&"zookeeper.session.timeout.ms"), "{keys:?}");
        let linger = g
            .iter()
            .find(|g| g.title == "producer p")
            .and_then(|g| g.settings.iter().find(|s| s.key == "linger.ms"))
            .unwrap();
        assert_eq!(linger.default, "5");
        let old = settings(SCENARIO);
        assert!(old[0]
            .settings
            .iter()
            .any(|s| s.key == "zookeeper.session.timeout.ms"));
    }

    #[test]
    fn edits_become_kafka_typed_values_and_empty_means_the_default() {
        let edits = vec![
            (
                "/cluster/config".to_string(),
                "min.insync.replicas".to_string(),
                "2".to_string(),
            ),
            (
                "/cluster/config".to_string(),
                "zookeeper.session.timeout.ms".to_string(),
                "".to_string(),
            ),
            (
                "/producers/0/config".to_string(),
                "enable.idempotence".to_string(),
                "false".to_string(),
            ),
            (
                "/consumers/0/config".to_string(),
                "partition.assignment.strategy".to_string(),
                "sticky, range".to_string(),
            ),
        ];
        let text = apply(SCENARIO, &edits).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["cluster"]["config"]["min.insync.replicas"], 2);
        assert!(v["cluster"]["config"]
            .get("zookeeper.session.timeout.ms")
            .is_none());
        assert_eq!(v["producers"][0]["config"]["enable.idempotence"], false);
        assert_eq!(
            v["consumers"][0]["config"]["partition.assignment.strategy"],
            serde_json::json!(["sticky", "range"])
        );
        // The engine still reads it.
        kafka_sim::Scenario::from_json(&text).unwrap();
        assert!(apply(
            SCENARIO,
            &[("/producers/7/config".into(), "acks".into(), "1".into())]
        )
        .is_err());
    }
}
