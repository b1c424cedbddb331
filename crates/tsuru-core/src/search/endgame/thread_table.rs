//! A small table of one solver thread's own, for the view nodes of the fewest empties that
//! keep one ([`TT_MIN_EMPTIES`] to [`CACHE_MAX_EMPTIES`]). Their entries are many and each
//! is worth little; kept in the shared table they crowded out the entries of bigger
//! subtrees on the longest solves (FFO #55 took 37 % fewer nodes with them here;
//! docs/results.md). Their subtrees are small, so the transpositions worth catching there
//! are close together in the search and a small table catches them.
//!
//! An entry is one 64-bit word: 41 bits of the position's [`BitView::hash`] as a check (the
//! hash's low bits; its top [`SLOT_BITS`] chose the slot, so a probe compares 56 bits of
//! the hash, as many as the shared table's bucket index and check of a 1 GiB table), a lower and an upper bound
//! on its exact value and the best move. Every value it holds is exact-search's, so an
//! entry stays true for the solver's life: it is never cleared between solves, a selective
//! pass may use it (nodes this small are never cut by ProbCut), and a thread never needs
//! another's.
//!
//! Size: 2^15 entries of 8 bytes, 256 KiB, well inside a core's L2 cache. The earlier
//! entries of whole-position keys were 32 bytes, 8 MiB for 2^18 of them, and the view
//! nodes' transposition cutoff, which reads a slot for every child, waited on the misses.
//! Measured (docs/results.md): 2^18 words (2 MiB) took 0.965 of the 8 MiB cache's time on
//! FFO #20-#39; 2^14 to 2^16 words were faster still and alike there (0.984 of 2^18's time),
//! and on FFO #40-#49 2^15 took 0.976 of 2^16's time for 0.3 % more nodes, 2^14 as much as
//! 2^15.
//!
//! A word of zero (an empty slot) reads as "nothing known" (lower bound -64, upper bound
//! 64, no move), so a position whose check bits are all zero can match it without harm.

use super::*;

/// Bits of the hash that choose an entry's slot (the top ones).
const SLOT_BITS: u32 = 15;

/// Entries of a cache: 2^[`SLOT_BITS`] words, 256 KiB.
const CACHE_ENTRIES: usize = 1 << SLOT_BITS;

/// Bits of an entry below its check: the lower bound (8), the upper bound (8), the move (7).
const DATA_BITS: u32 = 23;

/// The entry's bits that hold the check.
const CHECK_MASK: u64 = !0 << DATA_BITS;

/// A solver thread's small table of exact bounds (see the module doc).
pub(super) struct ThreadTable {
    /// Each word: bits 23.. the check (the hash shifted up by [`DATA_BITS`]), 16..23 the best
    /// move's square index xor 64 (0 for none), 8..16 64 minus the upper bound, 0..8 the
    /// lower bound plus 64.
    entries: Box<[u64]>,
}

impl ThreadTable {
    /// An empty cache of [`CACHE_ENTRIES`] entries.
    pub fn new() -> ThreadTable {
        ThreadTable {
            entries: vec![0; CACHE_ENTRIES].into_boxed_slice(),
        }
    }

    /// Empties every entry.
    pub fn clear(&mut self) {
        self.entries.fill(0);
    }

    #[inline]
    fn slot(hash: u64) -> usize {
        (hash >> (64 - SLOT_BITS)) as usize
    }

    /// The entry of `hash` unpacked, or nothing known when the slot holds another's.
    #[inline]
    fn unpack(word: u64, hash: u64) -> Option<(i8, i8, u8)> {
        ((word ^ hash << DATA_BITS) & CHECK_MASK == 0).then(|| {
            (
                ((word & 0xff) as i32 - 64) as i8,
                (64 - ((word >> 8) & 0xff) as i32) as i8,
                ((word >> 16) & 0x7f) as u8 ^ NO_SQUARE,
            )
        })
    }

    /// The bounds known for the position whose [`BitView::hash`] is `hash`, if its slot holds
    /// it, as the shared table gives them, tagged [`EXACT_TAG`]: every bound here is exact
    /// search's.
    #[inline]
    pub fn probe(&self, hash: u64) -> Option<Bounds> {
        let word = self.entries[Self::slot(hash)];
        Self::unpack(word, hash).map(|(lower, upper, best)| Bounds {
            lower: Discs::new(i32::from(lower)),
            upper: Discs::new(i32::from(upper)),
            tag: EXACT_TAG,
            best: Square::new(usize::from(best)),
        })
    }

    /// Records a fail-soft exact-search result `best` of the position of `hash` within
    /// `(alpha, beta)`: an upper bound at or below alpha, a lower bound at or above beta, else
    /// the value. The bounds already held for the same position are kept where tighter;
    /// another position's entry is replaced.
    #[inline]
    pub fn store(&mut self, hash: u64, best: Discs, (alpha, beta): (Discs, Discs), square: u8) {
        let entry = &mut self.entries[Self::slot(hash)];
        let (mut lower, mut upper, mut move_) =
            Self::unpack(*entry, hash).unwrap_or((-64, 64, NO_SQUARE));
        let value = best.get() as i8;
        if best > alpha {
            lower = lower.max(value);
        }
        if best < beta {
            upper = upper.min(value);
        }
        if square != NO_SQUARE {
            move_ = square;
        }
        *entry = hash << DATA_BITS
            | u64::from(move_ ^ NO_SQUARE) << 16
            | ((64 - i32::from(upper)) as u64) << 8
            | (i32::from(lower) + 64) as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_of_one_position_tighten_and_another_replaces_them() {
        let mut cache = ThreadTable::new();
        let view = BitView {
            player: 0x00ff,
            opponent: 0xff00,
        };
        let hash = view.hash();
        let d = Discs::new;
        assert_eq!(cache.probe(hash), None);
        // Failed low at alpha 4: at most 2.
        cache.store(hash, d(2), (d(4), d(5)), NO_SQUARE);
        let known = cache.probe(hash).expect("stored");
        assert_eq!((known.lower, known.upper, known.best), (d(-64), d(2), None));
        // Failed high at beta -6: at least -4; the upper bound stays.
        cache.store(hash, d(-4), (d(-7), d(-6)), 12);
        let known = cache.probe(hash).expect("stored");
        assert_eq!(
            (known.lower, known.upper, known.best),
            (d(-4), d(2), Square::new(12))
        );
        // Inside a window: exact.
        cache.store(hash, d(0), (d(-10), d(10)), 13);
        let known = cache.probe(hash).expect("stored");
        assert_eq!(
            (known.lower, known.upper, known.best),
            (d(0), d(0), Square::new(13))
        );
        // The extremes of both bounds and of the squares survive the packing (positions of
        // other slots).
        for (value, square, other) in [(64, 63, hash ^ 1 << 60), (-64, 0, hash ^ 1 << 61)] {
            cache.store(other, d(value), (d(-64), d(64)), square);
            let known = cache.probe(other).expect("stored");
            assert_eq!(
                (known.lower, known.upper, known.best),
                (d(value), d(value), Square::new(usize::from(square)))
            );
        }
        // Another position of the same slot (the same top bits, another check) replaces it;
        // neither is mistaken for the other.
        let other = hash ^ 1 << 7;
        assert_eq!(ThreadTable::slot(other), ThreadTable::slot(hash));
        assert_eq!(cache.probe(other), None);
        cache.store(other, d(8), (d(7), d(9)), 20);
        assert_eq!(cache.probe(hash), None);
        let known = cache.probe(other).expect("stored");
        assert_eq!(
            (known.lower, known.upper, known.best),
            (d(8), d(8), Square::new(20))
        );
        cache.clear();
        assert_eq!(cache.probe(other), None);
    }

    #[test]
    fn an_empty_slot_tells_nothing_even_to_a_matching_check() {
        let cache = ThreadTable::new();
        // Hashes whose check bits (the low 41) are all zero match an empty word's check.
        for hash in [0, 0xabc << 52, !0 << 41] {
            let known = cache.probe(hash).expect("the check matches");
            assert_eq!(
                (known.lower, known.upper, known.best),
                (Discs::new(-64), Discs::new(64), None)
            );
        }
    }
}
