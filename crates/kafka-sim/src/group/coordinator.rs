//! The group coordinator's protocol (`kafka.coordinator.group.
//! GroupCoordinator`, Kafka 3.9, classic protocol): `handleJoinGroup`
//! (member ids, static members, the initial rebalance delay),
//! `prepareRebalance` and `completeJoin` (the generation, the protocol vote,
//! the leader), `handleSyncGroup`, `handleHeartbeat`, `handleLeaveGroup`, and
//! removing members whose session expired (`onExpireHeartbeat`).

use super::*;
use crate::msg::{JoinGroupRequest, SyncGroupRequest};

impl BrokerCx<'_> {
    pub(super) fn coordinator_join(&mut self, from: NodeId, req: JoinGroupRequest) -> Step {
        let b = self.id;
        let JoinGroupRequest {
            correlation_id: cid,
            group_id,
            session_timeout_ms,
            rebalance_timeout_ms: _,
            member_id,
            group_instance_id,
            protocols,
            client_id,
            ..
        } = req.clone();
        let group_id = group_id.as_str();
        let p = self.group_partition(group_id);
        let reply_err = |w: &mut BrokerCx, e: ErrorCode, m: &str| -> Step {
            w.k.send(bnode(b), from, join_error(cid, e, m)).map(|_| ())
        };
        if !self.is_coordinator_for(p) {
            return reply_err(self, ErrorCode::NotCoordinator, &member_id);
        }
        let cfg = &self.k.sc.cluster.config;
        if session_timeout_ms < cfg.group_min_session_timeout_ms
            || session_timeout_ms > cfg.group_max_session_timeout_ms
        {
            return reply_err(self, ErrorCode::InvalidSessionTimeout, &member_id);
        }
        let consumer = match from {
            NodeId::Consumer(c) => c,
            _ => 0,
        };
        if self.group(group_id).is_none() {
            self.k.gate()?;
            self.groups_mut()
                .groups
                .insert(group_id.to_string(), Group::new(group_id, p));
        }
        let g = self.group(group_id).expect("just ensured").clone();
        // The members must share at least one assignor with the group.
        if !g.members.is_empty()
            && !protocols.iter().any(|(n, _)| {
                g.members
                    .iter()
                    .filter(|m| m.member_id != member_id)
                    .all(|m| m.protocols.iter().any(|(x, _)| x == n))
            })
        {
            return reply_err(self, ErrorCode::InconsistentGroupProtocol, &member_id);
        }
        // Static member: the instance id keeps its place; a new member id
        // replaces the old one without a rebalance (KIP-345).
        if let Some(inst) = &group_instance_id {
            if let Some(old) = g
                .members
                .iter()
                .find(|m| m.group_instance_id.as_ref() == Some(inst))
                .cloned()
            {
                if member_id.is_empty() || member_id != old.member_id {
                    let new_id = self.new_member_id(group_id, &client_id);
                    self.k.gate()?;
                    let now = self.k.now;
                    {
                        let grp = self.group_mut(group_id);
                        let m = grp.member_mut(&old.member_id).expect("found");
                        m.member_id = new_id.clone();
                        m.consumer = consumer;
                        m.session_deadline = now + session_timeout_ms;
                        m.protocols = protocols.as_slice().into();
                        if grp.leader_id.as_deref() == Some(old.member_id.as_str()) {
                            grp.leader_id = Some(new_id.clone());
                        }
                    }
                    self.k.emit(
                        vec![bnode(b), from],
                        EventKind::StaticMemberReplaced {
                            broker: b,
                            group: group_id.to_string(),
                            group_instance_id: inst.clone(),
                            old_member_id: old.member_id.clone(),
                            new_member_id: new_id.clone(),
                        },
                    );
                    self.k.set_timer(
                        bnode(b),
                        now + session_timeout_ms,
                        Timer::GroupMemberExpiry {
                            group: group_id.to_string(),
                            member: new_id.clone(),
                        },
                    )?;
                    let g = self.group(group_id).expect("exists").clone();
                    if g.state == GroupState::Stable {
                        // Answer with the current generation; the member syncs
                        // and gets its old assignment back.
                        return self
                            .k
                            .send(bnode(b), from, current_generation(&g, cid, &new_id))
                            .map(|_| ());
                    }
                    return self.coordinator_add_or_update(from, &new_id, None, req);
                }
            }
        }
        if member_id.is_empty() {
            let new_id = self.new_member_id(group_id, &client_id);
            if group_instance_id.is_some() {
                // A static member joins at once with its new id.
                return self.coordinator_add_or_update(from, &new_id, group_instance_id, req);
            }
            // KIP-394: hand out an id and ask the member to come back with it.
            self.k.gate()?;
            self.group_mut(group_id)
                .pending_members
                .insert(new_id.clone());
            self.k.emit(
                vec![bnode(b), from],
                EventKind::MemberIdAssigned {
                    broker: b,
                    group: group_id.to_string(),
                    member_id: new_id.clone(),
                },
            );
            let at = self.k.now + session_timeout_ms;
            self.k.set_timer(
                bnode(b),
                at,
                Timer::GroupMemberExpiry {
                    group: group_id.to_string(),
                    member: new_id.clone(),
                },
            )?;
            return reply_err(self, ErrorCode::MemberIdRequired, &new_id);
        }
        let known = g.member(&member_id).is_some() || g.pending_members.contains(&member_id);
        if !known {
            return reply_err(self, ErrorCode::UnknownMemberId, &member_id);
        }
        self.coordinator_add_or_update(from, &member_id, group_instance_id, req)
    }

    pub(super) fn new_member_id(&mut self, group_id: &str, client_id: &str) -> String {
        // Kafka: clientId + "-" + a random UUID. Here a deterministic one.
        let g = self.group_mut(group_id);
        g.next_member_seq += 1;
        let seq = g.next_member_seq;
        let h = crate::partitioner::murmur2(format!("{group_id}/{client_id}/{seq}").as_bytes());
        format!("{client_id}-{:08x}-{seq:04x}", h as u32)
    }

    /// Adds a member or updates a known one from its JoinGroup (`member_id`
    /// is the id it joins under: the one it sent, or the one just given).
    pub(super) fn coordinator_add_or_update(
        &mut self,
        from: NodeId,
        member_id: &str,
        group_instance_id: Option<String>,
        req: JoinGroupRequest,
    ) -> Step {
        let JoinGroupRequest {
            correlation_id: cid,
            group_id,
            session_timeout_ms,
            rebalance_timeout_ms,
            protocols,
            client_id,
            ..
        } = req;
        let (group_id, client_id) = (group_id.as_str(), client_id.as_str());
        let consumer = match from {
            NodeId::Consumer(c) => c,
            _ => 0,
        };
        let b = self.id;
        let now = self.k.now;
        let g = self.group(group_id).expect("exists").clone();
        let existing = g.member(member_id).cloned();
        match (&existing, g.state) {
            (Some(m), GroupState::Stable | GroupState::CompletingRebalance)
                if *m.protocols == *protocols
                    && g.leader_id.as_deref() != Some(member_id)
                    && g.state == GroupState::Stable =>
            {
                // Nothing changed: answer with the current generation.
                self.k.gate()?;
                self.group_mut(group_id)
                    .member_mut(member_id)
                    .expect("exists")
                    .session_deadline = now + session_timeout_ms;
                return self
                    .k
                    .send(bnode(b), from, current_generation(&g, cid, member_id))
                    .map(|_| ());
            }
            _ => {}
        }
        self.k.gate()?;
        {
            let grp = self.group_mut(group_id);
            grp.pending_members.remove(member_id);
            match grp.member_mut(member_id) {
                Some(m) => {
                    m.protocols = protocols.into();
                    m.awaiting_join = Some((from, cid));
                    m.consumer = consumer;
                    m.session_deadline = now + session_timeout_ms;
                    m.rebalance_timeout_ms = rebalance_timeout_ms;
                }
                None => {
                    grp.members.push(Member {
                        member_id: member_id.to_string(),
                        group_instance_id: group_instance_id.clone(),
                        client_id: client_id.to_string(),
                        consumer,
                        session_timeout_ms,
                        rebalance_timeout_ms,
                        protocols: protocols.into(),
                        awaiting_join: Some((from, cid)),
                        awaiting_sync: None,
                        assignment: Vec::new(),
                        session_deadline: now + session_timeout_ms,
                    });
                    grp.new_member_added = true;
                    if grp.leader_id.is_none() {
                        grp.leader_id = Some(member_id.to_string());
                    }
                }
            }
        }
        self.k.emit(
            vec![from, bnode(b)],
            EventKind::MemberJoining {
                broker: b,
                group: group_id.to_string(),
                member_id: member_id.to_string(),
                group_instance_id,
                known: existing.is_some(),
            },
        );
        self.k.set_timer(
            bnode(b),
            now + session_timeout_ms,
            Timer::GroupMemberExpiry {
                group: group_id.to_string(),
                member: member_id.to_string(),
            },
        )?;
        let state = self.group(group_id).expect("exists").state;
        match state {
            GroupState::PreparingRebalance => self.coordinator_maybe_complete_join(group_id),
            _ => {
                let reason = if existing.is_some() {
                    format!("member {member_id} rejoined (its subscription or role changed)")
                } else {
                    format!("member {member_id} joined")
                };
                self.coordinator_prepare_rebalance(group_id, reason)
            }
        }
    }

    /// `prepareRebalance`: PreparingRebalance, waiting for every member's JoinGroup.
    pub(super) fn coordinator_prepare_rebalance(&mut self, group_id: &str, reason: String) -> Step {
        let b = self.id;
        let g = self.group(group_id).expect("exists").clone();
        // Members waiting in SyncGroup learn that another rebalance began.
        if g.state == GroupState::CompletingRebalance {
            for m in &g.members {
                if let Some((to, cid)) = m.awaiting_sync {
                    self.k.gate()?;
                    self.group_mut(group_id)
                        .member_mut(&m.member_id)
                        .expect("exists")
                        .awaiting_sync = None;
                    self.k.send(
                        bnode(b),
                        to,
                        Message::SyncGroupResponse {
                            correlation_id: cid,
                            error: Some(ErrorCode::RebalanceInProgress),
                            assignment: Vec::new(),
                        },
                    )?;
                }
            }
        }
        let was_empty = g.state == GroupState::Empty;
        let delay = self.k.sc.cluster.config.group_initial_rebalance_delay_ms;
        let now = self.k.now;
        let timeout = self.group(group_id).expect("exists").rebalance_timeout();
        self.k.gate()?;
        {
            let grp = self.group_mut(group_id);
            grp.state = GroupState::PreparingRebalance;
            grp.new_member_added = false;
            // During the initial delay the join completes only when the
            // delay runs out (InitialDelayedJoin), never early.
            grp.initial_delay_until = if was_empty && delay > 0 {
                now + timeout
            } else {
                0
            };
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::RebalanceStarted {
                broker: b,
                group: group_id.to_string(),
                generation: g.generation_id,
                reason,
                wait_ms: if was_empty && delay > 0 {
                    delay.min(timeout)
                } else {
                    timeout
                },
                initial_delay: was_empty && delay > 0,
            },
        );
        if was_empty && delay > 0 {
            self.k.set_timer(
                bnode(b),
                now + delay.min(timeout),
                Timer::GroupInitialDelay {
                    group: group_id.to_string(),
                },
            )
        } else {
            self.k.set_timer(
                bnode(b),
                now + timeout,
                Timer::GroupJoinDeadline {
                    group: group_id.to_string(),
                    generation: g.generation_id,
                },
            )?;
            self.coordinator_maybe_complete_join(group_id)
        }
    }

    /// `InitialDelayedJoin`: while members keep arriving, wait a little longer.
    pub(crate) fn coordinator_initial_delay(&mut self, g: &str) -> Step {
        let b = self.id;
        let Some(grp) = self.group(g).cloned() else {
            return Ok(());
        };
        if grp.state != GroupState::PreparingRebalance {
            return Ok(());
        }
        let delay = self.k.sc.cluster.config.group_initial_rebalance_delay_ms;
        let remaining = grp.initial_delay_until.saturating_sub(self.k.now);
        if grp.new_member_added && remaining > 0 {
            self.k.gate()?;
            self.group_mut(g).new_member_added = false;
            let at = self.k.now + delay.min(remaining);
            return self
                .k
                .set_timer(bnode(b), at, Timer::GroupInitialDelay { group: g.into() });
        }
        self.coordinator_complete_join(g)
    }

    pub(super) fn coordinator_maybe_complete_join(&mut self, g: &str) -> Step {
        let grp = self.group(g).expect("exists");
        if grp.state == GroupState::PreparingRebalance
            && grp.all_joined()
            && grp.initial_delay_until <= self.k.now
        {
            self.coordinator_complete_join(g)
        } else {
            Ok(())
        }
    }

    /// The rebalance timeout ran out: go on without the members that did not rejoin.
    pub(crate) fn coordinator_join_deadline(&mut self, g: &str, gen: i32) -> Step {
        match self.group(g) {
            Some(grp)
                if grp.state == GroupState::PreparingRebalance && grp.generation_id == gen =>
            {
                self.coordinator_complete_join(g)
            }
            _ => Ok(()),
        }
    }

    /// `onCompleteJoin`: the next generation begins.
    pub(super) fn coordinator_complete_join(&mut self, g: &str) -> Step {
        let b = self.id;
        let grp = self.group(g).expect("exists").clone();
        for m in grp.members.iter().filter(|m| m.awaiting_join.is_none()) {
            self.coordinator_remove_member(
                g,
                &m.member_id,
                "did not rejoin within the rebalance timeout (max.poll.interval.ms)",
            )?;
        }
        let grp = self.group(g).expect("exists").clone();
        let protocol = grp.select_protocol();
        let next_gen = grp.generation_id + 1;
        let leader = grp
            .leader_id
            .clone()
            .filter(|l| grp.member(l).is_some())
            .or_else(|| grp.members.first().map(|m| m.member_id.clone()));
        self.k.gate()?;
        let now = self.k.now;
        {
            let x = self.group_mut(g);
            x.generation_id = next_gen;
            x.initial_delay_until = 0;
            x.protocol_name = protocol.clone();
            x.leader_id = leader.clone();
            x.state = if x.members.is_empty() {
                GroupState::Empty
            } else {
                GroupState::CompletingRebalance
            };
            for m in &mut x.members {
                m.awaiting_join = None;
                // completeAndScheduleNextHeartbeatExpiration
                m.session_deadline = now + m.session_timeout_ms;
            }
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::GenerationStarted {
                broker: b,
                group: g.to_string(),
                generation: next_gen,
                protocol: protocol.clone(),
                leader: leader.clone(),
                members: grp.members.iter().map(|m| m.member_id.clone()).collect(),
            },
        );
        if grp.members.is_empty() {
            return self.coordinator_store_group(g, GroupWrite::Store);
        }
        for m in &grp.members {
            self.k.set_timer(
                bnode(b),
                now + m.session_timeout_ms,
                Timer::GroupMemberExpiry {
                    group: g.to_string(),
                    member: m.member_id.clone(),
                },
            )?;
        }
        let proto = protocol.clone().unwrap_or_default();
        let all: Vec<JoinGroupMember> = grp
            .members
            .iter()
            .map(|m| JoinGroupMember {
                member_id: m.member_id.clone(),
                group_instance_id: m.group_instance_id.clone(),
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
            })
            .collect();
        for m in &grp.members {
            let Some((to, cid)) = m.awaiting_join else {
                continue;
            };
            let is_leader = leader.as_deref() == Some(m.member_id.as_str());
            self.k.send(
                bnode(b),
                to,
                Message::JoinGroupResponse {
                    correlation_id: cid,
                    error: None,
                    generation_id: next_gen,
                    protocol_name: protocol.clone(),
                    leader: leader.clone().unwrap_or_default(),
                    member_id: m.member_id.clone(),
                    members: if is_leader { all.clone() } else { Vec::new() },
                },
            )?;
        }
        Ok(())
    }

    pub(super) fn coordinator_remove_member(
        &mut self,
        g: &str,
        member: &str,
        reason: &str,
    ) -> Step {
        let b = self.id;
        let Some(m) = self.group(g).and_then(|x| x.member(member)).cloned() else {
            return Ok(());
        };
        self.k.gate()?;
        {
            let x = self.group_mut(g);
            x.members.retain(|y| y.member_id != member);
            if x.leader_id.as_deref() == Some(member) {
                x.leader_id = x.members.first().map(|y| y.member_id.clone());
            }
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::MemberRemoved {
                broker: b,
                group: g.to_string(),
                member_id: member.to_string(),
                reason: reason.to_string(),
            },
        );
        if let Some((to, cid)) = m.awaiting_join {
            self.k.send(
                bnode(b),
                to,
                join_error(cid, ErrorCode::UnknownMemberId, member),
            )?;
        }
        Ok(())
    }

    pub(crate) fn coordinator_member_expiry(&mut self, g: &str, m: &str) -> Step {
        let Some(grp) = self.group(g).cloned() else {
            return Ok(());
        };
        if grp.pending_members.contains(m) {
            self.k.gate()?;
            self.group_mut(g).pending_members.remove(m);
            return self.coordinator_maybe_complete_join(g);
        }
        let Some(member) = grp.member(m) else {
            return Ok(());
        };
        // A member waiting in JoinGroup or SyncGroup has done its part: Kafka
        // counts it as alive (`MemberMetadata.hasSatisfiedHeartbeat`), and its
        // deadline starts again when the join completes.
        if member.session_deadline > self.k.now
            || member.awaiting_join.is_some()
            || member.awaiting_sync.is_some()
        {
            return Ok(());
        }
        let timeout = member.session_timeout_ms;
        self.coordinator_remove_member(
            g,
            m,
            &format!("no heartbeat within session.timeout.ms={timeout}"),
        )?;
        self.coordinator_after_member_left(g, m)
    }

    pub(super) fn coordinator_after_member_left(&mut self, g: &str, m: &str) -> Step {
        match self.group(g).expect("exists").state {
            GroupState::Stable | GroupState::CompletingRebalance => {
                self.coordinator_prepare_rebalance(g, format!("member {m} left"))
            }
            GroupState::PreparingRebalance => self.coordinator_maybe_complete_join(g),
            GroupState::Empty => Ok(()),
        }
    }

    pub(super) fn coordinator_heartbeat(
        &mut self,
        g: &str,
        gen: i32,
        member: &str,
    ) -> Step<Option<ErrorCode>> {
        let b = self.id;
        let p = self.group_partition(g);
        if !self.is_coordinator_for(p) {
            return Ok(Some(ErrorCode::NotCoordinator));
        }
        let Some(grp) = self.group(g) else {
            return Ok(Some(ErrorCode::UnknownMemberId));
        };
        let Some(m) = grp.member(member) else {
            return Ok(Some(ErrorCode::UnknownMemberId));
        };
        let timeout = m.session_timeout_ms;
        let state = grp.state;
        if gen != grp.generation_id {
            return Ok(Some(ErrorCode::IllegalGeneration));
        }
        self.k.gate()?;
        let at = self.k.now + timeout;
        self.group_mut(g)
            .member_mut(member)
            .expect("exists")
            .session_deadline = at;
        self.k.set_timer(
            bnode(b),
            at,
            Timer::GroupMemberExpiry {
                group: g.into(),
                member: member.into(),
            },
        )?;
        Ok(match state {
            GroupState::PreparingRebalance => Some(ErrorCode::RebalanceInProgress),
            GroupState::Empty => Some(ErrorCode::UnknownMemberId),
            _ => None,
        })
    }

    pub(super) fn coordinator_leave(&mut self, g: &str, member: &str) -> Step<Option<ErrorCode>> {
        let p = self.group_partition(g);
        if !self.is_coordinator_for(p) {
            return Ok(Some(ErrorCode::NotCoordinator));
        }
        if self.group(g).and_then(|x| x.member(member)).is_none() {
            return Ok(Some(ErrorCode::UnknownMemberId));
        }
        self.coordinator_remove_member(g, member, "sent LeaveGroup")?;
        self.coordinator_after_member_left(g, member)?;
        Ok(None)
    }

    pub(super) fn coordinator_sync(&mut self, from: NodeId, req: SyncGroupRequest) -> Step {
        let b = self.id;
        let SyncGroupRequest {
            correlation_id: cid,
            group_id,
            generation_id: gen,
            member_id,
            assignments,
            ..
        } = req;
        let (g, member) = (group_id.as_str(), member_id.as_str());
        let p = self.group_partition(g);
        let err = |e: ErrorCode| Message::SyncGroupResponse {
            correlation_id: cid,
            error: Some(e),
            assignment: Vec::new(),
        };
        if !self.is_coordinator_for(p) {
            return self
                .k
                .send(bnode(b), from, err(ErrorCode::NotCoordinator))
                .map(|_| ());
        }
        let Some(grp) = self.group(g).cloned() else {
            return self
                .k
                .send(bnode(b), from, err(ErrorCode::UnknownMemberId))
                .map(|_| ());
        };
        let Some(m) = grp.member(member) else {
            return self
                .k
                .send(bnode(b), from, err(ErrorCode::UnknownMemberId))
                .map(|_| ());
        };
        if gen != grp.generation_id {
            return self
                .k
                .send(bnode(b), from, err(ErrorCode::IllegalGeneration))
                .map(|_| ());
        }
        match grp.state {
            GroupState::Empty => self
                .k
                .send(bnode(b), from, err(ErrorCode::UnknownMemberId))
                .map(|_| ()),
            GroupState::PreparingRebalance => self
                .k
                .send(bnode(b), from, err(ErrorCode::RebalanceInProgress))
                .map(|_| ()),
            GroupState::Stable => {
                let a = m.assignment.clone();
                self.k
                    .send(
                        bnode(b),
                        from,
                        Message::SyncGroupResponse {
                            correlation_id: cid,
                            error: None,
                            assignment: a,
                        },
                    )
                    .map(|_| ())
            }
            GroupState::CompletingRebalance => {
                self.k.gate()?;
                self.group_mut(g)
                    .member_mut(member)
                    .expect("exists")
                    .awaiting_sync = Some((from, cid));
                if grp.leader_id.as_deref() == Some(member) {
                    // Members the leader left out get nothing.
                    let mut full: Vec<(String, Vec<TopicPartition>)> = grp
                        .members
                        .iter()
                        .map(|m| {
                            let a = assignments
                                .iter()
                                .find(|(id, _)| *id == m.member_id)
                                .map(|(_, a)| a.clone())
                                .unwrap_or_default();
                            (m.member_id.clone(), a)
                        })
                        .collect();
                    full.sort_by(|a, b| a.0.cmp(&b.0));
                    self.coordinator_store_group(
                        g,
                        GroupWrite::Sync {
                            group: g.to_string(),
                            generation: gen,
                            assignments: full,
                        },
                    )?;
                }
                Ok(())
            }
        }
    }
}
