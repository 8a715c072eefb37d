//! The invariant checks that read the brokers' state: `acknowledged_records_survive`
//! (lent to a producer's handle as [`Audit`], and run by a broker when a
//! leader changes), `one_leader_per_epoch`, `high_watermark_within_isr`,
//! `high_watermark_monotonic` and `replicas_consistent` (run by a broker's
//! handle at the instant they could break). They read the other brokers
//! through a [`BrokerView`]; the broker's own code cannot.

use super::{Broker, BrokerCx};
use crate::collections::{SortedMap, SortedSet};
use crate::event::{EventKind, Guarantee};
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::invariants::{records_between, AckedRecord, KeyValue, Ledger};
use crate::kernel::{Kernel, Step};
use crate::storage::log::Log;
use crate::storage::paged::MemStorage;
use crate::storage::record;
use std::sync::Arc;

/// Every broker, read-only, for a check: the world's map, or that map
/// split around the broker whose handle is running (`me`).
#[derive(Clone, Copy)]
pub(crate) struct BrokerView<'a> {
    before: &'a [(BrokerId, Arc<Broker>)],
    me: Option<&'a Broker>,
    after: &'a [(BrokerId, Arc<Broker>)],
}

impl<'a> BrokerView<'a> {
    /// All the brokers of a world.
    pub(crate) fn all(brokers: &'a SortedMap<BrokerId, Arc<Broker>>) -> Self {
        BrokerView {
            before: brokers.as_slice(),
            me: None,
            after: &[],
        }
    }

    /// The brokers in id order.
    fn values(self) -> impl Iterator<Item = &'a Broker> {
        let arc = |(_, b): &'a (BrokerId, Arc<Broker>)| &**b;
        self.before
            .iter()
            .map(arc)
            .chain(self.me)
            .chain(self.after.iter().map(arc))
    }

    pub(crate) fn get(self, id: BrokerId) -> Option<&'a Broker> {
        self.values().find(|b| b.id == id)
    }
}

/// The ledger lent to a broker's handle, and the other brokers (read-only)
/// for the checks that must run at that instant. The broker's own code
/// cannot read the other brokers through it; only the checks do.
pub(crate) struct BrokerAudit<'a> {
    ledger: &'a mut Ledger,
    others: Others<'a>,
}

/// The brokers before and after the one whose handle is running.
#[derive(Clone, Copy)]
struct Others<'a> {
    before: &'a [(BrokerId, Arc<Broker>)],
    after: &'a [(BrokerId, Arc<Broker>)],
}

impl<'a> Others<'a> {
    /// Every broker: these and `me` in its place.
    fn with(self, me: &'a Broker) -> BrokerView<'a> {
        BrokerView {
            before: self.before,
            me: Some(me),
            after: self.after,
        }
    }
}

impl<'a> BrokerAudit<'a> {
    /// Splits the world's brokers into broker `b` (to change) and the audit.
    /// The quorum's part of the ledger (a KRaft broker's Raft client).
    pub(crate) fn quorum_ledger(&mut self) -> &mut crate::kraft::raft::QuorumLedger {
        &mut self.ledger.quorum
    }

    pub(crate) fn split(
        ledger: &'a mut Ledger,
        brokers: &'a mut SortedMap<BrokerId, Arc<Broker>>,
        b: BrokerId,
    ) -> (BrokerAudit<'a>, &'a mut Arc<Broker>) {
        let (before, me, after) = brokers.split_at_key_mut(&b).expect("broker exists");
        (
            BrokerAudit {
                ledger,
                others: Others { before, after },
            },
            me,
        )
    }
}

/// The broker currently leading `tp` (alive, with the highest leader epoch).
pub(crate) fn current_leader(brokers: BrokerView<'_>, tp: &TopicPartition) -> Option<BrokerId> {
    brokers
        .values()
        .filter(|b| b.alive)
        .filter_map(|b| {
            b.partitions
                .get(tp)
                .filter(|p| p.is_leader)
                .map(|p| (p.leader_epoch, b.id))
        })
        .max()
        .map(|(_, b)| b)
}

/// The ledger lent to a client while it handles one work item: the client
/// reports what it was told (an acknowledged record) and the check runs at
/// that moment against the brokers' logs. The client itself cannot read the
/// brokers through it; only the check does.
pub(crate) struct Audit<'a> {
    ledger: &'a mut Ledger,
    brokers: BrokerView<'a>,
}

impl<'a> Audit<'a> {
    pub(crate) fn new(ledger: &'a mut Ledger, brokers: BrokerView<'a>) -> Audit<'a> {
        Audit { ledger, brokers }
    }

    /// A producer saw `tp`@`offset` acknowledged: remember it.
    pub(crate) fn ack(
        &mut self,
        k: &mut Kernel,
        tp: &TopicPartition,
        offset: i64,
        record: AckedRecord,
    ) -> Step {
        if record.acks == 0 || offset < 0 {
            return Ok(());
        }
        k.gate()?;
        std::sync::Arc::make_mut(self.ledger.acked.entry(tp.clone()).or_default())
            .insert(offset, record);
        Ok(())
    }

    /// Checks the records of one acknowledged batch, `[first, last]`.
    pub(crate) fn check_batch(
        &mut self,
        k: &mut Kernel,
        tp: &TopicPartition,
        first: i64,
        last: i64,
    ) -> Step {
        if first < 0 {
            return Ok(());
        }
        self.check_acked_range(k, tp, first..last + 1)
    }

    fn check_acked_range(
        &mut self,
        k: &mut Kernel,
        tp: &TopicPartition,
        range: std::ops::Range<i64>,
    ) -> Step {
        let Some(acked) = self.ledger.acked.get(tp) else {
            return Ok(());
        };
        let Some(leader) = current_leader(self.brokers, tp) else {
            return Ok(());
        };
        let Some(b) = self.brokers.get(leader) else {
            return Ok(());
        };
        let Some(log) = b.logs.get(tp) else {
            return Ok(());
        };
        if log.config.cleanup_policy.compact {
            return Ok(()); // compaction removes superseded records on purpose
        }
        let mut lost = Vec::new();
        // Read the acknowledged span once (not once per record: batches can
        // hold thousands of records).
        let lo = acked
            .range(range.clone())
            .next()
            .map(|(o, _)| *o)
            .unwrap_or(i64::MAX)
            .max(log.log_start_offset);
        let hi = acked
            .range(range.clone())
            .next_back()
            .map(|(o, _)| *o + 1)
            .unwrap_or(i64::MIN)
            .min(log.log_end_offset);
        let on_disk = records_between(log, &b.disk, lo, hi);
        for (off, rec) in acked.range(range) {
            if *off < log.log_start_offset || self.ledger.lost.contains(&(tp.clone(), *off)) {
                continue; // deleted by retention, or already reported
            }
            let present = on_disk.get(off).cloned();
            if present.as_ref() != Some(&(rec.key.clone(), rec.value.clone())) {
                lost.push((*off, rec.acks, present.is_some()));
            }
        }
        if lost.is_empty() {
            return Ok(());
        }
        k.gate()?;
        for (o, _, _) in &lost {
            self.ledger.lost.insert((tp.clone(), *o));
        }
        let offsets: Vec<String> = lost.iter().map(|(o, _, _)| o.to_string()).collect();
        let acks: SortedSet<&str> =
            SortedSet::from_iter(lost.iter().map(|(_, a, _)| crate::msg::acks_name(*a)));
        let replaced = lost.iter().any(|(_, _, p)| *p);
        let leo = log.log_end_offset;
        let detail = format!(
            "acknowledged record{} at offset{} {} (acks={}) {} on the new leader, broker {} (log end offset {leo})",
            if lost.len() > 1 { "s" } else { "" },
            if lost.len() > 1 { "s" } else { "" },
            offsets.join(", "),
            acks.into_iter().collect::<Vec<_>>().join("/"),
            if replaced { "replaced by other records" } else { "missing" },
            leader.0,
        );
        k.emit(
            vec![NodeId::Broker(leader)],
            EventKind::GuaranteeBroken {
                guarantee: Guarantee::AcknowledgedRecordsSurvive,
                tp: Some(tp.clone()),
                detail,
            },
        );
        Ok(())
    }
}

impl BrokerCx<'_> {
    /// Every broker, this one included, for a check.
    fn view(&self) -> BrokerView<'_> {
        self.audit.others.with(self.me())
    }

    /// `acknowledged_records_survive` for one partition.
    pub(crate) fn check_acked_records(&mut self, tp: &TopicPartition) -> Step {
        let brokers = self.audit.others.with(self.me);
        Audit::new(self.audit.ledger, brokers).check_acked_range(self.k, tp, i64::MIN..i64::MAX)
    }
    /// `replicas_consistent`: a follower that has just settled with a new
    /// leader (truncated, or not) must hold the leader's records at every
    /// offset below its high watermark.
    pub(crate) fn check_replicas_consistent(
        &mut self,
        follower: BrokerId,
        leader: BrokerId,
        tp: &TopicPartition,
    ) -> Step {
        let view = self.view();
        let (Some(fb), Some(lb)) = (view.get(follower), view.get(leader)) else {
            return Ok(());
        };
        let (Some(fl), Some(ll)) = (fb.logs.get(tp), lb.logs.get(tp)) else {
            return Ok(());
        };
        if fl.config.cleanup_policy.compact {
            return Ok(());
        }
        let hw = fb.partitions.get(tp).map(|p| p.high_watermark).unwrap_or(0);
        let from = fl.log_start_offset.max(ll.log_start_offset);
        let upto = hw.min(fl.log_end_offset);
        let read = |log: &Log, disk: &MemStorage| -> SortedMap<i64, KeyValue> {
            let mut out = SortedMap::new();
            if from >= upto || from >= log.log_end_offset {
                return out;
            }
            if let Ok(d) = log.read(disk, from, u64::MAX, upto.min(log.log_end_offset), true) {
                let mut pos = 0usize;
                while pos < d.bytes.len() {
                    let Ok(b) = record::decode_batch(&d.bytes[pos..], pos as u64) else {
                        break;
                    };
                    pos += b.header.size_in_bytes() as usize;
                    for r in &b.records {
                        let o = b.offset_of(r);
                        if o >= from && o < upto {
                            out.insert(o, (r.key.clone(), r.value.clone()));
                        }
                    }
                }
            }
            out
        };
        let mine = read(fl, &fb.disk);
        let theirs = read(ll, &lb.disk);
        let differ: Vec<i64> = mine
            .iter()
            .filter(|(o, kv)| theirs.get(o) != Some(kv))
            .map(|(o, _)| *o)
            .collect();
        if differ.is_empty() {
            return Ok(());
        }
        let shown: Vec<String> = differ.iter().take(5).map(|o| o.to_string()).collect();
        self.report_once(
            Guarantee::ReplicasConsistent,
            tp,
            NodeId::Broker(follower),
            format!(
                "follower {} keeps records at offset{} {}{} below its high watermark {hw} that leader {} does not have: the logs have diverged",
                follower.0,
                if differ.len() > 1 { "s" } else { "" },
                shown.join(", "),
                if differ.len() > 5 { " …" } else { "" },
                leader.0
            ),
        )
    }

    fn report_once(
        &mut self,
        g: Guarantee,
        tp: &TopicPartition,
        node: NodeId,
        detail: String,
    ) -> Step {
        if self.audit.ledger.reported.contains(&(g, tp.clone())) {
            return Ok(());
        }
        self.k.gate()?;
        self.audit.ledger.reported.insert((g, tp.clone()));
        self.k.emit(
            vec![node],
            EventKind::GuaranteeBroken {
                guarantee: g,
                tp: Some(tp.clone()),
                detail,
            },
        );
        Ok(())
    }

    /// `exactly_once_pipeline`, when the transaction of `transactional_id`
    /// has completed (every marker written): if it is a pipeline's, its
    /// committed output must match its group's committed offsets.
    #[inline(never)] // run once per transaction; kept out of the write path it is called from
    pub(crate) fn check_exactly_once(&mut self, transactional_id: &str) -> Step {
        let Some(pipeline) = self.audit.ledger.pipelines.get(transactional_id) else {
            return Ok(());
        };
        if let Some((tp, d)) = exactly_once_violation(self.view(), pipeline) {
            let b = NodeId::Broker(self.id);
            return self.report_once(Guarantee::ExactlyOncePipeline, &tp, b, d);
        }
        Ok(())
    }

    /// `one_leader_per_epoch` for one partition.
    pub(crate) fn check_leaders(&mut self, tp: &TopicPartition) -> Step {
        if let Some(d) = leaders_violation(self.view(), tp) {
            return self.report_once(Guarantee::OneLeaderPerEpoch, tp, NodeId::User, d);
        }
        Ok(())
    }

    /// `high_watermark_within_isr` and `high_watermark_monotonic` after a
    /// leader's HW moved.
    pub(crate) fn check_hw_within_isr(&mut self, b: BrokerId, tp: &TopicPartition) -> Step {
        if let Some(d) = hw_violation(self.view(), b, tp) {
            self.report_once(Guarantee::HighWatermarkWithinIsr, tp, NodeId::Broker(b), d)?;
        }
        let p = &self.me().partitions[tp];
        let (epoch, hw) = (p.leader_epoch, p.high_watermark);
        let key = (b, self.me().incarnation, tp.clone());
        if let Some((e, prev)) = self.audit.ledger.leader_hw.get(&key).copied() {
            if e == epoch && hw < prev {
                self.report_once(
                    Guarantee::HighWatermarkMonotonic,
                    tp,
                    NodeId::Broker(b),
                    format!(
                        "leader {} moved its high watermark back from {prev} to {hw}",
                        b.0
                    ),
                )?;
            }
        }
        self.k.gate()?;
        self.audit.ledger.leader_hw.insert(key, (epoch, hw));
        Ok(())
    }
}

/// What breaks `exactly_once_pipeline` for a pipeline, if anything: read
/// from its group's loaded coordinator and the current leaders (nothing is
/// judged while one is missing). The output record's key names its input
/// (`orders-0@3`, `sim/pipeline.rs`).
fn exactly_once_violation(
    brokers: BrokerView<'_>,
    pipeline: &crate::invariants::PipelineAudit,
) -> Option<(TopicPartition, String)> {
    use crate::invariants::committed_records;
    let (group, output) = (pipeline.group.as_str(), pipeline.output.as_str());
    let offsets = &brokers
        .values()
        .filter(|b| b.alive)
        .find_map(|b| {
            let g = b.groups.groups.get(group)?;
            b.groups.loaded.contains(&g.partition).then_some(g)
        })?
        .offsets;
    let leader_log = |tp: &TopicPartition| {
        let b = brokers.get(current_leader(brokers, tp)?)?;
        let (log, p) = (b.logs.get(tp)?, b.partitions.get(tp)?);
        let lso = b.last_stable_offset(tp, p.high_watermark, log.log_start_offset);
        Some((b, log, lso))
    };
    // Each committed copy: input key → where it is.
    let mut copies: SortedMap<String, (TopicPartition, i64)> = SortedMap::new();
    let outs: SortedSet<&TopicPartition> = brokers
        .values()
        .flat_map(|b| b.partitions.keys())
        .filter(|tp| &*tp.topic == output)
        .collect();
    for tp in outs {
        let (b, log, lso) = leader_log(tp)?;
        for (o, key) in committed_records(log, &b.disk, log.log_start_offset, lso) {
            let Some(key) = key.and_then(|k| String::from_utf8(k).ok()) else {
                continue;
            };
            if let Some((t0, o0)) = copies.insert(key.clone(), (tp.clone(), o)) {
                return Some((
                    tp.clone(),
                    format!("input {key} is in the committed output twice: {t0}@{o0} and {tp}@{o}"),
                ));
            }
        }
    }
    // Per input partition: the first copied offset.
    let mut first: SortedMap<&str, i64> = SortedMap::new();
    for (key, (tp, o)) in &copies {
        let Some((input, at)) = key.rsplit_once('@') else {
            continue;
        };
        let Ok(at) = at.parse::<i64>() else { continue };
        let committed = offsets
            .iter()
            .find(|(t, _)| t.to_string() == input)
            .map_or(-1, |(_, c)| *c);
        if at >= committed {
            return Some((
                tp.clone(),
                format!("{tp}@{o}, the copy of {key}, is committed but group {group}'s committed offset of {input} is {committed}: the copy was committed without its offset"),
            ));
        }
        let f = first.entry(input).or_insert(at);
        *f = (*f).min(at);
    }
    for (itp, committed) in offsets.iter() {
        let (b, log, _) = leader_log(itp)?;
        let from = match first.get(itp.to_string().as_str()) {
            _ if pipeline.from_start => log.log_start_offset,
            Some(f) => *f,
            None => continue,
        };
        for (o, _) in committed_records(log, &b.disk, from, *committed) {
            if !copies.contains_key(&format!("{itp}@{o}")) {
                return Some((
                    itp.clone(),
                    format!("{itp}@{o} is below group {group}'s committed offset {committed} but {output} has no committed copy of it: the offset was committed without its copy"),
                ));
            }
        }
    }
    None
}

fn leaders_violation(brokers: BrokerView<'_>, tp: &TopicPartition) -> Option<String> {
    let mut by_epoch: SortedMap<i32, Vec<BrokerId>> = SortedMap::new();
    for b in brokers.values().filter(|b| b.alive) {
        if let Some(p) = b.partitions.get(tp).filter(|p| p.is_leader) {
            by_epoch.entry(p.leader_epoch).or_default().push(b.id);
        }
    }
    by_epoch
        .into_iter()
        .find(|(_, v)| v.len() > 1)
        .map(|(e, v)| {
            format!(
                "brokers {} all lead {tp} in leader epoch {e}",
                crate::event::ids_list(&v)
            )
        })
}

fn hw_violation(brokers: BrokerView<'_>, b: BrokerId, tp: &TopicPartition) -> Option<String> {
    let p = brokers.get(b)?.partitions.get(tp).filter(|p| p.is_leader)?;
    for m in &p.isr {
        let leo = brokers
            .get(*m)
            .and_then(|x| x.logs.get(tp))
            .map(|l| l.log_end_offset)?;
        if p.high_watermark > leo {
            return Some(format!(
                "leader {} has high watermark {} above ISR member {}'s log end offset {leo}",
                b.0, p.high_watermark, m.0
            ));
        }
    }
    None
}

/// The always-true broker invariants over every broker: `(guarantee,
/// detail)` for each violation.
pub(crate) fn check_brokers(view: BrokerView<'_>) -> Vec<(Guarantee, String)> {
    let mut out = Vec::new();
    let tps: SortedSet<TopicPartition> =
        SortedSet::from_iter(view.values().flat_map(|b| b.partitions.keys().cloned()));
    for tp in &tps {
        if let Some(d) = leaders_violation(view, tp) {
            out.push((Guarantee::OneLeaderPerEpoch, d));
        }
        for b in view.values().filter(|b| b.alive) {
            if let Some(d) = hw_violation(view, b.id, tp) {
                out.push((Guarantee::HighWatermarkWithinIsr, d));
            }
        }
    }
    out
}
