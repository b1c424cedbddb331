//! `tsuru solve FILE.obf [--wld] [--hash MB] [--threads N] [--eval-file W] [--first N] [--last N]`: solves
//! every position of an OBF file and checks the answers against the file's scores, on every
//! core unless `--threads` says otherwise (node counts are reproducible only on one thread).
//!
//! One line per position: number, empties, best move, score, the file's best moves and score,
//! `ok`/`WRONG`, nodes, seconds, nodes/s and the principal variation; then a summary. While a
//! position is solved, stderr shows its number and running node count. The exit
//! status is non-zero when any answer is wrong. Positions of a file named `fforum-A-B.obf` are
//! numbered from A, as the FFO suite numbers them.
//!
//! `--write-obf FILE` also solves every legal move of each position and writes the position
//! with all its moves' exact scores, best first, as an OBF line (the form of Edax's problem
//! files, which `tsuru accuracy` reads): how validation sets with known answers are made. The
//! summary's time then includes these solves; the per-position figures do not.
//!
//! The table may grow to `--hash` MiB (64 unless it says otherwise, as everywhere; give a
//! gigabyte or more for positions of 30 empties and above); the solver sizes it to each
//! position's empties (16 MiB up to 26, `EndgameSolver::new`), so a short solve does not map
//! in memory it would not use. `--eval-file` changes only
//! the move order (the weights order the moves of nodes with many empties), so node counts,
//! never scores.

use std::sync::atomic::AtomicBool;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use tsuru_core::board::Move;
use tsuru_core::cli::search_options::{SearchOptions, EVAL_FILE, HASH, THREADS};
use tsuru_core::cli::tool_args::{Arg, ToolArgs, ToolOption, ToolSpec};
use tsuru_core::formats::obf;
use tsuru_core::search::endgame::{EndgameSolver, SolveMode};
use tsuru_core::search::stop::NodeCounts;

/// The command line of `tsuru solve`.
pub const SPEC: ToolSpec = ToolSpec {
    name: "solve",
    about: "solve every position of an OBF file exactly and check the answers",
    synopsis: "FILE.obf",
    options: &[
        ToolOption::new(
            "--wld",
            "",
            "prove win, loss or draw only, not the exact score",
        ),
        ToolOption::shared(HASH),
        ToolOption::shared(THREADS),
        ToolOption::shared(EVAL_FILE),
        ToolOption::new("--first", "N", "skip the positions numbered below N"),
        ToolOption::new("--last", "N", "skip the positions numbered above N"),
        ToolOption::new(
            "--write-obf",
            "FILE",
            "also solve every move; write each position with all its moves' scores",
        ),
    ],
    notes: "",
};

/// Runs the tool; returns an error (exit status 2) on bad arguments, and exits with status 1
/// when an answer is wrong.
pub fn run(args: &[String]) -> Result<()> {
    let mut file = None;
    let mut mode = SolveMode::Exact;
    let mut options = SearchOptions::default();
    let mut first = None;
    let mut last = None;
    let mut write_obf = None;
    let mut args = ToolArgs::from_spec(args, &SPEC);
    while let Some(arg) = args.next_option()? {
        match arg {
            Arg::Flag("--wld") => mode = SolveMode::WinLossDraw,
            Arg::Flag(flag) if SearchOptions::takes(flag) => {
                options.set(flag, args.value(flag)?)?
            }
            Arg::Flag(flag @ "--first") => first = Some(args.whole_number(flag)? as usize),
            Arg::Flag(flag @ "--last") => last = Some(args.whole_number(flag)? as usize),
            Arg::Flag(flag @ "--write-obf") => write_obf = Some(args.value(flag)?.to_string()),
            Arg::Positional(name) if file.is_none() => file = Some(name.to_string()),
            other => return Err(args.unexpected(other)),
        }
    }
    let Some(file) = file else {
        bail!("usage: tsuru {}", SPEC.usage());
    };
    let text = std::fs::read_to_string(&file).with_context(|| format!("reading {file}"))?;
    let positions = obf::parse_file(&text).with_context(|| format!("parsing {file}"))?;
    let offset = ffo_offset(&file);
    if write_obf.is_some() && mode != SolveMode::Exact {
        bail!("--write-obf needs exact scores; leave out --wld");
    }
    let mut rescored = String::new();

    let mut solver = EndgameSolver::new(&options.config()?);
    let stop = AtomicBool::new(false);
    let (mut wrong_moves, mut wrong_scores, mut total_nodes, mut solved) = (0, 0, 0u64, 0);
    let started = Instant::now();
    tsuru_core::outln!(
        "{:>4} {:>3} {:>4} {:>5} {:>10} {:>6} {:>14} {:>9} {:>10}  pv",
        "#",
        "emp",
        "move",
        "score",
        "expected",
        "check",
        "nodes",
        "seconds",
        "nodes/s"
    )?;
    for (index, position) in positions.iter().enumerate() {
        let number = index + offset;
        if first.is_some_and(|f| number < f) || last.is_some_and(|l| number > l) {
            continue;
        }
        let mut board = position.board.clone();
        solver.reset_nodes();
        let clock = Instant::now();
        let progress = solver.progress();
        let solution = with_progress(&progress, number, board.empties(), || {
            solver.solve_reporting(&mut board, mode, &stop, &mut |pass| {
                log::info!(
                    "#{number} {}%: {} {:+} after {} nodes, {:.3} s",
                    pass.percent,
                    pass.solution.best,
                    pass.solution.score,
                    pass.solution.nodes,
                    clock.elapsed().as_secs_f64()
                )
            })
        })
        .context("the solver was stopped")?;
        let seconds = clock.elapsed().as_secs_f64();
        let nodes = solver.nodes();
        total_nodes += nodes;
        // Every move's score, after the timed solve (its nodes are not counted).
        if write_obf.is_some() {
            let scores = solver
                .solve_all(&mut board, SolveMode::Exact, &stop)
                .context("the solver was stopped")?;
            let line = obf::ObfPosition {
                board: position.board.clone(),
                scores,
                comment: position.comment.clone(),
            };
            rescored.push_str(&format!("{line}\n"));
        }
        solved += 1;

        let expected = position.best_score();
        let expected_score = expected.map(|s| match mode {
            SolveMode::Exact => s,
            SolveMode::WinLossDraw => s.signum(),
        });
        let best_moves = position.best_moves();
        let move_ok = best_moves.is_empty()
            || match mode {
                SolveMode::Exact => best_moves.contains(&solution.best),
                // Any move with the same outcome is right in WLD mode.
                SolveMode::WinLossDraw => position
                    .scores
                    .iter()
                    .any(|&(mv, s)| mv == solution.best && s.signum() == solution.score),
            };
        let score_ok = expected_score.is_none_or(|s| s == solution.score);
        wrong_moves += usize::from(!move_ok);
        wrong_scores += usize::from(!score_ok);
        let expected_text = match expected_score {
            Some(score) => format!(
                "{}:{:+}",
                best_moves
                    .iter()
                    .map(Move::to_string)
                    .collect::<Vec<_>>()
                    .join("/"),
                score
            ),
            None => "-".into(),
        };
        tsuru_core::outln!(
            "{:>4} {:>3} {:>4} {:>+5} {:>10} {:>6} {:>14} {:>9.3} {:>10.0}  {}",
            number,
            position.board.empties(),
            solution.best.to_string(),
            solution.score,
            expected_text,
            if move_ok && score_ok { "ok" } else { "WRONG" },
            nodes,
            seconds,
            nodes as f64 / seconds.max(1e-9),
            solution
                .pv
                .iter()
                .map(|m| format!("{m:#}"))
                .collect::<String>()
        )?;
    }
    let seconds = started.elapsed().as_secs_f64();
    eprintln!();
    if let Some(path) = &write_obf {
        std::fs::write(path, &rescored).with_context(|| format!("writing {path}"))?;
    }
    tsuru_core::outln!(
        "positions {solved}  wrong moves {wrong_moves}  wrong scores {wrong_scores}  nodes {total_nodes}  time {seconds:.3} s  {:.0} nodes/s",
        total_nodes as f64 / seconds.max(1e-9)
    )?;
    if wrong_moves + wrong_scores > 0 {
        std::process::exit(1);
    }
    Ok(())
}

/// Runs `solve` while another thread shows on stderr, every [`PROGRESS_INTERVAL`], which
/// position is being solved and the nodes counted so far (the line is overwritten in place).
fn with_progress<T>(
    counts: &NodeCounts,
    number: usize,
    empties: u32,
    solve: impl FnOnce() -> T,
) -> T {
    counts.reset();
    let done = (Mutex::new(false), Condvar::new());
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut finished = done.0.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                eprint!(
                    "solving #{number} ({empties} empties): {} nodes   \r",
                    counts.total()
                );
                if *finished {
                    break;
                }
                finished = done
                    .1
                    .wait_timeout(finished, PROGRESS_INTERVAL)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
        });
        let out = solve();
        *done.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
        done.1.notify_one();
        out
    })
}

/// How often the progress line is refreshed.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(500);

/// The number of the first position of a file named like `fforum-20-39.obf`, else 1.
fn ffo_offset(path: &str) -> usize {
    let name = std::path::Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    name.strip_prefix("fforum-")
        .and_then(|rest| rest.split('-').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    #[test]
    fn ffo_files_are_numbered_from_their_name() {
        assert_eq!(super::ffo_offset("tests/fixtures/fforum-20-39.obf"), 20);
        assert_eq!(super::ffo_offset("fforum-1-19.obf"), 1);
        assert_eq!(super::ffo_offset("mine.obf"), 1);
    }
}
