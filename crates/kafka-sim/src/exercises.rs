//! Exercises in the spirit of VisuAlgo's training mode: a question drawn at
//! random from a template, at easy / medium / hard, with its answer computed
//! by the engine's own functions (murmur2, the coordinator partition, the
//! assignors, leader election, the high watermark). Same seed, same
//! question. `kafka-sim exercise` prints them for teachers.

use crate::assignor::{assign, MemberSubscription};
use crate::client_config::AssignorName;
use crate::election::{elect, ElectionAlgorithm, ElectionInput};
use crate::ids::BrokerId;
use crate::partitioner::{coordinator_partition, murmur2, to_positive};
use crate::rng::Rng;
use serde::Serialize;
use std::collections::BTreeMap;

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
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Partition,
        Kind::Coordinator,
        Kind::Assignment,
        Kind::Election,
        Kind::HighWatermark,
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
                format!("offsets.topic.num.partitions = {n}。消费组 \"{group}\" 的协调者是 __consumer_offsets 哪个分区的 leader？"),
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
            let mut topics = BTreeMap::new();
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
                    "消费组 {}（分区数 {}），分配策略 {}。{t}-{p} 分给哪个成员？",
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
