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
//! a check that the tables are the networks the trainer measured. It then breaks the
//! held-out error down by empties, which says where in the game one model gains on another.

use std::path::{Path, PathBuf};

use anyhow::{ensure, Context, Result};

use crate::tools::train::build_samples_layout;
use crate::training::fm::{model_of, quantise_model};
use crate::training::pattern_nets::generate;
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
            "with --fm and --fm-compact: the weights whose tables the model kept\n\
             (fitted with --freeze-tables); --out gets the term alone (a term file)",
        ),
        ToolOption::new("--out", "FILE", "the weights file to write (required)"),
        ToolOption::new(
            "--weights",
            "FILE",
            "instead of --nets and --out: a weights file to measure (or a term\n\
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
             file (tsuru train --export-samples), and the held-out records'\n\
             by empties (0-9, 10-19, ..., 50-60)",
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

/// Prints the mean absolute errors of `weights` on the samples file at `path`, then the
/// held-out error by empties (where a model gains or loses against another).
fn report(weights: &Weights, path: &Path) -> Result<()> {
    let samples = samples::read(path)?;
    let errors = sample_errors(weights, &samples)?;
    tsuru_core::outln!(
        "{}: mean absolute error {:.4} on training records, {:.4} held out",
        path.display(),
        errors.training.mean(),
        errors.held_out.mean()
    )?;
    tsuru_core::outln!("held out by empties: empties  positions  mean absolute error")?;
    for (bucket, sum) in errors.held_out_by_empties.iter().enumerate() {
        if sum.count > 0 {
            let (low, high) = empties_bucket_range(bucket);
            tsuru_core::outln!(
                "{:>28}  {:>9}  {:>19.4}",
                format!("{low}-{high}"),
                sum.count,
                sum.mean()
            )?;
        }
    }
    Ok(())
}

/// Width in empties of the buckets of the held-out breakdown.
const EMPTIES_BUCKET: usize = 10;

/// Buckets of the held-out breakdown: 0-9, 10-19, ..., 50-60 (60 empties joins the last).
const EMPTIES_BUCKETS: usize = 6;

/// The bucket of a position with `empties` empty squares.
fn empties_bucket(empties: u8) -> usize {
    (usize::from(empties) / EMPTIES_BUCKET).min(EMPTIES_BUCKETS - 1)
}

/// The first and last count of empties of `bucket`.
fn empties_bucket_range(bucket: usize) -> (usize, usize) {
    let low = bucket * EMPTIES_BUCKET;
    let high = if bucket + 1 == EMPTIES_BUCKETS {
        60
    } else {
        low + EMPTIES_BUCKET - 1
    };
    (low, high)
}

/// A sum of absolute errors and the number of records in it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct ErrorSum {
    sum: f64,
    count: u64,
}

impl ErrorSum {
    fn add(&mut self, error: f64) {
        self.sum += error;
        self.count += 1;
    }

    /// The mean absolute error (0 for no records).
    fn mean(&self) -> f64 {
        self.sum / self.count.max(1) as f64
    }
}

/// The errors of weights on a samples file: training and held-out records, and the held-out
/// records by bucket of empties ([`empties_bucket`]).
#[derive(Clone, Debug, Default, PartialEq)]
struct SampleErrors {
    training: ErrorSum,
    held_out: ErrorSum,
    held_out_by_empties: [ErrorSum; EMPTIES_BUCKETS],
}

/// The absolute errors in discs of `weights` on the training and held-out records.
fn sample_errors(weights: &Weights, samples: &samples::Samples) -> Result<SampleErrors> {
    // The same pattern set (shapes and squares) and the same copies in the same order: the
    // build's own offsets then place every look-up.
    let build = build_samples_layout();
    ensure!(
        samples.layout.pattern_set == build.pattern_set,
        "the samples are for pattern set {:08x}, this build's is {:08x}",
        samples.layout.pattern_set,
        build.pattern_set
    );
    ensure!(
        samples.layout.copies == build.copies,
        "the samples' pattern copies are not this build's"
    );
    let layout = layout();
    let mut errors = SampleErrors::default();
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
        if record.held_out {
            errors.held_out.add(error);
            errors.held_out_by_empties[empties_bucket(record.empties)].add(error);
        } else {
            errors.training.add(error);
        }
    }
    Ok(errors)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsuru_core::formats::samples::{SampleRecord, Samples, LOOKUPS};

    #[test]
    fn empties_buckets_cover_every_count_once() {
        assert_eq!(empties_bucket(0), 0);
        assert_eq!(empties_bucket(9), 0);
        assert_eq!(empties_bucket(10), 1);
        assert_eq!(empties_bucket(49), 4);
        assert_eq!(empties_bucket(50), 5);
        assert_eq!(empties_bucket(60), 5);
        assert_eq!(empties_bucket_range(0), (0, 9));
        assert_eq!(empties_bucket_range(4), (40, 49));
        assert_eq!(empties_bucket_range(5), (50, 60));
        for empties in 0..=60u8 {
            let (low, high) = empties_bucket_range(empties_bucket(empties));
            assert!((low..=high).contains(&usize::from(empties)), "{empties}");
        }
    }

    /// Constant weights (a bias of 2 discs, every table zero) err by |2 - label| on each record;
    /// the held-out records, and only they, fill the buckets of their empties.
    #[test]
    fn sample_errors_split_training_held_out_and_empties() {
        let samples_layout = build_samples_layout();
        let record = |empties: u8, label: i8, held_out: bool| SampleRecord {
            lookups: [0; LOOKUPS],
            empties,
            label,
            held_out,
        };
        let samples = Samples {
            layout: samples_layout,
            records: vec![
                record(30, 10, false), // error 8, training
                record(5, 4, true),    // error 2, bucket 0
                record(8, -2, true),   // error 4, bucket 0
                record(60, 2, true),   // error 0, bucket 5
                record(55, 7, true),   // error 5, bucket 5
            ],
        };
        let mut weights = Weights::zero(1);
        weights.bias[0] = (2 * UNITS_PER_DISC) as _;
        let errors = sample_errors(&weights, &samples).unwrap();
        assert_eq!(errors.training, ErrorSum { sum: 8.0, count: 1 });
        assert_eq!(
            errors.held_out,
            ErrorSum {
                sum: 11.0,
                count: 4
            }
        );
        assert_eq!(errors.held_out.mean(), 2.75);
        assert_eq!(
            errors.held_out_by_empties[0],
            ErrorSum { sum: 6.0, count: 2 }
        );
        assert_eq!(
            errors.held_out_by_empties[5],
            ErrorSum { sum: 5.0, count: 2 }
        );
        for bucket in 1..5 {
            assert_eq!(errors.held_out_by_empties[bucket].count, 0, "{bucket}");
        }
    }
}
