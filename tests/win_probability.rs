//! The shipped win probability is calibrated on games it was not fitted to: run 55's shard 9
//! (`data/selfplay-55`, the shipped build's own games), held out of the fit that made it
//! (docs/training.md, "Win probability"). Within the stated tolerance of `check_calibration` (every reliability bin
//! of 2 000 samples within 0.05, at least 8 such bins, the Brier score below the value's
//! sign alone); a model fitted to the same games with their results shuffled fails it, so
//! the check can fail. `tsuru winprob` measures a model it did not fit (`--model`) as it
//! measures its own fit.

mod common;

use common::run_tsuru;
use std::path::Path;

use tsuru_core::eval::win_probability::WinModel;
use tsuru_lab::training::win_probability::{check_calibration, count_files, fit};

#[test]
fn the_shipped_win_probability_is_calibrated_on_held_out_games() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let held = count_files(&[data.join("selfplay-55/selfplay-55-9.txt.gz")]).unwrap();
    let train = count_files(&[data.join("selfplay-55/selfplay-55-8.txt.gz")]).unwrap();
    assert!(held.total() > 300_000, "{} positions", held.total());
    check_calibration(WinModel::shipped(), &held, &train).unwrap();
    let shuffled = fit(&held.shuffled(7));
    let failed = check_calibration(&shuffled, &held, &train).unwrap_err();
    assert!(failed.contains("Brier"), "{failed}");
}

/// The line of a `tsuru winprob` report that starts with `prefix`.
fn report_line(stdout: &[u8], prefix: &str) -> String {
    let text = String::from_utf8_lossy(stdout);
    text.lines()
        .find(|line| line.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line {prefix:?} in:\n{text}"))
        .to_string()
}

#[test]
fn winprob_measures_a_given_model_as_it_measures_its_own_fit() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/selfplay-55");
    let train = data.join("selfplay-55-0.txt.gz");
    let held = data.join("selfplay-55-1.txt.gz");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("winprob");
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("fitted.txt");
    let (train, held, model) = (
        train.to_str().unwrap(),
        held.to_str().unwrap(),
        model.to_str().unwrap(),
    );
    let winprob = |flags: &[&str]| {
        let mut args = vec!["winprob", "--train", train, "--holdout", held];
        args.extend_from_slice(flags);
        run_tsuru(&args)
    };
    let succeeded = |out: &std::process::Output| {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };

    let fitted = winprob(&["--out", model]);
    succeeded(&fitted);
    let measured = winprob(&["--model", model]);
    succeeded(&measured);
    // The written model, read back and measured, is the fit: the same table and Brier score.
    for prefix in ["Brier", "0.5-0.6", "0.9-1.0"] {
        assert_eq!(
            report_line(&fitted.stdout, prefix),
            report_line(&measured.stdout, prefix)
        );
    }
    assert!(report_line(&measured.stdout, "the model of").contains("fitted.txt"));

    let shipped = winprob(&["--model", "shipped"]);
    succeeded(&shipped);
    assert!(report_line(&shipped.stdout, "the shipped model").contains("held-out positions"));
    // The baseline comes from --train whichever model is measured.
    let baseline = |out: &[u8]| {
        report_line(out, "Brier")
            .split("sign alone")
            .nth(1)
            .unwrap()
            .to_string()
    };
    assert_eq!(baseline(&shipped.stdout), baseline(&fitted.stdout));

    // Measuring and writing at once is refused, and so is a file that is not a model.
    assert!(!winprob(&["--model", "shipped", "--out", model])
        .status
        .success());
    let not_a_model = winprob(&["--model", train]);
    assert!(!not_a_model.status.success());
    assert!(String::from_utf8_lossy(&not_a_model.stderr).contains("reading"));
}
