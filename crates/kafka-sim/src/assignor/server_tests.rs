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
