#![deny(missing_docs)]
//! # kafka-sim
//!
//! A deterministic, seeded, sans-IO simulation of Apache Kafka (3.9, with the
//! ZooKeeper-based controller): brokers, ZooKeeper, the controller, replication
//! (LEO, high watermark, ISR, leader epochs), the on-disk log format, producers
//! and consumers. Commands go in; a numbered trace of past-tense events comes
//! out. The same scenario and seed always give the same trace, natively and in
//! the browser.
//!
//! ```
//! use kafka_sim::{Scenario, Timeline, Lang};
//!
//! // Three brokers, one partition replicated three times; produce, then kill
//! // the leader and watch the controller elect a new one.
//! let scenario = Scenario::from_json(r#"{
//!     "seed": 7,
//!     "run_until_ms": 10000,
//!     "cluster": {"brokers": [0, 1, 2], "config": {"zookeeper.session.timeout.ms": 6000}},
//!     "topics": [{"name": "first", "partitions": 1, "replication.factor": 3,
//!                 "replica.assignment": {"0": [1, 0, 2]}}],
//!     "producers": [{"name": "p"}],
//!     "commands": [
//!         {"at_ms": 100, "type": "produce", "producer": "p", "topic": "first", "key": "k", "value": "hello"},
//!         {"at_ms": 500, "type": "kill_broker", "broker": 1}
//!     ]
//! }"#).unwrap();
//! let mut timeline = Timeline::new(scenario).unwrap();
//! timeline.run_to_end();
//! let elected: Vec<String> = timeline
//!     .events()
//!     .iter()
//!     .filter(|e| e.kind.name() == "leader_elected")
//!     .map(|e| e.caption(Lang::En))
//!     .collect();
//! assert!(elected[0].contains("first-0: leader none → 1"));
//! assert!(elected[1].contains("leader 1 → 0"));
//! ```
//!
//! ## Layout
//!
//! * The kernel (`kernel`: clock, queue, RNG, event budget, network) and
//!   the world that owns it and the nodes ([`sim`]). Everything that
//!   changes goes through the kernel's gate and records one event.
//! * One folder per Kafka role, files named after Kafka's classes:
//!   [`broker`] (`KafkaApis`, `ReplicaManager`, the purgatories, `Partition`,
//!   the replica fetcher, `LogManager`), [`controller`] (`KafkaController`,
//!   the state machines, topics, reassignment, controlled shutdown),
//!   [`group`] (`GroupCoordinator`, `GroupMetadataManager`), [`producer`]
//!   (`KafkaProducer`, `RecordAccumulator`, `Sender`), [`consumer`]
//!   (`KafkaConsumer`, `Fetcher`, `ConsumerCoordinator`), [`zk`]
//!   (ZooKeeper), [`storage`] (segment files and indexes, byte for byte).
//!   Every node runs on a handle that sees the kernel and its own node
//!   only (a broker's, `BrokerCx`, also ZooKeeper through its client), so
//!   a node learns of another only by message.
//! * Pure algorithms beside them: [`election`], [`placement`],
//!   [`assignor`], [`partitioner`], [`group_records`], [`producer_state`].
//! * What comes out: [`event`] (past-tense events), [`caption`] (English
//!   and 简体中文), [`timeline`] (checkpoints, seek), [`invariants`]
//!   (Kafka's promises, checked as it runs), [`describe`] (the admin
//!   tools' views of a world, as `kafka-topics` and
//!   `kafka-consumer-groups` print them), [`metrics`] (Kafka's metrics
//!   under their JMX names, computed from the trace and the state).
//! * What goes in: [`scenario`], [`config`], [`client_config`],
//!   [`lesson`].
//!
//! docs/architecture.md draws the whole and says where a change goes.

mod admin;
// Every public item of the engine is documented (`deny(missing_docs)`)
// except in the modules marked below, whose public items are still to
// document (the count is what `missing_docs` reports).
pub mod assignor;
pub mod broker;
pub mod caption;
pub mod client;
pub mod client_config;
pub mod collections;
pub mod config;
pub mod consumer;
pub mod controller;
pub mod describe;
pub mod election;
pub mod event;
pub mod exercises;
pub mod explore;
pub mod group;
pub mod group_records;
pub mod ids;
pub mod invariants;
mod kernel;
pub mod kraft;
pub mod lesson;
pub mod lesson_check;
pub mod metrics;
#[allow(missing_docs)] // 211 to document
pub mod msg;
pub mod names;
pub mod partitioner;
pub mod placement;
pub mod planes;
pub mod producer;
pub mod producer_state;
pub mod regex;
pub mod rng;
pub mod scenario;
pub mod sim;
#[allow(missing_docs)] // 231 to document
pub mod storage;
pub mod timeline;
pub mod txn;
pub mod zk;

pub use caption::Lang;
pub use config::ConfigError;
pub use event::{Event, EventKind};
pub use ids::{BrokerId, NodeId, TopicPartition};
pub use scenario::Scenario;
pub use sim::World;
pub use timeline::Timeline;

/// A panic's message and where it happened, in one line: what the CLI and
/// the page print when a bug stops them (instead of a backtrace or a dead
/// tab).
pub fn panic_text(info: &std::panic::PanicHookInfo<'_>) -> String {
    let what = info
        .payload()
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| info.payload().downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown".into());
    match info.location() {
        Some(l) => format!("{what} at {}:{}", l.file(), l.line()),
        None => what,
    }
}
