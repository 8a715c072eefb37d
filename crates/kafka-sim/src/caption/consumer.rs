//! Captions of the events about consumers, groups and offsets.

use super::*;

/// The caption of `e` if it is one of this file's events.
pub(super) fn words(e: &EventKind, l: Lang) -> Option<String> {
    use EventKind::*;
    let en = l == Lang::En;
    Some(match e {
        RecordsConsumed {
            consumer,
            tp,
            records,
            high_watermark,
        } => {
            let first = records.first().map(|r| r.offset).unwrap_or(-1);
            let last = records.last().map(|r| r.offset).unwrap_or(-1);
            if en {
                format!("Consumer {consumer}'s poll() returned {} record(s) from {tp}, offsets {first}–{last} (high watermark {high_watermark})", records.len())
            } else {
                format!("消费者 {consumer} 的 poll() 返回 {tp} 的 {} 条消息，位移 {first}–{last}（HW {high_watermark}）", records.len())
            }
        }
        RecordsProcessed { consumer, ranges } => {
            let v: Vec<String> = ranges
                .iter()
                .map(|(tp, a, b)| format!("{tp} {a}–{b}"))
                .collect();
            if en {
                format!(
                    "Consumer {consumer}'s application finished processing {}",
                    v.join(", ")
                )
            } else {
                format!("消费者 {consumer} 的应用处理完了 {}", v.join("，"))
            }
        }
        ConsumerPositionReset {
            consumer,
            tp,
            position,
            reason,
        } => {
            if en {
                format!("Consumer {consumer}: position of {tp} = {position}: {reason}")
            } else {
                format!("消费者 {consumer}：{tp} 的位置 = {position}：{reason}")
            }
        }
        GroupsLoaded {
            broker,
            partition,
            groups,
            offsets,
        } => {
            if en {
                format!("Broker {broker} now leads __consumer_offsets-{partition}: as group coordinator it read the partition back and loaded {} group(s) {groups:?} with {offsets} committed offset(s)", groups.len())
            } else {
                format!("broker {broker} 成为 __consumer_offsets-{partition} 的 leader：作为组协调者，它从该分区读回 {} 个消费者组 {groups:?}，共 {offsets} 个已提交位移", groups.len())
            }
        }
        GroupsUnloaded {
            broker,
            partition,
            groups,
        } => {
            if en {
                format!("Broker {broker} no longer leads __consumer_offsets-{partition}: it stops coordinating {groups:?}")
            } else {
                format!("broker {broker} 不再是 __consumer_offsets-{partition} 的 leader：不再协调 {groups:?}")
            }
        }
        MemberIdAssigned {
            broker,
            group,
            member_id,
        } => {
            if en {
                format!("Coordinator {broker} gave the new member of {group} the id {member_id} and answered MEMBER_ID_REQUIRED: join again with it (KIP-394)")
            } else {
                format!("协调者 {broker} 为 {group} 的新成员分配成员 id {member_id}，回复 MEMBER_ID_REQUIRED：请带着它重新加入（KIP-394）")
            }
        }
        MemberJoining {
            broker,
            group,
            member_id,
            group_instance_id,
            known,
        } => {
            let st = group_instance_id
                .as_ref()
                .map(|i| format!(" (static, group.instance.id={i})"))
                .unwrap_or_default();
            if en {
                format!(
                    "Coordinator {broker}: {member_id}{st} sent JoinGroup to {group}{}",
                    if *known { " again" } else { "" }
                )
            } else {
                format!(
                    "协调者 {broker}：{member_id}{st} 向 {group} 发送 JoinGroup{}",
                    if *known { "（再次）" } else { "" }
                )
            }
        }
        StaticMemberReplaced {
            broker,
            group,
            group_instance_id,
            old_member_id,
            new_member_id,
        } => {
            if en {
                format!("Coordinator {broker}: static member {group_instance_id} of {group} came back; member id {old_member_id} → {new_member_id}, its partitions kept, no rebalance")
            } else {
                format!("协调者 {broker}：{group} 的静态成员 {group_instance_id} 回来了；成员 id {old_member_id} → {new_member_id}，保留分区，不触发重平衡")
            }
        }
        RebalanceStarted {
            broker,
            group,
            generation,
            reason,
            wait_ms,
            initial_delay,
        } => {
            if en {
                if *initial_delay {
                    format!("Coordinator {broker}: {group} starts rebalancing ({reason}); first it waits group.initial.rebalance.delay.ms = {wait_ms} ms for more members")
                } else {
                    format!("Coordinator {broker}: {group} (generation {generation}) starts rebalancing: {reason}. Every member must send JoinGroup within {wait_ms} ms")
                }
            } else if *initial_delay {
                format!("协调者 {broker}：{group} 开始重平衡（{reason}）；先等待 group.initial.rebalance.delay.ms = {wait_ms} ms 让更多成员加入")
            } else {
                format!("协调者 {broker}：{group}（第 {generation} 代）开始重平衡：{reason}。所有成员须在 {wait_ms} ms 内发送 JoinGroup")
            }
        }
        GenerationStarted {
            broker,
            group,
            generation,
            protocol,
            leader,
            members,
        } => {
            if members.is_empty() {
                if en {
                    format!("Coordinator {broker}: {group} has no members left; generation {generation}, state Empty")
                } else {
                    format!("协调者 {broker}：{group} 没有成员了；第 {generation} 代，状态 Empty")
                }
            } else if en {
                format!("Coordinator {broker}: {group} generation {generation} with {} member(s); assignor {} (voted); leader {}; waiting for the leader's SyncGroup", members.len(), opt(protocol), opt(leader))
            } else {
                format!("协调者 {broker}：{group} 第 {generation} 代，{} 个成员；分配策略 {}（投票选出）；leader {}；等待 leader 的 SyncGroup", members.len(), opt(protocol), opt(leader))
            }
        }
        MemberRemoved {
            broker,
            group,
            member_id,
            reason,
        } => {
            if en {
                format!("Coordinator {broker}: removed {member_id} from {group}: {reason}")
            } else {
                format!("协调者 {broker}：将 {member_id} 移出 {group}：{reason}")
            }
        }
        GroupStable {
            broker,
            group,
            generation,
            assignment,
        } => {
            let parts: Vec<String> = assignment
                .iter()
                .map(|(m, a)| format!("{m}: {}", tp_names(a)))
                .collect();
            if en {
                format!("Coordinator {broker}: the assignment of {group} generation {generation} is stored in __consumer_offsets; Stable — {}", parts.join("; "))
            } else {
                format!("协调者 {broker}：{group} 第 {generation} 代的分配方案已写入 __consumer_offsets；Stable —— {}", parts.join("；"))
            }
        }
        OffsetsCommitted {
            broker,
            group,
            member_id,
            offsets,
        } => {
            let who = if member_id.is_empty() {
                String::new()
            } else {
                format!(" from {member_id}")
            };
            if en {
                format!("Coordinator {broker}: committed offsets of {group}{who} replicated and applied: {}", offsets_text(offsets))
            } else {
                format!(
                    "协调者 {broker}：{group}{who} 的位移提交已复制并生效：{}",
                    offsets_text(offsets)
                )
            }
        }
        OffsetCommitRejected {
            broker,
            group,
            member_id,
            error,
            detail,
        } => {
            if en {
                format!("Coordinator {broker}: OffsetCommit of {group} from {member_id} rejected with {}: {detail}", error.name())
            } else {
                format!(
                    "协调者 {broker}：拒绝 {member_id} 对 {group} 的位移提交，错误 {}：{detail}",
                    error.name()
                )
            }
        }
        CoordinatorFound {
            consumer,
            group,
            broker,
            partition,
        } => {
            if en {
                format!("Consumer {consumer}: the coordinator of {group} is broker {broker}, leader of __consumer_offsets-{partition} (abs(\"{group}\".hashCode()) % partitions = {partition})")
            } else {
                format!("消费者 {consumer}：{group} 的协调者是 broker {broker}，即 __consumer_offsets-{partition} 的 leader（abs(\"{group}\".hashCode()) % 分区数 = {partition}）")
            }
        }
        CoordinatorLost {
            consumer,
            broker,
            reason,
        } => {
            if en {
                format!("Consumer {consumer} lost its coordinator (broker {broker}): {reason}; it will look it up again")
            } else {
                format!("消费者 {consumer} 失去协调者（broker {broker}）：{reason}；将重新查找")
            }
        }
        JoinedGroup {
            consumer,
            group,
            generation,
            member_id,
            leader,
            protocol,
        } => {
            if en {
                format!("Consumer {consumer} joined {group} as {member_id}, generation {generation}, assignor {}{}", opt(protocol), if *leader { " — it is the group leader and will compute the assignment" } else { "" })
            } else {
                format!("消费者 {consumer} 以 {member_id} 加入 {group}，第 {generation} 代，分配策略 {}{}", opt(protocol), if *leader { " —— 它是组 leader，负责计算分配方案" } else { "" })
            }
        }
        AssignmentComputed {
            consumer,
            group,
            generation,
            strategy,
            assignment,
            revoke,
            ..
        } => {
            let parts: Vec<String> = assignment
                .iter()
                .map(|(m, a)| format!("{m}: {}", tp_names(a)))
                .collect();
            let rv: Vec<String> = revoke
                .iter()
                .map(|(m, a)| format!("{m} gives up {}", tp_names(a)))
                .collect();
            let rv = if rv.is_empty() {
                String::new()
            } else {
                format!(" — first {}", rv.join(", "))
            };
            if en {
                format!("Consumer {consumer} (leader) ran the {strategy} assignor for {group} generation {generation}: {}{rv}", parts.join("; "))
            } else {
                format!("消费者 {consumer}（leader）为 {group} 第 {generation} 代运行 {strategy} 分配策略：{}{rv}", parts.join("；"))
            }
        }
        PartitionsRevoked {
            consumer,
            generation,
            partitions,
            lost,
        } => {
            if en {
                if *lost {
                    format!("Consumer {consumer} lost {}: the group moved on without it (onPartitionsLost, no commit)", tp_names(partitions))
                } else {
                    format!("Consumer {consumer} revoked {} (onPartitionsRevoked, generation {generation})", tp_names(partitions))
                }
            } else if *lost {
                format!("消费者 {consumer} 失去 {}：消费者组已在没有它的情况下继续（onPartitionsLost，不提交）", tp_names(partitions))
            } else {
                format!(
                    "消费者 {consumer} 撤销 {}（onPartitionsRevoked，第 {generation} 代）",
                    tp_names(partitions)
                )
            }
        }
        PartitionsAssigned {
            consumer,
            generation,
            assignment,
            added,
        } => {
            if en {
                format!(
                    "Consumer {consumer} owns {} in generation {generation} (new: {})",
                    tp_names(assignment),
                    tp_names(added)
                )
            } else {
                format!(
                    "消费者 {consumer} 在第 {generation} 代拥有 {}（新增：{}）",
                    tp_names(assignment),
                    tp_names(added)
                )
            }
        }
        RejoinRequested { consumer, reason } => {
            if en {
                format!("Consumer {consumer} will rejoin its group: {reason}")
            } else {
                format!("消费者 {consumer} 将重新加入消费者组：{reason}")
            }
        }
        LeftGroup {
            consumer,
            group,
            member_id,
            sent_leave_group,
            reason,
        } => {
            if en {
                format!(
                    "Consumer {consumer} left {group} ({reason}){}",
                    if *sent_leave_group {
                        format!(": LeaveGroup sent for {member_id}")
                    } else {
                        " without LeaveGroup (static member: its session keeps its place until session.timeout.ms)".to_string()
                    }
                )
            } else {
                format!(
                    "消费者 {consumer} 离开 {group}（{reason}）{}",
                    if *sent_leave_group {
                        format!("：为 {member_id} 发送 LeaveGroup")
                    } else {
                        "，未发送 LeaveGroup（静态成员：会话在 session.timeout.ms 内保留其位置）"
                            .to_string()
                    }
                )
            }
        }
        OffsetCommitSent {
            consumer,
            generation,
            offsets,
            sync,
            reason,
        } => {
            let kind = if *sync { "commitSync" } else { "commitAsync" };
            if en {
                format!(
                    "Consumer {consumer} commits {} ({kind}, generation {generation}): {reason}",
                    offsets_text(offsets)
                )
            } else {
                format!(
                    "消费者 {consumer} 提交位移 {}（{kind}，第 {generation} 代）：{reason}",
                    offsets_text(offsets)
                )
            }
        }
        OffsetCommitFailed {
            consumer,
            offsets,
            error,
            detail,
        } => {
            if en {
                format!(
                    "Consumer {consumer}: commit of {} failed with {}: {detail}",
                    offsets_text(offsets),
                    error.name()
                )
            } else {
                format!(
                    "消费者 {consumer}：提交 {} 失败，错误 {}：{detail}",
                    offsets_text(offsets),
                    error.name()
                )
            }
        }
        _ => return None,
    })
}
