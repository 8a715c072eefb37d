//! `CurrentAssignmentBuilderTest` (group-coordinator, Kafka 4.1.0), ported:
//! each test is the same member, target and partition epochs, with the
//! member Kafka's test expects. Topics t1, t2 stand for the test's random
//! topic ids. Then the coordinator's heartbeat handling.

use super::*;

fn parts(entries: &[(&str, &[i32])]) -> Partitions {
    entries
        .iter()
        .map(|(t, ps)| (t.to_string(), ps.iter().copied().collect()))
        .collect()
}

fn member(
    state: MemberState,
    epoch: i32,
    prev: i32,
    assigned: Partitions,
    pending: Partitions,
) -> Member {
    let mut m = Member::new("member");
    m.state = state;
    m.member_epoch = epoch;
    m.previous_member_epoch = prev;
    m.assigned = assigned;
    m.pending_revocation = pending;
    m
}

fn stable_10() -> Member {
    member(
        MemberState::Stable,
        10,
        10,
        parts(&[("t1", &[1, 2, 3]), ("t2", &[4, 5, 6])]),
        Partitions::new(),
    )
}

fn unrevoked_10() -> Member {
    member(
        MemberState::UnrevokedPartitions,
        10,
        10,
        parts(&[("t1", &[2, 3]), ("t2", &[5, 6])]),
        parts(&[("t1", &[1]), ("t2", &[4])]),
    )
}

fn unreleased_11() -> Member {
    member(
        MemberState::UnreleasedPartitions,
        11,
        11,
        parts(&[("t1", &[2, 3]), ("t2", &[5, 6])]),
        Partitions::new(),
    )
}

fn epoch(e: i32) -> impl Fn(&str, i32) -> i32 {
    move |_, _| e
}

#[test]
fn test_stable_to_stable() {
    let target = parts(&[("t1", &[1, 2, 3]), ("t2", &[4, 5, 6])]);
    let got = reconcile(&stable_10(), 11, &target, &epoch(10), None).unwrap();
    let want = member(MemberState::Stable, 11, 10, target, Partitions::new());
    assert_eq!(got, want);
}

#[test]
fn test_stable_to_stable_with_new_partitions() {
    let target = parts(&[("t1", &[1, 2, 3, 4]), ("t2", &[4, 5, 6, 7])]);
    let got = reconcile(&stable_10(), 11, &target, &epoch(-1), None).unwrap();
    assert_eq!(
        got,
        member(MemberState::Stable, 11, 10, target, Partitions::new())
    );
}

#[test]
fn test_stable_to_unrevoked_partitions() {
    let target = parts(&[("t1", &[2, 3, 4]), ("t2", &[5, 6, 7])]);
    let got = reconcile(&stable_10(), 11, &target, &epoch(-1), None).unwrap();
    assert_eq!(got, unrevoked_10());
}

#[test]
fn test_stable_to_unreleased_partitions() {
    let target = parts(&[("t1", &[1, 2, 3, 4]), ("t2", &[4, 5, 6, 7])]);
    let got = reconcile(&stable_10(), 11, &target, &epoch(10), None).unwrap();
    let want = member(
        MemberState::UnreleasedPartitions,
        11,
        10,
        parts(&[("t1", &[1, 2, 3]), ("t2", &[4, 5, 6])]),
        Partitions::new(),
    );
    assert_eq!(got, want);
}

#[test]
fn test_stable_to_unreleased_partitions_with_owned_partitions_not_having_revoked_partitions() {
    let target = parts(&[("t1", &[1, 2, 3]), ("t2", &[4, 5, 7])]);
    let pe = |t: &str, _: i32| if t == "t2" { 10 } else { -1 };
    let owned = Partitions::new();
    let got = reconcile(&stable_10(), 11, &target, &pe, Some(&owned)).unwrap();
    let want = member(
        MemberState::UnreleasedPartitions,
        11,
        10,
        parts(&[("t1", &[1, 2, 3]), ("t2", &[4, 5])]),
        Partitions::new(),
    );
    assert_eq!(got, want);
}

#[test]
fn test_unrevoked_partitions_to_stable() {
    let target = parts(&[("t1", &[2, 3]), ("t2", &[5, 6])]);
    let owned = parts(&[("t1", &[2, 3]), ("t2", &[5, 6])]);
    let got = reconcile(&unrevoked_10(), 11, &target, &epoch(-1), Some(&owned)).unwrap();
    assert_eq!(
        got,
        member(MemberState::Stable, 11, 10, target, Partitions::new())
    );
}

#[test]
fn test_remains_in_unrevoked_partitions() {
    let m = unrevoked_10();
    let target = parts(&[("t1", &[3]), ("t2", &[6])]);
    assert_eq!(reconcile(&m, 12, &target, &epoch(-1), None).unwrap(), m);
    let still = parts(&[("t1", &[1, 2, 3]), ("t2", &[5, 6])]);
    assert_eq!(
        reconcile(&m, 12, &target, &epoch(-1), Some(&still)).unwrap(),
        m
    );
    let still = parts(&[("t1", &[2, 3]), ("t2", &[4, 5, 6])]);
    assert_eq!(
        reconcile(&m, 12, &target, &epoch(-1), Some(&still)).unwrap(),
        m
    );
}

#[test]
fn test_unrevoked_partitions_to_unrevoked_partitions() {
    let target = parts(&[("t1", &[3]), ("t2", &[6])]);
    let owned = parts(&[("t1", &[2, 3]), ("t2", &[5, 6])]);
    let got = reconcile(&unrevoked_10(), 12, &target, &epoch(-1), Some(&owned)).unwrap();
    let want = member(
        MemberState::UnrevokedPartitions,
        11,
        10,
        parts(&[("t1", &[3]), ("t2", &[6])]),
        parts(&[("t1", &[2]), ("t2", &[5])]),
    );
    assert_eq!(got, want);
}

#[test]
fn test_unrevoked_partitions_to_unreleased_partitions() {
    let m = member(
        MemberState::UnrevokedPartitions,
        11,
        10,
        parts(&[("t1", &[2, 3]), ("t2", &[5, 6])]),
        Partitions::new(),
    );
    let target = parts(&[("t1", &[2, 3, 4]), ("t2", &[5, 6, 7])]);
    let owned = parts(&[("t1", &[2, 3]), ("t2", &[5, 6])]);
    let got = reconcile(&m, 11, &target, &epoch(10), Some(&owned)).unwrap();
    assert_eq!(got, unreleased_11());
}

#[test]
fn test_unreleased_partitions_to_stable() {
    let target = parts(&[("t1", &[2, 3]), ("t2", &[5, 6])]);
    let got = reconcile(&unreleased_11(), 12, &target, &epoch(10), None).unwrap();
    assert_eq!(
        got,
        member(MemberState::Stable, 12, 11, target, Partitions::new())
    );
}

#[test]
fn test_unreleased_partitions_to_stable_with_new_partitions() {
    let target = parts(&[("t1", &[2, 3, 4]), ("t2", &[5, 6, 7])]);
    let got = reconcile(&unreleased_11(), 11, &target, &epoch(-1), None).unwrap();
    assert_eq!(
        got,
        member(MemberState::Stable, 11, 11, target, Partitions::new())
    );
}

#[test]
fn test_unreleased_partitions_to_unreleased_partitions() {
    let target = parts(&[("t1", &[2, 3, 4]), ("t2", &[5, 6, 7])]);
    let got = reconcile(&unreleased_11(), 11, &target, &epoch(10), None).unwrap();
    assert_eq!(got, unreleased_11());
}

#[test]
fn test_unreleased_partitions_to_unrevoked_partitions() {
    let target = parts(&[("t1", &[3]), ("t2", &[6])]);
    let got = reconcile(&unreleased_11(), 12, &target, &epoch(10), None).unwrap();
    let want = member(
        MemberState::UnrevokedPartitions,
        11,
        11,
        parts(&[("t1", &[3]), ("t2", &[6])]),
        parts(&[("t1", &[2]), ("t2", &[5])]),
    );
    assert_eq!(got, want);
}

#[test]
fn test_unknown_state() {
    let m = member(
        MemberState::Unknown,
        11,
        11,
        parts(&[("t1", &[3]), ("t2", &[6])]),
        parts(&[("t1", &[2]), ("t2", &[5])]),
    );
    let target = parts(&[("t1", &[3]), ("t2", &[6])]);
    assert!(reconcile(&m, 12, &target, &epoch(10), None).is_err());
    let none = Partitions::new();
    let got = reconcile(&m, 12, &target, &epoch(11), Some(&none)).unwrap();
    assert_eq!(
        got,
        member(MemberState::Stable, 12, 11, target, Partitions::new())
    );
}

// ---- The coordinator -------------------------------------------------------

fn topics(entries: &[(&str, i32)]) -> SortedMap<String, i32> {
    entries.iter().map(|(t, n)| (t.to_string(), *n)).collect()
}

fn join(id: &str, subs: &[&str]) -> HeartbeatRequest {
    HeartbeatRequest {
        member_id: id.into(),
        member_epoch: 0,
        rebalance_timeout_ms: 300_000,
        subscribed_topic_names: Some(subs.iter().map(|s| s.to_string()).collect()),
        owned: Some(Partitions::new()),
        ..HeartbeatRequest::default()
    }
}

fn beat(id: &str, epoch: i32, owned: Option<Partitions>) -> HeartbeatRequest {
    HeartbeatRequest {
        member_id: id.into(),
        member_epoch: epoch,
        rebalance_timeout_ms: -1,
        owned,
        ..HeartbeatRequest::default()
    }
}

fn ok(o: Outcome<HeartbeatResponse>) -> HeartbeatResponse {
    o.answer.unwrap()
}

/// The first member gets every partition at group epoch 1; a second
/// joins at epoch 2 and waits (UNRELEASED) for the half the first must
/// revoke; the first keeps epoch 1 in UNREVOKED_PARTITIONS until it says
/// it revoked them; only then does the second get them.
#[test]
fn a_partition_moves_only_after_its_owner_revoked_it() {
    let t = topics(&[("orders", 4)]);
    let ids = SortedMap::new();
    let mut g = ConsumerGroup::new("g");
    let a = ok(g.heartbeat(&join("A", &["orders"]), &t, &ids, 0));
    assert_eq!(a.member_epoch, 1);
    assert_eq!(a.assignment, Some(parts(&[("orders", &[0, 1, 2, 3])])));
    let b = ok(g.heartbeat(&join("B", &["orders"]), &t, &ids, 100));
    assert_eq!(g.group_epoch, 2);
    assert_eq!(g.assignment_epoch, 2);
    assert_eq!(b.member_epoch, 2);
    assert_eq!(b.assignment, Some(Partitions::new()), "nothing free yet");
    assert_eq!(g.members["B"].state, MemberState::UnreleasedPartitions);
    // A hears of the new target: revoke what B gets, keep epoch 1.
    let a2 = ok(g.heartbeat(&beat("A", 1, None), &t, &ids, 200));
    assert_eq!(a2.member_epoch, 1);
    assert_eq!(g.members["A"].state, MemberState::UnrevokedPartitions);
    let keep = a2.assignment.clone().unwrap();
    let gone = g.members["A"].pending_revocation.clone();
    assert_eq!(partition_count(&keep) + partition_count(&gone), 4);
    assert_eq!(partition_count(&gone), 2);
    // B asks again: still nothing, A has not revoked.
    let b2 = ok(g.heartbeat(&beat("B", 2, None), &t, &ids, 300));
    assert_eq!(b2.assignment, None);
    // A says it owns only what it keeps: epoch 2, B gets the rest.
    let a3 = ok(g.heartbeat(&beat("A", 1, Some(keep.clone())), &t, &ids, 400));
    assert_eq!(a3.member_epoch, 2);
    assert_eq!(g.members["A"].state, MemberState::Stable);
    let b3 = ok(g.heartbeat(&beat("B", 2, None), &t, &ids, 500));
    assert_eq!(b3.assignment, Some(gone));
    assert_eq!(g.members["B"].state, MemberState::Stable);
}

#[test]
fn epochs_are_checked_as_kafka_checks_them() {
    let t = topics(&[("orders", 2)]);
    let ids = SortedMap::new();
    let mut g = ConsumerGroup::new("g");
    ok(g.heartbeat(&join("A", &["orders"]), &t, &ids, 0));
    let ahead = g
        .heartbeat(&beat("A", 5, None), &t, &ids, 10)
        .answer
        .unwrap_err();
    assert_eq!(ahead.0, ErrorCode::FencedMemberEpoch);
    assert!(ahead.1.contains("greater member epoch (5)"), "{}", ahead.1);
    let unknown = g
        .heartbeat(&beat("Z", 1, None), &t, &ids, 10)
        .answer
        .unwrap_err();
    assert_eq!(unknown.0, ErrorCode::UnknownMemberId);
    // B joins; A must revoke one partition and keeps epoch 1 until it
    // says it did.
    ok(g.heartbeat(&join("B", &["orders"]), &t, &ids, 20));
    let all = parts(&[("orders", &[0, 1])]);
    let r = ok(g.heartbeat(&beat("A", 1, Some(all.clone())), &t, &ids, 25));
    assert_eq!(r.member_epoch, 1);
    let keep = r.assignment.unwrap();
    let r = ok(g.heartbeat(&beat("A", 1, Some(keep.clone())), &t, &ids, 30));
    assert_eq!(r.member_epoch, 2);
    // That answer is lost: A comes again with its previous epoch and owns
    // only what it keeps, so it is accepted and told epoch 2 again …
    let r = ok(g.heartbeat(&beat("A", 1, Some(keep.clone())), &t, &ids, 31));
    assert_eq!(r.member_epoch, 2);
    // … but the previous epoch while owning more than its assignment is
    // fenced, and so is an epoch older than the previous one.
    let stale = g
        .heartbeat(&beat("A", 1, Some(all)), &t, &ids, 32)
        .answer
        .unwrap_err();
    assert_eq!(stale.0, ErrorCode::FencedMemberEpoch);
    assert!(stale.1.contains("smaller member epoch (1)"), "{}", stale.1);
    let stale = g
        .heartbeat(&join("A", &["orders"]), &t, &ids, 35)
        .answer
        .unwrap_err();
    assert_eq!(stale.0, ErrorCode::FencedMemberEpoch);
    assert!(stale.1.contains("smaller member epoch (0)"), "{}", stale.1);
    // Epoch -1 is a leave: A is removed and the group epoch moves.
    let before = g.group_epoch;
    let left = ok(g.heartbeat(&beat("A", -1, None), &t, &ids, 40));
    assert_eq!(left.member_epoch, -1);
    assert_eq!(g.group_epoch, before + 1);
    assert!(!g.members.contains_key("A"));
    assert_eq!(
        g.validate_offset_commit("A", 1).unwrap_err().0,
        ErrorCode::UnknownMemberId
    );
    let b = g.members["B"].member_epoch;
    assert!(g.validate_offset_commit("B", b).is_ok());
    assert_eq!(
        g.validate_offset_commit("B", b - 1).unwrap_err().0,
        ErrorCode::StaleMemberEpoch
    );
    let bad = g
        .heartbeat(&beat("B", -3, None), &t, &ids, 50)
        .answer
        .unwrap_err();
    assert_eq!(
        bad,
        (ErrorCode::InvalidRequest, "MemberEpoch is invalid.".into())
    );
    let mut j = join("C", &["orders"]);
    j.server_assignor = Some("sticky".into());
    assert_eq!(
        g.heartbeat(&j, &t, &ids, 60).answer.unwrap_err().0,
        ErrorCode::UnsupportedAssignor
    );
}

#[test]
fn a_silent_member_is_fenced_after_the_session_timeout() {
    let t = topics(&[("orders", 2)]);
    let ids = SortedMap::new();
    let mut g = ConsumerGroup::new("g");
    ok(g.heartbeat(&join("A", &["orders"]), &t, &ids, 0));
    ok(g.heartbeat(&join("B", &["orders"]), &t, &ids, 0));
    assert!(g.expire(&t, SESSION_TIMEOUT_MS - 1).is_empty());
    ok(g.heartbeat(&beat("B", 2, None), &t, &ids, 30_000));
    let fenced = g.expire(&t, SESSION_TIMEOUT_MS);
    assert_eq!(fenced.len(), 1);
    assert_eq!(fenced[0].0, "A");
    assert_eq!(g.group_epoch, 3);
    assert!(!g.members.contains_key("A"));
    let r = ok(g.heartbeat(&beat("B", 2, None), &t, &ids, 31_000));
    assert_eq!(r.member_epoch, 3);
    assert_eq!(r.assignment, Some(parts(&[("orders", &[0, 1])])));
}

#[test]
fn a_static_member_comes_back_to_its_partitions() {
    let t = topics(&[("orders", 4)]);
    let ids = SortedMap::new();
    let mut g = ConsumerGroup::new("g");
    let mut a = join("A", &["orders"]);
    a.instance_id = Some("host-a".into());
    ok(g.heartbeat(&a, &t, &ids, 0));
    ok(g.heartbeat(&join("B", &["orders"]), &t, &ids, 0));
    // Settle: A revokes, B takes.
    let keep = ok(g.heartbeat(&beat_static("A", 1, None), &t, &ids, 10))
        .assignment
        .unwrap();
    ok(g.heartbeat(&beat_static("A", 1, Some(keep.clone())), &t, &ids, 20));
    ok(g.heartbeat(&beat("B", 2, None), &t, &ids, 30));
    // A new process with the same instance id while A has not left.
    let mut a2 = join("A2", &["orders"]);
    a2.instance_id = Some("host-a".into());
    assert_eq!(
        g.heartbeat(&a2, &t, &ids, 40).answer.unwrap_err().0,
        ErrorCode::UnreleasedInstanceId
    );
    // A leaves as a static member (-2): its partitions stay reserved.
    let left = ok(g.heartbeat(&beat_static("A", -2, None), &t, &ids, 50));
    assert_eq!(left.member_epoch, -2);
    assert_eq!(g.group_epoch, 2, "no rebalance");
    let back = ok(g.heartbeat(&a2, &t, &ids, 60));
    assert_eq!(back.assignment, Some(keep));
    assert!(!g.members.contains_key("A"));
}

fn beat_static(id: &str, epoch: i32, owned: Option<Partitions>) -> HeartbeatRequest {
    let mut r = beat(id, epoch, owned);
    r.instance_id = Some("host-a".into());
    r
}

#[test]
fn a_new_coordinator_loads_the_same_group_from_its_records() {
    let t = topics(&[("orders", 6), ("payments", 3)]);
    let ids = SortedMap::new();
    let mut g = ConsumerGroup::new("g");
    let mut log = Vec::new();
    for (i, (id, subs)) in [
        ("A", vec!["orders"]),
        ("B", vec!["orders", "payments"]),
        ("C", vec!["payments"]),
    ]
    .iter()
    .enumerate()
    {
        let o = g.heartbeat(&join(id, subs), &t, &ids, i as u64);
        log.extend(o.records.clone());
        o.answer.unwrap();
    }
    let o = g.heartbeat(&beat("A", 1, None), &t, &ids, 10);
    log.extend(o.records);
    let loaded = ConsumerGroup::load("g", &log, 10).unwrap();
    assert_eq!(loaded.members, g.members);
    assert_eq!(loaded.target, g.target);
    assert_eq!(loaded.partition_epochs, g.partition_epochs);
    assert_eq!(loaded.group_epoch, g.group_epoch);
    assert_eq!(loaded.assignment_epoch, g.assignment_epoch);
    assert_eq!(loaded.member_order(), g.member_order());
}

/// A topic gaining partitions moves the group epoch (the metadata hash of
/// the subscribed topics changed) and the new partitions are handed out.
#[test]
fn new_partitions_bump_the_group_epoch() {
    let ids = SortedMap::new();
    let mut g = ConsumerGroup::new("g");
    ok(g.heartbeat(&join("A", &["orders"]), &topics(&[("orders", 2)]), &ids, 0));
    let r = ok(g.heartbeat(&beat("A", 1, None), &topics(&[("orders", 3)]), &ids, 10));
    assert_eq!(g.group_epoch, 2);
    assert_eq!(r.member_epoch, 2);
    assert_eq!(r.assignment, Some(parts(&[("orders", &[0, 1, 2])])));
    // A topic nobody subscribes to changes nothing.
    let r = ok(g.heartbeat(
        &beat("A", 2, None),
        &topics(&[("orders", 3), ("x", 9)]),
        &ids,
        20,
    ));
    assert_eq!(r.member_epoch, 2);
}

#[test]
fn java_orders() {
    // BaseHashTable.findSlot of a two-slot table takes the top bit.
    assert!(JavaOrder::base_hash_slot(0, 2) == 0);
    let mut t = TimelineOrder::new();
    for id in ["a", "b", "c", "d", "e"] {
        t.add(id);
    }
    let mut seen: Vec<&str> = t.iter().collect();
    seen.sort_unstable();
    assert_eq!(seen, ["a", "b", "c", "d", "e"]);
    t.remove("c");
    assert_eq!(t.iter().count(), 4);
    t.add("a");
    assert_eq!(t.iter().count(), 4, "re-adding keeps one");
    // HashMap<String> order: buckets of the spread hash in 16 slots;
    // "a".hashCode() = 97 → bucket 1, "b" = 98 → 2, "q" = 113 → 1.
    assert_eq!(JavaOrder::hash_map(&["b", "q", "a"]), vec![1, 2, 0]);
}
