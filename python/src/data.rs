//! Readers of the project's data files: OBF problem sets and self-play shards. The Python
//! side (`tsuru.data`) turns the packed columns into NumPy arrays.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use tsuru_core::board::Board;
use tsuru_core::formats::{obf, selfplay};

use crate::board::{move_number, PyBoard};

fn value_error(err: anyhow::Error) -> PyErr {
    PyValueError::new_err(format!("{err:#}"))
}

/// The positions of an OBF text: ``(board, [(move, score), ...], comment)`` each, the
/// moves' exact scores best first as the file lists them.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn parse_obf(text: &str) -> PyResult<Vec<(PyBoard, Vec<(u32, i32)>, Option<String>)>> {
    let positions = obf::parse_file(text).map_err(value_error)?;
    Ok(positions
        .into_iter()
        .map(|position| {
            let scores = position
                .scores
                .iter()
                .map(|&(mv, score)| (move_number(mv), score.get()))
                .collect();
            (
                PyBoard {
                    board: position.board,
                },
                scores,
                position.comment,
            )
        })
        .collect())
}

/// A self-play file's header and games: ``(header, [(index, random_moves, solve_empties,
/// black_result, moves), ...])``, each game's moves as bytes (64 for a pass). Every game
/// is replayed and checked.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn parse_selfplay<'py>(
    py: Python<'py>,
    text: &str,
) -> PyResult<(String, Vec<(u64, u32, u32, i32, Bound<'py, PyBytes>)>)> {
    let (config, games) = py
        .detach(|| selfplay::read_file(text))
        .map_err(value_error)?;
    let games = games
        .iter()
        .map(|game| {
            let moves: Vec<u8> = game.moves.iter().map(|&mv| move_number(mv) as u8).collect();
            (
                game.index,
                game.random_moves,
                game.solve_empties,
                game.black_result.get(),
                PyBytes::new(py, &moves),
            )
        })
        .collect();
    Ok((config.header(), games))
}

/// The labelled positions of a self-play text as packed little-endian columns, one row a
/// position where the side to move has a move, from the first move after the random
/// opening to the end: ``player`` and ``opponent`` (u64 bitboards of the side to move and
/// the other side), ``empties`` (u8), ``result`` (i8: the game's final disc difference for
/// the side to move, exact from ``solve_empties`` on), ``move`` (u8: the move played),
/// ``exact`` (u8: 1 when the result was proven from this position, the solver having taken
/// over), ``game`` (u32: the game's number in the file, 0 first), ``score`` (i8: the
/// players' search score of the position for the side to move, in whole discs, where the
/// file records it (v3, v4) and the position was searched, else -128); and the number of games.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn selfplay_columns<'py>(
    py: Python<'py>,
    text: &str,
) -> PyResult<(usize, Vec<(&'static str, Bound<'py, PyBytes>)>)> {
    let columns = py
        .detach(|| -> anyhow::Result<Columns> {
            let (_, games) = selfplay::read_file(text)?;
            let mut columns = Columns {
                games: games.len(),
                ..Columns::default()
            };
            for (number, game) in games.iter().enumerate() {
                let mut board = Board::start();
                let scores = game.scores_by_ply();
                for (ply, &mv) in game.moves.iter().enumerate() {
                    if ply >= game.random_moves as usize && !board.must_pass() {
                        let result = match board.side_to_move() {
                            tsuru_core::board::Color::Black => game.black_result.get(),
                            tsuru_core::board::Color::White => -game.black_result.get(),
                        };
                        columns.player.extend(board.player_discs().to_le_bytes());
                        columns
                            .opponent
                            .extend(board.opponent_discs().to_le_bytes());
                        columns.empties.push(board.empties() as u8);
                        columns.result.push(result as i8 as u8);
                        columns.moves.push(move_number(mv) as u8);
                        let exact = game.solve_empties > 0 && board.empties() <= game.solve_empties;
                        columns.exact.push(u8::from(exact));
                        columns.game.extend((number as u32).to_le_bytes());
                        let score = scores.get(ply).copied().flatten().unwrap_or(NO_SCORE);
                        columns.score.push(score as u8);
                    }
                    board.play(mv)?;
                }
            }
            Ok(columns)
        })
        .map_err(value_error)?;
    let games = columns.games;
    let columns = vec![
        ("player", PyBytes::new(py, &columns.player)),
        ("opponent", PyBytes::new(py, &columns.opponent)),
        ("empties", PyBytes::new(py, &columns.empties)),
        ("result", PyBytes::new(py, &columns.result)),
        ("move", PyBytes::new(py, &columns.moves)),
        ("exact", PyBytes::new(py, &columns.exact)),
        ("game", PyBytes::new(py, &columns.game)),
        ("score", PyBytes::new(py, &columns.score)),
    ];
    Ok((games, columns))
}

/// Packed columns of labelled positions (see [`selfplay_columns`]).
#[derive(Default)]
struct Columns {
    games: usize,
    player: Vec<u8>,
    opponent: Vec<u8>,
    empties: Vec<u8>,
    result: Vec<u8>,
    moves: Vec<u8>,
    exact: Vec<u8>,
    game: Vec<u8>,
    score: Vec<u8>,
}

/// The ``score`` column's value where there is no search score.
const NO_SCORE: i8 = i8::MIN;
