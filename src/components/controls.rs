//! Playback: one compact bar. Every button has a word and its key, the icons
//! are SVG (no emoji font needed), and the timeline slider is in the bar.

use crate::i18n::{t, Lang};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub lang: Lang,
    pub cursor: u64,
    pub known_len: u64,
    pub length_final: bool,
    pub time_ms: u64,
    pub playing: bool,
    pub speed_label: String,
    pub on_back: Callback<()>,
    pub on_step: Callback<()>,
    pub on_play: Callback<()>,
    pub on_start: Callback<()>,
    pub on_speed: Callback<()>,
    /// The slider: put the cursor after this many events.
    pub on_seek_to: Callback<u64>,
    /// Marks on the time axis: (event index, class, title): the faults a
    /// scenario schedules (`fault`) and broken guarantees (`broken`).
    #[prop_or_default]
    pub marks: Rc<Vec<(u64, &'static str, String)>>,
}

/// The icons, drawn in a 16×16 box with the text's colour.
#[derive(Clone, Copy)]
pub enum Icon {
    ToStart,
    Back,
    Step,
    Play,
    Pause,
}

pub fn icon(i: Icon) -> Html {
    let d = match i {
        Icon::ToStart => "M3 2h2v12H3zM14 2v12L6 8z",
        Icon::Back => "M13 2v12L4 8z",
        Icon::Step => "M3 2v12l9-6zM12 2h2v12h-2z",
        Icon::Play => "M4 2v12l10-6z",
        Icon::Pause => "M3 2h4v12H3zM9 2h4v12H9z",
    };
    html! {
        <svg class="icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
            <path d={d} fill="currentColor" />
        </svg>
    }
}

#[component]
pub fn Controls(p: &ControlsProps) -> Html {
    let l = p.lang;
    let click = |cb: &Callback<()>| {
        let cb = cb.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let total = if p.length_final {
        p.known_len.to_string()
    } else {
        format!("{}+", p.known_len)
    };
    let on_input = {
        let cb = p.on_seek_to.clone();
        Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Ok(n) = input.value().parse::<u64>() {
                cb.emit(n);
            }
        })
    };
    html! {
        <div class="controls" role="toolbar" aria-label={t(l, "playback")}>
            <button id="btn-start" class="icon-only" onclick={click(&p.on_start)} title={format!("{} (Home)", t(l, "start"))} aria-label={t(l, "start")}>{ icon(Icon::ToStart) }</button>
            <button id="btn-back" onclick={click(&p.on_back)} title={format!("{} (←)", t(l, "back"))} aria-keyshortcuts="ArrowLeft">
                { icon(Icon::Back) }<span class="label">{ t(l, "back_short") }</span><kbd>{"←"}</kbd></button>
            <button id="btn-step" class="primary" onclick={click(&p.on_step)} title={format!("{} (→)", t(l, "step"))} aria-keyshortcuts="ArrowRight">
                { icon(Icon::Step) }<span class="label">{ t(l, "step") }</span><kbd>{"→"}</kbd></button>
            <button id="btn-play" onclick={click(&p.on_play)} aria-label={if p.playing { t(l, "pause") } else { t(l, "play") }} title={"Space"} aria-keyshortcuts="Space">
                { icon(if p.playing { Icon::Pause } else { Icon::Play }) }
                <span class="label">{ if p.playing { t(l, "pause") } else { t(l, "play") } }</span></button>
            <button id="btn-speed" onclick={click(&p.on_speed)} aria-label={format!("{} {}", t(l, "speed"), p.speed_label)} title={format!("{} (s)", t(l, "speed"))}>{ p.speed_label.clone() }</button>
            <span class="scrub-wrap">
                <input id="scrub" type="range" min="0" max={p.known_len.to_string()} value={p.cursor.to_string()}
                    aria-label={t(l, "timeline")} oninput={on_input} />
                { for p.marks.iter().filter(|m| m.0 <= p.known_len).map(|(at, class, title)| {
                    let left = *at as f64 * 100.0 / p.known_len.max(1) as f64;
                    html! { <span class={classes!("tmark", *class)} title={title.clone()} aria-hidden="true"
                        style={format!("left: {left:.2}%")}></span> }
                }) }
            </span>
            <span class="position" id="position">
                { format!("{} {} {} {}", t(l, "event"), p.cursor, t(l, "of"), total) }
                <span class="time">{ format!(" · {} ms", p.time_ms) }</span>
            </span>
        </div>
    }
}
