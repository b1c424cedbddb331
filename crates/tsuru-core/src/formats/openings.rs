//! Opening lists: one transcript per line (`f5d6c3d3c4f4f6f3`), blank lines and lines starting
//! with `#` skipped. The built-in list is the XOT "large" set of 10 784 balanced eight-move
//! openings, shipped in the binary.

use anyhow::{Context, Result};

use crate::board::{notation, Board, Move};
use crate::rng::Rng;

/// The XOT large opening list, one transcript per line.
pub const XOT_LARGE: &str = include_str!("xot-large.txt");

/// An opening: its text as written and its moves from the start position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The transcript as written in the list (lower case, no passes).
    pub name: String,
    /// The moves, passes included where a side had to pass.
    pub moves: Vec<Move>,
}

/// Reads an opening list; every line must be a legal transcript from the start position
/// that does not end the game. The error names the first bad line.
pub fn parse(text: &str) -> Result<Vec<Opening>> {
    let mut openings = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let opening = (|| -> Result<Opening> {
            let moves = notation::parse_transcript(line)?;
            let mut board = Board::start();
            notation::play_moves(&mut board, &moves)?;
            anyhow::ensure!(!board.is_game_over(), "the game is over after it");
            Ok(Opening {
                name: notation::transcript(moves.iter().copied()),
                moves: board.history().collect(),
            })
        })()
        .with_context(|| format!("line {}: {line:?}", number + 1))?;
        openings.push(opening);
    }
    Ok(openings)
}

/// `count` openings drawn from `list` in an order fixed by `seed` (a Fisher-Yates shuffle;
/// the list is used again from its start if `count` exceeds its length).
pub fn choose(list: &[Opening], count: usize, seed: u64) -> Vec<Opening> {
    let mut order: Vec<usize> = (0..list.len()).collect();
    let mut rng = Rng::new(seed);
    for i in (1..order.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    order
        .iter()
        .cycle()
        .take(count)
        .map(|&i| list[i].clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_list_is_the_full_xot_set() {
        let list = parse(XOT_LARGE).unwrap();
        assert_eq!(list.len(), 10_784);
        assert!(list.iter().all(|opening| opening.moves.len() == 8));
        assert_eq!(list[0].name, "f5d6c4d3c2b3b4b5");
    }

    #[test]
    fn bad_lines_are_named() {
        let err = parse("f5d6\n# comment\n\nf5f5\n").unwrap_err();
        assert!(format!("{err:#}").contains("line 4"), "{err:#}");
        assert!(parse("f5d6c3 z9").is_err());
        assert_eq!(parse("  F5D6  \r\n").unwrap()[0].name, "f5d6");
    }

    #[test]
    fn choice_depends_on_the_seed_only() {
        let list = parse(XOT_LARGE).unwrap();
        assert_eq!(choose(&list, 5, 7), choose(&list, 5, 7));
        assert_ne!(choose(&list, 5, 7), choose(&list, 5, 8));
        let small = &list[..3];
        let many = choose(small, 7, 1);
        assert_eq!(many.len(), 7);
        assert_eq!(many[0], many[3]);
    }
}
