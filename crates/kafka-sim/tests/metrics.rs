//! Kafka's metrics (M1), against values computed by hand on small scenarios.
//!
//! Hand arithmetic used below:
//! * A batch of one record with key `k` and value `hello` is 74 bytes: the
//!   61-byte v2 batch header plus a 13-byte record (length 1, attributes
//!   1, timestamp delta 1, offset delta 1, key length 1 + 1, value length
//!   1 + 5, header count 1).
//! * Every link is 5 ms one way, so an acks=1 produce is answered 10 ms
//!   after it is sent, and the leader answers it the moment it arrives.
//! * Yammer's one-minute rate: α = 1 − e^(−5/60) per 5 s tick; the first
//!   tick sets the rate to (events in its interval) / 5 s.
//! * A client `Rate` over 2 windows of 30 s divides by the time since its
//!   oldest sample started, plus one full window while less than one has
//!   passed.

use kafka_sim::ids::{BrokerId, NodeId};
use kafka_sim::metrics::{self, Reading};
use kafka_sim::{Scenario, Timeline, World};

mod common;
use common::{find, run};
use kafka_sim::event::EventKind;

/// The value of `attribute` of the MBean `mbean` on `node`.
fn value(rs: &[Reading], node: NodeId, mbean: &str, attribute: &str) -> f64 {
    rs.iter()
        .find(|r| r.node == node && &*r.mbean == mbean && r.attribute == attribute)
        .unwrap_or_else(|| panic!("no {mbean} {attribute} on {node}"))
        .value
}

fn broker(i: i32) -> NodeId {
    NodeId::Broker(BrokerId(i))
}

const URP: &str = "kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions";
const UNDER_MIN: &str = "kafka.server:type=ReplicaManager,name=UnderMinIsrPartitionCount";
const AT_MIN: &str = "kafka.server:type=ReplicaManager,name=AtMinIsrPartitionCount";
const SHRINKS: &str = "kafka.server:type=ReplicaManager,name=IsrShrinksPerSec";
const EXPANDS: &str = "kafka.server:type=ReplicaManager,name=IsrExpandsPerSec";
const MSGS_IN: &str = "kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec";
const BYTES_IN: &str = "kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec";
const FAILED_PRODUCE: &str =
    "kafka.server:type=BrokerTopicMetrics,name=FailedProduceRequestsPerSec";
const ACTIVE: &str = "kafka.controller:type=KafkaController,name=ActiveControllerCount";
const OFFLINE: &str = "kafka.controller:type=KafkaController,name=OfflinePartitionsCount";
const PRODUCE_TIME: &str = "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce";

fn alpha() -> f64 {
    1.0 - (-5.0f64 / 60.0).exp()
}

/// The world after the first event that matches, and that event's time.
fn after_first(t: &mut Timeline, f: impl Fn(&EventKind) -> bool) -> World {
    let i = t
        .events()
        .iter()
        .position(|e| f(&e.kind))
        .expect("the event happens");
    t.state_at(i as u64 + 1)
}

/// The world 100 ms after the first event that matches.
fn later(t: &mut Timeline, f: impl Fn(&EventKind) -> bool) -> World {
    let at = t
        .events()
        .iter()
        .find(|e| f(&e.kind))
        .expect("the event happens")
        .time_ms
        + 100;
    let n = t.events().iter().take_while(|e| e.time_ms <= at).count();
    t.state_at(n as u64)
}

/// Three brokers, `t-0` on [0, 1, 2] with min.insync.replicas 2, an acks=all producer.
fn durability(commands: &str, until: u64) -> Timeline {
    run(&format!(
        r#"{{"seed": 1, "run_until_ms": {until},
            "cluster": {{"brokers": [0, 1, 2], "config": {{"zookeeper.session.timeout.ms": 6000}}}},
            "topics": [{{"name": "t", "partitions": 1, "replication.factor": 3,
                         "replica.assignment": {{"0": [0, 1, 2]}},
                         "config": {{"min.insync.replicas": 2}}}}],
            "producers": [{{"name": "p", "config": {{"acks": "all", "linger.ms": 0}}}}],
            "commands": [{commands}]}}"#
    ))
}

#[test]
fn the_durability_dials_move_as_replicas_die() {
    let mut t = durability(
        r#"{"at_ms": 100, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "hello"},
           {"at_ms": 1000, "type": "kill_broker", "broker": 1},
           {"at_ms": 9000, "type": "kill_broker", "broker": 2},
           {"at_ms": 17000, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "hello"}"#,
        20000,
    );
    // One record of 74 bytes, on the leader only.
    let w = after_first(&mut t, |k| {
        matches!(k, EventKind::BatchAppended { leader: true, .. })
    });
    let rs = metrics::read(&w);
    assert_eq!(value(&rs, broker(0), MSGS_IN, "Count"), 1.0);
    assert_eq!(value(&rs, broker(0), BYTES_IN, "Count"), 74.0);
    assert_eq!(value(&rs, broker(1), MSGS_IN, "Count"), 0.0);
    for b in 0..3 {
        assert_eq!(value(&rs, broker(b), URP, "Value"), 0.0);
    }
    assert_eq!(value(&rs, broker(0), AT_MIN, "Value"), 0.0);
    // The controller removes broker 1: ISR [0, 2], exactly min.insync.replicas
    // (read 100 ms later, once the leader has the controller's LeaderAndIsr).
    let w = later(
        &mut t,
        |k| matches!(k, EventKind::IsrUpdatedByController { new_isr, .. } if new_isr.len() == 2),
    );
    let rs = metrics::read(&w);
    assert_eq!(value(&rs, broker(0), URP, "Value"), 1.0);
    assert_eq!(value(&rs, broker(0), AT_MIN, "Value"), 1.0);
    assert_eq!(value(&rs, broker(0), UNDER_MIN, "Value"), 0.0);
    // A dead broker reports nothing; the others' controller gauges sum to 1.
    assert!(!rs.iter().any(|r| r.node == broker(1)));
    let active: f64 = rs
        .iter()
        .filter(|r| &*r.mbean == ACTIVE)
        .map(|r| r.value)
        .sum();
    assert_eq!(active, 1.0);
    // The controller (broker 0) handled two BrokerChange events: brokers 1
    // and 2 registering after it at the start, and broker 1's going.
    let elections = "kafka.controller:type=ControllerStats,name=LeaderElectionRateAndTimeMs";
    assert_eq!(value(&rs, broker(0), elections, "Count"), 2.0);
    assert_eq!(value(&rs, broker(2), elections, "Count"), 0.0);
    // Followers fetch with replica.fetch.wait.max.ms = 500: the leader holds
    // each fetch with nothing new that long.
    let follower = "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=FetchFollower";
    assert_eq!(value(&rs, broker(0), follower, "Max"), 500.0);
    assert_eq!(value(&rs, broker(0), follower, "50thPercentile"), 500.0);
    // Then broker 2: ISR [0], below min.insync.replicas.
    let w = later(
        &mut t,
        |k| matches!(k, EventKind::IsrUpdatedByController { new_isr, .. } if new_isr.len() == 1),
    );
    let rs = metrics::read(&w);
    assert_eq!(value(&rs, broker(0), UNDER_MIN, "Value"), 1.0);
    assert_eq!(value(&rs, broker(0), AT_MIN, "Value"), 0.0);
    assert_eq!(value(&rs, broker(0), FAILED_PRODUCE, "Count"), 0.0);
    // The controller shrank the ISR, not the leader: no IsrShrinksPerSec.
    assert_eq!(value(&rs, broker(0), SHRINKS, "Count"), 0.0);
    assert_eq!(value(&rs, broker(0), OFFLINE, "Value"), 0.0);
    // The produce at 17 s is refused with NOT_ENOUGH_REPLICAS, once per attempt.
    let refused = find(&t, |k| matches!(k, EventKind::ProduceRejected { .. })).len();
    assert!(refused >= 1);
    let rs = metrics::read(t.head());
    assert_eq!(
        value(&rs, broker(0), FAILED_PRODUCE, "Count"),
        refused as f64
    );
    assert_eq!(value(&rs, broker(0), MSGS_IN, "Count"), 1.0);
}

#[test]
fn a_wrong_leader_is_not_a_failed_produce() {
    // Leadership moves 0 → 1 (a controlled shutdown) and back 1 → 0 (a
    // preferred leader election); the producer still sends to 1, which
    // refuses with NOT_LEADER_OR_FOLLOWER: an expected error, not counted.
    let t = durability(
        r#"{"at_ms": 100, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "hello"},
           {"at_ms": 300, "type": "shutdown_broker", "broker": 0},
           {"at_ms": 600, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "hello"},
           {"at_ms": 1000, "type": "restart_broker", "broker": 0},
           {"at_ms": 3000, "type": "elect_preferred_leaders"},
           {"at_ms": 3010, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "hello"}"#,
        6000,
    );
    let rejected: Vec<_> = find(&t, |k| matches!(k, EventKind::ProduceRejected { .. }));
    let rs = metrics::read(t.head());
    // Broker 0 refuses the produce sent on stale metadata.
    assert!(rejected.iter().any(|e| matches!(
        e.kind,
        EventKind::ProduceRejected {
            error: kafka_sim::msg::ErrorCode::NotLeaderOrFollower,
            ..
        }
    )));
    let failed: f64 = rs
        .iter()
        .filter(|r| &*r.mbean == FAILED_PRODUCE && r.attribute == "Count")
        .map(|r| r.value)
        .sum();
    let counted = rejected
        .iter()
        .filter(|e| {
            !matches!(
                e.kind,
                EventKind::ProduceRejected {
                    error: kafka_sim::msg::ErrorCode::NotLeaderOrFollower,
                    ..
                }
            )
        })
        .count();
    assert_eq!(failed, counted as f64);
}

#[test]
fn the_leader_shrinks_and_expands_the_isr_and_the_meters_tick() {
    // The link to follower 1 is cut and a record arrives: after
    // replica.lag.time.max.ms behind, the leader shrinks the ISR itself; after the heal it expands it again.
    let mut t = run(r#"{"seed": 1, "run_until_ms": 50000,
            "cluster": {"brokers": [0, 1, 2], "config": {"replica.lag.time.max.ms": 2000}},
            "topics": [{"name": "t", "partitions": 1, "replication.factor": 3,
                        "replica.assignment": {"0": [0, 1, 2]}}],
            "producers": [{"name": "p", "config": {"acks": "1"}}],
            "commands": [{"at_ms": 6000, "type": "cut_link", "a": "broker-0", "b": "broker-1"},
                         {"at_ms": 7000, "type": "produce", "producer": "p", "topic": "t", "value": "v"},
                         {"at_ms": 16000, "type": "heal_link", "a": "broker-0", "b": "broker-1"}]}"#);
    let shrunk = find(
        &t,
        |k| matches!(k, EventKind::IsrChangeApplied { isr, .. } if isr.len() == 2),
    )[0]
    .time_ms;
    let w = after_first(
        &mut t,
        |k| matches!(k, EventKind::IsrChangeApplied { isr, .. } if isr.len() == 2),
    );
    let started = find(
        &t,
        |k| matches!(k, EventKind::BrokerStarted { broker, .. } if *broker == BrokerId(0)),
    )[0]
    .time_ms;
    let rs = metrics::read(&w);
    assert_eq!(value(&rs, broker(0), SHRINKS, "Count"), 1.0);
    assert_eq!(value(&rs, broker(0), EXPANDS, "Count"), 0.0);
    // The rate moves at the tick after the shrink: the first ticks found
    // no events (rate 0), so that tick makes it α × (1 / 5 s).
    let next_tick = started + (shrunk - started) / 5000 * 5000 + 5000;
    let before_tick = metrics::read_at(&w, next_tick - 1);
    assert_eq!(
        value(&before_tick, broker(0), SHRINKS, "OneMinuteRate"),
        0.0
    );
    let at_tick = metrics::read_at(&w, next_tick);
    let rate = value(&at_tick, broker(0), SHRINKS, "OneMinuteRate");
    assert!((rate - alpha() / 5.0).abs() < 1e-12, "{rate}");
    // A minute of quiet later it has decayed by (1 − α)^12.
    let later = metrics::read_at(&w, next_tick + 60_000);
    let decayed = value(&later, broker(0), SHRINKS, "OneMinuteRate");
    assert!((decayed - alpha() / 5.0 * (1.0 - alpha()).powi(12)).abs() < 1e-12);
    let rs = metrics::read(t.head());
    assert_eq!(value(&rs, broker(0), EXPANDS, "Count"), 1.0);
    assert_eq!(value(&rs, broker(0), SHRINKS, "Count"), 1.0);
    assert_eq!(value(&rs, broker(0), URP, "Value"), 0.0);
}

#[test]
fn producer_rates_and_latencies_follow_the_clients_windows() {
    let t = run(r#"{"seed": 1, "run_until_ms": 10000,
            "cluster": {"brokers": [0]},
            "topics": [{"name": "t", "partitions": 1, "replication.factor": 1}],
            "producers": [{"name": "p", "config": {"acks": "1", "linger.ms": 0, "client.id": "shop"}}],
            "commands": [
              {"at_ms": 1000, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "hello"},
              {"at_ms": 2000, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "hello"},
              {"at_ms": 3000, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "hello"}]}"#);
    let rs = metrics::read_at(t.head(), 10_000);
    let p = NodeId::Producer(0);
    let m = "kafka.producer:type=producer-metrics,client-id=shop";
    // 3 records in one sample that began with the first request (after
    // the first metadata round trip): 3 / (the time since + one window).
    let first = find(&t, |k| matches!(k, EventKind::BatchesDrained { .. }))[0].time_ms;
    assert!((1000..1100).contains(&first));
    let window = (10_000 - first + 30_000) as f64 / 1000.0;
    assert_eq!(value(&rs, p, m, "record-send-rate"), 3.0 / window);
    assert_eq!(value(&rs, p, m, "records-per-request-avg"), 1.0);
    assert_eq!(value(&rs, p, m, "batch-size-avg"), 74.0);
    assert_eq!(value(&rs, p, m, "request-latency-avg"), 10.0);
    assert_eq!(value(&rs, p, m, "record-retry-rate"), 0.0);
    assert_eq!(value(&rs, p, m, "record-error-rate"), 0.0);
    // Everything sent and answered: the whole buffer.memory is free.
    assert_eq!(value(&rs, p, m, "buffer-available-bytes"), 33_554_432.0);
    // The leader answered each acks=1 produce as it arrived.
    assert_eq!(value(&rs, broker(0), PRODUCE_TIME, "Count"), 3.0);
    assert_eq!(value(&rs, broker(0), PRODUCE_TIME, "Max"), 0.0);
    // Two windows after the last record, the rate has gone.
    let quiet = metrics::read_at(t.head(), 70_000);
    assert_eq!(value(&quiet, p, m, "record-send-rate"), 0.0);
    assert!(value(&quiet, p, m, "request-latency-avg").is_nan());
}

#[test]
fn consumer_lag_and_rebalance_metrics() {
    let mut t = run(r#"{"seed": 1, "run_until_ms": 12000,
            "cluster": {"brokers": [0], "config": {"offsets.topic.replication.factor": 1}},
            "topics": [{"name": "t", "partitions": 1, "replication.factor": 1}],
            "producers": [{"name": "p", "config": {"linger.ms": 0}}],
            "consumers": [{"name": "c", "subscribe": ["t"], "start_at_ms": 1000,
                           "config": {"group.id": "g", "auto.offset.reset": "earliest", "max.poll.records": 1}}],
            "commands": [{"at_ms": 100, "type": "produce", "producer": "p", "topic": "t", "value": "v", "count": 10}]}"#);
    let c = NodeId::Consumer(0);
    let fetch = "kafka.consumer:type=consumer-fetch-manager-metrics,client-id=consumer-g-1";
    let coord = "kafka.consumer:type=consumer-coordinator-metrics,client-id=consumer-g-1";
    // The first poll returns offset 0 with the high watermark at 10: lag 9.
    let w = after_first(&mut t, |k| matches!(k, EventKind::RecordsConsumed { .. }));
    let first = find(&t, |k| matches!(k, EventKind::RecordsConsumed { .. }))[0];
    let EventKind::RecordsConsumed {
        records,
        high_watermark,
        ..
    } = &first.kind
    else {
        unreachable!()
    };
    assert_eq!(
        (records.len(), records[0].offset, *high_watermark),
        (1, 0, 10)
    );
    let rs = metrics::read(&w);
    assert_eq!(value(&rs, c, fetch, "records-lag-max"), 9.0);
    assert_eq!(
        value(
            &rs,
            c,
            &format!("{fetch},topic=t,partition=0"),
            "records-lag"
        ),
        9.0
    );
    // One rebalance: from the first JoinGroup to the assignment, with
    // group.initial.rebalance.delay.ms (3 s) in between.
    let joined = t
        .events()
        .iter()
        .find(|e| matches!(&e.kind, EventKind::MessageSent { from: NodeId::Consumer(0), message, .. } if message.api() == "JoinGroup"))
        .unwrap()
        .time_ms;
    let assigned = find(&t, |k| matches!(k, EventKind::PartitionsAssigned { .. }))[0].time_ms;
    assert!(assigned - joined >= 3000);
    let rs = metrics::read(&w);
    assert_eq!(value(&rs, c, coord, "rebalance-total"), 1.0);
    assert_eq!(
        value(&rs, c, coord, "rebalance-latency-avg"),
        (assigned - joined) as f64
    );
    // At the end: everything consumed, the latest lag 0, the max still 9.
    let rs = metrics::read_at(t.head(), 12_000);
    assert_eq!(
        value(
            &rs,
            c,
            &format!("{fetch},topic=t,partition=0"),
            "records-lag"
        ),
        0.0
    );
    assert_eq!(value(&rs, c, fetch, "records-lag-max"), 9.0);
    assert_eq!(
        value(&rs, c, coord, "last-rebalance-seconds-ago"),
        ((12_000 - assigned) / 1000) as f64
    );
    // Ten records over the window since the first poll's sample began.
    let consumed = value(&rs, c, fetch, "records-consumed-rate");
    let since = first.time_ms;
    assert_eq!(consumed, 10.0 / ((12_000 - since + 30_000) as f64 / 1000.0));
}

/// Readings as text, so NaN equals NaN.
fn text(rs: &[Reading]) -> Vec<String> {
    rs.iter()
        .map(|r| format!("{} {}", r.key(), r.value))
        .collect()
}

#[test]
fn a_seek_gives_the_metrics_of_a_straight_run() {
    let json = common::repo_file("static/lessons/acks-retries-idempotence.json");
    let sc = Scenario::from_json(&json).unwrap();
    let mut t = Timeline::new(sc.clone()).unwrap();
    t.run_to_end();
    // Straight: one world stepped from the start, read after every step.
    let mut w = World::new(std::sync::Arc::new(sc));
    let mut straight = std::collections::BTreeMap::new();
    straight.insert(0, text(&metrics::read(&w)));
    while w.step() {
        w.drain_events();
        straight.insert(w.events_emitted(), text(&metrics::read(&w)));
    }
    // Seeks, backwards, through the checkpoints, to every step boundary.
    let mut checked = 0;
    for (n, want) in straight.iter().rev() {
        let w = t.state_at(*n);
        assert_eq!(&text(&metrics::read(&w)), want, "after {n} events");
        checked += 1;
    }
    assert!(checked > 100, "{checked}");
}

#[test]
fn sampling_every_interval_reads_the_world_at_that_time() {
    let json = common::repo_file("static/lessons/acks-retries-idempotence.json");
    let sc = Scenario::from_json(&json).unwrap();
    let mut t = Timeline::new(sc.clone()).unwrap();
    t.run_to_end();
    let mut samples = Vec::new();
    let stopped = metrics::every(sc.clone(), 1000, |step, time, rs| {
        samples.push((step, time, rs))
    })
    .unwrap();
    assert_eq!(stopped, None);
    assert_eq!(samples.len() as u64, sc.run_until_ms / 1000 + 1);
    for (step, time, rs) in samples {
        // Every event up to `time` is in, none after it.
        let n = t.events().iter().take_while(|e| e.time_ms <= time).count() as u64;
        assert_eq!(step, n, "at {time} ms");
        let w = t.state_at(n);
        assert_eq!(text(&metrics::read_at(&w, time)), text(&rs), "at {time} ms");
    }
}

#[test]
fn the_timelines_chart_samples_are_the_metrics_at_their_time() {
    let json = common::repo_file("static/lessons/acks-retries-idempotence.json");
    let sc = Scenario::from_json(&json).unwrap();
    let mut t = Timeline::new(sc.clone()).unwrap();
    t.sample_metrics(500);
    t.run_to_end();
    let samples = t.metric_samples().to_vec();
    assert_eq!(samples.len() as u64, sc.run_until_ms / 500 + 1);
    let per_chart: usize = metrics::CHARTS.iter().map(|c| c.series.len()).sum();
    let urp = 0; // The first series: UnderReplicatedPartitions, summed.
    for s in &samples {
        assert_eq!(s.values.len(), per_chart);
        let w = t.state_at(s.step);
        let want = metrics::chart_values(&w, s.time_ms);
        assert_eq!(
            format!("{:?}", s.values),
            format!("{want:?}"),
            "at {} ms",
            s.time_ms
        );
        let total: f64 = metrics::read_at(&w, s.time_ms)
            .iter()
            .filter(|r| r.name == "UnderReplicatedPartitions")
            .map(|r| r.value)
            .sum();
        assert_eq!(s.values[urp], total);
    }
    // Brokers 1 and 2 die at 4 s: the last samples show t-0 under-replicated
    // and below min.insync.replicas; the first show neither.
    assert_eq!(samples[0].values[0], 0.0);
    let last = samples.last().unwrap();
    assert_eq!((last.values[0], last.values[1]), (1.0, 1.0));
}

#[test]
fn a_lesson_question_can_be_answered_by_a_metric() {
    use kafka_sim::lesson_check::{is_metric, metric_truth};
    let json = common::repo_file("static/lessons/acks-retries-idempotence.json");
    let mut t = Timeline::new(Scenario::from_json(&json).unwrap()).unwrap();
    let end = t.run_to_end();
    let w = t.state_at(end);
    assert!(is_metric("metric:LeaderCount@broker-0"));
    assert!(!is_metric("/leader"));
    // A gauge reads its Value, a meter its Count, unless an attribute is named.
    assert_eq!(
        metric_truth(&w, "metric:UnderMinIsrPartitionCount@broker-0").as_deref(),
        Some("1")
    );
    assert_eq!(
        metric_truth(&w, "metric:FailedProduceRequestsPerSec@broker-0"),
        metric_truth(&w, "metric:FailedProduceRequestsPerSec.Count@broker-0")
    );
    assert_eq!(
        metric_truth(&w, "metric:FailedProduceRequestsPerSec.Count@broker-0").as_deref(),
        Some("4")
    );
    // A client metric reads under its own name.
    assert_eq!(
        metric_truth(&w, "metric:request-latency-avg@producer-0").as_deref(),
        Some("10")
    );
    // Nothing for a dead broker, an unknown metric or a bad form.
    assert_eq!(metric_truth(&w, "metric:LeaderCount@broker-1"), None);
    assert_eq!(metric_truth(&w, "metric:Nope@broker-0"), None);
    assert_eq!(metric_truth(&w, "metric:LeaderCount"), None);
    // A scenario whose question names a metric the page cannot read is refused
    // by the run, with the step named.
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v["lesson"]["steps"][2]["answer"] = "metric:LeaderCount@broker-7".into();
    let sc = Scenario::from_json(&v.to_string()).unwrap();
    let lesson = kafka_sim::lesson::Lesson::from_value(sc.lesson.as_ref().unwrap()).unwrap();
    let mut check = kafka_sim::lesson_check::AnswerCheck::new(&lesson);
    let mut error = None;
    kafka_sim::timeline::stream(sc, |e, w| match check.see(e, w) {
        Ok(()) => true,
        Err(why) => {
            error = Some(why);
            false
        }
    })
    .unwrap();
    let error = error.expect("refused");
    assert!(
        error.contains("lesson.steps[2].answer: metric:LeaderCount@broker-7"),
        "{error}"
    );
}

/// The sum of `attribute` of `mbean` over every live process.
fn total(rs: &[Reading], mbean: &str, attribute: &str) -> f64 {
    rs.iter()
        .filter(|r| &*r.mbean == mbean && r.attribute == attribute)
        .map(|r| r.value)
        .sum()
}

#[test]
fn the_controllers_gauges_and_meters_after_a_leader_dies_alone_in_its_isr() {
    // t-0 on [0, 1]; the link 0–1 is cut, so 1 leaves the ISR; then 0 dies.
    let scenario = |unclean: bool| {
        format!(
            r#"{{"seed": 1, "run_until_ms": 12000,
                "cluster": {{"brokers": [0, 1, 2], "config": {{"zookeeper.session.timeout.ms": 6000,
                    "replica.lag.time.max.ms": 2000, "unclean.leader.election.enable": {unclean}}}}},
                "topics": [{{"name": "t", "partitions": 1, "replication.factor": 2, "replica.assignment": {{"0": [0, 1]}}}}],
                "producers": [{{"name": "p", "config": {{"acks": 1, "enable.idempotence": false}}}}],
                "commands": [{{"at_ms": 100, "type": "cut_link", "a": "broker-0", "b": "broker-1"}},
                    {{"at_ms": 200, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "v", "count": 2}},
                    {{"at_ms": 4000, "type": "kill_broker", "broker": 0}}]}}"#
        )
    };
    const IMBALANCE: &str =
        "kafka.controller:type=KafkaController,name=PreferredReplicaImbalanceCount";
    const UNCLEAN: &str = "kafka.controller:type=ControllerStats,name=UncleanLeaderElectionsPerSec";
    const ELECTIONS: &str =
        "kafka.controller:type=ControllerStats,name=LeaderElectionRateAndTimeMs";
    const LEADERS: &str = "kafka.server:type=ReplicaManager,name=LeaderCount";
    const PARTITIONS: &str = "kafka.server:type=ReplicaManager,name=PartitionCount";

    // Before the kill: leader 0 leads t-0 alone in its ISR after the shrink.
    let mut clean = run(&scenario(false));
    let w = after_first(&mut clean, |k| {
        matches!(k, EventKind::IsrChangeApplied { .. })
    });
    let rs = metrics::read(&w);
    assert_eq!(value(&rs, broker(0), LEADERS, "Value"), 1.0);
    assert_eq!(value(&rs, broker(1), LEADERS, "Value"), 0.0);
    assert_eq!(value(&rs, broker(1), PARTITIONS, "Value"), 1.0);
    assert_eq!(value(&rs, broker(2), PARTITIONS, "Value"), 0.0);
    assert_eq!(value(&rs, broker(0), SHRINKS, "Count"), 1.0);
    assert_eq!(total(&rs, ACTIVE, "Value"), 1.0);
    assert_eq!(total(&rs, IMBALANCE, "Value"), 0.0);

    // Clean: no replica may lead: one offline partition, counted by the
    // new controller (broker 0 was the first).
    let rs = metrics::read(clean.head());
    assert_eq!(total(&rs, ACTIVE, "Value"), 1.0);
    assert_eq!(total(&rs, OFFLINE, "Value"), 1.0);
    // Offline, its leader (none) is not the preferred replica either.
    assert_eq!(total(&rs, IMBALANCE, "Value"), 1.0);
    assert_eq!(total(&rs, UNCLEAN, "Count"), 0.0);
    // The new controller found broker 0 gone when it loaded the cluster
    // (a ControllerChange, not a BrokerChange), and broker 0's own count
    // died with it: LeaderElectionRateAndTimeMs counts nothing.
    assert_eq!(total(&rs, ELECTIONS, "Count"), 0.0);

    // Unclean: broker 1 leads from outside the ISR.
    let rs = metrics::read(run(&scenario(true)).head());
    assert_eq!(total(&rs, UNCLEAN, "Count"), 1.0);
    assert_eq!(total(&rs, OFFLINE, "Value"), 0.0);
    assert_eq!(total(&rs, IMBALANCE, "Value"), 1.0);
    assert_eq!(value(&rs, broker(1), LEADERS, "Value"), 1.0);
}

#[test]
fn bytes_out_fetch_times_log_gauges_and_commit_latency() {
    let t = run(r#"{"seed": 1, "run_until_ms": 8000,
            "cluster": {"brokers": [0], "config": {"offsets.topic.replication.factor": 1, "offsets.topic.num.partitions": 1}},
            "topics": [{"name": "t", "partitions": 1, "replication.factor": 1}],
            "producers": [{"name": "p", "config": {"linger.ms": 0}}],
            "consumers": [{"name": "c", "subscribe": ["t"], "start_at_ms": 1000,
                           "config": {"group.id": "g", "auto.offset.reset": "earliest", "enable.auto.commit": false}}],
            "commands": [{"at_ms": 100, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "hello"},
                         {"at_ms": 7000, "type": "commit_sync", "consumer": "c"}]}"#);
    let rs = metrics::read_at(t.head(), 8000);
    const BYTES_OUT: &str = "kafka.server:type=BrokerTopicMetrics,name=BytesOutPerSec";
    const FETCH_TIME: &str =
        "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=FetchConsumer";
    // One 74-byte batch went to the consumer, once; followers: none.
    assert_eq!(value(&rs, broker(0), BYTES_OUT, "Count"), 74.0);
    // Fetches with nothing new wait fetch.max.wait.ms (500 ms) in the broker.
    assert_eq!(value(&rs, broker(0), FETCH_TIME, "Max"), 500.0);
    assert!(value(&rs, broker(0), FETCH_TIME, "Count") >= 2.0);
    let log = |name: &str| format!("kafka.log:type=Log,name={name},topic=t,partition=0");
    assert_eq!(value(&rs, broker(0), &log("LogEndOffset"), "Value"), 1.0);
    assert_eq!(value(&rs, broker(0), &log("LogStartOffset"), "Value"), 0.0);
    assert_eq!(value(&rs, broker(0), &log("Size"), "Value"), 74.0);
    assert_eq!(value(&rs, broker(0), &log("NumLogSegments"), "Value"), 1.0);
    // The commit is answered once the offsets are appended with one replica:
    // a round trip of 2 × 5 ms.
    let coord = "kafka.consumer:type=consumer-coordinator-metrics,client-id=consumer-g-1";
    assert_eq!(
        value(&rs, NodeId::Consumer(0), coord, "commit-latency-avg"),
        10.0
    );
}

#[test]
fn record_errors_and_retries_are_counted_by_records() {
    // Brokers 1 and 2 die: the acks=all producer retries, then gives up at
    // delivery.timeout.ms.
    let json = common::repo_file("static/lessons/acks-retries-idempotence.json");
    let t = run(&json);
    let p = NodeId::Producer(1);
    let m = "kafka.producer:type=producer-metrics,client-id=producer-2";
    let failed = find(&t, |k| {
        matches!(k, EventKind::RecordFailed { producer: 1, .. })
    });
    assert_eq!(failed.len(), 1);
    let at = failed[0].time_ms;
    let rs = metrics::read_at(t.head(), at);
    // One record failed, the sensor's first: its sample began then, so the
    // rate is 1 over one full window of 30 s.
    assert_eq!(value(&rs, p, m, "record-error-rate"), 1.0 / 30.0);
    // Every retry of a one-record batch counts one record, over the time
    // since the first retry plus a window.
    let retried: Vec<u64> = find(&t, |k| {
        matches!(k, EventKind::ProduceRetried { producer: 1, .. })
    })
    .iter()
    .map(|e| e.time_ms)
    .filter(|t| *t <= at)
    .collect();
    assert!(!retried.is_empty());
    let window = (at - retried[0] + 30_000) as f64 / 1000.0;
    assert_eq!(
        value(&rs, p, m, "record-retry-rate"),
        retried.len() as f64 / window
    );
}

/// Issue 24: the timeline bounds its checkpoints' memory by
/// `World::approx_clone_bytes`, which must count the metrics recorder: its
/// histograms keep up to 1,028 values each (8 bytes apiece), per broker and
/// request type.
#[test]
fn the_worlds_size_estimate_counts_the_metrics_recorder() {
    // Three brokers, six partitions at RF 3, 300 bursts of 20 records.
    let commands: Vec<String> = (0..300)
        .map(|i| {
            format!(
                r#"{{"at_ms": {}, "type": "produce", "producer": "p", "topic": "t", "key": "k{i}", "value": "v", "count": 20}}"#,
                100 + i * 50
            )
        })
        .collect();
    let json = format!(
        r#"{{"seed": 1, "run_until_ms": 20000,
            "cluster": {{"brokers": [0, 1, 2]}},
            "topics": [{{"name": "t", "partitions": 6, "replication.factor": 3}}],
            "producers": [{{"name": "p", "config": {{"linger.ms": 5}}}}],
            "commands": [{}]}}"#,
        commands.join(",")
    );
    let sc = Scenario::from_json(&json).unwrap();
    let mut w = World::new(std::sync::Arc::new(sc));
    let empty = w.metrics().approx_bytes();
    while w.step() {
        w.drain_events();
    }
    let rs = metrics::read(&w);
    // What the TotalTimeMs histograms alone must hold, from their counts.
    let kept: f64 = rs
        .iter()
        .filter(|r| r.name == "TotalTimeMs" && r.attribute == "Count")
        .map(|r| r.value.min(1028.0))
        .sum();
    assert!(kept > 500.0, "the run answers requests: {kept}");
    let bytes = w.metrics().approx_bytes();
    assert!(
        bytes >= empty + kept as u64 * 8,
        "{bytes} < {empty} + 8 × {kept}"
    );
    // And the world's estimate is its own parts (as `approx_clone_bytes`
    // documents them) plus the recorder.
    let replicas: u64 = w.brokers().values().map(|b| b.logs.len() as u64).sum();
    let partitions: u64 = w
        .brokers()
        .values()
        .map(|b| b.partitions.len() as u64)
        .sum();
    let own = 4096 + replicas * 1200 + partitions * 400 + w.pending_work() as u64 * 48;
    assert_eq!(w.approx_clone_bytes(), own + bytes);
}

/// During a reassignment the replication factor is the original replica
/// count: `Partition.isUnderReplicated` compares the committed ISR with
/// `replicas.diff(addingReplicas).size` (Kafka 3.9 `Partition.scala` lines
/// 171-177, 367). [0,1,2] → [0,1,3]: with ISR {0,1,2} the partition is not
/// under-replicated although 4 replicas are assigned; once broker 2 is
/// gone and 3 not yet in sync, it is.
#[test]
fn under_replicated_during_a_reassignment_counts_the_original_replicas() {
    let mut t = run(r#"{"seed": 1, "run_until_ms": 4000,
            "cluster": {"brokers": [0, 1, 2, 3]},
            "topics": [{"name": "t", "partitions": 1, "replication.factor": 3,
                        "replica.assignment": {"0": [0, 1, 2]}}],
            "producers": [{"name": "p"}],
            "commands": [
              {"at_ms": 100, "type": "produce", "producer": "p", "topic": "t", "key": "k", "value": "v", "count": 50},
              {"at_ms": 500, "type": "reassign", "topic": "t", "partition": 0, "replicas": [0, 1, 3]}]}"#);
    let w = after_first(&mut t, |k| {
        matches!(
            k,
            EventKind::BecameLeader {
                leader_epoch: 1,
                ..
            }
        )
    });
    let p = &w.brokers()[&BrokerId(0)].partitions[&kafka_sim::TopicPartition::new("t", 0)];
    assert_eq!((p.replicas.len(), p.isr.len()), (4, 3));
    assert_eq!(p.adding_replicas, vec![BrokerId(3)]);
    let rs = metrics::read(&w);
    assert_eq!(value(&rs, broker(0), URP, "Value"), 0.0);
    // Completed: the replicas are the target, nothing is being added.
    assert_eq!(
        find(&t, |k| matches!(k, EventKind::ReassignmentCompleted { .. })).len(),
        1
    );
    let w = t.head();
    let p = &w.brokers()[&BrokerId(0)].partitions[&kafka_sim::TopicPartition::new("t", 0)];
    assert!(p.adding_replicas.is_empty());
    assert_eq!(value(&metrics::read(w), broker(0), URP, "Value"), 0.0);
}
