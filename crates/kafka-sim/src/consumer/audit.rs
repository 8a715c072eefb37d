//! `single_owner_per_partition`: the check a consumer's handle runs when
//! its member becomes Stable, over the other consumers lent read-only.

use super::Consumer;
use crate::broker::audit::{current_leader, BrokerView};
use crate::event::{EventKind, Guarantee};
use crate::group::{MemberPhase, MemberState};
use crate::ids::{NodeId, TopicPartition};
use crate::invariants::Ledger;
use crate::kernel::{Kernel, Step};
use std::sync::Arc;

/// The other consumers, lent read-only to one consumer's handle for the
/// single-owner check: the consumers before it and after it in the world's
/// list (the handle holds the one in between). Only the check reads them.
pub(crate) struct ConsumerAudit<'a> {
    before: &'a [Arc<Consumer>],
    after: &'a [Arc<Consumer>],
    /// The brokers, read-only, for the read_committed check.
    brokers: BrokerView<'a>,
    /// What the checks have reported (each guarantee once per partition).
    ledger: &'a mut Ledger,
}

impl<'a> ConsumerAudit<'a> {
    /// Splits the consumers into the audit (the others) and consumer `c`.
    pub(crate) fn split(
        consumers: &'a mut [Arc<Consumer>],
        c: usize,
        brokers: BrokerView<'a>,
        ledger: &'a mut Ledger,
    ) -> (ConsumerAudit<'a>, &'a mut Arc<Consumer>) {
        let (before, rest) = consumers.split_at_mut(c);
        let (me, after) = rest.split_first_mut().expect("consumer exists");
        (
            ConsumerAudit {
                before,
                after,
                brokers,
                ledger,
            },
            me,
        )
    }

    /// `read_committed_isolation` for records a read_committed consumer
    /// buffered from `tp`: `delivered` holds each record's offset and, for a
    /// transactional one, its producer id; `lso` is the last stable offset
    /// the broker answered with.
    pub(crate) fn check_read_committed(
        &mut self,
        k: &mut Kernel,
        c: u32,
        tp: &TopicPartition,
        delivered: &[(i64, Option<i64>)],
        lso: Option<i64>,
    ) -> Step {
        if self
            .ledger
            .reported
            .contains(&(Guarantee::ReadCommittedIsolation, tp.clone()))
        {
            return Ok(());
        }
        let mut broken = None;
        // A read_uncommitted consumer's fetch carries no last stable
        // offset: the leader's, as it holds it now, is the one asked of it.
        let lso = lso.or_else(|| {
            let b = self.brokers.get(current_leader(self.brokers, tp)?)?;
            let (p, log) = (b.partitions.get(tp)?, b.logs.get(tp)?);
            Some(b.last_stable_offset(tp, p.high_watermark, log.log_start_offset))
        });
        if let Some((o, _)) = lso.and_then(|l| delivered.iter().find(|(o, _)| *o >= l)) {
            broken = Some(format!(
                "consumer {c} got {tp}@{o}, at or above the last stable offset {}",
                lso.unwrap_or(-1)
            ));
        }
        if broken.is_none() {
            if let Some(leader) = current_leader(self.brokers, tp).and_then(|b| self.brokers.get(b))
            {
                let txn: Vec<(i64, i64)> = delivered
                    .iter()
                    .filter_map(|(o, p)| Some((*o, (*p)?)))
                    .collect();
                let lo = txn.iter().map(|x| x.0).min();
                let hi = txn.iter().map(|x| x.0).max();
                if let (Some(log), Some(lo), Some(hi)) = (leader.logs.get(tp), lo, hi) {
                    // The `.txnindex` entries over the records, read once
                    // (`TransactionIndex.collectAbortedTxns`).
                    let aborted = log
                        .collect_aborted_transactions(&leader.disk, lo, hi + 1)
                        .unwrap_or_default();
                    let hit = txn
                        .iter()
                        .find(|(o, pid)| aborted.iter().any(|t| t.holds(*pid, *o)));
                    if let Some((o, pid)) = hit {
                        broken = Some(format!(
                            "consumer {c} got {tp}@{o} from producer {pid}'s transaction, which the leader's .txnindex lists as aborted"
                        ));
                    }
                }
            }
        }
        let Some(detail) = broken else {
            return Ok(());
        };
        self.ledger
            .reported
            .insert((Guarantee::ReadCommittedIsolation, tp.clone()));
        k.record(
            vec![NodeId::Consumer(c)],
            EventKind::GuaranteeBroken {
                guarantee: Guarantee::ReadCommittedIsolation,
                tp: Some(tp.clone()),
                detail,
            },
        )
        .map(|_| ())
    }

    /// `single_owner_per_partition`: no other live member of the same
    /// generation, in the Stable phase, owns a partition of `mine`.
    pub(crate) fn check_single_owner(
        &self,
        k: &mut Kernel,
        c: u32,
        m: &MemberState,
        mine: &[TopicPartition],
    ) -> Step {
        let others = self.before.iter().enumerate().chain(
            self.after
                .iter()
                .enumerate()
                .map(|(i, o)| (i + self.before.len() + 1, o)),
        );
        for (i, o) in others {
            if !o.alive {
                continue;
            }
            let Some(og) = &o.group else { continue };
            if og.group_id != m.group_id
                || og.generation != m.generation
                || og.phase != MemberPhase::Stable
            {
                continue;
            }
            if let Some(tp) = o.assignment.iter().find(|t| mine.contains(t)) {
                let detail = format!(
                    "consumers {c} and {i} both own {tp} in generation {} of group {}",
                    m.generation, m.group_id
                );
                return k
                    .record(
                        vec![NodeId::Consumer(c)],
                        EventKind::GuaranteeBroken {
                            guarantee: Guarantee::SingleOwnerPerPartition,
                            tp: Some(tp.clone()),
                            detail,
                        },
                    )
                    .map(|_| ());
            }
        }
        Ok(())
    }
}
