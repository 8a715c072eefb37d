//! What one step of the page costs natively, piece by piece, on the scale
//! scenario (100 brokers, 3,000 partitions at RF 3, groups of 40): the
//! player's step, then each model the page builds for the Cluster view, as
//! the page builds them (with what the last render kept). No DOM: the
//! browser's share is in `tests/perf.rs` (`scale_scenarios_in_the_page`).
//!
//!   cargo run --release --example page_step [GROUPS] [AT] [STEPS] [one-topic]
//!
//! (defaults: 40 groups, from event 500,000, 50 steps; `one-topic`: issue
//! 46's scenario, every group on one topic). Figures are wall
//! time on this machine and are printed, never asserted.

use kafka_visualiser::app::{log_lines, Captions};
use kafka_visualiser::components::election::ElectionModel;
use kafka_visualiser::components::placement::PlacementModel;
use kafka_visualiser::i18n::Lang;
use kafka_visualiser::model::cluster::{zk_rows, ClusterCache, ClusterModel};
use kafka_visualiser::player::Player;
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let arg = |i: usize, default: u64| {
        std::env::args()
            .nth(i)
            .map(|s| s.parse().expect("a whole number"))
            .unwrap_or(default)
    };
    let (groups, at, steps) = (arg(1, 40), arg(2, 500_000), arg(3, 50));
    let text = if std::env::args().any(|a| a == "one-topic") {
        kafka_sim::scenario::scale::one_topic(3000, groups as usize, 40)
    } else {
        kafka_sim::scenario::scale::scale(3000, groups as usize, 40)
    };
    let t = Instant::now();
    let mut p = Player::from_json(&text).expect("the scale scenario is valid");
    let mut to = 0;
    while to < at {
        to = (to + 50_000).min(at);
        p.seek(to);
    }
    println!(
        "100 brokers, 3,000 partitions, {groups} group(s) of 40: ran to event {} in {:.1} s",
        p.cursor(),
        t.elapsed().as_secs_f64()
    );
    let (mut captions, mut cluster) = (Captions::default(), ClusterCache::default());
    let mut zk_seen = None;
    let labels = [
        "step (routine hidden)",
        "log lines",
        "election panel",
        "cluster model",
        "placement (when ZooKeeper changed)",
        "ZooKeeper rows (when it changed)",
        "metrics view: readings",
        "metrics view: samples copied",
        "metrics view: what moved",
    ];
    let mut ms = [0.0f64; 9];
    let mut last_readings: Vec<kafka_sim::metrics::Reading> = Vec::new();
    let mut time = |i: usize, f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        ms[i] += t.elapsed().as_secs_f64() * 1e3;
    };
    for _ in 0..steps {
        time(0, &mut || {
            p.step_significant();
        });
        let names = kafka_sim::names::ClientNames::from_world(p.world());
        let mine = Default::default();
        time(1, &mut || {
            black_box(log_lines(&p, Lang::En, true, &mine, &names, &mut captions));
        });
        time(2, &mut || {
            black_box(ElectionModel::latest(&p));
        });
        time(3, &mut || {
            let times = |i: u64| p.event(i).map(|e| e.time_ms);
            let mut m =
                ClusterModel::from_world_cached(p.world(), p.time_ms(), times, None, &mut cluster);
            m.mark_truncations(p.past());
            black_box(m);
        });
        let mut now = Vec::new();
        time(6, &mut || {
            let w = p.world();
            now = kafka_sim::metrics::read_with(w, w.metrics().last_event_ms(), false);
        });
        time(8, &mut || {
            black_box(kafka_sim::metrics::previous(&last_readings, &now));
        });
        last_readings = now;
        time(7, &mut || {
            black_box(p.metric_samples().to_vec());
        });
        let zk = Some(p.world().zookeeper().writes());
        if zk != zk_seen {
            zk_seen = zk;
            time(4, &mut || {
                black_box(PlacementModel::from_world(p.world()));
            });
            time(5, &mut || {
                black_box(zk_rows(p.world(), None));
            });
        }
    }
    // A jump (a seek far away): the player's seek, then the models built
    // again with the caches of the last place.
    let end = p.known_len();
    let (mut seek_ms, mut model_ms, mut log_ms) = (0.0, 0.0, 0.0);
    let mut x: u64 = 11;
    for _ in 0..10 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let t = Instant::now();
        p.seek((x >> 33) % (end + 1));
        seek_ms += t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let times = |i: u64| p.event(i).map(|e| e.time_ms);
        let mut m =
            ClusterModel::from_world_cached(p.world(), p.time_ms(), times, None, &mut cluster);
        m.mark_truncations(p.past());
        black_box(m);
        model_ms += t.elapsed().as_secs_f64() * 1e3;
        let names = kafka_sim::names::ClientNames::from_world(p.world());
        let mine = Default::default();
        let t = Instant::now();
        black_box(log_lines(&p, Lang::En, true, &mine, &names, &mut captions));
        log_ms += t.elapsed().as_secs_f64() * 1e3;
    }
    println!(
        "a jump: the seek {:.2} ms, the cluster model {:.2} ms, the log lines {:.2} ms (average of 10)",
        seek_ms / 10.0,
        model_ms / 10.0,
        log_ms / 10.0
    );
    for (name, total) in labels.iter().zip(ms) {
        println!("{name:36} {:8.2} ms a step", total / steps as f64);
    }
    println!(
        "{:36} {:8.2} ms a step",
        "all",
        ms.iter().sum::<f64>() / steps as f64
    );
}
