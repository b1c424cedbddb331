//! Stages fitted as they are read blended (issue 84, rung d): each stage's weights stand for
//! the middle of its plies, and a position is valued by the two stages whose middles enclose
//! its ply, mixed in proportion to its distance from each (before the first middle and after
//! the last, the nearest stage alone). The fit ([`fit_blended`]) fits all stages at once with
//! each position's prediction, and so its gradient, shared between its two stages; the fitted
//! stages are then written as a weights file read blended (versions 3 and 4 of
//! [`tsuru_core::formats::weights`]), which the engine expands to one weight set per ply when
//! it loads it ([`Weights::per_ply`]) and then reads with no blending of its own.
//! [`unblend`] finds the stages again from such per-ply sets.
//!
//! With 15 stages of 4 plies the middles are plies 1.5, 5.5, ..., 57.5, so a ply's shares are
//! eighths: ply 6 is 7/8 of stage 1 and 1/8 of stage 2.

use anyhow::{ensure, Context, Result};

use super::fit::{step_weights, FitConfig, StageFit};
use super::Sample;
use crate::parallel::map_chunks;
use tsuru_core::eval::pattern::{layout, Weights};
use tsuru_core::eval::stage_blend::{can_blend, mix_i16};
pub use tsuru_core::eval::stage_blend::{ply_shares, PLIES};

/// The stages whose blended reading is `plies` (one weight set per ply, as
/// [`Weights::per_ply`] writes them): for each entry and bias, whole stage values whose mix
/// rounds to every ply's value. Where several do, any of them reads the same. `plies` must
/// have no term (a term's per-ply scales need not be a mix of stage scales); error if the
/// sets are not such a reading of `stages` stages, naming the first entry that is not.
pub fn unblend(plies: &Weights, stages: usize) -> Result<Weights> {
    ensure!(
        plies.stages() == PLIES,
        "{} stages, not one weight set per ply ({PLIES})",
        plies.stages()
    );
    ensure!(can_blend(stages), "{stages} stages do not divide 60 plies");
    ensure!(
        plies.interaction.is_none(),
        "the weights have an interaction term; unblend the tables alone"
    );
    let checked = checked_plies(stages);
    let mut out = Weights::zero(stages);
    let bias = unblend_column(|ply| plies.bias[ply], &checked)
        .context("the biases are not a blended reading")?;
    for (stage, value) in bias.into_iter().enumerate() {
        out.bias[stage] = value;
    }
    for entry in 0..layout().total {
        let column =
            unblend_column(|ply| plies.tables[ply][entry], &checked).with_context(|| {
                format!("entry {entry} is not a blended reading of {stages} stages")
            })?;
        for (stage, value) in column.into_iter().enumerate() {
            out.tables[stage][entry] = value;
        }
    }
    ensure!(
        out.per_ply() == *plies,
        "the stages found do not read back as the plies (a bug)"
    );
    Ok(out)
}

/// A ply's two stages and their shares ([`ply_shares`]).
type Shares = [(usize, f32); 2];

/// Per stage, the plies its value is checked on given the stage before, with their shares:
/// those read from the two (with a share for this one) or from this one alone.
fn checked_plies(stages: usize) -> Vec<Vec<(usize, Shares)>> {
    (0..stages)
        .map(|stage| {
            (0..PLIES)
                .map(|ply| (ply, ply_shares(ply, stages)))
                .filter(|&(_, shares)| match shares {
                    [(x, _), (_, 0.0)] => x == stage,
                    [(x, _), (y, share)] => share > 0.0 && y == stage && x + 1 == stage,
                })
                .collect()
        })
        .collect()
}

/// Whole stage values whose blended reading is `at(ply)` for every ply, if there are any:
/// stage by stage from the first, each stage's candidates those that, with some candidate of
/// the stage before, give the value of every ply the two read (and of the plies it reads
/// alone; `checked` is [`checked_plies`]); then one chain traced back from the last stage.
/// Values are those a weights file holds (-32767 to 32767).
fn unblend_column(at: impl Fn(usize) -> i16, checked: &[Vec<(usize, Shares)>]) -> Option<Vec<i16>> {
    let stages = checked.len();
    // This stage's share of a ply (the first share where one stage alone reads it).
    let share_of = |stage: usize, [(x, wx), (_, wy)]: Shares| if x == stage { wx } else { wy };
    // Per stage: (value, index of its predecessor among the previous stage's candidates).
    let mut candidates: Vec<Vec<(i16, usize)>> = Vec::with_capacity(stages);
    for (stage, plies) in checked.iter().enumerate() {
        // Every stage has a ply leaning on it by half or more (the one nearest its middle).
        let &(lean, lean_shares) = plies
            .iter()
            .max_by(|p, q| share_of(stage, p.1).total_cmp(&share_of(stage, q.1)))?;
        let previous: &[(i16, usize)] = match stage {
            0 => &[(0, 0)],
            _ => &candidates[stage - 1],
        };
        let mut found: Vec<(i16, usize)> = Vec::new();
        for (parent, &(before, _)) in previous.iter().enumerate() {
            let value_at = |shares: Shares, value: i16| {
                mix_i16(shares, |s| if s == stage { value } else { before })
            };
            // The value the leaning ply implies, give or take its rounding.
            let rest = f32::from(value_at(lean_shares, 0));
            let centre = ((f32::from(at(lean)) - rest) / share_of(stage, lean_shares)).round();
            let lowest = (centre as i32 - 3).max(-i32::from(i16::MAX));
            let highest = (centre as i32 + 3).min(i32::from(i16::MAX));
            for value in (lowest..=highest).map(|v| v as i16) {
                let fits = plies
                    .iter()
                    .all(|&(ply, shares)| value_at(shares, value) == at(ply));
                if fits && !found.iter().any(|&(v, _)| v == value) {
                    found.push((value, parent));
                }
            }
        }
        if found.is_empty() {
            return None;
        }
        candidates.push(found);
    }
    let mut chain = vec![0i16; stages];
    let mut index = 0;
    for stage in (0..stages).rev() {
        let (value, parent) = candidates[stage][index];
        chain[stage] = value;
        index = parent;
    }
    Some(chain)
}

/// A training sample with its ply (60 minus its empty squares).
#[derive(Clone, Copy, Debug)]
pub struct PlySample {
    /// The look-ups and label.
    pub sample: Sample,
    /// The position's ply.
    pub ply: u8,
}

/// The blended prediction of `sample` under `stages` (flat tables of `total` entries each,
/// laid end to end) and `bias`.
#[inline]
pub fn predict_blended(sample: &PlySample, stages: usize, weights: &[f32], bias: &[f32]) -> f32 {
    let total = weights.len() / stages;
    ply_shares(usize::from(sample.ply), stages)
        .iter()
        .filter(|&&(_, share)| share > 0.0)
        .map(|&(stage, share)| {
            let table = &weights[stage * total..(stage + 1) * total];
            share
                * (bias[stage]
                    + sample
                        .sample
                        .features
                        .iter()
                        .map(|&f| table[f as usize])
                        .sum::<f32>())
        })
        .sum()
}

/// Mean absolute error of the blended predictions over `samples`.
pub fn blended_mae(samples: &[PlySample], stages: &[StageFit], threads: usize) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let (weights, bias) = flatten(stages);
    let sums = map_chunks(samples, threads, |_, part| {
        part.iter()
            .map(|s| {
                f64::from(
                    (s.sample.label - predict_blended(s, stages.len(), &weights, &bias)).abs(),
                )
            })
            .sum::<f64>()
    });
    sums.iter().sum::<f64>() / samples.len() as f64
}

fn flatten(stages: &[StageFit]) -> (Vec<f32>, Vec<f32>) {
    let weights = stages
        .iter()
        .flat_map(|s| s.weights.iter().copied())
        .collect();
    let bias = stages.iter().map(|s| s.bias).collect();
    (weights, bias)
}

/// Fits `start`'s stages (each `total` entries) together to `samples` as they are read
/// blended, by the full-batch descent of [`super::fit::fit_stage`] with each sample's residual
/// shared between its two stages by [`ply_shares`]: an entry's step is divided by its summed
/// shares (its weighted occurrences), and the shrinkage (`config.l2`) pulls towards `start`
/// when `config.shrink_to_start`, else towards 0. The returned stages' `counts` are how many
/// samples read each entry with a share above 0. `progress(epoch, rms)` after every epoch.
/// Deterministic for a given thread count (chunks summed in a fixed order).
pub fn fit_blended(
    samples: &[PlySample],
    start: &[StageFit],
    config: &FitConfig,
    mut progress: impl FnMut(usize, f64),
) -> Vec<StageFit> {
    let stages = start.len();
    let total = start[0].weights.len();
    let mut occurrences = vec![0.0f32; stages * total];
    let mut counts = vec![vec![0u32; total]; stages];
    let mut bias_occurrences = vec![0.0f64; stages];
    for s in samples {
        for (stage, share) in ply_shares(usize::from(s.ply), stages) {
            if share > 0.0 {
                bias_occurrences[stage] += f64::from(share);
                for &f in &s.sample.features {
                    occurrences[stage * total + f as usize] += share;
                    counts[stage][f as usize] += 1;
                }
            }
        }
    }
    let (mut weights, mut bias) = flatten(start);
    let prior = if config.shrink_to_start {
        weights.clone()
    } else {
        vec![0.0; weights.len()]
    };
    let mut velocity = vec![0.0f32; weights.len()];
    let mut bias_velocity = vec![0.0f32; stages];
    for epoch in 0..config.epochs {
        let partials = map_chunks(samples, config.threads, |_, part| {
            let mut gradient = vec![0.0f32; stages * total];
            let mut bias_gradient = vec![0.0f64; stages];
            let mut sq = 0.0f64;
            for s in part {
                let e = s.sample.label - predict_blended(s, stages, &weights, &bias);
                for (stage, share) in ply_shares(usize::from(s.ply), stages) {
                    if share > 0.0 {
                        let g = &mut gradient[stage * total..(stage + 1) * total];
                        for &f in &s.sample.features {
                            g[f as usize] += share * e;
                        }
                        bias_gradient[stage] += f64::from(share * e);
                    }
                }
                sq += f64::from(e) * f64::from(e);
            }
            (gradient, bias_gradient, sq)
        });
        let mut gradient = vec![0.0f32; stages * total];
        let mut bias_gradient = vec![0.0f64; stages];
        let mut sq = 0.0f64;
        for (part, part_bias, part_sq) in partials {
            for (g, p) in gradient.iter_mut().zip(&part) {
                *g += p;
            }
            for (g, p) in bias_gradient.iter_mut().zip(&part_bias) {
                *g += p;
            }
            sq += part_sq;
        }
        step_weights(
            &mut weights,
            &mut velocity,
            &gradient,
            occurrences.iter().copied(),
            &prior,
            config,
        );
        for stage in 0..stages {
            if bias_occurrences[stage] > 0.0 {
                let step = (bias_gradient[stage] / bias_occurrences[stage]) as f32;
                bias_velocity[stage] = config.momentum * bias_velocity[stage] + config.rate * step;
                bias[stage] += bias_velocity[stage];
            }
        }
        progress(epoch, (sq / samples.len().max(1) as f64).sqrt());
    }
    (0..stages)
        .map(|stage| StageFit {
            weights: weights[stage * total..(stage + 1) * total].to_vec(),
            bias: bias[stage],
            counts: std::mem::take(&mut counts[stage]),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsuru_core::eval::pattern::FEATURES;
    use tsuru_core::rng::Rng;

    #[test]
    fn unblend_finds_stages_that_read_as_the_plies() {
        // Random stages of every count that divides 60, with ties respected: their per-ply
        // reading unblends to stages with the same reading.
        let layout = layout();
        let mut rng = Rng::new(841);
        for stages in [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60] {
            let mut weights = Weights::zero(stages);
            for stage in 0..stages {
                weights.bias[stage] = rng.below(400) as i16 - 200;
                // A sample of entries, extremes included (the clamp at 16 bits).
                for entry in (0..layout.total).step_by(97) {
                    let canonical = layout.canonical[entry] as usize;
                    weights.tables[stage][canonical] = match rng.below(20) {
                        0 => i16::MAX,
                        1 => -i16::MAX,
                        _ => rng.below(4001) as i16 - 2000,
                    };
                }
                for entry in 0..layout.total {
                    weights.tables[stage][entry] =
                        weights.tables[stage][layout.canonical[entry] as usize];
                }
            }
            let plies = weights.per_ply();
            let found = unblend(&plies, stages).unwrap();
            assert_eq!(found.per_ply(), plies, "{stages} stages");
            // Stages that were whole numbers to begin with are found as they were, but for
            // values the rounding leaves ambiguous (none in practice at 15 stages here).
            if stages == 15 {
                assert_eq!(found.bias, weights.bias);
            }
        }
        // Per-ply sets that are no blended reading of 15 stages are refused, naming the entry.
        let mut plies = Weights::zero(60);
        plies.tables[7][layout.mobility_offset] = 100;
        let error = format!("{:#}", unblend(&plies, 15).unwrap_err());
        assert!(error.contains("not a blended reading"), "{error}");
        // A term's scales are not unblended.
        plies.tables[7][layout.mobility_offset] = 0;
        plies.interaction = Some(tsuru_core::eval::pattern::Interaction {
            shift: 20,
            scales: vec![1; 60],
            dim: 8,
            vectors: vec![[0; tsuru_core::eval::pattern::MAX_INTERACTION_DIM]; layout.total],
        });
        assert!(unblend(&plies, 15).is_err());
        assert!(unblend(&Weights::zero(15), 15).is_err());
        assert!(unblend(&Weights::zero(60), 7).is_err());
    }

    #[test]
    fn a_blended_fit_recovers_a_blended_model() {
        // Samples from known blended weights over 4 stages of a small table: the joint fit,
        // started from zero, must predict them (near) exactly, and the per-stage fit of
        // fit_stage could not (a stage's positions mix two stages' values).
        let stages = 4;
        let total = 110;
        let mut rng = Rng::new(84);
        let truth: Vec<StageFit> = (0..stages)
            .map(|_| StageFit {
                weights: (0..total).map(|_| rng.below(21) as f32 - 10.0).collect(),
                bias: rng.below(9) as f32 - 4.0,
                counts: vec![0; total],
            })
            .collect();
        let (true_weights, true_bias) = flatten(&truth);
        let samples: Vec<PlySample> = (0..30_000)
            .map(|_| {
                let mut features = [0u32; FEATURES];
                for (copy, f) in features.iter_mut().enumerate() {
                    *f = (copy * 2) as u32 + rng.below(2) as u32;
                }
                let mut sample = PlySample {
                    sample: Sample {
                        features,
                        label: 0.0,
                    },
                    ply: rng.below(60) as u8,
                };
                sample.sample.label = predict_blended(&sample, stages, &true_weights, &true_bias);
                sample
            })
            .collect();
        let zero: Vec<StageFit> = (0..stages)
            .map(|_| StageFit {
                weights: vec![0.0; total],
                bias: 0.0,
                counts: vec![0; total],
            })
            .collect();
        let config = FitConfig {
            epochs: 600,
            rate: 0.015,
            l2: 0.0,
            shrink_to_start: false,
            momentum: 0.9,
            threads: 2,
        };
        let before = blended_mae(&samples, &zero, 2);
        let fit = fit_blended(&samples, &zero, &config, |_, _| {});
        let after = blended_mae(&samples, &fit, 2);
        assert!(before > 5.0, "the start is far off: {before}");
        assert!(after < 0.05, "blended fit's error {after}");
        // Every entry of every stage is read by some sample with a share.
        assert!(fit.iter().all(|s| s.counts.iter().all(|&n| n > 0)));
        // Deterministic for a thread count.
        let again = fit_blended(&samples, &zero, &config, |_, _| {});
        assert_eq!(flatten(&fit), flatten(&again));
    }
}
