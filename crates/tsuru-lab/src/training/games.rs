//! Game collections for training: the WTHOR database and Logistello's book games.
//!
//! * WTHOR `.wtb`: a 16-byte header (the record count is the u32 at byte 4, the depth of the
//!   theoretical score at byte 14), then 68-byte records: tournament, Black and White player
//!   numbers (u16 each), Black's discs at the end, Black's discs with perfect play from the
//!   position at `depth` empties (the "theoretical" score), then 60 moves as `10*row + col`
//!   (1-based; 0 = no move).
//! * Logistello's `logbook.gam`: one game a line, moves as colour sign and square
//!   (`+d3-c3+c4...`), then `: <Black's final disc difference> <constant>`. A `.gz` file is
//!   read through `gzip -dc`.
//!
//! Games are replayed on a [`Board`]; a side with no move passes; a game with an illegal
//! move is dropped (and counted).

use std::path::Path;

use anyhow::{ensure, Context, Result};

use tsuru_core::board::{Board, Color, Move, Square};

/// One game: its moves from the start (passes included) and labels.
#[derive(Clone, Debug)]
pub struct Game {
    /// Moves from the start position, passes included.
    pub moves: Vec<Move>,
    /// Black's final disc difference (empties to the winner).
    pub black_diff: i8,
    /// Black's exact disc difference with perfect play from the position at
    /// `theoretical_empties` empty squares, if the collection records it.
    pub theoretical: Option<(u8, i8)>,
    /// Positions before this many moves are not training samples (a random opening).
    pub first_sample: usize,
    /// The players' recorded search score of the position before each move, for the side
    /// to move in whole discs (self-play games of v3 files; `None` where the move was not
    /// searched); empty for games that record none.
    pub recorded: Vec<Option<i8>>,
}

/// Replays `squares` from the start, inserting passes; `None` on an illegal move.
fn replay(squares: &[Square]) -> Option<(Vec<Move>, Board)> {
    let mut board = Board::start();
    let mut moves = Vec::with_capacity(squares.len() + 4);
    for &square in squares {
        if board.must_pass() {
            board.make_pass();
            moves.push(Move::Pass);
        }
        if !board.make_move(square) {
            return None;
        }
        moves.push(Move::Play(square));
    }
    Some((moves, board))
}

/// Reads one WTHOR file; returns the games and how many records were dropped.
pub fn read_wthor(path: &Path) -> Result<(Vec<Game>, usize)> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    ensure!(bytes.len() >= 16, "{}: no header", path.display());
    let count = u32::from_le_bytes(bytes[4..8].try_into().expect("4 bytes")) as usize;
    let depth = if bytes[14] == 0 { 22 } else { bytes[14] };
    ensure!(
        bytes.len() >= 16 + 68 * count,
        "{}: {} records announced, {} bytes",
        path.display(),
        count,
        bytes.len()
    );
    let mut games = Vec::with_capacity(count);
    let mut dropped = 0;
    for record in bytes[16..16 + 68 * count].chunks_exact(68) {
        let real = record[6] as i32;
        let theoretical = record[7] as i32;
        let squares: Option<Vec<Square>> = record[8..68]
            .iter()
            .take_while(|&&b| b != 0)
            .map(|&b| {
                Square::from_coords(
                    usize::from(b % 10).wrapping_sub(1),
                    usize::from(b / 10).wrapping_sub(1),
                )
            })
            .collect();
        let Some((moves, board)) = squares.as_deref().and_then(replay) else {
            dropped += 1;
            continue;
        };
        let black_diff = if board.is_game_over() {
            board.final_score(Color::Black).get()
        } else {
            2 * real - 64
        };
        games.push(Game {
            moves,
            black_diff: black_diff.clamp(-64, 64) as i8,
            theoretical: Some((depth, (2 * theoretical - 64).clamp(-64, 64) as i8)),
            first_sample: 0,
            recorded: Vec::new(),
        });
    }
    Ok((games, dropped))
}

/// Reads every `WTH_*.wtb` file of a folder, in name order.
pub fn read_wthor_folder(folder: &Path) -> Result<(Vec<Game>, usize)> {
    let mut files: Vec<_> = std::fs::read_dir(folder)
        .with_context(|| format!("reading {}", folder.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("WTH_") && n.ends_with(".wtb"))
        })
        .collect();
    files.sort();
    let mut games = Vec::new();
    let mut dropped = 0;
    for file in files {
        let (more, lost) = read_wthor(&file)?;
        games.extend(more);
        dropped += lost;
    }
    Ok((games, dropped))
}

/// Parses one logbook line; `None` if it is not a complete legal game.
pub fn parse_logbook_line(line: &str) -> Option<Game> {
    let (moves_text, rest) = line.split_once(':')?;
    let black_diff: i32 = rest.split_whitespace().next()?.parse().ok()?;
    let bytes = moves_text.trim().as_bytes();
    if bytes.len() % 3 != 0 {
        return None;
    }
    let squares: Option<Vec<Square>> = bytes
        .chunks(3)
        .map(|chunk| std::str::from_utf8(&chunk[1..]).ok()?.parse().ok())
        .collect();
    let (moves, _) = replay(&squares?)?;
    Some(Game {
        moves,
        black_diff: black_diff.clamp(-64, 64) as i8,
        theoretical: None,
        first_sample: 0,
        recorded: Vec::new(),
    })
}

/// The text of a file, a `.gz` one read through `gzip -dc` (invalid UTF-8 replaced).
pub fn read_text(path: &Path) -> Result<String> {
    if path.extension().is_some_and(|e| e == "gz") {
        let output = std::process::Command::new("gzip")
            .arg("-dc")
            .arg(path)
            .output()
            .with_context(|| format!("running gzip -dc {}", path.display()))?;
        ensure!(
            output.status.success(),
            "gzip -dc {} failed",
            path.display()
        );
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
    }
}

/// Reads a logbook file (`.gz` through `gzip -dc`); returns the games and the lines dropped.
pub fn read_logbook(path: &Path) -> Result<(Vec<Game>, usize)> {
    let text = read_text(path)?;
    let mut games = Vec::new();
    let mut dropped = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match parse_logbook_line(line) {
            Some(game) => games.push(game),
            None => dropped += 1,
        }
    }
    Ok((games, dropped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logbook_lines_replay_with_passes() {
        let line = "+d3-c3+c4-e3+c2-b3+d2-e1+d1-c1+f4-d6+e6-g4+b2-f6+d7-c8+e7-d8+f3-f5+g5-h4+h6-f2\
+f7-h5+g6-c6+c5-c7+b6-b5+f8-a6+b4-a5+a4-e8+b8-h7+g8-b7+g2-g3+h2-a1+f1-e2+h3-a3+a8-a7+h8-g7+a2-b1\
-g1+h1: +00 10";
        let game = parse_logbook_line(line).unwrap();
        assert_eq!(game.black_diff, 0);
        // White played b1 and g1 in a row: Black's pass is inserted.
        assert_eq!(game.moves.len(), 61);
        assert_eq!(game.moves[58], Move::Pass);
        let mut board = Board::start();
        for &mv in &game.moves {
            board.play(mv).unwrap();
        }
        assert!(board.is_game_over());
        assert_eq!(board.final_score(Color::Black).get(), 0);
        assert!(parse_logbook_line("+d3-d3: +00 10").is_none());
        assert!(parse_logbook_line("garbage").is_none());
    }
}
