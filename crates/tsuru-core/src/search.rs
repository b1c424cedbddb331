//! Search: iterative deepening over a principal-variation alpha-beta search.
//!
//! [`Search::iterate`] takes a position and [`SearchLimits`] and deepens to depths 1 and 2,
//! then two plies at a time (even depths, and the depth limit itself when it is odd),
//! reporting every completed iteration through a callback ([`SearchInfo`]: every line of one
//! iteration carries the same depth) and returning the last completed iteration's result
//! ([`SearchResult`]). Near the end of the game it hands over to the exact
//! [`endgame::EndgameSolver`]: win/loss/draw from [`SearchLimits::wld_empties`] empties,
//! exact from [`SearchLimits::exact_empties`]; under a clock, only once the solver's first
//! selective pass is expected to fit ([`time::TimeBudget::affords_solve`]), and until then the
//! midgame search deepens.
//!
//! Depth convention: a pass does not use up depth; at depth 0 the static evaluation scores the
//! position; a finished game scores its final disc difference (empties to the winner). When a
//! midgame iteration's depth is at least the number of empties, every line reaches the end of
//! the game and the result is exact.
//!
//! Stopping: the caller's stop flag, the hard deadline and the node limit form one
//! [`stop::StopCheck`], polled every [`POLL_INTERVAL`] nodes by the midgame search and every
//! few thousand by the solver (no watchdog thread); a stopped search returns the last
//! completed iteration, or a legal move if none completed (a pass only when passing is
//! forced).
//!
//! Threads ([`SearchConfig::threads`]; one by default, exactly the single-threaded search): the
//! midgame iterations run by Young Brothers Wait. This thread deepens, reports and answers as
//! it would alone; at a node of at least [`SPLIT_MIN_DEPTH`] plies left whose first move has
//! been searched, while a helper is idle, the remaining moves become a split point (the
//! `split` module, shared with the solver) that the helpers take moves from, each on its own
//! board and state; a move that reaches beta cuts the point off and its other threads abandon
//! their subtrees. The threads share the two lock-free transposition tables ([`tt`]) and the
//! split points, nothing else. Without Multi-ProbCut the root's score is one thread's; with
//! it, the values vary with the threads' timing as table entries do. A principal variation
//! is completed from the table's best moves past a move searched at a split point (and past
//! a node cut by the table, on any thread count). The node counts are every thread's. The
//! endgame solve that follows is split among the threads the same way
//! ([`SearchConfig::threads`] too), with the same exact results. Nodes handed to the solver
//! inside the midgame tree are solved by the thread that reached them.

mod alphabeta;
mod buckets;
pub mod config;
pub mod endgame;
pub mod eval_cache;
pub mod ordering;
mod parallel;
pub mod stop;
pub mod time;
pub mod tt;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parallel::ThreadContext;
use stop::{NodeCounts, StopCheck};

use crate::board::{Board, Move};
pub use crate::config::Level;
use crate::eval::{EvalBundle, Evaluation};
use crate::score::Score;
pub use config::SearchConfig;
use endgame::{EndgameSolver, SolveMode};
use eval_cache::EvalCache;
pub use time::{Clock, LiveBudget, TimeBudget};
use tt::TranspositionTable;

/// Nodes between two midgame polls of the stop check (flag, deadline, node limit).
pub const POLL_INTERVAL: u64 = 1024;

/// Before solving a root with this many empties or fewer, the midgame search goes only 4
/// plies deep; above it, to `empties - PRESOLVE_EMPTIES` plies (within the depth limit).
const PRESOLVE_EMPTIES: u32 = 18;

/// Midgame nodes with at least this many plies left to search may be split among threads
/// (Young Brothers Wait, the `split` module) once their first move is searched.
pub const SPLIT_MIN_DEPTH: u32 = 4;

/// What a thread joining a midgame split point needs besides the position and the window.
#[derive(Clone, Copy, Debug, Default)]
struct SplitNode {
    /// Plies left to search at the node.
    depth: u32,
    /// The node's distance from the root (where its children's principal variations go).
    ply: usize,
}

/// Deepest ply the search can reach (moves and passes).
pub(crate) const MAX_PLY: usize = 128;

/// What bounds a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchLimits {
    /// Midgame depth limit in plies (`None`: deepen until another limit stops it).
    pub depth: Option<u32>,
    /// Soft and hard deadlines (`None`: no time limit).
    pub time: Option<TimeBudget>,
    /// Node limit (`None`: none).
    pub nodes: Option<u64>,
    /// How many best moves to report with valid scores (1: only the best).
    pub multi_pv: usize,
    /// Solve exactly when the position has at most this many empties.
    pub exact_empties: u32,
    /// Prove win/loss/draw when the position has at most this many empties.
    pub wld_empties: u32,
}

impl Default for SearchLimits {
    fn default() -> SearchLimits {
        SearchLimits::for_level(Level::DEFAULT)
    }
}

impl SearchLimits {
    /// The limits of a level: its midgame depth, win/loss/draw from
    /// [`Level::wld_empties`] empties and exact from [`Level::exact_empties`].
    pub fn for_level(level: Level) -> SearchLimits {
        SearchLimits {
            depth: Some(level.depth()),
            time: None,
            nodes: None,
            multi_pv: 1,
            exact_empties: level.exact_empties(),
            wld_empties: level.wld_empties(),
        }
    }

    /// A midgame search of `depth` plies and nothing else: never exact or win/loss/draw at
    /// the root (the solver still answers the nodes whose depth covers their empties). The
    /// fixed-depth searches of the tools (bench, ProbCut statistics, search labels, the
    /// self-play players) take this.
    pub fn midgame(depth: u32) -> SearchLimits {
        SearchLimits {
            depth: Some(depth),
            exact_empties: 0,
            wld_empties: 0,
            ..SearchLimits::default()
        }
    }
}

/// What one search is asked for, as the engine's session, the tools and Python take it: a
/// level, a clock, a node limit, how many best moves, and whether the root may be solved.
/// [`SearchRequest::limits`] turns it into the [`SearchLimits`] of a position, with the
/// same rules wherever the request comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchRequest {
    /// The level: midgame depth and the endgame thresholds. `None`: the deepest level when
    /// the clock bounds the search, else [`Level::DEFAULT`].
    pub level: Option<Level>,
    /// The clock the search spends from ([`Clock::Unlimited`]: the level alone bounds it).
    pub clock: Clock,
    /// A node limit (`None`: none).
    pub nodes: Option<u64>,
    /// How many best moves to report with valid scores (at least 1).
    pub multi_pv: usize,
    /// The midgame search only: never exact or win/loss/draw at the root.
    pub midgame_only: bool,
}

impl Default for SearchRequest {
    /// The default level, no clock, no node limit, the best move only, solving allowed.
    fn default() -> SearchRequest {
        SearchRequest {
            level: None,
            clock: Clock::Unlimited,
            nodes: None,
            multi_pv: 1,
            midgame_only: false,
        }
    }
}

impl SearchRequest {
    /// The limits of this request for a position of `empties` empty squares: the level's
    /// depth and thresholds, the clock's budget for this move ([`TimeBudget::for_clock`]),
    /// the node limit and the multi-PV count. Errors when `multi_pv` is 0.
    pub fn limits(&self, empties: u32) -> anyhow::Result<SearchLimits> {
        if self.multi_pv == 0 {
            anyhow::bail!("the number of best moves (multi-PV) must be at least 1");
        }
        let time = TimeBudget::for_clock(&self.clock, empties);
        let level = self.level.unwrap_or(if time.is_some() {
            Level::new(Level::MAX).expect("the deepest level is a level")
        } else {
            Level::DEFAULT
        });
        let mut limits = SearchLimits {
            time,
            nodes: self.nodes,
            multi_pv: self.multi_pv,
            ..SearchLimits::for_level(level)
        };
        if self.midgame_only {
            limits.exact_empties = 0;
            limits.wld_empties = 0;
        }
        Ok(limits)
    }
}

/// How deep a reported result is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// A midgame search of this many plies.
    Plies(u32),
    /// A selective solve to the end of the game: each ProbCut was right with this
    /// probability in per cent (see [`endgame::SELECTIVE_LEVELS`]).
    Probable(u8),
    /// Proven win, loss or draw (the score is only a sign: -1, 0 or +1 disc).
    WinLossDraw,
    /// The exact game-theoretic value.
    Exact,
}

/// One move with its score and principal variation.
#[derive(Clone, Debug, PartialEq)]
pub struct PvLine {
    /// The move (a pass only where it is forced).
    pub mv: Move,
    /// Its score for the side to move at the root.
    pub score: Score,
    /// The principal variation, starting with `mv`.
    pub pv: Vec<Move>,
}

/// A report after each completed iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo {
    /// Depth of the iteration (the same for every line).
    pub depth: Depth,
    /// The best `min(multi_pv, legal moves)` moves, best first.
    pub lines: Vec<PvLine>,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time since the search started.
    pub elapsed: Duration,
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The move to play: a legal move; `Move::Pass` when passing is forced or the game is over.
    pub best: Move,
    /// Its score for the side to move.
    pub score: Score,
    /// Depth of the result.
    pub depth: Depth,
    /// Principal variation from the root.
    pub pv: Vec<Move>,
    /// The lines of the last completed iteration (empty in a finished game).
    pub lines: Vec<PvLine>,
    /// Nodes searched.
    pub nodes: u64,
    /// Time spent.
    pub elapsed: Duration,
    /// Whether the search ended by reaching its depth or solving, rather than being stopped.
    pub completed: bool,
}

/// The searcher: transposition table, endgame solver and evaluation bundle, reused across
/// searches.
pub struct Search {
    tt: Arc<TranspositionTable<Score>>,
    solver: EndgameSolver,
    /// Threads a search uses, this one included ([`SearchConfig::threads`]).
    threads: usize,
    /// The running node counts of the midgame threads, one slot a thread.
    counts: Arc<NodeCounts>,
    /// The evaluation and its statistics; the solver holds a handle to the same bundle.
    bundle: EvalBundle,
    /// This thread's cache of leaf values ([`eval_cache`]); each helper has its own.
    eval_cache: EvalCache,
    use_table: bool,
    selectivity: Option<f32>,
    // Per-search state.
    /// This thread's node count, poll, stop and place among the split points.
    core: ThreadContext<SplitNode, Score>,
    started: Instant,
    /// The budget a pondering search gets once its position is asked for
    /// ([`Search::iterate_pondering`]); `None` in every other search.
    live: Option<Arc<LiveBudget>>,
    pv: Box<[[Move; MAX_PLY]; MAX_PLY]>,
    pv_len: [usize; MAX_PLY],
}

impl Search {
    /// A searcher set up by `config`: tables of `config.hash_mb()` MiB in all, half for the
    /// midgame table and half for the solver's (a power-of-two size, such as the default 64,
    /// is used exactly; other sizes round down), `config.threads()` threads for the midgame
    /// search and the solver alike (with one, the search is exactly the single-threaded one),
    /// its evaluation for both, its selectivity and evaluation cache.
    pub fn new(config: SearchConfig) -> Search {
        let hash_mb = config.hash_mb().max(2);
        let threads = config.threads();
        let solver_config = SearchConfig::new(hash_mb - hash_mb / 2, threads)
            .expect("half of a table in range is in range")
            .with_eval(config.eval().clone());
        let tt = Arc::new(TranspositionTable::new(hash_mb / 2));
        tt.prepare_for_threads(threads);
        Search {
            tt,
            solver: EndgameSolver::new(&solver_config),
            threads,
            counts: Arc::new(NodeCounts::new(threads)),
            eval_cache: EvalCache::new(config.eval_cache_bits()),
            use_table: config.table(),
            selectivity: config.selectivity(),
            bundle: config.eval().clone(),
            core: ThreadContext::new(POLL_INTERVAL),
            started: Instant::now(),
            live: None,
            pv: Box::new([[Move::Pass; MAX_PLY]; MAX_PLY]),
            pv_len: [0; MAX_PLY],
        }
    }

    /// Bytes the two tables may use: the midgame table's and the most the solver's grows to
    /// (it starts smaller and grows with the work, see [`EndgameSolver::new`]).
    pub fn table_bytes(&self) -> usize {
        self.tt.size_bytes() + self.solver.table_limit_bytes()
    }

    /// Bytes the solver's table uses now (it grows with the positions solved, up to its
    /// half of the tables' memory).
    pub fn solver_table_bytes(&self) -> usize {
        self.solver.table_bytes()
    }

    /// Forgets everything the tables hold.
    pub fn clear(&mut self) {
        // Helpers share the table only while a search runs, and none is running now.
        Arc::get_mut(&mut self.tt)
            .expect("no helper holds the table between searches")
            .clear_for_threads(self.threads);
        self.solver.clear();
    }

    /// Forgets everything the tables hold, as [`Search::clear`], but zeroes the midgame
    /// table where it is, so that its pages stay mapped. For tools that time one short search
    /// after another (`tsuru accuracy`, `tsuru bench`): with one thread [`Search::clear`]
    /// takes a fresh allocation, whose pages the next search then faults in (the kernel
    /// zeroing each 2 MiB page on first touch), a cost a game pays once, not every move, and
    /// which was nearly half of a 12-ply search's time on hard-25 (docs/training.md).
    pub fn clear_in_place(&mut self) {
        Arc::get_mut(&mut self.tt)
            .expect("no helper holds the table between searches")
            .clear_in_place();
        self.solver.clear();
    }

    /// The midgame node counts of the search's threads, one slot a thread (this one first):
    /// running counts while a search runs, exact totals once it is done; reset when a search
    /// starts.
    pub fn progress(&self) -> Arc<NodeCounts> {
        Arc::clone(&self.counts)
    }

    /// The static evaluation of a position (for tools and tests).
    pub fn evaluate(&self, board: &Board) -> Score {
        self.bundle.evaluator().evaluate(board)
    }

    /// [`Search::iterate`] with the deadlines of `live` instead of those of `limits.time`:
    /// none until [`LiveBudget::start`] is called (from another thread), then that budget's
    /// counted from that call. `limits.time` is the budget the search expects to get: it
    /// decides, as in a timed search, whether the solver's first pass fits
    /// ([`TimeBudget::affords_solve`]) or the midgame search deepens instead. Pondering: the
    /// search of the position the engine expects goes on into the search of its move when
    /// the expected move is played.
    pub fn iterate_pondering(
        &mut self,
        board: &Board,
        limits: &SearchLimits,
        live: Arc<LiveBudget>,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        self.live = Some(live);
        let result = self.iterate(board, limits, stop, on_info);
        self.live = None;
        result
    }

    /// Searches `board` within `limits`, calling `on_info` after every completed iteration,
    /// and returns the last completed iteration's result (see the module doc).
    pub fn iterate(
        &mut self,
        board: &Board,
        limits: &SearchLimits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        self.started = Instant::now();
        self.core.reset_nodes();
        self.solver.reset_nodes();
        self.counts.reset();
        let live = self.live.clone();
        // A pondering search's deadlines are its live budget's alone.
        let deadline = match &live {
            Some(_) => None,
            None => limits.time.map(|t| self.started + t.hard),
        };
        let stop = StopCheck::new(stop)
            .with_deadline(deadline)
            .with_live_budget(live.as_deref())
            .with_node_limit(limits.nodes.unwrap_or(u64::MAX));
        let stop = &stop;
        self.core.start();
        self.tt.new_generation();
        let mut board = board.without_history();

        if board.is_game_over() {
            let score = Score::from_discs(board.final_score(board.side_to_move()));
            return SearchResult {
                best: Move::Pass,
                score,
                depth: Depth::Exact,
                pv: Vec::new(),
                lines: Vec::new(),
                nodes: 0,
                elapsed: self.started.elapsed(),
                completed: true,
            };
        }

        let mut roots = alphabeta::root_moves(&board);
        let multi_pv = limits.multi_pv.clamp(1, roots.len());
        let empties = board.empties();
        let mut endgame = if empties <= limits.exact_empties {
            Some(SolveMode::Exact)
        } else if empties <= limits.wld_empties {
            Some(SolveMode::WinLossDraw)
        } else {
            None
        };
        // Under a clock, a solve that would not get through its first pass in time is not
        // started: the midgame search deepens instead (and is not complete, as if stopped).
        let solve_skipped =
            endgame.is_some() && limits.time.is_some_and(|time| !time.affords_solve(empties));
        if solve_skipped {
            endgame = None;
        }
        // Before a solve, midgame iterations give move ordering and a fallback answer: a
        // few plies when the solve is quick, deeper ones (reported as they complete) when
        // many squares are empty and the solve may not finish.
        let mut max_depth = limits.depth.unwrap_or(u32::MAX).max(1);
        if endgame.is_some() {
            max_depth = max_depth.min(empties.saturating_sub(PRESOLVE_EMPTIES).max(4));
        }
        let (mut result, exact) = if self.threads > 1 {
            // On every thread (Young Brothers Wait, [`parallel`]): this thread deepens,
            // reports and returns as alone, and opens split points where a helper is idle
            // (see [`SPLIT_MIN_DEPTH`]); the helpers search the moves they take there on
            // their own boards with their own state, sharing the tables, until this thread is
            // done. Their node counts are added to the search's.
            let (threads, counts) = (self.threads, Arc::clone(&self.counts));
            let lead = stop.with_counts(&counts, 0);
            let deepen = |search: &mut Search| {
                search.deepen(&board, limits, &mut roots, max_depth, &lead, on_info)
            };
            parallel::with_helpers(self, threads, stop, &counts, deepen).0
        } else {
            self.deepen(&board, limits, &mut roots, max_depth, stop, on_info)
        };
        if exact {
            let mut result = result.expect("an exact iteration completed");
            result.nodes = self.total_nodes();
            return result;
        }
        if let Some(mode) = endgame {
            // After the soft deadline a solve would not finish in time: keep the midgame result.
            let out_of_time = result.is_some() && self.past_soft_deadline(limits);
            if !self.core.stopped() && !out_of_time {
                let mut probable = None;
                let solved = self.solve_root(&mut board, mode, multi_pv, stop, &mut |info| {
                    on_info(info);
                    probable = Some(info.clone());
                });
                if let Some(info) = solved {
                    on_info(&info);
                    return self.result_from(info, true);
                }
                // A stopped solve still leaves its last selective pass, deeper than any
                // midgame iteration.
                if let Some(info) = probable {
                    result = Some(self.result_from(info, false));
                }
            }
        }
        let completed = !self.core.stopped() && endgame.is_none() && !solve_skipped;
        match result {
            Some(mut result) => {
                result.completed = completed;
                result.nodes = self.total_nodes();
                result.elapsed = self.started.elapsed();
                result
            }
            None => {
                // Nothing completed: any legal move, in the order the search would try them.
                let mv = roots[0].mv;
                SearchResult {
                    best: mv,
                    score: Score::ZERO,
                    depth: Depth::Plies(0),
                    pv: vec![mv],
                    lines: Vec::new(),
                    nodes: self.total_nodes(),
                    elapsed: self.started.elapsed(),
                    completed: false,
                }
            }
        }
    }

    /// The midgame iterations from depth 1 to `max_depth` (or until the soft deadline or a
    /// stop), each reported through `on_info`: the last completed iteration's result, and
    /// whether it is exact (its depth covered the empties). The first `limits.multi_pv` of
    /// `roots` get exact scores.
    fn deepen(
        &mut self,
        board: &Board,
        limits: &SearchLimits,
        roots: &mut [alphabeta::RootMove],
        max_depth: u32,
        stop: &StopCheck,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> (Option<SearchResult>, bool) {
        let mut board = board.clone();
        let empties = board.empties();
        let multi_pv = limits.multi_pv.clamp(1, roots.len());
        let mut result: Option<SearchResult> = None;
        let mut last_score = Score::ZERO;
        let mut last_iteration = Duration::ZERO;
        for depth in 1..=max_depth {
            // Past depth 2, only even depths (and the last one): a line of odd depth ends
            // with the other side to move, whose values sit higher by the noise of the best
            // of its replies, so odd and even iterations disagree by a disc or two and the
            // move chosen would depend on which parity the clock stopped at.
            if depth > 2 && depth % 2 == 1 && depth != max_depth {
                continue;
            }
            if depth > 1 && self.past_soft_deadline(limits) {
                break;
            }
            let began = Instant::now();
            if depth > 1
                && self.budget(limits).is_some_and(|(since, time)| {
                    !time.expects_to_finish(since.elapsed(), last_iteration)
                })
            {
                break;
            }
            let Some(score) =
                self.root_iteration(&mut board, depth, roots, multi_pv, last_score, stop)
            else {
                break;
            };
            last_iteration = began.elapsed();
            last_score = score;
            // Every line reaches the end of the game once the depth covers the empties.
            let exact = depth >= empties;
            let depth_kind = if exact {
                Depth::Exact
            } else {
                Depth::Plies(depth)
            };
            let info = self.info(depth_kind, &roots[..multi_pv]);
            on_info(&info);
            result = Some(self.result_from(info, true));
            if exact {
                return (result, true);
            }
        }
        (result, false)
    }

    /// A searcher for a helper thread: the same tables, evaluation and settings, its own
    /// per-search state and solver (sharing the solver's table).
    fn helper(&self) -> Search {
        Search {
            tt: Arc::clone(&self.tt),
            solver: self.solver.helper(),
            bundle: self.bundle.clone(),
            eval_cache: EvalCache::new(self.eval_cache.bits()),
            use_table: self.use_table,
            selectivity: self.selectivity,
            threads: 1,
            counts: Arc::new(NodeCounts::new(1)),
            core: ThreadContext::new(POLL_INTERVAL),
            started: self.started,
            live: None,
            pv: Box::new([[Move::Pass; MAX_PLY]; MAX_PLY]),
            pv_len: [0; MAX_PLY],
        }
    }

    /// The search's time budget and the moment it counts from: `limits.time` from the
    /// search's start, or a pondering search's live budget once started.
    fn budget(&self, limits: &SearchLimits) -> Option<(Instant, TimeBudget)> {
        match &self.live {
            Some(live) => live.budget(),
            None => limits.time.map(|time| (self.started, time)),
        }
    }

    fn past_soft_deadline(&self, limits: &SearchLimits) -> bool {
        self.budget(limits)
            .is_some_and(|(since, time)| since.elapsed() >= time.soft)
    }

    /// Nodes of this search on every thread: the helpers' as of their last polls while
    /// they run, exactly once they are done.
    fn total_nodes(&self) -> u64 {
        let helpers: u64 = (1..self.threads).map(|i| self.counts.get(i)).sum();
        self.core.nodes + self.solver.nodes() + helpers
    }

    fn info(&self, depth: Depth, roots: &[alphabeta::RootMove]) -> SearchInfo {
        SearchInfo {
            depth,
            lines: roots
                .iter()
                .map(|root| PvLine {
                    mv: root.mv,
                    score: root.score,
                    pv: root.pv.clone(),
                })
                .collect(),
            nodes: self.total_nodes(),
            elapsed: self.started.elapsed(),
        }
    }

    fn result_from(&self, info: SearchInfo, completed: bool) -> SearchResult {
        let best = &info.lines[0];
        SearchResult {
            best: best.mv,
            score: best.score,
            depth: info.depth,
            pv: best.pv.clone(),
            lines: info.lines.clone(),
            nodes: info.nodes,
            elapsed: info.elapsed,
            completed,
        }
    }

    /// Solves the root with the endgame solver, reporting the selective passes of an exact
    /// single-PV solve through `on_probable`; `None` if stopped.
    fn solve_root(
        &mut self,
        board: &mut Board,
        mode: SolveMode,
        multi_pv: usize,
        stop: &StopCheck,
        on_probable: &mut dyn FnMut(&SearchInfo),
    ) -> Option<SearchInfo> {
        let depth = match mode {
            SolveMode::Exact => Depth::Exact,
            SolveMode::WinLossDraw => Depth::WinLossDraw,
        };
        // The solver counts its own nodes: what is left of the limit is its share.
        let stop = stop.less_nodes(self.core.nodes);
        let lines = if multi_pv == 1 {
            let started = self.started;
            let nodes_before = self.total_nodes();
            let solution = self
                .solver
                .solve_reporting(board, mode, stop, &mut |pass| {
                    // A probable win/loss/draw has no depth string of its own: only the
                    // passes of an exact solve are shown.
                    if mode != SolveMode::Exact {
                        return;
                    }
                    on_probable(&SearchInfo {
                        depth: Depth::Probable(pass.percent),
                        lines: vec![PvLine {
                            mv: pass.solution.best,
                            score: Score::from_discs(pass.solution.score),
                            pv: pass.solution.pv.clone(),
                        }],
                        nodes: nodes_before + pass.solution.nodes,
                        elapsed: started.elapsed(),
                    })
                })?;
            vec![PvLine {
                mv: solution.best,
                score: Score::from_discs(solution.score),
                pv: solution.pv,
            }]
        } else {
            let all = self.solver.solve_all(board, mode, stop)?;
            let mut lines = Vec::with_capacity(multi_pv);
            for (mv, score) in all.into_iter().take(multi_pv) {
                // Each line's continuation is a solve of the position after its move, quick
                // on the table `solve_all` has just filled; a stop leaves the move alone.
                let mut pv = vec![mv];
                if board.play(mv).is_ok() {
                    if !board.is_game_over() {
                        if let Some(rest) = self.solver.solve(board, mode, stop) {
                            pv.extend(rest.pv);
                        }
                    }
                    board.undo();
                }
                lines.push(PvLine {
                    mv,
                    score: Score::from_discs(score),
                    pv,
                });
            }
            lines
        };
        Some(SearchInfo {
            depth,
            lines,
            nodes: self.total_nodes(),
            elapsed: self.started.elapsed(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{notation, Square};
    use crate::rng::Rng;
    use crate::score::Discs;

    #[test]
    fn a_request_becomes_the_same_limits_wherever_it_comes_from() {
        let level = |n| Level::new(n).unwrap();
        // No level and no clock: the default level, to its depth and thresholds.
        let plain = SearchRequest::default().limits(40).unwrap();
        assert_eq!(plain, SearchLimits::for_level(Level::DEFAULT));
        // A clock and no level: the deepest level, bounded by the clock's budget.
        let move_time = Duration::from_millis(300);
        let timed = SearchRequest {
            clock: Clock::PerMove(move_time),
            ..SearchRequest::default()
        }
        .limits(40)
        .unwrap();
        assert_eq!(timed.depth, Some(Level::MAX));
        assert_eq!(timed.time, Some(TimeBudget::per_move(move_time)));
        // A level with a game clock: the level's depth, the time manager's budget.
        let clock = Clock::SuddenDeath {
            left: Duration::from_secs(60),
            increment: Duration::ZERO,
        };
        let game = SearchRequest {
            level: Some(level(8)),
            clock,
            nodes: Some(1000),
            multi_pv: 3,
            midgame_only: false,
        }
        .limits(30)
        .unwrap();
        assert_eq!(
            game,
            SearchLimits {
                time: TimeBudget::for_clock(&clock, 30),
                nodes: Some(1000),
                multi_pv: 3,
                ..SearchLimits::for_level(level(8))
            }
        );
        // Midgame only: the level's depth and no solving at the root.
        let midgame = SearchRequest {
            level: Some(level(10)),
            midgame_only: true,
            ..SearchRequest::default()
        }
        .limits(20)
        .unwrap();
        assert_eq!(midgame, SearchLimits::midgame(10));
        let none = SearchRequest {
            multi_pv: 0,
            ..SearchRequest::default()
        };
        assert!(none.limits(20).is_err());
    }

    /// Plain minimax of the final disc difference for the side to move (a pass is a ply).
    fn minimax(board: &mut Board) -> Discs {
        if board.is_game_over() {
            return board.final_score(board.side_to_move());
        }
        if board.must_pass() {
            board.make_pass();
            let value = -minimax(board);
            board.undo();
            return value;
        }
        let mut best = -Discs::INFINITY;
        let mut moves = board.legal_moves();
        while moves != 0 {
            let square = Square::from_lowest_bit(moves);
            moves &= moves - 1;
            board.play(Move::Play(square)).unwrap();
            best = best.max(-minimax(board));
            board.undo();
        }
        best
    }

    /// A position `empties` from the end of a random game (`None` if it ended before).
    fn random_board(rng: &mut Rng, empties: u32) -> Option<Board> {
        let mut board = Board::start();
        while board.empties() > empties {
            if board.is_game_over() {
                return None;
            }
            if board.must_pass() {
                board.make_pass();
            } else {
                board
                    .play(Move::Play(rng.pick(board.legal_moves())))
                    .unwrap();
            }
        }
        (!board.is_game_over()).then(|| board.without_history())
    }

    fn iterate(
        search: &mut Search,
        board: &Board,
        limits: &SearchLimits,
    ) -> (SearchResult, Vec<SearchInfo>) {
        let stop = AtomicBool::new(false);
        let mut infos = Vec::new();
        let result = search.iterate(board, limits, &stop, &mut |info| infos.push(info.clone()));
        (result, infos)
    }

    fn level(n: u32) -> SearchLimits {
        SearchLimits::for_level(Level::new(n).unwrap())
    }

    #[test]
    fn solves_exactly_within_the_levels_empties() {
        let mut rng = Rng::new(60);
        let mut search = Search::new(crate::search::SearchConfig::new(4, 1).unwrap());
        let mut solved = 0;
        while solved < 25 {
            let empties = 6 + rng.below(4) as u32;
            let Some(mut board) = random_board(&mut rng, empties) else {
                continue;
            };
            let (result, infos) = iterate(&mut search, &board, &level(8));
            let value = minimax(&mut board);
            assert_eq!(result.depth, Depth::Exact);
            assert_eq!(
                result.score,
                Score::from_discs(value),
                "{}",
                notation::board_to_string(&board)
            );
            assert!(result.completed && board.is_legal(result.best));
            assert_eq!(result.pv.first(), Some(&result.best));
            assert_eq!(infos.last().map(|info| info.depth), Some(Depth::Exact));
            solved += 1;
        }
    }

    #[test]
    fn win_loss_draw_gives_the_sign() {
        let mut rng = Rng::new(61);
        let mut search = Search::new(crate::search::SearchConfig::new(4, 1).unwrap());
        let mut proven = 0;
        while proven < 15 {
            let Some(mut board) = random_board(&mut rng, 10) else {
                continue;
            };
            let limits = SearchLimits {
                exact_empties: 0,
                wld_empties: 10,
                ..level(4)
            };
            let (result, _) = iterate(&mut search, &board, &limits);
            let value = minimax(&mut board);
            assert_eq!(result.depth, Depth::WinLossDraw);
            assert_eq!(result.score, Score::from_discs(value.signum()));
            proven += 1;
        }
    }

    #[test]
    fn midgame_iterations_deepen_in_order_with_every_line() {
        let mut board = Board::start();
        notation::play_moves(
            &mut board,
            &notation::parse_transcript("f5d6c3d3c4").unwrap(),
        )
        .unwrap();
        let mut search = Search::new(crate::search::SearchConfig::new(4, 1).unwrap());
        let limits = SearchLimits {
            multi_pv: 3,
            ..level(8)
        };
        let (result, infos) = iterate(&mut search, &board, &limits);
        let depths: Vec<Depth> = infos.iter().map(|info| info.depth).collect();
        // Past depth 2 only even depths are searched.
        assert_eq!(
            depths,
            [1, 2, 4, 6, 8].map(Depth::Plies).to_vec(),
            "{depths:?}"
        );
        assert!(infos.windows(2).all(|w| w[0].nodes <= w[1].nodes));
        assert_eq!(result.depth, Depth::Plies(8));
        assert!(result.completed);
        assert_eq!(result.lines.len(), 3);
        assert!(result.lines.windows(2).all(|w| w[0].score >= w[1].score));
        assert_eq!(
            (result.best, result.score),
            (result.lines[0].mv, result.lines[0].score)
        );
        for line in &result.lines {
            assert!(board.is_legal(line.mv) && line.pv[0] == line.mv);
        }
    }

    #[test]
    fn finished_games_and_forced_passes() {
        let mut search = Search::new(crate::search::SearchConfig::new(4, 1).unwrap());
        // A wipe-out: Black has every disc and the game is over.
        let mut over = Board::start();
        notation::play_moves(
            &mut over,
            &notation::parse_transcript("e6f4e3f6g5d6e7f5c5").unwrap(),
        )
        .unwrap();
        assert!(over.is_game_over());
        let (result, infos) = iterate(&mut search, &over, &level(8));
        assert_eq!((result.best, result.depth), (Move::Pass, Depth::Exact));
        assert_eq!(
            result.score,
            Score::from_discs(over.final_score(over.side_to_move()))
        );
        assert!(infos.is_empty() && result.completed);
        // Black to move must pass after these moves.
        let mut pass = Board::start();
        notation::play_moves(
            &mut pass,
            &notation::parse_transcript("d3c3e6d2d1e1b2c1").unwrap(),
        )
        .unwrap();
        assert!(pass.must_pass());
        let (result, _) = iterate(&mut search, &pass, &level(6));
        assert_eq!(result.best, Move::Pass);
        assert_eq!(result.pv.first(), Some(&Move::Pass));
    }

    #[test]
    fn a_node_limit_stops_the_search() {
        let mut rng = Rng::new(62);
        let board = random_board(&mut rng, 40).unwrap();
        let mut search = Search::new(crate::search::SearchConfig::new(4, 1).unwrap());
        let limits = SearchLimits {
            nodes: Some(20_000),
            ..level(60)
        };
        let (result, _) = iterate(&mut search, &board, &limits);
        assert!(!result.completed);
        assert!(result.nodes < 40_000, "{} nodes", result.nodes);
        assert!(board.is_legal(result.best));
    }

    #[test]
    fn a_solve_that_cannot_finish_in_time_is_not_started() {
        let mut rng = Rng::new(63);
        let board = random_board(&mut rng, 30).unwrap();
        let mut search = Search::new(crate::search::SearchConfig::new(4, 1).unwrap());
        let budget = TimeBudget::per_move(Duration::from_millis(50));
        assert!(!budget.affords_solve(30));
        let limits = SearchLimits {
            time: Some(budget),
            ..level(60)
        };
        let (result, _) = iterate(&mut search, &board, &limits);
        // The midgame search deepened instead; it is not a completed solve.
        assert!(
            matches!(result.depth, Depth::Plies(d) if d >= 4),
            "{:?}",
            result.depth
        );
        assert!(!result.completed);
    }

    #[test]
    fn a_pondering_search_waits_for_its_budget() {
        let mut rng = Rng::new(64);
        let board = random_board(&mut rng, 36).unwrap();
        let mut search = Search::new(crate::search::SearchConfig::new(4, 1).unwrap());
        let live = Arc::new(LiveBudget::new());
        let limits = SearchLimits {
            time: Some(TimeBudget::per_move(Duration::from_millis(30))),
            ..level(60)
        };
        let stop = AtomicBool::new(false);
        let started = Instant::now();
        std::thread::scope(|scope| {
            let starter = live.clone();
            scope.spawn(move || {
                std::thread::sleep(Duration::from_millis(150));
                // The move expected was played: the budget counts from now.
                starter.start(Some(TimeBudget::per_move(Duration::from_millis(30))));
            });
            let result =
                search.iterate_pondering(&board, &limits, live.clone(), &stop, &mut |_| {});
            // No deadline before the budget started, then 30 ms of it.
            assert!(started.elapsed() >= Duration::from_millis(150));
            assert!(started.elapsed() < Duration::from_secs(5));
            assert!(board.is_legal(result.best));
        });
    }
}
