//! Unit tests of the settings: defaults, parsing and validation.

use super::*;

#[test]
fn broker_defaults_are_kafkas() {
    let b = BrokerConfig::default();
    assert_eq!(b.replica_lag_time_max_ms, 30_000);
    assert_eq!(b.log_segment_bytes, 1 << 30);
    assert_eq!(b.log_index_interval_bytes, 4096);
    assert_eq!(b.effective_retention_ms(), 7 * 24 * 3_600_000);
    assert_eq!(b.log_retention_check_interval_ms, 300_000);
    assert_eq!(b.offsets_topic_num_partitions, 50);
    assert_eq!(b.default_replication_factor, 1);
    assert!(!b.unclean_leader_election_enable);
}

#[test]
fn retention_precedence_is_ms_then_minutes_then_hours() {
    let mut b = BrokerConfig {
        log_retention_hours: Some(1),
        ..BrokerConfig::default()
    };
    assert_eq!(b.effective_retention_ms(), 3_600_000);
    b.log_retention_minutes = Some(2);
    assert_eq!(b.effective_retention_ms(), 120_000);
    b.log_retention_ms = Some(5);
    assert_eq!(b.effective_retention_ms(), 5);
}

#[test]
fn ratios_parse_exactly() {
    assert_eq!(parse_ratio("0.5"), Some(Ratio(500_000)));
    assert_eq!(parse_ratio("1"), Some(Ratio(1_000_000)));
    assert_eq!(parse_ratio("0.000001"), Some(Ratio(1)));
    assert_eq!(parse_ratio("1.5"), None);
    assert_eq!(parse_ratio("0.1234567"), None);
    // serde_json writes 0.000001 as 1e-6: still a valid ratio.
    assert_eq!(serde_json::from_str::<Ratio>("0.000001").unwrap(), Ratio(1));
    assert_eq!(serde_json::from_str::<Ratio>("1e-6").unwrap(), Ratio(1));
    assert_eq!(
        serde_json::from_str::<Ratio>("2.5e-1").unwrap(),
        Ratio(250_000)
    );
    assert!(serde_json::from_str::<Ratio>("1e-7").is_err());
    let r: Ratio = serde_json::from_str("0.25").unwrap();
    assert_eq!(r, Ratio(250_000));
    assert_eq!(serde_json::to_string(&r).unwrap(), "0.25");
}

#[test]
fn unknown_keys_and_bad_values_are_named() {
    let e = serde_json::from_str::<BrokerConfig>(r#"{"min.insync.replica": 2}"#).unwrap_err();
    assert!(e.to_string().contains("min.insync.replica"), "{e}");
    let b: BrokerConfig = serde_json::from_str(r#"{"min.insync.replicas": 0}"#).unwrap();
    let e = b.validate("cluster.config").unwrap_err();
    assert_eq!(e.field, "cluster.config.min.insync.replicas");
    let p = serde_json::from_str::<CleanupPolicy>(r#""compact,delete""#).unwrap();
    assert!(p.compact && p.delete);
    assert!(serde_json::from_str::<CleanupPolicy>(r#""shred""#).is_err());
}

/// Kafka 3.9 refuses a protocol older than record format v2 needs
/// (`KafkaConfig.validateValues`), and takes 0.11.0 and later.
#[test]
fn protocol_versions_before_0_11_are_refused_as_kafka_refuses_them() {
    for old in ["0.10.2", "0.10.0-IV1", "0.9.0", "0.8.2", "0.10"] {
        let b = BrokerConfig {
            inter_broker_protocol_version: old.into(),
            ..BrokerConfig::default()
        };
        let e = b.validate("cluster.config").unwrap_err();
        assert_eq!(e.field, "cluster.config.inter.broker.protocol.version");
        assert!(
            e.message.contains("can only be used when inter.broker.protocol.version is set to version 0.11.0 or higher"),
            "{old}: {}",
            e.message
        );
    }
    for ok in ["0.11.0", "0.11.0-IV2", "1.0", "2.8", "3.9"] {
        let b = BrokerConfig {
            inter_broker_protocol_version: ok.into(),
            ..BrokerConfig::default()
        };
        assert!(b.validate("cluster.config").is_ok(), "{ok}");
    }
}
