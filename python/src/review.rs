//! `tsuru.review` and `tsuru.Review`: a game reviewed in-process, as `tsuru review` does it
//! (tsuru-core's [`tsuru_core::review`]): each position searched from the last, each move's
//! value, best move, loss and mark, each player's error total and the decisive move. A
//! `Review` shows its value graph in Jupyter (`_repr_svg_`, the graph of `--svg`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use tsuru_core::board::{notation, Board, Move};
use tsuru_core::formats::ggf::GgfGame;
use tsuru_core::review::{self as core_review, graph, GameRecord, MoveReview, Review};
use tsuru_core::search::Search;

use crate::board::{color_object, illegal_move, move_number, parse_move, PyBoard};
use crate::search::{level_setting, move_time, search_config, Stop};

/// One reviewed move: who played what, what it was worth, the best move and what the move
/// played gave away.
#[pyclass(module = "tsuru", name = "MoveReview", frozen, get_all)]
pub struct PyMoveReview {
    /// The move's number in the game, from 1 (forced passes count, as moves of the record).
    pub number: usize,
    /// Who played it (``tsuru.othello.Color``).
    pub color: Py<PyAny>,
    /// The move played (a square 0..63).
    #[pyo3(name = "move")]
    pub mv: u32,
    /// What the move played is worth to its player, in discs.
    pub value: f64,
    /// The best move of the position (by the search; exact where ``exact``).
    pub best: u32,
    /// What the best move is worth to the player, in discs.
    pub best_value: f64,
    /// The discs the move gave away: ``best_value - value``, never below zero.
    pub loss: f64,
    /// Whether ``value`` and ``best_value`` (and so ``loss``) are exact.
    pub exact: bool,
    /// ``"best"`` (lost under 1 disc), ``"inaccuracy"`` (1 to under 4), ``"mistake"`` (4 to
    /// under 8) or ``"blunder"`` (8 or more).
    pub mark: &'static str,
    /// The player's chances ``(win, draw, loss)`` after the move, from its value (certain
    /// where the value is exact), as ``SearchResult.win_probability``.
    pub win_probability: (f64, f64, f64),
}

impl PyMoveReview {
    fn new(py: Python<'_>, m: &MoveReview) -> PyResult<PyMoveReview> {
        Ok(PyMoveReview {
            number: m.number,
            color: color_object(py, m.color)?,
            mv: move_number(m.played),
            value: m.value,
            best: move_number(m.best),
            best_value: m.best_value,
            loss: m.loss,
            exact: m.exact,
            mark: m.mark.name(),
            win_probability: (m.chances.win, m.chances.draw, m.chances.loss),
        })
    }
}

/// A move's name for `repr`: `f5`, or `pass`.
fn name(mv: u32) -> String {
    match mv {
        64 => "pass".to_string(),
        n => tsuru_core::board::Square::new(n as usize).map_or(n.to_string(), |s| s.lower()),
    }
}

#[pymethods]
impl PyMoveReview {
    /// The record as a dict of its fields (``move`` and ``best`` as squares, ``color`` as the
    /// ``Color`` member).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("number", self.number)?;
        dict.set_item("color", self.color.clone_ref(py))?;
        dict.set_item("move", self.mv)?;
        dict.set_item("value", self.value)?;
        dict.set_item("best", self.best)?;
        dict.set_item("best_value", self.best_value)?;
        dict.set_item("loss", self.loss)?;
        dict.set_item("exact", self.exact)?;
        dict.set_item("mark", self.mark)?;
        dict.set_item("win_probability", self.win_probability)?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        format!(
            "MoveReview(number={}, move={}, value={:?}, best={}, best_value={:?}, loss={:?}, \
             mark='{}', exact={})",
            self.number,
            name(self.mv),
            self.value,
            name(self.best),
            self.best_value,
            self.loss,
            self.mark,
            if self.exact { "True" } else { "False" }
        )
    }
}

/// The move that decided the game: the last move that changed its result (a win, a draw or
/// a loss for Black) as the values judge it.
#[pyclass(module = "tsuru", name = "Decisive", frozen, get_all)]
pub struct PyDecisive {
    /// The move's number in the game.
    pub number: usize,
    /// The move's index in ``Review.moves``.
    pub index: usize,
    /// Black's result before the move: 1 a win, 0 a draw, -1 a loss.
    pub before: i32,
    /// Black's result after the move.
    pub after: i32,
    /// Whether both values are exact.
    pub exact: bool,
}

#[pymethods]
impl PyDecisive {
    fn __repr__(&self) -> String {
        format!(
            "Decisive(number={}, index={}, before={}, after={}, exact={})",
            self.number,
            self.index,
            self.before,
            self.after,
            if self.exact { "True" } else { "False" }
        )
    }
}

/// A reviewed game: a :class:`MoveReview` a move played (forced passes are no choice and
/// are left out), in game order, with each player's error total and the decisive move.
/// ``len``, indexing and iteration go over the moves; in Jupyter it shows the value graph.
#[pyclass(module = "tsuru", name = "Review", frozen)]
pub struct PyReview {
    record: GameRecord,
    review: Review,
    moves: Vec<Py<PyMoveReview>>,
}

#[pymethods]
impl PyReview {
    /// The reviewed moves, in game order.
    #[getter]
    fn moves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.moves.iter().map(|m| m.clone_ref(py)))
    }

    /// Black's and White's error totals: the sum of their moves' losses, in discs.
    #[getter]
    fn error_totals(&self) -> (f64, f64) {
        (self.review.error_totals[0], self.review.error_totals[1])
    }

    /// The move that decided the game (:class:`Decisive`), or ``None`` when no move changed
    /// the result the start already had.
    #[getter]
    fn decisive(&self) -> Option<PyDecisive> {
        self.review.decisive.as_ref().map(|d| PyDecisive {
            number: self.review.moves[d.index].number,
            index: d.index,
            before: d.before,
            after: d.after,
            exact: d.exact,
        })
    }

    /// The value of the game's first position for Black, in discs.
    #[getter]
    fn start_value(&self) -> f64 {
        self.review.start_value
    }

    /// Black's final disc difference, or ``None`` for a game that did not end.
    #[getter]
    fn result(&self) -> Option<i32> {
        self.review.result
    }

    /// Every move of the game, forced passes included (64), as squares.
    #[getter]
    fn game(&self) -> Vec<u32> {
        self.record.moves.iter().copied().map(move_number).collect()
    }

    /// What the game is called in the graph's title: the transcript given, or the moves'.
    #[getter]
    fn name(&self) -> &str {
        &self.record.name
    }

    /// Black's and White's names, where a GGF record gives them.
    #[getter]
    fn players(&self) -> (Option<String>, Option<String>) {
        let [black, white] = self.record.players.clone();
        (black, white)
    }

    /// The reviewed moves as dicts (:meth:`MoveReview.to_dict`), one a move, for a table
    /// (``pandas.DataFrame(review.to_dicts())``).
    fn to_dicts<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.moves.iter().map(|m| m.get().to_dict(py)).collect()
    }

    /// The value graph as SVG, as ``tsuru review --svg`` writes it (without its XML
    /// declaration): the value for Black after each reviewed move, one
    /// ``<circle class="move COLOR MARK" data-move="N">`` a move. Jupyter shows it.
    fn _repr_svg_(&self) -> String {
        graph::svg_element(&self.record, &self.review)
    }

    fn __len__(&self) -> usize {
        self.moves.len()
    }

    /// The reviewed move at `index` (negative from the end), or a list for a slice.
    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        index: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let moves = self.moves(py)?;
        if let Ok(i) = index.extract::<isize>() {
            let len = self.moves.len() as isize;
            let at = if i < 0 { i + len } else { i };
            if !(0..len).contains(&at) {
                return Err(PyIndexError::new_err(format!(
                    "move index {i} out of range ({len} reviewed moves)"
                )));
            }
            return moves.get_item(at as usize);
        }
        moves.as_any().get_item(index)
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(self.moves(py)?.try_iter()?.into_any().unbind())
    }

    fn __repr__(&self) -> String {
        let [black, white] = self.review.error_totals;
        format!(
            "Review({} moves, error totals black {black:.1} white {white:.1}, {})",
            self.moves.len(),
            match self.review.result {
                Some(r) => format!("result {r:+}"),
                None => "not ended".to_string(),
            }
        )
    }
}

/// The game `game` stands for: a `Board` (the moves that led to it from its start), a GGF
/// record (text with `(;`), a transcript (`"f5d6c3"`), or a sequence of moves (squares or
/// names). An illegal move raises `IllegalMoveError` (a `ValueError`) naming it.
fn game_record(game: &Bound<'_, PyAny>) -> PyResult<GameRecord> {
    let py = game.py();
    let illegal = |err: anyhow::Error| illegal_move(py, format!("{err:#}"));
    if let Ok(board) = game.cast::<PyBoard>() {
        let board = board.borrow();
        let moves: Vec<Move> = board.board.history().collect();
        let name = notation::transcript(moves.iter().copied());
        return record(py, &board.start_board(), &moves, &name);
    }
    if game.is_instance_of::<PyString>() {
        let text: String = game.extract()?;
        if text.contains("(;") {
            let ggf = GgfGame::parse(&text).map_err(illegal)?;
            if ggf.moves().is_empty() {
                return Err(PyValueError::new_err("the game has no moves to review"));
            }
            let name = notation::transcript(ggf.moves().iter().map(|m| m.mv));
            return Ok(GameRecord::from_ggf(&ggf, &name));
        }
        let moves = notation::parse_transcript(text.trim()).map_err(|err| {
            illegal_move(py, format!("not a list of moves such as f5d6c3: {err:#}"))
        })?;
        return record(py, &Board::start(), &moves, &text);
    }
    let moves = game
        .try_iter()
        .map_err(|_| {
            PyValueError::new_err(
                "a game is a Board, a transcript, a GGF record or a list of moves",
            )
        })?
        .map(|item| parse_move(&item?))
        .collect::<PyResult<Vec<Move>>>()?;
    let name = notation::transcript(moves.iter().copied());
    record(py, &Board::start(), &moves, &name)
}

/// The game of `moves` from `start` called `name`: `ValueError` when there is no move,
/// `IllegalMoveError` naming the first illegal one.
fn record(py: Python<'_>, start: &Board, moves: &[Move], name: &str) -> PyResult<GameRecord> {
    if moves.is_empty() {
        return Err(PyValueError::new_err("the game has no moves to review"));
    }
    GameRecord::from_moves(start, moves, name).map_err(|err| illegal_move(py, format!("{err:#}")))
}

/// Reviews ``game`` and returns a :class:`Review`; see ``tsuru.review``'s documentation
/// (python/tsuru/_native.pyi).
#[pyfunction]
#[pyo3(signature = (game, *, level=None, time=None, threads=None, hash_mb=64, eval_file=None, stop=None))]
#[allow(clippy::too_many_arguments)]
pub fn review(
    py: Python<'_>,
    game: &Bound<'_, PyAny>,
    level: Option<i64>,
    time: Option<f64>,
    threads: Option<i64>,
    hash_mb: i64,
    eval_file: Option<&str>,
    stop: Option<PyRef<'_, Stop>>,
) -> PyResult<PyReview> {
    let record = game_record(game)?;
    let level = level.map(level_setting).transpose()?;
    let time = time.map(move_time).transpose()?;
    let request = core_review::request(level, time)
        .map_err(|err| PyValueError::new_err(format!("{err:#}")))?;
    let config = search_config(hash_mb, threads, eval_file)?;
    let flag = stop.map_or_else(|| Arc::new(AtomicBool::new(false)), |s| s.flag.clone());
    let review = py
        .detach(|| {
            let mut search = Search::new(config);
            core_review::review_game(&mut search, &request, &record, &flag, |_, _| {})
        })
        .map_err(|err| {
            // A stopped review is not a bad argument.
            let message = format!("{err:#}");
            if flag.load(Ordering::Relaxed) {
                PyRuntimeError::new_err(message)
            } else {
                PyValueError::new_err(message)
            }
        })?;
    let moves = review
        .moves
        .iter()
        .map(|m| Py::new(py, PyMoveReview::new(py, m)?))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyReview {
        record,
        review,
        moves,
    })
}
