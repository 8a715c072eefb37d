//! 中文 everywhere, natively: every caption of every shipped lesson and
//! example in 中文, every lesson text, every practice question and
//! explanation (200 per template and level) and the page's own words use
//! Chinese or docs/glossary.md's kept terms. The browser test
//! (`tests/app.rs`) checks what the page shows on top of this.
#![cfg(not(target_arch = "wasm32"))]

#[path = "support/glossary.rs"]
mod glossary;

use glossary::{english_words, kept_terms, report, scenario_names};
use kafka_sim::names::ClientNames;
use kafka_sim::Lang;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every shipped scenario: the lessons and the examples.
fn shipped() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in ["static/lessons", "scenarios"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if name.ends_with(".json") && name != "index.json" {
                out.push((name, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_caption_in_chinese_is_chinese_or_a_kept_term() {
    let kept = kept_terms();
    let mut offenders = BTreeMap::new();
    for (file, text) in shipped() {
        let names = scenario_names(&text);
        let scenario = kafka_sim::Scenario::from_json(&text).unwrap();
        let mut clients: Option<ClientNames> = None;
        kafka_sim::timeline::stream(scenario, |e, w| {
            let c = clients.get_or_insert_with(|| ClientNames::from_world(w));
            c.update(w);
            let caption = c.apply(&e.caption(Lang::Zh));
            for word in english_words(&caption, &kept, &names) {
                offenders
                    .entry(word)
                    .or_insert_with(|| format!("{file} #{}: {caption}", e.id));
            }
            true
        })
        .unwrap();
    }
    report(&offenders, "captions");
}

#[test]
fn every_lesson_text_in_chinese_is_chinese_or_a_kept_term() {
    let kept = kept_terms();
    let mut offenders = BTreeMap::new();
    let mut check = |text: &str, names: &[String], at: String| {
        assert!(!text.trim().is_empty(), "{at}: no Chinese text");
        for word in english_words(text, &kept, names) {
            offenders
                .entry(word)
                .or_insert_with(|| format!("{at}: {text}"));
        }
    };
    for (file, text) in shipped() {
        let names = scenario_names(&text);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let Some(lesson) = v.get("lesson") else {
            continue;
        };
        for k in ["setup", "goal", "takeaway"] {
            if let Some(t) = lesson[k]["zh"].as_str() {
                check(t, &names, format!("{file} {k}"));
            }
        }
        for (i, s) in lesson["steps"].as_array().unwrap().iter().enumerate() {
            for k in ["say", "ask", "explain"] {
                if s.get(k).is_some() {
                    let t = s[k]["zh"].as_str().unwrap_or("");
                    check(t, &names, format!("{file} step {i} {k}"));
                }
            }
            // A choice reads as its 中文 label, or as written when it has none.
            let zh = s["choices_zh"].as_array().cloned().unwrap_or_default();
            for (j, c) in s["choices"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                let label = zh.get(j).and_then(|z| z.as_str()).filter(|z| !z.is_empty());
                let t = label.or(c.as_str()).unwrap_or("");
                check(t, &names, format!("{file} step {i} choice {j}"));
            }
        }
    }
    let index: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("static/lessons/index.json")).unwrap(),
    )
    .unwrap();
    for l in index["lessons"].as_array().unwrap() {
        for k in ["title", "summary"] {
            let t = l[k]["zh"].as_str().unwrap_or("");
            check(t, &[], format!("index {} {k}", l["file"]));
        }
    }
    report(&offenders, "lessons");
}

#[test]
fn every_practice_question_in_chinese_is_chinese_or_a_kept_term() {
    use kafka_sim::exercises::{generate, Kind, Level};
    let kept = kept_terms();
    let mut offenders = BTreeMap::new();
    for kind in Kind::ALL {
        for level in [Level::Easy, Level::Medium, Level::Hard] {
            for seed in 0..200 {
                let e = generate(kind, level, seed);
                for text in [&e.question_zh, &e.explanation_zh] {
                    // The drawn keys and group names are data.
                    let names: Vec<String> = match &e.instance {
                        kafka_sim::exercises::Instance::Partition { key, .. } => vec![key.clone()],
                        kafka_sim::exercises::Instance::Coordinator { group, .. } => {
                            vec![group.clone()]
                        }
                        _ => Vec::new(),
                    };
                    for word in english_words(text, &kept, &names) {
                        offenders
                            .entry(word)
                            .or_insert_with(|| format!("{} {level:?} {seed}: {text}", kind.name()));
                    }
                }
            }
        }
    }
    report(&offenders, "practice");
}

#[test]
fn every_word_of_the_page_in_chinese_is_chinese_or_a_kept_term() {
    let kept = kept_terms();
    let mut offenders = BTreeMap::new();
    for (key, _, zh) in kafka_visualiser::i18n::all_words() {
        for word in english_words(zh, &kept, &[]) {
            offenders
                .entry(word)
                .or_insert_with(|| format!("i18n {key}: {zh}"));
        }
    }
    report(&offenders, "page words");
}
