//! Topics as the controller sees them (`KafkaController.processTopicChange`,
//! `onNewPartitionCreation`, `processPartitionModifications`, Kafka 3.9)
//! and as the admin client creates them (`AdminZkClient.createTopic`:
//! `/brokers/topics/<t>` with the replica assignment and topic id, then
//! `/config/topics/<t>`), including adding partitions.

use super::*;

impl World {
    /// New topics in `/brokers/topics`: watch each, then create its
    /// partitions (`onNewPartitionCreation`), then send the requests.
    pub(super) fn controller_on_topic_change(&mut self, c: BrokerId) -> Step {
        let known = ctl(self, c).topics.clone();
        let ops = self
            .zk
            .children("/brokers/topics")
            .into_iter()
            .filter(|t| !known.contains(t))
            .map(|topic| ControllerOp::StartTopic { topic, watch: true })
            .collect();
        self.controller_work_next(ControllerWork::new(c, ops))
    }

    /// Partitions added to a topic the controller knows.
    pub(super) fn controller_on_partition_modification(
        &mut self,
        c: BrokerId,
        topic: &str,
    ) -> Step {
        let op = ControllerOp::StartTopic {
            topic: topic.to_string(),
            watch: false,
        };
        self.controller_work_next(ControllerWork::new(c, VecDeque::from([op])))
    }

    /// Rewrites `/brokers/topics/<t>` from the context (with reassignment state).
    pub(super) fn controller_write_topic_znode(&mut self, c: BrokerId, topic: &str) -> Step {
        let ctx = ctl(self, c);
        let mut parts = SortedMap::new();
        let mut adding = SortedMap::new();
        let mut removing = SortedMap::new();
        for (tp, reps) in ctx.assignments.iter().filter(|(tp, _)| &*tp.topic == topic) {
            parts.insert(tp.partition, reps.clone());
            if let Some((o, t)) = ctx.reassigning.get(tp) {
                adding.insert(
                    tp.partition,
                    t.iter()
                        .copied()
                        .filter(|r| !o.contains(r))
                        .collect::<Vec<_>>(),
                );
                removing.insert(
                    tp.partition,
                    o.iter()
                        .copied()
                        .filter(|r| !t.contains(r))
                        .collect::<Vec<_>>(),
                );
            }
        }
        let list = |m: &SortedMap<i32, Vec<BrokerId>>| {
            m.iter()
                .map(|(p, r)| {
                    format!(
                        "\"{p}\":[{}]",
                        r.iter()
                            .map(|b| b.0.to_string())
                            .collect::<Vec<_>>()
                            .join(",")
                    )
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        let id = self.topic_id(topic);
        let data = format!(
            "{{\"partitions\":{{{}}},\"topic_id\":\"{id}\",\"adding_replicas\":{{{}}},\"removing_replicas\":{{{}}},\"version\":3}}",
            list(&parts),
            list(&adding),
            list(&removing)
        );
        self.zk_set(NodeId::Broker(c), &format!("/brokers/topics/{topic}"), data)
            .map(|_| ())
    }

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
            // Kafka places on the brokers registered now.
            let live = self.zk.live_brokers();
            let brokers = if live.is_empty() {
                self.k
                    .sc
                    .cluster
                    .brokers
                    .iter()
                    .map(|b| BrokerId(*b))
                    .collect()
            } else {
                live
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
        self.zk_set(actor, &format!("/config/topics/{}", spec.name), cfg_json)?;
        self.k.record(
            vec![actor],
            EventKind::TopicCreated {
                topic: spec.name.clone(),
                assignment: assignment.clone(),
                placement: choices,
            },
        )?;
        self.zk_create(
            actor,
            &format!("/brokers/topics/{}", spec.name),
            topic_znode_json(&assignment, &self.topic_id(&spec.name)),
            None,
        )?;
        Ok(())
    }

    /// A topic id (Kafka's `Uuid`, URL-safe base64 of 16 bytes) derived from the name.
    pub(super) fn topic_id(&self, name: &str) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ self.k.sc.seed;
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

    /// `kafka-topics --alter --partitions N`.
    pub(crate) fn admin_add_partitions(&mut self, topic: &str, total: i32) -> Step {
        let current = self.zk_topic_assignment(topic);
        let have = current.len() as i32;
        if total <= have {
            self.k.record(vec![NodeId::User], EventKind::CommandRejected {
                index: 0,
                reason: format!("INVALID_PARTITIONS: Topic currently has {have} partitions, which is higher than the requested {total}."),
            })?;
            return Ok(());
        }
        let live = self.zk.live_brokers();
        let rf = current.values().next().map(|v| v.len() as i32).unwrap_or(1);
        self.k.gate()?;
        let start_index = current
            .get(&0)
            .and_then(|r| r.first())
            .and_then(|l| live.iter().position(|b| b == l))
            .map(|i| i as i32)
            .unwrap_or(-1);
        let added = match crate::placement::assign_replicas_to_brokers(
            &live,
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
        let id = self.topic_id(topic);
        self.zk_set(
            NodeId::User,
            &format!("/brokers/topics/{topic}"),
            topic_znode_json(&all, &id),
        )?;
        Ok(())
    }
}
