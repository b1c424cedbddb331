//! The one stop check that the midgame search and the endgame solver both poll: the caller's
//! stop flag, an optional hard deadline and a node limit.
//!
//! Each searcher counts its nodes and asks [`StopCheck::should_stop`] every few thousand of
//! them (its own poll interval), so a raised flag or a passed deadline is answered within
//! microseconds to a few milliseconds, and no watchdog thread is needed. When the midgame
//! search hands a node to the solver, which counts its own nodes, it passes the check on with
//! the nodes already spent taken off the limit ([`StopCheck::less_nodes`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// When to stop: the caller's flag, a hard deadline, a node limit.
#[derive(Clone, Copy, Debug)]
pub struct StopCheck<'a> {
    flag: &'a AtomicBool,
    deadline: Option<Instant>,
    node_limit: u64,
}

impl<'a> StopCheck<'a> {
    /// Stops when `flag` is raised; no deadline, no node limit.
    pub fn new(flag: &'a AtomicBool) -> StopCheck<'a> {
        StopCheck {
            flag,
            deadline: None,
            node_limit: u64::MAX,
        }
    }

    /// The same check, also stopping once `deadline` (if any) has passed.
    pub fn with_deadline(self, deadline: Option<Instant>) -> StopCheck<'a> {
        StopCheck { deadline, ..self }
    }

    /// The same check, also stopping once the nodes counted reach `limit` (`u64::MAX`: none).
    pub fn with_node_limit(self, limit: u64) -> StopCheck<'a> {
        StopCheck {
            node_limit: limit,
            ..self
        }
    }

    /// The check for a searcher that counts its own nodes apart from `spent` nodes already
    /// counted elsewhere: the node limit shrinks by `spent`.
    pub fn less_nodes(self, spent: u64) -> StopCheck<'a> {
        StopCheck {
            node_limit: self.node_limit.saturating_sub(spent),
            ..self
        }
    }

    /// Whether to stop after `nodes` nodes: the limit is reached, the flag raised or the
    /// deadline passed (cheapest test first; the clock is read only with a deadline).
    #[inline]
    pub fn should_stop(&self, nodes: u64) -> bool {
        nodes >= self.node_limit
            || self.flag.load(Ordering::Relaxed)
            || self
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline)
    }
}

impl<'a> From<&'a AtomicBool> for StopCheck<'a> {
    /// [`StopCheck::new`]: the flag alone.
    fn from(flag: &'a AtomicBool) -> StopCheck<'a> {
        StopCheck::new(flag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn each_condition_stops_on_its_own() {
        let flag = AtomicBool::new(false);
        let check = StopCheck::new(&flag);
        assert!(!check.should_stop(u64::MAX - 1));
        let limited = check.with_node_limit(100);
        assert!(!limited.should_stop(99) && limited.should_stop(100));
        let rest = limited.less_nodes(30);
        assert!(!rest.should_stop(69) && rest.should_stop(70));
        assert!(limited.less_nodes(500).should_stop(0));
        let now = Instant::now();
        assert!(check.with_deadline(Some(now)).should_stop(0));
        let later = check.with_deadline(Some(now + Duration::from_secs(3600)));
        assert!(!later.should_stop(0));
        flag.store(true, Ordering::Relaxed);
        assert!(later.should_stop(0) && check.should_stop(0));
    }
}
