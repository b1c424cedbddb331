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
//!
//! Storage: the buckets are 16 `u32` words each (three words an entry, one spare) in one
//! `Vec<u32>`, starting at a cache-line boundary inside it. An empty entry is three zero
//! words, so the table is allocated with `vec![0u32; n]`, which takes zeroed memory from the
//! allocator: the operating system maps zero pages lazily, and creating or clearing even a
//! table of gigabytes costs nothing until the search writes to it (filling it at start-up
//! took seconds before the first reply; docs/results.md).

use crate::board::Square;

/// Entries per bucket (five 12-byte entries fill a 64-byte cache line).
pub const BUCKET_ENTRIES: usize = 5;

/// Words of one stored entry.
const ENTRY_WORDS: usize = 3;

/// Words of the entries of one bucket.
const ENTRIES_WORDS: usize = BUCKET_ENTRIES * ENTRY_WORDS;

/// Words of one bucket: one 64-byte cache line.
const BUCKET_WORDS: usize = 16;

/// Bytes of one bucket.
const BUCKET_BYTES: usize = BUCKET_WORDS * std::mem::size_of::<u32>();

// The entries of a bucket fit in its cache line.
const _: () = assert!(ENTRIES_WORDS <= BUCKET_WORDS);

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

/// The empty entry: stored as three zero words (see [`Entry::encode`]).
#[cfg(test)]
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

    /// The stored form: the check; score, best move and depth; bound and generation. Every
    /// field zero (an empty entry) gives three zero words.
    #[inline]
    fn encode(&self) -> [u32; ENTRY_WORDS] {
        [
            self.check,
            u32::from(self.score as u16) | u32::from(self.best) << 16 | u32::from(self.depth) << 24,
            u32::from(self.bound) | u32::from(self.generation) << 8,
        ]
    }

    /// Reads the form written by [`Entry::encode`].
    #[inline]
    fn decode(words: &[u32]) -> Entry {
        Entry {
            check: words[0],
            score: words[1] as u16 as i16,
            best: (words[1] >> 16) as u8,
            depth: (words[1] >> 24) as u8,
            bound: words[2] as u8,
            generation: (words[2] >> 8) as u8,
        }
    }
}

/// A fixed-size table of [`Entry`]s addressed by position hash.
pub struct TranspositionTable {
    /// Bucket `i` is `words[start + BUCKET_WORDS * i..][..BUCKET_WORDS]`.
    words: Vec<u32>,
    /// First word of bucket 0: the first cache-line boundary in `words`.
    start: usize,
    bucket_mask: usize,
    generation: u8,
}

/// Zeroed (empty) words for `buckets` buckets and the index of the first word on a cache-line
/// boundary. `vec![0; n]` asks the allocator for zeroed memory, which it gets from the
/// operating system as lazily mapped zero pages without writing them.
fn zeroed_words(buckets: usize) -> (Vec<u32>, usize) {
    let words = vec![0u32; buckets * BUCKET_WORDS + BUCKET_WORDS - 1];
    // `u32` alignment makes the distance to the boundary a whole number of words.
    let misaligned = words.as_ptr() as usize % BUCKET_BYTES;
    let start = (BUCKET_BYTES - misaligned) % BUCKET_BYTES / std::mem::size_of::<u32>();
    (words, start)
}

impl TranspositionTable {
    /// A table using at most `megabytes` MiB (at least one bucket), allocated now and never
    /// again.
    pub fn new(megabytes: usize) -> TranspositionTable {
        let bytes = megabytes.max(1) << 20;
        let mut buckets = 1usize;
        while buckets * 2 * BUCKET_BYTES <= bytes {
            buckets *= 2;
        }
        let (words, start) = zeroed_words(buckets);
        TranspositionTable {
            words,
            start,
            bucket_mask: buckets - 1,
            generation: 1,
        }
    }

    /// Bytes used by the table's buckets.
    pub fn size_bytes(&self) -> usize {
        (self.bucket_mask + 1) * BUCKET_BYTES
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        // A fresh zeroed allocation instead of writing every bucket: instant at any size. The
        // old table goes first, so that the two never take memory at the same time.
        self.words = Vec::new();
        (self.words, self.start) = zeroed_words(self.bucket_mask + 1);
        self.generation = 1;
    }

    /// Starts a new search: entries of older searches become preferred victims.
    pub fn new_generation(&mut self) {
        self.generation = self.generation.wrapping_add(1).max(1);
    }

    /// The first word of `hash`'s bucket.
    #[inline]
    fn bucket(&self, hash: u64) -> usize {
        self.start + (hash as usize & self.bucket_mask) * BUCKET_WORDS
    }

    /// The entry stored for `hash`, if any.
    #[inline]
    pub fn probe(&self, hash: u64) -> Option<Entry> {
        let check = (hash >> 32) as u32;
        let first = self.bucket(hash);
        // A fixed-size view: one bounds check for the whole bucket.
        let bucket: &[u32; ENTRIES_WORDS] = self.words[first..first + ENTRIES_WORDS]
            .try_into()
            .expect("a bucket's words");
        for words in bucket.chunks_exact(ENTRY_WORDS) {
            // Most entries are other positions': the check word alone rules them out.
            if words[0] == check {
                let entry = Entry::decode(words);
                if !entry.is_empty() {
                    return Some(entry);
                }
            }
        }
        None
    }

    /// Stores a result for `hash`.
    #[inline]
    pub fn store(&mut self, hash: u64, depth: u8, bound: Bound, score: i32, best: Option<Square>) {
        let first = self.bucket(hash);
        let check = (hash >> 32) as u32;
        let generation = self.generation;
        let bucket: &mut [u32; ENTRIES_WORDS] = (&mut self.words[first..first + ENTRIES_WORDS])
            .try_into()
            .expect("a bucket's words");
        let mut victim = 0;
        let mut victim_rank = i32::MAX;
        for (i, entry) in bucket
            .chunks_exact(ENTRY_WORDS)
            .map(Entry::decode)
            .enumerate()
        {
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
        let slot = &mut bucket[victim * ENTRY_WORDS..(victim + 1) * ENTRY_WORDS];
        let old = Entry::decode(slot);
        // Keep a previous best move when the new result has none.
        let best = best.map_or(if old.check == check { old.best } else { 0 }, |sq| {
            sq.index() as u8 + 1
        });
        let entry = Entry {
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
        slot.copy_from_slice(&entry.encode());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_size_asked_for_is_respected() {
        for mb in [1, 2, 16] {
            assert_eq!(TranspositionTable::new(mb).size_bytes(), mb << 20);
        }
        let table = TranspositionTable::new(3);
        assert!(table.size_bytes() <= 3 << 20);
        assert!(table.size_bytes() * 2 > 3 << 20);
    }

    #[test]
    fn entries_round_trip_and_zero_words_are_empty() {
        assert_eq!(EMPTY.encode(), [0; ENTRY_WORDS]);
        assert_eq!(Entry::decode(&[0; ENTRY_WORDS]), EMPTY);
        let entry = Entry {
            check: 0xdead_beef,
            score: -12345,
            best: 64,
            depth: SOLVED_DEPTH,
            bound: 2,
            generation: 255,
        };
        assert_eq!(Entry::decode(&entry.encode()), entry);
    }

    #[test]
    fn buckets_start_on_cache_lines_before_and_after_a_clear() {
        let mut table = TranspositionTable::new(1);
        for _ in 0..2 {
            let first = &table.words[table.start] as *const u32 as usize;
            assert_eq!(first % 64, 0);
            assert!(table.start + (table.bucket_mask + 1) * BUCKET_WORDS <= table.words.len());
            assert!(table.words.iter().all(|&w| w == 0));
            table.store(0x55, 3, Bound::Exact, 1, None);
            assert!(table.probe(0x55).is_some());
            table.clear();
            assert_eq!(table.probe(0x55), None);
        }
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
