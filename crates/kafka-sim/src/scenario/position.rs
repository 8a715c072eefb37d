//! Where a field is in a scenario's text: the line and column of the value
//! at a path (`commands[1].producer`), so that an error found in the parsed
//! tree still points the learner at the line to fix.
//!
//! The text has already been read as JSON (its syntax is valid); this walks
//! it once, skipping values it does not descend into, and gives up (`None`)
//! where the path leaves what the text holds.

use serde_path_to_error::{Path, Segment};

/// The 1-based line and column of the value at `path` in `text`.
pub(super) fn line_column(text: &str, path: &Path) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let mut at = ws(b, 0);
    for seg in path.iter() {
        at = match seg {
            Segment::Map { key } => member(b, at, key)?,
            Segment::Seq { index } => element(b, at, *index)?,
            _ => break,
        };
    }
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Some((line, column))
}

fn ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The end of the string starting at `i` (just past its closing quote).
fn string_end(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// The end of the value starting at `i`.
fn value_end(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(b'"') => string_end(b, i),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = string_end(b, j);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return j + 1;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            j
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']') && !b[j].is_ascii_whitespace()
            {
                j += 1;
            }
            j
        }
    }
}

/// The start of the value of `key` in the object at `i`.
fn member(b: &[u8], i: usize, key: &str) -> Option<usize> {
    if b.get(i) != Some(&b'{') {
        return None;
    }
    let mut j = ws(b, i + 1);
    while b.get(j) == Some(&b'"') {
        let end = string_end(b, j);
        let raw = std::str::from_utf8(&b[j..end]).ok()?;
        let name: String = serde_json::from_str(raw).ok()?;
        j = ws(b, end);
        j = ws(b, j + 1); // the ':'
        if name == key {
            return Some(j);
        }
        j = ws(b, value_end(b, j));
        if b.get(j) != Some(&b',') {
            return None;
        }
        j = ws(b, j + 1);
    }
    None
}

/// The start of element `index` of the array at `i`.
fn element(b: &[u8], i: usize, index: usize) -> Option<usize> {
    if b.get(i) != Some(&b'[') {
        return None;
    }
    let mut j = ws(b, i + 1);
    for _ in 0..index {
        j = ws(b, value_end(b, j));
        if b.get(j) != Some(&b',') {
            return None;
        }
        j = ws(b, j + 1);
    }
    (j < b.len() && b[j] != b']').then_some(j)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_members_and_elements_past_nested_values() {
        let text = "{\n  \"a\": {\"x\": [1, {\"y\": \"]}\"}]},\n  \"b\": [\n    true,\n    {\"k\\\"ey\": 2, \"c\": 3}\n  ]\n}";
        let b = text.as_bytes();
        let i = member(b, ws(b, 0), "b").unwrap();
        let j = element(b, i, 1).unwrap();
        let k = member(b, j, "c").unwrap();
        assert_eq!(&text[k..k + 1], "3");
        let q = member(b, j, "k\"ey").unwrap();
        assert_eq!(&text[q..q + 1], "2");
        assert!(element(b, i, 2).is_none());
        assert!(member(b, j, "missing").is_none());
    }
}
