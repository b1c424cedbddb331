//! Multi-ProbCut's statistics: a shallow search predicts a deep one, so a node whose shallow
//! value is far enough outside the window is cut without the deep search. They are data about
//! an evaluation (measured for one set of weights), so they live here; the midgame search
//! (`search::alphabeta`) and the solver's selective passes apply them.
//!
//! For a depth `d` the search first looks `shallow_depth(d)` plies deep. Over many positions
//! the two values are related by `deep = slope * shallow + intercept + error`, with the error
//! roughly normal with deviation `sigma`; the statistics are measured per game stage and depth
//! by `tsuru probcut` for one evaluation's weights and travel with them in its
//! [`crate::eval::bundle::EvalBundle`] (the shipped ones are `src/eval/probcut.txt`). With a
//! confidence factor `t`, a
//! null-window node at `beta` is cut high when the shallow search proves
//! `shallow >= (beta + t * sigma - intercept) / slope`, and cut low symmetrically at alpha.
//! `t = 1.1` (the default) leaves about one cut in seven wrong, `t = 1.5` one in fifteen.
//!
//! # Statistics file
//!
//! Text, one record a line, `#` starting a comment. The `weights` line names the weights the
//! statistics were measured for (their [`WeightsId`]); it is required, and a bundle refuses
//! statistics of other weights.
//!
//! ```text
//! weights 5f3a91c2
//! stages 15
//! # stage depth shallow slope intercept sigma samples   (intercept and sigma in discs)
//! 3 4 2 0.981 0.120 2.310 2000
//! ```

use anyhow::{bail, ensure, Context, Result};

use super::pattern::{stage_of, WeightsId};
use crate::score::UNITS_PER_DISC;

/// The shipped statistics, measured by `tsuru probcut` with the shipped evaluation.
pub const SHIPPED: &str = include_str!("probcut.txt");

/// The line of a statistics file that names the weights it was measured for (both kinds of
/// file; `tsuru probcut` writes it, the parsers require it).
pub fn weights_line(weights: WeightsId) -> String {
    format!("weights {weights}\n")
}

/// Reads the value of a `weights` line (`words[0] == "weights"`) into `slot`, refusing a
/// second one.
fn read_weights_line(words: &[&str], slot: &mut Option<WeightsId>) -> Result<()> {
    ensure!(slot.is_none(), "weights given twice");
    ensure!(words.len() == 2, "expected `weights CHECKSUM`");
    *slot = Some(words[1].parse()?);
    Ok(())
}

/// Smallest depth a cut is tried at.
pub const MIN_DEPTH: u32 = 2;

/// Deepest depth whose statistics `tsuru probcut` measures without selectivity; the deeper
/// ones compare two selective searches (a full-width search that deep is out of reach).
pub const FULL_WIDTH_DEPTH: u32 = 10;

/// Largest depth with its own statistics; deeper searches use this depth's.
pub const MAX_DEPTH: u32 = 20;

/// The confidence factor of the selective searches that measure the statistics of depths
/// above [`FULL_WIDTH_DEPTH`] (`tsuru probcut`): the shipped statistics were measured at 1.25,
/// the default before 1.1 won its match, and stay reproducible with it.
pub const MEASURE_CONFIDENCE: f32 = 1.25;

/// The depth of the shallow search that predicts a search of `depth` plies: about a
/// quarter of it, with the same parity (odd and even depths differ in who moves last); the
/// static evaluation (0 plies) for 2.
pub fn shallow_depth(depth: u32) -> u32 {
    2 * (depth / 4) + depth % 2
}

/// One depth's prediction in one stage, in score units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cut {
    /// Depth of the predicting search.
    pub shallow: u32,
    /// `deep ~ slope * shallow + intercept`.
    pub slope: f32,
    /// In score units.
    pub intercept: f32,
    /// Deviation of the prediction error, in score units.
    pub sigma: f32,
}

/// Statistics for every stage and depth from [`MIN_DEPTH`] to [`MAX_DEPTH`], measured for
/// one weights file.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbCutTable {
    weights: WeightsId,
    stages: usize,
    cuts: Vec<Option<Cut>>,
}

impl ProbCutTable {
    /// A table for `weights` with no statistics yet (no cut is ever tried).
    pub fn empty(stages: usize, weights: WeightsId) -> ProbCutTable {
        ProbCutTable {
            weights,
            stages: stages.max(1),
            cuts: vec![None; stages.max(1) * (MAX_DEPTH as usize + 1)],
        }
    }

    /// The weights the statistics were measured for.
    pub fn weights(&self) -> WeightsId {
        self.weights
    }

    /// Number of stages.
    pub fn stages(&self) -> usize {
        self.stages
    }

    /// The prediction for a search of `depth` plies from a position with `empties` empties:
    /// the statistics of the deepest depth measured for its stage up to `depth` (so depths
    /// above [`MAX_DEPTH`], or above what a stage's positions allowed, use the deepest
    /// ones); `None` if none was.
    #[inline]
    pub fn get(&self, empties: u32, depth: u32) -> Option<Cut> {
        if depth < MIN_DEPTH {
            return None;
        }
        let stage = stage_of(empties, self.stages);
        let row = &self.cuts[stage * (MAX_DEPTH as usize + 1)..][..MAX_DEPTH as usize + 1];
        let mut cut = row[MIN_DEPTH as usize..=depth.min(MAX_DEPTH) as usize]
            .iter()
            .rev()
            .find_map(|cut| *cut)?;
        // Beyond the measured depths the predicting search keeps its rule (a quarter of the
        // depth), so the gap between the two grows slowly and the deepest measured
        // statistics stay a fair guess (measured from 11 to 20 plies, sigma does not grow
        // with the depth: docs/results.md).
        cut.shallow = shallow_depth(depth);
        Some(cut)
    }

    /// Sets a stage's statistics for a depth (values in discs).
    pub fn set(&mut self, stage: usize, depth: u32, slope: f64, intercept: f64, sigma: f64) {
        let index = stage * (MAX_DEPTH as usize + 1) + depth as usize;
        self.cuts[index] = Some(Cut {
            shallow: shallow_depth(depth),
            slope: slope as f32,
            intercept: (intercept * UNITS_PER_DISC as f64) as f32,
            sigma: (sigma * UNITS_PER_DISC as f64) as f32,
        });
    }

    /// Reads the statistics file format (see the module doc).
    pub fn parse(text: &str) -> Result<ProbCutTable> {
        let mut weights = None;
        let mut table: Option<ProbCutTable> = None;
        for (number, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let context = || format!("probcut statistics line {}", number + 1);
            let words: Vec<&str> = line.split_whitespace().collect();
            if words[0] == "weights" {
                read_weights_line(&words, &mut weights).with_context(context)?;
                continue;
            }
            if words[0] == "stages" {
                ensure!(table.is_none(), "{}: stages given twice", context());
                ensure!(words.len() == 2, "{}: expected `stages N`", context());
                let stages: usize = words[1].parse().with_context(context)?;
                ensure!((1..=60).contains(&stages), "{}: 1 to 60 stages", context());
                let Some(weights) = weights else {
                    bail!("{}: `stages N` before `weights CHECKSUM`", context());
                };
                table = Some(ProbCutTable::empty(stages, weights));
                continue;
            }
            let Some(table) = table.as_mut() else {
                bail!("{}: a record before `stages N`", context());
            };
            ensure!(words.len() == 7, "{}: expected 7 fields", context());
            let stage: usize = words[0].parse().with_context(context)?;
            let depth: u32 = words[1].parse().with_context(context)?;
            let shallow: u32 = words[2].parse().with_context(context)?;
            let (slope, intercept, sigma) = parse_fit(&words[3..6]).with_context(context)?;
            ensure!(stage < table.stages, "{}: no stage {stage}", context());
            ensure!(
                (MIN_DEPTH..=MAX_DEPTH).contains(&depth),
                "{}: depth outside {MIN_DEPTH}..={MAX_DEPTH}",
                context()
            );
            ensure!(
                shallow == shallow_depth(depth),
                "{}: depth {depth} is predicted from {}, not {shallow}",
                context(),
                shallow_depth(depth)
            );
            table.set(stage, depth, slope, intercept, sigma);
        }
        table.context("probcut statistics: no `stages N` line")
    }
}

/// Whether a fit `deep = slope * shallow + intercept` with residual deviation `sigma` (discs)
/// is one the engine accepts: the rule statistics files are read with, and the one
/// `tsuru probcut` leaves a noisy stage's fit out by.
pub fn plausible(slope: f64, intercept: f64, sigma: f64) -> bool {
    slope > 0.2 && slope < 5.0 && sigma > 0.0 && sigma < 64.0 && intercept.abs() < 64.0
}

/// The `slope intercept sigma` fields of a record (intercept and sigma in discs), checked to
/// be plausible ([`plausible`]).
fn parse_fit(words: &[&str]) -> Result<(f64, f64, f64)> {
    let numbers: Vec<f64> = words
        .iter()
        .map(|w| w.parse::<f64>())
        .collect::<std::result::Result<_, _>>()?;
    let [slope, intercept, sigma] = numbers[..] else {
        bail!("expected slope, intercept and sigma");
    };
    ensure!(plausible(slope, intercept, sigma), "implausible statistics");
    Ok((slope, intercept, sigma))
}

/// The shipped endgame statistics, measured by `tsuru probcut --endgame` on the exact values
/// of the validation set.
pub const SHIPPED_ENDGAME: &str = include_str!("probcut-endgame.txt");

/// Deepest shallow search with endgame statistics.
pub const MAX_ENDGAME_SHALLOW: u32 = 8;

/// How the exact (end-of-game) value of a position relates to a shallow search of it, for
/// each number of empties measured and each shallow depth from 0 to [`MAX_ENDGAME_SHALLOW`].
///
/// File format: text, one record a line, `#` starting a comment, with the required
/// `weights` line as in the midgame file ([`ProbCutTable`]):
///
/// ```text
/// weights 5f3a91c2
/// # empties shallow slope intercept sigma samples   (intercept and sigma in discs)
/// 24 6 1.1199 0.5710 5.3164 1000
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct EndgameCuts {
    /// The weights the statistics were measured for.
    weights: WeightsId,
    /// Measured empties counts, ascending, with their cuts by shallow depth.
    rows: Vec<(u32, [Option<Cut>; MAX_ENDGAME_SHALLOW as usize + 1])>,
    /// For each count of empties, the index in `rows` of the row it uses (see [`Self::get`]),
    /// `NO_ROW` below the smallest measured count.
    row_of_empties: [u8; 61],
}

/// [`EndgameCuts::row_of_empties`]'s mark for a count of empties without statistics.
const NO_ROW: u8 = u8::MAX;

impl EndgameCuts {
    /// The weights the statistics were measured for.
    pub fn weights(&self) -> WeightsId {
        self.weights
    }

    /// The prediction of the exact value of a position with `empties` empties from a search
    /// `shallow` plies deep: the statistics of the largest measured empties count not above
    /// `empties` of the same parity, or where none has that parity, of the largest not above
    /// it (the error does not grow with the empties in the measured range, 14 to 24, but the
    /// intercept is higher at odd counts than at even ones); `None` below the smallest.
    #[inline]
    pub fn get(&self, empties: u32, shallow: u32) -> Option<Cut> {
        let row = *self.row_of_empties.get(empties as usize)?;
        if row == NO_ROW {
            return None;
        }
        self.rows[row as usize]
            .1
            .get(shallow as usize)
            .copied()
            .flatten()
    }

    /// [`Self::row_of_empties`] for `rows`: the rule [`Self::get`] states.
    fn rows_of_empties(
        rows: &[(u32, [Option<Cut>; MAX_ENDGAME_SHALLOW as usize + 1])],
    ) -> [u8; 61] {
        let mut row_of_empties = [NO_ROW; 61];
        for (empties, slot) in row_of_empties.iter_mut().enumerate() {
            let empties = empties as u32;
            let below = |same_parity: bool| {
                rows.iter()
                    .rposition(|(n, _)| *n <= empties && (!same_parity || n % 2 == empties % 2))
            };
            if let Some(row) = below(true).or_else(|| below(false)) {
                *slot = row as u8;
            }
        }
        row_of_empties
    }

    /// Reads the file format (see the type's doc).
    pub fn parse(text: &str) -> Result<EndgameCuts> {
        let mut weights = None;
        let mut rows: Vec<(u32, [Option<Cut>; MAX_ENDGAME_SHALLOW as usize + 1])> = Vec::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let context = || format!("endgame probcut statistics line {}", number + 1);
            let words: Vec<&str> = line.split_whitespace().collect();
            if words[0] == "weights" {
                read_weights_line(&words, &mut weights).with_context(context)?;
                continue;
            }
            ensure!(words.len() == 6, "{}: expected 6 fields", context());
            let empties: u32 = words[0].parse().with_context(context)?;
            let shallow: u32 = words[1].parse().with_context(context)?;
            let (slope, intercept, sigma) = parse_fit(&words[2..5]).with_context(context)?;
            ensure!(
                (1..=60).contains(&empties) && shallow <= MAX_ENDGAME_SHALLOW,
                "{}: empties 1..=60 and shallow depth 0..={MAX_ENDGAME_SHALLOW}",
                context()
            );
            if rows.last().is_none_or(|row| row.0 != empties) {
                ensure!(
                    rows.last().is_none_or(|row| row.0 < empties),
                    "{}: empties must ascend",
                    context()
                );
                rows.push((empties, [None; MAX_ENDGAME_SHALLOW as usize + 1]));
            }
            let row = &mut rows.last_mut().expect("just pushed").1;
            row[shallow as usize] = Some(Cut {
                shallow,
                slope: slope as f32,
                intercept: (intercept * UNITS_PER_DISC as f64) as f32,
                sigma: (sigma * UNITS_PER_DISC as f64) as f32,
            });
        }
        ensure!(!rows.is_empty(), "endgame probcut statistics: no records");
        let weights = weights.context("endgame probcut statistics: no `weights CHECKSUM` line")?;
        let row_of_empties = Self::rows_of_empties(&rows);
        Ok(EndgameCuts {
            weights,
            rows,
            row_of_empties,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shallow_depths_keep_parity_and_shrink() {
        for depth in MIN_DEPTH..=30 {
            let shallow = shallow_depth(depth);
            assert!(shallow < depth, "{depth} -> {shallow}");
            assert_eq!(shallow % 2, depth % 2, "{depth} -> {shallow}");
        }
        assert_eq!(shallow_depth(2), 0);
        assert_eq!(shallow_depth(3), 1);
        assert_eq!(shallow_depth(8), 4);
    }

    #[test]
    fn parse_records_and_reject_bad_ones() {
        let table =
            ProbCutTable::parse("weights 0000abcd\nstages 15\n# comment\n3 8 4 0.9 -0.5 2.5 100\n")
                .unwrap();
        assert_eq!(table.stages(), 15);
        assert_eq!(table.weights(), WeightsId(0xabcd));
        // Stage 3 of 15 covers 48..=45 empties.
        let cut = table.get(46, 8).unwrap();
        assert_eq!(cut.shallow, 4);
        assert!((cut.slope - 0.9).abs() < 1e-6);
        assert!((cut.intercept + 50.0).abs() < 1e-3);
        assert!((cut.sigma - 250.0).abs() < 1e-3);
        assert_eq!(table.get(46, 7), None);
        assert_eq!(table.get(30, 8), None);
        for bad in [
            "3 8 4 0.9 -0.5 2.5 100\n",
            "stages 15\n3 8 4 0.9 -0.5 2.5 100\n",
            "weights 1\nstages 15\n3 8 4 0.9 -0.5 2.5 100\n",
            "weights 00000001\nweights 00000001\nstages 15\n",
            "stages 15\nweights 00000001\n3 8 4 0.9 -0.5 2.5 100\n",
        ] {
            assert!(ProbCutTable::parse(bad).is_err(), "{bad:?} was accepted");
        }
        for bad in [
            "3 8 4 0.9 -0.5 2.5 100\n",
            "stages 15\n3 8 3 0.9 -0.5 2.5 100\n",
            "stages 15\n3 2 1 0.9 -0.5 2.5 100\n",
            "stages 15\n15 8 4 0.9 -0.5 2.5 100\n",
            "stages 15\n3 8 4 0.9 -0.5 -2.5 100\n",
            "stages 15\n3 8 4 x -0.5 2.5 100\n",
            "stages 0\n",
            "",
        ] {
            let text = format!("weights 00000001\n{bad}");
            assert!(ProbCutTable::parse(&text).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn a_depth_without_statistics_uses_the_deepest_measured_below_it() {
        let table = ProbCutTable::parse(
            "weights 00000001\nstages 15\n3 8 4 0.9 -0.5 2.5 100\n3 12 6 1.1 0.5 3.5 100\n",
        )
        .unwrap();
        // Stage 3 of 15 covers 48..=45 empties. Depth 10 falls back to depth 8's fit, but
        // its predicting search keeps the rule for depth 10.
        let cut = table.get(46, 10).unwrap();
        assert_eq!(cut.shallow, shallow_depth(10));
        assert!((cut.slope - 0.9).abs() < 1e-6);
        assert!((cut.sigma - 250.0).abs() < 1e-3);
        let cut = table.get(46, 12).unwrap();
        assert_eq!(cut.shallow, 6);
        assert!((cut.slope - 1.1).abs() < 1e-6);
        assert!((cut.sigma - 350.0).abs() < 1e-3);
        // Beyond MAX_DEPTH: the deepest measured depth, 12.
        let cut = table.get(46, 25).unwrap();
        assert_eq!(cut.shallow, shallow_depth(25));
        assert!((cut.sigma - 350.0).abs() < 1e-3);
        // Nothing measured at or below depth 7.
        assert_eq!(table.get(46, 7), None);
    }

    #[test]
    fn shipped_statistics_cover_every_stage_where_midgame_searches_run() {
        let bundle = crate::eval::bundle::EvalBundle::shipped();
        let table = bundle.probcut().expect("shipped statistics");
        for empties in 20..=56 {
            for depth in MIN_DEPTH..=MAX_DEPTH {
                let cut = table.get(empties, depth);
                assert!(
                    cut.is_some(),
                    "no statistics at {empties} empties, depth {depth}"
                );
            }
        }
    }

    #[test]
    fn endgame_records_parse_and_bad_ones_are_rejected() {
        let cuts = EndgameCuts::parse(
            "# c\n14 2 1.1 1.2 9.0 1000\nweights 12345678\n20 2 1.0 -0.5 6.0 120 # x\n",
        )
        .unwrap();
        assert_eq!(cuts.weights(), WeightsId(0x1234_5678));
        let cut = cuts.get(14, 2).unwrap();
        assert!((cut.slope - 1.1).abs() < 1e-6 && (cut.sigma - 900.0).abs() < 1e-3);
        // The largest measured empties count not above the asked one, of its parity where
        // there is one: 14 for 19 (no odd row), 20 for 30.
        assert!((cuts.get(19, 2).unwrap().sigma - 900.0).abs() < 1e-3);
        assert!((cuts.get(30, 2).unwrap().intercept + 50.0).abs() < 1e-3);
        assert_eq!(cuts.get(13, 2), None);
        assert_eq!(cuts.get(61, 2), None);
        let by_parity = EndgameCuts::parse(
            "weights 12345678\n14 2 1.0 1.0 9.0 10\n15 2 1.0 3.0 9.0 10\n16 2 1.0 2.0 9.0 10\n",
        )
        .unwrap();
        let intercept =
            |empties| by_parity.get(empties, 2).unwrap().intercept / UNITS_PER_DISC as f32;
        assert_eq!(
            [14, 15, 16, 17, 18, 25, 60].map(intercept),
            [1.0, 3.0, 2.0, 3.0, 2.0, 3.0, 2.0]
        );
        assert_eq!(cuts.get(20, 3), None);
        for bad in [
            "",
            "14 2 1.1 1.2 9.0\n",
            "14 9 1.1 1.2 9.0 10\n",
            "14 2 1.1 1.2 -9.0 10\n",
            "20 2 1.1 1.2 9.0 10\n14 2 1.1 1.2 9.0 10\n",
            "14 x 1.1 1.2 9.0 10\n",
        ] {
            let text = format!("weights 00000001\n{bad}");
            assert!(EndgameCuts::parse(&text).is_err(), "{bad:?} was accepted");
        }
        // Without the weights line, or with a bad one, sound records are refused too.
        for bad in [
            "14 2 1.1 1.2 9.0 10\n",
            "weights xyz\n14 2 1.1 1.2 9.0 10\n",
        ] {
            assert!(EndgameCuts::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn shipped_endgame_statistics_cover_every_shallow_depth_from_14_empties() {
        let bundle = crate::eval::bundle::EvalBundle::shipped();
        let cuts = bundle.endgame_cuts().expect("shipped statistics");
        for empties in 14..=60 {
            for shallow in 0..=MAX_ENDGAME_SHALLOW {
                let cut = cuts.get(empties, shallow);
                assert!(cut.is_some_and(|c| c.shallow == shallow && c.sigma > 0.0));
            }
        }
    }
}
