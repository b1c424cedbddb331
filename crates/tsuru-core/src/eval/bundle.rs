//! The evaluation bundle: an evaluation together with the search statistics measured for it.
//!
//! The midgame Multi-ProbCut ([`ProbCutTable`]) and the solver's selective passes
//! ([`EndgameCuts`]) predict deep values from shallow searches with one evaluation; with other
//! weights the predictions are wrong. So the evaluation and its statistics travel together:
//! an [`EvalBundle`] holds the evaluation, the identity of its weights ([`EvalId`]) and the
//! statistics, and refuses statistics recorded for other weights. The [`crate::search::Search`]
//! owns a bundle and hands its solver a shared handle to the same one; nothing on a search
//! path reads a global evaluation.
//!
//! Where statistics come from:
//!
//! * the shipped bundle ([`EvalBundle::shipped`]): the compiled-in weights
//!   (`src/eval/weights.tsw` with the term `src/eval/term.tsi`, identified by the term's
//!   checksum) with `src/eval/probcut.txt` and `src/eval/probcut-endgame.txt`;
//! * a weights file `X` ([`EvalBundle::from_file`]): the sidecar files `X.probcut` (midgame)
//!   and `X.probcut-endgame` (solver), as `tsuru probcut --eval-file X --out X.probcut` and
//!   `tsuru probcut --eval-file X --endgame VALIDATION --out X.probcut-endgame` write them.
//!   A missing sidecar leaves that part out: the search then runs without it (no midgame
//!   ProbCut, or no selective passes before an exact solve), and loading says so on stderr
//!   (`log::warn!`, once per file however often it is loaded); a sidecar of other weights is
//!   an error, never replaced by the statistics of other weights;
//! * evaluation v1 ([`EvalBundle::v1`]): no statistics at all (said once, likewise).

use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::{bail, ensure, Context, Result};

use super::pattern::{PatternEval, WeightsId};
use super::probcut::{EndgameCuts, ProbCutTable, SHIPPED, SHIPPED_ENDGAME};
#[cfg(test)]
use super::SHIPPED_WEIGHTS;
use super::{Evaluation, SeedsEval, SHIPPED_TERM};
use crate::board::Board;
use crate::score::Score;

/// Suffix of the midgame statistics file beside a weights file.
pub const PROBCUT_SUFFIX: &str = ".probcut";

/// Suffix of the endgame statistics file beside a weights file.
pub const ENDGAME_SUFFIX: &str = ".probcut-endgame";

/// Which evaluation a bundle holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvalId {
    /// Pattern weights, named by their file checksum.
    Weights(WeightsId),
    /// Evaluation v1 ([`SeedsEval`]), which has no weights.
    V1,
}

/// The evaluation itself, statically dispatched (the solver's move ordering calls it at
/// every leaf of its shallow searches).
#[derive(Clone)]
pub enum Evaluator {
    /// The trained pattern evaluation.
    Patterns(PatternEval),
    /// Evaluation v1.
    V1(SeedsEval),
}

impl Evaluator {
    /// The pattern evaluation, if this is it.
    #[inline]
    pub fn patterns(&self) -> Option<&PatternEval> {
        match self {
            Evaluator::Patterns(eval) => Some(eval),
            Evaluator::V1(_) => None,
        }
    }
}

impl Evaluation for Evaluator {
    #[inline]
    fn evaluate(&self, board: &Board) -> Score {
        match self {
            Evaluator::Patterns(eval) => eval.evaluate(board),
            Evaluator::V1(eval) => eval.evaluate(board),
        }
    }

    #[inline]
    fn evaluate_with_moves(&self, board: &Board, moves: u64) -> Score {
        match self {
            Evaluator::Patterns(eval) => eval.evaluate_with_moves(board, moves),
            Evaluator::V1(eval) => eval.evaluate(board),
        }
    }
}

/// An evaluation with the statistics measured for it (see the module doc). Cloning is cheap:
/// the tables are shared.
#[derive(Clone)]
pub struct EvalBundle {
    eval: Evaluator,
    id: EvalId,
    /// Where the evaluation came from, for messages.
    source: String,
    probcut: Option<Arc<ProbCutTable>>,
    endgame: Option<Arc<EndgameCuts>>,
}

impl EvalBundle {
    /// A bundle of pattern weights `id` read from `source` with the statistics given; error
    /// if a table was measured for other weights.
    pub fn new(
        eval: PatternEval,
        id: WeightsId,
        source: &str,
        probcut: Option<ProbCutTable>,
        endgame: Option<EndgameCuts>,
    ) -> Result<EvalBundle> {
        let check = |kind: &str, measured: WeightsId| {
            ensure!(
                measured == id,
                "the {kind} statistics were measured for weights {measured}, not for {source} \
                 (weights {id}); measure them for these weights with \
                 `tsuru probcut --eval-file {source}`"
            );
            Ok(())
        };
        if let Some(table) = &probcut {
            check("midgame ProbCut", table.weights())?;
        }
        if let Some(cuts) = &endgame {
            check("endgame ProbCut", cuts.weights())?;
        }
        Ok(EvalBundle {
            eval: Evaluator::Patterns(eval),
            id: EvalId::Weights(id),
            source: source.to_string(),
            probcut: probcut.map(Arc::new),
            endgame: endgame.map(Arc::new),
        })
    }

    /// The compiled-in weights and statistics, loaded once.
    ///
    /// A compiled-in statistics file that names other weights is left out (said once on
    /// stderr) rather than used or fatal: that is the state of a build in the middle of
    /// shipping new weights, whose statistics are measured by this very build (`tsuru
    /// probcut`). The unit test `the_shipped_bundle_is_complete_and_tied_to_the_shipped_weights`
    /// fails on such a build, so none is released.
    pub fn shipped() -> EvalBundle {
        static SHIPPED_BUNDLE: OnceLock<EvalBundle> = OnceLock::new();
        SHIPPED_BUNDLE
            .get_or_init(|| Self::compiled_in(SHIPPED_TERM, SHIPPED, SHIPPED_ENDGAME))
            .clone()
    }

    /// [`Self::shipped`] from the bytes of a term file and the texts of its two statistics
    /// files, each of which is kept only if it names the term's weights.
    fn compiled_in(term: &[u8], probcut: &str, endgame: &str) -> EvalBundle {
        let (eval, id) = PatternEval::from_bytes(term).expect("the shipped weights load");
        let probcut = ProbCutTable::parse(probcut).expect("the shipped statistics parse");
        let endgame = EndgameCuts::parse(endgame).expect("the shipped statistics parse");
        let own = |kind: &str, measured: WeightsId| {
            if measured != id {
                log::warn!(
                    "the compiled-in {kind} statistics were measured for weights {measured}, \
                     not the compiled-in weights {id}: searching without them until `tsuru \
                     probcut` measures them again"
                );
            }
            measured == id
        };
        let probcut = Some(probcut).filter(|t| own("midgame ProbCut", t.weights()));
        let endgame = Some(endgame).filter(|c| own("endgame ProbCut", c.weights()));
        EvalBundle::new(eval, id, "the shipped weights", probcut, endgame)
            .expect("only statistics of the shipped weights are kept")
    }

    /// The weights file at `path` with the statistics of its sidecar files (see the module
    /// doc); error if the weights or an existing sidecar cannot be read, are damaged, or the
    /// sidecar belongs to other weights.
    pub fn from_file(path: &str) -> Result<EvalBundle> {
        let (eval, id) = Self::weights_from_file(path)?;
        let probcut = read_sidecar(path, PROBCUT_SUFFIX, ProbCutTable::parse)?;
        let endgame = read_sidecar(path, ENDGAME_SUFFIX, EndgameCuts::parse)?;
        let bundle = EvalBundle::new(eval, id, path, probcut, endgame)?;
        bundle.warn_missing_statistics();
        Ok(bundle)
    }

    /// The evaluation of the weights file at `path` and its identity (the one statistics
    /// files name); no statistics are read.
    pub fn weights_from_file(path: &str) -> Result<(PatternEval, WeightsId)> {
        PatternEval::from_file(path)
    }

    /// Evaluation v1, which has no statistics: searches with it run without Multi-ProbCut
    /// and solve without selective passes (said once on stderr).
    pub fn v1() -> EvalBundle {
        let bundle = EvalBundle {
            eval: Evaluator::V1(SeedsEval),
            id: EvalId::V1,
            source: "evaluation v1".to_string(),
            probcut: None,
            endgame: None,
        };
        bundle.warn_missing_statistics();
        bundle
    }

    /// The same evaluation with `table` as its midgame statistics (`tsuru probcut` searches
    /// selectively with the shallow depths' statistics to measure the deep ones); error if
    /// the table was measured for other weights.
    pub fn with_probcut(&self, table: ProbCutTable) -> Result<EvalBundle> {
        let EvalId::Weights(id) = self.id else {
            bail!("{} has no Multi-ProbCut statistics", self.source);
        };
        ensure!(
            table.weights() == id,
            "the midgame ProbCut statistics were measured for weights {}, not for {} (weights {id})",
            table.weights(),
            self.source
        );
        Ok(EvalBundle {
            probcut: Some(Arc::new(table)),
            ..self.clone()
        })
    }

    /// The same evaluation without statistics (what `tsuru probcut` measures them with).
    pub fn without_statistics(&self) -> EvalBundle {
        EvalBundle {
            probcut: None,
            endgame: None,
            ..self.clone()
        }
    }

    /// The evaluation.
    #[inline]
    pub fn evaluator(&self) -> &Evaluator {
        &self.eval
    }

    /// Which evaluation this is.
    pub fn id(&self) -> EvalId {
        self.id
    }

    /// The weights' identity (`None` for evaluation v1).
    pub fn weights_id(&self) -> Option<WeightsId> {
        match self.id {
            EvalId::Weights(id) => Some(id),
            EvalId::V1 => None,
        }
    }

    /// Where the evaluation came from: "the shipped weights", a path or "evaluation v1".
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The midgame Multi-ProbCut statistics, if the bundle has them.
    #[inline]
    pub fn probcut(&self) -> Option<&ProbCutTable> {
        self.probcut.as_deref()
    }

    /// The statistics of the solver's selective passes, if the bundle has them.
    #[inline]
    pub fn endgame_cuts(&self) -> Option<&EndgameCuts> {
        self.endgame.as_deref()
    }

    /// Says on stderr (`log::warn!`) which statistics are missing and what the search does
    /// without them, the first time for each source; nothing for a complete bundle.
    fn warn_missing_statistics(&self) {
        // The engine builds its evaluation twice (to check the option, then for the
        // session): one warning is enough.
        static WARNED: Mutex<Vec<String>> = Mutex::new(Vec::new());
        let complete = self.probcut.is_some() && self.endgame.is_some();
        let mut warned = WARNED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if complete || warned.contains(&self.source) {
            return;
        }
        warned.push(self.source.clone());
        let parts = [
            (
                self.probcut.is_none(),
                "midgame",
                PROBCUT_SUFFIX,
                "searching without Multi-ProbCut",
            ),
            (
                self.endgame.is_none(),
                "endgame",
                ENDGAME_SUFFIX,
                "solving without selective passes",
            ),
        ];
        for (missing, kind, suffix, consequence) in parts {
            if !missing {
                continue;
            }
            let hint = match self.id {
                EvalId::Weights(_) => format!(" (no {}{suffix})", self.source),
                EvalId::V1 => String::new(),
            };
            log::warn!(
                "{}: no {kind} ProbCut statistics{hint}; {consequence}",
                self.source
            );
        }
    }
}

/// The statistics in the file `path` + `suffix`, `None` if there is no such file.
fn read_sidecar<T>(
    path: &str,
    suffix: &str,
    parse: impl Fn(&str) -> Result<T>,
) -> Result<Option<T>> {
    let sidecar = format!("{path}{suffix}");
    if !Path::new(&sidecar).exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&sidecar).with_context(|| format!("reading {sidecar}"))?;
    let table = parse(&text).with_context(|| format!("loading {sidecar}"))?;
    Ok(Some(table))
}

/// Writes the shipped weights with every bias moved by `shift` units as `dir/w.tsw` (other
/// weights than the shipped ones, valued differently), and returns the path (tests of the
/// loaders).
#[cfg(any(test, feature = "testkit"))]
pub fn write_shifted_weights(dir: &std::path::Path, shift: i16) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("w.tsw").to_str().unwrap().to_string();
    let mut weights =
        crate::eval::pattern::Weights::from_bytes(crate::eval::SHIPPED_WEIGHTS).unwrap();
    for bias in &mut weights.bias {
        *bias += shift;
    }
    std::fs::write(&path, weights.to_bytes()).unwrap();
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_bundle_is_complete_and_tied_to_the_shipped_weights() {
        let bundle = EvalBundle::shipped();
        // The tables with the term: the term file's identity, the two evaluated together.
        let id = crate::formats::weights::stored_checksum(SHIPPED_TERM).map(WeightsId);
        assert_ne!(
            id.map(|id| id.0),
            crate::eval::pattern::Weights::file_id(SHIPPED_WEIGHTS)
        );
        assert_eq!(bundle.weights_id(), id);
        let (weights, _) =
            crate::eval::pattern::Weights::with_term_file(SHIPPED_WEIGHTS, SHIPPED_TERM).unwrap();
        assert!(weights.interaction.is_some());
        let mut rng = crate::rng::Rng::new(11);
        for plies in [8, 24, 40] {
            let board = crate::eval::pattern::random_board(&mut rng, plies);
            let definition = weights.value_by_definition(&board);
            let raw = bundle.evaluator().patterns().unwrap().raw(&board);
            assert!(
                (i64::from(raw) - definition).abs()
                    <= crate::eval::pattern::Interaction::FOLDING_ERROR
            );
        }
        assert_eq!(bundle.probcut().map(|t| t.weights()), id);
        assert_eq!(bundle.endgame_cuts().map(|c| c.weights()), id);
        let bare = bundle.without_statistics();
        assert!(bare.probcut().is_none() && bare.endgame_cuts().is_none());
        assert_eq!(bare.weights_id(), id);
    }

    #[test]
    fn compiled_in_statistics_of_other_weights_are_left_out_not_fatal() {
        // The state of a build that ships new weights before measuring their statistics.
        let id = EvalBundle::shipped().weights_id().unwrap();
        let stale = |text: &str| {
            let line = format!("weights {id}");
            assert!(text.contains(&line));
            text.replace(&line, &format!("weights {}", WeightsId(id.0 ^ 1)))
        };
        let endgame_stale = EvalBundle::compiled_in(SHIPPED_TERM, SHIPPED, &stale(SHIPPED_ENDGAME));
        assert_eq!(endgame_stale.weights_id(), Some(id));
        assert_eq!(endgame_stale.probcut(), EvalBundle::shipped().probcut());
        assert!(endgame_stale.endgame_cuts().is_none());
        let both_stale =
            EvalBundle::compiled_in(SHIPPED_TERM, &stale(SHIPPED), &stale(SHIPPED_ENDGAME));
        assert!(both_stale.probcut().is_none() && both_stale.endgame_cuts().is_none());
        assert_eq!(both_stale.weights_id(), Some(id));
    }

    #[test]
    fn a_weights_file_loads_under_its_own_identity() {
        let dir = std::env::temp_dir().join(format!("tsuru-bundle-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.tsw");
        let path = path.to_str().unwrap();
        std::fs::write(path, SHIPPED_WEIGHTS).unwrap();
        let (plain, plain_id) = EvalBundle::weights_from_file(path).unwrap();
        assert_eq!(
            Some(plain_id.0),
            crate::eval::pattern::Weights::file_id(SHIPPED_WEIGHTS)
        );
        // The shipped term file alone loads as the shipped evaluation.
        let term = dir.join("t.tsi");
        std::fs::write(&term, SHIPPED_TERM).unwrap();
        let (_, term_id) = EvalBundle::weights_from_file(term.to_str().unwrap()).unwrap();
        assert_eq!(Some(term_id), EvalBundle::shipped().weights_id());
        write_shifted_weights(&dir, 100);
        // Other weights: another identity, the one the engine's loader gives them too.
        let (shifted, id) = EvalBundle::weights_from_file(path).unwrap();
        assert_ne!(id, plain_id);
        assert_eq!(EvalBundle::from_file(path).unwrap().weights_id(), Some(id));
        let board = crate::board::Board::start();
        assert_eq!(shifted.raw(&board), plain.raw(&board) + 100);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn statistics_of_other_weights_are_refused() {
        let shipped = EvalBundle::shipped();
        let Evaluator::Patterns(eval) = shipped.evaluator().clone() else {
            panic!("the shipped evaluation is the pattern one");
        };
        let id = shipped.weights_id().unwrap();
        let other = WeightsId(id.0 ^ 1);
        let table = shipped.probcut().unwrap().clone();
        let cuts = shipped.endgame_cuts().unwrap().clone();
        assert!(EvalBundle::new(eval.clone(), id, "x", Some(table.clone()), None).is_ok());
        let err = EvalBundle::new(eval.clone(), other, "x.tsw", Some(table), None)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("measured for weights") && err.contains("x.tsw"),
            "{err}"
        );
        assert!(EvalBundle::new(eval, other, "x", None, Some(cuts)).is_err());
        let v1 = EvalBundle::v1();
        assert_eq!(v1.id(), EvalId::V1);
        assert!(v1.probcut().is_none() && v1.endgame_cuts().is_none());
    }
}
