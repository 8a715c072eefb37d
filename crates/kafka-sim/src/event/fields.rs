//! Reading an event by name: its stable `type` name, a field by its JSON
//! name (what lessons and the CLI's `--expect` match on), and how much it
//! matters to a learner (`Importance`, which the player's filter uses).

use super::*;

impl EventKind {
    /// A short stable name, e.g. `leader_elected` (the JSON `type`).
    pub fn name(&self) -> String {
        self.name_str().to_string()
    }

    /// The JSON `type` tag (serde's snake_case of the variant), without
    /// serialising the event (a test checks the two agree).
    pub fn name_str(&self) -> &'static str {
        use EventKind::*;
        match self {
            CommandIssued { .. } => "command_issued",
            CommandRejected { .. } => "command_rejected",
            BrokerStarted { .. } => "broker_started",
            BrokerStopped { .. } => "broker_stopped",
            ControlledShutdownRetried { .. } => "controlled_shutdown_retried",
            ControlledShutdownGaveUp { .. } => "controlled_shutdown_gave_up",
            ZkSessionOpened { .. } => "zk_session_opened",
            ZkSessionExpired { .. } => "zk_session_expired",
            ZnodeCreated { .. } => "znode_created",
            ZnodeUpdated { .. } => "znode_updated",
            ZnodeDeleted { .. } => "znode_deleted",
            ZnodeExists { .. } => "znode_exists",
            BrokerRegistrationFailed { .. } => "broker_registration_failed",
            WatchFired { .. } => "watch_fired",
            ControllerElected { .. } => "controller_elected",
            ControllerLoaded { .. } => "controller_loaded",
            ControllerMoved { .. } => "controller_moved",
            StaleControllerIgnored { .. } => "stale_controller_ignored",
            BrokerChangeNoticed { .. } => "broker_change_noticed",
            TopicCreated { .. } => "topic_created",
            TopicCreationFailed { .. } => "topic_creation_failed",
            PartitionsAdded { .. } => "partitions_added",
            LeaderElected { .. } => "leader_elected",
            NoLeaderElected { .. } => "no_leader_elected",
            IsrUpdatedByController { .. } => "isr_updated_by_controller",
            ReassignmentStarted { .. } => "reassignment_started",
            ReassignmentCompleted { .. } => "reassignment_completed",
            PreferredLeaderImbalance { .. } => "preferred_leader_imbalance",
            MessageSent { .. } => "message_sent",
            MessageDropped { .. } => "message_dropped",
            LinkChanged { .. } => "link_changed",
            ConnectionClosed { .. } => "connection_closed",
            ReconnectBackoff { .. } => "reconnect_backoff",
            BecameLeader { .. } => "became_leader",
            BecameFollower { .. } => "became_follower",
            ReplicaStopped { .. } => "replica_stopped",
            LogCreated { .. } => "log_created",
            LogTruncated { .. } => "log_truncated",
            BatchAppended { .. } => "batch_appended",
            AppendRejected { .. } => "append_rejected",
            SegmentRolled { .. } => "segment_rolled",
            FollowerFetchRecorded { .. } => "follower_fetch_recorded",
            HighWatermarkUpdated { .. } => "high_watermark_updated",
            HighWatermarkHeld { .. } => "high_watermark_held",
            IsrChangeProposed { .. } => "isr_change_proposed",
            IsrChangeApplied { .. } => "isr_change_applied",
            IsrChangeRejected { .. } => "isr_change_rejected",
            HighWatermarkCheckpointed { .. } => "high_watermark_checkpointed",
            LogFlushed { .. } => "log_flushed",
            DivergenceDetected { .. } => "divergence_detected",
            ProduceRejected { .. } => "produce_rejected",
            DuplicateAcknowledged { .. } => "duplicate_acknowledged",
            ProduceCompleted { .. } => "produce_completed",
            ProduceParked { .. } => "produce_parked",
            ProduceTimedOut { .. } => "produce_timed_out",
            FetchParked { .. } => "fetch_parked",
            PreferredReadReplicaChosen { .. } => "preferred_read_replica_chosen",
            PreferredReadReplicaCleared { .. } => "preferred_read_replica_cleared",
            FetchRejected { .. } => "fetch_rejected",
            SegmentsDeleted { .. } => "segments_deleted",
            FilesDeleted { .. } => "files_deleted",
            LogCleaned { .. } => "log_cleaned",
            CleanerSkipped { .. } => "cleaner_skipped",
            LookupStepped { .. } => "lookup_stepped",
            MetadataUpdated { .. } => "metadata_updated",
            ProducerIdAssigned { .. } => "producer_id_assigned",
            RecordIntercepted { .. } => "record_intercepted",
            RecordSerialized { .. } => "record_serialized",
            RecordPartitioned { .. } => "record_partitioned",
            ProducerBlocked { .. } => "producer_blocked",
            RecordAccumulated { .. } => "record_accumulated",
            BatchesDrained { .. } => "batches_drained",
            RecordAcknowledged { .. } => "record_acknowledged",
            RecordFailed { .. } => "record_failed",
            ProduceRetried { .. } => "produce_retried",
            InterceptorAcknowledged { .. } => "interceptor_acknowledged",
            ProducerClosing { .. } => "producer_closing",
            ProducerForceClosed { .. } => "producer_force_closed",
            ProducerClosed { .. } => "producer_closed",
            RecordsConsumed { .. } => "records_consumed",
            RecordsProcessed { .. } => "records_processed",
            ConsumerPositionReset { .. } => "consumer_position_reset",
            GroupsLoaded { .. } => "groups_loaded",
            TxnsLoaded { .. } => "txns_loaded",
            TxnStateChanged { .. } => "txn_state_changed",
            TxnMarkerWritten { .. } => "txn_marker_written",
            TxnOffsetsCompleted { .. } => "txn_offsets_completed",
            TxnCoordinatorFound { .. } => "txn_coordinator_found",
            ProducerTxnStateChanged { .. } => "producer_txn_state_changed",
            TxnVerificationStarted { .. } => "txn_verification_started",
            ProduceVerificationFailed { .. } => "produce_verification_failed",
            GroupsUnloaded { .. } => "groups_unloaded",
            MemberIdAssigned { .. } => "member_id_assigned",
            MemberJoining { .. } => "member_joining",
            StaticMemberReplaced { .. } => "static_member_replaced",
            RebalanceStarted { .. } => "rebalance_started",
            GenerationStarted { .. } => "generation_started",
            MemberRemoved { .. } => "member_removed",
            GroupStable { .. } => "group_stable",
            OffsetsCommitted { .. } => "offsets_committed",
            OffsetCommitRejected { .. } => "offset_commit_rejected",
            CoordinatorFound { .. } => "coordinator_found",
            CoordinatorLost { .. } => "coordinator_lost",
            JoinedGroup { .. } => "joined_group",
            AssignmentComputed { .. } => "assignment_computed",
            PartitionsRevoked { .. } => "partitions_revoked",
            PartitionsAssigned { .. } => "partitions_assigned",
            RejoinRequested { .. } => "rejoin_requested",
            LeftGroup { .. } => "left_group",
            OffsetCommitSent { .. } => "offset_commit_sent",
            OffsetCommitFailed { .. } => "offset_commit_failed",
            GuaranteeBroken { .. } => "guarantee_broken",
            QuorumStateChanged { .. } => "quorum_state_changed",
            MetadataAppended { .. } => "metadata_appended",
            MetadataTruncated { .. } => "metadata_truncated",
            QuorumCommitted { .. } => "quorum_committed",
            BrokerLifecycleChanged { .. } => "broker_lifecycle_changed",
            ControllerStarted { .. } => "controller_started",
            ControllerStopped { .. } => "controller_stopped",
        }
    }

    /// A top-level field of the event as text, for the page's lessons (the
    /// fields questions ask about), without serialising the event. `None`
    /// when this kind of event has no such field here.
    pub fn field(&self, name: &str) -> Option<String> {
        use EventKind::*;
        fn s(x: impl std::fmt::Display) -> Option<String> {
            Some(x.to_string())
        }
        fn list<T: std::fmt::Display>(v: &[T]) -> Option<String> {
            Some(
                v.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            )
        }
        match (self, name) {
            (ControllerElected { broker, .. }, "broker")
            | (BrokerStopped { broker, .. }, "broker")
            | (CoordinatorFound { broker, .. }, "broker")
            | (GroupsLoaded { broker, .. }, "broker") => s(broker.0),
            (ControllerElected { epoch, .. }, "epoch") => s(epoch),
            (QuorumStateChanged { node, .. }, "node") => s(node),
            (QuorumStateChanged { epoch, .. }, "epoch") => s(epoch),
            (QuorumStateChanged { state, .. }, "state") => serde_json::to_value(state)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string)),
            (QuorumStateChanged { leader, .. }, "leader") => leader.map(|l| l.to_string()),
            (QuorumStateChanged { voted_for, .. }, "voted_for") => voted_for.map(|v| v.to_string()),
            (QuorumCommitted { high_watermark, .. }, "high_watermark") => s(high_watermark),
            (MetadataAppended { node, .. }, "node") => s(node),
            // The batch's first PartitionChangeRecord (KRaft's decision on
            // a partition): which partition, and its ISR, ELR and leader
            // ("none" for -1, "unchanged" for -2).
            (MetadataAppended { records, .. }, "partition_changed" | "isr" | "elr" | "leader") => {
                records.iter().find_map(|e| match &e.record {
                    crate::kraft::records::MetadataRecord::PartitionChangeRecord {
                        topic,
                        partition_id,
                        isr,
                        eligible_leader_replicas,
                        leader,
                        ..
                    } => match name {
                        "partition_changed" => Some(format!("{topic}-{partition_id}")),
                        "isr" => isr.as_deref().and_then(list),
                        "elr" => eligible_leader_replicas.as_deref().and_then(list),
                        _ => Some(match leader {
                            -1 => "none".to_string(),
                            -2 => "unchanged".to_string(),
                            l => l.to_string(),
                        }),
                    },
                    _ => None,
                })
            }
            (BecameLeader { broker, .. }, "broker") => s(broker.0),
            (BecameLeader { tp, .. }, "tp") => s(tp),
            (BrokerLifecycleChanged { broker, .. }, "broker") => s(broker.0),
            (BrokerLifecycleChanged { state, .. }, "state") => serde_json::to_value(state)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string)),
            (LeaderElected { leader, .. }, "leader") => s(leader.0),
            (LeaderElected { old_leader, .. }, "old_leader") => s(old_leader),
            (LeaderElected { leader_epoch, .. }, "leader_epoch") => s(leader_epoch),
            (LeaderElected { isr, .. }, "isr") => {
                list(&isr.iter().map(|b| b.0).collect::<Vec<_>>())
            }
            (LeaderElected { tp, .. }, "tp")
            | (HighWatermarkUpdated { tp, .. }, "tp")
            | (RecordPartitioned { tp, .. }, "tp")
            | (RecordAcknowledged { tp, .. }, "tp")
            | (SegmentRolled { tp, .. }, "tp")
            | (BatchAppended { tp, .. }, "tp")
            | (SegmentsDeleted { tp, .. }, "tp")
            | (LogCleaned { tp, .. }, "tp")
            | (LogTruncated { tp, .. }, "tp")
            | (RecordsConsumed { tp, .. }, "tp")
            | (IsrChangeApplied { tp, .. }, "tp") => s(tp),
            (RecordPartitioned { tp, .. }, "partition")
            | (RecordAcknowledged { tp, .. }, "partition") => s(tp.partition),
            (HighWatermarkUpdated { new, .. }, "new") => s(new),
            (HighWatermarkUpdated { old, .. }, "old") => s(old),
            (RecordAcknowledged { offset, .. }, "offset") => s(offset),
            (CoordinatorFound { partition, .. }, "partition")
            | (GroupsLoaded { partition, .. }, "partition") => s(partition),
            (GenerationStarted { generation, .. }, "generation")
            | (GroupStable { generation, .. }, "generation")
            | (JoinedGroup { generation, .. }, "generation")
            | (PartitionsAssigned { generation, .. }, "generation")
            | (PartitionsRevoked { generation, .. }, "generation") => s(generation),
            (GenerationStarted { protocol, .. }, "protocol") => protocol.clone(),
            (GenerationStarted { members, .. }, "members") => s(members.len()),
            (PartitionsRevoked { partitions, .. }, "partitions") => list(partitions),
            (PartitionsAssigned { assignment, .. }, "assignment") => list(assignment),
            (PartitionsAssigned { added, .. }, "added") => list(added),
            (PartitionsAssigned { consumer, .. }, "consumer")
            | (PartitionsRevoked { consumer, .. }, "consumer")
            | (JoinedGroup { consumer, .. }, "consumer") => s(consumer),
            (MemberRemoved { reason, .. }, "reason") => Some(reason.clone()),
            (BrokerStarted { broker, .. }, "broker")
            | (LogTruncated { broker, .. }, "broker")
            | (HighWatermarkUpdated { broker, .. }, "broker") => s(broker.0),
            (ZnodeCreated { path, .. }, "path")
            | (ZnodeUpdated { path, .. }, "path")
            | (ZnodeDeleted { path, .. }, "path") => Some(path.clone()),
            (TopicCreated { topic, .. }, "topic") => Some(topic.clone()),
            (BatchAppended { appended, .. }, "position") => s(appended.position),
            (BatchAppended { broker, .. }, "broker") => s(broker.0),
            (LeaderElected { unclean, .. }, "unclean") => s(unclean),
            (BrokerStopped { controlled, .. }, "controlled") => s(controlled),
            (IsrChangeApplied { isr, .. }, "isr") => {
                list(&isr.iter().map(|b| b.0).collect::<Vec<_>>())
            }
            (IsrChangeProposed { new_isr, .. }, "new_isr") => {
                list(&new_isr.iter().map(|b| b.0).collect::<Vec<_>>())
            }
            (LogTruncated { truncated, .. }, "to_offset") => s(truncated.to_offset),
            (SegmentRolled { roll, .. }, "new_base_offset") => s(roll.new_base_offset),
            (SegmentsDeleted { applied, .. }, "log_start_offset") => s(applied.log_start_offset),
            (SegmentsDeleted { applied, .. }, "deleted") => s(applied.deleted.len()),
            (LogCleaned { result, .. }, "removed") => s(result.removed.len()),
            (LogCleaned { result, .. }, "removed_offsets") => {
                list(&result.removed.iter().map(|r| r.offset).collect::<Vec<_>>())
            }
            (LookupStepped { step, .. }, _) => lookup_field(step, name),
            (RecordAccumulated { batch_records, .. }, "batch_records") => s(batch_records),
            (BatchesDrained { batches, .. }, "records") => {
                s(batches.iter().map(|b| b.records).sum::<u32>())
            }
            (ProduceRejected { error, .. }, "error") => s(error.name_str()),
            (DuplicateAcknowledged { base_offset, .. }, "base_offset") => s(base_offset),
            (DuplicateAcknowledged { tp, .. }, "tp") => s(tp),
            (RecordsConsumed { consumer, .. }, "consumer")
            | (RecordsProcessed { consumer, .. }, "consumer")
            | (ConsumerPositionReset { consumer, .. }, "consumer") => s(consumer),
            (ConsumerPositionReset { tp, .. }, "tp") => s(tp),
            (RecordsConsumed { records, .. }, "offsets") => {
                list(&records.iter().map(|r| r.offset).collect::<Vec<_>>())
            }
            (ConsumerPositionReset { position, .. }, "position") => s(position),
            (PreferredReadReplicaChosen { replica, .. }, "replica") => s(replica.0),
            (PreferredReadReplicaChosen { tp, .. }, "tp")
            | (PreferredReadReplicaCleared { tp, .. }, "tp") => s(tp),
            (PreferredReadReplicaCleared { consumer, .. }, "consumer") => s(consumer),
            (
                TxnStateChanged {
                    transactional_id, ..
                },
                "transactional_id",
            )
            | (
                ProducerTxnStateChanged {
                    transactional_id, ..
                },
                "transactional_id",
            ) => Some(transactional_id.clone()),
            (TxnStateChanged { to, .. }, "to") => s(to.name()),
            (TxnStateChanged { from, .. }, "from") => s(from.name()),
            (TxnStateChanged { producer_epoch, .. }, "producer_epoch")
            | (TxnMarkerWritten { producer_epoch, .. }, "producer_epoch") => s(producer_epoch),
            (TxnStateChanged { cause, .. }, "cause") => s(cause.name()),
            (TxnStateChanged { broker, .. }, "broker")
            | (TxnMarkerWritten { broker, .. }, "broker") => s(broker.0),
            (TxnMarkerWritten { tp, .. }, "tp") => s(tp),
            (TxnMarkerWritten { committed, .. }, "marker") => {
                s(if *committed { "COMMIT" } else { "ABORT" })
            }
            (TxnMarkerWritten { offset, .. }, "offset") => s(offset),
            (
                TxnMarkerWritten {
                    last_stable_offset, ..
                },
                "last_stable_offset",
            ) => s(last_stable_offset),
            (ProducerTxnStateChanged { to, .. }, "to") => s(to.name()),
            (ProduceVerificationFailed { error, .. }, "error") => s(error.name_str()),
            (ProduceVerificationFailed { cause, .. }, "cause") => s(cause.name_str()),
            (ProduceVerificationFailed { tp, .. }, "tp") => s(tp),
            (TxnVerificationStarted { broker, .. }, "broker") => s(broker),
            (ProducerTxnStateChanged { producer, .. }, "producer") => s(producer),
            (ProducerTxnStateChanged { error, .. }, "error") => {
                Some(error.map(|e| e.name_str()).unwrap_or("NONE").to_string())
            }
            (TxnOffsetsCompleted { committed, .. }, "marker") => {
                s(if *committed { "COMMIT" } else { "ABORT" })
            }
            (OffsetsCommitted { offsets, .. }, "offsets")
            | (TxnOffsetsCompleted { offsets, .. }, "offsets") => list(
                &offsets
                    .iter()
                    .map(|(tp, o)| format!("{tp}@{o}"))
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        }
    }

    /// How much the event matters to a learner (the log's filter).
    pub fn importance(&self) -> Importance {
        use EventKind::*;
        match self {
            // A new coordinator with nothing to load is bookkeeping.
            GroupsLoaded { groups, .. } if groups.is_empty() => Importance::Routine,
            TxnsLoaded {
                transactional_ids, ..
            } if transactional_ids.is_empty() => Importance::Routine,
            LeaderElected { .. }
            | NoLeaderElected { .. }
            | ControllerElected { .. }
            | BrokerStopped { .. }
            | ControlledShutdownGaveUp { .. }
            | ZkSessionExpired { .. }
            | GuaranteeBroken { .. }
            | LogTruncated { .. }
            | CommandIssued { .. }
            | CommandRejected { .. }
            | IsrUpdatedByController { .. }
            | IsrChangeApplied { .. }
            | DivergenceDetected { .. }
            | SegmentsDeleted { .. }
            | LogCleaned { .. }
            | RebalanceStarted { .. }
            | GenerationStarted { .. }
            | MemberRemoved { .. }
            | AssignmentComputed { .. }
            | PartitionsAssigned { .. }
            | PartitionsRevoked { .. }
            | OffsetCommitFailed { .. }
            | ProducerForceClosed { .. }
            | DuplicateAcknowledged { .. }
            | GroupsLoaded { .. }
            | TxnsLoaded { .. }
            | TxnStateChanged { .. }
            | TxnMarkerWritten { .. }
            | TxnOffsetsCompleted { .. }
            | ProducerTxnStateChanged { .. }
            | ProduceVerificationFailed { .. }
            | ControllerStopped { .. }
            | MetadataTruncated { .. }
            | BrokerLifecycleChanged { .. } => Importance::Key,
            QuorumStateChanged {
                state: QuorumRole::Leader | QuorumRole::Candidate | QuorumRole::Resigned,
                ..
            } => Importance::Key,
            // The NoOpRecord every half second and the commits that follow
            // are the log's heartbeat.
            MetadataAppended { records, .. }
                if records
                    .iter()
                    .all(|r| r.record == crate::kraft::records::MetadataRecord::NoOpRecord) =>
            {
                Importance::Routine
            }
            QuorumCommitted { .. } => Importance::Routine,
            HighWatermarkCheckpointed { .. }
            | LogFlushed { .. }
            | FetchParked { .. }
            | MetadataUpdated { .. } => Importance::Routine,
            MessageSent { message, .. } => match &**message {
                Message::Fetch(FetchRequest { replica_id, .. }) if *replica_id >= 0 => {
                    Importance::Routine
                }
                Message::FetchResponse { partitions, .. }
                    if partitions.iter().all(|p| p.records.is_empty()) =>
                {
                    Importance::Routine
                }
                Message::Heartbeat { .. }
                | Message::HeartbeatResponse { .. }
                | Message::BrokerHeartbeat { .. }
                | Message::BrokerHeartbeatResponse { .. }
                | Message::RaftFetch { .. }
                | Message::UpdateMetadata { .. } => Importance::Routine,
                Message::RaftFetchResponse {
                    records, diverging, ..
                } if diverging.is_none()
                    && records
                        .iter()
                        .all(|r| r.record == crate::kraft::records::MetadataRecord::NoOpRecord) =>
                {
                    Importance::Routine
                }
                _ => Importance::Normal,
            },
            _ => Importance::Normal,
        }
    }
}

/// The fields a lesson may read off one step of a traced lookup: `step` (its
/// kind, as in the JSON trace), `base_offset` (the segment chosen),
/// `start_position` (where the index sends the scan), `position` and `offset`
/// (what was found).
pub(super) fn lookup_field(step: &crate::storage::log::LookupStep, name: &str) -> Option<String> {
    use crate::storage::log::LookupStep::*;
    let kind = match step {
        SegmentProbe { .. } => "segment_probe",
        SegmentTimestampCheck { .. } => "segment_timestamp_check",
        SegmentChosen { .. } => "segment_chosen",
        IndexProbe { .. } => "index_probe",
        IndexResult { .. } => "index_result",
        BatchScanned { .. } => "batch_scanned",
        Found { .. } => "found",
        NotFound { .. } => "not_found",
    };
    match (step, name) {
        (_, "step") => Some(kind.to_string()),
        (SegmentChosen { base_offset, .. }, "base_offset") => Some(base_offset.to_string()),
        (IndexResult { start_position, .. }, "start_position") => Some(start_position.to_string()),
        (Found { position, .. }, "position") => Some(position.to_string()),
        (Found { offset, .. }, "offset") => Some(offset.to_string()),
        _ => None,
    }
}
