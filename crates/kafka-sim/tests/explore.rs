//! The counterexample finder (`kafka_sim::explore`) on the settings the
//! issue names: each unsafe one breaks its guarantee under a schedule the
//! random search finds and the shrinker reduces; the safe configuration
//! holds over every schedule of the exhaustive mode's bounds. Counts of
//! schedules, not time, bound each search (the same seed, the same
//! schedules), so the tests are deterministic; the times are reported by
//! `kafka-sim explore` and in the closing notes.

use kafka_sim::event::Guarantee;
use kafka_sim::explore::exhaustive::Exhaustive;
use kafka_sim::explore::shrink::Shrinker;
use kafka_sim::explore::{run, Counterexample, FaultKind, Request, Search};
use kafka_sim::scenario::{Command, Scenario};

mod common;

fn scenario(name: &str) -> Scenario {
    Scenario::from_json(&common::repo_file(&format!(
        "scenarios/explore/{name}.json"
    )))
    .unwrap()
}

/// Random search (at most `limit` schedules), then shrinking to the end;
/// the shrunk scenario replays the same violation from its JSON.
fn find(name: &str, g: Guarantee, kinds: &str, limit: u64) -> Counterexample {
    let mut s = Search::new(
        scenario(name),
        Request {
            guarantee: g,
            faults: FaultKind::parse_list(kinds).unwrap(),
            max_faults: 3,
            seed: 1,
        },
    )
    .unwrap();
    while s.tried() < limit && !s.finished() {
        s.step();
    }
    let found = s
        .found()
        .cloned()
        .unwrap_or_else(|| panic!("{name}: nothing found in {limit} schedules"));
    let mut sh = Shrinker::new(found.clone(), g);
    let best = sh.run(100_000).clone();
    assert!(sh.done());
    assert!(best.size() <= found.size());
    let again = Scenario::from_json(&best.scenario.to_json_pretty()).unwrap();
    let (v, _) = run(&again, g).unwrap();
    assert_eq!(
        v.as_ref(),
        Some(&best.violation),
        "{name}: the shrunk scenario replays"
    );
    best
}

fn kills(c: &Counterexample) -> Vec<(i32, bool)> {
    c.scenario
        .commands
        .iter()
        .filter_map(|x| match x.command {
            Command::KillBroker {
                broker,
                power_failure,
            } => Some((broker, power_failure)),
            _ => None,
        })
        .collect()
}

#[test]
fn acks_1_loses_an_acknowledged_record_when_the_leader_dies_first() {
    let c = find(
        "acks-1",
        Guarantee::AcknowledgedRecordsSurvive,
        "crash,restart,cut,heal,expire,slow",
        20_000,
    );
    assert_eq!(c.faults, 1);
    assert_eq!(kills(&c), vec![(0, false)], "the leader, broker 0, dies");
    assert!(
        c.violation.detail.contains("(acks=1)"),
        "{}",
        c.violation.detail
    );
}

#[test]
fn an_unclean_election_loses_what_the_lagging_follower_never_copied() {
    let c = find(
        "unclean-election",
        Guarantee::AcknowledgedRecordsSurvive,
        "crash,restart,cut,heal,expire,slow",
        20_000,
    );
    assert!(
        c.violation.detail.contains("unclean leader election"),
        "{}",
        c.violation.detail
    );
    assert!(c.faults <= 3, "{:?}", c.scenario.commands);
}

#[test]
fn one_in_sync_replica_with_power_failures_loses_acks_all_records() {
    let c = find(
        "min-isr-1",
        Guarantee::AcknowledgedRecordsSurvive,
        "crash,power,restart",
        60_000,
    );
    assert!(
        c.violation.detail.contains("(acks=all)"),
        "{}",
        c.violation.detail
    );
    assert!(
        kills(&c).iter().any(|k| k.1),
        "a power failure: {:?}",
        c.scenario.commands
    );
}

#[test]
fn a_read_uncommitted_consumer_reads_past_the_last_stable_offset_without_any_fault() {
    let c = find(
        "read-uncommitted",
        Guarantee::ReadCommittedIsolation,
        "crash,restart",
        10,
    );
    assert_eq!(c.faults, 0, "the setting alone breaks it");
    assert!(
        c.violation.detail.contains("last stable offset"),
        "{}",
        c.violation.detail
    );
    // The same transactions, read_committed: no schedule of these finds one.
    let mut s = Search::new(
        scenario("read-committed"),
        Request {
            guarantee: Guarantee::ReadCommittedIsolation,
            faults: FaultKind::parse_list("crash,restart").unwrap(),
            max_faults: 2,
            seed: 1,
        },
    )
    .unwrap();
    for _ in 0..300 {
        assert!(s.step().is_none(), "{:?}", s.found().map(|c| &c.violation));
    }
}

/// The exhaustive mode over the safe configuration (acks=all,
/// min.insync.replicas=2, RF 3, clean elections) finds nothing within its
/// bounds, and merges schedules that reach a state already seen; over
/// acks=1 it returns a one-fault counterexample.
#[test]
fn the_exhaustive_mode_finds_nothing_in_the_safe_configuration() {
    let mut x = Exhaustive::new(
        scenario("safe"),
        Guarantee::AcknowledgedRecordsSurvive,
        &FaultKind::parse_list("crash,restart").unwrap(),
        2,
        400,
    )
    .unwrap();
    while x.step() {}
    assert!(x.finished());
    assert!(x.found().is_none(), "{:?}", x.found().map(|c| &c.violation));
    let r = x.report();
    println!("safe configuration: {r:?}");
    assert!(
        r.schedules > 1000 && r.merged > 0 && r.states > 100,
        "{r:?}"
    );
    let per = (r.bounds.moments * r.bounds.faults_per_moment) as u64;
    assert_eq!(
        r.schedules + r.merged,
        per + per * (per - 1) / 2,
        "every one- and two-fault schedule is run or merged, once"
    );

    let mut x = Exhaustive::new(
        scenario("acks-1"),
        Guarantee::AcknowledgedRecordsSurvive,
        &[FaultKind::Crash],
        2,
        400,
    )
    .unwrap();
    while x.step() {}
    let c = x.found().expect("acks=1 breaks");
    assert_eq!(c.faults, 1);
}

/// The "Find the loss" lesson's questions to the finder, answered as the
/// page answers them (`explore::question`, bounded by schedules): each
/// answer, and the shape of each counterexample its explanation describes.
#[test]
fn the_find_the_loss_lesson_questions_get_the_answers_their_explanations_give() {
    use kafka_sim::explore::question::Question;
    use kafka_sim::lesson::Lesson;
    let sc = Scenario::from_json(&common::repo_file("static/lessons/find-the-loss.json")).unwrap();
    let lesson = Lesson::from_value(sc.lesson.as_ref().unwrap()).unwrap();
    let mut outcomes = Vec::new();
    for s in lesson.steps.iter().filter(|s| s.explore.is_some()) {
        let (answer, f) = (s.answer.as_deref().unwrap(), s.explore.as_ref().unwrap());
        let o = Question::new(&sc, answer, f).unwrap().finish();
        if o.found.is_none() {
            assert_eq!(
                o.tried, f.schedules,
                "a no runs every schedule of its bound"
            );
        }
        outcomes.push((f.clients.join(","), o));
    }
    let by = |clients: &str| &outcomes.iter().find(|(c, _)| c == clients).unwrap().1;
    let answers: Vec<&str> = outcomes.iter().map(|(_, o)| o.answer()).collect();
    assert_eq!(answers, ["yes", "no", "yes", "yes", "no"]);
    // acks=1: one crash of leader 0.
    assert_eq!(kills(by("fast").found.as_ref().unwrap()), [(0, false)]);
    assert_eq!(by("fast").found.as_ref().unwrap().faults, 1);
    // Unclean: broker 2, then broker 0 crash (and the lesson's slow link).
    let unclean = by("clicker").found.as_ref().unwrap();
    assert_eq!(kills(unclean), [(2, false), (0, false)]);
    assert!(unclean.violation.detail.contains("unclean leader election"));
    // read_uncommitted: no fault at all.
    assert_eq!(by("tx,dirty").found.as_ref().unwrap().faults, 0);
}

/// A lesson question's clients must be the scenario's; its guarantee and
/// fault kinds must exist: each refused with its name.
#[test]
fn a_lesson_question_to_the_finder_names_what_is_wrong_with_it() {
    use kafka_sim::explore::question::Question;
    let sc = scenario("acks-1");
    let f =
        |v: serde_json::Value| -> kafka_sim::lesson::Finder { serde_json::from_value(v).unwrap() };
    let err = |a: &str, v| Question::new(&sc, a, &f(v)).err().unwrap();
    assert!(err(
        "explore:acknowledged_records_survive",
        serde_json::json!({"faults": ["crash"], "clients": ["nobody"]})
    )
    .contains("`nobody`"));
    assert!(err(
        "explore:no_such_guarantee",
        serde_json::json!({"faults": ["crash"]})
    )
    .contains("no_such_guarantee"));
    assert!(err(
        "explore:acknowledged_records_survive",
        serde_json::json!({"faults": ["meteor"]})
    )
    .contains("meteor"));
    assert!(err(
        "explore:acknowledged_records_survive",
        serde_json::json!({"faults": ["crash_consumer"]})
    )
    .contains("none of the fault kinds"));
}
