//! Direct manipulation: act on the simulation at the current step. Each action
//! becomes a command in the scenario one millisecond later (see `branch.rs`),
//! so the timeline branches here and replays deterministically. Every control
//! is a form element: all of it works from the keyboard.

use crate::i18n::{t, Lang};
use crate::state::branch::command;
use serde_json::{Map, Value};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ActProps {
    pub lang: Lang,
    /// (broker id, alive).
    pub brokers: Vec<(i32, bool)>,
    pub producers: Vec<String>,
    pub topics: Vec<String>,
    pub consumers: Vec<String>,
    /// Group ids in use (the first is offered for a new consumer).
    pub groups: Vec<String>,
    /// Node names for links: `broker-0`, `producer-0`, `zookeeper` (3.9)
    /// or `controller-3000` (4.1), …
    pub nodes: Vec<String>,
    /// Kafka 4.1: the controllers (node id, alive); empty in 3.9. With
    /// them, the panel offers what a 4.1 scenario runs: no controlled
    /// shutdown of a broker, no producer or consumer added later.
    #[prop_or_default]
    pub controllers: Vec<(i32, bool)>,
    pub on_command: Callback<Map<String, Value>>,
}

fn select_value(e: &Event) -> String {
    let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
    s.value()
}

fn input_value(e: &InputEvent) -> String {
    let s: web_sys::HtmlInputElement = e.target_unchecked_into();
    s.value()
}

#[component]
pub fn Act(p: &ActProps) -> Html {
    let lang = p.lang;
    let broker = use_state(|| p.brokers.first().map(|b| b.0).unwrap_or(0));
    let controller = use_state(|| p.controllers.first().map(|c| c.0).unwrap_or(0));
    let kraft = !p.controllers.is_empty();
    let producer = use_state(String::new);
    let topic = use_state(String::new);
    let key = use_state(String::new);
    let value = use_state(|| "hello".to_string());
    let link_a = use_state(String::new);
    let link_b = use_state(String::new);
    let consumer = use_state(String::new);
    let group = use_state(String::new);
    // A choice not made yet falls back to the first of its list.
    let or_first = |s: &str, list: &[String]| {
        if s.is_empty() {
            list.first().cloned().unwrap_or_default()
        } else {
            s.to_string()
        }
    };
    let send = |kind: &'static str, fields: Vec<(&'static str, Value)>| {
        let cb = p.on_command.clone();
        Callback::from(move |_: MouseEvent| cb.emit(command(kind, &fields)))
    };
    let b = *broker;
    let prod = or_first(&producer, &p.producers);
    let top = or_first(&topic, &p.topics);
    let (a, bb) = (or_first(&link_a, &p.nodes), {
        let second = p.nodes.get(1).cloned().unwrap_or_default();
        if link_b.is_empty() {
            second
        } else {
            (*link_b).clone()
        }
    });
    let cons = or_first(&consumer, &p.consumers);
    // A new producer's name: the first `producer-N` not taken.
    let new_producer = (p.producers.len()..)
        .map(|n| format!("producer-{n}"))
        .find(|n| !p.producers.contains(n))
        .unwrap_or_default();
    // A new consumer's name: the first `consumer-N` not taken.
    let new_name = (p.consumers.len()..)
        .map(|n| format!("consumer-{n}"))
        .find(|n| !p.consumers.contains(n))
        .unwrap_or_default();
    let grp = match or_first(&group, &p.groups) {
        g if g.is_empty() => "group-1".to_string(),
        g => g,
    };
    let new_consumer = serde_json::json!({
        "name": new_name,
        "config": { "group.id": grp.clone() },
        "subscribe": [top.clone()],
    });
    let mut produce = vec![
        ("producer", Value::from(prod.clone())),
        ("topic", Value::from(top.clone())),
    ];
    if !key.is_empty() {
        produce.push(("key", Value::from((*key).clone())));
    }
    produce.push(("value", Value::from((*value).clone())));
    let set_sel = |h: &UseStateHandle<String>| {
        let h = h.clone();
        Callback::from(move |e: Event| h.set(select_value(&e)))
    };
    let set_input = |h: &UseStateHandle<String>| {
        let h = h.clone();
        Callback::from(move |e: InputEvent| h.set(input_value(&e)))
    };
    html! {
        <div class="act" id="act" role="toolbar" aria-label={t(lang, "act")}>
            <strong>{ t(lang, "act") }</strong>
            <span class="act-group">
                <select id="act-broker" aria-label={t(lang, "broker")} onchange={{
                    let broker = broker.clone();
                    Callback::from(move |e: Event| if let Ok(n) = select_value(&e).parse() { broker.set(n) })
                }}>
                    { for p.brokers.iter().map(|(id, alive)| html! {
                        <option value={id.to_string()} selected={*id == b}>
                            { format!("broker {id}{}", if *alive { "" } else { " ✕" }) }
                        </option>
                    }) }
                </select>
                <button id="act-kill" onclick={send("kill_broker", vec![("broker", b.into())])}>{ t(lang, "kill") }</button>
                <button id="act-shutdown" onclick={send("shutdown_broker", vec![("broker", b.into())])}>{ t(lang, "shutdown") }</button>
                <button id="act-restart" onclick={send("restart_broker", vec![("broker", b.into())])}>{ t(lang, "restart") }</button>
            </span>
            if kraft {
                <span class="act-group">
                    <select id="act-controller" aria-label={t(lang, "controller")} onchange={{
                        let controller = controller.clone();
                        Callback::from(move |e: Event| if let Ok(n) = select_value(&e).parse() { controller.set(n) })
                    }}>
                        { for p.controllers.iter().map(|(id, alive)| html! {
                            <option value={id.to_string()} selected={*id == *controller}>
                                { format!("{} {id}{}", t(lang, "controller"), if *alive { "" } else { " ✕" }) }
                            </option>
                        }) }
                    </select>
                    <button id="act-kill-controller" onclick={send("kill_controller", vec![("controller", (*controller).into())])}>{ t(lang, "kill") }</button>
                    <button id="act-shutdown-controller" onclick={send("shutdown_controller", vec![("controller", (*controller).into())])}>{ t(lang, "shutdown") }</button>
                    <button id="act-restart-controller" onclick={send("restart_controller", vec![("controller", (*controller).into())])}>{ t(lang, "restart") }</button>
                </span>
            }
            if !p.producers.is_empty() && !p.topics.is_empty() {
                <span class="act-group">
                    <select id="act-producer" aria-label={t(lang, "producer")} onchange={set_sel(&producer)}>
                        { for p.producers.iter().map(|n| html! { <option value={n.clone()} selected={*n == prod}>{ n.clone() }</option> }) }
                    </select>
                    <select id="act-topic" aria-label={t(lang, "topic")} onchange={set_sel(&topic)}>
                        { for p.topics.iter().map(|n| html! { <option value={n.clone()} selected={*n == top}>{ n.clone() }</option> }) }
                    </select>
                    <input id="act-key" type="text" size="8" placeholder={t(lang, "key")} aria-label={t(lang, "key")} value={(*key).clone()} oninput={set_input(&key)} />
                    <input id="act-value" type="text" size="8" aria-label={t(lang, "value")} value={(*value).clone()} oninput={set_input(&value)} />
                    <button id="act-send" onclick={send("produce", produce)}>{ t(lang, "send") }</button>
                    <button id="act-close-producer" title={format!("{prod}.close()")}
                        onclick={send("close_producer", vec![("producer", prod.clone().into())])}>{ t(lang, "close_producer") }</button>
                    <button id="act-force-close-producer" title={format!("{prod}.close(Duration.ZERO): {}", t(lang, "force_close_hint"))}
                        onclick={send("close_producer", vec![("producer", prod.clone().into()), ("timeout_ms", 0.into())])}>{ t(lang, "force_close_producer") }</button>
                </span>
            }
            <span class="act-group">
                <select id="act-link-a" aria-label={t(lang, "link")} onchange={set_sel(&link_a)}>
                    { for p.nodes.iter().map(|n| html! { <option value={n.clone()} selected={*n == a}>{ n.clone() }</option> }) }
                </select>
                {"↔"}
                <select id="act-link-b" aria-label={t(lang, "link")} onchange={set_sel(&link_b)}>
                    { for p.nodes.iter().map(|n| html! { <option value={n.clone()} selected={*n == bb}>{ n.clone() }</option> }) }
                </select>
                <button id="act-cut" onclick={send("cut_link", vec![("a", a.clone().into()), ("b", bb.clone().into())])}>{ t(lang, "cut") }</button>
                <button id="act-heal" onclick={send("heal_link", vec![("a", a.into()), ("b", bb.into())])}>{ t(lang, "heal") }</button>
            </span>
            <span class="act-group">
                <button id="act-add-producer" title={t(lang, "new_producer_title")}
                    onclick={send("add_producer", vec![("producer", serde_json::json!({ "name": new_producer }))])}>{ t(lang, "add_producer") }</button>
            </span>
            if !p.topics.is_empty() {
                <span class="act-group">
                    <input id="act-group" type="text" size="9" aria-label="group.id" title="group.id" value={grp} oninput={set_input(&group)} />
                    <button id="act-add-consumer" title={format!("subscribe([{top}])")}
                        onclick={send("add_consumer", vec![("consumer", new_consumer)])}>{ t(lang, "add_consumer") }</button>
                </span>
            }
            if !p.consumers.is_empty() {
                <span class="act-group">
                    <select id="act-consumer" aria-label={t(lang, "consumer")} onchange={set_sel(&consumer)}>
                        { for p.consumers.iter().map(|n| html! { <option value={n.clone()} selected={*n == cons}>{ n.clone() }</option> }) }
                    </select>
                    <button id="act-crash" onclick={send("crash_consumer", vec![("consumer", cons.clone().into())])}>{ t(lang, "crash") }</button>
                    <button id="act-stop" onclick={send("stop_consumer", vec![("consumer", cons.into())])}>{ t(lang, "stop") }</button>
                </span>
            }
        </div>
    }
}
