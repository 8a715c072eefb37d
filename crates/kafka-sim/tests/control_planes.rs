//! The two control planes on one failure (`kafka_sim::planes`): Kafka 3.9
//! (ZooKeeper) and Kafka 4.1 (KRaft), from the same seed and with each
//! version's defaults, on the three failures of issue 49. The figures are
//! checked against what each version's settings make of them.
//!
//! The tests run 3 brokers with 6 partitions; `CONTROL_PLANES_LARGE=1`
//! adds 10 brokers with 1,000 partitions (run it with `--release
//! --nocapture` to read the figures).

use kafka_sim::ids::NodeId;
use kafka_sim::planes::{compare, Comparison, Failure, Run, Size};

fn report(c: &Comparison) {
    let line = |r: &Run| {
        format!(
            "{} (struck {}): noticed {:?} ms, recovered {:?} ms, moved {}/{}, {} messages {:?}, {} partition states",
            r.version,
            r.victim,
            r.noticed_ms,
            r.recovered_ms,
            r.moved,
            r.to_move,
            r.total_messages(),
            r.messages,
            r.partition_states
        )
    };
    eprintln!(
        "{} at {} brokers / {} partitions\n  {}\n  {}",
        c.failure.name(),
        c.size.brokers,
        c.size.partitions,
        line(&c.zk),
        line(&c.kraft)
    );
}

fn run(f: Failure, size: Size) -> Comparison {
    let c = compare(f, size, 11).unwrap();
    report(&c);
    c
}

fn sizes() -> Vec<Size> {
    let mut v = vec![Size::SMALL];
    if std::env::var_os("CONTROL_PLANES_LARGE").is_some() {
        v.push(Size::LARGE);
    }
    v
}

/// A partition leader dies. Each mode's wait is its failure detection:
/// ZooKeeper's session (`zookeeper.session.timeout.ms`, 18 s in 3.9)
/// against the broker's session at the controller
/// (`broker.session.timeout.ms`, 9 s in 4.1) plus a fence check.
#[test]
fn a_dead_leader_is_replaced_in_both_modes() {
    for size in sizes() {
        let c = run(Failure::LeaderDies, size);
        let (zk, kraft) = (&c.zk, &c.kraft);
        assert_eq!(zk.victim, kraft.victim);
        for r in [zk, kraft] {
            assert!(r.to_move > 0 && r.moved == r.to_move, "{r:?}");
            assert!(r.partition_states > 0, "the brokers were told nothing");
        }
        let zk_ms = zk.recovered_ms.unwrap();
        let kraft_ms = kraft.recovered_ms.unwrap();
        assert!((18_000..19_000).contains(&zk_ms), "{zk_ms}");
        assert!((7_000..10_200).contains(&kraft_ms), "{kraft_ms}");
        assert!(zk.messages.contains_key("LeaderAndIsr"));
        assert!(!kraft.messages.contains_key("LeaderAndIsr"));
    }
}

/// The active controller dies. 3.9: the dead broker's session expires,
/// another broker wins /controller and sends every live broker every
/// partition's state (its partitions fail over too). 4.1: the voters'
/// fetch timeout (2 s), a pre-vote and a vote; no partition state is sent,
/// since the brokers already replay the log the new leader holds.
#[test]
fn a_dead_controller_is_replaced_faster_by_the_quorum() {
    for size in sizes() {
        let c = run(Failure::ControllerDies, size);
        let (zk, kraft) = (&c.zk, &c.kraft);
        assert!(matches!(zk.victim, NodeId::Broker(_)));
        assert!(matches!(kraft.victim, NodeId::Controller(_)));
        let zk_ms = zk.recovered_ms.unwrap();
        let kraft_ms = kraft.recovered_ms.unwrap();
        assert!((18_000..19_000).contains(&zk_ms), "{zk_ms}");
        assert!((2_000..5_000).contains(&kraft_ms), "{kraft_ms}");
        assert!(kraft.noticed_ms.unwrap() < kraft_ms);
        // Every live broker hears every partition from the new 3.9 controller.
        let all = u64::try_from((size.brokers - 1) * size.partitions).unwrap();
        assert!(
            zk.partition_states >= all,
            "{} < {all}",
            zk.partition_states
        );
        assert_eq!(kraft.partition_states, 0);
        assert!(kraft.messages["Vote"] > 0 && kraft.messages["BeginQuorumEpoch"] > 0);
        assert_eq!(kraft.to_move, 0);
    }
}

/// A broker is cut off from the controller(s). 3.9 keeps it: its
/// ZooKeeper session is alive. 4.1 fences it when its heartbeats stop, and
/// its partitions are led elsewhere.
#[test]
fn only_kraft_moves_a_broker_cut_off_from_the_controller() {
    for size in sizes() {
        let c = run(Failure::BrokerCutOff, size);
        let (zk, kraft) = (&c.zk, &c.kraft);
        assert!(zk.to_move > 0);
        assert_eq!(zk.moved, 0);
        assert_eq!(zk.recovered_ms, None);
        assert_eq!(zk.noticed_ms, None);
        assert_eq!(zk.watched_ms, kafka_sim::planes::WATCH_MS);
        assert_eq!(kraft.moved, kraft.to_move);
        let kraft_ms = kraft.recovered_ms.unwrap();
        assert!((7_000..10_200).contains(&kraft_ms), "{kraft_ms}");
    }
}

/// The same comparison twice gives the same figures and events.
#[test]
fn a_comparison_is_deterministic() {
    let a = compare(Failure::ControllerDies, Size::SMALL, 5).unwrap();
    let b = compare(Failure::ControllerDies, Size::SMALL, 5).unwrap();
    for (x, y) in [(&a.zk, &b.zk), (&a.kraft, &b.kraft)] {
        assert_eq!(x.shown, y.shown);
        assert_eq!(x.messages, y.messages);
        assert_eq!(x.recovered_ms, y.recovered_ms);
    }
    assert!(!a.zk.shown.is_empty() && !a.kraft.shown.is_empty());
}
