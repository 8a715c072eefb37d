//! Exercises in the spirit of VisuAlgo's training mode: a question drawn at
//! random from a template, at easy / medium / hard, with its answer computed
//! by the engine's own functions (murmur2, the coordinator partition, the
//! assignors, leader election, the high watermark, replica placement, the
//! `.index` binary search, retention and the log cleaner run on a real
//! in-memory log). Same seed, same question. `kafka-sim exercise` prints
//! them for teachers; the page's Practice view asks them.

use crate::assignor::{assign, MemberSubscription};
use crate::client_config::AssignorName;
use crate::collections::SortedMap;
use crate::election::{elect, ElectionAlgorithm, ElectionInput};
use crate::ids::BrokerId;
use crate::partitioner::{coordinator_partition, murmur2, to_positive};
use crate::rng::Rng;
use serde::Serialize;

/// The templates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Which partition does key K go to (murmur2)?
    Partition,
    /// Which `__consumer_offsets` partition holds group G?
    Coordinator,
    /// Which member gets partition t-p under an assignor?
    Assignment,
    /// Which broker becomes leader (AR, ISR, live brokers)?
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
    pub explanation: String,
}

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
        _ => a.cmp(b),
    });
    out
}

/// Draws the exercise for (kind, level, seed).
pub fn generate(kind: Kind, level: Level, seed: u64) -> Exercise {
    let mut r = Rng::new(seed ^ (kind as u64) << 48 ^ (level as u64) << 56);
    let size = match level {
        Level::Easy => 1,
        Level::Medium => 2,
        Level::Hard => 3,
    };
    let (question_en, question_zh, choices, answer, explanation) = match kind {
        Kind::Partition => {
            let key = format!(
                "{}-{}",
                pick(&mut r, &["order", "user", "cart", "sensor", "订单"]),
                r.below(1000 * size)
            );
            let n: i32 = [3, 6, 12][size as usize - 1] + r.below(5) as i32;
            let m = murmur2(key.as_bytes());
            let p = to_positive(m) % n;
            (
                format!("A producer sends a record with key \"{key}\" to a topic with {n} partitions (default partitioner). Which partition?"),
                format!("生产者发送 key 为 \"{key}\" 的消息到有 {n} 个分区的主题（默认分区器）。进入哪个分区？"),
                (0..n).map(|x| x.to_string()).collect::<Vec<_>>(),
                p.to_string(),
                format!("murmur2(\"{key}\") = {m}; toPositive = {}; {} % {n} = {p}", to_positive(m), to_positive(m)),
            )
        }
        Kind::Coordinator => {
            let group = format!(
                "{}-{}",
                pick(&mut r, &["payments", "search", "billing", "clicks", "推荐"]),
                r.below(100 * size)
            );
            let n: i32 = [5, 10, 50][size as usize - 1];
            let p = coordinator_partition(&group, n);
            (
                format!("offsets.topic.num.partitions = {n}. Which __consumer_offsets partition's leader coordinates group \"{group}\"?"),
                format!("offsets.topic.num.partitions = {n}。消费者组 \"{group}\" 的协调者是 __consumer_offsets 哪个分区的 leader？"),
                (0..n).map(|x| x.to_string()).collect(),
                p.to_string(),
                format!(
                    "Utils.abs(\"{group}\".hashCode()) % {n} = {p}",
                ),
            )
        }
        Kind::Assignment => {
            let strategy = [
                AssignorName::Range,
                AssignorName::RoundRobin,
                AssignorName::Sticky,
            ][r.below(size.min(3)) as usize];
            let nt = size as usize;
            let mut topics = SortedMap::new();
            for t in 0..nt {
                topics.insert(format!("t{t}"), r.between(2, 4 + 2 * size) as i32);
            }
            let names: Vec<String> = topics.keys().cloned().collect();
            let nm = r.between(2, 2 + size) as usize;
            let members: Vec<MemberSubscription> = (0..nm)
                .map(|i| MemberSubscription {
                    member_id: format!("C{i}"),
                    group_instance_id: None,
                    topics: if level == Level::Hard && i == 0 {
                        vec![names[0].clone()]
                    } else {
                        names.clone()
                    },
                    owned_partitions: Vec::new(),
                    generation: None,
                })
                .collect();
            let res = assign(strategy, &topics, &members).expect("valid group");
            let t = &names[r.below(names.len() as u64) as usize];
            let p = r.below(topics[t] as u64) as i32;
            let owner = res
                .assignment
                .iter()
                .find(|(_, v)| v.iter().any(|x| &x.topic == t && x.partition == p))
                .map(|(m, _)| m.clone())
                .expect("every partition is assigned");
            let subs: Vec<String> = members
                .iter()
                .map(|m| format!("{} → {}", m.member_id, m.topics.join("+")))
                .collect();
            let parts: Vec<String> = topics.iter().map(|(t, n)| format!("{t}: {n}")).collect();
            (
                format!(
                    "Group with {} (partitions {}), assignor {}. Which member gets {t}-{p}?",
                    subs.join(", "),
                    parts.join(", "),
                    strategy.protocol_name()
                ),
                format!(
                    "消费者组 {}（分区数 {}），分配策略 {}。{t}-{p} 分给哪个成员？",
                    subs.join("，"),
                    parts.join("，"),
                    strategy.protocol_name()
                ),
                members.iter().map(|m| m.member_id.clone()).collect(),
                owner,
                res.assignment
                    .iter()
                    .map(|(m, v)| {
                        format!(
                            "{m}: {}",
                            v.iter()
                                .map(|p| p.to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        }
        Kind::Election => {
            let nb = 2 + size as i32;
            let mut ar: Vec<BrokerId> = (0..nb).map(BrokerId).collect();
            // A shuffled assignment order.
            for i in (1..ar.len()).rev() {
                let j = r.below(i as u64 + 1) as usize;
                ar.swap(i, j);
            }
            let isr: Vec<BrokerId> = ar.iter().copied().filter(|_| r.chance(3, 4)).collect();
            let isr = if isr.is_empty() { vec![ar[0]] } else { isr };
            let mut live: Vec<BrokerId> = ar.iter().copied().filter(|_| r.chance(2, 3)).collect();
            if live.is_empty() {
                live.push(ar[ar.len() - 1]);
            }
            let out = elect(&ElectionInput {
                algorithm: ElectionAlgorithm::Offline,
                assignment: ar.clone(),
                isr: isr.clone(),
                live: live.clone(),
                unclean_leader_election_enable: false,
                shutting_down: Vec::new(),
            });
            let answer = out
                .leader
                .map(|b| b.0.to_string())
                .unwrap_or_else(|| "none".into());
            let ids = |v: &[BrokerId]| crate::event::ids_list(v);
            let mut pool: Vec<String> = ar.iter().map(|b| b.0.to_string()).collect();
            pool.push("none".into());
            (
                format!(
                    "The leader died. AR {}, ISR {}, live brokers {}, unclean.leader.election.enable=false. Who becomes leader?",
                    ids(&ar),
                    ids(&isr),
                    ids(&live)
                ),
                format!(
                    "leader 宕机。AR {}，ISR {}，存活 broker {}，unclean.leader.election.enable=false。谁成为 leader？",
                    ids(&ar),
                    ids(&isr),
                    ids(&live)
                ),
                pool,
                answer,
                "The first replica in AR order that is alive and in the ISR; none if there is no such replica (the partition goes offline).".into(),
            )
        }
        Kind::HighWatermark => {
            let n = 2 + size as usize;
            let mut leos: Vec<i64> = (0..n).map(|_| r.between(3, 10 * size) as i64).collect();
            // Followers copy from the leader: none is ahead of it.
            leos[0] = *leos.iter().max().expect("n > 0");
            let in_isr: Vec<bool> = (0..n).map(|i| i == 0 || r.chance(2, 3)).collect();
            let hw = leos
                .iter()
                .zip(&in_isr)
                .filter(|(_, i)| **i)
                .map(|(l, _)| *l)
                .min()
                .expect("the leader is in the ISR");
            let desc: Vec<String> = leos
                .iter()
                .zip(&in_isr)
                .enumerate()
                .map(|(b, (l, i))| {
                    format!(
                        "broker {b}: LEO {l}{}",
                        if *i { " (ISR)" } else { " (out of ISR)" }
                    )
                })
                .collect();
            let mut pool: Vec<String> = leos.iter().map(|l| l.to_string()).collect();
            pool.extend(["0".to_string(), (hw + 1).to_string()]);
            (
                format!("Replicas of a partition: {}. Every ISR follower has fetched up to its LEO. What high watermark can the leader (broker 0) set?", desc.join(", ")),
                format!("某分区副本：{}。ISR 中的 follower 均已拉取到各自的 LEO。leader（broker 0）能把 HW 设为多少？", desc.join("，")),
                pool,
                hw.to_string(),
                "The high watermark is the smallest LEO among the ISR; replicas out of the ISR do not count.".into(),
            )
        }
        Kind::Placement => placement(&mut r, size),
        Kind::Lookup => index_lookup(&mut r, size),
        Kind::Retention => retention(&mut r, size),
        Kind::Compaction => compaction(&mut r, size),
    };
    let choices = make_choices(&mut r, &answer, choices, 4);
    Exercise {
        kind,
        level,
        seed,
        question_en,
        question_zh,
        choices,
        answer,
        explanation,
    }
}

/// (question in English, in Chinese, choices pool, answer, explanation).
type Drawn = (String, String, Vec<String>, String, String);

fn list<T: std::fmt::Display>(v: &[T]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
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
    (
        format!("Kafka places a topic with {parts} partitions, replication factor {rf}, on brokers 0–{} (no racks) with startIndex = {start} (fixed, so the first shift is {start} too). Which brokers hold partition {p}, preferred leader first?", nb - 1),
        format!("Kafka 在 broker 0–{}（无机架）上放置一个 {parts} 分区、副本数 {rf} 的主题，startIndex = {start}（固定值，因此初始 shift 也是 {start}）。分区 {p} 的副本在哪些 broker 上（首选 leader 在前）？", nb - 1),
        pool,
        answer,
        format!("First replica: (p + startIndex) % {nb}; the others follow at 1 + (shift + j) % {}, the shift growing every {nb} partitions (AdminUtils.assignReplicasToBrokers).", nb - 1),
    )
}

fn index_lookup(r: &mut Rng, size: u64) -> Drawn {
    use crate::storage::index::{encode_offset_entry, largest_lower_bound, read_entry, IndexKind};
    use crate::storage::paged::{MemStorage, Storage};
    let base = (r.below(20) * 100 * size) as i64;
    let n = 2 + 2 * size as i64;
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
    (
        format!("Segment {base:020}.log has the sparse .index entries (offset → position) {}. From which .log position does the broker scan to find offset {target}?", shown.join(", ")),
        format!("段 {base:020}.log 的稀疏 .index 索引项（位移 → 位置）为 {}。查找位移 {target} 时，broker 从 .log 的哪个位置开始扫描？", shown.join("，")),
        pool,
        start.to_string(),
        "Binary search for the largest entry whose offset is ≤ the target, then scan forward from its position; with no such entry, from position 0.".into(),
    )
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
    let n = 3 + 2 * size as usize;
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
        retention_ms: r.between(2, 6) as i64 * 1000,
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
    let segs = |newest: &str, unit: &str| {
        log.segments
            .iter()
            .map(|s| {
                let (first, last) = (s.base_offset, s.next_offset - 1);
                format!(
                    "[{first}–{last}] {newest} {} {unit}",
                    s.largest_timestamp() / 1000
                )
            })
            .collect::<Vec<_>>()
    };
    let pool: Vec<String> = log
        .segments
        .iter()
        .map(|s| s.base_offset.to_string())
        .chain([log.log_end_offset.to_string()])
        .collect();
    (
        format!("A partition's segments (offsets, newest record's time): {}. retention.ms = {retention_ms}, the high watermark is the log end ({hw}); the retention check runs at {} s. What is the log start offset afterwards?", segs("newest at", "s").join("; "), now / 1000),
        format!("某分区的段（位移范围，最新记录时间）：{}。retention.ms = {retention_ms}，高水位等于日志末端（{hw}）；保留检查在 {} 秒运行。检查之后日志起始位移是多少？", segs("最新记录于", "秒").join("；"), now / 1000),
        pool,
        start.to_string(),
        "Whole segments go, oldest first, while their newest record is older than retention.ms; the log start offset moves to the first segment kept (an expired active segment goes too, after a new empty one is rolled).".into(),
    )
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
    let survivors: Vec<i64> = (0..records.len() as i64)
        .filter(|o| !removed.contains(o))
        .collect();
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
    // Distractors: keep everything, keep first per key, keep latest per key over the whole log.
    let first_per_key: Vec<i64> = (0..records.len() as i64)
        .filter(|&o| {
            !records[..o as usize]
                .iter()
                .any(|x| x.0 == records[o as usize].0)
        })
        .collect();
    let latest_all: Vec<i64> = (0..records.len() as i64)
        .filter(|&o| {
            !records[o as usize + 1..]
                .iter()
                .any(|x| x.0 == records[o as usize].0)
        })
        .collect();
    let all: Vec<i64> = (0..records.len() as i64).collect();
    (
        format!("A compacted topic's partition holds {} (one record per batch). Offsets from {end} on are in the active segment. After one cleaner pass, which offsets remain?", shown.join(", ")),
        format!("某压缩主题的分区中有 {}（每批一条）。位移 {end} 起位于活跃段。清理一次之后，还剩哪些位移？", shown.join("，")),
        vec![list(&first_per_key), list(&latest_all), list(&all)],
        list(&survivors),
        "For every key the cleaner keeps only its latest record in the cleanable part (before the active segment); offsets do not change, so gaps appear.".into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_answers_from_its_own_choices_over_many_seeds() {
        for kind in Kind::ALL {
            for level in [Level::Easy, Level::Medium, Level::Hard] {
                for seed in 0..300 {
                    let e = generate(kind, level, seed);
                    assert!(e.choices.contains(&e.answer), "{e:?}");
                    let mut c = e.choices.clone();
                    c.dedup();
                    assert_eq!(c.len(), e.choices.len(), "distinct choices: {e:?}");
                    assert!(e.choices.len() >= 2, "{e:?}");
                    assert_eq!(generate(kind, level, seed), e, "same seed, same question");
                }
            }
        }
    }

    #[test]
    fn lookup_answers_follow_the_sparse_index_rule_independently() {
        for seed in 0..1000 {
            let e = generate(Kind::Lookup, Level::Hard, seed);
            let q = &e.question_en;
            let entries: Vec<(i64, i64)> = q
                .split("position) ")
                .nth(1)
                .unwrap()
                .split(". From")
                .next()
                .unwrap()
                .split(", ")
                .map(|x| {
                    let (o, p) = x.split_once(" → ").unwrap();
                    (o.parse().unwrap(), p.parse().unwrap())
                })
                .collect();
            let target: i64 = q
                .rsplit("offset ")
                .next()
                .unwrap()
                .trim_end_matches('?')
                .parse()
                .unwrap();
            let want = entries
                .iter()
                .filter(|(o, _)| *o <= target)
                .map(|(_, p)| *p)
                .next_back()
                .unwrap_or(0);
            assert_eq!(e.answer, want.to_string(), "{q}");
        }
    }

    #[test]
    fn compaction_keeps_the_latest_record_per_key_before_the_active_segment() {
        for seed in 0..500 {
            let e = generate(Kind::Compaction, Level::Hard, seed);
            let q = &e.question_en;
            let recs: Vec<(i64, String)> = q
                .split("holds ")
                .nth(1)
                .unwrap()
                .split(" (one record")
                .next()
                .unwrap()
                .split(", ")
                .map(|x| {
                    let (o, kv) = x.split_once(": ").unwrap();
                    (
                        o.parse().unwrap(),
                        kv.split('=').next().unwrap().to_string(),
                    )
                })
                .collect();
            let end: i64 = q
                .split("Offsets from ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            let want: Vec<String> = recs
                .iter()
                .filter(|(o, k)| {
                    *o >= end || !recs.iter().any(|(o2, k2)| k2 == k && o2 > o && *o2 < end)
                })
                .map(|(o, _)| o.to_string())
                .collect();
            assert_eq!(e.answer, want.join(", "), "{q}");
        }
    }

    #[test]
    fn election_answers_follow_the_rule_independently() {
        // Re-derive the winner from the question's own lists.
        for seed in 0..1000 {
            let e = generate(Kind::Election, Level::Hard, seed);
            let lists: Vec<Vec<i32>> = e
                .question_en
                .split('[')
                .skip(1)
                .map(|s| {
                    s.split(']')
                        .next()
                        .unwrap()
                        .split(',')
                        .filter(|x| !x.is_empty())
                        .map(|x| x.parse().unwrap())
                        .collect()
                })
                .collect();
            let (ar, isr, live) = (&lists[0], &lists[1], &lists[2]);
            let want = ar
                .iter()
                .find(|b| isr.contains(b) && live.contains(b))
                .map(|b| b.to_string())
                .unwrap_or_else(|| "none".into());
            assert_eq!(e.answer, want, "{}", e.question_en);
        }
    }
}
