//! `tsuru probcut --endgame-sample ROOTS.obf --out FILE`: a validation file of the positions
//! at which the solver's selective passes test ProbCut, with their exact values.
//!
//! The endgame statistics (`--endgame FILE`) are a regression of exact values on shallow
//! searches; they are used at the null-window nodes of at least 14 empties that the selective
//! passes reach from a root, so that is where they are best measured. Each root of ROOTS is
//! solved with the evaluation's own statistics (one thread a root, so the nodes are those of
//! a one-thread solve, each from an empty table so that the file does not depend on the
//! number of threads), keeping one tested position in `--every` K by board hash at 14
//! empties, twice as many with each empty square more (each position once); then every kept
//! position is solved exactly and written as a validation line (position, exact score for
//! the side to move), by empties.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{ensure, Context, Result};

use crate::board::Board;
use crate::eval::EvalBundle;
use crate::formats::{obf, validation};
use crate::lab::parallel::map_with_state;
use crate::search::endgame::{EndgameSolver, SolveMode};

/// MiB of table for each solve: the roots are the size of the FFO and Edax problem sets.
const HASH_MB: usize = 64;

/// Solves `roots` with `bundle` (its statistics drive the passes) and returns the tested
/// positions (one in `every` by hash at 14 empties, twice as many a square higher, each
/// once; at most `per_empties` of each count of empties) with their exact values, ordered by
/// empties.
pub fn sample(
    roots: &[Board],
    bundle: &EvalBundle,
    every: u64,
    per_empties: usize,
    threads: usize,
) -> Vec<(Board, crate::score::Discs)> {
    let stop = AtomicBool::new(false);
    let solver = || {
        let mut solver = EndgameSolver::new(HASH_MB);
        solver.set_evaluation(bundle.clone());
        solver
    };
    let per_root: Vec<Vec<Board>> = map_with_state(
        roots,
        threads,
        || {
            let mut solver = solver();
            solver.sample_probcut_positions(every);
            solver
        },
        |solver, root| {
            // Each root from an empty table, so that what is sampled does not depend on
            // which roots a thread solved before it.
            solver.clear();
            let mut board = root.clone();
            solver.solve(&mut board, SolveMode::Exact, &stop);
            solver.take_probcut_positions()
        },
    );
    // A position reached from two roots is kept once, with the first.
    let mut seen = std::collections::HashSet::new();
    let mut positions: Vec<Board> = per_root
        .into_iter()
        .flatten()
        .filter(|board| seen.insert(board.hash()))
        .collect();
    // At most `per_empties` of each count of empties, those of the lowest hashes: a choice
    // that does not depend on the order the roots were solved in. Exact solves of 20 and
    // more empties are what the run's time goes to.
    positions.sort_by_key(|board| (board.empties(), board.hash()));
    let mut counts = [0usize; 61];
    positions.retain(|board| {
        let count = &mut counts[board.empties() as usize];
        *count += 1;
        *count <= per_empties
    });
    // Solved in hash order, so that the threads' shares mix small and large positions.
    positions.sort_by_key(Board::hash);
    eprintln!("solving the {} positions kept exactly...", positions.len());
    let values = map_with_state(&positions, threads, solver, |solver, board| {
        solver.clear();
        let mut board = board.clone();
        solver
            .solve(&mut board, SolveMode::Exact, &stop)
            .expect("an unstopped solve finishes")
            .score
    });
    let mut solved: Vec<_> = positions.into_iter().zip(values).collect();
    solved.sort_by_key(|(board, _)| (board.empties(), board.hash()));
    solved
}

/// `--endgame-sample ROOTS`: samples ROOTS' solves and writes the validation file to `out`.
pub fn run(
    roots_path: &Path,
    bundle: &EvalBundle,
    every: u64,
    per_empties: usize,
    threads: usize,
    out: &Path,
    started: Instant,
) -> Result<()> {
    ensure!(
        bundle.endgame_cuts().is_some(),
        "{} has no endgame statistics: its solves have no selective passes to sample",
        bundle.source()
    );
    let text = std::fs::read_to_string(roots_path)
        .with_context(|| format!("reading {}", roots_path.display()))?;
    let roots: Vec<Board> = obf::parse_file(&text)
        .with_context(|| format!("parsing {}", roots_path.display()))?
        .into_iter()
        .map(|position| position.board)
        .collect();
    ensure!(
        !roots.is_empty(),
        "no positions in {}",
        roots_path.display()
    );
    eprintln!(
        "solving {} roots, keeping 1 in {every} tested positions at 14 empties...",
        roots.len()
    );
    let solved = sample(&roots, bundle, every, per_empties, threads);
    let mut counts = std::collections::BTreeMap::new();
    for (board, _) in &solved {
        *counts.entry(board.empties()).or_insert(0usize) += 1;
    }
    let mut lines = format!(
        "# tsuru validation set: <board> <exact score for the side to move>\n\
         # the positions at which the selective passes tested ProbCut in solving {} (1 in {every} \
         by hash at 14 empties, twice as many a square higher, at most {per_empties} a count of \
         empties), written by\n# tsuru {}\n# positions by empties: {}\n",
        roots_path.display(),
        std::env::args().skip(1).collect::<Vec<_>>().join(" "),
        counts
            .iter()
            .map(|(empties, n)| format!("{empties}:{n}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    for (board, score) in &solved {
        lines.push_str(&validation::line(board, *score));
        lines.push('\n');
    }
    std::fs::write(out, lines).with_context(|| format!("writing {}", out.display()))?;
    eprintln!(
        "{} positions in {:.1} s",
        solved.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
