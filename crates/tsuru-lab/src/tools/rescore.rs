//! `tsuru rescore`: a self-play file made before the scores were stored (v2) as the v3 file
//! of the same games, each searched position given its players' search score; resumable.
//!
//! ```text
//! tsuru rescore --in selfplay-v2.txt --out selfplay-v3.txt [--threads N] [--hash MB]
//!     [--eval-file WEIGHTS]
//! ```
//!
//! The scores are searched now, at the file's depth, with the evaluation that played the
//! games: the file's header names its weights' checksum, and the shipped weights or
//! `--eval-file`'s must be those. Each game is scored from a cleared table
//! ([`crate::training::selfplay::rescore_game`]), so the output depends neither on the
//! thread count nor on where a run was stopped; a v3 input is scored again the same way (its
//! own scores are not read). The output's header is the input's with v3 for v2, and its
//! games are the input's, in order, each with a scores field. If `--out` exists it must hold
//! the first games of that output (a stopped run); the run continues after them.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;
use tsuru_core::search::SearchConfig;

use anyhow::{ensure, Context, Result};

use crate::parallel::map_with_state;
use crate::tools::datagen::read_finished_lines;
use crate::training::selfplay::{read_file, rescore_game, SelfPlayConfig, SelfPlayGame};
use tsuru_core::cli::search_options::{SearchOptions, EVAL_FILE, HASH, THREADS};
use tsuru_core::cli::tool_args::{Arg, ToolArgs, ToolOption, ToolSpec};
use tsuru_core::search::Search;

/// The command line of `tsuru rescore`.
pub const SPEC: ToolSpec = ToolSpec {
    name: "rescore",
    about: "a v2 self-play file as v3: its players' search scores searched again, resumable",
    synopsis: "--in FILE --out FILE",
    options: &[
        ToolOption::new("--in", "FILE", "the self-play file to score (required)"),
        ToolOption::new(
            "--out",
            "FILE",
            "the v3 file; an existing one is continued (required)",
        ),
        ToolOption::shared(THREADS),
        ToolOption::shared(HASH),
        ToolOption::shared(EVAL_FILE),
    ],
    notes: "Each thread scores one game at a time with its own table of --hash MB. The weights\n\
            must be those the file's header names (the players').",
};

/// Games scored between two writes, per thread: about half a minute of 12-ply searches, so a
/// stopped run loses little.
const GAMES_PER_THREAD: usize = 64;

/// Runs the tool.
pub fn run(args: &[String]) -> Result<()> {
    let (input, out, search_options) = parse_args(args)?;
    let threads = search_options.threads;
    let text =
        std::fs::read_to_string(&input).with_context(|| format!("reading {}", input.display()))?;
    let (config, games) = read_file(&text).with_context(|| format!("in {}", input.display()))?;
    let eval = search_options.eval()?;
    let weights = eval.weights_id().map(|id| id.0);
    ensure!(
        config.weights.is_some() && config.weights == weights,
        "{} was played with weights {} but these are {}; give the players' weights \
         (--eval-file)",
        input.display(),
        config
            .weights
            .map_or("not recorded (a v1 file)".to_string(), |id| format!(
                "{id:08x}"
            )),
        weights.map_or("unidentified".to_string(), |id| format!("{id:08x}")),
    );
    // The input's form, with scores (a v1 or v2 input gives v3).
    let scored_config = SelfPlayConfig {
        scores: true,
        ..config
    };
    let header = scored_config.header();
    let shown = out.display();
    let mut done = 0;
    if out.exists() {
        // A game whose line was cut by a stop is scored again.
        let existing = read_finished_lines(&out)?;
        let (found, scored) = read_file(&existing).with_context(|| format!("in {shown}"))?;
        ensure!(
            found.header() == header,
            "{shown} is not the rescoring of {} (its header: {})",
            input.display(),
            found.header()
        );
        ensure!(
            scored.len() <= games.len()
                && scored
                    .iter()
                    .zip(&games)
                    .all(|(a, b)| a.index == b.index && a.moves == b.moves),
            "{shown} does not hold the first games of {} in order; delete it or name another \
             file",
            input.display()
        );
        done = scored.len();
    } else {
        std::fs::write(&out, format!("{header}\n")).with_context(|| format!("creating {shown}"))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&out)
        .with_context(|| format!("opening {shown}"))?;
    let started = Instant::now();
    let search_config = SearchConfig::new(search_options.hash_mb, 1)?.with_eval(eval.clone());
    let resumed_at = done;
    let batch = GAMES_PER_THREAD * threads;
    while done < games.len() {
        let end = (done + batch).min(games.len());
        let scored: Vec<SelfPlayGame> = map_with_state(
            &games[done..end],
            threads,
            || Search::new(search_config.clone()),
            |search, game| rescore_game(game, config.depth, search),
        );
        let lines: String = scored
            .iter()
            .map(|game| format!("{}\n", scored_config.line(game)))
            .collect();
        file.write_all(lines.as_bytes())
            .and_then(|_| file.flush())
            .with_context(|| format!("writing {shown}"))?;
        done = end;
        let seconds = started.elapsed().as_secs_f64();
        eprint!(
            "\r{done} of {} games in {shown}, {:.1} a second   ",
            games.len(),
            (done - resumed_at) as f64 / seconds.max(1e-9)
        );
    }
    eprintln!();
    eprintln!(
        "{shown}: {} games scored at depth {} ({:.0} s)",
        games.len(),
        config.depth,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn parse_args(args: &[String]) -> Result<(PathBuf, PathBuf, SearchOptions)> {
    let mut input = None;
    let mut out = None;
    let mut search = SearchOptions::default();
    let mut args = ToolArgs::from_spec(args, &SPEC);
    while let Some(arg) = args.next_option()? {
        let Arg::Flag(flag) = arg else {
            return Err(args.unexpected(arg));
        };
        match flag {
            "--in" => input = Some(PathBuf::from(args.value(flag)?)),
            "--out" => out = Some(PathBuf::from(args.value(flag)?)),
            flag if SearchOptions::takes(flag) => search.set(flag, args.value(flag)?)?,
            _ => return Err(args.unexpected(arg)),
        }
    }
    let required = |name: &str| format!("{name} is required (usage: tsuru {})", SPEC.usage());
    let input = input.with_context(|| required("--in"))?;
    let out = out.with_context(|| required("--out"))?;
    ensure!(input != out, "--in and --out are the same file");
    Ok((input, out, search))
}
