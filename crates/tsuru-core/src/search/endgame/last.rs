//! The searches of the last four empties: the empty squares as arguments, no list, parity
//! order at 4 and 3, the last move scored by counting its flips. Each has a null-window
//! twin (`_nw`: the window `(alpha, alpha + 1)`, the one the list search hands down nearly
//! always), which returns as soon as a move beats alpha and counts the last move's flips
//! lazily; the same positions in a wider window take the general ones.

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
        let squares = parity_order_4(squares);
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

/// The null-window searches of the last four empties: the window `(alpha, alpha + 1)`, which
/// is what the view nodes above call them with nearly always (99.9 % of the calls on FFO
/// #22-#27), fail-soft as the searches above are. With one bound, a move that beats alpha
/// returns at once, and the last move's count stops when the first count decides
/// ([`EndgameSolver::solve_1_nw`]).
impl EndgameSolver {
    /// [`EndgameSolver::solve_4`] with the window `(alpha, alpha + 1)`: the same nodes in the
    /// same order, after a stability cutoff ([`LEAF_STABILITY_SLACK`]) that the general one
    /// does not try.
    pub(super) fn solve_4_nw(&mut self, view: BitView, alpha: Discs, squares: [usize; 4]) -> Discs {
        self.core.nodes += 1;
        if let Some(upper) = stability_bound_with(view, alpha, LEAF_STABILITY_SLACK) {
            if upper <= alpha {
                return upper;
            }
        }
        let squares = parity_order_4(squares);
        let best = self.moves_4_nw(view, alpha, squares);
        if best > NO_MOVE {
            return best;
        }
        let best = self.moves_4_nw(view.passed(), -alpha - Discs::ONE, squares);
        if best > NO_MOVE {
            return -best;
        }
        final_diff(view, 4)
    }

    /// The side to move's moves among the four `squares`, in order, until one beats `alpha`
    /// (each followed by [`EndgameSolver::solve_3_nw`]); [`NO_MOVE`] when it has none.
    #[inline(always)]
    fn moves_4_nw(&mut self, view: BitView, alpha: Discs, s: [usize; 4]) -> Discs {
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
            let value = -self.solve_3_nw(view.play(sq, flipped), -alpha - Discs::ONE, rest);
            if value > alpha {
                return value;
            }
            best = best.max(value);
        }
        best
    }

    /// [`EndgameSolver::solve_3`] with the window `(alpha, alpha + 1)`.
    pub(super) fn solve_3_nw(&mut self, view: BitView, alpha: Discs, squares: [usize; 3]) -> Discs {
        self.core.nodes += 1;
        let squares = parity_order_3(squares);
        let best = self.moves_3_nw(view, alpha, squares);
        if best > NO_MOVE {
            return best;
        }
        let best = self.moves_3_nw(view.passed(), -alpha - Discs::ONE, squares);
        if best > NO_MOVE {
            return -best;
        }
        final_diff(view, 3)
    }

    /// The side to move's moves among the three `squares`, in order, until one beats `alpha`
    /// (each followed by [`EndgameSolver::solve_2_nw`]); [`NO_MOVE`] when it has none.
    #[inline(always)]
    fn moves_3_nw(&mut self, view: BitView, alpha: Discs, s: [usize; 3]) -> Discs {
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
            let value = -self.solve_2_nw(view.play(sq, flipped), -alpha - Discs::ONE, a, b);
            if value > alpha {
                return value;
            }
            best = best.max(value);
        }
        best
    }

    /// [`EndgameSolver::solve_2`] with the window `(alpha, alpha + 1)`.
    pub(super) fn solve_2_nw(&mut self, view: BitView, alpha: Discs, a: usize, b: usize) -> Discs {
        self.core.nodes += 1;
        let best = self.moves_2_nw(view, alpha, a, b);
        if best > NO_MOVE {
            return best;
        }
        let best = self.moves_2_nw(view.passed(), -alpha - Discs::ONE, a, b);
        if best > NO_MOVE {
            return -best;
        }
        final_diff(view, 2)
    }

    /// The side to move's moves on `a`, then `b` unless `a` beats `alpha`, each scored by
    /// [`EndgameSolver::solve_1_nw`]; [`NO_MOVE`] when it has none.
    #[inline(always)]
    fn moves_2_nw(&mut self, view: BitView, alpha: Discs, a: usize, b: usize) -> Discs {
        let mut best = NO_MOVE;
        let child_alpha = -alpha - Discs::ONE;
        if bits::NEIGHBOURS[a] & view.opponent != 0 {
            let flipped = view.flips(a);
            if flipped != 0 {
                best = -self.solve_1_nw(view.play(a, flipped), child_alpha, b);
                if best > alpha {
                    return best;
                }
            }
        }
        if bits::NEIGHBOURS[b] & view.opponent != 0 {
            let flipped = view.flips(b);
            if flipped != 0 {
                best = best.max(-self.solve_1_nw(view.play(b, flipped), child_alpha, a));
            }
        }
        best
    }

    /// [`EndgameSolver::solve_1`] with the window `(alpha, alpha + 1)`, counting lazily: when
    /// the side to move cannot play `sq`, the game's end with `sq` empty is worth the most
    /// it can get (the opponent's move there only takes discs from it), so at or below
    /// `alpha` that bound is returned without counting the opponent's flips.
    #[inline(always)]
    pub(super) fn solve_1_nw(&mut self, view: BitView, alpha: Discs, sq: usize) -> Discs {
        self.core.nodes += 1;
        let p = view.player;
        // 63 squares are full: the disc difference follows from the side to move's count,
        // and it is odd, so never a draw.
        let diff = 2 * p.count_ones() as i32 - 63;
        let mine = bits::last_flips(p, sq) as i32;
        if mine > 0 {
            return Discs::new(diff + 1 + 2 * mine);
        }
        let ended = Discs::new(if diff > 0 { diff + 1 } else { diff - 1 });
        if ended <= alpha {
            return ended;
        }
        let theirs = bits::last_flips(view.opponent, sq) as i32;
        if theirs > 0 {
            return Discs::new(diff - 1 - 2 * theirs);
        }
        ended
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

/// `squares` (the four empty squares) with those in a quadrant holding an odd number of
/// them first, each group in its given order. The quadrants' parities are the XOR of one
/// bit a square, and [`PARITY_ORDER_4`] gives the order of each pattern of odd squares:
/// about 20 instructions a call fewer than counting each quadrant's empties.
#[inline]
fn parity_order_4(squares: [usize; 4]) -> [usize; 4] {
    let quadrant = squares.map(|sq| QUADRANT_OF[sq]);
    let odd_quadrants = quadrant.iter().fold(0u8, |acc, &q| acc ^ (1 << q));
    let odd = (0..4).fold(0, |acc, i| acc | ((odd_quadrants >> quadrant[i]) & 1) << i);
    PARITY_ORDER_4[odd as usize].map(|i| squares[i as usize])
}

/// `PARITY_ORDER_4[odd]`: the positions 0 to 3 with those whose bit is set in `odd` first,
/// each group in increasing order.
const PARITY_ORDER_4: [[u8; 4]; 16] = {
    let mut out = [[0u8; 4]; 16];
    let mut odd = 0;
    while odd < 16 {
        let mut n = 0;
        let mut pass = 0;
        while pass < 2 {
            let mut i = 0;
            while i < 4 {
                if (odd >> i & 1 == 1) == (pass == 0) {
                    out[odd][n] = i as u8;
                    n += 1;
                }
                i += 1;
            }
            pass += 1;
        }
        odd += 1;
    }
    out
};

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
        let mut solver = EndgameSolver::new(&crate::search::SearchConfig::new(1, 1).unwrap());
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

    /// The null-window searches against minimax: 1 to 4 empties by their own searches, 5 and
    /// 6 by the list search that hands over to them, on random positions with each side to
    /// move (the position and the same discs with the other side to move, so passes, finished
    /// games and wipe-outs are among them), the empty squares in random order. For every
    /// alpha around the exact value and some anywhere, the value falls on the right side of
    /// the window and bounds the exact value from that side; the windows just below and just
    /// above it give it exactly.
    #[test]
    fn null_window_searches_equal_minimax() {
        let mut rng = Rng::new(154);
        let mut solver = EndgameSolver::new(&crate::search::SearchConfig::new(1, 1).unwrap());
        for empties in 1..=6u32 {
            let positions = if empties <= 4 { 3000 } else { 1500 };
            let (mut tested, mut kinds) = (0, Kinds::default());
            let (mut highs, mut lows) = (0, 0);
            while tested < positions {
                let Some(found) = random_view(&mut rng, empties) else {
                    continue;
                };
                for view in [found, found.passed()] {
                    tested += 1;
                    kinds.count(view);
                    let exact = minimax(view);
                    let s = shuffled_empties(&mut rng, view);
                    let mut search = |alpha: Discs| match empties {
                        1 => solver.solve_1_nw(view, alpha, s[0]),
                        2 => solver.solve_2_nw(view, alpha, s[0], s[1]),
                        3 => solver.solve_3_nw(view, alpha, [s[0], s[1], s[2]]),
                        4 => solver.solve_4_nw(view, alpha, [s[0], s[1], s[2], s[3]]),
                        _ => solver.leaf_entry(view, alpha, alpha + Discs::ONE),
                    };
                    let near = (-5..=5).map(|d| exact.get() + d);
                    let anywhere = (0..4).map(|_| -65 + rng.below(130) as i32);
                    let alphas: Vec<i32> = near.chain(anywhere).collect();
                    for alpha in alphas {
                        let alpha = Discs::new(alpha.clamp(-65, 64));
                        let value = search(alpha);
                        let what = format!("{empties} empties, alpha {alpha}, {view:?}");
                        if exact > alpha {
                            assert!(
                                value > alpha && value <= exact,
                                "{what}: {value}, exact {exact}"
                            );
                            highs += 1;
                        } else {
                            assert!(
                                value <= alpha && value >= exact,
                                "{what}: {value}, exact {exact}"
                            );
                            lows += 1;
                        }
                    }
                    assert_eq!(search(exact - Discs::ONE), exact, "{view:?}");
                    assert_eq!(search(exact), exact, "{view:?}");
                }
            }
            let min_finished = if empties <= 4 { 20 } else { 5 };
            kinds.assert_at_least(20, min_finished, &format!("{empties} empties"));
            assert!(
                highs > 1000 && lows > 1000,
                "{empties} empties: {highs} high, {lows} low"
            );
        }
    }

    #[test]
    fn parity_order_puts_odd_quadrants_first() {
        // a1 and b1 (squares 0, 1) empty in the first quadrant, g8 and h8 (62, 63) in the
        // last: both quadrants even, the order stands.
        assert_eq!(parity_order_4([0, 62, 1, 63]), [0, 62, 1, 63]);
        // a1, b1, c1 in one quadrant (odd) and h8 alone (odd): all odd, order stands.
        assert_eq!(parity_order_4([63, 0, 1, 2]), [63, 0, 1, 2]);
        // a1, b1 (even) and h1, h8 (one each, odd): the odd ones come first, in order.
        assert_eq!(parity_order_4([0, 63, 1, 7]), [63, 7, 0, 1]);
        // Against counting each quadrant's empties, on random sets of four squares.
        let mut rng = Rng::new(155);
        for _ in 0..2000 {
            let mut squares = [0usize; 4];
            let mut empty = 0u64;
            for slot in squares.iter_mut() {
                let mut sq = rng.below(64) as usize;
                while empty & (1 << sq) != 0 {
                    sq = rng.below(64) as usize;
                }
                empty |= 1 << sq;
                *slot = sq;
            }
            let odd =
                |sq: usize| (empty & QUADRANTS[QUADRANT_OF[sq] as usize]).count_ones() % 2 == 1;
            let counted: Vec<usize> = (squares.iter().filter(|&&sq| odd(sq)))
                .chain(squares.iter().filter(|&&sq| !odd(sq)))
                .copied()
                .collect();
            assert_eq!(parity_order_4(squares).to_vec(), counted, "{squares:?}");
        }
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
