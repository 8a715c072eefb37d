//! The shipped lessons (`static/lessons/`), natively: each one is listed in
//! the index, opens, finds every step's event, and every question's right
//! answer is among its choices and graded right; together they cover every
//! concept ID of the checklist.
#![cfg(not(target_arch = "wasm32"))]

use kafka_sim::collections::SortedSet;
use kafka_visualiser::io::lessons::{LessonIndex, LESSONS_DIR};
use kafka_visualiser::state::{load_scenario, LessonState};
use std::path::PathBuf;

/// The checklist's IDs (docs/concepts.md): (taught by the notes' lessons,
/// planned beyond the notes).
fn concepts() -> (SortedSet<String>, SortedSet<String>) {
    let text =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/concepts.md"))
            .unwrap();
    let (notes, beyond) = text
        .split_once("## Beyond the notes")
        .expect("docs/concepts.md has its \"Beyond the notes\" section");
    let ids = |t: &str| -> SortedSet<String> {
        t.lines()
            .filter_map(|l| l.strip_prefix("- "))
            .filter_map(|l| l.split_whitespace().next())
            .map(str::to_string)
            .collect()
    };
    (ids(notes), ids(beyond))
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(LESSONS_DIR)
}

fn index() -> LessonIndex {
    let text = std::fs::read_to_string(dir().join("index.json")).unwrap();
    LessonIndex::from_json(&text).unwrap()
}

/// Every shipped lesson: (file name, text), the library's in its order, then
/// the built-in examples that carry a lesson.
fn all_lessons() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = index()
        .lessons
        .iter()
        .map(|e| {
            (
                e.file.clone(),
                std::fs::read_to_string(dir().join(&e.file)).unwrap(),
            )
        })
        .collect();
    for file in kafka_visualiser::state::EXAMPLES {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios")
            .join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        if text.contains("\"lesson\"") {
            out.push((file.to_string(), text));
        }
    }
    out
}

#[test]
fn every_lesson_file_is_in_the_index_and_every_entry_exists() {
    let listed: SortedSet<String> = index().lessons.iter().map(|l| l.file.clone()).collect();
    let on_disk: SortedSet<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json") && n != "index.json")
        .collect();
    assert_eq!(listed, on_disk);
}

/// Opens one lesson, checks every step and grades every question; returns
/// its concepts and how many questions it asks.
fn check_lesson(file: &str, text: &str) -> (Vec<String>, usize) {
    let mut player = load_scenario(file, text).unwrap_or_else(|e| panic!("{e}"));
    let lesson = LessonState::load(&mut player)
        .unwrap_or_else(|e| panic!("{file}: {e}"))
        .unwrap_or_else(|| panic!("{file}: no lesson"));
    let mut questions = 0;
    let mut last = None;
    for (k, step) in lesson.lesson.steps.iter().enumerate() {
        lesson
            .target(k)
            .unwrap_or_else(|| panic!("{file}: step {k}: its event never happens"));
        // Steps follow the story in order: a narration where its event is,
        // a question where it stops.
        let at = if step.ask.is_some() {
            lesson.stop(k)
        } else {
            lesson.target(k)
        }
        .unwrap();
        assert!(
            last.is_none_or(|l| at >= l),
            "{file}: step {k} comes before step {}",
            k - 1
        );
        last = Some(at);
        if step.ask.is_some() {
            let (_, truth) = lesson.grade(&mut player, k, "").unwrap();
            assert!(
                step.choices.contains(&truth),
                "{file}: step {k}: the engine says {truth:?}, not among {:?}",
                step.choices
            );
            assert_eq!(
                lesson.grade(&mut player, k, &truth),
                Some((true, truth.clone()))
            );
            let wrong = step.choices.iter().find(|c| **c != truth).unwrap();
            assert_eq!(
                lesson.grade(&mut player, k, wrong).map(|g| g.0),
                Some(false)
            );
            questions += 1;
        }
    }
    // The whole scenario runs to its end.
    while player.step_significant() {}
    assert!(player.at_end(), "{file}");
    (lesson.lesson.concepts.clone(), questions)
}

#[test]
fn every_lesson_plays_to_the_end_and_every_question_is_answered_right_by_the_engine() {
    let mut covered = SortedSet::new();
    let mut questions = 0;
    for entry in index().lessons {
        let text = std::fs::read_to_string(dir().join(&entry.file)).unwrap();
        let title = kafka_sim::Scenario::from_json(&text).unwrap().name;
        assert_eq!(
            title, entry.title.en,
            "{}: the index's title is the scenario's name",
            entry.file
        );
        let (concepts, n) = check_lesson(&entry.file, &text);
        assert_eq!(
            concepts, entry.concepts,
            "{}: the index lists the lesson's concepts",
            entry.file
        );
        covered.extend(concepts);
        questions += n;
    }
    // The built-in examples' lessons (the page's Examples menu) count too.
    for file in kafka_visualiser::state::EXAMPLES {
        let text = &std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("scenarios")
                .join(file),
        )
        .unwrap();
        if serde_json::from_str::<serde_json::Value>(text)
            .unwrap()
            .get("lesson")
            .is_some()
        {
            let (concepts, n) = check_lesson(file, text);
            covered.extend(concepts);
            questions += n;
        }
    }
    let (notes, beyond) = concepts();
    for c in &notes {
        assert!(covered.contains(c), "no lesson teaches {c}");
    }
    for c in &covered {
        assert!(
            notes.contains(c) || beyond.contains(c),
            "a lesson names {c}, which docs/concepts.md does not list"
        );
    }
    assert!(questions >= 40, "only {questions} questions");
}

#[test]
fn the_checklist_is_in_the_repository_with_every_id_once() {
    let (notes, beyond) = concepts();
    assert_eq!(
        notes.len(),
        37,
        "C1-C5, R1-R7, S1-S7, P1-P6, G1-G12: {notes:?}"
    );
    for id in ["T1", "T2", "T3", "A1", "M1", "M2"] {
        assert!(beyond.contains(id), "{id} is missing from docs/concepts.md");
    }
    assert!(notes.iter().all(|id| !beyond.contains(id)));
}

/// Where each question of `file` stops, and where its decision is carried
/// out, by position in the trace (not by searching text: an answer like "0"
/// is everywhere). The decision of a question whose answer is event `A`:
/// - `A` and the events just before it from the same handler run (same
///   cause, same instant): the controller writes the partition state and
///   then reports the election; a coordinator stores the assignment and then
///   reports it;
/// - if `A` happened because a response arrived, that response's send and
///   its handler run (the coordinator's `SyncGroupResponse` carries the
///   assignment, the leader's `ProduceResponse` the offset);
/// - up `A`'s causal chain (a few hops, back to what earlier steps showed),
///   the handler run where Kafka made the choice `A` reports ([`DECIDING`]:
///   the group leader's assignor run, the leader's ISR proposal).
///
/// The page's cursor stands at the question's stop while it asks
/// (`state::tests::every_shipped_lesson_plays_to_its_end_with_continue_alone`
/// checks it) and every view is derived from the world at the cursor, so a
/// stop before the whole decision means no caption, log line, highlight or
/// table shows it until the answer is given.
/// Where a Kafka role makes the choice that a later event reports: (the
/// reported event, the deciding one). The group leader runs the assignor
/// before a member reports its partitions; the partition leader proposes an
/// ISR before it applies it; a consumer sends its commit before the
/// coordinator reports it committed.
const DECIDING: [(&str, &str); 3] = [
    ("partitions_assigned", "assignment_computed"),
    ("isr_change_applied", "isr_change_proposed"),
    ("offsets_committed", "offset_commit_sent"),
];

fn question_positions(file: &str, text: &str) -> Vec<String> {
    let mut player = load_scenario(file, text).unwrap_or_else(|e| panic!("{e}"));
    let lesson = LessonState::load(&mut player)
        .unwrap_or_else(|e| panic!("{file}: {e}"))
        .unwrap();
    let end = player.known_len();
    player.seek(end);
    let events = player.past();
    let index_of = |id: u64| events.iter().position(|e| e.id == id);
    // The first event of the handler run that ends at `i`.
    let run_start = |i: usize| {
        let mut j = i;
        while j > 0
            && events[j - 1].cause == events[i].cause
            && events[j - 1].time_ms == events[i].time_ms
        {
            j -= 1;
        }
        j
    };
    let mut problems = Vec::new();
    // Earlier steps: the furthest question stop, and the furthest event a
    // step showed (a narration's, or a question's once answered). A
    // question may share the stop of the question before it (asked one
    // after the other, both before either decision), never an earlier one.
    let (mut last_stop, mut shown): (Option<usize>, Option<usize>) = (None, None);
    for (k, step) in lesson.lesson.steps.iter().enumerate() {
        let a = lesson.target(k).unwrap() as usize;
        if step.ask.is_none() {
            shown = shown.max(Some(a));
            continue;
        }
        let stop = lesson.stop(k).unwrap() as usize;
        let mut decision = vec![run_start(a)];
        // Up the causal chain (a few hops, within what this question may
        // hide): the response that carried the result, and the handler run
        // where Kafka made the choice.
        let deciding = DECIDING
            .iter()
            .find(|(reported, _)| events[a].kind.name_str() == *reported)
            .map(|(_, d)| *d);
        let mut at = a;
        for hop in 0..4 {
            let Some(x) = events[at].cause.and_then(index_of) else {
                break;
            };
            if Some(x) <= last_stop.max(shown) {
                break;
            }
            // (The page's trace keeps messages without their record bytes,
            // so it is read, not written as JSON.)
            let response = matches!(
                &events[x].kind,
                kafka_sim::event::EventKind::MessageSent { message, .. }
                    if message.api().ends_with("Response")
            );
            let start = run_start(x);
            let decides =
                deciding.is_some_and(|d| events[start..=x].iter().any(|e| e.kind.name_str() == d));
            if (response && hop == 0) || decides {
                decision.push(start);
            }
            at = x;
        }
        let first = *decision.iter().min().unwrap();
        let ask = &step.ask.as_ref().unwrap().en;
        // A question to the finder is answered by a search, not by its
        // event: nothing on screen decides it.
        let finder = step
            .answer
            .as_deref()
            .is_some_and(kafka_sim::lesson_check::is_explore);
        if stop > first && !finder {
            problems.push(format!(
                "{file} step {k} ({ask:.60}…): stops at event {stop}, after its decision began at {first} ({})",
                events[first].caption(kafka_sim::Lang::En)
            ));
        }
        if last_stop.is_some_and(|s| stop < s) || shown.is_some_and(|s| stop <= s) {
            problems.push(format!(
                "{file} step {k}: stops at {stop}, before what an earlier step showed ({last_stop:?}, {shown:?})"
            ));
        }
        last_stop = last_stop.max(Some(stop));
    }
    problems
}

#[test]
fn every_question_stops_before_its_decision_is_carried_out() {
    let mut problems = Vec::new();
    for (file, text) in all_lessons() {
        problems.extend(question_positions(&file, &text));
    }
    assert!(
        problems.is_empty(),
        "{} questions are asked after their decision is on screen:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// How far (in non-routine events) a step may be from a key beat and still
/// narrate it.
const BEAT_REACH: usize = 30;

/// Every key beat of every lesson is narrated or asked about: a beat is a
/// run of key events (elections, failures, broken guarantees, ISR changes,
/// truncations, rebalances; the scenario's own commands aside) no more than
/// 200 ms apart, and some step must sit within [`BEAT_REACH`] non-routine
/// events of it, before, inside or after. Positions, not text: a narration
/// counts where its event is, a question where it stops.
#[test]
fn every_key_beat_of_every_lesson_is_narrated() {
    use kafka_sim::event::{EventKind, Importance};
    let mut problems = Vec::new();
    for (file, text) in all_lessons() {
        let mut player = load_scenario(&file, &text).unwrap();
        let lesson = LessonState::load(&mut player).unwrap().unwrap();
        let end = player.known_len();
        player.seek(end);
        let events = player.past();
        let positions: Vec<usize> = (0..lesson.lesson.steps.len())
            .map(|k| {
                if lesson.lesson.steps[k].ask.is_some() {
                    lesson.stop(k)
                } else {
                    lesson.target(k)
                }
                .unwrap() as usize
            })
            .collect();
        let significant = |a: usize, b: usize| {
            events[a.min(b)..b.max(a)]
                .iter()
                .filter(|e| e.kind.importance() != Importance::Routine)
                .count()
        };
        let mut beats: Vec<(usize, usize)> = Vec::new();
        for (i, e) in events.iter().enumerate() {
            if e.kind.importance() != Importance::Key
                || matches!(e.kind, EventKind::CommandIssued { .. })
            {
                continue;
            }
            match beats.last_mut() {
                Some((_, last)) if e.time_ms <= events[*last].time_ms + 200 => *last = i,
                _ => beats.push((i, i)),
            }
        }
        for (first, last) in beats {
            let told = positions.iter().any(|&p| {
                (first..=last + 1).contains(&p)
                    || (p < first && significant(p, first) <= BEAT_REACH)
                    || (p > last && significant(last, p) <= BEAT_REACH)
            });
            if !told {
                problems.push(format!(
                    "{file}: nothing narrates #{first} ({})",
                    events[first].caption(kafka_sim::Lang::En)
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} key beats without a narration or question near them:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Every lesson (and example lesson) is in chapters: at least two, the first
/// step opens one, each titled in both languages, in story order.
#[test]
fn every_lesson_is_in_titled_chapters() {
    for (file, text) in all_lessons() {
        let mut player = load_scenario(&file, &text).unwrap();
        let lesson = LessonState::load(&mut player).unwrap().unwrap();
        let steps = &lesson.lesson.steps;
        assert!(
            steps[0].chapter.is_some(),
            "{file}: the first step opens a chapter"
        );
        let chapters = lesson.chapters();
        assert!(chapters.len() >= 2, "{file}: {} chapter(s)", chapters.len());
        for (k, _) in &chapters {
            let c = steps[*k].chapter.as_ref().unwrap();
            assert!(
                !c.en.trim().is_empty() && !c.zh.trim().is_empty(),
                "{file}: step {k}"
            );
        }
        assert!(
            chapters.windows(2).all(|w| w[0].1 < w[1].1),
            "{file}: chapters in story order: {chapters:?}"
        );
    }
}

/// Every string a learner reads in a lesson file (all but `concepts` and
/// the scenario's machine fields), with where it is.
fn learner_strings(v: &serde_json::Value, at: &str, out: &mut Vec<(String, String)>) {
    match v {
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                if k != "concepts" {
                    learner_strings(x, &format!("{at}.{k}"), out);
                }
            }
        }
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                learner_strings(x, &format!("{at}[{i}]"), out);
            }
        }
        serde_json::Value::String(s) if at.ends_with(".en") || at.ends_with(".zh") => {
            out.push((at.to_string(), s.clone()));
        }
        _ => {}
    }
}

/// A checklist ID in brackets, "(C1)", "(R2, R3)" or "（C1、C3）": the IDs
/// belong in the docs, not in what a learner reads.
fn concept_code(s: &str) -> Option<&str> {
    let mut rest = s;
    while let Some(i) = rest.find(['(', '（']) {
        let open = rest[i..].chars().next().unwrap().len_utf8();
        let inner = &rest[i + open..];
        let end = inner.find([')', '）']).unwrap_or(inner.len());
        let body = &inner[..end];
        let ids = body.split([',', '，', '、']).map(str::trim).any(|id| {
            let mut c = id.chars();
            c.next().is_some_and(|l| l.is_ascii_uppercase())
                && (1..=2).contains(&c.clone().count())
                && c.all(|d| d.is_ascii_digit())
        });
        if ids && !body.is_empty() {
            return Some(&rest[i..i + open + end]);
        }
        rest = inner;
    }
    None
}

#[test]
fn no_checklist_id_and_no_opener_copied_across_lessons_in_what_a_learner_reads() {
    assert_eq!(concept_code("x (C1)."), Some("(C1"));
    assert_eq!(concept_code("（C1、C3）"), Some("（C1、C3"));
    assert_eq!(concept_code("(R2, R3)"), Some("(R2, R3"));
    assert_eq!(concept_code("(P2, KIP-480/794)"), Some("(P2, KIP-480/794"));
    assert_eq!(concept_code("(t0-0, t0-1)"), None);
    assert_eq!(concept_code("(ISR)"), None);
    let mut said: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for (file, text) in all_lessons() {
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut strings = Vec::new();
        learner_strings(&v, "", &mut strings);
        assert!(strings.len() > 10, "{file}: {} strings", strings.len());
        for (at, s) in strings {
            if let Some(code) = concept_code(&s) {
                panic!("{file}{at}: the checklist ID {code}) in the learner's text: {s}");
            }
            if at.contains(".say.") {
                said.entry(s).or_default().push(file.clone());
            }
        }
    }
    for (s, files) in said {
        assert!(files.len() <= 2, "the same narration in {files:?}: {s}");
    }
}

/// The README counts the lessons and questions there are.
#[test]
fn the_readme_counts_the_lessons_and_questions_shipped() {
    let readme =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("README.md"))
            .unwrap();
    let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let lessons = index().lessons.len();
    let questions: usize = all_lessons()
        .iter()
        .map(|(_, text)| {
            let v: serde_json::Value = serde_json::from_str(text).unwrap();
            v["lesson"]["steps"]
                .as_array()
                .map_or(0, |s| s.iter().filter(|s| s.get("ask").is_some()).count())
        })
        .sum();
    for want in [
        format!("{lessons} guided lessons"),
        format!("{questions} questions in all"),
    ] {
        assert!(readme.contains(&want), "README.md does not say \"{want}\"");
    }
}

/// The numbers a lesson quotes from its run are the run's: every "…NNN"
/// timestamp is the last digits of a record's timestamp in the trace, and
/// in a lesson about the index, every "A → B" pair of numbers is an index
/// or time index entry the trace wrote or probed. (storage-lookup once
/// said records were written at "…100" when the first was …120, and named
/// an index empty that the run had given an entry.)
#[test]
fn the_timestamps_and_index_entries_a_lesson_quotes_are_the_runs() {
    let tail = |s: &str| -> Vec<String> {
        let mut out = Vec::new();
        for (i, _) in s.match_indices('…') {
            let digits: String = s[i + '…'.len_utf8()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if digits.len() >= 3 {
                out.push(digits);
            }
        }
        out
    };
    let pairs = |s: &str| -> Vec<String> {
        let w: Vec<&str> = s
            .split(|c: char| {
                c.is_whitespace()
                    || matches!(c, ',' | '，' | '(' | ')' | '（' | '）' | ':' | '：' | ';')
            })
            .filter(|w| !w.is_empty())
            .collect();
        w.windows(3)
            .filter(|x| x[1] == "→")
            .map(|x| {
                let n = |t: &str| {
                    t.trim_start_matches('…')
                        .trim_end_matches(['.', '。'])
                        .to_string()
                };
                (n(x[0]), n(x[2]))
            })
            .filter(|(a, b)| {
                !a.is_empty()
                    && !b.is_empty()
                    && (a.chars().chain(b.chars())).all(|c| c.is_ascii_digit())
            })
            .map(|(a, b)| format!("{a} → {b}"))
            .collect()
    };
    let mut checked = 0;
    for (file, text) in all_lessons() {
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut strings = Vec::new();
        learner_strings(&v["lesson"], "", &mut strings);
        let quoted_times: Vec<String> = strings.iter().flat_map(|(_, s)| tail(s)).collect();
        let about_index = strings.iter().any(|(_, s)| s.contains(".index"));
        let quoted_pairs: Vec<String> = if about_index {
            strings.iter().flat_map(|(_, s)| pairs(s)).collect()
        } else {
            Vec::new()
        };
        if quoted_times.is_empty() && quoted_pairs.is_empty() {
            continue;
        }
        let mut p = load_scenario(&file, &text).unwrap();
        while p.step() {}
        let captions: Vec<String> = p
            .past()
            .iter()
            .map(|e| e.caption(kafka_sim::Lang::En))
            .collect();
        let all = captions.join("\n");
        // (The page's trace elides record bytes: events carrying them do
        // not serialize, and the appends, which carry the timestamps, do.)
        let json: String = p
            .past()
            .iter()
            .filter_map(|e| serde_json::to_string(e).ok())
            .collect();
        for t in quoted_times {
            assert!(
                json.contains(&format!("17000000{t:0>5}")),
                "{file}: no record in the run has a timestamp ending …{t}"
            );
            checked += 1;
        }
        // Time index entries are captioned with whole timestamps.
        let shortened = all.replace("1700000000", "");
        for pair in quoted_pairs {
            assert!(
                all.contains(&pair) || shortened.contains(&pair),
                "{file}: the run wrote or probed no index entry {pair}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked}");
}

/// Claims the lessons once got wrong, each checked where it can recur:
/// a 3.9 follower does not send OffsetsForLeaderEpoch (it learns the
/// divergence from its Fetch answer); unclean election trades availability
/// for durability; onAcknowledgement runs before the record's callback
/// (the run's own order, read from the trace).
#[test]
fn claims_once_wrong_stay_right() {
    for (file, text) in all_lessons() {
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut strings = Vec::new();
        learner_strings(&v, "", &mut strings);
        for (at, s) in &strings {
            if s.contains("OffsetsForLeaderEpoch") {
                assert!(
                    s.contains("before Kafka 2.7") || s.contains("Kafka 2.7 之前"),
                    "{file}{at}: OffsetsForLeaderEpoch is what followers did before Kafka 2.7: {s}"
                );
            }
            for wrong in [
                "Consistency or durability",
                "一致性还是持久性",
                "Consistency, not durability",
            ] {
                assert!(!s.contains(wrong), "{file}{at}: {wrong}: {s}");
            }
            if s.contains("onAcknowledgement") && s.contains("ran last") {
                panic!("{file}{at}: onAcknowledgement runs before the callback: {s}");
            }
            // The notes' 200 KB/s random writes beside Kafka's own 100 KB/s.
            if s.contains("200 KB/s") {
                assert!(
                    s.contains("100 KB/s"),
                    "{file}{at}: give Kafka's measurement too: {s}"
                );
            }
            // sendfile is not used with TLS.
            if s.contains("sendfile") && at.ends_with(".en") {
                assert!(
                    s.contains("TLS"),
                    "{file}{at}: zero-copy does not apply with TLS: {s}"
                );
            }
            // Dirty pages are written back by age (dirty_expire_centisecs);
            // dirty_writeback_centisecs is only the flusher's wake-up.
            if s.contains("dirty_writeback_centisecs") {
                assert!(s.contains("dirty_expire_centisecs"), "{file}{at}: {s}");
            }
            // Kafka-stored offsets came with 0.8.2, before 0.9.
            if s.contains("0.9") && s.contains("ZooKeeper") && s.contains("offset") {
                assert!(
                    s.contains("0.8.2"),
                    "{file}{at}: 0.8.2 already stored offsets in Kafka: {s}"
                );
            }
            // Transactions cover Kafka writes and offsets, not a database.
            if s.contains("database") && s.contains("xactly-once") {
                assert!(
                    s.contains("Kafka's exactly-once does not reach") || s.contains("written to Kafka"),
                    "{file}{at}: Kafka's transactions do not make a database write exactly-once: {s}"
                );
            }
        }
        // In the run, a record's interceptors acknowledge it before it is
        // reported acknowledged (its callback).
        if text.contains("interceptor.classes") {
            let mut p = load_scenario(&file, &text).unwrap();
            while p.step() {}
            let kinds: Vec<&str> = p.past().iter().map(|e| e.kind.name_str()).collect();
            let first_ack = kinds
                .iter()
                .position(|k| *k == "record_acknowledged")
                .unwrap();
            assert_eq!(
                kinds[first_ack - 1],
                "interceptor_acknowledged",
                "{file}: the record was acknowledged before its interceptors ran"
            );
        }
    }
}

/// A leader reports a follower's divergence at most twice for the same
/// partition, epoch and offset (a report, and one crossing with it): the
/// follower's truncation removes the epoch it fetched with, as
/// UnifiedLog.truncateTo does even when no record is cut. (Lesson 1 once
/// ended with follower 2 told, every 5 ms, that empty logs diverged.)
#[test]
fn a_divergence_is_reported_once_not_in_a_loop() {
    let mut reports = 0;
    for (file, text) in all_lessons() {
        let mut p = load_scenario(&file, &text).unwrap();
        while p.step() {}
        let mut seen: std::collections::BTreeMap<String, usize> = Default::default();
        for e in p.past() {
            if e.kind.name_str() == "divergence_detected" {
                reports += 1;
                let key = e.caption(kafka_sim::Lang::En);
                let n = seen.entry(key.clone()).or_default();
                *n += 1;
                assert!(*n <= 2, "{file}: {key} ({n} times)");
            }
        }
    }
    assert!(
        reports > 0,
        "no lesson shows a divergence: the test reads nothing"
    );
}
