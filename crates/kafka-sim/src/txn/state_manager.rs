//! What the transaction coordinator keeps in `__transaction_state`
//! (`TransactionStateManager`, Kafka 3.9): writing a transition
//! (`appendTransactionToLog`, acks=all, answered once replicated), loading
//! the ids of a partition this broker now leads
//! (`loadTransactionsForTxnTopicPartition`: the latest record per id wins,
//! a tombstone removes it; a transaction found in PrepareCommit or
//! PrepareAbort has its markers sent again, `TransactionCoordinator.onElection`)
//! and forgetting them when it resigns (`removeTransactionsForTxnTopicPartition`).

use super::coordinator::bnode;
use super::metadata::{TxnMetadata, TxnState, TxnTransit};
use super::*;
use crate::broker::BrokerCx;
use crate::event::EventKind;
use crate::kernel::Step;
use crate::msg::ErrorCode;
use crate::storage::record::{self, BatchSpec, NewRecord};

impl BrokerCx<'_> {
    /// Writes transition `transit` of `id` to its partition (acks=all);
    /// what follows waits for the ISR (`txn_applied` / `txn_write_failed`).
    pub(super) fn txn_append(
        &mut self,
        id: &str,
        transit: TxnTransit,
        coordinator_epoch: i32,
        reply: TxnReply,
        cause: TxnCause,
    ) -> Step {
        let p = self.txn_partition(id);
        let tp = TopicPartition::new(TRANSACTION_STATE_TOPIC, p);
        let wall = self.k.wall_ms();
        let r = NewRecord::new(
            Some(&super::log::key(id)),
            Some(&super::log::value(&transit)),
            wall,
        );
        let bytes = record::build_batch(&BatchSpec::default(), &[r]);
        let w = TxnWrite {
            transactional_id: id.to_string(),
            transit,
            coordinator_epoch,
            reply,
            cause,
        };
        // `request.timeout.ms` bounds the coordinator's own append.
        let timeout = self.k.sc.cluster.config.request_timeout_ms;
        match self.append_as_coordinator(&tp, bytes, timeout)? {
            Ok(delayed) => {
                self.k.gate()?;
                self.txns_mut().writes.insert(delayed, w);
                self.settle_coordinator_append(&tp, delayed)
            }
            Err(e) => self.txn_write_failed(w, e),
        }
    }

    /// A broker's own parked write finished: the group coordinator's, the
    /// transaction coordinator's, or a marker it wrote as a partition leader.
    pub(crate) fn internal_write_finished(&mut self, id: u64, error: Option<ErrorCode>) -> Step {
        if let Some(w) = self.txns().writes.get(&id).cloned() {
            self.k.gate()?;
            self.txns_mut().writes.remove(&id);
            // The coordinator epoch may have moved while the write waited
            // (Kafka checks it in the append callback).
            let p = self.txn_partition(&w.transactional_id);
            if self.txns().loaded.get(&p) != Some(&w.coordinator_epoch) {
                return self.txn_write_failed(w, ErrorCode::NotCoordinator);
            }
            return match error {
                None => self.txn_applied(w),
                Some(e) => self.txn_write_failed(w, e),
            };
        }
        if self.txns().marker_writes.contains_key(&id) {
            return self.marker_write_finished(id, error);
        }
        self.coordinator_write_finished(id, error)
    }

    /// This broker now leads partition `tp` of `__transaction_state`: read
    /// it back and take over its transactional ids.
    pub(crate) fn txn_on_leader(&mut self, tp: &TopicPartition, coordinator_epoch: i32) -> Step {
        let b = self.id;
        if &*tp.topic != TRANSACTION_STATE_TOPIC {
            return Ok(());
        }
        let p = tp.partition;
        if self.txns().loaded.get(&p) == Some(&coordinator_epoch) {
            return Ok(());
        }
        let mut found: SortedMap<String, Option<super::log::StoredTxn>> = SortedMap::new();
        self.for_each_record(tp, &mut |_, r| {
            if let Some(rec) = r
                .key
                .as_deref()
                .and_then(|key| super::log::parse(key, r.value.as_deref()))
            {
                found.insert(rec.transactional_id, rec.value);
            }
        });
        let metas: Vec<TxnMetadata> = found
            .iter()
            .filter_map(|(id, v)| v.as_ref().map(|v| TxnMetadata::from_stored(id, v)))
            .collect();
        let completing: Vec<String> = metas
            .iter()
            .filter(|m| matches!(m.state, TxnState::PrepareCommit | TxnState::PrepareAbort))
            .map(|m| m.transactional_id.clone())
            .collect();
        let ids: Vec<String> = metas.iter().map(|m| m.transactional_id.clone()).collect();
        self.k.gate()?;
        {
            let n = self
                .k
                .sc
                .cluster
                .config
                .transaction_state_log_num_partitions;
            let t = self.txns_mut();
            t.loaded.insert(p, coordinator_epoch);
            t.metas
                .retain(|id, _| crate::txn::partition_for(id, n) != p);
            t.markers
                .retain(|id, _| crate::txn::partition_for(id, n) != p);
            for m in metas {
                t.metas.insert(m.transactional_id.clone(), m);
            }
        }
        self.k.emit(
            vec![bnode(b)],
            EventKind::TxnsLoaded {
                broker: b,
                partition: p,
                coordinator_epoch,
                transactional_ids: ids,
                completing: completing.clone(),
            },
        );
        self.txn_arm_abort_check()?;
        for id in completing {
            self.txn_begin_markers(&id, coordinator_epoch)?;
        }
        Ok(())
    }

    /// This broker no longer leads partition `tp` of `__transaction_state`:
    /// it forgets the ids (no event of its own: the `became_follower` or the
    /// broker's stop says it, and the new coordinator's `txns_loaded`).
    pub(crate) fn txn_on_resign(&mut self, tp: &TopicPartition) -> Step {
        if &*tp.topic != TRANSACTION_STATE_TOPIC || !self.txns().loaded.contains_key(&tp.partition)
        {
            return Ok(());
        }
        let p = tp.partition;
        let n = self
            .k
            .sc
            .cluster
            .config
            .transaction_state_log_num_partitions;
        self.k.gate()?;
        {
            let t = self.txns_mut();
            t.loaded.remove(&p);
            t.metas.retain(|id, _| partition_for(id, n) != p);
            t.markers.retain(|id, _| partition_for(id, n) != p);
        }
        Ok(())
    }

    /// Every marker of `id` is written: write its complete state
    /// (`TransactionMarkerChannelManager.tryAppendToLog`).
    pub(super) fn txn_write_complete(&mut self, id: &str) -> Step {
        let Some(pm) = self.txns().markers.get(id).cloned() else {
            return Ok(());
        };
        self.k.gate()?;
        self.txns_mut().markers.remove(id);
        self.txn_append(
            id,
            pm.complete,
            pm.coordinator_epoch,
            TxnReply::None,
            TxnCause::Markers,
        )
    }

    /// The complete record failed to be written (not for lack of
    /// leadership): prepare it again and write it again.
    pub(super) fn txn_retry_complete(&mut self, id: &str) -> Step {
        let Ok(coordinator_epoch) = self.txn_owner(id) else {
            return Ok(());
        };
        let Some(mut m) = self.txns().metas.get(id).cloned() else {
            return Ok(());
        };
        if !matches!(m.state, TxnState::PrepareCommit | TxnState::PrepareAbort) {
            return Ok(());
        }
        let Ok(t) = m.prepare_complete(self.k.wall_ms()) else {
            return Ok(());
        };
        self.k.gate()?;
        self.txns_mut().metas.insert(id.to_string(), m);
        self.txn_append(id, t, coordinator_epoch, TxnReply::None, TxnCause::Markers)
    }

    /// A producer id for a new transactional id (`ProducerIdManager`, the
    /// same block of 1000 from `/latest_producer_id_block` as an idempotent
    /// producer's).
    pub(crate) fn next_producer_id(&mut self) -> Step<i64> {
        let b = self.id;
        let needs_block = self
            .me()
            .producer_id_block
            .is_none_or(|(next, end)| next > end);
        if needs_block {
            let path = "/latest_producer_id_block";
            let last_end = self
                .zk
                .data_json(path)
                .and_then(|v| {
                    v.get("block_end")
                        .and_then(|x| x.as_str().and_then(|s| s.parse::<i64>().ok()))
                })
                .unwrap_or(-1);
            let (start, end) = (last_end + 1, last_end + 1000);
            let data = format!(
                "{{\"version\":1,\"broker\":{},\"block_start\":\"{start}\",\"block_end\":\"{end}\"}}",
                b.0
            );
            self.zkc().set(bnode(b), path, data)?;
            self.k.gate()?;
            self.me_mut().producer_id_block = Some((start, end));
        }
        self.k.gate()?;
        let block = self
            .me_mut()
            .producer_id_block
            .as_mut()
            .expect("claimed above");
        let pid = block.0;
        block.0 += 1;
        Ok(pid)
    }
}
