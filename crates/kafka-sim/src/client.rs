//! What producers and consumers share: cluster metadata (`Metadata` in the
//! Java client), fetched from any broker and refreshed when a leader moves
//! (`NOT_LEADER_OR_FOLLOWER`) or every `metadata.max.age.ms`.

use crate::collections::SortedMap;
use crate::event::EventKind;
use crate::ids::Millis;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::kernel::Kernel;
use crate::kernel::{Step, Timer};
use crate::msg::{LeaderView, Message, PartitionTable};
use crate::scenario::Scenario;
use std::sync::Arc;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
/// A client's view of the cluster (`Metadata` in the Java client).
pub struct ClientMetadata {
    /// Each known partition: its leader, leader epoch and replicas.
    pub partitions: PartitionTable,
    /// The brokers the last MetadataResponse listed.
    pub brokers: Vec<BrokerId>,
    /// A refresh was asked for (an error or a new topic).
    pub stale: bool,
    /// The correlation id of the Metadata request in flight, if any.
    pub in_flight: Option<i32>,
    /// When the last MetadataResponse arrived (for `metadata.max.age.ms`).
    pub last_update_ms: u64,
    /// Round-robin over brokers for bootstrap / refresh requests.
    pub next_broker: usize,
    /// Brokers this client could not reach, and until when it waits before
    /// connecting again (`ClusterConnectionStates` in the Java client).
    pub backoff: SortedMap<BrokerId, NodeBackoff>,
    /// Metadata requests that failed in a row, and the earliest time of the
    /// next one (`retry.backoff.ms`, doubling up to `retry.backoff.max.ms`;
    /// also applied after every successful refresh, as `Metadata` does).
    pub metadata_failures: u32,
    /// The earliest time of the next Metadata request.
    pub next_metadata_ms: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
/// How long a client waits before connecting to a broker again.
pub struct NodeBackoff {
    /// Connection attempts that failed in a row.
    pub failures: u32,
    /// When it may try again.
    pub until_ms: u64,
}

/// Kafka's `ExponentialBackoff` without its ±20% jitter (left out so traces
/// are easy to follow): `initial · 2^attempts`, capped at `max`.
pub fn exponential_backoff(initial: u64, attempts: u32, max: u64) -> u64 {
    initial
        .saturating_mul(1u64 << attempts.min(30))
        .min(max.max(initial))
}

macro_rules! backoffs_of {
    ($config:ty) => {
        impl $config {
            /// The four backoff settings the network client uses.
            pub(crate) fn backoffs(&self) -> Backoffs {
                Backoffs {
                    reconnect_ms: self.reconnect_backoff_ms,
                    reconnect_max_ms: self.reconnect_backoff_max_ms,
                    retry_ms: self.retry_backoff_ms,
                    retry_max_ms: self.retry_backoff_max_ms,
                }
            }
        }
    };
}
backoffs_of!(crate::client_config::ProducerConfig);
backoffs_of!(crate::client_config::ConsumerConfig);

/// What a client node gives its network client: its node id, and its
/// metadata with its backoff settings.
pub(crate) trait Client: Clone {
    /// The node of client number `id`.
    fn node(id: u32) -> NodeId;
    /// The metadata to update and the backoff settings.
    fn network_parts(&mut self) -> (&mut ClientMetadata, Backoffs);
}

/// One client while it handles one work item: the kernel, the ledger's
/// check lent to it (`A`), and this client only. It reaches a broker only by
/// sending it a message. `me` is the client's `Arc` in the world, copied on
/// the first change, so checkpoints keep sharing an unchanged client.
pub(crate) struct ClientCx<'a, N, A> {
    pub(crate) k: &'a mut Kernel,
    pub(crate) audit: A,
    pub(crate) id: u32,
    pub(crate) me: &'a mut Arc<N>,
}

impl<N: Client, A> ClientCx<'_, N, A> {
    /// This client, read-only.
    pub(crate) fn me(&self) -> &N {
        self.me
    }

    /// This client, to change: copied first if a checkpoint still shares it.
    pub(crate) fn me_mut(&mut self) -> &mut N {
        Arc::make_mut(self.me)
    }

    /// The client's network client (connections and metadata).
    pub(crate) fn net(&mut self) -> NetworkClient<'_> {
        let node = N::node(self.id);
        let (md, backoffs) = Arc::make_mut(self.me).network_parts();
        NetworkClient {
            k: self.k,
            node,
            md,
            backoffs,
        }
    }
}

impl ClientMetadata {
    /// The leader of `tp`, if the client knows one.
    pub fn leader(&self, tp: &TopicPartition) -> Option<BrokerId> {
        self.partitions
            .get(tp)
            .filter(|p| p.leader >= 0)
            .map(|p| BrokerId(p.leader))
    }

    /// The leader epoch of `tp` the client knows (-1: none).
    pub fn leader_epoch(&self, tp: &TopicPartition) -> i32 {
        self.partitions
            .get(tp)
            .map(|p| p.leader_epoch)
            .unwrap_or(-1)
    }

    /// Number of partitions of a topic, if known.
    pub fn partition_count(&self, topic: &str) -> Option<i32> {
        let n = self.partitions.topic(topic).len() as i32;
        (n > 0).then_some(n)
    }

    /// For each partition of `topic` (0..`count`), the racks of its
    /// replicas, as the Java client's `Cluster` gives them: a replica on a
    /// broker the last MetadataResponse listed carries that broker's rack
    /// (`broker.rack`, static, as the broker registered it); a replica on a
    /// broker not listed (down) has no rack.
    pub fn replica_racks(
        &self,
        topic: &str,
        count: i32,
        broker_rack: &SortedMap<i32, String>,
    ) -> Vec<crate::collections::SortedSet<String>> {
        (0..count)
            .map(|p| {
                self.partitions
                    .get(&TopicPartition::new(topic, p))
                    .map(|pm| {
                        pm.replicas
                            .iter()
                            .filter(|b| self.brokers.contains(b))
                            .filter_map(|b| broker_rack.get(&b.0).cloned())
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .collect()
    }

    /// The topics the client knows, in name order.
    pub fn topics(&self) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for p in self.partitions.iter() {
            if v.last().map(String::as_str) != Some(&*p.tp.topic) {
                v.push(p.tp.topic.to_string());
            }
        }
        v
    }
}

/// A client's four backoff settings: `reconnect.backoff.ms`,
/// `reconnect.backoff.max.ms`, `retry.backoff.ms`, `retry.backoff.max.ms`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Backoffs {
    pub reconnect_ms: u64,
    pub reconnect_max_ms: u64,
    pub retry_ms: u64,
    pub retry_max_ms: u64,
}

impl ClientMetadata {
    /// Whether the client may send to `b` now (not waiting to reconnect).
    pub(crate) fn ready(&self, now: Millis, b: BrokerId) -> bool {
        self.backoff.get(&b).is_none_or(|x| now >= x.until_ms)
    }

    /// The brokers a client knows from metadata, else its bootstrap list.
    pub(crate) fn known_brokers(&self, sc: &Scenario) -> Vec<BrokerId> {
        if self.brokers.is_empty() {
            sc.cluster.brokers.iter().map(|b| BrokerId(*b)).collect()
        } else {
            self.brokers.clone()
        }
    }

    /// A broker to send a request that any broker can answer: one we know to
    /// be alive, else the bootstrap list, skipping brokers the client waits to
    /// reconnect to (like `leastLoadedNode`), in turn.
    pub(crate) fn least_loaded(&self, sc: &Scenario, now: Millis) -> Option<BrokerId> {
        let candidates = self.known_brokers(sc);
        let n = candidates.len();
        (0..n)
            .map(|i| candidates[(self.next_broker + i) % n])
            .find(|b| self.ready(now, *b))
    }
}

/// One client's connections and metadata while it handles one work item
/// (the Java client's `NetworkClient` with its `Metadata`): the kernel, the
/// client's node, its metadata and its backoff settings, nothing else.
pub(crate) struct NetworkClient<'a> {
    pub(crate) k: &'a mut Kernel,
    pub(crate) node: NodeId,
    pub(crate) md: &'a mut ClientMetadata,
    pub(crate) backoffs: Backoffs,
}

impl NetworkClient<'_> {
    /// The connection to `b` failed or was reset: wait before the next try.
    pub(crate) fn connection_failed(&mut self, b: BrokerId) -> Step {
        let now = self.k.now;
        let node = self.node;
        let prev = self.md.backoff.get(&b).copied().unwrap_or_default();
        if prev.until_ms > now {
            return Ok(()); // already waiting: several requests failed at once
        }
        let wait = exponential_backoff(
            self.backoffs.reconnect_ms,
            prev.failures,
            self.backoffs.reconnect_max_ms,
        );
        self.k.gate()?;
        self.md.backoff.insert(
            b,
            NodeBackoff {
                failures: prev.failures + 1,
                until_ms: now + wait,
            },
        );
        self.k.emit(
            vec![node, NodeId::Broker(b)],
            EventKind::ReconnectBackoff {
                node,
                peer: b,
                failures: prev.failures + 1,
                backoff_ms: wait,
            },
        );
        Ok(())
    }

    /// An answer came from `b`: the connection works.
    pub(crate) fn connection_ok(&mut self, b: BrokerId) -> Step {
        if self.md.backoff.contains_key(&b) {
            self.k.gate()?;
            self.md.backoff.remove(&b);
        }
        Ok(())
    }

    /// Sends a Metadata request (all topics) unless one is in flight.
    pub(crate) fn request_metadata(&mut self, correlation_id: i32) -> Step<bool> {
        let node = self.node;
        let now = self.k.now;
        if self.md.in_flight.is_some() || now < self.md.next_metadata_ms {
            return Ok(false);
        }
        let Some(to) = self.md.least_loaded(&self.k.sc, now) else {
            return Ok(false);
        };
        self.k.gate()?;
        self.md.in_flight = Some(correlation_id);
        self.md.next_broker += 1;
        self.k.send(
            node,
            NodeId::Broker(to),
            Message::Metadata {
                correlation_id,
                topics: None,
            },
        )?;
        let timeout = self.k.now + 5000;
        self.k
            .set_timer(node, timeout, Timer::RequestTimeout { correlation_id })?;
        Ok(true)
    }

    /// Applies a MetadataResponse; returns false if it was not the one awaited.
    pub(crate) fn on_metadata(
        &mut self,
        correlation_id: i32,
        brokers: Vec<BrokerId>,
        partitions: PartitionTable,
    ) -> Step<bool> {
        if self.md.in_flight != Some(correlation_id) {
            return Ok(false);
        }
        let node = self.node;
        self.k.gate()?;
        let now = self.k.now;
        let empty = brokers.is_empty();
        let leaders = LeaderView::of(&partitions);
        let n = partitions.len() as u32;
        let m = &mut *self.md;
        m.in_flight = None;
        if !empty {
            m.brokers = brokers;
        }
        m.partitions = m.partitions.updated_with(&partitions);
        m.stale = empty || leaders.values().any(|l| l < 0);
        m.last_update_ms = now;
        m.metadata_failures = 0;
        m.next_metadata_ms = now + self.backoffs.retry_ms;
        self.k.emit(
            vec![node],
            EventKind::MetadataUpdated {
                client: node,
                partitions: n,
                leaders,
            },
        );
        Ok(true)
    }

    /// The awaited metadata request failed (timeout or dead broker).
    pub(crate) fn metadata_failed(&mut self, correlation_id: i32) -> Step<bool> {
        if self.md.in_flight != Some(correlation_id) {
            return Ok(false);
        }
        self.k.gate()?;
        let now = self.k.now;
        let m = &mut *self.md;
        m.in_flight = None;
        m.stale = true;
        m.next_metadata_ms = now
            + exponential_backoff(
                self.backoffs.retry_ms,
                m.metadata_failures,
                self.backoffs.retry_max_ms,
            );
        m.metadata_failures += 1;
        Ok(true)
    }
}
