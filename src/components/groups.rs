//! Consumer groups: for each group its coordinator, state and generation, the
//! members with their assignment and lag, the committed offsets, and the four
//! assignors side by side on the same membership change.

use crate::i18n::{t, Lang};
use crate::model::inspect::{GroupView, GroupsModel};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct GroupsProps {
    pub model: Rc<GroupsModel>,
    pub lang: Lang,
    /// A lesson question is open: what the assignors would do is held back
    /// (it would answer it).
    #[prop_or_default]
    pub held: bool,
}

fn list(v: &[String]) -> String {
    if v.is_empty() {
        "–".into()
    } else {
        v.join(", ")
    }
}

fn group(g: &GroupView, lang: Lang, held: bool) -> Html {
    let coord = match g.coordinator {
        Some(b) => format!("broker {b} (__consumer_offsets-{})", g.offsets_partition),
        None => format!("– (__consumer_offsets-{})", g.offsets_partition),
    };
    html! {
        <section class="group" id={format!("group-{}", g.group_id)} aria-label={format!("{} {}", t(lang, "fig_group"), g.group_id)}>
            <h3>{ format!("group.id = {}", g.group_id) }</h3>
            <p class="facts">
                { format!("{}: {coord} · {}: {} · {}: {} · {}: {}",
                    t(lang, "coordinator"), t(lang, "state"), g.state.clone().unwrap_or_else(|| "–".into()),
                    t(lang, "generation"), g.generation.map(|x| x.to_string()).unwrap_or_else(|| "–".into()),
                    t(lang, "assignor"), g.protocol.clone().unwrap_or_else(|| "–".into())) }
            </p>
            <table class="grid members">
                <thead><tr>
                    <th>{ t(lang, "consumer") }</th><th>{"member.id"}</th><th>{ t(lang, "phase") }</th>
                    <th>{ t(lang, "generation") }</th><th>{ t(lang, "owns") }</th><th title={t(lang, "records_lag_hint")}>{ t(lang, "records_lag") }</th>
                </tr></thead>
                <tbody>
                { for g.members.iter().map(|m| html! {
                    <tr class={classes!((!m.alive).then_some("dead"))}>
                        <td>{ m.consumer.clone() }{ if m.leader { " ★" } else { "" } }{ if !m.alive { " ✗" } else { "" } }</td>
                        <td class="mono">{ if m.member_id.is_empty() { "–".to_string() } else { m.member_id.clone() } }</td>
                        <td>{ t(lang, &format!("phase_{}", m.phase)) }</td>
                        <td class="num">{ m.generation }</td>
                        <td class="mono">{ list(&m.assignment) }
                            if let Some((rack, near)) = m.rack.as_ref().filter(|_| !m.assignment.is_empty()) {
                                <div class="rack-fit" title={t(lang, "in_rack_hint")}>{ format!("{} {rack}: {near}/{}", t(lang, "in_rack"), m.assignment.len()) }</div>
                            }
                        </td>
                        <td class="mono">{ list(&m.lag.iter().map(|(tp, l)| format!("{tp}:{l}")).collect::<Vec<_>>()) }</td>
                    </tr>
                }) }
                </tbody>
            </table>
            <p class="facts">
                <strong>{ t(lang, "committed") }{": "}</strong>
                <span class="mono">{ list(&g.committed.iter().map(|(tp, o)| format!("{tp}@{o}")).collect::<Vec<_>>()) }</span>
            </p>
            <p class="facts" id={format!("group-lag-{}", g.group_id)}>
                <strong>{ t(lang, "group_lag") }{": "}</strong>
                <span class="mono">{ list(&g.group_lag.iter().map(|(tp, l)| format!("{tp}: {}", l.map(|l| l.to_string()).unwrap_or_else(|| "–".into()))).collect::<Vec<_>>()) }</span>
            </p>
            if g.leaving.is_some() && held {
                <p class="facts held" id={format!("group-compare-held-{}", g.group_id)}>{ t(lang, "compare_held") }</p>
            } else if let Some(who) = &g.leaving {
                <h4>{ format!("{} {who}", t(lang, "compare_if_leaves")) }</h4>
                <table class="grid compare">
                    <thead><tr><th>{ t(lang, "assignor") }</th><th>{ t(lang, "before") }</th><th>{ t(lang, "after") }</th><th>{ t(lang, "moved") }</th></tr></thead>
                    <tbody>
                    { for g.comparison.iter().map(|r| html! {
                        <tr data-strategy={r.strategy}>
                            <td>{ r.strategy }</td>
                            <td class="mono">{ for r.before.iter().map(|(m, v)| html! { <div>{ format!("{m}: {}", list(v)) }</div> }) }</td>
                            <td class="mono">{ for r.after.iter().map(|(m, v)| html! { <div>{ format!("{m}: {}", list(v)) }</div> }) }</td>
                            <td class="num moved">{ r.moved }{ if r.revoked_first > 0 { format!(" ({} {})", r.revoked_first, t(lang, "revoked_first")) } else { String::new() } }</td>
                        </tr>
                    }) }
                    </tbody>
                </table>
            }
        </section>
    }
}

#[component]
pub fn GroupsView(p: &GroupsProps) -> Html {
    let lang = p.lang;
    html! {
        <div class="inspector" id="groups">
            if p.model.groups.is_empty() {
                <p class="facts">{ t(lang, "no_groups") }</p>
            }
            { for p.model.groups.iter().map(|g| group(g, lang, p.held)) }
        </div>
    }
}
