//! The assignment half of a rebalance on the member: the leader running
//! the assignor (`ConsumerCoordinator.onLeaderElected`), revoking before
//! rejoining or after a cooperative assignment (`onPartitionsRevoked`,
//! `onPartitionsLost`), and taking the new assignment
//! (`onJoinComplete`, `onPartitionsAssigned`).

use super::*;

impl ConsumerCx<'_> {
    /// `onPartitionsRevoked` / `onPartitionsLost`.
    pub(super) fn group_revoke(&mut self, tps: &[TopicPartition], lost: bool) -> Step {
        let c = self.id;
        if tps.is_empty() {
            return Ok(());
        }
        let gen = self.ms().generation;
        self.k.gate()?;
        {
            let x = self.me_mut();
            x.assignment.retain(|t| !tps.contains(t));
            for t in tps {
                x.positions.remove(t);
                x.buffered.remove(t);
                x.high_watermarks.remove(t);
                if let Some(g) = x.group.as_mut() {
                    g.fetched.remove(t);
                }
            }
        }
        self.k.emit(
            vec![cnode(c)],
            EventKind::PartitionsRevoked {
                consumer: c,
                generation: gen,
                partitions: names(tps),
                lost,
            },
        );
        Ok(())
    }

    /// The leader runs the assignor the group chose.
    pub(super) fn group_leader_assign(
        &mut self,
        protocol: Option<&str>,
        members: &[JoinGroupMember],
    ) -> Step<Vec<(String, Vec<TopicPartition>)>> {
        let c = self.id;
        let strategy = protocol
            .and_then(AssignorName::parse)
            .unwrap_or(AssignorName::Range);
        let mut topics: SortedMap<String, i32> = SortedMap::new();
        for m in members {
            for t in &m.subscription.topics {
                if let Some(n) = self.me().metadata.partition_count(t) {
                    topics.insert(t.clone(), n);
                }
            }
        }
        let subs: Vec<MemberSubscription> = members
            .iter()
            .map(|m| MemberSubscription {
                member_id: m.member_id.clone(),
                group_instance_id: m.group_instance_id.clone(),
                topics: m.subscription.topics.clone(),
                owned_partitions: m
                    .subscription
                    .owned_partitions
                    .iter()
                    .filter(|tp| topics.get(&*tp.topic).is_some_and(|n| tp.partition < *n))
                    .map(|tp| PartitionName::new(&tp.topic, tp.partition))
                    .collect(),
                generation: (m.subscription.generation_id >= 0)
                    .then_some(m.subscription.generation_id),
                rack_id: m.subscription.rack_id.clone(),
            })
            .collect();
        // The replicas' racks, from the leader's metadata (KIP-881).
        let broker_rack = &self.k.sc.cluster.broker_rack;
        let racks: PartitionRacks = if broker_rack.is_empty() {
            PartitionRacks::new()
        } else {
            topics
                .iter()
                .map(|(t, n)| {
                    (
                        t.clone(),
                        self.me().metadata.replica_racks(t, *n, broker_rack),
                    )
                })
                .collect()
        };
        // A group whose vote picked a sticky assignor although a member
        // sent a rack runs it without racks (a known gap, see `assignor`).
        let result = match assign_with_racks(strategy, &topics, &racks, &subs) {
            Ok(r) => r,
            Err(_) => return Ok(Vec::new()),
        };
        let to_tps = |v: &Vec<PartitionName>| -> Vec<TopicPartition> {
            v.iter()
                .map(|p| TopicPartition::new(p.topic.as_str(), p.partition))
                .collect()
        };
        let out: Vec<(String, Vec<TopicPartition>)> = members
            .iter()
            .map(|m| {
                (
                    m.member_id.clone(),
                    result
                        .assignment
                        .get(&m.member_id)
                        .map(to_tps)
                        .unwrap_or_default(),
                )
            })
            .collect();
        let group = self.ms().group_id.clone();
        let gen = self.ms().generation;
        self.k.gate()?;
        self.msm().assigned_snapshot = topics.clone();
        self.k.emit(
            vec![cnode(c)],
            EventKind::AssignmentComputed {
                consumer: c,
                group,
                generation: gen,
                strategy: strategy.protocol_name().to_string(),
                partitions_per_topic: topics,
                assignment: out.iter().cloned().collect(),
                revoke: if strategy.is_cooperative() {
                    result
                        .revoke
                        .iter()
                        .filter(|(_, v)| !v.is_empty())
                        .map(|(k, v)| (k.clone(), to_tps(v)))
                        .collect()
                } else {
                    SortedMap::new()
                },
            },
        );
        Ok(out)
    }

    /// SyncGroup answered: take the new assignment (`onJoinComplete`).
    pub(super) fn group_on_assignment(&mut self, assignment: Vec<TopicPartition>) -> Step {
        let c = self.id;
        let coop = self.cooperative();
        let owned = self.me().assignment.clone();
        let revoked: Vec<TopicPartition> = owned
            .iter()
            .filter(|t| !assignment.contains(t))
            .cloned()
            .collect();
        let added: Vec<TopicPartition> = assignment
            .iter()
            .filter(|t| !owned.contains(t))
            .cloned()
            .collect();
        if coop && !revoked.is_empty() {
            self.group_revoke(&revoked, false)?;
        }
        let gen = self.ms().generation;
        self.k.gate()?;
        {
            let x = self.me_mut();
            x.assignment = assignment.clone();
            let m = x.group.as_mut().expect("member");
            m.phase = MemberPhase::Stable;
            if coop && !revoked.is_empty() {
                // KIP-429: rejoin so the revoked partitions can be handed out.
                m.rejoin_needed = true;
            }
        }
        self.k.emit(
            vec![cnode(c)],
            EventKind::PartitionsAssigned {
                consumer: c,
                generation: gen,
                assignment: names(&assignment),
                added: names(&added),
            },
        );
        self.group_check_single_owner()?;
        self.group_fetch_committed()
    }

    /// The guarantee: within one generation, no partition has two owners
    /// (checked by the ledger against the other members).
    pub(super) fn group_check_single_owner(&mut self) -> Step {
        let m = self.ms().clone();
        let mine = self.me().assignment.clone();
        self.audit.check_single_owner(self.k, self.id, &m, &mine)
    }
}
