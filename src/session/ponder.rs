//! Pondering (`--ponder`): searching on the opponent's time.
//!
//! After the engine has decided a move, its search thread goes on to search the position
//! after that move and the reply it expects (the second move of its principal variation, or
//! the best move of a quick 4-ply search when the line is shorter). The search runs with the
//! level's depth and no deadline, and prints nothing. While the game stays on the way to that
//! position (the engine's own move played, the expected reply played) it keeps running; when
//! the engine is then asked for its move there, the same search goes on as the answer to the
//! request, with the request's time budget counted from the request
//! ([`tsuru_core::search::LiveBudget`]): nothing already searched is thrown away. Any other
//! position stops it; the transposition table keeps what it learnt either way.
//!
//! The session and the search thread share one [`PonderShared`]: the [`Phase`] behind a
//! mutex. The search thread delivers a decision and enters [`Phase::Pondering`] under that
//! lock, so a command read meanwhile (a `ping`) waits for the decision to be printed and
//! never sees the thread pondering before its answer is out. No code joins the search thread
//! while holding the lock.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use super::{Decision, DecisionListener};
use tsuru_core::board::{Board, Move};
use tsuru_core::search::{Level, LiveBudget, Search, SearchInfo, SearchLimits, TimeBudget};

/// The depth of the quick search that picks the expected reply when the principal variation
/// has none.
const REPLY_SEARCH_DEPTH: u32 = 4;

/// What pondering searches, and the positions on the way to it.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The position the engine decided its move in.
    pub decided_in: Board,
    /// After the engine's move.
    pub after_move: Board,
    /// After the expected reply: the position pondered.
    pub expected: Board,
    /// The level of the decision, and of the pondering search.
    pub level: Level,
    /// The time budget the engine expects for its next move (that of the move it decided):
    /// the pondering search decides with it whether to solve or deepen, as a timed search
    /// would.
    pub expected_budget: Option<TimeBudget>,
    /// The pondering search's budget, started when the engine is asked for its move in
    /// `expected`.
    pub live: Arc<LiveBudget>,
}

impl Plan {
    /// The plan after the engine chose `pv[0]` in `position` (`pv[1]`, if legal, being the
    /// reply it expects): `None` when there is nothing to ponder (the game ends on the way)
    /// or the search was stopped.
    pub fn after(
        search: &mut Search,
        position: &Board,
        pv: &[Move],
        (level, expected_budget): (Level, Option<TimeBudget>),
        stop: &AtomicBool,
    ) -> Option<Plan> {
        let mut after_move = position.without_history();
        after_move.play(*pv.first()?).ok()?;
        if after_move.is_game_over() {
            return None;
        }
        let reply = match pv.get(1) {
            Some(&reply) if after_move.is_legal(reply) => reply,
            _ if after_move.must_pass() => Move::Pass,
            _ => {
                let depth = Level::new(REPLY_SEARCH_DEPTH).expect("a valid level");
                let limits = SearchLimits::for_level(depth);
                let reply = search.iterate(&after_move, &limits, stop, &mut |_| {}).best;
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                reply
            }
        };
        let mut expected = after_move.clone();
        expected.play(reply).ok()?;
        if expected.is_game_over() {
            return None;
        }
        Some(Plan {
            decided_in: position.without_history(),
            after_move,
            expected,
            level,
            expected_budget,
            live: Arc::new(LiveBudget::new()),
        })
    }

    /// Whether `board` is on the way to the pondered position (or is it).
    pub fn leads_to_expected(&self, board: &Board) -> bool {
        *board == self.decided_in || *board == self.after_move || *board == self.expected
    }
}

/// A [`DecisionListener`] kept in a box until the pondering search it waits for ends.
pub trait BoxedListener: Send {
    /// [`DecisionListener::info`].
    fn info(&mut self, info: &SearchInfo);
    /// [`DecisionListener::decided`].
    fn decided_boxed(self: Box<Self>, decision: Decision);
}

impl<L: DecisionListener> BoxedListener for L {
    fn info(&mut self, info: &SearchInfo) {
        DecisionListener::info(self, info);
    }

    fn decided_boxed(self: Box<Self>, decision: Decision) {
        (*self).decided(decision);
    }
}

/// Where pondering stands.
pub enum Phase {
    /// The search thread is deciding a move for a request.
    Deciding,
    /// The search thread searches `plan.expected` on the opponent's time.
    Pondering(Plan),
    /// The engine was asked for its move in the pondered position: the pondering search goes
    /// on as the answer, which goes to `listener`; `asked` is when the request came.
    Adopted {
        listener: Box<dyn BoxedListener>,
        asked: Instant,
    },
    /// The pondering search reached its depth before the engine was asked: its result, for
    /// the request that comes in `plan.expected`.
    Finished(Plan, tsuru_core::search::SearchResult),
    /// Nothing to ponder, or pondering stopped.
    Done,
}

/// The phase, shared by the session and its search thread.
pub struct PonderShared {
    phase: Mutex<Phase>,
    /// The pondering search's last completed iteration, told to the listener that adopts it
    /// (a GUI then shows the line and value at once, not only after the next iteration).
    last_info: Mutex<Option<SearchInfo>>,
}

impl PonderShared {
    /// Shared state starting in `phase`.
    pub fn new(phase: Phase) -> Arc<PonderShared> {
        Arc::new(PonderShared {
            phase: Mutex::new(phase),
            last_info: Mutex::new(None),
        })
    }

    /// The phase, locked. Never join the search thread while holding it.
    pub fn lock(&self) -> MutexGuard<'_, Phase> {
        // A panic on the search thread ends the process (the worker's join panics), so a
        // poisoned lock only means that panic is on its way: take the state as it is.
        self.phase
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Passes an iteration's report to the listener of an adopted search; before that it
    /// is only kept (pondering prints nothing).
    fn report(&self, info: &SearchInfo) {
        match &mut *self.lock() {
            Phase::Adopted { listener, .. } => listener.info(info),
            _ => *self.last_info() = Some(info.clone()),
        }
    }

    /// The pondering search's last completed iteration, once (for a listener that takes
    /// its finished result).
    pub fn take_last_info(&self) -> Option<SearchInfo> {
        self.last_info().take()
    }

    fn last_info(&self) -> MutexGuard<'_, Option<SearchInfo>> {
        self.last_info
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Hands the pondering search to `listener` (under the phase's lock, held by the caller
    /// as `phase`): it hears the last completed iteration now and the next ones as they end.
    pub fn adopt(&self, phase: &mut Phase, mut listener: Box<dyn BoxedListener>, asked: Instant) {
        if let Some(info) = self.take_last_info() {
            listener.info(&info);
        }
        *phase = Phase::Adopted { listener, asked };
    }
}

/// The search thread's pondering: searches `plan.expected` until stopped, or until it ends
/// by itself; when the engine was asked for its move there meanwhile (adopted), delivers the
/// decision and ponders again after it.
pub fn ponder(search: &mut Search, stop: &AtomicBool, shared: &PonderShared, mut plan: Plan) {
    loop {
        let limits = SearchLimits {
            time: plan.expected_budget,
            ..SearchLimits::for_level(plan.level)
        };
        *shared.last_info() = None;
        let result = search.iterate_pondering(
            &plan.expected,
            &limits,
            Arc::clone(&plan.live),
            stop,
            &mut |info| shared.report(info),
        );
        let stopped = stop.load(Ordering::Relaxed);
        let adopted = matches!(&*shared.lock(), Phase::Adopted { .. });
        // The next plan before the lock is taken again: it may need a quick search.
        let next = if adopted && !stopped {
            let settings = (plan.level, plan.expected_budget);
            Plan::after(search, &plan.expected, &result.pv, settings, stop)
        } else {
            None
        };
        let mut phase = shared.lock();
        match std::mem::replace(&mut *phase, Phase::Done) {
            Phase::Adopted { listener, asked } => {
                listener.decided_boxed(Decision::Searched {
                    result,
                    elapsed: asked.elapsed(),
                });
                match next {
                    Some(next) if !stop.load(Ordering::Relaxed) => {
                        *phase = Phase::Pondering(next.clone());
                        plan = next;
                    }
                    _ => return,
                }
            }
            // Ended by itself: kept for the request that may come.
            Phase::Pondering(plan) if !stopped => {
                *phase = Phase::Finished(plan, result);
                return;
            }
            _ => return,
        }
    }
}
