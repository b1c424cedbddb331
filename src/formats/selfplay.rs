//! Self-play files, as `tsuru datagen` writes them (the games themselves are made in the
//! lab, `lab::training::selfplay`, which the engine does not use).
//!
//! Text, appended one game a line and flushed after each, so a stopped run loses at most the
//! game it was playing:
//!
//! ```text
//! # tsuru self-play v2 seed 1 depth 4 solve 18 random 8 30 weights 5f3a91c2
//! 0 12 18 -4 f5d6c3...
//! ```
//!
//! The header fixes the settings, and `weights` names the evaluation that played (the
//! checksum of its weights file, [`crate::eval::pattern::Weights::file_id`]); v1 headers,
//! written before that was recorded, lack it and still read. A shard of a run (`tsuru datagen
//! --shard K/N`) adds which part of which run it holds ([`RunShard`]):
//!
//! ```text
//! # tsuru self-play v2 seed 1 depth 4 solve 18 random 8 30 weights 5f3a91c2 shard 1/2 first 0 games 6
//! ```
//!
//! Merged, the shards of a run make the file of the whole run, whose header has no shard. Each line holds the game's
//! index, how many moves (passes included) were random, the empties at the solve point,
//! Black's exact result and the whole transcript (passes as `pa`). Lines may come in any
//! index order (shards of a run concatenated); blank lines and `#` lines after the header
//! are skipped.
//!
//! A v3 file (the same header fields as v2, `v3` for `v2`) adds to every line the players'
//! search scores, a field of `s` and one character for each move from the first after the
//! random opening to the last before the solve point (all of them when the game ended
//! first): the value its search gave the side to move, in whole discs clamped to
//! +-[`SCORE_LIMIT`], as the character `'O'` plus that value (`'!'` for -46, `'}'` for
//! +46), or `'~'` for a forced pass (no search):
//!
//! ```text
//! # tsuru self-play v3 seed 49 depth 12 solve 20 random 8 30 weights 191f50e4
//! 0 12 20 -4 f5d6c3... sQPPONM~N...
//! ```
//!
//! Those are depth-D values of positions the games went through, labels a fit can use beside
//! the games' results; v1 and v2 files do not have them.

use anyhow::{bail, ensure, Context, Result};

use super::Shard;
use crate::board::{notation, Board, Color, Move};
use crate::score::Discs;

/// The part of a run that a shard's file holds: of the run's games `first .. first + games`,
/// those whose index `i` has `i % N == K` for shard `K/N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunShard {
    /// Which part of the run.
    pub shard: Shard,
    /// The run's first game index.
    pub first: u64,
    /// How many games the whole run has.
    pub games: u64,
}

impl RunShard {
    /// The indices of this shard's games, in increasing order.
    pub fn indices(&self) -> impl Iterator<Item = u64> {
        let (start, end) = self.bounds();
        (start..end).step_by(self.shard.count as usize)
    }

    /// How many games the shard has: the length of [`RunShard::indices`].
    pub fn len(&self) -> u64 {
        let (start, end) = self.bounds();
        if start >= end {
            0
        } else {
            (end - start - 1) / self.shard.count + 1
        }
    }

    /// Whether the shard has no games (a run of fewer games than shards).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The shard's first index (its first game, if it has one) and the run's end.
    fn bounds(&self) -> (u64, u64) {
        let Shard { index, count } = self.shard;
        // The first index at or after `first` in the shard's residue class.
        let offset = (u128::from(index) + u128::from(count) - u128::from(self.first % count))
            % u128::from(count);
        (
            self.first.saturating_add(offset as u64),
            self.first.saturating_add(self.games),
        )
    }
}

/// How self-play games are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelfPlayConfig {
    /// Seed of every game's random generator (with the game's index).
    pub seed: u64,
    /// Midgame search depth of the players.
    pub depth: u32,
    /// Empty squares at which the exact solver takes over.
    pub solve_empties: u32,
    /// Fewest random opening moves.
    pub random_min: u32,
    /// Most random opening moves.
    pub random_max: u32,
    /// The checksum of the weights the players used; `None` in a v1 file (not recorded).
    pub weights: Option<u32>,
    /// The part of a run the file holds; `None` for a whole run (or a file of no set part,
    /// made with `--first-index`).
    pub shard: Option<RunShard>,
    /// Whether every game records its search scores (a v3 file; v1 and v2 do not).
    pub scores: bool,
}

impl SelfPlayConfig {
    /// The file header line for these settings (v3 with search scores, v2 without, or v1
    /// without a weights checksum; a shard and the scores are written only with a
    /// checksum, as [`SelfPlayConfig::check`] requires).
    pub fn header(&self) -> String {
        let settings = format!(
            "seed {} depth {} solve {} random {} {}",
            self.seed, self.depth, self.solve_empties, self.random_min, self.random_max
        );
        let shard = self.shard.map_or(String::new(), |run| {
            format!(
                " shard {} first {} games {}",
                run.shard, run.first, run.games
            )
        });
        let version = if self.scores { "v3" } else { "v2" };
        match self.weights {
            Some(id) => format!("# tsuru self-play {version} {settings} weights {id:08x}{shard}"),
            None => format!("# tsuru self-play v1 {settings}"),
        }
    }

    /// These settings without the shard: the header of the whole run a shard belongs to.
    pub fn whole_run(&self) -> SelfPlayConfig {
        SelfPlayConfig {
            shard: None,
            ..*self
        }
    }

    /// Reads a header line written by [`SelfPlayConfig::header`], v1, v2 or v3, with or
    /// without a shard.
    pub fn parse_header(line: &str) -> Result<SelfPlayConfig> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let shape = [
            "#",
            "tsuru",
            "self-play",
            "",
            "seed",
            "",
            "depth",
            "",
            "solve",
            "",
            "random",
        ];
        let version = words.get(3).copied().unwrap_or_default();
        let length = match version {
            "v1" => 13,
            "v2" | "v3" if words.len() == 21 => 21,
            "v2" | "v3" => 15,
            _ => usize::MAX,
        };
        ensure!(
            words.len() == length
                && (length != 21
                    || (words[15] == "shard" && words[17] == "first" && words[19] == "games"))
                && shape
                    .iter()
                    .zip(&words)
                    .all(|(want, got)| want.is_empty() || want == got)
                && (version == "v1" || words.get(13) == Some(&"weights")),
            "not a tsuru self-play v1, v2 or v3 header: {line:?}"
        );
        let number = |i: usize| -> Result<u64> {
            words[i]
                .parse()
                .with_context(|| format!("bad number {:?} in the header", words[i]))
        };
        let weights = match version {
            "v2" | "v3" => Some(
                u32::from_str_radix(words[14], 16)
                    .with_context(|| format!("bad weights checksum {:?}", words[14]))?,
            ),
            _ => None,
        };
        let shard = match length {
            21 => Some(RunShard {
                shard: Shard::parse(words[16])?,
                first: number(18)?,
                games: number(20)?,
            }),
            _ => None,
        };
        let config = SelfPlayConfig {
            seed: number(5)?,
            depth: number(7)? as u32,
            solve_empties: number(9)? as u32,
            random_min: number(11)? as u32,
            random_max: number(12)? as u32,
            weights,
            shard,
            scores: version == "v3",
        };
        config.check()?;
        Ok(config)
    }

    /// Rejects settings that cannot make games.
    pub fn check(&self) -> Result<()> {
        ensure!((1..=30).contains(&self.depth), "depth must be 1..30");
        ensure!(
            (1..=30).contains(&self.solve_empties),
            "solve empties must be 1..30"
        );
        ensure!(
            self.random_min <= self.random_max && self.random_max <= 40,
            "random moves: MIN <= MAX <= 40"
        );
        ensure!(
            self.shard.is_none() || self.weights.is_some(),
            "a shard must record the weights that play it"
        );
        ensure!(
            !self.scores || self.weights.is_some(),
            "a file of search scores must record the weights that made them"
        );
        Ok(())
    }
}

/// One self-play game as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfPlayGame {
    /// The game's index in its run.
    pub index: u64,
    /// Leading moves (passes included) that were random.
    pub random_moves: u32,
    /// Empties when the solver took over (0 if the game ended before).
    pub solve_empties: u32,
    /// Black's final disc difference, exact from the solve point on.
    pub black_result: Discs,
    /// Every move from the start, passes included.
    pub moves: Vec<Move>,
    /// The players' search scores (v3): for each searched move (from the first after the
    /// random opening to the last before the solve point), the value its search gave the
    /// side to move, in whole discs within +-[`SCORE_LIMIT`], or `None` for a forced pass.
    /// `None` as a whole where the file does not store them (v1, v2).
    pub scores: Option<Vec<Option<i8>>>,
}

/// The largest search score a v3 line stores, in discs: larger ones are stored as this
/// (one printable character a move; a midgame search rarely goes beyond it).
pub const SCORE_LIMIT: i32 = 46;

/// The character of a score of 0 (the others are this plus the score).
const SCORE_ZERO: u8 = b'O';

/// The character of a forced pass among the scores.
const SCORE_PASS: u8 = b'~';

/// A search score (in discs, any value) as a stored score: rounded and clamped.
pub fn stored_score(discs: f64) -> i8 {
    discs
        .round()
        .clamp(-(SCORE_LIMIT as f64), SCORE_LIMIT as f64) as i8
}

/// Whether the move at `ply`, played with `empties` empty squares, was one the players
/// searched (a v3 line stores a score for each): after the `random_moves` random opening
/// moves, while more than `solve_empties` squares were empty (all of them in a game that
/// ended before its solve point, stored with `solve_empties` 0).
pub fn is_searched(ply: usize, empties: u32, random_moves: u32, solve_empties: u32) -> bool {
    ply >= random_moves as usize && (solve_empties == 0 || empties > solve_empties)
}

impl SelfPlayGame {
    /// The stored line.
    pub fn to_line(&self) -> String {
        let moves: String = self.moves.iter().map(|m| format!("{m:#}")).collect();
        let mut line = format!(
            "{} {} {} {} {moves}",
            self.index, self.random_moves, self.solve_empties, self.black_result
        );
        if let Some(scores) = &self.scores {
            line.push_str(" s");
            line.extend(scores.iter().map(|score| match score {
                Some(discs) => (SCORE_ZERO as i32 + *discs as i32) as u8 as char,
                None => SCORE_PASS as char,
            }));
        }
        line
    }

    /// Reads a stored line, replaying it to check that the moves are legal, the game is
    /// over and the result is its final score; a v3 line's scores must be one a searched
    /// move, a pass exactly where the move was one.
    pub fn parse_line(line: &str) -> Result<SelfPlayGame> {
        let words: Vec<&str> = line.split_whitespace().collect();
        ensure!(
            words.len() == 5 || words.len() == 6,
            "expected 5 fields (6 with scores): {line:?}"
        );
        let number = |i: usize| -> Result<i64> {
            words[i]
                .parse()
                .with_context(|| format!("bad number {:?}", words[i]))
        };
        let moves = notation::parse_transcript(words[4])?;
        let random_moves = number(1)? as usize;
        let solve_empties = number(2)? as u32;
        let mut searched = 0;
        let mut board = Board::start();
        for (ply, &mv) in moves.iter().enumerate() {
            searched += usize::from(is_searched(
                ply,
                board.empties(),
                random_moves as u32,
                solve_empties,
            ));
            board.play(mv)?;
        }
        ensure!(board.is_game_over(), "the game is not over: {line:?}");
        let game = SelfPlayGame {
            index: number(0)? as u64,
            random_moves: random_moves as u32,
            solve_empties,
            black_result: Discs::new(number(3)? as i32),
            moves,
            scores: None,
        };
        ensure!(
            game.black_result == board.final_score(Color::Black),
            "the recorded result {} is not the final score {}",
            game.black_result,
            board.final_score(Color::Black)
        );
        ensure!(
            game.random_moves as usize <= game.moves.len(),
            "more random moves than moves"
        );
        let scores = match words.get(5) {
            Some(field) => Some(game.parse_scores(field, searched)?),
            None => None,
        };
        Ok(SelfPlayGame { scores, ..game })
    }

    /// The scores by ply (the position before each move; `None` where the move was not
    /// searched or was a pass), empty when the game records none (v1, v2). The searched
    /// moves are the first ones after the random opening, so the scores start there.
    pub fn scores_by_ply(&self) -> Vec<Option<i8>> {
        let Some(scores) = &self.scores else {
            return Vec::new();
        };
        let mut by_ply = vec![None; self.moves.len()];
        let first = self.random_moves as usize;
        for (slot, &score) in by_ply[first..].iter_mut().zip(scores) {
            *slot = score;
        }
        by_ply
    }

    /// The scores field of a v3 line (`s` and a character a searched move) for this game,
    /// whose first `searched` moves after the random opening were searched.
    fn parse_scores(&self, field: &str, searched: usize) -> Result<Vec<Option<i8>>> {
        let chars = field
            .strip_prefix('s')
            .with_context(|| format!("the scores field does not start with s: {field:?}"))?;
        ensure!(
            chars.len() == searched,
            "{} scores for {searched} searched moves",
            chars.len()
        );
        let first = self.random_moves as usize;
        chars
            .bytes()
            .zip(&self.moves[first..first + searched])
            .map(|(c, mv)| match (c, mv) {
                (SCORE_PASS, Move::Pass) => Ok(None),
                (c, Move::Play(_)) if (c as i32 - SCORE_ZERO as i32).abs() <= SCORE_LIMIT => {
                    Ok(Some((c as i32 - SCORE_ZERO as i32) as i8))
                }
                _ => bail!("score {:?} does not fit the move {mv}", c as char),
            })
            .collect()
    }
}

/// Reads a self-play file: its settings and its games, in file order.
pub fn read_file(text: &str) -> Result<(SelfPlayConfig, Vec<SelfPlayGame>)> {
    let mut lines = text.lines().enumerate();
    let Some((_, header)) = lines.next() else {
        bail!("the self-play file is empty");
    };
    let config = SelfPlayConfig::parse_header(header)?;
    let mut games = Vec::new();
    for (number, line) in lines {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let game =
            SelfPlayGame::parse_line(line).with_context(|| format!("line {}", number + 1))?;
        ensure!(
            game.scores.is_some() == config.scores,
            "line {}: {} in a {} file",
            number + 1,
            if config.scores {
                "no search scores"
            } else {
                "search scores"
            },
            if config.scores { "v3" } else { "v1 or v2" }
        );
        games.push(game);
    }
    Ok((config, games))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A small self-play configuration for tests (also the lab's self-play tests).
    pub(crate) fn config() -> SelfPlayConfig {
        SelfPlayConfig {
            seed: 7,
            depth: 2,
            solve_empties: 12,
            random_min: 8,
            random_max: 20,
            weights: Some(0x5f3a_91c2),
            shard: None,
            scores: true,
        }
    }

    #[test]
    fn bad_headers_and_lines_are_refused() {
        assert_eq!(
            SelfPlayConfig::parse_header(&config().header()).unwrap(),
            config()
        );
        assert_eq!(
            config().header(),
            "# tsuru self-play v3 seed 7 depth 2 solve 12 random 8 20 weights 5f3a91c2"
        );
        // A v2 header (before the scores were stored) still reads, without them.
        let v2 = SelfPlayConfig {
            scores: false,
            ..config()
        };
        assert_eq!(
            v2.header(),
            "# tsuru self-play v2 seed 7 depth 2 solve 12 random 8 20 weights 5f3a91c2"
        );
        assert_eq!(SelfPlayConfig::parse_header(&v2.header()).unwrap(), v2);
        // A v1 header (before the weights were recorded) still reads, without them.
        let v1 = SelfPlayConfig::parse_header(
            "# tsuru self-play v1 seed 7 depth 2 solve 12 random 8 20",
        )
        .unwrap();
        assert_eq!(
            v1,
            SelfPlayConfig {
                weights: None,
                scores: false,
                ..config()
            }
        );
        assert_eq!(SelfPlayConfig::parse_header(&v1.header()).unwrap(), v1);
        // A shard's header names its part of the run; without it, the run's header.
        let sharded = SelfPlayConfig {
            shard: Some(RunShard {
                shard: Shard::parse("1/3").unwrap(),
                first: 10,
                games: 8,
            }),
            ..config()
        };
        assert_eq!(
            sharded.header(),
            "# tsuru self-play v3 seed 7 depth 2 solve 12 random 8 20 weights 5f3a91c2 \
             shard 1/3 first 10 games 8"
        );
        assert_eq!(
            SelfPlayConfig::parse_header(&sharded.header()).unwrap(),
            sharded
        );
        assert_eq!(sharded.whole_run(), config());
        for bad in [
            "# tsuru self-play v2 seed 7 depth 2 solve 12 random 8 20",
            "# tsuru self-play v1 seed 7 depth 2 solve 12 random 8 20 weights 5f3a91c2",
            "# tsuru self-play v2 seed 7 depth 2 solve 12 random 8 20 weight 5f3a91c2",
            "# tsuru self-play v2 seed 7 depth 2 solve 12 random 8 20 weights xyz",
            "# tsuru self-play v4 seed 7 depth 2 solve 12 random 8 20 weights 5f3a91c2",
            "# tsuru self-play v3 seed 7 depth 2 solve 12 random 8 20",
            "# tsuru self-play v1 seed 7 depth 2 solve 12 random 20 8",
            "# tsuru self-play v1 seed x depth 2 solve 12 random 8 20",
            "# tsuru self-play v2 seed 7 depth 2 solve 12 random 8 20 weights 5f3a91c2 shard 3/3 first 0 games 6",
            "# tsuru self-play v2 seed 7 depth 2 solve 12 random 8 20 weights 5f3a91c2 shard 1/3 first 0 game 6",
            "# tsuru self-play v2 seed 7 depth 2 solve 12 random 8 20 weights 5f3a91c2 shard 1/3 first 0",
            "",
        ] {
            assert!(SelfPlayConfig::parse_header(bad).is_err(), "{bad:?}");
        }
        // Shard K/N of a run holds the run's indices i with i % N == K.
        let indices = |shard: &str, first, games| -> Vec<u64> {
            let run = RunShard {
                shard: Shard::parse(shard).unwrap(),
                first,
                games,
            };
            let indices: Vec<u64> = run.indices().collect();
            assert_eq!(run.len(), indices.len() as u64);
            indices
        };
        assert_eq!(indices("1/3", 10, 8), [10, 13, 16]);
        assert_eq!(indices("0/3", 10, 8), [12, 15]);
        assert_eq!(indices("2/3", 10, 8), [11, 14, 17]);
        assert_eq!(indices("0/1", 4, 3), [4, 5, 6]);
        assert_eq!(indices("1/2", 0, 1), [] as [u64; 0]);
        assert_eq!(indices("3/4", 5, 2), [] as [u64; 0]);
        assert_eq!(indices("2/4", 5, 2), [6]);
        // An unfinished game, an illegal move, a missing field.
        for bad in ["0 0 0 0 f5d6", "0 0 0 0 a1", "0 0 0 f5d6"] {
            assert!(SelfPlayGame::parse_line(bad).is_err(), "{bad:?}");
        }
    }
}
