//! The configuration panel: Kafka's settings by their own names, the
//! scenario's value or (as the placeholder) Kafka's default. Applying reloads
//! the scenario from the start; a refused value is named and nothing changes.

use crate::i18n::{t, Lang};
use crate::state::config::Group;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ConfigProps {
    pub lang: Lang,
    pub groups: Rc<Vec<Group>>,
    /// (object pointer, key, typed text) for every edited setting.
    pub on_apply: Callback<Vec<(String, String, String)>>,
}

#[component]
pub fn ConfigPanel(p: &ConfigProps) -> Html {
    let lang = p.lang;
    let edits = use_state(Vec::<(String, String, String)>::new);
    let on_apply = {
        let (edits, cb) = (edits.clone(), p.on_apply.clone());
        Callback::from(move |_: MouseEvent| {
            cb.emit((*edits).clone());
            edits.set(Vec::new());
        })
    };
    html! {
        <details class="config" id="config">
            <summary>{ t(lang, "config") }</summary>
            <p class="hint">{ t(lang, "config_hint") }</p>
            <div class="config-groups">
                { for p.groups.iter().map(|g| html! {
                    <fieldset>
                        <legend>{ crate::state::config::title(lang, &g.title) }</legend>
                        { for g.settings.iter().map(|s| {
                            let id = format!("cfg{}-{}", s.at.replace('/', "-"), s.key.replace('.', "-"));
                            let edited = edits.iter().find(|(a, k, _)| *a == s.at && k == s.key).map(|e| e.2.clone());
                            let oninput = {
                                let (edits, at, key) = (edits.clone(), s.at.clone(), s.key.to_string());
                                Callback::from(move |e: InputEvent| {
                                    let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                                    let mut v: Vec<_> = (*edits).iter().filter(|(a, k, _)| *a != at || *k != key).cloned().collect();
                                    v.push((at.clone(), key.clone(), input.value()));
                                    edits.set(v);
                                })
                            };
                            html! {
                                <label for={id.clone()}>
                                    <code>{ s.key }</code>
                                    <input id={id} type="text" size="12" value={edited.unwrap_or_else(|| s.value.clone())}
                                        placeholder={s.default.clone()} {oninput} />
                                </label>
                            }
                        }) }
                    </fieldset>
                }) }
            </div>
            <button id="config-apply" onclick={on_apply} disabled={edits.is_empty()}>{ t(lang, "config_apply") }</button>
        </details>
    }
}
