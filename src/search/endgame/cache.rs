//! A small table of one solver thread's own, for the view nodes of the fewest empties that
//! keep one ([`TT_MIN_EMPTIES`] to [`CACHE_MAX_EMPTIES`]). Their entries are many and each
//! is worth little; kept in the shared table they crowded out the entries of bigger
//! subtrees on the longest solves (FFO #55 took 37 % fewer nodes with them here;
//! docs/results.md). Their subtrees are small, so the transpositions worth catching there
//! are close together in the search and a few MiB catch them.
//!
//! An entry keeps the whole position (both sides' discs, so that a probe is never fooled by
//! another position with the same hash), a lower and an upper bound on its exact value, and
//! the best move found. Every value it holds is exact-search's, so an entry stays true for
//! the solver's life: it is never cleared between solves, a selective pass may use it
//! (nodes this small are never cut by ProbCut), and a thread never needs another's.

use super::*;

/// Entries of a cache: 2^18 of 32 bytes (two to a cache line, none straddling two), 8 MiB.
const CACHE_ENTRIES: usize = 1 << 18;

/// One position's bounds; an empty entry has no discs, which no position searched has.
#[derive(Clone, Copy, Default)]
#[repr(align(32))]
struct CacheEntry {
    player: u64,
    opponent: u64,
    /// The exact value is at least this (`-64` when nothing is known).
    lower: i8,
    /// The exact value is at most this (`64` when nothing is known).
    upper: i8,
    /// Index of the best move's square, [`NO_SQUARE`] when none was stored.
    best: u8,
}

/// A solver thread's small table of exact bounds (see the module doc).
pub(super) struct SolvedCache {
    entries: Box<[CacheEntry]>,
}

impl SolvedCache {
    /// An empty cache of [`CACHE_ENTRIES`] entries.
    pub fn new() -> SolvedCache {
        SolvedCache {
            entries: vec![CacheEntry::default(); CACHE_ENTRIES].into_boxed_slice(),
        }
    }

    /// Empties every entry.
    pub fn clear(&mut self) {
        self.entries.fill(CacheEntry::default());
    }

    #[inline]
    fn slot(hash: u64) -> usize {
        // The table's bucket index uses the low bits; the high ones keep the two apart.
        (hash >> 40) as usize & (CACHE_ENTRIES - 1)
    }

    /// The bounds known for `view` (whose [`BitView::hash`] is `hash`), if its entry holds it,
    /// as the shared table gives them, tagged [`EXACT_TAG`]: every bound here is exact
    /// search's.
    #[inline]
    pub fn probe(&self, hash: u64, view: BitView) -> Option<Bounds> {
        let entry = &self.entries[Self::slot(hash)];
        (entry.player == view.player && entry.opponent == view.opponent).then(|| Bounds {
            lower: Discs::new(i32::from(entry.lower)),
            upper: Discs::new(i32::from(entry.upper)),
            tag: EXACT_TAG,
            best: Square::new(usize::from(entry.best)),
        })
    }

    /// Records a fail-soft exact-search result `best` of `view` within `(alpha, beta)`:
    /// an upper bound at or below alpha, a lower bound at or above beta, else the value. The
    /// bounds already held for the same position are kept where tighter; another position's
    /// entry is replaced.
    #[inline]
    pub fn store(
        &mut self,
        hash: u64,
        view: BitView,
        best: Discs,
        (alpha, beta): (Discs, Discs),
        square: u8,
    ) {
        let entry = &mut self.entries[Self::slot(hash)];
        if entry.player != view.player || entry.opponent != view.opponent {
            *entry = CacheEntry {
                player: view.player,
                opponent: view.opponent,
                lower: -64,
                upper: 64,
                best: NO_SQUARE,
            };
        }
        let value = best.get() as i8;
        if best > alpha {
            entry.lower = entry.lower.max(value);
        }
        if best < beta {
            entry.upper = entry.upper.min(value);
        }
        if square != NO_SQUARE {
            entry.best = square;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_of_one_position_tighten_and_another_replaces_them() {
        let mut cache = SolvedCache::new();
        let view = BitView {
            player: 0x00ff,
            opponent: 0xff00,
        };
        let hash = view.hash();
        let d = Discs::new;
        assert_eq!(cache.probe(hash, view), None);
        // Failed low at alpha 4: at most 2.
        cache.store(hash, view, d(2), (d(4), d(5)), NO_SQUARE);
        let known = cache.probe(hash, view).expect("stored");
        assert_eq!((known.lower, known.upper, known.best), (d(-64), d(2), None));
        // Failed high at beta -6: at least -4; the upper bound stays.
        cache.store(hash, view, d(-4), (d(-7), d(-6)), 12);
        let known = cache.probe(hash, view).expect("stored");
        assert_eq!(
            (known.lower, known.upper, known.best),
            (d(-4), d(2), Square::new(12))
        );
        // Inside a window: exact.
        cache.store(hash, view, d(0), (d(-10), d(10)), 13);
        let known = cache.probe(hash, view).expect("stored");
        assert_eq!(
            (known.lower, known.upper, known.best),
            (d(0), d(0), Square::new(13))
        );
        // Another position of the same slot replaces it; neither is mistaken for the other.
        let other = BitView {
            player: view.player,
            opponent: view.opponent | 1 << 40,
        };
        cache.store(hash, other, d(8), (d(7), d(9)), 20);
        assert_eq!(cache.probe(hash, view), None);
        let known = cache.probe(hash, other).expect("stored");
        assert_eq!(
            (known.lower, known.upper, known.best),
            (d(8), d(8), Square::new(20))
        );
        cache.clear();
        assert_eq!(cache.probe(hash, other), None);
    }
}
