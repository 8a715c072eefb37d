//! The consumer's `Fetcher` (`org.apache.kafka.clients.consumer.internals.
//! AbstractFetch`, with `OffsetFetcher` for positions, Kafka 3.9): positions
//! reset by `auto.offset.reset` through `ListOffsets`, one `Fetch` per
//! partition leader with `fetch.min.bytes` and `fetch.max.wait.ms`, and the
//! answers buffered for `poll()` (only records below the high watermark).
//!
//! Fetching from a follower (KIP-392): when a leader answers with a
//! preferred read replica, the consumer fetches that partition from it
//! until `metadata.max.age.ms` has passed, the broker leaves its metadata,
//! a fetch to it fails, or it answers an error (`selectReadReplica`,
//! `FetchCollector.updatePartitionState` and `handleInitializeErrors`,
//! `SubscriptionState.preferredReadReplica`, Kafka 3.9). An
//! OFFSET_OUT_OF_RANGE from a follower (the consumer is ahead of what it
//! has) sends the consumer back to the leader instead of resetting.

use super::*;
use crate::client_config::IsolationLevel;
use crate::msg::FetchRequest;

impl ConsumerCx<'_> {
    /// Partitions without a position ask their leader for one (`ListOffsets`),
    /// as `auto.offset.reset` says.
    pub(super) fn reset_positions(&mut self) -> Step {
        let c = self.id;
        let pending: Vec<TopicPartition> = self
            .me()
            .list_offsets_in_flight
            .values()
            .flatten()
            .cloned()
            .collect();
        let need: Vec<TopicPartition> = self
            .me()
            .assignment
            .iter()
            .filter(|tp| !self.me().positions.contains_key(*tp) && !pending.contains(tp))
            .filter(|tp| self.group_position_ready(tp))
            .cloned()
            .collect();
        if need.is_empty() {
            return Ok(());
        }
        let policy = self.me().config.auto_offset_reset;
        let mut by_leader: SortedMap<BrokerId, Vec<TopicPartition>> = SortedMap::new();
        for tp in need {
            if policy == AutoOffsetReset::None {
                if self.me().reset_failed.contains(&tp) {
                    continue;
                }
                self.k.gate()?;
                self.me_mut().reset_failed.insert(tp.clone());
                self.k.record(vec![cnode(c)], EventKind::ConsumerPositionReset {
                    consumer: c,
                    tp: tp.clone(),
                    position: -1,
                    reason: "NoOffsetForPartitionException: no committed offset and auto.offset.reset=none".into(),
                })?;
                continue;
            }
            if let Some(l) = self.me().metadata.leader(&tp) {
                if self.me().metadata.ready(self.k.now, l) {
                    by_leader.entry(l).or_default().push(tp);
                }
            }
        }
        let ts = if policy == AutoOffsetReset::Earliest {
            -2
        } else {
            -1
        };
        for (leader, tps) in by_leader {
            self.k.gate()?;
            let cid = self.correlation();
            self.me_mut()
                .list_offsets_in_flight
                .insert(cid, tps.clone());
            self.request(
                leader,
                cid,
                self.me().config.request_timeout_ms,
                Message::ListOffsets {
                    correlation_id: cid,
                    partitions: tps.into_iter().map(|tp| (tp, ts)).collect(),
                },
            )?;
        }
        Ok(())
    }

    /// `AbstractFetch.selectReadReplica`: the follower the leader named,
    /// while it is fresh and in the metadata; otherwise the leader.
    fn select_read_replica(&mut self, tp: &TopicPartition, leader: BrokerId) -> Step<BrokerId> {
        let Some(pref) = self.me().preferred_read_replicas.get(tp).copied() else {
            return Ok(leader);
        };
        let max_age = self.me().config.metadata_max_age_ms;
        if self.k.now > pref.expires_ms {
            self.clear_read_replica(
                tp,
                format!("metadata.max.age.ms ({max_age} ms) has passed since the leader named it"),
            )?;
            return Ok(leader);
        }
        if self.me().metadata.brokers.contains(&pref.broker) {
            return Ok(pref.broker);
        }
        // requestMetadataUpdate: refresh, and forget the replica.
        self.k.gate()?;
        self.me_mut().metadata.stale = true;
        self.clear_read_replica(tp, "the broker is not in its metadata".into())?;
        Ok(leader)
    }

    /// `SubscriptionState.clearPreferredReadReplica`, narrated.
    fn clear_read_replica(&mut self, tp: &TopicPartition, reason: String) -> Step {
        let c = self.id;
        let Some(pref) = self.me().preferred_read_replicas.get(tp).copied() else {
            return Ok(());
        };
        self.k.gate()?;
        self.me_mut().preferred_read_replicas.remove(tp);
        self.k.emit(
            vec![cnode(c), NodeId::Broker(pref.broker)],
            EventKind::PreferredReadReplicaCleared {
                consumer: c,
                tp: tp.clone(),
                replica: pref.broker,
                reason,
            },
        );
        Ok(())
    }

    /// A fetch to `b` failed (timeout, disconnect): the partitions read
    /// from `b` as a follower go back to their leader
    /// (`AbstractFetch.handleFetchFailure`).
    pub(super) fn fetch_failed(&mut self, b: BrokerId) -> Step {
        let tps: Vec<TopicPartition> = self
            .me()
            .preferred_read_replicas
            .iter()
            .filter(|(_, p)| p.broker == b)
            .map(|(tp, _)| tp.clone())
            .collect();
        for tp in tps {
            self.clear_read_replica(&tp, format!("its fetch to broker {b} failed"))?;
        }
        Ok(())
    }

    pub(super) fn send_fetches(&mut self) -> Step {
        let cfg = self.me().config.clone();
        let mut by_node: SortedMap<BrokerId, Vec<FetchPartition>> = SortedMap::new();
        for tp in self.me().assignment.clone() {
            let Some(pos) = self.me().positions.get(&tp).copied() else {
                continue;
            };
            if self.me().buffered.get(&tp).is_some_and(|b| !b.is_empty()) {
                continue;
            }
            let Some(l) = self.me().metadata.leader(&tp) else {
                continue;
            };
            let node = self.select_read_replica(&tp, l)?;
            if self.me().fetches_in_flight.contains_key(&node)
                || !self.me().metadata.ready(self.k.now, node)
            {
                continue;
            }
            let current_leader_epoch = self.me().metadata.leader_epoch(&tp);
            by_node.entry(node).or_default().push(FetchPartition {
                tp,
                fetch_offset: pos,
                current_leader_epoch,
                last_fetched_epoch: -1,
                log_start_offset: -1,
                partition_max_bytes: cfg.max_partition_fetch_bytes,
            });
        }
        for (node, parts) in by_node {
            self.k.gate()?;
            let cid = self.correlation();
            self.me_mut().fetches_in_flight.insert(node, cid);
            self.request(
                node,
                cid,
                cfg.request_timeout_ms,
                Message::Fetch(FetchRequest {
                    correlation_id: cid,
                    replica_id: -1,
                    max_wait_ms: cfg.fetch_max_wait_ms,
                    min_bytes: cfg.fetch_min_bytes,
                    max_bytes: cfg.fetch_max_bytes,
                    partitions: parts,
                    rack_id: cfg.client_rack.clone(),
                    isolation_level: cfg.isolation_level,
                }),
            )?;
        }
        Ok(())
    }

    pub(super) fn on_fetch_response(
        &mut self,
        leader: BrokerId,
        cid: i32,
        parts: Vec<FetchPartitionResponse>,
    ) -> Step {
        let c = self.id;
        if self.me().fetches_in_flight.get(&leader) != Some(&cid) {
            return Ok(());
        }
        self.k.gate()?;
        self.me_mut().fetches_in_flight.remove(&leader);
        self.k.disarm_request_timeout(cnode(c), cid);
        for r in parts {
            if !self.me().assignment.contains(&r.tp) {
                continue;
            }
            let Some(pos) = self.me().positions.get(&r.tp).copied() else {
                continue;
            };
            match r.error {
                Some(ErrorCode::OffsetOutOfRange)
                    if self.me().preferred_read_replicas.contains_key(&r.tp) =>
                {
                    // The follower does not have the position yet: back to
                    // the leader, no reset.
                    self.clear_read_replica(&r.tp, "OFFSET_OUT_OF_RANGE".into())?;
                    continue;
                }
                Some(ErrorCode::OffsetOutOfRange) => {
                    let reset = match self.me().config.auto_offset_reset {
                        AutoOffsetReset::Earliest => "earliest",
                        AutoOffsetReset::Latest => "latest",
                        AutoOffsetReset::None => "none",
                    };
                    self.k.gate()?;
                    self.me_mut().positions.remove(&r.tp);
                    self.k.emit(vec![cnode(c)], EventKind::ConsumerPositionReset {
                        consumer: c,
                        tp: r.tp.clone(),
                        position: -1,
                        reason: format!("OFFSET_OUT_OF_RANGE at {pos}: resetting with auto.offset.reset={reset}"),
                    });
                    continue;
                }
                Some(e) => {
                    self.k.gate()?;
                    self.me_mut().metadata.stale = true;
                    if e != ErrorCode::UnknownLeaderEpoch {
                        self.clear_read_replica(&r.tp, e.to_string())?;
                    }
                    continue;
                }
                None => {}
            }
            self.k.gate()?;
            self.me_mut()
                .high_watermarks
                .insert(r.tp.clone(), r.high_watermark);
            if let Some(broker) = r.preferred_read_replica {
                // updatePreferredReadReplica: a new choice starts its clock.
                let expires_ms = self.k.now + self.me().config.metadata_max_age_ms;
                let me = self.me_mut();
                if me.preferred_read_replicas.get(&r.tp).map(|p| p.broker) != Some(broker) {
                    me.preferred_read_replicas
                        .insert(r.tp.clone(), PreferredReadReplica { broker, expires_ms });
                }
            }
            // Markers are never handed out; a read_committed consumer also
            // drops the aborted transactions the broker listed.
            let read_committed = self.me().config.isolation_level == IsolationLevel::ReadCommitted;
            let (recs, next) = super::isolation::deliverable(
                r.records.as_slice(),
                pos,
                read_committed,
                &r.aborted_transactions,
            );
            if recs.is_empty() && next > pos {
                // Only markers: the position moves past them.
                self.me_mut().positions.insert(r.tp.clone(), next);
            }
            // The finder may ask the same of a read_uncommitted consumer.
            let audited = read_committed
                || self
                    .k
                    .sc
                    .check_every_consumer
                    .contains(&crate::event::Guarantee::ReadCommittedIsolation);
            if audited && !recs.is_empty() {
                let origin = super::isolation::producers_of(r.records.as_slice());
                let delivered: Vec<(i64, Option<i64>)> = recs
                    .iter()
                    .map(|x| {
                        let pid = origin
                            .iter()
                            .find(|(lo, hi, _)| (*lo..=*hi).contains(&x.offset))
                            .map(|(_, _, p)| *p);
                        (x.offset, pid)
                    })
                    .collect();
                self.audit.check_read_committed(
                    self.k,
                    c,
                    &r.tp,
                    &delivered,
                    r.last_stable_offset,
                )?;
                self.k.gate()?;
            }
            if !recs.is_empty() {
                self.me_mut()
                    .buffered
                    .entry(r.tp.clone())
                    .or_default()
                    .extend(recs);
            }
        }
        Ok(())
    }
}
