//! The node search: negamax alpha-beta with principal-variation null windows, the
//! transposition table, and the root move loop with aspiration windows and multi-PV.
//!
//! The selective search (Multi-ProbCut on, as the engine plays) cuts on table entries of the
//! remaining depth or deeper: a deeper search of the same position answers a shallower one
//! at least as well (+47 Elo at 0.1 s a move by SPRT, docs/results.md). The
//! full-width search (`--probcut 0`) uses only entries of exactly the remaining depth, so it
//! returns the same value with the table on or off: the exact N-ply minimax value (a deeper
//! entry bounds a *different*, deeper value). Nodes where the remaining depth covers every
//! empty square are finished by the exact solver: every line reaches the end there anyway.
//!
//! Windows and node values are [`Score`]s (a null window is [`Score::UNIT`] wide), and so
//! are the table's scores. Discs enter only as [`Score::from_discs`] (final scores, the
//! solver's values in `solve_node`).

use super::ordering;
use super::parallel::{self, SplitSearch, ThreadContext};
use super::stop::StopCheck;
use super::tt::Bound;
use super::{Search, SplitNode, MAX_PLY, SPLIT_MIN_DEPTH};
use crate::board::{bits, Board, Move, Square};
use crate::eval::pattern::{LeafBounds, LeafView};
use crate::eval::probcut::Cut;
use crate::eval::Evaluation;
use crate::score::{Discs, Score};

/// Nodes with at most this many empties and depth covering them go to the exact solver.
const SOLVER_HANDOFF_EMPTIES: u32 = 14;

/// Half-width of the first aspiration window.
const ASPIRATION: Score = Score::from_discs(Discs::new(2));

const INF: Score = Score::INFINITY;
const UNIT: Score = Score::UNIT;

/// A root move with its latest score and principal variation.
#[derive(Clone, Debug)]
pub(crate) struct RootMove {
    pub(crate) mv: Move,
    /// The latest score: exact, or a bound where the move failed outside its window.
    pub(crate) score: Score,
    pub(crate) pv: Vec<Move>,
}

/// The root moves in initial search order: a forced pass alone, else fastest-first.
pub(crate) fn root_moves(board: &Board) -> Vec<RootMove> {
    let moves: Vec<Move> = if board.has_legal_move() {
        ordering::fastest_first(board, None)
            .into_iter()
            .map(Move::Play)
            .collect()
    } else {
        vec![Move::Pass]
    };
    moves
        .into_iter()
        .map(|mv| RootMove {
            mv,
            score: -Score::INFINITY,
            pv: vec![mv],
        })
        .collect()
}

fn play(board: &mut Board, mv: Move) {
    match mv {
        Move::Play(square) => {
            let flipped = board.flips(square);
            board.apply_flips(square, flipped);
        }
        Move::Pass => board.make_pass(),
    }
}

impl Search {
    /// Searches every root move to `depth`, re-sorting `roots` best first. The first
    /// `multi_pv` moves get exact scores. Returns the best score, or `None` if stopped.
    pub(crate) fn root_iteration(
        &mut self,
        board: &mut Board,
        depth: u32,
        roots: &mut [RootMove],
        multi_pv: usize,
        guess: Score,
        stop: &StopCheck,
    ) -> Option<Score> {
        let (mut alpha, mut beta) = if multi_pv == 1 && depth > 2 {
            (guess - ASPIRATION, guess + ASPIRATION)
        } else {
            (-INF, INF)
        };
        loop {
            let best = self.root_window(board, depth, roots, multi_pv, (alpha, beta), stop)?;
            // Outside the aspiration window the value is only a bound: widen and retry.
            if best <= alpha && alpha > -INF {
                alpha = -INF;
            } else if best >= beta && beta < INF {
                beta = INF;
            } else {
                return Some(best);
            }
        }
    }

    fn root_window(
        &mut self,
        board: &mut Board,
        depth: u32,
        roots: &mut [RootMove],
        multi_pv: usize,
        (alpha, beta): (Score, Score),
        stop: &StopCheck,
    ) -> Option<Score> {
        let mut scores: Vec<Score> = Vec::with_capacity(roots.len());
        let mut low = alpha;
        for (i, root) in roots.iter_mut().enumerate() {
            let mv = root.mv;
            play(board, mv);
            // A pass uses no depth, at the root as everywhere.
            let depth = if mv == Move::Pass { depth + 1 } else { depth };
            let value = if multi_pv > 1 {
                // The k-th best score so far is the bar a move must clear to be reported.
                if i < multi_pv {
                    -self.alphabeta(board, depth - 1, -INF, INF, 1, stop)
                } else {
                    let mut sorted = scores.clone();
                    sorted.sort_unstable_by(|a, b| b.cmp(a));
                    let bar = sorted[multi_pv - 1];
                    let probe = -self.alphabeta(board, depth - 1, -bar - UNIT, -bar, 1, stop);
                    if probe > bar {
                        -self.alphabeta(board, depth - 1, -INF, INF, 1, stop)
                    } else {
                        probe
                    }
                }
            } else if i == 0 {
                -self.alphabeta(board, depth - 1, -beta, -low, 1, stop)
            } else {
                let probe = -self.alphabeta(board, depth - 1, -low - UNIT, -low, 1, stop);
                if probe > low && probe < beta {
                    -self.alphabeta(board, depth - 1, -beta, -probe, 1, stop)
                } else {
                    probe
                }
            };
            board.undo();
            if self.core.stopped() {
                return None;
            }
            root.score = value;
            root.pv.clear();
            root.pv.push(mv);
            if value > low || multi_pv > 1 {
                let len = self.pv_len[1];
                root.pv.extend_from_slice(&self.pv[1][..len]);
                self.extend_pv_from_table(board, &mut root.pv, depth);
            }
            scores.push(value);
            if multi_pv == 1 && value > low {
                low = value;
                if low >= beta {
                    break;
                }
            }
        }
        // Stable sort: among equal (bound) scores the previous order is kept.
        roots.sort_by_key(|root| std::cmp::Reverse(root.score));
        Some(roots[0].score)
    }

    /// Extends `pv`, a line from `board`, with the table's best moves (and the passes forced
    /// on the way) until it holds `depth` moves or the table knows no more: a line stops
    /// short where a node was cut by a table entry, or where another thread searched the
    /// best move at a split point. Only legal moves are added; `board` is left as it was.
    /// Reporting only: the search's values do not depend on it.
    fn extend_pv_from_table(&self, board: &mut Board, pv: &mut Vec<Move>, depth: u32) {
        if !self.use_table {
            return;
        }
        for &mv in pv.iter() {
            play(board, mv);
        }
        let mut played = pv.len();
        let mut moves = pv.iter().filter(|&&mv| mv != Move::Pass).count() as u32;
        while moves < depth && !board.is_game_over() {
            let mv = if board.has_legal_move() {
                let hint = self.tt.probe(board.hash()).and_then(|e| e.best_move());
                match hint.filter(|&square| board.is_legal_square(square)) {
                    Some(square) => Move::Play(square),
                    None => break,
                }
            } else {
                Move::Pass
            };
            play(board, mv);
            pv.push(mv);
            played += 1;
            if mv != Move::Pass {
                moves += 1;
            }
        }
        // A line ends on a move, not on a pass that nothing follows.
        while played > 0 && pv.last() == Some(&Move::Pass) && pv.len() > 1 {
            pv.pop();
            board.undo();
            played -= 1;
        }
        for _ in 0..played {
            board.undo();
        }
    }

    /// Whether the search must stop now (flag, deadline or node limit, counting the
    /// solver's nodes too; in a parallel search also a cutoff or a raised alpha at a split
    /// point above this thread's subtree), checked every [`super::POLL_INTERVAL`] nodes.
    #[inline]
    fn poll(&mut self, stop: &StopCheck) -> bool {
        self.core.poll(stop, self.solver.nodes())
    }

    /// Negamax value of `board` searched `depth` plies, fail-soft within `(alpha, beta)`.
    pub(crate) fn alphabeta(
        &mut self,
        board: &mut Board,
        depth: u32,
        mut alpha: Score,
        beta: Score,
        ply: usize,
        stop: &StopCheck,
    ) -> Score {
        self.pv_len[ply] = 0;
        self.core.nodes += 1;
        if self.poll(stop) {
            return Score::ZERO;
        }
        let empties = board.empties();
        if depth >= empties && empties <= SOLVER_HANDOFF_EMPTIES {
            return self.solve_node(board, alpha, beta, stop);
        }
        let moves = board.legal_moves();
        if depth == 0 || ply >= MAX_PLY - 2 {
            return self.eval_cache.value_against(board.view(), beta, |beta| {
                // A game that ended with empty squares left is scored exactly, not estimated.
                if moves == 0 && !board.opponent_has_legal_move() {
                    return LeafBounds::exact(Score::from_discs(
                        board.final_score(board.side_to_move()),
                    ));
                }
                let evaluator = self.bundle.evaluator();
                match evaluator.patterns() {
                    Some(patterns) => patterns.leaf_bounds(&LeafView::of(board, moves), beta),
                    None => LeafBounds::exact(evaluator.evaluate_with_moves(board, moves)),
                }
            });
        }
        if moves == 0 {
            if !board.opponent_has_legal_move() {
                return Score::from_discs(board.final_score(board.side_to_move()));
            }
            board.make_pass();
            let value = -self.alphabeta(board, depth, -beta, -alpha, ply + 1, stop);
            board.undo();
            self.set_pv(ply, Move::Pass);
            return value;
        }

        let hash = board.hash();
        let mut hint = None;
        if self.use_table {
            if let Some(entry) = self.tt.probe(hash) {
                hint = entry.best_move();
                // Deeper entries only where values are selective anyway (module doc).
                let usable = if self.selectivity.is_some() {
                    entry.depth as u32 >= depth
                } else {
                    entry.depth as u32 == depth
                };
                if usable {
                    let score = entry.score();
                    let cut = match entry.bound() {
                        Bound::Exact => true,
                        Bound::Lower => score >= beta,
                        Bound::Upper => score <= alpha,
                    };
                    if cut {
                        return score;
                    }
                }
            }
        }

        if let Some(confidence) = self.selectivity {
            // Only null-window nodes: the principal variation is searched in full.
            if beta - alpha == UNIT && ply > 0 && depth < empties {
                let table = self.bundle.probcut();
                if let Some(cut) = table.and_then(|table| table.get(empties, depth)) {
                    if let Some(value) =
                        self.probcut(board, cut, confidence, (alpha, beta), ply, stop)
                    {
                        return value;
                    }
                }
            }
        }

        let original_alpha = alpha;
        let mut best = -INF;
        let mut best_square = None;
        let order = if depth == 1 {
            ordering::by_square_rank(board, hint)
        } else {
            ordering::fastest_first(board, hint)
        };
        if self.use_table && depth >= 2 {
            // The children probe the table first thing: start their buckets' memory loads
            // now, so that they overlap instead of each child waiting for its own.
            for (i, &square) in order.as_slice().iter().enumerate() {
                self.tt
                    .prefetch(board.hash_after(square, order.flips_on(board, i)));
            }
        }
        // One ply above the leaves the children are evaluated without playing into them
        // (`leaf_after`): the same values, nodes and stop checks as the recursion, without
        // its make and undo.
        let leaves_in_place = depth == 1 && self.bundle.evaluator().patterns().is_some();
        let moves = order.as_slice();
        for (i, &square) in moves.iter().enumerate() {
            if i > 0 && moves.len() - i >= 2 && depth >= SPLIT_MIN_DEPTH && self.core.may_split() {
                let (node, window) = (SplitNode { depth, ply }, (alpha, beta));
                let searched = (best, best_square);
                let (value, split_best) =
                    parallel::split(self, board, &moves[i..], node, window, searched, stop);
                if self.core.stopped() {
                    return Score::ZERO;
                }
                if let Some(found) = split_best.filter(|_| split_best != best_square) {
                    best = value;
                    best_square = split_best;
                    if value > alpha {
                        // The move's line below is the thread's that searched it: this
                        // thread's line stops at the move (the root completes it from the
                        // table).
                        self.pv_len[ply + 1] = 0;
                        self.set_pv(ply, Move::Play(found));
                    }
                }
                break;
            }
            let flipped = order.flips_on(board, i);
            let value = if leaves_in_place {
                let probe = -self.leaf_after(board, square, flipped, -alpha, ply, stop);
                if i > 0 && probe > alpha && probe < beta {
                    // The null-window probe's re-search, as below (the same value, and the
                    // same node count and stop checks).
                    -self.leaf_after(board, square, flipped, -alpha, ply, stop)
                } else {
                    probe
                }
            } else {
                board.apply_flips(square, flipped);
                let value = if i == 0 {
                    -self.alphabeta(board, depth - 1, -beta, -alpha, ply + 1, stop)
                } else {
                    let probe =
                        -self.alphabeta(board, depth - 1, -alpha - UNIT, -alpha, ply + 1, stop);
                    if probe > alpha && probe < beta {
                        -self.alphabeta(board, depth - 1, -beta, -probe, ply + 1, stop)
                    } else {
                        probe
                    }
                };
                board.undo();
                value
            };
            if self.core.stopped() {
                return Score::ZERO;
            }
            if value > best {
                best = value;
                best_square = Some(square);
                if value > alpha {
                    alpha = value;
                    self.set_pv(ply, Move::Play(square));
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        if self.use_table {
            let bound = Bound::of_result(best, original_alpha, beta);
            self.tt.store(hash, depth as u8, bound, best, best_square);
        }
        best
    }

    /// The value, for its side to move, of the leaf after the side to move of `board` plays
    /// `square` flipping `flipped`, exactly as `alphabeta` at depth 0 on that position gives
    /// it (its node counted, the stop polled, its empty line of play), from the pattern
    /// evaluation's look-ups of the move's pattern indices and bitboards: the board is not
    /// played into. `board` has at least 2 empties (the leaf is not the full board, which
    /// the solver scores), and the search's evaluation is the pattern one. `beta` is the
    /// leaf's (minus the parent's alpha): a leaf whose lower bound reaches it takes that bound
    /// ([`crate::eval::pattern::LeafBounds::against`]), as at depth 0.
    #[inline]
    fn leaf_after(
        &mut self,
        board: &Board,
        square: Square,
        flipped: u64,
        beta: Score,
        ply: usize,
        stop: &StopCheck,
    ) -> Score {
        debug_assert!(board.empties() >= 2);
        self.pv_len[ply + 1] = 0;
        self.core.nodes += 1;
        if self.poll(stop) {
            return Score::ZERO;
        }
        let child = board.view().play(square.index(), flipped);
        self.eval_cache.value_against(child, beta, |beta| {
            let indices = board.pattern_indices_after(square, flipped);
            let leaf = LeafView::after_move(board, square, flipped, &indices);
            if leaf.moves == 0 && bits::mobility(leaf.opponent, leaf.player) == 0 {
                // A game that ended with empty squares left is scored exactly, not estimated.
                return LeafBounds::exact(Score::from_discs(bits::final_score(
                    leaf.player,
                    leaf.opponent,
                )));
            }
            let eval = self
                .bundle
                .evaluator()
                .patterns()
                .expect("leaves are evaluated in place only by the pattern evaluation");
            eval.leaf_bounds(&leaf, beta)
        })
    }

    /// Multi-ProbCut at a null-window node: `Some(beta)` when a shallow search predicts the
    /// deep value at or above beta with the given confidence, `Some(alpha)` when below alpha,
    /// `None` when the deep search is needed (see [`crate::eval::probcut`]).
    fn probcut(
        &mut self,
        board: &mut Board,
        cut: Cut,
        confidence: f32,
        (alpha, beta): (Score, Score),
        ply: usize,
        stop: &StopCheck,
    ) -> Option<Score> {
        let margin = confidence * cut.sigma;
        let inf = INF.units() as f32;
        // The shallow value that predicts `deep >= beta`, and the one predicting
        // `deep <= alpha`, clamped into the score range (in units, as the cut's fit is).
        let high = ((beta.units() as f32 + margin - cut.intercept) / cut.slope).ceil();
        let high = Score::from_units(high.clamp(-inf + 1.0, inf) as i32);
        if high < INF {
            let value = self.alphabeta(board, cut.shallow, high - UNIT, high, ply, stop);
            if self.core.stopped() {
                return Some(Score::ZERO);
            }
            if value >= high {
                return Some(beta);
            }
        }
        let low = ((alpha.units() as f32 - margin - cut.intercept) / cut.slope).floor();
        let low = Score::from_units(low.clamp(-inf, inf - 1.0) as i32);
        if low > -INF {
            let value = self.alphabeta(board, cut.shallow, low, low + UNIT, ply, stop);
            if self.core.stopped() {
                return Some(Score::ZERO);
            }
            if value <= low {
                return Some(alpha);
            }
        }
        None
    }

    /// The exact value of a node from the endgame solver, which polls the same stop check
    /// with its own node count.
    fn solve_node(
        &mut self,
        board: &mut Board,
        alpha: Score,
        beta: Score,
        stop: &StopCheck,
    ) -> Score {
        // Exact values are whole discs, so a disc window that contains the unit window gives
        // the same cut decisions.
        let bound = |discs: Discs| discs.clamp(-Discs::INFINITY, Discs::INFINITY);
        let low = bound(alpha.floor_discs());
        let high = bound(beta.ceil_discs());
        let stop = stop.less_nodes(self.core.nodes);
        let value = self.solver.search_nested(board, low, high, &stop);
        if self.solver.was_stopped() {
            self.core.set_stopped();
            return Score::ZERO;
        }
        Score::from_discs(value)
    }

    /// Makes `mv` followed by the child's PV the PV of `ply`.
    #[inline]
    fn set_pv(&mut self, ply: usize, mv: Move) {
        let child_len = self.pv_len[ply + 1].min(MAX_PLY - 1);
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply][0] = mv;
        head[ply][1..=child_len].copy_from_slice(&tail[0][..child_len]);
        self.pv_len[ply] = child_len + 1;
    }
}

/// The midgame search's side of its threads: a split point's context is its node's
/// remaining depth and ply.
impl SplitSearch for Search {
    type Context = SplitNode;
    type Value = Score;
    const UNIT: Score = UNIT;
    const NAME: &'static str = "midgame";

    #[inline]
    fn core(&mut self) -> &mut ThreadContext<SplitNode, Score> {
        &mut self.core
    }

    /// The nodes of the solves of nodes handed to the solver.
    fn nested_nodes(&self) -> u64 {
        self.solver.nodes()
    }

    fn helper(&self) -> Search {
        Search::helper(self)
    }

    /// The child of the node searched to the node's depth less one.
    fn search_child(
        &mut self,
        board: &mut Board,
        SplitNode { depth, ply }: SplitNode,
        alpha: Score,
        beta: Score,
        stop: &StopCheck,
    ) -> Score {
        self.alphabeta(board, depth - 1, alpha, beta, ply + 1, stop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::pattern::random_board;
    use crate::rng::Rng;
    use std::sync::atomic::AtomicBool;

    /// A one-thread full-width searcher without a table: values are plain minimax values.
    fn full_width() -> Search {
        Search::new(
            crate::search::SearchConfig::new(1, 1)
                .unwrap()
                .with_selectivity(None)
                .unwrap()
                .without_table(),
        )
    }

    fn discs(n: i32) -> Score {
        Score::from_discs(Discs::new(n))
    }

    /// Midgame positions with a legal move for the side to move.
    fn positions(seed: u64) -> Vec<Board> {
        let mut rng = Rng::new(seed);
        [8, 14, 20, 26, 32]
            .iter()
            .map(|&plies| random_board(&mut rng, plies))
            .filter(|board| board.has_legal_move() && board.empties() > 20)
            .collect()
    }

    #[test]
    fn a_window_gives_the_value_inside_it_and_a_true_bound_outside() {
        let flag = AtomicBool::new(false);
        let stop = StopCheck::new(&flag);
        let mut search = full_width();
        let mut checked = 0;
        for mut board in positions(3) {
            for depth in 1..=4 {
                let full = search.alphabeta(&mut board, depth, -INF, INF, 1, &stop);
                for (low, high) in [
                    (full - discs(3), full + discs(3)),
                    (full + discs(1), full + discs(10)),
                    (full - discs(10), full - discs(1)),
                    (full, full + UNIT),
                    (full - UNIT, full),
                ] {
                    let value = search.alphabeta(&mut board, depth, low, high, 1, &stop);
                    if value <= low {
                        assert!(full <= value, "fail low {value:?} under {full:?}");
                    } else if value >= high {
                        assert!(full >= value, "fail high {value:?} over {full:?}");
                    } else {
                        assert_eq!(value, full, "inside ({low:?}, {high:?})");
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked >= 60, "{checked} windows");
    }

    #[test]
    fn a_wrong_aspiration_guess_costs_re_searches_not_the_value() {
        let flag = AtomicBool::new(false);
        let stop = StopCheck::new(&flag);
        let mut search = full_width();
        for mut board in positions(7) {
            let depth = 4;
            let mut roots = root_moves(&board);
            let truth = search
                .root_iteration(&mut board, depth, &mut roots, 1, Score::ZERO, &stop)
                .unwrap();
            assert_eq!(
                truth,
                search.alphabeta(&mut board, depth, -INF, INF, 1, &stop),
                "the root's value is the node's"
            );
            for guess in [truth + discs(20), truth - discs(20), truth] {
                let mut roots = root_moves(&board);
                let value = search
                    .root_iteration(&mut board, depth, &mut roots, 1, guess, &stop)
                    .unwrap();
                assert_eq!(value, truth, "guess {guess:?}");
                assert_eq!(
                    roots[0].score, truth,
                    "the best root move carries the value"
                );
            }
        }
    }

    #[test]
    fn a_raised_stop_flag_ends_the_root_iteration_without_a_value() {
        let flag = AtomicBool::new(true);
        let stop = StopCheck::new(&flag);
        let mut search = full_width();
        let mut board = positions(11).remove(0);
        let mut roots = root_moves(&board);
        let before = board.clone();
        search.core = ThreadContext::new(0);
        assert_eq!(
            search.root_iteration(&mut board, 8, &mut roots, 1, Score::ZERO, &stop),
            None
        );
        assert_eq!(board, before, "the board is restored");
    }
}
