//! The assignors against cases from Kafka's own assignor tests
//! (`AbstractStickyAssignorTest`, `RangeAssignorTest`, `RoundRobinAssignorTest`),
//! expected lists in Kafka's order, plus property tests over random groups.

use kafka_sim::assignor::{
    assign, assign_with_racks, AssignmentResult, MemberSubscription, PartitionName, PartitionRacks,
};
use kafka_sim::client_config::AssignorName;
use kafka_sim::collections::{SortedMap, SortedSet};
use kafka_sim::rng::Rng;

const GEN: i32 = 1;

fn tp(t: &str, p: i32) -> PartitionName {
    PartitionName::new(t, p)
}

fn sub(
    id: &str,
    topics: &[&str],
    owned: &[PartitionName],
    generation: Option<i32>,
) -> MemberSubscription {
    MemberSubscription {
        member_id: id.into(),
        group_instance_id: None,
        topics: topics.iter().map(|t| t.to_string()).collect(),
        owned_partitions: owned.to_vec(),
        generation,
        rack_id: None,
    }
}

fn topics(t: &[(&str, i32)]) -> SortedMap<String, i32> {
    t.iter().map(|(n, c)| (n.to_string(), *c)).collect()
}

fn run(s: AssignorName, t: &SortedMap<String, i32>, m: &[MemberSubscription]) -> AssignmentResult {
    assign(s, t, m).unwrap()
}

#[test]
fn sticky_mixed_topic_subscriptions_general_case() {
    let t = topics(&[("topic1", 3), ("topic2", 2)]);
    let m = [
        sub("consumer1", &["topic1"], &[], Some(GEN)),
        sub("consumer2", &["topic1", "topic2"], &[], Some(GEN)),
        sub("consumer3", &["topic1"], &[], Some(GEN)),
    ];
    let r = run(AssignorName::Sticky, &t, &m);
    assert_eq!(
        r.assignment["consumer1"],
        [tp("topic1", 0), tp("topic1", 2)]
    );
    assert_eq!(
        r.assignment["consumer2"],
        [tp("topic2", 0), tp("topic2", 1)]
    );
    assert_eq!(r.assignment["consumer3"], [tp("topic1", 1)]);
}

#[test]
fn sticky_two_consumers_two_topics_six_partitions() {
    let t = topics(&[("topic1", 3), ("topic2", 3)]);
    let all = ["topic1", "topic2"];
    let m = [
        sub("consumer1", &all, &[], Some(GEN)),
        sub("consumer2", &all, &[], Some(GEN)),
    ];
    let r = run(AssignorName::Sticky, &t, &m);
    assert_eq!(
        r.assignment["consumer1"],
        [tp("topic1", 0), tp("topic1", 2), tp("topic2", 1)]
    );
    assert_eq!(
        r.assignment["consumer2"],
        [tp("topic1", 1), tp("topic2", 0), tp("topic2", 2)]
    );
}

#[test]
fn sticky_consumer_owning_min_quota_expected_max_quota() {
    let t = topics(&[("topic1", 2), ("topic2", 3)]);
    let all = ["topic1", "topic2"];
    let m = [
        sub(
            "consumer1",
            &all,
            &[tp("topic1", 0), tp("topic2", 1)],
            Some(GEN),
        ),
        sub(
            "consumer2",
            &all,
            &[tp("topic1", 1), tp("topic2", 2)],
            Some(GEN),
        ),
    ];
    let r = run(AssignorName::Sticky, &t, &m);
    assert_eq!(
        r.assignment["consumer1"],
        [tp("topic1", 0), tp("topic2", 1), tp("topic2", 0)]
    );
    assert_eq!(
        r.assignment["consumer2"],
        [tp("topic1", 1), tp("topic2", 2)]
    );
}

#[test]
fn cooperative_max_quota_members_more_than_expected() {
    let t = topics(&[("topic1", 2), ("topic2", 2)]);
    let all = ["topic1", "topic2"];
    let m = [
        sub(
            "consumer1",
            &all,
            &[tp("topic1", 0), tp("topic2", 0)],
            Some(GEN),
        ),
        sub(
            "consumer2",
            &all,
            &[tp("topic1", 1), tp("topic2", 1)],
            Some(GEN),
        ),
        sub("consumer3", &all, &[], Some(GEN)),
    ];
    let sticky = run(AssignorName::Sticky, &t, &m);
    assert_eq!(sticky.assignment["consumer1"], [tp("topic1", 0)]);
    assert_eq!(
        sticky.assignment["consumer2"],
        [tp("topic1", 1), tp("topic2", 1)]
    );
    assert_eq!(sticky.assignment["consumer3"], [tp("topic2", 0)]);
    // Cooperative: topic2-0 changes hands, so this round only revokes it.
    let coop = run(AssignorName::CooperativeSticky, &t, &m);
    assert_eq!(coop.assignment["consumer1"], [tp("topic1", 0)]);
    assert!(coop.assignment["consumer3"].is_empty());
    assert_eq!(coop.revoke["consumer1"], [tp("topic2", 0)]);
}

#[test]
fn sticky_all_consumers_under_min_quota() {
    let t = topics(&[("topic1", 2), ("topic2", 3)]);
    let all = ["topic1", "topic2"];
    let m = [
        sub("consumer1", &all, &[tp("topic1", 0)], Some(GEN)),
        sub("consumer2", &all, &[tp("topic1", 1)], Some(GEN)),
        sub("consumer3", &all, &[], Some(GEN)),
    ];
    let r = run(AssignorName::Sticky, &t, &m);
    assert_eq!(
        r.assignment["consumer1"],
        [tp("topic1", 0), tp("topic2", 1)]
    );
    assert_eq!(
        r.assignment["consumer2"],
        [tp("topic1", 1), tp("topic2", 2)]
    );
    assert_eq!(r.assignment["consumer3"], [tp("topic2", 0)]);
}

#[test]
fn sticky_add_then_remove_two_consumers() {
    let t = topics(&[("topic1", 3), ("topic2", 4)]);
    let all = ["topic1", "topic2"];
    let r = run(
        AssignorName::Sticky,
        &t,
        &[
            sub("consumer1", &all, &[], Some(GEN)),
            sub("consumer2", &all, &[], Some(GEN)),
        ],
    );
    assert_eq!(
        r.assignment["consumer1"],
        [
            tp("topic1", 0),
            tp("topic1", 2),
            tp("topic2", 1),
            tp("topic2", 3)
        ]
    );
    assert_eq!(
        r.assignment["consumer2"],
        [tp("topic1", 1), tp("topic2", 0), tp("topic2", 2)]
    );
    let m = [
        sub("consumer1", &all, &r.assignment["consumer1"], Some(GEN)),
        sub("consumer2", &all, &r.assignment["consumer2"], Some(GEN)),
        sub("consumer3", &all, &[], Some(GEN)),
        sub("consumer4", &all, &[], Some(GEN)),
    ];
    let r = run(AssignorName::Sticky, &t, &m);
    assert_eq!(
        r.assignment["consumer1"],
        [tp("topic1", 0), tp("topic2", 1)]
    );
    assert_eq!(
        r.assignment["consumer2"],
        [tp("topic2", 0), tp("topic1", 1)]
    );
    assert_eq!(
        r.assignment["consumer3"],
        [tp("topic1", 2), tp("topic2", 3)]
    );
    assert_eq!(r.assignment["consumer4"], [tp("topic2", 2)]);
    let m = [
        sub("consumer3", &all, &r.assignment["consumer3"], Some(GEN)),
        sub("consumer4", &all, &r.assignment["consumer4"], Some(GEN)),
    ];
    let r = run(AssignorName::Sticky, &t, &m);
    assert_eq!(
        r.assignment["consumer3"],
        [
            tp("topic1", 2),
            tp("topic2", 3),
            tp("topic1", 0),
            tp("topic2", 1)
        ]
    );
    assert_eq!(
        r.assignment["consumer4"],
        [tp("topic2", 2), tp("topic1", 1), tp("topic2", 0)]
    );
}

#[test]
fn sticky_partition_claimed_twice_in_one_generation_goes_to_neither() {
    let t = topics(&[("topic", 3)]);
    let m = [
        sub(
            "consumer1",
            &["topic"],
            &[tp("topic", 0), tp("topic", 1)],
            Some(GEN),
        ),
        sub(
            "consumer2",
            &["topic"],
            &[tp("topic", 0), tp("topic", 2)],
            Some(GEN),
        ),
        sub("consumer3", &["topic"], &[], Some(GEN)),
    ];
    let r = run(AssignorName::Sticky, &t, &m);
    assert_eq!(r.assignment["consumer1"], [tp("topic", 1)]);
    assert_eq!(r.assignment["consumer2"], [tp("topic", 2)]);
    assert_eq!(r.assignment["consumer3"], [tp("topic", 0)]);
}

#[test]
fn sticky_stale_generation_loses_its_claims() {
    let t = topics(&[("topic", 3), ("topic2", 3)]);
    let all = ["topic", "topic2"];
    let owned = [tp("topic", 0), tp("topic", 2), tp("topic2", 1)];
    for stale in [Some(9), None] {
        let m = [
            sub("consumer1", &all, &owned, Some(10)),
            sub("consumer2", &all, &owned, stale),
        ];
        let r = run(AssignorName::Sticky, &t, &m);
        let set = |m: &str| r.assignment[m].iter().cloned().collect::<SortedSet<_>>();
        assert_eq!(set("consumer1"), owned.iter().cloned().collect());
        assert_eq!(
            set("consumer2"),
            [tp("topic", 1), tp("topic2", 0), tp("topic2", 2)]
                .into_iter()
                .collect()
        );
    }
}

#[test]
fn range_two_topics_three_consumers() {
    // RangeAssignorTest.testMultipleConsumersMixedTopics-like: co-partitioned topics line up.
    let t = topics(&[("t1", 3), ("t2", 3)]);
    let m = [
        sub("c0", &["t1", "t2"], &[], None),
        sub("c1", &["t1", "t2"], &[], None),
    ];
    let r = run(AssignorName::Range, &t, &m);
    let set = |m: &str| {
        r.assignment[m]
            .iter()
            .map(|p| p.to_string())
            .collect::<SortedSet<_>>()
    };
    assert_eq!(
        set("c0"),
        ["t1-0", "t1-1", "t2-0", "t2-1"].map(String::from).into()
    );
    assert_eq!(set("c1"), ["t1-2", "t2-2"].map(String::from).into());
}

// ---- property tests -------------------------------------------------------

struct Group {
    topics: SortedMap<String, i32>,
    members: Vec<MemberSubscription>,
}

fn random_group(rng: &mut Rng, uniform: bool) -> Group {
    let nt = 1 + rng.below(4) as usize;
    let topics: SortedMap<String, i32> = (0..nt)
        .map(|i| (format!("t{i}"), rng.below(7) as i32))
        .collect();
    let names: Vec<String> = topics.keys().cloned().collect();
    let nm = 1 + rng.below(6) as usize;
    let members = (0..nm)
        .map(|i| {
            let subs: Vec<String> = if uniform {
                names.clone()
            } else {
                let s: Vec<String> = names
                    .iter()
                    .filter(|_| rng.below(2) == 0)
                    .cloned()
                    .collect();
                if s.is_empty() {
                    vec![names[rng.below(names.len() as u64) as usize].clone()]
                } else {
                    s
                }
            };
            MemberSubscription {
                member_id: format!("m{}", rng.below(1000) * 10 + i as u64),
                group_instance_id: (rng.below(4) == 0).then(|| format!("i{i}")),
                topics: subs,
                owned_partitions: Vec::new(),
                generation: None,
                rack_id: None,
            }
        })
        .collect();
    Group { topics, members }
}

/// Every subscribed partition assigned exactly once, only to a subscriber.
fn check_valid(g: &Group, r: &AssignmentResult, complete: bool) -> Result<(), String> {
    let mut owner: SortedMap<PartitionName, &str> = SortedMap::new();
    for m in &g.members {
        for p in &r.assignment[&m.member_id] {
            if !m.topics.contains(&p.topic) {
                return Err(format!(
                    "{p} given to {} which does not subscribe",
                    m.member_id
                ));
            }
            if let Some(o) = owner.insert(p.clone(), &m.member_id) {
                return Err(format!("{p} given to {o} and {}", m.member_id));
            }
        }
    }
    if complete {
        for (t, n) in &g.topics {
            if !g.members.iter().any(|m| m.topics.contains(t)) {
                continue;
            }
            for p in 0..*n {
                if !owner.contains_key(&PartitionName::new(t, p)) {
                    return Err(format!("{t}-{p} not assigned"));
                }
            }
        }
    }
    Ok(())
}

fn sizes(r: &AssignmentResult) -> Vec<usize> {
    r.assignment.values().map(Vec::len).collect()
}

/// With equal subscriptions a sticky assignment differs by at most one.
fn check_balanced(r: &AssignmentResult) -> Result<(), String> {
    let s = sizes(r);
    let (min, max) = (
        s.iter().min().copied().unwrap_or(0),
        s.iter().max().copied().unwrap_or(0),
    );
    if max > min + 1 {
        return Err(format!("unbalanced sizes {s:?}"));
    }
    Ok(())
}

/// No member can take a partition from one holding two or more than itself
/// (Kafka's `isBalanced` for unequal subscriptions).
fn check_balanced_general(g: &Group, r: &AssignmentResult) -> Result<(), String> {
    let owner: SortedMap<&PartitionName, &String> = r
        .assignment
        .iter()
        .flat_map(|(m, ps)| ps.iter().map(move |p| (p, m)))
        .collect();
    for m in &g.members {
        let mine = r.assignment[&m.member_id].len();
        for t in &m.topics {
            for p in 0..*g.topics.get(t).unwrap_or(&0) {
                let tp = PartitionName::new(t, p);
                if let Some(o) = owner.get(&tp) {
                    if r.assignment[*o].len() > mine + 1 {
                        return Err(format!(
                            "{} (has {mine}) could take {tp} from {o}",
                            m.member_id
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

fn seeds() -> u64 {
    std::env::var("ASSIGNOR_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000)
}

/// Next generation: members keep what they were assigned, one may leave and one may join.
fn next_generation(rng: &mut Rng, g: &Group, r: &AssignmentResult, generation: i32) -> Group {
    let mut members: Vec<MemberSubscription> = g
        .members
        .iter()
        .map(|m| MemberSubscription {
            owned_partitions: r.assignment[&m.member_id].clone(),
            generation: Some(generation),
            ..m.clone()
        })
        .collect();
    if members.len() > 1 && rng.below(2) == 0 {
        let i = rng.below(members.len() as u64) as usize;
        members.remove(i);
    }
    if rng.below(2) == 0 {
        let topics = members[0].topics.clone();
        members.push(MemberSubscription {
            member_id: format!("new{generation}"),
            group_instance_id: None,
            topics,
            owned_partitions: Vec::new(),
            generation: None,
            rack_id: None,
        });
    }
    Group {
        topics: g.topics.clone(),
        members,
    }
}

#[test]
fn property_all_assignors_valid_over_random_groups() {
    let mut failures = Vec::new();
    for seed in 0..seeds() {
        let mut rng = Rng::new(seed);
        let g = random_group(&mut rng, seed % 2 == 0);
        for s in [
            AssignorName::Range,
            AssignorName::RoundRobin,
            AssignorName::Sticky,
        ] {
            let r = run(s, &g.topics, &g.members);
            if let Err(e) = check_valid(&g, &r, true) {
                failures.push(format!("seed {seed} {s:?}: {e}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{}",
        failures[..failures.len().min(10)].join("\n")
    );
}

#[test]
fn property_sticky_balanced_and_sticky_across_generations() {
    let mut failures = Vec::new();
    for seed in 0..seeds() {
        let mut rng = Rng::new(seed ^ 0x5eed);
        let uniform = seed % 2 == 0;
        let mut g = random_group(&mut rng, uniform);
        let mut r = run(AssignorName::Sticky, &g.topics, &g.members);
        for generation in 1..4 {
            let check = check_valid(&g, &r, true).and_then(|_| {
                if uniform {
                    check_balanced(&r)
                } else {
                    check_balanced_general(&g, &r)
                }
            });
            if let Err(e) = check {
                failures.push(format!("seed {seed} generation {generation}: {e}"));
                break;
            }
            g = next_generation(&mut rng, &g, &r, generation);
            r = run(AssignorName::Sticky, &g.topics, &g.members);
            if uniform {
                // Stickiness: a surviving member keeps min(owned, quota) of what it owned.
                let total: usize = r.assignment.values().map(Vec::len).sum();
                let min_quota = total / g.members.len();
                for m in &g.members {
                    let kept = m
                        .owned_partitions
                        .iter()
                        .filter(|p| r.assignment[&m.member_id].contains(p))
                        .count();
                    if kept < m.owned_partitions.len().min(min_quota) {
                        failures.push(format!(
                            "seed {seed}: {} kept {kept} of {} owned (quota {min_quota})",
                            m.member_id,
                            m.owned_partitions.len()
                        ));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{}",
        failures[..failures.len().min(10)].join("\n")
    );
}

#[test]
fn property_cooperative_never_reassigns_in_the_revoking_round() {
    let mut failures = Vec::new();
    for seed in 0..seeds() {
        let mut rng = Rng::new(seed ^ 0xc00b);
        let mut g = random_group(&mut rng, seed % 3 != 0);
        // Cooperative members keep their owned partitions across rounds.
        let mut r = run(AssignorName::CooperativeSticky, &g.topics, &g.members);
        for generation in 1..5 {
            if let Err(e) = check_valid(&g, &r, false) {
                failures.push(format!("seed {seed} generation {generation}: {e}"));
                break;
            }
            let revoked: SortedSet<&PartitionName> = r.revoke.values().flatten().collect();
            for (m, ps) in &r.assignment {
                let owned = &g
                    .members
                    .iter()
                    .find(|x| &x.member_id == m)
                    .unwrap()
                    .owned_partitions;
                for p in ps {
                    if revoked.contains(p) && !owned.contains(p) {
                        failures.push(format!(
                            "seed {seed}: {p} revoked and given to {m} in one round"
                        ));
                    }
                }
            }
            g = next_generation(&mut rng, &g, &r, generation);
            r = run(AssignorName::CooperativeSticky, &g.topics, &g.members);
        }
        // A follow-up round with nobody joining or leaving completes the assignment.
        let settle = next_generation_same(&g, &r, 10);
        let r2 = run(
            AssignorName::CooperativeSticky,
            &settle.topics,
            &settle.members,
        );
        if let Err(e) = check_valid(&settle, &r2, true) {
            failures.push(format!("seed {seed} settle: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{}",
        failures[..failures.len().min(10)].join("\n")
    );
}

fn next_generation_same(g: &Group, r: &AssignmentResult, generation: i32) -> Group {
    Group {
        topics: g.topics.clone(),
        members: g
            .members
            .iter()
            .map(|m| MemberSubscription {
                owned_partitions: r.assignment[&m.member_id].clone(),
                generation: Some(generation),
                ..m.clone()
            })
            .collect(),
    }
}

/// Random racks for a group: each member on one of three zones or none,
/// each partition's replicas on one to three of them.
fn random_racks(rng: &mut Rng, g: &mut Group) -> PartitionRacks {
    let zones = ["a", "b", "c"];
    for m in &mut g.members {
        m.rack_id = match rng.below(4) {
            3 => None,
            z => Some(zones[z as usize].to_string()),
        };
    }
    g.topics
        .iter()
        .map(|(t, n)| {
            let per = (0..*n)
                .map(|_| {
                    let first = rng.below(3) as usize;
                    let rf = 1 + rng.below(3) as usize;
                    (0..rf)
                        .map(|j| zones[(first + j) % 3].to_string())
                        .collect()
                })
                .collect();
            (t.clone(), per)
        })
        .collect()
}

/// KIP-881: the rack-aware sticky assignors still put balance first, as
/// Kafka's do (valid and balanced over generations, with random racks);
/// when every partition has a replica on every rack, racks change nothing.
#[test]
fn property_rack_aware_sticky_stays_valid_and_balanced() {
    let mut failures = Vec::new();
    let mut in_rack_used = 0;
    for seed in 0..seeds() / 4 {
        let mut rng = Rng::new(seed ^ 0x4ac4);
        let uniform = seed % 2 == 0;
        let mut g = random_group(&mut rng, uniform);
        let racks = random_racks(&mut rng, &mut g);
        let strategy = if seed % 4 < 2 {
            AssignorName::Sticky
        } else {
            AssignorName::CooperativeSticky
        };
        let everywhere: PartitionRacks = racks
            .iter()
            .map(|(t, per)| {
                let all: SortedSet<String> = ["a", "b", "c"].map(String::from).into();
                (t.clone(), vec![all; per.len()])
            })
            .collect();
        let same = assign_with_racks(strategy, &g.topics, &everywhere, &g.members).unwrap();
        if same != run(strategy, &g.topics, &g.members) {
            failures.push(format!("seed {seed}: racks everywhere changed the result"));
        }
        let mut r = assign_with_racks(strategy, &g.topics, &racks, &g.members).unwrap();
        for generation in 1..4 {
            let complete = strategy == AssignorName::Sticky;
            let check = check_valid(&g, &r, complete).and_then(|_| match (complete, uniform) {
                (false, _) => Ok(()),
                (true, true) => check_balanced(&r),
                (true, false) => check_balanced_general(&g, &r),
            });
            if let Err(e) = check {
                failures.push(format!(
                    "seed {seed} {strategy:?} generation {generation}: {e}"
                ));
                break;
            }
            in_rack_used += g
                .members
                .iter()
                .filter(|m| m.rack_id.is_some())
                .flat_map(|m| r.assignment[&m.member_id].iter().map(move |p| (m, p)))
                .filter(|(m, p)| {
                    racks[&p.topic][p.partition as usize].contains(m.rack_id.as_ref().unwrap())
                })
                .count();
            // Members keep their racks; one who joins has none.
            g = next_generation(&mut rng, &g, &r, generation);
            r = assign_with_racks(strategy, &g.topics, &racks, &g.members).unwrap();
        }
    }
    assert!(in_rack_used > 0);
    assert!(
        failures.is_empty(),
        "{}",
        failures[..failures.len().min(10)].join("\n")
    );
}
