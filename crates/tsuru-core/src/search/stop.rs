//! The one stop check that the midgame search and the endgame solver both poll: the caller's
//! stop flag, an optional hard deadline and a node limit.
//!
//! Each searcher counts its nodes and asks [`StopCheck::should_stop`] every few thousand of
//! them (its own poll interval), so a raised flag or a passed deadline is answered within
//! microseconds to a few milliseconds, and no watchdog thread is needed. When the midgame
//! search hands a node to the solver, which counts its own nodes, it passes the check on with
//! the nodes already spent counted in ([`StopCheck::less_nodes`]).
//!
//! In a parallel search every thread polls its own check, which also publishes the thread's
//! running node count in its slot of a shared [`NodeCounts`] ([`StopCheck::with_counts`]):
//! the node limit then counts every thread's nodes (as of their last polls), and a progress
//! display can read the total while the search runs.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use super::time::LiveBudget;

/// The running node counts of the threads of one parallel search, one slot a thread, each
/// written only by its thread (at its polls) and read by anyone.
#[derive(Debug, Default)]
pub struct NodeCounts {
    slots: Box<[Slot]>,
}

/// One thread's count, on a cache line of its own so that the writers do not share a line.
#[derive(Debug, Default)]
#[repr(align(64))]
struct Slot(AtomicU64);

impl NodeCounts {
    /// Counts for `threads` threads, all zero.
    pub fn new(threads: usize) -> NodeCounts {
        NodeCounts {
            slots: (0..threads).map(|_| Slot::default()).collect(),
        }
    }

    /// The sum of every slot.
    pub fn total(&self) -> u64 {
        self.slots.iter().map(|s| s.0.load(Ordering::Relaxed)).sum()
    }

    /// Sets every slot to zero.
    pub fn reset(&self) {
        for slot in self.slots.iter() {
            slot.0.store(0, Ordering::Relaxed);
        }
    }

    /// Thread `slot`'s count.
    pub fn get(&self, slot: usize) -> u64 {
        self.slots[slot].0.load(Ordering::Relaxed)
    }

    /// Sets thread `slot`'s count.
    pub fn set(&self, slot: usize, nodes: u64) {
        self.slots[slot].0.store(nodes, Ordering::Relaxed);
    }
}

/// When to stop: the caller's flag, a hard deadline, a node limit.
#[derive(Clone, Copy, Debug)]
pub struct StopCheck<'a> {
    flag: &'a AtomicBool,
    deadline: Option<Instant>,
    /// A deadline that may be set while the search runs (pondering).
    live: Option<&'a LiveBudget>,
    node_limit: u64,
    /// Nodes this thread counted elsewhere before the nodes given to `should_stop`.
    spent: u64,
    /// The shared counts and this thread's slot in them.
    counts: Option<(&'a NodeCounts, usize)>,
}

impl<'a> StopCheck<'a> {
    /// Stops when `flag` is raised; no deadline, no node limit.
    pub fn new(flag: &'a AtomicBool) -> StopCheck<'a> {
        StopCheck {
            flag,
            deadline: None,
            live: None,
            node_limit: u64::MAX,
            spent: 0,
            counts: None,
        }
    }

    /// The same check, also stopping once `deadline` (if any) has passed.
    pub fn with_deadline(self, deadline: Option<Instant>) -> StopCheck<'a> {
        StopCheck { deadline, ..self }
    }

    /// The same check, also stopping at the hard deadline of `live` once it is started.
    pub fn with_live_budget(self, live: Option<&'a LiveBudget>) -> StopCheck<'a> {
        StopCheck { live, ..self }
    }

    /// The same check, also stopping once the nodes counted reach `limit` (`u64::MAX`: none).
    pub fn with_node_limit(self, limit: u64) -> StopCheck<'a> {
        StopCheck {
            node_limit: limit,
            ..self
        }
    }

    /// The check for a searcher that counts its own nodes apart from `spent` nodes already
    /// counted elsewhere (by the same thread): those count towards the limit too.
    pub fn less_nodes(self, spent: u64) -> StopCheck<'a> {
        StopCheck {
            spent: self.spent.saturating_add(spent),
            ..self
        }
    }

    /// The same check for thread `slot` of a parallel search: each check publishes the
    /// thread's count in `counts`, and the node limit counts the other threads' too.
    pub fn with_counts(self, counts: &'a NodeCounts, slot: usize) -> StopCheck<'a> {
        StopCheck {
            counts: Some((counts, slot)),
            ..self
        }
    }

    /// A check without a node limit or a deadline, stopped by `flag` alone, counting from
    /// zero and publishing nowhere (add [`StopCheck::with_counts`]): a helper thread's, which
    /// the thread leading the search stops.
    pub fn for_helper(&self, flag: &'a AtomicBool) -> StopCheck<'a> {
        StopCheck::new(flag)
    }

    /// The same check for thread `slot` of a parallel search that polls the caller's
    /// conditions itself: the flag, the deadlines and the node limit (which counts every
    /// thread's nodes in `counts`), counting this thread's nodes from zero.
    pub fn for_thread(&self, counts: &'a NodeCounts, slot: usize) -> StopCheck<'a> {
        StopCheck {
            spent: 0,
            counts: Some((counts, slot)),
            ..*self
        }
    }

    /// Whether to stop after `nodes` nodes: the limit is reached, the flag raised or the
    /// deadline passed (cheapest test first; the clock is read only with a deadline).
    #[inline]
    pub fn should_stop(&self, nodes: u64) -> bool {
        let mut nodes = nodes.saturating_add(self.spent);
        if let Some((counts, slot)) = self.counts {
            counts.set(slot, nodes);
            if self.node_limit != u64::MAX {
                nodes = counts.total();
            }
        }
        nodes >= self.node_limit
            || self.flag.load(Ordering::Relaxed)
            || self
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline)
            || self
                .live
                .and_then(LiveBudget::hard_deadline)
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

    #[test]
    fn a_live_budget_stops_only_once_started() {
        use super::super::time::TimeBudget;
        let flag = AtomicBool::new(false);
        let live = LiveBudget::new();
        let check = StopCheck::new(&flag).with_live_budget(Some(&live));
        assert!(
            !check.should_stop(0),
            "no deadline before the budget starts"
        );
        live.start(Some(TimeBudget::per_move(Duration::ZERO)));
        assert!(check.should_stop(0), "a spent budget stops the search");
        let open = LiveBudget::new();
        open.start(None);
        assert!(!StopCheck::new(&flag)
            .with_live_budget(Some(&open))
            .should_stop(0));
        // Only the first start counts.
        open.start(Some(TimeBudget::per_move(Duration::ZERO)));
        assert_eq!(open.budget(), None);
    }

    #[test]
    fn shared_counts_are_published_and_limit_every_thread() {
        let flag = AtomicBool::new(false);
        let counts = NodeCounts::new(2);
        let main = StopCheck::new(&flag)
            .with_node_limit(100)
            .with_counts(&counts, 0);
        let helper_flag = AtomicBool::new(false);
        let helper = main.for_helper(&helper_flag).with_counts(&counts, 1);
        assert!(!helper.less_nodes(10).should_stop(1_000));
        assert_eq!((counts.get(1), counts.total()), (1_010, 1_010));
        assert!(
            main.should_stop(5),
            "the helper's nodes count towards the limit"
        );
        assert_eq!(counts.get(0), 5);
        counts.reset();
        assert!(!main.should_stop(50));
        // Another thread polling the caller's conditions counts from zero in its own slot.
        let other = main.less_nodes(40).for_thread(&counts, 1);
        assert!(!other.should_stop(49) && other.should_stop(50));
        assert_eq!(counts.get(1), 50);
        flag.store(true, Ordering::Relaxed);
        assert!(!helper.should_stop(0), "a helper stops on its own flag");
        assert!(other.should_stop(0), "and the other thread on the caller's");
    }
}
