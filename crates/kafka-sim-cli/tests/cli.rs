//! The `kafka-sim` binary, run as a user would run it.

use std::path::PathBuf;
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn kafka_sim(args: &[&str], stdin: Option<&str>) -> Output {
    use std::io::Write;
    let mut c = Command::new(env!("CARGO_BIN_EXE_kafka-sim"));
    c.args(args).current_dir(root());
    c.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    if let Some(s) = stdin {
        child.stdin.take().unwrap().write_all(s.as_bytes()).unwrap();
    } else {
        drop(child.stdin.take());
    }
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A one-line error on stderr, exit code 2, nothing on stdout, no panic.
fn assert_clean_error(o: &Output, contains: &str) {
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(o));
    let e = stderr(o);
    assert_eq!(
        e.trim_end().lines().count(),
        1,
        "one line expected, got:\n{e}"
    );
    assert!(e.contains(contains), "expected {contains:?} in {e:?}");
    assert!(!e.contains("panicked"));
}

#[test]
fn the_documented_example_is_the_shipped_scenario_and_runs() {
    let doc = std::fs::read_to_string(root().join("docs/scenario-format.md")).unwrap();
    let start = doc.find("```json\n").unwrap() + 8;
    let end = start + doc[start..].find("```").unwrap();
    let example = &doc[start..end];
    let shipped = std::fs::read_to_string(root().join("scenarios/leader-failover.json")).unwrap();
    assert_eq!(
        example, shipped,
        "docs/scenario-format.md and scenarios/leader-failover.json differ"
    );
    let o = kafka_sim(&["run", "scenarios/leader-failover.json"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("first-0: leader none → 1"), "{out}");
    assert!(out.contains("first-0: leader 1 → 0"), "{out}");
}

#[test]
fn run_json_prints_one_event_per_line_with_captions() {
    let o = kafka_sim(&["run", "scenarios/leader-failover.json", "--json"], None);
    assert!(o.status.success());
    let out = stdout(&o);
    let mut n = 0;
    for (i, line) in out.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["id"].as_u64(), Some(i as u64));
        assert!(v["caption"].as_str().is_some_and(|c| !c.is_empty()));
        assert!(v["kind"]["type"].is_string());
        n += 1;
    }
    assert!(n > 100);
}

#[test]
fn chinese_captions() {
    let o = kafka_sim(
        &["run", "scenarios/leader-failover.json", "--lang", "zh"],
        None,
    );
    assert!(o.status.success());
    assert!(stdout(&o).contains("成为 Controller"));
}

#[test]
fn malformed_and_impossible_scenarios_name_the_file_and_field() {
    let dir = std::env::temp_dir().join(format!("kafka-sim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shipped = std::fs::read_to_string(root().join("scenarios/leader-failover.json")).unwrap();
    let cases = [
        ("broken.json", "{ \"seed\": ".to_string(), "broken.json: "),
        (
            "rf.json",
            shipped.replace("\"replication.factor\": 3", "\"replication.factor\": 5"),
            "topics[0].replication.factor: Replication factor: 5 larger than available brokers: 3.",
        ),
        (
            "broker.json",
            shipped.replace("\"broker\": 1", "\"broker\": 9"),
            "commands[1].broker: no broker 9",
        ),
        (
            "typo.json",
            shipped.replace("\"acks\"", "\"ack\""),
            "producers[0].config",
        ),
        (
            "acks.json",
            shipped.replace("\"acks\": \"all\"", "\"acks\": \"most\""),
            "acks",
        ),
    ];
    for (name, text, expect) in cases {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        let o = kafka_sim(&["run", p.to_str().unwrap()], None);
        assert_clean_error(&o, expect);
        assert!(stderr(&o).contains(name));
    }
    assert_clean_error(
        &kafka_sim(&["run", "no/such/file.json"], None),
        "no/such/file.json: cannot read",
    );
    assert_clean_error(&kafka_sim(&["run"], None), "missing SCENARIO.json");
    assert_clean_error(&kafka_sim(&["frobnicate"], None), "unknown command");
    assert_clean_error(
        &kafka_sim(&["run", "scenarios/leader-failover.json", "--bogus"], None),
        "unknown option --bogus",
    );
}

#[test]
fn digest_matches_the_pinned_one() {
    let o = kafka_sim(&["digest", "scenarios/leader-failover.json"], None);
    let pinned = std::fs::read_to_string(root().join("scenarios/leader-failover.digest")).unwrap();
    assert!(
        stdout(&o).starts_with(pinned.trim()),
        "{} vs {pinned}",
        stdout(&o)
    );
}
