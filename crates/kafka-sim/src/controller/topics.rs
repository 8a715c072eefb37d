//! Topics as the controller sees them (`KafkaController.processTopicChange`,
//! `onNewPartitionCreation`, `processPartitionModifications`, Kafka 3.9)
//! and as the admin client creates them (`AdminZkClient.createTopic`:
//! `/brokers/topics/<t>` with the replica assignment and topic id, then
//! `/config/topics/<t>`), including adding partitions.

use super::*;

impl BrokerCx<'_> {
    /// New topics in `/brokers/topics`: watch each, then create its
    /// partitions (`onNewPartitionCreation`), then send the requests.
    pub(super) fn controller_on_topic_change(&mut self) -> Step {
        let c = self.id;
        let known = self.ctl().topics.clone();
        let ops = self
            .zk
            .children("/brokers/topics")
            .into_iter()
            .filter(|t| !known.contains(t))
            .map(|topic| ControllerOp::StartTopic { topic, watch: true })
            .collect();
        self.controller_work_next(ControllerWork::new(c, ops))
    }

    /// Partitions added to a topic the controller knows.
    pub(super) fn controller_on_partition_modification(&mut self, topic: &str) -> Step {
        let c = self.id;
        let op = ControllerOp::StartTopic {
            topic: topic.to_string(),
            watch: false,
        };
        self.controller_work_next(ControllerWork::new(c, VecDeque::from([op])))
    }

    /// Rewrites `/brokers/topics/<t>` from the context (with reassignment state).
    pub(super) fn controller_write_topic_znode(&mut self, topic: &str) -> Step {
        let c = self.id;
        let ctx = self.ctl();
        let mut parts = SortedMap::new();
        let mut adding = SortedMap::new();
        let mut removing = SortedMap::new();
        for (tp, reps) in ctx.assignments.iter().filter(|(tp, _)| &*tp.topic == topic) {
            parts.insert(tp.partition, reps.clone());
            if let Some((o, t)) = ctx.reassigning.get(tp) {
                adding.insert(
                    tp.partition,
                    t.iter()
                        .copied()
                        .filter(|r| !o.contains(r))
                        .collect::<Vec<_>>(),
                );
                removing.insert(
                    tp.partition,
                    o.iter()
                        .copied()
                        .filter(|r| !t.contains(r))
                        .collect::<Vec<_>>(),
                );
            }
        }
        let list = |m: &SortedMap<i32, Vec<BrokerId>>| {
            m.iter()
                .map(|(p, r)| {
                    format!(
                        "\"{p}\":[{}]",
                        r.iter()
                            .map(|b| b.0.to_string())
                            .collect::<Vec<_>>()
                            .join(",")
                    )
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        let id = crate::admin::topic_id(&self.k.sc, topic);
        let data = format!(
            "{{\"partitions\":{{{}}},\"topic_id\":\"{id}\",\"adding_replicas\":{{{}}},\"removing_replicas\":{{{}}},\"version\":3}}",
            list(&parts),
            list(&adding),
            list(&removing)
        );
        self.zkc()
            .set(NodeId::Broker(c), &format!("/brokers/topics/{topic}"), data)
            .map(|_| ())
    }
}
