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

use std::time::{Duration, Instant};

use anyhow::Result;

use super::input::Input;
use super::output::Output;
use super::InputQueue;
use crate::board::{notation, Board, Color, Move};
use crate::config::Config;
use crate::formats::ggf::GgfMove;
use crate::search::TimeBudget;
use crate::session::Session;

/// One GTP command: its name, its arguments (for the help text), a description and the
/// function that carries it out.
pub struct Command {
    /// The command name.
    pub name: &'static str,
    /// Argument syntax, for `--help` and protocol.md.
    pub args: &'static str,
    /// One-line description.
    pub help: &'static str,
    run: fn(&mut Gtp, &[&str]) -> Reply,
}

/// A command's outcome: `Ok(text)` for `=`, `Err(message)` for `?`.
type Reply = std::result::Result<String, String>;

/// Every GTP command tsuru knows, in `list_commands` order.
pub const COMMANDS: &[Command] = &[
    Command {
        name: "protocol_version",
        args: "",
        help: "the GTP version: 2",
        run: |_, _| Ok("2".into()),
    },
    Command {
        name: "name",
        args: "",
        help: "the engine's name",
        run: |_, _| Ok("tsuru".into()),
    },
    Command {
        name: "version",
        args: "",
        help: "the engine's version",
        run: |_, _| Ok(env!("CARGO_PKG_VERSION").into()),
    },
    Command {
        name: "known_command",
        args: "NAME",
        help: "true if NAME is a command",
        run: known_command,
    },
    Command {
        name: "list_commands",
        args: "",
        help: "every command, one per line",
        run: list_commands,
    },
    Command {
        name: "quit",
        args: "",
        help: "answer, then exit",
        run: |gtp, _| {
            gtp.quit = true;
            Ok(String::new())
        },
    },
    Command {
        name: "boardsize",
        args: "8",
        help: "accepts only 8",
        run: boardsize,
    },
    Command {
        name: "clear_board",
        args: "",
        help: "new game from the start position",
        run: clear_board,
    },
    Command {
        name: "komi",
        args: "VALUE",
        help: "accepted and ignored",
        run: komi,
    },
    Command {
        name: "play",
        args: "COLOUR VERTEX|pass",
        help: "play a move (implied passes inserted)",
        run: play,
    },
    Command {
        name: "genmove",
        args: "COLOUR",
        help: "choose a move and play it",
        run: |gtp, args| genmove(gtp, args, true),
    },
    Command {
        name: "reg_genmove",
        args: "COLOUR",
        help: "choose a move without playing it",
        run: |gtp, args| genmove(gtp, args, false),
    },
    Command {
        name: "undo",
        args: "",
        help: "take back the last move or pass",
        run: undo,
    },
    Command {
        name: "showboard",
        args: "",
        help: "ASCII board, row 1 on top",
        run: |gtp, _| Ok(format!("\n{}", notation::diagram(gtp.session.board()))),
    },
    Command {
        name: "time_settings",
        args: "MAIN BYO_TIME BYO_STONES",
        help: "time control in seconds (0 1 0: no limit)",
        run: time_settings,
    },
    Command {
        name: "time_left",
        args: "COLOUR SECONDS STONES",
        help: "time left on a clock",
        run: time_left,
    },
    Command {
        name: "final_score",
        args: "",
        help: "B+N, W+N or 0 (empties to the winner)",
        run: |gtp, _| Ok(score_text(gtp.session.board())),
    },
    Command {
        name: "list_games",
        args: "",
        help: "the games played: Othello",
        run: |_, _| Ok("Othello".into()),
    },
    Command {
        name: "set_game",
        args: "Othello",
        help: "accepts only Othello",
        run: set_game,
    },
    Command {
        name: "gogui-rules_game_id",
        args: "",
        help: "GoGui rules: Othello",
        run: |_, _| Ok("Othello".into()),
    },
    Command {
        name: "gogui-rules_board_size",
        args: "",
        help: "GoGui rules: 8",
        run: |_, _| Ok("8".into()),
    },
    Command {
        name: "gogui-rules_board",
        args: "",
        help: "GoGui rules: the board, row 1 first",
        run: rules_board,
    },
    Command {
        name: "gogui-rules_legal_moves",
        args: "",
        help: "GoGui rules: legal moves (pass when forced)",
        run: rules_legal_moves,
    },
    Command {
        name: "gogui-rules_side_to_move",
        args: "",
        help: "GoGui rules: black or white",
        run: |gtp, _| Ok(gtp.session.side_to_move().to_string()),
    },
    Command {
        name: "gogui-rules_final_result",
        args: "",
        help: "GoGui rules: result, or unknown before the end",
        run: rules_final_result,
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

/// GTP time control and the clocks reported by `time_left`.
#[derive(Clone, Copy, Debug, Default)]
struct TimeControl {
    /// `(main, byo_time, byo_stones)` in seconds, if `time_settings` was given.
    settings: Option<(f64, f64, u32)>,
    /// Per colour: `(seconds, stones)` from the last `time_left`.
    left: [Option<(f64, u32)>; 2],
    /// Per colour: seconds the engine itself spent in `genmove` (used until `time_left`).
    spent: [f64; 2],
}

impl TimeControl {
    /// The budget for one move of `color` with `empties` squares left, or `None` for no limit.
    fn budget(&self, color: Color, empties: u32) -> Option<TimeBudget> {
        let (main, byo_time, byo_stones) = self.settings?;
        if byo_time > 0.0 && byo_stones == 0 {
            return None; // GTP: byo-yomi time with no stones means no time limit.
        }
        let (left, stones) =
            self.left[color.index()].unwrap_or(((main - self.spent[color.index()]).max(0.0), 0));
        if stones > 0 {
            // In a byo-yomi period: share its time between the stones still to play.
            let per_move = left / stones as f64;
            return Some(TimeBudget::per_move((per_move * 0.9 - 0.2).max(0.01)));
        }
        if left <= 0.0 && byo_time > 0.0 {
            let per_move = byo_time / byo_stones.max(1) as f64;
            return Some(TimeBudget::per_move((per_move * 0.9 - 0.2).max(0.01)));
        }
        Some(TimeBudget::from_clock(
            Duration::from_secs_f64(left.max(0.0)),
            Duration::ZERO,
            empties,
        ))
    }
}

/// The GTP front end's state.
pub struct Gtp {
    session: Session,
    time: TimeControl,
    quit: bool,
}

/// Runs the GTP loop until `quit` or end of input.
pub fn run(config: &Config, queue: &mut InputQueue, out: &Output) -> Result<()> {
    let mut gtp = Gtp {
        session: Session::new(config),
        time: TimeControl::default(),
        quit: false,
    };
    while !gtp.quit {
        let line = match queue.recv() {
            Input::Eof => break,
            Input::Line(line) => line,
        };
        if let Some(response) = gtp.execute(&line) {
            out.line(&response);
        }
    }
    Ok(())
}

impl Gtp {
    /// Carries out one input line; returns the full response (with its terminating empty
    /// line) or `None` for an empty or comment line.
    pub fn execute(&mut self, line: &str) -> Option<String> {
        let clean = preprocess(line);
        let mut words = clean.split_whitespace().peekable();
        let first = *words.peek()?;
        let id = if first.bytes().all(|b| b.is_ascii_digit()) {
            words.next();
            first.to_string()
        } else {
            String::new()
        };
        let Some(name) = words.next() else {
            return Some(format!("?{id} missing command\n"));
        };
        let args: Vec<&str> = words.collect();
        let name = name.to_ascii_lowercase();
        let reply = match COMMANDS.iter().find(|c| c.name == name) {
            Some(command) => (command.run)(self, &args),
            None => Err("unknown command".into()),
        };
        Some(match reply {
            Ok(text) if text.is_empty() => format!("={id}\n"),
            Ok(text) if text.starts_with('\n') => format!("={id}{text}\n"),
            Ok(text) => format!("={id} {text}\n"),
            Err(message) => format!("?{id} {message}\n"),
        })
    }
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
    gtp.time.spent = [0.0; 2];
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

fn genmove(gtp: &mut Gtp, args: &[&str], commit: bool) -> Reply {
    let color = parse_color(args)?;
    if gtp.session.board().is_game_over() {
        return Ok("pass".into());
    }
    let inserted = bring_to_move(&mut gtp.session, color)?;
    let board = gtp.session.board();
    let (mv, text) = if board.must_pass() {
        (Move::Pass, "pass".to_string())
    } else {
        let budget = gtp.time.budget(color, board.empties());
        let limits = gtp.session.move_limits(budget);
        let started = Instant::now();
        let result = gtp.session.think(&limits);
        gtp.time.spent[color.index()] += started.elapsed().as_secs_f64();
        log::info!(
            "genmove {color}: {} score {} depth {} nodes {}",
            result.best,
            result.score,
            result.depth,
            result.nodes
        );
        (result.best, result.best.to_string())
    };
    if commit {
        gtp.session
            .play(GgfMove::bare(mv))
            .map_err(|e| e.to_string())?;
    } else if inserted {
        let _ = gtp.session.undo();
    }
    Ok(if mv == Move::Pass {
        "pass".into()
    } else {
        text
    })
}

fn undo(gtp: &mut Gtp, _: &[&str]) -> Reply {
    gtp.session
        .undo()
        .map(|_| String::new())
        .map_err(|_| "cannot undo".into())
}

fn parse_seconds(word: Option<&&str>) -> std::result::Result<f64, String> {
    word.and_then(|w| w.parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| "syntax error".to_string())
}

fn time_settings(gtp: &mut Gtp, args: &[&str]) -> Reply {
    let main = parse_seconds(args.first())?;
    let byo_time = parse_seconds(args.get(1))?;
    let byo_stones = args
        .get(2)
        .and_then(|w| w.parse::<u32>().ok())
        .ok_or("syntax error")?;
    gtp.time = TimeControl {
        settings: Some((main, byo_time, byo_stones)),
        ..TimeControl::default()
    };
    Ok(String::new())
}

fn time_left(gtp: &mut Gtp, args: &[&str]) -> Reply {
    let color = parse_color(args)?;
    let seconds = parse_seconds(args.get(1))?;
    let stones = args
        .get(2)
        .and_then(|w| w.parse::<u32>().ok())
        .ok_or("syntax error")?;
    gtp.time.left[color.index()] = Some((seconds, stones));
    Ok(String::new())
}

/// `B+N`, `W+N` or `0` for the position, empties to the side ahead.
fn score_text(board: &Board) -> String {
    let score = board.final_score(Color::Black);
    match score.signum() {
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
                    let square = crate::board::Square::from_coords(col, row).expect("in range");
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
    Ok(crate::board::bits::squares(board.legal_moves())
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

    fn gtp() -> Gtp {
        Gtp {
            session: Session::new(&Config {
                depth: 2,
                hash_mb: 2,
                ..Config::default()
            }),
            time: TimeControl::default(),
            quit: false,
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
    fn time_control_budgets() {
        let mut time = TimeControl::default();
        assert_eq!(time.budget(Color::Black, 40), None);
        time.settings = Some((0.0, 1.0, 0));
        assert_eq!(time.budget(Color::Black, 40), None, "0 1 0 means no limit");
        time.settings = Some((300.0, 0.0, 0));
        let budget = time.budget(Color::Black, 40).unwrap();
        assert!(budget.hard < Duration::from_secs(150));
        time.left[0] = Some((10.0, 5));
        let budget = time.budget(Color::Black, 40).unwrap();
        assert!(budget.hard <= Duration::from_secs(2));
    }
}
