//! A producer's metrics (`kafka.producer:type=producer-metrics,client-id=…`).
//!
//! Kafka 3.9 code followed: `Sender.SenderMetrics` (`Sender.java`, lines
//! 940-1080): `record-send-rate` and `records-per-request-avg` are recorded
//! once per Produce request with its record count
//! (`updateProduceRequestMetrics`), `batch-size-avg` once per batch with
//! its size, `record-retry-rate` with a retried batch's record count,
//! `record-error-rate` with a failed batch's records, and
//! `request-latency-avg` with each response's latency
//! (`NetworkClient`: response received − request sent; 0 for acks=0, whose
//! requests complete when sent). `buffer-available-bytes` is
//! `RecordAccumulator.bufferPoolAvailableBytes` (`KafkaProducer`'s
//! gauge). Every rate and average is a [`Sampled`] over two 30 s windows.

use super::stats::{Combine, Sampled};
use super::{find, push_client, sent, Def, Kind, Latencies, Reading};
use crate::collections::SortedMap;
use crate::event::{Event, EventKind};
use crate::ids::{BrokerId, Millis, NodeId};
use crate::msg::Message;
use crate::sim::World;
use std::sync::Arc;

const MBEAN: &str = "kafka.producer:type=producer-metrics";
const SENDER: &str = "Kafka 3.9 Sender.java SenderMetrics, lines 940-1080";

/// The producer's metrics.
pub const DEFS: &[Def] = &[
    Def {
        name: "record-send-rate",
        mbean: MBEAN,
        kind: Kind::Client,
        meaning: "Records sent per second (counted when their Produce request leaves).",
        meaning_zh: "每秒发送的消息数（在 Produce 请求发出时计入）。",
        computed: "Rate over two 30 s windows of the records in each Produce request",
        mirrors: SENDER,
    },
    Def {
        name: "records-per-request-avg",
        mbean: MBEAN,
        kind: Kind::Client,
        meaning: "Average records per Produce request: batching at work.",
        meaning_zh: "每个 Produce 请求平均包含的消息数：批量发送的效果。",
        computed: "Avg over two 30 s windows of the records in each Produce request",
        mirrors: SENDER,
    },
    Def {
        name: "batch-size-avg",
        mbean: MBEAN,
        kind: Kind::Client,
        meaning: "Average bytes per batch sent (batch.size is the most a batch is filled to).",
        meaning_zh: "每个发送批次的平均字节数（batch.size 是批次的填充上限）。",
        computed: "Avg over two 30 s windows of each drained batch's size",
        mirrors: SENDER,
    },
    Def {
        name: "record-retry-rate",
        mbean: MBEAN,
        kind: Kind::Client,
        meaning: "Records sent again per second after a retriable error.",
        meaning_zh: "因可重试错误而重新发送的消息数（每秒）。",
        computed: "Rate of the records of each batch put back for a retry",
        mirrors: SENDER,
    },
    Def {
        name: "record-error-rate",
        mbean: MBEAN,
        kind: Kind::Client,
        meaning: "Records per second whose send failed for good (their callback got the error).",
        meaning_zh: "每秒最终发送失败的消息数（回调收到了错误）。",
        computed: "Rate of the records that failed",
        mirrors: SENDER,
    },
    Def {
        name: "request-latency-avg",
        mbean: MBEAN,
        kind: Kind::Client,
        meaning: "Average time from sending a Produce request to its response, in ms (acks=all waits for the ISR).",
        meaning_zh: "从发出 Produce 请求到收到响应的平均时间（毫秒）；acks=all 需要等待 ISR。",
        computed: "Avg of response arrival − request sent (0 for acks=0)",
        mirrors: SENDER,
    },
    Def {
        name: "buffer-available-bytes",
        mbean: MBEAN,
        kind: Kind::Client,
        meaning: "Bytes of buffer.memory not used by batches waiting or in flight. At 0, send() blocks.",
        meaning_zh: "buffer.memory 中未被待发送或在途批次占用的字节数。为 0 时 send() 会阻塞。",
        computed: "buffer.memory − bytes held by batches",
        mirrors: "Kafka 3.9 KafkaProducer / RecordAccumulator.bufferPoolAvailableBytes",
    },
];

/// One producer's sensors.
#[derive(Clone, Debug)]
struct Sensors {
    send: Sampled,
    per_request: Sampled,
    batch_size: Sampled,
    retry: Sampled,
    error: Sampled,
    latency: Sampled,
}

impl Default for Sensors {
    fn default() -> Sensors {
        Sensors {
            send: Sampled::new(Combine::Sum),
            per_request: Sampled::new(Combine::Avg),
            batch_size: Sampled::new(Combine::Avg),
            retry: Sampled::new(Combine::Sum),
            error: Sampled::new(Combine::Sum),
            latency: Sampled::new(Combine::Avg),
        }
    }
}

/// What the producer side counts.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    producers: SortedMap<u32, Sensors>,
    /// Produce requests: (producer, broker, correlation id).
    latencies: Latencies<(u32, BrokerId, i32)>,
}

impl Sensors {
    fn heap_bytes(&self) -> u64 {
        [
            &self.send,
            &self.per_request,
            &self.batch_size,
            &self.retry,
            &self.error,
            &self.latency,
        ]
        .iter()
        .map(|s| s.heap_bytes())
        .sum()
    }
}

impl Recorder {
    /// A rough size in bytes (see `metrics::Recorder::approx_bytes`).
    pub(super) fn approx_bytes(&self) -> u64 {
        let each = std::mem::size_of::<(u32, Sensors)>() as u64;
        self.producers
            .values()
            .map(|s| each + s.heap_bytes())
            .sum::<u64>()
            + self.latencies.approx_bytes()
    }

    fn arrive(&mut self, now: Millis) {
        for ((p, _, _), at, latency) in self.latencies.arrived(now) {
            self.producers
                .entry(p)
                .or_default()
                .latency
                .record(latency as f64, at);
        }
    }

    pub(super) fn observe(&mut self, e: &Event, w: &World) {
        let now = e.time_ms;
        self.arrive(now);
        match &e.kind {
            EventKind::BatchesDrained {
                producer, batches, ..
            } => {
                let s = self.producers.entry(*producer).or_default();
                let records: u32 = batches.iter().map(|b| b.records).sum();
                s.send.record(records as f64, now);
                s.per_request.record(records as f64, now);
                for b in batches {
                    s.batch_size.record(b.bytes as f64, now);
                }
            }
            EventKind::ProduceRetried {
                producer,
                tp,
                batch,
                ..
            } => {
                let records = w
                    .producers()
                    .get(*producer as usize)
                    .and_then(|p| {
                        let queued = p.accumulator.get(tp).into_iter().flatten();
                        let sent = p
                            .in_flight
                            .values()
                            .flat_map(|r| r.values())
                            .flat_map(|f| &f.batches);
                        queued.chain(sent).find(|b| b.id == *batch)
                    })
                    .map_or(0, |b| b.records.len());
                self.producers
                    .entry(*producer)
                    .or_default()
                    .retry
                    .record(records as f64, now);
            }
            EventKind::RecordFailed { producer, .. } => {
                self.producers
                    .entry(*producer)
                    .or_default()
                    .error
                    .record(1.0, now);
            }
            EventKind::MessageDropped { id, .. } => self.latencies.dropped(*id),
            EventKind::MessageSent { .. } => {
                let Some((id, from, to, deliver_at, message)) = sent(e) else {
                    return;
                };
                match (from, to, message) {
                    (
                        NodeId::Producer(p),
                        NodeId::Broker(b),
                        Message::Produce {
                            correlation_id,
                            acks,
                            ..
                        },
                    ) => {
                        if *acks == 0 {
                            self.producers
                                .entry(p)
                                .or_default()
                                .latency
                                .record(0.0, now);
                        } else {
                            self.latencies.request((p, b, *correlation_id), id, now);
                        }
                    }
                    (
                        NodeId::Broker(b),
                        NodeId::Producer(p),
                        Message::ProduceResponse { correlation_id, .. },
                    ) => self
                        .latencies
                        .response((p, b, *correlation_id), id, deliver_at),
                    _ => {}
                }
            }
            _ => {}
        }
    }
}

/// Pushes every metric of every running producer.
pub(super) fn read(w: &World, r: &Recorder, now: Millis, out: &mut Vec<Reading>) {
    // Responses that arrived after the last event are recorded on a copy
    // (a read changes nothing); without any, no copy is made.
    let arrived;
    let r = if r.latencies.due_by(now) {
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
    for p in w.producers() {
        if !p.started || p.closed {
            continue;
        }
        let s = r.producers.get(&p.index).unwrap_or(&empty);
        let node = NodeId::Producer(p.index);
        let client_id = p
            .config
            .client_id
            .clone()
            .unwrap_or_else(|| format!("producer-{}", p.index + 1));
        let mbean: Arc<str> = format!("{MBEAN},client-id={client_id}").into();
        for (name, v) in [
            ("record-send-rate", s.send.rate(now)),
            ("records-per-request-avg", s.per_request.measure(now)),
            ("batch-size-avg", s.batch_size.measure(now)),
            ("record-retry-rate", s.retry.rate(now)),
            ("record-error-rate", s.error.rate(now)),
            ("request-latency-avg", s.latency.measure(now)),
            (
                "buffer-available-bytes",
                p.config.buffer_memory.saturating_sub(p.buffer_used) as f64,
            ),
        ] {
            push_client(out, find(DEFS, name), mbean.clone(), node, v);
        }
    }
}
