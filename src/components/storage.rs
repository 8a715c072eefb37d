//! The storage inspector: one partition directory on one broker, its segment
//! files (with their pages in the paged store, and a download of each), the
//! record batches of `.log` and the entries of `.index` / `.timeindex`.

use crate::i18n::{t, Lang};
use crate::model::inspect::StorageModel;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct StorageProps {
    pub model: Rc<StorageModel>,
    pub lang: Lang,
    /// A partition was chosen (its key).
    pub on_select: Callback<String>,
    /// Download (broker, file path).
    pub on_download: Callback<(i32, String)>,
    /// Show a batch (segment, position) in hex.
    pub on_batch: Callback<(i64, u64)>,
    /// Run a lookup on this copy: (broker, topic, partition, offset, timestamp).
    pub on_lookup: Callback<LookupRequest>,
    pub on_seek: Callback<u64>,
}

/// A lookup the learner asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct LookupRequest {
    pub broker: i32,
    pub topic: String,
    pub partition: i32,
    /// By timestamp (`.timeindex`) rather than offset.
    pub by_time: bool,
    /// What was typed (checked by the app).
    pub text: String,
}

/// Colours cycle over fields (class `f0`…`f5`), so neighbours differ.
fn field_class(i: usize, record: Option<u32>) -> String {
    match record {
        None => format!("hf h{}", i % 6),
        Some(_) => format!("hf r{}", i % 6),
    }
}

/// A decoded field's value in `lang`: the engine explains `crc` and
/// `attributes` in English; record data (keys, values, headers) is shown as
/// it is.
fn hex_value(name: &str, v: &str, lang: Lang) -> String {
    if lang == Lang::En || !matches!(name, "crc" | "attributes") {
        return v.to_string();
    }
    [
        (
            "CRC-32C of attributes…end: valid",
            "attributes…末尾的 CRC-32C：有效",
        ),
        (
            "CRC-32C of attributes…end: INVALID",
            "attributes…末尾的 CRC-32C：无效",
        ),
        ("(compression ", "(压缩 "),
        (", transactional", "，事务"),
        (", control", "，控制批次"),
    ]
    .iter()
    .fold(v.to_string(), |acc, (en, zh)| acc.replace(en, zh))
}

fn hex_block(h: &crate::model::inspect::HexView, lang: Lang) -> Html {
    let rows = h.bytes.len().div_ceil(16);
    html! {
        <div class="hex" id="storage-hex">
            <h3>{ format!("{} · {} {} · {} {} · {} {}", t(lang, "hex_view"), t(lang, "segment"), h.segment, t(lang, "position"), h.position, h.size, t(lang, "bytes")) }</h3>
            <div class="hex-wrap">
                <pre class="hex-bytes mono" aria-label={t(lang, "hex_view")}>
                    { for (0..rows).map(|r| html! {
                        <div class="hex-row">
                            <span class="hex-off">{ format!("{:06x} ", h.position as usize + r * 16) }</span>
                            { for (r * 16..(r * 16 + 16).min(h.bytes.len())).map(|i| {
                                let f = &h.fields[h.field_of[i]];
                                html! { <span class={field_class(h.field_of[i], f.record)} title={format!("{} = {}", f.name, hex_value(f.name, &f.value, lang))}>{ format!("{:02x} ", h.bytes[i]) }</span> }
                            }) }
                        </div>
                    }) }
                    if h.size > h.bytes.len() {
                        <div class="hex-row">{ format!("… {} {}", h.size - h.bytes.len(), t(lang, "more_bytes")) }</div>
                    }
                </pre>
                <table class="grid hex-fields" id="storage-fields">
                    <thead><tr><th>{ t(lang, "bytes") }</th><th>{ t(lang, "field") }</th><th>{ t(lang, "value") }</th></tr></thead>
                    <tbody>
                    { for h.fields.iter().enumerate().map(|(i, f)| html! {
                        <tr>
                            <td class="num mono">{ format!("{}–{}", f.start, f.start + f.len - 1) }</td>
                            <td class={classes!("mono", field_class(i, f.record))}>{ match f.record {
                                None => f.name.to_string(),
                                Some(r) => format!("record[{r}].{}", f.name),
                            } }</td>
                            <td class="mono">{ hex_value(f.name, &f.value, lang) }</td>
                        </tr>
                    }) }
                    </tbody>
                </table>
            </div>
        </div>
    }
}

#[component]
pub fn StorageView(p: &StorageProps) -> Html {
    let lang = p.lang;
    let m = &p.model;
    let on_change = {
        let cb = p.on_select.clone();
        Callback::from(move |e: Event| {
            let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
            cb.emit(s.value());
        })
    };
    let mark = m
        .lookup
        .as_ref()
        .filter(|l| l.active)
        .map(|l| l.mark.clone())
        .unwrap_or_default();
    let selected_key = m
        .selected
        .as_ref()
        .map(|s| crate::model::inspect::storage_key(s.broker, &s.dir));
    html! {
        <div class="inspector" id="storage">
            <label class="pick">
                { t(lang, "partition_dir") }{" "}
                <select id="storage-partition" onchange={on_change}>
                    { for m.choices.iter().map(|(k, label)| html! {
                        <option value={k.clone()} selected={Some(k) == selected_key.as_ref()}>{ label.clone() }</option>
                    }) }
                </select>
            </label>
            if let Some(s) = &m.selected {
                <p class="facts">
                    { format!("{}: {} · {} {} · LEO {} · HW {} · cleanup.policy={}",
                        t(lang, "dir"), s.dir, t(lang, "log_start"), s.log_start, s.log_end,
                        s.high_watermark.map(|h| h.to_string()).unwrap_or_else(|| "–".into()), s.cleanup) }
                </p>
                { lookup_block(p, s) }
                <h3>{ t(lang, "files") }</h3>
                <div class="table-scroll">
                    <table class="grid" id="storage-files">
                        <thead><tr><th>{ t(lang, "file") }</th><th>{ t(lang, "bytes") }</th><th>{ t(lang, "pages") }</th><th></th></tr></thead>
                        <tbody>
                        { for s.files.iter().map(|f| {
                            let cb = p.on_download.clone();
                            let arg = (s.broker, f.path.clone());
                            let name = f.path.rsplit('/').next().unwrap_or(&f.path).to_string();
                            let probed = mark.segment.is_some_and(|seg| name.starts_with(&format!("{seg:020}.")));
                            html! {
                                <tr class={classes!(probed.then_some("probed"))}>
                                    <td class="mono">{ f.path.clone() }</td>
                                    <td class="num">{ f.bytes }</td>
                                    <td class="num">{ f.pages }</td>
                                    <td><button class="small download" data-file={f.path.clone()}
                                        aria-label={format!("{} {name}", t(lang, "download"))}
                                        onclick={Callback::from(move |_: MouseEvent| cb.emit(arg.clone()))}>{ t(lang, "download") }</button></td>
                                </tr>
                            }
                        }) }
                        </tbody>
                    </table>
                </div>
                <h3>{ format!("{} ({})", t(lang, "batches"), s.batches_total) }</h3>
                <div class="table-scroll">
                    <table class="grid" id="storage-batches">
                        <thead><tr>
                            <th>{ t(lang, "segment") }</th><th>{ t(lang, "position") }</th><th><code>{"baseOffset"}</code></th><th><code>{"lastOffset"}</code></th>
                            <th>{ t(lang, "records") }</th><th>{ t(lang, "count") }</th><th>{ t(lang, "size") }</th><th><code>{"leaderEpoch"}</code></th><th><code>{"producerId"}</code></th><th>{"CRC"}</th>
                        </tr></thead>
                        <tbody>
                        { for s.batches.iter().map(|b| {
                            let cb = p.on_batch.clone();
                            let at = (b.segment, b.position);
                            let shown = m.hex.as_ref().is_some_and(|h| (h.segment, h.position) == at);
                            html! {
                            <tr class={classes!((!b.crc_ok).then_some("bad"), (mark.batch == Some(at)).then_some("probed"), shown.then_some("shown"), b.control.then_some("marker"))}>
                                <td class="num">{ b.segment }</td>
                                <td class="num"><button class="small link" aria-label={format!("{} {}", t(lang, "show_hex"), b.position)}
                                    onclick={Callback::from(move |_: MouseEvent| cb.emit(at))}>{ b.position }</button></td>
                                <td class="num">{ b.base_offset }</td><td class="num">{ b.last_offset }</td>
                                <td class="mono preview">
                                    if b.control {
                                        <span class="tag">{ t(lang, "control_batch") }</span>{" "}
                                    } else if b.transactional {
                                        <span class="tag">{ t(lang, "transactional_batch") }</span>{" "}
                                    }
                                    { b.preview.clone() }
                                </td>
                                <td class="num">{ b.records }</td><td class="num">{ b.size }</td>
                                <td class="num">{ b.leader_epoch }</td><td class="num">{ b.producer_id }</td>
                                <td>{ t(lang, if b.crc_ok { "crc_valid" } else { "crc_invalid" }) }</td>
                            </tr>
                        } }) }
                        </tbody>
                    </table>
                </div>
                if !s.txn_index.is_empty() {
                    <h3>{ t(lang, "txn_index_entries") }</h3>
                    <div class="table-scroll">
                        <table class="grid" id="storage-txnindex">
                            <thead><tr>
                                <th>{ t(lang, "segment") }</th><th><code>{"producerId"}</code></th><th><code>{"firstOffset"}</code></th>
                                <th><code>{"lastOffset"}</code></th><th><code>{"lastStableOffset"}</code></th>
                            </tr></thead>
                            <tbody>
                            { for s.txn_index.iter().map(|a| html! {
                                <tr>
                                    <td class="num">{ a.segment }</td><td class="num">{ a.producer_id }</td>
                                    <td class="num">{ a.first_offset }</td><td class="num">{ a.last_offset }</td>
                                    <td class="num">{ a.last_stable_offset }</td>
                                </tr>
                            }) }
                            </tbody>
                        </table>
                    </div>
                }
                <h3>{ t(lang, "index_entries") }</h3>
                <div class="table-scroll">
                    <table class="grid" id="storage-index">
                        <thead><tr><th>{ t(lang, "segment") }</th><th>{ t(lang, "file") }</th><th>{ t(lang, "slot") }</th><th>{ t(lang, "entry") }</th></tr></thead>
                        <tbody>
                        { for s.index.iter().map(|e| html! {
                            <tr class={classes!((mark.index == Some((e.segment, e.time, e.slot))).then_some("probed"))}>
                                <td class="num">{ e.segment }</td>
                                <td>{ if e.time { ".timeindex" } else { ".index" } }</td>
                                <td class="num">{ e.slot }</td>
                                <td class="mono">{ if e.time {
                                    format!("{} {} → {} {}", t(lang, "timestamp"), e.key, t(lang, "offset"), e.value)
                                } else {
                                    format!("{} {} → {} {}", t(lang, "offset"), e.key, t(lang, "position"), e.value)
                                } }</td>
                            </tr>
                        }) }
                        </tbody>
                    </table>
                </div>
                if let Some(h) = &m.hex {
                    { hex_block(h, lang) }
                }
            } else {
                <p class="facts">{ t(lang, "no_logs") }</p>
            }
        </div>
    }
}

fn lookup_block(p: &StorageProps, s: &crate::model::inspect::PartitionFiles) -> Html {
    let lang = p.lang;
    // The metadata log is read by the Raft client, not looked up by a
    // consumer's offset: say what its records are instead.
    if s.metadata {
        return html! { <p class="hint" id="metadata-log-note">{ t(lang, "metadata_log_note") }</p> };
    }
    let submit = {
        let cb = p.on_lookup.clone();
        let (broker, topic, partition) = (s.broker, s.topic.clone(), s.partition);
        Callback::from(move |e: SubmitEvent| {
            use wasm_bindgen::JsCast;
            e.prevent_default();
            let form: web_sys::Element = e.target_unchecked_into();
            let get = |sel: &str| form.query_selector(sel).ok().flatten();
            let by_time = get("select")
                .and_then(|el| el.dyn_into::<web_sys::HtmlSelectElement>().ok())
                .is_some_and(|s| s.value() == "timestamp");
            let text = get("input")
                .and_then(|el| el.dyn_into::<web_sys::HtmlInputElement>().ok())
                .map(|i| i.value())
                .unwrap_or_default();
            cb.emit(LookupRequest {
                broker,
                topic: topic.clone(),
                partition,
                by_time,
                text,
            });
        })
    };
    html! {
        <>
            <form class="lookup-form" id="lookup-form" onsubmit={submit}>
                <label>{ t(lang, "lookup_by") }{" "}
                    <select name="lookup-by" id="lookup-by">
                        <option value="offset" selected=true>{ t(lang, "offset") }</option>
                        <option value="timestamp">{ t(lang, "timestamp") }</option>
                    </select>
                </label>
                <input name="lookup-value" id="lookup-value" type="text" inputmode="numeric" size="14" value={s.log_start.to_string()} aria-label={t(lang, "lookup_value")} />
                <button type="submit" id="btn-lookup">{ t(lang, "lookup_run") }</button>
                <span class="small-note">{ t(lang, "lookup_hint") }</span>
            </form>
            if let Some(l) = &p.model.lookup {
                { lookup_picture(&l.picture, l.target.starts_with("timestamp"), s, lang) }
                <div class={classes!("lookup", l.active.then_some("active"))} id="storage-lookup" aria-live="polite">
                    <strong>{ format!("{} {}", t(lang, "lookup_of"), l.target) }</strong>
                    <ol>
                        { for l.lines.iter().map(|x| {
                            let cb = p.on_seek.clone();
                            let id = x.event;
                            html! {
                                <li class={classes!(x.current.then_some("now"))}>
                                    <button class="small link" aria-label={format!("{} #{id}", t(lang, "seek_to"))}
                                        onclick={Callback::from(move |_: MouseEvent| cb.emit(id))}>{ format!("#{id}") }</button>
                                    {" "}{ x.text.clone() }
                                </li>
                            }
                        }) }
                    </ol>
                </div>
            }
        </>
    }
}

/// The lookup drawn: the segments as a strip with their base offsets (the
/// binary search's low, high and middle), the chosen segment's index as an
/// array (its probes), then its `.log`'s batches (the scan from the found
/// position). Each row appears once the lookup reaches it.
fn lookup_picture(
    pic: &crate::model::inspect::LookupPicture,
    by_time: bool,
    s: &crate::model::inspect::PartitionFiles,
    lang: Lang,
) -> Html {
    const W: i32 = 800;
    let segments: Vec<i64> = s
        .files
        .iter()
        .filter_map(|f| {
            f.path
                .rsplit('/')
                .next()?
                .strip_suffix(".log")?
                .parse()
                .ok()
        })
        .collect();
    let cells = |n: usize, max_w: i32| (W / n.max(1) as i32).min(max_w);
    let box_text = |x: i32,
                    y: i32,
                    w: i32,
                    h: i32,
                    class: String,
                    lines: Vec<String>,
                    data: String| {
        html! {
            <g class={class} data-at={data}>
                <rect x={x.to_string()} y={y.to_string()} width={(w - 4).max(4).to_string()} height={h.to_string()} rx="4" />
                { for lines.iter().enumerate().map(|(i, l)| html! {
                    <text x={(x + (w - 4) / 2).to_string()} y={(y + 19 + i as i32 * 18).to_string()}>{ l.clone() }</text>
                }) }
            </g>
        }
    };
    let range_class = |i: u64, range: Option<(u64, u64, u64)>, chosen: bool, base: &str| {
        let mut c = vec![base.to_string()];
        if let Some((lo, hi, mid)) = range {
            if lo <= i && i <= hi {
                c.push("in-range".into());
            }
            if i == mid {
                c.push("mid".into());
            }
        }
        if chosen {
            c.push("chosen".into());
        }
        c.join(" ")
    };
    let seg_w = cells(segments.len(), 160);
    // The search's range and middle until it settles; then the answer only.
    let seg_range = pic
        .segment_probe
        .filter(|_| pic.segment.is_none())
        .map(|(lo, hi, mid)| (lo as u64, hi as u64, mid as u64));
    let mut y = 0;
    let mut rows = Vec::new();
    rows.push(html! {
        <text class="row-title" x="0" y="16">{ t(lang, "lookup_pic_segments") }</text>
    });
    for (i, base) in segments.iter().enumerate() {
        rows.push(box_text(
            i as i32 * seg_w,
            24,
            seg_w,
            30,
            range_class(i as u64, seg_range, pic.segment == Some(*base), "seg"),
            vec![format!("{base}")],
            base.to_string(),
        ));
    }
    y += 64;
    let seg = pic.segment;
    if let Some(seg) = seg {
        // A lookup by time searches the .timeindex first.
        let time = pic
            .index_probe
            .map(|p| p.0)
            .or(pic.index_result.map(|r| r.0))
            .unwrap_or(by_time);
        let entries: Vec<&crate::model::inspect::IndexRow> = s
            .index
            .iter()
            .filter(|e| e.segment == seg && e.time == time)
            .collect();
        let w = cells(entries.len(), 150);
        let range = pic
            .index_probe
            .filter(|_| pic.index_result.is_none())
            .map(|(_, lo, hi, mid, _)| (lo, hi, mid));
        let result = pic.index_result.and_then(|r| r.1);
        let file = if time { ".timeindex" } else { ".index" };
        rows.push(html! {
            <text class="row-title" x="0" y={(y + 16).to_string()}>{ format!("{} {seg:020}{file}", t(lang, "lookup_pic_index")) }</text>
        });
        if entries.is_empty() {
            rows.push(html! { <text class="note" x="0" y={(y + 44).to_string()}>{ t(lang, "lookup_pic_no_entries") }</text> });
        }
        for (i, e) in entries.iter().enumerate() {
            let label = if time {
                format!("{}→{}", e.key, e.value)
            } else {
                format!("{} → {}", e.key, e.value)
            };
            rows.push(box_text(
                i as i32 * w,
                y + 24,
                w,
                30,
                range_class(e.slot, range, result == Some(e.slot), "entry"),
                vec![label],
                e.slot.to_string(),
            ));
        }
        y += 64;
        if let Some(from) = pic.scan_from {
            let batches: Vec<&crate::model::inspect::BatchRow> =
                s.batches.iter().filter(|b| b.segment == seg).collect();
            let w = cells(batches.len(), 150);
            rows.push(html! {
                <text class="row-title" x="0" y={(y + 16).to_string()}>{ format!("{} {seg:020}.log · {} {from}", t(lang, "lookup_pic_log"), t(lang, "lookup_pic_from")) }</text>
            });
            for (i, b) in batches.iter().enumerate() {
                let mut class = vec!["batch-box"];
                if b.position < from {
                    class.push("skipped");
                }
                if pic.scanned.contains(&b.position) {
                    class.push("scanned");
                }
                if pic.found == Some(b.position) {
                    class.push("chosen");
                }
                rows.push(box_text(
                    i as i32 * w,
                    y + 24,
                    w,
                    48,
                    class.join(" "),
                    vec![
                        format!("@{}", b.position),
                        format!("{}–{}", b.base_offset, b.last_offset),
                    ],
                    b.position.to_string(),
                ));
            }
            y += 82;
        }
    }
    html! {
        <svg class="lookup-picture" id="lookup-picture" viewBox={format!("0 0 {W} {}", y.max(64))} role="img"
            aria-label={t(lang, "lookup_pic_label")}>
            { for rows }
        </svg>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_and_attributes_are_explained_in_chinese_and_record_data_is_left_alone() {
        assert_eq!(
            hex_value(
                "crc",
                "0x1234abcd (CRC-32C of attributes…end: valid)",
                Lang::Zh
            ),
            "0x1234abcd (attributes…末尾的 CRC-32C：有效)"
        );
        assert_eq!(
            hex_value("attributes", "0 (compression 0, CreateTime)", Lang::Zh),
            "0 (压缩 0, CreateTime)"
        );
        assert_eq!(
            hex_value("value", "\", control\"", Lang::Zh),
            "\", control\""
        );
        assert_eq!(
            hex_value("crc", "0x1 (CRC-32C of attributes…end: valid)", Lang::En),
            "0x1 (CRC-32C of attributes…end: valid)"
        );
    }
}
