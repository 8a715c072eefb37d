//! The leader's view of its followers (`kafka.cluster.Partition`, Kafka
//! 3.9): each follower fetch updates that replica's LEO
//! (`updateFollowerFetchState`), the high watermark moves to the smallest LEO
//! of the ISR (`maybeIncrementLeaderHW`, held while the ISR is below
//! `min.insync.replicas`), and the ISR grows (`maybeExpandIsr`) or shrinks
//! (`maybeShrinkIsr`, after `replica.lag.time.max.ms`) through the
//! controller with `AlterPartition` (`prepareIsrExpand`/`prepareIsrShrink`,
//! `handleAlterPartitionUpdate`).

use super::*;

impl BrokerCx<'_> {
    /// `updateFollowerFetchState`: the follower's fetch offset is its LEO.
    pub(super) fn leader_record_follower_fetch(
        &mut self,
        f: BrokerId,
        fp: &FetchPartition,
    ) -> Step {
        let b = self.id;
        let now = self.k.now;
        let lag = self.k.sc.cluster.config.replica_lag_time_max_ms;
        let Some(p) = self.me().partitions.get(&fp.tp).filter(|p| p.is_leader) else {
            return Ok(());
        };
        if fp.current_leader_epoch != p.leader_epoch || !p.remote.contains_key(&f) {
            return Ok(());
        }
        let leader_leo = self.me().logs[&fp.tp].log_end_offset;
        if fp.last_fetched_epoch >= 0 {
            let (e, end) = self.me().logs[&fp.tp].end_offset_for_epoch(fp.last_fetched_epoch);
            if e < fp.last_fetched_epoch || end < fp.fetch_offset {
                return Ok(()); // diverging: the follower must truncate first
            }
        }
        if fp.fetch_offset > leader_leo {
            return Ok(());
        }
        self.k.gate()?;
        let r = self
            .me_mut()
            .partitions
            .get_mut(&fp.tp)
            .expect("checked")
            .remote
            .get_mut(&f)
            .expect("checked");
        let caught_up = if fp.fetch_offset >= leader_leo {
            r.last_caught_up_ms = r.last_caught_up_ms.max(now);
            true
        } else {
            if fp.fetch_offset >= r.last_fetch_leader_leo && r.last_fetch_leader_leo >= 0 {
                r.last_caught_up_ms = r.last_caught_up_ms.max(r.last_fetch_ms);
            }
            now.saturating_sub(r.last_caught_up_ms) <= lag
        };
        let changed = r.leo != fp.fetch_offset;
        r.leo = fp.fetch_offset;
        r.log_start_offset = fp.log_start_offset;
        r.last_fetch_leader_leo = r.last_fetch_leader_leo.max(leader_leo);
        r.last_fetch_ms = now;
        if changed {
            self.k.emit(
                vec![bnode(b), bnode(f)],
                EventKind::FollowerFetchRecorded {
                    broker: b,
                    tp: fp.tp.clone(),
                    follower: f,
                    follower_leo: fp.fetch_offset,
                    leader_leo,
                    caught_up,
                },
            );
        }
        self.maybe_expand_isr(&fp.tp, f)?;
        self.maybe_increment_hw(&fp.tp)
    }

    /// `maybeIncrementLeaderHW`.
    pub(crate) fn maybe_increment_hw(&mut self, tp: &TopicPartition) -> Step {
        let b = self.id;
        let now = self.k.now;
        let lag = self.k.sc.cluster.config.replica_lag_time_max_ms;
        let br = self.me();
        let Some(p) = br.partitions.get(tp).filter(|p| p.is_leader) else {
            return Ok(());
        };
        let log = &br.logs[tp];
        let leo = log.log_end_offset;
        let min_isr = p.effective_min_isr(log.config.min_insync_replicas);
        let maximal = p.maximal_isr();
        let mut new_hw = leo;
        for (id, r) in &p.remote {
            // A caught-up replica about to join the ISR is waited for only
            // while it may join (`isReplicaIsrEligible`: with ZooKeeper, the
            // broker's metadata cache lists it as alive).
            let eligible = br.metadata.live_brokers.contains(id);
            // `Replica.isCaughtUp` (3.9 lines 67-73). A replica never caught
            // up has lastCaughtUpTimeMs 0: in Kafka that is 1970, far past
            // the lag; here the clock starts at 0, so 0 is read as never.
            let caught_up = r.leo == leo
                || (r.last_caught_up_ms > 0 && now.saturating_sub(r.last_caught_up_ms) <= lag);
            if r.leo < new_hw && (maximal.contains(id) || caught_up && eligible) {
                new_hw = r.leo;
            }
        }
        if new_hw <= p.high_watermark {
            return Ok(());
        }
        if (p.isr.len() as i32) < min_isr {
            // Kafka ≥ 3.7: the high watermark waits until the ISR is big enough again.
            return self
                .k
                .record(
                    vec![bnode(b)],
                    EventKind::HighWatermarkHeld {
                        broker: b,
                        tp: tp.clone(),
                        isr_size: p.isr.len() as u32,
                        min_insync_replicas: min_isr,
                    },
                )
                .map(|_| ());
        }
        let mut isr_leos = vec![(b, leo)];
        for id in &maximal {
            if let Some(r) = p.remote.get(id) {
                isr_leos.push((*id, r.leo));
            }
        }
        let old = p.high_watermark;
        self.k.gate()?;
        let br = self.me_mut();
        br.partitions.get_mut(tp).expect("checked").high_watermark = new_hw;
        if let Some(s) = br.producer_states.get_mut(tp) {
            s.on_high_watermark_updated(new_hw);
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::HighWatermarkUpdated {
                broker: b,
                tp: tp.clone(),
                old,
                new: new_hw,
                leader: true,
                isr_leos,
            },
        );
        self.check_hw_within_isr(b, tp)?;
        self.complete_delayed_produces(tp)?;
        self.complete_delayed_fetches(tp)
    }

    pub(super) fn maybe_expand_isr(&mut self, tp: &TopicPartition, f: BrokerId) -> Step {
        let Some(p) = self.me().partitions.get(tp).filter(|p| p.is_leader) else {
            return Ok(());
        };
        if p.isr.contains(&f) || p.pending_isr.is_some() {
            return Ok(());
        }
        // `canAddReplicaToIsr`: only a broker the metadata cache lists as alive.
        if !self.me().metadata.live_brokers.contains(&f) {
            return Ok(());
        }
        let Some(r) = p.remote.get(&f) else {
            return Ok(());
        };
        if r.leo >= p.high_watermark && r.leo >= p.leader_epoch_start_offset {
            let mut new_isr = p.isr.clone();
            new_isr.push(f);
            let reason = format!(
                "follower {} caught up: its LEO {} reached the high watermark {}",
                f.0, r.leo, p.high_watermark
            );
            self.propose_isr(tp, new_isr, reason)?;
        }
        Ok(())
    }

    /// `maybeShrinkIsr`, run every `replica.lag.time.max.ms / 2`.
    pub(super) fn broker_maybe_shrink_isr(&mut self) -> Step {
        let b = self.id;
        let now = self.k.now;
        let lag = self.k.sc.cluster.config.replica_lag_time_max_ms;
        let mut todo = Vec::new();
        for (tp, p) in &self.me().partitions {
            if !p.is_leader || p.pending_isr.is_some() {
                continue;
            }
            let leo = self.me().logs[tp].log_end_offset;
            let out: Vec<BrokerId> = p
                .isr
                .iter()
                .copied()
                .filter(|id| *id != b)
                .filter(|id| {
                    p.remote.get(id).is_none_or(|r| {
                        r.leo != leo && now.saturating_sub(r.last_caught_up_ms) > lag
                    })
                })
                .collect();
            if !out.is_empty() {
                let new_isr: Vec<BrokerId> =
                    p.isr.iter().copied().filter(|x| !out.contains(x)).collect();
                let reason = format!(
                    "follower{} {} not caught up for more than replica.lag.time.max.ms={lag}",
                    if out.len() > 1 { "s" } else { "" },
                    crate::event::ids_list(&out)
                );
                todo.push((tp.clone(), new_isr, reason));
            }
        }
        for (tp, isr, reason) in todo {
            self.propose_isr(&tp, isr, reason)?;
        }
        Ok(())
    }

    pub(super) fn propose_isr(
        &mut self,
        tp: &TopicPartition,
        new_isr: Vec<BrokerId>,
        reason: String,
    ) -> Step {
        let b = self.id;
        // With ZooKeeper, to the controller broker; with KRaft, to the
        // active controller (the quorum leader).
        let to = match self.me().kraft.as_ref() {
            Some(kr) => match kr.raft.leader() {
                Some(c) => NodeId::Controller(c),
                None => return Ok(()),
            },
            None => match self.me().metadata.controller_id {
                c if c < 0 => return Ok(()),
                c => bnode(BrokerId(c)),
            },
        };
        self.k.gate()?;
        let (old, epoch, pe) = {
            let p = self.me_mut().partitions.get_mut(tp).expect("leader");
            p.pending_isr = Some(new_isr.clone());
            (p.isr.clone(), p.leader_epoch, p.partition_epoch)
        };
        self.k.emit(
            vec![bnode(b)],
            EventKind::IsrChangeProposed {
                broker: b,
                tp: tp.clone(),
                old_isr: old,
                new_isr: new_isr.clone(),
                reason,
            },
        );
        self.k.send(
            bnode(b),
            to,
            Message::AlterPartition {
                broker: b,
                tp: tp.clone(),
                leader_epoch: epoch,
                new_isr,
                partition_epoch: pe,
            },
        )?;
        let at = self.k.now + self.k.sc.cluster.config.request_timeout_ms;
        self.k.set_timer(
            bnode(b),
            at,
            Timer::AlterPartitionTimeout {
                tp: tp.clone(),
                partition_epoch: pe,
            },
        )
    }

    pub(super) fn broker_on_alter_partition_response(
        &mut self,
        tp: TopicPartition,
        error: Option<ErrorCode>,
        leader_epoch: i32,
        isr: Vec<BrokerId>,
        partition_epoch: i32,
    ) -> Step {
        let b = self.id;
        let Some(p) = self.me().partitions.get(&tp) else {
            return Ok(());
        };
        if !p.is_leader || p.pending_isr.is_none() {
            return Ok(());
        }
        self.k.gate()?;
        let p = self.me_mut().partitions.get_mut(&tp).expect("checked");
        p.pending_isr = None;
        if let Some(e) = error {
            self.k.emit(
                vec![bnode(b)],
                EventKind::IsrChangeRejected {
                    broker: b,
                    tp,
                    error: e,
                },
            );
            return Ok(());
        }
        if leader_epoch != p.leader_epoch {
            return Ok(());
        }
        p.isr = isr.clone();
        p.partition_epoch = partition_epoch;
        self.k.emit(
            vec![bnode(b)],
            EventKind::IsrChangeApplied {
                broker: b,
                tp: tp.clone(),
                isr,
                partition_epoch,
            },
        );
        self.maybe_increment_hw(&tp)
    }
}
