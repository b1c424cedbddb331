//! The evaluation cache: a small table of one search thread's own that remembers the value
//! of the positions it evaluated at its leaves, so that a position reached again (by another
//! move order, a ProbCut search, the next iteration) is not evaluated twice.
//!
//! An entry keeps the whole position (both sides' discs), so a probe is never fooled by
//! another position: a value read back is the value the evaluation gave that very position.
//! The leaf value is a function of the position alone (the side to move's and the other
//! side's discs decide the stage, the legal moves and every look-up), so the cache never
//! changes what the search returns, only how often it evaluates; it must be emptied when the
//! evaluation changes ([`EvalCache::clear`]).

use crate::board::bits::BitView;
use crate::score::Score;

/// The default size: 2^14 entries of 24 bytes, 384 KiB (larger caches were slower on the
/// bench: docs/results.md).
pub const DEFAULT_BITS: u32 = 14;

/// One position's leaf value; an empty entry has no discs, which no position has.
#[derive(Clone, Copy, Default)]
struct Entry {
    player: u64,
    opponent: u64,
    value: i32,
}

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

    /// The value stored for the position `view`, if its entry holds it.
    #[inline]
    pub fn get(&self, view: BitView) -> Option<Score> {
        if self.entries.is_empty() {
            return None;
        }
        let entry = &self.entries[self.slot(view)];
        (entry.player == view.player && entry.opponent == view.opponent)
            .then(|| Score::from_units(entry.value))
    }

    /// The value of the position `view`: the one stored, or `value()`, which is then
    /// stored. The search's two leaf paths (a depth-0 node, a leaf evaluated in place) both
    /// come here, so a position has one value whichever reaches it.
    #[inline]
    pub fn get_or_insert_with(&mut self, view: BitView, value: impl FnOnce() -> Score) -> Score {
        if let Some(stored) = self.get(view) {
            return stored;
        }
        let value = value();
        self.put(view, value);
        value
    }

    /// Stores `value` for the position `view` (replacing whatever shared its entry).
    #[inline]
    pub fn put(&mut self, view: BitView, value: Score) {
        if self.entries.is_empty() {
            return;
        }
        let slot = self.slot(view);
        self.entries[slot] = Entry {
            player: view.player,
            opponent: view.opponent,
            value: value.units(),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::pattern::random_board;
    use crate::rng::Rng;

    #[test]
    fn a_value_is_read_back_only_for_its_own_position() {
        let mut cache = EvalCache::new(4);
        let mut rng = Rng::new(5);
        let boards: Vec<BitView> = (0..200)
            .map(|i| random_board(&mut rng, 4 + i % 50).view())
            .collect();
        for (i, &view) in boards.iter().enumerate() {
            cache.put(view, Score::from_units(i as i32));
            assert_eq!(cache.get(view), Some(Score::from_units(i as i32)));
        }
        // 16 entries for 200 positions: most were replaced, none is read as another's.
        let mut found = 0;
        for (i, &view) in boards.iter().enumerate() {
            if let Some(value) = cache.get(view) {
                let last = boards.iter().rposition(|&b| b == view).unwrap();
                assert_eq!(value, Score::from_units(last as i32), "position {i}");
                found += 1;
            }
        }
        assert!((1..=16).contains(&found), "{found} positions found");
        cache.clear();
        assert!(boards.iter().all(|&view| cache.get(view).is_none()));
    }

    #[test]
    fn no_cache_stores_nothing() {
        let mut cache = EvalCache::new(0);
        assert_eq!(cache.bits(), 0);
        let view = crate::board::Board::start().view();
        cache.put(view, Score::from_units(7));
        assert_eq!(cache.get(view), None);
    }
}
