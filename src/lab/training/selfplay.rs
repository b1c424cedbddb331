//! Self-play games for training (`tsuru datagen`), stored compactly and generated so that a
//! long run can stop at any point and continue.
//!
//! A game starts with a few uniformly random moves (their count is drawn between two bounds),
//! continues with the current evaluation searching a few plies deep until a given number of
//! empty squares is left, and is finished by the exact solver along its principal variation.
//! Every position from the solve point to the end therefore lies on a perfect-play line and
//! has the same exact value for Black, the recorded result. The random opening is excluded
//! from training ([`SelfPlayGame::to_game`]).
//!
//! # File format
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
//! written before that was recorded, lack it and still read. Each line holds the game's index, how many moves (passes
//! included) were random, the empties at the solve point, Black's exact result and the whole
//! transcript (passes as `pa`). Game `i` depends only on the settings and `i` (its random
//! generator is seeded from both), so a resumed run, or shards of indices run elsewhere and
//! concatenated, give exactly the games of one uninterrupted run.

use std::sync::atomic::AtomicBool;

use anyhow::{bail, ensure, Context, Result};

use super::games::Game;
use crate::board::{notation, Board, Color, Move};
use crate::rng::Rng;
use crate::search::endgame::{EndgameSolver, SolveMode};
use crate::search::{Search, SearchLimits};

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
}

impl SelfPlayConfig {
    /// The file header line for these settings (v2, or v1 without a weights checksum).
    pub fn header(&self) -> String {
        let settings = format!(
            "seed {} depth {} solve {} random {} {}",
            self.seed, self.depth, self.solve_empties, self.random_min, self.random_max
        );
        match self.weights {
            Some(id) => format!("# tsuru self-play v2 {settings} weights {id:08x}"),
            None => format!("# tsuru self-play v1 {settings}"),
        }
    }

    /// Reads a header line written by [`SelfPlayConfig::header`], v1 or v2.
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
            "v2" => 15,
            _ => usize::MAX,
        };
        ensure!(
            words.len() == length
                && shape
                    .iter()
                    .zip(&words)
                    .all(|(want, got)| want.is_empty() || want == got)
                && (version == "v1" || words.get(13) == Some(&"weights")),
            "not a tsuru self-play v1 or v2 header: {line:?}"
        );
        let number = |i: usize| -> Result<u64> {
            words[i]
                .parse()
                .with_context(|| format!("bad number {:?} in the header", words[i]))
        };
        let weights = match version {
            "v2" => Some(
                u32::from_str_radix(words[14], 16)
                    .with_context(|| format!("bad weights checksum {:?}", words[14]))?,
            ),
            _ => None,
        };
        let config = SelfPlayConfig {
            seed: number(5)?,
            depth: number(7)? as u32,
            solve_empties: number(9)? as u32,
            random_min: number(11)? as u32,
            random_max: number(12)? as u32,
            weights,
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
    pub black_result: i32,
    /// Every move from the start, passes included.
    pub moves: Vec<Move>,
}

impl SelfPlayGame {
    /// The stored line.
    pub fn to_line(&self) -> String {
        let moves: String = self.moves.iter().map(|m| format!("{m:#}")).collect();
        format!(
            "{} {} {} {} {moves}",
            self.index, self.random_moves, self.solve_empties, self.black_result
        )
    }

    /// Reads a stored line, replaying it to check that the moves are legal, the game is
    /// over and the result is its final score.
    pub fn parse_line(line: &str) -> Result<SelfPlayGame> {
        let words: Vec<&str> = line.split_whitespace().collect();
        ensure!(words.len() == 5, "expected 5 fields: {line:?}");
        let number = |i: usize| -> Result<i64> {
            words[i]
                .parse()
                .with_context(|| format!("bad number {:?}", words[i]))
        };
        let moves = notation::parse_transcript(words[4])?;
        let mut board = Board::start();
        for &mv in &moves {
            board.play(mv)?;
        }
        ensure!(board.is_game_over(), "the game is not over: {line:?}");
        let game = SelfPlayGame {
            index: number(0)? as u64,
            random_moves: number(1)? as u32,
            solve_empties: number(2)? as u32,
            black_result: number(3)? as i32,
            moves,
        };
        ensure!(
            game.black_result == board.final_score(Color::Black).0,
            "the recorded result {} is not the final score {}",
            game.black_result,
            board.final_score(Color::Black)
        );
        ensure!(
            game.random_moves as usize <= game.moves.len(),
            "more random moves than moves"
        );
        Ok(game)
    }

    /// The game for training: the random opening is excluded, and the result is the exact
    /// value of every position from the solve point on.
    pub fn to_game(&self) -> Game {
        Game {
            moves: self.moves.clone(),
            black_diff: self.black_result.clamp(-64, 64) as i8,
            theoretical: (self.solve_empties > 0).then_some((
                self.solve_empties as u8,
                self.black_result.clamp(-64, 64) as i8,
            )),
            first_sample: self.random_moves as usize,
        }
    }
}

/// Plays game `index` of a run with `config`, using `search` for the players' moves and
/// `solver` for the end.
pub fn play_game(
    config: &SelfPlayConfig,
    index: u64,
    search: &mut Search,
    solver: &mut EndgameSolver,
) -> Result<SelfPlayGame> {
    let mut rng = Rng::new(config.seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut board = Board::start();
    let random =
        config.random_min as u64 + rng.below((config.random_max - config.random_min) as u64 + 1);
    let mut moves = Vec::new();
    let play = |board: &mut Board, moves: &mut Vec<Move>, mv: Move| -> Result<()> {
        board.play(mv)?;
        moves.push(mv);
        Ok(())
    };
    while (moves.len() as u64) < random && !board.is_game_over() {
        let mv = if board.must_pass() {
            Move::Pass
        } else {
            Move::Play(rng.pick(board.legal_moves()))
        };
        play(&mut board, &mut moves, mv)?;
    }
    let random_moves = moves.len() as u32;
    let limits = SearchLimits {
        depth: Some(config.depth),
        exact_empties: 0,
        wld_empties: 0,
        ..SearchLimits::default()
    };
    let stop = AtomicBool::new(false);
    while !board.is_game_over() && board.empties() > config.solve_empties {
        let mv = if board.must_pass() {
            Move::Pass
        } else {
            search.iterate(&board, &limits, &stop, &mut |_| {}).best
        };
        play(&mut board, &mut moves, mv)?;
    }
    let mut solve_empties = 0;
    if !board.is_game_over() {
        solve_empties = board.empties();
        let mut root = board.clone();
        let Some(solution) = solver.solve(&mut root, SolveMode::Exact, &stop) else {
            bail!("the solve of game {index} was stopped");
        };
        let expected = match board.side_to_move() {
            Color::Black => solution.score,
            Color::White => -solution.score,
        };
        for &mv in &solution.pv {
            play(&mut board, &mut moves, mv)?;
        }
        ensure!(
            board.is_game_over() && board.final_score(Color::Black) == expected,
            "game {index}: the solver's line does not end with its score"
        );
    }
    Ok(SelfPlayGame {
        index,
        random_moves,
        solve_empties,
        black_result: board.final_score(Color::Black).0,
        moves,
    })
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
        games.push(SelfPlayGame::parse_line(line).with_context(|| format!("line {}", number + 1))?);
    }
    Ok((config, games))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::Discs;

    fn config() -> SelfPlayConfig {
        SelfPlayConfig {
            seed: 7,
            depth: 2,
            solve_empties: 12,
            random_min: 8,
            random_max: 20,
            weights: Some(0x5f3a_91c2),
        }
    }

    #[test]
    fn games_are_legal_finished_exact_and_reproducible() {
        let config = config();
        let mut search = Search::new(4);
        let mut solver = EndgameSolver::new(4);
        let mut text = format!("{}\n", config.header());
        for index in 0..4 {
            let game = play_game(&config, index, &mut search, &mut solver).unwrap();
            assert!((8..=20).contains(&game.random_moves));
            assert_eq!(game.solve_empties, 12);
            // The stored line reads back to the same game (parse_line replays and checks it).
            let line = game.to_line();
            assert_eq!(SelfPlayGame::parse_line(&line).unwrap(), game);
            // A line whose result is not the game's final score is refused.
            let wrong = SelfPlayGame {
                black_result: game.black_result + 2,
                ..game.clone()
            };
            assert!(SelfPlayGame::parse_line(&wrong.to_line()).is_err());
            text.push_str(&line);
            text.push('\n');
            // The recorded result is the exact value of the solve point.
            let mut board = Board::start();
            for &mv in &game.moves {
                if board.empties() == 12 && !board.is_game_over() {
                    break;
                }
                board.play(mv).unwrap();
            }
            let value = EndgameSolver::new(4)
                .search(&mut board, Discs(-64), Discs(64), &AtomicBool::new(false))
                .unwrap()
                .0;
            let black = if board.side_to_move() == Color::Black {
                value
            } else {
                -value
            };
            assert_eq!(black, game.black_result);
        }
        // A game depends only on the settings and its index, not on what was played before.
        let again = play_game(&config, 2, &mut Search::new(4), &mut EndgameSolver::new(4));
        let (read_config, games) = read_file(&text).unwrap();
        assert_eq!(read_config, config);
        assert_eq!(games[2], again.unwrap());
    }

    #[test]
    fn bad_headers_and_lines_are_refused() {
        assert_eq!(
            SelfPlayConfig::parse_header(&config().header()).unwrap(),
            config()
        );
        assert_eq!(
            config().header(),
            "# tsuru self-play v2 seed 7 depth 2 solve 12 random 8 20 weights 5f3a91c2"
        );
        // A v1 header (before the weights were recorded) still reads, without them.
        let v1 = SelfPlayConfig::parse_header(
            "# tsuru self-play v1 seed 7 depth 2 solve 12 random 8 20",
        )
        .unwrap();
        assert_eq!(
            v1,
            SelfPlayConfig {
                weights: None,
                ..config()
            }
        );
        assert_eq!(SelfPlayConfig::parse_header(&v1.header()).unwrap(), v1);
        for bad in [
            "# tsuru self-play v2 seed 7 depth 2 solve 12 random 8 20",
            "# tsuru self-play v1 seed 7 depth 2 solve 12 random 8 20 weights 5f3a91c2",
            "# tsuru self-play v2 seed 7 depth 2 solve 12 random 8 20 weight 5f3a91c2",
            "# tsuru self-play v2 seed 7 depth 2 solve 12 random 8 20 weights xyz",
            "# tsuru self-play v3 seed 7 depth 2 solve 12 random 8 20 weights 5f3a91c2",
            "# tsuru self-play v1 seed 7 depth 2 solve 12 random 20 8",
            "# tsuru self-play v1 seed x depth 2 solve 12 random 8 20",
            "",
        ] {
            assert!(SelfPlayConfig::parse_header(bad).is_err(), "{bad:?}");
        }
        // An unfinished game, an illegal move, a missing field.
        for bad in ["0 0 0 0 f5d6", "0 0 0 0 a1", "0 0 0 f5d6"] {
            assert!(SelfPlayGame::parse_line(bad).is_err(), "{bad:?}");
        }
    }
}
