//! Topic patterns for `subscribe(Pattern)`: Java's
//! `Pattern.matcher(topic).matches()`, the whole name must match
//! (`ConsumerMetadata`/`SubscriptionState.matchesSubscribedPattern` in the
//! Java client).
//!
//! Patterns run on the `regex-lite` crate: linear-time matching (no
//! backtracking, so no pattern takes exponential time), and the syntax topic
//! patterns use: literals, `.`, classes, `\d \w \s`, groups, alternation,
//! repetition, and `(?i)`. Java's look-arounds, back-references and
//! possessive quantifiers are not supported and are refused by name.
//!
//! A pattern comes from a scenario, so from a shared link: its size is
//! bounded before anything is built. Its text is at most
//! [`MAX_PATTERN_LEN`] bytes, its groups nest at most [`MAX_NESTING`] deep
//! (checked while parsing, so no pattern can exhaust the stack), and its
//! compiled program is at most [`MAX_PROGRAM_BYTES`] (checked while
//! compiling, so `((a{1000}){1000}){1000}` is refused without being built).

/// The longest pattern accepted, in bytes.
pub const MAX_PATTERN_LEN: usize = 1000;
/// How deep groups and repetitions may nest.
pub const MAX_NESTING: u32 = 50;
/// The largest compiled program accepted, in bytes.
pub const MAX_PROGRAM_BYTES: usize = 1 << 20;

#[derive(Clone, Debug)]
/// A compiled topic pattern (`subscribe(Pattern)`), matched against whole
/// topic names.
pub struct Regex {
    source: String,
    anchored: regex_lite::Regex,
}

fn build(p: &str) -> Result<regex_lite::Regex, regex_lite::Error> {
    regex_lite::RegexBuilder::new(p)
        .nest_limit(MAX_NESTING)
        .size_limit(MAX_PROGRAM_BYTES)
        .build()
}

impl Regex {
    /// Compiles `p`, or says why it is refused (the message names `p`).
    pub fn new(p: &str) -> Result<Regex, String> {
        let refuse = |why: String| format!("`{}` is not a usable topic pattern: {why}", shown(p));
        if p.len() > MAX_PATTERN_LEN {
            return Err(refuse(format!(
                "it is {} bytes long, more than the {MAX_PATTERN_LEN} accepted",
                p.len()
            )));
        }
        // The pattern alone first, so that `a)|(b` is refused rather than
        // read as two halves of the anchored form below.
        build(p).map_err(|e| refuse(first_line(&e)))?;
        let anchored = build(&format!("^(?:{p})$")).map_err(|e| refuse(first_line(&e)))?;
        Ok(Regex {
            source: p.to_string(),
            anchored,
        })
    }

    /// Whole-name match, like Java's `matches()`.
    pub fn matches(&self, topic: &str) -> bool {
        self.anchored.is_match(topic)
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }
}

/// The pattern as quoted in a message: at most 60 characters.
fn shown(p: &str) -> String {
    if p.chars().count() <= 60 {
        p.to_string()
    } else {
        format!("{}…", p.chars().take(60).collect::<String>())
    }
}

/// regex-lite's message is several lines (the pattern, a caret); the last
/// line says what is wrong.
fn first_line(e: &regex_lite::Error) -> String {
    let text = e.to_string();
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("invalid pattern")
        .trim()
        .trim_start_matches("error: ")
        .to_string()
}

impl PartialEq for Regex {
    fn eq(&self, o: &Regex) -> bool {
        self.source == o.source
    }
}

#[cfg(test)]
mod tests {
    use super::Regex;

    #[test]
    fn matches_whole_names_only() {
        let r = Regex::new("orders-.*").unwrap();
        assert!(r.matches("orders-eu"));
        assert!(!r.matches("old-orders-eu"));
        assert!(!r.matches("orders"));
        // Alternation inside a whole match: `a|ab` matches "ab" as Java's
        // matches() does (a leftmost-first search would stop at "a").
        assert!(Regex::new("a|ab").unwrap().matches("ab"));
        let r = Regex::new("(?i)Orders-[A-Z]+").unwrap();
        assert!(r.matches("orders-eu") && r.matches("ORDERS-EU"));
        assert!(!r.matches("orders-1"));
        assert!(Regex::new("metrics-\\d{2,3}")
            .unwrap()
            .matches("metrics-12"));
        assert!(!Regex::new("metrics-\\d{2,3}")
            .unwrap()
            .matches("metrics-1234"));
        assert!(Regex::new("^orders-.*$").unwrap().matches("orders-x"));
    }

    #[test]
    fn refuses_what_it_cannot_run_naming_the_pattern() {
        for p in ["(", ")", "a)|(b", "[a-", "[z-a]", "*a", "(?=a)", "a\\"] {
            let e = Regex::new(p).unwrap_err();
            assert!(e.contains(&format!("`{p}`")), "{p}: {e}");
            assert!(!e.contains('\n'), "one line: {e}");
        }
    }

    /// Hostile patterns from a shared link are refused at once, in bounded
    /// memory and stack (issue 18, item 4).
    #[test]
    fn hostile_patterns_are_refused_not_built() {
        let e = Regex::new("((a{1000}){1000}){1000}").unwrap_err();
        assert!(e.contains("size limit") || e.contains("exceed"), "{e}");
        let deep = format!("{}a{}", "(".repeat(16_000), ")".repeat(16_000));
        let e = Regex::new(&deep).unwrap_err();
        assert!(e.contains("bytes long"), "{e}");
        let nested = format!("{}a{}", "(".repeat(400), ")".repeat(400));
        let e = Regex::new(&nested).unwrap_err();
        assert!(e.contains("nest"), "{e}");
        // Within the limits, nesting is fine.
        let ok = format!("{}a{}", "(".repeat(40), ")".repeat(40));
        assert!(Regex::new(&ok).unwrap().matches("a"));
    }

    #[test]
    fn a_pathological_pattern_takes_linear_time() {
        let r = Regex::new("(a*)*(a*)*(a*)*b").unwrap();
        assert!(!r.matches(&"a".repeat(249)));
    }
}
