//! The storage inspector: one partition directory on one broker, its segment
//! files (with their pages in the paged store, and a download of each), the
//! record batches of `.log` and the entries of `.index` / `.timeindex`.

use crate::i18n::{t, Lang};
use crate::inspect_model::StorageModel;
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
    let selected_key = m
        .selected
        .as_ref()
        .map(|s| crate::inspect_model::storage_key(s.broker, &s.dir));
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
                    { format!("{}: {} · log start {} · LEO {} · HW {} · cleanup.policy={}",
                        t(lang, "dir"), s.dir, s.log_start, s.log_end,
                        s.high_watermark.map(|h| h.to_string()).unwrap_or_else(|| "–".into()), s.cleanup) }
                </p>
                <h3>{ t(lang, "files") }</h3>
                <table class="grid" id="storage-files">
                    <thead><tr><th>{ t(lang, "file") }</th><th>{ t(lang, "bytes") }</th><th>{ t(lang, "pages") }</th><th></th></tr></thead>
                    <tbody>
                    { for s.files.iter().map(|f| {
                        let cb = p.on_download.clone();
                        let arg = (s.broker, f.path.clone());
                        let name = f.path.rsplit('/').next().unwrap_or(&f.path).to_string();
                        html! {
                            <tr>
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
                <h3>{ format!("{} ({})", t(lang, "batches"), s.batches_total) }</h3>
                <table class="grid" id="storage-batches">
                    <thead><tr>
                        <th>{"segment"}</th><th>{"position"}</th><th>{"baseOffset"}</th><th>{"lastOffset"}</th>
                        <th>{"count"}</th><th>{"size"}</th><th>{"leaderEpoch"}</th><th>{"producerId"}</th><th>{"CRC"}</th><th>{ t(lang, "records") }</th>
                    </tr></thead>
                    <tbody>
                    { for s.batches.iter().map(|b| html! {
                        <tr class={classes!((!b.crc_ok).then_some("bad"))}>
                            <td class="num">{ b.segment }</td><td class="num">{ b.position }</td>
                            <td class="num">{ b.base_offset }</td><td class="num">{ b.last_offset }</td>
                            <td class="num">{ b.records }</td><td class="num">{ b.size }</td>
                            <td class="num">{ b.leader_epoch }</td><td class="num">{ b.producer_id }</td>
                            <td>{ if b.crc_ok { "✓ valid" } else { "✗ INVALID" } }</td>
                            <td class="mono preview">{ b.preview.clone() }</td>
                        </tr>
                    }) }
                    </tbody>
                </table>
                <h3>{ t(lang, "index_entries") }</h3>
                <table class="grid" id="storage-index">
                    <thead><tr><th>{"segment"}</th><th>{ t(lang, "file") }</th><th>{"slot"}</th><th>{ t(lang, "entry") }</th></tr></thead>
                    <tbody>
                    { for s.index.iter().map(|e| html! {
                        <tr>
                            <td class="num">{ e.segment }</td>
                            <td>{ if e.time { ".timeindex" } else { ".index" } }</td>
                            <td class="num">{ e.slot }</td>
                            <td class="mono">{ if e.time {
                                format!("timestamp {} → offset {}", e.key, e.value)
                            } else {
                                format!("offset {} → position {}", e.key, e.value)
                            } }</td>
                        </tr>
                    }) }
                    </tbody>
                </table>
            } else {
                <p class="facts">{ t(lang, "no_logs") }</p>
            }
        </div>
    }
}
