//! Split points of the parallel searches (Young Brothers Wait): the shared state of a node
//! whose remaining moves several threads search at once. The endgame solver and the midgame
//! search use the same pool, each with its own *context*: what a thread joining a point needs
//! besides the position and the window to search the point's moves as its owner would (the
//! solver's selective pass; the midgame's remaining depth and ply).
//!
//! A thread that has searched the first move of a node alone (the eldest brother, whose
//! value sets the window of the others) and sees an idle thread *opens* a split point with
//! the node's position, window, best value so far and the moves left. Threads then *take*
//! moves from it one at a time, search each with a null window around the split point's
//! current alpha (re-searched when it lands inside the window), and *report* the value,
//! which raises the shared alpha and best value. A value at or above beta sets the point's
//! `cutoff` flag: no further move is handed out, and every thread searching below the point
//! abandons its subtree at its next poll ([`Pool::abandoned`] walks a thread's chain of
//! split points). A value that raises alpha makes the moves still searched on the old alpha
//! stale: their threads abandon them the same way and search them again on the new alpha
//! (with a null window, which the old search's table entries make cheaper), instead of
//! finishing a search whose window a brother has already passed. The owner (the thread that opened it) takes moves like any other; when
//! none is left it waits until the threads that joined have reported, helping meanwhile at
//! split points opened below its own (so that it never strays into work that could outlast
//! its own node), then closes the point and carries on with its value.
//!
//! Storage: every thread owns a stack of [`MAX_SPLITS`] points in one array allocated with
//! the pool, so opening a point allocates nothing. A point's fields change under its mutex
//! (held for a few instructions per move); the flags that threads read while searching
//! (`cutoff`, `parent`, `has_moves`) are atomics beside it. A point's slot is reused only
//! after it is closed, and it is closed only after every thread below it has left, so a
//! chain of parents always names live points.
//!
//! Waiting threads sleep on one condition variable, woken when a point opens, when a
//! point's last helper leaves, and when the search quits, with a 1 ms timeout as a safety
//! net (and so that the owner can poll the caller's stop check while it waits).

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use crate::board::{Board, Color, Square};
use crate::score::Value;

/// Split points one thread can have open at once (nested ones, each below the last): more
/// than the plies between any root and the split threshold.
pub(super) const MAX_SPLITS: usize = 64;

/// "No split point": a thread working under none, a point without a parent.
pub(super) const NONE: usize = usize::MAX;

/// Longest sleep of a waiting thread between looks at its condition.
const WAIT: Duration = Duration::from_millis(1);

/// The split points of the threads of one parallel solve and what idle threads wait on: `C`
/// is the searcher's context, `V` the unit of its windows and values ([`Discs`] for the
/// solver, [`Score`] for the midgame search).
///
/// [`Discs`]: crate::score::Discs
/// [`Score`]: crate::score::Score
pub(super) struct Pool<C, V> {
    /// Thread `t`'s stack is `points[t * MAX_SPLITS..][..MAX_SPLITS]`.
    points: Box<[SplitPoint<C, V>]>,
    /// How many points of each thread's stack are open.
    heights: Box<[AtomicUsize]>,
    /// Threads waiting for work (helpers between tasks, owners waiting for their helpers).
    idle: AtomicUsize,
    /// Raised when the search stops: every thread unwinds and the helpers return.
    quit: AtomicBool,
    /// Counts the events that waiting threads are woken for (see [`Pool::events`]).
    events: Mutex<u64>,
    wake: Condvar,
}

/// One node searched by several threads.
struct SplitPoint<C, V> {
    state: Mutex<State<C, V>>,
    /// A move reached beta: the point's remaining work is abandoned.
    cutoff: AtomicBool,
    /// Moves are left to take (a hint for threads looking for work; the lock decides).
    has_moves: AtomicBool,
    /// The point the owner was working under when it opened this one, or [`NONE`].
    parent: AtomicUsize,
    /// The alpha of the owner's move at `parent` when it opened this point (its
    /// [`Value::raw`] integer).
    parent_alpha: AtomicI32,
    /// The point's alpha (a copy of the state's as its [`Value::raw`] integer, for threads
    /// checking it while searching).
    alpha: AtomicI32,
}

/// The shared part of a split point.
#[derive(Clone, Copy)]
struct State<C, V> {
    black: u64,
    white: u64,
    side: Color,
    /// The searcher's context of the node (see the module doc).
    context: C,
    alpha: V,
    beta: V,
    best: V,
    best_square: Option<Square>,
    moves: [Square; 32],
    next: usize,
    len: usize,
    /// Threads other than the owner that are searching a move of the point.
    workers: usize,
}

/// A move handed to a thread: search `square` of the point's position within the point's
/// window as it stood when the move was taken.
#[derive(Clone, Copy, Debug)]
pub(super) struct Task<V> {
    pub square: Square,
    pub alpha: V,
    pub beta: V,
}

/// What a thread joining a point needs besides its first task: the position and the
/// searcher's context.
pub(super) struct Joined<C, V> {
    pub task: Task<V>,
    pub board: Board,
    pub context: C,
}

/// Where a point opens: on `thread`'s stack at `height` (its next free slot), under point
/// `parent` (or [`NONE`]), where the owner's move is searched on `parent_alpha`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Place<V> {
    pub thread: usize,
    pub height: usize,
    pub parent: usize,
    pub parent_alpha: V,
}

/// The result of a closed point.
pub(super) struct Closed<V> {
    pub best: V,
    pub best_square: Option<Square>,
}

impl<C: Copy + Default, V: Value> Pool<C, V> {
    /// A pool for `threads` threads, every point closed.
    pub(super) fn new(threads: usize) -> Pool<C, V> {
        let state = State {
            black: 0,
            white: 0,
            side: Color::Black,
            context: C::default(),
            alpha: V::default(),
            beta: V::default(),
            best: V::default(),
            best_square: None,
            moves: [Square::ALL[0]; 32],
            next: 0,
            len: 0,
            workers: 0,
        };
        Pool {
            points: (0..threads * MAX_SPLITS)
                .map(|_| SplitPoint {
                    state: Mutex::new(state),
                    cutoff: AtomicBool::new(false),
                    has_moves: AtomicBool::new(false),
                    parent: AtomicUsize::new(NONE),
                    parent_alpha: AtomicI32::new(0),
                    alpha: AtomicI32::new(0),
                })
                .collect(),
            heights: (0..threads).map(|_| AtomicUsize::new(0)).collect(),
            idle: AtomicUsize::new(0),
            quit: AtomicBool::new(false),
            events: Mutex::new(0),
            wake: Condvar::new(),
        }
    }

    /// The flag raised when the search stops (helpers' stop checks watch it).
    pub(super) fn quit_flag(&self) -> &AtomicBool {
        &self.quit
    }

    /// Stops every thread of the search.
    pub(super) fn quit(&self) {
        self.quit.store(true, Ordering::Relaxed);
        self.notify();
    }

    /// Whether the search is stopping.
    #[inline]
    pub(super) fn is_quitting(&self) -> bool {
        self.quit.load(Ordering::Relaxed)
    }

    /// Whether a thread is waiting for work: worth opening a split point for.
    #[inline]
    pub(super) fn has_idle(&self) -> bool {
        self.idle.load(Ordering::Relaxed) > 0
    }

    /// Counts the caller as waiting for work (`true`) or back at work (`false`).
    pub(super) fn set_idle(&self, idle: bool) {
        if idle {
            self.idle.fetch_add(1, Ordering::Relaxed);
        } else {
            self.idle.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Opens a split point at `place` at `board`, searched in `context`, whose moves left to
    /// search are `moves` (at least one); returns its index.
    pub(super) fn open(
        &self,
        Place {
            thread,
            height,
            parent,
            parent_alpha,
        }: Place<V>,
        board: &Board,
        context: C,
        (alpha, beta): (V, V),
        (best, best_square): (V, Option<Square>),
        moves: &[Square],
    ) -> usize {
        let index = thread * MAX_SPLITS + height;
        let point = &self.points[index];
        {
            let mut state = lock(&point.state);
            let mut list = [Square::ALL[0]; 32];
            list[..moves.len()].copy_from_slice(moves);
            *state = State {
                black: board.discs(Color::Black),
                white: board.discs(Color::White),
                side: board.side_to_move(),
                context,
                alpha,
                beta,
                best,
                best_square,
                moves: list,
                next: 0,
                len: moves.len(),
                workers: 0,
            };
            point.cutoff.store(false, Ordering::Relaxed);
            point.parent.store(parent, Ordering::Relaxed);
            point
                .parent_alpha
                .store(parent_alpha.raw(), Ordering::Relaxed);
            point.alpha.store(alpha.raw(), Ordering::Relaxed);
            point.has_moves.store(true, Ordering::Relaxed);
        }
        // Published after the point is complete: a scanner that sees the height sees the
        // point (and the lock orders its fields).
        self.heights[thread].store(height + 1, Ordering::Release);
        self.notify();
        index
    }

    /// The next move of `point` for its owner, or `None` when none is left.
    pub(super) fn take(&self, point: usize) -> Option<Task<V>> {
        let mut state = lock(&self.points[point].state);
        self.next_task(point, &mut state)
    }

    /// Joins `point` as a helper: its position, context and a first move; `None` (and the
    /// caller is not counted) when no move is left, or when `below` is not [`NONE`] and the
    /// point (its slot reused since it was found) is no longer under `below`.
    pub(super) fn join(&self, point: usize, below: usize) -> Option<Joined<C, V>> {
        let mut state = lock(&self.points[point].state);
        if below != NONE && !self.is_under(point, below) {
            return None;
        }
        let task = self.next_task(point, &mut state)?;
        state.workers += 1;
        let board = Board::from_discs(state.black, state.white, state.side)
            .expect("a split point holds a valid position");
        Some(Joined {
            task,
            board,
            context: state.context,
        })
    }

    /// Records the value of `square`, a move of `point`, and hands out the next move unless
    /// none is left or the point is cut off.
    pub(super) fn report(&self, point: usize, square: Square, value: V) -> Option<Task<V>> {
        let mut state = lock(&self.points[point].state);
        if value > state.best {
            state.best = value;
            state.best_square = Some(square);
            if value > state.alpha {
                state.alpha = value;
                self.points[point]
                    .alpha
                    .store(value.raw(), Ordering::Relaxed);
                if value >= state.beta {
                    self.points[point].cutoff.store(true, Ordering::Relaxed);
                }
            }
        }
        self.next_task(point, &mut state)
    }

    /// A helper leaves `point`; the last one wakes the owner.
    pub(super) fn leave(&self, point: usize) {
        let last = {
            let mut state = lock(&self.points[point].state);
            state.workers -= 1;
            state.workers == 0
        };
        if last {
            self.notify();
        }
    }

    /// Whether a helper is still searching a move of `point`.
    pub(super) fn has_workers(&self, point: usize) -> bool {
        lock(&self.points[point].state).workers > 0
    }

    /// Hands out no more moves of `point` (its owner is abandoning it).
    pub(super) fn drain(&self, point: usize) {
        let mut state = lock(&self.points[point].state);
        state.next = state.len;
        self.points[point].has_moves.store(false, Ordering::Relaxed);
    }

    /// Closes `point`, the top of `thread`'s stack, once no helper is left in it: its best
    /// value and move. No thread can join it afterwards, even with moves left untaken (an
    /// abandoned point), so its slot can be reused.
    pub(super) fn close(&self, thread: usize, point: usize) -> Closed<V> {
        let height = point - thread * MAX_SPLITS;
        let mut state = lock(&self.points[point].state);
        debug_assert_eq!(state.workers, 0);
        state.next = state.len;
        self.points[point].has_moves.store(false, Ordering::Relaxed);
        self.heights[thread].store(height, Ordering::Release);
        Closed {
            best: state.best,
            best_square: state.best_square,
        }
    }

    /// Whether a move of `point` searched on `alpha` is no longer needed as it is searched:
    /// the search quits, `point` or a point above it is cut off, or the alpha of `point` (or
    /// of a point above, for the move there that this one is below) has risen past the one
    /// the move is searched on.
    #[inline]
    pub(super) fn abandoned(&self, point: usize, alpha: V) -> bool {
        self.abandoned_raw(point, alpha.raw())
    }

    /// [`Pool::abandoned`] on the bare integer of `alpha`, as the points keep their alphas.
    #[inline]
    fn abandoned_raw(&self, mut point: usize, mut alpha: i32) -> bool {
        if self.is_quitting() {
            return true;
        }
        while point != NONE {
            let p = &self.points[point];
            if p.cutoff.load(Ordering::Relaxed) || p.alpha.load(Ordering::Relaxed) > alpha {
                return true;
            }
            alpha = p.parent_alpha.load(Ordering::Relaxed);
            point = p.parent.load(Ordering::Relaxed);
        }
        false
    }

    /// Whether the work above `point` is abandoned (see [`Pool::abandoned`]): the move at
    /// its parent that it is below, or anything above that.
    pub(super) fn abandoned_above(&self, point: usize) -> bool {
        let p = &self.points[point];
        self.abandoned_raw(
            p.parent.load(Ordering::Relaxed),
            p.parent_alpha.load(Ordering::Relaxed),
        )
    }

    /// After a thread's move at `point`, searched on a window up to `beta`, was stopped: the
    /// point's alpha to search the move again on, when only that alpha rose past the move's;
    /// `None` when the move is not worth finishing (the search quits, the point or the work
    /// above it is abandoned, or the point's alpha has reached `beta`).
    pub(super) fn retry_alpha(&self, point: usize, beta: V) -> Option<V> {
        if self.is_quitting() || self.is_cut(point) || self.abandoned_above(point) {
            return None;
        }
        let alpha = self.alpha(point);
        (alpha < beta).then_some(alpha)
    }

    /// A helper thread's life: hands every open point with moves left to `help` (which
    /// joins it), waiting between them, until the search quits.
    pub(super) fn serve(&self, mut help: impl FnMut(usize)) {
        self.set_idle(true);
        loop {
            let seen = self.events();
            if self.is_quitting() {
                break;
            }
            if let Some(point) = self.find_work(NONE) {
                self.set_idle(false);
                help(point);
                self.set_idle(true);
                continue;
            }
            self.wait(seen);
        }
        self.set_idle(false);
    }

    /// Whether `point` is cut off.
    pub(super) fn is_cut(&self, point: usize) -> bool {
        self.points[point].cutoff.load(Ordering::Relaxed)
    }

    /// The current alpha of `point`.
    pub(super) fn alpha(&self, point: usize) -> V {
        lock(&self.points[point].state).alpha
    }

    /// An open point with moves left to take, the shallowest first (the most work per
    /// move); with `below` other than [`NONE`], only a point opened under `below`.
    pub(super) fn find_work(&self, below: usize) -> Option<usize> {
        let mut found: Option<(usize, usize)> = None;
        for (thread, height) in self.heights.iter().enumerate() {
            let height = height.load(Ordering::Acquire);
            for level in 0..height {
                let index = thread * MAX_SPLITS + level;
                let point = &self.points[index];
                if !point.has_moves.load(Ordering::Relaxed)
                    || point.cutoff.load(Ordering::Relaxed)
                    || found.is_some_and(|(_, depth)| depth <= level)
                {
                    continue;
                }
                if below == NONE || self.is_under(index, below) {
                    found = Some((index, level));
                    break;
                }
            }
        }
        found.map(|(index, _)| index)
    }

    /// Whether `point` was opened under `ancestor` (directly or further down).
    fn is_under(&self, point: usize, ancestor: usize) -> bool {
        let mut p = self.points[point].parent.load(Ordering::Relaxed);
        while p != NONE {
            if p == ancestor {
                return true;
            }
            p = self.points[p].parent.load(Ordering::Relaxed);
        }
        false
    }

    /// The event count, read before a waiting thread looks at its condition (then
    /// [`Pool::wait`] with it misses no event).
    pub(super) fn events(&self) -> u64 {
        *lock(&self.events)
    }

    /// Sleeps until an event after `seen` (or [`WAIT`]).
    pub(super) fn wait(&self, seen: u64) {
        let events = lock(&self.events);
        if *events == seen {
            let _ = self
                .wake
                .wait_timeout(events, WAIT)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    fn notify(&self) {
        *lock(&self.events) += 1;
        self.wake.notify_all();
    }

    fn next_task(&self, point: usize, state: &mut MutexGuard<State<C, V>>) -> Option<Task<V>> {
        let point = &self.points[point];
        if state.next >= state.len || point.cutoff.load(Ordering::Relaxed) {
            point.has_moves.store(false, Ordering::Relaxed);
            return None;
        }
        let square = state.moves[state.next];
        state.next += 1;
        if state.next == state.len {
            point.has_moves.store(false, Ordering::Relaxed);
        }
        Some(Task {
            square,
            alpha: state.alpha,
            beta: state.beta,
        })
    }
}

/// Locks `mutex`; a thread that panicked while holding it left consistent data (every
/// update is a few plain stores), and its panic reaches the caller through the join.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::Discs;

    /// Whole discs, the solver's unit.
    fn d(discs: i32) -> Discs {
        Discs::new(discs)
    }

    /// Thread `thread`'s point at `height`, under `parent` on `parent_alpha`.
    fn place(thread: usize, height: usize, parent: usize, parent_alpha: Discs) -> Place<Discs> {
        Place {
            thread,
            height,
            parent,
            parent_alpha,
        }
    }

    fn squares(names: &[&str]) -> Vec<Square> {
        names.iter().map(|n| n.parse().unwrap()).collect()
    }

    #[test]
    fn moves_are_handed_out_once_and_a_cutoff_stops_them() {
        let pool = Pool::<Option<usize>, Discs>::new(2);
        let board = Board::start();
        let moves = squares(&["d3", "c4", "f5", "e6"]);
        let point = pool.open(
            place(0, 0, NONE, d(0)),
            &board,
            None,
            (d(-4), d(10)),
            (d(-4), None),
            &moves,
        );
        assert_eq!(pool.find_work(NONE), Some(point));
        let first = pool.take(point).unwrap();
        assert_eq!(
            (first.square, first.alpha, first.beta),
            (moves[0], d(-4), d(10))
        );
        let joined = pool.join(point, NONE).unwrap();
        assert_eq!(joined.task.square, moves[1]);
        assert_eq!(joined.board, board);
        assert!(pool.has_workers(point));
        // A better value raises alpha for the next move handed out.
        let next = pool.report(point, moves[0], d(2)).unwrap();
        assert_eq!((next.square, next.alpha), (moves[2], d(2)));
        assert_eq!(pool.alpha(point), d(2));
        // A value at beta cuts the point off: no more moves, and the work below is abandoned.
        assert!(pool.report(point, moves[1], d(12)).is_none());
        assert!(pool.is_cut(point) && pool.abandoned(point, d(2)));
        assert_eq!(pool.find_work(NONE), None);
        pool.leave(point);
        assert!(!pool.has_workers(point));
        let closed = pool.close(0, point);
        assert_eq!((closed.best, closed.best_square), (d(12), Some(moves[1])));
    }

    #[test]
    fn a_raised_alpha_abandons_the_moves_searched_below_on_the_old_one() {
        let pool = Pool::<Option<usize>, Discs>::new(2);
        let board = Board::start();
        let moves = squares(&["d3", "c4", "f5", "e6"]);
        let top = pool.open(
            place(0, 0, NONE, d(0)),
            &board,
            None,
            (d(0), d(20)),
            (d(0), None),
            &moves,
        );
        let task = pool.take(top).unwrap();
        // Thread 0 opens a point below its move at `top`, searched on alpha 0.
        let below = pool.open(
            place(0, 1, top, task.alpha),
            &board,
            None,
            (d(-20), d(0)),
            (d(-20), None),
            &moves,
        );
        assert!(!pool.abandoned(below, d(-20)) && !pool.abandoned_above(below));
        // Thread 1 joins below (allowed: it is under `top`) and works there.
        assert!(pool.join(below, top).is_some());
        // Another move at `top` raises its alpha past 0: everything under thread 0's move
        // there is stale, but `top` itself is not cut off.
        let other = pool.take(top).unwrap();
        assert!(pool.report(top, other.square, d(5)).is_some());
        assert!(pool.abandoned(below, d(-20)) && pool.abandoned_above(below));
        assert!(!pool.is_cut(top) && pool.abandoned(top, d(0)) && !pool.abandoned(top, d(5)));
        // The owner drains its abandoned point: nobody joins it any more.
        pool.drain(below);
        assert!(pool.join(below, NONE).is_none());
        pool.leave(below);
        pool.close(0, below);
        // A closed point's slot is not joinable, even with moves it never handed out; `top`
        // still has its last move.
        assert_eq!(pool.find_work(NONE), Some(top));
        assert!(pool.join(below, NONE).is_none());
    }

    #[test]
    fn quitting_abandons_everything() {
        let pool = Pool::<Option<usize>, Discs>::new(1);
        let moves = squares(&["d3", "c4"]);
        let point = pool.open(
            place(0, 0, NONE, d(0)),
            &Board::start(),
            None,
            (d(0), d(1)),
            (d(0), None),
            &moves,
        );
        assert!(!pool.abandoned(point, d(0)) && !pool.abandoned(NONE, d(0)));
        pool.quit();
        assert!(pool.is_quitting() && pool.abandoned(point, d(0)) && pool.abandoned(NONE, d(0)));
    }
}
