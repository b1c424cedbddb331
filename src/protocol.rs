//! Front ends: stdin/stdout protocols, and choosing one.
//!
//! The reader thread ([`input`]) turns stdin into [`input::Input`] events sent on the
//! engine's one event channel, which also carries the search thread's move decisions
//! ([`Event`]); [`InputQueue`] hands them to the front end in order, after any lines put back
//! (the line that decided the protocol). Output goes through [`output::Output`] (ASCII, flushed per line).
//!
//! Detection (when neither `--nboard` nor `--gtp` is given) looks at the first meaningful
//! line: `nboard <anything>` selects NBoard; a GTP command name, with or without a leading
//! numeric id, selects GTP. Empty lines and `#` comments are skipped; any other line is
//! logged and skipped.

pub mod gtp;
pub use tsuru_core::io::lines as input;
pub mod nboard;
pub mod output;

use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, Sender};

use crate::session::{Decision, Loaded};
use input::Input;

/// Which protocol: defined with the command line's settings ([`tsuru_core::config`]), where
/// `--gtp`/`--nboard` choose one, and named here as the protocols' own.
pub use tsuru_core::config::Protocol;

/// An event of the engine's one event channel: what the front end waits for.
#[derive(Debug)]
pub enum Event {
    /// From the reader thread: a line, an over-long line or the end of input.
    Input(Input),
    /// A move decision that ended on the search thread ([`crate::session::Session::decide`]:
    /// GTP's `genmove` waits for it here, so that it reads the input while it waits);
    /// `None` when the search thread ended without one (it panicked).
    Decided(Option<Decision>),
}

impl From<Input> for Event {
    fn from(input: Input) -> Event {
        Event::Input(input)
    }
}

/// The events of a session, in order: events put back (by detection, or by GTP while it
/// waited for a move) first, then the channel's (the reader thread's lines, the search
/// thread's decisions).
pub struct InputQueue {
    pending: VecDeque<Event>,
    receiver: Receiver<Event>,
    sender: Sender<Event>,
}

impl InputQueue {
    /// A new channel and its queue; the reader thread sends into [`InputQueue::sender`].
    pub fn new() -> InputQueue {
        let (sender, receiver) = mpsc::channel();
        InputQueue {
            pending: VecDeque::new(),
            receiver,
            sender,
        }
    }

    /// A sender into the queue's channel (for the reader thread and the search thread).
    pub fn sender(&self) -> Sender<Event> {
        self.sender.clone()
    }

    /// The next event, waiting for it. The queue holds a sender itself, so the end of input
    /// is the reader thread's `Eof`, which every front end takes as `quit`.
    pub fn recv(&mut self) -> Event {
        self.pending
            .pop_front()
            .unwrap_or_else(|| self.receiver.recv().unwrap_or(Event::Input(Input::Eof)))
    }

    /// Puts an event back so the next [`InputQueue::recv`] returns it.
    pub fn push_front(&mut self, event: Event) {
        self.pending.push_front(event);
    }
}

impl Default for InputQueue {
    fn default() -> InputQueue {
        InputQueue::new()
    }
}

/// Runs the engine on stdin/stdout with its loaded settings: detects the protocol (unless the
/// configuration forces one) and runs its front end until `quit` or end of input.
pub fn run(loaded: Loaded) -> anyhow::Result<()> {
    use std::io::IsTerminal;
    if std::io::stdin().is_terminal() {
        // A person typing: say what the engine expects (stderr, so a protocol never sees it).
        eprintln!("{}", TERMINAL_HINT);
    }
    let mut queue = InputQueue::new();
    input::spawn_reader_into(std::io::stdin(), queue.sender());
    let out = output::Output::stdout();
    let kind = match loaded.config.protocol {
        Some(kind) => kind,
        None => match detect_from(&mut queue, gtp::is_known_command) {
            Some(kind) => kind,
            None => return Ok(()),
        },
    };
    log::info!("speaking {kind:?}");
    match kind {
        Protocol::Nboard => nboard::run(loaded, &mut queue, &out),
        Protocol::Gtp => gtp::run(loaded, &mut queue, &out),
    }
}

/// What the engine expects, for a person at a terminal.
pub const TERMINAL_HINT: &str =
    "tsuru: an Othello engine. Type GTP commands (try `list_commands`, \
     `genmove b`) or `nboard 2` for the NBoard protocol; `quit` to leave. `tsuru --help` \
     lists options and tools.";

/// Said once when the first line is neither GTP nor NBoard.
pub const UNKNOWN_FIRST_LINE_HINT: &str =
    "tsuru: expected a GTP command (such as `protocol_version`) \
     or `nboard 2` to start; `quit` to leave.";

/// Decides the protocol from one input line, or `None` when the line says nothing either way.
/// `is_gtp_command` tells whether a word is a GTP command name (the GTP front end's table).
pub fn detect(line: &str, is_gtp_command: impl Fn(&str) -> bool) -> Option<Protocol> {
    let line = line.split('#').next().unwrap_or("");
    let mut words = line.split_whitespace();
    let first = words.next()?;
    if first.eq_ignore_ascii_case("nboard") {
        return Some(Protocol::Nboard);
    }
    let command = if first.bytes().all(|b| b.is_ascii_digit()) {
        words.next()?
    } else {
        first
    };
    is_gtp_command(&command.to_ascii_lowercase()).then_some(Protocol::Gtp)
}

/// Reads lines until one decides the protocol; that line is put back for the front end.
/// Returns `None` at end of input.
pub fn detect_from(
    queue: &mut InputQueue,
    is_gtp_command: impl Fn(&str) -> bool,
) -> Option<Protocol> {
    let mut hinted = false;
    loop {
        let line = match queue.recv() {
            Event::Input(Input::Eof) => return None,
            Event::Input(Input::TooLong(prefix)) => prefix,
            Event::Input(Input::Line(line)) => {
                if let Some(kind) = detect(&line, &is_gtp_command) {
                    queue.push_front(Event::Input(Input::Line(line)));
                    return Some(kind);
                }
                line
            }
            // No search runs before a front end does.
            Event::Decided(_) => continue,
        };
        if !line.split('#').next().unwrap_or("").trim().is_empty() {
            log::warn!(
                "ignored before the protocol is known: \"{}\"",
                output::escape(&line)
            );
            if !hinted {
                eprintln!("{UNKNOWN_FIRST_LINE_HINT}");
                hinted = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gtp(word: &str) -> bool {
        ["protocol_version", "name", "clear_board", "genmove"].contains(&word)
    }

    #[test]
    fn detects_nboard_with_any_version_and_gtp_with_or_without_ids() {
        assert_eq!(detect("nboard 2", gtp), Some(Protocol::Nboard));
        assert_eq!(detect("nboard 1", gtp), Some(Protocol::Nboard));
        assert_eq!(detect("NBOARD", gtp), Some(Protocol::Nboard));
        assert_eq!(detect("protocol_version", gtp), Some(Protocol::Gtp));
        assert_eq!(detect("1 clear_board", gtp), Some(Protocol::Gtp));
        assert_eq!(detect("  Name  ", gtp), Some(Protocol::Gtp));
        assert_eq!(detect("", gtp), None);
        assert_eq!(detect("# comment nboard", gtp), None);
        assert_eq!(detect("hello world", gtp), None);
        assert_eq!(detect("12", gtp), None);
    }

    #[test]
    fn detection_puts_the_deciding_line_back() {
        let mut queue = InputQueue::new();
        let sender = queue.sender();
        for line in ["", "garbage", "2 genmove b", "play b f5"] {
            sender.send(Input::Line(line.into()).into()).unwrap();
        }
        sender.send(Input::Eof.into()).unwrap();
        assert_eq!(detect_from(&mut queue, gtp), Some(Protocol::Gtp));
        let mut next = || match queue.recv() {
            Event::Input(input) => input,
            Event::Decided(_) => panic!("no search ran"),
        };
        assert_eq!(next(), Input::Line("2 genmove b".into()));
        assert_eq!(next(), Input::Line("play b f5".into()));
        assert_eq!(next(), Input::Eof);
    }
}
