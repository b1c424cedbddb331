//! The transposition table: a fixed-size hash table of search results, allocated once.
//!
//! The table holds `2^k` buckets, each one 64-byte cache line of [`BUCKET_ENTRIES`] entries,
//! as many as fit in the size asked for: a power-of-two size in MiB is used exactly, any
//! other size is rounded down to a power of two. An entry keeps
//! the upper 32 bits of the position's hash as a check (the lower bits chose the bucket), the
//! depth, the bound kind, the best move, the score and the search generation it was written
//! in. Replacement: the same position's entry is overwritten; otherwise the entry of an older
//! generation, or else the shallowest one, is replaced.
//!
//! A `depth` of [`SOLVED_DEPTH`] marks a value proven to the end of the game.

use crate::board::Square;

/// Entries per bucket (five 12-byte entries fill a 64-byte cache line).
pub const BUCKET_ENTRIES: usize = 5;

/// Depth recorded for endgame-solved (exact game-theoretic) bounds.
pub const SOLVED_DEPTH: u8 = 255;

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
    pub fn of_result(best: i32, alpha: i32, beta: i32) -> Bound {
        if best <= alpha {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        }
    }
}

/// One stored result.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Entry {
    check: u32,
    /// Score in the caller's units.
    pub score: i16,
    /// Best move's square index + 1 (0 = none).
    best: u8,
    /// Remaining depth of the search that stored it.
    pub depth: u8,
    bound: u8,
    generation: u8,
}

const EMPTY: Entry = Entry {
    check: 0,
    score: 0,
    best: 0,
    depth: 0,
    bound: 0,
    generation: 0,
};

impl Entry {
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
}

/// One cache line of entries.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Bucket {
    entries: [Entry; BUCKET_ENTRIES],
}

const EMPTY_BUCKET: Bucket = Bucket {
    entries: [EMPTY; BUCKET_ENTRIES],
};

/// A fixed-size table of [`Entry`]s addressed by position hash.
pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    bucket_mask: usize,
    generation: u8,
}

impl TranspositionTable {
    /// A table using at most `megabytes` MiB (at least one bucket), allocated now and never
    /// again.
    pub fn new(megabytes: usize) -> TranspositionTable {
        let bytes = megabytes.max(1) << 20;
        let bucket_bytes = std::mem::size_of::<Bucket>();
        let mut buckets = 1usize;
        while buckets * 2 * bucket_bytes <= bytes {
            buckets *= 2;
        }
        TranspositionTable {
            buckets: vec![EMPTY_BUCKET; buckets],
            bucket_mask: buckets - 1,
            generation: 1,
        }
    }

    /// Bytes used by the table.
    pub fn size_bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        self.buckets.fill(EMPTY_BUCKET);
        self.generation = 1;
    }

    /// Starts a new search: entries of older searches become preferred victims.
    pub fn new_generation(&mut self) {
        self.generation = self.generation.wrapping_add(1).max(1);
    }

    #[inline]
    fn bucket(&self, hash: u64) -> usize {
        hash as usize & self.bucket_mask
    }

    /// The entry stored for `hash`, if any.
    #[inline]
    pub fn probe(&self, hash: u64) -> Option<Entry> {
        let check = (hash >> 32) as u32;
        self.buckets[self.bucket(hash)]
            .entries
            .iter()
            .find(|e| e.check == check && !e.is_empty())
            .copied()
    }

    /// Stores a result for `hash`.
    #[inline]
    pub fn store(&mut self, hash: u64, depth: u8, bound: Bound, score: i32, best: Option<Square>) {
        let index = self.bucket(hash);
        let check = (hash >> 32) as u32;
        let generation = self.generation;
        let bucket = &mut self.buckets[index].entries;
        let mut victim = 0;
        let mut victim_rank = i32::MAX;
        for (i, entry) in bucket.iter().enumerate() {
            if entry.check == check || entry.is_empty() {
                victim = i;
                break;
            }
            // Prefer replacing entries from older searches, then shallow ones.
            let rank = entry.depth as i32
                + if entry.generation == generation {
                    256
                } else {
                    0
                };
            if rank < victim_rank {
                victim_rank = rank;
                victim = i;
            }
        }
        let old = bucket[victim];
        // Keep a previous best move when the new result has none.
        let best = best.map_or(if old.check == check { old.best } else { 0 }, |sq| {
            sq.index() as u8 + 1
        });
        bucket[victim] = Entry {
            check,
            score: score.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            best,
            depth,
            bound: match bound {
                Bound::Lower => 1,
                Bound::Upper => 2,
                Bound::Exact => 3,
            },
            generation,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_small_and_size_is_respected() {
        assert_eq!(std::mem::size_of::<Entry>(), 12);
        assert_eq!(std::mem::size_of::<Bucket>(), 64);
        for mb in [1, 2, 16] {
            assert_eq!(TranspositionTable::new(mb).size_bytes(), mb << 20);
        }
        let table = TranspositionTable::new(3);
        assert!(table.size_bytes() <= 3 << 20);
        assert!(table.size_bytes() * 2 > 3 << 20);
    }

    #[test]
    fn store_then_probe() {
        let mut table = TranspositionTable::new(1);
        let hash = 0x1234_5678_9abc_def0;
        assert_eq!(table.probe(hash), None);
        let sq = Square::new(19);
        table.store(hash, 7, Bound::Lower, -350, sq);
        let entry = table.probe(hash).unwrap();
        assert_eq!(
            (entry.depth, entry.bound(), entry.score),
            (7, Bound::Lower, -350)
        );
        assert_eq!(entry.best_move(), sq);
        // A different key in the same bucket does not match.
        assert_eq!(table.probe(hash ^ (1 << 40)), None);
        // Overwriting without a move keeps the old move.
        table.store(hash, 8, Bound::Exact, 12, None);
        let entry = table.probe(hash).unwrap();
        assert_eq!(
            (entry.depth, entry.bound(), entry.best_move()),
            (8, Bound::Exact, sq)
        );
        table.clear();
        assert_eq!(table.probe(hash), None);
    }

    #[test]
    fn full_buckets_replace_the_shallowest_entry() {
        let mut table = TranspositionTable::new(1);
        let base = 0x0000_0001_0000_0005u64;
        for i in 0..BUCKET_ENTRIES as u64 {
            table.store(base + (i << 32), 10 + i as u8, Bound::Exact, 0, None);
        }
        table.store(base + (99 << 32), 1, Bound::Exact, 0, None);
        assert_eq!(table.probe(base), None, "the shallowest entry was replaced");
        assert!(table.probe(base + (99 << 32)).is_some());
        assert!(table.probe(base + (3 << 32)).is_some());
    }
}
