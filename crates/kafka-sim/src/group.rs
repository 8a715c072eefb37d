//! Consumer groups: the group coordinator on the broker and the member side
//! in the consumer.
//!
//! Not simulated yet (issue 6): scenarios that `subscribe` are refused at
//! validation with a message saying so, and a broker answers group requests
//! with `COORDINATOR_NOT_AVAILABLE`. The hooks below are where the consumer's
//! poll loop and the broker hand over to the group protocol.

use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::msg::{ErrorCode, Message};
use crate::sim::{Step, Timer, World};
use std::collections::BTreeMap;

/// The internal topic holding committed offsets.
pub const OFFSETS_TOPIC: &str = "__consumer_offsets";

/// A group as its coordinator keeps it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Group {
    pub group_id: String,
}

/// All groups a broker coordinates.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Groups {
    pub groups: BTreeMap<String, Group>,
}

/// A consumer's membership in its group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberState {
    pub group_id: String,
}

impl MemberState {
    pub fn new(group_id: &str) -> MemberState {
        MemberState {
            group_id: group_id.to_string(),
        }
    }
}

impl World {
    pub(crate) fn group_client_start(&mut self, _c: u32) -> Step {
        Ok(())
    }
    pub(crate) fn group_request_timeout(&mut self, _c: u32, _cid: i32) -> Step {
        Ok(())
    }
    pub(crate) fn group_timer(&mut self, _c: u32, _t: Timer) -> Step {
        Ok(())
    }
    pub(crate) fn group_on_poll(&mut self, _c: u32) -> Step {
        Ok(())
    }
    pub(crate) fn group_after_records_returned(&mut self, _c: u32, _tp: &TopicPartition) -> Step {
        Ok(())
    }
    /// Whether a partition may take its position from `auto.offset.reset`
    /// (a group member first asks for its committed offset).
    pub(crate) fn group_position_ready(&self, c: u32, _tp: &TopicPartition) -> bool {
        self.cs(c).group.is_none()
    }
    pub(crate) fn group_on_metadata(&mut self, _c: u32) -> Step {
        Ok(())
    }
    pub(crate) fn group_client_on_message(
        &mut self,
        _c: u32,
        _from: NodeId,
        _msg: Message,
    ) -> Step {
        Ok(())
    }
    pub(crate) fn group_disconnected(&mut self, _c: u32, _msg: &Message) -> Step {
        Ok(())
    }

    pub(crate) fn coordinator_on_message(
        &mut self,
        b: BrokerId,
        from: NodeId,
        msg: Message,
    ) -> Step {
        let reply = match msg {
            Message::FindCoordinator { correlation_id, .. } => Message::FindCoordinatorResponse {
                correlation_id,
                error: Some(ErrorCode::CoordinatorNotAvailable),
                node_id: -1,
                partition: -1,
            },
            _ => return Ok(()),
        };
        self.send(NodeId::Broker(b), from, reply).map(|_| ())
    }
    pub(crate) fn coordinator_join_deadline(&mut self, _b: BrokerId, _g: &str, _gen: i32) -> Step {
        Ok(())
    }
    pub(crate) fn coordinator_member_expiry(&mut self, _b: BrokerId, _g: &str, _m: &str) -> Step {
        Ok(())
    }
    pub(crate) fn coordinator_initial_delay(&mut self, _b: BrokerId, _g: &str) -> Step {
        Ok(())
    }
}
