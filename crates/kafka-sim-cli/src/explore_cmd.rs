//! `kafka-sim explore SCENARIO.json --guarantee NAME …`: the counterexample
//! finder ([`kafka_sim::explore`]) on the command line. Prints one JSON
//! object: the shrunk counterexample as a scenario ready for
//! `kafka-sim run`, or what was searched and that nothing broke. Exit 0 in
//! both cases; 2 for bad input.

use crate::cli::ExploreArgs;
use crate::commands::load_scenario;
use crate::outln;
use kafka_sim::explore::exhaustive::Exhaustive;
use kafka_sim::explore::shrink::Shrinker;
use kafka_sim::explore::{
    guarantee_name, parse_guarantee, Counterexample, FaultKind, Request, Search,
};
use serde_json::{json, Value};
use std::time::Instant;

type Res = Result<(), String>;

/// The longest budget one call may ask for (an hour).
const MAX_BUDGET_S: f64 = 3600.0;

fn ms(t: Instant) -> u64 {
    t.elapsed().as_millis() as u64
}

fn counterexample(c: &Counterexample) -> Value {
    json!({
        "faults": c.faults,
        "events": c.events,
        "violation": c.violation,
        "scenario": c.scenario,
    })
}

pub fn explore(a: ExploreArgs) -> Res {
    let guarantee = parse_guarantee(&a.guarantee).map_err(|e| format!("--guarantee: {e}"))?;
    let kinds = FaultKind::parse_list(&a.faults).map_err(|e| format!("--faults: {e}"))?;
    if !(a.budget_s > 0.0 && a.budget_s <= MAX_BUDGET_S) {
        return Err(format!(
            "--budget-s: {} is not between 0 and {MAX_BUDGET_S} seconds",
            a.budget_s
        ));
    }
    if a.max_faults == 0 || a.max_faults > 20 {
        return Err(format!(
            "--max-faults: {} is not between 1 and 20",
            a.max_faults
        ));
    }
    let base = load_scenario(&a.scenario)?;
    let budget = std::time::Duration::from_secs_f64(a.budget_s);
    let start = Instant::now();
    let name = guarantee_name(guarantee);
    let (found, searched, bounds) = if a.exhaustive {
        let mut x = Exhaustive::new(base, guarantee, &kinds, a.max_faults, a.first_events)
            .map_err(|e| format!("{}: {e}", a.scenario))?;
        while start.elapsed() < budget && x.step() {}
        let report = x.report();
        let complete = x.finished();
        let searched = json!({
            "schedules": report.schedules,
            "merged": report.merged,
            "states": report.states,
            "complete": complete,
            "ms": ms(start),
        });
        (
            x.found().cloned(),
            searched,
            serde_json::to_value(&report.bounds).unwrap_or_default(),
        )
    } else {
        let mut s = Search::new(
            base,
            Request {
                guarantee,
                faults: kinds.clone(),
                max_faults: a.max_faults,
                seed: a.seed,
            },
        )
        .map_err(|e| format!("{}: {e}", a.scenario))?;
        let mut first_ms = None;
        while start.elapsed() < budget && !s.finished() {
            s.step();
            if first_ms.is_none() && s.found().is_some() {
                first_ms = Some(ms(start));
            }
        }
        let searched = json!({
            "schedules": s.tried(),
            "first_found_ms": first_ms,
            "ms": ms(start),
            "schedules_per_s": (s.tried() as f64 / start.elapsed().as_secs_f64().max(1e-9)).round(),
        });
        let bounds = json!({
            "max_faults": a.max_faults,
            "kinds": kinds,
            "seed": a.seed,
            "budget_s": a.budget_s,
        });
        (s.found().cloned(), searched, bounds)
    };
    let Some(found) = found else {
        let out =
            json!({"found": false, "guarantee": name, "searched": searched, "bounds": bounds});
        outln!("{out}");
        return Ok(());
    };
    // Shrink, with as long again as the search had.
    let first = counterexample(&found);
    let shrink_start = Instant::now();
    let mut sh = Shrinker::new(found, guarantee);
    while shrink_start.elapsed() < budget && sh.step() {}
    let (tried, kept) = sh.counts();
    let best = sh.best();
    let mut out = json!({
        "found": true,
        "guarantee": name,
        "faults": best.faults,
        "events": best.events,
        "violation": best.violation,
        "searched": searched,
        "bounds": bounds,
        "shrink": {"candidates": tried, "kept": kept, "complete": sh.done(), "ms": ms(shrink_start), "from": {"faults": first["faults"], "events": first["events"]}},
        "scenario": best.scenario,
    });
    out["total_ms"] = json!(ms(start));
    outln!("{out}");
    Ok(())
}
