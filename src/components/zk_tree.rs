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

#[derive(Properties, PartialEq)]
pub struct MetadataLogProps {
    pub log: Rc<crate::model::cluster::MetadataLogView>,
    pub lang: Lang,
}

/// Kafka 4.1: the `__cluster_metadata-0` log where 3.9 shows the ZooKeeper
/// tree: each record with its offset and epoch, the committed ones (below
/// the quorum high watermark) apart from the rest, the records the current
/// event wrote highlighted.
#[component]
pub fn MetadataLog(p: &MetadataLogProps) -> Html {
    let lang = p.lang;
    let l = &p.log;
    let hw = if l.hw < 0 {
        "?".to_string()
    } else {
        l.hw.to_string()
    };
    let whose = match (lang, l.leader) {
        (Lang::En, true) => format!("controller {} (leader)", l.controller),
        (Lang::En, false) => format!("controller {}", l.controller),
        (Lang::Zh, true) => format!("控制器 {}（leader）", l.controller),
        (Lang::Zh, false) => format!("控制器 {}", l.controller),
    };
    html! {
        <details class="zk-tree metadata-log" id="metadata-log" open=true>
            <summary>{ format!("{} · {whose} · LEO {} · HW {hw}", t(lang, "metadata_log"), l.leo) }</summary>
            <ul role="list" aria-label={t(lang, "metadata_log")} tabindex="0">
                if l.hidden > 0 {
                    <li class="znode more">{ format!("… {} {}", l.hidden, t(lang, if l.hidden == 1 { "metadata_earlier_one" } else { "metadata_earlier" })) }</li>
                }
                { for l.rows.iter().map(|r| {
                    let class = classes!("znode", "mrec", r.changed.then_some("changed"), (!r.committed).then_some("uncommitted"));
                    html! {
                        <li key={r.offset} class={class} data-offset={r.offset.to_string()} title={r.dump.clone()}>
                            <span class="zname">{ r.offset }</span>
                            <span class="zver">{ format!(" epoch {} ", r.epoch) }</span>
                            <code class="zdata">{ r.text.clone() }</code>
                            if !r.committed {
                                <span class="zeph">{ format!(" · {}", t(lang, "metadata_uncommitted")) }</span>
                            }
                        </li>
                    }
                }) }
            </ul>
        </details>
    }
}
