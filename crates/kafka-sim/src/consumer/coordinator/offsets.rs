//! Offsets in a group (`ConsumerCoordinator.commitOffsetsSync`,
//! `commitOffsetsAsync`, `maybeAutoCommitOffsetsAsync` and
//! `fetchCommittedOffsets`, Kafka 3.9): `OffsetCommit` of the positions,
//! automatic every `auto.commit.interval.ms` or by the application, its
//! errors, and `OffsetFetch` of the committed offsets for newly assigned
//! partitions.

use super::*;
use crate::msg::OffsetCommitRequest;

impl ConsumerCx<'_> {
    /// Sends an OffsetCommit of the current positions.
    pub(super) fn group_commit(&mut self, sync: bool, why: &str) -> Step {
        let c = self.id;
        let m = self.ms().clone();
        let Some(coord) = m.coordinator else {
            // commitSync/commitAsync first wait for the coordinator (ensureCoordinatorReady).
            self.k.gate()?;
            self.msm().pending_commit = Some((sync, why.to_string()));
            return self.group_find_coordinator();
        };
        let offsets: Vec<(TopicPartition, i64)> = self
            .me()
            .assignment
            .iter()
            .filter_map(|tp| self.me().positions.get(tp).map(|p| (tp.clone(), *p)))
            .collect();
        if offsets.is_empty() {
            return Ok(());
        }
        let cid = self.correlation();
        self.k.gate()?;
        {
            let x = self.msm();
            x.commits_in_flight.insert(cid, (offsets.clone(), sync));
            if sync {
                x.sync_commit_pending = true;
            }
        }
        self.k.emit(
            vec![cnode(c)],
            EventKind::OffsetCommitSent {
                consumer: c,
                generation: m.generation,
                offsets: offsets.clone(),
                sync,
                reason: why.to_string(),
            },
        );
        let member_id = if m.generation >= 0 {
            m.member_id.clone()
        } else {
            String::new()
        };
        self.request(
            coord,
            cid,
            self.me().config.request_timeout_ms,
            Message::OffsetCommit(OffsetCommitRequest {
                correlation_id: cid,
                group_id: m.group_id.clone(),
                generation_id: m.generation,
                member_id,
                offsets,
            }),
        )
    }

    /// Asks the coordinator for the committed offsets of partitions without a position.
    pub(super) fn group_fetch_committed(&mut self) -> Step {
        let m = self.ms();
        let (Some(coord), None) = (m.coordinator, &m.offset_fetch_in_flight) else {
            return Ok(());
        };
        let need: Vec<TopicPartition> = self
            .me()
            .assignment
            .iter()
            .filter(|tp| !self.me().positions.contains_key(*tp) && !m.fetched.contains(*tp))
            .cloned()
            .collect();
        if need.is_empty() {
            return Ok(());
        }
        let group_id = m.group_id.clone();
        let cid = self.correlation();
        self.k.gate()?;
        self.msm().offset_fetch_in_flight = Some((cid, need.clone()));
        self.request(
            coord,
            cid,
            self.me().config.request_timeout_ms,
            Message::OffsetFetch {
                correlation_id: cid,
                group_id,
                partitions: need,
                // `requireStable` when isolation.level=read_committed (KIP-447).
                require_stable: self.me().config.isolation_level
                    == crate::client_config::IsolationLevel::ReadCommitted,
            },
        )
    }

    pub(super) fn group_commit_failed(&mut self, cid: i32, e: ErrorCode) -> Step {
        let c = self.id;
        let Some((offsets, sync)) = self.ms().commits_in_flight.get(&cid).cloned() else {
            return Ok(());
        };
        self.k.gate()?;
        {
            let x = self.msm();
            x.commits_in_flight.remove(&cid);
            if sync {
                x.sync_commit_pending = false;
            }
        }
        let detail = match e {
            ErrorCode::IllegalGeneration | ErrorCode::UnknownMemberId | ErrorCode::RebalanceInProgress => {
                "CommitFailedException: Commit cannot be completed since the group has already rebalanced and assigned the partitions to another member. This means that the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time message processing.".to_string()
            }
            _ => format!("the commit failed with {e:?}; a later commit will cover these offsets"),
        };
        self.k.emit(
            vec![cnode(c)],
            EventKind::OffsetCommitFailed {
                consumer: c,
                offsets,
                error: e,
                detail,
            },
        );
        Ok(())
    }

    /// `commitSync()` / `commitAsync()` from the scenario.
    pub(crate) fn group_commit_command(&mut self, sync: bool) -> Step {
        if !self.is_member() {
            // Not in a group (assign()): validation refuses such commits;
            // never reach the member state it does not have.
            return Ok(());
        }
        let why = if sync {
            "commitSync()"
        } else {
            "commitAsync()"
        };
        self.group_commit(sync, why)
    }

    /// Whether the application is blocked in commitSync.
    pub(crate) fn group_blocks_poll(&self) -> bool {
        self.me()
            .group
            .as_ref()
            .is_some_and(|m| m.sync_commit_pending)
    }
}
