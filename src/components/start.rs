//! The start screen: what this is in one sentence, then "What do you want
//! to learn?": the lessons in the notes' order with a human title and one
//! line each, the examples, and free play. Each choice is a link, so it
//! joins the browser's history (Back returns here).

use crate::i18n::{t, Lang};
use crate::io::lessons::LessonIndex;
use crate::state::links::{Link, Open};
use crate::state::progress::Progress;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct StartProps {
    pub lang: Lang,
    /// The lesson library, once read (None: not yet, or the page has none).
    pub library: Option<Rc<LessonIndex>>,
    pub progress: Rc<Progress>,
    pub on_open: Callback<Open>,
}

/// The examples on the start screen: (name, English line, Chinese line).
const EXAMPLE_LINES: [(&str, &str, &str); 7] = [
    (
        "leader-failover",
        "A leader broker dies: the controller elects a new leader from the ISR.",
        "leader 所在 broker 宕机：控制器从 ISR 中选出新 leader。",
    ),
    (
        "hw-truncation",
        "The notes' HW 5 / LEO 8 story: a follower truncates to its high watermark.",
        "笔记中的 HW 5 / LEO 8：follower 截断到高水位。",
    ),
    (
        "kip101-divergence",
        "Before leader epochs: truncating to the HW lets two replicas diverge.",
        "没有 leader epoch 时：按高水位截断会让两个副本分歧。",
    ),
    (
        "kip101-epochs",
        "The same failures with leader epochs: the replicas stay identical.",
        "同样的故障，有 leader epoch：副本保持一致。",
    ),
    (
        "group-rebalance",
        "A consumer joins and leaves: the group rebalances.",
        "消费者加入又离开：消费者组重平衡。",
    ),
    (
        "kraft-controller-failover",
        "Kafka 4.1 without ZooKeeper: the active controller dies and the quorum elects another.",
        "没有 ZooKeeper 的 Kafka 4.1：活跃控制器宕机，控制器仲裁选出新的控制器。",
    ),
    (
        "kraft-leader-failover",
        "Leader failover on Kafka 4.1: the controller fences the dead leader and elects the next through the metadata log.",
        "Kafka 4.1 上的 leader 故障转移：控制器隔离宕机的 leader，并通过元数据日志选出下一个 leader。",
    ),
];

#[component]
pub fn StartScreen(p: &StartProps) -> Html {
    let lang = p.lang;
    let open = |o: Open| {
        let cb = p.on_open.clone();
        let href = format!("#{}", Link::fragment(&o, None));
        let onclick = Callback::from(move |e: MouseEvent| {
            // A plain click goes through the app (so a test's page, which
            // follows no address, opens it too); a middle click or
            // Ctrl-click opens the link in a new tab as links do.
            if !(e.ctrl_key() || e.meta_key() || e.shift_key() || e.button() != 0) {
                e.prevent_default();
                cb.emit(o.clone());
            }
        });
        (href, onclick)
    };
    let lessons = p.library.as_ref().map(|lib| {
        lib.lessons
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let (href, onclick) = open(Open::Lesson(l.slug().to_string()));
                let done = p.progress.lessons.get(l.slug()).map(|pr| match lang {
                    Lang::En => format!("✓ {} of {} right", pr.right(), pr.questions),
                    Lang::Zh => format!("✓ {}/{} 答对", pr.right(), pr.questions),
                });
                html! {
                    <li class="card">
                        <a id={format!("start-lesson-{}", l.slug())} {href} {onclick}>
                            <span class="num">{ i + 1 }</span>
                            <span class="title">{ l.title.get(lang).to_string() }</span>
                        </a>
                        if let Some(s) = &l.summary {
                            <p class="line">{ s.get(lang).to_string() }</p>
                        }
                        if let Some(d) = done {
                            <p class="done">{ d }</p>
                        }
                    </li>
                }
            })
            .collect::<Html>()
    });
    let (play_href, play_click) = open(Open::Play);
    html! {
        <main class="start" id="start">
            <p class="lead">{ t(lang, "start_lead") }</p>
            <h2>{ t(lang, "start_question") }</h2>
            <section aria-labelledby="start-lessons">
                <h3 id="start-lessons">{ t(lang, "lessons_in_order") }</h3>
                if let Some(list) = lessons {
                    <ol class="cards">{ list }</ol>
                } else {
                    <p class="hint">{ t(lang, "lessons_loading") }</p>
                }
            </section>
            <section aria-labelledby="start-examples">
                <h3 id="start-examples">{ t(lang, "examples_title") }</h3>
                <ul class="cards examples">
                    { for EXAMPLE_LINES.iter().map(|(name, en, zh)| {
                        let (href, onclick) = open(Open::Example(name.to_string()));
                        html! {
                            <li class="card">
                                <a id={format!("start-example-{name}")} {href} {onclick}><span class="title">{ *name }</span></a>
                                <p class="line">{ if lang == Lang::Zh { *zh } else { *en } }</p>
                            </li>
                        }
                    }) }
                </ul>
            </section>
            <section aria-labelledby="start-play">
                <h3 id="start-play">{ t(lang, "free_play") }</h3>
                <p><a id="start-free-play" class="button primary" href={play_href} onclick={play_click}>{ t(lang, "free_play_go") }</a></p>
            </section>
        </main>
    }
}

#[cfg(test)]
mod tests {
    /// Every example of the Examples menu has a line on the start screen.
    #[test]
    fn every_example_has_a_line() {
        let names: Vec<_> = super::EXAMPLE_LINES.iter().map(|e| e.0).collect();
        let files: Vec<_> = crate::state::EXAMPLES
            .iter()
            .map(|f| f.trim_end_matches(".json"))
            .collect();
        assert_eq!(names, files);
    }
}
