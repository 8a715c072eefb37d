//! A KRaft broker acts on the metadata it replays (Kafka 4.1.0
//! `BrokerMetadataPublisher` → `ReplicaManager.applyDelta`, lines
//! 2400-2560 of `ReplicaManager.scala`): no LeaderAndIsr or UpdateMetadata
//! arrive; each committed partition change it replays makes it a leader or
//! a follower, or (same leader epoch, newer partition epoch) updates the
//! ISR its leader keeps. Its metadata cache is the image: live brokers are
//! the unfenced ones (`KRaftMetadataCache`).
//!
//! Producer ids come from the active controller in blocks of 1000
//! (`RPCProducerIdManager`, KIP-730): without a block, InitProducerId is
//! answered COORDINATOR_LOAD_IN_PROGRESS (the client retries) while the
//! broker asks for one with AllocateProducerIds.

use super::*;
use crate::kraft::records::MetadataRecord;

impl BrokerCx<'_> {
    /// Applies what a replay changed (`changed`: partitions whose
    /// registration moved; `any`: whether any record but a NoOp replayed).
    pub(super) fn kraft_apply(&mut self, changed: Vec<TopicPartition>, any: bool) -> Step {
        if !any {
            return Ok(());
        }
        // Nothing is published before the controller has said the broker
        // caught up with the metadata log (`BrokerServer.startup` waits for
        // `initialCatchUpFuture`, then the first publish): a broker still
        // registering (or refused, DUPLICATE_BROKER_REGISTRATION) neither
        // leads nor follows. RECOVERY publishes everything at once.
        let published = self.me().kraft.as_ref().is_some_and(|k| {
            !matches!(
                k.state,
                None | Some(crate::event::BrokerLifecycle::Starting)
            )
        });
        if !published {
            return Ok(());
        }
        let b = self.id;
        // The metadata cache takes the new image first, then the replica
        // manager applies the delta (`BrokerMetadataPublisher.onMetadataUpdate`):
        // a leader whose ISR shrank because a broker was fenced in the same
        // batch sees that broker as no longer alive when it recomputes the
        // high watermark.
        self.kraft_refresh_metadata_cache()?;
        let mut seen = SortedSet::new();
        for tp in changed {
            if !seen.insert(tp.clone()) {
                continue;
            }
            let Some(reg) = self
                .me()
                .kraft
                .as_ref()
                .and_then(|k| k.image.partition(&tp).cloned())
            else {
                continue;
            };
            if !reg.replicas.contains(&b.0) {
                continue;
            }
            let is_new = !self.me().logs.contains_key(&tp);
            let ps = partition_state(tp.clone(), &reg, is_new);
            let local = self
                .me()
                .partitions
                .get(&tp)
                .map(|p| (p.is_leader, p.leader, p.leader_epoch, p.partition_epoch));
            let lead = reg.leader == b.0;
            let new_role = match local {
                None => true,
                Some((was_leader, leader, epoch, _)) => {
                    was_leader != lead || leader != reg.leader || epoch < reg.leader_epoch
                }
            };
            if new_role {
                self.broker_ensure_log(&tp)?;
                if lead {
                    self.make_leader(&ps)?;
                } else {
                    self.make_follower(&ps)?;
                }
            } else if local.is_some_and(|(_, _, _, pe)| pe < reg.partition_epoch) {
                // The same leader epoch, a newer partition epoch: the ISR
                // (Partition.makeLeader / makeFollower with an unchanged
                // leader epoch update the partition state only).
                self.k.gate()?;
                let isr = ps.isr.clone();
                let p = self.me_mut().partitions.get_mut(&tp).expect("checked");
                p.isr = isr.clone();
                p.partition_epoch = reg.partition_epoch;
                p.pending_isr = None;
                if lead {
                    self.k.emit(
                        vec![NodeId::Broker(b)],
                        EventKind::IsrChangeApplied {
                            broker: b,
                            tp: tp.clone(),
                            isr,
                            partition_epoch: reg.partition_epoch,
                        },
                    );
                    self.maybe_increment_hw(&tp)?;
                }
            }
        }
        if !self.me().hw_checkpoint_started && !self.me().partitions.is_empty() {
            self.k.gate()?;
            self.me_mut().hw_checkpoint_started = true;
            let now = self.k.now;
            self.k
                .set_timer(NodeId::Broker(b), now, Timer::HwCheckpoint)?;
        }
        Ok(())
    }

    /// The first publish, once caught up: every partition of the image.
    pub(super) fn kraft_publish_all(&mut self) -> Step {
        let all: Vec<TopicPartition> = self
            .me()
            .kraft
            .as_ref()
            .map(|k| {
                k.image
                    .topics
                    .iter()
                    .flat_map(|(name, t)| {
                        t.partitions
                            .keys()
                            .map(move |i| TopicPartition::new(name.as_str(), *i))
                    })
                    .collect()
            })
            .unwrap_or_default();
        self.kraft_apply(all, true)
    }

    /// The metadata cache from the image: unfenced brokers live, every
    /// partition's leader, ISR and replicas.
    fn kraft_refresh_metadata_cache(&mut self) -> Step {
        let Some(kr) = self.me().kraft.as_ref() else {
            return Ok(());
        };
        let img = &kr.image;
        let live: Vec<BrokerId> = img
            .brokers
            .iter()
            .filter(|(_, r)| !r.fenced)
            .map(|(b, _)| BrokerId(*b))
            .collect();
        let mut states = Vec::new();
        for (name, t) in img.topics.iter() {
            for (i, p) in t.partitions.iter() {
                states.push(partition_state(
                    TopicPartition::new(name.as_str(), *i),
                    p,
                    false,
                ));
            }
        }
        let changed = {
            let m = &self.me().metadata;
            m.live_brokers != live
                || m.partitions.len() != states.len()
                || states.iter().any(|s| m.partitions.get(&s.tp) != Some(s))
        };
        if !changed {
            return Ok(());
        }
        self.k.gate()?;
        let br = Arc::make_mut(self.me);
        br.metadata.update(live, states.into(), &mut None);
        Ok(())
    }

    /// InitProducerId on a KRaft broker: an id from the block, or
    /// COORDINATOR_LOAD_IN_PROGRESS while a block is fetched.
    pub(super) fn kraft_next_producer_id(&mut self) -> Step<Result<i64, ErrorCode>> {
        let has = self
            .me()
            .producer_id_block
            .is_some_and(|(next, end)| next <= end);
        if !has {
            self.kraft_request_producer_ids()?;
            return Ok(Err(ErrorCode::CoordinatorLoadInProgress));
        }
        self.k.gate()?;
        let block = self.me_mut().producer_id_block.as_mut().expect("checked");
        let pid = block.0;
        block.0 += 1;
        Ok(Ok(pid))
    }

    /// Sends AllocateProducerIds unless one is in flight.
    fn kraft_request_producer_ids(&mut self) -> Step {
        let b = self.id;
        let Some(kr) = self.me().kraft.as_ref() else {
            return Ok(());
        };
        if kr.pid_request.is_some() || kr.broker_epoch < 0 {
            return Ok(());
        }
        let Some(controller) = kr.raft.leader() else {
            return Ok(());
        };
        let broker_epoch = kr.broker_epoch;
        self.k.gate()?;
        let br = self.me_mut();
        br.next_correlation += 1;
        let correlation_id = br.next_correlation;
        br.kraft.as_mut().expect("kraft").pid_request = Some(correlation_id);
        self.k.send(
            NodeId::Broker(b),
            NodeId::Controller(controller),
            Message::AllocateProducerIds {
                correlation_id,
                broker: b.0,
                broker_epoch,
            },
        )?;
        let at = self.k.now + self.k.sc.cluster.config.request_timeout_ms;
        self.k
            .arm_request_timeout(NodeId::Broker(b), at, correlation_id)
    }

    /// The answer to AllocateProducerIds.
    pub(super) fn kraft_on_producer_ids(
        &mut self,
        correlation_id: i32,
        error: Option<ErrorCode>,
        first: i64,
        length: i32,
    ) -> Step {
        if self.me().kraft.as_ref().and_then(|k| k.pid_request) != Some(correlation_id) {
            return Ok(());
        }
        self.k
            .disarm_request_timeout(NodeId::Broker(self.id), correlation_id);
        self.k.gate()?;
        let br = self.me_mut();
        br.kraft.as_mut().expect("kraft").pid_request = None;
        if error.is_none() && length > 0 {
            br.producer_id_block = Some((first, first + i64::from(length) - 1));
        }
        Ok(())
    }

    /// AllocateProducerIds timed out or could not be sent: the next
    /// InitProducerId asks again.
    pub(super) fn kraft_producer_ids_failed(&mut self, correlation_id: i32) -> Step {
        if self.me().kraft.as_ref().and_then(|k| k.pid_request) != Some(correlation_id) {
            return Ok(());
        }
        self.k.gate()?;
        self.me_mut().kraft.as_mut().expect("kraft").pid_request = None;
        Ok(())
    }
}

impl BrokerCx<'_> {
    /// `AutoTopicCreationManager.createTopics` with KRaft: CreateTopics to
    /// the active controller, once per topic while one is in flight.
    pub(crate) fn kraft_create_topic(&mut self, spec: crate::scenario::TopicSpec) -> Step {
        let b = self.id;
        let Some(kr) = self.me().kraft.as_ref() else {
            return Ok(());
        };
        if kr.creating.values().any(|t| *t == spec.name) {
            return Ok(());
        }
        let Some(controller) = kr.raft.leader() else {
            return Ok(());
        };
        self.k.gate()?;
        let br = self.me_mut();
        br.next_correlation += 1;
        let correlation_id = br.next_correlation;
        br.kraft
            .as_mut()
            .expect("kraft")
            .creating
            .insert(correlation_id, spec.name.clone());
        self.k.send(
            NodeId::Broker(b),
            NodeId::Controller(controller),
            Message::CreateTopics {
                correlation_id,
                topic: Box::new(spec),
            },
        )?;
        let at = self.k.now + self.k.sc.cluster.config.request_timeout_ms;
        self.k
            .arm_request_timeout(NodeId::Broker(b), at, correlation_id)
    }

    /// A CreateTopics was answered, failed or timed out.
    pub(super) fn kraft_create_done(&mut self, correlation_id: i32) -> Step {
        if !self
            .me()
            .kraft
            .as_ref()
            .is_some_and(|k| k.creating.contains_key(&correlation_id))
        {
            return Ok(());
        }
        self.k
            .disarm_request_timeout(NodeId::Broker(self.id), correlation_id);
        self.k.gate()?;
        self.me_mut()
            .kraft
            .as_mut()
            .expect("kraft")
            .creating
            .remove(&correlation_id);
        Ok(())
    }
}

/// A partition's registration as the state the replica manager and the
/// metadata cache take (the shape of a LeaderAndIsr partition; KRaft has
/// no controller epoch).
fn partition_state(
    tp: TopicPartition,
    reg: &crate::kraft::PartitionRegistration,
    is_new: bool,
) -> PartitionState {
    PartitionState {
        tp,
        controller_epoch: -1,
        leader: reg.leader,
        leader_epoch: reg.leader_epoch,
        isr: reg.isr.iter().map(|r| BrokerId(*r)).collect(),
        partition_epoch: reg.partition_epoch,
        replicas: reg.replicas.iter().map(|r| BrokerId(*r)).collect(),
        adding_replicas: Vec::new(),
        is_new,
    }
}

/// Whether replaying `records` can change what a broker acts on.
pub(super) fn meaningful(records: &[crate::kraft::records::MetadataEntry]) -> bool {
    records.iter().any(|e| {
        !matches!(
            e.record,
            MetadataRecord::NoOpRecord | MetadataRecord::LeaderChange { .. }
        )
    })
}
