//! The shipped win probability is calibrated on games it was not fitted to: run 51's shard 1
//! (`data/selfplay-51`), held out of the fit that made it (docs/training.md, "Win
//! probability"). Within the stated tolerance of `check_calibration` (every reliability bin
//! of 2 000 samples within 0.05, at least 8 such bins, the Brier score below the value's
//! sign alone); a model fitted to the same games with their results shuffled fails it, so
//! the check can fail.

use std::path::Path;

use tsuru_core::eval::win_probability::WinModel;
use tsuru_lab::training::win_probability::{check_calibration, count_files, fit};

#[test]
fn the_shipped_win_probability_is_calibrated_on_held_out_games() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let held = count_files(&[data.join("selfplay-51/selfplay-51-1.txt.gz")]).unwrap();
    let train = count_files(&[data.join("selfplay-51/selfplay-51-0.txt.gz")]).unwrap();
    assert!(held.total() > 300_000, "{} positions", held.total());
    check_calibration(WinModel::shipped(), &held, &train).unwrap();
    let shuffled = fit(&held.shuffled(7));
    let failed = check_calibration(&shuffled, &held, &train).unwrap_err();
    assert!(failed.contains("Brier"), "{failed}");
}
