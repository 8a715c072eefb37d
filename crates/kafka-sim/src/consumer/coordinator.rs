//! The member side of a consumer group: the consumer's
//! `ConsumerCoordinator` (`org.apache.kafka.clients.consumer.internals.
//! ConsumerCoordinator` over `AbstractCoordinator`, Kafka 3.9, classic
//! protocol). It finds the coordinator (`FindCoordinator`), joins
//! (`JoinGroup`; a first join without a member id is answered
//! `MEMBER_ID_REQUIRED`, KIP-394), runs the assignor when it is the leader
//! (`onLeaderElected` → `performAssignment`), syncs (`SyncGroup`), heartbeats
//! from its heartbeat thread, revokes before joining (EAGER) or only what
//! moves (COOPERATIVE), fetches committed offsets for new partitions
//! (`OffsetFetch`) and commits (`OffsetCommit`, auto or by the
//! application). The coordinator it talks to is `group/` on the broker.

use super::*;
use crate::assignor::{assign_with_racks, MemberSubscription, PartitionName, PartitionRacks};
use crate::client_config::AssignorName;
use crate::collections::SortedMap;
use crate::event::EventKind;
use crate::group::*;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::kernel::{Step, Timer};
use crate::msg::{ErrorCode, JoinGroupMember, Message, Subscription};
use crate::msg::{JoinGroupRequest, OffsetCommitRequest, SyncGroupRequest};

mod assignment;

mod heartbeat;
mod offsets;

impl ConsumerCx<'_> {
    fn ms(&self) -> &MemberState {
        self.me().group.as_ref().expect("group member")
    }
    fn msm(&mut self) -> &mut MemberState {
        self.me_mut().group.as_mut().expect("group member")
    }
    fn is_member(&self) -> bool {
        self.me().group.is_some()
    }
    fn cooperative(&self) -> bool {
        self.me()
            .config
            .partition_assignment_strategy
            .iter()
            .all(|a| a.is_cooperative())
    }

    pub(crate) fn group_client_start(&mut self) -> Step {
        let c = self.id;
        if !self.is_member() {
            return Ok(());
        }
        self.k.gate()?;
        let now = self.k.now;
        let interval = self.me().config.auto_commit_interval_ms;
        {
            let m = self.msm();
            m.last_poll_ms = now;
            m.next_auto_commit_ms = now + interval;
        }
        let hb = now + self.me().config.heartbeat_interval_ms;
        self.k.set_timer(cnode(c), hb, Timer::ConsumerHeartbeat)?;
        self.group_find_coordinator()
    }

    fn group_find_coordinator(&mut self) -> Step {
        let m = self.ms();
        if m.find_in_flight.is_some() || m.coordinator.is_some() || self.k.now < m.retry_at_ms {
            return Ok(());
        }
        let Some(to) = self.me().metadata.least_loaded(&self.k.sc, self.k.now) else {
            return Ok(());
        };
        let cid = self.correlation();
        self.k.gate()?;
        {
            let x = self.me_mut();
            x.metadata.next_broker += 1;
            x.group.as_mut().expect("member").find_in_flight = Some(cid);
        }
        let key = self.ms().group_id.clone();
        self.request(
            to,
            cid,
            self.me().config.request_timeout_ms,
            Message::FindCoordinator {
                correlation_id: cid,
                key,
                key_type: crate::msg::CoordinatorType::Group,
            },
        )
    }

    /// The coordinator is gone (an error, a timeout, a dead connection).
    fn group_coordinator_unknown(&mut self, why: &str) -> Step {
        let c = self.id;
        let Some(b) = self.ms().coordinator else {
            return Ok(());
        };
        self.k.gate()?;
        let retry = self.k.now + self.me().config.retry_backoff_ms;
        {
            let m = self.msm();
            m.coordinator = None;
            m.join_in_flight = None;
            m.sync_in_flight = None;
            m.heartbeat_in_flight = None;
            m.offset_fetch_in_flight = None;
            m.retry_at_ms = retry;
            if m.phase != MemberPhase::Stable {
                m.phase = MemberPhase::Unjoined;
                m.rejoin_needed = true;
            }
        }
        self.k.emit(
            vec![cnode(c)],
            EventKind::CoordinatorLost {
                consumer: c,
                broker: b,
                reason: why.to_string(),
            },
        );
        Ok(())
    }

    /// The topics this member's subscription covers now.
    fn group_resolve_subscription(&self) -> Vec<String> {
        let spec = &self.me().spec;
        if let Some(t) = &spec.subscribe {
            let mut v = t.clone();
            v.sort();
            v.dedup();
            return v;
        }
        if let Some(p) = &spec.subscribe_pattern {
            if let Ok(re) = crate::regex::Regex::new(p) {
                return self
                    .me()
                    .metadata
                    .topics()
                    .into_iter()
                    .filter(|t| !t.starts_with("__") && re.matches(t))
                    .collect();
            }
        }
        Vec::new()
    }

    /// Metadata arrived: a pattern may match new topics; the leader notices
    /// new partitions of subscribed topics.
    pub(crate) fn group_on_metadata(&mut self) -> Step {
        let c = self.id;
        if !self.is_member() {
            return Ok(());
        }
        let subs = self.group_resolve_subscription();
        let m = self.ms().clone();
        if m.phase == MemberPhase::Stable && subs != m.subscription {
            self.k.gate()?;
            self.msm().rejoin_needed = true;
            return self
                .k
                .record(
                    vec![cnode(c)],
                    EventKind::RejoinRequested {
                        consumer: c,
                        reason: format!(
                            "the subscription now covers {:?} (was {:?})",
                            subs, m.subscription
                        ),
                    },
                )
                .map(|_| ());
        }
        if m.phase == MemberPhase::Stable && m.is_leader {
            let now: SortedMap<String, i32> =
                SortedMap::from_iter(m.subscription.iter().filter_map(|t| {
                    self.me()
                        .metadata
                        .partition_count(t)
                        .map(|n| (t.clone(), n))
                }));
            if now != m.assigned_snapshot && !m.rejoin_needed {
                self.k.gate()?;
                self.msm().rejoin_needed = true;
                return self
                    .k
                    .record(
                        vec![cnode(c)],
                        EventKind::RejoinRequested {
                            consumer: c,
                            reason: format!(
                                "partition counts changed since the assignment: {:?} → {:?}",
                                m.assigned_snapshot, now
                            ),
                        },
                    )
                    .map(|_| ());
            }
        }
        Ok(())
    }

    /// The group's part of `poll()`: coordinator, (re)join, auto-commit.
    pub(crate) fn group_on_poll(&mut self) -> Step {
        if !self.is_member() {
            return Ok(());
        }
        self.k.gate()?;
        let now = self.k.now;
        self.msm().last_poll_ms = now;
        if self.ms().coordinator.is_none() {
            return self.group_find_coordinator();
        }
        if self.ms().rejoin_needed
            && self.ms().join_in_flight.is_none()
            && self.ms().sync_in_flight.is_none()
            && self.k.now >= self.ms().retry_at_ms
            && !self.me().metadata.partitions.is_empty()
        {
            return self.group_join();
        }
        if self.ms().phase == MemberPhase::Stable {
            self.group_fetch_committed()?;
            let cfg = &self.me().config;
            if cfg.enable_auto_commit && now >= self.ms().next_auto_commit_ms {
                let next = now + cfg.auto_commit_interval_ms;
                self.k.gate()?;
                self.msm().next_auto_commit_ms = next;
                self.group_commit(false, "auto-commit (enable.auto.commit=true)")?;
            }
        }
        Ok(())
    }

    /// `onJoinPrepare` + JoinGroup.
    fn group_join(&mut self) -> Step {
        let coop = self.cooperative();
        let m = self.ms().clone();
        // A member whose generation was reset (the group moved on without
        // it) has lost its partitions: onPartitionsLost, no commit.
        if !self.me().assignment.is_empty() && m.generation < 0 {
            let all = self.me().assignment.clone();
            self.group_revoke(&all, true)?;
        }
        // Eager: commit and give up everything before joining.
        if !coop && !self.me().assignment.is_empty() && m.generation >= 0 {
            if self.me().config.enable_auto_commit {
                self.group_commit(false, "before revoking (onJoinPrepare)")?;
            }
            let all = self.me().assignment.clone();
            self.group_revoke(&all, false)?;
        }
        let subs = self.group_resolve_subscription();
        let owned = names(&self.me().assignment);
        let subscription = Subscription {
            topics: subs.clone(),
            owned_partitions: if coop { owned } else { Vec::new() },
            generation_id: m.generation,
            rack_id: Some(self.me().config.client_rack.clone()).filter(|r| !r.is_empty()),
        };
        let protocols: Vec<(String, Subscription)> = self
            .me()
            .config
            .partition_assignment_strategy
            .iter()
            .map(|a| (a.protocol_name().to_string(), subscription.clone()))
            .collect();
        let cid = self.correlation();
        let coord = m.coordinator.expect("checked");
        self.k.gate()?;
        {
            let x = self.msm();
            x.join_in_flight = Some(cid);
            x.phase = MemberPhase::Joining;
            x.rejoin_needed = false;
            x.subscription = subs;
        }
        let cfg = self.me().config.clone();
        // JoinGroup may wait a whole rebalance: the client allows for it.
        self.request(
            coord,
            cid,
            cfg.request_timeout_ms.max(cfg.max_poll_interval_ms + 5000),
            Message::JoinGroup(JoinGroupRequest {
                correlation_id: cid,
                group_id: m.group_id.clone(),
                session_timeout_ms: cfg.session_timeout_ms,
                rebalance_timeout_ms: cfg.max_poll_interval_ms,
                member_id: m.member_id.clone(),
                group_instance_id: cfg.group_instance_id.clone(),
                protocol_type: "consumer".into(),
                protocols,
                client_id: self.me().client_id(),
            }),
        )
    }

    pub(crate) fn group_request_timeout(&mut self, cid: i32) -> Step {
        if !self.is_member() {
            return Ok(());
        }
        let m = self.ms().clone();
        if m.find_in_flight == Some(cid) {
            self.k.gate()?;
            let retry = self.k.now + self.me().config.retry_backoff_ms;
            let x = self.msm();
            x.find_in_flight = None;
            x.retry_at_ms = retry;
            return Ok(());
        }
        let ours = m.join_in_flight == Some(cid)
            || m.sync_in_flight == Some(cid)
            || m.heartbeat_in_flight == Some(cid)
            || m.offset_fetch_in_flight
                .as_ref()
                .is_some_and(|(x, _)| *x == cid)
            || m.commits_in_flight.contains_key(&cid);
        if !ours {
            return Ok(());
        }
        if m.commits_in_flight.contains_key(&cid) {
            self.group_commit_failed(cid, ErrorCode::RequestTimedOut)?;
        }
        self.group_coordinator_unknown("a request to the coordinator timed out")
    }

    /// The coordinator's process died with requests of ours in flight: the
    /// client fails them (`DisconnectException`) and looks for the
    /// coordinator again (`markCoordinatorUnknown`), instead of waiting for
    /// their timeouts (a JoinGroup's is the rebalance timeout + 5 s).
    pub(crate) fn group_connection_closed(&mut self, peer: BrokerId) -> Step {
        if !self.is_member() {
            return Ok(());
        }
        let m = self.ms().clone();
        if m.coordinator != Some(peer) || !m.awaits_coordinator() {
            return Ok(());
        }
        for cid in m.commits_in_flight.keys() {
            self.group_commit_failed(*cid, ErrorCode::NetworkException)?;
        }
        self.group_coordinator_unknown("the connection to the coordinator closed")
    }

    pub(crate) fn group_disconnected(&mut self, msg: &Message) -> Step {
        if !self.is_member() {
            return Ok(());
        }
        match msg {
            Message::FindCoordinator { correlation_id, .. } => {
                self.group_request_timeout(*correlation_id)
            }
            Message::JoinGroup(JoinGroupRequest { correlation_id, .. })
            | Message::SyncGroup(SyncGroupRequest { correlation_id, .. })
            | Message::Heartbeat { correlation_id, .. }
            | Message::OffsetFetch { correlation_id, .. }
            | Message::OffsetCommit(OffsetCommitRequest { correlation_id, .. }) => {
                if let Message::OffsetCommit(OffsetCommitRequest { correlation_id, .. }) = msg {
                    if self.ms().commits_in_flight.contains_key(correlation_id) {
                        self.group_commit_failed(*correlation_id, ErrorCode::NetworkException)?;
                    }
                }
                let _ = correlation_id;
                self.group_coordinator_unknown("the connection to the coordinator failed")
            }
            _ => Ok(()),
        }
    }

    pub(crate) fn group_client_on_message(&mut self, from: NodeId, msg: Message) -> Step {
        let c = self.id;
        if !self.is_member() {
            return Ok(());
        }
        let NodeId::Broker(b) = from else {
            return Ok(());
        };
        match msg {
            Message::FindCoordinatorResponse {
                correlation_id,
                error,
                node_id,
                partition,
            } => {
                if self.ms().find_in_flight != Some(correlation_id) {
                    return Ok(());
                }
                self.k.gate()?;
                let retry = self.k.now + self.me().config.retry_backoff_ms;
                match error {
                    None if node_id >= 0 => {
                        {
                            let now = self.k.now;
                            let x = self.msm();
                            x.find_in_flight = None;
                            x.coordinator = Some(BrokerId(node_id));
                            // A new coordinator gets a full session to answer.
                            x.last_heartbeat_ok_ms = now;
                        }
                        let group = self.ms().group_id.clone();
                        self.k.emit(
                            vec![cnode(c), from],
                            EventKind::CoordinatorFound {
                                consumer: c,
                                group,
                                broker: BrokerId(node_id),
                                partition,
                            },
                        );
                        if let Some((sync, why)) = self.ms().pending_commit.clone() {
                            self.k.gate()?;
                            self.msm().pending_commit = None;
                            self.group_commit(sync, &why)?;
                        }
                        self.group_on_poll_now()
                    }
                    _ => {
                        let x = self.msm();
                        x.find_in_flight = None;
                        x.retry_at_ms = retry;
                        Ok(())
                    }
                }
            }
            Message::JoinGroupResponse {
                correlation_id,
                error,
                generation_id,
                protocol_name,
                leader,
                member_id,
                members,
            } => {
                if self.ms().join_in_flight != Some(correlation_id) {
                    return Ok(());
                }
                self.k.gate()?;
                self.msm().join_in_flight = None;
                match error {
                    Some(ErrorCode::MemberIdRequired) => {
                        {
                            let x = self.msm();
                            x.member_id = member_id;
                            x.rejoin_needed = true;
                            x.phase = MemberPhase::Unjoined;
                        }
                        self.group_join()
                    }
                    Some(ErrorCode::UnknownMemberId) | Some(ErrorCode::IllegalGeneration) => {
                        let x = self.msm();
                        x.member_id = String::new();
                        x.generation = -1;
                        x.rejoin_needed = true;
                        x.phase = MemberPhase::Unjoined;
                        Ok(())
                    }
                    Some(ErrorCode::NotCoordinator) | Some(ErrorCode::CoordinatorNotAvailable) => {
                        self.msm().phase = MemberPhase::Unjoined;
                        self.msm().rejoin_needed = true;
                        self.group_coordinator_unknown("JoinGroup: NOT_COORDINATOR")
                    }
                    Some(e) => {
                        let retry = self.k.now + self.me().config.retry_backoff_ms;
                        let x = self.msm();
                        x.phase = MemberPhase::Unjoined;
                        x.rejoin_needed = true;
                        x.retry_at_ms = retry;
                        let _ = e;
                        Ok(())
                    }
                    None => {
                        let is_leader = leader == member_id;
                        let now = self.k.now;
                        {
                            let x = self.msm();
                            x.member_id = member_id.clone();
                            x.generation = generation_id;
                            x.protocol = protocol_name.clone();
                            x.is_leader = is_leader;
                            x.phase = MemberPhase::Syncing;
                            x.heartbeat_in_flight = None;
                            x.last_heartbeat_ok_ms = now;
                        }
                        let group = self.ms().group_id.clone();
                        self.k.emit(
                            vec![cnode(c), from],
                            EventKind::JoinedGroup {
                                consumer: c,
                                group,
                                generation: generation_id,
                                member_id: member_id.clone(),
                                leader: is_leader,
                                protocol: protocol_name.clone(),
                            },
                        );
                        let assignments = if is_leader && !members.is_empty() {
                            self.group_leader_assign(protocol_name.as_deref(), &members)?
                        } else {
                            Vec::new()
                        };
                        let cid = self.correlation();
                        self.k.gate()?;
                        self.msm().sync_in_flight = Some(cid);
                        let m = self.ms().clone();
                        self.request(
                            b,
                            cid,
                            self.me().config.request_timeout_ms,
                            Message::SyncGroup(SyncGroupRequest {
                                correlation_id: cid,
                                group_id: m.group_id.clone(),
                                generation_id,
                                member_id,
                                group_instance_id: self.me().config.group_instance_id.clone(),
                                assignments,
                            }),
                        )
                    }
                }
            }
            Message::SyncGroupResponse {
                correlation_id,
                error,
                assignment,
            } => {
                if self.ms().sync_in_flight != Some(correlation_id) {
                    return Ok(());
                }
                self.k.gate()?;
                self.msm().sync_in_flight = None;
                match error {
                    None => self.group_on_assignment(assignment),
                    Some(ErrorCode::NotCoordinator) | Some(ErrorCode::CoordinatorNotAvailable) => {
                        self.msm().phase = MemberPhase::Unjoined;
                        self.msm().rejoin_needed = true;
                        self.group_coordinator_unknown("SyncGroup: NOT_COORDINATOR")
                    }
                    Some(e) => {
                        let x = self.msm();
                        x.phase = MemberPhase::Unjoined;
                        x.rejoin_needed = true;
                        if matches!(e, ErrorCode::UnknownMemberId | ErrorCode::IllegalGeneration) {
                            x.member_id = String::new();
                            x.generation = -1;
                        }
                        Ok(())
                    }
                }
            }
            Message::HeartbeatResponse {
                correlation_id,
                error,
            } => {
                if self.ms().heartbeat_in_flight != Some(correlation_id) {
                    return Ok(());
                }
                self.k.gate()?;
                let now = self.k.now;
                self.msm().heartbeat_in_flight = None;
                self.msm().last_heartbeat_ok_ms = now;
                match error {
                    None => Ok(()),
                    Some(ErrorCode::RebalanceInProgress) => {
                        if self.ms().rejoin_needed {
                            return Ok(());
                        }
                        self.msm().rejoin_needed = true;
                        self.k
                            .record(
                                vec![cnode(c)],
                                EventKind::RejoinRequested {
                                    consumer: c,
                                    reason: "the heartbeat answered REBALANCE_IN_PROGRESS".into(),
                                },
                            )
                            .map(|_| ())
                    }
                    Some(ErrorCode::UnknownMemberId) | Some(ErrorCode::IllegalGeneration) => {
                        // The group moved on without us: the partitions are lost.
                        let all = self.me().assignment.clone();
                        self.group_revoke(&all, true)?;
                        self.k.gate()?;
                        let static_member = self.me().config.group_instance_id.is_some();
                        let x = self.msm();
                        if !static_member {
                            x.member_id = String::new();
                        }
                        x.generation = -1;
                        x.phase = MemberPhase::Unjoined;
                        x.rejoin_needed = true;
                        Ok(())
                    }
                    Some(_) => {
                        self.group_coordinator_unknown("the heartbeat answered NOT_COORDINATOR")
                    }
                }
            }
            Message::LeaveGroupResponse { .. } => Ok(()),
            Message::OffsetFetchResponse {
                correlation_id,
                error,
                offsets,
                unstable,
            } => {
                let Some((cid, asked)) = self.ms().offset_fetch_in_flight.clone() else {
                    return Ok(());
                };
                if cid != correlation_id {
                    return Ok(());
                }
                self.k.gate()?;
                self.msm().offset_fetch_in_flight = None;
                if error.is_some() {
                    return self.group_coordinator_unknown("OffsetFetch: NOT_COORDINATOR");
                }
                // UNSTABLE_OFFSET_COMMIT (KIP-447): a transaction wrote an
                // offset it has not decided yet; the next poll asks again
                // (`UnstableOffsetCommitException` is retriable).
                self.msm()
                    .fetched
                    .extend(asked.into_iter().filter(|tp| !unstable.contains(tp)));
                let group = self.ms().group_id.clone();
                for (tp, off) in offsets {
                    if off < 0 || !self.me().assignment.contains(&tp) {
                        continue;
                    }
                    self.k.gate()?;
                    self.me_mut().positions.insert(tp.clone(), off);
                    self.k.emit(
                        vec![cnode(c)],
                        EventKind::ConsumerPositionReset {
                            consumer: c,
                            tp,
                            position: off,
                            reason: format!("the committed offset of group {group}"),
                        },
                    );
                }
                Ok(())
            }
            Message::OffsetCommitResponse {
                correlation_id,
                partitions,
            } => {
                let Some((_, sync)) = self.ms().commits_in_flight.get(&correlation_id).cloned()
                else {
                    return Ok(());
                };
                if let Some(e) = partitions.iter().find_map(|(_, e)| *e) {
                    self.group_commit_failed(correlation_id, e)?;
                    return match e {
                        ErrorCode::NotCoordinator | ErrorCode::CoordinatorNotAvailable => {
                            self.group_coordinator_unknown("OffsetCommit: NOT_COORDINATOR")
                        }
                        ErrorCode::RebalanceInProgress => {
                            if self.ms().rejoin_needed {
                                return Ok(());
                            }
                            self.k.gate()?;
                            self.msm().rejoin_needed = true;
                            Ok(())
                        }
                        ErrorCode::IllegalGeneration | ErrorCode::UnknownMemberId => {
                            // resetGenerationOnResponseError: rejoin as a new member.
                            let static_member = self.me().config.group_instance_id.is_some();
                            self.k.gate()?;
                            let x = self.msm();
                            x.generation = -1;
                            if !static_member {
                                x.member_id = String::new();
                            }
                            x.phase = MemberPhase::Unjoined;
                            x.rejoin_needed = true;
                            Ok(())
                        }
                        _ => Ok(()),
                    };
                }
                self.k.gate()?;
                let x = self.msm();
                x.commits_in_flight.remove(&correlation_id);
                if sync {
                    x.sync_commit_pending = false;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Right after finding the coordinator, carry on without waiting for the next poll.
    fn group_on_poll_now(&mut self) -> Step {
        if self.ms().rejoin_needed
            && self.ms().join_in_flight.is_none()
            && !self.me().metadata.partitions.is_empty()
        {
            return self.group_join();
        }
        Ok(())
    }

    /// Whether a partition may take its position from `auto.offset.reset`
    /// (a group member first asks for its committed offset).
    pub(crate) fn group_position_ready(&self, tp: &TopicPartition) -> bool {
        match &self.me().group {
            None => true,
            Some(m) => m.fetched.contains(tp),
        }
    }

    pub(crate) fn group_after_records_returned(&mut self, _tp: &TopicPartition) -> Step {
        Ok(())
    }
}
