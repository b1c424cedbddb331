//! The reference move generator: the seeds' per-direction scan over the mailbox.
//!
//! For each empty cell and each of the eight [`MAILBOX_DIRECTIONS`], walk over opponent discs;
//! the line flips if the walk passed at least one of them and stopped on one of the mover's
//! own discs. Walls stop every walk, so no bounds checks are needed. Deliberately simple and
//! independent of the bitboard code, it is what the tests compare the fast generator against,
//! and `tsuru perft --reference` measures it.

use super::{Board, Cell, Square, MAILBOX_DIRECTIONS};

/// The squares a disc on `square` would flip for the side to move, as a bitboard, found by
/// walking the mailbox. Zero if the square is occupied or the move is illegal.
pub fn flips(board: &Board, square: Square) -> u64 {
    let origin = square.mailbox();
    if board.cell(origin) != Cell::Empty {
        return 0;
    }
    let me = Cell::Disc(board.side_to_move());
    let them = Cell::Disc(board.side_to_move().opponent());
    let mut flipped = 0u64;
    for step in MAILBOX_DIRECTIONS {
        let mut line = 0u64;
        let mut index = origin as isize + step;
        while board.cell(index as usize) == them {
            line |= mailbox_bit(index as usize);
            index += step;
        }
        if line != 0 && board.cell(index as usize) == me {
            flipped |= line;
        }
    }
    flipped
}

/// The legal squares of the side to move, as a bitboard, by scanning every empty cell.
pub fn legal_moves(board: &Board) -> u64 {
    Square::ALL
        .iter()
        .filter(|&&square| flips(board, square) != 0)
        .fold(0, |acc, square| acc | square.bit())
}

/// Bit of the square at a playable mailbox index.
fn mailbox_bit(index: usize) -> u64 {
    let row = (index - 10) / 9;
    let col = (index - 10) % 9;
    1u64 << (row * 8 + col)
}

/// Perft using only the reference scan for moves and flips (the board still records them).
pub fn perft(board: &mut Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = legal_moves(board);
    if moves == 0 {
        let me = board.side_to_move();
        board.make_pass();
        let opponent_can_move = legal_moves(board) != 0;
        let count = if opponent_can_move {
            perft(board, depth - 1)
        } else {
            1
        };
        board.undo();
        debug_assert_eq!(board.side_to_move(), me);
        return count;
    }
    let mut count = 0;
    for square in super::bits::squares(moves) {
        let flipped = flips(board, square);
        board.apply_flips(square, flipped);
        count += perft(board, depth - 1);
        board.undo();
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Color;
    use crate::rng::Rng;

    /// Random positions, some reached by play (so they include passes and finished games)
    /// and some with random discs: the fast and the reference generator must agree on the
    /// legal squares and on every move's flips, and so must the pass and game-over tests.
    #[test]
    fn fast_generator_agrees_with_the_mailbox_scan() {
        let mut rng = Rng::new(2024);
        let mut positions = 0;
        let mut passes = 0;
        let mut finished = 0;
        let check = |board: &Board, positions: &mut u32| {
            let fast = board.legal_moves();
            assert_eq!(fast, legal_moves(board), "{board:?}");
            for square in Square::ALL {
                assert_eq!(
                    board.flips(square),
                    flips(board, square),
                    "{board:?} {square}"
                );
            }
            let mut other = board.clone();
            other.make_pass();
            let opponent = legal_moves(&other);
            assert_eq!(board.opponent_has_legal_move(), opponent != 0);
            *positions += 1;
        };
        // Positions from random games, with every pass and final position.
        while positions < 70_000 {
            let mut board = Board::start();
            loop {
                check(&board, &mut positions);
                let moves = board.legal_moves();
                if moves != 0 {
                    board.make_move(rng.pick(moves));
                } else if board.opponent_has_legal_move() {
                    passes += 1;
                    board.make_pass();
                } else {
                    finished += 1;
                    break;
                }
            }
        }
        // Random disc placements reach shapes games rarely do.
        while positions < 110_000 {
            let filled = rng.next_u64() & rng.next_u64() | rng.next_u64() & rng.next_u64();
            let black = filled & rng.next_u64();
            let side = if rng.next_u64() & 1 == 0 {
                Color::Black
            } else {
                Color::White
            };
            let board = Board::from_discs(black, filled & !black, side).unwrap();
            if board.must_pass() {
                passes += 1;
            }
            if board.is_game_over() {
                finished += 1;
            }
            check(&board, &mut positions);
        }
        assert!(passes > 100, "only {passes} pass positions");
        assert!(finished > 100, "only {finished} finished positions");
    }

    #[test]
    fn reference_perft_matches_shallow_counts() {
        let mut board = Board::start();
        let counts: Vec<u64> = (1..=6).map(|d| perft(&mut board, d)).collect();
        assert_eq!(counts, [4, 12, 56, 244, 1396, 8200]);
    }
}
