//! The solver's roots and what they report: a solve with its selective passes and windows,
//! the principal variation, every root move's value, and the split points of a parallel
//! solve (thread 0 leading, helpers serving).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

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
        self.stopped = false;
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
    /// opens split points where a helper is idle (Young Brothers Wait, [`split`](super::split)); the
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
        let pool = Arc::new(SolverPool::new(self.threads));
        let mut helpers: Vec<EndgameSolver> = (1..self.threads)
            .map(|i| EndgameSolver {
                pool: Some(Arc::clone(&pool)),
                thread: i,
                ..self.helper()
            })
            .collect();
        self.pool = Some(Arc::clone(&pool));
        self.thread = 0;
        let start_nodes = self.nodes;
        let solution = std::thread::scope(|scope| {
            for (i, helper) in helpers.iter_mut().enumerate() {
                let stop = stop.for_helper(pool.quit_flag()).with_counts(counts, i + 1);
                scope.spawn(move || helper.serve(&stop));
            }
            // The passes' node counts are every thread's (the helpers' as of their last polls).
            let solution = self.solve_root(board, mode, stop, &mut |pass| {
                let mut pass = pass.clone();
                pass.solution.nodes += counts.total() - counts.get(0);
                on_pass(&pass)
            });
            pool.quit();
            solution
        });
        self.pool = None;
        let helper_nodes: u64 = helpers.iter().map(|h| h.nodes).sum();
        log::debug!(
            "parallel solve: {} nodes on the leading thread ({:.3} s waiting for helpers), \
             {helper_nodes} on {} helpers",
            self.nodes - start_nodes,
            std::mem::take(&mut self.waited).as_secs_f64(),
            helpers.len()
        );
        self.nodes += helper_nodes;
        solution.map(|s| Solution {
            nodes: s.nodes + helper_nodes,
            ..s
        })
    }

    /// A helper's life in a parallel solve: joins split points with moves left, until the
    /// solve quits.
    fn serve(&mut self, stop: &StopCheck) {
        let pool = Arc::clone(self.pool.as_ref().expect("a helper has a pool"));
        let started = Instant::now();
        let (mut working, mut joins) = (Duration::ZERO, 0u64);
        pool.serve(|point| {
            let clock = Instant::now();
            self.help(&pool, point, split::NONE, stop);
            working += clock.elapsed();
            joins += 1;
        });
        log::debug!(
            "solver helper {}: {joins} split points joined, working {:.3} s of {:.3} s, {} nodes \
             ({:.3} s waiting for its own helpers)",
            self.thread,
            working.as_secs_f64(),
            started.elapsed().as_secs_f64(),
            self.nodes,
            self.waited.as_secs_f64()
        );
    }

    /// Joins split point `point` of another thread (if it is still open under `below`,
    /// unless that is [`split::NONE`]) and searches its moves until none is left; the values
    /// go to the point, and an abandoned subtree leaves this thread unstopped (unless the
    /// solve is stopping): the point's owner decides what it means.
    fn help(&mut self, pool: &SolverPool, point: usize, below: usize, stop: &StopCheck) {
        let Some(joined) = pool.join(point, below) else {
            return;
        };
        let mut board = joined.board;
        let level = std::mem::replace(&mut self.level, joined.context);
        self.work_at(pool, point, &mut board, joined.task, stop);
        self.level = level;
        pool.leave(point);
        self.stopped = pool.is_quitting();
    }

    /// Searches moves of split point `point`, whose position `board` is, starting with
    /// `task`, and reports each value to the point, until it hands out no more or this
    /// thread is stopped (by the solve's stop or a cutoff at or above the point). A move
    /// abandoned because the point's alpha rose past its window is searched again on the
    /// new alpha.
    fn work_at(
        &mut self,
        pool: &SolverPool,
        point: usize,
        board: &mut Board,
        mut task: Task<Discs>,
        stop: &StopCheck,
    ) {
        let outer = (self.current, self.task_alpha);
        self.current = point;
        loop {
            let Task {
                square,
                alpha,
                beta,
            } = task;
            self.task_alpha = alpha;
            board.make_move(square);
            let probe = -self.node(board, -alpha - Discs::ONE, -alpha, stop);
            let value = if probe > alpha && probe < beta && !self.stopped {
                -self.node(board, -beta, -probe, stop)
            } else {
                probe
            };
            board.undo();
            if self.stopped {
                // Only this point's alpha rose past the move's: search it again on the new one.
                let Some(alpha) = pool.retry_alpha(point, beta) else {
                    break;
                };
                self.stopped = false;
                task = Task { alpha, ..task };
                continue;
            }
            match pool.report(point, square, value) {
                Some(next) => task = next,
                None => break,
            }
        }
        (self.current, self.task_alpha) = outer;
    }

    /// Searches `moves` (the moves of `board` left after the first, at least two) on
    /// several threads: opens a split point with the window and the best value and move so
    /// far, takes moves from it like its helpers, then waits for them, helping at split
    /// points opened below it. Returns the node's best value and move; `self.stopped` is
    /// set when the solve is stopping or a point above is cut off (the value is then
    /// meaningless), not when this point is cut off (its value is then a lower bound).
    pub(super) fn split(
        &mut self,
        board: &mut Board,
        moves: &[Square],
        window: (Discs, Discs),
        best: (Discs, Option<Square>),
        stop: &StopCheck,
    ) -> (Discs, Option<Square>) {
        let pool = Arc::clone(self.pool.as_ref().expect("only a parallel solve splits"));
        let point = pool.open(
            self.thread,
            self.height,
            (self.current, self.task_alpha),
            board,
            self.level,
            window,
            best,
            moves,
        );
        self.height += 1;
        if let Some(task) = pool.take(point) {
            self.work_at(&pool, point, board, task, stop);
        }
        if self.stopped {
            // Abandoned from above or stopping: the moves left are not worth starting.
            pool.drain(point);
        }
        // Wait for the helpers, helping below meanwhile; only the leading thread watches the
        // caller's stop check (the helpers' checks watch the pool's quit flag).
        pool.set_idle(true);
        loop {
            let seen = pool.events();
            if !pool.has_workers(point) {
                break;
            }
            if let Some(below) = pool.find_work(point) {
                pool.set_idle(false);
                self.help(&pool, below, point, stop);
                pool.set_idle(true);
                continue;
            }
            if self.thread == 0 && stop.should_stop(self.nodes) {
                pool.quit();
            }
            let clock = Instant::now();
            pool.wait(seen);
            self.waited += clock.elapsed();
        }
        pool.set_idle(false);
        self.height -= 1;
        let closed = pool.close(self.thread, point);
        self.stopped = pool.abandoned(self.current, self.task_alpha);
        (closed.best, closed.best_square)
    }

    fn solve_root(
        &mut self,
        board: &mut Board,
        mode: SolveMode,
        stop: &StopCheck,
        on_pass: &mut dyn FnMut(&ProbableSolution),
    ) -> Option<Solution> {
        let start_nodes = self.nodes;
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
                nodes: self.nodes - start_nodes,
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
                        nodes: self.nodes - start_nodes,
                        ..solution
                    },
                });
            }
            self.level = None;
        }
        let solution = self.root_pass(board, mode, guess, hint, stop)?;
        Some(Solution {
            nodes: self.nodes - start_nodes,
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
        if self.stopped {
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
        if self.stopped || stop.should_stop(self.nodes) {
            self.stopped = true;
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
        self.stopped = false;
        self.level = None;
        self.tt.new_generation();
        if board.is_game_over() {
            return Some(Vec::new());
        }
        if !board.has_legal_move() {
            board.make_pass();
            let value = -self.node(board, -beta, -alpha, stop);
            board.undo();
            return (!self.stopped).then(|| vec![(Move::Pass, clip(value, mode))]);
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
                if self.stopped {
                    return None;
                }
                out.push((Move::Play(square), clip(value, mode)));
            }
        }
        out.sort_by_key(|&(_, value)| std::cmp::Reverse(value));
        Some(out)
    }

    /// The values of `moves` of the root `board` within `(alpha, beta)`, on every thread:
    /// each thread solves the next move nobody has taken, until none is left. This thread
    /// also watches the stop check while it waits for the others, and stops them with it.
    /// Returns `(index in moves, value)` pairs; `None` if stopped.
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
        let stop = stop.with_counts(&counts, 0);
        let mut helpers: Vec<EndgameSolver> = (1..self.threads).map(|_| self.helper()).collect();
        let quit = AtomicBool::new(false);
        let next = AtomicUsize::new(0);
        let values = std::thread::scope(|scope| {
            let handles: Vec<_> = helpers
                .iter_mut()
                .enumerate()
                .map(|(i, helper)| {
                    let stop = stop.for_helper(&quit).with_counts(&counts, i + 1);
                    let (mut board, next) = (board.clone(), &next);
                    scope.spawn(move || {
                        helper.take_moves(&mut board, moves, next, alpha, beta, &stop)
                    })
                })
                .collect();
            let mut board = board.clone();
            let mut values = self.take_moves(&mut board, moves, &next, alpha, beta, &stop);
            // Poll for the caller while the helpers finish their moves.
            while values.is_some() && !handles.iter().all(|h| h.is_finished()) {
                if stop.should_stop(self.nodes) {
                    values = None;
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            if values.is_none() {
                quit.store(true, Ordering::Relaxed);
            }
            for handle in handles {
                let theirs = handle.join().expect("a solver thread panicked");
                values = values.zip(theirs).map(|(mut mine, theirs)| {
                    mine.extend(theirs);
                    mine
                });
            }
            values
        });
        self.nodes += helpers.iter().map(|h| h.nodes).sum::<u64>();
        self.stopped = values.is_none();
        values
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
            if self.stopped {
                return None;
            }
            values.push((i, value));
        }
    }

    /// Appends best play from `board`, whose exact value is `value`, to `pv`.
    fn extend_pv(&mut self, board: &mut Board, value: Discs, pv: &mut Vec<Move>, stop: &StopCheck) {
        if board.is_game_over() || self.stopped {
            return;
        }
        if !board.has_legal_move() {
            board.make_pass();
            pv.push(Move::Pass);
            self.extend_pv(board, -value, pv, stop);
            board.undo();
            return;
        }
        let hint = self.tt.probe(board.hash()).and_then(|e| e.best);
        for square in ordering::solver_order(board, hint, self.bundle.evaluator()) {
            board.make_move(square);
            // The move is on the PV exactly when its child is worth -value.
            let child = self.node(board, -value - Discs::ONE, -value + Discs::ONE, stop);
            if child == -value && !self.stopped {
                pv.push(Move::Play(square));
                self.extend_pv(board, child, pv, stop);
                board.undo();
                return;
            }
            board.undo();
            if self.stopped {
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
        let mut solver = EndgameSolver::new(1);
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
}
