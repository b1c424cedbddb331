//! Test positions and their true values: random positions, brute-force minimax, and the
//! GTP score text of a finished game.

use tsuru_core::board::{bits, Board, Color, Move};
use tsuru_core::rng::Rng;
use tsuru_core::score::Discs;

/// A position reached by random play from the start down to `empties` empty squares (or
/// earlier if the game ends), with its history dropped.
pub fn random_position(rng: &mut Rng, empties: u32) -> Board {
    let mut board = Board::start();
    while board.empties() > empties && !board.is_game_over() {
        let moves = board.legal_moves();
        if moves == 0 {
            board.make_pass();
        } else {
            board.make_move(rng.pick(moves));
        }
    }
    board.without_history()
}

/// Plain minimax of the final disc difference for the side to move: no pruning, no tables,
/// no ordering (a pass is a move of its own).
pub fn minimax(board: &mut Board) -> Discs {
    let moves = board.legal_moves();
    if moves == 0 {
        if !board.opponent_has_legal_move() {
            return board.final_score(board.side_to_move());
        }
        board.make_pass();
        let value = -minimax(board);
        board.undo();
        return value;
    }
    let mut best = Discs::new(i32::MIN);
    for square in bits::squares(moves) {
        board.make_move(square);
        best = best.max(-minimax(board));
        board.undo();
    }
    best
}

/// The result of a finished game as GTP's `final_score` writes it: `B+12`, `W+3` or `0`.
pub fn score_text(board: &Board) -> String {
    let score = board.final_score(Color::Black);
    match score.get().signum() {
        1 => format!("B+{score}"),
        -1 => format!("W+{}", -score),
        _ => "0".into(),
    }
}

/// The final disc difference for the side to move of `board` after playing `pv` out; panics
/// if a move is illegal or the line does not end the game.
#[allow(dead_code)] // not every test binary replays principal variations
pub fn score_of_final(board: &Board, pv: &[Move]) -> Discs {
    let mut replay = board.clone();
    let me = replay.side_to_move();
    for &mv in pv {
        replay
            .play(mv)
            .unwrap_or_else(|e| panic!("PV {pv:?} from {board:?}: {e:#}"));
    }
    assert!(replay.is_game_over(), "PV {pv:?} does not end the game");
    replay.final_score(me)
}
