//! Templates about where a record or a group goes: the partition of a key
//! (murmur2 or `hashCode`, then the modulo), a group's coordinator
//! (`__consumer_offsets` partition), and an assignor's result.

use super::*;

pub(super) fn partition(r: &mut Rng, size: u64) -> Drawn {
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
        why_en: format!("The default partitioner takes toPositive(murmur2(key)) modulo the partition count: {pos} % {n} = {p}."),
        why_zh: format!("默认分区器用 toPositive(murmur2(key)) 对分区数取模：{pos} % {n} = {p}。"),
        instance: Instance::Partition {
            key,
            murmur2: m,
            to_positive: pos,
            partitions: n,
        },
    }
}

pub(super) fn coordinator(r: &mut Rng, size: u64) -> Drawn {
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
        why_en: format!("The group's offsets live in __consumer_offsets partition Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions = {a} % {n} = {p}; that partition's leader is the group coordinator."),
        why_zh: format!("组的位移保存在 __consumer_offsets 的第 Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions = {a} % {n} = {p} 个分区；该分区的 leader 就是组协调者。"),
        instance: Instance::Coordinator {
            group,
            hash_code: h,
            abs: a,
            partitions: n,
        },
    }
}

pub(super) fn assignment(r: &mut Rng, size: u64) -> Drawn {
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
                rack_id: None,
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
    // RoundRobin's order of this group's own partitions, as it lays them
    // out (topic by topic, each in partition order), to the first of the
    // second topic.
    let laid_out = {
        let mut v: Vec<String> = Vec::new();
        for (i, (t, n)) in topics.iter().enumerate() {
            let take = if i == 0 { *n } else { 1 };
            v.extend((0..take).map(|p| format!("{t}-{p}")));
            if i > 0 {
                break;
            }
        }
        v
    };
    let (rule_en, rule_zh) = match strategy {
        AssignorName::Range => (
            "Range works topic by topic: the members subscribed to the topic, sorted by member id, get partitions/members each in contiguous ranges, and the first partitions%members get one more.".to_string(),
            "Range 按主题逐个分配：订阅该主题的成员按成员 id 排序，每人得到 分区数/成员数 个连续分区，前 分区数%成员数 个成员各多一个。".to_string(),
        ),
        _ => (
            format!("RoundRobin lays out every partition of every topic in order ({}, …) and deals them to the members in member-id order, skipping a member not subscribed to the partition's topic.", laid_out.join(", ")),
            format!("RoundRobin 把所有主题的所有分区按顺序排开（{}……），按成员 id 顺序轮流分给成员，跳过没有订阅该主题的成员。", laid_out.join("、")),
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
