//! The book's files: a [`Book`] to and from the plain records of [`crate::formats::book`]
//! (the binary file, written crash-safely, and the text form), each record checked against
//! the rules of the game on the way in ([`Book::insert_checked`]).

use std::path::Path;

use anyhow::{Context, Result};

use super::{Book, BookEntry, BookMove, Games, Key};
use crate::formats::book::{self as records, MoveRecord, PositionRecord};

fn move_record(m: &BookMove) -> MoveRecord {
    MoveRecord {
        square: m.square,
        value: m.value,
    }
}

fn book_move(m: MoveRecord) -> BookMove {
    BookMove {
        square: m.square,
        value: m.value,
    }
}

/// The book's positions as records, in key order.
pub fn to_records(book: &Book) -> Vec<PositionRecord> {
    book.sorted()
        .into_iter()
        .map(|(key, entry)| PositionRecord {
            player: key.player,
            opponent: key.opponent,
            wins: entry.games.wins,
            draws: entry.games.draws,
            losses: entry.games.losses,
            depth: entry.depth,
            leaf: entry.leaf.as_ref().map(move_record),
            links: entry.links.iter().map(move_record).collect(),
        })
        .collect()
}

/// Adds a record to the book as an entry, checked ([`Book::insert_checked`]).
fn insert(book: &mut Book, record: PositionRecord) -> Result<()> {
    let key = Key {
        player: record.player,
        opponent: record.opponent,
    };
    let entry = BookEntry {
        links: record.links.into_iter().map(book_move).collect(),
        leaf: record.leaf.map(book_move),
        games: Games {
            wins: record.wins,
            draws: record.draws,
            losses: record.losses,
        },
        depth: record.depth,
    };
    book.insert_checked(key, entry)
}

/// The binary form of a book.
pub fn to_bytes(book: &Book) -> Vec<u8> {
    records::to_bytes(&to_records(book))
}

/// A book from its binary form; a clear error when the bytes are not a whole, unchanged
/// book of this version, or a position breaks the rules of the game.
pub fn from_bytes(bytes: &[u8]) -> Result<Book> {
    let mut book = Book::new();
    for (index, record) in records::from_bytes(bytes)?.into_iter().enumerate() {
        insert(&mut book, record)
            .with_context(|| format!("the book file is corrupted at position {}", index + 1))?;
    }
    Ok(book)
}

/// Reads a book file.
pub fn load(path: &Path) -> Result<Book> {
    let bytes =
        std::fs::read(path).with_context(|| format!("reading the book {}", path.display()))?;
    from_bytes(&bytes).with_context(|| format!("reading the book {}", path.display()))
}

/// Writes a book crash-safely ([`records::save`]: `path` always holds a whole book, old or
/// new).
pub fn save(book: &Book, path: &Path) -> Result<()> {
    records::save(&to_records(book), path)
}

/// The text form: the header, then one line per position in key order.
pub fn to_text(book: &Book) -> String {
    records::to_text(&to_records(book))
}

/// A book from its text form; the error names the first bad line.
pub fn from_text(text: &str) -> Result<Book> {
    let mut book = Book::new();
    for (line, record) in records::from_text(text)? {
        insert(&mut book, record).with_context(|| format!("line {line}"))?;
    }
    Ok(book)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{notation, Board};
    use crate::book::learn::tests::{Fixed, WIPEOUT};
    use crate::formats::book::temp_path;

    fn sample() -> Book {
        let mut book = Book::new();
        for game in [WIPEOUT, "f5f6e6f4", "f5d6c3"] {
            let moves = notation::parse_transcript(game).unwrap();
            book.learn_game(&Board::start(), &moves, &mut Fixed)
                .unwrap();
        }
        book
    }

    #[test]
    fn binary_and_text_round_trip_byte_for_byte() {
        let book = sample();
        let bytes = to_bytes(&book);
        let again = from_bytes(&bytes).unwrap();
        assert_eq!(again, book);
        let text = to_text(&book);
        let imported = from_text(&text).unwrap();
        assert_eq!(to_bytes(&imported), bytes);
        assert_eq!(to_text(&imported), text);
        assert_eq!(text.lines().count(), book.len() + 1);
    }

    #[test]
    fn damaged_files_are_refused_with_a_clear_error() {
        // Truncation, checksums and versions are the record reader's (formats::book, tested
        // there); what reaches the book through it, and a record the book refuses, are here.
        let bytes = to_bytes(&sample());
        let error = |bytes: &[u8]| format!("{:#}", from_bytes(bytes).unwrap_err());
        assert!(error(&bytes[..bytes.len() / 2]).contains("truncated"));
        let mut flipped = bytes.clone();
        flipped[30] ^= 0x10;
        assert!(error(&flipped).contains("corrupted"), "{}", error(&flipped));
        let mut last = bytes.clone();
        *last.last_mut().unwrap() ^= 1;
        assert!(error(&last).contains("checksum"));
    }

    #[test]
    fn bad_text_lines_are_named() {
        let text = to_text(&sample());
        let mut lines: Vec<&str> = text.lines().collect();
        lines[2] = "XO 1 2";
        let message = format!("{:#}", from_text(&lines.join("\n")).unwrap_err());
        assert!(message.contains("line 3"), "{message}");
        // A line that parses but breaks the rules is named too.
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        lines.push(lines[1].clone());
        let message = format!("{:#}", from_text(&lines.join("\n")).unwrap_err());
        assert!(
            message.contains(&format!("line {}", lines.len())),
            "{message}"
        );
    }

    #[test]
    fn saving_replaces_the_file_whole() {
        let dir = std::env::temp_dir().join(format!("tsuru-book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("test.book");
        let book = sample();
        save(&book, &path).unwrap();
        assert_eq!(load(&path).unwrap(), book);
        // A write cut short leaves only the temporary file damaged.
        std::fs::write(temp_path(&path), &to_bytes(&Book::new())[..7]).unwrap();
        assert_eq!(load(&path).unwrap(), book);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
