//! Replica placement at topic creation (C4, A1): Kafka's
//! `AdminUtils.assignReplicasToBrokers` (Kafka 3.9,
//! `server-common/.../admin/AdminUtils.java`, lines 125-236), rack-unaware
//! when no broker has a `broker.rack`, rack-aware when every broker has one.
//!
//! With brokers sorted by id into an array:
//! * the first replica of partition `p` goes to broker `(p + startIndex) % n`,
//!   so leaders (the first replica) spread round-robin;
//! * the other replicas follow at a shift `1 + (shift + j) % (n - 1)` from the
//!   first, never landing on the same broker;
//! * the shift grows by one every `n` partitions, so followers spread too.
//!
//! `startIndex` and the initial shift are random in Kafka (`rand.nextInt(n)`);
//! here they come from the seeded RNG, and a scenario can fix them
//! (`fixed_start_index`, which in Kafka fixes the first shift as well).
//!
//! Rack-aware (every broker has a rack):
//! * the brokers are first arranged in a **rack-alternated list**: racks in
//!   name order, brokers of each rack in id order, taking one broker from
//!   each rack in turn (`getRackAlternatedBrokerList`; racks `a: 0 1`,
//!   `b: 2`, `c: 3 4` give `0 2 3 1 4`);
//! * the first replica goes round-robin over that list, as above;
//! * each further replica walks on from the first (the shift is multiplied
//!   by the number of racks) and skips a broker whose rack already holds a
//!   replica while some rack holds none, and a broker that already holds one
//!   while some broker holds none. So with at least as many racks as
//!   replicas, every replica is on a different rack.
//!
//! Some brokers with a rack and some without: `AdminOperationException`
//! (`Not all brokers have rack information for replica rack aware
//! assignment.`).

use crate::collections::SortedMap;
use crate::ids::BrokerId;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};
use std::fmt;

/// `InvalidPartitionsException` / `InvalidReplicationFactorException` /
/// `AdminOperationException`, with Kafka's messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlacementError {
    /// `INVALID_PARTITIONS`: fewer than one partition.
    InvalidPartitions(String),
    /// `INVALID_REPLICATION_FACTOR`: fewer than one replica, or more than there are brokers.
    InvalidReplicationFactor(String),
    /// `AdminOperationException`: some brokers have a rack and some do not.
    /// The broker answers `CreateTopics` with `UNKNOWN_SERVER_ERROR` (it is
    /// not an `ApiException`); `kafka-topics` prints the message.
    AdminOperation(String),
}

impl fmt::Display for PlacementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlacementError::InvalidPartitions(m) => write!(f, "INVALID_PARTITIONS: {m}"),
            PlacementError::InvalidReplicationFactor(m) => {
                write!(f, "INVALID_REPLICATION_FACTOR: {m}")
            }
            PlacementError::AdminOperation(m) => write!(f, "UNKNOWN_SERVER_ERROR: {m}"),
        }
    }
}

impl std::error::Error for PlacementError {}

/// The random choices placement made (or was given), for the explanation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlacementChoices {
    /// The broker index the first partition's leader was placed on (`startIndex`).
    pub start_index: u32,
    /// The shift of the first follower after the leader (`nextReplicaShift`'s start).
    pub initial_shift: u32,
    /// Rack-aware placement only: the rack-alternated broker list the
    /// indexes count in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rack_alternated: Option<Vec<BrokerId>>,
}

/// A broker as placement sees it (Kafka's `BrokerMetadata`): its id and its
/// `broker.rack`, if it has one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokerMetadata {
    /// `broker.id`.
    pub id: BrokerId,
    /// `broker.rack`.
    pub rack: Option<String>,
}

impl BrokerMetadata {
    /// Brokers without racks (rack-unaware placement).
    pub fn without_racks(ids: &[BrokerId]) -> Vec<BrokerMetadata> {
        ids.iter()
            .map(|&id| BrokerMetadata { id, rack: None })
            .collect()
    }
}

/// `getRackAlternatedBrokerList`: racks in name order, each rack's brokers in
/// id order, one broker from each rack in turn until all are listed.
pub fn rack_alternated_broker_list(racks: &SortedMap<BrokerId, String>) -> Vec<BrokerId> {
    let mut by_rack: SortedMap<&str, Vec<BrokerId>> = SortedMap::new();
    for (b, r) in racks.iter() {
        by_rack.entry(r.as_str()).or_default().push(*b);
    }
    let columns: Vec<&Vec<BrokerId>> = by_rack.values().collect();
    let deepest = columns.iter().map(|c| c.len()).max().unwrap_or(0);
    (0..deepest)
        .flat_map(|row| columns.iter().filter_map(move |c| c.get(row).copied()))
        .collect()
}

/// Partition → replicas (the first replica is the preferred leader).
pub type Assignment = SortedMap<i32, Vec<BrokerId>>;

fn replica_index(first: usize, shift: usize, j: usize, n: usize) -> usize {
    let s = 1 + (shift + j) % (n - 1);
    (first + s) % n
}

/// `assignReplicasToBrokers(brokerMetadatas, nPartitions,
/// replicationFactor, fixedStartIndex, startPartitionId)`.
/// `fixed_start_index < 0` draws the start index and shift from `rng`;
/// `start_partition_id < 0` starts at 0. Rack-aware when any broker has a
/// rack (then all must).
pub fn assign_replicas_to_brokers(
    brokers: &[BrokerMetadata],
    num_partitions: i32,
    replication_factor: i32,
    fixed_start_index: i32,
    start_partition_id: i32,
    rng: &mut Rng,
) -> Result<(Assignment, PlacementChoices), PlacementError> {
    if num_partitions <= 0 {
        return Err(PlacementError::InvalidPartitions(
            "Number of partitions must be larger than 0.".into(),
        ));
    }
    if replication_factor <= 0 {
        return Err(PlacementError::InvalidReplicationFactor(
            "Replication factor must be larger than 0.".into(),
        ));
    }
    if replication_factor as usize > brokers.len() {
        return Err(PlacementError::InvalidReplicationFactor(format!(
            "Replication factor: {replication_factor} larger than available brokers: {}.",
            brokers.len()
        )));
    }
    let racks: SortedMap<BrokerId, String> = brokers
        .iter()
        .filter_map(|b| b.rack.clone().map(|r| (b.id, r)))
        .collect();
    let (list, rack_aware) = if racks.is_empty() {
        let mut sorted: Vec<BrokerId> = brokers.iter().map(|b| b.id).collect();
        sorted.sort();
        (sorted, false)
    } else if racks.len() < brokers.len() {
        return Err(PlacementError::AdminOperation(
            "Not all brokers have rack information for replica rack aware assignment.".into(),
        ));
    } else {
        (rack_alternated_broker_list(&racks), true)
    };
    let n = list.len();
    let start_index = if fixed_start_index >= 0 {
        fixed_start_index as usize
    } else {
        rng.below(n as u64) as usize
    };
    let mut shift = if fixed_start_index >= 0 {
        fixed_start_index as usize
    } else {
        rng.below(n as u64) as usize
    };
    let choices = PlacementChoices {
        start_index: start_index as u32,
        initial_shift: shift as u32,
        rack_alternated: rack_aware.then(|| list.clone()),
    };
    let num_racks = racks
        .values()
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let mut out = Assignment::new();
    let first_id = start_partition_id.max(0) as usize;
    for p in first_id..first_id + num_partitions as usize {
        if p > 0 && p.is_multiple_of(n) {
            shift += 1;
        }
        let first = (p + start_index) % n;
        let replicas = if rack_aware {
            rack_aware_replicas(
                &list,
                &racks,
                num_racks,
                first,
                shift,
                replication_factor as usize,
            )
        } else {
            let mut r = vec![list[first]];
            for j in 0..(replication_factor as usize - 1) {
                r.push(list[replica_index(first, shift, j, n)]);
            }
            r
        };
        out.insert(p as i32, replicas);
    }
    Ok((out, choices))
}

/// One partition's replicas, rack-aware (`assignReplicasToBrokersRackAware`,
/// lines 167-200): the leader at `first` in the rack-alternated `list`, then
/// each follower the next broker on from it (shift × number of racks) that
/// is on a rack without a replica (unless every rack has one) and holds no
/// replica (unless every broker holds one).
fn rack_aware_replicas(
    list: &[BrokerId],
    racks: &SortedMap<BrokerId, String>,
    num_racks: usize,
    first: usize,
    shift: usize,
    replication_factor: usize,
) -> Vec<BrokerId> {
    let n = list.len();
    let leader = list[first];
    let mut replicas = vec![leader];
    let mut racks_used = std::collections::BTreeSet::from([&racks[&leader]]);
    let mut k = 0;
    for _ in 1..replication_factor {
        // Ends: within n - 1 steps the walk has seen every other broker, and
        // some broker holds no replica while fewer than n do.
        loop {
            let b = list[replica_index(first, shift * num_racks, k, n)];
            let rack = &racks[&b];
            k += 1;
            if (!racks_used.contains(rack) || racks_used.len() == num_racks)
                && (!replicas.contains(&b) || replicas.len() == n)
            {
                replicas.push(b);
                racks_used.insert(rack);
                break;
            }
        }
    }
    replicas
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[i32]) -> Vec<BrokerId> {
        v.iter().map(|i| BrokerId(*i)).collect()
    }

    fn plain(v: &[i32]) -> Vec<BrokerMetadata> {
        BrokerMetadata::without_racks(&ids(v))
    }

    /// Partition `p` (from 0) has the replicas `expect[p]`, in order.
    fn assert_assignment(a: &Assignment, expect: &[[i32; 3]]) {
        assert_eq!(a.len(), expect.len());
        for (p, e) in expect.iter().enumerate() {
            assert_eq!(a[&(p as i32)], ids(e), "partition {p}");
        }
    }

    /// (broker → rack, partitions, replication factor, fixed start index,
    /// start partition id, checks)
    type FixedCase<'a> = (
        Vec<(i32, &'a str)>,
        usize,
        usize,
        i32,
        i32,
        (bool, bool, bool),
    );
    /// (broker → rack, partitions, replication factor, checks)
    type RandomCase<'a> = (Vec<(i32, &'a str)>, usize, usize, (bool, bool, bool));

    #[test]
    fn four_brokers_sixteen_partitions_rf3_from_index_0() {
        // The source note's example (C4), with Kafka's algorithm and start index 0.
        let (a, _) =
            assign_replicas_to_brokers(&plain(&[0, 1, 2, 3]), 16, 3, 0, -1, &mut Rng::new(1))
                .unwrap();
        let expect: [[i32; 3]; 16] = [
            [0, 1, 2],
            [1, 2, 3],
            [2, 3, 0],
            [3, 0, 1],
            [0, 2, 3],
            [1, 3, 0],
            [2, 0, 1],
            [3, 1, 2],
            [0, 3, 1],
            [1, 0, 2],
            [2, 1, 3],
            [3, 2, 0],
            [0, 1, 2],
            [1, 2, 3],
            [2, 3, 0],
            [3, 0, 1],
        ];
        assert_assignment(&a, &expect);
        // Leaders are spread evenly: 4 each.
        for b in 0..4 {
            assert_eq!(a.values().filter(|r| r[0] == BrokerId(b)).count(), 4);
        }
    }

    #[test]
    fn kafka_admin_utils_test_vector() {
        // AdminUtilsTest.testReplicaAssignment: brokers 0-4, 10 partitions, RF 3, start index 0.
        let (a, _) =
            assign_replicas_to_brokers(&plain(&[0, 1, 2, 3, 4]), 10, 3, 0, -1, &mut Rng::new(1))
                .unwrap();
        let expect: [[i32; 3]; 10] = [
            [0, 1, 2],
            [1, 2, 3],
            [2, 3, 4],
            [3, 4, 0],
            [4, 0, 1],
            [0, 2, 3],
            [1, 3, 4],
            [2, 4, 0],
            [3, 0, 1],
            [4, 1, 2],
        ];
        assert_assignment(&a, &expect);
    }

    #[test]
    fn impossible_requests_fail_with_kafkas_messages() {
        let mut r = Rng::new(1);
        let e = assign_replicas_to_brokers(&plain(&[0, 1]), 3, 3, -1, -1, &mut r).unwrap_err();
        assert_eq!(
            e,
            PlacementError::InvalidReplicationFactor(
                "Replication factor: 3 larger than available brokers: 2.".into()
            )
        );
        assert!(matches!(
            assign_replicas_to_brokers(&plain(&[0]), 0, 1, -1, -1, &mut r),
            Err(PlacementError::InvalidPartitions(_))
        ));
    }

    #[test]
    fn no_partition_has_two_replicas_on_one_broker_for_any_seed() {
        for seed in 0..200 {
            let mut r = Rng::new(seed);
            let n = 1 + (seed % 7) as i32;
            let brokers = BrokerMetadata::without_racks(&(0..n).map(BrokerId).collect::<Vec<_>>());
            let rf = 1 + (seed as i32 % n);
            let (a, _) = assign_replicas_to_brokers(&brokers, 20, rf, -1, -1, &mut r).unwrap();
            for reps in a.values() {
                let mut s = reps.clone();
                s.sort();
                s.dedup();
                assert_eq!(s.len(), reps.len(), "seed {seed}: {reps:?}");
            }
        }
    }

    fn racked(m: &[(i32, &str)]) -> Vec<BrokerMetadata> {
        m.iter()
            .map(|(b, r)| BrokerMetadata {
                id: BrokerId(*b),
                rack: Some(r.to_string()),
            })
            .collect()
    }

    fn rack_map(m: &[(i32, &str)]) -> SortedMap<BrokerId, String> {
        m.iter()
            .map(|(b, r)| (BrokerId(*b), r.to_string()))
            .collect()
    }

    /// `RackAwareTest.checkReplicaDistribution`: no broker twice in a
    /// partition; optionally every replica on its own rack, leaders even,
    /// replicas even.
    fn check_distribution(
        a: &Assignment,
        m: &[(i32, &str)],
        partitions: usize,
        rf: usize,
        (rack_aware, leaders_even, replicas_even): (bool, bool, bool),
    ) {
        let racks = rack_map(m);
        let n = m.len();
        assert_eq!(a.len(), partitions);
        let mut leaders: SortedMap<BrokerId, usize> = SortedMap::new();
        let mut replicas: SortedMap<BrokerId, usize> = SortedMap::new();
        for (p, r) in a.iter() {
            let distinct: std::collections::BTreeSet<_> = r.iter().collect();
            assert_eq!(distinct.len(), r.len(), "partition {p}: {r:?}");
            assert_eq!(r.len(), rf);
            *leaders.entry(r[0]).or_default() += 1;
            for b in r {
                *replicas.entry(*b).or_default() += 1;
            }
            if rack_aware {
                let on: std::collections::BTreeSet<_> = r.iter().map(|b| &racks[b]).collect();
                assert_eq!(on.len(), rf, "partition {p}: {r:?} shares a rack");
            }
        }
        if leaders_even {
            assert_eq!(leaders.len(), n);
            assert!(
                leaders.values().all(|c| *c == partitions / n),
                "{leaders:?}"
            );
        }
        if replicas_even {
            assert_eq!(replicas.len(), n);
            assert!(
                replicas.values().all(|c| *c == partitions * rf / n),
                "{replicas:?}"
            );
        }
    }

    const SIX: [(i32, &str); 6] = [
        (0, "rack1"),
        (1, "rack2"),
        (2, "rack2"),
        (3, "rack3"),
        (4, "rack3"),
        (5, "rack1"),
    ];

    /// AdminRackAwareTest.testGetRackAlternatedBrokerListAndAssignReplicasToBrokers.
    #[test]
    fn rack_alternated_list_and_assignment_match_kafkas_test() {
        let m = [
            (0, "rack1"),
            (1, "rack3"),
            (2, "rack3"),
            (3, "rack2"),
            (4, "rack2"),
            (5, "rack1"),
        ];
        assert_eq!(
            rack_alternated_broker_list(&rack_map(&m)),
            ids(&[0, 3, 1, 5, 4, 2])
        );
        assert_eq!(
            rack_alternated_broker_list(&rack_map(&m[..5])),
            ids(&[0, 3, 1, 4, 2])
        );
        let (a, ch) =
            assign_replicas_to_brokers(&racked(&m), 7, 3, 0, 0, &mut Rng::new(1)).unwrap();
        let expect: [[i32; 3]; 7] = [
            [0, 3, 1],
            [3, 1, 5],
            [1, 5, 4],
            [5, 4, 2],
            [4, 2, 0],
            [2, 0, 3],
            [0, 4, 2],
        ];
        assert_assignment(&a, &expect);
        assert_eq!(ch.rack_alternated, Some(ids(&[0, 3, 1, 5, 4, 2])));
    }

    /// The rest of AdminRackAwareTest, each case with its own checks, over
    /// fixed and many random start indexes.
    #[test]
    fn rack_aware_distribution_matches_kafkas_tests() {
        let cases: Vec<FixedCase> = vec![
            // testAssignmentWithRackAware
            (SIX.to_vec(), 6, 3, 2, 0, (true, true, true)),
            // testAssignmentWithRackAwareWithUnevenReplicas
            (SIX.to_vec(), 13, 3, 0, 0, (true, false, false)),
            // testRackAwareExpansion
            (
                vec![
                    (6, "rack1"),
                    (7, "rack2"),
                    (8, "rack2"),
                    (9, "rack3"),
                    (10, "rack3"),
                    (11, "rack1"),
                ],
                12,
                2,
                -1,
                12,
                (true, true, true),
            ),
            // testSkipBrokerWithReplicaAlreadyAssigned
            (
                vec![(0, "a"), (1, "b"), (2, "c"), (3, "a"), (4, "a")],
                6,
                4,
                2,
                -1,
                (false, false, false),
            ),
        ];
        let random: Vec<RandomCase> = vec![
            // testAssignmentWithRackAwareWithRandomStartIndex
            (SIX.to_vec(), 6, 3, (true, true, true)),
            // testAssignmentWithRackAwareWithUnevenRacks
            (
                vec![
                    (0, "rack1"),
                    (1, "rack1"),
                    (2, "rack2"),
                    (3, "rack3"),
                    (4, "rack3"),
                    (5, "rack1"),
                ],
                12,
                3,
                (true, true, false),
            ),
            // testAssignmentWith2ReplicasRackAware
            (SIX.to_vec(), 12, 2, (true, true, true)),
            // testAssignmentWith2ReplicasRackAwareWith6Partitions
            (SIX.to_vec(), 6, 2, (true, true, true)),
            // ...With6PartitionsAnd3Brokers
            (
                vec![(0, "rack1"), (1, "rack2"), (4, "rack3")],
                3,
                2,
                (true, true, true),
            ),
            // testLargeNumberPartitionsAssignment
            (
                vec![
                    (0, "rack1"),
                    (1, "rack2"),
                    (2, "rack2"),
                    (3, "rack3"),
                    (4, "rack3"),
                    (5, "rack1"),
                    (6, "rack1"),
                    (7, "rack2"),
                    (8, "rack2"),
                    (9, "rack3"),
                    (10, "rack1"),
                    (11, "rack3"),
                ],
                96,
                3,
                (true, true, true),
            ),
        ];
        for (m, parts, rf, start, first_id, checks) in cases {
            let (a, _) = assign_replicas_to_brokers(
                &racked(&m),
                parts as i32,
                rf as i32,
                start,
                first_id,
                &mut Rng::new(1),
            )
            .unwrap();
            let a: Assignment = a
                .into_iter()
                .enumerate()
                .map(|(i, (_, r))| (i as i32, r))
                .collect();
            check_distribution(&a, &m, parts, rf, checks);
        }
        for seed in 0..100 {
            for (m, parts, rf, checks) in &random {
                let (a, _) = assign_replicas_to_brokers(
                    &racked(m),
                    *parts as i32,
                    *rf as i32,
                    -1,
                    -1,
                    &mut Rng::new(seed),
                )
                .unwrap();
                check_distribution(&a, m, *parts, *rf, *checks);
            }
        }
    }

    /// testMoreReplicasThanRacks, testLessReplicasThanRacks, testSingleRack.
    #[test]
    fn replicas_cover_as_many_racks_as_they_can() {
        let m = [
            (0, "rack1"),
            (1, "rack2"),
            (2, "rack2"),
            (3, "rack3"),
            (4, "rack3"),
            (5, "rack2"),
        ];
        let single: Vec<(i32, &str)> = (0..6).map(|b| (b, "rack1")).collect();
        for seed in 0..100 {
            for (brokers, rf, racks_each) in [(&m[..], 5, 3), (&m[..], 2, 2), (&single[..], 3, 1)] {
                let r = rack_map(brokers);
                let (a, _) = assign_replicas_to_brokers(
                    &racked(brokers),
                    6,
                    rf,
                    -1,
                    -1,
                    &mut Rng::new(seed),
                )
                .unwrap();
                for reps in a.values() {
                    assert_eq!(reps.len(), rf as usize);
                    let on: std::collections::BTreeSet<_> = reps.iter().map(|b| &r[b]).collect();
                    assert_eq!(on.len(), racks_each, "seed {seed}: {reps:?}");
                }
                if racks_each == 1 {
                    for b in 0..6 {
                        assert_eq!(a.values().filter(|r| r[0] == BrokerId(b)).count(), 1);
                    }
                }
            }
        }
    }

    /// testAssignReplicasToBrokersWithInvalidParameters: a broker without a
    /// rack among brokers with racks.
    #[test]
    fn some_brokers_without_a_rack_is_an_admin_operation_error() {
        let mut brokers = racked(&[(0, "rack1"), (1, "rack3"), (2, "rack3"), (3, "rack2")]);
        brokers.push(BrokerMetadata {
            id: BrokerId(4),
            rack: None,
        });
        let mut r = Rng::new(1);
        assert!(matches!(
            assign_replicas_to_brokers(&brokers, 0, 0, -1, -1, &mut r),
            Err(PlacementError::InvalidPartitions(_))
        ));
        assert!(matches!(
            assign_replicas_to_brokers(&brokers, 10, 0, -1, -1, &mut r),
            Err(PlacementError::InvalidReplicationFactor(_))
        ));
        assert!(matches!(
            assign_replicas_to_brokers(&brokers, 10, 6, -1, -1, &mut r),
            Err(PlacementError::InvalidReplicationFactor(_))
        ));
        assert_eq!(
            assign_replicas_to_brokers(&brokers, 10, 5, -1, -1, &mut r).unwrap_err(),
            PlacementError::AdminOperation(
                "Not all brokers have rack information for replica rack aware assignment.".into()
            )
        );
    }
}
