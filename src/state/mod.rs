//! The page's state and its reducer: pure, so it is tested natively
//! (`cargo test -p kafka-visualiser state`). Nothing here touches the
//! browser: the language is given to `AppState::new`, and what must be
//! saved (the language, progress) is saved by the `App` component when it
//! changes (see `app.rs`).

pub mod branch;
pub mod config;
pub mod lesson;
pub mod links;
pub mod menu;
pub mod progress;

use crate::components::cluster::NodeMenu;
use crate::i18n::{t, Lang};
use crate::player::Player;
use crate::state::links::{Link, Open};
use kafka_sim::collections::SortedMap;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The scenario the page opens with.
pub const DEFAULT_SCENARIO: &str = include_str!("../../scenarios/leader-failover.json");
/// Free play (`#play`): a calm cluster, nothing scheduled to fail.
pub const FREE_PLAY: &str = include_str!("../../scenarios/free-play.json");

/// The built-in scenarios of the Examples menu: files of `scenarios/`,
/// which the build copies beside the page and the service worker keeps for
/// offline use. The first is the default one, also built into the page; the
/// others are read when chosen.
pub const EXAMPLES: [&str; 7] = [
    "leader-failover.json",
    "hw-truncation.json",
    "kip101-divergence.json",
    "kip101-epochs.json",
    "group-rebalance.json",
    "kraft-controller-failover.json",
    "kraft-leader-failover.json",
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
    Metrics,
    Practice,
    /// The same failure in Kafka 3.9 and Kafka 4.1, side by side.
    Planes,
}

/// Playback speeds (multipliers ×4, to stay in integers): 0.25× … 8×.
pub const SPEEDS_X4: [u32; 6] = [1, 2, 4, 8, 16, 32];
/// The most steps one "Continue" takes.
pub const MAX_CONTINUE_STEPS: usize = 20_000;
/// Continue plays this many times faster than the chosen speed: the
/// messages are seen moving, and the next stop comes within seconds.
pub const CONTINUE_PACE: u32 = 4;
/// The shortest wall-clock step while playing (a message still visibly
/// travels its link).
const MIN_STEP_MS: u32 = 40;
/// Milliseconds between steps at 1×.
const BASE_STEP_MS: u32 = 700;

/// A lesson loaded with the scenario, and the learner's answers.
#[derive(Clone, Debug, PartialEq)]
pub struct LessonState {
    pub lesson: Rc<crate::state::lesson::Lesson>,
    /// Event index of each step's `at` (None: the scenario never has it).
    pub targets: Rc<Vec<Option<u64>>>,
    /// Where each question stops playback: its `before` event if it has
    /// one (the decision is carried out there), else its `at` event.
    pub stops: Rc<Vec<Option<u64>>>,
    /// Step → (chosen, right?, the engine's answer).
    pub answers: Rc<SortedMap<usize, (String, bool, String)>>,
    /// The question waiting for an answer.
    pub asking: Option<usize>,
    /// The question answered last (its feedback is shown).
    pub last: Option<usize>,
    /// A question to the finder the learner has answered, while the
    /// finder searches: (step, the prediction).
    pub finding: Option<(usize, String)>,
    /// Step → what the finder answered (the page's search, kept so a
    /// question graded again is not searched again).
    pub explored: Rc<SortedMap<usize, crate::components::explore::Explored>>,
}

impl LessonState {
    /// Reads the scenario's lesson, if it has one, and finds each step's event.
    pub fn load(player: &mut Player) -> Result<Option<LessonState>, String> {
        let Some(v) = player.scenario().lesson.clone() else {
            return Ok(None);
        };
        let lesson = crate::state::lesson::Lesson::from_value(&v)?;
        let targets: Vec<Option<u64>> = lesson
            .steps
            .iter()
            .map(|s| player.find_nth_where(s.at.nth, |e| s.at.matches(e)))
            .collect();
        let stops: Vec<Option<u64>> = lesson
            .steps
            .iter()
            .zip(&targets)
            .map(|(s, t)| match &s.before {
                Some(b) => player.find_nth_where(b.nth, |e| b.matches(e)),
                None => *t,
            })
            .collect();
        for (i, (stop, t)) in stops.iter().zip(&targets).enumerate() {
            if let (Some(stop), Some(t)) = (stop, t) {
                if stop > t {
                    player.seek(0);
                    return Err(format!(
                        "lesson.steps[{i}].before: its event comes after the step's `at` event"
                    ));
                }
            }
        }
        // Each question to the finder must name what exists in the scenario.
        if let Err(e) =
            crate::state::lesson::check_finder_questions(&player.scenario().clone(), &lesson)
        {
            player.seek(0);
            return Err(e);
        }
        // Each question's answer must be a field the page can read off its event.
        for (i, (s, t)) in lesson.steps.iter().zip(&targets).enumerate() {
            if let (Some(p), Some(t)) = (
                s.answer
                    .as_ref()
                    .filter(|a| !crate::state::lesson::is_explore(a)),
                t,
            ) {
                if crate::state::lesson::answer_at(player, *t, p).is_none() {
                    player.seek(0);
                    return Err(if crate::state::lesson::is_metric(p) {
                        format!(
                            "lesson.steps[{i}].answer: {p} is not a metric the page reads after the step's {} event",
                            s.at.kind
                        )
                    } else {
                        format!(
                            "lesson.steps[{i}].answer: a {} event has no field {p} the page can read",
                            s.at.kind
                        )
                    });
                }
            }
        }
        player.seek(0);
        Ok(Some(LessonState {
            lesson: Rc::new(lesson),
            targets: Rc::new(targets),
            stops: Rc::new(stops),
            answers: Rc::default(),
            asking: None,
            last: None,
            finding: None,
            explored: Rc::default(),
        }))
    }

    /// Grades `choice` for question `k` against the engine's own event:
    /// (right?, the engine's answer). None if `k` is not a question that
    /// happens in this scenario.
    pub fn grade(&self, player: &mut Player, k: usize, choice: &str) -> Option<(bool, String)> {
        let step = self.lesson.steps.get(k)?;
        let target = self.targets.get(k).copied().flatten()?;
        let answer = step.answer.as_deref()?;
        if crate::state::lesson::is_explore(answer) {
            // The page's own search, or (a question graded without one,
            // as the tests do) the same search run here to the end.
            let truth = match self.explored.get(&k) {
                Some(e) => e.answer(),
                None => kafka_sim::explore::question::Question::new(
                    player.scenario(),
                    answer,
                    step.explore.as_ref()?,
                )
                .ok()?
                .finish()
                .answer(),
            };
            return Some((choice == truth, truth.to_string()));
        }
        let truth = crate::state::lesson::answer_at(player, target, answer)?;
        Some((choice == truth, truth))
    }

    /// The event index a question or narration step is about.
    pub fn target(&self, k: usize) -> Option<u64> {
        self.targets.get(k).copied().flatten()
    }

    /// The cursor position that shows step `k`: a question's stop, or just
    /// after a narration's event.
    fn shown_at(&self, k: usize) -> Option<u64> {
        if self.lesson.steps[k].ask.is_some() {
            self.stop(k)
        } else {
            self.target(k).map(|t| t + 1)
        }
    }

    /// The step shown last at a cursor position in `within`, among those
    /// `has` picks.
    fn latest_shown(
        &self,
        within: std::ops::RangeInclusive<u64>,
        has: impl Fn(&crate::state::lesson::Step) -> bool,
    ) -> Option<usize> {
        (0..self.lesson.steps.len())
            .filter(|&k| has(&self.lesson.steps[k]))
            .filter_map(|k| {
                self.shown_at(k)
                    .filter(|t| within.contains(t))
                    .map(|t| (t, k))
            })
            .max()
            .map(|(_, k)| k)
    }

    /// The chapters: (step that opens it, the cursor position that shows it).
    pub fn chapters(&self) -> Vec<(usize, u64)> {
        (0..self.lesson.steps.len())
            .filter(|&k| self.lesson.steps[k].chapter.is_some())
            .filter_map(|k| Some((k, self.shown_at(k)?)))
            .collect()
    }

    /// The view the latest step shown between cursors `before` and `after`
    /// names: the question asked now, else the last step shown in
    /// `(before, after]`, else (a jump back) the latest shown by `after`.
    pub fn view_shown(&self, before: u64, after: u64) -> Option<View> {
        let steps = &self.lesson.steps;
        let within = if after >= before {
            before + 1..=after
        } else {
            0..=after
        };
        let k = self
            .asking
            .or_else(|| self.latest_shown(within, |s| s.view.is_some()))?;
        steps[k].view.as_deref().and_then(View::from_slug)
    }

    /// The partition the lesson points at, at cursor `at`: the `highlight`
    /// of the latest step shown by then that names one (a question when it
    /// is asked, a narration once its event has happened).
    pub fn highlight(&self, at: u64) -> Option<String> {
        let k = self.latest_shown(0..=at, |s| s.highlight.is_some())?;
        self.lesson.steps[k].highlight.clone()
    }

    /// Whether question `k`'s verdict has had its time at cursor `at`: a
    /// narration whose event comes after the question's has been shown.
    fn feedback_done(&self, k: usize, at: u64) -> bool {
        let Some(t) = self.target(k) else {
            return true;
        };
        self.lesson
            .steps
            .iter()
            .zip(self.targets.iter())
            .any(|(st, n)| st.say.is_some() && n.is_some_and(|n| t < n && n < at))
    }

    /// Where question `k` stops playback (just before this event index).
    pub fn stop(&self, k: usize) -> Option<u64> {
        self.stops.get(k).copied().flatten()
    }

    /// A question is open, or waits here to be asked (two questions sharing
    /// a stop: the first one's verdict is shown, the next one is asked on
    /// Continue). Views hold back what would answer it either way.
    pub fn question_pending(&self, cursor: u64) -> bool {
        self.asking.is_some() || self.question_at(cursor).is_some()
    }

    /// The event type (`leader_elected`) whose outcome the open or waiting
    /// question asks for: a view that shows the latest such outcome holds
    /// it back, since it is the previous one and not the answer.
    pub fn pending_question_kind(&self, cursor: u64) -> Option<&str> {
        let k = self.asking.or_else(|| self.question_at(cursor))?;
        Some(self.lesson.steps[k].at.kind.as_str())
    }

    /// An unanswered question that stops playback at index `i`.
    fn question_at(&self, i: u64) -> Option<usize> {
        self.lesson.steps.iter().enumerate().find_map(|(k, s)| {
            (s.ask.is_some() && self.stops[k] == Some(i) && !self.answers.contains_key(&k))
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

#[derive(Clone)]
pub struct AppState {
    pub lesson: Option<LessonState>,
    /// The lesson library (`lessons/index.json`), once read.
    pub library: Option<Rc<crate::io::lessons::LessonIndex>>,
    /// The library entry open now (its slug), for progress and links.
    pub lesson_slug: Option<String>,
    /// What the page's link opened last (None: a file, an edited
    /// configuration): a link to the same place only moves the step or view.
    pub opened: Option<Open>,
    /// The start screen is shown (over the scenario behind it).
    pub start: bool,
    /// The side drawer (open, act, configure, share, export) is open.
    pub drawer: bool,
    /// A broker's action menu is open.
    pub menu: Option<NodeMenu>,
    /// Projector mode: large type, high contrast.
    pub projector: bool,
    /// The scenario commands the learner added (their index in
    /// `commands`): captioned as theirs ("You: …"), the rest as the
    /// scenario's.
    pub mine: Rc<kafka_sim::collections::SortedSet<u32>>,
    /// A link whose scenario must be read first (a lesson, an example): the
    /// `App` reads it, then follows the link again.
    pub pending: Option<Link>,
    /// Answers saved in the browser (see `progress.rs`).
    pub progress: Rc<crate::state::progress::Progress>,
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
    pub changes: Option<(u64, Rc<Vec<crate::model::diff::Change>>)>,
    pub player: Rc<RefCell<Player>>,
    pub rev: u64,
    pub playing: bool,
    /// Playing because of Continue: faster, and it stops by itself at the
    /// next narration or question (meaningful only while `playing`).
    pub continuing: bool,
    pub speed: usize,
    pub lang: Lang,
    pub hide_routine: bool,
    pub error: Option<String>,
}

pub enum Action {
    /// A scenario file was read and parsed: replace the player.
    Loaded(Rc<RefCell<Player>>),
    /// A lesson or example was read and parsed (what it is, the player).
    LessonOpened(Open, Rc<RefCell<Player>>),
    /// Go where a link points (at start-up, `hashchange`, Back / Forward).
    Follow(Link),
    /// Open or close the side drawer.
    ToggleDrawer,
    /// Open a broker's action menu.
    OpenMenu(NodeMenu),
    /// Projector mode on or off.
    ToggleProjector,
    /// Play on to the next narration or question of the lesson (without a
    /// lesson: to the next key event) at [`CONTINUE_PACE`] times the
    /// chosen speed, and stop there; pressed again while it plays, go
    /// there at once ([`Action::ContinueNow`]).
    Continue,
    /// Go to where Continue stops, at once (a second press, reduced motion).
    ContinueNow,
    /// Something the learner asked for could not be done (an export): say why.
    Problem(String),
    /// The learner acted on the simulation: this command, one millisecond
    /// after the cursor's event (the timeline branches).
    Act(serde_json::Map<String, serde_json::Value>),
    /// The configuration panel's edits: (object pointer, key, text).
    Reconfigure(Vec<(String, String, String)>),
    /// A Practice question was answered (right?).
    PracticeAnswered(bool),
    /// A question to the finder was answered with this prediction: the
    /// finder searches (the lesson panel runs it), then [`Action::Explored`].
    Predict(usize, String),
    /// The finder answered question `k` (the prediction, what it found):
    /// kept, then the prediction is graded as [`Action::Answer`] does.
    Explored(usize, String, crate::components::explore::Explored),
    /// The lesson library's index arrived.
    Library(Rc<crate::io::lessons::LessonIndex>),
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
    /// Jump to the lesson's chapter that step `k` opens: its question is
    /// asked (unless answered), or its narration shown.
    Chapter(usize),
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
    ("rebalance_started", "rebalance started", "重平衡开始"),
    ("partitions_assigned", "partitions assigned", "分区分配"),
    ("offsets_committed", "offsets committed", "位移提交"),
    ("guarantee_broken", "guarantee broken", "保证被打破"),
];

impl AppState {
    /// The page's state over `player`, in `lang` (the browser's saved
    /// choice is read by the caller: the state touches no browser).
    pub fn new(player: Player, lang: Lang) -> AppState {
        AppState {
            lesson: None,
            library: None,
            lesson_slug: None,
            opened: None,
            start: false,
            drawer: false,
            menu: None,
            projector: false,
            mine: Rc::default(),
            pending: None,
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
            continuing: false,
            speed: 2,
            lang,
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
            .filter_map(|(k, _)| l.stop(k).map(|t| (t, k)))
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

    /// Wall-clock milliseconds between two steps while playing: Continue
    /// plays [`CONTINUE_PACE`] times faster than the chosen speed.
    pub fn step_interval_ms(&self) -> u32 {
        let ms = BASE_STEP_MS * 4 / SPEEDS_X4[self.speed];
        if self.playing && self.continuing {
            (ms / CONTINUE_PACE).max(MIN_STEP_MS)
        } else {
            ms
        }
    }

    /// Whether Continue, having stepped from `before` to `after`, is where it
    /// stops: a question asked, a narration's event shown, without a lesson a
    /// key event, or the end.
    fn continue_reached(p: &Player, lesson: Option<&LessonState>, before: u64, after: u64) -> bool {
        if p.at_end() || after == before {
            return true;
        }
        match lesson {
            Some(l) => {
                l.asking.is_some()
                    || l.lesson
                        .steps
                        .iter()
                        .zip(l.targets.iter())
                        .filter(|(st, _)| st.say.is_some())
                        .any(|(_, t)| t.is_some_and(|t| before <= t && t < after))
            }
            None => p
                .current()
                .is_some_and(|e| e.kind.importance() == kafka_sim::event::Importance::Key),
        }
    }

    /// Goes where `link` points. A link to what is open already only moves
    /// the step and view (the learner's answers stay); the start screen
    /// keeps the scenario behind it; a lesson or an example not built in is
    /// left `pending` for the `App` to read.
    fn follow(self: Rc<Self>, link: Link) -> Rc<Self> {
        let same = self.opened.as_ref() == Some(&link.open);
        let here = Rc::new(AppState {
            rev: self.rev + 1,
            start: link.open == Open::Start,
            // Back to a view of the same lesson keeps a challenge on.
            challenge: link.challenge || (same && self.challenge),
            menu: None,
            pending: None,
            playing: false,
            ..(*self).clone()
        });
        if link.open == Open::Start || same {
            return here.at_position(&link);
        }
        let loaded = match &link.open {
            Open::Start => unreachable!("handled above"),
            Open::Play => load_scenario("free play", FREE_PLAY),
            Open::Shared(packed) => crate::io::share::unpack(packed)
                .map_err(|e| format!("the link: {e}"))
                .and_then(|text| load_scenario("the link", &text)),
            Open::Example(e) if *e == crate::state::links::default_example() => {
                load_scenario(EXAMPLES[0], DEFAULT_SCENARIO)
            }
            Open::Lesson(_) | Open::Example(_) => {
                return Rc::new(AppState {
                    pending: Some(link),
                    ..(*here).clone()
                });
            }
        };
        let next = match loaded {
            Ok(p) => here.reduce(Action::LessonOpened(
                link.open.clone(),
                Rc::new(RefCell::new(p)),
            )),
            Err(e) => here.reduce(Action::LoadFailed(e)),
        };
        let next = Rc::new(AppState {
            challenge: link.challenge,
            ..(*next).clone()
        });
        next.at_position(&link)
    }

    /// Steps until the next narration has happened, a question is asked,
    /// or (without a lesson) a key event is shown; at most
    /// [`MAX_CONTINUE_STEPS`] steps, so a long quiet stretch still returns.
    fn continue_on(self: Rc<Self>) -> Rc<Self> {
        let mut s = Rc::new(AppState {
            playing: false,
            continuing: false,
            ..(*self).clone()
        });
        for _ in 0..MAX_CONTINUE_STEPS {
            let before = s.player.borrow().cursor();
            if s.player.borrow().at_end() {
                break;
            }
            s = s.reduce(Action::Step);
            let after = s.player.borrow().cursor();
            if Self::continue_reached(&s.player.borrow(), s.lesson.as_ref(), before, after) {
                break;
            }
        }
        s
    }

    /// The link's step and view, on what is open.
    fn at_position(self: Rc<Self>, link: &Link) -> Rc<Self> {
        let mut s = self;
        if let Some(n) = link.step {
            s = s.reduce(Action::SeekTo(n));
        }
        // A link names its view, or means the cluster (so Back from a view
        // returns to the cluster); the start screen keeps the view behind it.
        if link.open != Open::Start {
            s = s.reduce(Action::SetView(link.view.unwrap_or(View::Cluster)));
        }
        s
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
                    opened: None,
                    pending: None,
                    start: false,
                    mine: Rc::default(),
                    ..(*self).clone()
                });
            }
            Action::LessonOpened(open, player) => {
                let next = self.reduce(Action::Loaded(player));
                let slug = match &open {
                    Open::Lesson(s) | Open::Example(s) => Some(s.clone()),
                    _ => None,
                };
                return Rc::new(AppState {
                    lesson_slug: slug,
                    opened: Some(open),
                    ..(*next).clone()
                });
            }
            Action::Follow(link) => return self.follow(link),
            Action::ContinueNow => return self.continue_on(),
            Action::Continue => {
                let asked = self.lesson.as_ref().is_some_and(|l| l.asking.is_some());
                if self.playing && self.continuing {
                    return self.continue_on();
                }
                if asked || self.player.borrow().at_end() {
                    return self;
                }
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    playing: true,
                    continuing: true,
                    menu: None,
                    ..(*self).clone()
                });
            }
            Action::Act(command) => {
                let added = self.player.borrow().scenario().commands.len() as u32;
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
                            menu: None,
                            mine: {
                                let mut m = (*self.mine).clone();
                                m.insert(added);
                                Rc::new(m)
                            },
                            notice: Some(t(self.lang, "branched").to_string()),
                            ..(*self).clone()
                        })
                    }
                    Err(e) => self.reduce(Action::Problem(e)),
                };
            }
            Action::Reconfigure(edits) => {
                let text = crate::state::config::apply(self.player.borrow().source(), &edits);
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
            Action::Predict(k, choice) => {
                let Some(mut l) = self.lesson.clone() else {
                    return self;
                };
                if l.asking != Some(k) {
                    return self;
                }
                l.finding = Some((k, choice));
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    lesson: Some(l),
                    ..(*self).clone()
                });
            }
            Action::Explored(k, choice, found) => {
                let Some(mut l) = self.lesson.clone() else {
                    return self;
                };
                if l.finding.as_ref().map(|(f, _)| *f) != Some(k) {
                    return self;
                }
                let refused = found.refused.is_some();
                let mut explored = (*l.explored).clone();
                explored.insert(k, found);
                l.explored = Rc::new(explored);
                l.finding = None;
                if refused {
                    // Nothing to grade by: the question stays, with why.
                    return Rc::new(AppState {
                        rev: self.rev + 1,
                        lesson: Some(l),
                        ..(*self).clone()
                    });
                }
                let next = Rc::new(AppState {
                    lesson: Some(l),
                    ..(*self).clone()
                });
                return next.reduce(Action::Answer(k, choice));
            }
            Action::Answer(k, choice) => {
                let Some(mut l) = self.lesson.clone() else {
                    return self;
                };
                let Some(target) = l.target(k) else {
                    return self;
                };
                let Some((right, truth)) = l.grade(&mut self.player.borrow_mut(), k, &choice)
                else {
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
                }
                // A question that stops before this one's event (asked one
                // after the other, before either decision) comes next: the
                // cursor goes to its stop and the verdict and explanation of
                // this one stay until the learner goes on (Continue or Step
                // asks it there). Otherwise reveal: show the event the
                // question was about.
                let from = l.stop(k).unwrap_or(target);
                let before = self.player.borrow().cursor();
                match l.question_between(from, target + 1) {
                    Some((_, stop)) => self.player.borrow_mut().seek(stop),
                    None => self.player.borrow_mut().seek(target + 1),
                }
                let after = self.player.borrow().cursor();
                let view = l.view_shown(before, after).unwrap_or(self.view);
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    lesson: Some(l),
                    progress,
                    view,
                    ..(*self).clone()
                });
            }
            Action::LoadFailed(msg) => {
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    playing: false,
                    pending: None,
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
            Action::ToggleHelp => {
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    help: !self.help,
                    ..(*self).clone()
                });
            }
            // Escape: whatever is open over the drawing closes.
            Action::CloseHelp => {
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    help: false,
                    drawer: false,
                    menu: None,
                    ..(*self).clone()
                });
            }
            Action::ToggleDrawer => {
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    drawer: !self.drawer,
                    menu: None,
                    ..(*self).clone()
                });
            }
            Action::OpenMenu(m) => {
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    menu: Some(m),
                    ..(*self).clone()
                });
            }
            Action::ToggleProjector => {
                return Rc::new(AppState {
                    rev: self.rev + 1,
                    projector: !self.projector,
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
        let (ticking, toggling) = (
            matches!(action, Action::Tick),
            matches!(action, Action::TogglePlay),
        );
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
        let chapter = match &action {
            Action::Chapter(k) => lesson
                .as_ref()
                .and_then(|l| l.chapters().into_iter().find(|(c, _)| c == k)),
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
                Action::Chapter(_) => {
                    playing = false;
                    if let Some((_, at)) = chapter {
                        p.seek(at);
                    }
                }
                Action::TogglePlay => playing = !playing && !p.at_end(),
                Action::NextSpeed => speed = (speed + 1) % SPEEDS_X4.len(),
                Action::ToggleLang => lang = if lang == Lang::En { Lang::Zh } else { Lang::En },
                Action::ToggleRoutine => hide = !hide,
                Action::DismissError
                | Action::Loaded(_)
                | Action::LessonOpened(..)
                | Action::Follow(_)
                | Action::ToggleDrawer
                | Action::OpenMenu(_)
                | Action::ToggleProjector
                | Action::Continue
                | Action::ContinueNow
                | Action::Library(_)
                | Action::PracticeAnswered(_)
                | Action::Predict(..)
                | Action::Explored(..)
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
        if let (Some((k, _)), Some(l)) = (chapter, lesson.as_mut()) {
            let open = l.lesson.steps[k].ask.is_some() && !l.answers.contains_key(&k);
            l.asking = open.then_some(k);
        }
        if self.hold_for_challenge(&mut lesson) {
            playing = false;
        }
        // The last answer's verdict stays until a question is asked or a
        // narration after its event is shown.
        if let Some(l) = lesson.as_mut() {
            let after = self.player.borrow().cursor();
            if l.last.is_some_and(|k| l.feedback_done(k, after)) || l.asking.is_some() {
                l.last = None;
            }
        }
        // A step shown now (a narration whose event was just passed, a
        // question just asked, a chapter opened) brings its view forward.
        let mut view = self.view;
        if let (true, Some(l)) = (stepping || chapter.is_some(), lesson.as_ref()) {
            let after = self.player.borrow().cursor();
            if let Some(v) = l.view_shown(before, after) {
                view = v;
            }
        }
        // Continue plays until its stop, then stops by itself.
        let mut continuing = self.continuing && playing && !toggling;
        if continuing && ticking {
            let p = self.player.borrow();
            if Self::continue_reached(&p, lesson.as_ref(), before, p.cursor()) {
                playing = false;
                continuing = false;
            }
        }
        // A log line was clicked: what that event changed.
        let changes = match seek_id {
            Some(id) if self.player.borrow().cursor() == id + 1 => {
                let mut p = self.player.borrow_mut();
                let before = p.state_at(id);
                Some((id, Rc::new(crate::model::diff::diff(&before, p.world()))))
            }
            _ => self.changes.clone(),
        };
        Rc::new(AppState {
            rev: self.rev + 1,
            changes,
            playing,
            continuing,
            speed,
            lang,
            hide_routine: hide,
            error: None,
            notice: None,
            lesson,
            view,
            ..(*self).clone()
        })
    }
}

/// An event's caption, the learner's own commands captioned as theirs and
/// every client called by its name in the scenario.
pub fn caption(
    e: &kafka_sim::Event,
    lang: Lang,
    mine: &kafka_sim::collections::SortedSet<u32>,
    names: &ClientNames,
) -> String {
    let text = match &e.kind {
        kafka_sim::EventKind::CommandIssued { index, command } if mine.contains(index) => {
            let what = kafka_sim::caption::command_text(command, lang);
            match lang {
                Lang::En => format!("You: {what}"),
                Lang::Zh => format!("你：{what}"),
            }
        }
        _ => e.caption(lang),
    };
    names.apply(&text)
}

pub use kafka_sim::names::ClientNames;

/// A scenario's text without its lesson (free play).
pub fn without_lesson(text: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(mut o)) => {
            o.remove("lesson");
            serde_json::Value::Object(o).to_string()
        }
        _ => text.to_string(),
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
    Ok(crate::state::branch::command(
        "lookup",
        &[
            ("broker", r.broker.into()),
            ("topic", r.topic.clone().into()),
            ("partition", r.partition.into()),
            (what, n.into()),
        ],
    ))
}

#[cfg(test)]
mod tests {
    //! The reducer, natively: what each action does to the page's state.
    use super::*;
    use crate::components::cluster::MenuNode;
    use crate::state::links::{Link, Open};

    fn state(text: &str) -> Rc<AppState> {
        let mut p = load_scenario("test", text).unwrap();
        let lesson = LessonState::load(&mut p).unwrap();
        let mut s = AppState::new(p, Lang::En);
        s.lesson = lesson;
        Rc::new(s)
    }

    fn cursor(s: &AppState) -> u64 {
        s.player.borrow().cursor()
    }

    #[test]
    fn step_back_and_to_start_move_the_cursor() {
        let s = state(&without_lesson(DEFAULT_SCENARIO));
        let s = s.reduce(Action::Step).reduce(Action::Step);
        let two = cursor(&s);
        assert!(two >= 2, "{two}");
        let s = s.reduce(Action::Back);
        assert!(cursor(&s) < two);
        let s = s.reduce(Action::SeekTo(7));
        assert_eq!(cursor(&s), 7);
        assert_eq!(cursor(&s.reduce(Action::ToStart)), 0);
    }

    #[test]
    fn a_question_stops_playback_before_its_event_and_is_graded_by_the_engine() {
        let mut s = state(DEFAULT_SCENARIO);
        let l = s.lesson.clone().expect("the default example has a lesson");
        let (k, target) = l
            .lesson
            .steps
            .iter()
            .enumerate()
            .find_map(|(k, st)| st.ask.as_ref().and(l.stop(k)).map(|t| (k, t)))
            .expect("a question");
        s = s.reduce(Action::TogglePlay);
        assert!(s.playing);
        for _ in 0..10_000 {
            if s.lesson.as_ref().unwrap().asking.is_some() {
                break;
            }
            s = s.reduce(Action::Tick);
        }
        let asked = s.lesson.as_ref().unwrap().asking;
        assert_eq!(asked, Some(k));
        assert!(!s.playing, "a question stops playback");
        let at = l.target(k).unwrap();
        assert!(target <= at);
        assert_eq!(cursor(&s), target, "held just before the decision");
        // A step while asked does not pass it.
        s = s.reduce(Action::Step);
        assert_eq!(cursor(&s), target);
        // Answer with the engine's own truth: right, and the event is shown.
        let truth = crate::state::lesson::answer_at(
            &mut s.player.borrow_mut(),
            at,
            l.lesson.steps[k].answer.as_deref().unwrap(),
        )
        .unwrap();
        s = s.reduce(Action::Answer(k, truth.clone()));
        let l2 = s.lesson.as_ref().unwrap();
        assert_eq!(l2.answers.get(&k), Some(&(truth.clone(), true, truth)));
        assert_eq!(l2.asking, None);
        assert_eq!(cursor(&s), at + 1, "the answer's event is revealed");
    }

    #[test]
    fn the_start_screen_keeps_the_scenario_behind_it_and_a_link_to_it_returns() {
        let s = state(DEFAULT_SCENARIO);
        let s = s.reduce(Action::Follow(Link::parse("#example=leader-failover")));
        assert_eq!(s.opened, Some(Open::Example("leader-failover".into())));
        assert!(!s.start);
        let s = s.reduce(Action::SeekTo(5));
        let s = s.reduce(Action::Follow(Link::parse("")));
        assert!(s.start);
        assert_eq!(cursor(&s), 5, "the start screen keeps the learner's place");
        // Back: the same example, another view: nothing is reloaded.
        let s = s.reduce(Action::Follow(Link::parse(
            "#example=leader-failover&view=storage",
        )));
        assert!(!s.start);
        assert_eq!(s.view, View::Storage);
        assert_eq!(cursor(&s), 5);
        // Back again, to the address without a view: the cluster.
        let s = s.reduce(Action::Follow(Link::parse("#example=leader-failover")));
        assert_eq!(s.view, View::Cluster);
        assert_eq!(cursor(&s), 5);
    }

    #[test]
    fn free_play_opens_a_calm_cluster_without_a_lesson() {
        let s = state(DEFAULT_SCENARIO).reduce(Action::Follow(Link::parse("#play")));
        assert_eq!(s.opened, Some(Open::Play));
        assert!(s.lesson.is_none());
        assert!(s.error.is_none());
        assert_eq!(
            s.player.borrow().scenario().name,
            "Free play: a calm cluster"
        );
        // Calm: played to its end, no broker stops, no election after the
        // first ones, no guarantee broken; the records are read.
        let mut p = s.player.borrow_mut();
        while p.step() {}
        let kinds: Vec<&str> = p.past().iter().map(|e| e.kind.name_str()).collect();
        for bad in [
            "broker_stopped",
            "guarantee_broken",
            "isr_change_applied",
            "member_removed",
        ] {
            assert!(!kinds.contains(&bad), "free play has a {bad}");
        }
        assert!(kinds.contains(&"records_consumed"), "nothing is read");
    }

    #[test]
    fn a_lesson_link_is_left_pending_for_the_app_to_read() {
        let s = state(DEFAULT_SCENARIO);
        let link = Link::parse("#lesson=storage-lookup&step=3");
        let s = s.reduce(Action::Follow(link.clone()));
        assert_eq!(s.pending, Some(link.clone()));
        // Once read, following it again goes to its step.
        let p = load_scenario(
            "storage-lookup.json",
            &std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/static/lessons/storage-lookup.json"
            ))
            .unwrap(),
        )
        .unwrap();
        let s = s.reduce(Action::LessonOpened(
            link.open.clone(),
            Rc::new(RefCell::new(p)),
        ));
        assert_eq!(s.pending, None);
        assert_eq!(s.lesson_slug.as_deref(), Some("storage-lookup"));
        let s = s.reduce(Action::Follow(link));
        assert_eq!(cursor(&s), 3);
    }

    #[test]
    fn a_broken_share_link_is_named_and_the_current_work_stays() {
        let s = state(DEFAULT_SCENARIO).reduce(Action::SeekTo(9));
        let s = s.reduce(Action::Follow(Link::parse("#s=%%%not-a-link")));
        let e = s.error.clone().expect("an error");
        assert!(e.starts_with("the link:"), "{e}");
        assert_eq!(cursor(&s), 9);
        assert!(s.lesson.is_some());
    }

    #[test]
    fn escape_closes_the_drawer_the_menu_and_the_shortcut_list() {
        let m = NodeMenu {
            node: MenuNode::Broker(1),
            alive: true,
            x: 10,
            y: 20,
        };
        let s = state(DEFAULT_SCENARIO)
            .reduce(Action::ToggleDrawer)
            .reduce(Action::OpenMenu(m.clone()))
            .reduce(Action::ToggleHelp);
        assert!(s.drawer && s.help);
        assert_eq!(s.menu, Some(m));
        let s = s.reduce(Action::CloseHelp);
        assert!(!s.drawer && !s.help && s.menu.is_none());
    }

    #[test]
    fn acting_from_a_broker_menu_branches_and_closes_the_menu() {
        let s = state(&without_lesson(DEFAULT_SCENARIO)).reduce(Action::SeekTo(60));
        let m = NodeMenu {
            node: MenuNode::Broker(0),
            alive: true,
            x: 0,
            y: 0,
        };
        let s = s.reduce(Action::OpenMenu(m));
        let s = s.reduce(Action::Act(crate::state::branch::command(
            "kill_broker",
            &[("broker", 0.into())],
        )));
        assert!(s.menu.is_none());
        assert!(s.error.is_none(), "{:?}", s.error);
        assert_eq!(cursor(&s), 60, "the branch starts at the cursor");
        assert!(s.player.borrow().source().contains("kill_broker"));
        // The learner's command is captioned as theirs, the script's as the
        // scenario's.
        let mut p = s.player.borrow_mut();
        let end = p.known_len();
        p.seek(end);
        let captions: Vec<String> = p
            .past()
            .iter()
            .filter(|e| e.kind.name_str() == "command_issued")
            .map(|e| caption(e, Lang::En, &s.mine, &ClientNames::default()))
            .collect();
        assert!(
            captions.iter().any(|c| c == "You: kill broker 0"),
            "{captions:?}"
        );
        assert!(
            captions.iter().any(|c| c.starts_with("Scenario: ")),
            "{captions:?}"
        );
    }

    /// Every shipped lesson plays from start to end with Continue alone,
    /// and each stop shows a narration or a question.
    #[test]
    fn continue_stops_at_every_narration_and_question_and_the_lesson_ends() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/static/lessons");
        let index = crate::io::lessons::LessonIndex::from_json(
            &std::fs::read_to_string(format!("{dir}/index.json")).unwrap(),
        )
        .unwrap();
        for entry in &index.lessons {
            let text = std::fs::read_to_string(format!("{dir}/{}", entry.file)).unwrap();
            continue_through(&entry.file, &text);
        }
        // The built-in examples' lessons too.
        for file in EXAMPLES {
            let text =
                std::fs::read_to_string(format!("{}/scenarios/{file}", env!("CARGO_MANIFEST_DIR")))
                    .unwrap();
            if text.contains("\"lesson\"") {
                continue_through(file, &text);
            }
        }
    }

    /// A chapter button jumps there: the cursor goes to the chapter's
    /// position, a chapter that opens with a question asks it, one that
    /// opens with a narration shows it, and jumping back works too.
    #[test]
    fn a_chapter_jump_lands_on_its_first_step() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/static/lessons");
        for file in ["leader-election.json", "storage-lookup.json"] {
            let text = std::fs::read_to_string(format!("{dir}/{file}")).unwrap();
            let mut s = state(&text);
            let chapters = s.lesson.as_ref().unwrap().chapters();
            assert!(chapters.len() > 2, "{file}");
            for &(k, at) in chapters.iter().skip(1).chain(chapters.first()) {
                s = s.reduce(Action::Chapter(k));
                assert_eq!(cursor(&s), at, "{file}: chapter at step {k}");
                let l = s.lesson.as_ref().unwrap();
                if l.lesson.steps[k].ask.is_some() {
                    assert_eq!(l.asking, Some(k), "{file}: its question is asked");
                    s = s.reduce(Action::Answer(k, String::new()));
                } else {
                    assert_eq!(
                        l.target(k).map(|t| t + 1),
                        Some(at),
                        "{file}: its narration shows"
                    );
                }
            }
        }
    }

    /// Two questions asked before either decision (one stop window):
    /// answering the first shows its verdict and explanation, the cursor
    /// waits at the second one's stop, and only going on asks it; the
    /// verdict is gone once the next narration shows. Over every shipped
    /// lesson with such a pair.
    #[test]
    fn a_second_question_waits_for_the_first_ones_verdict() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/static/lessons");
        let mut pairs = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "json") || path.ends_with("index.json") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let mut s = state(&text);
            let l = s.lesson.clone().unwrap();
            let questions: Vec<usize> = (0..l.lesson.steps.len())
                .filter(|&k| l.lesson.steps[k].ask.is_some() && l.stop(k).is_some())
                .collect();
            for w in questions.windows(2) {
                let (a, b) = (w[0], w[1]);
                let (stop_b, target_a) = (l.stop(b).unwrap(), l.target(a).unwrap());
                if !(l.stop(a).unwrap() <= stop_b && stop_b <= target_a) {
                    continue;
                }
                pairs += 1;
                s = s.reduce(Action::SeekTo(l.stop(a).unwrap()));
                let mut m = s.lesson.clone().unwrap();
                m.answers = Rc::default();
                m.asking = Some(a);
                s = Rc::new(AppState {
                    lesson: Some(m),
                    ..(*s).clone()
                });
                s = s.reduce(Action::Answer(a, "surely not this".into()));
                let m = s.lesson.as_ref().unwrap();
                assert_eq!(
                    m.asking, None,
                    "{path:?}: {b} is not asked over {a}'s verdict"
                );
                assert_eq!(m.last, Some(a), "{path:?}: {a}'s verdict is shown");
                assert!(!m.answers[&a].1, "{path:?}: graded wrong");
                assert_eq!(cursor(&s), stop_b, "{path:?}: waits at {b}'s stop");
                // Going on (Continue, or Step) asks the next one there.
                let stepped = s.clone().reduce(Action::Step);
                assert_eq!(stepped.lesson.as_ref().unwrap().asking, Some(b));
                assert_eq!(cursor(&stepped), stop_b);
                s.player.borrow_mut().seek(stop_b);
                s = s.reduce(Action::ContinueNow);
                let m = s.lesson.as_ref().unwrap();
                assert_eq!(m.asking, Some(b), "{path:?}: Continue asks {b}");
                assert_eq!(m.last, None, "{path:?}: a question replaces the verdict");
                assert_eq!(cursor(&s), stop_b);
            }
        }
        assert!(pairs >= 5, "only {pairs} question pairs share a stop");
    }

    /// Continue plays: the first press starts playing faster than the
    /// chosen speed, the ticks step through the events between (more than
    /// one frame), and it stops by itself exactly where the immediate
    /// Continue stops; a second press while it plays goes there at once.
    #[test]
    fn continue_plays_to_where_it_stops_and_a_second_press_skips() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/static/lessons/replication-isr-hw.json"
        ))
        .unwrap();
        let mut s = state(&text);
        let mut multi = 0;
        for _ in 0..12 {
            if let Some(k) = s.lesson.as_ref().unwrap().asking {
                s = s.reduce(Action::Answer(k, String::new()));
            }
            if s.player.borrow().at_end() {
                break;
            }
            // (The states share one player: each try starts from `start`.)
            let start = cursor(&s);
            let target = cursor(&s.clone().reduce(Action::ContinueNow));
            s.player.borrow_mut().seek(start);
            let skipped = s.clone().reduce(Action::Continue).reduce(Action::Continue);
            assert_eq!(cursor(&skipped), target, "a second press skips");
            assert!(!skipped.playing);
            s.player.borrow_mut().seek(start);
            s = s.reduce(Action::Continue);
            assert!(s.playing && s.continuing);
            assert!(s.step_interval_ms() < BASE_STEP_MS * 4 / SPEEDS_X4[s.speed]);
            let mut frames = 0;
            while s.playing && frames < MAX_CONTINUE_STEPS {
                s = s.reduce(Action::Tick);
                frames += 1;
                assert!(cursor(&s) <= target, "played past the stop");
            }
            assert_eq!(cursor(&s), target, "from {start}");
            assert!(!s.continuing);
            if frames > 1 {
                multi += 1;
            }
        }
        assert!(multi >= 3, "Continue went in one frame {multi}");
        // Play after a Continue is plain play, at the chosen speed.
        let s = s.reduce(Action::TogglePlay);
        assert!(!s.continuing);
    }

    fn continue_through(file: &str, text: &str) {
        let mut s = state(text);
        let l = s.lesson.clone().unwrap();
        let stops: Vec<u64> = l
            .lesson
            .steps
            .iter()
            .enumerate()
            .filter_map(|(k, st)| {
                if st.ask.is_some() {
                    l.stop(k)
                } else {
                    l.target(k)
                }
            })
            .collect();
        let says: Vec<u64> = l
            .lesson
            .steps
            .iter()
            .enumerate()
            .filter(|(_, st)| st.say.is_some())
            .filter_map(|(k, _)| l.target(k))
            .collect();
        let mut seen = Vec::new();
        // The view the lesson's steps shown so far brought forward.
        let expected_view = |s: &AppState| -> View {
            let at = cursor(s);
            // A question brings its view when asked, at its stop; a
            // narration once its event has happened.
            let shown = |k: usize| -> Option<u64> {
                if l.lesson.steps[k].ask.is_some() {
                    l.stop(k)
                } else {
                    l.target(k).map(|t| t + 1)
                }
            };
            (0..l.lesson.steps.len())
                .filter(|k| l.lesson.steps[*k].view.is_some())
                .filter_map(|k| shown(k).filter(|t| *t <= at).map(|t| (t, k)))
                .max()
                .and_then(|(_, k)| View::from_slug(l.lesson.steps[k].view.as_deref()?))
                .unwrap_or(View::Cluster)
        };
        let mut views = std::collections::BTreeSet::new();
        for _ in 0..100 {
            let before = cursor(&s);
            s = s.reduce(Action::ContinueNow);
            assert_eq!(s.view, expected_view(&s), "{file}: at {}", cursor(&s));
            views.insert(s.view.slug());
            if let Some(k) = s.lesson.as_ref().unwrap().asking {
                assert_eq!(
                    cursor(&s),
                    l.stop(k).unwrap(),
                    "{file}: asked where it stops"
                );
                seen.push(l.stop(k).unwrap());
                // (The engine's answer, a search's for a question to the finder.)
                let (_, truth) = l.grade(&mut s.player.borrow_mut(), k, "").unwrap();
                let asked_at = cursor(&s);
                s = s.reduce(Action::Answer(k, truth));
                // The reveal may pass a narration: then it is the one shown
                // (the latest whose event has happened); never two.
                let passed: Vec<u64> = says
                    .iter()
                    .copied()
                    .filter(|t| asked_at <= *t && *t < cursor(&s))
                    .collect();
                assert!(
                    passed.len() <= 1,
                    "{file}: a reveal skips narrations {passed:?}"
                );
                seen.extend(passed);
                // Never a question straight after an answer: its verdict
                // and explanation are shown first.
                let l2 = s.lesson.as_ref().unwrap();
                assert_eq!(l2.asking, None, "{file}: asked again before the verdict");
                assert_eq!(l2.last, Some(k), "{file}: the verdict of step {k} is shown");
            } else if let Some(t) = stops.iter().find(|t| before <= **t && **t < cursor(&s)) {
                seen.push(*t);
            } else {
                assert!(
                    s.player.borrow().at_end(),
                    "{file}: Continue stopped at {} with neither narration nor question",
                    cursor(&s)
                );
            }
            if s.player.borrow().at_end() {
                break;
            }
        }
        assert!(
            s.player.borrow().at_end(),
            "{file}: Continue alone plays the lesson to its end"
        );
        let mut want = stops.clone();
        want.sort();
        want.dedup();
        seen.sort();
        seen.dedup();
        assert_eq!(seen, want, "{file}: every narration and question is a stop");
        // A lesson about a view other than the cluster brings it forward.
        for (lesson, view) in [
            ("storage-lookup", "storage"),
            ("transactions", "producer"),
            ("group-assignors", "groups"),
            ("producer-pipeline", "producer"),
            ("watching-the-cluster", "metrics"),
        ] {
            if file.starts_with(lesson) {
                assert!(
                    views.contains(view),
                    "{file}: the {view} view never came forward: {views:?}"
                );
            }
        }
    }

    #[test]
    fn clients_are_called_by_their_scenario_names_in_captions() {
        // On a real trace: the group example's consumers by name.
        let mut p = load_scenario(
            "group-rebalance.json",
            &std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/scenarios/group-rebalance.json"
            ))
            .unwrap(),
        )
        .unwrap();
        let end = p.known_len();
        p.seek(end);
        let names = ClientNames::from_world(p.world());
        assert!(!names.consumers.is_empty());
        let joined = p
            .past()
            .iter()
            .find(|e| e.kind.name_str() == "joined_group")
            .map(|e| caption(e, Lang::En, &Default::default(), &names))
            .unwrap();
        assert!(
            names
                .consumers
                .iter()
                .any(|n| joined.contains(&format!("Consumer {n} "))),
            "{joined}"
        );
    }

    #[test]
    fn the_language_is_a_state_change_only() {
        let s = state(DEFAULT_SCENARIO).reduce(Action::ToggleLang);
        assert_eq!(s.lang, Lang::Zh);
        assert_eq!(s.reduce(Action::ToggleLang).lang, Lang::En);
    }

    #[test]
    fn a_challenge_holds_the_cursor_at_the_first_unanswered_question() {
        let s = state(DEFAULT_SCENARIO).reduce(Action::Follow(Link::parse(
            "#example=leader-failover&challenge=1",
        )));
        assert!(s.challenge);
        let end = s.player.borrow().known_len();
        let s = s.reduce(Action::SeekTo(end));
        let l = s.lesson.as_ref().unwrap();
        let k = l.asking.expect("held at a question");
        assert_eq!(Some(cursor(&s)), l.stop(k));
    }
}
