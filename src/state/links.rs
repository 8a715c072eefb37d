//! Links: what the page's URL fragment asks for, and the fragment that
//! reopens a state.
//!
//! | fragment | opens |
//! | --- | --- |
//! | (none) | the start screen |
//! | `#lesson=storage-lookup` | a lesson of the library |
//! | `#example=hw-truncation` | an example scenario |
//! | `#play` | free play: the default cluster, no lesson |
//! | `#s=…` | a shared scenario (compressed, see `share.rs`) |
//!
//! Each may add `&step=N`, `&view=cluster|producer|storage|groups|practice`,
//! `&challenge=1`, and `&embed=1&from=A&to=B&loop=1`. A fragment with only
//! a step or a view opens the default example (older links).
//!
//! Parsing is pure (`Link::parse`), so it is tested natively; the page
//! follows `hashchange`, so a link pasted into an open tab, Back and Forward
//! go where they point (`app.rs`).

use crate::state::{Embed, View};

/// What a link opens.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Open {
    /// The start screen: "What do you want to learn?".
    #[default]
    Start,
    /// The default cluster without a lesson.
    Play,
    /// A lesson of the library, by slug (`storage-lookup`).
    Lesson(String),
    /// An example scenario, by name (`hw-truncation`).
    Example(String),
    /// A shared scenario (the packed text of `#s=`).
    Shared(String),
}

/// Everything a fragment asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Link {
    pub open: Open,
    pub step: Option<u64>,
    pub view: Option<View>,
    pub challenge: bool,
    pub embed: Option<Embed>,
}

/// The value of `key=value` in a fragment (`#a=1&b=2`).
pub fn value_in<'a>(hash: &'a str, key: &str) -> Option<&'a str> {
    hash.trim_start_matches('#')
        .split('&')
        .find_map(|kv| kv.strip_prefix(key).and_then(|rest| rest.strip_prefix('=')))
}

/// True if the fragment has the bare word `key` (`#play`).
fn has_flag(hash: &str, key: &str) -> bool {
    hash.trim_start_matches('#').split('&').any(|kv| kv == key)
}

impl View {
    /// The view's name in links.
    pub fn slug(self) -> &'static str {
        match self {
            View::Cluster => "cluster",
            View::Producer => "producer",
            View::Storage => "storage",
            View::Groups => "groups",
            View::Metrics => "metrics",
            View::Practice => "practice",
            View::Planes => "planes",
        }
    }

    /// The view a link names.
    pub fn from_slug(s: &str) -> Option<View> {
        [
            View::Cluster,
            View::Producer,
            View::Storage,
            View::Groups,
            View::Metrics,
            View::Practice,
            View::Planes,
        ]
        .into_iter()
        .find(|v| v.slug() == s)
    }
}

impl Link {
    /// Reads a fragment (with or without its `#`). Unknown keys are ignored;
    /// a step or loop bound that is not a number is ignored.
    pub fn parse(hash: &str) -> Link {
        let get = |k| value_in(hash, k);
        let step = get("step").and_then(|v| v.parse().ok());
        let view = get("view").and_then(View::from_slug);
        let embed = (get("embed") == Some("1")).then(|| Embed {
            from: get("from").and_then(|v| v.parse().ok()).unwrap_or(0),
            to: get("to").and_then(|v| v.parse().ok()).unwrap_or(u64::MAX),
            looping: get("loop") == Some("1"),
        });
        let open = if let Some(s) = get("s") {
            Open::Shared(s.to_string())
        } else if let Some(l) = get("lesson") {
            Open::Lesson(l.to_string())
        } else if let Some(e) = get("example") {
            Open::Example(e.to_string())
        } else if has_flag(hash, "play") {
            Open::Play
        } else if step.is_some() || view.is_some() || embed.is_some() {
            Open::Example(default_example().to_string())
        } else {
            Open::Start
        };
        Link {
            open,
            step,
            view,
            challenge: get("challenge") == Some("1"),
            embed,
        }
    }

    /// The fragment (without `#`) that opens `open`, at `view` if given.
    /// Steps are not written: the address follows what the learner opens,
    /// not every step (a share link carries the step).
    pub fn fragment(open: &Open, view: Option<View>) -> String {
        let base = match open {
            Open::Start => String::new(),
            Open::Play => "play".into(),
            Open::Lesson(s) => format!("lesson={s}"),
            Open::Example(e) => format!("example={e}"),
            Open::Shared(s) => format!("s={s}"),
        };
        match view {
            Some(v) if !base.is_empty() => format!("{base}&view={}", v.slug()),
            _ => base,
        }
    }
}

/// The default example's name (`leader-failover`).
pub fn default_example() -> &'static str {
    crate::state::EXAMPLES[0].trim_end_matches(".json")
}

/// The page's fragment now (`#…`, or empty).
pub fn current_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// Goes to `fragment` as a new history entry (so Back returns here); the
/// page follows it through `hashchange`.
pub fn go(fragment: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.location().set_hash(fragment);
    }
}

/// Records `fragment` as a new history entry without following it (the
/// page has already moved there): Back returns to the entry before.
pub fn push(fragment: &str) {
    if let Some(h) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = h.push_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("#{fragment}")),
        );
    }
}

/// The fragment that reopens this exact state: the scenario (compressed),
/// the step and the view.
pub fn share_fragment(text: &str, step: u64, view: View) -> String {
    format!(
        "s={}&step={step}&view={}",
        crate::io::share::pack(text),
        view.slug()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_link_opens_what_it_names() {
        assert_eq!(Link::parse("").open, Open::Start);
        assert_eq!(Link::parse("#").open, Open::Start);
        assert_eq!(Link::parse("#play").open, Open::Play);
        assert_eq!(
            Link::parse("#lesson=storage-lookup&view=storage"),
            Link {
                open: Open::Lesson("storage-lookup".into()),
                view: Some(View::Storage),
                ..Link::default()
            }
        );
        assert_eq!(
            Link::parse("#example=hw-truncation&step=12").open,
            Open::Example("hw-truncation".into())
        );
        assert_eq!(Link::parse("#example=hw-truncation&step=12").step, Some(12));
        assert_eq!(
            Link::parse("#s=abc&step=3").open,
            Open::Shared("abc".into())
        );
        // Older links: a step alone opens the default example.
        assert_eq!(
            Link::parse("#step=4").open,
            Open::Example("leader-failover".into())
        );
    }

    #[test]
    fn junk_in_a_link_is_ignored_not_obeyed() {
        let l = Link::parse("#step=-1&view=nope&challenge=yes&embed=1&from=x&to=9");
        assert_eq!(l.step, None);
        assert_eq!(l.view, None);
        assert!(!l.challenge);
        assert_eq!(
            l.embed,
            Some(Embed {
                from: 0,
                to: 9,
                looping: false
            })
        );
        // A key is matched whole: `steps=3` is not `step=3`, `player` not `play`.
        assert_eq!(Link::parse("#steps=3").step, None);
        assert_eq!(Link::parse("#player").open, Open::Start);
    }

    #[test]
    fn a_fragment_parses_back_to_what_it_opens() {
        for open in [
            Open::Start,
            Open::Play,
            Open::Lesson("group-assignors".into()),
            Open::Example("kip101-epochs".into()),
        ] {
            for view in [None, Some(View::Groups)] {
                let f = Link::fragment(&open, view);
                let back = Link::parse(&f);
                assert_eq!(back.open, open, "{f}");
                if open != Open::Start {
                    assert_eq!(back.view, view, "{f}");
                }
            }
        }
        let s = share_fragment("{}", 7, View::Storage);
        let l = Link::parse(&s);
        assert!(matches!(l.open, Open::Shared(_)));
        assert_eq!((l.step, l.view), (Some(7), Some(View::Storage)));
    }
}
