//! `tsuru probcut`: measures the Multi-ProbCut statistics of an evaluation's weights: the
//! shipped ones, or `--eval-file X`'s (no rebuild needed).
//!
//! ```text
//! tsuru probcut --wthor ../shared/data/wthor --positions 1500 --out src/eval/probcut.txt
//! tsuru probcut --endgame tests/fixtures/eval-validation.txt --out src/eval/probcut-endgame.txt
//! tsuru probcut --eval-file X --out X.probcut
//! tsuru probcut --eval-file X --endgame tests/fixtures/eval-validation.txt --out X.probcut-endgame
//! tsuru probcut --endgame-sample ROOTS.obf --out tested.txt   # then --endgame tested.txt
//! ```
//!
//! The output starts with the `weights` line naming the weights measured (their checksum), so
//! the statistics are only ever used with them; written beside a weights file `X` as
//! `X.probcut` and `X.probcut-endgame`, they are loaded with it (see [`tsuru_core::eval::bundle`]).
//!
//! Positions come from WTHOR games (a fixed, seeded choice of game and move number, spread
//! evenly over 14 to 58 empties). Each is searched without selectivity to every depth up to
//! [`FULL_WIDTH_DEPTH`] (less than its empties); for each stage and depth `d` the values at
//! `d` are regressed on those at `shallow_depth(d)` by least squares, and the deviation of the
//! residuals is `sigma`. The deeper depths, up to [`MAX_DEPTH`], are measured the same way on
//! the values of the selective search (confidence [`MEASURE_CONFIDENCE`], cutting with the
//! statistics just measured): a full-width search of 20 plies is out of reach, and a cut at a
//! deep node compares two selective searches. The output is the statistics file of
//! [`tsuru_core::eval::probcut`].
//!
//! With `--endgame`, the statistics of the solver's selective passes instead: the exact values
//! of a validation set regressed on shallow searches (see `run_endgame`). With
//! `--endgame-sample ROOTS.obf`, the validation set for that: the positions at which the
//! selective passes test ProbCut in solving ROOTS, solved exactly (see [`sample`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use tsuru_core::search::SearchConfig;

use anyhow::{ensure, Context, Result};

use tsuru_core::cli::tool_args::{Arg, ToolArgs, ToolOption, ToolSpec};

pub mod sample;
use crate::parallel::map_with_state;
use crate::training::games::read_wthor_folder;
use tsuru_core::board::Board;
use tsuru_core::cli::search_options::{self, EVAL_FILE, THREADS};
use tsuru_core::eval::pattern::stage_of;
use tsuru_core::eval::probcut::{
    plausible, shallow_depth, weights_line, EndgameCuts, ProbCutTable, FULL_WIDTH_DEPTH, MAX_DEPTH,
    MAX_ENDGAME_SHALLOW, MEASURE_CONFIDENCE, MIN_DEPTH,
};
use tsuru_core::eval::EvalBundle;
use tsuru_core::formats::validation;
use tsuru_core::rng::Rng;
use tsuru_core::score::{Discs, Score};
use tsuru_core::search::endgame::EndgameSolver;
use tsuru_core::search::{Depth, Search, SearchLimits};

/// The command line of `tsuru probcut`.
pub const SPEC: ToolSpec = ToolSpec {
    name: "probcut",
    about: "measure the Multi-ProbCut statistics of the evaluation (shallow vs deep values)",
    synopsis: "",
    options: &[
        ToolOption::shared(EVAL_FILE),
        ToolOption::new(
            "--wthor",
            "DIR",
            "WTHOR games to draw positions from (default ../shared/data/wthor)",
        ),
        ToolOption::new("--positions", "N", "positions to search (default 1500)"),
        ToolOption::new(
            "--stages",
            "N",
            "stages of the statistics, 1..60 (default 15)",
        ),
        ToolOption::new("--seed", "S", "which positions (default 1)"),
        ToolOption::shared(THREADS),
        ToolOption::new(
            "--out",
            "FILE",
            "write the statistics there (default: stdout)",
        ),
        ToolOption::new(
            "--endgame",
            "VALIDATION_FILE",
            "measure the solver's selective passes on the exact values of\n\
             this validation file instead of the midgame on WTHOR positions",
        ),
        ToolOption::new(
            "--endgame-sample",
            "ROOTS.obf",
            "instead write to --out a validation file for --endgame: the\n\
             positions where the selective passes test ProbCut in solving\n\
             ROOTS, with their exact values; a journal beside the output\n\
             (FILE.journal) lets a stopped run resume where it stopped",
        ),
        ToolOption::new(
            "--every",
            "K",
            "with --endgame-sample, keep 1 in K tested positions at 14\n\
             empties, twice as many a square higher (default 256)",
        ),
        ToolOption::new(
            "--per-empties",
            "N",
            "with --endgame-sample, solve at most N positions of each count\n\
             of empties (default 600)",
        ),
        ToolOption::new(
            "--min-empties",
            "N",
            "with --endgame-sample, solve only the positions of N empties or\n\
             more (default 14: all of them)",
        ),
    ],
    notes: "With --endgame, --wthor, --positions, --stages and --seed are not used. The weights\n\
            are measured without the statistics beside them (they are what is measured);\n\
            --endgame-sample solves with them (their selective passes are what is sampled).",
};

/// Fewest pairs a stage and depth needs for its statistics to be written.
const MIN_SAMPLES: usize = 30;

struct Options {
    wthor: PathBuf,
    positions: usize,
    stages: usize,
    seed: u64,
    threads: usize,
    out: Option<PathBuf>,
    endgame: Option<PathBuf>,
    /// `--endgame-sample`: the roots whose solves are sampled.
    endgame_sample: Option<PathBuf>,
    /// `--every`: one tested position in this many is kept.
    every: u64,
    /// `--per-empties`: at most this many positions of each count of empties.
    per_empties: usize,
    /// `--min-empties`: only the positions of this many empties or more.
    min_empties: u32,
    /// The weights measured (`None`: the shipped ones).
    eval_file: Option<String>,
}

/// The weights to measure, without statistics (they are what is being measured; a file's
/// sidecars are not even read).
fn weights_to_measure(options: &Options) -> Result<EvalBundle> {
    match &options.eval_file {
        Some(path) => {
            // The network beside the weights, if any, is part of what is measured.
            let (eval, id) = EvalBundle::weights_from_file(path)?;
            EvalBundle::new(eval, id, path, None, None)
        }
        None => Ok(EvalBundle::shipped().without_statistics()),
    }
}

/// Runs the tool.
pub fn run(args: &[String]) -> Result<()> {
    let options = parse_args(args)?;
    let started = Instant::now();
    if let Some(roots) = &options.endgame_sample {
        let out = options
            .out
            .as_deref()
            .context("--endgame-sample writes a validation file: give --out FILE")?;
        // The statistics stay: the passes they drive are what is sampled.
        let bundle = match &options.eval_file {
            Some(path) => EvalBundle::from_file(path)?,
            None => EvalBundle::shipped(),
        };
        return sample::run(
            roots,
            &bundle,
            sample::Keep {
                every: options.every,
                per_empties: options.per_empties,
                min_empties: options.min_empties,
            },
            options.threads,
            out,
            started,
        );
    }
    let bundle = weights_to_measure(&options)?;
    if let Some(path) = &options.endgame {
        return run_endgame(path, &bundle, &options, started);
    }
    let (games, _) = read_wthor_folder(&options.wthor)?;
    ensure!(!games.is_empty(), "no games in {}", options.wthor.display());
    let positions = choose_positions(&games, options.positions, options.seed);
    eprintln!(
        "{} positions from {} games; searching to depth {FULL_WIDTH_DEPTH} without \
         selectivity...",
        positions.len(),
        games.len()
    );

    // Every position's root value at each depth (index = depth), searched in parallel.
    let full_width: Vec<Vec<Score>> = map_with_state(
        &positions,
        options.threads,
        || (),
        |_, board| depth_values(board, &bundle),
    );
    let id = bundle.weights_id().expect("pattern weights have an id");
    let mut table = ProbCutTable::empty(options.stages, id);
    let mut rows = fit_depths(
        &positions,
        &full_width,
        options.stages,
        MIN_DEPTH..=FULL_WIDTH_DEPTH,
        &mut table,
    );
    eprintln!("searching to depth {MAX_DEPTH} with the selective search...");
    let selective_bundle = bundle.with_probcut(table.clone())?;
    let selective: Vec<Vec<Score>> = map_with_state(
        &positions,
        options.threads,
        || (),
        |_, board| {
            // Without statistics for its stage (too few positions there) the search would
            // run full-width to the deepest depth: days, not minutes.
            if table.get(board.empties(), FULL_WIDTH_DEPTH).is_some() {
                selective_values(board, &selective_bundle)
            } else {
                Vec::new()
            }
        },
    );
    rows.extend(fit_depths(
        &positions,
        &selective,
        options.stages,
        FULL_WIDTH_DEPTH + 1..=MAX_DEPTH,
        &mut table,
    ));
    rows.sort_by_key(|row| (row.0, row.1));

    let mut text = format!(
        "# Multi-ProbCut statistics of {}, written by\n\
         # tsuru {}\n# from {} WTHOR positions (seed {}); depths to {FULL_WIDTH_DEPTH} \
         full-width, deeper ones selective.\n{}\
         # stage depth shallow slope intercept sigma samples   (intercept and sigma in discs)\n\
         stages {}\n",
        bundle.source(),
        std::env::args().skip(1).collect::<Vec<_>>().join(" "),
        positions.len(),
        options.seed,
        weights_line(id),
        options.stages
    );
    for (stage, depth, (slope, intercept, sigma), samples) in rows {
        let shallow = shallow_depth(depth);
        text.push_str(&format!(
            "{stage} {depth} {shallow} {slope:.4} {intercept:.4} {sigma:.4} {samples}\n"
        ));
    }
    // The file must read back as exactly the table the deep depths were measured with.
    let parsed = ProbCutTable::parse(&text).context("the statistics just measured do not parse")?;
    ensure!(
        parsed == table,
        "the statistics do not read back as measured"
    );
    write_out(&text, &options, started)
}

/// One stage and depth's fit: `(stage, depth, (slope, intercept, sigma), samples)`.
type Fit = (usize, u32, (f64, f64, f64), usize);

/// Fits every stage at each of `depths` on `values` (per position, the root value at each
/// depth), sets them in `table` and returns them; a stage and depth with fewer than
/// [`MIN_SAMPLES`] pairs, or whose fit is not [`plausible`] (said on stderr), is left out.
fn fit_depths(
    positions: &[Board],
    values: &[Vec<Score>],
    stages: usize,
    depths: std::ops::RangeInclusive<u32>,
    table: &mut ProbCutTable,
) -> Vec<Fit> {
    let mut rows = Vec::new();
    for stage in 0..stages {
        for depth in depths.clone() {
            let shallow = shallow_depth(depth) as usize;
            let pairs: Vec<(f64, f64)> = positions
                .iter()
                .zip(values)
                .filter(|(board, v)| {
                    stage_of(board.empties(), stages) == stage && v.len() > depth as usize
                })
                .map(|(_, v)| (v[shallow].discs(), v[depth as usize].discs()))
                .collect();
            if pairs.len() < MIN_SAMPLES {
                continue;
            }
            // Rounded as the file writes them, so that the deep depths are measured with
            // exactly the statistics the engine will read.
            let (slope, intercept, sigma) = regress(&pairs);
            let round = |x: f64| (x * 1e4).round() / 1e4;
            let (slope, intercept, sigma) = (round(slope), round(intercept), round(sigma));
            if !plausible(slope, intercept, sigma) {
                // The engine would refuse the file; the depth then uses the deepest fit
                // below it, as for a stage with too few positions.
                eprintln!(
                    "stage {stage} depth {depth}: fit left out as implausible (slope {slope}, \
                     intercept {intercept}, sigma {sigma}, {} positions)",
                    pairs.len()
                );
                continue;
            }
            table.set(stage, depth, slope, intercept, sigma);
            rows.push((stage, depth, (slope, intercept, sigma), pairs.len()));
        }
    }
    rows
}

/// `count` positions from `games`: for each, a target number of empties spread evenly over
/// 14..=58, then a seeded game that reaches it.
fn choose_positions(games: &[crate::training::games::Game], count: usize, seed: u64) -> Vec<Board> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(count);
    let mut attempts = 0;
    while out.len() < count && attempts < count * 20 {
        attempts += 1;
        let target = 14 + (out.len() as u32 % 45);
        let game = &games[rng.below(games.len() as u64) as usize];
        let mut board = Board::start();
        for &mv in &game.moves {
            if board.empties() == target {
                break;
            }
            if board.play(mv).is_err() {
                break;
            }
        }
        if board.empties() == target && board.has_legal_move() {
            out.push(board.without_history());
        }
    }
    out
}

/// The root value (score units) at every depth from 0 to `min(FULL_WIDTH_DEPTH, empties - 1)`,
/// with the bundle's evaluation and no selectivity: the fixed-depth minimax values (checked
/// against a plain negamax in tests/search.rs).
pub fn depth_values(board: &Board, bundle: &EvalBundle) -> Vec<Score> {
    let mut search = Search::new(
        SearchConfig::new(8, 1)
            .and_then(|config| config.with_eval(bundle.clone()).with_selectivity(None))
            .expect("a fixed table, one thread and full width are in range"),
    );
    values_to(&mut search, board, FULL_WIDTH_DEPTH)
}

/// The root value at every depth from 0 to `min(MAX_DEPTH, empties - 1)` of the selective
/// search: the bundle's statistics at confidence [`MEASURE_CONFIDENCE`].
pub fn selective_values(board: &Board, bundle: &EvalBundle) -> Vec<Score> {
    let mut search = Search::new(
        SearchConfig::new(32, 1)
            .and_then(|config| {
                config
                    .with_eval(bundle.clone())
                    .with_selectivity(Some(MEASURE_CONFIDENCE))
            })
            .expect("a fixed table, one thread and the measured confidence are in range"),
    );
    values_to(&mut search, board, MAX_DEPTH)
}

/// The root values of `search` at every depth up to `min(max, empties - 1)`.
///
/// Iterative deepening skips odd depths above 2 unless they are the limit, so each depth is
/// its own search with that limit; the table kept between them orders the next one. Without
/// selectivity a table entry only cuts at its own depth, so every value is the fixed-depth
/// minimax value.
fn values_to(search: &mut Search, board: &Board, max: u32) -> Vec<Score> {
    let mut values = vec![search.evaluate(board)];
    let max = max.min(board.empties().saturating_sub(1));
    let stop = AtomicBool::new(false);
    for depth in 1..=max {
        let limits = SearchLimits::midgame(depth);
        let mut value = None;
        search.iterate(board, &limits, &stop, &mut |info| {
            if info.depth == Depth::Plies(depth) {
                value = Some(info.lines[0].score);
            }
        });
        match value {
            Some(value) => values.push(value),
            None => break,
        }
    }
    values
}

/// `--endgame FILE`: the exact values of a validation set (`<board> <score>` lines, as
/// `tsuru train --make-validation` writes them) regressed on the shallow searches of the
/// endgame solver ([`EndgameSolver::shallow_value`]) with the bundle's evaluation at every
/// depth up to [`MAX_ENDGAME_SHALLOW`], per number of empties; prints or writes the
/// statistics file of [`EndgameCuts`], with the mean nodes of each shallow search as a
/// comment.
fn run_endgame(
    path: &Path,
    bundle: &EvalBundle,
    options: &Options,
    started: Instant,
) -> Result<()> {
    let positions = validation::read(path)?;
    ensure!(!positions.is_empty(), "no positions in {}", path.display());
    let depths = MAX_ENDGAME_SHALLOW as usize + 1;
    // For every position, (value, nodes) at each shallow depth.
    let searched: Vec<Vec<(Score, u64)>> = map_with_state(
        &positions,
        options.threads,
        || {
            EndgameSolver::new(
                &SearchConfig::new(1, 1)
                    .expect("a fixed table and one thread are in range")
                    .with_eval(bundle.clone()),
            )
        },
        |solver, (board, _)| {
            let mut board = board.clone();
            (0..depths as u32)
                .map(|depth| {
                    solver.reset_nodes();
                    let value = solver.shallow_value(&mut board, depth);
                    (value, solver.nodes())
                })
                .collect()
        },
    );
    let mut empties: Vec<u32> = positions.iter().map(|(b, _)| b.empties()).collect();
    empties.sort_unstable();
    empties.dedup();
    let mut text = format!(
        "# Endgame ProbCut statistics of {}, written by\n\
         # tsuru {}\n\
         # from the exact values of {} positions in {}.\n{}\
         # empties shallow slope intercept sigma samples   (intercept and sigma in discs)\n",
        bundle.source(),
        std::env::args().skip(1).collect::<Vec<_>>().join(" "),
        positions.len(),
        path.display(),
        weights_line(bundle.weights_id().expect("pattern weights have an id"))
    );
    for count in empties {
        let set: Vec<(Discs, &Vec<(Score, u64)>)> = positions
            .iter()
            .zip(&searched)
            .filter(|((board, _), _)| board.empties() == count)
            .map(|((_, exact), values)| (*exact, values))
            .collect();
        if set.len() < MIN_SAMPLES {
            continue;
        }
        for depth in 0..depths {
            let pairs: Vec<(f64, f64)> = set
                .iter()
                .map(|(exact, values)| (values[depth].0.discs(), f64::from(exact.get())))
                .collect();
            let nodes =
                set.iter().map(|(_, values)| values[depth].1).sum::<u64>() / set.len() as u64;
            let (slope, intercept, sigma) = regress(&pairs);
            text.push_str(&format!(
                "{count} {depth} {slope:.4} {intercept:.4} {sigma:.4} {}   # {nodes} nodes\n",
                pairs.len()
            ));
        }
    }
    EndgameCuts::parse(&text).context("the statistics just measured do not parse")?;
    write_out(&text, options, started)
}

/// Writes the statistics to `--out`, or else to stdout.
fn write_out(text: &str, options: &Options, started: Instant) -> Result<()> {
    match &options.out {
        Some(path) => {
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?
        }
        None => tsuru_core::out!("{text}")?,
    }
    eprintln!("done in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// Least squares `y = slope * x + intercept`; returns the residuals' deviation too.
fn regress(pairs: &[(f64, f64)]) -> (f64, f64, f64) {
    let n = pairs.len() as f64;
    let mean_x = pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pairs.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = pairs.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    let slope = if sxx > 0.0 { sxy / sxx } else { 1.0 };
    let intercept = mean_y - slope * mean_x;
    let residual: f64 = pairs
        .iter()
        .map(|p| (p.1 - slope * p.0 - intercept).powi(2))
        .sum();
    let sigma = (residual / (n - 2.0).max(1.0)).sqrt();
    (slope, intercept, sigma)
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut options = Options {
        wthor: PathBuf::from("../shared/data/wthor"),
        positions: 1500,
        stages: 15,
        seed: 1,
        threads: tsuru_core::search::SearchConfig::default_threads(),
        out: None,
        endgame: None,
        endgame_sample: None,
        every: 256,
        per_empties: 600,
        min_empties: 14,
        eval_file: None,
    };
    let mut args = ToolArgs::from_spec(args, &SPEC);
    while let Some(arg) = args.next_option()? {
        let Arg::Flag(flag) = arg else {
            return Err(args.unexpected(arg));
        };
        match flag {
            "--wthor" => options.wthor = PathBuf::from(args.value(flag)?),
            "--positions" => options.positions = args.whole_number(flag)? as usize,
            "--stages" => options.stages = args.whole_number(flag)? as usize,
            "--seed" => options.seed = args.whole_number(flag)?,
            "--threads" => {
                options.threads =
                    search_options::value(flag, args.value(flag)?, search_options::threads)?
            }
            "--out" => options.out = Some(PathBuf::from(args.value(flag)?)),
            "--endgame" => options.endgame = Some(PathBuf::from(args.value(flag)?)),
            "--endgame-sample" => options.endgame_sample = Some(PathBuf::from(args.value(flag)?)),
            "--every" => options.every = args.whole_number(flag)?,
            "--per-empties" => options.per_empties = args.whole_number(flag)? as usize,
            "--min-empties" => {
                options.min_empties = args.whole_number(flag)?.min(60) as u32;
            }
            "--eval-file" => options.eval_file = Some(args.value(flag)?.to_string()),
            _ => return Err(args.unexpected(arg)),
        }
    }
    ensure!((1..=60).contains(&options.stages), "--stages must be 1..60");
    ensure!(options.positions > 0, "--positions must be positive");
    ensure!(options.every > 0, "--every must be positive");
    ensure!(
        options.endgame.is_none() || options.endgame_sample.is_none(),
        "--endgame measures a validation file, --endgame-sample writes one: give one of them"
    );
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_weights_measured_are_the_ones_the_engine_loads() {
        let dir = std::env::temp_dir().join(format!("tsuru-probcut-{}", std::process::id()));
        let path = tsuru_core::eval::bundle::write_shifted_weights(&dir, 7);
        let options = parse_args(&["--eval-file".to_string(), path.clone()]).unwrap();
        let measured = weights_to_measure(&options).unwrap();
        // The statistics written name what the engine loads for that file.
        let loaded = EvalBundle::from_file(&path).unwrap();
        assert_eq!(measured.weights_id(), loaded.weights_id());
        assert_ne!(measured.weights_id(), EvalBundle::shipped().weights_id());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn regression_recovers_a_line_and_its_noise() {
        let mut rng = Rng::new(3);
        let pairs: Vec<(f64, f64)> = (0..4000)
            .map(|i| {
                let x = (i % 41) as f64 - 20.0;
                // Uniform noise in [-3, 3]: deviation sqrt(3).
                let noise = rng.below(6001) as f64 / 1000.0 - 3.0;
                (x, 0.9 * x + 1.5 + noise)
            })
            .collect();
        let (slope, intercept, sigma) = regress(&pairs);
        assert!((slope - 0.9).abs() < 0.01, "{slope}");
        assert!((intercept - 1.5).abs() < 0.1, "{intercept}");
        assert!((sigma - 3f64.sqrt()).abs() < 0.05, "{sigma}");
    }
}
