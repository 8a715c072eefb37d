//! Read-process-write applications (`ConsumerSpec::pipeline`): the
//! consume-transform-produce loop of exactly-once (KIP-98, KIP-447), as
//! Kafka's `ExactlyOnceMessageProcessor` example writes it. One process
//! holds a consumer (read_committed, no auto-commit) and a transactional
//! producer:
//!
//! ```text
//! producer.initTransactions();
//! while (true) {
//!     records = consumer.poll(...);
//!     producer.beginTransaction();
//!     for (r : records) producer.send(output(r));
//!     producer.sendOffsetsToTransaction(positions, consumer.groupMetadata());
//!     process(records);                      // processing.ms
//!     producer.commitTransaction();          // blocks
//!     // abortable error: abortTransaction(), back to the committed offsets
//!     // ProducerFencedException: close both
//! }
//! ```
//!
//! The two clients are separate nodes here; a handle leaves an
//! [`PipelineCall`] in the kernel and the world carries it out after the step,
//! within the same instant. The output record's key names its input
//! (`orders-0@3`) and its value is the input's value.

use super::*;
use crate::kernel::{PipelineCall, PipelineOutcome};
use crate::producer::TxnCall;
use crate::txn::ClientTxnState;

/// Pipeline calls handled in one step, at most: a call may lead to another (a
/// commit that ends at once), never to an endless chain.
const MAX_PIPELINE_CALLS: usize = 64;

impl World {
    pub(super) fn run_pipeline_calls(&mut self) -> Step {
        for _ in 0..MAX_PIPELINE_CALLS {
            if self.k.pipeline_calls.is_empty() {
                return Ok(());
            }
            let call = self.k.pipeline_calls.remove(0);
            match call {
                PipelineCall::Start { consumer } => self.pipeline_start(consumer)?,
                PipelineCall::Process { consumer } => self.pipeline_process(consumer)?,
                PipelineCall::Commit { consumer } => self.pipeline_commit(consumer)?,
                PipelineCall::Ended { producer, outcome } => {
                    self.pipeline_ended(producer, outcome)?
                }
            }
        }
        self.k.pipeline_calls.clear();
        Ok(())
    }

    /// The producer of consumer `c`'s pipeline, if it is running.
    fn pipeline_producer(&self, c: u32) -> Option<(u32, String)> {
        let spec = self.consumers[c as usize].spec.pipeline.as_ref()?;
        let p = self
            .producers
            .iter()
            .position(|x| x.name == spec.producer && !x.closing)?;
        Some((p as u32, spec.topic.clone()))
    }

    fn pipeline_start(&mut self, c: u32) -> Step {
        let Some((p, output)) = self.pipeline_producer(c) else {
            return Ok(());
        };
        // From now on `exactly_once_pipeline` follows its transactional id.
        let txn_id = self.producers[p as usize].txn.as_ref();
        let config = &self.consumers[c as usize].config;
        if let (Some(t), Some(group)) = (txn_id, &config.group_id) {
            let audit = crate::invariants::PipelineAudit {
                group: group.clone(),
                output,
                from_start: config.auto_offset_reset
                    == crate::client_config::AutoOffsetReset::Earliest,
            };
            let id = t.transactional_id.clone();
            if self.ledger.pipelines.get(&id) != Some(&audit) {
                self.k.gate()?;
                Arc::make_mut(&mut self.ledger.pipelines).insert(id, audit);
            }
        }
        if self.producers[p as usize]
            .txn_refusal(TxnCall::Init)
            .is_none()
        {
            self.producer_cx(p).txn_call(TxnCall::Init)?;
        }
        Ok(())
    }

    fn pipeline_process(&mut self, c: u32) -> Step {
        let ready = self.pipeline_producer(c).filter(|(p, _)| {
            let pr = &self.producers[*p as usize];
            pr.pipeline_consumer.is_none()
                && pr.txn.as_ref().map(|t| t.state) == Some(ClientTxnState::Ready)
        });
        let Some((p, topic)) = ready else {
            // Not initialised yet (or gone): read the batch again later.
            return self.consumer_cx(c).pipeline_finished(false);
        };
        let cons = &self.consumers[c as usize];
        let batch = cons.pipeline_batch.clone();
        let parts: Vec<TopicPartition> = cons.processing.iter().map(|x| x.0.clone()).collect();
        let offsets: Vec<(TopicPartition, i64)> = parts
            .iter()
            .filter_map(|tp| Some((tp.clone(), *cons.positions.get(tp)?)))
            .collect();
        let (group, generation, member) = match &cons.group {
            Some(g) => (g.group_id.clone(), g.generation, g.member_id.clone()),
            None => return self.consumer_cx(c).pipeline_finished(false),
        };
        self.k.gate()?;
        Arc::make_mut(&mut self.producers[p as usize]).pipeline_consumer = Some(c);
        let mut pcx = self.producer_cx(p);
        pcx.txn_call(TxnCall::Begin)?;
        for (tp, offset, value) in batch {
            pcx.send(&topic, None, Some(format!("{tp}@{offset}")), value)?;
        }
        pcx.txn_send_offsets(group, generation, member, offsets)
    }

    /// `commitTransaction()` once the batch is processed (`processing.ms`
    /// after poll(): the transaction stays open meanwhile).
    fn pipeline_commit(&mut self, c: u32) -> Step {
        let Some(p) = self
            .producers
            .iter()
            .position(|x| x.pipeline_consumer == Some(c) && !x.closing)
        else {
            return Ok(()); // already ended (aborted, fenced) or gone
        };
        if self.producers[p].txn_refusal(TxnCall::Commit).is_none() {
            self.producer_cx(p as u32).txn_call(TxnCall::Commit)?;
        }
        Ok(())
    }

    fn pipeline_ended(&mut self, p: u32, outcome: PipelineOutcome) -> Step {
        let Some(c) = self.producers[p as usize].pipeline_consumer else {
            return Ok(());
        };
        self.k.gate()?;
        Arc::make_mut(&mut self.producers[p as usize]).pipeline_consumer = None;
        let alive = self.consumers[c as usize].alive;
        match outcome {
            PipelineOutcome::Committed => {
                if alive {
                    self.consumer_cx(c).pipeline_finished(true)?;
                }
            }
            PipelineOutcome::Abortable => {
                if self.producers[p as usize]
                    .txn_refusal(TxnCall::Abort)
                    .is_none()
                {
                    self.producer_cx(p).txn_call(TxnCall::Abort)?;
                }
                if alive {
                    self.consumer_cx(c).pipeline_finished(false)?;
                }
            }
            PipelineOutcome::Fatal => {
                // ProducerFencedException: this instance is a zombie; it
                // closes its consumer (leaving the group) and its producer.
                if alive {
                    self.consumer_cx(c).group_close()?;
                    self.k.gate()?;
                    Arc::make_mut(&mut self.consumers[c as usize]).alive = false;
                }
                if !self.producers[p as usize].closing {
                    self.producer_cx(p).close(None)?;
                }
            }
        }
        Ok(())
    }
}
