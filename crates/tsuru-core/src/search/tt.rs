//! The midgame search's transposition table: a fixed-size hash table of search results,
//! allocated once.
//!
//! The table holds `2^k` buckets ([`Buckets`]), each one 64-byte cache line of
//! [`BUCKET_ENTRIES`] entries and their generations, as many as fit in the size asked for: a
//! power-of-two size in MiB is used exactly, any other size is rounded down to a power of
//! two. An entry keeps the upper 32 bits of the position's hash as a check (the lower bits
//! chose the bucket), the depth, the bound kind, the best move, the score and the search
//! generation it was written in. Replacement: the same position's entry is overwritten by a
//! result at least as deep and kept against a shallower one (a Multi-ProbCut test or an early
//! iteration searches positions the table may already hold from deeper searches, of this move
//! or an earlier one); another position's entry is replaced by preference when it is of an
//! older generation, or else the shallowest one is.
//!
//! Units: a table is a `TranspositionTable<V>`, its scores `V`s ([`Score`]s in the midgame
//! search's table). Stores take and probes give back the type; the entry packs its bare
//! integer ([`Value::raw`]), so a table never mixes or converts units. The solver keeps its
//! own table of lower and upper bounds (`endgame::bound_table`).
//!
//! Sharing: every method takes `&self`, so that the threads of a parallel search share one
//! table (behind an `Arc`) without locks. Everything a probe relies on (check, score, depth,
//! bound, best move) is packed into one 64-bit word, written and read with single atomic
//! operations: a reader sees one writer's whole entry or another's, never a mix of two
//! (a torn entry), which is what Hyatt's key-XOR-data check guards against when an entry
//! spans two words; here no check is needed and none can be fooled. Relaxed ordering is
//! enough: an entry is self-contained and nothing else is published through it. Only the
//! generations of the entries live apart (a byte each of a word shared by the bucket): a
//! write lost to a race there changes only which entry a later store replaces, never a
//! probe's answer.

use std::marker::PhantomData;
use std::sync::atomic::Ordering::Relaxed;

use super::buckets::{Buckets, GENERATION_WORD};
use crate::board::Square;
use crate::score::{from_stored, Score, Value};

/// Entries per bucket (five entries and their generations in a 64-byte cache line).
pub const BUCKET_ENTRIES: usize = 5;
const _: () = assert!(BUCKET_ENTRIES <= GENERATION_WORD);

/// Bits of the stored score (two's complement): every score the searches store (at most
/// [`Score::INFINITY`] in size) fits.
const SCORE_BITS: u32 = 15;
const SCORE_MAX: i32 = (1 << (SCORE_BITS - 1)) - 1;
const _: () = assert!(Score::INFINITY.units() <= SCORE_MAX);

/// What a stored score means.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    /// The true value is at least the score (the search failed high).
    Lower,
    /// The true value is at most the score (the search failed low).
    Upper,
    /// The score is the true value.
    Exact,
}

impl Bound {
    /// What a fail-soft search result `best` within the window `(alpha, beta)` means: an
    /// upper bound at or below alpha, a lower bound at or above beta, else exact.
    #[inline]
    pub fn of_result<V: Value>(best: V, alpha: V, beta: V) -> Bound {
        if best <= alpha {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        }
    }
}

/// One stored result, its score a `V` ([`Score`] in the midgame's table, [`Discs`] in the
/// solver's).
///
/// [`Discs`]: crate::score::Discs
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Entry<V> {
    check: u32,
    /// The score's bare integer ([`Value::raw`]).
    score: i16,
    /// Best move's square index + 1 (0 = none).
    best: u8,
    /// Remaining depth of the search that stored it.
    pub depth: u8,
    bound: u8,
    unit: PhantomData<V>,
}

impl<V: Value> Entry<V> {
    /// The stored score.
    #[inline]
    pub fn score(&self) -> V {
        from_stored(i32::from(self.score))
    }

    /// The stored bound kind.
    pub fn bound(&self) -> Bound {
        match self.bound {
            1 => Bound::Lower,
            2 => Bound::Upper,
            _ => Bound::Exact,
        }
    }

    /// The stored best move, if any.
    pub fn best_move(&self) -> Option<Square> {
        self.best
            .checked_sub(1)
            .and_then(|i| Square::new(i as usize))
    }

    fn is_empty(&self) -> bool {
        self.bound == 0
    }

    /// The stored word: check in bits 0-31, score 32-46, best move 47-53, depth 54-61,
    /// bound 62-63. Every field zero (an empty entry) gives a zero word.
    #[inline]
    fn encode(&self) -> u64 {
        u64::from(self.check)
            | (u64::from(self.score as u16) & ((1 << SCORE_BITS) - 1)) << 32
            | u64::from(self.best) << 47
            | u64::from(self.depth) << 54
            | u64::from(self.bound) << 62
    }

    /// Reads the word written by [`Entry::encode`].
    #[inline]
    fn decode(word: u64) -> Entry<V> {
        Entry {
            check: word as u32,
            // Shifted up to the sign bit and back: the 15-bit score sign-extended.
            score: ((word >> 32) as u16 as i16) << 1 >> 1,
            best: (word >> 47) as u8 & 0x7f,
            depth: (word >> 54) as u8,
            bound: (word >> 62) as u8,
            unit: PhantomData,
        }
    }
}

/// A fixed-size table of [`Entry`]s addressed by position hash, shared by reference; its
/// scores are `V`s, packed into the entries' words as their bare integers.
pub struct TranspositionTable<V> {
    buckets: Buckets,
    unit: PhantomData<V>,
}

/// The table's storage: its size, clearing, generations and prefetch ([`Buckets`]).
impl<V: Value> std::ops::Deref for TranspositionTable<V> {
    type Target = Buckets;

    fn deref(&self) -> &Buckets {
        &self.buckets
    }
}

impl<V: Value> std::ops::DerefMut for TranspositionTable<V> {
    fn deref_mut(&mut self) -> &mut Buckets {
        &mut self.buckets
    }
}

impl<V: Value> TranspositionTable<V> {
    /// A table using at most `megabytes` MiB (at least one bucket), allocated now and never
    /// again.
    pub fn new(megabytes: usize) -> TranspositionTable<V> {
        TranspositionTable {
            buckets: Buckets::new(megabytes),
            unit: PhantomData,
        }
    }

    /// The entry stored for `hash`, if any.
    #[inline]
    pub fn probe(&self, hash: u64) -> Option<Entry<V>> {
        let check = (hash >> 32) as u32;
        let bucket = self.buckets.bucket(hash);
        for word in &bucket[..BUCKET_ENTRIES] {
            // One load: the whole entry as one writer left it.
            let word = word.load(Relaxed);
            // Most entries are other positions': the check alone rules them out.
            if word as u32 == check {
                let entry = Entry::decode(word);
                if !entry.is_empty() {
                    return Some(entry);
                }
            }
        }
        None
    }

    /// Stores a result for `hash` (see the module doc for what it replaces).
    #[inline]
    pub fn store(&self, hash: u64, depth: u8, bound: Bound, score: V, best: Option<Square>) {
        let check = (hash >> 32) as u32;
        let bucket = self.buckets.bucket(hash);
        let generations = bucket[GENERATION_WORD].load(Relaxed);
        let mut victim = 0;
        let mut victim_rank = i32::MAX;
        let mut old = Entry::<V>::decode(0);
        for (i, word) in bucket[..BUCKET_ENTRIES].iter().enumerate() {
            let entry = Entry::<V>::decode(word.load(Relaxed));
            if entry.check == check || entry.is_empty() {
                // A deeper result for the same position says more than this one: keep it
                // (module doc). An empty entry has depth 0, so it never stops a store.
                if entry.depth > depth {
                    return;
                }
                victim = i;
                old = entry;
                break;
            }
            // Prefer replacing entries from older searches, then shallower ones.
            let rank = (entry.depth as i32)
                + if self.buckets.is_current(generations, i) {
                    1 << 16
                } else {
                    0
                };
            if rank < victim_rank {
                victim_rank = rank;
                victim = i;
                old = entry;
            }
        }
        // Keep a previous best move when the new result has none.
        let best = best.map_or(if old.check == check { old.best } else { 0 }, |sq| {
            sq.index() as u8 + 1
        });
        let entry = Entry::<V> {
            check,
            score: score.raw().clamp(-SCORE_MAX - 1, SCORE_MAX) as i16,
            best,
            depth,
            bound: match bound {
                Bound::Lower => 1,
                Bound::Upper => 2,
                Bound::Exact => 3,
            },
            unit: PhantomData,
        };
        self.buckets
            .write(bucket, victim, entry.encode(), generations);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The empty entry: stored as a zero word (see [`Entry::encode`]).
    const EMPTY: Entry<Score> = Entry {
        check: 0,
        score: 0,
        best: 0,
        depth: 0,
        bound: 0,
        unit: PhantomData,
    };

    #[test]
    fn entries_round_trip_and_zero_words_are_empty() {
        assert_eq!(EMPTY.encode(), 0);
        assert_eq!(Entry::decode(0), EMPTY);
        for (score, best, depth, bound) in [
            (-(SCORE_MAX + 1) as i16, 64, 255, 2),
            (SCORE_MAX as i16, 0, 0, 3),
            (-1, 1, 7, 1),
            (Score::INFINITY.units() as i16, 33, 250, 2),
            (-Score::INFINITY.units() as i16, 12, 1, 1),
        ] {
            let entry = Entry::<Score> {
                check: 0xdead_beef,
                score,
                best,
                depth,
                bound,
                unit: PhantomData,
            };
            assert_eq!(Entry::decode(entry.encode()), entry);
        }
    }

    /// A prefetch is a hint: for any hash it reads nothing out of bounds and changes no
    /// probe's answer.
    #[test]
    fn prefetch_changes_no_answer() {
        let table = TranspositionTable::<Score>::new(1);
        let hash = 0x0123_4567_89ab_cdef;
        table.store(hash, 9, Bound::Upper, Score::from_units(77), Square::new(5));
        let before = table.probe(hash);
        for shift in 0..64 {
            table.prefetch(u64::MAX << shift);
            table.prefetch(hash ^ (1 << shift));
        }
        assert_eq!(table.probe(hash), before);
        assert_eq!(table.probe(hash ^ 1), None);
    }

    #[test]
    fn store_then_probe() {
        let mut table = TranspositionTable::<Score>::new(1);
        let hash = 0x1234_5678_9abc_def0;
        assert_eq!(table.probe(hash), None);
        let sq = Square::new(19);
        table.store(hash, 7, Bound::Lower, Score::from_units(-350), sq);
        let entry = table.probe(hash).unwrap();
        assert_eq!(
            (entry.depth, entry.bound(), entry.score().units()),
            (7, Bound::Lower, -350)
        );
        assert_eq!(entry.best_move(), sq);
        // A different key in the same bucket does not match.
        assert_eq!(table.probe(hash ^ (1 << 40)), None);
        // Overwriting without a move keeps the old move.
        table.store(hash, 8, Bound::Exact, Score::from_units(12), None);
        let entry = table.probe(hash).unwrap();
        assert_eq!(
            (entry.depth, entry.bound(), entry.best_move()),
            (8, Bound::Exact, sq)
        );
        table.clear_for_threads(1);
        assert_eq!(table.probe(hash), None);
        table.store(hash, 8, Bound::Exact, Score::from_units(12), None);
        table.clear_for_threads(2);
        assert_eq!(table.probe(hash), None);
    }

    #[test]
    fn a_shallower_result_does_not_replace_a_deeper_one_of_the_same_position() {
        let table = TranspositionTable::<Score>::new(1);
        let hash = 0x0000_0007_0000_0003u64;
        let (deep, shallow) = (Square::new(10), Square::new(20));
        table.store(hash, 9, Bound::Lower, Score::from_units(40), deep);
        table.store(hash, 4, Bound::Exact, Score::from_units(-15), shallow);
        let entry = table.probe(hash).unwrap();
        assert_eq!(
            (
                entry.depth,
                entry.bound(),
                entry.score().units(),
                entry.best_move()
            ),
            (9, Bound::Lower, 40, deep),
            "the deeper entry stays whole"
        );
        // As deep or deeper replaces it.
        table.store(hash, 9, Bound::Upper, Score::from_units(12), shallow);
        let entry = table.probe(hash).unwrap();
        assert_eq!(
            (
                entry.depth,
                entry.bound(),
                entry.score().units(),
                entry.best_move()
            ),
            (9, Bound::Upper, 12, shallow)
        );
        table.store(hash, 40, Bound::Exact, Score::from_units(2), None);
        let entry = table.probe(hash).unwrap();
        assert_eq!(
            (entry.depth, entry.score().units(), entry.best_move()),
            (40, 2, shallow)
        );
        table.store(hash, 30, Bound::Exact, Score::from_units(5), deep);
        assert_eq!(table.probe(hash).unwrap().depth, 40);
    }

    #[test]
    fn full_buckets_replace_the_shallowest_entry() {
        let table = TranspositionTable::<Score>::new(1);
        let base = 0x0000_0001_0000_0005u64;
        for i in 0..BUCKET_ENTRIES as u64 {
            table.store(
                base + (i << 32),
                10 + i as u8,
                Bound::Exact,
                Score::ZERO,
                None,
            );
        }
        table.store(base + (99 << 32), 1, Bound::Exact, Score::ZERO, None);
        assert_eq!(table.probe(base), None, "the shallowest entry was replaced");
        assert!(table.probe(base + (99 << 32)).is_some());
        assert!(table.probe(base + (3 << 32)).is_some());
    }

    #[test]
    fn older_generations_are_replaced_first() {
        let table = TranspositionTable::<Score>::new(1);
        let base = 0x0000_0001_0000_0005u64;
        table.store(base, 60, Bound::Exact, Score::ZERO, None);
        table.new_generation();
        for i in 1..BUCKET_ENTRIES as u64 {
            table.store(base + (i << 32), 1, Bound::Exact, Score::ZERO, None);
        }
        table.store(base + (99 << 32), 1, Bound::Exact, Score::ZERO, None);
        assert_eq!(table.probe(base), None, "the old deep entry went first");
    }

    /// What the stress test stores for key `key` at depth `depth`: every field a function of
    /// both, so that an entry mixing two writes (of two keys, or of one key at two depths)
    /// is caught.
    fn stress_entry(key: u64, depth: u8) -> (i32, Bound, Option<Square>) {
        let mix =
            (key >> 32).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (u64::from(depth) * 0x1234_5677);
        let score = (mix % 13_001) as i32 - 6500;
        let bound = [Bound::Lower, Bound::Upper, Bound::Exact][(mix >> 20) as usize % 3];
        (score, bound, Square::new((mix >> 30) as usize % 64))
    }

    #[test]
    fn concurrent_writers_never_show_a_torn_entry() {
        let table = TranspositionTable::<Score>::new(1);
        let hits = Buckets::race(|rng, key| {
            if rng.next_u64().is_multiple_of(2) {
                let depth = (rng.next_u64() % 200) as u8;
                let (score, bound, best) = stress_entry(key, depth);
                table.store(key, depth, bound, Score::from_units(score), best);
                return false;
            }
            let Some(entry) = table.probe(key) else {
                return false;
            };
            let (score, bound, best) = stress_entry(key, entry.depth);
            assert_eq!(
                (entry.score().units(), entry.bound(), entry.best_move()),
                (score, bound, best),
                "torn entry for {key:#x}"
            );
            true
        });
        assert!(hits > 10_000, "the probes found entries");
    }
}
