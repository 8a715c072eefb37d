//! Standard output, for every subcommand. When its reader goes away
//! (`kafka-sim metrics … | head`), the tool ends at once and quietly, with
//! code 0, as command-line tools do; any other failure to write is one line
//! naming it. `println!` would panic on a closed pipe instead.

use std::io::Write;

/// Writes one line to stdout (see the module note).
pub fn line(args: std::fmt::Arguments<'_>) -> Result<(), String> {
    let mut o = std::io::stdout().lock();
    let r = o.write_fmt(args).and_then(|()| o.write_all(b"\n"));
    r.map_err(failed)
}

/// Writes text to stdout as it is (see the module note).
pub fn text(s: &str) -> Result<(), String> {
    let mut o = std::io::stdout().lock();
    o.write_all(s.as_bytes())
        .and_then(|()| o.flush())
        .map_err(failed)
}

/// What a failed write means: the end of the tool for a closed pipe, else
/// the message.
pub fn failed(e: std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    format!("cannot write the output: {e}")
}

/// `println!` for the subcommands: `outln!(...)?` returns the write's error.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::out::line(format_args!(""))?
    };
    ($($t:tt)*) => {
        $crate::out::line(format_args!($($t)*))?
    };
}
