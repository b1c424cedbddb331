//! The engine's settings: what the command line can set, their defaults and their limits.
//!
//! This layer only describes settings; it reads no file and parses no command line, so it sits
//! below everything it configures (the evaluation, the search, the book). The command line is
//! read into a [`Config`] by the engine's command line (the `tsuru` package's `cli::options`;
//! the search options it shares with the tools are [`crate::cli::search_options`]); the
//! files a configuration names are read once, at start-up, by the engine's session.

mod level;

use std::time::Duration;

pub use level::Level;

/// The transposition tables' size in MiB unless `--hash` says otherwise, in the engine, every
/// tool and Python (public as [`crate::search::SearchConfig::DEFAULT_HASH_MB`], like the
/// other limits here).
pub(crate) const DEFAULT_HASH_MB: usize = 64;

/// The largest table `--hash` takes, MiB: 64 GiB, more than any machine the engine meets
/// gives one process, so it only guards against a typo.
pub(crate) const MAX_HASH_MB: usize = 65536;

/// Most search threads `--threads` takes: far beyond any machine the engine meets, it only
/// guards against a typo starting thousands of threads.
pub(crate) const MAX_THREADS: usize = 512;

/// The default thread count: every core the system offers
/// (`std::thread::available_parallelism`; one where it cannot tell), at most [`MAX_THREADS`].
/// Two threads against one gained +61 Elo at 0.1 s a move on the 2-core development machine
/// (docs/results.md); `--threads 1` searches deterministically, as a referee running engines
/// side by side or a reproducible measurement wants.
pub fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, MAX_THREADS)
}

/// Where the opening book comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BookSetting {
    /// The default: the per-user book ([`crate::book::user`]), which is the book compiled
    /// into the binary ([`crate::book::SHIPPED`]) until NBoard's first `learn` writes it.
    Shipped,
    /// No book (`--no-book`).
    Off,
    /// This file (`--book FILE`) instead of the shipped book; created by the first `learn`
    /// when it does not exist yet, and rewritten by every `learn`.
    File(std::path::PathBuf),
}

/// A protocol tsuru speaks, and that the match referee speaks to other engines: what
/// `--nboard`/`--gtp` force, what detection finds, and what `tsuru match` is told with
/// `name:gtp`/`name:nboard`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// NBoard protocol version 2 (and the bare-move v1 form).
    Nboard,
    /// Go Text Protocol 2 with the Othello conventions (Othello vertices).
    Gtp,
}

impl std::str::FromStr for Protocol {
    type Err = anyhow::Error;

    /// `gtp` or `nboard`, in any case.
    fn from_str(text: &str) -> anyhow::Result<Protocol> {
        match text.to_ascii_lowercase().as_str() {
            "gtp" => Ok(Protocol::Gtp),
            "nboard" => Ok(Protocol::Nboard),
            _ => anyhow::bail!("unknown protocol {text:?} (gtp or nboard)"),
        }
    }
}

impl std::fmt::Display for Protocol {
    /// `gtp` or `nboard`, as [`str::parse`] reads it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Protocol::Gtp => "gtp",
            Protocol::Nboard => "nboard",
        })
    }
}

/// Which evaluation the engine uses.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum EvalChoice {
    /// The pattern evaluation with the shipped weights.
    #[default]
    Shipped,
    /// The pattern evaluation with weights read from this file.
    File(String),
    /// Evaluation v1 (`crate::eval::SeedsEval`).
    V1,
}

/// The Multi-ProbCut confidence factor the engine plays with (public as
/// [`crate::search::SearchConfig::DEFAULT_SELECTIVITY`]).
pub(crate) const DEFAULT_CONFIDENCE: f32 = 1.1;

/// Settings given on the command line.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Forced protocol; `None` means detect it from the first input line.
    pub protocol: Option<Protocol>,
    /// The level: midgame depth and endgame thresholds (default [`Level::DEFAULT`]).
    pub level: Level,
    /// Time per move when no clock is given (`None`: depth-limited only).
    pub move_time: Option<Duration>,
    /// Time for each whole game when no clock is given, spent by the engine's own time
    /// manager (`None`: none; never set together with `move_time`).
    pub game_time: Option<Duration>,
    /// Transposition-table size in MiB.
    pub hash_mb: usize,
    /// The evaluation.
    pub eval: EvalChoice,
    /// Multi-ProbCut confidence factor; `None` searches without selective cuts.
    pub selectivity: Option<f32>,
    /// Search threads (default [`default_threads`]).
    pub threads: usize,
    /// The opening book.
    pub book: BookSetting,
    /// Book moves within this many discs of the best are chosen at random (0: the best).
    pub book_randomness: crate::score::Discs,
    /// Ponder: search on the opponent's time after deciding a move (`--ponder`).
    pub ponder: bool,
    /// `--help` was given.
    pub help: bool,
    /// `--version` was given.
    pub version: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            protocol: None,
            level: Level::DEFAULT,
            move_time: None,
            game_time: None,
            hash_mb: DEFAULT_HASH_MB,
            eval: EvalChoice::Shipped,
            selectivity: Some(DEFAULT_CONFIDENCE),
            threads: default_threads(),
            book: BookSetting::Shipped,
            book_randomness: crate::score::Discs::ZERO,
            ponder: false,
            help: false,
            version: false,
        }
    }
}
