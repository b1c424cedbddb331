//! Edax's opening books made into tsuru's and back (`tsuru book import-edax` and
//! `export-edax`; the file layout is [`crate::formats::edax_book`]).
//!
//! Both books key a position by the smallest of its eight symmetric (side to move, opponent)
//! bitboard pairs, with the same bit numbering (a1 = 0, h8 = 63), so a position and its
//! moves map square for square. What differs:
//!
//! - Edax keeps a position whose side to move must pass (one link: the pass), and one where
//!   the game is over (no move, its leaf valued by the final score); tsuru settles passes (a
//!   link leads straight to the position after the pass) and values a move that ends the
//!   game by its final score. Import folds both kinds in; export writes them out again.
//! - Edax's value bounds (lower, upper) and unterminated line counts have no place in
//!   tsuru's book: import drops them; export writes the value as both bounds and counts the
//!   lines as Edax does (a valued leaf is one, a link adds its child's).
//! - Edax's header (date, level, minimum empties, error settings) is dropped on import;
//!   export writes Edax's defaults with the book's deepest level.
//! - Wins, draws and losses map as they are (Edax fills them from the solved lines below a
//!   position, tsuru from the games learnt), and Edax's level maps to tsuru's depth.
//!
//! Every value is backed up by tsuru's negamax after import; the report counts the
//! positions whose value then differs from the one Edax stored.

use std::collections::HashMap;

use anyhow::{bail, ensure, Context, Result};

use super::{next, Book, BookEntry, BookMove, Games, Key, Next};
use crate::board::{Board, Color, Square};
use crate::formats::edax_book::{
    Date, EdaxBook, EdaxMove, EdaxPosition, Options, NO_MOVE, NO_SCORE, PASS, RELEASE,
};
use crate::score::Discs;

/// What an import or export mapped and what it could not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Whether this is an import (Edax to tsuru) rather than an export.
    pub imported: bool,
    /// Positions read.
    pub read: usize,
    /// Positions written.
    pub written: usize,
    /// Positions whose side to move must pass (Edax's), folded in or written out.
    pub passes: usize,
    /// Positions where the game is over (Edax's), folded in or written out.
    pub finished: usize,
    /// Links to positions the book does not hold, kept as the best move outside the book
    /// when better than the leaf (import), or dropped (export).
    pub dangling: usize,
    /// Positions whose value after tsuru's negamax differs from the one Edax stored.
    pub changed_values: usize,
    /// What was not mapped, one phrase each.
    pub dropped: Vec<String>,
}

impl Report {
    /// The report as lines of text (ASCII).
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![format!(
            "{} positions read, {} written; {} pass positions and {} finished positions {}",
            self.read,
            self.written,
            self.passes,
            self.finished,
            if self.imported {
                "folded into the links"
            } else {
                "written out for Edax"
            }
        )];
        if self.dangling > 0 {
            lines.push(format!(
                "{} links lead to positions missing from the book",
                self.dangling
            ));
        }
        if self.changed_values > 0 {
            lines.push(format!(
                "{} positions have another value after negamax than Edax stored",
                self.changed_values
            ));
        }
        for phrase in &self.dropped {
            lines.push(format!("not mapped: {phrase}"));
        }
        lines
    }
}

fn square(index: u8) -> Result<Square> {
    Square::new(index as usize).with_context(|| format!("move number {index} is not a square"))
}

/// Checks a position's board and returns it (Black standing for the side to move).
fn board_of(player: u64, opponent: u64) -> Result<Board> {
    ensure!(player & opponent == 0, "a square holds both sides' discs");
    let centre = 0x0000_0018_1800_0000;
    ensure!(
        (player | opponent) & centre == centre,
        "a centre square is empty"
    );
    Board::from_discs(player, opponent, Color::Black)
}

/// tsuru's book from an Edax book, with what was mapped and what was not. A position that
/// breaks the rules of the game (two discs on a square, an illegal move, a value out of
/// range, a form that is not the smallest) is an error naming it.
pub fn import(edax: &EdaxBook) -> Result<(Book, Report)> {
    let mut report = Report {
        imported: true,
        read: edax.positions.len(),
        ..Report::default()
    };
    let mut book = Book::new();
    let mut stored: HashMap<Key, i16> = HashMap::new();
    for (index, position) in edax.positions.iter().enumerate() {
        let one = |position: &EdaxPosition| -> Result<Option<(Key, BookEntry)>> {
            let board = board_of(position.player, position.opponent)?;
            let (key, to_key) = Key::of(&board);
            ensure!(
                key.player == position.player && key.opponent == position.opponent,
                "the position is not in its smallest symmetric form"
            );
            ensure!(position.level <= 60, "level {} above 60", position.level);
            if !board.has_legal_move() {
                for link in &position.links {
                    ensure!(
                        link.square == PASS,
                        "a move where the side to move has none"
                    );
                }
                return Ok(None);
            }
            let legal = board.legal_moves();
            let mut links = Vec::with_capacity(position.links.len());
            for link in &position.links {
                ensure!(
                    link.square != PASS,
                    "a pass where the side to move has a move"
                );
                let sq = to_key.apply(square(link.square)?);
                ensure!(legal & sq.bit() != 0, "link {sq} is not a legal move");
                ensure!(
                    links.iter().all(|m: &BookMove| m.square != sq),
                    "link {sq} is listed twice"
                );
                // The value is backed up again below; Edax's may be a placeholder.
                let value = Discs::new(i32::from(link.value).clamp(-64, 64));
                links.push(BookMove { square: sq, value });
            }
            links.sort_by_key(|m| m.square.index());
            let leaf = match position.leaf.square {
                NO_MOVE | PASS => None,
                index => {
                    let sq = to_key.apply(square(index)?);
                    ensure!(legal & sq.bit() != 0, "leaf {sq} is not a legal move");
                    ensure!(
                        (-64..=64).contains(&position.leaf.value),
                        "leaf value {} out of range",
                        position.leaf.value
                    );
                    let value = Discs::new(i32::from(position.leaf.value));
                    // Edax drops a leaf that becomes a link; a file that has both keeps the link.
                    (!links.iter().any(|m| m.square == sq))
                        .then_some(BookMove { square: sq, value })
                }
            };
            let entry = BookEntry {
                links,
                leaf,
                games: Games {
                    wins: position.wins,
                    draws: position.draws,
                    losses: position.losses,
                },
                depth: position.level,
            };
            Ok(Some((key, entry)))
        };
        let what = || {
            format!(
                "Edax book position {} ({:016x} {:016x})",
                index + 1,
                position.player,
                position.opponent
            )
        };
        let board = board_of(position.player, position.opponent).with_context(what)?;
        match one(position).with_context(what)? {
            Some((key, entry)) => {
                stored.insert(key, position.value);
                book.insert_checked(key, entry).with_context(what)?;
            }
            None if board.opponent_has_legal_move() => report.passes += 1,
            None => report.finished += 1,
        }
    }
    // Links whose child is missing cannot be backed up: the move is valued as Edax valued
    // it, as the best move outside the book when it beats the leaf.
    let keys: Vec<Key> = book.entries.keys().copied().collect();
    for key in keys {
        let board = key.board()?;
        let entry = &book.entries[&key];
        let missing: Vec<BookMove> = entry
            .links
            .iter()
            .filter(|m| match next(&board, m.square) {
                Some(Next::Position { board: child, .. }) => !book.contains(&child),
                _ => false,
            })
            .copied()
            .collect();
        if missing.is_empty() {
            continue;
        }
        report.dangling += missing.len();
        let entry = book.entries.get_mut(&key).expect("listed");
        entry.links.retain(|m| !missing.contains(m));
        for m in missing {
            if entry.leaf.is_none_or(|leaf| leaf.value < m.value) {
                entry.leaf = Some(m);
            }
        }
    }
    book.negamax();
    report.changed_values = stored
        .iter()
        .filter(|(key, value)| {
            let ours = book.entries[key].value().map_or(-127, |v| v.get());
            i32::from(**value) != ours
        })
        .count();
    report.written = book.len();
    report.dropped = vec![
        "Edax's value bounds (lower, upper): tsuru keeps one value".to_string(),
        "Edax's unterminated line counts".to_string(),
        format!(
            "Edax's header (saved {:04}-{:02}-{:02}, level {}, {} empties, errors {}/{})",
            edax.date.year,
            edax.date.month,
            edax.date.day,
            edax.options.level,
            edax.options.empties,
            edax.options.midgame_error,
            edax.options.endcut_error
        ),
    ];
    Ok((book, report))
}

/// A position Edax needs beside tsuru's: one whose side to move must pass, or a finished one.
fn extra(
    board: &Board,
    link: Option<EdaxMove>,
    value: i16,
    level: u8,
    games: Games,
) -> EdaxPosition {
    let (key, _) = Key::canonical(board.player_discs(), board.opponent_discs());
    EdaxPosition {
        player: key.player,
        opponent: key.opponent,
        wins: games.wins,
        draws: games.draws,
        losses: games.losses,
        lines: 1,
        value,
        lower: value,
        upper: value,
        level,
        links: link.into_iter().collect(),
        leaf: match link {
            Some(_) => EdaxMove {
                value: NO_SCORE,
                square: NO_MOVE,
            },
            None => EdaxMove {
                value: value as i8,
                square: NO_MOVE,
            },
        },
    }
}

/// Unterminated lines below every position, as Edax counts them (saturating).
fn lines(book: &Book) -> HashMap<Key, u32> {
    fn count(book: &Book, key: Key, memo: &mut HashMap<Key, u32>) -> u32 {
        if let Some(&n) = memo.get(&key) {
            return n;
        }
        memo.insert(key, 0); // no cycle is possible (discs only grow); a guard all the same
        let entry = &book.entries[&key];
        let board = key.board().expect("valid keys");
        let mut n = u32::from(entry.leaf.is_some());
        for link in &entry.links {
            n = n.saturating_add(match next(&board, link.square) {
                Some(Next::Position { board: child, .. }) => {
                    let child = Key::of(&child).0;
                    if book.entries.contains_key(&child) {
                        count(book, child, memo)
                    } else {
                        0
                    }
                }
                _ => 1,
            });
        }
        memo.insert(key, n);
        n
    }
    let mut memo = HashMap::new();
    for key in book.entries.keys() {
        count(book, *key, &mut memo);
    }
    memo
}

/// The date now (UTC), for the header.
fn today() -> Date {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Days since 1970-01-01 to a civil date (the proleptic Gregorian calendar).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    Date {
        year: year as i16,
        month: month as u8,
        day: day as u8,
        hour: (rem / 3600) as u8,
        minute: (rem / 60 % 60) as u8,
        second: (rem % 60) as u8,
    }
}

/// An Edax book from tsuru's, with what was added and what was not mapped.
pub fn export(book: &Book) -> (EdaxBook, Report) {
    let mut report = Report {
        read: book.len(),
        ..Report::default()
    };
    let lines = lines(book);
    let mut positions: Vec<EdaxPosition> = Vec::with_capacity(book.len());
    let mut extras: HashMap<Key, EdaxPosition> = HashMap::new();
    let (mut max_level, mut min_empties) = (1u8, 60i32);
    for (key, entry) in book.sorted() {
        let board = key.board().expect("valid keys");
        min_empties = min_empties.min(board.empties() as i32);
        let level = entry.depth.min(60);
        max_level = max_level.max(level);
        let mut links = Vec::with_capacity(entry.links.len());
        for link in &entry.links {
            let value = link.value.get().clamp(-64, 64) as i8;
            match next(&board, link.square) {
                Some(Next::Over(score)) => {
                    // Edax plays into the finished position and reads its value there.
                    let mut end = board.without_history();
                    end.make_move(link.square);
                    let (end_key, _) = Key::of(&end);
                    extras.entry(end_key).or_insert_with(|| {
                        extra(&end, None, -score.get() as i16, level, Games::default())
                    });
                }
                Some(Next::Position {
                    board: child,
                    same_side,
                }) => {
                    let Some(child_entry) = book.get(&Key::of(&child).0) else {
                        report.dangling += 1;
                        continue;
                    };
                    if same_side {
                        // The opponent's pass, as a position of its own with the pass as link.
                        let mut passing = board.without_history();
                        passing.make_move(link.square);
                        let (pass_key, _) = Key::of(&passing);
                        let value = child_entry.value().map_or(-127, |v| v.get());
                        let games = Games {
                            wins: child_entry.games.losses,
                            draws: child_entry.games.draws,
                            losses: child_entry.games.wins,
                        };
                        extras.entry(pass_key).or_insert_with(|| {
                            let pass = EdaxMove {
                                value: (-value).clamp(-127, 127) as i8,
                                square: PASS,
                            };
                            extra(
                                &passing,
                                Some(pass),
                                -value as i16,
                                child_entry.depth,
                                games,
                            )
                        });
                    }
                }
                None => {
                    report.dangling += 1;
                    continue;
                }
            }
            links.push(EdaxMove {
                value,
                square: link.square.index() as u8,
            });
        }
        let value = entry.value().map_or(-127, |v| v.get()) as i16;
        positions.push(EdaxPosition {
            player: key.player,
            opponent: key.opponent,
            wins: entry.games.wins,
            draws: entry.games.draws,
            losses: entry.games.losses,
            lines: lines.get(key).copied().unwrap_or(0),
            value,
            lower: value,
            upper: value,
            level,
            links,
            leaf: match entry.leaf {
                Some(leaf) => EdaxMove {
                    value: leaf.value.get().clamp(-64, 64) as i8,
                    square: leaf.square.index() as u8,
                },
                None => EdaxMove {
                    value: NO_SCORE,
                    square: NO_MOVE,
                },
            },
        });
    }
    let mut extras: Vec<(Key, EdaxPosition)> = extras.into_iter().collect();
    extras.sort_unstable_by_key(|(key, _)| *key);
    for (_, position) in extras {
        let board = board_of(position.player, position.opponent).expect("a played position");
        if board.has_legal_move() || board.opponent_has_legal_move() {
            report.passes += 1;
        } else {
            report.finished += 1;
        }
        positions.push(position);
    }
    report.written = positions.len();
    report.dropped = vec![
        "Edax's value bounds: each position's value is written as both".to_string(),
        "Edax's header settings: its defaults (midgame error 2, endcut error 1)".to_string(),
    ];
    let edax = EdaxBook {
        release: RELEASE,
        date: today(),
        options: Options {
            level: i32::from(max_level),
            empties: min_empties,
            midgame_error: 2,
            endcut_error: 1,
            verbosity: 0,
        },
        positions,
    };
    (edax, report)
}

/// Reads an Edax book file into tsuru's book.
pub fn load(path: &std::path::Path) -> Result<(Book, Report)> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let edax = crate::formats::edax_book::from_bytes(&bytes)
        .with_context(|| format!("reading the Edax book {}", path.display()))?;
    import(&edax).with_context(|| format!("importing the Edax book {}", path.display()))
}

/// Refuses an empty export: Edax needs at least the start.
pub fn check_exportable(book: &Book) -> Result<()> {
    if book.is_empty() {
        bail!("the book is empty: nothing to export");
    }
    Ok(())
}
