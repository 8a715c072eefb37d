//! Browser tests: the real app in headless Chromium (wasm-bindgen-test).
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement};

wasm_bindgen_test_configure!(run_in_browser);

#[path = "support/dom.rs"]
mod dom;
#[path = "support/glossary.rs"]
mod glossary;
use dom::{click, fire, mount_with, q, seek_to, step_until_caption};

const SCENARIO: &str = include_str!("../scenarios/leader-failover.json");

/// The Examples menu's scenarios (the page reads all but the first from
/// `scenarios/`; these tests use the same files).
const EXAMPLE_TEXTS: [(&str, &str); 7] = [
    ("leader-failover.json", SCENARIO),
    (
        "hw-truncation.json",
        include_str!("../scenarios/hw-truncation.json"),
    ),
    (
        "kip101-divergence.json",
        include_str!("../scenarios/kip101-divergence.json"),
    ),
    (
        "kip101-epochs.json",
        include_str!("../scenarios/kip101-epochs.json"),
    ),
    (
        "group-rebalance.json",
        include_str!("../scenarios/group-rebalance.json"),
    ),
    (
        "kraft-controller-failover.json",
        include_str!("../scenarios/kraft-controller-failover.json"),
    ),
    (
        "kraft-leader-failover.json",
        include_str!("../scenarios/kraft-leader-failover.json"),
    ),
];
const DIGEST: &str = include_str!("../scenarios/leader-failover.digest");

/// The default scenario without its lesson (so stepping is never held by a question).
/// A built-in example's text, by file name.
fn example_text(name: &str) -> &'static str {
    EXAMPLE_TEXTS.iter().find(|(n, _)| *n == name).unwrap().1
}

fn without_lesson(text: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    v.as_object_mut().unwrap().remove("lesson");
    v.to_string()
}

async fn mount() -> Element {
    mount_with(Some(without_lesson(SCENARIO))).await
}

/// The page counts the bytes its allocator holds: a run's memory limit
/// (`PAGE_MAX_BYTES`) reads that count, and without it a large world's
/// run would grow until the tab dies.
#[wasm_bindgen_test]
fn the_page_counts_the_bytes_it_holds() {
    use kafka_visualiser::alloc::held_bytes;
    let before = held_bytes();
    assert!(before > 0, "the count is installed");
    let block = std::hint::black_box(vec![7u8; 10 << 20]);
    let during = held_bytes();
    assert!(during >= before + (10 << 20), "{before} -> {during}");
    drop(block);
    assert!(held_bytes() <= during - (10 << 20), "freed");
}

fn log_lines(root: &Element) -> u32 {
    root.query_selector_all("#event-log li.line")
        .unwrap()
        .length()
}

/// The event log's lines, as text.
fn log_texts(root: &Element) -> Vec<String> {
    let lines = root.query_selector_all("#event-log li.line").unwrap();
    (0..lines.length())
        .map(|i| lines.item(i).unwrap().text_content().unwrap())
        .collect()
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

/// A step appends one line to the log and leaves the others alone: the
/// same DOM nodes, with the same text. (An unkeyed list made yew rewrite
/// every line's text and class on each step, the biggest cost of a step on
/// a large cluster.)
#[wasm_bindgen_test]
async fn a_step_appends_a_log_line_without_rewriting_the_others() {
    let root = mount().await;
    for _ in 0..12 {
        click(&root, "#btn-step").await;
    }
    let before = root.query_selector_all("#event-log li.line").unwrap();
    let nodes: Vec<(web_sys::Node, String)> = (0..before.length())
        .map(|i| {
            let n = before.item(i).unwrap();
            let text = n.text_content().unwrap();
            (n, text)
        })
        .collect();
    assert_eq!(nodes.len(), 12);
    click(&root, "#btn-step").await;
    let after = root.query_selector_all("#event-log li.line").unwrap();
    assert_eq!(after.length(), 13);
    for (i, (n, text)) in nodes.iter().enumerate() {
        assert!(
            after.item(i as u32).unwrap().is_same_node(Some(n)),
            "line {i} was replaced"
        );
        assert_eq!(&n.text_content().unwrap(), text, "line {i} was rewritten");
    }
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

#[wasm_bindgen_test]
fn the_metrics_in_wasm_equal_the_native_ones() {
    // As `metrics_are_pinned_and_shared_with_the_browser_test` computes it.
    let sc = kafka_sim::Scenario::from_json(SCENARIO).unwrap();
    let h = kafka_sim::metrics::fingerprint(sc, 500).unwrap();
    assert_eq!(
        format!("{h:016x}"),
        include_str!("../scenarios/leader-failover.metrics-digest").trim()
    );
}

/// Puts a file into the page's file picker, as a user choosing it would.
async fn choose_file(root: &Element, name: &str, contents: &str) {
    let input: web_sys::HtmlInputElement = q(root, "#load-scenario").dyn_into().unwrap();
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(contents));
    let file = web_sys::File::new_with_str_sequence(&parts, name).unwrap();
    let dt = web_sys::DataTransfer::new().unwrap();
    dt.items().add_with_file(&file).unwrap();
    input.set_files(dt.files().as_ref());
    fire(&input, "change");
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

fn rows(root: &Element, sel: &str) -> u32 {
    root.query_selector_all(&format!("{sel} tbody tr"))
        .unwrap()
        .length()
}

/// Chooses a built-in example from the header's list, and waits until it
/// is open (all but the first are read from `scenarios/`).
async fn choose_example(root: &Element, name: &str) {
    let before = q(root, ".scenario-name").text_content();
    choose(root, "#example", name).await;
    for _ in 0..100 {
        if q(root, ".scenario-name").text_content() != before
            || root.query_selector("#error").unwrap().is_some()
            || name == kafka_visualiser::state::EXAMPLES[0]
        {
            break;
        }
        gloo_timers::future::TimeoutFuture::new(20).await;
        yew::scheduler::flush().await;
    }
    if let Some(e) = root.query_selector("#error").unwrap() {
        panic!("{name} did not open: {:?}", e.text_content());
    }
}

/// A right-click (or a long-press): the `contextmenu` event, at the element.
fn right_click(el: &Element) {
    let init = web_sys::MouseEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_client_x(200);
    init.set_client_y(300);
    el.dispatch_event(
        &web_sys::MouseEvent::new_with_mouse_event_init_dict("contextmenu", &init).unwrap(),
    )
    .unwrap();
}

/// Picks `value` in a `<select>`, as a user would.
async fn choose(root: &Element, select: &str, value: &str) {
    let sel: web_sys::HtmlSelectElement = q(root, select).dyn_into().unwrap();
    sel.set_value(value);
    fire(&sel, "change");
    yew::scheduler::flush().await;
}

#[wasm_bindgen_test]
async fn the_storage_inspector_lists_segment_files_batches_and_downloads_a_file() {
    let root = mount().await;
    // Play until a leader has appended the first batch.
    for _ in 0..300 {
        click(&root, "#btn-step").await;
        if q(&root, "#caption")
            .text_content()
            .unwrap()
            .contains("(leader) appended")
        {
            break;
        }
    }
    click(&root, "#tab-storage").await;
    assert!(root.query_selector("#cluster").unwrap().is_none());
    // The leader of first-0 is broker 1: look at its copy.
    choose(&root, "#storage-partition", "1:first-0").await;
    assert!(q(&root, "#storage")
        .text_content()
        .unwrap()
        .contains("directory: first-0"));
    // A partition directory holds one segment: .log, .index, .timeindex.
    assert_eq!(rows(&root, "#storage-files"), 3);
    let files = q(&root, "#storage-files").text_content().unwrap();
    assert!(files.contains("00000000000000000000.log"), "{files}");
    assert!(files.contains("00000000000000000000.timeindex"), "{files}");
    assert!(
        rows(&root, "#storage-batches") >= 1,
        "the produced batch is in .log"
    );
    assert!(q(&root, "#storage-batches")
        .text_content()
        .unwrap()
        .contains("✓ valid"));
    // Download the .log: the bytes the engine holds for that file.
    let log_button = root
        .query_selector("button.download[data-file$='.log']")
        .unwrap()
        .expect("a download button for the .log file");
    log_button.dyn_into::<HtmlElement>().unwrap().click();
    yew::scheduler::flush().await;
    let (name, len, hash) =
        kafka_visualiser::io::browser::last_download().expect("a download was offered");
    assert_eq!(name, "00000000000000000000.log");
    assert!(
        len > 61,
        "at least one record batch (61-byte header): {len}"
    );
    // Byte for byte the file broker 1 holds at this step, per the engine.
    let pos = q(&root, "#position").text_content().unwrap();
    let step: u64 = pos.split_whitespace().nth(1).unwrap().parse().unwrap();
    let mut t =
        kafka_sim::Timeline::new(kafka_sim::Scenario::from_json(SCENARIO).unwrap()).unwrap();
    let w = t.state_at(step);
    let bytes =
        kafka_visualiser::model::inspect::file_bytes(&w, 1, "first-0/00000000000000000000.log")
            .unwrap();
    assert_eq!(
        (bytes.len(), kafka_visualiser::io::browser::fnv64(&bytes)),
        (len, hash)
    );
    // Another partition can be chosen; the view follows.
    let options = root
        .query_selector_all("#storage-partition option")
        .unwrap()
        .length();
    assert!(options >= 3, "each broker's copy is listed: {options}");
    click(&root, "#tab-cluster").await;
    q(&root, "#cluster");
}

#[wasm_bindgen_test]
async fn the_groups_view_shows_members_assignment_and_the_four_assignors() {
    let root = mount().await;
    choose_example(&root, "group-rebalance.json").await;
    assert!(q(&root, ".scenario-name")
        .text_content()
        .unwrap()
        .contains("Consumer group"));
    // An example is not a lesson of the library: its menu shows none.
    if let Some(pick) = root.query_selector("#lesson-pick").unwrap() {
        let pick: web_sys::HtmlSelectElement = pick.dyn_into().unwrap();
        assert_eq!(pick.value(), "");
    }
    click(&root, "#tab-groups").await;
    // Before anything ran: the group exists in the scenario, nobody joined yet.
    q(&root, "#group-shop");
    // Play on until the first generation is stable (the trace says when),
    // answering the lesson's questions on the way.
    for _ in 0..400 {
        if root.query_selector("#question").unwrap().is_some() {
            click(&root, "#choice-0").await;
        }
        click(&root, "#btn-step").await;
        if q(&root, "#caption")
            .text_content()
            .unwrap()
            .contains("owns [")
        {
            break;
        }
    }
    for _ in 0..3 {
        if root.query_selector("#question").unwrap().is_some() {
            click(&root, "#choice-0").await;
        }
        click(&root, "#btn-step").await;
    }
    let members = q(&root, "#group-shop table.members")
        .text_content()
        .unwrap();
    assert!(members.contains("stable"), "{members}");
    assert!(members.contains("orders-"), "{members}");
    // The comparison: one row per assignor, with the number of moves.
    assert_eq!(rows(&root, "#group-shop table.compare"), 4);
    for s in ["range", "roundrobin", "sticky", "cooperative-sticky"] {
        q(&root, &format!("#group-shop tr[data-strategy='{s}']"));
    }
    // The protocol as a sequence diagram: JoinGroup and SyncGroup arrows.
    let seq = q(&root, "#sequence").text_content().unwrap();
    assert!(
        seq.contains("JoinGroup") && seq.contains("SyncGroup"),
        "{seq}"
    );
    assert!(
        seq.contains("MEMBER_ID_REQUIRED"),
        "the KIP-394 round trip shows: {seq}"
    );
    // Sticky keeps what the staying member had: nothing of its moves.
    let sticky = q(&root, "#group-shop tr[data-strategy='sticky'] td.moved")
        .text_content()
        .unwrap();
    assert!(sticky.starts_with('0'), "{sticky}");
}

#[wasm_bindgen_test]
async fn jump_to_the_next_leader_election_and_the_shortcut_list() {
    let root = mount().await;
    choose(&root, "#jump-kind", "leader_elected").await;
    click(&root, "#btn-next-kind").await;
    let first = q(&root, "#caption").text_content().unwrap();
    assert!(first.contains("leader none → 1"), "{first}");
    click(&root, "#btn-next-kind").await;
    let second = q(&root, "#caption").text_content().unwrap();
    assert!(second.contains("leader 1 → 0"), "the failover: {second}");
    // The election panel walks the AR: broker 1 passed over (dead), 0 elected.
    let election = q(&root, "#election").text_content().unwrap();
    assert!(election.contains("passed over: not alive"), "{election}");
    assert!(q(&root, "#election tr.chosen")
        .text_content()
        .unwrap()
        .contains("broker 0"));
    // No third election: the page says so and stays where it is.
    click(&root, "#btn-next-kind").await;
    assert!(q(&root, "#notice")
        .text_content()
        .unwrap()
        .contains("leader_elected"));
    assert_eq!(q(&root, "#caption").text_content().unwrap(), second);
    // The ? button opens the shortcut list; Dismiss closes it.
    click(&root, "#btn-help").await;
    assert!(q(&root, "#help")
        .text_content()
        .unwrap()
        .contains("step back"));
    click(&root, "#btn-help-close").await;
    assert!(root.query_selector("#help").unwrap().is_none());
}

#[wasm_bindgen_test]
async fn the_timeline_slider_seeks_and_the_language_is_remembered() {
    let root = mount().await;
    let slider: web_sys::HtmlInputElement = q(&root, "#scrub").dyn_into().unwrap();
    slider.set_value("30");
    fire(&slider, "input");
    yew::scheduler::flush().await;
    assert!(q(&root, "#position")
        .text_content()
        .unwrap()
        .starts_with("event 30"));
    click(&root, "#btn-lang").await;
    assert_eq!(
        kafka_visualiser::io::browser::saved_lang(),
        Some(kafka_visualiser::i18n::Lang::Zh)
    );
    click(&root, "#btn-lang").await;
    assert_eq!(
        kafka_visualiser::io::browser::saved_lang(),
        Some(kafka_visualiser::i18n::Lang::En)
    );
}

/// Steps until a question shows or the scenario ends; true at a question.
async fn step_to_question(root: &Element) -> bool {
    for _ in 0..5000 {
        if root.query_selector("#question").unwrap().is_some() {
            return true;
        }
        let before = q(root, "#position").text_content().unwrap();
        click(root, "#btn-step").await;
        if root.query_selector("#question").unwrap().is_none()
            && q(root, "#position").text_content().unwrap() == before
        {
            return false; // the end
        }
    }
    false
}

#[wasm_bindgen_test]
async fn a_lesson_asks_before_the_event_and_grades_against_the_engine() {
    let root = mount_with(Some(SCENARIO.to_string())).await;
    q(&root, "#lesson");
    assert!(step_to_question(&root).await);
    assert!(q(&root, "#question")
        .text_content()
        .unwrap()
        .contains("AR [1,0,2]"));
    // The election has not happened yet: predict first.
    assert!(!q(&root, "#caption")
        .text_content()
        .unwrap()
        .contains("leader none → 1"));
    let held = q(&root, "#position").text_content().unwrap();
    click(&root, "#btn-step").await;
    assert_eq!(
        q(&root, "#position").text_content().unwrap(),
        held,
        "the question holds the simulation"
    );
    // A wrong answer is marked wrong, with the engine's answer; the event is revealed.
    click(&root, "#choice-2").await;
    let fb = q(&root, "#feedback");
    assert!(fb.class_name().contains("wrong"));
    assert!(fb.text_content().unwrap().contains("the simulation says 1"));
    assert!(q(&root, "#caption")
        .text_content()
        .unwrap()
        .contains("leader none → 1"));
    // The second question: broker 1 died. The right answer is marked right.
    assert!(step_to_question(&root).await);
    click(&root, "#choice-0").await;
    assert!(q(&root, "#feedback").class_name().contains("right"));
    assert!(q(&root, "#score")
        .text_content()
        .unwrap()
        .starts_with("1 of 2 answered right"));
    // Acting branches the future; the answers already given stay.
    click(&root, "#act-send").await;
    assert!(q(&root, "#notice").text_content().is_some());
    assert!(q(&root, "#score")
        .text_content()
        .unwrap()
        .starts_with("1 of 2 answered right"));
}

#[wasm_bindgen_test]
async fn every_shipped_lesson_can_be_answered_right_through_the_engine() {
    assert_eq!(
        EXAMPLE_TEXTS.map(|(n, _)| n),
        kafka_visualiser::state::EXAMPLES
    );
    for (name, text) in EXAMPLE_TEXTS {
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        let Some(lesson) = v.get("lesson") else {
            continue;
        };
        let lesson = kafka_visualiser::state::lesson::Lesson::from_value(lesson).unwrap();
        let asked = lesson.steps.iter().filter(|s| s.ask.is_some()).count();
        // The engine's answers, from the scenario's own trace.
        let mut player = kafka_visualiser::player::Player::from_json(text).unwrap();
        let root = mount_with(Some(text.to_string())).await;
        let mut answered = 0;
        for step in lesson.steps.iter().filter(|s| s.ask.is_some()) {
            let i = player
                .find_nth_where(step.at.nth, |e| step.at.matches(e))
                .expect("the event happens");
            // Where it stops: before the decision (its `before` event).
            let stop = match &step.before {
                Some(b) => player.find_nth_where(b.nth, |e| b.matches(e)).unwrap(),
                None => i,
            };
            // Go to just before it (the slider), then play one step: the
            // question stops the simulation there.
            seek_to(&root, stop).await;
            click(&root, "#btn-step").await;
            let question = q(&root, "#question").text_content().unwrap();
            assert!(
                question.contains(&step.ask.as_ref().unwrap().en),
                "{name}: {question}"
            );
            let truth = kafka_visualiser::state::lesson::answer_at(
                &mut player,
                i,
                step.answer.as_deref().unwrap(),
            )
            .unwrap();
            let k = step
                .choices
                .iter()
                .position(|c| *c == truth)
                .unwrap_or_else(|| panic!("{name}: {truth} is not a choice"));
            click(&root, &format!("#choice-{k}")).await;
            assert!(
                q(&root, "#feedback").class_name().contains("right"),
                "{name}"
            );
            answered += 1;
        }
        assert_eq!(answered, asked, "{name}: every question was asked");
        // And on to the end of the scenario.
        player.seek(u64::MAX);
        seek_to(&root, player.known_len()).await;
        assert!(root.query_selector("#question").unwrap().is_none());
        assert!(q(&root, "#score")
            .text_content()
            .unwrap()
            .starts_with(&format!("{asked} of {asked}")));
    }
}

#[wasm_bindgen_test]
async fn a_malformed_lesson_is_named_and_the_current_work_stays() {
    let root = mount().await;
    for _ in 0..3 {
        click(&root, "#btn-step").await;
    }
    let position = q(&root, "#position").text_content();
    let bad = SCENARIO.replace("\"answer\": \"/leader\"", "\"answer\": \"leader\"");
    choose_file(&root, "lesson.json", &bad).await;
    let err = q(&root, "#error").text_content().unwrap();
    assert!(err.contains("lesson.steps[1].answer"), "{err}");
    assert_eq!(q(&root, "#position").text_content(), position);
}

fn set_hash(h: &str) {
    let w = web_sys::window().unwrap();
    let path = w.location().pathname().unwrap();
    let url = if h.is_empty() {
        path
    } else {
        format!("{path}#{h}")
    };
    w.history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
        .unwrap();
}

#[wasm_bindgen_test]
async fn a_share_link_reopens_the_same_scenario_step_and_view_and_a_bad_one_is_named() {
    let root = mount_with(Some(without_lesson(EXAMPLE_TEXTS[4].1))).await;
    for _ in 0..12 {
        click(&root, "#btn-step").await;
    }
    click(&root, "#tab-groups").await;
    let position = q(&root, "#position").text_content().unwrap();
    click(&root, "#btn-share").await;
    let link: web_sys::HtmlInputElement = q(&root, "#share-link input").dyn_into().unwrap();
    let link = link.value();
    let frag = link.split_once('#').unwrap().1.to_string();
    assert!(
        frag.starts_with("s=") && frag.contains("&view=groups"),
        "{frag}"
    );
    // Open the link in a fresh page (the fragment is all it needs).
    set_hash(&frag);
    let again = mount_with(None).await;
    yew::scheduler::flush().await;
    assert_eq!(q(&again, "#position").text_content().unwrap(), position);
    assert!(
        again.query_selector("#changes").unwrap().is_none(),
        "a link lands on its step without the list a log click shows"
    );
    assert!(q(&again, ".scenario-name")
        .text_content()
        .unwrap()
        .contains("Consumer group"));
    q(&again, "#groups");
    // A damaged link: the default scenario opens and the page says why.
    set_hash("s=!!!notbase64");
    let bad = mount_with(None).await;
    assert!(q(&bad, "#error")
        .text_content()
        .unwrap()
        .contains("the link"));
    assert!(q(&bad, ".scenario-name")
        .text_content()
        .unwrap()
        .contains("Leader failover"));
    set_hash("");
}

fn local_storage() -> web_sys::Storage {
    web_sys::window().unwrap().local_storage().unwrap().unwrap()
}

#[wasm_bindgen_test]
async fn practice_asks_engine_graded_questions_and_keeps_a_running_score() {
    local_storage()
        .remove_item(kafka_visualiser::state::progress::KEY)
        .unwrap();
    let root = mount().await;
    click(&root, "#tab-practice").await;
    for kind in ["0", "6", "8"] {
        // Partition for a key, offset lookup, compaction.
        choose(&root, "#practice-kind", kind).await;
        choose(&root, "#practice-level", "2").await;
        assert!(!q(&root, "#practice-question")
            .text_content()
            .unwrap()
            .is_empty());
    }
    // Answer: the engine's answer is marked, and the score counts it.
    click(&root, "#practice-choice-0").await;
    let fb = q(&root, "#practice-feedback");
    assert!(fb.text_content().unwrap().contains("The simulation says"));
    let right = fb.class_name().contains("right");
    assert_eq!(
        q(&root, "#practice-score").text_content().unwrap(),
        format!("Score: {} right of 1 answered", u32::from(right))
    );
    q(&root, ".choice.is-answer");
    // Saved in the browser; the next question is a new one.
    let saved = local_storage()
        .get_item(kafka_visualiser::state::progress::KEY)
        .unwrap()
        .unwrap();
    assert!(
        saved.contains(&format!("practice 1 {}", u32::from(right))),
        "{saved}"
    );
    let before = q(&root, "#practice-question").text_content().unwrap();
    click(&root, "#practice-next").await;
    assert!(root.query_selector("#practice-feedback").unwrap().is_none());
    assert_ne!(
        q(&root, "#practice-question").text_content().unwrap(),
        before
    );
    // The election is drawn as an AR/ISR/live table whose brokers answer
    // when clicked; the dead leader is marked.
    choose(&root, "#practice-kind", "3").await;
    let rows = root
        .query_selector_all("#practice-figure table tr")
        .unwrap()
        .length();
    assert!(rows >= 4, "a header and at least three replicas: {rows}");
    q(&root, "#practice-figure .died");
    let cell = q(&root, "#practice-figure button.cell[data-choice]");
    let value = cell.get_attribute("data-choice").unwrap();
    click(&root, "#practice-figure button.cell[data-choice]").await;
    let fb = q(&root, "#practice-feedback");
    let right = fb.class_name().contains("right");
    assert!(
        q(&root, "#practice-score")
            .text_content()
            .unwrap()
            .ends_with("of 2 answered"),
        "the drawing's answer counts"
    );
    // Exactly one drawn or listed choice is marked the answer, and a wrong
    // click is struck through on the drawing.
    q(&root, "#practice-figure .cell.is-answer, .choice.is-answer");
    if !right {
        let wrong = q(&root, "#practice-figure .cell.is-wrong");
        assert_eq!(wrong.get_attribute("data-choice").unwrap(), value);
    }
}

#[wasm_bindgen_test]
async fn lesson_answers_are_saved_and_unreadable_progress_is_reset_with_a_message() {
    let store = local_storage();
    store
        .set_item(
            kafka_visualiser::state::progress::KEY,
            "not progress at all",
        )
        .unwrap();
    let root = mount().await;
    assert!(q(&root, "#notice")
        .text_content()
        .unwrap()
        .contains("could not be read"));
    assert!(store
        .get_item(kafka_visualiser::state::progress::KEY)
        .unwrap()
        .unwrap()
        .starts_with("kafka-visualiser progress 1"));
    // Open the built-in lesson and answer its first question.
    choose_example(&root, "leader-failover.json").await;
    assert!(step_to_question(&root).await);
    click(&root, "#choice-1").await;
    assert!(q(&root, "#feedback").class_name().contains("right"));
    let saved = store
        .get_item(kafka_visualiser::state::progress::KEY)
        .unwrap()
        .unwrap();
    assert!(saved.contains("lesson leader-failover 2 1=1"), "{saved}");
}

#[wasm_bindgen_test]
async fn a_challenge_link_holds_the_simulation_at_the_first_unanswered_question() {
    set_hash("challenge=1");
    let root = mount_with(Some(SCENARIO.to_string())).await;
    set_hash("");
    // Scrub far past both questions: the page comes back to the first one.
    seek_to(&root, 200).await;
    let question = q(&root, "#question").text_content().unwrap();
    assert!(question.contains("AR [1,0,2]"), "{question}");
    assert!(!q(&root, "#caption")
        .text_content()
        .unwrap()
        .contains("leader none → 1"));
    // The jump to the next election is held there too.
    click(&root, "#btn-next-kind").await;
    q(&root, "#question");
    // Answered (wrongly): the simulation moves on, to the next question only.
    click(&root, "#choice-0").await;
    assert!(q(&root, "#feedback").class_name().contains("wrong"));
    seek_to(&root, 200).await;
    assert!(q(&root, "#question")
        .text_content()
        .unwrap()
        .contains("Broker 1, the leader, died"));
}

#[wasm_bindgen_test]
async fn embed_mode_shows_the_drawing_and_plays_between_its_steps_in_a_loop() {
    set_hash("embed=1&from=10&to=16&loop=1");
    let root = mount().await;
    set_hash("");
    q(&root, "#embed");
    assert!(
        root.query_selector("header").unwrap().is_none(),
        "no page chrome"
    );
    assert!(root.query_selector("#event-log").unwrap().is_none());
    q(&root, "#cluster");
    assert!(q(&root, "#position")
        .text_content()
        .unwrap()
        .starts_with("event 10 of"));
    // Fastest speed, then watch the cursor: it stays in [10, 16] and starts over.
    for _ in 0..3 {
        click(&root, "#btn-speed").await;
    }
    let (mut seen, mut looped, mut last) = (Vec::new(), false, 10);
    for _ in 0..40 {
        gloo_timers::future::TimeoutFuture::new(60).await;
        yew::scheduler::flush().await;
        let text = q(&root, "#position").text_content().unwrap();
        let n: u64 = text.split_whitespace().nth(1).unwrap().parse().unwrap();
        looped |= n < last;
        last = n;
        seen.push(n);
    }
    assert!(seen.iter().all(|n| (10..=16).contains(n)), "{seen:?}");
    assert!(
        seen.contains(&16) && looped,
        "it played to 16 and looped: {seen:?}"
    );
}

#[wasm_bindgen_test]
async fn the_scenario_trace_and_view_export_as_files() {
    let root = mount().await;
    for _ in 0..20 {
        click(&root, "#btn-step").await;
    }
    choose(&root, "#export", "scenario").await;
    let (name, len, _) = kafka_visualiser::io::browser::last_download().unwrap();
    assert_eq!(name, "leader-failover.json");
    assert_eq!(len, without_lesson(SCENARIO).len());
    choose(&root, "#export", "trace").await;
    let (name, len, _) = kafka_visualiser::io::browser::last_download().unwrap();
    assert_eq!(name, "leader-failover-trace.json");
    assert!(len > 1000);
    for (what, magic) in [("svg", "<svg".as_bytes()), ("png", b"\x89PNG".as_slice())] {
        choose(&root, "#export", what).await;
        let mut got = None;
        for _ in 0..100 {
            gloo_timers::future::TimeoutFuture::new(30).await;
            got = kafka_visualiser::io::browser::last_download_bytes()
                .filter(|(n, _)| n.ends_with(&format!(".{what}")));
            if got.is_some() {
                break;
            }
        }
        let (name, bytes) = got.unwrap_or_else(|| panic!("no .{what} download"));
        assert_eq!(name, format!("leader-failover.{what}"));
        assert!(
            bytes.starts_with(magic),
            "{what} starts with {:?}",
            &bytes[..8.min(bytes.len())]
        );
    }
    // A view without a drawing says so, and nothing else changes.
    click(&root, "#tab-practice").await;
    choose(&root, "#export", "svg").await;
    for _ in 0..20 {
        gloo_timers::future::TimeoutFuture::new(20).await;
        yew::scheduler::flush().await;
    }
    assert!(q(&root, "#error")
        .text_content()
        .unwrap()
        .contains("no drawing to export"));
}

#[wasm_bindgen_test]
async fn kafka_topics_describe_opens_under_the_cluster_and_follows_the_step() {
    let root = mount().await;
    seek_to(&root, 150).await;
    // Closed at first: nothing computed, nothing shown.
    let pre = q(&root, "#describe-topics pre").text_content().unwrap();
    assert!(!pre.contains("Topic: first"), "{pre}");
    click(&root, "#describe-topics summary").await;
    // `toggle` is fired after the click's task.
    gloo_timers::future::TimeoutFuture::new(30).await;
    yew::scheduler::flush().await;
    let pre = q(&root, "#describe-topics pre").text_content().unwrap();
    assert!(pre.starts_with("$ kafka-topics.sh"), "{pre}");
    assert!(pre.contains("Topic: first\tTopicId: "), "{pre}");
    assert!(pre.contains("\tPartition: 0\tLeader: "), "{pre}");
    assert!(pre.contains("\tElr: N/A\tLastKnownElr: N/A"), "{pre}");
    assert!(!pre.contains("__consumer_offsets"), "--exclude-internal");
}

#[wasm_bindgen_test]
async fn the_zookeeper_tree_shows_znodes_and_marks_the_one_just_written() {
    let root = mount().await;
    // Step one event at a time (routine ones too) to the partition state znode.
    click(&root, "#routine").await;
    let state = "/brokers/topics/first/partitions/0/state";
    let mut found = false;
    for _ in 0..200 {
        click(&root, "#btn-step").await;
        if root
            .query_selector(&format!("#zk-tree li.changed[data-path=\"{state}\"]"))
            .unwrap()
            .is_some()
        {
            found = true;
            break;
        }
    }
    assert!(found, "the state znode was never marked as written");
    assert!(q(&root, "#caption").text_content().unwrap().contains(state));
    let li = q(&root, &format!("#zk-tree li[data-path=\"{state}\"]"));
    assert!(
        li.text_content().unwrap().contains("\"leader\":1"),
        "{:?}",
        li.text_content()
    );
    for b in 0..3 {
        let id = q(
            &root,
            &format!("#zk-tree li[data-path=\"/brokers/ids/{b}\"]"),
        );
        assert!(id.class_name().contains("ephemeral"));
    }
    q(&root, "#zk-tree li[data-path=\"/controller\"]");
    assert_eq!(
        root.query_selector_all("#zk-tree li.changed")
            .unwrap()
            .length(),
        1
    );
}

#[wasm_bindgen_test]
async fn acting_on_the_cluster_branches_the_timeline_at_the_cursor() {
    let root = mount().await;
    for _ in 0..30 {
        click(&root, "#btn-step").await;
    }
    let position = q(&root, "#position").text_content().unwrap();
    let before = log_texts(&root);
    // A plain click on a broker does nothing: exploring never branches.
    fire(&q(&root, "#cluster #broker-2"), "click");
    yew::scheduler::flush().await;
    assert!(root.query_selector("#notice").unwrap().is_none());
    assert!(root.query_selector("#node-menu").unwrap().is_none());
    // Its menu (right-click) offers what can be done to it; kill it: it is
    // killed one millisecond later.
    right_click(&q(&root, "#cluster #broker-2"));
    yew::scheduler::flush().await;
    assert!(q(&root, "#node-menu")
        .text_content()
        .unwrap()
        .contains("Broker 2"));
    assert!(
        root.query_selector("#menu-restart").unwrap().is_none(),
        "a live broker is not restarted"
    );
    click(&root, "#menu-kill").await;
    assert!(
        root.query_selector("#node-menu").unwrap().is_none(),
        "the menu closes"
    );
    // A producer has its own menu (closing it), named as the scenario names it.
    right_click(&q(&root, "#cluster #producer-0"));
    yew::scheduler::flush().await;
    let title = q(&root, "#node-menu").text_content().unwrap();
    assert!(title.contains("producer p"), "{title}");
    q(&root, "#menu-close-producer");
    click(&root, "#menu-close").await;
    assert!(root.query_selector("#node-menu").unwrap().is_none());
    assert!(q(&root, "#notice")
        .text_content()
        .unwrap()
        .contains("branches"));
    let step = |t: String| t.split(" of ").next().unwrap().to_string();
    assert_eq!(
        step(q(&root, "#position").text_content().unwrap()),
        step(position),
        "same step (the branch's total length differs)"
    );
    let after = log_texts(&root);
    assert_eq!(before, after, "the past is unchanged");
    // It happens one millisecond after the event the learner acted at.
    let caption = step_until_caption(&root, "You: kill broker 2", 10).await;
    assert!(
        caption.contains("You: kill broker 2"),
        "the kill never came"
    );
    assert!(q(&root, "#position")
        .text_content()
        .unwrap()
        .ends_with(" 3 ms"));
    // Send a record with a key typed by the learner: shown as text, never as HTML.
    type_into(&root, "#act-key", "<b>k</b>").await;
    click(&root, "#act-send").await;
    let caption = step_until_caption(&root, "p.send(", 10).await;
    assert!(caption.contains("key \"<b>k</b>\""), "{caption}");
    assert!(
        root.query_selector("#caption b").unwrap().is_none(),
        "no markup from user text"
    );
}

async fn type_into(root: &Element, sel: &str, text: &str) {
    let input: web_sys::HtmlInputElement = q(root, sel).dyn_into().unwrap();
    input.set_value(text);
    fire(&input, "input");
    yew::scheduler::flush().await;
}

#[wasm_bindgen_test]
async fn the_configuration_panel_applies_kafka_settings_and_names_a_refused_one() {
    let root = mount().await;
    let acks = "#cfg-producers-0-config-acks";
    let zk = "#cfg-cluster-config-zookeeper-session-timeout-ms";
    // The scenario's value, and Kafka's default as the placeholder.
    let input: web_sys::HtmlInputElement = q(&root, zk).dyn_into().unwrap();
    assert_eq!(
        (input.value(), input.placeholder()),
        ("6000".into(), "18000".into())
    );
    for _ in 0..10 {
        click(&root, "#btn-step").await;
    }
    let at = q(&root, "#position").text_content().unwrap();
    // A value the engine refuses: named, and nothing changes.
    type_into(&root, "#cfg-cluster-config-min-insync-replicas", "zero").await;
    click(&root, "#config-apply").await;
    let err = q(&root, "#error").text_content().unwrap();
    assert!(err.contains("min.insync.replicas"), "{err}");
    assert_eq!(q(&root, "#position").text_content().unwrap(), at);
    // acks=1 with enable.idempotence=true set explicitly breaks Kafka's
    // rule for the idempotent producer: refused with Kafka's reason.
    let idempotence = "#cfg-producers-0-config-enable-idempotence";
    type_into(&root, "#cfg-cluster-config-min-insync-replicas", "").await;
    type_into(&root, acks, "1").await;
    type_into(&root, idempotence, "true").await;
    click(&root, "#config-apply").await;
    let err = q(&root, "#error").text_content().unwrap();
    assert!(err.contains("idempotent producer"), "{err}");
    // Left at its default, idempotence gives way to acks=1 (Kafka 3.9 turns
    // it off quietly): it applies, and the scenario starts again.
    type_into(&root, acks, "1").await;
    type_into(&root, idempotence, "").await;
    click(&root, "#config-apply").await;
    assert!(q(&root, "#position")
        .text_content()
        .unwrap()
        .starts_with("event 0 of"));
    let input: web_sys::HtmlInputElement = q(&root, acks).dyn_into().unwrap();
    assert_eq!(input.value(), "1");
    let acked = step_until_caption(&root, "acknowledged", 300).await;
    assert!(acked.contains("(acks=1)"), "{acked}");
}

#[wasm_bindgen_test]
async fn the_producer_inspector_follows_a_record_through_the_pipeline() {
    let root = mount().await;
    click(&root, "#tab-producer").await;
    assert!(q(&root, "#producer-inspector")
        .text_content()
        .unwrap()
        .contains("No record sent yet."));
    step_until_caption(&root, "acknowledged", 400).await;
    let text = q(&root, "#producer-inspector").text_content().unwrap();
    // The partitioner's arithmetic, with the engine's murmur2 of "k".
    let h = kafka_sim::partitioner::murmur2(b"k");
    assert!(text.contains(&format!("murmur2(keyBytes) = {h}")), "{text}");
    assert!(text.contains(&format!("& 0x7fffffff = {}", h & 0x7fff_ffff)));
    assert!(text.contains("% 1 partitions = 0"), "{text}");
    assert!(text.contains("baseSequence 0"), "{text}");
    // Every stage up to the acknowledgement is reached; the last is now.
    let reached = root
        .query_selector_all("#producer-inspector .stage-box.reached")
        .unwrap()
        .length();
    assert_eq!(reached, 5, "all but the interceptors (none installed)");
    assert!(q(&root, ".stage-box.now")
        .text_content()
        .unwrap()
        .contains("Acknowledged"));
    // A stage's button seeks to its event: the serializer's.
    let before = q(&root, "#position").text_content().unwrap();
    click(&root, ".js-serializer button").await;
    let caption = q(&root, "#caption").text_content().unwrap();
    assert!(caption.contains("StringSerializer"), "{caption}");
    assert_ne!(q(&root, "#position").text_content().unwrap(), before);
    assert!(q(&root, ".js-serializer").class_name().contains("now"));
    // The key 2 opens this view too.
    click(&root, "#tab-cluster").await;
    let ev = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &{
        let i = web_sys::KeyboardEventInit::new();
        i.set_key("2");
        i.set_bubbles(true);
        i
    })
    .unwrap();
    web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .dispatch_event(&ev)
        .unwrap();
    yew::scheduler::flush().await;
    assert!(root
        .query_selector("#producer-inspector")
        .unwrap()
        .is_some());
    click(&root, "#tab-cluster").await;
}

/// The storage-lookup lesson's scenario with an index entry every 700
/// bytes (the lesson has 400): one entry, 3 → 756, in segment 0.
fn storage_lookup_sparser() -> String {
    let text = include_str!("../static/lessons/storage-lookup.json");
    let sparser = text.replace(
        "\"index.interval.bytes\": 400",
        "\"index.interval.bytes\": 700",
    );
    assert_ne!(sparser, text);
    sparser
}

#[wasm_bindgen_test]
async fn the_storage_inspector_runs_a_lookup_probe_by_probe_and_shows_batch_bytes() {
    let root = mount_with(Some(without_lesson(&storage_lookup_sparser()))).await;
    // After the four batches are written (offset 3 at position 756).
    step_until_caption(&root, "wrote .index entry 3 → 756", 400).await;
    click(&root, "#tab-storage").await;
    choose(&root, "#storage-partition", "0:first-0").await;
    // The hex view shows the first batch: 61 header bytes named as Kafka names them.
    let fields = q(&root, "#storage-fields").text_content().unwrap();
    for name in [
        "baseOffset",
        "batchLength",
        "partitionLeaderEpoch",
        "crc",
        "recordsCount",
        "record[0].offsetDelta",
    ] {
        assert!(fields.contains(name), "{name} in {fields}");
    }
    // Bad input is named and nothing changes.
    type_into(&root, "#lookup-value", "three").await;
    click(&root, "#btn-lookup").await;
    assert!(q(&root, "#error")
        .text_content()
        .unwrap()
        .contains("\"three\" is not a whole number"));
    click(&root, "#error button").await;
    // Look offset 3 up: a command at this step, then each probe one step at a time.
    type_into(&root, "#lookup-value", "3").await;
    click(&root, "#btn-lookup").await;
    assert!(root.query_selector("#error").unwrap().is_none());
    // One segment so far: the lookup starts by choosing it.
    let c = step_until_caption(&root, "Lookup of offset 3", 50).await;
    assert!(c.contains("chose segment 00000000000000000000"), "{c}");
    assert_eq!(
        root.query_selector_all("#storage-lookup li")
            .unwrap()
            .length(),
        1,
        "only the probes made so far are listed"
    );
    assert!(root
        .query_selector("#storage-files tr.probed")
        .unwrap()
        .is_some());
    step_until_caption(&root, ".index", 5).await;
    let probed = q(&root, "#storage-index tr.probed").text_content().unwrap();
    assert!(probed.contains("offset 3 → position 756"), "{probed}");
    step_until_caption(&root, "scanned batch at position 756", 5).await;
    let probed = q(&root, "#storage-batches tr.probed")
        .text_content()
        .unwrap();
    assert!(probed.contains("756"), "{probed}");
    // The hex view follows the scan to that batch.
    assert!(q(&root, "#storage-hex h3")
        .text_content()
        .unwrap()
        .contains("position 756"));
    // Picking another batch shows its bytes.
    click(&root, "#storage-batches tbody tr:first-child button").await;
    assert!(q(&root, "#storage-hex h3")
        .text_content()
        .unwrap()
        .contains("position 0 "));
    // A step's button seeks back to it.
    click(&root, "#storage-lookup li:first-child button").await;
    assert!(q(&root, "#caption")
        .text_content()
        .unwrap()
        .contains("chose segment"));
    click(&root, "#tab-cluster").await;
}

#[wasm_bindgen_test]
async fn clicking_a_log_line_seeks_there_and_lists_what_that_event_changed() {
    let root = mount().await;
    step_until_caption(&root, "(leader) appended offsets 0–0", 200).await;
    // Further on, then back by clicking the append's line in the log.
    for _ in 0..3 {
        click(&root, "#btn-step").await;
    }
    assert!(
        root.query_selector("#changes").unwrap().is_none(),
        "only after a click"
    );
    let lines = root.query_selector_all("#event-log li.line").unwrap();
    let line = (0..lines.length())
        .map(|i| lines.item(i).unwrap().dyn_into::<HtmlElement>().unwrap())
        .find(|l| {
            l.text_content()
                .unwrap()
                .contains("(leader) appended offsets 0–0")
        })
        .expect("the append is in the log");
    line.click();
    yew::scheduler::flush().await;
    assert!(q(&root, "#caption")
        .text_content()
        .unwrap()
        .contains("(leader) appended"));
    let changes = q(&root, "#changes").text_content().unwrap();
    assert!(
        changes.contains("broker 1 · first-0 · LEO: 0 → 1"),
        "{changes}"
    );
    // The drawing marks the replica that changed, and only it.
    let marked = root
        .query_selector_all("#cluster .replica.changed")
        .unwrap();
    assert_eq!(marked.length(), 1);
    // Stepping on clears the list (it belongs to the clicked event).
    click(&root, "#btn-step").await;
    assert!(root.query_selector("#changes").unwrap().is_none());
}

#[wasm_bindgen_test]
async fn adding_a_consumer_from_the_toolbar_makes_the_group_rebalance_to_three_members() {
    // Without its lesson, whose questions would hold the steps.
    let root = mount_with(Some(without_lesson(include_str!(
        "../scenarios/group-rebalance.json"
    ))))
    .await;
    seek_to(&root, 460).await;
    assert_eq!(
        q(&root, "#act-group")
            .dyn_into::<web_sys::HtmlInputElement>()
            .unwrap()
            .value(),
        "shop",
        "the group in use is offered"
    );
    click(&root, "#act-add-consumer").await;
    assert!(root.query_selector("#error").unwrap().is_none());
    // The command is the next thing that happens: the consumer starts,
    // joins, and the members rejoin at their next heartbeat (~2.7 s later).
    let c = step_until_caption(&root, "You: start consumer consumer-2", 20).await;
    assert!(c.contains("You: start consumer consumer-2"), "{c}");
    seek_to(&root, 840).await;
    let c = step_until_caption(&root, "generation 2 with 3 member(s)", 300).await;
    assert!(root.query_selector("#consumer-2").unwrap().is_some());
    assert!(c.contains("shop generation 2 with 3 member(s)"), "{c}");
    click(&root, "#tab-groups").await;
    let groups = q(&root, "#groups").text_content().unwrap();
    assert!(groups.contains("consumer-2"), "{groups}");
    click(&root, "#tab-cluster").await;
}

#[wasm_bindgen_test]
async fn clicking_a_message_in_flight_shows_what_it_carries() {
    let root = mount().await;
    let c = step_until_caption(&root, "Producer p → broker 1: Produce", 200).await;
    assert!(c.contains("acks=all"), "{c}");
    let msg = q(&root, "#cluster g.msg[data-api='Produce']");
    assert_eq!(
        msg.get_attribute("tabindex").as_deref(),
        Some("0"),
        "reachable by Tab"
    );
    fire(&msg, "click");
    yew::scheduler::flush().await;
    let d = q(&root, "#msg-detail").text_content().unwrap();
    assert!(d.contains("Produce · producer p → broker 1"), "{d}");
    assert!(d.contains("sent at 120 ms · arrives at 125 ms"), "{d}");
    assert!(d.contains("\"correlation_id\""), "{d}");
    assert!(
        d.contains("68656c6c6f"),
        "the batch bytes, value hello: {d}"
    );
    click(&root, "#msg-detail-close").await;
    assert!(root.query_selector("#msg-detail").unwrap().is_none());
    // Delivered: the details go with the message.
    fire(&q(&root, "#cluster g.msg[data-api='Produce']"), "click");
    yew::scheduler::flush().await;
    assert!(root.query_selector("#msg-detail").unwrap().is_some());
    step_until_caption(&root, "(leader) appended", 20).await;
    assert!(root.query_selector("#msg-detail").unwrap().is_none());
}

#[wasm_bindgen_test]
async fn a_link_is_cut_from_the_menu_of_a_message_on_it_and_healed_from_its_mark() {
    let root = mount().await;
    step_until_caption(&root, "Producer p → broker 1: Produce", 200).await;
    assert!(root.query_selector("#cluster .net-link").unwrap().is_none());
    // The message's menu is its link's: producer p ↔ broker 1.
    right_click(&q(&root, "#cluster g.msg[data-api='Produce']"));
    yew::scheduler::flush().await;
    let title = q(&root, "#node-menu .menu-title").text_content().unwrap();
    assert_eq!(title, "Link: producer p ↔ broker 1");
    assert_eq!(
        q(&root, "#menu-cut-link").text_content().unwrap(),
        "Cut this link"
    );
    click(&root, "#menu-cut-link").await;
    let caption = step_until_caption(&root, "You: cut", 10).await;
    assert!(caption.contains("producer p–broker 1"), "{caption}");
    step_until_caption(&root, "is cut", 5).await;
    // The cut link is drawn, and its mark's menu heals it.
    let mark = q(&root, "#cluster #link-broker-1-producer-0 .handle");
    assert!(
        mark.get_attribute("aria-label")
            .unwrap()
            .contains("broker 1 ↔ producer p"),
        "named by the clients' names"
    );
    right_click(&q(&root, "#cluster #link-broker-1-producer-0"));
    yew::scheduler::flush().await;
    click(&root, "#menu-heal-link").await;
    step_until_caption(&root, "is healthy", 10).await;
    assert!(root.query_selector("#cluster .net-link").unwrap().is_none());
    // A broker's menu lists its links to the other brokers.
    right_click(&q(&root, "#cluster #broker-0"));
    yew::scheduler::flush().await;
    q(&root, "#menu-cut-link-broker-1");
    q(&root, "#menu-cut-link-broker-2");
    assert!(root
        .query_selector("#menu-cut-link-broker-0")
        .unwrap()
        .is_none());
}

#[wasm_bindgen_test]
async fn a_message_keeps_its_drawing_between_steps_so_it_glides() {
    let root = mount().await;
    step_until_caption(&root, "→ producer p: MetadataResponse", 200).await;
    let drawn = |root: &Element| -> Vec<(String, web_sys::Node)> {
        let msgs = root.query_selector_all("#cluster g.msg").unwrap();
        (0..msgs.length())
            .map(|i| {
                let n = msgs.item(i).unwrap();
                let id = n
                    .dyn_ref::<Element>()
                    .unwrap()
                    .get_attribute("data-id")
                    .unwrap();
                (id, n)
            })
            .collect()
    };
    // Over some steps, messages arrive while others stay on the wire: each
    // one still flying is the same element (its circle's cx/cy transition
    // glides it), even when one drawn before it has gone.
    let mut shifted = 0;
    for _ in 0..60 {
        let before = drawn(&root);
        click(&root, "#btn-step").await;
        let after = drawn(&root);
        for (j, (id, node)) in after.iter().enumerate() {
            if let Some(i) = before.iter().position(|(b, _)| b == id) {
                assert!(
                    node.is_same_node(Some(&before[i].1)),
                    "message {id} was redrawn from scratch"
                );
                if i != j {
                    shifted += 1;
                }
            }
        }
    }
    assert!(shifted > 0, "no message outlived one drawn before it");
}

/// The messages drawn with a translation from their event's position
/// (`transform`), by id.
fn moved_messages(root: &Element) -> Vec<(String, String)> {
    let msgs = root
        .query_selector_all("#cluster g.msg[transform]")
        .unwrap();
    (0..msgs.length())
        .filter_map(|i| {
            let e = msgs.item(i)?.dyn_into::<Element>().ok()?;
            let t = e.get_attribute("transform")?;
            let id = e.get_attribute("data-id")?;
            (t != "translate(0 0)").then_some((id, t))
        })
        .collect()
}

#[wasm_bindgen_test]
async fn while_playing_messages_travel_between_steps_on_the_simulated_clock() {
    let root = mount().await;
    // Where requests are on the wire and the clock moves on.
    seek_to(&root, 40).await;
    click(&root, "#btn-play").await;
    let playing = |root: &Element| {
        q(root, "#cluster")
            .get_attribute("class")
            .unwrap_or_default()
            .split(' ')
            .any(|c| c == "playing")
    };
    assert!(
        playing(&root),
        "not playing: {:?} {:?} {:?} {:?}",
        web_sys::window().unwrap().location().hash(),
        q(&root, "#position").text_content(),
        q(&root, "#btn-play").get_attribute("aria-label"),
        q(&root, "#cluster").get_attribute("class")
    );
    // Within a step's interval, a message in flight moves on from where
    // its event drew it, frame by frame, while the event shown stays: some
    // message shows two different translations at the same event.
    let mut seen: std::collections::BTreeMap<(String, String), std::collections::BTreeSet<String>> =
        Default::default();
    let mut moving = None;
    for _ in 0..400 {
        gloo_timers::future::TimeoutFuture::new(25).await;
        let position = q(&root, "#position").text_content().unwrap();
        for (id, t) in moved_messages(&root) {
            let ts = seen.entry((position.clone(), id.clone())).or_default();
            ts.insert(t);
            if ts.len() >= 2 {
                moving = Some((position.clone(), id));
            }
        }
        if moving.is_some() {
            break;
        }
    }
    assert!(
        moving.is_some(),
        "no message moved between steps while playing: {seen:?}"
    );
    // Paused, every message is drawn where the event shown puts it.
    click(&root, "#btn-play").await;
    assert!(!playing(&root));
    assert_eq!(
        root.query_selector_all("#cluster g.msg[transform]")
            .unwrap()
            .length(),
        0
    );
}

#[wasm_bindgen_test]
async fn adding_a_producer_from_the_toolbar_starts_it_and_it_can_send() {
    let root = mount().await;
    step_until_caption(&root, "acknowledged", 300).await;
    click(&root, "#act-add-producer").await;
    assert!(root.query_selector("#error").unwrap().is_none());
    let c = step_until_caption(&root, "You: start producer producer-1", 20).await;
    assert!(c.contains("start producer producer-1"), "{c}");
    // Once it has started (its first request), it is in the drawing and can
    // be chosen to send a record.
    step_until_caption(&root, "Producer producer-1 →", 20).await;
    assert!(root.query_selector("#producer-1").unwrap().is_some());
    choose(&root, "#act-producer", "producer-1").await;
    type_into(&root, "#act-key", "k2").await;
    click(&root, "#act-send").await;
    let c = step_until_caption(&root, "Producer producer-1: record #1 acknowledged", 400).await;
    assert!(
        c.contains("Producer producer-1: record #1 acknowledged"),
        "{c}"
    );
}

#[wasm_bindgen_test]
async fn closing_a_producer_from_the_toolbar_finishes_its_sends_and_refuses_new_ones() {
    let root = mount().await;
    step_until_caption(&root, "acknowledged", 300).await;
    click(&root, "#act-close-producer").await;
    assert!(root.query_selector("#error").unwrap().is_none());
    let c = step_until_caption(&root, ".close()", 20).await;
    assert!(c.contains(".close()"), "{c}");
    let c = step_until_caption(&root, "close() called", 5).await;
    assert!(c.contains("close() called"), "{c}");
    let c = step_until_caption(&root, "close() returned", 400).await;
    assert!(c.contains("close() returned"), "{c}");
    // Drawn as stopped, and a later send is refused with Kafka's exception.
    let class = q(&root, "#producer-0").get_attribute("class").unwrap();
    assert!(class.contains("dead"), "{class}");
    click(&root, "#act-send").await;
    let c = step_until_caption(&root, "IllegalStateException", 10).await;
    assert!(c.contains("IllegalStateException"), "{c}");
}

#[wasm_bindgen_test]
async fn force_closing_a_producer_from_the_toolbar_aborts_what_is_unanswered_at_once() {
    let root = mount().await;
    step_until_caption(&root, "acknowledged", 300).await;
    click(&root, "#act-force-close-producer").await;
    assert!(root.query_selector("#error").unwrap().is_none());
    let c = step_until_caption(&root, ".close(Duration.ZERO)", 20).await;
    assert!(c.contains(".close(Duration.ZERO)"), "{c}");
    let c = step_until_caption(&root, "force close", 5).await;
    assert!(c.contains("force close"), "{c}");
    let c = step_until_caption(&root, "close() returned after the force close", 50).await;
    assert!(c.contains("after the force close"), "{c}");
    let class = q(&root, "#producer-0").get_attribute("class").unwrap();
    assert!(class.contains("dead"), "{class}");
}

/// A bug ends in a named error over the page, not a dead tab (issue 18,
/// item 16): the panic hook's panel, its text only as text, and a link that
/// reopens the same address.
#[wasm_bindgen_test]
async fn an_internal_error_is_shown_by_name_with_a_way_back() {
    kafka_visualiser::show_internal_error("boom <b>not bold</b> at src/x.rs:1");
    let doc = web_sys::window().unwrap().document().unwrap();
    let panel = doc
        .get_element_by_id("internal-error")
        .expect("the panel is shown");
    assert_eq!(panel.get_attribute("role").as_deref(), Some("alertdialog"));
    let text = panel.text_content().unwrap();
    assert!(text.contains("boom <b>not bold</b>"), "{text}");
    assert!(text.contains("内部错误"), "{text}");
    assert!(
        panel.query_selector("b").unwrap().is_none(),
        "user text rendered as HTML"
    );
    let link = panel.query_selector("a").unwrap().expect("a reopen link");
    let href = link.get_attribute("href").unwrap();
    assert!(href.contains("?reopen="), "{href}");
    panel.remove();
}

/// The offset cells of one replica: (offset, leader epoch) per cell.
fn cells(root: &Element, broker: i32) -> Vec<(String, String)> {
    let list = root
        .query_selector_all(&format!("#broker-{broker} .replica .cell:not(.truncated)"))
        .unwrap();
    (0..list.length())
        .map(|i| {
            let e: Element = list.item(i).unwrap().dyn_into().unwrap();
            (
                e.get_attribute("data-offset").unwrap_or_default(),
                e.get_attribute("data-epoch").unwrap_or_default(),
            )
        })
        .collect()
}

#[wasm_bindgen_test]
async fn each_replica_log_is_drawn_as_offset_cells_coloured_by_leader_epoch() {
    // Without leader epochs (KIP-101) broker 2 keeps offsets 3 and 4 that the
    // new leader wrote differently: the drawing must show it.
    let text = example_text("kip101-divergence.json");
    let root = mount_with(Some(without_lesson(text))).await;
    let caption = step_until_caption(&root, "logs have diverged", 2000).await;
    assert!(caption.contains("diverged"), "{caption}");
    let (leader, follower) = (cells(&root, 1), cells(&root, 2));
    // One numbered cell per offset, as many as the LEO.
    let numbers: Vec<String> = leader.iter().map(|c| c.0.clone()).collect();
    assert_eq!(numbers, ["0", "1", "2", "3", "4"]);
    assert_eq!(follower.len(), 5);
    let first = q(&root, "#broker-1 .replica .cell").text_content().unwrap();
    assert_eq!(
        first, "offset 0 · leader epoch 00",
        "the title, then the number"
    );
    // Same offsets, same HW and LEO, different epochs from offset 3: the
    // records differ, and the cells say so.
    assert_eq!(leader[..3], follower[..3]);
    assert_ne!(leader[3].1, follower[3].1, "{leader:?} vs {follower:?}");
    assert_ne!(leader[4].1, follower[4].1);
    // Committed cells (below the HW) are marked.
    let committed = root
        .query_selector_all("#broker-1 .replica .cell.committed")
        .unwrap()
        .length();
    assert_eq!(committed, 5);
    // A stopped broker's replica is drawn down, not as a follower.
    let role = q(&root, "#broker-0 .replica").get_attribute("data-role");
    assert_eq!(role.as_deref(), Some("✕"));
}

/// What the lookup picture marks now: (class of each segment, of each index
/// entry, of each batch).
fn picture(root: &Element) -> [Vec<String>; 3] {
    let classes = |sel: &str| {
        let l = root.query_selector_all(sel).unwrap();
        (0..l.length())
            .map(|i| {
                let e: Element = l.item(i).unwrap().dyn_into().unwrap();
                format!(
                    "{}:{}",
                    e.get_attribute("data-at").unwrap_or_default(),
                    e.get_attribute("class").unwrap_or_default()
                )
            })
            .collect()
    };
    [
        classes("#lookup-picture g.seg"),
        classes("#lookup-picture g.entry"),
        classes("#lookup-picture g.batch-box"),
    ]
}

#[wasm_bindgen_test]
async fn the_lookup_is_drawn_as_a_binary_search_then_a_scan() {
    let root = mount_with(Some(without_lesson(&storage_lookup_sparser()))).await;
    let end: u64 = {
        let slider: web_sys::HtmlInputElement = q(&root, "#scrub").dyn_into().unwrap();
        slider.max().parse().unwrap()
    };
    seek_to(&root, end).await;
    click(&root, "#tab-storage").await;
    choose(&root, "#storage-partition", "0:first-0").await;
    // Offset 5: in segment 0 (segments 0 and 6), after its index entry 3 → 756.
    type_into(&root, "#lookup-value", "5").await;
    click(&root, "#btn-lookup").await;
    let mut seen = Vec::new();
    for _ in 0..30 {
        click(&root, "#btn-step").await;
        let caption = q(&root, "#caption").text_content().unwrap();
        if !caption.contains("Lookup of offset 5") {
            continue;
        }
        seen.push(picture(&root));
        if caption.contains("found offset 5") {
            break;
        }
    }
    let first = &seen[0];
    // The segment search: both segments in range, the middle one outlined.
    assert_eq!(first[0].len(), 2, "{first:?}");
    assert!(first[0].iter().any(|c| c.contains("mid")), "{first:?}");
    let last = seen.last().unwrap();
    // It settles on segment 0, its index entry 3 → 756, and scans from
    // 756 to the batch holding offset 5, at 1260.
    assert_eq!(last[0][0], "0:seg chosen", "{last:?}");
    assert_eq!(last[1], ["0:entry chosen"], "{last:?}");
    let batches = &last[2];
    assert!(
        batches.contains(&"0:batch-box skipped".to_string()),
        "{batches:?}"
    );
    assert!(
        batches.contains(&"756:batch-box scanned".to_string()),
        "{batches:?}"
    );
    assert!(
        batches
            .iter()
            .any(|b| b.starts_with("1260:") && b.contains("chosen")),
        "{batches:?}"
    );
    // Step by step: the picture grew row by row (segments, index, log).
    let rows: Vec<usize> = seen
        .iter()
        .map(|p| p.iter().filter(|r| !r.is_empty()).count())
        .collect();
    assert!(rows.windows(2).all(|w| w[0] <= w[1]), "{rows:?}");
    assert_eq!((rows[0], *rows.last().unwrap()), (1, 3), "{rows:?}");
}

#[wasm_bindgen_test]
async fn a_lesson_opens_with_its_setup_and_continue_walks_it_to_the_recap() {
    let root = mount_with(Some(SCENARIO.to_string())).await;
    // Before the first step: the setup (the scenario's description here).
    let setup = q(&root, "#lesson-setup").text_content().unwrap();
    assert!(setup.len() > 40, "{setup}");
    assert!(root.query_selector("#recap").unwrap().is_none());
    // Continue plays to each narration or question (the positions between
    // are drawn, frame by frame) and stops there; answer and go on. The
    // last press of all skips to the stop (a second press while playing).
    let position = || q(&root, "#position").text_content().unwrap();
    let playing = || q(&root, "#btn-play").get_attribute("aria-label").as_deref() == Some("Pause");
    let (mut stops, mut played) = (0, 0);
    for _ in 0..40 {
        if root.query_selector("#recap").unwrap().is_some() {
            break;
        }
        if root.query_selector("#question").unwrap().is_some() {
            click(&root, "#choice-0").await;
            q(&root, "#feedback");
        } else {
            let before = position();
            click(&root, "#btn-continue").await;
            let mut seen = std::collections::BTreeSet::new();
            for _ in 0..2_000 {
                if !playing() {
                    break;
                }
                seen.insert(position());
                gloo_timers::future::TimeoutFuture::new(20).await;
            }
            if playing() {
                click(&root, "#btn-continue").await;
            }
            assert!(!playing(), "Continue still playing after 40 s");
            seen.remove(&before);
            seen.remove(&position());
            if !seen.is_empty() {
                played += 1;
            }
            assert!(
                root.query_selector("#question").unwrap().is_some()
                    || root.query_selector("#say").unwrap().is_some()
                    || root.query_selector("#recap").unwrap().is_some(),
                "a stop without narration or question"
            );
            stops += 1;
        }
    }
    assert!(stops >= 2, "{stops}");
    assert!(played >= 1, "Continue never drew a step between two stops");
    // The end: a recap with the score, and no Continue button.
    let recap = q(&root, "#recap").text_content().unwrap();
    assert!(recap.contains("You answered"), "{recap}");
    assert!(root.query_selector("#btn-continue").unwrap().is_none());
}

#[wasm_bindgen_test]
async fn a_truncation_leaves_the_cut_offsets_struck_out_until_written_again() {
    let text = example_text("hw-truncation.json");
    let root = mount_with(Some(without_lesson(text))).await;
    let c = step_until_caption(&root, "Broker 2 truncated first-0 from LEO 7 to 5", 2000).await;
    assert!(c.contains("cut to its high watermark 5"), "{c}");
    // Offsets 5 and 6 are gone from broker 2's log: drawn struck out.
    let cut = root
        .query_selector_all("#broker-2 .replica .cell.truncated")
        .unwrap();
    let offsets: Vec<String> = (0..cut.length())
        .map(|i| {
            let e: Element = cut.item(i).unwrap().dyn_into().unwrap();
            e.get_attribute("data-offset").unwrap_or_default()
        })
        .collect();
    assert_eq!(offsets, ["5", "6"]);
    let kept: Vec<String> = cells(&root, 2).into_iter().map(|c| c.0).collect();
    assert_eq!(kept, ["0", "1", "2", "3", "4"]);
    // No other replica shows a cut it did not make.
    assert!(root
        .query_selector("#broker-0 .cell.truncated")
        .unwrap()
        .is_none());
}

/// Every text the page holds under `root` (text nodes outside code, and the
/// aria-label, title and placeholder attributes), one string each.
fn visible_strings(root: &Element) -> Vec<String> {
    let f = js_sys::Function::new_with_args(
        "root",
        r#"const out = [];
const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
let n;
while ((n = w.nextNode())) {
  const p = n.parentElement;
  if (!p || p.closest('code, kbd, script, style, .mono, .zname')) continue;
  const t = n.textContent.trim();
  if (t) out.push(t);
}
for (const el of root.querySelectorAll('[aria-label], [title], [placeholder]')) {
  if (el.closest('code, kbd, .mono')) continue;
  for (const a of ['aria-label', 'title', 'placeholder']) {
    const v = el.getAttribute(a);
    if (v) out.push(v);
  }
}
return JSON.stringify(out);"#,
    );
    let json = f.call1(&wasm_bindgen::JsValue::NULL, root).unwrap();
    serde_json::from_str(&json.as_string().unwrap()).unwrap()
}

#[wasm_bindgen_test]
async fn in_chinese_every_visible_string_is_chinese_or_a_kept_term() {
    let kept = glossary::kept_terms();
    assert!(kept.len() > 20, "docs/glossary.md lists its kept terms");
    let mut offenders: std::collections::BTreeMap<String, String> = Default::default();
    for scenario in [SCENARIO, example_text("group-rebalance.json")] {
        let names = glossary::scenario_names(scenario);
        let root = mount_with(Some(scenario.to_string())).await;
        if kafka_visualiser::io::browser::saved_lang() != Some(kafka_visualiser::i18n::Lang::Zh) {
            click(&root, "#btn-lang").await;
        }
        let mut look = |root: &Element, at: &str| {
            for s in visible_strings(root) {
                for w in glossary::english_words(&s, &kept, &names) {
                    offenders.entry(w).or_insert_with(|| format!("{at}: {s}"));
                }
            }
        };
        look(&root, "start");
        for n in [5u64, 60, 200, 100_000] {
            seek_to(&root, n).await;
            for tab in ["cluster", "producer", "storage", "groups"] {
                click(&root, &format!("#tab-{tab}")).await;
                look(&root, &format!("event {n}, {tab}"));
            }
        }
        click(&root, "#tab-practice").await;
        for kind in 0..kafka_sim::exercises::Kind::ALL.len() {
            choose(&root, "#practice-kind", &kind.to_string()).await;
            look(&root, &format!("practice {kind}"));
            click(&root, "#practice-choice-0").await;
            look(&root, &format!("practice {kind}, answered"));
        }
        click(&root, "#btn-lang").await;
        root.remove();
    }
    glossary::report(&offenders, "mode (what the page shows)");
}

#[wasm_bindgen_test]
async fn a_lesson_lists_its_chapters_and_a_chapter_button_jumps_there() {
    let root = mount_with(Some(SCENARIO.to_string())).await;
    let chapters = root.query_selector_all("#chapters button.chapter").unwrap();
    assert_eq!(chapters.length(), 2, "the default lesson has two chapters");
    assert!(q(&root, "#chapter-0").class_name().contains("current"));
    // "The leader dies" opens with a question: it is asked at once.
    click(&root, "#chapter-1").await;
    q(&root, "#question");
    assert!(q(&root, "#chapter-1").class_name().contains("current"));
    assert_eq!(
        q(&root, "#chapter-1")
            .get_attribute("aria-current")
            .as_deref(),
        Some("step")
    );
    // Back to the first chapter: its narration shows.
    click(&root, "#chapter-0").await;
    assert!(root.query_selector("#question").unwrap().is_none());
    assert!(q(&root, "#say")
        .text_content()
        .unwrap()
        .contains("/controller"));
    root.remove();
}

/// The event count the playback bar shows ("event 120 of 350 · …").
fn shown_step(root: &Element) -> u64 {
    let text = q(root, "#position").text_content().unwrap();
    text.split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no step in {text:?}"))
}

#[wasm_bindgen_test]
async fn the_metrics_view_charts_the_past_and_seeks_where_clicked() {
    let root = mount().await;
    seek_to(&root, 200).await;
    click(&root, "#tab-metrics").await;
    // One chart per metric group, under Kafka's names, and every value.
    let charts = root.query_selector_all("#metrics figure.chart").unwrap();
    assert_eq!(charts.length(), kafka_sim::metrics::CHARTS.len() as u32);
    assert!(q(&root, "#chart-0")
        .text_content()
        .unwrap()
        .contains("UnderReplicatedPartitions"));
    let table = q(&root, "#metrics-table").text_content().unwrap();
    assert!(
        table.contains("kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions"),
        "{table}"
    );
    assert!(table.contains("kafka.log:type=Log,name=LogEndOffset,topic=first,partition=0"));
    // The lines stop at the current moment (the run is simulated further).
    let now_x: f64 = q(&root, "#chart-2 line.now")
        .get_attribute("x1")
        .unwrap()
        .parse()
        .unwrap();
    let lines = root.query_selector_all("#chart-2 polyline").unwrap();
    assert!(lines.length() > 0);
    for i in 0..lines.length() {
        let pts = lines.item(i).unwrap().dyn_into::<Element>().unwrap();
        for p in pts.get_attribute("points").unwrap().split_whitespace() {
            let x: f64 = p.split(',').next().unwrap().parse().unwrap();
            assert!(
                x <= now_x + 0.05,
                "a point at {x} after the cursor at {now_x}"
            );
        }
    }
    // A step says what that event moved (or that nothing did).
    let mut moved = String::new();
    for _ in 0..30 {
        click(&root, "#btn-step").await;
        moved = q(&root, "#metrics-moved").text_content().unwrap();
        if moved.contains("kafka.") {
            break;
        }
    }
    assert!(moved.contains("What event #"), "{moved}");
    assert!(moved.contains("kafka."), "{moved}");
    assert!(
        root.query_selector("#metrics-table tr.changed")
            .unwrap()
            .is_some(),
        "the change is highlighted in the table"
    );
    // A click near the chart's left edge seeks back near the start.
    let before = shown_step(&root);
    let svg = q(&root, "#chart-0 svg");
    let rect = svg.get_bounding_client_rect();
    let init = web_sys::MouseEventInit::new();
    init.set_bubbles(true);
    init.set_client_x((rect.left() + rect.width() * 0.12) as i32);
    init.set_client_y((rect.top() + rect.height() / 2.0) as i32);
    svg.dispatch_event(
        &web_sys::MouseEvent::new_with_mouse_event_init_dict("click", &init).unwrap(),
    )
    .unwrap();
    yew::scheduler::flush().await;
    let after = shown_step(&root);
    assert!(
        after < before,
        "{after} after a click at the start, from {before}"
    );
    // → on a focused chart goes to the next sample: later, and by more
    // than the one event the page's own → steps.
    let fig = q(&root, "#chart-0");
    let ev = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &{
        let i = web_sys::KeyboardEventInit::new();
        i.set_key("ArrowRight");
        i.set_bubbles(true);
        i
    })
    .unwrap();
    fig.dispatch_event(&ev).unwrap();
    yew::scheduler::flush().await;
    assert!(shown_step(&root) > after);
}

/// While a question is open, the groups view holds back the assignors'
/// side-by-side results (they would answer it) and says why; once the
/// question is answered they are shown again, unless the next question
/// waits at the same stop (c1, then c3). And group-assignors brings
/// the Consumer groups view forward by itself.
#[wasm_bindgen_test]
async fn the_assignors_table_is_held_back_while_a_question_is_open() {
    let root = mount_with(Some(
        include_str!("../static/lessons/group-assignors.json").to_string(),
    ))
    .await;
    let (mut held, mut waiting) = (0, 0);
    for _ in 0..4 {
        if !step_to_question(&root).await {
            break;
        }
        assert!(
            root.query_selector("#groups").unwrap().is_some(),
            "the lesson brought the Consumer groups view forward"
        );
        assert!(
            root.query_selector("#groups table.compare")
                .unwrap()
                .is_none(),
            "the assignors' results are on screen while a question is open"
        );
        let note = root.query_selector("[id^=group-compare-held-]").unwrap();
        click(&root, "#choice-0").await;
        q(&root, "#feedback");
        if note.is_some() {
            held += 1;
            let back = root
                .query_selector("#groups table.compare")
                .unwrap()
                .is_some();
            if !back {
                // Still held: the next question waits at this same stop,
                // and the results would answer it too. Step asks it there.
                let at = q(&root, "#position").text_content().unwrap();
                click(&root, "#btn-step").await;
                assert!(
                    root.query_selector("#question").unwrap().is_some()
                        && q(&root, "#position").text_content().unwrap() == at,
                    "answered, no question waiting here: the assignors' results are back"
                );
                waiting += 1;
            }
        }
    }
    assert!(waiting > 0, "group-assignors asks c1 and c3 at one stop");
    assert!(
        held > 0,
        "no question was asked while the comparison existed"
    );
}

/// A question about the next leader election holds back the latest one
/// (it is the previous election, not the answer) and the placement table
/// (it marks the preferred replica); a question in the
/// transactions lesson holds back the coordinator's state diagram, whose
/// arrows name the next state, and the offsets table, whose LEO names the
/// next offset. Both come back once the question is answered.
#[wasm_bindgen_test]
async fn the_previous_election_and_the_transaction_diagram_wait_for_the_answer() {
    let root = mount_with(Some(
        include_str!("../static/lessons/leader-failure-hw.json").to_string(),
    ))
    .await;
    assert!(step_to_question(&root).await);
    assert!(
        root.query_selector("#election-held").unwrap().is_some()
            && root.query_selector("#election table").unwrap().is_none(),
        "the previous election is on screen while the next one is asked for"
    );
    click(&root, "#choice-0").await;
    q(&root, "#feedback");
    assert!(root.query_selector("#election-held").unwrap().is_none());
    assert!(root.query_selector("#election table").unwrap().is_some());

    // leader-election's first question: the placement table would mark
    // the preferred replica (the answer) and draw an ISR not yet written.
    let root = mount_with(Some(
        include_str!("../static/lessons/leader-election.json").to_string(),
    ))
    .await;
    assert!(step_to_question(&root).await);
    q(&root, "#placement-held");
    assert!(root.query_selector("#placement table").unwrap().is_none());
    click(&root, "#choice-0").await;
    q(&root, "#feedback");
    assert!(root.query_selector("#placement-held").unwrap().is_none());

    let root = mount_with(Some(
        include_str!("../static/lessons/transactions.json").to_string(),
    ))
    .await;
    assert!(step_to_question(&root).await);
    q(&root, "#txn-held");
    assert!(
        root.query_selector(".txn-diagram").unwrap().is_none()
            && root.query_selector("table.txn-offsets").unwrap().is_none(),
        "the state diagram or the offsets are on screen while a question is open"
    );
    click(&root, "#choice-0").await;
    q(&root, "#feedback");
    if root.query_selector("#question").unwrap().is_none() {
        assert!(root.query_selector("#txn-held").unwrap().is_none());
        q(&root, ".txn-diagram");
        q(&root, "table.txn-offsets");
    }
}

/// Every lesson of the library (`static/lessons/index.json`), in its order.
const LESSON_TEXTS: [(&str, &str); 31] = [
    (
        "controller-and-placement.json",
        include_str!("../static/lessons/controller-and-placement.json"),
    ),
    (
        "leader-election.json",
        include_str!("../static/lessons/leader-election.json"),
    ),
    (
        "kraft-leader-election.json",
        include_str!("../static/lessons/kraft-leader-election.json"),
    ),
    (
        "replication-isr-hw.json",
        include_str!("../static/lessons/replication-isr-hw.json"),
    ),
    (
        "kraft-replication-isr-hw.json",
        include_str!("../static/lessons/kraft-replication-isr-hw.json"),
    ),
    (
        "leader-failure-hw.json",
        include_str!("../static/lessons/leader-failure-hw.json"),
    ),
    (
        "kraft-leader-failure-hw.json",
        include_str!("../static/lessons/kraft-leader-failure-hw.json"),
    ),
    (
        "follower-failure-hw.json",
        include_str!("../static/lessons/follower-failure-hw.json"),
    ),
    (
        "kraft-follower-failure-hw.json",
        include_str!("../static/lessons/kraft-follower-failure-hw.json"),
    ),
    (
        "epochs-and-divergence.json",
        include_str!("../static/lessons/epochs-and-divergence.json"),
    ),
    (
        "kraft-power-failure.json",
        include_str!("../static/lessons/kraft-power-failure.json"),
    ),
    (
        "storage-lookup.json",
        include_str!("../static/lessons/storage-lookup.json"),
    ),
    (
        "retention-and-compaction.json",
        include_str!("../static/lessons/retention-and-compaction.json"),
    ),
    (
        "retention-by-size.json",
        include_str!("../static/lessons/retention-by-size.json"),
    ),
    (
        "why-kafka-is-fast.json",
        include_str!("../static/lessons/why-kafka-is-fast.json"),
    ),
    (
        "producer-pipeline.json",
        include_str!("../static/lessons/producer-pipeline.json"),
    ),
    (
        "acks-retries-idempotence.json",
        include_str!("../static/lessons/acks-retries-idempotence.json"),
    ),
    (
        "watching-the-cluster.json",
        include_str!("../static/lessons/watching-the-cluster.json"),
    ),
    (
        "consumers-and-offsets.json",
        include_str!("../static/lessons/consumers-and-offsets.json"),
    ),
    (
        "delivery-semantics.json",
        include_str!("../static/lessons/delivery-semantics.json"),
    ),
    (
        "group-assignors.json",
        include_str!("../static/lessons/group-assignors.json"),
    ),
    (
        "assignors-notes-examples.json",
        include_str!("../static/lessons/assignors-notes-examples.json"),
    ),
    ("racks.json", include_str!("../static/lessons/racks.json")),
    (
        "closest-replica.json",
        include_str!("../static/lessons/closest-replica.json"),
    ),
    (
        "transactions.json",
        include_str!("../static/lessons/transactions.json"),
    ),
    (
        "exactly-once-pipeline.json",
        include_str!("../static/lessons/exactly-once-pipeline.json"),
    ),
    (
        "hanging-transactions.json",
        include_str!("../static/lessons/hanging-transactions.json"),
    ),
    (
        "partition-verification.json",
        include_str!("../static/lessons/partition-verification.json"),
    ),
    (
        "find-the-loss.json",
        include_str!("../static/lessons/find-the-loss.json"),
    ),
    (
        "kraft-quorum.json",
        include_str!("../static/lessons/kraft-quorum.json"),
    ),
    (
        "kraft-fencing-elr.json",
        include_str!("../static/lessons/kraft-fencing-elr.json"),
    ),
];

/// Whether `needle` stands in `hay` as a token of its own: not inside a
/// longer name or number, nor one item of a longer list (`t-0, t-1, t-2`
/// inside `t-0, t-1, t-2, t-3` says nothing about who owns which).
fn has_token(hay: &str, needle: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    hay.match_indices(needle).any(|(i, _)| {
        let before = hay[..i].chars().next_back();
        let after = hay[i + needle.len()..].chars().next();
        let listed_before = hay[..i].trim_end().ends_with(',');
        let listed_after = hay[i + needle.len()..].trim_start().starts_with(',');
        !before.is_some_and(word) && !after.is_some_and(word) && !listed_before && !listed_after
    })
}

/// Whether the right answer stands on the page and no wrong choice does.
/// A wrong choice that contains the right one (`t-4, t-5, t-6` around
/// `t-5, t-6`) is read as the wrong choice; a wrong choice that only
/// appears inside the right one (`t-6` in `t-5, t-6`) does not count as
/// shown.
fn answer_stands_out(
    text: &str,
    step: &kafka_sim::lesson::Step,
    lang: kafka_visualiser::i18n::Lang,
    truth: &str,
) -> bool {
    let mut text = text.to_string();
    let mut wrong_seen = false;
    let wrongs: Vec<&str> = step
        .choices
        .iter()
        .filter(|c| *c != truth)
        .flat_map(|c| [c.as_str(), step.choice_label(lang, c)])
        .collect();
    // Wrong choices that hold the right one, read first and taken out.
    for w in wrongs.iter().filter(|w| w.contains(truth)) {
        if has_token(&text, w) {
            wrong_seen = true;
            text = text.replace(w, " ");
        }
    }
    let right = [truth, step.choice_label(lang, truth)];
    if !right.iter().any(|r| has_token(&text, r)) {
        return false;
    }
    for r in right {
        text = text.replace(r, " ");
    }
    !wrong_seen && !wrongs.iter().any(|w| has_token(&text, w))
}

/// The rendered text of `el` (what a reader sees: `innerText`).
fn seen(el: &Element) -> String {
    el.clone().dyn_into::<HtmlElement>().unwrap().inner_text()
}

/// The cursor the timeline shows (`event N of M`).
fn cursor_of(root: &Element) -> u64 {
    q(root, "#position")
        .text_content()
        .unwrap()
        .split(|c: char| !c.is_ascii_digit())
        .find(|s| !s.is_empty())
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// Walks every shipped lesson with Continue only, in English and in 中文,
/// as a learner would, and fails on:
/// * a question answered (wrong in English, right in 中文) without its
///   verdict and explanation on screen;
/// * a question whose right answer is visible outside the question when it
///   is asked: the right choice stands on the page as a token and none of
///   the wrong ones does (answers that are bare numbers are left to the
///   position test, `tests/lessons.rs`: a digit is on every screen);
/// * a Continue that passes 10 events or more that are not routine and
///   draws none of the positions between (English walk; idle long polls
///   are skipped in one step, as the page does);
/// * a step with a `view` shown while another view is forward, and a
///   lesson with such steps whose view never came forward.
#[wasm_bindgen_test]
async fn every_lesson_walked_with_continue_shows_verdicts_hides_answers_and_animates() {
    use kafka_visualiser::i18n::Lang;
    let index: serde_json::Value =
        serde_json::from_str(include_str!("../static/lessons/index.json")).unwrap();
    let files: Vec<&str> = index["lessons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        LESSON_TEXTS.map(|(f, _)| f).to_vec(),
        "LESSON_TEXTS is the index"
    );
    let mut problems: Vec<String> = Vec::new();
    let (mut questions, mut animated, mut views_seen) = (0, 0, 0);
    for (file, text) in LESSON_TEXTS {
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        let lesson = kafka_visualiser::state::lesson::Lesson::from_value(&v["lesson"]).unwrap();
        let steps = &lesson.steps;
        let mut player = kafka_visualiser::player::Player::from_json(text).unwrap();
        let wants_view = steps.iter().any(|s| s.view.is_some());
        for lang in [Lang::En, Lang::Zh] {
            let at = |what: String| format!("{file} ({lang:?}): {what}");
            let (root, handle) = dom::mount_app(Some(text.to_string())).await;
            let zh_now = q(&root, ".app").get_attribute("lang").as_deref() == Some("zh-CN");
            if zh_now != (lang == Lang::Zh) {
                click(&root, "#btn-lang").await;
            }
            let playing = || {
                q(&root, "#btn-play").get_attribute("aria-label").as_deref() == Some("Pause")
                    || q(&root, "#btn-play").get_attribute("aria-label").as_deref() == Some("暂停")
            };
            let mut came_forward = false;
            let mut check_view = |k: usize, root: &Element, problems: &mut Vec<String>| {
                if let Some(view) = &steps[k].view {
                    let tab = q(root, &format!("#tab-{view}"));
                    if tab.get_attribute("aria-selected").as_deref() == Some("true") {
                        came_forward = true;
                    } else {
                        problems.push(at(format!(
                            "step {k} is about the {view} view, which is not forward"
                        )));
                    }
                }
            };
            for _ in 0..400 {
                gloo_timers::future::TimeoutFuture::new(0).await;
                if root.query_selector("#recap").unwrap().is_some() {
                    break;
                }
                if let Some(question) = root.query_selector("#question").unwrap() {
                    let asked = seen(&question);
                    let Some(k) = (0..steps.len()).find(|&k| {
                        steps[k]
                            .ask
                            .as_ref()
                            .is_some_and(|a| asked.contains(a.get(lang)))
                    }) else {
                        problems.push(at(format!("a question no step asks: {asked}")));
                        break;
                    };
                    questions += 1;
                    check_view(k, &root, &mut problems);
                    let step = &steps[k];
                    let i = player
                        .find_nth_where(step.at.nth, |e| step.at.matches(e))
                        .unwrap();
                    let answer = step.answer.as_deref().unwrap();
                    // A question to the finder: its answer is the search's.
                    let finder = step.explore.as_ref();
                    let truth = match finder {
                        Some(f) => kafka_sim::explore::question::Question::new(
                            player.scenario(),
                            answer,
                            f,
                        )
                        .unwrap()
                        .finish()
                        .answer()
                        .to_string(),
                        None => kafka_visualiser::state::lesson::answer_at(&mut player, i, answer)
                            .unwrap(),
                    };
                    // Nothing outside the question may give the answer away.
                    // (A finder's yes or no is a search's outcome, which no
                    // drawing shows; the words themselves are everywhere.)
                    if finder.is_none()
                        && !truth.chars().all(|c| c.is_ascii_digit())
                        && answer_stands_out(&seen(&root).replace(&asked, ""), step, lang, &truth)
                    {
                        problems.push(at(format!(
                            "step {k}: the answer {truth} is on screen while asked: {}",
                            step.ask.as_ref().unwrap().en
                        )));
                    }
                    // English answers wrong, 中文 right.
                    let pick = step
                        .choices
                        .iter()
                        .position(|c| (*c == truth) == (lang == Lang::Zh))
                        .unwrap();
                    click(&root, &format!("#choice-{pick}")).await;
                    if finder.is_some() {
                        // The prediction stands while the finder searches,
                        // then the verdict comes with what it found.
                        if root.query_selector("#finder").unwrap().is_none()
                            && root.query_selector("#feedback").unwrap().is_none()
                        {
                            problems.push(at(format!("step {k}: no search after the prediction")));
                        }
                        for _ in 0..600 {
                            if root.query_selector("#feedback").unwrap().is_some() {
                                break;
                            }
                            gloo_timers::future::TimeoutFuture::new(50).await;
                        }
                        if root.query_selector("#finder-result").unwrap().is_none() {
                            problems
                                .push(at(format!("step {k}: the finder's result is not shown")));
                        }
                        if truth == "yes" && root.query_selector("#finder-watch").unwrap().is_none()
                        {
                            problems
                                .push(at(format!("step {k}: no link to watch the counterexample")));
                        }
                    }
                    match root.query_selector("#feedback").unwrap() {
                        None => problems.push(at(format!("step {k} answered without a verdict"))),
                        Some(f) => {
                            let verdict = seen(&f);
                            let class = f.class_name();
                            let right = lang == Lang::Zh;
                            if class.contains("right") != right {
                                problems.push(at(format!("step {k}: verdict {class}: {verdict}")));
                            }
                            let explain = step.explain.as_ref().map(|e| e.get(lang)).unwrap_or("");
                            if !verdict.contains(explain) {
                                problems.push(at(format!("step {k}: no explanation in {verdict}")));
                            }
                        }
                    }
                    continue;
                }
                // Continue plays to the next stop; a second press skips.
                let before = cursor_of(&root);
                click(&root, "#btn-continue").await;
                let mut between = std::collections::BTreeSet::new();
                for _ in 0..15 {
                    if !playing() {
                        break;
                    }
                    between.insert(cursor_of(&root));
                    gloo_timers::future::TimeoutFuture::new(20).await;
                }
                if playing() {
                    click(&root, "#btn-continue").await;
                }
                for _ in 0..500 {
                    if !playing() {
                        break;
                    }
                    gloo_timers::future::TimeoutFuture::new(10).await;
                }
                let after = cursor_of(&root);
                between.remove(&before);
                between.remove(&after);
                // What the page draws while playing: the events that are
                // not routine (an idle long poll is skipped in one step).
                player.seek(after);
                let lo = (before as usize).min(after as usize);
                let hi = (after as usize).saturating_sub(1).max(lo);
                let shown = player.past()[lo..hi]
                    .iter()
                    .filter(|e| e.kind.importance() != kafka_sim::event::Importance::Routine)
                    .count();
                if lang == Lang::En && after >= before + 30 && shown >= 10 {
                    if between.is_empty() {
                        problems.push(at(format!(
                            "Continue went from {before} to {after} ({shown} events to show) drawing nothing between"
                        )));
                    } else {
                        animated += 1;
                    }
                }
                if let Some(say) = root.query_selector("#say").unwrap() {
                    let said = seen(&say);
                    if let Some(k) = (0..steps.len()).find(|&k| {
                        steps[k]
                            .say
                            .as_ref()
                            .is_some_and(|s| said.contains(s.get(lang)))
                    }) {
                        check_view(k, &root, &mut problems);
                    }
                } else if root.query_selector("#question").unwrap().is_none()
                    && root.query_selector("#recap").unwrap().is_none()
                {
                    problems.push(at(format!("a stop at {after} with nothing to read")));
                }
            }
            if root.query_selector("#recap").unwrap().is_none() {
                problems.push(at("never reached the recap".into()));
            }
            if wants_view && !came_forward {
                problems.push(at("its view never came forward".into()));
            }
            if came_forward {
                views_seen += 1;
            }
            if lang == Lang::Zh {
                // The language is remembered: leave the page in English for
                // the tests after this one.
                click(&root, "#btn-lang").await;
            }
            handle.destroy();
            root.remove();
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(questions > 100, "{questions} questions asked");
    assert!(animated > 20, "{animated} Continues animated");
    assert!(views_seen > 10, "{views_seen} walks brought a view forward");
}

/// "Can this break?" in Tools: a search on acks=1 runs in slices (the page
/// keeps rendering: the status line moves while it works), finds and
/// shrinks a counterexample with one fault, says the setting makes the
/// break expected, and opens it in the timeline at the violating event,
/// whose caption names the broken guarantee.
#[wasm_bindgen_test]
async fn can_this_break_finds_the_loss_under_acks_1_and_opens_it_at_the_violation() {
    let root = mount_with(Some(
        include_str!("../scenarios/explore/acks-1.json").to_string(),
    ))
    .await;
    click(&root, "#btn-tools").await;
    click(&root, "#btn-explore").await;
    let started = js_sys::Date::now();
    let mut saw_status = false;
    for _ in 0..1200 {
        if root.query_selector("#explore-found").unwrap().is_some() {
            break;
        }
        saw_status |= root.query_selector("#explore-status").unwrap().is_some();
        gloo_timers::future::TimeoutFuture::new(50).await;
        yew::scheduler::flush().await;
    }
    assert!(saw_status, "the search showed its progress while it ran");
    let found = q(&root, "#explore-found").text_content().unwrap();
    web_sys::console::log_1(
        &format!(
            "can this break (acks=1): found and shrunk in {:.0} ms in the page",
            js_sys::Date::now() - started
        )
        .into(),
    );
    assert!(found.contains("1 fault(s)"), "{found}");
    assert!(found.contains("kill_broker 0"), "{found}");
    assert!(found.contains("acks other than all"), "{found}");
    click(&root, "#btn-explore-open").await;
    let caption = q(&root, "#caption").text_content().unwrap();
    assert!(
        caption.contains("Guarantee broken") && caption.contains("acknowledged records survive"),
        "{caption}"
    );
    // Its fault and the violation are marked on the time axis.
    let marks = |sel: &str| root.query_selector_all(sel).unwrap().length();
    assert_eq!(marks(".tmark.fault"), 1);
    assert!(marks(".tmark.broken") >= 1);
    // A lesson draws no marks: one ahead of the cursor would answer it.
    let root = mount_with(Some(
        include_str!("../static/lessons/leader-failure-hw.json").to_string(),
    ))
    .await;
    assert_eq!(root.query_selector_all(".tmark").unwrap().length(), 0);
}
