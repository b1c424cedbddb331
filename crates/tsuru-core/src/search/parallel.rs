//! The thread side of the parallel searches, written once for the midgame search and the
//! solver: each thread's [`ThreadContext`] (its node count and poll, why it stopped, its
//! place among the split points), and over [`SplitSearch`], the little each search supplies
//! (searching the position after a move of a split point), the Young Brothers Wait moves of
//! a thread: opening a split point and waiting at it ([`split`]), joining another thread's
//! and searching its moves, serving as a helper, and running a search with its helpers
//! ([`with_helpers`]); and the one other way to use several threads, the same work on each
//! ([`on_every_thread`]: the solver's multi-PV root). These two are the only places that
//! start a search's threads. The split points themselves are the `split` module's.
//!
//! Everything is generic over the search (monomorphised, no dynamic calls), so each search's
//! node loop polls and splits as if it were written for it alone.

use std::sync::Arc;
use std::time::{Duration, Instant};

mod split_points;

use super::stop::{NodeCounts, StopCheck};
use crate::board::{Board, Square};
use crate::score::Value;
use split_points::{Place, Pool, Task};

/// Why a thread's search is unwinding, if it is: the caller's stop, or only the subtree it
/// works on. Ordered: a stronger reason is never replaced by a weaker one at a poll.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum StopReason {
    /// Searching.
    Running,
    /// A cutoff or a raised alpha at a split point above this thread's move: the subtree is
    /// not needed as it is searched, but the search goes on (the point decides what next).
    Abandoned,
    /// The search is stopping (the caller's stop check, or the quit flag of its split points).
    Stopped,
}

/// What each thread of a search keeps for itself, the same for both searches: its node
/// count and next poll, why it stopped, and where it stands among the split points. `C` is
/// the search's split point context, `V` the unit of its values.
pub(super) struct ThreadContext<C, V> {
    /// Nodes this thread has searched.
    pub(super) nodes: u64,
    /// The node count of the next look at the stop check.
    next_poll: u64,
    /// Nodes between two looks at the stop check.
    interval: u64,
    stop: StopReason,
    /// While several threads search one root: their split points.
    pool: Option<Arc<Pool<C, V>>>,
    /// This thread's index among those of the search (0: the one that leads it).
    thread: usize,
    /// The innermost split point this thread is searching under, or [`split_points::NONE`].
    current: usize,
    /// The alpha that this thread's move at `current` is searched on.
    task_alpha: V,
    /// How many split points this thread has open (the height of its stack in the pool).
    height: usize,
    /// Time spent waiting for helpers at this thread's split points (a debug log's figure).
    waited: Duration,
}

impl<C: Copy + Default, V: Value> ThreadContext<C, V> {
    /// A thread alone (no split points), polling every `interval` nodes.
    pub(super) fn new(interval: u64) -> ThreadContext<C, V> {
        ThreadContext {
            nodes: 0,
            next_poll: interval,
            interval,
            stop: StopReason::Running,
            pool: None,
            thread: 0,
            current: split_points::NONE,
            task_alpha: V::default(),
            height: 0,
            waited: Duration::ZERO,
        }
    }

    /// Restarts the node count (and the poll with it).
    pub(super) fn reset_nodes(&mut self) {
        self.nodes = 0;
        self.next_poll = self.interval;
    }

    /// Starts a search: running.
    pub(super) fn start(&mut self) {
        self.stop = StopReason::Running;
    }

    /// Whether the thread's search is unwinding (see [`StopReason`]): its values are then
    /// meaningless.
    #[inline]
    pub(super) fn stopped(&self) -> bool {
        self.stop != StopReason::Running
    }

    /// Marks the search as stopping (a stop check asked outside [`ThreadContext::poll`]).
    pub(super) fn set_stopped(&mut self) {
        self.stop = StopReason::Stopped;
    }

    /// Whether the search must stop now, checked every `interval` nodes: the stop check
    /// (counting `nested` nodes of searches this thread ran inside its own besides its
    /// own), which also stops every other thread of the search; in a parallel search also a
    /// cutoff or a raised alpha at a split point above this thread's subtree.
    #[inline]
    pub(super) fn poll(&mut self, stop: &StopCheck, nested: u64) -> bool {
        if self.nodes >= self.next_poll {
            self.next_poll = self.nodes + self.interval;
            if stop.should_stop(self.nodes + nested) {
                self.stop = StopReason::Stopped;
                if let Some(pool) = &self.pool {
                    pool.quit();
                }
            } else if self.current != split_points::NONE {
                let pool = self.pool.as_ref().expect("a split point has a pool");
                self.stop = self.stop.max(self.reason(pool));
            }
        }
        self.stopped()
    }

    /// Whether to share the rest of a node's moves: a parallel search, an idle thread to
    /// take them and room on this thread's stack of split points.
    #[inline]
    pub(super) fn may_split(&self) -> bool {
        self.pool
            .as_ref()
            .is_some_and(|pool| self.height < split_points::MAX_SPLITS && pool.has_idle())
    }

    /// How the work this thread is doing at `current` (on `task_alpha`) stands in `pool`.
    fn reason(&self, pool: &Pool<C, V>) -> StopReason {
        if pool.is_quitting() {
            StopReason::Stopped
        } else if pool.abandoned(self.current, self.task_alpha) {
            StopReason::Abandoned
        } else {
            StopReason::Running
        }
    }
}

/// What a search supplies for its threads to share its nodes: its thread context, and the
/// search of a position after a move of a split point.
pub(super) trait SplitSearch: Sized + Send {
    /// What a thread joining a split point needs besides the position and the window.
    type Context: Copy + Default + Send;
    /// The unit of the search's windows and values.
    type Value: Value + Send;
    /// The width of a null window.
    const UNIT: Self::Value;
    /// The search's name in debug logs.
    const NAME: &'static str;

    /// This thread's context.
    fn core(&mut self) -> &mut ThreadContext<Self::Context, Self::Value>;

    /// Nodes this thread counted in searches run inside its own (the stop check counts
    /// them too).
    fn nested_nodes(&self) -> u64;

    /// A searcher for a helper thread: the same tables and settings, its own state.
    fn helper(&self) -> Self;

    /// The value of `board`, the position after a move of a split point searched in
    /// `context`, for its side to move, fail-soft within `(alpha, beta)`; meaningless when
    /// the thread stopped meanwhile.
    fn search_child(
        &mut self,
        board: &mut Board,
        context: Self::Context,
        alpha: Self::Value,
        beta: Self::Value,
        stop: &StopCheck,
    ) -> Self::Value;
}

/// Searches `moves` (the moves of `board` left after the first, at least two) on several
/// threads: opens a split point in `context` with `window` and the `best` value and move so
/// far, takes moves from it like its helpers, then waits for them, helping at split points
/// opened below it. Returns the node's best value and move; the thread is stopped when the
/// search is stopping or a point above is abandoned (the value is then meaningless), not
/// when this point is cut off (its value is then a lower bound).
pub(super) fn split<S: SplitSearch>(
    search: &mut S,
    board: &mut Board,
    moves: &[Square],
    context: S::Context,
    window: (S::Value, S::Value),
    best: (S::Value, Option<Square>),
    stop: &StopCheck,
) -> (S::Value, Option<Square>) {
    let core = search.core();
    let pool = Arc::clone(core.pool.as_ref().expect("only a parallel search splits"));
    let place = Place {
        thread: core.thread,
        height: core.height,
        parent: core.current,
        parent_alpha: core.task_alpha,
    };
    let point = pool.open(place, board, context, window, best, moves);
    core.height += 1;
    if let Some(task) = pool.take(point) {
        work_at(search, &pool, point, board, task, context, stop);
    }
    if search.core().stopped() {
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
            help(search, &pool, below, point, stop);
            pool.set_idle(true);
            continue;
        }
        let nested = search.nested_nodes();
        let core = search.core();
        if core.thread == 0 && stop.should_stop(core.nodes + nested) {
            pool.quit();
        }
        let clock = Instant::now();
        pool.wait(seen);
        core.waited += clock.elapsed();
    }
    pool.set_idle(false);
    let core = search.core();
    core.height -= 1;
    let closed = pool.close(core.thread, point);
    core.stop = core.reason(&pool);
    (closed.best, closed.best_square)
}

/// Joins split point `point` of another thread (if it is still open under `below`, unless
/// that is [`split_points::NONE`]) and searches its moves until none is left; the values go to the
/// point, and an abandoned subtree leaves this thread running (unless the search is
/// stopping): the point's owner decides what it means.
fn help<S: SplitSearch>(
    search: &mut S,
    pool: &Pool<S::Context, S::Value>,
    point: usize,
    below: usize,
    stop: &StopCheck,
) {
    let Some(joined) = pool.join(point, below) else {
        return;
    };
    let mut board = joined.board;
    work_at(
        search,
        pool,
        point,
        &mut board,
        joined.task,
        joined.context,
        stop,
    );
    pool.leave(point);
    search.core().stop = if pool.is_quitting() {
        StopReason::Stopped
    } else {
        StopReason::Running
    };
}

/// Searches moves of split point `point`, whose position `board` is and whose context is
/// `context`, starting with `task`, and reports each value to the point, until it hands out
/// no more or this thread is stopped (by the search's stop or a cutoff at or above the
/// point). Each move is searched with a null window on its alpha, and again with the window
/// when it lands inside; a move abandoned because the point's alpha rose past its window is
/// searched again on the new alpha.
fn work_at<S: SplitSearch>(
    search: &mut S,
    pool: &Pool<S::Context, S::Value>,
    point: usize,
    board: &mut Board,
    mut task: Task<S::Value>,
    context: S::Context,
    stop: &StopCheck,
) {
    let core = search.core();
    let outer = (core.current, core.task_alpha);
    core.current = point;
    loop {
        let Task {
            square,
            alpha,
            beta,
        } = task;
        search.core().task_alpha = alpha;
        board.make_move(square);
        let probe = -search.search_child(board, context, -alpha - S::UNIT, -alpha, stop);
        let value = if probe > alpha && probe < beta && !search.core().stopped() {
            -search.search_child(board, context, -beta, -probe, stop)
        } else {
            probe
        };
        board.undo();
        if search.core().stopped() {
            // Only this point's alpha rose past the move's: search it again on the new one.
            let Some(alpha) = pool.retry_alpha(point, beta) else {
                break;
            };
            search.core().stop = StopReason::Running;
            task = Task { alpha, ..task };
            continue;
        }
        match pool.report(point, square, value) {
            Some(next) => task = next,
            None => break,
        }
    }
    let core = search.core();
    (core.current, core.task_alpha) = outer;
}

/// A helper's life: joins split points with moves left, until the search quits.
fn serve<S: SplitSearch>(search: &mut S, stop: &StopCheck) {
    let pool = Arc::clone(search.core().pool.as_ref().expect("a helper has a pool"));
    let started = Instant::now();
    let (mut working, mut joins) = (Duration::ZERO, 0u64);
    pool.serve(|point| {
        let clock = Instant::now();
        help(search, &pool, point, split_points::NONE, stop);
        working += clock.elapsed();
        joins += 1;
    });
    let nested = search.nested_nodes();
    let core = search.core();
    log::debug!(
        "{} helper {}: {joins} split points joined, working {:.3} s of {:.3} s, {} nodes \
         ({:.3} s waiting for its own helpers)",
        S::NAME,
        core.thread,
        working.as_secs_f64(),
        started.elapsed().as_secs_f64(),
        core.nodes + nested,
        core.waited.as_secs_f64()
    );
}

/// Runs `lead` on `leader` in this thread while `threads - 1` helpers (made by
/// [`SplitSearch::helper`]) serve its split points on threads of their own, each polling
/// `stop` as a helper (the pool's quit flag, its count in slot `i` of `counts`). The helpers
/// live as long as `lead` runs and are all joined before this returns, also when `lead`
/// panics. Returns `lead`'s result and the helpers' nodes, which are also their exact
/// counts in `counts`.
pub(super) fn with_helpers<S: SplitSearch, R>(
    leader: &mut S,
    threads: usize,
    stop: &StopCheck,
    counts: &NodeCounts,
    lead: impl FnOnce(&mut S) -> R,
) -> (R, u64) {
    let pool = Arc::new(Pool::new(threads));
    let mut helpers: Vec<S> = (1..threads)
        .map(|i| {
            let mut helper = leader.helper();
            let core = helper.core();
            (core.pool, core.thread) = (Some(Arc::clone(&pool)), i);
            helper
        })
        .collect();
    let before = leader.nested_nodes();
    let core = leader.core();
    (core.pool, core.thread) = (Some(Arc::clone(&pool)), 0);
    let before = before + core.nodes;
    let out = std::thread::scope(|scope| {
        for (i, helper) in helpers.iter_mut().enumerate() {
            let stop = stop.for_helper(pool.quit_flag()).with_counts(counts, i + 1);
            scope.spawn(move || serve(helper, &stop));
        }
        // The helpers quit when the lead is done, also by a panic (which the scope passes on).
        let _quit = Quit(&pool);
        lead(leader)
    });
    let nested = leader.nested_nodes();
    let core = leader.core();
    core.pool = None;
    let mut helper_nodes = 0;
    for (i, helper) in helpers.iter_mut().enumerate() {
        let nodes = helper.core().nodes + helper.nested_nodes();
        counts.set(i + 1, nodes);
        helper_nodes += nodes;
    }
    let core = leader.core();
    log::debug!(
        "parallel {}: {} nodes on the leading thread ({:.3} s waiting for helpers), \
         {helper_nodes} on {} helpers",
        S::NAME,
        core.nodes + nested - before,
        std::mem::take(&mut core.waited).as_secs_f64(),
        helpers.len()
    );
    (out, helper_nodes)
}

/// Runs `work` on `leader` in this thread and on `threads - 1` helpers (made by
/// [`SplitSearch::helper`]) on threads of their own, each thread with `stop` counting its own
/// nodes in its slot of `counts` (so a stop ends every thread at its next poll, and none
/// waits on another to pass it on). Returns every thread's result, the leader's first, and
/// the helpers' nodes; the helpers are joined before it returns.
pub(super) fn on_every_thread<S: SplitSearch, R: Send>(
    leader: &mut S,
    threads: usize,
    stop: &StopCheck,
    counts: &NodeCounts,
    work: impl Fn(&mut S, &StopCheck) -> R + Sync,
) -> (Vec<R>, u64) {
    let mut helpers: Vec<S> = (1..threads).map(|_| leader.helper()).collect();
    let work = &work;
    let results = std::thread::scope(|scope| {
        let handles: Vec<_> = helpers
            .iter_mut()
            .enumerate()
            .map(|(i, helper)| {
                let stop = stop.for_thread(counts, i + 1);
                scope.spawn(move || work(helper, &stop))
            })
            .collect();
        let mut results = vec![work(leader, &stop.with_counts(counts, 0))];
        results.extend(
            handles
                .into_iter()
                .map(|handle| handle.join().expect("a search thread panicked")),
        );
        results
    });
    let helper_nodes = helpers
        .iter_mut()
        .map(|helper| helper.core().nodes + helper.nested_nodes())
        .sum();
    (results, helper_nodes)
}

/// Raises the pool's quit flag when dropped.
struct Quit<'a, C: Copy + Default, V: Value>(&'a Pool<C, V>);

impl<C: Copy + Default, V: Value> Drop for Quit<'_, C, V> {
    fn drop(&mut self) {
        self.0.quit();
    }
}
