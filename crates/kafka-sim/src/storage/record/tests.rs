//! Unit tests of the record batch format (v2): encoding, decoding, CRC-32C
//! and the errors a corrupt batch gets.

use super::*;

fn sample() -> Vec<NewRecord> {
    vec![
        NewRecord::new(Some(b"k1"), Some(b"hello"), 1_700_000_000_000),
        NewRecord::new(None, Some(b"no key"), 1_700_000_000_005),
        NewRecord {
            headers: vec![RecordHeader {
                key: "trace".into(),
                value: Some(b"abc".to_vec()),
            }],
            ..NewRecord::new(Some(b"k3"), None, 1_700_000_000_002)
        },
    ]
}

#[test]
fn the_layout_covers_the_batch_exactly_with_the_decoded_values() {
    let spec = BatchSpec {
        base_offset: 40,
        partition_leader_epoch: 3,
        ..BatchSpec::default()
    };
    let bytes = build_batch(&spec, &sample());
    let spans = batch_layout(&bytes).unwrap();
    // Contiguous, in order, covering every byte once.
    let mut at = 0;
    for s in &spans {
        assert_eq!(s.start, at, "{s:?}");
        at += s.len;
    }
    assert_eq!(at, bytes.len());
    // The header is the 61 bytes Kafka's constants say, field by field.
    let header: Vec<_> = spans.iter().filter(|s| s.record.is_none()).collect();
    assert_eq!(header.len(), 13);
    assert_eq!(
        header.iter().map(|s| s.len).sum::<usize>(),
        RECORD_BATCH_OVERHEAD
    );
    let find = |name, rec| {
        spans
            .iter()
            .find(|s| s.name == name && s.record == rec)
            .unwrap()
    };
    assert_eq!(find("crc", None).start, CRC_OFFSET);
    assert_eq!(find("recordsCount", None).start, RECORDS_COUNT_OFFSET);
    assert_eq!(find("baseOffset", None).value, "40");
    assert_eq!(find("partitionLeaderEpoch", None).value, "3");
    assert_eq!(find("recordsCount", None).value, "3");
    assert!(find("crc", None).value.ends_with("valid)"));
    assert_eq!(find("key", Some(0)).value, "\"k1\"");
    assert_eq!(find("value", Some(0)).value, "\"hello\"");
    assert_eq!(find("keyLength", Some(1)).value, "-1", "null key");
    assert_eq!(find("offsetDelta", Some(2)).value, "2 (offset 42)");
    assert_eq!(find("headerKey", Some(2)).value, "\"trace\"");
    assert_eq!(find("timestampDelta", Some(1)).value, "5");
    // A flipped byte in the records makes the CRC invalid, and says so.
    let mut bad = bytes.clone();
    let last = bad.len() - 1;
    bad[last] ^= 0xff;
    let spans = batch_layout(&bad).unwrap();
    assert!(spans
        .iter()
        .any(|s| s.name == "crc" && s.value.ends_with("INVALID)")));
    // A truncated batch is an error, not a panic.
    assert!(batch_layout(&bytes[..30]).is_err());
}

#[test]
fn a_single_record_batch_matches_kafkas_bytes() {
    // Hand-assembled from the format description: one record, key "k",
    // value "v", timestamp 0, no producer id, base offset 0, epoch 0.
    let spec = BatchSpec {
        partition_leader_epoch: 0,
        ..BatchSpec::default()
    };
    let b = build_batch(&spec, &[NewRecord::new(Some(b"k"), Some(b"v"), 0)]);
    let record: [u8; 9] = [
        0x10, // length 8, zig-zag
        0x00, // attributes
        0x00, // timestampDelta 0
        0x00, // offsetDelta 0
        0x02, b'k', // keyLength 1, key
        0x02, b'v', // valueLength 1, value
        0x00, // headers 0
    ];
    assert_eq!(b.len(), RECORD_BATCH_OVERHEAD + record.len());
    assert_eq!(&b[RECORD_BATCH_OVERHEAD..], record);
    assert_eq!(&b[0..8], &[0; 8]); // baseOffset
    assert_eq!(i32::from_be_bytes(b[8..12].try_into().unwrap()), 58); // batchLength
    assert_eq!(b[MAGIC_OFFSET], 2);
    assert_eq!(&b[PRODUCER_ID_OFFSET..PRODUCER_ID_OFFSET + 8], &[0xff; 8]); // -1
    let crc = u32::from_be_bytes(b[CRC_OFFSET..CRC_OFFSET + 4].try_into().unwrap());
    assert_eq!(crc, crc32c(&b[ATTRIBUTES_OFFSET..]));
}

#[test]
fn decode_of_encode_round_trips() {
    let spec = BatchSpec {
        base_offset: 42,
        partition_leader_epoch: 3,
        producer_id: 1000,
        producer_epoch: 0,
        base_sequence: 7,
        ..BatchSpec::default()
    };
    let recs = sample();
    let bytes = build_batch(&spec, &recs);
    assert_eq!(bytes.len(), batch_size(&recs));
    let d = decode_batch(&bytes, 0).unwrap();
    assert!(d.crc_valid());
    assert_eq!(d.header.base_offset, 42);
    assert_eq!(d.header.last_offset(), 44);
    assert_eq!(d.header.base_timestamp, 1_700_000_000_000);
    assert_eq!(d.header.max_timestamp, 1_700_000_000_005);
    assert_eq!(d.header.last_sequence(), 9);
    for (i, (r, n)) in d.records.iter().zip(&recs).enumerate() {
        assert_eq!(d.offset_of(r), 42 + i as i64);
        assert_eq!(d.timestamp_of(r), n.timestamp);
        assert_eq!(r.key, n.key);
        assert_eq!(r.value, n.value);
        assert_eq!(r.headers, n.headers);
    }
}

#[test]
fn stamping_offset_and_epoch_keeps_the_crc_valid() {
    let mut bytes = build_batch(&BatchSpec::default(), &sample());
    set_base_offset(&mut bytes, 1234);
    set_partition_leader_epoch(&mut bytes, 9);
    let h = ensure_valid(&bytes, 0).unwrap();
    assert_eq!(h.base_offset, 1234);
    assert_eq!(h.partition_leader_epoch, 9);
    set_log_append_time(&mut bytes, 99);
    let h = ensure_valid(&bytes, 0).unwrap();
    assert!(h.is_log_append_time());
    assert_eq!(h.max_timestamp, 99);
}

#[test]
fn a_corrupted_byte_is_caught_by_the_crc() {
    let bytes = build_batch(&BatchSpec::default(), &sample());
    for i in ATTRIBUTES_OFFSET..bytes.len() {
        let mut bad = bytes.clone();
        bad[i] ^= 0x01;
        let e = ensure_valid(&bad, 0).unwrap_err();
        assert_eq!(e.field, "crc", "flip at {i}");
    }
}

#[test]
fn truncated_batches_name_the_field() {
    let bytes = build_batch(&BatchSpec::default(), &sample());
    let e = decode_batch(&bytes[..30], 100).unwrap_err();
    assert_eq!(e.field, "baseTimestamp");
    let e = decode_batch(&bytes[..bytes.len() - 1], 0).unwrap_err();
    assert_eq!(e.field, "batchLength");
}

#[test]
fn an_end_txn_marker_batch_is_laid_out_as_kafka_writes_it() {
    let m = EndTxnMarker {
        control_type: ControlType::Commit,
        coordinator_epoch: 5,
    };
    let b = build_end_txn_marker(7, 1_700_000_000_000, 3, 42, 1, m);
    assert_eq!(b.len(), END_TXN_MARKER_BATCH_SIZE, "61 + 17 bytes");
    let mut want = Vec::new();
    want.extend_from_slice(&7i64.to_be_bytes()); // baseOffset
    want.extend_from_slice(&(78i32 - 12).to_be_bytes()); // batchLength
    want.extend_from_slice(&3i32.to_be_bytes()); // partitionLeaderEpoch
    want.push(2); // magic
    want.extend_from_slice(&[0; 4]); // crc, checked below
    want.extend_from_slice(&0x30i16.to_be_bytes()); // transactional | control
    want.extend_from_slice(&0i32.to_be_bytes()); // lastOffsetDelta
    want.extend_from_slice(&1_700_000_000_000i64.to_be_bytes()); // baseTimestamp
    want.extend_from_slice(&1_700_000_000_000i64.to_be_bytes()); // maxTimestamp
    want.extend_from_slice(&42i64.to_be_bytes()); // producerId
    want.extend_from_slice(&1i16.to_be_bytes()); // producerEpoch
    want.extend_from_slice(&(-1i32).to_be_bytes()); // baseSequence: none
    want.extend_from_slice(&1i32.to_be_bytes()); // one record
                                                 // The record: length 16 (zigzag 32), attributes 0, timestampDelta 0,
                                                 // offsetDelta 0, key length 4 (zigzag 8), key = version 0 + type 1,
                                                 // value length 6 (zigzag 12), value = version 0 + coordinator epoch 5,
                                                 // no headers.
    want.extend_from_slice(&[32, 0, 0, 0, 8, 0, 0, 0, 1, 12, 0, 0, 0, 0, 0, 5, 0]);
    let mut got = b.clone();
    got[CRC_OFFSET..CRC_OFFSET + 4].copy_from_slice(&[0; 4]);
    assert_eq!(got, want);
    let d = decode_batch(&b, 0).unwrap();
    assert!(d.crc_valid());
    assert!(d.header.is_control() && d.header.is_transactional());
    assert_eq!(marker_of(&d), Ok(Some(m)));
    // A data batch is not a marker.
    let data = build_batch(
        &BatchSpec::default(),
        &[NewRecord::new(None, Some(b"v"), 0)],
    );
    assert_eq!(marker_of(&decode_batch(&data, 0).unwrap()), Ok(None));
}

#[test]
fn a_malformed_control_record_is_named_and_other_types_are_not_markers() {
    // `EndTransactionMarker.deserialize` throws for a type that is not a
    // transaction marker; `ControlRecordType.parse` names every type and
    // maps an unknown id to UNKNOWN (Kafka 3.9 `ControlRecordType` lines
    // 88-124, `EndTransactionMarker` lines 96-124).
    let mut r = Record {
        length: 0,
        attributes: 0,
        timestamp_delta: 0,
        offset_delta: 0,
        key: Some(vec![0, 0, 0]),
        value: Some(vec![0, 0, 0, 0, 0, 1]),
        headers: vec![],
    };
    assert!(EndTxnMarker::parse(&r).unwrap_err().contains("4 bytes"));
    assert!(describe_control(&r).contains("4 bytes"));
    r.key = Some(vec![0, 0, 0, 2]); // LEADER_CHANGE (KRaft)
    assert_eq!(
        EndTxnMarker::parse(&r),
        Err("Invalid control record type for end transaction markerLEADER_CHANGE".into())
    );
    assert_eq!(describe_control(&r), "controlType: LEADER_CHANGE(2)");
    r.key = Some(vec![0, 0, 0, 9]);
    assert_eq!(
        ControlRecordType::parse(&r),
        Ok((ControlRecordType::Unknown, 9))
    );
    assert!(EndTxnMarker::parse(&r)
        .unwrap_err()
        .ends_with("markerUNKNOWN"));
    assert_eq!(describe_control(&r), "controlType: UNKNOWN(9)");
    r.key = Some(vec![0, 0, 0, 1]);
    assert_eq!(
        describe_control(&r),
        "endTxnMarker: COMMIT coordinatorEpoch: 1"
    );
    r.key = Some(vec![0, 0, 0, 0]);
    r.value = Some(vec![0, 0, 1]);
    assert!(EndTxnMarker::parse(&r).unwrap_err().contains("6 bytes"));
    r.value = Some(vec![0xff, 0xff, 0, 0, 0, 1]);
    assert!(EndTxnMarker::parse(&r).unwrap_err().contains("negative"));
}

proptest::proptest! {
    /// The span a scan reads from a header's first 27 bytes is the whole
    /// header's last offset and size, and it fails where the header's
    /// checks fail (a corrupt length or magic is tried about half the time).
    #[test]
    fn a_span_is_the_headers_last_offset_and_size(
        mut bytes in proptest::collection::vec(proptest::num::u8::ANY, 61..80),
        length in proptest::prop_oneof![0i32..49, 49i32..100_000],
        magic in proptest::prop_oneof![proptest::strategy::Just(2i8), proptest::num::i8::ANY],
        pos in 0u64..1 << 40,
    ) {
        bytes[LENGTH_OFFSET..LENGTH_OFFSET + 4].copy_from_slice(&length.to_be_bytes());
        bytes[MAGIC_OFFSET] = magic as u8;
        let span = read_header(&bytes, pos)
            .ok()
            .map(|h| (h.last_offset(), h.size_in_bytes()));
        proptest::prop_assert_eq!(read_span(&bytes), span);
        proptest::prop_assert_eq!(read_span(&bytes[..SPAN_BYTES]), span);
        proptest::prop_assert_eq!(read_span(&bytes[..SPAN_BYTES - 1]), None);
    }
}
