use crate::i18n::{t, Lang};
use yew::prelude::*;

#[derive(Clone, PartialEq)]
pub struct LogLine {
    pub id: u64,
    pub time_ms: u64,
    pub caption: AttrValue,
    pub key: bool,
    pub broken: bool,
}

#[derive(Properties, PartialEq)]
pub struct EventLogProps {
    pub lang: Lang,
    pub lines: Vec<LogLine>,
    pub current: Option<u64>,
    /// Seek so that this event is the last applied.
    pub on_seek: Callback<u64>,
}

/// Scrolls the log to its newest line in a timer, then checks again until it
/// has stayed at the end twice in a row: lines out of view are skipped by
/// layout (`content-visibility: auto`) and counted at an estimated height
/// until they are drawn, so a scroll can stop short of the end by the
/// difference once the lines it brought into view get their real height.
fn scroll_to_end(
    list: NodeRef,
    pending: std::rc::Rc<std::cell::RefCell<Option<gloo_timers::callback::Timeout>>>,
    pass: u32,
    settled: u32,
) {
    let again = pending.clone();
    let delay = if pass == 0 { 0 } else { 40 };
    let timer = gloo_timers::callback::Timeout::new(delay, move || {
        let Some(el) = list.cast::<web_sys::Element>() else {
            return;
        };
        let at_end = el.scroll_top() >= el.scroll_height() - el.client_height() - 1;
        if !at_end {
            el.set_scroll_top(el.scroll_height());
        }
        let settled = if at_end { settled + 1 } else { 0 };
        if settled < 2 && pass < 25 {
            scroll_to_end(list, again, pass + 1, settled);
        }
    });
    *pending.borrow_mut() = Some(timer);
}

#[derive(Properties, PartialEq)]
struct LineProps {
    line: LogLine,
    current: bool,
    tab_stop: bool,
    on_seek: Callback<u64>,
}

/// One line of the log. A component of its own, so a step redraws only the
/// lines it changed (the one it adds, and the current line before and
/// after), not the hundreds shown.
#[component]
fn Line(p: &LineProps) -> Html {
    let l = &p.line;
    let id = l.id;
    let mut class = classes!("line");
    if p.current {
        class.push("current");
    }
    if l.key {
        class.push("key");
    }
    if l.broken {
        class.push("broken");
    }
    let onclick = {
        let seek = p.on_seek.clone();
        Callback::from(move |_: MouseEvent| seek.emit(id))
    };
    let onkeydown = {
        let seek = p.on_seek.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                seek.emit(id)
            }
        })
    };
    html! {
        <li {class} {onclick} {onkeydown} tabindex={if p.tab_stop { "0" } else { "-1" }} role="option"
            aria-selected={p.current.to_string()}>
            <span class="num">{ format!("#{id}") }</span>
            <span class="t">{ format!("{} ms", l.time_ms) }</span>
            <span class="cap">{ l.caption.clone() }</span>
        </li>
    }
}

#[component]
pub fn EventLog(p: &EventLogProps) -> Html {
    let list = use_node_ref();
    {
        // Keep the newest line in view.
        let list = list.clone();
        // After the browser's own layout of this frame: reading
        // scroll_height right away would force a layout of the whole page
        // (its drawing included) inside the step.
        use_effect_with(p.current, move |_| {
            let pending = std::rc::Rc::new(std::cell::RefCell::new(None));
            scroll_to_end(list, pending.clone(), 0, 0);
            // A newer step before it ran replaces it.
            move || drop(pending.borrow_mut().take())
        });
    }
    // One Tab stop: the current line (else the newest) takes focus; the
    // arrow keys, Home and End move between lines, Enter seeks there.
    let tab_stop = p.current.or_else(|| p.lines.last().map(|l| l.id));
    let on_keys = Callback::from(|e: KeyboardEvent| {
        use wasm_bindgen::JsCast;
        let Some(li) = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .filter(|el| el.tag_name() == "LI")
        else {
            return;
        };
        let next = match e.key().as_str() {
            "ArrowDown" => li.next_element_sibling(),
            "ArrowUp" => li.previous_element_sibling(),
            "Home" => li.parent_element().and_then(|p| p.first_element_child()),
            "End" => li.parent_element().and_then(|p| p.last_element_child()),
            _ => return,
        };
        // The page's own shortcuts (Home: to the start) stay out of the log.
        e.prevent_default();
        e.stop_propagation();
        if let Some(n) = next.and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = li.set_attribute("tabindex", "-1");
            let _ = n.set_attribute("tabindex", "0");
            let _ = n.focus();
        }
    });
    let hint = p
        .lines
        .is_empty()
        .then(|| html! { <li key="hint" class="hint" role="option" aria-selected="false">{ t(p.lang, "no_events") }</li> });
    html! {
        // Collapsible: beside the drawing at 1440 it stays open; below it on
        // a small screen the learner can fold it away.
        <details class="log" open=true aria-label={t(p.lang, "log")}>
            <summary><h2>{ t(p.lang, "log") }</h2></summary>
            // A listbox: one Tab stop, the arrow keys move between events,
            // Enter goes to one; the current event is the selected option.
            <ol id="event-log" role="listbox" ref={list} onkeydown={on_keys} aria-label={t(p.lang, "log_keys")}>
                // Every child keyed, the hint too (an `if` would add an
                // unkeyed child): yew diffs an unkeyed list from its end, so
                // a line appended to an unkeyed log rewrote every line's text
                // on each step.
                { for hint.into_iter().chain(p.lines.iter().map(|l| html! {
                    <Line key={l.id} line={l.clone()} current={Some(l.id) == p.current}
                        tab_stop={Some(l.id) == tab_stop} on_seek={p.on_seek.clone()} />
                })) }
            </ol>
        </details>
    }
}
