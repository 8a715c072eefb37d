//! The timeline: a scenario's trace, with checkpoints for seeking.
//!
//! The timeline runs the world forward and keeps every event. Every so many
//! events it keeps a clone of the world at a step boundary (a checkpoint; the
//! segment pages are shared, so this is cheap). To show the state *at* event
//! `n` it restores the nearest checkpoint at or before `n` and replays with an
//! event budget of `n` (see `sim/mod.rs`): stepping back is a restore and a short
//! replay. At most [`MAX_CHECKPOINTS`] are kept: when there are more, every
//! other one goes and the spacing doubles, so memory stays bounded and a seek
//! replays at most one spacing's worth of events. Beside them, the newest
//! stretch of the trace keeps [`RECENT_CHECKPOINTS`] more, a quarter
//! spacing apart: the thinning leaves the gap before the head up to two
//! spacings wide, and stepping back from the end of a run (where a learner
//! is after playing it) would replay all of it.

use crate::config::ConfigError;
use crate::event::Event;
use crate::scenario::Scenario;
use crate::sim::World;
use std::sync::Arc;

/// The most checkpoints kept (their spacing doubles when there would be more).
pub const MAX_CHECKPOINTS: usize = 256;
/// Memory the checkpoints may take, roughly (they share segment pages):
/// more than [`MIN_CHECKPOINTS`] are kept only while they fit it.
pub const CHECKPOINT_BUDGET_BYTES: u64 = 128 * 1024 * 1024;
/// What the [`MIN_CHECKPOINTS`] may take, by `World::approx_clone_bytes`:
/// a world too large for that many keeps as many as fit, and never fewer
/// than 8 (as every world did before). 30,000 partitions of 3 replicas
/// with 2,000 clients (the most a scenario may declare) come to about 10.
pub const CHECKPOINT_CEILING_BYTES: u64 = 2560 * 1024 * 1024;
/// The most checkpoints always allowed, whatever a world's size (the
/// budget allows more only for small worlds). A seek replays up to one
/// spacing, so this sets how long a seek on a large world takes; each
/// checkpoint costs about what the head changed since the one before
/// (12 MB at 1 group, 22 MB at 40 groups below).
///
/// 100 brokers / 3,000 partitions, a million events (the page's cap). Native:
/// `examples/timeline_limits.rs` (20 seeks to spread steps, peak RSS). Page:
/// `tests/perf.rs` `scale_scenarios` (10 seeks, wasm memory), this 2-core
/// machine, one session:
///
/// | most kept | 40 groups of 40, native | 1 group, native | 40 groups, page |
/// | --- | --- | --- | --- |
/// | 8 | 12 kept, 161 ms, 2.11 GB | 11 kept, 192 ms, 0.91 GB | 298 ms, 2,280 MB |
/// | 32 | 35 kept, 70 ms, 2.69 GB | 29 kept, 57 ms, 1.14 GB | 151 ms, 2,317 MB |
/// | 64 | 65 kept, 36 ms, 3.17 GB | 52 kept, 28 ms, 1.40 GB | 99 ms, 2,729 MB |
///
/// ("Kept" counts the 4 recent ones too; halving leaves between half and
/// all of the most allowed.) 64 buys the page's seek target (100 ms) at 40
/// groups of 40 for about 450 MB of wasm memory. Other sizes, natively,
/// 8 -> 64 (`scripts/scale-report.sh`): 10,000 partitions and 1 group keep
/// 47, 1.81 -> 2.88 GB, seek 323 -> 34 ms; 20,000 keep 20, 3.22 -> 3.44 GB,
/// 419 -> 197 ms; 30,000 (the most) keep 12 as before, 5.4 GB either way.
pub const MIN_CHECKPOINTS: usize = 64;
/// Checkpoints kept near the head, a quarter spacing apart.
pub const RECENT_CHECKPOINTS: usize = 4;
/// Initial spacing of checkpoints, in events.
pub const CHECKPOINT_INTERVAL: u64 = 256;
/// A safety limit on trace length (a runaway scenario stops here).
pub const MAX_EVENTS: u64 = 5_000_000;
/// The same limit for a run that keeps no trace ([`stream`]: `kafka-sim
/// run`, `digest`, `metrics --every`): its memory is one world's whatever
/// its length, so only time is bounded here: a minute or so of CPU at the
/// largest scales (issue 46's 40 groups on one topic record 6.4 million
/// events in 15 simulated seconds).
pub const STREAM_MAX_EVENTS: u64 = 20_000_000;

/// A run of a scenario: every event so far, checkpoints of the world, and
/// the world at any event on demand ([`Timeline::state_at`]).
pub struct Timeline {
    scenario: Arc<Scenario>,
    head: World,
    trace: Vec<Event>,
    /// (events before it, world at that step boundary), ascending.
    checkpoints: Vec<(u64, World)>,
    /// The newest checkpoints between the last of `checkpoints` and the
    /// head, ascending, at most [`RECENT_CHECKPOINTS`].
    recent: std::collections::VecDeque<(u64, World)>,
    interval: u64,
    finished: bool,
    /// False for a headless run that never seeks (the CLI).
    keep_checkpoints: bool,
    /// The most events this timeline records (see [`Timeline::set_max_events`]).
    max_events: u64,
    /// Bit `i` set: event `i` is the last of its step, so the world after
    /// `i + 1` events is at a step boundary and can run on.
    step_ends: Vec<u64>,
    /// The charted metrics, sampled on the simulated clock as the head runs
    /// (see [`Timeline::sample_metrics`]).
    sampler: Option<crate::metrics::Sampler>,
    /// The positions of the `LeaderElected` events, ascending: the page's
    /// election panel shows the latest before the cursor, and a scan back
    /// for it crossed the whole trace on a large cluster at every step.
    elections: Vec<u64>,
    /// The most memory the run may take and the program may hold, and how
    /// to measure it (see [`Timeline::set_memory_limit`]).
    memory_limit: Option<MemoryLimit>,
    /// Set when the run stopped at a memory limit: (what the program held,
    /// what this run's growth was).
    memory_stop: Option<(u64, u64)>,
    /// Keep a light trace: messages without their record bytes (see
    /// [`Timeline::set_light_trace`]).
    light: bool,
    /// The widest spacing of checkpoints (see
    /// [`Timeline::set_max_checkpoint_interval`]).
    max_interval: u64,
    /// Memory kept free under the limit for the worlds a seek or a step
    /// builds beside the run (two copies of the head, by its estimate;
    /// updated at each checkpoint).
    reserve: u64,
}

/// A run's memory limits, as `probe` measures what the program holds: its
/// own growth (beyond `baseline`, what was held when the limit was set) and
/// the program's whole.
#[derive(Clone, Copy)]
struct MemoryLimit {
    own: u64,
    total: u64,
    baseline: u64,
    probe: fn() -> u64,
}

impl Timeline {
    /// Validates the scenario and sets up its initial world (no events yet).
    pub fn new(scenario: Scenario) -> Result<Timeline, ConfigError> {
        scenario.validate()?;
        let sc = Arc::new(scenario);
        let mut head = World::new(sc.clone());
        // The cap holds inside a step too: a command that sends 100,000
        // records stops at the cap, not after it.
        head.set_budget(Some(MAX_EVENTS));
        Ok(Timeline {
            scenario: sc,
            checkpoints: vec![(0, head.clone())],
            recent: Default::default(),
            head,
            trace: Vec::new(),
            interval: CHECKPOINT_INTERVAL,
            finished: false,
            keep_checkpoints: true,
            max_events: MAX_EVENTS,
            step_ends: Vec::new(),
            sampler: None,
            elections: Vec::new(),
            memory_limit: None,
            memory_stop: None,
            light: false,
            max_interval: u64::MAX,
            reserve: 0,
        })
    }

    /// Keeps checkpoints at most `n` events apart, however many that takes:
    /// a seek then replays fewer than `n` events. Only for a run with a
    /// memory limit ([`Timeline::set_memory_limit`]), which then stops a
    /// large world early rather than let its seeks grow slow (the page:
    /// a seek under 100 ms at 40 groups of 40).
    pub fn set_max_checkpoint_interval(&mut self, n: u64) {
        self.max_interval = n.max(1);
    }

    /// Keeps the trace light from now on: a message kept in an event has
    /// its record bytes replaced by their length (`Bytes::elided`). A
    /// FetchResponse to each of 1,600 consumers carries the records it
    /// reads, so the trace of a large cluster was mostly record bytes that
    /// no view shows (the page's views read the world's messages in
    /// flight, which keep theirs). [`Timeline::digest`] replays the run
    /// for the bytes it hashes. The page keeps its trace light.
    pub fn set_light_trace(&mut self, light: bool) {
        self.light = light;
    }

    /// A timeline that only runs forward (no checkpoints): for the CLI.
    pub fn headless(scenario: Scenario) -> Result<Timeline, ConfigError> {
        let mut t = Timeline::new(scenario)?;
        t.keep_checkpoints = false;
        Ok(t)
    }

    /// Lowers the most events this timeline records (at most [`MAX_EVENTS`]):
    /// the page keeps its whole trace in memory and uses a smaller cap. The
    /// cap holds inside a step too.
    pub fn set_max_events(&mut self, n: u64) {
        self.max_events = n.min(MAX_EVENTS);
        self.head.set_budget(Some(self.max_events));
    }

    /// Stops the run once it has grown by more than `own` bytes since now,
    /// or the program holds more than `total`, as `probe` measures what the
    /// program holds (the page counts its allocator's bytes). The page keeps
    /// every event and its checkpoints, and a large world reaches a tab's
    /// 4 GiB long before the event cap; `total` covers two runs alive at
    /// once (a branch replaying a large run, a scenario opened while the
    /// last one is still held). Checked after every step; the step that
    /// passes a limit is kept, and takes no checkpoint.
    pub fn set_memory_limit(&mut self, own: u64, total: u64, probe: fn() -> u64) {
        self.memory_limit = Some(MemoryLimit {
            own,
            total,
            baseline: probe(),
            probe,
        });
    }

    /// Samples the charted metrics ([`crate::metrics::CHARTS`]) every
    /// `every_ms` of simulated time as the run goes (for the page's
    /// charts). Call it before the run: samples start at the head.
    pub fn sample_metrics(&mut self, every_ms: u64) {
        self.sampler = Some(crate::metrics::Sampler::new(every_ms));
    }

    /// The samples taken so far (none unless [`Timeline::sample_metrics`]).
    pub fn metric_samples(&self) -> &[crate::metrics::Sample] {
        self.sampler.as_ref().map_or(&[], |s| s.samples())
    }

    /// How many checkpoints fit the memory budget for a world of this size.
    fn max_checkpoints(&self) -> usize {
        checkpoints_allowed(self.head.approx_clone_bytes())
    }

    /// The scenario it runs.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// Events recorded so far.
    pub fn len(&self) -> u64 {
        self.trace.len() as u64
    }

    /// Whether no event has been recorded yet.
    pub fn is_empty(&self) -> bool {
        self.trace.is_empty()
    }

    /// True once the scenario ran to `run_until_ms` (or `MAX_EVENTS`, or
    /// stopped: see [`Timeline::stopped_early`]).
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Why the run ended before `run_until_ms`, in a sentence: it reached
    /// its event cap or a memory limit ([`Timeline::set_memory_limit`]), or
    /// a timer spun at one instant without recording anything
    /// ([`World::halted`]). `None` while running or after a full run.
    pub fn stopped_early(&self) -> Option<String> {
        if let Some(why) = self.head.halted() {
            return Some(why.to_string());
        }
        let (now, events) = (self.head.now(), self.trace.len() as u64);
        if let Some((held, own)) = self.memory_stop {
            return Some(format!(
                "the simulation stopped at {now} ms after {events} events: the page held {} MB, {} MB of it for this run, and keeps {} MB free to show any moment of it: the most it may hold here",
                held / 1_000_000,
                own / 1_000_000,
                self.reserve / 1_000_000
            ));
        }
        (self.finished && events >= self.max_events).then(|| cap_reached(now, self.max_events))
    }

    /// Every event so far, in order.
    pub fn events(&self) -> &[Event] {
        &self.trace
    }

    /// Event number `i`, if recorded.
    pub fn event(&self, i: u64) -> Option<&Event> {
        self.trace.get(i as usize)
    }

    /// The last `LeaderElected` event among the first `n` events.
    pub fn last_election_before(&self, n: u64) -> Option<&Event> {
        let i = self.elections.partition_point(|&id| id < n);
        i.checked_sub(1).and_then(|i| self.event(self.elections[i]))
    }

    /// How many checkpoints are kept.
    pub fn checkpoints(&self) -> usize {
        self.checkpoints.len() + self.recent.len()
    }

    /// Runs until at least `target` events exist (or the scenario ends).
    /// Returns the number of events.
    pub fn extend_to(&mut self, target: u64) -> u64 {
        while !self.finished && (self.trace.len() as u64) < target {
            let end = self.scenario.run_until_ms;
            if let Some(s) = self.sampler.as_mut() {
                s.before_step(&self.head, end);
            }
            let ran = self.head.step();
            if !ran || self.head.is_frozen() {
                self.finished = true;
            }
            if let (false, Some(s)) = (ran, self.sampler.as_mut()) {
                // The run is over: the world stays as it is to the end.
                s.before_step(&self.head, end);
            }
            let from = self.trace.len();
            self.trace.extend(self.head.drain_events());
            for e in &mut self.trace[from..] {
                match &mut e.kind {
                    crate::event::EventKind::LeaderElected { .. } => self.elections.push(e.id),
                    crate::event::EventKind::MessageSent { message, .. } if self.light => {
                        if let Some(light) = message.without_bytes() {
                            *message = Arc::new(light);
                        }
                    }
                    _ => {}
                }
            }
            if self.trace.len() as u64 >= self.max_events {
                self.finished = true;
            }
            let n = self.trace.len() as u64;
            if n > 0 {
                let i = (n - 1) as usize;
                if self.step_ends.len() <= i / 64 {
                    self.step_ends.resize(i / 64 + 1, 0);
                }
                self.step_ends[i / 64] |= 1 << (i % 64);
            }
            if let (false, Some(m)) = (self.finished, self.memory_limit) {
                // What a seek or a step would build beside the run counts
                // too: the page's wasm memory never shrinks, so its peak is
                // what a tab pays.
                let held = (m.probe)();
                let total = held + self.reserve;
                let own = total.saturating_sub(m.baseline);
                if own > m.own || total > m.total {
                    self.finished = true;
                    self.memory_stop = Some((held, held.saturating_sub(m.baseline)));
                    break;
                }
            }
            let last = self.checkpoints.last().map(|c| c.0).unwrap_or(0);
            if self.keep_checkpoints && !self.head.is_frozen() && n >= last + self.interval {
                self.checkpoints.push((n, self.head.clone()));
                if self.memory_limit.is_some() {
                    self.reserve = 2 * self.head.approx_clone_bytes();
                }
                if self.checkpoints.len() > self.max_checkpoints()
                    && self.interval * 2 <= self.max_interval
                {
                    let mut keep = Vec::with_capacity(self.checkpoints.len() / 2 + 1);
                    for (i, c) in std::mem::take(&mut self.checkpoints)
                        .into_iter()
                        .enumerate()
                    {
                        if i % 2 == 0 {
                            keep.push(c);
                        }
                    }
                    self.checkpoints = keep;
                    self.interval *= 2;
                }
            }
            if self.keep_checkpoints && !self.head.is_frozen() {
                let main = self.checkpoints.last().map(|c| c.0).unwrap_or(0);
                let newest = self.recent.back().map_or(main, |c| c.0.max(main));
                if n >= newest + (self.interval / 4).max(1) {
                    self.recent.push_back((n, self.head.clone()));
                    if self.recent.len() > RECENT_CHECKPOINTS {
                        self.recent.pop_front();
                    }
                }
            }
        }
        self.trace.len() as u64
    }

    /// Runs the scenario to its end.
    pub fn run_to_end(&mut self) -> u64 {
        self.extend_to(u64::MAX)
    }

    /// The world as it was right after `n` events (0 = before the first).
    /// Extends the trace if needed; `n` past the end is clamped.
    ///
    /// At a step boundary it is the world that can run on (its step done,
    /// with any changes that record no event, such as timers set after the
    /// last event); inside a step, the world frozen right after event `n`.
    /// Either way it is the same wherever the checkpoints happen to fall.
    pub fn state_at(&mut self, n: u64) -> World {
        let n = n.min(self.extend_to(n));
        if self.boundary_at_or_before(n) == n {
            return self.boundary_world(n);
        }
        self.state_from(self.checkpoint_at_or_before(n - 1), n)
    }

    /// The last checkpoint taken at or before `n` events (0 always has one).
    fn checkpoint_at_or_before(&self, n: u64) -> &World {
        let idx = match self.checkpoints.binary_search_by(|c| c.0.cmp(&n)) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let main = &self.checkpoints[idx];
        match self.recent.iter().rev().find(|c| c.0 <= n) {
            Some(r) if r.0 > main.0 => &r.1,
            _ => &main.1,
        }
    }

    /// The largest step boundary at or before `n` events (0 is one): a world
    /// there is not frozen and can run on.
    pub fn boundary_at_or_before(&self, n: u64) -> u64 {
        let mut i = n.min(self.trace.len() as u64);
        while i > 0 {
            let bit = (i - 1) as usize;
            let word = self.step_ends.get(bit / 64).copied().unwrap_or(0);
            // Bits at or below `bit` in this word.
            let below = word & (u64::MAX >> (63 - bit % 64));
            if below != 0 {
                return (bit / 64 * 64) as u64 + (63 - below.leading_zeros()) as u64 + 1;
            }
            i = (bit / 64 * 64) as u64;
        }
        0
    }

    /// Runs `w` (at a step boundary, not frozen) on to the step boundary
    /// `to` in whole steps, unbudgeted, so it stays able to run on (a step
    /// may end with changes that record no event). Past `to` if `to` is not
    /// a boundary.
    pub fn advance(&self, w: &mut World, to: u64) {
        debug_assert!(!w.is_frozen() && w.events_emitted() <= to);
        w.set_budget(None);
        while w.events_emitted() < to && !w.is_frozen() {
            if !w.step() {
                break;
            }
            let _ = w.drain_events();
        }
    }

    /// A world able to run on, at the step boundary `b` (see
    /// [`Timeline::boundary_at_or_before`]): the nearest checkpoint, advanced.
    pub fn boundary_world(&mut self, b: u64) -> World {
        let b = b.min(self.extend_to(b));
        let mut w = self.checkpoint_at_or_before(b).clone();
        self.advance(&mut w, b);
        w
    }

    /// The world after `n` events, as [`Timeline::state_at`] gives it, run
    /// from `base` (a world at a step boundary at or before `n`, left as it
    /// is) instead of from a checkpoint.
    pub fn state_from(&self, base: &World, n: u64) -> World {
        let mut w = base.clone();
        w.set_budget(Some(n));
        while w.events_emitted() < n && !w.is_frozen() {
            if !w.step() {
                break;
            }
            let _ = w.drain_events();
        }
        w
    }

    /// The world after the last recorded event (at a step boundary).
    pub fn head(&self) -> &World {
        &self.head
    }

    /// A digest of the trace: FNV-1a 64 over each event's JSON line. A
    /// light trace ([`Timeline::set_light_trace`]) no longer holds every
    /// byte it hashes: the run is replayed (the same events, every time)
    /// and hashed as it goes.
    pub fn digest(&self) -> u64 {
        if !self.light {
            return digest(&self.trace);
        }
        let n = self.trace.len();
        let mut d = Digest::new();
        let mut seen = 0;
        let mut w = World::new(self.scenario.clone());
        w.set_budget(Some(n as u64));
        while seen < n && w.step() {
            for e in w.drain_events() {
                d.add(&e);
                seen += 1;
            }
            if w.is_frozen() {
                break;
            }
        }
        d.value()
    }
}

/// How many checkpoints (besides the recent ones) a timeline keeps at most
/// for a world whose clone takes about `per` bytes: as many as fit
/// [`CHECKPOINT_BUDGET_BYTES`], at least [`MIN_CHECKPOINTS`] while those fit
/// [`CHECKPOINT_CEILING_BYTES`], and never fewer than 8.
pub fn checkpoints_allowed(per: u64) -> usize {
    let per = per.max(1);
    let fit = |bytes: u64| ((bytes / per) as usize).saturating_sub(RECENT_CHECKPOINTS);
    let floor = fit(CHECKPOINT_CEILING_BYTES).clamp(8, MIN_CHECKPOINTS);
    fit(CHECKPOINT_BUDGET_BYTES).clamp(floor, MAX_CHECKPOINTS)
}

/// FNV-1a 64 over the events' JSON lines: the same on every platform.
pub fn digest(events: &[Event]) -> u64 {
    let mut d = Digest::new();
    events.iter().for_each(|e| d.add(e));
    d.value()
}

/// [`digest`] one event at a time, for a run that keeps no trace.
#[derive(Clone, Copy, Debug)]
pub struct Digest(u64);

impl Default for Digest {
    fn default() -> Self {
        Self::new()
    }
}

impl Digest {
    /// The digest of no events.
    pub fn new() -> Digest {
        Digest(0xcbf2_9ce4_8422_2325)
    }

    /// Adds an event (its JSON line).
    pub fn add(&mut self, e: &Event) {
        // The JSON is hashed as serde writes it: no line is built.
        serde_json::to_writer(&mut *self, e).expect("events serialise");
        self.bytes(b"\n");
    }

    /// FNV-1a over `bytes`.
    fn bytes(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for &b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
    }

    /// The digest so far.
    pub fn value(&self) -> u64 {
        self.0
    }
}

impl std::io::Write for Digest {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `scenario` to its end without keeping its trace (memory stays that
/// of one world, whatever the run's length): each event goes to `each` as it
/// is recorded (with the world after the step that recorded it, to read
/// names from), and `each` may stop the run by returning false. Ends with
/// why the run stopped short of `run_until_ms`, if it did, as
/// [`Timeline::stopped_early`] says it.
pub fn stream(
    scenario: Scenario,
    each: impl FnMut(&Event, &World) -> bool,
) -> Result<Option<String>, ConfigError> {
    stream_to_end(scenario, each).map(|(why, _)| why)
}

/// [`stream`], also giving back the world where the run stopped (to read
/// what is on its disks).
pub fn stream_to_end(
    scenario: Scenario,
    mut each: impl FnMut(&Event, &World) -> bool,
) -> Result<(Option<String>, World), ConfigError> {
    scenario.validate()?;
    let mut w = World::new(Arc::new(scenario));
    w.set_budget(Some(STREAM_MAX_EVENTS));
    while w.step() {
        for e in w.drain_events() {
            if !each(&e, &w) {
                return Ok((None, w));
            }
        }
        if w.is_frozen() {
            let why = cap_reached(w.now(), STREAM_MAX_EVENTS);
            return Ok((Some(why), w));
        }
    }
    // A step that returns false ran nothing: every event was drained above.
    let why = w.halted().map(str::to_string);
    Ok((why, w))
}

/// Why a run stopped at its event cap, in a sentence.
pub(crate) fn cap_reached(now_ms: u64, cap: u64) -> String {
    format!("the simulation stopped at {now_ms} ms after {cap} events, the most one run may record here")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::Message;

    thread_local! {
        /// A stand-in for the bytes a program holds: grows by 1,000 at
        /// every look.
        static HELD: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    fn growing() -> u64 {
        HELD.with(|h| {
            h.set(h.get() + 1000);
            h.get()
        })
    }

    /// A light trace keeps every event but not the record bytes its
    /// messages carried (their lengths stay, so captions are the same), and
    /// its digest is the full run's: the one pinned in
    /// `scenarios/leader-failover.digest`.
    #[test]
    fn a_light_trace_keeps_the_lengths_and_the_digest() {
        let text = include_str!("../../../scenarios/leader-failover.json");
        let mut full = Timeline::new(Scenario::from_json(text).unwrap()).unwrap();
        full.run_to_end();
        let mut light = Timeline::new(Scenario::from_json(text).unwrap()).unwrap();
        light.set_light_trace(true);
        light.run_to_end();
        assert_eq!(light.len(), full.len());
        let pinned = include_str!("../../../scenarios/leader-failover.digest");
        assert_eq!(format!("{:016x}", light.digest()), pinned.trim());
        assert_eq!(light.digest(), full.digest());
        let (mut elided, mut kept_bytes) = (0, 0);
        for (a, b) in light.events().iter().zip(full.events()) {
            assert_eq!(a.caption(crate::Lang::En), b.caption(crate::Lang::En));
            if let crate::event::EventKind::MessageSent { message, .. } = &a.kind {
                match &**message {
                    Message::FetchResponse { partitions, .. } => {
                        for p in partitions {
                            elided += usize::from(p.records.is_elided());
                            kept_bytes += p.records.as_slice().len();
                        }
                    }
                    Message::Produce { topic_data, .. } => {
                        for (_, b) in topic_data {
                            elided += usize::from(b.is_elided());
                            kept_bytes += b.as_slice().len();
                        }
                    }
                    _ => {}
                }
            }
        }
        assert!(elided > 0, "record bytes were elided ({elided})");
        assert_eq!(kept_bytes, 0);
        // A light event cannot be written as JSON: it says why, not nonsense.
        let fetch = light
            .events()
            .iter()
            .find(|e| matches!(&e.kind, crate::event::EventKind::MessageSent { message, .. } if message.without_bytes().is_some() || matches!(&**message, Message::FetchResponse { partitions, .. } if partitions.iter().any(|p| p.records.is_elided()))))
            .expect("a message with record bytes");
        let err = serde_json::to_string(fetch).unwrap_err().to_string();
        assert!(err.contains("elided"), "{err}");
        // The world at any event is the same (a seek replays the real run).
        assert_eq!(
            light.state_at(150).events_emitted(),
            full.state_at(150).events_emitted()
        );
    }

    /// A run past its memory limit stops after the step that passed it,
    /// says so, and is the same run as far as it went: every event, and the
    /// world at any of them.
    #[test]
    fn a_run_stops_at_its_memory_limit_and_is_the_same_run_so_far() {
        let text = include_str!("../../../scenarios/leader-failover.json");
        let scenario = || Scenario::from_json(text).unwrap();
        let mut whole = Timeline::new(scenario()).unwrap();
        whole.run_to_end();
        assert_eq!(whole.stopped_early(), None);
        // This run's growth: what was held before the limit was set does
        // not count (the probe's first look, the baseline, is 1,000).
        HELD.with(|h| h.set(0));
        let mut t = Timeline::new(scenario()).unwrap();
        t.set_memory_limit(50_000, u64::MAX, growing);
        let n = t.run_to_end();
        // The baseline's look, then one after each step: the 51st after it
        // passes 50,000 of growth.
        assert_eq!(t.memory_stop, Some((52_000, 51_000)));
        assert!(t.is_finished() && n < whole.len(), "{n} of {}", whole.len());
        assert_eq!(t.boundary_at_or_before(n), n, "it stops after a whole step");
        assert_eq!(t.events(), &whole.events()[..n as usize]);
        assert_eq!(t.extend_to(n + 100), n, "a stopped run runs no further");
        for i in [0, 1, n / 3, n / 2, n - 1, n] {
            let (a, b) = (t.state_at(i), whole.state_at(i));
            assert_eq!(
                (a.events_emitted(), a.now(), a.pending_work()),
                (b.events_emitted(), b.now(), b.pending_work()),
                "the world after {i} events"
            );
        }
        let said = t.stopped_early().unwrap();
        let at = format!("stopped at {} ms after {n} events", t.head().now());
        assert!(
            said.contains(&at) && said.contains("held 0 MB, 0 MB of it"),
            "{said}"
        );
        // The program's whole: 5 GB held elsewhere, a total limit 50,000
        // above it stops this run after 50 steps of its own.
        HELD.with(|h| h.set(5_000_000_000));
        let mut t = Timeline::new(scenario()).unwrap();
        t.set_memory_limit(u64::MAX, 5_000_050_000, growing);
        let n = t.run_to_end();
        assert_eq!(t.memory_stop, Some((5_000_051_000, 50_000)));
        assert_eq!(t.events(), &whole.events()[..n as usize]);
        let said = t.stopped_early().unwrap();
        assert!(
            said.contains("the page held 5000 MB, 0 MB of it for this run, and keeps"),
            "{said}"
        );
        // A limit never reached changes nothing.
        let mut roomy = Timeline::new(scenario()).unwrap();
        roomy.set_memory_limit(u64::MAX, u64::MAX, growing);
        assert_eq!(roomy.run_to_end(), whole.len());
        assert_eq!(roomy.stopped_early(), None);
    }

    /// Small worlds keep what the budget allows (up to 256); large ones at
    /// least 64 while those fit the ceiling; the largest as many as fit it,
    /// and never fewer than 8.
    #[test]
    fn checkpoints_allowed_follow_the_budget_the_floor_and_the_ceiling() {
        const MB: u64 = 1024 * 1024;
        assert_eq!(checkpoints_allowed(0), MAX_CHECKPOINTS);
        assert_eq!(checkpoints_allowed(100 * 1024), MAX_CHECKPOINTS);
        assert_eq!(checkpoints_allowed(MB), 124);
        // 100 brokers / 3,000 partitions: 1 group of 40 and 40 groups of 40.
        assert_eq!(checkpoints_allowed(17 * MB), MIN_CHECKPOINTS);
        assert_eq!(checkpoints_allowed(36 * MB), MIN_CHECKPOINTS);
        // Past 2.5 GiB / 68 (64 and the 4 recent ones), fewer.
        assert_eq!(checkpoints_allowed(40 * MB), 60);
        assert_eq!(checkpoints_allowed(171 * MB), 10);
        assert_eq!(checkpoints_allowed(1024 * MB), 8);
        assert_eq!(checkpoints_allowed(u64::MAX), 8);
        // Never more for a larger world.
        let mut last = usize::MAX;
        for per in (0..4096).map(|i| i * MB / 8) {
            let n = checkpoints_allowed(per);
            assert!(n <= last, "{per} bytes: {n} > {last}");
            last = n;
        }
    }
}
