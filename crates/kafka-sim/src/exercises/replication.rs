//! Templates about replicas: which replica the controller elects, where
//! the high watermark stands, and where `assignReplicasToBrokers` places
//! the replicas of a new topic.

use super::*;

pub(super) fn election(r: &mut Rng, size: u64) -> Drawn {
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
            format!("The controller walks AR {} in order and takes the first replica that is alive and in the ISR: broker {}.", ids(&ar), b.0),
            format!("控制器按 AR {} 的顺序查找，选第一个存活且在 ISR 中的副本：broker {}。", ids(&ar), b.0),
        ),
        (Some(b), true) => (
            format!("No replica of the ISR is alive. With unclean.leader.election.enable=true the controller takes the first live replica in AR order, broker {}, and records it may not have can be lost.", b.0),
            format!("ISR 中没有存活的副本。由于 unclean.leader.election.enable=true，控制器按 AR 顺序选第一个存活的副本 broker {}，它没有的记录会丢失。", b.0),
        ),
        (None, _) => (
            "No replica is both alive and in the ISR, and unclean election is off: there is no leader and the partition goes offline until an ISR replica returns.".to_string(),
            "没有既存活又在 ISR 中的副本，且不允许 unclean 选举：没有 leader，分区下线，直到 ISR 中的副本恢复。".to_string(),
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

pub(super) fn high_watermark(r: &mut Rng, size: u64) -> Drawn {
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
        why_en: format!("The high watermark is the smallest LEO among the ISR: {hw}. Replicas out of the ISR do not hold it back."),
        why_zh: format!("高水位是 ISR 中最小的 LEO：{hw}。不在 ISR 中的副本不影响它。"),
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

pub(super) fn placement(r: &mut Rng, size: u64) -> Drawn {
    let nb = 2 + size as i32; // 3, 4 or 5 brokers
    let rf = if size == 1 { 2 } else { 3 };
    let parts = nb * 2 + r.below(nb as u64) as i32;
    let start = r.below(nb as u64) as i32;
    let ids: Vec<BrokerId> = (0..nb).map(BrokerId).collect();
    let brokers = crate::placement::BrokerMetadata::without_racks(&ids);
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
