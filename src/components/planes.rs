//! ZooKeeper against KRaft (issue 49): one failure run by the engine in
//! Kafka 3.9 and in Kafka 4.1 from the same seed ([`kafka_sim::planes`]),
//! shown as two timelines in lock-step: one row per moment after the
//! failure, what each control plane did then side by side. The learner
//! moves the shared clock (next moment, slider, to the end); what has not
//! happened yet is not shown, and each side's figures (when it noticed,
//! when it recovered, the messages, the partition states sent to brokers)
//! appear once the clock has reached that side's end, so the learner can
//! predict first. Either run opens in the timeline (small cluster).

use crate::i18n::{t, Lang};
use kafka_sim::event::Event as SimEvent;
use kafka_sim::planes::{compare, Comparison, Failure, Run, Size, FAILURE_AT_MS};
use kafka_sim::NodeId;
use std::rc::Rc;
use yew::prelude::*;

/// The seed of both runs.
const SEED: u64 = 11;
/// Events shown in one cell; the rest are counted.
const PER_CELL: usize = 4;

#[derive(Properties, PartialEq)]
pub struct PlanesProps {
    pub lang: Lang,
    /// Opens a run's scenario in the timeline at an event.
    pub on_open: Callback<(String, u64)>,
}

/// A finished comparison (compared by identity).
#[derive(Clone)]
struct Done(Rc<Result<Comparison, String>>);

impl PartialEq for Done {
    fn eq(&self, o: &Done) -> bool {
        Rc::ptr_eq(&self.0, &o.0)
    }
}

fn failure_key(f: Failure) -> &'static str {
    match f {
        Failure::ControllerDies => "pl_f_controller",
        Failure::BrokerCutOff => "pl_f_cut",
        Failure::LeaderDies => "pl_f_leader",
    }
}

/// Seconds as a learner reads them: `18.004 s`.
fn secs(ms: u64) -> String {
    let s = format!("{}.{:03}", ms / 1000, ms % 1000);
    format!("{} s", s.trim_end_matches('0').trim_end_matches('.'))
}

/// `1,000` (the page's numbers are grouped in both languages).
fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn node_name(n: NodeId, lang: Lang) -> String {
    match (n, lang) {
        (NodeId::Broker(b), _) => format!("broker {b}"),
        (NodeId::Controller(c), Lang::En) => format!("controller {c}"),
        (NodeId::Controller(c), Lang::Zh) => format!("控制器 {c}"),
        (n, _) => n.to_string(),
    }
}

/// The sentence setting the failure up, with who is struck on each side.
fn setup(c: &Comparison, lang: Lang) -> String {
    let (zk, kraft) = (
        node_name(c.zk.victim, lang),
        node_name(c.kraft.victim, lang),
    );
    match (c.failure, lang) {
        (Failure::ControllerDies, Lang::En) => format!(
            "The active controller's node dies. In 3.9 the controller is one of the brokers, {zk}, which also leads partitions; in 4.1 it is {kraft}, a process of its own that leads none. Which cluster has a working controller again first, and what must the new controller send the brokers?"
        ),
        (Failure::ControllerDies, Lang::Zh) => format!(
            "活跃控制器所在的节点宕机。在 3.9 中控制器是某个 broker（这里是 {zk}），它同时还是一些分区的 leader；在 4.1 中它是{kraft}，一个独立的进程，不当任何分区的 leader。哪个集群先重新有可用的控制器？新控制器又必须向各 broker 发送什么？"
        ),
        (Failure::BrokerCutOff, Lang::En) => format!(
            "Every link between {zk} and the controller is cut (in 4.1, all three controllers); the broker itself keeps running, and so does its link to ZooKeeper. Does either cluster move its leaderships away, and when?"
        ),
        (Failure::BrokerCutOff, Lang::Zh) => format!(
            "{zk} 与控制器之间的链路全部被切断（在 4.1 中是与三个控制器之间）；这个 broker 本身仍在运行，它与 ZooKeeper 的连接也还在。有没有集群会把它的 leader 职责转走？如果有，是哪个，在什么时候？"
        ),
        (Failure::LeaderDies, Lang::En) => format!(
            "{zk}, which leads some partitions and is not the 3.9 controller, dies. When does each cluster notice, and what does each send the brokers so that every partition has a leader again?"
        ),
        (Failure::LeaderDies, Lang::Zh) => format!(
            "{zk} 宕机：它是一些分区的 leader，但不是 3.9 的控制器。两个集群各在何时察觉？为了让每个分区重新有 leader，各自向 broker 发送了什么？"
        ),
    }
}

/// Why the figures came out as they did (shown with the figures).
fn why(f: Failure, lang: Lang) -> &'static str {
    match (f, lang) {
        (Failure::ControllerDies, Lang::En) => "3.9 learns of the death only when the dead broker's ZooKeeper session expires (zookeeper.session.timeout.ms, 18 s). The broker that then wins /controller reads every partition back from ZooKeeper and sends every live broker an UpdateMetadata holding all of them: the work grows with the cluster. Here that takes no time at any size (reading ZooKeeper is not timed in this model), so the growth shows in the partition states sent. In 4.1 the other voters' fetches go unanswered for controller.quorum.fetch.timeout.ms (2 s); they run a pre-vote, then a vote (when two stand at once and split the vote, a new round follows after a random election timeout), and the winner already holds the whole __cluster_metadata log. The brokers, observers of the quorum, keep asking for the old leader until their own fetch timeout, then find the new one and fetch its next records: no partition state is sent again.",
        (Failure::ControllerDies, Lang::Zh) => "3.9 只有在宕机 broker 的 ZooKeeper 会话过期后（zookeeper.session.timeout.ms，18 秒）才知道它死了。随后抢到 /controller 的 broker 要从 ZooKeeper 读回所有分区，并向每个存活的 broker 发送一个包含全部分区的 UpdateMetadata：工作量随集群规模增长。在这个模型中读取 ZooKeeper 不计时间，所以增长体现在发送的分区状态数上。在 4.1 中，其他投票者的拉取在 controller.quorum.fetch.timeout.ms（2 秒）内得不到回复；它们先预投票、再正式投票（如果两个同时参选、票数被瓜分，会在一个随机的选举超时后再来一轮），胜者本来就持有完整的 __cluster_metadata 日志。各 broker 作为仲裁的观察者，在自己的拉取超时之前仍在找旧 leader，之后找到新 leader 并拉取它的后续记录：不必重新发送任何分区状态。",
        (Failure::BrokerCutOff, Lang::En) => "In 3.9 a broker is alive as long as its ZooKeeper session is, and the session does not go through the controller: nothing moves, and whatever the controller would send the cut-off broker is lost. In 4.1 the active controller is the failure detector: with no heartbeat for broker.session.timeout.ms (9 s) it fences the broker and moves its leaderships in the same batch of records, which the other brokers replay.",
        (Failure::BrokerCutOff, Lang::Zh) => "在 3.9 中，只要 broker 的 ZooKeeper 会话还在，它就算存活，而会话并不经过控制器：什么都不会转移，控制器发给这个被隔离 broker 的请求都会丢失。在 4.1 中，活跃控制器就是故障检测者：超过 broker.session.timeout.ms（9 秒）收不到心跳，它就隔离该 broker，并在同一批记录里把它的 leader 职责转走，其他 broker 重放这些记录。",
        (Failure::LeaderDies, Lang::En) => "3.9 notices when the dead broker's ZooKeeper session expires (18 s); the controller writes each new leader to its partition's znode, then sends LeaderAndIsr to the replicas and UpdateMetadata to every broker. 4.1 notices when the heartbeats stop (broker.session.timeout.ms, 9 s) and writes one batch: the fencing record and a PartitionChangeRecord per partition. It acts once the batch is committed; the brokers learn it by fetching the log.",
        (Failure::LeaderDies, Lang::Zh) => "3.9 在宕机 broker 的 ZooKeeper 会话过期时察觉（18 秒）；控制器把每个新 leader 写进该分区的 znode，然后向副本发送 LeaderAndIsr、向每个 broker 发送 UpdateMetadata。4.1 在心跳停止 broker.session.timeout.ms（9 秒）后察觉，写下一批记录：隔离记录，以及每个分区一条 PartitionChangeRecord。这批记录提交后才生效；各 broker 通过拉取日志得知。",
    }
}

/// The moments of both runs, in ms after the failure, with the end.
fn moments(c: &Comparison) -> Vec<u64> {
    let mut v: Vec<u64> = [&c.zk, &c.kraft]
        .iter()
        .flat_map(|r| r.shown.iter().map(since).chain([r.watched_ms]))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn since(e: &SimEvent) -> u64 {
    e.time_ms.saturating_sub(FAILURE_AT_MS)
}

/// A caption that may wrap after the dots of Kafka's setting names
/// (`controller.quorum.fetch.timeout.ms`) in a narrow column, rather than
/// inside a word.
fn breakable(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut prev = ' ';
    for c in s.chars() {
        out.push(c);
        if c == '.' && prev.is_ascii_alphabetic() {
            out.push('\u{200B}');
        }
        prev = c;
    }
    out
}

/// What one side did at moment `m`.
fn cell(r: &Run, m: u64, lang: Lang) -> Html {
    let at: Vec<&SimEvent> = r.shown.iter().filter(|e| since(e) == m).collect();
    let more = at.len().saturating_sub(PER_CELL);
    html! {
        <td>
            { for at.iter().take(PER_CELL).map(|e| html! { <div class="pl-event">{ breakable(&e.caption(lang)) }</div> }) }
            if more > 0 {
                <div class="pl-more">{ match lang {
                    Lang::En => format!("… and {} more", grouped(more as u64)),
                    Lang::Zh => format!("……另有 {} 条", grouped(more as u64)),
                } }</div>
            }
        </td>
    }
}

/// One side's state at the clock.
fn status(r: &Run, clock: u64, lang: Lang) -> String {
    match (r.recovered_ms, r.noticed_ms) {
        (Some(ms), _) if ms <= clock => format!("{} {}", t(lang, "pl_recovered"), secs(ms)),
        (None, _) if clock >= r.watched_ms => {
            if r.moved == 0 && r.noticed_ms.is_none() {
                format!("{} {}", t(lang, "pl_nothing_moved"), secs(r.watched_ms))
            } else {
                format!("{} {}", t(lang, "pl_not_recovered"), secs(r.watched_ms))
            }
        }
        (_, Some(ms)) if ms <= clock => format!("{} {}", t(lang, "pl_noticed"), secs(ms)),
        _ => t(lang, "pl_waiting").to_string(),
    }
}

/// One side's figures, or `?` until the clock reached its end.
fn figures(r: &Run, clock: u64, lang: Lang) -> [String; 5] {
    if clock < r.watched_ms {
        return std::array::from_fn(|_| "?".to_string());
    }
    let ms = |v: Option<u64>| {
        v.map(secs)
            .unwrap_or_else(|| t(lang, "pl_never").to_string())
    };
    let breakdown: Vec<String> = r
        .messages
        .iter()
        .map(|(api, n)| format!("{api} {}", grouped(*n)))
        .collect();
    [
        ms(r.noticed_ms),
        match r.recovered_ms {
            Some(v) => secs(v),
            None => format!("{} {}", t(lang, "pl_not_in"), secs(r.watched_ms)),
        },
        if r.to_move == 0 {
            "—".to_string()
        } else {
            format!("{} / {}", r.moved, r.to_move)
        },
        if breakdown.is_empty() {
            "0".to_string()
        } else {
            format!("{} ({})", grouped(r.total_messages()), breakdown.join(", "))
        },
        grouped(r.partition_states),
    ]
}

#[function_component(PlanesView)]
pub fn planes_view(p: &PlanesProps) -> Html {
    let lang = p.lang;
    let failure = use_state(|| Failure::ControllerDies);
    let large = use_state(|| false);
    let done = use_state(|| None::<Done>);
    let clock = use_state(|| 0u64);
    let answer = use_state(|| None::<usize>);
    {
        let (done, clock, answer) = (done.clone(), clock.clone(), answer.clone());
        use_effect_with((*failure, *large), move |&(f, large)| {
            done.set(None);
            clock.set(0);
            answer.set(None);
            // A frame first, so "running" is drawn before the engine works.
            let t = gloo_timers::callback::Timeout::new(20, move || {
                let size = if large { Size::LARGE } else { Size::SMALL };
                done.set(Some(Done(Rc::new(compare(f, size, SEED)))));
            });
            move || drop(t)
        });
    }
    // Once the learner has predicted, the clock and both timelines come
    // into view (at 1024×768 the setup fills the first screen), and stay
    // there as the clock moves.
    use_effect_with((answer.is_some(), *clock), |&(answered, clock)| {
        // The prediction's feedback first, then the clock, and at the end
        // the figures with the explanation.
        let doc = web_sys::window().and_then(|w| w.document());
        let Some(doc) = doc.filter(|_| answered) else {
            return;
        };
        let id = match (clock > 0, doc.get_element_by_id("pl-why").is_some()) {
            (_, true) => "pl-figures",
            (true, false) => "pl-clock",
            (false, false) => "pl-predict",
        };
        if let Some(el) = doc.get_element_by_id(id) {
            el.scroll_into_view_with_bool(true);
        }
    });
    let pick_failure = |f: Failure| {
        let failure = failure.clone();
        let checked = *failure == f;
        html! {
            <label class="pl-choice">
                <input type="radio" name="pl-failure" id={format!("pl-{}", f.name())} checked={checked}
                    onchange={Callback::from(move |_: Event| failure.set(f))} />
                { t(lang, failure_key(f)) }
            </label>
        }
    };
    let pick_size = |is_large: bool, key: &'static str| {
        let large = large.clone();
        html! {
            <label class="pl-choice">
                <input type="radio" name="pl-size" id={if is_large { "pl-large" } else { "pl-small" }}
                    checked={*large == is_large}
                    onchange={Callback::from(move |_: Event| large.set(is_large))} />
                { t(lang, key) }
            </label>
        }
    };
    let body = match done.as_ref().map(|d| d.0.clone()) {
        None => html! { <p class="pl-running" id="pl-running">{ t(lang, "pl_running") }</p> },
        Some(r) => match &*r {
            Err(e) => html! { <p class="problem" role="alert">{ e.clone() }</p> },
            Ok(c) => comparison(c, &clock, &answer, *large, lang, &p.on_open),
        },
    };
    html! {
        <section class="planes" id="planes" aria-label={t(lang, "view_planes")}>
            <h2>{ t(lang, "pl_title") }</h2>
            <p>{ t(lang, "pl_intro") }</p>
            <fieldset class="pl-pick">
                <legend>{ t(lang, "pl_failure") }</legend>
                { for Failure::ALL.into_iter().map(pick_failure) }
            </fieldset>
            <fieldset class="pl-pick">
                <legend>{ t(lang, "pl_size") }</legend>
                { pick_size(false, "pl_small") }
                { pick_size(true, "pl_large") }
            </fieldset>
            { body }
        </section>
    }
}

/// The prediction asked before the clock starts: its question's key, the
/// choices' keys, and the engine's answer (an index into them).
fn question(c: &Comparison) -> (&'static str, &'static [&'static str], usize) {
    const WHO_FIRST: &[&str] = &["pl_c_zk", "pl_c_kraft", "pl_c_same"];
    const WHO_MOVES: &[&str] = &[
        "pl_c_only_zk",
        "pl_c_only_kraft",
        "pl_c_both",
        "pl_c_neither",
    ];
    let first = |a: Option<u64>, b: Option<u64>| match (a, b) {
        (Some(a), Some(b)) if a < b => 0,
        (Some(a), Some(b)) if b < a => 1,
        (Some(_), None) => 0,
        (None, Some(_)) => 1,
        _ => 2,
    };
    match c.failure {
        Failure::ControllerDies => (
            "pl_q_controller",
            WHO_FIRST,
            first(c.zk.recovered_ms, c.kraft.recovered_ms),
        ),
        Failure::LeaderDies => (
            "pl_q_leader",
            WHO_FIRST,
            first(c.zk.recovered_ms, c.kraft.recovered_ms),
        ),
        Failure::BrokerCutOff => (
            "pl_q_cut",
            WHO_MOVES,
            match (c.zk.moved > 0, c.kraft.moved > 0) {
                (true, false) => 0,
                (false, true) => 1,
                (true, true) => 2,
                (false, false) => 3,
            },
        ),
    }
}

/// The prediction: choices until answered, then right or wrong, graded by
/// the engine's runs.
fn predict(c: &Comparison, answer: &UseStateHandle<Option<usize>>, lang: Lang) -> Html {
    let (q, choices, right) = question(c);
    let chosen = **answer;
    html! {
        <div class="pl-predict" id="pl-predict" role="group" aria-label={t(lang, q)}>
            <p class="pl-question">{ t(lang, q) }</p>
            <p class="pl-choices">
                { for choices.iter().enumerate().map(|(i, key)| {
                    let answer = answer.clone();
                    let class = classes!(
                        "choice",
                        (chosen.is_some() && i == right).then_some("is-answer"),
                        (chosen == Some(i) && i != right).then_some("is-wrong"),
                    );
                    html! {
                        <button id={format!("pl-choice-{i}")} class={class} disabled={chosen.is_some()}
                            onclick={Callback::from(move |_: MouseEvent| answer.set(Some(i)))}>
                            { t(lang, key) }
                        </button>
                    }
                }) }
            </p>
            if let Some(i) = chosen {
                <p class={classes!("pl-feedback", if i == right { "right" } else { "wrong" })} id="pl-feedback" aria-live="polite">
                    { if i == right { t(lang, "pl_right").to_string() } else { format!("{} {}", t(lang, "pl_wrong"), t(lang, choices[right])) } }
                </p>
            } else {
                <p class="facts held">{ t(lang, "pl_predict_first") }</p>
            }
        </div>
    }
}

fn comparison(
    c: &Comparison,
    clock: &UseStateHandle<u64>,
    answer: &UseStateHandle<Option<usize>>,
    large: bool,
    lang: Lang,
    on_open: &Callback<(String, u64)>,
) -> Html {
    let now = **clock;
    let ms = moments(c);
    let end = ms.last().copied().unwrap_or(0);
    // The figures table appears once one side has finished.
    let first_end = c.zk.watched_ms.min(c.kraft.watched_ms);
    let next = ms.iter().copied().find(|m| *m > now);
    let prev = ms.iter().copied().rev().find(|m| *m < now);
    let go = |to: Option<u64>| {
        let clock = clock.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(t) = to {
                clock.set(t)
            }
        })
    };
    let on_slide = {
        let clock = clock.clone();
        Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Ok(v) = input.value().parse::<u64>() {
                clock.set(v.min(end));
            }
        })
    };
    // The clock starts once the learner has predicted.
    let locked = answer.is_none();
    // The moments so far that have events (the end of a quiet watch is
    // in the status line, not an empty row).
    let has = |m: u64| {
        [&c.zk, &c.kraft]
            .iter()
            .any(|r| r.shown.iter().any(|e| since(e) == m))
    };
    let rows: Vec<u64> = ms
        .iter()
        .copied()
        .filter(|m| *m <= now && has(*m))
        .collect();
    let labels = [
        "pl_fig_noticed",
        "pl_fig_recovered",
        "pl_fig_moved",
        "pl_fig_messages",
        "pl_fig_states",
    ];
    let (fz, fk) = (figures(&c.zk, now, lang), figures(&c.kraft, now, lang));
    let open = |r: &Run, id: &'static str, key: &'static str| {
        let first = r.shown.first().map(|e| e.id).unwrap_or(0);
        let (text, on_open) = (r.scenario_json.clone(), on_open.clone());
        html! {
            <button id={id} disabled={locked} onclick={Callback::from(move |_: MouseEvent| on_open.emit((text.clone(), first)))}>
                { t(lang, key) }
            </button>
        }
    };
    html! {
        <>
            <p class="pl-setup" id="pl-setup">{ setup(c, lang) }</p>
            { predict(c, answer, lang) }
            <div class="pl-clock" id="pl-clock" role="group" aria-label={t(lang, "pl_clock")}>
                <button id="pl-prev" disabled={locked || prev.is_none()} onclick={go(prev)}>{ t(lang, "pl_prev") }</button>
                <button id="pl-next" disabled={locked || next.is_none()} onclick={go(next)}>{ t(lang, "pl_next") }</button>
                <button id="pl-end" disabled={locked || now >= end} onclick={go(Some(end))}>{ t(lang, "pl_end") }</button>
                <label class="pl-slider">
                    { t(lang, "pl_clock") }
                    <input id="pl-slider" type="range" min="0" max={end.to_string()} step="1" disabled={locked}
                        value={now.to_string()} oninput={on_slide} />
                </label>
                <span class="pl-now" id="pl-now">{ format!("{} +{}", t(lang, "pl_after_failure"), secs(now)) }</span>
            </div>
            <table class="grid pl-timelines" id="pl-timelines">
                <thead><tr>
                    <th scope="col">{ t(lang, "pl_after_failure") }</th>
                    <th scope="col">{ t(lang, "pl_zk") }</th>
                    <th scope="col">{ t(lang, "pl_kraft") }</th>
                </tr></thead>
                <tbody>
                    { for rows.iter().map(|m| html! {
                        <tr class={classes!((*m == now).then_some("pl-current"))}>
                            <th scope="row">{ format!("+{}", secs(*m)) }</th>
                            { cell(&c.zk, *m, lang) }
                            { cell(&c.kraft, *m, lang) }
                        </tr>
                    }) }
                </tbody>
                <tfoot>
                    <tr class="pl-status">
                        <th scope="row">{ t(lang, "pl_status") }</th>
                        <td id="pl-status-zk">{ status(&c.zk, now, lang) }</td>
                        <td id="pl-status-kraft">{ status(&c.kraft, now, lang) }</td>
                    </tr>
                </tfoot>
            </table>
            if now >= first_end {
            <table class="grid pl-figures" id="pl-figures">
                <thead><tr>
                    <th></th>
                    <th scope="col">{ t(lang, "pl_zk") }</th>
                    <th scope="col">{ t(lang, "pl_kraft") }</th>
                </tr></thead>
                <tbody>
                    { for labels.iter().enumerate().map(|(i, key)| html! {
                        <tr>
                            <th scope="row">{ t(lang, key) }</th>
                            <td>{ fz[i].clone() }</td>
                            <td>{ fk[i].clone() }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
            }
            if now >= end {
                <p class="pl-why" id="pl-why">{ why(c.failure, lang) }</p>
            } else {
                <p class="facts held" id="pl-held">{ t(lang, "pl_held") }</p>
            }
            if !large {
                <p class="pl-open">
                    { open(&c.zk, "pl-open-zk", "pl_open_zk") }
                    { open(&c.kraft, "pl-open-kraft", "pl_open_kraft") }
                </p>
            }
        </>
    }
}
