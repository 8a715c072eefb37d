//! Plain-language captions for events, in English and 简体中文.
//!
//! A caption is derived from the event's facts only, so it can never disagree
//! with them. The UI and the CLI both use these.

use crate::event::{ids_list, DropReason, Event, EventKind, Guarantee, TruncateReason};
use crate::ids::NodeId;
use crate::msg::acks_name;
use crate::storage::log::LookupStep;
use serde::{Deserialize, Serialize};

pub mod zh;
mod znode;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    En,
    Zh,
}

fn node(n: &NodeId, l: Lang) -> String {
    match (l, n) {
        (Lang::En, NodeId::Broker(b)) => format!("broker {b}"),
        (Lang::Zh, NodeId::Broker(b)) => format!("broker {b}"),
        (Lang::En, NodeId::ZooKeeper) => "ZooKeeper".into(),
        (Lang::Zh, NodeId::ZooKeeper) => "ZooKeeper".into(),
        (Lang::En, NodeId::Producer(p)) => format!("producer {p}"),
        (Lang::Zh, NodeId::Producer(p)) => format!("生产者 {p}"),
        (Lang::En, NodeId::Consumer(c)) => format!("consumer {c}"),
        (Lang::Zh, NodeId::Consumer(c)) => format!("消费者 {c}"),
        // The scenario's own acts (and the learner's, which the page
        // captions as theirs): an administrator's, as kafka-topics.sh or
        // kill -9 would be on a real cluster.
        (Lang::En, NodeId::User) => "the admin".into(),
        (Lang::Zh, NodeId::User) => "管理员".into(),
    }
}

fn opt(s: &Option<String>) -> String {
    match s {
        Some(v) => format!("\"{v}\""),
        None => "null".into(),
    }
}

fn guarantee_name(g: Guarantee, l: Lang) -> &'static str {
    match (g, l) {
        (Guarantee::AcknowledgedRecordsSurvive, Lang::En) => "acknowledged records survive",
        (Guarantee::AcknowledgedRecordsSurvive, Lang::Zh) => "已确认的消息不丢失",
        (Guarantee::OneLeaderPerEpoch, Lang::En) => "one leader per leader epoch",
        (Guarantee::OneLeaderPerEpoch, Lang::Zh) => "每个 leader epoch 只有一个 leader",
        (Guarantee::HighWatermarkWithinIsr, Lang::En) => {
            "high watermark within every ISR member's log"
        }
        (Guarantee::HighWatermarkWithinIsr, Lang::Zh) => "HW 不超过任何 ISR 副本的 LEO",
        (Guarantee::HighWatermarkMonotonic, Lang::En) => {
            "a leader's high watermark never goes back"
        }
        (Guarantee::HighWatermarkMonotonic, Lang::Zh) => "leader 的 HW 不回退",
        (Guarantee::SingleOwnerPerPartition, Lang::En) => "one owner per partition in a group",
        (Guarantee::SingleOwnerPerPartition, Lang::Zh) => "组内每个分区只有一个消费者",
        (Guarantee::ReplicasConsistent, Lang::En) => "replicas agree below the high watermark",
        (Guarantee::ReplicasConsistent, Lang::Zh) => "HW 以下各副本数据一致",
    }
}

fn probe_role(r: crate::storage::index::ProbeRole, l: Lang) -> &'static str {
    use crate::storage::index::ProbeRole::*;
    match (r, l) {
        (WarmSectionCheck, Lang::En) => "warm-section check,",
        (FirstEntryCheck, Lang::En) => "first-entry check,",
        (BinarySearch, Lang::En) => "binary search,",
        (WarmSectionCheck, Lang::Zh) => "热区检查：",
        (FirstEntryCheck, Lang::Zh) => "首项检查：",
        (BinarySearch, Lang::Zh) => "二分查找：",
    }
}

/// One step of a traced lookup, in words.
pub fn lookup_step(s: &LookupStep, l: Lang) -> String {
    match (s, l) {
        (
            LookupStep::SegmentProbe {
                mid,
                base_offset,
                cmp,
                ..
            },
            Lang::En,
        ) => format!(
            "segment search: segment #{mid} starts at offset {base_offset} ({})",
            match cmp {
                1 => "too high, look left",
                -1 => "not above the target, look right",
                _ => "exact match",
            }
        ),
        (
            LookupStep::SegmentProbe {
                mid,
                base_offset,
                cmp,
                ..
            },
            Lang::Zh,
        ) => format!(
            "二分查找日志段：第 {mid} 个日志段的起始位移 为 {base_offset}（{}）",
            match cmp {
                1 => "太大，往左",
                -1 => "不大于目标，往右",
                _ => "正好相等",
            }
        ),
        (
            LookupStep::SegmentTimestampCheck {
                base_offset,
                largest_timestamp,
                matches,
            },
            Lang::En,
        ) => format!(
            "segment {base_offset}: largest timestamp {largest_timestamp} {}",
            if *matches {
                "reaches the target: search here"
            } else {
                "is before the target: next"
            }
        ),
        (
            LookupStep::SegmentTimestampCheck {
                base_offset,
                largest_timestamp,
                matches,
            },
            Lang::Zh,
        ) => format!(
            "日志段 {base_offset}：最大时间戳 {largest_timestamp}{}",
            if *matches {
                "，已达到目标，在此查找"
            } else {
                "，早于目标，看下一个"
            }
        ),
        (
            LookupStep::SegmentChosen {
                base_offset,
                index_entries,
                ..
            },
            Lang::En,
        ) => format!(
            "chose segment {:020} ({index_entries} index entries)",
            base_offset
        ),
        (
            LookupStep::SegmentChosen {
                base_offset,
                index_entries,
                ..
            },
            Lang::Zh,
        ) => format!(
            "选定 日志段 {:020}（索引有 {index_entries} 项）",
            base_offset
        ),
        (LookupStep::IndexProbe { kind, probe }, Lang::En) => format!(
            "{} {} slot {}: {} → {} ({})",
            if *kind == crate::storage::index::IndexKind::Offset {
                ".index"
            } else {
                ".timeindex"
            },
            probe_role(probe.role, Lang::En),
            probe.entry.slot,
            probe.entry.key,
            probe.entry.value,
            match probe.cmp {
                1 => "above the target",
                -1 => "below the target",
                _ => "equal to the target",
            }
        ),
        (LookupStep::IndexProbe { kind, probe }, Lang::Zh) => format!(
            "{} {}查看第 {} 项：{} → {}（{}）",
            if *kind == crate::storage::index::IndexKind::Offset {
                ".index"
            } else {
                ".timeindex"
            },
            probe_role(probe.role, Lang::Zh),
            probe.entry.slot,
            probe.entry.key,
            probe.entry.value,
            match probe.cmp {
                1 => "大于目标",
                -1 => "小于目标",
                _ => "等于目标",
            }
        ),
        (
            LookupStep::IndexResult {
                entry,
                start_position,
                ..
            },
            Lang::En,
        ) => match entry {
            Some(e) => format!(
                "largest entry not above the target: {} → {}; scan from position {start_position}",
                e.key, e.value
            ),
            None => format!("no index entry is small enough: scan from position {start_position}"),
        },
        (
            LookupStep::IndexResult {
                entry,
                start_position,
                ..
            },
            Lang::Zh,
        ) => match entry {
            Some(e) => format!(
                "不大于目标的最大索引项：{} → {}；从位置 {start_position} 开始扫描",
                e.key, e.value
            ),
            None => format!("没有足够小的索引项：从位置 {start_position} 开始扫描"),
        },
        (
            LookupStep::BatchScanned {
                position,
                base_offset,
                last_offset,
                hit,
                ..
            },
            Lang::En,
        ) => format!(
            "scanned batch at position {position}: offsets {base_offset}–{last_offset}{}",
            if *hit { " — found it" } else { "" }
        ),
        (
            LookupStep::BatchScanned {
                position,
                base_offset,
                last_offset,
                hit,
                ..
            },
            Lang::Zh,
        ) => format!(
            "扫描位置 {position} 的批次：位移 {base_offset}–{last_offset}{}",
            if *hit { "，找到了" } else { "" }
        ),
        (
            LookupStep::Found {
                offset, position, ..
            },
            Lang::En,
        ) => format!("found offset {offset} in the batch at position {position}"),
        (
            LookupStep::Found {
                offset, position, ..
            },
            Lang::Zh,
        ) => format!("在位置 {position} 的批次中找到位移 {offset}"),
        (LookupStep::NotFound { reason }, Lang::En) => format!("not found: {reason}"),
        (LookupStep::NotFound { reason }, Lang::Zh) => format!("未找到：{reason}"),
    }
}

impl Event {
    /// The event's caption in `lang`.
    pub fn caption(&self, lang: Lang) -> String {
        self.kind.caption(lang)
    }
}

impl EventKind {
    /// The event's caption in `l`; in 中文, with the English phrases it
    /// carries (reasons, request summaries) translated ([`zh::translate`]).
    pub fn caption(&self, l: Lang) -> String {
        match l {
            Lang::En => self.caption_words(l),
            Lang::Zh => zh::translate(&self.caption_words(l)),
        }
    }

    fn caption_words(&self, l: Lang) -> String {
        use EventKind::*;
        let en = l == Lang::En;
        match self {
            // A command of the scenario's script: the page captions the
            // learner's own commands as theirs (it knows which it added).
            CommandIssued { command, .. } => {
                if en {
                    format!("Scenario: {}", command_text(command, l))
                } else {
                    format!("场景：{}", command_text(command, l))
                }
            }
            CommandRejected { reason, .. } => {
                if en {
                    format!("Command not carried out: {reason}")
                } else {
                    format!("命令未执行：{reason}")
                }
            }
            BrokerStarted {
                broker,
                incarnation,
                recovered_logs,
            } => {
                if en {
                    if *incarnation > 1 {
                        format!("Broker {broker} restarted and recovered {recovered_logs} partition logs from disk")
                    } else {
                        format!("Broker {broker} started")
                    }
                } else if *incarnation > 1 {
                    format!("Broker {broker} 重启，从磁盘恢复了 {recovered_logs} 个分区日志")
                } else {
                    format!("Broker {broker} 启动")
                }
            }
            BrokerStopped { broker, controlled } => match (en, controlled) {
                (true, true) => {
                    format!("Broker {broker} finished its controlled shutdown and stopped")
                }
                (true, false) => {
                    format!("Broker {broker} crashed (its memory is lost; its disk survives)")
                }
                (false, true) => format!("Broker {broker} 完成受控关闭并停止"),
                (false, false) => format!("Broker {broker} 宕机（内存状态丢失，磁盘数据保留）"),
            },
            ZkSessionOpened { broker, session_id } => {
                if en {
                    format!("Broker {broker} opened ZooKeeper session 0x{session_id:x}")
                } else {
                    format!("Broker {broker} 建立了 ZooKeeper 会话 0x{session_id:x}")
                }
            }
            ZkSessionExpired {
                broker, timeout_ms, ..
            } => {
                if en {
                    format!("ZooKeeper expired broker {broker}'s session: no heartbeat for zookeeper.session.timeout.ms={timeout_ms}")
                } else {
                    format!("ZooKeeper 判定 broker {broker} 的会话过期（{timeout_ms} ms 没有心跳）")
                }
            }
            ZnodeCreated {
                path,
                data,
                ephemeral_owner,
                by,
            } => {
                let eph = ephemeral_owner.is_some();
                let data = znode::summary(path, data, l);
                if en {
                    format!(
                        "{} created {}{path}: {data}",
                        cap(&node(by, l)),
                        if eph { "ephemeral " } else { "" }
                    )
                } else {
                    format!(
                        "{} 创建{}节点 {path}：{data}",
                        node(by, l),
                        if eph { "临时" } else { "" }
                    )
                }
            }
            ZnodeUpdated {
                path,
                data,
                version,
                by,
            } => {
                let data = znode::summary(path, data, l);
                if en {
                    format!(
                        "{} wrote {path} (znode version {version}): {data}",
                        cap(&node(by, l))
                    )
                } else {
                    format!(
                        "{} 写入 {path}（znode 版本 {version}）：{data}",
                        node(by, l)
                    )
                }
            }
            ZnodeDeleted { path, by } => {
                if en {
                    format!("{} deleted {path}", cap(&node(by, l)))
                } else {
                    format!("{} 删除了 {path}", node(by, l))
                }
            }
            ZnodeExists { path, by, holder } => {
                let holder = znode::summary(path, holder, l);
                if en {
                    format!(
                        "{} found {path} already exists ({holder})",
                        cap(&node(by, l))
                    )
                } else {
                    format!("{} 发现 {path} 已存在（{holder}）", node(by, l))
                }
            }
            WatchFired {
                watcher,
                path,
                change,
            } => {
                if en {
                    format!(
                        "Broker {watcher}'s ZooKeeper watch fired: {path} {}",
                        change_en(*change)
                    )
                } else {
                    format!(
                        "Broker {watcher} 的 ZooKeeper 监听触发：{path} {}",
                        change_zh(*change)
                    )
                }
            }
            ControllerElected { broker, epoch } => {
                if en {
                    format!("Broker {broker} won /controller and became the controller (controller epoch {epoch})")
                } else {
                    format!("Broker {broker} 抢到 /controller，成为控制器（控制器纪元 {epoch}）")
                }
            }
            ControllerLoaded {
                broker,
                live_brokers,
                partitions,
                ..
            } => {
                if en {
                    format!("Controller {broker} loaded the cluster from ZooKeeper: live brokers {}, {partitions} partitions", ids_list(live_brokers))
                } else {
                    format!("控制器 {broker} 从 ZooKeeper 读取集群状态：存活 broker {}，共 {partitions} 个分区", ids_list(live_brokers))
                }
            }
            ControllerMoved {
                broker,
                new_controller,
            } => {
                if en {
                    format!("Broker {broker} is no longer the controller (now: {new_controller})")
                } else {
                    format!("Broker {broker} 不再是控制器（当前：{new_controller}）")
                }
            }
            StaleControllerIgnored {
                broker,
                request_epoch,
                known_epoch,
            } => {
                if en {
                    format!("Broker {broker} ignored a request from an old controller (epoch {request_epoch} < {known_epoch}): fencing")
                } else {
                    format!("Broker {broker} 忽略了旧控制器的请求（epoch {request_epoch} < {known_epoch}）：隔离过期控制器")
                }
            }
            BrokerChangeNoticed {
                controller,
                added,
                removed,
                bounced,
            } => {
                let b_en = if bounced.is_empty() {
                    String::new()
                } else {
                    format!(", restarted in between {} (a newer broker epoch: handled as a failure and a startup)", ids_list(bounced))
                };
                let b_zh = if bounced.is_empty() {
                    String::new()
                } else {
                    format!(
                        "，期间重启 {}（broker epoch 变新：按宕机再启动处理）",
                        ids_list(bounced)
                    )
                };
                if en {
                    format!(
                        "Controller {controller} saw /brokers/ids change: joined {}, left {}{b_en}",
                        ids_list(added),
                        ids_list(removed)
                    )
                } else {
                    format!(
                        "控制器 {controller} 发现 /brokers/ids 变化：加入 {}，离开 {}{b_zh}",
                        ids_list(added),
                        ids_list(removed)
                    )
                }
            }
            TopicCreated {
                topic,
                assignment,
                placement,
            } => {
                let a: Vec<String> = assignment
                    .iter()
                    .take(4)
                    .map(|(p, r)| format!("{p}:{}", ids_list(r)))
                    .collect();
                let more = if assignment.len() > 4 { " …" } else { "" };
                let how = match (placement, en) {
                    (Some(c), true) => format!(
                        " (placement start index {}, shift {})",
                        c.start_index, c.initial_shift
                    ),
                    (Some(c), false) => format!(
                        "（副本分配起始下标 {}，偏移 {}）",
                        c.start_index, c.initial_shift
                    ),
                    (None, true) => " (assignment given)".into(),
                    (None, false) => "（指定分配）".into(),
                };
                if en {
                    format!(
                        "Created topic {topic} with {} partitions: {}{more}{how}",
                        assignment.len(),
                        a.join(" ")
                    )
                } else {
                    format!(
                        "创建主题 {topic}，{} 个分区：{}{more}{how}",
                        assignment.len(),
                        a.join(" ")
                    )
                }
            }
            TopicCreationFailed { topic, error } => {
                if en {
                    format!("Creating topic {topic} failed: {error}")
                } else {
                    format!("创建主题 {topic} 失败：{error}")
                }
            }
            PartitionsAdded { topic, assignment } => {
                if en {
                    format!("Added {} partitions to {topic}", assignment.len())
                } else {
                    format!("为 {topic} 增加了 {} 个分区", assignment.len())
                }
            }
            LeaderElected {
                tp,
                algorithm,
                old_leader,
                leader,
                leader_epoch,
                isr,
                unclean,
                candidates,
            } => {
                let ar: Vec<BrokerIdLike> = candidates
                    .iter()
                    .map(|c| BrokerIdLike(c.broker.0))
                    .collect();
                let ar = format!(
                    "[{}]",
                    ar.iter()
                        .map(|b| b.0.to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                );
                let rule_en = match algorithm {
                    crate::election::ElectionAlgorithm::Offline => {
                        if *unclean {
                            "unclean: no live ISR member, so the first live replica"
                        } else {
                            "first live replica in AR order that is in the ISR"
                        }
                    }
                    crate::election::ElectionAlgorithm::Preferred => {
                        "preferred replica (first in AR)"
                    }
                    crate::election::ElectionAlgorithm::ControlledShutdown => {
                        "first ISR replica not shutting down"
                    }
                    crate::election::ElectionAlgorithm::Reassign => {
                        "first live ISR replica of the new assignment"
                    }
                };
                let rule_zh = match algorithm {
                    crate::election::ElectionAlgorithm::Offline => {
                        if *unclean {
                            "unclean 选举：ISR 中没有存活副本，选 AR 中第一个存活的"
                        } else {
                            "按 AR 顺序，第一个存活且在 ISR 中的副本"
                        }
                    }
                    crate::election::ElectionAlgorithm::Preferred => "优先副本（AR 的第一个）",
                    crate::election::ElectionAlgorithm::ControlledShutdown => {
                        "第一个不在关闭中的 ISR 副本"
                    }
                    crate::election::ElectionAlgorithm::Reassign => "新分配中第一个存活的 ISR 副本",
                };
                let was = if *old_leader >= 0 {
                    format!("{old_leader}")
                } else if en {
                    "none".into()
                } else {
                    "无".into()
                };
                if en {
                    format!("{tp}: leader {was} → {leader} (leader epoch {leader_epoch}, ISR {}); rule: {rule_en}, AR {ar}", ids_list(isr))
                } else {
                    format!("{tp}：leader {was} → {leader}（leader epoch {leader_epoch}，ISR {}）；规则：{rule_zh}，AR {ar}", ids_list(isr))
                }
            }
            // What a failed election means depends on why it was held: only
            // the offline election leaves the partition without a leader.
            NoLeaderElected {
                tp, isr, algorithm, ..
            } => {
                let isr = ids_list(isr);
                match (algorithm, en) {
                    (crate::election::ElectionAlgorithm::Offline, true) => format!("{tp} is offline: no live replica can lead (ISR {isr}; a replica outside the ISR only with unclean.leader.election.enable=true)"),
                    (crate::election::ElectionAlgorithm::Offline, false) => format!("{tp} 离线：没有可以当 leader 的存活副本（ISR {isr}；只有 unclean.leader.election.enable=true 才能选 ISR 之外的副本）"),
                    (crate::election::ElectionAlgorithm::ControlledShutdown, true) => format!("{tp}: no other ISR member can take over from the broker shutting down (ISR {isr}); a controlled shutdown never picks a replica outside the ISR, so the current leader keeps {tp} until it stops"),
                    (crate::election::ElectionAlgorithm::ControlledShutdown, false) => format!("{tp}：没有其他 ISR 成员能接替正在关闭的 broker（ISR {isr}）；受控关闭从不选 ISR 之外的副本，所以当前 leader 会一直负责 {tp} 直到它停止"),
                    (_, true) => format!("{tp}: the replica asked for cannot lead now (ISR {isr}); the current leader stays"),
                    (_, false) => format!("{tp}：所要求的副本现在不能当 leader（ISR {isr}）；当前 leader 不变"),
                }
            }
            IsrUpdatedByController {
                tp,
                old_isr,
                new_isr,
                leader_epoch,
                reason,
                ..
            } => {
                if en {
                    format!(
                        "Controller set {tp} ISR {} → {} (leader epoch {leader_epoch}): {reason}",
                        ids_list(old_isr),
                        ids_list(new_isr)
                    )
                } else {
                    format!(
                        "控制器将 {tp} 的 ISR {} → {}（leader epoch {leader_epoch}）：{reason}",
                        ids_list(old_isr),
                        ids_list(new_isr)
                    )
                }
            }
            ReassignmentStarted {
                tp,
                original,
                target,
                adding,
                removing,
            } => {
                if en {
                    format!("Controller started reassigning {tp}: {} → {} (adding {}, removing {}); the new replicas catch up first", ids_list(original), ids_list(target), ids_list(adding), ids_list(removing))
                } else {
                    format!(
                        "控制器开始重新分配 {tp}：{} → {}（新增 {}，移除 {}）；新副本先追上数据",
                        ids_list(original),
                        ids_list(target),
                        ids_list(adding),
                        ids_list(removing)
                    )
                }
            }
            ReassignmentCompleted {
                tp,
                replicas,
                removed,
            } => {
                if en {
                    format!(
                        "Reassignment of {tp} completed: replicas {}; removed {}",
                        ids_list(replicas),
                        ids_list(removed)
                    )
                } else {
                    format!(
                        "{tp} 重新分配完成：副本 {}；已移除 {}",
                        ids_list(replicas),
                        ids_list(removed)
                    )
                }
            }
            PreferredLeaderImbalance {
                broker,
                imbalanced,
                total,
                percentage,
                ..
            } => {
                if en {
                    format!("Leader imbalance on broker {broker}: it leads none of {imbalanced} of its {total} preferred partitions (over leader.imbalance.per.broker.percentage={percentage}%)")
                } else {
                    format!("Broker {broker} leader 不均衡：{total} 个优先分区中有 {imbalanced} 个不由它领导（超过 {percentage}%）")
                }
            }
            MessageSent {
                from, to, message, ..
            } => {
                if en {
                    format!(
                        "{} → {}: {}",
                        cap(&node(from, l)),
                        node(to, l),
                        message.summary()
                    )
                } else {
                    format!("{} → {}：{}", node(from, l), node(to, l), message.summary())
                }
            }
            ConnectionClosed {
                node: n,
                peer,
                requests_failed,
            } => {
                if en {
                    format!("{}'s connection to broker {peer} was reset: {requests_failed} request(s) in flight failed and will be retried", cap(&node(n, l)))
                } else {
                    format!("{} 与 broker {peer} 的连接被重置：{requests_failed} 个在途请求失败，将重试", node(n, l))
                }
            }
            ReconnectBackoff {
                node: n,
                peer,
                failures,
                backoff_ms,
            } => {
                if en {
                    format!("{} cannot reach broker {peer} (failure {failures} in a row); it waits {backoff_ms} ms before connecting again (reconnect.backoff.ms, doubling up to reconnect.backoff.max.ms)", cap(&node(n, l)))
                } else {
                    format!("{} 连不上 broker {peer}（连续第 {failures} 次）；等待 {backoff_ms} ms 后再连（reconnect.backoff.ms，翻倍直至 reconnect.backoff.max.ms）", node(n, l))
                }
            }
            MessageDropped {
                from,
                to,
                api,
                reason,
                ..
            } => {
                let why_en = match reason {
                    DropReason::LinkCut => "the link is cut",
                    DropReason::DestinationDown => "the destination is down",
                    DropReason::ConnectionReset => "the destination restarted (connection reset)",
                };
                let why_zh = match reason {
                    DropReason::LinkCut => "链路已断开",
                    DropReason::DestinationDown => "目标节点已宕机",
                    DropReason::ConnectionReset => "目标节点已重启（连接被重置）",
                };
                if en {
                    format!(
                        "{api} from {} to {} was lost: {why_en}",
                        node(from, l),
                        node(to, l)
                    )
                } else {
                    format!(
                        "{} 发往 {} 的 {api} 丢失：{why_zh}",
                        node(from, l),
                        node(to, l)
                    )
                }
            }
            LinkChanged {
                a,
                b,
                cut,
                extra_latency_ms,
            } => {
                if en {
                    if *cut {
                        format!("The link {}–{} is cut", node(a, l), node(b, l))
                    } else if *extra_latency_ms > 0 {
                        format!(
                            "The link {}–{} is slow: +{extra_latency_ms} ms",
                            node(a, l),
                            node(b, l)
                        )
                    } else {
                        format!("The link {}–{} is healthy", node(a, l), node(b, l))
                    }
                } else if *cut {
                    format!("{} 与 {} 之间的链路断开", node(a, l), node(b, l))
                } else if *extra_latency_ms > 0 {
                    format!(
                        "{} 与 {} 之间的链路变慢：+{extra_latency_ms} ms",
                        node(a, l),
                        node(b, l)
                    )
                } else {
                    format!("{} 与 {} 之间的链路恢复正常", node(a, l), node(b, l))
                }
            }
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
                if en {
                    format!("Broker {broker} became a follower of {tp}, fetching from leader {leader} (epoch {leader_epoch}, LEO {log_end_offset}, HW {high_watermark})")
                } else {
                    format!("Broker {broker} 成为 {tp} 的 follower，从 leader {leader} 拉取（epoch {leader_epoch}，LEO {log_end_offset}，HW {high_watermark}）")
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
                    (crate::storage::log::RollReason::OffsetIndexFull, true) => {
                        "its .index is full"
                    }
                    (crate::storage::log::RollReason::TimeIndexFull, true) => {
                        "its .timeindex is full"
                    }
                    (crate::storage::log::RollReason::RelativeOffsetOverflow, true) => {
                        "offsets would overflow 4 bytes"
                    }
                    (crate::storage::log::RollReason::Retention, true) => {
                        "retention deletes every segment"
                    }
                    (crate::storage::log::RollReason::SegmentBytes, false) => {
                        "将超过 segment.bytes"
                    }
                    (crate::storage::log::RollReason::SegmentMs, false) => "已超过 segment.ms",
                    (crate::storage::log::RollReason::OffsetIndexFull, false) => ".index 已满",
                    (crate::storage::log::RollReason::TimeIndexFull, false) => ".timeindex 已满",
                    (crate::storage::log::RollReason::RelativeOffsetOverflow, false) => {
                        "相对位移 将溢出 4 字节"
                    }
                    (crate::storage::log::RollReason::Retention, false) => {
                        "清理策略要删除全部日志段"
                    }
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
                    format!("Leader {broker} asks the controller to change {tp}'s ISR {} → {}: {reason}", ids_list(old_isr), ids_list(new_isr))
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
                    format!("Leader {broker} now has ISR {} for {tp} (partition epoch {partition_epoch})", ids_list(isr))
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
                    format!("Broker {broker} wrote replication-offset-checkpoint ({partitions} partitions)")
                } else {
                    format!(
                        "Broker {broker} 写入 replication-offset-checkpoint（{partitions} 个分区）"
                    )
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
                    format!("Broker {broker} holds the acks=all answer for {tp} until the high watermark reaches {required_offset} (ISR {})", ids_list(isr))
                } else {
                    format!("Broker {broker} 暂不回复 {tp} 的 acks=all 请求，等 HW 到达 {required_offset}（ISR {}）", ids_list(isr))
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
                    format!("Broker {broker} 暂无新数据给 {}：把 fetch 挂起最多 {max_wait_ms} ms（长轮询）", node(from, l))
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
            SegmentsDeleted {
                broker,
                tp,
                applied,
            } => {
                let bases: Vec<String> = applied
                    .deleted
                    .iter()
                    .map(|d| d.base_offset.to_string())
                    .collect();
                if en {
                    format!("Broker {broker} deleted segment(s) {} of {tp} ({}); log start offset is now {}", bases.join(", "), applied.detail, applied.log_start_offset)
                } else {
                    format!(
                        "Broker {broker} 删除了 {tp} 的 日志段 {}（{}）；日志起始位移变为 {}",
                        bases.join(", "),
                        applied.detail,
                        applied.log_start_offset
                    )
                }
            }
            FilesDeleted { broker, files } => {
                if en {
                    format!(
                        "Broker {broker} removed {} .deleted file(s) after file.delete.delay.ms",
                        files.len()
                    )
                } else {
                    format!(
                        "Broker {broker} 在 file.delete.delay.ms 之后删除了 {} 个 .deleted 文件",
                        files.len()
                    )
                }
            }
            LogCleaned { broker, tp, result } => {
                let before: u64 = result.groups.iter().map(|g| g.records_before).sum();
                let after: u64 = result.groups.iter().map(|g| g.records_after).sum();
                if en {
                    format!("Broker {broker}'s log cleaner compacted {tp}: {before} records → {after} (latest value per key kept), dirty ratio {}%", result.cleanable.dirty_ratio.0 / 10_000)
                } else {
                    format!("Broker {broker} 的 日志清理器 压缩了 {tp}：{before} 条 → {after} 条（每个 key 保留最新值），脏数据比例 {}%", result.cleanable.dirty_ratio.0 / 10_000)
                }
            }
            CleanerSkipped {
                broker,
                tp,
                dirty_ratio_ppm,
                min_ratio_ppm,
            } => {
                if en {
                    format!("Broker {broker} left {tp} alone: dirty ratio {}‰ below min.cleanable.dirty.ratio {}‰", dirty_ratio_ppm / 1000, min_ratio_ppm / 1000)
                } else {
                    format!(
                        "Broker {broker} 暂不清理 {tp}：脏数据比例 {}‰ 低于 {}‰",
                        dirty_ratio_ppm / 1000,
                        min_ratio_ppm / 1000
                    )
                }
            }
            LookupStepped {
                broker,
                tp,
                target,
                step,
            } => {
                if en {
                    format!(
                        "Lookup of {target} in broker {broker}'s {tp}: {}",
                        lookup_step(step, l)
                    )
                } else {
                    format!(
                        "在 broker {broker} 的 {tp} 中查找 {target}：{}",
                        lookup_step(step, l)
                    )
                }
            }
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
                        None => format!(
                            "没有 key：粘性分区（已发送 {produced_bytes}/{batch_size} 字节）"
                        ),
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
                        "Producer {producer}: record #{record} joined {} batch {batch} for {tp} ({batch_records} records, {batch_bytes}/{batch_size} bytes; buffer {buffer_used}/{buffer_memory})",
                        if *new_batch { "new" } else { "open" }
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
                    format!("生产者 {producer}：第 {record} 条已发往 {tp}（acks=0：不等待应答，位移未知）")
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
                    format!("生产者 {producer}：{call} 强制关闭。Sender 停止：{batches} 个尚未得到响应的批次（{records} 条消息）以 “Producer is closed forcefully” 失败，其中 {in_flight} 个已在途（broker 仍可能追加它们，而应用得到的是失败）")
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
                        format!(
                            "协调者 {broker}：{group} 没有成员了；第 {generation} 代，状态 Empty"
                        )
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
                    format!("协调者 {broker}：拒绝 {member_id} 对 {group} 的位移提交，错误 {}：{detail}", error.name())
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
                            "，未发送 LeaveGroup（静态成员：会话在 session.timeout.ms 内保留其位置）".to_string()
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
                    format!("Consumer {consumer} commits {} ({kind}, generation {generation}): {reason}", offsets_text(offsets))
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
            GuaranteeBroken {
                guarantee,
                tp,
                detail,
            } => {
                let tp = tp.as_ref().map(|t| format!(" ({t})")).unwrap_or_default();
                if en {
                    format!(
                        "⚠ Guarantee broken — {}{tp}: {detail}",
                        guarantee_name(*guarantee, l)
                    )
                } else {
                    format!(
                        "⚠ 保证被打破 —— {}{tp}：{detail}",
                        guarantee_name(*guarantee, l)
                    )
                }
            }
        }
    }
}

struct BrokerIdLike(i32);

fn tp_names(tps: &[crate::ids::TopicPartition]) -> String {
    let v: Vec<String> = tps.iter().map(|t| t.to_string()).collect();
    format!("[{}]", v.join(", "))
}

fn offsets_text(o: &[(crate::ids::TopicPartition, i64)]) -> String {
    let v: Vec<String> = o.iter().map(|(t, x)| format!("{t}@{x}")).collect();
    v.join(", ")
}

fn cap(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn change_en(c: crate::msg::ZkChange) -> &'static str {
    match c {
        crate::msg::ZkChange::Created => "was created",
        crate::msg::ZkChange::Deleted => "was deleted",
        crate::msg::ZkChange::DataChanged => "changed",
        crate::msg::ZkChange::ChildrenChanged => "children changed",
    }
}

fn change_zh(c: crate::msg::ZkChange) -> &'static str {
    match c {
        crate::msg::ZkChange::Created => "被创建",
        crate::msg::ZkChange::Deleted => "被删除",
        crate::msg::ZkChange::DataChanged => "数据变化",
        crate::msg::ZkChange::ChildrenChanged => "子节点变化",
    }
}

/// A command in words (for `CommandIssued`).
pub fn command_text(c: &crate::scenario::Command, l: Lang) -> String {
    use crate::scenario::Command::*;
    let en = l == Lang::En;
    match c {
        Produce {
            producer,
            topic,
            key,
            value,
            partition,
            count,
        } => {
            let n = count.unwrap_or(1);
            let p = partition
                .map(|p| {
                    if en {
                        format!(", partition {p}")
                    } else {
                        format!("，分区 {p}")
                    }
                })
                .unwrap_or_default();
            if en {
                format!(
                    "{producer}.send({topic}, key {}, value {}{p}){}",
                    opt(key),
                    opt(value),
                    if n > 1 {
                        format!(" ×{n}")
                    } else {
                        String::new()
                    }
                )
            } else {
                format!(
                    "{producer}.send({topic}，key {}，value {}{p}){}",
                    opt(key),
                    opt(value),
                    if n > 1 {
                        format!(" ×{n}")
                    } else {
                        String::new()
                    }
                )
            }
        }
        KillBroker {
            broker,
            power_failure,
        } => match (en, power_failure) {
            (true, false) => format!("kill broker {broker}"),
            (true, true) => format!("cut the power of broker {broker}"),
            (false, false) => format!("强制停止 broker {broker}"),
            (false, true) => format!("broker {broker} 断电"),
        },
        ShutdownBroker { broker } => {
            if en {
                format!("shut broker {broker} down (controlled)")
            } else {
                format!("受控关闭 broker {broker}")
            }
        }
        RestartBroker { broker } => {
            if en {
                format!("restart broker {broker}")
            } else {
                format!("重启 broker {broker}")
            }
        }
        CutLink { a, b } => {
            if en {
                format!("cut the link {}–{}", node(a, l), node(b, l))
            } else {
                format!("断开 {} 与 {} 之间的链路", node(a, l), node(b, l))
            }
        }
        HealLink { a, b } => {
            if en {
                format!("heal the link {}–{}", node(a, l), node(b, l))
            } else {
                format!("恢复 {} 与 {} 之间的链路", node(a, l), node(b, l))
            }
        }
        SlowLink {
            a,
            b,
            extra_latency_ms,
        } => {
            if en {
                format!("slow the link {a}–{b} by {extra_latency_ms} ms")
            } else {
                format!("让 {a}–{b} 链路变慢 {extra_latency_ms} ms")
            }
        }
        CreateTopic { topic } => {
            if en {
                format!("create topic {}", topic.name)
            } else {
                format!("创建主题 {}", topic.name)
            }
        }
        AddPartitions { topic, partitions } => {
            if en {
                format!("raise {topic} to {partitions} partitions")
            } else {
                format!("把 {topic} 扩到 {partitions} 个分区")
            }
        }
        ElectPreferredLeaders { .. } => {
            if en {
                "run a preferred leader election".into()
            } else {
                "执行优先副本选举".into()
            }
        }
        Reassign {
            topic,
            partition,
            replicas,
        } => {
            if en {
                format!("reassign {topic}-{partition} to {replicas:?}")
            } else {
                format!("把 {topic}-{partition} 重新分配到 {replicas:?}")
            }
        }
        Lookup {
            broker,
            topic,
            partition,
            offset,
            timestamp,
        } => match (offset, timestamp, en) {
            (Some(o), _, true) => {
                format!("look up offset {o} in {topic}-{partition} on broker {broker}")
            }
            (Some(o), _, false) => {
                format!("在 broker {broker} 的 {topic}-{partition} 中查找位移 {o}")
            }
            (_, Some(t), true) => {
                format!("look up timestamp {t} in {topic}-{partition} on broker {broker}")
            }
            (_, Some(t), false) => {
                format!("在 broker {broker} 的 {topic}-{partition} 中查找时间戳 {t}")
            }
            // The scenario check refuses a lookup with neither.
            (None, None, true) => format!("look up in {topic}-{partition} on broker {broker}"),
            (None, None, false) => format!("在 broker {broker} 的 {topic}-{partition} 中查找"),
        },
        AddProducer { producer } => {
            if en {
                format!("start producer {}", producer.name)
            } else {
                format!("启动生产者 {}", producer.name)
            }
        }
        CloseProducer {
            producer,
            timeout_ms: None,
        } => format!("{producer}.close()"),
        CloseProducer {
            producer,
            timeout_ms: Some(0),
        } => format!("{producer}.close(Duration.ZERO)"),
        CloseProducer {
            producer,
            timeout_ms: Some(t),
        } => format!("{producer}.close(Duration.ofMillis({t}))"),
        AddConsumer { consumer } => {
            if en {
                format!("start consumer {}", consumer.name)
            } else {
                format!("启动消费者 {}", consumer.name)
            }
        }
        StopConsumer { consumer } => {
            if en {
                format!("close consumer {consumer}")
            } else {
                format!("关闭消费者 {consumer}")
            }
        }
        CrashConsumer { consumer } => {
            if en {
                format!("crash consumer {consumer}")
            } else {
                format!("让消费者 {consumer} 崩溃")
            }
        }
        CommitSync { consumer } => format!("{consumer}.commitSync()"),
        CommitAsync { consumer } => format!("{consumer}.commitAsync()"),
        PauseConsumer {
            consumer,
            duration_ms,
        } => {
            if en {
                format!("{consumer} stops polling for {duration_ms} ms")
            } else {
                format!("{consumer} 停止 poll {duration_ms} ms")
            }
        }
    }
}
