//! The follower side of replication (`kafka.server.ReplicaFetcherThread`
//! over `AbstractFetcherThread`, Kafka 3.9): one fetcher per leader broker
//! sends `Fetch` in a loop, truncates when the leader answers with a
//! diverging epoch (KIP-101/KIP-279) or, before 0.11, to its high watermark,
//! appends what comes back (`processPartitionData`) and takes the leader's
//! high watermark. When the leader answers with an epoch the follower never
//! had, the follower cuts to the end of its own largest earlier epoch and
//! asks again, so truncation can take several rounds
//! (`AbstractFetcherThread.getOffsetTruncationState`, lines 619–641 in 3.9;
//! see `truncation_for`).

use super::*;
use crate::msg::FetchRequest;

impl BrokerCx<'_> {
    /// Sends the next Fetch to `leader` if nothing is in flight.
    pub(crate) fn fetcher_maybe_send(&mut self, leader: BrokerId) -> Step {
        let b = self.id;
        let now = self.k.now;
        let Some(f) = self.me().fetchers.get(&leader) else {
            return Ok(());
        };
        if f.in_flight.is_some() || !self.me().alive {
            return Ok(());
        }
        let epochs = self.k.sc.cluster.follower_truncation.uses_leader_epochs();
        let cfg = &self.k.sc.cluster.config;
        let (wait, min_bytes, max_bytes) = (
            cfg.replica_fetch_wait_max_ms,
            cfg.replica_fetch_min_bytes,
            cfg.replica_fetch_max_bytes,
        );
        let mut parts = Vec::new();
        let mut next_wake: Option<u64> = None;
        for (tp, st) in &f.partitions {
            if st.delayed_until > now {
                next_wake =
                    Some(next_wake.map_or(st.delayed_until, |w: u64| w.min(st.delayed_until)));
                continue;
            }
            let log = &self.me().logs[tp];
            parts.push(FetchPartition {
                tp: tp.clone(),
                fetch_offset: log.log_end_offset,
                current_leader_epoch: st.leader_epoch,
                last_fetched_epoch: if epochs {
                    log.latest_epoch().unwrap_or(-1)
                } else {
                    -1
                },
                log_start_offset: log.log_start_offset,
                partition_max_bytes: max_bytes,
            });
        }
        if parts.is_empty() {
            if let Some(w) = next_wake {
                self.k
                    .set_timer(bnode(b), w, Timer::ReplicaFetchBackoff { leader })?;
            }
            return Ok(());
        }
        self.k.gate()?;
        let br = self.me_mut();
        br.next_correlation += 1;
        let cid = br.next_correlation;
        br.fetchers.get_mut(&leader).expect("exists").in_flight = Some(cid);
        self.k.send(
            bnode(b),
            bnode(leader),
            Message::Fetch(FetchRequest {
                correlation_id: cid,
                replica_id: b.0,
                max_wait_ms: wait,
                min_bytes,
                max_bytes: 10 * 1024 * 1024,
                partitions: parts,
                rack_id: String::new(),
                isolation_level: Default::default(),
            }),
        )?;
        let timeout = self.k.now + self.k.sc.cluster.config.request_timeout_ms;
        self.k.arm_request_timeout(bnode(b), timeout, cid)
    }

    /// The follower's side: append, take the leader's high watermark, fetch again.
    pub(super) fn follower_on_fetch_response(
        &mut self,
        leader: BrokerId,
        cid: i32,
        parts: Vec<FetchPartitionResponse>,
    ) -> Step {
        let b = self.id;
        if self.me().fetchers.get(&leader).and_then(|f| f.in_flight) != Some(cid) {
            return Ok(());
        }
        self.k.gate()?;
        self.me_mut()
            .fetchers
            .get_mut(&leader)
            .expect("checked")
            .in_flight = None;
        self.k.disarm_request_timeout(bnode(b), cid);
        let backoff = self.k.sc.cluster.config.replica_fetch_backoff_ms;
        for r in parts {
            let following = self
                .me()
                .fetchers
                .get(&leader)
                .is_some_and(|f| f.partitions.contains_key(&r.tp));
            if !following {
                continue;
            }
            if let Some(e) = r.error {
                if e == ErrorCode::OffsetOutOfRange {
                    let my_leo = self.me().logs[&r.tp].log_end_offset;
                    if my_leo > r.log_end_offset && r.log_end_offset >= 0 {
                        self.truncate(
                            &r.tp,
                            r.log_end_offset,
                            TruncateReason::HighWatermark {
                                high_watermark: r.log_end_offset,
                            },
                        )?;
                    } else if r.log_start_offset > my_leo {
                        self.k.gate()?;
                        let wall = self.k.wall_ms();
                        let br = self.me_mut();
                        let log = br.logs.get_mut(&r.tp).expect("exists");
                        let old = log.log_end_offset;
                        log.truncate_fully_and_start_at(&mut br.disk, r.log_start_offset, wall)
                            .expect("log exists");
                        self.k.emit(
                            vec![bnode(b)],
                            EventKind::LogTruncated {
                                broker: b,
                                tp: r.tp.clone(),
                                truncated: crate::storage::log::Truncated {
                                    to_offset: r.log_start_offset,
                                    old_log_end_offset: old,
                                    bytes_removed: 0,
                                    segments_removed: vec![],
                                },
                                reason: TruncateReason::BelowLogStart {
                                    log_start_offset: r.log_start_offset,
                                },
                            },
                        );
                    }
                    continue;
                }
                self.k.gate()?;
                let until = self.k.now + backoff;
                if let Some(st) = self
                    .me_mut()
                    .fetchers
                    .get_mut(&leader)
                    .and_then(|f| f.partitions.get_mut(&r.tp))
                {
                    st.delayed_until = until;
                }
                continue;
            }
            if let Some(div) = r.diverging_epoch {
                let log = &self.me().logs[&r.tp];
                let hw = self
                    .me()
                    .partitions
                    .get(&r.tp)
                    .map(|p| p.high_watermark)
                    .unwrap_or(0);
                let (to, reason) = truncation_for(log, div, hw);
                // An intermediate cut changes our last epoch, so the next
                // fetch asks again from there (another round).
                self.truncate(&r.tp, to.max(0), reason)?;
                continue;
            }
            if !r.records.is_empty() {
                self.follower_append(&r.tp, r.records.as_slice().to_vec())?;
            }
            let verified = self
                .me()
                .fetchers
                .get(&leader)
                .and_then(|f| f.partitions.get(&r.tp))
                .is_none_or(|s| s.verified);
            if !verified {
                self.k.gate()?;
                if let Some(st) = self
                    .me_mut()
                    .fetchers
                    .get_mut(&leader)
                    .and_then(|f| f.partitions.get_mut(&r.tp))
                {
                    st.verified = true;
                }
                self.check_replicas_consistent(b, leader, &r.tp)?;
            }
            let log = &self.me().logs[&r.tp];
            let new_hw = r
                .high_watermark
                .min(log.log_end_offset)
                .max(log.log_start_offset);
            let old = self
                .me()
                .partitions
                .get(&r.tp)
                .map(|p| p.high_watermark)
                .unwrap_or(0);
            if new_hw != old {
                self.k.gate()?;
                let br = self.me_mut();
                if let Some(p) = br.partitions.get_mut(&r.tp) {
                    p.high_watermark = new_hw;
                }
                if let Some(s) = br.producer_states.get_mut(&r.tp) {
                    s.on_high_watermark_updated(new_hw);
                }
                self.k.emit(
                    vec![bnode(b)],
                    EventKind::HighWatermarkUpdated {
                        broker: b,
                        tp: r.tp.clone(),
                        old,
                        new: new_hw,
                        leader: false,
                        isr_leos: vec![],
                    },
                );
                // Consumers reading from this follower (KIP-392) may now
                // have records below its new high watermark.
                self.complete_delayed_fetches(&r.tp)?;
            }
        }
        self.fetcher_maybe_send(leader)
    }

    pub(super) fn follower_append(&mut self, tp: &TopicPartition, bytes: Vec<u8>) -> Step {
        let b = self.id;
        let prepared = match self.me().logs[tp].prepare_follower_append(bytes) {
            Ok(p) => p,
            Err(e) => {
                return self
                    .k
                    .record(
                        vec![bnode(b)],
                        EventKind::AppendRejected {
                            broker: b,
                            tp: tp.clone(),
                            error: ErrorCode::CorruptMessage,
                            detail: e.to_string(),
                        },
                    )
                    .map(|_| ())
            }
        };
        self.append_prepared(tp, prepared, false)
    }
}

/// Where a follower cuts its log when the leader answers its last fetched
/// epoch with `div` (`AbstractFetcherThread.getOffsetTruncationState`, Kafka
/// 3.9): the follower looks up the largest epoch of its own at most
/// `div.epoch`.
/// * It has `div.epoch` itself: cut to where that epoch ends on both logs,
///   the smaller (truncation complete).
/// * It never had `div.epoch`: cut to where its own largest smaller epoch
///   ends, and fetch again with that epoch; the leader answers again, and a
///   few rounds converge.
/// * It has no epoch that old: cut to the leader's end offset.
///
/// When the leader knows nothing of the follower's epoch (no end offset),
/// the follower falls back to its high watermark `hw`.
fn truncation_for(
    log: &crate::storage::log::Log,
    div: crate::msg::DivergingEpoch,
    hw: i64,
) -> (i64, TruncateReason) {
    let leo = log.log_end_offset;
    let epoch_rule = TruncateReason::LeaderEpoch {
        epoch: div.epoch,
        end_offset: div.end_offset,
    };
    if div.end_offset < 0 {
        return (hw, epoch_rule);
    }
    let (my_epoch, my_end) = log.end_offset_for_epoch(div.epoch);
    if my_end < 0 {
        (div.end_offset.min(leo), epoch_rule)
    } else if my_epoch == div.epoch {
        (div.end_offset.min(my_end).min(leo), epoch_rule)
    } else {
        (
            my_end.min(leo),
            TruncateReason::UnknownLeaderEpoch {
                leader_epoch: div.epoch,
                epoch: my_epoch,
                end_offset: my_end,
            },
        )
    }
}
