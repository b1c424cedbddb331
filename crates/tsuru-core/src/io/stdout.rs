//! Tool output on stdout that a closed pipe ends quietly.
//!
//! `print!` panics when stdout is a pipe whose reader has gone (`tsuru perft 99 | head`).
//! The tools print through [`out!`](crate::out) and [`outln!`](crate::outln) instead, which
//! return the `io::Error`; it travels up as an ordinary error and the binary's `main` ends
//! without a message when [`is_broken_pipe`] says that was the cause. Rust ignores SIGPIPE,
//! so the write fails with `BrokenPipe` rather than killing the process; restoring the
//! default signal handler would need `unsafe` libc calls and would also kill the engine in
//! the middle of a game, where the protocol code logs a failed write and carries on.

use std::fmt;
use std::io::{self, Write};

/// Writes formatted text to stdout, like `print!`, but returns an `io::Result<()>`.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::io::stdout::write_stdout(format_args!($($arg)*))
    };
}

/// Writes formatted text and a newline to stdout, like `println!`, but returns an
/// `io::Result<()>`.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::io::stdout::write_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::io::stdout::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// Writes `args` to stdout under its lock. Stdout is line-buffered, so a failed write of a
/// complete line is reported here, not at exit.
pub fn write_stdout(args: fmt::Arguments) -> io::Result<()> {
    io::stdout().lock().write_fmt(args)
}

/// Whether `err`, or any error in its chain of causes, is a write to a closed pipe.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn a_broken_pipe_is_found_under_context() {
        let pipe = io::Error::new(io::ErrorKind::BrokenPipe, "closed");
        let err = Err::<(), _>(pipe)
            .context("printing the table")
            .context("tsuru bench")
            .unwrap_err();
        assert!(is_broken_pipe(&err));
    }

    #[test]
    fn other_errors_are_not_a_broken_pipe() {
        let missing = io::Error::new(io::ErrorKind::NotFound, "no such file");
        assert!(!is_broken_pipe(&anyhow::Error::new(missing)));
        assert!(!is_broken_pipe(&anyhow::anyhow!("broken pipe")));
    }
}
