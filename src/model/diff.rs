//! What one event changed: the cluster's state (brokers, replicas, ZooKeeper,
//! clients, groups) read off the engine's world before and after it, as
//! named facts, and the facts that differ. Read only: every value is the
//! engine's.

use crate::model::inspect::group_coordinators;
use kafka_sim::collections::{SortedMap, SortedSet};
use kafka_sim::World;
use std::sync::Arc;

/// A fact's value, shortened for the list.
const MAX_VALUE: usize = 90;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The fact, e.g. `broker 1 · first-0 · HW`.
    pub what: String,
    pub before: Option<String>,
    pub after: Option<String>,
    /// What to highlight in the drawing: `b1` (a broker), `b1:first-0` (a
    /// replica), `z/path` (a znode), `c0` / `p0` (a client).
    pub mark: Option<String>,
}

/// Changes listed at most (the rest counted).
pub const MAX_CHANGES: usize = 40;

fn short(s: &str) -> String {
    if s.chars().count() <= MAX_VALUE {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(MAX_VALUE).collect::<String>())
    }
}

/// The positions at which two lists hold the same allocation.
fn same_at<T>(x: &[Arc<T>], y: &[Arc<T>]) -> SortedSet<usize> {
    (0..x.len().min(y.len()))
        .filter(|&i| Arc::ptr_eq(&x[i], &y[i]))
        .collect()
}

/// The nodes that are the same allocation in two worlds (a step changes
/// one or two of them): their facts are equal, so [`diff`] leaves them out
/// on both sides instead of naming every partition of every broker and
/// every consumer twice (at 100 brokers and 1,600 consumers, half a second
/// a step).
#[derive(Default)]
struct Same {
    brokers: SortedSet<kafka_sim::ids::BrokerId>,
    producers: SortedSet<usize>,
    consumers: SortedSet<usize>,
    /// Groups whose live coordinator is the same unchanged broker in both.
    groups: SortedSet<String>,
}

impl Same {
    fn between(a: &World, b: &World) -> Same {
        let brokers: SortedSet<_> = a
            .brokers()
            .iter()
            .filter(|(id, x)| b.brokers().get(id).is_some_and(|y| Arc::ptr_eq(x, y)))
            .map(|(id, _)| *id)
            .collect();
        let before: SortedMap<String, Option<i32>> = group_coordinators(a)
            .into_iter()
            .map(|(g, c)| (g, c.map(|c| c.0)))
            .collect();
        let groups = group_coordinators(b)
            .into_iter()
            .filter(|(g, c)| {
                let now = c.map(|c| c.0);
                before.get(g) == Some(&now)
                    && now.is_some_and(|id| brokers.contains(&kafka_sim::ids::BrokerId(id)))
            })
            .map(|(g, _)| g)
            .collect();
        Same {
            producers: same_at(a.producers(), b.producers()),
            consumers: same_at(a.consumers(), b.consumers()),
            brokers,
            groups,
        }
    }
}

/// The named facts of a world, each with what it marks.
pub fn facts(w: &World) -> SortedMap<String, (String, Option<String>)> {
    facts_except(w, &Same::default())
}

/// The facts of `w`, without those of the nodes `same` names.
fn facts_except(w: &World, same: &Same) -> SortedMap<String, (String, Option<String>)> {
    let mut f = SortedMap::new();
    let mut put = |k: String, v: String, mark: Option<String>| {
        f.insert(k, (v, mark));
    };
    let controller = w.controller_id();
    for (id, b) in w.brokers() {
        if b.alive && Some(*id) == controller && b.controller.is_some() {
            put(
                "controller".into(),
                format!("broker {}", id.0),
                Some(format!("b{}", id.0)),
            );
        }
        if same.brokers.contains(id) {
            continue;
        }
        let mark = Some(format!("b{}", id.0));
        let state = if b.alive {
            "alive"
        } else if b.incarnation > 0 {
            "down"
        } else {
            "not started"
        };
        put(format!("broker {}", id.0), state.into(), mark.clone());
        for (tp, log) in &b.logs {
            let key = format!("broker {} · {tp}", id.0);
            let mark = Some(format!("b{}:{tp}", id.0));
            put(
                format!("{key} · LEO"),
                log.log_end_offset.to_string(),
                mark.clone(),
            );
            put(
                format!("{key} · log start"),
                log.log_start_offset.to_string(),
                mark.clone(),
            );
            put(
                format!("{key} · segments"),
                log.segments.len().to_string(),
                mark.clone(),
            );
            if let Some(p) = b.partitions.get(tp) {
                put(
                    format!("{key} · role"),
                    format!(
                        "{} (leader epoch {})",
                        if p.is_leader { "leader" } else { "follower" },
                        p.leader_epoch
                    ),
                    mark.clone(),
                );
                put(
                    format!("{key} · HW"),
                    p.high_watermark.to_string(),
                    mark.clone(),
                );
                if p.is_leader {
                    let isr: Vec<String> = p.isr.iter().map(|b| b.0.to_string()).collect();
                    put(format!("{key} · ISR"), format!("[{}]", isr.join(",")), mark);
                }
            }
        }
    }
    for (path, z) in w.zookeeper().paths() {
        put(
            format!("znode {path}"),
            short(&format!("{} (version {})", z.data, z.version)),
            Some(format!("z{path}")),
        );
    }
    for (i, p) in w.producers().iter().enumerate() {
        if same.producers.contains(&i) {
            continue;
        }
        let mark = Some(format!("p{i}"));
        put(
            format!("producer {}", p.name),
            match (p.closing, p.closed) {
                (_, true) => "closed",
                (true, false) => "closing",
                _ => "running",
            }
            .to_string(),
            mark.clone(),
        );
        let batches = p.batches_waiting();
        put(
            format!("producer {} · batches waiting", p.name),
            batches.to_string(),
            mark.clone(),
        );
        let in_flight = p.requests_in_flight();
        put(
            format!("producer {} · requests in flight", p.name),
            in_flight.to_string(),
            mark.clone(),
        );
        for (tp, s) in &p.next_sequence {
            put(
                format!("producer {} · {tp} · next sequence", p.name),
                s.to_string(),
                mark.clone(),
            );
        }
        if p.producer_id >= 0 {
            put(
                format!("producer {} · producerId", p.name),
                format!("{} (epoch {})", p.producer_id, p.producer_epoch),
                mark.clone(),
            );
        }
    }
    for (i, c) in w.consumers().iter().enumerate() {
        if same.consumers.contains(&i) {
            continue;
        }
        let mark = Some(format!("c{i}"));
        put(
            format!("consumer {}", c.name),
            if c.alive { "alive" } else { "down" }.into(),
            mark.clone(),
        );
        for (tp, pos) in &c.positions {
            put(
                format!("consumer {} · {tp} · position", c.name),
                pos.to_string(),
                mark.clone(),
            );
        }
        let a: Vec<String> = c.assignment.iter().map(|t| t.to_string()).collect();
        put(
            format!("consumer {} · assignment", c.name),
            format!("[{}]", a.join(", ")),
            mark,
        );
    }
    for (id, coord) in group_coordinators(w) {
        let Some((_, g)) = coord.filter(|_| !same.groups.contains(&id)) else {
            continue;
        };
        let key = format!("group {id}");
        put(format!("{key} · state"), format!("{:?}", g.state), None);
        put(
            format!("{key} · generation"),
            g.generation_id.to_string(),
            None,
        );
        for (tp, off) in g.offsets.iter() {
            put(
                format!("{key} · {tp} · committed offset"),
                off.to_string(),
                None,
            );
        }
    }
    f
}

/// A fact's name or value as shown in `lang`. Facts are named in English
/// (they are compared by name); for 简体中文 each ` · ` part is put in
/// Chinese, keeping Kafka's own terms (LEO, HW, ISR, producerId, offsets and
/// partition names) as the course notes write them.
pub fn localize(s: &str, lang: kafka_sim::Lang) -> String {
    if lang == kafka_sim::Lang::En {
        return s.to_string();
    }
    const WORDS: [(&str, &str); 20] = [
        ("log start", "日志起始 offset"),
        ("segments", "段数"),
        ("role", "角色"),
        ("batches waiting", "累加器中的批次"),
        ("requests in flight", "在途请求"),
        ("next sequence", "下一个序列号"),
        ("position", "消费位置"),
        ("assignment", "分配的分区"),
        ("state", "状态"),
        ("generation", "代（generation）"),
        ("committed offset", "已提交 offset"),
        ("controller", "控制器"),
        ("alive", "存活"),
        ("down", "宕机"),
        ("not started", "未启动"),
        ("running", "运行中"),
        ("closing", "关闭中"),
        ("closed", "已关闭"),
        ("leader", "leader"),
        ("follower", "follower"),
    ];
    const PREFIXES: [(&str, &str); 3] = [
        ("consumer ", "消费者 "),
        ("producer ", "生产者 "),
        ("group ", "消费者组 "),
    ];
    s.split(" · ")
        .map(|part| {
            if let Some((_, zh)) = WORDS.iter().find(|(en, _)| *en == part) {
                return zh.to_string();
            }
            for (en, zh) in PREFIXES {
                if let Some(rest) = part.strip_prefix(en) {
                    return format!("{zh}{rest}");
                }
            }
            part.to_string()
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The facts that differ between `before` and `after`, in the facts' order.
pub fn diff(before: &World, after: &World) -> Vec<Change> {
    let same = Same::between(before, after);
    let a = facts_except(before, &same);
    let b = facts_except(after, &same);
    let keys: SortedSet<&String> = SortedSet::from_iter(a.keys().chain(b.keys()));
    keys.into_iter()
        .filter_map(|k| {
            let x = a.get(k);
            let y = b.get(k);
            (x.map(|v| &v.0) != y.map(|v| &v.0)).then(|| Change {
                what: k.clone(),
                before: x.map(|v| v.0.clone()),
                after: y.map(|v| v.0.clone()),
                mark: y.or(x).and_then(|v| v.1.clone()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::Player;
    use kafka_sim::Lang;

    fn around(p: &mut Player, needle: &str) -> Vec<Change> {
        let i = p
            .find_nth_where(1, |e| e.caption(Lang::En).contains(needle))
            .unwrap_or_else(|| panic!("no event says {needle}"));
        p.seek(i);
        let before = p.world().clone();
        p.seek(i + 1);
        diff(&before, p.world())
    }

    fn player() -> Player {
        Player::from_json(include_str!("../../scenarios/leader-failover.json")).unwrap()
    }

    /// Leaving out the nodes that did not change gives the same changes as
    /// comparing every fact, at every step of a run with brokers failing,
    /// groups rebalancing and offsets committed.
    #[test]
    fn leaving_out_unchanged_nodes_changes_no_diff() {
        let full = |a: &World, b: &World| {
            let (x, y) = (facts(a), facts(b));
            let keys: SortedSet<&String> = SortedSet::from_iter(x.keys().chain(y.keys()));
            keys.into_iter()
                .filter(|k| x.get(*k).map(|v| &v.0) != y.get(*k).map(|v| &v.0))
                .map(|k| k.to_string())
                .collect::<Vec<_>>()
        };
        for text in [
            include_str!("../../scenarios/group-rebalance.json"),
            include_str!("../../scenarios/leader-failover.json"),
        ] {
            let mut p = Player::from_json(text).unwrap();
            let (mut steps, mut changed) = (0, 0);
            while steps < 3000 {
                let before = p.world().clone();
                if !p.step() {
                    break;
                }
                let quick: Vec<String> = diff(&before, p.world())
                    .into_iter()
                    .map(|c| c.what)
                    .collect();
                assert_eq!(quick, full(&before, p.world()), "at event {}", p.cursor());
                steps += 1;
                changed += usize::from(!quick.is_empty());
            }
            assert!(
                steps > 200 && changed > 20,
                "{steps} steps, {changed} with changes"
            );
        }
    }

    #[test]
    fn fact_names_and_word_values_are_shown_in_chinese() {
        assert_eq!(
            localize("consumer c · first-0 · position", Lang::Zh),
            "消费者 c · first-0 · 消费位置"
        );
        assert_eq!(
            localize("broker 1 · first-0 · HW", Lang::Zh),
            "broker 1 · first-0 · HW"
        );
        assert_eq!(localize("down", Lang::Zh), "宕机");
        assert_eq!(localize("producer p", Lang::Zh), "生产者 p");
        assert_eq!(localize("producer p", Lang::En), "producer p");
    }

    #[test]
    fn an_append_changes_the_leo_of_that_replica_only() {
        let mut p = player();
        let c = around(&mut p, "Broker 1 (leader) appended offsets 0–0");
        assert_eq!(
            c,
            vec![Change {
                what: "broker 1 · first-0 · LEO".into(),
                before: Some("0".into()),
                after: Some("1".into()),
                mark: Some("b1:first-0".into()),
            }]
        );
    }

    #[test]
    fn an_election_changes_the_leader_the_znode_and_nothing_unrelated() {
        let mut p = player();
        let c = around(
            &mut p,
            "wrote /brokers/topics/first/partitions/0/state (znode version 1)",
        );
        let what: Vec<&str> = c.iter().map(|c| c.what.as_str()).collect();
        assert!(
            what.contains(&"znode /brokers/topics/first/partitions/0/state"),
            "{what:?}"
        );
        let z = c.iter().find(|c| c.what.starts_with("znode")).unwrap();
        assert!(
            z.after.as_deref().unwrap().contains("\"leader\":0"),
            "{z:?}"
        );
        assert!(
            z.before.as_deref().unwrap().contains("\"leader\":1"),
            "{z:?}"
        );
        assert!(what.iter().all(|w| !w.contains("consumer")));
        // Nothing changes without an event: the same world has no diff.
        assert!(diff(p.world(), p.world()).is_empty());
    }

    #[test]
    fn a_kill_marks_the_broker() {
        let mut p = player();
        let c = around(&mut p, "Broker 1 crashed");
        let b = c.iter().find(|c| c.what == "broker 1").expect("{c:?}");
        assert_eq!(
            (b.before.as_deref(), b.after.as_deref()),
            (Some("alive"), Some("down"))
        );
        assert_eq!(b.mark.as_deref(), Some("b1"));
    }
}
