//! Learning games into the book, and the searches that value what the games leave open.
//!
//! A learned game adds each position it went through (settled: forced passes played) with
//! the move played there as a link, counts its result in every one of them when it is
//! finished, values the best move outside the book of every position that is new or whose
//! leaf the game just played (a [`Valuer`]: the engine's search, or a stand-in in tests),
//! adds the game's last position when the game did not end, and backs all values up.

use std::sync::atomic::AtomicBool;

use anyhow::Result;

use super::{Book, BookMove, Key};
use crate::board::{Board, Move, Square};
use crate::search::{Level, Search, SearchLimits};

/// Values the best move of a position outside a set of moves.
pub trait Valuer {
    /// The best legal move of `board` not in `exclude` (a bitboard of squares) with its value
    /// in discs for the side to move; `None` when every legal move is excluded.
    fn best_outside(&mut self, board: &Board, exclude: u64) -> Option<BookMove>;

    /// The depth recorded with the values (the level searched).
    fn depth(&self) -> u8;
}

/// The engine's search at a level: midgame depth, then the exact solver near the end.
pub struct SearchValuer<'s> {
    search: &'s mut Search,
    level: Level,
}

impl<'s> SearchValuer<'s> {
    /// Values with `search` at `level`.
    pub fn new(search: &'s mut Search, level: Level) -> SearchValuer<'s> {
        SearchValuer { search, level }
    }
}

impl Valuer for SearchValuer<'_> {
    fn best_outside(&mut self, board: &Board, exclude: u64) -> Option<BookMove> {
        let legal = board.legal_moves();
        let open = legal & !exclude;
        if open == 0 {
            return None;
        }
        // Enough lines that one of them is outside the excluded moves; nothing stops it.
        let limits = SearchLimits {
            multi_pv: (legal & exclude).count_ones() as usize + 1,
            ..SearchLimits::for_level(self.level)
        };
        let never = AtomicBool::new(false);
        let result = self.search.iterate(board, &limits, &never, &mut |_| {});
        let found = result.lines.iter().find_map(|line| match line.mv {
            Move::Play(square) if open & square.bit() != 0 => Some(BookMove {
                square,
                value: line.score.clamped().rounded_discs(),
            }),
            _ => None,
        });
        found.or_else(|| self.each_child(board, open))
    }

    fn depth(&self) -> u8 {
        self.level.depth() as u8
    }
}

impl SearchValuer<'_> {
    /// The best of `open` by searching each child one level shallower: the fallback when
    /// the multi-line search reported none of them.
    fn each_child(&mut self, board: &Board, open: u64) -> Option<BookMove> {
        let shallower = Level::new(self.level.depth().saturating_sub(1).max(1))?;
        let limits = SearchLimits::for_level(shallower);
        let never = AtomicBool::new(false);
        crate::board::bits::squares(open)
            .filter_map(|square| {
                let value = match super::next(board, square)? {
                    super::Next::Over(score) => score,
                    super::Next::Position {
                        board: child,
                        same_side,
                    } => {
                        let score = self
                            .search
                            .iterate(&child, &limits, &never, &mut |_| {})
                            .score;
                        let discs = score.clamped().rounded_discs();
                        if same_side {
                            discs
                        } else {
                            -discs
                        }
                    }
                };
                Some(BookMove { square, value })
            })
            .max_by_key(|m| (m.value, std::cmp::Reverse(m.square.index())))
    }
}

/// What learning one game changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Learned {
    /// Positions new to the book.
    pub added: usize,
    /// Leaves valued by search.
    pub searched: usize,
    /// Whether the game was finished (its result counted).
    pub finished: bool,
}

impl Book {
    /// Learns the game played from `start` by `moves` (passes where forced, or left out:
    /// a forced pass is played either way). An illegal move is an error that leaves the book
    /// unchanged.
    pub fn learn_game(
        &mut self,
        start: &Board,
        moves: &[Move],
        valuer: &mut dyn Valuer,
    ) -> Result<Learned> {
        // Replay first, so that a bad game changes nothing.
        let mut board = start.without_history();
        // A pass the game records where the settled position already played it is skipped.
        let mut passed = settle(&mut board);
        let mut path: Vec<(Board, Square)> = Vec::with_capacity(moves.len());
        for &mv in moves {
            match mv {
                Move::Pass if passed => passed = false,
                // Never forced here: `play` refuses it with the reason.
                Move::Pass => board.play(mv)?,
                Move::Play(square) => {
                    let before = board.without_history();
                    board.play(mv)?;
                    path.push((before, square));
                    passed = settle(&mut board);
                }
            }
        }
        let mut learned = Learned {
            finished: board.is_game_over(),
            ..Learned::default()
        };
        let mut to_value: Vec<Board> = Vec::new();
        for (position, square) in &path {
            let (entry, to_key, created) = self.entry_mut(position);
            let canonical = to_key.apply(*square);
            let was_leaf = entry.leaf.is_some_and(|leaf| leaf.square == canonical);
            entry.add_link(canonical);
            if learned.finished {
                entry
                    .games
                    .count(board.final_score(position.side_to_move()));
            }
            learned.added += usize::from(created);
            if created || was_leaf {
                to_value.push(position.clone());
            }
        }
        if !learned.finished {
            let (_, _, created) = self.entry_mut(&board);
            if created {
                learned.added += 1;
                to_value.push(board.without_history());
            }
        }
        for position in &to_value {
            self.value_leaf(position, valuer);
            learned.searched += 1;
        }
        self.negamax();
        Ok(learned)
    }

    /// Values the best move of `board`'s position outside its links (its leaf).
    pub(crate) fn value_leaf(&mut self, board: &Board, valuer: &mut dyn Valuer) {
        let (key, to_key) = Key::of(board);
        let Some(entry) = self.entries.get(&key) else {
            return;
        };
        // Search in the board's own orientation; store in the canonical one.
        let back = to_key.inverse();
        let exclude = entry
            .links
            .iter()
            .fold(0, |bits, m| bits | back.apply(m.square).bit());
        let leaf = valuer.best_outside(board, exclude);
        if let Some(entry) = self.entries.get_mut(&key) {
            entry.leaf = leaf.map(|m| BookMove {
                square: to_key.apply(m.square),
                value: m.value,
            });
            entry.depth = valuer.depth();
        }
    }
}

/// Plays the pass of a side that has no move while the game goes on; whether it did.
pub(crate) fn settle(board: &mut Board) -> bool {
    let pass = board.must_pass();
    if pass {
        board.make_pass();
    }
    pass
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::board::{notation, Symmetry};
    use crate::score::Discs;

    /// A stand-in for the search: the lowest open square, always worth -10 discs to the side
    /// to move, so that every value below can be worked out by hand.
    pub(crate) struct Fixed;

    impl Valuer for Fixed {
        fn best_outside(&mut self, board: &Board, exclude: u64) -> Option<BookMove> {
            let open = board.legal_moves() & !exclude;
            (open != 0).then(|| BookMove {
                square: Square::from_lowest_bit(open),
                value: Discs::new(-10),
            })
        }

        fn depth(&self) -> u8 {
            3
        }
    }

    fn moves(text: &str) -> Vec<Move> {
        notation::parse_transcript(text).unwrap()
    }

    fn after(text: &str) -> Board {
        let mut board = Board::start();
        notation::play_moves(&mut board, &moves(text)).unwrap();
        board
    }

    /// A nine-move game that Black wins 64-0, its mirror image along the a1-h8 diagonal (which
    /// maps the start onto itself), and an unfinished game leaving the mirror at its second move.
    pub(crate) const WIPEOUT: &str = "e6f4e3f6g5d6e7f5c5";

    fn mirrored(text: &str) -> String {
        let transpose = Symmetry::ALL[4];
        assert_eq!(Board::start().transformed(transpose), Board::start());
        moves(text)
            .into_iter()
            .map(|m| transpose.apply(m.square().unwrap()).lower())
            .collect()
    }

    #[test]
    fn three_games_give_hand_computed_values_and_counts() {
        let mut book = Book::new();
        let start = Board::start();
        let first = book
            .learn_game(&start, &moves(WIPEOUT), &mut Fixed)
            .unwrap();
        assert!(after(WIPEOUT).is_game_over());
        assert_eq!(
            after(WIPEOUT).final_score(crate::board::Color::Black),
            Discs::new(64)
        );
        assert_eq!(
            first,
            Learned {
                added: 9,
                searched: 9,
                finished: true
            }
        );
        let second = book
            .learn_game(&start, &moves(&mirrored(WIPEOUT)), &mut Fixed)
            .unwrap();
        // The mirror goes through the same nine positions: nothing is added. The start gets
        // a second link (f5 and e6 are images of each other, but the start's key is one
        // fixed orientation of it, where they are two squares).
        assert_eq!(second.added, 0);
        assert!(second.finished);
        let third = book.learn_game(&start, &moves("f5f6"), &mut Fixed).unwrap();
        assert_eq!(
            third,
            Learned {
                added: 1,
                searched: 1,
                finished: false
            }
        );
        assert_eq!(book.len(), 10);

        // After f5 f6 (Black to move): only a leaf, worth -10 to Black.
        let leaf_only = book.moves(&after("f5f6")).unwrap();
        assert_eq!(leaf_only.len(), 1);
        assert_eq!(
            (leaf_only[0].value, leaf_only[0].in_book),
            (Discs::new(-10), false)
        );
        // Along the wipe-out every position's mover has a -10 leaf: Black's positions are
        // worth +10 (the link: White would rather leave at -10), White's -10 (the leaf), and
        // only the last, before c5, is worth +64. So after f5 (White to move) d6 is worth
        // -10 to White and f6 (whose position is worth -10 to Black) +10.
        let white = book.moves(&after("f5")).unwrap();
        let value = |list: &[crate::book::BookChoice], sq: &str| {
            list.iter()
                .find(|c| c.square.lower() == sq)
                .map(|c| (c.value, c.in_book, c.games))
        };
        assert_eq!(value(&white, "f6"), Some((Discs::new(10), true, 0)));
        assert_eq!(value(&white, "d6"), Some((Discs::new(-10), true, 2)));
        assert_eq!(white[0].square.lower(), "f6");
        let entry = book.get(&Key::of(&after("f5")).0).unwrap();
        assert_eq!(
            (entry.games.wins, entry.games.draws, entry.games.losses),
            (0, 0, 2)
        );
        assert_eq!(entry.value(), Some(Discs::new(10)));
        assert_eq!(entry.depth, 3);
        // The same from the mirrored side: after e6, f4 is the image of d6.
        let white_mirror = book.moves(&after("e6")).unwrap();
        assert_eq!(value(&white_mirror, "f4"), Some((Discs::new(-10), true, 2)));
        assert_eq!(
            value(&white_mirror, "f6"),
            Some((Discs::new(10), true, 0)),
            "f6 is its own image"
        );
        // The start: both first moves lead to a position worth +10 to White.
        let black = book.moves(&start).unwrap();
        assert_eq!(value(&black, "f5"), Some((Discs::new(-10), true, 2)));
        assert_eq!(value(&black, "e6"), Some((Discs::new(-10), true, 2)));
        let root = book.get(&Key::of(&start).0).unwrap();
        assert_eq!(
            root.games,
            crate::book::Games {
                wins: 2,
                draws: 0,
                losses: 0
            }
        );
        assert_eq!(root.value(), Some(Discs::new(-10)));
        // Before the last move c5 (Black to move), the wipe-out itself.
        let mut before_last = moves(WIPEOUT);
        before_last.pop();
        let text: String = before_last
            .iter()
            .map(|m| m.square().unwrap().lower())
            .collect();
        let last = book.moves(&after(&text)).unwrap();
        assert_eq!(last[0].square.lower(), "c5");
        assert_eq!((last[0].value, last[0].in_book), (Discs::new(64), true));
        // The book's line from the start along f5: f6, then the leaf after it (its lowest
        // legal square, d3).
        let line = book.line(&start, "f5".parse().unwrap());
        assert_eq!(notation::transcript(line), "f5f6d3");
    }

    #[test]
    fn an_illegal_game_changes_nothing() {
        let mut book = Book::new();
        book.learn_game(&Board::start(), &moves(WIPEOUT), &mut Fixed)
            .unwrap();
        let before = book.clone();
        assert!(book
            .learn_game(&Board::start(), &moves("f5a1"), &mut Fixed)
            .is_err());
        assert_eq!(book, before);
    }
}
