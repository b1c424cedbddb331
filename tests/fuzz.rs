//! Seeded protocol fuzzing of both front ends (issue 18).
//!
//! Lines are built from each protocol's real command vocabulary and then broken: unknown
//! commands, wrong arity, huge, negative and non-numeric numbers (`1e300`, `inf`, `nan`,
//! `18446744073709551616`), NUL, control and non-UTF-8 bytes, CR, tabs, over-long lines,
//! truncated or impossible GGF with absurd clocks, illegal moves. They are mixed with valid
//! commands so games progress and searches start. The seed is fixed, so every run sends the
//! same lines; a failure names the seed, the process and the last lines sent.
//!
//! Guarded, for every line:
//! - no crash: the process lives until its input ends, then exits with status 0, and stderr
//!   never says "panicked";
//! - no hang: every GTP command is answered, and every NBoard line is followed by a `ping`
//!   that must be answered, within [`ANSWER_TIMEOUT`];
//! - GTP framing: exactly one response per non-empty, non-comment line (after GTP's
//!   preprocessing), `=` or `?` plus the line's id, ended by one blank line; a line over
//!   64 KiB gets `? line too long` (with its id);
//! - a GTP command answered `?` leaves `showboard` unchanged;
//! - an NBoard `move` whose square is malformed (`A10`, `F5x`, `D33`: a legal square with
//!   more after it) is refused with a warning, and the model's game stays as it was;
//! - NBoard prints only the line types protocol.md lists, nothing about an older request after
//!   a `pong`, and `ping TOKEN` answers `pong TOKEN` with the token exactly as sent;
//! - every byte on stdout and stderr is ASCII (the engine runs with `RUST_LOG=warn`, so the
//!   log lines about ignored input are exercised too).

mod common;

use std::collections::VecDeque;
use std::time::Duration;

use common::nboard::check_line;
use common::{Engine, Stream};
use tsuru_core::board::{notation, Board, Color, Move, Square};
use tsuru_core::rng::Rng;

/// Fuzz lines per protocol in the default run (both protocols together: 20 000).
const DEFAULT_LINES: usize = 10_000;
/// Fuzz lines per protocol in the long (ignored) run.
const LONG_LINES: usize = 100_000;
/// Lines sent to one process before it is closed and a fresh one started.
const LINES_PER_PROCESS: usize = 2_500;
/// Longest wait for an answer (generous: the CI machine has 2 loaded cores).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest wait for the process to exit after `quit` or the end of its input.
const EXIT_TIMEOUT: Duration = Duration::from_secs(10);
/// A small level and table keep searches (and the run) short.
const ENGINE_ARGS: &[&str] = &["--level", "2", "--hash", "2"];
/// Lines longer than this (in bytes) are over-long (protocol.md, issue 18).
const MAX_LINE_BYTES: usize = 64 * 1024;

/// GTP: 10 000 fuzz lines, each followed by `showboard`.
#[test]
fn gtp_fuzz() {
    run_gtp(0x6774_7000_0001, DEFAULT_LINES);
}

/// NBoard: 10 000 fuzz lines, each followed by `ping`.
#[test]
fn nboard_fuzz() {
    run_nboard(0x6e62_0000_0001, DEFAULT_LINES);
}

/// GTP, 100 000 lines with another seed (`cargo test --release --test fuzz -- --ignored`).
#[test]
#[ignore]
fn gtp_fuzz_long() {
    run_gtp(0x6774_7000_0002, LONG_LINES);
}

/// NBoard, 100 000 lines with another seed.
#[test]
#[ignore]
fn nboard_fuzz_long() {
    run_nboard(0x6e62_0000_0002, LONG_LINES);
}

// ---- random material ----------------------------------------------------------------------

/// Numbers that break parsers and clocks, plus a few ordinary ones.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "8",
    "60",
    "61",
    "300",
    "-300",
    "1e300",
    "-1e300",
    "1e309",
    "inf",
    "-inf",
    "+inf",
    "infinity",
    "nan",
    "NaN",
    "-nan",
    "18446744073709551616",
    "18446744073709551615",
    "9223372036854775808",
    "9223372036854775807",
    "-9223372036854775809",
    "4294967296",
    "4294967295",
    "2147483648",
    "1.5",
    "0.001",
    "1e-300",
    "5e-324",
    "1.7976931348623157e308",
    "99999999999999999999999999999",
    "213503982334601",
    "0x10",
    "+5",
    "1,5",
    "1.",
    ".5",
    "-0",
    "00",
    "007",
    "abc",
    "5:00",
];

const COLORS: &[&str] = &[
    "b", "w", "black", "white", "B", "W", "BLACK", "White", "x", "o", "bw", "blue", "-",
];

const ODD_VERTICES: &[&str] = &[
    "pass", "PASS", "Pass", "pa", "PA", "z9", "i1", "a0", "a9", "j10", "ff", "f", "f55", "11",
    "--", "@1", "h9", "resign",
];

const WORDS: &[&str] = &[
    "frobnicate",
    "genmove_black",
    "quit_now",
    "showboard2",
    "kgs-genmove_cleanup",
    "play_b",
    "loadsgf",
    "final_status_list",
    "Othello",
    "othello",
    "Go",
    "help",
    "nboard",
    "set",
    "=",
    "?",
];

/// Text that is not ASCII, as UTF-8.
const NON_ASCII: &[&str] = &[
    "\u{e9}",
    "\u{2192}",
    "\u{65e5}\u{672c}",
    "\u{fc}",
    "\u{1f600}",
];

/// Bytes that are never valid UTF-8 on their own.
const BAD_BYTES: &[u8] = &[0x80, 0xbf, 0xc0, 0xc1, 0xe9, 0xf5, 0xf8, 0xfe, 0xff];

/// Control bytes other than LF (which would end the line).
const CONTROLS: &[u8] = &[
    0x00, 0x01, 0x02, 0x07, 0x08, 0x0b, 0x0c, 0x0d, 0x1b, 0x1f, 0x7f,
];

/// Clock values for GGF `TI`/`TB`/`TW` that a parser may accept and a budget must survive.
const ABSURD_CLOCKS: &[&str] = &[
    "TI[1e300]",
    "TI[5:00/1e300]",
    "TB[1e300]",
    "TW[1e300]",
    "TI[213503982334601.00:00:00]",
    "TI[-1e300]",
    "TI[inf]",
    "TI[-inf]",
    "TI[nan]",
    "TI[18446744073709551616]",
    "TI[5:00/-1e300]",
    "TI[5:00//1e300]",
    "TI[5:00//-1e300]",
    "TI[5:00/inf/nan]",
    "TI[1.7976931348623157e308]",
    "TI[99999999999999:00:00]",
    "TI[-5:00]",
    "TI[5:00/5:00/5:00/5:00]",
    "TI[:::]",
    "TI[1e300:1e300:1e300]",
    "TI[0.0000001]",
    "TB[5:00]TW[1e300]",
    "TI[]",
];

const SANE_CLOCKS: &[&str] = &[
    "TI[5:00]",
    "TI[0]",
    "TI[1:00//2:00]",
    "TB[5:00]TW[10:00]",
    "TI[0:05]",
    "TI[30:00/10]",
    "",
    "TI[1:00:00]",
];

/// A seeded generator with the helpers both protocols use.
struct Gen {
    rng: Rng,
}

impl Gen {
    fn new(seed: u64) -> Gen {
        Gen {
            rng: Rng::new(seed),
        }
    }

    fn below(&mut self, n: usize) -> usize {
        self.rng.below(n as u64) as usize
    }

    /// True with probability `per_mille` / 1000.
    fn chance(&mut self, per_mille: u64) -> bool {
        self.rng.below(1000) < per_mille
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    fn pick_owned<T>(&mut self, mut items: Vec<T>) -> T {
        let i = self.below(items.len());
        items.swap_remove(i)
    }

    fn number(&mut self) -> String {
        match self.below(10) {
            0..=5 => self.pick(NUMBERS).to_string(),
            6 => self.rng.next_u64().to_string(),
            7 => format!("-{}", self.rng.next_u64() >> self.below(64)),
            8 => format!("{}.{}", self.below(1000), self.below(1000)),
            _ => self.below(100).to_string(),
        }
    }

    fn word(&mut self) -> String {
        if self.chance(500) {
            return self.pick(WORDS).to_string();
        }
        let len = 1 + self.below(12);
        (0..len)
            .map(|_| (b'a' + self.below(26) as u8) as char)
            .collect()
    }

    fn square(&mut self) -> Square {
        Square::ALL[self.below(64)]
    }

    fn vertex(&mut self) -> String {
        match self.below(4) {
            0 => self.pick(ODD_VERTICES).to_string(),
            1 => self.square().to_string(),
            _ => self.square().lower(),
        }
    }

    /// Any printable ASCII token without spaces (a `ping` token).
    fn token(&mut self) -> String {
        match self.below(3) {
            0 => self.pick(NUMBERS).to_string(),
            1 => self.rng.next_u64().to_string(),
            _ => {
                let len = 1 + self.below(20);
                (0..len)
                    .map(|_| (0x21 + self.below(0x7e - 0x21 + 1) as u8) as char)
                    .collect()
            }
        }
    }

    /// A random game from `start`: up to `plies` moves (passes included), ending early when
    /// the game is over.
    fn random_moves(&mut self, start: &Board, plies: usize) -> (Board, Vec<Move>) {
        let mut board = start.clone();
        let mut moves = Vec::new();
        while moves.len() < plies && !board.is_game_over() {
            let legal = board.legal_moves();
            let mv = if legal == 0 {
                Move::Pass
            } else {
                Move::Play(self.rng.pick(legal))
            };
            board.play(mv).expect("a legal move");
            moves.push(mv);
        }
        (board, moves)
    }

    /// Breaks a line at the byte level, one to three times.
    fn mutate(&mut self, mut bytes: Vec<u8>) -> Vec<u8> {
        for _ in 0..1 + self.below(3) {
            let pos = self.below(bytes.len() + 1);
            match self.below(15) {
                0 | 1 => {
                    let c = self.pick(CONTROLS);
                    bytes.insert(pos, c);
                }
                2 => {
                    let b = self.pick(BAD_BYTES);
                    bytes.insert(pos, b);
                }
                3 => {
                    let text = self.pick(NON_ASCII);
                    bytes.splice(pos..pos, text.bytes());
                }
                4 => {
                    let c = 0x20 + self.below(0x5f) as u8;
                    bytes.insert(pos, c);
                }
                5 => {
                    if !bytes.is_empty() {
                        bytes.remove(pos.min(bytes.len() - 1));
                    }
                }
                6 => bytes.truncate(pos),
                7 => {
                    let a = self.below(bytes.len() + 1);
                    let b = a + self.below(bytes.len() - a + 1);
                    let piece = bytes[a..b].to_vec();
                    bytes.splice(pos..pos, piece);
                }
                8 => {
                    // Replace one space-separated token by an odd number.
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    let mut words: Vec<String> = text.split(' ').map(str::to_string).collect();
                    let i = self.below(words.len());
                    words[i] = self.number();
                    bytes = words.join(" ").into_bytes();
                }
                9 => bytes.make_ascii_uppercase(),
                10 => {
                    let id = self.number();
                    bytes.splice(0..0, format!("{id} ").into_bytes());
                }
                11 => {
                    let extra = format!(" {} {}", self.word(), self.number());
                    bytes.extend_from_slice(extra.as_bytes());
                }
                12 => bytes.push(b'\r'),
                13 => bytes.insert(pos, b'\t'),
                _ => bytes.insert(pos, b'#'),
            }
        }
        bytes
    }
}

/// The last lines sent, for failure messages.
struct Recent(VecDeque<String>);

impl Recent {
    fn push(&mut self, bytes: &[u8]) {
        let mut text = format!("{:?}", String::from_utf8_lossy(bytes));
        if text.len() > 300 {
            let head: String = text.chars().take(200).collect();
            text = format!("{head}... ({} bytes)", bytes.len());
        }
        if self.0.len() == 12 {
            self.0.pop_front();
        }
        self.0.push_back(text);
    }
}

/// A fuzzed engine process: the engine, what was sent, and its recent stderr.
struct Process {
    engine: Engine,
    label: String,
    sent: usize,
    recent: Recent,
    stderr_tail: VecDeque<String>,
    nboard: bool,
}

impl Process {
    fn start(label: String, args: &[&str], nboard: bool) -> Process {
        let engine = Engine::start_with_env(args, &[("RUST_LOG", Some("warn"))]);
        Process {
            engine,
            label,
            sent: 0,
            recent: Recent(VecDeque::new()),
            stderr_tail: VecDeque::new(),
            nboard,
        }
    }

    /// Panics with everything useful to reproduce `what`.
    fn fail(&mut self, what: &str) -> ! {
        let status = self
            .engine
            .exit_status()
            .map_or("still running".to_string(), |s| format!("exited: {s}"));
        let _ = self.audit();
        let recent: Vec<&str> = self.recent.0.iter().map(String::as_str).collect();
        let stderr: Vec<&str> = self.stderr_tail.iter().map(String::as_str).collect();
        panic!(
            "{what}\n{} after {} fuzz lines; process {status}\nlast lines sent:\n  {}\n\
             last stderr lines:\n  {}",
            self.label,
            self.sent,
            recent.join("\n  "),
            stderr.join("\n  ")
        );
    }

    /// Sends one line (LF added); a process that is gone fails the test.
    fn send(&mut self, bytes: &[u8], fuzz: bool) {
        if fuzz {
            self.sent += 1;
        }
        self.recent.push(bytes);
        let mut line = bytes.to_vec();
        line.push(b'\n');
        if let Err(err) = self.engine.try_send_bytes(&line) {
            self.fail(&format!(
                "the engine stopped reading its input ({err}): crashed?"
            ));
        }
    }

    /// The next stdout line; no line within [`ANSWER_TIMEOUT`] fails the test.
    fn next_line(&mut self, waiting_for: &str) -> String {
        match self.engine.next_line(ANSWER_TIMEOUT) {
            Some(line) => line,
            None => {
                let how = if self.engine.exit_status().is_some() {
                    "the engine died"
                } else {
                    "no answer within the timeout (hang)"
                };
                self.fail(&format!("{how} while waiting for {waiting_for}"))
            }
        }
    }

    /// Checks every line recorded since the last audit, then forgets them.
    fn audit(&mut self) -> Result<(), String> {
        let transcript = std::mem::take(&mut self.engine.transcript);
        let mut result = Ok(());
        for (stream, line) in transcript {
            let problem = if !line.is_ascii() {
                Some("is not ASCII")
            } else if stream == Stream::Stderr && line.contains("panicked") {
                Some("reports a panic")
            } else if stream == Stream::Stdout && line.bytes().any(|b| b < 0x20 || b == 0x7f) {
                Some("holds a control character")
            } else if stream == Stream::Stderr && self.nboard && !line.starts_with('[') {
                Some("is a log line that does not start with `[` (protocol.md), which NBoard may parse")
            } else {
                None
            };
            if stream == Stream::Stderr {
                if self.stderr_tail.len() == 20 {
                    self.stderr_tail.pop_front();
                }
                self.stderr_tail.push_back(line.clone());
            }
            if let (Some(problem), Ok(())) = (problem, &result) {
                result = Err(format!("{stream:?} line {line:?} {problem}"));
            }
        }
        result
    }

    fn audit_or_fail(&mut self) {
        if let Err(why) = self.audit() {
            self.fail(&why);
        }
    }

    /// Closes the input; the engine must exit with status 0 and print nothing more.
    fn finish(&mut self) {
        self.engine.close();
        self.expect_exit("the end of input");
    }

    /// Waits for the exit after `quit` or the end of input.
    fn expect_exit(&mut self, after: &str) {
        self.audit_or_fail();
        let code = self.engine.wait_exit(EXIT_TIMEOUT);
        if code != Some(0) {
            let what = match self.engine.exit_status() {
                Some(status) => format!("exit status {status} after {after} (expected 0)"),
                None => format!("the engine did not exit within {EXIT_TIMEOUT:?} of {after}"),
            };
            self.fail(&what);
        }
        let extra: Vec<String> = self
            .engine
            .lines_of(Stream::Stdout)
            .into_iter()
            .map(str::to_owned)
            .collect();
        self.audit_or_fail();
        if !extra.is_empty() {
            self.fail(&format!("output nobody asked for after {after}: {extra:?}"));
        }
    }
}

/// A seed for process `index` of a run.
fn process_seed(seed: u64, index: usize) -> u64 {
    seed ^ (index as u64 + 1).wrapping_mul(0x2545_f491_4f6c_dd1d)
}

// ---- GTP -----------------------------------------------------------------------------------

/// What a GTP line must get back, from the specification's preprocessing.
#[derive(Debug, PartialEq)]
enum GtpExpect {
    /// Empty or comment-only after preprocessing: no response at all.
    Nothing,
    /// One response with this id (if any); `name` is the command word in lower case.
    Answer {
        id: Option<String>,
        name: Option<String>,
    },
    /// Over 64 KiB: `?[id] line too long`.
    TooLong { id: Option<String> },
}

/// GTP preprocessing as the specification (and protocol.md) says: control characters other
/// than tab removed, tabs to spaces, `#` starts a comment. Invalid UTF-8 reads as U+FFFD.
fn gtp_words(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let clean: String = text
        .split('#')
        .next()
        .unwrap_or("")
        .chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            c if (c as u32) < 0x20 || c == '\x7f' => None,
            c => Some(c),
        })
        .collect();
    clean
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The command and its arguments in lower case, without the id.
fn command_words(bytes: &[u8]) -> Vec<String> {
    let mut words = gtp_words(bytes);
    if words
        .first()
        .is_some_and(|w| w.bytes().all(|b| b.is_ascii_digit()))
    {
        words.remove(0);
    }
    words.iter().map(|w| w.to_ascii_lowercase()).collect()
}

fn gtp_expectation(bytes: &[u8]) -> GtpExpect {
    let words = gtp_words(bytes);
    let id = words
        .first()
        .filter(|w| w.bytes().all(|b| b.is_ascii_digit()))
        .cloned();
    if bytes.len() > MAX_LINE_BYTES {
        return GtpExpect::TooLong { id };
    }
    if words.is_empty() {
        return GtpExpect::Nothing;
    }
    let name = words
        .get(usize::from(id.is_some()))
        .map(|w| w.to_ascii_lowercase());
    GtpExpect::Answer { id, name }
}

/// Characters whose treatment the specification leaves open (Unicode controls U+0080..U+009F
/// and non-ASCII whitespace): lines holding them are not generated.
fn ambiguous(bytes: &[u8]) -> bool {
    String::from_utf8_lossy(bytes)
        .chars()
        .any(|c| ('\u{80}'..='\u{9f}').contains(&c) || (!c.is_ascii() && c.is_whitespace()))
}

/// Checks a response's first line against the command's id; returns whether it is a success.
/// The id is echoed as sent (leading zeros may be dropped), followed by a space or the end.
fn check_head(first: &str, id: Option<&str>) -> Result<bool, String> {
    let success = match first.as_bytes().first() {
        Some(b'=') => true,
        Some(b'?') => false,
        _ => return Err(format!("{first:?} starts no response (`=` or `?`)")),
    };
    let rest = &first[1..];
    let after = match id {
        None => rest,
        Some(id) => {
            let short = id.trim_start_matches('0');
            let short = if short.is_empty() { "0" } else { short };
            match rest.strip_prefix(id).or_else(|| rest.strip_prefix(short)) {
                Some(after) => after,
                None => return Err(format!("{first:?} does not carry the id {id}")),
            }
        }
    };
    if after.is_empty() || after.starts_with(' ') {
        Ok(success)
    } else {
        Err(format!(
            "{first:?}: the response head is not `=`/`?` + id {id:?} then a space or the end"
        ))
    }
}

fn color_word(gen: &mut Gen, color: Color) -> &'static str {
    match (color, gen.below(4)) {
        (Color::Black, 0) => "b",
        (Color::Black, 1) => "black",
        (Color::Black, 2) => "B",
        (Color::Black, _) => "Black",
        (Color::White, 0) => "w",
        (Color::White, 1) => "white",
        (Color::White, 2) => "W",
        (Color::White, _) => "WHITE",
    }
}

/// A valid command for the position the test believes the engine has.
fn gtp_valid(gen: &mut Gen, mirror: Option<&Board>) -> String {
    let Some(board) = mirror else {
        return "clear_board".into();
    };
    if board.is_game_over() && gen.chance(200) {
        return "clear_board".into();
    }
    let stm = board.side_to_move();
    match gen.below(100) {
        0..=49 if !board.is_game_over() => {
            if board.must_pass() {
                if gen.chance(300) {
                    let c = color_word(gen, stm);
                    return format!("play {c} pass");
                }
                // Quarry's way: the other colour plays, the pass is implied.
                let mut after = board.clone();
                after.make_pass();
                let square = gen.rng.pick(after.legal_moves());
                let c = color_word(gen, stm.opponent());
                let v = if gen.chance(500) {
                    square.to_string()
                } else {
                    square.lower()
                };
                return format!("play {c} {v}");
            }
            let square = gen.rng.pick(board.legal_moves());
            let c = color_word(gen, stm);
            let v = if gen.chance(500) {
                square.to_string()
            } else {
                square.lower()
            };
            format!("play {c} {v}")
        }
        50..=64 => {
            let color = if board.must_pass() || gen.chance(100) {
                stm.opponent()
            } else {
                stm
            };
            let c = color_word(gen, color);
            format!("genmove {c}")
        }
        65..=70 => "undo".into(),
        71..=73 if gen.chance(100) => "clear_board".into(),
        74..=77 => {
            let settings = gen.pick(&[
                "300 0 0", "0 1 0", "60 10 5", "1 0 0", "0 0 0", "5 1 1", "0.5 0 0", "10 0.5 2",
            ]);
            format!("time_settings {settings}")
        }
        78..=81 => {
            let c = gen.pick(COLORS[..4].as_ref());
            let secs = gen.pick(&["0", "0.1", "1", "10", "300", "1.5", "0.01"]);
            let stones = gen.pick(&["0", "1", "5", "25"]);
            format!("time_left {c} {secs} {stones}")
        }
        _ => {
            let query = gen.pick(&[
                "showboard",
                "final_score",
                "gogui-rules_legal_moves",
                "gogui-rules_board",
                "gogui-rules_side_to_move",
                "gogui-rules_final_result",
                "gogui-rules_game_id",
                "gogui-rules_board_size",
                "protocol_version",
                "name",
                "version",
                "list_commands",
                "known_command play",
                "known_command frobnicate",
                "boardsize 8",
                "komi 6.5",
                "set_game Othello",
                "list_games",
                "reg_genmove b",
                "reg_genmove w",
            ]);
            query.to_string()
        }
    }
}

/// A real command name (never `quit`) or a made-up one, with plausible, odd or missing
/// arguments.
fn gtp_random_command(gen: &mut Gen) -> String {
    let names: Vec<&str> = tsuru::test_hooks::COMMANDS
        .iter()
        .map(|c| c.name)
        .filter(|n| *n != "quit")
        .collect();
    let name = if gen.chance(900) {
        // Rarely a new game or a take-back, so that games reach their end.
        let mut name = gen.pick(&names);
        while ["clear_board", "undo"].contains(&name) && !gen.chance(100) {
            name = gen.pick(&names);
        }
        name.to_string()
    } else {
        gen.word()
    };
    let mut args: Vec<String> = match name.as_str() {
        "play" => vec![gen.pick(COLORS).into(), gen.vertex()],
        "genmove" | "reg_genmove" => vec![gen.pick(COLORS).into()],
        "time_settings" => vec![gen.number(), gen.number(), gen.number()],
        "time_left" => vec![gen.pick(COLORS).into(), gen.number(), gen.number()],
        "komi" | "boardsize" => vec![gen.number()],
        "known_command" => vec![if gen.chance(500) {
            gen.pick(&names).to_string()
        } else {
            gen.word()
        }],
        "set_game" => vec![gen.word()],
        _ => vec![],
    };
    // Wrong arity and odd values.
    match gen.below(10) {
        0 if !args.is_empty() => {
            args.pop();
        }
        1 => args.push(gen.number()),
        2 => args.push(gen.word()),
        3 if !args.is_empty() => {
            let i = gen.below(args.len());
            args[i] = gen.number();
        }
        _ => {}
    }
    let mut line = name;
    for arg in args {
        line.push(' ');
        line.push_str(&arg);
    }
    line
}

/// An over-long GTP line: an optional id, a command word, then filler (no `#`, no controls).
fn gtp_over_long(gen: &mut Gen) -> Vec<u8> {
    let mut line = String::new();
    if gen.chance(600) {
        line.push_str(&format!("{} ", gen.below(1000)));
    }
    line.push_str(gen.pick(&["genmove b ", "play b ", "name ", "x", "set_game ", "komi "]));
    let len = 70_000 + gen.below(130_000);
    while line.len() < len {
        line.push(match gen.below(10) {
            0 => ' ',
            1 => (b'0' + gen.below(10) as u8) as char,
            _ => (b'a' + gen.below(26) as u8) as char,
        });
    }
    line.into_bytes()
}

/// One GTP fuzz line.
fn gtp_line(gen: &mut Gen, mirror: Option<&Board>) -> Vec<u8> {
    loop {
        let bytes = match gen.below(1000) {
            0..=1 => gtp_over_long(gen),
            2 => {
                let line = if gen.chance(500) {
                    format!("{} quit", gen.below(100))
                } else {
                    "quit".to_string()
                };
                line.into_bytes()
            }
            3..=29 => {
                let blank = gen.pick(&[
                    "",
                    " ",
                    "   ",
                    "\t",
                    "\r",
                    "# comment",
                    "  # play b f5",
                    "\t#",
                    "\x00",
                    "\x7f",
                    "\x0b\x0c",
                    "#quit",
                ]);
                blank.as_bytes().to_vec()
            }
            30..=429 => {
                let line = gtp_valid(gen, mirror);
                let line = if gen.chance(200) {
                    format!("{} {line}", gen.below(10_000))
                } else {
                    line
                };
                line.into_bytes()
            }
            430..=729 => {
                let line = gtp_random_command(gen);
                let line = if gen.chance(250) {
                    format!("{} {line}", gen.below(10_000))
                } else {
                    line
                };
                line.into_bytes()
            }
            _ => {
                let base = if gen.chance(500) {
                    gtp_random_command(gen)
                } else {
                    gtp_valid(gen, mirror)
                };
                gen.mutate(base.into_bytes())
            }
        };
        if bytes.contains(&b'\n') || ambiguous(&bytes) {
            continue;
        }
        assert!(
            bytes.len() < 60_000 || bytes.len() > MAX_LINE_BYTES + 1000,
            "generated a line at the length limit"
        );
        return bytes;
    }
}

fn parse_gtp_color(word: Option<&String>) -> Option<Color> {
    match word?.as_str() {
        "b" | "black" => Some(Color::Black),
        "w" | "white" => Some(Color::White),
        _ => None,
    }
}

/// Applies a command the engine accepted (`=`) to the test's copy of the position, reading
/// the command from the line as the engine does; `None` when the copy can no longer be
/// trusted. `answer` is the response text (the move of a `genmove`).
fn apply_accepted(mirror: Option<Board>, bytes: &[u8], answer: &str) -> Option<Board> {
    let mut board = mirror?;
    let words = command_words(bytes);
    let Some(name) = words.first() else {
        return Some(board);
    };
    let ok = match name.as_str() {
        "clear_board" => {
            board = Board::start();
            true
        }
        "undo" => board.undo().is_some(),
        "play" | "genmove" => {
            let color = parse_gtp_color(words.get(1))?;
            if board.is_game_over() {
                return (name == "genmove").then_some(board);
            }
            if color != board.side_to_move() && board.must_pass() {
                board.make_pass();
            }
            let text = if name == "play" {
                words.get(2)?.as_str()
            } else {
                answer
            };
            match text.parse::<Move>() {
                Ok(mv) => board.play(mv).is_ok(),
                Err(_) => false,
            }
        }
        _ => true,
    };
    ok.then_some(board)
}

fn run_gtp(seed: u64, lines: usize) {
    let mut done = 0;
    let mut index = 0;
    while done < lines {
        done += gtp_process(seed, index, LINES_PER_PROCESS.min(lines - done));
        index += 1;
    }
}

/// Runs up to `lines` fuzz lines through one GTP process; returns how many were sent (fewer
/// when a `quit` ended it).
fn gtp_process(seed: u64, index: usize, lines: usize) -> usize {
    let mut gen = Gen::new(process_seed(seed, index));
    let mut args = vec!["--gtp"];
    args.extend_from_slice(ENGINE_ARGS);
    let mut p = Process::start(
        format!("GTP fuzz, seed {seed:#x}, process {index}"),
        &args,
        false,
    );
    let mut sync: u64 = 0;
    let mut board_text = showboard(&mut p, &mut sync);
    let mut mirror = Some(Board::start());
    while p.sent < lines {
        let bytes = gtp_line(&mut gen, mirror.as_ref());
        let expect = gtp_expectation(&bytes);
        let quits = matches!(&expect, GtpExpect::Answer { name: Some(name), .. } if name == "quit");
        p.send(&bytes, true);
        // `showboard` goes out at once (not after a `quit`): a line left unanswered then shows
        // as `showboard`'s answer arriving first, without waiting for a timeout.
        let board_id = (!quits).then(|| request_showboard(&mut p, &mut sync));
        let mut success = true;
        let mut answer = String::new();
        match &expect {
            GtpExpect::Nothing => {}
            GtpExpect::TooLong { id } => {
                let block = read_answer(&mut p, "`? line too long`", board_id);
                let wanted = format!("?{} line too long", id.as_deref().unwrap_or(""));
                if block != [wanted.clone()] {
                    p.fail(&format!(
                        "a line of {} bytes was answered {block:?}, not {wanted:?}",
                        bytes.len()
                    ));
                }
                success = false;
            }
            GtpExpect::Answer { id, name } => {
                let block = read_answer(&mut p, "a GTP response", board_id);
                success = match check_head(&block[0], id.as_deref()) {
                    Ok(success) => success,
                    Err(why) => p.fail(&format!("bad response {block:?}: {why}")),
                };
                answer = block[0][1..]
                    .trim_start_matches(|c: char| c.is_ascii_digit())
                    .trim()
                    .to_string();
                if success && name.as_deref() == Some("quit") {
                    p.expect_exit("`quit`");
                    return p.sent;
                }
            }
        }
        p.audit_or_fail();
        let now = read_showboard(&mut p, board_id.expect("sent unless quit"));
        if !success && now != board_text {
            p.fail(&format!(
                "a command answered `?` changed the board:\nbefore:\n{board_text}\nafter:\n{now}"
            ));
        }
        board_text = now;
        mirror = if success {
            apply_accepted(mirror, &bytes, &answer)
        } else {
            mirror
        };
        if mirror
            .as_ref()
            .is_some_and(|b| notation::diagram(b) != board_text)
        {
            mirror = None;
        }
    }
    p.finish();
    p.sent
}

/// Reads one response block: its lines up to (without) the blank line that ends it.
fn read_block(p: &mut Process, what: &str) -> Vec<String> {
    let mut block = Vec::new();
    loop {
        let line = p.next_line(what);
        if line.is_empty() {
            if block.is_empty() {
                p.fail(&format!(
                    "a blank line where {what} should start (a response ended by two blank lines?)"
                ));
            }
            return block;
        }
        block.push(line);
    }
}

/// Reads the response to a fuzz line; `showboard`'s answer (sent after the line) arriving
/// instead means the line got none.
fn read_answer(p: &mut Process, what: &str, board_id: Option<u64>) -> Vec<String> {
    let block = read_block(p, what);
    if board_id.is_some_and(|id| block[0] == format!("={id}")) {
        p.fail(&format!(
            "no {what} to the last line: the next command's answer came first ({:?})",
            block[0]
        ));
    }
    block
}

/// `showboard` with a fresh id; returns the id.
fn request_showboard(p: &mut Process, sync: &mut u64) -> u64 {
    *sync += 1;
    let id = 900_000_000 + *sync;
    p.send(format!("{id} showboard").as_bytes(), false);
    id
}

/// `showboard` with a fresh id; returns the diagram.
fn showboard(p: &mut Process, sync: &mut u64) -> String {
    let id = request_showboard(p, sync);
    read_showboard(p, id)
}

/// Reads `showboard`'s answer and returns the diagram. Anything else arriving first is a
/// response the last line should not have had.
fn read_showboard(p: &mut Process, id: u64) -> String {
    let block = read_block(p, "the answer to `showboard`");
    if block[0] != format!("={id}") {
        p.fail(&format!(
            "expected the `showboard` answer `={id}`, got {block:?}: a response to a line that \
             needs none, or a second response to one line"
        ));
    }
    p.audit_or_fail();
    block[1..].join("\n")
}

// ---- NBoard --------------------------------------------------------------------------------

/// Whether `line` is one of the lines protocol.md says tsuru prints on stdout in NBoard
/// mode, in the syntax NBoard parses ([`check_line`]); but `pong` carries any one token, as
/// tsuru echoes whatever token a `ping` had (NBoard itself only sends numbers).
fn nboard_line_ok(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.len() == 2 && words[0] == "pong" {
        return true;
    }
    check_line(Stream::Stdout, line).is_ok()
}

/// The GGF board text (`BO[8 ...]` contents) of a position.
fn bo_text(board: &Board) -> String {
    let squares: String = Square::ALL
        .iter()
        .map(|&sq| match board.disc(sq) {
            Some(Color::Black) => '*',
            Some(Color::White) => 'O',
            None => '-',
        })
        .collect();
    let side = if board.side_to_move() == Color::Black {
        '*'
    } else {
        'O'
    };
    format!("8 {squares} {side}")
}

/// A GGF move tag for `mv` by the colour to move in `board`, with sane or absurd eval/time.
fn ggf_move_tag(gen: &mut Gen, board: &Board, mv: Move, absurd: bool) -> String {
    let tag = if board.side_to_move() == Color::Black {
        'B'
    } else {
        'W'
    };
    let text = match mv {
        Move::Pass => gen.pick(&["PA", "PA", "pass", "pa"]).to_string(),
        Move::Play(square) => square.to_string(),
    };
    let suffix = if absurd && gen.chance(300) {
        let time = gen.pick(&[
            "-1e300",
            "1e300",
            "inf",
            "-inf",
            "nan",
            "1e309",
            "-0",
            "99999999999999999999",
        ]);
        let eval = gen.pick(&["", "1e300", "nan", "inf", "-1e300"]);
        format!("/{eval}/{time}")
    } else {
        match gen.below(4) {
            0 => String::new(),
            1 => format!("//{}", gen.pick(&["3.1", "0.52", "0", "1,5", "5.0E-4"])),
            _ => format!(
                "/{}/{}",
                gen.pick(&["", "1.5", "-0.40", "+3", "1,23", "5.0E-4"]),
                gen.pick(&["", "3.1", "0.52", "0", "1,5"])
            ),
        }
    };
    format!("{tag}[{text}{suffix}]")
}

/// A `set game` GGF text: a random game (from the start or a random position), sane or
/// absurd clocks and times. Returns the text and the final position.
fn ggf_game(gen: &mut Gen, absurd: bool) -> (String, Board) {
    let start = if gen.chance(150) {
        let plies = gen.below(50);
        gen.random_moves(&Board::start(), plies).0.without_history()
    } else {
        Board::start()
    };
    let plies = gen.below(70);
    let (end, moves) = gen.random_moves(&start, plies);
    let mut board = start.clone();
    let mut tags = String::new();
    for mv in moves {
        tags.push_str(&ggf_move_tag(gen, &board, mv, absurd));
        board.play(mv).expect("replaying a legal game");
    }
    let clock = if absurd && gen.chance(700) {
        gen.pick(ABSURD_CLOCKS)
    } else {
        gen.pick(SANE_CLOCKS)
    };
    let (pb, pw) = if gen.chance(100) {
        ("J\u{e9}r\u{f4}me", "\u{65e5}\u{672c}")
    } else {
        ("alice", "tsuru")
    };
    let count = if gen.chance(100) { "1 " } else { "" };
    let text = format!(
        "{count}(;GM[Othello]PC[fuzz]DT[2024-05-01 10:00:00 GMT]PB[{pb}]PW[{pw}]RE[?]{clock}\
         TY[8]BO[{}]{tags};)",
        bo_text(&start)
    );
    (text, end)
}

/// A broken `set game` text: cut off, a bad board, an illegal move, a wrong game type...
fn ggf_broken(gen: &mut Gen) -> Vec<u8> {
    let (text, end) = ggf_game(gen, true);
    let start_bo = bo_text(&Board::start());
    match gen.below(10) {
        0 | 1 => {
            let mut bytes = text.into_bytes();
            let cut = gen.below(bytes.len());
            bytes.truncate(cut);
            bytes
        }
        2 => {
            let bad = gen.pick_owned(vec![
                "BO[10 ---]".to_string(),
                "BO[8 ---]".to_string(),
                format!("BO[8 {} ?]", "-".repeat(64)),
                format!("BO[8 {}*]", "Z".repeat(64)),
                "BO[]".to_string(),
                "BO[8".to_string(),
                format!("BO[8 {} *]", "-".repeat(63)),
                format!("BO[8 {} *]", "-".repeat(65)),
                format!("BO[6 {} *]", "-".repeat(36)),
                format!("BO[8 {}]", "*".repeat(64)),
            ]);
            text.replacen(&format!("BO[{start_bo}]"), &bad, 1)
                .into_bytes()
        }
        3 => {
            // An illegal move at the end (or a move in a finished game).
            let tag = if end.side_to_move() == Color::Black {
                "B"
            } else {
                "W"
            };
            let occupied = Square::ALL
                .iter()
                .find(|&&sq| end.disc(sq).is_some())
                .expect("a disc");
            let bad = gen.pick_owned(vec![
                format!("{tag}[{occupied}]"),
                format!("{tag}[Z9]"),
                format!("{tag}[]"),
                format!("{tag}[PA]PA[F5]"),
                "B[A1]W[A1]".to_string(),
            ]);
            text.replacen(";)", &format!("{bad};)"), 1).into_bytes()
        }
        4 => text
            .replacen(
                "GM[Othello]",
                gen.pick(&["GM[Go]", "GM[]", "GM[othello8]"]),
                1,
            )
            .into_bytes(),
        5 => text
            .replacen(
                "TY[8]",
                gen.pick(&["TY[8a]", "TY[10]", "TY[]", "TY[8r]", "TY[s8]"]),
                1,
            )
            .into_bytes(),
        6 => {
            let cut = gen.pick(&["(;", ";)"]);
            text.replacen(cut, "", 1).into_bytes()
        }
        7 => {
            let mut bytes = text.into_bytes();
            let pos = gen.below(bytes.len());
            let junk = gen.pick(&["]", "[", "[[", ")", "(;", "\\"]);
            bytes.splice(pos..pos, junk.bytes());
            bytes
        }
        8 => {
            let many = "B[F5]W[D6]".repeat(100);
            format!("(;GM[Othello]TY[8]BO[{start_bo}]{many};)").into_bytes()
        }
        _ => format!("(;(;GM[Othello]TY[8]BO[{start_bo}];);)").into_bytes(),
    }
}

/// How a valid NBoard line changes the game, to keep the test's copy of the position.
enum NbEffect {
    None,
    SetGame(Box<Board>),
    Play(Move),
    /// A move whose square is malformed (a legal square with more after it): refused, the
    /// game unchanged.
    Refused,
}

/// A valid NBoard command for the position the test believes the engine has.
fn nboard_valid(gen: &mut Gen, mirror: Option<&Board>) -> (String, NbEffect) {
    let need_game = mirror.is_none_or(|b| b.is_game_over());
    let playable = mirror.is_some_and(|b| !b.is_game_over());
    let mut roll = if need_game && gen.chance(600) {
        0
    } else {
        gen.below(100)
    };
    if (15..=44).contains(&roll) && !playable {
        roll = 0;
    }
    match roll {
        0..=14 => {
            let (text, board) = ggf_game(gen, false);
            (
                format!("set game {text}"),
                NbEffect::SetGame(Box::new(board)),
            )
        }
        41..=44 if !mirror.expect("checked").must_pass() => {
            // A legal square with a digit, a letter or another square after it (`move
            // A10`, `move F5x`, `move D33`): never read as the square it starts with.
            let board = mirror.expect("checked");
            let square = gen.rng.pick(board.legal_moves());
            let tail = match gen.below(3) {
                0 => gen.below(10).to_string(),
                1 => gen.pick(&["x", "a", "H", "p"]).to_string(),
                _ => gen.square().to_string(),
            };
            (format!("move {square}{tail}"), NbEffect::Refused)
        }
        15..=44 => {
            let board = mirror.expect("checked");
            let mv = if board.must_pass() {
                Move::Pass
            } else {
                Move::Play(gen.rng.pick(board.legal_moves()))
            };
            let text = match (mv, gen.below(3)) {
                (Move::Pass, 0) => "pa".to_string(),
                (Move::Pass, _) => "PA".to_string(),
                (Move::Play(sq), 0) => sq.lower(),
                (Move::Play(sq), _) => sq.to_string(),
            };
            let suffix = match gen.below(4) {
                0 => String::new(),
                1 => format!("//{}", gen.below(100)),
                _ => format!(
                    "/{}.{:02}/{}.{}",
                    gen.below(20),
                    gen.below(100),
                    gen.below(30),
                    gen.below(10)
                ),
            };
            let line = if gen.chance(100) && suffix.is_empty() && mv != Move::Pass {
                text // protocol version 1: the move alone
            } else {
                format!("move {text}{suffix}")
            };
            (line, NbEffect::Play(mv))
        }
        45..=54 => ("go".into(), NbEffect::None),
        55..=64 => (format!("hint {}", 1 + gen.below(6)), NbEffect::None),
        65..=69 => ("analyze".into(), NbEffect::None),
        70..=72 => ("learn".into(), NbEffect::None),
        73..=80 => {
            let depth = if gen.chance(100) {
                1 + gen.below(60)
            } else {
                1 + gen.below(8)
            };
            (format!("set depth {depth}"), NbEffect::None)
        }
        81..=83 => (
            format!("set contempt {}", gen.below(129) as i64 - 64),
            NbEffect::None,
        ),
        84..=97 => (format!("ping {}", gen.token()), NbEffect::None),
        _ => ("nboard 2".into(), NbEffect::None),
    }
}

/// NBoard's vocabulary with odd arguments.
fn nboard_random(gen: &mut Gen) -> Vec<u8> {
    match gen.below(12) {
        0..=2 => {
            let mut line = b"set game ".to_vec();
            if gen.chance(500) {
                line.extend(ggf_broken(gen));
            } else {
                line.extend(ggf_game(gen, true).0.into_bytes());
            }
            line
        }
        3 => {
            let token = gen.pick(&[
                "PA",
                "pass",
                "--",
                "F5/nan/inf",
                "F5//-1e300",
                "F5/1e300/1e300",
                "\u{e9}5",
                "",
                "F5 F6",
                "f5//1,5",
                "F5/",
                "F5///",
                "Z9",
                "a0",
                "F5//inf",
                "P",
            ]);
            let token = if gen.chance(300) {
                gen.vertex()
            } else {
                token.to_string()
            };
            format!("move {token}").into_bytes()
        }
        4 => format!("hint {}", gen.number()).into_bytes(),
        5 => format!("set depth {}", gen.number()).into_bytes(),
        6 => format!("set contempt {}", gen.number()).into_bytes(),
        7 => format!("set {} {}", gen.word(), gen.number()).into_bytes(),
        8 => format!("ping {}", gen.token()).into_bytes(),
        9 => {
            let word = gen.pick(&["go", "analyze", "learn", "nboard", "ping", "hint", "set"]);
            format!("{word} {} {}", gen.word(), gen.number()).into_bytes()
        }
        10 => gen.vertex().into_bytes(),
        _ => gen.word().into_bytes(),
    }
}

/// An over-long NBoard line.
fn nboard_over_long(gen: &mut Gen) -> Vec<u8> {
    let len = 70_000 + gen.below(130_000);
    let (head, unit) = gen.pick(&[
        ("", "x"),
        ("ping ", "7"),
        ("set game (;GM[Othello]TY[8]", "B[F5]W[D6]"),
        ("move ", "F"),
        ("hint ", "9"),
    ]);
    let mut line = head.to_string();
    while line.len() < len {
        line.push_str(unit);
    }
    line.into_bytes()
}

/// A pristine `ping TOKEN` line's token (it must be echoed exactly), if the line is one.
fn pristine_ping(bytes: &[u8]) -> Option<String> {
    // A line over the input limit is not read at all, so it gets no `pong`.
    if bytes.len() > MAX_LINE_BYTES {
        return None;
    }
    let text = std::str::from_utf8(bytes).ok()?;
    let text = text.strip_suffix('\r').unwrap_or(text);
    let token = text.strip_prefix("ping ")?;
    (!token.is_empty() && token.bytes().all(|b| (0x21..=0x7e).contains(&b)))
        .then(|| token.to_string())
}

/// Whether a line could start a search (`go`, `hint`, `analyze`), read generously.
fn may_search(bytes: &[u8]) -> bool {
    let lower = String::from_utf8_lossy(bytes).to_ascii_lowercase();
    ["go", "hint", "analy"].iter().any(|w| lower.contains(w))
}

fn run_nboard(seed: u64, lines: usize) {
    let mut done = 0;
    let mut index = 0;
    while done < lines {
        done += nboard_process(seed, index, LINES_PER_PROCESS.min(lines - done));
        index += 1;
    }
}

/// Sends `ping` with a fresh number and reads up to its `pong`, checking every line.
/// Returns the lines before the `pong`.
fn nboard_sync(p: &mut Process, sync: &mut u64) -> Vec<String> {
    *sync += 1;
    let token = format!("{}", 900_000_000 + *sync);
    let pong = format!("pong {token}");
    p.send(format!("ping {token}").as_bytes(), false);
    let mut lines = Vec::new();
    loop {
        let line = p.next_line(&format!("`{pong}`"));
        if line == pong {
            p.audit_or_fail();
            return lines;
        }
        if !nboard_line_ok(&line) {
            p.fail(&format!(
                "stdout line {line:?} is none of the lines protocol.md lists for NBoard"
            ));
        }
        lines.push(line);
    }
}

/// Runs up to `lines` fuzz lines through one NBoard process; returns how many were sent.
fn nboard_process(seed: u64, index: usize, lines: usize) -> usize {
    let mut gen = Gen::new(process_seed(seed, index));
    // Half the processes detect the protocol from `nboard 2`, half are told.
    let mut args: Vec<&str> = if index.is_multiple_of(2) {
        vec![]
    } else {
        vec!["--nboard"]
    };
    args.extend_from_slice(ENGINE_ARGS);
    let mut p = Process::start(
        format!("NBoard fuzz, seed {seed:#x}, process {index}"),
        &args,
        true,
    );
    let mut sync: u64 = 0;
    p.send(b"nboard 2", false);
    let hello = nboard_sync(&mut p, &mut sync);
    if hello != ["set myname tsuru"] {
        p.fail(&format!("`nboard 2` answered {hello:?}"));
    }
    let mut mirror = Some(Board::start());
    while p.sent < lines {
        let roll = gen.below(1000);
        let (bytes, effect) = match roll {
            0..=1 => (nboard_over_long(&mut gen), NbEffect::None),
            2 => {
                p.send(b"quit", true);
                p.expect_exit("`quit`");
                return p.sent;
            }
            3..=19 => {
                let blank = gen.pick(&["", " ", "\t", "\r", "\x00", "  \r"]);
                (blank.as_bytes().to_vec(), NbEffect::None)
            }
            20..=419 => {
                let (line, effect) = nboard_valid(&mut gen, mirror.as_ref());
                (line.into_bytes(), effect)
            }
            420..=719 => (nboard_random(&mut gen), NbEffect::None),
            _ => {
                let base = if gen.chance(500) {
                    nboard_random(&mut gen)
                } else {
                    nboard_valid(&mut gen, mirror.as_ref()).0.into_bytes()
                };
                (gen.mutate(base), NbEffect::None)
            }
        };
        let bytes: Vec<u8> = bytes.into_iter().filter(|&b| b != b'\n').collect();
        p.send(&bytes, true);
        if may_search(&bytes) && gen.chance(300) {
            // Let a search print some lines before the `ping` stops it.
            std::thread::sleep(Duration::from_millis(gen.below(15) as u64));
        }
        let lines = nboard_sync(&mut p, &mut sync);
        if let Some(token) = pristine_ping(&bytes) {
            let pong = format!("pong {token}");
            if !lines.contains(&pong) {
                p.fail(&format!(
                    "`ping {token}` was not answered `{pong}` (got {lines:?})"
                ));
            }
        }
        if !may_search(&bytes) {
            if let Some(stale) = lines.iter().find(|l| {
                !(l.starts_with("pong ") || l.starts_with("set myname ") || *l == "learned")
            }) {
                p.fail(&format!(
                    "{stale:?} printed after the previous `pong` by a line that starts no search: \
                     output about an older request (protocols.md 1.5)"
                ));
            }
        }
        match effect {
            NbEffect::None => {}
            NbEffect::Refused => {
                // Its warning may reach the merged stream after the pong.
                let line = String::from_utf8_lossy(&bytes).into_owned();
                let warned = format!("ignored \"{line}\"");
                // The sync's audit has moved what came before the pong to the stderr tail.
                let seen = p.stderr_tail.iter().any(|l| l.contains(&warned))
                    || p.engine
                        .transcript
                        .iter()
                        .any(|(stream, l)| *stream == Stream::Stderr && l.contains(&warned))
                    || p.engine.wait_for_any(Duration::from_secs(5), |stream, l| {
                        stream == Stream::Stderr && l.contains(&warned)
                    });
                if !seen {
                    p.fail(&format!("{line:?} was not refused (no warning on stderr)"));
                }
            }
            NbEffect::SetGame(board) => mirror = Some(*board),
            NbEffect::Play(mv) => {
                mirror = mirror.and_then(|mut b| b.play(mv).is_ok().then_some(b));
            }
        }
    }
    p.finish();
    p.sent
}
