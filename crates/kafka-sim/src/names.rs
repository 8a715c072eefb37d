//! Clients by the names their scenario gave them.
//!
//! Events name a client by its index (`NodeId::Consumer(2)`), and captions
//! built from the event alone say "Consumer 2". A learner meets the same
//! client as "c3" in the scenario, the lesson text and the tables, so the
//! page, the CLI and the golden traces all pass captions through
//! [`ClientNames::apply`]: one name for every client everywhere.

/// The scenario's names of its producers and consumers, by index: the
/// engine's captions number clients ("Consumer 2"); the page shows the name
/// the scenario gave ("Consumer c3"), as its tables and lessons do.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClientNames {
    /// The producers' names, in scenario order.
    pub producers: Vec<String>,
    /// The consumers' names, in scenario order.
    pub consumers: Vec<String>,
}

impl ClientNames {
    /// The names of every client the world has (scenario and added).
    pub fn from_world(w: &crate::sim::World) -> ClientNames {
        ClientNames {
            producers: w.producers().iter().map(|p| p.name.clone()).collect(),
            consumers: w.consumers().iter().map(|c| c.name.clone()).collect(),
        }
    }

    /// Brings the names up to date with `w`: a command may have added a
    /// client since (indexes only grow, so the known names stay right).
    pub fn update(&mut self, w: &crate::sim::World) {
        if self.producers.len() != w.producers().len()
            || self.consumers.len() != w.consumers().len()
        {
            *self = ClientNames::from_world(w);
        }
    }

    /// `text` with "Producer N" / "consumer N" / "生产者 N" / "消费者 N"
    /// (N a whole number naming a client) written with the client's name.
    pub fn apply(&self, text: &str) -> String {
        const WORDS: [(&str, bool); 6] = [
            ("Producer ", true),
            ("producer ", true),
            ("生产者 ", true),
            ("Consumer ", false),
            ("consumer ", false),
            ("消费者 ", false),
        ];
        let mut out = String::with_capacity(text.len() + 16);
        let mut rest = text;
        'scan: while !rest.is_empty() {
            for (word, producer) in WORDS {
                let Some(after) = rest.strip_prefix(word) else {
                    continue;
                };
                let digits = after.bytes().take_while(|b| b.is_ascii_digit()).count();
                let tail = &after[digits..];
                // A whole number: not the start of a decimal ("1.5").
                let decimal =
                    tail.starts_with('.') && tail[1..].starts_with(|c: char| c.is_ascii_digit());
                let list = if producer {
                    &self.producers
                } else {
                    &self.consumers
                };
                let name = (digits > 0 && !decimal)
                    .then(|| after[..digits].parse::<usize>().ok())
                    .flatten()
                    .and_then(|i| list.get(i));
                if let Some(name) = name {
                    out.push_str(word);
                    out.push_str(name);
                    rest = tail;
                    continue 'scan;
                }
            }
            let c = rest.chars().next().expect("not empty");
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_are_called_by_their_scenario_names() {
        let names = ClientNames {
            producers: vec!["plain".into(), "safe".into()],
            consumers: vec!["c1".into(), "c2".into(), "c3".into()],
        };
        assert_eq!(
            names.apply("Consumer 2's poll() returned; consumer 0 left; Producer 1's Sender; 消费者 1 加入"),
            "Consumer c3's poll() returned; consumer c1 left; Producer safe's Sender; 消费者 c2 加入"
        );
        // Not a client's index: left alone.
        for text in [
            "Consumer 7 left",
            "producer id 1000",
            "Consumer 1.5",
            "consumer 12",
            "Consumer  1",
        ] {
            assert_eq!(names.apply(text), text);
        }
    }
}
