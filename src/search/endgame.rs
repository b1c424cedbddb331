//! The exact endgame solver: the value of a position with perfect play to the end.
//!
//! Scores are whole discs from the side to move's point of view, with the empty squares of a
//! finished game going to the winner ([`Board::final_score`]). Win/loss/draw mode is the same
//! search with the null window around 0. The solver's interface speaks [`Discs`]; inside, the
//! recursion (windows, node values, table scores) passes bare `i32` discs: it is the hottest
//! code of the engine, written as integer arithmetic on windows (`-beta`, `low + 1`, `guess -
//! 3`), and its values never leave it except through `clip`, which types them.
//!
//! * **Board nodes** (at least `ordering::EVAL_ORDER_EMPTIES` empties) work on the [`Board`]
//!   with make/undo and its incremental hash and pattern indices, because their move order
//!   uses the evaluation of each child (see `ordering::solver_order`).
//! * **View nodes** (down to [`LEAF_EMPTIES`] + 1 empties) search the transient bitboard view
//!   ([`BitView`]: the side to move's discs, the opponent's), hashed by [`BitView::hash`],
//!   with no make/undo: fastest-first order (fewest
//!   opponent replies, corners first among equals, a quadrant with an even number of empties
//!   breaking ties), the table from `TT_MIN_EMPTIES` (9), an enhanced transposition cutoff from
//!   `ETC_MIN_EMPTIES` (10). Both kinds of node cut on the opponent's stable discs
//!   ([`bits::stable`]) when that bound can reach alpha.
//! * **Leaf nodes** keep a short list of the empty squares, ordered by parity: squares in
//!   quadrants with an odd number of empties first (the last move of a region is worth
//!   having). The last four empties have searches of their own (`solve_4` .. `solve_1`),
//!   which take the empty squares as arguments instead of a list: 4 and 3 re-order them by
//!   parity, 2 tries both squares, and the last empty square is scored by counting the
//!   flips of its move without making it ([`bits::last_flips`]: on a full board a line's
//!   flips depend only on the mover's discs, looked up per line).
//!
//! The view nodes search the same nodes in about two thirds of the time, and their cheaper
//! hash pays for the table from 9 empties (9 measured faster than 8 and 10 once the last
//! empties had their own searches; docs/results.md).
//!
//! Every search is a principal-variation search: the first move with the full window, the
//! others with a null window, re-searched when they fail high.
//!
//! **Selective passes.** A root with at least [`SELECTIVE_ROOT_EMPTIES`] empties is first
//! solved with endgame ProbCut at rising confidence ([`SELECTIVE_LEVELS`]: 73 %, 87 %, 95 %,
//! 99 %), then exactly. In a pass, a null-window board node runs a shallow search with the
//! evaluation (2 to 8 plies, deeper the more empties) and cuts when that predicts the exact
//! value outside the window with the pass's confidence (the solver's evaluation bundle's
//! [`crate::search::probcut::EndgameCuts`]: exact values of the validation set regressed on
//! shallow searches; a bundle without them solves exactly at once). Each pass is centred on the previous
//! pass's score, and its table entries (tagged with the pass's level, so that a more
//! confident pass never takes them as proven) order the next. The exact pass is unchanged, so
//! its result is as exact as ever. The passes cut the nodes of the FFO solves by 15 to 48 %
//! (docs/results.md), and the four of them give a GUI a probable answer early.
//!
//! **Threads** ([`EndgameSolver::set_threads`]; one by default). A root of at least
//! [`PARALLEL_MIN_EMPTIES`] empties is solved with helper threads by Young Brothers Wait:
//! at a board node of at least [`SPLIT_MIN_EMPTIES`] empties whose first move has been
//! searched alone, while a thread is idle, the remaining moves become a split point (see the
//! `split` module) that idle threads take moves from, each on its own board; a move that
//! reaches beta cuts the point off and its other threads abandon their subtrees. The threads
//! share the table and nothing else. The root, the selective passes, win/loss/draw windows
//! and the principal variation's searches all go through the same node search, so all of
//! them split. The result is exact as one thread's is: every move of a split node is
//! searched or the node is cut off by a move that reached beta, and every table entry is a
//! sound bound of its own kind whichever thread wrote it (selective entries are tagged with
//! their level and never taken by a more confident pass, see `EndgameSolver::tag`). The
//! number of nodes varies from run to run with the threads' timing; the split threshold and
//! the measured speedup are in docs/results.md. A multi-PV solve
//! ([`EndgameSolver::solve_all`]) instead deals the root moves out to the threads, one at a
//! time.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::ordering::{self, SQUARE_ORDER};
use super::split::{self, Pool, Task};
use super::stop::{NodeCounts, StopCheck};
use super::tt::{Bound, Entry, TranspositionTable, SOLVED_DEPTH};
use crate::board::bits::{self, BitView};
use crate::board::{Board, Move, Square};
use crate::eval::{EvalBundle, Evaluation};
use crate::score::{Discs, Score, UNITS_PER_DISC};

/// Beyond any score, in score units.
const INFINITE_UNITS: i32 = Score::INFINITY.0;

/// At or below this many empties the solver switches to the bitboard leaf search.
pub const LEAF_EMPTIES: u32 = 5;

/// At or below this many empties (and above [`LEAF_EMPTIES`]) the solver searches on the
/// bitboard view with its own hash instead of the board's make/undo: the move ordering there
/// needs no evaluation (see `ordering::EVAL_ORDER_EMPTIES`), so nothing needs the board's
/// pattern indices, and skipping the mailbox, flip stack and index updates is faster.
const VIEW_MAX_EMPTIES: u32 = ordering::EVAL_ORDER_EMPTIES - 1;

/// Ordering-key units added to a move into a quadrant with an even number of empties.
const PARITY_KEY: i32 = 8;

/// `Square` index meaning "no square" in the view search's move hints.
const NO_SQUARE: u8 = 64;

/// Below any value: what the last-empties searches' move loops return when the side to move
/// has no legal move.
const NO_MOVE: i32 = -65;

/// Nodes with at least this many empties use the transposition table.
const TT_MIN_EMPTIES: u32 = 9;

/// Nodes with at least this many empties try an enhanced transposition cutoff.
const ETC_MIN_EMPTIES: u32 = 10;

/// The selective passes that precede an exact solve of a root with at least
/// [`SELECTIVE_ROOT_EMPTIES`] empties: the ProbCut confidence factor of each, and the
/// percentage it is reported with (the chance that one cut is right, as NBoard, NTest and
/// Edax show it).
pub const SELECTIVE_LEVELS: [(f32, u8); 4] = [(1.1, 73), (1.5, 87), (2.0, 95), (2.6, 99)];

/// Roots with at least this many empties are solved after selective passes.
pub const SELECTIVE_ROOT_EMPTIES: u32 = 18;

/// In a selective pass, nodes with at least this many empties try a ProbCut: every board
/// node (the view nodes below have no evaluation to predict with).
const PROBCUT_MIN_EMPTIES: u32 = ordering::EVAL_ORDER_EMPTIES;

/// Table depth tag of the first selective level; level `i` stores `SELECTIVE_TAG + i`, below
/// [`SOLVED_DEPTH`] (exact) and above any midgame depth.
const SELECTIVE_TAG: u8 = SOLVED_DEPTH - 1 - SELECTIVE_LEVELS.len() as u8;

/// The solver's split points: their context is the selective pass of the search (an index
/// into [`SELECTIVE_LEVELS`], `None` when exact).
type SolverPool = Pool<Option<usize>>;

/// Nodes with at least this many empties may be split among threads (Young Brothers Wait,
/// see [`EndgameSolver::set_threads`]) once their first move is searched.
pub const SPLIT_MIN_EMPTIES: u32 = 16;

/// Roots with at least this many empties are solved on every thread
/// ([`EndgameSolver::set_threads`]); smaller ones have no node to split.
pub const PARALLEL_MIN_EMPTIES: u32 = SPLIT_MIN_EMPTIES;

/// Nodes between two looks at the stop check.
const POLL_INTERVAL: u64 = 4096;

/// Exact score, or only the sign (win/loss/draw).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SolveMode {
    /// The exact disc difference.
    Exact,
    /// Only whether the side to move wins, draws or loses (score -1, 0 or +1).
    WinLossDraw,
}

/// The solved root: the best move, its score and the principal variation.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    /// The best move; `Move::Pass` when passing is forced, and also for a finished game
    /// (then `pv` is empty).
    pub best: Move,
    /// The exact score in discs, or -1/0/+1 in win/loss/draw mode.
    pub score: Discs,
    /// Best play from the root (in win/loss/draw mode only the first move is guaranteed).
    pub pv: Vec<Move>,
    /// Nodes searched for this solution.
    pub nodes: u64,
}

/// An exact solver with its own transposition table (shared with its helper threads).
pub struct EndgameSolver {
    tt: Arc<TranspositionTable>,
    /// Threads a root solve uses, this one included.
    threads: usize,
    /// The running node counts of the threads of the root solve in progress.
    counts: Arc<NodeCounts>,
    /// While several threads solve one root: their split points (see [`split`](super::split)).
    pool: Option<Arc<SolverPool>>,
    /// This thread's index among those of the root solve (0: the one that leads it).
    thread: usize,
    /// The innermost split point this thread is searching under, or [`split::NONE`].
    current: usize,
    /// The alpha that this thread's move at `current` is searched on.
    task_alpha: i32,
    /// How many split points this thread has open (the height of its stack in the pool).
    height: usize,
    /// Time spent waiting for helpers at this thread's split points (a debug log's figure).
    waited: Duration,
    nodes: u64,
    next_poll: u64,
    stopped: bool,
    /// The selective pass in progress (an index into [`SELECTIVE_LEVELS`]), `None` when exact.
    level: Option<usize>,
    /// The evaluation (move ordering, shallow searches) and the selective passes' statistics.
    bundle: EvalBundle,
}

/// A selective pass's result, reported while a root is solved.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbableSolution {
    /// The confidence percentage of the pass (from [`SELECTIVE_LEVELS`]).
    pub percent: u8,
    /// The pass's best move, score and principal variation; the score is probable, not proven.
    pub solution: Solution,
}

/// Bit masks of the four quadrants, for parity ordering.
const QUADRANTS: [u64; 4] = [
    0x0000_0000_0f0f_0f0f,
    0x0000_0000_f0f0_f0f0,
    0x0f0f_0f0f_0000_0000,
    0xf0f0_f0f0_0000_0000,
];

impl EndgameSolver {
    /// A solver whose table uses at most `hash_mb` MiB, with the shipped evaluation bundle.
    pub fn new(hash_mb: usize) -> EndgameSolver {
        EndgameSolver::with_table(
            Arc::new(TranspositionTable::new(hash_mb)),
            EvalBundle::shipped(),
        )
    }

    /// A one-thread solver on `tt` with `bundle`, its per-solve state fresh.
    fn with_table(tt: Arc<TranspositionTable>, bundle: EvalBundle) -> EndgameSolver {
        EndgameSolver {
            tt,
            threads: 1,
            counts: Arc::new(NodeCounts::new(1)),
            pool: None,
            thread: 0,
            current: split::NONE,
            task_alpha: 0,
            height: 0,
            waited: Duration::ZERO,
            nodes: 0,
            next_poll: POLL_INTERVAL,
            stopped: false,
            level: None,
            bundle,
        }
    }

    /// Replaces the evaluation bundle: its evaluation orders the moves and runs the shallow
    /// searches, its endgame statistics drive the selective passes (a bundle without them
    /// solves exactly at once). A [`crate::search::Search`] gives its solver its own bundle.
    pub fn set_evaluation(&mut self, bundle: EvalBundle) {
        self.bundle = bundle;
    }

    /// Bytes used by the transposition table.
    pub fn table_bytes(&self) -> usize {
        self.tt.size_bytes()
    }

    /// Empties the transposition table.
    pub fn clear(&mut self) {
        // Helpers share the table only while a solve runs, and none is running now.
        Arc::get_mut(&mut self.tt)
            .expect("no helper holds the table between searches")
            .clear_for_threads(self.threads);
    }

    /// Solves roots of at least [`PARALLEL_MIN_EMPTIES`] empties on `threads` threads (at
    /// least 1): this one and helpers sharing the table and its split points (see the module
    /// doc). With one thread the solver searches exactly as it always did.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
        self.counts = Arc::new(NodeCounts::new(self.threads));
        self.tt.prepare_for_threads(self.threads);
    }

    /// The running node counts of the threads of a root solve ([`EndgameSolver::solve`] and
    /// the like), for a progress display; reset when a solve starts.
    pub fn progress(&self) -> Arc<NodeCounts> {
        Arc::clone(&self.counts)
    }

    /// A solver for a helper thread: the same table and evaluation, its own state.
    pub(crate) fn helper(&self) -> EndgameSolver {
        EndgameSolver::with_table(Arc::clone(&self.tt), self.bundle.clone())
    }

    /// Nodes searched since creation or the last [`EndgameSolver::reset_nodes`].
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Restarts the node count.
    pub fn reset_nodes(&mut self) {
        self.nodes = 0;
        self.next_poll = POLL_INTERVAL;
    }

    /// The value of `board` for the side to move, fail-soft within `(alpha, beta)`: below or
    /// at `alpha` it is an upper bound, at or above `beta` a lower bound, in between exact.
    /// `None` if `stop` (a flag, or a [`StopCheck`] whose node limit counts
    /// [`EndgameSolver::nodes`]) stopped it. The board is restored before returning.
    pub fn search<'s>(
        &mut self,
        board: &mut Board,
        alpha: Discs,
        beta: Discs,
        stop: impl Into<StopCheck<'s>>,
    ) -> Option<Discs> {
        self.stopped = false;
        self.level = None;
        self.tt.new_generation();
        let value = self.node(board, alpha.0, beta.0, &stop.into());
        (!self.stopped).then_some(Discs(value))
    }

    /// Like [`EndgameSolver::search`] for use inside another search: keeps the table's
    /// generation and returns the raw value; check [`EndgameSolver::was_stopped`] after it.
    pub(crate) fn search_nested(
        &mut self,
        board: &mut Board,
        alpha: Discs,
        beta: Discs,
        stop: &StopCheck,
    ) -> Discs {
        self.stopped = false;
        self.level = None;
        Discs(self.node(board, alpha.0, beta.0, stop))
    }

    /// Whether the last search was interrupted by the stop check.
    pub(crate) fn was_stopped(&self) -> bool {
        self.stopped
    }

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
        mut task: Task,
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
            let probe = -self.node(board, -alpha - 1, -alpha, stop);
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
    fn split(
        &mut self,
        board: &mut Board,
        moves: &[Square],
        window: (i32, i32),
        best: (i32, Option<Square>),
        stop: &StopCheck,
    ) -> (i32, Option<Square>) {
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
            let score = clip(board.final_score(board.side_to_move()).0, mode);
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
            (SolveMode::Exact, Some(Discs(guess))) => ((guess - 3).max(low), (guess + 3).min(high)),
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
                (low, score + 1)
            } else {
                (score - 1, high)
            };
            failed = true;
        };
        let score = clip(score, mode);
        let mut pv = vec![Move::Play(best)];
        if mode == SolveMode::Exact {
            board.make_move(best);
            self.extend_pv(board, -score.0, &mut pv, stop);
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
        alpha: i32,
        beta: i32,
        hint: Option<Square>,
        stop: &StopCheck,
    ) -> Option<(Square, i32)> {
        let order = ordering::solver_order(board, hint, self.bundle.evaluator());
        let (best_score, best_move) =
            self.search_moves(board, order.as_slice(), (alpha, beta), true, stop);
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
        alpha: i32,
        beta: i32,
        stop: &StopCheck,
    ) -> Option<Vec<(usize, i32)>> {
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
        alpha: i32,
        beta: i32,
        stop: &StopCheck,
    ) -> Option<Vec<(usize, i32)>> {
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
    fn extend_pv(&mut self, board: &mut Board, value: i32, pv: &mut Vec<Move>, stop: &StopCheck) {
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
        let hint = self.tt.probe(board.hash()).and_then(|e| e.best_move());
        for square in ordering::solver_order(board, hint, self.bundle.evaluator()) {
            board.make_move(square);
            // The move is on the PV exactly when its child is worth -value.
            let child = self.node(board, -value - 1, -value + 1, stop);
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

    /// The table tag of a result at a node with `empties` empties: [`SOLVED_DEPTH`] when it is
    /// exact, the selective level's tag when ProbCut may have cut below it. Entries are used
    /// for cutoffs only with a tag at least as high (ordering uses any).
    #[inline]
    fn tag(&self, empties: u32) -> u8 {
        match self.level {
            Some(level) if empties >= PROBCUT_MIN_EMPTIES => SELECTIVE_TAG + level as u8,
            _ => SOLVED_DEPTH,
        }
    }

    /// Stores a node's fail-soft result: an upper bound at or below the original alpha, a
    /// lower bound at or above beta, else exact.
    #[inline]
    fn store(
        &mut self,
        hash: u64,
        tag: u8,
        best: i32,
        alpha: i32,
        beta: i32,
        square: Option<Square>,
    ) {
        self.tt
            .store(hash, tag, Bound::of_result(best, alpha, beta), best, square);
    }

    /// Polls the stop check every [`POLL_INTERVAL`] nodes.
    #[inline]
    fn poll(&mut self, stop: &StopCheck) -> bool {
        if self.nodes >= self.next_poll {
            self.next_poll = self.nodes + POLL_INTERVAL;
            if stop.should_stop(self.nodes) {
                self.stopped = true;
                if let Some(pool) = &self.pool {
                    pool.quit();
                }
            } else if self.current != split::NONE {
                // A cutoff or a raised alpha at a split point above: this subtree is no longer
                // needed as it is searched.
                let pool = self.pool.as_ref().expect("a split point has a pool");
                self.stopped |= pool.abandoned(self.current, self.task_alpha);
            }
        }
        self.stopped
    }

    /// The best value and move of `board` among `moves` (its legal moves, in order) within
    /// `(alpha, beta)`, fail-soft: the first with the full window, the others with a null
    /// window and re-searched when they land inside it. In a parallel solve the moves after
    /// the first are shared with idle threads ([`EndgameSolver::split`]) at nodes of at
    /// least [`SPLIT_MIN_EMPTIES`] empties. At the `root`, the stop check is also asked
    /// after each move searched alone. Meaningless if `self.stopped` is set.
    fn search_moves(
        &mut self,
        board: &mut Board,
        moves: &[Square],
        (mut alpha, beta): (i32, i32),
        root: bool,
        stop: &StopCheck,
    ) -> (i32, Option<Square>) {
        let mut best = -65;
        let mut best_square = None;
        for (i, &square) in moves.iter().enumerate() {
            if i > 0 && moves.len() - i >= 2 && self.may_split(board) {
                return self.split(board, &moves[i..], (alpha, beta), (best, best_square), stop);
            }
            let flipped = board.flips(square);
            board.apply_flips(square, flipped);
            let value = if i == 0 {
                -self.node(board, -beta, -alpha, stop)
            } else {
                let probe = -self.node(board, -alpha - 1, -alpha, stop);
                if probe > alpha && probe < beta {
                    -self.node(board, -beta, -probe, stop)
                } else {
                    probe
                }
            };
            board.undo();
            if self.stopped || (root && stop.should_stop(self.nodes)) {
                self.stopped = true;
                break;
            }
            if value > best {
                best = value;
                best_square = Some(square);
                if value > alpha {
                    alpha = value;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        (best, best_square)
    }

    /// Whether to share the rest of this node's moves: a parallel solve, a node big enough,
    /// an idle thread to take them and room on this thread's stack of split points.
    #[inline]
    fn may_split(&self, board: &Board) -> bool {
        self.pool.as_ref().is_some_and(|pool| {
            board.empties() >= SPLIT_MIN_EMPTIES
                && self.height < split::MAX_SPLITS
                && pool.has_idle()
        })
    }

    /// Negamax value at an upper node (see the module doc).
    fn node(&mut self, board: &mut Board, mut alpha: i32, mut beta: i32, stop: &StopCheck) -> i32 {
        let empties = board.empties();
        if empties <= VIEW_MAX_EMPTIES {
            return self.view_node(board.view(), alpha, beta, stop);
        }
        self.nodes += 1;
        if self.poll(stop) {
            return 0;
        }
        if let Some(upper) = stability_bound(board.view(), alpha) {
            if upper <= alpha {
                return upper;
            }
            beta = beta.min(upper);
        }

        let hash = board.hash();
        let tag = self.tag(empties);
        let mut hint = None;
        if empties >= TT_MIN_EMPTIES {
            if let Some(entry) = self.tt.probe(hash) {
                hint = entry.best_move();
                if let Some(score) = narrow(entry, tag, &mut alpha, &mut beta) {
                    return score;
                }
            }
        }

        if !board.has_legal_move() {
            if !board.opponent_has_legal_move() {
                return board.final_score(board.side_to_move()).0;
            }
            board.make_pass();
            let value = -self.node(board, -beta, -alpha, stop);
            board.undo();
            return value;
        }

        // Enhanced transposition cutoff: a child already proven bad enough for the opponent
        // refutes this node without a search.
        if empties >= ETC_MIN_EMPTIES {
            let child_tag = self.tag(empties - 1);
            for square in bits::squares(board.legal_moves()) {
                let flipped = board.flips(square);
                board.apply_flips(square, flipped);
                let child = self.tt.probe(board.hash());
                board.undo();
                if let Some(value) = child.and_then(|entry| refutes(entry, child_tag, beta)) {
                    return value;
                }
            }
        }

        if let Some(level) = self.level {
            // Only null-window nodes: the principal variation is searched in full.
            if beta - alpha == 1 && empties >= PROBCUT_MIN_EMPTIES {
                let confidence = SELECTIVE_LEVELS[level].0;
                if let Some(value) = self.probcut(board, empties, alpha, beta, confidence) {
                    self.store(hash, tag, value, alpha, beta, hint);
                    return value;
                }
            }
        }

        let original_alpha = alpha;
        let order = ordering::solver_order(board, hint, self.bundle.evaluator());
        let (best, best_square) =
            self.search_moves(board, order.as_slice(), (alpha, beta), false, stop);
        if self.stopped {
            return 0;
        }
        if empties >= TT_MIN_EMPTIES {
            self.store(hash, tag, best, original_alpha, beta, best_square);
        }
        best
    }

    /// ProbCut at a null-window node of a selective pass: `Some(beta)` when a shallow search
    /// predicts the exact value at or above beta with the given confidence, `Some(alpha)`
    /// when at or below alpha, `None` when the node must be searched.
    fn probcut(
        &mut self,
        board: &mut Board,
        empties: u32,
        alpha: i32,
        beta: i32,
        confidence: f32,
    ) -> Option<i32> {
        let cut = self
            .bundle
            .endgame_cuts()?
            .get(empties, probcut_shallow_depth(empties))?;
        let margin = confidence * cut.sigma;
        let unit = UNITS_PER_DISC as f32;
        let high = ((beta as f32 * unit + margin - cut.intercept) / cut.slope).ceil() as i32;
        if high <= 64 * UNITS_PER_DISC
            && self.eval_search(board, cut.shallow, high - 1, high) >= high
        {
            return Some(beta);
        }
        let low = ((alpha as f32 * unit - margin - cut.intercept) / cut.slope).floor() as i32;
        if low >= -64 * UNITS_PER_DISC && self.eval_search(board, cut.shallow, low, low + 1) <= low
        {
            return Some(alpha);
        }
        None
    }

    /// Negamax value of the bitboard view with at most [`VIEW_MAX_EMPTIES`] empties: the
    /// same node as [`EndgameSolver::node`] without the board's make/undo, hashed by
    /// [`BitView::hash`].
    fn view_node(&mut self, view: BitView, mut alpha: i32, mut beta: i32, stop: &StopCheck) -> i32 {
        let empties = view.empties();
        if empties <= LEAF_EMPTIES {
            return self.leaf_entry(view, alpha, beta);
        }
        self.nodes += 1;
        if self.poll(stop) {
            return 0;
        }
        if let Some(upper) = stability_bound(view, alpha) {
            if upper <= alpha {
                return upper;
            }
            beta = beta.min(upper);
        }

        let hash = (empties >= TT_MIN_EMPTIES).then(|| view.hash());
        let mut hint = NO_SQUARE;
        if let Some(hash) = hash {
            if let Some(entry) = self.tt.probe(hash) {
                hint = entry.best_move().map_or(NO_SQUARE, |sq| sq.index() as u8);
                if let Some(score) = narrow(entry, SOLVED_DEPTH, &mut alpha, &mut beta) {
                    return score;
                }
            }
        }

        let moves = view.mobility();
        if moves == 0 {
            if view.passed().mobility() == 0 {
                return final_diff(view, empties as i32);
            }
            return -self.view_node(view.passed(), -beta, -alpha, stop);
        }

        // The moves with their flips, fastest-first (see `ordering::reply_key`).
        // A node with k empties has at most k moves.
        let mut list = [(0u8, 0u64, 0i32); VIEW_MAX_EMPTIES as usize];
        let mut n = 0;
        let even = even_quadrants(view.empty());
        for square in bits::squares(moves) {
            let flipped = view.flips(square.index());
            let key = if square.index() as u8 == hint {
                i32::MIN
            } else {
                ordering::reply_key(view, square, flipped)
                    + if even & square.bit() != 0 {
                        PARITY_KEY
                    } else {
                        0
                    }
            };
            list[n] = (square.index() as u8, flipped, key);
            n += 1;
        }
        for i in 1..n {
            let item = list[i];
            let mut j = i;
            while j > 0 && list[j - 1].2 > item.2 {
                list[j] = list[j - 1];
                j -= 1;
            }
            list[j] = item;
        }

        if empties >= ETC_MIN_EMPTIES {
            for &(sq, flipped, _) in &list[..n] {
                let entry = self.tt.probe(view.play(sq as usize, flipped).hash());
                if let Some(value) = entry.and_then(|entry| refutes(entry, SOLVED_DEPTH, beta)) {
                    return value;
                }
            }
        }

        let original_alpha = alpha;
        let mut best = -65;
        let mut best_square = NO_SQUARE;
        for (i, &(sq, flipped, _)) in list[..n].iter().enumerate() {
            let child = view.play(sq as usize, flipped);
            let value = if i == 0 {
                -self.view_node(child, -beta, -alpha, stop)
            } else {
                let probe = -self.view_node(child, -alpha - 1, -alpha, stop);
                if probe > alpha && probe < beta {
                    -self.view_node(child, -beta, -probe, stop)
                } else {
                    probe
                }
            };
            if self.stopped {
                return 0;
            }
            if value > best {
                best = value;
                best_square = sq;
                if value > alpha {
                    alpha = value;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        if let Some(hash) = hash {
            self.store(
                hash,
                SOLVED_DEPTH,
                best,
                original_alpha,
                beta,
                Square::new(best_square as usize),
            );
        }
        best
    }

    /// The value of `board` (side to move) searched `depth` plies with the bundle's
    /// evaluation and no selectivity: the shallow search whose value predicts the exact one in
    /// endgame ProbCut. The board is restored before returning.
    pub fn shallow_value(&mut self, board: &mut Board, depth: u32) -> Score {
        Score(self.eval_search(board, depth, -INFINITE_UNITS, INFINITE_UNITS))
    }

    /// Negamax value of `board` to `depth` plies with the bundle's evaluation, fail-soft
    /// within `(alpha, beta)`, in score units; a finished game scores its final disc
    /// difference and a pass uses no depth (as in the midgame search).
    fn eval_search(&mut self, board: &mut Board, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        let moves = board.legal_moves();
        if moves == 0 && !board.opponent_has_legal_move() {
            return Score::from_discs(board.final_score(board.side_to_move())).0;
        }
        if depth == 0 {
            return self.bundle.evaluator().evaluate_with_moves(board, moves).0;
        }
        if moves == 0 {
            board.make_pass();
            let value = -self.eval_search(board, depth, -beta, -alpha);
            board.undo();
            return value;
        }
        let mut best = -INFINITE_UNITS;
        for square in ordering::fastest_first(board, None) {
            let flipped = board.flips(square);
            board.apply_flips(square, flipped);
            let value = -self.eval_search(board, depth - 1, -beta, -alpha);
            board.undo();
            if value > best {
                best = value;
                if value > alpha {
                    alpha = value;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// Enters the leaf search: the bitboard view and the parity-ordered empty list.
    fn leaf_entry(&mut self, view: BitView, alpha: i32, beta: i32) -> i32 {
        let empty = view.empty();
        let mut list = [0u8; LEAF_EMPTIES as usize];
        let mut n = 0;
        let even = even_quadrants(empty);
        // Odd quadrants first, then even ones; inside each, by static square rank.
        for chosen in [empty & !even, empty & even] {
            let start = n;
            for square in bits::squares(chosen) {
                list[n] = square.index() as u8;
                n += 1;
            }
            list[start..n].sort_by_key(|&sq| SQUARE_ORDER[sq as usize]);
        }
        // The list packed one square a byte, first square in the low byte.
        let packed = list[..n]
            .iter()
            .rev()
            .fold(0u64, |acc, &sq| (acc << 8) | sq as u64);
        self.leaf(view, alpha, beta, packed, n, false)
    }

    /// Negamax on the bitboard view with the `n` empty squares packed in `list`, one a byte,
    /// in search order from the low byte. Four or fewer go to the dedicated searches.
    fn leaf(
        &mut self,
        view: BitView,
        mut alpha: i32,
        beta: i32,
        list: u64,
        n: usize,
        passed: bool,
    ) -> i32 {
        if n <= 4 {
            let sq = |i: usize| (list >> (8 * i)) as usize & 0xff;
            return match n {
                4 => self.solve_4(view, alpha, beta, [sq(0), sq(1), sq(2), sq(3)]),
                3 => self.solve_3(view, alpha, beta, [sq(0), sq(1), sq(2)]),
                2 => self.solve_2(view, alpha, beta, sq(0), sq(1)),
                1 => self.solve_1(view, sq(0)),
                _ => final_diff(view, 0),
            };
        }
        self.nodes += 1;
        let mut best = -65;
        let mut rest = list;
        for i in 0..n {
            let sq = rest as usize & 0xff;
            rest >>= 8;
            if bits::NEIGHBOURS[sq] & view.opponent == 0 {
                continue;
            }
            let flipped = view.flips(sq);
            if flipped == 0 {
                continue;
            }
            // The list without byte i, the others in order.
            let low = (1u64 << (8 * i)) - 1;
            let child = (list & low) | ((list >> 8) & !low);
            let value = -self.leaf(view.play(sq, flipped), -beta, -alpha, child, n - 1, false);
            if value > best {
                best = value;
                if value > alpha {
                    alpha = value;
                    if alpha >= beta {
                        return best;
                    }
                }
            }
        }
        if best > -65 {
            return best;
        }
        if passed {
            // Neither side can move: the game is over with n empties.
            return final_diff(view, n as i32);
        }
        -self.leaf(view.passed(), -beta, -alpha, list, n, true)
    }

    /// The exact value of `view`, whose only empty squares are the four of `squares`,
    /// fail-soft within `(alpha, beta)`. The squares are tried in quadrant-parity order
    /// (those alone in their quadrant, or one of three, first), the given order breaking ties.
    fn solve_4(&mut self, view: BitView, alpha: i32, beta: i32, squares: [usize; 4]) -> i32 {
        self.nodes += 1;
        let squares = parity_order_4(view.empty(), squares);
        let best = self.moves_4(view, alpha, beta, squares);
        if best > NO_MOVE {
            return best;
        }
        let best = self.moves_4(view.passed(), -beta, -alpha, squares);
        if best > NO_MOVE {
            return -best;
        }
        final_diff(view, 4)
    }

    /// The best of the side to move's moves among the four `squares` (in order, each
    /// followed by [`EndgameSolver::solve_3`]), fail-soft; [`NO_MOVE`] when it has none.
    #[inline(always)]
    fn moves_4(&mut self, view: BitView, mut alpha: i32, beta: i32, s: [usize; 4]) -> i32 {
        let mut best = NO_MOVE;
        for (i, &sq) in s.iter().enumerate() {
            if bits::NEIGHBOURS[sq] & view.opponent == 0 {
                continue;
            }
            let flipped = view.flips(sq);
            if flipped == 0 {
                continue;
            }
            let rest = match i {
                0 => [s[1], s[2], s[3]],
                1 => [s[0], s[2], s[3]],
                2 => [s[0], s[1], s[3]],
                _ => [s[0], s[1], s[2]],
            };
            let value = -self.solve_3(view.play(sq, flipped), -beta, -alpha, rest);
            if value > best {
                best = value;
                if value > alpha {
                    alpha = value;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// The exact value of `view`, whose only empty squares are the three of `squares`,
    /// fail-soft within `(alpha, beta)`. A square alone in its quadrant while the other two
    /// share one is tried first; otherwise the given order stands.
    fn solve_3(&mut self, view: BitView, alpha: i32, beta: i32, squares: [usize; 3]) -> i32 {
        self.nodes += 1;
        let squares = parity_order_3(squares);
        let best = self.moves_3(view, alpha, beta, squares);
        if best > NO_MOVE {
            return best;
        }
        let best = self.moves_3(view.passed(), -beta, -alpha, squares);
        if best > NO_MOVE {
            return -best;
        }
        final_diff(view, 3)
    }

    /// The best of the side to move's moves among the three `squares` (in order, each
    /// followed by [`EndgameSolver::solve_2`]), fail-soft; [`NO_MOVE`] when it has none.
    #[inline(always)]
    fn moves_3(&mut self, view: BitView, mut alpha: i32, beta: i32, s: [usize; 3]) -> i32 {
        let mut best = NO_MOVE;
        for (i, &sq) in s.iter().enumerate() {
            if bits::NEIGHBOURS[sq] & view.opponent == 0 {
                continue;
            }
            let flipped = view.flips(sq);
            if flipped == 0 {
                continue;
            }
            let (a, b) = match i {
                0 => (s[1], s[2]),
                1 => (s[0], s[2]),
                _ => (s[0], s[1]),
            };
            let value = -self.solve_2(view.play(sq, flipped), -beta, -alpha, a, b);
            if value > best {
                best = value;
                if value > alpha {
                    alpha = value;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// The exact value of `view`, whose only empty squares are `a` and `b`, fail-soft
    /// within `(alpha, beta)`: each move is scored by [`EndgameSolver::solve_1`] on the other
    /// square.
    fn solve_2(&mut self, view: BitView, alpha: i32, beta: i32, a: usize, b: usize) -> i32 {
        self.nodes += 1;
        let best = self.moves_2(view, beta, a, b);
        if best > NO_MOVE {
            return best;
        }
        let best = self.moves_2(view.passed(), -alpha, a, b);
        if best > NO_MOVE {
            return -best;
        }
        final_diff(view, 2)
    }

    /// The best of the side to move's moves on `a` and `b`, fail-soft below `beta` (`b` is
    /// not tried once `a` reaches it); [`NO_MOVE`] when it has none.
    #[inline(always)]
    fn moves_2(&mut self, view: BitView, beta: i32, a: usize, b: usize) -> i32 {
        let mut best = NO_MOVE;
        if bits::NEIGHBOURS[a] & view.opponent != 0 {
            let flipped = view.flips(a);
            if flipped != 0 {
                best = -self.solve_1(view.play(a, flipped), b);
                if best >= beta {
                    return best;
                }
            }
        }
        if bits::NEIGHBOURS[b] & view.opponent != 0 {
            let flipped = view.flips(b);
            if flipped != 0 {
                best = best.max(-self.solve_1(view.play(b, flipped), a));
            }
        }
        best
    }

    /// The exact value of `view`, whose only empty square is `sq`: the flips of the move
    /// there are counted ([`bits::last_flips`]), not played.
    #[inline]
    fn solve_1(&mut self, view: BitView, sq: usize) -> i32 {
        self.nodes += 1;
        let p = view.player;
        // 63 squares are full: the disc difference follows from the side to move's count.
        let diff = 2 * p.count_ones() as i32 - 63;
        let mine = bits::last_flips(p, sq) as i32;
        if mine > 0 {
            return diff + 1 + 2 * mine;
        }
        let theirs = bits::last_flips(view.opponent, sq) as i32;
        if theirs > 0 {
            return diff - 1 - 2 * theirs;
        }
        final_diff(view, 1)
    }
}

/// Quadrant index (into [`QUADRANTS`]) of each square.
const QUADRANT_OF: [u8; 64] = {
    let mut out = [0u8; 64];
    let mut sq = 0;
    while sq < 64 {
        out[sq] = ((sq / 32) * 2 + (sq % 8) / 4) as u8;
        sq += 1;
    }
    out
};

/// `squares` (the four empty squares of `empty`) with those in a quadrant holding an odd
/// number of empties first, each group in its given order.
#[inline]
fn parity_order_4(empty: u64, squares: [usize; 4]) -> [usize; 4] {
    let odd = |sq: usize| (empty & QUADRANTS[QUADRANT_OF[sq] as usize]).count_ones() & 1 == 1;
    let mut out = squares;
    let mut n = 0;
    for sq in squares {
        if odd(sq) {
            out[n] = sq;
            n += 1;
        }
    }
    for sq in squares {
        if !odd(sq) {
            out[n] = sq;
            n += 1;
        }
    }
    out
}

/// The three empty `squares` with the one alone in its quadrant first when the other two
/// share a quadrant; otherwise (all apart, or all together) unchanged.
#[inline]
fn parity_order_3(squares: [usize; 3]) -> [usize; 3] {
    let [a, b, c] = squares;
    let (qa, qb, qc) = (QUADRANT_OF[a], QUADRANT_OF[b], QUADRANT_OF[c]);
    if qa == qb && qb != qc {
        [c, a, b]
    } else if qa == qc && qb != qa {
        [b, a, c]
    } else {
        squares
    }
}

/// The quadrants (of [`QUADRANTS`]) holding an even number of the `empty` squares.
#[inline]
fn even_quadrants(empty: u64) -> u64 {
    QUADRANTS
        .into_iter()
        .filter(|&quadrant| (empty & quadrant).count_ones().is_multiple_of(2))
        .fold(0, |acc, quadrant| acc | quadrant)
}

/// Applies a solved table entry to the window: `Some(score)` when it settles the node,
/// otherwise narrows `alpha` or `beta` by its bound. Entries tagged below `tag` (midgame
/// depths, or less confident selective passes) are ignored.
#[inline]
fn narrow(entry: Entry, tag: u8, alpha: &mut i32, beta: &mut i32) -> Option<i32> {
    if entry.depth < tag {
        return None;
    }
    let score = entry.score as i32;
    match entry.bound() {
        Bound::Exact => return Some(score),
        Bound::Lower if score >= *beta => return Some(score),
        Bound::Upper if score <= *alpha => return Some(score),
        Bound::Lower => *alpha = (*alpha).max(score),
        Bound::Upper => *beta = (*beta).min(score),
    }
    (*alpha >= *beta).then_some(score)
}

/// Enhanced transposition cutoff: the parent's value when a child's solved entry proves the
/// move reaches `beta` (the child is worth at most `-beta` to its side). The entry's tag must
/// be at least `tag` (see [`narrow`]).
#[inline]
fn refutes(child: Entry, tag: u8, beta: i32) -> Option<i32> {
    let value = -(child.score as i32);
    (child.depth >= tag && matches!(child.bound(), Bound::Upper | Bound::Exact) && value >= beta)
        .then_some(value)
}

/// An upper bound on the value for the side to move: the opponent's stable discs
/// ([`bits::stable`]) can never be taken. `None` when the bound could not reach `alpha` (the
/// opponent has too few discs), which skips the computation where it cannot cut.
#[inline]
fn stability_bound(view: BitView, alpha: i32) -> Option<i32> {
    let BitView {
        player: p,
        opponent: o,
    } = view;
    if 64 - 2 * (o.count_ones() as i32) > alpha {
        return None;
    }
    Some(64 - 2 * bits::stable(o, p | o).count_ones() as i32)
}

/// Final score for the side to move with `empties` squares left, empties to the winner.
#[inline]
fn final_diff(view: BitView, empties: i32) -> i32 {
    let diff = view.player.count_ones() as i32 - view.opponent.count_ones() as i32;
    match diff.signum() {
        1 => diff + empties,
        -1 => diff - empties,
        _ => 0,
    }
}

/// Depth of the shallow search that predicts the exact value of a node with `empties`
/// empties in a selective pass: deeper as the exact search it replaces grows, at most a few
/// per cent of its cost.
fn probcut_shallow_depth(empties: u32) -> u32 {
    match empties {
        0..=19 => 2,
        20..=23 => 4,
        24..=27 => 6,
        _ => 8,
    }
}

/// The search window of a mode.
fn window(mode: SolveMode) -> (i32, i32) {
    match mode {
        SolveMode::Exact => (-64, 64),
        SolveMode::WinLossDraw => (-1, 1),
    }
}

/// A value of the recursion as reported in a mode: where the solver's bare integers become
/// [`Discs`].
fn clip(score: i32, mode: SolveMode) -> Discs {
    Discs(match mode {
        SolveMode::Exact => score,
        SolveMode::WinLossDraw => score.signum(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Plain minimax of the final disc difference for the side to move of `view`: no window,
    /// no ordering, the game's own scoring ([`bits::final_score`]).
    fn minimax(view: BitView) -> i32 {
        let moves = view.mobility();
        if moves == 0 {
            if view.passed().mobility() == 0 {
                return bits::final_score(view.player, view.opponent).0;
            }
            return -minimax(view.passed());
        }
        bits::squares(moves)
            .map(|sq| -minimax(view.play(sq.index(), view.flips(sq.index()))))
            .max()
            .expect("a legal move")
    }

    /// A position with exactly `empties` empty squares from a random game, `None` when the
    /// game ended before. One in four is made lopsided: all but one to three of the
    /// opponent's discs (next to an empty square where there are such) become the side to
    /// move's, so that wipe-outs are common.
    fn random_view(rng: &mut Rng, empties: u32) -> Option<BitView> {
        let mut view = BitView {
            player: (1 << 28) | (1 << 35),
            opponent: (1 << 27) | (1 << 36),
        };
        while view.empties() > empties {
            let moves = view.mobility();
            if moves == 0 {
                if view.passed().mobility() == 0 {
                    return None;
                }
                view = view.passed();
            } else {
                let sq = rng.pick(moves).index();
                view = view.play(sq, view.flips(sq));
            }
        }
        if rng.below(4) == 0 {
            // Kept next to an empty square, where a move can take them.
            let near =
                bits::squares(view.empty()).fold(0, |acc, sq| acc | bits::NEIGHBOURS[sq.index()]);
            let candidates = if view.opponent & near != 0 {
                view.opponent & near
            } else {
                view.opponent
            };
            let mut keep = 0;
            for _ in 0..1 + rng.below(3) {
                keep |= rng.pick(candidates).bit();
            }
            view = BitView {
                player: view.player | (view.opponent & !keep),
                opponent: keep,
            };
        }
        Some(view)
    }

    /// A window for `value`'s search: the full one, a null window or a random one, placed
    /// below, around or above it.
    fn random_window(rng: &mut Rng, value: i32) -> (i32, i32) {
        match rng.below(4) {
            0 => (-64, 64),
            1 => {
                let alpha = value - 4 + rng.below(8) as i32;
                (alpha, alpha + 1)
            }
            _ => {
                let alpha = -65 + rng.below(130) as i32;
                let beta = alpha + 1 + rng.below(20) as i32;
                (alpha, beta.min(65))
            }
        }
    }

    /// Asserts the fail-soft contract: exact inside the window, a bound of the right side
    /// outside it.
    fn assert_fail_soft(value: i32, exact: i32, (alpha, beta): (i32, i32), what: &str) {
        if value <= alpha {
            assert!(
                exact <= value,
                "{what}: {value} <= alpha {alpha}, exact {exact}"
            );
        } else if value >= beta {
            assert!(
                exact >= value,
                "{what}: {value} >= beta {beta}, exact {exact}"
            );
        } else {
            assert_eq!(value, exact, "{what}: window ({alpha}, {beta})");
        }
    }

    /// The empty squares of `view` in a random order.
    fn shuffled_empties(rng: &mut Rng, view: BitView) -> Vec<usize> {
        let mut squares: Vec<usize> = bits::squares(view.empty()).map(|s| s.index()).collect();
        for i in (1..squares.len()).rev() {
            squares.swap(i, rng.below(i as u64 + 1) as usize);
        }
        squares
    }

    /// Each search of the last empties (the dedicated ones for 1-4, the list search at 5,
    /// the view node at 6) against minimax on random positions with passes, finished games
    /// and wipe-outs among them.
    #[test]
    fn last_empties_searches_equal_minimax() {
        let mut rng = Rng::new(38);
        let mut solver = EndgameSolver::new(1);
        let flag = AtomicBool::new(false);
        let stop = StopCheck::new(&flag);
        for empties in 1..=6u32 {
            let (mut tested, mut passes, mut finished, mut wipe_outs) = (0, 0, 0, 0);
            while tested < 5000 {
                let Some(view) = random_view(&mut rng, empties) else {
                    continue;
                };
                tested += 1;
                let exact = minimax(view);
                let moves = view.mobility();
                passes += usize::from(moves == 0 && view.passed().mobility() != 0);
                finished += usize::from(moves == 0 && view.passed().mobility() == 0);
                wipe_outs += usize::from(
                    bits::squares(moves)
                        .any(|sq| view.play(sq.index(), view.flips(sq.index())).player == 0),
                );
                for _ in 0..3 {
                    let window = random_window(&mut rng, exact);
                    let (alpha, beta) = window;
                    let s = shuffled_empties(&mut rng, view);
                    let value = match empties {
                        1 => solver.solve_1(view, s[0]),
                        2 => solver.solve_2(view, alpha, beta, s[0], s[1]),
                        3 => solver.solve_3(view, alpha, beta, [s[0], s[1], s[2]]),
                        4 => solver.solve_4(view, alpha, beta, [s[0], s[1], s[2], s[3]]),
                        5 => solver.leaf_entry(view, alpha, beta),
                        _ => solver.view_node(view, alpha, beta, &stop),
                    };
                    assert_fail_soft(value, exact, window, &format!("{empties} empties {view:?}"));
                }
            }
            assert!(passes > 50, "{empties} empties: {passes} passes");
            assert!(
                finished > 20,
                "{empties} empties: {finished} finished games"
            );
            assert!(wipe_outs > 200, "{empties} empties: {wipe_outs} wipe-outs");
        }
    }

    #[test]
    fn parity_order_puts_odd_quadrants_first() {
        // a1 alone in its quadrant, b1 and h1 apart, g8 and h8 together (squares 0, 1, 7,
        // 62, 63): with the four of a1, b1, g8, h8 empty, a1 and b1 share the first quadrant
        // (even), g8 and h8 the last (even); the order stands.
        let empty = (1 << 0) | (1 << 1) | (1 << 62) | (1 << 63);
        assert_eq!(parity_order_4(empty, [0, 62, 1, 63]), [0, 62, 1, 63]);
        // a1, b1, c1 in one quadrant (odd) and h8 alone (odd): all odd, order stands.
        let empty = 0b111 | (1 << 63);
        assert_eq!(parity_order_4(empty, [63, 0, 1, 2]), [63, 0, 1, 2]);
        // a1, b1 (even) and h1, h8 (one each, odd): the odd ones come first, in order.
        let empty = 0b11 | (1 << 7) | (1 << 63);
        assert_eq!(parity_order_4(empty, [0, 63, 1, 7]), [63, 7, 0, 1]);
        // Three squares: the one apart from a pair first; all apart or together, unchanged.
        assert_eq!(parity_order_3([0, 1, 63]), [63, 0, 1]);
        assert_eq!(parity_order_3([0, 63, 1]), [63, 0, 1]);
        assert_eq!(parity_order_3([63, 0, 1]), [63, 0, 1]);
        assert_eq!(parity_order_3([0, 7, 63]), [0, 7, 63]);
        assert_eq!(parity_order_3([0, 1, 2]), [0, 1, 2]);
    }

    #[test]
    fn quadrant_of_matches_the_quadrant_masks() {
        for sq in 0..64 {
            assert_ne!(
                QUADRANTS[QUADRANT_OF[sq] as usize] & (1 << sq),
                0,
                "square {sq}"
            );
        }
    }
}
