//! `segments`, `dump-log` and `lookup`: Kafka's on-disk formats, for real files.

use crate::commands::{parse_request, Args, Res};
use kafka_sim::caption::lookup_step;
use kafka_sim::config::LogConfig;
use kafka_sim::ids::TopicPartition;
use kafka_sim::storage::index::{decode_index, IndexKind};
use kafka_sim::storage::log::Log;
use kafka_sim::storage::paged::{MemStorage, Storage};
use kafka_sim::storage::record::{build_batch, decode_batch, BatchSpec, NewRecord};
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SegmentsInput {
    topic: String,
    partition: i32,
    batches: Vec<Vec<InRecord>>,
}

pub fn segments(a: &mut Args<'_>) -> Res {
    let input = a.value("--input")?.ok_or("missing --input BATCHES.json")?;
    let out = a.value("--out")?.ok_or("missing --out DIR")?;
    let segment_bytes: u64 = a.number("--segment-bytes")?.unwrap_or(1_073_741_824);
    let interval: u64 = a.number("--index-interval-bytes")?.unwrap_or(4096);
    a.no_more_flags()?;
    if let Some(extra) = a.positional().first() {
        return Err(format!("unexpected argument `{extra}`"));
    }
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
    for (i, batch) in req.batches.iter().enumerate() {
        if batch.is_empty() {
            return Err(format!(
                "{input}: batches[{i}]: a record batch needs at least one record"
            ));
        }
        let recs: Vec<NewRecord> = batch
            .iter()
            .map(|r| {
                NewRecord::new(
                    r.key.as_deref().map(str::as_bytes),
                    r.value.as_deref().map(str::as_bytes),
                    r.timestamp,
                )
            })
            .collect();
        let bytes = build_batch(&BatchSpec::default(), &recs);
        let now = batch.iter().map(|r| r.timestamp).max().unwrap_or(0);
        let p = log
            .prepare_leader_append(bytes, 0, now)
            .map_err(|e| format!("{input}: batches[{i}]: {e}"))?;
        log.roll_and_append(&mut store, &p, now)
            .map_err(|e| e.to_string())?;
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
        println!(
            "{}/{:020}: .log {} bytes (offsets {}–{}), .index {} entries, .timeindex {} entries",
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

pub fn dump_log(a: &mut Args<'_>) -> Res {
    a.no_more_flags()?;
    let paths = a.positional();
    if paths.is_empty() {
        return Err("give at least one .log, .index or .timeindex file".into());
    }
    for path in paths {
        let base = base_offset_of(path)?;
        let bytes = std::fs::read(path).map_err(|e| format!("{path}: cannot read: {e}"))?;
        println!("Dumping {path}");
        if path.ends_with(".log") {
            println!("Log starting offset: {base}");
            let mut pos = 0usize;
            while pos < bytes.len() {
                match decode_batch(&bytes[pos..], pos as u64) {
                    Ok(b) => {
                        let h = &b.header;
                        println!(
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
                            println!(
                                "| offset: {} {}: {} keySize: {} valueSize: {} sequence: {} headerKeys: [{}] key: {} payload: {}",
                                b.offset_of(r),
                                if h.is_log_append_time() { "LogAppendTime" } else { "CreateTime" },
                                b.timestamp_of(r),
                                r.key.as_ref().map(|k| k.len() as i64).unwrap_or(-1),
                                r.value.as_ref().map(|k| k.len() as i64).unwrap_or(-1),
                                seq,
                                hk.join(","),
                                text(&r.key),
                                text(&r.value)
                            );
                        }
                        pos += h.size_in_bytes() as usize;
                    }
                    Err(e) => {
                        println!(
                            "Found {} invalid bytes at the end of {path} ({e})",
                            bytes.len() - pos
                        );
                        break;
                    }
                }
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
                    IndexKind::Offset => println!("offset: {} position: {}", e.key, e.value),
                    IndexKind::Time => println!("timestamp: {} offset: {}", e.key, e.value),
                }
            }
        } else {
            return Err(format!("{path}: not a .log, .index or .timeindex file"));
        }
    }
    Ok(())
}

pub fn lookup(a: &mut Args<'_>) -> Res {
    let json = a.flag("--json");
    let offset: Option<i64> = a.number("--offset")?;
    let ts: Option<i64> = a.number("--timestamp")?;
    a.no_more_flags()?;
    if offset.is_some() == ts.is_some() {
        return Err("give exactly one of --offset N and --timestamp T".into());
    }
    let dir = match a.positional().as_slice() {
        [d] => *d,
        [] => return Err("missing DIR (a partition directory such as out/first-0)".into()),
        _ => return Err("expected one DIR".into()),
    };
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
        if name.ends_with(".log") || name.ends_with(".index") || name.ends_with(".timeindex") {
            let bytes = std::fs::read(e.path())
                .map_err(|err| format!("{}: cannot read: {err}", e.path().display()))?;
            let f = format!("{dname}/{name}");
            store.create(&f).map_err(|e| e.to_string())?;
            store.append(&f, &bytes).map_err(|e| e.to_string())?;
        }
    }
    let log = Log::recover(&store, tp, &dname, Arc::new(LogConfig::default()))?;
    let (target, res) = match (offset, ts) {
        (Some(o), _) => (format!("offset {o}"), log.lookup_offset(&store, o)),
        (_, Some(t)) => (format!("timestamp {t}"), log.lookup_timestamp(&store, t)),
        _ => unreachable!("checked above"),
    };
    if json {
        let result = res
            .result
            .map(|(o, p)| serde_json::json!({"offset": o, "position": p}));
        println!(
            "{}",
            serde_json::json!({"target": target, "steps": res.steps, "result": result})
        );
    } else {
        println!(
            "Looking up {target} in {dir} ({} segments)",
            log.segments.len()
        );
        for (i, s) in res.steps.iter().enumerate() {
            println!("{:>3}. {}", i + 1, lookup_step(s, Lang::En));
        }
    }
    Ok(())
}
