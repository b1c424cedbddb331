//! Time budgets: turning a clock or a time per move into deadlines for one search.
//!
//! A [`TimeBudget`] has a **soft** deadline (no new iteration starts after it) and a **hard**
//! one (the search aborts and returns its last completed iteration). Budgets keep a safety
//! margin so that the engine, its output and the GUI's bookkeeping never overrun the clock.

use std::time::Duration;

/// Deadlines for one search, measured from its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    /// No new iteration starts after this.
    pub soft: Duration,
    /// The search stops at this point whatever it is doing.
    pub hard: Duration,
}

/// Time kept in reserve on every clock: process start-up, output, pipe latency.
pub const SAFETY_MARGIN: Duration = Duration::from_millis(300);

impl TimeBudget {
    /// A fixed time per move: aborts at `seconds`, starts no iteration after 60% of it
    /// (an iteration usually costs more than all earlier ones together).
    pub fn per_move(seconds: f64) -> TimeBudget {
        let hard = Duration::from_secs_f64(seconds.max(0.001));
        TimeBudget {
            soft: hard.mul_f64(0.6),
            hard,
        }
    }

    /// A budget from the time left on the mover's clock, the increment it gets per move, and
    /// the empty squares left (the mover still plays about half of them). Spends an even share
    /// of the usable time per remaining move, more in the midgame than near the end, and never
    /// more than half of what is left.
    pub fn from_clock(time_left: Duration, increment: Duration, empties: u32) -> TimeBudget {
        let usable = time_left
            .saturating_sub(SAFETY_MARGIN)
            .saturating_sub(time_left / 20);
        let moves_to_go = (empties / 2).max(1) as f64;
        // Near the end the exact solver settles the game: plan as if a few moves were left
        // so that the solve at ~20 empties gets the time it needs.
        let share = usable.as_secs_f64() / (moves_to_go.min(30.0) * 0.8 + 1.0)
            + increment.as_secs_f64() * 0.8;
        let half = usable / 2;
        let soft = Duration::from_secs_f64(share).min(half);
        let hard = (soft * 3).min(half);
        let minimum = Duration::from_millis(1);
        TimeBudget {
            soft: soft.max(minimum),
            hard: hard.max(minimum),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_move_budget() {
        let budget = TimeBudget::per_move(2.0);
        assert_eq!(budget.hard, Duration::from_secs(2));
        assert_eq!(budget.soft, Duration::from_millis(1200));
    }

    #[test]
    fn clock_budgets_never_exceed_half_the_clock() {
        for secs in [0.1, 1.0, 10.0, 300.0, 3600.0] {
            for empties in [1, 10, 20, 40, 60] {
                let left = Duration::from_secs_f64(secs);
                let budget = TimeBudget::from_clock(left, Duration::ZERO, empties);
                assert!(
                    budget.hard <= left / 2 || budget.hard <= Duration::from_millis(1),
                    "{secs} {empties} {budget:?}"
                );
                assert!(budget.soft <= budget.hard);
                assert!(budget.hard > Duration::ZERO);
            }
        }
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
