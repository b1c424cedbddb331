//! GTP 2 with the Othello conventions (see protocol.md, "GTP").
//!
//! Every command gets exactly one response: `=` or `?`, the command's numeric id if it had
//! one, a space and the text, ended by an empty line. Input is preprocessed as the GTP
//! specification says: control characters other than tab and newline are removed, tabs
//! become spaces, `#` starts a comment, empty lines are skipped. One table, [`COMMANDS`],
//! drives dispatch, `list_commands`, `known_command`, the help text and protocol detection.
//!
//! Passes: `play <colour> pass` is accepted when that colour is to move and has no legal
//! move; a `play` or `genmove` for the colour that is *not* to move is accepted when the side
//! to move has no legal move, by first recording that side's pass (Quarry and GRhino never
//! send passes). Anything else is refused with the state untouched.

use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::input::Input;
use super::output::Output;
use super::{Event, InputQueue};
use crate::session::{Decision, DecisionListener, Loaded, Session};
use tsuru_core::board::{notation, Board, Color, Move};
use tsuru_core::formats::ggf::GgfMove;
use tsuru_core::search::time::{saturating_seconds, Clock};

/// One GTP command: its name, its arguments (for the help text), a description and the
/// function that carries it out.
pub struct Command {
    /// The command name.
    pub name: &'static str,
    /// Argument syntax, for `--help` and protocol.md.
    pub args: &'static str,
    /// One-line description.
    pub help: &'static str,
    run: Action,
}

/// How a command is carried out.
enum Action {
    /// At once, with this function.
    Reply(fn(&mut Gtp, &[&str]) -> Reply),
    /// By a search in the background (`genmove`, or `reg_genmove` when not `commit`).
    Genmove {
        /// Whether the chosen move is played.
        commit: bool,
    },
}

/// A command's outcome: `Ok(text)` for `=`, `Err(message)` for `?`.
type Reply = std::result::Result<String, String>;

/// Every GTP command tsuru knows, in `list_commands` order.
pub const COMMANDS: &[Command] = &[
    Command {
        name: "protocol_version",
        args: "",
        help: "the GTP version: 2",
        run: Action::Reply(|_, _| Ok("2".into())),
    },
    Command {
        name: "name",
        args: "",
        help: "the engine's name",
        run: Action::Reply(|_, _| Ok("tsuru".into())),
    },
    Command {
        name: "version",
        args: "",
        help: "the engine's version",
        run: Action::Reply(|gtp, _| {
            Ok(tsuru_core::identity::version_with(gtp.session.weights_id()))
        }),
    },
    Command {
        name: "known_command",
        args: "NAME",
        help: "true if NAME is a command",
        run: Action::Reply(known_command),
    },
    Command {
        name: "list_commands",
        args: "",
        help: "every command, one per line",
        run: Action::Reply(list_commands),
    },
    Command {
        name: "quit",
        args: "",
        help: "answer, then exit",
        run: Action::Reply(|gtp, _| {
            gtp.quit = true;
            Ok(String::new())
        }),
    },
    Command {
        name: "boardsize",
        args: "8",
        help: "accepts only 8",
        run: Action::Reply(boardsize),
    },
    Command {
        name: "clear_board",
        args: "",
        help: "new game from the start position",
        run: Action::Reply(clear_board),
    },
    Command {
        name: "komi",
        args: "VALUE",
        help: "accepted and ignored",
        run: Action::Reply(komi),
    },
    Command {
        name: "play",
        args: "COLOUR VERTEX|pass",
        help: "play a move (implied passes inserted)",
        run: Action::Reply(play),
    },
    Command {
        name: "genmove",
        args: "COLOUR",
        help: "choose a move and play it",
        run: Action::Genmove { commit: true },
    },
    Command {
        name: "reg_genmove",
        args: "COLOUR",
        help: "choose a move without playing it",
        run: Action::Genmove { commit: false },
    },
    Command {
        name: "undo",
        args: "",
        help: "take back the last move or pass",
        run: Action::Reply(undo),
    },
    Command {
        name: "showboard",
        args: "",
        help: "ASCII board, row 1 on top",
        run: Action::Reply(|gtp, _| Ok(format!("\n{}", notation::diagram(gtp.session.board())))),
    },
    Command {
        name: "time_settings",
        args: "MAIN BYO_TIME BYO_STONES",
        help: "time control in seconds (0 1 0: no limit)",
        run: Action::Reply(time_settings),
    },
    Command {
        name: "time_left",
        args: "COLOUR SECONDS STONES",
        help: "time left on a clock",
        run: Action::Reply(time_left),
    },
    Command {
        name: "final_score",
        args: "",
        help: "B+N, W+N or 0 (empties to the winner)",
        run: Action::Reply(|gtp, _| Ok(score_text(gtp.session.board()))),
    },
    Command {
        name: "tsuru-win_probability",
        args: "",
        help: "the side to move's chances of a win, a draw and a loss, by a search at the \
               level and clock: WIN DRAW LOSS",
        run: Action::Reply(|gtp, _| {
            let p = gtp.session.win_probability();
            Ok(format!("{:.4} {:.4} {:.4}", p.win, p.draw, p.loss))
        }),
    },
    Command {
        name: "list_games",
        args: "",
        help: "the games played: Othello",
        run: Action::Reply(|_, _| Ok("Othello".into())),
    },
    Command {
        name: "set_game",
        args: "Othello",
        help: "accepts only Othello",
        run: Action::Reply(set_game),
    },
    Command {
        name: "gogui-rules_game_id",
        args: "",
        help: "GoGui rules: Othello",
        run: Action::Reply(|_, _| Ok("Othello".into())),
    },
    Command {
        name: "gogui-rules_board_size",
        args: "",
        help: "GoGui rules: 8",
        run: Action::Reply(|_, _| Ok("8".into())),
    },
    Command {
        name: "gogui-rules_board",
        args: "",
        help: "GoGui rules: the board, row 1 first",
        run: Action::Reply(rules_board),
    },
    Command {
        name: "gogui-rules_legal_moves",
        args: "",
        help: "GoGui rules: legal moves (pass when forced)",
        run: Action::Reply(rules_legal_moves),
    },
    Command {
        name: "gogui-rules_side_to_move",
        args: "",
        help: "GoGui rules: black or white",
        run: Action::Reply(|gtp, _| Ok(gtp.session.side_to_move().to_string())),
    },
    Command {
        name: "gogui-rules_final_result",
        args: "",
        help: "GoGui rules: result, or unknown before the end",
        run: Action::Reply(rules_final_result),
    },
];

/// Whether `name` is a GTP command (the protocol-detection predicate).
pub fn is_known_command(name: &str) -> bool {
    COMMANDS.iter().any(|command| command.name == name)
}

/// The GTP command list for `--help`.
pub fn commands_help() -> String {
    COMMANDS
        .iter()
        .map(|c| format!("  {:<26} {}\n", format!("{} {}", c.name, c.args), c.help))
        .collect()
}

/// GTP time control and the clocks reported by `time_left`, as the controller sent them
/// (already clamped by [`saturating_seconds`]).
#[derive(Clone, Copy, Debug, Default)]
struct TimeControl {
    /// `(main, byo_time, byo_stones)`, if `time_settings` was given.
    settings: Option<(Duration, Duration, u32)>,
    /// Per colour: `(time left, stones)` from the last `time_left`.
    left: [Option<(Duration, u32)>; 2],
    /// Per colour: time the engine itself spent in `genmove` (used until `time_left`).
    spent: [Duration; 2],
}

impl TimeControl {
    /// The clock of `color` in the one clock type the time manager reads, or `None` when
    /// the controller set no time limit (no `time_settings`, or GTP's "byo-yomi time with no
    /// stones": no limit), so that the session's own (`--move-time`) applies.
    fn clock(&self, color: Color) -> Option<Clock> {
        let (main, byo_time, byo_stones) = self.settings?;
        if !byo_time.is_zero() && byo_stones == 0 {
            return None;
        }
        let (left, stones) =
            self.left[color.index()].unwrap_or((main.saturating_sub(self.spent[color.index()]), 0));
        Some(if stones > 0 {
            // Inside a byo-yomi period: its time left is for the stones still to play.
            Clock::MovesToGo {
                left,
                moves: stones,
            }
        } else if byo_time.is_zero() {
            Clock::SuddenDeath {
                left,
                increment: Duration::ZERO,
            }
        } else {
            Clock::ByoYomi {
                main_left: left,
                period: byo_time,
                stones: byo_stones,
            }
        })
    }
}

/// A `genmove` whose move is being decided (its answer waits for the decision).
struct PendingMove {
    /// The command's id, for the response.
    id: String,
    color: Color,
    /// `genmove` plays the move; `reg_genmove` only reports it.
    commit: bool,
    /// Whether a forced pass of the other side was recorded to bring `color` to move.
    inserted: bool,
    /// When the command was taken up: a searched move's time runs to its answer.
    started: Instant,
}

/// How GTP hears a move decision: it posts it on the event channel, where the loop that
/// reads the input waits for it. Dropped without a decision (the search thread panicked), it
/// posts `None`, so the wait always ends.
struct PostDecision(Option<Sender<Event>>);

impl DecisionListener for PostDecision {
    fn decided(mut self, decision: Decision) {
        if let Some(events) = self.0.take() {
            // The receiver only goes away when the engine is exiting.
            let _ = events.send(Event::Decided(Some(decision)));
        }
    }
}

impl Drop for PostDecision {
    fn drop(&mut self) {
        if let Some(events) = self.0.take() {
            let _ = events.send(Event::Decided(None));
        }
    }
}

/// What a command line leads to.
enum Outcome {
    /// The full response, to print now.
    Reply(String),
    /// A move is being decided; the response comes with the decision.
    Deciding(PendingMove),
}

/// The GTP front end's state.
pub struct Gtp {
    session: Session,
    time: TimeControl,
    quit: bool,
    /// Where a `genmove`'s decision is posted: the event channel of the input.
    events: Sender<Event>,
}

/// Runs the GTP loop until `quit` or end of input. `genmove` searches in the background while
/// this loop keeps reading the event channel: `quit` or the end of input stops the search at
/// once (the move found so far is answered first, then `quit`); other commands wait for the
/// move, in order.
pub fn run(loaded: Loaded, queue: &mut InputQueue, out: &Output) -> Result<()> {
    let mut gtp = Gtp {
        session: Session::new(loaded),
        time: TimeControl::default(),
        quit: false,
        events: queue.sender(),
    };
    while !gtp.quit {
        let line = match queue.recv() {
            Event::Input(Input::Eof) => break,
            Event::Input(Input::TooLong(prefix)) => {
                out.line(&format!("?{} line too long\n", leading_id(&prefix)));
                continue;
            }
            Event::Input(Input::Line(line)) => line,
            // Every decision is waited for where its `genmove` started it.
            Event::Decided(_) => continue,
        };
        match gtp.execute_line(&line) {
            None => {}
            Some(Outcome::Reply(response)) => out.line(&response),
            Some(Outcome::Deciding(pending)) => {
                let decision = gtp.wait_for_decision(queue);
                out.line(&gtp.finish_genmove(pending, decision));
            }
        }
    }
    gtp.session.stop();
    Ok(())
}

/// One GTP input line split into its parts, after preprocessing.
struct CommandLine {
    /// The numeric id the line starts with, or an empty string.
    id: String,
    /// The command name in lower case (`None` for a line with only an id).
    name: Option<String>,
    /// The arguments.
    args: Vec<String>,
}

impl CommandLine {
    /// Splits `line`; `None` for an empty or comment-only line.
    fn parse(line: &str) -> Option<CommandLine> {
        let clean = preprocess(line);
        let mut words = clean.split_whitespace().peekable();
        let first = *words.peek()?;
        let id = if first.bytes().all(|b| b.is_ascii_digit()) {
            words.next();
            first.to_string()
        } else {
            String::new()
        };
        Some(CommandLine {
            id,
            name: words.next().map(str::to_ascii_lowercase),
            args: words.map(str::to_string).collect(),
        })
    }
}

/// The numeric id a GTP line starts with, or an empty string.
fn leading_id(line: &str) -> String {
    CommandLine::parse(line).map_or_else(String::new, |command| command.id)
}

/// Whether a GTP line is the `quit` command (with or without an id).
fn is_quit(line: &str) -> bool {
    CommandLine::parse(line).is_some_and(|command| command.name.as_deref() == Some("quit"))
}

impl Gtp {
    /// Waits on the event channel for the decision of a `genmove` while reading the input:
    /// `quit` and the end of input stop the search (and are put back to be handled after the
    /// move is answered); any other line waits its turn. `None` if the search thread ended
    /// without a decision.
    fn wait_for_decision(&mut self, queue: &mut InputQueue) -> Option<Decision> {
        let mut waiting = Vec::new();
        let decision = loop {
            match queue.recv() {
                Event::Decided(decision) => break decision,
                Event::Input(input) => {
                    let ends = match &input {
                        Input::Eof => true,
                        Input::Line(line) => is_quit(line),
                        Input::TooLong(_) => false,
                    };
                    waiting.push(Event::Input(input));
                    if ends {
                        self.session.stop();
                    }
                }
            }
        };
        for event in waiting.into_iter().rev() {
            queue.push_front(event);
        }
        decision
    }

    /// The response to a `genmove` once its move is decided: plays the move (for `genmove`)
    /// or takes back an inserted pass (for `reg_genmove`).
    fn finish_genmove(&mut self, pending: PendingMove, decision: Option<Decision>) -> String {
        let color = pending.color;
        let played = match decision {
            Some(Decision::GameOver) => return format_reply(&pending.id, Ok("pass".into())),
            Some(Decision::ForcedPass) => GgfMove::bare(Move::Pass),
            Some(Decision::Book(choice)) => {
                log::info!(
                    "genmove {color}: {} from the book ({:+})",
                    choice.square,
                    choice.value
                );
                GgfMove::bare(Move::Play(choice.square))
            }
            Some(Decision::Searched { result, .. }) => {
                // From the command to its answer, as the controller's clock counts it (the
                // decision's own time ends on the search thread, a little earlier).
                let elapsed = pending.started.elapsed();
                let spent_total = &mut self.time.spent[color.index()];
                *spent_total = spent_total.saturating_add(elapsed);
                log::info!(
                    "genmove {color}: {} score {:+.2} depth {:?} nodes {}",
                    result.best,
                    result.score.discs(),
                    result.depth,
                    result.nodes
                );
                // The move keeps its time in the record: `--game-time` spends the clock it
                // leaves.
                GgfMove {
                    seconds: Some(elapsed.as_secs_f64()),
                    ..GgfMove::bare(result.best)
                }
            }
            // Unreachable in practice (the search thread always decides); answer a legal
            // move all the same.
            None => GgfMove::bare(
                tsuru_core::board::bits::squares(self.session.board().legal_moves())
                    .next()
                    .map_or(Move::Pass, Move::Play),
            ),
        };
        let reply = finish_move(&mut self.session, played, pending.commit, pending.inserted);
        format_reply(&pending.id, reply)
    }

    /// Carries out one input line; a `genmove` only starts deciding its move.
    fn execute_line(&mut self, line: &str) -> Option<Outcome> {
        let CommandLine { id, name, args } = CommandLine::parse(line)?;
        let Some(name) = name else {
            return Some(Outcome::Reply(format!("?{id} missing command\n")));
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let reply = match COMMANDS.iter().find(|c| c.name == name).map(|c| &c.run) {
            Some(Action::Reply(run)) => run(self, &args),
            Some(&Action::Genmove { commit }) => {
                match self.start_genmove(id.clone(), &args, commit) {
                    Ok(outcome) => return Some(outcome),
                    Err(message) => Err(message),
                }
            }
            None => Err("unknown command".into()),
        };
        Some(Outcome::Reply(format_reply(&id, reply)))
    }

    /// The limits of a `genmove` for `color`: the level, and the controller's clock if it
    /// set one, else the session's (`--move-time`).
    #[cfg(test)]
    fn move_limits(&self, color: Color) -> tsuru_core::search::SearchLimits {
        self.session.move_limits(self.time.clock(color))
    }

    /// Starts a `genmove`: brings `color` to move (recording a forced pass of the other
    /// side) and asks the session for its decision ([`Session::decide`]) with the
    /// controller's clock, which comes back on the event channel.
    fn start_genmove(
        &mut self,
        id: String,
        args: &[&str],
        commit: bool,
    ) -> std::result::Result<Outcome, String> {
        let color = parse_color(args)?;
        let started = Instant::now();
        let inserted = if self.session.board().is_game_over() {
            false
        } else {
            bring_to_move(&mut self.session, color)?
        };
        let listener = PostDecision(Some(self.events.clone()));
        self.session.decide(self.time.clock(color), listener);
        Ok(Outcome::Deciding(PendingMove {
            id,
            color,
            commit,
            inserted,
            started,
        }))
    }
}

/// A full GTP response: `=id text` or `?id message`, then the empty line.
fn format_reply(id: &str, reply: Reply) -> String {
    match reply {
        Ok(text) if text.is_empty() => format!("={id}\n"),
        Ok(text) if text.starts_with('\n') => format!("={id}{text}\n"),
        Ok(text) => format!("={id} {text}\n"),
        Err(message) => format!("?{id} {message}\n"),
    }
}

/// Plays the chosen move (`commit`) or takes back the pass inserted to bring the colour to
/// move; the move's text for the response.
fn finish_move(session: &mut Session, played: GgfMove, commit: bool, inserted: bool) -> Reply {
    let mv = played.mv;
    if commit {
        session.play(played).map_err(|e| e.to_string())?;
    } else if inserted {
        let _ = session.undo();
    }
    Ok(if mv == Move::Pass {
        "pass".into()
    } else {
        mv.to_string()
    })
}

/// GTP input preprocessing: drop control characters except tab and newline, tabs to spaces,
/// cut `#` comments.
fn preprocess(line: &str) -> String {
    let without_comment = line.split('#').next().unwrap_or("");
    without_comment
        .chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect()
}

fn known_command(_: &mut Gtp, args: &[&str]) -> Reply {
    let name = args.first().ok_or("known_command needs a name")?;
    Ok(is_known_command(&name.to_ascii_lowercase()).to_string())
}

fn list_commands(_: &mut Gtp, _: &[&str]) -> Reply {
    Ok(COMMANDS
        .iter()
        .map(|c| c.name)
        .collect::<Vec<_>>()
        .join("\n"))
}

fn boardsize(_: &mut Gtp, args: &[&str]) -> Reply {
    match args.first().map(|s| s.parse::<u32>()) {
        Some(Ok(8)) => Ok(String::new()),
        Some(Ok(_)) => Err("unacceptable size".into()),
        _ => Err("boardsize needs a number".into()),
    }
}

fn clear_board(gtp: &mut Gtp, _: &[&str]) -> Reply {
    gtp.session.new_game(Board::start());
    gtp.time.spent = [Duration::ZERO; 2];
    gtp.time.left = [None; 2];
    Ok(String::new())
}

fn komi(_: &mut Gtp, args: &[&str]) -> Reply {
    match args.first().map(|s| s.parse::<f64>()) {
        Some(Ok(_)) => Ok(String::new()),
        _ => Err("komi needs a number".into()),
    }
}

fn set_game(_: &mut Gtp, args: &[&str]) -> Reply {
    match args.first() {
        Some(name) if name.eq_ignore_ascii_case("othello") => Ok(String::new()),
        _ => Err("unsupported game".into()),
    }
}

/// GTP colours: `b`, `black`, `w`, `white`, in any case.
fn parse_color(args: &[&str]) -> std::result::Result<Color, String> {
    match args.first().map(|w| w.to_ascii_lowercase()).as_deref() {
        Some("b" | "black") => Ok(Color::Black),
        Some("w" | "white") => Ok(Color::White),
        _ => Err("invalid color".into()),
    }
}

/// Makes `color` the side to move if the side to move must pass (recording its pass);
/// `Ok(true)` when a pass was inserted.
fn bring_to_move(session: &mut Session, color: Color) -> std::result::Result<bool, String> {
    let board = session.board();
    if board.side_to_move() == color {
        return Ok(false);
    }
    if board.must_pass() {
        session
            .play(GgfMove::bare(Move::Pass))
            .map_err(|e| e.to_string())?;
        return Ok(true);
    }
    Err("wrong color".into())
}

fn play(gtp: &mut Gtp, args: &[&str]) -> Reply {
    let color = parse_color(args)?;
    let vertex = args.get(1).ok_or("play needs a vertex")?;
    let mv: Move = vertex.parse().map_err(|_| "invalid vertex".to_string())?;
    if gtp.session.board().is_game_over() {
        return Err("illegal move".into());
    }
    // A pass is only ever the mover's own (the reference transcript answers it this way).
    if mv == Move::Pass && !(gtp.session.side_to_move() == color && gtp.session.board().must_pass())
    {
        return Err("illegal move".into());
    }
    let inserted = bring_to_move(&mut gtp.session, color)?;
    if gtp.session.play(GgfMove::bare(mv)).is_err() {
        if inserted {
            let _ = gtp.session.undo();
        }
        return Err("illegal move".into());
    }
    Ok(String::new())
}

fn undo(gtp: &mut Gtp, _: &[&str]) -> Reply {
    gtp.session
        .undo()
        .map(|_| String::new())
        .map_err(|_| "cannot undo".into())
}

/// A GTP time in seconds, clamped at the edge: anything past
/// [`tsuru_core::search::time::MAX_CLOCK`] (`inf`, `1e300`) is that. A negative time is none left
/// when `overdrawn_ok` (a clock that ran over), else an error like a word that is no number.
fn parse_seconds(word: Option<&&str>, overdrawn_ok: bool) -> std::result::Result<Duration, String> {
    word.and_then(|w| w.parse::<f64>().ok())
        .filter(|v| !v.is_nan() && (overdrawn_ok || *v >= 0.0))
        .map(saturating_seconds)
        .ok_or_else(|| "syntax error".to_string())
}

/// A GTP stone count: a whole number, saturated at `u32::MAX` when larger.
fn parse_stones(word: Option<&&str>) -> std::result::Result<u32, String> {
    match word {
        Some(w) if !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()) => {
            Ok(w.parse::<u32>().unwrap_or(u32::MAX))
        }
        _ => Err("syntax error".into()),
    }
}

fn time_settings(gtp: &mut Gtp, args: &[&str]) -> Reply {
    let main = parse_seconds(args.first(), false)?;
    let byo_time = parse_seconds(args.get(1), false)?;
    let byo_stones = parse_stones(args.get(2))?;
    gtp.time = TimeControl {
        settings: Some((main, byo_time, byo_stones)),
        ..TimeControl::default()
    };
    Ok(String::new())
}

fn time_left(gtp: &mut Gtp, args: &[&str]) -> Reply {
    let color = parse_color(args)?;
    let seconds = parse_seconds(args.get(1), true)?;
    let stones = parse_stones(args.get(2))?;
    gtp.time.left[color.index()] = Some((seconds, stones));
    Ok(String::new())
}

/// `B+N`, `W+N` or `0` for the position, empties to the side ahead.
fn score_text(board: &Board) -> String {
    let score = board.final_score(Color::Black);
    match score.get().signum() {
        1 => format!("B+{score}"),
        -1 => format!("W+{}", -score),
        _ => "0".into(),
    }
}

fn rules_board(gtp: &mut Gtp, _: &[&str]) -> Reply {
    let board = gtp.session.board();
    let rows: Vec<String> = (0..8)
        .map(|row| {
            (0..8)
                .map(|col| {
                    let square =
                        tsuru_core::board::Square::from_coords(col, row).expect("in range");
                    match board.disc(square) {
                        Some(Color::Black) => "X",
                        Some(Color::White) => "O",
                        None => ".",
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    Ok(format!("\n{}", rows.join("\n")))
}

fn rules_legal_moves(gtp: &mut Gtp, _: &[&str]) -> Reply {
    let board = gtp.session.board();
    if board.must_pass() {
        return Ok("pass".into());
    }
    Ok(tsuru_core::board::bits::squares(board.legal_moves())
        .map(|sq| sq.to_string())
        .collect::<Vec<_>>()
        .join(" "))
}

fn rules_final_result(gtp: &mut Gtp, _: &[&str]) -> Reply {
    let board = gtp.session.board();
    if board.is_game_over() {
        Ok(score_text(board))
    } else {
        Ok("unknown".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsuru_core::config::Config;
    use tsuru_core::search::{Level, TimeBudget};

    /// A GTP front end with its event channel, driven one line at a time.
    struct Harness {
        gtp: Gtp,
        queue: InputQueue,
    }

    impl Harness {
        fn new(config: &Config) -> Harness {
            let queue = InputQueue::new();
            Harness {
                gtp: Gtp {
                    session: Session::new(Loaded::load(config.clone()).unwrap()),
                    time: TimeControl::default(),
                    quit: false,
                    events: queue.sender(),
                },
                queue,
            }
        }

        /// Carries out one input line and waits for a move it decides; the full response
        /// (with its terminating empty line), or `None` for an empty or comment line.
        fn execute(&mut self, line: &str) -> Option<String> {
            match self.gtp.execute_line(line)? {
                Outcome::Reply(response) => Some(response),
                Outcome::Deciding(pending) => {
                    let decision = self.gtp.wait_for_decision(&mut self.queue);
                    Some(self.gtp.finish_genmove(pending, decision))
                }
            }
        }
    }

    impl std::ops::Deref for Harness {
        type Target = Gtp;
        fn deref(&self) -> &Gtp {
            &self.gtp
        }
    }

    fn gtp() -> Harness {
        Harness::new(&Config {
            level: Level::new(2).unwrap(),
            hash_mb: 2,
            // Searches, whatever book ships.
            book: tsuru_core::config::BookSetting::Off,
            ..Config::default()
        })
    }

    #[test]
    fn genmove_answers_every_kind_of_decision() {
        let mut g = gtp();
        // A search: the move is played and its time counted.
        let reply = g.execute("1 genmove b").unwrap();
        assert!(
            reply.starts_with("=1 ") && reply.ends_with("\n"),
            "{reply:?}"
        );
        assert_eq!(g.session.game().moves().len(), 1);
        assert!(g.time.spent[Color::Black.index()] > Duration::ZERO);
        // reg_genmove reports without playing.
        assert!(g.execute("reg_genmove w").unwrap().starts_with("= "));
        assert_eq!(g.session.game().moves().len(), 1);
        // A finished game: pass, nothing recorded.
        let full = format!("(;GM[Othello]TY[8]BO[8 {} *];)", "*".repeat(64));
        let game = tsuru_core::formats::ggf::GgfGame::parse(&full).unwrap();
        g.gtp.session.set_game(game);
        assert_eq!(g.execute("genmove w").unwrap(), "= pass\n");
        // Lines read while a move is decided wait their turn, in order.
        g.execute("clear_board").unwrap();
        let sender = g.queue.sender();
        sender.send(Input::Line("name".into()).into()).unwrap();
        assert!(g.execute("genmove b").unwrap().starts_with("= "));
        match g.queue.recv() {
            Event::Input(Input::Line(line)) => assert_eq!(line, "name"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn framing_with_and_without_ids() {
        let mut g = gtp();
        assert_eq!(g.execute("protocol_version").unwrap(), "= 2\n");
        assert_eq!(g.execute("7 name").unwrap(), "=7 tsuru\n");
        assert_eq!(g.execute("8 frobnicate").unwrap(), "?8 unknown command\n");
        assert_eq!(g.execute("   # comment only"), None);
        assert_eq!(g.execute(""), None);
        assert_eq!(g.execute("\tclear_board\r").unwrap(), "=\n");
        assert_eq!(g.execute("BOARDSIZE 8").unwrap(), "=\n");
    }

    #[test]
    fn list_commands_agrees_with_known_command() {
        let mut g = gtp();
        let list = g.execute("list_commands").unwrap();
        let names: Vec<&str> = list.trim_start_matches("= ").trim_end().lines().collect();
        assert_eq!(names.len(), COMMANDS.len());
        for name in names {
            assert!(!name.is_empty() && !name.contains(' '));
            assert_eq!(
                g.execute(&format!("known_command {name}")).unwrap(),
                "= true\n"
            );
        }
        assert_eq!(g.execute("known_command frob").unwrap(), "= false\n");
    }

    #[test]
    fn time_control_fills_the_clock_verbatim() {
        let secs = Duration::from_secs;
        let mut time = TimeControl::default();
        assert_eq!(time.clock(Color::Black), None);
        time.settings = Some((Duration::ZERO, secs(1), 0));
        assert_eq!(time.clock(Color::Black), None, "0 1 0 means no limit");
        time.settings = Some((secs(300), Duration::ZERO, 0));
        time.spent[0] = secs(20);
        assert_eq!(
            time.clock(Color::Black),
            Some(Clock::SuddenDeath {
                left: secs(280),
                increment: Duration::ZERO
            })
        );
        time.left[0] = Some((secs(10), 5));
        assert_eq!(
            time.clock(Color::Black),
            Some(Clock::MovesToGo {
                left: secs(10),
                moves: 5
            })
        );
        time.settings = Some((secs(60), secs(30), 10));
        assert_eq!(
            time.clock(Color::White),
            Some(Clock::ByoYomi {
                main_left: secs(60),
                period: secs(30),
                stones: 10
            })
        );
    }

    #[test]
    fn move_time_bounds_genmove_unless_the_controller_sets_a_clock() {
        let mut g = Harness::new(&Config {
            level: Level::new(60).unwrap(),
            move_time: Some(Duration::from_millis(250)),
            hash_mb: 2,
            // Searches, whatever book ships.
            book: tsuru_core::config::BookSetting::Off,
            ..Config::default()
        });
        let per_move = Some(TimeBudget::per_move(Duration::from_millis(250)));
        assert_eq!(g.move_limits(Color::Black).time, per_move);
        assert_eq!(g.execute("time_settings 0 1 0").unwrap(), "=\n");
        assert_eq!(
            g.move_limits(Color::Black).time,
            per_move,
            "no limit from GTP"
        );
        assert_eq!(g.execute("time_settings 600 0 0").unwrap(), "=\n");
        let clock = Clock::SuddenDeath {
            left: Duration::from_secs(600),
            increment: Duration::ZERO,
        };
        assert_eq!(
            g.move_limits(Color::Black).time,
            TimeBudget::for_clock(&clock, 60)
        );
    }

    #[test]
    fn huge_negative_and_odd_times_are_clamped_or_refused() {
        let mut g = gtp();
        assert_eq!(g.execute("time_settings 1e300 0 0").unwrap(), "=\n");
        assert_eq!(
            g.time.settings,
            Some((tsuru_core::search::time::MAX_CLOCK, Duration::ZERO, 0))
        );
        assert_eq!(
            g.execute("time_left b -5 18446744073709551616").unwrap(),
            "=\n"
        );
        assert_eq!(g.time.left[0], Some((Duration::ZERO, u32::MAX)));
        assert_eq!(g.execute("time_left b nan 1").unwrap(), "? syntax error\n");
        assert_eq!(g.execute("time_left b 5 -1").unwrap(), "? syntax error\n");
        assert_eq!(
            g.execute("time_settings inf 0").unwrap(),
            "? syntax error\n"
        );
        assert_eq!(
            g.execute("time_settings -1 0 0").unwrap(),
            "? syntax error\n"
        );
    }

    #[test]
    fn quit_and_ids_are_recognised_in_raw_lines() {
        assert!(is_quit("quit"));
        assert!(is_quit("12 QUIT"));
        assert!(is_quit("\tquit # bye"));
        assert!(!is_quit("quitx"));
        assert!(!is_quit("# quit"));
        assert_eq!(leading_id("17 genmove b"), "17");
        assert_eq!(leading_id("genmove 17"), "");
        assert_eq!(leading_id("xx"), "");
    }
}
