//! Keyboard shortcuts, listened for on the whole document.

use crate::state::Action;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// Removes the listener when dropped.
pub struct Listener {
    closure: Option<Closure<dyn FnMut(web_sys::KeyboardEvent)>>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let (Some(c), Some(doc)) = (
            self.closure.take(),
            web_sys::window().and_then(|w| w.document()),
        ) {
            let _ = doc.remove_event_listener_with_callback("keydown", c.as_ref().unchecked_ref());
        }
    }
}

/// The shortcuts, for the `?` overlay: (key, English, Chinese).
pub const SHORTCUTS: [(&str, &str, &str); 14] = [
    ("Space / k", "play or pause", "播放 / 暂停"),
    (
        "c",
        "continue to the next narration or question",
        "继续到下一段讲解或下一个问题",
    ),
    ("→ / l", "step forward", "下一步"),
    ("← / j", "step back", "上一步"),
    ("Home", "back to the start", "回到开头"),
    ("s", "next speed (0.25× … 8×)", "切换速度（0.25× … 8×）"),
    (
        "1 / 2 / 3 / 4 / 5 / 6 / 7",
        "cluster / producer / storage / consumer groups / metrics / practice / 3.9 vs 4.1 view",
        "集群 / 生产者 / 存储 / 消费者组 / 指标 / 练习 / 3.9 对比 4.1 视图",
    ),
    ("e", "next leader election", "下一次 leader 选举"),
    ("r", "next rebalance", "下一次重平衡"),
    ("g", "next broken guarantee", "下一个被打破的保证"),
    ("?", "this list", "本列表"),
    ("Esc", "close this list", "关闭本列表"),
    ("Tab", "move between controls", "在控件间移动"),
    ("Enter", "press the focused button", "按下当前按钮"),
];

/// Maps a key to an action (None: not ours).
pub fn action_for(key: &str) -> Option<Action> {
    Some(match key {
        " " | "k" => Action::TogglePlay,
        "ArrowRight" | "l" => Action::Step,
        "c" => Action::Continue,
        "ArrowLeft" | "j" => Action::Back,
        "Home" => Action::ToStart,
        "s" => Action::NextSpeed,
        "1" => Action::SetView(crate::state::View::Cluster),
        "2" => Action::SetView(crate::state::View::Producer),
        "3" => Action::SetView(crate::state::View::Storage),
        "4" => Action::SetView(crate::state::View::Groups),
        "5" => Action::SetView(crate::state::View::Metrics),
        "6" => Action::SetView(crate::state::View::Practice),
        "7" => Action::SetView(crate::state::View::Planes),
        "?" => Action::ToggleHelp,
        "Escape" => Action::CloseHelp,
        "g" => Action::NextOfKind("guarantee_broken"),
        "e" => Action::NextOfKind("leader_elected"),
        "r" => Action::NextOfKind("rebalance_started"),
        _ => return None,
    })
}

pub fn install(dispatch: impl Fn(Action) + 'static) -> Listener {
    let closure =
        Closure::<dyn FnMut(web_sys::KeyboardEvent)>::new(move |e: web_sys::KeyboardEvent| {
            // Leave typing in form fields alone.
            let typing = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .is_some_and(|el| {
                    matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                });
            if typing || e.ctrl_key() || e.meta_key() || e.alt_key() {
                return;
            }
            if let Some(a) = action_for(&e.key()) {
                e.prevent_default();
                dispatch(match a {
                    Action::Continue => crate::io::browser::continue_action(),
                    a => a,
                });
            }
        });
    let ok = web_sys::window()
        .and_then(|w| w.document())
        .map(|d| {
            d.add_event_listener_with_callback("keydown", closure.as_ref().unchecked_ref())
                .is_ok()
        })
        .unwrap_or(false);
    Listener {
        closure: ok.then_some(closure),
    }
}
