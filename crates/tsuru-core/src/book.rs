//! The opening book: positions valued by tsuru's own searches, grown by the games it plays or
//! is shown and by `tsuru book build`.
//!
//! A position is stored once for its eight symmetric forms, under its canonical [`Key`] (the
//! smallest of the eight (side to move, opponent) bitboard pairs). Its [`BookEntry`] holds, in
//! the canonical orientation, the moves known in it (*links*, whose value is the negamax of
//! the book below them, or the exact result where the move ends the game), the best move not
//! in the book with its search value (the *leaf*, so that a book position is never valued
//! below an unexplored alternative), the games won, drawn and lost through it by the side to
//! move, and the depth of the search that valued its leaf. Every link leads to a position in
//! the book or to the end of the game; [`Book::negamax`] backs the values up.
//!
//! Positions are kept *settled*: the side to move has a legal move (a forced pass is played
//! on the way in), so a link's child may belong to the same side as its parent.
//! [`Book::moves`] answers from any orientation with the squares turned back to it.
//!
//! Learning games is in [`learn`], growing the book by search in [`build`], its files in
//! [`file`] (the format's plain records in [`crate::formats::book`]). The book tsuru plays from by default is compiled in
//! ([`SHIPPED`], [`shipped`]); docs/training.md says how it was built.

pub mod build;
pub mod edax;
pub mod file;
pub mod learn;
pub mod merge;
pub mod user;

use std::collections::HashMap;

use anyhow::{bail, ensure, Result};

use crate::board::{Board, Color, Move, Square, Symmetry};
use crate::rng::Rng;
use crate::score::Discs;

/// The book file compiled into the binary (`src/book/tsuru.book`, made by `tsuru book build`
/// as docs/training.md records): the engine's book unless `--book FILE` or `--no-book`.
pub const SHIPPED: &[u8] = include_bytes!("book/tsuru.book");

/// The shipped book ([`SHIPPED`]), read afresh (a few milliseconds); an error only if the
/// file compiled in is damaged, which a test rules out.
pub fn shipped() -> Result<Book> {
    use anyhow::Context;
    file::from_bytes(SHIPPED).context("the shipped opening book")
}

/// A position in canonical form: the side to move's and the opponent's discs, the smallest
/// (in that order) of the eight symmetric images.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Key {
    /// Discs of the side to move.
    pub player: u64,
    /// Discs of the opponent.
    pub opponent: u64,
}

impl Key {
    /// The canonical form of a position seen from its side to move, and the symmetry that
    /// maps the position onto it (the first such one when the position is symmetric).
    pub fn canonical(player: u64, opponent: u64) -> (Key, Symmetry) {
        Symmetry::ALL
            .iter()
            .map(|&s| {
                let key = Key {
                    player: s.apply_bits(player),
                    opponent: s.apply_bits(opponent),
                };
                (key, s)
            })
            .min_by_key(|(key, _)| *key)
            .expect("eight symmetries")
    }

    /// [`Key::canonical`] of a board.
    pub fn of(board: &Board) -> (Key, Symmetry) {
        Key::canonical(board.player_discs(), board.opponent_discs())
    }

    /// The canonical position as a board (Black stands for the side to move), or an error
    /// when a square holds both sides' discs.
    pub fn board(self) -> Result<Board> {
        Board::from_discs(self.player, self.opponent, Color::Black)
    }
}

/// A move of a book position with its value in discs for the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BookMove {
    /// The square played (canonical orientation inside a [`BookEntry`]).
    pub square: Square,
    /// Its value for the side to move.
    pub value: Discs,
}

/// Games through a position, counted for its side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Games {
    /// Games the side to move won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games the side to move lost.
    pub losses: u32,
}

impl Games {
    /// All games through the position.
    pub fn total(self) -> u32 {
        self.wins
            .saturating_add(self.draws)
            .saturating_add(self.losses)
    }

    /// Counts one finished game whose result was `result` for the side to move.
    pub fn count(&mut self, result: Discs) {
        let slot = match result.get().signum() {
            1 => &mut self.wins,
            0 => &mut self.draws,
            _ => &mut self.losses,
        };
        *slot = slot.saturating_add(1);
    }
}

/// What the book knows of one position (canonical orientation).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct BookEntry {
    /// The moves in the book, by square index; each leads to a book position or ends the game.
    pub links: Vec<BookMove>,
    /// The best move not among the links, with its search value; `None` when every legal
    /// move is a link (or it was never valued).
    pub leaf: Option<BookMove>,
    /// Games through the position.
    pub games: Games,
    /// Depth (level) of the search that valued the leaf; 0 when none has.
    pub depth: u8,
}

impl BookEntry {
    /// The position's value: the best of its links and its leaf; `None` when it has neither.
    pub fn value(&self) -> Option<Discs> {
        self.links.iter().chain(&self.leaf).map(|m| m.value).max()
    }

    /// The link squares as a bitboard.
    pub fn link_bits(&self) -> u64 {
        self.links.iter().fold(0, |bits, m| bits | m.square.bit())
    }

    /// Adds a link (kept in square order); no-op when it is there already. Its value is a
    /// placeholder until [`Book::negamax`]; a leaf on the same square is no longer a leaf.
    fn add_link(&mut self, square: Square) -> bool {
        if self.leaf.is_some_and(|leaf| leaf.square == square) {
            self.leaf = None;
        }
        match self
            .links
            .binary_search_by_key(&square.index(), |m| m.square.index())
        {
            Ok(_) => false,
            Err(at) => {
                let value = Discs::ZERO;
                self.links.insert(at, BookMove { square, value });
                true
            }
        }
    }
}

/// A move of the current position as the book knows it, in the board's own orientation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BookChoice {
    /// The square to play.
    pub square: Square,
    /// Its value in discs for the side to move.
    pub value: Discs,
    /// Whether it is a link (a book move) rather than the best move outside the book.
    pub in_book: bool,
    /// Games through the position it leads to.
    pub games: u32,
    /// Depth of the search below it (the position's own depth for a leaf or a final move).
    pub depth: u8,
}

/// Where a move leads, as the book sees it.
pub(crate) enum Next {
    /// The game is over; its final score for the side that moved.
    Over(Discs),
    /// A settled position; `same_side` when the opponent had to pass (the value then keeps
    /// its sign).
    Position { board: Box<Board>, same_side: bool },
}

/// Plays `square` on a copy of `board` and settles the result (a forced pass is played).
/// `None` when the move is illegal.
pub(crate) fn next(board: &Board, square: Square) -> Option<Next> {
    let mover = board.side_to_move();
    let mut child = board.without_history();
    if !child.make_move(square) {
        return None;
    }
    if child.is_game_over() {
        return Some(Next::Over(child.final_score(mover)));
    }
    let same_side = child.must_pass();
    if same_side {
        child.make_pass();
    }
    Some(Next::Position {
        board: Box::new(child),
        same_side,
    })
}

/// The opening book: entries by canonical key.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Book {
    entries: HashMap<Key, BookEntry>,
}

impl Book {
    /// An empty book.
    pub fn new() -> Book {
        Book::default()
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book has no position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry of a canonical key.
    pub fn get(&self, key: &Key) -> Option<&BookEntry> {
        self.entries.get(key)
    }

    /// Whether a position (in any orientation) is in the book.
    pub fn contains(&self, board: &Board) -> bool {
        self.entries.contains_key(&Key::of(board).0)
    }

    /// Every entry in key order (the order of the file formats).
    pub fn sorted(&self) -> Vec<(&Key, &BookEntry)> {
        let mut all: Vec<_> = self.entries.iter().collect();
        all.sort_unstable_by_key(|(key, _)| **key);
        all
    }

    /// Adds an entry read from a file, checking it against the rules of the game: a valid
    /// position whose side to move has a move, links and leaf legal there and distinct. A
    /// second entry for the same key is an error.
    pub fn insert_checked(&mut self, key: Key, entry: BookEntry) -> Result<()> {
        let board = key.board()?;
        ensure!(
            Key::of(&board).0 == key,
            "position is not in canonical form"
        );
        ensure!(
            board.has_legal_move(),
            "position has no move for the side to move"
        );
        let legal = board.legal_moves();
        let mut seen = 0u64;
        for m in entry.links.iter().chain(&entry.leaf) {
            let bit = m.square.bit();
            ensure!(legal & bit != 0, "{} is not a legal move", m.square);
            ensure!(seen & bit == 0, "{} is listed twice", m.square);
            ensure!(
                m.value.get().abs() <= 64,
                "value {} out of range",
                m.value.get()
            );
            seen |= bit;
        }
        ensure!(
            entry
                .links
                .windows(2)
                .all(|w| w[0].square.index() < w[1].square.index()),
            "links are not in square order"
        );
        if self.entries.insert(key, entry).is_some() {
            bail!("position listed twice");
        }
        Ok(())
    }

    /// The moves the book knows in `board` (links and the leaf), turned to the board's
    /// orientation, best first (ties in square order); `None` when the position is not in
    /// the book.
    pub fn moves(&self, board: &Board) -> Option<Vec<BookChoice>> {
        let (key, symmetry) = Key::of(board);
        let entry = self.entries.get(&key)?;
        let back = symmetry.inverse();
        let mut choices: Vec<BookChoice> = entry
            .links
            .iter()
            .map(|m| (m, true))
            .chain(entry.leaf.iter().map(|m| (m, false)))
            .map(|(m, in_book)| {
                let square = back.apply(m.square);
                let (games, depth) = match next(board, square) {
                    Some(Next::Position { board: child, .. }) if in_book => self
                        .entries
                        .get(&Key::of(&child).0)
                        .map_or((0, entry.depth), |e| (e.games.total(), e.depth)),
                    _ => (0, entry.depth),
                };
                BookChoice {
                    square,
                    value: m.value,
                    in_book,
                    games,
                    depth,
                }
            })
            .collect();
        choices.sort_by_key(|c| (std::cmp::Reverse(c.value), c.square.index()));
        Some(choices)
    }

    /// [`Book::moves`] as NBoard's contempt values them: every move the book values as a
    /// draw (0 discs) is worth `contempt` discs to Black instead (NBoard's `set contempt`,
    /// clamped to -64..=64), so `-contempt` to White; best first by those values (ties in
    /// square order). With `contempt` 0 it is [`Book::moves`].
    pub fn moves_with_contempt(&self, board: &Board, contempt: Discs) -> Option<Vec<BookChoice>> {
        let contempt = contempt.clamp(-Discs::MAX, Discs::MAX);
        let draw = match board.side_to_move() {
            Color::Black => contempt,
            Color::White => -contempt,
        };
        let mut choices = self.moves(board)?;
        for choice in &mut choices {
            if choice.value == Discs::ZERO {
                choice.value = draw;
            }
        }
        choices.sort_by_key(|c| (std::cmp::Reverse(c.value), c.square.index()));
        Some(choices)
    }

    /// The move to play in `board`, or `None` when the position is not a book position (not
    /// in the book, or with no book move: only a searched leaf): one of the known moves
    /// (links or leaf) within `randomness` discs of the best, drawn with
    /// `rng` (the best, first in square order, when `randomness` is 0), all valued as
    /// [`Book::moves_with_contempt`] values them (the choice's value is that one).
    pub fn choose(
        &self,
        board: &Board,
        randomness: Discs,
        contempt: Discs,
        rng: &mut Rng,
    ) -> Option<BookChoice> {
        let choices = self.moves_with_contempt(board, contempt)?;
        // A position the book only reached (the end of a learned line, the frontier of a
        // build) has been searched once, at the book's depth: the engine's own search is
        // the better judge there.
        if !choices.iter().any(|c| c.in_book) {
            return None;
        }
        let best = choices.first()?.value;
        let near: Vec<BookChoice> = choices
            .into_iter()
            .filter(|c| c.value >= best - randomness.max(Discs::ZERO))
            .collect();
        let pick = if near.len() > 1 && randomness > Discs::ZERO {
            rng.below(near.len() as u64) as usize
        } else {
            0
        };
        near.get(pick).copied()
    }

    /// The book's line from `board` starting with `first`: then the best known move of each
    /// position reached, while the book knows it (at most 60 moves; passes included).
    pub fn line(&self, board: &Board, first: Square) -> Vec<Move> {
        let mut line = vec![Move::Play(first)];
        let mut square = first;
        let mut board = board.without_history();
        while line.len() < 60 {
            let Some(Next::Position {
                board: child,
                same_side,
            }) = next(&board, square)
            else {
                break;
            };
            if same_side {
                line.push(Move::Pass);
            }
            board = *child;
            let Some(best) = self.moves(&board).and_then(|m| m.first().copied()) else {
                break;
            };
            square = best.square;
            line.push(Move::Play(square));
        }
        line
    }

    /// Backs every value up by negamax: each link takes the value of the position it leads
    /// to (negated unless the opponent had to pass there), or the game's final score.
    pub fn negamax(&mut self) {
        let mut keys: Vec<Key> = self.entries.keys().copied().collect();
        keys.sort_unstable();
        let mut memo = HashMap::with_capacity(keys.len());
        for key in keys {
            self.back_up(key, &mut memo);
        }
    }

    /// The value of `key` after backing up everything below it (memoised in `memo`).
    fn back_up(&mut self, key: Key, memo: &mut HashMap<Key, Option<Discs>>) -> Option<Discs> {
        if let Some(value) = memo.get(&key) {
            return *value;
        }
        let squares: Vec<Square> = self
            .entries
            .get(&key)?
            .links
            .iter()
            .map(|m| m.square)
            .collect();
        let board = key.board().expect("keys in the book are valid positions");
        for (index, square) in squares.into_iter().enumerate() {
            let value = match next(&board, square) {
                Some(Next::Over(score)) => Some(score),
                Some(Next::Position {
                    board: child,
                    same_side,
                }) => {
                    let child_key = Key::of(&child).0;
                    self.back_up(child_key, memo)
                        .map(|v| if same_side { v } else { -v })
                }
                None => None,
            };
            if let (Some(value), Some(entry)) = (value, self.entries.get_mut(&key)) {
                entry.links[index].value = value;
            }
        }
        let value = self.entries.get(&key).and_then(BookEntry::value);
        memo.insert(key, value);
        value
    }

    /// The entry of `board`'s position, created empty when missing, and the symmetry that
    /// maps `board` onto its key; `true` when it was created.
    pub(crate) fn entry_mut(&mut self, board: &Board) -> (&mut BookEntry, Symmetry, bool) {
        let (key, symmetry) = Key::of(board);
        let created = !self.entries.contains_key(&key);
        (self.entries.entry(key).or_default(), symmetry, created)
    }

    /// Counts of what the book holds.
    pub fn stats(&self) -> Stats {
        let mut stats = Stats {
            positions: self.entries.len(),
            ..Stats::default()
        };
        for (key, entry) in &self.entries {
            stats.links += entry.links.len();
            stats.leaves += usize::from(entry.leaf.is_some());
            stats.with_games += usize::from(entry.games.total() > 0);
            let discs = (key.player | key.opponent).count_ones() as usize;
            stats.by_discs[discs.min(64)] += 1;
            stats.max_depth = stats.max_depth.max(entry.depth);
        }
        stats
    }
}

/// What `tsuru book stats` prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Positions in the book.
    pub positions: usize,
    /// Book moves (links) over all positions.
    pub links: usize,
    /// Positions with a valued move outside the book.
    pub leaves: usize,
    /// Positions some learned game went through.
    pub with_games: usize,
    /// Deepest search that valued a leaf.
    pub max_depth: u8,
    /// Positions by the number of discs on the board.
    pub by_discs: [usize; 65],
}

impl Default for Stats {
    fn default() -> Stats {
        Stats {
            positions: 0,
            links: 0,
            leaves: 0,
            with_games: 0,
            max_depth: 0,
            by_discs: [0; 65],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::notation;

    fn after(moves: &str) -> Board {
        let mut board = Board::start();
        notation::play_moves(&mut board, &notation::parse_transcript(moves).unwrap()).unwrap();
        board
    }

    #[test]
    fn the_shipped_book_reads_and_knows_the_opening() {
        let book = shipped().unwrap();
        assert!(book.len() >= 1000, "{} positions", book.len());
        // The start is a book position, its four moves symmetric: one value for all.
        let moves = book.moves(&Board::start()).unwrap();
        assert_eq!(moves.len(), 4, "{moves:?}");
        assert!(moves.iter().all(|m| m.in_book && m.value == moves[0].value));
        assert!((-4..=4).contains(&moves[0].value.get()), "{moves:?}");
        // A book move leads to a book position, valued by the same negamax from its side.
        let reply = book.moves(&after("f5")).unwrap();
        assert_eq!(-reply[0].value, moves[0].value, "{reply:?}");
        assert_eq!(file::to_bytes(&book), SHIPPED);
    }

    #[test]
    fn the_eight_forms_share_one_key() {
        let board = after("f5d6c3");
        let (key, _) = Key::of(&board);
        for s in Symmetry::ALL {
            let image = board.transformed(s);
            assert_eq!(Key::of(&image).0, key, "{s:?}");
            let (k, to_key) = Key::of(&image);
            let canonical = Board::from_discs(
                to_key.apply_bits(image.player_discs()),
                to_key.apply_bits(image.opponent_discs()),
                Color::Black,
            )
            .unwrap();
            assert_eq!(
                (canonical.player_discs(), canonical.opponent_discs()),
                (k.player, k.opponent)
            );
        }
    }

    #[test]
    fn a_move_known_in_one_form_is_found_turned_in_every_other() {
        let board = after("f5d6c3");
        let mut book = Book::new();
        let (entry, to_key, _) = book.entry_mut(&board);
        let d3: Square = "d3".parse().unwrap();
        entry.add_link(to_key.apply(d3));
        entry.leaf = Some(BookMove {
            square: to_key.apply("c5".parse().unwrap()),
            value: Discs::new(-3),
        });
        assert_eq!(book.len(), 1);
        for s in Symmetry::ALL {
            let image = board.transformed(s);
            let moves = book.moves(&image).expect("every form is in the book");
            let link = moves.iter().find(|m| m.in_book).unwrap();
            assert_eq!(link.square, s.apply(d3), "{s:?}");
            assert!(image.is_legal(Move::Play(link.square)));
            let leaf = moves.iter().find(|m| !m.in_book).unwrap();
            assert_eq!(leaf.square, s.apply("c5".parse().unwrap()));
            assert_eq!(leaf.value, Discs::new(-3));
        }
        assert!(book.moves(&after("f5d6")).is_none());
    }

    #[test]
    fn negamax_takes_the_children_values_and_final_scores() {
        // The start links to f5, whose position has only a leaf worth +4 to White (to move
        // there): f5 is worth -4 to Black, better than the -7 of the start's leaf.
        let mut book = Book::new();
        let start = Board::start();
        let f5: Square = "f5".parse().unwrap();
        let (entry, s, _) = book.entry_mut(&start);
        entry.add_link(s.apply(f5));
        entry.leaf = Some(BookMove {
            square: s.apply("d3".parse().unwrap()),
            value: Discs::new(-7),
        });
        let child = after("f5");
        let (entry, s, _) = book.entry_mut(&child);
        entry.leaf = Some(BookMove {
            square: s.apply("d6".parse().unwrap()),
            value: Discs::new(4),
        });
        book.negamax();
        let moves = book.moves(&start).unwrap();
        assert_eq!(moves[0].square, f5);
        assert_eq!(moves[0].value, Discs::new(-4));
        assert!(moves[0].in_book);
        assert_eq!(moves[1].value, Discs::new(-7));
        assert_eq!(book.line(&start, f5).len(), 2);
    }

    #[test]
    fn choice_follows_value_randomness_and_contempt() {
        let mut book = Book::new();
        let start = Board::start();
        let (entry, s, _) = book.entry_mut(&start);
        entry.links = vec![BookMove {
            square: s.apply("f5".parse().unwrap()),
            value: Discs::ZERO,
        }];
        entry.leaf = Some(BookMove {
            square: s.apply("d3".parse().unwrap()),
            value: Discs::new(-1),
        });
        let mut rng = Rng::new(1);
        let pick = |book: &Book, r, c, rng: &mut Rng| {
            book.choose(&start, Discs::new(r), Discs::new(c), rng)
                .unwrap()
                .square
                .to_string()
        };
        assert_eq!(pick(&book, 0, 0, &mut rng), "F5");
        // A draw worth -2 to Black (to move) is worse than the -1 of d3.
        assert_eq!(pick(&book, 0, -2, &mut rng), "D3");
        let valued = book.moves_with_contempt(&start, Discs::new(-2)).unwrap();
        let shown: Vec<(String, i32)> = valued
            .iter()
            .map(|c| (c.square.to_string(), c.value.get()))
            .collect();
        assert_eq!(shown, [("D3".to_string(), -1), ("F5".to_string(), -2)]);
        // NBoard's +-100 are clamped; White sees the opposite of Black's contempt.
        let extreme = book.moves_with_contempt(&start, Discs::new(100)).unwrap();
        assert_eq!(
            (extreme[0].square.to_string(), extreme[0].value.get()),
            ("F5".to_string(), 64)
        );
        assert_eq!(
            book.moves_with_contempt(&start, Discs::ZERO),
            book.moves(&start)
        );
        let mut seen = std::collections::HashSet::new();
        for _ in 0..50 {
            seen.insert(pick(&book, 1, 0, &mut rng));
        }
        assert_eq!(seen.len(), 2, "within 1 disc both moves are played");
        // Only a leaf: not a book position.
        book.entry_mut(&start).0.links.clear();
        assert!(book
            .choose(&start, Discs::ZERO, Discs::ZERO, &mut rng)
            .is_none());
    }
}
