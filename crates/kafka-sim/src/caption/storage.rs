//! Captions of the events about retention, compaction and the index lookup,
//! and of each step of a lookup ([`lookup_step`]).

use super::*;

/// The caption of `e` if it is one of this file's events.
pub(super) fn words(e: &EventKind, l: Lang) -> Option<String> {
    use EventKind::*;
    let en = l == Lang::En;
    Some(match e {
        SegmentsDeleted {
            broker,
            tp,
            applied,
        } => {
            let bases: Vec<String> = applied
                .deleted
                .iter()
                .map(|d| d.base_offset.to_string())
                .collect();
            if en {
                format!("Broker {broker} deleted segment(s) {} of {tp} ({}); log start offset is now {}", bases.join(", "), applied.detail, applied.log_start_offset)
            } else {
                format!(
                    "Broker {broker} 删除了 {tp} 的 日志段 {}（{}）；日志起始位移变为 {}",
                    bases.join(", "),
                    applied.detail,
                    applied.log_start_offset
                )
            }
        }
        FilesDeleted { broker, files } => {
            if en {
                format!(
                    "Broker {broker} removed {} .deleted file(s) after file.delete.delay.ms",
                    files.len()
                )
            } else {
                format!(
                    "Broker {broker} 在 file.delete.delay.ms 之后删除了 {} 个 .deleted 文件",
                    files.len()
                )
            }
        }
        LogCleaned { broker, tp, result } => {
            let before: u64 = result.groups.iter().map(|g| g.records_before).sum();
            let after: u64 = result.groups.iter().map(|g| g.records_after).sum();
            if en {
                format!("Broker {broker}'s log cleaner compacted {tp}: {before} records → {after} (latest value per key kept), dirty ratio {}%", result.cleanable.dirty_ratio.0 / 10_000)
            } else {
                format!("Broker {broker} 的 日志清理器 压缩了 {tp}：{before} 条 → {after} 条（每个 key 保留最新值），脏数据比例 {}%", result.cleanable.dirty_ratio.0 / 10_000)
            }
        }
        CleanerSkipped {
            broker,
            tp,
            dirty_ratio_ppm,
            min_ratio_ppm,
        } => {
            if en {
                format!("Broker {broker} left {tp} alone: dirty ratio {}‰ below min.cleanable.dirty.ratio {}‰", dirty_ratio_ppm / 1000, min_ratio_ppm / 1000)
            } else {
                format!(
                    "Broker {broker} 暂不清理 {tp}：脏数据比例 {}‰ 低于 {}‰",
                    dirty_ratio_ppm / 1000,
                    min_ratio_ppm / 1000
                )
            }
        }
        LookupStepped {
            broker,
            tp,
            target,
            step,
        } => {
            if en {
                format!(
                    "Lookup of {target} in broker {broker}'s {tp}: {}",
                    lookup_step(step, l)
                )
            } else {
                format!(
                    "在 broker {broker} 的 {tp} 中查找 {target}：{}",
                    lookup_step(step, l)
                )
            }
        }
        _ => return None,
    })
}

/// One step of a traced lookup, in words.
pub fn lookup_step(s: &LookupStep, l: Lang) -> String {
    match (s, l) {
        (
            LookupStep::SegmentProbe {
                mid,
                base_offset,
                cmp,
                ..
            },
            Lang::En,
        ) => format!(
            "segment search: segment #{mid} starts at offset {base_offset} ({})",
            match cmp {
                1 => "too high, look left",
                -1 => "not above the target, look right",
                _ => "exact match",
            }
        ),
        (
            LookupStep::SegmentProbe {
                mid,
                base_offset,
                cmp,
                ..
            },
            Lang::Zh,
        ) => format!(
            "二分查找日志段：第 {mid} 个日志段的起始位移 为 {base_offset}（{}）",
            match cmp {
                1 => "太大，往左",
                -1 => "不大于目标，往右",
                _ => "正好相等",
            }
        ),
        (
            LookupStep::SegmentTimestampCheck {
                base_offset,
                largest_timestamp,
                matches,
            },
            Lang::En,
        ) => format!(
            "segment {base_offset}: largest timestamp {largest_timestamp} {}",
            if *matches {
                "reaches the target: search here"
            } else {
                "is before the target: next"
            }
        ),
        (
            LookupStep::SegmentTimestampCheck {
                base_offset,
                largest_timestamp,
                matches,
            },
            Lang::Zh,
        ) => format!(
            "日志段 {base_offset}：最大时间戳 {largest_timestamp}{}",
            if *matches {
                "，已达到目标，在此查找"
            } else {
                "，早于目标，看下一个"
            }
        ),
        (
            LookupStep::SegmentChosen {
                base_offset,
                index_entries,
                ..
            },
            Lang::En,
        ) => format!(
            "chose segment {:020} ({index_entries} index entries)",
            base_offset
        ),
        (
            LookupStep::SegmentChosen {
                base_offset,
                index_entries,
                ..
            },
            Lang::Zh,
        ) => format!(
            "选定 日志段 {:020}（索引有 {index_entries} 项）",
            base_offset
        ),
        (LookupStep::IndexProbe { kind, probe }, Lang::En) => format!(
            "{} {} slot {}: {} → {} ({})",
            if *kind == crate::storage::index::IndexKind::Offset {
                ".index"
            } else {
                ".timeindex"
            },
            probe_role(probe.role, Lang::En),
            probe.entry.slot,
            probe.entry.key,
            probe.entry.value,
            match probe.cmp {
                1 => "above the target",
                -1 => "below the target",
                _ => "equal to the target",
            }
        ),
        (LookupStep::IndexProbe { kind, probe }, Lang::Zh) => format!(
            "{} {}查看第 {} 项：{} → {}（{}）",
            if *kind == crate::storage::index::IndexKind::Offset {
                ".index"
            } else {
                ".timeindex"
            },
            probe_role(probe.role, Lang::Zh),
            probe.entry.slot,
            probe.entry.key,
            probe.entry.value,
            match probe.cmp {
                1 => "大于目标",
                -1 => "小于目标",
                _ => "等于目标",
            }
        ),
        (
            LookupStep::IndexResult {
                entry,
                start_position,
                ..
            },
            Lang::En,
        ) => match entry {
            Some(e) => format!(
                "largest entry not above the target: {} → {}; scan from position {start_position}",
                e.key, e.value
            ),
            None => format!("no index entry is small enough: scan from position {start_position}"),
        },
        (
            LookupStep::IndexResult {
                entry,
                start_position,
                ..
            },
            Lang::Zh,
        ) => match entry {
            Some(e) => format!(
                "不大于目标的最大索引项：{} → {}；从位置 {start_position} 开始扫描",
                e.key, e.value
            ),
            None => format!("没有足够小的索引项：从位置 {start_position} 开始扫描"),
        },
        (
            LookupStep::BatchScanned {
                position,
                base_offset,
                last_offset,
                hit,
                ..
            },
            Lang::En,
        ) => format!(
            "scanned batch at position {position}: offsets {base_offset}–{last_offset}{}",
            if *hit { " — found it" } else { "" }
        ),
        (
            LookupStep::BatchScanned {
                position,
                base_offset,
                last_offset,
                hit,
                ..
            },
            Lang::Zh,
        ) => format!(
            "扫描位置 {position} 的批次：位移 {base_offset}–{last_offset}{}",
            if *hit { "，找到了" } else { "" }
        ),
        (
            LookupStep::Found {
                offset, position, ..
            },
            Lang::En,
        ) => format!("found offset {offset} in the batch at position {position}"),
        (
            LookupStep::Found {
                offset, position, ..
            },
            Lang::Zh,
        ) => format!("在位置 {position} 的批次中找到位移 {offset}"),
        (LookupStep::NotFound { reason }, Lang::En) => format!("not found: {reason}"),
        (LookupStep::NotFound { reason }, Lang::Zh) => format!("未找到：{reason}"),
    }
}
