//! Kafka's own metrics, under Kafka's names, computed from the simulation
//! (M1 of CONCEPTS-BEYOND): nothing here is invented, every value is either
//! a count of what the trace says happened or a reading of the world's state.
//!
//! * **Gauges** (`UnderReplicatedPartitions`, `LeaderCount`, `LogEndOffset`,
//!   `buffer-available-bytes` …) are read from the world when asked.
//! * **Meters, timers and client sensors** (`IsrShrinksPerSec`,
//!   `BytesInPerSec`, `record-send-rate`, `records-lag-max` …) are fed by the
//!   [`Recorder`], which the world keeps and shows every event it records
//!   (so a world at step N, from the timeline or a seek, carries its
//!   metrics), on the simulated clock with Kafka's windows ([`stats`]).
//!
//! The registry is one list of [`Def`]s per role ([`broker`], [`producer`],
//! [`consumer`]): a role that lands later (the transaction coordinator, a
//! KRaft quorum) adds its module with its list, its part of the recorder
//! and its readings, and one line in [`DEFS`] and [`Recorder`].
//!
//! [`read`] gives every metric of every live process at one moment, as
//! [`Reading`]s: the JMX object name (`kafka.server:type=ReplicaManager,
//! name=UnderReplicatedPartitions`, `kafka.producer:type=producer-metrics,
//! client-id=p`), the attribute (`Value`, `Count`, `OneMinuteRate`,
//! `99thPercentile`, or a client metric's name) and the value. A stopped
//! broker or consumer reports nothing (its JVM is gone); a restarted one
//! starts from zero, as a new JVM does.

pub mod broker;
pub mod consumer;
pub mod producer;
pub mod stats;
#[cfg(test)]
mod tests;

use crate::event::{Event, EventKind};
use crate::ids::{Millis, NodeId};
use crate::sim::World;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// How a metric is kept, which fixes the attributes it is read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A Yammer `Gauge`: `Value`, read from the state.
    Gauge,
    /// A Yammer `Meter`: `Count` and `OneMinuteRate` (per second).
    Meter,
    /// A Yammer `Histogram` or `Timer` (milliseconds): `Count`, `Mean`,
    /// `50thPercentile`, `99thPercentile` (a timer also `OneMinuteRate`).
    Histogram,
    /// A client metric: one value under the metric's own name.
    Client,
}

/// One metric, documented once.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Def {
    /// Its short name: `name=` of a broker MBean, or the client metric.
    pub name: &'static str,
    /// The MBean it belongs to, without the per-instance tags:
    /// `kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions`,
    /// `kafka.producer:type=producer-metrics`.
    pub mbean: &'static str,
    /// How it is kept.
    pub kind: Kind,
    /// What it means, in English.
    pub meaning: &'static str,
    /// What it means, in 简体中文.
    pub meaning_zh: &'static str,
    /// How the engine computes it.
    pub computed: &'static str,
    /// The Kafka 3.9 code it mirrors.
    pub mirrors: &'static str,
}

/// Every metric, role by role.
pub fn defs() -> impl Iterator<Item = &'static Def> {
    [broker::DEFS, producer::DEFS, consumer::DEFS]
        .into_iter()
        .flatten()
}

/// The definition of the metric named `name`.
pub fn def(name: &str) -> Option<&'static Def> {
    defs().find(|d| d.name == name)
}

/// One value of one metric of one process at one moment.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reading {
    /// The metric's [`Def::name`].
    pub name: &'static str,
    /// The JMX object name with its tags (`…,topic=first,partition=0`,
    /// `…,client-id=p`), shared by a metric's attributes (a step of the
    /// Metrics view reads 14,000 of them at 40 groups of 40).
    pub mbean: Arc<str>,
    /// The attribute read.
    pub attribute: &'static str,
    /// The process that reports it.
    pub node: NodeId,
    /// The value (NaN where Kafka reports NaN: an average with no samples).
    pub value: f64,
}

impl Reading {
    /// The key that names this series across moments: node, MBean, attribute.
    pub fn key(&self) -> String {
        format!("{} {} {}", self.node, self.mbean, self.attribute)
    }
}

/// What the world keeps for the metrics that count events, cloned with the
/// world: a few meters per broker, a few sensors per client, a lag per
/// partition a consumer is assigned, and the requests in flight (at 100
/// brokers and 1,600 consumers, about 4 MB; the page's wasm memory grew
/// by 23 MB in the scale report).
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    /// The time of the last event seen.
    last_ms: Millis,
    broker: broker::Recorder,
    producer: producer::Recorder,
    consumer: consumer::Recorder,
}

impl Recorder {
    /// The time of the last event seen (what [`read`] reads at).
    pub fn last_event_ms(&self) -> Millis {
        self.last_ms
    }

    /// A rough size of a clone of the recorder in bytes (what the
    /// timeline's checkpoints pay for it, see `World::approx_clone_bytes`):
    /// the meters and histograms per broker, the sensors per client, the
    /// lags per assigned partition and the requests in flight.
    pub fn approx_bytes(&self) -> u64 {
        std::mem::size_of::<Self>() as u64
            + self.broker.approx_bytes()
            + self.producer.approx_bytes()
            + self.consumer.approx_bytes()
    }

    /// Takes one recorded event into account (`w`: the world just after
    /// the step that recorded it).
    pub(crate) fn observe(&mut self, e: &Event, w: &World) {
        self.last_ms = e.time_ms;
        self.broker.observe(e);
        self.producer.observe(e, w);
        self.consumer.observe(e);
    }
}

/// Every metric as the world's last event left them (at that event's time:
/// a world seeked to step N reads as it did when event N happened).
pub fn read(w: &World) -> Vec<Reading> {
    read_at(w, w.metrics().last_event_ms())
}

/// Every metric at `now` (the world's time or later, while nothing
/// happens): brokers in id order, then producers, then consumers.
pub fn read_at(w: &World, now: Millis) -> Vec<Reading> {
    read_with(w, now, true)
}

/// [`read_at`], with the per-partition readings (`kafka.log:type=Log`, a
/// consumer's `records-lag` per partition) only when `detail` is set: a
/// cluster of thousands of partitions has tens of thousands of them.
pub fn read_with(w: &World, now: Millis, detail: bool) -> Vec<Reading> {
    let r = w.metrics();
    let mut out = Vec::new();
    broker::read(w, &r.broker, now, detail, &mut out);
    producer::read(w, &r.producer, now, &mut out);
    consumer::read(w, &r.consumer, now, detail, &mut out);
    out
}

/// Runs `scenario` to its end without keeping its trace and reads every
/// metric every `every_ms` of simulated time, from 0 to `run_until_ms`:
/// the reading at `t` sees every event up to and including `t`. `each`
/// gets (events so far, t, readings). Ends as [`crate::timeline::stream`]
/// does: with why the run stopped short, if it did.
pub fn every(
    scenario: crate::Scenario,
    every_ms: Millis,
    mut each: impl FnMut(u64, Millis, Vec<Reading>),
) -> Result<Option<String>, crate::ConfigError> {
    scenario.validate()?;
    if every_ms == 0 {
        return Err(crate::ConfigError {
            field: String::new(),
            message: "the sampling interval must be at least 1 ms".into(),
        });
    }
    let end = scenario.run_until_ms;
    let mut w = World::new(std::sync::Arc::new(scenario));
    w.set_budget(Some(crate::timeline::STREAM_MAX_EVENTS));
    let mut next = Some(0);
    loop {
        due(&w, &mut next, every_ms, end, |t| {
            each(w.events_emitted(), t, read_at(&w, t))
        });
        if !w.step() {
            return Ok(w.halted().map(str::to_string));
        }
        w.drain_events();
        if w.is_frozen() {
            return Ok(Some(crate::timeline::cap_reached(
                w.now(),
                crate::timeline::STREAM_MAX_EVENTS,
            )));
        }
    }
}

/// FNV-1a 64 of every reading of a run, read [`every`] `every_ms`: one
/// number to compare two platforms by (the page and the CLI must read the
/// same values to the last bit).
pub fn fingerprint(scenario: crate::Scenario, every_ms: Millis) -> Result<u64, crate::ConfigError> {
    let mut h: u64 = 0xcbf29ce484222325;
    every(scenario, every_ms, |step, t, rs| {
        for r in rs {
            for b in format!("{step} {t} {} {:?}\n", r.key(), r.value).bytes() {
                h = (h ^ b as u64).wrapping_mul(0x100000001b3);
            }
        }
    })?;
    Ok(h)
}

/// Calls `f` with each sampling time from `next` on that no pending work
/// comes at or before (so a sample at `t` sees every event up to `t`), up
/// to `end`; `next` becomes the first time not yet sampled (`None` past the
/// largest time).
fn due(
    w: &World,
    next: &mut Option<Millis>,
    every: Millis,
    end: Millis,
    mut f: impl FnMut(Millis),
) {
    let upcoming = w.next_time().filter(|t| *t <= end);
    while let Some(t) = next.filter(|t| *t <= end && upcoming.is_none_or(|u| u > *t)) {
        f(t);
        *next = t.checked_add(every);
    }
}

/// How a chart series combines the processes' values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Agg {
    /// The cluster's total (a gauge or rate summed over brokers or clients).
    Sum,
    /// The largest (a lag or latency: the worst process).
    Max,
}

/// One line of a chart: a metric's attribute, combined over processes.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Series {
    /// The metric's [`Def::name`].
    pub name: &'static str,
    /// The attribute read.
    pub attribute: &'static str,
    /// How the processes' values combine.
    pub agg: Agg,
}

/// A chart of the page's metrics view: a title (an i18n key of the app)
/// and the series it draws, all in one unit.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Chart {
    /// The title's key (`chart_replication`, …).
    pub key: &'static str,
    /// Its lines.
    pub series: &'static [Series],
}

const fn line(name: &'static str, attribute: &'static str, agg: Agg) -> Series {
    Series {
        name,
        attribute,
        agg,
    }
}

/// What the page charts, one chart per metric group.
pub const CHARTS: &[Chart] = &[
    Chart {
        key: "chart_replication",
        series: &[
            line("UnderReplicatedPartitions", "Value", Agg::Sum),
            line("UnderMinIsrPartitionCount", "Value", Agg::Sum),
            line("OfflinePartitionsCount", "Value", Agg::Sum),
        ],
    },
    Chart {
        key: "chart_isr",
        series: &[
            line("IsrShrinksPerSec", "OneMinuteRate", Agg::Sum),
            line("IsrExpandsPerSec", "OneMinuteRate", Agg::Sum),
            line("UncleanLeaderElectionsPerSec", "OneMinuteRate", Agg::Sum),
        ],
    },
    Chart {
        key: "chart_throughput",
        series: &[
            line("MessagesInPerSec", "OneMinuteRate", Agg::Sum),
            line("record-send-rate", "record-send-rate", Agg::Sum),
            line("records-consumed-rate", "records-consumed-rate", Agg::Sum),
        ],
    },
    Chart {
        key: "chart_failures",
        series: &[
            line("FailedProduceRequestsPerSec", "OneMinuteRate", Agg::Sum),
            line("record-retry-rate", "record-retry-rate", Agg::Sum),
            line("record-error-rate", "record-error-rate", Agg::Sum),
        ],
    },
    Chart {
        key: "chart_lag",
        series: &[line("records-lag-max", "records-lag-max", Agg::Max)],
    },
    Chart {
        key: "chart_latency",
        series: &[
            line("request-latency-avg", "request-latency-avg", Agg::Max),
            line("commit-latency-avg", "commit-latency-avg", Agg::Max),
            line("rebalance-latency-avg", "rebalance-latency-avg", Agg::Max),
        ],
    },
];

/// The charted values at one moment.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sample {
    /// Events up to and including this moment (where a click seeks to).
    pub step: u64,
    /// The moment.
    pub time_ms: Millis,
    /// One value per series of [`CHARTS`], in order (NaN: no process
    /// reports it, or Kafka's own NaN).
    pub values: Vec<f64>,
}

/// The values of every series of [`CHARTS`] at `now`.
pub fn chart_values(w: &World, now: Millis) -> Vec<f64> {
    let rs = read_with(w, now, false);
    CHARTS
        .iter()
        .flat_map(|c| c.series)
        .map(|s| {
            let vals = rs
                .iter()
                .filter(|r| r.name == s.name && r.attribute == s.attribute)
                .map(|r| r.value)
                .filter(|v| !v.is_nan());
            match s.agg {
                Agg::Sum => vals.fold(None, |a: Option<f64>, v| Some(a.unwrap_or(0.0) + v)),
                Agg::Max => vals.fold(None, |a: Option<f64>, v| Some(a.map_or(v, |a| a.max(v)))),
            }
            .unwrap_or(f64::NAN)
        })
        .collect()
}

/// The most samples a [`Sampler`] keeps.
pub const MAX_SAMPLES: usize = 5_000;

/// Samples the charted values every `every` ms of simulated time while a
/// world runs (the timeline calls [`Sampler::before_step`] before each step).
#[derive(Clone, Debug)]
pub struct Sampler {
    every: Millis,
    next: Option<Millis>,
    samples: Vec<Sample>,
}

impl Sampler {
    /// A sampler that reads every `every` ms (at least 1), from 0.
    pub fn new(every: Millis) -> Sampler {
        Sampler {
            every: every.max(1),
            next: Some(0),
            samples: Vec::new(),
        }
    }

    /// An interval that gives a run of `run_until_ms` about 400 samples, in
    /// whole tens of milliseconds (at least 100 ms).
    pub fn interval_for(run_until_ms: Millis) -> Millis {
        (run_until_ms / 400)
            .div_ceil(10)
            .saturating_mul(10)
            .max(100)
    }

    /// Takes the samples due before `w`'s next step (`events`: the events
    /// recorded so far; `end`: `run_until_ms`).
    pub fn before_step(&mut self, w: &World, end: Millis) {
        let (every, samples) = (self.every, &mut self.samples);
        due(w, &mut self.next, every, end, |t| {
            if samples.len() < MAX_SAMPLES {
                samples.push(Sample {
                    step: w.events_emitted(),
                    time_ms: t,
                    values: chart_values(w, t),
                });
            }
        });
    }

    /// The samples so far, in time order.
    pub fn samples(&self) -> &[Sample] {
        &self.samples
    }

    /// The sampling interval.
    pub fn every(&self) -> Millis {
        self.every
    }
}

/// For each reading of `after`, the value the same series (node, MBean,
/// attribute) had in `before`; None where it is new. Readings come in the
/// same order at every read (brokers by id, then producers, then
/// consumers, each in its definitions' order), so the two lists are walked
/// side by side and a series is looked up only past the first place they
/// part (a node started or stopped, a partition was assigned): no key is
/// built for the 14,000 readings of 40 groups of 40.
pub fn previous(before: &[Reading], after: &[Reading]) -> Vec<Option<f64>> {
    let same = |a: &Reading, b: &Reading| {
        a.node == b.node && a.attribute == b.attribute && a.name == b.name && a.mbean == b.mbean
    };
    let mut out = Vec::with_capacity(after.len());
    let mut i = 0;
    while i < after.len() && i < before.len() && same(&before[i], &after[i]) {
        out.push(Some(before[i].value));
        i += 1;
    }
    if i < after.len() {
        let rest: std::collections::HashMap<(NodeId, &str, &str), f64> = before[i..]
            .iter()
            .map(|r| ((r.node, &*r.mbean, r.attribute), r.value))
            .collect();
        out.extend(
            after[i..]
                .iter()
                .map(|r| rest.get(&(r.node, &*r.mbean, r.attribute)).copied()),
        );
    }
    out
}

/// Whether a series moved: it is new, or its value differs (NaN equals NaN).
pub fn moved(before: Option<f64>, now: f64) -> bool {
    match before {
        Some(v) => !(v == now || (v.is_nan() && now.is_nan())),
        None => true,
    }
}

/// A value as a person reads it: whole numbers whole, others to three
/// places, NaN as JMX shows it.
pub fn display(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

/// Pushes the readings of a Yammer meter.
fn push_meter(
    out: &mut Vec<Reading>,
    d: &Def,
    mbean: Arc<str>,
    node: NodeId,
    m: &stats::Meter,
    now: Millis,
) {
    out.push(Reading {
        name: d.name,
        mbean: mbean.clone(),
        attribute: "Count",
        node,
        value: m.count() as f64,
    });
    out.push(Reading {
        name: d.name,
        mbean,
        attribute: "OneMinuteRate",
        node,
        value: m.one_minute_rate(now),
    });
}

/// Pushes the readings of a Yammer histogram (and the rate of its timer).
fn push_histogram(
    out: &mut Vec<Reading>,
    d: &Def,
    mbean: Arc<str>,
    node: NodeId,
    h: &stats::Histogram,
    timer: Option<(&stats::Meter, Millis)>,
) {
    let mut one = |attribute: &'static str, value: f64| {
        out.push(Reading {
            name: d.name,
            mbean: mbean.clone(),
            attribute,
            node,
            value,
        })
    };
    one("Count", h.count() as f64);
    if let Some((m, now)) = timer {
        one("OneMinuteRate", m.one_minute_rate(now));
    }
    one("Mean", h.mean());
    let snapshot = h.snapshot();
    one("50thPercentile", snapshot.value(0.5));
    one("99thPercentile", snapshot.value(0.99));
    one("Max", h.max());
}

/// Pushes a gauge's `Value`.
fn push_value(out: &mut Vec<Reading>, d: &Def, mbean: Arc<str>, node: NodeId, value: f64) {
    out.push(Reading {
        name: d.name,
        mbean,
        attribute: "Value",
        node,
        value,
    });
}

/// Pushes a client metric (its attribute is its own name).
fn push_client(out: &mut Vec<Reading>, d: &Def, mbean: Arc<str>, node: NodeId, value: f64) {
    out.push(Reading {
        name: d.name,
        mbean,
        attribute: d.name,
        node,
        value,
    });
}

/// The definition named `name` in `defs` (a programming error if absent:
/// the tests read every definition).
fn find(defs: &'static [Def], name: &str) -> &'static Def {
    defs.iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| panic!("metric {name} is not defined"))
}

/// The request or response body of a `MessageSent` event.
fn sent(e: &Event) -> Option<(u64, NodeId, NodeId, Millis, &crate::msg::Message)> {
    match &e.kind {
        EventKind::MessageSent {
            id,
            from,
            to,
            deliver_at,
            message,
        } => Some((*id, *from, *to, *deliver_at, message)),
        _ => None,
    }
}

/// Client requests on the way and responses due at a client (trees: many
/// at scale, inserted and removed anywhere), for the latencies a client
/// measures (`ClientResponse.requestLatencyMs`: from
/// sending the request to receiving its response).
#[derive(Clone, Debug)]
struct Latencies<K: Ord + Clone> {
    /// Requests sent: key → (sent at, message id).
    sent: BTreeMap<K, (Millis, u64)>,
    /// Responses on the way: (arrival, message id) → (key, latency).
    due: BTreeMap<(Millis, u64), (K, Millis)>,
    /// Message id → what it is (`sent` key, or `due` arrival).
    ids: BTreeMap<u64, Pending<K>>,
}

impl<K: Ord + Clone> Latencies<K> {
    /// A rough size in bytes (see [`tree_bytes`]).
    fn approx_bytes(&self) -> u64 {
        use std::mem::size_of;
        tree_bytes(self.sent.len(), size_of::<(K, (Millis, u64))>())
            + tree_bytes(self.due.len(), size_of::<((Millis, u64), (K, Millis))>())
            + tree_bytes(self.ids.len(), size_of::<(u64, Pending<K>)>())
    }
}

/// Bytes of `n` entries of `each` bytes in a B-tree: the entries plus
/// about a third for the nodes' unused slots and edges.
pub(crate) fn tree_bytes(n: usize, each: usize) -> u64 {
    (n * each * 4 / 3) as u64
}

#[derive(Clone, Debug)]
enum Pending<K> {
    Request(K),
    Response(Millis),
}

impl<K: Ord + Clone> Default for Latencies<K> {
    fn default() -> Self {
        Latencies {
            sent: BTreeMap::new(),
            due: BTreeMap::new(),
            ids: BTreeMap::new(),
        }
    }
}

impl<K: Ord + Clone> Latencies<K> {
    /// A request `key` left in message `id` at `now`.
    fn request(&mut self, key: K, id: u64, now: Millis) {
        self.sent.insert(key.clone(), (now, id));
        self.ids.insert(id, Pending::Request(key));
    }

    /// The response to `key` left in message `id`; it arrives at `at`.
    fn response(&mut self, key: K, id: u64, at: Millis) {
        if let Some((t0, req)) = self.sent.remove(&key) {
            self.ids.remove(&req);
            self.due.insert((at, id), (key, at.saturating_sub(t0)));
            self.ids.insert(id, Pending::Response(at));
        }
    }

    /// Whether a response has arrived by `now` that is not recorded yet.
    fn due_by(&self, now: Millis) -> bool {
        self.due.keys().next().is_some_and(|k| k.0 <= now)
    }

    /// Message `id` was dropped on the way.
    fn dropped(&mut self, id: u64) {
        match self.ids.remove(&id) {
            Some(Pending::Request(k)) => {
                self.sent.remove(&k);
            }
            Some(Pending::Response(at)) => {
                self.due.remove(&(at, id));
            }
            None => {}
        }
    }

    /// Responses arrived by `now`, oldest first: (key, arrival, latency).
    fn arrived(&mut self, now: Millis) -> Vec<(K, Millis, Millis)> {
        let mut out = Vec::new();
        let ready: Vec<(Millis, u64)> = self
            .due
            .keys()
            .take_while(|k| k.0 <= now)
            .copied()
            .collect();
        for (at, id) in ready {
            if let Some((k, latency)) = self.due.remove(&(at, id)) {
                out.push((k, at, latency));
            }
            self.ids.remove(&id);
        }
        out
    }
}
