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
//!
//! Edax's problem files (`problem/*.obf` of Edax) list every legal move and end each line with
//! `--:-127;`, a pass with Edax's "no score" value: that entry says there are no further
//! moves and is skipped. A pass with a real score (`--:+4;`, also `PS` or `pass`) is the
//! score of a position whose side to move must pass.

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

/// Edax's end-of-list entry: a pass scored with this value carries no score.
const EDAX_NO_SCORE: i32 = -127;

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
        if mv == Move::Pass && score == EDAX_NO_SCORE {
            continue;
        }
        if !(-64..=64).contains(&score) {
            bail!("score {score} out of range in {field:?}");
        }
        if !board.is_legal(mv) {
            bail!("{mv} is not a legal move of the position");
        }
        scores.push((mv, Discs::new(score)));
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
        assert_eq!(position.scores[0], ("g8".parse().unwrap(), Discs::new(18)));
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
    fn edax_problem_lines_parse_without_their_end_entry() {
        // The first line of Edax's hard-25 set, as Edax writes it.
        let line = "-XXXXX--O-XXOO--OOXXXO--OXOOOX--OXOOXXX-OOOXXX----OX-X-------X-- O; \
                    G4:-4; E8:-6; D8:-6; G3:-8; E7:-10; H5:-10; G6:-10; G7:-16; B2:-16; \
                    G8:-24; --:-127;";
        let position = parse_line(line).unwrap().unwrap();
        assert_eq!(position.board.empties(), 25);
        assert_eq!(position.scores.len(), 10);
        assert_eq!(position.board.legal_moves().count_ones(), 10);
        assert_eq!(position.scores[9], ("g8".parse().unwrap(), Discs::new(-24)));
        assert_eq!(position.best_moves(), ["g4".parse::<Move>().unwrap()]);
        assert_eq!(position.best_score(), Some(Discs::new(-4)));
        // -127 is only Edax's marker for a pass; on a square it is out of range.
        assert!(parse_line(&line.replace("G8:-24", "G8:-127")).is_err());
    }

    #[test]
    fn a_pass_position_takes_a_scored_pass() {
        // White to move has no legal move here, Black has: White must pass.
        let board = "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXOO- O";
        let position = parse_line(&format!("{board}; --:-64; --:-127;"))
            .unwrap()
            .unwrap();
        assert!(position.board.must_pass());
        assert_eq!(position.scores, [(Move::Pass, Discs::new(-64))]);
        assert_eq!(position.best_moves(), [Move::Pass]);
        // A pass is not a legal move where a square is.
        let err = parse_line(&format!("{FFO1} --:+2;")).unwrap_err();
        assert!(err.to_string().contains("not a legal move"), "{err}");
    }

    #[test]
    fn a_position_without_scores_has_no_best_move() {
        let position = parse_line(&FFO1[..67]).unwrap().unwrap();
        assert!(position.scores.is_empty());
        assert_eq!(position.best_score(), None);
        assert!(position.best_moves().is_empty());
        let edax_style = parse_line(&format!("{} --:-127;", &FFO1[..67]))
            .unwrap()
            .unwrap();
        assert_eq!(edax_style, position);
    }

    #[test]
    fn edax_problem_sets_parse_whole() {
        // The shared data sit beside the repository; a fresh clone without them skips this.
        for (name, count, empties) in [("hard-20.obf", 276, 20), ("hard-25.obf", 311, 25)] {
            let path = format!(
                "{}/../../../shared/data/edax-problems/{name}",
                env!("CARGO_MANIFEST_DIR")
            );
            let Ok(text) = std::fs::read_to_string(&path) else {
                eprintln!("skipped: {path} not found");
                continue;
            };
            let positions = parse_file(&text).unwrap();
            assert_eq!(positions.len(), count, "{name}");
            for position in &positions {
                assert_eq!(position.board.empties(), empties);
                // Edax lists every legal move.
                assert_eq!(
                    position.scores.len() as u32,
                    position.board.legal_moves().count_ones(),
                    "{position}"
                );
            }
        }
    }

    #[test]
    fn fixture_files_parse() {
        for (name, count) in [
            ("fforum-1-19.obf", 19),
            ("fforum-20-39.obf", 20),
            ("fforum-40-59.obf", 20),
        ] {
            let path = format!("{}/../../tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
            let positions = parse_file(&std::fs::read_to_string(path).unwrap()).unwrap();
            assert_eq!(positions.len(), count, "{name}");
            assert!(positions.iter().all(|p| !p.scores.is_empty()));
        }
    }
}
