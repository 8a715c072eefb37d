//! `kafka-sim`: run Kafka Visualiser scenarios headless and answer "what would
//! Kafka do" questions.
//!
//! Every subcommand reads files or stdin and writes stdout; bad input prints
//! one line naming the problem to stderr and exits with code 2. Nothing panics
//! on user input.

mod cluster_cmds;
mod commands;
mod storage_cmds;

use std::process::ExitCode;

const USAGE: &str = "\
kafka-sim: Apache Kafka, simulated (Kafka 3.9, ZooKeeper controller)

USAGE:
  kafka-sim run SCENARIO.json [--json] [--lang en|zh] [--all]
      Run a scenario; print the narrated trace (or JSON lines with --json).
      Routine events (idle fetch cycles) are hidden unless --all or --json.
  kafka-sim digest SCENARIO.json
      Print the trace digest (FNV-1a 64 of the JSON lines).
  kafka-sim segments --input BATCHES.json --out DIR [--segment-bytes N] [--index-interval-bytes N]
      Write a partition log's .log/.index/.timeindex files as Kafka would.
  kafka-sim dump-log FILE...
      Print .log, .index and .timeindex files like kafka-dump-log.
  kafka-sim lookup DIR (--offset N | --timestamp T) [--json]
      Look up an offset or timestamp in a partition directory, step by step.
  kafka-sim place --json < REQUEST.json
      Kafka's replica placement (AdminUtils.assignReplicasToBrokers);
      rack-aware with \"racks\": {\"0\": \"a\", ...} (broker.rack per broker).
  kafka-sim elect --json < REQUEST.json
      Kafka's partition leader election rules.
  kafka-sim partition --partitions N [--json] [--] KEY...
      murmur2 partitioning of keys. With no KEY, reads one key per line from
      stdin. `--` ends the options, so a key may start with `--`.
  kafka-sim assign --strategy range|roundrobin|sticky|cooperative-sticky --json < REQUEST.json
      Consumer group partition assignment. Members may carry \"rack_id\" and the
      request \"partition_racks\" (topic -> each partition's replica racks):
      rack-aware Range and sticky assignors (KIP-881).
  kafka-sim describe SCENARIO.json [--at STEP] topics [--topic T] [--exclude-internal]
  kafka-sim describe SCENARIO.json [--at STEP] groups [--group G] [--members [--verbose] | --state]
      kafka-topics --describe / kafka-consumer-groups --describe, laid out as
      Kafka 3.9 prints them, after STEP events (default: the end of the run).
  kafka-sim metrics SCENARIO.json [--at STEP | --every MS] [--json | --csv] [--name NAME]...
  kafka-sim metrics --list
      Kafka's metrics under their JMX names (UnderReplicatedPartitions,
      IsrShrinksPerSec, records-lag-max ...), computed from the run: after
      STEP events (default: the end), or every MS of simulated time.
  kafka-sim coordinator --group G [--offsets-partitions 50] [--json]
  kafka-sim coordinator --transactional-id ID [--transaction-partitions 50] [--json]
      The __consumer_offsets partition (and so the coordinator) of a group, or
      the __transaction_state partition of a transactional producer.
  kafka-sim exercise --kind partition|coordinator|assignment|election|high-watermark|placement|lookup|retention|compaction|read-committed
                     [--level easy|medium|hard] [--seed N] [--count N] [--json]
      Practice questions with the answer computed by the simulation.
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help" {
        print!("{USAGE}");
        return if args.is_empty() {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        };
    }
    // A bug must still end in one line that names the input, not a
    // backtrace and an abort (the release build aborts on panic, so the hook
    // ends the process itself, with code 70, EX_SOFTWARE).
    let input = args.join(" ");
    std::panic::set_hook(Box::new(move |info| {
        eprintln!(
            "kafka-sim: internal error while running `kafka-sim {input}`: {} (a bug in kafka-sim: please report it with this input)",
            kafka_sim::panic_text(info)
        );
        std::process::exit(70);
    }));
    match commands::dispatch(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("kafka-sim: {msg}");
            ExitCode::from(2)
        }
    }
}
