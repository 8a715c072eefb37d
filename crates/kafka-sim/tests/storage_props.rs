//! Property tests of the storage layer against a naive model: a plain list of
//! `(offset, key, value, timestamp)`.

use kafka_sim::config::{CleanupPolicy, LogConfig, Ratio};
use kafka_sim::ids::TopicPartition;
use kafka_sim::storage::cleaner;
use kafka_sim::storage::log::{Log, LookupStep, RetentionPass};
use kafka_sim::storage::paged::{MemStorage, Storage};
use kafka_sim::storage::record::{self, build_batch, decode_batch, BatchSpec, NewRecord};
use kafka_sim::storage::{index_file, log_file};
use proptest::prelude::*;
use std::sync::Arc;

#[derive(Clone, Debug)]
struct Rec {
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    ts_delta: u16,
}

fn rec() -> impl Strategy<Value = Rec> {
    (
        prop::option::weighted(0.9, prop::collection::vec(b'a'..=b'e', 1..3)),
        prop::option::weighted(0.9, prop::collection::vec(any::<u8>(), 0..100)),
        0u16..50,
    )
        .prop_map(|(key, value, ts_delta)| Rec {
            key,
            value,
            ts_delta,
        })
}

fn batches() -> impl Strategy<Value = Vec<Vec<Rec>>> {
    prop::collection::vec(prop::collection::vec(rec(), 1..6), 1..60)
}

/// (offset, key, value, timestamp)
type Row = (i64, Option<Vec<u8>>, Option<Vec<u8>>, i64);

struct Model {
    records: Vec<Row>,
}

fn build(cfg: LogConfig, input: &[Vec<Rec>]) -> (MemStorage, Log, Model) {
    let mut s = MemStorage::new(256);
    let mut log = Log::create(&mut s, TopicPartition::new("p", 0), Arc::new(cfg), 0).unwrap();
    let mut model = Model {
        records: Vec::new(),
    };
    let mut ts = 1_000_000i64;
    for b in input {
        let recs: Vec<NewRecord> = b
            .iter()
            .map(|r| {
                ts += r.ts_delta as i64;
                NewRecord::new(r.key.as_deref(), r.value.as_deref(), ts)
            })
            .collect();
        let bytes = build_batch(&BatchSpec::default(), &recs);
        let p = log.prepare_leader_append(bytes, 0, ts).unwrap();
        let (_, a) = log.roll_and_append(&mut s, &p, ts).unwrap();
        for (i, r) in recs.iter().enumerate() {
            model.records.push((
                a.first_offset + i as i64,
                r.key.clone(),
                r.value.clone(),
                r.timestamp,
            ));
        }
    }
    (s, log, model)
}

fn all_records(log: &Log, s: &MemStorage) -> Vec<Row> {
    log.decode_all(s)
        .unwrap()
        .iter()
        .flat_map(|b| {
            assert!(b.crc_valid());
            b.records
                .iter()
                .map(|r| {
                    (
                        b.offset_of(r),
                        r.key.clone(),
                        r.value.clone(),
                        b.timestamp_of(r),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

fn small_cfg(segment_bytes: u64, interval: u64) -> LogConfig {
    LogConfig {
        segment_bytes,
        index_interval_bytes: interval,
        ..LogConfig::default()
    }
}

proptest! {
    // 64 cases per property in the test suite; PROPTEST_CASES=N for a deeper run.
    #![proptest_config(ProptestConfig::with_cases(std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64)))]

    #[test]
    fn appends_and_reads_agree_with_the_model(input in batches(), seg in 700u64..4000, interval in 0u64..2000) {
        let (s, log, model) = build(small_cfg(seg, interval), &input);
        prop_assert_eq!(all_records(&log, &s), model.records.clone());
        prop_assert_eq!(log.log_end_offset, model.records.len() as i64);
        // Segments: ascending, contiguous, each within segment.bytes unless one batch is bigger.
        for w in log.segments.windows(2) {
            prop_assert!(w[0].base_offset < w[1].base_offset);
            prop_assert_eq!(w[0].next_offset, w[1].base_offset);
        }
        for seg_ in &log.segments {
            let bytes = s.read_all(&log_file(&log.dir, seg_.base_offset)).unwrap();
            let first = record::read_header(&bytes, 0).ok();
            if let Some(h) = first {
                prop_assert_eq!(h.base_offset, seg_.base_offset, "a segment starts at its base offset");
                prop_assert!(seg_.size <= seg.max(h.size_in_bytes()));
            }
            // Every .index entry points at the start of a batch ending at that offset.
            let idx = s.read_all(&index_file(&log.dir, seg_.base_offset)).unwrap();
            let entries = kafka_sim::storage::index::decode_index(kafka_sim::storage::index::IndexKind::Offset, seg_.base_offset, &idx).unwrap();
            for w in entries.windows(2) {
                prop_assert!(w[0].key < w[1].key && w[0].value < w[1].value);
            }
            for e in entries {
                let h = record::read_header(&bytes[e.value as usize..], e.value as u64).unwrap();
                prop_assert_eq!(h.last_offset(), e.key);
            }
        }
    }

    #[test]
    fn offset_lookups_find_the_batch_holding_the_offset(input in batches(), seg in 700u64..4000, interval in 0u64..1500, picks in prop::collection::vec(any::<prop::sample::Index>(), 1..20)) {
        let (s, log, model) = build(small_cfg(seg, interval), &input);
        for pick in picks {
            let target = model.records[pick.index(model.records.len())].0;
            let l = log.lookup_offset(&s, target);
            let (found, pos) = l.result.expect("every offset in the log is found");
            prop_assert_eq!(found, target);
            // The scan reads no more than the index interval allows (plus the batch holding it).
            let scanned: Vec<u64> = l.steps.iter().filter_map(|st| match st { LookupStep::BatchScanned { size, .. } => Some(*size), _ => None }).collect();
            let before_hit: u64 = scanned[..scanned.len() - 1].iter().sum();
            prop_assert!(before_hit <= interval + 2 * 2100, "scanned {} bytes before the hit with interval {}", before_hit, interval);
            // And the position it gives really is that batch.
            let segment = log.segments.iter().rev().find(|x| x.base_offset <= target).unwrap();
            let h = log.header_at(&s, segment.base_offset, pos).unwrap();
            prop_assert!(h.base_offset <= target && target <= h.last_offset());
            // The simulation's untraced path lands on the same batch.
            prop_assert_eq!(log.locate(&s, target), Some((segment.base_offset, pos)));
        }
        prop_assert!(log.lookup_offset(&s, log.log_end_offset).result.is_none());
        prop_assert_eq!(log.locate(&s, log.log_end_offset), None);
    }

    /// Every offset of the log: the traced walk (the lookup command, the
    /// storage view) and the untraced one (fetches) agree.
    #[test]
    fn the_traced_and_the_untraced_lookup_agree_on_every_offset(input in batches(), seg in 700u64..4000, interval in 0u64..1500) {
        let (s, log, _) = build(small_cfg(seg, interval), &input);
        for target in log.log_start_offset..log.log_end_offset {
            let l = log.lookup_offset(&s, target);
            let chosen = l.steps.iter().rev().find_map(|st| match st {
                LookupStep::SegmentChosen { base_offset, .. } => Some(*base_offset),
                _ => None,
            });
            let traced = l.result.map(|(_, pos)| (chosen.unwrap(), pos));
            prop_assert_eq!(log.locate(&s, target), traced, "offset {}", target);
        }
    }

    #[test]
    fn timestamp_lookups_return_the_first_record_at_or_after(input in batches(), interval in 0u64..1500, t in 1_000_000i64..1_020_000) {
        let (s, log, model) = build(small_cfg(1500, interval), &input);
        // The answer per Kafka: in the first segment whose largest timestamp is
        // >= t, the first record with timestamp >= t.
        let expected = log.segments.iter()
            .find(|seg| seg.size > 0 && seg.largest_timestamp() >= t)
            .and_then(|seg| model.records.iter().find(|r| r.0 >= seg.base_offset && r.3 >= t))
            .map(|r| r.0);
        prop_assert_eq!(log.lookup_timestamp(&s, t).result.map(|r| r.0), expected);
    }

    #[test]
    fn truncation_keeps_exactly_the_prefix(input in batches(), cut in any::<prop::sample::Index>()) {
        let (mut s, mut log, model) = build(small_cfg(1200, 300), &input);
        // Truncate at a batch boundary, as followers do.
        let boundaries: Vec<i64> = log.decode_all(&s).unwrap().iter().map(|b| b.header.base_offset).collect();
        let to = boundaries[cut.index(boundaries.len())];
        log.truncate_to(&mut s, to).unwrap();
        let expect: Vec<_> = model.records.iter().filter(|r| r.0 < to).cloned().collect();
        prop_assert_eq!(all_records(&log, &s), expect);
        prop_assert_eq!(log.log_end_offset, to);
        // Appending continues at `to`.
        let bytes = build_batch(&BatchSpec::default(), &[NewRecord::new(Some(b"z"), Some(b"after"), 5)]);
        let p = log.prepare_leader_append(bytes, 1, 5).unwrap();
        let (_, a) = log.roll_and_append(&mut s, &p, 5).unwrap();
        prop_assert_eq!(a.first_offset, to);
    }

    #[test]
    fn retention_deletes_whole_old_segments_and_never_passes_the_high_watermark(input in batches(), hw_pick in any::<prop::sample::Index>(), now in 1_000_000i64..1_040_000, retention in 0i64..20_000, bytes_limit in 0i64..20_000) {
        let mut cfg = small_cfg(900, 300);
        cfg.retention_ms = retention;
        cfg.retention_bytes = bytes_limit;
        let (mut s, mut log, model) = build(cfg, &input);
        let hw = hw_pick.index(model.records.len() + 1) as i64;
        for pass in [RetentionPass::LogStartOffset, RetentionPass::RetentionBytes, RetentionPass::RetentionMs] {
            if let Some(plan) = log.plan_retention(pass, now, hw) {
                let before: Vec<i64> = log.segments.iter().map(|x| x.base_offset).collect();
                let applied = log.apply_retention(&mut s, &plan, now, 0).unwrap();
                for d in &applied.deleted {
                    prop_assert!(d.next_offset <= hw, "deleted a segment reaching past the high watermark");
                    prop_assert!(before.contains(&d.base_offset));
                }
            }
        }
        prop_assert!(log.log_start_offset <= hw.max(log.segments[0].base_offset));
        prop_assert!(!log.segments.is_empty());
        // What is left is exactly the model's suffix from the log start offset.
        let expect: Vec<_> = model.records.iter().filter(|r| r.0 >= log.log_start_offset).cloned().collect();
        prop_assert_eq!(all_records(&log, &s), expect);
    }

    #[test]
    fn compaction_keeps_the_latest_value_per_key_at_its_offset(input in batches(), now in 1_000_000i64..1_200_000) {
        let mut cfg = small_cfg(700, 200);
        cfg.cleanup_policy = CleanupPolicy::COMPACT;
        cfg.min_cleanable_dirty_ratio = Ratio(0);
        cfg.delete_retention_ms = 50_000;
        // Compacted topics refuse keyless records: give every record a key.
        let input: Vec<Vec<Rec>> = input.into_iter().map(|b| b.into_iter().map(|mut r| { r.key.get_or_insert(b"x".to_vec()); r }).collect()).collect();
        let (mut s, mut log, model) = build(cfg, &input);
        let hw = log.log_end_offset;
        let c = cleaner::cleanable(&log, hw, now);
        let uncleanable = c.first_uncleanable_offset;
        if c.eligible {
            let r = cleaner::clean(&mut log, &mut s, c, now).unwrap();
            prop_assert!(r.groups.iter().all(|g| g.records_after <= g.records_before));
        }
        let after = all_records(&log, &s);
        // Offsets only ever go up, and every survivor is the original record at that offset.
        for w in after.windows(2) {
            prop_assert!(w[0].0 < w[1].0);
        }
        for r in &after {
            prop_assert!(model.records.contains(r), "record {:?} was not in the original log", r.0);
        }
        // The uncleanable part (active segment and beyond) is untouched.
        let tail: Vec<_> = model.records.iter().filter(|r| r.0 >= uncleanable).cloned().collect();
        let tail_after: Vec<_> = after.iter().filter(|r| r.0 >= uncleanable).cloned().collect();
        prop_assert_eq!(tail_after, tail);
        // For every key, its latest record in the cleaned part survives (a
        // first-time tombstone too: it only goes after delete.retention.ms).
        for r in model.records.iter().filter(|r| r.0 < uncleanable) {
            let latest = model.records.iter().filter(|x| x.1 == r.1 && x.0 < uncleanable).map(|x| x.0).max();
            if latest == Some(r.0) {
                prop_assert!(after.contains(r), "the latest record of key {:?} at {} was removed", r.1, r.0);
            }
        }
        // Reading a removed offset gives the next surviving one.
        if let Some(gone) = model.records.iter().map(|r| r.0).find(|o| !after.iter().any(|a| a.0 == *o)) {
            let next = after.iter().map(|a| a.0).find(|o| *o > gone);
            let got = log.lookup_offset(&s, gone).result.map(|r| r.0);
            prop_assert_eq!(got, next);
        }
    }

    #[test]
    fn decode_of_encode_round_trips(recs in prop::collection::vec(rec(), 1..20), base in 0i64..1_000_000, epoch in 0i32..100, pid in -1i64..5, seq in 0i32..1000) {
        let mut ts = 1_700_000_000_000i64;
        let nr: Vec<NewRecord> = recs.iter().map(|r| { ts += r.ts_delta as i64; NewRecord::new(r.key.as_deref(), r.value.as_deref(), ts) }).collect();
        let spec = BatchSpec { base_offset: base, partition_leader_epoch: epoch, producer_id: pid, producer_epoch: if pid >= 0 { 0 } else { -1 }, base_sequence: if pid >= 0 { seq } else { -1 }, ..BatchSpec::default() };
        let bytes = build_batch(&spec, &nr);
        prop_assert_eq!(bytes.len(), record::batch_size(&nr));
        let d = decode_batch(&bytes, 0).unwrap();
        prop_assert!(d.crc_valid());
        prop_assert_eq!(d.header.base_offset, base);
        prop_assert_eq!(d.header.records_count as usize, nr.len());
        for (r, n) in d.records.iter().zip(&nr) {
            prop_assert_eq!(&r.key, &n.key);
            prop_assert_eq!(&r.value, &n.value);
            prop_assert_eq!(d.timestamp_of(r), n.timestamp);
        }
    }

    #[test]
    fn any_corrupted_byte_is_caught(recs in prop::collection::vec(rec(), 1..5), at in any::<prop::sample::Index>(), flip in 1u8..=255) {
        let nr: Vec<NewRecord> = recs.iter().map(|r| NewRecord::new(r.key.as_deref(), r.value.as_deref(), 1)).collect();
        let mut bytes = build_batch(&BatchSpec::default(), &nr);
        // Bytes from `attributes` on are covered by the CRC.
        let i = record::ATTRIBUTES_OFFSET + at.index(bytes.len() - record::ATTRIBUTES_OFFSET);
        bytes[i] ^= flip;
        prop_assert!(record::ensure_valid(&bytes, 0).is_err());
    }

    #[test]
    fn the_decoder_never_panics_on_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        if let Err(e) = decode_batch(&bytes, 0) {
            prop_assert!(!e.field.is_empty());
            prop_assert!(!e.message.is_empty());
        }
        let _ = record::split_batches(&bytes);
        let _ = kafka_sim::storage::index::decode_index(kafka_sim::storage::index::IndexKind::Time, 0, &bytes);
    }

    #[test]
    fn the_decoder_never_panics_on_mutated_batches(recs in prop::collection::vec(rec(), 1..4), edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8), cut in any::<prop::sample::Index>()) {
        // Random bytes rarely get past the header; mutating a valid batch
        // reaches the record decoding too.
        let nr: Vec<NewRecord> = recs.iter().map(|r| NewRecord::new(r.key.as_deref(), r.value.as_deref(), 1)).collect();
        let mut bytes = build_batch(&BatchSpec::default(), &nr);
        for (i, v) in edits {
            let i = i.index(bytes.len());
            bytes[i] = v;
        }
        bytes.truncate(cut.index(bytes.len() + 1));
        if let Err(e) = decode_batch(&bytes, 0) {
            prop_assert!(!e.field.is_empty());
        }
    }
}

#[test]
fn the_source_notes_lookup_example() {
    // "offset 3 → position 756": batches of one 252-byte record, one index
    // entry every 700 bytes. The lookup goes segment → .index → scan.
    let mut s = MemStorage::default();
    let mut log = Log::create(
        &mut s,
        TopicPartition::new("first", 0),
        Arc::new(small_cfg(1 << 20, 700)),
        0,
    )
    .unwrap();
    for i in 0..8 {
        let b = build_batch(
            &BatchSpec::default(),
            &[NewRecord::new(Some(b"k0"), Some(&[b'x'; 180]), 1000 + i)],
        );
        let p = log.prepare_leader_append(b, 0, 0).unwrap();
        log.roll_and_append(&mut s, &p, 0).unwrap();
    }
    let l = log.lookup_offset(&s, 3);
    assert_eq!(l.result, Some((3, 756)));
    let kinds: Vec<&str> = l
        .steps
        .iter()
        .map(|st| match st {
            LookupStep::SegmentChosen { .. } => "segment",
            LookupStep::IndexProbe { .. } => "probe",
            LookupStep::IndexResult { .. } => "index",
            LookupStep::BatchScanned { .. } => "scan",
            LookupStep::Found { .. } => "found",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        ["segment", "probe", "probe", "index", "scan", "found"]
    );
}
