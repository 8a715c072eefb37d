//! What the producer inspector shows, read off the engine: the pipeline one
//! record went through (interceptors → serializer → partitioner →
//! accumulator → sender → acknowledgement), taken from the trace, and each
//! producer's accumulator deques and in-flight requests, taken from the
//! world at the cursor. Layout data only: every number (murmur2, batch
//! bytes, sequence numbers) comes from the engine's events and state.

use kafka_sim::event::{Event, EventKind};
use kafka_sim::producer::PartitionChoice;
use kafka_sim::{Lang, World};

/// How far back the trace is searched for a record's pipeline.
const LOOK_BACK: usize = 20_000;

#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    /// `interceptor`, `serializer`, `partitioner`, `accumulator`, `sender`,
    /// `ack` or `failed`.
    pub stage: &'static str,
    /// The class or component named as in Kafka.
    pub title: String,
    /// One line per fact, the arithmetic written out.
    pub lines: Vec<String>,
    /// The event it came from (seekable).
    pub event: u64,
    /// The event at the cursor.
    pub current: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BatchView {
    pub batch: u64,
    pub records: usize,
    pub bytes: u64,
    pub batch_size: u64,
    /// Time in the accumulator so far, against `linger.ms`.
    pub age_ms: u64,
    pub full: bool,
    pub attempts: u32,
    pub base_sequence: Option<i32>,
    /// `key=value` of the records.
    pub records_text: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DequeView {
    pub tp: String,
    pub batches: Vec<BatchView>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RequestView {
    pub broker: i32,
    pub correlation_id: i32,
    pub sent_ms: u64,
    /// (partition, baseSequence, records) per batch.
    pub batches: Vec<(String, Option<i32>, usize)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ProducerPanel {
    pub name: String,
    /// Kafka's names and this producer's values.
    pub settings: Vec<(&'static str, String)>,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub buffer_used: u64,
    pub buffer_memory: u64,
    pub linger_ms: u64,
    pub max_in_flight: u32,
    pub blocked: usize,
    /// `close()` called / finished.
    pub closing: bool,
    pub closed: bool,
    /// With a `transactional.id`: the id and the `TransactionManager`'s
    /// state (`FATAL_ERROR` after a fencing).
    pub txn: Option<(String, &'static str)>,
    pub deques: Vec<DequeView>,
    pub requests: Vec<RequestView>,
    /// The next sequence number per partition (idempotence).
    pub next_sequence: Vec<(String, i32)>,
    /// The pipeline of the record followed, if any was sent yet.
    pub record: Option<u64>,
    pub journey: Vec<Stage>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ProducerModel {
    pub producers: Vec<ProducerPanel>,
    /// The transactions panel, when a producer is transactional.
    pub txn: Option<std::rc::Rc<crate::model::txn::TxnModel>>,
}

/// The producer and record an event is about, if it is a pipeline event.
fn record_of(k: &EventKind) -> Option<(u32, u64)> {
    match k {
        EventKind::RecordIntercepted {
            producer, record, ..
        }
        | EventKind::RecordSerialized {
            producer, record, ..
        }
        | EventKind::RecordPartitioned {
            producer, record, ..
        }
        | EventKind::ProducerBlocked {
            producer, record, ..
        }
        | EventKind::RecordAccumulated {
            producer, record, ..
        }
        | EventKind::RecordAcknowledged {
            producer, record, ..
        }
        | EventKind::RecordFailed {
            producer, record, ..
        }
        | EventKind::InterceptorAcknowledged {
            producer, record, ..
        } => Some((*producer, *record)),
        _ => None,
    }
}

fn opt(s: &Option<String>) -> String {
    s.as_deref()
        .map(|v| format!("\"{v}\""))
        .unwrap_or_else(|| "null".into())
}

/// Bytes as hex pairs (at most 24 shown).
pub fn hex(b: &[u8]) -> String {
    let mut s: String = b
        .iter()
        .take(24)
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ");
    if b.len() > 24 {
        s += &format!(" … ({} bytes)", b.len());
    }
    s
}

/// `format!` in English or 简体中文, the same arguments captured by both.
macro_rules! tr {
    ($lang:expr, $en:literal, $zh:literal) => {
        match $lang {
            Lang::En => format!($en),
            Lang::Zh => format!($zh),
        }
    };
}

/// The partitioner's reasoning, arithmetic written out as Kafka does it.
pub fn partition_lines(choice: &PartitionChoice, lang: Lang) -> Vec<String> {
    match choice {
        PartitionChoice::Explicit { partition } => {
            vec![tr!(
                lang,
                "ProducerRecord names partition {partition}",
                "ProducerRecord 指定了分区 {partition}"
            )]
        }
        PartitionChoice::Key {
            murmur2,
            positive,
            num_partitions,
            partition,
        } => vec![
            format!("murmur2(keyBytes) = {murmur2} (0x{:08x})", *murmur2 as u32),
            format!("toPositive: {murmur2} & 0x7fffffff = {positive}"),
            tr!(
                lang,
                "{positive} % {num_partitions} partitions = {partition}",
                "{positive} % {num_partitions} 个分区 = {partition}"
            ),
        ],
        PartitionChoice::Sticky {
            partition,
            produced_bytes,
            batch_size,
            switched_from,
        } => {
            let mut v = vec![tr!(
                lang,
                "no key: sticky partition {partition} ({produced_bytes} of batch.size={batch_size} bytes produced to it)",
                "没有 key：粘性分区 {partition}（已向它写入 {produced_bytes} / batch.size={batch_size} 字节）"
            )];
            if let Some(f) = switched_from {
                v.push(tr!(
                    lang,
                    "switched from partition {f} after batch.size bytes",
                    "写满 batch.size 字节后从分区 {f} 换过来"
                ));
            }
            v
        }
        PartitionChoice::RoundRobin { partition, counter } => vec![tr!(
            lang,
            "RoundRobinPartitioner: counter {counter} → partition {partition}",
            "RoundRobinPartitioner：计数 {counter} → 分区 {partition}"
        )],
    }
}

/// The stages one record went through, oldest first, from the trace `past`.
pub fn journey(
    past: &[Event],
    producer: u32,
    record: u64,
    cursor_event: Option<u64>,
    lang: Lang,
) -> Vec<Stage> {
    let start = past.len().saturating_sub(LOOK_BACK);
    let mut stages = Vec::new();
    let mut batch = None;
    for e in &past[start..] {
        let mine = record_of(&e.kind) == Some((producer, record));
        let stage = match &e.kind {
            EventKind::RecordIntercepted {
                interceptor,
                value_before,
                value_after,
                ..
            } if mine => Some((
                "interceptor",
                format!("{interceptor}.onSend"),
                vec![format!("value {} → {}", opt(value_before), opt(value_after))],
            )),
            EventKind::RecordSerialized {
                key_bytes,
                value_bytes,
                serializer,
                ..
            } if mine => Some((
                "serializer",
                serializer.clone(),
                vec![
                    {
                        let k = key_bytes.as_deref().map(hex).unwrap_or_else(|| "null".into());
                        tr!(lang, "key bytes: {k}", "key 字节：{k}")
                    },
                    {
                        let v = value_bytes
                            .as_deref()
                            .map(hex)
                            .unwrap_or_else(|| "null".into());
                        tr!(lang, "value bytes: {v}", "value 字节：{v}")
                    },
                ],
            )),
            EventKind::RecordPartitioned { tp, choice, .. } if mine => {
                let mut l = partition_lines(choice, lang);
                l.push(format!("→ {tp}"));
                Some(("partitioner", "Partitioner".into(), l))
            }
            EventKind::ProducerBlocked {
                reason,
                max_block_ms,
                ..
            } if mine => Some((
                "blocked",
                "KafkaProducer.send".into(),
                vec![tr!(
                    lang,
                    "blocked: {reason} (max.block.ms={max_block_ms})",
                    "阻塞：{reason}（max.block.ms={max_block_ms}）"
                )],
            )),
            EventKind::RecordAccumulated {
                tp,
                batch: b,
                new_batch,
                batch_records,
                batch_bytes,
                batch_size,
                buffer_used,
                buffer_memory,
                ..
            } if mine => {
                batch = Some(*b);
                Some((
                    "accumulator",
                    "RecordAccumulator".into(),
                    vec![
                        match (lang, *new_batch) {
                            (Lang::En, true) => format!("new batch {b} of {tp}: {batch_records} records, {batch_bytes} / batch.size {batch_size} bytes"),
                            (Lang::En, false) => format!("appended to batch {b} of {tp}: {batch_records} records, {batch_bytes} / batch.size {batch_size} bytes"),
                            (Lang::Zh, true) => format!("新建 {tp} 的批次 {b}：{batch_records} 条消息，{batch_bytes} / batch.size {batch_size} 字节"),
                            (Lang::Zh, false) => format!("追加到 {tp} 的批次 {b}：{batch_records} 条消息，{batch_bytes} / batch.size {batch_size} 字节"),
                        },
                        tr!(
                            lang,
                            "buffer.memory used {buffer_used} / {buffer_memory}",
                            "buffer.memory 已用 {buffer_used} / {buffer_memory}"
                        ),
                    ],
                ))
            }
            EventKind::BatchesDrained {
                producer: p,
                broker,
                batches,
                in_flight,
                max_in_flight,
            } if *p == producer => batches
                .iter()
                .find(|d| Some(d.batch) == batch)
                .map(|d| {
                    let (id, to) = (d.batch, broker.0);
                    let why = crate::i18n::engine_text(lang, &d.reason);
                    let (seq, n, attempt) = (d.base_sequence, d.records, d.attempt);
                    (
                        "sender",
                        "Sender".into(),
                        vec![
                            tr!(
                                lang,
                                "batch {id} drained ({why}) into a ProduceRequest to broker {to}",
                                "批次 {id} 被取出（{why}），放进发往 broker {to} 的 ProduceRequest"
                            ),
                            tr!(
                                lang,
                                "baseSequence {seq} · {n} records · attempt {attempt}",
                                "baseSequence {seq} · {n} 条消息 · 第 {attempt} 次发送"
                            ),
                            tr!(
                                lang,
                                "in flight to broker {to}: {in_flight} / max.in.flight.requests.per.connection {max_in_flight}",
                                "发往 broker {to} 的在途请求：{in_flight} / max.in.flight.requests.per.connection {max_in_flight}"
                            ),
                        ],
                    )
                }),
            EventKind::ProduceRetried {
                producer: p,
                batch: b,
                attempt,
                error,
                backoff_ms,
                ..
            } if *p == producer && Some(*b) == batch => Some((
                "sender",
                "Sender (retry)".into(),
                vec![match lang {
                    Lang::En => format!(
                        "{error:?}: attempt {attempt} after retry.backoff {backoff_ms} ms"
                    ),
                    Lang::Zh => format!("{error:?}：{backoff_ms} ms 退避后第 {attempt} 次发送"),
                }],
            )),
            EventKind::RecordAcknowledged {
                tp, offset, acks, ..
            } if mine => Some((
                "ack",
                "Callback.onCompletion".into(),
                {
                    let acks = kafka_sim::msg::acks_name(*acks);
                    vec![tr!(
                        lang,
                        "acknowledged (acks={acks}): {tp} offset {offset}",
                        "已确认（acks={acks}）：{tp} offset {offset}"
                    )]
                },
            )),
            EventKind::RecordFailed { error, .. } if mine => Some((
                "failed",
                "Callback.onCompletion".into(),
                vec![tr!(lang, "failed: {error}", "失败：{error}")],
            )),
            EventKind::InterceptorAcknowledged {
                interceptor,
                offset,
                ..
            } if mine => Some((
                "ack",
                format!("{interceptor}.onAcknowledgement"),
                vec![tr!(lang, "offset {offset}", "位移 {offset}")],
            )),
            _ => None,
        };
        if let Some((stage, title, lines)) = stage {
            stages.push(Stage {
                stage,
                title,
                lines,
                event: e.id,
                current: Some(e.id) == cursor_event,
            });
        }
    }
    stages
}

impl ProducerModel {
    /// `past`: the trace up to the cursor. The record followed is the one the
    /// current event is about, else each producer's latest.
    pub fn from_world(w: &World, past: &[Event], now_ms: u64, lang: Lang) -> ProducerModel {
        let cursor_event = past.last().map(|e| e.id);
        let here = past.last().and_then(|e| record_of(&e.kind));
        let start = past.len().saturating_sub(LOOK_BACK);
        let producers = w
            .producers()
            .iter()
            .map(|p| {
                let c = &p.config;
                let record = match here {
                    Some((pi, r)) if pi == p.index => Some(r),
                    _ => past[start..]
                        .iter()
                        .rev()
                        .filter_map(|e| record_of(&e.kind))
                        .find(|(pi, _)| *pi == p.index)
                        .map(|(_, r)| r),
                };
                let deques = p
                    .accumulator
                    .iter()
                    .map(|(tp, q)| DequeView {
                        tp: tp.to_string(),
                        batches: q
                            .iter()
                            .map(|b| BatchView {
                                batch: b.id,
                                records: b.records.len(),
                                bytes: b.bytes,
                                batch_size: c.batch_size,
                                age_ms: now_ms.saturating_sub(b.created_ms),
                                full: b.full,
                                attempts: b.attempts,
                                base_sequence: b.base_sequence,
                                records_text: b
                                    .records
                                    .iter()
                                    .map(|r| {
                                        format!(
                                            "{}={}",
                                            r.key.as_deref().unwrap_or("null"),
                                            r.value.as_deref().unwrap_or("null")
                                        )
                                    })
                                    .collect::<Vec<_>>()
                                    .join(", "),
                            })
                            .collect(),
                    })
                    .collect();
                let requests = p
                    .in_flight
                    .iter()
                    .flat_map(|(b, m)| {
                        m.iter().map(move |(corr, f)| RequestView {
                            broker: b.0,
                            correlation_id: *corr,
                            sent_ms: f.sent_ms,
                            batches: f
                                .batches
                                .iter()
                                .map(|x| (x.tp.to_string(), x.base_sequence, x.records.len()))
                                .collect(),
                        })
                    })
                    .collect();
                ProducerPanel {
                    name: p.name.clone(),
                    settings: vec![
                        ("acks", c.acks.to_string()),
                        ("enable.idempotence", c.idempotence().to_string()),
                        ("linger.ms", c.linger_ms.to_string()),
                        ("batch.size", c.batch_size.to_string()),
                        ("buffer.memory", c.buffer_memory.to_string()),
                        (
                            "max.in.flight.requests.per.connection",
                            c.max_in_flight_requests_per_connection.to_string(),
                        ),
                        ("retries", c.retries.to_string()),
                        ("delivery.timeout.ms", c.delivery_timeout().to_string()),
                        (
                            "partitioner.class",
                            match c.partitioner_class {
                                kafka_sim::client_config::PartitionerClass::BuiltIn => {
                                    "(built-in)".to_string()
                                }
                                kafka_sim::client_config::PartitionerClass::RoundRobin => {
                                    "RoundRobinPartitioner".to_string()
                                }
                            },
                        ),
                        ("key.serializer", c.key_serializer.clone()),
                        ("value.serializer", c.value_serializer.clone()),
                        ("interceptor.classes", c.interceptor_classes.join(", ")),
                    ],
                    producer_id: p.producer_id,
                    producer_epoch: p.producer_epoch,
                    buffer_used: p.buffer_used,
                    buffer_memory: c.buffer_memory,
                    linger_ms: c.linger_ms,
                    max_in_flight: c.max_in_flight_requests_per_connection,
                    blocked: p.blocked.len(),
                    closing: p.closing,
                    txn: p
                        .txn
                        .as_ref()
                        .map(|t| (t.transactional_id.clone(), t.state.name())),
                    closed: p.closed,
                    deques,
                    requests,
                    next_sequence: p
                        .next_sequence
                        .iter()
                        .map(|(tp, s)| (tp.to_string(), *s))
                        .collect(),
                    record,
                    journey: record
                        .map(|r| journey(past, p.index, r, cursor_event, lang))
                        .unwrap_or_default(),
                }
            })
            .collect();
        ProducerModel {
            producers,
            txn: crate::model::txn::TxnModel::from_world(w).map(std::rc::Rc::new),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::Player;

    const SCENARIO: &str = r#"{
      "name": "producer inspector",
      "seed": 7,
      "run_until_ms": 3000,
      "cluster": {"brokers": [0, 1, 2]},
      "topics": [{"name": "orders", "partitions": 3, "replication.factor": 3}],
      "producers": [{"name": "p", "config": {"linger.ms": 5}}],
      "commands": [
        {"at_ms": 500, "type": "produce", "producer": "p", "topic": "orders", "key": "user-42", "value": "v"}
      ]
    }"#;

    fn at_kind(p: &mut Player, name: &str) {
        let i = p.find_nth(name, 1).expect(name);
        p.seek(i + 1);
    }

    #[test]
    fn the_record_goes_through_every_stage_with_the_engine_numbers() {
        let mut p = Player::from_json(SCENARIO).unwrap();
        at_kind(&mut p, "record_acknowledged");
        let m = ProducerModel::from_world(p.world(), p.past(), p.time_ms(), Lang::En);
        let panel = &m.producers[0];
        let stages: Vec<&str> = panel.journey.iter().map(|s| s.stage).collect();
        assert_eq!(
            stages,
            [
                "serializer",
                "blocked",
                "partitioner",
                "accumulator",
                "sender",
                "ack"
            ],
            "{:#?}",
            panel.journey
        );
        // The partitioner's numbers are the engine's murmur2 of the key bytes.
        let h = kafka_sim::partitioner::murmur2(b"user-42");
        let pos = h & 0x7fff_ffff;
        let part = &panel.journey[2].lines;
        assert_eq!(
            part[0],
            format!("murmur2(keyBytes) = {h} (0x{:08x})", h as u32)
        );
        assert_eq!(part[1], format!("toPositive: {h} & 0x7fffffff = {pos}"));
        assert_eq!(part[2], format!("{pos} % 3 partitions = {}", pos % 3));
        assert_eq!(part[3], format!("→ orders-{}", pos % 3));
        // The serializer stage shows the UTF-8 bytes.
        assert!(panel.journey[0].lines[0].ends_with(&hex(b"user-42")));
        // The acknowledgement is the current event.
        assert!(panel.journey[5].current);
        assert!(panel.journey[..5].iter().all(|s| !s.current));
        assert!(panel.deques.iter().all(|d| d.batches.is_empty()));
        assert!(panel.requests.is_empty());
        assert!(panel.producer_id >= 0, "idempotent producer has an id");
        assert_eq!(
            panel.next_sequence,
            vec![(format!("orders-{}", pos % 3), 1)]
        );
    }

    #[test]
    fn batches_wait_in_the_deque_then_fly_with_their_sequence() {
        let mut p = Player::from_json(SCENARIO).unwrap();
        at_kind(&mut p, "record_accumulated");
        let m = ProducerModel::from_world(p.world(), p.past(), p.time_ms(), Lang::En);
        let d: Vec<_> = m.producers[0]
            .deques
            .iter()
            .filter(|d| !d.batches.is_empty())
            .collect();
        assert_eq!(d.len(), 1);
        let b = &d[0].batches[0];
        assert_eq!((b.records, b.batch_size, b.full), (1, 16384, false));
        assert_eq!(b.records_text, "user-42=v");
        assert!(b.bytes > 61, "a batch header is 61 bytes, plus the record");
        // While the leader appends, the request is in flight.
        at_kind(&mut p, "batch_appended");
        let m = ProducerModel::from_world(p.world(), p.past(), p.time_ms(), Lang::En);
        let r = &m.producers[0].requests;
        assert_eq!(r.len(), 1, "one ProduceRequest in flight");
        assert_eq!(r[0].batches[0].1, Some(0), "first baseSequence is 0");
        assert_eq!(m.producers[0].journey.last().unwrap().stage, "sender");
        assert!(m.producers[0].deques.iter().all(|d| d.batches.is_empty()));
    }

    #[test]
    fn sticky_and_explicit_choices_are_explained() {
        let l = partition_lines(
            &PartitionChoice::Sticky {
                partition: 2,
                produced_bytes: 16400,
                batch_size: 16384,
                switched_from: Some(1),
            },
            Lang::En,
        );
        assert!(l[0].contains("sticky partition 2"));
        assert!(l[1].contains("switched from partition 1"));
        assert_eq!(
            partition_lines(&PartitionChoice::Explicit { partition: 4 }, Lang::En),
            vec!["ProducerRecord names partition 4".to_string()]
        );
        assert_eq!(
            partition_lines(&PartitionChoice::Explicit { partition: 4 }, Lang::Zh),
            vec!["ProducerRecord 指定了分区 4".to_string()]
        );
        let key = PartitionChoice::Key {
            murmur2: -1567496736,
            positive: 579986912,
            num_partitions: 3,
            partition: 2,
        };
        assert_eq!(
            partition_lines(&key, Lang::Zh)[2],
            "579986912 % 3 个分区 = 2"
        );
    }
}
