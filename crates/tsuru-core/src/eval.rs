//! Static evaluation: how good a position is for the side to move, in [`Score`] units.
//!
//! [`Evaluation`] is the one interface the search uses; [`SeedsEval`] is evaluation v1, built
//! from the seeds' ideas, each term a difference between the side to move and the opponent:
//!
//! * **mobility**: legal moves;
//! * **potential mobility**: empty squares next to the opponent's discs (the frontier);
//! * **square weights**: corners good, X- and C-squares bad while their corner is empty;
//! * **stable discs**: runs of one colour grown from an owned corner along both edges, and the
//!   discs of completely filled edges (seed 001's cheap edge-only count);
//! * **edge shapes**: a *mountain* (b..g one colour, corners empty) is good for its owner; a
//!   *wing* (five in a row leaving a gap next to an empty corner) and a *lone C* (a C-square
//!   disc with its corner and the next square empty) are bad.
//!
//! Weights move linearly with the number of empty squares, from the opening to the endgame.
//! Every term is symmetric, so the evaluation is the same on all eight images of a position.
//!
//! The engine's default is the trained pattern evaluation ([`pattern`]), whose weights are
//! compiled into the binary from `src/eval/weights.tsw` (the tables) and `src/eval/term.tsi`
//! (an interaction term for them); `--eval-file PATH` loads other weights (or another term
//! for the same tables) and `--eval v1` selects [`SeedsEval`]. The search uses an evaluation only as part
//! of an [`EvalBundle`], which carries the ProbCut statistics measured for it (see [`bundle`]
//! for where they come from and what happens without them).

pub mod bundle;
pub mod pattern;
pub mod probcut;
pub mod stage_blend;
pub mod win_probability;

use anyhow::Result;

use crate::board::{bits, Board};
pub use crate::config::EvalChoice;
use crate::score::Score;
pub use bundle::EvalBundle;

/// The trained weights shipped with the engine: the tables (see [`pattern`] for the format),
/// to which [`SHIPPED_TERM`] adds its interaction term.
pub const SHIPPED_WEIGHTS: &[u8] = include_bytes!("eval/weights.tsw");

/// The interaction term shipped with [`SHIPPED_WEIGHTS`], a term file
/// ([`crate::formats::term`]) naming them; the two together are the engine's evaluation
/// ([`EvalBundle::shipped`]).
pub const SHIPPED_TERM: &[u8] = include_bytes!("eval/term.tsi");

/// Building the evaluation a setting names is the evaluation's job; the setting itself is
/// [`crate::config::EvalChoice`], in the layer of the settings below this one.
impl EvalChoice {
    /// Builds the evaluation bundle ([`EvalBundle::shipped`], [`EvalBundle::from_file`] or
    /// [`EvalBundle::v1`]); a weights or statistics file that cannot be read, is damaged, or
    /// holds statistics of other weights is an error.
    pub fn build(&self) -> Result<EvalBundle> {
        Ok(match self {
            EvalChoice::Shipped => EvalBundle::shipped(),
            EvalChoice::File(path) => EvalBundle::from_file(path)?,
            EvalChoice::V1 => EvalBundle::v1(),
        })
    }
}

/// A static evaluation of positions.
pub trait Evaluation: Send {
    /// The value of `board` for the side to move, within `-Score::MAX < v < Score::MAX`
    /// (so it is never mistaken for a proven all-discs result). Need not be exact.
    fn evaluate(&self, board: &Board) -> Score;

    /// The same value as [`Evaluation::evaluate`], given the side to move's legal squares
    /// `moves` (`board.legal_moves()`), which a search has already computed at the node: an
    /// evaluation that counts mobility then does not compute it again.
    #[inline]
    fn evaluate_with_moves(&self, board: &Board, moves: u64) -> Score {
        debug_assert_eq!(moves, board.legal_moves());
        self.evaluate(board)
    }
}

/// Evaluation v1 (see the module doc).
#[derive(Clone, Copy, Debug, Default)]
pub struct SeedsEval;

/// Square weights at the opening stage, a1..h8 (symmetric); X- and C-squares are scored
/// separately from their corner's state.
const SQUARE_WEIGHTS: [i32; 64] = {
    const ROWS: [[i32; 8]; 4] = [
        [400, 0, 40, 20, 20, 40, 0, 400],
        [0, 0, -4, -4, -4, -4, 0, 0],
        [40, -4, 6, 2, 2, 6, -4, 40],
        [20, -4, 2, 0, 0, 2, -4, 20],
    ];
    let mut table = [0; 64];
    let mut sq = 0;
    while sq < 64 {
        let (r, c) = (sq / 8, sq % 8);
        let r = if r < 4 { r } else { 7 - r };
        table[sq] = ROWS[r][c];
        sq += 1;
    }
    table
};

/// (corner, X-square, C-squares) for the four corners, as bit indices.
const CORNER_ZONES: [(usize, usize, [usize; 2]); 4] = [
    (0, 9, [1, 8]),
    (7, 14, [6, 15]),
    (56, 49, [57, 48]),
    (63, 54, [62, 55]),
];

/// The four edges as lists of bit indices from one corner to the other.
const EDGES: [[usize; 8]; 4] = [
    [0, 1, 2, 3, 4, 5, 6, 7],
    [56, 57, 58, 59, 60, 61, 62, 63],
    [0, 8, 16, 24, 32, 40, 48, 56],
    [7, 15, 23, 31, 39, 47, 55, 63],
];

const X_PENALTY: i32 = 250;
const C_PENALTY: i32 = 120;
const MOUNTAIN: i32 = 150;
const WING: i32 = 150;
const LONE_C: i32 = 100;

/// Squares next to any square of `b` (8-neighbourhood), without wrapping around edges.
fn neighbours(b: u64) -> u64 {
    const NOT_A: u64 = 0xfefe_fefe_fefe_fefe;
    const NOT_H: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let horizontal = ((b << 1) & NOT_A) | ((b >> 1) & NOT_H);
    let row = b | horizontal;
    horizontal | (row << 8) | (row >> 8)
}

/// Discs of `own` made stable by corners along the edges, and those of filled edges.
pub(crate) fn edge_stable(own: u64, occupied: u64) -> u64 {
    let mut stable = 0u64;
    for edge in EDGES {
        let line = edge.iter().fold(0u64, |acc, &i| acc | 1 << i);
        if occupied & line == line {
            stable |= own & line;
            continue;
        }
        for order in [edge, reversed(edge)] {
            for &i in &order {
                if own & (1 << i) == 0 {
                    break;
                }
                stable |= 1 << i;
            }
        }
    }
    stable
}

const fn reversed(edge: [usize; 8]) -> [usize; 8] {
    let mut out = [0; 8];
    let mut i = 0;
    while i < 8 {
        out[i] = edge[7 - i];
        i += 1;
    }
    out
}

/// Edge-shape score of one edge for the owner of `own` (both reading directions).
fn edge_shapes(own: u64, other: u64, edge: [usize; 8]) -> i32 {
    let cell = |i: usize| -> u8 {
        let bit = 1u64 << edge[i];
        if own & bit != 0 {
            1
        } else if other & bit != 0 {
            2
        } else {
            0
        }
    };
    let line: [u8; 8] = std::array::from_fn(cell);
    let mut score = 0;
    if line[0] == 0 && line[7] == 0 {
        if line[1..7].iter().all(|&c| c == 1) {
            score += MOUNTAIN;
        }
        // A wing: five own discs at b..f with g empty, or mirrored.
        if line[1..6].iter().all(|&c| c == 1) && line[6] == 0 {
            score -= WING;
        }
        if line[2..7].iter().all(|&c| c == 1) && line[1] == 0 {
            score -= WING;
        }
    }
    // A lone C-square: own disc on the C-square, its corner and the next square empty.
    if line[0] == 0 && line[1] == 1 && line[2] == 0 {
        score -= LONE_C;
    }
    if line[7] == 0 && line[6] == 1 && line[5] == 0 {
        score -= LONE_C;
    }
    score
}

/// Positional score (square weights with X/C handling, edge shapes) of `own` against `other`.
fn positional(own: u64, other: u64) -> i32 {
    let mut score: i32 = bits::squares(own)
        .map(|sq| SQUARE_WEIGHTS[sq.index()])
        .sum();
    let empty = !(own | other);
    for (corner, x, cs) in CORNER_ZONES {
        if empty & (1 << corner) != 0 {
            if own & (1 << x) != 0 {
                score -= X_PENALTY;
            }
            for c in cs {
                if own & (1 << c) != 0 {
                    score -= C_PENALTY;
                }
            }
        }
    }
    for edge in EDGES {
        score += edge_shapes(own, other, edge);
    }
    score
}

/// Linear interpolation between an opening weight (60 empties) and an endgame weight (0).
fn staged(opening: i32, endgame: i32, empties: i32) -> i32 {
    (opening * empties + endgame * (60 - empties)) / 60
}

impl Evaluation for SeedsEval {
    fn evaluate(&self, board: &Board) -> Score {
        let p = board.player_discs();
        let o = board.opponent_discs();
        let empty = !(p | o);
        let empties = empty.count_ones() as i32;
        let occupied = p | o;

        let mobility =
            bits::mobility(p, o).count_ones() as i32 - bits::mobility(o, p).count_ones() as i32;
        let potential = (neighbours(o) & empty).count_ones() as i32
            - (neighbours(p) & empty).count_ones() as i32;
        let stable = edge_stable(p, occupied).count_ones() as i32
            - edge_stable(o, occupied).count_ones() as i32;
        let position = positional(p, o) - positional(o, p);
        let discs = p.count_ones() as i32 - o.count_ones() as i32;

        let value = mobility * staged(70, 30, empties)
            + potential * staged(30, 10, empties)
            + stable * staged(60, 120, empties)
            + position * staged(100, 60, empties) / 100
            + discs * (20 - empties).max(0) * 3;
        Score::from_units(value).clamped_below_max()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Symmetry;
    use crate::rng::Rng;
    use pattern::Weights;

    #[test]
    fn start_position_is_even() {
        assert_eq!(SeedsEval.evaluate(&Board::start()), Score::ZERO);
    }

    #[test]
    fn evaluation_is_the_same_on_all_symmetries() {
        let mut rng = Rng::new(5);
        for _ in 0..300 {
            let mut board = Board::start();
            for _ in 0..rng.below(58) {
                let moves = board.legal_moves();
                if moves == 0 {
                    break;
                }
                board.make_move(rng.pick(moves));
            }
            let value = SeedsEval.evaluate(&board);
            for s in Symmetry::ALL {
                assert_eq!(
                    SeedsEval.evaluate(&board.transformed(s)),
                    value,
                    "{board:?} {s:?}"
                );
            }
        }
    }

    #[test]
    fn owning_a_corner_is_clearly_good() {
        let start = Board::start();
        let black = start.discs(crate::board::Color::Black);
        let white = start.discs(crate::board::Color::White);
        let side = crate::board::Color::Black;
        let with = Board::from_discs(black | 1, white, side).unwrap();
        let without = Board::from_discs(black, white, side).unwrap();
        assert!(SeedsEval.evaluate(&with).units() > SeedsEval.evaluate(&without).units() + 100);
    }

    #[test]
    fn stable_discs_grow_from_corners() {
        // a1..c1 black with a1 a corner: three stable discs; d1 white is not stable.
        let black = 0b0111;
        let white = 0b1000;
        assert_eq!(edge_stable(black, black | white), 0b0111);
        assert_eq!(edge_stable(white, black | white), 0);
        // A full edge is stable for both colours.
        let full_black = 0b1010_1010;
        let full_white = 0b0101_0101;
        assert_eq!(edge_stable(full_black, 0xff), full_black);
        assert_eq!(edge_stable(full_white, 0xff), full_white);
    }

    #[test]
    fn edge_shapes_score_mountains_wings_and_lone_cs() {
        let edge = EDGES[0];
        assert_eq!(edge_shapes(0b0111_1110, 0, edge), MOUNTAIN);
        assert_eq!(edge_shapes(0b0011_1110, 0, edge), -WING);
        assert_eq!(edge_shapes(0b0111_1100, 0, edge), -WING);
        assert_eq!(edge_shapes(0b0000_0010, 0, edge), -LONE_C);
        assert_eq!(edge_shapes(0b0000_0110, 0, edge), 0);
    }

    #[test]
    fn shipped_weights_load_and_look_sane() {
        // The checksum is verified by the loader; a damaged file would fail here.
        let weights = Weights::from_bytes(SHIPPED_WEIGHTS).unwrap();
        assert_eq!(weights.stages(), 30);
        assert_eq!(weights.to_bytes(), SHIPPED_WEIGHTS);
        let start = EvalBundle::shipped().evaluator().evaluate(&Board::start());
        assert!(
            start.discs().abs() <= 2.0,
            "start position evaluates {start:?}"
        );
    }

    #[test]
    fn shipped_evaluation_is_the_same_on_all_symmetries() {
        let mut rng = Rng::new(23);
        for _ in 0..40 {
            let mut board = Board::start();
            let plies = rng.below(55) as usize;
            for _ in 0..plies {
                if board.is_game_over() {
                    break;
                }
                if board.must_pass() {
                    board.make_pass();
                } else {
                    let square = rng.pick(board.legal_moves());
                    board.make_move(square);
                }
            }
            let shipped = EvalBundle::shipped();
            let value = shipped.evaluator().evaluate(&board);
            for symmetry in Symmetry::ALL {
                let image = board.transformed(symmetry);
                assert_eq!(shipped.evaluator().evaluate(&image), value);
            }
        }
    }
}
