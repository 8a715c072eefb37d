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
