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

/// Leaf counts per legal move of the position ("divide"), a pass shown as `PA`.
pub fn divide(board: &mut Board, depth: u32) -> Vec<(super::Move, u64)> {
    let mut out = Vec::new();
    if depth == 0 || board.is_game_over() {
        return out;
    }
    let moves = board.legal_moves();
    if moves == 0 {
        board.make_pass();
        out.push((super::Move::Pass, perft(board, depth - 1)));
        board.undo();
        return out;
    }
    for square in bits::squares(moves) {
        board.make_move(square);
        out.push((super::Move::Play(square), perft(board, depth - 1)));
        board.undo();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divide_sums_to_perft() {
        let mut board = Board::start();
        let parts = divide(&mut board, 5);
        assert_eq!(parts.len(), 4);
        assert_eq!(parts.iter().map(|p| p.1).sum::<u64>(), perft(&mut board, 5));
    }
}
