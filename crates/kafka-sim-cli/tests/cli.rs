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
        // The binary may exit before reading (a bad flag): a broken pipe is fine.
        let _ = child.stdin.take().unwrap().write_all(s.as_bytes());
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
    assert!(stdout(&o).contains("成为控制器"));
}

/// Captions call each client by its scenario name, as the page does: the
/// group example's consumers are "a" and "b", and "c" joins by a command.
#[test]
fn run_calls_clients_by_their_scenario_names() {
    for (lang, word) in [("en", "Consumer "), ("zh", "消费者 ")] {
        let o = kafka_sim(
            &["run", "scenarios/group-rebalance.json", "--lang", lang],
            None,
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        for name in ["a", "b", "c"] {
            assert!(
                out.contains(&format!("{word}{name} ")),
                "{lang}: {word}{name}"
            );
        }
        for n in 0..3 {
            assert!(
                !out.contains(&format!("{word}{n} ")),
                "{lang}: numbered {word}{n}"
            );
        }
    }
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

/// Members' `rack_id` and `partition_racks` make Range and the sticky
/// assignors rack-aware
/// (RangeAssignorTest.testRackAwareAssignmentWithUniformSubscription, rf 1).
#[test]
fn assign_range_is_rack_aware_with_racks() {
    let req = r#"{"partitions_per_topic":{"t1":6,"t2":7,"t3":2},
        "members":[{"member_id":"consumer0","topics":["t1","t2","t3"],"rack_id":"a"},
                   {"member_id":"consumer1","topics":["t1","t2","t3"],"rack_id":"b"},
                   {"member_id":"consumer2","topics":["t1","t2","t3"],"rack_id":"c"}],
        "partition_racks":{"t1":[["a"],["b"],["c"],["a"],["b"],["c"]],
                           "t2":[["a"],["b"],["c"],["a"],["b"],["c"],["a"]],
                           "t3":[["b"],["c"]]}}"#;
    let o = kafka_sim(&["assign", "--strategy", "range", "--json"], Some(req));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        v["assignment"]["consumer0"],
        serde_json::json!(["t1-0", "t1-3", "t2-0", "t2-3", "t2-6"])
    );
    assert_eq!(
        v["assignment"]["consumer1"],
        serde_json::json!(["t1-1", "t1-4", "t2-1", "t2-4", "t3-0"])
    );
    // The sticky assignors are rack-aware too
    // (AbstractStickyAssignorTest.testRackAwareAssignmentWithUniformSubscription).
    let o = kafka_sim(
        &["assign", "--strategy", "cooperative-sticky", "--json"],
        Some(req),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let mut c2: Vec<String> = serde_json::from_value(v["assignment"]["consumer2"].clone()).unwrap();
    c2.sort();
    assert_eq!(c2, ["t1-2", "t1-5", "t2-2", "t2-5", "t3-1"]);
    assert_clean_error(
        &kafka_sim(
            &["assign", "--strategy", "range", "--json"],
            Some(&req.replace(r#""t3":[["b"],["c"]]"#, r#""t3":[["b"]]"#)),
        ),
        "partition_racks.t3: 1 entries for 2 partition(s)",
    );
}

/// `"racks"` makes `place` rack-aware, as `AdminRackAwareTest` expects.
#[test]
fn place_takes_racks_and_places_rack_aware() {
    let o = kafka_sim(
        &["place", "--json"],
        Some(
            r#"{"brokers":[0,1,2,3,4,5],"num_partitions":7,"replication_factor":3,"fixed_start_index":0,"start_partition_id":0,
               "racks":{"0":"rack1","1":"rack3","2":"rack3","3":"rack2","4":"rack2","5":"rack1"}}"#,
        ),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["rack_alternated"], serde_json::json!([0, 3, 1, 5, 4, 2]));
    assert_eq!(v["assignment"]["0"], serde_json::json!([0, 3, 1]));
    assert_eq!(v["assignment"]["6"], serde_json::json!([0, 4, 2]));
    // The text form names each broker's rack in the list.
    let o = kafka_sim(
        &["place"],
        Some(
            r#"{"brokers":[0,1,2],"num_partitions":1,"replication_factor":2,"racks":{"0":"a","1":"b","2":"a"}}"#,
        ),
    );
    assert!(
        stdout(&o).contains("rack-alternated list: 0@a 1@b 2@a"),
        "{}",
        stdout(&o)
    );
    // Some brokers without a rack: Kafka's AdminOperationException.
    assert_clean_error(
        &kafka_sim(
            &["place", "--json"],
            Some(
                r#"{"brokers":[0,1,2],"num_partitions":1,"replication_factor":2,"racks":{"0":"a"}}"#,
            ),
        ),
        "Not all brokers have rack information for replica rack aware assignment.",
    );
    assert_clean_error(
        &kafka_sim(
            &["place", "--json"],
            Some(
                r#"{"brokers":[0,1],"num_partitions":1,"replication_factor":2,"racks":{"0":"a","7":"b"}}"#,
            ),
        ),
        "racks: broker 7 is not in brokers",
    );
    assert_clean_error(
        &kafka_sim(
            &["place", "--json"],
            Some(
                r#"{"brokers":[0,1],"num_partitions":1,"replication_factor":2,"racks":{"0":"","1":"b"}}"#,
            ),
        ),
        "racks.0",
    );
}

#[test]
fn place_reproduces_the_source_notes_example_and_kafkas_errors() {
    let o = kafka_sim(
        &["place", "--json"],
        Some(
            r#"{"brokers":[0,1,2,3],"num_partitions":16,"replication_factor":3,"fixed_start_index":0,"start_partition_id":-1}"#,
        ),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["assignment"]["0"], serde_json::json!([0, 1, 2]));
    assert_eq!(v["assignment"]["4"], serde_json::json!([0, 2, 3]));
    assert_eq!(v["assignment"]["15"], serde_json::json!([3, 0, 1]));
    assert_eq!(v["assignment"].as_object().unwrap().len(), 16);
    // Without a fixed start index the seeded RNG picks; the same seed, the same answer.
    let a = stdout(&kafka_sim(
        &["place", "--json"],
        Some(r#"{"brokers":[0,1,2],"num_partitions":4,"replication_factor":2,"seed":9}"#),
    ));
    let b = stdout(&kafka_sim(
        &["place", "--json"],
        Some(r#"{"brokers":[0,1,2],"num_partitions":4,"replication_factor":2,"seed":9}"#),
    ));
    assert_eq!(a, b);
    assert_clean_error(
        &kafka_sim(
            &["place", "--json"],
            Some(r#"{"brokers":[0,1],"num_partitions":3,"replication_factor":3}"#),
        ),
        "Replication factor: 3 larger than available brokers: 2.",
    );
    assert_clean_error(
        &kafka_sim(
            &["place", "--json"],
            Some(r#"{"brokers":[0,1],"num_partitions":0,"replication_factor":1}"#),
        ),
        "Number of partitions must be larger than 0.",
    );
    assert_clean_error(
        &kafka_sim(&["place", "--json"], Some(r#"{"brokers":"x"}"#)),
        "bad request: brokers",
    );
    assert_clean_error(
        &kafka_sim(&["place", "--json"], Some("not json")),
        "bad request",
    );
}

#[test]
fn elect_follows_kafkas_rules() {
    let run = |req: &str| {
        let o = kafka_sim(&["elect", "--json"], Some(req));
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str::<serde_json::Value>(&stdout(&o)).unwrap()
    };
    let v = run(
        r#"{"algorithm":"offline","assignment":[1,0,2],"isr":[1,0,2],"live":[0,2],"unclean_leader_election_enable":false,"shutting_down":[]}"#,
    );
    assert_eq!(v, serde_json::json!({"leader": 0, "isr": [0, 2]}));
    let v = run(r#"{"algorithm":"offline","assignment":[1,0,2],"isr":[1],"live":[0,2]}"#);
    assert_eq!(v["leader"], serde_json::Value::Null);
    let v = run(
        r#"{"algorithm":"offline","assignment":[1,0,2],"isr":[1],"live":[0,2],"unclean_leader_election_enable":true}"#,
    );
    assert_eq!(v, serde_json::json!({"leader": 0, "isr": [0]}));
    let v = run(r#"{"algorithm":"preferred","assignment":[1,0,2],"isr":[0,1,2],"live":[0,1,2]}"#);
    assert_eq!(v["leader"], 1);
    let v = run(
        r#"{"algorithm":"controlled-shutdown","assignment":[1,0,2],"isr":[1,0,2],"live":[0,1,2],"shutting_down":[1]}"#,
    );
    assert_eq!(v, serde_json::json!({"leader": 0, "isr": [0, 2]}));
    assert_clean_error(
        &kafka_sim(
            &["elect", "--json"],
            Some(r#"{"algorithm":"random","assignment":[],"isr":[],"live":[]}"#),
        ),
        "algorithm",
    );
}

#[test]
fn partition_prints_murmur2_like_kafka() {
    let o = kafka_sim(
        &["partition", "--partitions", "10", "--json", "foobar", "21"],
        None,
    );
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        v["results"][0],
        serde_json::json!({"key": "foobar", "murmur2": -790332482, "positive": 1357151166, "partition": 6})
    );
    assert_eq!(v["results"][1]["murmur2"], -973932308);
    assert_clean_error(
        &kafka_sim(&["partition", "--partitions", "0", "k"], None),
        "--partitions must be at least 1",
    );
    assert_clean_error(
        &kafka_sim(&["partition", "--partitions", "x", "k"], None),
        "not a valid number",
    );
    assert_clean_error(
        &kafka_sim(&["partition", "k"], None),
        "missing --partitions",
    );
}

/// `describe`: the admin tools' views at a step, in Kafka's layout.
#[test]
fn describe_prints_kafka_topics_and_consumer_groups_views() {
    let o = kafka_sim(
        &[
            "describe",
            "scenarios/leader-failover.json",
            "--at",
            "100",
            "topics",
            "--topic",
            "first",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("Topic: first\tTopicId: "), "{out}");
    assert!(
        lines[0].contains("\tPartitionCount: 1\tReplicationFactor: 3\tConfigs: "),
        "{out}"
    );
    assert_eq!(
        lines[1],
        "\tTopic: first\tPartition: 0\tLeader: 1\tReplicas: 1,0,2\tIsr: 1,0,2\tElr: N/A\tLastKnownElr: N/A"
    );
    // At the end, broker 1 has failed over to 0 and left the ISR.
    let end = stdout(&kafka_sim(
        &[
            "describe",
            "scenarios/leader-failover.json",
            "topics",
            "--exclude-internal",
        ],
        None,
    ));
    assert!(
        end.contains("\tLeader: 0\tReplicas: 1,0,2\tIsr: 0,2\t"),
        "{end}"
    );
    assert!(!end.contains("__consumer_offsets"));
    let g = stdout(&kafka_sim(
        &["describe", "scenarios/group-rebalance.json", "groups"],
        None,
    ));
    let header = g.lines().nth(1).unwrap_or("");
    assert!(
        header.starts_with("GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID"),
        "{g:?}"
    );
    let m = stdout(&kafka_sim(
        &[
            "describe",
            "scenarios/group-rebalance.json",
            "groups",
            "--members",
            "--verbose",
        ],
        None,
    ));
    assert!(
        m.lines()
            .nth(1)
            .unwrap_or("")
            .ends_with("#PARTITIONS     ASSIGNMENT"),
        "{m:?}"
    );
    let st = stdout(&kafka_sim(
        &[
            "describe",
            "scenarios/group-rebalance.json",
            "groups",
            "--state",
        ],
        None,
    ));
    assert!(
        st.contains("COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE           #MEMBERS"),
        "{st:?}"
    );
    assert_clean_error(
        &kafka_sim(
            &[
                "describe",
                "scenarios/group-rebalance.json",
                "groups",
                "--members",
                "--state",
            ],
            None,
        ),
        "give one of --members and --state",
    );
    assert_clean_error(
        &kafka_sim(
            &["describe", "scenarios/leader-failover.json", "brokers"],
            None,
        ),
        "not topics, groups or quorum",
    );
    // Kafka 4.1: kafka-metadata-quorum describe --status, from the leader.
    let q = kafka_sim(
        &[
            "describe",
            "scenarios/kraft-controller-failover.json",
            "quorum",
        ],
        None,
    );
    assert!(q.status.success(), "{}", stderr(&q));
    let text = String::from_utf8_lossy(&q.stdout);
    let labels: Vec<&str> = text.lines().map(|l| l[..24].trim_end()).collect();
    assert_eq!(
        labels,
        [
            "ClusterId:",
            "LeaderId:",
            "LeaderEpoch:",
            "HighWatermark:",
            "MaxFollowerLag:",
            "MaxFollowerLagTimeMs:",
            "CurrentVoters:",
            "CurrentObservers:"
        ],
        "{text}"
    );
    // The scenario's first leader (3001) died; another leads a later epoch.
    assert!(!text.lines().nth(1).unwrap().ends_with("3001"), "{text}");
    assert!(
        text.contains(r#"{"id": 3001, "endpoints": ["CONTROLLER://controller-3001:9093"]}"#),
        "{text}"
    );
    assert!(text.contains(r#"{"id": 0, "directoryId": ""#), "{text}");
    assert_clean_error(
        &kafka_sim(
            &["describe", "scenarios/leader-failover.json", "quorum"],
            None,
        ),
        "no controller quorum",
    );
    assert_clean_error(
        &kafka_sim(
            &[
                "describe",
                "scenarios/leader-failover.json",
                "--at",
                "99999999",
                "topics",
            ],
            None,
        ),
        "the run has",
    );
}

/// `--` ends the options, so a key that looks like an option is a key; with
/// no key arguments, `partition` reads one key per line from stdin.
#[test]
fn partition_takes_dash_dash_keys_and_keys_on_stdin() {
    let key = |o: &Output, i: usize| {
        assert!(o.status.success(), "{}", stderr(o));
        let v: serde_json::Value = serde_json::from_str(&stdout(o)).unwrap();
        v["results"][i].clone()
    };
    // Before `--`, an unknown option is refused...
    assert_clean_error(
        &kafka_sim(&["partition", "--partitions", "10", "--abc"], None),
        "unknown option --abc",
    );
    // ...after it, `--abc` and `--json` are keys; options before it still count.
    let o = kafka_sim(
        &[
            "partition",
            "--partitions",
            "10",
            "--json",
            "--",
            "--abc",
            "--json",
        ],
        None,
    );
    assert_eq!(key(&o, 0)["key"], "--abc");
    assert_eq!(key(&o, 1)["key"], "--json");
    assert_eq!(
        key(&o, 0)["murmur2"],
        kafka_sim::partitioner::murmur2(b"--abc")
    );
    // The same keys piped on stdin give the same answers (CRLF lines too).
    let o = kafka_sim(
        &["partition", "--partitions", "10", "--json"],
        Some("foobar\r\n21\n--abc\n"),
    );
    assert_eq!(
        key(&o, 0),
        serde_json::json!({"key": "foobar", "murmur2": -790332482, "positive": 1357151166, "partition": 6})
    );
    assert_eq!(key(&o, 1)["murmur2"], -973932308);
    assert_eq!(key(&o, 2)["key"], "--abc");
    // Nothing anywhere: one clear line.
    assert_clean_error(
        &kafka_sim(&["partition", "--partitions", "10"], Some("")),
        "stdin was empty",
    );
    // `--` works for the other commands' paths too.
    assert_clean_error(
        &kafka_sim(&["dump-log", "--", "--no-such.log"], None),
        "--no-such.log",
    );
}

#[test]
fn coordinator_uses_java_hash_code_and_utils_abs() {
    let o = kafka_sim(&["coordinator", "--group", "hello", "--json"], None);
    assert_eq!(
        stdout(&o).trim(),
        r#"{"partition":22,"topic":"__consumer_offsets"}"#
    ); // 99162322 % 50
    let o = kafka_sim(
        &["coordinator", "--group", "polygenelubricants", "--json"],
        None,
    );
    assert!(stdout(&o).starts_with(r#"{"partition":0,"#)); // hashCode is Integer.MIN_VALUE
    let o = kafka_sim(
        &[
            "coordinator",
            "--group",
            "hello",
            "--offsets-partitions",
            "7",
            "--json",
        ],
        None,
    );
    assert_eq!(
        stdout(&o).trim(),
        format!(
            r#"{{"partition":{},"topic":"__consumer_offsets"}}"#,
            99_162_322 % 7
        )
    );
    assert_clean_error(
        &kafka_sim(&["coordinator", "--json"], None),
        "missing --group",
    );
}

#[test]
fn the_transaction_coordinator_is_found_the_same_way() {
    // "my-txn".hashCode() = -1061187895 (Java); Utils.abs → 1061187895;
    // % 50 (transaction.state.log.num.partitions) = 45.
    let o = kafka_sim(&["coordinator", "--transactional-id", "my-txn"], None);
    let text = stdout(&o);
    assert!(text.contains("-1061187895"), "{text}");
    assert!(text.contains("__transaction_state-45"), "{text}");
    let o = kafka_sim(
        &[
            "coordinator",
            "--transactional-id",
            "my-txn",
            "--transaction-partitions",
            "7",
            "--json",
        ],
        None,
    );
    assert_eq!(
        stdout(&o).trim(),
        format!(
            r#"{{"partition":{},"topic":"__transaction_state"}}"#,
            1_061_187_895 % 7
        )
    );
    for (args, says) in [
        (
            &["coordinator", "--group", "g", "--transactional-id", "t"][..],
            "not both",
        ),
        (
            &[
                "coordinator",
                "--transactional-id",
                "t",
                "--offsets-partitions",
                "3",
            ][..],
            "goes with --group",
        ),
        (
            &[
                "coordinator",
                "--transactional-id",
                "t",
                "--transaction-partitions",
                "0",
            ][..],
            "at least 1",
        ),
        (&["coordinator", "--transactional-id", ""][..], "empty"),
    ] {
        assert_clean_error(&kafka_sim(args, None), says);
    }
}

#[test]
fn segments_dump_log_and_lookup_round_trip() {
    let dir = std::env::temp_dir().join(format!("kafka-sim-seg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // The source note's example: batches of 252 bytes (one record, a 180-byte
    // value), index.interval.bytes 700: offset 3 is indexed at position 756.
    let value = "x".repeat(180);
    let batches: Vec<String> = (0..6)
        .map(|i| {
            format!(
                r#"[{{"key":"k0","value":"{value}","timestamp":{}}}]"#,
                1_700_000_000_000i64 + i
            )
        })
        .collect();
    let input = dir.join("batches.json");
    std::fs::write(
        &input,
        format!(
            r#"{{"topic":"first","partition":0,"batches":[{}]}}"#,
            batches.join(",")
        ),
    )
    .unwrap();
    let out = dir.join("out");
    let o = kafka_sim(
        &[
            "segments",
            "--input",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--index-interval-bytes",
            "700",
            "--segment-bytes",
            "1000",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let part = out.join("first-0");
    let mut files: Vec<String> = std::fs::read_dir(&part)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "00000000000000000000.index",
            "00000000000000000000.log",
            "00000000000000000000.timeindex",
            "00000000000000000003.index",
            "00000000000000000003.log",
            "00000000000000000003.timeindex"
        ]
    );
    // segment.bytes 1000: three 252-byte batches fit (756), a fourth would not.
    assert_eq!(
        std::fs::metadata(part.join("00000000000000000000.log"))
            .unwrap()
            .len(),
        756
    );
    let o = kafka_sim(
        &[
            "dump-log",
            part.join("00000000000000000000.log").to_str().unwrap(),
        ],
        None,
    );
    let dump = stdout(&o);
    assert_eq!(dump.matches("isvalid: true").count(), 3);
    assert!(dump.contains("baseOffset: 2 lastOffset: 2 count: 1"));
    assert!(dump.contains("position: 504"));
    let o = kafka_sim(
        &[
            "dump-log",
            part.join("00000000000000000000.timeindex")
                .to_str()
                .unwrap(),
        ],
        None,
    );
    assert!(
        stdout(&o).contains("timestamp: 1700000000002 offset: 2"),
        "{}",
        stdout(&o)
    );
    let o = kafka_sim(
        &["lookup", part.to_str().unwrap(), "--offset", "4", "--json"],
        None,
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        v["result"],
        serde_json::json!({"offset": 4, "position": 252})
    );
    // Existing output is not overwritten; bad arguments are named.
    assert_clean_error(
        &kafka_sim(
            &[
                "segments",
                "--input",
                input.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            None,
        ),
        "already exists",
    );
    assert_clean_error(
        &kafka_sim(
            &[
                "segments",
                "--input",
                input.to_str().unwrap(),
                "--out",
                "x",
                "--segment-bytes",
                "3",
            ],
            None,
        ),
        "--segment-bytes",
    );
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"topic":"first","partition":0,"batches":[[{"key":"k","value":"v"}]]}"#,
    )
    .unwrap();
    assert_clean_error(
        &kafka_sim(
            &["segments", "--input", bad.to_str().unwrap(), "--out", "x"],
            None,
        ),
        "timestamp",
    );
    assert_clean_error(
        &kafka_sim(&["dump-log", "nope.txt"], None),
        "20-digit base offset",
    );
    assert_clean_error(
        &kafka_sim(&["lookup", part.to_str().unwrap()], None),
        "exactly one of --offset",
    );
    // A corrupt index is named, not trusted (issue 18, item 15): a
    // negative position, then offsets out of order.
    let out2 = dir.join("indexed");
    let o = kafka_sim(
        &[
            "segments",
            "--input",
            input.to_str().unwrap(),
            "--out",
            out2.to_str().unwrap(),
            "--index-interval-bytes",
            "100",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let indexed = out2.join("first-0");
    let index = indexed.join("00000000000000000000.index");
    let good = std::fs::read(&index).unwrap();
    assert!(
        good.len() >= 16,
        "two index entries at least: {}",
        good.len()
    );
    let part = &indexed;
    let mut bad_pos = good.clone();
    bad_pos[4..8].copy_from_slice(&(-16_777_216i32).to_be_bytes());
    std::fs::write(&index, &bad_pos).unwrap();
    assert_clean_error(
        &kafka_sim(&["lookup", part.to_str().unwrap(), "--offset", "2"], None),
        "corrupt index (entry 0 points at position -16777216",
    );
    let mut twice = good.clone();
    twice.extend_from_slice(&good[..8]);
    std::fs::write(&index, &twice).unwrap();
    assert_clean_error(
        &kafka_sim(&["lookup", part.to_str().unwrap(), "--offset", "2"], None),
        "does not follow entry",
    );
    std::fs::write(&index, &good).unwrap();
    let o = kafka_sim(
        &["lookup", part.to_str().unwrap(), "--offset", "4", "--json"],
        None,
    );
    assert!(
        o.status.success(),
        "the intact index is trusted: {}",
        stderr(&o)
    );
    let part = out.join("first-0");
    // A corrupted byte shows up as an invalid batch, not a crash.
    let log = part.join("00000000000000000000.log");
    let mut bytes = std::fs::read(&log).unwrap();
    bytes[300] ^= 0xff;
    std::fs::write(&log, bytes).unwrap();
    let o = kafka_sim(&["dump-log", log.to_str().unwrap()], None);
    assert!(o.status.success());
    assert!(stdout(&o).contains("isvalid: false"), "{}", stdout(&o));
}

#[test]
fn assign_answers_for_each_strategy_in_kafkas_order() {
    let req = r#"{"partitions_per_topic":{"t":7},"members":[
        {"member_id":"c3","topics":["t"]},{"member_id":"c1","topics":["t"]},{"member_id":"c2","topics":["t"]}]}"#;
    let o = kafka_sim(&["assign", "--strategy", "range", "--json"], Some(req));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).trim(),
        r#"{"assignment":{"c3":["t-5","t-6"],"c1":["t-0","t-1","t-2"],"c2":["t-3","t-4"]}}"#
    );
    // Cooperative: c1 owned everything; c2 joins. This round only revokes.
    let req = r#"{"partitions_per_topic":{"t":4},"members":[
        {"member_id":"c1","topics":["t"],"owned_partitions":["t-0","t-1","t-2","t-3"],"generation":3},
        {"member_id":"c2","topics":["t"]}]}"#;
    let o = kafka_sim(
        &["assign", "--strategy", "cooperative-sticky", "--json"],
        Some(req),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["assignment"]["c1"], serde_json::json!(["t-0", "t-1"]));
    assert_eq!(v["assignment"]["c2"], serde_json::json!([]));
    assert_eq!(v["revoke"]["c1"], serde_json::json!(["t-2", "t-3"]));
    let o = kafka_sim(&["assign", "--strategy", "sticky"], Some(req));
    assert!(stdout(&o).contains("c2: [t-2, t-3]"), "{}", stdout(&o));
}

#[test]
fn assign_rejects_bad_input_in_one_line() {
    let o = kafka_sim(&["assign", "--strategy", "fair", "--json"], Some("{}"));
    assert_clean_error(&o, "`fair` is not an assignor");
    let o = kafka_sim(&["assign", "--strategy", "range", "--json"], Some("{"));
    assert_clean_error(&o, "bad request");
    let req = r#"{"partitions_per_topic":{"t":2},"members":[{"member_id":"a","topics":["t"],"owned_partitions":["t-5"]}]}"#;
    let o = kafka_sim(&["assign", "--strategy", "sticky", "--json"], Some(req));
    assert_clean_error(&o, "owns t-5");
    let req = r#"{"partitions_per_topic":{"t":2},"members":[{"member_id":"a","topics":["t"],"colour":"red"}]}"#;
    let o = kafka_sim(&["assign", "--strategy", "sticky", "--json"], Some(req));
    assert_clean_error(&o, "colour");
}

#[test]
fn exercise_prints_questions_with_the_engines_answer() {
    let o = kafka_sim(
        &[
            "exercise", "--kind", "election", "--level", "hard", "--seed", "3", "--count", "5",
            "--json",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    for l in &lines {
        let answer = l["answer"].as_str().unwrap();
        assert!(l["choices"].as_array().unwrap().iter().any(|c| c == answer));
        assert!(l["question_en"].as_str().unwrap().contains("AR ["));
    }
    // Same seed, same question.
    let again = kafka_sim(
        &[
            "exercise", "--kind", "election", "--level", "hard", "--seed", "3", "--count", "5",
            "--json",
        ],
        None,
    );
    assert_eq!(stdout(&again), stdout(&o));
    let o = kafka_sim(&["exercise", "--kind", "quiz"], None);
    assert_clean_error(&o, "`quiz` is not one of");
    let o = kafka_sim(&["exercise", "--kind", "partition", "--count", "0"], None);
    assert_clean_error(&o, "--count");
}

/// Calculator input at the edges (issue 18, items 9 and 14): sizes are
/// bounded, trailing garbage and stray arguments are refused, and seeds do
/// not overflow.
#[test]
fn calculators_refuse_oversized_and_trailing_input() {
    assert_clean_error(
        &kafka_sim(
            &["place", "--json"],
            Some(r#"{"brokers":[0,1,2],"num_partitions":2147483647,"replication_factor":1}"#),
        ),
        "num_partitions: at most 10000",
    );
    assert_clean_error(
        &kafka_sim(
            &["place", "--json"],
            Some(
                r#"{"brokers":[0,1,2],"num_partitions":2,"replication_factor":1,"start_partition_id":2147483647}"#,
            ),
        ),
        "start_partition_id",
    );
    assert_clean_error(
        &kafka_sim(
            &["place", "--json"],
            Some(r#"{"brokers":[0,1,2],"num_partitions":2,"replication_factor":1} trailing"#),
        ),
        "something follows the JSON request",
    );
    assert_clean_error(
        &kafka_sim(
            &["elect", "--json"],
            Some(r#"{"algorithm":"offline","assignment":[0],"isr":[0],"live":[0],"extra":1}"#),
        ),
        "unknown field `extra`",
    );
    assert_clean_error(
        &kafka_sim(
            &["assign", "--strategy", "range", "--json"],
            Some(
                r#"{"partitions_per_topic":{"t":2147483647},"members":[{"member_id":"c1","topics":["t"]}]}"#,
            ),
        ),
        "partitions_per_topic",
    );
    assert_clean_error(
        &kafka_sim(&["coordinator", "--group", "g", "stray"], None),
        "unexpected argument `stray`",
    );
    assert_clean_error(
        &kafka_sim(&["exercise", "--kind", "partition", "stray"], None),
        "unexpected argument `stray`",
    );
    assert_clean_error(
        &kafka_sim(
            &[
                "exercise",
                "--kind",
                "partition",
                "--seed",
                "18446744073709551615",
                "--count",
                "1",
            ],
            None,
        ),
        "past the largest seed",
    );
}

/// `run` streams: a scenario stopped by the kernel (or the event cap) ends
/// with one line saying why and exit 2, after the trace it did record.
#[test]
fn run_reports_an_assign_consumer_commit_in_one_line() {
    let dir = std::env::temp_dir().join(format!("kafka-sim-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("assign-commit.json");
    std::fs::write(
        &f,
        r#"{"seed":1,"cluster":{"brokers":[0]},"topics":[{"name":"t","partitions":1}],"producers":[{"name":"p"}],"consumers":[{"name":"c","assign":["t-0"],"commit":"sync_before_processing","config":{"auto.offset.reset":"earliest"}}],"commands":[{"at_ms":100,"type":"produce","producer":"p","topic":"t","value":"v"}]}"#,
    )
    .unwrap();
    assert_clean_error(
        &kafka_sim(&["run", f.to_str().unwrap()], None),
        "consumers[0].commit: commitSync() needs a group.id",
    );
}

/// The CLI accepts and refuses the same lessons as the page (issue 18,
/// item 13): a malformed lesson is refused when the scenario is read, and a
/// question whose answer is no readable field of its event when the run
/// reaches it.
#[test]
fn run_refuses_the_lessons_the_page_refuses() {
    let dir = std::env::temp_dir().join(format!("kafka-sim-lesson-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shipped = std::fs::read_to_string(root().join("scenarios/leader-failover.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&shipped).unwrap();
    v["lesson"] = serde_json::json!({"steps": [{"at": {"type": "leader_elected"}, "ask": {"en": "Who?"}, "choices": ["0"], "answer": "/leader"}]});
    let f = dir.join("one-choice.json");
    std::fs::write(&f, v.to_string()).unwrap();
    assert_clean_error(
        &kafka_sim(&["run", f.to_str().unwrap()], None),
        "lesson.steps[0].choices: a question needs at least two choices",
    );
    v["lesson"] = serde_json::json!({"steps": [{"at": {"type": "leader_elected"}, "ask": {"en": "Who?"}, "choices": ["0", "none"], "choices_zh": ["0"], "answer": "/leader"}]});
    let f = dir.join("zh-labels.json");
    std::fs::write(&f, v.to_string()).unwrap();
    assert_clean_error(
        &kafka_sim(&["run", f.to_str().unwrap()], None),
        "lesson.steps[0].choices_zh: 1 labels for 2 choices (one per choice, in order)",
    );
    v["lesson"] = serde_json::json!({"steps": [{"at": {"type": "leader_elected"}, "ask": {"en": "Who?"}, "choices": ["0", "1"], "answer": "/no_such_field"}]});
    let f = dir.join("bad-answer.json");
    std::fs::write(&f, v.to_string()).unwrap();
    let o = kafka_sim(&["run", f.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("lesson.steps[0].answer: a leader_elected event has no field /no_such_field"),
        "{}",
        stderr(&o)
    );
    // A question to the finder names clients the scenario has.
    v["lesson"] = serde_json::json!({"steps": [{"at": {"type": "leader_elected"}, "ask": {"en": "Lost?"}, "choices": ["yes", "no"], "answer": "explore:acknowledged_records_survive", "explore": {"faults": ["crash"], "clients": ["ghost"]}}]});
    let f = dir.join("finder-ghost.json");
    std::fs::write(&f, v.to_string()).unwrap();
    assert_clean_error(
        &kafka_sim(&["run", f.to_str().unwrap()], None),
        "lesson.steps[0].answer: explore.clients: the scenario has no producer or consumer named `ghost`",
    );
    v["lesson"] = serde_json::json!({"steps": [{"at": {"type": "leader_elected"}, "ask": {"en": "Lost?"}, "choices": ["yes", "maybe"], "answer": "explore:acknowledged_records_survive", "explore": {"faults": ["crash"]}}]});
    let f = dir.join("finder-maybe.json");
    std::fs::write(&f, v.to_string()).unwrap();
    assert_clean_error(
        &kafka_sim(&["run", f.to_str().unwrap()], None),
        "lesson.steps[0].choices: the finder answers \"yes\" or \"no\"",
    );
    // The shipped lessons all pass.
    let mut n = 0;
    for l in std::fs::read_dir(root().join("static/lessons"))
        .unwrap()
        .flatten()
    {
        let p = l.path();
        if p.file_name().is_some_and(|n| n != "index.json") {
            let o = kafka_sim(&["run", p.to_str().unwrap()], None);
            assert!(o.status.success(), "{}: {}", p.display(), stderr(&o));
            n += 1;
        }
    }
    assert!(n >= 10, "{n} lessons");
}

#[test]
fn metrics_prints_kafkas_names_as_text_csv_and_json() {
    let lesson = "static/lessons/acks-retries-idempotence.json";
    let o = kafka_sim(
        &["metrics", lesson, "--name", "UnderMinIsrPartitionCount"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // At the end brokers 1 and 2 are dead: broker 0 alone, below min ISR.
    assert!(out.starts_with("after "), "{out}");
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(rows.len(), 1, "{out}");
    assert!(rows[0].contains("broker-0"), "{out}");
    assert!(rows[0].contains("kafka.server:type=ReplicaManager,name=UnderMinIsrPartitionCount"));
    assert!(rows[0].trim_end().ends_with(" 1"), "{out}");

    let o = kafka_sim(
        &[
            "metrics",
            lesson,
            "--every",
            "1000",
            "--csv",
            "--name",
            "FailedProduceRequestsPerSec",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = stdout(&o);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("step,time_ms,node,mbean,attribute,value")
    );
    let first = lines.next().unwrap();
    assert_eq!(
        first,
        "26,0,broker-0,\"kafka.server:type=BrokerTopicMetrics,name=FailedProduceRequestsPerSec\",Count,0"
    );
    // The count at 12 s is the NOT_ENOUGH_REPLICAS refusals in the trace.
    let refused = stdout(&kafka_sim(&["run", "--json", lesson], None))
        .lines()
        .filter(|l| {
            l.contains("\"type\":\"produce_rejected\"") && l.contains("NOT_ENOUGH_REPLICAS")
        })
        .count();
    assert!(refused > 0);
    let last_count = csv
        .lines()
        .rev()
        .find(|l| l.starts_with(|c: char| c.is_ascii_digit()) && l.contains(",Count,"))
        .unwrap();
    assert!(
        last_count.ends_with(&format!(",Count,{refused}")),
        "{last_count}"
    );

    let o = kafka_sim(
        &[
            "metrics",
            lesson,
            "--json",
            "--at",
            "30",
            "--name",
            "LeaderCount",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    for line in stdout(&o).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["step"], 30);
        assert_eq!(v["attribute"], "Value");
        assert!(v["node"].as_str().unwrap().starts_with("broker-"));
    }

    let list = stdout(&kafka_sim(&["metrics", "--list"], None));
    for name in [
        "UnderReplicatedPartitions",
        "records-lag-max",
        "record-send-rate",
        "TotalTimeMs",
    ] {
        assert!(list.contains(name), "{name}");
    }
}

#[test]
fn metrics_refuses_bad_options_in_one_line() {
    let lesson = "static/lessons/acks-retries-idempotence.json";
    assert_clean_error(
        &kafka_sim(&["metrics", lesson, "--name", "Nope"], None),
        "no such metric",
    );
    assert_clean_error(
        &kafka_sim(&["metrics", lesson, "--every", "0"], None),
        "at least 1 ms",
    );
    assert_clean_error(
        &kafka_sim(&["metrics", lesson, "--every", "0", "--csv"], None),
        "at least 1 ms",
    );
    assert_clean_error(
        &kafka_sim(&["metrics", lesson, "--every", "1", "--at", "3"], None),
        "one of --at and --every",
    );
    assert_clean_error(
        &kafka_sim(&["metrics", lesson, "--json", "--csv"], None),
        "one of --json and --csv",
    );
    assert_clean_error(
        &kafka_sim(&["metrics", lesson, "--at", "99999999"], None),
        "the run has",
    );
    assert_clean_error(&kafka_sim(&["metrics"], None), "missing SCENARIO.json");
    // A day read every millisecond would print for hours: refused.
    let day = r#"{"seed": 1, "run_until_ms": 86400000, "cluster": {"brokers": [0]}}"#;
    let dir = std::env::temp_dir().join(format!("kafka-sim-metrics-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("day.json");
    std::fs::write(&path, day).unwrap();
    assert_clean_error(
        &kafka_sim(&["metrics", path.to_str().unwrap(), "--every", "1"], None),
        "samples",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn segments_write_markers_and_the_txnindex_and_dump_log_prints_them() {
    let dir = std::env::temp_dir().join(format!("kafka-sim-txn-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Producer 7 writes offsets 1-2 and aborts at 4; producer 8's
    // transaction (offset 3) is still open then, so the aborted entry's
    // lastStableOffset is 3; producer 8 commits at 5.
    let input = r#"{"topic":"orders","partition":0,"batches":[
 [{"key":"a","value":"plain","timestamp":1000}],
 {"producer_id":7,"transactional":true,"records":[{"key":"k1","value":"v1","timestamp":1001},{"key":"k2","value":"v2","timestamp":1002}]},
 {"producer_id":8,"transactional":true,"records":[{"key":"x","value":"y","timestamp":1003}]},
 {"marker":"ABORT","producer_id":7,"coordinator_epoch":2},
 {"marker":"COMMIT","producer_id":8,"coordinator_epoch":2,"timestamp":1010}
]}"#;
    let f = dir.join("in.json");
    std::fs::write(&f, input).unwrap();
    let out = dir.join("out");
    let o = kafka_sim(
        &[
            "segments",
            "--input",
            f.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert!(stdout(&o).contains(".txnindex 1 entries"), "{}", stdout(&o));
    let seg = out.join("orders-0");
    let txn = seg.join("00000000000000000000.txnindex");
    let bytes = std::fs::read(&txn).unwrap();
    let mut want = vec![0u8, 0];
    for v in [7i64, 1, 4, 3] {
        want.extend_from_slice(&v.to_be_bytes());
    }
    assert_eq!(bytes, want, "version 0, producer 7, first 1, last 4, LSO 3");
    let o = kafka_sim(
        &[
            "dump-log",
            seg.join("00000000000000000000.log").to_str().unwrap(),
            txn.to_str().unwrap(),
        ],
        None,
    );
    let text = stdout(&o);
    assert!(
        text.contains("| offset: 4 CreateTime: 1003 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: ABORT coordinatorEpoch: 2"),
        "{text}"
    );
    assert!(
        text.contains("endTxnMarker: COMMIT coordinatorEpoch: 2"),
        "{text}"
    );
    assert!(
        text.contains("baseOffset: 4 lastOffset: 4 count: 1 baseSequence: -1 lastSequence: -1 producerId: 7 producerEpoch: 0 partitionLeaderEpoch: 0 isTransactional: true isControl: true"),
        "{text}"
    );
    assert!(
        text.contains("version: 0 producerId: 7 firstOffset: 1 lastOffset: 4 lastStableOffset: 3"),
        "{text}"
    );
    assert!(!text.contains("payload: \u{0}"), "no payload for markers");

    // Bad input: one line naming the batch.
    let bad = |batch: &str, says: &str| {
        let f = dir.join("bad.json");
        std::fs::write(
            &f,
            format!(r#"{{"topic":"t","partition":0,"batches":[{batch}]}}"#),
        )
        .unwrap();
        let out = dir.join(format!("bad-out-{}", says.len()));
        assert_clean_error(
            &kafka_sim(
                &[
                    "segments",
                    "--input",
                    f.to_str().unwrap(),
                    "--out",
                    out.to_str().unwrap(),
                ],
                None,
            ),
            says,
        );
    };
    bad(
        r#"{"marker":"MAYBE","producer_id":1}"#,
        "batches[0]: marker: `MAYBE`",
    );
    bad(r#"{"marker":"ABORT"}"#, "producer_id");
    bad(
        r#"{"producer_id":1,"records":[],"transactional":true}"#,
        "at least one record",
    );
    bad(r#"{"producer_id":1,"recs":[]}"#, "unknown field `recs`");
    bad(r#"42"#, "batches[0]: expected a list of records");
    // The leader refuses a plain write in the middle of a transaction, and a
    // sequence gap.
    bad(
        r#"{"producer_id":1,"transactional":true,"records":[{"key":"k","value":"v","timestamp":0}]},
           {"producer_id":1,"records":[{"key":"k","value":"v","timestamp":0}]}"#,
        "batches[1]: the leader refuses it: INVALID_TXN_STATE",
    );
    bad(
        r#"{"producer_id":1,"records":[{"key":"k","value":"v","timestamp":0}]},
           {"producer_id":1,"base_sequence":5,"records":[{"key":"k","value":"v","timestamp":0}]}"#,
        "OUT_OF_ORDER_SEQUENCE_NUMBER",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_cut_txnindex_is_named() {
    let dir = std::env::temp_dir().join(format!("kafka-sim-txncut-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("00000000000000000000.txnindex");
    std::fs::write(&f, [0u8; 40]).unwrap();
    assert_clean_error(
        &kafka_sim(&["dump-log", f.to_str().unwrap()], None),
        "at byte 34: AbortedTxn",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every subcommand has `--help`; the tool has `--version` and prints
/// shell completions (clap).
#[test]
fn every_subcommand_has_help_and_the_tool_a_version() {
    let o = kafka_sim(&["--version"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("kafka-sim 0."), "{}", stdout(&o));
    for sub in [
        "run",
        "digest",
        "segments",
        "dump-log",
        "lookup",
        "place",
        "elect",
        "partition",
        "assign",
        "describe",
        "metrics",
        "coordinator",
        "exercise",
        "completions",
    ] {
        let o = kafka_sim(&[sub, "--help"], None);
        assert!(o.status.success(), "{sub} --help: {}", stderr(&o));
        let out = stdout(&o);
        assert!(
            out.contains(&format!("Usage: kafka-sim {sub}")),
            "{sub}: {out}"
        );
        // And the top-level help lists it.
        let top = stdout(&kafka_sim(&["--help"], None));
        assert!(top.contains(sub), "{sub} missing from kafka-sim --help");
    }
    let o = kafka_sim(&["completions", "bash"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("complete -F"), "{}", stdout(&o));
    // Errors stay one line, naming the subcommand's help.
    assert_clean_error(
        &kafka_sim(&["lookup", "--offst", "3"], None),
        "unknown option --offst (see kafka-sim lookup --help)",
    );
    assert_clean_error(&kafka_sim(&["completions", "tcsh"], None), "tcsh");
}

/// A reader that goes away (`kafka-sim metrics … | head`) ends the tool
/// quietly: no "Broken pipe" message, exit code 0.
#[test]
fn a_closed_pipe_ends_the_tool_quietly() {
    use std::io::Read;
    for args in [
        &["metrics", "scenarios/leader-failover.json", "--every", "1"][..],
        &["metrics", "--list"][..],
        &["run", "scenarios/leader-failover.json", "--all"][..],
        &["exercise", "--kind", "partition", "--count", "1000"][..],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kafka-sim"))
            .args(args)
            .current_dir(root())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 64];
        child
            .stdout
            .as_mut()
            .unwrap()
            .read_exact(&mut first)
            .unwrap();
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        assert_eq!(stderr(&o), "", "{args:?}");
        assert_eq!(o.status.code(), Some(0), "{args:?}");
    }
}

/// Kafka's own large assignment (AbstractStickyAssignorTest.
/// testLargeAssignmentAndGroupWithUniformSubscription): 500 topics of 2,000
/// partitions, 2,000 consumers; every partition assigned once, 500 each.
/// One partition more than the limit is refused in one line.
#[test]
fn assign_takes_a_million_partitions_and_two_thousand_consumers() {
    let topics: Vec<String> = (0..500).map(|t| format!("topic{t}")).collect();
    let counts: serde_json::Map<String, serde_json::Value> =
        topics.iter().map(|t| (t.clone(), 2000.into())).collect();
    let members: Vec<serde_json::Value> = (0..2000)
        .map(|c| serde_json::json!({"member_id": format!("consumer{c}"), "topics": topics}))
        .collect();
    let req = serde_json::json!({"partitions_per_topic": counts, "members": members}).to_string();
    let o = kafka_sim(
        &["assign", "--strategy", "cooperative-sticky", "--json"],
        Some(&req),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let a = v["assignment"].as_object().unwrap();
    assert_eq!(a.len(), 2000);
    let mut seen = std::collections::HashSet::new();
    for parts in a.values() {
        let parts = parts.as_array().unwrap();
        assert_eq!(parts.len(), 500);
        for p in parts {
            assert!(seen.insert(p.as_str().unwrap().to_string()), "{p} twice");
        }
    }
    assert_eq!(seen.len(), 1_000_000);
    let over = req.replacen("\"topic0\":2000", "\"topic0\":2001", 1);
    assert_clean_error(
        &kafka_sim(&["assign", "--strategy", "range", "--json"], Some(&over)),
        "1000001 partitions in all; at most 1000000",
    );
}

/// `kafka-sim explore`: a counterexample for acks=1 as one JSON object
/// whose scenario replays the violation with `kafka-sim run`; the safe
/// configuration's exhaustive search reports what it searched; bad input
/// is one line and exit code 2.
#[test]
fn explore_finds_shrinks_and_prints_a_replayable_counterexample() {
    let o = kafka_sim(
        &[
            "explore",
            "scenarios/explore/acks-1.json",
            "--guarantee",
            "acknowledged_records_survive",
            "--faults",
            "crash,restart",
            "--budget-s",
            "60",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["found"], true);
    assert_eq!(v["guarantee"], "acknowledged_records_survive");
    assert_eq!(v["faults"], 1);
    assert!(v["searched"]["schedules"].as_u64().unwrap() >= 1);
    let dir = std::env::temp_dir().join(format!("explore-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("found.json");
    std::fs::write(&file, v["scenario"].to_string()).unwrap();
    let run = kafka_sim(&["run", file.to_str().unwrap()], None);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert!(
        stdout(&run).contains("Guarantee broken — acknowledged records survive"),
        "the shrunk scenario replays the loss"
    );

    let o = kafka_sim(
        &[
            "explore",
            "scenarios/explore/safe.json",
            "--guarantee",
            "acknowledged_records_survive",
            "--faults",
            "crash",
            "--max-faults",
            "2",
            "--exhaustive",
            "--first-events",
            "400",
            "--budget-s",
            "120",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["found"], false);
    assert_eq!(v["searched"]["complete"], true);
    assert!(v["searched"]["states"].as_u64().unwrap() > 0);
    assert!(v["bounds"]["moments"].as_u64().unwrap() > 0);

    for (args, says) in [
        (
            vec!["--guarantee", "durable"],
            "`durable` is not a guarantee",
        ),
        (
            vec![
                "--guarantee",
                "acknowledged_records_survive",
                "--faults",
                "meteor",
            ],
            "`meteor` is not a fault kind",
        ),
        (
            vec![
                "--guarantee",
                "acknowledged_records_survive",
                "--budget-s",
                "0",
            ],
            "--budget-s",
        ),
        (
            vec![
                "--guarantee",
                "acknowledged_records_survive",
                "--exhaustive",
                "--max-faults",
                "3",
            ],
            "1 or 2 faults",
        ),
        (
            vec![
                "--guarantee",
                "acknowledged_records_survive",
                "--faults",
                "crash_consumer",
            ],
            "none of the fault kinds",
        ),
    ] {
        let mut all = vec!["explore", "scenarios/explore/acks-1.json"];
        all.extend(args);
        assert_clean_error(&kafka_sim(&all, None), says);
    }
    assert_clean_error(
        &kafka_sim(
            &[
                "explore",
                "nope.json",
                "--guarantee",
                "acknowledged_records_survive",
            ],
            None,
        ),
        "nope.json",
    );
}

/// `compare-planes` runs one failure in both control planes and prints
/// each side's figures; with `--events`, each side's events from the
/// failure on. A bad failure name or size is one line naming it.
#[test]
fn compare_planes_prints_both_control_planes() {
    let o = kafka_sim(
        &["compare-planes", "--failure", "controller-dies", "--events"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for want in [
        "controller-dies on 3 brokers / 6 partitions (seed 11)",
        "Kafka 3.9 (ZooKeeper): broker-0 struck at 6000 ms",
        "recovered after   18004 ms",
        "Kafka 4.1 (KRaft): controller-3001 struck at 6000 ms",
        "recovered after   3988 ms",
        "partition states  0 sent to brokers",
        "Kafka 4.1 events from the failure on:",
        "Controller 3000 is leader in epoch 3",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
    let o = kafka_sim(&["compare-planes", "--failure", "broker-cut-off"], None);
    let out = stdout(&o);
    assert!(
        out.contains("recovered after   - (not within 40000 ms)"),
        "{out}"
    );
    assert!(
        out.contains("partitions led    2 of 2 led elsewhere since"),
        "{out}"
    );
    assert_clean_error(
        &kafka_sim(&["compare-planes", "--failure", "meteor"], None),
        "unknown failure `meteor`",
    );
    assert_clean_error(
        &kafka_sim(
            &[
                "compare-planes",
                "--failure",
                "leader-dies",
                "--brokers",
                "2",
            ],
            None,
        ),
        "brokers: 2 is outside 3..=50",
    );
    assert_clean_error(
        &kafka_sim(
            &[
                "compare-planes",
                "--failure",
                "leader-dies",
                "--partitions",
                "x",
            ],
            None,
        ),
        "`x` is not a valid number",
    );
}

/// `run --write-metadata-log` writes each KRaft node's
/// `__cluster_metadata-0/`; `dump-log --cluster-metadata-decoder` prints its
/// records as `kafka-dump-log` does; every node holds the same bytes for
/// the records it has.
#[test]
fn the_metadata_log_is_written_and_decoded_like_kafka_dump_log() {
    let dir = std::env::temp_dir().join(format!("kafka-sim-metadata-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let o = kafka_sim(
        &[
            "run",
            "scenarios/kraft-controller-failover.json",
            "--write-metadata-log",
            d,
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("controller-3000/__cluster_metadata-0"));
    let file = |node: &str| {
        dir.join(node)
            .join("__cluster_metadata-0/00000000000000000000.log")
    };
    let leader = std::fs::read(file("controller-3000")).unwrap();
    for node in [
        "controller-3001",
        "controller-3002",
        "broker-0",
        "broker-1",
        "broker-2",
    ] {
        let b = std::fs::read(file(node)).unwrap();
        let n = b.len().min(leader.len());
        assert!(n > 1000, "{node}: {} bytes", b.len());
        assert_eq!(b[..n], leader[..n], "{node} holds other bytes");
    }
    let path = file("broker-0");
    let o = kafka_sim(
        &[
            "dump-log",
            "--cluster-metadata-decoder",
            path.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for want in [
        "isControl: true",
        r#"LeaderChange: {"version":0,"leaderId":3001,"voters":[{"voterId":3000},{"voterId":3001},{"voterId":3002}]"#,
        r#"keySize: -1 valueSize: 23 sequence: -1 headerKeys: [] payload: {"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version","featureLevel":27}}"#,
        r#"payload: {"type":"REGISTER_BROKER_RECORD","version":3,"data":{"brokerId":0,"#,
        r#"payload: {"type":"BROKER_REGISTRATION_CHANGE_RECORD","version":0,"data":{"brokerId":0,"brokerEpoch":8,"fenced":-1}}"#,
        r#"payload: {"type":"NO_OP_RECORD","version":0,"data":{}}"#,
    ] {
        assert!(out.contains(want), "{want} not in:\n{out}");
    }
    assert!(
        !out.contains("isvalid: false") && !out.contains("Error at"),
        "{out}"
    );
    // Without the decoder the values print raw (the leader change still
    // decodes, as in Kafka).
    let raw = stdout(&kafka_sim(&["dump-log", path.to_str().unwrap()], None));
    assert!(raw.contains("LeaderChange: {") && !raw.contains("REGISTER_BROKER_RECORD"));
    // Not metadata: each record says why it cannot be read, no crash.
    let seg = dir.join("00000000000000000000.log");
    let o = kafka_sim(
        &[
            "run",
            "scenarios/leader-failover.json",
            "--write-metadata-log",
            d,
        ],
        None,
    );
    assert_clean_error(&o, "needs a Kafka 4.1 scenario");
    let mut bytes = leader.clone();
    bytes[140] ^= 0x55; // inside the first data record's value
    std::fs::write(&seg, bytes).unwrap();
    let o = kafka_sim(
        &[
            "dump-log",
            "--cluster-metadata-decoder",
            seg.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The broker's range assignor (KIP-848) answers the issue's request
/// format; a bad request (here a partition held by two members) gets one
/// line naming the field.
#[test]
fn assign_on_the_broker_runs_the_server_range_assignor() {
    let req = r#"{"topics":{"topic1":3,"topic2":3,"topic3":2},"members":[
        {"member_id":"C","subscribed_topics":["topic2","topic3"]},
        {"member_id":"A","subscribed_topics":["topic1","topic2"]},
        {"member_id":"B","subscribed_topics":["topic3"]}]}"#;
    let o = kafka_sim(
        &["assign", "--strategy", "server-range", "--json"],
        Some(req),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).trim(),
        r#"{"assignment":{"C":{"topic2":[2],"topic3":[1]},"A":{"topic1":[0,1,2],"topic2":[0,1]},"B":{"topic3":[0]}}}"#
    );
    assert_clean_error(
        &kafka_sim(
            &["assign", "--strategy", "server-range", "--json"],
            Some(
                r#"{"topics":{"t":2},"members":[{"member_id":"A","subscribed_topics":["t"],"current_assignment":{"t":[1]}},{"member_id":"B","subscribed_topics":["t"],"current_assignment":{"t":[1]}}]}"#,
            ),
        ),
        "bad request: members[1].current_assignment.t: partition 1 is also held by `A`",
    );
    assert_clean_error(
        &kafka_sim(
            &["assign", "--strategy", "server-range"],
            Some(
                r#"{"topics":{"t":1},"members":[{"member_id":"A","subscribed_topics":["nope"]}]}"#,
            ),
        ),
        "Member is subscribed to a non-existent topic",
    );
    assert_clean_error(
        &kafka_sim(
            &["assign", "--strategy", "server-range"],
            Some(r#"{"topics":{"t":-2},"members":[]}"#),
        ),
        "bad request: topics.t: -2 partitions",
    );
}

/// The uniform assignor's homogeneous builder through the CLI, with the
/// topic ids of Kafka's test (their HashSet order decides who gets which
/// topic); a group with different subscriptions takes the heterogeneous
/// builder.
#[test]
fn assign_on_the_broker_runs_the_uniform_homogeneous_builder() {
    let req = r#"{"topics":{"topic1":3,"topic3":2},
        "topic_ids":{"topic1":"T1-A4s3VTwiI5CTbEp6POw","topic3":"T3-CU8fVTLCz5YMkLoDQsa"},
        "members":[{"member_id":"A","subscribed_topics":["topic1","topic3"]},
                   {"member_id":"B","subscribed_topics":["topic1","topic3"]}]}"#;
    let o = kafka_sim(&["assign", "--strategy", "uniform", "--json"], Some(req));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).trim(),
        r#"{"assignment":{"A":{"topic3":[0,1]},"B":{"topic1":[0,1,2]}}}"#
    );
    // Different subscriptions: the heterogeneous builder
    // (testFirstAssignmentTwoMembersTwoTopics of Kafka's test).
    let het = r#"{"topics":{"topic1":3,"topic3":6},
        "topic_ids":{"topic1":"T1-A4s3VTwiI5CTbEp6POw","topic3":"T3-CU8fVTLCz5YMkLoDQsa"},
        "members":[{"member_id":"A","subscribed_topics":["topic1","topic3"]},
                   {"member_id":"B","subscribed_topics":["topic3"]}]}"#;
    let o = kafka_sim(&["assign", "--strategy", "uniform", "--json"], Some(het));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).trim(),
        r#"{"assignment":{"A":{"topic1":[0,1,2],"topic3":[4]},"B":{"topic3":[0,1,2,3,5]}}}"#
    );
}
