//! What the browser tests (`tests/app.rs`, `tests/perf.rs`) do to the page
//! as a learner would: mount the app, find an element, click, fire an
//! event, drag the timeline, step until a caption appears.
#![allow(dead_code)]

use kafka_visualiser::app::{App, AppProps};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};

/// Mounts the app in a fresh element of the page, with `scenario` as its
/// text (or the start screen with `None`).
pub async fn mount_with(scenario: Option<String>) -> Element {
    mount_app(scenario).await.0
}

/// Like [`mount_with`], with the app's handle, to destroy it (and free
/// what it holds) before mounting the next.
pub async fn mount_app(scenario: Option<String>) -> (Element, yew::AppHandle<App>) {
    let doc = web_sys::window().unwrap().document().unwrap();
    let root = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    let handle = yew::Renderer::<App>::with_root_and_props(
        root.clone(),
        AppProps {
            scenario: scenario.map(Into::into),
        },
    )
    .render();
    yew::scheduler::flush().await;
    (root, handle)
}

/// The element `sel` matches, or a failure naming the selector.
pub fn q(root: &Element, sel: &str) -> Element {
    root.query_selector(sel)
        .unwrap()
        .unwrap_or_else(|| panic!("no element matches {sel}"))
}

/// Clicks the element `sel` matches and lets the app render.
pub async fn click(root: &Element, sel: &str) {
    q(root, sel).dyn_into::<HtmlElement>().unwrap().click();
    yew::scheduler::flush().await;
}

/// Fires a bubbling event of `kind` (`input`, `change`, …) at `el`.
pub fn fire(el: &Element, kind: &str) {
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    el.dispatch_event(&web_sys::Event::new_with_event_init_dict(kind, &init).unwrap())
        .unwrap();
}

/// Drags the timeline slider to `n` events.
pub async fn seek_to(root: &Element, n: u64) {
    let slider: web_sys::HtmlInputElement = q(root, "#scrub").dyn_into().unwrap();
    slider.set_max(&n.max(1).to_string());
    slider.set_value(&n.to_string());
    fire(&slider, "input");
    yew::scheduler::flush().await;
}

/// Clicks Step until the caption contains `needle` (at most `max` times);
/// returns the last caption.
pub async fn step_until_caption(root: &Element, needle: &str, max: u32) -> String {
    let mut caption = String::new();
    for i in 0..max {
        if i % 25 == 24 {
            // Let the browser breathe: the test runner polls the page and
            // gives up on a main thread busy for seconds.
            gloo_timers::future::TimeoutFuture::new(0).await;
        }
        click(root, "#btn-step").await;
        caption = q(root, "#caption").text_content().unwrap();
        if caption.contains(needle) {
            break;
        }
    }
    caption
}
