//! Direct manipulation: what the learner does in the page (kill a broker,
//! send a record with a key, cut a link, crash a consumer) becomes a command
//! in the scenario, timed one millisecond after the event at the cursor. The
//! simulation is deterministic, so the new run repeats every event up to the
//! cursor exactly and branches from there; the scenario text (and so a share
//! link or an export) carries the learner's commands.

use crate::player::Player;
use serde_json::{Map, Value};

/// The longest run a scenario may ask for (the engine's limit: one day).
const MAX_RUN_MS: u64 = 86_400_000;

/// The scenario text with `command` (a command object without `at_ms`) added
/// at `at_ms`; the run is extended if it would end before the command.
pub fn with_command(
    source: &str,
    at_ms: u64,
    command: Map<String, Value>,
) -> Result<String, String> {
    let mut v: Value =
        serde_json::from_str(source).map_err(|e| format!("the scenario text: {e}"))?;
    let o = v
        .as_object_mut()
        .ok_or("the scenario is not a JSON object")?;
    let mut c = Map::new();
    c.insert("at_ms".into(), at_ms.into());
    c.extend(command);
    let commands = o
        .entry("commands")
        .or_insert_with(|| Value::Array(Vec::new()));
    commands
        .as_array_mut()
        .ok_or("commands: not a list")?
        .push(Value::Object(c));
    let until = o
        .get("run_until_ms")
        .and_then(Value::as_u64)
        .unwrap_or(10_000);
    if until < at_ms + 5_000 {
        if at_ms + 5_000 > MAX_RUN_MS {
            return Err("the run cannot go on past one day of simulated time".into());
        }
        o.insert("run_until_ms".into(), (at_ms + 5_000).into());
    }
    Ok(v.to_string())
}

/// A command object: `{"type": kind, ...fields}`.
pub fn command(kind: &str, fields: &[(&str, Value)]) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("type".into(), kind.into());
    for (k, v) in fields {
        m.insert((*k).into(), v.clone());
    }
    m
}

impl Player {
    /// The same scenario with `command` one millisecond after the cursor's
    /// event, at the same step: the past is unchanged, the future branches.
    pub fn branch(&self, command: Map<String, Value>) -> Result<Player, String> {
        let at = self.current().map(|e| e.time_ms + 1).unwrap_or(0);
        let text = with_command(self.source(), at, command)?;
        let mut p = Player::from_json(&text).map_err(|e| {
            if e.field.is_empty() {
                e.message
            } else {
                format!("{}: {}", e.field, e.message)
            }
        })?;
        p.seek(self.cursor());
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kafka_sim::Lang;

    const SCENARIO: &str = include_str!("../../scenarios/leader-failover.json");

    fn captions(p: &Player, n: u64) -> Vec<String> {
        (0..n)
            .map(|i| p.event(i).unwrap().caption(Lang::En))
            .collect()
    }

    #[test]
    fn a_branch_keeps_the_past_and_runs_the_command_next() {
        let mut p = Player::from_json(SCENARIO).unwrap();
        for _ in 0..60 {
            p.step();
        }
        let b = p
            .branch(command("kill_broker", &[("broker", 2.into())]))
            .unwrap();
        assert_eq!(b.cursor(), 60);
        assert_eq!(captions(&b, 60), captions(&p, 60), "the past is unchanged");
        let mut b = b;
        let kill = b.next_of_kind("command_issued").unwrap();
        let caption = b.event(kill).unwrap().caption(Lang::En);
        assert!(caption.contains("kill broker 2"), "{caption}");
        assert_eq!(b.event(kill).unwrap().time_ms, p.time_ms() + 1);
        // And the branch itself is deterministic: the same command, the same run.
        let again = p
            .branch(command("kill_broker", &[("broker", 2.into())]))
            .unwrap();
        let mut b2 = again;
        while b.step() {}
        while b2.step() {}
        assert_eq!(b.known_len(), b2.known_len());
        assert_eq!(captions(&b, b.known_len()), captions(&b2, b2.known_len()));
        // The scenario text now carries the command (for share links and exports).
        assert!(b.source().contains("\"kill_broker\""));
    }

    #[test]
    fn a_produce_with_a_key_goes_to_the_murmur2_partition() {
        let mut p = Player::from_json(SCENARIO).unwrap();
        p.seek(50);
        let mut b = p
            .branch(command(
                "produce",
                &[
                    ("producer", "p".into()),
                    ("topic", "first".into()),
                    ("key", "learner".into()),
                    ("value", "<b>not html</b>".into()),
                ],
            ))
            .unwrap();
        let i = b.next_of_kind("record_partitioned").unwrap();
        assert!(b.event(i).unwrap().caption(Lang::En).contains("murmur2"));
    }

    #[test]
    fn an_impossible_command_is_refused_naming_the_field() {
        let p = Player::from_json(SCENARIO).unwrap();
        let e = p
            .branch(command("kill_broker", &[("broker", 9.into())]))
            .err()
            .unwrap();
        assert!(e.contains("broker") && e.contains("no broker 9"), "{e}");
        let e = p
            .branch(command(
                "produce",
                &[("producer", "p".into()), ("topic", "nope".into())],
            ))
            .err()
            .unwrap();
        assert!(e.contains("topic"), "{e}");
    }

    #[test]
    fn the_run_is_extended_for_a_late_command() {
        let text = with_command(
            SCENARIO,
            9_999,
            command("restart_broker", &[("broker", 1.into())]),
        )
        .unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["run_until_ms"], 14_999);
        assert!(with_command(
            SCENARIO,
            MAX_RUN_MS,
            command("restart_broker", &[("broker", 1.into())])
        )
        .is_err());
    }
}
