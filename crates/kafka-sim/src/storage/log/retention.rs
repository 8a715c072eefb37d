//! Retention: which segments `retention.ms` / `retention.bytes` /
//! the log start offset remove (`UnifiedLog.deleteOldSegments`), renaming
//! them `.deleted` and deleting the files after `file.delete.delay.ms`.

use super::*;

/// The three retention passes, in Kafka's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RetentionPass {
    LogStartOffset,
    RetentionBytes,
    RetentionMs,
}

/// Segments a retention pass will delete.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetentionPlan {
    pub pass: RetentionPass,
    pub segments: Vec<i64>,
    /// Every segment goes, so a new active segment is rolled first.
    pub roll_first: bool,
    /// Why, in numbers (largest timestamp vs the cutoff, or size vs the limit).
    pub detail: String,
}

/// What a retention pass did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetentionApplied {
    pub pass: RetentionPass,
    pub rolled: Option<RollInfo>,
    pub deleted: Vec<DeletedSegment>,
    pub log_start_offset: i64,
    pub detail: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeletedSegment {
    pub base_offset: i64,
    pub next_offset: i64,
    pub size: u64,
    pub largest_timestamp: i64,
}

impl Log {
    /// Plans one retention pass (`deletableSegments` with that pass's predicate).
    pub fn plan_retention(
        &self,
        pass: RetentionPass,
        now_ms: i64,
        high_watermark: i64,
    ) -> Option<RetentionPlan> {
        let cfg = &self.config;
        let mut size_left: i64 = match pass {
            RetentionPass::RetentionBytes => {
                if cfg.retention_bytes < 0 || (self.size() as i64) < cfg.retention_bytes {
                    return None;
                }
                self.size() as i64 - cfg.retention_bytes
            }
            RetentionPass::RetentionMs if cfg.retention_ms < 0 => return None,
            _ => 0,
        };
        let mut deletable = Vec::new();
        let mut detail = String::new();
        for (i, seg) in self.segments.iter().enumerate() {
            let next = self.segments.get(i + 1);
            let upper = next.map(|n| n.base_offset).unwrap_or(self.log_end_offset);
            let last_and_empty = next.is_none() && seg.size == 0;
            if high_watermark < upper || last_and_empty {
                break;
            }
            let ok = match pass {
                RetentionPass::LogStartOffset => {
                    next.is_some_and(|n| n.base_offset <= self.log_start_offset)
                }
                RetentionPass::RetentionBytes => {
                    if size_left - seg.size as i64 >= 0 {
                        size_left -= seg.size as i64;
                        true
                    } else {
                        false
                    }
                }
                RetentionPass::RetentionMs => now_ms - seg.largest_timestamp() > cfg.retention_ms,
            };
            if !ok {
                break;
            }
            if detail.is_empty() {
                detail = match pass {
                    RetentionPass::LogStartOffset => {
                        format!(
                            "log start offset {} is past the segment",
                            self.log_start_offset
                        )
                    }
                    RetentionPass::RetentionBytes => format!(
                        "log size {} bytes exceeds retention.bytes={}",
                        self.size(),
                        cfg.retention_bytes
                    ),
                    RetentionPass::RetentionMs => format!(
                        "largest timestamp {} is more than retention.ms={} before now ({now_ms})",
                        seg.largest_timestamp(),
                        cfg.retention_ms
                    ),
                };
            }
            deletable.push(seg.base_offset);
        }
        if deletable.is_empty() {
            return None;
        }
        Some(RetentionPlan {
            pass,
            roll_first: deletable.len() == self.segments.len(),
            segments: deletable,
            detail,
        })
    }

    /// Carries out a retention plan: roll if every segment goes, rename the
    /// deleted segments' files `.deleted` (removed after `file.delete.delay.ms`),
    /// and move the log start offset up.
    pub fn apply_retention<S: Storage>(
        &mut self,
        store: &mut S,
        plan: &RetentionPlan,
        now_ms: i64,
        sim_now: u64,
    ) -> Result<RetentionApplied, StorageError> {
        let mut to_delete = plan.segments.clone();
        let mut rolled = None;
        if plan.roll_first {
            let r = self.roll(store, RollReason::Retention, None, now_ms)?;
            if to_delete.last() == Some(&r.new_base_offset) {
                to_delete.pop();
            }
            rolled = Some(r);
        }
        let mut deleted = Vec::new();
        for base in to_delete {
            let Some(ix) = self.segments.iter().position(|s| s.base_offset == base) else {
                continue;
            };
            let s = self.segments.remove(ix);
            let mut files = Vec::new();
            for f in self.segment_files(store, base) {
                let to = format!("{f}.deleted");
                store.rename(&f, &to)?;
                files.push(to);
            }
            self.pending_deletes.push(PendingDelete {
                files,
                delete_at_ms: sim_now + self.config.file_delete_delay_ms,
            });
            deleted.push(DeletedSegment {
                base_offset: s.base_offset,
                next_offset: s.next_offset,
                size: s.size,
                largest_timestamp: s.largest_timestamp(),
            });
        }
        let first = self.segments[0].base_offset;
        if first > self.log_start_offset {
            self.log_start_offset = first;
        }
        self.first_dirty_offset = self.first_dirty_offset.max(self.log_start_offset);
        Ok(RetentionApplied {
            pass: plan.pass,
            rolled,
            deleted,
            log_start_offset: self.log_start_offset,
            detail: plan.detail.clone(),
        })
    }

    /// Removes `.deleted` files whose delay has passed; returns their names.
    pub fn delete_expired_files<S: Storage>(&mut self, store: &mut S, sim_now: u64) -> Vec<String> {
        let mut gone = Vec::new();
        self.pending_deletes.retain(|p| {
            if p.delete_at_ms <= sim_now {
                for f in &p.files {
                    if store.delete(f).is_ok() {
                        gone.push(f.clone());
                    }
                }
                false
            } else {
                true
            }
        });
        gone
    }
}
