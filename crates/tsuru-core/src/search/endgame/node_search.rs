//! The solver's searches with a transposition table: board nodes (make/undo on the
//! [`Board`], ordered by the evaluation, ProbCut in selective passes, split among threads)
//! and view nodes (the bitboard view, fastest-first, the table from `TT_MIN_EMPTIES`).

use super::super::parallel;
use super::*;

impl EndgameSolver {
    /// The best value and move of `board` among `moves` (its legal moves, in order, but for
    /// those already searched, whose best value and move are `searched`: `(NO_MOVE, None)` when
    /// none is) within `(alpha, beta)`, fail-soft: the first move of the node with the full
    /// window, the others with a null window and re-searched when they land inside it. In a
    /// parallel solve the moves after the first are shared with idle threads
    /// ([`EndgameSolver::split`]) at nodes of at least [`SPLIT_MIN_EMPTIES`] empties. At the
    /// `root`, the stop check is also asked after each move searched alone. The node's
    /// `expect`ation is passed on to its children (see [`Expect`]). Meaningless if
    /// the thread is stopped.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn search_moves(
        &mut self,
        board: &mut Board,
        moves: &[Square],
        (mut alpha, beta): (Discs, Discs),
        searched: (Discs, Option<Square>),
        root: bool,
        expect: Expect,
        stop: &StopCheck,
    ) -> (Discs, Option<Square>) {
        let (mut best, mut best_square) = searched;
        let child = expect.child(alpha, beta);
        for (i, &square) in moves.iter().enumerate() {
            let first = i == 0 && searched.1.is_none();
            if !first && moves.len() - i >= 2 && self.may_split(board) {
                let (rest, level) = (&moves[i..], self.level);
                let searched = (best, best_square);
                return parallel::split(self, board, rest, level, (alpha, beta), searched, stop);
            }
            let flipped = board.flips(square);
            board.apply_flips(square, flipped);
            let value = if first {
                -self.node_expecting(board, -beta, -alpha, child, stop)
            } else {
                let probe = -self.node_expecting(board, -alpha - Discs::ONE, -alpha, child, stop);
                if probe > alpha && probe < beta {
                    -self.node(board, -beta, -probe, stop)
                } else {
                    probe
                }
            };
            board.undo();
            if self.core.stopped() || (root && stop.should_stop(self.core.nodes)) {
                self.core.set_stopped();
                break;
            }
            if value > best {
                best = value;
                best_square = Some(square);
                if value > alpha {
                    alpha = value;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        (best, best_square)
    }

    /// Whether to share the rest of this node's moves: a parallel solve, a node big enough,
    /// an idle thread to take them and room on this thread's stack of split points.
    #[inline]
    fn may_split(&self, board: &Board) -> bool {
        board.empties() >= SPLIT_MIN_EMPTIES && self.core.may_split()
    }

    /// Negamax value at an upper node (see the module doc), expected to cut off if its
    /// window is null.
    #[inline]
    pub(super) fn node(
        &mut self,
        board: &mut Board,
        alpha: Discs,
        beta: Discs,
        stop: &StopCheck,
    ) -> Discs {
        self.node_expecting(board, alpha, beta, Expect::Cut, stop)
    }

    /// Negamax value at an upper node (see the module doc) whose null window is `expect`ed
    /// to cut off or not; the expectation is passed down to the view nodes, which act on it.
    pub(super) fn node_expecting(
        &mut self,
        board: &mut Board,
        mut alpha: Discs,
        mut beta: Discs,
        expect: Expect,
        stop: &StopCheck,
    ) -> Discs {
        let empties = board.empties();
        if empties <= VIEW_MAX_EMPTIES {
            return self.view_node_expecting(board.view(), alpha, beta, expect, stop);
        }
        let child = expect.child(alpha, beta);
        self.core.nodes += 1;
        let start = self.core.nodes;
        if self.poll(stop) {
            return Discs::ZERO;
        }
        if let Some(upper) = stability_bound(board.view(), alpha) {
            if upper <= alpha {
                return upper;
            }
            beta = beta.min(upper);
        }

        let hash = board.hash();
        let tag = self.tag(empties);
        let mut hint = None;
        if empties >= TT_MIN_EMPTIES {
            if let Some(entry) = self.tt.probe(hash) {
                hint = entry.best;
                if let Some(score) = narrow(entry, tag, &mut alpha, &mut beta) {
                    return score;
                }
            }
        }

        if !board.has_legal_move() {
            if !board.opponent_has_legal_move() {
                return board.final_score(board.side_to_move());
            }
            board.make_pass();
            let value = -self.node_expecting(board, -beta, -alpha, child, stop);
            board.undo();
            return value;
        }

        // Enhanced transposition cutoff: a child already proven bad enough for the opponent
        // refutes this node without a search.
        if empties >= ETC_MIN_EMPTIES {
            let child_tag = self.tag(empties - 1);
            for square in bits::squares(board.legal_moves()) {
                let child = self.tt.probe(child_hash(board, square));
                if let Some(value) = child.and_then(|entry| refutes(entry, child_tag, beta)) {
                    return value;
                }
            }
        }

        if let Some(level) = self.level {
            // Only null-window nodes: the principal variation is searched in full.
            if beta - alpha == Discs::ONE && empties >= PROBCUT_MIN_EMPTIES {
                let confidence = SELECTIVE_LEVELS[level].0;
                if let Some(value) = self.probcut(board, empties, alpha, beta, confidence) {
                    self.store(hash, tag, value, (alpha, beta), hint, start);
                    return value;
                }
            }
        }

        let original_alpha = alpha;
        let mut moves = board.legal_moves();
        let mut searched = (NO_MOVE, None);
        // The table's move first, alone: when it reaches beta, the evaluation's order of the
        // others is not needed.
        if let Some(square) = hint.filter(|square| moves & square.bit() != 0) {
            let flipped = board.flips(square);
            board.apply_flips(square, flipped);
            let value = -self.node_expecting(board, -beta, -alpha, child, stop);
            board.undo();
            if self.core.stopped() {
                return Discs::ZERO;
            }
            searched = (value, Some(square));
            alpha = alpha.max(value);
            moves &= !square.bit();
        }
        let (best, best_square) = if alpha >= beta || moves == 0 {
            searched
        } else {
            let order = ordering::solver_order_of(board, moves, self.bundle.evaluator());
            self.search_moves(
                board,
                order.as_slice(),
                (alpha, beta),
                searched,
                false,
                expect,
                stop,
            )
        };
        if self.core.stopped() {
            return Discs::ZERO;
        }
        if empties >= TT_MIN_EMPTIES {
            self.store(hash, tag, best, (original_alpha, beta), best_square, start);
        }
        best
    }

    /// ProbCut at a null-window node of a selective pass: `Some(beta)` when a shallow search
    /// predicts the exact value at or above beta with the given confidence, `Some(alpha)`
    /// when at or below alpha, `None` when the node must be searched.
    fn probcut(
        &mut self,
        board: &mut Board,
        empties: u32,
        alpha: Discs,
        beta: Discs,
        confidence: f32,
    ) -> Option<Discs> {
        let cut = self
            .bundle
            .endgame_cuts()?
            .get(empties, probcut_shallow_depth(empties))?;
        if let Some(sample) = &mut self.probcut_sample {
            // A measurement's sample (never as the engine plays).
            sample.offer(board, empties);
        }
        let margin = confidence * cut.sigma;
        // The shallow search's values, and the cut's fit, are in score units.
        let units = |discs: Discs| Score::from_discs(discs).units() as f32;
        let shallow = |units: f32| Score::from_units(units as i32);
        let high = shallow(((units(beta) + margin - cut.intercept) / cut.slope).ceil());
        if high <= Score::MAX
            && self.eval_search(board, cut.shallow, high - Score::UNIT, high) >= high
        {
            return Some(beta);
        }
        let low = shallow(((units(alpha) - margin - cut.intercept) / cut.slope).floor());
        if low >= -Score::MAX && self.eval_search(board, cut.shallow, low, low + Score::UNIT) <= low
        {
            return Some(alpha);
        }
        None
    }

    /// Negamax value of the bitboard view with at most [`VIEW_MAX_EMPTIES`] empties: the
    /// same node as [`EndgameSolver::node`] without the board's make/undo, hashed by
    /// [`BitView::hash`], its null window `expect`ed to cut off or not: a node expected to
    /// search all its moves has their table buckets fetched into the cache at once, beyond
    /// the first [`ETC_PROBES`] that the transposition cutoff loads.
    #[inline]
    pub(super) fn view_node_expecting(
        &mut self,
        view: BitView,
        alpha: Discs,
        beta: Discs,
        expect: Expect,
        stop: &StopCheck,
    ) -> Discs {
        self.view_node_with(view, UNKNOWN_MOVES, alpha, beta, expect, stop)
    }

    /// [`EndgameSolver::view_node_expecting`] given the side to move's legal squares
    /// (`known_moves`, from the parent's move ordering), or [`UNKNOWN_MOVES`]. Always
    /// inlined, so that a position for the leaf search goes there without setting up the
    /// large frame of [`EndgameSolver::view_node_search`] (six saved registers and the move
    /// arrays): 0.96 M of the 2.44 M calls on FFO #22-#27 are leaves.
    #[inline(always)]
    fn view_node_with(
        &mut self,
        view: BitView,
        known_moves: u64,
        alpha: Discs,
        beta: Discs,
        expect: Expect,
        stop: &StopCheck,
    ) -> Discs {
        let empties = view.empties();
        if empties <= LEAF_EMPTIES {
            return self.leaf_entry(view, alpha, beta);
        }
        self.view_node_search(view, empties, known_moves, alpha, beta, expect, stop)
    }

    /// [`EndgameSolver::view_node_with`] above the leaf search's empties (`empties` of them).
    #[allow(clippy::too_many_arguments)]
    fn view_node_search(
        &mut self,
        view: BitView,
        empties: u32,
        known_moves: u64,
        mut alpha: Discs,
        mut beta: Discs,
        expect: Expect,
        stop: &StopCheck,
    ) -> Discs {
        self.core.nodes += 1;
        let start = self.core.nodes;
        if self.poll(stop) {
            return Discs::ZERO;
        }
        if let Some(upper) = stability_bound(view, alpha) {
            if upper <= alpha {
                return upper;
            }
            beta = beta.min(upper);
        }

        let hash = (empties >= TT_MIN_EMPTIES).then(|| view.hash());
        let cached = empties <= CACHE_MAX_EMPTIES;
        let mut hint = NO_SQUARE;
        if let Some(hash) = hash {
            let known = if cached {
                self.thread_table.probe(hash)
            } else {
                self.tt.probe(hash)
            };
            if let Some(entry) = known {
                hint = entry.best.map_or(NO_SQUARE, |sq| sq.index() as u8);
                if let Some(score) = narrow(entry, EXACT_TAG, &mut alpha, &mut beta) {
                    return score;
                }
            }
        }

        let moves = if known_moves == UNKNOWN_MOVES {
            view.mobility()
        } else {
            known_moves
        };
        if moves == 0 {
            let replies = view.passed().mobility();
            if replies == 0 {
                return final_diff(view, empties as i32);
            }
            return -self.view_node_with(
                view.passed(),
                replies,
                -beta,
                -alpha,
                expect.child(alpha, beta),
                stop,
            );
        }

        // The moves with their flips, fastest-first (see `ordering::reply_key`), sorted as
        // packed words: the key above the byte that indexes `squares` and `flips` (the hint's
        // key is 0, every other key is at least 1). A node with k empties has at most k moves.
        let mut order = [0u64; VIEW_MAX_EMPTIES as usize];
        let mut squares = [0u8; VIEW_MAX_EMPTIES as usize];
        let mut flips = [0u64; VIEW_MAX_EMPTIES as usize];
        // Each child's legal squares, computed for its key and handed down to it.
        let mut replies = [UNKNOWN_MOVES; VIEW_MAX_EMPTIES as usize];
        let mut n = 0;
        let even = even_quadrants(view.empty());
        for square in bits::squares(moves) {
            let flipped = view.flips(square.index());
            let key = if square.index() as u8 == hint {
                0
            } else {
                let child_moves = view.play(square.index(), flipped).mobility();
                replies[n] = child_moves;
                1 + ordering::replies_key(child_moves, square) as u64
                    + if even & square.bit() != 0 {
                        PARITY_KEY as u64
                    } else {
                        0
                    }
            };
            squares[n] = square.index() as u8;
            flips[n] = flipped;
            order[n] = key << 8 | n as u64;
            n += 1;
        }
        for i in 1..n {
            let item = order[i];
            let mut j = i;
            while j > 0 && order[j - 1] > item {
                order[j] = order[j - 1];
                j -= 1;
            }
            order[j] = item;
        }
        let nth = |word: u64| {
            let k = (word & 0xff) as usize;
            (squares[k], flips[k])
        };

        let child_expect = expect.child(alpha, beta);
        if empties >= ETC_MIN_EMPTIES && empties - 1 <= CACHE_MAX_EMPTIES {
            // The children's entries are in this thread's cache: cheap enough to ask them all.
            for &word in order[..n].iter() {
                let (sq, flipped) = nth(word);
                let entry = self
                    .thread_table
                    .probe(view.play(sq as usize, flipped).hash());
                if let Some(value) = entry.and_then(|entry| refutes(entry, EXACT_TAG, beta)) {
                    return value;
                }
            }
        } else if empties >= ETC_MIN_EMPTIES {
            for &word in order[..n].iter().take(ETC_PROBES) {
                let (sq, flipped) = nth(word);
                let entry = self.tt.probe(view.play(sq as usize, flipped).hash());
                if let Some(value) = entry.and_then(|entry| refutes(entry, EXACT_TAG, beta)) {
                    return value;
                }
            }
            // Every child of an all node is searched: its bucket's cache miss is better taken
            // now, overlapping the others', than one at a time as each is reached.
            if expect.searches_all(alpha, beta) {
                for &word in order[..n].iter().skip(ETC_PROBES) {
                    let (sq, flipped) = nth(word);
                    self.tt.prefetch(view.play(sq as usize, flipped).hash());
                }
            }
        }

        let original_alpha = alpha;
        let mut best = NO_MOVE;
        let mut best_square = NO_SQUARE;
        for (i, &word) in order[..n].iter().enumerate() {
            let (sq, flipped) = nth(word);
            let child = view.play(sq as usize, flipped);
            let child_moves = replies[(word & 0xff) as usize];
            let value = if i == 0 {
                -self.view_node_with(child, child_moves, -beta, -alpha, child_expect, stop)
            } else {
                let probe = -self.view_node_with(
                    child,
                    child_moves,
                    -alpha - Discs::ONE,
                    -alpha,
                    child_expect,
                    stop,
                );
                if probe > alpha && probe < beta {
                    -self.view_node_with(child, child_moves, -beta, -probe, Expect::Cut, stop)
                } else {
                    probe
                }
            };
            if self.core.stopped() {
                return Discs::ZERO;
            }
            if value > best {
                best = value;
                best_square = sq;
                if value > alpha {
                    alpha = value;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        if let Some(hash) = hash.filter(|_| cached) {
            self.thread_table
                .store(hash, best, (original_alpha, beta), best_square);
        } else if let Some(hash) = hash {
            self.store(
                hash,
                EXACT_TAG,
                best,
                (original_alpha, beta),
                Square::new(best_square as usize),
                start,
            );
        }
        best
    }
}

impl EndgameSolver {
    /// The best move the tables hold for `board`, looked up where a node of its empties keeps
    /// its entry: the shared table under the board's hash above [`VIEW_MAX_EMPTIES`], the
    /// thread's cache or the shared table under the view's hash from [`TT_MIN_EMPTIES`] (see
    /// [`EndgameSolver::view_node_search`]), none below.
    pub(super) fn known_best(&self, board: &Board) -> Option<Square> {
        self.known_bounds(board).and_then(|entry| entry.best)
    }

    /// The entry the tables hold for `board`, looked up where a node of its empties keeps it
    /// (as [`EndgameSolver::known_best`] says); `None` below [`TT_MIN_EMPTIES`].
    fn known_bounds(&self, board: &Board) -> Option<Bounds> {
        let empties = board.empties();
        if empties > VIEW_MAX_EMPTIES {
            self.tt.probe(board.hash())
        } else if empties > CACHE_MAX_EMPTIES {
            self.tt.probe(board.view().hash())
        } else if empties >= TT_MIN_EMPTIES {
            self.thread_table.probe(board.view().hash())
        } else {
            None
        }
    }
}

/// The table key of the child of the board node `board` after the move on `square` (legal):
/// the board's hash after the move for a child that is a board node, the view's
/// ([`BitView::hash`]) for one that is a view node, as each keeps its entries.
#[inline]
fn child_hash(board: &Board, square: Square) -> u64 {
    if board.empties() - 1 <= VIEW_MAX_EMPTIES {
        let (view, sq) = (board.view(), square.index());
        view.play(sq, view.flips(sq)).hash()
    } else {
        board.hash_after(square, board.flips(square))
    }
}

/// A view node's legal squares not yet computed: no position has every square legal.
const UNKNOWN_MOVES: u64 = u64::MAX;

/// Applies a table entry's bounds to the window: `Some(value)` when they settle the node
/// (a lower bound at or above beta, an upper bound at or below alpha, or the two equal),
/// otherwise narrows `alpha` and `beta` to them. Entries tagged below `tag` (less confident
/// selective passes) are ignored.
#[inline]
fn narrow(entry: Bounds, tag: u8, alpha: &mut Discs, beta: &mut Discs) -> Option<Discs> {
    if entry.tag < tag {
        return None;
    }
    if entry.lower >= *beta || entry.lower == entry.upper {
        return Some(entry.lower);
    }
    if entry.upper <= *alpha {
        return Some(entry.upper);
    }
    *alpha = (*alpha).max(entry.lower);
    *beta = (*beta).min(entry.upper);
    None
}

/// Enhanced transposition cutoff: the parent's value when a child's entry proves the move
/// reaches `beta` (the child is worth at most `-beta` to its side). The entry's tag must be
/// at least `tag` (see [`narrow`]).
#[inline]
fn refutes(child: Bounds, tag: u8, beta: Discs) -> Option<Discs> {
    let value = -child.upper;
    (child.tag >= tag && value >= beta).then_some(value)
}

/// Depth of the shallow search that predicts the exact value of a node with `empties`
/// empties in a selective pass: deeper as the exact search it replaces grows, at most a few
/// per cent of its cost.
fn probcut_shallow_depth(empties: u32) -> u32 {
    match empties {
        0..=19 => 2,
        20..=23 => 4,
        24..=27 => 6,
        _ => 8,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use crate::board::Color;
    use crate::rng::Rng;
    use std::collections::HashSet;
    use std::sync::atomic::AtomicBool;

    /// View nodes from 6 to 11 empties (the thread's cache from [`TT_MIN_EMPTIES`] to
    /// [`CACHE_MAX_EMPTIES`], the transposition cutoff from [`ETC_MIN_EMPTIES`]) against
    /// minimax, fail-soft in random windows, expected to cut off or to search all their moves,
    /// the cache kept between searches as in a solve: 2000 random positions at 6 and 7
    /// empties, 500 at 8 and 9, 150 at 10, 50 at 11, with passes, finished games and wipe-outs
    /// among them.
    #[test]
    fn view_nodes_equal_minimax() {
        let mut rng = Rng::new(40);
        let mut solver = EndgameSolver::new(&crate::search::SearchConfig::new(1, 1).unwrap());
        let flag = AtomicBool::new(false);
        let stop = StopCheck::new(&flag);
        for empties in LEAF_EMPTIES + 1..=CACHE_MAX_EMPTIES {
            let (mut tested, mut kinds) = (0, Kinds::default());
            // Thousands where minimax is quick, fewer where it is not.
            let positions = match empties {
                ..=7 => 2000,
                8 | 9 => 500,
                10 => 150,
                _ => 50,
            };
            while tested < positions {
                let Some(view) = random_view(&mut rng, empties) else {
                    continue;
                };
                tested += 1;
                let exact = minimax(view);
                kinds.count(view);
                for expect in [Expect::Cut, Expect::All, Expect::Cut] {
                    let window = random_window(&mut rng, exact);
                    let value = solver.view_node_expecting(view, window.0, window.1, expect, &stop);
                    assert_fail_soft(value, exact, window, &format!("{expect:?} {view:?}"));
                }
            }
            let (min, min_finished) = match empties {
                ..=7 => (20, 5),
                8 | 9 => (5, 0),
                10 => (2, 0),
                // Passes are rare this far from the end: fewer empties test them.
                _ => (0, 0),
            };
            kinds.assert_at_least(min, min_finished, &format!("{empties} empties"));
        }
    }

    /// The transposition cutoff of a board node finds its children's entries, whichever
    /// kind of node the children are: after a full-window search of a board node of
    /// [`EVAL_ORDER_EMPTIES`] empties (whose children are view nodes) or one more (board
    /// nodes), every child was searched and stored, and [`child_hash`] reads its entry.
    #[test]
    fn board_nodes_find_their_childrens_entries() {
        let mut rng = Rng::new(42);
        let flag = AtomicBool::new(false);
        let stop = StopCheck::new(&flag);
        let mut tested = 0;
        while tested < 6 {
            let empties = ordering::EVAL_ORDER_EMPTIES + (tested % 2) as u32;
            let Some(mut board) = random_board(&mut rng, empties) else {
                continue;
            };
            tested += 1;
            let mut solver = EndgameSolver::new(&crate::search::SearchConfig::new(1, 1).unwrap());
            solver.node(&mut board, -Discs::MAX, Discs::MAX, &stop);
            for square in bits::squares(board.legal_moves()) {
                let entry = solver.tt.probe(child_hash(&board, square));
                assert!(entry.is_some(), "{empties} empties, move {square:?}");
            }
        }
    }

    /// After a search, the best move of a node of each kind (a board node, a view node in
    /// the shared table, one in the thread's cache) is found where the node stored it, and is
    /// legal there; the board's hash alone finds none below the board nodes.
    #[test]
    fn known_best_moves_are_found_where_each_node_keeps_them() {
        let mut rng = Rng::new(43);
        let flag = AtomicBool::new(false);
        let stop = StopCheck::new(&flag);
        let mut tested = 0;
        for empties in [
            VIEW_MAX_EMPTIES + 1,
            CACHE_MAX_EMPTIES + 1,
            TT_MIN_EMPTIES + 2,
        ] {
            let mut found = 0;
            for _ in 0..40 {
                let Some(mut board) = random_board(&mut rng, empties)
                    .filter(|board| board.legal_moves().count_ones() >= 2)
                else {
                    continue;
                };
                let mut solver =
                    EndgameSolver::new(&crate::search::SearchConfig::new(1, 1).unwrap());
                solver.node(&mut board, -Discs::MAX, Discs::MAX, &stop);
                tested += 1;
                if let Some(square) = solver.known_best(&board) {
                    assert!(board.legal_moves() & square.bit() != 0);
                    found += 1;
                }
                if empties <= VIEW_MAX_EMPTIES {
                    assert!(solver.tt.probe(board.hash()).is_none());
                }
            }
            assert!(found >= 10, "{empties} empties: {found} found");
        }
        assert!(tested >= 60);
    }

    /// The exact value of `view` for its side to move, from outside any tested solver:
    /// minimax up to 10 empties, above that the full-window value of a new solver (its tables
    /// empty, so nothing another solver stored can reach it).
    fn exact_value(view: BitView) -> Discs {
        if view.empties() <= 10 {
            return minimax(view);
        }
        let flag = AtomicBool::new(false);
        let mut board = Board::from_discs(view.player, view.opponent, Color::Black)
            .expect("a position of a game");
        EndgameSolver::new(&crate::search::SearchConfig::new(1, 1).unwrap()).node(
            &mut board,
            -Discs::MAX,
            Discs::MAX,
            &StopCheck::new(&flag),
        )
    }

    /// The entries tagged exact that `solver` holds for the tree it searched below `root`:
    /// the root's children (a solve's root keeps no entry), then the children of each
    /// position holding an entry (of any tag) and the pass of each without a move, down to
    /// [`TT_MIN_EMPTIES`], each position once.
    fn searched_entries(solver: &EndgameSolver, root: &mut Board) -> Vec<(BitView, Bounds)> {
        fn visit(
            solver: &EndgameSolver,
            board: &mut Board,
            searched: bool,
            seen: &mut HashSet<u64>,
            found: &mut Vec<(BitView, Bounds)>,
        ) {
            if board.empties() < TT_MIN_EMPTIES || !seen.insert(board.hash()) {
                return;
            }
            if !board.has_legal_move() {
                if board.opponent_has_legal_move() {
                    board.make_pass();
                    visit(solver, board, searched, seen, found);
                    board.undo();
                }
                return;
            }
            let entry = solver.known_bounds(board);
            if let Some(entry) = entry.filter(|entry| entry.tag == EXACT_TAG) {
                found.push((board.view(), entry));
            }
            if !searched && entry.is_none() {
                return;
            }
            for square in bits::squares(board.legal_moves()) {
                board.apply_flips(square, board.flips(square));
                visit(solver, board, false, seen, found);
                board.undo();
            }
        }
        let mut found = Vec::new();
        visit(solver, root, true, &mut HashSet::new(), &mut found);
        found
    }

    /// Every exact bound the solver's tables hold is right (issue 54's test of its caches
    /// and tables). One solver, kept across its searches as a game keeps it, searches random
    /// roots: of 12 empties (the thread's cache and the shared table under the view's hash)
    /// and 16 (board nodes under the board's hash too) in random windows, expected to cut
    /// off or not, and of [`SELECTIVE_ROOT_EMPTIES`] and two more solved with the selective
    /// passes, whose own entries are tagged below exact. After each root, a sample of the
    /// exact entries of its searched tree, at every count of empties, must hold the
    /// position's value ([`exact_value`]).
    #[test]
    fn exact_entries_hold_the_positions_values() {
        let mut rng = Rng::new(44);
        let flag = AtomicBool::new(false);
        let stop = StopCheck::new(&flag);
        let mut solver = EndgameSolver::new(&crate::search::SearchConfig::new(16, 1).unwrap());
        let roots = [
            12,
            12,
            12,
            16,
            16,
            SELECTIVE_ROOT_EMPTIES,
            SELECTIVE_ROOT_EMPTIES + 2,
        ];
        let mut checked = [0usize; 64];
        let mut next = 0;
        while next < roots.len() {
            let empties = roots[next];
            let Some(mut board) = random_board(&mut rng, empties) else {
                continue;
            };
            next += 1;
            if empties >= SELECTIVE_ROOT_EMPTIES {
                solver
                    .solve(&mut board, SolveMode::Exact, &flag)
                    .expect("not stopped");
            } else {
                let exact = exact_value(board.view());
                for expect in [Expect::Cut, Expect::All] {
                    let (alpha, beta) = random_window(&mut rng, exact);
                    solver.node_expecting(&mut board, alpha, beta, expect, &stop);
                }
            }
            let found = searched_entries(&solver, &mut board);
            for e in TT_MIN_EMPTIES..=empties {
                let at: Vec<_> = found
                    .iter()
                    .filter(|(view, _)| view.empties() == e)
                    .collect();
                // Every k-th entry, so that the deep counts (slow to check) stay few.
                let most = match e {
                    ..=8 => 200,
                    9 | 10 => 40,
                    11..=13 => 12,
                    _ => 4,
                };
                for &&(view, entry) in at.iter().step_by(at.len().div_ceil(most).max(1)) {
                    let exact = exact_value(view);
                    assert!(
                        entry.lower <= exact && exact <= entry.upper,
                        "{view:?}: {exact:?} outside {entry:?}, root of {empties} empties"
                    );
                    checked[e as usize] += 1;
                }
            }
        }
        let sum = |from: u32, to: u32| (from..=to).map(|e| checked[e as usize]).sum::<usize>();
        let (cache, view_table, board_table) = (
            sum(TT_MIN_EMPTIES, CACHE_MAX_EMPTIES),
            sum(CACHE_MAX_EMPTIES + 1, VIEW_MAX_EMPTIES),
            sum(VIEW_MAX_EMPTIES + 1, 63),
        );
        assert!(
            cache >= 1000,
            "{cache} entries of the thread's cache checked"
        );
        assert!(
            view_table >= 40,
            "{view_table} view entries of the table checked"
        );
        assert!(
            board_table >= 10,
            "{board_table} board entries of the table checked"
        );
    }

    #[test]
    fn expectations_alternate_under_null_windows() {
        let (alpha, null, wide) = (Discs::new(2), Discs::new(3), Discs::new(8));
        // Null windows: cut and all nodes alternate; only an all node searches everything.
        assert_eq!(Expect::Cut.child(alpha, null), Expect::All);
        assert_eq!(Expect::All.child(alpha, null), Expect::Cut);
        assert!(Expect::All.searches_all(alpha, null));
        assert!(!Expect::Cut.searches_all(alpha, null));
        // A wider window's null-window children are cut nodes, and it searches as it must.
        assert_eq!(Expect::All.child(alpha, wide), Expect::Cut);
        assert_eq!(Expect::Cut.child(alpha, wide), Expect::Cut);
        assert!(!Expect::All.searches_all(alpha, wide));
    }

    #[test]
    fn table_entries_narrow_the_window_by_their_bounds() {
        let d = Discs::new;
        let bounds = |lower: i32, upper: i32, tag: u8| Bounds {
            lower: d(lower),
            upper: d(upper),
            tag,
            best: None,
        };
        let narrowed = |entry: Bounds, tag: u8, (alpha, beta): (i32, i32)| {
            let (mut alpha, mut beta) = (d(alpha), d(beta));
            let settled = narrow(entry, tag, &mut alpha, &mut beta);
            (settled.map(Discs::get), alpha.get(), beta.get())
        };
        // Equal bounds settle the node, a lower bound at or above beta too, an upper bound at
        // or below alpha too.
        assert_eq!(
            narrowed(bounds(4, 4, EXACT_TAG), EXACT_TAG, (-10, 10)).0,
            Some(4)
        );
        assert_eq!(
            narrowed(bounds(12, 64, EXACT_TAG), EXACT_TAG, (-10, 10)).0,
            Some(12)
        );
        assert_eq!(
            narrowed(bounds(-64, -12, EXACT_TAG), EXACT_TAG, (-10, 10)).0,
            Some(-12)
        );
        // Bounds inside the window narrow it, on both sides at once.
        assert_eq!(
            narrowed(bounds(2, 6, EXACT_TAG), EXACT_TAG, (-10, 10)),
            (None, 2, 6)
        );
        assert_eq!(
            narrowed(bounds(-64, 6, EXACT_TAG), EXACT_TAG, (-10, 10)),
            (None, -10, 6)
        );
        // An entry tagged below the node's tag is ignored; one above it is used.
        assert_eq!(
            narrowed(bounds(4, 4, SELECTIVE_TAG), EXACT_TAG, (-10, 10)),
            (None, -10, 10)
        );
        assert_eq!(
            narrowed(bounds(4, 4, EXACT_TAG), SELECTIVE_TAG, (-10, 10)).0,
            Some(4)
        );
        // A child worth at most -12 to its side refutes a parent searched with beta 10; a
        // child known only from below does not.
        assert_eq!(
            refutes(bounds(-64, -12, EXACT_TAG), EXACT_TAG, d(10)),
            Some(d(12))
        );
        assert_eq!(refutes(bounds(-12, 64, EXACT_TAG), EXACT_TAG, d(10)), None);
        assert_eq!(refutes(bounds(-8, -8, EXACT_TAG), EXACT_TAG, d(10)), None);
        assert_eq!(
            refutes(bounds(-64, -12, SELECTIVE_TAG), EXACT_TAG, d(10)),
            None
        );
    }
}
