//! Move ordering: which moves to try first so that alpha-beta cuts early.
//!
//! The solver's thresholds (evaluation order from 14 empties, one-, two- and three-ply
//! searches of the child from 15, 21 and 23, a parity tie-break below) are the ones that took
//! the fewest nodes on the FFO suite; the measurements are in docs/results.md.
//!
//! The table's best move always comes first. The midgame search uses plain fastest-first,
//! except one ply above the leaves, where the static square rank alone orders the rest
//! (`by_square_rank`): the leaves are evaluated anyway, and counting each reply's mobility
//! there cost more than the cut-offs it bought (+27 Elo when dropped; docs/results.md).

use crate::board::bits::{self, BitView};
use crate::board::{Board, Square};
use crate::eval::bundle::Evaluator;
use crate::eval::pattern::LeafView;
use crate::eval::Evaluation;
use crate::score::Score;

const CORNERS: u64 = 0x8100_0000_0000_0081;

/// Static square rank: corners first (0), X-squares last (5); lower is tried earlier.
pub(crate) const SQUARE_ORDER: [u8; 64] = {
    // Lower is tried earlier.
    const RANK: [[u8; 8]; 4] = [
        [0, 4, 1, 1, 1, 1, 4, 0],
        [4, 5, 3, 3, 3, 3, 5, 4],
        [1, 3, 2, 2, 2, 2, 3, 1],
        [1, 3, 2, 2, 2, 2, 3, 1],
    ];
    let mut ranks = [0u8; 64];
    let mut sq = 0;
    while sq < 64 {
        let r = sq / 8;
        let r = if r < 4 { r } else { 7 - r };
        ranks[sq] = RANK[r][sq % 8];
        sq += 1;
    }
    ranks
};

/// Move order for the exact solver: fastest-first as [`fastest_first`]; at nodes with at
/// least [`EVAL_ORDER_EMPTIES`] empties the value of the position after the move (from the
/// opponent's side: lower first) is added to the key, because near the root a wrong first
/// move costs a whole subtree: its static evaluation, or a search of one to three plies
/// the more empties there are, with `eval` (the solver's bundle's evaluation).
pub(crate) fn solver_order(
    board: &mut Board,
    hint: Option<Square>,
    eval: &Evaluator,
) -> MoveBuffer {
    let mut buffer = solver_order_of(board, board.legal_moves(), eval);
    if let Some(i) = buffer
        .as_slice()
        .iter()
        .position(|&square| Some(square) == hint)
    {
        buffer.keys[i] = i32::MIN;
        buffer.sort();
    }
    buffer
}

/// [`solver_order`] of the legal moves `moves` of `board` (some of them, or all), with no
/// table move.
pub(crate) fn solver_order_of(board: &mut Board, moves: u64, eval: &Evaluator) -> MoveBuffer {
    let view = board.view();
    let use_eval = board.empties() >= EVAL_ORDER_EMPTIES;
    let mut buffer = MoveBuffer::default();
    for square in bits::squares(moves) {
        let flipped = view.flips(square.index());
        let mut key = reply_key(view, square, flipped);
        if use_eval {
            // The opponent's potential mobility: its replies to come, beyond today's.
            let child = view.play(square.index(), flipped);
            key += (bits::adjacent(child.opponent) & child.empty()).count_ones() as i32
                * POTENTIAL_KEY;
            let empties = board.empties() - 1;
            let depth = if empties >= THREE_PLY_EMPTIES {
                3
            } else if empties >= TWO_PLY_EMPTIES {
                2
            } else if empties >= SHALLOW_SEARCH_EMPTIES {
                1
            } else {
                0
            };
            let window = (-Score::INFINITY, Score::INFINITY);
            key += value_after(board, square, flipped, eval, depth, window).units() / EVAL_SCALE;
        }
        buffer.push(square, key);
    }
    buffer.sort();
    buffer
}

/// Ordering-key units per square of the opponent's potential mobility after a move (empty
/// squares next to the mover's discs, [`bits::adjacent`]), at nodes ordered by the
/// evaluation: 8 (half a reply) cut FFO #40-#54's nodes by 5 to 23 % where 2, 3, 4 and 16
/// cut less (docs/results.md).
const POTENTIAL_KEY: i32 = 8;

/// Nodes with at least this many empties (after the move) order by a one-ply search.
const SHALLOW_SEARCH_EMPTIES: u32 = 15;

/// Nodes with at least this many empties (after the move) order by a two-ply search.
const TWO_PLY_EMPTIES: u32 = 19;

/// Nodes with at least this many empties (after the move) order by a three-ply search.
const THREE_PLY_EMPTIES: u32 = 23;

/// [`ordering_negamax`] of the position after the side to move of `board` plays `square`
/// flipping `flipped`, from the opponent's side. A static value (`depth` 0) of the pattern
/// evaluation is read from the child's pattern indices without playing into it: the same
/// value without the board's make and undo.
#[inline]
fn value_after(
    board: &mut Board,
    square: Square,
    flipped: u64,
    eval: &Evaluator,
    depth: u32,
    (alpha, beta): (Score, Score),
) -> Score {
    match eval.patterns() {
        Some(patterns) if depth == 0 => {
            let indices = board.pattern_indices_after(square, flipped);
            patterns.evaluate_leaf(&LeafView::after_move(board, square, flipped, &indices))
        }
        _ => {
            board.apply_flips(square, flipped);
            let value = ordering_negamax(board, eval, depth, alpha, beta);
            board.undo();
            value
        }
    }
}

/// Negamax value of `board` to `depth` plies with `eval`, fail-soft within `(alpha, beta)`
/// (for ordering only).
fn ordering_negamax(
    board: &mut Board,
    eval: &Evaluator,
    depth: u32,
    mut alpha: Score,
    beta: Score,
) -> Score {
    let moves = board.legal_moves();
    if depth == 0 || moves == 0 {
        return eval.evaluate_with_moves(board, moves);
    }
    let mut best = -Score::INFINITY;
    for square in bits::squares(moves) {
        let flipped = board.flips(square);
        let value = -value_after(board, square, flipped, eval, depth - 1, (-beta, -alpha));
        if value > best {
            best = value;
            if value > alpha {
                alpha = value;
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    best
}

/// Nodes with at least this many empties add the evaluation to the solver's move order.
pub(crate) const EVAL_ORDER_EMPTIES: u32 = 14;

/// Evaluation units per ordering-key unit (16 key units = one reply).
const EVAL_SCALE: i32 = 16;

/// The legal squares of `board` for a node one ply above the leaves: `hint` first, then by
/// the static square rank alone (the leaves are evaluated anyway, so counting each reply's
/// mobility to order them costs more than the cut-offs it buys).
pub(crate) fn by_square_rank(board: &Board, hint: Option<Square>) -> MoveBuffer {
    let mut buffer = MoveBuffer::default();
    for square in bits::squares(board.legal_moves()) {
        let key = if Some(square) == hint {
            i32::MIN
        } else {
            SQUARE_ORDER[square.index()] as i32
        };
        buffer.push(square, key);
    }
    buffer.sort();
    buffer
}

/// The legal squares of `board` in search order: `hint` (a table move) first, then
/// fastest-first with the square rank breaking ties. The buffer keeps each move's flips.
pub(crate) fn fastest_first(board: &Board, hint: Option<Square>) -> MoveBuffer {
    let view = board.view();
    let mut buffer = MoveBuffer::default();
    for square in bits::squares(board.legal_moves()) {
        let flipped = view.flips(square.index());
        let key = if Some(square) == hint {
            i32::MIN
        } else {
            reply_key(view, square, flipped)
        };
        buffer.push_with_flips(square, flipped, key);
    }
    buffer.sort();
    buffer
}

/// The fastest-first key of a move (lower is tried first): the opponent's replies after it,
/// corner replies counted twice, 16 units each, plus the square's static rank.
#[inline]
pub(crate) fn reply_key(view: BitView, square: Square, flipped: u64) -> i32 {
    replies_key(view.play(square.index(), flipped).mobility(), square)
}

/// [`reply_key`] from the opponent's legal squares after the move (`replies`), for a caller
/// that keeps them (the solver's view nodes hand them to the child).
#[inline]
pub(crate) fn replies_key(replies: u64, square: Square) -> i32 {
    (replies.count_ones() + (replies & CORNERS).count_ones()) as i32 * 16
        + SQUARE_ORDER[square.index()] as i32
}

/// A fixed-capacity list of moves with sort keys, and with the discs each move flips where
/// the order computed them (no allocation in the search).
#[derive(Clone, Copy)]
pub(crate) struct MoveBuffer {
    squares: [Square; 32],
    keys: [i32; 32],
    /// The discs each move flips, or [`NOT_COMPUTED`].
    flips: [u64; 32],
    len: usize,
}

/// A flip set no move has (every legal move flips at least one disc): "not computed".
const NOT_COMPUTED: u64 = 0;

impl Default for MoveBuffer {
    fn default() -> MoveBuffer {
        MoveBuffer {
            squares: [Square::ALL[0]; 32],
            keys: [0; 32],
            flips: [NOT_COMPUTED; 32],
            len: 0,
        }
    }
}

impl MoveBuffer {
    /// Adds a move with its key (lower sorts first).
    #[inline]
    pub(crate) fn push(&mut self, square: Square, key: i32) {
        self.push_with_flips(square, NOT_COMPUTED, key);
    }

    /// Adds a move with the discs it flips and its key (lower sorts first).
    #[inline]
    pub(crate) fn push_with_flips(&mut self, square: Square, flipped: u64, key: i32) {
        self.squares[self.len] = square;
        self.keys[self.len] = key;
        self.flips[self.len] = flipped;
        self.len += 1;
    }

    /// The discs the `i`-th move (in the buffer's order) flips on `board`, the position the
    /// buffer was made for: kept from the ordering where it computed them.
    #[inline]
    pub(crate) fn flips_on(&self, board: &Board, i: usize) -> u64 {
        match self.flips[i] {
            NOT_COMPUTED => board.flips(self.squares[i]),
            flipped => flipped,
        }
    }

    /// Sorts by key, stable (insertion sort: the lists are short).
    #[inline]
    pub(crate) fn sort(&mut self) {
        for i in 1..self.len {
            let (square, key, flipped) = (self.squares[i], self.keys[i], self.flips[i]);
            let mut j = i;
            while j > 0 && self.keys[j - 1] > key {
                self.squares[j] = self.squares[j - 1];
                self.keys[j] = self.keys[j - 1];
                self.flips[j] = self.flips[j - 1];
                j -= 1;
            }
            self.squares[j] = square;
            self.keys[j] = key;
            self.flips[j] = flipped;
        }
    }

    /// The moves in order, as a slice.
    #[inline]
    pub(crate) fn as_slice(&self) -> &[Square] {
        &self.squares[..self.len]
    }
}

impl IntoIterator for MoveBuffer {
    type Item = Square;
    type IntoIter = std::iter::Take<std::array::IntoIter<Square, 32>>;
    fn into_iter(self) -> Self::IntoIter {
        self.squares.into_iter().take(self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hint_comes_first_and_every_legal_move_is_listed() {
        let board = Board::start();
        let hint = "e6".parse().unwrap();
        let order: Vec<Square> = fastest_first(&board, Some(hint)).into_iter().collect();
        assert_eq!(order[0], hint);
        assert_eq!(order.len(), 4);
        let all = order.iter().fold(0, |acc, sq| acc | sq.bit());
        assert_eq!(all, board.legal_moves());
    }

    #[test]
    fn square_rank_order_puts_the_hint_first_then_ranks_the_rest() {
        // After f5 (Black), White has d6, f6 and f4; with the hint f4 first, the other two
        // follow by their static rank.
        let mut board = Board::start();
        assert!(board.make_move("f5".parse().unwrap()));
        let hint: Square = "f4".parse().unwrap();
        let order: Vec<Square> = by_square_rank(&board, Some(hint)).into_iter().collect();
        assert_eq!(order.len(), 3);
        assert_eq!(order[0], hint);
        assert!(SQUARE_ORDER[order[1].index()] <= SQUARE_ORDER[order[2].index()]);
        let all = order.iter().fold(0, |acc, sq| acc | sq.bit());
        assert_eq!(all, board.legal_moves());
    }

    /// The fastest-first buffer keeps, through its sort, each move's own flips; a buffer made
    /// without them computes them on the board.
    #[test]
    fn buffers_give_each_move_its_flips() {
        let mut rng = crate::rng::Rng::new(5);
        let mut board = Board::start();
        for _ in 0..30 {
            let moves = board.legal_moves();
            if moves == 0 {
                break;
            }
            let hint = rng.pick(moves);
            for buffer in [
                fastest_first(&board, Some(hint)),
                by_square_rank(&board, Some(hint)),
            ] {
                assert_eq!(buffer.as_slice()[0], hint);
                for (i, &square) in buffer.as_slice().iter().enumerate() {
                    let flipped = buffer.flips_on(&board, i);
                    assert_ne!(flipped, 0);
                    assert_eq!(flipped, board.flips(square), "{square}");
                }
            }
            assert!(board.make_move(rng.pick(moves)));
        }
    }

    #[test]
    fn buffer_sorts_stably_by_key() {
        let mut buffer = MoveBuffer::default();
        for (i, key) in [3, 1, 3, 0].into_iter().enumerate() {
            buffer.push(Square::ALL[i], key);
        }
        buffer.sort();
        let order: Vec<usize> = buffer.as_slice().iter().map(|s| s.index()).collect();
        assert_eq!(order, [3, 1, 0, 2]);
    }
}
