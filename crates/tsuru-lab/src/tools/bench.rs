//! `tsuru bench [--hash MB] [--depth-offset N] [--threads N] [--eval-file W] [--eval-cache
//! BITS]`: a fixed set of positions searched to fixed depths from a cleared table (the
//! evaluation cache is not cleared: it never changes a value).
//!
//! Prints nodes, time and nodes/s per position and in total, then `signature <nodes>`. On one
//! thread (the default) the search is deterministic, so the signature is the same on every
//! run of the same build: a changed signature means the search changed (Stockfish's bench
//! convention). On several threads the counts vary from run to run: that measures speed.
//! With `--eval-file` the signature is that of the search with those weights (the shipped
//! signature is the shipped weights').

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{Context, Result};

use tsuru_core::board::{notation, Board};
use tsuru_core::cli::search_options::{SearchOptions, EVAL_FILE, HASH};
use tsuru_core::cli::tool_args::{Arg, ToolArgs, ToolOption, ToolSpec};
use tsuru_core::search::{Search, SearchLimits};

/// The bench positions: (name, how to reach it, midgame depth). Openings are transcripts from
/// the start; the others are board strings (midgame positions from the FFO suite, searched to
/// a fixed depth, not solved).
const POSITIONS: &[(&str, &str, u32)] = &[
    ("start", "", 12),
    ("xot f5d6c4d3c2b3b4b5", "f5d6c4d3c2b3b4b5", 12),
    ("xot f5f4g3g6f3g4e3e2", "f5f4g3g6f3g4e3e2", 12),
    ("xot f5f6d3c5d6c7b5e3", "f5f6d3c5d6c7b5e3", 12),
    ("tiger", "f5d6c3d3c4f4f6f3e6e7", 11),
    ("xot f5f6e6d6f7g6h5g4", "f5f6e6d6f7g6h5g4", 12),
    (
        "ffo 40",
        "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X",
        12,
    ),
    (
        "ffo 45",
        "---XXXX-X-XXXO--XXOXOO--XXXOXO--XXOXXO---OXXXOO-O-OOOO------OO-- X",
        12,
    ),
    (
        "ffo 50",
        "----X-----XXX----OOOXOOO-OOOXOOO-OXOXOXO-OOXXOOO--OOXO----O--O-- X",
        12,
    ),
    (
        "ffo 55",
        "--------X-X------XXXXOOOOOXOXX--OOOXXXX-OOXXXX--O-OOOX-----OO--- O",
        12,
    ),
];

/// The command line of `tsuru bench`.
pub const SPEC: ToolSpec = ToolSpec {
    name: "bench",
    about: "search fixed positions to fixed depths; prints nodes/s and a node signature",
    synopsis: "",
    options: &[
        ToolOption::shared(HASH),
        ToolOption::new(
            "--depth-offset",
            "N",
            "add N (may be negative) to every position's depth (default 0)",
        ),
        ToolOption::reproducible_threads(),
        ToolOption::shared(EVAL_FILE),
        ToolOption::new(
            "--eval-cache",
            "BITS",
            "each thread's evaluation cache holds 2^BITS leaf values, 0 for none (default 14)",
        ),
    ],
    notes: "",
};

/// Runs the benchmark.
pub fn run(args: &[String]) -> Result<()> {
    // One thread by default: the signature is then the same on every run.
    let mut options = SearchOptions::reproducible();
    let mut offset: i32 = 0;
    let mut cache_bits = tsuru_core::search::eval_cache::DEFAULT_BITS;
    let mut args = ToolArgs::from_spec(args, &SPEC);
    while let Some(arg) = args.next_option()? {
        match arg {
            Arg::Flag(flag) if SearchOptions::takes(flag) => {
                options.set(flag, args.value(flag)?)?
            }
            Arg::Flag(flag @ "--depth-offset") => {
                offset = args
                    .value(flag)?
                    .parse()
                    .context("--depth-offset needs a number")?
            }
            Arg::Flag(flag @ "--eval-cache") => {
                cache_bits = args
                    .value(flag)?
                    .parse()
                    .ok()
                    .filter(|&bits: &u32| bits <= 26)
                    .context("--eval-cache needs a number from 0 to 26")?
            }
            other => return Err(args.unexpected(other)),
        }
    }
    let mut search = Search::new(options.config()?.with_eval_cache_bits(cache_bits)?);
    let stop = AtomicBool::new(false);
    let mut total_nodes = 0;
    let mut searching = 0.0;
    for &(name, setup, depth) in POSITIONS {
        let board = bench_position(setup)?;
        let depth = (depth as i32 + offset).max(1) as u32;
        // Zeroed outside the timed search (see `Search::clear_in_place`).
        search.clear_in_place();
        // Midgame only: the bench measures the alpha-beta search, not the solver.
        let limits = SearchLimits::midgame(depth);
        let clock = Instant::now();
        let result = search.iterate(&board, &limits, &stop, &mut |_| {});
        let seconds = clock.elapsed().as_secs_f64();
        total_nodes += result.nodes;
        searching += seconds;
        tsuru_core::outln!(
            "{name:<24} depth {depth:2}  move {:>2}  score {:+.2}  nodes {:>11}  time {seconds:7.3} s  {:>10.0} nodes/s",
            result.best.to_string(),
            result.score.discs(),
            result.nodes,
            result.nodes as f64 / seconds.max(1e-9)
        )?;
    }
    // The searches' own time: the tables' clearing between positions is left out.
    tsuru_core::outln!(
        "total nodes {total_nodes}  time {searching:.3} s  {:.0} nodes/s",
        total_nodes as f64 / searching.max(1e-9)
    )?;
    tsuru_core::outln!("signature {total_nodes}")?;
    Ok(())
}

/// A position from a transcript (from the start) or a board string.
fn bench_position(setup: &str) -> Result<Board> {
    if setup.len() >= 64 {
        return notation::parse_board(setup);
    }
    let mut board = Board::start();
    notation::play_moves(&mut board, &notation::parse_transcript(setup)?)?;
    Ok(board)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_positions_are_valid_and_unfinished() {
        for &(name, setup, _) in POSITIONS {
            let board = bench_position(setup).unwrap_or_else(|e| panic!("{name}: {e:#}"));
            assert!(board.has_legal_move(), "{name}");
        }
    }
}
