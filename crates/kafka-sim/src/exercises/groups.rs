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

/// KIP-848: the broker computes the target assignment with the uniform
/// assignor (homogeneous builder, one topic). Easy: three members, then a
/// fourth joins. Medium: four, then a fifth. Hard: the topic also gained
/// partitions.
pub(super) fn server_assignment(r: &mut Rng, size: u64) -> Drawn {
    use crate::assignor::server::{uniform_homogeneous, OrderedAssignment, ServerMember};
    let topic = pick(r, &["t0", "t1", "t2"]).to_string();
    let before = match size {
        1 => r.between(6, 8),
        2 => r.between(9, 12),
        _ => r.between(8, 11),
    } as i32;
    let now = if size == 3 {
        before + r.between(2, 4) as i32
    } else {
        before
    };
    let n_before = if size == 1 { 3 } else { 4 };
    let names = ["A", "B", "C", "D", "E"];
    let member = |id: &str, held: Vec<i32>| ServerMember {
        member_id: id.to_string(),
        instance_id: None,
        rack_id: None,
        subscribed_topics: vec![topic.clone()],
        current_assignment: OrderedAssignment(if held.is_empty() {
            Vec::new()
        } else {
            vec![(topic.clone(), held)]
        }),
    };
    let counts = |n: i32| {
        [(topic.clone(), n)]
            .into_iter()
            .collect::<SortedMap<String, i32>>()
    };
    let first: Vec<ServerMember> = names[..n_before]
        .iter()
        .map(|m| member(m, Vec::new()))
        .collect();
    let held = uniform_homogeneous(&counts(before), &SortedMap::new(), &first)
        .expect("one topic, members subscribed");
    let joined = names[n_before].to_string();
    let mut members: Vec<ServerMember> = held
        .iter()
        .map(|(m, ts)| member(m, ts.get(&topic).cloned().unwrap_or_default()))
        .collect();
    members.push(member(&joined, Vec::new()));
    let target = uniform_homogeneous(&counts(now), &SortedMap::new(), &members)
        .expect("one topic, members subscribed");
    let owner_of = |p: i32| {
        target
            .iter()
            .find(|(_, ts)| ts.get(&topic).is_some_and(|v| v.contains(&p)))
            .map(|(m, _)| m.clone())
            .expect("every partition is assigned")
    };
    // Ask about a partition that moves (or is new) when there is one.
    let moved: Vec<i32> = (0..now)
        .filter(|p| {
            let had = members
                .iter()
                .find(|m| m.current_assignment.0.iter().any(|(_, v)| v.contains(p)));
            had.map(|m| m.member_id.clone()) != Some(owner_of(*p))
        })
        .collect();
    let partition = if moved.is_empty() || r.chance(1, 4) {
        r.below(now as u64) as i32
    } else {
        moved[r.below(moved.len() as u64) as usize]
    };
    let answer = owner_of(partition);
    let show = |v: &[i32]| {
        if v.is_empty() {
            "—".to_string()
        } else {
            v.iter()
                .map(|p| format!("{topic}-{p}"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    // (member, what it holds now), in the assignor's order.
    let now_held: Vec<(String, Vec<i32>)> = members
        .iter()
        .map(|m| {
            let v = m.current_assignment.0.first().map(|(_, v)| v.clone());
            (m.member_id.clone(), v.unwrap_or_default())
        })
        .collect();
    let holding: Vec<String> = now_held
        .iter()
        .map(|(m, v)| format!("{m} [{}]", show(v)))
        .collect();
    let result: Vec<String> = target
        .iter()
        .map(|(m, ts)| {
            format!(
                "{m}: {}",
                show(ts.get(&topic).map(Vec::as_slice).unwrap_or(&[]))
            )
        })
        .collect();
    let k = members.len() as i32;
    let (q, extra) = (now / k, now % k);
    let grown_en = if now > before {
        format!(" {topic} has just grown from {before} to {now} partitions.")
    } else {
        String::new()
    };
    let grown_zh = if now > before {
        format!("{topic} 刚从 {before} 个分区扩到 {now} 个。")
    } else {
        String::new()
    };
    Drawn {
        en: format!(
            "A consumer group with group.protocol=consumer (KIP-848): the broker computes the assignment with the uniform assignor (group.remote.assignor=uniform). Every member subscribes to {topic} ({now} partitions). Members, in the order the assignor visits them, and what they hold: {}. {joined} has just joined.{grown_en} In the new target assignment, which member gets {topic}-{partition}?",
            holding.join("; ")
        ),
        zh: format!(
            "一个 group.protocol=consumer（KIP-848）的消费者组：由 broker 用 group.remote.assignor=uniform 分配器计算分配。每个成员都订阅 {topic}（{now} 个分区）。成员按分配器遍历的顺序及其当前持有的分区：{}。{joined} 刚刚加入。{grown_zh}在新的目标分配中，{topic}-{partition} 分给哪个成员？",
            holding.join("；")
        ),
        pool: members.iter().map(|m| m.member_id.clone()).collect(),
        answer,
        why_en: format!(
            "{now} partitions for {k} members: a quota of {q}{}. Each member keeps what it holds, in order, up to its quota; what it holds beyond is revoked. The revoked partitions and those nobody holds then go, in order, to the members still below their quota. The members not affected keep consuming meanwhile. Result: {}.",
            if extra > 0 {
                format!(", and {extra} member(s) get one more: a member already holding that many keeps its extra, one holding fewer gives it up while enough members after it remain to take the extras")
            } else {
                String::new()
            },
            result.join("; ")
        ),
        why_zh: format!(
            "{now} 个分区、{k} 个成员：配额为 {q}{}。每个成员按顺序保留已持有的分区，直到配额为止，超出的被撤销。被撤销的和无人持有的分区再按顺序分给还没达到配额的成员；其间不受影响的成员照常消费。结果：{}。",
            if extra > 0 {
                format!("，有 {extra} 个成员各多一个：已持有这么多的成员保留这一个，持有较少的成员在其后还有足够成员可以接手时就让出")
            } else {
                String::new()
            },
            result.join("；")
        ),
        instance: Instance::ServerAssignment {
            topic: topic.clone(),
            partitions: now,
            members: now_held,
            joined,
            partition,
        },
    }
}
