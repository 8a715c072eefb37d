//! `RangeAssignorTest` (group-coordinator, Kafka 4.1.0), ported: each test
//! is the same group and metadata as a request to `kafka-sim assign
//! --strategy server-range`, with the answer Kafka's test expects.
//! Topics: topic1, topic2, topic3; members A, B, C (as in the Java test,
//! whose topic ids are random: the range assignor does not depend on them).

use super::*;

fn answer(req: &str) -> Result<String, String> {
    let r: ServerRequest = serde_json::from_str(req).map_err(|e| e.to_string())?;
    check_request(&r, 1000, 100_000)?;
    assign("server-range", &r).map(|a| answer_json(&a))
}

fn expect(req: &str, want: &str) {
    assert_eq!(answer(req).unwrap(), want, "{req}");
}

/// A member with no instance id and no current assignment.
fn m(id: &str, topics: &[&str]) -> String {
    format!(
        r#"{{"member_id":"{id}","subscribed_topics":{}}}"#,
        serde_json::to_string(topics).unwrap()
    )
}

fn req(topics: &str, members: &[String], ty: &str) -> String {
    format!(
        r#"{{"topics":{topics},"members":[{}],"subscription_type":"{ty}"}}"#,
        members.join(",")
    )
}

#[test]
fn test_one_member_no_topic() {
    expect(
        &req("{}", &[m("A", &[])], "HOMOGENEOUS"),
        r#"{"assignment":{"A":{}}}"#,
    );
}

#[test]
fn test_one_member_subscribed_to_non_existent_topic() {
    let e = answer(&req(
        r#"{"topic1":3}"#,
        &[m("A", &["topic2"])],
        "HOMOGENEOUS",
    ))
    .unwrap_err();
    assert_eq!(
        e,
        "PartitionAssignorException: Member is subscribed to a non-existent topic"
    );
}

#[test]
fn test_first_assignment_two_members_two_topics_same_subscriptions() {
    expect(
        &req(
            r#"{"topic1":3,"topic3":2}"#,
            &[m("A", &["topic1", "topic3"]), m("B", &["topic1", "topic3"])],
            "HOMOGENEOUS",
        ),
        r#"{"assignment":{"A":{"topic1":[0,1],"topic3":[0]},"B":{"topic1":[2],"topic3":[1]}}}"#,
    );
}

#[test]
fn test_first_assignment_three_members_three_topics_different_subscriptions() {
    expect(
        &req(
            r#"{"topic1":3,"topic2":3,"topic3":2}"#,
            &[
                m("A", &["topic1", "topic2"]),
                m("B", &["topic3"]),
                m("C", &["topic2", "topic3"]),
            ],
            "HETEROGENEOUS",
        ),
        r#"{"assignment":{"A":{"topic1":[0,1,2],"topic2":[0,1]},"B":{"topic3":[0]},"C":{"topic2":[2],"topic3":[1]}}}"#,
    );
}

#[test]
fn test_first_assignment_num_members_greater_than_num_partitions() {
    let ms = ["A", "B", "C"].map(|x| m(x, &["topic1", "topic3"]));
    expect(
        &req(r#"{"topic1":3,"topic3":2}"#, &ms, "HOMOGENEOUS"),
        r#"{"assignment":{"A":{"topic1":[0],"topic3":[0]},"B":{"topic1":[1],"topic3":[1]},"C":{"topic1":[2]}}}"#,
    );
}

/// A static member back under a new member id keeps its partitions.
#[test]
fn test_static_membership() {
    let st = |id: &str, inst: &str| {
        format!(r#"{{"member_id":"{id}","instance_id":"{inst}","subscribed_topics":["topic1"]}}"#)
    };
    let first = answer(&req(
        r#"{"topic1":3}"#,
        &[st("A", "instanceA"), st("B", "instanceB")],
        "HOMOGENEOUS",
    ))
    .unwrap();
    let again = answer(&req(
        r#"{"topic1":3}"#,
        &[st("B", "instanceB"), st("memberA1", "instanceA")],
        "HOMOGENEOUS",
    ))
    .unwrap();
    assert_eq!(
        first,
        r#"{"assignment":{"A":{"topic1":[0,1]},"B":{"topic1":[2]}}}"#
    );
    assert_eq!(
        again,
        r#"{"assignment":{"B":{"topic1":[2]},"memberA1":{"topic1":[0,1]}}}"#
    );
}

#[test]
fn test_mixed_static_membership() {
    let st = |id: &str, inst: &str| {
        format!(r#"{{"member_id":"{id}","instance_id":"{inst}","subscribed_topics":["topic1"]}}"#)
    };
    let first = answer(&req(
        r#"{"topic1":5}"#,
        &[
            st("A", "instanceA"),
            m("B", &["topic1"]),
            st("C", "instanceC"),
        ],
        "HOMOGENEOUS",
    ))
    .unwrap();
    let again = answer(&req(
        r#"{"topic1":5}"#,
        &[
            m("B", &["topic1"]),
            st("C", "instanceC"),
            st("memberA1", "instanceA"),
        ],
        "HOMOGENEOUS",
    ))
    .unwrap();
    // Static members first (instanceA, instanceC), then B.
    assert_eq!(
        first,
        r#"{"assignment":{"A":{"topic1":[0,1]},"B":{"topic1":[4]},"C":{"topic1":[2,3]}}}"#
    );
    assert_eq!(
        again,
        r#"{"assignment":{"B":{"topic1":[4]},"C":{"topic1":[2,3]},"memberA1":{"topic1":[0,1]}}}"#
    );
}

/// Members with a current assignment (the range assignor ignores it).
fn mc(id: &str, topics: &[&str], current: &str) -> String {
    format!(
        r#"{{"member_id":"{id}","subscribed_topics":{},"current_assignment":{current}}}"#,
        serde_json::to_string(topics).unwrap()
    )
}

#[test]
fn test_reassignment_num_members_greater_than_num_partitions_when_one_member_added() {
    let t = ["topic1", "topic2"];
    expect(
        &req(
            r#"{"topic1":2,"topic2":2}"#,
            &[
                mc("A", &t, r#"{"topic1":[0],"topic2":[0]}"#),
                mc("B", &t, r#"{"topic1":[1],"topic2":[1]}"#),
                m("C", &t),
            ],
            "HOMOGENEOUS",
        ),
        r#"{"assignment":{"A":{"topic1":[0],"topic2":[0]},"B":{"topic1":[1],"topic2":[1]},"C":{}}}"#,
    );
}

#[test]
fn test_reassignment_when_one_partition_added_for_two_members_two_topics() {
    let t = ["topic1", "topic2"];
    expect(
        &req(
            r#"{"topic1":4,"topic2":4}"#,
            &[
                mc("A", &t, r#"{"topic1":[0,1],"topic2":[0,1]}"#),
                mc("B", &t, r#"{"topic1":[2],"topic2":[2]}"#),
            ],
            "HOMOGENEOUS",
        ),
        r#"{"assignment":{"A":{"topic1":[0,1],"topic2":[0,1]},"B":{"topic1":[2,3],"topic2":[2,3]}}}"#,
    );
}

#[test]
fn test_reassignment_when_one_member_added_after_initial_assignment_with_two_members_two_topics() {
    let t = ["topic1", "topic2"];
    expect(
        &req(
            r#"{"topic1":3,"topic2":3}"#,
            &[
                mc("A", &t, r#"{"topic1":[0,1],"topic2":[0,1]}"#),
                mc("B", &t, r#"{"topic1":[2],"topic2":[2]}"#),
                m("C", &t),
            ],
            "HOMOGENEOUS",
        ),
        r#"{"assignment":{"A":{"topic1":[0],"topic2":[0]},"B":{"topic1":[1],"topic2":[1]},"C":{"topic1":[2],"topic2":[2]}}}"#,
    );
}

#[test]
fn test_reassignment_when_one_member_added_and_one_partition_after_initial_assignment_with_two_members_two_topics(
) {
    let t = ["topic1", "topic2"];
    expect(
        &req(
            r#"{"topic1":4,"topic2":3}"#,
            &[
                mc("A", &t, r#"{"topic1":[0,1],"topic2":[0,1]}"#),
                mc("B", &t, r#"{"topic1":[2],"topic2":[2]}"#),
                m("C", &["topic1"]),
            ],
            "HETEROGENEOUS",
        ),
        r#"{"assignment":{"A":{"topic1":[0,1],"topic2":[0,1]},"B":{"topic1":[2],"topic2":[2]},"C":{"topic1":[3]}}}"#,
    );
}

#[test]
fn test_reassignment_when_one_member_removed_after_initial_assignment_with_two_members_two_topics()
{
    expect(
        &req(
            r#"{"topic1":3,"topic2":3}"#,
            &[mc(
                "B",
                &["topic1", "topic2"],
                r#"{"topic1":[2],"topic2":[2]}"#,
            )],
            "HOMOGENEOUS",
        ),
        r#"{"assignment":{"B":{"topic1":[0,1,2],"topic2":[0,1,2]}}}"#,
    );
}

#[test]
fn test_reassignment_when_multiple_subscriptions_removed_after_initial_assignment_with_three_members_two_topics(
) {
    expect(
        &req(
            r#"{"topic1":3,"topic2":3,"topic3":2}"#,
            &[
                mc("A", &["topic1"], r#"{"topic1":[0,1,2],"topic2":[0]}"#),
                mc("B", &["topic1", "topic2", "topic3"], r#"{"topic2":[1]}"#),
                mc("C", &["topic2"], r#"{"topic2":[2],"topic3":[0,1]}"#),
            ],
            "HETEROGENEOUS",
        ),
        r#"{"assignment":{"A":{"topic1":[0,1]},"B":{"topic1":[2],"topic2":[0,1],"topic3":[0,1]},"C":{"topic2":[2]}}}"#,
    );
}

/// Beyond Kafka's test: the type a group derives (`ModernGroup`), and bad
/// requests named.
#[test]
fn the_subscription_type_is_derived_as_the_group_does() {
    let ms = |a: &[&str], b: &[&str]| {
        [m("A", a), m("B", b)]
            .iter()
            .map(|s| serde_json::from_str::<ServerMember>(s).unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        derive_subscription_type(&ms(&["t", "u"], &["u", "t"])),
        SubscriptionType::Homogeneous
    );
    assert_eq!(
        derive_subscription_type(&ms(&[], &[])),
        SubscriptionType::Homogeneous
    );
    assert_eq!(
        derive_subscription_type(&ms(&["t"], &[])),
        SubscriptionType::Heterogeneous
    );
    // Without the override, the second member's own topics count.
    let r = format!(
        r#"{{"topics":{{"t":2,"u":2}},"members":[{},{}]}}"#,
        m("A", &["t"]),
        m("B", &["u"])
    );
    assert_eq!(
        answer(&r).unwrap(),
        r#"{"assignment":{"A":{"t":[0,1]},"B":{"u":[0,1]}}}"#
    );
    for (bad, says) in [
        (
            r#"{"topics":{"t":-1},"members":[]}"#,
            "topics.t: -1 partitions",
        ),
        (
            r#"{"topics":{"t":1},"topic_ids":{"t":"nope"},"members":[]}"#,
            "is not a topic id",
        ),
        (
            r#"{"topics":{"t":1},"members":[{"member_id":"A","subscribed_topics":[]},{"member_id":"A","subscribed_topics":[]}]}"#,
            "`A` twice",
        ),
        (
            r#"{"topics":{"t":1},"members":[{"member_id":"A","subscribed_topics":[],"current_assignment":{"t":[0],"t":[1]}}]}"#,
            "topic `t` twice",
        ),
        (
            r#"{"topics":{"t":1},"members":[],"partition_racks":{"t":[]}}"#,
            "0 entries for 1 partition",
        ),
    ] {
        let e = answer(bad).unwrap_err();
        assert!(e.contains(says), "{bad}: {e}");
    }
}

// ---- OptimizedUniformAssignmentBuilderTest (Kafka 4.1.0), ported -------
// The Java test's fixed topic ids; members in a TreeMap (sorted); a member's
// current assignment as `mkOrderedAssignment` lists it, or for
// `mkAssignment` (a HashMap) in that map's order, which for these two ids
// is topic2 before topic1 as the HashSet order below shows.

const IDS: &str = r#""topic_ids":{"topic1":"T1-A4s3VTwiI5CTbEp6POw","topic2":"T2-B4s3VTwiI5YHbPp6YUe","topic3":"T3-CU8fVTLCz5YMkLoDQsa"}"#;

fn uniform(topics: &str, members: &[String]) -> Result<String, String> {
    let used: Vec<&str> = ["topic1", "topic2", "topic3"]
        .into_iter()
        .filter(|t| topics.contains(t))
        .collect();
    let ids: serde_json::Value = serde_json::from_str(&format!("{{{IDS}}}")).unwrap();
    let ids: serde_json::Map<String, serde_json::Value> = used
        .iter()
        .map(|t| (t.to_string(), ids["topic_ids"][t].clone()))
        .collect();
    let req = format!(
        r#"{{"topics":{topics},"topic_ids":{},"members":[{}],"subscription_type":"HOMOGENEOUS"}}"#,
        serde_json::Value::Object(ids),
        members.join(",")
    );
    let r: ServerRequest = serde_json::from_str(&req).map_err(|e| e.to_string())?;
    check_request(&r, 1000, 100_000)?;
    assign("uniform", &r).map(|a| answer_json(&a))
}

#[test]
fn uuid_hashes_and_hash_set_order_follow_java() {
    // The order the Java tests' expectations imply: topic3 before topic1
    // (testFirstAssignmentTwoMembersTwoTopicsNoMemberRacks), topic2 before
    // topic1 (testReassignmentWhenOneMemberRemoved…).
    let ids = |names: &[&str]| -> Vec<String> {
        let all: serde_json::Value = serde_json::from_str(&format!("{{{IDS}}}")).unwrap();
        names
            .iter()
            .map(|n| all["topic_ids"][n].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(java_hash_set_order(&ids(&["topic1", "topic3"])), vec![1, 0]);
    assert_eq!(java_hash_set_order(&ids(&["topic1", "topic2"])), vec![1, 0]);
    assert_eq!(crate::kraft::codec::uuid_bytes("AAAAAAAAAAAAAAAAAAAAAQ"), {
        let mut b = [0u8; 16];
        b[15] = 1;
        b
    });
    assert_eq!(uuid_hash("AAAAAAAAAAAAAAAAAAAAAQ"), 1);
    assert_eq!(derived_topic_id("t").len(), 22);
    assert_ne!(derived_topic_id("t"), derived_topic_id("u"));
}

#[test]
fn uniform_test_one_member_no_topic_subscription() {
    assert_eq!(
        uniform(r#"{"topic1":3}"#, &[m("A", &[])]).unwrap(),
        r#"{"assignment":{}}"#
    );
}

#[test]
fn uniform_test_one_member_subscribed_to_nonexistent_topic() {
    let e = uniform(r#"{"topic1":3}"#, &[m("A", &["topic2"])]).unwrap_err();
    assert!(
        e.starts_with("PartitionAssignorException: Members are subscribed to topic"),
        "{e}"
    );
    assert!(
        e.ends_with("which doesn't exist in the topic metadata."),
        "{e}"
    );
}

#[test]
fn uniform_test_first_assignment_two_members_two_topics_no_member_racks() {
    let t = ["topic1", "topic3"];
    assert_eq!(
        uniform(r#"{"topic1":3,"topic3":2}"#, &[m("A", &t), m("B", &t)]).unwrap(),
        r#"{"assignment":{"A":{"topic3":[0,1]},"B":{"topic1":[0,1,2]}}}"#
    );
}

#[test]
fn uniform_test_first_assignment_num_members_greater_than_total_num_partitions() {
    let t = ["topic3"];
    assert_eq!(
        uniform(r#"{"topic3":2}"#, &[m("A", &t), m("B", &t), m("C", &t)]).unwrap(),
        r#"{"assignment":{"A":{},"B":{"topic3":[0]},"C":{"topic3":[1]}}}"#
    );
}

#[test]
fn uniform_test_reassignment_for_two_members_two_topics_given_unbalanced_prev_assignment() {
    let t = ["topic1", "topic2"];
    assert_eq!(
        uniform(
            r#"{"topic1":3,"topic2":3}"#,
            &[
                mc("A", &t, r#"{"topic1":[0,1],"topic2":[0,1]}"#),
                mc("B", &t, r#"{"topic1":[2],"topic2":[2]}"#),
            ]
        )
        .unwrap(),
        r#"{"assignment":{"A":{"topic1":[0,1],"topic2":[0]},"B":{"topic1":[2],"topic2":[1,2]}}}"#
    );
}

#[test]
fn uniform_test_reassignment_when_partitions_are_added_for_two_members_two_topics() {
    let t = ["topic1", "topic2"];
    assert_eq!(
        uniform(
            r#"{"topic1":6,"topic2":5}"#,
            &[
                mc("A", &t, r#"{"topic1":[0,2],"topic2":[0]}"#),
                mc("B", &t, r#"{"topic1":[1],"topic2":[1,2]}"#),
            ]
        )
        .unwrap(),
        r#"{"assignment":{"A":{"topic1":[0,2],"topic2":[0,3,4]},"B":{"topic1":[1,3,4,5],"topic2":[1,2]}}}"#
    );
}

#[test]
fn uniform_test_reassignment_when_one_member_added_after_initial_assignment_with_two_members_two_topics(
) {
    let t = ["topic1", "topic2"];
    assert_eq!(
        uniform(
            r#"{"topic1":3,"topic2":3}"#,
            &[
                mc("A", &t, r#"{"topic1":[0,2],"topic2":[0]}"#),
                mc("B", &t, r#"{"topic1":[1],"topic2":[1,2]}"#),
                m("C", &t),
            ]
        )
        .unwrap(),
        r#"{"assignment":{"A":{"topic1":[0,2]},"B":{"topic1":[1],"topic2":[1]},"C":{"topic2":[0,2]}}}"#
    );
}

#[test]
fn uniform_test_reassignment_when_one_member_removed_after_initial_assignment_with_three_members_two_topics(
) {
    let t = ["topic1", "topic2"];
    assert_eq!(
        uniform(
            r#"{"topic1":3,"topic2":3}"#,
            &[
                mc("A", &t, r#"{"topic2":[0],"topic1":[0]}"#),
                mc("B", &t, r#"{"topic2":[1],"topic1":[1]}"#),
            ]
        )
        .unwrap(),
        r#"{"assignment":{"A":{"topic1":[0],"topic2":[0,2]},"B":{"topic1":[1,2],"topic2":[1]}}}"#
    );
}

#[test]
fn uniform_test_reassignment_when_one_subscription_removed_after_initial_assignment_with_two_members_two_topics(
) {
    let t = ["topic2"];
    assert_eq!(
        uniform(
            r#"{"topic1":2,"topic2":2}"#,
            &[
                mc("A", &t, r#"{"topic2":[0],"topic1":[0]}"#),
                mc("B", &t, r#"{"topic2":[1],"topic1":[1]}"#),
            ]
        )
        .unwrap(),
        r#"{"assignment":{"A":{"topic2":[0]},"B":{"topic2":[1]}}}"#
    );
}

#[test]
fn uniform_test_reassignment_stickiness_when_already_balanced() {
    assert_eq!(
        uniform(
            r#"{"topic1":5}"#,
            &[
                mc("A", &["topic1"], r#"{"topic1":[0,3]}"#),
                mc("B", &["topic1", "topic2"], r#"{"topic1":[1]}"#),
                mc("C", &["topic1", "topic2"], r#"{"topic1":[2,4]}"#),
            ]
        )
        .unwrap(),
        r#"{"assignment":{"A":{"topic1":[0,3]},"B":{"topic1":[1]},"C":{"topic1":[2,4]}}}"#
    );
}

/// `testValidityAndBalanceForLargeSampleSet`: 100 topics of 3 partitions,
/// 49 members: every partition once, sizes within one (checkValidityAndBalance).
#[test]
fn uniform_test_validity_and_balance_for_large_sample_set() {
    let topics: Vec<String> = (1..101).map(|i| format!("topic-{i}")).collect();
    let names: Vec<&str> = topics.iter().map(String::as_str).collect();
    let counts: SortedMap<String, i32> = topics.iter().map(|t| (t.clone(), 3)).collect();
    let members: Vec<ServerMember> = (1..50)
        .map(|i| serde_json::from_str(&m(&format!("member{i}"), &names)).unwrap())
        .collect();
    let a = uniform_homogeneous(&counts, &SortedMap::new(), &members).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    let sizes: Vec<usize> = a
        .iter()
        .map(|(_, ts)| {
            for (t, ps) in ts.iter() {
                for p in ps {
                    assert!(seen.insert((t.clone(), *p)), "{t}-{p} twice");
                }
            }
            ts.values().map(Vec::len).sum()
        })
        .collect();
    assert_eq!(seen.len(), 300);
    assert!(
        sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1,
        "{sizes:?}"
    );
}

// ---- UniformHeterogeneousAssignmentBuilderTest (Kafka 4.1.0), ported ---
// The Java test's fixed topic ids; its `TestGroupSpecImpl` numbers members
// in sorted order (A, B, C), as the requests list them; the subscription
// type is HETEROGENEOUS in every test.

const IDS4: &str = r#"{"topic1":"T1-A4s3VTwiI5CTbEp6POw","topic2":"T2-B4s3VTwiI5YHbPp6YUe","topic3":"T3-CU8fVTLCz5YMkLoDQsa","topic4":"T4-Tw9fVTLCz5HbPp6YQsa"}"#;

fn hetero(topics: &str, members: &[String]) -> Result<String, String> {
    let req = format!(
        r#"{{"topics":{topics},"members":[{}],"subscription_type":"HETEROGENEOUS"}}"#,
        members.join(",")
    );
    let mut r: ServerRequest = serde_json::from_str(&req).map_err(|e| e.to_string())?;
    let all: SortedMap<String, String> = serde_json::from_str(IDS4).unwrap();
    r.topic_ids = all
        .into_iter()
        .filter(|(t, _)| r.topics.contains_key(t))
        .collect();
    check_request(&r, 1000, 100_000)?;
    assign("uniform", &r).map(|a| answer_json(&a))
}

#[test]
fn hetero_test_two_members_no_topic_subscription() {
    assert_eq!(
        hetero(r#"{"topic1":3}"#, &[m("A", &[]), m("B", &[])]).unwrap(),
        r#"{"assignment":{}}"#
    );
}

#[test]
fn hetero_test_two_members_subscribed_to_nonexistent_topics() {
    let e = hetero(
        r#"{"topic1":3}"#,
        &[m("A", &["topic3"]), m("B", &["topic2"])],
    )
    .unwrap_err();
    assert!(
        e.starts_with("PartitionAssignorException: Members are subscribed to topic "),
        "{e}"
    );
}

#[test]
fn hetero_test_first_assignment_two_members_two_topics() {
    assert_eq!(
        hetero(
            r#"{"topic1":3,"topic3":6}"#,
            &[m("A", &["topic1", "topic3"]), m("B", &["topic3"])]
        )
        .unwrap(),
        r#"{"assignment":{"A":{"topic1":[0,1,2],"topic3":[4]},"B":{"topic3":[0,1,2,3,5]}}}"#
    );
}

#[test]
fn hetero_test_first_assignment_num_members_greater_than_total_num_partitions() {
    assert_eq!(
        hetero(
            r#"{"topic1":2,"topic3":1}"#,
            &[
                m("A", &["topic3"]),
                m("B", &["topic3"]),
                m("C", &["topic1"])
            ]
        )
        .unwrap(),
        r#"{"assignment":{"A":{"topic3":[0]},"B":{},"C":{"topic1":[0,1]}}}"#
    );
}

#[test]
fn hetero_test_reassignment_for_two_members_three_topics_given_unbalanced_prev_assignment() {
    assert_eq!(
        hetero(
            r#"{"topic1":6,"topic2":4,"topic3":4}"#,
            &[
                mc("A", &["topic1"], r#"{"topic1":[0,1,2]}"#),
                mc("B", &["topic1", "topic2"], r#"{"topic1":[3],"topic2":[0]}"#),
                mc(
                    "C",
                    &["topic1", "topic2", "topic3"],
                    r#"{"topic1":[4,5],"topic2":[1,2,3],"topic3":[0,1,2,3]}"#
                ),
            ]
        )
        .unwrap(),
        r#"{"assignment":{"A":{"topic1":[0,1,2,5]},"B":{"topic1":[3],"topic2":[0,1,2,3]},"C":{"topic1":[4],"topic3":[0,1,2,3]}}}"#
    );
}

#[test]
fn hetero_test_reassignment_when_partitions_are_added_for_two_members() {
    assert_eq!(
        hetero(
            r#"{"topic1":6,"topic2":5,"topic3":3,"topic4":3}"#,
            &[
                mc(
                    "A",
                    &["topic1", "topic3"],
                    r#"{"topic1":[0,1,2,3],"topic3":[0,1]}"#
                ),
                mc(
                    "B",
                    &["topic1", "topic2", "topic3", "topic4"],
                    r#"{"topic2":[0,1,2],"topic4":[0,1,2]}"#
                ),
            ]
        )
        .unwrap(),
        r#"{"assignment":{"A":{"topic1":[0,1,2,3,4,5],"topic3":[0,1,2]},"B":{"topic2":[0,1,2,3,4],"topic4":[0,1,2]}}}"#
    );
}

#[test]
fn hetero_test_reassignment_when_one_member_added_and_partitions_added_two_members_two_topics() {
    assert_eq!(
        hetero(
            r#"{"topic1":6,"topic2":7}"#,
            &[
                mc("A", &["topic1"], r#"{"topic1":[0,2],"topic2":[0]}"#),
                mc(
                    "B",
                    &["topic1", "topic2"],
                    r#"{"topic1":[1],"topic2":[1,2]}"#
                ),
                m("C", &["topic1", "topic2"]),
            ]
        )
        .unwrap(),
        r#"{"assignment":{"A":{"topic1":[0,2,3,4,5]},"B":{"topic1":[1],"topic2":[1,2,6]},"C":{"topic2":[0,3,4,5]}}}"#
    );
}

#[test]
fn hetero_test_reassignment_when_one_member_removed_after_initial_assignment_with_three_members_three_topics(
) {
    assert_eq!(
        hetero(
            r#"{"topic1":3,"topic2":8,"topic3":3}"#,
            &[
                mc(
                    "A",
                    &["topic1", "topic3"],
                    r#"{"topic1":[0,1,2],"topic3":[0,1]}"#
                ),
                mc("B", &["topic2"], r#"{"topic2":[3,4,5,6]}"#),
            ]
        )
        .unwrap(),
        r#"{"assignment":{"A":{"topic1":[0,1,2],"topic3":[0,1,2]},"B":{"topic2":[0,1,2,3,4,5,6,7]}}}"#
    );
}

#[test]
fn hetero_test_reassignment_when_one_subscription_removed_after_initial_assignment_with_two_members_two_topics(
) {
    assert_eq!(
        hetero(
            r#"{"topic1":3,"topic2":5}"#,
            &[
                mc("A", &["topic1"], r#"{"topic1":[0,2],"topic2":[1,3]}"#),
                mc(
                    "B",
                    &["topic1", "topic2"],
                    r#"{"topic1":[1],"topic2":[0,2,4]}"#
                ),
            ]
        )
        .unwrap(),
        r#"{"assignment":{"A":{"topic1":[0,1,2]},"B":{"topic2":[0,1,2,3,4]}}}"#
    );
}

#[test]
fn hetero_test_reassignment_when_topic_partitions_run_out_and_members_have_no_partitions() {
    let t = ["topic1", "topic2", "topic3"];
    assert_eq!(
        hetero(
            r#"{"topic1":2,"topic2":2,"topic3":2}"#,
            &[
                mc("A", &t, r#"{"topic1":[0,1],"topic2":[0,1],"topic3":[0,1]}"#),
                m("B", &t),
            ]
        )
        .unwrap(),
        r#"{"assignment":{"A":{"topic2":[0],"topic3":[0,1]},"B":{"topic1":[0,1],"topic2":[1]}}}"#
    );
}

#[test]
fn hetero_test_first_assignment_with_two_members_including_one_without_subscriptions() {
    assert_eq!(
        hetero(r#"{"topic1":3}"#, &[m("A", &["topic1"]), m("B", &[])]).unwrap(),
        r#"{"assignment":{"A":{"topic1":[0,1,2]},"B":{}}}"#
    );
}

/// Not a Kafka test: over random groups (overlapping subscriptions, random
/// current assignments), every subscribed partition goes to exactly one
/// of its subscribers, and a group whose members all subscribe to the
/// same topics ends within one partition of balance.
#[test]
fn hetero_assigns_every_partition_once_to_a_subscriber() {
    let mut rng = crate::rng::Rng::new(848);
    for round in 0..400 {
        let n_topics = 1 + rng.below(5) as usize;
        let topics: SortedMap<String, i32> = (0..n_topics)
            .map(|t| (format!("t{t}"), rng.below(9) as i32))
            .collect();
        let n_members = 1 + rng.below(6) as usize;
        let same = round % 4 == 0;
        let all: Vec<String> = topics.keys().cloned().collect();
        let mut members: Vec<ServerMember> = (0..n_members)
            .map(|i| ServerMember {
                member_id: format!("m{i}"),
                instance_id: None,
                rack_id: None,
                subscribed_topics: if same {
                    all.clone()
                } else {
                    all.iter().filter(|_| rng.below(2) == 0).cloned().collect()
                },
                current_assignment: OrderedAssignment::default(),
            })
            .collect();
        for (t, n) in topics.iter() {
            for p in 0..*n {
                let holder = rng.below(n_members as u64 + 1) as usize;
                if let Some(h) = members.get_mut(holder) {
                    match h.current_assignment.0.iter_mut().find(|(x, _)| x == t) {
                        Some((_, ps)) => ps.push(p),
                        None => h.current_assignment.0.push((t.clone(), vec![p])),
                    }
                }
            }
        }
        let a = uniform_heterogeneous(&topics, &SortedMap::new(), &members).unwrap();
        let mut owner: SortedMap<(String, i32), usize> = SortedMap::new();
        for (i, (_, ts)) in a.iter().enumerate() {
            for (t, ps) in ts.iter() {
                assert!(members[i].subscribed_topics.contains(t), "round {round}");
                for p in ps {
                    assert!(owner.insert((t.clone(), *p), i).is_none(), "round {round}");
                }
            }
        }
        for (t, n) in topics.iter() {
            if members.iter().any(|m| m.subscribed_topics.contains(t)) {
                for p in 0..*n {
                    assert!(
                        owner.contains_key(&(t.clone(), p)),
                        "round {round}: {t}-{p}"
                    );
                }
            }
        }
        if same && !a.is_empty() {
            let sizes: Vec<usize> = a
                .iter()
                .map(|(_, ts)| ts.values().map(Vec::len).sum())
                .collect();
            let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
            assert!(hi - lo <= 1, "round {round}: {sizes:?}");
        }
    }
}
