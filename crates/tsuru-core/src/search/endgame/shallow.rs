//! The solver's shallow searches without a table: the evaluation search that ProbCut
//! predicts from, and the list search of the last [`LEAF_EMPTIES`] empties, which hands the
//! last four to the searches of [`super::last`].

use super::*;
use crate::eval::pattern::LeafView;

impl EndgameSolver {
    /// The value of `board` (side to move) searched `depth` plies with the bundle's
    /// evaluation and no selectivity: the shallow search whose value predicts the exact one in
    /// endgame ProbCut. The board is restored before returning.
    pub fn shallow_value(&mut self, board: &mut Board, depth: u32) -> Score {
        self.eval_search(board, depth, -Score::INFINITY, Score::INFINITY)
    }

    /// Negamax value of `board` to `depth` plies with the bundle's evaluation, fail-soft
    /// within `(alpha, beta)`, in [`Score`]s; a finished game scores its final disc
    /// difference and a pass uses no depth (as in the midgame search).
    pub(super) fn eval_search(
        &mut self,
        board: &mut Board,
        depth: u32,
        mut alpha: Score,
        beta: Score,
    ) -> Score {
        self.core.nodes += 1;
        let moves = board.legal_moves();
        if moves == 0 && !board.opponent_has_legal_move() {
            return Score::from_discs(board.final_score(board.side_to_move()));
        }
        if depth == 0 {
            return self.bundle.evaluator().evaluate_with_moves(board, moves);
        }
        if moves == 0 {
            board.make_pass();
            let value = -self.eval_search(board, depth, -beta, -alpha);
            board.undo();
            return value;
        }
        let mut best = -Score::INFINITY;
        let order = ordering::fastest_first(board, None);
        for (i, &square) in order.as_slice().iter().enumerate() {
            let flipped = order.flips_on(board, i);
            let value = -if depth == 1 {
                self.leaf_value_after(board, square, flipped)
            } else {
                board.apply_flips(square, flipped);
                let value = self.eval_search(board, depth - 1, -beta, -alpha);
                board.undo();
                value
            };
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

    /// [`EndgameSolver::eval_search`] at depth 0 of the position after the side to move of
    /// `board` plays `square` flipping `flipped`, counted as its node: the same value, read
    /// from the child's pattern indices without playing into it where the evaluation is the
    /// pattern one.
    #[inline]
    fn leaf_value_after(&mut self, board: &mut Board, square: Square, flipped: u64) -> Score {
        let Some(patterns) = self.bundle.evaluator().patterns() else {
            board.apply_flips(square, flipped);
            let value = self.eval_search(board, 0, -Score::INFINITY, Score::INFINITY);
            board.undo();
            return value;
        };
        self.core.nodes += 1;
        let indices = board.pattern_indices_after(square, flipped);
        let leaf = LeafView::after_move(board, square, flipped, &indices);
        if leaf.moves == 0 && bits::mobility(leaf.opponent, leaf.player) == 0 {
            return Score::from_discs(bits::final_score(leaf.player, leaf.opponent));
        }
        patterns.evaluate_leaf(&leaf)
    }

    /// Enters the leaf search: the bitboard view and the parity-ordered empty list.
    pub(super) fn leaf_entry(&mut self, view: BitView, alpha: Discs, beta: Discs) -> Discs {
        let empty = view.empty();
        let even = even_quadrants(empty);
        // Odd quadrants first, then even ones; inside each, by group of static square ranks
        // (ties in square order), packed one square a byte, first square in the low byte.
        let (mut packed, mut n) = (0u64, 0);
        for chosen in [empty & !even, empty & even] {
            for rank in RANK_GROUPS {
                for square in bits::squares(chosen & rank) {
                    packed |= (square.index() as u64) << (8 * n);
                    n += 1;
                }
            }
        }
        self.leaf(view, alpha, beta, packed, n, false)
    }

    /// Negamax on the bitboard view with the `n` empty squares packed in `list`, one a byte,
    /// in search order from the low byte. Four or fewer go to the dedicated searches; under a
    /// null window a node tries the stability cutoff first ([`LEAF_STABILITY_SLACK`]).
    fn leaf(
        &mut self,
        view: BitView,
        mut alpha: Discs,
        beta: Discs,
        list: u64,
        n: usize,
        passed: bool,
    ) -> Discs {
        if n <= 4 {
            let sq = |i: usize| (list >> (8 * i)) as usize & 0xff;
            if beta == alpha + Discs::ONE {
                return match n {
                    4 => self.solve_4_nw(view, alpha, [sq(0), sq(1), sq(2), sq(3)]),
                    3 => self.solve_3_nw(view, alpha, [sq(0), sq(1), sq(2)]),
                    2 => self.solve_2_nw(view, alpha, sq(0), sq(1)),
                    1 => self.solve_1_nw(view, alpha, sq(0)),
                    _ => final_diff(view, 0),
                };
            }
            return match n {
                4 => self.solve_4(view, alpha, beta, [sq(0), sq(1), sq(2), sq(3)]),
                3 => self.solve_3(view, alpha, beta, [sq(0), sq(1), sq(2)]),
                2 => self.solve_2(view, alpha, beta, sq(0), sq(1)),
                1 => self.solve_1(view, sq(0)),
                _ => final_diff(view, 0),
            };
        }
        self.core.nodes += 1;
        if beta == alpha + Discs::ONE {
            if let Some(upper) = stability_bound_with(view, alpha, LEAF_STABILITY_SLACK) {
                if upper <= alpha {
                    return upper;
                }
            }
        }
        let mut best = NO_MOVE;
        let mut rest = list;
        for i in 0..n {
            let sq = rest as usize & 0xff;
            rest >>= 8;
            if bits::NEIGHBOURS[sq] & view.opponent == 0 {
                continue;
            }
            let flipped = view.flips(sq);
            if flipped == 0 {
                continue;
            }
            // The list without byte i, the others in order.
            let low = (1u64 << (8 * i)) - 1;
            let child = (list & low) | ((list >> 8) & !low);
            let value = -self.leaf(view.play(sq, flipped), -beta, -alpha, child, n - 1, false);
            if value > best {
                best = value;
                if value > alpha {
                    alpha = value;
                    if alpha >= beta {
                        return best;
                    }
                }
            }
        }
        if best > NO_MOVE {
            return best;
        }
        if passed {
            // Neither side can move: the game is over with n empties.
            return final_diff(view, n as i32);
        }
        -self.leaf(view.passed(), -beta, -alpha, list, n, true)
    }
}

/// The squares of the static ranks ([`SQUARE_ORDER`]) two by two, best first: corners and
/// the edges' middle squares, the inner squares and inner edges, the squares next to the
/// corners. Three groups instead of the six ranks: half the masks to test for each of the
/// five-empty list's squares, for 0.7 % more nodes and about 1 % less time (docs/results.md).
const RANK_GROUPS: [u64; 3] = {
    let mut masks = [0u64; 3];
    let mut sq = 0;
    while sq < 64 {
        masks[SQUARE_ORDER[sq] as usize / 2] |= 1 << sq;
        sq += 1;
    }
    masks
};

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use crate::rng::Rng;

    /// The list search from 5 empties (and from fewer, where it hands over at once) against
    /// minimax, fail-soft in random windows: 2000 random positions per count, with passes,
    /// finished games and wipe-outs among them.
    #[test]
    fn leaf_search_equals_minimax() {
        let mut rng = Rng::new(39);
        let mut solver = EndgameSolver::new(&crate::search::SearchConfig::new(1, 1).unwrap());
        for empties in 0..=LEAF_EMPTIES {
            let (mut tested, mut kinds) = (0, Kinds::default());
            while tested < 2000 {
                let Some(view) = random_view(&mut rng, empties) else {
                    continue;
                };
                tested += 1;
                let exact = minimax(view);
                kinds.count(view);
                for _ in 0..3 {
                    let window = random_window(&mut rng, exact);
                    let value = solver.leaf_entry(view, window.0, window.1);
                    assert_fail_soft(value, exact, window, &format!("{view:?}"));
                }
            }
            if empties > 0 {
                kinds.assert_at_least(20, 5, &format!("{empties} empties"));
            }
        }
    }

    /// The stability cutoffs of 5 and 4 empties: null windows at every alpha against
    /// minimax, on random positions where the opponent has many discs (so that the cutoff is
    /// tried); the cutoff must cut in some of them.
    #[test]
    fn leaf_null_windows_with_the_stability_cutoff_equal_minimax() {
        let mut rng = Rng::new(41);
        let mut solver = EndgameSolver::new(&crate::search::SearchConfig::new(1, 1).unwrap());
        let (mut tested, mut cuts) = (0, 0);
        while tested < 1500 {
            let empties = 4 + rng.below(2) as u32;
            let Some(view) = random_view(&mut rng, empties) else {
                continue;
            };
            tested += 1;
            let exact = minimax(view);
            for alpha in (-64..64).step_by(3) {
                let alpha = Discs::new(alpha);
                let value = solver.leaf_entry(view, alpha, alpha + Discs::ONE);
                let window = (alpha, alpha + Discs::ONE);
                assert_fail_soft(value, exact, window, &format!("{view:?}"));
                cuts += usize::from(
                    stability_bound_with(view, alpha, LEAF_STABILITY_SLACK)
                        .is_some_and(|upper| upper <= alpha),
                );
            }
        }
        assert!(cuts > 100, "{cuts} cuts");
    }

    #[test]
    fn evaluation_search_scores_finished_games_and_restores_the_board() {
        let mut solver = EndgameSolver::new(&crate::search::SearchConfig::new(1, 1).unwrap());
        // A full board, Black 40 discs to White's 24, Black to move: over, +16 for Black.
        let black = u64::MAX >> 24;
        let mut board = Board::from_discs(black, !black, crate::board::Color::Black).unwrap();
        let before = board.clone();
        assert_eq!(
            solver.shallow_value(&mut board, 4),
            Score::from_discs(Discs::new(16))
        );
        assert_eq!(board, before);
        // The start position at depth 0 is the evaluation itself.
        let mut start = Board::start();
        let static_value = solver.bundle.evaluator().evaluate(&start);
        assert_eq!(solver.shallow_value(&mut start, 0), static_value);
    }
}
