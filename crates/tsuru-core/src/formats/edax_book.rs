//! Edax's binary opening book (`.dat`, Edax 4.x), read and written as plain records.
//!
//! The layout, learnt from Edax's public source (facts only; all numbers little-endian, as
//! Edax writes them on the usual machines):
//!
//! ```text
//! u32 u32      "XADE" "KOOB": the words 0x45444158 (EDAX) and 0x424f4f4b (BOOK)
//! u8 u8        version (4) and release (6)
//! 8 bytes      date: i16 year, u8 month, day, hour, minute, second, one byte of padding
//! 5 x i32      options: level, empties, midgame error, endcut error, verbosity
//! i32          number of positions
//! per position (in Edax's hash order):
//!   u64 u64    the side to move's discs, the opponent's (bit 0 = a1, bit 63 = h8), the
//!              smallest of the position's eight symmetric forms
//!   4 x u32    wins, draws, losses, unterminated lines
//!   3 x i16    value, lower bound, upper bound (discs)
//!   u8 u8      number of links, search level
//!   links      per link: i8 value, u8 move (0-63 a square of this form, 64 a pass)
//!   i8 u8      the leaf: value and move (65: none, value -127)
//! ```
//!
//! The reader checks the header, that every position is whole, that the count matches, and
//! that nothing follows the last position; it refuses counts no file of this size can hold.
//! What the records mean (the symmetries, the link targets) is for [`crate::book::edax`].

use super::bytes::Reader;
use anyhow::{ensure, Context, Result};

/// The first word: "EDAX" as a little-endian u32.
pub const EDAX: u32 = 0x4544_4158;
/// The second word: "BOOK" as a little-endian u32.
pub const BOOK: u32 = 0x424f_4f4b;
/// The version this code reads and writes.
pub const VERSION: u8 = 4;
/// The release written (Edax 4.6).
pub const RELEASE: u8 = 6;
/// A link's move for a pass.
pub const PASS: u8 = 64;
/// The leaf's move when there is none.
pub const NO_MOVE: u8 = 65;
/// The value Edax writes with no move (minus its infinite score).
pub const NO_SCORE: i8 = -127;
/// Bytes before the first position.
pub const HEADER_BYTES: usize = 42;
/// Bytes of a position without its links.
pub const POSITION_BYTES: usize = 42;

/// The date a book was saved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Date {
    pub year: i16,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
}

/// The header's book settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The level new positions are searched at.
    pub level: i32,
    /// Positions with fewer empties are not added.
    pub empties: i32,
    /// The error assumed of a midgame search.
    pub midgame_error: i32,
    /// The error assumed of a selective endgame search.
    pub endcut_error: i32,
    /// Edax's verbosity setting.
    pub verbosity: i32,
}

/// A move with its value, as Edax stores links and leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdaxMove {
    /// Value in discs for the side to move.
    pub value: i8,
    /// 0-63 a square (bit number), [`PASS`], or [`NO_MOVE`].
    pub square: u8,
}

/// One position of an Edax book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdaxPosition {
    /// Side to move's discs.
    pub player: u64,
    /// Opponent's discs.
    pub opponent: u64,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Lines through the position not played to the end.
    pub lines: u32,
    /// Value, lower and upper bounds, in discs.
    pub value: i16,
    pub lower: i16,
    pub upper: i16,
    /// The search level of the leaf.
    pub level: u8,
    pub links: Vec<EdaxMove>,
    pub leaf: EdaxMove,
}

/// A whole Edax book file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EdaxBook {
    pub release: u8,
    pub date: Date,
    pub options: Options,
    pub positions: Vec<EdaxPosition>,
}

/// A move of an Edax book: its value and square.
fn edax_move(reader: &mut Reader) -> Result<EdaxMove> {
    let value = reader.u8()? as i8;
    let square = reader.u8()?;
    Ok(EdaxMove { value, square })
}

/// An Edax book from its bytes; a clear error for anything else, cut short, or damaged in
/// its structure (values are checked by the conversion, which knows the rules).
pub fn from_bytes(bytes: &[u8]) -> Result<EdaxBook> {
    ensure!(
        bytes.len() >= 8
            && u32::from_le_bytes(bytes[0..4].try_into()?) == EDAX
            && u32::from_le_bytes(bytes[4..8].try_into()?) == BOOK,
        "not an Edax book (it does not start with Edax's book words)"
    );
    ensure!(
        bytes.len() >= HEADER_BYTES,
        "the Edax book is truncated ({} bytes, its header alone takes {HEADER_BYTES})",
        bytes.len()
    );
    let mut reader = Reader::new(bytes, 8, "the Edax book is truncated");
    let version = reader.u8()?;
    let release = reader.u8()?;
    ensure!(
        version == VERSION,
        "Edax book version {version}.{release} is not supported (version {VERSION} is)"
    );
    let date = Date {
        year: reader.i16()?,
        month: reader.u8()?,
        day: reader.u8()?,
        hour: reader.u8()?,
        minute: reader.u8()?,
        second: reader.u8()?,
    };
    reader.u8()?; // padding
    let options = Options {
        level: reader.i32()?,
        empties: reader.i32()?,
        midgame_error: reader.i32()?,
        endcut_error: reader.i32()?,
        verbosity: reader.i32()?,
    };
    let count = reader.i32()?;
    ensure!(
        count >= 0,
        "the Edax book is corrupted (it claims {count} positions)"
    );
    let count = count as usize;
    ensure!(
        count.saturating_mul(POSITION_BYTES) <= bytes.len() - HEADER_BYTES,
        "the Edax book is truncated or corrupted (it claims {count} positions in {} bytes)",
        bytes.len()
    );
    let mut positions = Vec::with_capacity(count);
    for index in 0..count {
        let read = |r: &mut Reader| -> Result<EdaxPosition> {
            let player = r.u64()?;
            let opponent = r.u64()?;
            let (wins, draws, losses, lines) = (r.u32()?, r.u32()?, r.u32()?, r.u32()?);
            let (value, lower, upper) = (r.i16()?, r.i16()?, r.i16()?);
            let n_links = r.u8()?;
            let level = r.u8()?;
            let links = (0..n_links)
                .map(|_| edax_move(r))
                .collect::<Result<Vec<_>>>()?;
            let leaf = edax_move(r)?;
            Ok(EdaxPosition {
                player,
                opponent,
                wins,
                draws,
                losses,
                lines,
                value,
                lower,
                upper,
                level,
                links,
                leaf,
            })
        };
        positions.push(
            read(&mut reader)
                .with_context(|| format!("Edax book position {} of {count}", index + 1))?,
        );
    }
    ensure!(
        reader.position() == bytes.len(),
        "the Edax book is corrupted ({} bytes after its {count} positions)",
        bytes.len() - reader.position()
    );
    Ok(EdaxBook {
        release,
        date,
        options,
        positions,
    })
}

/// The bytes of an Edax book (version [`VERSION`], the book's release).
pub fn to_bytes(book: &EdaxBook) -> Vec<u8> {
    let links: usize = book.positions.iter().map(|p| p.links.len()).sum();
    let mut out =
        Vec::with_capacity(HEADER_BYTES + book.positions.len() * POSITION_BYTES + 2 * links);
    out.extend_from_slice(&EDAX.to_le_bytes());
    out.extend_from_slice(&BOOK.to_le_bytes());
    out.extend_from_slice(&[VERSION, book.release]);
    let d = book.date;
    out.extend_from_slice(&d.year.to_le_bytes());
    out.extend_from_slice(&[d.month, d.day, d.hour, d.minute, d.second, 0]);
    let o = book.options;
    for word in [
        o.level,
        o.empties,
        o.midgame_error,
        o.endcut_error,
        o.verbosity,
    ] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    out.extend_from_slice(&(book.positions.len() as i32).to_le_bytes());
    for p in &book.positions {
        out.extend_from_slice(&p.player.to_le_bytes());
        out.extend_from_slice(&p.opponent.to_le_bytes());
        for count in [p.wins, p.draws, p.losses, p.lines] {
            out.extend_from_slice(&count.to_le_bytes());
        }
        for value in [p.value, p.lower, p.upper] {
            out.extend_from_slice(&value.to_le_bytes());
        }
        out.push(p.links.len() as u8);
        out.push(p.level);
        for m in p.links.iter().chain(std::iter::once(&p.leaf)) {
            out.extend_from_slice(&[m.value as u8, m.square]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> EdaxBook {
        EdaxBook {
            release: RELEASE,
            date: Date {
                year: 2026,
                month: 11,
                day: 25,
                hour: 1,
                minute: 2,
                second: 3,
            },
            options: Options {
                level: 4,
                empties: 55,
                midgame_error: 2,
                endcut_error: 1,
                verbosity: 0,
            },
            positions: vec![EdaxPosition {
                player: 0x0000_0008_1000_0000,
                opponent: 0x0000_0010_0800_0000,
                wins: 1,
                draws: 2,
                losses: 3,
                lines: 4,
                value: 0,
                lower: -2,
                upper: 2,
                level: 4,
                links: vec![EdaxMove {
                    value: 0,
                    square: 19,
                }],
                leaf: EdaxMove {
                    value: -1,
                    square: 26,
                },
            }],
        }
    }

    #[test]
    fn records_round_trip_and_the_layout_has_its_sizes() {
        let book = sample();
        let bytes = to_bytes(&book);
        assert_eq!(bytes.len(), HEADER_BYTES + POSITION_BYTES + 2);
        assert_eq!(&bytes[..8], b"XADEKOOB");
        assert_eq!(from_bytes(&bytes).unwrap(), book);
    }

    #[test]
    fn damaged_files_are_refused() {
        let bytes = to_bytes(&sample());
        for cut in 0..bytes.len() {
            let err = format!("{:#}", from_bytes(&bytes[..cut]).unwrap_err());
            assert!(
                err.contains("truncated") || err.contains("not an Edax book"),
                "{cut}: {err}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(format!("{:#}", from_bytes(&longer).unwrap_err()).contains("after its"));
        let mut huge = bytes.clone();
        huge[38..42].copy_from_slice(&i32::MAX.to_le_bytes());
        assert!(format!("{:#}", from_bytes(&huge).unwrap_err()).contains("claims"));
        let mut version = bytes;
        version[8] = 3;
        assert!(format!("{:#}", from_bytes(&version).unwrap_err()).contains("version 3"));
    }
}
