//! The consumer group protocol of KIP-848 (Kafka 4.1.0) under churn, over
//! many seeds (`KIP848_SEEDS`, default 1,000): the group coordinator's
//! state machine (`group::consumer_group`) and the members' clients
//! (`consumer::membership`), joined by a network that delays and loses
//! heartbeats. Each seed runs 1–3 topics and 1–5 consumers with their own
//! subscriptions (so both uniform builders and the range assignor run),
//! then for 150 s: consumers join, crash, leave, cut off from the
//! coordinator for a while (zombies) or deaf to its answers (their epoch
//! moves on unheard), static members restart, topics gain
//! partitions, and the coordinator fails over (the new one loads the group
//! from its records). Then the network heals and the group settles.
//!
//! After every delivery and every timer, no guarantee breaks:
//! * the coordinator's state replays without an IllegalStateException
//!   (Kafka's own check that no partition is held at two epochs);
//! * no partition is held by two members in the coordinator's view
//!   (assigned or pending revocation);
//! * a consumer whose epoch is the coordinator's epoch for it owns only
//!   partitions the coordinator holds for it, so no two consumers that
//!   could commit own one partition (never two owners across epochs);
//! * an offset commit is accepted only from such a consumer: a fenced
//!   zombie's is refused UNKNOWN_MEMBER_ID, a stale epoch's
//!   STALE_MEMBER_EPOCH;
//! * a coordinator that fails over loads exactly the group it had.
//!
//! And at the end: every running consumer is STABLE at the group epoch,
//! which is the target assignment epoch; the coordinator's members are
//! exactly the running consumers; every partition of a subscribed topic is
//! owned by exactly one consumer subscribed to it.

use kafka_sim::collections::SortedMap;
use kafka_sim::consumer::membership::{ClientState, MembershipClient};
use kafka_sim::group::consumer_group::{
    ConsumerGroup, GroupRecord, HeartbeatRequest, HeartbeatResponse, MemberState, Partitions,
    Refusal,
};
use kafka_sim::msg::ErrorCode;
use kafka_sim::rng::Rng;

const STEP: u64 = 25;
const CHURN_END: u64 = 150_000;
const END: u64 = 330_000;
const REQUEST_TIMEOUT: u64 = 30_000;

enum Payload {
    Req(HeartbeatRequest),
    Resp(Result<HeartbeatResponse, Refusal>),
}

struct Msg {
    at: u64,
    client: usize,
    payload: Payload,
}

struct Consumer {
    c: MembershipClient,
    alive: bool,
    cut_until: u64,
    /// Until then the coordinator's answers are lost on the way back.
    deaf_until: u64,
    sent_at: u64,
}

struct World {
    seed: u64,
    rng: Rng,
    now: u64,
    topics: SortedMap<String, i32>,
    ids: SortedMap<String, String>,
    group: ConsumerGroup,
    log: Vec<GroupRecord>,
    consumers: Vec<Consumer>,
    net: Vec<Msg>,
    loss: u64,
    next_id: u64,
    stats: SortedMap<String, u64>,
}

impl World {
    fn fail(&self, what: &str) -> ! {
        panic!("seed {} at {} ms: {what}", self.seed, self.now)
    }

    fn subscription(&mut self) -> Vec<String> {
        let all: Vec<String> = self.topics.keys().cloned().collect();
        let mut s: Vec<String> = all
            .iter()
            .filter(|_| self.rng.chance(2, 3))
            .cloned()
            .collect();
        if s.is_empty() {
            s.push(all[self.rng.below(all.len() as u64) as usize].clone());
        }
        s
    }

    fn add_consumer(&mut self, instance: Option<String>, assignor: &Option<String>) {
        let id = format!("m{:03}-{}", self.next_id, self.rng.below(1 << 20));
        self.next_id += 1;
        let subs = self.subscription();
        let mut c = MembershipClient::new(&id, subs);
        c.instance_id = instance;
        c.server_assignor.clone_from(assignor);
        c.revoke_ms = self.rng.below(3000);
        self.consumers.push(Consumer {
            c,
            alive: true,
            cut_until: 0,
            deaf_until: 0,
            sent_at: 0,
        });
    }

    fn lost(&mut self, client: usize) -> bool {
        let cut = self.consumers[client].cut_until > self.now;
        cut || (self.now < CHURN_END && self.loss > 0 && self.rng.below(100) < self.loss)
    }

    fn count(&mut self, what: &str) {
        *self.stats.entry(what.to_string()).or_default() += 1;
    }

    fn record(&mut self, records: &[GroupRecord], answer_err: Option<&Refusal>) {
        if let Some((ErrorCode::UnknownServerError, e)) = answer_err {
            self.fail(&format!("the coordinator's state broke: {e}"));
        }
        if let Some((code, _)) = answer_err {
            self.count(code.name_str());
        }
        for r in records {
            if let GroupRecord::ConsumerGroupCurrentMemberAssignment { value: Some(v), .. } = r {
                if v.state == MemberState::UnrevokedPartitions {
                    self.count("member must revoke");
                }
                if v.state == MemberState::UnreleasedPartitions {
                    self.count("member waits for unreleased");
                }
            }
        }
        self.log.extend_from_slice(records);
    }

    fn step(&mut self) {
        // Clients send.
        for i in 0..self.consumers.len() {
            if !self.consumers[i].alive {
                continue;
            }
            let now = self.now;
            let c = &mut self.consumers[i];
            if c.c.in_flight && now >= c.sent_at + REQUEST_TIMEOUT {
                c.c.on_lost(now);
            }
            if let Some(req) = c.c.next_request(now) {
                c.sent_at = now;
                let lost = self.lost(i);
                if !lost {
                    let at = now + 1 + self.rng.below(40);
                    self.net.push(Msg {
                        at,
                        client: i,
                        payload: Payload::Req(req),
                    });
                }
            }
        }
        // Deliveries due.
        let mut due: Vec<Msg> = Vec::new();
        let mut i = 0;
        while i < self.net.len() {
            if self.net[i].at <= self.now {
                due.push(self.net.remove(i));
            } else {
                i += 1;
            }
        }
        for m in due {
            match m.payload {
                Payload::Req(req) => {
                    let o = self
                        .group
                        .heartbeat(&req, &self.topics, &self.ids, self.now);
                    self.record(&o.records, o.answer.as_ref().err());
                    let deaf = self.consumers[m.client].deaf_until > self.now;
                    if !deaf && !self.lost(m.client) {
                        let at = self.now + 1 + self.rng.below(40);
                        self.net.push(Msg {
                            at,
                            client: m.client,
                            payload: Payload::Resp(o.answer),
                        });
                    }
                }
                Payload::Resp(r) => {
                    let c = &mut self.consumers[m.client];
                    if c.alive && c.c.in_flight {
                        c.c.on_response(r, self.now);
                    }
                }
            }
            self.check();
        }
        let fenced = self.group.expire(&self.topics, self.now);
        for (_, o) in &fenced {
            self.count("fenced by a timeout");
            let err = o.answer.as_ref().err().cloned();
            self.record(&o.records, err.as_ref());
        }
        if !fenced.is_empty() {
            self.check();
        }
        // Commits: now and then every consumer commits what it owns.
        if self.rng.below(40) == 0 {
            for c in self.consumers.iter().filter(|c| c.alive && c.c.is_active()) {
                let ok = self.group.validate_offset_commit(&c.c.member_id, c.c.epoch);
                match (&ok, self.group.members.get(&c.c.member_id)) {
                    (Ok(()), Some(m)) if m.member_epoch == c.c.epoch => {
                        if !within(&c.c.owned, &m.assigned, &m.pending_revocation) {
                            self.fail(&format!(
                                "{} committed partitions it does not hold",
                                c.c.member_id
                            ));
                        }
                    }
                    (Ok(()), _) => self.fail("a commit from no member at its epoch was accepted"),
                    (Err((ErrorCode::UnknownMemberId, _)), None) => {
                        *self
                            .stats
                            .entry("zombie commit refused".into())
                            .or_default() += 1;
                    }
                    (Err((ErrorCode::StaleMemberEpoch, _)), Some(m))
                        if m.member_epoch != c.c.epoch =>
                    {
                        *self.stats.entry("stale commit refused".into()).or_default() += 1;
                    }
                    (Err(e), _) => self.fail(&format!("commit refused wrongly: {e:?}")),
                }
            }
        }
    }

    /// The guarantees that hold after every step.
    fn check(&self) {
        let mut held: SortedMap<(String, i32), &str> = SortedMap::new();
        for m in self.group.members.values() {
            for (t, ps) in m.assigned.iter().chain(m.pending_revocation.iter()) {
                for p in ps {
                    if let Some(o) = held.insert((t.clone(), *p), &m.member_id) {
                        self.fail(&format!("{t}-{p} held by {o} and {}", m.member_id));
                    }
                }
            }
        }
        let mut owner: SortedMap<(String, i32), &str> = SortedMap::new();
        for c in self.consumers.iter().filter(|c| c.alive) {
            let Some(m) = self.group.members.get(&c.c.member_id) else {
                continue;
            };
            if m.member_epoch != c.c.epoch {
                continue;
            }
            if !within(&c.c.owned, &m.assigned, &m.pending_revocation) {
                self.fail(&format!(
                    "{} at epoch {} owns {:?}, the coordinator holds {:?} + {:?}",
                    c.c.member_id, c.c.epoch, c.c.owned, m.assigned, m.pending_revocation
                ));
            }
            for (t, ps) in c.c.owned.iter() {
                for p in ps {
                    if let Some(o) = owner.insert((t.clone(), *p), &c.c.member_id) {
                        self.fail(&format!("{t}-{p} owned by {o} and {}", c.c.member_id));
                    }
                }
            }
        }
    }

    fn churn(&mut self, assignor: &Option<String>) {
        let live: Vec<usize> = (0..self.consumers.len())
            .filter(|&i| self.consumers[i].alive && self.consumers[i].c.is_active())
            .collect();
        let pick = |w: &mut World| -> Option<usize> {
            (!live.is_empty()).then(|| live[w.rng.below(live.len() as u64) as usize])
        };
        match self.rng.below(8) {
            0 | 1 => {
                let inst = self
                    .rng
                    .chance(1, 3)
                    .then(|| format!("host-{}", self.rng.below(4)));
                self.add_consumer(inst, assignor);
            }
            2 => {
                if let Some(i) = pick(self) {
                    self.consumers[i].alive = false; // crash
                }
            }
            3 => {
                if let Some(i) = pick(self) {
                    self.consumers[i].c.leave();
                }
            }
            4 => {
                if let Some(i) = pick(self) {
                    let d = 5_000 + self.rng.below(55_000);
                    if self.rng.chance(1, 2) {
                        self.consumers[i].cut_until = self.now + d;
                    } else {
                        // Requests arrive, answers are lost: the member's
                        // epoch may move on without it hearing.
                        self.consumers[i].deaf_until = self.now + d;
                    }
                }
            }
            5 => {
                let names: Vec<String> = self.topics.keys().cloned().collect();
                let t = names[self.rng.below(names.len() as u64) as usize].clone();
                let add = 1 + self.rng.below(4) as i32;
                *self.topics.get_mut(&t).expect("a topic") += add;
            }
            6 => {
                // Coordinator fail-over: the new one loads the records.
                let loaded = ConsumerGroup::load("g", &self.log, self.now)
                    .unwrap_or_else(|e| self.fail(&format!("load: {e}")));
                if loaded.members != self.group.members
                    || loaded.target != self.group.target
                    || loaded.partition_epochs != self.group.partition_epochs
                    || loaded.group_epoch != self.group.group_epoch
                    || loaded.assignment_epoch != self.group.assignment_epoch
                    || loaded.member_order() != self.group.member_order()
                {
                    self.fail("the loaded group differs from the one that failed");
                }
                self.group = loaded;
                self.count("coordinator failed over");
                self.net.clear();
                let now = self.now;
                for c in self.consumers.iter_mut().filter(|c| c.c.in_flight) {
                    c.c.on_lost(now);
                }
            }
            _ => {
                // A static member restarts: leave (-2), then a new process.
                let statics: Vec<usize> = live
                    .iter()
                    .copied()
                    .filter(|&i| self.consumers[i].c.instance_id.is_some())
                    .collect();
                if let Some(&i) = statics.first() {
                    let inst = self.consumers[i].c.instance_id.clone();
                    self.consumers[i].c.leave();
                    self.add_consumer(inst, assignor);
                }
            }
        }
    }
}

fn within(owned: &Partitions, a: &Partitions, b: &Partitions) -> bool {
    owned.iter().all(|(t, ps)| {
        ps.iter().all(|p| {
            a.get(t).is_some_and(|x| x.contains(p)) || b.get(t).is_some_and(|x| x.contains(p))
        })
    })
}

fn run(seed: u64) -> SortedMap<String, u64> {
    let mut rng = Rng::new(seed);
    let n_topics = 1 + rng.below(3);
    let topics: SortedMap<String, i32> = (0..n_topics)
        .map(|t| (format!("t{t}"), 1 + rng.below(8) as i32))
        .collect();
    let ids = SortedMap::new();
    let assignor = match rng.below(3) {
        0 => Some("range".to_string()),
        1 => Some("uniform".to_string()),
        _ => None,
    };
    let mut w = World {
        seed,
        rng,
        now: 0,
        topics,
        ids,
        group: ConsumerGroup::new("g"),
        log: Vec::new(),
        consumers: Vec::new(),
        net: Vec::new(),
        loss: 0,
        next_id: 0,
        stats: SortedMap::new(),
    };
    w.loss = w.rng.below(6);
    let first = 1 + w.rng.below(5);
    for _ in 0..first {
        w.add_consumer(None, &assignor);
    }
    let n_events = 3 + w.rng.below(8);
    let mut events: Vec<u64> = (0..n_events)
        .map(|_| 5_000 + w.rng.below(CHURN_END - 20_000))
        .collect();
    events.sort_unstable();
    while w.now < END {
        while events.first().is_some_and(|at| *at <= w.now) {
            events.remove(0);
            w.churn(&assignor);
        }
        w.step();
        w.now += STEP;
    }
    // Settled.
    let running: Vec<&Consumer> = w
        .consumers
        .iter()
        .filter(|c| c.alive && c.c.is_active())
        .collect();
    let g = &w.group;
    // (An empty group keeps the epoch its last fence bumped: no heartbeat
    // comes to compute a target, as in Kafka.)
    if !g.members.is_empty() && g.group_epoch != g.assignment_epoch {
        w.fail("the target assignment lags the group epoch");
    }
    let mut ids_running: Vec<&str> = running.iter().map(|c| c.c.member_id.as_str()).collect();
    ids_running.sort_unstable();
    let ids_group: Vec<&str> = g.members.keys().map(String::as_str).collect();
    if ids_running != ids_group {
        w.fail(&format!(
            "members {ids_group:?}, running consumers {ids_running:?}"
        ));
    }
    let mut owner: SortedMap<(String, i32), &str> = SortedMap::new();
    for c in &running {
        let m = &g.members[&c.c.member_id];
        if c.c.state != ClientState::Stable
            || c.c.epoch != g.group_epoch
            || m.state != MemberState::Stable
            || m.member_epoch != g.group_epoch
            || c.c.owned != m.assigned
        {
            w.fail(&format!(
                "{} not settled: client {:?} epoch {} owns {:?}; coordinator {:?} epoch {} holds {:?}; group epoch {}",
                c.c.member_id, c.c.state, c.c.epoch, c.c.owned, m.state, m.member_epoch, m.assigned, g.group_epoch
            ));
        }
        for (t, ps) in c.c.owned.iter() {
            if !c.c.subscription.contains(t) {
                w.fail(&format!(
                    "{} owns {t} it does not subscribe to",
                    c.c.member_id
                ));
            }
            for p in ps {
                owner.insert((t.clone(), *p), &c.c.member_id);
            }
        }
    }
    for (t, n) in w.topics.iter() {
        if !running.iter().any(|c| c.c.subscription.contains(t)) {
            continue;
        }
        for p in 0..*n {
            if !owner.contains_key(&(t.clone(), p)) {
                w.fail(&format!("{t}-{p} has no owner"));
            }
        }
    }
    w.stats
}

#[test]
fn kip848_group_guarantees_hold_under_churn() {
    let seeds: u64 = std::env::var("KIP848_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let mut total: SortedMap<String, u64> = SortedMap::new();
    for seed in 0..seeds {
        for (k, v) in run(seed) {
            *total.entry(k).or_default() += v;
        }
    }
    eprintln!("{seeds} seeds: {total:?}");
    // The sweep reaches what it claims to test.
    for what in [
        "member must revoke",
        "member waits for unreleased",
        "fenced by a timeout",
        "coordinator failed over",
        "zombie commit refused",
        "stale commit refused",
        "FENCED_MEMBER_EPOCH",
        "UNKNOWN_MEMBER_ID",
        "UNRELEASED_INSTANCE_ID",
    ] {
        if seeds >= 200 {
            assert!(
                total.get(what).copied().unwrap_or(0) > 0,
                "no seed had: {what}"
            );
        }
    }
}
