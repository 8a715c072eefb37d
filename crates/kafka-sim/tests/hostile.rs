//! Hostile and extreme input (issue 18): what a shared link or an uploaded
//! file can carry must never panic, loop or take unbounded memory. Each
//! numbered item of the issue has a test here that failed before its fix,
//! and a generator of scenarios over the full range of every setting and
//! command runs each one with a small event budget.
//!
//! `HOSTILE_CASES` sets how many generated scenarios run (default 300 in the
//! test command; `HOSTILE_CASES=20000 cargo test --release -p kafka-sim
//! --test hostile -- --nocapture` for a long run, which prints how many ran
//! and how many were refused); `HOSTILE_SHOW=1` prints each refusal. The cases
//! are the same on every run; `HOSTILE_RANDOM=1` draws new ones.

use kafka_sim::scenario::{Scenario, MAX_PARTITIONS};
use kafka_sim::sim::World;
use kafka_sim::timeline::{self, Timeline, MAX_EVENTS};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::sync::Arc;

/// One broker, one topic, one producer, one consumer in a group: every
/// hostile case below changes one thing of it.
fn base(cluster: &str, producer: &str, consumer: &str, commands: &str) -> String {
    format!(
        r#"{{"seed": 1, "run_until_ms": 3000,
        "cluster": {{"brokers": [0, 1, 2], "config": {{{cluster}}}}},
        "topics": [{{"name": "t", "partitions": 2, "replication.factor": 3}}],
        "producers": [{{"name": "p", "config": {{{producer}}}}}],
        "consumers": [{{"name": "c", "subscribe": ["t"], "config": {{"group.id": "g"{consumer}}}}}],
        "commands": [{{"at_ms": 100, "type": "produce", "producer": "p", "topic": "t", "value": "v"}}{commands}]}}"#
    )
}

fn refused(text: &str) -> kafka_sim::ConfigError {
    match Scenario::from_json(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

/// Item 1: a valid-looking scenario panicked in `group_commit`.
#[test]
fn an_assign_consumer_that_commits_is_refused_by_name() {
    let text = r#"{"seed":1,"cluster":{"brokers":[0]},"topics":[{"name":"t","partitions":1}],"producers":[{"name":"p"}],"consumers":[{"name":"c","assign":["t-0"],"commit":"sync_before_processing","config":{"auto.offset.reset":"earliest"}}],"commands":[{"at_ms":100,"type":"produce","producer":"p","topic":"t","value":"v"}]}"#;
    let e = refused(text);
    assert_eq!(e.field, "consumers[0].commit", "{e}");
    assert!(e.message.contains("InvalidGroupIdException"), "{e}");
    let with_group = text.replace(
        r#""auto.offset.reset":"earliest""#,
        r#""auto.offset.reset":"earliest","group.id":"g""#,
    );
    let e = refused(&with_group);
    assert_eq!(e.field, "consumers[0].commit", "{e}");
    // The engine itself never reaches for a group it does not have: run the
    // scenario unvalidated, as World::new allows.
    let mut sc: Scenario = serde_json::from_str(text).unwrap();
    sc.consumers[0].commit = kafka_sim::scenario::CommitMode::SyncAfterProcessing;
    let mut w = World::new(Arc::new(sc));
    let mut steps = 0;
    while w.step() && steps < 100_000 {
        w.drain_events();
        steps += 1;
    }
}

/// Item 2: settings that made a timer fire again at the same instant,
/// forever, without one event. Each is refused by name, and the kernel
/// itself stops a world that spins (run here unvalidated).
#[test]
fn zero_intervals_are_refused_and_the_kernel_refuses_to_spin() {
    let cases: [(&str, &str, &str, &str); 6] = [
        (
            r#""replica.high.watermark.checkpoint.interval.ms": 0"#,
            "",
            "",
            "cluster.config.replica.high.watermark.checkpoint.interval.ms",
        ),
        (
            r#""log.cleaner.backoff.ms": 0"#,
            "",
            "",
            "cluster.config.log.cleaner.backoff.ms",
        ),
        (
            r#""replica.lag.time.max.ms": 1, "replica.fetch.wait.max.ms": 0"#,
            "",
            "",
            "cluster.config.replica.lag.time.max.ms",
        ),
        (
            r#""leader.imbalance.check.interval.seconds": 0"#,
            "",
            "",
            "cluster.config.leader.imbalance.check.interval.seconds",
        ),
        (
            "",
            r#""metadata.max.age.ms": 0"#,
            "",
            "producers[0].config.metadata.max.age.ms",
        ),
        (
            "",
            "",
            r#", "heartbeat.interval.ms": 0"#,
            "consumers[0].config.heartbeat.interval.ms",
        ),
    ];
    for (cluster, producer, consumer, field) in cases {
        let e = refused(&base(cluster, producer, consumer, ""));
        // replica.lag.time.max.ms 1 is allowed on its own; with a fetch wait
        // of 0 it is the ISR check's interval (lag / 2) that is 0.
        assert!(
            e.field == field || field.ends_with("replica.lag.time.max.ms"),
            "{field}: {e}"
        );
        assert!(e.message.contains("must be at least"), "{field}: {e}");
    }
    // Unvalidated, each either ends or is stopped by the kernel, naming the
    // timer that spins.
    let mut halted = 0;
    for (cluster, producer, consumer, field) in cases {
        let text = base(cluster, producer, consumer, "").replace("3000", "1");
        let sc: Scenario = serde_json::from_str(&text).unwrap();
        // Whatever the validation says, the kernel must not spin.
        let mut w = World::new(Arc::new(sc));
        w.set_budget(Some(100_000));
        let mut steps = 0u64;
        while w.step() && !w.is_frozen() {
            w.drain_events();
            steps += 1;
            assert!(
                steps < 2_000_000,
                "{field}: still running after 2,000,000 steps"
            );
        }
        if let Some(why) = w.halted() {
            halted += 1;
            assert!(why.contains("timer"), "{field}: {why}");
            assert!(why.contains("recorded nothing"), "{field}: {why}");
        }
    }
    assert!(
        halted >= 1,
        "the kernel stopped none of the spinning worlds"
    );
}

/// Item 5: every way to ask for more partitions than the cap.
#[test]
fn partition_limits_cover_every_way_to_ask() {
    let over = MAX_PARTITIONS + 1;
    for (cluster, commands, field) in [
        (
            format!(r#""num.partitions": {over}"#),
            String::new(),
            "cluster.config.num.partitions",
        ),
        (
            format!(r#""offsets.topic.num.partitions": {}"#, i32::MAX),
            String::new(),
            "cluster.config.offsets.topic.num.partitions",
        ),
        (
            String::new(),
            format!(
                r#", {{"at_ms": 200, "type": "add_partitions", "topic": "t", "partitions": {}}}"#,
                i32::MAX
            ),
            "commands[1].partitions",
        ),
    ] {
        let e = refused(&base(&cluster, "", "", &commands));
        assert_eq!(e.field, field, "{e}");
    }
    let entries: Vec<String> = (0..=MAX_PARTITIONS)
        .map(|p| format!(r#""{p}": [0]"#))
        .collect();
    let text = base("", "", "", "").replace(
        r#""partitions": 2, "replication.factor": 3"#,
        &format!(r#""replica.assignment": {{{}}}"#, entries.join(",")),
    );
    let e = refused(&text);
    assert_eq!(e.field, "topics[0].replica.assignment", "{e}");
}

/// Items 6 and 10: timeouts and durations at the extremes of `u64`, which
/// flooded memory or made the clock run backwards, are refused by name, in
/// Kafka's own ranges (a Java int or long).
#[test]
fn extreme_durations_are_refused_in_kafkas_ranges() {
    let max = u64::MAX;
    for (cluster, producer, field) in [
        (
            r#""request.timeout.ms": 0"#.to_string(),
            String::new(),
            "cluster.config.request.timeout.ms",
        ),
        (
            format!(r#""request.timeout.ms": {max}"#),
            String::new(),
            "cluster.config.request.timeout.ms",
        ),
        (
            format!(r#""zookeeper.session.timeout.ms": {max}"#),
            String::new(),
            "cluster.config.zookeeper.session.timeout.ms",
        ),
        (
            String::new(),
            r#""request.timeout.ms": 0"#.to_string(),
            "producers[0].config.request.timeout.ms",
        ),
        (
            String::new(),
            format!(r#""linger.ms": {max}"#),
            "producers[0].config.linger.ms",
        ),
    ] {
        let e = refused(&base(&cluster, &producer, "", ""));
        assert_eq!(e.field, field, "{e}");
        assert!(e.message.contains("must be at"), "{e}");
    }
    let e = refused(&base("", "", "", "").replace(
        r#""seed": 1,"#,
        &format!(r#""seed": 1, "clock_start_ms": {},"#, i64::MAX),
    ));
    assert_eq!(e.field, "clock_start_ms", "{e}");
    let e = refused(&base(
        "",
        "",
        "",
        &format!(
            r#", {{"at_ms": 200, "type": "pause_consumer", "consumer": "c", "duration_ms": {max}}}"#
        ),
    ));
    assert_eq!(e.field, "commands[1].duration_ms", "{e}");
    // The ZooKeeper session no longer expires before the kill it follows.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/leader-failover.json"
    ))
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut v = v;
    v["cluster"]["config"]["zookeeper.session.timeout.ms"] = serde_json::json!(max);
    let e = refused(&v.to_string());
    assert_eq!(
        e.field, "cluster.config.zookeeper.session.timeout.ms",
        "{e}"
    );
}

/// Item 8: the event cap holds inside a step, not only between steps.
#[test]
fn the_event_cap_holds_inside_a_step() {
    let text = base(
        "",
        "",
        "",
        r#", {"at_ms": 200, "type": "produce", "producer": "p", "topic": "t", "value": "v", "count": 100000}"#,
    );
    let mut t = Timeline::new(Scenario::from_json(&text).unwrap()).unwrap();
    t.set_max_events(3_000);
    t.run_to_end();
    assert_eq!(t.len(), 3_000, "the cap is exact");
    assert!(t.is_finished());
    let why = t.stopped_early().expect("says why it stopped");
    assert!(why.contains("3000 events"), "{why}");
    // Seeking inside the capped trace still works.
    let w = t.state_at(2_999);
    assert_eq!(w.events_emitted(), 2_999);
    // The streaming run (the CLI's) stops at STREAM_MAX_EVENTS the same way
    // and keeps no trace; here it ends long before.
    let stopped = timeline::stream(
        Scenario::from_json(&base("", "", "", "")).unwrap(),
        |_, _| true,
    )
    .unwrap();
    assert_eq!(stopped, None);
    // The caps the docs name: a kept trace and a streamed run.
    assert_eq!(MAX_EVENTS, 5_000_000);
    assert_eq!(timeline::STREAM_MAX_EVENTS, 20_000_000);
}

/// Items 11 to 13: errors name the field; valid values Kafka accepts are
/// accepted; wrong ones Kafka refuses are refused.
#[test]
fn errors_name_the_field_and_kafkas_values_are_accepted() {
    for (consumer, field) in [
        (
            r#", "auto.offset.reset": 3"#,
            "consumers[0].config.auto.offset.reset",
        ),
        (
            r#", "auto.offset.reset": null"#,
            "consumers[0].config.auto.offset.reset",
        ),
        (
            r#", "session.timeout.ms": true"#,
            "consumers[0].config.session.timeout.ms",
        ),
    ] {
        let e = refused(&base("", "", consumer, ""));
        assert_eq!(e.field, field, "{e}");
    }
    let e = refused(&base("", r#""partitioner.class": 7"#, "", ""));
    assert_eq!(e.field, "producers[0].config.partitioner.class", "{e}");
    // Accepted, as Kafka accepts them.
    for cluster in [
        r#""log.retention.hours": -1"#,
        r#""log.cleaner.min.cleanable.ratio": 0.000001"#,
    ] {
        Scenario::from_json(&base(cluster, "", "", ""))
            .unwrap_or_else(|e| panic!("{cluster}: {e}"));
    }
    let bom = format!("\u{feff}{}", base("", "", "", ""));
    Scenario::from_json(&bom).expect("a byte-order mark is skipped");
    // Refused, as Kafka refuses them: not a version, and (0.10.2) a protocol
    // older than record format v2, with which Kafka 3.9 will not start.
    let ibp = |v: &str| {
        let e = refused(&base(
            &format!(r#""inter.broker.protocol.version": "{v}""#),
            "",
            "",
            "",
        ));
        assert_eq!(
            e.field, "cluster.config.inter.broker.protocol.version",
            "{e}"
        );
        e
    };
    ibp("banana");
    let e = ibp("0.10.2");
    assert!(e.message.contains("0.11.0 or higher"), "{e}");
    assert!(e.message.contains("follower_truncation"), "{e}");
    // The simulation's own truncation knob takes its two modes only.
    let with_mode = |m: &str| {
        base("", "", "", "").replacen(
            r#""cluster": {"#,
            &format!(r#""cluster": {{"follower_truncation": {m}, "#),
            1,
        )
    };
    Scenario::from_json(&with_mode(r#""high_watermark""#)).expect("high_watermark");
    Scenario::from_json(&with_mode(r#""leader_epoch""#)).expect("leader_epoch");
    let e = refused(&with_mode(r#""zero""#));
    assert_eq!(e.field, "cluster.follower_truncation", "{e}");
    let e = refused(&base("", "", "", "").replace(r#""subscribe": ["t"]"#, r#""subscribe": [""]"#));
    assert_eq!(e.field, "consumers[0].subscribe[0]", "{e}");
    let e = refused(&base("", "", "", "").replace(r#""group.id": "g""#, r#""group.id": """#));
    assert_eq!(e.field, "consumers[0].config.group.id", "{e}");
    let e = refused(
        &base(r#""default.replication.factor": 4"#, "", "", "").replace(
            r#""partitions": 2, "replication.factor": 3"#,
            r#""partitions": 2"#,
        ),
    );
    assert_eq!(e.field, "topics[0].replication.factor", "{e}");
    for ok in ["0.10.2", "0.11.0", "0.11.0-IV2", "2.8", "3.9", "3.9.0"] {
        assert!(kafka_sim::config::ibp_is_known(ok), "{ok}");
    }
    for bad in ["", "3", "banana", "9.9", "3.x", "0.7"] {
        assert!(!kafka_sim::config::ibp_is_known(bad), "{bad}");
    }
}

/// A generated scenario over the full range of every setting and command.
fn scenario_text() -> impl Strategy<Value = String> {
    // Mostly values a scenario could hold, often the extremes of each range.
    let num = prop_oneof![
        12 => 1u64..100_000,
        1 => Just(0u64),
        1 => Just(1u64),
        1 => Just(i32::MAX as u64),
        1 => Just(i64::MAX as u64),
        1 => Just(u64::MAX)
    ];
    let broker_keys = prop::sample::select(vec![
        "replica.lag.time.max.ms",
        "replica.fetch.wait.max.ms",
        "replica.fetch.backoff.ms",
        "replica.high.watermark.checkpoint.interval.ms",
        "zookeeper.session.timeout.ms",
        "log.segment.bytes",
        "log.index.interval.bytes",
        "log.retention.check.interval.ms",
        "log.cleaner.backoff.ms",
        "log.segment.delete.delay.ms",
        "group.initial.rebalance.delay.ms",
        "request.timeout.ms",
        "leader.imbalance.check.interval.seconds",
        "num.partitions",
        "offsets.topic.num.partitions",
        "min.insync.replicas",
        "default.replication.factor",
    ]);
    let producer_keys = prop::sample::select(vec![
        "linger.ms",
        "batch.size",
        "buffer.memory",
        "max.block.ms",
        "retries",
        "retry.backoff.ms",
        "delivery.timeout.ms",
        "request.timeout.ms",
        "metadata.max.age.ms",
        "max.in.flight.requests.per.connection",
    ]);
    let consumer_keys = prop::sample::select(vec![
        "session.timeout.ms",
        "heartbeat.interval.ms",
        "max.poll.interval.ms",
        "auto.commit.interval.ms",
        "max.poll.records",
        "fetch.min.bytes",
        "fetch.max.wait.ms",
        "request.timeout.ms",
        "metadata.max.age.ms",
        "poll_interval_ms",
        "processing_ms",
    ]);
    let setting = |keys: BoxedStrategy<&'static str>| {
        prop::collection::vec((keys, num.clone()), 0..3).prop_map(|kv| {
            kv.into_iter()
                .map(|(k, v)| format!(r#", "{k}": {v}"#))
                .collect::<String>()
        })
    };
    let commit = prop::sample::select(vec![
        "auto",
        "sync_before_processing",
        "sync_after_processing",
    ]);
    let membership = prop::sample::select(vec![
        r#""subscribe": ["t"]"#,
        r#""subscribe_pattern": "t.*""#,
        r#""assign": ["t-0", "t-1"]"#,
    ]);
    let command = prop_oneof![
        (0u64..3000, prop_oneof![8 => 1u64..2000, 1 => 1u64..200_000]).prop_map(|(at, n)| format!(
            r#"{{"at_ms": {at}, "type": "produce", "producer": "p", "topic": "t", "value": "v", "count": {n}}}"#
        )),
        (0u64..3000, 0i32..3).prop_map(|(at, b)| format!(r#"{{"at_ms": {at}, "type": "kill_broker", "broker": {b}}}"#)),
        (0u64..3000, 0i32..3).prop_map(|(at, b)| format!(r#"{{"at_ms": {at}, "type": "restart_broker", "broker": {b}}}"#)),
        (0u64..3000, 0i32..3).prop_map(|(at, b)| format!(r#"{{"at_ms": {at}, "type": "shutdown_broker", "broker": {b}}}"#)),
        (0u64..3000, num.clone()).prop_map(|(at, ms)| format!(
            r#"{{"at_ms": {at}, "type": "slow_link", "a": "broker-0", "b": "broker-1", "extra_latency_ms": {ms}}}"#
        )),
        (0u64..3000, num.clone()).prop_map(|(at, ms)| format!(
            r#"{{"at_ms": {at}, "type": "pause_consumer", "consumer": "c", "duration_ms": {ms}}}"#
        )),
        (0u64..3000).prop_map(|at| format!(r#"{{"at_ms": {at}, "type": "commit_sync", "consumer": "c"}}"#)),
        (0u64..3000).prop_map(|at| format!(r#"{{"at_ms": {at}, "type": "crash_consumer", "consumer": "c"}}"#)),
        (0u64..3000, prop_oneof![1 => Just(0i64), 8 => 3i64..20, 1 => Just(i32::MAX as i64)]).prop_map(|(at, n)| format!(
            r#"{{"at_ms": {at}, "type": "add_partitions", "topic": "t", "partitions": {n}}}"#
        )),
        (0u64..3000, num.clone()).prop_map(|(at, t)| format!(
            r#"{{"at_ms": {at}, "type": "close_producer", "producer": "p", "timeout_ms": {t}}}"#
        )),
    ];
    (
        setting(broker_keys.boxed()),
        setting(producer_keys.boxed()),
        setting(consumer_keys.boxed()),
        commit,
        membership,
        prop::collection::vec(command, 0..5),
        any::<u64>(),
        prop_oneof![8 => Just(3000u64), 1 => Just(86_400_000u64)],
    )
        .prop_map(|(b, p, c, commit, membership, cmds, seed, until)| {
            // An assign() consumer that commits is refused (its own test
            // above): here it keeps to auto, so the run goes on.
            let commit = if membership.starts_with(r#""assign""#) { "auto" } else { commit };
            let cmds: String = cmds.iter().map(|c| format!(", {c}")).collect();
            format!(
                r#"{{"seed": {seed}, "run_until_ms": {until},
                "cluster": {{"brokers": [0, 1, 2], "config": {{"offsets.topic.replication.factor": 3{b}}}}},
                "topics": [{{"name": "t", "partitions": 2, "replication.factor": 3}}],
                "producers": [{{"name": "p", "config": {{"client.id": "p"{p}}}}}],
                "consumers": [{{"name": "c", {membership}, "commit": "{commit}", "config": {{"group.id": "g", "auto.offset.reset": "earliest"{c}}}}}],
                "commands": [{{"at_ms": 0, "type": "produce", "producer": "p", "topic": "t", "value": "x"}}{cmds}]}}"#
            )
        })
}

/// The fuzz target: every generated scenario is either refused with a named
/// field, or runs within a small event budget to its end, to the budget, or
/// to a kernel stop that names its timer; never a panic, never a loop.
#[test]
fn generated_scenarios_over_every_range_never_panic_or_spin() {
    let cases: u32 = std::env::var("HOSTILE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    // The same cases on every run of the test command (CI); HOSTILE_RANDOM=1
    // draws new ones.
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = if std::env::var_os("HOSTILE_RANDOM").is_some() {
        TestRunner::new(config)
    } else {
        TestRunner::new_with_rng(
            config,
            proptest::test_runner::TestRng::deterministic_rng(
                proptest::test_runner::RngAlgorithm::ChaCha,
            ),
        )
    };
    use std::cell::Cell;
    let (ran, refused_n, stopped) = (Cell::new(0u32), Cell::new(0u32), Cell::new(0u32));
    let started = std::time::Instant::now();
    runner
        .run(&scenario_text(), |text| {
            match Scenario::from_json(&text) {
                Err(e) => {
                    prop_assert!(!e.message.is_empty());
                    if std::env::var_os("HOSTILE_SHOW").is_some() {
                        eprintln!("refused: {e}");
                    }
                    refused_n.set(refused_n.get() + 1);
                }
                Ok(sc) => {
                    let mut t = Timeline::new(sc).unwrap();
                    t.set_max_events(20_000);
                    t.run_to_end();
                    prop_assert!(t.is_finished());
                    if let Some(why) = t.stopped_early() {
                        prop_assert!(!why.is_empty());
                        stopped.set(stopped.get() + 1);
                    }
                    // A seek inside the run works too.
                    let n = t.len() / 2;
                    let _ = t.state_at(n);
                    ran.set(ran.get() + 1);
                }
            }
            Ok(())
        })
        .unwrap();
    let (ran, refused_n, stopped) = (ran.get(), refused_n.get(), stopped.get());
    eprintln!(
        "hostile: {cases} generated scenarios in {:.1} s: {ran} ran ({stopped} stopped early), {refused_n} refused by name",
        started.elapsed().as_secs_f64()
    );
    // Both outcomes are exercised, and most scenarios run.
    assert!(refused_n > 0, "nothing was refused");
    assert!(ran * 4 >= cases, "only {ran} of {cases} ran");
}

/// Items 7 and 8: what the produce commands send is bounded, so the memory
/// of the cluster's logs is (docs/scenario-format.md, Limits).
#[test]
fn produce_volume_is_bounded() {
    let big = "x".repeat(kafka_sim::scenario::MAX_RECORD_BYTES + 1);
    let e = refused(&base(
        "",
        "",
        "",
        &format!(
            r#", {{"at_ms": 200, "type": "produce", "producer": "p", "topic": "t", "value": "{big}"}}"#
        ),
    ));
    assert_eq!(e.field, "commands[1].value", "{e}");
    assert!(e.message.contains("RecordTooLargeException"), "{e}");
    let many: String = (0..11)
        .map(|i| format!(r#", {{"at_ms": {}, "type": "produce", "producer": "p", "topic": "t", "value": "v", "count": 100000}}"#, 200 + i))
        .collect();
    let e = refused(&base("", "", "", &many));
    assert_eq!(e.field, "commands[10].count", "{e}");
    let ten: String = (0..9)
        .map(|i| format!(r#", {{"at_ms": {}, "type": "produce", "producer": "p", "topic": "t", "value": "v", "count": 100000}}"#, 200 + i))
        .collect();
    Scenario::from_json(&base("", "", "", &ten)).expect("999,999 records in all are accepted");
    let mb = "y".repeat(1_000_000);
    let nine: String = (0..9)
        .map(|i| format!(r#", {{"at_ms": {}, "type": "produce", "producer": "p", "topic": "t", "value": "{mb}"}}"#, 200 + i))
        .collect();
    let e = refused(&base("", "", "", &nine));
    assert!(e.message.contains("8388608 bytes"), "{e}");
}

/// The file decoders and a lookup over recovered files, on arbitrary bytes
/// and on real segment files with bytes flipped or cut: a named error or a
/// result, never a panic (what `kafka-sim dump-log` and `lookup` read).
#[test]
fn decoders_and_lookups_survive_arbitrary_and_damaged_files() {
    use kafka_sim::config::LogConfig;
    use kafka_sim::ids::TopicPartition;
    use kafka_sim::storage::index::{decode_index, IndexKind};
    use kafka_sim::storage::log::Log;
    use kafka_sim::storage::paged::{MemStorage, Storage};
    use kafka_sim::storage::record::{
        build_batch, build_end_txn_marker, decode_batch, marker_of, BatchSpec, ControlType,
        EndTxnMarker, NewRecord,
    };
    use kafka_sim::storage::txn_index::{decode_txn_index, AbortedTxn};

    // A real segment: 40 batches (every tenth a transaction marker), an
    // index entry every 100 bytes, and a .txnindex of two entries.
    let mut log_bytes = Vec::new();
    let mut index = Vec::new();
    let mut since = 0usize;
    for i in 0..40i64 {
        let spec = BatchSpec {
            base_offset: i,
            ..BatchSpec::default()
        };
        let record = NewRecord {
            key: Some(format!("k{i}").into_bytes()),
            value: Some(vec![b'v'; (i as usize * 7) % 90]),
            timestamp: 1_700_000_000_000 + i,
            headers: vec![],
            offset_delta: None,
        };
        let b = if i % 10 == 9 {
            let m = EndTxnMarker {
                control_type: ControlType::Abort,
                coordinator_epoch: i as i32,
            };
            build_end_txn_marker(i, 1_700_000_000_000 + i, 0, 5, 0, m)
        } else {
            build_batch(&spec, &[record])
        };
        if since > 100 {
            index.extend_from_slice(&(i as i32).to_be_bytes());
            index.extend_from_slice(&(log_bytes.len() as i32).to_be_bytes());
            since = 0;
        }
        since += b.len();
        log_bytes.extend_from_slice(&b);
    }
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut txn_index = Vec::new();
    for (first, last) in [(2i64, 9i64), (12, 19)] {
        let t = AbortedTxn {
            producer_id: 5,
            first_offset: first,
            last_offset: last,
            last_stable_offset: last + 1,
        };
        txn_index.extend_from_slice(&t.encode());
    }
    let tp = TopicPartition::parse("t-0").unwrap();
    for case in 0..1500 {
        let (mut log_b, mut idx_b) = (log_bytes.clone(), index.clone());
        let mut txn_b = txn_index.clone();
        if case % 3 == 0 {
            let i = (next() as usize) % txn_b.len();
            txn_b[i] ^= 1 << (next() % 8);
        }
        if case % 7 == 0 {
            txn_b.truncate((next() as usize) % txn_b.len());
        }
        match case % 4 {
            0 => {
                // Arbitrary bytes.
                let n = (next() % 600) as usize;
                log_b = (0..n).map(|_| next() as u8).collect();
                idx_b = (0..(next() % 40) as usize).map(|_| next() as u8).collect();
            }
            1 => {
                for _ in 0..1 + next() % 8 {
                    let i = (next() as usize) % log_b.len();
                    log_b[i] ^= 1 << (next() % 8);
                }
            }
            2 => {
                let cut = (next() as usize) % log_b.len();
                log_b.truncate(cut);
            }
            _ => {
                if !idx_b.is_empty() {
                    let i = (next() as usize) % idx_b.len();
                    idx_b[i] ^= 0xff;
                }
            }
        }
        let mut pos = 0usize;
        while pos < log_b.len() {
            match decode_batch(&log_b[pos..], pos as u64) {
                Ok(b) => {
                    let _ = marker_of(&b);
                    pos += b.header.size_in_bytes().max(1) as usize
                }
                Err(_) => break,
            }
        }
        let _ = decode_txn_index(&txn_b);
        let _ = decode_index(IndexKind::Offset, 0, &idx_b);
        let _ = decode_index(IndexKind::Time, 0, &idx_b);
        let mut store = MemStorage::default();
        for (name, bytes) in [
            ("t-0/00000000000000000000.log", &log_b),
            ("t-0/00000000000000000000.index", &idx_b),
            ("t-0/00000000000000000000.txnindex", &txn_b),
        ] {
            store.create(name).unwrap();
            store.append(name, bytes).unwrap();
        }
        if let Ok(log) = Log::recover(
            &mut store,
            tp.clone(),
            "t-0",
            std::sync::Arc::new(LogConfig::default()),
        ) {
            for target in [0, 3, 17, 39, 40, -1, i64::MAX] {
                let _ = log.lookup_offset(&store, target);
            }
            let _ = log.lookup_timestamp(&store, 1_700_000_000_010);
            for (from, to) in [(0, 40), (10, 11), (39, 1_000), (i64::MAX, i64::MIN)] {
                let _ = log.collect_aborted_transactions(&store, from, to);
            }
        }
    }
}

/// Item 13: serde reads a struct from an array by position; a scenario's
/// objects must be objects.
#[test]
fn objects_written_as_arrays_are_refused() {
    let e = refused(&base("", "", "", "").replacen(r#""config": {}"#, r#""config": [3, 7]"#, 1));
    assert_eq!(e.field, "cluster.config", "{e}");
    assert!(e.message.contains("must be a JSON object"), "{e}");
    let e =
        refused(&base("", "", "", "").replace(r#"{"name": "p", "config": {}}"#, r#"["p", {}]"#));
    assert_eq!(e.field, "producers[0]", "{e}");
    let e = refused(r#"[1, 100, 0, {"brokers": [0]}]"#);
    assert_eq!(e.field, "", "{e}");
    assert!(
        e.message.contains("a scenario must be a JSON object"),
        "{e}"
    );
}

/// Scenario-wide bounds (issue 24): clients and partitions in all, each
/// with one message naming the limit; 40 groups of 40 members still fit.
#[test]
fn scenario_wide_bounds_on_clients_and_partitions_are_named() {
    use kafka_sim::scenario::{MAX_CLIENTS, MAX_TOTAL_PARTITIONS};
    let consumers = |n: usize| -> String {
        (0..n)
            .map(|i| {
                format!(
                    r#"{{"name": "c{i}", "subscribe": ["t"], "config": {{"group.id": "g{}"}}}}"#,
                    i % 40
                )
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let sc = |consumers: String, topics: &str| {
        format!(
            r#"{{"seed": 1, "run_until_ms": 10, "cluster": {{"brokers": [0, 1, 2]}},
                "topics": [{topics}], "consumers": [{consumers}]}}"#
        )
    };
    let t = r#"{"name": "t", "partitions": 3}"#;
    Scenario::from_json(&sc(consumers(1600), t)).expect("40 groups of 40 members");
    let e = refused(&sc(consumers(MAX_CLIENTS + 1), t));
    assert_eq!(e.field, "consumers", "{e}");
    assert!(e.message.contains(&format!("at most {MAX_CLIENTS}")), "{e}");
    // Three topics of 10,000 partitions, plus __consumer_offsets' 50.
    let big: Vec<String> = (0..3)
        .map(|i| format!(r#"{{"name": "t{i}", "partitions": 10000}}"#))
        .collect();
    let e = refused(&sc(consumers(1), &format!("{t},{}", big.join(","))));
    assert_eq!(e.field, "topics", "{e}");
    assert!(
        e.message.contains("30053 partitions in all")
            && e.message
                .contains(&format!("at most {MAX_TOTAL_PARTITIONS}")),
        "{e}"
    );
    // Without consumers (no __consumer_offsets) the same topics fit.
    Scenario::from_json(&sc(String::new(), &big.join(","))).expect("30,000 partitions");
}
