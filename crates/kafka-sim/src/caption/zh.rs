//! 中文 for the English phrases that events carry as text: a reason the
//! engine gives in Kafka's words ("waiting for metadata of topic t"), a
//! guarantee's detail, a request's one-line summary ("Produce t-0 (acks=1,
//! 76 bytes)"). The Chinese captions insert them, so without this a 中文
//! caption would end in English. Each rule is an English template with `{}`
//! holes and its Chinese with `{0}`, `{1}`… (the holes may change order);
//! [`translate`] rewrites every occurrence in a caption. Words follow
//! docs/glossary.md; `tests/zh.rs` (root package) checks every caption of
//! every shipped scenario.

/// (English template, Chinese template).
const RULES: &[(&str, &str)] = &[
    // KRaft (Kafka 4.1): quorum requests and broker lifecycle
    (
        "Fetch __cluster_metadata-0 from {} (last epoch {}, leader epoch {})",
        "Fetch __cluster_metadata-0 从位移 {0} 起（最后的 epoch {1}，leader epoch {2}）",
    ),
    (
        "PreVote epoch {} for {} (log end {}, last epoch {})",
        "PreVote epoch {0}，候选者 {1}（日志末端 {2}，最后的 epoch {3}）",
    ),
    (
        "Vote epoch {} for {} (log end {}, last epoch {})",
        "Vote epoch {0}，候选者 {1}（日志末端 {2}，最后的 epoch {3}）",
    ),
    ("Response epoch {}: granted", "Response epoch {0}：同意"),
    ("Response epoch {}: rejected", "Response epoch {0}：拒绝"),
    (" (last epoch {}, leader epoch {})", "（最后的 epoch {0}，leader epoch {1}）"),
    ("BeginQuorumEpoch epoch {}, leader {}", "BeginQuorumEpoch epoch {0}，leader {1}"),
    (
        "EndQuorumEpoch epoch {}, leader {} resigns (successors {})",
        "EndQuorumEpoch epoch {0}，leader {1} 卸任（继任者 {2}）",
    ),
    (
        "FetchResponse __cluster_metadata-0: {} records, HW {}",
        "FetchResponse __cluster_metadata-0：{0} 条记录，HW {1}",
    ),
    (
        "FetchResponse __cluster_metadata-0: {} record, HW {}",
        "FetchResponse __cluster_metadata-0：{0} 条记录，HW {1}",
    ),
    (
        "FetchResponse HW {}: diverging, truncate to {} (epoch {})",
        "FetchResponse HW {0}：日志出现分歧，截断到 {1}（epoch {2}）",
    ),
    (
        "BrokerHeartbeat broker {}, metadata offset {}, wants fence",
        "BrokerHeartbeat broker {0}，元数据位移 {1}，请求保持隔离",
    ),
    (
        "BrokerHeartbeat broker {}, metadata offset {}",
        "BrokerHeartbeat broker {0}，元数据位移 {1}",
    ),
    ("HeartbeatResponse fenced, caught up", "HeartbeatResponse 仍被隔离，已追上"),
    ("HeartbeatResponse unfenced, caught up", "HeartbeatResponse 已解除隔离，已追上"),
    ("HeartbeatResponse unfenced", "HeartbeatResponse 已解除隔离"),
    ("HeartbeatResponse fenced", "HeartbeatResponse 仍被隔离"),
    (
        "AllocateProducerIdsResponse ids {}–{}",
        "AllocateProducerIdsResponse：生产者 id {0}–{1}",
    ),
    // Producer
    ("waiting for metadata of topic {}", "等待主题 {0} 的元数据"),
    ("earlier records are still waiting", "前面的消息仍在等待"),
    ("linger.ms={} passed", "linger.ms={0} 已到"),
    ("full (batch.size)", "批次已满（batch.size）"),
    ("，retry）", "，重试）"),
    (
        "TimeoutException: Expiring {} record(s) for {}: {} ms has passed since batch creation",
        "TimeoutException：{1} 的 {0} 条消息过期：批次创建后已过 {2} ms",
    ),
    // Transactions (KIP-890 part 1)
    (" (verify only)", "（仅验证）"),
    (
        "Record was not part of an ongoing transaction",
        "该消息不属于任何进行中的事务",
    ),
    (
        "Partition was not added to the transaction",
        "该分区未被加入事务",
    ),
    (
        "Unable to verify the partition has been added to the transaction. Underlying error: {}",
        "无法验证该分区已加入事务。底层错误：{0}",
    ),
    // Storage lookups
    (
        "offset {} is the log end offset: no record is there yet, so a fetch from it returns no records and no error",
        "位移 {0} 就是日志末端位移（LEO）：那里还没有消息，所以从这里拉取会返回空结果，而不是错误",
    ),
    (
        "offset {} is outside the log [{}, {}) (OFFSET_OUT_OF_RANGE)",
        "位移 {0} 在日志范围 [{1}, {2}) 之外（OFFSET_OUT_OF_RANGE）",
    ),
    // Consumer and group
    (
        "metadata.max.age.ms ({} ms) has passed since the leader named it",
        "自 leader 指定它以来已过 metadata.max.age.ms（{0} ms）",
    ),
    ("the broker is not in its metadata", "该 broker 不在它的元数据中"),
    ("its fetch to broker {} failed", "它发往 broker {0} 的拉取失败"),
    (
        "no committed offset: auto.offset.reset={} starts at the log start offset",
        "没有已提交位移：auto.offset.reset={0}，从日志起始位移开始",
    ),
    (
        "no committed offset: auto.offset.reset={} starts at the high watermark",
        "没有已提交位移：auto.offset.reset={0}，从高水位开始",
    ),
    ("the committed offset of group {}", "消费者组 {0} 的已提交位移"),
    (
        "the heartbeat answered REBALANCE_IN_PROGRESS",
        "心跳返回了 REBALANCE_IN_PROGRESS",
    ),
    ("before revoking (onJoinPrepare)", "撤销分区之前（onJoinPrepare）"),
    (
        "member {} rejoined (its subscription or role changed)",
        "成员 {0} 重新加入（订阅或角色变了）",
    ),
    ("member {} left", "成员 {0} 离开"),
    ("member {} joined", "成员 {0} 加入"),
    (
        "no heartbeat within session.timeout.ms={}",
        "session.timeout.ms={0} 内没有心跳",
    ),
    (" — first {} gives up {}", " —— 先由 {0} 交出 {1}"),
    (", {} gives up {}", "，{0} 交出 {1}"),
    // Controller and replication
    (
        "died (its ZooKeeper session ended)",
        "宕机（它的 ZooKeeper 会话已结束）",
    ),
    (
        "its broker is not registered in ZooKeeper",
        "它所在的 broker 未在 ZooKeeper 中注册",
    ),
    (
        "follower {} caught up: its LEO {} reached the high watermark {}",
        "follower {0} 已追上：它的 LEO {1} 达到高水位 {2}",
    ),
    (
        "followers {} not caught up for more than replica.lag.time.max.ms={}",
        "follower {0} 超过 replica.lag.time.max.ms={1} 未追上",
    ),
    (
        "follower {} not caught up for more than replica.lag.time.max.ms={}",
        "follower {0} 超过 replica.lag.time.max.ms={1} 未追上",
    ),
    (
        "the ISR {} is smaller than min.insync.replicas={}",
        "ISR {0} 小于 min.insync.replicas={1}",
    ),
    (
        "unclean leader election: broker {} was not in the ISR {}, so records it never copied are gone",
        "unclean leader 选举：broker {0} 不在 ISR {1} 中，它没有复制到的消息都丢了",
    ),
    (
        "acknowledged records at offsets {} (acks={}) missing on the new leader, broker {} (log end offset {})",
        "位移 {0} 的已确认消息（acks={1}）在新 leader broker {2} 上不存在（LEO {3}）",
    ),
    (
        "acknowledged record at offset {} (acks={}) missing on the new leader, broker {} (log end offset {})",
        "位移 {0} 的已确认消息（acks={1}）在新 leader broker {2} 上不存在（LEO {3}）",
    ),
    (
        "follower {} keeps records at offsets {} below its high watermark {} that leader {} does not have: the logs have diverged",
        "follower {0} 在高水位 {2} 以下保留了 leader {3} 没有的位移 {1}：日志已分歧",
    ),
    (
        "follower {} keeps records at offset {} below its high watermark {} that leader {} does not have: the logs have diverged",
        "follower {0} 在高水位 {2} 以下保留了 leader {3} 没有的位移 {1}：日志已分歧",
    ),
    // Storage
    (
        "largest timestamp {} is more than retention.ms={} before now ({})",
        "最大时间戳 {0} 早于当前时间（{2}）超过 retention.ms={1}",
    ),
    (
        "log size {} bytes exceeds retention.bytes={}",
        "日志大小 {0} 字节超过 retention.bytes={1}",
    ),
    ("查找 offset {}", "查找位移 {0}"),
    ("查找 timestamp {}", "查找时间戳 {0}"),
    // Requests' one-line summaries
    ("Produce {} (acks={}, {} bytes)", "Produce {0}（acks={1}，{2} 字节）"),
    (": base offset {}", "：基准位移 {0}"),
    ("JoinGroup {} as (new member)", "JoinGroup {0}（新成员）"),
    ("JoinGroup {} as {}", "JoinGroup {0}，成员 {1}"),
    ("JoinGroupResponse generation {}", "JoinGroupResponse 第 {0} 代"),
    // A space after the request's name: the drawing shows "Fetch" on the
    // message, and its accessible name must contain that word.
    ("Fetch (consumer) ", "Fetch (消费者) "),
    (" from {}", " 从位移 {0} 起"),
    (" (+{} more)", "（另有 {0} 个）"),
    ("UpdateMetadata ({} partitions)", "UpdateMetadata ({0} 个分区)"),
    (": {} bytes, HW {}", "：{0} 字节，HW {1}"),
    ("watch: {} Created", "监听：{0} 已创建"),
    ("watch: {} Deleted", "监听：{0} 已删除"),
    ("watch: {} ChildrenChanged", "监听：{0} 子节点变化"),
    ("watch: {} DataChanged", "监听：{0} 数据变化"),
    // Why a run stopped early (`Timeline::stop`); what a stuck world says
    // sits inside the first, so its phrases come after.
    (
        "the simulation stopped at {} ms: {} steps in a row at that instant recorded nothing ({}); a setting of 0 for an interval is the usual cause",
        "模拟在 {0} ms 处停止：该时刻连续 {1} 步都没有记录任何事件（{2}）；通常是某个间隔被设成了 0",
    ),
    (
        "the simulation stopped at {} ms after {} events, the most one run may record here",
        "模拟在 {0} ms、第 {1} 个事件后停止：这是这里一次运行最多记录的事件数",
    ),
    (
        "the simulation stopped at {} ms after {} events: the page held {} MB, {} MB of it for this run, and keeps {} MB free to show any moment of it: the most it may hold here",
        "模拟在 {0} ms、第 {1} 个事件后停止：页面占用了 {2} MB 内存，其中这次运行占 {3} MB，另需留出 {4} MB 来显示其中任一时刻：这是这里最多能占用的内存",
    ),
    ("the {} timer of {} keeps firing at that instant", "{1} 的 {0} 定时器在该时刻不断触发"),
    // (Inside the first's brackets: a leading hole would take all before.)
    ("（{} requests to {} keep arriving at that instant", "（发往 {1} 的 {0} 请求在该时刻不断到达"),
    ("nothing is left to run", "已没有要运行的工作"),
];

/// A hole at the end of a template takes one token: up to a space or a
/// closing bracket or Chinese punctuation.
fn token_end(s: &str) -> usize {
    s.find(|c: char| c.is_whitespace() || "）)，；。：".contains(c))
        .unwrap_or(s.len())
}

/// Matches `template` at the start of `text`: the holes' contents and the
/// length matched. A hole takes as little as it can before the next literal.
fn match_at<'a>(template: &str, text: &'a str) -> Option<(Vec<&'a str>, usize)> {
    let mut parts = template.split("{}");
    let first = parts.next().unwrap_or("");
    let mut at = text.strip_prefix(first).map(|_| first.len())?;
    let mut holes = Vec::new();
    let rest: Vec<&str> = parts.collect();
    for (i, lit) in rest.iter().enumerate() {
        let tail = &text[at..];
        let len = if lit.is_empty() && i + 1 == rest.len() {
            token_end(tail)
        } else if lit.is_empty() {
            return None; // two holes in a row: not used
        } else {
            tail.find(lit)?
        };
        if len == 0 {
            return None;
        }
        holes.push(&tail[..len]);
        at += len + lit.len();
    }
    Some((holes, at))
}

fn fill(template: &str, holes: &[&str]) -> String {
    let mut out = template.to_string();
    for (i, h) in holes.iter().enumerate() {
        out = out.replace(&format!("{{{i}}}"), h);
    }
    out
}

/// `text` with every English phrase of `RULES` in 中文.
pub fn translate(text: &str) -> String {
    let mut out = text.to_string();
    for (en, zh) in RULES {
        let head = en.split("{}").next().unwrap_or(en);
        let mut from = 0;
        while let Some(i) = out[from..].find(head).map(|i| i + from) {
            match match_at(en, &out[i..]) {
                Some((holes, len)) => {
                    let z = fill(zh, &holes);
                    out.replace_range(i..i + len, &z);
                    from = i + z.len();
                }
                None => from = i + head.len().max(1),
            }
            while !out.is_char_boundary(from) {
                from += 1;
            }
            if from >= out.len() {
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_are_translated_with_their_values_in_place() {
        assert_eq!(
            translate("生产者 p：第 1 条的 send() 阻塞（waiting for metadata of topic first），最多 max.block.ms=60000"),
            "生产者 p：第 1 条的 send() 阻塞（等待主题 first 的元数据），最多 max.block.ms=60000"
        );
        assert_eq!(
            translate("删除了 logs-0 的日志段 0（largest timestamp 120 is more than retention.ms=3000 before now (4000)）"),
            "删除了 logs-0 的日志段 0（最大时间戳 120 早于当前时间（4000）超过 retention.ms=3000）"
        );
        assert_eq!(
            translate("broker 1 → broker 0：Fetch (follower) t-0 from 0"),
            "broker 1 → broker 0：Fetch (follower) t-0 从位移 0 起"
        );
        assert_eq!(
            translate("Produce t-0, t-1 (acks=all, 74 bytes)"),
            "Produce t-0, t-1（acks=all，74 字节）"
        );
        // Why a run stopped early, with what a stuck timer says inside.
        assert_eq!(
            translate("the simulation stopped at 12 ms after 250000 events: the page held 700 MB, 690 MB of it for this run, and keeps 40 MB free to show any moment of it: the most it may hold here"),
            "模拟在 12 ms、第 250000 个事件后停止：页面占用了 700 MB 内存，其中这次运行占 690 MB，另需留出 40 MB 来显示其中任一时刻：这是这里最多能占用的内存"
        );
        assert_eq!(
            translate("the simulation stopped at 7 ms after 1000000 events, the most one run may record here"),
            "模拟在 7 ms、第 1000000 个事件后停止：这是这里一次运行最多记录的事件数"
        );
        assert_eq!(
            translate("the simulation stopped at 5 ms: 1000 steps in a row at that instant recorded nothing (the heartbeat timer of consumer c1 keeps firing at that instant); a setting of 0 for an interval is the usual cause"),
            "模拟在 5 ms 处停止：该时刻连续 1000 步都没有记录任何事件（consumer c1 的 heartbeat 定时器在该时刻不断触发）；通常是某个间隔被设成了 0"
        );
        assert_eq!(
            translate("the simulation stopped at 5 ms: 1000 steps in a row at that instant recorded nothing (Fetch requests to broker 1 keep arriving at that instant); a setting of 0 for an interval is the usual cause"),
            "模拟在 5 ms 处停止：该时刻连续 1000 步都没有记录任何事件（发往 broker 1 的 Fetch 请求在该时刻不断到达）；通常是某个间隔被设成了 0"
        );
        // Nothing to translate: unchanged.
        assert_eq!(translate("broker 0 成为 leader"), "broker 0 成为 leader");
        // A template that does not match where its head appears is skipped.
        assert_eq!(translate("member of group g"), "member of group g");
    }
}
