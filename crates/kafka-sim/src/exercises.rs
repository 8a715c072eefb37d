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
}

impl Kind {
    pub const ALL: [Kind; 9] = [
        Kind::Partition,
        Kind::Coordinator,
        Kind::Assignment,
        Kind::Election,
        Kind::HighWatermark,
        Kind::Placement,
        Kind::Lookup,
        Kind::Retention,
        Kind::Compaction,
    ];
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }
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
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Easy,
    Medium,
    Hard,
}

impl Level {
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
    pub broker: i32,
    pub in_isr: bool,
    /// Alive after the leader died.
    pub alive: bool,
}

/// One replica of the high-watermark template.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HwReplica {
    pub broker: i32,
    pub leo: i64,
    pub in_isr: bool,
}

/// One segment of the retention template.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SegmentInfo {
    pub first_offset: i64,
    pub last_offset: i64,
    /// The newest record's timestamp (the segment's largest timestamp), ms.
    pub newest_ms: i64,
}

/// One record of the compaction template.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KeyedRecord {
    pub offset: i64,
    pub key: String,
    pub value: String,
}

/// What a question is about, as data: the page draws it, and a choice that
/// names one drawn element (a partition, a member, a broker, an index entry,
/// a segment) is answered by clicking that element.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Instance {
    Partition {
        key: String,
        murmur2: i32,
        /// `Utils.toPositive(murmur2)`: the sign bit cleared.
        to_positive: i32,
        partitions: i32,
    },
    Coordinator {
        group: String,
        /// Java's `"group".hashCode()`.
        hash_code: i32,
        /// `Utils.abs(hash_code)`.
        abs: i32,
        partitions: i32,
    },
    Assignment {
        /// `range` or `roundrobin`.
        assignor: String,
        /// (topic, partition count), by name.
        topics: Vec<(String, i32)>,
        /// (member id, subscribed topics), by member id.
        members: Vec<(String, Vec<String>)>,
        /// The partition asked about.
        topic: String,
        partition: i32,
    },
    Election {
        /// The replicas in AR order.
        replicas: Vec<ElectionReplica>,
        /// The leader that died (still in the ISR as ZooKeeper stores it).
        died: i32,
        unclean_leader_election_enable: bool,
    },
    HighWatermark {
        leader: i32,
        replicas: Vec<HwReplica>,
    },
    Placement {
        brokers: i32,
        replication_factor: i32,
        start_index: i32,
        partitions: i32,
        /// Replica lists of the partitions before the one asked.
        known: Vec<Vec<i32>>,
        asked: i32,
    },
    Lookup {
        base_offset: i64,
        /// (absolute offset, position) of each `.index` entry.
        entries: Vec<(i64, i64)>,
        target: i64,
    },
    Retention {
        segments: Vec<SegmentInfo>,
        retention_ms: i64,
        now_ms: i64,
        log_end_offset: i64,
    },
    Compaction {
        records: Vec<KeyedRecord>,
        /// The active segment's base offset: the cleaner stops before it.
        active_from: i64,
    },
}

/// A generated question.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Exercise {
    pub kind: Kind,
    pub level: Level,
    pub seed: u64,
    pub question_en: String,
    pub question_zh: String,
    pub choices: Vec<String>,
    pub answer: String,
    pub explanation_en: String,
    pub explanation_zh: String,
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

fn partition(r: &mut Rng, size: u64) -> Drawn {
    let key = format!(
        "{}-{}",
        pick(r, &["order", "user", "cart", "sensor", "订单"]),
        r.below(1000 * size)
    );
    let n: i32 = [3, 6, 12][size as usize - 1] + r.below(5) as i32;
    let m = murmur2(key.as_bytes());
    let pos = to_positive(m);
    let p = pos % n;
    Drawn {
        en: format!("A producer sends a record with key \"{key}\" to a topic with {n} partitions (default partitioner). murmur2(key) = {m}, and toPositive clears its sign bit: {pos}. Which partition does the record go to?"),
        zh: format!("生产者发送 key 为 \"{key}\" 的消息到有 {n} 个分区的主题（默认分区器）。murmur2(key) = {m}，toPositive 去掉符号位后为 {pos}。这条消息进入哪个分区？"),
        pool: other_numbers(r, n as i64, 4),
        answer: p.to_string(),
        why_en: format!("The default partitioner takes toPositive(murmur2(key)) modulo the partition count: {pos} % {n} = {p} (P2)."),
        why_zh: format!("默认分区器用 toPositive(murmur2(key)) 对分区数取模：{pos} % {n} = {p}（P2）。"),
        instance: Instance::Partition {
            key,
            murmur2: m,
            to_positive: pos,
            partitions: n,
        },
    }
}

fn coordinator(r: &mut Rng, size: u64) -> Drawn {
    let group = format!(
        "{}-{}",
        pick(r, &["payments", "search", "billing", "clicks", "推荐"]),
        r.below(100 * size)
    );
    let n: i32 = [5, 10, 50][size as usize - 1];
    let h = java_string_hash(&group);
    let a = kafka_abs(h);
    let p = a % n;
    Drawn {
        en: format!("offsets.topic.num.partitions = {n}. Group \"{group}\" has \"{group}\".hashCode() = {h}, so Utils.abs(hashCode) = {a}. Which __consumer_offsets partition's leader is its coordinator?"),
        zh: format!("offsets.topic.num.partitions = {n}。消费者组 \"{group}\" 的 \"{group}\".hashCode() = {h}，因此 Utils.abs(hashCode) = {a}。它的协调者是 __consumer_offsets 哪个分区的 leader？"),
        pool: other_numbers(r, n as i64, 4),
        answer: p.to_string(),
        why_en: format!("The group's offsets live in __consumer_offsets partition Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions = {a} % {n} = {p}; that partition's leader is the group coordinator (G6)."),
        why_zh: format!("组的位移保存在 __consumer_offsets 的第 Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions = {a} % {n} = {p} 个分区；该分区的 leader 就是组协调者（G6）。"),
        instance: Instance::Coordinator {
            group,
            hash_code: h,
            abs: a,
            partitions: n,
        },
    }
}

fn assignment(r: &mut Rng, size: u64) -> Drawn {
    // Easy: Range over one topic. Medium: Range or RoundRobin over two
    // topics, everyone subscribed. Hard: three topics and unequal
    // subscriptions (the notes' RoundRobin example has this shape).
    let strategy = if size == 1 || r.chance(1, 2) {
        AssignorName::Range
    } else {
        AssignorName::RoundRobin
    };
    let nt = size as usize;
    let mut topics = SortedMap::new();
    for t in 0..nt {
        let n = if nt == 1 {
            r.between(5, 9)
        } else {
            r.between(1, 4)
        };
        topics.insert(format!("t{t}"), n as i32);
    }
    let names: Vec<String> = topics.keys().cloned().collect();
    let nm = 4 + r.below(size.min(2)) as usize;
    let members: Vec<MemberSubscription> = (0..nm)
        .map(|i| {
            let subs = if size == 3 {
                // t0 for everyone, then each further topic at random;
                // C0 only t0 and the last member every topic, as in the
                // notes (so every partition has a subscriber).
                let mut s = vec![names[0].clone()];
                for t in &names[1..] {
                    if i + 1 == nm || (i > 0 && r.chance(1, 2)) {
                        s.push(t.clone());
                    }
                }
                s
            } else {
                names.clone()
            };
            MemberSubscription {
                member_id: format!("C{i}"),
                group_instance_id: None,
                topics: subs,
                owned_partitions: Vec::new(),
                generation: None,
            }
        })
        .collect();
    let res = assign(strategy, &topics, &members).expect("valid group");
    let t = names[r.below(names.len() as u64) as usize].clone();
    let p = r.below(topics[&t] as u64) as i32;
    let owner = res
        .assignment
        .iter()
        .find(|(_, v)| v.iter().any(|x| x.topic == t && x.partition == p))
        .map(|(m, _)| m.clone())
        .expect("every partition is assigned");
    let subs: Vec<String> = members
        .iter()
        .map(|m| format!("{} → {}", m.member_id, m.topics.join("+")))
        .collect();
    let parts: Vec<String> = topics.iter().map(|(t, n)| format!("{t}: {n}")).collect();
    let result = res
        .assignment
        .iter()
        .map(|(m, v)| {
            let v: Vec<String> = v.iter().map(|p| p.to_string()).collect();
            format!(
                "{m}: {}",
                if v.is_empty() {
                    "—".into()
                } else {
                    v.join(", ")
                }
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let name = strategy.protocol_name();
    let (rule_en, rule_zh) = match strategy {
        AssignorName::Range => (
            "Range works topic by topic: the members subscribed to the topic, sorted by member id, get partitions/members each in contiguous ranges, and the first partitions%members get one more (G5).",
            "Range 按主题逐个分配：订阅该主题的成员按成员 id 排序，每人得到 分区数/成员数 个连续分区，前 分区数%成员数 个成员各多一个（G5）。",
        ),
        _ => (
            "RoundRobin lays out every partition of every topic in order (t0-0, t0-1, t1-0, …) and deals them to the members in member-id order, skipping a member not subscribed to the partition's topic (G5).",
            "RoundRobin 把所有主题的所有分区按顺序排开（t0-0、t0-1、t1-0……），按成员 id 顺序轮流分给成员，跳过没有订阅该主题的成员（G5）。",
        ),
    };
    Drawn {
        en: format!(
            "A consumer group: {} (partitions {}), assignor {name}. Which member gets {t}-{p}?",
            subs.join(", "),
            parts.join(", "),
        ),
        zh: format!(
            "消费者组：{}（分区数 {}），分配策略 {name}。{t}-{p} 分给哪个成员？",
            subs.join("，"),
            parts.join("，"),
        ),
        pool: members.iter().map(|m| m.member_id.clone()).collect(),
        answer: owner,
        why_en: format!("{rule_en} Result: {result}."),
        why_zh: format!("{rule_zh} 结果：{result}。"),
        instance: Instance::Assignment {
            assignor: name.to_string(),
            topics: topics.iter().map(|(t, n)| (t.clone(), *n)).collect(),
            members: members
                .iter()
                .map(|m| (m.member_id.clone(), m.topics.clone()))
                .collect(),
            topic: t,
            partition: p,
        },
    }
}

fn election(r: &mut Rng, size: u64) -> Drawn {
    let rf = 2 + size as i32; // 3, 4 or 5 replicas
    let mut ar: Vec<BrokerId> = (0..rf).map(BrokerId).collect();
    for i in (1..ar.len()).rev() {
        let j = r.below(i as u64 + 1) as usize;
        ar.swap(i, j);
    }
    // The leader is in the ISR; other replicas are in it at 2 in 3.
    let leader = ar[r.below(ar.len() as u64) as usize];
    let isr: Vec<BrokerId> = ar
        .iter()
        .copied()
        .filter(|b| *b == leader || r.chance(2, 3))
        .collect();
    // After the leader died: the others are alive at 2 in 3.
    let live: Vec<BrokerId> = ar
        .iter()
        .copied()
        .filter(|b| *b != leader && r.chance(2, 3))
        .collect();
    let unclean = size == 3 && r.chance(1, 2);
    let out = elect(&ElectionInput {
        algorithm: ElectionAlgorithm::Offline,
        assignment: ar.clone(),
        isr: isr.clone(),
        live: live.clone(),
        unclean_leader_election_enable: unclean,
        shutting_down: Vec::new(),
    });
    let answer = out
        .leader
        .map(|b| b.0.to_string())
        .unwrap_or_else(|| NONE.into());
    let ids = |v: &[BrokerId]| crate::event::ids_list(v);
    let mut pool: Vec<String> = ar.iter().map(|b| b.0.to_string()).collect();
    pool.push(NONE.into());
    let l = leader.0;
    let (why_en, why_zh) = match (out.leader, out.unclean) {
        (Some(b), false) => (
            format!("The controller walks AR {} in order and takes the first replica that is alive and in the ISR: broker {} (C3).", ids(&ar), b.0),
            format!("控制器按 AR {} 的顺序查找，选第一个存活且在 ISR 中的副本：broker {}（C3）。", ids(&ar), b.0),
        ),
        (Some(b), true) => (
            format!("No replica of the ISR is alive. With unclean.leader.election.enable=true the controller takes the first live replica in AR order, broker {}, and records it may not have can be lost (C3, R4).", b.0),
            format!("ISR 中没有存活的副本。由于 unclean.leader.election.enable=true，控制器按 AR 顺序选第一个存活的副本 broker {}，它没有的记录会丢失（C3、R4）。", b.0),
        ),
        (None, _) => (
            "No replica is both alive and in the ISR, and unclean election is off: there is no leader and the partition goes offline until an ISR replica returns (C3).".to_string(),
            "没有既存活又在 ISR 中的副本，且不允许 unclean 选举：没有 leader，分区下线，直到 ISR 中的副本恢复（C3）。".to_string(),
        ),
    };
    let flag = if unclean { "true" } else { "false" };
    Drawn {
        en: format!(
            "Broker {l}, the leader, died. AR {}, ISR {} (as ZooKeeper still stores it), live brokers now {}, unclean.leader.election.enable={flag}. Who becomes leader?",
            ids(&ar),
            ids(&isr),
            ids(&live)
        ),
        zh: format!(
            "leader broker {l} 宕机。AR {}，ISR {}（ZooKeeper 中仍存的值），现在存活的 broker {}，unclean.leader.election.enable={flag}。谁成为 leader？",
            ids(&ar),
            ids(&isr),
            ids(&live)
        ),
        pool,
        answer,
        why_en,
        why_zh,
        instance: Instance::Election {
            replicas: ar
                .iter()
                .map(|b| ElectionReplica {
                    broker: b.0,
                    in_isr: isr.contains(b),
                    alive: live.contains(b),
                })
                .collect(),
            died: l,
            unclean_leader_election_enable: unclean,
        },
    }
}

fn high_watermark(r: &mut Rng, size: u64) -> Drawn {
    let n = 2 + size as usize;
    let mut leos: Vec<i64> = (0..n).map(|_| r.between(3, 6 + 4 * size) as i64).collect();
    // Followers copy from the leader: none is ahead of it.
    leos[0] = *leos.iter().max().expect("n > 0") + r.below(2) as i64;
    let in_isr: Vec<bool> = (0..n).map(|i| i == 0 || r.chance(2, 3)).collect();
    let hw = leos
        .iter()
        .zip(&in_isr)
        .filter(|(_, i)| **i)
        .map(|(l, _)| *l)
        .min()
        .expect("the leader is in the ISR");
    let desc = |isr: &str, out: &str| -> Vec<String> {
        leos.iter()
            .zip(&in_isr)
            .enumerate()
            .map(|(b, (l, i))| format!("broker {b}: LEO {l}{}", if *i { isr } else { out }))
            .collect()
    };
    let min_all = *leos.iter().min().expect("n > 0");
    let mut pool: Vec<String> = leos.iter().map(|l| l.to_string()).collect();
    pool.extend([min_all, hw + 1, hw - 1, hw + 2].map(|x| x.to_string()));
    Drawn {
        en: format!("Replicas of a partition: {}. Every ISR follower has fetched up to its LEO, and the leader (broker 0) has seen those fetches. What high watermark can the leader set?", desc(" (ISR)", " (out of ISR)").join(", ")),
        zh: format!("某分区副本：{}。ISR 中的 follower 均已拉取到各自的 LEO，leader（broker 0）已收到这些拉取。leader 能把 HW 设为多少？", desc("（ISR）", "（不在 ISR）").join("，")),
        pool,
        answer: hw.to_string(),
        why_en: format!("The high watermark is the smallest LEO among the ISR: {hw}. Replicas out of the ISR do not hold it back (R2)."),
        why_zh: format!("高水位是 ISR 中最小的 LEO：{hw}。不在 ISR 中的副本不影响它（R2）。"),
        instance: Instance::HighWatermark {
            leader: 0,
            replicas: leos
                .iter()
                .zip(&in_isr)
                .enumerate()
                .map(|(b, (l, i))| HwReplica {
                    broker: b as i32,
                    leo: *l,
                    in_isr: *i,
                })
                .collect(),
        },
    }
}

fn placement(r: &mut Rng, size: u64) -> Drawn {
    let nb = 2 + size as i32; // 3, 4 or 5 brokers
    let rf = if size == 1 { 2 } else { 3 };
    let parts = nb * 2 + r.below(nb as u64) as i32;
    let start = r.below(nb as u64) as i32;
    let brokers: Vec<BrokerId> = (0..nb).map(BrokerId).collect();
    let (a, _) = crate::placement::assign_replicas_to_brokers(&brokers, parts, rf, start, -1, r)
        .expect("valid placement");
    let p = r.below(parts as u64) as i32;
    let ids = |v: &[BrokerId]| list(&v.iter().map(|b| b.0).collect::<Vec<_>>());
    let answer = ids(&a[&p]);
    let mut pool: Vec<String> = a.values().map(|v| ids(v)).collect();
    let mut rev = a[&p].clone();
    rev.reverse();
    pool.push(ids(&rev));
    let first = (p + start) % nb;
    let shift = start + p / nb;
    Drawn {
        en: format!("Kafka places a topic with {parts} partitions, replication factor {rf}, on brokers 0–{} (no racks) with startIndex = {start} (fixed, so the first shift is {start} too). Which brokers hold partition {p}, preferred leader first?", nb - 1),
        zh: format!("Kafka 在 broker 0–{}（无机架）上放置一个 {parts} 分区、副本数 {rf} 的主题，startIndex = {start}（固定值，因此初始 shift 也是 {start}）。分区 {p} 的副本在哪些 broker 上（首选 leader 在前）？", nb - 1),
        pool,
        answer: answer.clone(),
        why_en: format!("The first replica is (p + startIndex) % {nb} = {first}; replica j ≥ 1 is at (first + 1 + (shift + j − 1) % {}) % {nb}, and the shift grows by one every {nb} partitions (here {shift}): {answer} (AdminUtils.assignReplicasToBrokers, C4).", nb - 1),
        why_zh: format!("第一个副本在 (p + startIndex) % {nb} = {first}；第 j 个副本（j ≥ 1）在 (首副本 + 1 + (shift + j − 1) % {}) % {nb}，shift 每 {nb} 个分区加一（这里是 {shift}）：{answer}（AdminUtils.assignReplicasToBrokers，C4）。", nb - 1),
        instance: Instance::Placement {
            brokers: nb,
            replication_factor: rf,
            start_index: start,
            partitions: parts,
            known: (0..p)
                .map(|q| a[&q].iter().map(|b| b.0).collect())
                .collect(),
            asked: p,
        },
    }
}

fn index_lookup(r: &mut Rng, size: u64) -> Drawn {
    use crate::storage::index::{encode_offset_entry, largest_lower_bound, read_entry, IndexKind};
    use crate::storage::paged::{MemStorage, Storage};
    let base = (r.below(20) * 100 * size) as i64;
    let n = 3 + 2 * size as i64;
    let mut store = MemStorage::new(4096);
    let file = "t-0/x.index";
    store.create(file).expect("in memory");
    let (mut rel, mut pos) = (0i64, 0i64);
    let mut entries = Vec::new();
    for _ in 0..n {
        rel += r.between(2, 6) as i64;
        pos += r.between(3, 9) as i64 * 512;
        store
            .append(file, &encode_offset_entry(rel as i32, pos as i32))
            .expect("in memory");
        entries.push((base + rel, pos));
    }
    let target = base + r.below(rel as u64 + 4) as i64;
    let slot = largest_lower_bound(
        &store,
        file,
        IndexKind::Offset,
        base,
        n as u64,
        target,
        &mut Vec::new(),
    )
    .expect("in memory");
    let start = slot
        .map(|s| {
            read_entry(&store, file, IndexKind::Offset, base, s)
                .expect("in memory")
                .value
        })
        .unwrap_or(0);
    let shown: Vec<String> = entries.iter().map(|(o, p)| format!("{o} → {p}")).collect();
    let mut pool: Vec<String> = entries.iter().map(|(_, p)| p.to_string()).collect();
    pool.push("0".into());
    Drawn {
        en: format!("Segment {base:020}.log has the sparse .index entries (offset → position) {}. From which .log position does the broker scan to find offset {target}?", shown.join(", ")),
        zh: format!("段 {base:020}.log 的稀疏 .index 索引项（位移 → 位置）为 {}。查找位移 {target} 时，broker 从 .log 的哪个位置开始扫描？", shown.join("，")),
        pool,
        answer: start.to_string(),
        why_en: format!("Binary search for the largest entry whose offset is ≤ {target}, then scan forward from its position ({start}); with no such entry, from position 0 (S3)."),
        why_zh: format!("二分查找位移 ≤ {target} 的最大索引项，从它的位置（{start}）向后扫描；没有这样的索引项时从位置 0 开始（S3）。"),
        instance: Instance::Lookup {
            base_offset: base,
            entries,
            target,
        },
    }
}

/// A real in-memory log: one record per batch, `segment_bytes` small so it
/// rolls, records at `times` with keys `keys`.
fn small_log(
    cfg: crate::config::LogConfig,
    records: &[(Option<String>, Option<String>, i64)],
) -> (crate::storage::paged::MemStorage, crate::storage::log::Log) {
    use crate::storage::record::{build_batch, BatchSpec, NewRecord};
    let mut s = crate::storage::paged::MemStorage::new(4096);
    let mut log = crate::storage::log::Log::create(
        &mut s,
        crate::ids::TopicPartition::new("t", 0),
        std::sync::Arc::new(cfg),
        0,
    )
    .expect("in memory");
    for (k, v, ts) in records {
        let rec = NewRecord::new(
            k.as_deref().map(str::as_bytes),
            v.as_deref().map(str::as_bytes),
            *ts,
        );
        let bytes = build_batch(&BatchSpec::default(), &[rec]);
        let p = log
            .prepare_leader_append(bytes, 0, *ts)
            .expect("valid batch");
        log.roll_and_append(&mut s, &p, *ts).expect("in memory");
    }
    (s, log)
}

fn retention(r: &mut Rng, size: u64) -> Drawn {
    use crate::storage::log::RetentionPass;
    let n = 5 + 2 * size as usize;
    let mut ts = 0i64;
    let records: Vec<(Option<String>, Option<String>, i64)> = (0..n)
        .map(|i| {
            ts += r.between(1, 4) as i64 * 1000;
            (None, Some(format!("v{i}")), ts)
        })
        .collect();
    // Segments of two records each (a one-record batch is 70 bytes here).
    let cfg = crate::config::LogConfig {
        segment_bytes: 150,
        retention_ms: r.between(2, 12) as i64 * 1000,
        ..Default::default()
    };
    let retention_ms = cfg.retention_ms;
    let (_, log) = small_log(cfg, &records);
    let now = ts + r.between(1, 5) as i64 * 1000;
    let hw = log.log_end_offset;
    let start = match log.plan_retention(RetentionPass::RetentionMs, now, hw) {
        None => log.log_start_offset,
        Some(plan) if plan.roll_first => log.log_end_offset,
        Some(plan) => {
            let last = *plan.segments.last().expect("a plan deletes something");
            log.segments
                .iter()
                .find(|s| s.base_offset > last)
                .map(|s| s.base_offset)
                .unwrap_or(log.log_end_offset)
        }
    };
    let segments: Vec<SegmentInfo> = log
        .segments
        .iter()
        .map(|s| SegmentInfo {
            first_offset: s.base_offset,
            last_offset: s.next_offset - 1,
            newest_ms: s.largest_timestamp(),
        })
        .collect();
    let segs = |newest: &str, unit: &str| {
        segments
            .iter()
            .map(|s| {
                format!(
                    "[{}–{}] {newest} {} {unit}",
                    s.first_offset,
                    s.last_offset,
                    s.newest_ms / 1000
                )
            })
            .collect::<Vec<_>>()
    };
    let pool: Vec<String> = segments
        .iter()
        .map(|s| s.first_offset.to_string())
        .chain([log.log_end_offset.to_string()])
        .collect();
    let cutoff = (now - retention_ms) / 1000;
    Drawn {
        en: format!("A partition's segments (offsets, newest record's time): {}. retention.ms = {retention_ms}, the high watermark is the log end ({hw}); the retention check runs at {} s. What is the log start offset afterwards?", segs("newest at", "s").join("; "), now / 1000),
        zh: format!("某分区的段（位移范围，最新记录时间）：{}。retention.ms = {retention_ms}，高水位等于日志末端（{hw}）；保留检查在 {} 秒运行。检查之后日志起始位移是多少？", segs("最新记录于", "秒").join("；"), now / 1000),
        pool,
        answer: start.to_string(),
        why_en: format!("Whole segments go, oldest first, while their newest record is older than now − retention.ms = {cutoff} s; the log start offset moves to the first segment kept: {start} (an expired active segment goes too, after a new empty one is rolled) (S5)."),
        why_zh: format!("从最旧的段开始，最新记录早于 当前时间 − retention.ms = {cutoff} 秒的整段删除；日志起始位移移到第一个保留的段：{start}（已过期的活跃段也会删除，先滚动出一个新的空段）（S5）。"),
        instance: Instance::Retention {
            segments,
            retention_ms,
            now_ms: now,
            log_end_offset: log.log_end_offset,
        },
    }
}

fn compaction(r: &mut Rng, size: u64) -> Drawn {
    use crate::config::{CleanupPolicy, Ratio};
    use crate::storage::cleaner;
    let keys = ["a", "b", "c", "d"];
    let n = 4 + 2 * size as usize;
    let records: Vec<(Option<String>, Option<String>, i64)> = (0..n)
        .map(|i| {
            let k = keys[r.below(1 + size) as usize];
            (
                Some(k.to_string()),
                Some(format!("{k}{i}")),
                1000 + i as i64,
            )
        })
        .chain([(Some("z".to_string()), Some("last".to_string()), 5000)])
        .collect();
    let cfg = crate::config::LogConfig {
        cleanup_policy: CleanupPolicy::COMPACT,
        segment_bytes: 160,
        min_cleanable_dirty_ratio: Ratio(0),
        ..Default::default()
    };
    let (mut s, mut log) = small_log(cfg, &records);
    let hw = log.log_end_offset;
    let c = cleaner::cleanable(&log, hw, 10_000);
    let end = c.first_uncleanable_offset;
    let removed: Vec<i64> = if c.eligible {
        let res = cleaner::clean(&mut log, &mut s, c, 10_000).expect("in memory");
        res.removed.iter().map(|x| x.offset).collect()
    } else {
        Vec::new()
    };
    let all: Vec<i64> = (0..records.len() as i64).collect();
    let survivors: Vec<i64> = all
        .iter()
        .copied()
        .filter(|o| !removed.contains(o))
        .collect();
    let key = |o: i64| &records[o as usize].0;
    let shown: Vec<String> = records
        .iter()
        .enumerate()
        .map(|(o, (k, v, _))| {
            format!(
                "{o}: {}={}",
                k.as_deref().unwrap_or("null"),
                v.as_deref().unwrap_or("null")
            )
        })
        .collect();
    // Distractors: keep the first record per key; keep the latest per key
    // over the whole log (compacting the active segment too); keep
    // everything; drop the active segment as if it were compacted away.
    let first_per_key: Vec<i64> = all
        .iter()
        .copied()
        .filter(|&o| !(0..o).any(|x| key(x) == key(o)))
        .collect();
    let latest_all: Vec<i64> = all
        .iter()
        .copied()
        .filter(|&o| !(o + 1..records.len() as i64).any(|x| key(x) == key(o)))
        .collect();
    let cleaned_part: Vec<i64> = survivors.iter().copied().filter(|o| *o < end).collect();
    let mut removed_too_few: Vec<i64> = survivors.clone();
    if let Some(first_removed) = removed.first() {
        removed_too_few.push(*first_removed);
        removed_too_few.sort();
    }
    Drawn {
        en: format!("A compacted topic's partition holds {} (one record per batch). Offsets from {end} on are in the active segment. After one cleaner pass, which offsets remain?", shown.join(", ")),
        zh: format!("某压缩主题的分区中有 {}（每批一条）。位移 {end} 起位于活跃段。清理一次之后，还剩哪些位移？", shown.join("，")),
        pool: [first_per_key, latest_all, all.clone(), cleaned_part, removed_too_few]
            .iter()
            .filter(|v| !v.is_empty())
            .map(|v| list(v))
            .collect(),
        answer: list(&survivors),
        why_en: format!("For every key the cleaner keeps only its latest record in the cleanable part (offsets before {end}, the active segment's base); the active segment is not touched, and offsets do not change, so gaps appear: {} (S6).", list(&survivors)),
        why_zh: format!("在可清理部分（活跃段起点 {end} 之前的位移）中，清理器为每个 key 只保留最新的一条；活跃段不动，位移不变，因此出现空洞：{}（S6）。", list(&survivors)),
        instance: Instance::Compaction {
            records: records
                .iter()
                .enumerate()
                .map(|(o, (k, v, _))| KeyedRecord {
                    offset: o as i64,
                    key: k.clone().unwrap_or_default(),
                    value: v.clone().unwrap_or_default(),
                })
                .collect(),
            active_from: end,
        },
    }
}

#[cfg(test)]
mod tests {
    //! Each template over 1,000 seeds at every level: at least four distinct
    //! choices, the answer among them, both languages, a premise consistent
    //! with its data, and the answer re-derived from the drawn instance alone
    //! by code written here from the rule (not the engine's functions).
    use super::*;

    const SEEDS: u64 = 1000;
    const LEVELS: [Level; 3] = [Level::Easy, Level::Medium, Level::Hard];

    fn all(kind: Kind) -> impl Iterator<Item = Exercise> {
        LEVELS
            .into_iter()
            .flat_map(move |l| (0..SEEDS).map(move |s| generate(kind, l, s)))
    }

    fn has_cjk(s: &str) -> bool {
        s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
    }

    #[test]
    fn every_question_has_four_distinct_choices_and_both_languages() {
        for kind in Kind::ALL {
            for e in all(kind) {
                assert!(e.choices.contains(&e.answer), "{e:?}");
                let mut c = e.choices.clone();
                c.sort();
                c.dedup();
                assert_eq!(c.len(), e.choices.len(), "distinct choices: {e:?}");
                assert!(e.choices.len() >= MIN_CHOICES, "{e:?}");
                assert!(has_cjk(&e.question_zh), "{e:?}");
                assert!(has_cjk(&e.explanation_zh), "{e:?}");
                assert!(
                    !e.explanation_en.is_empty()
                        && !has_cjk(&e.explanation_en.replace("推荐", "").replace("订单", "")),
                    "{e:?}"
                );
            }
            let e = generate(kind, Level::Hard, 7);
            assert_eq!(
                generate(kind, Level::Hard, 7),
                e,
                "same seed, same question"
            );
        }
    }

    fn java_hash(s: &str) -> i32 {
        s.encode_utf16()
            .fold(0i32, |h, u| h.wrapping_mul(31).wrapping_add(u as i32))
    }

    #[test]
    fn partition_and_coordinator_give_the_hash_and_ask_for_the_modulo() {
        for e in all(Kind::Partition) {
            let Instance::Partition {
                key,
                murmur2: m,
                to_positive: p,
                partitions: n,
            } = &e.instance
            else {
                panic!("{e:?}")
            };
            assert_eq!(*m, murmur2(key.as_bytes()));
            assert_eq!(*p, m & 0x7fff_ffff);
            assert!(
                e.question_en.contains(&m.to_string()) && e.question_en.contains(&p.to_string())
            );
            assert!(e.question_zh.contains(&p.to_string()));
            assert_eq!(e.answer, (p % n).to_string(), "{e:?}");
        }
        for e in all(Kind::Coordinator) {
            let Instance::Coordinator {
                group,
                hash_code,
                abs,
                partitions,
            } = &e.instance
            else {
                panic!("{e:?}")
            };
            assert_eq!(*hash_code, java_hash(group));
            assert_eq!(
                *abs,
                if *hash_code == i32::MIN {
                    0
                } else {
                    hash_code.abs()
                }
            );
            assert!(
                e.question_en.contains(&abs.to_string())
                    && e.question_zh.contains(&abs.to_string())
            );
            assert_eq!(e.answer, (abs % partitions).to_string(), "{e:?}");
        }
    }

    /// Range and RoundRobin as the notes state them.
    fn owner_by_rule(
        assignor: &str,
        topics: &[(String, i32)],
        members: &[(String, Vec<String>)],
        topic: &str,
        partition: i32,
    ) -> String {
        let subscribed = |t: &str| -> Vec<&String> {
            members
                .iter()
                .filter(|(_, s)| s.iter().any(|x| x == t))
                .map(|(m, _)| m)
                .collect()
        };
        if assignor == "range" {
            let n = topics.iter().find(|(t, _)| t == topic).unwrap().1;
            let ms = subscribed(topic);
            let (each, extra) = (n / ms.len() as i32, n % ms.len() as i32);
            let mut next = 0;
            for (i, m) in ms.iter().enumerate() {
                let count = each + i32::from((i as i32) < extra);
                if (next..next + count).contains(&partition) {
                    return m.to_string();
                }
                next += count;
            }
            unreachable!()
        }
        let mut turn = 0usize;
        for (t, n) in topics {
            for p in 0..*n {
                let start = turn;
                while !members[turn % members.len()].1.contains(t) {
                    turn += 1;
                    assert!(turn - start <= members.len(), "nobody subscribes to {t}");
                }
                if t == topic && p == partition {
                    return members[turn % members.len()].0.clone();
                }
                turn += 1;
            }
        }
        unreachable!()
    }

    #[test]
    fn assignment_answers_follow_range_and_roundrobin_as_the_notes_state_them() {
        let mut unequal = 0;
        for e in all(Kind::Assignment) {
            let Instance::Assignment {
                assignor,
                topics,
                members,
                topic,
                partition,
            } = &e.instance
            else {
                panic!("{e:?}")
            };
            let want = owner_by_rule(assignor, topics, members, topic, *partition);
            assert_eq!(e.answer, want, "{e:?}");
            unequal += usize::from(members.iter().any(|(_, s)| s.len() != topics.len()));
        }
        assert!(
            unequal > 500,
            "hard questions have unequal subscriptions: {unequal}"
        );
    }

    #[test]
    fn election_names_the_dead_leader_and_follows_the_rule() {
        let (mut none, mut unclean) = (0, 0);
        for e in all(Kind::Election) {
            let Instance::Election {
                replicas,
                died,
                unclean_leader_election_enable: u,
            } = &e.instance
            else {
                panic!("{e:?}")
            };
            let dead = replicas.iter().find(|r| r.broker == *died).unwrap();
            assert!(
                dead.in_isr && !dead.alive,
                "the leader was in the ISR and is dead: {e:?}"
            );
            assert!(e
                .question_en
                .starts_with(&format!("Broker {died}, the leader, died")));
            let clean = replicas.iter().find(|r| r.in_isr && r.alive);
            let want = match (clean, u) {
                (Some(r), _) => r.broker.to_string(),
                (None, true) => replicas
                    .iter()
                    .find(|r| r.alive)
                    .map_or(NONE.to_string(), |r| r.broker.to_string()),
                (None, false) => NONE.to_string(),
            };
            assert_eq!(e.answer, want, "{e:?}");
            none += usize::from(want == NONE);
            unclean += usize::from(clean.is_none() && *u && want != NONE);
        }
        assert!(
            none > 50 && unclean > 10,
            "varied answers: none {none}, unclean {unclean}"
        );
    }

    #[test]
    fn high_watermark_is_the_smallest_isr_leo_and_the_leader_is_ahead() {
        for e in all(Kind::HighWatermark) {
            let Instance::HighWatermark { leader, replicas } = &e.instance else {
                panic!("{e:?}")
            };
            let l = replicas.iter().find(|r| r.broker == *leader).unwrap();
            assert!(l.in_isr && replicas.iter().all(|r| r.leo <= l.leo), "{e:?}");
            let hw = replicas
                .iter()
                .filter(|r| r.in_isr)
                .map(|r| r.leo)
                .min()
                .unwrap();
            assert_eq!(e.answer, hw.to_string(), "{e:?}");
        }
    }

    #[test]
    fn placement_follows_assign_replicas_to_brokers_independently() {
        for e in all(Kind::Placement) {
            let Instance::Placement {
                brokers: n,
                replication_factor: rf,
                start_index,
                partitions,
                known,
                asked,
            } = &e.instance
            else {
                panic!("{e:?}")
            };
            assert!(asked < partitions);
            let replicas = |p: i32| -> Vec<i32> {
                let first = (p + start_index) % n;
                let shift = start_index + p / n;
                std::iter::once(first)
                    .chain((0..rf - 1).map(|j| (first + 1 + (shift + j) % (n - 1)) % n))
                    .collect()
            };
            for (p, k) in known.iter().enumerate() {
                assert_eq!(*k, replicas(p as i32), "{e:?}");
            }
            assert_eq!(e.answer, list(&replicas(*asked)), "{e:?}");
        }
    }

    #[test]
    fn lookup_answers_follow_the_sparse_index_rule_independently() {
        for e in all(Kind::Lookup) {
            let Instance::Lookup {
                entries, target, ..
            } = &e.instance
            else {
                panic!("{e:?}")
            };
            let want = entries
                .iter()
                .filter(|(o, _)| o <= target)
                .map(|(_, p)| *p)
                .next_back()
                .unwrap_or(0);
            assert_eq!(e.answer, want.to_string(), "{e:?}");
        }
    }

    #[test]
    fn retention_deletes_whole_expired_segments_oldest_first() {
        let mut kinds = [0; 3];
        for e in all(Kind::Retention) {
            let Instance::Retention {
                segments,
                retention_ms,
                now_ms,
                log_end_offset,
            } = &e.instance
            else {
                panic!("{e:?}")
            };
            let expired = segments
                .iter()
                .take_while(|s| now_ms - s.newest_ms > *retention_ms)
                .count();
            let want = if expired == segments.len() {
                *log_end_offset
            } else {
                segments[expired].first_offset
            };
            kinds[if expired == 0 {
                0
            } else if expired == segments.len() {
                2
            } else {
                1
            }] += 1;
            assert_eq!(e.answer, want.to_string(), "{e:?}");
        }
        assert!(
            kinds.iter().all(|k| *k > 20),
            "none, some and all expire: {kinds:?}"
        );
    }

    #[test]
    fn compaction_keeps_the_latest_record_per_key_before_the_active_segment() {
        for e in all(Kind::Compaction) {
            let Instance::Compaction {
                records,
                active_from,
            } = &e.instance
            else {
                panic!("{e:?}")
            };
            let want: Vec<String> = records
                .iter()
                .filter(|r| {
                    r.offset >= *active_from
                        || !records.iter().any(|x| {
                            x.key == r.key && x.offset > r.offset && x.offset < *active_from
                        })
                })
                .map(|r| r.offset.to_string())
                .collect();
            assert_eq!(e.answer, want.join(", "), "{e:?}");
        }
    }
}
