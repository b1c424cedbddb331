//! Test support for the solver's tiers: brute-force minimax on the bitboard view, random
//! positions from random games (passes, finished games and wipe-outs among them), random
//! windows and the fail-soft check.

use super::*;
use crate::rng::Rng;

/// Plain minimax of the final disc difference for the side to move of `view`: no window,
/// no ordering, the game's own scoring ([`bits::final_score`]).
pub(super) fn minimax(view: BitView) -> Discs {
    let moves = view.mobility();
    if moves == 0 {
        if view.passed().mobility() == 0 {
            return bits::final_score(view.player, view.opponent);
        }
        return -minimax(view.passed());
    }
    bits::squares(moves)
        .map(|sq| -minimax(view.play(sq.index(), view.flips(sq.index()))))
        .max()
        .expect("a legal move")
}

/// A board with exactly `empties` empty squares reached by random moves from the start (no
/// pass played), whose side to move has a legal move; `None` otherwise.
pub(super) fn random_board(rng: &mut Rng, empties: u32) -> Option<Board> {
    let mut board = Board::start();
    while board.empties() > empties && board.has_legal_move() {
        let square = rng.pick(board.legal_moves());
        let flipped = board.flips(square);
        board.apply_flips(square, flipped);
    }
    (board.empties() == empties && board.has_legal_move()).then_some(board)
}

/// A position with exactly `empties` empty squares from a random game, `None` when the
/// game ended before. One in four is made lopsided: all but one to three of the
/// opponent's discs (next to an empty square where there are such) become the side to
/// move's, so that wipe-outs are common.
pub(super) fn random_view(rng: &mut Rng, empties: u32) -> Option<BitView> {
    let mut view = BitView {
        player: (1 << 28) | (1 << 35),
        opponent: (1 << 27) | (1 << 36),
    };
    while view.empties() > empties {
        let moves = view.mobility();
        if moves == 0 {
            if view.passed().mobility() == 0 {
                return None;
            }
            view = view.passed();
        } else {
            let sq = rng.pick(moves).index();
            view = view.play(sq, view.flips(sq));
        }
    }
    if rng.below(4) == 0 {
        // Kept next to an empty square, where a move can take them.
        let near =
            bits::squares(view.empty()).fold(0, |acc, sq| acc | bits::NEIGHBOURS[sq.index()]);
        let candidates = if view.opponent & near != 0 {
            view.opponent & near
        } else {
            view.opponent
        };
        let mut keep = 0;
        for _ in 0..1 + rng.below(3) {
            keep |= rng.pick(candidates).bit();
        }
        view = BitView {
            player: view.player | (view.opponent & !keep),
            opponent: keep,
        };
    }
    Some(view)
}

/// A window for `value`'s search: the full one, a null window or a random one, placed
/// below, around or above it.
pub(super) fn random_window(rng: &mut Rng, value: Discs) -> (Discs, Discs) {
    let (alpha, beta) = match rng.below(4) {
        0 => (-64, 64),
        1 => {
            let alpha = value.get() - 4 + rng.below(8) as i32;
            (alpha, alpha + 1)
        }
        _ => {
            let alpha = -65 + rng.below(130) as i32;
            let beta = alpha + 1 + rng.below(20) as i32;
            (alpha, beta.min(65))
        }
    };
    (Discs::new(alpha), Discs::new(beta))
}

/// Asserts the fail-soft contract: exact inside the window, a bound of the right side
/// outside it.
pub(super) fn assert_fail_soft(
    value: Discs,
    exact: Discs,
    (alpha, beta): (Discs, Discs),
    what: &str,
) {
    if value <= alpha {
        assert!(
            exact <= value,
            "{what}: {value} <= alpha {alpha}, exact {exact}"
        );
    } else if value >= beta {
        assert!(
            exact >= value,
            "{what}: {value} >= beta {beta}, exact {exact}"
        );
    } else {
        assert_eq!(value, exact, "{what}: window ({alpha}, {beta})");
    }
}

/// The empty squares of `view` in a random order.
pub(super) fn shuffled_empties(rng: &mut Rng, view: BitView) -> Vec<usize> {
    let mut squares: Vec<usize> = bits::squares(view.empty()).map(|s| s.index()).collect();
    for i in (1..squares.len()).rev() {
        squares.swap(i, rng.below(i as u64 + 1) as usize);
    }
    squares
}

/// How many of the tested positions were of each hard kind: the side to move must pass, the
/// game is over, or a move wipes the opponent out.
#[derive(Default)]
pub(super) struct Kinds {
    passes: usize,
    finished: usize,
    wipe_outs: usize,
}

impl Kinds {
    /// Counts `view` in the kinds it belongs to.
    pub(super) fn count(&mut self, view: BitView) {
        let moves = view.mobility();
        let other = view.passed().mobility();
        self.passes += usize::from(moves == 0 && other != 0);
        self.finished += usize::from(moves == 0 && other == 0);
        self.wipe_outs += usize::from(
            bits::squares(moves)
                .any(|sq| view.play(sq.index(), view.flips(sq.index())).player == 0),
        );
    }

    /// Asserts that passes and wipe-outs were met at least `min` times each and finished
    /// games `min_finished` times (`what` names the test set).
    pub(super) fn assert_at_least(&self, min: usize, min_finished: usize, what: &str) {
        assert!(self.passes >= min, "{what}: {} passes", self.passes);
        assert!(
            self.wipe_outs >= min,
            "{what}: {} wipe-outs",
            self.wipe_outs
        );
        assert!(
            self.finished >= min_finished,
            "{what}: {} finished games",
            self.finished
        );
    }
}
