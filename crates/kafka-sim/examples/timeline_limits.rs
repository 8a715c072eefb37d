//! Runs a scenario the way the page does (a `Timeline` keeping every event
//! and its checkpoints) up to an event cap, and reports what it took, for the
//! limits in docs/scenario-format.md. Measure memory around it:
//! `/usr/bin/time -v target/release/examples/timeline_limits SCENARIO.json [MAX_EVENTS] [metrics] [memory=MB] [seeks=N]`
//! (`metrics`: sample the page's charts as the run goes, as the page does,
//! and time one read of every metric at the end, as the Metrics view does;
//! `memory=MB`: stop the run past MB of resident memory, as the page stops
//! at `PAGE_MAX_BYTES` of what its allocator holds; `seeks=N`: time N
//! seeks to scattered steps instead of 20).
use kafka_sim::{Scenario, Timeline};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("SCENARIO.json [MAX_EVENTS]");
    let cap: u64 = args
        .next()
        .map(|n| n.parse().expect("MAX_EVENTS"))
        .unwrap_or(1_000_000);
    let rest: Vec<String> = args.collect();
    let metrics = rest.iter().any(|a| a == "metrics");
    // `memory=MB`: stop the run past MB of resident memory (Linux), as the
    // page stops at `PAGE_MAX_BYTES` of what its allocator holds.
    let memory_mb: Option<u64> = rest
        .iter()
        .find_map(|a| a.strip_prefix("memory="))
        .map(|n| n.parse().expect("memory=MB"));
    // `seeks=N`: how many seeks to time (20 by default).
    let seek_count: usize = rest
        .iter()
        .find_map(|a| a.strip_prefix("seeks="))
        .map_or(20, |n| n.parse().expect("seeks=N"));
    let text = std::fs::read_to_string(&path).expect("readable");
    let sc = Scenario::from_json(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let t0 = std::time::Instant::now();
    let mut t = Timeline::new(sc).expect("valid");
    t.set_max_events(cap);
    if let Some(mb) = memory_mb {
        t.set_memory_limit(mb * 1_000_000, u64::MAX, resident_bytes);
    }
    if metrics {
        t.sample_metrics(kafka_sim::metrics::Sampler::interval_for(
            t.scenario().run_until_ms,
        ));
    }
    t.run_to_end();
    let ran = t0.elapsed();
    let t1 = std::time::Instant::now();
    let _ = t.state_at(t.len() / 2);
    let middle = t1.elapsed();
    // Seeks to 20 steps spread over the run (a fixed sequence, so runs
    // compare), as a learner's clicks on the timeline would be.
    let mut x: u64 = 7;
    let mut seeks = Vec::new();
    for _ in 0..seek_count {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let n = (x >> 33) % (t.len() + 1);
        let t2 = std::time::Instant::now();
        let _ = t.state_at(n);
        seeks.push(t2.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "{} events, {} checkpoints, simulated to {} ms in {:.2} s; a seek to the middle {:.1} ms; {} seeks {:.1} ms on average (worst {:.1}); stopped early: {}; a world's copy {} MB by the estimate",
        t.len(),
        t.checkpoints(),
        t.head().now(),
        ran.as_secs_f64(),
        middle.as_secs_f64() * 1000.0,
        seeks.len(),
        seeks.iter().sum::<f64>() / seeks.len() as f64,
        seeks.iter().copied().fold(0.0, f64::max),
        t.stopped_early().unwrap_or_else(|| "no".into()),
        t.head().approx_clone_bytes() / 1_000_000
    );
    if metrics {
        let w = t.state_at(t.len());
        let t2 = std::time::Instant::now();
        let rs = kafka_sim::metrics::read_with(&w, w.metrics().last_event_ms(), false);
        let read = t2.elapsed();
        let t3 = std::time::Instant::now();
        let _ = kafka_sim::metrics::chart_values(&w, w.metrics().last_event_ms());
        println!(
            "{} chart samples; reading {} metrics (no per-partition ones) {:.1} ms; one chart sample {:.1} ms",
            t.metric_samples().len(),
            rs.len(),
            read.as_secs_f64() * 1000.0,
            t3.elapsed().as_secs_f64() * 1000.0
        );
    }
}

/// Resident memory, from `/proc/self/statm` (pages of 4 KiB); 0 elsewhere.
fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}
