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
//!
//! A v4 file (`v4` in the header, the same fields as v3) holds what a v3 file does in about
//! 0.6 of the bytes once compressed (issue 53: the repository's size budget). Its
//! lines have the same five numbers and fields, but:
//!
//! - the moves are one character each (`0-9`, `A-Z`, `a-z`: 0 to 61): the move's rank among
//!   the side to move's legal squares ordered by how many replies the opponent has after it,
//!   fewest first, then by square ([`ranked_moves`]); passes are not written, since they
//!   follow from the position. Strong players mostly pick among the first few, which is what
//!   the compressor feeds on.
//! - the scores field (`s` and a character a searched move that is not a pass) stores each
//!   score as its difference from the one predicted by the last stored score (that score
//!   negated an odd number of plies later, itself an even number; 0 for the first), the
//!   character `'O'` plus the difference when it is within +-[`DELTA_LIMIT`], otherwise
//!   [`SCORE_ESCAPE`] followed by the score itself as v3 writes it.
//!
//! ```text
//! # tsuru self-play v4 seed 50 depth 12 solve 20 random 8 30 weights c1d7ae0d
//! 0 21 20 8 003301441021149006561305317701417605551100111412122321000100 sGKLMLKMLIKLMKKKJLMN
//! ```
//!
//! Each form has exactly one encoding of a game, so a file's bytes follow from its games.

use anyhow::{bail, ensure, Context, Result};

use super::Shard;
use crate::board::{bits, notation, Board, Color, Move, Square};
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
    /// Whether every game records its search scores (a v3 or v4 file; v1 and v2 do not).
    pub scores: bool,
    /// Whether the lines are in the compact form of a v4 file (which records the scores).
    pub compact: bool,
}

impl SelfPlayConfig {
    /// The file header line for these settings (v4 compact, v3 with search scores, v2
    /// without, or v1 without a weights checksum; a shard and the scores are written only
    /// with a checksum, as [`SelfPlayConfig::check`] requires).
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
        let version = self.version();
        match self.weights {
            Some(id) => format!("# tsuru self-play {version} {settings} weights {id:08x}{shard}"),
            None => format!("# tsuru self-play {version} {settings}"),
        }
    }

    /// The file's version as its header names it: `v1` without a weights checksum, else `v4`
    /// compact, `v3` with search scores, `v2` without.
    pub fn version(&self) -> &'static str {
        match (self.weights, self.compact, self.scores) {
            (None, ..) => "v1",
            (_, true, _) => "v4",
            (_, false, true) => "v3",
            (_, false, false) => "v2",
        }
    }

    /// These settings without the shard: the header of the whole run a shard belongs to.
    pub fn whole_run(&self) -> SelfPlayConfig {
        SelfPlayConfig {
            shard: None,
            ..*self
        }
    }

    /// Reads a header line written by [`SelfPlayConfig::header`], v1 to v4, with or without
    /// a shard.
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
            "v2" | "v3" | "v4" if words.len() == 21 => 21,
            "v2" | "v3" | "v4" => 15,
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
            "not a tsuru self-play v1, v2, v3 or v4 header: {line:?}"
        );
        let number = |i: usize| -> Result<u64> {
            words[i]
                .parse()
                .with_context(|| format!("bad number {:?} in the header", words[i]))
        };
        let weights = match version {
            "v2" | "v3" | "v4" => Some(
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
            scores: version == "v3" || version == "v4",
            compact: version == "v4",
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
        ensure!(
            !self.compact || self.scores,
            "a compact (v4) file records the search scores"
        );
        Ok(())
    }

    /// A game's line in this file's form (compact in a v4 file). The game must record its
    /// scores exactly when the file does.
    pub fn line(&self, game: &SelfPlayGame) -> String {
        if self.compact {
            game.to_compact_line()
        } else {
            game.to_line()
        }
    }

    /// Reads a game's line in this file's form, with the checks of
    /// [`SelfPlayGame::parse_line`]; a line with scores in a file without them, or the
    /// reverse, is refused.
    pub fn parse_line(&self, line: &str) -> Result<SelfPlayGame> {
        let game = if self.compact {
            SelfPlayGame::parse_compact_line(line)?
        } else {
            SelfPlayGame::parse_line(line)?
        };
        ensure!(
            game.scores.is_some() == self.scores,
            "{} in a {} file",
            if self.scores {
                "no search scores"
            } else {
                "search scores"
            },
            self.version()
        );
        Ok(game)
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
    /// The stored line of a v1, v2 or v3 file.
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

    /// The stored line of a v4 file (see the module doc). The game must be one as played
    /// or read (legal moves, a pass exactly where the side to move had no move) and record
    /// its scores.
    pub fn to_compact_line(&self) -> String {
        let mut board = Board::start();
        let mut moves = String::with_capacity(self.moves.len());
        for &mv in &self.moves {
            if let Move::Play(square) = mv {
                let (ranked, n) = ranked_moves(&board);
                let rank = ranked[..n]
                    .iter()
                    .position(|&key| usize::from(key & 63) == square.index())
                    .expect("a stored game's moves are legal");
                moves.push(MOVE_DIGITS[rank] as char);
            }
            board.play(mv).expect("a stored game's moves are legal");
        }
        let mut line = format!(
            "{} {} {} {} {moves} s",
            self.index, self.random_moves, self.solve_empties, self.black_result
        );
        let first = self.random_moves as usize;
        let mut last = None;
        for (ply, score) in self.scores.iter().flatten().enumerate() {
            // A pass has no score to store: the position says where one was forced.
            let Some(score) = score.map(i32::from) else {
                continue;
            };
            let difference = score - predicted_score(last, first + ply);
            if difference.abs() <= DELTA_LIMIT {
                line.push((SCORE_ZERO as i32 + difference) as u8 as char);
            } else {
                line.push(SCORE_ESCAPE as char);
                line.push((SCORE_ZERO as i32 + score) as u8 as char);
            }
            last = Some((first + ply, score));
        }
        line
    }

    /// Reads a stored line of a v1, v2 or v3 file, replaying it to check that the moves are
    /// legal, the game is over and the result is its final score; a v3 line's scores must be
    /// one a searched move, a pass exactly where the move was one.
    pub fn parse_line(line: &str) -> Result<SelfPlayGame> {
        let words: Vec<&str> = line.split_whitespace().collect();
        ensure!(
            words.len() == 5 || words.len() == 6,
            "expected 5 fields (6 with scores): {line:?}"
        );
        let (game, searched) = Self::checked(&words, notation::parse_transcript(words[4])?, line)?;
        let scores = match words.get(5) {
            Some(field) => Some(game.parse_scores(field, searched)?),
            None => None,
        };
        Ok(SelfPlayGame { scores, ..game })
    }

    /// Reads a stored line of a v4 file (see the module doc), with the checks of
    /// [`SelfPlayGame::parse_line`]; every character must be one the form can hold where it
    /// stands.
    pub fn parse_compact_line(line: &str) -> Result<SelfPlayGame> {
        let words: Vec<&str> = line.split_whitespace().collect();
        ensure!(words.len() == 6, "expected 6 fields: {line:?}");
        let (game, searched) = Self::checked(&words, decode_moves(words[4])?, line)?;
        let scores = game.parse_compact_scores(words[5], searched)?;
        Ok(SelfPlayGame {
            scores: Some(scores),
            ..game
        })
    }

    /// The game of a line's first five fields (`words`) with its `moves` decoded, checked by
    /// replaying them, without scores yet; and how many moves the players searched (a run
    /// from the first after the random opening, see [`is_searched`]), whose scores a v3 or v4
    /// line stores.
    fn checked(words: &[&str], moves: Vec<Move>, line: &str) -> Result<(SelfPlayGame, usize)> {
        let number = |i: usize| -> Result<i64> {
            words[i]
                .parse()
                .with_context(|| format!("bad number {:?}", words[i]))
        };
        let (random_moves, solve_empties) = (number(1)? as u32, number(2)? as u32);
        let mut board = Board::start();
        let mut searched = 0;
        for (ply, &mv) in moves.iter().enumerate() {
            let empties = board.empties();
            searched += usize::from(is_searched(ply, empties, random_moves, solve_empties));
            board.play(mv)?;
        }
        ensure!(board.is_game_over(), "the game is not over: {line:?}");
        let game = SelfPlayGame {
            index: number(0)? as u64,
            random_moves,
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
        Ok((game, searched))
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

    /// The moves the players searched, the first `searched` after the random opening.
    fn searched_moves(&self, searched: usize) -> &[Move] {
        let first = self.random_moves as usize;
        &self.moves[first..first + searched]
    }

    /// The scores field of a v3 line (`s` and a character a searched move) for this game,
    /// whose first `searched` moves after the random opening were searched.
    fn parse_scores(&self, field: &str, searched: usize) -> Result<Vec<Option<i8>>> {
        let chars = field
            .strip_prefix('s')
            .with_context(|| format!("the scores field does not start with s: {field:?}"))?;
        let searched = self.searched_moves(searched);
        ensure!(
            chars.len() == searched.len(),
            "{} scores for {} searched moves",
            chars.len(),
            searched.len()
        );
        chars
            .bytes()
            .zip(searched)
            .map(|(c, mv)| match (c, mv) {
                (SCORE_PASS, Move::Pass) => Ok(None),
                (c, Move::Play(_)) if (c as i32 - SCORE_ZERO as i32).abs() <= SCORE_LIMIT => {
                    Ok(Some((c as i32 - SCORE_ZERO as i32) as i8))
                }
                _ => bail!("score {:?} does not fit the move {mv}", c as char),
            })
            .collect()
    }

    /// The scores field of a v4 line (see the module doc) for this game, whose first
    /// `searched` moves after the random opening were searched.
    fn parse_compact_scores(&self, field: &str, searched: usize) -> Result<Vec<Option<i8>>> {
        let mut chars = field
            .strip_prefix('s')
            .with_context(|| format!("the scores field does not start with s: {field:?}"))?
            .bytes();
        let first = self.random_moves as usize;
        let mut last = None;
        let mut scores = Vec::new();
        for (ply, mv) in self.searched_moves(searched).iter().enumerate() {
            let ply = first + ply;
            if *mv == Move::Pass {
                scores.push(None);
                continue;
            }
            let c = chars
                .next()
                .with_context(|| format!("too few scores in {field:?}"))?;
            let score = if c == SCORE_ESCAPE {
                let c = chars
                    .next()
                    .with_context(|| format!("a score missing after the escape in {field:?}"))?;
                let score = c as i32 - SCORE_ZERO as i32;
                ensure!(
                    score.abs() <= SCORE_LIMIT
                        && (score - predicted_score(last, ply)).abs() > DELTA_LIMIT,
                    "score {:?} after the escape is not one the form escapes",
                    c as char
                );
                score
            } else {
                let difference = c as i32 - SCORE_ZERO as i32;
                let score = predicted_score(last, ply) + difference;
                ensure!(
                    difference.abs() <= DELTA_LIMIT && score.abs() <= SCORE_LIMIT,
                    "score character {:?} out of range",
                    c as char
                );
                score
            };
            scores.push(Some(score as i8));
            last = Some((ply, score));
        }
        ensure!(
            chars.next().is_none(),
            "more scores than searched moves in {field:?}"
        );
        Ok(scores)
    }
}

/// The characters of a v4 line's moves, by rank ([`ranked_moves`]): no position has more
/// legal moves than the 60 empty squares of the start.
const MOVE_DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// The largest difference from the predicted score that a v4 line stores in one character.
pub const DELTA_LIMIT: i32 = 44;

/// The v4 character that puts a score itself (as v3 stores it) in place of its difference.
pub const SCORE_ESCAPE: u8 = b'|';

/// The side to move's legal squares of `board` in the order whose rank a v4 line stores:
/// fewest replies for the opponent first, then by square; each as `replies << 6 | square`,
/// the first `n` entries of the array.
fn ranked_moves(board: &Board) -> ([u16; 64], usize) {
    let view = board.view();
    let mut ranked = [0u16; 64];
    let mut n = 0;
    for square in bits::squares(view.mobility()) {
        let sq = square.index();
        let replies = view.play(sq, view.flips(sq)).mobility().count_ones() as u16;
        ranked[n] = replies << 6 | sq as u16;
        n += 1;
    }
    ranked[..n].sort_unstable();
    (ranked, n)
}

/// The moves of a v4 line's moves field, passes put back where the side to move has no move.
/// Each character must be a rank the position has, and a pass is refused once the game is
/// over (moves after its end).
fn decode_moves(field: &str) -> Result<Vec<Move>> {
    let mut board = Board::start();
    let mut moves = Vec::with_capacity(field.len() + 2);
    for (i, c) in field.bytes().enumerate() {
        if !board.has_legal_move() {
            ensure!(
                board.opponent_has_legal_move(),
                "move {} ({:?}) after the game's end",
                i + 1,
                c as char
            );
            board.make_pass();
            moves.push(Move::Pass);
        }
        let rank = MOVE_DIGITS
            .iter()
            .position(|&digit| digit == c)
            .with_context(|| format!("move {}: {:?} is not a move character", i + 1, c as char))?;
        let (ranked, n) = ranked_moves(&board);
        ensure!(
            rank < n,
            "move {}: illegal move (rank {rank} of {n} legal moves)",
            i + 1
        );
        let square = Square::ALL[usize::from(ranked[rank] & 63)];
        let flipped = board.flips(square);
        board.apply_flips(square, flipped);
        moves.push(Move::Play(square));
    }
    Ok(moves)
}

/// The score a v4 line predicts at `ply` from the last one stored (`(ply, score)`): the same
/// side's value is unchanged, the other side's negated; 0 before the first.
fn predicted_score(last: Option<(usize, i32)>, ply: usize) -> i32 {
    match last {
        None => 0,
        Some((at, score)) if (ply - at) % 2 == 1 => -score,
        Some((_, score)) => score,
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
        let game = config
            .parse_line(line)
            .with_context(|| format!("line {}", number + 1))?;
        games.push(game);
    }
    Ok((config, games))
}

/// A small self-play configuration for tests (this module's and the lab's self-play tests).
#[cfg(any(test, feature = "testkit"))]
pub fn test_config() -> SelfPlayConfig {
    SelfPlayConfig {
        seed: 7,
        depth: 2,
        solve_empties: 12,
        random_min: 8,
        random_max: 20,
        weights: Some(0x5f3a_91c2),
        shard: None,
        scores: true,
        compact: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> SelfPlayConfig {
        test_config()
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
        // A v4 header: the v3 content in the compact form.
        let v4 = SelfPlayConfig {
            compact: true,
            ..config()
        };
        assert_eq!(
            v4.header(),
            "# tsuru self-play v4 seed 7 depth 2 solve 12 random 8 20 weights 5f3a91c2"
        );
        assert_eq!(SelfPlayConfig::parse_header(&v4.header()).unwrap(), v4);
        assert!(SelfPlayConfig {
            scores: false,
            ..v4
        }
        .check()
        .is_err());
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
                compact: false,
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
            "# tsuru self-play v5 seed 7 depth 2 solve 12 random 8 20 weights 5f3a91c2",
            "# tsuru self-play v3 seed 7 depth 2 solve 12 random 8 20",
            "# tsuru self-play v4 seed 7 depth 2 solve 12 random 8 20",
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

    /// A whole game played by a fixed rule (the first legal square in square order, every
    /// ply; it passes on the way), with made-up scores for its moves after the eighth that
    /// take every case of the compact form.
    fn sample_game() -> SelfPlayGame {
        let mut board = Board::start();
        let mut moves = Vec::new();
        while !board.is_game_over() {
            let mv = match bits::squares(board.legal_moves()).next() {
                Some(square) => Move::Play(square),
                None => Move::Pass,
            };
            board.play(mv).unwrap();
            moves.push(mv);
        }
        let random_moves = 8;
        let mut game = SelfPlayGame {
            index: 3,
            random_moves,
            solve_empties: 0,
            black_result: board.final_score(Color::Black),
            moves,
            scores: None,
        };
        // Scores that need every case of the compact form: small steps, a jump past
        // DELTA_LIMIT, the limits themselves.
        let searched = game.moves.len() - random_moves as usize;
        let scores = game.moves[random_moves as usize..]
            .iter()
            .enumerate()
            .map(|(i, mv)| {
                (*mv != Move::Pass).then_some(match i % 7 {
                    0 => 46,
                    1 => -46,
                    2 => 45,
                    3 => 3,
                    4 => -2,
                    5 => -40,
                    _ => 7,
                })
            })
            .collect::<Vec<_>>();
        assert_eq!(scores.len(), searched);
        game.scores = Some(scores);
        game
    }

    #[test]
    fn compact_lines_read_back_to_the_same_game() {
        let game = sample_game();
        assert!(game.moves.contains(&Move::Pass), "the sample has a pass");
        let line = game.to_compact_line();
        assert_eq!(SelfPlayGame::parse_compact_line(&line).unwrap(), game);
        let v4 = SelfPlayConfig {
            compact: true,
            ..config()
        };
        assert_eq!(v4.line(&game), line);
        assert_eq!(v4.parse_line(&line).unwrap(), game);
        // The same game in v3 reads back too, and the two forms are not mixed up.
        assert_eq!(config().parse_line(&config().line(&game)).unwrap(), game);
        assert!(config().parse_line(&line).is_err());
        assert!(v4.parse_line(&game.to_line()).is_err());
        // One character a move that is not a pass, and one a score of a move.
        let words: Vec<&str> = line.split(' ').collect();
        let plays = game.moves.iter().filter(|&&mv| mv != Move::Pass).count();
        assert_eq!(words[4].len(), plays);
        let escapes = words[5].matches(SCORE_ESCAPE as char).count();
        let scored = game.scores.iter().flatten().flatten().count();
        assert_eq!(words[5].len() - 1 - escapes, scored);
        assert!(escapes > 0, "the sample's scores jump beyond DELTA_LIMIT");
        // The first move of the start: four legal squares with 3 replies each, so d3 (19),
        // the lowest square, ranks 0.
        assert_eq!(game.moves[0], Move::Play(Square::ALL[19]));
        assert!(words[4].starts_with('0'));
    }

    #[test]
    fn damaged_compact_lines_are_refused() {
        let line = sample_game().to_compact_line();
        let words: Vec<String> = line.split(' ').map(String::from).collect();
        let with = |field: usize, text: &str| {
            let mut words = words.clone();
            words[field] = text.to_string();
            words.join(" ")
        };
        let moves = &words[4];
        let scores = &words[5];
        let bad = [
            // A move character beyond the legal moves (the start has four).
            (with(4, &format!("9{}", &moves[1..])), "illegal move"),
            // Not a move character at all.
            (
                with(4, &format!("-{}", &moves[1..])),
                "not a move character",
            ),
            // A move after the end.
            (with(4, &format!("{moves}0")), "after the game's end"),
            // A move missing: the game is not over.
            (with(4, &moves[..moves.len() - 1]), "not over"),
            // Another result.
            (with(3, "0"), "final score"),
            // A score too many, one too few, out of range.
            (with(5, &format!("{scores}O")), "more scores"),
            (with(5, &scores[..scores.len() - 1]), "too few"),
            (with(5, &format!("s~{}", &scores[2..])), "out of range"),
            // An escape where the difference fits one character.
            (with(5, &format!("s|O{}", &scores[2..])), "escape"),
            // A missing field.
            (words[..5].join(" "), "6 fields"),
        ];
        for (damaged, reason) in bad {
            let error = format!(
                "{:#}",
                SelfPlayGame::parse_compact_line(&damaged).unwrap_err()
            );
            assert!(error.contains(reason), "{damaged:?}: {error}");
        }
    }
}
