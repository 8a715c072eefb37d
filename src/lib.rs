//! Kafka Visualiser's web app: yew function components that play back,
//! explain and lay out the `kafka-sim` engine's trace. The UI computes no
//! Kafka behaviour; it draws the engine's state at the cursor.

//!
//! Where things are:
//! * `player`: a timeline and a cursor (the engine's side of the page);
//! * `state/`: the page's state and reducer, pure and tested natively
//!   (`AppState`, the lesson being played, links, menus, progress,
//!   branching, the configuration panel's edits);
//! * `model/`: the view models, pure structs read off the world at the
//!   cursor (cluster, inspectors, producer, transactions, what an event
//!   changed);
//! * `components/` and `app.rs`: yew components that draw the models;
//! * `io/`: what touches the browser or leaves the page (storage, keys,
//!   downloads, share links, the lesson library);
//! * `i18n`: every string in English and 简体中文; `alloc`: the counting
//!   allocator the memory limits read.

pub mod alloc;
pub mod app;
pub mod components;
pub mod i18n;
pub mod io;
pub mod model;
pub mod player;
pub mod state;

/// Mounts the app on the page's body.
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        show_internal_error(&kafka_sim::panic_text(info))
    }));
    yew::Renderer::<app::App>::with_props(app::AppProps { scenario: None }).render();
}

/// A bug must not leave a dead tab: the panic hook puts a named error over
/// the page, in both languages, with a link that reopens the same address
/// (the scenario, step and view are in it; answers and progress are already
/// in localStorage). Plain DOM and text only: the app itself is gone.
pub fn show_internal_error(what: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(doc) = window.document() else {
        return;
    };
    let Some(body) = doc.body() else {
        return;
    };
    let Ok(panel) = doc.create_element("div") else {
        return;
    };
    panel.set_id("internal-error");
    let _ = panel.set_attribute("role", "alertdialog");
    let _ = panel.set_attribute("aria-live", "assertive");
    let add = |tag: &str, text: &str| {
        if let Ok(e) = doc.create_element(tag) {
            e.set_text_content(Some(text));
            let _ = panel.append_child(&e);
        }
    };
    add(
        "h2",
        "Kafka Visualiser hit an internal error · Kafka 可视化遇到内部错误",
    );
    add("p", &format!("Error · 错误: {what}"));
    add(
        "p",
        "Your answers and progress are saved in this browser. Reopen the page to go on from the same scenario, step and view. · 你的答案和进度已保存在此浏览器中。重新打开页面即可从同一场景、步骤和视图继续。",
    );
    if let Ok(a) = doc.create_element("a") {
        let loc = window.location();
        // A new query makes it a page load (a link to the same address with
        // only a fragment would not reload).
        let href = format!(
            "{}?reopen={}{}",
            loc.pathname().unwrap_or_default(),
            js_sys::Date::now() as u64,
            loc.hash().unwrap_or_default()
        );
        let _ = a.set_attribute("href", &href);
        a.set_text_content(Some("Reopen the page · 重新打开页面"));
        let _ = panel.append_child(&a);
    }
    let _ = body.append_child(&panel);
}
