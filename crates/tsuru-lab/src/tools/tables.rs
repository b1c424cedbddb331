//! `tsuru tables`: generates the pattern tables of a weights file from per-shape networks
//! (`crates/tsuru-lab/scripts/pattern_nets.py` trains them; [`crate::training::pattern_nets`] says what they
//! compute), and checks the generated weights against the samples the networks were trained on.
//!
//! ```text
//! tsuru tables --nets nets.pnn --out nets.tsw --check samples.bin
//! tsuru tables --fm model.fmm --out fm.tsw --check samples.bin
//! ```
//!
//! With `--fm` it quantises a factorisation-machine model (`crates/tsuru-lab/scripts/fm_train.py` writes it) into
//! weights with an interaction term instead ([`crate::training::fm`]); with
//! `--term-base BASE` as well, the model's tables must be BASE's (a term fitted with
//! `--freeze-tables`) and `--out` gets the term alone, a term file
//! ([`tsuru_core::formats::term`]) that the engine applies to BASE, which must then be the
//! compiled-in weights:
//!
//! ```text
//! tsuru tables --fm model.fmm --fm-compact --term-base src/eval/weights.tsw --out term.tsi
//! ```
//!
//! `--unblend STAGES` writes one weight set per ply (as a blended fit's stages expand when
//! they load) back as the STAGES stages they are a blended reading of, a weights file read
//! blended that loads as the very same sets, a quarter of the size at 15 stages:
//!
//! ```text
//! tsuru tables --weights per-ply.tsw --unblend 15 --out blended.tsw
//! ```
//!
//! `--check` prints the mean absolute error of the generated (quantised) weights on the
//! samples file's training and held-out records, which the trainer's own figures must match:
//! a check that the tables are the networks the trainer measured.

use std::path::{Path, PathBuf};

use anyhow::{ensure, Context, Result};

use crate::training::fm::{model_of, quantise_model};
use crate::training::pattern_nets::generate;
use tsuru_core::board::patterns::pattern_tables;
use tsuru_core::board::patterns::COPIES;
use tsuru_core::cli::tool_args::{Arg, ToolArgs, ToolOption, ToolSpec};
use tsuru_core::eval::pattern::{layout, stage_of, PatternEval, Weights, FEATURES};
use tsuru_core::formats::{fm_model, pattern_nets, samples};
use tsuru_core::score::UNITS_PER_DISC;

/// The command line of `tsuru tables`.
pub const SPEC: ToolSpec = ToolSpec {
    name: "tables",
    about: "generate a weights file's pattern tables from per-shape networks",
    synopsis: "--nets FILE --out FILE | tables --fm FILE --out FILE | tables --weights FILE",
    options: &[
        ToolOption::new(
            "--nets",
            "FILE",
            "the networks (crates/tsuru-lab/scripts/pattern_nets.py writes them) (required)",
        ),
        ToolOption::new(
            "--fm",
            "FILE",
            "instead of --nets: a factorisation-machine model to quantise\n\
             (crates/tsuru-lab/scripts/fm_train.py writes it)",
        ),
        ToolOption::new(
            "--fm-compact",
            "",
            "with --fm: quantise the vectors to 8-bit components (the engine\n\
             then reads rows of 8 bytes instead of 16)",
        ),
        ToolOption::new(
            "--term-base",
            "FILE",
            "with --fm and --fm-compact: the weights whose tables the model kept
             (fitted with --freeze-tables); --out gets the term alone (a term file)",
        ),
        ToolOption::new("--out", "FILE", "the weights file to write (required)"),
        ToolOption::new(
            "--weights",
            "FILE",
            "instead of --nets and --out: a weights file to measure (or a term
             file, with the compiled-in weights)",
        ),
        ToolOption::new(
            "--export-fm",
            "FILE",
            "with --weights: write them as a factorisation-machine model (the\n\
             term's vectors and scales, or zeros without one), a starting point\n\
             for crates/tsuru-lab/scripts/fm_train.py --init",
        ),
        ToolOption::new(
            "--unblend",
            "STAGES",
            "with --weights (one weight set per ply, no term) and --out: write\n\
             the STAGES stages whose blended reading they are, as a weights file\n\
             read blended (it loads as the same per-ply sets)",
        ),
        ToolOption::new(
            "--validation",
            "FILE",
            "print the weights' mean absolute error on a validation file's\n\
             exact values, by empties (as tsuru train --validation)",
        ),
        ToolOption::new(
            "--check",
            "SAMPLES",
            "print the generated weights' mean absolute error on a samples\n\
             file (tsuru train --export-samples)",
        ),
    ],
    notes: "",
};

/// Runs the tool.
pub fn run(args: &[String]) -> Result<()> {
    let (mut nets, mut out, mut check, mut given) = (None, None, None, None);
    let (mut fm, mut export_fm, mut compact) = (None, None, false);
    let (mut validation, mut term_base, mut unblend) = (None, None, None);
    let mut args = ToolArgs::from_spec(args, &SPEC);
    while let Some(arg) = args.next_option()? {
        match arg {
            Arg::Flag("--nets") => nets = Some(PathBuf::from(args.value("--nets")?)),
            Arg::Flag("--fm") => fm = Some(PathBuf::from(args.value("--fm")?)),
            Arg::Flag("--fm-compact") => compact = true,
            Arg::Flag("--export-fm") => export_fm = Some(PathBuf::from(args.value("--export-fm")?)),
            Arg::Flag("--out") => out = Some(PathBuf::from(args.value("--out")?)),
            Arg::Flag("--term-base") => term_base = Some(PathBuf::from(args.value("--term-base")?)),
            Arg::Flag("--check") => check = Some(PathBuf::from(args.value("--check")?)),
            Arg::Flag("--weights") => given = Some(PathBuf::from(args.value("--weights")?)),
            Arg::Flag(flag @ "--unblend") => unblend = Some(args.whole_number(flag)? as usize),
            Arg::Flag("--validation") => {
                validation = Some(PathBuf::from(args.value("--validation")?))
            }
            other => return Err(args.unexpected(other)),
        }
    }
    let usage = || format!("(usage: tsuru {})", SPEC.usage());
    ensure!(
        unblend.is_none() || given.is_some(),
        "--unblend goes with --weights {}",
        usage()
    );
    if let (Some(path), Some(stages)) = (&given, unblend) {
        let out = out.with_context(|| format!("--unblend needs --out {}", usage()))?;
        return write_unblended(path, stages, &out, validation.as_deref());
    }
    if let Some(path) = given {
        ensure!(
            nets.is_none() && fm.is_none() && out.is_none(),
            "--weights replaces --nets, --fm and --out {}",
            usage()
        );
        ensure!(
            check.is_some() || validation.is_some() || export_fm.is_some(),
            "--weights needs --check, --validation or --export-fm {}",
            usage()
        );
        let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        let (weights, _) =
            Weights::load(&bytes).with_context(|| format!("in {}", path.display()))?;
        if let Some(target) = &export_fm {
            let record = model_of(&weights);
            std::fs::write(target, fm_model::to_bytes(&record))
                .with_context(|| format!("writing {}", target.display()))?;
            tsuru_core::outln!("wrote {} ({} stages)", target.display(), weights.stages())?;
        }
        return measure(&weights, check.as_deref(), validation.as_deref());
    }
    let out = out.with_context(|| format!("--out is required {}", usage()))?;
    if let Some(model) = fm {
        ensure!(nets.is_none(), "--fm replaces --nets {}", usage());
        let record = fm_model::read(&model)?;
        let weights =
            quantise_model(&record, compact).with_context(|| format!("in {}", model.display()))?;
        if let Some(base) = term_base {
            return write_term(
                &weights,
                &base,
                &out,
                check.as_deref(),
                validation.as_deref(),
            );
        }
        let bytes = weights.to_bytes();
        std::fs::write(&out, &bytes).with_context(|| format!("writing {}", out.display()))?;
        let id = Weights::file_id(&bytes).unwrap_or(0);
        let term = match &weights.interaction {
            Some(term) => format!(
                "{}-wide interaction vectors, shift {}",
                record.dim, term.shift
            ),
            None => "no interaction term (its scales or vectors are zero)".to_string(),
        };
        tsuru_core::outln!(
            "wrote {} (weights {id:08x}): {} stages, {term}",
            out.display(),
            weights.stages()
        )?;
        return measure(&weights, check.as_deref(), validation.as_deref());
    }
    ensure!(
        term_base.is_none(),
        "--term-base goes with --fm {}",
        usage()
    );
    let nets = nets.with_context(|| format!("--nets or --fm is required {}", usage()))?;
    let record = pattern_nets::read(&nets)?;
    let weights = generate(&record).with_context(|| format!("in {}", nets.display()))?;
    let bytes = weights.to_bytes();
    std::fs::write(&out, &bytes).with_context(|| format!("writing {}", out.display()))?;
    let id = Weights::file_id(&bytes).unwrap_or(0);
    tsuru_core::outln!(
        "wrote {} (weights {id:08x}): {} stages, networks {}x{}",
        out.display(),
        record.stages,
        record.hidden.0,
        record.hidden.1
    )?;
    measure(&weights, check.as_deref(), validation.as_deref())
}

/// Writes the interaction term of `weights` (quantised from a model) to `out` as a term
/// file for the weights file `base`, after checking that the model kept `base`'s tables
/// and biases; then measures the two together.
fn write_term(
    weights: &Weights,
    base: &Path,
    out: &Path,
    check: Option<&Path>,
    validation: Option<&Path>,
) -> Result<()> {
    let bytes = std::fs::read(base).with_context(|| format!("reading {}", base.display()))?;
    let base_weights =
        Weights::from_bytes(&bytes).with_context(|| format!("in {}", base.display()))?;
    ensure!(
        base_weights.bias == weights.bias && base_weights.tables == weights.tables,
        "the model's tables are not those of {} (fit the term with --freeze-tables on them)",
        base.display()
    );
    let base_id = Weights::file_id(&bytes).context("the base weights have no identity")?;
    let term = weights.term_to_bytes(base_id)?;
    std::fs::write(out, &term).with_context(|| format!("writing {}", out.display()))?;
    let (joined, id) = Weights::with_term_file(&bytes, &term)?;
    tsuru_core::outln!(
        "wrote {} (term {id}, {} bytes) for the weights {} ({base_id:08x})",
        out.display(),
        term.len(),
        base.display()
    )?;
    measure(&joined, check, validation)
}

/// Writes the `stages` stages whose blended reading the per-ply weights at `path` are, as a
/// weights file read blended, after checking that it loads as those very weights.
fn write_unblended(
    path: &Path,
    stages: usize,
    out: &Path,
    validation: Option<&Path>,
) -> Result<()> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let plies = Weights::from_bytes(&bytes).with_context(|| format!("in {}", path.display()))?;
    let found = crate::training::blend::unblend(&plies, stages)
        .with_context(|| format!("in {}", path.display()))?;
    let written = found.to_blended_bytes()?;
    ensure!(
        Weights::from_bytes(&written)? == plies,
        "the blended file does not load as {} (a bug)",
        path.display()
    );
    std::fs::write(out, &written).with_context(|| format!("writing {}", out.display()))?;
    let id = Weights::file_id(&written).unwrap_or(0);
    tsuru_core::outln!(
        "wrote {} (weights {id:08x}, {} bytes): {stages} stages read blended, the per-ply \
         sets of {} ({} bytes)",
        out.display(),
        written.len(),
        path.display(),
        bytes.len()
    )?;
    measure(&plies, None, validation)
}

/// Prints the errors `--check` and `--validation` ask for.
fn measure(weights: &Weights, check: Option<&Path>, validation: Option<&Path>) -> Result<()> {
    if let Some(path) = check {
        report(weights, path)?;
    }
    if let Some(path) = validation {
        super::train::report_validation(path, &PatternEval::new(weights))?;
    }
    Ok(())
}

/// Prints the mean absolute errors of `weights` on the samples file at `path`.
fn report(weights: &Weights, path: &Path) -> Result<()> {
    let samples = samples::read(path)?;
    let (train, held) = mean_errors(weights, &samples)?;
    tsuru_core::outln!(
        "{}: mean absolute error {train:.4} on training records, {held:.4} held out",
        path.display()
    )?;
    Ok(())
}

/// The mean absolute errors in discs of `weights` on the training and held-out records.
fn mean_errors(weights: &Weights, samples: &samples::Samples) -> Result<(f64, f64)> {
    let layout = layout();
    // The same pattern set (shapes and squares) and the same copies in the same order: the
    // build's own offsets then place every look-up.
    ensure!(
        samples.layout.pattern_set == layout.pattern_set_id,
        "the samples are for pattern set {:08x}, this build's is {:08x}",
        samples.layout.pattern_set,
        layout.pattern_set_id
    );
    let copies: Vec<u8> = pattern_tables()
        .copies
        .iter()
        .map(|copy| copy.shape as u8)
        .collect();
    ensure!(
        samples.layout.copies == copies,
        "the samples' pattern copies are not this build's"
    );
    let mut sums = [(0.0f64, 0u64); 2];
    for record in &samples.records {
        let stage = stage_of(u32::from(record.empties), weights.stages());
        let table = &weights.tables[stage];
        let mut entries = [0u32; FEATURES];
        for ((entry, lookup), &base) in entries
            .iter_mut()
            .zip(&record.lookups)
            .zip(&layout.copy_offsets)
        {
            *entry = (base + usize::from(*lookup)) as u32;
        }
        entries[COPIES] = (layout.mobility_offset + usize::from(record.lookups[COPIES])) as u32;
        let mut raw = i64::from(weights.bias[stage]);
        raw += entries
            .iter()
            .map(|&e| i64::from(table[e as usize]))
            .sum::<i64>();
        if let Some(term) = &weights.interaction {
            raw += term.value_of(stage, &entries);
        }
        let error = (raw as f64 / f64::from(UNITS_PER_DISC) - f64::from(record.label)).abs();
        let sum = &mut sums[usize::from(record.held_out)];
        sum.0 += error;
        sum.1 += 1;
    }
    let mean = |(sum, count): (f64, u64)| sum / count.max(1) as f64;
    Ok((mean(sums[0]), mean(sums[1])))
}
