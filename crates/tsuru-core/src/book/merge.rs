//! Books merged (`tsuru book merge`): a book grown in shards on several machines, or by
//! several people, joined into one.
//!
//! A position in both books gets the union of their links and the sum of their game counts.
//! Its leaf (the best move outside the book) is the deeper of the two leaves that are still
//! outside the links (the first book's on a tie); when the links now cover both leaves and
//! some legal move is left, the position is listed for valuing again ([`Merged::unvalued`],
//! [`Book::revalue`]), as learning values a position whose leaf a game played. Values are
//! then backed up by negamax again.

use super::learn::Valuer;
use super::{Book, BookEntry, Key};

/// What a merge did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// Positions only the other book had.
    pub added: usize,
    /// Positions both books had, combined.
    pub combined: usize,
    /// Positions whose leaves both became links while a legal move is left outside them:
    /// they need a search ([`Book::revalue`]).
    pub unvalued: Vec<Key>,
}

impl Book {
    /// Merges `other` into this book (see the module documentation) and backs the values
    /// up; the positions listed in [`Merged::unvalued`] are left without a leaf.
    pub fn merge(&mut self, other: &Book) -> Merged {
        let mut merged = Merged::default();
        for (key, theirs) in other.sorted() {
            let Some(ours) = self.entries.get_mut(key) else {
                self.entries.insert(*key, theirs.clone());
                merged.added += 1;
                continue;
            };
            merged.combined += 1;
            let lost = combine(ours, theirs);
            if lost {
                merged.unvalued.push(*key);
            }
        }
        self.negamax();
        merged
    }

    /// Values the leaves of `keys` (positions in canonical form) with `valuer`, then backs
    /// the values up.
    pub fn revalue(&mut self, keys: &[Key], valuer: &mut dyn Valuer) {
        for key in keys {
            if let Ok(board) = key.board() {
                self.value_leaf(&board, valuer);
            }
        }
        self.negamax();
    }
}

/// Combines `theirs` into `ours`; whether the position lost its leaf with a move left open.
fn combine(ours: &mut BookEntry, theirs: &BookEntry) -> bool {
    let candidates = [(ours.leaf, ours.depth), (theirs.leaf, theirs.depth)];
    for link in &theirs.links {
        ours.add_link(link.square);
    }
    let links = ours.link_bits();
    let leaf = candidates
        .iter()
        .filter_map(|&(leaf, depth)| leaf.map(|leaf| (leaf, depth)))
        .filter(|(leaf, _)| links & leaf.square.bit() == 0)
        // The deepest; the first book's among equals (max_by_key keeps the last maximum).
        .rev()
        .max_by_key(|(_, depth)| *depth);
    ours.games.wins = ours.games.wins.saturating_add(theirs.games.wins);
    ours.games.draws = ours.games.draws.saturating_add(theirs.games.draws);
    ours.games.losses = ours.games.losses.saturating_add(theirs.games.losses);
    match leaf {
        Some((leaf, depth)) => {
            ours.leaf = Some(leaf);
            ours.depth = depth;
            false
        }
        None => {
            let had_leaf = candidates.iter().any(|(leaf, _)| leaf.is_some());
            ours.leaf = None;
            ours.depth = ours.depth.max(theirs.depth);
            had_leaf
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{notation, Board, Move};
    use crate::book::learn::tests::{Fixed, WIPEOUT};
    use crate::book::BookMove;
    use crate::score::Discs;

    /// Values as [`Fixed`] does, but in the canonical orientation, so that the leaf of a
    /// position does not depend on the orientation a game reached it in.
    struct Canonical;

    impl Valuer for Canonical {
        fn best_outside(&mut self, board: &Board, exclude: u64) -> Option<BookMove> {
            let (_, to_key) = Key::of(board);
            let open = board.legal_moves() & !exclude;
            crate::board::bits::squares(open)
                .min_by_key(|&sq| to_key.apply(sq).index())
                .map(|square| BookMove {
                    square,
                    value: Discs::new(to_key.apply(square).index() as i32 % 7 - 3),
                })
        }

        fn depth(&self) -> u8 {
            3
        }
    }

    fn learnt(games: &[&str], valuer: &mut dyn Valuer) -> Book {
        let mut book = Book::new();
        for game in games {
            let moves: Vec<Move> = notation::parse_transcript(game).unwrap();
            book.learn_game(&Board::start(), &moves, valuer).unwrap();
        }
        book
    }

    #[test]
    fn a_book_merged_with_itself_doubles_its_counts_and_keeps_its_values() {
        let book = learnt(&[WIPEOUT, "f5f6e6f4", "f5d6c3d3c4"], &mut Fixed);
        let mut doubled = book.clone();
        let merged = doubled.merge(&book);
        assert_eq!((merged.added, merged.combined), (0, book.len()));
        assert!(merged.unvalued.is_empty());
        for (key, entry) in book.sorted() {
            let twice = doubled.get(key).unwrap();
            assert_eq!(twice.links, entry.links);
            assert_eq!((twice.leaf, twice.depth), (entry.leaf, entry.depth));
            assert_eq!(twice.value(), entry.value());
            assert_eq!(twice.games.wins, 2 * entry.games.wins);
            assert_eq!(twice.games.draws, 2 * entry.games.draws);
            assert_eq!(twice.games.losses, 2 * entry.games.losses);
        }
    }

    #[test]
    fn two_shards_merged_equal_one_book_grown_from_both() {
        let games: Vec<String> = {
            let mut rng = crate::rng::Rng::new(7);
            (0..24)
                .map(|_| {
                    let mut board = Board::start();
                    let mut moves = Vec::new();
                    while !board.is_game_over() && moves.len() < 14 {
                        if board.must_pass() {
                            board.make_pass();
                            continue;
                        }
                        let legal: Vec<_> =
                            crate::board::bits::squares(board.legal_moves()).collect();
                        let sq = legal[rng.below(legal.len() as u64) as usize];
                        board.make_move(sq);
                        moves.push(sq.lower());
                    }
                    moves.concat()
                })
                .collect()
        };
        let mut all: Vec<&str> = games.iter().map(String::as_str).collect();
        all.push(WIPEOUT);
        let even: Vec<&str> = all.iter().step_by(2).copied().collect();
        let odd: Vec<&str> = all.iter().skip(1).step_by(2).copied().collect();
        let whole = learnt(&all, &mut Canonical);
        let mut shards = learnt(&even, &mut Canonical);
        let merged = shards.merge(&learnt(&odd, &mut Canonical));
        shards.revalue(&merged.unvalued, &mut Canonical);
        assert!(merged.combined > 0 && merged.added > 0, "{merged:?}");
        assert_eq!(shards.len(), whole.len());
        for (key, entry) in whole.sorted() {
            assert_eq!(shards.get(key), Some(entry), "{key:?}");
        }
        assert_eq!(shards, whole);
    }

    #[test]
    fn the_deeper_leaf_is_kept() {
        let board = Board::start();
        let mut shallow = Book::new();
        let (entry, to_key, _) = shallow.entry_mut(&board);
        entry.leaf = Some(BookMove {
            square: to_key.apply("f5".parse().unwrap()),
            value: Discs::new(1),
        });
        entry.depth = 4;
        let mut deep = shallow.clone();
        let (entry, _, _) = deep.entry_mut(&board);
        entry.leaf.as_mut().unwrap().value = Discs::new(-2);
        entry.depth = 12;
        let mut merged = shallow.clone();
        merged.merge(&deep);
        assert_eq!(merged, deep);
        let mut merged = deep.clone();
        merged.merge(&shallow);
        assert_eq!(merged, deep);
    }
}
