//! What the cluster view draws, read off the engine's world. Layout only: no
//! Kafka behaviour is computed here, every number comes from the engine.

use kafka_sim::ids::{BrokerId, NodeId};
use kafka_sim::msg::Message;
use kafka_sim::sim::Work;
use kafka_sim::World;

#[derive(Clone, Debug, PartialEq)]
pub struct ReplicaView {
    pub tp: String,
    pub leader: bool,
    pub in_isr: bool,
    pub log_start: i64,
    pub leo: i64,
    pub hw: i64,
    pub leader_epoch: i32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BrokerView {
    pub id: i32,
    pub alive: bool,
    /// Has it ever started (incarnation > 0)?
    pub started: bool,
    pub controller: bool,
    pub replicas: Vec<ReplicaView>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MessageView {
    pub id: u64,
    pub from: NodeId,
    pub to: NodeId,
    pub api: &'static str,
    pub summary: String,
    /// 0.0 just sent … 1.0 arriving (display only).
    pub progress_permille: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ClusterModel {
    pub brokers: Vec<BrokerView>,
    pub producers: Vec<String>,
    pub consumers: Vec<(String, bool)>,
    pub messages: Vec<MessageView>,
    pub max_leo: i64,
    pub controller_epoch: i32,
    pub cut_links: Vec<(NodeId, NodeId)>,
}

impl ClusterModel {
    pub fn from_world(
        w: &World,
        now_ms: u64,
        sent_at: impl Fn(u64) -> Option<u64>,
    ) -> ClusterModel {
        let controller = w.controller_id();
        let mut max_leo = 1;
        let brokers = w
            .brokers()
            .values()
            .map(|b| {
                let mut replicas: Vec<ReplicaView> = b
                    .logs
                    .iter()
                    .filter(|(tp, _)| !tp.topic.starts_with("__"))
                    .map(|(tp, log)| {
                        let p = b.partitions.get(tp);
                        max_leo = max_leo.max(log.log_end_offset);
                        ReplicaView {
                            tp: tp.to_string(),
                            leader: b.alive && p.is_some_and(|p| p.is_leader),
                            in_isr: p.is_some_and(|p| p.isr.contains(&b.id)),
                            log_start: log.log_start_offset,
                            leo: log.log_end_offset,
                            hw: p
                                .map(|p| p.high_watermark)
                                .unwrap_or_else(|| b.hw_checkpoint.get(tp).copied().unwrap_or(0)),
                            leader_epoch: p.map(|p| p.leader_epoch).unwrap_or(-1),
                        }
                    })
                    .collect();
                replicas.sort_by(|a, b| a.tp.cmp(&b.tp));
                BrokerView {
                    id: b.id.0,
                    alive: b.alive,
                    started: b.incarnation > 0,
                    controller: b.alive && Some(b.id) == controller && b.controller.is_some(),
                    replicas,
                }
            })
            .collect();
        let messages = w
            .pending()
            .filter_map(|(at, work)| match work {
                Work::Deliver {
                    id,
                    from,
                    to,
                    msg,
                    sent,
                    ..
                } => {
                    let t0 = sent_at(*sent).unwrap_or(now_ms);
                    let span = at.saturating_sub(t0).max(1);
                    let done = now_ms.saturating_sub(t0).min(span);
                    Some(MessageView {
                        id: *id,
                        from: *from,
                        to: *to,
                        api: msg.api(),
                        summary: summary(msg),
                        progress_permille: (done * 1000 / span) as u32,
                    })
                }
                _ => None,
            })
            .collect();
        ClusterModel {
            brokers,
            producers: w.producers().iter().map(|p| p.name.clone()).collect(),
            consumers: w
                .consumers()
                .iter()
                .map(|c| (c.name.clone(), c.alive))
                .collect(),
            messages,
            max_leo,
            controller_epoch: w.zookeeper().controller_epoch(),
            cut_links: w.network().cut.iter().copied().collect(),
        }
    }

    pub fn broker(&self, id: BrokerId) -> Option<&BrokerView> {
        self.brokers.iter().find(|b| b.id == id.0)
    }
}

fn summary(m: &Message) -> String {
    m.summary()
}
