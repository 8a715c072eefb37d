//! Replica placement at topic creation (C4): Kafka's rack-unaware
//! `AdminUtils.assignReplicasToBrokers`.
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

use crate::collections::SortedMap;
use crate::ids::BrokerId;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};
use std::fmt;

/// `InvalidPartitionsException` / `InvalidReplicationFactorException`, with
/// Kafka's messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlacementError {
    /// `INVALID_PARTITIONS`: fewer than one partition.
    InvalidPartitions(String),
    /// `INVALID_REPLICATION_FACTOR`: fewer than one replica, or more than there are brokers.
    InvalidReplicationFactor(String),
}

impl fmt::Display for PlacementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlacementError::InvalidPartitions(m) => write!(f, "INVALID_PARTITIONS: {m}"),
            PlacementError::InvalidReplicationFactor(m) => {
                write!(f, "INVALID_REPLICATION_FACTOR: {m}")
            }
        }
    }
}

impl std::error::Error for PlacementError {}

/// The random choices placement made (or was given), for the explanation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlacementChoices {
    /// The broker index the first partition's leader was placed on (`startIndex`).
    pub start_index: u32,
    /// The shift of the first follower after the leader (`nextReplicaShift`'s start).
    pub initial_shift: u32,
}

/// Partition → replicas (the first replica is the preferred leader).
pub type Assignment = SortedMap<i32, Vec<BrokerId>>;

fn replica_index(first: usize, shift: usize, j: usize, n: usize) -> usize {
    let s = 1 + (shift + j) % (n - 1);
    (first + s) % n
}

/// `assignReplicasToBrokers(brokers, nPartitions, replicationFactor,
/// fixedStartIndex, startPartitionId)`. `fixed_start_index < 0` draws the
/// start index and shift from `rng`; `start_partition_id < 0` starts at 0.
pub fn assign_replicas_to_brokers(
    brokers: &[BrokerId],
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
    let mut sorted = brokers.to_vec();
    sorted.sort();
    let n = sorted.len();
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
    };
    let mut out = Assignment::new();
    let first_id = start_partition_id.max(0) as usize;
    for p in first_id..first_id + num_partitions as usize {
        if p > 0 && p.is_multiple_of(n) {
            shift += 1;
        }
        let first = (p + start_index) % n;
        let mut replicas = vec![sorted[first]];
        for j in 0..(replication_factor as usize - 1) {
            replicas.push(sorted[replica_index(first, shift, j, n)]);
        }
        out.insert(p as i32, replicas);
    }
    Ok((out, choices))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[i32]) -> Vec<BrokerId> {
        v.iter().map(|i| BrokerId(*i)).collect()
    }

    #[test]
    fn four_brokers_sixteen_partitions_rf3_from_index_0() {
        // The source note's example (C4), with Kafka's algorithm and start index 0.
        let (a, _) =
            assign_replicas_to_brokers(&ids(&[0, 1, 2, 3]), 16, 3, 0, -1, &mut Rng::new(1))
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
        for (p, e) in expect.iter().enumerate() {
            assert_eq!(a[&(p as i32)], ids(e), "partition {p}");
        }
        // Leaders are spread evenly: 4 each.
        for b in 0..4 {
            assert_eq!(a.values().filter(|r| r[0] == BrokerId(b)).count(), 4);
        }
    }

    #[test]
    fn kafka_admin_utils_test_vector() {
        // AdminUtilsTest.testReplicaAssignment: brokers 0-4, 10 partitions, RF 3, start index 0.
        let (a, _) =
            assign_replicas_to_brokers(&ids(&[0, 1, 2, 3, 4]), 10, 3, 0, -1, &mut Rng::new(1))
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
        for (p, e) in expect.iter().enumerate() {
            assert_eq!(a[&(p as i32)], ids(e), "partition {p}");
        }
    }

    #[test]
    fn impossible_requests_fail_with_kafkas_messages() {
        let mut r = Rng::new(1);
        let e = assign_replicas_to_brokers(&ids(&[0, 1]), 3, 3, -1, -1, &mut r).unwrap_err();
        assert_eq!(
            e,
            PlacementError::InvalidReplicationFactor(
                "Replication factor: 3 larger than available brokers: 2.".into()
            )
        );
        assert!(matches!(
            assign_replicas_to_brokers(&ids(&[0]), 0, 1, -1, -1, &mut r),
            Err(PlacementError::InvalidPartitions(_))
        ));
    }

    #[test]
    fn no_partition_has_two_replicas_on_one_broker_for_any_seed() {
        for seed in 0..200 {
            let mut r = Rng::new(seed);
            let n = 1 + (seed % 7) as i32;
            let brokers: Vec<BrokerId> = (0..n).map(BrokerId).collect();
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
}
