//! Captions of the events about replicas, the log, the high watermark and the ISR.

use super::*;

/// The caption of `e` if it is one of this file's events.
pub(super) fn words(e: &EventKind, l: Lang) -> Option<String> {
    use EventKind::*;
    let en = l == Lang::En;
    Some(match e {
        BecameLeader {
            broker,
            tp,
            leader_epoch,
            isr,
            high_watermark,
            log_end_offset,
        } => {
            if en {
                format!("Broker {broker} became leader of {tp} (epoch {leader_epoch}, ISR {}, LEO {log_end_offset}, HW {high_watermark})", ids_list(isr))
            } else {
                format!("Broker {broker} 成为 {tp} 的 leader（epoch {leader_epoch}，ISR {}，LEO {log_end_offset}，HW {high_watermark}）", ids_list(isr))
            }
        }
        BecameFollower {
            broker,
            tp,
            leader,
            leader_epoch,
            log_end_offset,
            high_watermark,
        } => {
            // A partition without a leader (-1) has nobody to fetch from.
            match (en, *leader < 0) {
                (true, false) => format!("Broker {broker} became a follower of {tp}, fetching from leader {leader} (epoch {leader_epoch}, LEO {log_end_offset}, HW {high_watermark})"),
                (true, true) => format!("Broker {broker} became a follower of {tp}, which has no leader to fetch from yet (epoch {leader_epoch}, LEO {log_end_offset}, HW {high_watermark})"),
                (false, false) => format!("Broker {broker} 成为 {tp} 的 follower，从 leader {leader} 拉取（epoch {leader_epoch}，LEO {log_end_offset}，HW {high_watermark}）"),
                (false, true) => format!("Broker {broker} 成为 {tp} 的 follower，但该分区还没有可拉取的 leader（epoch {leader_epoch}，LEO {log_end_offset}，HW {high_watermark}）"),
            }
        }
        ReplicaStopped {
            broker,
            tp,
            deleted,
        } => {
            if en {
                format!(
                    "Broker {broker} stopped its replica of {tp}{}",
                    if *deleted { " and deleted it" } else { "" }
                )
            } else {
                format!(
                    "Broker {broker} 停止了 {tp} 的副本{}",
                    if *deleted { "并删除" } else { "" }
                )
            }
        }
        LogCreated { broker, dir, .. } => {
            if en {
                format!("Broker {broker} created the log directory {dir}/ with segment 00000000000000000000")
            } else {
                format!("Broker {broker} 创建日志目录 {dir}/ 及日志段 00000000000000000000")
            }
        }
        LogTruncated {
            broker,
            tp,
            truncated,
            reason,
        } => {
            let why_en = match reason {
                TruncateReason::HighWatermark { high_watermark } => {
                    format!("cut to its high watermark {high_watermark} (the pre-KIP-101 rule)")
                }
                TruncateReason::LeaderEpoch { epoch, end_offset } => format!(
                    "the leader says epoch {epoch} ends at offset {end_offset} (KIP-101)"
                ),
                TruncateReason::UnknownLeaderEpoch {
                    leader_epoch,
                    epoch,
                    end_offset,
                } => format!(
                    "the leader answered with epoch {leader_epoch}, which this follower never had, so it cut to where its own epoch {epoch} ends ({end_offset}) and will ask again"
                ),
                TruncateReason::BelowLogStart { log_start_offset } => {
                    format!("the leader's log now starts at {log_start_offset}")
                }
                TruncateReason::PowerFailure { flushed_offset } => format!(
                    "power failure: only offsets below {flushed_offset} had been written back from the page cache"
                ),
            };
            let why_zh = match reason {
                TruncateReason::HighWatermark { high_watermark } => {
                    format!("截断到自己的 HW {high_watermark}（KIP-101 之前的规则）")
                }
                TruncateReason::LeaderEpoch { epoch, end_offset } => {
                    format!("leader 告知 epoch {epoch} 结束于位移 {end_offset}（KIP-101）")
                }
                TruncateReason::UnknownLeaderEpoch {
                    leader_epoch,
                    epoch,
                    end_offset,
                } => format!(
                    "leader 答复的 epoch {leader_epoch} 是这个 follower 从未有过的，于是先截断到自己 epoch {epoch} 的结束位移 {end_offset}，再次询问"
                ),
                TruncateReason::BelowLogStart { log_start_offset } => {
                    format!("leader 的日志现在从 {log_start_offset} 开始")
                }
                TruncateReason::PowerFailure { flushed_offset } => {
                    format!("断电：页缓存中只有 {flushed_offset} 之前的数据已写回磁盘")
                }
            };
            if en {
                format!(
                    "Broker {broker} truncated {tp} from LEO {} to {}: {why_en}",
                    truncated.old_log_end_offset, truncated.to_offset
                )
            } else {
                format!(
                    "Broker {broker} 将 {tp} 从 LEO {} 截断到 {}：{why_zh}",
                    truncated.old_log_end_offset, truncated.to_offset
                )
            }
        }
        BatchAppended {
            broker,
            tp,
            leader,
            appended,
        } => {
            let idx_en = match appended.index_entry {
                Some((o, p)) => format!("; wrote .index entry {o} → {p}"),
                None => String::new(),
            };
            let idx_zh = match appended.index_entry {
                Some((o, p)) => format!("；写入 .index 项 {o} → {p}"),
                None => String::new(),
            };
            let role = match (leader, en) {
                (true, true) => "leader",
                (false, true) => "follower",
                (true, false) => "leader",
                (false, false) => "follower",
            };
            if en {
                format!(
                    "Broker {broker} ({role}) appended offsets {}–{} to {tp} at position {} of segment {} ({} bytes); LEO {}{idx_en}",
                    appended.first_offset, appended.last_offset, appended.position, appended.segment_base_offset, appended.size, appended.log_end_offset
                )
            } else {
                format!(
                    "Broker {broker}（{role}）把位移 {}–{} 追加到 {tp} 的 日志段 {} 位置 {}（{} 字节）；LEO {}{idx_zh}",
                    appended.first_offset, appended.last_offset, appended.segment_base_offset, appended.position, appended.size, appended.log_end_offset
                )
            }
        }
        AppendRejected {
            broker,
            tp,
            error,
            detail,
        } => {
            if en {
                format!("Broker {broker} refused to append to {tp}: {error} ({detail})")
            } else {
                format!("Broker {broker} 拒绝追加到 {tp}：{error}（{detail}）")
            }
        }
        SegmentRolled { broker, tp, roll } => {
            let why = match (roll.reason, en) {
                (crate::storage::log::RollReason::SegmentBytes, true) => {
                    "it would pass segment.bytes"
                }
                (crate::storage::log::RollReason::SegmentMs, true) => "segment.ms has passed",
                (crate::storage::log::RollReason::OffsetIndexFull, true) => "its .index is full",
                (crate::storage::log::RollReason::TimeIndexFull, true) => "its .timeindex is full",
                (crate::storage::log::RollReason::RelativeOffsetOverflow, true) => {
                    "offsets would overflow 4 bytes"
                }
                (crate::storage::log::RollReason::Retention, true) => {
                    "retention deletes every segment"
                }
                (crate::storage::log::RollReason::SegmentBytes, false) => "将超过 segment.bytes",
                (crate::storage::log::RollReason::SegmentMs, false) => "已超过 segment.ms",
                (crate::storage::log::RollReason::OffsetIndexFull, false) => ".index 已满",
                (crate::storage::log::RollReason::TimeIndexFull, false) => ".timeindex 已满",
                (crate::storage::log::RollReason::RelativeOffsetOverflow, false) => {
                    "相对位移 将溢出 4 字节"
                }
                (crate::storage::log::RollReason::Retention, false) => "清理策略要删除全部日志段",
            };
            if en {
                format!(
                    "Broker {broker} rolled {tp}: new segment {:020} because {why}",
                    roll.new_base_offset
                )
            } else {
                format!(
                    "Broker {broker} 滚动 {tp}：新 日志段 {:020}，因为{why}",
                    roll.new_base_offset
                )
            }
        }
        FollowerFetchRecorded {
            broker,
            tp,
            follower,
            follower_leo,
            leader_leo,
            ..
        } => {
            if en {
                format!("Leader {broker} learned follower {follower}'s LEO for {tp} from its fetch offset: {follower_leo} (leader LEO {leader_leo})")
            } else {
                format!("Leader {broker} 从 follower {follower} 的 拉取位移 得知其 {tp} LEO = {follower_leo}（leader LEO {leader_leo}）")
            }
        }
        HighWatermarkUpdated {
            broker,
            tp,
            old,
            new,
            leader,
            isr_leos,
        } => {
            let leos: Vec<String> = isr_leos.iter().map(|(b, o)| format!("{b}:{o}")).collect();
            match (en, leader) {
                (true, true) => format!("Leader {broker} moved {tp}'s high watermark {old} → {new} (smallest LEO in the ISR: {})", leos.join(" ")),
                (true, false) => format!("Follower {broker} took the leader's high watermark for {tp}: {old} → {new}"),
                (false, true) => format!("Leader {broker} 将 {tp} 的高水位（HW）从 {old} 推进到 {new}（ISR 中最小的 LEO：{}）", leos.join(" ")),
                (false, false) => format!("Follower {broker} 从 leader 得知 {tp} 的高水位（HW）：{old} → {new}"),
            }
        }
        HighWatermarkHeld {
            broker,
            tp,
            isr_size,
            min_insync_replicas,
        } => {
            if en {
                format!("Leader {broker} kept {tp}'s high watermark: the ISR has {isr_size} replica(s), fewer than min.insync.replicas={min_insync_replicas}")
            } else {
                format!("Leader {broker} 未推进 {tp} 的 HW：ISR 只有 {isr_size} 个副本，少于 min.insync.replicas={min_insync_replicas}")
            }
        }
        IsrChangeProposed {
            broker,
            tp,
            old_isr,
            new_isr,
            reason,
        } => {
            if en {
                format!(
                    "Leader {broker} asks the controller to change {tp}'s ISR {} → {}: {reason}",
                    ids_list(old_isr),
                    ids_list(new_isr)
                )
            } else {
                format!(
                    "Leader {broker} 请求控制器将 {tp} 的 ISR {} → {}：{reason}",
                    ids_list(old_isr),
                    ids_list(new_isr)
                )
            }
        }
        IsrChangeApplied {
            broker,
            tp,
            isr,
            partition_epoch,
        } => {
            if en {
                format!(
                    "Leader {broker} now has ISR {} for {tp} (partition epoch {partition_epoch})",
                    ids_list(isr)
                )
            } else {
                format!(
                    "Leader {broker} 的 {tp} ISR 更新为 {}（分区纪元 {partition_epoch}）",
                    ids_list(isr)
                )
            }
        }
        IsrChangeRejected { broker, tp, error } => {
            if en {
                format!("The controller refused leader {broker}'s ISR change for {tp}: {error}")
            } else {
                format!("控制器拒绝了 leader {broker} 对 {tp} 的 ISR 变更：{error}")
            }
        }
        LogFlushed { broker, partitions } => {
            if en {
                format!("Broker {broker}'s OS wrote {partitions} partition log(s) back from the page cache to disk")
            } else {
                format!("Broker {broker} 的操作系统把 {partitions} 个分区日志从页缓存写回磁盘")
            }
        }
        HighWatermarkCheckpointed { broker, partitions } => {
            if en {
                format!(
                    "Broker {broker} wrote replication-offset-checkpoint ({partitions} partitions)"
                )
            } else {
                format!("Broker {broker} 写入 replication-offset-checkpoint（{partitions} 个分区）")
            }
        }
        DivergenceDetected {
            broker,
            tp,
            follower,
            epoch,
            end_offset,
        } => {
            if en {
                format!("Leader {broker}: follower {follower}'s log of {tp} diverges; its epoch {epoch} ends here at offset {end_offset}")
            } else {
                format!("Leader {broker}：follower {follower} 的 {tp} 日志出现分歧；epoch {epoch} 在这里结束于位移 {end_offset}")
            }
        }
        DuplicateAcknowledged {
            broker,
            tp,
            base_offset,
        } => {
            if en {
                format!("Broker {broker}: a retry of the batch already at {tp} offset {base_offset} (same producer id and sequence number): not appended again; answered with offset {base_offset}, no error")
            } else {
                format!("Broker {broker}：这是已写在 {tp} 位移 {base_offset} 的批次的重试（相同的 生产者 id 和序列号）：不再追加；直接以位移 {base_offset} 回复，没有错误")
            }
        }
        ProduceRejected {
            broker,
            tp,
            error,
            detail,
        } => {
            if en {
                format!("Broker {broker} answered {error} for {tp}: {detail}")
            } else {
                format!("Broker {broker} 对 {tp} 返回 {error}：{detail}")
            }
        }
        ProduceCompleted {
            broker,
            tp,
            base_offset,
            acks,
            waited_for_isr,
        } => {
            if en {
                if *waited_for_isr {
                    format!("Broker {broker}: every ISR replica has {tp} up to the batch at {base_offset}, so acks={} is satisfied", acks_name(*acks))
                } else {
                    format!("Broker {broker} acknowledges {tp}@{base_offset} as soon as it is in its own log (acks={})", acks_name(*acks))
                }
            } else if *waited_for_isr {
                format!("Broker {broker}：所有 ISR 副本都已拥有 {tp} 位移 {base_offset} 的批次，满足 acks={}", acks_name(*acks))
            } else {
                format!(
                    "Broker {broker} 写入本地日志后即确认 {tp}@{base_offset}（acks={}）",
                    acks_name(*acks)
                )
            }
        }
        ProduceParked {
            broker,
            tp,
            required_offset,
            isr,
        } => {
            if en {
                // No number: the high watermark it waits for is what a
                // lesson asks about next.
                let _ = required_offset;
                format!("Broker {broker} holds the acks=all answer for {tp} until every ISR replica has the batch (ISR {})", ids_list(isr))
            } else {
                format!("Broker {broker} 暂不回复 {tp} 的 acks=all 请求，等 ISR 中每个副本都有了这个批次（ISR {}）", ids_list(isr))
            }
        }
        ProduceTimedOut {
            broker,
            tp,
            required_offset,
        } => {
            if en {
                format!("Broker {broker}: the ISR did not reach {required_offset} on {tp} in time: REQUEST_TIMED_OUT")
            } else {
                format!("Broker {broker}：ISR 未能及时在 {tp} 上到达 {required_offset}：REQUEST_TIMED_OUT")
            }
        }
        FetchParked {
            broker,
            from,
            max_wait_ms,
            ..
        } => {
            if en {
                format!("Broker {broker} has nothing new for {}: it holds the fetch up to {max_wait_ms} ms (long poll)", node(from, l))
            } else {
                format!(
                    "{} 的 fetch 暂无新数据：Broker {broker} 把它挂起最多 {max_wait_ms} ms（长轮询）",
                    node(from, l)
                )
            }
        }
        PreferredReadReplicaChosen {
            broker,
            tp,
            from,
            replica,
            rack,
        } => {
            if en {
                format!(
                    "Broker {broker} leads {tp} but is not in {}'s rack {rack}: it sends no records and names broker {replica}, an in-sync follower in that rack, as the replica to fetch from (KIP-392, replica.selector.class)",
                    node(from, l)
                )
            } else {
                format!(
                    "Broker {broker} 是 {tp} 的 leader，但不在 {} 所在的机架 {rack}：这次不返回消息，而是指定同一机架中的同步 follower broker {replica} 作为拉取副本（KIP-392，replica.selector.class）",
                    node(from, l)
                )
            }
        }
        PreferredReadReplicaCleared {
            consumer,
            tp,
            replica,
            reason,
        } => {
            if en {
                format!("Consumer {consumer} stops reading {tp} from follower broker {replica} ({reason}): it fetches from the leader again")
            } else {
                format!("消费者 {consumer} 不再从 follower broker {replica} 读取 {tp}（{reason}）：改回从 leader 拉取")
            }
        }
        FetchRejected {
            broker,
            tp,
            from,
            error,
        } => {
            if en {
                format!(
                    "Broker {broker} answered {error} to {}'s fetch of {tp}",
                    node(from, l)
                )
            } else {
                format!(
                    "Broker {broker} 对 {} 拉取 {tp} 返回 {error}",
                    node(from, l)
                )
            }
        }
        _ => return None,
    })
}
