//! Shrinking a counterexample to a local minimum, one candidate per
//! [`Shrinker::step`] (so the page can shrink between frames).
//!
//! The candidates of a scenario, tried in this order: end the run at the
//! violation; drop each fault; move each fault earlier (halfway back to the
//! command before it, which walks a fault up to just after what it races
//! with, then to half its time, then three quarters); turn each power
//! failure into a plain crash; drop each other command; drop each consumer
//! and each producer with the commands that name it; drop each broker. A
//! candidate is kept when the same guarantee still breaks and the
//! counterexample is smaller by [`Counterexample::size`] (fewer faults,
//! then fewer power failures, then fewer commands, clients and brokers,
//! then fewer events before the violation, and a shorter run last). After
//! a kept candidate the list starts again; the shrinker stops when no
//! candidate of the current scenario is kept. A candidate the engine
//! refuses (a broker removed that a topic still names) is simply not kept.

use super::question::without_clients;
use super::{faults_of, is_fault, run, Counterexample, FaultKind};
use crate::event::Guarantee;
use crate::ids::NodeId;
use crate::scenario::{Command, Scenario};

/// A shrink in progress.
pub struct Shrinker {
    guarantee: Guarantee,
    best: Counterexample,
    /// The next candidate of `best` to try.
    next: usize,
    /// Candidates run so far.
    tried: u64,
    /// Candidates kept so far.
    kept: u64,
    done: bool,
}

/// Whether command `c` names node `n` as a link end.
fn names_node(c: &Command, n: NodeId) -> bool {
    match c {
        Command::CutLink { a, b } | Command::HealLink { a, b } | Command::SlowLink { a, b, .. } => {
            *a == n || *b == n
        }
        _ => false,
    }
}

impl Shrinker {
    /// A shrink of `found`, which breaks `guarantee`.
    pub fn new(found: Counterexample, guarantee: Guarantee) -> Shrinker {
        Shrinker {
            guarantee,
            best: found,
            next: 0,
            tried: 0,
            kept: 0,
            done: false,
        }
    }

    /// The smallest counterexample so far.
    pub fn best(&self) -> &Counterexample {
        &self.best
    }

    /// Whether no single candidate shrinks it further.
    pub fn done(&self) -> bool {
        self.done
    }

    /// Candidates run, and kept.
    pub fn counts(&self) -> (u64, u64) {
        (self.tried, self.kept)
    }

    /// The `i`-th candidate of `sc` (None: there are fewer; `Some(None)`:
    /// the `i`-th change leaves `sc` as it is, so there is nothing to run).
    fn candidate(&self, sc: &Scenario, i: usize) -> Option<Option<Scenario>> {
        let mut i = i;
        // End the run just after the violation.
        if i == 0 {
            let mut c = sc.clone();
            c.run_until_ms = (self.best.violation.time_ms + 1).min(sc.run_until_ms);
            return Some(Some(c));
        }
        i -= 1;
        let faults: Vec<usize> = (0..sc.commands.len())
            .filter(|&k| is_fault(&sc.commands[k].command))
            .collect();
        if i < faults.len() {
            let mut c = sc.clone();
            c.commands.remove(faults[i]);
            return Some(Some(c));
        }
        i -= faults.len();
        if i < 3 * faults.len() {
            let k = faults[i / 3];
            let at = sc.commands[k].at_ms;
            // Halfway back to the command before it (repeated, this walks a
            // fault up to just after what it races with), or towards 0.
            let prev = sc.commands[..k]
                .iter()
                .filter(|x| !is_fault(&x.command) && x.at_ms < at)
                .map(|x| x.at_ms)
                .max()
                .unwrap_or(0);
            let earlier = match i % 3 {
                0 => prev + (at - prev) / 2,
                1 => at / 2,
                _ => at * 3 / 4,
            };
            if earlier.max(1) >= at {
                // Nothing earlier to try here: no run.
                return Some(None);
            }
            let mut c = sc.clone();
            c.commands[k].at_ms = earlier.max(1);
            c.commands.sort_by_key(|x| x.at_ms);
            return Some(Some(c));
        }
        i -= 3 * faults.len();
        // A power failure becomes a plain crash.
        let powers: Vec<usize> = (0..sc.commands.len())
            .filter(|&k| FaultKind::Power.is(&sc.commands[k].command))
            .collect();
        if i < powers.len() {
            let mut c = sc.clone();
            if let Command::KillBroker { power_failure, .. } = &mut c.commands[powers[i]].command {
                *power_failure = false;
            }
            return Some(Some(c));
        }
        i -= powers.len();
        let others: Vec<usize> = (0..sc.commands.len())
            .filter(|&k| !is_fault(&sc.commands[k].command))
            .collect();
        if i < others.len() {
            let mut c = sc.clone();
            c.commands.remove(others[i]);
            return Some(Some(c));
        }
        i -= others.len();
        if i < sc.consumers.len() {
            let gone = [sc.consumers[i].name.clone()];
            return Some(Some(without_clients(sc, &[], &gone)));
        }
        i -= sc.consumers.len();
        if i < sc.producers.len() {
            let gone = [sc.producers[i].name.clone()];
            return Some(Some(without_clients(sc, &gone, &[])));
        }
        i -= sc.producers.len();
        if i < sc.cluster.brokers.len() && sc.cluster.brokers.len() > 1 {
            let mut c = sc.clone();
            let b = c.cluster.brokers.remove(i);
            let node = NodeId::broker(b);
            c.commands.retain(|x| {
                let v = serde_json::to_value(&x.command).unwrap_or_default();
                v.get("broker").and_then(|x| x.as_i64()) != Some(b as i64)
                    && !names_node(&x.command, node)
            });
            return Some(Some(c));
        }
        None
    }

    /// Tries the next candidate. Returns false once shrinking is done.
    pub fn step(&mut self) -> bool {
        if self.done {
            return false;
        }
        let Some(candidate) = self.candidate(&self.best.scenario, self.next) else {
            self.done = true;
            return false;
        };
        self.next += 1;
        let Some(sc) = candidate else {
            return true;
        };
        self.tried += 1;
        if let Ok((Some(violation), events)) = run(&sc, self.guarantee) {
            let c = Counterexample {
                faults: faults_of(&sc),
                scenario: sc,
                events,
                violation,
            };
            let smaller = (c.size(), c.scenario.run_until_ms)
                < (self.best.size(), self.best.scenario.run_until_ms);
            if smaller {
                self.best = c;
                self.kept += 1;
                self.next = 0;
            }
        }
        true
    }

    /// Shrinks to the end, at most `limit` candidates.
    pub fn run(&mut self, limit: u64) -> &Counterexample {
        let mut n = 0;
        while n < limit && self.step() {
            n += 1;
        }
        &self.best
    }
}
