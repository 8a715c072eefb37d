//! What the transactions panel shows, read off the world at the cursor:
//! each transactional id at its coordinator (state, pending transition,
//! producer id and epoch, partitions, the markers still to write) and the
//! last stable offset beside the high watermark and log end offset of
//! every partition of the user's topics (internal topics left out). Layout data only: every value is
//! the engine's.

use kafka_sim::txn::metadata::TxnState;
use kafka_sim::World;

/// The most partitions listed (a big cluster's partitions are not all shown).
const MAX_PARTITIONS: usize = 24;

/// A transactional id at its coordinator.
#[derive(Clone, Debug, PartialEq)]
pub struct CoordinatorView {
    pub transactional_id: String,
    /// The coordinator (leader of its `__transaction_state` partition).
    pub broker: i32,
    /// Its `__transaction_state` partition and the coordinator epoch.
    pub partition: i32,
    pub coordinator_epoch: i32,
    pub state: TxnState,
    /// The transition being written, if any.
    pub pending: Option<TxnState>,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub partitions: Vec<String>,
    /// Markers still to be written: (partition, in a request now).
    pub markers: Vec<(String, bool)>,
    /// COMMIT (true) or ABORT while markers are written.
    pub committing: Option<bool>,
}

/// A partition's offsets on its leader.
#[derive(Clone, Debug, PartialEq)]
pub struct PartitionView {
    pub tp: String,
    pub leader: i32,
    pub log_end_offset: i64,
    pub high_watermark: i64,
    pub last_stable_offset: i64,
    /// Open transactions: (producer id, first offset).
    pub open: Vec<(i64, i64)>,
    /// Decided transactions whose marker is not yet below the high
    /// watermark (they still hold the LSO): (producer id, first offset, marker offset).
    pub unreplicated: Vec<(i64, i64, i64)>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct TxnModel {
    pub coordinators: Vec<CoordinatorView>,
    pub partitions: Vec<PartitionView>,
    /// Partitions left out of `partitions`.
    pub more_partitions: usize,
}

impl TxnModel {
    /// `None` when the scenario has no transactional producer.
    pub fn from_world(w: &World) -> Option<TxnModel> {
        if w.producers().iter().all(|p| p.txn.is_none()) {
            return None;
        }
        let mut m = TxnModel::default();
        for (id, b) in w.brokers() {
            if !b.alive {
                continue;
            }
            for (tid, meta) in b.txns.metas.iter() {
                let p = w
                    .scenario()
                    .cluster
                    .config
                    .transaction_state_log_num_partitions;
                let partition = kafka_sim::txn::partition_for(tid, p);
                let Some(epoch) = b.txns.loaded.get(&partition) else {
                    continue;
                };
                let pm = b.txns.markers.get(tid);
                m.coordinators.push(CoordinatorView {
                    transactional_id: tid.clone(),
                    broker: id.0,
                    partition,
                    coordinator_epoch: *epoch,
                    state: meta.state,
                    pending: meta.pending,
                    producer_id: meta.producer_id,
                    producer_epoch: meta.producer_epoch,
                    partitions: meta.partitions.iter().map(|t| t.to_string()).collect(),
                    markers: pm
                        .map(|pm| {
                            pm.remaining
                                .iter()
                                .map(|t| (t.to_string(), pm.in_flight.contains(t)))
                                .collect()
                        })
                        .unwrap_or_default(),
                    committing: pm.map(|pm| pm.committed),
                });
            }
        }
        // The partitions of user topics, on their leaders.
        let mut rows = Vec::new();
        for (id, b) in w.brokers() {
            if !b.alive {
                continue;
            }
            for (tp, part) in b.partitions.iter() {
                // Internal topics (`__consumer_offsets`, `__transaction_state`) are left out.
                if !part.is_leader || tp.topic.starts_with("__") {
                    continue;
                }
                let Some(log) = b.logs.get(tp) else { continue };
                let states = b.producer_states.get(tp);
                let open = states
                    .map(|s| {
                        s.ongoing
                            .iter()
                            .map(|(first, pid)| (*pid, *first))
                            .collect()
                    })
                    .unwrap_or_default();
                let unreplicated = states
                    .map(|s| {
                        s.unreplicated
                            .iter()
                            .map(|(first, (pid, marker))| (*pid, *first, *marker))
                            .collect()
                    })
                    .unwrap_or_default();
                rows.push(PartitionView {
                    tp: tp.to_string(),
                    leader: id.0,
                    log_end_offset: log.log_end_offset,
                    high_watermark: part.high_watermark,
                    last_stable_offset: b.last_stable_offset(
                        tp,
                        part.high_watermark,
                        log.log_start_offset,
                    ),
                    open,
                    unreplicated,
                });
            }
        }
        rows.sort_by(|a, b| a.tp.cmp(&b.tp));
        m.more_partitions = rows.len().saturating_sub(MAX_PARTITIONS);
        rows.truncate(MAX_PARTITIONS);
        m.partitions = rows;
        Some(m)
    }
}
