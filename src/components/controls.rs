use crate::i18n::{t, Lang};
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
    pub hide_routine: bool,
    pub on_back: Callback<()>,
    pub on_step: Callback<()>,
    pub on_play: Callback<()>,
    pub on_start: Callback<()>,
    pub on_speed: Callback<()>,
    pub on_routine: Callback<()>,
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
    html! {
        <div class="controls" role="toolbar" aria-label="Playback">
            <button id="btn-start" onclick={click(&p.on_start)} title={t(l, "start")} aria-label={t(l, "start")}>{"|◀◀"}</button>
            <button id="btn-back" onclick={click(&p.on_back)} title={format!("{} (←)", t(l, "back"))} aria-label={t(l, "back")}>{"◀"}</button>
            <button id="btn-play" class="primary" onclick={click(&p.on_play)} aria-label={if p.playing { t(l, "pause") } else { t(l, "play") }} title={"Space"}>
                { if p.playing { "⏸" } else { "▶" } }
            </button>
            <button id="btn-step" onclick={click(&p.on_step)} title={format!("{} (→)", t(l, "step"))} aria-label={t(l, "step")}>{"▶|"}</button>
            <button id="btn-speed" onclick={click(&p.on_speed)} aria-label={t(l, "speed")} title={t(l, "speed")}>{ p.speed_label.clone() }</button>
            <span class="position" id="position">
                { format!("{} {} {} {}", t(l, "event"), p.cursor, t(l, "of"), total) }
                <span class="time">{ format!(" · {} {} ms", t(l, "time"), p.time_ms) }</span>
            </span>
            <label class="toggle">
                <input id="routine" type="checkbox" checked={p.hide_routine} onclick={click(&p.on_routine)} />
                { t(l, "hide_routine") }
            </label>
        </div>
    }
}
