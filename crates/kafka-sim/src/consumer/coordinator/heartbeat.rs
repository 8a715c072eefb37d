//! The member's heartbeat thread and leaving (`AbstractCoordinator.
//! HeartbeatThread` and `maybeLeaveGroup`, Kafka 3.9): a `Heartbeat` every
//! `heartbeat.interval.ms`, leaving the group when the application has not
//! called `poll()` within `max.poll.interval.ms`, and `LeaveGroup` on
//! close.

use super::*;

impl ConsumerCx<'_> {
    /// The consumer's timers: the heartbeat thread.
    pub(crate) fn group_timer(&mut self, t: Timer) -> Step {
        let c = self.id;
        if t != Timer::ConsumerHeartbeat || !self.is_member() {
            return Ok(());
        }
        let cfg = self.me().config.clone();
        let m = self.ms().clone();
        let next = self.k.now + cfg.heartbeat_interval_ms;
        // The heartbeat thread notices a stalled poll loop (max.poll.interval.ms).
        if m.phase == MemberPhase::Stable
            && self.k.now.saturating_sub(m.last_poll_ms) > cfg.max_poll_interval_ms
        {
            self.group_leave(&format!(
                "consumer poll timeout has expired: no poll() for {} ms > max.poll.interval.ms={}",
                self.k.now - m.last_poll_ms,
                cfg.max_poll_interval_ms
            ))?;
            return self.k.set_timer(cnode(c), next, Timer::ConsumerHeartbeat);
        }
        // The heartbeat thread's own session check (AbstractCoordinator):
        // no heartbeat answer for session.timeout.ms → find the coordinator again.
        if m.coordinator.is_some()
            && matches!(m.phase, MemberPhase::Stable | MemberPhase::Syncing)
            && self.k.now.saturating_sub(m.last_heartbeat_ok_ms) > cfg.session_timeout_ms
        {
            self.group_coordinator_unknown(
                "session timed out without receiving a heartbeat response",
            )?;
            return self.k.set_timer(cnode(c), next, Timer::ConsumerHeartbeat);
        }
        if let (Some(coord), MemberPhase::Stable | MemberPhase::Syncing, None) =
            (m.coordinator, m.phase, m.heartbeat_in_flight)
        {
            if m.generation >= 0 {
                let cid = self.correlation();
                self.k.gate()?;
                self.msm().heartbeat_in_flight = Some(cid);
                self.request(
                    coord,
                    cid,
                    cfg.request_timeout_ms,
                    Message::Heartbeat {
                        correlation_id: cid,
                        group_id: m.group_id.clone(),
                        generation_id: m.generation,
                        member_id: m.member_id.clone(),
                        group_instance_id: cfg.group_instance_id.clone(),
                    },
                )?;
            }
        } else if m.coordinator.is_none() {
            self.group_find_coordinator()?;
        }
        self.k.set_timer(cnode(c), next, Timer::ConsumerHeartbeat)
    }

    /// `maybeLeaveGroup`: a dynamic member sends LeaveGroup; a static one
    /// just stops (its session keeps its place until it times out).
    pub(crate) fn group_leave(&mut self, reason: &str) -> Step {
        let c = self.id;
        let m = self.ms().clone();
        let static_member = self.me().config.group_instance_id.is_some();
        if !m.member_id.is_empty() && m.generation >= 0 && !static_member {
            if let Some(coord) = m.coordinator {
                let cid = self.correlation();
                self.k.send(
                    cnode(c),
                    NodeId::Broker(coord),
                    Message::LeaveGroup {
                        correlation_id: cid,
                        group_id: m.group_id.clone(),
                        member_id: m.member_id.clone(),
                    },
                )?;
            }
        }
        let all = self.me().assignment.clone();
        self.group_revoke(&all, false)?;
        self.k.gate()?;
        {
            let x = self.msm();
            if !static_member {
                x.member_id = String::new();
            }
            x.generation = -1;
            x.phase = MemberPhase::Unjoined;
            x.rejoin_needed = true;
            x.join_in_flight = None;
            x.sync_in_flight = None;
        }
        self.k.emit(
            vec![cnode(c)],
            EventKind::LeftGroup {
                consumer: c,
                group: m.group_id.clone(),
                member_id: m.member_id.clone(),
                sent_leave_group: !static_member && !m.member_id.is_empty(),
                reason: reason.to_string(),
            },
        );
        Ok(())
    }

    /// `consumer.close()`: commit (auto-commit on), then leave.
    pub(crate) fn group_close(&mut self) -> Step {
        if !self.is_member() {
            return Ok(());
        }
        if self.me().config.enable_auto_commit && self.ms().phase == MemberPhase::Stable {
            self.group_commit(true, "close() commits before leaving")?;
        }
        self.group_leave("close()")
    }
}
