//! The solver's roots and what they report: a solve with its selective passes and windows,
//! the principal variation, every root move's value, and the split points of a parallel
//! solve (thread 0 leading, helpers serving).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::super::parallel;
use super::*;

impl EndgameSolver {
    /// Solves the root: best move, score and principal variation. `None` if stopped (by a
    /// flag, or a [`StopCheck`] whose node limit counts [`EndgameSolver::nodes`]).
    pub fn solve<'s>(
        &mut self,
        board: &mut Board,
        mode: SolveMode,
        stop: impl Into<StopCheck<'s>>,
    ) -> Option<Solution> {
        self.solve_reporting(board, mode, stop, &mut |_| {})
    }

    /// [`EndgameSolver::solve`], calling `on_pass` after each selective pass: a root with at
    /// least [`SELECTIVE_ROOT_EMPTIES`] empties is first searched with ProbCut at each of the
    /// [`SELECTIVE_LEVELS`] (their table entries and scores order and centre the next pass),
    /// then exactly; without endgame statistics in the bundle, exactly at once. Only the exact
    /// result is returned; `None` if stopped.
    pub fn solve_reporting<'s>(
        &mut self,
        board: &mut Board,
        mode: SolveMode,
        stop: impl Into<StopCheck<'s>>,
        on_pass: &mut dyn FnMut(&ProbableSolution),
    ) -> Option<Solution> {
        self.fit_table(board.empties());
        self.core.start();
        self.tt.new_generation();
        let counts = Arc::clone(&self.counts);
        counts.reset();
        let stop = stop.into().with_counts(&counts, 0);
        let solution = if self.threads > 1 && board.empties() >= PARALLEL_MIN_EMPTIES {
            self.solve_parallel(board, mode, &stop, &counts, on_pass)
        } else {
            self.solve_root(board, mode, &stop, on_pass)
        };
        self.level = None;
        solution
    }

    /// [`EndgameSolver::solve_root`] with helper threads: this thread leads the solve and
    /// opens split points where a helper is idle (Young Brothers Wait, [`parallel`]); the
    /// helpers wait for split points, search the moves they take there on their own boards,
    /// and return when the solve is over. The answer is as exact as one thread's: every
    /// move of a split node is searched, or the node is cut off by a move reaching beta.
    fn solve_parallel(
        &mut self,
        board: &mut Board,
        mode: SolveMode,
        stop: &StopCheck,
        counts: &NodeCounts,
        on_pass: &mut dyn FnMut(&ProbableSolution),
    ) -> Option<Solution> {
        let threads = self.threads;
        let (solution, helper_nodes) =
            parallel::with_helpers(self, threads, stop, counts, |solver| {
                // The passes' node counts are every thread's (the helpers' as of their last
                // polls).
                solver.solve_root(board, mode, stop, &mut |pass| {
                    let mut pass = pass.clone();
                    pass.solution.nodes += counts.total() - counts.get(0);
                    on_pass(&pass)
                })
            });
        self.core.nodes += helper_nodes;
        solution.map(|s| Solution {
            nodes: s.nodes + helper_nodes,
            ..s
        })
    }

    fn solve_root(
        &mut self,
        board: &mut Board,
        mode: SolveMode,
        stop: &StopCheck,
        on_pass: &mut dyn FnMut(&ProbableSolution),
    ) -> Option<Solution> {
        let start_nodes = self.core.nodes;
        if board.is_game_over() {
            let score = clip(board.final_score(board.side_to_move()), mode);
            return Some(Solution {
                best: Move::Pass,
                score,
                pv: Vec::new(),
                nodes: 0,
            });
        }
        if !board.has_legal_move() {
            board.make_pass();
            let mut passed = |probable: &ProbableSolution| {
                let mut pv = vec![Move::Pass];
                pv.extend_from_slice(&probable.solution.pv);
                on_pass(&ProbableSolution {
                    percent: probable.percent,
                    solution: Solution {
                        best: Move::Pass,
                        score: -probable.solution.score,
                        pv,
                        nodes: probable.solution.nodes,
                    },
                })
            };
            let child = self.solve_root(board, mode, stop, &mut passed);
            board.undo();
            let child = child?;
            let mut pv = vec![Move::Pass];
            pv.extend(child.pv);
            return Some(Solution {
                best: Move::Pass,
                score: -child.score,
                pv,
                nodes: self.core.nodes - start_nodes,
            });
        }
        let mut guess = None;
        let mut hint = None;
        // Selective passes need the bundle's statistics to predict with.
        if board.empties() >= SELECTIVE_ROOT_EMPTIES && self.bundle.endgame_cuts().is_some() {
            // The first pass is centred on the evaluation's guess (a full window costs the
            // first pass several times the nodes).
            guess = Some(self.first_guess(board));
            for (level, &(_, percent)) in SELECTIVE_LEVELS.iter().enumerate() {
                self.level = Some(level);
                let solution = self.root_pass(board, mode, guess, hint, stop)?;
                guess = Some(solution.score);
                hint = match solution.best {
                    Move::Play(square) => Some(square),
                    Move::Pass => None,
                };
                on_pass(&ProbableSolution {
                    percent,
                    solution: Solution {
                        nodes: self.core.nodes - start_nodes,
                        ..solution
                    },
                });
            }
            self.level = None;
        }
        let solution = self.root_pass(board, mode, guess, hint, stop)?;
        Some(Solution {
            nodes: self.core.nodes - start_nodes,
            ..solution
        })
    }

    /// A guess of the value of `board` (side to move) to centre the first pass's window on:
    /// a [`GUESS_DEPTH`]-ply search with the evaluation, rounded to the nearest even score
    /// (every final score is even).
    fn first_guess(&mut self, board: &mut Board) -> Discs {
        let value = self.eval_search(board, GUESS_DEPTH, -Score::INFINITY, Score::INFINITY);
        value.rounded_even_discs().clamp(-Discs::MAX, Discs::MAX)
    }

    /// One search of a root with legal moves at the current level: within a window around
    /// `guess` (widened when the value falls outside), `hint` first.
    fn root_pass(
        &mut self,
        board: &mut Board,
        mode: SolveMode,
        guess: Option<Discs>,
        hint: Option<Square>,
        stop: &StopCheck,
    ) -> Option<Solution> {
        let (low, high) = window(mode);
        let (mut alpha, mut beta) = match (mode, guess) {
            // Exact scores are even: this window settles guess - 2, guess and guess + 2.
            (SolveMode::Exact, Some(guess)) => {
                let margin = Discs::new(3);
                ((guess - margin).max(low), (guess + margin).min(high))
            }
            _ => (low, high),
        };
        // After a failure the value's side is searched from the bound found; a second
        // failure (only a selective pass, whose values may differ between windows, can fail
        // twice) opens the full window, which cannot fail.
        let mut failed = false;
        let (best, score) = loop {
            let (best, score) = self.root_window(board, alpha, beta, hint, stop)?;
            let fail_low = score <= alpha && alpha > low;
            let fail_high = score >= beta && beta < high;
            if !fail_low && !fail_high {
                break (best, score);
            }
            (alpha, beta) = if failed {
                (low, high)
            } else if fail_low {
                (low, score + Discs::ONE)
            } else {
                (score - Discs::ONE, high)
            };
            failed = true;
        };
        let score = clip(score, mode);
        let mut pv = vec![Move::Play(best)];
        if mode == SolveMode::Exact {
            board.make_move(best);
            self.extend_pv(board, -score, &mut pv, stop);
            board.undo();
        }
        if self.core.stopped() {
            return None;
        }
        Some(Solution {
            best: Move::Play(best),
            score,
            pv,
            nodes: 0,
        })
    }

    /// The best root move and its fail-soft value within `(alpha, beta)`; `None` if stopped.
    fn root_window(
        &mut self,
        board: &mut Board,
        alpha: Discs,
        beta: Discs,
        hint: Option<Square>,
        stop: &StopCheck,
    ) -> Option<(Square, Discs)> {
        let order = ordering::solver_order(board, hint, self.bundle.evaluator());
        let (best_score, best_move) = self.search_moves(
            board,
            order.as_slice(),
            (alpha, beta),
            (NO_MOVE, None),
            true,
            Expect::Cut,
            stop,
        );
        // The stop check is asked after each root move, whatever the poll interval.
        if self.core.stopped() || stop.should_stop(self.core.nodes) {
            self.core.set_stopped();
            return None;
        }
        let best = best_move.expect("a position with legal moves has a best move");
        Some((best, best_score))
    }

    /// The value of every legal move of the root, best first (ties in board order). A pass
    /// root gives `[(Move::Pass, value)]`, a finished game an empty list. `None` if stopped.
    pub fn solve_all<'s>(
        &mut self,
        board: &mut Board,
        mode: SolveMode,
        stop: impl Into<StopCheck<'s>>,
    ) -> Option<Vec<(Move, Discs)>> {
        let stop = &stop.into();
        let (alpha, beta) = window(mode);
        self.fit_table(board.empties());
        self.core.start();
        self.level = None;
        self.tt.new_generation();
        if board.is_game_over() {
            return Some(Vec::new());
        }
        if !board.has_legal_move() {
            board.make_pass();
            let value = -self.node(board, -beta, -alpha, stop);
            board.undo();
            return (!self.core.stopped()).then(|| vec![(Move::Pass, clip(value, mode))]);
        }
        let moves: Vec<Square> = bits::squares(board.legal_moves()).collect();
        let mut out = Vec::new();
        if self.threads > 1 && moves.len() > 1 && board.empties() >= PARALLEL_MIN_EMPTIES {
            let mut values = self.values_parallel(board, &moves, alpha, beta, stop)?;
            // Board order, as one thread gives them, whichever thread solved which.
            values.sort_unstable_by_key(|&(i, _)| i);
            for (i, value) in values {
                out.push((Move::Play(moves[i]), clip(value, mode)));
            }
        } else {
            for square in moves {
                board.make_move(square);
                let value = -self.node(board, -beta, -alpha, stop);
                board.undo();
                if self.core.stopped() {
                    return None;
                }
                out.push((Move::Play(square), clip(value, mode)));
            }
        }
        out.sort_by_key(|&(_, value)| std::cmp::Reverse(value));
        Some(out)
    }

    /// The values of `moves` of the root `board` within `(alpha, beta)`, on every thread
    /// ([`parallel::on_every_thread`]): each thread solves the next move nobody has taken,
    /// until none is left, and polls the stop check itself, so that a stop ends every thread
    /// at its next poll. Returns `(index in moves, value)` pairs; `None` if stopped.
    fn values_parallel(
        &mut self,
        board: &Board,
        moves: &[Square],
        alpha: Discs,
        beta: Discs,
        stop: &StopCheck,
    ) -> Option<Vec<(usize, Discs)>> {
        let counts = Arc::clone(&self.counts);
        counts.reset();
        let (threads, next) = (self.threads, AtomicUsize::new(0));
        let (values, helper_nodes) =
            parallel::on_every_thread(self, threads, stop, &counts, |solver, stop| {
                solver.take_moves(&mut board.clone(), moves, &next, alpha, beta, stop)
            });
        self.core.nodes += helper_nodes;
        let values: Option<Vec<_>> = values.into_iter().collect();
        if values.is_none() {
            self.core.set_stopped();
        }
        values.map(|values| values.concat())
    }

    /// Takes the next of `moves` (`next` counts those taken by every thread) and solves it
    /// within `(alpha, beta)`, until none is left: `(index, value)` pairs, `None` if stopped.
    fn take_moves(
        &mut self,
        board: &mut Board,
        moves: &[Square],
        next: &AtomicUsize,
        alpha: Discs,
        beta: Discs,
        stop: &StopCheck,
    ) -> Option<Vec<(usize, Discs)>> {
        let mut values = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(&square) = moves.get(i) else {
                return Some(values);
            };
            board.make_move(square);
            let value = -self.node(board, -beta, -alpha, stop);
            board.undo();
            if self.core.stopped() {
                return None;
            }
            values.push((i, value));
        }
    }

    /// Appends best play from `board`, whose exact value is `value`, to `pv`.
    fn extend_pv(&mut self, board: &mut Board, value: Discs, pv: &mut Vec<Move>, stop: &StopCheck) {
        if board.is_game_over() || self.core.stopped() {
            return;
        }
        if !board.has_legal_move() {
            board.make_pass();
            pv.push(Move::Pass);
            self.extend_pv(board, -value, pv, stop);
            board.undo();
            return;
        }
        let hint = self.known_best(board);
        for square in ordering::solver_order(board, hint, self.bundle.evaluator()) {
            board.make_move(square);
            // The move is on the PV exactly when its child is worth -value.
            let child = self.node(board, -value - Discs::ONE, -value + Discs::ONE, stop);
            if child == -value && !self.core.stopped() {
                pv.push(Move::Play(square));
                self.extend_pv(board, child, pv, stop);
                board.undo();
                return;
            }
            board.undo();
            if self.core.stopped() {
                return;
            }
        }
    }
}

/// The search window of a mode.
fn window(mode: SolveMode) -> (Discs, Discs) {
    match mode {
        SolveMode::Exact => (-Discs::MAX, Discs::MAX),
        SolveMode::WinLossDraw => (-Discs::ONE, Discs::ONE),
    }
}

/// A value of the recursion as reported in a mode: exact, or only its sign.
fn clip(score: Discs, mode: SolveMode) -> Discs {
    match mode {
        SolveMode::Exact => score,
        SolveMode::WinLossDraw => score.signum(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn windows_and_reported_values_follow_the_mode() {
        let d = Discs::new;
        assert_eq!(window(SolveMode::Exact), (d(-64), d(64)));
        assert_eq!(window(SolveMode::WinLossDraw), (d(-1), d(1)));
        assert_eq!(clip(d(-12), SolveMode::Exact), d(-12));
        assert_eq!(clip(d(-12), SolveMode::WinLossDraw), d(-1));
        assert_eq!(clip(d(0), SolveMode::WinLossDraw), d(0));
    }

    /// Roots of up to 10 empties: the solution's score is minimax's, its first move is the
    /// best move and reaches that score, and every root move's value is minimax's.
    #[test]
    fn roots_are_solved_with_minimax_values() {
        let mut rng = Rng::new(41);
        let mut solver = EndgameSolver::new(&crate::search::SearchConfig::new(1, 1).unwrap());
        let flag = std::sync::atomic::AtomicBool::new(false);
        let mut passes = 0;
        for i in 0..200u32 {
            let Some(view) = random_view(&mut rng, 1 + i % 10) else {
                continue;
            };
            let mut board =
                Board::from_discs(view.player, view.opponent, crate::board::Color::Black)
                    .expect("a position of a game");
            let exact = minimax(view);
            let solution = solver.solve(&mut board, SolveMode::Exact, &flag).unwrap();
            assert_eq!(solution.score, exact, "{board:?}");
            if let Move::Play(square) = solution.best {
                let child = view.play(square.index(), view.flips(square.index()));
                assert_eq!(-minimax(child), exact, "{board:?}");
            } else if !board.is_game_over() {
                passes += 1;
                assert_eq!(-minimax(view.passed()), exact);
            }
            let all = solver
                .solve_all(&mut board, SolveMode::Exact, &flag)
                .unwrap();
            for (mv, value) in all {
                if let Move::Play(square) = mv {
                    let child = view.play(square.index(), view.flips(square.index()));
                    assert_eq!(value, -minimax(child), "{board:?} {mv}");
                }
            }
            assert_eq!(board.ply(), 0);
        }
        assert!(passes > 0, "a root that must pass was solved");
    }
    /// Sampling the positions where the selective passes test ProbCut changes nothing of a
    /// solve (the same score, move and nodes), and keeps only such positions: fewer empties
    /// than the root and at least `PROBCUT_MIN_EMPTIES`, one in `every` by hash there and
    /// twice as many a square higher, each once over the whole sampling, handed over once.
    #[test]
    fn sampling_probcut_positions_changes_no_solve() {
        let mut rng = Rng::new(53);
        let flag = std::sync::atomic::AtomicBool::new(false);
        let every = 8;
        let mut sampled = EndgameSolver::new(&crate::search::SearchConfig::new(16, 1).unwrap());
        sampled.sample_probcut_positions(every);
        let mut seen = std::collections::HashSet::new();
        let mut roots = 0;
        while roots < 4 {
            let Some(root) = random_board(&mut rng, SELECTIVE_ROOT_EMPTIES + 2) else {
                continue;
            };
            roots += 1;
            let mut plain = EndgameSolver::new(&crate::search::SearchConfig::new(16, 1).unwrap());
            sampled.clear();
            let expected = plain
                .solve(&mut root.clone(), SolveMode::Exact, &flag)
                .unwrap();
            let solution = sampled
                .solve(&mut root.clone(), SolveMode::Exact, &flag)
                .unwrap();
            assert_eq!(
                (solution.best, solution.score, solution.nodes),
                (expected.best, expected.score, expected.nodes),
                "{root:?}"
            );
            let kept = sampled.take_probcut_positions();
            assert!(!kept.is_empty(), "the passes test ProbCut below {root:?}");
            for board in &kept {
                assert!(board.empties() < root.empties());
                assert!(board.empties() >= PROBCUT_MIN_EMPTIES);
                let rate = every >> (board.empties() - PROBCUT_MIN_EMPTIES);
                assert_eq!(board.hash() % rate.max(1), 0);
                assert!(seen.insert(board.hash()), "each position once");
            }
            assert!(
                sampled.take_probcut_positions().is_empty(),
                "handed over once"
            );
        }
        let mut unsampled = EndgameSolver::new(&crate::search::SearchConfig::new(16, 1).unwrap());
        let root = random_board(&mut rng, SELECTIVE_ROOT_EMPTIES + 2).unwrap();
        unsampled
            .solve(&mut root.clone(), SolveMode::Exact, &flag)
            .unwrap();
        assert!(
            unsampled.take_probcut_positions().is_empty(),
            "off by default"
        );
    }
}
