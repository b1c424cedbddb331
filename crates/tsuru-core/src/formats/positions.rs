//! Positions files: labelled positions ([`Labelled`]) split into training and held-out sets
//! ([`PositionSet`]), as `tsuru train --positions` stores them (what they are for is the
//! lab's business: `lab::training::positions`).
//!
//! Layout, little-endian:
//!
//! ```text
//! magic "TSURUPOS" | version u32 = 1 | description length u32 | description (ASCII)
//! | count u64 | count records of 18 bytes:
//!     Black's discs u64 | White's discs u64 | flags u8 | label i8
//! ```
//!
//! Flags: bit 0 White to move, bit 1 held out, bits 2-3 the label's kind (0 exact,
//! 1 theoretical, 2 result), bit 4 the first position of a game. Training positions come
//! first, then held-out ones.

use std::io::Write;
use std::path::Path;

use anyhow::{bail, ensure, Context, Result};

use crate::board::{Board, Color};

/// A position with its label: the discs, the side to move, and the label in discs for the
/// side to move. This is what a positions file stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Labelled {
    /// Black's discs.
    pub black: u64,
    /// White's discs.
    pub white: u64,
    /// The side to move.
    pub side: Color,
    /// The label in discs, side to move's view.
    pub label: i8,
    /// Where the label comes from.
    pub kind: LabelKind,
    /// Whether this is the first labelled position of its game (positions are stored in
    /// game order, so this marks where one game's positions end and the next one's begin).
    pub game_start: bool,
}

/// Where a label comes from, best first (how labels are made: `lab::training`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelKind {
    /// The exact value: solved, or the start position's known draw.
    Exact,
    /// The exact value of a later position of the game, recorded with the game (WTHOR's
    /// perfect-play score at 24 empties, a self-play game's solve point).
    Theoretical,
    /// The game's final result.
    Result,
}

impl Labelled {
    /// The position as a board (no history); `None` if the discs overlap.
    pub fn board(&self) -> Option<Board> {
        Board::from_discs(self.black, self.white, self.side).ok()
    }

    /// Empty squares of the position.
    pub fn empties(&self) -> u32 {
        64 - (self.black | self.white).count_ones()
    }

    /// The label from Black's side.
    pub fn black_label(&self) -> i8 {
        if self.side == Color::Black {
            self.label
        } else {
            -self.label
        }
    }

    /// Sets the label from Black's side.
    pub fn set_black_label(&mut self, black: i8) {
        self.label = if self.side == Color::Black {
            black
        } else {
            -black
        };
    }
}

const MAGIC: &[u8; 8] = b"TSURUPOS";
const VERSION: u32 = 1;
const RECORD: usize = 18;
const WHITE_TO_MOVE: u8 = 1;
const HELD_OUT: u8 = 2;
const KIND_SHIFT: u8 = 2;
const KIND_MASK: u8 = 3 << KIND_SHIFT;
const GAME_START: u8 = 16;

/// The contents of a positions file.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PositionSet {
    /// What the positions were built from.
    pub description: String,
    /// Positions of training games.
    pub train: Vec<Labelled>,
    /// Positions of held-out games.
    pub held_out: Vec<Labelled>,
}

impl PositionSet {
    /// The file image of the set.
    pub fn to_bytes(&self) -> Vec<u8> {
        let count = self.train.len() + self.held_out.len();
        let mut out = Vec::with_capacity(24 + self.description.len() + RECORD * count);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(self.description.len() as u32).to_le_bytes());
        out.extend_from_slice(self.description.as_bytes());
        out.extend_from_slice(&(count as u64).to_le_bytes());
        let tagged = self
            .train
            .iter()
            .map(|p| (p, 0))
            .chain(self.held_out.iter().map(|p| (p, HELD_OUT)));
        for (position, held) in tagged {
            out.extend_from_slice(&position.black.to_le_bytes());
            out.extend_from_slice(&position.white.to_le_bytes());
            let side = if position.side == Color::White {
                WHITE_TO_MOVE
            } else {
                0
            };
            let kind = match position.kind {
                LabelKind::Exact => 0,
                LabelKind::Theoretical => 1,
                LabelKind::Result => 2,
            } << KIND_SHIFT;
            let start = if position.game_start { GAME_START } else { 0 };
            out.push(side | held | kind | start);
            out.push(position.label as u8);
        }
        out
    }

    /// Parses a file image; errors on a wrong magic or version, a truncated or over-long
    /// file, overlapping discs, unknown flags or a label beyond +-64.
    pub fn from_bytes(bytes: &[u8]) -> Result<PositionSet> {
        ensure!(
            bytes.len() >= 16 && &bytes[..8] == MAGIC,
            "not a tsuru positions file"
        );
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4"));
        let version = u32_at(8);
        ensure!(
            version == VERSION,
            "positions file version {version}, expected {VERSION}"
        );
        let length = u32_at(12) as usize;
        let body = 16 + length;
        ensure!(bytes.len() >= body + 8, "truncated positions file header");
        let description = std::str::from_utf8(&bytes[16..body])
            .ok()
            .filter(|text| text.is_ascii())
            .context("the description is not ASCII")?
            .to_string();
        let count = u64::from_le_bytes(bytes[body..body + 8].try_into().expect("8"));
        let records = &bytes[body + 8..];
        ensure!(
            records.len() as u64 == count.saturating_mul(RECORD as u64),
            "{count} positions announced, {} bytes of records",
            records.len()
        );
        let mut set = PositionSet {
            description,
            ..PositionSet::default()
        };
        for (number, record) in records.chunks_exact(RECORD).enumerate() {
            let black = u64::from_le_bytes(record[0..8].try_into().expect("8"));
            let white = u64::from_le_bytes(record[8..16].try_into().expect("8"));
            let flags = record[16];
            let label = record[17] as i8;
            let kind = match (flags & KIND_MASK) >> KIND_SHIFT {
                0 => LabelKind::Exact,
                1 => LabelKind::Theoretical,
                2 => LabelKind::Result,
                _ => bail!("position {number} has no label kind"),
            };
            let known = WHITE_TO_MOVE | HELD_OUT | KIND_MASK | GAME_START;
            if black & white != 0 || flags & !known != 0 || label.abs() > 64 {
                bail!("position {number} is malformed");
            }
            let side = if flags & WHITE_TO_MOVE != 0 {
                Color::White
            } else {
                Color::Black
            };
            let position = Labelled {
                black,
                white,
                side,
                label,
                kind,
                game_start: flags & GAME_START != 0,
            };
            if flags & HELD_OUT != 0 {
                set.held_out.push(position);
            } else {
                set.train.push(position);
            }
        }
        Ok(set)
    }

    /// Writes the set to `path`.
    pub fn write(&self, path: &Path) -> Result<()> {
        let mut file = std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?,
        );
        file.write_all(&self.to_bytes())
            .and_then(|()| file.flush())
            .with_context(|| format!("writing {}", path.display()))
    }

    /// Reads the set from `path`.
    pub fn read(path: &Path) -> Result<PositionSet> {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        PositionSet::from_bytes(&bytes).with_context(|| format!("in {}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_set() -> PositionSet {
        let start = crate::board::Board::start();
        let position = |side, label, kind, game_start| Labelled {
            black: start.discs(Color::Black),
            white: start.discs(Color::White) | 1,
            side,
            label,
            kind,
            game_start,
        };
        PositionSet {
            description: "games 2 fingerprint 12ab".into(),
            train: vec![
                position(Color::Black, 12, LabelKind::Exact, true),
                position(Color::White, -64, LabelKind::Theoretical, false),
            ],
            held_out: vec![position(Color::White, 64, LabelKind::Result, true)],
        }
    }

    #[test]
    fn files_round_trip() {
        let set = sample_set();
        let bytes = set.to_bytes();
        assert_eq!(
            bytes.len(),
            8 + 4 + 4 + set.description.len() + 8 + 3 * RECORD
        );
        assert_eq!(PositionSet::from_bytes(&bytes).unwrap(), set);
    }

    #[test]
    fn damaged_files_are_refused() {
        let bytes = sample_set().to_bytes();
        assert!(PositionSet::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        assert!(PositionSet::from_bytes(b"TSURUPOX").is_err());
        let mut wrong_version = bytes.clone();
        wrong_version[8] = 2;
        assert!(PositionSet::from_bytes(&wrong_version).is_err());
        let mut bad_label = bytes.clone();
        let last = bad_label.len() - 1;
        bad_label[last] = 65;
        assert!(PositionSet::from_bytes(&bad_label).is_err());
        let mut bad_flags = bytes.clone();
        bad_flags[last - 1] = 32;
        assert!(PositionSet::from_bytes(&bad_flags).is_err());
        let mut bad_kind = bytes.clone();
        bad_kind[last - 1] = 3 << 2;
        assert!(PositionSet::from_bytes(&bad_kind).is_err());
        let mut overlap = bytes;
        let first = overlap.len() - 3 * RECORD;
        overlap[first + 8..first + 16].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(PositionSet::from_bytes(&overlap).is_err());
    }
}
