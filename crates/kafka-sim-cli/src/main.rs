//! `kafka-sim`: run Kafka Visualiser scenarios headless and answer "what would
//! Kafka do" questions.
//!
//! Every subcommand reads files or stdin and writes stdout; bad input prints
//! one line naming the problem to stderr and exits with code 2. Nothing panics
//! on user input. The arguments are read by clap ([`cli::Cli`]): every
//! subcommand has `--help`, the tool has `--version` and prints its shell
//! completions (`kafka-sim completions bash`); clap's own errors are folded
//! into the same one line ([`cli::one_line`]). When the reader of stdout goes
//! away (`kafka-sim metrics … | head`), the tool ends quietly ([`out`]).

mod cli;
mod cluster_cmds;
mod commands;
mod explore_cmd;
mod out;
mod storage_cmds;

use clap::Parser;
use std::process::ExitCode;

/// mimalloc rather than the system's malloc: see the note in Cargo.toml.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let parsed = match cli::Cli::try_parse_from(&args) {
        Ok(c) => c,
        Err(e) => return cli::clap_exit(e),
    };
    // A bug must still end in one line that names the input, not a
    // backtrace and an abort (the release build aborts on panic, so the hook
    // ends the process itself, with code 70, EX_SOFTWARE).
    let input = args[1..].join(" ");
    std::panic::set_hook(Box::new(move |info| {
        eprintln!(
            "kafka-sim: internal error while running `kafka-sim {input}`: {} (a bug in kafka-sim: please report it with this input)",
            kafka_sim::panic_text(info)
        );
        std::process::exit(70);
    }));
    match commands::dispatch(parsed.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("kafka-sim: {msg}");
            ExitCode::from(2)
        }
    }
}
