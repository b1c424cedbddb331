//! Perft: counting the leaves of the game tree to a fixed depth, to check move generation.
//!
//! Convention (the one of the published sequence, OEIS A124004, and of
//! `tests/fixtures/perft.txt`): a forced pass counts as one ply, and a game that ends before
//! the requested depth counts as one leaf. At the last ply the legal moves are counted
//! without being made ("bulk counting").

use super::{bits, Board};

/// Number of leaves `depth` plies below the position.
pub fn perft(board: &mut Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = board.legal_moves();
    if moves == 0 {
        if !board.opponent_has_legal_move() {
            return 1;
        }
        if depth == 1 {
            return 1;
        }
        board.make_pass();
        let count = perft(board, depth - 1);
        board.undo();
        return count;
    }
    if depth == 1 {
        return moves.count_ones() as u64;
    }
    let mut count = 0;
    for square in bits::squares(moves) {
        let flipped = board.flips(square);
        board.apply_flips(square, flipped);
        count += perft(board, depth - 1);
        board.undo();
    }
    count
}
