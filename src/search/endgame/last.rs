//! The searches of the last four empties: the empty squares as arguments, no list, parity
//! order at 4 and 3, the last move scored by counting its flips.

use super::*;

impl EndgameSolver {
    /// The exact value of `view`, whose only empty squares are the four of `squares`,
    /// fail-soft within `(alpha, beta)`. The squares are tried in quadrant-parity order
    /// (those alone in their quadrant, or one of three, first), the given order breaking ties.
    pub(super) fn solve_4(
        &mut self,
        view: BitView,
        alpha: Discs,
        beta: Discs,
        squares: [usize; 4],
    ) -> Discs {
        self.core.nodes += 1;
        let squares = parity_order_4(view.empty(), squares);
        let best = self.moves_4(view, alpha, beta, squares);
        if best > NO_MOVE {
            return best;
        }
        let best = self.moves_4(view.passed(), -beta, -alpha, squares);
        if best > NO_MOVE {
            return -best;
        }
        final_diff(view, 4)
    }

    /// The best of the side to move's moves among the four `squares` (in order, each
    /// followed by [`EndgameSolver::solve_3`]), fail-soft; [`NO_MOVE`] when it has none.
    #[inline(always)]
    fn moves_4(&mut self, view: BitView, mut alpha: Discs, beta: Discs, s: [usize; 4]) -> Discs {
        let mut best = NO_MOVE;
        for (i, &sq) in s.iter().enumerate() {
            if bits::NEIGHBOURS[sq] & view.opponent == 0 {
                continue;
            }
            let flipped = view.flips(sq);
            if flipped == 0 {
                continue;
            }
            let rest = match i {
                0 => [s[1], s[2], s[3]],
                1 => [s[0], s[2], s[3]],
                2 => [s[0], s[1], s[3]],
                _ => [s[0], s[1], s[2]],
            };
            let value = -self.solve_3(view.play(sq, flipped), -beta, -alpha, rest);
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

    /// The exact value of `view`, whose only empty squares are the three of `squares`,
    /// fail-soft within `(alpha, beta)`. A square alone in its quadrant while the other two
    /// share one is tried first; otherwise the given order stands.
    pub(super) fn solve_3(
        &mut self,
        view: BitView,
        alpha: Discs,
        beta: Discs,
        squares: [usize; 3],
    ) -> Discs {
        self.core.nodes += 1;
        let squares = parity_order_3(squares);
        let best = self.moves_3(view, alpha, beta, squares);
        if best > NO_MOVE {
            return best;
        }
        let best = self.moves_3(view.passed(), -beta, -alpha, squares);
        if best > NO_MOVE {
            return -best;
        }
        final_diff(view, 3)
    }

    /// The best of the side to move's moves among the three `squares` (in order, each
    /// followed by [`EndgameSolver::solve_2`]), fail-soft; [`NO_MOVE`] when it has none.
    #[inline(always)]
    fn moves_3(&mut self, view: BitView, mut alpha: Discs, beta: Discs, s: [usize; 3]) -> Discs {
        let mut best = NO_MOVE;
        for (i, &sq) in s.iter().enumerate() {
            if bits::NEIGHBOURS[sq] & view.opponent == 0 {
                continue;
            }
            let flipped = view.flips(sq);
            if flipped == 0 {
                continue;
            }
            let (a, b) = match i {
                0 => (s[1], s[2]),
                1 => (s[0], s[2]),
                _ => (s[0], s[1]),
            };
            let value = -self.solve_2(view.play(sq, flipped), -beta, -alpha, a, b);
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

    /// The exact value of `view`, whose only empty squares are `a` and `b`, fail-soft
    /// within `(alpha, beta)`: each move is scored by [`EndgameSolver::solve_1`] on the other
    /// square.
    pub(super) fn solve_2(
        &mut self,
        view: BitView,
        alpha: Discs,
        beta: Discs,
        a: usize,
        b: usize,
    ) -> Discs {
        self.core.nodes += 1;
        let best = self.moves_2(view, beta, a, b);
        if best > NO_MOVE {
            return best;
        }
        let best = self.moves_2(view.passed(), -alpha, a, b);
        if best > NO_MOVE {
            return -best;
        }
        final_diff(view, 2)
    }

    /// The best of the side to move's moves on `a` and `b`, fail-soft below `beta` (`b` is
    /// not tried once `a` reaches it); [`NO_MOVE`] when it has none.
    #[inline(always)]
    fn moves_2(&mut self, view: BitView, beta: Discs, a: usize, b: usize) -> Discs {
        let mut best = NO_MOVE;
        if bits::NEIGHBOURS[a] & view.opponent != 0 {
            let flipped = view.flips(a);
            if flipped != 0 {
                best = -self.solve_1(view.play(a, flipped), b);
                if best >= beta {
                    return best;
                }
            }
        }
        if bits::NEIGHBOURS[b] & view.opponent != 0 {
            let flipped = view.flips(b);
            if flipped != 0 {
                best = best.max(-self.solve_1(view.play(b, flipped), a));
            }
        }
        best
    }

    /// The exact value of `view`, whose only empty square is `sq`: the flips of the move
    /// there are counted ([`bits::last_flips`]), not played. Always inlined (into
    /// [`EndgameSolver::solve_2`] above all): a call's register saves and restores were
    /// about a fifth of its instructions (docs/results.md).
    #[inline(always)]
    pub(super) fn solve_1(&mut self, view: BitView, sq: usize) -> Discs {
        self.core.nodes += 1;
        let p = view.player;
        // 63 squares are full: the disc difference follows from the side to move's count.
        let diff = 2 * p.count_ones() as i32 - 63;
        let mine = bits::last_flips(p, sq) as i32;
        if mine > 0 {
            return Discs::new(diff + 1 + 2 * mine);
        }
        let theirs = bits::last_flips(view.opponent, sq) as i32;
        if theirs > 0 {
            return Discs::new(diff - 1 - 2 * theirs);
        }
        final_diff(view, 1)
    }
}

/// Quadrant index (into [`QUADRANTS`]) of each square.
const QUADRANT_OF: [u8; 64] = {
    let mut out = [0u8; 64];
    let mut sq = 0;
    while sq < 64 {
        out[sq] = ((sq / 32) * 2 + (sq % 8) / 4) as u8;
        sq += 1;
    }
    out
};

/// `squares` (the four empty squares of `empty`) with those in a quadrant holding an odd
/// number of empties first, each group in its given order.
#[inline]
fn parity_order_4(empty: u64, squares: [usize; 4]) -> [usize; 4] {
    let odd = |sq: usize| (empty & QUADRANTS[QUADRANT_OF[sq] as usize]).count_ones() & 1 == 1;
    let mut out = squares;
    let mut n = 0;
    for sq in squares {
        if odd(sq) {
            out[n] = sq;
            n += 1;
        }
    }
    for sq in squares {
        if !odd(sq) {
            out[n] = sq;
            n += 1;
        }
    }
    out
}

/// The three empty `squares` with the one alone in its quadrant first when the other two
/// share a quadrant; otherwise (all apart, or all together) unchanged.
#[inline]
fn parity_order_3(squares: [usize; 3]) -> [usize; 3] {
    let [a, b, c] = squares;
    let (qa, qb, qc) = (QUADRANT_OF[a], QUADRANT_OF[b], QUADRANT_OF[c]);
    if qa == qb && qb != qc {
        [c, a, b]
    } else if qa == qc && qb != qa {
        [b, a, c]
    } else {
        squares
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use crate::rng::Rng;

    /// Each search of the last four empties against minimax on random positions with passes,
    /// finished games and wipe-outs among them, the empty squares given in random order.
    #[test]
    fn last_empties_searches_equal_minimax() {
        let mut rng = Rng::new(38);
        let mut solver = EndgameSolver::new(1);
        for empties in 1..=4u32 {
            let (mut tested, mut kinds) = (0, Kinds::default());
            while tested < 5000 {
                let Some(view) = random_view(&mut rng, empties) else {
                    continue;
                };
                tested += 1;
                let exact = minimax(view);
                kinds.count(view);
                for _ in 0..3 {
                    let window = random_window(&mut rng, exact);
                    let (alpha, beta) = window;
                    let s = shuffled_empties(&mut rng, view);
                    let value = match empties {
                        1 => solver.solve_1(view, s[0]),
                        2 => solver.solve_2(view, alpha, beta, s[0], s[1]),
                        3 => solver.solve_3(view, alpha, beta, [s[0], s[1], s[2]]),
                        _ => solver.solve_4(view, alpha, beta, [s[0], s[1], s[2], s[3]]),
                    };
                    assert_fail_soft(value, exact, window, &format!("{empties} empties {view:?}"));
                }
            }
            kinds.assert_at_least(20, 20, &format!("{empties} empties"));
        }
    }

    #[test]
    fn parity_order_puts_odd_quadrants_first() {
        // a1 and b1 (squares 0, 1) empty in the first quadrant, g8 and h8 (62, 63) in the
        // last: both quadrants even, the order stands.
        let empty = (1 << 0) | (1 << 1) | (1 << 62) | (1 << 63);
        assert_eq!(parity_order_4(empty, [0, 62, 1, 63]), [0, 62, 1, 63]);
        // a1, b1, c1 in one quadrant (odd) and h8 alone (odd): all odd, order stands.
        let empty = 0b111 | (1 << 63);
        assert_eq!(parity_order_4(empty, [63, 0, 1, 2]), [63, 0, 1, 2]);
        // a1, b1 (even) and h1, h8 (one each, odd): the odd ones come first, in order.
        let empty = 0b11 | (1 << 7) | (1 << 63);
        assert_eq!(parity_order_4(empty, [0, 63, 1, 7]), [63, 7, 0, 1]);
        // Three squares: the one apart from a pair first; all apart or together, unchanged.
        assert_eq!(parity_order_3([0, 1, 63]), [63, 0, 1]);
        assert_eq!(parity_order_3([0, 63, 1]), [63, 0, 1]);
        assert_eq!(parity_order_3([63, 0, 1]), [63, 0, 1]);
        assert_eq!(parity_order_3([0, 7, 63]), [0, 7, 63]);
        assert_eq!(parity_order_3([0, 1, 2]), [0, 1, 2]);
    }

    #[test]
    fn quadrant_of_matches_the_quadrant_masks() {
        for sq in 0..64 {
            assert_ne!(
                QUADRANTS[QUADRANT_OF[sq] as usize] & (1 << sq),
                0,
                "square {sq}"
            );
        }
    }
}
