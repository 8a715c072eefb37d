//! The latest leader election up to the cursor, step by step: the assigned
//! replicas in order, whether each is alive and in the ISR, the rule, and
//! the winner. Everything comes from the engine's `leader_elected` event.

use crate::i18n::{t, Lang};
use kafka_sim::event::EventKind;
use std::rc::Rc;
use yew::prelude::*;

/// What the panel shows of a `leader_elected` event.
#[derive(Clone, Debug, PartialEq)]
pub struct ElectionModel {
    pub id: u64,
    pub tp: String,
    pub strategy: &'static str,
    pub old_leader: i32,
    pub leader: i32,
    pub leader_epoch: i32,
    pub isr: String,
    pub unclean: bool,
    /// (broker, alive, in ISR, shutting down, chosen), in AR order.
    pub candidates: Vec<(i32, bool, bool, bool, bool)>,
}

impl ElectionModel {
    /// The latest election before the player's cursor.
    pub fn latest(player: &crate::player::Player) -> Option<ElectionModel> {
        let e = player.last_election()?;
        match &e.kind {
            EventKind::LeaderElected {
                tp,
                algorithm,
                old_leader,
                leader,
                leader_epoch,
                isr,
                unclean,
                candidates,
            } => Some(ElectionModel {
                id: e.id,
                tp: tp.to_string(),
                strategy: algorithm.kafka_name(),
                old_leader: *old_leader,
                leader: leader.0,
                leader_epoch: *leader_epoch,
                isr: kafka_sim::event::ids_list(isr),
                unclean: *unclean,
                candidates: candidates
                    .iter()
                    .map(|c| (c.broker.0, c.alive, c.in_isr, c.shutting_down, c.chosen))
                    .collect(),
            }),
            _ => None,
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct ElectionProps {
    /// The latest election, if any.
    pub model: Option<Rc<ElectionModel>>,
    pub lang: Lang,
    /// A lesson question asks who the next election chooses: the latest
    /// one (an earlier election) is held back until it is answered.
    #[prop_or_default]
    pub held: bool,
}

fn yes(b: bool) -> &'static str {
    if b {
        "✓"
    } else {
        "✗"
    }
}

#[component]
pub fn ElectionView(p: &ElectionProps) -> Html {
    let lang = p.lang;
    let Some(m) = &p.model else {
        return html! {};
    };
    if p.held {
        return html! {
            <section class="election" id="election" aria-label={t(lang, "election")}>
                <h3>{ t(lang, "election") }</h3>
                <p class="facts held" id="election-held">{ t(lang, "election_held") }</p>
            </section>
        };
    }
    let rule = match lang {
        Lang::En => "the first replica in assigned-replica (AR) order that is alive and in the ISR",
        Lang::Zh => "按 AR（分配副本）顺序，第一个存活且在 ISR 中的副本",
    };
    html! {
        <section class="election" id="election" aria-label={t(lang, "election")}>
            <h3>{ format!("{} #{} · {}", t(lang, "election"), m.id, m.tp) }</h3>
            <p class="facts">
                { format!("{}: {} · {}: {rule}{}", t(lang, "algorithm"), m.strategy, t(lang, "rule"),
                    if m.unclean { " · UNCLEAN (unclean.leader.election.enable)" } else { "" }) }
            </p>
            <table class="grid">
                <thead><tr>
                    <th>{ t(lang, "ar_order") }</th><th>{"broker"}</th><th>{ t(lang, "alive") }</th>
                    <th>{ t(lang, "in_isr") }</th><th>{ t(lang, "verdict") }</th>
                </tr></thead>
                <tbody>
                { for m.candidates.iter().enumerate().map(|(i, &(broker, alive, in_isr, shutting, chosen))| html! {
                    <tr class={classes!(chosen.then_some("chosen"))}>
                        <td class="num">{ i + 1 }</td>
                        <td>{ format!("broker {broker}") }</td>
                        <td>{ yes(alive && !shutting) }{ if shutting { t(lang, "shutting_down") } else { "" } }</td>
                        <td>{ yes(in_isr) }</td>
                        <td>{ if chosen { t(lang, "winner") } else if !alive || shutting { t(lang, "passed_dead") } else if !in_isr { t(lang, "passed_isr") } else { "–" } }</td>
                    </tr>
                }) }
                </tbody>
            </table>
            <p class="facts">
                { format!("{}: {} → {} · leader epoch {} · ISR {}",
                    t(lang, "result"),
                    if m.old_leader < 0 { t(lang, "fig_none").to_string() } else { m.old_leader.to_string() },
                    m.leader, m.leader_epoch, m.isr) }
            </p>
        </section>
    }
}
