//! What the cluster view draws, read off the engine's world. Layout only: no
//! Kafka behaviour is computed here, every number comes from the engine.

use kafka_sim::ids::{BrokerId, NodeId};
use kafka_sim::msg::Message;
use kafka_sim::sim::Work;
use kafka_sim::World;
use std::rc::Rc;
use std::sync::{Arc, Weak};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaView {
    pub tp: String,
    pub leader: bool,
    pub in_isr: bool,
    pub log_start: i64,
    pub leo: i64,
    pub hw: i64,
    pub leader_epoch: i32,
    /// The log's leader epochs: (epoch, first offset), from its leader
    /// epoch cache (`leader-epoch-checkpoint`). Offset `o` was written in
    /// the last epoch starting at or before it.
    pub epochs: Vec<(i32, i64)>,
    /// Offsets the latest truncation removed and the log has not written
    /// again yet: `[from, to)` (drawn as struck-out cells).
    pub truncated: Option<(i64, i64)>,
    /// `in_isr` is the partition's ISR as its leader holds it (as the
    /// controller wrote it in ZooKeeper while no leader is alive); this
    /// live broker's own copy says otherwise: it has not heard yet.
    pub own_view_lags: bool,
    /// Kafka 4.1: an eligible leader replica (KIP-966) in the active
    /// controller's metadata.
    pub in_elr: bool,
}

impl ReplicaView {
    /// The leader epoch offset `o` was written in (None: before any known).
    pub fn epoch_of(&self, o: i64) -> Option<i32> {
        self.epochs
            .iter()
            .rev()
            .find(|(_, start)| *start <= o)
            .map(|(e, _)| *e)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokerView {
    pub id: i32,
    pub alive: bool,
    /// Has it ever started (incarnation > 0)?
    pub started: bool,
    pub controller: bool,
    /// Its `broker.rack`, if the scenario gives one.
    pub rack: Option<String>,
    /// Shared with the [`ClusterCache`] while the broker is unchanged.
    pub replicas: Rc<Vec<ReplicaView>>,
    /// Kafka 4.1: its lifecycle and whether the active controller has it fenced.
    pub lifecycle: Option<LifecycleView>,
}

/// Kafka 4.1: a broker's side of KRaft as drawn in its box.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LifecycleView {
    /// STARTING, RECOVERY, RUNNING (None: not registered yet).
    pub state: Option<kafka_sim::event::BrokerLifecycle>,
    /// Its broker epoch (-1: not registered).
    pub broker_epoch: i64,
    /// Fenced in the active controller's metadata (None: no active
    /// controller, or not registered there).
    pub fenced: Option<bool>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MessageView {
    pub id: u64,
    pub from: NodeId,
    pub to: NodeId,
    pub api: &'static str,
    /// The name drawn beside its dot: the API, or PreVote / PreVoteResponse
    /// for the pre-vote of KIP-996 (the Vote API with `PreVote` set).
    pub name: &'static str,
    pub summary: String,
    /// 0.0 just sent … 1.0 arriving (display only).
    pub progress_permille: u32,
    pub sent_ms: u64,
    pub arrives_ms: u64,
}

/// The name drawn beside a message's dot.
fn drawn_name(msg: &Message) -> &'static str {
    match msg {
        Message::Vote { pre_vote: true, .. } => "PreVote",
        Message::VoteResponse { pre_vote: true, .. } => "PreVoteResponse",
        m => m.api(),
    }
}

/// The message the learner clicked, in full.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageDetail {
    pub id: u64,
    pub from: NodeId,
    pub to: NodeId,
    pub api: &'static str,
    pub summary: String,
    pub sent_ms: u64,
    pub arrives_ms: u64,
    /// The request or response as the engine holds it (JSON; bytes as hex).
    pub json: String,
}

/// Characters of a message's JSON shown at most.
pub const DETAIL_CHARS: usize = 4_000;

/// The most messages in flight the cluster drawing shows (those arriving
/// first). At 1,600 consumers tens of thousands are in flight at once: one
/// dot each, with its labels and handlers, took the page over a second a
/// step, and no one can read them. The rest are counted. 400 rather than
/// 1,000 since issue 46: a jump on the timeline redraws every dot, and 400
/// of them look as crowded as 1,000.
pub const MAX_DRAWN_MESSAGES: usize = 400;

#[derive(Clone, Debug, PartialEq)]
pub struct ClusterModel {
    pub brokers: Vec<BrokerView>,
    /// (name, not closed).
    pub producers: Vec<(String, bool)>,
    pub consumers: Vec<(String, bool)>,
    /// The messages in flight drawn: the first [`MAX_DRAWN_MESSAGES`] to
    /// arrive, and the selected one.
    pub messages: Vec<MessageView>,
    /// The messages in flight not drawn (beyond [`MAX_DRAWN_MESSAGES`]).
    pub undrawn: usize,
    pub max_leo: i64,
    pub controller_epoch: i32,
    pub cut_links: Vec<(NodeId, NodeId)>,
    /// The slow links that are not cut: (a, b, extra one-way latency in ms).
    pub slow_links: Vec<(NodeId, NodeId, u64)>,
    /// The selected message, while it is in flight.
    pub detail: Option<MessageDetail>,
    /// Kafka 4.1: the controller quorum (None in 3.9, where ZooKeeper is drawn).
    pub quorum: Option<QuorumView>,
}

/// Kafka 4.1: the KRaft controller quorum as drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct QuorumView {
    /// The voters, by `node.id`.
    pub controllers: Vec<ControllerView>,
    /// The active controller (the quorum leader), if one leads.
    pub leader: Option<i32>,
    /// The highest epoch any voter is in.
    pub epoch: i32,
    /// The quorum high watermark: the leader's (-1: unknown, or no leader).
    pub high_watermark: i64,
}

/// One voter of the quorum.
#[derive(Clone, Debug, PartialEq)]
pub struct ControllerView {
    pub id: i32,
    pub alive: bool,
    pub role: kafka_sim::event::QuorumRole,
    pub epoch: i32,
    /// Its metadata log's end offset, and its high watermark (-1: unknown).
    pub leo: i64,
    pub hw: i64,
    /// The voter it voted for in its epoch.
    pub voted_for: Option<i32>,
}

impl QuorumView {
    /// The quorum of a 4.1 world (None in 3.9).
    pub fn of(w: &World) -> Option<QuorumView> {
        if w.controllers().is_empty() {
            return None;
        }
        let controllers: Vec<ControllerView> = w
            .controllers()
            .values()
            .map(|c| ControllerView {
                id: c.id,
                alive: c.alive,
                role: c.raft.role.name(),
                epoch: c.raft.epoch,
                leo: c.raft.log_end_offset(),
                hw: c.raft.high_watermark,
                voted_for: c.raft.voted_for,
            })
            .collect();
        let leader = w.active_controller();
        let high_watermark = leader
            .and_then(|l| controllers.iter().find(|c| c.id == l))
            .map_or(-1, |c| c.hw);
        Some(QuorumView {
            epoch: controllers.iter().map(|c| c.epoch).max().unwrap_or(0),
            controllers,
            leader,
            high_watermark,
        })
    }
}

impl ClusterModel {
    /// `selected`: the message whose details are shown (if still in flight).
    pub fn from_world(
        w: &World,
        now_ms: u64,
        sent_at: impl Fn(u64) -> Option<u64>,
        selected: Option<u64>,
    ) -> ClusterModel {
        Self::from_world_cached(w, now_ms, sent_at, selected, &mut ClusterCache::default())
    }

    /// [`ClusterModel::from_world`], reusing what `cache` kept from the
    /// previous render (the page keeps one per player).
    pub fn from_world_cached(
        w: &World,
        now_ms: u64,
        sent_at: impl Fn(u64) -> Option<u64>,
        selected: Option<u64>,
        cache: &mut ClusterCache,
    ) -> ClusterModel {
        Self::from_world_drawing(w, now_ms, sent_at, selected, MAX_DRAWN_MESSAGES, cache)
    }

    /// [`ClusterModel::from_world_cached`], drawing at most `max_drawn` messages.
    fn from_world_drawing(
        w: &World,
        now_ms: u64,
        sent_at: impl Fn(u64) -> Option<u64>,
        selected: Option<u64>,
        max_drawn: usize,
        cache: &mut ClusterCache,
    ) -> ClusterModel {
        let mut detail = None;
        let controller = w.controller_id();
        let mut max_leo = 1;
        let isr = leaders_isr(w);
        let active = w.active_controller().map(|c| &w.controllers()[&c]);
        let brokers = w
            .brokers()
            .iter()
            .map(|(id, b)| {
                let (replicas, leo) = cache.replicas(*id, b);
                let replicas = as_the_leader_holds_it(w, &isr, b, replicas);
                max_leo = max_leo.max(leo);
                BrokerView {
                    id: b.id.0,
                    alive: b.alive,
                    started: b.incarnation > 0,
                    controller: b.alive && Some(b.id) == controller && b.controller.is_some(),
                    rack: w.scenario().cluster.broker_rack.get(&b.id.0).cloned(),
                    replicas,
                    lifecycle: b.kraft.as_ref().map(|k| LifecycleView {
                        state: k.state,
                        broker_epoch: k.broker_epoch,
                        fenced: active
                            .and_then(|c| c.image.brokers.get(&b.id.0))
                            .map(|r| r.fenced),
                    }),
                }
            })
            .collect();
        // The first `max_drawn` messages on the wire, and the selected one
        // wherever it is: the queue holds hundreds of thousands of items at
        // scale, so the walk stops there and the rest are counted.
        let mut messages: Vec<MessageView> = Vec::new();
        let mut found_selected = selected.is_none();
        for (at, work) in w.pending() {
            if messages.len() >= max_drawn && found_selected {
                break;
            }
            let Work::Deliver {
                id,
                from,
                to,
                msg,
                sent,
                ..
            } = work
            else {
                continue;
            };
            if messages.len() >= max_drawn && selected != Some(*id) {
                continue;
            }
            let t0 = sent_at(*sent).unwrap_or(now_ms);
            let span = at.saturating_sub(t0).max(1);
            let done = now_ms.saturating_sub(t0).min(span);
            if selected == Some(*id) {
                found_selected = true;
                let mut json = serde_json::to_string_pretty(msg).unwrap_or_default();
                if json.len() > DETAIL_CHARS {
                    let cut = (0..=DETAIL_CHARS)
                        .rev()
                        .find(|&i| json.is_char_boundary(i))
                        .unwrap_or(0);
                    json.truncate(cut);
                    json.push_str(" …");
                }
                detail = Some(MessageDetail {
                    id: *id,
                    from: *from,
                    to: *to,
                    api: msg.api(),
                    summary: summary(msg),
                    sent_ms: t0,
                    arrives_ms: at,
                    json,
                });
            }
            messages.push(MessageView {
                id: *id,
                from: *from,
                to: *to,
                api: msg.api(),
                name: drawn_name(msg),
                summary: cache.summary(*id, msg),
                progress_permille: (done * 1000 / span) as u32,
                sent_ms: t0,
                arrives_ms: at,
            });
        }
        let undrawn = w.messages_in_flight() - messages.len();
        cache.forget_delivered(&messages);
        ClusterModel {
            brokers,
            producers: w
                .producers()
                .iter()
                .map(|p| (p.name.clone(), !p.closed))
                .collect(),
            consumers: w
                .consumers()
                .iter()
                .map(|c| (c.name.clone(), c.alive))
                .collect(),
            messages,
            undrawn,
            max_leo,
            controller_epoch: w.zookeeper().controller_epoch(),
            cut_links: w.network().cut.iter().copied().collect(),
            slow_links: w
                .network()
                .extra
                .iter()
                .filter(|(k, e)| **e > 0 && !w.network().cut.contains(*k))
                .map(|(&(a, b), &e)| (a, b, e))
                .collect(),
            detail,
            quorum: QuorumView::of(w),
        }
    }

    pub fn broker(&self, id: BrokerId) -> Option<&BrokerView> {
        self.brokers.iter().find(|b| b.id == id.0)
    }
}

fn summary(m: &Message) -> String {
    m.summary()
}

/// What the cluster model keeps from one render to the next: a step changes
/// a few of a hundred brokers and sends a few messages, and reading every
/// replica and summing up every message in flight again cost more than the
/// step.
#[derive(Default)]
pub struct ClusterCache {
    /// Each broker's replica rows and their largest log end offset, with
    /// the broker they were read from. A `Weak` keeps that allocation from
    /// being reused, so the same address is the same, unchanged broker (the
    /// engine copies a broker it changes, or moves it out of an allocation
    /// a `Weak` still points at: `Arc::make_mut`).
    brokers: kafka_sim::collections::SortedMap<BrokerId, ReadBroker>,
    /// The summaries of the messages drawn, by message id (a message in
    /// flight never changes).
    summaries: std::collections::BTreeMap<u64, String>,
}

impl ClusterCache {
    /// Broker `id`'s replica rows (user topics, in natural order) and its
    /// largest log end offset.
    fn replicas(
        &mut self,
        id: BrokerId,
        b: &Arc<kafka_sim::broker::Broker>,
    ) -> (Rc<Vec<ReplicaView>>, i64) {
        if let Some((seen, rows, leo)) = self.brokers.get(&id) {
            if std::ptr::eq(seen.as_ptr(), Arc::as_ptr(b)) {
                return (rows.clone(), *leo);
            }
        }
        let rows = Rc::new(replica_rows(b));
        let leo = rows.iter().map(|r| r.leo).max().unwrap_or(0);
        self.brokers
            .insert(id, (Arc::downgrade(b), rows.clone(), leo));
        (rows, leo)
    }

    fn summary(&mut self, id: u64, msg: &Message) -> String {
        self.summaries
            .entry(id)
            .or_insert_with(|| summary(msg))
            .clone()
    }

    /// Keeps only the summaries of the messages drawn now.
    fn forget_delivered(&mut self, drawn: &[MessageView]) {
        if self.summaries.len() > drawn.len() {
            let ids: kafka_sim::collections::SortedSet<u64> = drawn.iter().map(|m| m.id).collect();
            self.summaries.retain(|id, _| ids.contains(id));
        }
    }
}

/// A broker as [`ClusterCache`] read it: the broker, its replica rows and
/// their largest log end offset.
type ReadBroker = (Weak<kafka_sim::broker::Broker>, Rc<Vec<ReplicaView>>, i64);

/// Each partition's ISR as its live leader holds it (the leader with the
/// highest leader epoch, should an old one still think it leads), by
/// partition name. Kafka's ISR is the leader's: it shrinks and expands it
/// (AlterPartition); the followers' copies arrive later, by LeaderAndIsr.
fn leaders_isr(w: &World) -> std::collections::BTreeMap<String, (i32, Vec<i32>)> {
    let mut isr: std::collections::BTreeMap<String, (i32, Vec<i32>)> = Default::default();
    for b in w.brokers().values().filter(|b| b.alive) {
        for (tp, p) in b.partitions.iter().filter(|(_, p)| p.is_leader) {
            if tp.topic.starts_with("__") {
                continue;
            }
            let e = isr.entry(tp.to_string()).or_insert((i32::MIN, Vec::new()));
            if p.leader_epoch > e.0 {
                *e = (p.leader_epoch, p.isr.iter().map(|b| b.0).collect());
            }
        }
    }
    isr
}

/// Broker `b`'s replica rows with `in_isr` as the leader holds it (as the
/// controller's partition state in ZooKeeper, or in KRaft the active
/// controller's metadata, has it while no leader is alive), marking where
/// the broker's own copy lags. The cached rows are kept when nothing
/// differs (the usual case).
fn as_the_leader_holds_it(
    w: &World,
    leaders: &std::collections::BTreeMap<String, (i32, Vec<i32>)>,
    b: &kafka_sim::broker::Broker,
    rows: Rc<Vec<ReplicaView>>,
) -> Rc<Vec<ReplicaView>> {
    let id = b.id.0;
    let held = |r: &ReplicaView| -> Option<bool> {
        if r.leader {
            return None;
        }
        if let Some((_, isr)) = leaders.get(&r.tp) {
            return Some(isr.contains(&id));
        }
        let (topic, p) = r.tp.rsplit_once('-')?;
        if let Some(c) = w.active_controller() {
            // KRaft: the partition as the active controller's metadata has it.
            let tp = kafka_sim::ids::TopicPartition::new(topic, p.parse().ok()?);
            let reg = w.controllers().get(&c)?.image.partition(&tp)?;
            return Some(reg.isr.contains(&id));
        }
        let state = w
            .zookeeper()
            .data_json(&kafka_sim::zk::partition_state_path(topic, p.parse().ok()?))?;
        Some(
            state["isr"]
                .as_array()?
                .iter()
                .any(|x| x.as_i64() == Some(id as i64)),
        )
    };
    // KRaft: the eligible leader replicas, as the active controller's
    // metadata has them.
    let elr = |r: &ReplicaView| -> bool {
        let Some(c) = w.active_controller() else {
            return false;
        };
        let Some((topic, p)) = r.tp.rsplit_once('-') else {
            return false;
        };
        let Ok(p) = p.parse() else { return false };
        let tp = kafka_sim::ids::TopicPartition::new(topic, p);
        w.controllers()
            .get(&c)
            .and_then(|c| c.image.partition(&tp))
            .is_some_and(|reg| reg.elr.contains(&id))
    };
    let fixes: Vec<(usize, Option<bool>, bool)> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let isr = held(r).filter(|h| *h != r.in_isr);
            let e = elr(r);
            (isr.is_some() || e != r.in_elr).then_some((i, isr, e))
        })
        .collect();
    if fixes.is_empty() {
        return rows;
    }
    let mut rows = (*rows).clone();
    for (i, isr, e) in fixes {
        if let Some(h) = isr {
            rows[i].in_isr = h;
            rows[i].own_view_lags = b.alive;
        }
        rows[i].in_elr = e;
    }
    Rc::new(rows)
}

/// A broker's replicas of user topics, in natural order.
fn replica_rows(b: &kafka_sim::broker::Broker) -> Vec<ReplicaView> {
    let mut replicas: Vec<ReplicaView> = b
        .logs
        .iter()
        .filter(|(tp, _)| !tp.topic.starts_with("__"))
        .map(|(tp, log)| {
            let p = b.partitions.get(tp);
            ReplicaView {
                tp: tp.to_string(),
                leader: b.alive && p.is_some_and(|p| p.is_leader),
                in_isr: p.is_some_and(|p| p.isr.contains(&b.id)),
                log_start: log.log_start_offset,
                leo: log.log_end_offset,
                hw: p
                    .map(|p| p.high_watermark)
                    .unwrap_or_else(|| b.hw_checkpoint.get(tp).copied().unwrap_or(0)),
                leader_epoch: p.map(|p| p.leader_epoch).unwrap_or(-1),
                epochs: log
                    .epochs
                    .iter()
                    .map(|e| (e.epoch, e.start_offset))
                    .collect(),
                truncated: None,
                own_view_lags: false,
                in_elr: false,
            }
        })
        .collect();
    replicas.sort_by(|a, b| natural_cmp(&a.tp, &b.tp));
    replicas
}

/// Kafka 4.1: the `__cluster_metadata-0` log of the quorum leader (or of
/// the controller that holds the most, while none leads), where 3.9 shows
/// the ZooKeeper tree.
#[derive(Clone, Debug, PartialEq)]
pub struct MetadataLogView {
    /// Whose log it is.
    pub controller: i32,
    /// Whether that controller leads the quorum now.
    pub leader: bool,
    pub leo: i64,
    /// Its high watermark (-1: unknown).
    pub hw: i64,
    /// The last records, oldest first.
    pub rows: Vec<MetadataRow>,
    /// Records before the first row, not listed.
    pub hidden: i64,
}

/// One record of the metadata log.
#[derive(Clone, Debug, PartialEq)]
pub struct MetadataRow {
    pub offset: i64,
    pub epoch: i32,
    pub text: String,
    /// Below the high watermark: committed.
    pub committed: bool,
    /// Written or fetched by the event at the cursor.
    pub changed: bool,
    /// `kafka-dump-log --cluster-metadata-decoder`'s payload (the row's title).
    pub dump: String,
}

/// Records of the metadata log listed at most (the newest).
pub const METADATA_ROWS: usize = 40;

/// The metadata log at the cursor (None in a 3.9 world). `changed`: the
/// offsets the current event appended.
pub fn metadata_log(w: &World, changed: &[i64], lang: kafka_sim::Lang) -> Option<MetadataLogView> {
    let c = w.controllers().values().max_by_key(|c| {
        (
            c.alive && c.raft.is_leader(),
            c.alive,
            c.raft.log_end_offset(),
            -c.id,
        )
    })?;
    let log = &c.raft.log;
    let from = log.len().saturating_sub(METADATA_ROWS);
    let hw = c.raft.high_watermark;
    // Committed: a majority held it (the quorum's ledger), which a new
    // leader knows only once its own high watermark moves.
    let committed = &w.ledger().quorum.committed;
    Some(MetadataLogView {
        controller: c.id,
        leader: c.alive && c.raft.is_leader(),
        leo: c.raft.log_end_offset(),
        hw,
        hidden: from as i64,
        rows: log[from..]
            .iter()
            .map(|e| MetadataRow {
                offset: e.offset,
                epoch: e.epoch,
                text: kafka_sim::caption::record_text(&e.record, lang),
                committed: committed.get(e.offset as usize) == Some(e),
                changed: changed.contains(&e.offset),
                dump: e.record.dump(),
            })
            .collect(),
    })
}

/// One row of the ZooKeeper tree.
#[derive(Clone, Debug, PartialEq)]
pub struct ZnodeRow {
    pub depth: u32,
    /// The last path segment (`state`), or a summary (`… 12 more`).
    pub name: String,
    pub path: String,
    /// The data, shortened for the row (the full data is the row's title).
    pub data: String,
    pub full_data: String,
    pub version: i32,
    /// The broker whose session owns this ephemeral znode.
    pub ephemeral_owner: Option<i32>,
    /// Written by the event at the cursor.
    pub changed: bool,
    /// A summary of hidden children.
    pub more: bool,
}

/// Children shown per znode; the rest are counted in one row, so a large
/// cluster's thousands of partition znodes stay readable.
pub const ZK_CHILDREN_SHOWN: usize = 6;

/// The ZooKeeper tree at the cursor, depth first, `changed` marking the
/// znode the current event wrote (and the path down to it kept visible).
pub fn zk_rows(w: &World, changed: Option<&str>) -> Vec<ZnodeRow> {
    let zk = w.zookeeper();
    let mut rows = Vec::new();
    /// The names directly below `path`, from the znodes under it (parents
    /// that hold no data of their own still show). One scan of the sorted
    /// znode map, names borrowed: a render of a large cluster stays cheap.
    fn child_names<'a>(zk: &'a kafka_sim::zk::ZooKeeper, path: &str) -> Vec<&'a str> {
        let prefix = if path == "/" {
            "/".to_string()
        } else {
            format!("{path}/")
        };
        let mut names: Vec<&str> = zk
            .nodes
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .filter_map(|(k, _)| k[prefix.len()..].split('/').next())
            .filter(|s| !s.is_empty())
            .collect();
        // The keys are sorted, so their first segments nearly are: a
        // sibling such as `a-b` sorts before `a/x` but after `a`. Sort only
        // when that happens (a large cluster's thousand partitions never do).
        names.dedup();
        if !names.is_sorted() {
            names.sort();
            names.dedup();
        }
        names
    }
    fn walk(
        zk: &kafka_sim::zk::ZooKeeper,
        path: &str,
        depth: u32,
        changed: Option<&str>,
        rows: &mut Vec<ZnodeRow>,
    ) {
        let children = child_names(zk, path);
        // Is the znode just written `c` or below it? (No allocation: this
        // runs for every child of a large parent.)
        let base = if path == "/" { "" } else { path };
        let on_changed_path = |c: &str| {
            changed
                .and_then(|p| p.strip_prefix(base))
                .and_then(|r| r.strip_prefix('/'))
                .and_then(|r| r.strip_prefix(c))
                .is_some_and(|r| r.is_empty() || r.starts_with('/'))
        };
        let shown: Vec<&str> = children
            .iter()
            .enumerate()
            .filter(|(i, c)| *i < ZK_CHILDREN_SHOWN || on_changed_path(c))
            .map(|(_, c)| *c)
            .collect();
        for c in &shown {
            let p = child_path(path, c);
            let node = zk.get(&p);
            let data = node.map(|n| n.data.clone()).unwrap_or_default();
            rows.push(ZnodeRow {
                depth,
                name: c.to_string(),
                path: p.clone(),
                data: short(&data, 90),
                full_data: data,
                version: node.map(|n| n.version).unwrap_or(0),
                ephemeral_owner: node.and_then(|n| n.ephemeral_owner).map(|b| b.0),
                changed: changed == Some(p.as_str()),
                more: false,
            });
            walk(zk, &p, depth + 1, changed, rows);
        }
        let hidden = children.len() - shown.len();
        if hidden > 0 {
            rows.push(ZnodeRow {
                depth,
                name: format!("… {hidden} more"),
                path: format!("{path}/…"),
                data: String::new(),
                full_data: String::new(),
                version: 0,
                ephemeral_owner: None,
                changed: false,
                more: true,
            });
        }
    }
    walk(zk, "/", 0, changed, &mut rows);
    rows
}

fn child_path(parent: &str, child: &str) -> String {
    if parent == "/" {
        format!("/{child}")
    } else {
        format!("{parent}/{child}")
    }
}

fn short(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max).collect();
        out.push('…');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kafka_sim::{Scenario, Timeline};

    /// A pre-vote is drawn as PreVote (KIP-996), the vote as Vote.
    #[test]
    fn a_pre_vote_is_named_as_such_beside_its_dot() {
        let vote = |pre_vote| Message::Vote {
            correlation_id: 0,
            epoch: 0,
            candidate: 3001,
            last_epoch: 0,
            last_offset: 0,
            pre_vote,
        };
        let answer = |pre_vote| Message::VoteResponse {
            correlation_id: 0,
            error: None,
            epoch: 0,
            leader: -1,
            granted: true,
            pre_vote,
        };
        assert_eq!(drawn_name(&vote(true)), "PreVote");
        assert_eq!(drawn_name(&vote(false)), "Vote");
        assert_eq!(drawn_name(&answer(true)), "PreVoteResponse");
        assert_eq!(drawn_name(&answer(false)), "VoteResponse");
    }

    /// Every follower's badge says what the partition's live leader holds
    /// (else what the controller wrote in ZooKeeper), at every step of the
    /// lessons where the ISR shrinks and a leader dies, read independently
    /// here; and the broker's own copy lagging is marked (it does lag, at
    /// some steps, in these runs).
    #[test]
    fn the_isr_is_drawn_as_the_leader_holds_it_and_a_lagging_copy_is_marked() {
        let mut lagged = 0;
        for text in [
            include_str!("../../static/lessons/replication-isr-hw.json"),
            include_str!("../../static/lessons/leader-failure-hw.json"),
            include_str!("../../static/lessons/follower-failure-hw.json"),
        ] {
            let mut p = crate::player::Player::from_json(text).unwrap();
            let mut cache = ClusterCache::default();
            while p.step() {
                let w = p.world();
                let m = ClusterModel::from_world_cached(w, p.time_ms(), |_| None, None, &mut cache);
                for b in &m.brokers {
                    let own = &w.brokers()[&BrokerId(b.id)];
                    for r in b.replicas.iter().filter(|r| !r.leader) {
                        let leader = w.brokers().values().filter(|x| x.alive).find_map(|x| {
                            x.partitions
                                .iter()
                                .find(|(tp, q)| q.is_leader && tp.to_string() == r.tp)
                                .map(|(_, q)| q.isr.contains(&own.id))
                        });
                        let (topic, n) = r.tp.rsplit_once('-').unwrap();
                        let zk = w
                            .zookeeper()
                            .data_json(&kafka_sim::zk::partition_state_path(
                                topic,
                                n.parse().unwrap(),
                            ))
                            .map(|s| {
                                s["isr"]
                                    .as_array()
                                    .unwrap()
                                    .iter()
                                    .any(|x| x.as_i64() == Some(b.id as i64))
                            });
                        let mine = own
                            .partitions
                            .iter()
                            .find(|(tp, _)| tp.to_string() == r.tp)
                            .is_some_and(|(_, q)| q.isr.contains(&own.id));
                        let want = leader.or(zk).unwrap_or(mine);
                        assert_eq!(
                            r.in_isr,
                            want,
                            "{} on broker {} at {}",
                            r.tp,
                            b.id,
                            p.cursor()
                        );
                        assert_eq!(
                            r.own_view_lags,
                            own.alive && mine != want,
                            "{} on {}",
                            r.tp,
                            b.id
                        );
                        lagged += usize::from(r.own_view_lags);
                    }
                }
            }
        }
        assert!(
            lagged > 0,
            "no broker's copy ever lagged: the mark is untested"
        );
    }

    #[test]
    fn a_clicked_message_shows_what_it_carries_while_in_flight() {
        let mut t = Timeline::new(
            Scenario::from_json(include_str!("../../scenarios/leader-failover.json")).unwrap(),
        )
        .unwrap();
        // The producer sends its Produce request at 120 ms (delivered at 125 ms).
        t.run_to_end();
        let sent = t
            .events()
            .iter()
            .position(|e| {
                matches!(&e.kind, kafka_sim::event::EventKind::MessageSent { message, .. }
                    if matches!(**message, Message::Produce { .. }))
            })
            .expect("the producer sends a Produce request") as u64;
        let w = t.state_at(sent + 1);
        let times = |i: u64| t.event(i).map(|e| e.time_ms);
        let m = ClusterModel::from_world(&w, 120, times, None);
        let produce = m
            .messages
            .iter()
            .find(|x| x.api == "Produce")
            .expect("the Produce request is in flight");
        assert_eq!((produce.sent_ms, produce.arrives_ms), (120, 125));
        assert_eq!(produce.progress_permille, 0);
        assert!(m.detail.is_none(), "nothing selected");
        let id = produce.id;
        let m = ClusterModel::from_world(&w, 120, times, Some(id));
        let d = m.detail.expect("the selected message's details");
        assert_eq!((d.id, d.api, d.arrives_ms), (id, "Produce", 125));
        assert!(d.json.contains("\"acks\": -1"), "{}", d.json);
        assert!(d.json.contains("\"correlation_id\": 6"), "{}", d.json);
        // The record batch bytes, as hex: value "hello" is 68656c6c6f.
        assert!(d.json.contains("68656c6c6f"), "{}", d.json);
        // Once delivered, there is nothing to show.
        let later = t.state_at(200);
        let m =
            ClusterModel::from_world(&later, 6_600, |i| t.event(i).map(|e| e.time_ms), Some(id));
        assert!(m.detail.is_none());
    }

    /// Beyond the cap, the messages arriving first are drawn and the rest
    /// counted; a selected message is drawn wherever it is in the queue.
    #[test]
    fn the_drawing_caps_the_messages_in_flight_and_counts_the_rest() {
        let mut t = Timeline::new(
            Scenario::from_json(include_str!("../../scenarios/leader-failover.json")).unwrap(),
        )
        .unwrap();
        t.run_to_end();
        let on_wire = |w: &kafka_sim::World| {
            w.pending()
                .filter(|(_, x)| matches!(x, Work::Deliver { .. }))
                .count()
        };
        // The count the queue keeps is the count of its deliveries.
        for n in 0..t.len() {
            let w = t.state_at(n);
            assert_eq!(w.messages_in_flight(), on_wire(&w), "after {n} events");
        }
        let n = (0..t.len())
            .find(|&n| on_wire(&t.state_at(n)) >= 3)
            .expect("a moment with three messages in flight");
        let w = t.state_at(n);
        let times = |i: u64| t.event(i).map(|e| e.time_ms);
        let all = ClusterModel::from_world(&w, 120, times, None);
        assert!(all.messages.len() >= 3, "{} in flight", all.messages.len());
        assert_eq!(all.undrawn, 0);
        let m =
            ClusterModel::from_world_drawing(&w, 120, times, None, 2, &mut ClusterCache::default());
        let ids = |m: &ClusterModel| m.messages.iter().map(|x| x.id).collect::<Vec<_>>();
        assert_eq!(ids(&m), ids(&all)[..2]);
        assert_eq!(m.undrawn, all.messages.len() - 2);
        let last = *ids(&all).last().unwrap();
        let m = ClusterModel::from_world_drawing(
            &w,
            120,
            times,
            Some(last),
            2,
            &mut ClusterCache::default(),
        );
        assert_eq!(ids(&m), [ids(&all)[0], ids(&all)[1], last]);
        assert_eq!(m.undrawn, all.messages.len() - 3);
        assert_eq!(m.detail.map(|d| d.id), Some(last));
    }

    /// A model built with what the last render kept is the model built
    /// afresh: at every step of a failover and a rebalance (brokers dying,
    /// restarting, truncating), and after jumps back and forth.
    #[test]
    fn a_model_built_from_the_cache_is_the_model_built_afresh() {
        for text in [
            include_str!("../../scenarios/leader-failover.json"),
            include_str!("../../scenarios/hw-truncation.json"),
            include_str!("../../scenarios/group-rebalance.json"),
        ] {
            let mut p = crate::player::Player::from_json(text).unwrap();
            let mut cache = ClusterCache::default();
            let mut moves: Vec<u64> = Vec::new();
            let mut x = 7u64;
            let mut reused = 0;
            loop {
                let times = |i: u64| p.event(i).map(|e| e.time_ms);
                let mut fresh = ClusterModel::from_world(p.world(), p.time_ms(), times, None);
                let before = cache.brokers.len();
                let mut cached = ClusterModel::from_world_cached(
                    p.world(),
                    p.time_ms(),
                    times,
                    None,
                    &mut cache,
                );
                assert_eq!(cache.brokers.len(), before.max(fresh.brokers.len()));
                fresh.mark_truncations(p.past());
                cached.mark_truncations(p.past());
                assert_eq!(cached, fresh, "at {} after {moves:?}", p.cursor());
                reused += cached
                    .brokers
                    .iter()
                    .filter(|b| {
                        cache
                            .brokers
                            .get(&BrokerId(b.id))
                            .is_some_and(|(_, rows, _)| Rc::ptr_eq(rows, &b.replicas))
                    })
                    .count();
                if !p.step() {
                    break;
                }
                // Now and then a jump: back up to 60 events, or on up to 200.
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                if x >> 59 == 0 {
                    let to = (p.cursor() + (x >> 20) % 260).saturating_sub(60);
                    moves.push(to);
                    p.seek(to);
                }
            }
            assert!(reused > 0, "the cache was never used");
        }
    }

    /// The world right after the first event of `kind` whose path ends with
    /// `suffix`, and that path.
    fn world_after(text: &str, kind: &str, suffix: &str) -> (World, String) {
        let mut t = Timeline::new(Scenario::from_json(text).unwrap()).unwrap();
        t.run_to_end();
        let (i, path) = t
            .events()
            .iter()
            .enumerate()
            .find_map(|(i, e)| {
                let p = e.kind.field("path")?;
                (e.kind.name_str() == kind && p.ends_with(suffix)).then_some((i as u64, p))
            })
            .unwrap();
        (t.state_at(i + 1), path)
    }

    #[test]
    fn the_tree_shows_brokers_controller_and_partition_state_as_written() {
        let text = include_str!("../../scenarios/leader-failover.json");
        let (w, path) = world_after(text, "znode_created", "/state");
        let rows = zk_rows(&w, Some(&path));
        let find = |p: &str| rows.iter().find(|r| r.path == p);
        for b in 0..3 {
            assert!(
                find(&format!("/brokers/ids/{b}")).is_some_and(|r| r.ephemeral_owner == Some(b))
            );
        }
        assert!(find("/controller")
            .unwrap()
            .full_data
            .contains("\"brokerid\":"));
        let state = find("/brokers/topics/first/partitions/0/state").unwrap();
        assert!(state.full_data.contains("\"leader\":"), "{state:?}");
        assert_eq!(state.depth, 5);
        // Exactly the znode the event wrote is marked.
        assert_eq!(rows.iter().filter(|r| r.changed).count(), 1);
        assert_eq!(rows.iter().find(|r| r.changed).unwrap().path, path);
    }

    #[test]
    fn sibling_znodes_are_listed_once_in_name_order() {
        // "/brokers/topics/a-b…" sorts between "/brokers/topics/a" and
        // "/brokers/topics/a/partitions…": the names need sorting again.
        let text = r#"{"seed": 1, "run_until_ms": 100, "cluster": {"brokers": [0,1,2]},
            "topics": [{"name": "a", "partitions": 2, "replication.factor": 2},
                       {"name": "a-b", "partitions": 2, "replication.factor": 2}]}"#;
        let (w, _) = world_after(text, "znode_created", "a-b/partitions/1/state");
        let rows = zk_rows(&w, None);
        let topics: Vec<&str> = rows
            .iter()
            .filter(|r| r.depth == 2 && r.path.starts_with("/brokers/topics/"))
            .map(|r| r.name.as_str())
            .collect();
        assert_eq!(topics, ["a", "a-b"]);
        let mut paths: Vec<&str> = rows.iter().map(|r| r.path.as_str()).collect();
        let n = paths.len();
        paths.sort();
        paths.dedup();
        assert_eq!(paths.len(), n, "a znode is listed twice");
    }

    #[test]
    fn a_large_cluster_aggregates_its_partition_znodes() {
        let text = r#"{"seed": 1, "run_until_ms": 100, "cluster": {"brokers": [0,1,2,3,4,5,6,7,8,9]},
            "topics": [{"name": "big", "partitions": 1000, "replication.factor": 3}]}"#;
        let (w, _) = world_after(text, "znode_created", "partitions/999/state");
        let rows = zk_rows(&w, None);
        assert!(rows.len() < 120, "{} rows", rows.len());
        let more = rows
            .iter()
            .find(|r| r.more && r.path == "/brokers/topics/big/partitions/…");
        assert!(
            more.is_some_and(|r| r.name.starts_with("… ")),
            "partitions are summed up"
        );
    }
}

/// How far back the drawing looks for a replica's last truncation.
const TRUNCATION_LOOK_BACK: usize = 2_000;

impl ClusterModel {
    /// Marks, on each replica, the offsets its latest truncation (within the
    /// last [`TRUNCATION_LOOK_BACK`] events) removed and that its log has not
    /// written again: the learner sees what a follower cut, not only its new
    /// end.
    pub fn mark_truncations(&mut self, past: &[kafka_sim::Event]) {
        let from = past.len().saturating_sub(TRUNCATION_LOOK_BACK);
        let mut seen = kafka_sim::collections::SortedSet::new();
        for e in past[from..].iter().rev() {
            let kafka_sim::EventKind::LogTruncated {
                broker,
                tp,
                truncated,
                ..
            } = &e.kind
            else {
                continue;
            };
            let tp = tp.to_string();
            if !seen.insert((broker.0, tp.clone())) {
                continue;
            }
            let Some(b) = self.brokers.iter_mut().find(|b| b.id == broker.0) else {
                continue;
            };
            let Some(i) = b.replicas.iter().position(|r| r.tp == tp) else {
                continue;
            };
            let r = &b.replicas[i];
            let start = r.leo.max(truncated.to_offset);
            if start < truncated.old_log_end_offset {
                // A copy for this model: the cache's rows stay as read.
                Rc::make_mut(&mut b.replicas)[i].truncated =
                    Some((start, truncated.old_log_end_offset));
            }
        }
    }
}

/// Orders names as a person does: the digits in them as numbers
/// (`first-2` before `first-11`), the rest as text.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    loop {
        match (x.first(), y.first()) {
            (None, None) => return std::cmp::Ordering::Equal,
            (None, _) => return std::cmp::Ordering::Less,
            (_, None) => return std::cmp::Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let n = x.iter().take_while(|c| c.is_ascii_digit()).count();
                let m = y.iter().take_while(|c| c.is_ascii_digit()).count();
                let (p, q) = (&x[..n], &y[..m]);
                // Without leading zeros, a longer run is a larger number.
                let strip = |s: &[u8]| {
                    let z = s.iter().take_while(|c| **c == b'0').count();
                    s.len() - z
                };
                let ord = strip(p)
                    .cmp(&strip(q))
                    .then_with(|| p[n - strip(p)..].cmp(&q[m - strip(q)..]))
                    .then_with(|| n.cmp(&m));
                if ord != std::cmp::Ordering::Equal {
                    return ord;
                }
                (x, y) = (&x[n..], &y[m..]);
            }
            (Some(c), Some(d)) => {
                if c != d {
                    return c.cmp(d);
                }
                (x, y) = (&x[1..], &y[1..]);
            }
        }
    }
}

#[cfg(test)]
mod natural_tests {
    use super::natural_cmp;

    #[test]
    fn partitions_sort_by_their_number() {
        let mut v = vec![
            "first-11", "first-2", "first-1", "first-10", "a-0", "first-02", "b",
        ];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            v,
            ["a-0", "b", "first-1", "first-2", "first-02", "first-10", "first-11"]
        );
        assert_eq!(natural_cmp("x", "x"), std::cmp::Ordering::Equal);
        assert_eq!(natural_cmp("x-9", "x-10"), std::cmp::Ordering::Less);
        assert_eq!(natural_cmp("t1-3", "t10-0"), std::cmp::Ordering::Less);
    }
}
