//! The metrics view (M1): Kafka's own metrics, as an operator watches them.
//!
//! * Charts: one per metric group ([`kafka_sim::metrics::CHARTS`]), drawn
//!   from the samples the timeline took on the simulated clock, with the
//!   current moment marked. A click on a chart (or ← / → while it has the
//!   focus) seeks to that sample's step.
//! * "What moved": the metrics whose value the last move changed (the
//!   current event, after a step), before → after.
//! * A table of every current value under its JMX name, with the change
//!   since the previous step shown (Δ, highlighted).
//!
//! Nothing is computed here: the engine reads the metrics
//! ([`kafka_sim::metrics::read_with`]); this only draws them.

use crate::i18n::{t, Lang};
use kafka_sim::metrics::{Reading, Sample, CHARTS};
use std::rc::Rc;
use yew::prelude::*;

/// The most rows of the table and of "what moved" (a 100-broker cluster
/// has thousands of readings; the rest are counted).
const MAX_ROWS: usize = 300;
const MAX_MOVED: usize = 40;

/// Chart size in SVG units.
const W: f64 = 260.0;
const H: f64 = 100.0;
const PAD_L: f64 = 44.0;
const PAD_B: f64 = 18.0;

/// What the view shows at one step.
#[derive(PartialEq)]
pub struct MetricsModel {
    /// Events applied.
    pub cursor: u64,
    /// The simulated time of the current event.
    pub time_ms: u64,
    /// The scenario's end, the charts' right edge.
    pub run_until_ms: u64,
    /// The charted samples so far.
    pub samples: Rc<Vec<Sample>>,
    /// Every metric now.
    pub readings: Rc<Vec<Reading>>,
    /// The charted values at the current event itself, so a chart's right
    /// end and its legend agree with the table (samples are taken every
    /// 100 ms or more, and a gauge may have moved since the last one).
    pub live: Rc<Vec<f64>>,
}

#[derive(Properties, PartialEq)]
pub struct MetricsProps {
    pub model: Rc<MetricsModel>,
    pub lang: Lang,
    /// Seek to this many events.
    pub on_seek_to: Callback<u64>,
}

use kafka_sim::metrics::display as number;

/// The previous readings shown, kept across renders: (cursor, readings).
#[derive(Default)]
struct Shown {
    last: Option<(u64, Rc<Vec<Reading>>)>,
    prev: Option<(u64, Rc<Vec<Reading>>)>,
}

#[component]
pub fn MetricsView(p: &MetricsProps) -> Html {
    let lang = p.lang;
    let m = &p.model;
    let shown = use_mut_ref(Shown::default);
    let now = m.readings.clone();
    let prev = {
        let mut s = shown.borrow_mut();
        if s.last.as_ref().map(|l| l.0) != Some(m.cursor) {
            // At the start (a scenario just opened) nothing came before.
            s.prev = s.last.take().filter(|_| m.cursor > 0);
            s.last = Some((m.cursor, now.clone()));
        }
        s.prev.clone()
    };
    // Each reading's value at the previous step (None: new, or nothing
    // came before).
    let before: Vec<Option<f64>> = match &prev {
        Some((_, rs)) => kafka_sim::metrics::previous(rs, &now),
        None => vec![None; now.len()],
    };
    let moved: Vec<(&Reading, Option<f64>)> = if prev.is_some() {
        now.iter()
            .zip(before.iter().copied())
            .filter(|(r, b)| kafka_sim::metrics::moved(*b, r.value))
            .collect()
    } else {
        Vec::new()
    };
    let moved_title = match &prev {
        Some((c, _)) if *c + 1 == m.cursor && m.cursor > 0 => match lang {
            Lang::En => format!("What event #{} moved", m.cursor - 1),
            Lang::Zh => format!("事件 #{} 改变的指标", m.cursor - 1),
        },
        Some((c, _)) => match lang {
            Lang::En => format!("What moved since step {c}"),
            Lang::Zh => format!("自第 {c} 步以来改变的指标"),
        },
        None => t(lang, "metrics_moved_none").to_string(),
    };
    html! {
        <div class="metrics-view" id="metrics">
            <p class="hint">{ t(lang, "metrics_hint") }</p>
            <div class="charts">
                { for CHARTS.iter().enumerate().map(|(i, c)| chart(i, c, m, lang, &p.on_seek_to)) }
            </div>
            <section class="moved" id="metrics-moved" aria-live="polite">
                <h3>{ moved_title }</h3>
                if prev.is_some() && moved.is_empty() {
                    <p>{ t(lang, "metrics_moved_nothing") }</p>
                }
                <ul>
                    { for moved.iter().take(MAX_MOVED).map(|(r, old)| {
                        html! {
                            <li>
                                <span class="node">{ r.node.to_string() }</span>{" "}
                                <span class="mono">{ format!("{} {}", r.mbean, r.attribute) }</span>{": "}
                                <span class="before mono">{ old.map_or("–".into(), number) }</span>
                                {" → "}<span class="after mono">{ number(r.value) }</span>
                            </li>
                        }
                    }) }
                    if moved.len() > MAX_MOVED {
                        <li>{ format!("… {} {}", moved.len() - MAX_MOVED, t(lang, "more")) }</li>
                    }
                </ul>
            </section>
            <details class="metrics-table" id="metrics-table" open=true>
                <summary>{ t(lang, "metrics_table") }</summary>
                <div class="scroll" tabindex="0">
                <table>
                    <thead><tr>
                        <th>{ t(lang, "metrics_node") }</th>
                        <th>{ "MBean" }</th>
                        <th>{ t(lang, "metrics_attribute") }</th>
                        <th class="num">{ t(lang, "metrics_value") }</th>
                        <th class="num">{ "Δ" }</th>
                    </tr></thead>
                    <tbody>
                        { for now.iter().zip(&before).take(MAX_ROWS).map(|(r, b)| {
                            let delta = b.map(|b| r.value - b)
                                .filter(|d| *d != 0.0 && !d.is_nan());
                            let title = kafka_sim::metrics::def(r.name)
                                .map(|d| if lang == Lang::Zh { d.meaning_zh } else { d.meaning })
                                .unwrap_or_default();
                            html! {
                                <tr class={classes!(delta.is_some().then_some("changed"))} {title}>
                                    <td>{ r.node.to_string() }</td>
                                    <td class="mono">{ &*r.mbean }</td>
                                    <td class="mono">{ r.attribute }</td>
                                    <td class="num mono">{ number(r.value) }</td>
                                    <td class="num mono">{ delta.map(|d| format!("{}{}", if d > 0.0 { "+" } else { "" }, number(d))).unwrap_or_default() }</td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
                if now.len() > MAX_ROWS {
                    <p class="hint">{ format!("… {} {}", now.len() - MAX_ROWS, t(lang, "more")) }</p>
                }
                </div>
            </details>
        </div>
    }
}

/// Milliseconds as seconds, with a tenth where there is one.
fn seconds(ms: f64) -> String {
    let s = ms / 1000.0;
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s:.1}")
    }
}

/// The sample nearest to `time_ms`.
fn nearest(samples: &[Sample], time_ms: f64) -> Option<&Sample> {
    samples.iter().min_by(|a, b| {
        let da = (a.time_ms as f64 - time_ms).abs();
        let db = (b.time_ms as f64 - time_ms).abs();
        da.total_cmp(&db)
    })
}

/// One chart: its series as lines over the run, the current moment marked.
fn chart(
    index: usize,
    c: &kafka_sim::metrics::Chart,
    m: &Rc<MetricsModel>,
    lang: Lang,
    on_seek_to: &Callback<u64>,
) -> Html {
    let first: usize = CHARTS[..index].iter().map(|c| c.series.len()).sum();
    // The past only: the run is simulated ahead of the cursor, and what
    // comes next is for the learner to predict, not to read off a chart.
    let shown = m.samples.partition_point(|s| s.time_ms <= m.time_ms);
    let samples = &m.samples[..shown];
    let end = m.run_until_ms.max(1) as f64;
    let live = m.live.get(first..first + c.series.len()).unwrap_or(&[]);
    let top = samples
        .iter()
        .flat_map(|s| s.values[first..first + c.series.len()].iter().copied())
        .chain(live.iter().copied())
        .filter(|v| !v.is_nan())
        .fold(0.0f64, f64::max);
    let label_top = if top <= 0.0 { 1.0 } else { top };
    let top = label_top * 1.1;
    let x = |t: u64| PAD_L + (W - PAD_L - 4.0) * (t as f64 / end);
    let y = |v: f64| (H - PAD_B) - (H - PAD_B - 6.0) * (v / top);
    // Each series as polylines, broken where it has no value.
    let lines = c.series.iter().enumerate().map(|(k, s)| {
        let mut parts: Vec<String> = Vec::new();
        let mut cur = String::new();
        let points = samples
            .iter()
            .map(|smp| (smp.time_ms, smp.values[first + k]))
            .chain(m.live.get(first + k).map(|v| (m.time_ms, *v)));
        for (at, v) in points {
            if v.is_nan() {
                if !cur.is_empty() {
                    parts.push(std::mem::take(&mut cur));
                }
                continue;
            }
            cur.push_str(&format!("{:.1},{:.1} ", x(at), y(v)));
        }
        if !cur.is_empty() {
            parts.push(cur);
        }
        html! {
            <g class={format!("series s{k}")} data-name={s.name}>
                { for parts.into_iter().map(|pts| html! { <polyline points={pts} /> }) }
            </g>
        }
    });
    // The value each series has at the current moment.
    let legend = c.series.iter().enumerate().map(|(k, s)| {
        let v = live.get(k).copied();
        let agg = match s.agg {
            kafka_sim::metrics::Agg::Sum => t(lang, "metrics_sum"),
            kafka_sim::metrics::Agg::Max => t(lang, "metrics_max"),
        };
        html! {
            <li class={format!("s{k}")}>
                <span class="swatch" aria-hidden="true"></span>
                <span class="mono">{ s.name }</span>
                if s.attribute != s.name {
                    <wbr />
                    <span class="attr mono">{ format!(".{}", s.attribute) }</span>
                }
                <span class="agg">{ format!(" ({agg})") }</span>
                { ": " }<span class="mono">{ v.filter(|v| !v.is_nan()).map_or("–".into(), number) }</span>
            </li>
        }
    });
    let onclick = {
        // Any moment of the run so far, as the timeline allows.
        let samples = m.samples.clone();
        let cb = on_seek_to.clone();
        Callback::from(move |e: MouseEvent| {
            let Some(el) = e
                .current_target()
                .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            else {
                return;
            };
            let rect = el.get_bounding_client_rect();
            if rect.width() <= 0.0 {
                return;
            }
            let sx = (e.client_x() as f64 - rect.left()) / rect.width() * W;
            let t = (sx - PAD_L) / (W - PAD_L - 4.0) * end;
            if let Some(s) = nearest(&samples, t) {
                cb.emit(s.step);
            }
        })
    };
    let onkeydown = {
        let samples = m.samples.clone();
        let cb = on_seek_to.clone();
        let now = m.time_ms;
        Callback::from(move |e: KeyboardEvent| {
            let target = match e.key().as_str() {
                "ArrowLeft" => samples.iter().rev().find(|s| s.time_ms < now),
                "ArrowRight" => samples.iter().find(|s| s.time_ms > now),
                _ => return,
            };
            // The page's own ← / → step through events: not here.
            e.prevent_default();
            e.stop_propagation();
            if let Some(s) = target {
                cb.emit(s.step);
            }
        })
    };
    let title = t(lang, c.key);
    html! {
        <figure class="chart" id={format!("chart-{index}")} data-chart={c.key} tabindex="0"
            aria-label={format!("{title}. {}", t(lang, "metrics_chart_keys"))} {onkeydown}>
            <figcaption>{ title }</figcaption>
            <svg viewBox={format!("0 0 {W} {H}")} role="img" aria-hidden="true" {onclick}>
                <line class="axis" x1={PAD_L.to_string()} y1={(H - PAD_B).to_string()} x2={(W - 4.0).to_string()} y2={(H - PAD_B).to_string()} />
                <line class="axis" x1={PAD_L.to_string()} y1="6" x2={PAD_L.to_string()} y2={(H - PAD_B).to_string()} />
                <text class="tick" x={(PAD_L - 4.0).to_string()} y="12" text-anchor="end">{ number((label_top * 1000.0).round() / 1000.0) }</text>
                <text class="tick" x={(PAD_L - 4.0).to_string()} y={(H - PAD_B).to_string()} text-anchor="end">{ "0" }</text>
                <text class="tick" x={PAD_L.to_string()} y={(H - 3.0).to_string()}>{ "0 s" }</text>
                <text class="tick" x={(W - 4.0).to_string()} y={(H - 3.0).to_string()} text-anchor="end">{ format!("{} s", seconds(end)) }</text>
                { for lines }
                <line class="now" x1={x(m.time_ms).to_string()} y1="4" x2={x(m.time_ms).to_string()} y2={(H - PAD_B).to_string()} />
            </svg>
            <ul class="legend">{ for legend }</ul>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_sample_is_picked() {
        let s = |step, time_ms| Sample {
            step,
            time_ms,
            values: vec![],
        };
        let v = vec![s(1, 0), s(5, 100), s(9, 200)];
        assert_eq!(nearest(&v, 140.0).map(|s| s.step), Some(5));
        assert_eq!(nearest(&v, 160.0).map(|s| s.step), Some(9));
        assert_eq!(nearest(&[], 1.0), None);
    }
}
