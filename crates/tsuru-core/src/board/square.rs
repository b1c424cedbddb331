//! Typed coordinates: [`Square`], [`Color`] and [`Move`], with their text forms.
//!
//! A square is numbered `8 * row + col` with `a1 = 0` in the top-left corner, `h1 = 7`,
//! `a2 = 8` and `h8 = 63`; that number is also its bit in the bitboard view. The mailbox
//! index used by the board's array is derived from it ([`Square::mailbox`]).

use std::fmt;
use std::str::FromStr;

use anyhow::{bail, Result};

/// One of the 64 squares; always in range `0..64`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// All squares, a1 first, row by row.
    pub const ALL: [Square; 64] = {
        let mut all = [Square(0); 64];
        let mut i = 0;
        while i < 64 {
            all[i] = Square(i as u8);
            i += 1;
        }
        all
    };

    /// The square numbered `index` (`8 * row + col`), or `None` outside `0..64`.
    pub const fn new(index: usize) -> Option<Square> {
        if index < 64 {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// The square in column `col` (0 = a) and row `row` (0 = row 1), or `None` off the board.
    pub const fn from_coords(col: usize, row: usize) -> Option<Square> {
        if col < 8 && row < 8 {
            Some(Square((row * 8 + col) as u8))
        } else {
            None
        }
    }

    /// The lowest set bit of a non-empty bitboard, as a square.
    #[inline]
    pub fn from_lowest_bit(bits: u64) -> Square {
        debug_assert!(bits != 0);
        Square(bits.trailing_zeros() as u8)
    }

    /// The square's number, `0..64`.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Column, 0 (a) to 7 (h).
    #[inline]
    pub const fn col(self) -> usize {
        (self.0 & 7) as usize
    }

    /// Row, 0 (row 1, top) to 7 (row 8, bottom).
    #[inline]
    pub const fn row(self) -> usize {
        (self.0 >> 3) as usize
    }

    /// The square's bit in the bitboard view.
    #[inline]
    pub const fn bit(self) -> u64 {
        1u64 << self.0
    }

    /// Index of the square in the board's 91-cell mailbox (see [`crate::board`]).
    #[inline]
    pub const fn mailbox(self) -> usize {
        10 + 9 * self.row() + self.col()
    }

    /// Lower-case name, e.g. `"f5"` (the form used in transcripts).
    pub fn lower(self) -> String {
        format!("{:#}", self)
    }
}

impl fmt::Display for Square {
    /// Upper case (`F5`) by default; the alternate flag (`{:#}`) gives lower case (`f5`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let base = if f.alternate() { b'a' } else { b'A' };
        let col = (base + self.col() as u8) as char;
        write!(f, "{}{}", col, self.row() + 1)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Square {
    type Err = anyhow::Error;

    /// Parses `a1`..`h8` in any case.
    fn from_str(text: &str) -> Result<Square> {
        let bytes = text.as_bytes();
        if bytes.len() != 2 {
            bail!("not a square: {:?}", text.escape_debug().to_string());
        }
        let col = bytes[0].to_ascii_lowercase().wrapping_sub(b'a') as usize;
        let row = bytes[1].wrapping_sub(b'1') as usize;
        match Square::from_coords(col, row) {
            Some(square) => Ok(square),
            None => bail!("not a square: {:?}", text.escape_debug().to_string()),
        }
    }
}

/// A player, or the colour of a disc.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Color {
    /// Black moves first; written `X`, `*` or `x`.
    Black = 0,
    /// White; written `O`, `o` or `0`.
    White = 1,
}

impl Color {
    /// Both colours, Black first (in index order).
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// The other player.
    #[inline]
    pub const fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for Black, 1 for White: an index into per-colour arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The conventional one-letter symbol used in board strings: `X` or `O`.
    pub const fn symbol(self) -> char {
        match self {
            Color::Black => 'X',
            Color::White => 'O',
        }
    }

    /// Parses a one-character disc/side symbol: `X * x` for Black, `O o 0` for White.
    pub const fn from_symbol(c: char) -> Option<Color> {
        match c {
            'X' | 'x' | '*' | 'B' | 'b' => Some(Color::Black),
            'O' | 'o' | '0' | 'W' | 'w' => Some(Color::White),
            _ => None,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Black => "black",
            Color::White => "white",
        })
    }
}

impl FromStr for Color {
    type Err = anyhow::Error;

    /// Parses `b`, `black`, `w`, `white` in any case, or a one-character symbol (`X`, `*`, `O`).
    fn from_str(text: &str) -> Result<Color> {
        let lower = text.to_ascii_lowercase();
        match lower.as_str() {
            "b" | "black" | "x" | "*" => Ok(Color::Black),
            "w" | "white" | "o" | "0" => Ok(Color::White),
            _ => bail!("not a colour: {:?}", text.escape_debug().to_string()),
        }
    }
}

/// A move: a disc placed on a square, or a pass.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub enum Move {
    /// Place a disc on the square.
    Play(Square),
    /// Pass; legal only when the side to move has no square to play.
    Pass,
}

impl Move {
    /// The square played, or `None` for a pass.
    pub const fn square(self) -> Option<Square> {
        match self {
            Move::Play(square) => Some(square),
            Move::Pass => None,
        }
    }
}

impl From<Square> for Move {
    fn from(square: Square) -> Move {
        Move::Play(square)
    }
}

impl fmt::Display for Move {
    /// `F5` or `PA`; with the alternate flag `f5` or `pa`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Play(square) => fmt::Display::fmt(square, f),
            Move::Pass if f.alternate() => f.write_str("pa"),
            Move::Pass => f.write_str("PA"),
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Move {
    type Err = anyhow::Error;

    /// Parses a square (`f5`, `F5`) or a pass (`PA`, `pass`, `PASS`, `ps`, `--`, in any case).
    fn from_str(text: &str) -> Result<Move> {
        match text.to_ascii_lowercase().as_str() {
            "pa" | "pass" | "ps" | "--" => Ok(Move::Pass),
            _ => text
                .parse::<Square>()
                .map(Move::Play)
                .map_err(|_| anyhow::anyhow!("not a move: {:?}", text.escape_debug().to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip() {
        for square in Square::ALL {
            assert_eq!(square.to_string().parse::<Square>().unwrap(), square);
            assert_eq!(square.lower().parse::<Square>().unwrap(), square);
        }
        assert_eq!("a1".parse::<Square>().unwrap().index(), 0);
        assert_eq!("H1".parse::<Square>().unwrap().index(), 7);
        assert_eq!("a2".parse::<Square>().unwrap().index(), 8);
        assert_eq!("h8".parse::<Square>().unwrap().index(), 63);
        assert_eq!("F5".parse::<Square>().unwrap().to_string(), "F5");
        for bad in ["", "a", "a0", "a9", "i1", "11", "a10", "\u{e9}1"] {
            assert!(bad.parse::<Square>().is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn mailbox_indices_leave_a_sentinel_ring() {
        let mut seen = [false; 91];
        for square in Square::ALL {
            let m = square.mailbox();
            assert!((10..=80).contains(&m));
            assert!(!seen[m]);
            seen[m] = true;
        }
        assert_eq!(Square::ALL[0].mailbox(), 10);
        assert_eq!(Square::ALL[63].mailbox(), 80);
    }

    #[test]
    fn moves_parse_passes_in_every_spelling() {
        for pass in ["PA", "pa", "pass", "PASS", "Pass", "--", "ps"] {
            assert_eq!(pass.parse::<Move>().unwrap(), Move::Pass, "{pass}");
        }
        assert_eq!("d3".parse::<Move>().unwrap().to_string(), "D3");
        assert_eq!(format!("{:#}", Move::Pass), "pa");
        assert!("z9".parse::<Move>().is_err());
        assert!("p".parse::<Move>().is_err());
    }

    #[test]
    fn colours_parse_any_case() {
        for (text, color) in [
            ("b", Color::Black),
            ("B", Color::Black),
            ("Black", Color::Black),
            ("w", Color::White),
            ("WHITE", Color::White),
        ] {
            assert_eq!(text.parse::<Color>().unwrap(), color);
        }
        assert!("red".parse::<Color>().is_err());
        assert_eq!(Color::Black.opponent(), Color::White);
    }
}
