//! Partition leadership and the ISR as the controller changes them
//! (`kafka.controller.PartitionStateMachine` and `ReplicaStateMachine`,
//! Kafka 3.9): a new partition's first leader and ISR
//! (`initializeLeaderAndIsrForPartitions`), the election strategies of
//! `PartitionLeaderElectionAlgorithms` (offline, with
//! `unclean.leader.election.enable`; preferred, for
//! `auto.leader.rebalance.enable`), taking a dead broker out of the ISR
//! (`removeReplicasFromIsr`), and the leader's `AlterPartition` requests
//! (`processAlterPartition`).

use super::*;

/// A new leader and ISR the controller writes for one partition, why, and
/// the broker not to send LeaderAndIsr to (the one leaving).
pub(super) struct IsrChange {
    pub(super) leader: i32,
    pub(super) isr: Vec<BrokerId>,
    pub(super) reason: String,
    pub(super) skip: Option<BrokerId>,
}

impl BrokerCx<'_> {
    /// NewPartition → OnlinePartition: the first live replica leads.
    pub(super) fn controller_init_partition(
        &mut self,
        tp: &TopicPartition,
        batch: &mut Batch,
    ) -> Step {
        let c = self.id;
        let (ar, live) = {
            let ctx = self.ctl();
            (ctx.assignments[tp].clone(), ctx.live.clone())
        };
        let live_reps: Vec<BrokerId> = ar.iter().copied().filter(|r| live.contains(r)).collect();
        let Some(leader) = live_reps.first().copied() else {
            let candidates = ar
                .iter()
                .map(|b| crate::election::Candidate {
                    broker: *b,
                    alive: false,
                    in_isr: false,
                    shutting_down: false,
                    chosen: false,
                })
                .collect();
            self.k.record(
                vec![NodeId::Broker(c)],
                EventKind::NoLeaderElected {
                    tp: tp.clone(),
                    algorithm: ElectionAlgorithm::Offline,
                    candidates,
                    isr: vec![],
                },
            )?;
            return Ok(());
        };
        self.controller_write_state(tp, leader.0, 0, live_reps.clone())?;
        let candidates = ar
            .iter()
            .map(|b| crate::election::Candidate {
                broker: *b,
                alive: live.contains(b),
                in_isr: live.contains(b),
                shutting_down: false,
                chosen: *b == leader,
            })
            .collect();
        self.k.record(
            vec![NodeId::Broker(c), NodeId::Broker(leader)],
            EventKind::LeaderElected {
                tp: tp.clone(),
                algorithm: ElectionAlgorithm::Offline,
                old_leader: -1,
                leader,
                leader_epoch: 0,
                isr: live_reps.clone(),
                unclean: false,
                candidates,
            },
        )?;
        for r in &live_reps {
            self.batch_leader_and_isr(batch, *r, tp, true);
        }
        Ok(())
    }

    /// Runs an election for one partition and records the outcome.
    pub(super) fn controller_elect(
        &mut self,
        tp: &TopicPartition,
        algorithm: ElectionAlgorithm,
        batch: &mut Batch,
    ) -> Step<Option<BrokerId>> {
        let c = self.id;
        let (ar, st, live, down) = {
            let ctx = self.ctl();
            let Some(st) = ctx.states.get(tp).cloned() else {
                return Ok(None);
            };
            (
                ctx.assignments[tp].clone(),
                st,
                ctx.live.clone(),
                ctx.shutting_down.clone(),
            )
        };
        let unclean = self
            .topic_log_config(&tp.topic)
            .unclean_leader_election_enable;
        let input = ElectionInput {
            algorithm,
            assignment: ar.clone(),
            isr: st.isr.clone(),
            live: live
                .iter()
                .copied()
                .filter(|b| algorithm == ElectionAlgorithm::ControlledShutdown || !down.contains(b))
                .collect(),
            unclean_leader_election_enable: unclean,
            shutting_down: down.iter().copied().collect(),
        };
        let out = elect(&input);
        let Some(leader) = out.leader else {
            self.k.record(
                vec![NodeId::Broker(c)],
                EventKind::NoLeaderElected {
                    tp: tp.clone(),
                    algorithm,
                    candidates: out.candidates,
                    isr: st.isr.clone(),
                },
            )?;
            return Ok(None);
        };
        let new_epoch = st.leader_epoch + 1;
        self.controller_write_state(tp, leader.0, new_epoch, out.isr.clone())?;
        self.k.record(
            vec![NodeId::Broker(c), NodeId::Broker(leader)],
            EventKind::LeaderElected {
                tp: tp.clone(),
                algorithm,
                old_leader: st.leader,
                leader,
                leader_epoch: new_epoch,
                isr: out.isr.clone(),
                unclean: out.unclean,
                candidates: out.candidates,
            },
        )?;
        if out.unclean {
            self.k.record(vec![NodeId::Broker(c)], EventKind::GuaranteeBroken {
                guarantee: crate::event::Guarantee::AcknowledgedRecordsSurvive,
                tp: Some(tp.clone()),
                detail: format!(
                    "unclean leader election: broker {} was not in the ISR {}, so records it never copied are gone",
                    leader.0,
                    crate::event::ids_list(&st.isr)
                ),
            })?;
        }
        for r in ar.iter().filter(|r| live.contains(r)) {
            self.batch_leader_and_isr(batch, *r, tp, false);
        }
        Ok(Some(leader))
    }

    /// Offline partitions among `parts` (no live leader) get a new leader.
    pub(super) fn controller_elect_offline(
        &mut self,
        parts: &[TopicPartition],
        batch: &mut Batch,
    ) -> Step {
        for tp in parts {
            let offline = {
                let ctx = self.ctl();
                match ctx.states.get(tp) {
                    Some(st) => st.leader < 0 || !ctx.live.contains(&BrokerId(st.leader)),
                    None => false,
                }
            };
            if offline {
                self.controller_elect(tp, ElectionAlgorithm::Offline, batch)?;
            }
        }
        Ok(())
    }

    /// OfflineReplica: `dead` leaves every ISR it is in (`removeReplicasFromIsr`).
    /// If it was the only ISR member it stays, with no leader, so an unclean
    /// election later knows who had the data.
    pub(super) fn controller_remove_from_isr(
        &mut self,
        dead: BrokerId,
        batch: &mut Batch,
        reason: &str,
    ) -> Step {
        for (tp, st) in self.controller_isr_members(dead) {
            self.controller_remove_one(dead, &tp, st, batch, reason)?;
        }
        Ok(())
    }

    /// The partitions whose ISR holds `b`, with their state now.
    pub(super) fn controller_isr_members(&self, b: BrokerId) -> Vec<(TopicPartition, LeaderIsr)> {
        self.ctl()
            .states
            .iter()
            .filter(|(_, s)| s.isr.contains(&b))
            .map(|(tp, s)| (tp.clone(), s.clone()))
            .collect()
    }

    /// `dead` leaves the ISR of one partition whose state was `st`.
    pub(super) fn controller_remove_one(
        &mut self,
        dead: BrokerId,
        tp: &TopicPartition,
        st: LeaderIsr,
        batch: &mut Batch,
        reason: &str,
    ) -> Step {
        let new_leader = if st.leader == dead.0 { -1 } else { st.leader };
        let new_isr: Vec<BrokerId> = if st.isr.len() == 1 {
            st.isr.clone()
        } else {
            st.isr.iter().copied().filter(|b| *b != dead).collect()
        };
        if new_leader == st.leader && new_isr == st.isr {
            return Ok(());
        }
        let reason = format!("broker {} {reason}", dead.0);
        let change = IsrChange {
            leader: new_leader,
            isr: new_isr,
            reason,
            skip: Some(dead),
        };
        self.controller_change_isr(tp, &st, change, batch)
    }

    /// Writes a partition's new leader and ISR (one leader epoch up), records
    /// why, and batches a LeaderAndIsr for its live replicas but `skip`.
    /// Writes a partition's new leader and ISR (one more leader epoch) and
    /// queues LeaderAndIsr for its live replicas but `change.skip`.
    pub(super) fn controller_change_isr(
        &mut self,
        tp: &TopicPartition,
        st: &LeaderIsr,
        change: IsrChange,
        batch: &mut Batch,
    ) -> Step {
        let IsrChange {
            leader: new_leader,
            isr: new_isr,
            reason,
            skip,
        } = change;
        let c = self.id;
        let epoch = st.leader_epoch + 1;
        let pe = self.controller_write_state(tp, new_leader, epoch, new_isr.clone())?;
        self.k.record(
            vec![NodeId::Broker(c)],
            EventKind::IsrUpdatedByController {
                tp: tp.clone(),
                old_isr: st.isr.clone(),
                new_isr,
                leader_epoch: epoch,
                partition_epoch: pe,
                reason,
            },
        )?;
        let live = self.ctl().live.clone();
        let ar = self.ctl().assignments[tp].clone();
        for r in ar.iter().filter(|r| live.contains(r) && Some(**r) != skip) {
            self.batch_leader_and_isr(batch, *r, tp, false);
        }
        Ok(())
    }

    /// AlterPartition from a leader (KIP-497).
    pub(crate) fn controller_on_alter_partition(
        &mut self,
        from: BrokerId,
        tp: TopicPartition,
        leader_epoch: i32,
        new_isr: Vec<BrokerId>,
        partition_epoch: i32,
    ) -> Step {
        let c = self.id;
        let (st, live) = {
            let ctx = self.ctl();
            (ctx.states.get(&tp).cloned(), ctx.live.clone())
        };
        let reply = |w: &mut BrokerCx, error: Option<ErrorCode>, st: &LeaderIsr| {
            w.k.send(
                NodeId::Broker(c),
                NodeId::Broker(from),
                Message::AlterPartitionResponse {
                    tp: tp.clone(),
                    error,
                    leader: st.leader,
                    leader_epoch: st.leader_epoch,
                    isr: st.isr.clone(),
                    partition_epoch: st.partition_epoch,
                },
            )
            .map(|_| ())
        };
        let Some(st) = st else {
            let empty = LeaderIsr {
                leader: -1,
                leader_epoch: -1,
                isr: vec![],
                controller_epoch: 0,
                partition_epoch: -1,
            };
            return reply(self, Some(ErrorCode::UnknownTopicOrPartition), &empty);
        };
        if leader_epoch != st.leader_epoch || st.leader != from.0 {
            return reply(self, Some(ErrorCode::FencedLeaderEpoch), &st);
        }
        if partition_epoch != st.partition_epoch {
            return reply(self, Some(ErrorCode::InvalidUpdateVersion), &st);
        }
        if new_isr.iter().any(|b| !live.contains(b)) {
            return reply(self, Some(ErrorCode::IneligibleReplica), &st);
        }
        let pe = self.controller_write_state(&tp, st.leader, st.leader_epoch, new_isr.clone())?;
        self.k.record(
            vec![NodeId::Broker(c)],
            EventKind::IsrUpdatedByController {
                tp: tp.clone(),
                old_isr: st.isr.clone(),
                new_isr,
                leader_epoch: st.leader_epoch,
                partition_epoch: pe,
                reason: format!("AlterPartition from leader {}", from.0),
            },
        )?;
        let st = self.ctl().states[&tp].clone();
        reply(self, None, &st)?;
        let mut batch = Batch::default();
        batch.metadata.insert(tp.clone());
        self.controller_maybe_complete_reassignment(&tp, &mut batch)?;
        self.controller_flush(batch)
    }

    /// Preferred-replica election for the given partitions (or all).
    pub(crate) fn controller_elect_preferred(&mut self, only: Option<Vec<TopicPartition>>) -> Step {
        let parts: Vec<TopicPartition> = {
            let ctx = self.ctl();
            ctx.states
                .iter()
                .filter(|(tp, st)| {
                    only.as_ref().is_none_or(|o| o.contains(tp))
                        && ctx
                            .assignments
                            .get(*tp)
                            .and_then(|a| a.first())
                            .is_some_and(|p| p.0 != st.leader)
                })
                .map(|(tp, _)| tp.clone())
                .collect()
        };
        let mut batch = Batch::default();
        for tp in parts {
            self.controller_elect(&tp, ElectionAlgorithm::Preferred, &mut batch)?;
        }
        self.controller_flush(batch)
    }

    /// `checkAndTriggerAutoLeaderRebalance`: per broker, the share of the
    /// partitions it should lead (it is their first replica) but does not.
    pub(crate) fn controller_auto_rebalance(&mut self) -> Step {
        let c = self.id;
        let pct = self
            .k
            .sc
            .cluster
            .config
            .leader_imbalance_per_broker_percentage;
        let mut todo = Vec::new();
        let per_broker: SortedMap<BrokerId, (u32, u32, Vec<TopicPartition>)> = {
            let ctx = self.ctl();
            let mut m: SortedMap<BrokerId, (u32, u32, Vec<TopicPartition>)> = SortedMap::new();
            for (tp, ar) in &ctx.assignments {
                let Some(pref) = ar.first() else { continue };
                let Some(st) = ctx.states.get(tp) else {
                    continue;
                };
                let e = m.entry(*pref).or_default();
                e.1 += 1;
                if st.leader != pref.0 {
                    e.0 += 1;
                    if ctx.live.contains(pref)
                        && st.isr.contains(pref)
                        && !ctx.shutting_down.contains(pref)
                    {
                        e.2.push(tp.clone());
                    }
                }
            }
            m
        };
        for (b, (imbalanced, total, candidates)) in per_broker {
            // imbalance ratio = imbalanced / total, compared with the percentage.
            if total > 0 && imbalanced * 100 > pct * total {
                self.k.record(
                    vec![NodeId::Broker(c)],
                    EventKind::PreferredLeaderImbalance {
                        controller: c,
                        broker: b,
                        imbalanced,
                        total,
                        percentage: pct,
                    },
                )?;
                todo.extend(candidates);
            }
        }
        if !todo.is_empty() {
            self.controller_elect_preferred(Some(todo))?;
        }
        let at = self.k.now
            + self
                .k
                .sc
                .cluster
                .config
                .leader_imbalance_check_interval_seconds
                * 1000;
        self.k
            .set_timer(NodeId::Broker(c), at, Timer::AutoLeaderRebalance)
    }
}
