//! Captions of the events about transactions (exactly-once, KIP-98).

use super::*;
use crate::txn::TxnCause;

fn parts(v: &[crate::ids::TopicPartition]) -> String {
    v.iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The caption of `e` if it is one of this file's events.
pub(super) fn words(e: &EventKind, l: Lang) -> Option<String> {
    use EventKind::*;
    let en = l == Lang::En;
    Some(match e {
        TxnsLoaded {
            broker,
            partition,
            coordinator_epoch,
            transactional_ids,
            completing,
        } => {
            let redo = if completing.is_empty() {
                String::new()
            } else if en {
                format!(
                    "; {completing:?} were committing or aborting: it sends their markers again"
                )
            } else {
                format!("；{completing:?} 正在提交或中止：重新发送它们的事务标记")
            };
            if en {
                format!("Broker {broker} now leads __transaction_state-{partition}: as transaction coordinator (coordinator epoch {coordinator_epoch}) it read the partition back and loaded {} transactional id(s) {transactional_ids:?}{redo}", transactional_ids.len())
            } else {
                format!("broker {broker} 成为 __transaction_state-{partition} 的 leader：作为事务协调者（协调者 epoch {coordinator_epoch}），它从该分区读回 {} 个 transactional.id {transactional_ids:?}{redo}", transactional_ids.len())
            }
        }
        TxnStateChanged {
            broker,
            transactional_id,
            producer_id,
            producer_epoch,
            from,
            to,
            partitions,
            cause,
        } => {
            let why = match (cause, en) {
                (TxnCause::Client, _) => String::new(),
                (TxnCause::Fence, true) => {
                    " — a new InitProducerId fenced the open transaction's producer and aborts it"
                        .into()
                }
                (TxnCause::Fence, false) => {
                    " —— 新的 InitProducerId 隔离了未完成事务的旧生产者，并中止该事务".into()
                }
                (TxnCause::Timeout, true) => {
                    " — the transaction ran past transaction.timeout.ms: fenced and aborted".into()
                }
                (TxnCause::Timeout, false) => {
                    " —— 事务超过 transaction.timeout.ms：隔离旧生产者并中止".into()
                }
                (TxnCause::Markers, true) => " — every partition has its marker".into(),
                (TxnCause::Markers, false) => " —— 每个分区都已写入事务标记".into(),
            };
            let ps = if partitions.is_empty() {
                String::new()
            } else if en {
                format!(", partitions [{}]", parts(partitions))
            } else {
                format!("，分区 [{}]", parts(partitions))
            };
            if en {
                format!("Transaction coordinator {broker}: {transactional_id} (producer id {producer_id}, epoch {producer_epoch}) {} → {}{ps}, written to __transaction_state{why}", from.name(), to.name())
            } else {
                format!("事务协调者 {broker}：{transactional_id}（生产者 id {producer_id}，epoch {producer_epoch}）{} → {}{ps}，已写入 __transaction_state{why}", from.name(), to.name())
            }
        }
        TxnMarkerWritten {
            broker,
            tp,
            producer_id,
            producer_epoch,
            committed,
            coordinator_epoch,
            offset,
            last_stable_offset,
        } => {
            let m = if *committed { "COMMIT" } else { "ABORT" };
            if en {
                let a = if *committed { "a" } else { "an" };
                format!("Leader {broker} wrote {a} {m} marker for producer id {producer_id} (epoch {producer_epoch}, coordinator epoch {coordinator_epoch}) at {tp} offset {offset}; the last stable offset (LSO) is now {last_stable_offset}")
            } else {
                format!("leader {broker} 在 {tp} 位移 {offset} 写入生产者 id {producer_id} 的 {m} 事务标记（epoch {producer_epoch}，协调者 epoch {coordinator_epoch}）；LSO（最后稳定位移）现为 {last_stable_offset}")
            }
        }
        TxnOffsetsCompleted {
            broker,
            group,
            producer_id,
            committed,
            offsets,
        } => {
            let o = offsets_text(offsets);
            match (en, committed) {
                (true, true) if offsets.is_empty() => format!("Coordinator {broker}: the transaction of producer id {producer_id} committed, but {group} committed those partitions again after it: the later commits stay (olderThan)"),
                (false, true) if offsets.is_empty() => format!("协调者 {broker}：生产者 id {producer_id} 的事务已提交，但 {group} 之后又提交过这些分区的位移：保留较晚的提交（olderThan）"),
                (true, true) => format!("Coordinator {broker}: the transaction of producer id {producer_id} committed, so its offsets of {group} are now committed: {o}"),
                (true, false) => format!("Coordinator {broker}: the transaction of producer id {producer_id} aborted, so its offsets of {group} are dropped: {o}"),
                (false, true) => format!("协调者 {broker}：生产者 id {producer_id} 的事务已提交，它为 {group} 写的位移随之生效：{o}"),
                (false, false) => format!("协调者 {broker}：生产者 id {producer_id} 的事务已中止，它为 {group} 写的位移被丢弃：{o}"),
            }
        }
        TxnCoordinatorFound {
            producer,
            transactional_id,
            broker,
            partition,
        } => {
            if en {
                format!("Producer {producer}: the transaction coordinator of {transactional_id} is broker {broker} (leader of __transaction_state-{partition})")
            } else {
                format!("生产者 {producer}：{transactional_id} 的事务协调者是 broker {broker}（__transaction_state-{partition} 的 leader）")
            }
        }
        TxnVerificationStarted {
            broker,
            transactional_id,
            producer_id,
            partitions,
            coordinator,
        } => {
            let tps = parts(partitions);
            match (coordinator, en) {
                (Some(c), true) => format!("Broker {broker} holds the produce of producer id {producer_id} to {tps}: no transaction of it is open here, so it first asks coordinator {c} whether {transactional_id} added {tps} (AddPartitionsToTxn, verify only; KIP-890)"),
                (Some(c), false) => format!("Broker {broker} 暂不写入生产者 id {producer_id} 发往 {tps} 的消息：该生产者在这里没有进行中的事务，所以先问事务协调者 {c}：{transactional_id} 是否已把 {tps} 加入事务（AddPartitionsToTxn，仅验证；KIP-890）"),
                (None, true) => format!("Broker {broker} must verify {tps} with the coordinator of {transactional_id}, but knows no live one (COORDINATOR_NOT_AVAILABLE)"),
                (None, false) => format!("Broker {broker} 需要向 {transactional_id} 的事务协调者验证 {tps}，但不知道哪个协调者存活（COORDINATOR_NOT_AVAILABLE）"),
            }
        }
        ProduceVerificationFailed {
            broker,
            tp,
            error,
            cause,
            detail,
        } => {
            let why = if detail.is_empty() {
                String::new()
            } else if en {
                format!(": {detail}")
            } else {
                format!("：{detail}")
            };
            if en {
                format!("Broker {broker} answered {error} for {tp} without appending: the coordinator said {cause}{why}")
            } else {
                format!(
                    "Broker {broker} 对 {tp} 返回 {error}，没有写入：协调者的回答是 {cause}{why}"
                )
            }
        }
        ProducerTxnStateChanged {
            producer,
            transactional_id,
            from,
            to,
            error,
        } => {
            let e = error
                .map(|e| {
                    if en {
                        format!(" ({e})")
                    } else {
                        format!("（{e}）")
                    }
                })
                .unwrap_or_default();
            if en {
                format!(
                    "Producer {producer} ({transactional_id}): {} → {}{e}",
                    from.name(),
                    to.name()
                )
            } else {
                format!(
                    "生产者 {producer}（{transactional_id}）：{} → {}{e}",
                    from.name(),
                    to.name()
                )
            }
        }
        _ => return None,
    })
}
