//! Topic patterns for `subscribe(Pattern)`: Java's `Pattern.matcher(topic).matches()`
//! (the whole name must match), over a small regex engine.

#[derive(Clone, Debug)]
pub struct Regex {
    source: String,
    inner: regex_lite::Regex,
}

impl Regex {
    pub fn new(p: &str) -> Result<Regex, String> {
        let inner = regex_lite::Regex::new(&format!("^(?:{p})$"))
            .map_err(|e| format!("`{p}` is not a valid pattern: {e}"))?;
        Ok(Regex {
            source: p.to_string(),
            inner,
        })
    }

    /// Whole-name match, like Java's `matches()`.
    pub fn matches(&self, topic: &str) -> bool {
        self.inner.is_match(topic)
    }

    pub fn as_str(&self) -> &str {
        &self.source
    }
}

impl PartialEq for Regex {
    fn eq(&self, o: &Regex) -> bool {
        self.source == o.source
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn matches_whole_names_only() {
        let r = super::Regex::new("orders-.*").unwrap();
        assert!(r.matches("orders-eu"));
        assert!(!r.matches("old-orders-eu"));
        assert!(super::Regex::new("(").is_err());
    }
}
