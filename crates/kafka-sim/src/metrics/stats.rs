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
//! The biased histogram's percentiles come from Yammer 2.2.0's
//! `ExponentiallyDecayingSample` (1,028 values, α = 0.015 per second): each
//! value gets the priority e^(α·(t − start)) / u, u uniform from a
//! `java.util.Random` sequence with a fixed seed (Kafka's is seeded from the
//! clock; here it is fixed so that the page and the CLI agree), and once
//! full the lowest priority goes. An hour after the last rescale, the next
//! update moves `start` to now and scales every priority down.
//!
//! Two differences, both so that reading a metric is a pure function of the
//! trace:
//! * Kafka's `SampledStat.measure` purges expired samples as it reads (a read
//!   can move a later window's start). Here a read works on a copy.
//! * e^(α·k) for whole seconds k is computed by multiplying a written-out
//!   e^α (`Math.exp` and Rust's `exp` may differ in the last bit, as may
//!   the platform's and the browser's), so priorities can differ from
//!   Java's in their last bits.

use crate::ids::Millis;
use serde::{Deserialize, Serialize};
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

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

/// Yammer 2.2.0's biased sample size (`Histogram.DEFAULT_SAMPLE_SIZE`, 1028).
pub const RESERVOIR: usize = 1028;

/// e^α for `Histogram.DEFAULT_ALPHA` = 0.015 per second, written out.
const E_ALPHA: f64 = 1.015_113_064_615_719;

/// `ExponentiallyDecayingSample.RESCALE_THRESHOLD`: one hour.
const RESCALE_THRESHOLD_MS: Millis = 3_600_000;

/// e^(α·k) for a whole number of seconds k (negative: the inverse), by
/// squaring: the same bits on every platform.
fn decay_weight(k: i64) -> f64 {
    let mut base = if k < 0 { 1.0 / E_ALPHA } else { E_ALPHA };
    let mut n = k.unsigned_abs();
    let mut out = 1.0;
    while n > 0 {
        if n & 1 == 1 {
            out *= base;
        }
        base *= base;
        n >>= 1;
    }
    out
}

/// `java.util.Random`: the 48-bit linear congruential generator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct JavaRandom(u64);

impl JavaRandom {
    const MULTIPLIER: u64 = 0x5_DEEC_E66D;
    const MASK: u64 = (1 << 48) - 1;

    fn new(seed: u64) -> Self {
        JavaRandom((seed ^ Self::MULTIPLIER) & Self::MASK)
    }

    fn next(&mut self, bits: u32) -> u64 {
        self.0 = (self.0.wrapping_mul(Self::MULTIPLIER).wrapping_add(0xB)) & Self::MASK;
        self.0 >> (48 - bits)
    }

    /// `nextDouble()`: 53 random bits in [0, 1).
    fn next_double(&mut self) -> f64 {
        ((self.next(26) << 27) + self.next(27)) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// One value of the decaying sample and its priority; ordered by priority.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Weighted {
    priority: f64,
    value: f64,
}

impl Eq for Weighted {}
impl PartialOrd for Weighted {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Weighted {
    fn cmp(&self, other: &Self) -> Ordering {
        self.priority.total_cmp(&other.priority)
    }
}

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

/// A Yammer `Histogram` (biased): count, sum, min and max of every value,
/// and an `ExponentiallyDecayingSample` of them for percentiles.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Histogram {
    count: u64,
    sum: f64,
    min: f64,
    max: f64,
    /// The sample, lowest priority on top.
    sample: BinaryHeap<Reverse<Weighted>>,
    /// Updates since the last rescale (the sample's own `count`).
    sample_count: u64,
    /// `startTime`, whole seconds.
    start_s: i64,
    next_scale_ms: Millis,
    random: JavaRandom,
}

impl PartialEq for Histogram {
    fn eq(&self, o: &Self) -> bool {
        (
            self.count,
            self.sample_count,
            self.start_s,
            self.next_scale_ms,
        ) == (o.count, o.sample_count, o.start_s, o.next_scale_ms)
            && (self.sum, self.min, self.max) == (o.sum, o.min, o.max)
            && self.random == o.random
            && self.sample.as_slice() == o.sample.as_slice()
    }
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram::new(0)
    }
}

impl Histogram {
    /// A histogram created at `now` (`clear()`: the sample starts then).
    pub fn new(now: Millis) -> Histogram {
        Histogram {
            count: 0,
            sum: 0.0,
            min: 0.0,
            max: 0.0,
            sample: BinaryHeap::new(),
            sample_count: 0,
            start_s: (now / 1000) as i64,
            next_scale_ms: now + RESCALE_THRESHOLD_MS,
            random: JavaRandom::new(0x004b_6166_6b61),
        }
    }

    /// Bytes its kept values take on the heap.
    pub fn heap_bytes(&self) -> u64 {
        (self.sample.capacity() * std::mem::size_of::<Weighted>()) as u64
    }

    /// `update(value)` at `now`.
    pub fn update(&mut self, v: f64, now: Millis) {
        if self.count == 0 {
            self.min = v;
            self.max = v;
        } else {
            self.min = self.min.min(v);
            self.max = self.max.max(v);
        }
        self.count += 1;
        self.sum += v;
        self.sample_update(v, now);
    }

    /// `ExponentiallyDecayingSample.update(value, timestamp)` (2.2.0,
    /// lines 90-117).
    fn sample_update(&mut self, v: f64, now: Millis) {
        if now >= self.next_scale_ms {
            self.rescale(now);
        }
        let t = (now / 1000) as i64;
        let priority = decay_weight(t - self.start_s) / self.random.next_double();
        let w = Weighted { priority, value: v };
        self.sample_count += 1;
        // Kafka's sample is a map keyed by priority: a draw equal to a kept
        // priority (a chance of about 2^-53) would replace its value or be
        // dropped; here both are kept, so that an update costs O(log n).
        if self.sample_count as usize <= RESERVOIR {
            self.sample.push(Reverse(w));
            return;
        }
        // Full: the lowest priority goes if the new one is higher.
        if self
            .sample
            .peek()
            .is_some_and(|first| first.0.priority < priority)
        {
            self.sample.pop();
            self.sample.push(Reverse(w));
        }
    }

    /// `rescale` (lines 163-181): start again at now, every priority
    /// scaled by e^(−α·(new start − old start)); priorities that become
    /// equal collapse into one, and the count is the sample's size.
    fn rescale(&mut self, now: Millis) {
        self.next_scale_ms = now + RESCALE_THRESHOLD_MS;
        let old = self.start_s;
        self.start_s = (now / 1000) as i64;
        let factor = decay_weight(-(self.start_s - old));
        let mut all: Vec<Weighted> = std::mem::take(&mut self.sample)
            .into_iter()
            .map(|Reverse(mut w)| {
                w.priority *= factor;
                w
            })
            .collect();
        all.sort();
        all.dedup_by(|later, kept| {
            if later.priority == kept.priority {
                kept.value = later.value;
                true
            } else {
                false
            }
        });
        self.sample_count = all.len() as u64;
        self.sample = all.into_iter().map(Reverse).collect();
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
        let mut v: Vec<f64> = self.sample.iter().map(|w| w.0.value).collect();
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
            h.update(v, 1000);
        }
        // pos = 0.5 × 5 = 2.5: between 20 and 30.
        assert_eq!(h.snapshot().value(0.5), 25.0);
        // pos = 0.99 × 5 = 4.95 ≥ 4: the largest.
        assert_eq!(h.snapshot().value(0.99), 40.0);
        assert_eq!(h.mean(), 25.0);
        // Up to 1,028 values the sample holds them all.
        for _ in 0..RESERVOIR - 4 {
            h.update(1.0, 2000);
        }
        assert_eq!(h.snapshot().0.len(), RESERVOIR);
        assert_eq!(h.snapshot().value(1.0), 40.0);
        assert_eq!(h.max(), 40.0);
    }

    /// `java.util.Random`'s sequence: `new Random(42).nextDouble()` is
    /// 0.7275636800328681, then 0.6832234717598454 (from the JDK).
    #[test]
    fn java_random_gives_the_jdks_doubles() {
        let mut r = JavaRandom::new(42);
        assert_eq!(r.next_double(), 0.7275636800328681);
        assert_eq!(r.next_double(), 0.6832234717598454);
    }

    /// The decay weight is e^(0.015 k) to within 1e-12 (the squarings
    /// add a rounding each).
    #[test]
    fn the_decay_weight_is_e_to_alpha_k() {
        for k in [-3600i64, -60, -1, 0, 1, 7, 60, 600, 3600] {
            let want = (0.015 * k as f64).exp();
            let got = decay_weight(k);
            assert!(((got - want) / want).abs() < 1e-12, "{k}: {got} vs {want}");
        }
    }

    /// Yammer 2.2.0's biased sample: once full, a newer value (higher
    /// priority, the weight grows e^(αt)) usually replaces an older one, so
    /// after 1,028 values of 100 ms and then 1,028 of 1 ms ten minutes
    /// later, the sample is mostly the recent ones, but not only them (the
    /// last-1,028 window it replaced held none of the old). An hour later
    /// the next update rescales.
    #[test]
    fn the_sample_decays_towards_recent_values_and_rescales_hourly() {
        let mut h = Histogram::new(0);
        for i in 0..RESERVOIR as u64 {
            h.update(100.0, i * 10);
        }
        for i in 0..RESERVOIR as u64 {
            h.update(1.0, 600_000 + i * 10);
        }
        let snap = h.snapshot();
        let old = snap.0.iter().filter(|v| **v == 100.0).count();
        assert_eq!(snap.0.len(), RESERVOIR);
        // e^(0.015 × 600) ≈ 8,100: an old value survives only if its draw
        // was about 8,100 times smaller than the newcomers'.
        assert!(old < 20, "{old} old values kept");
        assert_eq!(h.snapshot().value(0.5), 1.0);
        assert_eq!((h.count(), h.max()), (2 * RESERVOIR as u64, 100.0));
        assert_eq!(h.start_s, 0);
        h.update(5.0, RESCALE_THRESHOLD_MS + 1);
        assert_eq!(h.start_s, 3600);
        assert!(h.sample_count <= RESERVOIR as u64 + 1);
        // Deterministic: the same updates give the same sample.
        let mut again = Histogram::new(0);
        for i in 0..RESERVOIR as u64 {
            again.update(100.0, i * 10);
        }
        for i in 0..RESERVOIR as u64 {
            again.update(1.0, 600_000 + i * 10);
        }
        assert_eq!(again.snapshot().0, snap.0);
    }
}
