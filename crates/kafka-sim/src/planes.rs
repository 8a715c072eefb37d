//! The two control planes side by side: one failure run in Kafka 3.9
//! (ZooKeeper and a controller broker) and in Kafka 4.1 (KRaft and a
//! quorum of controllers), from the same seed, with the same brokers and
//! topic, each with its version's defaults. What a learner compares:
//!
//! - **when** the cluster noticed and recovered, measured from the failure:
//!   3.9 waits for a ZooKeeper session to expire
//!   (`zookeeper.session.timeout.ms`, 18 s), 4.1 for a broker's session at
//!   the controller (`broker.session.timeout.ms`, 9 s) or a voter's fetch
//!   timeout (`controller.quorum.fetch.timeout.ms`, 2 s);
//! - **what travelled**: the control plane's messages in that time, by
//!   request, and how many partition states the brokers were sent. A new
//!   3.9 controller reads every partition from ZooKeeper and sends every
//!   broker an UpdateMetadata with all of them (`KafkaController
//!   .onControllerFailover` → `sendUpdateMetadataRequest`); a new KRaft
//!   leader already holds the log the brokers replay, so it sends none.
//!
//! The failures, as issue 49 names them:
//! - [`Failure::LeaderDies`]: a broker leading partitions (not the 3.9
//!   controller) dies; recovered once each partition it led has a new
//!   leader.
//! - [`Failure::ControllerDies`]: the active controller's node dies. In
//!   3.9 that node is a broker, so its partitions fail over too; in 4.1 it
//!   is a controller process that leads no partition. Recovered once
//!   another node is the active controller, and: in 3.9, each partition
//!   the dead broker led has a new leader; in 4.1, every broker follows
//!   the new quorum leader (it fetches the metadata log from it).
//! - [`Failure::BrokerCutOff`]: the links between that broker and the
//!   controller(s) are cut, nothing else. In 3.9 a broker is alive while
//!   its ZooKeeper session is, so nothing moves; in 4.1 the controller is
//!   the failure detector, and the broker is fenced when its heartbeats
//!   stop (`BrokerHeartbeatManager`), its partitions led elsewhere.
//!
//! The runs are the engine's own (every event is in the world's trace);
//! this module only sets them up, picks the events a comparison shows and
//! counts. `tests/control_planes.rs` checks the figures.

use crate::event::{Event, EventKind, QuorumRole};
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::kraft::records::MetadataRecord;
use crate::msg::Message;
use crate::{Scenario, World};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// When the failure happens: the cluster has long settled.
pub const FAILURE_AT_MS: u64 = 6000;
/// How long after the failure a run watches at most.
pub const WATCH_MS: u64 = 40_000;
/// The most events a run keeps to show (the figures count all).
pub const MAX_SHOWN: usize = 400;

/// The failure both control planes meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A broker leading partitions dies.
    LeaderDies,
    /// The active controller's node dies.
    ControllerDies,
    /// A broker is cut off from the controller(s).
    BrokerCutOff,
}

impl Failure {
    /// Every failure, in the order the page offers them.
    pub const ALL: [Failure; 3] = [
        Failure::ControllerDies,
        Failure::BrokerCutOff,
        Failure::LeaderDies,
    ];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Failure::LeaderDies => "leader-dies",
            Failure::ControllerDies => "controller-dies",
            Failure::BrokerCutOff => "broker-cut-off",
        }
    }

    /// The failure of a command-line name.
    pub fn from_name(s: &str) -> Result<Failure, String> {
        Failure::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown failure `{s}` (expected controller-dies, broker-cut-off or leader-dies)"
                )
            })
    }
}

/// The cluster both runs start from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    /// Brokers, ids 0, 1, ….
    pub brokers: i32,
    /// Partitions of the one topic, replication factor 3.
    pub partitions: i32,
}

impl Size {
    /// 3 brokers, 6 partitions.
    pub const SMALL: Size = Size {
        brokers: 3,
        partitions: 6,
    };
    /// 10 brokers, 1,000 partitions.
    pub const LARGE: Size = Size {
        brokers: 10,
        partitions: 1000,
    };

    fn check(self) -> Result<(), String> {
        if !(3..=50).contains(&self.brokers) {
            return Err(format!(
                "brokers: {} is outside 3..=50 (the topic has 3 replicas)",
                self.brokers
            ));
        }
        if !(1..=5000).contains(&self.partitions) {
            return Err(format!(
                "partitions: {} is outside 1..=5000",
                self.partitions
            ));
        }
        Ok(())
    }
}

/// One control plane's run of the failure.
#[derive(Clone, Debug)]
pub struct Run {
    /// `"3.9"` or `"4.1"`.
    pub version: &'static str,
    /// The node the failure struck.
    pub victim: NodeId,
    /// The scenario run (it can be opened on its own).
    pub scenario_json: String,
    /// When the control plane first acted on the failure (ms after it):
    /// 3.9's first watch fired, 4.1's first voter or broker state change.
    pub noticed_ms: Option<u64>,
    /// When everything the failure stopped was done by someone else again
    /// (ms after it); None if not within [`WATCH_MS`] or nothing moved.
    pub recovered_ms: Option<u64>,
    /// The partitions the struck broker led, and those of them another
    /// broker leads since.
    pub to_move: usize,
    /// Of [`Run::to_move`], those led by another broker since.
    pub moved: usize,
    /// Control-plane messages carrying the failure's news, from the failure
    /// to recovery (or to the end of the watch), by request name (see
    /// `control_api` for what is left out).
    pub messages: BTreeMap<&'static str, u64>,
    /// Partition states sent to brokers in that time: a LeaderAndIsr's or
    /// UpdateMetadata's states, the partition records in a metadata Fetch
    /// answer.
    pub partition_states: u64,
    /// The events to show, from the failure on (at most [`MAX_SHOWN`]).
    pub shown: Vec<Event>,
    /// Events left out beyond [`MAX_SHOWN`].
    pub not_shown: usize,
    /// When the run stopped (ms after the failure).
    pub watched_ms: u64,
}

impl Run {
    /// All control-plane messages counted.
    pub fn total_messages(&self) -> u64 {
        self.messages.values().sum()
    }
}

/// Both runs.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// The failure.
    pub failure: Failure,
    /// The cluster.
    pub size: Size,
    /// Kafka 3.9 with ZooKeeper.
    pub zk: Run,
    /// Kafka 4.1 with KRaft.
    pub kraft: Run,
}

/// Runs `failure` in both modes on a cluster of `size`.
pub fn compare(failure: Failure, size: Size, seed: u64) -> Result<Comparison, String> {
    size.check()?;
    // Who is struck is decided on the 3.9 cluster before the failure (the
    // controller broker, or the first other broker), then found likewise
    // on 4.1.
    let zk_controller = settle(&scenario(false, size, seed, &[]))?.controller_id();
    let Some(zk_controller) = zk_controller else {
        return Err("the 3.9 cluster elected no controller before the failure".into());
    };
    let other = (0..size.brokers)
        .map(BrokerId)
        .find(|b| *b != zk_controller)
        .expect("at least 3 brokers");
    let active = settle(&scenario(true, size, seed, &[]))?.active_controller();
    let Some(active) = active else {
        return Err("the 4.1 quorum elected no leader before the failure".into());
    };
    let at = FAILURE_AT_MS;
    let (zk_victim, kraft_victim) = match failure {
        Failure::LeaderDies | Failure::BrokerCutOff => {
            (NodeId::Broker(other), NodeId::Broker(other))
        }
        Failure::ControllerDies => (NodeId::Broker(zk_controller), NodeId::Controller(active)),
    };
    // The commands that strike each cluster.
    let strike = |victim: NodeId, controllers: &[NodeId]| -> Vec<String> {
        match (failure, victim) {
            (Failure::BrokerCutOff, NodeId::Broker(b)) => controllers
                .iter()
                .map(|c| {
                    format!(
                        r#"{{"at_ms": {at}, "type": "cut_link", "a": "broker-{b}", "b": "{c}"}}"#
                    )
                })
                .collect(),
            (_, NodeId::Broker(b)) => {
                vec![format!(
                    r#"{{"at_ms": {at}, "type": "kill_broker", "broker": {b}}}"#
                )]
            }
            (_, NodeId::Controller(c)) => vec![format!(
                r#"{{"at_ms": {at}, "type": "kill_controller", "controller": {c}}}"#
            )],
            // Only brokers and controllers are struck.
            _ => Vec::new(),
        }
    };
    let zk_cmds = strike(zk_victim, &[NodeId::Broker(zk_controller)]);
    let kraft_controllers: Vec<NodeId> =
        CONTROLLERS.iter().map(|c| NodeId::Controller(*c)).collect();
    let kraft_cmds = strike(kraft_victim, &kraft_controllers);
    let zk = run(
        failure,
        "3.9",
        zk_victim,
        scenario(false, size, seed, &zk_cmds),
    )?;
    let kraft = run(
        failure,
        "4.1",
        kraft_victim,
        scenario(true, size, seed, &kraft_cmds),
    )?;
    Ok(Comparison {
        failure,
        size,
        zk,
        kraft,
    })
}

const CONTROLLERS: [i32; 3] = [3000, 3001, 3002];

fn scenario(kraft: bool, size: Size, seed: u64, commands: &[String]) -> String {
    let ids: Vec<i32> = (0..size.brokers).collect();
    let (version, controllers) = if kraft {
        (
            r#""kafka_version": "4.1","#,
            format!(", \"controllers\": {CONTROLLERS:?}"),
        )
    } else {
        ("", String::new())
    };
    let name = if kraft {
        "KRaft (Kafka 4.1)"
    } else {
        "ZooKeeper (Kafka 3.9)"
    };
    format!(
        r#"{{"name": "{name}", "seed": {seed}, {version} "run_until_ms": {},
  "cluster": {{"brokers": {ids:?}{controllers}, "network": {{"latency_ms": 2}}}},
  "topics": [{{"name": "t", "partitions": {}, "replication.factor": 3}}],
  "commands": [{}]}}"#,
        FAILURE_AT_MS + WATCH_MS,
        size.partitions,
        commands.join(", ")
    )
}

fn world(json: &str) -> Result<World, String> {
    let sc = Scenario::from_json(json).map_err(|e| e.to_string())?;
    Ok(World::new(Arc::new(sc)))
}

/// The world just before the failure.
fn settle(json: &str) -> Result<World, String> {
    let mut w = world(json)?;
    while w.next_time().is_some_and(|t| t < FAILURE_AT_MS) {
        w.step();
        w.drain_events();
    }
    Ok(w)
}

fn run(
    failure: Failure,
    version: &'static str,
    victim: NodeId,
    json: String,
) -> Result<Run, String> {
    let mut w = settle(&json)?;
    // What the victim leads just before the failure.
    let mut waiting: BTreeSet<TopicPartition> = match victim {
        NodeId::Broker(b) => w.brokers()[&b]
            .partitions
            .iter()
            .filter(|(_, p)| p.is_leader)
            .map(|(tp, _)| tp.clone())
            .collect(),
        _ => BTreeSet::new(),
    };
    let to_move = waiting.len();
    let mut need_controller = failure == Failure::ControllerDies;
    // In 4.1, the brokers that do not yet follow the new quorum leader
    // (they fetch the metadata log from it and heartbeat to it).
    let brokers: BTreeSet<BrokerId> = w.brokers().keys().copied().collect();
    let mut unaware: BTreeSet<BrokerId> = BTreeSet::new();
    let mut new_leader: Option<i32> = None;
    let mut r = Run {
        version,
        victim,
        scenario_json: json,
        noticed_ms: None,
        recovered_ms: None,
        to_move,
        moved: 0,
        messages: BTreeMap::new(),
        partition_states: 0,
        shown: Vec::new(),
        not_shown: 0,
        watched_ms: WATCH_MS,
    };
    // A cut-off 3.9 broker keeps its ZooKeeper session: the controller
    // has nothing to recover, and the run watches the whole window to show
    // what does (or does not) move.
    let nothing_to_do = failure == Failure::BrokerCutOff && version == "3.9";
    // The quorum leader: its appends are shown, not each follower's copy.
    let mut writer: Option<NodeId> = w.active_controller().map(NodeId::Controller);
    while w.step() {
        let mut done = false;
        for e in w.drain_events() {
            let since = e.time_ms.saturating_sub(FAILURE_AT_MS);
            if noticed(&e.kind, victim) && r.noticed_ms.is_none() {
                r.noticed_ms = Some(since);
            }
            match &e.kind {
                EventKind::BecameLeader { broker, tp, .. }
                    if NodeId::Broker(*broker) != victim && waiting.remove(tp) =>
                {
                    r.moved += 1;
                }
                EventKind::ControllerElected { broker, .. }
                    if NodeId::Broker(*broker) != victim =>
                {
                    need_controller = false;
                }
                EventKind::QuorumStateChanged {
                    node: node @ NodeId::Controller(c),
                    state: QuorumRole::Leader,
                    ..
                } if *node != victim => {
                    writer = Some(*node);
                    if failure == Failure::ControllerDies {
                        new_leader = Some(*c);
                        unaware = brokers.clone();
                    }
                }
                EventKind::QuorumStateChanged {
                    node: NodeId::Broker(b),
                    state: QuorumRole::Follower,
                    leader,
                    ..
                } if new_leader.is_some() && *leader == new_leader => {
                    unaware.remove(b);
                    need_controller = !unaware.is_empty();
                }
                EventKind::MessageSent {
                    from, to, message, ..
                } => {
                    if let Some(api) = control_api(from, to, message) {
                        *r.messages.entry(api).or_default() += 1;
                    }
                    if matches!(to, NodeId::Broker(_)) {
                        r.partition_states += states_carried(message);
                    }
                }
                _ => {}
            }
            if shown(&e.kind, writer) {
                if r.shown.len() < MAX_SHOWN {
                    r.shown.push(e);
                } else {
                    r.not_shown += 1;
                }
            }
            if !nothing_to_do && waiting.is_empty() && !need_controller && r.recovered_ms.is_none()
            {
                r.recovered_ms = Some(since);
                done = true;
            }
        }
        if done {
            r.watched_ms = r.recovered_ms.unwrap_or(WATCH_MS);
            break;
        }
    }
    Ok(r)
}

/// The control plane acting on the failure.
fn noticed(k: &EventKind, victim: NodeId) -> bool {
    match k {
        EventKind::WatchFired { .. } | EventKind::ZkSessionExpired { .. } => true,
        EventKind::QuorumStateChanged { node, .. } => *node != victim,
        // The active controller fencing a broker.
        EventKind::MetadataAppended { node, records, .. } => {
            matches!(node, NodeId::Controller(_))
                && records.iter().any(|r| {
                    matches!(
                        r.record,
                        MetadataRecord::BrokerRegistrationChangeRecord { .. }
                    )
                })
        }
        _ => false,
    }
}

/// The events a comparison shows: the failure, what the control plane
/// noticed and decided (the quorum leader's appends, not its followers'
/// copies), and the brokers acting on it.
fn shown(k: &EventKind, writer: Option<NodeId>) -> bool {
    match k {
        EventKind::CommandIssued { .. }
        | EventKind::ZkSessionExpired { .. }
        | EventKind::ZnodeDeleted { .. }
        | EventKind::WatchFired { .. }
        | EventKind::ControllerElected { .. }
        | EventKind::ControllerLoaded { .. }
        | EventKind::BrokerChangeNoticed { .. }
        | EventKind::LeaderElected { .. }
        | EventKind::NoLeaderElected { .. }
        | EventKind::QuorumStateChanged { .. }
        | EventKind::BrokerLifecycleChanged { .. }
        | EventKind::BecameLeader { .. }
        | EventKind::IsrChangeApplied { .. } => true,
        EventKind::MetadataAppended { node, records, .. } => {
            Some(*node) == writer && records.iter().any(|r| meaningful(&r.record))
        }
        EventKind::MessageSent { message, .. } => matches!(
            &**message,
            Message::LeaderAndIsr { .. } | Message::UpdateMetadata { .. }
        ),
        _ => false,
    }
}

/// Records that change what a broker knows (not the quorum's own).
fn meaningful(r: &MetadataRecord) -> bool {
    !matches!(
        r,
        MetadataRecord::NoOpRecord | MetadataRecord::LeaderChange { .. }
    )
}

/// The request a control-plane message carrying the failure's news is,
/// or None. Left out in both modes: the data plane (produce, replica
/// fetches, clients) and the periodic traffic that flows with or without
/// a failure (KRaft's broker heartbeats and metadata fetches that bring
/// only NoOps; 3.9's ZooKeeper session pings are not messages here).
fn control_api(from: &NodeId, to: &NodeId, m: &Message) -> Option<&'static str> {
    let plane = |n: &NodeId| matches!(n, NodeId::Controller(_) | NodeId::ZooKeeper);
    match m {
        Message::BrokerHeartbeat { .. }
        | Message::BrokerHeartbeatResponse { .. }
        | Message::RaftFetch { .. } => None,
        Message::RaftFetchResponse { records, .. } => records
            .iter()
            .any(|r| !matches!(r.record, MetadataRecord::NoOpRecord))
            .then(|| m.api()),
        Message::LeaderAndIsr { .. }
        | Message::LeaderAndIsrResponse { .. }
        | Message::UpdateMetadata { .. }
        | Message::StopReplica { .. }
        | Message::AlterPartition { .. }
        | Message::AlterPartitionResponse { .. }
        | Message::ControlledShutdown { .. }
        | Message::ControlledShutdownResponse { .. } => Some(m.api()),
        _ => (plane(from) || plane(to)).then(|| m.api()),
    }
}

/// Partition states a message brings a broker.
fn states_carried(m: &Message) -> u64 {
    match m {
        Message::LeaderAndIsr { partitions, .. } => partitions.len() as u64,
        Message::UpdateMetadata { partitions, .. } => partitions.len() as u64,
        Message::RaftFetchResponse { records, .. } => records
            .iter()
            .filter(|r| {
                matches!(
                    r.record,
                    MetadataRecord::PartitionRecord { .. }
                        | MetadataRecord::PartitionChangeRecord { .. }
                )
            })
            .count() as u64,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bad_ones_are_named() {
        for f in Failure::ALL {
            assert_eq!(Failure::from_name(f.name()), Ok(f));
        }
        assert!(Failure::from_name("meteor")
            .unwrap_err()
            .contains("`meteor`"));
        let e = compare(
            Failure::LeaderDies,
            Size {
                brokers: 2,
                partitions: 6,
            },
            1,
        )
        .unwrap_err();
        assert!(e.contains("brokers: 2"), "{e}");
    }
}
