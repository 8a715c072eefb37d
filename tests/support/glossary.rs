//! The 中文 check shared by the native test (`tests/zh.rs`: captions,
//! lessons, practice, the page's words) and the browser test (`tests/app.rs`:
//! every string the page shows): an English word in 中文 mode must be one of
//! docs/glossary.md's kept terms, a name from the scenario, or not prose at
//! all (see the glossary's "Kept in English" section for the rules).

/// docs/glossary.md's kept terms.
pub fn kept_terms() -> Vec<String> {
    let text = include_str!("../../docs/glossary.md");
    let (_, kept) = text
        .split_once("## Kept in English")
        .expect("docs/glossary.md has its \"Kept in English\" section");
    kept.lines()
        .filter_map(|l| l.strip_prefix("- "))
        .map(|l| l.trim().to_string())
        .collect()
}

fn cjk(c: char) -> bool {
    ('\u{2e80}'..='\u{9fff}').contains(&c)
        || ('\u{ff00}'..='\u{ffef}').contains(&c)
        || ('\u{3000}'..='\u{303f}').contains(&c)
}

/// The English prose words of `text`: not kept terms, not `names`, not
/// identifiers (a digit or one of `._/=@#-:<>+%*|` inside), not CamelCase,
/// not a single letter (a variable or an abbreviation), not code (`send()`).
pub fn english_words(text: &str, kept: &[String], names: &[String]) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || cjk(c) || "“”‘’…→←↔·—–•✓✗✕".contains(c))
        .filter(|piece| !piece.contains("()") && !piece.contains("(["))
        .map(|w| w.trim_matches(|c: char| "()[]{},;:!?\"'`".contains(c)))
        .filter(|w| w.chars().filter(|c| c.is_ascii_alphabetic()).count() > 1)
        // A byte in hex ("bb").
        .filter(|w| !(w.len() == 2 && w.chars().all(|c| c.is_ascii_hexdigit())))
        .filter(|w| {
            !w.chars()
                .any(|c| c.is_ascii_digit() || "._/=@#-:<>+%*|\\~$&^".contains(c))
        })
        .filter(|w| !w.chars().skip(1).any(|c| c.is_ascii_uppercase()))
        .filter(|w| !kept.iter().any(|k| k.eq_ignore_ascii_case(w)))
        .filter(|w| !names.iter().any(|n| n == w))
        .map(str::to_string)
        .collect()
}

/// The names a scenario gives (topics, producers, consumers, groups,
/// including those its commands add).
pub fn scenario_names(scenario: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(scenario).unwrap();
    let mut specs: Vec<&serde_json::Value> = Vec::new();
    let mut names = Vec::new();
    for list in ["topics", "producers", "consumers"] {
        specs.extend(v[list].as_array().into_iter().flatten());
    }
    for c in v["commands"].as_array().into_iter().flatten() {
        for k in ["topic", "producer", "consumer", "key", "value"] {
            if c[k].is_object() {
                specs.push(&c[k]);
            } else if let Some(s) = c[k].as_str() {
                names.push(s.to_string());
            }
        }
    }
    for x in specs {
        names.extend(x["name"].as_str().map(str::to_string));
        names.extend(x["config"]["group.id"].as_str().map(str::to_string));
        for i in x["config"]["interceptor.classes"]
            .as_array()
            .into_iter()
            .flatten()
        {
            names.extend(i.as_str().map(str::to_string));
        }
    }
    names
}

/// Fails, listing every English word found (word → where), if there is any.
pub fn report(offenders: &std::collections::BTreeMap<String, String>, what: &str) {
    let list: Vec<String> = offenders
        .iter()
        .map(|(w, at)| format!("{w:?} in {at}"))
        .collect();
    assert!(
        list.is_empty(),
        "{} English words in 中文 {what} outside docs/glossary.md's kept terms:\n{}",
        list.len(),
        list.join("\n")
    );
}
