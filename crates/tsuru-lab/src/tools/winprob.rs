//! `tsuru winprob --train FILE... --holdout FILE... [--out FILE | --model FILE|shipped]`:
//! fits the win probability (`tsuru_core::eval::win_probability`) to self-play games and
//! measures its calibration on games held out of the fit: the reliability table (10 bins of
//! the predicted expected score: count, mean predicted, mean observed) and the Brier score of
//! the expected score, beside a baseline that knows only the value's sign. `--out` writes the
//! model in the form the engine compiles in (`crates/tsuru-core/src/eval/win-probability.txt`).
//! `--model` measures a model already made (a file in that form, or `shipped`) instead of
//! fitting one, so the shipped model and a new fit compare on the same held-out games.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::training::win_probability::{
    calibration, check_calibration, count_files, fit, predict, sign_baseline, Bin,
};
use tsuru_core::cli::tool_args::{Arg, ToolArgs, ToolOption, ToolSpec};
use tsuru_core::eval::win_probability::{WinModel, BUCKETS};

/// The command line of `tsuru winprob`.
pub const SPEC: ToolSpec = ToolSpec {
    name: "winprob",
    about: "fit the win probability of a search value to self-play games; its calibration",
    synopsis: "--train FILE... --holdout FILE...",
    options: &[
        ToolOption::repeated("--train", "FILE", "a self-play file (.gz too) to fit to"),
        ToolOption::repeated(
            "--holdout",
            "FILE",
            "a self-play file held out of the fit, to measure it on",
        ),
        ToolOption::new("--out", "FILE", "write the fitted model there"),
        ToolOption::new(
            "--model",
            "FILE|shipped",
            "measure this model instead of fitting one (--train then only gives the baseline)",
        ),
    ],
    notes: "",
};

/// The reliability table as text, a bin a line.
pub fn table(bins: &[Bin; 10]) -> String {
    let mut out = String::from("bin        samples  predicted  observed\n");
    for (k, bin) in bins.iter().enumerate() {
        let _ = writeln!(
            out,
            "{:.1}-{:.1}  {:>9}  {:>9.3}  {:>8.3}",
            k as f64 / 10.0,
            (k + 1) as f64 / 10.0,
            bin.count,
            bin.predicted,
            bin.observed
        );
    }
    out
}

/// The model in a file of the compiled-in form.
fn read_model(path: &Path) -> Result<WinModel> {
    let reading = || format!("reading {}", path.display());
    let text = std::fs::read_to_string(path).with_context(reading)?;
    WinModel::parse(&text).with_context(reading)
}

/// Runs `tsuru winprob`.
pub fn run(args: &[String]) -> Result<()> {
    let mut train: Vec<PathBuf> = Vec::new();
    let mut holdout: Vec<PathBuf> = Vec::new();
    let mut out = None;
    let mut given: Option<String> = None;
    let mut args = ToolArgs::from_spec(args, &SPEC);
    while let Some(arg) = args.next_option()? {
        match arg {
            Arg::Flag(flag @ "--train") => train.push(args.value(flag)?.into()),
            Arg::Flag(flag @ "--holdout") => holdout.push(args.value(flag)?.into()),
            Arg::Flag(flag @ "--out") => out = Some(PathBuf::from(args.value(flag)?)),
            Arg::Flag(flag @ "--model") => given = Some(args.value(flag)?.to_string()),
            other => return Err(args.unexpected(other)),
        }
    }
    if train.is_empty() || holdout.is_empty() {
        bail!("usage: tsuru {}", SPEC.usage());
    }
    if given.is_some() && out.is_some() {
        bail!("--model measures a model and --out writes a fitted one: give one of them");
    }
    let fitted_on = count_files(&train)?;
    let held = count_files(&holdout)?;
    let (model, made) = match &given {
        None => (
            fit(&fitted_on),
            format!("fitted on {} positions", fitted_on.total()),
        ),
        Some(name) if name == "shipped" => {
            (WinModel::shipped().clone(), "the shipped model".into())
        }
        Some(path) => (read_model(Path::new(path))?, format!("the model of {path}")),
    };
    let (bins, brier) = calibration(&held, |cell| predict(&model, cell));
    let (_, baseline) = calibration(&held, sign_baseline(&fitted_on));
    let mut report = format!("{made}, measured on {} held-out positions\n", held.total());
    for b in 0..BUCKETS {
        let _ = writeln!(
            report,
            "bucket {b}: scale {:.4} per disc, draw margin {:.3} discs, shift {:+.3} discs",
            model.scale[b], model.draw_margin[b], model.shift[b]
        );
    }
    report.push_str(&table(&bins));
    let _ = writeln!(
        report,
        "Brier score {brier:.4}; the value's sign alone {baseline:.4}"
    );
    let verdict = match check_calibration(&model, &held, &fitted_on) {
        Ok(()) => "within the tolerance (bins within 0.05, Brier below the sign's)".to_string(),
        Err(what) => format!("outside the tolerance: {what}"),
    };
    let _ = writeln!(report, "calibration on the held-out games: {verdict}");
    tsuru_core::out!("{report}")?;
    if let Some(path) = out {
        let names = |files: &[PathBuf]| {
            files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let header = format!(
            "tsuru winprob: bucket (empties 0-24, 25-29, ..., 55-60), scale, draw margin, shift\n\
             fitted on {} positions of: {}\n\
             held out: {} ({} positions): Brier {brier:.4}, sign alone {baseline:.4}",
            fitted_on.total(),
            names(&train),
            names(&holdout),
            held.total()
        );
        std::fs::write(&path, model.to_text(&header))
            .with_context(|| format!("writing {}", path.display()))?;
        // What was written reads back as the model.
        anyhow::ensure!(read_model(&path)? == model, "the written model reads back");
    }
    Ok(())
}
