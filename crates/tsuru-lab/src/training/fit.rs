//! Least-squares fitting of one stage's weights: full-batch gradient descent on the squared
//! error in discs, each weight's step divided by how often it occurs, with L2 shrinkage.
//!
//! With `n_f` occurrences of entry `f` and residuals `e_i = label_i - prediction_i`, one
//! epoch does `w_f += rate * (sum of e_i over samples containing f - l2 * w_f) / (n_f + l2)`
//! and moves the bias by `rate` times the mean residual. With `shrink_to_start`, the shrinkage
//! term is `l2 * (w_f - s_f)` for the starting weight `s_f` instead. Dividing by `n_f` gives rare and
//! common entries the same effective step; `rate` about 1/55 or less keeps the 55 entries of
//! a sample (54 pattern copies and the mobility table) from overshooting together. Residuals and gradients are computed on `threads` threads over
//! fixed chunks and summed in a fixed order, so a fit is deterministic.

use super::Sample;
use crate::parallel::map_chunks;

/// Fitting settings.
#[derive(Clone, Copy, Debug)]
pub struct FitConfig {
    /// Full passes over the samples.
    pub epochs: usize,
    /// Step size (see the module doc).
    pub rate: f32,
    /// L2 shrinkage, in pseudo-occurrences pulling each weight to 0 (or, with
    /// `shrink_to_start`, to the weight the fit started from).
    pub l2: f32,
    /// Whether the shrinkage pulls towards the starting weights (the previous stage's fit)
    /// instead of 0: an entry seen rarely in this stage then keeps about the neighbouring
    /// stage's value rather than fading to 0.
    pub shrink_to_start: bool,
    /// Momentum: the fraction of the previous step added to the next (heavy ball).
    pub momentum: f32,
    /// Worker threads.
    pub threads: usize,
}

impl Default for FitConfig {
    fn default() -> FitConfig {
        FitConfig {
            epochs: 300,
            rate: 0.015,
            l2: 2.0,
            shrink_to_start: false,
            momentum: 0.9,
            threads: 2,
        }
    }
}

/// A fitted stage: weights per flat entry and bias in discs, and how often each entry occurred.
#[derive(Clone, Debug)]
pub struct StageFit {
    /// Weight per flat-table entry, in discs.
    pub weights: Vec<f32>,
    /// The bias in discs.
    pub bias: f32,
    /// Occurrences of each entry in the samples.
    pub counts: Vec<u32>,
}

/// The prediction of a sample under `weights` and `bias`.
#[inline]
pub fn predict(sample: &Sample, weights: &[f32], bias: f32) -> f32 {
    bias + sample
        .features
        .iter()
        .map(|&f| weights[f as usize])
        .sum::<f32>()
}

/// Mean absolute and root-mean-square error over `samples`.
pub fn errors(samples: &[Sample], weights: &[f32], bias: f32) -> (f64, f64) {
    if samples.is_empty() {
        return (0.0, 0.0);
    }
    let (mut abs, mut sq) = (0.0f64, 0.0f64);
    for sample in samples {
        let e = f64::from(sample.label - predict(sample, weights, bias));
        abs += e.abs();
        sq += e * e;
    }
    let n = samples.len() as f64;
    (abs / n, (sq / n).sqrt())
}

/// One heavy-ball step of every weight with a nonzero occurrence count `n` (see the module
/// doc): `v = momentum * v + rate * (g - l2 * (w - prior)) / (n + l2)`, then `w += v`.
pub fn step_weights(
    weights: &mut [f32],
    velocity: &mut [f32],
    gradient: &[f32],
    occurrences: impl Iterator<Item = f32>,
    prior: &[f32],
    config: &FitConfig,
) {
    for ((((w, v), g), n), p) in weights
        .iter_mut()
        .zip(velocity.iter_mut())
        .zip(gradient)
        .zip(occurrences)
        .zip(prior)
    {
        if n > 0.0 {
            *v = config.momentum * *v + config.rate * (g - config.l2 * (*w - p)) / (n + config.l2);
            *w += *v;
        }
    }
}

/// Fits one stage, starting from `start` (weights and bias), over flat tables of `total`
/// entries. `progress` is called after every epoch with the epoch and training RMS error.
pub fn fit_stage(
    samples: &[Sample],
    total: usize,
    start: Option<(&[f32], f32)>,
    config: &FitConfig,
    mut progress: impl FnMut(usize, f64),
) -> StageFit {
    let mut counts = vec![0u32; total];
    for sample in samples {
        for &f in &sample.features {
            counts[f as usize] += 1;
        }
    }
    let (mut weights, mut bias) = match start {
        Some((weights, bias)) => (weights.to_vec(), bias),
        None => {
            let mean = samples.iter().map(|s| f64::from(s.label)).sum::<f64>()
                / samples.len().max(1) as f64;
            (vec![0.0; total], mean as f32)
        }
    };
    if samples.is_empty() {
        return StageFit {
            weights,
            bias,
            counts,
        };
    }
    let prior = if config.shrink_to_start {
        weights.clone()
    } else {
        vec![0.0; total]
    };
    let mut velocity = vec![0.0f32; total];
    let mut bias_velocity = 0.0f32;
    for epoch in 0..config.epochs {
        let partials = map_chunks(samples, config.threads, |_, part| {
            let mut gradient = vec![0.0f32; total];
            let (mut sum, mut sq) = (0.0f64, 0.0f64);
            for sample in part {
                let e = sample.label - predict(sample, &weights, bias);
                for &f in &sample.features {
                    gradient[f as usize] += e;
                }
                sum += f64::from(e);
                sq += f64::from(e) * f64::from(e);
            }
            (gradient, sum, sq)
        });
        let mut gradient = vec![0.0f32; total];
        let (mut sum, mut sq) = (0.0f64, 0.0f64);
        for (part, part_sum, part_sq) in partials {
            for (g, p) in gradient.iter_mut().zip(&part) {
                *g += p;
            }
            sum += part_sum;
            sq += part_sq;
        }
        step_weights(
            &mut weights,
            &mut velocity,
            &gradient,
            counts.iter().map(|&n| n as f32),
            &prior,
            config,
        );
        bias_velocity =
            config.momentum * bias_velocity + config.rate * (sum / samples.len() as f64) as f32;
        bias += bias_velocity;
        progress(epoch, (sq / samples.len() as f64).sqrt());
    }
    StageFit {
        weights,
        bias,
        counts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsuru_core::eval::pattern::FEATURES;
    use tsuru_core::rng::Rng;

    #[test]
    fn recovers_a_random_linear_model_exactly() {
        // Synthetic data from known weights over a small table: the fit must find a model
        // with (near) zero error, and the known weights where the design determines them.
        let total = 400;
        let mut rng = Rng::new(42);
        let truth: Vec<f32> = (0..total).map(|_| rng.below(21) as f32 - 10.0).collect();
        let true_bias = 3.0;
        let samples: Vec<Sample> = (0..20_000)
            .map(|_| {
                let mut features = [0u32; FEATURES];
                for (copy, f) in features.iter_mut().enumerate() {
                    // Each copy draws from its own slice of the table, as patterns do.
                    let width = total / FEATURES;
                    *f = (copy * width) as u32 + rng.below(width as u64) as u32;
                }
                let label = true_bias + features.iter().map(|&f| truth[f as usize]).sum::<f32>();
                Sample { features, label }
            })
            .collect();
        let config = FitConfig {
            epochs: 400,
            rate: 0.02,
            l2: 0.0,
            shrink_to_start: false,
            momentum: 0.9,
            threads: 2,
        };
        let fit = fit_stage(&samples, total, None, &config, |_, _| {});
        let (mae, _) = errors(&samples, &fit.weights, fit.bias);
        assert!(mae < 0.01, "mean absolute error {mae}");
        // Weights are determined up to a constant per copy slice (shifts cancel against the
        // bias), so compare differences within a slice.
        let width = total / FEATURES;
        for copy in 0..FEATURES {
            let base = copy * width;
            for i in base + 1..base + width {
                let fitted = fit.weights[i] - fit.weights[base];
                let known = truth[i] - truth[base];
                assert!(
                    (fitted - known).abs() < 0.01,
                    "entry {i}: {fitted} vs {known}"
                );
            }
        }
    }

    #[test]
    fn strong_shrinkage_pulls_to_zero_or_to_the_start() {
        // Entry 0 occurs in samples labelled 8 and 12, entry 2 in samples labelled -8 and
        // -12; the other copies look up entry 1. Only the difference of entries 0 and 2 is
        // determined (a shift can move into entry 1 and the bias): 20 without shrinkage,
        // near 0 when shrunk hard to zero, near the starting 8 when shrunk to the start.
        let mut samples = Vec::new();
        for (entry, label) in [(0, 8.0), (0, 12.0), (2, -8.0), (2, -12.0)] {
            let mut features = [1u32; FEATURES];
            features[0] = entry;
            samples.push(Sample { features, label });
        }
        let start = [4.0f32, 0.0, -4.0];
        let difference = |l2, shrink_to_start| {
            let config = FitConfig {
                epochs: 2000,
                rate: 0.01,
                l2,
                shrink_to_start,
                momentum: 0.9,
                threads: 1,
            };
            let fit = fit_stage(&samples, 3, Some((&start, 0.0)), &config, |_, _| {});
            fit.weights[0] - fit.weights[2]
        };
        let free = difference(0.0, false);
        let to_zero = difference(1000.0, false);
        let to_start = difference(1000.0, true);
        assert!((free - 20.0).abs() < 0.5, "free fit {free}");
        assert!(to_zero.abs() < 0.5, "shrunk to zero: {to_zero}");
        assert!(
            (to_start - 8.0).abs() < 0.5,
            "shrunk to the start: {to_start}"
        );
    }

    #[test]
    fn fits_are_deterministic_across_thread_counts_with_one_chunk_order() {
        let mut rng = Rng::new(7);
        let samples: Vec<Sample> = (0..1000)
            .map(|_| {
                let mut features = [0u32; FEATURES];
                for f in features.iter_mut() {
                    *f = rng.below(100) as u32;
                }
                Sample {
                    features,
                    label: rng.below(129) as f32 - 64.0,
                }
            })
            .collect();
        let config = FitConfig {
            epochs: 20,
            ..FitConfig::default()
        };
        let a = fit_stage(&samples, 100, None, &config, |_, _| {});
        let b = fit_stage(&samples, 100, None, &config, |_, _| {});
        assert_eq!(a.weights, b.weights);
        assert_eq!(a.bias, b.bias);
    }
}
