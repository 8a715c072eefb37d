//! What the storage inspector and the consumer-group view show, read off the
//! engine's world at the cursor. Layout data only: every value (bytes,
//! offsets, assignments, lag) comes from the engine.

use kafka_sim::assignor::{assign_with_racks, MemberSubscription, PartitionName, PartitionRacks};
use kafka_sim::client_config::AssignorName;
use kafka_sim::collections::{SortedMap, SortedSet};
use kafka_sim::group::MemberPhase;
use kafka_sim::ids::BrokerId;
use kafka_sim::storage::index::{decode_index, IndexKind};
use kafka_sim::storage::paged::Storage;
use kafka_sim::storage::record::decode_batch;
use kafka_sim::World;

/// Rows shown at most per table (the rest is summarised).
pub const MAX_ROWS: usize = 200;

#[derive(Clone, Debug, PartialEq)]
pub struct FileRow {
    /// The path on the broker's disk, `topic-N/00000000000000000000.log`.
    pub path: String,
    pub bytes: u64,
    pub pages: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BatchRow {
    pub segment: i64,
    pub position: u64,
    pub base_offset: i64,
    pub last_offset: i64,
    pub records: i32,
    pub size: u64,
    pub leader_epoch: i32,
    pub producer_id: i64,
    pub crc_ok: bool,
    /// Written inside a transaction (attribute bit 4).
    pub transactional: bool,
    /// A control batch (attribute bit 5): a transaction marker.
    pub control: bool,
    /// `key=value` of the first records; for a marker, what it says as
    /// `kafka-dump-log` prints it (`endTxnMarker: COMMIT coordinatorEpoch: 0`).
    pub preview: String,
}

/// One entry of a segment's `.txnindex`: an aborted transaction.
#[derive(Clone, Debug, PartialEq)]
pub struct TxnIndexRow {
    pub segment: i64,
    pub producer_id: i64,
    pub first_offset: i64,
    pub last_offset: i64,
    pub last_stable_offset: i64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct IndexRow {
    pub segment: i64,
    pub time: bool,
    pub slot: u64,
    /// Offset index: offset → position. Time index: timestamp → offset.
    pub key: i64,
    pub value: i64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PartitionFiles {
    pub broker: i32,
    pub dir: String,
    pub topic: String,
    pub partition: i32,
    pub log_start: i64,
    pub log_end: i64,
    pub high_watermark: Option<i64>,
    pub cleanup: String,
    /// KRaft's `__cluster_metadata-0` (no lookups; records decoded).
    pub metadata: bool,
    pub files: Vec<FileRow>,
    pub batches: Vec<BatchRow>,
    pub batches_total: usize,
    pub index: Vec<IndexRow>,
    pub txn_index: Vec<TxnIndexRow>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StorageModel {
    /// (key `broker:dir`, label).
    pub choices: Vec<(String, String)>,
    pub selected: Option<PartitionFiles>,
    /// The bytes of one batch of `.log`, field by field.
    pub hex: Option<HexView>,
    /// The latest offset / timestamp lookup on this copy, up to the cursor.
    pub lookup: Option<LookupView>,
}

/// Bytes shown at most in the hex view (the rest is counted).
pub const HEX_BYTES: usize = 512;

#[derive(Clone, Debug, PartialEq)]
pub struct HexView {
    pub segment: i64,
    pub position: u64,
    /// The batch's size in bytes (more than shown when over [`HEX_BYTES`]).
    pub size: usize,
    pub bytes: Vec<u8>,
    /// For each byte shown, the index of its field in `fields`.
    pub field_of: Vec<usize>,
    pub fields: Vec<kafka_sim::storage::record::FieldSpan>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LookupLine {
    pub event: u64,
    pub text: String,
    pub current: bool,
}

/// What the lookup at the cursor is touching, for highlighting.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LookupMark {
    pub segment: Option<i64>,
    /// (segment, time index?, slot).
    pub index: Option<(i64, bool, u64)>,
    /// (segment, position).
    pub batch: Option<(i64, u64)>,
}

/// Where the lookup stands, for its picture: the binary search over the
/// segments, then over the chosen segment's index, then the scan of its
/// `.log` (each as far as the cursor).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LookupPicture {
    /// The latest probe of the segment search: (lo, hi, mid) as positions
    /// in the list of segments.
    pub segment_probe: Option<(u32, u32, u32)>,
    /// The segment chosen (its base offset).
    pub segment: Option<i64>,
    /// The latest index probe: (time index?, lo, hi, mid slot, comparison).
    pub index_probe: Option<(bool, u64, u64, u64, i8)>,
    /// The index entry the search settled on: (time index?, slot), or the
    /// start of the file (None inside).
    pub index_result: Option<(bool, Option<u64>)>,
    /// Where the scan of `.log` starts.
    pub scan_from: Option<u64>,
    /// The batches scanned so far (their positions), and the one found.
    pub scanned: Vec<u64>,
    pub found: Option<u64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LookupView {
    pub target: String,
    pub lines: Vec<LookupLine>,
    /// True when the cursor is on one of this lookup's steps.
    pub active: bool,
    pub mark: LookupMark,
    pub picture: LookupPicture,
}

/// How far back a lookup is looked for.
const LOOKUP_LOOK_BACK: usize = 5_000;

/// The latest lookup on `broker`'s copy of `topic-partition` in `past`, its
/// steps so far (captions in `lang`) and what the last step touches.
pub fn lookup_view(
    past: &[kafka_sim::event::Event],
    broker: i32,
    topic: &str,
    partition: i32,
    lang: kafka_sim::Lang,
) -> Option<LookupView> {
    use kafka_sim::event::EventKind;
    use kafka_sim::storage::log::LookupStep;
    let ours = |e: &kafka_sim::event::Event| match &e.kind {
        EventKind::LookupStepped {
            broker: b,
            tp,
            target,
            step,
        } if b.0 == broker && &*tp.topic == topic && tp.partition == partition => {
            Some((target.clone(), step.clone()))
        }
        _ => None,
    };
    let start = past.len().saturating_sub(LOOKUP_LOOK_BACK);
    let last = (start..past.len())
        .rev()
        .find(|&i| ours(&past[i]).is_some())?;
    let (target, _) = ours(&past[last])?;
    // The lookup's steps: back to the step that opened it (a segment search).
    // Its steps are contiguous in the trace; an earlier lookup of the same
    // target ends with its answer (Found / NotFound).
    let mut first = last;
    while first > start {
        match ours(&past[first - 1]) {
            Some((_, LookupStep::Found { .. } | LookupStep::NotFound { .. })) => break,
            Some((t, _)) if t == target => first -= 1,
            _ => break,
        }
    }
    let mut mark = LookupMark::default();
    let mut pic = LookupPicture::default();
    let mut lines = Vec::new();
    for e in &past[first..=last] {
        let Some((_, step)) = ours(e) else { continue };
        let mut seg_now = mark.segment;
        match &step {
            LookupStep::SegmentProbe { lo, hi, mid, .. } => {
                pic.segment_probe = Some((*lo, *hi, *mid))
            }
            LookupStep::SegmentChosen { base_offset, .. } => pic.segment = Some(*base_offset),
            LookupStep::IndexProbe { kind, probe } => {
                pic.index_probe = Some((
                    *kind == IndexKind::Time,
                    probe.lo,
                    probe.hi,
                    probe.entry.slot,
                    probe.cmp,
                ))
            }
            LookupStep::IndexResult {
                kind,
                entry,
                start_position,
            } => {
                pic.index_result = Some((*kind == IndexKind::Time, entry.map(|e| e.slot)));
                pic.scan_from = Some(*start_position);
            }
            LookupStep::BatchScanned { position, .. } => pic.scanned.push(*position),
            LookupStep::Found { position, .. } => pic.found = Some(*position),
            _ => {}
        }
        match step {
            LookupStep::SegmentProbe { base_offset, .. }
            | LookupStep::SegmentTimestampCheck { base_offset, .. }
            | LookupStep::SegmentChosen { base_offset, .. } => {
                seg_now = Some(base_offset);
                mark = LookupMark {
                    segment: seg_now,
                    ..LookupMark::default()
                };
            }
            LookupStep::IndexProbe { kind, probe } => {
                mark.index = seg_now.map(|s| (s, kind == IndexKind::Time, probe.entry.slot));
                mark.batch = None;
            }
            LookupStep::IndexResult { kind, entry, .. } => {
                mark.index = seg_now
                    .zip(entry)
                    .map(|(s, en)| (s, kind == IndexKind::Time, en.slot));
            }
            LookupStep::BatchScanned { position, .. } | LookupStep::Found { position, .. } => {
                mark.batch = seg_now.map(|s| (s, position));
            }
            LookupStep::NotFound { .. } => mark.batch = None,
        }
        mark.segment = seg_now;
        lines.push(LookupLine {
            event: e.id,
            text: e.caption(lang),
            current: false,
        });
    }
    let active = last + 1 == past.len();
    if let Some(l) = lines.last_mut() {
        l.current = active;
    }
    Some(LookupView {
        target,
        lines,
        active,
        mark,
        picture: pic,
    })
}

/// The batch at `position` of segment `segment`'s `.log`, laid out field by
/// field by the engine's decoder.
pub fn hex_view(w: &World, broker: i32, dir: &str, segment: i64, position: u64) -> Option<HexView> {
    let at = on_disk(w, broker, dir)?;
    let bytes = at.disk.read_all(&format!("{dir}/{segment:020}.log")).ok()?;
    let at = bytes.get(position as usize..)?;
    let fields = kafka_sim::storage::record::batch_layout(at).ok()?;
    let size = fields.last().map(|f| f.start + f.len).unwrap_or(0);
    let shown = size.min(HEX_BYTES);
    let field_of: Vec<usize> = fields
        .iter()
        .enumerate()
        .flat_map(|(i, f)| std::iter::repeat_n(i, f.len))
        .take(shown)
        .collect();
    Some(HexView {
        segment,
        position,
        size,
        bytes: at[..shown].to_vec(),
        field_of,
        fields,
    })
}

/// The key of a partition directory on a broker, as the selector uses it.
pub fn storage_key(broker: i32, dir: &str) -> String {
    format!("{broker}:{dir}")
}

impl StorageModel {
    /// `want`: the selected key; else `prefer`, a partition the lesson names
    /// (as on its leader); else the first user partition.
    /// `batch`: the batch shown in hex (segment, position); else the one the
    /// current lookup scans, else the first. `past`: the trace to the cursor.
    pub fn from_world(
        w: &World,
        want: Option<&str>,
        prefer: Option<&str>,
        batch: Option<(i64, u64)>,
        past: &[kafka_sim::event::Event],
        lang: kafka_sim::Lang,
    ) -> StorageModel {
        let mut choices = Vec::new();
        for (id, b) in w.brokers() {
            for log in b.logs.values() {
                let key = storage_key(id.0, &log.dir);
                let label = format!("broker {} · {}", id.0, log.dir);
                choices.push((key, label));
            }
            // KRaft: the broker's copy of the metadata log.
            if let Some(k) = &b.kraft {
                let dir = &k.raft.files.log.dir;
                choices.push((storage_key(id.0, dir), format!("broker {} · {dir}", id.0)));
            }
        }
        for c in w.controllers().values() {
            let dir = &c.raft.files.log.dir;
            choices.push((
                storage_key(c.id, dir),
                format!("controller {} · {dir}", c.id),
            ));
        }
        // User topics first, internal ones after.
        choices.sort_by(|(a, _), (b, _)| {
            a.contains(":__")
                .cmp(&b.contains(":__"))
                .then_with(|| crate::model::cluster::natural_cmp(a, b))
        });
        // The lesson's partition, on its live leader when there is one.
        let lesson_key = prefer.and_then(|tp| {
            let on = |id: &kafka_sim::ids::BrokerId, leader: bool| {
                w.brokers().get(id).is_some_and(|b| {
                    b.alive
                        && (!leader
                            || b.partitions
                                .iter()
                                .any(|(t, p)| p.is_leader && t.to_string() == tp))
                })
            };
            let keys = || {
                w.brokers()
                    .iter()
                    .filter(|(_, b)| b.logs.values().any(|l| l.dir == tp))
                    .map(|(id, _)| id)
            };
            keys()
                .find(|id| on(id, true))
                .or_else(|| keys().find(|id| on(id, false)))
                .or_else(|| keys().next())
                .map(|id| storage_key(id.0, tp))
        });
        let key = want
            .filter(|k| choices.iter().any(|(c, _)| c == k))
            .map(str::to_string)
            .or(lesson_key)
            .or_else(|| choices.first().map(|(k, _)| k.clone()));
        let selected = key.and_then(|k| partition_files(w, &k));
        let lookup = selected
            .as_ref()
            .and_then(|s| lookup_view(past, s.broker, &s.topic, s.partition, lang));
        let hex = selected.as_ref().and_then(|s| {
            let from_lookup = lookup
                .as_ref()
                .filter(|l| l.active)
                .and_then(|l| l.mark.batch);
            let first = s.batches.first().map(|b| (b.segment, b.position));
            let (seg, pos) = batch
                .filter(|b| s.batches.iter().any(|x| (x.segment, x.position) == *b))
                .or(from_lookup)
                .or(first)?;
            hex_view(w, s.broker, &s.dir, seg, pos)
        });
        StorageModel {
            choices,
            selected,
            hex,
            lookup,
        }
    }
}

/// The metadata log's directory (KRaft).
pub const METADATA_DIR: &str = "__cluster_metadata-0";

/// A log directory on a node's disk: a broker's partition, or a KRaft
/// node's `__cluster_metadata-0` (brokers and controllers have distinct
/// ids). With the high watermark the node holds for it.
struct OnDisk<'a> {
    disk: &'a kafka_sim::storage::paged::MemStorage,
    log: &'a kafka_sim::storage::log::Log,
    high_watermark: Option<i64>,
}

fn on_disk<'a>(w: &'a World, node: i32, dir: &str) -> Option<OnDisk<'a>> {
    let raft = |r: &'a kafka_sim::kraft::raft::RaftClient| OnDisk {
        disk: &r.files.disk,
        log: &r.files.log,
        high_watermark: (r.high_watermark >= 0).then_some(r.high_watermark),
    };
    if let Some(br) = w.brokers().get(&BrokerId(node)) {
        if dir == METADATA_DIR {
            return br.kraft.as_ref().map(|k| raft(&k.raft));
        }
        let log = br.logs.values().find(|l| l.dir == dir)?;
        return Some(OnDisk {
            disk: &br.disk,
            log,
            high_watermark: br.partitions.get(&log.tp).map(|p| p.high_watermark),
        });
    }
    let c = w.controllers().get(&node)?;
    (dir == METADATA_DIR).then(|| raft(&c.raft))
}

/// What a metadata log's record holds, as `kafka-dump-log
/// --cluster-metadata-decoder` prints it, shortened.
fn metadata_preview(r: &kafka_sim::storage::record::Record, control: bool) -> String {
    let v = r.value.as_deref().unwrap_or_default();
    let full = if control {
        kafka_sim::kraft::codec::decode_leader_change(v)
    } else {
        kafka_sim::kraft::codec::decode_value(v)
    }
    .unwrap_or_else(|e| e);
    // `payload: {"type":"X","version":N,"data":{…}}` → `X vN {…}`.
    let s = full
        .strip_prefix("payload: {\"type\":\"")
        .and_then(|rest| rest.strip_suffix('}'))
        .and_then(|rest| {
            let (name, rest) = rest.split_once("\",\"version\":")?;
            let (version, data) = rest.split_once(",\"data\":")?;
            Some(format!("{name} v{version} {data}"))
        })
        .unwrap_or_else(|| full.trim_start().to_string());
    if s.chars().count() > 72 {
        let cut: String = s.chars().take(71).collect();
        format!("{cut}…")
    } else {
        s
    }
}

fn partition_files(w: &World, key: &str) -> Option<PartitionFiles> {
    let (b, dir) = key.split_once(':')?;
    let id = BrokerId(b.parse().ok()?);
    let at = on_disk(w, id.0, dir)?;
    let (disk, log) = (at.disk, at.log);
    let metadata = dir == METADATA_DIR;
    let files: Vec<FileRow> = disk
        .list(&format!("{dir}/"))
        .into_iter()
        .map(|path| FileRow {
            bytes: disk.len(&path).unwrap_or(0),
            pages: disk.pages(&path).map(|p| p.len()).unwrap_or(0),
            path,
        })
        .collect();
    let mut batches = Vec::new();
    let mut batches_total = 0;
    let mut index = Vec::new();
    let mut txn_index = Vec::new();
    for seg in &log.segments {
        let base = seg.base_offset;
        let stem = format!("{dir}/{base:020}");
        if let Ok(bytes) = disk.read_all(&format!("{stem}.log")) {
            let mut pos = 0usize;
            while pos < bytes.len() {
                let Ok(d) = decode_batch(&bytes[pos..], pos as u64) else {
                    break;
                };
                let size = d.header.size_in_bytes();
                batches_total += 1;
                if batches.len() < MAX_ROWS {
                    let preview: Vec<String> = d
                        .records
                        .iter()
                        .take(3)
                        .map(|r| {
                            let s = |b: &Option<Vec<u8>>| {
                                b.as_ref()
                                    .map(|v| String::from_utf8_lossy(v).chars().take(24).collect())
                                    .unwrap_or_else(|| "null".to_string())
                            };
                            format!("{}={}", s(&r.key), s(&r.value))
                        })
                        .collect();
                    batches.push(BatchRow {
                        segment: base,
                        position: pos as u64,
                        base_offset: d.header.base_offset,
                        last_offset: d.header.last_offset(),
                        records: d.header.records_count,
                        size,
                        leader_epoch: d.header.partition_leader_epoch,
                        producer_id: d.header.producer_id,
                        crc_ok: d.crc_valid(),
                        transactional: d.header.is_transactional(),
                        control: d.header.is_control(),
                        preview: match d.records.first() {
                            Some(r) if metadata => {
                                let control = d.header.is_control();
                                let more = d.records.len() - 1;
                                let first = metadata_preview(r, control);
                                if more > 0 {
                                    format!("{first} (+{more})")
                                } else {
                                    first
                                }
                            }
                            Some(r) if d.header.is_control() => {
                                kafka_sim::storage::record::describe_control(r)
                            }
                            _ => preview.join(", "),
                        },
                    });
                }
                pos += size as usize;
            }
        }
        if let Ok(bytes) = disk.read_all(&format!("{stem}.txnindex")) {
            let entries =
                kafka_sim::storage::txn_index::decode_txn_index(&bytes).unwrap_or_default();
            txn_index.extend(entries.into_iter().take(MAX_ROWS).map(|a| TxnIndexRow {
                segment: base,
                producer_id: a.producer_id,
                first_offset: a.first_offset,
                last_offset: a.last_offset,
                last_stable_offset: a.last_stable_offset,
            }));
        }
        for (ext, kind, time) in [
            ("index", IndexKind::Offset, false),
            ("timeindex", IndexKind::Time, true),
        ] {
            let Ok(bytes) = disk.read_all(&format!("{stem}.{ext}")) else {
                continue;
            };
            // Only the entries written (Kafka preallocates index files).
            let n = if time {
                seg.time_index_entries
            } else {
                seg.index_entries
            } as usize;
            let used = (n * kind.entry_size() as usize).min(bytes.len());
            if let Ok(entries) = decode_index(kind, base, &bytes[..used]) {
                for e in entries
                    .into_iter()
                    .take(MAX_ROWS.saturating_sub(index.len()))
                {
                    index.push(IndexRow {
                        segment: base,
                        time,
                        slot: e.slot,
                        key: e.key,
                        value: e.value,
                    });
                }
            }
        }
    }
    Some(PartitionFiles {
        broker: id.0,
        dir: dir.to_string(),
        topic: log.tp.topic.to_string(),
        partition: log.tp.partition,
        log_start: log.log_start_offset,
        log_end: log.log_end_offset,
        high_watermark: at.high_watermark,
        cleanup: log.config.cleanup_policy.to_string(),
        metadata,
        files,
        batches,
        batches_total,
        index,
        txn_index,
    })
}

/// The bytes of a file on a node's disk, for a download.
pub fn file_bytes(w: &World, broker: i32, path: &str) -> Option<Vec<u8>> {
    let dir = path.split('/').next()?;
    on_disk(w, broker, dir)?.disk.read_all(path).ok()
}

// ---- consumer groups --------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
pub struct MemberRow {
    pub consumer: String,
    pub alive: bool,
    pub member_id: String,
    pub phase: String,
    pub generation: i32,
    pub leader: bool,
    pub assignment: Vec<String>,
    /// (partition, the consumer's own `records-lag` metric: high watermark
    /// − position, as the consumer last heard the HW).
    pub lag: Vec<(String, i64)>,
    /// Its `client.rack`, and how many of its partitions have a replica on
    /// that rack (KIP-881), when it has one.
    pub rack: Option<(String, usize)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CompareRow {
    pub strategy: &'static str,
    /// Member → partitions, before and after the change.
    pub before: Vec<(String, Vec<String>)>,
    pub after: Vec<(String, Vec<String>)>,
    /// Partitions of the members who stay that changed owner.
    pub moved: usize,
    /// Cooperative only: partitions revoked in the first round.
    pub revoked_first: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GroupView {
    pub group_id: String,
    pub coordinator: Option<i32>,
    pub offsets_partition: i32,
    pub state: Option<String>,
    pub generation: Option<i32>,
    pub protocol: Option<String>,
    pub members: Vec<MemberRow>,
    pub committed: Vec<(String, i64)>,
    /// The group's lag as `kafka-consumer-groups --describe` shows it, per
    /// committed partition: LOG-END-OFFSET (the leader's high watermark, what
    /// ListOffsets returns for read_uncommitted) − CURRENT-OFFSET (the
    /// committed offset). None while the partition has no leader.
    pub group_lag: Vec<(String, Option<i64>)>,
    /// Which member leaves in the comparison.
    pub leaving: Option<String>,
    pub comparison: Vec<CompareRow>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GroupsModel {
    pub groups: Vec<GroupView>,
}

impl GroupsModel {
    pub fn from_world(w: &World) -> GroupsModel {
        let groups = group_ids(w)
            .into_iter()
            .map(|g| group_view(w, &g))
            .collect();
        GroupsModel { groups }
    }
}

/// The consumers' group ids, sorted, each once.
fn group_ids(w: &World) -> Vec<String> {
    let mut ids: Vec<String> = w
        .consumers()
        .iter()
        .filter_map(|c| c.group.as_ref().map(|g| g.group_id.clone()))
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// The live broker coordinating group `g`, and the group as it holds it.
fn coordinator<'w>(w: &'w World, g: &str) -> Option<(i32, &'w kafka_sim::group::Group)> {
    w.brokers()
        .values()
        .filter(|b| b.alive)
        .find_map(|b| b.groups.groups.get(g).map(|grp| (b.id.0, grp)))
}

/// Each consumer group (sorted by id) with its live coordinator (its id)
/// and the coordinator's view of it: what the "what changed" facts read.
/// Unlike [`GroupsModel`], it runs no assignor and builds no member rows (at
/// 40 groups of 40 members on 3,000 partitions, the model took a second to
/// build natively, on every step).
#[allow(clippy::type_complexity)]
pub fn group_coordinators(w: &World) -> Vec<(String, Option<(i32, &kafka_sim::group::Group)>)> {
    group_ids(w)
        .into_iter()
        .map(|g| {
            let c = coordinator(w, &g);
            (g, c)
        })
        .collect()
}

fn group_view(w: &World, g: &str) -> GroupView {
    let coord = coordinator(w, g);
    let members: Vec<MemberRow> = w
        .consumers()
        .iter()
        .filter_map(|c| {
            let m = c.group.as_ref().filter(|m| m.group_id == g)?;
            Some(MemberRow {
                consumer: c.name.clone(),
                alive: c.alive,
                member_id: m.member_id.clone(),
                phase: match (c.alive, m.phase) {
                    // Keys of the page's words (`phase_…`).
                    (false, _) => "stopped",
                    (_, MemberPhase::Unjoined) => "unjoined",
                    (_, MemberPhase::Joining) => "joining",
                    (_, MemberPhase::Syncing) => "syncing",
                    (_, MemberPhase::Stable) => "stable",
                }
                .to_string(),
                generation: m.generation,
                leader: m.is_leader && m.phase == MemberPhase::Stable,
                assignment: c.assignment.iter().map(|tp| tp.to_string()).collect(),
                lag: c
                    .lag()
                    .into_iter()
                    .map(|(tp, l)| (tp.to_string(), l))
                    .collect(),
                rack: Some(c.config.client_rack.clone())
                    .filter(|r| !r.is_empty())
                    .map(|r| {
                        let racks = &w.scenario().cluster.broker_rack;
                        let zk = w.zookeeper();
                        let near = c
                            .assignment
                            .iter()
                            .filter(|tp| {
                                zk.topic_assignment(&tp.topic)
                                    .get(&tp.partition)
                                    .is_some_and(|reps| {
                                        reps.iter().any(|b| racks.get(&b.0) == Some(&r))
                                    })
                            })
                            .count();
                        (r, near)
                    }),
            })
        })
        .collect();
    let comparison = compare_assignors(w, g);
    GroupView {
        group_id: g.to_string(),
        coordinator: coord.map(|(b, _)| b),
        offsets_partition: w.group_partition(g),
        state: coord.map(|(_, x)| format!("{:?}", x.state)),
        generation: coord.map(|(_, x)| x.generation_id),
        protocol: coord.and_then(|(_, x)| x.protocol_name.clone()),
        committed: coord
            .map(|(_, x)| {
                x.offsets
                    .iter()
                    .map(|(tp, o)| (tp.to_string(), *o))
                    .collect()
            })
            .unwrap_or_default(),
        group_lag: coord
            .map(|(_, x)| {
                x.offsets
                    .iter()
                    .map(|(tp, o)| {
                        let hw = w.brokers().values().find_map(|b| {
                            b.partitions
                                .get(tp)
                                .filter(|p| b.alive && p.is_leader)
                                .map(|p| p.high_watermark)
                        });
                        (tp.to_string(), hw.map(|hw| (hw - *o).max(0)))
                    })
                    .collect()
            })
            .unwrap_or_default(),
        leaving: comparison.1,
        comparison: comparison.0,
        members,
    }
}

/// The four assignors on this group's running members, then again after the
/// last of them leaves (each member keeping what the first round gave it).
fn compare_assignors(w: &World, g: &str) -> (Vec<CompareRow>, Option<String>) {
    let running: Vec<&kafka_sim::consumer::Consumer> = w
        .consumers()
        .iter()
        .filter(|c| c.alive && c.group.as_ref().is_some_and(|m| m.group_id == g))
        .map(|c| &**c)
        .collect();
    if running.len() < 2 {
        return (Vec::new(), None);
    }
    let mut topics: SortedMap<String, i32> = SortedMap::new();
    let subs: Vec<MemberSubscription> = running
        .iter()
        .map(|c| {
            let m = c.group.as_ref().expect("filtered");
            for t in &m.subscription {
                if let Some(n) = c.metadata.partition_count(t) {
                    topics.insert(t.clone(), n);
                }
            }
            MemberSubscription {
                member_id: c.name.clone(),
                group_instance_id: None,
                topics: m.subscription.clone(),
                owned_partitions: Vec::new(),
                generation: None,
                rack_id: Some(c.config.client_rack.clone()).filter(|r| !r.is_empty()),
            }
        })
        .collect();
    // The replicas' racks as a leader would read them (KIP-881).
    let broker_rack = &w.scenario().cluster.broker_rack;
    let racks: PartitionRacks = topics
        .iter()
        .map(|(t, n)| {
            (
                t.clone(),
                running[0].metadata.replica_racks(t, *n, broker_rack),
            )
        })
        .collect();
    let leaving = subs.last().map(|m| m.member_id.clone());
    let mut rows = Vec::new();
    for s in [
        AssignorName::Range,
        AssignorName::RoundRobin,
        AssignorName::Sticky,
        AssignorName::CooperativeSticky,
    ] {
        let Ok(before) = assign_with_racks(s, &topics, &racks, &subs) else {
            continue;
        };
        let stay: Vec<MemberSubscription> = subs[..subs.len() - 1]
            .iter()
            .map(|m| MemberSubscription {
                owned_partitions: before.assignment[&m.member_id].clone(),
                generation: Some(1),
                ..m.clone()
            })
            .collect();
        let Ok(after) = assign_with_racks(s, &topics, &racks, &stay) else {
            continue;
        };
        let moved = stay
            .iter()
            .map(|m| {
                m.owned_partitions
                    .iter()
                    .filter(|p| !after.assignment[&m.member_id].contains(p))
                    .count()
            })
            .sum();
        let revoked_first = after.revoke.values().map(Vec::len).sum();
        let names = |r: &SortedMap<String, Vec<PartitionName>>| -> Vec<(String, Vec<String>)> {
            r.iter()
                .map(|(m, v)| (m.clone(), v.iter().map(|p| p.to_string()).collect()))
                .collect()
        };
        rows.push(CompareRow {
            strategy: s.protocol_name(),
            before: names(&before.assignment),
            after: names(&after.assignment),
            moved,
            revoked_first: if s.is_cooperative() { revoked_first } else { 0 },
        });
    }
    (rows, leaving)
}

// ---- the rebalance as a sequence diagram -------------------------------------

/// One group-protocol message between a consumer and a broker.
#[derive(Clone, Debug, PartialEq)]
pub struct SeqMessage {
    pub event: u64,
    pub time_ms: u64,
    pub deliver_ms: u64,
    /// Lifeline indices (consumers first, then brokers).
    pub from: usize,
    pub to: usize,
    pub label: String,
    pub error: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SequenceModel {
    pub lifelines: Vec<String>,
    pub messages: Vec<SeqMessage>,
}

/// The last `max` group-protocol messages sent up to the cursor
/// (FindCoordinator, JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
/// OffsetCommit, OffsetFetch and their responses), between consumers and
/// brokers, laid out as lifelines.
/// `consumers`: the scenario's consumer names by index (lifelines are
/// named as the scenario names the clients; an unknown index is numbered).
pub fn sequence(
    past: &[kafka_sim::Event],
    max: usize,
    show_heartbeats: bool,
    consumer_names: &[String],
) -> SequenceModel {
    use kafka_sim::event::EventKind;
    use kafka_sim::msg::Message;
    use kafka_sim::NodeId;
    let group_api = |m: &Message| {
        matches!(
            m,
            Message::FindCoordinator { .. }
                | Message::FindCoordinatorResponse { .. }
                | Message::JoinGroup(..)
                | Message::JoinGroupResponse { .. }
                | Message::SyncGroup(..)
                | Message::SyncGroupResponse { .. }
                | Message::LeaveGroup { .. }
                | Message::LeaveGroupResponse { .. }
                | Message::OffsetCommit(..)
                | Message::OffsetCommitResponse { .. }
                | Message::OffsetFetch { .. }
                | Message::OffsetFetchResponse { .. }
        ) || (show_heartbeats
            && matches!(
                m,
                Message::Heartbeat { .. } | Message::HeartbeatResponse { .. }
            ))
    };
    let picked: Vec<&kafka_sim::Event> = past
        .iter()
        .rev()
        .filter(|e| matches!(&e.kind, EventKind::MessageSent { message, .. } if group_api(message)))
        .take(max)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let mut consumers = SortedSet::new();
    let mut brokers = SortedSet::new();
    for e in &picked {
        if let EventKind::MessageSent { from, to, .. } = &e.kind {
            for n in [from, to] {
                match n {
                    NodeId::Consumer(c) => {
                        consumers.insert(*c);
                    }
                    NodeId::Broker(b) => {
                        brokers.insert(b.0);
                    }
                    _ => {}
                }
            }
        }
    }
    let mut lifelines: Vec<String> = consumers
        .iter()
        .map(|c| match consumer_names.get(*c as usize) {
            Some(name) => format!("consumer {name}"),
            None => format!("consumer {c}"),
        })
        .collect();
    lifelines.extend(brokers.iter().map(|b| format!("broker {b}")));
    let index = |n: &NodeId| -> Option<usize> {
        match n {
            NodeId::Consumer(c) => consumers.iter().position(|x| x == c),
            NodeId::Broker(b) => brokers
                .iter()
                .position(|x| *x == b.0)
                .map(|i| i + consumers.len()),
            _ => None,
        }
    };
    let messages = picked
        .iter()
        .filter_map(|e| {
            let EventKind::MessageSent {
                from,
                to,
                deliver_at,
                message,
                ..
            } = &e.kind
            else {
                return None;
            };
            Some(SeqMessage {
                event: e.id,
                time_ms: e.time_ms,
                deliver_ms: *deliver_at,
                from: index(from)?,
                to: index(to)?,
                label: message.summary(),
                error: message.error().is_some(),
            })
        })
        .collect();
    SequenceModel {
        lifelines,
        messages,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::Player;
    use kafka_sim::Lang;

    /// The storage-lookup lesson's scenario with an index entry every 700
    /// bytes (the lesson has 400): one entry, 3 → 756, in segment 0.
    fn lesson() -> Player {
        let text = include_str!("../../static/lessons/storage-lookup.json");
        let sparser = text.replace(
            "\"index.interval.bytes\": 400",
            "\"index.interval.bytes\": 700",
        );
        assert_ne!(sparser, text);
        Player::from_json(&sparser).unwrap()
    }

    /// The storage model with the cursor just after the event `caption` names.
    fn at(p: &mut Player, needle: &str, batch: Option<(i64, u64)>) -> StorageModel {
        let i = p
            .find_nth_where(1, |e| e.caption(Lang::En).contains(needle))
            .unwrap_or_else(|| panic!("no event says {needle}"));
        p.seek(i + 1);
        StorageModel::from_world(
            p.world(),
            Some("0:first-0"),
            None,
            batch,
            p.past(),
            Lang::En,
        )
    }

    #[test]
    fn a_lookup_is_followed_probe_by_probe_with_what_it_touches() {
        let mut p = lesson();
        let m = at(&mut p, ".index first-entry check, slot 0: 3 → 756", None);
        let l = m.lookup.as_ref().expect("a lookup on this copy");
        assert_eq!(l.target, "offset 3");
        assert!(l.active);
        assert_eq!(l.lines.len(), 4, "{:#?}", l.lines);
        assert!(l.lines[0].text.contains("segment search"));
        assert!(l.lines.last().unwrap().current);
        assert_eq!(
            l.mark,
            LookupMark {
                segment: Some(0),
                index: Some((0, false, 0)),
                batch: None,
            }
        );
        // The scan reaches the batch at 756: it is marked and shown in hex.
        let m = at(
            &mut p,
            "scanned batch at position 756: offsets 3–3 — found it",
            None,
        );
        let l = m.lookup.as_ref().unwrap();
        assert_eq!(l.mark.batch, Some((0, 756)));
        let h = m.hex.as_ref().unwrap();
        assert_eq!((h.segment, h.position), (0, 756));
        let base = h.fields.iter().find(|f| f.name == "baseOffset").unwrap();
        assert_eq!(base.value, "3");
        assert_eq!(h.bytes.len(), h.size.min(HEX_BYTES));
        assert_eq!(h.field_of.len(), h.bytes.len());
        // The bytes are the file's bytes at that position.
        let file = file_bytes(p.world(), 0, "first-0/00000000000000000000.log").unwrap();
        assert_eq!(&file[756..756 + h.bytes.len()], &h.bytes[..]);
        // A batch the learner picks wins over the lookup's.
        let m = at(&mut p, "found offset 3 in the batch", Some((0, 0)));
        assert_eq!(m.hex.as_ref().map(|h| h.position), Some(0));
        // The next lookup's command: the finished one is still listed, inactive.
        let m = at(&mut p, "Scenario: look up offset 7", None);
        let l = m.lookup.as_ref().unwrap();
        assert!(!l.active);
        assert_eq!(l.target, "offset 3");
        assert_eq!(l.lines.len(), 7);
        assert!(l.lines.iter().all(|x| !x.current));
        // Offset 7 lives in the second segment, scanned from position 0.
        let m = at(&mut p, "scanned batch at position 252: offsets 7–7", None);
        let l = m.lookup.as_ref().unwrap();
        assert_eq!(l.target, "offset 7");
        assert_eq!(l.lines.len(), 5);
        assert_eq!(l.mark.segment, Some(6));
        assert_eq!(l.mark.index, None, "no index entry was small enough");
        assert_eq!(l.mark.batch, Some((6, 252)));
        assert_eq!(
            m.hex.as_ref().map(|h| (h.segment, h.position)),
            Some((6, 252))
        );
    }

    #[test]
    fn a_timestamp_lookup_marks_the_time_index_then_the_offset_index() {
        let mut p = lesson();
        let m = at(&mut p, ".timeindex binary search, slot 1", None);
        assert_eq!(m.lookup.as_ref().unwrap().mark.index, Some((0, true, 1)));
        let m = at(
            &mut p,
            "1700000000450 in broker 0's first-0: .index warm-section",
            None,
        );
        assert_eq!(m.lookup.as_ref().unwrap().mark.index, Some((0, false, 0)));
    }

    #[test]
    fn a_typed_lookup_becomes_the_engine_command_or_a_named_error() {
        use crate::components::storage::LookupRequest;
        let r = |by_time, text: &str| LookupRequest {
            broker: 0,
            topic: "first".into(),
            partition: 0,
            by_time,
            text: text.into(),
        };
        let c = crate::state::lookup_command(&r(false, " 3 "), Lang::En).unwrap();
        assert_eq!(
            serde_json::Value::Object(c).to_string(),
            r#"{"broker":0,"offset":3,"partition":0,"topic":"first","type":"lookup"}"#
        );
        let c = crate::state::lookup_command(&r(true, "1700000000450"), Lang::En).unwrap();
        assert_eq!(c["timestamp"], 1_700_000_000_450_i64);
        let e = crate::state::lookup_command(&r(false, "three"), Lang::En).unwrap_err();
        assert_eq!(
            e,
            "Lookup: \"three\" is not a whole number (the offset to look up)"
        );
        let e = crate::state::lookup_command(&r(false, "three"), Lang::Zh).unwrap_err();
        assert_eq!(e, "查找：“three”不是整数（要查找的 offset）");
        // The command runs: the branch's trace looks the offset up.
        let mut p = lesson();
        p.seek(100);
        let mut b = p
            .branch(crate::state::lookup_command(&r(false, "2"), Lang::En).unwrap())
            .unwrap();
        let i = b
            .find_nth_where(1, |e| e.caption(Lang::En).contains("found offset 2"))
            .expect("the branch looks offset 2 up");
        assert!(i >= 100);
    }

    /// KIP-881 in the groups view: each member with a client.rack says how
    /// many of its partitions have a replica in that rack.
    #[test]
    fn a_member_with_client_rack_shows_how_many_partitions_are_in_its_rack() {
        let c = |name: &str, zone: &str| {
            format!(
                r#"{{"name": "{name}", "subscribe": ["orders"], "config": {{"group.id": "g", "client.rack": "{zone}"}}}}"#
            )
        };
        let json = format!(
            r#"{{"seed": 3, "run_until_ms": 8000,
            "cluster": {{"brokers": [0, 1, 2], "config": {{"offsets.topic.num.partitions": 3}},
                        "broker.rack": {{"0": "az-a", "1": "az-b", "2": "az-c"}}}},
            "topics": [{{"name": "orders", "partitions": 6, "replication.factor": 1, "fixed_start_index": 0}}],
            "consumers": [{}, {}]}}"#,
            c("ca", "az-a"),
            c("cx", "az-x")
        );
        let mut p = Player::from_json(&json).unwrap();
        p.seek(u64::MAX);
        let g = &GroupsModel::from_world(p.world()).groups[0];
        let row = |name: &str| g.members.iter().find(|m| m.consumer == name).unwrap();
        // ca is in az-a with replicas of orders-0 and -3 there: Range gives
        // it those; cx's rack holds no replica, so none of its are near.
        assert_eq!(
            row("ca").rack,
            Some(("az-a".to_string(), 2)),
            "{:?}",
            row("ca")
        );
        assert_eq!(row("ca").assignment.len(), 3);
        assert_eq!(row("cx").rack, Some(("az-x".to_string(), 0)));
        // The side-by-side comparison runs Range with the same racks, so its
        // "before" is what the group really got.
        let range = g.comparison.iter().find(|r| r.strategy == "range").unwrap();
        let before = &range.before.iter().find(|(m, _)| m == "ca").unwrap().1;
        assert_eq!(before, &row("ca").assignment);
    }

    /// A lesson step that names a partition brings that partition's log
    /// forward (on its leader) while the learner has chosen none; the
    /// learner's own choice wins.
    #[test]
    fn the_lesson_partition_is_inspected_until_the_learner_picks_one() {
        let mut p = Player::from_json(include_str!(
            "../../static/lessons/retention-and-compaction.json"
        ))
        .unwrap();
        let i = p
            .find_nth_where(1, |e| {
                matches!(e.kind, kafka_sim::event::EventKind::LogCleaned { .. })
            })
            .expect("the cleaner runs");
        p.seek(i);
        let first = StorageModel::from_world(p.world(), None, None, None, p.past(), Lang::En);
        assert_eq!(first.selected.as_ref().unwrap().topic, "logs");
        let m =
            StorageModel::from_world(p.world(), None, Some("users-0"), None, p.past(), Lang::En);
        let s = m.selected.expect("users-0 is selected");
        assert_eq!((s.topic.as_str(), s.partition), ("users", 0));
        let leads = p.world().brokers()[&kafka_sim::ids::BrokerId(s.broker)]
            .partitions
            .get(&kafka_sim::ids::TopicPartition::new("users", 0))
            .is_some_and(|x| x.is_leader);
        assert!(leads, "broker {} does not lead users-0", s.broker);
        // The learner picked logs-0 (this lesson has one broker).
        let mine = format!("{}:logs-0", s.broker);
        let m = StorageModel::from_world(
            p.world(),
            Some(&mine),
            Some("users-0"),
            None,
            p.past(),
            Lang::En,
        );
        assert_eq!(m.selected.unwrap().topic, "logs");
    }

    /// The storage inspector of invoices-0 at the end of the exactly-once
    /// lesson: the aborted copy's batch is transactional, its ABORT marker
    /// and the later COMMIT marker are control batches read as
    /// `kafka-dump-log` prints them, and `.txnindex` lists the aborted
    /// transaction with the LSO after it.
    #[test]
    fn control_batches_and_the_txn_index_are_shown_as_kafka_writes_them() {
        let mut p = Player::from_json(include_str!(
            "../../static/lessons/exactly-once-pipeline.json"
        ))
        .unwrap();
        let end = p
            .find_nth_where(1, |e| {
                matches!(
                    e.kind,
                    kafka_sim::event::EventKind::RecordsConsumed { consumer: 1, .. }
                )
            })
            .expect("auditor (consumer 1) reads");
        p.seek(end + 1);
        let leader = p
            .world()
            .brokers()
            .iter()
            .find(|(_, b)| {
                b.partitions
                    .get(&kafka_sim::ids::TopicPartition::new("invoices", 0))
                    .is_some_and(|s| s.is_leader)
            })
            .map(|(id, _)| id.0)
            .expect("a leader");
        let m = StorageModel::from_world(
            p.world(),
            Some(&format!("{leader}:invoices-0")),
            None,
            None,
            p.past(),
            Lang::En,
        );
        let s = m.selected.expect("invoices-0 is selected");
        let rows: Vec<(i64, bool, bool, &str)> = s
            .batches
            .iter()
            .map(|b| {
                (
                    b.base_offset,
                    b.transactional,
                    b.control,
                    b.preview.as_str(),
                )
            })
            .collect();
        assert_eq!(rows.len(), 4, "{rows:#?}");
        assert!(rows[0].1 && !rows[0].2, "the aborted copy: {rows:?}");
        assert_eq!(rows[1].0, 4);
        assert!(rows[1].2);
        assert_eq!(rows[1].3, "endTxnMarker: ABORT coordinatorEpoch: 0");
        assert_eq!(rows[3].0, 9);
        assert_eq!(rows[3].3, "endTxnMarker: COMMIT coordinatorEpoch: 0");
        assert_eq!(
            s.txn_index,
            vec![TxnIndexRow {
                segment: 0,
                producer_id: rows_pid(&s),
                first_offset: 0,
                last_offset: 4,
                // `ProducerStateManager.lastStableOffset(completedTxn)`: no
                // other transaction open, so the marker's offset + 1.
                last_stable_offset: 5,
            }]
        );
        assert!(s.files.iter().any(|f| f.path.ends_with(".txnindex")));
    }

    fn rows_pid(s: &PartitionFiles) -> i64 {
        s.batches[0].producer_id
    }

    /// KRaft: every node's `__cluster_metadata-0` is a choice; its batches
    /// are the leader's, their records decoded (no lookup form).
    #[test]
    fn the_inspector_opens_each_nodes_metadata_log() {
        let text = include_str!("../../scenarios/kraft-controller-failover.json");
        let mut p = Player::from_json(text).unwrap();
        p.seek(5_000);
        let keys = |m: &StorageModel| m.choices.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
        let m = StorageModel::from_world(
            p.world(),
            Some("3000:__cluster_metadata-0"),
            None,
            None,
            p.past(),
            Lang::En,
        );
        for k in [
            "0:__cluster_metadata-0",
            "3000:__cluster_metadata-0",
            "3002:__cluster_metadata-0",
        ] {
            assert!(keys(&m).iter().any(|x| x == k), "{k} not in {:?}", keys(&m));
        }
        let s = m.selected.as_ref().expect("the controller's metadata log");
        assert!(s.metadata && s.dir == METADATA_DIR);
        assert!(s.batches[0].control);
        assert!(
            s.batches[0]
                .preview
                .starts_with("LeaderChange: {\"version\":0,\"leaderId\":"),
            "{}",
            s.batches[0].preview
        );
        assert!(
            s.batches.iter().any(|b| b
                .preview
                .starts_with("REGISTER_BROKER_RECORD v3 {\"brokerId\":0")),
            "{:?}",
            s.batches.iter().map(|b| &b.preview).collect::<Vec<_>>()
        );
        assert!(m.hex.is_some(), "the first batch in hex");
        let log = format!("{METADATA_DIR}/00000000000000000000.log");
        let mine = file_bytes(p.world(), 3000, &log).unwrap();
        let brokers = file_bytes(p.world(), 0, &log).unwrap();
        let n = mine.len().min(brokers.len());
        assert!(n > 0 && mine[..n] == brokers[..n]);
    }
}
