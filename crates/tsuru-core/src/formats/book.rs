//! The opening book's files: a compact binary file with a version and a checksum, written
//! crash-safely, and a plain-text form with one line per position.
//!
//! This module reads and writes plain records ([`PositionRecord`]: a position's bitboards,
//! game counts, depth, leaf and links as stored); [`crate::book::file`] converts them to and
//! from a [`crate::book::Book`] and checks them against the rules of the game.
//!
//! Binary, all numbers little-endian:
//!
//! ```text
//! "TSURUBK\0"  magic, 8 bytes
//! u16          version (1)
//! u32          number of positions
//! per position, in key order:
//!   u64 u64    the canonical key: side to move's discs, opponent's discs
//!   u32 u32 u32  games won, drawn, lost by the side to move
//!   u8         depth of the search that valued the leaf
//!   u8 i8      leaf square (0-63, 255: none) and value in discs
//!   u8         number of links, then per link: u8 square, i8 value
//! u64          FNV-1a hash of every byte before it
//! ```
//!
//! A book is written to `FILE.tmp`, flushed to the disk and renamed over `FILE`, so a crash
//! while a game is being added leaves the previous book whole (at most that game is lost).
//!
//! Text (`tsuru book export`): a header line `# tsuru book 1`, then per position, in key
//! order: the 64 squares a1..h8 seen from the side to move (`X` its discs, `O` the
//! opponent's, `-` empty), wins, draws, losses, depth, the leaf (`c4:-3` or `-`) and the links
//! (`d3:+1,f5:-2` or `-`). Export then import gives back the same book, byte for byte.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::bytes::Reader;
use super::checksum::fnv1a_64;
use anyhow::{bail, ensure, Context, Result};

use crate::board::Square;
use crate::score::Discs;

/// A move as a book file stores it: a square and its value in discs for the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MoveRecord {
    /// The square (in the position's canonical orientation).
    pub square: Square,
    /// Its value in discs for the side to move (-64..=64 in a valid file).
    pub value: Discs,
}

/// A position as a book file stores it, unchecked: [`crate::book::file`] checks it when it
/// becomes a book entry.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PositionRecord {
    /// The canonical key: the side to move's discs.
    pub player: u64,
    /// The canonical key: the opponent's discs.
    pub opponent: u64,
    /// Games won, drawn and lost through the position by the side to move.
    pub wins: u32,
    /// See `wins`.
    pub draws: u32,
    /// See `wins`.
    pub losses: u32,
    /// Depth of the search that valued the leaf.
    pub depth: u8,
    /// The best move outside the book, if any.
    pub leaf: Option<MoveRecord>,
    /// The moves in the book.
    pub links: Vec<MoveRecord>,
}

/// The binary file's first bytes.
pub const MAGIC: &[u8; 8] = b"TSURUBK\0";

/// The version this code writes and reads.
pub const VERSION: u16 = 1;

/// The text form's header line.
pub const TEXT_HEADER: &str = "# tsuru book 1";

/// The binary form of a book's positions, in the order given (a book writes them in key
/// order).
pub fn to_bytes(records: &[PositionRecord]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + records.len() * 40);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(records.len() as u32).to_le_bytes());
    for entry in records {
        out.extend_from_slice(&entry.player.to_le_bytes());
        out.extend_from_slice(&entry.opponent.to_le_bytes());
        for count in [entry.wins, entry.draws, entry.losses] {
            out.extend_from_slice(&count.to_le_bytes());
        }
        out.push(entry.depth);
        match entry.leaf {
            Some(leaf) => {
                out.extend_from_slice(&[leaf.square.index() as u8, leaf.value.get() as i8 as u8])
            }
            None => out.extend_from_slice(&[255, 0]),
        }
        out.push(entry.links.len() as u8);
        for link in &entry.links {
            out.extend_from_slice(&[link.square.index() as u8, link.value.get() as i8 as u8]);
        }
    }
    let sum = fnv1a_64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// A book move: its square (255: none) and value.
fn book_move(reader: &mut Reader) -> Result<Option<MoveRecord>> {
    let (square, value) = (reader.u8()?, reader.u8()? as i8);
    if square == 255 {
        return Ok(None);
    }
    let square = Square::new(square as usize)
        .with_context(|| format!("square number {square} is off the board"))?;
    Ok(Some(MoveRecord {
        square,
        value: Discs::new(i32::from(value)),
    }))
}

/// A book's positions from its binary form, in file order; a clear error when the bytes are
/// not a whole, unchanged book of this version (truncated, corrupted, or another file
/// altogether).
pub fn from_bytes(bytes: &[u8]) -> Result<Vec<PositionRecord>> {
    ensure!(
        bytes.len() >= MAGIC.len() && &bytes[..MAGIC.len()] == MAGIC,
        "not a tsuru book file (it does not start with the book's magic bytes)"
    );
    ensure!(
        bytes.len() >= MAGIC.len() + 2 + 4 + 8,
        "the book file is truncated ({} bytes)",
        bytes.len()
    );
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    ensure!(
        version == VERSION,
        "book file version {version} is not supported (this tsuru reads version {VERSION})"
    );
    let mut reader = Reader::new(bytes, 10, "the book file is truncated");
    let count = reader.u32()?;
    // The smallest position takes 33 bytes: a larger count can only be a damaged file.
    ensure!(
        (count as usize).saturating_mul(33) <= bytes.len(),
        "the book file is truncated or corrupted (it claims {count} positions in {} bytes)",
        bytes.len()
    );
    let mut entries = Vec::with_capacity(count as usize);
    for index in 0..count {
        let read = |reader: &mut Reader| -> Result<PositionRecord> {
            let (player, opponent) = (reader.u64()?, reader.u64()?);
            let (wins, draws, losses) = (reader.u32()?, reader.u32()?, reader.u32()?);
            let depth = reader.u8()?;
            let leaf = book_move(reader)?;
            let links = (0..reader.u8()?)
                .map(|_| book_move(reader)?.context("a book move has no square (255)"))
                .collect::<Result<Vec<_>>>()?;
            Ok(PositionRecord {
                player,
                opponent,
                wins,
                draws,
                losses,
                depth,
                leaf,
                links,
            })
        };
        entries.push(read(&mut reader).with_context(|| {
            format!(
                "the book file is corrupted or truncated at position {}",
                index + 1
            )
        })?);
    }
    let body = reader.position();
    let stored = reader
        .u64()
        .context("the book file is truncated (no checksum)")?;
    ensure!(
        reader.position() == bytes.len(),
        "the book file is corrupted ({} bytes after its end)",
        bytes.len() - reader.position()
    );
    ensure!(
        fnv1a_64(&bytes[..body]) == stored,
        "the book file is corrupted (its checksum does not match)"
    );
    Ok(entries)
}

/// Reads a book file's positions.
pub fn load(path: &Path) -> Result<Vec<PositionRecord>> {
    let bytes = fs::read(path).with_context(|| format!("reading the book {}", path.display()))?;
    from_bytes(&bytes).with_context(|| format!("reading the book {}", path.display()))
}

/// The temporary file a book is written to before it replaces `path`.
pub fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

/// Writes a book crash-safely: to [`temp_path`], flushed to the disk, then renamed over
/// `path` (and the folder flushed), so `path` always holds a whole book, old or new.
pub fn save(records: &[PositionRecord], path: &Path) -> Result<()> {
    let temp = temp_path(path);
    let write = || -> Result<()> {
        let mut file = File::create(&temp)?;
        file.write_all(&to_bytes(records))?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, path)?;
        // The rename itself is on the disk only once the folder is; not every system lets
        // a folder be opened for that, and the book is whole either way.
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Ok(dir) = File::open(dir) {
                let _ = dir.sync_all();
            }
        }
        Ok(())
    };
    write().with_context(|| format!("writing the book {}", path.display()))
}

fn text_move(m: &MoveRecord) -> String {
    format!("{}:{:+}", m.square.lower(), m.value.get())
}

/// The text form: [`TEXT_HEADER`], then one line per position in the order given (a book
/// writes them in key order).
pub fn to_text(records: &[PositionRecord]) -> String {
    let mut text = String::from(TEXT_HEADER);
    text.push('\n');
    for entry in records {
        let board: String = Square::ALL
            .iter()
            .map(
                |sq| match (entry.player & sq.bit() != 0, entry.opponent & sq.bit() != 0) {
                    (true, _) => 'X',
                    (_, true) => 'O',
                    _ => '-',
                },
            )
            .collect();
        let leaf = entry.leaf.as_ref().map_or("-".to_string(), text_move);
        let links = if entry.links.is_empty() {
            "-".to_string()
        } else {
            entry
                .links
                .iter()
                .map(text_move)
                .collect::<Vec<_>>()
                .join(",")
        };
        let PositionRecord {
            wins,
            draws,
            losses,
            ..
        } = entry;
        text.push_str(&format!(
            "{board} {wins} {draws} {losses} {} {leaf} {links}\n",
            entry.depth
        ));
    }
    text
}

fn parse_move(text: &str) -> Result<MoveRecord> {
    let (square, value) = text
        .split_once(':')
        .with_context(|| format!("{text:?} is not square:value"))?;
    let value: i32 = value
        .parse()
        .with_context(|| format!("{value:?} is not a value in discs"))?;
    ensure!((-64..=64).contains(&value), "value {value} out of range");
    Ok(MoveRecord {
        square: square.parse()?,
        value: Discs::new(value),
    })
}

fn parse_line(line: &str) -> Result<PositionRecord> {
    let words: Vec<&str> = line.split_whitespace().collect();
    ensure!(words.len() == 7, "expected 7 fields, found {}", words.len());
    ensure!(words[0].len() == 64, "the board needs 64 squares");
    let (mut player, mut opponent) = (0u64, 0u64);
    for (square, c) in Square::ALL.iter().zip(words[0].chars()) {
        match c {
            'X' => player |= square.bit(),
            'O' => opponent |= square.bit(),
            '-' => {}
            _ => bail!("{c:?} is not X, O or -"),
        }
    }
    let count = |text: &str| -> Result<u32> {
        text.parse()
            .with_context(|| format!("{text:?} is not a game count"))
    };
    let (wins, draws, losses) = (count(words[1])?, count(words[2])?, count(words[3])?);
    let depth: u8 = words[4]
        .parse()
        .with_context(|| format!("{:?} is not a depth", words[4]))?;
    let leaf = match words[5] {
        "-" => None,
        text => Some(parse_move(text)?),
    };
    let links = match words[6] {
        "-" => Vec::new(),
        text => text.split(',').map(parse_move).collect::<Result<_>>()?,
    };
    ensure!(links.len() <= 64, "too many links");
    Ok(PositionRecord {
        player,
        opponent,
        wins,
        draws,
        losses,
        depth,
        leaf,
        links,
    })
}

/// A book's positions from its text form, each with its line number (1 for the header);
/// the error names the first bad line.
pub fn from_text(text: &str) -> Result<Vec<(usize, PositionRecord)>> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, first)) if first.trim() == TEXT_HEADER => {}
        _ => bail!("not a tsuru book text (the first line must be {TEXT_HEADER:?})"),
    }
    let mut records = Vec::new();
    for (number, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let record = parse_line(line).with_context(|| format!("line {}", number + 1))?;
        records.push((number + 1, record));
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<PositionRecord> {
        let m = |square: &str, value| MoveRecord {
            square: square.parse().unwrap(),
            value: Discs::new(value),
        };
        vec![
            PositionRecord {
                player: 0x0000_0008_1000_0000,
                opponent: 0x0000_0010_0800_0000,
                wins: 3,
                draws: 1,
                losses: 2,
                depth: 12,
                leaf: Some(m("c4", -3)),
                links: vec![m("d3", 1), m("f5", -2)],
            },
            PositionRecord {
                player: 1,
                opponent: 2,
                wins: 0,
                draws: 0,
                losses: 0,
                depth: 0,
                leaf: None,
                links: Vec::new(),
            },
        ]
    }

    #[test]
    fn records_round_trip_through_both_forms() {
        let records = sample();
        assert_eq!(from_bytes(&to_bytes(&records)).unwrap(), records);
        let text = to_text(&records);
        let lines: Vec<(usize, PositionRecord)> = from_text(&text).unwrap();
        assert_eq!(lines.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [2, 3]);
        assert_eq!(
            lines.into_iter().map(|(_, r)| r).collect::<Vec<_>>(),
            records
        );
    }

    #[test]
    fn damaged_files_are_refused_with_a_clear_error() {
        let bytes = to_bytes(&sample());
        let error = |bytes: &[u8]| format!("{:#}", from_bytes(bytes).unwrap_err());
        for cut in [0, 5, 12, 40, bytes.len() / 2, bytes.len() - 1] {
            let message = error(&bytes[..cut]);
            assert!(
                message.contains("truncated") || message.contains("not a tsuru book"),
                "{cut}: {message}"
            );
        }
        let mut last = bytes.clone();
        *last.last_mut().unwrap() ^= 1;
        assert!(error(&last).contains("checksum"));
        let mut version = bytes.clone();
        version[8] = 9;
        assert!(error(&version).contains("version 9"));
        assert!(error(b"hello").contains("not a tsuru book"));
    }

    #[test]
    fn saving_replaces_the_file_whole() {
        let dir = std::env::temp_dir().join(format!("tsuru-records-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("test.book");
        let records = sample();
        save(&records, &path).unwrap();
        assert_eq!(load(&path).unwrap(), records);
        // A write cut short leaves only the temporary file damaged.
        fs::write(temp_path(&path), &to_bytes(&[])[..7]).unwrap();
        assert_eq!(load(&path).unwrap(), records);
        fs::remove_dir_all(&dir).unwrap();
    }
}
