//! A client of Othello engines over pipes: the one implementation behind the match referee
//! (`tsuru match`, in tsuru-lab) and Python's `tsuru.engine` (through `tsuru._native`).
//!
//! ```text
//!   gtp::GtpClient        nboard::NboardClient      what each protocol is told and answers
//!          \                  /
//!        process::EngineProcess                     the child: stdin, a stdout line channel
//!                                                   read with deadlines, stderr kept and logged
//! ```
//!
//! Every wait has a deadline (`None`: none), so an engine that says nothing is a
//! [`ErrorKind::Timeout`], and the end of its output a [`ErrorKind::Terminated`], noticed
//! within a fraction of a second. The clients keep the engine's board in step with the games
//! they are asked about, as protocol.md describes: GTP by `play`, NBoard by `set game` or
//! `move`. Moves come back parsed, never checked against a board: the caller does that.

pub mod gtp;
pub mod nboard;
pub mod process;

use std::fmt;
use std::time::Instant;

pub use process::{EngineLog, EngineProcess, Launch};

/// What went wrong talking to an engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The process ended, closed its output, or could not be started or written to.
    Terminated,
    /// The awaited answer did not come before the deadline.
    Timeout,
    /// The engine refused a command it must accept (a GTP `?` answer).
    Refused,
    /// The engine sent something unreadable where an answer was expected.
    Malformed,
}

/// An error talking to an engine: its kind, a one-line description, and for a process that
/// has ended its exit code (negative: killed by that signal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The kind.
    pub kind: ErrorKind,
    /// What happened, in a line.
    pub detail: String,
    /// The exit code of a process that has ended (-N for signal N), if known.
    pub exit_code: Option<i32>,
}

impl Error {
    /// An error of `kind` described by `detail`.
    pub fn new(kind: ErrorKind, detail: impl Into<String>) -> Error {
        Error {
            kind,
            detail: detail.into(),
            exit_code: None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.detail)
    }
}

impl std::error::Error for Error {}

/// The client's result type.
pub type Result<T> = std::result::Result<T, Error>;

/// The protocol a probe found, and the name an NBoard engine gave while answering it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Detected {
    /// The engine answered `=` or `?` to `nboard 2`: GTP. That first line of its answer has
    /// been read; the rest of it and the answer to `ping 1` have not.
    Gtp,
    /// The engine answered `pong 1` (after `set myname NAME`, if it sent one): NBoard, and it
    /// has been greeted with `nboard 2` as it should be.
    Nboard(Option<String>),
}

/// Finds out which protocol the engine speaks: sends `nboard 2` and `ping 1` and reads up to
/// `pong 1` (NBoard) or a line starting with `=` or `?` (GTP). Other lines are skipped.
pub fn detect(process: &mut EngineProcess, deadline: Option<Instant>) -> Result<Detected> {
    process.send("nboard 2")?;
    process.send("ping 1")?;
    let mut name = None;
    loop {
        let line = process.recv(deadline, "an answer to 'nboard 2' and 'ping 1'")?;
        let text = line.trim();
        if text.starts_with('=') || text.starts_with('?') {
            return Ok(Detected::Gtp);
        }
        if text == "pong 1" {
            return Ok(Detected::Nboard(name));
        }
        if let Some(rest) = nboard::myname(text) {
            name = Some(rest);
        }
    }
}

/// Seconds as protocol text, without an exponent and to the millisecond: `5`, `2.5`, `0.125`.
pub fn seconds(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        return format!("{}", value as i64);
    }
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A lenient decimal (a comma taken for the point); `None` if unreadable or not finite.
pub fn number(text: &str) -> Option<f64> {
    let value: f64 = text.trim().replace(',', ".").parse().ok()?;
    value.is_finite().then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_written_without_exponent_or_trailing_zeros() {
        assert_eq!(seconds(5.0), "5");
        assert_eq!(seconds(2.5), "2.5");
        assert_eq!(seconds(0.125), "0.125");
        assert_eq!(seconds(0.1), "0.1");
        assert_eq!(seconds(0.1 + 0.2), "0.3");
        assert_eq!(seconds(1e-7), "0");
    }

    #[test]
    fn numbers_accept_commas_and_refuse_infinities() {
        assert_eq!(number(" 2,5 "), Some(2.5));
        assert_eq!(number("-18"), Some(-18.0));
        assert_eq!(number("nan"), None);
        assert_eq!(number("inf"), None);
        assert_eq!(number("x"), None);
    }
}
