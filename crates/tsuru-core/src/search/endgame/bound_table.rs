//! The solver's shared table: for each position it keeps, a lower and an upper bound on its
//! value, the tag of the pass that proved them, the best move, and what the entry is worth.
//!
//! Why both bounds: the solver searches most nodes with null windows, and the same position
//! is met again with another window (a re-search, another move order's transposition, the
//! next selective pass). An entry of one bound kind (the midgame's [`TranspositionTable`])
//! loses the upper bound when the lower one is stored; here the two are kept together, as
//! Edax and Egaroucid keep them.
//!
//! An entry is one 64-bit word: the upper 32 bits of the hash as a check (the lower bits
//! chose the bucket), the lower and upper bounds (a byte each, `-64..=64`), the best move
//! (7 bits), the tag (3 bits, 0 for an empty entry) and the worth (6 bits: the bit length of
//! the node count of the search that gave the result, so that big subtrees' entries are kept
//! before small ones'). Seven entries share a 64-byte bucket with a word of their
//! generations, a byte each: the bucket holds 7 positions where the midgame's holds 5.
//!
//! Tags order what the bounds are worth trusting: a higher tag is a more confident pass
//! (the exact solve has the highest). A probe's bounds are used only by a search whose tag
//! is at most theirs (see `narrow`); a store of the same position and tag intersects its
//! bounds with the entry's, of a higher tag replaces them, of a lower tag is dropped.
//! Replacement of another position: an empty entry first, then entries of older searches
//! (generations), then the lowest tag, then the least worth.
//!
//! Clearing without writing: the generation word's last byte is the bucket's *epoch*. A
//! clear ([`BoundTable::clear`]) only moves the table's epoch on; a bucket of another epoch
//! reads as empty and is emptied by the first store into it. A solve of a few positions thus
//! no longer pays for zeroing the whole table before each (for a 1 GiB table that was a
//! gigabyte of fresh pages a position, seconds of system time), and every probe and store
//! sees exactly what it would in a zeroed table, so node counts do not change. After 255
//! clears the table is zeroed for real and the epochs start again.
//!
//! Sharing: as the midgame's table, every method takes `&self` and an entry is written and
//! read with single atomic operations, so a reader never sees a torn entry; two threads
//! storing the same position at once may lose one's bounds, never mix them. The generation
//! word's races change only which entry a later store replaces.
//!
//! [`TranspositionTable`]: crate::search::tt::TranspositionTable

use std::sync::atomic::Ordering::Relaxed;

use super::super::buckets::{Buckets, GENERATION_WORD};
use crate::board::Square;
use crate::score::Discs;

/// Entries per bucket: every word but the generations'.
const BUCKET_ENTRIES: usize = GENERATION_WORD;

/// The highest tag an entry can carry (3 bits; 0 marks an empty entry).
pub const MAX_TAG: u8 = 7;

/// The highest worth an entry can carry (6 bits); more is stored as this.
const MAX_WORTH: u8 = 63;

/// What the table knows of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The value is at least this (`-64` when nothing is known).
    pub lower: Discs,
    /// The value is at most this (`64` when nothing is known).
    pub upper: Discs,
    /// The tag of the searches that proved the bounds (1..=[`MAX_TAG`]).
    pub tag: u8,
    /// The best move found, if one was stored.
    pub best: Option<Square>,
}

/// An entry as stored: fields as in the module doc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BoundEntry {
    check: u32,
    lower: i8,
    upper: i8,
    /// Best move's square index + 1 (0 = none).
    best: u8,
    /// 0 for an empty entry.
    tag: u8,
    worth: u8,
}

impl BoundEntry {
    /// The stored word: check in bits 0-31, lower bound 32-39, upper bound 40-47, best move
    /// 48-54, tag 55-57, worth 58-63. An empty entry is a zero word.
    #[inline]
    fn encode(&self) -> u64 {
        u64::from(self.check)
            | u64::from(self.lower as u8) << 32
            | u64::from(self.upper as u8) << 40
            | u64::from(self.best) << 48
            | u64::from(self.tag) << 55
            | u64::from(self.worth) << 58
    }

    /// Reads the word written by [`BoundEntry::encode`].
    #[inline]
    fn decode(word: u64) -> BoundEntry {
        BoundEntry {
            check: word as u32,
            lower: (word >> 32) as u8 as i8,
            upper: (word >> 40) as u8 as i8,
            best: (word >> 48) as u8 & 0x7f,
            tag: (word >> 55) as u8 & 0x7,
            worth: (word >> 58) as u8,
        }
    }

    #[inline]
    fn bounds(&self) -> Bounds {
        Bounds {
            lower: Discs::new(i32::from(self.lower)),
            upper: Discs::new(i32::from(self.upper)),
            tag: self.tag,
            best: self
                .best
                .checked_sub(1)
                .and_then(|i| Square::new(usize::from(i))),
        }
    }
}

/// The solver's shared table of bounds (see the module doc).
pub struct BoundTable {
    buckets: Buckets,
    /// The current epoch (1..=255); buckets whose epoch byte differs are empty.
    epoch: u8,
}

/// Where a bucket's epoch is kept: the generation word's last byte (bytes 0-6 are the
/// entries' generations).
const EPOCH_SHIFT: u32 = 56;

/// The table's storage: its size, clearing, generations and prefetch ([`Buckets`]).
impl std::ops::Deref for BoundTable {
    type Target = Buckets;

    fn deref(&self) -> &Buckets {
        &self.buckets
    }
}

impl std::ops::DerefMut for BoundTable {
    fn deref_mut(&mut self) -> &mut Buckets {
        &mut self.buckets
    }
}

impl BoundTable {
    /// A table using at most `megabytes` MiB (at least one bucket), allocated now and never
    /// again.
    pub fn new(megabytes: usize) -> BoundTable {
        BoundTable {
            buckets: Buckets::new(megabytes),
            epoch: 1,
        }
    }

    /// Empties the table (no search may be using it): the epoch moves on (see the module
    /// doc), and the search generation starts again as after a fresh allocation.
    pub fn clear(&mut self) {
        if self.epoch == u8::MAX {
            self.buckets.clear();
            self.epoch = 1;
        } else {
            self.epoch += 1;
            self.buckets.reset_generation();
        }
    }

    /// Whether a bucket whose generation word reads `generations` belongs to the current
    /// epoch (else it holds nothing).
    #[inline]
    fn is_live(&self, generations: u64) -> bool {
        (generations >> EPOCH_SHIFT) as u8 == self.epoch
    }

    /// What the table holds for `hash`, if anything.
    #[inline]
    pub fn probe(&self, hash: u64) -> Option<Bounds> {
        let check = (hash >> 32) as u32;
        let bucket = self.buckets.bucket(hash);
        if !self.is_live(bucket[GENERATION_WORD].load(Relaxed)) {
            return None;
        }
        for word in &bucket[..BUCKET_ENTRIES] {
            // One load: the whole entry as one writer left it.
            let word = word.load(Relaxed);
            if word as u32 == check {
                let entry = BoundEntry::decode(word);
                if entry.tag != 0 {
                    return Some(entry.bounds());
                }
            }
        }
        None
    }

    /// Records a fail-soft result `value` of `hash`'s position searched within
    /// `(alpha, beta)` by a search tagged `tag` (1..=[`MAX_TAG`]): an upper bound at or
    /// below alpha, a lower bound at or above beta, else the value. `best` is the best move
    /// found (kept from the entry when `None`), `worth` what the result cost (see the module
    /// doc; more than [`MAX_WORTH`] is stored as it).
    #[inline]
    pub fn store(
        &self,
        hash: u64,
        tag: u8,
        value: Discs,
        (alpha, beta): (Discs, Discs),
        best: Option<Square>,
        worth: u8,
    ) {
        debug_assert!((1..=MAX_TAG).contains(&tag));
        let value_byte = value.get().clamp(-64, 64) as i8;
        let mut lower = if value > alpha { value_byte } else { -64 };
        let mut upper = if value < beta { value_byte } else { 64 };
        let mut best = best.map_or(0, |square| square.index() as u8 + 1);
        let mut worth = worth.min(MAX_WORTH);

        let check = (hash >> 32) as u32;
        let bucket = self.buckets.bucket(hash);
        let mut generations = bucket[GENERATION_WORD].load(Relaxed);
        if !self.is_live(generations) {
            // A bucket of an earlier epoch: emptied now, as a cleared table's would be.
            for word in &bucket[..BUCKET_ENTRIES] {
                word.store(0, Relaxed);
            }
            generations = u64::from(self.epoch) << EPOCH_SHIFT;
            bucket[GENERATION_WORD].store(generations, Relaxed);
        }
        let mut victim = 0;
        let mut victim_rank = u32::MAX;
        for (i, word) in bucket[..BUCKET_ENTRIES].iter().enumerate() {
            let entry = BoundEntry::decode(word.load(Relaxed));
            if entry.tag == 0 {
                // Entries fill a bucket in order and are never emptied one by one: no later
                // entry can hold the position.
                victim = i;
                break;
            }
            if entry.check == check {
                if entry.tag > tag {
                    // A more confident pass's bounds say more than this result.
                    return;
                }
                if entry.tag == tag {
                    let (l, u) = (lower.max(entry.lower), upper.min(entry.upper));
                    // Selective passes' bounds may contradict each other; the newer wins.
                    if l <= u {
                        (lower, upper) = (l, u);
                    }
                    worth = worth.max(entry.worth);
                }
                if best == 0 {
                    best = entry.best;
                }
                victim = i;
                break;
            }
            let current = self.buckets.is_current(generations, i);
            let rank =
                u32::from(current) << 16 | u32::from(entry.tag) << 8 | u32::from(entry.worth);
            if rank < victim_rank {
                victim_rank = rank;
                victim = i;
            }
        }
        let entry = BoundEntry {
            check,
            lower,
            upper,
            best,
            tag,
            worth,
        };
        self.buckets
            .write(bucket, victim, entry.encode(), generations);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXACT: u8 = 5;

    fn d(value: i32) -> Discs {
        Discs::new(value)
    }

    /// Hashes of one bucket (the same low bits), with different checks.
    fn same_bucket(i: u64) -> u64 {
        (i + 1) << 32 | 0x2a
    }

    #[test]
    fn entries_round_trip_and_zero_words_are_empty() {
        assert_eq!(BoundEntry::decode(0).tag, 0);
        for (lower, upper, best, tag, worth) in [
            (-64, 64, 64, MAX_TAG, MAX_WORTH),
            (-64, -64, 0, 1, 0),
            (64, 64, 1, 3, 17),
            (-3, 5, 33, EXACT, 40),
        ] {
            let entry = BoundEntry {
                check: 0xdead_beef,
                lower,
                upper,
                best,
                tag,
                worth,
            };
            assert_eq!(BoundEntry::decode(entry.encode()), entry);
        }
    }

    /// Random stores into few buckets (so that replacement happens), then probes of every
    /// key stored: what each finds.
    fn exercise(table: &BoundTable, seed: u64) -> Vec<Option<Bounds>> {
        let mut rng = crate::rng::Rng::new(seed);
        let keys: Vec<u64> = (0..60).map(|i| same_bucket(i % 20) ^ (i / 20)).collect();
        for _ in 0..400 {
            let key = keys[rng.below(keys.len() as u64) as usize];
            let value = rng.below(129) as i32 - 64;
            let tag = 1 + rng.below(u64::from(MAX_TAG)) as u8;
            let window = (
                d(value - 1 - rng.below(3) as i32),
                d(value + rng.below(3) as i32),
            );
            table.store(
                key,
                tag,
                d(value),
                window,
                Square::new(rng.below(64) as usize),
                9,
            );
        }
        keys.iter().map(|&key| table.probe(key)).collect()
    }

    #[test]
    fn a_cleared_table_behaves_as_a_new_one() {
        let mut used = BoundTable::new(1);
        let fresh = BoundTable::new(1);
        let first = exercise(&used, 1);
        assert!(first.iter().filter(|b| b.is_some()).count() >= 7);
        used.clear();
        assert!(first.iter().zip(&exercise(&fresh, 2)).any(|(a, b)| a != b));
        // Every probe and store after the clear sees what it would in a fresh table: nothing
        // of the first run, and the same replacements.
        assert_eq!(exercise(&used, 2), exercise(&BoundTable::new(1), 2));
        // Through a full round of epochs (the 255th clear zeroes the table for real) too.
        for round in 0..300u64 {
            used.clear();
            assert_eq!(used.probe(same_bucket(round % 20)), None);
            if round % 50 == 0 {
                assert_eq!(exercise(&used, round), exercise(&BoundTable::new(1), round));
            }
        }
    }

    #[test]
    fn bounds_of_one_position_tighten() {
        let table = BoundTable::new(1);
        let hash = 0x1234_5678_9abc_def0;
        assert_eq!(table.probe(hash), None);
        let known = |table: &BoundTable| {
            let bounds = table.probe(hash).expect("stored");
            (bounds.lower.get(), bounds.upper.get(), bounds.best)
        };
        // Failed low at alpha 4: at most 2.
        table.store(hash, EXACT, d(2), (d(4), d(5)), None, 3);
        assert_eq!(known(&table), (-64, 2, None));
        // Failed high at beta -6: at least -4; the upper bound stays.
        let sq = Square::new(12);
        table.store(hash, EXACT, d(-4), (d(-7), d(-6)), sq, 3);
        assert_eq!(known(&table), (-4, 2, sq));
        // A looser upper bound changes nothing; no move keeps the move.
        table.store(hash, EXACT, d(9), (d(9), d(10)), None, 3);
        assert_eq!(known(&table), (-4, 2, sq));
        // Inside a window: exact.
        table.store(hash, EXACT, d(0), (d(-10), d(10)), Square::new(13), 3);
        assert_eq!(known(&table), (0, 0, Square::new(13)));
        // A different key in the same bucket does not match.
        assert_eq!(table.probe(hash ^ (1 << 40)), None);
        assert_eq!(table.probe(hash).map(|b| b.tag), Some(EXACT));
    }

    #[test]
    fn tags_rank_the_bounds_of_one_position() {
        let table = BoundTable::new(1);
        let hash = 0x0000_0007_0000_0003u64;
        let known = |table: &BoundTable| {
            let bounds = table.probe(hash).expect("stored");
            (bounds.lower.get(), bounds.upper.get(), bounds.tag)
        };
        table.store(hash, 2, d(10), (d(-20), d(8)), None, 5);
        assert_eq!(known(&table), (10, 64, 2));
        // A less confident pass's result is dropped.
        table.store(hash, 1, d(-30), (d(-20), d(8)), None, 5);
        assert_eq!(known(&table), (10, 64, 2));
        // The same pass's contradicting bound replaces the old one.
        table.store(hash, 2, d(4), (d(6), d(7)), None, 5);
        assert_eq!(known(&table), (-64, 4, 2));
        // A more confident pass starts afresh.
        table.store(hash, EXACT, d(-2), (d(-10), d(-3)), None, 5);
        assert_eq!(known(&table), (-2, 64, EXACT));
    }

    #[test]
    fn a_new_position_replaces_the_oldest_then_least_confident_then_least_worth() {
        let table = BoundTable::new(1);
        let exact = |i: u64, worth: u8| {
            table.store(
                same_bucket(i),
                EXACT,
                d(i as i32),
                (d(-64), d(64)),
                None,
                worth,
            );
        };
        for (i, worth) in [(0, 9), (1, 4), (2, 30), (3, 2), (4, 17), (5, 8), (6, 11)] {
            exact(i, worth);
        }
        for i in 0..7 {
            assert_eq!(
                table.probe(same_bucket(i)).map(|b| b.lower.get()),
                Some(i as i32)
            );
        }
        exact(7, 3);
        assert_eq!(
            table.probe(same_bucket(3)),
            None,
            "the least worth is replaced"
        );
        // A selective pass's entry goes before any exact one, whatever its worth.
        table.store(same_bucket(8), 1, d(0), (d(-1), d(0)), None, 60);
        assert_eq!(table.probe(same_bucket(7)), None);
        exact(9, 1);
        assert_eq!(table.probe(same_bucket(8)), None);
        assert!(table.probe(same_bucket(9)).is_some());
        // Entries of an older search go first, whatever their worth.
        table.new_generation();
        exact(10, 1);
        exact(11, 1);
        assert!(table.probe(same_bucket(10)).is_some() && table.probe(same_bucket(11)).is_some());
        assert_eq!(
            table.probe(same_bucket(9)),
            None,
            "the old least worth first"
        );
        assert_eq!(table.probe(same_bucket(1)), None, "then the next least");
        for i in [0, 2, 4, 5, 6] {
            assert!(table.probe(same_bucket(i)).is_some());
        }
    }

    #[test]
    fn clearing_forgets_every_entry() {
        for threads in [1, 2] {
            let mut table = BoundTable::new(1);
            table.store(5, EXACT, d(1), (d(0), d(2)), None, 1);
            assert!(table.probe(5).is_some());
            table.clear_for_threads(threads);
            assert_eq!(table.probe(5), None);
        }
    }

    #[test]
    fn concurrent_writers_never_show_a_torn_entry() {
        // Every store of key k is exact at value f(k), so any entry read must say exactly that;
        // a mix of two writes would pair one key's check with another's value.
        let table = BoundTable::new(1);
        let value = |key: u64| d(((key >> 32).wrapping_mul(0x9e37_79b9) % 129) as i32 - 64);
        let hits = Buckets::race(|rng, key| {
            let v = value(key);
            if rng.next_u64().is_multiple_of(2) {
                let tag = 1 + (rng.next_u64() % 5) as u8;
                table.store(key, tag, v, (v - d(1), v + d(1)), None, 9);
                return false;
            }
            let Some(bounds) = table.probe(key) else {
                return false;
            };
            assert_eq!((bounds.lower, bounds.upper), (v, v), "key {key:#x}");
            true
        });
        assert!(hits > 10_000, "the probes found entries");
    }
}
