//! Calculators for placement, elections, partitioning and coordinators.

use crate::cli::{AssignArgs, CoordinatorArgs, ExerciseArgs, PartitionArgs};
use crate::commands::{parse_request, read_stdin, Res};
use crate::outln;
use kafka_sim::collections::{SortedMap, SortedSet};
use kafka_sim::election::{elect as run_election, ElectionAlgorithm, ElectionInput};
use kafka_sim::ids::BrokerId;
use kafka_sim::partitioner::{
    coordinator_partition, java_string_hash, kafka_abs, murmur2, to_positive,
};
use kafka_sim::placement::{assign_replicas_to_brokers, BrokerMetadata};
use kafka_sim::rng::Rng;
use serde::Deserialize;
use serde_json::json;
use std::io::IsTerminal;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlaceRequest {
    brokers: Vec<i32>,
    num_partitions: i32,
    replication_factor: i32,
    #[serde(default = "minus_one")]
    fixed_start_index: i32,
    #[serde(default = "minus_one")]
    start_partition_id: i32,
    /// Seeds the RNG that picks the start index and shift when not fixed.
    #[serde(default)]
    seed: u64,
    /// Each broker's `broker.rack` (`{"0": "a", ...}`); rack-aware
    /// placement when given.
    #[serde(default)]
    racks: SortedMap<i32, String>,
}

fn minus_one() -> i32 {
    -1
}

/// The most brokers and partitions the calculators take (as a scenario:
/// `cluster.brokers` and `MAX_PARTITIONS`), and the most members and
/// partitions an assignment request may list.
const MAX_BROKERS: usize = 1000;
const MAX_MEMBERS: usize = 10_000;
/// The most partitions an assignment request may hold in all: Kafka's own
/// large-assignment test (`AbstractStickyAssignorTest.
/// testLargeAssignmentAndGroupWithUniformSubscription`) uses 1,000,000
/// (500 topics of 2,000) with 2,000 consumers.
const MAX_ASSIGN_PARTITIONS: i64 = 1_000_000;

fn check_place_size(req: &PlaceRequest) -> Res {
    use kafka_sim::scenario::MAX_PARTITIONS;
    if req.brokers.len() > MAX_BROKERS {
        return Err(format!(
            "bad request: brokers: at most {MAX_BROKERS} brokers"
        ));
    }
    if req.num_partitions > MAX_PARTITIONS {
        return Err(format!(
            "bad request: num_partitions: at most {MAX_PARTITIONS} partitions"
        ));
    }
    if req.start_partition_id > 0
        && req
            .start_partition_id
            .checked_add(req.num_partitions.max(0))
            .is_none()
    {
        return Err(format!(
            "bad request: start_partition_id: {} + {} partitions is past the largest partition id ({})",
            req.start_partition_id,
            req.num_partitions,
            i32::MAX
        ));
    }
    Ok(())
}

pub fn place(json: bool) -> Res {
    let req: PlaceRequest = parse_request(&read_stdin()?)?;
    check_place_size(&req)?;
    let mut seen = SortedSet::new();
    for b in &req.brokers {
        if !seen.insert(b) {
            return Err(format!("bad request: brokers: broker {b} is listed twice"));
        }
    }
    if req.fixed_start_index >= req.brokers.len() as i32 && !req.brokers.is_empty() {
        return Err(format!(
            "bad request: fixed_start_index: {} is not an index into the {} brokers",
            req.fixed_start_index,
            req.brokers.len()
        ));
    }
    if let Some(b) = req.racks.keys().find(|b| !req.brokers.contains(b)) {
        return Err(format!("bad request: racks: broker {b} is not in brokers"));
    }
    if let Some((b, r)) = req
        .racks
        .iter()
        .find(|(_, r)| !kafka_sim::scenario::rack_is_valid(r))
    {
        return Err(format!(
            "bad request: racks.{b}: `{}` is not a rack name (1-255 printable characters)",
            r.escape_debug()
        ));
    }
    let brokers: Vec<BrokerMetadata> = req
        .brokers
        .iter()
        .map(|b| BrokerMetadata {
            id: BrokerId(*b),
            rack: req.racks.get(b).cloned(),
        })
        .collect();
    let mut rng = Rng::new(req.seed);
    let (a, choices) = assign_replicas_to_brokers(
        &brokers,
        req.num_partitions,
        req.replication_factor,
        req.fixed_start_index,
        req.start_partition_id,
        &mut rng,
    )
    .map_err(|e| e.to_string())?;
    if json {
        let m: serde_json::Map<String, serde_json::Value> = a
            .iter()
            .map(|(p, r)| {
                (
                    p.to_string(),
                    json!(r.iter().map(|b| b.0).collect::<Vec<_>>()),
                )
            })
            .collect();
        let mut out = json!({ "assignment": m });
        if let Some(list) = &choices.rack_alternated {
            out["rack_alternated"] = json!(list.iter().map(|b| b.0).collect::<Vec<_>>());
        }
        outln!("{out}");
    } else {
        match &choices.rack_alternated {
            None => outln!(
                "start index {}, initial shift {} ({} brokers sorted: {:?})",
                choices.start_index,
                choices.initial_shift,
                brokers.len(),
                {
                    let mut s = req.brokers.clone();
                    s.sort();
                    s
                }
            ),
            Some(list) => outln!(
                "rack-aware: start index {}, initial shift {} (rack-alternated list: {})",
                choices.start_index,
                choices.initial_shift,
                list.iter()
                    .map(|b| format!("{}@{}", b.0, req.racks[&b.0]))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        }
        for (p, r) in &a {
            let r: Vec<String> = r.iter().map(|b| b.0.to_string()).collect();
            outln!("partition {p:>4}: [{}]  leader {}", r.join(","), r[0]);
        }
    }
    Ok(())
}

/// `kafka-sim elect`'s request: [`ElectionInput`]'s fields, and no others.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ElectionRequest {
    algorithm: ElectionAlgorithm,
    assignment: Vec<BrokerId>,
    isr: Vec<BrokerId>,
    live: Vec<BrokerId>,
    #[serde(default)]
    unclean_leader_election_enable: bool,
    #[serde(default)]
    shutting_down: Vec<BrokerId>,
}

pub fn elect(json: bool) -> Res {
    let req: ElectionRequest = parse_request(&read_stdin()?)?;
    if req.assignment.len() > MAX_BROKERS {
        return Err(format!(
            "bad request: assignment: at most {MAX_BROKERS} replicas"
        ));
    }
    let req = ElectionInput {
        algorithm: req.algorithm,
        assignment: req.assignment,
        isr: req.isr,
        live: req.live,
        unclean_leader_election_enable: req.unclean_leader_election_enable,
        shutting_down: req.shutting_down,
    };
    let out = run_election(&req);
    if json {
        outln!(
            "{}",
            json!({ "leader": out.leader.map(|b| b.0), "isr": out.isr.iter().map(|b| b.0).collect::<Vec<_>>() })
        );
        return Ok(());
    }
    outln!(
        "{} over AR {:?}",
        req.algorithm.kafka_name(),
        req.assignment.iter().map(|b| b.0).collect::<Vec<_>>()
    );
    for c in &out.candidates {
        outln!(
            "  broker {:>3}: {} {} {}{}",
            c.broker.0,
            if c.alive { "alive" } else { "dead " },
            if c.in_isr { "in ISR    " } else { "not in ISR" },
            if c.shutting_down {
                "shutting down "
            } else {
                ""
            },
            if c.chosen { "← leader" } else { "" }
        );
    }
    match out.leader {
        Some(l) => outln!(
            "leader {} ; ISR {:?}{}",
            l.0,
            out.isr.iter().map(|b| b.0).collect::<Vec<_>>(),
            if out.unclean {
                " (unclean: data outside the ISR may be lost)"
            } else {
                ""
            }
        ),
        None => outln!(
            "no leader: the partition is offline{}",
            if req.algorithm == ElectionAlgorithm::Offline && !req.unclean_leader_election_enable {
                " (unclean.leader.election.enable is false)"
            } else {
                ""
            }
        ),
    }
    Ok(())
}

pub fn partition(a: PartitionArgs) -> Res {
    let PartitionArgs {
        partitions: n,
        json,
        keys: args,
    } = a;
    if n < 1 {
        return Err(format!("--partitions must be at least 1, got {n}"));
    }
    let from_stdin;
    let mut keys: Vec<&str> = args.iter().map(String::as_str).collect();
    if keys.is_empty() {
        // No KEY arguments: one key per line on stdin (a terminal would only
        // wait, so there it is an error).
        if std::io::stdin().is_terminal() {
            return Err("give at least one KEY, or pipe keys on stdin, one per line".into());
        }
        from_stdin = read_stdin()?;
        keys = from_stdin
            .lines()
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .collect();
        if keys.is_empty() {
            return Err("give at least one KEY: none as arguments, and stdin was empty".into());
        }
    }
    let results: Vec<serde_json::Value> = keys
        .iter()
        .map(|k| {
            let h = murmur2(k.as_bytes());
            let pos = to_positive(h);
            json!({"key": k, "murmur2": h, "positive": pos, "partition": pos % n})
        })
        .collect();
    if json {
        outln!("{}", json!({ "results": results }));
    } else {
        for r in &results {
            outln!(
                "{:<20} murmur2 {:>12}  toPositive {:>10}  % {n} = partition {}",
                r["key"].as_str().unwrap_or(""),
                r["murmur2"],
                r["positive"],
                r["partition"]
            );
        }
    }
    Ok(())
}

/// `kafka-sim coordinator`: the group coordinator's `__consumer_offsets`
/// partition (`GroupMetadataManager.partitionFor`) or the transaction
/// coordinator's `__transaction_state` partition
/// (`TransactionStateManager.partitionFor`): both
/// `Utils.abs(id.hashCode) % partitions`.
pub fn coordinator(a: CoordinatorArgs) -> Res {
    let CoordinatorArgs {
        group,
        transactional_id: txn_id,
        offsets_partitions: offsets_n,
        transaction_partitions: txn_n,
        json,
    } = a;
    let (id, n, topic, flag, what) = match (group, txn_id) {
        (Some(g), None) => {
            if txn_n.is_some() {
                return Err(
                    "--transaction-partitions goes with --transactional-id, not --group".into(),
                );
            }
            (
                g,
                offsets_n.unwrap_or(50),
                "__consumer_offsets",
                "--offsets-partitions",
                "group coordinator",
            )
        }
        (None, Some(t)) => {
            if offsets_n.is_some() {
                return Err(
                    "--offsets-partitions goes with --group, not --transactional-id".into(),
                );
            }
            if t.is_empty() {
                return Err("--transactional-id must not be empty (Kafka refuses an empty transactional.id)".into());
            }
            (
                t,
                txn_n.unwrap_or(50),
                "__transaction_state",
                "--transaction-partitions",
                "transaction coordinator",
            )
        }
        (Some(_), Some(_)) => {
            return Err("give one of --group G and --transactional-id ID, not both".into())
        }
        (None, None) => return Err("missing --group G or --transactional-id ID".into()),
    };
    if n < 1 {
        return Err(format!("{flag} must be at least 1, got {n}"));
    }
    let p = coordinator_partition(&id, n);
    if json {
        outln!("{}", json!({ "topic": topic, "partition": p }));
    } else {
        let h = java_string_hash(&id);
        outln!(
            "\"{id}\".hashCode() = {h}; Utils.abs = {}; {} % {n} = {p}: the {what} is the leader of {topic}-{p}",
            kafka_abs(h),
            kafka_abs(h)
        );
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AssignRequest {
    partitions_per_topic: SortedMap<String, i32>,
    members: Vec<kafka_sim::assignor::MemberSubscription>,
    /// Topic → for each partition, its replicas' racks (KIP-881; with the
    /// members' `rack_id`).
    #[serde(default)]
    partition_racks: kafka_sim::assignor::PartitionRacks,
}

/// `kafka-sim assign`: what the group leader's assignor decides.
pub fn assign(a: AssignArgs) -> Res {
    use kafka_sim::client_config::AssignorName;
    let AssignArgs { strategy, json } = a;
    if matches!(strategy.as_str(), "server-range" | "uniform") {
        return assign_on_the_broker(&strategy, json);
    }
    let strategy = AssignorName::parse(&strategy).ok_or_else(|| {
        format!("--strategy: `{strategy}` is not an assignor (range, roundrobin, sticky, cooperative-sticky; on the broker, KIP-848: uniform, server-range)")
    })?;
    let req: AssignRequest = parse_request(&read_stdin()?)?;
    if req.members.is_empty() {
        return Err("bad request: members: a group needs at least one member".into());
    }
    if req.members.len() > MAX_MEMBERS {
        return Err(format!(
            "bad request: members: at most {MAX_MEMBERS} members"
        ));
    }
    let total: i64 = req
        .partitions_per_topic
        .values()
        .map(|n| i64::from(*n).max(0))
        .sum();
    if total > MAX_ASSIGN_PARTITIONS {
        return Err(format!(
            "bad request: partitions_per_topic: {total} partitions in all; at most {MAX_ASSIGN_PARTITIONS} are assigned at once"
        ));
    }
    for (t, racks) in req.partition_racks.iter() {
        let n = req.partitions_per_topic.get(t).copied().unwrap_or(0).max(0) as usize;
        if racks.len() != n {
            return Err(format!(
                "bad request: partition_racks.{t}: {} entries for {n} partition(s)",
                racks.len()
            ));
        }
    }
    let r = kafka_sim::assignor::assign_with_racks(
        strategy,
        &req.partitions_per_topic,
        &req.partition_racks,
        &req.members,
    )
    .map_err(|e| format!("bad request: {e}"))?;
    // Members in the order given, each list in the assignor's order.
    let list = |m: &str, map: &SortedMap<String, Vec<kafka_sim::assignor::PartitionName>>| {
        map.get(m)
            .map(|v| v.iter().map(|p| p.to_string()).collect::<Vec<_>>())
            .unwrap_or_default()
    };
    let ids: Vec<&str> = req.members.iter().map(|m| m.member_id.as_str()).collect();
    if json {
        let obj = |map| {
            let parts: Vec<String> = ids
                .iter()
                .map(|m| format!("{}:{}", json!(m), json!(list(m, map))))
                .collect();
            format!("{{{}}}", parts.join(","))
        };
        if strategy.is_cooperative() {
            outln!(
                "{{\"assignment\":{},\"revoke\":{}}}",
                obj(&r.assignment),
                obj(&r.revoke)
            );
        } else {
            outln!("{{\"assignment\":{}}}", obj(&r.assignment));
        }
    } else {
        outln!("{} assignment:", strategy.class_name());
        for m in &ids {
            let got = list(m, &r.assignment);
            let gone = list(m, &r.revoke);
            let mut line = format!("  {m}: [{}]", got.join(", "));
            if !gone.is_empty() {
                line.push_str(&format!("  revokes [{}]", gone.join(", ")));
            }
            outln!("{line}");
        }
        if strategy.is_cooperative() && r.revoke.values().any(|v| !v.is_empty()) {
            outln!("  (cooperative: revoked partitions are assigned in the next rebalance round)");
        }
    }
    Ok(())
}

/// `kafka-sim assign --strategy server-range|uniform`: the group
/// coordinator's assignor of the consumer group protocol (KIP-848).
fn assign_on_the_broker(strategy: &str, json: bool) -> Res {
    use kafka_sim::assignor::server;
    let req: server::ServerRequest = parse_request(&read_stdin()?)?;
    server::check_request(&req, MAX_MEMBERS, MAX_ASSIGN_PARTITIONS)
        .map_err(|e| format!("bad request: {e}"))?;
    let a = server::assign(strategy, &req)?;
    if json {
        outln!("{}", server::answer_json(&a));
    } else {
        outln!("{strategy} (group coordinator, group.protocol=consumer) assignment:");
        for (m, topics) in &a {
            let parts: Vec<String> = topics
                .iter()
                .flat_map(|(t, ps)| ps.iter().map(move |p| format!("{t}-{p}")))
                .collect();
            outln!("  {m}: [{}]", parts.join(", "));
        }
    }
    Ok(())
}

/// `kafka-sim exercise`: a practice question and the engine's answer.
pub fn exercise(a: ExerciseArgs) -> Res {
    use kafka_sim::exercises::{generate, Kind, Level};
    let ExerciseArgs {
        kind,
        level,
        seed,
        count,
        json,
    } = a;
    let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
    let kind = Kind::parse(&kind)
        .ok_or_else(|| format!("--kind: `{kind}` is not one of {}", kinds.join(", ")))?;
    let level = Level::parse(&level)
        .ok_or_else(|| format!("--level: `{level}` is not easy, medium or hard"))?;
    if !(1..=1000).contains(&count) {
        return Err(format!("--count must be between 1 and 1000, got {count}"));
    }
    let end = seed.checked_add(count).ok_or_else(|| {
        format!(
            "--seed {seed} with --count {count} runs past the largest seed ({})",
            u64::MAX
        )
    })?;
    for s in seed..end {
        let e = generate(kind, level, s);
        if json {
            outln!("{}", serde_json::to_string(&e).map_err(|e| e.to_string())?);
        } else {
            outln!(
                "[{} · {:?} · seed {s}] {}",
                kind.name(),
                level,
                e.question_en
            );
            outln!("  {}", e.question_zh);
            outln!("  choices: {}", e.choices.join(" | "));
            outln!("  answer: {} — {}", e.answer, e.explanation_en);
            outln!("  {}", e.explanation_zh);
        }
    }
    Ok(())
}
