//! A broker in KRaft mode (Kafka 4.1): its Raft client observes the
//! `__cluster_metadata` log, and its `BrokerLifecycleManager`
//! (`core/src/main/scala/kafka/server/BrokerLifecycleManager.scala`, Kafka
//! 4.1.0) registers with the active controller and sends heartbeats.
//!
//! * It registers once the Raft client knows the quorum leader (the
//!   active controller), naming its incarnation; the answer is its broker
//!   epoch, and it is fenced.
//! * STARTING: it heartbeats every 10 ms until the controller says it has
//!   replayed the metadata log up to its own RegisterBrokerRecord
//!   (`isCaughtUp`), then RECOVERY; its logs recovered, it stops asking to
//!   stay fenced (`wantFence` false) and the controller unfences it:
//!   RUNNING (lines 500-557). It then heartbeats every
//!   `broker.heartbeat.interval.ms`.
//! * A failed request is retried one interval later (lines 565-569). Its
//!   timeout is `broker.heartbeat.interval.ms` too: the "heartbeat"
//!   channel is built with that retry timeout (`BrokerServer.scala`, lines
//!   408-416), and a request's timeout is the smaller of it and
//!   `controller.socket.timeout.ms` (`NodeToControllerChannelManager.scala`,
//!   lines 154 and 221).
//!
//! What it replays it acts on in `metadata_publisher.rs`.

use super::BrokerCx;
use crate::event::{BrokerLifecycle, EventKind};
use crate::ids::NodeId;
use crate::kernel::{Step, Timer};
use crate::kraft::raft::{QuorumLedger, RaftClient, RaftCx, OBSERVER_CORRELATION_BASE};
use crate::kraft::ClusterImage;
use crate::msg::Message;

/// While STARTING, the next heartbeat goes 10 ms after an answer.
const STARTING_HEARTBEAT_MS: u64 = 10;
/// How soon it looks again for a controller it does not know yet.
const NO_CONTROLLER_RETRY_MS: u64 = 50;

/// A broker's KRaft side.
#[derive(Clone, Debug, PartialEq)]
pub struct BrokerKraft {
    /// Its Raft client, an observer of the quorum.
    pub raft: RaftClient,
    /// Its lifecycle state (None until it registered).
    pub state: Option<BrokerLifecycle>,
    /// Its broker epoch (-1 before it registered).
    pub broker_epoch: i64,
    /// Its logs are recovered: it no longer asks to stay fenced.
    pub ready_to_unfence: bool,
    /// The registration or heartbeat in flight (its correlation id).
    pub in_flight: Option<i32>,
    /// The lifecycle timer's current setting.
    pub generation: u64,
    /// The committed metadata it replayed.
    pub image: ClusterImage,
    /// Records `0..applied` are replayed.
    pub applied: i64,
    /// The AllocateProducerIds in flight (its correlation id).
    pub pid_request: Option<i32>,
    /// Its listeners are open (since it was first RUNNING in this life).
    pub listening: bool,
    /// CreateTopics in flight: correlation id → topic
    /// (`AutoTopicCreationManager.inflightTopics`).
    pub creating: crate::collections::SortedMap<i32, String>,
    /// The broker epoch its clean-shutdown files hold (-1: its last stop
    /// was not clean), sent as `previousBrokerEpoch` when it registers.
    pub clean_shutdown_epoch: i64,
    /// It had an answer while PENDING_CONTROLLED_SHUTDOWN.
    pub got_shutdown_response: bool,
}

impl BrokerKraft {
    /// The KRaft side of broker `id` in a quorum of `voters`.
    pub fn new(id: i32, voters: Vec<i32>) -> BrokerKraft {
        BrokerKraft {
            raft: RaftClient::new(id, voters, OBSERVER_CORRELATION_BASE),
            state: None,
            broker_epoch: -1,
            ready_to_unfence: false,
            in_flight: None,
            generation: 0,
            image: ClusterImage::default(),
            applied: 0,
            pid_request: None,
            listening: false,
            creating: Default::default(),
            clean_shutdown_epoch: -1,
            got_shutdown_response: false,
        }
    }

    /// The process died: the metadata log stays on disk, the rest goes.
    pub fn crash(&mut self) {
        self.raft.crash();
        self.state = None;
        self.broker_epoch = -1;
        self.ready_to_unfence = false;
        self.in_flight = None;
        self.generation += 1;
        self.image = ClusterImage::default();
        self.applied = 0;
        self.pid_request = None;
        self.listening = false;
        self.creating.clear();
        self.clean_shutdown_epoch = -1;
        self.got_shutdown_response = false;
    }
}

impl BrokerCx<'_> {
    fn kraft(&self) -> &BrokerKraft {
        self.me().kraft.as_ref().expect("a KRaft broker")
    }

    fn kraft_mut(&mut self) -> &mut BrokerKraft {
        self.me_mut().kraft.as_mut().expect("a KRaft broker")
    }

    /// Runs `f` on the broker's Raft client, then replays what committed.
    fn observer<T>(&mut self, f: impl FnOnce(&mut RaftCx<'_>) -> Step<T>) -> Step<T> {
        let node = NodeId::Broker(self.id);
        let out = {
            let me = std::sync::Arc::make_mut(self.me);
            let kr = me.kraft.as_mut().expect("a KRaft broker");
            let ledger: &mut QuorumLedger = self.audit.quorum_ledger();
            let mut cx = RaftCx {
                k: self.k,
                node,
                r: &mut kr.raft,
                ledger,
            };
            f(&mut cx)
        };
        let out = out?;
        let kr = self.kraft_mut();
        let end = kr.raft.committed_end();
        let before = kr.applied;
        let changed = kr.image.replay_up_to(&kr.raft.log, &mut kr.applied, end);
        let any = super::metadata_publisher::meaningful(
            &kr.raft.log[before as usize..kr.applied as usize],
        );
        self.kraft_apply(changed, any)?;
        Ok(out)
    }

    /// A KRaft broker starts: its Raft client looks for the quorum leader,
    /// and its lifecycle manager will register.
    pub(crate) fn kraft_start(&mut self) -> Step {
        self.observer(|r| r.start())?;
        self.lifecycle_schedule(0)
    }

    fn lifecycle_schedule(&mut self, after: u64) -> Step {
        self.k.gate()?;
        let kr = self.kraft_mut();
        kr.generation += 1;
        let generation = kr.generation;
        let at = self.k.now + after;
        self.k.set_timer(
            NodeId::Broker(self.id),
            at,
            Timer::BrokerLifecycleTick { generation },
        )
    }

    /// A KRaft timer of this broker.
    pub(crate) fn kraft_timer(&mut self, timer: Timer) -> Step {
        match timer {
            Timer::QuorumTimer { generation } => self.observer(|r| r.on_state_timer(generation)),
            Timer::QuorumFetchRetry => self.observer(|r| r.on_fetch_retry()),
            Timer::QuorumPeerClosed { peer } => {
                self.observer(|r| r.on_peer_closed(peer))?;
                let to_peer = self.kraft().raft.leader() == Some(peer);
                if self.kraft().in_flight.is_some() && to_peer {
                    if let Some(c) = self.kraft().in_flight {
                        self.k.disarm_request_timeout(NodeId::Broker(self.id), c);
                    }
                    return self.lifecycle_failed();
                }
                Ok(())
            }
            Timer::RequestTimeout { correlation_id }
                if correlation_id >= OBSERVER_CORRELATION_BASE =>
            {
                self.observer(|r| r.on_request_failed(correlation_id, false))
            }
            Timer::RequestTimeout { correlation_id } => {
                if self.kraft().in_flight == Some(correlation_id) {
                    self.lifecycle_failed()
                } else {
                    self.kraft_create_done(correlation_id)?;
                    self.kraft_producer_ids_failed(correlation_id)
                }
            }
            Timer::BrokerLifecycleTick { generation } => {
                if generation == self.kraft().generation {
                    self.lifecycle_send()
                } else {
                    Ok(())
                }
            }
            _ => Ok(()),
        }
    }

    /// Sends the registration or the next heartbeat to the active controller.
    fn lifecycle_send(&mut self) -> Step {
        if self.kraft().in_flight.is_some() {
            return Ok(());
        }
        let Some(controller) = self.kraft().raft.leader() else {
            return self.lifecycle_schedule(NO_CONTROLLER_RETRY_MS);
        };
        let b = self.id;
        self.k.gate()?;
        // The broker's requests share one counter (bumped, then used, as
        // the fetcher does: an id shared with a fetch would let the fetch's
        // answer disarm this request's timeout).
        self.me_mut().next_correlation += 1;
        let correlation_id = self.me().next_correlation;
        self.kraft_mut().in_flight = Some(correlation_id);
        let kr = self.kraft();
        let msg = match kr.state {
            None => Message::BrokerRegistration {
                correlation_id,
                broker: b.0,
                incarnation: self.me().incarnation,
                previous_broker_epoch: kr.clean_shutdown_epoch,
                rack: self.k.sc.cluster.broker_rack.get(&b.0).cloned(),
            },
            Some(_) => Message::BrokerHeartbeat {
                correlation_id,
                broker: b.0,
                broker_epoch: kr.broker_epoch,
                current_metadata_offset: kr.applied - 1,
                want_fence: !kr.ready_to_unfence,
                want_shut_down: kr.state == Some(BrokerLifecycle::PendingControlledShutdown),
            },
        };
        self.k
            .send(NodeId::Broker(b), NodeId::Controller(controller), msg)?;
        // min(controller.socket.timeout.ms = 30 s, broker.heartbeat.interval.ms).
        let at = self.k.now
            + self
                .k
                .sc
                .cluster
                .config
                .broker_heartbeat_interval_ms
                .min(30_000);
        self.k
            .arm_request_timeout(NodeId::Broker(b), at, correlation_id)
    }

    /// The request failed: the next goes one interval later.
    fn lifecycle_failed(&mut self) -> Step {
        self.k.gate()?;
        self.kraft_mut().in_flight = None;
        let interval = self.k.sc.cluster.config.broker_heartbeat_interval_ms;
        self.lifecycle_schedule(interval)
    }

    fn lifecycle_state(&mut self, state: BrokerLifecycle) -> Step {
        self.k.gate()?;
        let kr = self.kraft_mut();
        kr.state = Some(state);
        let broker_epoch = kr.broker_epoch;
        self.k.emit(
            vec![NodeId::Broker(self.id)],
            EventKind::BrokerLifecycleChanged {
                broker: self.id,
                state,
                broker_epoch,
            },
        );
        Ok(())
    }

    /// Takes the answer to the request in flight: false when it is not that
    /// one, or (after an error) the next request is scheduled instead.
    fn lifecycle_answer(
        &mut self,
        correlation_id: i32,
        error: Option<crate::msg::ErrorCode>,
    ) -> Step<bool> {
        if self.kraft().in_flight != Some(correlation_id) {
            return Ok(false);
        }
        self.k
            .disarm_request_timeout(NodeId::Broker(self.id), correlation_id);
        // Any error (NOT_CONTROLLER, DUPLICATE_BROKER_REGISTRATION,
        // STALE_BROKER_EPOCH, …): the next request goes one interval later.
        if error.is_some() {
            self.lifecycle_failed()?;
            return Ok(false);
        }
        self.k.gate()?;
        self.kraft_mut().in_flight = None;
        Ok(true)
    }

    /// `BrokerServer.shutdown` with `controlled.shutdown.enable`: a RUNNING
    /// broker enters PENDING_CONTROLLED_SHUTDOWN and heartbeats at once
    /// with `wantShutDown` (BLM:266-280); one not yet running stops at once.
    pub(crate) fn kraft_begin_controlled_shutdown(&mut self) -> Step {
        let running = self.kraft().state == Some(BrokerLifecycle::Running);
        if !self.k.sc.cluster.config.controlled_shutdown_enable || !running {
            return self.broker_kill(true);
        }
        self.lifecycle_state(BrokerLifecycle::PendingControlledShutdown)?;
        self.lifecycle_schedule(0)
    }

    /// A KRaft message for this broker.
    pub(crate) fn kraft_on_message(&mut self, from: NodeId, msg: Message) -> Step {
        match msg {
            Message::RaftFetchResponse { .. } => self.observer(|r| r.on_message(from, msg)),
            Message::AllocateProducerIdsResponse {
                correlation_id,
                error,
                first,
                length,
            } => self.kraft_on_producer_ids(correlation_id, error, first, length),
            Message::CreateTopicsResponse { correlation_id, .. } => {
                self.kraft_create_done(correlation_id)
            }
            Message::BrokerRegistrationResponse {
                correlation_id,
                error,
                broker_epoch,
            } => {
                if !self.lifecycle_answer(correlation_id, error)? {
                    return Ok(());
                }
                self.kraft_mut().broker_epoch = broker_epoch;
                self.lifecycle_state(BrokerLifecycle::Starting)?;
                self.lifecycle_schedule(0)
            }
            Message::BrokerHeartbeatResponse {
                correlation_id,
                error,
                is_caught_up,
                is_fenced,
                should_shut_down,
            } => {
                if !self.lifecycle_answer(correlation_id, error)? {
                    return Ok(());
                }
                let interval = self.k.sc.cluster.config.broker_heartbeat_interval_ms;
                match self.kraft().state {
                    // BLM:529-546: told to go, it stops (cleanly); else the
                    // next heartbeat after 50 ms the first time, then at the
                    // usual interval.
                    Some(BrokerLifecycle::PendingControlledShutdown) if should_shut_down => {
                        self.lifecycle_state(BrokerLifecycle::ShuttingDown)?;
                        self.broker_kill(true)
                    }
                    Some(BrokerLifecycle::PendingControlledShutdown) => {
                        let first = !self.kraft().got_shutdown_response;
                        self.kraft_mut().got_shutdown_response = true;
                        self.lifecycle_schedule(if first { 50 } else { interval })
                    }
                    Some(BrokerLifecycle::Starting) if is_caught_up => {
                        // Caught up: RECOVERY, and (its logs recovered at
                        // once here) ready to be unfenced.
                        self.lifecycle_state(BrokerLifecycle::Recovery)?;
                        self.kraft_publish_all()?;
                        self.kraft_mut().ready_to_unfence = true;
                        self.lifecycle_schedule(0)
                    }
                    Some(BrokerLifecycle::Starting) => {
                        self.lifecycle_schedule(STARTING_HEARTBEAT_MS)
                    }
                    Some(BrokerLifecycle::Recovery) if !is_fenced => {
                        self.lifecycle_state(BrokerLifecycle::Running)?;
                        self.kraft_mut().listening = true;
                        self.lifecycle_schedule(interval)
                    }
                    _ => self.lifecycle_schedule(interval),
                }
            }
            _ => Ok(()),
        }
    }

    /// A KRaft request of this broker could not reach a dead controller.
    pub(crate) fn kraft_disconnected(&mut self, msg: &Message) -> Step {
        match msg {
            Message::RaftFetch { correlation_id, .. } => {
                let c = *correlation_id;
                self.observer(|r| r.on_request_failed(c, true))
            }
            Message::CreateTopics { correlation_id, .. } => {
                self.k
                    .disarm_request_timeout(NodeId::Broker(self.id), *correlation_id);
                self.kraft_create_done(*correlation_id)
            }
            Message::AllocateProducerIds { correlation_id, .. } => {
                self.k
                    .disarm_request_timeout(NodeId::Broker(self.id), *correlation_id);
                self.kraft_producer_ids_failed(*correlation_id)
            }
            Message::BrokerRegistration { correlation_id, .. }
            | Message::BrokerHeartbeat { correlation_id, .. } => {
                if self.kraft().in_flight == Some(*correlation_id) {
                    self.k
                        .disarm_request_timeout(NodeId::Broker(self.id), *correlation_id);
                    self.lifecycle_failed()
                } else {
                    Ok(())
                }
            }
            _ => Ok(()),
        }
    }
}
