//! The ZooKeeper tree beside the cluster (C1, C2): `/brokers/ids` (ephemeral
//! znodes, one per live broker session), `/controller`, and each partition's
//! `state` znode with its leader, ISR and epochs, as the controller writes
//! them. The znode the current event wrote is highlighted.

use crate::i18n::{t, Lang};
use crate::model::cluster::ZnodeRow;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ZkTreeProps {
    pub rows: Rc<Vec<ZnodeRow>>,
    pub lang: Lang,
}

#[component]
pub fn ZkTree(p: &ZkTreeProps) -> Html {
    let lang = p.lang;
    html! {
        <details class="zk-tree" id="zk-tree" open=true>
            <summary>{ t(lang, "zk_tree") }</summary>
            // A scrolling region: one Tab stop, so it scrolls from the keyboard.
            <ul role="tree" aria-label={t(lang, "zk_tree")} tabindex="0">
                { for p.rows.iter().map(|r| {
                    let class = classes!("znode", r.changed.then_some("changed"), r.more.then_some("more"), r.ephemeral_owner.map(|_| "ephemeral"));
                    html! {
                        <li key={r.path.clone()} role="treeitem" class={class} data-path={r.path.clone()} title={r.full_data.clone()}
                            style={format!("padding-left: {}em", r.depth + 1)}>
                            <span class="zname">{ r.name.clone() }</span>
                            if let Some(b) = r.ephemeral_owner {
                                <span class="zeph">{ match lang { Lang::En => format!(" ephemeral · broker {b}'s session"), Lang::Zh => format!(" 临时节点 · broker {b} 的会话") } }</span>
                            }
                            if !r.data.is_empty() {
                                <code class="zdata">{ r.data.clone() }</code>
                                <span class="zver">{ format!(" v{}", r.version) }</span>
                            }
                        </li>
                    }
                }) }
            </ul>
        </details>
    }
}
