//! The headless modes' results on standard output, written so that a
//! reader that stops early (`| head -1`) ends the program quietly with the
//! status a shell gives a program ended by a closed pipe (141, 128 +
//! SIGPIPE), and any other write error (a full disk, `> /dev/full`) is one
//! line on stderr naming the output and exit status 1. `print!` would panic
//! with a backtrace in both cases.

use std::io::{ErrorKind, Write};

/// The status after a closed pipe: what `sh` reports for a program that
/// SIGPIPE ended (128 + 13), so `cmd | head` looks as it does for `cat`.
pub const CLOSED_PIPE: u8 = 141;

/// Writes `text` to standard output and flushes it, so that the error of a
/// full disk is seen here, not lost when the process exits.
///
/// # Errors
/// The exit status to end with: [`CLOSED_PIPE`] (nothing printed) when the
/// reader has gone, else 1 after one line on stderr naming the error.
pub fn print(text: &str) -> Result<(), u8> {
    let mut out = std::io::stdout().lock();
    let written = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    written.map_err(|e| failed(&e))
}

/// The exit status for the write error `e` (see [`print`]).
fn failed(e: &std::io::Error) -> u8 {
    if e.kind() == ErrorKind::BrokenPipe {
        return CLOSED_PIPE;
    }
    let _ = writeln!(
        std::io::stderr(),
        "error: cannot write the output to standard output: {e}"
    );
    1
}

/// [`print()`] with a line end after `text`.
pub fn println(text: &str) -> Result<(), u8> {
    print(&format!("{text}\n"))
}

/// Ends a mode when `written` failed: `try_print!(expr)` in a function
/// returning `ExitCode` returns the error's status.
#[macro_export]
macro_rules! try_print {
    ($written:expr) => {
        if let Err(status) = $written {
            return std::process::ExitCode::from(status);
        }
    };
}
