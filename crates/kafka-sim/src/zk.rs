//! ZooKeeper, as the ZooKeeper-era Kafka controller uses it (C1, C2).
//!
//! A tree of znodes the learner can look into:
//! * `/brokers/ids/<id>`: ephemeral, one per live broker (its session owns it);
//! * `/controller`: ephemeral, the broker that won the controller election;
//! * `/controller_epoch`: incremented by every new controller (fencing);
//! * `/brokers/topics/<t>`: a topic's replica assignment;
//! * `/brokers/topics/<t>/partitions/<p>/state`: leader, leader_epoch, isr,
//!   controller_epoch — written by the controller;
//! * `/config/topics/<t>`: topic-level config overrides.
//!
//! Sessions: a broker's session expires `zookeeper.session.timeout.ms` after
//! its last heartbeat (here: after it dies), deleting its ephemeral znodes.
//! Watches fire as notifications that travel to the watching broker with the
//! ZooKeeper link's latency.
//!
//! Simplified: one ZooKeeper server instead of an ensemble; a broker's reads
//! and writes take effect at once (Kafka's controller makes them synchronously),
//! only notifications travel; watches stay registered after firing (Kafka
//! re-registers them on every read, to the same effect).

use crate::collections::{SortedMap, SortedSet};
use crate::event::EventKind;
use crate::ids::{BrokerId, NodeId};
use crate::kernel::{Step, Timer};
use crate::msg::{Message, ZkChange};
use serde::{Deserialize, Serialize};

/// A znode: its data, version and owner.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Znode {
    /// The znode's data: JSON, as Kafka writes it.
    pub data: String,
    /// Its data version (one more per write).
    pub version: i32,
    /// The broker whose session owns this ephemeral znode.
    pub ephemeral_owner: Option<BrokerId>,
    /// That session's id (ephemeral znodes die with their session).
    pub session: Option<u64>,
    /// ZooKeeper transaction ids of creation and last modification.
    pub czxid: u64,
    /// The transaction id of its last change.
    pub mzxid: u64,
}

/// A broker's ZooKeeper session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    /// The session id.
    pub id: u64,
    /// The broker that opened it.
    pub broker: BrokerId,
    /// Whether it is still open (closed, or expired).
    pub open: bool,
}

/// The ZooKeeper ensemble as one node: its znodes, sessions and watches.
#[derive(Clone, Debug, Default)]
pub struct ZooKeeper {
    /// Every znode, by path.
    pub nodes: SortedMap<String, Znode>,
    /// Sessions by id (a restarted broker opens a new one; the old one lives
    /// on until it expires).
    pub sessions: SortedMap<u64, Session>,
    /// path → brokers watching it (data or children).
    pub watches: SortedMap<String, SortedSet<BrokerId>>,
    next_session: u64,
    zxid: u64,
    /// Changes to the tree so far (creates, sets and deletes).
    writes: u64,
}

impl ZooKeeper {
    /// How many times the tree has changed (a znode created, set or
    /// deleted): two states of one run with the same count hold the same
    /// znodes, so a view can keep what it read until the count moves.
    pub fn writes(&self) -> u64 {
        self.writes
    }

    /// The replicas of each partition of `topic`, from `/brokers/topics/<t>`.
    pub fn topic_assignment(&self, topic: &str) -> SortedMap<i32, Vec<BrokerId>> {
        let mut out = SortedMap::new();
        if let Some(v) = self.data_json(&format!("/brokers/topics/{topic}")) {
            if let Some(ps) = v.get("partitions").and_then(|p| p.as_object()) {
                for (k, reps) in ps {
                    if let (Ok(p), Some(arr)) = (k.parse::<i32>(), reps.as_array()) {
                        out.insert(
                            p,
                            arr.iter()
                                .filter_map(|x| x.as_i64())
                                .map(|x| BrokerId(x as i32))
                                .collect(),
                        );
                    }
                }
            }
        }
        out
    }

    /// The broker's newest open session.
    pub fn current_session(&self, b: BrokerId) -> Option<u64> {
        self.sessions
            .values()
            .filter(|s| s.broker == b && s.open)
            .map(|s| s.id)
            .max()
    }

    /// The znode at `path`.
    pub fn get(&self, path: &str) -> Option<&Znode> {
        self.nodes.get(path)
    }

    /// The znode's data parsed as JSON.
    pub fn data_json(&self, path: &str) -> Option<serde_json::Value> {
        self.nodes
            .get(path)
            .and_then(|n| serde_json::from_str(&n.data).ok())
    }

    /// Direct children names of `path`.
    pub fn children(&self, path: &str) -> Vec<String> {
        let prefix = format!("{path}/");
        self.nodes
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .filter_map(|(k, _)| {
                let rest = &k[prefix.len()..];
                (!rest.contains('/')).then(|| rest.to_string())
            })
            .collect()
    }

    /// The broker holding `/controller`, if any.
    pub fn controller_id(&self) -> Option<BrokerId> {
        self.data_json("/controller")
            .and_then(|v| v.get("brokerid").and_then(|b| b.as_i64()))
            .map(|b| BrokerId(b as i32))
    }

    /// `/controller_epoch` (0 before any controller).
    pub fn controller_epoch(&self) -> i32 {
        self.nodes
            .get("/controller_epoch")
            .and_then(|n| n.data.parse().ok())
            .unwrap_or(0)
    }

    /// Live broker ids, from `/brokers/ids`.
    pub fn live_brokers(&self) -> Vec<BrokerId> {
        let mut v: Vec<BrokerId> = self
            .children("/brokers/ids")
            .iter()
            .filter_map(|c| c.parse().ok().map(BrokerId))
            .collect();
        v.sort();
        v
    }

    /// Live brokers with their `broker.rack` as registered
    /// (`getAllBrokersInCluster`, in id order).
    pub fn live_broker_metadata(&self) -> Vec<crate::placement::BrokerMetadata> {
        self.live_brokers()
            .into_iter()
            .map(|id| crate::placement::BrokerMetadata {
                id,
                rack: self
                    .data_json(&format!("/brokers/ids/{}", id.0))
                    .and_then(|v| v.get("rack").and_then(|r| r.as_str()).map(str::to_string)),
            })
            .collect()
    }

    /// Live brokers with their broker epoch (the registration's czxid, KIP-380).
    pub fn live_broker_epochs(&self) -> SortedMap<BrokerId, u64> {
        self.live_brokers()
            .into_iter()
            .filter_map(|b| {
                self.nodes
                    .get(&format!("/brokers/ids/{}", b.0))
                    .map(|n| (b, n.czxid))
            })
            .collect()
    }

    /// Watchers interested in a change at `path`: watchers of the path itself
    /// (data) and of its parent (children).
    fn watchers(&self, path: &str) -> Vec<(BrokerId, String, ZkChange)> {
        let mut out = Vec::new();
        if let Some(ws) = self.watches.get(path) {
            for w in ws {
                out.push((*w, path.to_string(), ZkChange::DataChanged));
            }
        }
        if let Some((parent, _)) = path.rsplit_once('/') {
            if let Some(ws) = self.watches.get(parent) {
                for w in ws {
                    out.push((*w, parent.to_string(), ZkChange::ChildrenChanged));
                }
            }
        }
        out
    }

    /// Paths that exist, for the tree view.
    pub fn paths(&self) -> impl Iterator<Item = (&String, &Znode)> {
        self.nodes.iter()
    }
}

/// The partition state znode's JSON, exactly as Kafka writes it.
pub fn partition_state_json(
    leader: i32,
    leader_epoch: i32,
    isr: &[BrokerId],
    controller_epoch: i32,
) -> String {
    let isr: Vec<String> = isr.iter().map(|b| b.0.to_string()).collect();
    format!(
        "{{\"controller_epoch\":{controller_epoch},\"leader\":{leader},\"version\":1,\"leader_epoch\":{leader_epoch},\"isr\":[{}]}}",
        isr.join(",")
    )
}

/// A partition's state znode: `/brokers/topics/<t>/partitions/<p>/state`.
pub fn partition_state_path(topic: &str, partition: i32) -> String {
    format!("/brokers/topics/{topic}/partitions/{partition}/state")
}

/// ZooKeeper while one request to it is served: the kernel and the
/// ensemble's state. Brokers reach it through `BrokerCx::zkc`,
/// the world through [`World::zkc`] (a session expiring, a process dying).
pub(crate) struct ZkCx<'a> {
    pub(crate) k: &'a mut crate::kernel::Kernel,
    pub(crate) zk: &'a mut ZooKeeper,
}

impl ZkCx<'_> {
    fn next_zxid(&mut self) -> u64 {
        self.zk.writes += 1;
        self.zk.zxid += 1;
        self.zk.zxid
    }

    /// Queues watch notifications for a change at `path` (no event of their
    /// own: the change's event is the cause, and each delivery is shown).
    fn fire_watches(&mut self, path: &str, change: ZkChange) -> Step {
        for (w, wpath, kind) in self.zk.watchers(path) {
            let ch = if kind == ZkChange::ChildrenChanged {
                kind
            } else {
                change
            };
            self.k.send(
                NodeId::ZooKeeper,
                NodeId::Broker(w),
                Message::WatchNotification {
                    path: wpath,
                    change: ch,
                },
            )?;
        }
        Ok(())
    }

    pub(crate) fn open_session(&mut self, broker: BrokerId) -> Step<u64> {
        self.k.gate()?;
        self.zk.next_session += 1;
        let id = 0x1000_0000 + self.zk.next_session;
        self.zk.sessions.insert(
            id,
            Session {
                id,
                broker,
                open: true,
            },
        );
        self.k.emit(
            vec![NodeId::Broker(broker), NodeId::ZooKeeper],
            EventKind::ZkSessionOpened {
                broker,
                session_id: id,
            },
        );
        Ok(id)
    }

    /// Creates a znode; `Ok(false)` (and a `ZnodeExists` event) if it exists.
    pub(crate) fn create(
        &mut self,
        by: NodeId,
        path: &str,
        data: String,
        ephemeral: Option<BrokerId>,
    ) -> Step<bool> {
        self.k.gate()?;
        if let Some(existing) = self.zk.nodes.get(path) {
            let holder = existing.data.clone();
            self.k.emit(
                vec![by, NodeId::ZooKeeper],
                EventKind::ZnodeExists {
                    path: path.to_string(),
                    by,
                    holder,
                },
            );
            return Ok(false);
        }
        let z = self.next_zxid();
        let session = ephemeral.and_then(|b| self.zk.current_session(b));
        self.zk.nodes.insert(
            path.to_string(),
            Znode {
                data: data.clone(),
                version: 0,
                ephemeral_owner: ephemeral,
                session,
                czxid: z,
                mzxid: z,
            },
        );
        self.k.emit(
            vec![by, NodeId::ZooKeeper],
            EventKind::ZnodeCreated {
                path: path.to_string(),
                data,
                ephemeral_owner: ephemeral,
                by,
            },
        );
        self.fire_watches(path, ZkChange::Created)?;
        Ok(true)
    }

    /// Writes a znode (creating it if missing), returning its new version.
    pub(crate) fn set(&mut self, by: NodeId, path: &str, data: String) -> Step<i32> {
        if !self.zk.nodes.contains_key(path) {
            self.create(by, path, data, None)?;
            return Ok(0);
        }
        self.k.gate()?;
        let z = self.next_zxid();
        let n = self.zk.nodes.get_mut(path).expect("checked");
        n.data = data.clone();
        n.version += 1;
        n.mzxid = z;
        let version = n.version;
        self.k.emit(
            vec![by, NodeId::ZooKeeper],
            EventKind::ZnodeUpdated {
                path: path.to_string(),
                data,
                version,
                by,
            },
        );
        self.fire_watches(path, ZkChange::DataChanged)?;
        Ok(version)
    }

    pub(crate) fn delete(&mut self, by: NodeId, path: &str) -> Step {
        if !self.zk.nodes.contains_key(path) {
            return Ok(());
        }
        self.k.gate()?;
        self.zk.nodes.remove(path);
        self.zk.writes += 1;
        self.k.emit(
            vec![by, NodeId::ZooKeeper],
            EventKind::ZnodeDeleted {
                path: path.to_string(),
                by,
            },
        );
        self.fire_watches(path, ZkChange::Deleted)
    }

    /// Registers `broker`'s watch on `path` (no event: watches are bookkeeping).
    pub(crate) fn watch(&mut self, broker: BrokerId, path: &str) -> Step {
        self.k.gate()?;
        self.zk
            .watches
            .entry(path.to_string())
            .or_default()
            .insert(broker);
        Ok(())
    }

    /// A broker's process stopped: its session will expire unless it closed it.
    pub(crate) fn broker_died(&mut self, broker: BrokerId) -> Step {
        if let Some(id) = self.zk.current_session(broker) {
            let at = self.k.now + self.k.sc.cluster.config.zookeeper_session_timeout_ms;
            self.k.set_timer(
                NodeId::ZooKeeper,
                at,
                Timer::ZkSessionExpiry { session_id: id },
            )?;
        }
        Ok(())
    }

    /// A broker closes its current session (controlled shutdown).
    pub(crate) fn close_session(&mut self, broker: BrokerId, expired: bool) -> Step {
        match self.zk.current_session(broker) {
            Some(id) => self.end_session(id, expired),
            None => Ok(()),
        }
    }

    /// Ends a session and deletes its ephemeral znodes (expiry, or a clean close).
    fn end_session(&mut self, id: u64, expired: bool) -> Step {
        let Some(s) = self.zk.sessions.get(&id).filter(|s| s.open).cloned() else {
            return Ok(());
        };
        let broker = s.broker;
        self.k.gate()?;
        if let Some(x) = self.zk.sessions.get_mut(&id) {
            x.open = false;
        }
        if expired {
            self.k.emit(
                vec![NodeId::Broker(broker), NodeId::ZooKeeper],
                EventKind::ZkSessionExpired {
                    broker,
                    session_id: id,
                    timeout_ms: self.k.sc.cluster.config.zookeeper_session_timeout_ms,
                },
            );
        }
        let owned: Vec<String> = self
            .zk
            .nodes
            .iter()
            .filter(|(_, n)| n.session == Some(id))
            .map(|(k, _)| k.clone())
            .collect();
        for p in owned {
            self.delete(NodeId::ZooKeeper, &p)?;
        }
        // Watches belong to sessions; a broker with a newer session keeps its own.
        if self.zk.current_session(broker).is_none() {
            self.zk.watches.values_mut().for_each(|w| {
                w.remove(&broker);
            });
        }
        Ok(())
    }

    pub(crate) fn timer(&mut self, timer: Timer) -> Step {
        if let Timer::ZkSessionExpiry { session_id } = timer {
            return self.end_session(session_id, true);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_state_json_matches_kafka() {
        assert_eq!(
            partition_state_json(1, 0, &[BrokerId(1), BrokerId(0), BrokerId(2)], 1),
            r#"{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1,0,2]}"#
        );
    }

    #[test]
    fn children_lists_direct_children_only() {
        let mut z = ZooKeeper::default();
        for p in [
            "/brokers/ids/0",
            "/brokers/ids/1",
            "/brokers/topics/t",
            "/brokers/topics/t/partitions/0/state",
        ] {
            z.nodes.insert(
                p.to_string(),
                Znode {
                    data: "{}".into(),
                    version: 0,
                    ephemeral_owner: None,
                    session: None,
                    czxid: 0,
                    mzxid: 0,
                },
            );
        }
        assert_eq!(z.children("/brokers/ids"), vec!["0", "1"]);
        assert_eq!(z.children("/brokers/topics"), vec!["t"]);
        assert_eq!(z.live_brokers(), vec![BrokerId(0), BrokerId(1)]);
    }
}
