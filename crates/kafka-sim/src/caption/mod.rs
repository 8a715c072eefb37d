//! Plain-language captions for events, in English and 简体中文.
//!
//! A caption is derived from the event's facts only, so it can never disagree
//! with them. The UI and the CLI both use these.

use crate::event::{ids_list, DropReason, Event, EventKind, Guarantee, TruncateReason};
use crate::ids::NodeId;
use crate::msg::acks_name;
use crate::storage::log::LookupStep;
use serde::{Deserialize, Serialize};

mod cluster;
mod consumer;
mod kraft;
pub use kraft::record_text;
mod network;
mod producer;
mod replication;
mod storage;
mod txn;
pub use storage::lookup_step;
pub mod zh;
mod znode;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
/// The language of captions and page words.
pub enum Lang {
    #[default]
    /// English.
    En,
    /// 简体中文 (Simplified Chinese).
    Zh,
}

fn node(n: &NodeId, l: Lang) -> String {
    match (l, n) {
        (Lang::En, NodeId::Broker(b)) => format!("broker {b}"),
        (Lang::Zh, NodeId::Broker(b)) => format!("broker {b}"),
        (Lang::En, NodeId::Controller(c)) => format!("controller {c}"),
        (Lang::Zh, NodeId::Controller(c)) => format!("控制器 {c}"),
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
        (Guarantee::ReadCommittedIsolation, Lang::En) => {
            "read_committed sees only committed transactions"
        }
        (Guarantee::ReadCommittedIsolation, Lang::Zh) => "read_committed 只读到已提交的事务",
        (Guarantee::ExactlyOncePipeline, Lang::En) => {
            "a read-process-write pipeline copies each record exactly once"
        }
        (Guarantee::ExactlyOncePipeline, Lang::Zh) => "读-处理-写流水线对每条消息精确一次",
        (Guarantee::OneQuorumLeaderPerEpoch, Lang::En) => "one quorum leader per epoch",
        (Guarantee::OneQuorumLeaderPerEpoch, Lang::Zh) => "每个 epoch 只有一个 quorum leader",
        (Guarantee::CommittedMetadataSurvives, Lang::En) => "committed metadata records survive",
        (Guarantee::CommittedMetadataSurvives, Lang::Zh) => "已提交的元数据记录不丢失",
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
        // Which file captions which event (the match keeps it exhaustive).
        let words = match self {
            CommandIssued { .. }
            | CommandRejected { .. }
            | BrokerStarted { .. }
            | BrokerStopped { .. }
            | ControlledShutdownRetried { .. }
            | ControlledShutdownGaveUp { .. }
            | ZkSessionOpened { .. }
            | ZkSessionExpired { .. }
            | ZnodeCreated { .. }
            | ZnodeUpdated { .. }
            | ZnodeDeleted { .. }
            | ZnodeExists { .. }
            | BrokerRegistrationFailed { .. }
            | WatchFired { .. }
            | ControllerElected { .. }
            | ControllerLoaded { .. }
            | ControllerMoved { .. }
            | StaleControllerIgnored { .. }
            | BrokerChangeNoticed { .. }
            | TopicCreated { .. }
            | TopicCreationFailed { .. }
            | PartitionsAdded { .. }
            | LeaderElected { .. }
            | NoLeaderElected { .. }
            | IsrUpdatedByController { .. }
            | ReassignmentStarted { .. }
            | ReassignmentCompleted { .. }
            | PreferredLeaderImbalance { .. } => cluster::words(self, l),
            MessageSent { .. }
            | ConnectionClosed { .. }
            | ReconnectBackoff { .. }
            | MessageDropped { .. }
            | LinkChanged { .. } => network::words(self, l),
            BecameLeader { .. }
            | BecameFollower { .. }
            | ReplicaStopped { .. }
            | LogCreated { .. }
            | LogTruncated { .. }
            | BatchAppended { .. }
            | AppendRejected { .. }
            | SegmentRolled { .. }
            | FollowerFetchRecorded { .. }
            | HighWatermarkUpdated { .. }
            | HighWatermarkHeld { .. }
            | IsrChangeProposed { .. }
            | IsrChangeApplied { .. }
            | IsrChangeRejected { .. }
            | LogFlushed { .. }
            | HighWatermarkCheckpointed { .. }
            | DivergenceDetected { .. }
            | DuplicateAcknowledged { .. }
            | ProduceRejected { .. }
            | ProduceCompleted { .. }
            | ProduceParked { .. }
            | ProduceTimedOut { .. }
            | FetchParked { .. }
            | PreferredReadReplicaChosen { .. }
            | PreferredReadReplicaCleared { .. }
            | FetchRejected { .. } => replication::words(self, l),
            SegmentsDeleted { .. }
            | FilesDeleted { .. }
            | LogCleaned { .. }
            | CleanerSkipped { .. }
            | LookupStepped { .. } => storage::words(self, l),
            MetadataUpdated { .. }
            | ProducerIdAssigned { .. }
            | RecordIntercepted { .. }
            | RecordSerialized { .. }
            | RecordPartitioned { .. }
            | ProducerBlocked { .. }
            | RecordAccumulated { .. }
            | BatchesDrained { .. }
            | RecordAcknowledged { .. }
            | RecordFailed { .. }
            | ProduceRetried { .. }
            | InterceptorAcknowledged { .. }
            | ProducerClosing { .. }
            | ProducerForceClosed { .. }
            | ProducerClosed { .. } => producer::words(self, l),
            RecordsConsumed { .. }
            | RecordsProcessed { .. }
            | ConsumerPositionReset { .. }
            | GroupsLoaded { .. }
            | GroupsUnloaded { .. }
            | MemberIdAssigned { .. }
            | MemberJoining { .. }
            | StaticMemberReplaced { .. }
            | RebalanceStarted { .. }
            | GenerationStarted { .. }
            | MemberRemoved { .. }
            | GroupStable { .. }
            | OffsetsCommitted { .. }
            | OffsetCommitRejected { .. }
            | CoordinatorFound { .. }
            | CoordinatorLost { .. }
            | JoinedGroup { .. }
            | AssignmentComputed { .. }
            | PartitionsRevoked { .. }
            | PartitionsAssigned { .. }
            | RejoinRequested { .. }
            | LeftGroup { .. }
            | OffsetCommitSent { .. }
            | OffsetCommitFailed { .. } => consumer::words(self, l),
            TxnsLoaded { .. }
            | TxnStateChanged { .. }
            | TxnMarkerWritten { .. }
            | TxnOffsetsCompleted { .. }
            | TxnCoordinatorFound { .. }
            | ProducerTxnStateChanged { .. }
            | TxnVerificationStarted { .. }
            | ProduceVerificationFailed { .. } => txn::words(self, l),
            QuorumStateChanged { .. }
            | MetadataAppended { .. }
            | MetadataTruncated { .. }
            | QuorumCommitted { .. }
            | BrokerLifecycleChanged { .. }
            | ControllerStarted { .. }
            | ControllerStopped { .. } => kraft::words(self, l),
            GuaranteeBroken {
                guarantee,
                tp,
                detail,
            } => {
                let tp = tp.as_ref().map(|t| format!(" ({t})")).unwrap_or_default();
                Some(if en {
                    format!(
                        "⚠ Guarantee broken — {}{tp}: {detail}",
                        guarantee_name(*guarantee, l)
                    )
                } else {
                    format!(
                        "⚠ 保证被打破 —— {}{tp}：{detail}",
                        guarantee_name(*guarantee, l)
                    )
                })
            }
        };
        // Every file has an arm for each event routed to it (the caption
        // tests run every kind of event); the event's type is a last resort.
        words.unwrap_or_else(|| self.name_str().to_string())
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
        KillController { controller } => {
            if en {
                format!("kill controller {controller}")
            } else {
                format!("强制停止控制器 {controller}")
            }
        }
        ShutdownController { controller } => {
            if en {
                format!("shut controller {controller} down")
            } else {
                format!("正常关闭控制器 {controller}")
            }
        }
        RestartController { controller } => {
            if en {
                format!("restart controller {controller}")
            } else {
                format!("重启控制器 {controller}")
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
        InitTransactions { producer } => format!("{producer}.initTransactions()"),
        BeginTransaction { producer } => format!("{producer}.beginTransaction()"),
        CommitTransaction { producer } => format!("{producer}.commitTransaction()"),
        AbortTransaction { producer } => format!("{producer}.abortTransaction()"),
        SendOffsetsToTransaction { producer, consumer } => {
            format!("{producer}.sendOffsetsToTransaction({consumer}.positions, {consumer}.groupMetadata())")
        }
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
