//! Exercises in the spirit of VisuAlgo's training mode: a question drawn at
//! random from a template, at easy / medium / hard, with its answer computed
//! by the engine's own functions (murmur2, the coordinator partition, the
//! assignors, leader election, the high watermark, replica placement, the
//! `.index` binary search, retention and the log cleaner run on a real
//! in-memory log). Same seed, same question. `kafka-sim exercise` prints
//! them for teachers; the page's Practice view asks them and draws the
//! instance ([`Instance`]) so that most answers are a click on the drawing.
//!
//! Every question can be reasoned out from what it shows plus the rule of its
//! lesson: where the lesson is a modulo, the hash is given (murmur2 for a key,
//! `String.hashCode` for a group); an election names the leader that died and
//! lists it dead; every question offers at least four distinct choices (a
//! draw that cannot is drawn again from the same seed). `tests` re-derive
//! every answer from the instance alone, without the engine's functions.

use crate::assignor::{assign, MemberSubscription};
use crate::client_config::AssignorName;
use crate::collections::SortedMap;
use crate::election::{elect, ElectionAlgorithm, ElectionInput};
use crate::ids::BrokerId;
use crate::partitioner::{java_string_hash, kafka_abs, murmur2, to_positive};
use crate::rng::Rng;
use serde::Serialize;

mod groups;
use groups::*;
mod replication;
use replication::*;
mod storage;
use storage::*;

/// The templates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Which partition does key K go to (murmur2 given)?
    Partition,
    /// Which `__consumer_offsets` partition holds group G (hashCode given)?
    Coordinator,
    /// Which member gets partition t-p under an assignor?
    Assignment,
    /// Which broker becomes leader after the named leader died?
    Election,
    /// What is the high watermark (LEOs of the ISR)?
    HighWatermark,
    /// Which brokers hold partition p (`assignReplicasToBrokers`)?
    Placement,
    /// Which `.log` position does the sparse index send a lookup to?
    Lookup,
    /// What is the log start offset after a time-based retention check?
    Retention,
    /// Which offsets survive compaction?
    Compaction,
    /// Which offsets does a read_committed consumer get (the LSO, aborted
    /// transactions, markers)?
    ReadCommitted,
    /// Which member gets t-p in the broker's new target assignment
    /// (KIP-848, the uniform assignor) after a member joins?
    ServerAssignment,
}

impl Kind {
    /// Every template, in the order the page lists them.
    pub const ALL: [Kind; 11] = [
        Kind::Partition,
        Kind::Coordinator,
        Kind::Assignment,
        Kind::Election,
        Kind::HighWatermark,
        Kind::Placement,
        Kind::Lookup,
        Kind::Retention,
        Kind::Compaction,
        Kind::ReadCommitted,
        Kind::ServerAssignment,
    ];
    /// The template named `s` (its [`Kind::name`]).
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }
    /// The template's short name (`partition`, `election`, …).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Partition => "partition",
            Kind::Coordinator => "coordinator",
            Kind::Assignment => "assignment",
            Kind::Election => "election",
            Kind::HighWatermark => "high-watermark",
            Kind::Placement => "placement",
            Kind::Lookup => "lookup",
            Kind::Retention => "retention",
            Kind::Compaction => "compaction",
            Kind::ReadCommitted => "read-committed",
            Kind::ServerAssignment => "server-assignment",
        }
    }
}

/// How big an instance is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Small: few partitions, members or replicas.
    Easy,
    /// Medium.
    Medium,
    /// Large, with the harder cases (an unclean election, unequal subscriptions).
    Hard,
}

impl Level {
    /// The level named `s` (`easy`, `medium`, `hard`).
    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "easy" => Some(Level::Easy),
            "medium" => Some(Level::Medium),
            "hard" => Some(Level::Hard),
            _ => None,
        }
    }
}

/// The word for "no leader" in the election template's choices.
pub const NONE: &str = "none";

/// One replica of the election template, in AR order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ElectionReplica {
    /// The broker.
    pub broker: i32,
    /// Whether it is in the ISR.
    pub in_isr: bool,
    /// Alive after the leader died.
    pub alive: bool,
}

/// One replica of the high-watermark template.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HwReplica {
    /// The broker.
    pub broker: i32,
    /// Its log end offset.
    pub leo: i64,
    /// Whether it is in the ISR.
    pub in_isr: bool,
}

/// One segment of the retention template.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SegmentInfo {
    /// Its first offset (its base offset).
    pub first_offset: i64,
    /// Its last offset.
    pub last_offset: i64,
    /// The newest record's timestamp (the segment's largest timestamp), ms.
    pub newest_ms: i64,
}

/// One record of the compaction template.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KeyedRecord {
    /// The record's offset.
    pub offset: i64,
    /// Its key.
    pub key: String,
    /// Its value.
    pub value: String,
}

/// What a question is about, as data: the page draws it, and a choice that
/// names one drawn element (a partition, a member, a broker, an index entry,
/// a segment) is answered by clicking that element.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Instance {
    /// Which partition a key goes to.
    Partition {
        /// The key.
        key: String,
        /// `murmur2` of the key's bytes.
        murmur2: i32,
        /// `Utils.toPositive(murmur2)`: the sign bit cleared.
        to_positive: i32,
        /// The topic's partition count.
        partitions: i32,
    },
    /// Which `__consumer_offsets` partition holds a group.
    Coordinator {
        /// The group.
        group: String,
        /// Java's `"group".hashCode()`.
        hash_code: i32,
        /// `Utils.abs(hash_code)`.
        abs: i32,
        /// `offsets.topic.num.partitions`.
        partitions: i32,
    },
    /// Which member an assignor gives a partition.
    Assignment {
        /// `range` or `roundrobin`.
        assignor: String,
        /// (topic, partition count), by name.
        topics: Vec<(String, i32)>,
        /// (member id, subscribed topics), by member id.
        members: Vec<(String, Vec<String>)>,
        /// The partition asked about.
        topic: String,
        /// The partition number asked about.
        partition: i32,
    },
    /// Which member the broker's uniform assignor (KIP-848) gives a
    /// partition after members changed.
    ServerAssignment {
        /// The one topic.
        topic: String,
        /// Its partitions now.
        partitions: i32,
        /// (member id, partitions it holds now), in the order the assignor
        /// iterates the members; a member that just joined holds none.
        members: Vec<(String, Vec<i32>)>,
        /// The member that joined.
        joined: String,
        /// The partition asked about.
        partition: i32,
    },
    /// Which replica the controller elects after the leader died.
    Election {
        /// The replicas in AR order.
        replicas: Vec<ElectionReplica>,
        /// The leader that died (still in the ISR as ZooKeeper stores it).
        died: i32,
        /// `unclean.leader.election.enable` for the topic.
        unclean_leader_election_enable: bool,
    },
    /// Where the leader's high watermark stands.
    HighWatermark {
        /// The leader.
        leader: i32,
        /// The replicas with their log end offsets.
        replicas: Vec<HwReplica>,
    },
    /// Where `assignReplicasToBrokers` puts a partition's replicas.
    Placement {
        /// The broker count.
        brokers: i32,
        /// The replication factor.
        replication_factor: i32,
        /// The start index (the random one Kafka draws).
        start_index: i32,
        /// The partition count.
        partitions: i32,
        /// Replica lists of the partitions before the one asked.
        known: Vec<Vec<i32>>,
        /// The partition asked about.
        asked: i32,
    },
    /// Where a lookup in the sparse `.index` goes.
    Lookup {
        /// The segment's base offset.
        base_offset: i64,
        /// (absolute offset, position) of each `.index` entry.
        entries: Vec<(i64, i64)>,
        /// The offset looked for.
        target: i64,
    },
    /// What a time-based retention check deletes.
    Retention {
        /// The segments, oldest first.
        segments: Vec<SegmentInfo>,
        /// `retention.ms`.
        retention_ms: i64,
        /// The time of the check.
        now_ms: i64,
        /// The log end offset.
        log_end_offset: i64,
    },
    /// What compaction keeps.
    Compaction {
        /// The records, in offset order.
        records: Vec<KeyedRecord>,
        /// The active segment's base offset: the cleaner stops before it.
        active_from: i64,
    },
    /// What a read_committed consumer reads of a partition with transactions.
    ReadCommitted {
        /// Every offset of the partition, in order.
        entries: Vec<TxnEntry>,
        /// The partition's high watermark.
        high_watermark: i64,
    },
}

/// One offset of the read_committed template: a record or a marker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TxnEntry {
    /// The offset.
    pub offset: i64,
    /// The producer id (-1: a plain, non-transactional write).
    pub producer_id: i64,
    /// `COMMIT` or `ABORT` for a marker; none for a record.
    pub marker: Option<&'static str>,
}

/// A generated question.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Exercise {
    /// Its template.
    pub kind: Kind,
    /// Its level.
    pub level: Level,
    /// The seed it was drawn from (the same seed draws it again).
    pub seed: u64,
    /// The question, in English.
    pub question_en: String,
    /// The question, in 简体中文.
    pub question_zh: String,
    /// The choices (at least four).
    pub choices: Vec<String>,
    /// The right choice.
    pub answer: String,
    /// Why, in English.
    pub explanation_en: String,
    /// Why, in 简体中文.
    pub explanation_zh: String,
    /// What the question is about, as data the page draws.
    pub instance: Instance,
}

impl Exercise {
    /// The question in `zh` (true) or English.
    pub fn question(&self, zh: bool) -> &str {
        if zh {
            &self.question_zh
        } else {
            &self.question_en
        }
    }
    /// The explanation in `zh` (true) or English.
    pub fn explanation(&self, zh: bool) -> &str {
        if zh {
            &self.explanation_zh
        } else {
            &self.explanation_en
        }
    }
}

/// The fewest choices a question offers.
pub const MIN_CHOICES: usize = 4;

fn pick<'a>(r: &mut Rng, v: &'a [&'a str]) -> &'a str {
    v[r.below(v.len() as u64) as usize]
}

/// Up to `n` distinct choices including `answer`, sorted, from `pool`.
fn make_choices(r: &mut Rng, answer: &str, pool: Vec<String>, n: usize) -> Vec<String> {
    let mut out = vec![answer.to_string()];
    let mut pool: Vec<String> = pool.into_iter().filter(|p| p != answer).collect();
    pool.sort();
    pool.dedup();
    while out.len() < n && !pool.is_empty() {
        let i = r.below(pool.len() as u64) as usize;
        out.push(pool.swap_remove(i));
    }
    out.sort_by(|a, b| match (a.parse::<i64>(), b.parse::<i64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        _ if a == NONE => std::cmp::Ordering::Greater,
        _ if b == NONE => std::cmp::Ordering::Less,
        _ => a.cmp(b),
    });
    out
}

/// (question en, zh, choices pool, answer, explanation en, zh, instance).
struct Drawn {
    en: String,
    zh: String,
    pool: Vec<String>,
    answer: String,
    why_en: String,
    why_zh: String,
    instance: Instance,
}

/// How many times a seed is redrawn for a question with too few choices.
const REDRAWS: u64 = 64;

/// Draws the exercise for (kind, level, seed).
pub fn generate(kind: Kind, level: Level, seed: u64) -> Exercise {
    let size = match level {
        Level::Easy => 1,
        Level::Medium => 2,
        Level::Hard => 3,
    };
    let mut last = None;
    for attempt in 0..REDRAWS {
        let mut r = Rng::new(
            seed ^ (kind as u64) << 48 ^ (level as u64) << 56 ^ attempt.wrapping_mul(0x9E37_79B9),
        );
        let d = match kind {
            Kind::Partition => partition(&mut r, size),
            Kind::Coordinator => coordinator(&mut r, size),
            Kind::Assignment => assignment(&mut r, size),
            Kind::Election => election(&mut r, size),
            Kind::HighWatermark => high_watermark(&mut r, size),
            Kind::Placement => placement(&mut r, size),
            Kind::Lookup => index_lookup(&mut r, size),
            Kind::Retention => retention(&mut r, size),
            Kind::Compaction => compaction(&mut r, size),
            Kind::ReadCommitted => read_committed(&mut r, size),
            Kind::ServerAssignment => server_assignment(&mut r, size),
        };
        let choices = make_choices(&mut r, &d.answer, d.pool, MIN_CHOICES);
        let e = Exercise {
            kind,
            level,
            seed,
            question_en: d.en,
            question_zh: d.zh,
            choices,
            answer: d.answer,
            explanation_en: d.why_en,
            explanation_zh: d.why_zh,
            instance: d.instance,
        };
        if e.choices.len() >= MIN_CHOICES {
            return e;
        }
        last = Some(e);
    }
    last.expect("REDRAWS > 0")
}

fn list<T: std::fmt::Display>(v: &[T]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `n` distinct numbers from `0..n_max` other than those given, as strings.
fn other_numbers(r: &mut Rng, n_max: i64, n: usize) -> Vec<String> {
    (0..n * 3)
        .map(|_| r.below(n_max as u64).to_string())
        .collect()
}

#[cfg(test)]
mod tests;
