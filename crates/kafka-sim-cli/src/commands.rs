//! The subcommands. Each returns `Err(one line)` on bad input.

use crate::cli::{Cmd, DescribeArgs, LangArg, MetricsArgs, RunArgs};
use crate::outln;
use kafka_sim::{Lang, Scenario};
use std::io::{Read, Write};

/// Parses a JSON request, naming the field at fault.
pub fn parse_request<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let v = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            format!("bad request: {}", e.into_inner())
        } else {
            format!("bad request: {path}: {}", e.into_inner())
        }
    })?;
    // Nothing but white space may follow the request.
    de.end()
        .map_err(|e| format!("bad request: something follows the JSON request: {e}"))?;
    Ok(v)
}

pub type Res = Result<(), String>;

pub fn dispatch(cmd: Cmd) -> Res {
    match cmd {
        Cmd::Run(a) => run(a),
        Cmd::Digest(a) => digest(&a.scenario),
        Cmd::Segments(a) => crate::storage_cmds::segments(a),
        Cmd::DumpLog(a) => crate::storage_cmds::dump_log(&a.files, a.cluster_metadata_decoder),
        Cmd::Lookup(a) => crate::storage_cmds::lookup(a),
        Cmd::Place(a) => crate::cluster_cmds::place(a.json),
        Cmd::Elect(a) => crate::cluster_cmds::elect(a.json),
        Cmd::Partition(a) => crate::cluster_cmds::partition(a),
        Cmd::Coordinator(a) => crate::cluster_cmds::coordinator(a),
        Cmd::Assign(a) => crate::cluster_cmds::assign(a),
        Cmd::Exercise(a) => crate::cluster_cmds::exercise(a),
        Cmd::Describe(a) => describe(a),
        Cmd::Metrics(a) => metrics(a),
        Cmd::Explore(a) => crate::explore_cmd::explore(a),
        Cmd::ComparePlanes(a) => compare_planes(a),
        Cmd::Completions(a) => {
            use clap::CommandFactory;
            let mut out = Vec::new();
            clap_complete::generate(
                a.shell,
                &mut crate::cli::Cli::command(),
                "kafka-sim",
                &mut out,
            );
            crate::out::text(&String::from_utf8_lossy(&out))
        }
    }
}

pub(crate) fn load_scenario(path: &str) -> Result<Scenario, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: cannot read: {e}"))?;
    Scenario::from_json(&text).map_err(|e| {
        if e.field.is_empty() {
            format!("{path}: {}", e.message)
        } else {
            format!("{path}: {}: {}", e.field, e.message)
        }
    })
}

/// `kafka-sim describe SCENARIO.json [--at STEP] topics|groups`: the
/// admin tools' views (`kafka-topics --describe`,
/// `kafka-consumer-groups --describe`) after STEP events (default: the end).
fn describe(a: DescribeArgs) -> Res {
    let DescribeArgs {
        scenario: path,
        what,
        at,
        topic,
        exclude_internal,
        group,
        members,
        verbose,
        state,
    } = a;
    let topic = topic.as_deref();
    let group = group.as_deref();
    let what = what.ok_or("say what to describe: topics, groups or quorum")?;
    let what = what.as_str();
    if !matches!(what, "topics" | "groups" | "quorum") {
        return Err(format!("`{what}` is not topics, groups or quorum"));
    }
    if what == "quorum"
        && (topic.is_some() || exclude_internal || group.is_some() || members || verbose || state)
    {
        return Err("quorum takes no --topic, --group or other option (kafka-metadata-quorum describe --status)".into());
    }
    if what == "topics" && group.is_some() {
        return Err("--group goes with groups, not topics".into());
    }
    if what == "groups" && (topic.is_some() || exclude_internal) {
        return Err("--topic and --exclude-internal go with topics, not groups".into());
    }
    if what == "topics" && (members || verbose || state) {
        return Err("--members, --verbose and --state go with groups, not topics".into());
    }
    if members && state {
        return Err("give one of --members and --state (as kafka-consumer-groups does)".into());
    }
    if verbose && !members {
        return Err("--verbose goes with --members".into());
    }
    let sc = load_scenario(&path)?;
    let (_, w) = world_at(sc, &path, at)?;
    let text = match what {
        "quorum" => kafka_sim::describe::quorum(&w)?,
        "topics" => kafka_sim::describe::topics(&w, topic, exclude_internal),
        _ if members => kafka_sim::describe::group_members(&w, group, verbose),
        _ if state => kafka_sim::describe::group_states(&w, group),
        _ => kafka_sim::describe::groups(&w, group),
    };
    crate::out::text(&text)
}

/// Most samples `kafka-sim metrics --every` prints (a run of a day read
/// every millisecond would print for hours).
const MAX_SAMPLES: u64 = 100_000;

/// `kafka-sim metrics SCENARIO.json [--at STEP | --every MS] [--json | --csv]
/// [--name NAME]...`: Kafka's metrics under their JMX names.
fn metrics(a: MetricsArgs) -> Res {
    let MetricsArgs {
        scenario,
        at,
        every,
        json,
        csv,
        name: names,
        list,
    } = a;
    for n in &names {
        if kafka_sim::metrics::def(n).is_none() {
            return Err(format!(
                "--name {n}: no such metric (see kafka-sim metrics --list)"
            ));
        }
    }
    if list {
        if let Some(x) = &scenario {
            return Err(format!("unexpected argument `{x}` (--list takes none)"));
        }
        for d in kafka_sim::metrics::defs() {
            outln!(
                "{}\n    {}\n    {}\n    computed: {}\n    mirrors: {}",
                d.name,
                d.mbean,
                d.meaning,
                d.computed,
                d.mirrors
            );
        }
        return Ok(());
    }
    if json && csv {
        return Err("give one of --json and --csv".into());
    }
    if at.is_some() && every.is_some() {
        return Err("give one of --at and --every".into());
    }
    let path = scenario.ok_or("missing SCENARIO.json (see kafka-sim metrics --help)")?;
    let path = path.as_str();
    let sc = load_scenario(path)?;
    let out = std::io::stdout();
    let mut out = out.lock();
    let keep =
        |r: &kafka_sim::metrics::Reading| names.is_empty() || names.iter().any(|n| n == r.name);
    let format = if json {
        Format::Json
    } else if csv {
        Format::Csv
    } else {
        Format::Text
    };
    if let Some(ms) = every {
        if ms == 0 {
            return Err("--every: the interval must be at least 1 ms".into());
        }
        let samples = sc.run_until_ms / ms + 1;
        if samples > MAX_SAMPLES {
            return Err(format!(
                "--every {ms}: the run lasts {} ms, which makes {samples} samples; at most {MAX_SAMPLES} are printed (take a larger interval)",
                sc.run_until_ms
            ));
        }
        if format == Format::Csv {
            writeln!(out, "{CSV_HEADER}").map_err(write_error)?;
        }
        let mut failed = None;
        let stopped = kafka_sim::metrics::every(sc, ms, |step, t, readings| {
            if failed.is_none() {
                let rows: Vec<_> = readings.into_iter().filter(keep).collect();
                failed = print_readings(&mut out, format, step, t, &rows).err();
            }
        })
        .map_err(|e| format!("{path}: {e}"))?;
        if let Some(e) = failed {
            return Err(write_error(e));
        }
        if let Some(why) = stopped {
            return Err(format!("{path}: {why}"));
        }
        return Ok(());
    }
    let (step, w) = world_at(sc, path, at)?;
    let rows: Vec<_> = kafka_sim::metrics::read(&w)
        .into_iter()
        .filter(keep)
        .collect();
    if format == Format::Csv {
        writeln!(out, "{CSV_HEADER}").map_err(write_error)?;
    }
    let time = w.metrics().last_event_ms();
    print_readings(&mut out, format, step, time, &rows).map_err(write_error)
}

const CSV_HEADER: &str = "step,time_ms,node,mbean,attribute,value";

#[derive(Clone, Copy, PartialEq)]
enum Format {
    Text,
    Json,
    Csv,
}

fn write_error(e: std::io::Error) -> String {
    crate::out::failed(e)
}

/// A value for a machine: every digit (the shortest text that reads back
/// as the same number), NaN as `NaN`.
fn exact(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else {
        format!("{v}")
    }
}

fn print_readings(
    out: &mut impl Write,
    format: Format,
    step: u64,
    time_ms: u64,
    rows: &[kafka_sim::metrics::Reading],
) -> std::io::Result<()> {
    match format {
        Format::Text => {
            writeln!(out, "after {step} events, at {time_ms} ms:")?;
            let width = rows.iter().map(|r| r.mbean.len()).max().unwrap_or(0);
            for r in rows {
                writeln!(
                    out,
                    "  {:<12} {:<width$}  {:<20} {}",
                    r.node.to_string(),
                    r.mbean,
                    r.attribute,
                    kafka_sim::metrics::display(r.value)
                )?;
            }
        }
        Format::Csv => {
            for r in rows {
                // Every MBean name holds commas: quoted, as RFC 4180 says.
                writeln!(
                    out,
                    "{step},{time_ms},{},\"{}\",{},{}",
                    r.node,
                    r.mbean.replace('"', "\"\""),
                    r.attribute,
                    exact(r.value)
                )?;
            }
        }
        Format::Json => {
            for r in rows {
                let v = serde_json::json!({
                    "step": step,
                    "time_ms": time_ms,
                    "node": r.node.to_string(),
                    "mbean": r.mbean,
                    "attribute": r.attribute,
                    // JSON has no NaN: null stands for it.
                    "value": if r.value.is_nan() { serde_json::Value::Null } else { serde_json::json!(r.value) },
                });
                writeln!(out, "{v}")?;
            }
        }
    }
    Ok(())
}

/// The world after `at` events of the scenario at `path` (default: the end).
fn world_at(sc: Scenario, path: &str, at: Option<u64>) -> Result<(u64, kafka_sim::World), String> {
    let mut t = kafka_sim::Timeline::headless(sc).map_err(|e| format!("{path}: {e}"))?;
    let end = t.run_to_end();
    if let Some(why) = t.stopped_early() {
        return Err(format!("{path}: {why}"));
    }
    let step = at.unwrap_or(end);
    if step > end {
        return Err(format!("--at {step}: the run has {end} events"));
    }
    Ok((step, t.state_at(step)))
}

fn run(a: RunArgs) -> Res {
    let RunArgs {
        scenario: path,
        json,
        lang,
        all,
        write_metadata_log,
    } = a;
    let path = path.as_str();
    let lang = match lang {
        LangArg::En => Lang::En,
        LangArg::Zh => Lang::Zh,
    };
    let sc = load_scenario(path)?;
    let out = std::io::stdout();
    let mut out = out.lock();
    // A lesson's questions must have answers the page can read off their
    // events (the page checks the same when it opens the lesson).
    let mut answers = match &sc.lesson {
        Some(l) => {
            let lesson =
                kafka_sim::lesson::Lesson::from_value(l).map_err(|e| format!("{path}: {e}"))?;
            kafka_sim::lesson_check::check_finder_questions(&sc, &lesson)
                .map_err(|e| format!("{path}: {e}"))?;
            Some(kafka_sim::lesson_check::AnswerCheck::new(&lesson))
        }
        None => None,
    };
    let mut lesson_error = None;
    let mut names = kafka_sim::names::ClientNames::default();
    // Streamed: each event is printed as it is recorded and then dropped,
    // so a day-long run takes the memory of one world, not of its trace.
    if write_metadata_log.is_some() && !sc.kafka_version.is_kraft() {
        return Err(format!(
            "{path}: --write-metadata-log needs a Kafka 4.1 scenario (\"kafka_version\": \"4.1\"): Kafka 3.9 keeps its metadata in ZooKeeper"
        ));
    }
    let (stopped, world) = kafka_sim::timeline::stream_to_end(sc, |e, w| {
        names.update(w);
        if let Some(a) = answers.as_mut() {
            if let Err(why) = a.see(e, w) {
                lesson_error = Some(why);
                return false;
            }
        }
        let r = if json {
            match serde_json::to_value(e) {
                Ok(mut v) => {
                    v["caption"] = serde_json::Value::String(names.apply(&e.caption(lang)));
                    writeln!(out, "{v}")
                }
                Err(_) => Ok(()),
            }
        } else {
            if !all && e.kind.importance() == kafka_sim::event::Importance::Routine {
                return true;
            }
            writeln!(
                out,
                "#{:<6} {:>7} ms  {}",
                e.id,
                e.time_ms,
                names.apply(&e.caption(lang))
            )
        };
        // stdout closed (e.g. piped into head): stop quietly.
        r.is_ok()
    })
    .map_err(|e| format!("{path}: {e}"))?;
    if let Some(why) = lesson_error {
        return Err(format!("{path}: {why}"));
    }
    if let Some(dir) = write_metadata_log {
        crate::storage_cmds::write_metadata_logs(&world, &dir)?;
    }
    match stopped {
        Some(why) => Err(format!("{path}: {why}")),
        None => Ok(()),
    }
}

fn digest(path: &str) -> Res {
    let sc = load_scenario(path)?;
    let mut d = kafka_sim::timeline::Digest::new();
    let mut n = 0u64;
    let stopped = kafka_sim::timeline::stream(sc, |e, _| {
        d.add(e);
        n += 1;
        true
    })
    .map_err(|e| format!("{path}: {e}"))?;
    if let Some(why) = stopped {
        return Err(format!("{path}: {why}"));
    }
    outln!("{:016x} ({n} events)", d.value());
    Ok(())
}

/// The most stdin may hold: the calculators' requests and key lists are
/// small, and a runaway pipe must not grow memory without bound.
pub const STDIN_LIMIT: u64 = 64 << 20;

/// All of stdin (the JSON calculators read their request here), at most
/// [`STDIN_LIMIT`] bytes of UTF-8.
pub fn read_stdin() -> Result<String, String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(STDIN_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    if bytes.len() as u64 > STDIN_LIMIT {
        return Err(format!(
            "stdin holds more than {} MiB; kafka-sim reads at most that",
            STDIN_LIMIT >> 20
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "stdin is not UTF-8 text (invalid byte at position {})",
            e.utf8_error().valid_up_to()
        )
    })
}

/// `kafka-sim compare-planes --failure F [--brokers N --partitions N]`:
/// the same failure in both control planes (`kafka_sim::planes`).
fn compare_planes(a: crate::cli::ComparePlanesArgs) -> Res {
    use kafka_sim::planes::{compare, Failure, Run, Size, FAILURE_AT_MS};
    let f = Failure::from_name(&a.failure)?;
    let size = Size {
        brokers: a.brokers,
        partitions: a.partitions,
    };
    let c = compare(f, size, a.seed)?;
    let ms = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |v| format!("{v} ms"));
    let run = |r: &Run| -> Res {
        let name = if r.version == "3.9" {
            "Kafka 3.9 (ZooKeeper)"
        } else {
            "Kafka 4.1 (KRaft)"
        };
        outln!("{name}: {} struck at {FAILURE_AT_MS} ms", r.victim);
        outln!("  noticed after     {}", ms(r.noticed_ms));
        match r.recovered_ms {
            Some(v) => outln!("  recovered after   {v} ms"),
            None => outln!("  recovered after   - (not within {} ms)", r.watched_ms),
        }
        outln!(
            "  partitions led    {} of {} led elsewhere since",
            r.moved,
            r.to_move
        );
        let by: Vec<String> = r.messages.iter().map(|(k, n)| format!("{k} {n}")).collect();
        outln!(
            "  messages          {} ({})",
            r.total_messages(),
            by.join(", ")
        );
        outln!("  partition states  {} sent to brokers", r.partition_states);
        Ok(())
    };
    outln!(
        "{} on {} brokers / {} partitions (seed {})",
        f.name(),
        size.brokers,
        size.partitions,
        a.seed
    );
    run(&c.zk)?;
    run(&c.kraft)?;
    if a.events {
        for r in [&c.zk, &c.kraft] {
            outln!("\nKafka {} events from the failure on:", r.version);
            for e in &r.shown {
                outln!(
                    "  +{:>6} ms  {}",
                    e.time_ms - FAILURE_AT_MS,
                    e.caption(Lang::En)
                );
            }
            if r.not_shown > 0 {
                outln!("  ... and {} more", r.not_shown);
            }
        }
    }
    Ok(())
}
