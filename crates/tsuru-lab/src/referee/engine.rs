//! An engine as a child process: its stdin, a channel of its stdout lines, and a log.
//!
//! Stdout is read on a thread (the same line rules as the engine's own input: CRLF, lossy
//! UTF-8, over-long lines dropped), so the referee can wait for an answer with a deadline.
//! Stderr is copied to the engine log on another thread, never to the referee's own output.
//! Every line sent and received is logged too, prefixed by the engine's name and process id:
//!
//! ```text
//! grhino[4711] > genmove b
//! grhino[4711] < = F5
//! grhino[4711] ! some diagnostic on its stderr
//! ```
//!
//! Dropping an `EngineProcess` kills the process and reaps it.

use std::io::Write;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{EngineSpec, Fault, FaultKind};
use tsuru_core::io::ascii::ascii;
use tsuru_core::io::lines::{self as input, Input};

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

/// A running engine process.
pub struct EngineProcess {
    label: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Input>,
    log: EngineLog,
}

impl EngineProcess {
    /// Starts the engine's command with piped stdin and stdout and stderr sent to `log`.
    /// A command that cannot be started is a [`FaultKind::Crashed`] fault.
    pub fn spawn(spec: &EngineSpec, log: &EngineLog) -> Result<EngineProcess, Fault> {
        let Some((program, args)) = spec.command.split_first() else {
            return Err(Fault::new(FaultKind::Crashed, "empty command"));
        };
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|err| {
                Fault::new(
                    FaultKind::Crashed,
                    format!("cannot start {:?}: {err}", spec.command.join(" ")),
                )
            })?;
        let label = format!("{}[{}]", spec.name, child.id());
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let lines = input::spawn_reader(stdout);
        {
            let log = log.clone();
            let label = label.clone();
            std::thread::Builder::new()
                .name(format!("{label}-stderr"))
                .spawn(move || {
                    let mut reader = std::io::BufReader::new(stderr);
                    while let Input::Line(line) = input::read_line(&mut reader) {
                        log.line(&format!("{label} ! {line}"));
                    }
                })
                .map_err(|err| Fault::new(FaultKind::Crashed, format!("no thread: {err}")))?;
        }
        log.line(&format!("{label} started: {}", spec.command.join(" ")));
        Ok(EngineProcess {
            label,
            child,
            stdin,
            lines,
            log: log.clone(),
        })
    }

    /// Sends one line (a newline is added) and flushes. A closed pipe is a crash.
    pub fn send(&mut self, line: &str) -> Result<(), Fault> {
        self.log.line(&format!("{} > {line}", self.label));
        let written = writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush());
        written.map_err(|err| self.crash(&format!("cannot write to it ({err})")))
    }

    /// The next line from the engine's stdout, without its line ending. Waiting past
    /// `deadline` is a [`FaultKind::Timeout`]; the end of its output a [`FaultKind::Crashed`].
    pub fn recv(&mut self, deadline: Instant) -> Result<String, Fault> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(Input::Line(line)) => {
                self.log.line(&format!("{} < {line}", self.label));
                Ok(line)
            }
            Ok(Input::TooLong(prefix)) => {
                self.log
                    .line(&format!("{} < {prefix}... (over-long line)", self.label));
                Err(Fault::new(FaultKind::Garbled, "an over-long output line"))
            }
            Ok(Input::Eof) | Err(RecvTimeoutError::Disconnected) => {
                Err(self.crash("its output ended"))
            }
            Err(RecvTimeoutError::Timeout) => {
                self.log.line(&format!("{} timed out", self.label));
                Err(Fault::new(FaultKind::Timeout, "no answer in time"))
            }
        }
    }

    /// A crash fault that says how the process ended, if it has.
    fn crash(&mut self, what: &str) -> Fault {
        // Give a dying process a moment so its exit status can be reported.
        let until = Instant::now() + Duration::from_millis(200);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                _ => break None,
            }
        };
        let detail = match status {
            Some(status) => format!("{what}: the process exited ({status})"),
            None => what.to_string(),
        };
        self.log.line(&format!("{} {detail}", self.label));
        Fault::new(FaultKind::Crashed, detail)
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.log.line(&format!("{} stopped", self.label));
    }
}
