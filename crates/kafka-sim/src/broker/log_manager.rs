//! `kafka.log.LogManager` (Kafka 3.9): the broker's logs on its disk,
//! created on first use (`getOrCreateLog`), the high-watermark checkpoint
//! file (`replication-offset-checkpoint`, every
//! `replica.high.watermark.checkpoint.interval.ms`), retention by time and
//! size (`cleanupLogs`) and the log cleaner's compaction pass.

use super::*;

impl BrokerCx<'_> {
    pub(super) fn broker_ensure_log(&mut self, tp: &TopicPartition) -> Step {
        let b = self.id;
        if self.me().logs.contains_key(tp) {
            return Ok(());
        }
        let cfg = Arc::new(self.topic_log_config(&tp.topic));
        self.k.gate()?;
        let wall = self.k.wall_ms();
        let br = self.me_mut();
        let log = Log::create(&mut br.disk, tp.clone(), cfg, wall)
            .expect("a new log directory can be created");
        let dir = log.dir.clone();
        br.logs.insert(tp.clone(), log);
        self.k.emit(
            vec![bnode(b)],
            EventKind::LogCreated {
                broker: b,
                tp: tp.clone(),
                dir,
            },
        );
        Ok(())
    }

    pub(super) fn broker_checkpoint_hw(&mut self) -> Step {
        let b = self.id;
        let hws: SortedMap<TopicPartition, i64> = SortedMap::from_iter(
            self.me()
                .partitions
                .iter()
                .map(|(tp, p)| (tp.clone(), p.high_watermark)),
        );
        // `ReplicaManager.checkpointHighWatermarks` (3.9 lines 2431-2453)
        // rewrites the file with the partitions hosted now: one no longer
        // hosted drops out.
        if hws.is_empty() || hws == self.me().hw_checkpoint {
            return Ok(());
        }
        self.k.gate()?;
        let n = hws.len() as u32;
        self.me_mut().hw_checkpoint = hws;
        self.k.emit(
            vec![bnode(b)],
            EventKind::HighWatermarkCheckpointed {
                broker: b,
                partitions: n,
            },
        );
        Ok(())
    }

    /// The log retention task (`LogManager.cleanupLogs`): three passes per log.
    pub(super) fn broker_retention(&mut self) -> Step {
        let b = self.id;
        let tps: Vec<TopicPartition> = self.me().logs.keys().cloned().collect();
        let wall = self.k.wall_ms();
        for tp in tps {
            let hw = self
                .me()
                .partitions
                .get(&tp)
                .map(|p| p.high_watermark)
                .unwrap_or_else(|| self.me().hw_checkpoint.get(&tp).copied().unwrap_or(0));
            let delete = self.me().logs[&tp].config.cleanup_policy.delete;
            for pass in [
                crate::storage::log::RetentionPass::LogStartOffset,
                crate::storage::log::RetentionPass::RetentionBytes,
                crate::storage::log::RetentionPass::RetentionMs,
            ] {
                if !delete && pass != crate::storage::log::RetentionPass::LogStartOffset {
                    continue;
                }
                let Some(plan) = self.me().logs[&tp].plan_retention(pass, wall, hw) else {
                    continue;
                };
                self.k.gate()?;
                let now = self.k.now;
                let br = self.me_mut();
                let log = br.logs.get_mut(&tp).expect("exists");
                let applied = log
                    .apply_retention(&mut br.disk, &plan, wall, now)
                    .expect("retention");
                let delay = log.config.file_delete_delay_ms;
                self.k.emit(
                    vec![bnode(b)],
                    EventKind::SegmentsDeleted {
                        broker: b,
                        tp: tp.clone(),
                        applied: Box::new(applied),
                    },
                );
                self.k.set_timer(
                    bnode(b),
                    now + delay,
                    Timer::DeleteSegmentFiles { tp: tp.clone() },
                )?;
            }
        }
        Ok(())
    }

    /// The `delete-file` task (`LocalLog.deleteSegmentFiles`, Kafka 3.9
    /// lines 909-936): scheduled once per rename, it removes the `.deleted`
    /// files exactly `file.delete.delay.ms` after they were renamed.
    pub(super) fn broker_delete_segment_files(&mut self, tp: &TopicPartition) -> Step {
        let b = self.id;
        let now = self.k.now;
        let due = self
            .me()
            .logs
            .get(tp)
            .is_some_and(|l| l.pending_deletes.iter().any(|p| p.delete_at_ms <= now));
        if !due {
            return Ok(());
        }
        self.k.gate()?;
        let br = self.me_mut();
        let log = br.logs.get_mut(tp).expect("checked");
        let files = log.delete_expired_files(&mut br.disk, now);
        self.k
            .emit(vec![bnode(b)], EventKind::FilesDeleted { broker: b, files });
        Ok(())
    }

    /// At startup the `delete-file` tasks of the last run are gone (Kafka's
    /// scheduler drops delayed tasks at shutdown); the loader removes the
    /// stray `.deleted` files at once (`LogLoader`, 3.9 lines 229-233).
    pub(super) fn broker_delete_stray_files(&mut self) -> Step {
        let b = self.id;
        let stray: Vec<TopicPartition> = self
            .me()
            .logs
            .iter()
            .filter(|(_, l)| !l.pending_deletes.is_empty())
            .map(|(tp, _)| tp.clone())
            .collect();
        if stray.is_empty() {
            return Ok(());
        }
        self.k.gate()?;
        let br = self.me_mut();
        let mut files = Vec::new();
        for tp in stray {
            let log = br.logs.get_mut(&tp).expect("listed");
            files.extend(log.delete_expired_files(&mut br.disk, u64::MAX));
        }
        self.k
            .emit(vec![bnode(b)], EventKind::FilesDeleted { broker: b, files });
        Ok(())
    }

    /// The log cleaner thread: compact the dirtiest eligible log.
    pub(super) fn broker_clean(&mut self) -> Step {
        let b = self.id;
        let wall = self.k.wall_ms();
        let mut best: Option<(u32, TopicPartition, crate::storage::cleaner::Cleanable)> = None;
        for (tp, log) in &self.me().logs {
            if !log.config.cleanup_policy.compact {
                continue;
            }
            let hw = self
                .me()
                .partitions
                .get(tp)
                .map(|p| p.high_watermark)
                .unwrap_or(0);
            // Kafka cleans up to the last stable offset, not past an open
            // transaction (`LogCleanerManager.cleanableOffsets`, 3.9 line 652).
            let lso = self.me().last_stable_offset(tp, hw, log.log_start_offset);
            let c = crate::storage::cleaner::cleanable(log, lso, wall);
            if c.eligible && best.as_ref().is_none_or(|(r, _, _)| c.dirty_ratio.0 > *r) {
                best = Some((c.dirty_ratio.0, tp.clone(), c));
            }
        }
        let Some((_, tp, plan)) = best else {
            return Ok(());
        };
        self.k.gate()?;
        let br = self.me_mut();
        let log = br.logs.get_mut(&tp).expect("exists");
        let result =
            crate::storage::cleaner::clean(log, &mut br.disk, plan, wall).expect("cleaning");
        self.k.emit(
            vec![bnode(b)],
            EventKind::LogCleaned {
                broker: b,
                tp,
                result: Box::new(result),
            },
        );
        Ok(())
    }
}

impl BrokerCx<'_> {
    /// Every record of this broker's copy of `tp`, in offset order: how a
    /// coordinator reads its partition back when it takes it over
    /// (`GroupMetadataManager.loadGroupsAndOffsets`,
    /// `TransactionStateManager.loadTransactionMetadata`). Stops at the
    /// first batch that does not decode.
    pub(crate) fn for_each_record(
        &self,
        tp: &TopicPartition,
        f: &mut dyn FnMut(&crate::storage::record::BatchHeader, &crate::storage::record::Record),
    ) {
        let br = self.me();
        let Some(log) = br.logs.get(tp) else {
            return;
        };
        let mut at = log.log_start_offset;
        while at < log.log_end_offset {
            let Ok(data) = log.read(&br.disk, at, 1 << 20, log.log_end_offset, true) else {
                return;
            };
            if data.bytes.is_empty() {
                return;
            }
            let mut pos = 0usize;
            let mut next = at;
            while pos < data.bytes.len() {
                let Ok(batch) =
                    crate::storage::record::decode_batch(&data.bytes[pos..], pos as u64)
                else {
                    break;
                };
                pos += batch.header.size_in_bytes() as usize;
                next = next.max(batch.header.last_offset() + 1);
                for r in &batch.records {
                    f(&batch.header, r);
                }
            }
            if next <= at {
                return;
            }
            at = next;
        }
    }
}
