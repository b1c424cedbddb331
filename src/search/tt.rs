//! The transposition table: a fixed-size hash table of search results, allocated once.
//!
//! The table holds `2^k` buckets, each one 64-byte cache line of [`BUCKET_ENTRIES`] entries,
//! as many as fit in the size asked for: a power-of-two size in MiB is used exactly, any
//! other size is rounded down to a power of two. An entry keeps
//! the upper 32 bits of the position's hash as a check (the lower bits chose the bucket), the
//! depth, the bound kind, the best move, the score and the search generation it was written
//! in. Replacement: the same position's entry is overwritten by a result at least as deep
//! and kept against a shallower one (a Multi-ProbCut test or an early iteration searches
//! positions the table may already hold from deeper searches, of this move or an earlier
//! one); another position's entry is replaced by preference when it is of an older
//! generation, or else the shallowest one is, and among equally deep ones the one worth
//! least (what a store says its result is worth: the midgame's depth again, the solver's the
//! size of the subtree it searched, whose entries all have the solved depth).
//!
//! A `depth` of [`SOLVED_DEPTH`] marks a value proven to the end of the game.
//!
//! Units: a table is a `TranspositionTable<V>`, its scores `V`s: [`Score`]s in the midgame
//! search's table, [`Discs`] in the solver's. Stores take and probes give back the type; the
//! entry packs its bare integer ([`Value::raw`]), so a table never mixes or converts units.
//!
//! [`Discs`]: crate::score::Discs
//!
//! Sharing: every method takes `&self`, so that the threads of a parallel search share one
//! table (behind an `Arc`) without locks. Everything a probe relies on (check, score, depth,
//! bound, best move) is packed into one 64-bit word, written and read with single atomic
//! operations: a reader sees one writer's whole entry or another's, never a mix of two
//! (a torn entry), which is what Hyatt's key-XOR-data check guards against when an entry
//! spans two words; here no check is needed and none can be fooled. Relaxed ordering is
//! enough: an entry is self-contained and nothing else is published through it. Only the
//! generation and the worth of an entry live apart (a byte each of two words shared by the
//! bucket): a write lost to a race there changes only which entry a later store replaces,
//! never a probe's answer.
//!
//! Storage: the buckets are 8 `u64` words each (five entries, the generations, the worths,
//! one spare) in one slice, starting at a cache-line boundary inside it. An empty entry is a
//! zero word, so the table is allocated zeroed, which the allocator takes from the operating
//! system as lazily mapped zero pages: creating or clearing even a table of gigabytes costs
//! nothing until the search writes to it (filling it at start-up took seconds before the
//! first reply; docs/results.md). The same allocation holds exactly the `--hash` size
//! whatever the number of threads sharing it.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

use crate::board::Square;
use crate::score::{Score, Value};

/// Entries per bucket (five entries and their generations fill a 64-byte cache line).
pub const BUCKET_ENTRIES: usize = 5;

/// The bucket word holding the entries' generations, one byte each (entry `i` in byte `i`).
const GENERATION_WORD: usize = BUCKET_ENTRIES;

/// The bucket word holding what each entry is worth keeping (see
/// [`TranspositionTable::store_worth`]), one byte each (entry `i` in byte `i`).
const WORTH_WORD: usize = BUCKET_ENTRIES + 1;

/// Words of one bucket: one 64-byte cache line.
const BUCKET_WORDS: usize = 8;

/// Bytes of one bucket.
const BUCKET_BYTES: usize = BUCKET_WORDS * std::mem::size_of::<u64>();

// The entries, the generation word and the worth word of a bucket fit in its cache line.
const _: () = assert!(GENERATION_WORD < BUCKET_WORDS && WORTH_WORD < BUCKET_WORDS);

/// Bits of the stored score (two's complement): every score the searches store (at most
/// [`Score::INFINITY`] in size) fits.
const SCORE_BITS: u32 = 15;
const SCORE_MAX: i32 = (1 << (SCORE_BITS - 1)) - 1;
const _: () = assert!(Score::INFINITY.units() <= SCORE_MAX);

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
        V::from_raw(i32::from(self.score))
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
    /// Bucket `i` is `words[start + BUCKET_WORDS * i..][..BUCKET_WORDS]`.
    words: Box<[AtomicU64]>,
    /// First word of bucket 0: the first cache-line boundary in `words`.
    start: usize,
    bucket_mask: usize,
    generation: AtomicU8,
    unit: PhantomData<V>,
}

/// Zeroed (empty) words for `buckets` buckets and the index of the first word on a cache-line
/// boundary.
fn zeroed_words(buckets: usize) -> (Box<[AtomicU64]>, usize) {
    let len = buckets * BUCKET_WORDS + BUCKET_WORDS - 1;
    // `new_zeroed_slice` asks the allocator for zeroed memory (`calloc`: the 8-byte alignment
    // is within what it guarantees), which the operating system maps lazily; building the
    // atomics one by one would write every page at start-up.
    // SAFETY: an all-zero `AtomicU64` is a valid `AtomicU64` holding 0.
    let words = unsafe { Box::<[AtomicU64]>::new_zeroed_slice(len).assume_init() };
    // `u64` alignment makes the distance to the boundary a whole number of words.
    let misaligned = words.as_ptr() as usize % BUCKET_BYTES;
    let start = (BUCKET_BYTES - misaligned) % BUCKET_BYTES / std::mem::size_of::<u64>();
    huge_pages::advise(&words);
    (words, start)
}

/// Asks Linux to back the table with huge pages where it can: nearly every probe lands on a
/// page of its own, and with 4 KiB pages each one also misses the address-translation cache.
#[cfg(target_os = "linux")]
mod huge_pages {
    use std::ffi::{c_int, c_void};
    use std::sync::atomic::AtomicU64;

    /// Huge page size on x86-64 and aarch64 Linux with 4 KiB base pages.
    const HUGE_PAGE: usize = 2 << 20;

    /// `MADV_HUGEPAGE` from `<sys/mman.h>`.
    const MADV_HUGEPAGE: c_int = 14;

    extern "C" {
        fn madvise(addr: *mut c_void, len: usize, advice: c_int) -> c_int;
    }

    /// Advises huge pages for the whole huge pages inside `words` (none for a small table).
    /// Advice only: where the kernel refuses (or has transparent huge pages off) nothing
    /// changes, and the words' contents are never touched.
    pub(super) fn advise(words: &[AtomicU64]) {
        let begin = words.as_ptr() as usize;
        let end = begin + std::mem::size_of_val(words);
        let first = begin.next_multiple_of(HUGE_PAGE);
        let last = end / HUGE_PAGE * HUGE_PAGE;
        if first < last {
            // SAFETY: the range lies inside the allocation `words` owns, starts on a page
            // boundary, and MADV_HUGEPAGE changes only how pages are backed, never contents.
            unsafe {
                madvise(first as *mut c_void, last - first, MADV_HUGEPAGE);
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod huge_pages {
    /// Elsewhere the table keeps the system's pages.
    pub(super) fn advise(_: &[std::sync::atomic::AtomicU64]) {}
}

impl<V: Value> TranspositionTable<V> {
    /// A table using at most `megabytes` MiB (at least one bucket), allocated now and never
    /// again.
    pub fn new(megabytes: usize) -> TranspositionTable<V> {
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
            generation: AtomicU8::new(1),
            unit: PhantomData,
        }
    }

    /// Bytes used by the table's buckets.
    pub fn size_bytes(&self) -> usize {
        (self.bucket_mask + 1) * BUCKET_BYTES
    }

    /// Forgets every entry (no search may be using the table: it takes `&mut`).
    pub fn clear(&mut self) {
        // A fresh zeroed allocation instead of writing every bucket: instant at any size. The
        // old table goes first, so that the two never take memory at the same time.
        self.words = Box::new([]);
        (self.words, self.start) = zeroed_words(self.bucket_mask + 1);
        self.generation = AtomicU8::new(1);
    }

    /// Forgets every entry by writing zeros over the table where it is (no search may be
    /// using it), which also maps every page in now. For tables that several threads will
    /// share: a page first written while two threads run costs a copy-on-write fault and a
    /// flush of the other core's TLB (docs/results.md, "Parallel search"), while [`clear`]'s
    /// fresh allocation leaves every page to be faulted in during the search.
    ///
    /// [`clear`]: TranspositionTable::clear
    pub fn clear_in_place(&mut self) {
        for word in self.words.iter_mut() {
            *word.get_mut() = 0;
        }
        self.generation = AtomicU8::new(1);
    }

    /// Forgets every entry, the way that suits a table searched by `threads` threads: one
    /// thread takes [`clear`]'s fresh allocation, several get [`clear_in_place`].
    ///
    /// [`clear`]: TranspositionTable::clear
    /// [`clear_in_place`]: TranspositionTable::clear_in_place
    pub fn clear_for_threads(&mut self, threads: usize) {
        if threads > 1 {
            self.clear_in_place();
        } else {
            self.clear();
        }
    }

    /// Readies the table for `threads` threads: with more than one, every page is mapped in
    /// now ([`TranspositionTable::prefault`]); with one, nothing is done.
    pub fn prepare_for_threads(&self, threads: usize) {
        if threads > 1 {
            self.prefault();
        }
    }

    /// Maps every page of the table in now, keeping what it holds: one write of an
    /// unchanged word a page (see [`TranspositionTable::clear_in_place`] for why).
    pub fn prefault(&self) {
        const WORDS_PER_PAGE: usize = 4096 / std::mem::size_of::<u64>();
        for word in self.words.iter().step_by(WORDS_PER_PAGE) {
            word.fetch_or(0, Relaxed);
        }
    }

    /// Starts a new search: entries of older searches become preferred victims. Called once
    /// a search, by the thread that leads it.
    pub fn new_generation(&self) {
        let next = self.generation.load(Relaxed).wrapping_add(1).max(1);
        self.generation.store(next, Relaxed);
    }

    /// The first word of `hash`'s bucket.
    #[inline]
    fn bucket(&self, hash: u64) -> usize {
        self.start + (hash as usize & self.bucket_mask) * BUCKET_WORDS
    }

    /// The words of `hash`'s bucket, as a fixed-size view (one bounds check for all).
    #[inline]
    fn bucket_words(&self, hash: u64) -> &[AtomicU64; BUCKET_WORDS] {
        let first = self.bucket(hash);
        self.words[first..first + BUCKET_WORDS]
            .try_into()
            .expect("a bucket's words")
    }

    /// Asks the processor to bring `hash`'s bucket into the cache, so that a probe of it soon
    /// after does not wait for memory (a hint: no effect on any result).
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let word = &self.words[self.bucket(hash)];
            // SAFETY: a prefetch only reads a hint from the address, never memory through it,
            // and the address is of a word of the table.
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch::<_MM_HINT_T0>(word.as_ptr() as *const i8);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = hash;
    }

    /// The entry stored for `hash`, if any.
    #[inline]
    pub fn probe(&self, hash: u64) -> Option<Entry<V>> {
        let check = (hash >> 32) as u32;
        let bucket = self.bucket_words(hash);
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

    /// Stores a result for `hash`, worth its depth against other positions' entries.
    #[inline]
    pub fn store(&self, hash: u64, depth: u8, bound: Bound, score: V, best: Option<Square>) {
        self.store_worth(hash, depth, bound, score, best, depth);
    }

    /// Stores a result for `hash`; `worth` ranks it against other positions' entries of the
    /// same search when one must make room (the lowest worth goes first). The midgame's worth
    /// is its depth ([`TranspositionTable::store`]); the solver's, whose entries all have
    /// the solved depth, is the size of the subtree the result cost.
    #[inline]
    pub fn store_worth(
        &self,
        hash: u64,
        depth: u8,
        bound: Bound,
        score: V,
        best: Option<Square>,
        worth: u8,
    ) {
        let check = (hash >> 32) as u32;
        let generation = self.generation.load(Relaxed);
        let bucket = self.bucket_words(hash);
        let generations = bucket[GENERATION_WORD].load(Relaxed);
        let worths = bucket[WORTH_WORD].load(Relaxed);
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
            // Prefer replacing entries from older searches, then those worth less.
            let rank = (entry.depth as i32) * 256
                + ((worths >> (8 * i)) & 0xff) as i32
                + if (generations >> (8 * i)) as u8 == generation {
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
        bucket[victim].store(entry.encode(), Relaxed);
        let shift = 8 * victim;
        let generations = (generations & !(0xff << shift)) | (u64::from(generation) << shift);
        bucket[GENERATION_WORD].store(generations, Relaxed);
        let worths = (worths & !(0xff << shift)) | (u64::from(worth) << shift);
        bucket[WORTH_WORD].store(worths, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_size_asked_for_is_respected() {
        for mb in [1, 2, 16] {
            assert_eq!(TranspositionTable::<Score>::new(mb).size_bytes(), mb << 20);
        }
        let table = TranspositionTable::<Score>::new(3);
        assert!(table.size_bytes() <= 3 << 20);
        assert!(table.size_bytes() * 2 > 3 << 20);
    }

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
            (-(SCORE_MAX + 1) as i16, 64, SOLVED_DEPTH, 2),
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

    #[test]
    fn prefault_keeps_entries_and_clear_in_place_forgets_them() {
        let mut table = TranspositionTable::<Score>::new(1);
        table.store(0x55, 3, Bound::Exact, Score::from_units(7), None);
        table.store(
            0x1234_5678_9abc,
            5,
            Bound::Lower,
            Score::from_units(-3),
            None,
        );
        let before: Vec<u64> = table.words.iter().map(|w| w.load(Relaxed)).collect();
        table.prefault();
        let after: Vec<u64> = table.words.iter().map(|w| w.load(Relaxed)).collect();
        assert_eq!(before, after, "prefault changes nothing");
        assert_eq!(table.probe(0x55).map(|e| e.score().units()), Some(7));
        let start = table.start;
        table.clear_in_place();
        assert_eq!(table.start, start, "the same allocation");
        assert!(table.words.iter().all(|w| w.load(Relaxed) == 0));
        assert_eq!(table.probe(0x55), None);
        assert_eq!(table.probe(0x1234_5678_9abc), None);
        table.store(0x55, 3, Bound::Exact, Score::from_units(9), None);
        assert_eq!(table.probe(0x55).map(|e| e.score().units()), Some(9));
    }

    #[test]
    fn buckets_start_on_cache_lines_before_and_after_a_clear() {
        let mut table = TranspositionTable::<Score>::new(1);
        for _ in 0..2 {
            let first = &table.words[table.start] as *const AtomicU64 as usize;
            assert_eq!(first % 64, 0);
            assert!(table.start + (table.bucket_mask + 1) * BUCKET_WORDS <= table.words.len());
            assert!(table.words.iter().all(|w| w.load(Relaxed) == 0));
            table.store(0x55, 3, Bound::Exact, Score::from_units(1), None);
            assert!(table.probe(0x55).is_some());
            table.clear();
            assert_eq!(table.probe(0x55), None);
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
        table.clear();
        assert_eq!(table.probe(hash), None);
    }

    /// In a full bucket of one search's entries of equal depth (the solver's solved
    /// entries), a new position replaces the entry worth least and keeps the others.
    #[test]
    fn a_new_position_replaces_the_entry_worth_least() {
        let table = TranspositionTable::<Score>::new(1);
        // Hashes of one bucket (the same low bits), different checks.
        let hash = |i: u64| (i + 1) << 32 | 0x2a;
        for (i, worth) in [(0, 9), (1, 4), (2, 30), (3, 2), (4, 17)] {
            table.store_worth(
                hash(i),
                SOLVED_DEPTH,
                Bound::Exact,
                Score::from_units(i as i32),
                None,
                worth,
            );
        }
        table.store_worth(
            hash(5),
            SOLVED_DEPTH,
            Bound::Exact,
            Score::from_units(5),
            None,
            3,
        );
        assert_eq!(table.probe(hash(3)), None, "the least worth is replaced");
        for i in [0, 1, 2, 4, 5] {
            assert_eq!(
                table.probe(hash(i)).map(|e| e.score().units()),
                Some(i as i32)
            );
        }
        // Entries of an older search go first, whatever their worth.
        table.new_generation();
        table.store_worth(
            hash(6),
            SOLVED_DEPTH,
            Bound::Exact,
            Score::from_units(6),
            None,
            1,
        );
        table.store_worth(
            hash(7),
            SOLVED_DEPTH,
            Bound::Exact,
            Score::from_units(7),
            None,
            1,
        );
        assert!(table.probe(hash(6)).is_some() && table.probe(hash(7)).is_some());
        assert_eq!(
            table.probe(hash(5)),
            None,
            "the old search's least worth went first"
        );
        assert_eq!(table.probe(hash(1)), None, "then the next least");
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
        table.store(hash, SOLVED_DEPTH, Bound::Exact, Score::from_units(2), None);
        let entry = table.probe(hash).unwrap();
        assert_eq!(
            (entry.depth, entry.score().units(), entry.best_move()),
            (SOLVED_DEPTH, 2, shallow)
        );
        table.store(hash, 30, Bound::Exact, Score::from_units(5), deep);
        assert_eq!(table.probe(hash).unwrap().depth, SOLVED_DEPTH);
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
        // Few buckets and few keys, so that the threads keep writing the same entries.
        let table = TranspositionTable::<Score>::new(1);
        let hits = std::sync::atomic::AtomicU64::new(0);
        std::thread::scope(|scope| {
            for thread in 0..4u64 {
                let (table, hits) = (&table, &hits);
                scope.spawn(move || {
                    let mut rng = crate::rng::Rng::new(thread + 1);
                    for _ in 0..200_000 {
                        let key = ((rng.next_u64() % 40 + 1) << 32) | (rng.next_u64() % 8);
                        if rng.next_u64().is_multiple_of(2) {
                            let depth = (rng.next_u64() % 200) as u8;
                            let (score, bound, best) = stress_entry(key, depth);
                            table.store(key, depth, bound, Score::from_units(score), best);
                        } else if let Some(entry) = table.probe(key) {
                            let (score, bound, best) = stress_entry(key, entry.depth);
                            assert_eq!(
                                (entry.score().units(), entry.bound(), entry.best_move()),
                                (score, bound, best),
                                "torn entry for {key:#x}"
                            );
                            hits.fetch_add(1, Relaxed);
                        }
                    }
                });
            }
        });
        assert!(hits.load(Relaxed) > 10_000, "the probes found entries");
    }
}
