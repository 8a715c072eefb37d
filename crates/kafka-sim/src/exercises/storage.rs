//! Templates about the log on disk: a lookup in the sparse index, which
//! segments retention deletes, and what compaction keeps.

use super::*;

pub(super) fn index_lookup(r: &mut Rng, size: u64) -> Drawn {
    use crate::storage::index::{encode_offset_entry, largest_lower_bound, read_entry, IndexKind};
    use crate::storage::paged::{MemStorage, Storage};
    let base = (r.below(20) * 100 * size) as i64;
    let n = 3 + 2 * size as i64;
    let mut store = MemStorage::new(4096);
    let file = "t-0/x.index";
    store.create(file).expect("in memory");
    let (mut rel, mut pos) = (0i64, 0i64);
    let mut entries = Vec::new();
    for _ in 0..n {
        rel += r.between(2, 6) as i64;
        pos += r.between(3, 9) as i64 * 512;
        store
            .append(file, &encode_offset_entry(rel as i32, pos as i32))
            .expect("in memory");
        entries.push((base + rel, pos));
    }
    let target = base + r.below(rel as u64 + 4) as i64;
    let slot = largest_lower_bound(
        &store,
        file,
        IndexKind::Offset,
        base,
        n as u64,
        target,
        &mut Vec::new(),
    )
    .expect("in memory");
    let start = slot
        .map(|s| {
            read_entry(&store, file, IndexKind::Offset, base, s)
                .expect("in memory")
                .value
        })
        .unwrap_or(0);
    let shown: Vec<String> = entries.iter().map(|(o, p)| format!("{o} → {p}")).collect();
    let mut pool: Vec<String> = entries.iter().map(|(_, p)| p.to_string()).collect();
    pool.push("0".into());
    Drawn {
        en: format!("Segment {base:020}.log has the sparse .index entries (offset → position) {}. From which .log position does the broker scan to find offset {target}?", shown.join(", ")),
        zh: format!("段 {base:020}.log 的稀疏 .index 索引项（位移 → 位置）为 {}。查找位移 {target} 时，broker 从 .log 的哪个位置开始扫描？", shown.join("，")),
        pool,
        answer: start.to_string(),
        why_en: format!("Binary search for the largest entry whose offset is ≤ {target}, then scan forward from its position ({start}); with no such entry, from position 0."),
        why_zh: format!("二分查找位移 ≤ {target} 的最大索引项，从它的位置（{start}）向后扫描；没有这样的索引项时从位置 0 开始。"),
        instance: Instance::Lookup {
            base_offset: base,
            entries,
            target,
        },
    }
}

/// A real in-memory log: one record per batch, `segment_bytes` small so it
/// rolls, records at `times` with keys `keys`.
pub(super) fn small_log(
    cfg: crate::config::LogConfig,
    records: &[(Option<String>, Option<String>, i64)],
) -> (crate::storage::paged::MemStorage, crate::storage::log::Log) {
    use crate::storage::record::{build_batch, BatchSpec, NewRecord};
    let mut s = crate::storage::paged::MemStorage::new(4096);
    let mut log = crate::storage::log::Log::create(
        &mut s,
        crate::ids::TopicPartition::new("t", 0),
        std::sync::Arc::new(cfg),
        0,
    )
    .expect("in memory");
    for (k, v, ts) in records {
        let rec = NewRecord::new(
            k.as_deref().map(str::as_bytes),
            v.as_deref().map(str::as_bytes),
            *ts,
        );
        let bytes = build_batch(&BatchSpec::default(), &[rec]);
        let p = log
            .prepare_leader_append(bytes, 0, *ts)
            .expect("valid batch");
        log.roll_and_append(&mut s, &p, *ts).expect("in memory");
    }
    (s, log)
}

pub(super) fn retention(r: &mut Rng, size: u64) -> Drawn {
    use crate::storage::log::RetentionPass;
    let n = 5 + 2 * size as usize;
    let mut ts = 0i64;
    let records: Vec<(Option<String>, Option<String>, i64)> = (0..n)
        .map(|i| {
            ts += r.between(1, 4) as i64 * 1000;
            (None, Some(format!("v{i}")), ts)
        })
        .collect();
    // Segments of two records each (a one-record batch is 70 bytes here).
    let cfg = crate::config::LogConfig {
        segment_bytes: 150,
        retention_ms: r.between(2, 12) as i64 * 1000,
        ..Default::default()
    };
    let retention_ms = cfg.retention_ms;
    let (_, log) = small_log(cfg, &records);
    let now = ts + r.between(1, 5) as i64 * 1000;
    let hw = log.log_end_offset;
    let start = match log.plan_retention(RetentionPass::RetentionMs, now, hw) {
        None => log.log_start_offset,
        Some(plan) if plan.roll_first => log.log_end_offset,
        Some(plan) => {
            let last = *plan.segments.last().expect("a plan deletes something");
            log.segments
                .iter()
                .find(|s| s.base_offset > last)
                .map(|s| s.base_offset)
                .unwrap_or(log.log_end_offset)
        }
    };
    let segments: Vec<SegmentInfo> = log
        .segments
        .iter()
        .map(|s| SegmentInfo {
            first_offset: s.base_offset,
            last_offset: s.next_offset - 1,
            newest_ms: s.largest_timestamp(),
        })
        .collect();
    let segs = |newest: &str, unit: &str| {
        segments
            .iter()
            .map(|s| {
                format!(
                    "[{}–{}] {newest} {} {unit}",
                    s.first_offset,
                    s.last_offset,
                    s.newest_ms / 1000
                )
            })
            .collect::<Vec<_>>()
    };
    let pool: Vec<String> = segments
        .iter()
        .map(|s| s.first_offset.to_string())
        .chain([log.log_end_offset.to_string()])
        .collect();
    let cutoff = (now - retention_ms) / 1000;
    Drawn {
        en: format!("A partition's segments (offsets, newest record's time): {}. retention.ms = {retention_ms}, the high watermark is the log end ({hw}); the retention check runs at {} s. What is the log start offset afterwards?", segs("newest at", "s").join("; "), now / 1000),
        zh: format!("某分区的段（位移范围，最新记录时间）：{}。retention.ms = {retention_ms}，高水位等于日志末端（{hw}）；保留检查在 {} 秒运行。检查之后日志起始位移是多少？", segs("最新记录于", "秒").join("；"), now / 1000),
        pool,
        answer: start.to_string(),
        why_en: format!("Whole segments go, oldest first, while their newest record is older than now − retention.ms = {cutoff} s; the log start offset moves to the first segment kept: {start} (an expired active segment goes too, after a new empty one is rolled)."),
        why_zh: format!("从最旧的段开始，最新记录早于 当前时间 − retention.ms = {cutoff} 秒的整段删除；日志起始位移移到第一个保留的段：{start}（已过期的活跃段也会删除，先滚动出一个新的空段）。"),
        instance: Instance::Retention {
            segments,
            retention_ms,
            now_ms: now,
            log_end_offset: log.log_end_offset,
        },
    }
}

pub(super) fn compaction(r: &mut Rng, size: u64) -> Drawn {
    use crate::config::{CleanupPolicy, Ratio};
    use crate::storage::cleaner;
    let keys = ["a", "b", "c", "d"];
    let n = 4 + 2 * size as usize;
    let records: Vec<(Option<String>, Option<String>, i64)> = (0..n)
        .map(|i| {
            let k = keys[r.below(1 + size) as usize];
            (
                Some(k.to_string()),
                Some(format!("{k}{i}")),
                1000 + i as i64,
            )
        })
        .chain([(Some("z".to_string()), Some("last".to_string()), 5000)])
        .collect();
    let cfg = crate::config::LogConfig {
        cleanup_policy: CleanupPolicy::COMPACT,
        segment_bytes: 160,
        min_cleanable_dirty_ratio: Ratio(0),
        ..Default::default()
    };
    let (mut s, mut log) = small_log(cfg, &records);
    let hw = log.log_end_offset;
    let c = cleaner::cleanable(&log, hw, 10_000);
    let end = c.first_uncleanable_offset;
    let removed: Vec<i64> = if c.eligible {
        let res = cleaner::clean(&mut log, &mut s, c, 10_000).expect("in memory");
        res.removed.iter().map(|x| x.offset).collect()
    } else {
        Vec::new()
    };
    let all: Vec<i64> = (0..records.len() as i64).collect();
    let survivors: Vec<i64> = all
        .iter()
        .copied()
        .filter(|o| !removed.contains(o))
        .collect();
    let key = |o: i64| &records[o as usize].0;
    let shown: Vec<String> = records
        .iter()
        .enumerate()
        .map(|(o, (k, v, _))| {
            format!(
                "{o}: {}={}",
                k.as_deref().unwrap_or("null"),
                v.as_deref().unwrap_or("null")
            )
        })
        .collect();
    // Distractors: keep the first record per key; keep the latest per key
    // over the whole log (compacting the active segment too); keep
    // everything; drop the active segment as if it were compacted away.
    let first_per_key: Vec<i64> = all
        .iter()
        .copied()
        .filter(|&o| !(0..o).any(|x| key(x) == key(o)))
        .collect();
    let latest_all: Vec<i64> = all
        .iter()
        .copied()
        .filter(|&o| !(o + 1..records.len() as i64).any(|x| key(x) == key(o)))
        .collect();
    let cleaned_part: Vec<i64> = survivors.iter().copied().filter(|o| *o < end).collect();
    let mut removed_too_few: Vec<i64> = survivors.clone();
    if let Some(first_removed) = removed.first() {
        removed_too_few.push(*first_removed);
        removed_too_few.sort();
    }
    Drawn {
        en: format!("A compacted topic's partition holds {} (one record per batch). Offsets from {end} on are in the active segment. After one cleaner pass, which offsets remain?", shown.join(", ")),
        zh: format!("某压缩主题的分区中有 {}（每批一条）。位移 {end} 起位于活跃段。清理一次之后，还剩哪些位移？", shown.join("，")),
        pool: [first_per_key, latest_all, all.clone(), cleaned_part, removed_too_few]
            .iter()
            .filter(|v| !v.is_empty())
            .map(|v| list(v))
            .collect(),
        answer: list(&survivors),
        why_en: format!("For every key the cleaner keeps only its latest record in the cleanable part (offsets before {end}, the active segment's base); the active segment is not touched, and offsets do not change, so gaps appear: {}.", list(&survivors)),
        why_zh: format!("在可清理部分（活跃段起点 {end} 之前的位移）中，清理器为每个 key 只保留最新的一条；活跃段不动，位移不变，因此出现空洞：{}。", list(&survivors)),
        instance: Instance::Compaction {
            records: records
                .iter()
                .enumerate()
                .map(|(o, (k, v, _))| KeyedRecord {
                    offset: o as i64,
                    key: k.clone().unwrap_or_default(),
                    value: v.clone().unwrap_or_default(),
                })
                .collect(),
            active_from: end,
        },
    }
}

/// A partition where transactional producers 1 and 2 interleave with plain
/// writes; some transactions commit, some abort, one may still be open. The
/// answer runs the broker's producer state (the LSO) and the consumer's
/// read_committed filter on the batches themselves.
pub(super) fn read_committed(r: &mut Rng, size: u64) -> Drawn {
    use crate::producer_state::ProducerStates;
    use crate::storage::log::BatchInfo;
    use crate::storage::record::{
        build_batch, build_end_txn_marker, set_base_offset, BatchSpec, ControlType, EndTxnMarker,
        NewRecord,
    };
    let n = 6 + 2 * size as i64;
    let mut entries: Vec<TxnEntry> = Vec::new();
    let mut bytes: Vec<(i64, Vec<u8>)> = Vec::new();
    let mut states = ProducerStates::default();
    let mut open = [false, false];
    let mut aborted = Vec::new();
    for offset in 0..n {
        let p = r.below(2) as usize;
        let roll = r.below(10);
        let (pid, marker) = if roll < 2 {
            (-1, None)
        } else if open[p] && roll < 5 {
            let m = if r.chance(1, 2) { "COMMIT" } else { "ABORT" };
            (p as i64 + 1, Some(m))
        } else {
            (p as i64 + 1, None)
        };
        let mut b = match marker {
            Some(m) => build_end_txn_marker(
                0,
                1_700_000_000_000,
                -1,
                pid,
                0,
                EndTxnMarker {
                    control_type: if m == "COMMIT" {
                        ControlType::Commit
                    } else {
                        ControlType::Abort
                    },
                    coordinator_epoch: 0,
                },
            ),
            None => build_batch(
                &BatchSpec {
                    producer_id: pid,
                    producer_epoch: if pid < 0 { -1 } else { 0 },
                    base_sequence: if pid < 0 { -1 } else { offset as i32 },
                    transactional: pid >= 0,
                    ..BatchSpec::default()
                },
                &[NewRecord::new(
                    None,
                    Some(format!("v{offset}").as_bytes()),
                    1_700_000_000_000,
                )],
            ),
        };
        set_base_offset(&mut b, offset);
        let info = BatchInfo {
            base_offset: offset,
            last_offset: offset,
            records: 1,
            size: b.len() as u64,
            max_timestamp: 1_700_000_000_000,
            partition_leader_epoch: -1,
            producer_id: pid,
            producer_epoch: if pid < 0 { -1 } else { 0 },
            base_sequence: if pid < 0 || marker.is_some() {
                -1
            } else {
                offset as i32
            },
            transactional: pid >= 0,
            marker: marker.map(|m| EndTxnMarker {
                control_type: if m == "COMMIT" {
                    ControlType::Commit
                } else {
                    ControlType::Abort
                },
                coordinator_epoch: 0,
            }),
        };
        if let Some(done) = states.record(&info) {
            if done.aborted {
                aborted.push(crate::msg::AbortedTransaction {
                    first_offset: done.first_offset,
                    producer_id: done.producer_id,
                });
            }
            states.complete_txn(&done);
        }
        if pid >= 0 {
            open[p] = marker.is_none();
        }
        entries.push(TxnEntry {
            offset,
            producer_id: pid,
            marker,
        });
        bytes.push((offset, b));
    }
    // Every batch is replicated: the high watermark is the log end offset.
    let hw = n;
    states.on_high_watermark_updated(hw);
    let lso = states.last_stable_offset(hw, 0);
    let below = |upto: i64| -> Vec<u8> {
        bytes
            .iter()
            .filter(|(o, _)| *o < upto)
            .flat_map(|(_, b)| b.clone())
            .collect()
    };
    let offsets = |v: Vec<crate::event::ConsumedRecord>| -> String {
        let o: Vec<i64> = v.iter().map(|x| x.offset).collect();
        if o.is_empty() {
            NONE.to_string()
        } else {
            list(&o)
        }
    };
    let (got, _) = crate::consumer::isolation::deliverable(&below(lso), 0, true, &aborted);
    let answer = offsets(got);
    // Distractors: read_uncommitted; read_committed ignoring the LSO (up to
    // the HW); ignoring the aborted list; every offset below the LSO.
    let (unc, _) = crate::consumer::isolation::deliverable(&below(hw), 0, false, &[]);
    let (no_lso, _) = crate::consumer::isolation::deliverable(&below(hw), 0, true, &aborted);
    let (no_abort, _) = crate::consumer::isolation::deliverable(&below(lso), 0, true, &[]);
    let all_below: Vec<i64> = (0..lso).collect();
    let mut pool = vec![offsets(unc), offsets(no_lso), offsets(no_abort)];
    if !all_below.is_empty() {
        pool.push(list(&all_below));
    }
    let shown = |en: bool| -> String {
        entries
            .iter()
            .map(|e| match (e.producer_id, e.marker) {
                (-1, _) => format!(
                    "{}: {}",
                    e.offset,
                    if en { "plain record" } else { "普通消息" }
                ),
                (p, None) if en => format!("{}: record of producer {p}", e.offset),
                (p, None) => format!("{}: 生产者 {p} 的消息", e.offset),
                (p, Some(m)) if en => format!("{}: {m} marker of producer {p}", e.offset),
                (p, Some(m)) => format!("{}: 生产者 {p} 的 {m} 标记", e.offset),
            })
            .collect::<Vec<_>>()
            .join(if en { "; " } else { "；" })
    };
    let open_now: Vec<i64> = (0..2).filter(|p| open[*p]).map(|p| p as i64 + 1).collect();
    Drawn {
        en: format!("A partition, high watermark {hw}: {}. Producers 1 and 2 write in transactions. A consumer with isolation.level=read_committed fetches from offset 0. Which offsets does its poll() return?", shown(true)),
        zh: format!("某分区，高水位为 {hw}：{}。生产者 1 和 2 在事务中写入。一个 isolation.level=read_committed 的消费者从位移 0 开始拉取。它的 poll() 返回哪些位移？", shown(false)),
        pool,
        answer: answer.clone(),
        why_en: format!("The last stable offset is {lso}: {} The fetch stops there; of what is below it, records of aborted transactions are dropped (the fetch carries the aborted list from .txnindex) and markers are never returned: {answer}.", if open_now.is_empty() { "no transaction is open, so it equals the high watermark.".to_string() } else { format!("the first offset of the oldest open transaction (producers with one open: {}).", list(&open_now)) }),
        why_zh: format!("LSO（最后稳定位移）为 {lso}：{}拉取在此为止；在它之前的部分，被中止事务的消息会被丢弃（拉取带有来自 .txnindex 的中止列表），事务标记永远不返回：{}。", if open_now.is_empty() { "没有未完成的事务，所以它等于高水位。".to_string() } else { format!("即最早的未完成事务的第一条位移（有未完成事务的生产者：{}）。", list(&open_now)) }, if answer == NONE { "无" } else { &answer }),
        instance: Instance::ReadCommitted {
            entries,
            high_watermark: hw,
        },
    }
}
