//! Partition leader election (C3): Kafka's `PartitionLeaderElectionAlgorithms`
//! as the ZooKeeper-era controller runs them.
//!
//! Every rule walks the assigned replicas (AR) *in assignment order* and takes
//! the first that qualifies, which is why the preferred (first) replica wins
//! whenever it can:
//! * **offline** (the leader died): first replica that is alive and in the ISR;
//!   if none and `unclean.leader.election.enable`, first live replica at all
//!   (and the ISR shrinks to just that replica, possibly losing data);
//! * **reassign**: first replica of the *new* assignment alive and in the ISR;
//! * **preferred**: the first replica of the assignment, only if alive and in the ISR;
//! * **controlled-shutdown**: first replica alive, in the ISR and not shutting down.

use crate::ids::BrokerId;
use serde::{Deserialize, Serialize};

/// The controller's leader election rules (`PartitionLeaderElectionAlgorithms`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ElectionAlgorithm {
    /// A partition without a live leader: the first live ISR member in AR order, or with
    /// `unclean.leader.election.enable` the first live replica.
    Offline,
    /// After a reassignment: the first live ISR member of the target replicas.
    Reassign,
    /// Preferred leader election: the first replica in AR, if alive and in the ISR.
    Preferred,
    /// A broker shutting down leads: the first live ISR member not shutting down.
    ControlledShutdown,
}

impl ElectionAlgorithm {
    /// The rule's name in Kafka (`…PartitionLeaderElectionStrategy`).
    pub fn kafka_name(self) -> &'static str {
        match self {
            ElectionAlgorithm::Offline => "OfflinePartitionLeaderElectionStrategy",
            ElectionAlgorithm::Reassign => "ReassignPartitionLeaderElectionStrategy",
            ElectionAlgorithm::Preferred => "PreferredReplicaPartitionLeaderElectionStrategy",
            ElectionAlgorithm::ControlledShutdown => {
                "ControlledShutdownPartitionLeaderElectionStrategy"
            }
        }
    }
}

/// An election's inputs, as the controller sees them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElectionInput {
    /// The rule to apply.
    pub algorithm: ElectionAlgorithm,
    /// The assigned replicas (for `reassign`, the target assignment).
    pub assignment: Vec<BrokerId>,
    /// The in-sync replicas.
    pub isr: Vec<BrokerId>,
    /// Brokers alive (and, for every rule, not shutting down unless listed separately).
    pub live: Vec<BrokerId>,
    /// `unclean.leader.election.enable` for the topic.
    #[serde(default)]
    pub unclean_leader_election_enable: bool,
    /// Brokers in a controlled shutdown.
    #[serde(default)]
    pub shutting_down: Vec<BrokerId>,
}

/// One replica considered, in order, and why it was taken or passed over.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    /// The replica.
    pub broker: BrokerId,
    /// Whether its broker is alive.
    pub alive: bool,
    /// Whether it is in the ISR.
    pub in_isr: bool,
    /// Whether its broker is shutting down.
    pub shutting_down: bool,
    /// Whether it was elected.
    pub chosen: bool,
}

/// An election's result, and every replica considered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElectionOutcome {
    /// The new leader (none: no replica could lead).
    pub leader: Option<BrokerId>,
    /// The ISR after the election.
    pub isr: Vec<BrokerId>,
    /// True when the leader came from outside the ISR.
    pub unclean: bool,
    /// Each replica considered, in order.
    pub candidates: Vec<Candidate>,
}

/// Applies `input.algorithm` to the replicas (`PartitionLeaderElectionAlgorithms`).
pub fn elect(input: &ElectionInput) -> ElectionOutcome {
    let live = |b: &BrokerId| input.live.contains(b);
    let in_isr = |b: &BrokerId| input.isr.contains(b);
    let down = |b: &BrokerId| input.shutting_down.contains(b);
    let (leader, unclean) = match input.algorithm {
        ElectionAlgorithm::Offline => {
            match input.assignment.iter().find(|b| live(b) && in_isr(b)) {
                Some(b) => (Some(*b), false),
                None if input.unclean_leader_election_enable => {
                    (input.assignment.iter().find(|b| live(b)).copied(), true)
                }
                None => (None, false),
            }
        }
        ElectionAlgorithm::Reassign => (
            input
                .assignment
                .iter()
                .find(|b| live(b) && in_isr(b))
                .copied(),
            false,
        ),
        ElectionAlgorithm::Preferred => (
            input
                .assignment
                .first()
                .filter(|b| live(b) && in_isr(b))
                .copied(),
            false,
        ),
        ElectionAlgorithm::ControlledShutdown => (
            input
                .assignment
                .iter()
                .find(|b| live(b) && in_isr(b) && !down(b))
                .copied(),
            false,
        ),
    };
    let unclean = unclean && leader.is_some();
    let isr = match (input.algorithm, leader) {
        (_, None) => input.isr.clone(),
        (ElectionAlgorithm::Offline, Some(l)) => {
            if input.isr.contains(&l) {
                input.isr.iter().copied().filter(|b| live(b)).collect()
            } else {
                vec![l]
            }
        }
        (ElectionAlgorithm::ControlledShutdown, Some(_)) => {
            input.isr.iter().copied().filter(|b| !down(b)).collect()
        }
        _ => input.isr.clone(),
    };
    let candidates = input
        .assignment
        .iter()
        .map(|b| Candidate {
            broker: *b,
            alive: live(b),
            in_isr: in_isr(b),
            shutting_down: down(b),
            chosen: Some(*b) == leader,
        })
        .collect();
    ElectionOutcome {
        leader,
        isr,
        unclean,
        candidates,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[i32]) -> Vec<BrokerId> {
        v.iter().map(|i| BrokerId(*i)).collect()
    }

    fn input(alg: ElectionAlgorithm, ar: &[i32], isr: &[i32], live: &[i32]) -> ElectionInput {
        ElectionInput {
            algorithm: alg,
            assignment: ids(ar),
            isr: ids(isr),
            live: ids(live),
            unclean_leader_election_enable: false,
            shutting_down: vec![],
        }
    }

    #[test]
    fn source_note_example_broker_1_dies_and_0_leads() {
        // AR [1,0,2], ISR [1,0,2]: leader 1; broker 1 dies → leader 0, ISR [0,2].
        let all = elect(&input(
            ElectionAlgorithm::Offline,
            &[1, 0, 2],
            &[1, 0, 2],
            &[0, 1, 2],
        ));
        assert_eq!(all.leader, Some(BrokerId(1)));
        let o = elect(&input(
            ElectionAlgorithm::Offline,
            &[1, 0, 2],
            &[1, 0, 2],
            &[0, 2],
        ));
        assert_eq!(o.leader, Some(BrokerId(0)));
        assert_eq!(o.isr, ids(&[0, 2]));
        assert!(!o.unclean);
    }

    #[test]
    fn unclean_election_only_when_enabled() {
        let mut i = input(ElectionAlgorithm::Offline, &[1, 0, 2], &[1], &[0, 2]);
        assert_eq!(elect(&i).leader, None);
        i.unclean_leader_election_enable = true;
        let o = elect(&i);
        assert_eq!(o.leader, Some(BrokerId(0)));
        assert_eq!(o.isr, ids(&[0]));
        assert!(o.unclean);
    }

    #[test]
    fn preferred_needs_the_first_replica() {
        assert_eq!(
            elect(&input(
                ElectionAlgorithm::Preferred,
                &[1, 0, 2],
                &[0, 2, 1],
                &[0, 1, 2]
            ))
            .leader,
            Some(BrokerId(1))
        );
        assert_eq!(
            elect(&input(
                ElectionAlgorithm::Preferred,
                &[1, 0, 2],
                &[0, 2],
                &[0, 1, 2]
            ))
            .leader,
            None
        );
    }

    #[test]
    fn controlled_shutdown_skips_the_broker_going_down() {
        let mut i = input(
            ElectionAlgorithm::ControlledShutdown,
            &[1, 0, 2],
            &[1, 0, 2],
            &[0, 1, 2],
        );
        i.shutting_down = ids(&[1]);
        let o = elect(&i);
        assert_eq!(o.leader, Some(BrokerId(0)));
        assert_eq!(o.isr, ids(&[0, 2]));
    }
}
