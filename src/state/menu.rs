//! What a node's or a link's menu offers: pure, so it tests natively.
//!
//! A menu opens on a broker, a client or a network link (right-click,
//! long-press, or Enter / the menu key on its name); each entry is a
//! scenario command, which the page applies one millisecond after the
//! current event (a branch). Links to ZooKeeper are not offered: the engine
//! refuses to cut them, since session heartbeats are not simulated.

use crate::components::cluster::MenuNode;
use crate::i18n::{t, Lang};
use crate::state::ClientNames;
use kafka_sim::ids::NodeId;
use serde_json::{Map, Value};

/// Above this many other brokers, a menu offers no per-link entries (the
/// Tools drawer's Act section cuts any link).
pub const MAX_LINK_ENTRIES: usize = 8;

/// Whether the link between `a` and `b` (either way round) is in `cut`,
/// the engine's set of cut links, keyed by [`kafka_sim::sim::link_key`].
pub fn is_cut(cut: &[(NodeId, NodeId)], a: NodeId, b: NodeId) -> bool {
    cut.contains(&kafka_sim::sim::link_key(a, b))
}

/// One entry: its element id, its label, the command it issues.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub id: String,
    pub label: String,
    pub command: Map<String, Value>,
}

/// What the menu needs to know of the cluster at the current event.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MenuContext {
    /// Every broker's id.
    pub brokers: Vec<i32>,
    /// The links cut now, as the engine keys them (`sim::link_key`).
    pub cut: Vec<(NodeId, NodeId)>,
    pub names: ClientNames,
    /// The user topics a producer's menu offers to send to.
    pub topics: Vec<String>,
}

/// Topics a producer's menu lists (the drawer sends to any of them).
const MENU_TOPICS: usize = 3;

impl MenuContext {
    /// A node as the learner reads it: "broker 1", "producer p", "consumer c3".
    pub fn label(&self, n: NodeId, lang: Lang) -> String {
        let name = |list: &[String], i: u32| list.get(i as usize).cloned().unwrap_or(i.to_string());
        match n {
            NodeId::Broker(b) => format!("{} {b}", t(lang, "broker")),
            NodeId::Producer(i) => {
                format!("{} {}", t(lang, "producer"), name(&self.names.producers, i))
            }
            NodeId::Consumer(i) => {
                format!("{} {}", t(lang, "consumer"), name(&self.names.consumers, i))
            }
            NodeId::ZooKeeper => "ZooKeeper".into(),
            NodeId::Controller(c) => format!("{} {c}", t(lang, "controller")),
            NodeId::User => String::new(),
        }
    }

    /// The entry that cuts the link between `a` and `b`, or heals it if cut.
    fn link_entry(&self, a: NodeId, b: NodeId, lang: Lang, with_other: bool) -> Entry {
        let cut = is_cut(&self.cut, a, b);
        let (kind, key) = if cut {
            ("heal_link", "heal_link_to")
        } else {
            ("cut_link", "cut_link_to")
        };
        let label = if with_other {
            format!("{} {}", t(lang, key), self.label(b, lang))
        } else {
            t(
                lang,
                if cut {
                    "heal_this_link"
                } else {
                    "cut_this_link"
                },
            )
            .to_string()
        };
        let kind_id = kind.replace('_', "-");
        Entry {
            // A link's own menu has one entry; a node's names the other end.
            id: if with_other {
                format!("menu-{kind_id}-{b}")
            } else {
                format!("menu-{kind_id}")
            },
            label,
            command: crate::state::branch::command(
                kind,
                &[("a", a.to_string().into()), ("b", b.to_string().into())],
            ),
        }
    }

    /// Cut / heal entries for the links between `from` and every broker
    /// but itself, if there are few enough to list.
    fn links_from(&self, from: NodeId, lang: Lang) -> Vec<Entry> {
        let others: Vec<NodeId> = self
            .brokers
            .iter()
            .map(|&b| NodeId::broker(b))
            .filter(|&b| b != from)
            .collect();
        if others.len() > MAX_LINK_ENTRIES {
            return Vec::new();
        }
        others
            .into_iter()
            .map(|b| self.link_entry(from, b, lang, true))
            .collect()
    }
}

/// The menu's title and entries for `node` (`alive`: a node that runs, or
/// a link that is up).
pub fn entries(node: &MenuNode, alive: bool, cx: &MenuContext, lang: Lang) -> (String, Vec<Entry>) {
    let fixed = |id: &str, kind: &str, fields: &[(&str, Value)], key: &str| Entry {
        id: id.into(),
        label: t(lang, key).into(),
        command: crate::state::branch::command(kind, fields),
    };
    match node {
        MenuNode::Broker(b) => {
            let me = NodeId::broker(*b);
            let mut items = if alive {
                vec![
                    fixed(
                        "menu-kill",
                        "kill_broker",
                        &[("broker", (*b).into())],
                        "kill_hint",
                    ),
                    fixed(
                        "menu-shutdown",
                        "shutdown_broker",
                        &[("broker", (*b).into())],
                        "shutdown_hint",
                    ),
                ]
            } else {
                vec![fixed(
                    "menu-restart",
                    "restart_broker",
                    &[("broker", (*b).into())],
                    "restart_hint",
                )]
            };
            items.extend(cx.links_from(me, lang));
            (cap(&cx.label(me, lang)), items)
        }
        MenuNode::Producer(n) | MenuNode::Consumer(n) => {
            let producer = matches!(node, MenuNode::Producer(_));
            let list = if producer {
                &cx.names.producers
            } else {
                &cx.names.consumers
            };
            let me = list.iter().position(|x| x == n).map(|i| {
                if producer {
                    NodeId::Producer(i as u32)
                } else {
                    NodeId::Consumer(i as u32)
                }
            });
            let title = format!(
                "{} {n}",
                t(lang, if producer { "producer" } else { "consumer" })
            );
            if !alive {
                return (title, Vec::new());
            }
            let mut items = if producer {
                // A record to each topic (no key: the sticky partitioner
                // picks the partition), then close.
                let send = cx.topics.iter().take(MENU_TOPICS).map(|topic| Entry {
                    id: format!("menu-send-{topic}"),
                    label: format!("{} {topic}", t(lang, "send_to")),
                    command: crate::state::branch::command(
                        "produce",
                        &[
                            ("producer", n.as_str().into()),
                            ("topic", topic.as_str().into()),
                            ("value", "hello".into()),
                        ],
                    ),
                });
                send.chain([
                    fixed(
                        "menu-close-producer",
                        "close_producer",
                        &[("producer", n.as_str().into())],
                        "close_producer",
                    ),
                    fixed(
                        "menu-force-close-producer",
                        "close_producer",
                        &[("producer", n.as_str().into()), ("timeout_ms", 0.into())],
                        "force_close_producer",
                    ),
                ])
                .collect()
            } else {
                vec![
                    fixed(
                        "menu-crash-consumer",
                        "crash_consumer",
                        &[("consumer", n.as_str().into())],
                        "crash",
                    ),
                    fixed(
                        "menu-stop-consumer",
                        "stop_consumer",
                        &[("consumer", n.as_str().into())],
                        "stop",
                    ),
                ]
            };
            if let Some(me) = me {
                items.extend(cx.links_from(me, lang));
            }
            (title, items)
        }
        MenuNode::Link(a, b) => {
            let ends = format!("{} ↔ {}", cx.label(*a, lang), cx.label(*b, lang));
            let title = match lang {
                Lang::En => format!("{}: {ends}", t(lang, "link_title")),
                Lang::Zh => format!("{}：{ends}", t(lang, "link_title")),
            };
            if *a == NodeId::ZooKeeper || *b == NodeId::ZooKeeper {
                return (title, Vec::new());
            }
            (title, vec![cx.link_entry(*a, *b, lang, false)])
        }
    }
}

fn cap(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cx() -> MenuContext {
        MenuContext {
            brokers: vec![0, 1, 2],
            cut: vec![kafka_sim::sim::link_key(
                NodeId::broker(2),
                NodeId::broker(0),
            )],
            names: ClientNames {
                producers: vec!["p".into()],
                consumers: vec!["c1".into(), "c2".into()],
            },
            topics: vec!["first".into()],
        }
    }

    fn ids(items: &[Entry]) -> Vec<&str> {
        items.iter().map(|e| e.id.as_str()).collect()
    }

    #[test]
    fn a_broker_menu_cuts_or_heals_its_link_to_each_other_broker() {
        let (title, items) = entries(&MenuNode::Broker(0), true, &cx(), Lang::En);
        assert_eq!(title, "Broker 0");
        assert_eq!(
            ids(&items),
            [
                "menu-kill",
                "menu-shutdown",
                "menu-cut-link-broker-1",
                "menu-heal-link-broker-2"
            ]
        );
        // The link 0 ↔ 2 is cut (cut as 2 ↔ 0): healing it is offered.
        let heal = &items[3];
        assert_eq!(heal.label, "Heal the link to broker 2");
        assert_eq!(heal.command["type"], "heal_link");
        assert_eq!(
            (heal.command["a"].as_str(), heal.command["b"].as_str()),
            (Some("broker-0"), Some("broker-2"))
        );
        // The command is one the engine reads.
        let sc: kafka_sim::scenario::Command =
            serde_json::from_value(Value::Object(items[2].command.clone())).unwrap();
        assert!(matches!(sc, kafka_sim::scenario::Command::CutLink { .. }));
        // A dead broker restarts; its links are still offered.
        let (_, items) = entries(&MenuNode::Broker(1), false, &cx(), Lang::En);
        assert_eq!(
            ids(&items),
            [
                "menu-restart",
                "menu-cut-link-broker-0",
                "menu-cut-link-broker-2"
            ]
        );
    }

    #[test]
    fn a_client_menu_names_it_and_offers_its_links_to_brokers() {
        let (title, items) = entries(&MenuNode::Consumer("c2".into()), true, &cx(), Lang::En);
        assert_eq!(title, "consumer c2");
        assert_eq!(items[2].command["a"], "consumer-1");
        assert_eq!(items.len(), 2 + 3);
        let (title, items) = entries(&MenuNode::Producer("p".into()), false, &cx(), Lang::Zh);
        assert_eq!(title, "生产者 p");
        assert!(items.is_empty(), "a closed producer has nothing to do");
    }

    /// A producer's menu sends a record to each topic, as the drawer's
    /// send() does, and the command is one the engine accepts.
    #[test]
    fn a_producer_menu_sends_a_record() {
        let (_, items) = entries(&MenuNode::Producer("p".into()), true, &cx(), Lang::En);
        assert_eq!(items[0].id, "menu-send-first");
        assert_eq!(items[0].label, "Send a record to first");
        let c = &items[0].command;
        assert_eq!(
            (
                c["type"].as_str(),
                c["producer"].as_str(),
                c["topic"].as_str()
            ),
            (Some("produce"), Some("p"), Some("first"))
        );
        let mut player = crate::player::Player::from_json(crate::state::DEFAULT_SCENARIO).unwrap();
        player.seek(50);
        let mut b = player.branch(c.clone()).expect("the engine takes it");
        assert!(b.next_of_kind("record_partitioned").is_some());
    }

    #[test]
    fn a_link_menu_cuts_or_heals_it_but_not_a_zookeeper_link() {
        let link = MenuNode::Link(NodeId::broker(1), NodeId::Consumer(0));
        let (title, items) = entries(&link, true, &cx(), Lang::En);
        assert_eq!(title, "Link: broker 1 ↔ consumer c1");
        assert_eq!(ids(&items), ["menu-cut-link"]);
        assert_eq!(items[0].label, "Cut this link");
        let cut = MenuNode::Link(NodeId::broker(0), NodeId::broker(2));
        let (_, items) = entries(&cut, false, &cx(), Lang::Zh);
        assert_eq!(items[0].command["type"], "heal_link");
        assert_eq!(items[0].label, "恢复这条链路");
        let zk = MenuNode::Link(NodeId::broker(0), NodeId::ZooKeeper);
        assert!(entries(&zk, true, &cx(), Lang::En).1.is_empty());
    }

    #[test]
    fn a_big_cluster_lists_no_links_in_a_broker_menu() {
        let cx = MenuContext {
            brokers: (0..10).collect(),
            ..cx()
        };
        let (_, items) = entries(&MenuNode::Broker(0), true, &cx, Lang::En);
        assert_eq!(ids(&items), ["menu-kill", "menu-shutdown"]);
    }
}
