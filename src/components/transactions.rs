//! The transactions panel (exactly-once, KIP-98): for each transactional id,
//! the coordinator's state machine with the current state lit (and the
//! state being written, dashed), the transaction's partitions and the
//! markers still travelling to their leaders (each producer's panel below
//! shows its own transaction state and epoch: a zombie's epoch is older
//! than the coordinator's); and the last
//! stable offset beside the high watermark and log end offset of each
//! partition, open transactions named.

use crate::i18n::{t, Lang};
use crate::model::txn::{CoordinatorView, PartitionView, TxnModel};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TxnProps {
    pub model: Rc<TxnModel>,
    pub lang: Lang,
    /// A lesson question is open: the state diagram (its arrows say which
    /// state comes next) and the offsets table (its LEO is the next
    /// record's offset) are held back.
    #[prop_or_default]
    pub held: bool,
}

/// The coordinator's states and Kafka's legal moves between them, drawn
/// once: Empty → Ongoing → PrepareCommit → CompleteCommit, Ongoing →
/// PrepareAbort → CompleteAbort, Ongoing → PrepareEpochFence → PrepareAbort,
/// and (dashed) a completed transaction's next AddPartitionsToTxn. The
/// current and pending states are lit by the stylesheet from the `<svg>`'s
/// `data-now` and `data-pending` attributes. Fixed markup of our own (no
/// user text), so it is inserted as it is.
const DIAGRAM: &str = r##"<defs><marker id="txn-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z"/></marker></defs><line class="txn-edge" x1="115" y1="70" x2="145" y2="70" marker-end="url(#txn-arrow)"/><line class="txn-edge" x1="255" y1="70" x2="295" y2="30" marker-end="url(#txn-arrow)"/><line class="txn-edge" x1="405" y1="30" x2="445" y2="30" marker-end="url(#txn-arrow)"/><line class="txn-edge" x1="255" y1="70" x2="295" y2="110" marker-end="url(#txn-arrow)"/><line class="txn-edge" x1="405" y1="110" x2="445" y2="110" marker-end="url(#txn-arrow)"/><line class="txn-edge" x1="200" y1="86" x2="200" y2="134" marker-end="url(#txn-arrow)"/><line class="txn-edge" x1="255" y1="150" x2="295" y2="110" marker-end="url(#txn-arrow)"/><path class="txn-edge back" d="M 500 14 C 500 -6, 200 -6, 200 54" marker-end="url(#txn-arrow)"/><path class="txn-edge back" d="M 500 126 C 500 176, 280 176, 230 86" marker-end="url(#txn-arrow)"/><g class="txn-node s-Empty"><rect x="5" y="54" width="110" height="32" rx="6"/><text x="60" y="74" text-anchor="middle">Empty</text></g><g class="txn-node s-Ongoing"><rect x="145" y="54" width="110" height="32" rx="6"/><text x="200" y="74" text-anchor="middle">Ongoing</text></g><g class="txn-node s-PrepareCommit"><rect x="295" y="14" width="110" height="32" rx="6"/><text x="350" y="34" text-anchor="middle">PrepareCommit</text></g><g class="txn-node s-CompleteCommit"><rect x="445" y="14" width="110" height="32" rx="6"/><text x="500" y="34" text-anchor="middle">CompleteCommit</text></g><g class="txn-node s-PrepareAbort"><rect x="295" y="94" width="110" height="32" rx="6"/><text x="350" y="114" text-anchor="middle">PrepareAbort</text></g><g class="txn-node s-CompleteAbort"><rect x="445" y="94" width="110" height="32" rx="6"/><text x="500" y="114" text-anchor="middle">CompleteAbort</text></g><g class="txn-node s-PrepareEpochFence"><rect x="145" y="134" width="110" height="32" rx="6"/><text x="200" y="154" text-anchor="middle">PrepareEpochFence</text></g>"##;

fn diagram(c: &CoordinatorView, lang: Lang) -> Html {
    let label = format!(
        "{}: {}{}",
        t(lang, "transactions"),
        c.state.name(),
        c.pending
            .map(|p| format!(" → {}", p.name()))
            .unwrap_or_default()
    );
    html! {
        <svg class="txn-diagram" viewBox="0 0 570 180" role="img" aria-label={label}
            data-now={c.state.name()} data-pending={c.pending.map(|p| p.name()).unwrap_or("")}>
            { Html::from_html_unchecked(AttrValue::Static(DIAGRAM)) }
        </svg>
    }
}

fn coordinator(c: &CoordinatorView, lang: Lang, held: bool) -> Html {
    html! {
        <section class="txn-coordinator" aria-label={format!("{} {}", t(lang, "txn_coordinator"), c.transactional_id)}>
            <h4>{ format!("transactional.id {} · {} broker {} (__transaction_state-{}, coordinatorEpoch {})",
                c.transactional_id, t(lang, "txn_coordinator"), c.broker, c.partition, c.coordinator_epoch) }</h4>
            <p class="facts mono">{ format!("producerId {} · epoch {} · {} {}{}",
                c.producer_id, c.producer_epoch, t(lang, "state"), c.state.name(),
                c.pending.map(|p| format!(" → {}", p.name())).unwrap_or_default()) }</p>
            if !held {
                { diagram(c, lang) }
            }
            <p class="facts">
                { format!("{}: ", t(lang, "txn_partitions")) }
                if c.partitions.is_empty() { { "–" } }
                <span class="mono">{ c.partitions.join(", ") }</span>
            </p>
            if let Some(commit) = c.committing {
                <p class="facts">
                    { format!("{} ({}): ", t(lang, "txn_markers_pending"), if commit { "COMMIT" } else { "ABORT" }) }
                    if c.markers.is_empty() { { t(lang, "txn_markers_done") } }
                    { for c.markers.iter().map(|(tp, flying)| html! {
                        <span class={classes!("marker-chip", flying.then_some("flying"))}>
                            { format!("{tp}{}", if *flying { format!(" · {}", t(lang, "txn_marker_in_flight")) } else { String::new() }) }
                        </span>
                    }) }
                </p>
            }
        </section>
    }
}

/// The partitions' offsets as aligned text, one line per partition.
fn open_text(r: &PartitionView) -> String {
    r.open
        .iter()
        .map(|(pid, first)| format!("producerId {pid} @{first}"))
        .chain(r.unreplicated.iter().map(|(pid, first, marker)| {
            format!("producerId {pid} @{first} (marker @{marker} > HW)")
        }))
        .collect::<Vec<_>>()
        .join(", ")
}

fn offsets_table(m: &TxnModel, lang: Lang) -> Html {
    html! {
        <div class="table-scroll">
            <table class="grid txn-offsets">
                <thead><tr>
                    <th scope="col">{ t(lang, "partition") }</th>
                    <th scope="col">{ t(lang, "leader") }</th>
                    <th scope="col" class="num">{ "LEO" }</th>
                    <th scope="col" class="num">{ "HW" }</th>
                    <th scope="col" class="num">{ "LSO" }</th>
                    <th scope="col">{ t(lang, "txn_open") }</th>
                </tr></thead>
                <tbody>
                    { for m.partitions.iter().map(|r| html! {
                        <tr>
                            <td class="mono">{ r.tp.clone() }</td>
                            <td class="num">{ r.leader.to_string() }</td>
                            <td class="num">{ r.log_end_offset }</td>
                            <td class="num">{ r.high_watermark }</td>
                            <td class="num">{ r.last_stable_offset }</td>
                            <td class="mono">{ open_text(r) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

#[component]
pub fn TransactionsView(p: &TxnProps) -> Html {
    let lang = p.lang;
    let m = &p.model;
    html! {
        <section class="transactions" id="transactions" aria-label={t(lang, "transactions")}>
            <h3>{ t(lang, "transactions") }</h3>
            if p.held {
                <p class="facts held" id="txn-held">{ t(lang, "txn_held") }</p>
            }
            { for m.coordinators.iter().map(|c| coordinator(c, lang, p.held)) }
            if !p.held {
                <h4>{ t(lang, "txn_offsets") }</h4>
                // Laid out as the admin tools print (`kafka-topics --describe`).
                { offsets_table(m, lang) }
                if m.more_partitions > 0 {
                    <p class="facts">{ format!("+{} …", m.more_partitions) }</p>
                }
            }
            <p class="small-note">{ t(lang, "txn_lso_note") }</p>
        </section>
    }
}
