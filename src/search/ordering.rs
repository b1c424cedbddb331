//! Move ordering: which moves to try first so that alpha-beta cuts early.
//!
//! Measured on node counts (FFO #20-#39 for the solver, `tsuru bench` for the midgame), the
//! cheap orderings that pay are: the transposition table's best move first, then
//! **fastest-first** -- the move leaving the opponent the fewest replies, replies on corners
//! counted twice -- with a static square rank (corners first, X-squares last) breaking ties.

use crate::board::{bits, Board, Square};

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

/// The legal squares of `board` in search order: `hint` (a table move) first, then
/// fastest-first with the square rank breaking ties.
pub(crate) fn fastest_first(board: &Board, hint: Option<Square>) -> MoveBuffer {
    let p = board.player_discs();
    let o = board.opponent_discs();
    let mut buffer = MoveBuffer::default();
    for square in bits::squares(board.legal_moves()) {
        let flipped = bits::flips(p, o, square.index());
        let np = p | flipped | square.bit();
        let no = o & !flipped;
        let replies = bits::mobility(no, np);
        let mut key = (replies.count_ones() + (replies & CORNERS).count_ones()) as i32 * 16
            + SQUARE_ORDER[square.index()] as i32;
        if Some(square) == hint {
            key = i32::MIN;
        }
        buffer.push(square, key);
    }
    buffer.sort();
    buffer
}

/// A fixed-capacity list of moves with sort keys (no allocation in the search).
#[derive(Clone, Copy)]
pub(crate) struct MoveBuffer {
    squares: [Square; 32],
    keys: [i32; 32],
    len: usize,
}

impl Default for MoveBuffer {
    fn default() -> MoveBuffer {
        MoveBuffer {
            squares: [Square::ALL[0]; 32],
            keys: [0; 32],
            len: 0,
        }
    }
}

impl MoveBuffer {
    /// Adds a move with its key (lower sorts first).
    #[inline]
    pub(crate) fn push(&mut self, square: Square, key: i32) {
        self.squares[self.len] = square;
        self.keys[self.len] = key;
        self.len += 1;
    }

    /// Sorts by key, stable (insertion sort: the lists are short).
    #[inline]
    pub(crate) fn sort(&mut self) {
        for i in 1..self.len {
            let (square, key) = (self.squares[i], self.keys[i]);
            let mut j = i;
            while j > 0 && self.keys[j - 1] > key {
                self.squares[j] = self.squares[j - 1];
                self.keys[j] = self.keys[j - 1];
                j -= 1;
            }
            self.squares[j] = square;
            self.keys[j] = key;
        }
    }

    /// The moves in order.
    #[inline]
    pub(crate) fn iter(&self) -> impl Iterator<Item = Square> + '_ {
        self.squares[..self.len].iter().copied()
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
    fn buffer_sorts_stably_by_key() {
        let mut buffer = MoveBuffer::default();
        for (i, key) in [3, 1, 3, 0].into_iter().enumerate() {
            buffer.push(Square::ALL[i], key);
        }
        buffer.sort();
        let order: Vec<usize> = buffer.iter().map(|s| s.index()).collect();
        assert_eq!(order, [3, 1, 0, 2]);
    }
}
