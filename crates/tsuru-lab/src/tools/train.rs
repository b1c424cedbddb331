//! `tsuru train`: fits the pattern evaluation to game collections and writes a weights file;
//! `tsuru train --make-validation FILE` writes the exact-value validation set.
//!
//! ```text
//! tsuru train --wthor ../shared/data/wthor --logbook ../shared/data/logistello/logbook.gam.gz \
//!     --validation tests/fixtures/eval-validation.txt --out src/eval/weights.tsw
//! ```
//!
//! Prints, per stage, the training and held-out mean absolute error, and at the end the
//! error against the validation set's exact values per number of empty squares, beside that
//! of evaluation v1. Every step is deterministic: same inputs, same weights file.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use tsuru_core::search::SearchConfig;

use anyhow::{bail, ensure, Context, Result};

use crate::parallel::map_chunks;
use crate::training::fit::{errors, fit_stage, FitConfig, StageFit};
use crate::training::games::{read_logbook, read_wthor_folder, Game};
use crate::training::positions::{fingerprint, PositionSet};
use crate::training::selfplay::read_file;
use crate::training::{
    blend_search_labels, label_game, recorded_values, relabel_results_by_solved, search_values,
    search_values_description, stage_samples, use_recorded_values, Labelled, WeightByEmpties,
};
use tsuru_core::board::{Board, Color};
use tsuru_core::cli::search_options;
use tsuru_core::cli::tool_args::{Arg, ToolArgs, ToolOption, ToolSpec};
use tsuru_core::eval::pattern::{layout, PatternEval, Weights};
use tsuru_core::eval::{EvalChoice, Evaluation, SeedsEval};
use tsuru_core::formats::search_values as values_file;
use tsuru_core::formats::validation;
use tsuru_core::score::Discs;
use tsuru_core::search::endgame::{EndgameSolver, SolveMode};

/// The command line of `tsuru train`.
pub const SPEC: ToolSpec = ToolSpec {
    name: "train",
    about: "fit the pattern evaluation to game collections; write weights and report errors",
    synopsis: "",
    options: &[
        ToolOption::new("--wthor", "DIR", "a folder of WTHOR game files"),
        ToolOption::new("--logbook", "FILE", "Logistello's logbook.gam(.gz)"),
        ToolOption::repeated("--selfplay", "FILE", "a tsuru datagen file"),
        ToolOption::new(
            "--stages",
            "N",
            "weight sets by game stage, 1..60 (default 15)",
        ),
        ToolOption::new(
            "--epochs",
            "N",
            "passes of the fit over a stage (default 300)",
        ),
        ToolOption::new("--rate", "R", "learning rate (default 0.015)"),
        ToolOption::new("--l2", "L", "shrinkage of the weights (default 2)"),
        ToolOption::new(
            "--shrink-to",
            "zero|previous",
            "shrink towards zero or the fit's starting weights (default zero)",
        ),
        ToolOption::new(
            "--holdout-every",
            "N",
            "hold every N-th game out of training, N >= 2 (default 20)",
        ),
        ToolOption::new(
            "--solve-empties",
            "N",
            "label positions with N or fewer empties by exact solves, at most\n20 (default 0)",
        ),
        ToolOption::new(
            "--positions",
            "FILE",
            "the labelled positions: read if the file matches these inputs,\n\
             else built and written there",
        ),
        ToolOption::new(
            "--positions-only",
            "",
            "stop once the --positions file is built (for tsuru label)",
        ),
        ToolOption::new(
            "--window",
            "W",
            "a stage also trains on positions up to W plies beyond it (default 0)",
        ),
        ToolOption::new(
            "--labels",
            "result|solved",
            "label a game's unsolved positions by its result or by its first\n\
             solved value (default result)",
        ),
        ToolOption::new(
            "--search-labels",
            "DEPTH",
            "blend a DEPTH-ply search of the shipped evaluation (or\n\
             --search-eval-file's) into every label that is not exact\n\
             (default 0: none)",
        ),
        ToolOption::new(
            "--search-eval-file",
            "WEIGHTS",
            "those searches use these weights and the statistics beside them\n\
             instead of the shipped ones",
        ),
        ToolOption::new(
            "--search-weight",
            "W",
            "the search value's share of a blended label, 0..1 (default 0.5)",
        ),
        ToolOption::new(
            "--recorded-scores",
            "",
            "self-play games of v3 files: their players' recorded search\n\
             scores stand for the search values (--search-weight blends\n\
             them; without --search-labels, only theirs)",
        ),
        ToolOption::new(
            "--recorded-weights",
            "W|E:W,..",
            "the recorded score's share of a blended label instead of\n\
             --search-weight: one weight, or weights by empty squares, linear\n\
             between the points (e.g. 24:0.25,40:0.75)",
        ),
        ToolOption::new(
            "--search-cache",
            "FILE",
            "the search values: read if made for these positions, depth and\n\
             weights, else searched and written there (`tsuru label` makes\n\
             the same file in shards)",
        ),
        ToolOption::new(
            "--validation",
            "FILE",
            "report the error against this validation file's exact values",
        ),
        ToolOption::new(
            "--blend",
            "",
            "fit the stages together as they are read blended (each position\n\
             valued by the two stages whose middles enclose its ply) and write\n\
             them as a weights file read blended (the engine expands it to one\n\
             weight set per ply when it loads it)",
        ),
        ToolOption::new(
            "--blend-epochs",
            "N",
            "passes of the blended fit (default 100)",
        ),
        ToolOption::new(
            "--start",
            "WEIGHTS",
            "with --blend: start from these weights' stages (as many as\n\
             --stages, or a file read blended from that many) instead of\n\
             fitting stage by stage first",
        ),
        ToolOption::new("--out", "FILE", "write the weights there"),
        ToolOption::new(
            "--export-samples",
            "FILE",
            "instead of fitting, write the labelled positions as pattern look-ups\n\
             for an outside trainer (crates/tsuru-lab/scripts/pattern_nets.py) and stop",
        ),
        ToolOption::new("--threads", "N", "threads of the fit (default 2)"),
        ToolOption::new(
            "--make-validation",
            "FILE",
            "instead of fitting, write a validation file of exact values from\n\
             the held-out games (with --wthor and --holdout-every)",
        ),
    ],
    notes: "--make-validation uses only --wthor and --holdout-every; --search-weight and\n\
            --search-cache go with --search-labels; --positions-only with --positions.",
};

struct Options {
    wthor: Option<PathBuf>,
    logbook: Option<PathBuf>,
    selfplay: Vec<PathBuf>,
    stages: usize,
    fit: FitConfig,
    holdout_every: usize,
    solve_empties: u32,
    positions: Option<PathBuf>,
    positions_only: bool,
    window: u32,
    solved_labels: bool,
    search_depth: u32,
    search_weight: f32,
    /// The evaluation of the `--search-labels` searches.
    search_eval: Option<String>,
    recorded_scores: bool,
    /// The blend weight of a recorded score (`None`: `search_weight`).
    recorded_weights: Option<WeightByEmpties>,
    search_cache: Option<PathBuf>,
    validation: Option<PathBuf>,
    blend: bool,
    blend_epochs: usize,
    start: Option<PathBuf>,
    out: Option<PathBuf>,
    export_samples: Option<PathBuf>,
    make_validation: Option<PathBuf>,
}

/// Runs the tool.
pub fn run(args: &[String]) -> Result<()> {
    let options = parse_args(args)?;
    let started = Instant::now();
    let (train_games, held_out) = load_games(&options)?;
    if let Some(path) = &options.make_validation {
        return make_validation(path, &held_out);
    }
    ensure!(
        !train_games.is_empty(),
        "no games: give --wthor, --logbook and/or --selfplay"
    );

    let mut set = labelled_positions(&options, &train_games, &held_out)?;
    if options.positions_only {
        return Ok(());
    }
    if options.solved_labels {
        relabel_results_by_solved(&mut set.train);
    }
    if options.search_depth > 0 || options.recorded_scores {
        let mut values = if options.search_depth > 0 {
            searched_values(&options, &set)?
        } else {
            set.train.iter().map(|position| position.label).collect()
        };
        if options.recorded_scores {
            let recorded = recorded_values(&train_games);
            ensure!(
                recorded.len() == set.train.len(),
                "{} recorded scores for {} training positions",
                recorded.len(),
                set.train.len()
            );
            let took = use_recorded_values(&set.train, &recorded, &mut values);
            let replaced = took.iter().filter(|&&t| t).count();
            eprintln!("{replaced} training positions take their games' recorded search scores");
            let recorded_weights = options
                .recorded_weights
                .clone()
                .unwrap_or_else(|| WeightByEmpties::constant(options.search_weight));
            eprintln!("recorded scores blended with weights {recorded_weights}");
            blend_search_labels(&mut set.train, &values, |i, position| {
                if took[i] {
                    recorded_weights.at(position.empties())
                } else {
                    options.search_weight
                }
            });
        } else {
            blend_search_labels(&mut set.train, &values, |_, _| options.search_weight);
        }
    }
    eprintln!(
        "{} training positions, {} held-out positions ({:.0} s)",
        set.train.len(),
        set.held_out.len(),
        started.elapsed().as_secs_f64()
    );
    drop((train_games, held_out));
    if let Some(path) = &options.export_samples {
        return export_samples(path, &set);
    }

    let total = layout().total;
    let mut fits: Vec<StageFit> = match &options.start {
        Some(path) => start_fits(path, options.stages)?,
        None => Vec::with_capacity(options.stages),
    };
    if options.start.is_none() {
        for stage in 0..options.stages {
            let samples = stage_samples(&set.train, stage, options.stages, options.window);
            let held = stage_samples(&set.held_out, stage, options.stages, 0);
            let start = fits.last().map(|f| (f.weights.as_slice(), f.bias));
            let fit = fit_stage(&samples, total, start, &options.fit, |epoch, rms| {
                if epoch % 50 == 49 {
                    eprint!("stage {stage}: epoch {} rms {rms:.3}   \r", epoch + 1);
                }
            });
            let (train_mae, _) = errors(&samples, &fit.weights, fit.bias);
            let (held_mae, _) = errors(&held, &fit.weights, fit.bias);
            let high = 60 - stage * 60 / options.stages;
            let low = 61 - (stage + 1) * 60 / options.stages;
            tsuru_core::outln!(
                "{stage:>5}  {high:>2}-{low:<2}   {:>9}  {train_mae:>9.3}  {held_mae:>12.3}",
                samples.len()
            )?;
            fits.push(fit);
        }
    }
    // Blended stages are written as such and evaluated as the engine will read them.
    let (weights, bytes) = if options.blend {
        let stages = blended_weights(&options, &set, fits)?;
        let bytes = stages.to_blended_bytes()?;
        (stages.per_ply(), bytes)
    } else {
        let weights = to_weights(&fits);
        let bytes = weights.to_bytes();
        (weights, bytes)
    };
    let eval = PatternEval::new(&weights);
    if let Some(path) = &options.out {
        std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    if let Some(path) = &options.validation {
        report_validation(path, &eval)?;
    }
    eprintln!("done in {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// The stages of a weights file as fits in discs (every entry counted, so that
/// [`to_weights`] keeps them all): the start of a `--blend` fit.
fn start_fits(path: &Path, stages: usize) -> Result<Vec<StageFit>> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let (mut weights, _) =
        Weights::load(&bytes).with_context(|| format!("in {}", path.display()))?;
    ensure!(
        weights.interaction.is_none(),
        "{} has an interaction term; --start takes tables alone",
        path.display()
    );
    if weights.stages() != stages && weights.stages() == crate::training::blend::PLIES {
        // A file read blended loads as one set per ply: find its stages again.
        weights = crate::training::blend::unblend(&weights, stages)
            .with_context(|| format!("{} read as {stages} blended stages", path.display()))?;
    }
    ensure!(
        weights.stages() == stages,
        "{} has {} stages, not --stages {stages}",
        path.display(),
        weights.stages()
    );
    let units = tsuru_core::score::UNITS_PER_DISC as f32;
    Ok((0..stages)
        .map(|stage| StageFit {
            weights: weights.tables[stage]
                .iter()
                .map(|&v| f32::from(v) / units)
                .collect(),
            bias: f32::from(weights.bias[stage]) / units,
            counts: vec![1; layout().total],
        })
        .collect())
}

/// Fits `start`'s stages together as they are read blended ([`crate::training::blend`]) and
/// returns them; prints the blended error before and after.
fn blended_weights(options: &Options, set: &PositionSet, start: Vec<StageFit>) -> Result<Weights> {
    use crate::training::blend::{blended_mae, fit_blended, PlySample};
    let ply_samples = |positions: &[Labelled]| -> Vec<PlySample> {
        positions
            .iter()
            .filter_map(|p| {
                Some(PlySample {
                    sample: crate::training::sample_of(p)?,
                    ply: (60 - p.empties().min(60)) as u8,
                })
            })
            .collect()
    };
    let train = ply_samples(&set.train);
    let held = ply_samples(&set.held_out);
    let threads = options.fit.threads;
    tsuru_core::outln!(
        "blended: start  train MAE {:.3}  held-out MAE {:.3}",
        blended_mae(&train, &start, threads),
        blended_mae(&held, &start, threads)
    )?;
    let config = FitConfig {
        epochs: options.blend_epochs,
        ..options.fit
    };
    let started = Instant::now();
    let fits = fit_blended(&train, &start, &config, |epoch, rms| {
        if epoch % 10 == 9 || epoch < 3 {
            eprint!(
                "blended fit: epoch {} rms {rms:.3} ({:.0} s)   \r",
                epoch + 1,
                started.elapsed().as_secs_f64()
            );
        }
    });
    tsuru_core::outln!(
        "blended: fitted  train MAE {:.3}  held-out MAE {:.3}",
        blended_mae(&train, &fits, threads),
        blended_mae(&held, &fits, threads)
    )?;
    Ok(to_weights(&fits))
}

/// Writes the training and held-out positions as a samples file (`--export-samples`).
fn export_samples(path: &Path, set: &PositionSet) -> Result<()> {
    use tsuru_core::formats::samples::{self, SampleRecord, LOOKUPS};
    let layout = layout();
    let records = |positions: &[Labelled]| -> Vec<SampleRecord> {
        positions
            .iter()
            .filter_map(|position| {
                let sample = crate::training::sample_of(position)?;
                let mut lookups = [0u16; LOOKUPS];
                for (copy, lookup) in lookups.iter_mut().enumerate().take(LOOKUPS - 1) {
                    *lookup = (sample.features[copy] as usize - layout.copy_offsets[copy]) as u16;
                }
                lookups[LOOKUPS - 1] =
                    (sample.features[LOOKUPS - 1] as usize - layout.mobility_offset) as u16;
                Some(SampleRecord {
                    lookups,
                    empties: position.empties() as u8,
                    label: position.label,
                    held_out: false,
                })
            })
            .collect()
    };
    let samples_layout = build_samples_layout();
    let (train, held) = (records(&set.train), records(&set.held_out));
    samples::write(path, &samples_layout, &train, &held)?;
    eprintln!(
        "wrote {}: {} training and {} held-out records",
        path.display(),
        train.len(),
        held.len()
    );
    Ok(())
}

/// The samples-file layout of this build's pattern set (what `--export-samples` writes and
/// `tsuru tables --check` requires).
pub(super) fn build_samples_layout() -> tsuru_core::formats::samples::SamplesLayout {
    use tsuru_core::board::patterns::{pattern_tables, SHAPES};
    use tsuru_core::eval::pattern::MOBILITY_SIDE;
    tsuru_core::formats::samples::SamplesLayout {
        pattern_set: layout().pattern_set_id,
        shapes: SHAPES.iter().map(|s| s.squares.len() as u8).collect(),
        copies: pattern_tables()
            .copies
            .iter()
            .map(|copy| copy.shape as u8)
            .collect(),
        mobility: MOBILITY_SIDE as u16,
    }
}

/// Reads the collections and splits them by game number into training and held-out games.
fn load_games(options: &Options) -> Result<(Vec<Game>, Vec<Game>)> {
    let mut all = Vec::new();
    if let Some(folder) = &options.wthor {
        let (games, dropped) = read_wthor_folder(folder)?;
        eprintln!("WTHOR: {} games ({dropped} dropped)", games.len());
        all.extend(games);
    }
    if let Some(file) = &options.logbook {
        let (games, dropped) = read_logbook(file)?;
        eprintln!("logbook: {} games ({dropped} dropped)", games.len());
        all.extend(games);
    }
    for file in &options.selfplay {
        let text =
            std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        let (config, games) = read_file(&text).with_context(|| format!("in {}", file.display()))?;
        let players = config
            .weights
            .map_or("weights not recorded".to_string(), |id| {
                format!("weights {id:08x}")
            });
        eprintln!(
            "self-play: {} games from {} (solved from {} empties, {players})",
            games.len(),
            file.display(),
            config.solve_empties
        );
        all.extend(games.iter().map(crate::training::selfplay::training_game));
    }
    let mut train = Vec::new();
    let mut held_out = Vec::new();
    for (number, game) in all.into_iter().enumerate() {
        if number % options.holdout_every == 0 {
            held_out.push(game);
        } else {
            train.push(game);
        }
    }
    Ok((train, held_out))
}

/// The labelled positions of the training and held-out games: read from `--positions FILE`
/// when that file exists and was built from the same inputs, otherwise built (solving the
/// training positions with `--solve-empties` or fewer empties) and, with `--positions`,
/// written there for the next run.
fn labelled_positions(
    options: &Options,
    train_games: &[Game],
    held_out: &[Game],
) -> Result<PositionSet> {
    let description = format!(
        "{} training games, {} held out (every {}th), fingerprints {:016x} {:016x}, \
         solved from {} empties",
        train_games.len(),
        held_out.len(),
        options.holdout_every,
        fingerprint(train_games),
        fingerprint(held_out),
        options.solve_empties
    );
    if let Some(path) = options.positions.as_deref().filter(|path| path.exists()) {
        let set = PositionSet::read(path)?;
        ensure!(
            set.description == description,
            "{} was built from other inputs ({}; now: {}); delete it or name another file",
            path.display(),
            set.description,
            description
        );
        eprintln!("positions from {}", path.display());
        return Ok(set);
    }
    eprintln!("labelling positions...");
    let set = PositionSet {
        train: label_games(train_games, options, options.solve_empties),
        held_out: label_games(held_out, options, 0),
        description,
    };
    if let Some(path) = &options.positions {
        set.write(path)?;
        eprintln!("wrote {}", path.display());
    }
    Ok(set)
}

/// The labelled positions of `games` in game order, built on the configured threads
/// (solving when `solve_empties > 0`); the result does not depend on the thread count.
fn label_games(games: &[Game], options: &Options, solve_empties: u32) -> Vec<Labelled> {
    map_chunks(games, options.fit.threads, |part, games| {
        let mut out = Vec::new();
        let mut solver =
            (solve_empties > 0).then(|| EndgameSolver::new(&SearchConfig::new(16, 1).unwrap()));
        let started = Instant::now();
        for (i, game) in games.iter().enumerate() {
            label_game(game, solve_empties, solver.as_mut(), &mut out);
            if part == 0 && i % 10_000 == 9_999 {
                eprint!(
                    "  {} of {} games ({:.0} s)   \r",
                    i + 1,
                    games.len(),
                    started.elapsed().as_secs_f64()
                );
            }
        }
        out
    })
    .concat()
}

/// The search values of the training positions ([`search_values`] at `--search-labels`
/// plies): read from `--search-cache FILE` when it was made for the same positions and depth,
/// otherwise searched on the configured threads and, with `--search-cache`, written there
/// (the file: [`tsuru_core::formats::search_values`]).
fn searched_values(options: &Options, set: &PositionSet) -> Result<Vec<i8>> {
    let eval = options
        .search_eval
        .clone()
        .map_or(EvalChoice::Shipped, EvalChoice::File)
        .build()?;
    let description = search_values_description(
        &set.description,
        options.search_depth,
        set.train.len(),
        &eval,
    );
    if let Some(path) = options.search_cache.as_deref().filter(|p| p.exists()) {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let values =
            values_file::values_for(&bytes, &description, set.train.len()).with_context(|| {
                format!(
                    "{} holds search values of other positions, depth or weights, or is \
                     unfinished; delete it or name another file (or finish its tsuru label run)",
                    path.display()
                )
            })?;
        eprintln!("search values from {}", path.display());
        return Ok(values);
    }
    let started = Instant::now();
    let share = set.train.len().div_ceil(options.fit.threads.max(1));
    eprintln!(
        "searching {} training positions {} plies deep...",
        set.train.len(),
        options.search_depth
    );
    let values = search_values(
        &set.train,
        options.search_depth,
        options.fit.threads,
        &eval,
        |done| {
            if done % 20_000 < 60 {
                let seconds = started.elapsed().as_secs_f64();
                eprint!(
                    "  {done} of about {share} positions ({:.0} a second, {seconds:.0} s)   \r",
                    done as f64 / seconds.max(1e-9)
                );
            }
        },
    );
    eprintln!(
        "searched in {:.0} s                              ",
        started.elapsed().as_secs_f64()
    );
    if let Some(path) = &options.search_cache {
        let bytes = values_file::to_bytes(&description, &values);
        std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(values)
}

/// Quantises fitted stages to Score units; an entry never seen in its stage takes the value
/// of the nearest stage that saw it (earlier stages first on ties).
fn to_weights(fits: &[StageFit]) -> Weights {
    let layout = layout();
    let mut weights = Weights::zero(fits.len());
    let units = tsuru_core::score::UNITS_PER_DISC as f32;
    let quantise = |v: f32| (v * units).round().clamp(-32767.0, 32767.0) as i16;
    for (stage, fit) in fits.iter().enumerate() {
        weights.bias[stage] = quantise(fit.bias);
        for entry in 0..layout.total {
            let canonical = layout.canonical[entry] as usize;
            let source = (0..fits.len())
                .flat_map(|d| [stage.checked_sub(d), Some(stage + d)])
                .flatten()
                .find(|&s| s < fits.len() && fits[s].counts[canonical] > 0);
            if let Some(source) = source {
                weights.tables[stage][entry] = quantise(fits[source].weights[canonical]);
            }
        }
    }
    weights
}

/// Prints the mean absolute error of `eval` and of evaluation v1 per number of empties.
pub(super) fn report_validation(path: &Path, eval: &PatternEval) -> Result<()> {
    let positions = validation::read(path)?;
    let mut empties: Vec<u32> = positions.iter().map(|(b, _)| b.empties()).collect();
    empties.sort_unstable();
    empties.dedup();
    tsuru_core::outln!(
        "validation ({}): mean absolute error in discs",
        path.display()
    )?;
    tsuru_core::outln!("empties  positions  patterns  evaluation v1")?;
    for count in empties {
        let set: Vec<&(Board, Discs)> = positions
            .iter()
            .filter(|(b, _)| b.empties() == count)
            .collect();
        let mae = |eval: &dyn Evaluation| -> f64 {
            set.iter()
                .map(|(board, score)| (eval.evaluate(board).discs() - f64::from(score.get())).abs())
                .sum::<f64>()
                / set.len() as f64
        };
        tsuru_core::outln!(
            "{count:>7}  {:>9}  {:>8.2}  {:>13.2}",
            set.len(),
            mae(eval),
            mae(&SeedsEval)
        )?;
    }
    Ok(())
}

/// Writes exact values of positions from held-out games: at 14, 16, 18 and 20 empties solved
/// by tsuru, and at the collection's theoretical-score depth (WTHOR: 24) from the record.
fn make_validation(path: &PathBuf, games: &[Game]) -> Result<()> {
    const SOLVED: [(u32, usize); 4] = [(14, 1000), (16, 600), (18, 300), (20, 120)];
    const THEORETICAL: usize = 1000;
    let mut out = String::from(
        "# tsuru evaluation validation set: <board> <exact score for the side to move>\n\
         # made by `tsuru train --make-validation` from held-out WTHOR games\n",
    );
    let mut solver = EndgameSolver::new(&SearchConfig::new(64, 1)?);
    let stop = AtomicBool::new(false);
    for (empties, wanted) in SOLVED {
        let mut found = 0;
        let started = Instant::now();
        for game in games {
            if found == wanted {
                break;
            }
            let Some(mut board) = position_at(game, empties) else {
                continue;
            };
            let solution = solver
                .solve(&mut board, SolveMode::Exact, &stop)
                .context("solve stopped")?;
            out.push_str(&validation::line(&board, solution.score));
            out.push('\n');
            found += 1;
        }
        eprintln!(
            "{found} positions at {empties} empties solved in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    let mut found = 0;
    for game in games {
        let Some((depth, black_value)) = game.theoretical else {
            continue;
        };
        if found == THEORETICAL {
            break;
        }
        let Some(board) = position_at(game, u32::from(depth)) else {
            continue;
        };
        let black = Discs::new(i32::from(black_value));
        let value = if board.side_to_move() == Color::Black {
            black
        } else {
            -black
        };
        out.push_str(&validation::line(&board, value));
        out.push('\n');
        found += 1;
    }
    eprintln!("{found} positions with their recorded theoretical score");
    std::fs::write(path, out).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// The position of `game` with exactly `empties` empty squares, if the side to move there
/// has a move.
fn position_at(game: &Game, empties: u32) -> Option<Board> {
    let mut board = Board::start();
    for &mv in &game.moves {
        if board.empties() == empties {
            break;
        }
        board.play(mv).ok()?;
    }
    (board.empties() == empties && !board.must_pass() && !board.is_game_over())
        .then(|| board.without_history())
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut options = Options {
        wthor: None,
        logbook: None,
        selfplay: Vec::new(),
        stages: 15,
        fit: FitConfig::default(),
        holdout_every: 20,
        solve_empties: 0,
        positions: None,
        positions_only: false,
        window: 0,
        solved_labels: false,
        search_depth: 0,
        search_weight: 0.5,
        search_eval: None,
        recorded_scores: false,
        recorded_weights: None,
        search_cache: None,
        validation: None,
        blend: false,
        blend_epochs: 100,
        start: None,
        out: None,
        export_samples: None,
        make_validation: None,
    };
    let mut args = ToolArgs::from_spec(args, &SPEC);
    while let Some(arg) = args.next_option()? {
        let Arg::Flag(flag) = arg else {
            return Err(args.unexpected(arg));
        };
        let number = |text: &str| -> Result<f64> {
            text.parse::<f64>()
                .with_context(|| format!("{flag} needs a number, not {text:?}"))
        };
        match flag {
            "--wthor" => options.wthor = Some(PathBuf::from(args.value(flag)?)),
            "--logbook" => options.logbook = Some(PathBuf::from(args.value(flag)?)),
            "--selfplay" => options.selfplay.push(PathBuf::from(args.value(flag)?)),
            "--stages" => options.stages = number(args.value(flag)?)? as usize,
            "--epochs" => options.fit.epochs = number(args.value(flag)?)? as usize,
            "--rate" => options.fit.rate = number(args.value(flag)?)? as f32,
            "--l2" => options.fit.l2 = number(args.value(flag)?)? as f32,
            "--shrink-to" => {
                options.fit.shrink_to_start = match args.value(flag)? {
                    "zero" => false,
                    "previous" => true,
                    other => bail!("--shrink-to takes zero or previous, not {other:?}"),
                }
            }
            "--threads" => {
                options.fit.threads =
                    search_options::value(flag, args.value(flag)?, search_options::threads)?
            }
            "--holdout-every" => options.holdout_every = number(args.value(flag)?)? as usize,
            "--solve-empties" => options.solve_empties = number(args.value(flag)?)? as u32,
            "--positions" => options.positions = Some(PathBuf::from(args.value(flag)?)),
            "--positions-only" => options.positions_only = true,
            "--recorded-scores" => options.recorded_scores = true,
            "--recorded-weights" => {
                options.recorded_weights = Some(
                    WeightByEmpties::parse(args.value(flag)?)
                        .map_err(|e| anyhow::anyhow!("--recorded-weights: {e}"))?,
                )
            }
            "--window" => options.window = number(args.value(flag)?)? as u32,
            "--labels" => {
                options.solved_labels = match args.value(flag)? {
                    "result" => false,
                    "solved" => true,
                    other => bail!("--labels takes result or solved, not {other:?}"),
                }
            }
            "--search-labels" => options.search_depth = number(args.value(flag)?)? as u32,
            "--search-weight" => options.search_weight = number(args.value(flag)?)? as f32,
            "--search-eval-file" => options.search_eval = Some(args.value(flag)?.to_string()),
            "--search-cache" => options.search_cache = Some(PathBuf::from(args.value(flag)?)),
            "--validation" => options.validation = Some(PathBuf::from(args.value(flag)?)),
            "--blend" => options.blend = true,
            "--blend-epochs" => options.blend_epochs = number(args.value(flag)?)? as usize,
            "--start" => options.start = Some(PathBuf::from(args.value(flag)?)),
            "--out" => options.out = Some(PathBuf::from(args.value(flag)?)),
            "--export-samples" => options.export_samples = Some(PathBuf::from(args.value(flag)?)),
            "--make-validation" => options.make_validation = Some(PathBuf::from(args.value(flag)?)),
            _ => return Err(args.unexpected(arg)),
        }
    }
    ensure!((1..=60).contains(&options.stages), "--stages must be 1..60");
    ensure!(
        !options.blend || 60usize.is_multiple_of(options.stages),
        "--blend needs --stages that divide 60 plies"
    );
    ensure!(
        options.start.is_none() || options.blend,
        "--start goes with --blend"
    );
    ensure!(
        !options.positions_only || options.positions.is_some(),
        "--positions-only needs --positions FILE"
    );
    ensure!(
        options.search_eval.is_none() || options.search_depth > 0,
        "--search-eval-file goes with --search-labels"
    );
    ensure!(
        (0.0..=1.0).contains(&options.search_weight),
        "--search-weight must be 0..1"
    );
    ensure!(
        options.recorded_weights.is_none() || options.recorded_scores,
        "--recorded-weights goes with --recorded-scores"
    );
    ensure!(
        options.holdout_every >= 2,
        "--holdout-every must be at least 2"
    );
    ensure!(
        options.solve_empties <= 20,
        "--solve-empties must be at most 20"
    );
    Ok(options)
}
