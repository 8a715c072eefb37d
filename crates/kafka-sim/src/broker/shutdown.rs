//! The broker's side of a controlled shutdown (`KafkaServer.controlledShutdown`,
//! Kafka 3.9, ZooKeeper mode): it asks the controller to move its
//! leaderships away (`ControlledShutdown`); while the answer lists
//! partitions the controller could not move, or is an error, it asks again
//! `controlled.shutdown.retry.backoff.ms` later, up to
//! `controlled.shutdown.max.retries` requests in all, and then shuts down
//! anyway ("Proceeding to do an unclean shutdown as all the controlled
//! shutdown attempts failed").

use super::*;

impl BrokerCx<'_> {
    /// `kafka-server-stop` with `controlled.shutdown.enable=true`.
    pub(crate) fn broker_begin_controlled_shutdown(&mut self) -> Step {
        self.k.gate()?;
        let br = self.me_mut();
        br.shutting_down = true;
        br.shutdown_attempts = 0;
        if self.k.sc.cluster.config.controlled_shutdown_max_retries == 0 {
            return self.broker_stop_after_controlled_shutdown();
        }
        self.broker_send_controlled_shutdown()
    }

    /// Sends one ControlledShutdown to the controller this broker knows.
    pub(crate) fn broker_send_controlled_shutdown(&mut self) -> Step {
        if !self.me().shutting_down {
            return Ok(());
        }
        let controller = self.me().metadata.controller_id;
        self.k.gate()?;
        self.me_mut().shutdown_attempts += 1;
        if controller < 0 {
            // No controller known: this attempt fails at once.
            return self.broker_on_controlled_shutdown_response(
                Some(ErrorCode::NotController),
                Vec::new(),
            );
        }
        let b = self.id;
        self.k
            .send(
                bnode(b),
                NodeId::Broker(BrokerId(controller)),
                Message::ControlledShutdown { broker: b },
            )
            .map(|_| ())
    }

    /// The controller answered: stop if every partition moved, else try
    /// again after the backoff, or stop anyway after the last attempt.
    pub(crate) fn broker_on_controlled_shutdown_response(
        &mut self,
        error: Option<ErrorCode>,
        partitions_remaining: Vec<TopicPartition>,
    ) -> Step {
        if !self.me().shutting_down {
            return Ok(());
        }
        let b = self.id;
        let attempts = self.me().shutdown_attempts;
        let cfg = &self.k.sc.cluster.config;
        let (max, backoff_ms) = (
            cfg.controlled_shutdown_max_retries,
            cfg.controlled_shutdown_retry_backoff_ms,
        );
        if error.is_none() && partitions_remaining.is_empty() {
            return self.broker_stop_after_controlled_shutdown();
        }
        if attempts < max {
            self.k.record(
                vec![bnode(b)],
                EventKind::ControlledShutdownRetried {
                    broker: b,
                    attempt: attempts,
                    max_retries: max,
                    error,
                    partitions_remaining,
                    backoff_ms,
                },
            )?;
            let at = self.k.now + backoff_ms;
            return self
                .k
                .set_timer(bnode(b), at, Timer::ControlledShutdownRetry);
        }
        self.k.record(
            vec![bnode(b)],
            EventKind::ControlledShutdownGaveUp {
                broker: b,
                attempts,
                partitions_remaining,
            },
        )?;
        self.broker_stop_after_controlled_shutdown()
    }

    /// The process stops (a clean stop: logs closed, the ZooKeeper session
    /// closed); the world resets the connections to it.
    fn broker_stop_after_controlled_shutdown(&mut self) -> Step {
        // A clean shutdown writes the high watermarks one last time
        // (`ReplicaManager.shutdown(checkpointHW = true)`, 3.9 lines
        // 2535-2548), so a restart starts from the exact HW.
        self.broker_checkpoint_hw()?;
        self.broker_kill(true)?;
        self.k.process_exited = Some(bnode(self.id));
        Ok(())
    }
}
