//! `kafka.server.ReplicaManager` (Kafka 3.9), the parts that change a
//! broker's replicas: `becomeLeaderOrFollower` for a LeaderAndIsr request,
//! partition by partition (`Partition.makeLeader` / `makeFollower`, with the
//! truncation a new follower does), `stopReplicas`, and `appendRecords` for a
//! Produce request (`Partition.appendRecordsToLeader`: the
//! `min.insync.replicas` check, then the log append).

use super::*;

impl BrokerCx<'_> {
    /// `becomeLeaderOrFollower`.
    pub(super) fn broker_on_leader_and_isr(
        &mut self,
        controller_id: BrokerId,
        controller_epoch: i32,
        parts: Vec<Arc<PartitionState>>,
    ) -> Step {
        let b = self.id;
        let known = self.me().known_controller_epoch;
        if controller_epoch < known {
            self.k.record(
                vec![bnode(b)],
                EventKind::StaleControllerIgnored {
                    broker: b,
                    request_epoch: controller_epoch,
                    known_epoch: known,
                },
            )?;
            return self
                .k
                .send(
                    bnode(b),
                    bnode(controller_id),
                    Message::LeaderAndIsrResponse {
                        controller_epoch,
                        error: Some(ErrorCode::StaleControllerEpoch),
                        partitions: vec![],
                    },
                )
                .map(|_| ());
        }
        self.k.gate()?;
        self.me_mut().known_controller_epoch = controller_epoch;
        self.broker_leader_and_isr_next(LeaderAndIsrWork {
            b,
            controller_id,
            controller_epoch,
            parts: parts.into(),
            results: Vec::new(),
        })
    }

    /// One partition of a LeaderAndIsr request (partitions this broker does
    /// not host, or whose state is not newer, are passed over in the same
    /// step); the rest is left for the next step, and the response goes
    /// after the last.
    pub(crate) fn broker_leader_and_isr_next(&mut self, mut k: LeaderAndIsrWork) -> Step {
        let b = k.b;
        while let Some(ps) = k.parts.pop_front() {
            if !ps.replicas.contains(&b) {
                continue;
            }
            let current = self.me().partitions.get(&ps.tp).map(|p| p.leader_epoch);
            if current.is_some_and(|e| ps.leader_epoch <= e) {
                k.results.push((ps.tp.clone(), None));
                continue; // not newer: Kafka ignores it
            }
            self.broker_ensure_log(&ps.tp)?;
            if ps.leader == b.0 {
                self.make_leader(&ps)?;
            } else {
                self.make_follower(&ps)?;
            }
            k.results.push((ps.tp.clone(), None));
            if !k.parts.is_empty() {
                return self.continue_with(Continuation::LeaderAndIsr(k));
            }
        }
        self.k.send(
            bnode(b),
            bnode(k.controller_id),
            Message::LeaderAndIsrResponse {
                controller_epoch: k.controller_epoch,
                error: None,
                partitions: k.results,
            },
        )?;
        // `becomeLeaderOrFollower` starts the `highwatermark-checkpoint`
        // task after the first LeaderAndIsr, with no delay, then every
        // `replica.high.watermark.checkpoint.interval.ms` (ReplicaManager,
        // 3.9 lines 358-361 and 2060-2062).
        if !self.me().hw_checkpoint_started {
            self.k.gate()?;
            self.me_mut().hw_checkpoint_started = true;
            let now = self.k.now;
            self.k.set_timer(bnode(b), now, Timer::HwCheckpoint)?;
        }
        Ok(())
    }

    /// The HW a partition starts with: the one in memory, else the
    /// checkpoint's, else 0, clamped to [log start offset, LEO]
    /// (`UnifiedLog.updateHighWatermark`, 3.9 lines 291-303).
    pub(super) fn starting_hw(&self, tp: &TopicPartition) -> i64 {
        let br = self.me();
        let leo = br.logs.get(tp).map(|l| l.log_end_offset).unwrap_or(0);
        let start = br.logs.get(tp).map(|l| l.log_start_offset).unwrap_or(0);
        let hw = br
            .partitions
            .get(tp)
            .map(|p| p.high_watermark)
            .or_else(|| br.hw_checkpoint.get(tp).copied())
            .unwrap_or(0);
        hw.min(leo).max(start)
    }

    pub(super) fn make_leader(&mut self, ps: &PartitionState) -> Step {
        let b = self.id;
        let hw = self.starting_hw(&ps.tp);
        self.k.gate()?;
        let now = self.k.now;
        let br = self.me_mut();
        for f in br.fetchers.values_mut() {
            f.partitions.remove(&ps.tp);
        }
        let log = br.logs.get_mut(&ps.tp).expect("log ensured");
        let leo = log.log_end_offset;
        log.assign_epoch(ps.leader_epoch, leo);
        // `Partition.makeLeader` (3.9 lines 771-801) resets each remote
        // replica (`Replica.resetReplicaState`, lines 150-188). A new leader
        // knows nothing of its followers (LEO -1). A leader re-elected with a
        // newer epoch (here always newer: an older one was ignored above)
        // keeps what it knew of each follower's log, so the high watermark
        // may move at once below, without waiting for a fetch.
        let kept = br
            .partitions
            .get(&ps.tp)
            .filter(|p| p.is_leader)
            .map(|p| p.remote.clone());
        let remote = ps
            .replicas
            .iter()
            .filter(|r| **r != b)
            .map(|r| {
                let in_isr = ps.isr.contains(r);
                let caught_up = if in_isr { now } else { 0 };
                let replica = match kept.as_ref().and_then(|k| k.get(r)) {
                    Some(old) => RemoteReplica {
                        leo: old.leo,
                        last_caught_up_ms: caught_up,
                        last_fetch_ms: caught_up,
                        last_fetch_leader_leo: leo,
                        log_start_offset: old.log_start_offset,
                    },
                    None => RemoteReplica {
                        leo: -1,
                        last_caught_up_ms: caught_up,
                        last_fetch_ms: 0,
                        last_fetch_leader_leo: -1,
                        log_start_offset: -1,
                    },
                };
                (*r, replica)
            })
            .collect();
        br.partitions.insert(
            ps.tp.clone(),
            Partition {
                tp: ps.tp.clone(),
                replicas: ps.replicas.clone(),
                adding_replicas: ps.adding_replicas.clone(),
                isr: ps.isr.clone(),
                leader: b.0,
                leader_epoch: ps.leader_epoch,
                partition_epoch: ps.partition_epoch,
                high_watermark: hw,
                is_leader: true,
                remote,
                pending_isr: None,
                leader_epoch_start_offset: leo,
            },
        );
        self.k.emit(
            vec![bnode(b)],
            EventKind::BecameLeader {
                broker: b,
                tp: ps.tp.clone(),
                leader_epoch: ps.leader_epoch,
                isr: ps.isr.clone(),
                high_watermark: hw,
                log_end_offset: leo,
            },
        );
        self.check_acked_records(&ps.tp)?;
        self.check_leaders(&ps.tp)?;
        self.maybe_increment_hw(&ps.tp)?;
        self.fail_delayed_produces(&ps.tp, None)?;
        self.txn_on_leader(&ps.tp, ps.leader_epoch)?;
        self.coordinator_on_leader(&ps.tp)
    }

    pub(super) fn make_follower(&mut self, ps: &PartitionState) -> Step {
        let b = self.id;
        let hw = self.starting_hw(&ps.tp);
        let was_leader = self
            .me()
            .partitions
            .get(&ps.tp)
            .is_some_and(|p| p.is_leader);
        self.k.gate()?;
        let leo = self.me().logs[&ps.tp].log_end_offset;
        {
            let br = self.me_mut();
            for f in br.fetchers.values_mut() {
                f.partitions.remove(&ps.tp);
            }
            br.partitions.insert(
                ps.tp.clone(),
                Partition {
                    tp: ps.tp.clone(),
                    replicas: ps.replicas.clone(),
                    adding_replicas: ps.adding_replicas.clone(),
                    isr: ps.isr.clone(),
                    leader: ps.leader,
                    leader_epoch: ps.leader_epoch,
                    partition_epoch: ps.partition_epoch,
                    high_watermark: hw,
                    is_leader: false,
                    remote: SortedMap::new(),
                    pending_isr: None,
                    leader_epoch_start_offset: -1,
                },
            );
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::BecameFollower {
                broker: b,
                tp: ps.tp.clone(),
                leader: ps.leader,
                leader_epoch: ps.leader_epoch,
                high_watermark: hw,
                log_end_offset: leo,
            },
        );
        if was_leader {
            self.fail_delayed_produces(&ps.tp, Some(ErrorCode::NotLeaderOrFollower))?;
        }
        self.coordinator_on_resign(&ps.tp)?;
        self.txn_on_resign(&ps.tp)?;
        if !self.k.sc.cluster.follower_truncation.uses_leader_epochs() && leo > hw {
            // The source notes' rule: cut everything at or above the high watermark.
            self.truncate(
                &ps.tp,
                hw,
                TruncateReason::HighWatermark { high_watermark: hw },
            )?;
        }
        if ps.leader >= 0 {
            let leader = BrokerId(ps.leader);
            self.k.gate()?;
            self.me_mut()
                .fetchers
                .entry(leader)
                .or_default()
                .partitions
                .insert(
                    ps.tp.clone(),
                    FetchState {
                        leader_epoch: ps.leader_epoch,
                        verified: false,
                        delayed_until: 0,
                    },
                );
            self.fetcher_maybe_send(leader)?;
        }
        Ok(())
    }

    /// StopReplica: stop following (and with `delete`, remove the log and its files).
    pub(super) fn broker_stop_replica(&mut self, tp: &TopicPartition, delete: bool) -> Step {
        let b = self.id;
        self.k.gate()?;
        let br = self.me_mut();
        br.partitions.remove(tp);
        for f in br.fetchers.values_mut() {
            f.partitions.remove(tp);
        }
        if delete {
            if let Some(log) = br.logs.remove(tp) {
                for f in crate::storage::paged::Storage::list(&br.disk, &format!("{}/", log.dir)) {
                    let _ = crate::storage::paged::Storage::delete(&mut br.disk, &f);
                }
            }
            br.hw_checkpoint.remove(tp);
            br.producer_states.remove(tp);
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::ReplicaStopped {
                broker: b,
                tp: tp.clone(),
                deleted: delete,
            },
        );
        self.complete_delayed_produces(tp)?;
        self.txn_on_resign(tp)?;
        self.coordinator_on_resign(tp)
    }

    pub(crate) fn truncate(
        &mut self,
        tp: &TopicPartition,
        to: i64,
        reason: TruncateReason,
    ) -> Step {
        let b = self.id;
        self.k.gate()?;
        let br = self.me_mut();
        let Some(log) = br.logs.get_mut(tp) else {
            return Ok(());
        };
        let truncated = log
            .truncate_to(&mut br.disk, to)
            .expect("truncation of an existing log");
        if let Some(t) = truncated {
            let leo = log.log_end_offset;
            if let Some(p) = br.partitions.get_mut(tp) {
                p.high_watermark = p.high_watermark.min(leo);
            }
            if let Some(s) = br.producer_states.get_mut(tp) {
                s.truncate(leo);
            }
            self.k.emit(
                vec![bnode(b)],
                EventKind::LogTruncated {
                    broker: b,
                    tp: tp.clone(),
                    truncated: t,
                    reason,
                },
            );
        }
        Ok(())
    }

    /// Roll if needed, then append: two events.
    pub(crate) fn append_prepared(
        &mut self,
        tp: &TopicPartition,
        p: crate::storage::log::PreparedAppend,
        leader: bool,
    ) -> Step {
        let b = self.id;
        let wall = self.k.wall_ms();
        if let Some(reason) = self.me().logs[tp].roll_reason(&p, wall) {
            self.k.gate()?;
            let br = self.me_mut();
            let log = br.logs.get_mut(tp).expect("exists");
            let roll = log
                .roll(&mut br.disk, reason, Some(p.first_offset), wall)
                .expect("roll");
            self.k.emit(
                vec![bnode(b)],
                EventKind::SegmentRolled {
                    broker: b,
                    tp: tp.clone(),
                    roll,
                },
            );
        }
        self.k.gate()?;
        let br = self.me_mut();
        let log = br.logs.get_mut(tp).expect("exists");
        let appended = log.append(&mut br.disk, &p).expect("append");
        let states = br.producer_states.entry(tp.clone()).or_default();
        states
            .apply_appended(log, &mut br.disk, &appended.batches)
            .expect("markers append in offset order");
        self.k.emit(
            vec![bnode(b)],
            EventKind::BatchAppended {
                broker: b,
                tp: tp.clone(),
                leader,
                appended: Box::new(appended),
            },
        );
        Ok(())
    }

    /// The leader's side of Produce once any verification is done
    /// (`appendRecords`): `guards` are the verified partitions' guards,
    /// `done` the partitions already answered (failed verifications).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn produce_append(
        &mut self,
        from: NodeId,
        correlation_id: i32,
        acks: i16,
        timeout_ms: u64,
        topic_data: Vec<(TopicPartition, Bytes)>,
        guards: &SortedMap<TopicPartition, u64>,
        mut done: Vec<ProducePartitionResponse>,
    ) -> Step {
        let b = self.id;
        let verify = self
            .k
            .sc
            .cluster
            .config
            .transaction_partition_verification_enable;
        let mut waiting = Vec::new();
        for (tp, bytes) in topic_data {
            let reject = |w: &mut BrokerCx,
                          e: ErrorCode,
                          detail: String,
                          done: &mut Vec<ProducePartitionResponse>|
             -> Step {
                w.k.record(
                    vec![bnode(b), from],
                    EventKind::ProduceRejected {
                        broker: b,
                        tp: tp.clone(),
                        error: e,
                        detail,
                    },
                )?;
                done.push(ProducePartitionResponse {
                    tp: tp.clone(),
                    error: Some(e),
                    base_offset: -1,
                    log_start_offset: -1,
                });
                Ok(())
            };
            let Some(p) = self
                .me()
                .partitions
                .get(&tp)
                .filter(|p| p.is_leader)
                .cloned()
            else {
                reject(
                    self,
                    ErrorCode::NotLeaderOrFollower,
                    format!("broker {} does not lead {tp}", b.0),
                    &mut done,
                )?;
                continue;
            };
            let log = &self.me().logs[&tp];
            let min_isr = p.effective_min_isr(log.config.min_insync_replicas);
            if acks == -1 && (p.isr.len() as i32) < min_isr {
                reject(
                    self,
                    ErrorCode::NotEnoughReplicas,
                    format!(
                        "the ISR {} is smaller than min.insync.replicas={min_isr}",
                        crate::event::ids_list(&p.isr)
                    ),
                    &mut done,
                )?;
                continue;
            }
            if log.config.cleanup_policy.compact
                && crate::storage::record::split_batches(bytes.as_slice()).is_ok()
            {
                let missing_key = crate::producer_state::has_record_without_key(bytes.as_slice());
                if missing_key {
                    reject(
                        self,
                        ErrorCode::InvalidRecord,
                        "Compacted topic cannot accept message without key".into(),
                        &mut done,
                    )?;
                    continue;
                }
            }
            // Idempotence: duplicates are acknowledged with their first
            // offsets. And KIP-890's guard, checked after the duplicates.
            let guard = verify.then(|| guards.get(&tp).copied().unwrap_or(0));
            let checked = match self.me().producer_states.get(&tp) {
                Some(s) => s.check_verified(bytes.as_slice(), guard),
                None => crate::producer_state::ProducerStates::default()
                    .check_verified(bytes.as_slice(), guard),
            };
            match checked {
                Err((e, detail)) => {
                    reject(self, e, detail, &mut done)?;
                    continue;
                }
                Ok(Some((dup_base, dup_last))) => {
                    // Acknowledged again with the original offsets, not appended
                    // twice; with acks=all it still waits until those are
                    // committed (Kafka puts it in purgatory like any append).
                    self.k.record(
                        vec![bnode(b), from],
                        EventKind::DuplicateAcknowledged {
                            broker: b,
                            tp: tp.clone(),
                            base_offset: dup_base,
                        },
                    )?;
                    waiting.push(DelayedProducePart {
                        tp: tp.clone(),
                        base_offset: dup_base,
                        required_offset: dup_last + 1,
                        result: None,
                    });
                    continue;
                }
                Ok(None) => {}
            }
            let wall = self.k.wall_ms();
            let prepared =
                match log.prepare_leader_append(bytes.as_slice().to_vec(), p.leader_epoch, wall) {
                    Ok(x) => x,
                    Err(e) => {
                        let code = match e {
                            AppendError::RecordTooLarge { .. } => ErrorCode::RecordListTooLarge,
                            _ => ErrorCode::CorruptMessage,
                        };
                        reject(self, code, e.to_string(), &mut done)?;
                        continue;
                    }
                };
            let base = prepared.first_offset;
            let required = prepared.last_offset + 1;
            self.append_prepared(&tp, prepared, true)?;
            self.check_leaders(&tp)?;
            self.complete_delayed_fetches(&tp)?;
            self.maybe_increment_hw(&tp)?;
            waiting.push(DelayedProducePart {
                tp: tp.clone(),
                base_offset: base,
                required_offset: required,
                result: None,
            });
        }
        if acks == 0 {
            return Ok(());
        }
        if acks == 1 {
            for w in waiting {
                self.k.record(
                    vec![bnode(b), from],
                    EventKind::ProduceCompleted {
                        broker: b,
                        tp: w.tp.clone(),
                        base_offset: w.base_offset,
                        acks,
                        waited_for_isr: false,
                    },
                )?;
                done.push(ProducePartitionResponse {
                    tp: w.tp,
                    error: None,
                    base_offset: w.base_offset,
                    log_start_offset: 0,
                });
            }
            return self
                .k
                .send(
                    bnode(b),
                    from,
                    Message::ProduceResponse {
                        correlation_id,
                        responses: done,
                    },
                )
                .map(|_| ());
        }
        let d = DelayedProduce {
            from,
            correlation_id,
            parts: waiting,
            done,
        };
        self.k.gate()?;
        let br = self.me_mut();
        br.next_delayed += 1;
        let id = br.next_delayed;
        br.delayed_produces.insert(id, d);
        for p in self.me().delayed_produces[&id].parts.clone() {
            let isr = self.me().partitions[&p.tp].maximal_isr();
            self.k.record(
                vec![bnode(b)],
                EventKind::ProduceParked {
                    broker: b,
                    tp: p.tp.clone(),
                    required_offset: p.required_offset,
                    isr,
                },
            )?;
        }
        self.k.set_timer(
            bnode(b),
            self.k.now + timeout_ms,
            Timer::DelayedProduceExpiry { id },
        )?;
        self.try_complete_produce(id)
    }
}
