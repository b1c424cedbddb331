//! Self-play games for training (`tsuru datagen`), stored compactly and generated so that a
//! long run can stop at any point and continue.
//!
//! A game starts with a few uniformly random moves (their count is drawn between two bounds),
//! continues with the current evaluation searching a few plies deep until a given number of
//! empty squares is left, and is finished by the exact solver along its principal variation.
//! Every position from the solve point to the end therefore lies on a perfect-play line and
//! has the same exact value for Black, the recorded result. The random opening is excluded
//! from training ([`training_game`]).
//!
//! The games are stored as [`tsuru_core::formats::selfplay`] describes. Game `i` depends only
//! on the settings and `i` (its random generator is seeded from both), so a resumed run, or
//! shards of indices run elsewhere and concatenated, give exactly the games of one
//! uninterrupted run.

use std::sync::atomic::AtomicBool;

use anyhow::{bail, ensure, Result};

use super::games::Game;
use tsuru_core::board::{Board, Color, Move};
pub use tsuru_core::formats::selfplay::{
    is_searched, read_file, stored_score, SelfPlayConfig, SelfPlayGame,
};
use tsuru_core::rng::Rng;
use tsuru_core::search::endgame::{EndgameSolver, SolveMode};
use tsuru_core::search::{Search, SearchLimits};

/// The training game of a stored one (the record and its line are
/// [`tsuru_core::formats::selfplay`]): the random opening is excluded, and the result is the
/// exact value of every position from the solve point on.
pub fn training_game(game: &SelfPlayGame) -> Game {
    Game {
        moves: game.moves.clone(),
        black_diff: game.black_result.get().clamp(-64, 64) as i8,
        theoretical: (game.solve_empties > 0).then_some((
            game.solve_empties as u8,
            game.black_result.get().clamp(-64, 64) as i8,
        )),
        first_sample: game.random_moves as usize,
        recorded: game.scores_by_ply(),
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
    let limits = player_limits(config.depth);
    let stop = AtomicBool::new(false);
    let mut scores = Vec::new();
    while !board.is_game_over() && board.empties() > config.solve_empties {
        let mv = if board.must_pass() {
            scores.push(None);
            Move::Pass
        } else {
            let result = search.iterate(&board, &limits, &stop, &mut |_| {});
            scores.push(Some(stored_score(result.score.discs())));
            result.best
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
        black_result: board.final_score(Color::Black),
        moves,
        scores: config.scores.then_some(scores),
    })
}

/// The players' search: `depth` plies, never exact or win-loss-draw at the root.
fn player_limits(depth: u32) -> SearchLimits {
    SearchLimits::midgame(depth)
}

/// `game` with the scores a v3 file stores (see [`SelfPlayGame::scores`]), searched now
/// `depth` plies deep with `search` (its evaluation should be the one that played the game):
/// each searched position's value for the side to move, `None` at a forced pass. The table
/// is cleared at the game's start and kept through its positions, so a game's scores depend
/// on the game, the depth and the evaluation alone (not on the games scored before it with
/// the same `search`). A generator's recorded scores can differ from these by a disc or so
/// where its table, kept from game to game, held other bounds.
pub fn rescore_game(game: &SelfPlayGame, depth: u32, search: &mut Search) -> SelfPlayGame {
    search.clear_in_place();
    let limits = player_limits(depth);
    let stop = AtomicBool::new(false);
    let mut board = Board::start();
    let mut scores = Vec::new();
    for (ply, &mv) in game.moves.iter().enumerate() {
        if is_searched(ply, board.empties(), game.random_moves, game.solve_empties) {
            scores.push(match mv {
                Move::Pass => None,
                Move::Play(_) => {
                    let result = search.iterate(&board, &limits, &stop, &mut |_| {});
                    Some(stored_score(result.score.discs()))
                }
            });
        }
        board
            .play(mv)
            .expect("a stored game was replayed when it was read");
    }
    SelfPlayGame {
        scores: Some(scores),
        ..game.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsuru_core::score::Discs;

    use tsuru_core::formats::selfplay::test_config as config;

    #[test]
    fn games_are_legal_finished_exact_and_reproducible() {
        let config = config();
        let mut search = Search::new(tsuru_core::search::SearchConfig::new(4, 1).unwrap());
        let mut solver = EndgameSolver::new(&tsuru_core::search::SearchConfig::new(4, 1).unwrap());
        let mut text = format!("{}\n", config.header());
        for index in 0..4 {
            let game = play_game(&config, index, &mut search, &mut solver).unwrap();
            assert!((8..=20).contains(&game.random_moves));
            assert_eq!(game.solve_empties, 12);
            // The stored line reads back to the same game (parse_line replays and checks it).
            let line = game.to_line();
            assert_eq!(SelfPlayGame::parse_line(&line).unwrap(), game);
            // And the compact (v4) line.
            let compact = game.to_compact_line();
            assert_eq!(SelfPlayGame::parse_compact_line(&compact).unwrap(), game);
            // A line whose result is not the game's final score is refused.
            let wrong = SelfPlayGame {
                black_result: game.black_result + Discs::new(2),
                ..game.clone()
            };
            assert!(SelfPlayGame::parse_line(&wrong.to_line()).is_err());
            check_scores(&game);
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
            let value = EndgameSolver::new(&tsuru_core::search::SearchConfig::new(4, 1).unwrap())
                .search(&mut board, -Discs::MAX, Discs::MAX, &AtomicBool::new(false))
                .unwrap();
            let black = if board.side_to_move() == Color::Black {
                value
            } else {
                -value
            };
            assert_eq!(black, game.black_result);
        }
        // A v2 line (no scores) is refused in a v3 file, and a v3 line in a v2 file.
        let v2_line = SelfPlayGame {
            scores: None,
            ..play_game(&config, 5, &mut search, &mut solver).unwrap()
        }
        .to_line();
        assert!(read_file(&format!("{text}{v2_line}\n")).is_err());
        let v2_config = SelfPlayConfig {
            scores: false,
            ..config
        };
        assert!(read_file(&format!(
            "{}\n{}",
            v2_config.header(),
            &text[text.find('\n').unwrap() + 1..]
        ))
        .is_err());
        assert!(read_file(&format!("{}\n{v2_line}\n", v2_config.header())).is_ok());
        // A game depends only on the settings and its index, not on what was played before.
        let again = play_game(
            &config,
            2,
            &mut Search::new(tsuru_core::search::SearchConfig::new(4, 1).unwrap()),
            &mut EndgameSolver::new(&tsuru_core::search::SearchConfig::new(4, 1).unwrap()),
        );
        let (read_config, games) = read_file(&text).unwrap();
        assert_eq!(read_config, config);
        assert_eq!(games[2], again.unwrap());
    }

    /// A v3 game's recorded scores line up with the positions `label_game` makes of it: each
    /// searched position (from the first after the random opening to the solve point) has
    /// the score its move recorded, every other none; `use_recorded_values` puts them in
    /// place of the search values of the positions whose label is not exact. A v2 game has
    /// none.
    #[test]
    fn recorded_scores_follow_the_labelled_positions() {
        use crate::training::{label_game, recorded_values, use_recorded_values, LabelKind};
        let game = play_game(
            &config(),
            1,
            &mut Search::new(tsuru_core::search::SearchConfig::new(4, 1).unwrap()),
            &mut EndgameSolver::new(&tsuru_core::search::SearchConfig::new(4, 1).unwrap()),
        )
        .unwrap();
        let train = training_game(&game);
        let mut labelled = Vec::new();
        label_game(&train, 0, None, &mut labelled);
        let recorded = recorded_values(std::slice::from_ref(&train));
        assert_eq!(recorded.len(), labelled.len());
        let scores: Vec<i8> = game.scores.clone().unwrap().into_iter().flatten().collect();
        let n = scores.len();
        assert!(n > 5 && labelled.len() > n + 5);
        assert_eq!(
            recorded[..n].iter().map(|s| s.unwrap()).collect::<Vec<_>>(),
            scores
        );
        assert!(recorded[n..].iter().all(Option::is_none));
        // The first position after the random opening is the first sample.
        let mut board = Board::start();
        for &mv in &game.moves[..game.random_moves as usize] {
            board.play(mv).unwrap();
        }
        assert_eq!(
            (labelled[0].black, labelled[0].white),
            (board.discs(Color::Black), board.discs(Color::White))
        );

        labelled[1].kind = LabelKind::Exact;
        let mut values = vec![99i8; labelled.len()];
        let took = use_recorded_values(&labelled, &recorded, &mut values);
        assert_eq!(took.len(), labelled.len());
        assert_eq!(took.iter().filter(|&&t| t).count(), n - 1);
        assert!(!took[1] && took[0] && took[2..n].iter().all(|&t| t));
        assert_eq!(values[0], scores[0]);
        assert_eq!(values[1], 99, "an exact label keeps its value");
        assert_eq!(values[2..n], scores[2..]);
        assert!(values[n..].iter().all(|&v| v == 99));

        let v2 = SelfPlayGame {
            scores: None,
            ..game
        };
        assert!(recorded_values(&[training_game(&v2)])
            .iter()
            .all(Option::is_none));
    }

    /// Rescoring gives a game the scores its players recorded (at the players' depth, from
    /// the game's v2 line as well), reads back through `parse_line`, and depends neither on
    /// what the search scored before nor on the scores the game held.
    #[test]
    fn rescored_games_get_their_players_scores() {
        let config = config();
        let mut search = Search::new(tsuru_core::search::SearchConfig::new(4, 1).unwrap());
        let mut solver = EndgameSolver::new(&tsuru_core::search::SearchConfig::new(4, 1).unwrap());
        let mut used = Search::new(tsuru_core::search::SearchConfig::new(4, 1).unwrap());
        for index in 0..3 {
            let game = play_game(&config, index, &mut search, &mut solver).unwrap();
            let v2 = SelfPlayGame {
                scores: None,
                ..game.clone()
            };
            assert_eq!(
                rescore_game(
                    &v2,
                    config.depth,
                    &mut Search::new(tsuru_core::search::SearchConfig::new(4, 1).unwrap())
                ),
                game
            );
            assert_eq!(rescore_game(&game, config.depth, &mut used), game);
            // Deeper: the same scores from a fresh search and from one that scored the other
            // games first, and a line that reads back.
            let deep = rescore_game(
                &v2,
                6,
                &mut Search::new(tsuru_core::search::SearchConfig::new(4, 1).unwrap()),
            );
            assert_eq!(rescore_game(&game, 6, &mut used), deep);
            assert_eq!(SelfPlayGame::parse_line(&deep.to_line()).unwrap(), deep);
            assert_ne!(deep.scores, game.scores, "six plies see more than two");
        }
    }

    /// The game's scores: one a searched move (from the first after the random opening to
    /// the last before the solve point), a pass where the move was one, and each the
    /// stored value of the players' search of that position (a fresh search to the same
    /// depth gives the same value); a damaged scores field is refused.
    fn check_scores(game: &SelfPlayGame) {
        let scores = game.scores.as_ref().expect("v3 games record their scores");
        let mut board = Board::start();
        let mut searched = Vec::new();
        for (ply, &mv) in game.moves.iter().enumerate() {
            if ply >= game.random_moves as usize && board.empties() > game.solve_empties {
                searched.push((board.clone(), mv));
            }
            board.play(mv).unwrap();
        }
        assert_eq!(scores.len(), searched.len());
        assert!(!scores.is_empty());
        let limits = SearchLimits::midgame(config().depth);
        for (score, (board, mv)) in scores.iter().zip(&searched) {
            match (score, mv) {
                (None, Move::Pass) => {}
                (Some(score), Move::Play(_)) => {
                    let result = Search::new(tsuru_core::search::SearchConfig::new(4, 1).unwrap())
                        .iterate(board, &limits, &AtomicBool::new(false), &mut |_| {});
                    assert_eq!(*score, stored_score(result.score.discs()), "{board:?}");
                }
                other => panic!("score and move disagree: {other:?}"),
            }
        }
        let line = game.to_line();
        let (moves, field) = line.rsplit_once(' ').unwrap();
        assert!(field.starts_with('s'));
        // One score too many or too few, a pass's mark on a played move, a character beyond
        // the scores' range, a field without its `s`.
        for bad in [
            format!("{field}O"),
            field[..field.len() - 1].to_string(),
            format!("s~{}", &field[2..]),
            format!("s~{}", &field[2..]).replace('~', "\u{7f}"),
            field[1..].to_string(),
        ] {
            assert!(
                SelfPlayGame::parse_line(&format!("{moves} {bad}")).is_err(),
                "{bad:?}"
            );
        }
    }
}
