//! Unit tests of parsing and validating scenarios.

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
    // The line and column are those of the value at fault (or of the
    // object missing a field), whatever the nesting.
    let e = Scenario::from_json(&MINIMAL.replace("\"broker\": 1}", "\"broker\": \"one\"}"))
        .unwrap_err();
    assert!(e.message.ends_with(" at line 8 column 9"), "{e}");
    let e = Scenario::from_json(&MINIMAL.replace("\"partitions\": 1,", "\"partitions\": 1.5,"))
        .unwrap_err();
    assert!(e.message.ends_with(" at line 4 column 48"), "{e}");
    let nested = MINIMAL.replace(
        "{\"at_ms\": 200, \"type\": \"kill_broker\", \"broker\": 1}",
        "{\"at_ms\": 200, \"type\": \"add_producer\",\n         \"producer\": {\"name\": \"q\", \"config\": {\"acks\": \"most\"}}}",
    );
    let e = Scenario::from_json(&nested).unwrap_err();
    assert_eq!(e.field, "commands[1]", "{e}");
    assert!(e.message.contains("config.acks: "), "{e}");
    assert!(e.message.ends_with(" at line 8 column 9"), "{e}");
}

#[test]
fn unknown_command_fields_are_refused() {
    let t = MINIMAL.replace("\"broker\": 1}", "\"broker\": 1, \"brokr\": 2}");
    let e = Scenario::from_json(&t).unwrap_err();
    assert!(e.to_string().contains("brokr"), "{e}");
    // A type that is not a string is named as such, not read as the
    // command at that index of the list (serde's flattening reader would).
    let t = MINIMAL.replace("\"type\": \"kill_broker\"", "\"type\": 3");
    let e = Scenario::from_json(&t).unwrap_err();
    assert!(
        e.to_string()
            .contains("type must be a string naming the command, not 3"),
        "{e}"
    );
}

/// Issue 46's scenario: one topic, every group on it.
#[test]
fn the_one_topic_scale_scenario_is_what_issue_46_describes() {
    let sc = Scenario::from_json(&super::scale::one_topic(3000, 40, 40)).unwrap();
    assert_eq!(sc.cluster.brokers.len(), 100);
    assert_eq!(sc.topics.len(), 1);
    assert_eq!(sc.topics[0].partitions, Some(3000));
    assert_eq!(sc.consumers.len(), 1600);
    assert!(sc
        .consumers
        .iter()
        .all(|c| c.subscribe.as_deref() == Some(&["t".to_string()][..])));
    assert_eq!(sc.run_until_ms, 15_000);
    let records: u64 = sc
        .commands
        .iter()
        .map(|c| match &c.command {
            Command::Produce { count, .. } => u64::from(count.unwrap_or(1)),
            _ => 0,
        })
        .sum();
    assert_eq!(records, 90_000);
}

/// The scale scenarios are valid scenarios of the size they say, within
/// the documented bounds (30,000 partitions with __consumer_offsets, 2,000
/// clients).
#[test]
fn the_scale_scenarios_are_valid_and_as_large_as_they_say() {
    for (p, g, m) in [(1000, 1, 40), (3000, 40, 40), (10_000, 1, 1)] {
        let sc = Scenario::from_json(&super::scale::scale(p, g, m)).unwrap();
        assert_eq!(sc.cluster.brokers.len(), 100);
        let total: i64 = sc
            .topics
            .iter()
            .map(|t| t.partitions.unwrap_or(1) as i64)
            .sum();
        assert_eq!(total, p as i64);
        assert_eq!(sc.consumers.len(), g * m);
        assert_eq!(sc.producers.len(), 3);
    }
}

/// Every command type reads back what it writes: `Command` is written
/// and read internally tagged (`{"type": "kill_broker", ...}`), and a
/// command in a scenario is read by `TimedCommand`'s own reader. The list
/// covers every type (checked against serde's own list of variants).
#[test]
fn every_command_type_reads_back_what_it_writes() {
    let commands = [
        r#"{"at_ms": 1, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "v", "partition": 0, "count": 2}"#,
        r#"{"at_ms": 2, "type": "kill_broker", "broker": 1, "power_failure": true}"#,
        r#"{"at_ms": 3, "type": "shutdown_broker", "broker": 1}"#,
        r#"{"at_ms": 4, "type": "restart_broker", "broker": 1}"#,
        r#"{"at_ms": 4, "type": "kill_controller", "controller": 3000}"#,
        r#"{"at_ms": 4, "type": "shutdown_controller", "controller": 3000}"#,
        r#"{"at_ms": 4, "type": "restart_controller", "controller": 3000}"#,
        r#"{"at_ms": 5, "type": "cut_link", "a": "broker-0", "b": "broker-1"}"#,
        r#"{"at_ms": 6, "type": "heal_link", "a": "broker-0", "b": "broker-1"}"#,
        r#"{"at_ms": 7, "type": "slow_link", "a": "broker-0", "b": "broker-1", "extra_latency_ms": 40}"#,
        r#"{"at_ms": 8, "type": "create_topic", "topic": {"name": "u", "partitions": 2, "replication.factor": 1}}"#,
        r#"{"at_ms": 9, "type": "add_partitions", "topic": "t", "partitions": 3}"#,
        r#"{"at_ms": 10, "type": "elect_preferred_leaders", "topic": "t", "partition": 0}"#,
        r#"{"at_ms": 11, "type": "reassign", "topic": "t", "partition": 0, "replicas": [1, 0]}"#,
        r#"{"at_ms": 12, "type": "lookup", "broker": 0, "topic": "t", "partition": 0, "offset": 3}"#,
        r#"{"at_ms": 13, "type": "add_producer", "producer": {"name": "q", "config": {"acks": "1"}}}"#,
        r#"{"at_ms": 14, "type": "close_producer", "producer": "p", "timeout_ms": 0}"#,
        r#"{"at_ms": 15, "type": "init_transactions", "producer": "p"}"#,
        r#"{"at_ms": 16, "type": "begin_transaction", "producer": "p"}"#,
        r#"{"at_ms": 17, "type": "commit_transaction", "producer": "p"}"#,
        r#"{"at_ms": 18, "type": "abort_transaction", "producer": "p"}"#,
        r#"{"at_ms": 19, "type": "send_offsets_to_transaction", "producer": "p", "consumer": "c"}"#,
        r#"{"at_ms": 20, "type": "add_consumer", "consumer": {"name": "d", "subscribe": ["t"], "config": {"group.id": "g"}}}"#,
        r#"{"at_ms": 21, "type": "stop_consumer", "consumer": "c"}"#,
        r#"{"at_ms": 22, "type": "crash_consumer", "consumer": "c"}"#,
        r#"{"at_ms": 23, "type": "commit_sync", "consumer": "c"}"#,
        r#"{"at_ms": 24, "type": "commit_async", "consumer": "c"}"#,
        r#"{"at_ms": 25, "type": "pause_consumer", "consumer": "c", "duration_ms": 500}"#,
    ];
    let mut names = Vec::new();
    for text in commands {
        let c: TimedCommand = serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let written = serde_json::to_value(&c).unwrap();
        assert_eq!(written["type"], c.command.name(), "{text}");
        let back: TimedCommand =
            serde_json::from_value(written.clone()).unwrap_or_else(|e| panic!("{written}: {e}"));
        assert_eq!(back, c, "{text}");
        names.push(c.command.name());
    }
    // serde names every variant when the type is unknown.
    let e = serde_json::from_str::<TimedCommand>(r#"{"at_ms": 0, "type": "?"}"#).unwrap_err();
    let listed: Vec<String> = e
        .to_string()
        .split('`')
        .skip(3)
        .step_by(2)
        .map(str::to_string)
        .collect();
    assert_eq!(names, listed, "{e}");
}
