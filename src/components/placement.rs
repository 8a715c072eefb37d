//! Placement: which broker holds each partition's replicas, which one leads
//! it, and how many leaders each broker has (leader balance, R6), as the
//! controller wrote them to ZooKeeper (`/brokers/topics/<t>` for the
//! assigned replicas, `…/partitions/<p>/state` for the leader and ISR).

use crate::i18n::{t, Lang};
use crate::model::cluster::natural_cmp;
use kafka_sim::sim::World;
use std::rc::Rc;
use yew::prelude::*;

/// Rows drawn at most (a large cluster is summed up in the counts).
pub const MAX_ROWS: usize = 48;

/// One replica of a partition on one broker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// Not a replica there.
    None,
    /// The leader; its position in the assigned replicas (1: preferred).
    Leader(usize),
    /// A follower in the ISR, at this AR position.
    Follower(usize),
    /// A replica out of the ISR, at this AR position.
    Out(usize),
}

#[derive(Clone, Debug, PartialEq)]
pub struct PlacementModel {
    pub brokers: Vec<i32>,
    /// (partition, one cell per broker), partitions in natural order.
    pub rows: Vec<(String, Vec<Cell>)>,
    /// Per broker: partitions it leads, replicas it holds, and how many of
    /// its leaderships are preferred (it is first in AR).
    pub leaders: Vec<usize>,
    pub replicas: Vec<usize>,
    pub preferred: Vec<usize>,
}

impl PlacementModel {
    /// The user topics' placement (None: no topic created yet).
    pub fn from_world(w: &World) -> Option<PlacementModel> {
        let zk = w.zookeeper();
        let brokers: Vec<i32> = w.brokers().keys().map(|b| b.0).collect();
        let col = |b: i64| brokers.iter().position(|x| *x as i64 == b);
        let mut rows = Vec::new();
        for topic in zk.children("/brokers/topics") {
            if topic.starts_with("__") {
                continue;
            }
            let Some(data) = zk.data_json(&format!("/brokers/topics/{topic}")) else {
                continue;
            };
            let Some(parts) = data.get("partitions").and_then(|p| p.as_object()) else {
                continue;
            };
            for (p, ar) in parts {
                let ar: Vec<i64> = ar
                    .as_array()
                    .map(|a| a.iter().filter_map(|x| x.as_i64()).collect())
                    .unwrap_or_default();
                let state = zk.data_json(&format!("/brokers/topics/{topic}/partitions/{p}/state"));
                let leader = state
                    .as_ref()
                    .and_then(|s| s.get("leader"))
                    .and_then(|l| l.as_i64())
                    .unwrap_or(-1);
                let isr: Vec<i64> = state
                    .as_ref()
                    .and_then(|s| s.get("isr"))
                    .and_then(|i| i.as_array())
                    .map(|a| a.iter().filter_map(|x| x.as_i64()).collect())
                    .unwrap_or_default();
                let mut cells = vec![Cell::None; brokers.len()];
                for (i, b) in ar.iter().enumerate() {
                    if let Some(c) = col(*b) {
                        cells[c] = if *b == leader {
                            Cell::Leader(i + 1)
                        } else if isr.contains(b) {
                            Cell::Follower(i + 1)
                        } else {
                            Cell::Out(i + 1)
                        };
                    }
                }
                rows.push((format!("{topic}-{p}"), cells));
            }
        }
        if rows.is_empty() {
            return None;
        }
        rows.sort_by(|a, b| natural_cmp(&a.0, &b.0));
        let count = |f: &dyn Fn(&Cell) -> bool| -> Vec<usize> {
            (0..brokers.len())
                .map(|c| rows.iter().filter(|(_, cells)| f(&cells[c])).count())
                .collect()
        };
        Some(PlacementModel {
            leaders: count(&|c| matches!(c, Cell::Leader(_))),
            replicas: count(&|c| !matches!(c, Cell::None)),
            preferred: count(&|c| matches!(c, Cell::Leader(1))),
            brokers,
            rows,
        })
    }
}

#[derive(Properties, PartialEq)]
pub struct PlacementProps {
    pub model: Option<Rc<PlacementModel>>,
    pub lang: Lang,
    /// A lesson question asks who a leader election chooses: the table
    /// (its leaders, and the preferred replica it marks) is held back.
    #[prop_or_default]
    pub held: bool,
}

#[component]
pub fn PlacementView(p: &PlacementProps) -> Html {
    let Some(m) = &p.model else {
        return Html::default();
    };
    let lang = p.lang;
    if p.held {
        return html! {
            <details class="placement" id="placement" open=true>
                <summary>{ t(lang, "placement_title") }</summary>
                <p class="facts held" id="placement-held">{ t(lang, "placement_held") }</p>
            </details>
        };
    }
    let cell = |c: &Cell| match c {
        Cell::None => html! { <td class="none"></td> },
        Cell::Leader(i) => {
            html! { <td class="lead" title={t(lang, "leader")}>{"L"}<sub>{ i }</sub></td> }
        }
        Cell::Follower(i) => {
            html! { <td class="isr" title={t(lang, "follower")}>{"F"}<sub>{ i }</sub></td> }
        }
        Cell::Out(i) => {
            html! { <td class="out" title={t(lang, "out_of_isr")}>{"–"}<sub>{ i }</sub></td> }
        }
    };
    let shown = m.rows.len().min(MAX_ROWS);
    html! {
        <details class="placement" id="placement" open=true>
            <summary>{ t(lang, "placement_title") }</summary>
            <p class="hint">{ t(lang, "placement_hint") }</p>
            <table class="grid">
                <thead>
                    <tr><th scope="col">{ t(lang, "partition") }</th>
                        { for m.brokers.iter().map(|b| html! { <th scope="col">{ format!("{} {b}", t(lang, "broker")) }</th> }) }</tr>
                </thead>
                <tbody>
                    { for m.rows.iter().take(shown).map(|(tp, cells)| html! {
                        <tr><th scope="row" class="mono">{ tp.clone() }</th>{ for cells.iter().map(cell) }</tr>
                    }) }
                    if m.rows.len() > shown {
                        <tr><td colspan={(m.brokers.len() + 1).to_string()}>{ format!("… {} {}", m.rows.len() - shown, t(lang, "more")) }</td></tr>
                    }
                </tbody>
                <tfoot>
                    <tr class="leaders" id="placement-leaders"><th scope="row">{ t(lang, "leaders_per_broker") }</th>
                        { for m.leaders.iter().zip(&m.preferred).map(|(n, pr)| html! {
                            <td><strong>{ *n }</strong>{ format!(" ({pr} {})", t(lang, "preferred")) }</td> }) }</tr>
                    <tr><th scope="row">{ t(lang, "replicas_per_broker") }</th>
                        { for m.replicas.iter().map(|n| html! { <td>{ *n }</td> }) }</tr>
                </tfoot>
            </table>
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default example: one topic of one partition on three brokers;
    /// after the failover the counts follow ZooKeeper's state.
    #[test]
    fn the_grid_follows_what_the_controller_wrote() {
        let mut p = crate::state::load_scenario(
            "controller-and-placement.json",
            &std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/static/lessons/controller-and-placement.json"
            ))
            .unwrap(),
        )
        .unwrap();
        assert!(
            PlacementModel::from_world(p.world()).is_none(),
            "no topic yet"
        );
        let end = p.known_len();
        let found = (0..end).find_map(|i| {
            p.seek(i);
            PlacementModel::from_world(p.world())
                .filter(|m| m.leaders.iter().sum::<usize>() == m.rows.len())
        });
        let m = found.expect("every partition gets a leader");
        // Natural order: first-2 before first-10.
        let names: Vec<&str> = m.rows.iter().map(|r| r.0.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(names, sorted);
        // Each partition has exactly one leader, and counts add up.
        for (tp, cells) in &m.rows {
            let leaders = cells
                .iter()
                .filter(|c| matches!(c, Cell::Leader(_)))
                .count();
            assert_eq!(leaders, 1, "{tp}");
        }
        assert_eq!(
            m.replicas.iter().sum::<usize>(),
            m.rows
                .iter()
                .map(|r| r.1.iter().filter(|c| **c != Cell::None).count())
                .sum::<usize>()
        );
        assert!(m.preferred.iter().zip(&m.leaders).all(|(p, l)| p <= l));
    }
}
