//! OBF lines: test positions with the exact scores of their moves (the FFO endgame suite).
//!
//! ```text
//! --XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12; % comment
//! ```
//!
//! A line holds a board string (64 squares and the side to move, see
//! [`crate::board::notation`]), a `;`, then optional `MOVE:score;` pairs (best first, scores in
//! discs for the side to move). Blank lines and lines starting with `%` are comments, and a
//! `%` after the data starts a trailing comment.

use std::fmt;

use anyhow::{anyhow, bail, Context, Result};

use crate::board::{notation, Board, Move};
use crate::score::Discs;

/// One position of an OBF file.
#[derive(Clone, Debug, PartialEq)]
pub struct ObfPosition {
    /// The position (no history).
    pub board: Board,
    /// Moves with their exact scores, in the file's order (best first).
    pub scores: Vec<(Move, Discs)>,
    /// A trailing `%` comment, without the `%`.
    pub comment: Option<String>,
}

impl ObfPosition {
    /// The best score listed, if any.
    pub fn best_score(&self) -> Option<Discs> {
        self.scores.iter().map(|&(_, score)| score).max()
    }

    /// The moves that reach the best listed score.
    pub fn best_moves(&self) -> Vec<Move> {
        let best = self.best_score();
        self.scores
            .iter()
            .filter(|&&(_, score)| Some(score) == best)
            .map(|&(mv, _)| mv)
            .collect()
    }
}

/// Parses one line; `Ok(None)` for a blank or comment line.
pub fn parse_line(line: &str) -> Result<Option<ObfPosition>> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('%') {
        return Ok(None);
    }
    let (data, comment) = match line.split_once('%') {
        Some((data, comment)) => (data, Some(comment.trim().to_string())),
        None => (line, None),
    };
    let mut fields = data.split(';');
    let board = notation::parse_board(fields.next().unwrap_or(""))?;
    let mut scores = Vec::new();
    for field in fields {
        let field = field.trim();
        if field.is_empty() {
            continue;
        }
        let (mv, score) = field
            .split_once(':')
            .ok_or_else(|| anyhow!("expected MOVE:score, found {field:?}"))?;
        let mv: Move = mv.trim().parse()?;
        let score: i32 = score
            .trim()
            .parse()
            .map_err(|_| anyhow!("bad score in {field:?}"))?;
        if !(-64..=64).contains(&score) {
            bail!("score {score} out of range in {field:?}");
        }
        if !board.is_legal(mv) {
            bail!("{mv} is not a legal move of the position");
        }
        scores.push((mv, Discs(score)));
    }
    Ok(Some(ObfPosition {
        board,
        scores,
        comment,
    }))
}

/// Parses a whole file; an error names the line.
pub fn parse_file(text: &str) -> Result<Vec<ObfPosition>> {
    let mut positions = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if let Some(position) = parse_line(line).with_context(|| format!("line {}", number + 1))? {
            positions.push(position);
        }
    }
    Ok(positions)
}

impl fmt::Display for ObfPosition {
    /// The line as in the FFO files: `<board> <side>;` then ` MOVE:+score;` pairs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{};", notation::board_to_string(&self.board))?;
        for (mv, score) in &self.scores {
            write!(f, " {mv}:{score:+};")?;
        }
        if let Some(comment) = &self.comment {
            write!(f, " % {comment}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FFO1: &str = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12; H7:+6; A2:+6; A3:+4; B1:-4; A4:-22; G2:-24;";

    #[test]
    fn parses_an_ffo_line_and_prints_it_back() {
        let position = parse_line(FFO1).unwrap().unwrap();
        assert_eq!(position.board.empties(), 14);
        assert_eq!(position.scores.len(), 8);
        assert_eq!(position.scores[0], ("g8".parse().unwrap(), Discs(18)));
        assert_eq!(position.best_moves(), ["g8".parse::<Move>().unwrap()]);
        assert_eq!(position.to_string(), FFO1);
        assert_eq!(
            parse_line(&position.to_string()).unwrap().unwrap(),
            position
        );
    }

    #[test]
    fn comments_and_blank_lines() {
        assert_eq!(parse_line("").unwrap(), None);
        assert_eq!(parse_line("% a comment").unwrap(), None);
        let with_comment = format!("{} % ffo 1", &FFO1[..67]);
        let position = parse_line(&with_comment).unwrap().unwrap();
        assert_eq!(position.comment.as_deref(), Some("ffo 1"));
        assert!(position.scores.is_empty());
    }

    #[test]
    fn malformed_lines_are_errors() {
        for bad in [
            "XXXX X;",
            &FFO1.replace("G8:+18", "G8+18"),
            &FFO1.replace("G8:+18", "G8:x"),
            &FFO1.replace("G8:+18", "Z9:+18"),
            &FFO1.replace("G8:+18", "A1:+18"),
            &FFO1.replace("G8:+18", "G8:+99"),
        ] {
            assert!(parse_line(bad).is_err(), "{bad:?}");
        }
        let err = parse_file(&format!("% header\n{FFO1}\nnonsense\n")).unwrap_err();
        assert!(format!("{err:#}").contains("line 3"));
    }

    #[test]
    fn fixture_files_parse() {
        for (name, count) in [
            ("fforum-1-19.obf", 19),
            ("fforum-20-39.obf", 20),
            ("fforum-40-59.obf", 20),
        ] {
            let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
            let positions = parse_file(&std::fs::read_to_string(path).unwrap()).unwrap();
            assert_eq!(positions.len(), count, "{name}");
            assert!(positions.iter().all(|p| !p.scores.is_empty()));
        }
    }
}
