//! `segments`, `dump-log` and `lookup`: Kafka's on-disk formats, for real files.

use crate::cli::{LookupArgs, SegmentsArgs};
use crate::commands::{parse_request, Res};
use crate::outln;
use kafka_sim::caption::lookup_step;
use kafka_sim::config::LogConfig;
use kafka_sim::ids::TopicPartition;
use kafka_sim::producer_state::ProducerStates;
use kafka_sim::storage::index::{decode_index, IndexKind};
use kafka_sim::storage::log::Log;
use kafka_sim::storage::paged::{MemStorage, Storage};
use kafka_sim::storage::record::{
    build_batch, build_end_txn_marker, decode_batch, BatchSpec, ControlType, EndTxnMarker,
    NewRecord,
};
use kafka_sim::storage::txn_index::decode_txn_index;
use kafka_sim::Lang;
use serde::Deserialize;
use std::path::Path;
use std::sync::Arc;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InRecord {
    key: Option<String>,
    value: Option<String>,
    timestamp: i64,
}

/// A batch from an idempotent or transactional producer.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InProducerBatch {
    producer_id: i64,
    #[serde(default)]
    producer_epoch: i16,
    /// Default: the producer's next sequence in this input.
    base_sequence: Option<i32>,
    #[serde(default)]
    transactional: bool,
    records: Vec<InRecord>,
}

/// A COMMIT or ABORT marker, as a leader writes it on WriteTxnMarkers.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InMarker {
    marker: String,
    producer_id: i64,
    #[serde(default)]
    producer_epoch: i16,
    #[serde(default)]
    coordinator_epoch: i32,
    /// Default: the largest timestamp written so far.
    timestamp: Option<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SegmentsInput {
    topic: String,
    partition: i32,
    /// Each: a list of records (a plain batch), a producer batch, or a marker.
    batches: Vec<serde_json::Value>,
}

fn new_records(recs: &[InRecord]) -> Vec<NewRecord> {
    recs.iter()
        .map(|r| {
            NewRecord::new(
                r.key.as_deref().map(str::as_bytes),
                r.value.as_deref().map(str::as_bytes),
                r.timestamp,
            )
        })
        .collect()
}

/// One entry of `batches`, encoded: a plain batch, a producer's batch or a
/// marker; `seqs` carries each producer's next sequence, `last_ts` the
/// largest timestamp so far.
fn encode_input_batch(
    v: serde_json::Value,
    seqs: &mut std::collections::BTreeMap<(i64, i16), i32>,
    last_ts: &mut i64,
) -> Result<Vec<u8>, String> {
    fn parse<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> Result<T, String> {
        serde_path_to_error::deserialize(v).map_err(|e| {
            let path = e.path().to_string();
            if path == "." {
                e.into_inner().to_string()
            } else {
                format!("{path}: {}", e.into_inner())
            }
        })
    }
    let nonempty = |recs: &[InRecord]| {
        if recs.is_empty() {
            Err("a record batch needs at least one record".to_string())
        } else {
            Ok(())
        }
    };
    if v.is_array() {
        let recs: Vec<InRecord> = parse(v)?;
        nonempty(&recs)?;
        *last_ts = recs.iter().map(|r| r.timestamp).fold(*last_ts, i64::max);
        return Ok(build_batch(&BatchSpec::default(), &new_records(&recs)));
    }
    if v.get("marker").is_some() {
        let m: InMarker = parse(v)?;
        let control_type = match m.marker.as_str() {
            "COMMIT" => ControlType::Commit,
            "ABORT" => ControlType::Abort,
            other => return Err(format!("marker: `{other}` is not COMMIT or ABORT")),
        };
        if m.producer_id < 0 {
            return Err("producer_id: a marker needs a producer id (0 or more)".into());
        }
        let ts = m.timestamp.unwrap_or((*last_ts).max(0));
        *last_ts = (*last_ts).max(ts);
        let marker = EndTxnMarker {
            control_type,
            coordinator_epoch: m.coordinator_epoch,
        };
        return Ok(build_end_txn_marker(
            0,
            ts,
            -1,
            m.producer_id,
            m.producer_epoch,
            marker,
        ));
    }
    if !v.is_object() {
        return Err("expected a list of records, a producer batch {\"producer_id\", \"records\", ...} or a marker {\"marker\": \"COMMIT\", ...}".into());
    }
    let b: InProducerBatch = parse(v)?;
    nonempty(&b.records)?;
    if b.producer_id < 0 || b.producer_epoch < 0 {
        return Err("producer_id and producer_epoch must be 0 or more".into());
    }
    let next = seqs.entry((b.producer_id, b.producer_epoch)).or_insert(0);
    let base_sequence = b.base_sequence.unwrap_or(*next);
    if base_sequence < 0 {
        return Err(format!(
            "base_sequence: must be 0 or more, got {base_sequence}"
        ));
    }
    *next = base_sequence.wrapping_add(b.records.len() as i32);
    *last_ts = b
        .records
        .iter()
        .map(|r| r.timestamp)
        .fold(*last_ts, i64::max);
    Ok(build_batch(
        &BatchSpec {
            producer_id: b.producer_id,
            producer_epoch: b.producer_epoch,
            base_sequence,
            transactional: b.transactional,
            ..BatchSpec::default()
        },
        &new_records(&b.records),
    ))
}

pub fn segments(a: SegmentsArgs) -> Res {
    let SegmentsArgs {
        input,
        out,
        segment_bytes,
        index_interval_bytes: interval,
    } = a;
    let (input, out) = (input.as_str(), out.as_str());
    if !(14..=i32::MAX as u64).contains(&segment_bytes) {
        return Err(format!(
            "--segment-bytes must be between 14 and {} (Kafka's limits), got {segment_bytes}",
            i32::MAX
        ));
    }
    let text = std::fs::read_to_string(input).map_err(|e| format!("{input}: cannot read: {e}"))?;
    let req: SegmentsInput = parse_request(&text).map_err(|e| format!("{input}: {e}"))?;
    kafka_sim::scenario::validate_topic_name(&req.topic)
        .map_err(|e| format!("{input}: topic: {e}"))?;
    if req.partition < 0 {
        return Err(format!("{input}: partition: must be 0 or more"));
    }
    let tp = TopicPartition::new(req.topic.as_str(), req.partition);
    let dir = Path::new(out).join(tp.to_string());
    if dir.exists()
        && std::fs::read_dir(&dir)
            .map(|mut d| d.next().is_some())
            .unwrap_or(false)
    {
        return Err(format!(
            "{}: already exists and is not empty (remove it first)",
            dir.display()
        ));
    }
    let cfg = Arc::new(LogConfig {
        segment_bytes,
        index_interval_bytes: interval,
        ..LogConfig::default()
    });
    let mut store = MemStorage::default();
    let mut log = Log::create(&mut store, tp.clone(), cfg, 0).map_err(|e| e.to_string())?;
    // The leader's producer state: sequences, open transactions, and the
    // .txnindex entries of aborted ones.
    let mut states = ProducerStates::default();
    let mut seqs = std::collections::BTreeMap::new();
    let mut last_ts = -1;
    for (i, batch) in req.batches.into_iter().enumerate() {
        let bytes = encode_input_batch(batch, &mut seqs, &mut last_ts)
            .map_err(|e| format!("{input}: batches[{i}]: {e}"))?;
        if let Err((code, why)) = states.check(&bytes) {
            return Err(format!(
                "{input}: batches[{i}]: the leader refuses it: {code}: {why}"
            ));
        }
        let now = last_ts.max(0);
        let p = log
            .prepare_leader_append(bytes, 0, now)
            .map_err(|e| format!("{input}: batches[{i}]: {e}"))?;
        let (_, appended) = log
            .roll_and_append(&mut store, &p, now)
            .map_err(|e| e.to_string())?;
        states
            .apply_appended(&mut log, &mut store, &appended.batches)
            .map_err(|e| format!("{input}: batches[{i}]: {e}"))?;
    }
    let open: Vec<String> = states
        .ongoing
        .iter()
        .map(|(first, pid)| format!("producer {pid} from offset {first}"))
        .collect();
    if !open.is_empty() {
        eprintln!(
            "kafka-sim: note: transactions left open (no marker): {}",
            open.join(", ")
        );
    }
    log.close(&mut store).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
    for name in store.list(&format!("{tp}/")) {
        let bytes = store.read_all(&name).map_err(|e| e.to_string())?;
        let file = Path::new(out).join(&name);
        std::fs::write(&file, &bytes)
            .map_err(|e| format!("{}: cannot write: {e}", file.display()))?;
    }
    for s in &log.segments {
        let txn = if s.txn_index_entries > 0 {
            format!(", .txnindex {} entries", s.txn_index_entries)
        } else {
            String::new()
        };
        outln!(
            "{}/{:020}: .log {} bytes (offsets {}–{}), .index {} entries, .timeindex {} entries{txn}",
            dir.display(),
            s.base_offset,
            s.size,
            s.base_offset,
            s.next_offset - 1,
            s.index_entries,
            s.time_index_entries
        );
    }
    Ok(())
}

fn base_offset_of(path: &str) -> Result<i64, String> {
    let name = Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    let stem = name.split('.').next().unwrap_or("");
    if stem.len() != 20 || !stem.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{path}: the file name should start with a 20-digit base offset (like 00000000000000000000.log)"));
    }
    stem.parse()
        .map_err(|_| format!("{path}: the base offset in the name is too large"))
}

fn text(b: &Option<Vec<u8>>) -> String {
    match b {
        Some(v) => String::from_utf8_lossy(v).into_owned(),
        None => "null".into(),
    }
}

/// Writes every KRaft node's `__cluster_metadata-0/` files under
/// `dir/<node>/` (`controller-3000`, `broker-0`, …).
pub fn write_metadata_logs(w: &kafka_sim::World, dir: &str) -> Res {
    let mut nodes: Vec<(String, &kafka_sim::kraft::raft::MetadataLogFiles)> = Vec::new();
    for c in w.controllers().values() {
        nodes.push((format!("controller-{}", c.id), &c.raft.files));
    }
    for b in w.brokers().values() {
        if let Some(k) = &b.kraft {
            nodes.push((format!("broker-{}", b.id.0), &k.raft.files));
        }
    }
    for (node, files) in nodes {
        let folder = Path::new(dir).join(&node).join(&files.log.dir);
        std::fs::create_dir_all(&folder)
            .map_err(|e| format!("{}: cannot create: {e}", folder.display()))?;
        for name in files.disk.list(&format!("{}/", files.log.dir)) {
            let bytes = files
                .disk
                .read_all(&name)
                .map_err(|e| format!("{name}: cannot read the simulated disk: {e:?}"))?;
            let file = Path::new(dir).join(&node).join(&name);
            std::fs::write(&file, bytes)
                .map_err(|e| format!("{}: cannot write: {e}", file.display()))?;
        }
        outln!("{}", folder.display());
    }
    Ok(())
}

pub fn dump_log(paths: &[String], cluster_metadata: bool) -> Res {
    if paths.is_empty() {
        return Err("give at least one .log, .index, .timeindex or .txnindex file".into());
    }
    for path in paths {
        let path = path.as_str();
        let base = base_offset_of(path)?;
        let bytes = std::fs::read(path).map_err(|e| format!("{path}: cannot read: {e}"))?;
        outln!("Dumping {path}");
        if path.ends_with(".log") {
            outln!("Log starting offset: {base}");
            let mut pos = 0usize;
            while pos < bytes.len() {
                match decode_batch(&bytes[pos..], pos as u64) {
                    Ok(b) => {
                        let h = &b.header;
                        outln!(
                            "baseOffset: {} lastOffset: {} count: {} baseSequence: {} lastSequence: {} producerId: {} producerEpoch: {} partitionLeaderEpoch: {} isTransactional: {} isControl: {} deleteHorizonMs: {} position: {} {}: {} size: {} magic: {} compresscodec: none crc: {} isvalid: {}",
                            h.base_offset,
                            h.last_offset(),
                            h.records_count,
                            h.base_sequence,
                            h.last_sequence(),
                            h.producer_id,
                            h.producer_epoch,
                            h.partition_leader_epoch,
                            h.is_transactional(),
                            h.is_control(),
                            if h.has_delete_horizon() { format!("OptionalLong[{}]", h.base_timestamp) } else { "OptionalLong.empty".into() },
                            pos,
                            if h.is_log_append_time() { "LogAppendTime" } else { "CreateTime" },
                            h.max_timestamp,
                            h.size_in_bytes(),
                            h.magic,
                            h.crc,
                            b.crc_valid()
                        );
                        for r in &b.records {
                            let seq = if h.base_sequence < 0 {
                                -1
                            } else {
                                h.base_sequence + r.offset_delta
                            };
                            let hk: Vec<&str> = r.headers.iter().map(|x| x.key.as_str()).collect();
                            // A control record: its marker instead of its key
                            // and payload (DumpLogSegments, Kafka 3.9).
                            use kafka_sim::storage::record::ControlRecordType as Ct;
                            let leader_change =
                                h.is_control() && matches!(Ct::parse(r), Ok((Ct::LeaderChange, _)));
                            let contents = if leader_change {
                                // DumpLogSegments.printControlRecord decodes
                                // a KRaft leader change with or without
                                // --cluster-metadata-decoder.
                                let v = r.value.as_deref().unwrap_or_default();
                                match kafka_sim::kraft::codec::decode_leader_change(v) {
                                    Ok(s) => s.trim_start().to_string(),
                                    Err(e) => format!("invalid control record: {e}"),
                                }
                            } else if h.is_control() {
                                kafka_sim::storage::record::describe_control(r)
                            } else if cluster_metadata {
                                // ClusterMetadataLogMessageParser: no key.
                                let v = r.value.as_deref().unwrap_or_default();
                                kafka_sim::kraft::codec::decode_value(v).unwrap_or_else(|e| {
                                    format!("payload: Error at {}, skipping. {e}", b.offset_of(r))
                                })
                            } else {
                                format!("key: {} payload: {}", text(&r.key), text(&r.value))
                            };
                            outln!(
                                "| offset: {} {}: {} keySize: {} valueSize: {} sequence: {} headerKeys: [{}] {contents}",
                                b.offset_of(r),
                                if h.is_log_append_time() { "LogAppendTime" } else { "CreateTime" },
                                b.timestamp_of(r),
                                r.key.as_ref().map(|k| k.len() as i64).unwrap_or(-1),
                                r.value.as_ref().map(|k| k.len() as i64).unwrap_or(-1),
                                seq,
                                hk.join(","),
                            );
                        }
                        pos += h.size_in_bytes() as usize;
                    }
                    Err(e) => {
                        outln!(
                            "Found {} invalid bytes at the end of {path} ({e})",
                            bytes.len() - pos
                        );
                        break;
                    }
                }
            }
        } else if path.ends_with(".txnindex") {
            for t in decode_txn_index(&bytes).map_err(|e| format!("{path}: {e}"))? {
                outln!(
                    "version: 0 producerId: {} firstOffset: {} lastOffset: {} lastStableOffset: {}",
                    t.producer_id,
                    t.first_offset,
                    t.last_offset,
                    t.last_stable_offset
                );
            }
        } else if path.ends_with(".timeindex") || path.ends_with(".index") {
            let kind = if path.ends_with(".timeindex") {
                IndexKind::Time
            } else {
                IndexKind::Offset
            };
            let entries = decode_index(kind, base, &bytes).map_err(|e| format!("{path}: {e}"))?;
            for e in entries {
                match kind {
                    IndexKind::Offset => outln!("offset: {} position: {}", e.key, e.value),
                    IndexKind::Time => outln!("timestamp: {} offset: {}", e.key, e.value),
                }
            }
        } else {
            return Err(format!(
                "{path}: not a .log, .index, .timeindex or .txnindex file"
            ));
        }
    }
    Ok(())
}

pub fn lookup(a: LookupArgs) -> Res {
    let LookupArgs {
        dir,
        offset,
        timestamp: ts,
        json,
    } = a;
    if offset.is_some() == ts.is_some() {
        return Err("give exactly one of --offset N and --timestamp T".into());
    }
    let dir = dir.ok_or("missing DIR (a partition directory such as out/first-0)")?;
    let dir = dir.as_str();
    let dname = Path::new(dir)
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| format!("{dir}: not a directory name"))?
        .to_string();
    let tp = TopicPartition::parse(&dname)
        .ok_or_else(|| format!("{dir}: a partition directory is named topic-N (like first-0)"))?;
    let mut store = MemStorage::default();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{dir}: cannot read: {e}"))?;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".log")
            || name.ends_with(".index")
            || name.ends_with(".timeindex")
            || name.ends_with(".txnindex")
        {
            let bytes = std::fs::read(e.path())
                .map_err(|err| format!("{}: cannot read: {err}", e.path().display()))?;
            let f = format!("{dname}/{name}");
            store.create(&f).map_err(|e| e.to_string())?;
            store.append(&f, &bytes).map_err(|e| e.to_string())?;
        }
    }
    let mut notes = Vec::new();
    let log = Log::recover_noting(
        &mut store,
        tp,
        &dname,
        Arc::new(LogConfig::default()),
        &mut notes,
    )?;
    for n in notes {
        eprintln!("WARN {n}");
    }
    let (target, res) = match (offset, ts) {
        (Some(o), _) => (format!("offset {o}"), log.lookup_offset(&store, o)),
        (_, Some(t)) => (format!("timestamp {t}"), log.lookup_timestamp(&store, t)),
        _ => unreachable!("checked above"),
    };
    if json {
        let result = res
            .result
            .map(|(o, p)| serde_json::json!({"offset": o, "position": p}));
        outln!(
            "{}",
            serde_json::json!({"target": target, "steps": res.steps, "result": result})
        );
    } else {
        outln!(
            "Looking up {target} in {dir} ({} segments)",
            log.segments.len()
        );
        for (i, s) in res.steps.iter().enumerate() {
            outln!("{:>3}. {}", i + 1, lookup_step(s, Lang::En));
        }
    }
    Ok(())
}
