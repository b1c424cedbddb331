//! `tsuru decided FILE.ggf [--empties N] [--hash MB] [--threads N] [--eval-file W]
//! [--positions-out FILE]`: where the games of a match were decided.
//!
//! Every game of a GGF file (such as a `tsuru match` record, `games.ggf`) is replayed to its
//! first position with N empties (24 unless `--empties` says otherwise), which is solved
//! exactly. One line per game gives the exact value there and the final result, both for
//! Black; then, per player, the discs it had lost or gained by N empties (the exact values,
//! summed from its side) and after them (final result minus exact value). A game that never
//! reaches N empties, or that did not end on the board (a forfeit), is listed and left out of
//! the sums.
//!
//! With `--positions-out FILE`, the solved positions are also appended to FILE as validation
//! lines (the position, its exact score for the side to move; [`tsuru_core::formats::validation`]):
//! balanced positions from real games with their exact values, for measuring an evaluation
//! where it is used (`tsuru probcut --endgame FILE` prints how well shallow searches predict
//! them). FILE is opened before the first solve and each line is written as its game is
//! solved, so a long run that is stopped keeps what it solved; `--first N` / `--last N`
//! (game numbers, as the table prints them) continue it where it stopped.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use tsuru_core::board::{Board, Color};
use tsuru_core::cli::search_options::{SearchOptions, EVAL_FILE, HASH};
use tsuru_core::cli::tool_args::{Arg, ToolArgs, ToolOption, ToolSpec};
use tsuru_core::formats::ggf::GgfGame;
use tsuru_core::formats::validation;
use tsuru_core::search::endgame::{EndgameSolver, SolveMode};

/// The command line of `tsuru decided`.
pub const SPEC: ToolSpec = ToolSpec {
    name: "decided",
    about: "solve each game of a GGF file at N empties: discs lost before and after them",
    synopsis: "FILE.ggf",
    options: &[
        ToolOption::new(
            "--empties",
            "N",
            "solve at N empty squares, 1..60 (default 24)",
        ),
        ToolOption::shared(HASH),
        ToolOption::reproducible_threads(),
        ToolOption::shared(EVAL_FILE),
        ToolOption::new(
            "--positions-out",
            "FILE",
            "also append each solved position and its exact score (side to\n\
             move) to FILE as a validation file, a line as each game is solved",
        ),
        ToolOption::new("--first", "N", "skip the games numbered below N"),
        ToolOption::new("--last", "N", "skip the games numbered above N"),
    ],
    notes: "",
};

/// Empties at which the games are solved unless `--empties` says otherwise.
pub const DEFAULT_EMPTIES: u32 = 24;

/// One player's sums, from its own side, in discs.
#[derive(Default)]
struct Tally {
    games: u32,
    /// Exact values at N empties.
    before: i64,
    /// Final results minus those values.
    after: i64,
    /// Games whose result (win, draw, loss) changed after N empties.
    changed: u32,
}

/// Runs the tool.
pub fn run(args: &[String]) -> Result<()> {
    let (mut file, mut empties) = (None, DEFAULT_EMPTIES);
    let mut options = SearchOptions::reproducible();
    let mut positions_out: Option<String> = None;
    let (mut first, mut last) = (1, usize::MAX);
    let mut args = ToolArgs::from_spec(args, &SPEC);
    while let Some(arg) = args.next_option()? {
        match arg {
            Arg::Flag(flag @ "--empties") => {
                empties = args.whole_number(flag)?.min(u64::from(u32::MAX)) as u32
            }
            Arg::Flag(flag) if SearchOptions::takes(flag) => {
                options.set(flag, args.value(flag)?)?
            }
            Arg::Flag(flag @ "--positions-out") => {
                positions_out = Some(args.value(flag)?.to_string())
            }
            Arg::Flag(flag @ "--first") => first = args.whole_number(flag)? as usize,
            Arg::Flag(flag @ "--last") => last = args.whole_number(flag)? as usize,
            Arg::Positional(name) if file.is_none() => file = Some(name.to_string()),
            other => return Err(args.unexpected(other)),
        }
    }
    let Some(file) = file else {
        bail!("usage: tsuru {}", SPEC.usage());
    };
    if !(1..=60).contains(&empties) {
        bail!("--empties must be 1..60");
    }
    let text = std::fs::read_to_string(&file).with_context(|| format!("reading {file}"))?;
    // Opened before any solve, so that an unwritable path fails at once.
    let mut positions = match &positions_out {
        Some(path) => {
            let mut out = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("opening {path}"))?;
            writeln!(
                out,
                "# {file}: positions at {empties} empties solved by tsuru decided"
            )
            .with_context(|| format!("writing {path}"))?;
            Some((out, path))
        }
        None => None,
    };
    let mut solver = EndgameSolver::new(&options.config()?);
    let stop = AtomicBool::new(false);
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let started = Instant::now();
    tsuru_core::outln!(
        "{:>5} {:<12} {:<12} {:>8} {:>6}",
        "game",
        "black",
        "white",
        format!("at {empties}"),
        "final"
    )?;
    for (index, record) in records(&text).enumerate() {
        let number = index + 1;
        if number < first || number > last {
            continue;
        }
        let game = GgfGame::parse(record).with_context(|| format!("game {number}"))?;
        let name = |tag: &str| {
            game.tags
                .iter()
                .find(|(name, _)| name == tag)
                .map_or("?".to_string(), |(_, value)| value.clone())
        };
        let (black, white) = (name("PB"), name("PW"));
        let Some(mut position) = position_at(&game, empties) else {
            tsuru_core::outln!(
                "{number:>5} {black:<12} {white:<12} never reaches {empties} empties"
            )?;
            continue;
        };
        if !game.board().is_game_over() {
            tsuru_core::outln!("{number:>5} {black:<12} {white:<12} did not end on the board")?;
            continue;
        }
        eprint!("solving game {number}...\r");
        let solution = solver
            .solve(&mut position, SolveMode::Exact, &stop)
            .context("the solver was stopped")?;
        let exact = match position.side_to_move() {
            Color::Black => solution.score,
            Color::White => -solution.score,
        };
        if let Some((out, path)) = &mut positions {
            // Written (unbuffered) as each game is solved: a stopped run keeps its lines.
            writeln!(out, "{}", validation::line(&position, solution.score))
                .with_context(|| format!("writing {path}"))?;
        }
        let last = game.board().final_score(Color::Black);
        tsuru_core::outln!("{number:>5} {black:<12} {white:<12} {exact:>+8} {last:>+6}")?;
        for (player, sign) in [(black, 1), (white, -1)] {
            let tally = tallies.entry(player).or_default();
            tally.games += 1;
            tally.before += i64::from(sign * exact.get());
            tally.after += i64::from(sign * (last - exact).get());
            tally.changed += u32::from(exact.signum() != last.signum());
        }
    }
    eprintln!();
    tsuru_core::outln!(
        "\n{:<12} {:>6} {:>12} {:>12} {:>16}",
        "player",
        "games",
        format!("by {empties}"),
        format!("after {empties}"),
        "results changed"
    )?;
    for (player, tally) in &tallies {
        tsuru_core::outln!(
            "{player:<12} {:>6} {:>+12} {:>+12} {:>16}",
            tally.games,
            tally.before,
            tally.after,
            tally.changed
        )?;
    }
    tsuru_core::outln!("time {:.1} s", started.elapsed().as_secs_f64())?;
    Ok(())
}

/// The `(;...;)` records of a GGF file, in order.
pub(crate) fn records(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let start = rest.find("(;")?;
        let end = rest[start..].find(";)")? + start + 2;
        let record = &rest[start..end];
        rest = &rest[end..];
        Some(record)
    })
}

/// The game's first position with `empties` empty squares (no history), if it reaches one.
fn position_at(game: &GgfGame, empties: u32) -> Option<Board> {
    let mut board = game.start().clone();
    for mv in game.moves() {
        if board.empties() == empties {
            break;
        }
        board.play(mv.mv).ok()?;
    }
    (board.empties() == empties).then(|| board.without_history())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_split_and_replayed_to_the_asked_empties() {
        let text = "(;GM[Othello]PB[a]PW[b]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[D6]B[C3];)\n\
                    (;GM[Othello]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5];)\n";
        let games: Vec<GgfGame> = records(text).map(|r| GgfGame::parse(r).unwrap()).collect();
        assert_eq!(games.len(), 2);
        let board = position_at(&games[0], 58).unwrap();
        assert_eq!(board.empties(), 58);
        assert_eq!(board.side_to_move(), Color::Black, "after F5 D6");
        assert!(position_at(&games[0], 57).is_some());
        assert!(
            position_at(&games[0], 56).is_none(),
            "the record stops at 57"
        );
        assert!(position_at(&games[1], 60).is_some());
    }
}
