//! The storage of the search's hash tables: `2^k` buckets of one 64-byte cache line each
//! (eight atomic words), allocated once, with the search generation that ages their
//! entries. What the words of a bucket hold is each table's own: the midgame's
//! [`TranspositionTable`] and the solver's `BoundTable`.
//!
//! An empty table is all zero words, so it is allocated zeroed, which the allocator takes
//! from the operating system as lazily mapped zero pages: creating or clearing even a table
//! of gigabytes costs nothing until the search writes to it (filling it at start-up took
//! seconds before the first reply; docs/results.md). On Linux the table asks for huge pages:
//! nearly every probe lands on a page of its own, and with 4 KiB pages each one also misses
//! the address-translation cache. The same allocation holds exactly the `--hash` size
//! whatever the number of threads sharing it.
//!
//! [`TranspositionTable`]: super::tt::TranspositionTable

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

/// Words of one bucket: one 64-byte cache line.
pub const BUCKET_WORDS: usize = 8;

/// Bytes of one bucket.
pub const BUCKET_BYTES: usize = BUCKET_WORDS * std::mem::size_of::<u64>();

/// The bucket word holding its entries' generations, one byte each (entry `i` in byte `i`);
/// the words before it hold entries, as many as a table uses.
pub const GENERATION_WORD: usize = BUCKET_WORDS - 1;

/// A table's buckets and its search generation (see the module doc).
pub struct Buckets {
    /// Bucket `i` is `words[start + BUCKET_WORDS * i..][..BUCKET_WORDS]`.
    words: Box<[AtomicU64]>,
    /// First word of bucket 0: the first cache-line boundary in `words`.
    start: usize,
    mask: usize,
    generation: AtomicU8,
}

/// Zeroed (empty) words for `buckets` buckets and the index of the first word on a cache-line
/// boundary, or `None` when the allocator cannot give that much memory.
fn try_zeroed_words(buckets: usize) -> Option<(Box<[AtomicU64]>, usize)> {
    let len = buckets.checked_mul(BUCKET_WORDS)? + BUCKET_WORDS - 1;
    let layout = std::alloc::Layout::array::<AtomicU64>(len).ok()?;
    // The allocator's zeroed memory (`calloc`: the 8-byte alignment is within what it
    // guarantees), which the operating system maps lazily; building the atomics one by one
    // would write every page at start-up. Asked for fallibly: a table larger than the
    // machine can give is an answer to shrink it, not an abort.
    // SAFETY: `layout` has a nonzero size (`len >= BUCKET_WORDS`).
    let pointer = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<AtomicU64>();
    if pointer.is_null() {
        return None;
    }
    // SAFETY: `pointer` holds `len` zeroed `AtomicU64`s (an all-zero `AtomicU64` is a valid
    // one holding 0), allocated by the global allocator with the layout a `Box<[AtomicU64]>`
    // of `len` frees with.
    let words = unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(pointer, len)) };
    // `u64` alignment makes the distance to the boundary a whole number of words.
    let misaligned = words.as_ptr() as usize % BUCKET_BYTES;
    let start = (BUCKET_BYTES - misaligned) % BUCKET_BYTES / std::mem::size_of::<u64>();
    huge_pages::advise(&words);
    Some((words, start))
}

/// The words of `buckets` buckets (a power of two), or of the largest power of two below
/// that the allocator can give, with the bucket count they hold; a table cut down is
/// logged as a warning.
fn zeroed_words(buckets: usize) -> (Box<[AtomicU64]>, usize, usize) {
    let mut count = buckets.max(1);
    loop {
        if let Some((words, start)) = try_zeroed_words(count) {
            if count < buckets {
                log::warn!(
                    "a table of {} MiB could not be allocated: using {} MiB",
                    (buckets * BUCKET_BYTES) >> 20,
                    (count * BUCKET_BYTES) >> 20
                );
            }
            return (words, start, count);
        }
        assert!(count > 1, "no memory for a one-bucket table");
        count /= 2;
    }
}

/// Asks Linux to back the table with huge pages where it can.
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

impl Buckets {
    /// As many buckets as fit in `megabytes` MiB (at least one), a power of two: a
    /// power-of-two size is used exactly, any other is rounded down to one. When the
    /// machine cannot give that much memory, the largest power of two it can (a warning
    /// says so): a `--hash` too large for the machine shrinks the table instead of ending
    /// the engine.
    pub fn new(megabytes: usize) -> Buckets {
        let (words, start, buckets) = zeroed_words(Buckets::bytes_for(megabytes) / BUCKET_BYTES);
        Buckets {
            words,
            start,
            mask: buckets - 1,
            generation: AtomicU8::new(1),
        }
    }

    /// Bytes the buckets of a table of `megabytes` MiB use ([`Buckets::new`]'s rounding).
    pub fn bytes_for(megabytes: usize) -> usize {
        let bytes = megabytes.max(1) << 20;
        let mut buckets = 1usize;
        while buckets * 2 * BUCKET_BYTES <= bytes {
            buckets *= 2;
        }
        buckets * BUCKET_BYTES
    }

    /// Bytes used by the buckets.
    pub fn size_bytes(&self) -> usize {
        (self.mask + 1) * BUCKET_BYTES
    }

    /// Zeroes every word (no search may be using the table: it takes `&mut`) by a fresh
    /// zeroed allocation: instant at any size.
    pub fn clear(&mut self) {
        // The old words go first, so that the two never take memory at the same time.
        self.words = Box::new([]);
        let buckets;
        (self.words, self.start, buckets) = zeroed_words(self.mask + 1);
        self.mask = buckets - 1;
        self.generation = AtomicU8::new(1);
    }

    /// Starts the search generations again, as a fresh allocation does (for tables that
    /// empty themselves another way).
    pub fn reset_generation(&mut self) {
        self.generation = AtomicU8::new(1);
    }

    /// Zeroes every word where it is, which also maps every page in now. For tables that
    /// several threads will share: a page first written while two threads run costs a
    /// copy-on-write fault and a flush of the other core's TLB (docs/results.md, "Parallel
    /// search"), while [`Buckets::clear`]'s fresh allocation leaves every page to be faulted
    /// in during the search.
    pub fn clear_in_place(&mut self) {
        for word in self.words.iter_mut() {
            *word.get_mut() = 0;
        }
        self.generation = AtomicU8::new(1);
    }

    /// Zeroes every word the way that suits a table searched by `threads` threads: one
    /// thread takes [`Buckets::clear`]'s fresh allocation, several get
    /// [`Buckets::clear_in_place`].
    pub fn clear_for_threads(&mut self, threads: usize) {
        if threads > 1 {
            self.clear_in_place();
        } else {
            self.clear();
        }
    }

    /// Readies the table for `threads` threads: with more than one, every page is mapped in
    /// now ([`Buckets::prefault`]); with one, nothing is done.
    pub fn prepare_for_threads(&self, threads: usize) {
        if threads > 1 {
            self.prefault();
        }
    }

    /// Maps every page in now, keeping what it holds: one write of an unchanged word a page
    /// (see [`Buckets::clear_in_place`] for why).
    pub fn prefault(&self) {
        const WORDS_PER_PAGE: usize = 4096 / std::mem::size_of::<u64>();
        for word in self.words.iter().step_by(WORDS_PER_PAGE) {
            word.fetch_or(0, Relaxed);
        }
    }

    /// The generation of the search in progress (never 0).
    #[inline]
    pub fn generation(&self) -> u8 {
        self.generation.load(Relaxed)
    }

    /// Starts a new search: entries of older searches become preferred victims. Called once
    /// a search, by the thread that leads it.
    pub fn new_generation(&self) {
        let next = self.generation().wrapping_add(1).max(1);
        self.generation.store(next, Relaxed);
    }

    /// The first word of `hash`'s bucket (chosen by the hash's low bits).
    #[inline]
    fn first_word(&self, hash: u64) -> usize {
        self.start + (hash as usize & self.mask) * BUCKET_WORDS
    }

    /// The words of `hash`'s bucket, as a fixed-size view (one bounds check for all).
    #[inline]
    pub fn bucket(&self, hash: u64) -> &[AtomicU64; BUCKET_WORDS] {
        let first = self.first_word(hash);
        self.words[first..first + BUCKET_WORDS]
            .try_into()
            .expect("a bucket's words")
    }

    /// Whether entry `i` of a bucket whose generation word reads `generations` was written
    /// by the search in progress.
    #[inline]
    pub fn is_current(&self, generations: u64, i: usize) -> bool {
        (generations >> (8 * i)) as u8 == self.generation()
    }

    /// Writes `word` as entry `i` of `bucket`, marked as the search in progress's
    /// (`generations`: the bucket's generation word as read before the store chose `i`; a
    /// race with another store there changes only which entry a later store replaces).
    #[inline]
    pub fn write(&self, bucket: &[AtomicU64; BUCKET_WORDS], i: usize, word: u64, generations: u64) {
        bucket[i].store(word, Relaxed);
        let shift = 8 * i;
        let generations =
            (generations & !(0xff << shift)) | (u64::from(self.generation()) << shift);
        bucket[GENERATION_WORD].store(generations, Relaxed);
    }

    /// Asks the processor to bring `hash`'s bucket into the cache, so that a probe of it soon
    /// after does not wait for memory (a hint: no effect on any result).
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let word = &self.words[self.first_word(hash)];
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

    /// Runs four threads that each make 200 000 random stores or probes of a few keys
    /// (40 checks in 8 buckets, so that they keep writing the same entries) through
    /// `store_or_probe(rng, key)`, which returns whether its probe found an entry; returns
    /// how many did. The tables' tests of torn entries.
    #[cfg(test)]
    pub fn race(store_or_probe: impl Fn(&mut crate::rng::Rng, u64) -> bool + Sync) -> u64 {
        let hits = AtomicU64::new(0);
        std::thread::scope(|scope| {
            for thread in 0..4u64 {
                let (store_or_probe, hits) = (&store_or_probe, &hits);
                scope.spawn(move || {
                    let mut rng = crate::rng::Rng::new(thread + 1);
                    for _ in 0..200_000 {
                        let key = ((rng.next_u64() % 40 + 1) << 32) | (rng.next_u64() % 8);
                        if store_or_probe(&mut rng, key) {
                            hits.fetch_add(1, Relaxed);
                        }
                    }
                });
            }
        });
        hits.into_inner()
    }

    /// Whether every word is zero (tests).
    #[cfg(test)]
    pub fn is_zero(&self) -> bool {
        self.words.iter().all(|w| w.load(Relaxed) == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_larger_than_the_machine_is_cut_down_not_fatal() {
        // 2^40 MiB (an exbibyte): more than any machine gives; the allocator says no, the
        // table halves until it fits, and it works.
        let table = Buckets::new(1 << 40);
        let bytes = table.size_bytes();
        assert!((BUCKET_BYTES..1 << 60).contains(&bytes), "{bytes}");
        assert!((bytes / BUCKET_BYTES).is_power_of_two());
        assert!(table.bucket(12345).iter().all(|w| w.load(Relaxed) == 0));
    }

    #[test]
    fn the_size_asked_for_is_respected() {
        for mb in [1, 2, 16] {
            assert_eq!(Buckets::new(mb).size_bytes(), mb << 20);
        }
        let buckets = Buckets::new(3);
        assert!(buckets.size_bytes() <= 3 << 20);
        assert!(buckets.size_bytes() * 2 > 3 << 20);
    }

    #[test]
    fn buckets_start_on_cache_lines_before_and_after_a_clear() {
        let mut buckets = Buckets::new(1);
        for _ in 0..2 {
            assert!(buckets.is_zero());
            for hash in [0, 1, 0x55, u64::MAX] {
                let bucket = buckets.bucket(hash);
                assert_eq!(bucket.as_ptr() as usize % BUCKET_BYTES, 0);
            }
            buckets.bucket(0x55)[3].store(7, Relaxed);
            assert!(!buckets.is_zero());
            buckets.clear();
        }
    }

    #[test]
    fn prefault_keeps_words_and_clear_in_place_zeroes_them() {
        let mut buckets = Buckets::new(1);
        buckets.bucket(0x55)[0].store(0x1234, Relaxed);
        buckets.bucket(0x9abc)[7].store(99, Relaxed);
        buckets.prefault();
        assert_eq!(buckets.bucket(0x55)[0].load(Relaxed), 0x1234);
        assert_eq!(buckets.bucket(0x9abc)[7].load(Relaxed), 99);
        let start = buckets.start;
        buckets.new_generation();
        buckets.clear_in_place();
        assert_eq!(buckets.start, start, "the same allocation");
        assert!(buckets.is_zero());
        assert_eq!(buckets.generation(), 1);
    }

    #[test]
    fn generations_are_never_zero() {
        let buckets = Buckets::new(1);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..600 {
            assert_ne!(buckets.generation(), 0);
            seen.insert(buckets.generation());
            buckets.new_generation();
        }
        assert_eq!(seen.len(), 255);
    }

    /// A prefetch is a hint: for any hash it reads nothing out of bounds and changes no word.
    #[test]
    fn prefetch_changes_nothing() {
        let buckets = Buckets::new(1);
        for shift in 0..64 {
            buckets.prefetch(u64::MAX << shift);
            buckets.prefetch(0x0123_4567_89ab_cdef ^ (1 << shift));
        }
        assert!(buckets.is_zero());
    }
}
