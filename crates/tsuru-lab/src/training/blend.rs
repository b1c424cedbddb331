//! Stages fitted as they are read blended (issue 84, rung d): each stage's weights stand for
//! the middle of its plies, and a position is valued by the two stages whose middles enclose
//! its ply, mixed in proportion to its distance from each (before the first middle and after
//! the last, the nearest stage alone). The fit ([`fit_blended`]) fits all stages at once with
//! each position's prediction, and so its gradient, shared between its two stages; the fitted
//! stages are then written out as one weight set per ply ([`per_ply`]), which the engine
//! reads as 60 stages with no blending of its own.
//!
//! With 15 stages of 4 plies the middles are plies 1.5, 5.5, ..., 57.5, so a ply's shares are
//! eighths: ply 6 is 7/8 of stage 1 and 1/8 of stage 2.

use super::fit::{step_weights, FitConfig, StageFit};
use super::Sample;
use crate::parallel::map_chunks;
use tsuru_core::eval::pattern::{layout, Weights};

/// The plies a weight set per ply covers (ply 60, the full board, shares ply 59's set, as
/// [`tsuru_core::eval::pattern::stage_of`] has it).
pub const PLIES: usize = 60;

/// The two stages a position at `ply` (60 minus its empty squares) is read from with
/// `stages` stages of equal length, and each one's share (the shares sum to 1; the second is
/// 0 where one stage alone values the ply). `stages` must divide 60.
pub fn ply_shares(ply: usize, stages: usize) -> [(usize, f32); 2] {
    assert!(
        stages > 0 && PLIES.is_multiple_of(stages),
        "{stages} stages do not divide 60 plies"
    );
    let width = (PLIES / stages) as f32;
    let middle = |stage: usize| width * stage as f32 + (width - 1.0) / 2.0;
    let ply = ply.min(PLIES - 1) as f32;
    if ply <= middle(0) {
        return [(0, 1.0), (0, 0.0)];
    }
    if ply >= middle(stages - 1) {
        return [(stages - 1, 1.0), (stages - 1, 0.0)];
    }
    let stage = ((ply - middle(0)) / width).floor() as usize;
    let share = (ply - middle(stage)) / width;
    if share == 0.0 {
        // On a middle (stages of an odd number of plies): that stage alone.
        return [(stage, 1.0), (stage, 0.0)];
    }
    [(stage, 1.0 - share), (stage + 1, share)]
}

/// One weight set per ply from `stages` read blended: each ply's bias and entries are its two
/// stages' mixed by [`ply_shares`] and rounded to the nearest unit (halves away from zero).
/// A term's scales are mixed the same way (its vectors are shared by all stages already).
pub fn per_ply(stages: &Weights) -> Weights {
    let count = stages.stages();
    let total = layout().total;
    let mut out = Weights::zero(PLIES);
    let mix =
        |[(a, wa), (b, wb)]: [(usize, f32); 2], x: &dyn Fn(usize) -> f32| wa * x(a) + wb * x(b);
    for ply in 0..PLIES {
        let shares = ply_shares(ply, count);
        let round = |v: f32| v.round().clamp(-32767.0, 32767.0) as i16;
        out.bias[ply] = round(mix(shares, &|s| f32::from(stages.bias[s])));
        for entry in 0..total {
            out.tables[ply][entry] = round(mix(shares, &|s| f32::from(stages.tables[s][entry])));
        }
    }
    out.interaction = stages.interaction.clone().map(|mut term| {
        term.scales = (0..PLIES)
            .map(|ply| {
                // In f64: scales are 32-bit and f32 would round them.
                let [(a, wa), (b, wb)] = ply_shares(ply, count);
                (f64::from(wa) * f64::from(term.scales[a])
                    + f64::from(wb) * f64::from(term.scales[b]))
                .round() as i32
            })
            .collect();
        term
    });
    out
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
    use tsuru_core::eval::pattern::{stage_of, Interaction, FEATURES};
    use tsuru_core::rng::Rng;

    #[test]
    fn shares_sit_at_the_stage_middles_and_sum_to_one() {
        // 15 stages: the middles are plies 1.5, 5.5, ..., 57.5.
        assert_eq!(ply_shares(0, 15), [(0, 1.0), (0, 0.0)]);
        assert_eq!(ply_shares(1, 15), [(0, 1.0), (0, 0.0)]);
        assert_eq!(ply_shares(2, 15), [(0, 0.875), (1, 0.125)]);
        assert_eq!(ply_shares(5, 15), [(0, 0.125), (1, 0.875)]);
        assert_eq!(ply_shares(6, 15), [(1, 0.875), (2, 0.125)]);
        assert_eq!(ply_shares(57, 15), [(13, 0.125), (14, 0.875)]);
        assert_eq!(ply_shares(58, 15), [(14, 1.0), (14, 0.0)]);
        assert_eq!(ply_shares(60, 15), [(14, 1.0), (14, 0.0)]);
        for stages in [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60] {
            for ply in 0..=60 {
                let [(a, wa), (b, wb)] = ply_shares(ply, stages);
                assert!((wa + wb - 1.0).abs() < 1e-6, "{stages} stages, ply {ply}");
                assert!(wa > 0.0 && wb >= 0.0 && b >= a && b <= a + 1 && b < stages);
                // The stage a position belongs to unblended is one of its two, and the
                // larger share goes to the stage whose middle is nearer.
                let own = stage_of(60 - ply.min(60) as u32, stages);
                assert!(
                    own == a || (own == b && wb > 0.0),
                    "{stages} stages, ply {ply}"
                );
            }
        }
        // One stage per ply: every ply its own stage alone.
        for ply in 0..60 {
            assert_eq!(ply_shares(ply, 60), [(ply, 1.0), (ply, 0.0)]);
        }
    }

    #[test]
    fn per_ply_weights_move_linearly_between_stage_middles() {
        // A bias and an entry rising by 8 units a stage rise by 2 units a ply between the
        // first and last middles and stay flat outside them.
        let mut stages = Weights::zero(15);
        for stage in 0..15 {
            stages.bias[stage] = 8 * stage as i16;
            stages.tables[stage][123] = -16 * stage as i16;
        }
        let plies = per_ply(&stages);
        assert_eq!(plies.stages(), 60);
        for ply in 0..60 {
            // 8 units a stage over 4 plies from ply 1.5: 2 * (ply - 1.5), clamped to 0..=112.
            let expected = (2.0 * (ply as f32 - 1.5)).clamp(0.0, 112.0);
            assert_eq!(plies.bias[ply], expected.round() as i16, "ply {ply}");
            assert_eq!(
                plies.tables[ply][123],
                (-2.0 * expected).round() as i16,
                "ply {ply}"
            );
            assert_eq!(plies.tables[ply][124], 0);
        }
        // Stages of one ply are left as they are.
        assert_eq!(per_ply(&plies), plies);
        // A term keeps its vectors and has its scales mixed like the biases (in 32 bits:
        // 1 << 24 + 1 would not survive f32).
        stages.interaction = Some(Interaction {
            shift: 20,
            scales: (0..15).map(|stage| (1 << 24) + 1 + 8 * stage).collect(),
            vectors: vec![[3; tsuru_core::eval::pattern::INTERACTION_DIM]; layout().total],
        });
        let plies = per_ply(&stages);
        let term = plies.interaction.as_ref().unwrap();
        assert_eq!(term.shift, 20);
        assert_eq!(term.vectors, stages.interaction.as_ref().unwrap().vectors);
        for ply in 0..60 {
            assert_eq!(
                term.scales[ply],
                (1 << 24) + 1 + i32::from(plies.bias[ply]),
                "ply {ply}"
            );
        }
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
