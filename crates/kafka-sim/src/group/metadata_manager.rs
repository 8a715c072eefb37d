//! What the group coordinator keeps in `__consumer_offsets`
//! (`kafka.coordinator.group.GroupMetadataManager`, Kafka 3.9): loading the
//! groups and offsets of a partition this broker now leads
//! (`loadGroupsForPartition`), forgetting them when it resigns, storing the
//! group after a SyncGroup (`storeGroup`) and offset commits
//! (`storeOffsets`), each answered once the write is replicated.

use super::*;
use crate::msg::{OffsetCommitRequest, TxnOffsetCommitRequest};

impl BrokerCx<'_> {
    /// A broker became leader of an offsets partition: load its groups.
    pub(crate) fn coordinator_on_leader(&mut self, tp: &TopicPartition) -> Step {
        let b = self.id;
        if &*tp.topic != OFFSETS_TOPIC {
            return Ok(());
        }
        let p = tp.partition;
        if self.groups().loaded.contains(&p) {
            // Still the leader (a new leader epoch): Kafka keeps the groups it
            // has (`addLoadingPartition` refuses an owned partition).
            return Ok(());
        }
        // Read the whole log: the latest value per key wins, tombstones
        // delete. A transaction's offsets wait for its marker: COMMIT
        // applies them, ABORT drops them, and those of a transaction still
        // open stay pending (`doLoadGroupsAndOffsets`).
        let mut offsets: LoadedOffsets = SortedMap::new();
        let mut pending: SortedMap<i64, LoadedOffsets> = SortedMap::new();
        let mut metas: SortedMap<String, Option<rec::GroupValue>> = SortedMap::new();
        self.for_each_record(tp, &mut |h, r| {
            if h.is_control() {
                let done = pending.remove(&h.producer_id).unwrap_or_default();
                let commit = record::EndTxnMarker::parse(r)
                    .ok()
                    .is_some_and(|m| m.control_type == record::ControlType::Commit);
                if commit {
                    for (k, v) in done {
                        // Only over an offset appended earlier (`olderThan`).
                        if offsets.get(&k).is_none_or(|c| c.1 < v.1) {
                            offsets.insert(k, v);
                        }
                    }
                }
                return;
            }
            let Some(key) = r.key.as_deref().and_then(rec::parse_key) else {
                return;
            };
            match key {
                rec::OffsetsKey::Offset { group, tp } => {
                    let into = if h.is_transactional() {
                        pending.entry(h.producer_id).or_default()
                    } else {
                        &mut offsets
                    };
                    match r.value.as_deref().and_then(rec::parse_offset_value) {
                        Some(v) => {
                            into.insert((group, tp), (v.offset, h.base_offset));
                        }
                        None => {
                            into.remove(&(group, tp));
                        }
                    }
                }
                rec::OffsetsKey::Group { group } => {
                    metas.insert(group, r.value.as_deref().and_then(rec::parse_group_value));
                }
            }
        });
        let now = self.k.now;
        let mut groups: SortedMap<String, Group> = SortedMap::new();
        for ((g, tp), (o, at)) in &offsets {
            let group = groups.entry(g.clone()).or_insert_with(|| Group::new(g, p));
            group.set_offset(tp, *o, *at);
        }
        for (pid, open) in &pending {
            for ((g, tp), (o, at)) in open {
                groups
                    .entry(g.clone())
                    .or_insert_with(|| Group::new(g, p))
                    .pending_txn
                    .entry(*pid)
                    .or_default()
                    .insert(tp.clone(), (*o, Some(*at)));
            }
        }
        for (g, v) in &metas {
            let Some(v) = v else { continue };
            let group = groups.entry(g.clone()).or_insert_with(|| Group::new(g, p));
            group.generation_id = v.generation;
            group.protocol_name = v.protocol.clone();
            group.leader_id = v.leader.clone();
            group.state = if v.members.is_empty() {
                GroupState::Empty
            } else {
                GroupState::Stable
            };
            for m in &v.members {
                // The member's connection, from the client host it joined
                // from (written as `/consumer-<n>`, below).
                let consumer = m
                    .client_host
                    .strip_prefix("/consumer-")
                    .and_then(|n| n.parse::<u32>().ok())
                    .unwrap_or(0);
                group.members.push(Member {
                    member_id: m.member_id.clone(),
                    group_instance_id: m.group_instance_id.clone(),
                    client_id: m.client_id.clone(),
                    consumer,
                    session_timeout_ms: m.session_timeout_ms as u64,
                    rebalance_timeout_ms: m.rebalance_timeout_ms as u64,
                    protocols: [(
                        v.protocol.clone().unwrap_or_default(),
                        m.subscription.clone(),
                    )]
                    .into(),
                    awaiting_join: None,
                    awaiting_sync: None,
                    assignment: m.assignment.clone(),
                    session_deadline: now + m.session_timeout_ms as u64,
                });
            }
        }
        let loaded: Vec<String> = groups.keys().cloned().collect();
        let n_offsets = offsets.len() as u32;
        self.k.gate()?;
        {
            let gs = self.groups_mut();
            gs.loaded.insert(p);
            gs.groups.retain(|_, g| g.partition != p);
            for (k, g) in groups {
                gs.groups.insert(k, g);
            }
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::GroupsLoaded {
                broker: b,
                partition: p,
                groups: loaded.clone(),
                offsets: n_offsets,
            },
        );
        for g in loaded {
            let members: Vec<(String, u64)> = self
                .group(&g)
                .map(|g| {
                    g.members
                        .iter()
                        .map(|m| (m.member_id.clone(), m.session_deadline))
                        .collect()
                })
                .unwrap_or_default();
            for (m, at) in members {
                self.k.set_timer(
                    bnode(b),
                    at,
                    Timer::GroupMemberExpiry {
                        group: g.clone(),
                        member: m,
                    },
                )?;
            }
        }
        Ok(())
    }

    /// A broker stopped leading an offsets partition: its groups move away.
    pub(crate) fn coordinator_on_resign(&mut self, tp: &TopicPartition) -> Step {
        let b = self.id;
        if &*tp.topic != OFFSETS_TOPIC || !self.groups().loaded.contains(&tp.partition) {
            return Ok(());
        }
        let p = tp.partition;
        let gone: Vec<String> = self
            .groups()
            .groups
            .values()
            .filter(|g| g.partition == p)
            .map(|g| g.group_id.clone())
            .collect();
        // Requests parked in the groups get NOT_COORDINATOR.
        let mut replies = Vec::new();
        for g in &gone {
            for m in &self.group(g).expect("listed").members {
                if let Some((to, cid)) = m.awaiting_join {
                    replies.push((to, join_error(cid, ErrorCode::NotCoordinator, &m.member_id)));
                }
                if let Some((to, cid)) = m.awaiting_sync {
                    replies.push((
                        to,
                        Message::SyncGroupResponse {
                            correlation_id: cid,
                            error: Some(ErrorCode::NotCoordinator),
                            assignment: Vec::new(),
                        },
                    ));
                }
            }
        }
        self.k.gate()?;
        {
            let gs = self.groups_mut();
            gs.loaded.remove(&p);
            gs.groups.retain(|_, g| g.partition != p);
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::GroupsUnloaded {
                broker: b,
                partition: p,
                groups: gone,
            },
        );
        for (to, m) in replies {
            self.k.send(bnode(b), to, m)?;
        }
        Ok(())
    }

    /// Writes the group record (`storeGroup`); what happens next waits for the ISR.
    pub(super) fn coordinator_store_group(&mut self, g: &str, write: GroupWrite) -> Step {
        let grp = self.group(g).expect("exists").clone();
        let members: Vec<rec::StoredMember> = grp
            .members
            .iter()
            .map(|m| {
                let assignment = match &write {
                    GroupWrite::Sync { assignments, .. } => assignments
                        .iter()
                        .find(|(id, _)| *id == m.member_id)
                        .map(|(_, a)| a.clone())
                        .unwrap_or_default(),
                    _ => m.assignment.clone(),
                };
                let proto = grp.protocol_name.clone().unwrap_or_default();
                rec::StoredMember {
                    member_id: m.member_id.clone(),
                    group_instance_id: m.group_instance_id.clone(),
                    client_id: m.client_id.clone(),
                    client_host: format!("/consumer-{}", m.consumer),
                    rebalance_timeout_ms: m.rebalance_timeout_ms as i32,
                    session_timeout_ms: m.session_timeout_ms as i32,
                    subscription: m
                        .protocols
                        .iter()
                        .find(|(n, _)| *n == proto)
                        .map(|(_, s)| s.clone())
                        .unwrap_or(Subscription {
                            topics: Vec::new(),
                            owned_partitions: Vec::new(),
                            generation_id: -1,
                            rack_id: None,
                        }),
                    assignment,
                }
            })
            .collect();
        let value = rec::GroupValue {
            protocol_type: "consumer".into(),
            generation: grp.generation_id,
            protocol: grp.protocol_name.clone(),
            leader: grp.leader_id.clone(),
            current_state_timestamp: self.k.wall_ms(),
            members,
        };
        let r = NewRecord::new(
            Some(&rec::group_key(g)),
            Some(&rec::group_value(&value)),
            self.k.wall_ms(),
        );
        self.coordinator_append(grp.partition, vec![r], write)
    }

    /// Appends to `__consumer_offsets` as the leader with acks=all (the
    /// coordinator's `appendForGroup`), parking `write` until replicated.
    pub(super) fn coordinator_append(
        &mut self,
        partition: i32,
        records: Vec<NewRecord>,
        write: GroupWrite,
    ) -> Step {
        self.coordinator_append_batch(
            partition,
            record::build_batch(&BatchSpec::default(), &records),
            write,
        )
    }

    /// Appends one built batch to `__consumer_offsets` (see `coordinator_append`).
    fn coordinator_append_batch(
        &mut self,
        partition: i32,
        bytes: Vec<u8>,
        write: GroupWrite,
    ) -> Step {
        let tp = TopicPartition::new(OFFSETS_TOPIC, partition);
        let timeout = 5000; // offsets.commit.timeout.ms
                            // The leader appends at its log end offset.
        let at = self.me().logs.get(&tp).map_or(-1, |l| l.log_end_offset);
        match self.append_as_coordinator(&tp, bytes, timeout)? {
            Ok(id) => {
                self.k.gate()?;
                self.groups_mut().writes.insert(id, (write, at));
                self.settle_coordinator_append(&tp, id)
            }
            Err(ErrorCode::NotLeaderOrFollower) => {
                self.coordinator_write_done(write, Err(ErrorCode::NotCoordinator))
            }
            Err(e) => self.coordinator_write_done(write, Err(coordinator_error(e))),
        }
    }

    /// The parked write finished (replicated, or failed with `error`).
    pub(crate) fn coordinator_write_finished(&mut self, id: u64, error: Option<ErrorCode>) -> Step {
        let Some((write, at)) = self.groups().writes.get(&id).cloned() else {
            return Ok(());
        };
        self.k.gate()?;
        self.groups_mut().writes.remove(&id);
        let result = match error {
            None => Ok(at),
            Some(e) => Err(coordinator_error(e)),
        };
        self.coordinator_write_done(write, result)
    }

    /// A coordinator write ended: replicated (appended at the given
    /// offset), or failed.
    pub(super) fn coordinator_write_done(
        &mut self,
        write: GroupWrite,
        result: Result<i64, ErrorCode>,
    ) -> Step {
        let b = self.id;
        let error = result.err();
        match write {
            GroupWrite::Store => Ok(()),
            GroupWrite::TxnCommit {
                group,
                producer_id,
                from,
                correlation_id,
                offsets,
            } => {
                // `onTxnOffsetCommitAppend`, or `failPendingTxnOffsetCommit`.
                if self.group(&group).is_some() {
                    self.k.gate()?;
                    let g = self.group_mut(&group);
                    if let Some(open) = g.pending_txn.get_mut(&producer_id) {
                        for (tp, o) in &offsets {
                            match result {
                                Ok(at) => {
                                    if let Some(p) = open.get_mut(tp).filter(|p| p.0 == *o) {
                                        p.1 = Some(at);
                                    }
                                }
                                Err(_) => {
                                    open.remove(tp);
                                }
                            }
                        }
                        if open.is_empty() {
                            g.pending_txn.remove(&producer_id);
                        }
                    }
                }
                self.k
                    .send(
                        bnode(b),
                        from,
                        Message::TxnOffsetCommitResponse {
                            correlation_id,
                            partitions: partition_errors(&offsets, error),
                        },
                    )
                    .map(|_| ())
            }
            GroupWrite::Commit {
                group,
                member_id,
                from,
                correlation_id,
                offsets,
            } => {
                if let Ok(at) = result {
                    if self.group(&group).is_none() {
                        return Ok(());
                    }
                    self.k.gate()?;
                    {
                        // `onOffsetCommitAppend`: over an offset appended
                        // earlier only (`olderThan`).
                        let g = self.group_mut(&group);
                        for (tp, o) in &offsets {
                            if g.offsets_at.get(tp).is_none_or(|a| *a < at) {
                                g.set_offset(tp, *o, at);
                            }
                        }
                    }
                    self.k.emit(
                        vec![bnode(b), from],
                        EventKind::OffsetsCommitted {
                            broker: b,
                            group: group.clone(),
                            member_id,
                            offsets: offsets.clone(),
                        },
                    );
                }
                self.k
                    .send(
                        bnode(b),
                        from,
                        Message::OffsetCommitResponse {
                            correlation_id,
                            partitions: partition_errors(&offsets, error),
                        },
                    )
                    .map(|_| ())
            }
            GroupWrite::Sync {
                group,
                generation,
                assignments,
            } => {
                let Some(grp) = self.group(&group).cloned() else {
                    return Ok(());
                };
                if grp.state != GroupState::CompletingRebalance || grp.generation_id != generation {
                    return Ok(());
                }
                if let Some(e) = error {
                    // Kafka resets the assignment and tells the waiting members.
                    for m in &grp.members {
                        if let Some((to, cid)) = m.awaiting_sync {
                            self.k.send(
                                bnode(b),
                                to,
                                Message::SyncGroupResponse {
                                    correlation_id: cid,
                                    error: Some(e),
                                    assignment: Vec::new(),
                                },
                            )?;
                        }
                    }
                    self.k.gate()?;
                    for m in &mut self.group_mut(&group).members {
                        m.awaiting_sync = None;
                    }
                    return self.coordinator_prepare_rebalance(
                        &group,
                        format!("storing the assignment failed: {e:?}"),
                    );
                }
                self.k.gate()?;
                {
                    let g = self.group_mut(&group);
                    g.state = GroupState::Stable;
                    for m in &mut g.members {
                        m.assignment = assignments
                            .iter()
                            .find(|(id, _)| *id == m.member_id)
                            .map(|(_, a)| a.clone())
                            .unwrap_or_default();
                    }
                }
                self.k.emit(
                    vec![bnode(b)],
                    EventKind::GroupStable {
                        broker: b,
                        group: group.clone(),
                        generation,
                        assignment: assignments.iter().cloned().collect(),
                    },
                );
                let grp = self.group(&group).expect("exists").clone();
                for m in &grp.members {
                    if let Some((to, cid)) = m.awaiting_sync {
                        self.k.gate()?;
                        self.group_mut(&group)
                            .member_mut(&m.member_id)
                            .expect("exists")
                            .awaiting_sync = None;
                        self.k.send(
                            bnode(b),
                            to,
                            Message::SyncGroupResponse {
                                correlation_id: cid,
                                error: None,
                                assignment: m.assignment.clone(),
                            },
                        )?;
                    }
                }
                Ok(())
            }
        }
    }

    pub(super) fn coordinator_commit(&mut self, from: NodeId, req: OffsetCommitRequest) -> Step {
        let b = self.id;
        let OffsetCommitRequest {
            correlation_id: cid,
            group_id,
            generation_id: gen,
            member_id,
            offsets,
        } = req;
        let (g, member) = (group_id.as_str(), member_id.as_str());
        let p = self.group_partition(g);
        let fail = |w: &mut BrokerCx, e: ErrorCode, detail: &str| -> Step {
            w.k.record(
                vec![bnode(b), from],
                EventKind::OffsetCommitRejected {
                    broker: b,
                    group: g.to_string(),
                    member_id: member.to_string(),
                    error: e,
                    detail: detail.to_string(),
                },
            )?;
            w.k.send(
                bnode(b),
                from,
                Message::OffsetCommitResponse {
                    correlation_id: cid,
                    partitions: partition_errors(&offsets, Some(e)),
                },
            )
            .map(|_| ())
        };
        if !self.is_coordinator_for(p) {
            return fail(
                self,
                ErrorCode::NotCoordinator,
                "this broker does not lead the group's offsets partition",
            );
        }
        let grp = self.group(g).cloned();
        let standalone = gen < 0 && member.is_empty();
        if !standalone {
            let Some(grp) = &grp else {
                return fail(
                    self,
                    ErrorCode::UnknownMemberId,
                    "the group has no such member",
                );
            };
            if let Some((e, why)) = member_generation_error(grp, member, gen) {
                return fail(self, e, &why);
            }
            if grp.state == GroupState::CompletingRebalance {
                return fail(
                    self,
                    ErrorCode::RebalanceInProgress,
                    "the group is rebalancing",
                );
            }
        } else if grp.as_ref().is_some_and(|x| !x.members.is_empty()) {
            return fail(
                self,
                ErrorCode::UnknownMemberId,
                "a commit without a member id to a group with active members",
            );
        }
        if grp.is_none() {
            self.k.gate()?;
            self.groups_mut()
                .groups
                .insert(g.to_string(), Group::new(g, p));
        }
        let records = self.offset_records(g, &offsets);
        self.coordinator_append(
            p,
            records,
            GroupWrite::Commit {
                group: g.to_string(),
                member_id: member.to_string(),
                from,
                correlation_id: cid,
                offsets,
            },
        )
    }

    /// The offset commit records of group `g` (`generateOffsetRecords`).
    fn offset_records(&self, g: &str, offsets: &[(TopicPartition, i64)]) -> Vec<NewRecord> {
        let wall = self.k.wall_ms();
        offsets
            .iter()
            .map(|(tp, o)| {
                NewRecord::new(
                    Some(&rec::offset_key(g, tp)),
                    Some(&rec::offset_value(&rec::OffsetValue {
                        offset: *o,
                        leader_epoch: -1,
                        metadata: String::new(),
                        commit_timestamp: wall,
                    })),
                    wall,
                )
            })
            .collect()
    }

    /// Whether an offset of `tp` for group `g` is being written: a
    /// transaction's not yet decided, or a commit not yet replicated
    /// (`hasPendingOffsetCommitsForTopicPartition`).
    pub(super) fn coordinator_has_pending(&self, g: &str, tp: &TopicPartition) -> bool {
        self.group(g)
            .is_some_and(|grp| grp.pending_txn.values().any(|o| o.contains_key(tp)))
            || self.groups().writes.values().any(|(w, _)| {
                matches!(w, GroupWrite::Commit { group, offsets, .. }
                    if group == g && offsets.iter().any(|(t, _)| t == tp))
            })
    }

    /// TxnOffsetCommit (`GroupCoordinator.handleTxnCommitOffsets`,
    /// `doTxnCommitOffsets`, `GroupMetadataManager.storeOffsets`): checked
    /// like a member's commit (`validateOffsetCommit` with isTransactional),
    /// then written as a transactional batch of the producer and kept
    /// pending until the transaction's marker.
    pub(super) fn coordinator_txn_commit(
        &mut self,
        from: NodeId,
        req: TxnOffsetCommitRequest,
    ) -> Step {
        let b = self.id;
        let TxnOffsetCommitRequest {
            correlation_id: cid,
            group_id,
            producer_id,
            producer_epoch,
            generation_id: gen,
            member_id,
            offsets,
            ..
        } = req;
        let g = group_id.as_str();
        let p = self.group_partition(g);
        let refuse = |w: &mut BrokerCx, e: ErrorCode, detail: &str| -> Step {
            w.k.record(
                vec![bnode(b), from],
                EventKind::OffsetCommitRejected {
                    broker: b,
                    group: g.to_string(),
                    member_id: member_id.clone(),
                    error: e,
                    detail: format!("TxnOffsetCommit of producer {producer_id}: {detail}"),
                },
            )?;
            w.k.send(
                bnode(b),
                from,
                Message::TxnOffsetCommitResponse {
                    correlation_id: cid,
                    partitions: partition_errors(&offsets, Some(e)),
                },
            )
            .map(|_| ())
        };
        if !self.is_coordinator_for(p) {
            return refuse(
                self,
                ErrorCode::NotCoordinator,
                "this broker does not lead the group's offsets partition",
            );
        }
        if self.group(g).is_none() {
            self.k.gate()?;
            self.groups_mut()
                .groups
                .insert(g.to_string(), Group::new(g, p));
        }
        let grp = self.group(g).expect("just added").clone();
        let standalone = gen < 0 && grp.state == GroupState::Empty;
        if !standalone && (gen >= 0 || !member_id.is_empty()) {
            if let Some((e, why)) = member_generation_error(&grp, &member_id, gen) {
                return refuse(self, e, &why);
            }
        }
        // The log's producer state refuses an older epoch of the producer
        // (`ProducerAppendInfo.checkProducerEpoch`; the coordinator's own
        // batches skip the sequence checks, origin COORDINATOR).
        let tp = TopicPartition::new(OFFSETS_TOPIC, p);
        let newer = self
            .me()
            .producer_states
            .get(&tp)
            .and_then(|s| s.producers.get(&producer_id))
            .is_some_and(|e| e.epoch > producer_epoch);
        if newer {
            return refuse(
                self,
                ErrorCode::InvalidProducerEpoch,
                &format!("epoch {producer_epoch} is older than the log's producer state"),
            );
        }
        let records = self.offset_records(g, &offsets);
        self.k.gate()?;
        {
            let open = self
                .group_mut(g)
                .pending_txn
                .entry(producer_id)
                .or_default();
            for (tp, o) in &offsets {
                open.insert(tp.clone(), (*o, None));
            }
        }
        let spec = BatchSpec {
            producer_id,
            producer_epoch,
            base_sequence: 0,
            transactional: true,
            ..BatchSpec::default()
        };
        self.coordinator_append_batch(
            p,
            record::build_batch(&spec, &records),
            GroupWrite::TxnCommit {
                group: g.to_string(),
                producer_id,
                from,
                correlation_id: cid,
                offsets,
            },
        )
    }

    /// A transaction's marker is replicated on offsets partition `partition`
    /// (`onTransactionCompleted` → `handleTxnCompletion`): its pending
    /// offsets become committed (COMMIT) or are dropped (ABORT).
    pub(crate) fn coordinator_txn_completed(
        &mut self,
        producer_id: i64,
        partition: i32,
        committed: bool,
    ) -> Step {
        let b = self.id;
        if !self.groups().loaded.contains(&partition) {
            return Ok(());
        }
        let decided: Vec<(String, Vec<PendingOffset>)> = self
            .groups()
            .groups
            .iter()
            .filter(|(_, g)| g.partition == partition)
            .filter_map(|(id, g)| {
                let open = g.pending_txn.get(&producer_id)?;
                Some((
                    id.clone(),
                    open.iter()
                        .map(|(tp, (o, at))| (tp.clone(), *o, *at))
                        .collect(),
                ))
            })
            .collect();
        for (group, pending) in decided {
            self.k.gate()?;
            let mut offsets = Vec::new();
            {
                let g = self.group_mut(&group);
                g.pending_txn.remove(&producer_id);
                for (tp, o, at) in pending {
                    // `completePendingTxnOffsetCommit`: a committed offset
                    // replaces one appended earlier only (`olderThan`); its
                    // write is replicated before the producer can commit.
                    let newer = at.filter(|at| g.offsets_at.get(&tp).is_none_or(|a| a < at));
                    match newer {
                        Some(at) if committed => {
                            g.set_offset(&tp, o, at);
                        }
                        _ if committed => continue,
                        _ => {}
                    }
                    offsets.push((tp, o));
                }
            }
            self.k.emit(
                vec![bnode(b)],
                EventKind::TxnOffsetsCompleted {
                    broker: b,
                    group,
                    producer_id,
                    committed,
                    offsets,
                },
            );
        }
        Ok(())
    }
}

/// The same result for every partition of a commit.
/// Offsets read back from `__consumer_offsets`, by group and partition:
/// (offset, the base offset of the batch holding its record).
type LoadedOffsets = SortedMap<(String, TopicPartition), (i64, i64)>;

/// A transaction's offset: partition, offset, where it was appended (once replicated).
type PendingOffset = (TopicPartition, i64, Option<i64>);

fn partition_errors(
    offsets: &[(TopicPartition, i64)],
    error: Option<ErrorCode>,
) -> crate::msg::PartitionErrors {
    offsets.iter().map(|(tp, _)| (tp.clone(), error)).collect()
}

/// `validateCurrentMember` and the generation check of `validateOffsetCommit`,
/// shared by OffsetCommit and TxnOffsetCommit: the error and why, if any.
fn member_generation_error(grp: &Group, member: &str, gen: i32) -> Option<(ErrorCode, String)> {
    if grp.member(member).is_none() {
        return Some((
            ErrorCode::UnknownMemberId,
            "the group has no such member (it was removed)".into(),
        ));
    }
    (gen != grp.generation_id).then(|| {
        (
            ErrorCode::IllegalGeneration,
            format!(
                "the commit is from generation {gen}; the group is in generation {}",
                grp.generation_id
            ),
        )
    })
}
