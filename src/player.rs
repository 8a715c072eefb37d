//! The player: a timeline and a cursor. Pure state (no DOM), so it is tested
//! natively; the components only call it and draw what it holds.
//!
//! The cursor counts events applied: 0 is the cluster before anything
//! happened, `n` the state right after event `n - 1`. Stepping back is a seek,
//! which the engine answers from its nearest checkpoint.

use kafka_sim::event::{Event, Importance};
use kafka_sim::{ConfigError, Scenario, Timeline, World};

/// How far ahead of the cursor the trace is computed, so the timeline's end
/// is known for a typical lesson.
const LOOKAHEAD: u64 = 2_000;

/// How far ahead of the runner a seek may be and still run from it (beyond,
/// a checkpoint is nearer).
const RUNNER_REACH: u64 = 2_048;

/// The next player's [`Player::id`].
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

pub struct Player {
    timeline: Timeline,
    cursor: u64,
    /// The world shown, when it is not the runner itself (inside a step, or
    /// after a seek that did not use the runner).
    world: Option<World>,
    /// A world at a step boundary at or before the cursor, kept so that
    /// stepping forward replays only the events since it (a checkpoint can
    /// be hundreds of events back, and replaying them is what a step costs).
    runner: Option<World>,
    /// The scenario's text as loaded (for share links); empty if built in code.
    source: String,
    /// Unique to this player among those the page made (see [`Player::id`]).
    id: u64,
}

/// The most events the page records for one scenario. The page keeps the
/// whole trace in memory (measured natively: about 0.6 KB an event with its
/// checkpoints), so a scenario that would run longer stops here and says so.
pub const PAGE_MAX_EVENTS: u64 = 1_000_000;

/// The widest spacing of the page's checkpoints, in events: a seek replays
/// at most this many (in the page the engine replays an event of 40 groups
/// of 40 in about 12 µs, natively in 3.5).
pub const PAGE_MAX_REPLAY: u64 = 4096;

/// The most memory one scenario's run may take in the page, beyond what the
/// page held when it was opened (`crate::alloc` counts it). A school
/// Chromebook has 4 GB and Safari on an iPad closes a tab long before that,
/// so the page stays under 1 GiB of wasm memory whatever it opens (issue 46):
/// a large world stops here, saying so, long before [`PAGE_MAX_EVENTS`] (at
/// 100 brokers / 3,000 partitions / 40 groups of 40, after about 600,000
/// events).
pub const PAGE_MAX_BYTES: u64 = 704 * 1024 * 1024;

/// The most the whole page may hold while a run goes on: two runs can be
/// alive at once (a branch replays its run while the learner's is held; a
/// scenario opens while the last one is). The wasm memory is what the
/// allocator holds plus about an eighth (measured: 1,217 MB held came with
/// 1,377 MB of wasm memory), so 864 MiB held stays under 1 GiB.
pub const PAGE_MAX_TOTAL_BYTES: u64 = 768 * 1024 * 1024;

impl Player {
    pub fn new(scenario: Scenario) -> Result<Player, ConfigError> {
        let every = kafka_sim::metrics::Sampler::interval_for(scenario.run_until_ms);
        let mut timeline = Timeline::new(scenario)?;
        timeline.set_max_events(PAGE_MAX_EVENTS);
        // Messages in the trace without their record bytes (the views read
        // the world's messages in flight): most of a large run's trace.
        timeline.set_light_trace(true);
        timeline.set_memory_limit(
            PAGE_MAX_BYTES,
            PAGE_MAX_TOTAL_BYTES,
            crate::alloc::held_bytes,
        );
        // A seek replays at most this many events (a seek under 100 ms at
        // 40 groups of 40); a large world then stops at the memory limit
        // sooner, saying so.
        timeline.set_max_checkpoint_interval(PAGE_MAX_REPLAY);
        // The metrics view's charts, sampled as the run goes.
        timeline.sample_metrics(every);
        timeline.extend_to(LOOKAHEAD);
        let world = timeline.state_at(0);
        Ok(Player {
            timeline,
            cursor: 0,
            runner: None,
            world: Some(world),
            source: String::new(),
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        })
    }

    pub fn from_json(text: &str) -> Result<Player, ConfigError> {
        let mut p = Player::new(Scenario::from_json(text)?)?;
        p.source = text.to_string();
        Ok(p)
    }

    /// A number no other player of this page has: with a count that only
    /// grows along one run (ZooKeeper's writes, the cursor), it names a
    /// state, so a view can keep what it computed from it.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The scenario text this player was loaded from ("" if none).
    pub fn source(&self) -> &str {
        &self.source
    }

    pub fn scenario(&self) -> &Scenario {
        self.timeline.scenario()
    }

    pub fn cursor(&self) -> u64 {
        self.cursor
    }

    /// The charted metrics sampled so far (up to the simulated head).
    pub fn metric_samples(&self) -> &[kafka_sim::metrics::Sample] {
        self.timeline.metric_samples()
    }

    /// Events known so far (grows as the cursor moves on).
    pub fn known_len(&self) -> u64 {
        self.timeline.len()
    }

    /// True when the whole scenario has been computed.
    pub fn length_final(&self) -> bool {
        self.timeline.is_finished()
    }

    /// Why the scenario stopped before its `run_until_ms`, once the player
    /// has reached that point: [`PAGE_MAX_EVENTS`], [`PAGE_MAX_BYTES`] or
    /// [`PAGE_MAX_TOTAL_BYTES`], or a timer that spun at one instant (see
    /// `Timeline::stopped_early`).
    pub fn stopped_early(&self) -> Option<String> {
        self.timeline.stopped_early()
    }

    /// The run's memory limits, measured by `probe` from now on (the page's
    /// are [`PAGE_MAX_BYTES`] and [`PAGE_MAX_TOTAL_BYTES`], measured by
    /// `crate::alloc`; natively that count is not installed, so a test
    /// brings its own).
    #[cfg(test)]
    pub fn set_memory_limit(&mut self, own: u64, total: u64, probe: fn() -> u64) {
        self.timeline.set_memory_limit(own, total, probe);
    }

    pub fn at_end(&self) -> bool {
        self.timeline.is_finished() && self.cursor >= self.timeline.len()
    }

    pub fn world(&self) -> &World {
        match &self.world {
            Some(w) => w,
            None => self.runner.as_ref().expect("the runner is shown"),
        }
    }

    /// The event the cursor just applied.
    pub fn current(&self) -> Option<&Event> {
        self.cursor
            .checked_sub(1)
            .and_then(|i| self.timeline.event(i))
    }

    /// Simulated time at the cursor.
    pub fn time_ms(&self) -> u64 {
        self.current().map(|e| e.time_ms).unwrap_or(0)
    }

    /// The simulated time of the event the next step will show: the next
    /// event, or with `significant` the next one that is not routine (as
    /// `step_significant` goes). None when it is not computed yet.
    pub fn next_time_ms(&self, significant: bool) -> Option<u64> {
        self.known_events()
            .get(self.cursor as usize..)?
            .iter()
            .find(|e| !significant || e.kind.importance() > Importance::Routine)
            .map(|e| e.time_ms)
    }

    /// The last leader election before the cursor (the election panel's).
    pub fn last_election(&self) -> Option<&Event> {
        self.timeline.last_election_before(self.cursor)
    }

    /// Events applied so far (the log up to the cursor).
    pub fn past(&self) -> &[Event] {
        &self.timeline.events()[..self.cursor as usize]
    }

    /// Every event computed so far (also those after the cursor).
    pub fn known_events(&self) -> &[Event] {
        self.timeline.events()
    }

    pub fn event(&self, i: u64) -> Option<&Event> {
        self.timeline.event(i)
    }

    /// The world after `n` events, leaving the cursor where it is.
    pub fn state_at(&mut self, n: u64) -> World {
        self.timeline.state_at(n)
    }

    pub fn seek(&mut self, n: u64) {
        self.timeline.extend_to(n.saturating_add(LOOKAHEAD));
        let n = n.min(self.timeline.len());
        if n != self.cursor || n == 0 {
            // Forward a little: run on from the runner, brought to the
            // boundary before the step that records event n - 1. Replaying
            // that step with the budget gives exactly the world `state_at(n)`
            // gives (a step can end with gated changes that record nothing,
            // which the budget stops). Anywhere else, or when that step
            // began too far back: from the nearest checkpoint.
            // At a step boundary the runner, brought there, is the world
            // shown (no copy): `state_at` gives the same world there.
            // (Below n, the last boundary at or before n is the one before
            // the step that records event n - 1.)
            let b = self.timeline.boundary_at_or_before(n);
            let at_boundary = b == n;
            let forward = n > self.cursor && n - self.cursor <= RUNNER_REACH;
            if forward && n - b <= RUNNER_REACH {
                let fresh =
                    |r: &World| r.events_emitted() <= b && b - r.events_emitted() <= RUNNER_REACH;
                let r = match self.runner.take().filter(fresh) {
                    Some(r) => self.runner.insert(r),
                    None => self.runner.insert(self.timeline.boundary_world(b)),
                };
                if b > r.events_emitted() {
                    self.timeline.advance(r, b);
                }
                self.world = (!at_boundary).then(|| self.timeline.state_from(r, n));
            } else {
                // From the nearest checkpoint, keeping the boundary as the
                // runner: the first step after a jump then replays only
                // from there (else it would restore a checkpoint again).
                let r = self.runner.insert(self.timeline.boundary_world(b));
                self.world = (!at_boundary).then(|| self.timeline.state_from(r, n));
            }
            self.cursor = n;
        }
    }

    /// One event forward. Returns false at the end.
    pub fn step(&mut self) -> bool {
        if self.at_end() {
            return false;
        }
        let before = self.cursor;
        self.seek(self.cursor + 1);
        self.cursor > before
    }

    /// Forward to the next event that is not routine (idle fetch cycles).
    /// Finds it in the trace first, then rebuilds the state once.
    pub fn step_significant(&mut self) -> bool {
        let target = self
            .find_from(self.cursor, |e| e.kind.importance() > Importance::Routine)
            .map(|i| i + 1)
            .unwrap_or_else(|| self.timeline.len());
        if target == self.cursor {
            return false;
        }
        self.seek(target);
        true
    }

    /// Back to the previous event that is not routine (or the start).
    pub fn back_significant(&mut self) -> bool {
        if self.cursor == 0 {
            return false;
        }
        let target = (0..self.cursor - 1)
            .rev()
            .find(|&j| {
                self.timeline
                    .event(j)
                    .is_some_and(|e| e.kind.importance() > Importance::Routine)
            })
            .map(|j| j + 1)
            .unwrap_or(0);
        self.seek(target);
        true
    }

    pub fn back(&mut self) -> bool {
        if self.cursor == 0 {
            return false;
        }
        self.seek(self.cursor - 1);
        true
    }

    /// The first event at or after `start` that `pred` accepts, running the
    /// scenario as far as needed.
    fn find_from(&mut self, start: u64, mut pred: impl FnMut(&Event) -> bool) -> Option<u64> {
        let mut i = start;
        loop {
            if i >= self.timeline.len() {
                if self.timeline.is_finished() {
                    return None;
                }
                self.timeline.extend_to(i + LOOKAHEAD);
                continue;
            }
            if self.timeline.event(i).is_some_and(&mut pred) {
                return Some(i);
            }
            i += 1;
        }
    }

    /// The index of the `nth` (from 1) event of a kind, running the scenario
    /// as far as needed.
    pub fn find_nth(&mut self, name: &str, nth: u32) -> Option<u64> {
        self.find_nth_where(nth, |e| e.kind.name_str() == name)
    }

    /// The index of the `nth` (from 1) event that `pred` accepts.
    pub fn find_nth_where(
        &mut self,
        nth: u32,
        mut pred: impl FnMut(&Event) -> bool,
    ) -> Option<u64> {
        let mut seen = 0;
        self.find_from(0, |e| {
            pred(e) && {
                seen += 1;
                seen == nth
            }
        })
    }

    /// The next event at or after the cursor whose kind has this name.
    pub fn next_of_kind(&mut self, name: &str) -> Option<u64> {
        self.find_from(self.cursor, |e| e.kind.name_str() == name)
    }

    pub fn digest_of_whole_run(&mut self) -> u64 {
        self.timeline.run_to_end();
        self.timeline.digest()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENARIO: &str = include_str!("../scenarios/leader-failover.json");

    /// What a learner can see of a world, to compare two ways of reaching it.
    fn seen(w: &World) -> String {
        format!(
            "{} {} {:?} {} {:?}",
            w.events_emitted(),
            w.is_frozen(),
            w.next_time(),
            w.pending().count(),
            crate::model::diff::facts(w)
        )
    }

    #[test]
    fn stepping_from_the_runner_gives_the_checkpoint_worlds() {
        for text in [
            SCENARIO,
            include_str!("../scenarios/group-rebalance.json"),
            include_str!("../scenarios/kip101-divergence.json"),
        ] {
            let mut p = Player::from_json(text).unwrap();
            let mut fresh = Timeline::new(Scenario::from_json(text).unwrap()).unwrap();
            // One step at a time, then jumps forward and back.
            let mut targets: Vec<u64> = (1..700).collect();
            targets.extend([900, 905, 1400, 1401, 300, 301, 302, 2600, 2601, 40, 41]);
            for n in targets {
                p.seek(n);
                let n = p.cursor();
                assert_eq!(
                    seen(p.world()),
                    seen(&fresh.state_at(n)),
                    "after {n} events"
                );
            }
        }
    }

    #[test]
    fn a_big_topic_is_created_partition_by_partition_and_every_step_matches() {
        // 4 brokers, 200 partitions of RF 3: the controller's
        // onNewPartitionCreation and each broker's LeaderAndIsr used to be
        // one step of hundreds of events, so showing an event inside them
        // replayed the handler from its start. Now every partition ends a
        // step, and stepping through them gives the same worlds.
        let text = r#"{"seed": 3, "run_until_ms": 2000, "cluster": {"brokers": [0, 1, 2, 3]},
            "topics": [{"name": "t", "partitions": 200, "replication.factor": 3}]}"#;
        let mut p = Player::from_json(text).unwrap();
        let mut fresh = Timeline::new(Scenario::from_json(text).unwrap()).unwrap();
        fresh.run_to_end();
        let len = fresh.len();
        assert!(len > 1_500, "{len} events");
        let longest = (1..=len)
            .map(|n| n - fresh.boundary_at_or_before(n))
            .max()
            .unwrap();
        // The longest steps left are a leader answering one follower's
        // fetch (an event per partition the two share: 33 here), not the
        // 200 partitions of the topic (hundreds of events before).
        assert!(longest <= 40, "an event {longest} events into its step");
        for n in (1..len).step_by(7) {
            p.seek(n);
            assert_eq!(
                seen(p.world()),
                seen(&fresh.state_at(n)),
                "after {n} events"
            );
        }
    }

    #[test]
    fn boundaries_are_where_a_world_can_run_on() {
        let mut t = Timeline::new(Scenario::from_json(SCENARIO).unwrap()).unwrap();
        t.extend_to(400);
        let mut last = 0;
        let mut frozen_at_boundary = 0;
        for n in 0..400 {
            let b = t.boundary_at_or_before(n);
            assert!(b <= n && b >= last, "{b} for {n}");
            last = b;
            let w = t.boundary_world(b);
            assert!(!w.is_frozen());
            assert_eq!(w.events_emitted(), b);
            if t.state_at(b).is_frozen() {
                frozen_at_boundary += 1;
            }
        }
        assert!(t.boundary_at_or_before(399) > 0);
        let mid = (1..400)
            .filter(|&n| t.boundary_at_or_before(n) != n)
            .count();
        assert!(mid > 0, "some events are not the last of their step");
        let _ = frozen_at_boundary;
    }

    #[test]
    fn step_and_back_restore_the_same_state() {
        let mut p = Player::from_json(SCENARIO).unwrap();
        for _ in 0..40 {
            assert!(p.step());
        }
        let at40 = format!("{:?}", p.world().brokers().keys().collect::<Vec<_>>());
        let caption = p.current().unwrap().caption(kafka_sim::Lang::En);
        p.step();
        p.back();
        assert_eq!(p.cursor(), 40);
        assert_eq!(p.current().unwrap().caption(kafka_sim::Lang::En), caption);
        assert_eq!(
            format!("{:?}", p.world().brokers().keys().collect::<Vec<_>>()),
            at40
        );
    }

    #[test]
    fn the_state_at_a_step_matches_the_events_so_far() {
        let mut p = Player::from_json(SCENARIO).unwrap();
        let leader_at = p.next_of_kind("became_leader").unwrap();
        p.seek(leader_at);
        let leaders = |p: &Player| {
            p.world()
                .brokers()
                .values()
                .filter(|b| b.partitions.values().any(|x| x.is_leader))
                .count()
        };
        assert_eq!(leaders(&p), 0, "just before BecameLeader nobody leads");
        p.step();
        assert_eq!(leaders(&p), 1);
    }

    #[test]
    fn significant_steps_land_where_stepping_one_by_one_does() {
        let significant = |p: &Player| {
            p.current()
                .is_some_and(|e| e.kind.importance() > Importance::Routine)
        };
        let mut fast = Player::from_json(SCENARIO).unwrap();
        let mut slow = Player::from_json(SCENARIO).unwrap();
        let mut stops = Vec::new();
        while fast.step_significant() {
            // One event at a time to the next significant one (or the end).
            while slow.step() && !significant(&slow) {}
            assert_eq!(fast.cursor(), slow.cursor());
            stops.push(fast.cursor());
        }
        assert!(stops.len() > 20);
        // And back: each stop is the previous significant event.
        for w in stops.windows(2).rev() {
            fast.seek(w[1]);
            fast.back_significant();
            assert_eq!(fast.cursor(), w[0], "back from {}", w[1]);
        }
    }

    #[test]
    fn the_next_time_is_that_of_the_event_the_next_step_shows() {
        let mut p = Player::from_json(SCENARIO).unwrap();
        let mut later = 0;
        for _ in 0..300 {
            for significant in [false, true] {
                let said = p.next_time_ms(significant);
                let mut q = Player::from_json(SCENARIO).unwrap();
                q.seek(p.cursor());
                let moved = if significant {
                    q.step_significant()
                } else {
                    q.step()
                };
                if moved && said.is_some() {
                    assert_eq!(said, Some(q.time_ms()), "at {}", p.cursor());
                    later += usize::from(q.time_ms() > p.time_ms());
                }
            }
            p.step();
        }
        // The clock has somewhere to go on many of those steps.
        assert!(later > 10, "{later}");
    }

    thread_local! {
        /// A stand-in for the page's allocator count: grows by 1 MB a look.
        static HELD: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    fn growing() -> u64 {
        HELD.with(|h| {
            h.set(h.get() + 1_000_000);
            h.get()
        })
    }

    /// A run that reaches the page's memory limit ends there: the learner
    /// can play, step back and seek in what ran, and is told why it ended.
    #[test]
    fn a_run_past_the_memory_limit_ends_playable_and_says_why() {
        let long = SCENARIO.replace("\"run_until_ms\": 10000", "\"run_until_ms\": 600000");
        let mut whole = Player::from_json(&long).unwrap();
        let full = whole.digest_of_whole_run();
        let mut p = Player::from_json(&long).unwrap();
        let made = p.known_len();
        p.set_memory_limit(200_000_000, u64::MAX, growing);
        while p.step_significant() {}
        assert!(p.at_end() && !p.step(), "stopped");
        let n = p.cursor();
        assert!(
            n > made && n < whole.known_len(),
            "{made} < {n} < {}",
            whole.known_len()
        );
        assert_eq!(p.known_events(), &whole.known_events()[..n as usize]);
        let why = p.stopped_early().expect("says why");
        assert!(
            why.contains("MB of it for this run, and keeps")
                && why.contains("MB free to show any moment of it: the most it may hold here"),
            "{why}"
        );
        assert_eq!(whole.stopped_early(), None);
        assert!(p.back() && p.cursor() == n - 1);
        for i in [n / 2, 0, n] {
            p.seek(i);
            assert_eq!(p.cursor(), i);
            assert_eq!(seen(p.world()), seen(&whole.state_at(i)), "at {i}");
        }
        assert_ne!(p.digest_of_whole_run(), full);
    }

    #[test]
    fn runs_to_the_end_and_stops() {
        let mut p = Player::from_json(SCENARIO).unwrap();
        while p.step_significant() {}
        assert!(p.at_end());
        assert!(!p.step());
        assert!(p.back());
    }
}
