//! Unit tests of the log: offsets, index interval, rolling, reads,
//! truncation, retention, lookups and leader epochs.

use super::*;
use crate::storage::paged::MemStorage;
use crate::storage::record::{build_batch, BatchSpec, NewRecord};

fn cfg(segment_bytes: u64, index_interval: u64) -> Arc<LogConfig> {
    Arc::new(LogConfig {
        segment_bytes,
        index_interval_bytes: index_interval,
        ..LogConfig::default()
    })
}

fn batch(n: usize, value_len: usize, ts: i64) -> Vec<u8> {
    let recs: Vec<NewRecord> = (0..n)
        .map(|i| {
            NewRecord::new(
                Some(format!("k{i}").as_bytes()),
                Some(&vec![b'x'; value_len]),
                ts + i as i64,
            )
        })
        .collect();
    build_batch(&BatchSpec::default(), &recs)
}

fn append(
    log: &mut Log,
    s: &mut MemStorage,
    bytes: Vec<u8>,
    now: i64,
) -> (Option<RollInfo>, Appended) {
    let p = log.prepare_leader_append(bytes, 0, now).unwrap();
    log.roll_and_append(s, &p, now).unwrap()
}

#[test]
fn offsets_are_assigned_from_the_log_end_offset() {
    let mut s = MemStorage::default();
    let mut log = Log::create(&mut s, TopicPartition::new("t", 0), cfg(1 << 20, 4096), 0).unwrap();
    let (_, a) = append(&mut log, &mut s, batch(3, 10, 1000), 0);
    assert_eq!((a.first_offset, a.last_offset, a.position), (0, 2, 0));
    let (_, b) = append(&mut log, &mut s, batch(2, 10, 2000), 0);
    assert_eq!((b.first_offset, b.last_offset), (3, 4));
    assert_eq!(b.position, a.size);
    assert_eq!(log.log_end_offset, 5);
    let all = log.decode_all(&s).unwrap();
    assert_eq!(all.len(), 2);
    assert!(all.iter().all(|b| b.crc_valid()));
}

#[test]
fn index_entries_follow_the_index_interval_rule() {
    // Batches of one record with a 180-byte value are 252 bytes: positions
    // 0, 252, 504, 756. With index.interval.bytes=700 the first entry is
    // written for the batch at 756, when 756 > 700 bytes have gone by.
    let mut s = MemStorage::default();
    let mut log = Log::create(
        &mut s,
        TopicPartition::new("first", 0),
        cfg(1 << 20, 700),
        0,
    )
    .unwrap();
    let mut positions = Vec::new();
    let mut entries = Vec::new();
    for i in 0..6 {
        let (_, a) = append(&mut log, &mut s, batch(1, 180, 1000 + i), 0);
        assert_eq!(a.size, 252);
        positions.push(a.position);
        entries.push(a.index_entry);
    }
    assert_eq!(positions, vec![0, 252, 504, 756, 1008, 1260]);
    assert_eq!(entries, vec![None, None, None, Some((3, 756)), None, None]);
    let lookup = log.lookup_offset(&s, 3);
    assert_eq!(lookup.result, Some((3, 756)));
    assert!(matches!(
        lookup
            .steps
            .iter()
            .find(|s| matches!(s, LookupStep::IndexResult { .. })),
        Some(LookupStep::IndexResult {
            start_position: 756,
            ..
        })
    ));
}

#[test]
fn segments_roll_at_segment_bytes_and_retire_with_a_time_index_entry() {
    let mut s = MemStorage::default();
    let mut log = Log::create(&mut s, TopicPartition::new("t", 0), cfg(600, 4096), 0).unwrap();
    let mut rolls = Vec::new();
    for i in 0..5 {
        let (r, _) = append(&mut log, &mut s, batch(1, 180, 1000 + i), 0);
        rolls.push(r);
    }
    // 252 + 252 = 504 fits in 600; a third would make 756 > 600.
    assert!(rolls[0].is_none() && rolls[1].is_none());
    let r = rolls[2].as_ref().unwrap();
    assert_eq!(r.reason, RollReason::SegmentBytes);
    assert_eq!((r.old_base_offset, r.new_base_offset), (0, 2));
    assert_eq!(r.final_time_index_entry, Some((1001, 1)));
    assert_eq!(
        s.list("t-0/"),
        vec![
            "t-0/00000000000000000000.index",
            "t-0/00000000000000000000.log",
            "t-0/00000000000000000000.timeindex",
            "t-0/00000000000000000002.index",
            "t-0/00000000000000000002.log",
            "t-0/00000000000000000002.timeindex",
            "t-0/00000000000000000004.index",
            "t-0/00000000000000000004.log",
            "t-0/00000000000000000004.timeindex",
        ]
    );
    assert_eq!(log.lookup_offset(&s, 3).result, Some((3, 252)));
}

#[test]
fn reads_stop_at_the_high_watermark_and_refuse_out_of_range() {
    let mut s = MemStorage::default();
    let mut log = Log::create(&mut s, TopicPartition::new("t", 0), cfg(1 << 20, 4096), 0).unwrap();
    for i in 0..4 {
        append(&mut log, &mut s, batch(2, 5, i), 0);
    }
    let d = log.read(&s, 0, 1 << 20, 4, true).unwrap();
    assert_eq!(d.batches.len(), 2);
    let d = log.read(&s, 3, 1 << 20, 8, true).unwrap();
    assert_eq!(d.batches[0].base_offset, 2);
    assert_eq!(log.read(&s, 8, 100, 8, true).unwrap().batches.len(), 0);
    assert!(log.read(&s, 9, 100, 8, true).is_err());
    let one = log.read(&s, 0, 1, 8, true).unwrap();
    assert_eq!(one.batches.len(), 1, "min one message");
    assert_eq!(log.read(&s, 0, 1, 8, false).unwrap().batches.len(), 0);
}

#[test]
fn truncation_removes_records_segments_and_index_entries() {
    let mut s = MemStorage::default();
    let mut log = Log::create(&mut s, TopicPartition::new("t", 0), cfg(600, 200), 0).unwrap();
    for i in 0..8 {
        append(&mut log, &mut s, batch(1, 180, 1000 + i), 0);
    }
    assert_eq!(log.segments.len(), 4);
    let t = log.truncate_to(&mut s, 5).unwrap().unwrap();
    assert_eq!(t.old_log_end_offset, 8);
    assert_eq!(log.log_end_offset, 5);
    assert_eq!(t.segments_removed, vec![6]);
    assert_eq!(log.segments.len(), 3);
    assert_eq!(log.active().size, 252);
    let (_, a) = append(&mut log, &mut s, batch(1, 180, 2000), 0);
    assert_eq!(a.first_offset, 5);
    assert!(log.decode_all(&s).unwrap().iter().all(|b| b.crc_valid()));
    assert!(log.truncate_to(&mut s, 99).unwrap().is_none());
}

/// Truncating at or past the end cuts no record but drops the epoch
/// entries that start at the end (UnifiedLog.truncateTo): a broker that
/// became leader of an empty log (epoch 3 from offset 0) and lost it before
/// appending must not fetch with epoch 3 as its last.
#[test]
fn a_truncation_past_the_end_still_drops_epochs_starting_at_the_end() {
    let mut s = MemStorage::default();
    let mut log = Log::create(&mut s, TopicPartition::new("t", 0), cfg(600, 200), 0).unwrap();
    log.assign_epoch(3, 0);
    assert_eq!(log.latest_epoch(), Some(3));
    assert!(log.truncate_to(&mut s, 0).unwrap().is_none());
    assert_eq!(log.latest_epoch(), None);
    // With records, an epoch that began before the end stays.
    log.assign_epoch(4, 0);
    append(&mut log, &mut s, batch(1, 180, 1000), 0);
    log.assign_epoch(5, 1);
    assert!(log.truncate_to(&mut s, 7).unwrap().is_none());
    assert_eq!(log.latest_epoch(), Some(4));
}

#[test]
fn time_retention_deletes_expired_segments_and_moves_the_log_start_offset() {
    let mut s = MemStorage::default();
    let mut c = (*cfg(600, 4096)).clone();
    c.retention_ms = 10_000;
    let mut log = Log::create(&mut s, TopicPartition::new("t", 0), Arc::new(c), 0).unwrap();
    for i in 0..6 {
        append(&mut log, &mut s, batch(1, 180, 1000 * i), 0);
    }
    // segments: [0,1] ts ≤1000, [2,3] ts ≤3000, [4,5] ts ≤5000 (active)
    let plan = log
        .plan_retention(RetentionPass::RetentionMs, 13_500, 6)
        .unwrap();
    assert_eq!(plan.segments, vec![0, 2]);
    // Not past the high watermark: with HW 3 only the first segment qualifies.
    assert_eq!(
        log.plan_retention(RetentionPass::RetentionMs, 13_500, 3)
            .unwrap()
            .segments,
        vec![0]
    );
    let applied = log.apply_retention(&mut s, &plan, 13_500, 100).unwrap();
    assert_eq!(applied.log_start_offset, 4);
    assert!(s.exists("t-0/00000000000000000000.log.deleted"));
    assert!(log.read(&s, 1, 100, 6, true).is_err());
    assert_eq!(log.delete_expired_files(&mut s, 100 + 60_000).len(), 6);
    // Everything expired: the active segment goes too, after a roll.
    let plan = log
        .plan_retention(RetentionPass::RetentionMs, 100_000, 6)
        .unwrap();
    assert!(plan.roll_first);
    let applied = log.apply_retention(&mut s, &plan, 100_000, 200).unwrap();
    assert_eq!(applied.rolled.unwrap().new_base_offset, 6);
    assert_eq!(log.log_start_offset, 6);
    assert_eq!(log.segments.len(), 1);
}

#[test]
fn size_retention_keeps_the_log_under_retention_bytes() {
    let mut s = MemStorage::default();
    let mut c = (*cfg(600, 4096)).clone();
    c.retention_bytes = 800;
    let mut log = Log::create(&mut s, TopicPartition::new("t", 0), Arc::new(c), 0).unwrap();
    for i in 0..6 {
        append(&mut log, &mut s, batch(1, 180, i), 0);
    }
    // 1512 bytes in 3 segments of 504 and retention.bytes=800: 712 bytes must
    // go, and only whole segments go, so one segment (504) is deleted.
    let plan = log
        .plan_retention(RetentionPass::RetentionBytes, 0, 6)
        .unwrap();
    assert_eq!(plan.segments, vec![0]);
    assert!(log
        .plan_retention(RetentionPass::RetentionMs, 0, 6)
        .is_none());
}

#[test]
fn timestamp_lookup_finds_the_first_record_at_or_after() {
    let mut s = MemStorage::default();
    let mut log = Log::create(&mut s, TopicPartition::new("t", 0), cfg(600, 100), 0).unwrap();
    for i in 0..6 {
        append(&mut log, &mut s, batch(1, 180, 1000 * (i + 1)), 0);
    }
    assert_eq!(log.lookup_timestamp(&s, 2500).result.map(|r| r.0), Some(2));
    assert_eq!(log.lookup_timestamp(&s, 1000).result.map(|r| r.0), Some(0));
    assert_eq!(log.lookup_timestamp(&s, 6000).result.map(|r| r.0), Some(5));
    assert!(log.lookup_timestamp(&s, 6001).result.is_none());
}

#[test]
fn corrupt_produce_batches_are_refused() {
    let mut s = MemStorage::default();
    let log = Log::create(&mut s, TopicPartition::new("t", 0), cfg(1 << 20, 4096), 0).unwrap();
    let mut b = batch(1, 10, 0);
    let n = b.len();
    b[n - 1] ^= 0xff;
    assert!(matches!(
        log.prepare_leader_append(b, 0, 0),
        Err(AppendError::CorruptMessage { .. })
    ));
    assert!(log.prepare_leader_append(batch(100, 100, 0), 0, 0).is_ok());
    let small = Log::create(&mut s, TopicPartition::new("u", 0), cfg(100, 4096), 0).unwrap();
    assert!(matches!(
        small.prepare_leader_append(batch(2, 100, 0), 0, 0),
        Err(AppendError::RecordTooLarge { .. })
    ));
}

#[test]
fn leader_epoch_end_offsets() {
    let mut s = MemStorage::default();
    let mut log = Log::create(&mut s, TopicPartition::new("t", 0), cfg(1 << 20, 4096), 0).unwrap();
    let p = log.prepare_leader_append(batch(3, 1, 0), 0, 0).unwrap();
    log.roll_and_append(&mut s, &p, 0).unwrap();
    let p = log.prepare_leader_append(batch(2, 1, 0), 2, 0).unwrap();
    log.roll_and_append(&mut s, &p, 0).unwrap();
    assert_eq!(log.end_offset_for_epoch(0), (0, 3));
    assert_eq!(log.end_offset_for_epoch(1), (0, 3));
    assert_eq!(log.end_offset_for_epoch(2), (2, 5));
}

/// Kafka answers a read at exactly the log end offset with no records and
/// no error; only past it is OFFSET_OUT_OF_RANGE.
#[test]
fn a_lookup_at_the_log_end_offset_is_empty_not_out_of_range() {
    let mut s = MemStorage::default();
    let mut log = Log::create(&mut s, TopicPartition::new("t", 0), cfg(1 << 20, 4096), 0).unwrap();
    append(&mut log, &mut s, batch(3, 10, 1000), 0);
    let reason = |l: Lookup| match l.steps.last() {
        Some(LookupStep::NotFound { reason }) => reason.clone(),
        other => panic!("{other:?}"),
    };
    let at_end = reason(log.lookup_offset(&s, log.log_end_offset));
    assert!(!at_end.contains("OFFSET_OUT_OF_RANGE"), "{at_end}");
    assert!(at_end.contains("no error"), "{at_end}");
    let past = reason(log.lookup_offset(&s, log.log_end_offset + 1));
    assert!(past.contains("OFFSET_OUT_OF_RANGE"), "{past}");
}
