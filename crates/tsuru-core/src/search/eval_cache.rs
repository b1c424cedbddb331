//! The evaluation cache: a small table of one search thread's own that remembers the value
//! of the positions it evaluated at its leaves, so that a position reached again (by another
//! move order, a ProbCut search, the next iteration) is not evaluated twice.
//!
//! An entry keeps the whole position (both sides' discs), so a probe is never fooled by
//! another position: what is read back is what the evaluation gave that very position. An
//! entry holds a [`LeafBounds`]: a lower bound, and the exact value once it was needed (an
//! evaluation with an interaction term skips the term at a leaf whose bound already reaches
//! beta). The value a leaf takes against a beta ([`LeafBounds::against`]) is a function of
//! the position and beta alone (the side to move's and the other side's discs decide the
//! stage, the legal moves and every look-up), so the cache never changes what the search
//! returns, only how often it evaluates; it must be emptied when the evaluation changes
//! ([`EvalCache::clear`]).

use crate::board::bits::BitView;
use crate::eval::pattern::LeafBounds;
use crate::score::Score;

/// The default size: 2^14 entries of 24 bytes, 384 KiB (larger caches were slower on the
/// bench: docs/results.md).
pub const DEFAULT_BITS: u32 = 14;

/// One position's leaf bounds; an empty entry has no discs, which no position has.
#[derive(Clone, Copy, Default)]
struct Entry {
    player: u64,
    opponent: u64,
    lower: i32,
    /// The exact value, or [`NOT_COMPUTED`].
    exact: i32,
}

/// An entry's exact value not computed (no leaf value is this low).
const NOT_COMPUTED: i32 = i32::MIN;

/// A search thread's cache of leaf values (see the module doc), or none (every probe
/// misses, nothing is stored).
pub struct EvalCache {
    entries: Box<[Entry]>,
    /// `64 - log2(entries)`: the index is the mixed position's top bits.
    shift: u32,
}

impl EvalCache {
    /// A cache of `2^bits` entries; `bits == 0` is no cache at all.
    pub fn new(bits: u32) -> EvalCache {
        let bits = bits.min(30);
        let len = if bits == 0 { 0 } else { 1usize << bits };
        EvalCache {
            entries: vec![Entry::default(); len].into_boxed_slice(),
            shift: 64 - bits,
        }
    }

    /// log2 of the number of entries (0 when there is no cache).
    pub fn bits(&self) -> u32 {
        64 - self.shift
    }

    /// Empties every entry (the evaluation changed).
    pub fn clear(&mut self) {
        self.entries.fill(Entry::default());
    }

    #[inline]
    fn slot(&self, view: BitView) -> usize {
        let mixed = view.player.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ view
                .opponent
                .rotate_left(29)
                .wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        (mixed >> self.shift) as usize
    }

    /// The bounds stored for the position `view`, if its entry holds them.
    #[inline]
    pub fn get(&self, view: BitView) -> Option<LeafBounds> {
        if self.entries.is_empty() {
            return None;
        }
        let entry = &self.entries[self.slot(view)];
        (entry.player == view.player && entry.opponent == view.opponent).then(|| LeafBounds {
            lower: Score::from_units(entry.lower),
            exact: (entry.exact != NOT_COMPUTED).then(|| Score::from_units(entry.exact)),
        })
    }

    /// The value of the position `view` against `beta` ([`LeafBounds::against`]): from the
    /// bounds stored, or from `bounds(beta)`, which are then stored. The search's two leaf
    /// paths (a depth-0 node, a leaf evaluated in place) both come here, so a position has one
    /// value against a beta whichever reaches it.
    #[inline]
    pub fn value_against(
        &mut self,
        view: BitView,
        beta: Score,
        bounds: impl FnOnce(Score) -> LeafBounds,
    ) -> Score {
        if let Some(value) = self.get(view).and_then(|stored| stored.against(beta)) {
            return value;
        }
        let computed = bounds(beta);
        self.put(view, computed);
        computed
            .against(beta)
            .expect("bounds computed against beta give the value against it")
    }

    /// Stores `bounds` for the position `view` (replacing whatever shared its entry).
    #[inline]
    pub fn put(&mut self, view: BitView, bounds: LeafBounds) {
        if self.entries.is_empty() {
            return;
        }
        let slot = self.slot(view);
        self.entries[slot] = Entry {
            player: view.player,
            opponent: view.opponent,
            lower: bounds.lower.units(),
            exact: bounds.exact.map_or(NOT_COMPUTED, |value| value.units()),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::pattern::random_board;
    use crate::rng::Rng;

    #[test]
    fn bounds_are_read_back_only_for_their_own_position() {
        let mut cache = EvalCache::new(4);
        let mut rng = Rng::new(5);
        let boards: Vec<BitView> = (0..200)
            .map(|i| random_board(&mut rng, 4 + i % 50).view())
            .collect();
        let bounds_of = |i: usize| LeafBounds {
            lower: Score::from_units(i as i32 - 7),
            exact: (!i.is_multiple_of(3)).then(|| Score::from_units(i as i32)),
        };
        for (i, &view) in boards.iter().enumerate() {
            cache.put(view, bounds_of(i));
            assert_eq!(cache.get(view), Some(bounds_of(i)));
        }
        // 16 entries for 200 positions: most were replaced, none is read as another's.
        let mut found = 0;
        for (i, &view) in boards.iter().enumerate() {
            if let Some(bounds) = cache.get(view) {
                let last = boards.iter().rposition(|&b| b == view).unwrap();
                assert_eq!(bounds, bounds_of(last), "position {i}");
                found += 1;
            }
        }
        assert!((1..=16).contains(&found), "{found} positions found");
        cache.clear();
        assert!(boards.iter().all(|&view| cache.get(view).is_none()));
    }

    /// A position stored with its lower bound alone gives that bound against a beta it
    /// reaches without computing anything, asks for the exact value against a higher beta,
    /// and keeps the exact value from then on.
    #[test]
    fn the_exact_value_is_computed_only_when_the_bound_falls_short() {
        let mut cache = EvalCache::new(8);
        let view = crate::board::Board::start().view();
        let units = Score::from_units;
        let lazy = LeafBounds {
            lower: units(40),
            exact: None,
        };
        let full = LeafBounds {
            lower: units(40),
            exact: Some(units(70)),
        };
        assert_eq!(cache.value_against(view, units(30), |_| lazy), units(40));
        assert_eq!(cache.get(view), Some(lazy));
        let value = cache.value_against(view, units(40), |_| unreachable!("the bound reaches 40"));
        assert_eq!(value, units(40));
        let mut asked = None;
        let value = cache.value_against(view, units(50), |beta| {
            asked = Some(beta);
            full
        });
        assert_eq!((value, asked), (units(70), Some(units(50))));
        assert_eq!(cache.get(view), Some(full));
        let value = cache.value_against(view, units(90), |_| unreachable!("exact stored"));
        assert_eq!(value, units(70));
        // Against a beta the bound reaches, the bound stands even where the exact value is
        // known: the value against a beta does not depend on what was computed before.
        let value = cache.value_against(view, units(35), |_| unreachable!("bound stored"));
        assert_eq!(value, units(40));
    }

    #[test]
    fn no_cache_stores_nothing() {
        let mut cache = EvalCache::new(0);
        assert_eq!(cache.bits(), 0);
        let view = crate::board::Board::start().view();
        cache.put(view, LeafBounds::exact(Score::from_units(7)));
        assert_eq!(cache.get(view), None);
        let value = cache.value_against(view, Score::ZERO, |_| {
            LeafBounds::exact(Score::from_units(7))
        });
        assert_eq!(value, Score::from_units(7));
    }
}
