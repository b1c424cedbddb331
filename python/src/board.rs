//! `tsuru.Board`: the engine's board (mailbox with flip stack) as a Python object.
//!
//! Moves cross the boundary as Python ints, as in `tsuru.othello`: a square `0..64` (`a1` =
//! 0, `h8` = 63) or [`PASS`] (64); a string (`"f5"`, `"pass"`) is accepted wherever a move
//! is taken. Colours come back as `tsuru.othello.Color` members.

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyString;

use tsuru_core::board::perft::perft;
use tsuru_core::board::{notation, Board, Color, Move, Square};

/// The pass move's number.
pub const PASS: u32 = 64;

/// A move's number on the Python side.
pub fn move_number(mv: Move) -> u32 {
    mv.square().map_or(PASS, |square| square.index() as u32)
}

/// A move from its Python form: an int `0..=64` or a name (`f5`, `F5`, `pass`, `pa`).
pub fn parse_move(value: &Bound<'_, PyAny>) -> PyResult<Move> {
    if value.is_instance_of::<PyString>() {
        let text: String = value.extract()?;
        return text
            .parse::<Move>()
            .map_err(|err| illegal_move(value.py(), format!("{err:#}")));
    }
    let number: i64 = value
        .extract()
        .map_err(|_| PyValueError::new_err("a move is an int 0..64 or a name like 'f5'"))?;
    match number {
        64 => Ok(Move::Pass),
        0..=63 => Ok(Move::Play(Square::new(number as usize).expect("in range"))),
        _ => Err(illegal_move(
            value.py(),
            format!("not a move: {number} (squares are 0..63, pass is 64)"),
        )),
    }
}

/// `tsuru.othello.IllegalMoveError` (a `ValueError`), so that `Board` and
/// `tsuru.othello.Position` (a wrapper of it) raise the same exception.
pub fn illegal_move(py: Python<'_>, message: String) -> PyErr {
    static CLASS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let class = CLASS.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py
            .import("tsuru.othello")?
            .getattr("IllegalMoveError")?
            .unbind())
    });
    match class.and_then(|class| class.bind(py).call1((message.clone(),))) {
        Ok(err) => PyErr::from_value(err),
        Err(_) => PyValueError::new_err(message),
    }
}

/// The `tsuru.othello.Color` member of `color`.
pub(crate) fn color_object(py: Python<'_>, color: Color) -> PyResult<Py<PyAny>> {
    static MEMBERS: PyOnceLock<[Py<PyAny>; 2]> = PyOnceLock::new();
    let members = MEMBERS.get_or_try_init(py, || -> PyResult<[Py<PyAny>; 2]> {
        let class = py.import("tsuru.othello")?.getattr("Color")?;
        Ok([
            class.getattr("BLACK")?.unbind(),
            class.getattr("WHITE")?.unbind(),
        ])
    })?;
    Ok(members[color.index()].clone_ref(py))
}

/// A colour from its Python form: a `Color` member or int (0 Black, 1 White) or a name
/// (`"black"`, `"X"`, `"w"`, ...).
fn parse_color(value: &Bound<'_, PyAny>) -> PyResult<Color> {
    if value.is_instance_of::<PyString>() {
        return value
            .extract::<String>()?
            .parse::<Color>()
            .map_err(|err| PyValueError::new_err(format!("{err:#}")));
    }
    match value.extract::<i64>() {
        Ok(0) => Ok(Color::Black),
        Ok(1) => Ok(Color::White),
        _ => Err(PyValueError::new_err(
            "a colour is Color.BLACK/WHITE, 0/1 or a name",
        )),
    }
}

/// An Othello position with the moves that led to it, in the engine's own representation.
///
/// ``Board()`` is the standard start; ``Board("<64 squares> X")`` a position in the
/// 64-character form (``X`` Black, ``O`` White, ``-`` empty, then the side to move);
/// ``Board(moves="f5d6c3")`` plays a transcript from the start (or from the given board).
/// Iterating over a board yields its legal moves. ``push`` plays a move and ``pop`` takes
/// the last one back exactly.
#[pyclass(module = "tsuru", name = "Board", from_py_object)]
#[derive(Clone)]
pub struct PyBoard {
    pub board: Board,
}

impl PyBoard {
    pub(crate) fn start_board(&self) -> Board {
        let mut start = self.board.clone();
        while start.undo().is_some() {}
        start
    }
}

#[pymethods]
impl PyBoard {
    #[new]
    #[pyo3(signature = (board=None, moves=None))]
    fn new(py: Python<'_>, board: Option<&str>, moves: Option<&str>) -> PyResult<PyBoard> {
        let mut position = match board {
            None => Board::start(),
            Some(text) => notation::parse_board(text)
                .map_err(|err| PyValueError::new_err(format!("{err:#}")))?,
        };
        if let Some(moves) = moves {
            let moves = notation::parse_transcript(moves)
                .map_err(|err| illegal_move(py, format!("{err:#}")))?;
            notation::play_moves(&mut position, &moves)
                .map_err(|err| illegal_move(py, format!("{err:#}")))?;
        }
        Ok(PyBoard { board: position })
    }

    /// A board from two bitboards (bit n set for square n) and the side to move.
    #[staticmethod]
    fn from_bitboards(black: u64, white: u64, turn: &Bound<'_, PyAny>) -> PyResult<PyBoard> {
        let board = Board::from_discs(black, white, parse_color(turn)?)
            .map_err(|err| PyValueError::new_err(format!("{err:#}")))?;
        Ok(PyBoard { board })
    }

    /// The side to move (``tsuru.othello.Color``).
    #[getter]
    fn turn(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        color_object(py, self.board.side_to_move())
    }

    /// Black's discs as a bitboard.
    #[getter]
    fn black(&self) -> u64 {
        self.board.discs(Color::Black)
    }

    /// White's discs as a bitboard.
    #[getter]
    fn white(&self) -> u64 {
        self.board.discs(Color::White)
    }

    /// The moves played since the start board (passes included), oldest first.
    #[getter]
    fn moves(&self) -> Vec<u32> {
        self.board.history().map(move_number).collect()
    }

    /// Number of moves played since the start board.
    #[getter]
    fn ply(&self) -> usize {
        self.board.ply()
    }

    /// Empty squares.
    #[getter]
    fn empties(&self) -> u32 {
        self.board.empties()
    }

    /// The legal moves, a1 first: ``[PASS]`` when the side to move must pass, ``[]`` when
    /// the game is over.
    fn legal_moves(&self) -> Vec<u32> {
        let moves = self.board.legal_moves();
        if moves == 0 {
            return if self.board.is_game_over() {
                Vec::new()
            } else {
                vec![PASS]
            };
        }
        let mut list = Vec::with_capacity(moves.count_ones() as usize);
        let mut bits = moves;
        while bits != 0 {
            list.push(bits.trailing_zeros());
            bits &= bits - 1;
        }
        list
    }

    /// The legal squares as a bitboard (0 when none).
    fn legal_mask(&self) -> u64 {
        self.board.legal_moves()
    }

    /// Whether ``move`` (int or name) is legal here.
    fn is_legal(&self, r#move: &Bound<'_, PyAny>) -> bool {
        parse_move(r#move).is_ok_and(|mv| self.board.is_legal(mv))
    }

    /// The discs ``move`` would turn, as a bitboard (0 when it is not legal).
    fn flips(&self, r#move: &Bound<'_, PyAny>) -> PyResult<u64> {
        Ok(match parse_move(r#move)? {
            Move::Play(square) if self.board.is_legal_square(square) => self.board.flips(square),
            _ => 0,
        })
    }

    /// Plays ``move`` (int or name); ``IllegalMoveError`` leaves the board as it was.
    fn push(&mut self, r#move: &Bound<'_, PyAny>) -> PyResult<()> {
        let mv = parse_move(r#move)?;
        self.board
            .play(mv)
            .map_err(|err| illegal_move(r#move.py(), format!("{err:#}")))
    }

    /// Plays a transcript (``"f5d6c3"``; passes may be left out).
    fn push_moves(&mut self, py: Python<'_>, moves: &str) -> PyResult<()> {
        let moves = notation::parse_transcript(moves)
            .map_err(|err| illegal_move(py, format!("{err:#}")))?;
        notation::play_moves(&mut self.board, &moves)
            .map_err(|err| illegal_move(py, format!("{err:#}")))
    }

    /// Takes back the last move and returns it; ``IndexError`` at the start board.
    fn pop(&mut self) -> PyResult<u32> {
        self.board
            .undo()
            .map(move_number)
            .ok_or_else(|| PyIndexError::new_err("no move to take back"))
    }

    /// Whether the side to move has no legal move but the opponent has.
    fn must_pass(&self) -> bool {
        self.board.must_pass()
    }

    /// Whether neither side can move.
    fn is_game_over(&self) -> bool {
        self.board.is_game_over()
    }

    /// ``(black, white)`` disc counts.
    fn disc_count(&self) -> (u32, u32) {
        (
            self.board.count(Color::Black),
            self.board.count(Color::White),
        )
    }

    /// Black's discs minus White's, empties going to the winner (the game's final score
    /// when it is over).
    fn final_score(&self) -> i32 {
        self.board.final_score(Color::Black).get()
    }

    /// The 64-character form and the side to move (``"---...OX--- X"``).
    fn board_string(&self) -> String {
        notation::board_to_string(&self.board)
    }

    /// The 64-character form of the board the moves started from.
    fn start_board_string(&self) -> String {
        notation::board_to_string(&self.start_board())
    }

    /// The moves as a transcript: ``"f5d6c3"``, passes left out (``Board(moves=...)`` puts
    /// them back), or written ``pa`` with ``passes=True``.
    #[pyo3(signature = (passes=false))]
    fn transcript(&self, passes: bool) -> String {
        if passes {
            self.transcript_with_passes()
        } else {
            notation::transcript(self.board.history())
        }
    }

    /// ``(mover, move)`` for every move since the start board, oldest first (a pass is a
    /// move, so the movers alternate).
    fn history(&self, py: Python<'_>) -> PyResult<Vec<(Py<PyAny>, u32)>> {
        let ply = self.board.ply();
        let last_mover = self.board.side_to_move().opponent();
        self.board
            .history()
            .enumerate()
            .map(|(i, mv)| {
                let mover = if (ply - 1 - i).is_multiple_of(2) {
                    last_mover
                } else {
                    last_mover.opponent()
                };
                Ok((color_object(py, mover)?, move_number(mv)))
            })
            .collect()
    }

    /// The board the moves started from (no moves).
    fn start(&self) -> PyBoard {
        PyBoard {
            board: self.start_board(),
        }
    }

    /// The position without its moves (the start board becomes this position).
    fn without_history(&self) -> PyBoard {
        PyBoard {
            board: self.board.without_history(),
        }
    }

    /// Leaves of the game tree ``depth`` plies deep (a pass is a ply; a finished game
    /// counts once). Runs without the GIL.
    fn perft(&self, py: Python<'_>, depth: u32) -> u64 {
        let mut board = self.board.without_history();
        py.detach(move || perft(&mut board, depth))
    }

    /// A copy with the same moves.
    fn copy(&self) -> PyBoard {
        self.clone()
    }

    fn __copy__(&self) -> PyBoard {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyBoard {
        self.clone()
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let list = pyo3::types::PyList::new(py, self.legal_moves())?;
        Ok(list.try_iter()?.into_any().unbind())
    }

    /// Positions are equal when their discs and side to move are (moves are not compared).
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<PyBoard>() {
            Ok(other) => {
                let other = other.borrow();
                self.board.discs(Color::Black) == other.board.discs(Color::Black)
                    && self.board.discs(Color::White) == other.board.discs(Color::White)
                    && self.board.side_to_move() == other.board.side_to_move()
            }
            Err(_) => false,
        }
    }

    fn __hash__(&self) -> u64 {
        self.board.hash()
    }

    /// An ASCII diagram, row 1 on top.
    fn __str__(&self) -> String {
        notation::diagram(&self.board)
    }

    /// The board as an SVG picture (``tsuru.svg.board``), for Jupyter, with the legal moves
    /// marked and the last move ringed.
    fn _repr_svg_(slf: &Bound<'_, Self>) -> PyResult<String> {
        let py = slf.py();
        let (moves, last) = {
            let board = slf.borrow();
            (
                board.legal_moves(),
                board.board.history().last().map(move_number),
            )
        };
        py.import("tsuru.svg")?
            .getattr("board")?
            .call1((slf, moves, last))?
            .extract()
    }

    fn __repr__(&self) -> String {
        if self.board.ply() == 0 {
            format!("Board({:?})", notation::board_to_string(&self.board))
        } else {
            format!(
                "Board({:?}, moves={:?})",
                notation::board_to_string(&self.start_board()),
                self.transcript_with_passes()
            )
        }
    }
}

impl PyBoard {
    /// The moves with passes written (`pa`), so that `repr` round-trips through `Board`.
    fn transcript_with_passes(&self) -> String {
        self.board.history().map(|mv| format!("{mv:#}")).collect()
    }
}
