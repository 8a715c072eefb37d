//! Finding an offset or a timestamp: the segment by binary search over
//! base offsets, then the sparse `.index` / `.timeindex`, then a scan of
//! the `.log` from that position (`LogSegment.translateOffset`,
//! `OffsetIndex.lookup`, `TimeIndex.lookup`), step by step for the page.

use super::*;

/// One step of a traced lookup (S3, S4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum LookupStep {
    /// Binary search over the segments' base offsets (Kafka keeps them in a
    /// skip-list map and asks for the floor entry: the same answer).
    SegmentProbe {
        lo: u32,
        hi: u32,
        mid: u32,
        base_offset: i64,
        cmp: i8,
    },
    /// Timestamp lookups take the first segment whose largest timestamp is ≥ the target.
    SegmentTimestampCheck {
        base_offset: i64,
        largest_timestamp: i64,
        matches: bool,
    },
    SegmentChosen {
        base_offset: i64,
        index_entries: u64,
        time_index_entries: u64,
        size: u64,
    },
    IndexProbe {
        kind: IndexKind,
        probe: Probe,
    },
    /// The index search's answer: the entry used, or none (start of the file).
    IndexResult {
        kind: IndexKind,
        entry: Option<IndexEntry>,
        /// Where the scan of `.log` starts.
        start_position: u64,
    },
    BatchScanned {
        position: u64,
        base_offset: i64,
        last_offset: i64,
        size: u64,
        max_timestamp: i64,
        /// The target is in this batch (or, for a timestamp, a record at or after it).
        hit: bool,
    },
    Found {
        offset: i64,
        position: u64,
        batch_base_offset: i64,
        batch_last_offset: i64,
        timestamp: Option<i64>,
    },
    NotFound {
        reason: String,
    },
}

/// What a lookup found, plus every step it took.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lookup {
    pub steps: Vec<LookupStep>,
    /// `(offset, position of its batch)`.
    pub result: Option<(i64, u64)>,
}

impl Lookup {
    /// A lookup that ends without a record: its steps, then why.
    fn not_found(mut steps: Vec<LookupStep>, reason: String) -> Lookup {
        steps.push(LookupStep::NotFound { reason });
        Lookup {
            steps,
            result: None,
        }
    }
}

impl Log {
    pub(super) fn segment_search_traced(
        &self,
        target: i64,
        steps: &mut Vec<LookupStep>,
    ) -> Option<usize> {
        let n = self.segments.len();
        if self.segments[0].base_offset > target {
            steps.push(LookupStep::SegmentProbe {
                lo: 0,
                hi: n as u32 - 1,
                mid: 0,
                base_offset: self.segments[0].base_offset,
                cmp: 1,
            });
            return None;
        }
        let (mut lo, mut hi) = (0usize, n - 1);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            let b = self.segments[mid].base_offset;
            let c = match b.cmp(&target) {
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => 1,
            };
            steps.push(LookupStep::SegmentProbe {
                lo: lo as u32,
                hi: hi as u32,
                mid: mid as u32,
                base_offset: b,
                cmp: c,
            });
            match c {
                1 => hi = mid - 1,
                -1 => lo = mid,
                _ => {
                    lo = mid;
                    break;
                }
            }
        }
        Some(lo)
    }

    pub(super) fn chosen(&self, ix: usize) -> LookupStep {
        let s = &self.segments[ix];
        LookupStep::SegmentChosen {
            base_offset: s.base_offset,
            index_entries: s.index_entries,
            time_index_entries: s.time_index_entries,
            size: s.size,
        }
    }

    /// S3, step by step: find the segment by base offset, binary-search its
    /// `.index` for the largest entry ≤ `target`, then scan `.log` forward
    /// batch by batch until the batch holding `target` (or the next surviving
    /// offset, in a compacted log).
    pub fn lookup_offset<S: Storage>(&self, store: &S, target: i64) -> Lookup {
        let mut steps = Vec::new();
        if target == self.log_end_offset && target >= self.log_start_offset {
            // Kafka reads nothing there and answers without an error (a
            // fetch at the log end offset waits for new records); only past
            // it is the offset out of range.
            return Lookup::not_found(steps, format!(
                    "offset {target} is the log end offset: no record is there yet, so a fetch from it returns no records and no error"
                ));
        }
        if target < self.log_start_offset || target > self.log_end_offset {
            return Lookup::not_found(
                steps,
                format!(
                    "offset {target} is outside the log [{}, {}) (OFFSET_OUT_OF_RANGE)",
                    self.log_start_offset, self.log_end_offset
                ),
            );
        }
        let Some(mut ix) = self.segment_search_traced(target, &mut steps) else {
            return Lookup::not_found(steps, format!("offset {target} is below the first segment"));
        };
        steps.push(self.chosen(ix));
        let mut from_index = true;
        loop {
            let seg = &self.segments[ix];
            let mut start = 0u64;
            if from_index {
                let mut probes = Vec::new();
                let ifile = index_file(&self.dir, seg.base_offset);
                let slot = index::largest_lower_bound(
                    store,
                    &ifile,
                    IndexKind::Offset,
                    seg.base_offset,
                    seg.index_entries,
                    target,
                    &mut probes,
                )
                .ok()
                .flatten();
                steps.extend(probes.into_iter().map(|probe| LookupStep::IndexProbe {
                    kind: IndexKind::Offset,
                    probe,
                }));
                let entry = slot.and_then(|s| {
                    index::read_entry(store, &ifile, IndexKind::Offset, seg.base_offset, s).ok()
                });
                start = entry.map(|e| e.value as u64).unwrap_or(0);
                steps.push(LookupStep::IndexResult {
                    kind: IndexKind::Offset,
                    entry,
                    start_position: start,
                });
            }
            from_index = false;
            let mut pos = start;
            while pos < seg.size {
                let Ok(h) = self.header_at(store, seg.base_offset, pos) else {
                    return Lookup::not_found(steps, format!("unreadable batch at position {pos}"));
                };
                // Compaction can empty the tail of a batch (it keeps the batch's
                // last offset), so a batch "reaching" the target may hold no
                // record at or after it: then the scan goes on.
                let first = if h.last_offset() >= target {
                    self.first_offset_at_or_after(store, seg.base_offset, pos, target)
                } else {
                    None
                };
                let hit = first.is_some();
                steps.push(LookupStep::BatchScanned {
                    position: pos,
                    base_offset: h.base_offset,
                    last_offset: h.last_offset(),
                    size: h.size_in_bytes(),
                    max_timestamp: h.max_timestamp,
                    hit,
                });
                if let Some(found) = first {
                    steps.push(LookupStep::Found {
                        offset: found,
                        position: pos,
                        batch_base_offset: h.base_offset,
                        batch_last_offset: h.last_offset(),
                        timestamp: None,
                    });
                    return Lookup {
                        steps,
                        result: Some((found, pos)),
                    };
                }
                pos += h.size_in_bytes();
            }
            ix += 1;
            if ix >= self.segments.len() {
                return Lookup::not_found(steps, format!("no record at or after offset {target}"));
            }
            steps.push(self.chosen(ix));
        }
    }

    /// The first record offset ≥ `target` in the batch at `pos` (compaction
    /// leaves gaps, so it may be larger than `target`).
    pub(super) fn first_offset_at_or_after<S: Storage>(
        &self,
        store: &S,
        base: i64,
        pos: u64,
        target: i64,
    ) -> Option<i64> {
        let h = self.header_at(store, base, pos).ok()?;
        let bytes = store
            .read(&log_file(&self.dir, base), pos, h.size_in_bytes())
            .ok()?;
        let b = record::decode_batch(&bytes, pos).ok()?;
        b.records
            .iter()
            .map(|r| b.offset_of(r))
            .find(|o| *o >= target)
    }

    /// S4, step by step (`fetchOffsetByTimestamp`): the first segment whose
    /// largest timestamp is ≥ `target`; its `.timeindex` for the largest entry
    /// ≤ `target`; `.index` for that entry's offset; then scan `.log` for the
    /// first record with a timestamp ≥ `target`.
    pub fn lookup_timestamp<S: Storage>(&self, store: &S, target: i64) -> Lookup {
        let mut steps = Vec::new();
        let mut ix = None;
        for (i, s) in self.segments.iter().enumerate() {
            let m = s.largest_timestamp() >= target && s.size > 0;
            steps.push(LookupStep::SegmentTimestampCheck {
                base_offset: s.base_offset,
                largest_timestamp: s.largest_timestamp(),
                matches: m,
            });
            if m {
                ix = Some(i);
                break;
            }
        }
        let Some(ix) = ix else {
            return Lookup::not_found(
                steps,
                format!("no segment holds a timestamp at or after {target}"),
            );
        };
        steps.push(self.chosen(ix));
        let seg = &self.segments[ix];
        let tfile = time_index_file(&self.dir, seg.base_offset);
        let mut probes = Vec::new();
        let tslot = index::largest_lower_bound(
            store,
            &tfile,
            IndexKind::Time,
            seg.base_offset,
            seg.time_index_entries,
            target,
            &mut probes,
        )
        .ok()
        .flatten();
        steps.extend(probes.into_iter().map(|probe| LookupStep::IndexProbe {
            kind: IndexKind::Time,
            probe,
        }));
        let tentry = tslot.and_then(|s| {
            index::read_entry(store, &tfile, IndexKind::Time, seg.base_offset, s).ok()
        });
        let from_offset = tentry
            .map(|e| e.value)
            .unwrap_or(seg.base_offset)
            .max(self.log_start_offset);
        steps.push(LookupStep::IndexResult {
            kind: IndexKind::Time,
            entry: tentry,
            start_position: 0,
        });
        let ifile = index_file(&self.dir, seg.base_offset);
        let mut probes = Vec::new();
        let slot = index::largest_lower_bound(
            store,
            &ifile,
            IndexKind::Offset,
            seg.base_offset,
            seg.index_entries,
            from_offset,
            &mut probes,
        )
        .ok()
        .flatten();
        steps.extend(probes.into_iter().map(|probe| LookupStep::IndexProbe {
            kind: IndexKind::Offset,
            probe,
        }));
        let entry = slot.and_then(|s| {
            index::read_entry(store, &ifile, IndexKind::Offset, seg.base_offset, s).ok()
        });
        let mut pos = entry.map(|e| e.value as u64).unwrap_or(0);
        steps.push(LookupStep::IndexResult {
            kind: IndexKind::Offset,
            entry,
            start_position: pos,
        });
        while pos < seg.size {
            let Ok(h) = self.header_at(store, seg.base_offset, pos) else {
                break;
            };
            let mut hit = None;
            if h.max_timestamp >= target {
                if let Ok(bytes) = store.read(
                    &log_file(&self.dir, seg.base_offset),
                    pos,
                    h.size_in_bytes(),
                ) {
                    if let Ok(b) = record::decode_batch(&bytes, pos) {
                        hit = b
                            .records
                            .iter()
                            .map(|r| (b.offset_of(r), b.timestamp_of(r)))
                            .find(|(o, t)| *t >= target && *o >= from_offset);
                    }
                }
            }
            steps.push(LookupStep::BatchScanned {
                position: pos,
                base_offset: h.base_offset,
                last_offset: h.last_offset(),
                size: h.size_in_bytes(),
                max_timestamp: h.max_timestamp,
                hit: hit.is_some(),
            });
            if let Some((o, t)) = hit {
                steps.push(LookupStep::Found {
                    offset: o,
                    position: pos,
                    batch_base_offset: h.base_offset,
                    batch_last_offset: h.last_offset(),
                    timestamp: Some(t),
                });
                return Lookup {
                    steps,
                    result: Some((o, pos)),
                };
            }
            pos += h.size_in_bytes();
        }
        Lookup::not_found(
            steps,
            format!("no record with a timestamp at or after {target}"),
        )
    }
}
