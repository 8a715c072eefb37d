//! Captions of the KRaft events (Kafka 4.1 mode): the controller quorum,
//! its metadata log and the brokers' lifecycle.

use super::*;
use crate::event::{BrokerLifecycle, QuorumReason, QuorumRole};
use crate::kraft::records::{MetadataEntry, MetadataRecord};

fn role(r: QuorumRole, l: Lang) -> &'static str {
    match (r, l) {
        (QuorumRole::Unattached, Lang::En) => "unattached",
        (QuorumRole::Prospective, Lang::En) => "prospective (pre-vote)",
        (QuorumRole::Candidate, Lang::En) => "candidate",
        (QuorumRole::Leader, Lang::En) => "leader",
        (QuorumRole::Follower, Lang::En) => "follower",
        (QuorumRole::Resigned, Lang::En) => "resigned",
        (QuorumRole::Unattached, Lang::Zh) => "无主状态",
        (QuorumRole::Prospective, Lang::Zh) => "预投票者",
        (QuorumRole::Candidate, Lang::Zh) => "候选者",
        (QuorumRole::Leader, Lang::Zh) => "leader",
        (QuorumRole::Follower, Lang::Zh) => "follower",
        (QuorumRole::Resigned, Lang::Zh) => "已卸任的 leader",
    }
}

fn reason(r: QuorumReason, l: Lang) -> &'static str {
    match (r, l) {
        (QuorumReason::Started, Lang::En) => "it started and read its quorum-state file",
        (QuorumReason::ElectionTimeout, Lang::En) => "its election timer ran out",
        (QuorumReason::FetchTimeout, Lang::En) => {
            "it fetched nothing from the leader for controller.quorum.fetch.timeout.ms"
        }
        (QuorumReason::PreVoteWon, Lang::En) => "a majority granted its pre-vote",
        (QuorumReason::PreVoteLost, Lang::En) => "a majority rejected its pre-vote",
        (QuorumReason::VoteWon, Lang::En) => "a majority voted for it",
        (QuorumReason::VoteGranted, Lang::En) => "it granted its vote",
        (QuorumReason::HigherEpoch, Lang::En) => "a message carried a higher epoch",
        (QuorumReason::LeaderDiscovered, Lang::En) => "it learned who leads this epoch",
        (QuorumReason::CheckQuorumFailed, Lang::En) => {
            "no majority of voters fetched from it in time (check-quorum)"
        }
        (QuorumReason::Shutdown, Lang::En) => "it is shutting down",
        (QuorumReason::LeaderResigned, Lang::En) => {
            "its leader resigned (EndQuorumEpoch) and its backoff as a successor is over"
        }
        (QuorumReason::LeaderResigned, Lang::Zh) => {
            "它的 leader 已卸任（EndQuorumEpoch），作为继任者的退避时间已到"
        }
        (QuorumReason::Started, Lang::Zh) => "进程启动，读回 quorum-state 文件",
        (QuorumReason::ElectionTimeout, Lang::Zh) => "选举计时器到期",
        (QuorumReason::FetchTimeout, Lang::Zh) => {
            "在 controller.quorum.fetch.timeout.ms 内没有从 leader 拉取到数据"
        }
        (QuorumReason::PreVoteWon, Lang::Zh) => "多数投票者同意了它的预投票",
        (QuorumReason::PreVoteLost, Lang::Zh) => "多数投票者拒绝了它的预投票",
        (QuorumReason::VoteWon, Lang::Zh) => "多数投票者投票给它",
        (QuorumReason::VoteGranted, Lang::Zh) => "它投出了自己的一票",
        (QuorumReason::HigherEpoch, Lang::Zh) => "收到的消息带有更高的 epoch",
        (QuorumReason::LeaderDiscovered, Lang::Zh) => "它得知了本 epoch 的 leader",
        (QuorumReason::CheckQuorumFailed, Lang::Zh) => "没有多数投票者按时来拉取（check-quorum）",
        (QuorumReason::Shutdown, Lang::Zh) => "它正在关闭",
    }
}

/// A metadata record in a few words: `RegisterBrokerRecord (broker 1)`.
pub fn record_text(record: &MetadataRecord, l: Lang) -> String {
    let en = l == Lang::En;
    match record {
        MetadataRecord::LeaderChange { leader_id, .. } => {
            if en {
                format!("LeaderChange (leader {leader_id})")
            } else {
                format!("LeaderChange（leader {leader_id}）")
            }
        }
        MetadataRecord::RegisterBrokerRecord { broker_id, .. } => {
            format!("RegisterBrokerRecord (broker {broker_id})")
        }
        MetadataRecord::BrokerRegistrationChangeRecord {
            broker_id,
            fenced,
            in_controlled_shutdown,
            ..
        } => match (en, *fenced, *in_controlled_shutdown > 0) {
            (true, 0, true) => format!(
                "BrokerRegistrationChangeRecord (broker {broker_id} in controlled shutdown)"
            ),
            (false, 0, true) => {
                format!("BrokerRegistrationChangeRecord（broker {broker_id} 进入受控关闭）")
            }
            (true, f, _) if f > 0 => {
                format!("BrokerRegistrationChangeRecord (fence broker {broker_id})")
            }
            (true, _, _) => {
                format!("BrokerRegistrationChangeRecord (unfence broker {broker_id})")
            }
            (false, f, _) if f > 0 => {
                format!("BrokerRegistrationChangeRecord（隔离 broker {broker_id}）")
            }
            (false, _, _) => {
                format!("BrokerRegistrationChangeRecord（解除隔离 broker {broker_id}）")
            }
        },
        MetadataRecord::FeatureLevelRecord {
            name,
            feature_level,
        } => format!("FeatureLevelRecord ({name}={feature_level})"),
        MetadataRecord::ConfigRecord { name, value, .. } => {
            format!("ConfigRecord ({name}={value})")
        }
        MetadataRecord::TopicRecord { name, .. } => format!("TopicRecord ({name})"),
        MetadataRecord::PartitionRecord {
            topic,
            partition_id,
            leader,
            isr,
            ..
        } => format!(
            "PartitionRecord ({topic}-{partition_id}: leader {leader}, ISR {})",
            ids(isr)
        ),
        MetadataRecord::PartitionChangeRecord {
            topic,
            partition_id,
            isr,
            leader,
            eligible_leader_replicas,
            leader_recovery_state,
            ..
        } => {
            let mut parts = Vec::new();
            match *leader {
                crate::kraft::records::NO_LEADER_CHANGE => {}
                -1 => parts.push(if en {
                    "no leader".to_string()
                } else {
                    "无 leader".to_string()
                }),
                l => parts.push(format!("leader {l}")),
            }
            if let Some(isr) = isr {
                parts.push(format!("ISR {}", ids(isr)));
            }
            if let Some(elr) = eligible_leader_replicas {
                parts.push(format!("ELR {}", ids(elr)));
            }
            match (leader_recovery_state, en) {
                (Some(1), true) => parts.push("unclean election, RECOVERING".to_string()),
                (Some(1), false) => parts.push("unclean 选举，RECOVERING".to_string()),
                (Some(_), _) => parts.push("RECOVERED".to_string()),
                (None, _) => {}
            }
            let sep = if en { ", " } else { "，" };
            if en {
                format!(
                    "PartitionChangeRecord ({topic}-{partition_id}: {})",
                    parts.join(sep)
                )
            } else {
                format!(
                    "PartitionChangeRecord（{topic}-{partition_id}：{}）",
                    parts.join(sep)
                )
            }
        }
        MetadataRecord::ProducerIdsRecord {
            broker_id,
            next_producer_id,
            ..
        } => {
            if en {
                format!("ProducerIdsRecord (broker {broker_id}, next id {next_producer_id})")
            } else {
                format!("ProducerIdsRecord（broker {broker_id}，下一个 id {next_producer_id}）")
            }
        }
        other => other.type_name().to_string(),
    }
}

/// `[1,0,2]`, as Kafka prints a replica list.
fn ids(v: &[i32]) -> String {
    let items: Vec<String> = v.iter().map(i32::to_string).collect();
    format!("[{}]", items.join(","))
}

/// The records of a batch in a few words, with their offsets.
pub(super) fn records_text(records: &[MetadataEntry], l: Lang) -> String {
    let en = l == Lang::En;
    let one = |e: &MetadataEntry| format!("{}: {}", e.offset, record_text(&e.record, l));
    let shown: Vec<String> = records.iter().take(4).map(one).collect();
    let more = records.len().saturating_sub(4);
    let mut s = shown.join(", ");
    if more > 0 {
        s.push_str(&if en {
            format!(" and {more} more")
        } else {
            format!(" 等另外 {more} 条")
        });
    }
    s
}

fn lifecycle(s: BrokerLifecycle, l: Lang) -> &'static str {
    match (s, l) {
        (BrokerLifecycle::Starting, Lang::En) => {
            "STARTING: registered and fenced, catching up with the metadata log"
        }
        (BrokerLifecycle::Recovery, Lang::En) => {
            "RECOVERY: caught up with the metadata log, waiting to be unfenced"
        }
        (BrokerLifecycle::Running, Lang::En) => "RUNNING: the controller unfenced it",
        (BrokerLifecycle::Starting, Lang::Zh) => {
            "STARTING：已注册、处于隔离状态，正在追赶元数据日志"
        }
        (BrokerLifecycle::Recovery, Lang::Zh) => "RECOVERY：已追上元数据日志，等待解除隔离",
        (BrokerLifecycle::Running, Lang::Zh) => "RUNNING：控制器已解除对它的隔离",
        (BrokerLifecycle::PendingControlledShutdown, Lang::En) => {
            "PENDING_CONTROLLED_SHUTDOWN: its heartbeats ask the controller to move its leaderships before it stops"
        }
        (BrokerLifecycle::PendingControlledShutdown, Lang::Zh) => {
            "PENDING_CONTROLLED_SHUTDOWN：它的心跳请求控制器在它停止前迁走它的 leader"
        }
        (BrokerLifecycle::ShuttingDown, Lang::En) => {
            "SHUTTING_DOWN: the controller told it to shut down"
        }
        (BrokerLifecycle::ShuttingDown, Lang::Zh) => "SHUTTING_DOWN：控制器通知它可以关闭了",
    }
}

/// The caption of `e` if it is one of this file's events.
pub(super) fn words(e: &EventKind, l: Lang) -> Option<String> {
    use EventKind::*;
    let en = l == Lang::En;
    Some(match e {
        QuorumStateChanged {
            node: n,
            epoch,
            state,
            leader,
            voted_for,
            reason: why,
        } => {
            let who = node(n, l);
            let extra = match (state, leader, voted_for, en) {
                (QuorumRole::Follower, Some(ld), _, true) => format!(", following controller {ld}"),
                (QuorumRole::Follower, Some(ld), _, false) => format!("，跟随控制器 {ld}"),
                (QuorumRole::Unattached, _, Some(v), true) if *why == QuorumReason::VoteGranted => {
                    format!(", having voted for controller {v}")
                }
                (QuorumRole::Unattached, _, Some(v), false)
                    if *why == QuorumReason::VoteGranted =>
                {
                    format!("，已投票给控制器 {v}")
                }
                _ => String::new(),
            };
            if en {
                format!(
                    "{} is {} in epoch {epoch}{extra}: {}",
                    capitalize(&who),
                    role(*state, l),
                    reason(*why, l)
                )
            } else {
                {
                    let r = role(*state, l);
                    // A space before a Latin word (leader), none before Chinese.
                    let gap = if r.starts_with(|c: char| c.is_ascii_alphabetic()) { " " } else { "" };
                    format!("{who} 在 epoch {epoch} 成为{gap}{r}{extra}：{}", reason(*why, l))
                }
            }
        }
        MetadataAppended {
            node: n,
            epoch,
            records,
            high_watermark,
        } => {
            let who = node(n, l);
            let what = records_text(records, l);
            let hw = match (en, *high_watermark < 0) {
                (true, true) => "not known yet".to_string(),
                (false, true) => "尚未知".to_string(),
                (_, false) => high_watermark.to_string(),
            };
            if en {
                format!(
                    "{} appended {} record{} to __cluster_metadata-0 (epoch {epoch}): {what}; its high watermark is {hw}",
                    capitalize(&who),
                    records.len(),
                    if records.len() == 1 { "" } else { "s" }
                )
            } else {
                format!(
                    "{who} 向 __cluster_metadata-0 追加了 {} 条记录（epoch {epoch}）：{what}；其高水位{}",
                    records.len(),
                    if *high_watermark < 0 { hw } else { format!("为 {hw}") }
                )
            }
        }
        MetadataTruncated {
            node: n,
            to_offset,
            removed,
        } => {
            if en {
                format!(
                    "{} cut {removed} record(s) off its metadata log, to offset {to_offset}: the leader said its log diverged",
                    capitalize(&node(n, l))
                )
            } else {
                format!(
                    "{} 截掉了元数据日志末尾的 {removed} 条记录，截到 offset {to_offset}：leader 告诉它日志出现了分歧",
                    node(n, l)
                )
            }
        }
        QuorumCommitted {
            node: n,
            high_watermark,
        } => {
            if en {
                format!(
                    "{}'s quorum high watermark moved to {high_watermark}: the metadata records below it are committed",
                    capitalize(&node(n, l))
                )
            } else {
                format!(
                    "{} 的 quorum 高水位移到 {high_watermark}：其下的元数据记录已提交",
                    node(n, l)
                )
            }
        }
        BrokerLifecycleChanged {
            broker,
            state,
            broker_epoch,
        } => {
            if en {
                format!(
                    "Broker {broker} (broker epoch {broker_epoch}) is {}",
                    lifecycle(*state, l)
                )
            } else {
                format!(
                    "broker {broker}（broker epoch {broker_epoch}）进入 {}",
                    lifecycle(*state, l)
                )
            }
        }
        ControllerStarted {
            node: id,
            incarnation,
            log_end_offset,
        } => {
            match (en, *incarnation <= 1) {
                (true, true) => format!("Controller {id} started with an empty metadata log"),
                (true, false) => format!("Controller {id} restarted (life {incarnation}) and read its metadata log back from disk: {log_end_offset} record(s)"),
                (false, true) => format!("控制器 {id} 启动，元数据日志为空"),
                (false, false) => format!("控制器 {id} 重启（第 {incarnation} 次），从磁盘读回元数据日志：{log_end_offset} 条记录"),
            }
        }
        ControllerStopped {
            node: id,
            controlled,
        } => match (en, controlled) {
            (true, true) => format!("Controller {id} shut down"),
            (true, false) => format!("Controller {id}'s process died"),
            (false, true) => format!("控制器 {id} 正常关闭"),
            (false, false) => format!("控制器 {id} 的进程崩溃"),
        },
        _ => return None,
    })
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}
