//! What Kafka's `AdminZkClient` writes to ZooKeeper: a new topic's
//! assignment and configuration (`kafka-topics --create`, or a broker
//! auto-creating `__consumer_offsets`), more partitions (`--alter
//! --partitions`), and a reassignment request (`kafka-reassign-partitions
//! --execute`). The controller takes it from there, through its watches.
//! Replica placement is `placement.rs` (`AdminUtils.assignReplicasToBrokers`).

use crate::collections::SortedMap;
use crate::event::EventKind;
use crate::ids::{BrokerId, NodeId};
use crate::kernel::Step;
use crate::zk::ZkCx;

impl ZkCx<'_> {
    /// The scenario's admin (`kafka-topics --create`): place replicas and write
    /// `/brokers/topics/<t>`; the controller takes it from there.
    pub(crate) fn admin_create_topic(
        &mut self,
        spec: &crate::scenario::TopicSpec,
        index: u32,
        initial: bool,
    ) -> Step {
        let _ = (index, initial);
        self.admin_create_topic_by(NodeId::User, spec)
    }

    /// Creates a topic the way `AdminZkClient` does, on behalf of `actor` (the
    /// user's admin client, or a broker auto-creating `__consumer_offsets`).
    pub(crate) fn admin_create_topic_by(
        &mut self,
        actor: NodeId,
        spec: &crate::scenario::TopicSpec,
    ) -> Step {
        let cfg = &self.k.sc.cluster.config;
        let partitions = spec.partitions.unwrap_or(cfg.num_partitions);
        let rf = spec
            .replication_factor
            .unwrap_or(cfg.default_replication_factor);
        if self
            .zk
            .get(&format!("/brokers/topics/{}", spec.name))
            .is_some()
        {
            self.k.record(
                vec![actor],
                EventKind::TopicCreationFailed {
                    topic: spec.name.clone(),
                    error: format!(
                        "TOPIC_ALREADY_EXISTS: Topic '{}' already exists.",
                        spec.name
                    ),
                },
            )?;
            return Ok(());
        }
        let (assignment, choices) = if let Some(a) = &spec.replica_assignment {
            let mut m = SortedMap::new();
            for (k, v) in a {
                m.insert(
                    k.parse::<i32>().unwrap_or(0),
                    v.iter().map(|b| BrokerId(*b)).collect(),
                );
            }
            (m, None)
        } else {
            // Kafka places on the brokers registered now, with their racks.
            let brokers = match self.rack_aware_brokers() {
                Ok(b) => b,
                Err(error) => {
                    self.k.record(
                        vec![actor],
                        EventKind::TopicCreationFailed {
                            topic: spec.name.clone(),
                            error,
                        },
                    )?;
                    return Ok(());
                }
            };
            self.k.gate()?;
            match crate::placement::assign_replicas_to_brokers(
                &brokers,
                partitions,
                rf,
                spec.fixed_start_index.unwrap_or(-1),
                -1,
                &mut self.k.rng,
            ) {
                Ok((a, ch)) => (a, Some(ch)),
                Err(e) => {
                    self.k.record(
                        vec![actor],
                        EventKind::TopicCreationFailed {
                            topic: spec.name.clone(),
                            error: e.to_string(),
                        },
                    )?;
                    return Ok(());
                }
            }
        };
        let overrides = serde_json::to_value(&spec.config).unwrap_or_default();
        let cfg_json = format!("{{\"version\":1,\"config\":{overrides}}}");
        self.set(actor, &format!("/config/topics/{}", spec.name), cfg_json)?;
        self.k.record(
            vec![actor],
            EventKind::TopicCreated {
                topic: spec.name.clone(),
                assignment: assignment.clone(),
                placement: choices,
                striped: false,
            },
        )?;
        self.create(
            actor,
            &format!("/brokers/topics/{}", spec.name),
            topic_znode_json(&assignment, &topic_id(&self.k.sc, &spec.name)),
            None,
        )?;
        Ok(())
    }

    /// `AdminZkClient.getBrokerMetadatas(RackAwareMode.Enforced)` (Kafka
    /// 3.9, lines 74-90): the registered brokers in id order with their
    /// racks (before any has registered, the scenario's brokers), refusing
    /// when some have a rack and some do not.
    fn rack_aware_brokers(&self) -> Result<Vec<crate::placement::BrokerMetadata>, String> {
        let mut brokers = self.zk.live_broker_metadata();
        if brokers.is_empty() {
            let racks = &self.k.sc.cluster.broker_rack;
            let mut ids = self.k.sc.cluster.brokers.clone();
            ids.sort();
            brokers = ids
                .into_iter()
                .map(|b| crate::placement::BrokerMetadata {
                    id: BrokerId(b),
                    rack: racks.get(&b).cloned(),
                })
                .collect();
        }
        let with_rack = brokers.iter().filter(|b| b.rack.is_some()).count();
        if with_rack > 0 && with_rack < brokers.len() {
            return Err("AdminOperationException: Not all brokers have rack information. Add --disable-rack-aware in command line to make replica assignment without rack information.".into());
        }
        Ok(brokers)
    }

    /// `kafka-topics --alter --partitions N`.
    pub(crate) fn admin_add_partitions(&mut self, topic: &str, total: i32) -> Step {
        let current = self.zk.topic_assignment(topic);
        let have = current.len() as i32;
        if total <= have {
            self.k.record(vec![NodeId::User], EventKind::CommandRejected {
                index: 0,
                reason: format!("INVALID_PARTITIONS: Topic currently has {have} partitions, which is higher than the requested {total}."),
            })?;
            return Ok(());
        }
        let brokers = match self.rack_aware_brokers() {
            Ok(b) => b,
            Err(reason) => {
                self.k.record(
                    vec![NodeId::User],
                    EventKind::CommandRejected { index: 0, reason },
                )?;
                return Ok(());
            }
        };
        let live: Vec<BrokerId> = brokers.iter().map(|b| b.id).collect();
        let rf = current.values().next().map(|v| v.len() as i32).unwrap_or(1);
        self.k.gate()?;
        let start_index = current
            .get(&0)
            .and_then(|r| r.first())
            .and_then(|l| live.iter().position(|b| b == l))
            .map(|i| i as i32)
            .unwrap_or(-1);
        let added = match crate::placement::assign_replicas_to_brokers(
            &brokers,
            total - have,
            rf,
            start_index,
            have,
            &mut self.k.rng,
        ) {
            Ok((a, _)) => a,
            Err(e) => {
                self.k.record(
                    vec![NodeId::User],
                    EventKind::CommandRejected {
                        index: 0,
                        reason: e.to_string(),
                    },
                )?;
                return Ok(());
            }
        };
        let mut all = current;
        all.extend(added.clone());
        self.k.record(
            vec![NodeId::User],
            EventKind::PartitionsAdded {
                topic: topic.to_string(),
                assignment: added,
            },
        )?;
        let id = topic_id(&self.k.sc, topic);
        self.set(
            NodeId::User,
            &format!("/brokers/topics/{topic}"),
            topic_znode_json(&all, &id),
        )?;
        Ok(())
    }

    /// `kafka-reassign-partitions --execute`: the admin writes the request.
    pub(crate) fn admin_reassign(&mut self, topic: &str, partition: i32, replicas: &[i32]) -> Step {
        let entry =
            serde_json::json!({"topic": topic, "partition": partition, "replicas": replicas});
        let mut parts: Vec<serde_json::Value> = self
            .zk
            .data_json("/admin/reassign_partitions")
            .and_then(|v| v.get("partitions").and_then(|p| p.as_array().cloned()))
            .unwrap_or_default();
        parts.retain(|x| {
            !(x.get("topic").and_then(|t| t.as_str()) == Some(topic)
                && x.get("partition").and_then(|p| p.as_i64()) == Some(partition as i64))
        });
        parts.push(entry);
        let data = serde_json::json!({"version": 1, "partitions": parts}).to_string();
        self.set(NodeId::User, "/admin/reassign_partitions", data)
            .map(|_| ())
    }
}

/// A topic id (Kafka's `Uuid`, URL-safe base64 of 16 bytes) derived from the name.
pub(crate) fn topic_id(sc: &crate::scenario::Scenario, name: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ sc.seed;
    let mut bytes = Vec::new();
    for round in 0..2u64 {
        for b in name.bytes().chain(round.to_le_bytes()) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        bytes.extend_from_slice(&h.to_be_bytes());
    }
    base64_url(&bytes)
}

fn base64_url(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, b)| acc | (*b as u32) << (16 - 8 * i));
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// `/brokers/topics/<t>` as Kafka 3.x writes it.
pub fn topic_znode_json(assignment: &SortedMap<i32, Vec<BrokerId>>, topic_id: &str) -> String {
    let parts: Vec<String> = assignment
        .iter()
        .map(|(p, r)| {
            let r: Vec<String> = r.iter().map(|b| b.0.to_string()).collect();
            format!("\"{p}\":[{}]", r.join(","))
        })
        .collect();
    format!(
        "{{\"partitions\":{{{}}},\"topic_id\":\"{topic_id}\",\"adding_replicas\":{{}},\"removing_replicas\":{{}},\"version\":3}}",
        parts.join(",")
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn topic_ids_look_like_kafka_uuids() {
        assert_eq!(super::base64_url(&[0u8; 16]).len(), 22);
    }
}
