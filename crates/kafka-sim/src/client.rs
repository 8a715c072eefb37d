//! What producers and consumers share: cluster metadata (`Metadata` in the
//! Java client), fetched from any broker and refreshed when a leader moves
//! (`NOT_LEADER_OR_FOLLOWER`) or every `metadata.max.age.ms`.

use crate::collections::SortedMap;
use crate::event::EventKind;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::msg::{Message, PartitionMetadata};
use crate::sim::{Step, Timer, World};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientMetadata {
    pub partitions: SortedMap<TopicPartition, PartitionMetadata>,
    pub brokers: Vec<BrokerId>,
    /// A refresh was asked for (an error or a new topic).
    pub stale: bool,
    pub in_flight: Option<i32>,
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
    pub next_metadata_ms: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeBackoff {
    pub failures: u32,
    pub until_ms: u64,
}

/// Kafka's `ExponentialBackoff` without its ±20% jitter (left out so traces
/// are easy to follow): `initial · 2^attempts`, capped at `max`.
pub fn exponential_backoff(initial: u64, attempts: u32, max: u64) -> u64 {
    initial
        .saturating_mul(1u64 << attempts.min(30))
        .min(max.max(initial))
}

impl ClientMetadata {
    pub fn leader(&self, tp: &TopicPartition) -> Option<BrokerId> {
        self.partitions
            .get(tp)
            .filter(|p| p.leader >= 0)
            .map(|p| BrokerId(p.leader))
    }

    pub fn leader_epoch(&self, tp: &TopicPartition) -> i32 {
        self.partitions
            .get(tp)
            .map(|p| p.leader_epoch)
            .unwrap_or(-1)
    }

    /// Number of partitions of a topic, if known.
    pub fn partition_count(&self, topic: &str) -> Option<i32> {
        let n = self
            .partitions
            .keys()
            .filter(|tp| &*tp.topic == topic)
            .count() as i32;
        (n > 0).then_some(n)
    }

    pub fn topics(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .partitions
            .keys()
            .map(|tp| tp.topic.to_string())
            .collect();
        v.dedup();
        v
    }
}

/// The client side of a metadata exchange, for producers and consumers alike.
pub(crate) enum ClientRef {
    Producer(u32),
    Consumer(u32),
}

impl World {
    fn client_md(&mut self, c: &ClientRef) -> &mut ClientMetadata {
        match c {
            ClientRef::Producer(p) => &mut self.producers[*p as usize].metadata,
            ClientRef::Consumer(x) => &mut self.consumers[*x as usize].metadata,
        }
    }

    /// (reconnect.backoff.ms, reconnect.backoff.max.ms, retry.backoff.ms, retry.backoff.max.ms)
    fn client_backoffs(&self, c: &ClientRef) -> (u64, u64, u64, u64) {
        match c {
            ClientRef::Producer(p) => {
                let k = &self.producers[*p as usize].config;
                (
                    k.reconnect_backoff_ms,
                    k.reconnect_backoff_max_ms,
                    k.retry_backoff_ms,
                    k.retry_backoff_max_ms,
                )
            }
            ClientRef::Consumer(x) => {
                let k = &self.consumers[*x as usize].config;
                (
                    k.reconnect_backoff_ms,
                    k.reconnect_backoff_max_ms,
                    k.retry_backoff_ms,
                    k.retry_backoff_max_ms,
                )
            }
        }
    }

    fn client_md_ref(&self, c: &ClientRef) -> &ClientMetadata {
        match c {
            ClientRef::Producer(p) => &self.producers[*p as usize].metadata,
            ClientRef::Consumer(x) => &self.consumers[*x as usize].metadata,
        }
    }

    /// Whether the client may send to `b` now (not waiting to reconnect).
    pub(crate) fn client_ready(&self, c: &ClientRef, b: BrokerId) -> bool {
        let now = self.k.now;
        self.client_md_ref(c)
            .backoff
            .get(&b)
            .is_none_or(|x| now >= x.until_ms)
    }

    /// The connection to `b` failed or was reset: wait before the next try.
    pub(crate) fn client_connection_failed(&mut self, c: &ClientRef, b: BrokerId) -> Step {
        let (initial, max, _, _) = self.client_backoffs(c);
        let now = self.k.now;
        let node = Self::client_node(c);
        let prev = self
            .client_md(c)
            .backoff
            .get(&b)
            .copied()
            .unwrap_or_default();
        if prev.until_ms > now {
            return Ok(()); // already waiting: several requests failed at once
        }
        let wait = exponential_backoff(initial, prev.failures, max);
        self.k.gate()?;
        self.client_md(c).backoff.insert(
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
    pub(crate) fn client_connection_ok(&mut self, c: &ClientRef, b: BrokerId) -> Step {
        if self.client_md(c).backoff.contains_key(&b) {
            self.k.gate()?;
            self.client_md(c).backoff.remove(&b);
        }
        Ok(())
    }

    fn client_node(c: &ClientRef) -> NodeId {
        match c {
            ClientRef::Producer(p) => NodeId::Producer(*p),
            ClientRef::Consumer(x) => NodeId::Consumer(*x),
        }
    }

    /// The brokers a client knows from metadata, else its bootstrap list.
    pub(crate) fn client_known_brokers(&self, md: &ClientMetadata) -> Vec<BrokerId> {
        if md.brokers.is_empty() {
            self.k
                .sc
                .cluster
                .brokers
                .iter()
                .map(|b| BrokerId(*b))
                .collect()
        } else {
            md.brokers.clone()
        }
    }

    /// A broker to send a request that any broker can answer: one we know to
    /// be alive, else the bootstrap list, skipping brokers the client waits to
    /// reconnect to (like `leastLoadedNode`), in turn.
    pub(crate) fn client_least_loaded(&self, md: &ClientMetadata) -> Option<BrokerId> {
        let candidates = self.client_known_brokers(md);
        let n = candidates.len();
        let now = self.k.now;
        (0..n)
            .map(|i| candidates[(md.next_broker + i) % n])
            .find(|b| md.backoff.get(b).is_none_or(|x| now >= x.until_ms))
    }

    /// Sends a Metadata request (all topics) unless one is in flight.
    pub(crate) fn client_request_metadata(
        &mut self,
        c: ClientRef,
        correlation_id: i32,
    ) -> Step<bool> {
        let node = Self::client_node(&c);
        let now = self.k.now;
        let md = self.client_md(&c).clone();
        if md.in_flight.is_some() || now < md.next_metadata_ms {
            return Ok(false);
        }
        let Some(to) = self.client_least_loaded(&md) else {
            return Ok(false);
        };
        self.k.gate()?;
        {
            let m = self.client_md(&c);
            m.in_flight = Some(correlation_id);
            m.next_broker += 1;
        }
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
    pub(crate) fn client_on_metadata(
        &mut self,
        c: ClientRef,
        correlation_id: i32,
        brokers: Vec<BrokerId>,
        partitions: Vec<PartitionMetadata>,
    ) -> Step<bool> {
        if self.client_md(&c).in_flight != Some(correlation_id) {
            return Ok(false);
        }
        let node = Self::client_node(&c);
        self.k.gate()?;
        let now = self.k.now;
        let empty = brokers.is_empty();
        let leaders: SortedMap<TopicPartition, i32> =
            SortedMap::from_iter(partitions.iter().map(|p| (p.tp.clone(), p.leader)));
        let n = partitions.len() as u32;
        {
            let m = self.client_md(&c);
            m.in_flight = None;
            if !empty {
                m.brokers = brokers;
            }
            for p in partitions {
                m.partitions.insert(p.tp.clone(), p);
            }
            m.stale = empty || leaders.values().any(|l| *l < 0);
            m.last_update_ms = now;
            m.metadata_failures = 0;
        }
        let (_, _, retry, _) = self.client_backoffs(&c);
        self.client_md(&c).next_metadata_ms = now + retry;
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
    pub(crate) fn client_metadata_failed(
        &mut self,
        c: ClientRef,
        correlation_id: i32,
    ) -> Step<bool> {
        if self.client_md(&c).in_flight != Some(correlation_id) {
            return Ok(false);
        }
        self.k.gate()?;
        let (_, _, retry, retry_max) = self.client_backoffs(&c);
        let now = self.k.now;
        let m = self.client_md(&c);
        m.in_flight = None;
        m.stale = true;
        m.next_metadata_ms = now + exponential_backoff(retry, m.metadata_failures, retry_max);
        m.metadata_failures += 1;
        Ok(true)
    }
}
