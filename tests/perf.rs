//! Rendering and seeking speed in headless Chromium, reported (not asserted:
//! tests must not fail on a slow machine). Run with
//! `cargo test -p kafka-visualiser --target wasm32-unknown-unknown --release --test perf -- --nocapture`
//! for figures comparable with the page (the suite runs it unoptimised).
#![cfg(target_arch = "wasm32")]

use kafka_visualiser::app::{App, AppProps};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement};

wasm_bindgen_test_configure!(run_in_browser);

fn now() -> f64 {
    web_sys::window().unwrap().performance().unwrap().now()
}

async fn mount(text: String) -> Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    let root = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<App>::with_root_and_props(
        root.clone(),
        AppProps {
            scenario: Some(text.into()),
        },
    )
    .render();
    yew::scheduler::flush().await;
    root
}

fn q(root: &Element, sel: &str) -> Element {
    root.query_selector(sel).unwrap().unwrap()
}

async fn seek(root: &Element, n: u64) {
    let slider: web_sys::HtmlInputElement = q(root, "#scrub").dyn_into().unwrap();
    slider.set_max(&n.to_string());
    slider.set_value(&n.to_string());
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    slider
        .dispatch_event(&web_sys::Event::new_with_event_init_dict("input", &init).unwrap())
        .unwrap();
    yew::scheduler::flush().await;
}

#[wasm_bindgen_test]
async fn step_render_and_seek_times_on_big_scenarios() {
    // 10 brokers, 1,000 partitions (RF 3), a producer writing across them.
    let brokers: Vec<String> = (0..10).map(|b| b.to_string()).collect();
    let cmds: Vec<String> = (0..50)
        .map(|i| format!(r#"{{"at_ms": {}, "type": "produce", "producer": "p", "topic": "t", "key": "k{i}", "value": "v", "count": 20}}"#, 1000 + i * 20))
        .collect();
    let big = format!(
        r#"{{"seed": 1, "run_until_ms": 5000, "cluster": {{"brokers": [{}]}},
            "topics": [{{"name": "t", "partitions": 1000, "replication.factor": 3}}],
            "producers": [{{"name": "p"}}], "commands": [{}]}}"#,
        brokers.join(","),
        cmds.join(",")
    );
    let root = mount(big).await;
    seek(&root, 2000).await;
    let mut worst: f64 = 0.0;
    let t0 = now();
    for _ in 0..20 {
        let s = now();
        q(&root, "#btn-step")
            .dyn_into::<HtmlElement>()
            .unwrap()
            .click();
        yew::scheduler::flush().await;
        worst = worst.max(now() - s);
    }
    let per_step = (now() - t0) / 20.0;
    assert!(q(&root, "#position")
        .text_content()
        .unwrap()
        .contains("event 20"));
    console_log!("10 brokers / 1,000 partitions: step + render {per_step:.1} ms on average, worst {worst:.1} ms");

    // A trace of 100,000 events: seek to scattered steps.
    let bursts: Vec<String> = (0..300)
        .map(|i| format!(r#"{{"at_ms": {}, "type": "produce", "producer": "p", "topic": "t", "key": "k{i}", "value": "v", "count": 100}}"#, 100 + i * 50))
        .collect();
    let long = format!(
        r#"{{"seed": 1, "run_until_ms": 20000, "cluster": {{"brokers": [0, 1, 2]}},
            "topics": [{{"name": "t", "partitions": 6, "replication.factor": 3}}],
            "producers": [{{"name": "p", "config": {{"linger.ms": 5}}}}], "commands": [{}]}}"#,
        bursts.join(",")
    );
    let root = mount(long).await;
    let s = now();
    seek(&root, 100_000).await;
    let first = now() - s;
    assert!(q(&root, "#position")
        .text_content()
        .unwrap()
        .contains("event 100000"));
    let mut worst: f64 = 0.0;
    let mut total = 0.0;
    let mut x: u64 = 7;
    for _ in 0..20 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let target = (x >> 33) % 100_000;
        let s = now();
        seek(&root, target).await;
        let d = now() - s;
        worst = worst.max(d);
        total += d;
    }
    console_log!(
        "100,000-event trace: first seek to the end (simulating it) {first:.0} ms; seek + render to a random step {:.1} ms on average, worst {worst:.1} ms",
        total / 20.0
    );
}
