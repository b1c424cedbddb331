//! Test positions.

use tsuru::board::Board;
use tsuru::rng::Rng;

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
