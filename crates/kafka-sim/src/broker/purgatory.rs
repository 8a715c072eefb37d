//! The delayed operations (`kafka.server.DelayedFetch`, `DelayedProduce`
//! in `DelayedOperationPurgatory`, Kafka 3.9) and the fetch path that parks
//! in them: `ReplicaManager.fetchMessages` reads each partition (followers
//! up to the log end, consumers up to the high watermark) and, below
//! `fetch.min.bytes`, waits up to `max.wait.ms`; an acks=all produce waits
//! until the high watermark passes its last offset or `request.timeout.ms`
//! runs out.

use super::*;
use crate::client_config::IsolationLevel;
use crate::msg::FetchRequest;
use crate::storage::txn_index::AbortedTxn;

impl BrokerCx<'_> {
    /// The leader's side of Fetch.
    pub(super) fn broker_on_fetch(&mut self, from: NodeId, req: FetchRequest) -> Step {
        let b = self.id;
        let FetchRequest {
            correlation_id,
            replica_id,
            max_wait_ms,
            min_bytes,
            max_bytes,
            partitions,
            rack_id,
            isolation_level,
        } = req;
        if replica_id >= 0 {
            // Followers' fetch offsets are their log end offsets: record them first.
            for fp in &partitions {
                self.leader_record_follower_fetch(BrokerId(replica_id), fp)?;
            }
        }
        let d = DelayedFetch {
            from,
            correlation_id,
            replica_id,
            partitions,
            min_bytes,
            max_bytes,
            rack_id,
            isolation_level,
        };
        let (responses, bytes, urgent) = self.read_fetch(&d);
        if urgent || bytes >= min_bytes || max_wait_ms == 0 {
            return self.send_fetch_response(&d, responses);
        }
        self.k.gate()?;
        let br = self.me_mut();
        br.next_delayed += 1;
        let id = br.next_delayed;
        br.delayed_fetches.insert(id, Arc::new(d));
        self.k.emit(
            vec![bnode(b), from],
            EventKind::FetchParked {
                broker: b,
                from,
                max_wait_ms,
                min_bytes,
            },
        );
        self.k.set_timer(
            bnode(b),
            self.k.now + max_wait_ms,
            Timer::DelayedFetchExpiry { id },
        )
    }

    /// Reads what a fetch would return now: the responses, the bytes, and
    /// whether something (an error, a divergence) must be answered at once.
    pub(super) fn read_fetch(&self, d: &DelayedFetch) -> (Vec<FetchPartitionResponse>, u64, bool) {
        let br = self.me();
        let mut out = Vec::new();
        let mut total = 0u64;
        let mut urgent = false;
        for fp in &d.partitions {
            let mut r = FetchPartitionResponse {
                tp: fp.tp.clone(),
                error: None,
                high_watermark: -1,
                log_start_offset: -1,
                log_end_offset: -1,
                diverging_epoch: None,
                preferred_read_replica: None,
                last_stable_offset: None,
                aborted_transactions: Vec::new(),
                records: Bytes::default(),
            };
            // A follower fetches from the leader only; a consumer (Fetch v11+
            // carries its client metadata) may read from a follower too
            // (KIP-392, `FetchParams.fetchOnlyLeader`).
            let Some(p) = br
                .partitions
                .get(&fp.tp)
                .filter(|p| p.is_leader || (d.replica_id < 0 && br.logs.contains_key(&fp.tp)))
            else {
                r.error = Some(ErrorCode::NotLeaderOrFollower);
                urgent = true;
                out.push(r);
                continue;
            };
            if fp.current_leader_epoch >= 0 && fp.current_leader_epoch < p.leader_epoch {
                r.error = Some(ErrorCode::FencedLeaderEpoch);
                urgent = true;
                out.push(r);
                continue;
            }
            if fp.current_leader_epoch > p.leader_epoch {
                r.error = Some(ErrorCode::UnknownLeaderEpoch);
                urgent = true;
                out.push(r);
                continue;
            }
            let log = &br.logs[&fp.tp];
            r.high_watermark = p.high_watermark;
            r.log_start_offset = log.log_start_offset;
            r.log_end_offset = log.log_end_offset;
            if d.replica_id >= 0 && fp.last_fetched_epoch >= 0 {
                let (epoch, end) = log.end_offset_for_epoch(fp.last_fetched_epoch);
                if epoch < fp.last_fetched_epoch || end < fp.fetch_offset {
                    r.diverging_epoch = Some(DivergingEpoch {
                        epoch,
                        end_offset: end,
                    });
                    urgent = true;
                    out.push(r);
                    continue;
                }
            }
            if let Some(replica) = self.preferred_read_replica(p, d, fp.fetch_offset) {
                // Skip the read: the consumer should go to `replica`.
                r.preferred_read_replica = Some(replica);
                urgent = true;
                out.push(r);
                continue;
            }
            // Followers read up to the leader's log end; consumers up to the
            // high watermark of the replica they ask (a follower's own HW
            // trails the leader's until its next fetch response), and a
            // read_committed consumer up to its last stable offset
            // (`UnifiedLog.read` with `FetchIsolation.TXN_COMMITTED`).
            let read_committed =
                d.replica_id < 0 && d.isolation_level == IsolationLevel::ReadCommitted;
            let upper = if d.replica_id >= 0 {
                log.log_end_offset
            } else if read_committed {
                let lso = br.last_stable_offset(&fp.tp, p.high_watermark, log.log_start_offset);
                r.last_stable_offset = Some(lso);
                lso
            } else {
                p.high_watermark
            };
            let budget = fp
                .partition_max_bytes
                .min(d.max_bytes.saturating_sub(total));
            match log.read(&br.disk, fp.fetch_offset, budget, upper, total == 0) {
                Ok(data) => {
                    total += data.bytes.len() as u64;
                    if read_committed {
                        // The aborted transactions overlapping what is
                        // returned (`LocalLog.addAbortedTransactions`; its
                        // upper bound is the offset after the records).
                        let end = data
                            .batches
                            .last()
                            .map(|b| b.last_offset + 1)
                            .unwrap_or(fp.fetch_offset);
                        if end > fp.fetch_offset {
                            r.aborted_transactions = log
                                .collect_aborted_transactions(&br.disk, fp.fetch_offset, end)
                                .unwrap_or_default()
                                .iter()
                                .map(AbortedTxn::as_aborted_transaction)
                                .collect();
                        }
                    }
                    r.records = Bytes::new(data.bytes);
                }
                Err(_) => {
                    r.error = Some(ErrorCode::OffsetOutOfRange);
                    urgent = true;
                }
            }
            out.push(r);
        }
        (out, total, urgent)
    }

    /// `ReplicaManager.findPreferredReadReplica` with Kafka's
    /// `RackAwareReplicaSelector` (Kafka 3.9, ReplicaManager lines
    /// 1812-1858; RackAwareReplicaSelector.select): on the leader, for a
    /// consumer that sent a `client.rack`, when `replica.selector.class` is
    /// set. Candidates are the leader and the in-sync followers whose log
    /// holds `fetch_offset` (log start ≤ offset ≤ log end, as the leader
    /// last heard); of those on the consumer's rack, the leader if it is one,
    /// otherwise the most caught up (largest log end offset, then the most
    /// recently caught up, then the largest id). None: read here.
    fn preferred_read_replica(
        &self,
        p: &Partition,
        d: &DelayedFetch,
        fetch_offset: i64,
    ) -> Option<BrokerId> {
        let cluster = &self.k.sc.cluster;
        if !p.is_leader || d.replica_id >= 0 || d.rack_id.is_empty() {
            return None;
        }
        cluster.config.replica_selector_class.as_ref()?;
        let br = self.me();
        // A replica whose broker the metadata cache does not list has no
        // endpoint, so no rack.
        let in_rack = |b: BrokerId| {
            br.metadata.live_brokers.contains(&b)
                && cluster.broker_rack.get(&b.0) == Some(&d.rack_id)
        };
        if in_rack(self.id) {
            return None;
        }
        let now = self.k.now;
        p.remote
            .iter()
            .filter(|(f, st)| {
                p.isr.contains(f)
                    && st.leo >= fetch_offset
                    && st.log_start_offset <= fetch_offset
                    && in_rack(**f)
            })
            .max_by_key(|(f, st)| {
                (
                    st.leo,
                    std::cmp::Reverse(now.saturating_sub(st.last_caught_up_ms)),
                    f.0,
                )
            })
            .map(|(f, _)| *f)
    }

    pub(super) fn send_fetch_response(
        &mut self,
        d: &DelayedFetch,
        partitions: Vec<FetchPartitionResponse>,
    ) -> Step {
        let b = self.id;
        for r in &partitions {
            if let Some(e) = r.error {
                self.k.record(
                    vec![bnode(b), d.from],
                    EventKind::FetchRejected {
                        broker: b,
                        tp: r.tp.clone(),
                        from: d.from,
                        error: e,
                    },
                )?;
            }
            if let Some(replica) = r.preferred_read_replica {
                self.k.record(
                    vec![bnode(b), d.from, bnode(replica)],
                    EventKind::PreferredReadReplicaChosen {
                        broker: b,
                        tp: r.tp.clone(),
                        from: d.from,
                        replica,
                        rack: d.rack_id.clone(),
                    },
                )?;
            }
            if let Some(div) = r.diverging_epoch {
                if let NodeId::Broker(f) = d.from {
                    self.k.record(
                        vec![bnode(b), d.from],
                        EventKind::DivergenceDetected {
                            broker: b,
                            tp: r.tp.clone(),
                            follower: f,
                            epoch: div.epoch,
                            end_offset: div.end_offset,
                        },
                    )?;
                }
            }
        }
        self.k
            .send(
                bnode(b),
                d.from,
                Message::FetchResponse {
                    correlation_id: d.correlation_id,
                    error: None,
                    partitions,
                },
            )
            .map(|_| ())
    }

    pub(super) fn broker_answer_fetch(&mut self, d: &DelayedFetch) -> Step {
        let (responses, _, _) = self.read_fetch(d);
        self.send_fetch_response(d, responses)
    }

    /// Completes parked fetches that now have enough data (after an append or
    /// a high watermark move on `tp`).
    pub(crate) fn complete_delayed_fetches(&mut self, tp: &TopicPartition) -> Step {
        let ids: Vec<u64> = self
            .me()
            .delayed_fetches
            .iter()
            .filter(|(_, d)| d.partitions.iter().any(|p| &p.tp == tp))
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            let d = self.me().delayed_fetches[&id].clone();
            let (responses, bytes, urgent) = self.read_fetch(&d);
            if urgent || bytes >= d.min_bytes {
                self.k.gate()?;
                self.me_mut().delayed_fetches.remove(&id);
                self.send_fetch_response(&d, responses)?;
            }
        }
        Ok(())
    }

    /// `checkEnoughReplicasReachOffset` for each waiting partition.
    pub(crate) fn try_complete_produce(&mut self, id: u64) -> Step {
        let b = self.id;
        let Some(d) = self.me().delayed_produces.get(&id).cloned() else {
            return Ok(());
        };
        let mut d2 = d.clone();
        for part in d2.parts.iter_mut().filter(|p| p.result.is_none()) {
            let br = self.me();
            match br.partitions.get(&part.tp).filter(|p| p.is_leader) {
                None => part.result = Some(Some(ErrorCode::NotLeaderOrFollower)),
                Some(p) if p.high_watermark >= part.required_offset => {
                    let min_isr = p.effective_min_isr(br.logs[&part.tp].config.min_insync_replicas);
                    part.result = Some(if (p.maximal_isr().len() as i32) < min_isr {
                        Some(ErrorCode::NotEnoughReplicasAfterAppend)
                    } else {
                        None
                    });
                }
                Some(_) => {}
            }
        }
        if d2.parts.iter().any(|p| p.result.is_none()) {
            if d2 != d {
                self.k.gate()?;
                self.me_mut().delayed_produces.insert(id, d2);
            }
            return Ok(());
        }
        self.k.gate()?;
        self.me_mut().delayed_produces.remove(&id);
        let mut responses = d2.done.clone();
        for p in &d2.parts {
            let err = p.result.expect("all done");
            if err.is_none() {
                self.k.record(
                    vec![bnode(b), d2.from],
                    EventKind::ProduceCompleted {
                        broker: b,
                        tp: p.tp.clone(),
                        base_offset: p.base_offset,
                        acks: -1,
                        waited_for_isr: true,
                    },
                )?;
            }
            responses.push(ProducePartitionResponse {
                tp: p.tp.clone(),
                error: err,
                base_offset: if err.is_none() { p.base_offset } else { -1 },
                log_start_offset: 0,
            });
        }
        self.answer_delayed_produce(id, &d2, responses)
    }

    /// A delayed produce is over (complete or expired): answer the client, or,
    /// for the group coordinator's own write to __consumer_offsets, carry on
    /// with what was waiting for it.
    pub(super) fn answer_delayed_produce(
        &mut self,
        id: u64,
        d: &DelayedProduce,
        responses: Vec<ProducePartitionResponse>,
    ) -> Step {
        let b = self.id;
        if d.from == bnode(b) {
            let err = responses.iter().find_map(|r| r.error);
            return self.internal_write_finished(id, err);
        }
        self.k
            .send(
                bnode(b),
                d.from,
                Message::ProduceResponse {
                    correlation_id: d.correlation_id,
                    responses,
                },
            )
            .map(|_| ())
    }

    /// A coordinator's own write (`appendRecords` with `requiredAcks = -1`
    /// and origin COORDINATOR): appends `bytes` to `tp` as its leader and
    /// parks it until the ISR has it. The delayed-produce id, or why it was
    /// not appended: NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS (the ISR is
    /// below `min.insync.replicas`), or CORRUPT_MESSAGE. The caller files
    /// what waits for the id, then calls [`Self::settle_coordinator_append`].
    pub(crate) fn append_as_coordinator(
        &mut self,
        tp: &TopicPartition,
        bytes: Vec<u8>,
        timeout_ms: u64,
    ) -> Step<Result<u64, ErrorCode>> {
        let Some(p) = self
            .me()
            .partitions
            .get(tp)
            .filter(|p| p.is_leader)
            .cloned()
        else {
            return Ok(Err(ErrorCode::NotLeaderOrFollower));
        };
        let log = &self.me().logs[tp];
        let min_isr = p.effective_min_isr(log.config.min_insync_replicas);
        if (p.isr.len() as i32) < min_isr {
            return Ok(Err(ErrorCode::NotEnoughReplicas));
        }
        let wall = self.k.wall_ms();
        let prepared = match log.prepare_leader_append(bytes, p.leader_epoch, wall) {
            Ok(x) => x,
            Err(_) => return Ok(Err(ErrorCode::CorruptMessage)),
        };
        let required = prepared.last_offset + 1;
        self.append_prepared(tp, prepared, true)?;
        self.check_leaders(tp)?;
        self.complete_delayed_fetches(tp)?;
        let id = self.park_internal_produce(tp, required, timeout_ms)?;
        Ok(Ok(id))
    }

    /// After the caller filed what waits for `id`: the high watermark may
    /// move at once (a lone replica), completing it.
    pub(crate) fn settle_coordinator_append(&mut self, tp: &TopicPartition, id: u64) -> Step {
        self.maybe_increment_hw(tp)?;
        self.try_complete_produce(id)
    }

    /// Parks an append the broker made itself (the group coordinator's
    /// acks=all write) until the ISR has it; returns the delayed-produce id.
    pub(crate) fn park_internal_produce(
        &mut self,
        tp: &TopicPartition,
        required_offset: i64,
        timeout_ms: u64,
    ) -> Step<u64> {
        let b = self.id;
        self.k.gate()?;
        let br = self.me_mut();
        br.next_delayed += 1;
        let id = br.next_delayed;
        br.delayed_produces.insert(
            id,
            DelayedProduce {
                from: bnode(b),
                correlation_id: -1,
                parts: vec![DelayedProducePart {
                    tp: tp.clone(),
                    base_offset: required_offset - 1,
                    required_offset,
                    result: None,
                }],
                done: Vec::new(),
            },
        );
        self.k.set_timer(
            bnode(b),
            self.k.now + timeout_ms,
            Timer::DelayedProduceExpiry { id },
        )?;
        Ok(id)
    }

    pub(super) fn complete_delayed_produces(&mut self, tp: &TopicPartition) -> Step {
        let ids: Vec<u64> = self
            .me()
            .delayed_produces
            .iter()
            .filter(|(_, d)| d.parts.iter().any(|p| &p.tp == tp))
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            self.try_complete_produce(id)?;
        }
        Ok(())
    }

    /// Leadership moved: waiting produces on `tp` fail (or are re-checked).
    pub(super) fn fail_delayed_produces(
        &mut self,
        tp: &TopicPartition,
        _err: Option<ErrorCode>,
    ) -> Step {
        self.complete_delayed_produces(tp)
    }

    pub(super) fn broker_expire_produce(&mut self, id: u64) -> Step {
        let b = self.id;
        let Some(d) = self.me().delayed_produces.get(&id).cloned() else {
            return Ok(());
        };
        self.k.gate()?;
        self.me_mut().delayed_produces.remove(&id);
        let mut responses = d.done.clone();
        for p in &d.parts {
            let err = p.result.unwrap_or(Some(ErrorCode::RequestTimedOut));
            if p.result.is_none() {
                self.k.record(
                    vec![bnode(b)],
                    EventKind::ProduceTimedOut {
                        broker: b,
                        tp: p.tp.clone(),
                        required_offset: p.required_offset,
                    },
                )?;
            }
            responses.push(ProducePartitionResponse {
                tp: p.tp.clone(),
                error: err,
                base_offset: -1,
                log_start_offset: 0,
            });
        }
        self.answer_delayed_produce(id, &d, responses)
    }
}
