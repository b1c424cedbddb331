//! `tsuru datagen`: self-play games for training, appended to a file and resumable.
//!
//! ```text
//! tsuru datagen --out selfplay.txt --games 20000 [--seed 1] [--depth 4] [--solve-empties 18]
//!     [--random 8-30] [--first-index K] [--shard K/N] [--hash MB] [--threads N]
//!     [--eval-file WEIGHTS] [--format v4|v3]
//! ```
//!
//! New files are v4: each game also records its players' search scores (the depth-D value of
//! every searched position), in the compact form of [`tsuru_core::formats::selfplay`]; `--format
//! v3` writes the same games in the older text form. A file begun before in another form (v2,
//! v3 or v4) is continued in its own, whatever `--format` says, so that a run keeps one.
//!
//! The players use the shipped evaluation bundle, or `--eval-file`'s (the weights with the
//! statistics beside them, see [`tsuru_core::eval::bundle`]) in their midgame searches and solves;
//! the file's header records the weights' checksum, so the weights that made a file are known
//! and a run is only continued with them.
//! Games go one a line into `--out` (format: [`crate::training::selfplay`]). If the file
//! exists, its header must match the settings and the run continues after the last game in
//! it, so a run can be stopped at any point (at most the game in progress is lost) and
//! restarted with the same command. `--first-index K` starts a new file at game K, so that
//! shards with disjoint index ranges can be generated apart and concatenated (after the
//! first shard's header, dropping the others') into one file.
//!
//! `--shard K/N` plays, of the run's games `first-index .. first-index + games`, those whose
//! index `i` has `i % N == K`, and records the shard and the run in the header
//! ([`tsuru_core::formats::selfplay::RunShard`]); `tsuru merge` joins the N shard files into the
//! file the whole run writes. Games are dealt out in turn rather than in ranges so that every
//! shard has the same share of the run, and a run stopped early on every machine at once still
//! merges into nearly a prefix of it. A game depends on the seed and its index alone, so any
//! shard can run on any machine, be stopped, and be continued there or elsewhere. That holds
//! on one search thread, the default: with `--threads` above 1 a search's value and move
//! depend on the threads' timing, so the games do too (more games a second per run, but
//! shards are the way to use more cores reproducibly).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tsuru_core::search::SearchConfig;

use anyhow::{bail, ensure, Context, Result};

use crate::training::selfplay::{play_game, read_file, SelfPlayConfig};
use tsuru_core::cli::search_options::{SearchOptions, EVAL_FILE, HASH};
use tsuru_core::cli::tool_args::{whole_number, Arg, ToolArgs, ToolOption, ToolSpec};
use tsuru_core::eval::EvalBundle;
use tsuru_core::formats::selfplay::RunShard;
use tsuru_core::formats::Shard;
use tsuru_core::search::endgame::EndgameSolver;
use tsuru_core::search::Search;

/// The command line of `tsuru datagen`.
pub const SPEC: ToolSpec = ToolSpec {
    name: "datagen",
    about: "self-play games solved exactly from a set number of empties, appended to a file",
    synopsis: "--out FILE --games N",
    options: &[
        ToolOption::new(
            "--out",
            "FILE",
            "the self-play file; an existing one is continued (required)",
        ),
        ToolOption::new("--games", "N", "games the file should hold (required)"),
        ToolOption::new(
            "--seed",
            "S",
            "seed of every game's random moves (default 1)",
        ),
        ToolOption::new(
            "--depth",
            "D",
            "midgame search depth of the players (default 4)",
        ),
        ToolOption::new(
            "--solve-empties",
            "E",
            "empties from which the game is solved exactly (default 18)",
        ),
        ToolOption::new(
            "--random",
            "MIN-MAX",
            "random opening moves, drawn in MIN..MAX (default 8-30)",
        ),
        ToolOption::new(
            "--first-index",
            "K",
            "number a new file's games from K (shards of one run)",
        ),
        ToolOption::new(
            "--shard",
            "K/N",
            "play only the run's games i with i % N == K (tsuru merge joins\n\
             the N shards into the run's file)",
        ),
        ToolOption::shared(HASH),
        ToolOption::reproducible_threads(),
        ToolOption::shared(EVAL_FILE),
        ToolOption::new(
            "--format",
            "v4|v3",
            "a new file's form: v4 compact (default) or v3 text; an existing\n\
             file keeps its own",
        ),
    ],
    notes: "",
};

struct Options {
    out: PathBuf,
    games: u64,
    first_index: u64,
    /// The players' table size and threads.
    search: SearchOptions,
    config: SelfPlayConfig,
    /// The players' evaluation and its statistics.
    eval: EvalBundle,
}

/// Runs the tool.
pub fn run(args: &[String]) -> Result<()> {
    let mut options = parse_args(args)?;
    let mut next = options.first_index;
    let mut done = 0u64;
    if options.out.exists() {
        let text = read_finished_lines(&options.out)?;
        let (config, games) =
            read_file(&text).with_context(|| format!("in {}", options.out.display()))?;
        ensure!(
            config.weights.is_some(),
            "{} does not record which weights played it (a v1 file); start a new file",
            options.out.display()
        );
        // A file begun in another form (v2 before the scores were stored, v3 before the
        // compact form) goes on in it, so that a run keeps one.
        options.config.scores = config.scores;
        options.config.compact = config.compact;
        ensure!(
            config == options.config,
            "{} was made with other settings ({}); give the same ones to continue it",
            options.out.display(),
            config.header()
        );
        if let Some(run) = options.config.shard {
            ensure!(
                games.len() as u64 <= run.len()
                    && games
                        .iter()
                        .zip(run.indices())
                        .all(|(game, index)| game.index == index),
                "{} does not hold the first games of its shard in order; start a new file",
                options.out.display()
            );
        }
        if let Some(last) = games.last() {
            next = last.index + 1;
        }
        done = games.len() as u64;
    } else {
        std::fs::write(&options.out, format!("{}\n", options.config.header()))
            .with_context(|| format!("creating {}", options.out.display()))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&options.out)
        .with_context(|| format!("opening {}", options.out.display()))?;
    let mut search = Search::new(
        SearchConfig::new(options.search.hash_mb, options.search.threads)?
            .with_eval(options.eval.clone()),
    );
    let mut solver = EndgameSolver::new(
        &SearchConfig::new(options.search.hash_mb, options.search.threads)?.with_eval(options.eval),
    );
    // A shard plays its fixed list of indices; a whole run plays `--games` from its next one.
    let (total, todo): (u64, Box<dyn Iterator<Item = u64>>) = match options.config.shard {
        Some(run) => (run.len(), Box::new(run.indices().skip(done as usize))),
        None => (
            options.games,
            Box::new((next..).take(options.games.saturating_sub(done) as usize)),
        ),
    };
    let started = Instant::now();
    let mut played = 0u64;
    for index in todo {
        let game = play_game(&options.config, index, &mut search, &mut solver)?;
        writeln!(file, "{}", options.config.line(&game))
            .and_then(|_| file.flush())
            .with_context(|| format!("writing {}", options.out.display()))?;
        done += 1;
        played += 1;
        let rate = played as f64 / started.elapsed().as_secs_f64();
        eprint!(
            "\r{done}/{total} games in {}, {rate:.2} games/s   ",
            options.out.display()
        );
    }
    eprintln!();
    Ok(())
}

/// The text of a self-play file that a run appends to, without an unfinished last line
/// (a run stopped in the middle of writing one), which is dropped from the file too.
pub(super) fn read_finished_lines(path: &Path) -> Result<String> {
    let mut text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    if !text.is_empty() && !text.ends_with('\n') {
        eprintln!("dropping an unfinished last line of {}", path.display());
        text.truncate(text.rfind('\n').map_or(0, |i| i + 1));
        std::fs::write(path, &text).with_context(|| format!("rewriting {}", path.display()))?;
    }
    Ok(text)
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut out = None;
    let mut games = None;
    let mut first_index = 0;
    let mut shard = None;
    let mut search = SearchOptions::reproducible();
    let mut config = SelfPlayConfig {
        seed: 1,
        depth: 4,
        solve_empties: 18,
        random_min: 8,
        random_max: 30,
        weights: None,
        shard: None,
        scores: true,
        compact: true,
    };
    let mut args = ToolArgs::from_spec(args, &SPEC);
    while let Some(arg) = args.next_option()? {
        let Arg::Flag(flag) = arg else {
            return Err(args.unexpected(arg));
        };
        match flag {
            "--out" => out = Some(PathBuf::from(args.value(flag)?)),
            "--games" => games = Some(args.whole_number(flag)?),
            "--seed" => config.seed = args.whole_number(flag)?,
            "--depth" => config.depth = args.whole_number(flag)? as u32,
            "--solve-empties" => config.solve_empties = args.whole_number(flag)? as u32,
            "--random" => {
                let value = args.value(flag)?;
                let (low, high) = value
                    .split_once('-')
                    .with_context(|| format!("--random needs MIN-MAX, not {value:?}"))?;
                config.random_min = whole_number(flag, low)? as u32;
                config.random_max = whole_number(flag, high)? as u32;
            }
            "--first-index" => first_index = args.whole_number(flag)?,
            "--shard" => shard = Some(Shard::parse(args.value(flag)?)?),
            "--format" => {
                config.compact = match args.value(flag)? {
                    "v4" => true,
                    "v3" => false,
                    other => bail!("--format takes v4 or v3, not {other:?}"),
                }
            }
            flag if SearchOptions::takes(flag) => search.set(flag, args.value(flag)?)?,
            _ => return Err(args.unexpected(arg)),
        }
    }
    let games =
        games.with_context(|| format!("--games is required (usage: tsuru {})", SPEC.usage()))?;
    let eval = search.eval()?;
    config.weights = eval.weights_id().map(|id| id.0);
    config.shard = shard.map(|shard| RunShard {
        shard,
        first: first_index,
        games,
    });
    config.check()?;
    Ok(Options {
        out: out.with_context(|| format!("--out is required (usage: tsuru {})", SPEC.usage()))?,
        games,
        first_index,
        search,
        config,
        eval,
    })
}
