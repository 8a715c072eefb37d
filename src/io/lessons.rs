//! The lesson library: `static/lessons/index.json` lists the lesson files
//! beside it (each a scenario with a `lesson`, see docs/lesson-format.md).
//! The build copies the folder to `lessons/` next to the page, so a teacher
//! adds or edits a lesson by editing those files: no rebuild. The page reads
//! them from its own origin only (the service worker keeps them offline).

use crate::state::lesson::Text;
use crate::state::links::{Link, Open};
use crate::state::{load_scenario, Action, EXAMPLES, EXAMPLES_URL};
use serde::Deserialize;
use std::cell::RefCell;
use std::rc::Rc;

/// Where the lessons live in the repository.
pub const LESSONS_DIR: &str = "static/lessons";
/// Where the page finds them (relative to the page).
pub const LESSONS_URL: &str = "lessons/";

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LessonEntry {
    /// The lesson file, e.g. `storage-lookup.json`.
    pub file: String,
    pub title: Text,
    /// One line under the title on the start screen.
    #[serde(default)]
    pub summary: Option<Text>,
    /// The concept IDs it teaches (as in its `lesson.concepts`).
    #[serde(default)]
    pub concepts: Vec<String>,
}

impl LessonEntry {
    /// The name used in links: `#lesson=storage-lookup`.
    pub fn slug(&self) -> &str {
        self.file.trim_end_matches(".json")
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LessonIndex {
    pub lessons: Vec<LessonEntry>,
}

impl LessonIndex {
    /// Reads the index, naming the entry at fault. File names are plain
    /// (`[a-z0-9-]+.json`), so an index can only point beside itself.
    pub fn from_json(text: &str) -> Result<LessonIndex, String> {
        let index: LessonIndex =
            serde_json::from_str(text).map_err(|e| format!("lessons/index.json: {e}"))?;
        for (i, l) in index.lessons.iter().enumerate() {
            let stem = l.file.strip_suffix(".json").unwrap_or("");
            if stem.is_empty()
                || !stem
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            {
                return Err(format!(
                    "lessons/index.json: lessons[{i}].file: {:?} is not a plain name like \"storage-lookup.json\"",
                    l.file
                ));
            }
        }
        Ok(index)
    }

    pub fn find(&self, slug: &str) -> Option<&LessonEntry> {
        self.lessons.iter().find(|l| l.slug() == slug)
    }
}

/// Reads a file of the page's own origin as text (the browser's `fetch`).
pub async fn fetch_text(url: &str) -> Result<String, String> {
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;
    let window = web_sys::window().ok_or("no window")?;
    let resp = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|_| format!("{url}: could not be read (offline, and not kept yet?)"))?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|_| format!("{url}: no response"))?;
    if !resp.ok() {
        return Err(format!("{url}: HTTP {}", resp.status()));
    }
    let text = resp.text().map_err(|_| format!("{url}: unreadable"))?;
    JsFuture::from(text)
        .await
        .ok()
        .and_then(|t| t.as_string())
        .ok_or_else(|| format!("{url}: not text"))
}

/// Reads the library's lesson `file` and opens it: the action for the app.
pub async fn open(file: String) -> Action {
    let slug = file.trim_end_matches(".json").to_string();
    match fetch_text(&format!("{LESSONS_URL}{file}")).await {
        Err(e) => Action::LoadFailed(e),
        Ok(text) => opened(Open::Lesson(slug), &file, Ok(text)),
    }
}

/// Opens an example (`crate::state::EXAMPLES`) read from `scenarios/`.
/// Examples keep lesson progress under their name, as lessons do.
pub async fn open_example(file: &str) -> Action {
    let text = fetch_text(&format!("{EXAMPLES_URL}{file}")).await;
    let name = file.trim_end_matches(".json").to_string();
    opened(Open::Example(name), file, text)
}

fn opened(open: Open, file: &str, text: Result<String, String>) -> Action {
    match text.and_then(|text| load_scenario(file, &text)) {
        Ok(p) => Action::LessonOpened(open, Rc::new(RefCell::new(p))),
        Err(m) => Action::LoadFailed(m),
    }
}

/// Reads the library's index.
pub async fn load_index() -> Result<LessonIndex, String> {
    let text = fetch_text(&format!("{LESSONS_URL}index.json")).await?;
    LessonIndex::from_json(&text)
}

/// Reads what a pending link names (a lesson of the library, an example),
/// then follows the link again for its step and view. A name the library
/// or the examples do not have is named in the error.
pub async fn open_link(link: Link, dispatch: impl Fn(Action)) {
    let action = match &link.open {
        Open::Lesson(slug) => match load_index().await {
            Ok(index) => {
                let file = index.find(slug).map(|l| l.file.clone());
                dispatch(Action::Library(Rc::new(index)));
                match file {
                    Some(file) => open(file).await,
                    None => Action::LoadFailed(format!(
                        "the link: the lesson library has no lesson “{slug}”"
                    )),
                }
            }
            Err(e) => Action::LoadFailed(format!("the link asked for lesson “{slug}”: {e}")),
        },
        Open::Example(name) => match EXAMPLES
            .iter()
            .find(|f| f.trim_end_matches(".json") == name)
        {
            Some(file) => open_example(file).await,
            None => Action::LoadFailed(format!("the link: there is no built-in example “{name}”")),
        },
        _ => return,
    };
    let ok = matches!(action, Action::LessonOpened(..));
    dispatch(action);
    if ok {
        dispatch(Action::Follow(link));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The examples read from `scenarios/` exist, open, and are the ones the
    /// service worker keeps for offline use; the first is built in.
    #[test]
    fn every_example_opens_and_is_kept_offline() {
        use crate::state::DEFAULT_SCENARIO;
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let sw = std::fs::read_to_string(root.join("static/sw.js")).unwrap();
        let html = std::fs::read_to_string(root.join("index.html")).unwrap();
        assert!(html.contains(&format!(
            r#"rel="copy-dir" href="{}""#,
            EXAMPLES_URL.trim_end_matches('/')
        )));
        for (i, file) in EXAMPLES.iter().enumerate() {
            let text = std::fs::read_to_string(root.join(EXAMPLES_URL).join(file)).unwrap();
            load_scenario(file, &text).unwrap_or_else(|e| panic!("{file}: {e}"));
            if i == 0 {
                assert_eq!(text, DEFAULT_SCENARIO);
            } else {
                assert!(
                    sw.contains(&format!("'{file}'")),
                    "sw.js does not keep {file}"
                );
            }
        }
        let listed = sw
            .split("const EXAMPLES = [")
            .nth(1)
            .unwrap()
            .split(']')
            .next()
            .unwrap();
        assert_eq!(listed.matches(".json").count(), EXAMPLES.len() - 1);
    }

    #[test]
    fn an_index_cannot_point_outside_its_folder() {
        let bad = r#"{"lessons": [{"file": "../secret.json", "title": {"en": "x"}}]}"#;
        let e = LessonIndex::from_json(bad).unwrap_err();
        assert!(e.contains("lessons[0].file"), "{e}");
        let ok = r#"{"lessons": [{"file": "a-1.json", "title": {"en": "x"}}]}"#;
        assert_eq!(
            LessonIndex::from_json(ok)
                .unwrap()
                .find("a-1")
                .unwrap()
                .file,
            "a-1.json"
        );
    }

    #[test]
    fn a_malformed_index_names_the_problem() {
        let e = LessonIndex::from_json(r#"{"lessons": [{"title": {"en": "x"}}]}"#).unwrap_err();
        assert!(e.contains("missing field `file`"), "{e}");
    }
}
