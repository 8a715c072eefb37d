//! The admin tools' views at the current step (M2): `kafka-topics
//! --describe` beside the cluster and `kafka-consumer-groups --describe`
//! beside the groups, as `kafka_sim::describe` lays them out (Kafka 3.9's
//! own format). Closed until the learner opens them.

use crate::i18n::{t, Lang};
use std::rc::Rc;
use yew::prelude::*;

/// The most lines shown; a larger cluster's view ends with a count.
const MAX_LINES: usize = 200;

#[derive(Properties, PartialEq)]
pub struct DescribeProps {
    /// `"topics"` or `"groups"`.
    pub what: &'static str,
    /// The tool's output (empty while closed).
    pub text: Rc<String>,
    pub lang: Lang,
    /// Whether the learner has it open.
    pub open: bool,
    /// Opened or closed: the new state.
    pub on_toggle: Callback<bool>,
}

#[component]
pub fn DescribeView(p: &DescribeProps) -> Html {
    let lang = p.lang;
    let (title, hint, command) = match p.what {
        "topics" => (
            "describe_topics",
            "describe_topics_hint",
            "$ kafka-topics.sh --bootstrap-server broker-0:9092 --describe --exclude-internal",
        ),
        _ => (
            "describe_groups",
            "describe_groups_hint",
            "$ kafka-consumer-groups.sh --bootstrap-server broker-0:9092 --describe --all-groups",
        ),
    };
    let lines: Vec<&str> = p.text.lines().collect();
    let shown = if lines.len() > MAX_LINES {
        let more = lines.len() - MAX_LINES;
        format!(
            "{}\n… {more} {}",
            lines[..MAX_LINES].join("\n"),
            match lang {
                Lang::En => "more lines",
                Lang::Zh => "行未显示",
            }
        )
    } else {
        p.text.to_string()
    };
    let ontoggle = {
        let cb = p.on_toggle.clone();
        Callback::from(move |e: Event| {
            // `<details>` carries the `open` attribute while open.
            if let Some(d) = e.target_dyn_into::<web_sys::Element>() {
                cb.emit(d.has_attribute("open"));
            }
        })
    };
    html! {
        <details class="admin-view" id={format!("describe-{}", p.what)} open={p.open} {ontoggle}>
            <summary>{ t(lang, title) }</summary>
            <p class="hint">{ t(lang, hint) }</p>
            // A scrolling region: one Tab stop, so it scrolls from the keyboard.
            <pre class="mono" tabindex="0">{ format!("{command}\n{shown}") }</pre>
        </details>
    }
}
