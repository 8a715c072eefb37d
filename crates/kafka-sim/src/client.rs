//! What producers and consumers share: cluster metadata (`Metadata` in the
//! Java client), fetched from any broker and refreshed when a leader moves
//! (`NOT_LEADER_OR_FOLLOWER`) or every `metadata.max.age.ms`.

use crate::event::EventKind;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::msg::{Message, PartitionMetadata};
use crate::sim::{Step, Timer, World};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientMetadata {
    pub partitions: BTreeMap<TopicPartition, PartitionMetadata>,
    pub brokers: Vec<BrokerId>,
    /// A refresh was asked for (an error or a new topic).
    pub stale: bool,
    pub in_flight: Option<i32>,
    pub last_update_ms: u64,
    /// Round-robin over brokers for bootstrap / refresh requests.
    pub next_broker: usize,
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

    fn client_node(c: &ClientRef) -> NodeId {
        match c {
            ClientRef::Producer(p) => NodeId::Producer(*p),
            ClientRef::Consumer(x) => NodeId::Consumer(*x),
        }
    }

    /// Sends a Metadata request (all topics) unless one is in flight.
    pub(crate) fn client_request_metadata(
        &mut self,
        c: ClientRef,
        correlation_id: i32,
    ) -> Step<bool> {
        let node = Self::client_node(&c);
        let md = self.client_md(&c).clone();
        if md.in_flight.is_some() {
            return Ok(false);
        }
        // Ask a broker we know to be alive, else walk the bootstrap list.
        let candidates: Vec<BrokerId> = if md.brokers.is_empty() {
            self.sc
                .cluster
                .brokers
                .iter()
                .map(|b| BrokerId(*b))
                .collect()
        } else {
            md.brokers.clone()
        };
        let to = candidates[md.next_broker % candidates.len()];
        self.gate()?;
        {
            let m = self.client_md(&c);
            m.in_flight = Some(correlation_id);
            m.next_broker += 1;
        }
        self.send(
            node,
            NodeId::Broker(to),
            Message::Metadata {
                correlation_id,
                topics: None,
            },
        )?;
        let timeout = self.now + 5000;
        self.set_timer(node, timeout, Timer::RequestTimeout { correlation_id })?;
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
        self.gate()?;
        self.cancel_timers(node, |t| *t == Timer::RequestTimeout { correlation_id });
        let now = self.now;
        let empty = brokers.is_empty();
        let leaders: BTreeMap<TopicPartition, i32> = partitions
            .iter()
            .map(|p| (p.tp.clone(), p.leader))
            .collect();
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
        }
        self.emit(
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
        self.gate()?;
        let m = self.client_md(&c);
        m.in_flight = None;
        m.stale = true;
        Ok(true)
    }
}
