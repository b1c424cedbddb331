//! An engine as a child process: its stdin, a channel of its stdout lines, the last lines of
//! its stderr, and an optional log.
//!
//! Stdout is read on a thread (the same line rules as the engine's own input: CRLF, lossy
//! UTF-8, over-long lines dropped), so every wait has a deadline. Stderr is read on another
//! thread: its last lines are kept for error messages and copied to the log. With a log,
//! every line sent and received is written to it too, prefixed by the engine's name and
//! process id:
//!
//! ```text
//! grhino[4711] > genmove b
//! grhino[4711] < = F5
//! grhino[4711] ! some diagnostic on its stderr
//! ```
//!
//! Dropping an `EngineProcess` kills the process and reaps it.

use std::collections::VecDeque;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{Error, ErrorKind, Result};
use crate::io::ascii::ascii;
use crate::io::lines::{self as input, Input};

/// How many of the last stderr lines are kept for error messages.
const STDERR_TAIL: usize = 20;
/// How long a process that has exited may keep its stdout open (a grandchild holding the
/// pipe, say) before it is taken for ended anyway.
const EXIT_GRACE: Duration = Duration::from_millis(500);
/// How often a blocked read looks at the process.
const POLL: Duration = Duration::from_millis(50);

/// Where engine traffic and engine stderr go (a file, usually). Cheap to clone; lines from
/// several threads never interleave within a line.
#[derive(Clone)]
pub struct EngineLog(Arc<Mutex<Box<dyn Write + Send>>>);

impl EngineLog {
    /// A log written to `sink`.
    pub fn new(sink: Box<dyn Write + Send>) -> EngineLog {
        EngineLog(Arc::new(Mutex::new(sink)))
    }

    /// Writes one line, made ASCII.
    pub fn line(&self, text: &str) {
        let mut sink = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        // A full disk must not stop a match: the log is a diagnostic.
        let _ = writeln!(sink, "{}", ascii(text));
        let _ = sink.flush();
    }
}

/// How to start an engine: a name for logs and messages, the program and its arguments,
/// and optionally the directory and the whole environment it runs in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Launch {
    /// The name that prefixes its lines in the log.
    pub name: String,
    /// Program and arguments.
    pub argv: Vec<String>,
    /// The working directory (`None`: this process's).
    pub cwd: Option<PathBuf>,
    /// The environment, replacing this process's (`None`: inherited).
    pub env: Option<Vec<(String, String)>>,
}

/// A running engine process.
pub struct EngineProcess {
    label: String,
    argv: Vec<String>,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Input>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    log: Option<EngineLog>,
    /// Whether its output has ended (every later read fails at once).
    ended: bool,
    /// When the process was first seen exited while its stdout stayed open.
    exit_seen: Option<Instant>,
}

impl EngineProcess {
    /// Starts the engine with piped stdin, stdout and stderr. A command that cannot be started
    /// is an [`ErrorKind::Terminated`] error that names it.
    pub fn spawn(launch: &Launch, log: Option<&EngineLog>) -> Result<EngineProcess> {
        let Some((program, args)) = launch.argv.split_first() else {
            return Err(Error::new(ErrorKind::Terminated, "empty command"));
        };
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &launch.cwd {
            command.current_dir(dir);
        }
        if let Some(env) = &launch.env {
            command.env_clear().envs(env.iter().map(|(k, v)| (k, v)));
        }
        let mut child = command.spawn().map_err(|err| {
            Error::new(
                ErrorKind::Terminated,
                format!("cannot start {:?}: {err}", launch.argv.join(" ")),
            )
        })?;
        let label = format!("{}[{}]", launch.name, child.id());
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let lines = input::spawn_reader(stdout);
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        {
            let log = log.cloned();
            let label = label.clone();
            let tail = Arc::clone(&stderr_tail);
            let spawned = std::thread::Builder::new()
                .name(format!("{label}-stderr"))
                .spawn(move || {
                    let mut reader = std::io::BufReader::new(stderr);
                    while let Input::Line(line) = input::read_line(&mut reader) {
                        if let Some(log) = &log {
                            log.line(&format!("{label} ! {line}"));
                        }
                        let mut tail = tail.lock().unwrap_or_else(|p| p.into_inner());
                        if tail.len() == STDERR_TAIL {
                            tail.pop_front();
                        }
                        tail.push_back(line);
                    }
                });
            if let Err(err) = spawned {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Error::new(
                    ErrorKind::Terminated,
                    format!("no thread: {err}"),
                ));
            }
        }
        if let Some(log) = log {
            log.line(&format!("{label} started: {}", launch.argv.join(" ")));
        }
        Ok(EngineProcess {
            label,
            argv: launch.argv.clone(),
            stdin: child.stdin.take(),
            child,
            lines,
            stderr_tail,
            log: log.cloned(),
            ended: false,
            exit_seen: None,
        })
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The program and arguments it was started with.
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// The last lines of its stderr (at most 20), oldest first.
    pub fn stderr_tail(&self) -> Vec<String> {
        let tail = self.stderr_tail.lock().unwrap_or_else(|p| p.into_inner());
        tail.iter().cloned().collect()
    }

    /// Its exit code once it has ended (-N when killed by signal N), else `None`.
    pub fn exit_code(&mut self) -> Option<i32> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(code_of(status)),
            _ => None,
        }
    }

    fn log(&self, text: std::fmt::Arguments<'_>) {
        if let Some(log) = &self.log {
            log.line(&format!("{} {text}", self.label));
        }
    }

    /// Sends one line (a newline is added) and flushes. A closed pipe, or output that has
    /// already ended, is an [`ErrorKind::Terminated`] error.
    pub fn send(&mut self, line: &str) -> Result<()> {
        self.log(format_args!("> {line}"));
        if self.ended {
            return Err(self.terminated(&format!("to send '{line}'")));
        }
        let written = match &mut self.stdin {
            Some(stdin) => writeln!(stdin, "{line}").and_then(|()| stdin.flush()),
            None => Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe)),
        };
        match written {
            Ok(()) => Ok(()),
            Err(err) => {
                let mut error = self.terminated(&format!("to send '{line}'"));
                error.detail = format!("cannot write to it ({err}): {}", error.detail);
                Err(error)
            }
        }
    }

    /// The next line from its stdout, without its line ending. Waiting past `deadline` is an
    /// [`ErrorKind::Timeout`]; the end of its output (or its exit, noticed within half a
    /// second even if something keeps the pipe open) an [`ErrorKind::Terminated`]; an
    /// over-long line an [`ErrorKind::Malformed`]. `what` says what was awaited, for messages.
    pub fn recv(&mut self, deadline: Option<Instant>, what: &str) -> Result<String> {
        loop {
            if self.ended {
                return Err(self.terminated(what));
            }
            let now = Instant::now();
            let wait = match deadline {
                Some(deadline) => deadline.saturating_duration_since(now).min(POLL),
                None => POLL,
            };
            match self.lines.recv_timeout(wait) {
                Ok(Input::Line(line)) => {
                    self.log(format_args!("< {line}"));
                    return Ok(line);
                }
                Ok(Input::TooLong(prefix)) => {
                    self.log(format_args!("< {prefix}... (over-long line)"));
                    return Err(Error::new(
                        ErrorKind::Malformed,
                        format!("an over-long line while waiting for {what}"),
                    ));
                }
                Ok(Input::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    self.ended = true;
                    return Err(self.terminated(what));
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Ok(Some(_)) = self.child.try_wait() {
                        let seen = *self.exit_seen.get_or_insert_with(Instant::now);
                        if seen.elapsed() > EXIT_GRACE {
                            self.ended = true;
                            return Err(self.terminated(what));
                        }
                    }
                    if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                        self.log(format_args!("timed out"));
                        return Err(Error::new(
                            ErrorKind::Timeout,
                            format!("no answer in time (waiting for {what})"),
                        ));
                    }
                }
            }
        }
    }

    /// Every line already received and not yet read, without waiting (logged as read).
    pub fn drain(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        while let Ok(item) = self.lines.try_recv() {
            match item {
                Input::Line(line) => {
                    self.log(format_args!("< {line}"));
                    out.push(line);
                }
                Input::TooLong(_) => {}
                Input::Eof => {
                    self.ended = true;
                    break;
                }
            }
        }
        out
    }

    /// A [`ErrorKind::Terminated`] error that says how the process ended, if it has:
    /// `its output ended: the process exited (exit status: 3)`.
    fn terminated(&mut self, what: &str) -> Error {
        self.ended = true;
        // Give a dying process a moment so its exit status can be reported.
        let until = Instant::now() + Duration::from_millis(300);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                _ => break None,
            }
        };
        let detail = match status {
            Some(status) => format!("its output ended: the process exited ({status})"),
            None => "its output ended".to_string(),
        };
        self.log(format_args!("{detail}"));
        Error {
            kind: ErrorKind::Terminated,
            detail: format!("{detail} (waiting for {what})"),
            exit_code: status.map(code_of),
        }
    }

    /// Closes its stdin (an engine quits at the end of its input), waits up to `grace` for it
    /// to exit, then kills it. Returns its exit code.
    pub fn close(&mut self, grace: Duration) -> Option<i32> {
        self.stdin = None;
        let until = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    self.ended = true;
                    return Some(code_of(status));
                }
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                _ => return self.kill(),
            }
        }
    }

    /// Kills the process (if it still runs) and reaps it. Returns its exit code.
    pub fn kill(&mut self) -> Option<i32> {
        self.stdin = None;
        self.ended = true;
        if let Ok(Some(status)) = self.child.try_wait() {
            return Some(code_of(status));
        }
        let _ = self.child.kill();
        let status = self.child.wait().ok().map(code_of);
        self.log(format_args!("stopped"));
        status
    }
}

/// The exit code, or -N for a process killed by signal N (as Python's `returncode`).
fn code_of(status: ExitStatus) -> i32 {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return -signal;
        }
    }
    status.code().unwrap_or(-1)
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
            self.log(format_args!("stopped"));
        }
    }
}
