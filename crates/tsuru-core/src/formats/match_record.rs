//! Match records, as `tsuru match` writes them into its output folder: `games.ggf` holds one
//! GGF record a line ([`crate::formats::ggf`]), and `games.txt` one [`GameLine`] a game, in
//! order of completion, which `--resume` reads back to know what was played:
//!
//! ```text
//! game   3  f5d6c3d3c4f4f6f3  black=a white=b  B+12 (38-26)
//! game   4  f5d6c3d3c4f4f6f3  black=b white=a  W+64  forfeit: b (black): illegal move: a1
//! ```
//!
//! The number is 1-based; the result is Black's final disc difference (`B+n`, `W+n` or
//! `draw`, as the referee scored it, forfeits included); a finished
//! game ends with the disc counts, a forfeit with the loser, its colour and the fault. Both
//! files are appended a line at a time and flushed, so an interrupted match leaves at most one
//! line cut short ([`complete_lines`] drops it).

use anyhow::{bail, ensure, Context, Result};

use crate::board::Color;
use crate::score::Discs;

/// One line of `games.txt`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameLine {
    /// The game's number in the schedule, from 1.
    pub number: usize,
    /// The opening's name.
    pub opening: String,
    /// The name of the engine playing Black.
    pub black: String,
    /// The name of the engine playing White.
    pub white: String,
    /// Black's final disc difference, -64..=64.
    pub black_diff: Discs,
    /// How the game ended.
    pub end: GameEnd,
}

/// How a game of a match ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameEnd {
    /// Played to the end: the final disc counts.
    Played {
        /// Black's discs.
        black: u32,
        /// White's discs.
        white: u32,
    },
    /// Lost by an engine's fault.
    Forfeit {
        /// The name of the engine that forfeited.
        loser: String,
        /// Its colour.
        color: Color,
        /// The fault, as the referee words it.
        reason: String,
    },
}

impl GameLine {
    /// The line, without its line break.
    pub fn to_line(&self) -> String {
        let result = match self.black_diff.get().signum() {
            1 => format!("B+{}", self.black_diff),
            -1 => format!("W+{}", -self.black_diff),
            _ => "draw".to_string(),
        };
        let end = match &self.end {
            GameEnd::Played { black, white } => format!(" ({black}-{white})"),
            GameEnd::Forfeit {
                loser,
                color,
                reason,
            } => format!("  forfeit: {loser} ({color}): {reason}"),
        };
        format!(
            "game {:>3}  {}  black={} white={}  {result}{end}",
            self.number, self.opening, self.black, self.white
        )
    }

    /// Reads a line written by [`GameLine::to_line`]; an error quotes the line.
    pub fn parse(line: &str) -> Result<GameLine> {
        let words: Vec<&str> = line.split_whitespace().collect();
        ensure!(
            words.len() >= 6 && words[0] == "game",
            "not a game line: {line:?}"
        );
        let number: usize = words[1]
            .parse()
            .with_context(|| format!("no game number in {line:?}"))?;
        let (Some(black), Some(white)) = (
            words[3].strip_prefix("black="),
            words[4].strip_prefix("white="),
        ) else {
            bail!("no players in {line:?}");
        };
        let black_diff = Discs::new(match words[5] {
            "draw" => 0,
            result => {
                let (sign, value) = match result.split_at_checked(2) {
                    Some(("B+", value)) => (1, value),
                    Some(("W+", value)) => (-1, value),
                    _ => bail!("no result in {line:?}"),
                };
                let value: i32 = value
                    .parse()
                    .with_context(|| format!("no result in {line:?}"))?;
                ensure!((1..=64).contains(&value), "no result in {line:?}");
                sign * value
            }
        });
        let end = match line.split_once("  forfeit: ") {
            None => {
                let counts = words
                    .get(6)
                    .and_then(|word| word.strip_prefix('('))
                    .and_then(|word| word.strip_suffix(')'))
                    .and_then(|word| word.split_once('-'))
                    .and_then(|(black, white)| Some((black.parse().ok()?, white.parse().ok()?)));
                let Some((black, white)) = counts else {
                    bail!("no disc counts in {line:?}");
                };
                GameEnd::Played { black, white }
            }
            Some((_, forfeit)) => {
                let parsed = (|| {
                    let (loser, rest) = forfeit.split_once(" (")?;
                    let (color, reason) = rest.split_once("): ")?;
                    Some((loser, color.parse().ok()?, reason))
                })();
                let Some((loser, color, reason)) = parsed else {
                    bail!("no loser in {line:?}");
                };
                GameEnd::Forfeit {
                    loser: loser.to_string(),
                    color,
                    reason: reason.to_string(),
                }
            }
        };
        Ok(GameLine {
            number,
            opening: words[2].to_string(),
            black: black.to_string(),
            white: white.to_string(),
            black_diff,
            end,
        })
    }
}

/// The lines of a file that was appended a line at a time, without a last line that an
/// interruption cut short (one with no line break).
pub fn complete_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if !text.is_empty() && !text.ends_with('\n') {
        lines.pop();
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_as_written() {
        let played = GameLine {
            number: 3,
            opening: "f5d6c3d3c4f4f6f3".into(),
            black: "a".into(),
            white: "b".into(),
            black_diff: Discs::new(12),
            end: GameEnd::Played {
                black: 38,
                white: 26,
            },
        };
        let text = "game   3  f5d6c3d3c4f4f6f3  black=a white=b  B+12 (38-26)";
        assert_eq!(played.to_line(), text);
        assert_eq!(GameLine::parse(text).unwrap(), played);
        let forfeit = GameLine {
            number: 104,
            black_diff: Discs::new(-64),
            end: GameEnd::Forfeit {
                loser: "a".into(),
                color: Color::Black,
                reason: "illegal move: a1 (not legal)".into(),
            },
            ..played.clone()
        };
        let text = "game 104  f5d6c3d3c4f4f6f3  black=a white=b  W+64  forfeit: a (black): \
                    illegal move: a1 (not legal)";
        assert_eq!(forfeit.to_line(), text);
        assert_eq!(GameLine::parse(text).unwrap(), forfeit);
        let draw = GameLine {
            black_diff: Discs::ZERO,
            end: GameEnd::Played {
                black: 32,
                white: 32,
            },
            ..played
        };
        assert!(draw.to_line().ends_with("  draw (32-32)"));
        assert_eq!(GameLine::parse(&draw.to_line()).unwrap(), draw);
    }

    #[test]
    fn broken_lines_are_refused_and_cut_lines_dropped() {
        for bad in [
            "game 3  f5d6  black=a white=b",
            "match 3  f5d6  black=a white=b  B+12 (38-26)",
            "game x  f5d6  black=a white=b  B+12 (38-26)",
            "game 3  f5d6  a b  B+12 (38-26)",
            "game 3  f5d6  black=a white=b  B+65 (38-26)",
            "game 3  f5d6  black=a white=b  X+12 (38-26)",
            "game 3  f5d6  black=a white=b  B+12",
            "game 3  f5d6  black=a white=b  W+64  forfeit: a: no colour",
        ] {
            assert!(GameLine::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(complete_lines("one\ntwo\nthr"), ["one", "two"]);
        assert_eq!(complete_lines("one\ntwo\n"), ["one", "two"]);
        assert!(complete_lines("").is_empty());
    }
}
