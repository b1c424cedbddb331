//! Validation files: positions with their exact scores, for measuring an evaluation
//! (`tsuru train --validation`) and the endgame ProbCut statistics (`tsuru probcut
//! --endgame`); `tsuru train --make-validation` writes them.
//!
//! One position a line: the board as [`notation::board_to_string`] writes it, a space, and
//! the exact score in discs for the side to move with its sign (`+4`, `-12`, `+0`). Blank
//! lines and lines starting with `#` are comments.

use std::path::Path;

use anyhow::{Context, Result};

use crate::board::{notation, Board};
use crate::score::Discs;

/// One line of a validation file (without the line break).
pub fn line(board: &Board, score: Discs) -> String {
    format!("{} {:+}", notation::board_to_string(board), score)
}

/// Reads a validation file; an error names the file and line.
pub fn read(path: &Path) -> Result<Vec<(Board, Discs)>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut positions = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parsed =
            parse_line(line).with_context(|| format!("{}:{}", path.display(), number + 1))?;
        positions.push(parsed);
    }
    Ok(positions)
}

/// One position and its score from a line as [`line`] writes it.
pub fn parse_line(line: &str) -> Result<(Board, Discs)> {
    let (board, score) = line.rsplit_once(' ').context("no score")?;
    Ok((notation::parse_board(board)?, Discs::new(score.parse()?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_read_back() {
        let dir = std::env::temp_dir().join(format!("tsuru-validation-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("v.txt");
        let board = Board::start();
        let text = format!(
            "# a comment\n\n{}\n{}\n",
            line(&board, Discs::new(4)),
            line(&board, Discs::new(-2))
        );
        std::fs::write(&path, text).unwrap();
        let read_back = read(&path).unwrap();
        assert_eq!(read_back.len(), 2);
        assert_eq!(read_back[0].1, Discs::new(4));
        assert_eq!(read_back[1].1, Discs::new(-2));
        assert_eq!(
            notation::board_to_string(&read_back[0].0),
            notation::board_to_string(&board)
        );
        std::fs::write(&path, "# header\nnot a board +3\n").unwrap();
        let err = format!("{:#}", read(&path).unwrap_err());
        assert!(err.contains("v.txt:2"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
