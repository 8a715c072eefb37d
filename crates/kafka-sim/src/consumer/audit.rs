//! `single_owner_per_partition`: the check a consumer's handle runs when
//! its member becomes Stable, over the other consumers lent read-only.

use super::Consumer;
use crate::event::{EventKind, Guarantee};
use crate::group::{MemberPhase, MemberState};
use crate::ids::{NodeId, TopicPartition};
use crate::kernel::{Kernel, Step};
use std::sync::Arc;

/// The other consumers, lent read-only to one consumer's handle for the
/// single-owner check: the consumers before it and after it in the world's
/// list (the handle holds the one in between). Only the check reads them.
pub(crate) struct ConsumerAudit<'a> {
    before: &'a [Arc<Consumer>],
    after: &'a [Arc<Consumer>],
}

impl<'a> ConsumerAudit<'a> {
    /// Splits the consumers into the audit (the others) and consumer `c`.
    pub(crate) fn split(
        consumers: &'a mut [Arc<Consumer>],
        c: usize,
    ) -> (ConsumerAudit<'a>, &'a mut Arc<Consumer>) {
        let (before, rest) = consumers.split_at_mut(c);
        let (me, after) = rest.split_first_mut().expect("consumer exists");
        (ConsumerAudit { before, after }, me)
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
