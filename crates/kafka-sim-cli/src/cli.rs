//! The command line, as clap reads it: one struct per subcommand, each
//! option with its help. The handlers in `commands.rs`, `cluster_cmds.rs`
//! and `storage_cmds.rs` take these structs.
//!
//! Errors stay one line on stderr with exit code 2, as before clap:
//! [`clap_exit`] folds clap's several-line report (error, tip, usage) into
//! `kafka-sim: unknown option --bogus (see kafka-sim run --help)`.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::process::ExitCode;

/// Apache Kafka, simulated: Kafka 3.9 with its ZooKeeper controller.
#[derive(Parser)]
#[command(
    name = "kafka-sim",
    version = concat!(env!("CARGO_PKG_VERSION"), " (simulates Apache Kafka 3.9, ZooKeeper controller)"),
    about = "Apache Kafka, simulated: run Kafka Visualiser scenarios headless and answer \"what would Kafka do\" questions",
    arg_required_else_help = true,
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Cmd,
}

/// The subcommands.
#[derive(Subcommand)]
pub enum Cmd {
    /// Run a scenario; print the narrated trace (or JSON lines with --json).
    /// Routine events (idle fetch cycles) are hidden unless --all or --json.
    Run(RunArgs),
    /// Print the trace digest (FNV-1a 64 of the JSON lines).
    Digest(ScenarioArg),
    /// Write a partition log's .log/.index/.timeindex (and .txnindex) files as Kafka would.
    Segments(SegmentsArgs),
    /// Print .log, .index, .timeindex and .txnindex files like kafka-dump-log.
    DumpLog(DumpLogArgs),
    /// Look up an offset or timestamp in a partition directory, step by step.
    Lookup(LookupArgs),
    /// Kafka's replica placement (AdminUtils.assignReplicasToBrokers), from a
    /// JSON request on stdin; rack-aware with "racks": {"0": "a", ...}.
    Place(JsonFlag),
    /// Kafka's partition leader election rules, from a JSON request on stdin.
    Elect(JsonFlag),
    /// murmur2 partitioning of keys (with no KEY, one key per line on stdin).
    Partition(PartitionArgs),
    /// Consumer group partition assignment, from a JSON request on stdin.
    /// Members may carry "rack_id" and the request "partition_racks" (topic
    /// -> each partition's replica racks): rack-aware Range and sticky
    /// assignors (KIP-881).
    Assign(AssignArgs),
    /// kafka-topics --describe / kafka-consumer-groups --describe, laid out
    /// as Kafka 3.9 prints them, after STEP events (default: the end).
    Describe(DescribeArgs),
    /// Kafka's metrics under their JMX names (UnderReplicatedPartitions,
    /// IsrShrinksPerSec, records-lag-max ...), computed from the run.
    Metrics(MetricsArgs),
    /// The __consumer_offsets partition (and so the coordinator) of a group,
    /// or the __transaction_state partition of a transactional producer.
    Coordinator(CoordinatorArgs),
    /// Practice questions with the answer computed by the simulation.
    Exercise(ExerciseArgs),
    /// "Can this break?": search fault schedules for one under which a
    /// guarantee breaks, shrink it, and print it as a scenario (one JSON
    /// object).
    Explore(ExploreArgs),
    /// One failure in Kafka 3.9 (ZooKeeper) and Kafka 4.1 (KRaft) from the
    /// same seed: when each noticed and recovered, the control-plane
    /// messages, the partition states sent to brokers.
    ComparePlanes(ComparePlanesArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(CompletionsArgs),
}

#[derive(Args)]
pub struct ComparePlanesArgs {
    /// controller-dies, broker-cut-off or leader-dies.
    #[arg(long, value_name = "FAILURE")]
    pub failure: String,
    /// Brokers (3 to 50).
    #[arg(long, value_name = "N", default_value = "3", value_parser = number::<i32>)]
    pub brokers: i32,
    /// Partitions of the one topic (replication factor 3).
    #[arg(long, value_name = "N", default_value = "6", value_parser = number::<i32>)]
    pub partitions: i32,
    /// The seed of both runs.
    #[arg(long, value_name = "N", default_value = "11", value_parser = number::<u64>)]
    pub seed: u64,
    /// Also print each run's events from the failure on, in lock-step.
    #[arg(long)]
    pub events: bool,
}

#[derive(Args)]
pub struct ExploreArgs {
    /// The scenario file (docs/scenario-format.md): the settings to try.
    #[arg(value_name = "SCENARIO.json")]
    pub scenario: String,
    /// The guarantee to break, by its name (acknowledged_records_survive,
    /// read_committed_isolation, single_owner_per_partition,
    /// exactly_once_pipeline, replicas_consistent ...).
    #[arg(long, value_name = "NAME")]
    pub guarantee: String,
    /// The fault kinds a schedule may use, comma-separated: crash, power,
    /// restart, shutdown, cut, heal, expire, slow, crash_consumer.
    #[arg(
        long,
        value_name = "KINDS",
        default_value = "crash,restart,cut,heal,expire,slow"
    )]
    pub faults: String,
    /// The most faults in one schedule (the exhaustive mode: 1 or 2).
    #[arg(long, value_name = "N", default_value = "3", value_parser = number::<usize>)]
    pub max_faults: usize,
    /// Stop the random search after this many seconds of wall-clock time
    /// (the shrink that follows has as long again).
    #[arg(long, value_name = "S", default_value = "10", value_parser = number::<f64>)]
    pub budget_s: f64,
    /// The search's seed (the same seed, the same schedules).
    #[arg(long, value_name = "N", default_value = "1", value_parser = number::<u64>)]
    pub seed: u64,
    /// Every schedule of up to --max-faults (1 or 2) faults at the message
    /// deliveries of the first --first-events events, states merged.
    #[arg(long)]
    pub exhaustive: bool,
    /// The exhaustive mode's bound: faults go at the message deliveries of
    /// the fault-free run's first this many events.
    #[arg(long, value_name = "N", default_value = "60", value_parser = number::<u64>)]
    pub first_events: u64,
}

#[derive(Args)]
pub struct ScenarioArg {
    /// The scenario file (docs/scenario-format.md).
    #[arg(value_name = "SCENARIO.json")]
    pub scenario: String,
}

#[derive(Args)]
pub struct RunArgs {
    /// The scenario file (docs/scenario-format.md).
    #[arg(value_name = "SCENARIO.json")]
    pub scenario: String,
    /// One JSON object per event, with its caption.
    #[arg(long)]
    pub json: bool,
    /// The captions' language.
    #[arg(long, value_enum, default_value_t = LangArg::En)]
    pub lang: LangArg,
    /// Show routine events too (idle fetch cycles).
    #[arg(long)]
    pub all: bool,
    /// Kafka 4.1 scenarios: at the end, write each node's
    /// __cluster_metadata-0/ files (record batches, .index, .timeindex)
    /// under DIR/<node>/, for `dump-log --cluster-metadata-decoder`.
    #[arg(long, value_name = "DIR")]
    pub write_metadata_log: Option<String>,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum LangArg {
    /// English.
    En,
    /// 简体中文.
    Zh,
}

#[derive(Args)]
pub struct SegmentsArgs {
    /// The batches to write (a JSON file: topic, partition, batches).
    #[arg(long, value_name = "BATCHES.json")]
    pub input: String,
    /// The folder to write the partition's directory into.
    #[arg(long, value_name = "DIR")]
    pub out: String,
    /// segment.bytes: roll a new segment past this size.
    #[arg(long, value_name = "N", default_value_t = 1_073_741_824, value_parser = number::<u64>)]
    pub segment_bytes: u64,
    /// index.interval.bytes: bytes between two index entries.
    #[arg(long, value_name = "N", default_value_t = 4096, value_parser = number::<u64>)]
    pub index_interval_bytes: u64,
}

#[derive(Args)]
pub struct DumpLogArgs {
    /// The files (their names start with the 20-digit base offset).
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    /// Decode the records as cluster metadata records (a KRaft
    /// __cluster_metadata-0 log), as kafka-dump-log does.
    #[arg(long)]
    pub cluster_metadata_decoder: bool,
}

#[derive(Args)]
pub struct LookupArgs {
    /// A partition directory, named topic-N (such as out/first-0).
    #[arg(value_name = "DIR")]
    pub dir: Option<String>,
    /// The offset to find.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = number::<i64>)]
    pub offset: Option<i64>,
    /// The timestamp to find (the first record at or after it).
    #[arg(long, value_name = "T", allow_negative_numbers = true, value_parser = number::<i64>)]
    pub timestamp: Option<i64>,
    /// The steps and result as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct JsonFlag {
    /// The answer as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct PartitionArgs {
    /// The topic's partition count.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = number::<i32>)]
    pub partitions: i32,
    /// The answers as JSON.
    #[arg(long)]
    pub json: bool,
    /// The keys (`--` ends the options, so a key may start with `--`).
    #[arg(value_name = "KEY")]
    pub keys: Vec<String>,
}

#[derive(Args)]
pub struct AssignArgs {
    /// The assignor: range, roundrobin, sticky or cooperative-sticky (the
    /// consumer's, classic protocol); server-range or uniform (the
    /// broker's, group.protocol=consumer, with a request of "topics",
    /// "members" [{"member_id", "subscribed_topics", ...}]).
    #[arg(long, value_name = "NAME")]
    pub strategy: String,
    /// The answer as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct DescribeArgs {
    /// The scenario file (docs/scenario-format.md).
    #[arg(value_name = "SCENARIO.json")]
    pub scenario: String,
    /// What to describe: topics, groups, or (Kafka 4.1) the controller
    /// quorum as `kafka-metadata-quorum describe --status` prints it.
    #[arg(value_name = "topics|groups|quorum")]
    pub what: Option<String>,
    /// After this many events (default: the end of the run).
    #[arg(long, value_name = "STEP", value_parser = number::<u64>)]
    pub at: Option<u64>,
    /// topics: only this topic.
    #[arg(long, value_name = "T")]
    pub topic: Option<String>,
    /// topics: leave out __consumer_offsets and __transaction_state.
    #[arg(long)]
    pub exclude_internal: bool,
    /// groups: only this group.
    #[arg(long, value_name = "G")]
    pub group: Option<String>,
    /// groups: each member and its partitions.
    #[arg(long)]
    pub members: bool,
    /// groups: with --members, their assignment too.
    #[arg(long)]
    pub verbose: bool,
    /// groups: the coordinator, the assignor and the state.
    #[arg(long)]
    pub state: bool,
}

#[derive(Args)]
pub struct MetricsArgs {
    /// The scenario file (docs/scenario-format.md).
    #[arg(value_name = "SCENARIO.json")]
    pub scenario: Option<String>,
    /// After this many events (default: the end of the run).
    #[arg(long, value_name = "STEP", value_parser = number::<u64>)]
    pub at: Option<u64>,
    /// Every MS of simulated time.
    #[arg(long, value_name = "MS", value_parser = number::<u64>)]
    pub every: Option<u64>,
    /// One JSON object per reading.
    #[arg(long)]
    pub json: bool,
    /// CSV, one reading a row.
    #[arg(long)]
    pub csv: bool,
    /// Only this metric (repeat for more; see --list).
    #[arg(long, value_name = "NAME")]
    pub name: Vec<String>,
    /// List every metric: its MBean, meaning, how it is computed.
    #[arg(long)]
    pub list: bool,
}

#[derive(Args)]
pub struct CoordinatorArgs {
    /// A consumer group's group.id.
    #[arg(long, value_name = "G")]
    pub group: Option<String>,
    /// A transactional producer's transactional.id.
    #[arg(long, value_name = "ID")]
    pub transactional_id: Option<String>,
    /// offsets.topic.num.partitions (default 50).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = number::<i32>)]
    pub offsets_partitions: Option<i32>,
    /// transaction.state.log.num.partitions (default 50).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = number::<i32>)]
    pub transaction_partitions: Option<i32>,
    /// The answer as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct ExerciseArgs {
    /// partition, coordinator, assignment, election, high-watermark,
    /// placement, lookup, retention, compaction, read-committed or server-assignment.
    #[arg(long, value_name = "KIND")]
    pub kind: String,
    /// easy, medium or hard.
    #[arg(long, value_name = "LEVEL", default_value = "easy")]
    pub level: String,
    /// The first question's seed.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = number::<u64>)]
    pub seed: u64,
    /// How many questions (1-1000).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = number::<u64>)]
    pub count: u64,
    /// One JSON object per question.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// A number option's reader, with the message the tool always gave.
fn number<T: std::str::FromStr>(v: &str) -> Result<T, String> {
    v.parse()
        .map_err(|_| format!("`{v}` is not a valid number"))
}

/// Ends the process for a clap error: help and the version print as clap
/// prints them (exit 0); every other error becomes one line on stderr with
/// exit code 2.
pub fn clap_exit(e: clap::Error) -> ExitCode {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // `kafka-sim` alone: the help, and the code of a usage error.
            let _ = e.print();
            ExitCode::from(2)
        }
        _ => {
            eprintln!("kafka-sim: {}", one_line(&e));
            ExitCode::from(2)
        }
    }
}

/// clap's error in one line, in the tool's words.
pub fn one_line(e: &clap::Error) -> String {
    let text = |k: ContextKind| match e.get(k) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        Some(ContextValue::Strings(v)) => Some(v.join(", ")),
        Some(ContextValue::StyledStr(s)) => Some(s.to_string()),
        _ => None,
    };
    // The subcommand the error is about, for the pointer to its help.
    let usage = text(ContextKind::Usage).unwrap_or_default();
    let see = usage
        .split_whitespace()
        .skip_while(|w| *w != "kafka-sim")
        .nth(1)
        .filter(|w| !w.starts_with(['[', '<', '-']))
        .map(|sub| format!("see kafka-sim {sub} --help"))
        .unwrap_or_else(|| "see kafka-sim --help".to_string());
    match e.kind() {
        ErrorKind::InvalidSubcommand => format!(
            "unknown command `{}` ({see})",
            text(ContextKind::InvalidSubcommand).unwrap_or_default()
        ),
        ErrorKind::UnknownArgument => {
            let arg = text(ContextKind::InvalidArg).unwrap_or_default();
            let arg = arg.split('=').next().unwrap_or_default();
            if arg.starts_with('-') {
                format!("unknown option {arg} ({see})")
            } else {
                format!("unexpected argument `{arg}` ({see})")
            }
        }
        ErrorKind::MissingRequiredArgument => {
            let missing = text(ContextKind::InvalidArg).unwrap_or_default();
            format!(
                "missing {} ({see})",
                missing.replace(['<', '>'], "").replace(" ...", "")
            )
        }
        ErrorKind::NoEquals | ErrorKind::InvalidValue | ErrorKind::ValueValidation => {
            let arg = text(ContextKind::InvalidArg).unwrap_or_default();
            let arg = arg
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_string();
            let value = text(ContextKind::InvalidValue).unwrap_or_default();
            match e.source() {
                Some(why) => format!("{arg}: {why}"),
                None if value.is_empty() => format!("{arg} needs a value ({see})"),
                None => {
                    let valid = text(ContextKind::ValidValue)
                        .map(|v| format!(" (one of {v})"))
                        .unwrap_or_default();
                    format!("{arg}: `{value}` is not a valid value{valid}")
                }
            }
        }
        _ => {
            // Any other: clap's first line, without its "error: ".
            let s = e.render().to_string();
            let first = s.lines().next().unwrap_or_default();
            format!("{} ({see})", first.trim_start_matches("error: "))
        }
    }
}

use std::error::Error as _;

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }
}
