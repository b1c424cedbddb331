//! Fitting the win probability ([`tsuru_core::eval::win_probability`]) to self-play games,
//! and measuring its calibration.
//!
//! A self-play game records its players' search value of every position they searched
//! (whole discs, side to move's view) and its exact result; each such position is a sample
//! (its value, its empties, and whether the side to move went on to win, draw or lose).
//! Samples are counted by (bucket of empties, value), so a fit over millions of positions
//! works on a few thousand cells. Each bucket's scale and draw margin maximise the
//! likelihood of the outcomes, by a grid over both refined twice around the best point.

use anyhow::{Context, Result};
use std::path::Path;

use tsuru_core::board::{Board, Color};
use tsuru_core::eval::win_probability::{bucket, WinModel, WinProbability, BUCKETS};
use tsuru_core::formats::selfplay::{self, SelfPlayGame};

/// The values a recorded score takes: -64 to 64 discs.
const VALUES: usize = 129;

/// Outcomes counted for the side to move: `[loss, draw, win]`, by bucket and value.
#[derive(Clone, Debug, PartialEq)]
pub struct Counts {
    cells: Vec<[u64; 3]>,
}

impl Default for Counts {
    fn default() -> Counts {
        Counts {
            cells: vec![[0; 3]; BUCKETS * VALUES],
        }
    }
}

/// A cell: a bucket of empties, a value and its outcome counts.
#[derive(Clone, Copy, Debug)]
pub struct Cell {
    /// The bucket of empties.
    pub bucket: usize,
    /// The value, discs.
    pub value: i32,
    /// `[loss, draw, win]` counts.
    pub outcomes: [u64; 3],
}

impl Counts {
    /// Counts one sample: `value` at `empties` empties, `outcome` 1 a win, 0 a draw, -1 a loss.
    pub fn add(&mut self, value: i32, empties: u32, outcome: i32) {
        let v = (value.clamp(-64, 64) + 64) as usize;
        self.cells[bucket(empties) * VALUES + v][(outcome.signum() + 1) as usize] += 1;
    }

    /// Counts every searched position of `game`.
    pub fn add_game(&mut self, game: &SelfPlayGame) {
        let scores = game.scores_by_ply();
        let mut board = Board::start();
        for (ply, &mv) in game.moves.iter().enumerate() {
            if let Some(Some(score)) = scores.get(ply) {
                let black = game.black_result.get();
                let mine = if board.side_to_move() == Color::Black {
                    black
                } else {
                    -black
                };
                self.add(i32::from(*score), board.empties(), mine);
            }
            if board.play(mv).is_err() {
                break;
            }
        }
    }

    /// Every cell with at least one sample.
    pub fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        self.cells
            .iter()
            .enumerate()
            .filter(|(_, o)| o.iter().sum::<u64>() > 0)
            .map(|(i, &outcomes)| Cell {
                bucket: i / VALUES,
                value: (i % VALUES) as i32 - 64,
                outcomes,
            })
    }

    /// The number of samples.
    pub fn total(&self) -> u64 {
        self.cells.iter().flatten().sum()
    }

    /// The same samples with their outcomes dealt out again at random among them (each
    /// bucket keeps its number of wins, draws and losses): a fit to these learns nothing
    /// from the values, for testing that the calibration test can fail.
    pub fn shuffled(&self, seed: u64) -> Counts {
        let mut rng = tsuru_core::rng::Rng::new(seed);
        let mut out = Counts::default();
        for b in 0..BUCKETS {
            let cells = &self.cells[b * VALUES..(b + 1) * VALUES];
            let mut outcomes: Vec<usize> = Vec::new();
            for o in cells {
                for (k, &n) in o.iter().enumerate() {
                    outcomes.extend(std::iter::repeat_n(k, n as usize));
                }
            }
            for i in (1..outcomes.len()).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                outcomes.swap(i, j);
            }
            let mut next = outcomes.into_iter();
            for (v, o) in cells.iter().enumerate() {
                for _ in 0..o.iter().sum::<u64>() {
                    let k = next.next().expect("as many outcomes as samples");
                    out.cells[b * VALUES + v][k] += 1;
                }
            }
        }
        out
    }
}

/// The log-likelihood of a bucket's cells under scale `a`, margin `c` and shift `d`.
fn log_likelihood(cells: &[[u64; 3]], a: f64, c: f64, d: f64) -> f64 {
    let model = |v: f64| {
        let w = v + d;
        let win = 1.0 / (1.0 + (-a * (w - c)).exp());
        let loss = 1.0 / (1.0 + (-a * (-w - c)).exp());
        [loss, (1.0 - win - loss).max(1e-12), win]
    };
    cells
        .iter()
        .enumerate()
        .filter(|(_, o)| o.iter().sum::<u64>() > 0)
        .map(|(i, o)| {
            let p = model(i as f64 - 64.0);
            (0..3)
                .map(|k| o[k] as f64 * p[k].max(1e-12).ln())
                .sum::<f64>()
        })
        .sum()
}

/// `x` to six decimals, as the model's text form writes it.
fn six_decimals(x: f64) -> f64 {
    format!("{x:.6}").parse().expect("a formatted number")
}

/// Fits each bucket's scale, draw margin and shift to `counts` (a bucket without samples
/// borrows its neighbour's); the parameters are rounded as the text form writes them, so a
/// written model reads back equal.
pub fn fit(counts: &Counts) -> WinModel {
    let mut scale = [f64::NAN; BUCKETS];
    let mut draw_margin = [f64::NAN; BUCKETS];
    let mut shift = [0.0; BUCKETS];
    for b in 0..BUCKETS {
        let cells = &counts.cells[b * VALUES..(b + 1) * VALUES];
        if cells.iter().flatten().sum::<u64>() == 0 {
            continue;
        }
        let (mut log_a, mut c, mut d) = ((0.1f64).ln(), 1.0f64, 0.0f64);
        for _round in 0..3 {
            // Scale on a log grid and margin on a linear one, twice refined around the best;
            // then the shift on a line, the same way.
            let (mut span_a, mut span_c) = (4.0f64, 4.0f64);
            for _ in 0..3 {
                let mut best = (f64::NEG_INFINITY, log_a, c);
                for i in 0..=40 {
                    let la = log_a - span_a + 2.0 * span_a * f64::from(i) / 40.0;
                    for j in 0..=40 {
                        let cj = (c - span_c + 2.0 * span_c * f64::from(j) / 40.0).max(0.0);
                        let ll = log_likelihood(cells, la.exp(), cj, d);
                        if ll > best.0 {
                            best = (ll, la, cj);
                        }
                    }
                }
                (log_a, c) = (best.1, best.2);
                span_a /= 10.0;
                span_c /= 10.0;
            }
            let mut span_d = 8.0f64;
            for _ in 0..3 {
                let mut best = (f64::NEG_INFINITY, d);
                for k in 0..=80 {
                    let dk = d - span_d + 2.0 * span_d * f64::from(k) / 80.0;
                    let ll = log_likelihood(cells, log_a.exp(), c, dk);
                    if ll > best.0 {
                        best = (ll, dk);
                    }
                }
                d = best.1;
                span_d /= 10.0;
            }
        }
        scale[b] = six_decimals(log_a.exp());
        draw_margin[b] = six_decimals(c);
        shift[b] = six_decimals(d);
    }
    for b in 0..BUCKETS {
        if scale[b].is_nan() {
            let near = (0..BUCKETS)
                .filter(|&k| !scale[k].is_nan())
                .min_by_key(|&k| k.abs_diff(b))
                .expect("some bucket has samples");
            scale[b] = scale[near];
            draw_margin[b] = draw_margin[near];
            shift[b] = shift[near];
        }
    }
    WinModel {
        scale,
        draw_margin,
        shift,
    }
}

/// The stated tolerance of a calibrated model, measured on held-out samples `held`: every
/// bin of the reliability table with at least 2 000 samples has its mean predicted expected
/// score within 0.05 of the observed one, at least 8 of the 10 bins hold 2 000 samples, and
/// the Brier score is below that of the baseline that knows only the value's sign (fitted
/// on `train`). Returns what fails.
pub fn check_calibration(model: &WinModel, held: &Counts, train: &Counts) -> Result<(), String> {
    let (bins, brier) = calibration(held, |cell| predict(model, cell));
    let (_, baseline) = calibration(held, sign_baseline(train));
    let full: Vec<&Bin> = bins.iter().filter(|b| b.count >= 2000).collect();
    let mut wrong = Vec::new();
    for (k, bin) in bins.iter().enumerate() {
        if bin.count >= 2000 && (bin.predicted - bin.observed).abs() > 0.05 {
            wrong.push(format!(
                "bin {k}: predicted {:.3}, observed {:.3}",
                bin.predicted, bin.observed
            ));
        }
    }
    if full.len() < 8 {
        wrong.push(format!(
            "{} bins of 2000 samples or more, not 8",
            full.len()
        ));
    }
    if brier >= baseline {
        wrong.push(format!(
            "Brier {brier:.4}, not below the sign's {baseline:.4}"
        ));
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("; "))
    }
}

/// The chances `model` gives a cell (its value, at the middle of its bucket's empties).
pub fn predict(model: &WinModel, cell: &Cell) -> WinProbability {
    model.probability(f64::from(cell.value), 22 + 5 * cell.bucket as u32)
}

/// One bin of a reliability table: the samples whose predicted expected score fell in it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bin {
    /// Samples in the bin.
    pub count: u64,
    /// Their mean predicted expected score.
    pub predicted: f64,
    /// Their mean observed score (a win 1, a draw 1/2, a loss 0).
    pub observed: f64,
}

/// How well `predict` (the chances of a cell's value at its bucket) matches `counts`: the
/// reliability table in 10 bins of the predicted expected score, and the Brier score of the
/// expected score (the mean squared difference to the observed score).
pub fn calibration(counts: &Counts, predict: impl Fn(&Cell) -> WinProbability) -> ([Bin; 10], f64) {
    let mut bins = [Bin::default(); 10];
    let mut squared = 0.0;
    for cell in counts.cells() {
        let p = predict(&cell).expected();
        let k = ((p * 10.0) as usize).min(9);
        for (o, &n) in cell.outcomes.iter().enumerate() {
            let score = o as f64 / 2.0;
            let bin = &mut bins[k];
            bin.count += n;
            bin.predicted += p * n as f64;
            bin.observed += score * n as f64;
            squared += (p - score).powi(2) * n as f64;
        }
    }
    for bin in &mut bins {
        if bin.count > 0 {
            bin.predicted /= bin.count as f64;
            bin.observed /= bin.count as f64;
        }
    }
    (bins, squared / counts.total().max(1) as f64)
}

/// The baseline that knows only the value's sign: for a positive, zero or negative value the
/// mean observed score of such values in `train`.
pub fn sign_baseline(train: &Counts) -> impl Fn(&Cell) -> WinProbability {
    let mut sums = [[0.0f64; 2]; 3];
    for cell in train.cells() {
        let s = (cell.value.signum() + 1) as usize;
        for (o, &n) in cell.outcomes.iter().enumerate() {
            sums[s][0] += o as f64 / 2.0 * n as f64;
            sums[s][1] += n as f64;
        }
    }
    let means = sums.map(|[sum, n]| if n > 0.0 { sum / n } else { 0.5 });
    move |cell: &Cell| {
        let e = means[(cell.value.signum() + 1) as usize];
        // An expected score as a win/loss split (no draws): all the Brier score reads.
        WinProbability {
            win: e,
            draw: 0.0,
            loss: 1.0 - e,
        }
    }
}

/// The games of a self-play file (`.gz` read through `gzip -dc`).
pub fn read_games(path: &Path) -> Result<Vec<SelfPlayGame>> {
    let text = super::games::read_text(path)?;
    let (_, games) =
        selfplay::read_file(&text).with_context(|| format!("in {}", path.display()))?;
    Ok(games)
}

/// Counts the searched positions of every game of `paths`.
pub fn count_files(paths: &[impl AsRef<Path>]) -> Result<Counts> {
    let mut counts = Counts::default();
    for path in paths {
        for game in read_games(path.as_ref())? {
            counts.add_game(&game);
        }
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fit_recovers_the_model_that_made_the_outcomes() {
        // Outcomes drawn from a known model; the fit finds its parameters again.
        let truth = WinModel {
            scale: [0.3, 0.25, 0.2, 0.18, 0.15, 0.12, 0.1, 0.08],
            draw_margin: [0.8, 0.7, 0.6, 0.5, 0.5, 0.4, 0.4, 0.3],
            shift: [1.0, 0.5, 0.0, -0.5, 1.5, 2.0, 0.0, 0.0],
        };
        let mut rng = tsuru_core::rng::Rng::new(5);
        let mut counts = Counts::default();
        for _ in 0..400_000 {
            let empties = 21 + rng.below(40) as u32;
            let value = rng.below(41) as i32 - 20;
            let p = truth.probability(f64::from(value), empties);
            let u = rng.below(1 << 30) as f64 / f64::from(1u32 << 30);
            let outcome = if u < p.win {
                1
            } else if u < p.win + p.draw {
                0
            } else {
                -1
            };
            counts.add(value, empties, outcome);
        }
        let fitted = fit(&counts);
        for b in 0..BUCKETS {
            let (a, c, d) = (fitted.scale[b], fitted.draw_margin[b], fitted.shift[b]);
            assert!(
                (a / truth.scale[b] - 1.0).abs() < 0.1,
                "bucket {b}: scale {a}"
            );
            assert!(
                (c - truth.draw_margin[b]).abs() < 0.3,
                "bucket {b}: margin {c}"
            );
            assert!((d - truth.shift[b]).abs() < 0.5, "bucket {b}: shift {d}");
        }
        // Calibrated on its own samples, within the stated tolerance.
        check_calibration(&fitted, &counts, &counts).unwrap();
        // Shuffled outcomes leave nothing to learn: that fit fails the same check.
        let flat = fit(&counts.shuffled(9));
        assert!(check_calibration(&flat, &counts, &counts).is_err());
    }
}
