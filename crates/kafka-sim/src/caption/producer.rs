//! Captions of the events about the producer and its metadata.

use super::*;

/// The caption of `e` if it is one of this file's events.
pub(super) fn words(e: &EventKind, l: Lang) -> Option<String> {
    use EventKind::*;
    let en = l == Lang::En;
    Some(match e {
        MetadataUpdated {
            client, partitions, ..
        } => {
            if en {
                format!(
                    "{} refreshed its metadata ({partitions} partitions)",
                    cap(&node(client, l))
                )
            } else {
                format!("{} 更新了元数据（{partitions} 个分区）", node(client, l))
            }
        }
        ProducerIdAssigned {
            producer,
            producer_id,
            producer_epoch,
        } => {
            if en {
                format!("Producer {producer} got producer id {producer_id}, epoch {producer_epoch} (InitProducerId)")
            } else {
                format!("生产者 {producer} 获得 生产者 id {producer_id}，epoch {producer_epoch}（InitProducerId）")
            }
        }
        RecordIntercepted {
            producer,
            record,
            interceptor,
            value_before,
            value_after,
        } => {
            if en {
                format!("Producer {producer}, record #{record}: interceptor {interceptor}.onSend saw value {} → {}", opt(value_before), opt(value_after))
            } else {
                format!("生产者 {producer} 第 {record} 条：拦截器 {interceptor}.onSend 处理 value {} → {}", opt(value_before), opt(value_after))
            }
        }
        RecordSerialized {
            producer,
            record,
            key_bytes,
            value_bytes,
            serializer,
        } => {
            let kb = key_bytes.as_ref().map(|b| b.len()).unwrap_or(0);
            let vb = value_bytes.as_ref().map(|b| b.len()).unwrap_or(0);
            if en {
                format!("Producer {producer}, record #{record}: {serializer} made {kb} key bytes and {vb} value bytes")
            } else {
                format!("生产者 {producer} 第 {record} 条：{serializer} 序列化出 {kb} 字节 key、{vb} 字节 value")
            }
        }
        RecordPartitioned {
            producer,
            record,
            tp,
            choice,
        } => {
            use crate::producer::PartitionChoice as P;
            let why_en = match choice {
                P::Explicit { .. } => "the record named its partition".to_string(),
                P::Key { murmur2, positive, num_partitions, partition } => {
                    format!("murmur2(key) = {murmur2}, toPositive = {positive}, {positive} % {num_partitions} = {partition}")
                }
                P::Sticky { produced_bytes, batch_size, switched_from, .. } => match switched_from {
                    Some(f) => format!("no key: sticky partition switched from {f} after batch.size={batch_size} bytes"),
                    None => format!("no key: sticky partition ({produced_bytes} of batch.size={batch_size} bytes sent to it so far)"),
                },
                P::RoundRobin { counter, .. } => format!("RoundRobinPartitioner, counter {counter}"),
            };
            let why_zh = match choice {
                P::Explicit { .. } => "消息指定了分区".to_string(),
                P::Key {
                    murmur2,
                    positive,
                    num_partitions,
                    partition,
                } => {
                    format!("murmur2(key) = {murmur2}，toPositive = {positive}，{positive} % {num_partitions} = {partition}")
                }
                P::Sticky {
                    produced_bytes,
                    batch_size,
                    switched_from,
                    ..
                } => match switched_from {
                    Some(f) => format!(
                        "没有 key：发送满 batch.size={batch_size} 字节后粘性分区从 {f} 切换"
                    ),
                    None => {
                        format!("没有 key：粘性分区（已发送 {produced_bytes}/{batch_size} 字节）")
                    }
                },
                P::RoundRobin { counter, .. } => format!("轮询分区器，计数 {counter}"),
            };
            if en {
                format!("Producer {producer}, record #{record} → {tp}: {why_en}")
            } else {
                format!("生产者 {producer} 第 {record} 条 → {tp}：{why_zh}")
            }
        }
        ProducerBlocked {
            producer,
            record,
            reason,
            max_block_ms,
        } => {
            if en {
                format!("Producer {producer}: send() of record #{record} blocks ({reason}), for at most max.block.ms={max_block_ms}")
            } else {
                format!("生产者 {producer}：第 {record} 条的 send() 阻塞（{reason}），最多 max.block.ms={max_block_ms}")
            }
        }
        RecordAccumulated {
            producer,
            record,
            tp,
            batch,
            new_batch,
            batch_records,
            batch_bytes,
            batch_size,
            buffer_used,
            buffer_memory,
        } => {
            if en {
                format!(
                    "Producer {producer}: record #{record} joined {} batch {batch} for {tp} ({batch_records} {}, {batch_bytes}/{batch_size} bytes; buffer {buffer_used}/{buffer_memory})",
                    if *new_batch { "new" } else { "open" },
                    if *batch_records == 1 { "record" } else { "records" }
                )
            } else {
                format!(
                    "生产者 {producer}：第 {record} 条进入{}批次 {batch}（{tp}，{batch_records} 条，{batch_bytes}/{batch_size} 字节；缓冲区 {buffer_used}/{buffer_memory}）",
                    if *new_batch { "新" } else { "已有" }
                )
            }
        }
        BatchesDrained {
            producer,
            broker,
            batches,
            in_flight,
            max_in_flight,
        } => {
            let b: Vec<String> = batches
                .iter()
                .map(|x| {
                    let seq = if x.base_sequence >= 0 && en {
                        format!(", seq {}", x.base_sequence)
                    } else if x.base_sequence >= 0 {
                        format!("，序列号 {}", x.base_sequence)
                    } else {
                        String::new()
                    };
                    if en {
                        format!(
                            "{} batch {} ({} rec{seq}, {})",
                            x.tp, x.batch, x.records, x.reason
                        )
                    } else {
                        format!(
                            "{} 批次 {}（{} 条{seq}，{}）",
                            x.tp, x.batch, x.records, x.reason
                        )
                    }
                })
                .collect();
            if en {
                format!("Producer {producer}'s Sender drained {} for broker {broker} (request {in_flight} of max.in.flight {max_in_flight})", b.join("; "))
            } else {
                format!("生产者 {producer} 的 Sender 为 broker {broker} 取出 {}（在途请求 {in_flight}/{max_in_flight}）", b.join("；"))
            }
        }
        RecordAcknowledged {
            producer,
            record,
            tp,
            offset,
            acks,
            ..
        } => {
            if en {
                if *offset < 0 {
                    format!("Producer {producer}: record #{record} counted as sent to {tp} (acks=0: no answer is awaited, offset unknown)")
                } else {
                    format!("Producer {producer}: record #{record} acknowledged at {tp}@{offset} (acks={})", acks_name(*acks))
                }
            } else if *offset < 0 {
                format!(
                    "生产者 {producer}：第 {record} 条已发往 {tp}（acks=0：不等待应答，位移未知）"
                )
            } else {
                format!(
                    "生产者 {producer}：第 {record} 条已确认，位于 {tp}@{offset}（acks={}）",
                    acks_name(*acks)
                )
            }
        }
        RecordFailed {
            producer,
            record,
            error,
            ..
        } => {
            if en {
                format!("Producer {producer}: record #{record} failed: {error}")
            } else {
                format!("生产者 {producer}：第 {record} 条发送失败：{error}")
            }
        }
        ProduceRetried {
            producer,
            tp,
            batch,
            attempt,
            error,
            backoff_ms,
        } => {
            if en {
                format!("Producer {producer}: batch {batch} for {tp} got {error}; retry #{attempt} after {backoff_ms} ms")
            } else {
                format!("生产者 {producer}：{tp} 的批次 {batch} 收到 {error}；{backoff_ms} ms 后第 {attempt} 次重试")
            }
        }
        InterceptorAcknowledged {
            producer,
            record,
            interceptor,
            offset,
        } => {
            if en {
                format!("Producer {producer}: interceptor {interceptor}.onAcknowledgement for record #{record} (offset {offset})")
            } else {
                format!("生产者 {producer}：拦截器 {interceptor}.onAcknowledgement 处理第 {record} 条（位移 {offset}）")
            }
        }
        ProducerClosing {
            producer,
            batches,
            records,
            in_flight,
        } => {
            if en {
                format!("Producer {producer}: close() called; send() now throws IllegalStateException. The Sender sends the {batches} batch(es) still in the accumulator ({records} record(s)) without waiting for linger.ms, and waits for {in_flight} request(s) in flight")
            } else {
                format!("生产者 {producer}：调用 close()，之后 send() 抛出 IllegalStateException。Sender 不再等待 linger.ms，立即发出累加器中剩余的 {batches} 个批次（{records} 条消息），并等待 {in_flight} 个在途请求")
            }
        }
        ProducerForceClosed {
            producer,
            timeout_ms,
            batches,
            records,
            in_flight,
        } => {
            let call = if *timeout_ms == 0 {
                "close(Duration.ZERO)".to_string()
            } else {
                format!("close({timeout_ms} ms) ran out of time:")
            };
            if en {
                format!("Producer {producer}: {call} force close. The Sender stops: {batches} batch(es) not yet answered ({records} record(s)) fail with \"Producer is closed forcefully\", {in_flight} of them already in flight (their broker may still append them: the application is told they failed)")
            } else {
                format!("生产者 {producer}：{call} 强制关闭。Sender 停止：{batches} 个尚未得到响应的批次（{records} 条消息）以“生产者已被强制关闭”的异常失败，其中 {in_flight} 个已在途（broker 仍可能追加它们，而应用得到的是失败）")
            }
        }
        ProducerClosed {
            producer,
            records_sent,
            forced: true,
        } => {
            if en {
                format!("Producer {producer}: close() returned after the force close ({records_sent} send() call(s) in its life); the Sender thread and its connections are closed")
            } else {
                format!("生产者 {producer}：强制关闭后 close() 返回（一共调用了 {records_sent} 次 send()），Sender 线程与连接已关闭")
            }
        }
        ProducerClosed {
            producer,
            records_sent,
            ..
        } => {
            if en {
                format!("Producer {producer}: close() returned: every batch was sent and answered ({records_sent} send() call(s) in its life); the Sender thread and its connections are closed")
            } else {
                format!("生产者 {producer}：close() 返回：所有批次都已发送并得到响应（一共调用了 {records_sent} 次 send()），Sender 线程与连接已关闭")
            }
        }
        _ => return None,
    })
}
