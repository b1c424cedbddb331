//! Factorisation-machine models into weights: quantises a model file
//! ([`tsuru_core::formats::fm_model`], in discs and floating point) into [`Weights`] with an
//! [`Interaction`] term (Score units, 16-bit tables and vectors, a 64-bit scale per stage).
//!
//! The vectors are scaled by one power of two `q` so that the largest component is at most
//! [`LARGEST_COMPONENT`]; a stage's scale `s` (discs per unit of dot product, times the sum
//! over pairs) becomes `round(s * UNITS_PER_DISC * 2^shift / (2 q^2))` (the engine's term is
//! written with `|sum|^2 - sum of squares`, twice the sum over pairs) with the largest shift that keeps every scale
//! within 31 bits and the evaluation's sums within 64.

use anyhow::{ensure, Result};

use crate::training::pattern_nets::quantise;
use tsuru_core::eval::pattern::{layout, Interaction, Weights, MAX_INTERACTION_DIM};
use tsuru_core::formats::fm_model::FmModelRecord;
use tsuru_core::score::UNITS_PER_DISC;

/// The largest vector component after quantisation: the engine sums a position's 55 rows in
/// 16-bit lanes.
pub const LARGEST_COMPONENT: f64 = (i16::MAX as usize / tsuru_core::eval::pattern::FEATURES) as f64;

/// The largest vector component of a term quantised to 8 bits ([`quantise_model`]'s
/// `compact`): the engine then keeps its rows in 8 bytes each, half the memory.
pub const LARGEST_COMPACT_COMPONENT: f64 = i8::MAX as f64;

/// The weights of `record`: tables and biases quantised to Score units (canonical entries'
/// values, ties made equal), the interaction term as described in the module doc. Error if the
/// model is for another pattern set or layout, or wider than the engine reads
/// ([`MAX_INTERACTION_DIM`]). A
/// model whose scales or vectors are all zero gives weights without the term. `compact`
/// quantises the vectors to 8-bit components ([`LARGEST_COMPACT_COMPONENT`]) instead of
/// [`LARGEST_COMPONENT`]: coarser, and half the engine's memory for the rows.
pub fn quantise_model(record: &FmModelRecord, compact: bool) -> Result<Weights> {
    let bound = if compact {
        LARGEST_COMPACT_COMPONENT
    } else {
        LARGEST_COMPONENT
    };
    let layout = layout();
    ensure!(
        record.pattern_set == layout.pattern_set_id,
        "the model is for pattern set {:08x}, this build's is {:08x}",
        record.pattern_set,
        layout.pattern_set_id
    );
    ensure!(
        record.entries == layout.total,
        "the model has {} entries a stage, this build's tables {}",
        record.entries,
        layout.total
    );
    let dim = record.dim;
    ensure!(
        (1..=MAX_INTERACTION_DIM).contains(&dim),
        "the model's vectors are {dim} wide; this build evaluates 1 to {MAX_INTERACTION_DIM}"
    );
    let stages = record.bias.len();
    let mut weights = Weights::zero(stages);
    for stage in 0..stages {
        weights.bias[stage] = quantise(record.bias[stage]);
        for entry in 0..layout.total {
            let canonical = layout.canonical[entry] as usize;
            weights.tables[stage][entry] = quantise(record.tables[stage][canonical]);
        }
    }
    if record.scales.iter().all(|&s| s == 0.0) || record.vectors.iter().all(|&v| v == 0.0) {
        // No term: plain weights (a version-1 file, evaluated at the linear cost).
        return Ok(weights);
    }
    let largest = record
        .vectors
        .iter()
        .map(|v| f64::from(v.abs()))
        .fold(0.0, f64::max);
    // The power of two that brings the largest component to LARGEST_COMPONENT or just below.
    let q = if largest > 0.0 {
        2f64.powi((bound / largest).log2().floor() as i32)
    } else {
        1.0
    };
    let mut vectors = vec![[0i16; MAX_INTERACTION_DIM]; layout.total];
    for (entry, vector) in vectors.iter_mut().enumerate() {
        let canonical = layout.canonical[entry] as usize;
        for (d, value) in vector[..dim].iter_mut().enumerate() {
            let v = f64::from(record.vectors[canonical * dim + d]);
            *value = (v * q).round() as i16;
        }
    }
    let scale_at = |shift: u32| -> Vec<i64> {
        record
            .scales
            .iter()
            // The model's term is s * (sum over pairs) = s/2 * (|sum|^2 - sum of squares).
            .map(|&s| {
                let units = f64::from(s) * f64::from(UNITS_PER_DISC) / (2.0 * q * q);
                (units * 2f64.powi(shift as i32)).round() as i64
            })
            .collect()
    };
    let mut shift = 40;
    let largest_q = (largest * q).round();
    let norm = dim as f64 * (tsuru_core::eval::pattern::FEATURES as f64 * largest_q).powi(2);
    while shift > 1 {
        let scales = scale_at(shift);
        let widest = scales.iter().map(|s| s.unsigned_abs()).max().unwrap_or(0) as f64;
        if widest < f64::from(i32::MAX) && norm * widest < 2f64.powi(61) {
            break;
        }
        shift -= 1;
    }
    let scales = scale_at(shift);
    ensure!(
        scales.iter().all(|&s| i32::try_from(s).is_ok()),
        "the model's scales are too large to quantise"
    );
    weights.interaction = Some(Interaction {
        dim,
        shift,
        scales: scales.iter().map(|&s| s as i32).collect(),
        vectors,
    });
    // The same checks a file load makes (folded entries in 16 bits, sums in 64).
    Weights::from_bytes(&weights.to_bytes())
}

/// `weights` as a model file, the inverse of [`quantise_model`]: tables and biases in discs,
/// and the interaction term (if any) as floating-point vectors and scales whose model value
/// equals the engine's definition of the term (the folding's rounding aside). The vectors are
/// the stored components divided by a power of two `q` chosen so that the largest scale is
/// about 1 (the size a fit starts its scales at), so that `crates/tsuru-lab/scripts/fm_train.py
/// --init` can go on from a shipped term; `q` a power of two keeps the way back exact. The
/// model is as wide as the term, or [`MAX_INTERACTION_DIM`] (all zero) for weights without one.
pub fn model_of(weights: &Weights) -> FmModelRecord {
    let layout = layout();
    let discs = |v: i16| f32::from(v) / UNITS_PER_DISC as f32;
    let stages = weights.stages();
    let dim = weights
        .interaction
        .as_ref()
        .map_or(MAX_INTERACTION_DIM, |term| term.dim);
    let mut record = FmModelRecord {
        pattern_set: layout.pattern_set_id,
        entries: layout.total,
        dim,
        bias: weights.bias.iter().map(|&b| discs(b)).collect(),
        tables: weights
            .tables
            .iter()
            .map(|table| table.iter().map(|&v| discs(v)).collect())
            .collect(),
        scales: vec![0.0; stages],
        vectors: vec![0.0; layout.total * dim],
    };
    let Some(term) = &weights.interaction else {
        return record;
    };
    let widest = term
        .scales
        .iter()
        .map(|s| s.unsigned_abs())
        .max()
        .unwrap_or(0);
    if widest == 0 {
        return record;
    }
    // A stored scale S is s * UNITS_PER_DISC * 2^shift / (2 q^2) for the model's scale s
    // (quantise_model), so s = 2 q^2 S / (UNITS_PER_DISC * 2^shift); q puts the widest near 1.
    let unit = f64::from(UNITS_PER_DISC) * 2f64.powi(term.shift as i32) / 2.0;
    let q = 2f64.powi((unit / widest as f64).sqrt().log2().round() as i32);
    record.scales = term
        .scales
        .iter()
        .map(|&s| (f64::from(s) * q * q / unit) as f32)
        .collect();
    for (entry, vector) in term.vectors.iter().enumerate() {
        for (d, &x) in vector[..dim].iter().enumerate() {
            record.vectors[entry * dim + d] = (f64::from(x) / q) as f32;
        }
    }
    record
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsuru_core::board::Board;
    use tsuru_core::eval::pattern::{features, random_board, stage_of};
    use tsuru_core::rng::Rng;

    /// A model's value of `board` in discs, by its definition in floating point.
    fn model_value(record: &FmModelRecord, board: &Board) -> f64 {
        let stage = stage_of(board.empties(), record.bias.len());
        let entries = features(board);
        let mut value = f64::from(record.bias[stage]);
        for &e in &entries {
            value += f64::from(record.tables[stage][e as usize]);
        }
        let dim = record.dim;
        let v = |e: u32, d: usize| f64::from(record.vectors[e as usize * dim + d]);
        let mut pairs = 0.0;
        for (i, &a) in entries.iter().enumerate() {
            for &b in &entries[i + 1..] {
                pairs += (0..dim).map(|d| v(a, d) * v(b, d)).sum::<f64>();
            }
        }
        value + f64::from(record.scales[stage]) * pairs
    }

    /// A model of 15 stages with uniform random values: biases within 3 discs, table entries
    /// within 4, scales within `scales` and vector components (`dim` of them) within
    /// `components`.
    fn random_model(seed: u64, scales: f32, components: f32, dim: usize) -> FmModelRecord {
        let layout = layout();
        let mut rng = Rng::new(seed);
        let mut uniform = |scale: f32| (rng.below(20001) as f32 / 10000.0 - 1.0) * scale;
        let stages = 15;
        FmModelRecord {
            pattern_set: layout.pattern_set_id,
            entries: layout.total,
            dim,
            bias: (0..stages).map(|_| uniform(3.0)).collect(),
            tables: (0..stages)
                .map(|_| (0..layout.total).map(|_| uniform(4.0)).collect())
                .collect(),
            scales: (0..stages).map(|_| uniform(scales)).collect(),
            vectors: (0..layout.total * dim)
                .map(|_| uniform(components))
                .collect(),
        }
    }

    #[test]
    fn quantised_weights_value_positions_as_the_model_does() {
        for (dim, compact) in [(8, false), (8, true), (MAX_INTERACTION_DIM, true)] {
            let record = random_model(53, 1.5, 0.2, dim);
            let weights = quantise_model(&record, compact).unwrap();
            let largest = weights
                .interaction
                .as_ref()
                .unwrap()
                .vectors
                .iter()
                .flatten()
                .map(|&x| x.unsigned_abs())
                .max()
                .unwrap();
            let bound = if compact {
                LARGEST_COMPACT_COMPONENT
            } else {
                LARGEST_COMPONENT
            };
            assert!(f64::from(largest) <= bound && f64::from(largest) > bound / 2.0);
            let eval = tsuru_core::eval::pattern::PatternEval::new(&weights);
            let mut rng = Rng::new(59);
            let mut worst: f64 = 0.0;
            for plies in 0..60 {
                let board = random_board(&mut rng, plies);
                let model = model_value(&record, &board) * f64::from(UNITS_PER_DISC);
                let engine = f64::from(eval.raw(&board));
                worst = worst.max((engine - model).abs());
            }
            // Rounding: half a unit per table look-up and the bias, the folding's stated
            // error, and the vectors' quantisation (relative 1/1190 of the largest component,
            // 1/254 when compact).
            assert!(
                worst < 60.0,
                "{dim} wide, compact {compact}: worst difference {worst} units"
            );
        }
    }

    #[test]
    fn weights_read_back_as_a_model_quantise_to_themselves() {
        for dim in [3, 8, MAX_INTERACTION_DIM] {
            let record = random_model(61, 0.7, 0.3, dim);
            for compact in [false, true] {
                let weights = quantise_model(&record, compact).unwrap();
                let model = model_of(&weights);
                assert_eq!(model.dim, dim);
                let widest = model.scales.iter().fold(0f32, |m, s| m.max(s.abs()));
                assert!((0.5..=2.0).contains(&widest), "widest scale {widest}");
                let again = quantise_model(&model, compact).unwrap();
                assert_eq!(again.to_bytes(), weights.to_bytes(), "{dim}, {compact}");
            }
        }
        let record = random_model(61, 0.7, 0.3, 8);
        // Weights without a term read back with zero vectors and scales.
        let mut plain = quantise_model(&record, false).unwrap();
        plain.interaction = None;
        let model = model_of(&plain);
        assert!(model.scales.iter().chain(&model.vectors).all(|&x| x == 0.0));
        assert_eq!(
            quantise_model(&model, false).unwrap().to_bytes(),
            plain.to_bytes()
        );
    }

    #[test]
    fn models_for_another_layout_are_refused() {
        let layout = layout();
        let record = FmModelRecord {
            pattern_set: layout.pattern_set_id ^ 1,
            entries: layout.total,
            dim: 8,
            bias: vec![0.0],
            tables: vec![vec![0.0; layout.total]],
            scales: vec![0.0],
            vectors: vec![0.0; layout.total * 8],
        };
        let error = quantise_model(&record, false).unwrap_err().to_string();
        assert!(error.contains("pattern set"), "{error}");
        let wide = FmModelRecord {
            pattern_set: layout.pattern_set_id,
            dim: MAX_INTERACTION_DIM + 1,
            vectors: vec![0.0; layout.total * (MAX_INTERACTION_DIM + 1)],
            ..record
        };
        let error = quantise_model(&wide, false).unwrap_err().to_string();
        assert!(error.contains("17 wide"), "{error}");
    }
}
