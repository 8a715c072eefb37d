//! A consumer's metrics (`kafka.consumer:type=consumer-fetch-manager-metrics`
//! and `type=consumer-coordinator-metrics`, tagged `client-id`).
//!
//! Kafka 3.9 code followed:
//! * `FetchMetricsManager.java` (lines 60-130) and `FetchCollector.java`
//!   (lines 185-196): when poll returns a partition's records, the lag
//!   `high watermark − position` (the position after those records) is
//!   recorded into `records-lag-max` (a `Max` over two 30 s windows) and
//!   the partition's own `records-lag` (its latest value, removed when the
//!   partition is no longer assigned); `records-consumed-rate` is a `Rate`
//!   of the records returned. (Kafka adds a fetch response's records once
//!   all its partitions are drained; here each partition's records count
//!   when poll returns them.)
//! * `AbstractCoordinator.java` (lines 560-570 and 835-852, the sensors at
//!   1365-1425): a rebalance starts when the member sends JoinGroup (unless
//!   one is already under way) and ends when SyncGroup succeeds;
//!   `rebalance-latency-avg` averages them, `rebalance-total` counts them,
//!   `last-rebalance-seconds-ago` is whole seconds since the last end (−1
//!   before the first).
//! * `ConsumerCoordinator` (`commit-latency-avg`): each OffsetCommit's
//!   response arrival − request sent.

use super::stats::{Combine, Sampled};
use super::{find, push_client, sent, Def, Kind, Latencies, Reading};
use crate::collections::SortedMap;
use crate::event::{Event, EventKind};
use crate::ids::{BrokerId, Millis, NodeId, TopicPartition};
use crate::msg::Message;
use crate::sim::World;
use std::sync::Arc;

const FETCH: &str = "kafka.consumer:type=consumer-fetch-manager-metrics";
const COORD: &str = "kafka.consumer:type=consumer-coordinator-metrics";
const FETCH_SRC: &str =
    "Kafka 3.9 FetchMetricsManager.java, lines 60-130; FetchCollector.java, lines 185-196";
const COORD_SRC: &str = "Kafka 3.9 AbstractCoordinator.java, lines 560-570, 835-852, 1365-1425";

/// The consumer's metrics.
pub const DEFS: &[Def] = &[
    Def {
        name: "records-lag-max",
        mbean: FETCH,
        kind: Kind::Client,
        meaning: "The largest lag (high watermark − position) this consumer saw on any partition in the last two 30 s windows.",
        meaning_zh: "该消费者在最近两个 30 秒窗口内、在任一分区上看到的最大滞后（高水位 − 消费位置）。",
        computed: "Max over two 30 s windows of the lag recorded each time poll returns a partition's records",
        mirrors: FETCH_SRC,
    },
    Def {
        name: "records-lag",
        mbean: FETCH,
        kind: Kind::Client,
        meaning: "This partition's latest lag (high watermark − position), tagged topic and partition.",
        meaning_zh: "该分区最近一次的滞后（高水位 − 消费位置），按主题和分区标记。",
        computed: "the lag last recorded for the partition, while it is assigned",
        mirrors: FETCH_SRC,
    },
    Def {
        name: "records-consumed-rate",
        mbean: FETCH,
        kind: Kind::Client,
        meaning: "Records poll returned per second.",
        meaning_zh: "poll 每秒返回的消息数。",
        computed: "Rate over two 30 s windows of the records poll returned",
        mirrors: FETCH_SRC,
    },
    Def {
        name: "rebalance-latency-avg",
        mbean: COORD,
        kind: Kind::Client,
        meaning: "Average time from sending JoinGroup to a successful SyncGroup, in ms: how long a rebalance stops this member.",
        meaning_zh: "从发出 JoinGroup 到 SyncGroup 成功的平均时间（毫秒）：一次重平衡让该成员停顿多久。",
        computed: "Avg over two 30 s windows of SyncGroup success − first JoinGroup of the rebalance",
        mirrors: COORD_SRC,
    },
    Def {
        name: "rebalance-total",
        mbean: COORD,
        kind: Kind::Client,
        meaning: "Successful rebalances this member took part in.",
        meaning_zh: "该成员参与并成功完成的重平衡次数。",
        computed: "a count of successful SyncGroups that ended a rebalance",
        mirrors: COORD_SRC,
    },
    Def {
        name: "last-rebalance-seconds-ago",
        mbean: COORD,
        kind: Kind::Client,
        meaning: "Whole seconds since the last successful rebalance (−1: none yet).",
        meaning_zh: "距上一次成功重平衡的整秒数（−1：尚未发生）。",
        computed: "(now − last rebalance end) / 1000, rounded down",
        mirrors: COORD_SRC,
    },
    Def {
        name: "commit-latency-avg",
        mbean: COORD,
        kind: Kind::Client,
        meaning: "Average time from sending OffsetCommit to its response, in ms.",
        meaning_zh: "从发出 OffsetCommit 到收到响应的平均时间（毫秒）。",
        computed: "Avg over two 30 s windows of response arrival − request sent",
        mirrors: "Kafka 3.9 ConsumerCoordinator.ConsumerCoordinatorMetrics (commitSensor)",
    },
];

/// One consumer's sensors.
#[derive(Clone, Debug)]
struct Sensors {
    lag_max: Sampled,
    consumed: Sampled,
    lags: SortedMap<TopicPartition, i64>,
    rebalance_latency: Sampled,
    rebalance_total: u64,
    rebalance_start: Option<Millis>,
    last_rebalance_end: Option<Millis>,
    commit_latency: Sampled,
}

impl Default for Sensors {
    fn default() -> Sensors {
        Sensors {
            lag_max: Sampled::new(Combine::Max),
            consumed: Sampled::new(Combine::Sum),
            lags: SortedMap::new(),
            rebalance_latency: Sampled::new(Combine::Avg),
            rebalance_total: 0,
            rebalance_start: None,
            last_rebalance_end: None,
            commit_latency: Sampled::new(Combine::Avg),
        }
    }
}

/// What the consumer side counts.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    /// Behind an `Arc` each, as the brokers' meters are.
    consumers: SortedMap<u32, std::sync::Arc<Sensors>>,
    /// OffsetCommit requests: (consumer, broker, correlation id).
    commits: Latencies<(u32, BrokerId, i32)>,
}

impl Sensors {
    fn heap_bytes(&self) -> u64 {
        let sampled: u64 = [
            &self.lag_max,
            &self.consumed,
            &self.rebalance_latency,
            &self.commit_latency,
        ]
        .iter()
        .map(|s| s.heap_bytes())
        .sum();
        sampled + (self.lags.len() * std::mem::size_of::<(TopicPartition, i64)>()) as u64
    }
}

impl Recorder {
    /// A rough size in bytes (see `metrics::Recorder::approx_bytes`).
    pub(super) fn approx_bytes(&self) -> u64 {
        let each = std::mem::size_of::<(u32, Sensors)>() as u64;
        self.consumers
            .values()
            .map(|s| each + s.heap_bytes())
            .sum::<u64>()
            + self.commits.approx_bytes()
    }

    /// Consumer `c`'s sensors, to record on (copied first if a checkpoint
    /// still shares them).
    fn sensors(&mut self, c: u32) -> &mut Sensors {
        std::sync::Arc::make_mut(self.consumers.entry(c).or_default())
    }

    fn arrive(&mut self, now: Millis) {
        for ((c, _, _), at, latency) in self.commits.arrived(now) {
            self.sensors(c).commit_latency.record(latency as f64, at);
        }
    }

    pub(super) fn observe(&mut self, e: &Event) {
        let now = e.time_ms;
        self.arrive(now);
        match &e.kind {
            EventKind::RecordsConsumed {
                consumer,
                tp,
                records,
                high_watermark,
            } => {
                let Some(last) = records.last() else {
                    return;
                };
                let s = self.sensors(*consumer);
                let lag = high_watermark - (last.offset + 1);
                s.consumed.record(records.len() as f64, now);
                s.lag_max.record(lag as f64, now);
                s.lags.insert(tp.clone(), lag);
            }
            EventKind::PartitionsRevoked {
                consumer,
                partitions,
                ..
            } => {
                let s = self.sensors(*consumer);
                for tp in partitions {
                    s.lags.remove(tp);
                }
            }
            EventKind::PartitionsAssigned {
                consumer,
                assignment,
                ..
            } => {
                let s = self.sensors(*consumer);
                s.lags.retain(|tp, _| assignment.contains(tp));
                if let Some(start) = s.rebalance_start.take() {
                    s.rebalance_latency
                        .record(now.saturating_sub(start) as f64, now);
                    s.rebalance_total += 1;
                    s.last_rebalance_end = Some(now);
                }
            }
            EventKind::MessageDropped { id, .. } => self.commits.dropped(*id),
            EventKind::MessageSent { .. } => {
                let Some((id, from, to, deliver_at, message)) = sent(e) else {
                    return;
                };
                match (from, to, message) {
                    (NodeId::Consumer(c), _, Message::JoinGroup(_)) => {
                        let s = self.sensors(c);
                        s.rebalance_start.get_or_insert(now);
                    }
                    (NodeId::Consumer(c), NodeId::Broker(b), Message::OffsetCommit(r)) => {
                        self.commits.request((c, b, r.correlation_id), id, now)
                    }
                    (
                        NodeId::Broker(b),
                        NodeId::Consumer(c),
                        Message::OffsetCommitResponse { correlation_id, .. },
                    ) => self
                        .commits
                        .response((c, b, *correlation_id), id, deliver_at),
                    _ => {}
                }
            }
            _ => {}
        }
    }
}

/// Pushes every metric of every running consumer.
pub(super) fn read(w: &World, r: &Recorder, now: Millis, detail: bool, out: &mut Vec<Reading>) {
    // Responses that arrived after the last event are recorded on a copy
    // (a read changes nothing); without any, no copy is made.
    let arrived;
    let r = if r.commits.due_by(now) {
        arrived = {
            let mut c = r.clone();
            c.arrive(now);
            c
        };
        &arrived
    } else {
        r
    };
    let empty = Sensors::default();
    for c in w.consumers() {
        if !c.started || !c.alive {
            continue;
        }
        let s = r.consumers.get(&c.index).map_or(&empty, |s| &**s);
        let node = NodeId::Consumer(c.index);
        let id = c.client_id();
        let fetch: Arc<str> = format!("{FETCH},client-id={id}").into();
        push_client(
            out,
            find(DEFS, "records-lag-max"),
            fetch.clone(),
            node,
            s.lag_max.measure(now),
        );
        push_client(
            out,
            find(DEFS, "records-consumed-rate"),
            fetch.clone(),
            node,
            s.consumed.rate(now),
        );
        for (tp, lag) in s.lags.iter().filter(|_| detail) {
            let mbean = format!("{fetch},topic={},partition={}", tp.topic, tp.partition);
            push_client(
                out,
                find(DEFS, "records-lag"),
                mbean.into(),
                node,
                *lag as f64,
            );
        }
        if c.group.is_none() {
            continue;
        }
        let coord: Arc<str> = format!("{COORD},client-id={id}").into();
        let ago = s
            .last_rebalance_end
            .map_or(-1.0, |end| (now.saturating_sub(end) / 1000) as f64);
        for (name, v) in [
            ("rebalance-latency-avg", s.rebalance_latency.measure(now)),
            ("rebalance-total", s.rebalance_total as f64),
            ("last-rebalance-seconds-ago", ago),
            ("commit-latency-avg", s.commit_latency.measure(now)),
        ] {
            push_client(out, find(DEFS, name), coord.clone(), node, v);
        }
    }
}
