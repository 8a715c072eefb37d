//! Browser tests: the real app in headless Chromium (wasm-bindgen-test).
#![cfg(target_arch = "wasm32")]

use kafka_visualiser::app::{App, AppProps};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement};

wasm_bindgen_test_configure!(run_in_browser);

const SCENARIO: &str = include_str!("../scenarios/leader-failover.json");
const DIGEST: &str = include_str!("../scenarios/leader-failover.digest");

async fn mount() -> Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    let root = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<App>::with_root_and_props(root.clone(), AppProps { scenario: None }).render();
    yew::scheduler::flush().await;
    root
}

fn q(root: &Element, sel: &str) -> Element {
    root.query_selector(sel)
        .unwrap()
        .unwrap_or_else(|| panic!("no element matches {sel}"))
}

async fn click(root: &Element, sel: &str) {
    q(root, sel).dyn_into::<HtmlElement>().unwrap().click();
    yew::scheduler::flush().await;
}

fn log_lines(root: &Element) -> u32 {
    root.query_selector_all("#event-log li.line")
        .unwrap()
        .length()
}

#[wasm_bindgen_test]
async fn the_app_mounts_with_three_brokers() {
    let root = mount().await;
    assert_eq!(q(&root, "h1").text_content().unwrap(), "Kafka Visualiser");
    for b in 0..3 {
        q(&root, &format!("#cluster #broker-{b}"));
    }
    assert_eq!(log_lines(&root), 0);
}

#[wasm_bindgen_test]
async fn step_advances_the_trace_and_adds_a_caption() {
    let root = mount().await;
    click(&root, "#btn-step").await;
    assert_eq!(log_lines(&root), 1);
    assert!(q(&root, "#caption")
        .text_content()
        .unwrap()
        .contains("Broker 0 started"));
    click(&root, "#btn-step").await;
    assert_eq!(log_lines(&root), 2);
    assert!(q(&root, "#position")
        .text_content()
        .unwrap()
        .starts_with("event 2"));
}

#[wasm_bindgen_test]
async fn step_back_restores_the_previous_view() {
    let root = mount().await;
    for _ in 0..25 {
        click(&root, "#btn-step").await;
    }
    let cluster = q(&root, "#cluster").outer_html();
    let log = q(&root, "#event-log").inner_html();
    let caption = q(&root, "#caption").text_content();
    click(&root, "#btn-step").await;
    assert_ne!(q(&root, "#caption").text_content(), caption);
    click(&root, "#btn-back").await;
    assert_eq!(q(&root, "#cluster").outer_html(), cluster);
    assert_eq!(q(&root, "#event-log").inner_html(), log);
    assert_eq!(q(&root, "#caption").text_content(), caption);
}

#[wasm_bindgen_test]
async fn the_controller_is_marked_once_elected() {
    let root = mount().await;
    assert!(root
        .query_selector("#broker-0.controller")
        .unwrap()
        .is_none());
    for _ in 0..8 {
        click(&root, "#btn-step").await;
    }
    q(&root, "#broker-0.controller");
}

#[wasm_bindgen_test]
fn the_trace_digest_in_wasm_equals_the_native_one() {
    let mut t =
        kafka_sim::Timeline::new(kafka_sim::Scenario::from_json(SCENARIO).unwrap()).unwrap();
    t.run_to_end();
    assert_eq!(format!("{:016x}", t.digest()), DIGEST.trim());
}

/// Puts a file into the page's file picker, as a user choosing it would.
async fn choose_file(root: &Element, name: &str, contents: &str) {
    let input: web_sys::HtmlInputElement = q(root, "#load-scenario").dyn_into().unwrap();
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(contents));
    let file = web_sys::File::new_with_str_sequence(&parts, name).unwrap();
    let dt = web_sys::DataTransfer::new().unwrap();
    dt.items().add_with_file(&file).unwrap();
    input.set_files(dt.files().as_ref());
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    input
        .dispatch_event(&web_sys::Event::new_with_event_init_dict("change", &init).unwrap())
        .unwrap();
    // Reading the file is asynchronous.
    for _ in 0..20 {
        gloo_timers::future::TimeoutFuture::new(10).await;
        yew::scheduler::flush().await;
    }
}

#[wasm_bindgen_test]
async fn a_malformed_scenario_file_is_named_and_the_current_work_stays() {
    let root = mount().await;
    for _ in 0..5 {
        click(&root, "#btn-step").await;
    }
    let before = q(&root, "#caption").text_content();
    let position = q(&root, "#position").text_content();
    choose_file(
        &root,
        "bad.json",
        &SCENARIO.replace("\"broker\": 1", "\"broker\": 9"),
    )
    .await;
    let err = q(&root, "#error").text_content().unwrap();
    assert!(
        err.contains("bad.json: commands[1].broker: no broker 9 in cluster.brokers [0, 1, 2]"),
        "{err}"
    );
    assert_eq!(q(&root, "#caption").text_content(), before);
    assert_eq!(q(&root, "#position").text_content(), position);
    choose_file(&root, "garbage.json", "{ not json").await;
    assert!(q(&root, "#error")
        .text_content()
        .unwrap()
        .contains("garbage.json"));
    // A good file replaces the scenario and clears the error.
    choose_file(
        &root,
        "good.json",
        &SCENARIO.replace("Leader failover", "Loaded from a file"),
    )
    .await;
    assert!(root.query_selector("#error").unwrap().is_none());
    assert!(q(&root, ".scenario-name")
        .text_content()
        .unwrap()
        .contains("Loaded from a file"));
    assert!(q(&root, "#position")
        .text_content()
        .unwrap()
        .starts_with("event 0"));
}
