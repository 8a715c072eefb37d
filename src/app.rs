//! The application: one reducer holding the player, and the page layout.

use crate::components::cluster::{ClusterView, MotionClock};
use crate::components::controls::Controls;
use crate::components::event_log::{EventLog, LogLine};
use crate::components::groups::GroupsView;
use crate::components::storage::StorageView;
use crate::i18n::{t, Lang};
use crate::inspect_model::{GroupsModel, StorageModel};
use crate::player::Player;
use crate::view_model::ClusterModel;
use kafka_sim::collections::{SortedMap, SortedSet};
use kafka_sim::event::{EventKind, Importance};
use std::cell::RefCell;
use std::ops::Not;
use std::rc::Rc;
use yew::prelude::*;

/// The scenario the page opens with.
pub const DEFAULT_SCENARIO: &str = include_str!("../scenarios/leader-failover.json");

/// The built-in scenarios of the Examples menu: files of `scenarios/`,
/// which the build copies beside the page and the service worker keeps for
/// offline use. The first is the default one, also built into the page; the
/// others are read when chosen.
pub const EXAMPLES: [&str; 5] = [
    "leader-failover.json",
    "hw-truncation.json",
    "kip101-divergence.json",
    "kip101-epochs.json",
    "group-rebalance.json",
];

/// Where the examples are, beside the page.
pub const EXAMPLES_URL: &str = "scenarios/";

/// What the main panel shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Cluster,
    Producer,
    Storage,
    Groups,
    Practice,
}

/// Playback speeds (multipliers ×4, to stay in integers): 0.25× … 8×.
pub const SPEEDS_X4: [u32; 6] = [1, 2, 4, 8, 16, 32];
/// Milliseconds between steps at 1×.
const BASE_STEP_MS: u32 = 700;

/// A lesson loaded with the scenario, and the learner's answers.
#[derive(Clone, Debug, PartialEq)]
pub struct LessonState {
    pub lesson: Rc<crate::lesson::Lesson>,
    /// Event index of each step's `at` (None: the scenario never has it).
    pub targets: Rc<Vec<Option<u64>>>,
    /// Step → (chosen, right?, the engine's answer).
    pub answers: Rc<SortedMap<usize, (String, bool, String)>>,
    /// The question waiting for an answer.
    pub asking: Option<usize>,
    /// The question answered last (its feedback is shown).
    pub last: Option<usize>,
}

impl LessonState {
    /// Reads the scenario's lesson, if it has one, and finds each step's event.
    pub fn load(player: &mut Player) -> Result<Option<LessonState>, String> {
        let Some(v) = player.scenario().lesson.clone() else {
            return Ok(None);
        };
        let lesson = crate::lesson::Lesson::from_value(&v)?;
        let targets: Vec<Option<u64>> = lesson
            .steps
            .iter()
            .map(|s| player.find_nth_where(s.at.nth, |e| s.at.matches(e)))
            .collect();
        // Each question's answer must be a field the page can read off its event.
        for (i, (s, t)) in lesson.steps.iter().zip(&targets).enumerate() {
            if let (Some(p), Some(t)) = (&s.answer, t) {
                let e = player.event(*t).expect("found");
                if crate::lesson::truth(e, p).is_none() {
                    player.seek(0);
                    return Err(format!(
                        "lesson.steps[{i}].answer: a {} event has no field {p} the page can read",
                        s.at.kind
                    ));
                }
            }
        }
        player.seek(0);
        Ok(Some(LessonState {
            lesson: Rc::new(lesson),
            targets: Rc::new(targets),
            answers: Rc::default(),
            asking: None,
            last: None,
        }))
    }

    /// Grades `choice` for question `k` against the engine's own event:
    /// (right?, the engine's answer). None if `k` is not a question that
    /// happens in this scenario.
    pub fn grade(&self, player: &Player, k: usize, choice: &str) -> Option<(bool, String)> {
        let step = self.lesson.steps.get(k)?;
        let target = self.targets.get(k).copied().flatten()?;
        let truth = crate::lesson::truth(player.event(target)?, step.answer.as_deref()?)?;
        Some((choice == truth, truth))
    }

    /// The event index a question or narration step is about.
    pub fn target(&self, k: usize) -> Option<u64> {
        self.targets.get(k).copied().flatten()
    }

    /// An unanswered question whose event is at index `i`.
    fn question_at(&self, i: u64) -> Option<usize> {
        self.lesson.steps.iter().enumerate().find_map(|(k, s)| {
            (s.ask.is_some() && self.targets[k] == Some(i) && !self.answers.contains_key(&k))
                .then_some(k)
        })
    }

    /// The first unanswered question whose event lies in `[from, to)`.
    fn question_between(&self, from: u64, to: u64) -> Option<(usize, u64)> {
        (from..to).find_map(|i| self.question_at(i).map(|k| (k, i)))
    }
}

/// Embed mode: the steps played, and whether playback starts over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Embed {
    pub from: u64,
    pub to: u64,
    pub looping: bool,
}

impl Embed {
    /// `#embed=1&from=A&to=B&loop=1`, if the page's link asks for it.
    pub fn from_fragment() -> Option<Embed> {
        (fragment_value("embed")? == "1").then(|| Embed {
            from: fragment_value("from")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0),
            to: fragment_value("to")
                .and_then(|v| v.parse().ok())
                .unwrap_or(u64::MAX),
            looping: fragment_value("loop").as_deref() == Some("1"),
        })
    }
}

#[derive(Clone)]
pub struct AppState {
    pub lesson: Option<LessonState>,
    /// The lesson library (`lessons/index.json`), once read.
    pub library: Option<Rc<crate::lessons::LessonIndex>>,
    /// The library entry open now (its slug), for progress and links.
    pub lesson_slug: Option<String>,
    /// Answers saved in the browser (see `progress.rs`).
    pub progress: Rc<crate::progress::Progress>,
    /// Embed mode (`#embed=1&from=A&to=B&loop=1`): minimal chrome, played
    /// between two steps.
    pub embed: Option<Embed>,
    /// A challenge link (`#challenge=1`): the simulation cannot be moved past
    /// a lesson question until it is answered.
    pub challenge: bool,
    /// What the error banner says the problem was about (an i18n key).
    pub error_about: &'static str,
    pub help: bool,
    /// Set when a jump found no further event of the kind.
    pub notice: Option<String>,
    pub view: View,
    /// The storage inspector's partition (`broker:dir`).
    pub storage_sel: Option<String>,
    /// The batch shown in hex in the storage inspector (segment, position).
    pub batch_sel: Option<(i64, u64)>,
    /// The message whose details are shown (its id), while in flight.
    pub msg_sel: Option<u64>,
    /// What the event a log line seeked to changed (its id, the changes).
    pub changes: Option<(u64, Rc<Vec<crate::diff::Change>>)>,
    pub player: Rc<RefCell<Player>>,
    pub rev: u64,
    pub playing: bool,
    pub speed: usize,
    pub lang: Lang,
    pub hide_routine: bool,
    pub error: Option<String>,
}

pub enum Action {
    /// A scenario file was read and parsed: replace the player.
    Loaded(Rc<RefCell<Player>>),
    /// A lesson of the library was read and parsed (its slug, the player).
    LessonOpened(String, Rc<RefCell<Player>>),
    /// Something the learner asked for could not be done (an export): say why.
    Problem(String),
    /// The learner acted on the simulation: this command, one millisecond
    /// after the cursor's event (the timeline branches).
    Act(serde_json::Map<String, serde_json::Value>),
    /// The configuration panel's edits: (object pointer, key, text).
    Reconfigure(Vec<(String, String, String)>),
    /// A Practice question was answered (right?).
    PracticeAnswered(bool),
    /// The lesson library's index arrived.
    Library(Rc<crate::lessons::LessonIndex>),
    /// A scenario could not be loaded: say why, keep the current one.
    LoadFailed(String),
    DismissError,
    Step,
    Back,
    ToStart,
    Seek(u64),
    TogglePlay,
    Tick,
    NextSpeed,
    ToggleLang,
    ToggleRoutine,
    SetView(View),
    SelectStorage(String),
    /// Show this batch (segment, position) in the hex view.
    SelectBatch(i64, u64),
    /// Show this message's details (None: close them).
    SelectMessage(Option<u64>),
    /// Put the cursor after `n` events (the timeline slider).
    SeekTo(u64),
    /// The learner picked `choice` for lesson step `k`.
    Answer(usize, String),
    /// Jump to the next event of this kind (its JSON `type`).
    NextOfKind(&'static str),
    ToggleHelp,
    CloseHelp,
}

/// Event kinds the "next" jump offers: (type, English label, Chinese label).
pub const JUMP_KINDS: [(&str, &str, &str); 10] = [
    ("leader_elected", "leader elected", "选出 leader"),
    ("isr_updated_by_controller", "ISR changed", "ISR 变化"),
    (
        "high_watermark_advanced",
        "high watermark moved",
        "高水位推进",
    ),
    ("batch_appended", "batch appended", "批次追加"),
    ("segment_rolled", "segment rolled", "段滚动"),
    ("log_cleaned", "log cleaned", "日志清理"),
    ("rebalance_started", "rebalance started", "再均衡开始"),
    ("partitions_assigned", "partitions assigned", "分区分配"),
    ("offsets_committed", "offsets committed", "位移提交"),
    ("guarantee_broken", "guarantee broken", "保证被打破"),
];

const LANG_KEY: &str = "kafka-visualiser.lang";

/// The language the learner chose last time (localStorage), if readable.
pub fn saved_lang() -> Option<Lang> {
    let s = web_sys::window()?.local_storage().ok()??;
    match s.get_item(LANG_KEY).ok()??.as_str() {
        "zh" => Some(Lang::Zh),
        "en" => Some(Lang::En),
        _ => None,
    }
}

fn save_lang(lang: Lang) {
    if let Some(Ok(Some(s))) = web_sys::window().map(|w| w.local_storage()) {
        let _ = s.set_item(LANG_KEY, if lang == Lang::Zh { "zh" } else { "en" });
    }
}

impl AppState {
    pub fn new(player: Player) -> AppState {
        AppState {
            lesson: None,
            library: None,
            lesson_slug: None,
            progress: Rc::default(),
            embed: None,
            challenge: false,
            error_about: "load_failed",
            help: false,
            notice: None,
            view: View::Cluster,
            storage_sel: None,
            batch_sel: None,
            changes: None,
            msg_sel: None,
            player: Rc::new(RefCell::new(player)),
            rev: 0,
            playing: false,
            speed: 2,
            lang: saved_lang().unwrap_or(Lang::En),
            hide_routine: true,
            error: None,
        }
    }

    /// On a challenge link the cursor may not pass the first unanswered
    /// question: if it did (a seek, a jump), it goes back there and the
    /// question is asked. Returns true if it held.
    pub fn hold_for_challenge(&self, lesson: &mut Option<LessonState>) -> bool {
        let Some(l) = lesson.as_mut().filter(|_| self.challenge) else {
            return false;
        };
        let first = l
            .lesson
            .steps
            .iter()
            .enumerate()
            .filter(|(k, s)| s.ask.is_some() && !l.answers.contains_key(k))
            .filter_map(|(k, _)| l.target(k).map(|t| (t, k)))
            .min();
        let mut p = self.player.borrow_mut();
        match first {
            Some((t, k)) if p.cursor() > t => {
                p.seek(t);
                l.asking = Some(k);
                true
            }
            _ => false,
        }
    }

    pub fn speed_label(&self) -> String {
        let x4 = SPEEDS_X4[self.speed];
        match x4 {
            1 => "0.25×".into(),
            2 => "0.5×".into(),
            n => format!("{}×", n / 4),
        }
    }

    pub fn step_interval_ms(&self) -> u32 {
        BASE_STEP_MS * 4 / SPEEDS_X4[self.speed]
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        match action {
            Action::Loaded(player) => {
                let lesson = LessonState::load(&mut player.borrow_mut());
                let (lesson, error) = match lesson {
                    Ok(l) => (l, None),
                    Err(e) => (None, Some(e)),
                };
                return Rc::new(AppState {
                    player,
                    rev: self.rev + 1,
                    playing: false,
                    error,
                    storage_sel: None,
                    lesson,
                    lesson_slug: None,
                    ..(*self).clone()
                });
            }
            Action::LessonOpened(slug, player) => {
                let next = Rc::new(AppState {
                    lesson_slug: None,
                    ..(*self).clone()
                })
                .reduce(Action::Loaded(player));
                return Rc::new(AppState {
                    lesson_slug: Some(slug),
                    ..(*next).clone()
                });
            }
            Action::Act(command) => {
                let branched = self.player.borrow().branch(command);
                return match branched {
                    Ok(p) => {
                        let mut player = p;
                        let mut lesson = LessonState::load(&mut player).ok().flatten();
                        let cursor = self.player.borrow().cursor();
                        player.seek(cursor);
                        // The past is unchanged by a branch: answers to
                        // questions whose event is behind the cursor stay.
                        if let (Some(new), Some(old)) = (lesson.as_mut(), self.lesson.as_ref()) {
                            let kept = old
                                .answers
                                .iter()
                                .filter(|(k, _)| {
                                    let at = new.targets.get(**k).copied().flatten();
                                    at.is_some_and(|t| t < cursor)
                                        && old.targets.get(**k).copied().flatten() == at
                                })
                                .map(|(k, v)| (*k, v.clone()))
                                .collect();
                            new.answers = Rc::new(kept);
                            new.last = old.last.filter(|k| new.answers.contains_key(k));
                        }
                        Rc::new(AppState {
                            player: Rc::new(RefCell::new(player)),
                            rev: self.rev + 1,
                            playing: false,
                            lesson,
                            error: None,
                            notice: Some(t(self.lang, "branched").to_string()),
                            ..(*self).clone()
                        })
                    }
                    Err(e) => self.reduce(Action::Problem(e)),
                };
            }
            Action::Reconfigure(edits) => {
                let text = crate::config_panel::apply(self.player.borrow().source(), &edits);
                let loaded = text.and_then(|t| load_scenario("the configuration", &t));
                return self.reduce(match loaded {
                    Ok(p) => Action::Loaded(Rc::new(RefCell::new(p))),
                    Err(e) => Action::LoadFailed(e),
                });
            }
            Action::Problem(msg) => {
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    error: Some(msg),
                    error_about: "problem",
                    ..(*self).clone()
                })
            }
            Action::PracticeAnswered(right) => {
                let mut progress = (*self.progress).clone();
                progress.record_practice(right);
                crate::progress::save(&progress);
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    progress: Rc::new(progress),
                    ..(*self).clone()
                });
            }
            Action::Library(index) => {
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    library: Some(index),
                    ..(*self).clone()
                })
            }
            Action::Answer(k, choice) => {
                let Some(mut l) = self.lesson.clone() else {
                    return self;
                };
                let Some(target) = l.target(k) else {
                    return self;
                };
                let Some((right, truth)) = l.grade(&self.player.borrow(), k, &choice) else {
                    return self;
                };
                let mut answers = (*l.answers).clone();
                answers.insert(k, (choice, right, truth));
                l.answers = Rc::new(answers);
                l.asking = None;
                l.last = Some(k);
                let mut progress = self.progress.clone();
                if let Some(slug) = &self.lesson_slug {
                    let questions = l.lesson.steps.iter().filter(|s| s.ask.is_some()).count();
                    let p = Rc::make_mut(&mut progress);
                    p.record_lesson(slug, questions as u32, k as u32, right);
                    crate::progress::save(p);
                }
                // Reveal: show the event the question was about.
                self.player.borrow_mut().seek(target + 1);
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    lesson: Some(l),
                    progress,
                    ..(*self).clone()
                });
            }
            Action::LoadFailed(msg) => {
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    playing: false,
                    error: Some(msg),
                    error_about: "load_failed",
                    ..(*self).clone()
                })
            }
            Action::SetView(view) => {
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    view,
                    ..(*self).clone()
                })
            }
            Action::SelectMessage(id) => {
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    msg_sel: id,
                    ..(*self).clone()
                })
            }
            Action::SelectBatch(seg, pos) => {
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    batch_sel: Some((seg, pos)),
                    ..(*self).clone()
                })
            }
            Action::SelectStorage(key) => {
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    storage_sel: Some(key),
                    batch_sel: None,
                    ..(*self).clone()
                })
            }
            Action::ToggleHelp | Action::CloseHelp => {
                let help = matches!(action, Action::ToggleHelp) && !self.help;
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    help,
                    ..(*self).clone()
                });
            }
            Action::NextOfKind(kind) => {
                let found = {
                    let mut p = self.player.borrow_mut();
                    let from = p.cursor();
                    let found = p.next_of_kind(kind);
                    if let Some(i) = found {
                        p.seek(i + 1);
                    } else {
                        p.seek(from);
                    }
                    found
                };
                let notice = found.is_none().then(|| match self.lang {
                    Lang::En => format!("No later “{kind}” event in this scenario."),
                    Lang::Zh => format!("本场景中之后没有“{kind}”事件。"),
                });
                let mut lesson = self.lesson.clone();
                self.hold_for_challenge(&mut lesson);
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    playing: false,
                    notice,
                    lesson,
                    ..(*self).clone()
                });
            }
            _ => {}
        }
        let mut playing = self.playing;
        let mut speed = self.speed;
        let mut lang = self.lang;
        let mut hide = self.hide_routine;
        let mut lesson = self.lesson.clone();
        let stepping = matches!(action, Action::Step | Action::Tick);
        if let (true, Some(l)) = (stepping, lesson.as_ref()) {
            if l.asking.is_some() {
                // Waiting for an answer: the question holds the simulation.
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    playing: false,
                    ..(*self).clone()
                });
            }
        }
        let before = self.player.borrow().cursor();
        let seek_id = match &action {
            Action::Seek(id) => Some(*id),
            _ => None,
        };
        {
            let mut p = self.player.borrow_mut();
            let step = |p: &mut Player| if hide { p.step_significant() } else { p.step() };
            match action {
                Action::Step => {
                    playing = false;
                    step(&mut p);
                }
                Action::Tick => match self.embed {
                    // Embedded: play between the link's steps, maybe again.
                    Some(e) if p.cursor() >= e.to => {
                        if e.looping {
                            p.seek(e.from);
                        } else {
                            playing = false;
                        }
                    }
                    _ => {
                        if !step(&mut p) {
                            playing = false;
                        }
                    }
                },
                Action::Back => {
                    playing = false;
                    if hide {
                        // Back to the previous significant event.
                        p.back_significant();
                    } else {
                        p.back();
                    }
                }
                Action::ToStart => {
                    playing = false;
                    p.seek(0);
                }
                Action::Seek(id) => {
                    playing = false;
                    p.seek(id + 1);
                }
                Action::SeekTo(n) => {
                    playing = false;
                    p.seek(n);
                }
                Action::TogglePlay => playing = !playing && !p.at_end(),
                Action::NextSpeed => speed = (speed + 1) % SPEEDS_X4.len(),
                Action::ToggleLang => {
                    lang = if lang == Lang::En { Lang::Zh } else { Lang::En };
                    save_lang(lang);
                }
                Action::ToggleRoutine => hide = !hide,
                Action::DismissError
                | Action::Loaded(_)
                | Action::LessonOpened(..)
                | Action::Library(_)
                | Action::PracticeAnswered(_)
                | Action::Problem(_)
                | Action::Act(_)
                | Action::Reconfigure(_)
                | Action::LoadFailed(_)
                | Action::SetView(_)
                | Action::SelectStorage(_)
                | Action::SelectBatch(..)
                | Action::SelectMessage(_)
                | Action::NextOfKind(_)
                | Action::ToggleHelp
                | Action::CloseHelp
                | Action::Answer(..) => {}
            }
        }
        // Predict, then reveal: stop just before a question's event.
        if let (true, Some(l)) = (stepping, lesson.as_mut()) {
            let after = self.player.borrow().cursor();
            if let Some((k, i)) = l.question_between(before, after) {
                self.player.borrow_mut().seek(i);
                l.asking = Some(k);
                playing = false;
            }
        }
        if self.hold_for_challenge(&mut lesson) {
            playing = false;
        }
        // A log line was clicked: what that event changed.
        let changes = match seek_id {
            Some(id) if self.player.borrow().cursor() == id + 1 => {
                let mut p = self.player.borrow_mut();
                let before = p.state_at(id);
                Some((id, Rc::new(crate::diff::diff(&before, p.world()))))
            }
            _ => self.changes.clone(),
        };
        Rc::new(AppState {
            rev: self.rev + 1,
            changes,
            playing,
            speed,
            lang,
            hide_routine: hide,
            error: None,
            notice: None,
            lesson,
            ..(*self).clone()
        })
    }
}

/// The list of what one event changed (shown after a log line is clicked).
fn changes_panel(c: &[crate::diff::Change], id: u64, lang: Lang) -> Html {
    let v = |x: &Option<String>| {
        x.as_deref()
            .map(|s| crate::diff::localize(s, lang))
            .unwrap_or_else(|| "–".into())
    };
    html! {
        <div class="changes" id="changes" role="status">
            <strong>{ match lang {
                Lang::En => format!("Event #{id} changed:"),
                Lang::Zh => format!("事件 #{id} 改变了："),
            } }</strong>
            if c.is_empty() {
                {" "}{ t(lang, "changed_nothing") }
            }
            <ul>
                { for c.iter().take(crate::diff::MAX_CHANGES).map(|x| html! {
                    <li><span class="what">{ crate::diff::localize(&x.what, lang) }</span>{": "}
                        <span class="before mono">{ v(&x.before) }</span>{" → "}<span class="after mono">{ v(&x.after) }</span></li>
                }) }
                if c.len() > crate::diff::MAX_CHANGES {
                    <li>{ format!("… {} {}", c.len() - crate::diff::MAX_CHANGES, t(lang, "more")) }</li>
                }
            </ul>
        </div>
    }
}

/// Parses scenario text into a player, or a message naming the field.
pub fn load_scenario(file_name: &str, text: &str) -> Result<Player, String> {
    let p = Player::from_json(text).map_err(|e| {
        if e.field.is_empty() {
            format!("{file_name}: {}", e.message)
        } else {
            format!("{file_name}: {}: {}", e.field, e.message)
        }
    })?;
    // A lesson that cannot be read refuses the whole file (the current one
    // stays): `Scenario::validate` reads the lesson.
    Ok(p)
}

thread_local! {
    static LAST_DOWNLOAD: RefCell<Option<(String, usize, u64)>> = const { RefCell::new(None) };
    /// The first bytes of the last download (for tests of exported files).
    static LAST_DOWNLOAD_HEAD: RefCell<Option<(String, Vec<u8>)>> = const { RefCell::new(None) };
}

/// The name and first 64 bytes of the last file offered for download.
pub fn last_download_bytes() -> Option<(String, Vec<u8>)> {
    LAST_DOWNLOAD_HEAD.with(|d| d.borrow().clone())
}

/// FNV-1a 64 of some bytes (to compare a download with the engine's file).
pub fn fnv64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ *b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The name, size and FNV-1a 64 of the last file offered for download.
pub fn last_download() -> Option<(String, usize, u64)> {
    LAST_DOWNLOAD.with(|d| d.borrow().clone())
}

/// Offers `bytes` as a file download (a local Blob URL: no network request).
pub fn download(name: &str, bytes: &[u8]) -> Result<(), String> {
    use wasm_bindgen::JsCast;
    LAST_DOWNLOAD.with(|d| *d.borrow_mut() = Some((name.to_string(), bytes.len(), fnv64(bytes))));
    LAST_DOWNLOAD_HEAD.with(|d| {
        *d.borrow_mut() = Some((name.to_string(), bytes[..bytes.len().min(64)].to_vec()))
    });
    let err = |e: wasm_bindgen::JsValue| format!("{name}: the download failed: {e:?}");
    let arr = js_sys::Uint8Array::from(bytes);
    let parts = js_sys::Array::of1(&arr);
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type("application/octet-stream");
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &opts).map_err(err)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(err)?;
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| "no document".to_string())?;
    let a: web_sys::HtmlAnchorElement = doc
        .create_element("a")
        .map_err(err)?
        .dyn_into()
        .map_err(|_| "not an anchor".to_string())?;
    a.set_href(&url);
    a.set_download(name);
    a.click();
    web_sys::Url::revoke_object_url(&url).map_err(err)
}

/// A `key=value` of the page's URL fragment (`#example=…&view=…&step=N`).
pub fn fragment_value(key: &str) -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    let prefix = format!("{key}=");
    hash.trim_start_matches('#')
        .split('&')
        .find_map(|kv| kv.strip_prefix(prefix.as_str()).map(str::to_string))
}

/// The fragment that reopens this exact state: the scenario (compressed),
/// the step and the view.
pub fn share_fragment(text: &str, step: u64, view: View) -> String {
    let v = match view {
        View::Cluster => "cluster",
        View::Producer => "producer",
        View::Storage => "storage",
        View::Groups => "groups",
        View::Practice => "practice",
    };
    format!("s={}&step={step}&view={v}", crate::share::pack(text))
}

/// The `lookup` command for what the learner typed, or what is wrong with it.
pub fn lookup_command(
    r: &crate::components::storage::LookupRequest,
    lang: Lang,
) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    let what = if r.by_time { "timestamp" } else { "offset" };
    let n: i64 = r.text.trim().parse().map_err(|_| match lang {
        Lang::En => format!(
            "Lookup: \"{}\" is not a whole number (the {what} to look up)",
            r.text.trim()
        ),
        Lang::Zh => format!("查找：“{}”不是整数（要查找的 {what}）", r.text.trim()),
    })?;
    Ok(crate::branch::command(
        "lookup",
        &[
            ("broker", r.broker.into()),
            ("topic", r.topic.clone().into()),
            ("partition", r.partition.into()),
            (what, n.into()),
        ],
    ))
}

/// Goes to the step and view the page's link names (`#step=N`,
/// `#view=…`): at start-up, and again once a lesson or example the link
/// opens has been read.
pub fn go_to_link_position(dispatch: impl Fn(Action)) {
    if let Some(n) = step_from_fragment() {
        dispatch(Action::SeekTo(n));
    }
    if let Some(v) = view_from_fragment() {
        dispatch(Action::SetView(v));
    }
}

/// `#step=N` in the page's URL, if any.
fn step_from_fragment() -> Option<u64> {
    fragment_value("step").and_then(|v| v.parse().ok())
}

/// `#view=cluster|storage|groups`.
fn view_from_fragment() -> Option<View> {
    match fragment_value("view")?.as_str() {
        "cluster" => Some(View::Cluster),
        "producer" => Some(View::Producer),
        "storage" => Some(View::Storage),
        "groups" => Some(View::Groups),
        "practice" => Some(View::Practice),
        _ => None,
    }
}

/// Narration, the open question and the feedback of the current lesson.
fn lesson_panel(
    l: &LessonState,
    lang: Lang,
    cursor: u64,
    dispatcher: &UseReducerDispatcher<AppState>,
) -> Html {
    let steps = &l.lesson.steps;
    // The latest narration whose event has happened.
    let say = steps
        .iter()
        .zip(l.targets.iter())
        .filter(|(s, t)| s.say.is_some() && t.is_some_and(|t| t < cursor))
        .max_by_key(|(_, t)| **t)
        .and_then(|(s, _)| s.say.as_ref());
    let asked = steps.iter().filter(|s| s.ask.is_some()).count();
    let right = l.answers.values().filter(|(_, r, _)| *r).count();
    let score = match lang {
        Lang::En => format!(
            "{right} of {} answered right · {asked} question(s) in this lesson",
            l.answers.len()
        ),
        Lang::Zh => format!(
            "已答 {} 题，答对 {right} 题 · 本课共 {asked} 题",
            l.answers.len()
        ),
    };
    html! {
        <aside class="lesson" id="lesson" aria-label={t(lang, "lesson")}>
            <div class="lesson-head">
                <strong>{ t(lang, "lesson") }</strong>
                <span class="concepts">{ l.lesson.concepts.join(" · ") }</span>
                <span class="score" id="score">{ score }</span>
            </div>
            if let Some(s) = say {
                <p class="say" id="say">{ s.get(lang).to_string() }</p>
            }
            if let Some(k) = l.asking {
                <div class="question" id="question" role="group" aria-label={t(lang, "predict")}>
                    <p><strong>{ t(lang, "predict") }{" "}</strong>{ steps[k].ask.as_ref().map(|a| a.get(lang).to_string()).unwrap_or_default() }</p>
                    <div class="choices">
                        { for steps[k].choices.iter().enumerate().map(|(i, c)| {
                            let d = dispatcher.clone();
                            let choice = c.clone();
                            html! {
                                <button id={format!("choice-{i}")} class="choice"
                                    onclick={Callback::from(move |_: MouseEvent| d.dispatch(Action::Answer(k, choice.clone())))}>{ c.clone() }</button>
                            }
                        }) }
                    </div>
                </div>
            } else if let Some(k) = l.last {
                if let Some((chosen, ok, truth)) = l.answers.get(&k) {
                    <div class={classes!("feedback", if *ok { "right" } else { "wrong" })} id="feedback" role="status">
                        <strong>{ if *ok { t(lang, "right") } else { t(lang, "wrong") } }</strong>{" "}
                        { match lang {
                            Lang::En => format!("You said {chosen}; the simulation says {truth}."),
                            Lang::Zh => format!("你的答案：{chosen}；模拟结果：{truth}。"),
                        } }{" "}
                        { steps[k].explain.as_ref().map(|e| e.get(lang).to_string()).unwrap_or_default() }
                    </div>
                }
            }
        </aside>
    }
}

#[derive(Properties, PartialEq)]
pub struct AppProps {
    /// Scenario JSON to open (the default lesson when absent).
    #[prop_or_default]
    pub scenario: Option<AttrValue>,
}

/// The log's lines: the last 300 shown events at least, from an event id
/// that is a multiple of 100. The first line moves only every hundred
/// events, so a step appends a line instead of shifting all of them (which
/// made the browser redo every line's text and layout on each step).
fn log_lines(p: &Player, lang: Lang, hide_routine: bool) -> Vec<LogLine> {
    const MAX_LINES: usize = 300;
    const ALIGN: u64 = 100;
    let past = p.past();
    let current = p.current().map(|c| c.id);
    let shown = |e: &&kafka_sim::Event| {
        !hide_routine || e.kind.importance() > Importance::Routine || Some(e.id) == current
    };
    let first = past
        .iter()
        .rev()
        .filter(shown)
        .take(MAX_LINES)
        .last()
        .map(|e| e.id / ALIGN * ALIGN)
        .unwrap_or(0);
    past[first as usize..]
        .iter()
        .filter(shown)
        .map(|e| LogLine {
            id: e.id,
            time_ms: e.time_ms,
            caption: e.caption(lang),
            key: e.kind.importance() == Importance::Key,
            broken: matches!(e.kind, EventKind::GuaranteeBroken { .. }),
        })
        .collect()
}

#[component]
pub fn App(props: &AppProps) -> Html {
    let given = props.scenario.clone();
    // The link is read once, when the page starts (a share link is unpacked
    // once, not on every render).
    let state = use_reducer(move || {
        // `#example=leader-failover` opens the built-in scenario; other
        // examples are read once the page is up (below).
        let example = fragment_value("example")
            .filter(|e| EXAMPLES[0].trim_end_matches(".json") == e)
            .map(|_| DEFAULT_SCENARIO);
        // `#s=…` carries a whole scenario (a share link).
        let shared = fragment_value("s").map(|s| crate::share::unpack(&s));
        let text = given
            .or(example.map(AttrValue::Static))
            .or(match &shared {
                Some(Ok(t)) => Some(AttrValue::from(t.clone())),
                _ => None,
            })
            .unwrap_or(AttrValue::Static(DEFAULT_SCENARIO));
        // A link whose scenario cannot be read opens the default one and says why.
        let (mut player, link_error) = match load_scenario("the link", &text) {
            Ok(p) => (p, None),
            Err(e) => (
                Player::from_json(DEFAULT_SCENARIO).expect("the built-in scenario is valid"),
                Some(e),
            ),
        };
        let lesson = LessonState::load(&mut player);
        let mut s = AppState::new(player);
        let (progress, reset) = crate::progress::load();
        s.progress = Rc::new(progress);
        s.notice = reset;
        s.challenge = fragment_value("challenge").as_deref() == Some("1");
        s.embed = Embed::from_fragment();
        if let Some(e) = s.embed {
            s.player.borrow_mut().seek(e.from);
            s.playing = true;
        }
        match lesson {
            Ok(l) => s.lesson = l,
            Err(e) => s.error = Some(e),
        }
        if let Some(Err(e)) = shared {
            s.error = Some(format!("the link: {e}"));
        } else if link_error.is_some() {
            s.error = link_error;
        }
        s
    });

    // A link may open at a step: `#step=N`.
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            go_to_link_position(|a| dispatcher.dispatch(a));
        });
    }

    // `#example=name` for an example not built in: read it, then go to the
    // link's step and view.
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            let Some(wanted) = fragment_value("example") else {
                return;
            };
            let Some(file) = EXAMPLES
                .iter()
                .find(|f| f.trim_end_matches(".json") == wanted)
            else {
                dispatcher.dispatch(Action::LoadFailed(format!(
                    "the link: there is no built-in example “{wanted}”"
                )));
                return;
            };
            if *file == EXAMPLES[0] {
                return;
            }
            wasm_bindgen_futures::spawn_local(async move {
                dispatcher.dispatch(crate::lessons::open_example(file).await);
                go_to_link_position(|a| dispatcher.dispatch(a));
            });
        });
    }

    // The lesson library, and `#lesson=slug` links.
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            let wanted = fragment_value("lesson");
            wasm_bindgen_futures::spawn_local(crate::lessons::load_library(wanted, move |a| {
                dispatcher.dispatch(a)
            }));
        });
    }

    // Playback timer.
    {
        let dispatcher = state.dispatcher();
        let playing = state.playing;
        let ms = state.step_interval_ms();
        use_effect_with((playing, ms), move |(playing, ms)| {
            let timer = playing.then(|| {
                gloo_timers::callback::Interval::new(*ms, move || dispatcher.dispatch(Action::Tick))
            });
            move || drop(timer)
        });
    }

    // Keyboard shortcuts on the whole page.
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            let listener = crate::keys::install(move |action| dispatcher.dispatch(action));
            move || drop(listener)
        });
    }

    let d = |a: fn() -> Action| {
        let dispatcher = state.dispatcher();
        Callback::from(move |_| dispatcher.dispatch(a()))
    };
    let player = state.player.borrow();
    let lang = state.lang;
    let now = player.time_ms();
    let view = state.view;
    let election = (view == View::Cluster)
        .then(|| crate::components::election::ElectionModel::latest(player.past()).map(Rc::new))
        .flatten();
    let model = Rc::new(ClusterModel::from_world(
        player.world(),
        now,
        |sent| player.event(sent).map(|e| e.time_ms),
        state.msg_sel,
    ));
    // While playing, the messages travel on the simulated clock up to the
    // event the next step will show.
    let clock = state.playing.then(|| MotionClock {
        cursor: player.cursor(),
        from_ms: now,
        to_ms: player.next_time_ms(state.hide_routine).unwrap_or(now),
        over_ms: state.step_interval_ms(),
    });
    let zk_rows = (view == View::Cluster).then(|| {
        let changed = player.current().and_then(|e| e.kind.field("path"));
        Rc::new(crate::view_model::zk_rows(
            player.world(),
            changed.as_deref(),
        ))
    });
    let storage = (view == View::Storage).then(|| {
        Rc::new(StorageModel::from_world(
            player.world(),
            state.storage_sel.as_deref(),
            state.batch_sel,
            player.past(),
            lang,
        ))
    });
    let producer = (view == View::Producer).then(|| {
        Rc::new(crate::producer_model::ProducerModel::from_world(
            player.world(),
            player.past(),
            now,
            lang,
        ))
    });
    let groups = (view == View::Groups).then(|| Rc::new(GroupsModel::from_world(player.world())));
    let sequence = (view == View::Groups).then(|| {
        Rc::new(crate::inspect_model::sequence(
            player.past(),
            40,
            state.hide_routine.not(),
        ))
    });
    let on_select_storage = {
        let dispatcher = state.dispatcher();
        Callback::from(move |k: String| dispatcher.dispatch(Action::SelectStorage(k)))
    };
    let on_download = {
        let player = state.player.clone();
        let dispatcher = state.dispatcher();
        Callback::from(move |(broker, path): (i32, String)| {
            let bytes = crate::inspect_model::file_bytes(player.borrow().world(), broker, &path);
            let name = path.rsplit('/').next().unwrap_or(&path).to_string();
            let result = match bytes {
                Some(b) => download(&name, &b),
                None => Err(format!("{path}: the file is gone at this step")),
            };
            if let Err(e) = result {
                dispatcher.dispatch(Action::LoadFailed(e));
            }
        })
    };
    let tab = |v: View, id: &'static str, key: &'static str| {
        let dispatcher = state.dispatcher();
        html! {
            <button id={id} role="tab" aria-selected={(view == v).to_string()} class={classes!("tab", (view == v).then_some("active"))}
                onclick={Callback::from(move |_: MouseEvent| dispatcher.dispatch(Action::SetView(v)))}>{ t(lang, key) }</button>
        }
    };
    let on_example = {
        let dispatcher = state.dispatcher();
        Callback::from(move |e: Event| {
            let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let Some(file) = EXAMPLES.iter().find(|f| **f == s.value()) else {
                return;
            };
            if *file == EXAMPLES[0] {
                return dispatcher.dispatch(crate::lessons::open_default_example());
            }
            let dispatcher = dispatcher.clone();
            wasm_bindgen_futures::spawn_local(async move {
                dispatcher.dispatch(crate::lessons::open_example(file).await)
            });
        })
    };
    let on_lesson_pick = {
        let dispatcher = state.dispatcher();
        Callback::from(move |e: Event| {
            let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let file = s.value();
            if file.is_empty() {
                return;
            }
            let dispatcher = dispatcher.clone();
            wasm_bindgen_futures::spawn_local(async move {
                dispatcher.dispatch(crate::lessons::open(file).await);
            });
        })
    };
    let lines = log_lines(&player, lang, state.hide_routine);
    let current = player.current().map(|e| e.id);
    let changes = state
        .changes
        .as_ref()
        .filter(|(id, _)| Some(*id) == current)
        .map(|(_, c)| c.clone());
    let marks: Rc<SortedSet<String>> = Rc::new(
        changes
            .iter()
            .flat_map(|c| c.iter().filter_map(|x| x.mark.clone()))
            .collect(),
    );
    let caption = player
        .current()
        .map(|e| e.caption(lang))
        .unwrap_or_else(|| t(lang, "no_events").to_string());
    let on_seek = {
        let dispatcher = state.dispatcher();
        use_callback((), move |id, _| dispatcher.dispatch(Action::Seek(id)))
    };
    let on_lang = d(|| Action::ToggleLang);
    let on_file = {
        let dispatcher = state.dispatcher();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            input.set_value("");
            let dispatcher = dispatcher.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let name = file.name();
                let text = wasm_bindgen_futures::JsFuture::from(file.text()).await;
                let action = match text.ok().and_then(|t| t.as_string()) {
                    None => {
                        Action::LoadFailed(format!("{name}: the file could not be read as text"))
                    }
                    Some(t) => match load_scenario(&name, &t) {
                        Ok(p) => Action::Loaded(Rc::new(RefCell::new(p))),
                        Err(m) => Action::LoadFailed(m),
                    },
                };
                dispatcher.dispatch(action);
            });
        })
    };
    let on_dismiss = d(|| Action::DismissError);
    let on_scrub = {
        let dispatcher = state.dispatcher();
        Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Ok(n) = input.value().parse::<u64>() {
                dispatcher.dispatch(Action::SeekTo(n));
            }
        })
    };
    let jump_kind = use_state(|| JUMP_KINDS[0].0);
    let on_jump_kind = {
        let jump_kind = jump_kind.clone();
        Callback::from(move |e: Event| {
            let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
            if let Some((k, _, _)) = JUMP_KINDS.iter().find(|(k, _, _)| *k == s.value()) {
                jump_kind.set(k);
            }
        })
    };
    let on_jump = {
        let dispatcher = state.dispatcher();
        let kind = *jump_kind;
        Callback::from(move |_: MouseEvent| dispatcher.dispatch(Action::NextOfKind(kind)))
    };
    let share_link = use_state(|| None::<String>);
    let share_challenge = use_state(|| false);
    let on_share = {
        let share_link = share_link.clone();
        let text = player.source().to_string();
        let step = player.cursor();
        let challenge = *share_challenge;
        Callback::from(move |_: MouseEvent| {
            let mut frag = share_fragment(&text, step, view);
            if challenge {
                frag += "&challenge=1";
            }
            let Some(w) = web_sys::window() else { return };
            let base = w.location().href().unwrap_or_default();
            let base = base.split('#').next().unwrap_or("").to_string();
            // Put it in the address bar too (no reload, no history entry).
            if let Ok(h) = w.history() {
                let _ = h.replace_state_with_url(
                    &wasm_bindgen::JsValue::NULL,
                    "",
                    Some(&format!("#{frag}")),
                );
            }
            share_link.set(Some(format!("{base}#{frag}")));
        })
    };
    let stage_ref = use_node_ref();
    let on_export = {
        let stage_ref = stage_ref.clone();
        let player = state.player.clone();
        let dispatcher = state.dispatcher();
        Callback::from(move |e: Event| {
            let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let what = s.value();
            s.set_value("");
            let stem = crate::export::file_stem(&player.borrow().scenario().name);
            let done = match what.as_str() {
                "scenario" => crate::export::scenario(&player.borrow()),
                "trace" => crate::export::trace(&player.borrow()),
                "svg" | "png" => {
                    let dispatcher = dispatcher.clone();
                    let Some(stage) = stage_ref.cast::<web_sys::Element>() else {
                        return;
                    };
                    wasm_bindgen_futures::spawn_local(async move {
                        let r = if what == "svg" {
                            crate::export::svg(stem, stage).await
                        } else {
                            crate::export::png(stem, stage).await
                        };
                        if let Err(e) = r {
                            dispatcher.dispatch(Action::Problem(e));
                        }
                    });
                    Ok(())
                }
                _ => Ok(()),
            };
            if let Err(e) = done {
                dispatcher.dispatch(Action::Problem(e));
            }
        })
    };
    let on_help_toggle = d(|| Action::ToggleHelp);
    let on_help_close = d(|| Action::CloseHelp);
    // Callbacks made once, so the panels they go to render only when their
    // own data change (a new Callback each render would re-render them on
    // every step).
    let on_command = {
        let d = state.dispatcher();
        use_callback((), move |c, _| d.dispatch(Action::Act(c)))
    };
    let on_reconfigure = {
        let d = state.dispatcher();
        use_callback((), move |e, _| d.dispatch(Action::Reconfigure(e)))
    };
    let on_broker = {
        let d = state.dispatcher();
        use_callback((), move |(b, alive): (i32, bool), _| {
            d.dispatch(Action::Act(crate::branch::command(
                if alive {
                    "kill_broker"
                } else {
                    "restart_broker"
                },
                &[("broker", b.into())],
            )))
        })
    };
    let on_message = {
        let d = state.dispatcher();
        use_callback((), move |id, _| d.dispatch(Action::SelectMessage(id)))
    };
    let on_batch = {
        let d = state.dispatcher();
        use_callback((), move |(seg, pos), _| {
            d.dispatch(Action::SelectBatch(seg, pos))
        })
    };
    let on_lookup = {
        let d = state.dispatcher();
        use_callback(
            lang,
            move |r: crate::components::storage::LookupRequest, lang| {
                d.dispatch(match lookup_command(&r, *lang) {
                    Ok(c) => Action::Act(c),
                    Err(e) => Action::Problem(e),
                })
            },
        )
    };
    let on_practice = {
        let d = state.dispatcher();
        use_callback((), move |r, _| d.dispatch(Action::PracticeAnswered(r)))
    };
    let stage = html! {
        <section class="stage" aria-label={t(lang, "views")} ref={stage_ref}>
            <div class="tabs" role="tablist" aria-label={t(lang, "views")}>
                { tab(View::Cluster, "tab-cluster", "view_cluster") }
                { tab(View::Producer, "tab-producer", "view_producer") }
                { tab(View::Storage, "tab-storage", "view_storage") }
                { tab(View::Groups, "tab-groups", "view_groups") }
                { tab(View::Practice, "tab-practice", "view_practice") }
            </div>
            if view == View::Practice {
                <crate::components::practice::PracticeView lang={lang}
                    score={(state.progress.practice_answered, state.progress.practice_right)}
                    first_seed={state.progress.practice_answered as u64}
                    on_answer={on_practice} />
            } else if let Some(m) = producer {
                <crate::components::producer::ProducerView model={m} lang={lang} on_seek={on_seek.clone()} />
            } else if let Some(m) = storage {
                <StorageView model={m} lang={lang} on_select={on_select_storage} on_download={on_download}
                    on_batch={on_batch} on_lookup={on_lookup} on_seek={on_seek.clone()} />
            } else if let Some(m) = groups {
                <GroupsView model={m} lang={lang} />
                <h3 class="seq-title">{ t(lang, "sequence") }</h3>
                if let Some(s) = sequence {
                    <crate::components::sequence::SequenceView model={s} lang={lang} />
                }
            } else {
                <ClusterView model={model} lang={lang} on_broker={on_broker} marks={marks} on_message={on_message} {clock} />
                <crate::components::election::ElectionView model={election} lang={lang} />
                if let Some(rows) = zk_rows {
                    <crate::components::zk_tree::ZkTree rows={rows} lang={lang} />
                }
            }
        </section>
    };
    // The panel's settings change only with the scenario text.
    let config_groups = use_memo(player.source().to_string(), |s| {
        crate::config_panel::settings(s)
    });
    let act = {
        let sc = player.scenario();
        let w = player.world();
        let mut nodes: Vec<String> = w
            .brokers()
            .keys()
            .map(|b| format!("broker-{}", b.0))
            .collect();
        nodes.extend((0..w.producers().len()).map(|i| format!("producer-{i}")));
        nodes.extend((0..w.consumers().len()).map(|i| format!("consumer-{i}")));
        nodes.push("zookeeper".into());
        html! {
            <crate::components::act::Act lang={lang}
                brokers={w.brokers().values().map(|b| (b.id.0, b.alive)).collect::<Vec<_>>()}
                producers={w.producers().iter().map(|p| p.name.clone()).collect::<Vec<_>>()}
                topics={sc.topics.iter().map(|t| t.name.clone()).collect::<Vec<_>>()}
                consumers={w.consumers().iter().map(|c| c.name.clone()).collect::<Vec<_>>()}
                groups={w.consumers().iter().filter_map(|c| c.config.group_id.clone()).collect::<Vec<_>>()}
                nodes={nodes}
                on_command={on_command} />
        }
    };
    let controls = html! {
        <Controls lang={lang} cursor={player.cursor()} known_len={player.known_len()} length_final={player.length_final()}
            time_ms={now} playing={state.playing} speed_label={state.speed_label()} hide_routine={state.hide_routine}
            on_back={d(|| Action::Back)} on_step={d(|| Action::Step)} on_play={d(|| Action::TogglePlay)}
            on_start={d(|| Action::ToStart)} on_speed={d(|| Action::NextSpeed)} on_routine={d(|| Action::ToggleRoutine)} />
    };
    if state.embed.is_some() {
        // Embedded in another page: the drawing, its caption and playback only.
        return html! {
            <div class="app embed" id="embed" lang={if lang == Lang::Zh { "zh-CN" } else { "en" }}>
                { controls }
                <p class="caption" id="caption" aria-live="polite">{ caption }</p>
                { stage }
            </div>
        };
    }
    html! {
        <div class="app" lang={if lang == Lang::Zh { "zh-CN" } else { "en" }}>
            <header>
                <div>
                    <h1>{ t(lang, "title") }</h1>
                    <p class="subtitle">{ t(lang, "subtitle") }</p>
                </div>
                <div class="scenario-name">{ player.scenario().name.clone() }</div>
                <label class="examples">{ t(lang, "examples") }{" "}
                    <select id="example" onchange={on_example}>
                        <option value="" selected=true disabled=true>{"…"}</option>
                        { for EXAMPLES.iter().map(|n| html! { <option value={*n}>{ n.trim_end_matches(".json") }</option> }) }
                    </select>
                </label>
                if let Some(lib) = &state.library {
                    <label class="lessons">{ t(lang, "lessons") }{" "}
                        <select id="lesson-pick" onchange={on_lesson_pick}>
                            // No library lesson open (an example is not one): the
                            // placeholder, not the browser's first lesson.
                            <option value="" selected={!lib.lessons.iter().any(|l| state.lesson_slug.as_deref() == Some(l.slug()))} disabled=true>{"…"}</option>
                            { for lib.lessons.iter().map(|l| html! {
                                <option value={l.file.clone()} selected={state.lesson_slug.as_deref() == Some(l.slug())}>
                                    { format!("{} ({}){}", l.title.get(lang), l.concepts.join(" "),
                                        state.progress.lessons.get(l.slug()).map(|p| format!(" ✓ {}/{}", p.right(), p.questions)).unwrap_or_default()) }
                                </option>
                            }) }
                        </select>
                    </label>
                }
                <label class="file-button">
                    { t(lang, "load") }
                    <input id="load-scenario" type="file" accept=".json,application/json" onchange={on_file} />
                </label>
                <button id="btn-lang" onclick={Callback::from(move |_: MouseEvent| on_lang.emit(()))} aria-label="Language / 语言">{ t(lang, "lang") }</button>
            </header>
            if let Some(err) = &state.error {
                <div class="error" role="alert" id="error">
                    <strong>{ t(lang, state.error_about) }</strong>{" "}{ err.clone() }{" "}
                    <span class="kept">{ t(lang, "kept") }</span>
                    <button onclick={Callback::from(move |_: MouseEvent| on_dismiss.emit(()))} aria-label={t(lang, "dismiss")}>{"✕"}</button>
                </div>
            }
            { controls }
            <div class="navigate">
                <input id="scrub" type="range" min="0" max={player.known_len().to_string()} value={player.cursor().to_string()}
                    aria-label={t(lang, "timeline")} oninput={on_scrub} />
                <label class="jump">{ t(lang, "jump") }{" "}
                    <select id="jump-kind" onchange={on_jump_kind}>
                        { for JUMP_KINDS.iter().map(|(k, en, zh)| html! {
                            <option value={*k} selected={*k == *jump_kind}>{ if lang == Lang::Zh { *zh } else { *en } }</option>
                        }) }
                    </select>
                </label>
                <button id="btn-next-kind" onclick={on_jump} title="n">{ t(lang, "next") }</button>
                <button id="btn-help" onclick={on_help_toggle.reform(|_: MouseEvent| ())} aria-label={t(lang, "shortcuts")} title="?">{"?"}</button>
                <button id="btn-share" onclick={on_share} title={t(lang, "share_hint")}>{ t(lang, "share") }</button>
                if state.lesson.is_some() {
                    <label class="challenge">
                        <input id="share-challenge" type="checkbox" checked={*share_challenge}
                            onchange={{ let c = share_challenge.clone(); Callback::from(move |_: Event| c.set(!*c)) }} />
                        { t(lang, "challenge") }
                    </label>
                }
                <label class="export">{ t(lang, "export") }{" "}
                    <select id="export" onchange={on_export}>
                        <option value="" selected=true>{"…"}</option>
                        <option value="scenario">{ t(lang, "export_scenario") }</option>
                        <option value="trace">{ t(lang, "export_trace") }</option>
                        <option value="svg">{ t(lang, "export_svg") }</option>
                        <option value="png">{ t(lang, "export_png") }</option>
                    </select>
                </label>
            </div>
            { act }
            <crate::components::config::ConfigPanel lang={lang}
                groups={config_groups}
                on_apply={on_reconfigure} />
            if let Some(link) = &*share_link {
                <p class="share" id="share-link">
                    { t(lang, "share_done") }{" "}
                    <input type="text" readonly=true value={link.clone()} aria-label={t(lang, "share")} size="60" />
                    <br />{ t(lang, "embed_code") }{" "}
                    <input id="embed-code" type="text" readonly=true size="60" aria-label={t(lang, "embed_code")}
                        value={format!("<iframe src=\"{link}&embed=1&from=0&to={}&loop=1\" width=\"1000\" height=\"620\"></iframe>", player.known_len())} />
                </p>
            }
            if let Some(n) = &state.notice {
                <p class="notice" role="status" id="notice">{ n.clone() }</p>
            }
            if let Some(why) = player.at_end().then(|| player.stopped_early()).flatten() {
                <p class="notice" role="status" id="stopped-early">{ t(lang, "stopped_early") }{ why }</p>
            }
            if state.help {
                <div class="help" role="dialog" aria-modal="true" aria-label={t(lang, "shortcuts")} id="help">
                    <h2>{ t(lang, "shortcuts") }</h2>
                    <dl>
                        { for crate::keys::SHORTCUTS.iter().map(|(k, en, zh)| html! {
                            <><dt><kbd>{ *k }</kbd></dt><dd>{ if lang == Lang::Zh { *zh } else { *en } }</dd></>
                        }) }
                    </dl>
                    <button id="btn-help-close" onclick={on_help_close.reform(|_: MouseEvent| ())}>{ t(lang, "dismiss") }</button>
                </div>
            }
            if let Some(l) = &state.lesson {
                { lesson_panel(l, lang, player.cursor(), &state.dispatcher()) }
            }
            <p class="caption" id="caption" aria-live="polite">{ caption }</p>
            if let (Some(c), Some(id)) = (&changes, current) {
                { changes_panel(c, id, lang) }
            }
            <main>
                { stage }
                <EventLog lang={lang} lines={lines} current={current} on_seek={on_seek} />
            </main>
        </div>
    }
}
