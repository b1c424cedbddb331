//! The exact endgame solver: the value of a position with perfect play to the end.
//!
//! Scores are whole discs from the side to move's point of view, with the empty squares of a
//! finished game going to the winner ([`Board::final_score`]). Win/loss/draw mode is the same
//! search with the null window around 0. Windows, node values and table scores are
//! [`Discs`] all through the recursion (a null window is [`Discs::ONE`] wide); `clip` makes a
//! value what a mode reports.
//!
//! * **Board nodes** (at least `ordering::EVAL_ORDER_EMPTIES` empties) work on the [`Board`]
//!   with make/undo and its incremental hash and pattern indices, because their move order
//!   uses the evaluation of each child (see `ordering::solver_order`).
//! * **View nodes** (down to [`LEAF_EMPTIES`] + 1 empties) search the transient bitboard view
//!   ([`BitView`]: the side to move's discs, the opponent's), hashed by [`BitView::hash`],
//!   with no make/undo: fastest-first order (fewest
//!   opponent replies, corners first among equals, a quadrant with an even number of empties
//!   breaking ties; each child's legal squares, computed for its key, are handed down to
//!   it), a table from `TT_MIN_EMPTIES` (6: every view node), an enhanced transposition cutoff from
//!   `ETC_MIN_EMPTIES` (10); a node expected to search all its moves (`Expect`) fetches
//!   its children's table buckets into the cache at once. Up to `CACHE_MAX_EMPTIES` (11)
//!   that table is the thread's own small one (`cache`: one 64-bit word an entry, 256 KiB,
//!   in the core's L2), above
//!   it the shared one (`bound_table`: a lower and an upper bound for each position, seven
//!   positions to a cache line): the small nodes' entries no longer crowd out the big ones
//!   (FFO #55, 29 empties, took 37 % fewer nodes; docs/results.md). Both kinds of node cut on the
//!   opponent's stable discs
//!   ([`bits::stable`]) when that bound can reach alpha; the leaf search's null windows of 5
//!   and 4 empties too, where it can reach alpha by a wider margin
//!   (`LEAF_STABILITY_SLACK`).
//! * **Leaf nodes** keep a short list of the empty squares, ordered by parity: squares in
//!   quadrants with an odd number of empties first (the last move of a region is worth
//!   having). The last four empties have searches of their own (`solve_4` .. `solve_1`),
//!   which take the empty squares as arguments instead of a list: 4 and 3 re-order them by
//!   parity, 2 tries both squares, and the last empty square is scored by counting the
//!   flips of its move without making it ([`bits::last_flips`]: on a full board a line's
//!   flips depend only on the mover's discs, looked up per line). Each comes twice: for a
//!   null window (`solve_4_nw` .. `solve_1_nw`, alpha only, which is how the view nodes
//!   call them 99.9 % of the time) and for a wider one.
//!
//! The view nodes search the same nodes in about two thirds of the time, and their cheaper
//! hash and the thread's small cache in L2 pay for a table at every view node, from 6 empties
//! (`TT_MIN_EMPTIES`; docs/results.md).
//!
//! Every search is a principal-variation search: the first move with the full window, the
//! others with a null window, re-searched when they fail high.
//!
//! **Selective passes.** A root with at least [`SELECTIVE_ROOT_EMPTIES`] empties is first
//! solved with endgame ProbCut at rising confidence ([`SELECTIVE_LEVELS`]: 73 %, 87 %, 95 %,
//! 99 %), then exactly. In a pass, a null-window board node runs a shallow search with the
//! evaluation (2 to 8 plies, deeper the more empties) and cuts when that predicts the exact
//! value outside the window with the pass's confidence (the solver's evaluation bundle's
//! [`crate::eval::probcut::EndgameCuts`]: exact values of the validation set regressed on
//! shallow searches; a bundle without them solves exactly at once). The first pass is
//! centred on the evaluation's guess ([`GUESS_DEPTH`] plies), each later one on the previous
//! pass's score, and its table entries (tagged with the pass's level, so that a more
//! confident pass never takes them as proven) order the next. The exact pass is unchanged,
//! so its result is as exact as ever. The passes cut the nodes of the FFO solves by 15 to 48 %
//! (docs/results.md), and the four of them give a GUI a probable answer early.
//!
//! **Threads** ([`SearchConfig::threads`]; one by default). A root of at least
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
//!
//! **Files, by tier.** This one holds the types, the settings and what every tier shares
//! (the table's tags and stores, the stop poll, the stability bound); `bound_table` the
//! shared table; `cache` the threads' small tables; `root` the roots,
//! their passes and reports and the split points; `table` the board and view nodes (the
//! searches with a table); `shallow` the searches without one (ProbCut's evaluation search,
//! the leaf list search); `last` the searches of the last four empties.

use std::sync::Arc;

use super::buckets::Buckets;
use super::ordering::{self, SQUARE_ORDER};
use super::parallel::{SplitSearch, ThreadContext};
use super::stop::{NodeCounts, StopCheck};
use super::SearchConfig;
use crate::board::bits::{self, BitView};
use crate::board::{Board, Move, Square};
use crate::eval::{EvalBundle, Evaluation};
use crate::score::{Discs, Score};
use bound_table::{BoundTable, Bounds, MAX_TAG};

mod bound_table;
mod last;
mod node_search;
mod root;
mod shallow;
#[cfg(test)]
mod testkit;
mod thread_table;

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
/// has no legal move, and the best value of a node before its first move.
const NO_MOVE: Discs = Discs::new(-65);

/// How far alpha must lie above the opponent's disc count's bound (64 - 2 x its discs)
/// before a node computes its stability bound: below 8 (at most three of its discs
/// unstable) the bound cut at most 1 in 50 of the 6-empty nodes that computed it on FFO #45,
/// and skipping it there took 1.4 % fewer instructions for 0.01 % more nodes
/// (docs/results.md).
const STABILITY_SLACK: i32 = 8;

/// [`STABILITY_SLACK`] of the leaf search's null-window nodes of 5 and 4 empties, which try
/// the stability cutoff too: there a node's whole subtree costs about what the bound does,
/// so the bound pays only where it cuts often. On FFO #22-#27 (callgrind) a slack of 8 took
/// 0.2 % more instructions than no cutoff at 4 empties, 16 0.26 % fewer, 24 0.09 % fewer;
/// at 16 both counts together took 0.57 % fewer instructions and 4.6 % fewer nodes
/// (docs/results.md).
const LEAF_STABILITY_SLACK: i32 = 16;

/// Nodes with at least this many empties use a table: every view node, now that the small
/// nodes' table is the thread's cache in L2, whose probe costs little. Measured against 9
/// (FFO #20-#39, 5 pairs each step, docs/results.md): 8 took 0.980 of the time and 4.9 %
/// fewer nodes, 7 0.975 of 8's, 6 0.986 of 7's.
const TT_MIN_EMPTIES: u32 = 6;

/// View nodes of [`TT_MIN_EMPTIES`] to this many empties keep their results in the thread's
/// own small table (`cache`), those of more in the shared one. 11 against 10: 0.98 of the
/// time on FFO #20-#39 (with the table from 6, 8 or 7 empties alike); 12 no faster than 11.
const CACHE_MAX_EMPTIES: u32 = 11;

/// Nodes with at least this many empties try an enhanced transposition cutoff.
const ETC_MIN_EMPTIES: u32 = 10;

/// How many children (the first in order) a view node's transposition cutoff probes: each
/// probe is a likely cache miss, and a refuting child is nearly always among the first.
/// 3 against all of them: 1 % more nodes and 0.97 of the time on FFO #45-#46 and #50
/// (docs/results.md); 2 was no faster than 3.
const ETC_PROBES: usize = 3;

/// The selective passes that precede an exact solve of a root with at least
/// [`SELECTIVE_ROOT_EMPTIES`] empties: the ProbCut confidence factor of each, and the
/// percentage it is reported with (the chance that one cut is right, as NBoard, NTest and
/// Edax show it).
pub const SELECTIVE_LEVELS: [(f32, u8); 4] = [(1.1, 73), (1.5, 87), (2.0, 95), (2.6, 99)];

/// Plies of the evaluation search whose value centres the window of a root's first selective
/// pass (see `EndgameSolver::first_guess`).
const GUESS_DEPTH: u32 = 4;

/// Roots with at least this many empties are solved after selective passes.
pub const SELECTIVE_ROOT_EMPTIES: u32 = 18;

/// In a selective pass, nodes with at least this many empties try a ProbCut: every board
/// node (the view nodes below have no evaluation to predict with).
const PROBCUT_MIN_EMPTIES: u32 = ordering::EVAL_ORDER_EMPTIES;

/// Table tag of the first selective level; level `i` stores `SELECTIVE_TAG + i`, below
/// [`EXACT_TAG`].
const SELECTIVE_TAG: u8 = 1;

/// Table tag of the exact search's results: above every selective level's.
const EXACT_TAG: u8 = SELECTIVE_TAG + SELECTIVE_LEVELS.len() as u8;
const _: () = assert!(EXACT_TAG <= MAX_TAG);

/// Nodes with at least this many empties may be split among threads (Young Brothers Wait,
/// see [`SearchConfig::threads`]) once their first move is searched.
pub const SPLIT_MIN_EMPTIES: u32 = 16;

/// Roots with at least this many empties are solved on every thread
/// ([`SearchConfig::threads`]); smaller ones have no node to split.
pub const PARALLEL_MIN_EMPTIES: u32 = SPLIT_MIN_EMPTIES;

/// The table a solver starts with, MiB (less where its limit is less): at up to
/// [`SMALL_ROOT_EMPTIES`] empties a larger one saves no nodes (FFO #40-#52, 20 to 27
/// empties, took the same nodes to within 0.1 % at 16 MiB as at 1024, and less time;
/// docs/results.md), since the shared table holds only the nodes of more than
/// [`CACHE_MAX_EMPTIES`] empties.
const MIN_TABLE_MB: usize = 16;

/// Roots with more empties than this get a table four times as large for each empty more up
/// to [`STEEP_GROWTH_EMPTIES`], twice as large for each empty beyond ([`table_mb_for`]).
const SMALL_ROOT_EMPTIES: u32 = 26;

/// See [`SMALL_ROOT_EMPTIES`].
const STEEP_GROWTH_EMPTIES: u32 = 28;

/// The table a root of `empties` empties is solved with, MiB, before the solver's limit:
/// [`MIN_TABLE_MB`] up to [`SMALL_ROOT_EMPTIES`], then four times as large an empty to
/// [`STEEP_GROWTH_EMPTIES`] (256 MiB), then twice (512 MiB at 29, 1024 at 30). Measured
/// (docs/results.md): FFO #51-#52 (27 empties) took the same nodes at 16 MiB as at 64 and
/// 256; FFO #53 (28) 1 566 M nodes at 16 MiB, 1 225 M at 64, 957 M at 256, 512 and 1024;
/// FFO #55 (29) 4 587 M at 512 MiB and 4 524 M at 1024 in about the same time; FFO #57-#58
/// (30) 1 401 M at 64 MiB and 1 386 M at 256, 1024 and 4096, the largest table the slowest.
fn table_mb_for(empties: u32) -> usize {
    let steep = empties.clamp(SMALL_ROOT_EMPTIES, STEEP_GROWTH_EMPTIES) - SMALL_ROOT_EMPTIES;
    let gentle = empties.saturating_sub(STEEP_GROWTH_EMPTIES);
    MIN_TABLE_MB << (2 * steep + gentle).min(20)
}

/// Nodes between two looks at the stop check.
const POLL_INTERVAL: u64 = 4096;

/// What a node searched with a null window is expected to do, in Knuth and Moore's terms: a
/// cut node's first move should reach beta, an all node's moves should all fall short. The
/// children of a cut node are all nodes and the reverse; the null-window children of a node
/// searched with a wider window are cut nodes (each move after the first is expected to be
/// worse than the best so far). In the null-window tree of FFO #49 (26 empties, so its cut
/// nodes have an odd number of empties), the view nodes with 7 to 13 odd empties cut at their
/// first move 78 to 93 % of the time, and those with 6 to 12 even empties searched all their
/// moves 62 to 80 % of the time (docs/results.md).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Expect {
    /// A cut node: one move should reach beta.
    Cut,
    /// An all node: every move should be searched.
    All,
}

impl Expect {
    /// The expectation of the children of a node expected to do `self` in `(alpha, beta)`.
    #[inline]
    fn child(self, alpha: Discs, beta: Discs) -> Expect {
        match self {
            _ if beta - alpha > Discs::ONE => Expect::Cut,
            Expect::Cut => Expect::All,
            Expect::All => Expect::Cut,
        }
    }

    /// Whether a node expected to do `self` in `(alpha, beta)` should search all its moves:
    /// an all node with a null window.
    #[inline]
    fn searches_all(self, alpha: Discs, beta: Discs) -> bool {
        self == Expect::All && beta - alpha == Discs::ONE
    }
}

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
    tt: Arc<BoundTable>,
    /// The most the table may use, MiB: it starts at [`MIN_TABLE_MB`] and grows to the work
    /// of each root (see [`table_mb_for`]) up to this.
    table_limit_mb: usize,
    /// Threads a root solve uses, this one included.
    threads: usize,
    /// The running node counts of the threads of the root solve in progress.
    counts: Arc<NodeCounts>,
    /// This thread's node count, poll, stop and place among the split points.
    core: ThreadContext<Option<usize>, Discs>,
    /// The selective pass in progress (an index into [`SELECTIVE_LEVELS`]), `None` when exact.
    level: Option<usize>,
    /// The evaluation (move ordering, shallow searches) and the selective passes' statistics.
    bundle: EvalBundle,
    /// This thread's own table for the view nodes of the fewest empties.
    thread_table: thread_table::ThreadTable,
    /// Where the selective passes tested ProbCut, when a measurement asked for them
    /// ([`EndgameSolver::sample_probcut_positions`]); `None` as the engine plays.
    probcut_sample: Option<ProbCutSample>,
}

/// Positions at which a selective pass tested ProbCut, sampled by board hash (so a position
/// visited by several passes or roots is either always kept or never), in the order first met.
/// The rate doubles with each empty square above [`PROBCUT_MIN_EMPTIES`] (one in `every`
/// there, one in `every / 2` a square higher, and so on down to all): a tree has several
/// times as many nodes a square lower, and each count of empties needs its own sample.
struct ProbCutSample {
    every: u64,
    positions: Vec<Board>,
    /// The hashes of every position kept so far (taken ones too).
    seen: std::collections::HashSet<u64>,
}

impl ProbCutSample {
    /// Keeps `board` (of `empties` empties) if its hash falls in the sample and it is new.
    fn offer(&mut self, board: &Board, empties: u32) {
        let every = self.every >> empties.saturating_sub(PROBCUT_MIN_EMPTIES).min(63);
        let hash = board.hash();
        if hash.is_multiple_of(every.max(1)) && self.seen.insert(hash) {
            self.positions.push(board.without_history());
        }
    }
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
    /// A solver set up by `config`: its table uses at most `config.hash_mb()` MiB, it solves
    /// on `config.threads()` threads (with one, exactly as the single-threaded solver does)
    /// and its evaluation orders the moves and runs the shallow searches, with its endgame
    /// statistics driving the selective passes (a bundle without them solves exactly at
    /// once). The table is allocated at [`MIN_TABLE_MB`] (or the limit if less) and grows
    /// when a root needs more ([`table_mb_for`]), so a short solve does not pay for mapping
    /// in memory it would not use.
    pub fn new(config: &SearchConfig) -> EndgameSolver {
        let limit = config.hash_mb().max(1);
        let table = Arc::new(BoundTable::new(limit.min(MIN_TABLE_MB)));
        let mut solver = EndgameSolver::with_table(table, limit, config.eval().clone());
        solver.threads = config.threads();
        solver.counts = Arc::new(NodeCounts::new(solver.threads));
        solver.tt.prepare_for_threads(solver.threads);
        solver
    }

    /// A one-thread solver on `tt` (which may grow to `table_limit_mb` MiB) with `bundle`,
    /// its per-solve state fresh.
    fn with_table(tt: Arc<BoundTable>, table_limit_mb: usize, bundle: EvalBundle) -> EndgameSolver {
        EndgameSolver {
            tt,
            table_limit_mb,
            threads: 1,
            counts: Arc::new(NodeCounts::new(1)),
            core: ThreadContext::new(POLL_INTERVAL),
            level: None,
            bundle,
            thread_table: thread_table::ThreadTable::new(),
            probcut_sample: None,
        }
    }

    /// Bytes the transposition table uses now.
    pub fn table_bytes(&self) -> usize {
        self.tt.size_bytes()
    }

    /// Bytes the transposition table may grow to (the `hash_mb` it was created with, rounded
    /// down to a power of two as tables are).
    pub fn table_limit_bytes(&self) -> usize {
        Buckets::bytes_for(self.table_limit_mb)
    }

    /// Grows the table to what a root of `empties` empties needs ([`table_mb_for`], at most
    /// the limit), before its search: a table that grows starts empty. Never shrinks it.
    fn fit_table(&mut self, empties: u32) {
        let wanted = table_mb_for(empties).min(self.table_limit_mb);
        if Buckets::bytes_for(wanted) > self.tt.size_bytes() {
            // Helpers share the table only while a solve runs, and none is running now.
            let table =
                Arc::get_mut(&mut self.tt).expect("no helper holds the table between searches");
            *table = BoundTable::new(wanted);
            self.tt.prepare_for_threads(self.threads);
        }
    }

    /// Empties the transposition table.
    pub fn clear(&mut self) {
        // Helpers share the table only while a solve runs, and none is running now.
        Arc::get_mut(&mut self.tt)
            .expect("no helper holds the table between searches")
            .clear();
        self.thread_table.clear();
    }

    /// The running node counts of the threads of a root solve ([`EndgameSolver::solve`] and
    /// the like), for a progress display; reset when a solve starts.
    pub fn progress(&self) -> Arc<NodeCounts> {
        Arc::clone(&self.counts)
    }

    /// A solver for a helper thread: the same table and evaluation, its own state.
    pub(crate) fn helper(&self) -> EndgameSolver {
        EndgameSolver::with_table(
            Arc::clone(&self.tt),
            self.table_limit_mb,
            self.bundle.clone(),
        )
    }

    /// From now on keeps the positions at which a selective pass tests ProbCut, one in
    /// `every` (at least 1) by board hash at [`PROBCUT_MIN_EMPTIES`] empties and twice as
    /// many with each empty square more, for measuring the endgame statistics where they are
    /// used (`tsuru probcut --endgame-sample`). One thread only: helpers keep none.
    pub fn sample_probcut_positions(&mut self, every: u64) {
        self.probcut_sample = Some(ProbCutSample {
            every: every.max(1),
            positions: Vec::new(),
            seen: std::collections::HashSet::new(),
        });
    }

    /// The positions kept since [`EndgameSolver::sample_probcut_positions`] or the last call
    /// (each position once over the whole sampling, in the order first met); sampling goes
    /// on.
    pub fn take_probcut_positions(&mut self) -> Vec<Board> {
        self.probcut_sample
            .as_mut()
            .map(|sample| std::mem::take(&mut sample.positions))
            .unwrap_or_default()
    }

    /// Nodes searched since creation or the last [`EndgameSolver::reset_nodes`].
    pub fn nodes(&self) -> u64 {
        self.core.nodes
    }

    /// Restarts the node count.
    pub fn reset_nodes(&mut self) {
        self.core.reset_nodes();
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
        self.fit_table(board.empties());
        self.core.start();
        self.level = None;
        self.tt.new_generation();
        let value = self.node(board, alpha, beta, &stop.into());
        (!self.core.stopped()).then_some(value)
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
        self.core.start();
        self.level = None;
        self.node(board, alpha, beta, stop)
    }

    /// Whether the last search was interrupted by the stop check.
    pub(crate) fn was_stopped(&self) -> bool {
        self.core.stopped()
    }

    /// The table tag of a result at a node with `empties` empties: [`EXACT_TAG`] when it is
    /// exact, the selective level's tag when ProbCut may have cut below it. Entries are used
    /// for cutoffs only with a tag at least as high (ordering uses any).
    #[inline]
    fn tag(&self, empties: u32) -> u8 {
        match self.level {
            Some(level) if empties >= PROBCUT_MIN_EMPTIES => SELECTIVE_TAG + level as u8,
            _ => EXACT_TAG,
        }
    }

    /// Stores a node's fail-soft result: an upper bound at or below the original alpha, a
    /// lower bound at or above beta, else exact. `start` is the node count when the node's
    /// search began: the entry is worth the size of its subtree (its bit length) when the
    /// table must choose which entry to replace.
    #[inline]
    fn store(
        &mut self,
        hash: u64,
        tag: u8,
        best: Discs,
        (alpha, beta): (Discs, Discs),
        square: Option<Square>,
        start: u64,
    ) {
        let worth = (u64::BITS - (self.core.nodes - start).leading_zeros()) as u8;
        self.tt.store(hash, tag, best, (alpha, beta), square, worth);
    }

    /// Polls the stop check every [`POLL_INTERVAL`] nodes (see [`ThreadContext::poll`]).
    #[inline]
    fn poll(&mut self, stop: &StopCheck) -> bool {
        self.core.poll(stop, 0)
    }
}

/// The solver's side of its threads: a split point's context is the selective pass of the
/// search (an index into [`SELECTIVE_LEVELS`], `None` when exact).
impl SplitSearch for EndgameSolver {
    type Context = Option<usize>;
    type Value = Discs;
    const UNIT: Discs = Discs::ONE;
    const NAME: &'static str = "solver";

    #[inline]
    fn core(&mut self) -> &mut ThreadContext<Option<usize>, Discs> {
        &mut self.core
    }

    fn nested_nodes(&self) -> u64 {
        0
    }

    fn helper(&self) -> EndgameSolver {
        EndgameSolver::helper(self)
    }

    /// The node search in the point's selective pass.
    fn search_child(
        &mut self,
        board: &mut Board,
        level: Option<usize>,
        alpha: Discs,
        beta: Discs,
        stop: &StopCheck,
    ) -> Discs {
        let outer = std::mem::replace(&mut self.level, level);
        let value = self.node(board, alpha, beta, stop);
        self.level = outer;
        value
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

/// An upper bound on the value for the side to move: the opponent's stable discs
/// ([`bits::stable`]) can never be taken. `None` when the bound could reach `alpha` only
/// with at most [`STABILITY_SLACK`] / 2 - 1 of the opponent's discs unstable, which skips
/// the computation where it hardly ever cuts.
#[inline]
fn stability_bound(view: BitView, alpha: Discs) -> Option<Discs> {
    stability_bound_with(view, alpha, STABILITY_SLACK)
}

/// [`stability_bound`] computed only when the bound could reach `alpha` with at least
/// `slack` / 2 of the opponent's discs unstable.
#[inline]
fn stability_bound_with(view: BitView, alpha: Discs, slack: i32) -> Option<Discs> {
    let BitView {
        player: p,
        opponent: o,
    } = view;
    if 64 - 2 * (o.count_ones() as i32) + slack > alpha.get() {
        return None;
    }
    Some(Discs::new(
        64 - 2 * bits::stable(o, p | o).count_ones() as i32,
    ))
}

/// Final score for the side to move with `empties` squares left, empties to the winner.
#[inline]
fn final_diff(view: BitView, empties: i32) -> Discs {
    let diff = view.player.count_ones() as i32 - view.opponent.count_ones() as i32;
    Discs::new(match diff.signum() {
        1 => diff + empties,
        -1 => diff - empties,
        _ => 0,
    })
}

#[cfg(test)]
mod tests {
    use super::testkit::{minimax, random_view};
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn final_diff_is_the_games_score() {
        let mut rng = Rng::new(54);
        let mut finished = 0;
        for empties in 0..=8 {
            for _ in 0..300 {
                let Some(view) = random_view(&mut rng, empties) else {
                    continue;
                };
                let score = final_diff(view, view.empties() as i32);
                assert_eq!(score, bits::final_score(view.player, view.opponent));
                if view.mobility() == 0 && view.passed().mobility() == 0 {
                    finished += 1;
                    assert_eq!(score, minimax(view), "{view:?}");
                }
            }
        }
        assert!(finished > 10, "only {finished} finished games");
    }

    #[test]
    fn stability_bound_is_never_below_the_value() {
        let mut rng = Rng::new(55);
        let (mut computed, mut cuts) = (0, 0);
        for _ in 0..3000 {
            let empties = 1 + rng.below(9) as u32;
            let Some(view) = random_view(&mut rng, empties) else {
                continue;
            };
            let value = minimax(view);
            for alpha in [-64, -20, 0, 20, 40, 56, 62] {
                let alpha = Discs::new(alpha);
                if let Some(bound) = stability_bound(view, alpha) {
                    computed += 1;
                    assert!(
                        value <= bound,
                        "{view:?}: value {value} above bound {bound}"
                    );
                    cuts += usize::from(bound <= alpha);
                }
            }
        }
        // The test covers both outcomes: bounds that cut and bounds that do not.
        assert!(
            computed > 100 && cuts > 10,
            "{computed} bounds, {cuts} cuts"
        );
    }

    #[test]
    fn stability_bound_is_skipped_only_where_it_cannot_cut_much() {
        let mut rng = Rng::new(56);
        for _ in 0..500 {
            let Some(view) = random_view(&mut rng, 10) else {
                continue;
            };
            let most = 64 - 2 * view.opponent.count_ones() as i32;
            // Skipped: alpha is more than the slack below the count's own bound.
            assert_eq!(
                stability_bound(view, Discs::new(most - STABILITY_SLACK - 1)),
                None
            );
            assert!(stability_bound(view, Discs::new(most + STABILITY_SLACK)).is_some());
        }
    }

    #[test]
    fn the_table_grows_with_the_root_up_to_its_limit() {
        const MIB: usize = 1 << 20;
        let mut solver = EndgameSolver::new(&crate::search::SearchConfig::new(1024, 1).unwrap());
        assert_eq!(solver.table_bytes(), MIN_TABLE_MB * MIB);
        assert_eq!(solver.table_limit_bytes(), 1024 * MIB);
        solver.fit_table(SMALL_ROOT_EMPTIES);
        assert_eq!(solver.table_bytes(), MIN_TABLE_MB * MIB);
        solver.fit_table(SMALL_ROOT_EMPTIES + 1);
        assert_eq!(solver.table_bytes(), 4 * MIN_TABLE_MB * MIB);
        assert_eq!(table_mb_for(STEEP_GROWTH_EMPTIES), 16 * MIN_TABLE_MB);
        assert_eq!(table_mb_for(STEEP_GROWTH_EMPTIES + 2), 64 * MIN_TABLE_MB);
        // Never smaller again, and never beyond the limit.
        solver.fit_table(10);
        assert_eq!(solver.table_bytes(), 4 * MIN_TABLE_MB * MIB);
        solver.fit_table(60);
        assert_eq!(solver.table_bytes(), 1024 * MIB);
        let mut small = EndgameSolver::new(&crate::search::SearchConfig::new(4, 1).unwrap());
        assert_eq!(small.table_bytes(), 4 * MIB);
        small.fit_table(40);
        assert_eq!(small.table_bytes(), 4 * MIB);
        // A solve grows it before it searches (the start position, 60 empties: stopped at
        // once, the table already at the limit of 32 MiB).
        let mut board = Board::start();
        let mut solver = EndgameSolver::new(&crate::search::SearchConfig::new(32, 1).unwrap());
        let stop = std::sync::atomic::AtomicBool::new(true);
        assert_eq!(solver.solve(&mut board, SolveMode::Exact, &stop), None);
        assert_eq!(solver.table_bytes(), 32 * MIB);
    }

    #[test]
    fn even_quadrants_hold_an_even_number_of_empties() {
        let mut rng = Rng::new(57);
        for _ in 0..1000 {
            let empty = rng.next_u64() & rng.next_u64();
            let even = even_quadrants(empty);
            for quadrant in QUADRANTS {
                let is_even = (empty & quadrant).count_ones().is_multiple_of(2);
                assert_eq!(even & quadrant == quadrant, is_even);
                assert!(even & quadrant == 0 || even & quadrant == quadrant);
            }
        }
        assert_eq!(even_quadrants(0), u64::MAX);
        assert_eq!(QUADRANTS.iter().fold(0, |acc, q| acc | q), u64::MAX);
    }

    #[test]
    fn expectations_of_children() {
        let (alpha, null, wide) = (Discs::new(2), Discs::new(3), Discs::new(10));
        // Under a null window cut and all nodes alternate; under a wider one every child
        // after the first is expected to fail low, so it is a cut node.
        assert_eq!(Expect::Cut.child(alpha, null), Expect::All);
        assert_eq!(Expect::All.child(alpha, null), Expect::Cut);
        assert_eq!(Expect::Cut.child(alpha, wide), Expect::Cut);
        assert_eq!(Expect::All.child(alpha, wide), Expect::Cut);
        assert!(Expect::All.searches_all(alpha, null));
        assert!(!Expect::All.searches_all(alpha, wide));
        assert!(!Expect::Cut.searches_all(alpha, null));
    }

    #[test]
    fn tags_rank_selective_results_below_exact_ones() {
        let mut solver = EndgameSolver::new(&crate::search::SearchConfig::new(1, 1).unwrap());
        assert_eq!(solver.tag(30), EXACT_TAG);
        let mut last = 0;
        for level in 0..SELECTIVE_LEVELS.len() {
            solver.level = Some(level);
            let tag = solver.tag(PROBCUT_MIN_EMPTIES);
            assert!(last < tag && tag < EXACT_TAG, "level {level}: tag {tag}");
            last = tag;
            // Below ProbCut's reach a selective pass's results are exact.
            assert_eq!(solver.tag(PROBCUT_MIN_EMPTIES - 1), EXACT_TAG);
        }
    }
}
