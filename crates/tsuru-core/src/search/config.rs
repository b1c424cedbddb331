//! How a search is set up, checked once where it is made: the tables' memory, the threads,
//! the evaluation, the selectivity and the evaluation cache. [`Search::new`](super::Search::new)
//! and [`EndgameSolver::new`](super::endgame::EndgameSolver::new) take a [`SearchConfig`] and
//! nothing changes it afterwards, so every entry point (the engine, the tools, Python) sets a
//! search up the same way and against the same limits, which are its associated constants.

use anyhow::{bail, Result};

use super::eval_cache;
use crate::eval::EvalBundle;

/// The settings of a [`Search`](super::Search) or an
/// [`EndgameSolver`](super::endgame::EndgameSolver). Made by [`SearchConfig::new`], which
/// checks the table size and the thread count, and refined by the `with_` methods, which
/// check theirs: a value outside its range is an error, never clamped.
#[derive(Clone)]
pub struct SearchConfig {
    hash_mb: usize,
    threads: usize,
    eval: EvalBundle,
    selectivity: Option<f32>,
    eval_cache_bits: u32,
    table: bool,
}

impl SearchConfig {
    /// The tables' memory unless a command says otherwise, MiB (`--hash`): the one default
    /// of the engine, every tool and Python.
    pub const DEFAULT_HASH_MB: usize = crate::config::DEFAULT_HASH_MB;
    /// The threads of a command whose output is a record that must repeat exactly (bench's
    /// signature, accuracy, datagen, the book, decided) unless it is told otherwise: with
    /// more, a search's result depends on the threads' timing. Everything else searches on
    /// [`Self::default_threads`].
    pub const REPRODUCIBLE_THREADS: usize = 1;
    /// The largest table, MiB: 64 GiB, more than any machine the engine meets gives one
    /// process, so it only guards against a typo.
    pub const MAX_HASH_MB: usize = crate::config::MAX_HASH_MB;
    /// The most search threads: far beyond any machine the engine meets, it only guards
    /// against a typo starting thousands of threads.
    pub const MAX_THREADS: usize = crate::config::MAX_THREADS;
    /// The Multi-ProbCut confidence factor the engine plays with (`--probcut`).
    pub const DEFAULT_SELECTIVITY: f32 = crate::config::DEFAULT_CONFIDENCE;
    /// The largest Multi-ProbCut confidence factor (`--probcut 10`: almost no cut).
    pub const MAX_SELECTIVITY: f32 = 10.0;
    /// Each search thread's evaluation cache: `2^bits` entries.
    pub const DEFAULT_EVAL_CACHE_BITS: u32 = eval_cache::DEFAULT_BITS;
    /// The largest evaluation cache, `2^24` entries (384 MiB a thread).
    pub const MAX_EVAL_CACHE_BITS: u32 = 24;

    /// The threads unless a command says otherwise (`--threads`): every core the system
    /// offers, at most [`Self::MAX_THREADS`] (see [`crate::config::default_threads`]).
    pub fn default_threads() -> usize {
        crate::config::default_threads()
    }

    /// [`Self::DEFAULT_HASH_MB`] on [`Self::REPRODUCIBLE_THREADS`]: a search that repeats
    /// itself exactly, with the shipped evaluation and the default selectivity and cache.
    pub fn reproducible() -> SearchConfig {
        SearchConfig::new(Self::DEFAULT_HASH_MB, Self::REPRODUCIBLE_THREADS)
            .expect("the defaults are in range")
    }

    /// A search on `threads` threads whose tables use `hash_mb` MiB in all (half for the
    /// midgame table, half for the solver's), with the shipped evaluation, the default
    /// selectivity and evaluation cache. Errors when `hash_mb` is outside 1 to
    /// [`Self::MAX_HASH_MB`] or `threads` outside 1 to [`Self::MAX_THREADS`].
    pub fn new(hash_mb: usize, threads: usize) -> Result<SearchConfig> {
        if !(1..=Self::MAX_HASH_MB).contains(&hash_mb) {
            bail!(
                "the hash size must be between 1 and {} MiB, not {hash_mb}",
                Self::MAX_HASH_MB
            );
        }
        if !(1..=Self::MAX_THREADS).contains(&threads) {
            bail!(
                "the thread count must be from 1 to {}, not {threads}",
                Self::MAX_THREADS
            );
        }
        Ok(SearchConfig {
            hash_mb,
            threads,
            eval: EvalBundle::shipped(),
            selectivity: Some(Self::DEFAULT_SELECTIVITY),
            eval_cache_bits: Self::DEFAULT_EVAL_CACHE_BITS,
            table: true,
        })
    }

    /// The same settings with `eval` (its evaluation and statistics) for the midgame search
    /// and the solver alike: without midgame statistics the search runs without
    /// Multi-ProbCut, without endgame statistics the solver solves without selective passes.
    pub fn with_eval(self, eval: EvalBundle) -> SearchConfig {
        SearchConfig { eval, ..self }
    }

    /// The same settings with the Multi-ProbCut confidence factor `selectivity`: `None`
    /// searches every move to full depth (each midgame score is then the exact minimax value
    /// at its depth). Errors outside (0, [`Self::MAX_SELECTIVITY`]].
    pub fn with_selectivity(self, selectivity: Option<f32>) -> Result<SearchConfig> {
        if let Some(t) = selectivity {
            if !(t > 0.0 && t <= Self::MAX_SELECTIVITY) {
                bail!(
                    "the ProbCut confidence must be above 0 and at most {}, not {t}",
                    Self::MAX_SELECTIVITY
                );
            }
        }
        Ok(SearchConfig {
            selectivity,
            ..self
        })
    }

    /// The same settings with an evaluation cache of `2^bits` entries a thread, or none for
    /// 0 (for measurements: the results are the same either way). Errors above
    /// [`Self::MAX_EVAL_CACHE_BITS`].
    pub fn with_eval_cache_bits(self, bits: u32) -> Result<SearchConfig> {
        if bits > Self::MAX_EVAL_CACHE_BITS {
            bail!(
                "the evaluation cache takes at most {} bits, not {bits}",
                Self::MAX_EVAL_CACHE_BITS
            );
        }
        Ok(SearchConfig {
            eval_cache_bits: bits,
            ..self
        })
    }

    /// The same settings with the midgame transposition table turned off (for tests and
    /// measurements).
    pub fn without_table(self) -> SearchConfig {
        SearchConfig {
            table: false,
            ..self
        }
    }

    /// The tables' memory, MiB.
    pub fn hash_mb(&self) -> usize {
        self.hash_mb
    }

    /// The search threads, this one included.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The evaluation and its statistics.
    pub fn eval(&self) -> &EvalBundle {
        &self.eval
    }

    /// The Multi-ProbCut confidence factor (`None`: full width).
    pub fn selectivity(&self) -> Option<f32> {
        self.selectivity
    }

    /// The evaluation cache's size, `2^bits` entries a thread (0: none).
    pub fn eval_cache_bits(&self) -> u32 {
        self.eval_cache_bits
    }

    /// Whether the midgame search uses its transposition table.
    pub fn table(&self) -> bool {
        self.table
    }
}

impl Default for SearchConfig {
    /// The defaults of every entry point: [`Self::DEFAULT_HASH_MB`] on
    /// [`Self::default_threads`], with the shipped evaluation and the default selectivity and
    /// cache.
    fn default() -> SearchConfig {
        SearchConfig::new(Self::DEFAULT_HASH_MB, Self::default_threads())
            .expect("the defaults are in range")
    }
}

impl std::fmt::Debug for SearchConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchConfig")
            .field("hash_mb", &self.hash_mb)
            .field("threads", &self.threads)
            .field("eval", &self.eval.weights_id())
            .field("selectivity", &self.selectivity)
            .field("eval_cache_bits", &self.eval_cache_bits)
            .field("table", &self.table)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_is_checked_against_its_range() {
        let config = SearchConfig::new(1, 1).unwrap();
        assert_eq!((config.hash_mb(), config.threads()), (1, 1));
        let top = SearchConfig::new(SearchConfig::MAX_HASH_MB, SearchConfig::MAX_THREADS).unwrap();
        assert_eq!(top.threads(), 512);
        for (hash, threads, message) in [
            (0, 1, "the hash size must be between 1 and 65536 MiB, not 0"),
            (
                65537,
                1,
                "the hash size must be between 1 and 65536 MiB, not 65537",
            ),
            (8, 0, "the thread count must be from 1 to 512, not 0"),
            (8, 513, "the thread count must be from 1 to 512, not 513"),
        ] {
            let err = SearchConfig::new(hash, threads).unwrap_err();
            assert_eq!(err.to_string(), message);
        }
        let base = SearchConfig::reproducible;
        assert_eq!(base().selectivity(), Some(1.1));
        assert_eq!(base().with_selectivity(None).unwrap().selectivity(), None);
        assert_eq!(
            base().with_selectivity(Some(10.0)).unwrap().selectivity(),
            Some(10.0)
        );
        for bad in [0.0, -1.0, 10.5, f32::NAN, f32::INFINITY] {
            assert!(base().with_selectivity(Some(bad)).is_err(), "{bad}");
        }
        assert_eq!(base().with_eval_cache_bits(0).unwrap().eval_cache_bits(), 0);
        assert!(base().with_eval_cache_bits(25).is_err());
        assert!(!base().without_table().table());
    }

    #[test]
    fn the_default_is_every_core_with_the_default_table() {
        let config = SearchConfig::default();
        assert_eq!(config.hash_mb(), 64);
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(config.threads(), cores.min(SearchConfig::MAX_THREADS));
        let reproducible = SearchConfig::reproducible();
        assert_eq!((reproducible.hash_mb(), reproducible.threads()), (64, 1));
        assert_eq!(
            config.eval().weights_id(),
            EvalBundle::shipped().weights_id()
        );
        assert_eq!(config.eval_cache_bits(), eval_cache::DEFAULT_BITS);
        assert!(config.table());
    }
}
