//! Controlled shutdown (`KafkaController.doControlledShutdown`, Kafka 3.9):
//! the controller moves leadership off a broker that asks to stop and takes
//! it out of the ISR of the partitions it follows, then answers with the
//! partitions it could not move.

use super::*;

impl BrokerCx<'_> {
    /// ControlledShutdown from broker `s`: move its leaderships, drop it from ISRs.
    pub(crate) fn controller_on_controlled_shutdown(&mut self, s: BrokerId) -> Step {
        let c = self.id;
        self.k.gate()?;
        self.ctl_mut().shutting_down.insert(s);
        let (led, followed): (Vec<TopicPartition>, Vec<TopicPartition>) = {
            let ctx = self.ctl();
            let led = ctx
                .states
                .iter()
                .filter(|(tp, st)| st.leader == s.0 && ctx.assignments[*tp].len() > 1)
                .map(|(tp, _)| tp.clone())
                .collect();
            let followed = ctx
                .states
                .iter()
                .filter(|(_, st)| st.leader != s.0 && st.isr.contains(&s))
                .map(|(tp, _)| tp.clone())
                .collect();
            (led, followed)
        };
        let ops = led
            .into_iter()
            .map(|tp| ControllerOp::Elect(tp, ElectionAlgorithm::ControlledShutdown))
            .chain(
                followed
                    .into_iter()
                    .map(|tp| ControllerOp::ShutdownLeaveIsr { tp, s }),
            )
            .collect();
        self.controller_work_next(ControllerWork {
            shutdown_reply: Some(s),
            ..ControllerWork::new(c, ops)
        })
    }

    /// A broker shutting down leaves the ISR of a partition it follows.
    pub(super) fn controller_shutdown_leave_isr(
        &mut self,
        s: BrokerId,
        tp: &TopicPartition,
        batch: &mut Batch,
    ) -> Step {
        let st = self.ctl().states[tp].clone();
        if st.isr.len() <= 1 {
            return Ok(());
        }
        let new_isr: Vec<BrokerId> = st.isr.iter().copied().filter(|b| *b != s).collect();
        let reason = format!("broker {} is shutting down", s.0);
        let change = IsrChange {
            leader: st.leader,
            isr: new_isr,
            reason,
            skip: None,
        };
        self.controller_change_isr(tp, &st, change, batch)
    }
}
