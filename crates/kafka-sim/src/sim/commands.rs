//! Carrying out the scenario's commands (the person at the keyboard).

use crate::event::EventKind;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::scenario::Command;
use crate::sim::{Step, Timer, World};
use std::sync::Arc;

impl World {
    fn reject(&mut self, index: u32, reason: String) -> Step {
        self.k
            .record(
                vec![NodeId::User],
                EventKind::CommandRejected { index, reason },
            )
            .map(|_| ())
    }

    pub(crate) fn run_command(&mut self, index: u32) -> Step {
        let cmd = self.k.sc.commands[index as usize].command.clone();
        self.k.record(
            vec![NodeId::User],
            EventKind::CommandIssued {
                index,
                command: Box::new(cmd.clone()),
            },
        )?;
        match cmd {
            Command::Produce {
                producer,
                topic,
                key,
                value,
                partition,
                count,
            } => {
                let Some(p) = self.producers.iter().position(|x| x.name == producer) else {
                    return self.reject(index, format!("no producer named {producer}"));
                };
                if self.producers[p].closing {
                    // KafkaProducer.throwIfProducerClosed
                    return self.reject(
                        index,
                        format!("IllegalStateException: Cannot perform operation after producer has been closed ({producer})"),
                    );
                }
                if let Some(why) = self.producers[p].send_refusal() {
                    return self.reject(index, format!("{producer}.send(): {why}"));
                }
                let p = p as u32;
                let n = count.unwrap_or(1);
                for i in 0..n {
                    let v = match (&value, n) {
                        (Some(v), 1) => Some(v.clone()),
                        (Some(v), _) => Some(format!("{v}-{}", i + 1)),
                        (None, _) => None,
                    };
                    self.producer_cx(p)
                        .send(&topic, partition, key.clone(), v)?;
                }
                Ok(())
            }
            Command::KillBroker {
                broker,
                power_failure,
            } => {
                let b = BrokerId(broker);
                if !self.brokers[&b].alive {
                    return self.reject(index, format!("broker {broker} is already down"));
                }
                self.bcx(b).broker_kill(false)?;
                if power_failure {
                    // The machine is gone: no TCP reset, peers wait for timeouts.
                    self.bcx(b).broker_lose_page_cache()
                } else {
                    self.broker_connections_reset(b)
                }
            }
            Command::ShutdownBroker { broker } => {
                let b = BrokerId(broker);
                if !self.brokers[&b].alive {
                    return self.reject(index, format!("broker {broker} is already down"));
                }
                if self.brokers[&b].kraft.is_some() {
                    return self.bcx(b).kraft_begin_controlled_shutdown();
                }
                let controller = self.brokers[&b].metadata.controller_id;
                if !self.k.sc.cluster.config.controlled_shutdown_enable || controller < 0 {
                    return self.bcx(b).broker_kill(true);
                }
                self.bcx(b).broker_begin_controlled_shutdown()
            }
            Command::RestartBroker { broker } => {
                let b = BrokerId(broker);
                if self.brokers[&b].alive {
                    return self.reject(
                        index,
                        format!("broker {broker} is running; kill or shut it down first"),
                    );
                }
                let now = self.k.now;
                self.k.gate()?;
                self.schedule_broker_start(b, now);
                Ok(())
            }
            Command::KillController { controller } | Command::ShutdownController { controller } => {
                if !self.controllers[&controller].alive {
                    return self.reject(index, format!("controller {controller} is already down"));
                }
                let controlled = matches!(cmd, Command::ShutdownController { .. });
                self.ccx(controller).stop(controlled)?;
                self.controller_connections_reset(controller)
            }
            Command::RestartController { controller } => {
                if self.controllers[&controller].alive {
                    return self.reject(
                        index,
                        format!("controller {controller} is running; kill or shut it down first"),
                    );
                }
                self.k.gate()?;
                let node = NodeId::Controller(controller);
                let inc = self.k.incarnation(node);
                let now = self.k.now;
                self.k
                    .schedule_work_timer(node, inc, Timer::BrokerStart, now);
                Ok(())
            }
            Command::CutLink { a, b } => self.apply_link(a, b, Some(true), None),
            Command::HealLink { a, b } => self.apply_link(a, b, Some(false), None),
            Command::SlowLink {
                a,
                b,
                extra_latency_ms,
            } => self.apply_link(a, b, None, Some(extra_latency_ms)),
            Command::CreateTopic { topic } => self.zkc().admin_create_topic(&topic, index, false),
            Command::AddPartitions { topic, partitions } => {
                self.zkc().admin_add_partitions(&topic, partitions)
            }
            Command::ElectPreferredLeaders { topic, partition } => {
                let Some(c) = self.zk.controller_id().filter(|c| {
                    self.brokers
                        .get(c)
                        .is_some_and(|b| b.is_active_controller())
                }) else {
                    return self.reject(index, "no controller is running".into());
                };
                let only = topic.map(|t| {
                    let n = self
                        .zk
                        .data_json(&format!("/brokers/topics/{t}"))
                        .and_then(|v| {
                            v.get("partitions")
                                .and_then(|p| p.as_object().map(|o| o.len()))
                        })
                        .unwrap_or(0);
                    match partition {
                        Some(p) => vec![TopicPartition::new(t.as_str(), p)],
                        None => (0..n as i32)
                            .map(|p| TopicPartition::new(t.as_str(), p))
                            .collect(),
                    }
                });
                self.bcx(c).controller_elect_preferred(only)
            }
            Command::Reassign {
                topic,
                partition,
                replicas,
            } => {
                let exists = self
                    .zk
                    .data_json(&format!("/brokers/topics/{topic}"))
                    .and_then(|v| {
                        v.get("partitions")
                            .and_then(|p| p.get(partition.to_string()).cloned())
                    })
                    .is_some();
                if !exists {
                    return self.reject(
                        index,
                        format!("UNKNOWN_TOPIC_OR_PARTITION: {topic}-{partition} does not exist"),
                    );
                }
                self.zkc().admin_reassign(&topic, partition, &replicas)
            }
            Command::Lookup {
                broker,
                topic,
                partition,
                offset,
                timestamp,
            } => self.bcx(BrokerId(broker)).broker_lookup(
                &TopicPartition::new(topic.as_str(), partition),
                offset,
                timestamp,
            ),
            Command::AddProducer { producer } => {
                if self.producers.iter().any(|x| x.name == producer.name) {
                    return self
                        .reject(index, format!("producer {} already exists", producer.name));
                }
                self.k.gate()?;
                let i = self.producers.len() as u32;
                self.producers
                    .push(std::sync::Arc::new(crate::producer::Producer::new(
                        i, &producer,
                    )));
                let now = self.k.now;
                self.k
                    .schedule_work_timer(NodeId::Producer(i), 0, Timer::ClientStart, now);
                Ok(())
            }
            Command::CloseProducer {
                producer,
                timeout_ms,
            } => {
                let Some(p) = self.producers.iter().position(|x| x.name == producer) else {
                    return self.reject(index, format!("no producer named {producer}"));
                };
                // A close(timeout) while a close() waits may still cut it
                // short (another thread calling close(Duration.ZERO)).
                let pr = &self.producers[p];
                if pr.closed || (pr.closing && timeout_ms.is_none()) {
                    return self.reject(index, format!("producer {producer} is already closed"));
                }
                self.producer_cx(p as u32).close(timeout_ms)
            }
            Command::InitTransactions { ref producer }
            | Command::BeginTransaction { ref producer }
            | Command::CommitTransaction { ref producer }
            | Command::AbortTransaction { ref producer } => {
                let Some(p) = self.producers.iter().position(|x| &x.name == producer) else {
                    return self.reject(index, format!("no producer named {producer}"));
                };
                if self.producers[p].closing {
                    return self.reject(
                        index,
                        format!("IllegalStateException: Cannot perform operation after producer has been closed ({producer})"),
                    );
                }
                let call = match &cmd {
                    Command::InitTransactions { .. } => crate::producer::TxnCall::Init,
                    Command::BeginTransaction { .. } => crate::producer::TxnCall::Begin,
                    Command::CommitTransaction { .. } => crate::producer::TxnCall::Commit,
                    _ => crate::producer::TxnCall::Abort,
                };
                if let Some(why) = self.producers[p].txn_refusal(call) {
                    return self.reject(index, format!("{producer}.{}(): {why}", call.name()));
                }
                self.producer_cx(p as u32).txn_call(call)
            }
            Command::SendOffsetsToTransaction { producer, consumer } => {
                let Some(p) = self.producers.iter().position(|x| x.name == producer) else {
                    return self.reject(index, format!("no producer named {producer}"));
                };
                let Some(c) = self.consumers.iter().position(|x| x.name == consumer) else {
                    return self.reject(index, format!("no consumer named {consumer}"));
                };
                let call = crate::producer::TxnCall::SendOffsets;
                let refusal = if self.producers[p].closing {
                    Some(format!("IllegalStateException: Cannot perform operation after producer has been closed ({producer})"))
                } else {
                    self.producers[p].txn_refusal(call)
                };
                if let Some(why) = refusal {
                    return self.reject(index, format!("{producer}.{}(): {why}", call.name()));
                }
                let cons = &self.consumers[c];
                let Some(g) = cons.group.as_ref().filter(|_| cons.alive) else {
                    return self.reject(
                        index,
                        format!("{consumer}.groupMetadata(): InvalidGroupIdException: To use the group management or offset commit APIs, you must provide a valid group.id in the consumer configuration (or the consumer is not running)"),
                    );
                };
                let offsets: Vec<(TopicPartition, i64)> = cons
                    .assignment
                    .iter()
                    .filter_map(|tp| Some((tp.clone(), *cons.positions.get(tp)?)))
                    .collect();
                let (group, generation, member) =
                    (g.group_id.clone(), g.generation, g.member_id.clone());
                self.producer_cx(p as u32)
                    .txn_send_offsets(group, generation, member, offsets)
            }
            Command::AddConsumer { .. }
            | Command::StopConsumer { .. }
            | Command::CrashConsumer { .. }
            | Command::CommitSync { .. }
            | Command::CommitAsync { .. }
            | Command::PauseConsumer { .. } => self.consumer_command(index, &cmd),
        }
    }

    pub(crate) fn schedule_broker_start(&mut self, b: BrokerId, at: u64) {
        let inc = self.brokers[&b].incarnation;
        self.k
            .schedule_work_timer(NodeId::Broker(b), inc, Timer::BrokerStart, at);
    }

    fn consumer_command(&mut self, index: u32, cmd: &Command) -> Step {
        let name = match cmd {
            Command::StopConsumer { consumer }
            | Command::CrashConsumer { consumer }
            | Command::CommitSync { consumer }
            | Command::CommitAsync { consumer }
            | Command::PauseConsumer { consumer, .. } => consumer.clone(),
            Command::AddConsumer { consumer } => consumer.name.clone(),
            _ => return Ok(()),
        };
        let found = self.consumers.iter().position(|c| c.name == name);
        match (cmd, found) {
            (Command::AddConsumer { consumer }, None) => {
                self.k.gate()?;
                let i = self.consumers.len() as u32;
                self.consumers
                    .push(Arc::new(crate::consumer::Consumer::new(i, consumer)));
                let now = self.k.now;
                self.k
                    .schedule_work_timer(NodeId::Consumer(i), 0, Timer::ClientStart, now);
                Ok(())
            }
            (Command::AddConsumer { .. }, Some(_)) => {
                self.reject(index, format!("consumer {name} already exists"))
            }
            (_, None) => self.reject(index, format!("no consumer named {name}")),
            (Command::PauseConsumer { duration_ms, .. }, Some(i)) => {
                self.k.gate()?;
                let until = self.k.now + duration_ms;
                Arc::make_mut(&mut self.consumers[i]).paused_until = until;
                Ok(())
            }
            (Command::StopConsumer { .. }, Some(i)) => {
                if self.consumers[i].alive {
                    self.consumer_cx(i as u32).group_close()?;
                }
                self.k.gate()?;
                Arc::make_mut(&mut self.consumers[i]).alive = false;
                Ok(())
            }
            (Command::CrashConsumer { .. }, Some(i)) => {
                self.k.gate()?;
                Arc::make_mut(&mut self.consumers[i]).alive = false;
                Ok(())
            }
            (Command::CommitSync { .. } | Command::CommitAsync { .. }, Some(i)) => {
                if self.consumers[i].group.is_none() {
                    return self.reject(
                        index,
                        format!("{name} is not in a consumer group (it uses assign() or has no group.id): there is no group to commit to"),
                    );
                }
                if !self.consumers[i].alive {
                    return self.reject(index, format!("consumer {name} is not running"));
                }
                let sync = matches!(cmd, Command::CommitSync { .. });
                self.consumer_cx(i as u32).group_commit_command(sync)
            }
            (_, Some(_)) => Ok(()),
        }
    }
}

impl World {
    /// The broker's process ended: every TCP connection to it resets, so
    /// the peers with requests in flight learn of it after one link latency
    /// (a power failure sends no reset: they wait for their timeouts).
    /// A controller's process ended: the nodes with a request in flight to
    /// it see their connection reset (after the link's latency).
    pub(crate) fn controller_connections_reset(&mut self, c: i32) -> Step {
        let mut peers: Vec<NodeId> = Vec::new();
        for x in self.controllers.values().filter(|x| x.alive && x.id != c) {
            if x.raft.has_request_to(c) {
                peers.push(NodeId::Controller(x.id));
            }
        }
        for b in self.brokers.values().filter(|b| b.alive) {
            if b.kraft
                .as_ref()
                .is_some_and(|k| k.raft.has_request_to(c) || k.in_flight.is_some())
            {
                peers.push(NodeId::Broker(b.id));
            }
        }
        for node in peers {
            let at = self.k.now + self.k.net.latency(node, NodeId::Controller(c));
            self.k
                .set_timer(node, at, Timer::QuorumPeerClosed { peer: c })?;
        }
        Ok(())
    }

    pub(crate) fn broker_connections_reset(&mut self, b: BrokerId) -> Step {
        let mut peers: Vec<NodeId> = Vec::new();
        for p in &self.producers {
            let txn = p
                .txn
                .as_ref()
                .and_then(|t| t.sent_to)
                .is_some_and(|(_, to)| to == b);
            if txn || p.in_flight.get(&b).is_some_and(|m| !m.is_empty()) {
                peers.push(NodeId::Producer(p.index));
            }
        }
        for c in &self.consumers {
            let coordinator = c
                .group
                .as_ref()
                .is_some_and(|g| g.coordinator == Some(b) && g.awaits_coordinator());
            if c.alive && (c.fetches_in_flight.contains_key(&b) || coordinator) {
                peers.push(NodeId::Consumer(c.index));
            }
        }
        for x in self.brokers.values().filter(|x| x.alive && x.id != b) {
            let fetching = x.fetchers.get(&b).is_some_and(|f| f.in_flight.is_some());
            let altering = x.metadata.controller_id == b.0
                && x.partitions.values().any(|p| p.pending_isr.is_some());
            if fetching || altering {
                peers.push(NodeId::Broker(x.id));
            }
        }
        for node in peers {
            let at = self.k.now + self.k.net.latency(node, NodeId::Broker(b));
            self.k
                .set_timer(node, at, Timer::ConnectionClosed { peer: b })?;
        }
        Ok(())
    }
}
