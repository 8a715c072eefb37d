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
        assert!(e.question_en.contains(&m.to_string()) && e.question_en.contains(&p.to_string()));
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
            e.question_en.contains(&abs.to_string()) && e.question_zh.contains(&abs.to_string())
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
                    || !records
                        .iter()
                        .any(|x| x.key == r.key && x.offset > r.offset && x.offset < *active_from)
            })
            .map(|r| r.offset.to_string())
            .collect();
        assert_eq!(e.answer, want.join(", "), "{e:?}");
    }
}

/// Re-derived from the drawn partition alone: the LSO is the first offset
/// of the oldest open transaction (else the high watermark); below it, a
/// read_committed poll() returns plain records and records of committed
/// transactions, never markers.
#[test]
fn read_committed_returns_committed_records_below_the_last_stable_offset() {
    let mut with_open = 0;
    for e in all(Kind::ReadCommitted) {
        let Instance::ReadCommitted {
            entries,
            high_watermark,
        } = &e.instance
        else {
            panic!("{e:?}")
        };
        // Each transactional record's fate: the next marker of its producer.
        let fate = |i: usize| -> Option<&str> {
            let p = entries[i].producer_id;
            entries[i + 1..]
                .iter()
                .find(|x| x.producer_id == p && x.marker.is_some())
                .and_then(|x| x.marker)
        };
        let lso = (0..entries.len())
            .filter(|i| {
                entries[*i].producer_id >= 0 && entries[*i].marker.is_none() && fate(*i).is_none()
            })
            .map(|i| entries[i].offset)
            .min()
            .unwrap_or(*high_watermark);
        if lso < *high_watermark {
            with_open += 1;
        }
        let want: Vec<String> = (0..entries.len())
            .filter(|i| entries[*i].offset < lso && entries[*i].marker.is_none())
            .filter(|i| entries[*i].producer_id < 0 || fate(*i) == Some("COMMIT"))
            .map(|i| entries[i].offset.to_string())
            .collect();
        let want = if want.is_empty() {
            NONE.to_string()
        } else {
            want.join(", ")
        };
        assert_eq!(e.answer, want, "{e:?}");
        assert!(e.explanation_en.contains(&format!("is {lso}")), "{e:?}");
    }
    assert!(with_open > 0, "some questions have an open transaction");
}

/// The RoundRobin explanation lays out this group's own partitions in
/// RoundRobin's order: every partition of the first topic, then the next
/// topic's first (it once read "t0-0, t0-1, t1-0, …" over topics of three).
#[test]
fn the_roundrobin_explanation_lists_the_groups_own_partition_order() {
    let mut seen = 0;
    for e in all(Kind::Assignment) {
        let Instance::Assignment {
            assignor, topics, ..
        } = &e.instance
        else {
            panic!("{e:?}")
        };
        if assignor != "roundrobin" {
            continue;
        }
        seen += 1;
        let mut want: Vec<String> = Vec::new();
        let (first, n) = &topics[0];
        want.extend((0..*n).map(|p| format!("{first}-{p}")));
        if let Some((second, _)) = topics.get(1) {
            want.push(format!("{second}-0"));
        }
        let order = format!("({}, …)", want.join(", "));
        assert!(
            e.explanation_en.contains(&order),
            "{order} not in {}",
            e.explanation_en
        );
    }
    assert!(seen > 100, "{seen}");
}

/// The uniform assignor's homogeneous builder for one topic, from the
/// rule (not the engine's code): quotas, keep up to quota in order, the
/// extra kept by whoever can use it, the rest dealt in order.
#[test]
fn server_assignment_follows_the_uniform_rule() {
    for e in all(Kind::ServerAssignment) {
        let Instance::ServerAssignment {
            partitions,
            members,
            joined,
            partition,
            ..
        } = &e.instance
        else {
            panic!("{e:?}")
        };
        assert!(members
            .last()
            .is_some_and(|(m, v)| m == joined && v.is_empty()));
        let k = members.len() as i32;
        let (min, mut extra) = (partitions / k, partitions % k);
        let held: Vec<i32> = members.iter().flat_map(|(_, v)| v.clone()).collect();
        let mut free: Vec<i32> = (0..*partitions).filter(|p| !held.contains(p)).collect();
        let mut owner: Vec<Option<usize>> = vec![None; *partitions as usize];
        let mut want = Vec::new();
        for (i, (_, v)) in members.iter().enumerate() {
            let mut quota = min + i32::from(extra > 0);
            let took_extra = extra > 0;
            for p in v {
                if quota > 0 {
                    quota -= 1;
                    owner[*p as usize] = Some(i);
                } else {
                    free.push(*p);
                }
            }
            let mut keeps_extra = took_extra;
            if quota > 0 && took_extra && k - i as i32 > extra {
                quota -= 1;
                keeps_extra = false;
            }
            if keeps_extra {
                extra -= 1;
            }
            want.push((i, quota));
        }
        let mut next = free.into_iter();
        for (i, q) in want {
            for _ in 0..q {
                if let Some(p) = next.next() {
                    owner[p as usize] = Some(i);
                }
            }
        }
        let o = owner[*partition as usize].expect("every partition has an owner");
        assert_eq!(members[o].0, e.answer, "{e:?}");
    }
}
