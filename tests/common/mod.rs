//! Driving the built `tsuru` binary over pipes, as a GUI or referee does.
//!
//! Every read has a timeout, so a hung engine fails the test instead of hanging it. Stdout and
//! stderr lines arrive on one channel, in arrival order, like NBoard's merged stream.

#![allow(dead_code)]

pub mod nboard;
pub mod positions;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Where a line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// What [`Engine::ping`] saw.
pub struct Pong {
    /// The lines read, the pong last.
    pub lines: Vec<String>,
    /// When the ping was sent.
    pub sent: Instant,
    /// How long the pong took to come.
    pub took: Duration,
}

/// A running engine process.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<(Stream, String)>,
    /// Every line received so far, in order.
    pub transcript: Vec<(Stream, String)>,
}

/// Default time to wait for an expected line.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// How soon the engine must stop when told to (quit, end of input, an interrupting command):
/// the robustness issue's 1 s, plus a margin for a loaded 2-core CI machine.
pub const PROMPT: Duration = Duration::from_secs(3);

/// The engine binary under test.
pub const TSURU: &str = env!("CARGO_BIN_EXE_tsuru");

/// Runs `tsuru ARGS` to its end with an empty stdin (a tool, `--help`) and returns its
/// status and output.
pub fn run_tsuru(args: &[&str]) -> std::process::Output {
    Command::new(TSURU)
        .env("XDG_DATA_HOME", test_data_home())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("running tsuru")
}

/// The per-user data folder every tsuru the tests start is given (`XDG_DATA_HOME`): one
/// per test process, in the temporary folder, so that no test reads or writes the real
/// user's book. A test that needs its own sets the variable again.
pub fn test_data_home() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("tsuru-test-data-{}", std::process::id()))
}

/// GRhino, the real GTP peer engine some tests play against (installed by `.ci/run`).
pub const GRHINO: &str = "/usr/games/gtp-rhino";

/// The start position as a GGF board tag.
pub const START_BO: &str =
    "BO[8 ---------------------------O*------*O--------------------------- *]";

/// The engine's arguments as the tests give them: `--no-book` first unless `args` name a
/// book (`--book FILE`, `--no-book`), so that a test that expects a search from the start
/// gets one whatever book ships.
pub fn without_shipped_book<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let names_a_book = args.iter().any(|a| *a == "--book" || *a == "--no-book");
    let mut all = if names_a_book {
        vec![]
    } else {
        vec!["--no-book"]
    };
    all.extend_from_slice(args);
    all
}

impl Engine {
    /// Starts the engine with `args`, without the shipped book unless they name a book
    /// ([`without_shipped_book`]).
    pub fn start(args: &[&str]) -> Engine {
        Engine::spawn(TSURU, &without_shipped_book(args), &[])
    }

    /// Starts the engine with exactly `args`: with the shipped book unless they say
    /// otherwise.
    pub fn start_with_shipped_book(args: &[&str]) -> Engine {
        Engine::spawn(TSURU, args, &[])
    }

    /// Starts the engine with exactly `args` and environment changes (see
    /// [`Engine::start_with_env`]).
    pub fn start_with_shipped_book_and_env(args: &[&str], env: &[(&str, Option<&str>)]) -> Engine {
        Engine::spawn(TSURU, args, env)
    }

    /// Starts the engine with `args` (without the shipped book, as [`Engine::start`]) and
    /// environment changes: `(NAME, Some(value))` sets a variable, `(NAME, None)` removes it
    /// (e.g. `RUST_LOG`).
    pub fn start_with_env(args: &[&str], env: &[(&str, Option<&str>)]) -> Engine {
        Engine::spawn(TSURU, &without_shipped_book(args), env)
    }

    /// Starts any program speaking over stdin/stdout (e.g. a peer engine).
    pub fn start_program(program: &str, args: &[&str]) -> Engine {
        Engine::spawn(program, args, &[])
    }

    fn spawn(program: &str, args: &[&str], env: &[(&str, Option<&str>)]) -> Engine {
        let mut command = Command::new(program);
        command.env("XDG_DATA_HOME", test_data_home());
        for (name, value) in env {
            match value {
                Some(value) => command.env(name, value),
                None => command.env_remove(name),
            };
        }
        let mut child = command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting tsuru");
        let (sender, lines) = mpsc::channel();
        for (stream, reader) in [
            (
                Stream::Stdout,
                Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            ),
            (Stream::Stderr, Box::new(child.stderr.take().unwrap())),
        ] {
            let sender = sender.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(reader);
                let mut bytes = Vec::new();
                loop {
                    bytes.clear();
                    match reader.read_until(b'\n', &mut bytes) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            if bytes.last() == Some(&b'\n') {
                                bytes.pop();
                            }
                            // Keep raw bytes visible: non-ASCII must fail the checks.
                            let line = String::from_utf8_lossy(&bytes).into_owned();
                            if sender.send((stream, line)).is_err() {
                                break;
                            }
                        }
                    }
                }
            });
        }
        Engine {
            stdin: child.stdin.take(),
            child,
            lines,
            transcript: Vec::new(),
        }
    }

    /// Kills the process at once (SIGKILL on Unix: no handler, no clean-up) and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// NBoard's `ping N`: the lines up to and with `pong N` (its last line is that pong; a
    /// test fails after [`TIMEOUT`] without it), when it was sent and how long the pong took.
    pub fn ping(&mut self, n: u32) -> Pong {
        let sent = Instant::now();
        self.send(&format!("ping {n}"));
        let pong = format!("pong {n}");
        let lines = self.read_until(TIMEOUT, |l| l == pong);
        assert_eq!(
            lines.last().map(String::as_str),
            Some(pong.as_str()),
            "no {pong}: {lines:?}"
        );
        Pong {
            lines,
            sent,
            took: sent.elapsed(),
        }
    }

    /// Sends one line (a newline is added).
    pub fn send(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    /// Sends raw bytes.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        self.try_send_bytes(bytes).expect("writing to tsuru");
    }

    /// Sends raw bytes; an error (e.g. a broken pipe: the process is gone) is returned.
    pub fn try_send_bytes(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes)?;
        stdin.flush()
    }

    /// Closes stdin (end of input).
    pub fn close(&mut self) {
        self.stdin = None;
    }

    /// The next stdout line within `timeout` (stderr lines are recorded and skipped).
    pub fn next_line(&mut self, timeout: Duration) -> Option<String> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((stream, line)) => {
                    self.transcript.push((stream, line.clone()));
                    if stream == Stream::Stdout {
                        return Some(line);
                    }
                }
                Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => {
                    return None
                }
            }
        }
    }

    /// Reads stdout lines until one satisfies `pred`; returns the lines read, that one last.
    /// Panics after `timeout`.
    pub fn read_until(&mut self, timeout: Duration, pred: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(line) => {
                    let done = pred(&line);
                    out.push(line);
                    if done {
                        return out;
                    }
                }
                None => panic!(
                    "no awaited line within {timeout:?}; lines so far: {out:#?}\n{}",
                    self.diagnosis()
                ),
            }
        }
    }

    /// Reads lines of both streams (all recorded in the transcript) until `pred` accepts one
    /// or `timeout` passes; returns whether one was accepted.
    pub fn wait_for_any(&mut self, timeout: Duration, pred: impl Fn(Stream, &str) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((stream, line)) => {
                    let done = pred(stream, &line);
                    self.transcript.push((stream, line));
                    if done {
                        return true;
                    }
                }
                Err(_) => return false,
            }
        }
    }

    /// Whether the process still runs (or how it ended), and its stderr so far: for failure
    /// messages.
    pub fn diagnosis(&mut self) -> String {
        while let Ok(line) = self.lines.try_recv() {
            self.transcript.push(line);
        }
        let status = match self.exit_status() {
            Some(status) => format!("the engine has exited ({status})"),
            None => "the engine is still running".to_string(),
        };
        let stderr = self.lines_of(Stream::Stderr);
        format!("{status}; its stderr: {stderr:#?}")
    }

    /// The lines received so far from one stream, in order.
    pub fn lines_of(&self, stream: Stream) -> Vec<&str> {
        self.transcript
            .iter()
            .filter(|(from, _)| *from == stream)
            .map(|(_, line)| line.as_str())
            .collect()
    }

    /// How many threads the process has now (Linux: its `/proc/PID/task` entries); `None`
    /// where that cannot be read.
    pub fn thread_count(&self) -> Option<usize> {
        let tasks = std::fs::read_dir(format!("/proc/{}/task", self.child.id())).ok()?;
        Some(tasks.count())
    }

    /// The exit status if the process has ended, without waiting.
    pub fn exit_status(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Every stdout line that arrives within `duration`.
    pub fn drain(&mut self, duration: Duration) -> Vec<String> {
        let deadline = Instant::now() + duration;
        let mut out = Vec::new();
        while let Some(line) = self.next_line(deadline.saturating_duration_since(Instant::now())) {
            out.push(line);
        }
        out
    }

    /// Waits for the process to exit within `timeout`; returns its exit code.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<i32> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                // Collect what is still in flight.
                while let Ok(line) = self.lines.recv_timeout(Duration::from_millis(50)) {
                    self.transcript.push(line);
                }
                return status.code();
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends a GTP command and reads its response block: `(success, text)` where text is the
/// response without the `=`/`?`, id and leading space, lines joined with newlines.
pub fn gtp(engine: &mut Engine, command: &str) -> (bool, String) {
    engine.send(command);
    let mut lines = Vec::new();
    loop {
        let line = engine.next_line(TIMEOUT).unwrap_or_else(|| {
            panic!(
                "no answer to {command:?}; got {lines:?}\n{}",
                engine.diagnosis()
            )
        });
        if line.is_empty() {
            break;
        }
        lines.push(line);
    }
    let first = lines.first().cloned().unwrap_or_default();
    let ok = first.starts_with('=');
    assert!(
        ok || first.starts_with('?'),
        "{command:?} answered {lines:?}"
    );
    let head = first[1..].trim_start_matches(|c: char| c.is_ascii_digit());
    let mut text = head.strip_prefix(' ').unwrap_or(head).to_string();
    for line in &lines[1..] {
        text.push('\n');
        text.push_str(line);
    }
    (ok, text)
}

/// Every `.rs` file below `dir`, into `out` (the source scans of tests/layers.rs and
/// tests/cycles.rs).
pub fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
