//! The two metric libraries Kafka uses, on the simulated clock.
//!
//! * Brokers and the controller use **Yammer Metrics 2.2.0**
//!   (`com.yammer.metrics.core`): a [`Meter`] keeps a count and an
//!   exponentially weighted one-minute rate (`EWMA`, ticked every 5 s by the
//!   meter's tick thread from the moment it is created, α = 1 − e^(−5/60));
//!   a [`Histogram`] keeps a count, sum, min and max of every value and a
//!   reservoir for percentiles (`Snapshot.getValue`); a Timer is both.
//! * Clients use Kafka's own `org.apache.kafka.common.metrics`: a
//!   [`Sampled`] statistic (`SampledStat`: `WindowedSum`, `Avg`, `Max`)
//!   over `metrics.num.samples` = 2 windows of `metrics.sample.window.ms`
//!   = 30 s, and [`Sampled::rate`] (`Rate.measure` / `Rate.windowSize`,
//!   Kafka 3.9 `clients/.../metrics/stats/Rate.java`, lines 60-100).
//!
//! Two differences, both so that reading a metric is a pure function of the
//! trace:
//! * Kafka's `SampledStat.measure` purges expired samples as it reads (a read
//!   can move a later window's start). Here a read works on a copy.
//! * Yammer's biased histogram samples into an exponentially decaying
//!   reservoir with random priorities. Here the reservoir is the last 1,028
//!   values (Yammer's reservoir size), so percentiles are those of the most
//!   recent requests, with no randomness.

use crate::ids::Millis;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Yammer's `Meter` tick interval (`INTERVAL`, 5 seconds).
pub const TICK_MS: Millis = 5_000;

/// Yammer's `EWMA.M1_ALPHA`, 1 − e^(−5/60), written out: `f64::exp` is
/// the platform's (glibc natively, a Rust port in the browser), which may
/// differ in the last bit, and the page and the CLI must agree.
pub const M1_ALPHA: f64 = 0.07995558537067671;

/// `metrics.sample.window.ms` (clients' default, 30 s).
pub const SAMPLE_WINDOW_MS: Millis = 30_000;

/// `metrics.num.samples` (clients' default, 2).
pub const NUM_SAMPLES: usize = 2;

/// Yammer's `ExponentiallyDecayingReservoir` size (`DEFAULT_SIZE`, 1028).
pub const RESERVOIR: usize = 1028;

/// A Yammer `Meter`: a count and the one-minute exponentially weighted rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Meter {
    start_ms: Millis,
    next_tick_ms: Millis,
    count: u64,
    uncounted: u64,
    /// Events per second (`EWMA.getRate(SECONDS)`).
    rate: f64,
    initialized: bool,
}

impl Meter {
    /// A meter created at `now` (its tick thread starts then).
    pub fn new(now: Millis) -> Meter {
        Meter {
            start_ms: now,
            next_tick_ms: now + TICK_MS,
            count: 0,
            uncounted: 0,
            rate: 0.0,
            initialized: false,
        }
    }

    /// Runs the ticks due at or before `now` (`EWMA.tick`): the first sets
    /// the rate to the events of its interval per second, each later one
    /// moves it by α towards that.
    fn tick_to(&mut self, now: Millis) {
        let alpha = M1_ALPHA;
        while self.next_tick_ms <= now {
            let instant = self.uncounted as f64 / (TICK_MS as f64 / 1000.0);
            self.uncounted = 0;
            if self.initialized {
                self.rate += alpha * (instant - self.rate);
            } else {
                self.rate = instant;
                self.initialized = true;
            }
            self.next_tick_ms += TICK_MS;
        }
    }

    /// `mark(n)` at `now` (after the ticks due by then).
    pub fn mark(&mut self, n: u64, now: Millis) {
        self.tick_to(now);
        self.count += n;
        self.uncounted += n;
    }

    /// `count()`.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// `oneMinuteRate()` at `now`, per second.
    pub fn one_minute_rate(&self, now: Millis) -> f64 {
        let mut m = self.clone();
        m.tick_to(now);
        m.rate
    }

    /// `meanRate()` at `now`: every event since creation, per second.
    pub fn mean_rate(&self, now: Millis) -> f64 {
        if self.count == 0 || now <= self.start_ms {
            return 0.0;
        }
        self.count as f64 * 1000.0 / (now - self.start_ms) as f64
    }
}

/// A Yammer `Histogram` (biased): count, sum, min, max and recent values.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    count: u64,
    sum: f64,
    min: f64,
    max: f64,
    recent: VecDeque<f64>,
}

impl Histogram {
    /// Bytes its kept values take on the heap.
    pub fn heap_bytes(&self) -> u64 {
        (self.recent.capacity() * std::mem::size_of::<f64>()) as u64
    }

    /// `update(value)`.
    pub fn update(&mut self, v: f64) {
        if self.count == 0 {
            self.min = v;
            self.max = v;
        } else {
            self.min = self.min.min(v);
            self.max = self.max.max(v);
        }
        self.count += 1;
        self.sum += v;
        if self.recent.len() == RESERVOIR {
            self.recent.pop_front();
        }
        self.recent.push_back(v);
    }

    /// `count()`.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// `mean()`: of every value, 0 before the first.
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum / self.count as f64
        }
    }

    /// `max()`: 0 before the first value.
    pub fn max(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.max
        }
    }

    /// `Histogram.getSnapshot()`: the reservoir's values, sorted once, so
    /// that every quantile a reading reports comes from one sort.
    pub fn snapshot(&self) -> Snapshot {
        let mut v: Vec<f64> = self.recent.iter().copied().collect();
        v.sort_by(f64::total_cmp);
        Snapshot(v)
    }
}

/// The sorted values of a histogram's reservoir (`com.yammer.metrics.stats.Snapshot`).
pub struct Snapshot(Vec<f64>);

impl Snapshot {
    /// `Snapshot.getValue(quantile)`: linear between the two values around
    /// position `q × (n + 1)`; 0 when empty.
    pub fn value(&self, q: f64) -> f64 {
        let v = &self.0;
        if v.is_empty() {
            return 0.0;
        }
        let pos = q * (v.len() + 1) as f64;
        if pos < 1.0 {
            return v[0];
        }
        if pos >= v.len() as f64 {
            return v[v.len() - 1];
        }
        let lower = v[pos as usize - 1];
        let upper = v[pos as usize];
        lower + (pos - pos.floor()) * (upper - lower)
    }
}

/// What a [`Sampled`] statistic keeps per sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Combine {
    /// `WindowedSum` (and `Rate` over it): the sum of the samples.
    Sum,
    /// `Avg`: the samples' total over their event count (NaN with none).
    Avg,
    /// `Max`: the largest value (NaN with none).
    Max,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Sample {
    events: u64,
    start_ms: Millis,
    last_event_ms: Millis,
    value: f64,
}

impl Sample {
    fn new(initial: f64, now: Millis) -> Sample {
        Sample {
            events: 0,
            start_ms: now,
            last_event_ms: now,
            value: initial,
        }
    }
}

/// Kafka's `SampledStat` with the clients' default `MetricConfig`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sampled {
    combine: Combine,
    current: usize,
    samples: Vec<Sample>,
}

impl Sampled {
    /// Bytes its samples take on the heap.
    pub fn heap_bytes(&self) -> u64 {
        (self.samples.capacity() * std::mem::size_of::<Sample>()) as u64
    }

    /// An empty statistic.
    pub fn new(combine: Combine) -> Sampled {
        Sampled {
            combine,
            current: 0,
            samples: Vec::new(),
        }
    }

    fn initial(&self) -> f64 {
        match self.combine {
            Combine::Max => f64::NEG_INFINITY,
            _ => 0.0,
        }
    }

    /// `SampledStat.record(config, value, timeMs)`.
    pub fn record(&mut self, value: f64, now: Millis) {
        let initial = self.initial();
        if self.samples.is_empty() {
            self.samples.push(Sample::new(initial, now));
        }
        if now.saturating_sub(self.samples[self.current].start_ms) >= SAMPLE_WINDOW_MS {
            // `advance`: one extra slot for the sample overlapping the window.
            self.current = (self.current + 1) % (NUM_SAMPLES + 1);
            if self.current >= self.samples.len() {
                self.samples.push(Sample::new(initial, now));
            } else {
                self.samples[self.current] = Sample::new(initial, now);
            }
        }
        let s = &mut self.samples[self.current];
        match self.combine {
            Combine::Max => s.value = s.value.max(value),
            _ => s.value += value,
        }
        s.events += 1;
        s.last_event_ms = now;
    }

    /// The samples left after `purgeObsoleteSamples` at `now`.
    fn purged(&self, now: Millis) -> Vec<Sample> {
        let expire = NUM_SAMPLES as Millis * SAMPLE_WINDOW_MS;
        let initial = self.initial();
        self.samples
            .iter()
            .map(|s| {
                if now.saturating_sub(s.last_event_ms) >= expire {
                    Sample::new(initial, now)
                } else {
                    *s
                }
            })
            .collect()
    }

    /// `measure(config, now)`: the combined value.
    pub fn measure(&self, now: Millis) -> f64 {
        let samples = self.purged(now);
        let events: u64 = samples.iter().map(|s| s.events).sum();
        match self.combine {
            Combine::Sum => samples.iter().fold(0.0, |t, s| t + s.value),
            Combine::Avg if events == 0 => f64::NAN,
            Combine::Avg => samples.iter().fold(0.0, |t, s| t + s.value) / events as f64,
            Combine::Max if events == 0 => f64::NAN,
            Combine::Max => samples
                .iter()
                .map(|s| s.value)
                .fold(f64::NEG_INFINITY, f64::max),
        }
    }

    /// `Rate.measure` over this statistic, per second: the value over
    /// `windowSize`, which counts at least `samples − 1` full windows plus
    /// the time since the oldest sample started, and never less than 1 ms.
    pub fn rate(&self, now: Millis) -> f64 {
        let samples = self.purged(now);
        let oldest = samples.iter().map(|s| s.start_ms).min().unwrap_or(now);
        let mut elapsed = now.saturating_sub(oldest);
        let full = elapsed / SAMPLE_WINDOW_MS;
        let min_full = NUM_SAMPLES as Millis - 1;
        if full < min_full {
            elapsed += (min_full - full) * SAMPLE_WINDOW_MS;
        }
        self.measure(now) / (elapsed.max(1) as f64 / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha_is_yammers() {
        let computed = 1.0 - (-(TICK_MS as f64) / 60_000.0).exp();
        assert!((M1_ALPHA - computed).abs() < 1e-15);
    }

    #[test]
    fn a_meter_rates_its_first_tick_then_decays_by_alpha() {
        let mut m = Meter::new(0);
        m.mark(10, 1_000);
        // Before the first tick the rate is 0.
        assert_eq!(m.one_minute_rate(4_999), 0.0);
        // First tick at 5 s: 10 events / 5 s.
        assert_eq!(m.one_minute_rate(5_000), 2.0);
        // Second tick with nothing new: 2 + α (0 − 2).
        let alpha = 1.0 - (-1.0f64 / 12.0).exp();
        let want = 2.0 - alpha * 2.0;
        assert!((m.one_minute_rate(10_000) - want).abs() < 1e-12);
        assert_eq!(m.count(), 10);
        assert_eq!(m.mean_rate(10_000), 1.0);
        // A mark lands in the interval after the ticks due by then.
        m.mark(5, 10_000);
        assert!((m.one_minute_rate(14_999) - want).abs() < 1e-12);
        let third = want + alpha * (1.0 - want);
        assert!((m.one_minute_rate(15_000) - third).abs() < 1e-12);
    }

    #[test]
    fn a_rate_counts_at_least_one_full_window_before_its_first_sample_ends() {
        let mut s = Sampled::new(Combine::Sum);
        s.record(30.0, 0);
        // 10 s after the first record: 30 over (10 s + one full window of 30 s).
        assert_eq!(s.rate(10_000), 30.0 / 40.0);
        // A second sample opens at 30 s; at 45 s the window is 45 s.
        s.record(15.0, 30_000);
        assert_eq!(s.rate(45_000), 45.0 / 45.0);
        // The first sample expires 60 s after its last event (it restarts
        // empty at `now`): 15 left, over the 30 s since the second began.
        assert_eq!(s.rate(60_000), 15.0 / 30.0);
        // Nothing recorded for two windows: 0.
        assert_eq!(s.rate(200_000), 0.0);
    }

    #[test]
    fn avg_and_max_are_nan_without_events() {
        let mut a = Sampled::new(Combine::Avg);
        let mut m = Sampled::new(Combine::Max);
        assert!(a.measure(0).is_nan());
        assert!(m.measure(0).is_nan());
        for (v, t) in [(4.0, 0), (8.0, 1_000), (3.0, 40_000)] {
            a.record(v, t);
            m.record(v, t);
        }
        assert_eq!(a.measure(40_000), 5.0);
        assert_eq!(m.measure(40_000), 8.0);
        // 60 s after 8 was recorded its sample expires; 3 remains.
        assert_eq!(m.measure(61_000), 3.0);
        assert!(a.measure(100_000).is_nan());
    }

    #[test]
    fn histogram_quantiles_follow_yammer_snapshot() {
        let mut h = Histogram::default();
        assert_eq!(h.snapshot().value(0.99), 0.0);
        for v in [10.0, 20.0, 30.0, 40.0] {
            h.update(v);
        }
        // pos = 0.5 × 5 = 2.5: between 20 and 30.
        assert_eq!(h.snapshot().value(0.5), 25.0);
        // pos = 0.99 × 5 = 4.95 ≥ 4: the largest.
        assert_eq!(h.snapshot().value(0.99), 40.0);
        assert_eq!(h.mean(), 25.0);
        for _ in 0..RESERVOIR {
            h.update(1.0);
        }
        assert_eq!(h.snapshot().value(0.99), 1.0);
        assert_eq!(h.max(), 40.0);
    }
}
