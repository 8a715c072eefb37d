//! A lesson's question to the finder: "can this guarantee break here?",
//! answered `yes` or `no` by a bounded search (`docs/lesson-format.md`,
//! `explore:GUARANTEE` with the step's `explore` bounds).
//!
//! The learner predicts first; then the page runs the search in slices and
//! grades the prediction by what it found. The bound is a number of
//! schedules, not a time, and the seed is fixed, so the answer is the same
//! natively (`tests/lessons.rs` grades every shipped question this way) and
//! in any browser. The search stops at its first counterexample, which is
//! then shrunk (at most [`SHRINK_LIMIT`] candidates) for the learner to
//! watch; `no` means "nothing broke within these bounds", and the page
//! says the bounds.

use super::shrink::Shrinker;
use super::{parse_guarantee, Counterexample, FaultKind, Request, Search};
use crate::event::Guarantee;
use crate::ids::NodeId;
use crate::lesson::Finder;
use crate::scenario::{Command, Scenario};

/// The most shrink candidates a question's counterexample is given.
pub const SHRINK_LIMIT: u64 = 2_000;

/// What the finder answered.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The guarantee asked about.
    pub guarantee: Guarantee,
    /// Schedules the search ran.
    pub tried: u64,
    /// The shrunk counterexample, if the guarantee broke.
    pub found: Option<Counterexample>,
}

impl Outcome {
    /// The answer a question grades against: `yes` (it can break) or `no`.
    pub fn answer(&self) -> &'static str {
        answer(self.found.is_some())
    }
}

/// A question's answer: `yes` when the finder broke the guarantee.
pub fn answer(broke: bool) -> &'static str {
    if broke {
        "yes"
    } else {
        "no"
    }
}

enum Phase {
    Search(Box<Search>),
    Shrink(Box<Shrinker>, u64),
    Done(Box<Outcome>),
}

/// A question being answered, one schedule or shrink candidate per
/// [`Question::step`].
pub struct Question {
    guarantee: Guarantee,
    schedules: u64,
    phase: Phase,
}

/// `sc` with only the producers and consumers named in `keep` (all of them
/// if `keep` is empty): the others leave with every command that names
/// them, and the links of the clients that stay are renumbered (a client's
/// node is its place in the list). Errors name a client that is not there.
pub fn only_clients(sc: &Scenario, keep: &[String]) -> Result<Scenario, String> {
    if keep.is_empty() {
        return Ok(sc.clone());
    }
    for k in keep {
        if !sc.producers.iter().any(|p| &p.name == k) && !sc.consumers.iter().any(|c| &c.name == k)
        {
            return Err(format!(
                "explore.clients: the scenario has no producer or consumer named `{k}`"
            ));
        }
    }
    let gone_p: Vec<String> = sc
        .producers
        .iter()
        .filter(|p| !keep.contains(&p.name))
        .map(|p| p.name.clone())
        .collect();
    let gone_c: Vec<String> = sc
        .consumers
        .iter()
        .filter(|c| !keep.contains(&c.name))
        .map(|c| c.name.clone())
        .collect();
    Ok(without_clients(sc, &gone_p, &gone_c))
}

/// `sc` without the producers `producers` and consumers `consumers` (by
/// name), their commands and links; the links of the clients that stay
/// follow them to their new places.
pub fn without_clients(sc: &Scenario, producers: &[String], consumers: &[String]) -> Scenario {
    let mut out = sc.clone();
    // Old node -> new node (None: the client leaves).
    let renumber = |names: Vec<&String>, gone: &[String]| -> Vec<Option<u32>> {
        let mut next = 0u32;
        names
            .into_iter()
            .map(|n| {
                if gone.contains(n) {
                    None
                } else {
                    next += 1;
                    Some(next - 1)
                }
            })
            .collect()
    };
    let p_map = renumber(sc.producers.iter().map(|p| &p.name).collect(), producers);
    let c_map = renumber(sc.consumers.iter().map(|c| &c.name).collect(), consumers);
    out.producers.retain(|p| !producers.contains(&p.name));
    out.consumers.retain(|c| !consumers.contains(&c.name));
    // A node after the change, or None if it left.
    let node = |n: NodeId| -> Option<NodeId> {
        match n {
            NodeId::Producer(i) => p_map
                .get(i as usize)
                .copied()
                .unwrap_or(Some(i))
                .map(NodeId::Producer),
            NodeId::Consumer(i) => c_map
                .get(i as usize)
                .copied()
                .unwrap_or(Some(i))
                .map(NodeId::Consumer),
            other => Some(other),
        }
    };
    out.commands.retain_mut(|x| {
        let (p, c) = named_clients(&x.command);
        if p.is_some_and(|p| producers.iter().any(|g| g == &p))
            || c.is_some_and(|c| consumers.iter().any(|g| g == &c))
        {
            return false;
        }
        match &mut x.command {
            Command::CutLink { a, b }
            | Command::HealLink { a, b }
            | Command::SlowLink { a, b, .. } => match (node(*a), node(*b)) {
                (Some(na), Some(nb)) => {
                    *a = na;
                    *b = nb;
                    true
                }
                _ => false,
            },
            _ => true,
        }
    });
    out
}

/// The producer and consumer a command names (by name), as its JSON
/// fields `producer` and `consumer` read.
pub(crate) fn named_clients(c: &Command) -> (Option<String>, Option<String>) {
    let v = serde_json::to_value(c).unwrap_or_default();
    let field = |f: &str| v.get(f).and_then(|x| x.as_str()).map(str::to_string);
    (field("producer"), field("consumer"))
}

impl Question {
    /// The question `answer` (`explore:GUARANTEE`) with bounds `f`, asked
    /// of scenario `sc` (its lesson is ignored). Errors name the problem: a
    /// guarantee or fault kind that does not exist, a client the scenario
    /// does not have, a scenario the finder cannot search.
    pub fn new(sc: &Scenario, answer: &str, f: &Finder) -> Result<Question, String> {
        let name = answer
            .strip_prefix("explore:")
            .ok_or_else(|| format!("`{answer}` is not a question to the finder"))?;
        let guarantee = parse_guarantee(name)?;
        let mut faults = Vec::new();
        for k in &f.faults {
            let k = FaultKind::parse(k).map_err(|e| format!("explore.faults: {e}"))?;
            if !faults.contains(&k) {
                faults.push(k);
            }
        }
        let mut base = only_clients(sc, &f.clients)?;
        base.lesson = None;
        let search = Search::new(
            base,
            Request {
                guarantee,
                faults,
                max_faults: f.max_faults as usize,
                seed: f.seed,
            },
        )?;
        Ok(Question {
            guarantee,
            schedules: f.schedules,
            phase: Phase::Search(Box::new(search)),
        })
    }

    /// Runs one schedule or one shrink candidate. Returns false once the
    /// answer is known.
    pub fn step(&mut self) -> bool {
        match &mut self.phase {
            Phase::Search(s) => {
                if let Some(c) = s.found().cloned() {
                    let tried = s.tried();
                    self.phase = Phase::Shrink(Box::new(Shrinker::new(c, self.guarantee)), tried);
                } else if s.tried() >= self.schedules {
                    self.phase = Phase::Done(Box::new(Outcome {
                        guarantee: self.guarantee,
                        tried: s.tried(),
                        found: None,
                    }));
                } else {
                    s.step();
                }
                true
            }
            Phase::Shrink(sh, tried) => {
                if sh.counts().0 >= SHRINK_LIMIT || !sh.step() {
                    self.phase = Phase::Done(Box::new(Outcome {
                        guarantee: self.guarantee,
                        tried: *tried,
                        found: Some(sh.best().clone()),
                    }));
                }
                true
            }
            Phase::Done(_) => false,
        }
    }

    /// Schedules run so far, and whether the search has found a break (the
    /// shrink is under way or done).
    pub fn progress(&self) -> (u64, bool) {
        match &self.phase {
            Phase::Search(s) => (s.tried(), false),
            Phase::Shrink(_, tried) => (*tried, true),
            Phase::Done(o) => (o.tried, o.found.is_some()),
        }
    }

    /// The answer, once the search (and the shrink) are over.
    pub fn outcome(&self) -> Option<&Outcome> {
        match &self.phase {
            Phase::Done(o) => Some(o),
            _ => None,
        }
    }

    /// Runs to the answer.
    pub fn finish(mut self) -> Outcome {
        loop {
            if let Phase::Done(o) = self.phase {
                return *o;
            }
            self.step();
        }
    }
}
