//! The board: a Turtle-style mailbox with a flip stack, the source of truth for a position.
//!
//! # Layout
//!
//! The 64 playable cells sit in a 1-D array of 91 cells, 9 to a row, so that one column of
//! sentinel walls separates the rows (the right wall of a row is the left wall of the next)
//! and full rows of walls lie above and below:
//!
//! ```text
//!  index:  0  1  2  3  4  5  6  7  8          # = wall (sentinel), . = playable
//!          #  #  #  #  #  #  #  #  #
//!          #  a1 b1 c1 d1 e1 f1 g1 h1         a1 = 10, h1 = 17
//!          #  a2 ...                 h2       a2 = 19
//!          ...
//!          #  a8 ...                 h8       h8 = 80
//!          #  #  #  #  #  #  #  #  #  #       81..90
//! ```
//!
//! Stepping from a cell by one of the [`MAILBOX_DIRECTIONS`] (+-1, +-8, +-9, +-10) walks a
//! line; every walk off the board lands on a wall, so scans need no bounds checks.
//!
//! # Make and undo
//!
//! [`Board::make_move`] places a disc, flips the bracketed lines and pushes every flipped
//! square on the **flip stack**, then records a frame (the move, how many flips it pushed, the
//! previous hash). [`Board::undo`] pops the frame and its flips and restores the position
//! exactly: cells, side to move, bitboards and hash. A pass ([`Board::make_pass`]) is a frame
//! with no flips.
//!
//! # Derived views
//!
//! One bitboard per colour is kept in step with the mailbox on every make and undo; legal
//! moves and flips are computed from it ([`bits`]) because perft measured that several times
//! faster than scanning the mailbox (the scan remains in [`scan`] as the reference
//! generator). The base-3 indices of the evaluation's board patterns ([`patterns`]) are kept
//! in step too: every placed or flipped disc adds its power of 3 to the copies containing its
//! square, and undo subtracts exactly what was added. [`Board::check_invariants`] verifies
//! the views agree.

pub mod bits;
pub mod notation;
pub mod patterns;
pub mod perft;
pub mod scan;
pub mod square;
pub mod symmetry;
pub mod zobrist;

use anyhow::{bail, Result};

use crate::score::Discs;

pub use square::{Color, Move, Square};
pub use symmetry::Symmetry;

/// Number of cells in the mailbox array (64 playable plus the sentinel ring).
pub const MAILBOX_SIZE: usize = 91;

/// Step between mailbox neighbours in the eight directions.
pub const MAILBOX_DIRECTIONS: [isize; 8] = [1, -1, 9, -9, 10, -10, 8, -8];

/// The most moves and passes one board can record: 64 disc placements and a pass before
/// each, which is more than any game can reach.
const MAX_FRAMES: usize = 132;

/// Capacity of the flip stack: no move flips more than 19 discs.
const FLIP_CAPACITY: usize = 64 * 19;

/// Contents of one mailbox cell.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Cell {
    /// A playable square with no disc.
    Empty,
    /// A disc of this colour.
    Disc(Color),
    /// A sentinel outside the 8x8 area.
    Wall,
}

/// One recorded move, for [`Board::undo`].
#[derive(Clone, Copy)]
struct Frame {
    mv: Move,
    flips: u8,
    hash: u64,
}

/// A position with its history of moves, able to undo every one exactly.
///
/// Invariants (checked by [`Board::check_invariants`]): the bitboards hold exactly the discs
/// of the mailbox, every wall cell is a wall, the hash equals [`Board::compute_hash`], and the
/// flip stack holds exactly the flips of the recorded frames.
#[derive(Clone)]
pub struct Board {
    cells: [Cell; MAILBOX_SIZE],
    discs: [u64; 2],
    side: Color,
    hash: u64,
    flip_stack: [u8; FLIP_CAPACITY],
    flip_top: usize,
    frames: [Frame; MAX_FRAMES],
    frame_top: usize,
    patterns: [u16; patterns::LANES],
}

impl Board {
    /// The standard start position: d4 and e5 White, e4 and d5 Black, Black to move.
    pub fn start() -> Board {
        let sq = |name: &str| name.parse::<Square>().expect("valid square");
        let black = sq("e4").bit() | sq("d5").bit();
        let white = sq("d4").bit() | sq("e5").bit();
        Board::from_discs(black, white, Color::Black).expect("start position is valid")
    }

    /// A position from one bitboard per colour and the side to move, with no history.
    /// Fails if a square holds both colours.
    pub fn from_discs(black: u64, white: u64, side: Color) -> Result<Board> {
        if black & white != 0 {
            bail!("a square holds both a black and a white disc");
        }
        let mut cells = [Cell::Wall; MAILBOX_SIZE];
        for square in Square::ALL {
            cells[square.mailbox()] = if black & square.bit() != 0 {
                Cell::Disc(Color::Black)
            } else if white & square.bit() != 0 {
                Cell::Disc(Color::White)
            } else {
                Cell::Empty
            };
        }
        let mut board = Board {
            cells,
            discs: [black, white],
            side,
            hash: 0,
            flip_stack: [0; FLIP_CAPACITY],
            flip_top: 0,
            frames: [Frame {
                mv: Move::Pass,
                flips: 0,
                hash: 0,
            }; MAX_FRAMES],
            frame_top: 0,
            patterns: patterns::indices_from_scratch(black, white),
        };
        board.hash = board.compute_hash();
        Ok(board)
    }

    /// The player to move.
    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The contents of a square.
    #[inline]
    pub fn disc(&self, square: Square) -> Option<Color> {
        match self.cells[square.mailbox()] {
            Cell::Disc(color) => Some(color),
            _ => None,
        }
    }

    /// The contents of a mailbox cell (walls included), for mailbox scans.
    #[inline]
    pub fn cell(&self, mailbox_index: usize) -> Cell {
        self.cells[mailbox_index]
    }

    /// Bitboard of the discs of one colour (derived view).
    #[inline]
    pub fn discs(&self, color: Color) -> u64 {
        self.discs[color.index()]
    }

    /// Bitboard of the side to move's discs.
    #[inline]
    pub fn player_discs(&self) -> u64 {
        self.discs[self.side.index()]
    }

    /// Bitboard of the opponent's discs.
    #[inline]
    pub fn opponent_discs(&self) -> u64 {
        self.discs[self.side.opponent().index()]
    }

    /// The side to move's and the opponent's discs as a [`bits::BitView`] (the endgame
    /// solver's view, which moves without this board's make/undo).
    #[inline]
    pub fn view(&self) -> bits::BitView {
        bits::BitView {
            player: self.player_discs(),
            opponent: self.opponent_discs(),
        }
    }

    /// Bitboard of the empty squares.
    #[inline]
    pub fn empty_squares(&self) -> u64 {
        !(self.discs[0] | self.discs[1])
    }

    /// Number of discs of one colour.
    #[inline]
    pub fn count(&self, color: Color) -> u32 {
        self.discs[color.index()].count_ones()
    }

    /// Number of empty squares.
    #[inline]
    pub fn empties(&self) -> u32 {
        self.empty_squares().count_ones()
    }

    /// The incremental Zobrist hash of the position (discs and side to move).
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Bitboard of the side to move's legal squares.
    #[inline]
    pub fn legal_moves(&self) -> u64 {
        bits::mobility(self.player_discs(), self.opponent_discs())
    }

    /// Number of legal squares for the side to move (its mobility).
    #[inline]
    pub fn mobility(&self) -> u32 {
        self.legal_moves().count_ones()
    }

    /// Whether the side to move has a square to play.
    #[inline]
    pub fn has_legal_move(&self) -> bool {
        self.legal_moves() != 0
    }

    /// Whether the opponent of the side to move has a square to play.
    #[inline]
    pub fn opponent_has_legal_move(&self) -> bool {
        bits::mobility(self.opponent_discs(), self.player_discs()) != 0
    }

    /// Whether the side to move has no square but the opponent has: a pass is the only move.
    pub fn must_pass(&self) -> bool {
        !self.has_legal_move() && self.opponent_has_legal_move()
    }

    /// Whether neither side can move.
    pub fn is_game_over(&self) -> bool {
        !self.has_legal_move() && !self.opponent_has_legal_move()
    }

    /// Whether placing a disc on `square` is legal for the side to move.
    #[inline]
    pub fn is_legal_square(&self, square: Square) -> bool {
        self.legal_moves() & square.bit() != 0
    }

    /// Whether a move (a square or a pass) is legal: a pass only when [`Board::must_pass`].
    pub fn is_legal(&self, mv: Move) -> bool {
        match mv {
            Move::Play(square) => self.is_legal_square(square),
            Move::Pass => self.must_pass(),
        }
    }

    /// The discs a move on `square` would flip, as a bitboard; 0 if the move is illegal.
    #[inline]
    pub fn flips(&self, square: Square) -> u64 {
        if self.empty_squares() & square.bit() == 0 {
            return 0;
        }
        bits::flips(self.player_discs(), self.opponent_discs(), square.index())
    }

    /// Plays a disc on `square` for the side to move and switches sides.
    /// Returns `false`, leaving the board untouched, if the move is illegal.
    #[inline]
    pub fn make_move(&mut self, square: Square) -> bool {
        let flipped = self.flips(square);
        if flipped == 0 {
            return false;
        }
        self.apply_flips(square, flipped);
        true
    }

    /// The hash [`Board::hash`] would give after the side to move plays `square` flipping
    /// `flipped` (as [`Board::apply_flips`] would make it), without playing it.
    #[inline]
    pub fn hash_after(&self, square: Square, flipped: u64) -> u64 {
        let mut hash = self.hash ^ zobrist::DISC[self.side.index()][square.index()] ^ zobrist::SIDE;
        let mut rest = flipped;
        while rest != 0 {
            hash ^= zobrist::FLIP[rest.trailing_zeros() as usize];
            rest &= rest - 1;
        }
        hash
    }

    /// The pattern indices [`Board::pattern_indices`] would give after the side to move plays
    /// `square` flipping `flipped`, without playing it (for a leaf that is only evaluated).
    #[inline]
    pub fn pattern_indices_after(&self, square: Square, flipped: u64) -> [u16; patterns::LANES] {
        let tables = patterns::pattern_tables();
        let mut flip_powers = [0u16; patterns::LANES];
        let mut rest = flipped;
        while rest != 0 {
            add_lanes(
                &mut flip_powers,
                &tables.powers[rest.trailing_zeros() as usize],
            );
            rest &= rest - 1;
        }
        let mut indices = self.patterns;
        change_patterns(
            &mut indices,
            self.side,
            &tables.powers[square.index()],
            &flip_powers,
        );
        indices
    }

    /// Plays a disc on `square` flipping exactly `flipped` (as computed by [`Board::flips`]),
    /// then switches sides. The caller guarantees `flipped` is the move's true flip set.
    #[inline]
    pub fn apply_flips(&mut self, square: Square, flipped: u64) {
        debug_assert!(self.frame_top < MAX_FRAMES);
        debug_assert_eq!(flipped, self.flips(square));
        let me = self.side;
        let disc = Cell::Disc(me);
        let mut hash = self.hash ^ zobrist::DISC[me.index()][square.index()] ^ zobrist::SIDE;
        let tables = patterns::pattern_tables();
        let mut flip_powers = [0u16; patterns::LANES];
        let mut rest = flipped;
        let mut top = self.flip_top;
        while rest != 0 {
            let index = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let flipped_square = Square::ALL[index];
            self.cells[flipped_square.mailbox()] = disc;
            self.flip_stack[top] = index as u8;
            top += 1;
            hash ^= zobrist::FLIP[index];
            add_lanes(&mut flip_powers, &tables.powers[index]);
        }
        change_patterns(
            &mut self.patterns,
            me,
            &tables.powers[square.index()],
            &flip_powers,
        );
        self.cells[square.mailbox()] = disc;
        self.discs[me.index()] |= flipped | square.bit();
        self.discs[me.opponent().index()] &= !flipped;
        self.frames[self.frame_top] = Frame {
            mv: Move::Play(square),
            flips: (top - self.flip_top) as u8,
            hash: self.hash,
        };
        self.frame_top += 1;
        self.flip_top = top;
        self.hash = hash;
        self.side = me.opponent();
    }

    /// Passes: the other side is to move. Meant for positions where [`Board::must_pass`]
    /// holds; search and perft also pass in finished games never, and the session checks
    /// legality before calling it.
    #[inline]
    pub fn make_pass(&mut self) {
        debug_assert!(self.frame_top < MAX_FRAMES);
        self.frames[self.frame_top] = Frame {
            mv: Move::Pass,
            flips: 0,
            hash: self.hash,
        };
        self.frame_top += 1;
        self.hash ^= zobrist::SIDE;
        self.side = self.side.opponent();
    }

    /// Plays a move after checking it: a legal square, or a pass when passing is the only
    /// move. On error the board is unchanged.
    pub fn play(&mut self, mv: Move) -> Result<()> {
        if self.frame_top >= MAX_FRAMES {
            bail!("move history is full");
        }
        match mv {
            Move::Play(square) => {
                if !self.make_move(square) {
                    bail!("illegal move {} for {}", square, self.side);
                }
            }
            Move::Pass => {
                if !self.must_pass() {
                    bail!(
                        "{} cannot pass: it has a legal move or the game is over",
                        self.side
                    );
                }
                self.make_pass();
            }
        }
        Ok(())
    }

    /// Takes back the last move or pass, restoring the position exactly; returns it, or
    /// `None` (board unchanged) when there is no history.
    #[inline]
    pub fn undo(&mut self) -> Option<Move> {
        if self.frame_top == 0 {
            return None;
        }
        self.frame_top -= 1;
        let frame = self.frames[self.frame_top];
        self.side = self.side.opponent();
        self.hash = frame.hash;
        if let Move::Play(square) = frame.mv {
            let them = Cell::Disc(self.side.opponent());
            let tables = patterns::pattern_tables();
            let mut flip_powers = [0u16; patterns::LANES];
            let mut flipped = 0u64;
            let bottom = self.flip_top - frame.flips as usize;
            for &index in &self.flip_stack[bottom..self.flip_top] {
                let index = index as usize;
                flipped |= 1u64 << index;
                self.cells[Square::ALL[index].mailbox()] = them;
                add_lanes(&mut flip_powers, &tables.powers[index]);
            }
            // Exactly the reverse of apply_flips's additions.
            let placed = &tables.powers[square.index()];
            sub_lanes(&mut self.patterns, placed);
            if self.side == Color::White {
                sub_lanes(&mut self.patterns, placed);
                sub_lanes(&mut self.patterns, &flip_powers);
            } else {
                add_lanes(&mut self.patterns, &flip_powers);
            }
            self.flip_top = bottom;
            self.cells[square.mailbox()] = Cell::Empty;
            self.discs[self.side.index()] &= !(flipped | square.bit());
            self.discs[self.side.opponent().index()] |= flipped;
        }
        Some(frame.mv)
    }

    /// The moves recorded since the board was set up, oldest first (passes included).
    pub fn history(&self) -> impl Iterator<Item = Move> + '_ {
        self.frames[..self.frame_top].iter().map(|frame| frame.mv)
    }

    /// Number of moves and passes recorded since the board was set up.
    pub fn ply(&self) -> usize {
        self.frame_top
    }

    /// The same position with no history (undo cannot go back past it).
    pub fn without_history(&self) -> Board {
        Board::from_discs(self.discs[0], self.discs[1], self.side).expect("valid position")
    }

    /// The image of the position under a symmetry (same side to move, no history).
    pub fn transformed(&self, symmetry: Symmetry) -> Board {
        Board::from_discs(
            symmetry.apply_bits(self.discs[0]),
            symmetry.apply_bits(self.discs[1]),
            self.side,
        )
        .expect("a symmetry maps a valid position to a valid one")
    }

    /// The base-3 index of every pattern copy ([`patterns`]), kept in step on make and undo.
    #[inline]
    pub fn pattern_indices(&self) -> &[u16; patterns::LANES] {
        &self.patterns
    }

    /// The hash computed from scratch from the mailbox (the incremental one must equal it).
    pub fn compute_hash(&self) -> u64 {
        let mut hash = if self.side == Color::White {
            zobrist::SIDE
        } else {
            0
        };
        for square in Square::ALL {
            if let Cell::Disc(color) = self.cells[square.mailbox()] {
                hash ^= zobrist::DISC[color.index()][square.index()];
            }
        }
        hash
    }

    /// Final disc difference for `color` under the usual convention that empty squares go
    /// to the winner. Meaningful when the game is over.
    pub fn final_score(&self, color: Color) -> Discs {
        bits::final_score(
            self.discs[color.index()],
            self.discs[color.opponent().index()],
        )
    }

    /// Checks every invariant of the representation; for tests. Returns what is wrong.
    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        let mut from_mailbox = [0u64; 2];
        for (index, cell) in self.cells.iter().enumerate() {
            let square = Square::ALL.iter().find(|sq| sq.mailbox() == index);
            match (square, cell) {
                (None, Cell::Wall) | (Some(_), Cell::Empty) => {}
                (Some(sq), Cell::Disc(color)) => from_mailbox[color.index()] |= sq.bit(),
                (None, _) => return Err(format!("mailbox cell {index} should be a wall")),
                (Some(sq), Cell::Wall) => return Err(format!("square {sq} holds a wall")),
            }
        }
        if from_mailbox != self.discs {
            return Err(format!(
                "bitboards {:016x}/{:016x} differ from mailbox {:016x}/{:016x}",
                self.discs[0], self.discs[1], from_mailbox[0], from_mailbox[1]
            ));
        }
        if self.hash != self.compute_hash() {
            return Err("incremental hash differs from the hash computed from scratch".into());
        }
        if self.patterns != patterns::indices_from_scratch(self.discs[0], self.discs[1]) {
            return Err("pattern indices differ from the indices computed from scratch".into());
        }
        let recorded: usize = self.frames[..self.frame_top]
            .iter()
            .map(|f| f.flips as usize)
            .sum();
        if recorded != self.flip_top {
            return Err(format!(
                "flip stack holds {} entries, frames record {}",
                self.flip_top, recorded
            ));
        }
        Ok(())
    }
}

/// `a += b` lane by lane (wrapping; the true results always fit).
#[inline(always)]
fn add_lanes(a: &mut [u16; patterns::LANES], b: &[u16; patterns::LANES]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = x.wrapping_add(*y);
    }
}

/// Changes pattern indices for a disc of `me` placed where `placed` gives the powers of 3,
/// flipping discs whose powers sum to `flip_powers`.
#[inline(always)]
fn change_patterns(
    indices: &mut [u16; patterns::LANES],
    me: Color,
    placed: &[u16; patterns::LANES],
    flip_powers: &[u16; patterns::LANES],
) {
    // Digits: 1 Black, 2 White. A placed disc adds its digit times its power; a flip to
    // White adds one power, a flip to Black subtracts one.
    add_lanes(indices, placed);
    if me == Color::White {
        add_lanes(indices, placed);
        add_lanes(indices, flip_powers);
    } else {
        sub_lanes(indices, flip_powers);
    }
}

/// `a -= b` lane by lane (wrapping; the true results always fit).
#[inline(always)]
fn sub_lanes(a: &mut [u16; patterns::LANES], b: &[u16; patterns::LANES]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = x.wrapping_sub(*y);
    }
}

impl PartialEq for Board {
    /// Two boards are equal when they hold the same position (discs and side to move);
    /// the move histories are not compared.
    fn eq(&self, other: &Board) -> bool {
        self.discs == other.discs && self.side == other.side
    }
}

impl Eq for Board {}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Board({})", notation::board_to_string(self))
    }
}

impl Default for Board {
    fn default() -> Board {
        Board::start()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn start_position_basics() {
        let board = Board::start();
        assert_eq!(board.count(Color::Black), 2);
        assert_eq!(board.count(Color::White), 2);
        assert_eq!(board.empties(), 60);
        assert_eq!(board.mobility(), 4);
        assert_eq!(board.side_to_move(), Color::Black);
        assert!(board.check_invariants().is_ok());
        assert!(!board.must_pass());
        assert!(!board.is_game_over());
    }

    #[test]
    fn illegal_moves_leave_the_board_untouched() {
        let mut board = Board::start();
        let before = board.clone();
        for name in ["a1", "d4", "e4", "f4", "c3"] {
            assert!(!board.make_move(name.parse().unwrap()), "{name}");
            assert!(board.play(Move::Play(name.parse().unwrap())).is_err());
        }
        assert!(board.play(Move::Pass).is_err());
        assert_eq!(board, before);
        assert_eq!(board.hash(), before.hash());
        assert_eq!(board.ply(), 0);
        assert_eq!(board.undo(), None);
    }

    /// Plays random games, checking after every move that invariants hold and that undo
    /// restores exactly the previous position, hash and counts.
    #[test]
    fn random_games_make_and_undo_round_trip() {
        let mut rng = Rng::new(1);
        for _ in 0..2000 {
            let mut board = Board::start();
            let mut snapshots = vec![board.clone()];
            loop {
                let moves = board.legal_moves();
                if moves != 0 {
                    assert!(board.make_move(rng.pick(moves)));
                } else if board.opponent_has_legal_move() {
                    board.make_pass();
                } else {
                    break;
                }
                board.check_invariants().unwrap();
                snapshots.push(board.clone());
            }
            assert_eq!(
                board.count(Color::Black) + board.count(Color::White) + board.empties(),
                64
            );
            // Unwind the whole game, comparing with every snapshot.
            snapshots.pop();
            while let Some(expected) = snapshots.pop() {
                assert!(board.undo().is_some());
                board.check_invariants().unwrap();
                assert_eq!(board, expected);
                assert_eq!(board.hash(), expected.hash());
                assert_eq!(board.count(Color::Black), expected.count(Color::Black));
                assert_eq!(board.count(Color::White), expected.count(Color::White));
                assert_eq!(board.ply(), expected.ply());
                assert!(board.history().eq(expected.history()));
            }
            assert_eq!(board.undo(), None);
            assert_eq!(board, Board::start());
        }
    }

    /// `hash_after` and `pattern_indices_after` predict, for every legal move of positions
    /// from random games, the hash and pattern indices the move then makes, and leave the
    /// board as it was.
    #[test]
    fn hash_and_indices_after_predict_every_move() {
        let mut rng = Rng::new(3);
        let mut checked = 0;
        for _ in 0..200 {
            let mut board = Board::start();
            while !board.is_game_over() {
                let moves = board.legal_moves();
                if moves == 0 {
                    board.make_pass();
                    continue;
                }
                for square in bits::squares(moves) {
                    let flipped = board.flips(square);
                    let before = board.clone();
                    let predicted = board.hash_after(square, flipped);
                    let indices = board.pattern_indices_after(square, flipped);
                    assert_eq!(board, before);
                    assert_eq!(board.pattern_indices(), before.pattern_indices());
                    board.apply_flips(square, flipped);
                    assert_eq!(board.hash(), predicted);
                    assert_eq!(board.compute_hash(), predicted);
                    assert_eq!(board.pattern_indices(), &indices);
                    board.undo();
                    checked += 1;
                }
                assert!(board.make_move(rng.pick(moves)));
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn final_score_gives_empties_to_the_winner() {
        // 13 black discs, no white: the game is over and Black wins 64-0.
        let board = Board::from_discs(0x1fff, 0, Color::White).unwrap();
        assert!(board.is_game_over());
        assert_eq!(board.final_score(Color::Black), Discs::new(64));
        assert_eq!(board.final_score(Color::White), Discs::new(-64));
    }

    #[test]
    fn symmetric_images_keep_mobility() {
        let mut rng = Rng::new(7);
        let mut board = Board::start();
        for _ in 0..20 {
            let moves = board.legal_moves();
            if moves == 0 {
                break;
            }
            board.make_move(rng.pick(moves));
        }
        for s in Symmetry::ALL {
            let image = board.transformed(s);
            assert_eq!(image.legal_moves(), s.apply_bits(board.legal_moves()));
            image.check_invariants().unwrap();
        }
    }
}
