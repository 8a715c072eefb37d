//! Partition reassignment (`KafkaController.onPartitionReassignment`,
//! KIP-455, Kafka 3.9): the replica set grows to the union of old and new,
//! the new replicas catch up and join the ISR, leadership moves if the leader
//! is not in the new set, then the old replicas are stopped and the
//! assignment written to ZooKeeper.

use super::*;

impl BrokerCx<'_> {
    /// `/admin/reassign_partitions` appeared or changed: start what is new.
    pub(super) fn controller_on_reassign_request(&mut self) -> Step {
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
            let known = self.ctl().assignments.contains_key(&tp);
            let already = self
                .ctl()
                .reassigning
                .get(&tp)
                .is_some_and(|(_, t)| *t == target);
            if !known || already {
                continue;
            }
            self.controller_reassign_start(&tp, target, &mut batch)?;
        }
        self.controller_flush(batch)
    }

    /// Phase A (KIP-455): RS = TRS + ORS, the new replicas start and catch up.
    pub(super) fn controller_reassign_start(
        &mut self,
        tp: &TopicPartition,
        target: Vec<BrokerId>,
        batch: &mut Batch,
    ) -> Step {
        let c = self.id;
        let original = self.ctl().assignments[tp].clone();
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
            let ctx = self.ctl_mut();
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
        self.controller_write_topic_znode(&tp.topic)?;
        if let Some(st) = self.ctl().states.get(tp).cloned() {
            self.controller_write_state(tp, st.leader, st.leader_epoch + 1, st.isr.clone())?;
            let live = self.ctl().live.clone();
            for r in full.iter().filter(|r| live.contains(r)) {
                self.batch_leader_and_isr(batch, *r, tp, false);
            }
        }
        self.controller_maybe_complete_reassignment(tp, batch)
    }

    /// Phase B: once every target replica is in the ISR, the assignment becomes
    /// the target, the leader moves if it is not in it, and the old replicas
    /// leave the ISR and are deleted.
    pub(super) fn controller_maybe_complete_reassignment(
        &mut self,
        tp: &TopicPartition,
        batch: &mut Batch,
    ) -> Step {
        let c = self.id;
        let Some((original, target)) = self.ctl().reassigning.get(tp).cloned() else {
            return Ok(());
        };
        let Some(st) = self.ctl().states.get(tp).cloned() else {
            return Ok(());
        };
        let live = self.ctl().live.clone();
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
        // B3 of `onPartitionReassignment`: the assignment becomes the target
        // with no adding or removing replicas before the LeaderAndIsr goes.
        self.ctl_mut()
            .assignments
            .insert(tp.clone(), target.clone());
        self.ctl_mut().reassigning.remove(tp);
        if st.leader < 0
            || !target.contains(&BrokerId(st.leader))
            || !live.contains(&BrokerId(st.leader))
        {
            self.controller_elect(tp, ElectionAlgorithm::Reassign, batch)?;
        } else {
            self.controller_write_state(tp, st.leader, st.leader_epoch + 1, st.isr.clone())?;
            for r in target.iter().filter(|r| live.contains(r)) {
                self.batch_leader_and_isr(batch, *r, tp, false);
            }
        }
        // The old replicas leave the ISR (OfflineReplica), then are deleted.
        let st = self.ctl().states[tp].clone();
        let new_isr: Vec<BrokerId> = st
            .isr
            .iter()
            .copied()
            .filter(|b| !removing.contains(b))
            .collect();
        if new_isr != st.isr && !new_isr.is_empty() {
            self.controller_write_state(tp, st.leader, st.leader_epoch + 1, new_isr)?;
            // Every remaining replica hears the new epoch (Kafka sends it to
            // the assignment minus the removed replicas).
            for r in target.iter().filter(|r| live.contains(r)) {
                self.batch_leader_and_isr(batch, *r, tp, false);
            }
        }
        let epoch = self.ctl().epoch;
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
        self.controller_write_topic_znode(&tp.topic)?;
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
                self.zkc()
                    .delete(NodeId::Broker(c), "/admin/reassign_partitions")?;
            } else {
                let data = serde_json::json!({"version": 1, "partitions": rest}).to_string();
                self.zkc()
                    .set(NodeId::Broker(c), "/admin/reassign_partitions", data)?;
            }
        }
        batch.all_metadata = true;
        Ok(())
    }
}
