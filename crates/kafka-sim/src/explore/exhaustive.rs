//! The exhaustive mode for tiny clusters: every schedule of up to
//! `max_faults` (1 or 2) faults, each placed at a message-delivery moment
//! of the fault-free run's first `first_events` events, on every target
//! the scenario offers; schedules that reach the same state are merged.
//!
//! Merging follows Stateright's checker, which keeps a set of visited
//! states' fingerprints and does not expand a state twice. Here a state is
//! the world just before a fault is applied, fingerprinted by
//! [`fingerprint`]; a two-fault schedule whose second fault would be
//! applied to a state already reached (by another first fault, or none)
//! with the same second fault is not run again, since from the same state
//! the same fault leads to the same run. The fingerprint hashes what a
//! step reads: the clock, every queued message and timer, each broker's
//! liveness, partitions and logs' offsets and epochs, ZooKeeper, the
//! clients and the guarantees' ledger. Not in it: the metrics (they never
//! change what happens) and the brokers' controller bookkeeping, which
//! follows from ZooKeeper and the messages in flight.

use super::{faults_of, run, with_faults, Counterexample, FaultKind, Targets, MAX_EVENTS_PER_RUN};
use crate::collections::SortedSet;
use crate::event::{EventKind, Guarantee};
use crate::ids::NodeId;
use crate::scenario::{Command, Scenario, TimedCommand};
use crate::sim::World;
use serde::Serialize;
use std::sync::Arc;

/// FNV-1a 64 over text.
fn fnv(h: &mut u64, s: &str) {
    for b in s.bytes() {
        *h ^= b as u64;
        *h = h.wrapping_mul(0x100000001b3);
    }
}

/// A fingerprint of the world's state (see the module note for what it
/// covers).
pub fn fingerprint(w: &World) -> u64 {
    let mut h = 0xcbf29ce484222325u64;
    fnv(&mut h, &w.now().to_string());
    for (t, work) in w.pending() {
        fnv(&mut h, &format!("{t}:{work:?}"));
    }
    for (id, b) in w.brokers() {
        fnv(&mut h, &format!("{id:?}:{}:{}", b.alive, b.incarnation));
        for p in b.partitions.values() {
            fnv(&mut h, &format!("{p:?}"));
        }
        for l in b.logs.values() {
            fnv(
                &mut h,
                &format!(
                    "{}:{}:{}:{:?}:{}",
                    l.tp,
                    l.log_start_offset,
                    l.log_end_offset,
                    l.epochs,
                    l.segments.len()
                ),
            );
        }
    }
    fnv(&mut h, &format!("{:?}", w.zookeeper()));
    for p in w.producers() {
        fnv(&mut h, &format!("{p:?}"));
    }
    for c in w.consumers() {
        fnv(&mut h, &format!("{c:?}"));
    }
    fnv(&mut h, &format!("{:?}", w.ledger()));
    h
}

/// The bounds of an exhaustive search.
#[derive(Clone, Debug, Serialize)]
pub struct Bounds {
    /// Faults per schedule (1 or 2).
    pub max_faults: usize,
    /// Faults are placed at the message deliveries among the fault-free
    /// run's first this many events.
    pub first_events: u64,
    /// The distinct moments that gave.
    pub moments: usize,
    /// The faults one moment may hold (every kind on every target).
    pub faults_per_moment: usize,
    /// The fault kinds.
    pub kinds: Vec<FaultKind>,
}

/// What an exhaustive search did.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Schedules run (each a whole run of the scenario).
    pub schedules: u64,
    /// Schedules merged with one already run (same state, same fault).
    pub merged: u64,
    /// Distinct states reached just before a fault.
    pub states: u64,
    /// The bounds.
    pub bounds: Bounds,
}

/// Every fault of the kinds `kinds` on every target of `t`.
fn all_faults(t: &Targets, kinds: &[FaultKind]) -> Vec<Command> {
    let mut links: Vec<(NodeId, NodeId)> = Vec::new();
    for (i, a) in t.brokers.iter().enumerate() {
        for b in &t.brokers[i + 1..] {
            links.push((NodeId::broker(*a), NodeId::broker(*b)));
        }
    }
    for p in 0..t.producers {
        for b in &t.brokers {
            links.push((NodeId::Producer(p as u32), NodeId::broker(*b)));
        }
    }
    for c in 0..t.consumers.len() {
        for b in &t.brokers {
            links.push((NodeId::Consumer(c as u32), NodeId::broker(*b)));
        }
    }
    let mut out = Vec::new();
    for k in kinds {
        match k {
            FaultKind::Crash => out.extend(t.brokers.iter().map(|&broker| Command::KillBroker {
                broker,
                power_failure: false,
            })),
            FaultKind::Power => out.extend(t.brokers.iter().map(|&broker| Command::KillBroker {
                broker,
                power_failure: true,
            })),
            FaultKind::Restart => out.extend(
                t.brokers
                    .iter()
                    .map(|&broker| Command::RestartBroker { broker }),
            ),
            FaultKind::Shutdown => out.extend(
                t.brokers
                    .iter()
                    .map(|&broker| Command::ShutdownBroker { broker }),
            ),
            FaultKind::Expire => out.extend(t.brokers.iter().map(|&b| Command::CutLink {
                a: NodeId::broker(b),
                b: NodeId::ZooKeeper,
            })),
            FaultKind::Cut => out.extend(links.iter().map(|&(a, b)| Command::CutLink { a, b })),
            FaultKind::Heal => out.extend(links.iter().map(|&(a, b)| Command::HealLink { a, b })),
            FaultKind::Slow => out.extend(links.iter().map(|&(a, b)| Command::SlowLink {
                a,
                b,
                extra_latency_ms: 1000,
            })),
            FaultKind::CrashConsumer => {
                out.extend(t.consumers.iter().map(|c| Command::CrashConsumer {
                    consumer: c.clone(),
                }))
            }
        }
    }
    out
}

/// The world's fingerprint just before each of `moments` (the state a
/// fault placed there is applied to), from one run of `sc`.
fn states_before(sc: &Scenario, moments: &[u64]) -> Vec<Option<u64>> {
    let mut out = vec![None; moments.len()];
    if sc.validate().is_err() {
        return out;
    }
    let mut w = World::new(Arc::new(sc.clone()));
    w.set_budget(Some(MAX_EVENTS_PER_RUN));
    let mut i = 0;
    loop {
        // Everything before moments[i] has run once the next work is due
        // at or after it.
        while i < moments.len() && w.next_time().is_none_or(|t| t >= moments[i]) {
            out[i] = Some(fingerprint(&w));
            i += 1;
        }
        if i == moments.len() || !w.step() || w.is_frozen() {
            break;
        }
        w.drain_events();
    }
    out
}

/// An exhaustive search in progress, one schedule per [`Exhaustive::step`].
pub struct Exhaustive {
    base: Scenario,
    guarantee: Guarantee,
    moments: Vec<u64>,
    faults: Vec<Command>,
    max_faults: usize,
    /// (state fingerprint, fault index) pairs already run.
    seen: SortedSet<(u64, usize)>,
    states: SortedSet<u64>,
    /// The fault-free run's fingerprints before each moment.
    base_states: Vec<Option<u64>>,
    /// One-fault schedules still being run.
    single: bool,
    /// The next schedule: first fault (moment, fault), then the second's
    /// position in the flattened (moment, fault) list after it.
    first: usize,
    second: Option<usize>,
    /// Fingerprints before each moment in the current first fault's run.
    first_states: Vec<Option<u64>>,
    schedules: u64,
    merged: u64,
    found: Option<Counterexample>,
    bounds: Bounds,
}

impl Exhaustive {
    /// The exhaustive search of `base` for a break of `guarantee`, faults of
    /// `kinds` placed at the message deliveries of the first `first_events`
    /// events of the fault-free run, up to `max_faults` (1 or 2) per
    /// schedule.
    pub fn new(
        base: Scenario,
        guarantee: Guarantee,
        kinds: &[FaultKind],
        max_faults: usize,
        first_events: u64,
    ) -> Result<Exhaustive, String> {
        let base = super::asking(base, guarantee);
        base.validate()
            .map_err(|e| format!("{}: {}", e.field, e.message))?;
        if !(1..=2).contains(&max_faults) {
            return Err(format!(
                "the exhaustive mode places 1 or 2 faults, not {max_faults}"
            ));
        }
        let mut moments: Vec<u64> = Vec::new();
        let mut seen = 0u64;
        crate::timeline::stream(base.clone(), |e, _| {
            seen += 1;
            if let EventKind::MessageSent { deliver_at, .. } = &e.kind {
                moments.push(*deliver_at);
            }
            seen < first_events
        })
        .map_err(|e| format!("{}: {}", e.field, e.message))?;
        moments.sort_unstable();
        moments.dedup();
        moments.retain(|&t| t > 0 && t < base.run_until_ms);
        let targets = Targets::of(&base);
        let faults = all_faults(&targets, kinds);
        if faults.is_empty() || moments.is_empty() {
            return Err("no fault can be placed: the scenario offers no target or no message in its first events".into());
        }
        let base_states = states_before(&base, &moments);
        let bounds = Bounds {
            max_faults,
            first_events,
            moments: moments.len(),
            faults_per_moment: faults.len(),
            kinds: kinds.to_vec(),
        };
        Ok(Exhaustive {
            base,
            guarantee,
            moments,
            faults,
            max_faults,
            seen: SortedSet::new(),
            states: SortedSet::new(),
            base_states,
            single: true,
            first: 0,
            second: None,
            first_states: Vec::new(),
            schedules: 0,
            merged: 0,
            found: None,
            bounds,
        })
    }

    /// The schedules, in order: (moment, fault) pairs flattened.
    fn slots(&self) -> usize {
        self.moments.len() * self.faults.len()
    }

    fn fault_at(&self, slot: usize) -> TimedCommand {
        TimedCommand {
            at_ms: self.moments[slot / self.faults.len()],
            command: self.faults[slot % self.faults.len()].clone(),
        }
    }

    /// Whether every schedule has been run or merged, or one broke the
    /// guarantee.
    pub fn finished(&self) -> bool {
        self.found.is_some()
            || (self.first >= self.slots() && (!self.single || self.max_faults == 1))
    }

    /// The counterexample, if one was found (the first in schedule order:
    /// every one-fault schedule before the two-fault ones, earlier
    /// moments first).
    pub fn found(&self) -> Option<&Counterexample> {
        self.found.as_ref()
    }

    /// What was searched so far.
    pub fn report(&self) -> Report {
        Report {
            schedules: self.schedules,
            merged: self.merged,
            states: self.states.len() as u64,
            bounds: self.bounds.clone(),
        }
    }

    fn try_schedule(&mut self, faults: &[TimedCommand]) {
        self.schedules += 1;
        let sc = with_faults(&self.base, faults);
        if let Ok((Some(violation), events)) = run(&sc, self.guarantee) {
            self.found = Some(Counterexample {
                faults: faults_of(&sc),
                scenario: sc,
                events,
                violation,
            });
        }
    }

    /// Runs (or merges) the next schedule. Returns false when finished.
    /// Every one-fault schedule comes before any two-fault one, so the
    /// first counterexample has the fewest faults.
    pub fn step(&mut self) -> bool {
        if self.finished() {
            return false;
        }
        let n_faults = self.faults.len();
        if self.single {
            // The one-fault schedule at `first`, merged by the state it is
            // applied to.
            let slot = self.first;
            let state = self.base_states[slot / n_faults];
            if let Some(s) = state {
                self.states.insert(s);
            }
            if state.is_some_and(|s| !self.seen.insert((s, slot % n_faults))) {
                self.merged += 1;
            } else {
                let f = self.fault_at(slot);
                self.try_schedule(std::slice::from_ref(&f));
            }
            self.first += 1;
            if self.first >= self.slots() && self.max_faults == 2 {
                self.single = false;
                self.first = 0;
            }
            return !self.finished();
        }
        let Some(second) = self.second else {
            // A new first fault: the states its run reaches before each moment.
            let sc = with_faults(&self.base, &[self.fault_at(self.first)]);
            self.first_states = states_before(&sc, &self.moments);
            self.second = Some((self.first / n_faults) * n_faults);
            return true;
        };
        // The second fault at a moment at or after the first's (at the
        // same moment, after it in the fault list).
        if second >= self.slots() {
            self.second = None;
            self.first += 1;
            return !self.finished();
        }
        self.second = Some(second + 1);
        let same = second / n_faults == self.first / n_faults;
        if same && second % n_faults <= self.first % n_faults {
            return true;
        }
        // At the first fault's own moment the state before it is not the
        // state the second fault meets: never merged.
        let state = self.first_states[second / n_faults].filter(|_| !same);
        if let Some(s) = state {
            self.states.insert(s);
        }
        if state.is_some_and(|s| !self.seen.insert((s, second % n_faults))) {
            self.merged += 1;
            return true;
        }
        let faults = [self.fault_at(self.first), self.fault_at(second)];
        self.try_schedule(&faults);
        !self.finished()
    }
}
