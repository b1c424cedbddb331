//! Fitting the pattern network ([`crate::eval::net`]): per stage, the linear pattern model plus
//! a head over an accumulator of embedding rows shared by all stages. Started from the linear
//! fits with the heads' outputs near zero, the network can only add what a sum of patterns
//! cannot express (interactions between regions of the board), and the shared embedding sees
//! the samples of every stage, so it has fifteen times the data of any one stage's table.
//!
//! Fitted by minibatch Adam on the squared error in discs; embedding and linear rows are
//! updated lazily (only the rows a batch touched, with the step count of the whole fit). One
//! thread, a fixed seed and a fixed order: a fit is reproducible.

use super::Sample;
use crate::eval::net::{Head, NetPart, HEAD};
use crate::eval::pattern::FEATURES;
use crate::rng::Rng;

/// Fitting settings of a network.
#[derive(Clone, Copy, Debug)]
pub struct NetConfig {
    /// Width of the embedding rows and of the accumulator.
    pub hidden: usize,
    /// Passes over the samples.
    pub epochs: usize,
    /// Adam's step size.
    pub rate: f32,
    /// Samples per step.
    pub batch: usize,
    /// Seed of the initial weights and of the sample order.
    pub seed: u64,
}

impl Default for NetConfig {
    fn default() -> NetConfig {
        NetConfig {
            hidden: 16,
            epochs: 2,
            rate: 0.001,
            batch: 1024,
            seed: 1,
        }
    }
}

/// A sample and the stage whose head and linear table value it.
#[derive(Clone, Copy, Debug)]
pub struct StagedSample {
    /// The stage.
    pub stage: u8,
    /// The features and label.
    pub sample: Sample,
}

/// Values kept from a forward pass for the backward one.
struct Trace {
    acc: Vec<f32>,
    clipped: Vec<f32>,
    hidden1: Vec<f32>,
}

impl Trace {
    fn new(hidden: usize) -> Trace {
        Trace {
            acc: vec![0.0; hidden],
            clipped: vec![0.0; hidden],
            hidden1: vec![0.0; HEAD],
        }
    }
}

/// A network being fitted, in discs, over flat (canonical) entries: the linear tables and
/// biases of every stage, fitted with it, and the network part ([`NetPart`]).
#[derive(Clone, Debug)]
pub struct NetWeights {
    /// Accumulator width.
    pub hidden: usize,
    /// Entries of a stage's flat table.
    pub total: usize,
    /// Per stage: the linear weight of each flat entry.
    pub linear: Vec<Vec<f32>>,
    /// Per stage: the output bias.
    pub bias: Vec<f32>,
    /// `total x hidden`, shared by the stages.
    pub embedding: Vec<f32>,
    /// One head per stage.
    pub heads: Vec<Head>,
}

impl NetWeights {
    /// The network part, as the engine stores it.
    pub fn part(&self) -> NetPart {
        NetPart {
            hidden: self.hidden,
            embedding: self.embedding.clone(),
            heads: self.heads.clone(),
        }
    }
}

/// Random initial values: small embedding rows (55 of them summed put the accumulator around
/// 0.5 +- 0.3, inside the clipped ReLU's slope) and output weights near zero.
pub fn initial(
    linear: Vec<Vec<f32>>,
    bias: Vec<f32>,
    total: usize,
    hidden: usize,
    seed: u64,
) -> NetWeights {
    let mut rng = Rng::new(seed);
    let mut uniform = |scale: f32| (rng.below(2_000_001) as f32 / 1_000_000.0 - 1.0) * scale;
    let stages = bias.len();
    let embedding = (0..total * hidden).map(|_| uniform(0.05)).collect();
    let mut heads = Vec::with_capacity(stages);
    for _ in 0..stages {
        heads.push(Head {
            acc_bias: vec![0.5; hidden],
            w1: (0..HEAD * hidden)
                .map(|_| uniform(1.0 / (hidden as f32).sqrt()))
                .collect(),
            b1: vec![0.1; HEAD],
            w2: (0..HEAD).map(|_| uniform(0.1)).collect(),
            b2: 0.0,
        });
    }
    NetWeights {
        hidden,
        total,
        linear,
        bias,
        embedding,
        heads,
    }
}

fn forward(net: &NetWeights, stage: usize, features: &[u32; FEATURES], trace: &mut Trace) -> f32 {
    let h = net.hidden;
    let head = &net.heads[stage];
    let linear = &net.linear[stage];
    trace.acc.copy_from_slice(&head.acc_bias);
    let mut out = net.bias[stage] + head.b2;
    for &f in features {
        let f = f as usize;
        out += linear[f];
        let row = &net.embedding[f * h..(f + 1) * h];
        for (a, &e) in trace.acc.iter_mut().zip(row) {
            *a += e;
        }
    }
    for (c, &a) in trace.clipped.iter_mut().zip(&trace.acc) {
        *c = a.clamp(0.0, 1.0);
    }
    for k in 0..HEAD {
        let row = &head.w1[k * h..(k + 1) * h];
        let z = head.b1[k]
            + row
                .iter()
                .zip(&trace.clipped)
                .map(|(w, c)| w * c)
                .sum::<f32>();
        trace.hidden1[k] = z.max(0.0);
        out += head.w2[k] * trace.hidden1[k];
    }
    out
}

/// The network's value of a sample of `stage`, discs.
pub fn predict(net: &NetWeights, stage: usize, features: &[u32; FEATURES]) -> f32 {
    forward(net, stage, features, &mut Trace::new(net.hidden))
}

/// Mean absolute error over `samples`.
pub fn mae(net: &NetWeights, samples: &[StagedSample]) -> f64 {
    let mut trace = Trace::new(net.hidden);
    samples
        .iter()
        .map(|s| {
            let out = forward(net, usize::from(s.stage), &s.sample.features, &mut trace);
            f64::from((s.sample.label - out).abs())
        })
        .sum::<f64>()
        / samples.len().max(1) as f64
}

/// Adam's state for a block of parameters.
struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
}

const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;

impl Adam {
    fn new(len: usize) -> Adam {
        Adam {
            m: vec![0.0; len],
            v: vec![0.0; len],
        }
    }

    /// One step on `params[start..start + len]` with the gradients at the same place, at
    /// step `t` (from 1); the gradients are cleared.
    fn step(
        &mut self,
        params: &mut [f32],
        grads: &mut [f32],
        start: usize,
        len: usize,
        rate: f32,
        t: i32,
    ) {
        let correction1 = 1.0 - BETA1.powi(t);
        let correction2 = 1.0 - BETA2.powi(t);
        for i in start..start + len {
            let g = grads[i];
            grads[i] = 0.0;
            self.m[i] = BETA1 * self.m[i] + (1.0 - BETA1) * g;
            self.v[i] = BETA2 * self.v[i] + (1.0 - BETA2) * g * g;
            let m = self.m[i] / correction1;
            let v = self.v[i] / correction2;
            params[i] -= rate * m / (v.sqrt() + 1e-8);
        }
    }
}

/// Gradients and Adam states of one stage's head and linear table.
struct StageState {
    g_linear: Vec<f32>,
    adam_linear: Adam,
    g: [Vec<f32>; 5],
    adam: [Adam; 5],
    touched: Vec<bool>,
    touched_list: Vec<usize>,
    used: bool,
}

/// Fits `net` to `samples`; `progress(epoch, train_rms)` after every epoch.
pub fn fit_net(
    net: &mut NetWeights,
    samples: &[StagedSample],
    config: &NetConfig,
    mut progress: impl FnMut(usize, f64),
) {
    let h = net.hidden;
    let total = net.total;
    let sizes = [h, HEAD * h, HEAD, HEAD, 1];
    let mut states: Vec<StageState> = (0..net.bias.len())
        .map(|_| StageState {
            g_linear: vec![0.0; total],
            adam_linear: Adam::new(total),
            g: sizes.map(|n| vec![0.0; n]),
            adam: sizes.map(Adam::new),
            touched: vec![false; total],
            touched_list: Vec::new(),
            used: false,
        })
        .collect();
    let mut g_bias = vec![0.0f32; net.bias.len()];
    let mut adam_bias = Adam::new(net.bias.len());
    let mut g_embedding = vec![0.0f32; total * h];
    let mut adam_embedding = Adam::new(total * h);
    let mut touched = vec![false; total];
    let mut touched_list: Vec<usize> = Vec::new();
    let mut rng = Rng::new(config.seed ^ 0x5eed);
    let mut order: Vec<usize> = (0..samples.len()).collect();
    let mut trace = Trace::new(h);
    let mut d_clipped = vec![0.0f32; h];
    let mut step = 0i32;
    for epoch in 0..config.epochs {
        // Fisher-Yates with the fit's own generator: the same order on every run.
        for i in (1..order.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            order.swap(i, j);
        }
        let mut sq = 0.0f64;
        for batch in order.chunks(config.batch) {
            let scale = 1.0 / batch.len() as f32;
            for &index in batch {
                let StagedSample { stage, sample } = &samples[index];
                let stage = usize::from(*stage);
                let out = forward(net, stage, &sample.features, &mut trace);
                let e = out - sample.label;
                sq += f64::from(e) * f64::from(e);
                let d = e * scale;
                let head = &net.heads[stage];
                let state = &mut states[stage];
                state.used = true;
                g_bias[stage] += d;
                state.g[4][0] += d;
                d_clipped.iter_mut().for_each(|x| *x = 0.0);
                for k in 0..HEAD {
                    state.g[3][k] += d * trace.hidden1[k];
                    if trace.hidden1[k] > 0.0 {
                        let dz = d * head.w2[k];
                        state.g[2][k] += dz;
                        let row = &mut state.g[1][k * h..(k + 1) * h];
                        let w = &head.w1[k * h..(k + 1) * h];
                        for j in 0..h {
                            row[j] += dz * trace.clipped[j];
                            d_clipped[j] += dz * w[j];
                        }
                    }
                }
                for ((dc, &acc), g) in d_clipped.iter_mut().zip(&trace.acc).zip(&mut state.g[0]) {
                    // The clipped ReLU passes gradients only inside its slope.
                    if acc <= 0.0 || acc >= 1.0 {
                        *dc = 0.0;
                    }
                    *g += *dc;
                }
                for &f in &sample.features {
                    let f = f as usize;
                    if !state.touched[f] {
                        state.touched[f] = true;
                        state.touched_list.push(f);
                    }
                    state.g_linear[f] += d;
                    if !touched[f] {
                        touched[f] = true;
                        touched_list.push(f);
                    }
                    let row = &mut g_embedding[f * h..(f + 1) * h];
                    for (g, &dc) in row.iter_mut().zip(&d_clipped) {
                        *g += dc;
                    }
                }
            }
            step += 1;
            let rate = config.rate;
            for &f in &touched_list {
                adam_embedding.step(&mut net.embedding, &mut g_embedding, f * h, h, rate, step);
                touched[f] = false;
            }
            touched_list.clear();
            for (stage, state) in states.iter_mut().enumerate() {
                if !state.used {
                    continue;
                }
                state.used = false;
                for &f in &state.touched_list {
                    state.adam_linear.step(
                        &mut net.linear[stage],
                        &mut state.g_linear,
                        f,
                        1,
                        rate,
                        step,
                    );
                    state.touched[f] = false;
                }
                state.touched_list.clear();
                let head = &mut net.heads[stage];
                let mut b2 = [head.b2];
                let params: [&mut [f32]; 5] = [
                    &mut head.acc_bias,
                    &mut head.w1,
                    &mut head.b1,
                    &mut head.w2,
                    &mut b2,
                ];
                for ((param, g), adam) in params.into_iter().zip(&mut state.g).zip(&mut state.adam)
                {
                    let len = param.len();
                    adam.step(param, g, 0, len, rate, step);
                }
                head.b2 = b2[0];
            }
            let len = g_bias.len();
            adam_bias.step(&mut net.bias, &mut g_bias, 0, len, rate, step);
        }
        progress(epoch, (sq / samples.len().max(1) as f64).sqrt());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::net::HIDDEN;
    use crate::eval::pattern::{features, layout, random_board, stage_of, PatternEval, Weights};

    #[test]
    fn the_engine_evaluates_what_the_fit_predicts() {
        let layout = layout();
        let total = layout.total;
        let mut rng = Rng::new(3);
        let linear: Vec<Vec<f32>> = (0..15)
            .map(|_| {
                (0..total)
                    .map(|_| rng.below(201) as f32 / 100.0 - 1.0)
                    .collect()
            })
            .collect();
        let bias: Vec<f32> = (0..15).map(|_| rng.below(11) as f32 - 5.0).collect();
        let mut net = initial(linear, bias, total, HIDDEN, 5);
        for head in &mut net.heads {
            // Output weights large enough for the head to matter.
            head.w2.iter_mut().for_each(|w| *w *= 40.0);
        }
        // The engine's weights: each flat entry takes its canonical entry's value, in
        // hundredths of a disc, as `tsuru train` writes them.
        let mut weights = Weights::zero(15);
        for stage in 0..15 {
            weights.bias[stage] = (net.bias[stage] * 100.0).round() as i16;
            for entry in 0..total {
                let canonical = layout.canonical[entry] as usize;
                weights.tables[stage][entry] =
                    (net.linear[stage][canonical] * 100.0).round() as i16;
            }
        }
        let part = NetPart::from_bytes(&net.part().to_bytes()).unwrap();
        let eval = PatternEval::new(&weights).with_net(&part).unwrap();
        let mut head_matters = 0;
        for plies in 0..58 {
            let board = random_board(&mut rng, plies);
            let stage = stage_of(board.empties(), 15);
            let features = features(&board);
            let fitted = predict(&net, stage, &features);
            let engine = eval.raw(&board) as f32 / 100.0;
            // Rounding: 56 values of at most half a hundredth, and rows to 1/4096.
            assert!(
                (fitted - engine).abs() < 0.35,
                "{plies} plies: {fitted} vs {engine}"
            );
            let linear_only: f32 = net.bias[stage]
                + features
                    .iter()
                    .map(|&f| net.linear[stage][f as usize])
                    .sum::<f32>();
            head_matters += usize::from((fitted - linear_only).abs() > 1.0);
        }
        assert!(head_matters > 10, "{head_matters}");
    }

    #[test]
    fn the_network_learns_an_interaction_a_sum_cannot() {
        // Two binary features; the label is 8 when both are on and 0 otherwise. The best sum
        // of per-feature values misses by 2 on average; the network must do better.
        let mut rng = Rng::new(11);
        let total = 4 + FEATURES;
        let samples: Vec<StagedSample> = (0..4000)
            .map(|_| {
                let a = rng.below(2) as u32;
                let b = rng.below(2) as u32;
                // The other copies look up fixed entries of their own, as patterns do.
                let mut features: [u32; FEATURES] = std::array::from_fn(|i| 4 + i as u32);
                features[0] = a;
                features[1] = 2 + b;
                let label = if a == 1 && b == 1 { 8.0 } else { 0.0 };
                StagedSample {
                    stage: 0,
                    sample: Sample { features, label },
                }
            })
            .collect();
        let linear_start = vec![vec![0.0; total]];
        let config = NetConfig {
            hidden: 8,
            epochs: 60,
            rate: 0.01,
            batch: 32,
            seed: 2,
        };
        let mut net = initial(linear_start, vec![2.0], total, config.hidden, config.seed);
        let before = mae(&net, &samples);
        fit_net(&mut net, &samples, &config, |_, _| {});
        let after = mae(&net, &samples);
        assert!(before > 2.5, "{before}");
        assert!(after < 1.0, "mean absolute error {after}");
        // And the fit is reproducible.
        let mut again = initial(
            vec![vec![0.0; total]],
            vec![2.0],
            total,
            config.hidden,
            config.seed,
        );
        fit_net(&mut again, &samples, &config, |_, _| {});
        assert_eq!(again.embedding, net.embedding);
    }
}
