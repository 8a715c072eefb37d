//! A broker's metrics (Yammer, per broker process), the controller's among
//! them (every broker runs a `KafkaController`; only the active one reports
//! non-zero values).
//!
//! Kafka 3.9 code followed:
//! * `ReplicaManager.scala` lines 326-360 (the gauges and the ISR meters)
//!   and `Partition.scala` (`isUnderReplicated`, `isUnderMinIsr`,
//!   `isAtMinIsr`, lines 367-389; `PendingExpandIsr` / `PendingShrinkIsr.notifyListener`,
//!   lines 216-252: the ISR meters move when the controller's answer to an
//!   AlterPartition is applied, not when the controller itself removes a
//!   dead broker from the ISR).
//! * `ReplicaManager.appendToLocalLog`: `BytesInPerSec` and
//!   `MessagesInPerSec` for every leader append (`__consumer_offsets`
//!   included); `FailedProduceRequestsPerSec` for every error except
//!   `UNKNOWN_TOPIC_OR_PARTITION`, `NOT_LEADER_OR_FOLLOWER`,
//!   `MESSAGE_TOO_LARGE`, `RECORD_LIST_TOO_LARGE`, `CORRUPT_MESSAGE` and
//!   `KAFKA_STORAGE_ERROR` (so `NOT_ENOUGH_REPLICAS` counts).
//! * `ReplicaManager.readFromLocalLog`: `FailedFetchRequestsPerSec` only for
//!   unexpected errors; every fetch error the simulation produces is an
//!   expected one, so it stays at 0, as on a healthy cluster.
//! * `KafkaApis.handleFetchRequest` / `BrokerTopicStats.updateBytesOut`:
//!   `BytesOutPerSec` counts the records sent to consumers, not to
//!   followers.
//! * `ControllerContext.scala` (`offlinePartitionCount`,
//!   `updatePreferredReplicaImbalanceMetric`, lines 408-540) and
//!   `ControllerState.BrokerChange` (`LeaderElectionRateAndTimeMs`, timed
//!   per BrokerChange event); `PartitionStateMachine` line 537
//!   (`UncleanLeaderElectionsPerSec`).
//! * `RequestChannel.Request.updateRequestMetrics` (line 216): `TotalTimeMs` from the moment a
//!   request arrives to the moment its response is sent. acks=0 produce
//!   requests (no response) are left out.
//! * `UnifiedLog.scala` (`LogEndOffset`, `LogStartOffset`, `Size`,
//!   `NumLogSegments`, tagged `topic` and `partition`).

use super::stats::{Histogram, Meter};
use super::{find, push_histogram, push_meter, push_value, sent, Def, Kind, Reading};
use crate::collections::FastMap;
use crate::collections::SortedMap;
use crate::event::{Event, EventKind};
use crate::ids::{BrokerId, Millis, NodeId, TopicPartition};
use crate::msg::{ErrorCode, Message};
use crate::sim::World;
use std::sync::Arc;

const RM: &str = "Kafka 3.9 ReplicaManager.scala, lines 326-360";

/// The broker's and the controller's metrics.
pub const DEFS: &[Def] = &[
    Def {
        name: "UnderReplicatedPartitions",
        mbean: "kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions",
        kind: Kind::Gauge,
        meaning: "Partitions this broker leads whose ISR is smaller than their replica list. Above 0 means a follower is down or behind.",
        meaning_zh: "本 broker 作为 leader 的分区中，ISR 小于副本列表的个数。大于 0 说明有 follower 宕机或落后。",
        computed: "leader partitions whose ISR is smaller than the replication factor (during a reassignment, the original replicas: Partition.isUnderReplicated)",
        mirrors: RM,
    },
    Def {
        name: "UnderMinIsrPartitionCount",
        mbean: "kafka.server:type=ReplicaManager,name=UnderMinIsrPartitionCount",
        kind: Kind::Gauge,
        meaning: "Partitions this broker leads whose ISR is below min.insync.replicas: acks=all writes to them fail with NOT_ENOUGH_REPLICAS.",
        meaning_zh: "本 broker 作为 leader 的分区中，ISR 少于 min.insync.replicas 的个数：对它们的 acks=all 写入会以 NOT_ENOUGH_REPLICAS 失败。",
        computed: "leader partitions with isr.len() < effective min.insync.replicas",
        mirrors: RM,
    },
    Def {
        name: "AtMinIsrPartitionCount",
        mbean: "kafka.server:type=ReplicaManager,name=AtMinIsrPartitionCount",
        kind: Kind::Gauge,
        meaning: "Partitions this broker leads whose ISR is exactly min.insync.replicas: one more failure and acks=all writes stop.",
        meaning_zh: "本 broker 作为 leader 的分区中，ISR 恰好等于 min.insync.replicas 的个数：再坏一个副本，acks=all 写入就会停止。",
        computed: "leader partitions with isr.len() == effective min.insync.replicas",
        mirrors: RM,
    },
    Def {
        name: "LeaderCount",
        mbean: "kafka.server:type=ReplicaManager,name=LeaderCount",
        kind: Kind::Gauge,
        meaning: "Partitions this broker leads.",
        meaning_zh: "本 broker 作为 leader 的分区数。",
        computed: "partitions with is_leader",
        mirrors: RM,
    },
    Def {
        name: "PartitionCount",
        mbean: "kafka.server:type=ReplicaManager,name=PartitionCount",
        kind: Kind::Gauge,
        meaning: "Partitions this broker holds a replica of.",
        meaning_zh: "本 broker 持有副本的分区数。",
        computed: "partitions in the broker's ReplicaManager",
        mirrors: RM,
    },
    Def {
        name: "IsrShrinksPerSec",
        mbean: "kafka.server:type=ReplicaManager,name=IsrShrinksPerSec",
        kind: Kind::Meter,
        meaning: "ISR shrinks this leader made (a follower fell behind replica.lag.time.max.ms). A dead broker removed by the controller does not count here.",
        meaning_zh: "本 leader 收缩 ISR 的次数（某 follower 落后超过 replica.lag.time.max.ms）。controller 因 broker 宕机而移出的副本不计入。",
        computed: "marked when an AlterPartition that shrank the ISR is applied",
        mirrors: "Kafka 3.9 Partition.scala PendingShrinkIsr.notifyListener, lines 238-252",
    },
    Def {
        name: "IsrExpandsPerSec",
        mbean: "kafka.server:type=ReplicaManager,name=IsrExpandsPerSec",
        kind: Kind::Meter,
        meaning: "ISR expands this leader made (a follower caught up and rejoined).",
        meaning_zh: "本 leader 扩大 ISR 的次数（某 follower 追上后重新加入）。",
        computed: "marked when an AlterPartition that grew the ISR is applied",
        mirrors: "Kafka 3.9 Partition.scala PendingExpandIsr.notifyListener, lines 216-236",
    },
    Def {
        name: "ActiveControllerCount",
        mbean: "kafka.controller:type=KafkaController,name=ActiveControllerCount",
        kind: Kind::Gauge,
        meaning: "1 on the broker that is the controller, 0 on the others. Summed over the cluster it must be exactly 1.",
        meaning_zh: "controller 所在的 broker 为 1，其余为 0。全集群求和必须恰好为 1。",
        computed: "1 if the broker runs the active controller",
        mirrors: "Kafka 3.9 KafkaController.scala, ActiveControllerCount gauge",
    },
    Def {
        name: "OfflinePartitionsCount",
        mbean: "kafka.controller:type=KafkaController,name=OfflinePartitionsCount",
        kind: Kind::Gauge,
        meaning: "Partitions with no live leader: nobody can read or write them.",
        meaning_zh: "没有存活 leader 的分区数：这些分区既不能读也不能写。",
        computed: "on the controller: partitions whose leader is -1 or not a live broker",
        mirrors: "Kafka 3.9 ControllerContext.updatePartitionStateMetrics, lines 408-418",
    },
    Def {
        name: "PreferredReplicaImbalanceCount",
        mbean: "kafka.controller:type=KafkaController,name=PreferredReplicaImbalanceCount",
        kind: Kind::Gauge,
        meaning: "Partitions not led by their preferred replica (the first in their replica list).",
        meaning_zh: "leader 不是优先副本（副本列表中的第一个）的分区数。",
        computed: "on the controller: partitions whose leader is not replicas[0] (a preferred replica still being added counts only once it is in the ISR)",
        mirrors: "Kafka 3.9 ControllerContext.updatePreferredReplicaImbalanceMetric and hasPreferredLeader, lines 502-540",
    },
    Def {
        name: "LeaderElectionRateAndTimeMs",
        mbean: "kafka.controller:type=ControllerStats,name=LeaderElectionRateAndTimeMs",
        kind: Kind::Histogram,
        meaning: "BrokerChange events the controller handled (a broker joined or left), and how long each took.",
        meaning_zh: "controller 处理的 BrokerChange 事件（有 broker 加入或离开）的次数，以及每次耗时。",
        computed: "one sample per BrokerChange the controller handles: the simulated time from taking the event to the last thing its processing did (its ZooKeeper writes take no simulated time, so this is 0 ms unless the work spans time), recorded when it ends",
        mirrors: "Kafka 3.9 ControllerState.BrokerChange.rateAndTimeMetricName, timed in ControllerEventManager.scala lines 128-148",
    },
    Def {
        name: "UncleanLeaderElectionsPerSec",
        mbean: "kafka.controller:type=ControllerStats,name=UncleanLeaderElectionsPerSec",
        kind: Kind::Meter,
        meaning: "Leaders chosen from outside the ISR (unclean.leader.election.enable): committed records may be lost.",
        meaning_zh: "从 ISR 之外选出的 leader 次数（unclean.leader.election.enable）：已提交的消息可能丢失。",
        computed: "marked on the controller for each unclean election",
        mirrors: "Kafka 3.9 PartitionStateMachine.scala, line 537",
    },
    Def {
        name: "MessagesInPerSec",
        mbean: "kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec",
        kind: Kind::Meter,
        meaning: "Records appended to logs this broker leads (produce and the coordinator's own writes).",
        meaning_zh: "追加到本 broker 所领导分区日志中的消息数（生产请求以及协调者自己的写入）。",
        computed: "records of every leader append",
        mirrors: "Kafka 3.9 ReplicaManager.appendToLocalLog",
    },
    Def {
        name: "BytesInPerSec",
        mbean: "kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec",
        kind: Kind::Meter,
        meaning: "Bytes appended to logs this broker leads.",
        meaning_zh: "追加到本 broker 所领导分区日志中的字节数。",
        computed: "bytes of every leader append",
        mirrors: "Kafka 3.9 ReplicaManager.appendToLocalLog",
    },
    Def {
        name: "BytesOutPerSec",
        mbean: "kafka.server:type=BrokerTopicMetrics,name=BytesOutPerSec",
        kind: Kind::Meter,
        meaning: "Record bytes sent to consumers (followers' fetches are not counted here).",
        meaning_zh: "发送给消费者的消息字节数（follower 的拉取不计入）。",
        computed: "record bytes of every fetch response sent to a consumer",
        mirrors: "Kafka 3.9 BrokerTopicStats.updateBytesOut",
    },
    Def {
        name: "FailedProduceRequestsPerSec",
        mbean: "kafka.server:type=BrokerTopicMetrics,name=FailedProduceRequestsPerSec",
        kind: Kind::Meter,
        meaning: "Partition writes that failed on this leader for an unexpected reason, NOT_ENOUGH_REPLICAS among them (a wrong leader does not count).",
        meaning_zh: "本 leader 上因非预期原因失败的分区写入次数，NOT_ENOUGH_REPLICAS 也算在内（发错 leader 不计入）。",
        computed: "marked for each refused partition of a Produce, except the errors Kafka treats as expected",
        mirrors: "Kafka 3.9 ReplicaManager.appendToLocalLog, the catch cases",
    },
    Def {
        name: "FailedFetchRequestsPerSec",
        mbean: "kafka.server:type=BrokerTopicMetrics,name=FailedFetchRequestsPerSec",
        kind: Kind::Meter,
        meaning: "Partition reads that failed for an unexpected reason. Wrong leader, fenced epoch or out-of-range offsets are expected and not counted.",
        meaning_zh: "因非预期原因失败的分区读取次数。leader 错误、epoch 被隔离或 offset 越界属于预期情况，不计入。",
        computed: "always 0: every fetch error the simulation produces is one Kafka expects",
        mirrors: "Kafka 3.9 ReplicaManager.readFromLocalLog, the catch cases",
    },
    Def {
        name: "TotalTimeMs",
        mbean: "kafka.network:type=RequestMetrics,name=TotalTimeMs",
        kind: Kind::Histogram,
        meaning: "How long requests spent in the broker, from arrival to response (tagged request=Produce, FetchConsumer or FetchFollower). acks=all waits and fetch.max.wait.ms show here.",
        meaning_zh: "请求在 broker 中停留的时间，从到达到发出响应（按 request=Produce、FetchConsumer、FetchFollower 区分）。acks=all 的等待和 fetch.max.wait.ms 都体现在这里。",
        computed: "response sent − request arrived, per request",
        mirrors: "Kafka 3.9 RequestChannel.Request.updateRequestMetrics",
    },
    Def {
        name: "LogEndOffset",
        mbean: "kafka.log:type=Log,name=LogEndOffset",
        kind: Kind::Gauge,
        meaning: "The offset the next record of this replica's log will get (LEO).",
        meaning_zh: "该副本日志中下一条消息将得到的 offset（LEO）。",
        computed: "the log's log end offset",
        mirrors: "Kafka 3.9 UnifiedLog.scala, newMetrics",
    },
    Def {
        name: "LogStartOffset",
        mbean: "kafka.log:type=Log,name=LogStartOffset",
        kind: Kind::Gauge,
        meaning: "The first offset still in this replica's log (retention moves it).",
        meaning_zh: "该副本日志中仍保留的第一个 offset（由保留策略推进）。",
        computed: "the log's log start offset",
        mirrors: "Kafka 3.9 UnifiedLog.scala, newMetrics",
    },
    Def {
        name: "Size",
        mbean: "kafka.log:type=Log,name=Size",
        kind: Kind::Gauge,
        meaning: "Bytes of this replica's log on disk, all segments.",
        meaning_zh: "该副本日志在磁盘上的字节数（所有段）。",
        computed: "the sum of the segments' sizes",
        mirrors: "Kafka 3.9 UnifiedLog.scala, newMetrics",
    },
    Def {
        name: "NumLogSegments",
        mbean: "kafka.log:type=Log,name=NumLogSegments",
        kind: Kind::Gauge,
        meaning: "Segments in this replica's log.",
        meaning_zh: "该副本日志的段数。",
        computed: "the number of segments",
        mirrors: "Kafka 3.9 UnifiedLog.scala, newMetrics",
    },
];

/// `request=` of the request metrics kept.
const REQUESTS: [&str; 3] = ["Produce", "FetchConsumer", "FetchFollower"];

/// One broker process's meters and histograms, created when it starts.
#[derive(Clone, Debug)]
struct Meters {
    isr_shrinks: Meter,
    isr_expands: Meter,
    messages_in: Meter,
    bytes_in: Meter,
    bytes_out: Meter,
    failed_produce: Meter,
    failed_fetch: Meter,
    elections: Meter,
    election_ms: Histogram,
    unclean: Meter,
    total_time: [Histogram; 3],
}

impl Meters {
    fn new(now: Millis) -> Meters {
        Meters {
            isr_shrinks: Meter::new(now),
            isr_expands: Meter::new(now),
            messages_in: Meter::new(now),
            bytes_in: Meter::new(now),
            bytes_out: Meter::new(now),
            failed_produce: Meter::new(now),
            failed_fetch: Meter::new(now),
            elections: Meter::new(now),
            election_ms: Histogram::new(now),
            unclean: Meter::new(now),
            total_time: std::array::from_fn(|_| Histogram::new(now)),
        }
    }
}

/// A request that reached a broker and is not answered yet.
#[derive(Clone, Debug)]
struct Arrival {
    at: Millis,
    message: u64,
    request: usize,
}

/// What the broker side counts.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    /// Each broker's meters behind an `Arc`: a clone of the world shares
    /// them, and a step copies only the meters it records on.
    brokers: SortedMap<BrokerId, std::sync::Arc<Meters>>,
    /// AlterPartition proposals in flight: (ISR size before, after).
    proposals: SortedMap<(BrokerId, TopicPartition), (usize, usize)>,
    /// Requests in flight to brokers, by (broker, client, correlation id):
    /// thousands at scale, inserted and removed anywhere, only looked up by
    /// key: a hash map (a sorted vector's inserts cost O(n) here, and a
    /// tree's clone allocates every node; see `collections`).
    arrivals: FastMap<(BrokerId, NodeId, i32), Arrival>,
    /// The same, by message id (a message can be dropped on the way).
    by_message: FastMap<u64, (BrokerId, NodeId, i32)>,
    /// The BrokerChange event the controller is processing: its Timer
    /// records once the processing ends.
    broker_change: Option<BrokerChangeSpan>,
}

/// One BrokerChange event on the controller's event thread: when it was
/// taken, and when the last thing it did happened. Every event of its
/// processing has the same cause (the watch that fired, carried through
/// the controller's continuations).
#[derive(Clone, Debug)]
struct BrokerChangeSpan {
    controller: BrokerId,
    cause: Option<crate::event::EventId>,
    start: Millis,
    last: Millis,
}

impl BrokerChangeSpan {
    /// `timer.time(process)` ends: one sample of the processing time, and
    /// the Timer's meter marked (`Timer.update`), at the end.
    fn record(&self, m: &mut Meters) {
        m.elections.mark(1, self.last);
        m.election_ms
            .update(self.last.saturating_sub(self.start) as f64, self.last);
    }
}

/// Whether `appendToLocalLog` marks `FailedProduceRequestsPerSec` for `e`.
fn counts_as_failed_produce(e: ErrorCode) -> bool {
    !matches!(
        e,
        ErrorCode::UnknownTopicOrPartition
            | ErrorCode::NotLeaderOrFollower
            | ErrorCode::MessageTooLarge
            | ErrorCode::RecordListTooLarge
            | ErrorCode::CorruptMessage
    )
}

impl Recorder {
    /// A rough size in bytes (see `metrics::Recorder::approx_bytes`).
    pub(super) fn approx_bytes(&self) -> u64 {
        use std::mem::size_of;
        let meters: u64 = self
            .brokers
            .values()
            .map(|m| {
                size_of::<(BrokerId, Meters)>() as u64
                    + m.election_ms.heap_bytes()
                    + m.total_time.iter().map(Histogram::heap_bytes).sum::<u64>()
            })
            .sum();
        meters
            + (self.proposals.len() * size_of::<((BrokerId, TopicPartition), (usize, usize))>())
                as u64
            + super::tree_bytes(
                self.arrivals.len(),
                size_of::<((BrokerId, NodeId, i32), Arrival)>(),
            )
            + super::tree_bytes(
                self.by_message.len(),
                size_of::<(u64, (BrokerId, NodeId, i32))>(),
            )
    }

    /// Broker `b`'s meters, to record on (copied first if a checkpoint
    /// still shares them).
    fn meters(&mut self, b: &BrokerId) -> Option<&mut Meters> {
        self.brokers.get_mut(b).map(std::sync::Arc::make_mut)
    }

    fn forget_requests_to(&mut self, b: BrokerId) {
        self.arrivals.retain(|k, _| k.0 != b);
        self.by_message.retain(|_, k| k.0 != b);
        self.proposals.retain(|k, _| k.0 != b);
    }

    pub(super) fn observe(&mut self, e: &Event) {
        let now = e.time_ms;
        if let Some(span) = &mut self.broker_change {
            if e.cause == span.cause {
                span.last = now;
            } else if e.nodes.first() == Some(&NodeId::Broker(span.controller))
                || matches!(e.kind, EventKind::BrokerChangeNoticed { .. })
            {
                // The controller has moved on: the BrokerChange is done.
                let span = self.broker_change.take().expect("checked");
                if let Some(m) = self.meters(&span.controller) {
                    span.record(m);
                }
            }
        }
        match &e.kind {
            EventKind::BrokerStarted { broker, .. } => {
                self.brokers
                    .insert(*broker, std::sync::Arc::new(Meters::new(now)));
                self.forget_requests_to(*broker);
            }
            EventKind::BrokerStopped { broker, .. } => {
                self.brokers.remove(broker);
                self.forget_requests_to(*broker);
            }
            EventKind::IsrChangeProposed {
                broker,
                tp,
                old_isr,
                new_isr,
                ..
            } => {
                self.proposals
                    .insert((*broker, tp.clone()), (old_isr.len(), new_isr.len()));
            }
            EventKind::IsrChangeApplied { broker, tp, .. } => {
                let proposal = self.proposals.remove(&(*broker, tp.clone()));
                if let (Some((old, new)), Some(m)) = (proposal, self.meters(broker)) {
                    if new > old {
                        m.isr_expands.mark(1, now);
                    } else if new < old {
                        m.isr_shrinks.mark(1, now);
                    }
                }
            }
            EventKind::IsrChangeRejected { broker, tp, .. } => {
                self.proposals.remove(&(*broker, tp.clone()));
            }
            EventKind::BatchAppended {
                broker,
                leader: true,
                appended,
                ..
            } => {
                if let Some(m) = self.meters(broker) {
                    let records = (appended.last_offset - appended.first_offset + 1).max(0);
                    m.messages_in.mark(records as u64, now);
                    m.bytes_in.mark(appended.size, now);
                }
            }
            EventKind::ProduceRejected { broker, error, .. }
                if counts_as_failed_produce(*error) =>
            {
                if let Some(m) = self.meters(broker) {
                    m.failed_produce.mark(1, now);
                }
            }
            EventKind::BrokerChangeNoticed { controller, .. } => {
                self.broker_change = Some(BrokerChangeSpan {
                    controller: *controller,
                    cause: e.cause,
                    start: now,
                    last: now,
                });
            }
            EventKind::LeaderElected { unclean: true, .. } => {
                if let Some(NodeId::Broker(c)) = e.nodes.first() {
                    if let Some(m) = self.meters(c) {
                        m.unclean.mark(1, now);
                    }
                }
            }
            EventKind::MessageDropped { id, .. } => {
                if let Some(k) = self.by_message.remove(id) {
                    self.arrivals.remove(&k);
                }
            }
            EventKind::MessageSent { .. } => self.on_sent(e),
            _ => {}
        }
    }

    fn on_sent(&mut self, e: &Event) {
        let Some((id, from, to, deliver_at, message)) = sent(e) else {
            return;
        };
        let now = e.time_ms;
        if let NodeId::Broker(b) = to {
            let request = match message {
                Message::Produce {
                    correlation_id,
                    acks,
                    ..
                } if *acks != 0 => Some((*correlation_id, 0)),
                Message::Fetch(f) => {
                    Some((f.correlation_id, if f.replica_id >= 0 { 2 } else { 1 }))
                }
                _ => None,
            };
            if let Some((corr, request)) = request {
                self.arrivals.insert(
                    (b, from, corr),
                    Arrival {
                        at: deliver_at,
                        message: id,
                        request,
                    },
                );
                self.by_message.insert(id, (b, from, corr));
            }
        }
        let NodeId::Broker(b) = from else {
            return;
        };
        let corr = match message {
            Message::ProduceResponse { correlation_id, .. } => *correlation_id,
            Message::FetchResponse {
                correlation_id,
                partitions,
                ..
            } => {
                if matches!(to, NodeId::Consumer(_)) {
                    let bytes: usize = partitions.iter().map(|p| p.records.len()).sum();
                    if let Some(m) = self.meters(&b) {
                        m.bytes_out.mark(bytes as u64, now);
                    }
                }
                *correlation_id
            }
            _ => return,
        };
        if let Some(a) = self.arrivals.remove(&(b, to, corr)) {
            self.by_message.remove(&a.message);
            if let Some(m) = self.meters(&b) {
                m.total_time[a.request].update(now.saturating_sub(a.at) as f64, now);
            }
        }
    }
}

/// Pushes every broker metric of every running broker.
pub(super) fn read(w: &World, r: &Recorder, now: Millis, detail: bool, out: &mut Vec<Reading>) {
    let d = |name| find(DEFS, name);
    for (id, br) in w.brokers() {
        let (true, Some(m)) = (br.alive, r.brokers.get(id)) else {
            continue;
        };
        let node = NodeId::Broker(*id);
        let mut under = 0;
        let mut under_min = 0;
        let mut at_min = 0;
        let mut leaders = 0;
        for (tp, p) in &br.partitions {
            if !p.is_leader {
                continue;
            }
            leaders += 1;
            if p.is_under_replicated() {
                under += 1;
            }
            if let Some(log) = br.logs.get(tp) {
                let min = p.effective_min_isr(log.config.min_insync_replicas) as usize;
                if p.isr.len() < min {
                    under_min += 1;
                } else if p.isr.len() == min {
                    at_min += 1;
                }
            }
        }
        let gauges = [
            ("UnderReplicatedPartitions", under),
            ("UnderMinIsrPartitionCount", under_min),
            ("AtMinIsrPartitionCount", at_min),
            ("LeaderCount", leaders),
            ("PartitionCount", br.partitions.len()),
        ];
        for (name, v) in gauges {
            let def = d(name);
            push_value(out, def, Arc::from(def.mbean), node, v as f64);
        }
        for (name, meter) in [
            ("IsrShrinksPerSec", &m.isr_shrinks),
            ("IsrExpandsPerSec", &m.isr_expands),
        ] {
            let def = d(name);
            push_meter(out, def, Arc::from(def.mbean), node, meter, now);
        }
        let (active, offline, imbalance) = controller_gauges(br);
        for (name, v) in [
            ("ActiveControllerCount", active),
            ("OfflinePartitionsCount", offline),
            ("PreferredReplicaImbalanceCount", imbalance),
        ] {
            let def = d(name);
            push_value(out, def, Arc::from(def.mbean), node, v as f64);
        }
        // A BrokerChange still being processed counts as done when read
        // after its last step (nothing else happened on the controller).
        let done;
        let m = match &r.broker_change {
            Some(span) if span.controller == *id => {
                let mut copy = Meters::clone(m);
                span.record(&mut copy);
                done = copy;
                &done
            }
            _ => &**m,
        };
        let def = d("LeaderElectionRateAndTimeMs");
        push_histogram(
            out,
            def,
            Arc::from(def.mbean),
            node,
            &m.election_ms,
            Some((&m.elections, now)),
        );
        for (name, meter) in [
            ("UncleanLeaderElectionsPerSec", &m.unclean),
            ("MessagesInPerSec", &m.messages_in),
            ("BytesInPerSec", &m.bytes_in),
            ("BytesOutPerSec", &m.bytes_out),
            ("FailedProduceRequestsPerSec", &m.failed_produce),
            ("FailedFetchRequestsPerSec", &m.failed_fetch),
        ] {
            let def = d(name);
            push_meter(out, def, Arc::from(def.mbean), node, meter, now);
        }
        let def = d("TotalTimeMs");
        for (i, request) in REQUESTS.iter().enumerate() {
            let mbean = format!("{},request={request}", def.mbean);
            push_histogram(out, def, mbean.into(), node, &m.total_time[i], None);
        }
        for (tp, log) in br.logs.iter().filter(|_| detail) {
            let tags = format!(",topic={},partition={}", tp.topic, tp.partition);
            for (name, v) in [
                ("LogEndOffset", log.log_end_offset as f64),
                ("LogStartOffset", log.log_start_offset as f64),
                ("Size", log.size() as f64),
                ("NumLogSegments", log.segments.len() as f64),
            ] {
                let def = d(name);
                push_value(out, def, format!("{}{tags}", def.mbean).into(), node, v);
            }
        }
    }
}

/// `ActiveControllerCount`, `OfflinePartitionsCount` and
/// `PreferredReplicaImbalanceCount` of one broker (0, 0, 0 unless it is the
/// active controller).
fn controller_gauges(br: &crate::broker::Broker) -> (usize, usize, usize) {
    let Some(ctx) = br.controller.as_ref().filter(|_| br.is_active_controller()) else {
        return (0, 0, 0);
    };
    let mut offline = 0;
    let mut imbalance = 0;
    for (tp, state) in &ctx.states {
        if state.leader < 0 || !ctx.live.contains(&BrokerId(state.leader)) {
            offline += 1;
        }
        let Some(&preferred) = ctx.assignments.get(tp).and_then(|r| r.first()) else {
            continue;
        };
        let adding = ctx
            .reassigning
            .get(tp)
            .is_some_and(|(original, _)| !original.contains(&preferred));
        // Kafka: a preferred replica still being added is not counted as
        // imbalanced until it joins the ISR.
        let balanced = if adding {
            !state.isr.contains(&preferred)
        } else {
            state.leader == preferred.0
        };
        if !balanced {
            imbalance += 1;
        }
    }
    (1, offline, imbalance)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(id: u64, time_ms: Millis, cause: u64, node: i32, kind: EventKind) -> Event {
        Event {
            id,
            time_ms,
            nodes: vec![NodeId::Broker(BrokerId(node))],
            cause: Some(cause),
            kind,
        }
    }

    /// `LeaderElectionRateAndTimeMs` is a Timer around the BrokerChange
    /// event's processing (`ControllerEventThread.doWork`, Kafka 3.9
    /// `ControllerEventManager.scala` lines 128-148): one sample of the time
    /// from taking the event to the end of its processing, recorded (and the
    /// Timer's meter marked) when it ends.
    #[test]
    fn the_election_timer_spans_the_broker_change_processing() {
        let mut r = Recorder::default();
        let started = EventKind::BrokerStarted {
            broker: BrokerId(0),
            incarnation: 1,
            recovered_logs: 0,
        };
        r.observe(&event(1, 0, 0, 0, started));
        let noticed = EventKind::BrokerChangeNoticed {
            controller: BrokerId(0),
            added: vec![],
            removed: vec![BrokerId(2)],
            bounced: vec![],
        };
        r.observe(&event(10, 100, 9, 0, noticed));
        // Part of the processing (same cause), 30 ms later.
        r.observe(&event(
            11,
            130,
            9,
            0,
            EventKind::FilesDeleted {
                broker: BrokerId(0),
                files: vec![],
            },
        ));
        let m = &r.brokers[&BrokerId(0)];
        assert_eq!(m.election_ms.count(), 0, "not recorded before it ends");
        // The controller's next event, from something else: it has ended.
        r.observe(&event(
            12,
            500,
            12,
            0,
            EventKind::FilesDeleted {
                broker: BrokerId(0),
                files: vec![],
            },
        ));
        let m = &r.brokers[&BrokerId(0)];
        assert_eq!((m.election_ms.count(), m.election_ms.max()), (1, 30.0));
        assert_eq!(m.elections.count(), 1);
    }
}
