//! `tsuru label`: the search values of a positions file's training positions (the bootstrapped
//! labels of `tsuru train --search-labels`), resumable and sharded.
//!
//! ```text
//! tsuru label --positions positions.bin --depth 4 --out search-d4.bin [--shard K/N] [--threads N]
//!     [--eval-file WEIGHTS]
//! ```
//!
//! The positions file is the one `tsuru train --positions FILE` writes (`--positions-only`
//! stops it there). Without `--shard`, `--out` becomes the cache that `tsuru train
//! --search-labels D --search-cache FILE` would write for those positions, byte for byte, so
//! `train` reads it instead of searching. With `--shard K/N` it holds the values of the K-th
//! of N contiguous ranges of the positions, cut at game boundaries
//! ([`crate::training::shards::value_range`]), and `tsuru merge` joins the N shards into
//! that same cache. Each game's positions are searched from a cleared table
//! ([`crate::training::search_values`]), so the values depend neither on the thread count
//! nor on the shard. They search with the shipped evaluation, or `--eval-file`'s (as `tsuru
//! train --search-eval-file`); the file records which weights searched.
//!
//! Values are appended a batch of whole games at a time; a run stopped at any point is
//! continued by the same command (what was written of an unfinished game is searched again).

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{ensure, Context, Result};

use crate::training::positions::PositionSet;
use crate::training::shards::{is_game_boundary, value_range};
use crate::training::{search_values, search_values_description};
use tsuru_core::cli::search_options::{SearchOptions, EVAL_FILE, THREADS};
use tsuru_core::cli::tool_args::{Arg, ToolArgs, ToolOption, ToolSpec};
use tsuru_core::eval::EvalBundle;
use tsuru_core::formats::search_values::{self, ValueShard};
use tsuru_core::formats::Shard;

/// The command line of `tsuru label`.
pub const SPEC: ToolSpec = ToolSpec {
    name: "label",
    about: "search values of a positions file (train --search-labels), resumable and sharded",
    synopsis: "--positions FILE --depth D --out FILE",
    options: &[
        ToolOption::new(
            "--positions",
            "FILE",
            "a positions file of tsuru train --positions (required)",
        ),
        ToolOption::new(
            "--depth",
            "D",
            "search depth in plies, 1..30, as train --search-labels (required)",
        ),
        ToolOption::new(
            "--out",
            "FILE",
            "the search values; an existing file is continued (required)",
        ),
        ToolOption::new(
            "--shard",
            "K/N",
            "search only the K-th of N ranges of the positions (tsuru merge\n\
             joins the N shards)",
        ),
        ToolOption::shared(THREADS),
        ToolOption::shared(EVAL_FILE),
    ],
    notes: "Without --shard, --out is the file train --search-cache reads for the same positions\n\
            and depth.",
};

/// Positions searched between two writes: a few seconds of work at depth 4 on two cores, so
/// a stopped run loses little.
const BATCH: usize = 20_000;

struct Options {
    positions: PathBuf,
    depth: u32,
    out: PathBuf,
    shard: Option<Shard>,
    threads: usize,
    /// The searches' evaluation (`--eval-file`, else the shipped one).
    eval: EvalBundle,
}

/// Runs the tool.
pub fn run(args: &[String]) -> Result<()> {
    let options = parse_args(args)?;
    let set = PositionSet::read(&options.positions)?;
    let positions = &set.train;
    let job = search_values_description(
        &set.description,
        options.depth,
        positions.len(),
        &options.eval,
    );
    let (range, description) = match options.shard {
        Some(shard) => {
            let range = value_range(positions, shard);
            let part = ValueShard {
                shard,
                start: range.start as u64,
                end: range.end as u64,
                total: positions.len() as u64,
            };
            (range, search_values::shard_description(&job, &part))
        }
        None => (0..positions.len(), job),
    };
    let header = search_values::header(&description);
    let out = options.out.display();
    let mut done = 0;
    if options.out.exists() {
        let bytes = std::fs::read(&options.out).with_context(|| format!("reading {out}"))?;
        let (found, values) = search_values::split(&bytes)
            .with_context(|| format!("{out} is not a search-value file"))?;
        ensure!(
            found == description,
            "{out} holds search values of other positions, depth, weights or shard; delete \
             it or name another file\n  it holds: {found}\n  this run:  {description}"
        );
        ensure!(
            values.len() <= range.len(),
            "{out} holds more values than its {} positions",
            range.len()
        );
        // A game searched only in part is searched again from its start: its values depend
        // on the table, which is cleared at the game's first position.
        done = (0..=values.len())
            .rev()
            .find(|&n| is_game_boundary(positions, range.start + n))
            .unwrap_or(0);
        if done < values.len() {
            eprintln!(
                "dropping {} values of an unfinished game at the end of {out}",
                values.len() - done
            );
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(&options.out)
                .with_context(|| format!("opening {out}"))?;
            file.set_len((header.len() + done) as u64)
                .with_context(|| format!("truncating {out}"))?;
        }
    } else {
        std::fs::write(&options.out, &header).with_context(|| format!("creating {out}"))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&options.out)
        .with_context(|| format!("opening {out}"))?;
    let started = Instant::now();
    let mut at = range.start + done;
    let resumed_at = at;
    while at < range.end {
        let end = (at + BATCH).min(range.end);
        let end = (end..=range.end)
            .find(|&i| is_game_boundary(positions, i))
            .unwrap_or(range.end);
        let values = search_values(
            &positions[at..end],
            options.depth,
            options.threads,
            &options.eval,
            |_| {},
        );
        let bytes: Vec<u8> = values.iter().map(|&value| value as u8).collect();
        file.write_all(&bytes)
            .and_then(|_| file.flush())
            .with_context(|| format!("writing {out}"))?;
        at = end;
        let seconds = started.elapsed().as_secs_f64();
        eprint!(
            "\r{} of {} positions in {out}, {:.0} a second   ",
            at - range.start,
            range.len(),
            (at - resumed_at) as f64 / seconds.max(1e-9)
        );
    }
    eprintln!();
    eprintln!(
        "{out}: values of positions {}-{} of {} ({:.0} s)",
        range.start,
        range.end,
        positions.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut positions = None;
    let mut depth = None;
    let mut out = None;
    let mut shard = None;
    let mut search = SearchOptions::default();
    let mut args = ToolArgs::from_spec(args, &SPEC);
    while let Some(arg) = args.next_option()? {
        let Arg::Flag(flag) = arg else {
            return Err(args.unexpected(arg));
        };
        match flag {
            "--positions" => positions = Some(PathBuf::from(args.value(flag)?)),
            "--depth" => depth = Some(args.whole_number(flag)?),
            "--out" => out = Some(PathBuf::from(args.value(flag)?)),
            "--shard" => shard = Some(Shard::parse(args.value(flag)?)?),
            "--threads" | "--eval-file" => search.set(flag, args.value(flag)?)?,
            _ => return Err(args.unexpected(arg)),
        }
    }
    let required = |name: &str| format!("{name} is required (usage: tsuru {})", SPEC.usage());
    let depth = depth.with_context(|| required("--depth"))?;
    ensure!((1..=30).contains(&depth), "--depth must be 1..30");
    Ok(Options {
        positions: positions.with_context(|| required("--positions"))?,
        depth: depth as u32,
        out: out.with_context(|| required("--out"))?,
        shard,
        threads: search.threads,
        eval: search.eval()?,
    })
}
