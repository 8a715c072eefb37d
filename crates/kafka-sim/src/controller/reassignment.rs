//! Partition reassignment (`KafkaController.onPartitionReassignment`,
//! KIP-455, Kafka 3.9): the replica set grows to the union of old and new,
//! the new replicas catch up and join the ISR, leadership moves if the leader
//! is not in the new set, then the old replicas are stopped and the
//! assignment written to ZooKeeper.

use super::*;

impl World {
    /// `/admin/reassign_partitions` appeared or changed: start what is new.
    pub(super) fn controller_on_reassign_request(&mut self, c: BrokerId) -> Step {
        let Some(v) = self.zk.data_json("/admin/reassign_partitions") else {
            return Ok(());
        };
        let wanted: Vec<(TopicPartition, Vec<BrokerId>)> = v
            .get("partitions")
            .and_then(|p| p.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|x| {
                        let t = x.get("topic")?.as_str()?;
                        let p = x.get("partition")?.as_i64()? as i32;
                        let r = x
                            .get("replicas")?
                            .as_array()?
                            .iter()
                            .filter_map(|b| b.as_i64())
                            .map(|b| BrokerId(b as i32))
                            .collect();
                        Some((TopicPartition::new(t, p), r))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut batch = Batch::default();
        for (tp, target) in wanted {
            let known = ctl(self, c).assignments.contains_key(&tp);
            let already = ctl(self, c)
                .reassigning
                .get(&tp)
                .is_some_and(|(_, t)| *t == target);
            if !known || already {
                continue;
            }
            self.controller_reassign_start(c, &tp, target, &mut batch)?;
        }
        self.controller_flush(c, batch)
    }

    /// Phase A (KIP-455): RS = TRS + ORS, the new replicas start and catch up.
    pub(super) fn controller_reassign_start(
        &mut self,
        c: BrokerId,
        tp: &TopicPartition,
        target: Vec<BrokerId>,
        batch: &mut Batch,
    ) -> Step {
        let original = ctl(self, c).assignments[tp].clone();
        let mut full: Vec<BrokerId> = target.clone();
        for r in &original {
            if !full.contains(r) {
                full.push(*r);
            }
        }
        let adding: Vec<BrokerId> = target
            .iter()
            .copied()
            .filter(|r| !original.contains(r))
            .collect();
        let removing: Vec<BrokerId> = original
            .iter()
            .copied()
            .filter(|r| !target.contains(r))
            .collect();
        self.k.gate()?;
        {
            let ctx = ctl_mut(self, c);
            ctx.reassigning
                .insert(tp.clone(), (original.clone(), target.clone()));
            ctx.assignments.insert(tp.clone(), full.clone());
        }
        self.k.record(
            vec![NodeId::Broker(c)],
            EventKind::ReassignmentStarted {
                tp: tp.clone(),
                original: original.clone(),
                target: target.clone(),
                adding: adding.clone(),
                removing: removing.clone(),
            },
        )?;
        self.controller_write_topic_znode(c, &tp.topic)?;
        if let Some(st) = ctl(self, c).states.get(tp).cloned() {
            self.controller_write_state(c, tp, st.leader, st.leader_epoch + 1, st.isr.clone())?;
            let live = ctl(self, c).live.clone();
            for r in full.iter().filter(|r| live.contains(r)) {
                self.batch_leader_and_isr(c, batch, *r, tp, false);
            }
        }
        self.controller_maybe_complete_reassignment(c, tp, batch)
    }

    /// Phase B: once every target replica is in the ISR, the assignment becomes
    /// the target, the leader moves if it is not in it, and the old replicas
    /// leave the ISR and are deleted.
    pub(super) fn controller_maybe_complete_reassignment(
        &mut self,
        c: BrokerId,
        tp: &TopicPartition,
        batch: &mut Batch,
    ) -> Step {
        let Some((original, target)) = ctl(self, c).reassigning.get(tp).cloned() else {
            return Ok(());
        };
        let Some(st) = ctl(self, c).states.get(tp).cloned() else {
            return Ok(());
        };
        let live = ctl(self, c).live.clone();
        if !target
            .iter()
            .all(|r| st.isr.contains(r) && live.contains(r))
        {
            return Ok(());
        }
        let removing: Vec<BrokerId> = original
            .iter()
            .copied()
            .filter(|r| !target.contains(r))
            .collect();
        self.k.gate()?;
        ctl_mut(self, c)
            .assignments
            .insert(tp.clone(), target.clone());
        if st.leader < 0
            || !target.contains(&BrokerId(st.leader))
            || !live.contains(&BrokerId(st.leader))
        {
            self.controller_elect(c, tp, ElectionAlgorithm::Reassign, batch)?;
        } else {
            self.controller_write_state(c, tp, st.leader, st.leader_epoch + 1, st.isr.clone())?;
            for r in target.iter().filter(|r| live.contains(r)) {
                self.batch_leader_and_isr(c, batch, *r, tp, false);
            }
        }
        // The old replicas leave the ISR (OfflineReplica), then are deleted.
        let st = ctl(self, c).states[tp].clone();
        let new_isr: Vec<BrokerId> = st
            .isr
            .iter()
            .copied()
            .filter(|b| !removing.contains(b))
            .collect();
        if new_isr != st.isr && !new_isr.is_empty() {
            self.controller_write_state(c, tp, st.leader, st.leader_epoch + 1, new_isr)?;
            // Every remaining replica hears the new epoch (Kafka sends it to
            // the assignment minus the removed replicas).
            for r in target.iter().filter(|r| live.contains(r)) {
                self.batch_leader_and_isr(c, batch, *r, tp, false);
            }
        }
        let epoch = ctl(self, c).epoch;
        for r in removing.iter().filter(|r| live.contains(r)) {
            self.k.send(
                NodeId::Broker(c),
                NodeId::Broker(*r),
                Message::StopReplica {
                    controller_epoch: epoch,
                    partitions: vec![tp.clone()],
                    delete: true,
                },
            )?;
        }
        self.k.gate()?;
        ctl_mut(self, c).reassigning.remove(tp);
        self.controller_write_topic_znode(c, &tp.topic)?;
        self.k.record(
            vec![NodeId::Broker(c)],
            EventKind::ReassignmentCompleted {
                tp: tp.clone(),
                replicas: target,
                removed: removing,
            },
        )?;
        // Drop it from /admin/reassign_partitions; delete the znode when empty.
        if let Some(v) = self.zk.data_json("/admin/reassign_partitions") {
            let rest: Vec<serde_json::Value> = v
                .get("partitions")
                .and_then(|p| p.as_array())
                .map(|a| {
                    a.iter()
                        .filter(|x| {
                            !(x.get("topic").and_then(|t| t.as_str()) == Some(&*tp.topic)
                                && x.get("partition").and_then(|p| p.as_i64())
                                    == Some(tp.partition as i64))
                        })
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            if rest.is_empty() {
                self.zk_delete(NodeId::Broker(c), "/admin/reassign_partitions")?;
            } else {
                let data = serde_json::json!({"version": 1, "partitions": rest}).to_string();
                self.zk_set(NodeId::Broker(c), "/admin/reassign_partitions", data)?;
            }
        }
        batch.all_metadata = true;
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
        self.zk_set(NodeId::User, "/admin/reassign_partitions", data)
            .map(|_| ())
    }
}
