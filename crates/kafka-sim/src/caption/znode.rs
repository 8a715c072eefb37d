//! What a znode's data says, in words, for captions.
//!
//! The events keep each znode's JSON exactly as Kafka's `ZkData` writes it
//! (the event details and the ZooKeeper view show it whole). A caption reads
//! it for the learner: `/brokers/topics/t/partitions/0/state` becomes
//! "leader 1, leader_epoch 2, isr [1,2]" instead of the JSON line with its
//! version and controller epoch fields.

use super::Lang;
use serde_json::Value;

/// Longest summary: a long replica assignment ends in "…".
const MAX_CHARS: usize = 120;

/// The data of the znode at `path`, in a few words.
pub(super) fn summary(path: &str, data: &str, l: Lang) -> String {
    let en = l == Lang::En;
    let Ok(v) = serde_json::from_str::<Value>(data) else {
        return clip(data.to_string());
    };
    let Value::Object(o) = &v else {
        return clip(scalar(&v));
    };
    let field = |k: &str| o.get(k).map(scalar).unwrap_or_else(|| "?".into());
    let text = if path.ends_with("/state") && o.contains_key("leader") {
        format!(
            "leader {}{}leader_epoch {}{}isr {}",
            field("leader"),
            sep(en),
            field("leader_epoch"),
            sep(en),
            field("isr")
        )
    } else if path.starts_with("/brokers/ids/") {
        let endpoints = field("endpoints");
        match (en, o.get("rack").and_then(Value::as_str)) {
            (true, Some(rack)) => format!("endpoints {endpoints}, rack {rack}"),
            (false, Some(rack)) => format!("监听端点 {endpoints}，机架 {rack}"),
            (true, None) => format!("endpoints {endpoints}"),
            (false, None) => format!("监听端点 {endpoints}"),
        }
    } else if path == "/controller" {
        format!("brokerid {}", field("brokerid"))
    } else if path == "/latest_producer_id_block" {
        if en {
            format!(
                "producer ids {}–{} for broker {}",
                field("block_start"),
                field("block_end"),
                field("broker")
            )
        } else {
            format!(
                "生产者 id {}–{} 分给 broker {}",
                field("block_start"),
                field("block_end"),
                field("broker")
            )
        }
    } else if let Some(Value::Object(parts)) = o.get("partitions") {
        // /brokers/topics/<t>: the replica assignment, by partition number.
        let mut parts: Vec<(i64, String)> = parts
            .iter()
            .map(|(p, r)| (p.parse().unwrap_or(i64::MAX), format!("{p}:{}", scalar(r))))
            .collect();
        parts.sort();
        let list: Vec<String> = parts.into_iter().map(|(_, s)| s).collect();
        if en {
            format!("replica assignment {}", list.join(" "))
        } else {
            format!("副本分配 {}", list.join(" "))
        }
    } else if let Some(Value::Object(config)) = o.get("config") {
        // /config/topics/<t>: the topic's overrides of the broker defaults.
        if config.is_empty() {
            if en {
                "no overrides (the broker defaults)".into()
            } else {
                "无覆盖配置（使用 broker 默认值）".into()
            }
        } else {
            config
                .iter()
                .map(|(k, v)| format!("{k}={}", scalar(v)))
                .collect::<Vec<_>>()
                .join(sep(en))
        }
    } else {
        // Anything else: its fields, without the format's bookkeeping.
        o.iter()
            .filter(|(k, _)| !matches!(k.as_str(), "version" | "timestamp"))
            .map(|(k, v)| format!("{k} {}", scalar(v)))
            .collect::<Vec<_>>()
            .join(sep(en))
    };
    clip(text)
}

fn sep(en: bool) -> &'static str {
    if en {
        ", "
    } else {
        "，"
    }
}

/// A value as the learner reads it: strings unquoted, lists compact,
/// objects as "{…}".
fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => format!("[{}]", a.iter().map(scalar).collect::<Vec<_>>().join(",")),
        Value::Object(o) if o.is_empty() => "{}".into(),
        Value::Object(_) => "{…}".into(),
        other => other.to_string(),
    }
}

fn clip(s: String) -> String {
    match s.char_indices().nth(MAX_CHARS) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kafkas_znodes_read_as_words() {
        let en = |p: &str, d: &str| summary(p, d, Lang::En);
        assert_eq!(
            en(
                "/brokers/topics/t/partitions/0/state",
                r#"{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":2,"isr":[1,2]}"#
            ),
            "leader 1, leader_epoch 2, isr [1,2]"
        );
        assert_eq!(
            en(
                "/brokers/ids/0",
                r#"{"features":{},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://broker-0:9092"],"jmx_port":-1,"port":9092,"host":"broker-0","version":5,"timestamp":"0"}"#
            ),
            "endpoints [PLAINTEXT://broker-0:9092]"
        );
        assert_eq!(
            en(
                "/controller",
                r#"{"version":2,"brokerid":0,"timestamp":"0","kraftControllerEpoch":-1}"#
            ),
            "brokerid 0"
        );
        assert_eq!(en("/controller_epoch", "1"), "1");
        // Partitions in their numeric order, not as strings.
        assert_eq!(
            en(
                "/brokers/topics/t",
                r#"{"partitions":{"10":[0],"2":[1],"0":[2]},"topic_id":"x","adding_replicas":{},"removing_replicas":{},"version":3}"#
            ),
            "replica assignment 0:[2] 2:[1] 10:[0]"
        );
        assert_eq!(
            en("/config/topics/t", r#"{"version":1,"config":{}}"#),
            "no overrides (the broker defaults)"
        );
        assert_eq!(
            en(
                "/config/topics/t",
                r#"{"version":1,"config":{"segment.bytes":1048576,"cleanup.policy":"compact"}}"#
            ),
            "cleanup.policy=compact, segment.bytes=1048576"
        );
        assert_eq!(
            summary(
                "/brokers/topics/t/partitions/0/state",
                r#"{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":2,"isr":[1,2]}"#,
                Lang::Zh
            ),
            "leader 1，leader_epoch 2，isr [1,2]"
        );
    }

    #[test]
    fn a_long_assignment_is_clipped() {
        let parts: Vec<String> = (0..200).map(|p| format!("\"{p}\":[0,1,2]")).collect();
        let data = format!("{{\"partitions\":{{{}}},\"version\":3}}", parts.join(","));
        let s = summary("/brokers/topics/big", &data, Lang::En);
        assert!(s.ends_with('…'), "{s}");
        assert_eq!(s.chars().count(), MAX_CHARS + 1);
        // Not JSON: kept (clipped).
        assert_eq!(summary("/x", "plain", Lang::En), "plain");
    }
}
