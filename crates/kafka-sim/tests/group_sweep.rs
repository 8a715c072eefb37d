//! Consumer groups under random churn and faults, over many seeds: members
//! join, leave, crash, stall and commit while brokers die and come back.
//! Checked on every step: no guarantee broken (one owner per partition within
//! a generation, plus the replication invariants); and at the end, after a
//! quiet period, the group has settled: every running member is in the same
//! generation and each partition is owned by exactly one of them.
//!
//! `GROUP_SEEDS=N` runs N seeds (default 300).

use kafka_sim::collections::SortedSet;
use kafka_sim::event::EventKind;
use kafka_sim::group::MemberPhase;
use kafka_sim::rng::Rng;

mod common;

const STRATEGIES: [&str; 5] = [
    r#"["range"]"#,
    r#"["roundrobin"]"#,
    r#"["sticky"]"#,
    r#"["cooperative-sticky"]"#,
    r#"["range", "cooperative-sticky"]"#,
];

fn random_scenario(seed: u64) -> (String, u64) {
    let mut r = Rng::new(seed);
    let partitions = r.between(1, 8);
    let run_until = 90_000u64;
    let strategy = STRATEGIES[r.below(STRATEGIES.len() as u64) as usize];
    let session = r.between(6000, 12000);
    let consumer = |name: &str, r: &mut Rng, start: u64| {
        let instance = if r.chance(1, 4) {
            format!(r#", "group.instance.id": "i-{name}""#)
        } else {
            String::new()
        };
        format!(
            r#"{{"name": "{name}", "subscribe": ["t"], "start_at_ms": {start}, "config": {{"group.id": "g", "partition.assignment.strategy": {strategy}, "session.timeout.ms": {session}, "heartbeat.interval.ms": {}, "max.poll.interval.ms": 15000, "auto.offset.reset": "earliest", "enable.auto.commit": {}{instance}}}}}"#,
            session / 3,
            r.chance(2, 3)
        )
    };
    let n = r.between(2, 4);
    let consumers: Vec<String> = (0..n)
        .map(|i| {
            let start = r.between(0, 3000);
            consumer(&format!("c{i}"), &mut r, start)
        })
        .collect();
    let mut running: SortedSet<String> = (0..n).map(|i| format!("c{i}")).collect();
    let mut cmds = Vec::new();
    // The broker down and when it was killed: its ZooKeeper session (6 s)
    // keeps /brokers/ids/<id> until then, and a restart before that fails
    // with NODEEXISTS as in Kafka, so it stays down until a later restart.
    let zk_session = 6000;
    let mut down: Option<(i32, u64)> = None;
    let mut t = 4000u64;
    let quiet_from = run_until - 45_000;
    while t < quiet_from {
        t += r.between(500, 3000);
        match r.below(12) {
            0..=3 => cmds.push(format!(
                r#"{{"at_ms": {t}, "type": "produce", "producer": "p", "topic": "t", "value": "v{t}", "count": {}}}"#,
                r.between(1, 10)
            )),
            4 => {
                let name = format!("x{t}");
                let spec = consumer(&name, &mut r, 0);
                cmds.push(format!(r#"{{"at_ms": {t}, "type": "add_consumer", "consumer": {spec}}}"#));
                running.insert(name);
            }
            5 | 6 if running.len() > 1 => {
                let v: Vec<&String> = running.iter().collect();
                let who = v[r.below(v.len() as u64) as usize].clone();
                let kind = if r.chance(1, 2) { "crash_consumer" } else { "stop_consumer" };
                cmds.push(format!(r#"{{"at_ms": {t}, "type": "{kind}", "consumer": "{who}"}}"#));
                running.remove(&who);
            }
            7 => {
                let v: Vec<&String> = running.iter().collect();
                let who = v[r.below(v.len() as u64) as usize].clone();
                cmds.push(format!(
                    r#"{{"at_ms": {t}, "type": "pause_consumer", "consumer": "{who}", "duration_ms": {}}}"#,
                    r.between(1000, 20000)
                ));
            }
            8 => {
                let v: Vec<&String> = running.iter().collect();
                let who = v[r.below(v.len() as u64) as usize].clone();
                cmds.push(format!(r#"{{"at_ms": {t}, "type": "commit_sync", "consumer": "{who}"}}"#));
            }
            9 | 10 => match down {
                None => {
                    let b = r.below(3) as i32;
                    down = Some((b, t));
                    cmds.push(format!(r#"{{"at_ms": {t}, "type": "kill_broker", "broker": {b}}}"#));
                }
                Some((b, killed)) => {
                    if t > killed + zk_session + 100 {
                        down = None;
                    }
                    cmds.push(format!(r#"{{"at_ms": {t}, "type": "restart_broker", "broker": {b}}}"#));
                }
            },
            _ => {}
        }
    }
    if let Some((b, killed)) = down {
        let at = quiet_from.max(killed + zk_session + 100);
        cmds.push(format!(
            r#"{{"at_ms": {at}, "type": "restart_broker", "broker": {b}}}"#
        ));
    }
    let json = format!(
        r#"{{"seed": {seed}, "run_until_ms": {run_until},
        "cluster": {{"brokers": [0, 1, 2], "config": {{"offsets.topic.num.partitions": {}, "zookeeper.session.timeout.ms": 6000}}}},
        "topics": [{{"name": "t", "partitions": {partitions}, "replication.factor": 3}}],
        "producers": [{{"name": "p", "config": {{"partitioner.ignore.keys": true}}}}],
        "consumers": [{}],
        "commands": [{}]}}"#,
        r.between(1, 6),
        consumers.join(","),
        cmds.join(",")
    );
    (json, partitions)
}

fn check_seed(seed: u64) -> Result<(u64, u64), String> {
    let (json, partitions) = random_scenario(seed);
    let mut rebalances = 0u64;
    let (w, events) = common::run_checked(
        seed,
        &json,
        |e| {
            if let EventKind::GenerationStarted { .. } = e.kind {
                rebalances += 1;
            }
        },
        |_, _| Ok(()),
    )?;
    // Settled: one generation, every partition owned exactly once.
    let running: Vec<_> = w.consumers().iter().filter(|c| c.alive).collect();
    let gens: SortedSet<i32> = running
        .iter()
        .filter_map(|c| c.group.as_ref().map(|g| g.generation))
        .collect();
    let phases: Vec<MemberPhase> = running
        .iter()
        .filter_map(|c| c.group.as_ref().map(|g| g.phase))
        .collect();
    if gens.len() != 1 || phases.iter().any(|p| *p != MemberPhase::Stable) {
        return Err(format!(
            "seed {seed}: not settled: generations {gens:?}, phases {phases:?}\n{json}"
        ));
    }
    let mut owned = SortedSet::new();
    for c in &running {
        for tp in &c.assignment {
            if !owned.insert(tp.clone()) {
                return Err(format!("seed {seed}: {tp} owned twice at the end\n{json}"));
            }
        }
    }
    if owned.len() as u64 != partitions {
        let who: Vec<String> = running
            .iter()
            .map(|c| {
                format!(
                    "{} gen {:?} {:?}",
                    c.name,
                    c.group.as_ref().map(|g| g.generation),
                    c.assignment
                )
            })
            .collect();
        return Err(format!(
            "seed {seed}: {} of {partitions} partitions owned at the end: {who:?}\n{json}",
            owned.len()
        ));
    }
    Ok((events, rebalances))
}

#[test]
fn groups_settle_and_never_share_a_partition_under_churn_and_faults() {
    let n = common::seeds("GROUP_SEEDS", 300);
    let results = common::sweep(n, check_seed);
    let events: u64 = results.iter().map(|r| r.0).sum();
    let rebalances: u64 = results.iter().map(|r| r.1).sum();
    eprintln!("{n} seeds, {events} events, {rebalances} generations, none failed");
    assert!(rebalances > n, "the sweep should rebalance in most runs");
}
