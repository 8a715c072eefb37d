//! Closing and recovering a log: the clean-shutdown marker, rebuilding
//! indexes from the `.log` after an unclean stop (`LogLoader`,
//! `LogSegment.recover`), and decoding every batch for the inspector.

use super::*;

impl Log {
    /// A clean shutdown (`LogSegment.close`): the active segment's time index
    /// gets its final entry, as on a roll. Returns it, if one was written.
    pub fn close<S: Storage>(&mut self, store: &mut S) -> Result<Option<(i64, i64)>, StorageError> {
        let last = self.segments.len() - 1;
        let (ts, off) = (
            self.segments[last].max_timestamp_so_far,
            self.segments[last].offset_of_max_timestamp,
        );
        if ts < 0 {
            return Ok(None);
        }
        time_index_maybe_append(store, &self.dir, &mut self.segments[last], ts, off)
    }

    /// Rebuilds a log from the segment files in `dir` (as Kafka's log
    /// recovery does): each `.log` is scanned batch by batch; the indexes are
    /// taken as they are, except a `.txnindex` that fails Kafka's sanity
    /// check, which is rebuilt from the log. A batch that does not decode
    /// ends its segment.
    pub fn recover<S: Storage>(
        store: &mut S,
        tp: TopicPartition,
        dir: &str,
        config: Arc<LogConfig>,
    ) -> Result<Log, String> {
        Self::recover_noting(store, tp, dir, config, &mut Vec::new())
    }

    /// [`Log::recover`], with Kafka's warnings about what it rebuilt
    /// (`LogLoader.loadSegmentFiles`, 3.9 lines 302-344) added to `notes`.
    pub fn recover_noting<S: Storage>(
        store: &mut S,
        tp: TopicPartition,
        dir: &str,
        config: Arc<LogConfig>,
        notes: &mut Vec<String>,
    ) -> Result<Log, String> {
        let mut corrupt_txn_indexes = Vec::new();
        let mut bases: Vec<i64> = store
            .list(&format!("{dir}/"))
            .iter()
            .filter_map(|f| f.strip_suffix(".log"))
            .filter_map(|f| f.rsplit('/').next())
            .filter_map(|n| n.parse().ok())
            .collect();
        bases.sort();
        if bases.is_empty() {
            return Err(format!("{dir}: no .log segment files"));
        }
        let mut segments = Vec::new();
        for base in bases {
            let mut seg = Segment::new(base, 0);
            let size = store.len(&log_file(dir, base)).map_err(|e| e.to_string())?;
            let mut pos = 0;
            let mut buf = [0u8; RECORD_BATCH_OVERHEAD];
            while pos + RECORD_BATCH_OVERHEAD as u64 <= size {
                if store
                    .read_into(&log_file(dir, base), pos, &mut buf)
                    .is_err()
                {
                    break;
                }
                let Ok(h) = record::read_header(&buf, pos) else {
                    break;
                };
                if pos + h.size_in_bytes() > size {
                    break;
                }
                if h.max_timestamp > seg.max_timestamp_so_far {
                    seg.max_timestamp_so_far = h.max_timestamp;
                    seg.offset_of_max_timestamp = h.last_offset();
                }
                if seg.rolling_based_timestamp.is_none() {
                    seg.rolling_based_timestamp = Some(h.max_timestamp);
                }
                seg.next_offset = h.next_offset();
                pos += h.size_in_bytes();
            }
            seg.size = pos;
            sanity_check_indexes(store, dir, &seg)?;
            let ilen = store.len(&index_file(dir, base)).unwrap_or(0);
            seg.index_entries = ilen / index::OFFSET_INDEX_ENTRY_SIZE;
            if seg.index_entries > 0 {
                let e = index::read_entry(
                    store,
                    &index_file(dir, base),
                    IndexKind::Offset,
                    base,
                    seg.index_entries - 1,
                )
                .map_err(|e| e.to_string())?;
                seg.last_index_offset = Some(e.key);
            }
            let tlen = store.len(&time_index_file(dir, base)).unwrap_or(0);
            seg.time_index_entries = tlen / index::TIME_INDEX_ENTRY_SIZE;
            if seg.time_index_entries > 0 {
                let e = index::read_entry(
                    store,
                    &time_index_file(dir, base),
                    IndexKind::Time,
                    base,
                    seg.time_index_entries - 1,
                )
                .map_err(|e| e.to_string())?;
                seg.last_time_entry = (e.key, e.value);
            }
            let txn_file = txn_index_file(dir, base);
            if store.exists(&txn_file) {
                let bytes = store.read_all(&txn_file).map_err(|e| e.to_string())?;
                // `LogSegment.sanityCheck` (3.9 lines 184-195) checks only the
                // transaction index at load.
                if let Some(why) = txn_index::sanity_check(&bytes, base, &txn_file)? {
                    notes.push(format!(
                        "Found a corrupted index file corresponding to log file {} due to {why}}}, recovering segment and rebuilding index files...",
                        log_file(dir, base)
                    ));
                    corrupt_txn_indexes.push(segments.len());
                } else {
                    let entries = txn_index::decode_txn_index(
                        &bytes[..bytes.len() - bytes.len() % ABORTED_TXN_SIZE],
                    )
                    .map_err(|e| format!("{txn_file}: {e}"))?;
                    seg.txn_index_entries = entries.len() as u64;
                    seg.txn_last_offset = entries.last().map(|t| t.last_offset);
                }
            }
            segments.push(seg);
        }
        if !corrupt_txn_indexes.is_empty() {
            rebuild_txn_indexes(store, dir, &mut segments, &corrupt_txn_indexes)?;
        }
        let log_start_offset = segments[0].base_offset;
        let log_end_offset = segments.last().map(|s| s.next_offset).unwrap_or(0);
        Ok(Log {
            tp,
            dir: dir.to_string(),
            config,
            segments,
            log_start_offset,
            log_end_offset,
            epochs: Vec::new(),
            first_dirty_offset: log_start_offset,
            pending_deletes: Vec::new(),
            flushed_offset: log_end_offset,
        })
    }

    /// Every batch in the log, decoded (for the inspector and tests).
    pub fn decode_all<S: Storage>(
        &self,
        store: &S,
    ) -> Result<Vec<record::DecodedBatch>, DecodeError> {
        let mut out = Vec::new();
        for s in &self.segments {
            let bytes = store
                .read_all(&log_file(&self.dir, s.base_offset))
                .map_err(|e| DecodeError {
                    position: 0,
                    field: "log file",
                    message: e.to_string(),
                })?;
            let mut pos = 0usize;
            while pos < bytes.len() {
                let b = record::decode_batch(&bytes[pos..], pos as u64)?;
                pos += b.header.size_in_bytes() as usize;
                out.push(b);
            }
        }
        Ok(out)
    }
}

/// Rebuilds the `.txnindex` of the segments at `which` from the log, as
/// `LogSegment.recover` does (3.9 lines 469-505): every batch from the log
/// start goes through the producer state, and each aborted transaction whose
/// marker lies in one of those segments is indexed there, with the last
/// stable offset after it.
fn rebuild_txn_indexes<S: Storage>(
    store: &mut S,
    dir: &str,
    segments: &mut [Segment],
    which: &[usize],
) -> Result<(), String> {
    let mut states = crate::producer_state::ProducerStates::default();
    for (i, seg) in segments.iter_mut().enumerate() {
        let rebuild = which.contains(&i);
        if rebuild {
            store
                .delete(&txn_index_file(dir, seg.base_offset))
                .map_err(|e| e.to_string())?;
            seg.txn_index_entries = 0;
            seg.txn_last_offset = None;
        }
        let bytes = store
            .read_all(&log_file(dir, seg.base_offset))
            .map_err(|e| e.to_string())?;
        let mut pos = 0usize;
        while (pos as u64) < seg.size {
            let b = record::decode_batch(&bytes[pos..], pos as u64).map_err(|e| e.to_string())?;
            pos += b.header.size_in_bytes() as usize;
            let mut info = BatchInfo::from_header(&b.header);
            info.marker = record::marker_of(&b)?;
            let Some(c) = states.record(&info) else {
                continue;
            };
            if rebuild && c.aborted {
                seg.append_aborted_txn(store, dir, states.aborted_txn_entry(&c))?;
            }
            states.complete_txn(&c);
        }
    }
    Ok(())
}

/// Kafka's index sanity checks (`OffsetIndex.sanityCheck`,
/// `TimeIndex.sanityCheck`, and the entry order `AbstractIndex` relies on),
/// run when a log is recovered from files: a file whose length is not a whole
/// number of entries, an offset index whose offsets do not increase or whose
/// positions go backwards or past the end of the `.log`, or a time index
/// whose timestamps go backwards or whose offsets fall outside the segment,
/// is corrupt. Kafka then deletes the index and rebuilds it from the log;
/// here the message names the file and the entry, and the lookup stops
/// instead of trusting it.
fn sanity_check_indexes<S: Storage>(store: &S, dir: &str, seg: &Segment) -> Result<(), String> {
    let base = seg.base_offset;
    for (kind, file) in [
        (IndexKind::Offset, index_file(dir, base)),
        (IndexKind::Time, time_index_file(dir, base)),
    ] {
        let len = store.len(&file).unwrap_or(0);
        if len == 0 {
            continue;
        }
        let mut bytes = vec![0u8; len as usize];
        store
            .read_into(&file, 0, &mut bytes)
            .map_err(|e| format!("{file}: cannot read: {e}"))?;
        let corrupt = |why: String| {
            format!(
                "{file}: corrupt index ({why}); Kafka would delete it and rebuild it from the .log"
            )
        };
        let entries = index::decode_index(kind, base, &bytes).map_err(|e| corrupt(e.message))?;
        let mut prev: Option<&index::IndexEntry> = None;
        for (i, e) in entries.iter().enumerate() {
            match kind {
                IndexKind::Offset => {
                    if e.key < base || e.key >= seg.next_offset.max(base + 1) {
                        return Err(corrupt(format!(
                            "entry {i} names offset {}, outside the segment's offsets {base}..{}",
                            e.key, seg.next_offset
                        )));
                    }
                    if e.value < 0 || e.value as u64 >= seg.size.max(1) {
                        return Err(corrupt(format!(
                            "entry {i} points at position {}, outside the {}-byte .log",
                            e.value, seg.size
                        )));
                    }
                    if let Some(p) = prev {
                        if e.key <= p.key || e.value < p.value {
                            return Err(corrupt(format!(
                                "entry {i} (offset {}, position {}) does not follow entry {} (offset {}, position {})",
                                e.key,
                                e.value,
                                i - 1,
                                p.key,
                                p.value
                            )));
                        }
                    }
                }
                IndexKind::Time => {
                    if e.value < base || e.value > seg.next_offset {
                        return Err(corrupt(format!(
                            "entry {i} names offset {}, outside the segment's offsets {base}..{}",
                            e.value, seg.next_offset
                        )));
                    }
                    if let Some(p) = prev {
                        if e.key < p.key || e.value < p.value {
                            return Err(corrupt(format!(
                                "entry {i} (timestamp {}, offset {}) goes back from entry {} (timestamp {}, offset {})",
                                e.key,
                                e.value,
                                i - 1,
                                p.key,
                                p.value
                            )));
                        }
                    }
                }
            }
            prev = Some(e);
        }
    }
    Ok(())
}
