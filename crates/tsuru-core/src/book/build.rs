//! Growing the book by search: best-first expansion of the lines within a window of the best
//! value.
//!
//! From the roots (the start, or the positions of an opening list), [`Book::frontier`] walks
//! the book in order of *cost*: the discs given up along the way, each step costing how much
//! worse the move taken is than the position's best. Every leaf reached within the window is
//! a candidate, cheapest (then shallowest) first, except in positions within the build
//! level's exact-solve reach ([`horizon`]): they enter the book as leaves valued by the
//! exact solver, and are not expanded further. Expanding a candidate ([`expand`]) turns
//! the leaf into a link: the position it leads to enters the book with its own best move
//! valued by search, and the parent's next best move outside the book is searched. The
//! searches of one batch of candidates read the book only, so they run on as many threads
//! as there are candidates; [`Book::apply`] then stores them and [`Book::negamax`] backs up.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

use super::learn::{settle, Valuer};
use super::{next, Book, BookEntry, BookMove, Key, Next};
use crate::board::{Board, Move, Square};
use crate::score::Discs;
use crate::search::Level;

/// The empties at or below which a build at `level` expands no position: the level's
/// exact-solve threshold ([`Level::exact_empties`], 18 at level 12). A position there is
/// valued by the exact solver (its leaf is the exact best move, so its value is exact),
/// and the engine playing at that level solves it exactly by itself: expanding it would
/// spend the build's searches on what neither the book's values nor the engine's play
/// need. The win/loss/draw threshold above it is not used: its searches prove only the
/// sign of a value, and the lines through it are worth backing up from exact children.
pub fn horizon(level: Level) -> u32 {
    level.exact_empties()
}

/// A leaf to expand: a position (in the orientation its line reached it), the move, the
/// discs given up on the way, and the line from its root.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The position, as reached from the root.
    pub board: Board,
    /// The leaf move, in the orientation of `board`.
    pub square: Square,
    /// Discs given up from the root's best value to take this move.
    pub cost: Discs,
    /// The moves from the root, the leaf move last.
    pub line: Vec<Move>,
}

/// The searches of one expansion, made without changing the book.
#[derive(Clone, Debug)]
pub struct Expansion {
    parent: Key,
    /// The leaf move, canonical orientation.
    square: Square,
    /// The parent's next best move outside the book (canonical), and the depth.
    parent_leaf: Option<BookMove>,
    /// The position the move leads to, when it is new: its key and entry.
    child: Option<(Key, BookEntry)>,
    depth: u8,
}

impl Book {
    /// Up to `limit` leaves within `window` discs of the roots' best values, cheapest first
    /// (then shallowest), no two in the same position nor leading to the same one, and none
    /// in a position with `solved_empties` or fewer empty squares (a build passes its
    /// [`horizon`]; the lines below such a position are not walked). Roots not in the book
    /// are skipped.
    pub fn frontier(
        &self,
        roots: &[Board],
        window: Discs,
        solved_empties: u32,
        limit: usize,
    ) -> Vec<Candidate> {
        struct Node {
            board: Board,
            line: Vec<Move>,
        }
        let mut nodes: Vec<Node> = Vec::new();
        let mut heap = BinaryHeap::new();
        for root in roots {
            let mut board = root.without_history();
            settle(&mut board);
            heap.push(Reverse((Discs::ZERO, 0usize, nodes.len())));
            nodes.push(Node {
                board,
                line: Vec::new(),
            });
        }
        let mut visited = HashSet::new();
        let mut candidates: Vec<(Discs, usize, Candidate)> = Vec::new();
        while let Some(Reverse((cost, ply, index))) = heap.pop() {
            let (key, to_key) = Key::of(&nodes[index].board);
            if !visited.insert(key) {
                continue;
            }
            // Every position below has fewer empties still: nothing there is expanded.
            if nodes[index].board.empties() <= solved_empties {
                continue;
            }
            let Some(entry) = self.entries.get(&key) else {
                continue;
            };
            let Some(best) = entry.value() else {
                continue;
            };
            let back = to_key.inverse();
            if let Some(leaf) = entry.leaf {
                let cost = cost + best - leaf.value;
                if cost <= window {
                    let square = back.apply(leaf.square);
                    let mut line = nodes[index].line.clone();
                    line.push(Move::Play(square));
                    let board = nodes[index].board.clone();
                    let candidate = Candidate {
                        board,
                        square,
                        cost,
                        line,
                    };
                    candidates.push((cost, ply, candidate));
                }
            }
            for link in &entry.links {
                let cost = cost + best - link.value;
                if cost > window {
                    continue;
                }
                let square = back.apply(link.square);
                let parent = &nodes[index];
                if let Some(Next::Position { board, same_side }) = next(&parent.board, square) {
                    let mut line = parent.line.clone();
                    line.push(Move::Play(square));
                    if same_side {
                        line.push(Move::Pass);
                    }
                    heap.push(Reverse((cost, ply + 1, nodes.len())));
                    nodes.push(Node {
                        board: *board,
                        line,
                    });
                }
            }
        }
        // Ties go to the line first in square order, so every run picks the same batch.
        candidates.sort_by_cached_key(|(cost, ply, c)| {
            let squares: Vec<usize> = c
                .line
                .iter()
                .map(|m| m.square().map_or(64, Square::index))
                .collect();
            (*cost, *ply, squares)
        });
        let (mut parents, mut children) = (HashSet::new(), HashSet::new());
        let mut chosen = Vec::new();
        for (_, _, candidate) in candidates {
            if chosen.len() >= limit {
                break;
            }
            let parent = Key::of(&candidate.board).0;
            let child = match next(&candidate.board, candidate.square) {
                Some(Next::Position { board, .. }) => Some(Key::of(&board).0),
                _ => None,
            };
            if parents.contains(&parent) || child.is_some_and(|c| children.contains(&c)) {
                continue;
            }
            parents.insert(parent);
            children.extend(child);
            chosen.push(candidate);
        }
        chosen
    }

    /// Stores an expansion's searches and backs values up; the number of positions added.
    pub fn apply(&mut self, expansion: Expansion) -> usize {
        let mut added = 0;
        if let Some((key, entry)) = expansion.child {
            if let std::collections::hash_map::Entry::Vacant(slot) = self.entries.entry(key) {
                slot.insert(entry);
                added = 1;
            }
        }
        if let Some(parent) = self.entries.get_mut(&expansion.parent) {
            parent.add_link(expansion.square);
            let linked = parent.link_bits();
            parent.leaf = expansion
                .parent_leaf
                .filter(|leaf| linked & leaf.square.bit() == 0);
            parent.depth = expansion.depth;
        }
        added
    }
}

/// The searches that expand `candidate`, reading `book` only: the new position's best move
/// (when the move leads to a position not in the book) and the parent's next best move
/// outside the book once the leaf is a link.
pub fn expand(book: &Book, candidate: &Candidate, valuer: &mut dyn Valuer) -> Expansion {
    let (parent, to_key) = Key::of(&candidate.board);
    let back = to_key.inverse();
    let links = book.get(&parent).map_or(0, |entry| {
        entry
            .links
            .iter()
            .fold(0, |b, m| b | back.apply(m.square).bit())
    });
    let parent_leaf = valuer
        .best_outside(&candidate.board, links | candidate.square.bit())
        .map(|m| BookMove {
            square: to_key.apply(m.square),
            value: m.value,
        });
    let child = match next(&candidate.board, candidate.square) {
        Some(Next::Position { board, .. }) if !book.contains(&board) => {
            let (key, child_to_key) = Key::of(&board);
            let leaf = valuer.best_outside(&board, 0).map(|m| BookMove {
                square: child_to_key.apply(m.square),
                value: m.value,
            });
            let entry = BookEntry {
                leaf,
                depth: valuer.depth(),
                ..BookEntry::default()
            };
            Some((key, entry))
        }
        _ => None,
    };
    Expansion {
        parent,
        square: to_key.apply(candidate.square),
        parent_leaf,
        child,
        depth: valuer.depth(),
    }
}

/// Makes sure every root is in the book: the moves leading to it are learned as an
/// unfinished game (links along the way, leaves valued by `valuer`). Returns the positions
/// added.
pub fn add_roots(
    book: &mut Book,
    openings: &[Vec<Move>],
    valuer: &mut dyn Valuer,
) -> anyhow::Result<usize> {
    let mut added = 0;
    for moves in openings {
        added += book.learn_game(&Board::start(), moves, valuer)?.added;
    }
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::super::learn::tests::Fixed;
    use super::*;

    #[test]
    fn expansion_grows_the_cheapest_lines_and_keeps_values_backed_up() {
        let mut book = Book::new();
        let start = Board::start();
        add_roots(&mut book, &[Vec::new()], &mut Fixed).unwrap();
        assert_eq!(book.len(), 1);
        let mut total = 1;
        for _ in 0..6 {
            let batch = book.frontier(std::slice::from_ref(&start), Discs::ZERO, 0, 2);
            assert!(!batch.is_empty());
            let expansions: Vec<Expansion> =
                batch.iter().map(|c| expand(&book, c, &mut Fixed)).collect();
            for e in expansions {
                total += book.apply(e);
            }
            book.negamax();
        }
        assert_eq!(book.len(), total);
        assert!(total >= 7, "{total}");
        // Every link leads to a book position or ends the game.
        for (key, entry) in book.sorted() {
            let board = key.board().unwrap();
            for link in &entry.links {
                match next(&board, link.square).unwrap() {
                    Next::Over(_) => {}
                    Next::Position { board, .. } => assert!(book.contains(&board)),
                }
            }
            assert!(entry
                .leaf
                .is_none_or(|l| entry.link_bits() & l.square.bit() == 0));
        }
        // With every leaf worth -10 to its mover, the line alternates +10 and -10 back up.
        let root = book.get(&Key::of(&start).0).unwrap();
        assert_eq!(root.value().map(|v| v.get().abs()), Some(10));
    }

    #[test]
    fn a_build_expands_no_position_within_the_exact_solve_reach() {
        // Level 38 solves from 57 empties: three moves into the game. With a window that
        // takes every line, the build runs until nothing is left to expand.
        let level = Level::new(38).unwrap();
        let solved = horizon(level);
        assert_eq!(solved, 57);
        let mut book = Book::new();
        let start = Board::start();
        add_roots(&mut book, &[Vec::new()], &mut Fixed).unwrap();
        let mut rounds = 0;
        loop {
            let batch = book.frontier(std::slice::from_ref(&start), Discs::new(64), solved, 4);
            if batch.is_empty() {
                break;
            }
            for candidate in &batch {
                assert!(candidate.board.empties() > solved, "{:?}", candidate.line);
            }
            let expansions: Vec<Expansion> =
                batch.iter().map(|c| expand(&book, c, &mut Fixed)).collect();
            for e in expansions {
                book.apply(e);
            }
            book.negamax();
            rounds += 1;
            assert!(rounds < 1000, "the build does not end");
        }
        // Positions at the threshold were added and valued, but none has a book move.
        let mut at_threshold = 0;
        for (key, entry) in book.sorted() {
            let empties = key.board().unwrap().empties();
            assert!(empties >= solved, "{empties} empties: below the threshold");
            if empties <= solved {
                at_threshold += 1;
                assert!(entry.links.is_empty(), "{entry:?}");
                assert!(entry.leaf.is_some(), "{entry:?}");
            } else {
                // Above it, every line within the window was followed: no leaf is left.
                assert!(entry.leaf.is_none(), "{entry:?}");
            }
        }
        assert!(at_threshold > 0);
    }
}
