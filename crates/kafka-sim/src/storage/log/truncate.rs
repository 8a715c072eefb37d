//! Truncation: a follower cutting its log back to the offset its leader
//! agrees on (`UnifiedLog.truncateTo`, `LogSegment.truncateTo`), and
//! starting over at a new offset (`truncateFullyAndStartAt`).

use super::*;

impl Log {
    /// `truncateTo(offset)`: removes every record at or above `offset`
    /// (a follower after a leader change, or on restart).
    pub fn truncate_to<S: Storage>(
        &mut self,
        store: &mut S,
        offset: i64,
    ) -> Result<Option<Truncated>, StorageError> {
        if offset >= self.log_end_offset {
            // Nothing to cut, but the epoch cache loses any entry at or past
            // the end (UnifiedLog.truncateTo: a broker that led and set an
            // epoch's start offset, then lost the leadership before
            // appending, must not keep reporting that epoch: its follower
            // fetches would diverge again and again at the same offset).
            let leo = self.log_end_offset;
            self.epochs.retain(|e| e.start_offset < leo);
            return Ok(None);
        }
        let old_leo = self.log_end_offset;
        if self.segments[0].base_offset > offset {
            let bytes = self.size();
            let removed = self.segments.iter().map(|s| s.base_offset).collect();
            self.truncate_fully_and_start_at(store, offset, self.active().created_ms)?;
            return Ok(Some(Truncated {
                to_offset: offset,
                old_log_end_offset: old_leo,
                bytes_removed: bytes,
                segments_removed: removed,
            }));
        }
        let mut bytes_removed = 0;
        let mut segments_removed = Vec::new();
        while self.segments.len() > 1 && self.active().base_offset > offset {
            let s = self.segments.pop().expect("len > 1");
            bytes_removed += s.size;
            segments_removed.push(s.base_offset);
            for f in self.segment_files(store, s.base_offset) {
                store.delete(&f)?;
            }
        }
        let ix = self.segments.len() - 1;
        let position = self.translate_offset(store, ix, offset)?;
        let dir = self.dir.clone();
        let seg = &mut self.segments[ix];
        // Offset index: keep entries below `offset`.
        let keep = {
            let mut probes = Vec::new();
            let slot = index::largest_lower_bound(
                store,
                &index_file(&dir, seg.base_offset),
                IndexKind::Offset,
                seg.base_offset,
                seg.index_entries,
                offset,
                &mut probes,
            )?;
            match slot {
                None => 0,
                Some(s) => {
                    let e = index::read_entry(
                        store,
                        &index_file(&dir, seg.base_offset),
                        IndexKind::Offset,
                        seg.base_offset,
                        s,
                    )?;
                    if e.key == offset {
                        s
                    } else {
                        s + 1
                    }
                }
            }
        };
        store.truncate(
            &index_file(&dir, seg.base_offset),
            keep * index::OFFSET_INDEX_ENTRY_SIZE,
        )?;
        seg.index_entries = keep;
        seg.last_index_offset = if keep == 0 {
            None
        } else {
            Some(
                index::read_entry(
                    store,
                    &index_file(&dir, seg.base_offset),
                    IndexKind::Offset,
                    seg.base_offset,
                    keep - 1,
                )?
                .key,
            )
        };
        // Time index: keep entries whose offset is below `offset`.
        let tfile = time_index_file(&dir, seg.base_offset);
        let mut tkeep = seg.time_index_entries;
        while tkeep > 0 {
            let e = index::read_entry(store, &tfile, IndexKind::Time, seg.base_offset, tkeep - 1)?;
            if e.value < offset {
                break;
            }
            tkeep -= 1;
        }
        store.truncate(&tfile, tkeep * index::TIME_INDEX_ENTRY_SIZE)?;
        seg.time_index_entries = tkeep;
        seg.last_time_entry = if tkeep == 0 {
            (-1, seg.base_offset)
        } else {
            let e = index::read_entry(store, &tfile, IndexKind::Time, seg.base_offset, tkeep - 1)?;
            (e.key, e.value)
        };
        // Transaction index: keep entries whose marker is below `offset`
        // (`TransactionIndex.truncateTo`).
        if seg.txn_index_entries > 0 {
            let file = txn_index_file(&dir, seg.base_offset);
            let bytes = store.read_all(&file)?;
            let kept: Vec<_> = txn_index::decode_txn_index(&bytes)
                .unwrap_or_default()
                .into_iter()
                .take_while(|t| t.last_offset < offset)
                .collect();
            store.truncate(&file, kept.len() as u64 * ABORTED_TXN_SIZE as u64)?;
            seg.txn_index_entries = kept.len() as u64;
            seg.txn_last_offset = kept.last().map(|t| t.last_offset);
        }
        if let Some(pos) = position {
            bytes_removed += seg.size - pos;
            store.truncate(&log_file(&dir, seg.base_offset), pos)?;
            seg.size = pos;
        }
        if seg.size == 0 {
            seg.rolling_based_timestamp = None;
        }
        seg.bytes_since_last_index_entry = 0;
        seg.next_offset = offset.max(seg.base_offset);
        // readLargestTimestamp: rescan what is left.
        let base = seg.base_offset;
        let size = seg.size;
        let (mut max_ts, mut max_off) = (-1i64, -1i64);
        let mut pos = 0;
        while pos < size {
            let h = match self.header_at(store, base, pos) {
                Ok(h) => h,
                Err(_) => break,
            };
            if h.max_timestamp > max_ts {
                max_ts = h.max_timestamp;
                max_off = h.last_offset();
            }
            pos += h.size_in_bytes();
        }
        let seg = &mut self.segments[ix];
        seg.max_timestamp_so_far = max_ts;
        seg.offset_of_max_timestamp = max_off;
        self.log_end_offset = offset;
        self.log_start_offset = self.log_start_offset.min(offset);
        self.first_dirty_offset = self.first_dirty_offset.min(offset);
        self.flushed_offset = self.flushed_offset.min(offset);
        self.epochs.retain(|e| e.start_offset < offset);
        Ok(Some(Truncated {
            to_offset: offset,
            old_log_end_offset: old_leo,
            bytes_removed,
            segments_removed,
        }))
    }

    /// Deletes everything and starts an empty log at `offset`.
    pub fn truncate_fully_and_start_at<S: Storage>(
        &mut self,
        store: &mut S,
        offset: i64,
        now_ms: i64,
    ) -> Result<(), StorageError> {
        for s in std::mem::take(&mut self.segments) {
            for f in self.segment_files(store, s.base_offset) {
                store.delete(&f)?;
            }
        }
        self.create_segment_files(store, offset)?;
        self.segments.push(Segment::new(offset, now_ms));
        self.log_start_offset = offset;
        self.log_end_offset = offset;
        self.first_dirty_offset = offset;
        self.flushed_offset = offset;
        self.epochs.clear();
        Ok(())
    }
}
