//! The Raft client of the `__cluster_metadata` quorum, as Kafka 4.1.0 runs
//! it (`raft/src/main/java/org/apache/kafka/raft/`): `KafkaRaftClient`
//! (the handlers), `QuorumState` (the transitions and what is durable),
//! `LeaderState` (the high watermark, check-quorum), `EpochElection` (the
//! counting). Read at commit 13f70256db3c of the `confluentinc/kafka`
//! mirror (Apache Kafka 4.1.0); lines cited as `KRC:n` are
//! `KafkaRaftClient.java`, `QS:n` `QuorumState.java`, `LS:n`
//! `LeaderState.java`, and `docs/research/kraft-4.1.md` gathers them.
//!
//! * **States** (QS:42-84): Unattached, Prospective (a pre-vote in the
//!   current epoch, KIP-996), Candidate (epoch + 1, voted for itself),
//!   Leader, Follower, Resigned. Only Unattached, Follower, Candidate and
//!   Leader, and a granted vote, are written to the `quorum-state` file
//!   (QS:731-735); a restarted node reads it back (QS:143-261): a former
//!   leader comes back Resigned, a candidate Candidate, a follower Follower.
//! * **Timers**: the election timer is random in [T, 2T) with T =
//!   `controller.quorum.election.timeout.ms` (QS:752-756); a follower's
//!   fetch timer is `controller.quorum.fetch.timeout.ms`, not random
//!   (QS:596), and only a successful Fetch response resets it (KRC:1811).
//!   Its expiry starts a *pre-vote*, which never changes the epoch (trap 2).
//! * **Vote** (KRC:828-944): a higher epoch in a request moves the receiver
//!   to Unattached first, even for a pre-vote; the log must be at least as
//!   up to date, by (last epoch, end offset); a follower that has fetched
//!   from its leader rejects pre-votes (`FollowerState.java:227-242`), so a
//!   node that was cut off cannot disturb a working quorum.
//! * **Fetch** (KRC:1480-1649): the leader checks the follower's (offset,
//!   last epoch) against its own log; a mismatch answers `DivergingEpoch`
//!   and the follower truncates (KRC:1737-1759). The leader's high
//!   watermark is the largest end offset a majority of voters holds, and
//!   only once it passes the start of the leader's own epoch (LS:704-763):
//!   a new leader commits nothing before its LeaderChange record does.
//!   With nothing to send the leader holds a fetch up to 500 ms (KRC:173).
//! * **Check-quorum** (LS:200-256): a leader not fetched from by a majority
//!   for 1.5 × the fetch timeout resigns.
//!
//! Simplifications, all in docs/fidelity.md: the log is a list of entries
//! (no record batches on disk, snapshots or FetchSnapshot yet); the voter
//! set is static (`controller.quorum.voters`, kraft.version 0); a lost
//! connection is retried after `reconnect.backoff.ms` doubling from 50 ms
//! to 1 s (NetworkClient's defaults), a timed-out request after
//! `controller.quorum.retry.backoff.ms`; observers find the leader by
//! asking the voters in turn.

use super::codec::build_metadata_batch;
use super::records::{MetadataEntry, MetadataRecord};
use crate::collections::{SortedMap, SortedSet};
use crate::config::LogConfig;
use crate::event::{EventKind, Guarantee, QuorumReason, QuorumRole};
use crate::ids::TopicPartition;
use crate::ids::{Millis, NodeId};
use crate::kernel::{Kernel, Step, Timer};
use crate::msg::{ErrorCode, Message};
use crate::storage::log::Log;
use crate::storage::paged::MemStorage;

/// How long the leader holds a Fetch with nothing to return (KRC:173).
pub const FETCH_MAX_WAIT_MS: u64 = 500;
/// The most records one Fetch response carries (Kafka: 8 MiB of batches).
pub const MAX_FETCH_RECORDS: usize = 512;
/// A Raft client hosted by a broker numbers its requests from here, apart
/// from the broker's own.
pub const OBSERVER_CORRELATION_BASE: i32 = 1 << 30;
/// NetworkClient's `reconnect.backoff.ms` and `reconnect.backoff.max.ms`.
const RECONNECT_BACKOFF_MS: u64 = 50;
const RECONNECT_BACKOFF_MAX_MS: u64 = 1000;

/// A node's state in its epoch (the `EpochState` implementations).
#[derive(Clone, Debug, PartialEq)]
pub enum Role {
    /// No leader known, no election running (`UnattachedState`).
    Unattached {
        /// A leader it knows of in this epoch, if any.
        leader: Option<i32>,
    },
    /// Running a pre-vote (`ProspectiveState`).
    Prospective {
        /// Voters that granted its pre-vote (itself included).
        granted: SortedSet<i32>,
        /// Voters that rejected it.
        rejected: SortedSet<i32>,
        /// The leader it followed, to go back to if the pre-vote fails.
        leader: Option<i32>,
    },
    /// Standing for election (`CandidateState`).
    Candidate {
        /// Voters that voted for it (itself included).
        granted: SortedSet<i32>,
        /// Voters that refused.
        rejected: SortedSet<i32>,
    },
    /// Leading (`LeaderState`).
    Leader(LeaderState),
    /// Following `leader` (`FollowerState`).
    Follower {
        /// The leader.
        leader: i32,
        /// Whether a Fetch to the leader has succeeded in this state.
        fetched: bool,
    },
    /// Gave up leading this epoch (`ResignedState`).
    Resigned {
        /// Voters that have not acknowledged its EndQuorumEpoch.
        unacked: SortedSet<i32>,
        /// Its preferred successors, most caught up first.
        successors: Vec<i32>,
    },
}

impl Role {
    /// The event's name for it.
    pub fn name(&self) -> QuorumRole {
        match self {
            Role::Unattached { .. } => QuorumRole::Unattached,
            Role::Prospective { .. } => QuorumRole::Prospective,
            Role::Candidate { .. } => QuorumRole::Candidate,
            Role::Leader(_) => QuorumRole::Leader,
            Role::Follower { .. } => QuorumRole::Follower,
            Role::Resigned { .. } => QuorumRole::Resigned,
        }
    }
}

/// What a leader tracks (`LeaderState`).
#[derive(Clone, Debug, PartialEq)]
pub struct LeaderState {
    /// Its log end offset when it took the lead: the high watermark must
    /// pass it (LS:715-724).
    pub epoch_start: i64,
    /// Each voter's end offset as its last valid Fetch said (-1: unknown).
    pub ends: SortedMap<i32, i64>,
    /// Voters that answered BeginQuorumEpoch or fetched.
    pub acked: SortedSet<i32>,
    /// Voters that fetched since the check-quorum timer was last reset.
    pub fetched: SortedSet<i32>,
    /// When each voter last fetched from (at least) the leader's log end
    /// (`lastCaughtUpTimestamp`; the leader itself: always now).
    pub caught_up_at: SortedMap<i32, Millis>,
    /// Observers (brokers) that fetched, and their end offsets.
    pub observers: SortedMap<i32, i64>,
}

/// A Fetch the leader holds until there is something to send.
#[derive(Clone, Debug, PartialEq)]
pub struct ParkedFetch {
    /// Who asked.
    pub from: NodeId,
    /// Its correlation id.
    pub correlation_id: i32,
    /// The offset it fetches from (the follower's log end).
    pub fetch_offset: i64,
    /// The follower's high watermark.
    pub high_watermark: i64,
}

/// A Fetch of the metadata log, as the leader reads it.
struct FetchAsked {
    correlation_id: i32,
    replica: i32,
    epoch: i32,
    fetch_offset: i64,
    last_fetched_epoch: i32,
    follower_hw: i64,
}

/// The leader's answer to a Fetch, as the follower reads it.
struct FetchAnswered {
    correlation_id: i32,
    error: Option<ErrorCode>,
    epoch: i32,
    leader: i32,
    leader_hw: i64,
    diverging: Option<(i32, i64)>,
    records: Vec<MetadataEntry>,
}

/// What a request in flight was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sent {
    Vote { epoch: i32, pre_vote: bool },
    Begin,
    End,
    Fetch,
}

/// One node's Raft client: a voter's (in a controller) or an observer's
/// (in a broker).
#[derive(Clone, Debug, PartialEq)]
pub struct RaftClient {
    /// Its `node.id`.
    pub id: i32,
    /// `controller.quorum.voters`.
    pub voters: Vec<i32>,
    /// The `quorum-state` file (durable): the epoch,
    pub epoch: i32,
    /// the voter it voted for in that epoch,
    pub voted_for: Option<i32>,
    /// and the leader it knew.
    pub stored_leader: Option<i32>,
    /// The `__cluster_metadata-0` log (durable: Kafka flushes it before it
    /// acknowledges or fetches again, KRC:1843-1849), decoded,
    pub log: Vec<MetadataEntry>,
    /// and its files: the same records in Kafka's record batches.
    pub files: MetadataLogFiles,
    /// In memory from here on.
    pub role: Role,
    /// The high watermark (-1: unknown).
    pub high_watermark: i64,
    /// The state timer's current setting.
    timer_generation: u64,
    /// When the state timer fires (None: not set).
    pub deadline: Option<Millis>,
    /// Why a follower's fetch timer was cut short (EndQuorumEpoch).
    timer_reason: Option<QuorumReason>,
    check_generation: u64,
    next_correlation: i32,
    requests: SortedMap<i32, (i32, Sent)>,
    /// The Fetch in flight, if any (its correlation id).
    fetch_in_flight: Option<i32>,
    /// Fetches the leader holds.
    pub parked: SortedMap<u64, ParkedFetch>,
    next_parked: u64,
    /// Records waiting for the append linger.
    pending: Vec<MetadataRecord>,
    linger_armed: bool,
    /// Failed connections in a row, per peer (the reconnect backoff).
    failures: SortedMap<i32, u32>,
    /// The voter an observer asks next for the leader.
    next_bootstrap: usize,
}

/// `__cluster_metadata-0` on a node's disk (`KafkaMetadataLog`): a log of
/// Kafka's record batches in the paged store, one per batch the leader
/// wrote, so followers hold the same bytes. Its settings are
/// `metadata.log.segment.bytes` (1 GiB) and `metadata.log.segment.ms`
/// (7 days), with no retention of its own: in Kafka snapshots decide what
/// is deleted (`MetadataLogConfig`, `KafkaMetadataLog.apply`); snapshots are
/// not modelled, so nothing is.
#[derive(Clone, Debug)]
pub struct MetadataLogFiles {
    /// The node's disk (its `metadata.log.dir`).
    pub disk: MemStorage,
    /// The log on it.
    pub log: Log,
}

/// `metadata.log.segment.bytes`'s default.
pub const METADATA_LOG_SEGMENT_BYTES: u64 = 1024 * 1024 * 1024;
/// `metadata.log.segment.ms`'s default.
pub const METADATA_LOG_SEGMENT_MS: u64 = 7 * 24 * 60 * 60 * 1000;

impl MetadataLogFiles {
    /// An empty `__cluster_metadata-0/` (what `kafka-storage format` leaves).
    pub fn new() -> MetadataLogFiles {
        let config = LogConfig {
            segment_bytes: METADATA_LOG_SEGMENT_BYTES,
            segment_ms: METADATA_LOG_SEGMENT_MS,
            retention_ms: -1,
            retention_bytes: -1,
            ..LogConfig::default()
        };
        let mut disk = MemStorage::default();
        let tp = TopicPartition::new("__cluster_metadata", 0);
        let log = Log::create(&mut disk, tp, std::sync::Arc::new(config), 0)
            .expect("an empty in-memory disk takes a new log");
        MetadataLogFiles { disk, log }
    }

    /// Writes `entries` (consecutive, from the log end) as the batches their
    /// marks say, flushed at once. A record without a mark where a batch
    /// should start (never, as fetches return whole batches) starts one
    /// that runs to the next mark.
    fn append(&mut self, entries: &[MetadataEntry], now_ms: i64) {
        let mut i = 0;
        while i < entries.len() {
            let (n, ts) = entries[i].batch.unwrap_or_else(|| {
                let run = entries[i..]
                    .iter()
                    .skip(1)
                    .take_while(|e| e.batch.is_none());
                (1 + run.count() as u32, now_ms)
            });
            let end = (i + n as usize).min(entries.len());
            let bytes = build_metadata_batch(&entries[i..end], ts);
            let p = self
                .log
                .prepare_follower_append(bytes)
                .expect("a metadata batch continues the log");
            self.log
                .roll_and_append(&mut self.disk, &p, now_ms)
                .expect("an in-memory disk takes the append");
            self.log.flushed_offset = self.log.log_end_offset;
            i = end;
        }
    }

    /// Cuts the files back to `to` (a batch boundary).
    fn truncate(&mut self, to: i64) {
        self.log
            .truncate_to(&mut self.disk, to.max(0))
            .expect("an in-memory disk takes the truncation");
        self.log.flushed_offset = self.log.flushed_offset.min(self.log.log_end_offset);
    }
}

impl Default for MetadataLogFiles {
    fn default() -> Self {
        MetadataLogFiles::new()
    }
}

/// Two nodes' files are alike when they hold the same offsets (the bytes
/// follow from the records, which `RaftClient::log` compares).
impl PartialEq for MetadataLogFiles {
    fn eq(&self, o: &Self) -> bool {
        self.log.log_start_offset == o.log.log_start_offset
            && self.log.log_end_offset == o.log.log_end_offset
    }
}

impl RaftClient {
    /// A node that has never run: epoch 0, an empty log.
    pub fn new(id: i32, voters: Vec<i32>, correlation_base: i32) -> RaftClient {
        RaftClient {
            id,
            voters,
            epoch: 0,
            voted_for: None,
            stored_leader: None,
            log: Vec::new(),
            files: MetadataLogFiles::new(),
            role: Role::Unattached { leader: None },
            high_watermark: -1,
            timer_generation: 0,
            deadline: None,
            timer_reason: None,
            check_generation: 0,
            next_correlation: correlation_base,
            requests: SortedMap::new(),
            fetch_in_flight: None,
            parked: SortedMap::new(),
            next_parked: 0,
            pending: Vec::new(),
            linger_armed: false,
            failures: SortedMap::new(),
            next_bootstrap: 0,
        }
    }

    /// The process died: what is in memory goes, the log and `quorum-state` stay.
    pub fn crash(&mut self) {
        let base = if self.is_voter() {
            0
        } else {
            OBSERVER_CORRELATION_BASE
        };
        let mut fresh = RaftClient::new(self.id, std::mem::take(&mut self.voters), base);
        fresh.epoch = self.epoch;
        fresh.voted_for = self.voted_for;
        fresh.stored_leader = self.stored_leader;
        fresh.log = std::mem::take(&mut self.log);
        fresh.files = std::mem::take(&mut self.files);
        // Timers of the dead process must not match the new one's.
        fresh.timer_generation = self.timer_generation + 1;
        fresh.check_generation = self.check_generation + 1;
        *self = fresh;
    }

    /// Whether this node votes.
    pub fn is_voter(&self) -> bool {
        self.voters.contains(&self.id)
    }

    /// ⌊n/2⌋ + 1 voters.
    pub fn majority(&self) -> usize {
        self.voters.len() / 2 + 1
    }

    /// Its log end offset.
    pub fn log_end_offset(&self) -> i64 {
        self.log.len() as i64
    }

    /// The epoch of its last record (0: none).
    pub fn last_epoch(&self) -> i32 {
        self.log.last().map_or(0, |e| e.epoch)
    }

    /// The leader it knows in its epoch.
    pub fn leader(&self) -> Option<i32> {
        match &self.role {
            Role::Leader(_) | Role::Resigned { .. } => Some(self.id),
            Role::Follower { leader, .. } => Some(*leader),
            Role::Unattached { leader } | Role::Prospective { leader, .. } => *leader,
            Role::Candidate { .. } => None,
        }
    }

    /// Whether it leads the quorum.
    pub fn is_leader(&self) -> bool {
        matches!(self.role, Role::Leader(_))
    }

    /// The offsets below which it has applied committed records: the
    /// smaller of its high watermark and its log end.
    pub fn committed_end(&self) -> i64 {
        self.high_watermark.max(0).min(self.log_end_offset())
    }

    /// `(epoch, end offset)` of the largest epoch ≤ `epoch` in the log
    /// (`endOffsetForEpoch`); (0, 0) when there is none.
    pub fn end_offset_for_epoch(&self, epoch: i32) -> (i32, i64) {
        // Entries are in epoch order: the first entry after `epoch` ends it.
        let after = self.log.partition_point(|e| e.epoch <= epoch);
        match after.checked_sub(1).map(|i| &self.log[i]) {
            Some(last) => (last.epoch, after as i64),
            None => (0, 0),
        }
    }

    /// Whether a request of its own to `peer` awaits an answer.
    pub fn has_request_to(&self, peer: i32) -> bool {
        self.requests.values().any(|(p, _)| *p == peer)
    }

    /// The offset the next record prepared by the leader will have.
    pub fn next_offset(&self) -> i64 {
        self.log_end_offset() + self.pending.len() as i64
    }
}

/// What the quorum's guarantee checks remember (part of the ledger).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuorumLedger {
    /// Each epoch's leader.
    pub leaders: SortedMap<i32, i32>,
    /// The committed records, by offset (each checked once it commits).
    pub committed: std::sync::Arc<Vec<MetadataEntry>>,
    /// Guarantees already reported broken (each is reported once).
    pub reported: SortedSet<Guarantee>,
}

/// A Raft client's handle: the kernel, the node hosting it, its client
/// and the ledger's quorum part.
pub(crate) struct RaftCx<'a> {
    pub k: &'a mut Kernel,
    pub node: NodeId,
    pub r: &'a mut RaftClient,
    pub ledger: &'a mut QuorumLedger,
}

fn voter(id: i32) -> NodeId {
    NodeId::Controller(id)
}

impl RaftCx<'_> {
    fn cfg(&self) -> &crate::config::BrokerConfig {
        &self.k.sc.cluster.config
    }

    fn random_election_timeout(&mut self) -> u64 {
        let t = self.cfg().controller_quorum_election_timeout_ms;
        t + self.k.rng.below(t)
    }

    /// Sets the state timer to fire `after` ms from now (replacing any).
    fn set_state_timer(&mut self, after: Option<u64>) -> Step {
        self.r.timer_generation += 1;
        self.r.timer_reason = None;
        self.r.deadline = after.map(|a| self.k.now + a);
        if let Some(at) = self.r.deadline {
            let generation = self.r.timer_generation;
            self.k
                .set_timer(self.node, at, Timer::QuorumTimer { generation })?;
        }
        Ok(())
    }

    fn reset_check_quorum(&mut self) -> Step {
        self.r.check_generation += 1;
        let at = self.k.now + self.cfg().controller_quorum_fetch_timeout_ms * 3 / 2;
        let generation = self.r.check_generation;
        self.k
            .set_timer(self.node, at, Timer::QuorumCheck { generation })
    }

    /// Takes the request `correlation_id` off the list in flight and
    /// disarms its timeout: (its peer, what it was), or None if it is not
    /// in flight (answered already, or from a previous state).
    fn take_request(&mut self, correlation_id: i32) -> Option<(i32, Sent)> {
        let taken = self.r.requests.remove(&correlation_id)?;
        self.k.disarm_request_timeout(self.node, correlation_id);
        Some(taken)
    }

    fn next_correlation(&mut self) -> i32 {
        let c = self.r.next_correlation;
        self.r.next_correlation = c.wrapping_add(1);
        c
    }

    /// Sends a request to `to`, with its timeout.
    fn request(&mut self, to: i32, sent: Sent, build: impl FnOnce(i32) -> Message) -> Step {
        let c = self.next_correlation();
        self.k.gate()?;
        self.r.requests.insert(c, (to, sent));
        if sent == Sent::Fetch {
            self.r.fetch_in_flight = Some(c);
        }
        let timeout = self.cfg().controller_quorum_request_timeout_ms;
        self.k.send(self.node, voter(to), build(c))?;
        self.k
            .arm_request_timeout(self.node, self.k.now + timeout, c)
    }

    /// Moves to `role` in `epoch` (one event). The state timer is set as
    /// the new state wants it (`timer`: None keeps the current deadline).
    fn transition(
        &mut self,
        epoch: i32,
        role: Role,
        voted_for: Option<i32>,
        reason: QuorumReason,
    ) -> Step {
        self.k.gate()?;
        let new_epoch = epoch != self.r.epoch;
        // Leaving a state drops what was in flight for it; parked fetches
        // are answered by the handlers that move on.
        if !matches!(role, Role::Leader(_)) {
            self.r.pending.clear();
            self.r.linger_armed = false;
        }
        self.r.epoch = epoch;
        self.r.voted_for = voted_for;
        let leader = match &role {
            Role::Leader(_) | Role::Resigned { .. } => Some(self.r.id),
            Role::Follower { leader, .. } => Some(*leader),
            Role::Unattached { leader } => *leader,
            _ => None,
        };
        self.r.stored_leader = leader;
        let state = role.name();
        if new_epoch || matches!(role, Role::Leader(_)) {
            // A new leader does not reuse the high watermark it knew (QS:701-710).
            if matches!(role, Role::Leader(_)) {
                self.r.high_watermark = -1;
            }
        }
        self.r.role = role;
        self.k.emit(
            vec![self.node],
            EventKind::QuorumStateChanged {
                node: self.node,
                epoch,
                state,
                leader: self.r.leader(),
                voted_for,
                reason,
            },
        );
        Ok(())
    }

    // ---- starting and timers ------------------------------------------

    /// The process starts: the state the `quorum-state` file and the log
    /// give (QS:143-261), then what that state does first.
    pub fn start(&mut self) -> Step {
        let (epoch, voted, leader) = (self.r.epoch, self.r.voted_for, self.r.stored_leader);
        let id = self.r.id;
        if !self.r.is_voter() {
            self.transition(
                epoch,
                Role::Unattached { leader: None },
                None,
                QuorumReason::Started,
            )?;
            self.set_state_timer(None)?;
            return self.fetch();
        }
        if self.r.last_epoch() > epoch {
            self.transition(
                self.r.last_epoch(),
                Role::Unattached { leader: None },
                None,
                QuorumReason::Started,
            )?;
            let t = self.random_election_timeout();
            return self.set_state_timer(Some(t));
        }
        if leader == Some(id) {
            let unacked = self.r.voters.iter().copied().filter(|v| *v != id).collect();
            self.transition(
                epoch,
                Role::Resigned {
                    unacked,
                    successors: Vec::new(),
                },
                voted,
                QuorumReason::Started,
            )?;
            let t = self.random_election_timeout();
            return self.set_state_timer(Some(t));
        }
        if voted == Some(id) && epoch > 0 {
            return self.become_candidate_again(QuorumReason::Started);
        }
        if let Some(l) = leader {
            self.transition(
                epoch,
                Role::Follower {
                    leader: l,
                    fetched: false,
                },
                voted,
                QuorumReason::Started,
            )?;
            let t = self.cfg().controller_quorum_fetch_timeout_ms;
            self.set_state_timer(Some(t))?;
            return self.fetch();
        }
        self.transition(
            epoch,
            Role::Unattached { leader: None },
            voted,
            QuorumReason::Started,
        )?;
        if self.r.voters.len() == 1 {
            return self.become_prospective(QuorumReason::Started);
        }
        let t = self.random_election_timeout();
        self.set_state_timer(Some(t))
    }

    /// A candidate restarted in its epoch stays a candidate: it asks again.
    fn become_candidate_again(&mut self, reason: QuorumReason) -> Step {
        let id = self.r.id;
        let granted = SortedSet::from_iter([id]);
        self.transition(
            self.r.epoch,
            Role::Candidate {
                granted,
                rejected: SortedSet::new(),
            },
            Some(id),
            reason,
        )?;
        let t = self.random_election_timeout();
        self.set_state_timer(Some(t))?;
        self.send_votes(false)
    }

    /// The state timer fired (the election or fetch timer).
    pub fn on_state_timer(&mut self, generation: u64) -> Step {
        if generation != self.r.timer_generation {
            return Ok(());
        }
        self.r.deadline = None;
        let epoch = self.r.epoch;
        match self.r.role.clone() {
            Role::Unattached { .. } if self.r.is_voter() => {
                self.become_prospective(QuorumReason::ElectionTimeout)
            }
            Role::Unattached { .. } => self.fetch(),
            Role::Prospective { leader, .. } => self.prospective_ends(leader, false),
            Role::Candidate { .. } => self.become_prospective(QuorumReason::ElectionTimeout),
            Role::Follower { .. } if self.r.is_voter() => {
                let why = self
                    .r
                    .timer_reason
                    .take()
                    .unwrap_or(QuorumReason::FetchTimeout);
                self.become_prospective(why)
            }
            Role::Follower { .. } => {
                // An observer whose leader went quiet asks the voters again
                // (KRC:3279-3285).
                self.transition(
                    epoch,
                    Role::Unattached { leader: None },
                    None,
                    QuorumReason::FetchTimeout,
                )?;
                self.fetch()
            }
            Role::Resigned { .. } => {
                let t = self.random_election_timeout();
                self.transition(
                    epoch + 1,
                    Role::Unattached { leader: None },
                    None,
                    QuorumReason::ElectionTimeout,
                )?;
                self.set_state_timer(Some(t))
            }
            Role::Leader(_) => Ok(()),
        }
    }

    /// A pre-vote failed or timed out: back to the leader it knew, or
    /// Unattached in the same epoch (KRC:3183-3209). A pre-vote that timed
    /// out without being rejected leaves no election time (QS:394-407), so
    /// the next one starts at once.
    fn prospective_ends(&mut self, leader: Option<i32>, rejected: bool) -> Step {
        let (epoch, voted) = (self.r.epoch, self.r.voted_for);
        let reason = if rejected {
            QuorumReason::PreVoteLost
        } else {
            QuorumReason::ElectionTimeout
        };
        if let Some(l) = leader {
            self.transition(
                epoch,
                Role::Follower {
                    leader: l,
                    fetched: false,
                },
                voted,
                reason,
            )?;
            let t = self.cfg().controller_quorum_fetch_timeout_ms;
            self.set_state_timer(Some(t))?;
            return self.fetch();
        }
        self.transition(epoch, Role::Unattached { leader: None }, voted, reason)?;
        let t = if rejected {
            self.random_election_timeout()
        } else {
            0
        };
        self.set_state_timer(Some(t))
    }

    fn become_prospective(&mut self, reason: QuorumReason) -> Step {
        let id = self.r.id;
        let leader = match &self.r.role {
            Role::Follower { leader, .. } => Some(*leader),
            _ => None,
        };
        self.transition(
            self.r.epoch,
            Role::Prospective {
                granted: SortedSet::from_iter([id]),
                rejected: SortedSet::new(),
                leader,
            },
            self.r.voted_for,
            reason,
        )?;
        if self.r.majority() <= 1 {
            return self.become_candidate(QuorumReason::PreVoteWon);
        }
        let t = self.random_election_timeout();
        self.set_state_timer(Some(t))?;
        self.send_votes(true)
    }

    fn become_candidate(&mut self, reason: QuorumReason) -> Step {
        let id = self.r.id;
        self.transition(
            self.r.epoch + 1,
            Role::Candidate {
                granted: SortedSet::from_iter([id]),
                rejected: SortedSet::new(),
            },
            Some(id),
            reason,
        )?;
        if self.r.majority() <= 1 {
            return self.become_leader(vec![id]);
        }
        let t = self.random_election_timeout();
        self.set_state_timer(Some(t))?;
        self.send_votes(false)
    }

    fn send_votes(&mut self, pre_vote: bool) -> Step {
        let id = self.r.id;
        let others: Vec<i32> = self.r.voters.iter().copied().filter(|v| *v != id).collect();
        self.send_votes_to(pre_vote, others)
    }

    /// Asks `voters` for their (pre-)vote in the current epoch.
    fn send_votes_to(&mut self, pre_vote: bool, voters: Vec<i32>) -> Step {
        let (epoch, id) = (self.r.epoch, self.r.id);
        let (last_epoch, last_offset) = (self.r.last_epoch(), self.r.log_end_offset());
        for v in voters {
            self.request(v, Sent::Vote { epoch, pre_vote }, |correlation_id| {
                Message::Vote {
                    correlation_id,
                    epoch,
                    candidate: id,
                    last_epoch,
                    last_offset,
                    pre_vote,
                }
            })?;
        }
        Ok(())
    }

    fn become_leader(&mut self, granting: Vec<i32>) -> Step {
        let id = self.r.id;
        let epoch = self.r.epoch;
        let leo = self.r.log_end_offset();
        let ends = self
            .r
            .voters
            .iter()
            .map(|v| (*v, if *v == id { leo } else { -1 }))
            .collect();
        self.transition(
            epoch,
            Role::Leader(LeaderState {
                epoch_start: leo,
                ends,
                acked: SortedSet::new(),
                fetched: SortedSet::new(),
                caught_up_at: SortedMap::new(),
                observers: SortedMap::new(),
            }),
            Some(id),
            QuorumReason::VoteWon,
        )?;
        self.set_state_timer(None)?;
        self.audit_new_leader()?;
        // The LeaderChange control record goes first (KRC:644-670).
        let voters = self.r.voters.clone();
        self.append_as_leader(vec![MetadataRecord::LeaderChange {
            leader_id: id,
            voters,
            granting_voters: granting,
        }])?;
        if self.r.voters.len() > 1 {
            self.reset_check_quorum()?;
        }
        self.send_begin_quorum_epoch()
    }

    fn send_begin_quorum_epoch(&mut self) -> Step {
        let (epoch, id) = (self.r.epoch, self.r.id);
        let Role::Leader(ls) = &self.r.role else {
            return Ok(());
        };
        let todo: Vec<i32> = self
            .r
            .voters
            .iter()
            .copied()
            .filter(|v| *v != id && !ls.acked.contains(v))
            .collect();
        for v in todo {
            self.request(v, Sent::Begin, |correlation_id| Message::BeginQuorumEpoch {
                correlation_id,
                epoch,
                leader: id,
            })?;
        }
        if self.r.voters.len() > 1 {
            let at = self.k.now + self.cfg().controller_quorum_fetch_timeout_ms / 2;
            self.k
                .set_timer(self.node, at, Timer::QuorumBeginResend { epoch })?;
        }
        Ok(())
    }

    /// BeginQuorumEpoch's resend timer.
    pub fn on_begin_resend(&mut self, epoch: i32) -> Step {
        if epoch == self.r.epoch && self.r.is_leader() {
            return self.send_begin_quorum_epoch();
        }
        Ok(())
    }

    /// The check-quorum timer ran out: no majority fetched in time, so the
    /// leader resigns (LS:200-220).
    pub fn on_check_quorum(&mut self, generation: u64) -> Step {
        if generation != self.r.check_generation || !self.r.is_leader() {
            return Ok(());
        }
        self.resign(QuorumReason::CheckQuorumFailed)
    }

    /// Leader → Resigned, telling the voters (EndQuorumEpoch) with the most
    /// caught-up first as preferred successors (KRC:3096-3100).
    pub fn resign(&mut self, reason: QuorumReason) -> Step {
        let Role::Leader(ls) = &self.r.role else {
            return Ok(());
        };
        let id = self.r.id;
        let mut others: Vec<(i64, i32)> = ls
            .ends
            .iter()
            .filter(|(v, _)| **v != id)
            .map(|(v, e)| (*e, *v))
            .collect();
        others.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let successors: Vec<i32> = others.iter().map(|(_, v)| *v).collect();
        let unacked = successors.iter().copied().collect();
        let parked: Vec<ParkedFetch> = std::mem::take(&mut self.r.parked)
            .values()
            .cloned()
            .collect();
        self.transition(
            self.r.epoch,
            Role::Resigned {
                unacked,
                successors,
            },
            self.r.voted_for,
            reason,
        )?;
        let t = self.random_election_timeout();
        self.set_state_timer(Some(t))?;
        for p in parked {
            self.answer_fetch_error(p.from, p.correlation_id, ErrorCode::NotLeaderOrFollower)?;
        }
        self.send_end_quorum_epoch()
    }

    fn send_end_quorum_epoch(&mut self) -> Step {
        let (epoch, id) = (self.r.epoch, self.r.id);
        let Role::Resigned {
            unacked,
            successors,
        } = self.r.role.clone()
        else {
            return Ok(());
        };
        for v in unacked.iter().copied() {
            let preferred_successors = successors.clone();
            self.request(v, Sent::End, |correlation_id| Message::EndQuorumEpoch {
                correlation_id,
                epoch,
                leader: id,
                preferred_successors,
            })?;
        }
        if !unacked.is_empty() {
            let at = self.k.now + self.cfg().controller_quorum_request_timeout_ms;
            self.k
                .set_timer(self.node, at, Timer::QuorumEndResend { epoch })?;
        }
        Ok(())
    }

    /// EndQuorumEpoch's resend timer.
    pub fn on_end_resend(&mut self, epoch: i32) -> Step {
        if epoch == self.r.epoch && matches!(self.r.role, Role::Resigned { .. }) {
            return self.send_end_quorum_epoch();
        }
        Ok(())
    }

    // ---- appending -----------------------------------------------------

    /// The leader takes records to append (`prepareAppend`): they are
    /// written as one batch when the linger is over. Returns the offset the
    /// last one will have, or None when this node does not lead.
    pub fn prepare_append(&mut self, records: Vec<MetadataRecord>) -> Step<Option<i64>> {
        if !self.r.is_leader() || records.is_empty() {
            return Ok(None);
        }
        self.k.gate()?;
        self.r.pending.extend(records);
        let last = self.r.next_offset() - 1;
        if !self.r.linger_armed {
            self.r.linger_armed = true;
            let epoch = self.r.epoch;
            let at = self.k.now + self.cfg().controller_quorum_append_linger_ms;
            self.k
                .set_timer(self.node, at, Timer::QuorumLinger { epoch })?;
        }
        Ok(Some(last))
    }

    /// The append linger is over: the batch is written.
    pub fn on_linger(&mut self, epoch: i32) -> Step {
        if epoch != self.r.epoch || !self.r.is_leader() || !self.r.linger_armed {
            return Ok(());
        }
        self.r.linger_armed = false;
        let records = std::mem::take(&mut self.r.pending);
        self.append_as_leader(records)
    }

    fn append_as_leader(&mut self, records: Vec<MetadataRecord>) -> Step {
        if records.is_empty() {
            return Ok(());
        }
        self.k.gate()?;
        let epoch = self.r.epoch;
        let first = self.r.log_end_offset();
        let append_ms = self.k.wall_ms();
        let n = records.len() as u32;
        let entries: Vec<MetadataEntry> = records
            .into_iter()
            .enumerate()
            .map(|(i, record)| MetadataEntry {
                offset: first + i as i64,
                epoch,
                record,
                batch: (i == 0).then_some((n, append_ms)),
            })
            .collect();
        self.r.log.extend(entries.iter().cloned());
        self.r.files.append(&entries, append_ms);
        let leo = self.r.log_end_offset();
        let id = self.r.id;
        if let Role::Leader(ls) = &mut self.r.role {
            ls.ends.insert(id, leo);
        }
        self.k.emit(
            vec![self.node],
            EventKind::MetadataAppended {
                node: self.node,
                epoch,
                records: entries,
                high_watermark: self.r.high_watermark,
            },
        );
        self.maybe_advance_leader_hw()?;
        self.complete_parked()
    }

    /// The leader's high watermark: the end offset a majority of voters
    /// holds, once past the start of its epoch; never backwards (LS:704-763).
    fn maybe_advance_leader_hw(&mut self) -> Step {
        let Role::Leader(ls) = &self.r.role else {
            return Ok(());
        };
        let mut ends: Vec<i64> = ls.ends.values().copied().collect();
        ends.sort_unstable_by(|a, b| b.cmp(a));
        let candidate = ends[self.r.voters.len() / 2];
        if candidate > ls.epoch_start && candidate > self.r.high_watermark {
            self.commit_to(candidate)?;
            self.complete_parked()?;
        }
        Ok(())
    }

    /// Moves the high watermark to `hw` (one event), checking the committed
    /// records against the ledger.
    fn commit_to(&mut self, hw: i64) -> Step {
        self.k.gate()?;
        let from = self.r.high_watermark.max(0);
        self.r.high_watermark = hw;
        self.k.emit(
            vec![self.node],
            EventKind::QuorumCommitted {
                node: self.node,
                high_watermark: hw,
            },
        );
        self.audit_committed(from, hw)
    }

    // ---- answering -----------------------------------------------------

    /// A message for the Raft client.
    pub fn on_message(&mut self, from: NodeId, msg: Message) -> Step {
        match msg {
            Message::Vote {
                correlation_id,
                epoch,
                candidate,
                last_epoch,
                last_offset,
                pre_vote,
            } => self.on_vote(
                from,
                correlation_id,
                epoch,
                candidate,
                (last_epoch, last_offset),
                pre_vote,
            ),
            Message::VoteResponse {
                correlation_id,
                error,
                epoch,
                leader,
                granted,
                ..
            } => self.on_vote_response(correlation_id, error, epoch, leader, granted),
            Message::BeginQuorumEpoch {
                correlation_id,
                epoch,
                leader,
            } => self.on_begin_quorum_epoch(from, correlation_id, epoch, leader),
            Message::BeginQuorumEpochResponse {
                correlation_id,
                epoch,
                leader,
                ..
            } => {
                let Some((v, _)) = self.take_request(correlation_id) else {
                    return Ok(());
                };
                if self.maybe_higher_epoch(epoch, leader)? {
                    return Ok(());
                }
                if let Role::Leader(ls) = &mut self.r.role {
                    ls.acked.insert(v);
                }
                Ok(())
            }
            Message::EndQuorumEpoch {
                correlation_id,
                epoch,
                leader,
                preferred_successors,
            } => {
                self.on_end_quorum_epoch(from, correlation_id, epoch, leader, preferred_successors)
            }
            Message::EndQuorumEpochResponse {
                correlation_id,
                epoch,
                leader,
                ..
            } => {
                let Some((v, _)) = self.take_request(correlation_id) else {
                    return Ok(());
                };
                if self.maybe_higher_epoch(epoch, leader)? {
                    return Ok(());
                }
                if let Role::Resigned { unacked, .. } = &mut self.r.role {
                    unacked.remove(&v);
                }
                Ok(())
            }
            Message::RaftFetch {
                correlation_id,
                replica,
                epoch,
                fetch_offset,
                last_fetched_epoch,
                high_watermark,
            } => self.on_fetch(
                from,
                FetchAsked {
                    correlation_id,
                    replica,
                    epoch,
                    fetch_offset,
                    last_fetched_epoch,
                    follower_hw: high_watermark,
                },
            ),
            Message::RaftFetchResponse {
                correlation_id,
                error,
                epoch,
                leader,
                high_watermark,
                diverging,
                records,
            } => self.on_fetch_response(FetchAnswered {
                correlation_id,
                error,
                epoch,
                leader,
                leader_hw: high_watermark,
                diverging,
                records,
            }),
            _ => Ok(()),
        }
    }

    /// A response or request carried a higher epoch: follow its leader, or
    /// wait Unattached in it (KRC:2495-2580). Returns whether it moved.
    fn maybe_higher_epoch(&mut self, epoch: i32, leader: i32) -> Step<bool> {
        if epoch > self.r.epoch {
            if leader >= 0 && leader != self.r.id {
                self.follow(epoch, leader, QuorumReason::HigherEpoch)?;
            } else {
                self.unattached_in(epoch, QuorumReason::HigherEpoch)?;
            }
            return Ok(true);
        }
        if epoch == self.r.epoch && leader >= 0 && leader != self.r.id {
            let knows = self.r.leader() == Some(leader);
            let leading = matches!(self.r.role, Role::Leader(_) | Role::Resigned { .. });
            if !knows && !leading {
                self.follow(epoch, leader, QuorumReason::LeaderDiscovered)?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn unattached_in(&mut self, epoch: i32, reason: QuorumReason) -> Step {
        self.drop_parked()?;
        self.transition(epoch, Role::Unattached { leader: None }, None, reason)?;
        if self.r.is_voter() {
            let t = self.random_election_timeout();
            self.set_state_timer(Some(t))
        } else {
            self.set_state_timer(None)?;
            self.fetch()
        }
    }

    fn follow(&mut self, epoch: i32, leader: i32, reason: QuorumReason) -> Step {
        self.drop_parked()?;
        let voted = if epoch == self.r.epoch {
            self.r.voted_for
        } else {
            None
        };
        self.transition(
            epoch,
            Role::Follower {
                leader,
                fetched: false,
            },
            voted,
            reason,
        )?;
        let t = self.cfg().controller_quorum_fetch_timeout_ms;
        self.set_state_timer(Some(t))?;
        self.r.fetch_in_flight = None;
        self.fetch()
    }

    /// A node that stops leading answers the fetches it held.
    fn drop_parked(&mut self) -> Step {
        let parked: Vec<ParkedFetch> = std::mem::take(&mut self.r.parked)
            .values()
            .cloned()
            .collect();
        for p in parked {
            self.answer_fetch_error(p.from, p.correlation_id, ErrorCode::NotLeaderOrFollower)?;
        }
        Ok(())
    }

    fn on_vote(
        &mut self,
        from: NodeId,
        correlation_id: i32,
        epoch: i32,
        candidate: i32,
        last: (i32, i64),
        pre_vote: bool,
    ) -> Step {
        let reply = |cx: &mut Self, error: Option<ErrorCode>, granted: bool| {
            let msg = Message::VoteResponse {
                correlation_id,
                error,
                epoch: cx.r.epoch,
                leader: cx.r.leader().unwrap_or(-1),
                granted,
                pre_vote,
            };
            cx.k.send(cx.node, from, msg).map(|_| ())
        };
        // A standard vote asks for a new epoch; a pre-vote may stand in
        // the last epoch it has (KRC:860-877).
        let sane = if pre_vote {
            last.0 <= epoch
        } else {
            last.0 < epoch
        };
        if !sane || !self.r.voters.contains(&candidate) || !self.r.is_voter() {
            return reply(self, Some(ErrorCode::InvalidRequest), false);
        }
        if epoch < self.r.epoch {
            return reply(self, Some(ErrorCode::FencedLeaderEpoch), false);
        }
        if epoch > self.r.epoch {
            // Even for a pre-vote (KRC:889-891).
            self.unattached_in(epoch, QuorumReason::HigherEpoch)?;
        }
        let up_to_date = last >= (self.r.last_epoch(), self.r.log_end_offset());
        let granted = match &self.r.role {
            Role::Unattached { leader } | Role::Prospective { leader, .. } => {
                if pre_vote {
                    up_to_date
                } else {
                    self.r.voted_for.is_none_or(|v| v == candidate)
                        && leader.is_none()
                        && up_to_date
                }
            }
            Role::Follower { fetched, .. } => pre_vote && !fetched && up_to_date,
            Role::Candidate { .. } | Role::Resigned { .. } => pre_vote && up_to_date,
            Role::Leader(_) => false,
        };
        if granted && !pre_vote && self.r.voted_for != Some(candidate) {
            // Durable, and the election timer starts again (QS:458-468).
            self.transition(
                self.r.epoch,
                Role::Unattached { leader: None },
                Some(candidate),
                QuorumReason::VoteGranted,
            )?;
            let t = self.random_election_timeout();
            self.set_state_timer(Some(t))?;
        }
        reply(self, None, granted)
    }

    fn on_vote_response(
        &mut self,
        correlation_id: i32,
        error: Option<ErrorCode>,
        epoch: i32,
        leader: i32,
        granted: bool,
    ) -> Step {
        let Some((
            v,
            Sent::Vote {
                epoch: asked,
                pre_vote,
            },
        )) = self.take_request(correlation_id)
        else {
            return Ok(());
        };
        if self.maybe_higher_epoch(epoch, leader)? {
            return Ok(());
        }
        if error.is_some() || asked != self.r.epoch {
            return Ok(());
        }
        let majority = self.r.majority();
        let n = self.r.voters.len();
        match &mut self.r.role {
            Role::Prospective {
                granted: g,
                rejected: r,
                leader,
            } if pre_vote => {
                if granted {
                    g.insert(v);
                } else {
                    r.insert(v);
                }
                let (won, lost) = (g.len() >= majority, n - r.len() < majority);
                let leader = *leader;
                if won {
                    return self.become_candidate(QuorumReason::PreVoteWon);
                }
                if lost {
                    return self.prospective_ends(leader, true);
                }
                Ok(())
            }
            Role::Candidate {
                granted: g,
                rejected: r,
            } if !pre_vote => {
                if granted {
                    g.insert(v);
                } else {
                    r.insert(v);
                }
                if g.len() >= majority {
                    let granting = g.iter().copied().collect();
                    return self.become_leader(granting);
                }
                // A rejected candidate waits out its timer (KRC:1033-1041).
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn on_begin_quorum_epoch(
        &mut self,
        from: NodeId,
        correlation_id: i32,
        epoch: i32,
        leader: i32,
    ) -> Step {
        if epoch < self.r.epoch {
            let msg = Message::BeginQuorumEpochResponse {
                correlation_id,
                error: Some(ErrorCode::FencedLeaderEpoch),
                epoch: self.r.epoch,
                leader: self.r.leader().unwrap_or(-1),
            };
            return self.k.send(self.node, from, msg).map(|_| ());
        }
        let already = epoch == self.r.epoch
            && matches!(self.r.role, Role::Follower { leader: l, .. } if l == leader);
        if !already && leader != self.r.id {
            let reason = if epoch > self.r.epoch {
                QuorumReason::HigherEpoch
            } else {
                QuorumReason::LeaderDiscovered
            };
            self.follow(epoch, leader, reason)?;
        }
        let msg = Message::BeginQuorumEpochResponse {
            correlation_id,
            error: None,
            epoch: self.r.epoch,
            leader: self.r.leader().unwrap_or(-1),
        };
        self.k.send(self.node, from, msg).map(|_| ())
    }

    fn on_end_quorum_epoch(
        &mut self,
        from: NodeId,
        correlation_id: i32,
        epoch: i32,
        leader: i32,
        successors: Vec<i32>,
    ) -> Step {
        if epoch < self.r.epoch {
            let msg = Message::EndQuorumEpochResponse {
                correlation_id,
                error: Some(ErrorCode::FencedLeaderEpoch),
                epoch: self.r.epoch,
                leader: self.r.leader().unwrap_or(-1),
            };
            return self.k.send(self.node, from, msg).map(|_| ());
        }
        self.maybe_higher_epoch(epoch, leader)?;
        // A follower of the resigning leader stands for election after a
        // backoff set by its place among the successors (KRC:1319-1338).
        if matches!(self.r.role, Role::Follower { leader: l, .. } if l == leader)
            && epoch == self.r.epoch
        {
            let max = self.cfg().controller_quorum_election_backoff_max_ms;
            let n = successors.len() as u32;
            let backoff = match successors.iter().position(|s| *s == self.r.id) {
                Some(0) => 0,
                Some(p) => (max >> (n - 1).min(63)) << (p as u32 - 1).min(63),
                None => max,
            }
            .min(max);
            self.set_state_timer(Some(backoff))?;
            self.r.timer_reason = Some(QuorumReason::LeaderResigned);
        }
        let msg = Message::EndQuorumEpochResponse {
            correlation_id,
            error: None,
            epoch: self.r.epoch,
            leader: self.r.leader().unwrap_or(-1),
        };
        self.k.send(self.node, from, msg).map(|_| ())
    }

    // ---- Fetch -----------------------------------------------------------

    /// Sends a Fetch to the leader it follows, or (an observer that knows
    /// none) to a voter in turn, unless one is in flight.
    pub fn fetch(&mut self) -> Step {
        if self.r.fetch_in_flight.is_some() {
            return Ok(());
        }
        let to = match &self.r.role {
            Role::Follower { leader, .. } => *leader,
            Role::Unattached { leader: None } if !self.r.is_voter() => {
                let v = self.r.voters[self.r.next_bootstrap % self.r.voters.len()];
                self.r.next_bootstrap += 1;
                v
            }
            _ => return Ok(()),
        };
        let (id, epoch) = (self.r.id, self.r.epoch);
        let (fetch_offset, last_fetched_epoch, high_watermark) = (
            self.r.log_end_offset(),
            self.r.last_epoch(),
            self.r.high_watermark,
        );
        self.request(to, Sent::Fetch, |correlation_id| Message::RaftFetch {
            correlation_id,
            replica: id,
            epoch,
            fetch_offset,
            last_fetched_epoch,
            high_watermark,
        })
    }

    /// The fetch backoff ended.
    pub fn on_fetch_retry(&mut self) -> Step {
        self.fetch()
    }

    fn answer_fetch_error(&mut self, to: NodeId, correlation_id: i32, error: ErrorCode) -> Step {
        let msg = Message::RaftFetchResponse {
            correlation_id,
            error: Some(error),
            epoch: self.r.epoch,
            leader: self.r.leader().unwrap_or(-1),
            high_watermark: self.r.high_watermark,
            diverging: None,
            records: Vec::new(),
        };
        self.k.send(self.node, to, msg).map(|_| ())
    }

    fn on_fetch(&mut self, from: NodeId, asked: FetchAsked) -> Step {
        let FetchAsked {
            correlation_id,
            replica,
            epoch,
            fetch_offset,
            last_fetched_epoch,
            follower_hw,
        } = asked;
        if !self.r.is_leader() {
            return self.answer_fetch_error(from, correlation_id, ErrorCode::NotLeaderOrFollower);
        }
        // The epoch must match exactly (KRC:2678-2693); an observer that
        // is still looking for the leader asks with an older one.
        let is_voter = self.r.voters.contains(&replica);
        if epoch != self.r.epoch {
            let e = if epoch < self.r.epoch {
                ErrorCode::FencedLeaderEpoch
            } else {
                ErrorCode::UnknownLeaderEpoch
            };
            return self.answer_fetch_error(from, correlation_id, e);
        }
        // `validateOffsetAndEpoch` (ReplicatedLog.java:91-123).
        let (end_epoch, end_offset) = self.r.end_offset_for_epoch(last_fetched_epoch);
        let valid = fetch_offset <= self.r.log_end_offset()
            && (fetch_offset == 0 && last_fetched_epoch == 0
                || end_epoch == last_fetched_epoch && end_offset >= fetch_offset);
        if !valid {
            let msg = Message::RaftFetchResponse {
                correlation_id,
                error: None,
                epoch: self.r.epoch,
                leader: self.r.id,
                high_watermark: self.r.high_watermark,
                diverging: Some((end_epoch, end_offset.min(fetch_offset))),
                records: Vec::new(),
            };
            return self.k.send(self.node, from, msg).map(|_| ());
        }
        let (now, leo) = (self.k.now, self.r.log_end_offset());
        if !is_voter {
            self.k.gate()?;
            if let Role::Leader(ls) = &mut self.r.role {
                ls.observers.insert(replica, fetch_offset);
            }
        }
        if is_voter {
            self.k.gate()?;
            let majority = self.r.majority();
            let mut reset = false;
            if let Role::Leader(ls) = &mut self.r.role {
                ls.ends.insert(replica, fetch_offset);
                if fetch_offset >= leo {
                    ls.caught_up_at.insert(replica, now);
                }
                ls.acked.insert(replica);
                ls.fetched.insert(replica);
                if ls.fetched.len() + 1 >= majority {
                    ls.fetched.clear();
                    reset = true;
                }
            }
            if reset {
                self.reset_check_quorum()?;
            }
            self.maybe_advance_leader_hw()?;
        }
        let has_records = fetch_offset < self.r.log_end_offset();
        if has_records || self.r.high_watermark > follower_hw {
            return self.send_records(from, correlation_id, fetch_offset);
        }
        // Nothing new: hold it (KRC:1526-1545).
        self.k.gate()?;
        let id = self.r.next_parked;
        self.r.next_parked += 1;
        self.r.parked.insert(
            id,
            ParkedFetch {
                from,
                correlation_id,
                fetch_offset,
                high_watermark: follower_hw,
            },
        );
        self.k.set_timer(
            self.node,
            self.k.now + FETCH_MAX_WAIT_MS,
            Timer::QuorumFetchExpiry { id },
        )
    }

    fn send_records(&mut self, to: NodeId, correlation_id: i32, from_offset: i64) -> Step {
        let start = from_offset.max(0) as usize;
        let mut end = (start + MAX_FETCH_RECORDS).min(self.r.log.len());
        // Whole batches only, as Kafka's fetch returns them.
        while end < self.r.log.len() && self.r.log[end].batch.is_none() {
            end += 1;
        }
        let records = self.r.log[start.min(end)..end].to_vec();
        let msg = Message::RaftFetchResponse {
            correlation_id,
            error: None,
            epoch: self.r.epoch,
            leader: self.r.id,
            high_watermark: self.r.high_watermark,
            diverging: None,
            records,
        };
        self.k.send(self.node, to, msg).map(|_| ())
    }

    /// Answers the parked fetches there is now something for: records past
    /// their offset, or a high watermark past theirs.
    fn complete_parked(&mut self) -> Step {
        let (hw, leo) = (self.r.high_watermark, self.r.log_end_offset());
        let ready: Vec<u64> = self
            .r
            .parked
            .iter()
            .filter(|(_, p)| leo > p.fetch_offset || hw > p.high_watermark)
            .map(|(id, _)| *id)
            .collect();
        for id in ready {
            let p = self.r.parked.remove(&id).expect("listed");
            self.send_records(p.from, p.correlation_id, p.fetch_offset)?;
        }
        Ok(())
    }

    /// A parked fetch waited its 500 ms: answered with what there is.
    pub fn on_fetch_expiry(&mut self, id: u64) -> Step {
        match self.r.parked.remove(&id) {
            Some(p) => self.send_records(p.from, p.correlation_id, p.fetch_offset),
            None => Ok(()),
        }
    }

    fn on_fetch_response(&mut self, answered: FetchAnswered) -> Step {
        let FetchAnswered {
            correlation_id,
            error,
            epoch,
            leader,
            leader_hw,
            diverging,
            records,
        } = answered;
        let Some((peer, Sent::Fetch)) = self.take_request(correlation_id) else {
            return Ok(());
        };
        if self.r.fetch_in_flight == Some(correlation_id) {
            self.r.fetch_in_flight = None;
        }
        self.r.failures.remove(&peer);
        if self.maybe_higher_epoch(epoch, leader)? {
            return Ok(());
        }
        let following = matches!(self.r.role, Role::Follower { leader: l, .. } if l == peer);
        if error.is_some() || !following {
            // Not (or no longer) the leader it follows: try again later.
            return self.fetch_after(self.cfg().controller_quorum_retry_backoff_ms);
        }
        if let Some((div_epoch, div_end)) = diverging {
            let (_, local_end) = self.r.end_offset_for_epoch(div_epoch);
            let to = div_end.min(local_end).min(self.r.log_end_offset());
            self.truncate(to)?;
            return self.fetch();
        }
        // A successful fetch: the fetch timer starts again (KRC:1811).
        self.k.gate()?;
        if let Role::Follower { fetched, .. } = &mut self.r.role {
            *fetched = true;
        }
        if self.r.is_voter() || !records.is_empty() || leader_hw > self.r.high_watermark {
            let t = self.cfg().controller_quorum_fetch_timeout_ms;
            self.set_state_timer(Some(t))?;
        }
        let leo = self.r.log_end_offset();
        let fresh: Vec<MetadataEntry> = records.into_iter().filter(|e| e.offset >= leo).collect();
        let new_hw = leader_hw.min(leo + fresh.len() as i64);
        let hw_moves = new_hw > self.r.high_watermark;
        if !fresh.is_empty() {
            self.k.gate()?;
            let from = self.r.high_watermark.max(0);
            let epoch_of = fresh[0].epoch;
            self.r.log.extend(fresh.iter().cloned());
            let now = self.k.wall_ms();
            self.r.files.append(&fresh, now);
            if hw_moves {
                self.r.high_watermark = new_hw;
            }
            self.k.emit(
                vec![self.node],
                EventKind::MetadataAppended {
                    node: self.node,
                    epoch: epoch_of,
                    records: fresh,
                    high_watermark: self.r.high_watermark,
                },
            );
            if hw_moves {
                self.audit_committed(from, new_hw)?;
            }
        } else if hw_moves {
            self.commit_to(new_hw)?;
        }
        self.fetch()
    }

    fn fetch_after(&mut self, ms: u64) -> Step {
        self.k
            .set_timer(self.node, self.k.now + ms.max(1), Timer::QuorumFetchRetry)
    }

    /// Cuts the log back to `to` (one event).
    fn truncate(&mut self, to: i64) -> Step {
        let leo = self.r.log_end_offset();
        if to >= leo {
            return Ok(());
        }
        self.k.gate()?;
        let removed: Vec<MetadataEntry> = self.r.log.split_off(to.max(0) as usize);
        self.r.files.truncate(to);
        self.k.emit(
            vec![self.node],
            EventKind::MetadataTruncated {
                node: self.node,
                to_offset: to,
                removed: removed.len() as u32,
            },
        );
        let committed = self.ledger.committed.len() as i64;
        if to < committed {
            let lost = removed
                .iter()
                .find(|e| self.ledger.committed.get(e.offset as usize) == Some(*e));
            if let Some(e) = lost {
                let detail = format!(
                    "{} cut committed metadata record {} (offset {}, epoch {}) from its log",
                    self.node,
                    e.record.type_name(),
                    e.offset,
                    e.epoch
                );
                self.broken(Guarantee::CommittedMetadataSurvives, detail)?;
            }
        }
        Ok(())
    }

    /// A request failed: the connection broke (`lost`) or it timed out.
    pub fn on_request_failed(&mut self, correlation_id: i32, lost: bool) -> Step {
        let Some((peer, sent)) = self.take_request(correlation_id) else {
            return Ok(());
        };
        let backoff = if lost {
            let n = self.r.failures.entry(peer).or_insert(0);
            *n += 1;
            (RECONNECT_BACKOFF_MS << (*n - 1).min(8)).min(RECONNECT_BACKOFF_MAX_MS)
        } else {
            self.cfg().controller_quorum_retry_backoff_ms
        };
        match sent {
            Sent::Fetch => {
                if self.r.fetch_in_flight == Some(correlation_id) {
                    self.r.fetch_in_flight = None;
                }
                self.fetch_after(backoff)
            }
            Sent::Vote { epoch, .. } => {
                // Ask that voter again while the election goes on.
                if epoch == self.r.epoch {
                    self.k.set_timer(
                        self.node,
                        self.k.now + backoff.max(1),
                        Timer::QuorumVoteRetry { epoch },
                    )?;
                }
                Ok(())
            }
            Sent::Begin | Sent::End => Ok(()),
        }
    }

    /// The connection to `peer` was reset: its requests in flight failed.
    pub fn on_peer_closed(&mut self, peer: i32) -> Step {
        let failed: Vec<i32> = self
            .r
            .requests
            .iter()
            .filter(|(_, (p, _))| *p == peer)
            .map(|(c, _)| *c)
            .collect();
        for c in failed {
            self.on_request_failed(c, true)?;
        }
        Ok(())
    }

    /// Asks the voters that have not answered again (one election).
    pub fn on_vote_retry(&mut self, epoch: i32) -> Step {
        if epoch != self.r.epoch {
            return Ok(());
        }
        let (pre_vote, answered): (bool, SortedSet<i32>) = match &self.r.role {
            Role::Prospective {
                granted, rejected, ..
            } => (
                true,
                granted.iter().chain(rejected.iter()).copied().collect(),
            ),
            Role::Candidate { granted, rejected } => (
                false,
                granted.iter().chain(rejected.iter()).copied().collect(),
            ),
            _ => return Ok(()),
        };
        let in_flight: SortedSet<i32> = self
            .r
            .requests
            .values()
            .filter(|(_, s)| matches!(s, Sent::Vote { .. }))
            .map(|(v, _)| *v)
            .collect();
        let todo: Vec<i32> = self
            .r
            .voters
            .iter()
            .copied()
            .filter(|v| !answered.contains(v) && !in_flight.contains(v))
            .collect();
        self.send_votes_to(pre_vote, todo)
    }

    // ---- guarantees ------------------------------------------------------

    fn broken(&mut self, g: Guarantee, detail: String) -> Step {
        if self.ledger.reported.contains(&g) {
            return Ok(());
        }
        self.k.gate()?;
        self.ledger.reported.insert(g);
        self.k.emit(
            vec![self.node],
            EventKind::GuaranteeBroken {
                guarantee: g,
                tp: None,
                detail,
            },
        );
        Ok(())
    }

    /// A new leader: the only one of its epoch, with every committed record.
    fn audit_new_leader(&mut self) -> Step {
        let (epoch, id) = (self.r.epoch, self.r.id);
        match self.ledger.leaders.get(&epoch) {
            Some(other) if *other != id => {
                let detail =
                    format!("controllers {other} and {id} both led the quorum in epoch {epoch}");
                self.broken(Guarantee::OneQuorumLeaderPerEpoch, detail)?;
            }
            _ => {
                self.ledger.leaders.insert(epoch, id);
            }
        }
        let missing = self
            .ledger
            .committed
            .iter()
            .find(|e| self.r.log.get(e.offset as usize) != Some(*e))
            .cloned();
        if let Some(e) = missing {
            let detail = format!(
                "controller {id} became leader in epoch {epoch} without committed record {} at offset {} (epoch {})",
                e.record.type_name(),
                e.offset,
                e.epoch
            );
            self.broken(Guarantee::CommittedMetadataSurvives, detail)?;
        }
        Ok(())
    }

    /// The records `from..to` just committed on this node: the same as
    /// every other node committed there (the ledger learns the new ones).
    fn audit_committed(&mut self, from: i64, to: i64) -> Step {
        let known = self.ledger.committed.len() as i64;
        let mut conflict = None;
        for off in from..to.min(self.r.log_end_offset()) {
            let e = &self.r.log[off as usize];
            if off < known {
                if self.ledger.committed[off as usize] != *e && conflict.is_none() {
                    conflict = Some(off);
                }
            } else {
                std::sync::Arc::make_mut(&mut self.ledger.committed).push(e.clone());
            }
        }
        if let Some(off) = conflict {
            let was = &self.ledger.committed[off as usize];
            let detail = format!(
                "{} committed {} at offset {} (epoch {}) where {} (epoch {}) had committed",
                self.node,
                self.r.log[off as usize].record.type_name(),
                off,
                self.r.log[off as usize].epoch,
                was.record.type_name(),
                was.epoch
            );
            self.broken(Guarantee::CommittedMetadataSurvives, detail)?;
        }
        Ok(())
    }
}
