//! "Can this break?": a counterexample finder over fault schedules.
//!
//! A learner picks settings (a scenario) and one of the engine's own
//! guarantees ([`Guarantee`], checked as the simulation runs, see
//! [`crate::invariants`]); the finder looks for a schedule of faults under
//! which the simulation reports that guarantee broken, then shrinks it.
//! The finder adds no property of its own: a schedule is a counterexample
//! exactly when the run records `guarantee_broken` for the chosen guarantee.
//!
//! * **Random search** ([`Search`]), swarm style (Groce et al., "Swarm
//!   Testing", ISSTA 2012): each schedule first draws which fault kinds it
//!   may use (a random non-empty subset of those allowed), then places up
//!   to `max_faults` of them at random moments of the run, on random
//!   brokers, links or consumers. Deterministic from the seed: the same
//!   request finds the same counterexample natively and in the page.
//! * **Shrinking** ([`shrink::Shrinker`]): drop faults, move them earlier,
//!   drop commands (records, clients' actions), clients and brokers, and end
//!   the run at the violation, keeping each change under which the same
//!   guarantee still breaks, until no single change does (a local minimum,
//!   as QuickCheck's and Hypothesis's shrinkers stop).
//! * **Exhaustive mode** ([`exhaustive::Exhaustive`]) for tiny clusters:
//!   every schedule of up to two faults placed at the message deliveries of
//!   the run's first events, with schedules that reach the same state
//!   merged by a fingerprint of the world (as Stateright's checker merges
//!   states by their hash).
//!
//! Every schedule is an ordinary scenario: the base scenario with the
//! faults added as its own commands (`kill_broker`, `cut_link` …), so the
//! result replays with `kafka-sim run` and opens in the page as it is.

pub mod exhaustive;
pub mod question;
pub mod shrink;

use crate::event::{EventKind, Guarantee};
use crate::ids::NodeId;
use crate::rng::Rng;
use crate::scenario::{Command, Scenario, TimedCommand};
use serde::Serialize;

/// The most events one schedule's run may record: a tiny cluster's run
/// takes a few thousand, and a schedule that makes a run loop or grow is
/// cut here (and counts as not breaking the guarantee).
pub const MAX_EVENTS_PER_RUN: u64 = 200_000;

/// The kinds of fault a schedule may hold, by their names on the command
/// line (`--faults crash,restart,cut`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// `kill_broker`: the process dies; its ZooKeeper session ends later.
    Crash,
    /// `kill_broker` with `power_failure`: the machine loses power, and
    /// the page cache with it (what was not yet written back is gone).
    Power,
    /// `restart_broker`: a stopped broker starts again from its disk.
    Restart,
    /// `shutdown_broker`: a controlled shutdown.
    Shutdown,
    /// `cut_link` between two brokers, or a client and a broker.
    Cut,
    /// `heal_link`: a cut link works again.
    Heal,
    /// `cut_link` between a broker and ZooKeeper: its heartbeats stop, so
    /// its session expires while the process lives on (Kafka's
    /// "ZooKeeper session expiry").
    Expire,
    /// `slow_link`: a link gains latency.
    Slow,
    /// `crash_consumer`: a consumer's process dies (no LeaveGroup).
    CrashConsumer,
}

impl FaultKind {
    /// Every kind, in order.
    pub const ALL: [FaultKind; 9] = [
        FaultKind::Crash,
        FaultKind::Power,
        FaultKind::Restart,
        FaultKind::Shutdown,
        FaultKind::Cut,
        FaultKind::Heal,
        FaultKind::Expire,
        FaultKind::Slow,
        FaultKind::CrashConsumer,
    ];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Crash => "crash",
            FaultKind::Power => "power",
            FaultKind::Restart => "restart",
            FaultKind::Shutdown => "shutdown",
            FaultKind::Cut => "cut",
            FaultKind::Heal => "heal",
            FaultKind::Expire => "expire",
            FaultKind::Slow => "slow",
            FaultKind::CrashConsumer => "crash_consumer",
        }
    }

    /// A kind by its name.
    pub fn parse(s: &str) -> Result<FaultKind, String> {
        FaultKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = FaultKind::ALL.iter().map(|k| k.name()).collect();
                format!("`{s}` is not a fault kind (one of {})", names.join(", "))
            })
    }

    /// A comma-separated list of kinds (`crash,restart`), each once.
    pub fn parse_list(s: &str) -> Result<Vec<FaultKind>, String> {
        let mut out = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let k = FaultKind::parse(part)?;
            if !out.contains(&k) {
                out.push(k);
            }
        }
        if out.is_empty() {
            return Err("no fault kind given".into());
        }
        out.sort();
        Ok(out)
    }

    /// Whether `c` is a fault of this kind.
    pub fn is(self, c: &Command) -> bool {
        let zk = |a: &NodeId, b: &NodeId| *a == NodeId::ZooKeeper || *b == NodeId::ZooKeeper;
        match (self, c) {
            (FaultKind::Crash, Command::KillBroker { power_failure, .. }) => !power_failure,
            (FaultKind::Power, Command::KillBroker { power_failure, .. }) => *power_failure,
            (FaultKind::Restart, Command::RestartBroker { .. })
            | (FaultKind::Shutdown, Command::ShutdownBroker { .. })
            | (FaultKind::Heal, Command::HealLink { .. })
            | (FaultKind::Slow, Command::SlowLink { .. })
            | (FaultKind::CrashConsumer, Command::CrashConsumer { .. }) => true,
            (FaultKind::Cut, Command::CutLink { a, b }) => !zk(a, b),
            (FaultKind::Expire, Command::CutLink { a, b }) => zk(a, b),
            _ => false,
        }
    }
}

/// Whether a command is a fault (of any kind).
pub fn is_fault(c: &Command) -> bool {
    FaultKind::ALL.iter().any(|k| k.is(c))
}

/// A guarantee by its name (`acknowledged_records_survive`).
pub fn parse_guarantee(s: &str) -> Result<Guarantee, String> {
    serde_json::from_value(serde_json::Value::String(s.to_string())).map_err(|_| {
        format!(
            "`{s}` is not a guarantee (one of acknowledged_records_survive, read_committed_isolation, single_owner_per_partition, exactly_once_pipeline, replicas_consistent, one_leader_per_epoch, high_watermark_within_isr, high_watermark_monotonic)"
        )
    })
}

/// The name of a guarantee.
pub fn guarantee_name(g: Guarantee) -> String {
    serde_json::to_value(g)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Where a guarantee broke in a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Violation {
    /// The `guarantee_broken` event's number in the trace.
    pub event: u64,
    /// Its simulated time.
    pub time_ms: u64,
    /// The partition, if the guarantee is about one.
    pub tp: Option<String>,
    /// What broke, in the engine's words.
    pub detail: String,
}

/// Runs `sc` until `guarantee` breaks or the run ends: the violation, if
/// any, and how many events the run recorded (up to the violation).
/// `Err`: the scenario is not valid (a candidate a shrink step made
/// invalid, such as a broker removed that a topic still names).
pub fn run(sc: &Scenario, guarantee: Guarantee) -> Result<(Option<Violation>, u64), String> {
    let mut found = None;
    let mut events = 0u64;
    crate::timeline::stream(sc.clone(), |e, _| {
        events += 1;
        if let EventKind::GuaranteeBroken {
            guarantee: g,
            tp,
            detail,
        } = &e.kind
        {
            if *g == guarantee {
                found = Some(Violation {
                    event: e.id,
                    time_ms: e.time_ms,
                    tp: tp.as_ref().map(|t| t.to_string()),
                    detail: detail.clone(),
                });
                return false;
            }
        }
        events < MAX_EVENTS_PER_RUN
    })
    .map_err(|e| format!("{}: {}", e.field, e.message))?;
    Ok((found, events))
}

/// `base` made ready to search for a break of `g`: the isolation
/// guarantee is asked of every consumer, read_uncommitted ones too (the
/// scenario says so, so a counterexample replays as it is).
pub fn asking(mut base: Scenario, g: Guarantee) -> Scenario {
    if g == Guarantee::ReadCommittedIsolation && !base.check_every_consumer.contains(&g) {
        base.check_every_consumer.push(g);
    }
    base
}

/// What a search looks for, and where.
#[derive(Clone, Debug)]
pub struct Request {
    /// The guarantee whose break is sought.
    pub guarantee: Guarantee,
    /// The fault kinds schedules may use.
    pub faults: Vec<FaultKind>,
    /// The most faults in one schedule (at least 1).
    pub max_faults: usize,
    /// The seed of the search (not the scenario's).
    pub seed: u64,
}

/// A counterexample: a scenario under which the guarantee breaks.
#[derive(Clone, Debug)]
pub struct Counterexample {
    /// The scenario: the base one with its faults added as commands.
    pub scenario: Scenario,
    /// Its faults.
    pub faults: usize,
    /// Events the run recorded up to the violation.
    pub events: u64,
    /// Where it broke.
    pub violation: Violation,
}

impl Counterexample {
    /// A measure shrinking lowers: fewer faults first, then fewer power
    /// failures (a plain crash is the simpler fault), then fewer commands,
    /// clients and brokers, then fewer events before the violation.
    pub fn size(&self) -> (usize, usize, usize, u64) {
        let sc = &self.scenario;
        let powers = sc
            .commands
            .iter()
            .filter(|c| FaultKind::Power.is(&c.command))
            .count();
        (
            self.faults,
            powers,
            sc.commands.len() + sc.producers.len() + sc.consumers.len() + sc.cluster.brokers.len(),
            self.events,
        )
    }
}

/// The nodes and moments a schedule may use, read from the base scenario.
#[derive(Clone, Debug)]
pub struct Targets {
    brokers: Vec<i32>,
    producers: usize,
    consumers: Vec<String>,
    /// Faults go at `1..horizon` ms.
    horizon: u64,
}

impl Targets {
    /// What `sc` offers a schedule: its brokers, clients and the whole run
    /// but its last second (a fault there could only be seen after the end).
    pub fn of(sc: &Scenario) -> Targets {
        Targets {
            brokers: sc.cluster.brokers.clone(),
            producers: sc.producers.len(),
            consumers: sc.consumers.iter().map(|c| c.name.clone()).collect(),
            horizon: sc.run_until_ms.saturating_sub(1000).max(2),
        }
    }

    /// Whether a fault of kind `k` has anything to act on.
    fn offers(&self, k: FaultKind) -> bool {
        match k {
            FaultKind::CrashConsumer => !self.consumers.is_empty(),
            FaultKind::Cut | FaultKind::Heal | FaultKind::Slow => {
                self.brokers.len() >= 2 || self.producers + self.consumers.len() > 0
            }
            _ => !self.brokers.is_empty(),
        }
    }

    /// A link a cut, heal or slow fault may act on: two brokers, or a
    /// client and a broker.
    fn link(&self, r: &mut Rng) -> (NodeId, NodeId) {
        let clients = self.producers + self.consumers.len();
        let pairs = self.brokers.len() * self.brokers.len().saturating_sub(1) / 2;
        let b = |r: &mut Rng, v: &[i32]| NodeId::broker(v[r.below(v.len() as u64) as usize]);
        if clients > 0 && (pairs == 0 || r.chance(1, 3)) {
            let i = r.below(clients as u64) as usize;
            let c = if i < self.producers {
                NodeId::Producer(i as u32)
            } else {
                NodeId::Consumer((i - self.producers) as u32)
            };
            return (c, b(r, &self.brokers));
        }
        let i = r.below(self.brokers.len() as u64) as usize;
        let mut j = r.below(self.brokers.len() as u64 - 1) as usize;
        if j >= i {
            j += 1;
        }
        (
            NodeId::broker(self.brokers[i]),
            NodeId::broker(self.brokers[j]),
        )
    }

    /// A fault of kind `k` on a random target.
    pub(crate) fn fault(&self, k: FaultKind, r: &mut Rng) -> Command {
        let broker = |r: &mut Rng| self.brokers[r.below(self.brokers.len() as u64) as usize];
        match k {
            FaultKind::Crash => Command::KillBroker {
                broker: broker(r),
                power_failure: false,
            },
            FaultKind::Power => Command::KillBroker {
                broker: broker(r),
                power_failure: true,
            },
            FaultKind::Restart => Command::RestartBroker { broker: broker(r) },
            FaultKind::Shutdown => Command::ShutdownBroker { broker: broker(r) },
            FaultKind::Expire => Command::CutLink {
                a: NodeId::broker(broker(r)),
                b: NodeId::ZooKeeper,
            },
            FaultKind::Cut => {
                let (a, b) = self.link(r);
                Command::CutLink { a, b }
            }
            FaultKind::Heal => {
                let (a, b) = self.link(r);
                Command::HealLink { a, b }
            }
            FaultKind::Slow => {
                let (a, b) = self.link(r);
                Command::SlowLink {
                    a,
                    b,
                    extra_latency_ms: [50, 200, 1000, 5000][r.below(4) as usize],
                }
            }
            FaultKind::CrashConsumer => Command::CrashConsumer {
                consumer: self.consumers[r.below(self.consumers.len() as u64) as usize].clone(),
            },
        }
    }
}

/// `base` with `faults` added as commands, every command in time order
/// (commands at the same moment keep their order, the base's first).
pub fn with_faults(base: &Scenario, faults: &[TimedCommand]) -> Scenario {
    let mut sc = base.clone();
    sc.commands.extend(faults.iter().cloned());
    sc.commands.sort_by_key(|c| c.at_ms);
    sc
}

/// The faults among a scenario's commands.
pub fn faults_of(sc: &Scenario) -> usize {
    sc.commands.iter().filter(|c| is_fault(&c.command)).count()
}

/// A random search, one schedule per [`Search::step`], so a caller (the
/// page between frames, the CLI until its budget) decides how long it runs.
pub struct Search {
    base: Scenario,
    req: Request,
    targets: Targets,
    kinds: Vec<FaultKind>,
    rng: Rng,
    tried: u64,
    found: Option<Counterexample>,
}

impl Search {
    /// A search over `base`. Errors: no fault kind applies to the scenario
    /// (a consumer crash with no consumer), or the scenario is invalid.
    pub fn new(base: Scenario, req: Request) -> Result<Search, String> {
        let base = asking(base, req.guarantee);
        base.validate()
            .map_err(|e| format!("{}: {}", e.field, e.message))?;
        let targets = Targets::of(&base);
        let kinds: Vec<FaultKind> = req
            .faults
            .iter()
            .copied()
            .filter(|k| targets.offers(*k))
            .collect();
        if kinds.is_empty() {
            return Err("none of the fault kinds applies to this scenario".into());
        }
        Ok(Search {
            rng: Rng::new(req.seed),
            base,
            req: Request {
                max_faults: req.max_faults.max(1),
                ..req
            },
            targets,
            kinds,
            tried: 0,
            found: None,
        })
    }

    /// The scenario searched (the faults of a schedule are added to it).
    pub fn base(&self) -> &Scenario {
        &self.base
    }

    /// Schedules run so far.
    pub fn tried(&self) -> u64 {
        self.tried
    }

    /// The best counterexample found so far, if any.
    pub fn found(&self) -> Option<&Counterexample> {
        self.found.as_ref()
    }

    /// The next random schedule of 1 to `most` faults (swarm: its own
    /// subset of the kinds).
    pub fn schedule(&mut self, most: usize) -> Vec<TimedCommand> {
        let r = &mut self.rng;
        let mut kinds: Vec<FaultKind> = self
            .kinds
            .iter()
            .copied()
            .filter(|_| r.chance(1, 2))
            .collect();
        if kinds.is_empty() {
            kinds.push(self.kinds[r.below(self.kinds.len() as u64) as usize]);
        }
        let n = r.between(1, most.clamp(1, self.req.max_faults) as u64) as usize;
        let mut out: Vec<TimedCommand> = (0..n)
            .map(|_| {
                let k = kinds[r.below(kinds.len() as u64) as usize];
                TimedCommand {
                    at_ms: r.between(1, self.targets.horizon),
                    command: self.targets.fault(k, r),
                }
            })
            .collect();
        out.sort_by_key(|c| c.at_ms);
        out
    }

    /// Whether the search can do no better: its counterexample has one
    /// fault, or none (the scenario breaks the guarantee by itself).
    pub fn finished(&self) -> bool {
        self.found.as_ref().is_some_and(|c| c.faults <= 1)
    }

    /// Runs one schedule (the base scenario itself first, with no fault).
    /// Once a counterexample is found, later schedules hold fewer faults
    /// than it, and a smaller one found replaces it (so stopping keeps the
    /// best so far). Returns the best counterexample so far.
    pub fn step(&mut self) -> Option<&Counterexample> {
        if self.finished() {
            return self.found.as_ref();
        }
        let faults = if self.tried == 0 {
            Vec::new()
        } else {
            let most = self
                .found
                .as_ref()
                .map_or(self.req.max_faults, |c| c.faults - 1);
            self.schedule(most)
        };
        self.tried += 1;
        let sc = with_faults(&self.base, &faults);
        if let Ok((Some(violation), events)) = run(&sc, self.req.guarantee) {
            let c = Counterexample {
                faults: faults_of(&sc),
                scenario: sc,
                events,
                violation,
            };
            if self.found.as_ref().is_none_or(|f| c.size() < f.size()) {
                self.found = Some(c);
            }
        }
        self.found.as_ref()
    }
}

#[cfg(test)]
mod tests;
