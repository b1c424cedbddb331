//! Time: the one clock type every protocol fills, and the time manager that turns a clock into
//! deadlines for one search.
//!
//! Front ends copy what the GUI or referee said into a [`Clock`] verbatim (converting numbers
//! with [`saturating_seconds`], which never panics), and [`TimeBudget::for_clock`] decides how
//! much of it one move may use. A [`TimeBudget`] has a **soft** deadline (no new iteration
//! starts after it) and a **hard** one (the search aborts and returns its last completed
//! iteration). Budgets keep a safety margin so that the engine, its output and the GUI's
//! bookkeeping never overrun the clock, and every budget satisfies
//! `soft <= hard <= time available for the move`.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The longest time any clock value is taken to mean (about 31 years): larger values, however
/// written (`1e300`, `18446744073709551616`, `TI[213503982334601.00:00:00]`), are clamped to
/// it, so no deadline arithmetic can overflow.
pub const MAX_CLOCK: Duration = Duration::from_secs(1_000_000_000);

/// Time kept in reserve on every clock: process start-up, output, pipe latency.
pub const SAFETY_MARGIN: Duration = Duration::from_millis(300);

/// Seconds as a GUI wrote them, as a duration: negative and NaN mean none left (zero),
/// anything above [`MAX_CLOCK`] (infinity included) is [`MAX_CLOCK`]. Never panics.
pub fn saturating_seconds(seconds: f64) -> Duration {
    if seconds.is_nan() || seconds <= 0.0 {
        Duration::ZERO
    } else if seconds >= MAX_CLOCK.as_secs_f64() {
        MAX_CLOCK
    } else {
        Duration::from_secs_f64(seconds)
    }
}

/// What the GUI or referee says about the mover's time, filled in verbatim by a front end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Clock {
    /// No time limit: the level alone bounds the search.
    Unlimited,
    /// A fixed time for this move (`--move-time`, a referee's per-move limit).
    PerMove(Duration),
    /// `left` for the rest of the game, `increment` added after each move (sudden death when
    /// the increment is zero; NBoard's and GGF's clocks).
    SuddenDeath {
        /// Time left on the mover's clock.
        left: Duration,
        /// Time added after each of the mover's moves.
        increment: Duration,
    },
    /// Main time left, then byo-yomi periods of `period` for every `stones` moves (GTP's
    /// `time_settings` while still in main time).
    ByoYomi {
        /// Main time left.
        main_left: Duration,
        /// Length of one byo-yomi period.
        period: Duration,
        /// Moves to play within one period (at least 1).
        stones: u32,
    },
    /// `left` for the next `moves` moves (GTP's `time_left` inside a byo-yomi period, or a
    /// tournament's moves-to-go control).
    MovesToGo {
        /// Time left for those moves.
        left: Duration,
        /// Moves still to play within it (at least 1).
        moves: u32,
    },
}

/// A time budget given to a search after it started: a pondering search runs with no
/// deadline until the engine is asked for its move in the position it ponders, and then has
/// the budget of that request, counted from the request ([`LiveBudget::start`]).
#[derive(Debug, Default)]
pub struct LiveBudget {
    /// Unset: no deadline yet. Set: since when, and the budget (`None`: no time limit).
    started: OnceLock<(Instant, Option<TimeBudget>)>,
}

impl LiveBudget {
    /// A budget not yet started: the search runs without a deadline.
    pub fn new() -> LiveBudget {
        LiveBudget::default()
    }

    /// Starts the clock: from now on the search has `budget` (`None`: none), counted from
    /// now. Only the first call counts; later ones are ignored.
    pub fn start(&self, budget: Option<TimeBudget>) {
        let _ = self.started.set((Instant::now(), budget));
    }

    /// Since when and which budget, once started with a time limit.
    pub fn budget(&self) -> Option<(Instant, TimeBudget)> {
        self.started
            .get()
            .and_then(|&(since, budget)| budget.map(|budget| (since, budget)))
    }

    /// The hard deadline, once started with a time limit.
    pub fn hard_deadline(&self) -> Option<Instant> {
        self.budget().map(|(since, budget)| since + budget.hard)
    }
}

/// Empty squares from which a game on a clock is planned to be settled by the endgame
/// solver's passes: the midgame moves leave [`SOLVE_PHASE_SHARES`] shares for the positions
/// from here on.
pub const SOLVE_PHASE_EMPTIES: u32 = 26;

/// The time a clock keeps for the solve phase, in midgame moves' shares: enough for a solve
/// from about 24 empty squares (1 to 3 s on the development machine in match games, where
/// a 1 s limit leaves the exact pass and often a selective one unfinished).
pub const SOLVE_PHASE_SHARES: f64 = 6.0;

/// Deadlines for one search, measured from its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    /// No new iteration starts after this.
    pub soft: Duration,
    /// The search stops at this point whatever it is doing.
    pub hard: Duration,
    /// Time not spent is kept for later moves (a game clock, not a time per move): then no
    /// midgame iteration starts that is not expected to end before `hard`
    /// ([`TimeBudget::expects_to_finish`]), since an unfinished iteration is time thrown away.
    pub banked: bool,
}

impl TimeBudget {
    /// The time manager: the budget for one move under `clock` with `empties` squares left,
    /// or `None` when the clock sets no limit. Always `soft <= hard <= ` the time the clock
    /// has for this move.
    pub fn for_clock(clock: &Clock, empties: u32) -> Option<TimeBudget> {
        match *clock {
            Clock::Unlimited => None,
            Clock::PerMove(time) => Some(TimeBudget::per_move(time)),
            Clock::SuddenDeath { left, increment } => {
                Some(TimeBudget::from_clock(left, increment, empties))
            }
            Clock::ByoYomi {
                main_left,
                period,
                stones,
            } => Some(if main_left.is_zero() {
                TimeBudget::share_of(period, stones)
            } else {
                TimeBudget::from_clock(main_left, Duration::ZERO, empties)
            }),
            Clock::MovesToGo { left, moves } => Some(TimeBudget::share_of(left, moves)),
        }
    }

    /// A fixed time per move: aborts at `time`, starts no iteration after 60% of it (an
    /// iteration usually costs more than all earlier ones together).
    pub fn per_move(time: Duration) -> TimeBudget {
        let hard = time.min(MAX_CLOCK);
        TimeBudget {
            soft: hard.mul_f64(0.6),
            hard,
            banked: false,
        }
    }

    /// Whether a midgame iteration started `elapsed` into the search, after one that took
    /// `last`, is expected to end before the hard deadline: an iteration two plies deeper
    /// costs about twice the one before it (1.5 to 3 times in match games, with the table
    /// and Multi-ProbCut). Always true for a time per move, which has no later use for the
    /// time.
    pub fn expects_to_finish(&self, elapsed: Duration, last: Duration) -> bool {
        !self.banked || elapsed.saturating_add(last.saturating_mul(2)) <= self.hard
    }

    /// Whether this budget leaves time for an endgame solve from `empties` empty squares:
    /// its first selective pass is expected within half the hard limit
    /// ([`first_pass_time`]). A solve that cannot get that far spends the whole budget
    /// and leaves only the shallow midgame result that preceded it, so a timed search
    /// beyond that deepens the midgame search instead.
    pub fn affords_solve(&self, empties: u32) -> bool {
        first_pass_time(empties).saturating_mul(2) <= self.hard
    }

    /// An even share of `left` for each of `moves` moves, less 10% and 0.2 s for latency,
    /// but at least 10 ms when the share has that much.
    fn share_of(left: Duration, moves: u32) -> TimeBudget {
        let share = left.min(MAX_CLOCK) / moves.max(1);
        let planned = share
            .mul_f64(0.9)
            .saturating_sub(Duration::from_millis(200))
            .max(Duration::from_millis(10));
        TimeBudget {
            // The period's time not spent on this move goes to its next ones.
            banked: moves > 1,
            ..TimeBudget::per_move(planned.min(share))
        }
    }

    /// A budget from the time left on the mover's clock, the increment it gets per move, and
    /// the empty squares left (the mover still plays about half of them).
    ///
    /// Before the solve phase ([`SOLVE_PHASE_EMPTIES`]) each of the mover's midgame moves
    /// left is planned an even share of the usable time, with [`SOLVE_PHASE_SHARES`] shares
    /// kept for the solve phase; a move may take 1.25 times its share (iterations end
    /// unevenly) but never more than half of what is left. In the solve phase the first
    /// position the solver settles makes the rest of the game quick, so a move may take a
    /// quarter of what is left at 26 empty squares, 40 % at 25 and 60 % from 24 on.
    pub fn from_clock(time_left: Duration, increment: Duration, empties: u32) -> TimeBudget {
        let time_left = time_left.min(MAX_CLOCK);
        let increment = increment.min(MAX_CLOCK);
        let usable = time_left
            .saturating_sub(SAFETY_MARGIN)
            .saturating_sub(time_left / 20);
        let from_increment = increment.as_secs_f64() * 0.8;
        let (planned, most) = if empties > SOLVE_PHASE_EMPTIES {
            let midgame_moves = (empties - SOLVE_PHASE_EMPTIES).div_ceil(2).min(30) as f64;
            let share = usable.as_secs_f64() / (midgame_moves + SOLVE_PHASE_SHARES);
            (1.25 * (share + from_increment), 0.5)
        } else {
            let most = match empties {
                26 => 0.25,
                25 => 0.4,
                _ => 0.6,
            };
            (usable.as_secs_f64() * most + from_increment, most)
        };
        let hard = saturating_seconds(planned).min(usable.mul_f64(most));
        let soft = hard.mul_f64(0.6);
        // A move must still be found with (almost) nothing left: a millisecond, unless even
        // that is more than the clock has.
        let minimum = Duration::from_millis(1).min(time_left);
        TimeBudget {
            soft: soft.max(minimum),
            hard: hard.max(minimum),
            banked: true,
        }
    }
}

/// The expected time (median) the endgame solver takes for its first selective pass
/// (73 %) from a position of `empties` empty squares, after the short midgame search before
/// it: about 0.3 s at 24 empties on the 2-core development machine, 1.8 times more per
/// empty square (fitted to 49 positions of 21 to 30 empties from match games; the
/// measurement is in docs/results.md). A faster machine only solves a little later than it
/// could.
pub fn first_pass_time(empties: u32) -> Duration {
    saturating_seconds(0.3 * 1.8f64.powi(empties as i32 - 24))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seconds values at the edges, as a GUI might send them.
    const EDGES: [f64; 12] = [
        0.0,
        -0.0,
        1e-9,
        0.001,
        1.0,
        300.0,
        -5.0,
        1e300,
        -1e300,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];

    /// Every clock kind built from one edge value in every field.
    fn clocks(seconds: f64) -> Vec<Clock> {
        let d = saturating_seconds(seconds);
        vec![
            Clock::Unlimited,
            Clock::PerMove(d),
            Clock::SuddenDeath {
                left: d,
                increment: Duration::ZERO,
            },
            Clock::SuddenDeath {
                left: d,
                increment: d,
            },
            Clock::ByoYomi {
                main_left: d,
                period: d,
                stones: 0,
            },
            Clock::ByoYomi {
                main_left: Duration::ZERO,
                period: d,
                stones: 25,
            },
            Clock::MovesToGo { left: d, moves: 0 },
            Clock::MovesToGo {
                left: d,
                moves: u32::MAX,
            },
        ]
    }

    /// The most the clock has for one move.
    fn available(clock: &Clock) -> Duration {
        match *clock {
            Clock::Unlimited => Duration::MAX,
            Clock::PerMove(time) => time,
            Clock::SuddenDeath { left, increment } => left + increment,
            Clock::ByoYomi {
                main_left, period, ..
            } => main_left.max(period),
            Clock::MovesToGo { left, .. } => left,
        }
    }

    #[test]
    fn saturating_seconds_clamps_every_edge() {
        assert_eq!(saturating_seconds(f64::NAN), Duration::ZERO);
        assert_eq!(saturating_seconds(-1e300), Duration::ZERO);
        assert_eq!(saturating_seconds(-0.5), Duration::ZERO);
        assert_eq!(saturating_seconds(0.0), Duration::ZERO);
        assert_eq!(saturating_seconds(2.5), Duration::from_millis(2500));
        assert_eq!(saturating_seconds(1e300), MAX_CLOCK);
        assert_eq!(saturating_seconds(f64::INFINITY), MAX_CLOCK);
        assert_eq!(saturating_seconds(18446744073709551616.0), MAX_CLOCK);
    }

    #[test]
    fn every_clock_kind_at_the_edges_gives_ordered_budgets_within_the_time() {
        for seconds in EDGES {
            for clock in clocks(seconds) {
                for empties in [0, 1, 20, 60, u32::MAX] {
                    let Some(budget) = TimeBudget::for_clock(&clock, empties) else {
                        assert_eq!(clock, Clock::Unlimited);
                        continue;
                    };
                    assert!(
                        budget.soft <= budget.hard,
                        "{clock:?} {empties}: {budget:?}"
                    );
                    assert!(
                        budget.hard <= available(&clock),
                        "{clock:?} {empties}: {budget:?}"
                    );
                    assert!(budget.hard <= MAX_CLOCK);
                }
            }
        }
    }

    #[test]
    fn a_solve_is_started_only_when_its_first_pass_fits_in_half_the_hard_limit() {
        // 0.3 s at 24 empties, 1.8 times more an empty square.
        assert_eq!(first_pass_time(24), Duration::from_millis(300));
        assert_eq!(first_pass_time(26), Duration::from_millis(972));
        let second = TimeBudget::per_move(Duration::from_secs(1));
        assert!(second.affords_solve(24)); // 0.3 s <= 0.5 s
        assert!(!second.affords_solve(25)); // 0.54 s > 0.5 s
        let tenth = TimeBudget::per_move(Duration::from_millis(100));
        assert!(tenth.affords_solve(20)); // 0.029 s <= 0.05 s
        assert!(!tenth.affords_solve(21)); // 0.051 s > 0.05 s
        let ten = TimeBudget::per_move(Duration::from_secs(10));
        assert!(ten.affords_solve(28) && !ten.affords_solve(29));
        assert!(!TimeBudget::per_move(Duration::ZERO).affords_solve(10));
    }

    #[test]
    fn per_move_budget() {
        let budget = TimeBudget::per_move(Duration::from_secs(2));
        assert_eq!(budget.hard, Duration::from_secs(2));
        assert_eq!(budget.soft, Duration::from_millis(1200));
    }

    #[test]
    fn byo_yomi_shares_its_period_once_main_time_is_over() {
        let clock = Clock::ByoYomi {
            main_left: Duration::ZERO,
            period: Duration::from_secs(50),
            stones: 10,
        };
        // 5 s a stone, less 10% and 0.2 s.
        let budget = TimeBudget::for_clock(&clock, 30).unwrap();
        assert_eq!(budget.hard, Duration::from_millis(4300));
        let in_period = Clock::MovesToGo {
            left: Duration::from_secs(10),
            moves: 5,
        };
        assert_eq!(
            TimeBudget::for_clock(&in_period, 30).unwrap().hard,
            Duration::from_millis(1600)
        );
        // Tiny shares keep 10 ms, unless the share itself is smaller.
        let tiny = Clock::MovesToGo {
            left: Duration::from_millis(5),
            moves: 1,
        };
        assert_eq!(
            TimeBudget::for_clock(&tiny, 30).unwrap().hard,
            Duration::from_millis(5)
        );
    }

    #[test]
    fn clock_budgets_take_at_most_half_the_clock_before_the_solve_phase() {
        for secs in [0.1, 1.0, 10.0, 300.0, 3600.0] {
            for empties in [1, 10, 20, 24, 25, 26, 27, 40, 60] {
                let left = Duration::from_secs_f64(secs);
                let budget = TimeBudget::from_clock(left, Duration::ZERO, empties);
                let most = if empties > SOLVE_PHASE_EMPTIES {
                    left / 2
                } else {
                    left.mul_f64(0.6)
                };
                assert!(
                    budget.hard <= most || budget.hard <= Duration::from_millis(1),
                    "{secs} {empties} {budget:?}"
                );
                assert!(budget.soft <= budget.hard);
                assert!(budget.hard > Duration::ZERO);
                assert!(budget.banked);
            }
        }
    }

    #[test]
    fn a_clock_keeps_time_for_the_solve_phase() {
        // A 13.5 s game from 52 empties in which every move takes 80 % of its hard limit
        // (what a search stopped by the iteration rule spends, about): the midgame moves get
        // even shares, and the first move of the solve phase that can start a solve (24
        // empties) gets more than twice any of them.
        let mut left = Duration::from_millis(13_500);
        let mut midgame = Vec::new();
        let mut at_24 = Duration::ZERO;
        for empties in (18..=52).rev().step_by(2) {
            let budget = TimeBudget::from_clock(left, Duration::ZERO, empties);
            if empties > SOLVE_PHASE_EMPTIES {
                midgame.push(budget.hard);
            } else if empties == 24 {
                at_24 = budget.hard;
            }
            left -= budget.hard.mul_f64(0.8);
        }
        let (least, most) = (midgame.iter().min().unwrap(), midgame.iter().max().unwrap());
        assert!(
            most.as_secs_f64() < 1.1 * least.as_secs_f64(),
            "{midgame:?}"
        );
        assert!(at_24 > *most * 2, "{at_24:?} against {midgame:?}");
        assert!(TimeBudget::from_clock(left, Duration::ZERO, 16).affords_solve(16));
        assert!(left > Duration::from_millis(300), "{left:?} left");
    }

    #[test]
    fn only_a_clock_stops_deepening_before_an_iteration_that_would_not_end() {
        let ms = Duration::from_millis;
        let per_move = TimeBudget::per_move(ms(1000));
        assert!(!per_move.banked);
        assert!(per_move.expects_to_finish(ms(590), ms(400)));
        let clock = TimeBudget::from_clock(ms(20_000), Duration::ZERO, 40);
        assert!(clock.banked);
        let hard = clock.hard;
        // The next iteration is expected to cost twice the last.
        assert!(clock.expects_to_finish(hard / 3, hard / 3));
        assert!(!clock.expects_to_finish(hard / 3, hard / 3 + ms(1)));
        assert!(clock.expects_to_finish(Duration::ZERO, Duration::ZERO));
        assert!(!clock.expects_to_finish(Duration::MAX, Duration::MAX));
    }

    #[test]
    fn no_time_left_gives_no_time() {
        let budget = TimeBudget::from_clock(Duration::ZERO, Duration::ZERO, 30);
        assert_eq!(budget.hard, Duration::ZERO);
    }

    #[test]
    fn whole_game_fits_on_the_clock() {
        // Spending every hard budget of a game in a row never exceeds the starting clock.
        let mut left = Duration::from_secs(300);
        for empties in (1..=60).rev().step_by(2) {
            let budget = TimeBudget::from_clock(left, Duration::ZERO, empties);
            left = left.checked_sub(budget.hard).expect("clock overrun");
        }
        assert!(left > Duration::ZERO);
    }

    #[test]
    fn midgame_gets_more_than_a_tiny_share() {
        let budget = TimeBudget::from_clock(Duration::from_secs(300), Duration::ZERO, 40);
        assert!(budget.soft > Duration::from_secs(5), "{budget:?}");
        assert!(budget.soft < Duration::from_secs(30), "{budget:?}");
    }
}
