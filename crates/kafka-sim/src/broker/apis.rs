//! The broker's request handler (`kafka.server.KafkaApis`, Kafka 3.9):
//! every request that reaches a broker is dispatched here to the part that
//! serves it, and the small requests are answered here: `Metadata`
//! (`handleTopicMetadataRequest`), `ListOffsets` (`handleListOffsetRequest`),
//! `InitProducerId` (`handleInitProducerIdRequest`, the idempotent
//! producer's id from the broker's id block) and the storage lookup a learner
//! asks for.

use super::*;

impl BrokerCx<'_> {
    pub(crate) fn broker_on_message(&mut self, from: NodeId, msg: Message) -> Step {
        let b = self.id;
        // From a KRaft controller: the quorum's and the lifecycle's
        // messages (an AlterPartition answer is handled as with ZooKeeper).
        if matches!(from, NodeId::Controller(_))
            && !matches!(msg, Message::AlterPartitionResponse { .. })
        {
            return self.kraft_on_message(from, msg);
        }
        match msg {
            Message::WatchNotification { path, change } => {
                self.k.record(
                    vec![NodeId::ZooKeeper, bnode(b)],
                    EventKind::WatchFired {
                        watcher: b,
                        path: path.clone(),
                        change,
                    },
                )?;
                self.controller_on_watch(&path)
            }
            Message::LeaderAndIsr {
                controller_id,
                controller_epoch,
                partitions,
            } => self.broker_on_leader_and_isr(controller_id, controller_epoch, partitions),
            Message::UpdateMetadata {
                controller_id,
                controller_epoch,
                live_brokers,
                partitions,
            } => {
                if controller_epoch < self.me().known_controller_epoch {
                    return self
                        .k
                        .record(
                            vec![bnode(b)],
                            EventKind::StaleControllerIgnored {
                                broker: b,
                                request_epoch: controller_epoch,
                                known_epoch: self.me().known_controller_epoch,
                            },
                        )
                        .map(|_| ());
                }
                self.k.gate()?;
                let br = Arc::make_mut(self.me);
                br.known_controller_epoch = controller_epoch;
                br.metadata.controller_id = controller_id.0;
                br.metadata
                    .update(live_brokers, partitions, &mut self.k.metadata_share);
                // Metadata updates are frequent and change no replica: routine, no event.
                Ok(())
            }
            Message::LeaderAndIsrResponse { .. } => Ok(()),
            Message::StopReplica {
                controller_epoch,
                partitions,
                delete,
            } => {
                if controller_epoch < self.me().known_controller_epoch {
                    return Ok(());
                }
                for tp in partitions {
                    self.broker_stop_replica(&tp, delete)?;
                }
                Ok(())
            }
            Message::AlterPartition {
                broker,
                tp,
                leader_epoch,
                new_isr,
                partition_epoch,
            } => {
                if self.is_controller() {
                    self.controller_on_alter_partition(
                        broker,
                        tp,
                        leader_epoch,
                        new_isr,
                        partition_epoch,
                    )
                } else {
                    self.k
                        .send(
                            bnode(b),
                            from,
                            Message::AlterPartitionResponse {
                                tp,
                                error: Some(ErrorCode::NotController),
                                leader: -1,
                                leader_epoch: -1,
                                isr: vec![],
                                partition_epoch: -1,
                            },
                        )
                        .map(|_| ())
                }
            }
            Message::AlterPartitionResponse {
                tp,
                error,
                leader_epoch,
                isr,
                partition_epoch,
                ..
            } => self.broker_on_alter_partition_response(
                tp,
                error,
                leader_epoch,
                isr,
                partition_epoch,
            ),
            Message::ControlledShutdown { broker } => {
                if self.is_controller() {
                    self.controller_on_controlled_shutdown(broker)
                } else {
                    self.k
                        .send(
                            bnode(b),
                            from,
                            Message::ControlledShutdownResponse {
                                error: Some(ErrorCode::NotController),
                                partitions_remaining: vec![],
                            },
                        )
                        .map(|_| ())
                }
            }
            Message::ControlledShutdownResponse {
                error,
                partitions_remaining,
            } => self.broker_on_controlled_shutdown_response(error, partitions_remaining),
            Message::Produce {
                correlation_id,
                acks,
                timeout_ms,
                transactional_id,
                topic_data,
            } => self.broker_on_produce(
                from,
                correlation_id,
                acks,
                timeout_ms,
                transactional_id,
                topic_data,
            ),
            Message::Fetch(req) => self.broker_on_fetch(from, req),
            Message::FetchResponse {
                correlation_id,
                partitions,
                ..
            } => {
                if let NodeId::Broker(leader) = from {
                    self.follower_on_fetch_response(leader, correlation_id, partitions)
                } else {
                    Ok(())
                }
            }
            Message::Metadata {
                correlation_id,
                topics,
            } => self.broker_on_metadata(from, correlation_id, topics),
            Message::ListOffsets {
                correlation_id,
                partitions,
            } => self.broker_on_list_offsets(from, correlation_id, partitions),
            Message::InitProducerId {
                correlation_id,
                transactional_id: Some(id),
                transaction_timeout_ms,
            } => self.txn_init_producer_id(from, correlation_id, &id, transaction_timeout_ms),
            Message::InitProducerId { correlation_id, .. } => {
                self.broker_on_init_producer_id(from, correlation_id)
            }
            Message::AddPartitionsToTxn {
                correlation_id,
                transactional_id,
                producer_id,
                producer_epoch,
                partitions,
                verify_only: true,
            } => self.txn_verify_partitions(
                from,
                correlation_id,
                &transactional_id,
                producer_id,
                producer_epoch,
                partitions,
            ),
            Message::AddPartitionsToTxnResponse {
                correlation_id,
                results,
            } if matches!(from, NodeId::Broker(_)) => {
                self.broker_on_verification_response(correlation_id, results)
            }
            Message::AddPartitionsToTxn {
                correlation_id,
                transactional_id,
                producer_id,
                producer_epoch,
                partitions,
                verify_only: false,
            } => self.txn_add_partitions(
                from,
                correlation_id,
                &transactional_id,
                producer_id,
                producer_epoch,
                partitions,
                false,
            ),
            Message::AddOffsetsToTxn {
                correlation_id,
                transactional_id,
                producer_id,
                producer_epoch,
                group_id,
            } => {
                let offsets = TopicPartition::new(
                    crate::group::OFFSETS_TOPIC,
                    crate::group::group_partition(&self.k.sc, &group_id),
                );
                self.txn_add_partitions(
                    from,
                    correlation_id,
                    &transactional_id,
                    producer_id,
                    producer_epoch,
                    vec![offsets],
                    true,
                )
            }
            Message::EndTxn {
                correlation_id,
                transactional_id,
                producer_id,
                producer_epoch,
                committed,
            } => self.txn_end(
                from,
                correlation_id,
                &transactional_id,
                producer_id,
                producer_epoch,
                committed,
            ),
            Message::WriteTxnMarkers {
                correlation_id,
                markers,
            } => self.broker_on_write_txn_markers(from, correlation_id, markers),
            Message::WriteTxnMarkersResponse {
                correlation_id,
                results,
            } => self.txn_on_markers_response(
                correlation_id,
                results.into_iter().flat_map(|(_, r)| r).collect(),
                None,
            ),
            other => self.coordinator_on_message(from, other),
        }
    }

    pub(super) fn broker_on_metadata(
        &mut self,
        from: NodeId,
        correlation_id: i32,
        topics: Option<Vec<String>>,
    ) -> Step {
        let b = self.id;
        let md = &self.me().metadata;
        // A request for every topic (what the clients send) gets the table
        // built at the last UpdateMetadata; a list of topics, its own.
        let partitions = match &topics {
            None => md.client_view.clone(),
            Some(ts) => md.build_client_view(Some(ts)),
        };
        let mut unknown = Vec::new();
        if let Some(ts) = &topics {
            for t in ts {
                if partitions.topic(t).is_empty() {
                    unknown.push(t.clone());
                }
            }
        }
        let brokers = md.live_brokers.clone();
        let controller_id = md.controller_id;
        self.k
            .send(
                bnode(b),
                from,
                Message::MetadataResponse {
                    correlation_id,
                    brokers,
                    controller_id,
                    partitions,
                    unknown_topics: unknown,
                },
            )
            .map(|_| ())
    }

    pub(super) fn broker_on_list_offsets(
        &mut self,
        from: NodeId,
        correlation_id: i32,
        parts: Vec<(TopicPartition, i64)>,
    ) -> Step {
        let b = self.id;
        let br = self.me();
        let mut out = Vec::new();
        for (tp, ts) in parts {
            match br.partitions.get(&tp).filter(|p| p.is_leader) {
                None => out.push((tp, Some(ErrorCode::NotLeaderOrFollower), -1)),
                Some(p) => {
                    let log = &br.logs[&tp];
                    let off = match ts {
                        -2 => log.log_start_offset,
                        -1 => p.high_watermark,
                        t => log
                            .lookup_timestamp(&br.disk, t)
                            .result
                            .map(|r| r.0)
                            .unwrap_or(p.high_watermark),
                    };
                    out.push((tp, None, off));
                }
            }
        }
        self.k
            .send(
                bnode(b),
                from,
                Message::ListOffsetsResponse {
                    correlation_id,
                    partitions: out,
                },
            )
            .map(|_| ())
    }

    /// InitProducerId: hand out the next id of this broker's block, claiming a
    /// new block of 1000 from `/latest_producer_id_block` when needed.
    pub(super) fn broker_on_init_producer_id(&mut self, from: NodeId, correlation_id: i32) -> Step {
        let b = self.id;
        let pid = if self.me().kraft.is_some() {
            self.kraft_next_producer_id()?
        } else {
            Ok(self.next_producer_id()?)
        };
        let (error, producer_id, producer_epoch) = match pid {
            Ok(pid) => (None, pid, 0),
            Err(e) => (Some(e), -1, -1),
        };
        self.k
            .send(
                bnode(b),
                from,
                Message::InitProducerIdResponse {
                    correlation_id,
                    error,
                    producer_id,
                    producer_epoch,
                },
            )
            .map(|_| ())
    }

    /// Carries out a traced lookup on broker `b`'s copy of `tp`.
    pub(crate) fn broker_lookup(
        &mut self,
        tp: &TopicPartition,
        offset: Option<i64>,
        timestamp: Option<i64>,
    ) -> Step {
        let b = self.id;
        let br = self.me();
        let Some(log) = br.logs.get(tp) else {
            return self
                .k
                .record(
                    vec![bnode(b)],
                    EventKind::CommandRejected {
                        index: 0,
                        reason: format!("broker {} has no replica of {tp}", b.0),
                    },
                )
                .map(|_| ());
        };
        let (lookup, target) = match (offset, timestamp) {
            (Some(o), _) => (log.lookup_offset(&br.disk, o), format!("offset {o}")),
            (_, Some(t)) => (log.lookup_timestamp(&br.disk, t), format!("timestamp {t}")),
            _ => return Ok(()),
        };
        for step in lookup.steps {
            self.k.record(
                vec![bnode(b)],
                EventKind::LookupStepped {
                    broker: b,
                    tp: tp.clone(),
                    target: target.clone(),
                    step,
                },
            )?;
        }
        Ok(())
    }
}
