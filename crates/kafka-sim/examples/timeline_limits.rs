//! Runs a scenario the way the page does (a `Timeline` keeping every event
//! and its checkpoints) up to an event cap, and reports what it took, for the
//! limits in docs/scenario-format.md. Measure memory around it:
//! `/usr/bin/time -v target/release/examples/timeline_limits SCENARIO.json [MAX_EVENTS] [metrics] [light] [memory=MB] [seeks=N]`
//! (`metrics`: sample the page's charts as the run goes, as the page does,
//! and time one read of every metric at the end, as the Metrics view does;
//! `light`: keep a light trace, as the page does (messages without their
//! record bytes); `memory=MB`: stop the run past MB held (counted by this example's
//! allocator, as the page's counts), as the page stops at `PAGE_MAX_BYTES`; `seeks=N`: time N
//! seeks to scattered steps instead of 20).
use kafka_sim::{Scenario, Timeline};
use std::sync::atomic::{AtomicU64, Ordering};

/// The system allocator, counting the bytes held (as the page's
/// `crate::alloc` does): what the run holds, apart from the allocator's
/// own overhead and the process's code.
struct Counting;
static HELD: AtomicU64 = AtomicU64::new(0);
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: std::alloc::Layout) -> *mut u8 {
        HELD.fetch_add(l.size() as u64, Ordering::Relaxed);
        std::alloc::System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: std::alloc::Layout) {
        HELD.fetch_sub(l.size() as u64, Ordering::Relaxed);
        std::alloc::System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: std::alloc::Layout, n: usize) -> *mut u8 {
        HELD.fetch_add(n as u64, Ordering::Relaxed);
        HELD.fetch_sub(l.size() as u64, Ordering::Relaxed);
        std::alloc::System.realloc(p, l, n)
    }
}
#[global_allocator]
static A: Counting = Counting;

fn held() -> u64 {
    HELD.load(Ordering::Relaxed)
}

/// The heap bytes what `f` builds holds (dropped again after counting).
fn deep(f: &dyn Fn() -> Box<dyn std::any::Any>) -> u64 {
    let before = held();
    let x = f();
    let n = held() - before;
    drop(x);
    n
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("SCENARIO.json [MAX_EVENTS]");
    let cap: u64 = args
        .next()
        .map(|n| n.parse().expect("MAX_EVENTS"))
        .unwrap_or(1_000_000);
    let rest: Vec<String> = args.collect();
    let metrics = rest.iter().any(|a| a == "metrics");
    // `light`: keep the trace light, as the page does.
    let light = rest.iter().any(|a| a == "light");
    // `memory=MB`: stop the run past MB held, as the page stops at
    // `PAGE_MAX_BYTES` of what its allocator holds.
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
    // `headless`: no checkpoints (what they cost is the difference).
    let mut t = if rest.iter().any(|a| a == "headless") {
        Timeline::headless(sc).expect("valid")
    } else {
        Timeline::new(sc).expect("valid")
    };
    t.set_max_events(cap);
    t.set_light_trace(light);
    if let Some(mb) = memory_mb {
        t.set_memory_limit(mb * 1_000_000, u64::MAX, held);
    }
    if metrics {
        t.sample_metrics(kafka_sim::metrics::Sampler::interval_for(
            t.scenario().run_until_ms,
        ));
    }
    // `delta=N`: what one checkpoint holds on its own, N events after it
    // (at half the cap): the whole, and the nodes that changed.
    if let Some(gap) = rest
        .iter()
        .find_map(|a| a.strip_prefix("delta="))
        .map(|n| n.parse::<u64>().expect("delta=N"))
    {
        let at = rest
            .iter()
            .find_map(|a| a.strip_prefix("at="))
            .map_or(cap / 2, |n| n.parse::<u64>().expect("at=N"));
        t.extend_to(at);
        let w1 = t.head().clone();
        let mut in_flight = 0u64;
        for (_, work) in w1.pending() {
            if let kafka_sim::sim::Work::Deliver { msg, .. } = work {
                if let kafka_sim::msg::Message::FetchResponse { partitions, .. } = &**msg {
                    in_flight += partitions
                        .iter()
                        .map(|p| p.records.len() as u64)
                        .sum::<u64>();
                }
            }
        }
        println!(
            "at {at}: {} MB of records in fetch responses in flight",
            in_flight / 1_000_000
        );
        t.extend_to(at + gap);
        let with = held();
        let w2 = t.head();
        let changed_b: Vec<_> = w1
            .brokers()
            .iter()
            .filter(|(id, b)| {
                w2.brokers()
                    .get(id)
                    .is_none_or(|b2| !std::sync::Arc::ptr_eq(b, b2))
            })
            .collect();
        let changed_c: Vec<_> = w1
            .consumers()
            .iter()
            .zip(w2.consumers())
            .filter(|(a, b)| !std::sync::Arc::ptr_eq(a, b))
            .collect();
        let bb: u64 = changed_b
            .iter()
            .map(|(_, b)| deep(&|| Box::new((***b).clone())))
            .sum();
        let cb: u64 = changed_c
            .iter()
            .map(|(c, _)| deep(&|| Box::new((***c).clone())))
            .sum();
        let (nb, nc) = (changed_b.len(), changed_c.len());
        drop(changed_b);
        drop(changed_c);
        drop(w1);
        let own = with.saturating_sub(held());
        println!(
            "(events {} → {}, {} ms) one checkpoint, {gap} events on: holds {} MB of its own; {nb} brokers changed ({} MB), {nc} consumers changed ({} MB), the rest {} MB",
            at,
            t.len(),
            t.head().now(),
            own / 1_000_000,
            bb / 1_000_000,
            cb / 1_000_000,
            own.saturating_sub(bb + cb) / 1_000_000
        );
        return;
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
    // Where the memory is: the whole run, then the trace alone (the same
    // events, copied: message bodies stay shared with the run's), then the
    // message bodies the trace keeps alive.
    let all = held();
    let before_copy = held();
    let copy: Vec<kafka_sim::event::Event> = t.events().to_vec();
    let events_bytes = held() - before_copy;
    drop(copy);
    let mut bodies = 0u64;
    let mut seen = std::collections::HashSet::new();
    let mut by_api: std::collections::BTreeMap<&str, (u64, u64)> = Default::default();
    for e in t.events() {
        if let kafka_sim::event::EventKind::MessageSent { message, .. } = &e.kind {
            if seen.insert(std::sync::Arc::as_ptr(message) as *const u8 as usize) {
                let n = message_bytes(message);
                bodies += n;
                let a = by_api.entry(message.api()).or_default();
                a.0 += 1;
                a.1 += n;
            }
        }
    }
    let mut apis: Vec<_> = by_api.into_iter().collect();
    apis.sort_by_key(|(_, (_, n))| std::cmp::Reverse(*n));
    for (api, (count, n)) in apis.iter().take(8) {
        println!("  {api}: {count} messages, about {} MB", n / 1_000_000);
    }
    println!(
        "held {} MB: the events themselves {} MB ({} B an event), the message bodies they keep {} MB, the rest (checkpoints, head, charts) {} MB",
        all / 1_000_000,
        events_bytes / 1_000_000,
        events_bytes / t.len().max(1),
        bodies / 1_000_000,
        all.saturating_sub(events_bytes + bodies) / 1_000_000
    );
    // What a checkpoint copies when every node changed since the last one:
    // each node's own heap (a clone copies what is not behind an `Arc`).
    {
        let w = t.head();
        let brokers: u64 = w
            .brokers()
            .values()
            .map(|b| deep(&|| Box::new((**b).clone())))
            .sum();
        let consumers: u64 = w
            .consumers()
            .iter()
            .map(|c| deep(&|| Box::new((**c).clone())))
            .sum();
        let producers: u64 = w
            .producers()
            .iter()
            .map(|c| deep(&|| Box::new((**c).clone())))
            .sum();
        let zk = deep(&|| Box::new(w.zookeeper().clone()));
        println!(
            "a node's own copy, all nodes: brokers {} MB ({} each), consumers {} MB ({} KB each), producers {} KB, ZooKeeper {} KB",
            brokers / 1_000_000,
            brokers / w.brokers().len().max(1) as u64,
            consumers / 1_000_000,
            consumers / 1000 / w.consumers().len().max(1) as u64,
            producers / 1000,
            zk / 1000
        );
    }
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

/// The bytes a message holds on the heap, counted by cloning it (shared
/// parts, such as a metadata table, are not copied by a clone).
fn message_bytes(m: &kafka_sim::msg::Message) -> u64 {
    let before = held();
    let copy = Box::new(m.clone());
    let n = held() - before;
    drop(copy);
    n
}
