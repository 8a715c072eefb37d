use super::shrink::Shrinker;
use super::*;

fn scenario(name: &str) -> Scenario {
    let path = format!(
        "{}/../../scenarios/explore/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    Scenario::from_json(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn request(faults: &str, max_faults: usize) -> Request {
    Request {
        guarantee: Guarantee::AcknowledgedRecordsSurvive,
        faults: FaultKind::parse_list(faults).unwrap(),
        max_faults,
        seed: 1,
    }
}

/// Searches until a counterexample (at most `limit` schedules).
fn search(sc: Scenario, req: Request, limit: u64) -> Counterexample {
    let mut s = Search::new(sc, req).unwrap();
    for _ in 0..limit {
        s.step();
        if s.finished() {
            break;
        }
    }
    s.found()
        .cloned()
        .unwrap_or_else(|| panic!("no counterexample in {limit} schedules"))
}

#[test]
fn names_parse_and_bad_ones_are_named() {
    assert_eq!(
        FaultKind::parse_list("restart, crash,crash").unwrap(),
        vec![FaultKind::Crash, FaultKind::Restart]
    );
    let e = FaultKind::parse_list("crash,meteor").unwrap_err();
    assert!(e.contains("`meteor` is not a fault kind"), "{e}");
    assert!(FaultKind::parse_list(" , ").is_err());
    assert_eq!(
        parse_guarantee("acknowledged_records_survive").unwrap(),
        Guarantee::AcknowledgedRecordsSurvive
    );
    assert_eq!(
        guarantee_name(Guarantee::ReadCommittedIsolation),
        "read_committed_isolation"
    );
    assert!(parse_guarantee("durable")
        .unwrap_err()
        .contains("`durable`"));
}

/// The fault-free acks=1 run keeps every record; a crash of the leader
/// before its followers fetch loses one. The shrunk counterexample is one
/// fault, replays as an ordinary scenario, and no single candidate
/// shrinks it further.
#[test]
fn acks_1_loses_a_record_to_one_crash_and_the_shrunk_schedule_replays() {
    let base = scenario("acks-1");
    assert_eq!(
        run(&base, Guarantee::AcknowledgedRecordsSurvive).unwrap().0,
        None
    );
    let found = search(base.clone(), request("crash,restart,cut,heal", 3), 20_000);
    assert!(found.faults >= 1);
    let mut sh = Shrinker::new(found.clone(), Guarantee::AcknowledgedRecordsSurvive);
    let best = sh.run(10_000).clone();
    assert!(sh.done());
    assert_eq!(best.faults, 1, "{:?}", best.scenario.commands);
    assert!(best.size() <= found.size());
    assert!(
        best.scenario
            .commands
            .iter()
            .any(|c| matches!(c.command, Command::KillBroker { broker: 0, .. })),
        "the leader, broker 0, is the one to kill: {:?}",
        best.scenario.commands
    );
    // The shrunk scenario, as JSON, replays the same violation.
    let text = best.scenario.to_json_pretty();
    let again = Scenario::from_json(&text).unwrap();
    let (v, events) = run(&again, Guarantee::AcknowledgedRecordsSurvive).unwrap();
    assert_eq!(v.as_ref(), Some(&best.violation));
    assert_eq!(events, best.events);
    // No single candidate of the result is kept: shrinking it again does nothing.
    let mut again = Shrinker::new(best.clone(), Guarantee::AcknowledgedRecordsSurvive);
    again.run(10_000);
    assert_eq!(again.counts().1, 0);
}

/// The same search seed gives the same schedules.
#[test]
fn a_search_is_deterministic_from_its_seed() {
    let mut a = Search::new(scenario("acks-1"), request("crash,cut,slow", 3)).unwrap();
    let mut b = Search::new(scenario("acks-1"), request("crash,cut,slow", 3)).unwrap();
    for _ in 0..20 {
        let (x, y) = (a.schedule(3), b.schedule(3));
        assert_eq!(x, y);
        assert!(x.iter().all(|c| is_fault(&c.command)));
        assert!(!x.is_empty() && x.len() <= 3);
    }
    let mut c = Search::new(
        scenario("acks-1"),
        Request {
            seed: 2,
            ..request("crash,cut,slow", 3)
        },
    )
    .unwrap();
    let differs = (0..20).any(|_| a.schedule(3) != c.schedule(3));
    assert!(differs);
}

#[test]
fn a_fault_kind_with_nothing_to_act_on_is_refused() {
    let e = Search::new(
        scenario("acks-1"),
        Request {
            faults: vec![FaultKind::CrashConsumer],
            ..request("crash", 1)
        },
    )
    .err()
    .unwrap();
    assert!(e.contains("none of the fault kinds"), "{e}");
}

/// Leaving clients out drops their commands and links, and the links of
/// the clients that stay follow them to their new places in the lists.
#[test]
fn only_clients_keeps_the_named_ones_and_renumbers_their_links() {
    use crate::ids::NodeId;
    let mut sc = scenario("read-uncommitted");
    let mut second = sc.consumers[0].clone();
    second.name = "other".into();
    sc.consumers.insert(0, second);
    sc.commands.push(TimedCommand {
        at_ms: 2000,
        command: Command::CutLink {
            a: NodeId::Consumer(1),
            b: NodeId::broker(0),
        },
    });
    sc.commands.push(TimedCommand {
        at_ms: 2100,
        command: Command::CutLink {
            a: NodeId::Consumer(0),
            b: NodeId::broker(1),
        },
    });
    sc.commands.push(TimedCommand {
        at_ms: 2200,
        command: Command::CrashConsumer {
            consumer: "other".into(),
        },
    });
    let kept = question::only_clients(&sc, &["tx".into(), "reader".into()]).unwrap();
    assert_eq!(kept.consumers.len(), 1);
    assert_eq!(kept.consumers[0].name, "reader");
    let links: Vec<(NodeId, NodeId)> = kept
        .commands
        .iter()
        .filter_map(|c| match c.command {
            Command::CutLink { a, b } => Some((a, b)),
            _ => None,
        })
        .collect();
    // reader's link (consumer 1 before) is consumer 0's now; other's is gone.
    assert_eq!(links, [(NodeId::Consumer(0), NodeId::broker(0))]);
    assert!(!kept
        .commands
        .iter()
        .any(|c| matches!(&c.command, Command::CrashConsumer { .. })));
    assert!(kept.validate().is_ok());
    assert!(question::only_clients(&sc, &["ghost".into()])
        .unwrap_err()
        .contains("`ghost`"));
    // Every client kept: the scenario as it was.
    assert_eq!(
        question::only_clients(&sc, &[]).unwrap().commands.len(),
        sc.commands.len()
    );
}
