//! The member side of the consumer group protocol of KIP-848
//! (`group.protocol=consumer`), as the Kafka 4.1.0 client runs it
//! (`AbstractMembershipManager`, `ConsumerMembershipManager`,
//! `ConsumerHeartbeatRequestManager` in `clients/…/consumer/internals`):
//! a sans-IO state machine that says which `ConsumerGroupHeartbeat` to send
//! and what to do with the answer. The coordinator's side is
//! `group/consumer_group.rs`.
//!
//! - It joins with member epoch 0 and a *full* request (subscription,
//!   `rebalanceTimeoutMs`, no owned partitions); the member id is its own
//!   (KIP-1082: the client makes it and keeps it for its lifetime).
//! - A heartbeat goes every `heartbeat_interval_ms` the coordinator
//!   returned, at most one in flight; the owned partitions are sent only
//!   when they changed since last sent, and the whole request again after
//!   an error or a lost answer (`HeartbeatState.reset`).
//! - An assignment in an answer is reconciled: the partitions it no longer
//!   has are revoked first (committing their offsets and calling
//!   `onPartitionsRevoked`, which takes `revoke_ms` here), then the new
//!   ones are added, and a heartbeat acknowledges the result at once
//!   (ACKNOWLEDGING) instead of waiting for the interval.
//! - FENCED_MEMBER_EPOCH and UNKNOWN_MEMBER_ID: the partitions are lost
//!   (`onPartitionsLost`, no commit) and it rejoins at epoch 0.
//!   UNRELEASED_INSTANCE_ID and the other fatal errors stop it.
//! - Leaving: it revokes everything, then sends epoch -1 (-2 for a static
//!   member, whose partitions the coordinator keeps for its instance id).

use crate::group::consumer_group::{
    HeartbeatRequest, HeartbeatResponse, Partitions, Refusal, LEAVE_GROUP_MEMBER_EPOCH,
    LEAVE_GROUP_STATIC_MEMBER_EPOCH,
};
use crate::msg::ErrorCode;

/// `MemberState` of the client (`AbstractMembershipManager`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientState {
    /// Not in the group.
    Unsubscribed,
    /// Sending the join heartbeat (epoch 0).
    Joining,
    /// Revoking or adding partitions towards the last assignment.
    Reconciling,
    /// Must tell the coordinator what it owns now.
    Acknowledging,
    /// Owns its assignment.
    Stable,
    /// Lost its partitions; rejoins.
    Fenced,
    /// Revoking everything before the leave heartbeat.
    PrepareLeaving,
    /// Sending the leave heartbeat.
    Leaving,
    /// A fatal error: it stopped.
    Fatal,
}

/// One consumer's membership.
#[derive(Clone, Debug)]
pub struct MembershipClient {
    /// Its member id.
    pub member_id: String,
    /// `group.instance.id`.
    pub instance_id: Option<String>,
    /// The topics it subscribes to.
    pub subscription: Vec<String>,
    /// `max.poll.interval.ms`, sent as `rebalanceTimeoutMs`.
    pub rebalance_timeout_ms: i32,
    /// `group.remote.assignor`.
    pub server_assignor: Option<String>,
    /// How long revoking takes (commit and `onPartitionsRevoked`).
    pub revoke_ms: u64,
    /// The state.
    pub state: ClientState,
    /// Its member epoch.
    pub epoch: i32,
    /// The partitions it owns (consumes from).
    pub owned: Partitions,
    /// The last assignment the coordinator sent.
    target: Option<Partitions>,
    /// What it last told the coordinator it owns.
    sent_owned: Option<Partitions>,
    /// The next heartbeat is a full one.
    full: bool,
    /// When revoking ends.
    revoking_until: Option<u64>,
    /// When the next heartbeat is due.
    next_heartbeat: u64,
    /// The interval the coordinator asked for.
    interval_ms: u64,
    /// A heartbeat is in flight.
    pub in_flight: bool,
    /// The last fatal error.
    pub fatal: Option<Refusal>,
}

impl MembershipClient {
    /// A consumer that subscribes and joins.
    pub fn new(member_id: &str, subscription: Vec<String>) -> Self {
        MembershipClient {
            member_id: member_id.to_string(),
            instance_id: None,
            subscription,
            rebalance_timeout_ms: 300_000,
            server_assignor: None,
            revoke_ms: 0,
            state: ClientState::Joining,
            epoch: 0,
            owned: Partitions::new(),
            target: None,
            sent_owned: None,
            full: true,
            revoking_until: None,
            next_heartbeat: 0,
            interval_ms: 0,
            in_flight: false,
            fatal: None,
        }
    }

    /// The application closes the consumer: revoke everything, then leave.
    pub fn leave(&mut self) {
        if matches!(self.state, ClientState::Fatal | ClientState::Unsubscribed) {
            return;
        }
        self.state = ClientState::PrepareLeaving;
        self.target = Some(Partitions::new());
    }

    /// Advances time: a revocation that ended applies the assignment.
    pub fn poll(&mut self, now: u64) {
        if let Some(until) = self.revoking_until {
            if now >= until {
                self.revoking_until = None;
                if let Some(t) = self.target.clone() {
                    self.owned = t;
                }
                self.state = match self.state {
                    ClientState::PrepareLeaving => ClientState::Leaving,
                    _ => ClientState::Acknowledging,
                };
            }
        }
    }

    /// The heartbeat to send at `now`, if one is due.
    pub fn next_request(&mut self, now: u64) -> Option<HeartbeatRequest> {
        self.poll(now);
        if self.in_flight || self.revoking_until.is_some() {
            return None;
        }
        let due = match self.state {
            ClientState::Joining | ClientState::Acknowledging | ClientState::Leaving => true,
            ClientState::Stable | ClientState::Reconciling => now >= self.next_heartbeat,
            ClientState::PrepareLeaving => {
                self.start_reconcile(now);
                return None;
            }
            _ => false,
        };
        if !due {
            return None;
        }
        let mut r = HeartbeatRequest {
            member_id: self.member_id.clone(),
            member_epoch: self.epoch,
            instance_id: self.instance_id.clone(),
            rack_id: None,
            rebalance_timeout_ms: -1,
            subscribed_topic_names: None,
            server_assignor: None,
            owned: None,
        };
        if self.state == ClientState::Leaving {
            r.member_epoch = if self.instance_id.is_some() {
                LEAVE_GROUP_STATIC_MEMBER_EPOCH
            } else {
                LEAVE_GROUP_MEMBER_EPOCH
            };
        } else if self.full || self.state == ClientState::Joining {
            r.rebalance_timeout_ms = self.rebalance_timeout_ms;
            r.subscribed_topic_names = Some(self.subscription.clone());
            r.server_assignor.clone_from(&self.server_assignor);
            r.owned = Some(self.owned.clone());
        } else if self.sent_owned.as_ref() != Some(&self.owned) {
            r.owned = Some(self.owned.clone());
        }
        if r.owned.is_some() {
            self.sent_owned = r.owned.clone();
        }
        if self.state == ClientState::Acknowledging {
            self.state = ClientState::Stable;
        }
        self.in_flight = true;
        self.next_heartbeat = now + self.interval_ms;
        Some(r)
    }

    /// The heartbeat in flight got no answer (lost, or the coordinator
    /// moved): the next one is full.
    pub fn on_lost(&mut self, now: u64) {
        self.in_flight = false;
        self.full = true;
        self.sent_owned = None;
        if self.state == ClientState::Leaving {
            // The leave is best effort: the session timeout finishes it.
            self.state = ClientState::Unsubscribed;
            return;
        }
        self.next_heartbeat = now;
    }

    /// The answer to the heartbeat in flight.
    pub fn on_response(&mut self, resp: Result<HeartbeatResponse, Refusal>, now: u64) {
        self.in_flight = false;
        match resp {
            Ok(r) => {
                self.full = false;
                if self.state == ClientState::Leaving {
                    self.state = ClientState::Unsubscribed;
                    self.epoch = r.member_epoch;
                    return;
                }
                self.epoch = r.member_epoch;
                self.interval_ms = r.heartbeat_interval_ms;
                self.next_heartbeat = now + self.interval_ms;
                if let Some(a) = r.assignment {
                    if self.state != ClientState::PrepareLeaving {
                        self.target = Some(a);
                        self.start_reconcile(now);
                    }
                } else if self.state == ClientState::Joining {
                    self.state = ClientState::Stable;
                }
            }
            Err((code, msg)) => {
                self.full = true;
                self.sent_owned = None;
                match code {
                    ErrorCode::FencedMemberEpoch | ErrorCode::UnknownMemberId => {
                        // transitionToFenced: onPartitionsLost, rejoin.
                        self.owned = Partitions::new();
                        self.target = None;
                        self.revoking_until = None;
                        self.epoch = 0;
                        self.state = if self.state == ClientState::Leaving
                            || self.state == ClientState::PrepareLeaving
                        {
                            ClientState::Unsubscribed
                        } else {
                            ClientState::Joining
                        };
                    }
                    ErrorCode::CoordinatorNotAvailable
                    | ErrorCode::NotCoordinator
                    | ErrorCode::CoordinatorLoadInProgress => {
                        self.next_heartbeat = now;
                    }
                    _ => {
                        self.state = ClientState::Fatal;
                        self.owned = Partitions::new();
                        self.fatal = Some((code, msg));
                    }
                }
            }
        }
    }

    /// Reconciles towards the last assignment: revoke first (taking
    /// `revoke_ms`), then add.
    fn start_reconcile(&mut self, now: u64) {
        let Some(target) = self.target.clone() else {
            return;
        };
        let revokes = self.owned.iter().any(|(t, ps)| {
            ps.iter()
                .any(|p| !target.get(t).is_some_and(|x| x.contains(p)))
        });
        let leaving = self.state == ClientState::PrepareLeaving;
        if revokes && self.revoke_ms > 0 {
            self.revoking_until = Some(now + self.revoke_ms);
            if !leaving {
                self.state = ClientState::Reconciling;
            }
            return;
        }
        let changed = self.owned != target;
        self.owned = target;
        self.state = if leaving {
            ClientState::Leaving
        } else if changed || self.state == ClientState::Joining {
            ClientState::Acknowledging
        } else {
            ClientState::Stable
        };
    }

    /// Still in the group (or trying to be).
    pub fn is_active(&self) -> bool {
        !matches!(self.state, ClientState::Fatal | ClientState::Unsubscribed)
    }
}
