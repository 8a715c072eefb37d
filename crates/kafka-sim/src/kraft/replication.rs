//! The active controller's partitions (Kafka 4.1.0 `ReplicationControlManager`,
//! `PartitionChangeBuilder` and `StripedReplicaPlacer`): topic creation,
//! the partition changes a fenced, unfenced or restarted broker causes,
//! `AlterPartition` from partition leaders, and producer id blocks
//! (`ProducerIdControlManager`).
//!
//! * **Creation** (RCM:706-851), of the scenario's topics and of
//!   internal topics a broker asks for with CreateTopics: replicas placed by the striped placer over
//!   the registered brokers (or as `replica.assignment` says), ISR = the
//!   replicas that are active (registered, unfenced), leader = the first of
//!   the ISR, epochs 0. A `TopicRecord`, its `ConfigRecord`s, then one
//!   `PartitionRecord` per partition.
//! * **Changes** (`PartitionChangeBuilder.build`, PCB:440-475): the target
//!   ISR, then ELR (KIP-966: when the ISR falls below `min.insync.replicas`
//!   the replicas that leave it become *eligible leader replicas*, PCB:
//!   541-575), then an election: the current leader if still valid, else
//!   the first replica in the ISR (or, the ISR empty, in the ELR) that is
//!   an acceptable leader (PCB:243-265). Since metadata.version 3.6-IV0 an
//!   ISR shrink does not bump the leader epoch (PCB:355-378); a new leader
//!   does. Only what changes is written, and nothing when nothing does.
//! * **Broker events**: fenced → it leaves every ISR, its leaderships move
//!   (RCM:1362-1373); unfenced → leaderless partitions may elect it
//!   (RCM:1407-1414); in controlled shutdown (its heartbeat asks to shut
//!   down while it leads) → a BrokerRegistrationChangeRecord marks it, it
//!   leaves every ISR and its leaderships move (RCM:1427-1437); registered
//!   again after a crash or power failure (an unclean shutdown: no
//!   previous broker epoch from clean-shutdown files) → it leaves every ISR
//!   and ELR; after a clean stop, as if fenced (RCM:1445-1456, CCM:432-437).
//! * **Unclean election** (`unclean.leader.election.enable`, RCM:2023-2025,
//!   PCB:275-283, 348-355): when no ISR member, ELR member or last known
//!   leader can lead, the first live replica does, whatever the reason for
//!   the change (a fenced broker, a controlled shutdown: unlike 3.9's
//!   controlled-shutdown election); the ISR becomes just it and the
//!   partition is RECOVERING until its leader's AlterPartition says
//!   RECOVERED. (The periodic `electUnclean` task, for a setting turned on
//!   later, is not modelled: settings do not change during a run.)
//! * **AlterPartition** (RCM:1064-1160, validation 1230-1340): checked
//!   against the partition and leader epochs and the brokers' registrations
//!   (INELIGIBLE_REPLICA for a fenced one), written, answered once committed.
//!
//! Departures: Kafka iterates partitions in its hash maps' orders; here by
//! topic name and partition. Java's `HashSet` of broker ids (the ELR) is
//! ordered as Java orders it ([`java_hash_order`]). The placer draws from the
//! simulation's random numbers, not `java.util.Random`, and walks racks in
//! name order. Reassignment is not modelled in 4.1 mode yet (refused by
//! the scenario checks).

use super::records::{MetadataRecord, NO_LEADER_CHANGE};
use super::{ClusterImage, ControllerCx, PartitionRegistration};
use crate::event::EventKind;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::kernel::Step;
use crate::msg::{ErrorCode, Message};

/// The order Java's `HashSet<Integer>` iterates `items` in (duplicates
/// dropped): by bucket `(h ^ h >>> 16) & (capacity - 1)`, then insertion,
/// with the table growing from 16 as it fills past 0.75.
pub fn java_hash_order(items: impl IntoIterator<Item = i32>) -> Vec<i32> {
    let mut seen: Vec<i32> = Vec::new();
    for i in items {
        if !seen.contains(&i) {
            seen.push(i);
        }
    }
    let mut cap: usize = 16;
    while seen.len() * 4 > cap * 3 {
        cap *= 2;
    }
    let bucket = |i: i32| {
        let h = i as u32;
        ((h ^ (h >> 16)) as usize) & (cap - 1)
    };
    let mut out = seen.clone();
    // Stable: within a bucket, insertion order.
    out.sort_by_key(|i| bucket(*i));
    out
}

/// What a partition change is asked to do.
pub struct ChangeRequest<'a> {
    /// The partition now.
    pub partition: &'a PartitionRegistration,
    /// Its topic's id, and (for captions) name.
    pub topic_id: &'a str,
    /// Its topic's name.
    pub topic: &'a str,
    /// Its index.
    pub partition_id: i32,
    /// The ISR it should have.
    pub target_isr: Vec<i32>,
    /// A broker restarted after an unclean shutdown: it may not stay in the ELR.
    pub unclean_shutdown: Option<i32>,
    /// The topic's effective `min.insync.replicas`.
    pub min_isr: usize,
    /// `eligible.leader.replicas.version` ≥ 1.
    pub elr_enabled: bool,
    /// The topic's `unclean.leader.election.enable` (`Election.UNCLEAN`,
    /// RCM:2023-2025): with no ISR, ELR or last known leader to elect, any
    /// live replica may lead.
    pub unclean_election: bool,
    /// The leader says it recovered (AlterPartition's `leaderRecoveryState`
    /// RECOVERED, `setTargetLeaderRecoveryState`, RCM:1132).
    pub recovered: bool,
}

/// `PartitionChangeBuilder.build` for an ONLINE election: the record to
/// write, or None when nothing changes.
pub fn build_change(
    req: ChangeRequest<'_>,
    acceptable: &dyn Fn(i32) -> bool,
) -> Option<MetadataRecord> {
    let p = req.partition;
    let mut target_isr = req.target_isr;
    let mut target_elr = p.elr.clone();
    let mut target_lke = p.last_known_elr.clone();
    // maybePopulateTargetElr (PCB:541-575).
    if req.elr_enabled {
        if target_isr.len() >= req.min_isr {
            target_elr.clear();
            target_lke.clear();
        } else {
            let candidates = java_hash_order(target_elr.iter().chain(&p.isr).copied());
            target_elr = candidates
                .iter()
                .copied()
                .filter(|r| !target_isr.contains(r) && req.unclean_shutdown != Some(*r))
                .collect();
            let all = java_hash_order(candidates.iter().chain(&target_lke).copied());
            target_lke = all
                .into_iter()
                .filter(|r| !target_isr.contains(r) && !target_elr.contains(r))
                .collect();
        }
    }
    let mut isr_set: Option<Vec<i32>> = None;
    let mut leader = NO_LEADER_CHANGE;
    let mut recovery = None;
    // tryElection / electAnyLeader (PCB:243-265, 306-340).
    let valid = |r: i32, isr: &[i32], elr: &[i32]| {
        (isr.contains(&r) || (isr.is_empty() && elr.contains(&r))) && acceptable(r)
    };
    let (node, unclean) = if valid(p.leader, &target_isr, &target_elr) {
        (p.leader, false)
    } else if let Some(r) = p
        .replicas
        .iter()
        .copied()
        .find(|r| valid(*r, &target_isr, &target_elr))
    {
        (r, false)
    } else if req.elr_enabled
        && target_elr.is_empty()
        && target_isr.is_empty()
        && p.last_known_elr.len() == 1
        && acceptable(p.last_known_elr[0])
    {
        // canElectLastKnownLeader: the last leader, though not in the ISR.
        (p.last_known_elr[0], true)
    } else if let Some(r) = p
        .replicas
        .iter()
        .copied()
        .filter(|_| req.unclean_election)
        .find(|r| acceptable(*r))
    {
        // Election.UNCLEAN (PCB:275-283): the first acceptable replica in
        // replica order, in the ISR or not. The ISR becomes just it.
        (r, true)
    } else {
        (-1, false)
    };
    if node != p.leader {
        if target_elr.contains(&node) {
            target_isr = vec![node];
            target_elr.retain(|r| *r != node);
        }
        leader = node;
        if unclean {
            // PCB:348-355: the ISR is forced to the new leader, and the
            // partition is marked RECOVERING.
            isr_set = Some(vec![node]);
            if !p.recovering {
                recovery = Some(1);
            }
        }
    }
    if recovery.is_none() && req.recovered && p.recovering {
        recovery = Some(0);
    }
    // maybeUpdateRecordElr (PCB:505-539).
    let mut elr_set = None;
    let mut lke_set = None;
    if isr_set.is_some() || !req.elr_enabled {
        target_elr.clear();
        target_lke.clear();
    }
    if target_elr != p.elr {
        elr_set = Some(target_elr);
    }
    // (useLastKnownLeaderInBalancedRecovery: the last known ELR holds the
    // last leader, set below.)
    // The ISR (PCB:455-462): an empty one only with ELR.
    if isr_set.is_none() && (!target_isr.is_empty() || req.elr_enabled) && target_isr != p.isr {
        isr_set = Some(target_isr);
    }
    // maybeUpdateLastKnownLeader (PCB:489-503).
    if req.elr_enabled {
        if isr_set.as_ref().is_some_and(Vec::is_empty)
            && (p.last_known_elr.len() != 1 || p.last_known_elr[0] != p.leader)
        {
            lke_set = Some(vec![p.leader]);
        } else if (leader >= 0 || (p.leader != -1 && leader != -1)) && !p.last_known_elr.is_empty()
        {
            lke_set = Some(Vec::new());
        }
    }
    if isr_set.is_none()
        && leader == NO_LEADER_CHANGE
        && elr_set.is_none()
        && lke_set.is_none()
        && recovery.is_none()
    {
        return None;
    }
    Some(MetadataRecord::PartitionChangeRecord {
        partition_id: req.partition_id,
        topic_id: req.topic_id.to_string(),
        topic: req.topic.to_string(),
        isr: isr_set,
        leader,
        eligible_leader_replicas: elr_set,
        last_known_elr: lke_set,
        leader_recovery_state: recovery,
    })
}

/// `StripedReplicaPlacer.place` (Kafka 4.1.0): replicas striped over racks
/// (brokers without a rack share one), each rack's unfenced brokers from a
/// random offset that moves on with each partition; after as many
/// partitions as there are unfenced brokers, racks and brokers are
/// shuffled. Errors are Kafka's `InvalidReplicationFactorException` messages.
pub fn striped_place(
    brokers: &[(i32, Option<String>, bool)],
    partitions: i32,
    rf: i32,
    rng: &mut crate::rng::Rng,
) -> Result<Vec<Vec<i32>>, String> {
    #[derive(Default, Clone)]
    struct List {
        brokers: Vec<i32>,
        index: usize,
        offset: usize,
        epoch: u32,
    }
    impl List {
        fn init(&mut self, rng: &mut crate::rng::Rng) {
            if !self.brokers.is_empty() {
                self.brokers.sort();
                self.offset = rng.below(self.brokers.len() as u64) as usize;
            }
        }
        fn shuffle(&mut self, rng: &mut crate::rng::Rng) {
            shuffle(&mut self.brokers, rng);
        }
        fn next(&mut self, epoch: u32) -> i32 {
            if self.brokers.is_empty() {
                return -1;
            }
            if self.epoch != epoch {
                self.epoch = epoch;
                self.index = 0;
                self.offset = (self.offset + 1) % self.brokers.len();
            }
            if self.index >= self.brokers.len() {
                return -1;
            }
            let b = self.brokers[(self.index + self.offset) % self.brokers.len()];
            self.index += 1;
            b
        }
    }
    fn shuffle<T>(v: &mut [T], rng: &mut crate::rng::Rng) {
        // `Collections.shuffle`: from the end, swap with a random earlier one.
        for i in (1..v.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
    }
    if rf <= 0 {
        return Err(format!(
            "Invalid replication factor {rf}: the replication factor must be positive."
        ));
    }
    let mut names: Vec<Option<String>> = Vec::new();
    for (_, rack, _) in brokers {
        if !names.contains(rack) {
            names.push(rack.clone());
        }
    }
    names.sort();
    let mut racks: Vec<(List, List)> = vec![Default::default(); names.len()];
    let mut unfenced = 0;
    for (id, rack, fenced) in brokers {
        let i = names.iter().position(|n| n == rack).expect("listed");
        if *fenced {
            racks[i].0.brokers.push(*id);
        } else {
            racks[i].1.brokers.push(*id);
            unfenced += 1;
        }
    }
    for (f, u) in racks.iter_mut() {
        f.init(rng);
        u.init(rng);
    }
    let mut offset = if names.is_empty() {
        0
    } else {
        rng.below(names.len() as u64) as usize
    };
    if unfenced == 0 {
        return Err("All brokers are currently fenced.".into());
    }
    if rf as usize > brokers.len() {
        return Err(format!(
            "The target replication factor of {rf} cannot be reached because only {} broker(s) are registered.",
            brokers.len()
        ));
    }
    let mut epoch: u32 = 0;
    let mut out = Vec::new();
    for _ in 0..partitions {
        if epoch as usize == unfenced && unfenced > 1 {
            // Shuffle the racks' order and each rack's brokers.
            let mut order: Vec<usize> = (0..names.len()).collect();
            shuffle(&mut order, rng);
            names = order.iter().map(|i| names[*i].clone()).collect();
            racks = order.iter().map(|i| racks[*i].clone()).collect();
            for (f, u) in racks.iter_mut() {
                f.shuffle(rng);
                u.shuffle(rng);
            }
            epoch = 0;
        }
        if offset == names.len() {
            offset = 0;
        }
        let mut replicas = Vec::with_capacity(rf as usize);
        let mut first = offset;
        loop {
            let r = racks[first].1.next(epoch);
            if r >= 0 {
                replicas.push(r);
                break;
            }
            first = (first + 1) % names.len();
        }
        let mut first = Some(first);
        let mut rack = offset;
        for _ in 1..rf {
            let mut r = -1;
            while r < 0 {
                if Some(rack) == first {
                    first = None;
                } else {
                    r = racks[rack].1.next(epoch);
                    if r < 0 {
                        r = racks[rack].0.next(epoch);
                    }
                }
                rack = (rack + 1) % names.len();
            }
            replicas.push(r);
        }
        epoch += 1;
        offset += 1;
        out.push(replicas);
    }
    Ok(out)
}

impl ClusterImage {
    /// A topic's overrides, from its `ConfigRecord`s.
    pub fn topic_overrides(&self, topic: &str) -> crate::config::TopicConfigOverrides {
        let mut m = serde_json::Map::new();
        for ((kind, name, key), value) in self.configs.iter() {
            if *kind == 2 && name == topic {
                let v = serde_json::from_str(value)
                    .unwrap_or_else(|_| serde_json::Value::String(value.clone()));
                m.insert(key.clone(), v);
            }
        }
        serde_json::from_value(serde_json::Value::Object(m)).unwrap_or_default()
    }

    /// Whether ELR is on (`eligible.leader.replicas.version` ≥ 1).
    pub fn elr_enabled(&self) -> bool {
        self.features
            .get("eligible.leader.replicas.version")
            .is_some_and(|l| *l >= 1)
    }
}

impl ControllerCx<'_> {
    /// The topic's `min.insync.replicas` (else the cluster's), from its
    /// ConfigRecords; `getTopicEffectiveMinIsr` takes the smaller of it
    /// and the replication factor.
    fn topic_min_isr(&self, topic: &str) -> usize {
        let img = &self.me().image;
        let cluster = img
            .configs
            .get(&(4, String::new(), "min.insync.replicas".to_string()))
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(self.k.sc.cluster.config.min_insync_replicas.max(1) as usize);
        img.topic_overrides(topic)
            .min_insync_replicas
            .map(|v| v.max(1) as usize)
            .unwrap_or(cluster)
    }

    /// `ConfigurationControlManager.uncleanLeaderElectionEnabledForTopic`:
    /// the topic's `unclean.leader.election.enable`, else the cluster's.
    fn topic_unclean(&self, topic: &str) -> bool {
        let img = &self.me().image;
        let cluster = img
            .configs
            .get(&(
                4,
                String::new(),
                "unclean.leader.election.enable".to_string(),
            ))
            .and_then(|v| v.parse::<bool>().ok())
            .unwrap_or(self.k.sc.cluster.config.unclean_leader_election_enable);
        img.topic_overrides(topic)
            .unclean_leader_election_enable
            .unwrap_or(cluster)
    }

    /// `generateLeaderAndIsrUpdates` over `partitions`: `remove` leaves the
    /// ISR and may not lead, `add` may lead though still fenced, `unclean`
    /// leaves ISR and ELR.
    pub(super) fn partition_updates(
        &self,
        remove: i32,
        add: i32,
        unclean: i32,
        partitions: &[TopicPartition],
    ) -> Vec<MetadataRecord> {
        let img = &self.me().image;
        let acceptable = |r: i32| r != remove && r != unclean && (r == add || img.is_active(r));
        let mut out = Vec::new();
        // The topic's min ISR, read from its configs once per topic (the
        // partitions come sorted by topic).
        let mut topic_min: Option<(&str, usize)> = None;
        for tp in partitions {
            let (Some(t), Some(p)) = (img.topics.get(&*tp.topic), img.partition(tp)) else {
                continue;
            };
            let min = match topic_min {
                Some((name, m)) if name == &*tp.topic => m,
                _ => {
                    let m = self.topic_min_isr(&tp.topic);
                    topic_min = Some((&tp.topic, m));
                    m
                }
            };
            let target_isr: Vec<i32> = p
                .isr
                .iter()
                .copied()
                .filter(|r| *r != remove && *r != unclean)
                .collect();
            let req = ChangeRequest {
                partition: p,
                topic_id: &t.id,
                topic: &tp.topic,
                partition_id: tp.partition,
                target_isr,
                unclean_shutdown: (unclean >= 0).then_some(unclean),
                min_isr: min.min(p.replicas.len().max(1)),
                elr_enabled: img.elr_enabled(),
                unclean_election: self.topic_unclean(&tp.topic),
                recovered: false,
            };
            out.extend(build_change(req, &acceptable));
        }
        out
    }

    /// Partitions matching `f`, by topic and partition.
    fn partitions_where(&self, f: impl Fn(&PartitionRegistration) -> bool) -> Vec<TopicPartition> {
        let img = &self.me().image;
        let mut out = Vec::new();
        for (name, t) in img.topics.iter() {
            for (i, p) in t.partitions.iter() {
                if f(p) {
                    out.push(TopicPartition::new(name.as_str(), *i));
                }
            }
        }
        out
    }

    /// `handleBrokerFenced`: out of every ISR, then the fencing record.
    pub(super) fn broker_fenced_records(&self, broker: i32, epoch: i64) -> Vec<MetadataRecord> {
        let parts = self.partitions_where(|p| p.isr.contains(&broker));
        let mut r = self.partition_updates(broker, -1, -1, &parts);
        r.push(MetadataRecord::BrokerRegistrationChangeRecord {
            broker_id: broker,
            broker_epoch: epoch,
            fenced: 1,
            in_controlled_shutdown: 0,
        });
        r
    }

    /// `handleBrokerUnfenced`: the unfencing record, then leaderless
    /// partitions may elect it.
    pub(super) fn broker_unfenced_records(&self, broker: i32, epoch: i64) -> Vec<MetadataRecord> {
        let mut r = vec![MetadataRecord::BrokerRegistrationChangeRecord {
            broker_id: broker,
            broker_epoch: epoch,
            fenced: -1,
            in_controlled_shutdown: 0,
        }];
        let parts = self.partitions_where(|p| p.leader == -1);
        r.extend(self.partition_updates(-1, broker, -1, &parts));
        r
    }

    /// `handleBrokerInControlledShutdown` (RCM:1427-1437): the record that
    /// it is shutting down (once), then it leaves every ISR and its
    /// leaderships move.
    pub(super) fn broker_in_controlled_shutdown_records(
        &self,
        broker: i32,
        epoch: i64,
        reg: &super::BrokerRegistration,
    ) -> Vec<MetadataRecord> {
        let mut r = Vec::new();
        if !reg.in_controlled_shutdown {
            r.push(MetadataRecord::BrokerRegistrationChangeRecord {
                broker_id: broker,
                broker_epoch: epoch,
                fenced: 0,
                in_controlled_shutdown: 1,
            });
        }
        let parts = self.partitions_where(|p| p.isr.contains(&broker));
        r.extend(self.partition_updates(broker, -1, -1, &parts));
        r
    }

    /// `handleBrokerShutdown` (RCM:1445-1456): after an unclean shutdown
    /// with ELR on, out of every ISR and ELR; after a clean one, or without
    /// ELR, as if fenced.
    pub(super) fn broker_restarted_records(&self, broker: i32, clean: bool) -> Vec<MetadataRecord> {
        if self.me().image.elr_enabled() && !clean {
            let isr = self.partitions_where(|p| p.isr.contains(&broker));
            let mut r = self.partition_updates(-1, -1, broker, &isr);
            // Both lists come from the image before either change, as in
            // Kafka; the ISR's first, then the ELR's. (A replica is never
            // in both, joining the ISR takes it out of the ELR; the second
            // test only keeps one partition from getting two records.)
            let elr =
                self.partitions_where(|p| p.elr.contains(&broker) && !p.isr.contains(&broker));
            r.extend(self.partition_updates(-1, -1, broker, &elr));
            r
        } else {
            let isr = self.partitions_where(|p| p.isr.contains(&broker));
            self.partition_updates(broker, -1, -1, &isr)
        }
    }

    /// The scenario's topics, created by its setup (`kafka-topics.sh
    /// --create` through the active controller) once every broker of the
    /// scenario is registered and unfenced.
    pub(super) fn maybe_create_scenario_topics(&mut self) -> Step {
        let sc = self.k.sc.clone();
        if sc.topics.is_empty() {
            return Ok(());
        }
        let img = &self.me().image;
        if !sc.cluster.brokers.iter().all(|b| img.is_active(*b)) {
            return Ok(());
        }
        for spec in &sc.topics {
            if self.me().image.topics.contains_key(&spec.name) {
                continue;
            }
            // A failure is recorded; the next unfencing tries again.
            let _ = self.create_topic(spec)?;
        }
        Ok(())
    }

    /// CreateTopics from a broker (`AutoTopicCreationManager` creating an
    /// internal topic): created as the scenario's are, answered once
    /// committed.
    pub(super) fn on_create_topics(
        &mut self,
        from: NodeId,
        correlation_id: i32,
        spec: &crate::scenario::TopicSpec,
    ) -> Step {
        let answer =
            |error: Option<ErrorCode>, message: Option<String>| Message::CreateTopicsResponse {
                correlation_id,
                topic: spec.name.clone(),
                error,
                message,
            };
        if self.me().active.is_none() {
            return self.reply_now(from, answer(Some(ErrorCode::NotController), None));
        }
        if self.me().image.topics.contains_key(&spec.name) {
            let m = format!("Topic '{}' already exists.", spec.name);
            return self.reply_now(from, answer(Some(ErrorCode::TopicAlreadyExists), Some(m)));
        }
        match self.create_topic(spec)? {
            Ok(last) => self.answer_after_commit(last, from, answer(None, None)),
            Err((code, m)) => self.reply_now(from, answer(Some(code), Some(m))),
        }
    }

    /// `createTopic` (RCM:706-851): the records written (the offset of the
    /// last), or Kafka's error.
    fn create_topic(
        &mut self,
        spec: &crate::scenario::TopicSpec,
    ) -> Step<Result<Option<i64>, (ErrorCode, String)>> {
        let cfg = &self.k.sc.cluster.config;
        let img = &self.me().image;
        let assignment: Result<Vec<Vec<i32>>, (ErrorCode, String)> =
            if let Some(a) = &spec.replica_assignment {
                let mut parts: Vec<(i32, Vec<i32>)> = a
                    .iter()
                    .map(|(k, v)| (k.parse::<i32>().unwrap_or(0), v.clone()))
                    .collect();
                parts.sort();
                Ok(parts.into_iter().map(|(_, v)| v).collect())
            } else {
                let partitions = spec.partitions.unwrap_or(cfg.num_partitions);
                let rf = spec
                    .replication_factor
                    .unwrap_or(cfg.default_replication_factor);
                let brokers: Vec<(i32, Option<String>, bool)> = img
                    .brokers
                    .iter()
                    .map(|(b, r)| (*b, r.rack.clone(), r.fenced))
                    .collect();
                striped_place(&brokers, partitions, rf, &mut self.k.rng).map_err(|e| {
                    (
                        ErrorCode::InvalidReplicationFactor,
                        format!("Unable to replicate the partition {rf} time(s): {e}"),
                    )
                })
            };
        let assignment = match assignment {
            Ok(a) => a,
            Err((code, msg)) => return self.creation_failed(spec, code, msg),
        };
        let topic_id = crate::admin::topic_id(&self.k.sc, &spec.name);
        let mut records = vec![MetadataRecord::TopicRecord {
            name: spec.name.clone(),
            topic_id: topic_id.clone(),
        }];
        // ConfigRecords go after the TopicRecord, before the partitions.
        if let Ok(serde_json::Value::Object(m)) = serde_json::to_value(&spec.config) {
            for (k, v) in m {
                let value = match v {
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                };
                records.push(MetadataRecord::ConfigRecord {
                    resource_type: 2,
                    resource_name: spec.name.clone(),
                    name: k,
                    value,
                });
            }
        }
        let img = &self.me().image;
        for (i, replicas) in assignment.iter().enumerate() {
            let isr: Vec<i32> = replicas
                .iter()
                .copied()
                .filter(|r| img.is_active(*r))
                .collect();
            let Some(leader) = isr.first().copied() else {
                // (INVALID_REPLICA_ASSIGNMENT for a manual assignment: the
                // scenario's setup creates its topics only once every
                // broker is unfenced, so that one cannot happen here.)
                let m = format!("Unable to replicate the partition {} time(s): All brokers are currently fenced or in controlled shutdown.", replicas.len());
                return self.creation_failed(spec, ErrorCode::InvalidReplicationFactor, m);
            };
            records.push(MetadataRecord::PartitionRecord {
                partition_id: i as i32,
                topic_id: topic_id.clone(),
                topic: spec.name.clone(),
                replicas: replicas.clone(),
                isr,
                leader,
                leader_epoch: 0,
                partition_epoch: 0,
            });
        }
        let by = if spec.name.starts_with("__") {
            NodeId::Controller(self.me().id)
        } else {
            NodeId::User
        };
        self.k.record(
            vec![by, NodeId::Controller(self.me().id)],
            EventKind::TopicCreated {
                topic: spec.name.clone(),
                assignment: assignment
                    .iter()
                    .enumerate()
                    .map(|(i, r)| (i as i32, r.iter().map(|b| BrokerId(*b)).collect()))
                    .collect(),
                placement: None,
                striped: spec.replica_assignment.is_none(),
            },
        )?;
        Ok(Ok(self.write(records)?))
    }

    fn creation_failed(
        &mut self,
        spec: &crate::scenario::TopicSpec,
        code: ErrorCode,
        msg: String,
    ) -> Step<Result<Option<i64>, (ErrorCode, String)>> {
        self.k.record(
            vec![NodeId::Controller(self.me().id)],
            EventKind::TopicCreationFailed {
                topic: spec.name.clone(),
                error: format!("{}: {msg}", code.name()),
            },
        )?;
        Ok(Err((code, msg)))
    }

    /// AlterPartition from a partition leader (RCM:1064-1160, 1230-1340).
    pub(super) fn on_alter_partition(
        &mut self,
        from: NodeId,
        broker: i32,
        tp: TopicPartition,
        leader_epoch: i32,
        new_isr: Vec<i32>,
        partition_epoch: i32,
    ) -> Step {
        let fail = |error: ErrorCode| Message::AlterPartitionResponse {
            tp: tp.clone(),
            error: Some(error),
            leader: -1,
            leader_epoch: -1,
            isr: vec![],
            partition_epoch: -1,
        };
        if self.me().active.is_none() {
            return self.reply_now(from, fail(ErrorCode::NotController));
        }
        let img = &self.me().image;
        let Some(p) = img.partition(&tp).cloned() else {
            return self.reply_now(from, fail(ErrorCode::UnknownTopicOrPartition));
        };
        let error = if leader_epoch > p.leader_epoch || partition_epoch > p.partition_epoch {
            Some(ErrorCode::NotController)
        } else if leader_epoch < p.leader_epoch {
            Some(ErrorCode::FencedLeaderEpoch)
        } else if broker != p.leader {
            Some(ErrorCode::InvalidRequest)
        } else if partition_epoch < p.partition_epoch {
            Some(ErrorCode::InvalidUpdateVersion)
        } else if new_isr.iter().any(|r| !p.replicas.contains(r)) || !new_isr.contains(&p.leader) {
            Some(ErrorCode::InvalidRequest)
        } else if new_isr.iter().any(|r| !img.is_active(*r)) {
            Some(ErrorCode::IneligibleReplica)
        } else {
            None
        };
        if let Some(e) = error {
            return self.reply_now(from, fail(e));
        }
        let topic_id = img.topics[&*tp.topic].id.clone();
        let req = ChangeRequest {
            partition: &p,
            topic_id: &topic_id,
            topic: &tp.topic,
            partition_id: tp.partition,
            target_isr: new_isr,
            unclean_shutdown: None,
            min_isr: self.topic_min_isr(&tp.topic).min(p.replicas.len().max(1)),
            elr_enabled: img.elr_enabled(),
            unclean_election: self.topic_unclean(&tp.topic),
            recovered: true,
        };
        let acceptable = |r: i32| img.is_active(r);
        let change = build_change(req, &acceptable);
        let last = match change {
            Some(r) => self.write(vec![r])?,
            None => None,
        };
        let now = self.me().image.partition(&tp).cloned().unwrap_or(p);
        let msg = Message::AlterPartitionResponse {
            tp,
            error: None,
            leader: now.leader,
            leader_epoch: now.leader_epoch,
            isr: now.isr.iter().map(|b| BrokerId(*b)).collect(),
            partition_epoch: now.partition_epoch,
        };
        self.answer_after_commit(last, from, msg)
    }

    /// AllocateProducerIds (`ProducerIdControlManager.generateNextProducerId`):
    /// the next block of 1000, recorded before it is handed out.
    pub(super) fn on_allocate_producer_ids(
        &mut self,
        from: NodeId,
        correlation_id: i32,
        broker: i32,
        broker_epoch: i64,
    ) -> Step {
        let fail = |error| Message::AllocateProducerIdsResponse {
            correlation_id,
            error: Some(error),
            first: -1,
            length: 0,
        };
        if self.me().active.is_none() {
            return self.reply_now(from, fail(ErrorCode::NotController));
        }
        match self.me().image.brokers.get(&broker) {
            None => return self.reply_now(from, fail(ErrorCode::BrokerIdNotRegistered)),
            Some(r) if r.epoch != broker_epoch => {
                return self.reply_now(from, fail(ErrorCode::StaleBrokerEpoch))
            }
            _ => {}
        }
        let first = self.me().image.next_producer_id;
        let last = self.write(vec![MetadataRecord::ProducerIdsRecord {
            broker_id: broker,
            broker_epoch,
            next_producer_id: first + PRODUCER_ID_BLOCK,
        }])?;
        let msg = Message::AllocateProducerIdsResponse {
            correlation_id,
            error: None,
            first,
            length: PRODUCER_ID_BLOCK as i32,
        };
        self.answer_after_commit(last, from, msg)
    }
}

/// The size of a producer id block (`ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE`).
pub const PRODUCER_ID_BLOCK: i64 = 1000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_hash_sets_of_small_ids_iterate_in_ascending_order() {
        assert_eq!(java_hash_order([3, 1, 2, 1]), vec![1, 2, 3]);
        // 17 and 1 share bucket 1 of 16: insertion order within it.
        assert_eq!(java_hash_order([17, 1, 0]), vec![0, 17, 1]);
    }

    fn reg(replicas: &[i32], isr: &[i32], leader: i32) -> PartitionRegistration {
        PartitionRegistration {
            replicas: replicas.to_vec(),
            isr: isr.to_vec(),
            leader,
            ..Default::default()
        }
    }

    fn change(
        p: &PartitionRegistration,
        isr: &[i32],
        min_isr: usize,
        alive: &[i32],
    ) -> Option<MetadataRecord> {
        let req = ChangeRequest {
            partition: p,
            topic_id: "id",
            topic: "t",
            partition_id: 0,
            target_isr: isr.to_vec(),
            unclean_shutdown: None,
            min_isr,
            elr_enabled: true,
            unclean_election: false,
            recovered: false,
        };
        build_change(req, &|r| alive.contains(&r))
    }

    /// A fenced leader: the next ISR member leads, and the leader epoch moves.
    #[test]
    fn a_lost_leader_is_replaced_from_the_isr() {
        let p = reg(&[1, 2, 3], &[1, 2, 3], 1);
        let r = change(&p, &[2, 3], 2, &[2, 3]).expect("a change");
        let MetadataRecord::PartitionChangeRecord {
            isr,
            leader,
            eligible_leader_replicas,
            ..
        } = r
        else {
            panic!()
        };
        assert_eq!(leader, 2);
        assert_eq!(isr, Some(vec![2, 3]));
        assert_eq!(
            eligible_leader_replicas, None,
            "ISR still ≥ min ISR: no ELR"
        );
    }

    /// KIP-966: below min ISR, the replica that leaves goes to the ELR; with
    /// the ISR empty, an ELR member may lead and becomes the ISR.
    #[test]
    fn below_min_isr_leavers_become_eligible_and_can_lead() {
        let p = reg(&[1, 2, 3], &[1, 2], 1);
        let r = change(&p, &[2], 2, &[2]).expect("a change");
        let MetadataRecord::PartitionChangeRecord {
            isr,
            leader,
            eligible_leader_replicas,
            ..
        } = &r
        else {
            panic!()
        };
        assert_eq!((*leader, isr.clone()), (2, Some(vec![2])));
        assert_eq!(eligible_leader_replicas.clone(), Some(vec![1]));
        // Now 2 dies too: the ISR empties, no leader, ELR [1, 2].
        let mut p2 = p.clone();
        p2.isr = vec![2];
        p2.leader = 2;
        p2.elr = vec![1];
        let r = change(&p2, &[], 2, &[]).expect("a change");
        let MetadataRecord::PartitionChangeRecord {
            isr,
            leader,
            eligible_leader_replicas,
            last_known_elr,
            ..
        } = &r
        else {
            panic!()
        };
        assert_eq!(*leader, -1);
        assert_eq!(isr.clone(), Some(vec![]));
        assert_eq!(eligible_leader_replicas.clone(), Some(vec![1, 2]));
        assert_eq!(last_known_elr.clone(), Some(vec![2]));
        // 1 comes back: from the ELR it leads, and the ISR is just it.
        let mut p3 = p2.clone();
        p3.isr = vec![];
        p3.leader = -1;
        p3.elr = vec![1, 2];
        p3.last_known_elr = vec![2];
        let r = change(&p3, &[], 2, &[1]).expect("a change");
        let MetadataRecord::PartitionChangeRecord {
            isr,
            leader,
            eligible_leader_replicas,
            last_known_elr,
            ..
        } = &r
        else {
            panic!()
        };
        assert_eq!(*leader, 1);
        assert_eq!(isr.clone(), Some(vec![1]));
        assert_eq!(eligible_leader_replicas.clone(), Some(vec![2]));
        assert_eq!(last_known_elr.clone(), Some(vec![]));
    }

    /// `Election.UNCLEAN` (the topic's unclean.leader.election.enable): with
    /// no live ISR member, no ELR and no last known leader to take, the first
    /// live replica leads, the ISR is just it, and the partition is marked
    /// RECOVERING until its leader's AlterPartition says RECOVERED. Without
    /// the setting nobody leads.
    #[test]
    fn an_unclean_election_takes_any_live_replica_and_marks_recovering() {
        // AR [0, 2], ISR [0], min ISR 1: 0 goes; the ISR would be empty, so
        // 0 goes to the ELR, where it cannot lead.
        let p = reg(&[0, 2], &[0], 0);
        let req = |unclean: bool| ChangeRequest {
            partition: &p,
            topic_id: "id",
            topic: "t",
            partition_id: 0,
            target_isr: vec![],
            unclean_shutdown: None,
            min_isr: 1,
            elr_enabled: true,
            unclean_election: unclean,
            recovered: false,
        };
        let alive = |r: i32| r == 2;
        let Some(MetadataRecord::PartitionChangeRecord {
            isr,
            leader,
            eligible_leader_replicas,
            leader_recovery_state,
            ..
        }) = build_change(req(true), &alive)
        else {
            panic!("a change")
        };
        assert_eq!(leader, 2, "the first live replica, outside the ISR");
        assert_eq!(isr, Some(vec![2]));
        assert_eq!(
            eligible_leader_replicas, None,
            "an unclean election clears the ELR (already empty)"
        );
        assert_eq!(leader_recovery_state, Some(1));
        let Some(MetadataRecord::PartitionChangeRecord { leader, isr, .. }) =
            build_change(req(false), &alive)
        else {
            panic!("a change")
        };
        assert_eq!((leader, isr), (-1, Some(vec![])), "clean only: no leader");
        // The new leader's AlterPartition (RECOVERED) clears the mark.
        let mut p2 = reg(&[0, 2], &[2], 2);
        p2.recovering = true;
        let req2 = ChangeRequest {
            partition: &p2,
            topic_id: "id",
            topic: "t",
            partition_id: 0,
            target_isr: vec![2, 0],
            unclean_shutdown: None,
            min_isr: 1,
            elr_enabled: true,
            unclean_election: true,
            recovered: true,
        };
        let Some(MetadataRecord::PartitionChangeRecord {
            leader_recovery_state,
            leader,
            ..
        }) = build_change(req2, &|_| true)
        else {
            panic!("a change")
        };
        assert_eq!((leader_recovery_state, leader), (Some(0), NO_LEADER_CHANGE));
    }

    /// An ISR shrink that keeps the leader writes the ISR only: no leader
    /// field, so no leader epoch bump (metadata.version ≥ 3.6-IV0).
    #[test]
    fn an_isr_shrink_keeps_the_leader_epoch() {
        let p = reg(&[1, 2, 3], &[1, 2, 3], 1);
        let r = change(&p, &[1, 2], 2, &[1, 2, 3]).expect("a change");
        let MetadataRecord::PartitionChangeRecord { isr, leader, .. } = r else {
            panic!()
        };
        assert_eq!((isr, leader), (Some(vec![1, 2]), NO_LEADER_CHANGE));
        assert!(
            change(&p, &[1, 2, 3], 2, &[1, 2, 3]).is_none(),
            "no change, no record"
        );
    }

    /// The striped placer spreads leaders over every broker and never puts
    /// two replicas of a partition on one broker.
    #[test]
    fn striped_placement_spreads_leaders_and_replicas() {
        let brokers: Vec<(i32, Option<String>, bool)> = (1..=3).map(|b| (b, None, false)).collect();
        let mut rng = crate::rng::Rng::new(7);
        let a = striped_place(&brokers, 6, 3, &mut rng).expect("placed");
        assert_eq!(a.len(), 6);
        for r in &a {
            let mut s = r.clone();
            s.sort();
            assert_eq!(s, vec![1, 2, 3]);
        }
        let mut leaders: Vec<i32> = a.iter().map(|r| r[0]).collect();
        leaders.sort();
        assert_eq!(leaders, vec![1, 1, 2, 2, 3, 3]);
        assert_eq!(
            striped_place(&brokers, 1, 4, &mut rng).unwrap_err(),
            "The target replication factor of 4 cannot be reached because only 3 broker(s) are registered."
        );
        // Racks: the replicas of a partition go to different racks.
        let racked: Vec<(i32, Option<String>, bool)> = vec![
            (1, Some("a".into()), false),
            (2, Some("a".into()), false),
            (3, Some("b".into()), false),
            (4, Some("b".into()), false),
        ];
        for r in striped_place(&racked, 8, 2, &mut rng).expect("placed") {
            let rack = |b: i32| if b <= 2 { "a" } else { "b" };
            assert_ne!(rack(r[0]), rack(r[1]), "{r:?}");
        }
    }
}
