//! Unit tests of the assignors against Kafka's results.

use super::*;

fn member(id: &str, topics: &[&str]) -> MemberSubscription {
    MemberSubscription {
        member_id: id.into(),
        group_instance_id: None,
        topics: topics.iter().map(|t| t.to_string()).collect(),
        owned_partitions: Vec::new(),
        generation: None,
        rack_id: None,
    }
}

fn names(r: &AssignmentResult, m: &str) -> Vec<String> {
    r.assignment[m].iter().map(|p| p.to_string()).collect()
}

fn topics(t: &[(&str, i32)]) -> SortedMap<String, i32> {
    t.iter().map(|(n, c)| (n.to_string(), *c)).collect()
}

#[test]
fn java_hash_order_matches_a_java_hashmap() {
    // new HashMap<>() with "c", "a", "b" put in that order iterates a, b, c
    // (hash codes 97, 98, 99 fall in buckets 1, 2, 3).
    let h: Vec<i32> = ["c", "a", "b"]
        .iter()
        .map(|s| java_string_hash(s))
        .collect();
    assert_eq!(java_hash_order(&h), vec![1, 2, 0]);
    // "Aa" and "BB" collide (2112): insertion order decides.
    let h: Vec<i32> = ["BB", "Aa"].iter().map(|s| java_string_hash(s)).collect();
    assert_eq!(java_hash_order(&h), vec![0, 1]);
    assert_eq!(java_capacity(12), 16);
    assert_eq!(java_capacity(13), 32);
}

#[test]
fn range_seven_partitions_three_consumers_is_3_2_2() {
    let r = assign(
        AssignorName::Range,
        &topics(&[("t", 7)]),
        &[
            member("c3", &["t"]),
            member("c1", &["t"]),
            member("c2", &["t"]),
        ],
    )
    .unwrap();
    assert_eq!(names(&r, "c1"), ["t-0", "t-1", "t-2"]);
    assert_eq!(names(&r, "c2"), ["t-3", "t-4"]);
    assert_eq!(names(&r, "c3"), ["t-5", "t-6"]);
}

#[test]
fn range_static_members_sort_first_by_instance_id() {
    let mut a = member("a", &["t"]);
    let mut z = member("z", &["t"]);
    z.group_instance_id = Some("i1".into());
    a.group_instance_id = Some("i2".into());
    let r = assign(AssignorName::Range, &topics(&[("t", 3)]), &[a, z]).unwrap();
    assert_eq!(names(&r, "z"), ["t-0", "t-1"]);
    assert_eq!(names(&r, "a"), ["t-2"]);
}

#[test]
fn roundrobin_unequal_subscriptions() {
    // Kafka's javadoc example: C0 subscribes t0; C1 t0, t1; C2 t0, t1, t2.
    let r = assign(
        AssignorName::RoundRobin,
        &topics(&[("t0", 1), ("t1", 2), ("t2", 3)]),
        &[
            member("C0", &["t0"]),
            member("C1", &["t0", "t1"]),
            member("C2", &["t0", "t1", "t2"]),
        ],
    )
    .unwrap();
    assert_eq!(names(&r, "C0"), ["t0-0"]);
    assert_eq!(names(&r, "C1"), ["t1-0"]);
    assert_eq!(names(&r, "C2"), ["t1-1", "t2-0", "t2-1", "t2-2"]);
}

#[test]
fn sticky_keeps_ownership_when_a_member_leaves() {
    // Kafka's StickyAssignor javadoc: 3 consumers, t0..t3 with 2 partitions each.
    let t = topics(&[("t0", 2), ("t1", 2), ("t2", 2), ("t3", 2)]);
    let all = ["t0", "t1", "t2", "t3"];
    let first = assign(
        AssignorName::Sticky,
        &t,
        &[member("C0", &all), member("C1", &all), member("C2", &all)],
    )
    .unwrap();
    assert_eq!(names(&first, "C0"), ["t0-0", "t1-1", "t3-0"]);
    assert_eq!(names(&first, "C1"), ["t0-1", "t2-0", "t3-1"]);
    assert_eq!(names(&first, "C2"), ["t1-0", "t2-1"]);
    let mut c0 = member("C0", &all);
    c0.owned_partitions = first.assignment["C0"].clone();
    c0.generation = Some(1);
    let mut c2 = member("C2", &all);
    c2.owned_partitions = first.assignment["C2"].clone();
    c2.generation = Some(1);
    let second = assign(AssignorName::Sticky, &t, &[c0, c2]).unwrap();
    // C0 and C2 keep everything (owned first, sorted by partition then
    // topic); C1's three partitions are dealt round robin to the members
    // below quota, C0 first.
    assert_eq!(names(&second, "C0"), ["t0-0", "t3-0", "t1-1", "t0-1"]);
    assert_eq!(names(&second, "C2"), ["t1-0", "t2-1", "t2-0", "t3-1"]);
    // Eager: nothing had to be taken away from C0 or C2.
    assert!(second.revoke["C0"].is_empty() && second.revoke["C2"].is_empty());
}

#[test]
fn cooperative_revokes_first_and_assigns_next_round() {
    let t = topics(&[("t", 4)]);
    let mut a = member("a", &["t"]);
    a.owned_partitions = (0..4).map(|p| PartitionName::new("t", p)).collect();
    a.generation = Some(1);
    let b = member("b", &["t"]);
    let r1 = assign(AssignorName::CooperativeSticky, &t, &[a.clone(), b.clone()]).unwrap();
    assert_eq!(names(&r1, "a"), ["t-0", "t-1"]);
    assert!(r1.assignment["b"].is_empty(), "{:?}", r1);
    assert_eq!(
        r1.revoke["a"]
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>(),
        ["t-2", "t-3"]
    );
    // Second round: a now owns t-0, t-1 in generation 2.
    a.owned_partitions = r1.assignment["a"].clone();
    a.generation = Some(2);
    let r2 = assign(AssignorName::CooperativeSticky, &t, &[a, b]).unwrap();
    assert_eq!(names(&r2, "a"), ["t-0", "t-1"]);
    assert_eq!(names(&r2, "b"), ["t-2", "t-3"]);
}

#[test]
fn generation_rules_for_doubly_claimed_partitions() {
    let t = topics(&[("t", 2)]);
    let mut a = member("a", &["t"]);
    let mut b = member("b", &["t"]);
    a.owned_partitions = vec![PartitionName::new("t", 0)];
    b.owned_partitions = vec![PartitionName::new("t", 0), PartitionName::new("t", 1)];
    a.generation = Some(5);
    b.generation = Some(4);
    // The higher generation wins t-0; b keeps t-1.
    let r = assign(AssignorName::Sticky, &t, &[a.clone(), b.clone()]).unwrap();
    assert_eq!(names(&r, "a"), ["t-0"]);
    assert_eq!(names(&r, "b"), ["t-1"]);
    assert_eq!(
        r.revoke["b"]
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>(),
        ["t-0"]
    );
}

#[test]
fn bad_input_is_named() {
    let t = topics(&[("t", 2)]);
    let e = assign(
        AssignorName::Range,
        &t,
        &[member("a", &["t"]), member("a", &["t"])],
    )
    .unwrap_err();
    assert!(e.0.contains("`a` appears twice"), "{e}");
    let mut m = member("a", &["t"]);
    m.owned_partitions = vec![PartitionName::new("t", 9)];
    let e = assign(AssignorName::Sticky, &t, &[m]).unwrap_err();
    assert!(e.0.contains("owns t-9"), "{e}");
    assert_eq!(
        PartitionName::parse("my-topic-12"),
        Some(PartitionName::new("my-topic", 12))
    );
    assert_eq!(PartitionName::parse("nodash"), None);
}

/// `AbstractPartitionAssignorTest.verifyRackAssignment`: brokers on
/// `broker_racks` (broker i on rack i), topics in the given order with
/// partition i of a topic on brokers `(i + j + next) % brokers` for j in
/// 0..rf (`next` counts the partitions of the topics before it); members
/// `consumer0..` with `consumer_racks`. Checks each member's sorted
/// assignment and, when `mismatched >= 0`, how many assigned partitions have
/// no replica on their member's rack.
#[allow(clippy::too_many_arguments)]
fn verify_rack_assignment(
    topics_in_order: &[(&str, i32)],
    rf: usize,
    broker_racks: &[&str],
    consumer_racks: &[Option<&str>],
    consumer_topics: &[Vec<&str>],
    expected: &[&str],
    mismatched: i32,
) {
    RackCase {
        strategy: AssignorName::Range,
        prefer: false,
        topics: topics_in_order,
        consumer_topics,
    }
    .verify(rf, broker_racks, consumer_racks, None, expected, mismatched);
}

/// One of Kafka's rack test setups (`AbstractPartitionAssignorTest.
/// verifyRackAssignment`): an assignor (`prefer` is its test-only
/// `preferRackAwareLogic`), topics in insertion order and each member's
/// subscription.
struct RackCase<'a> {
    strategy: AssignorName,
    prefer: bool,
    topics: &'a [(&'a str, i32)],
    consumer_topics: &'a [Vec<&'a str>],
}

impl RackCase<'_> {
    /// Brokers `broker_racks` (broker i on rack i; "" for no rack), partition
    /// i of a topic on brokers `(i + j + next) % brokers` for j in 0..rf
    /// (`next` counts the partitions of the topics before it); members
    /// `consumer0..` with `consumer_racks` and, if given, owned partitions
    /// (generation unset). Checks each member's sorted assignment and, when
    /// `mismatched >= 0`, how many assigned partitions have no replica on
    /// their member's rack.
    fn verify(
        &self,
        rf: usize,
        broker_racks: &[&str],
        consumer_racks: &[Option<&str>],
        owned: Option<&[&str]>,
        expected: &[&str],
        mismatched: i32,
    ) {
        let mut racks = PartitionRacks::new();
        let mut next = 0usize;
        for (t, n) in self.topics {
            let per: Vec<SortedSet<String>> = (0..*n as usize)
                .map(|i| {
                    (0..rf)
                        .map(|j| broker_racks[(i + j + next) % broker_racks.len()].to_string())
                        .filter(|r| !r.is_empty())
                        .collect()
                })
                .collect();
            racks.insert(t.to_string(), per);
            next += *n as usize;
        }
        let members: Vec<MemberSubscription> = self
            .consumer_topics
            .iter()
            .enumerate()
            .map(|(i, ts)| MemberSubscription {
                rack_id: consumer_racks[i].map(str::to_string),
                owned_partitions: owned
                    .map(|o| {
                        o[i].split(", ")
                            .map(|p| PartitionName::parse(p).unwrap())
                            .collect()
                    })
                    .unwrap_or_default(),
                ..member(&format!("consumer{i}"), ts)
            })
            .collect();
        let r = assign_racks(
            self.strategy,
            &topics(self.topics),
            &racks,
            &members,
            self.prefer,
        )
        .unwrap();
        let mut off = 0;
        for (i, want) in expected.iter().enumerate() {
            let id = format!("consumer{i}");
            let mut got = names(&r, &id);
            got.sort();
            assert_eq!(
                got.join(", "),
                *want,
                "{id}, {:?} rf {rf}, owned {owned:?}",
                self.strategy
            );
            if let Some(rack) = consumer_racks[i] {
                for pn in &r.assignment[&id] {
                    if !racks[&pn.topic][pn.partition as usize].contains(rack) {
                        off += 1;
                    }
                }
            }
        }
        if mismatched >= 0 {
            assert_eq!(off, mismatched, "partitions off their member's rack");
        }
    }

    /// `verifyUniformSubscription` / `verifyNonEqualSubscription`: from
    /// scratch, then again with the expected assignment already owned. Kafka's
    /// `StickyAssignor` reads owned partitions from its user data, which these
    /// tests leave empty, so for it the second run is from scratch too.
    fn verify_twice(
        &self,
        rf: usize,
        broker_racks: &[&str],
        consumer_racks: &[Option<&str>],
        expected: &[&str],
        mismatched: i32,
    ) {
        self.verify(rf, broker_racks, consumer_racks, None, expected, mismatched);
        let owned = (self.strategy == AssignorName::CooperativeSticky).then_some(expected);
        self.verify(
            rf,
            broker_racks,
            consumer_racks,
            owned,
            expected,
            mismatched,
        );
    }
}

fn r(n: usize) -> Vec<&'static str> {
    ["a", "b", "c", "d", "e", "f"][..n].to_vec()
}

fn some(v: &[&'static str]) -> Vec<Option<&'static str>> {
    v.iter().map(|r| Some(*r)).collect()
}

/// RangeAssignorTest.testRackAwareAssignmentWithUniformSubscription.
#[test]
fn rack_aware_range_with_uniform_subscription_matches_kafka() {
    let t = [("t1", 6), ("t2", 7), ("t3", 2)];
    let all = vec!["t1", "t2", "t3"];
    let ct = vec![all.clone(), all.clone(), all.clone()];
    verify_rack_assignment(
        &t,
        1,
        &r(3),
        &some(&r(3)),
        &ct,
        &[
            "t1-0, t1-3, t2-0, t2-3, t2-6",
            "t1-1, t1-4, t2-1, t2-4, t3-0",
            "t1-2, t1-5, t2-2, t2-5, t3-1",
        ],
        0,
    );
    verify_rack_assignment(
        &t,
        2,
        &r(3),
        &some(&r(3)),
        &ct,
        &[
            "t1-0, t1-2, t2-0, t2-2, t2-3, t3-1",
            "t1-1, t1-3, t2-1, t2-4, t3-0",
            "t1-4, t1-5, t2-5, t2-6",
        ],
        1,
    );
    // One consumer on a rack with no partitions.
    verify_rack_assignment(
        &t,
        3,
        &r(2),
        &some(&r(3)),
        &ct,
        &[
            "t1-0, t1-1, t2-0, t2-1, t2-2, t3-0",
            "t1-2, t1-3, t2-3, t2-4, t3-1",
            "t1-4, t1-5, t2-5, t2-6",
        ],
        4,
    );
    // Without rack information (no consumer racks), plain Range.
    verify_rack_assignment(
        &t,
        3,
        &r(3),
        &[None, None, None],
        &ct,
        &[
            "t1-0, t1-1, t2-0, t2-1, t2-2, t3-0",
            "t1-2, t1-3, t2-3, t2-4, t3-1",
            "t1-4, t1-5, t2-5, t2-6",
        ],
        -1,
    );
}

/// RangeAssignorTest.testRackAwareAssignmentWithNonEqualSubscription.
#[test]
fn rack_aware_range_with_non_equal_subscription_matches_kafka() {
    let t = [("t1", 6), ("t2", 7), ("t3", 2)];
    let all = vec!["t1", "t2", "t3"];
    let ct = vec![all.clone(), all.clone(), vec!["t1", "t3"]];
    verify_rack_assignment(
        &t,
        1,
        &r(3),
        &some(&r(3)),
        &ct,
        &[
            "t1-0, t1-3, t2-0, t2-2, t2-3, t2-6",
            "t1-1, t1-4, t2-1, t2-4, t2-5, t3-0",
            "t1-2, t1-5, t3-1",
        ],
        2,
    );
    verify_rack_assignment(
        &t,
        2,
        &r(3),
        &some(&r(3)),
        &ct,
        &[
            "t1-0, t1-2, t2-0, t2-2, t2-3, t2-5, t3-1",
            "t1-1, t1-3, t2-1, t2-4, t2-6, t3-0",
            "t1-4, t1-5",
        ],
        0,
    );
    verify_rack_assignment(
        &t,
        3,
        &r(2),
        &some(&r(3)),
        &ct,
        &[
            "t1-0, t1-1, t2-0, t2-1, t2-2, t2-3, t3-0",
            "t1-2, t1-3, t2-4, t2-5, t2-6, t3-1",
            "t1-4, t1-5",
        ],
        2,
    );
}

/// RangeAssignorTest.testRackAwareAssignmentWithUniformPartitions and
/// ...NonEqualSubscription: co-partitioning first, racks second.
#[test]
fn rack_aware_range_keeps_co_partitioning_as_kafka_does() {
    let t = [("t1", 5), ("t2", 5), ("t3", 5)];
    let all = vec!["t1", "t2", "t3"];
    let ct = vec![all.clone(), all.clone(), all.clone()];
    let plain = [
        "t1-0, t1-1, t2-0, t2-1, t3-0, t3-1",
        "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3",
        "t1-4, t2-4, t3-4",
    ];
    verify_rack_assignment(&t, 1, &r(3), &some(&r(3)), &ct, &plain, 10);
    verify_rack_assignment(&t, 2, &r(3), &some(&r(3)), &ct, &plain, 5);
    verify_rack_assignment(&t, 3, &r(2), &some(&r(3)), &ct, &plain, 3);
    let ct = vec![all.clone(), all.clone(), vec!["t1", "t3"]];
    verify_rack_assignment(
        &t,
        1,
        &r(3),
        &some(&r(3)),
        &ct,
        &[
            "t1-0, t1-1, t2-0, t2-1, t2-4, t3-0, t3-1",
            "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3",
            "t1-4, t3-4",
        ],
        9,
    );
    verify_rack_assignment(
        &t,
        2,
        &r(3),
        &some(&r(3)),
        &ct,
        &[
            "t1-2, t2-0, t2-1, t2-3, t3-2",
            "t1-0, t1-3, t2-2, t2-4, t3-0, t3-3",
            "t1-1, t1-4, t3-1, t3-4",
        ],
        0,
    );
    verify_rack_assignment(
        &t,
        3,
        &r(2),
        &some(&r(3)),
        &ct,
        &[
            "t1-0, t1-1, t2-0, t2-1, t2-2, t3-0, t3-1",
            "t1-2, t1-3, t2-3, t2-4, t3-2, t3-3",
            "t1-4, t3-4",
        ],
        2,
    );
}

/// RangeAssignorTest.testRackAwareAssignmentWithCoPartitioning.
#[test]
fn rack_aware_range_with_co_partitioned_topics_matches_kafka() {
    let t = [("t1", 6), ("t2", 6), ("t3", 2), ("t4", 2)];
    let ct = vec![
        vec!["t1", "t2"],
        vec!["t1", "t2"],
        vec!["t3", "t4"],
        vec!["t3", "t4"],
    ];
    let cr = some(&["a", "b", "b", "a"]);
    let plain = [
        "t1-0, t1-1, t1-2, t2-0, t2-1, t2-2",
        "t1-3, t1-4, t1-5, t2-3, t2-4, t2-5",
        "t3-0, t4-0",
        "t3-1, t4-1",
    ];
    verify_rack_assignment(&t, 3, &r(2), &cr, &ct, &plain, -1);
    verify_rack_assignment(&t, 2, &r(2), &cr, &ct, &plain, 0);
    verify_rack_assignment(
        &t,
        1,
        &r(2),
        &cr,
        &ct,
        &[
            "t1-0, t1-2, t1-4, t2-0, t2-2, t2-4",
            "t1-1, t1-3, t1-5, t2-1, t2-3, t2-5",
            "t3-1, t4-1",
            "t3-0, t4-0",
        ],
        0,
    );
    let all = vec!["t1", "t2", "t3", "t4"];
    let ct = vec![all.clone(), all.clone(), all.clone(), all.clone()];
    let plain = [
        "t1-0, t1-1, t2-0, t2-1, t3-0, t4-0",
        "t1-2, t1-3, t2-2, t2-3, t3-1, t4-1",
        "t1-4, t2-4",
        "t1-5, t2-5",
    ];
    verify_rack_assignment(&t, 3, &r(2), &cr, &ct, &plain, -1);
    verify_rack_assignment(&t, 2, &r(2), &cr, &ct, &plain, 0);
    verify_rack_assignment(
        &t,
        1,
        &r(2),
        &cr,
        &ct,
        &[
            "t1-0, t1-2, t2-0, t2-2, t3-0, t4-0",
            "t1-1, t1-3, t2-1, t2-3, t3-1, t4-1",
            "t1-5, t2-5",
            "t1-4, t2-4",
        ],
        0,
    );
    verify_rack_assignment(
        &t,
        1,
        &r(3),
        &cr,
        &ct,
        &[
            "t1-0, t1-3, t2-0, t2-3, t3-0, t4-0",
            "t1-1, t1-4, t2-1, t2-4, t3-1, t4-1",
            "t1-2, t2-2",
            "t1-5, t2-5",
        ],
        6,
    );
}

/// RoundRobin ignores racks, as in Kafka (KIP-881 is Range and Sticky).
#[test]
fn round_robin_ignores_racks() {
    let t = topics(&[("t", 4)]);
    let racks: PartitionRacks = [(
        "t".to_string(),
        (0..4)
            .map(|p| [["a", "b"][p % 2].to_string()].into_iter().collect())
            .collect(),
    )]
    .into_iter()
    .collect();
    let members = vec![
        MemberSubscription {
            rack_id: Some("b".into()),
            ..member("m1", &["t"])
        },
        member("m2", &["t"]),
    ];
    assert_eq!(
        assign_with_racks(AssignorName::RoundRobin, &t, &racks, &members).unwrap(),
        assign(AssignorName::RoundRobin, &t, &members).unwrap()
    );
}

const STICKY_TOPICS: [(&str, i32); 3] = [("t1", 6), ("t2", 7), ("t3", 2)];

fn null_racks(n: usize) -> Vec<Option<&'static str>> {
    vec![None; n]
}

/// The shared part of `testRackAwareAssignmentWithUniformSubscription` and
/// `testRackAwareAssignmentWithNonEqualSubscription`: when racks cannot or
/// need not be used, the plain sticky assignment.
fn sticky_rack_cases_without_effect(strategy: AssignorName, ct: &[Vec<&str>], plain: &[&str]) {
    let mut case = RackCase {
        strategy,
        prefer: false,
        topics: &STICKY_TOPICS,
        consumer_topics: ct,
    };
    case.verify_twice(3, &["", "", ""], &some(&r(3)), plain, -1);
    case.verify_twice(3, &r(3), &null_racks(3), plain, -1);
    case.prefer = true;
    case.verify_twice(3, &r(3), &some(&r(3)), plain, 0);
    case.verify_twice(4, &r(4), &some(&r(3)), plain, 0);
    case.prefer = false;
    case.verify_twice(3, &r(3), &some(&r(3)), plain, 0);
    case.verify_twice(3, &r(3), &some(&["d", "e", "f"]), plain, -1);
    case.verify_twice(3, &r(3), &[None, Some("e"), Some("f")], plain, -1);
}

/// AbstractStickyAssignorTest.testRackAwareAssignmentWithUniformSubscription,
/// for StickyAssignor and CooperativeStickyAssignor.
#[test]
fn rack_aware_sticky_with_uniform_subscription_matches_kafka() {
    let all = vec!["t1", "t2", "t3"];
    let ct = vec![all.clone(), all.clone(), all.clone()];
    let assignment = [
        "t1-0, t1-3, t2-0, t2-3, t2-6",
        "t1-1, t1-4, t2-1, t2-4, t3-0",
        "t1-2, t1-5, t2-2, t2-5, t3-1",
    ];
    let owned = [
        "t1-0, t1-1, t1-2, t1-3, t1-4",
        "t1-5, t2-0, t2-1, t2-2, t2-3",
        "t2-4, t2-5, t2-6, t3-0, t3-1",
    ];
    for strategy in [AssignorName::Sticky, AssignorName::CooperativeSticky] {
        sticky_rack_cases_without_effect(strategy, &ct, &assignment);
        let mut case = RackCase {
            strategy,
            prefer: false,
            topics: &STICKY_TOPICS,
            consumer_topics: &ct,
        };
        // Lower replication factors: rack-aligned.
        case.verify_twice(1, &r(3), &some(&r(3)), &assignment, 0);
        case.verify_twice(2, &r(3), &some(&r(3)), &assignment, 0);
        // One member on a rack with no replicas: off its rack, for balance.
        case.verify_twice(3, &r(2), &some(&r(3)), &assignment, 5);
        if strategy == AssignorName::CooperativeSticky {
            // Misaligned owned partitions: the ones that move are revoked first.
            let first = ["t1-0, t1-3", "t2-1", "t2-5, t3-1"];
            case.verify(1, &r(3), &some(&r(3)), Some(&owned), &first, 0);
            case.prefer = true;
            case.verify(3, &r(3), &some(&r(3)), Some(&assignment), &assignment, 0);
        } else {
            case.verify(1, &r(3), &some(&r(3)), None, &assignment, 0);
            case.prefer = true;
            case.verify(3, &r(3), &some(&r(3)), None, &assignment, 0);
        }
    }
}

/// AbstractStickyAssignorTest.testRackAwareAssignmentWithNonEqualSubscription
/// (the general builder), for StickyAssignor and CooperativeStickyAssignor.
#[test]
fn rack_aware_sticky_with_non_equal_subscription_matches_kafka() {
    let all = vec!["t1", "t2", "t3"];
    let ct = vec![all.clone(), all.clone(), vec!["t1", "t3"]];
    let plain = [
        "t1-5, t2-0, t2-2, t2-4, t2-6",
        "t1-3, t2-1, t2-3, t2-5, t3-0",
        "t1-0, t1-1, t1-2, t1-4, t3-1",
    ];
    let rf1 = [
        "t1-3, t2-0, t2-2, t2-3, t2-6",
        "t1-4, t2-1, t2-4, t2-5, t3-0",
        "t1-0, t1-1, t1-2, t1-5, t3-1",
    ];
    let rf2 = [
        "t1-3, t2-0, t2-2, t2-5, t2-6",
        "t1-0, t2-1, t2-3, t2-4, t3-0",
        "t1-1, t1-2, t1-4, t1-5, t3-1",
    ];
    let owned = [
        "t1-0, t1-1, t1-2, t1-3, t1-4",
        "t1-5, t2-0, t2-1, t2-2, t2-3",
        "t2-4, t2-5, t2-6, t3-0, t3-1",
    ];
    for strategy in [AssignorName::Sticky, AssignorName::CooperativeSticky] {
        sticky_rack_cases_without_effect(strategy, &ct, &plain);
        let mut case = RackCase {
            strategy,
            prefer: false,
            topics: &STICKY_TOPICS,
            consumer_topics: &ct,
        };
        // Best effort: with one rack per partition some stay misaligned.
        case.verify_twice(1, &r(3), &some(&r(3)), &rf1, 4);
        case.verify_twice(2, &r(3), &some(&r(3)), &rf2, 0);
        case.verify_twice(3, &r(2), &some(&r(3)), &plain, 5);
        if strategy == AssignorName::Sticky {
            case.verify(1, &r(3), &some(&r(3)), None, &rf1, 4);
            for prefer in [false, true] {
                case.prefer = prefer;
                case.verify(3, &r(3), &some(&r(3)), None, &plain, 0);
            }
        } else {
            let first = ["t1-3", "t2-1", "t3-1"];
            case.verify(1, &r(3), &some(&r(3)), Some(&owned), &first, 0);
            case.verify(1, &r(3), &some(&r(3)), Some(&first), &rf1, 4);
            let first = ["t1-2, t1-3, t1-4", "t2-0, t2-1, t2-2, t2-3", "t3-0, t3-1"];
            let then = [
                "t1-2, t1-3, t1-4, t2-4, t2-5",
                "t2-0, t2-1, t2-2, t2-3, t2-6",
                "t1-0, t1-1, t1-5, t3-0, t3-1",
            ];
            for prefer in [false, true] {
                case.prefer = prefer;
                case.verify(3, &r(3), &some(&r(3)), Some(&owned), &first, 0);
                case.verify(3, &r(3), &some(&r(3)), Some(&first), &then, 0);
            }
        }
    }
}
