//! Game review: where a game went wrong, move by move.
//!
//! Every position of the game is searched, from the last to the first so that the solver's
//! table, filled by the end of the game, serves the earlier positions. A move's **value** is
//! what the move played is worth to its player (the next position's value, negated), the
//! **best** move is the search's, and the **loss** is what the move played gave away: the
//! best value less the played one, never below zero. From where the level solves exactly
//! (`3N/2` empties at level N) the values, and so the losses, are exact. Each move gets a
//! mark by its loss ([`Mark`]); each player's **error total** is the sum of their losses,
//! the figure Othello players compare; the **decisive move** is the last move that changed
//! the game's result (a win, a draw or a loss for Black) as the values judge it, exact when
//! both of its positions are solved.
//!
//! [`review_game`] reviews a [`GameRecord`] with a [`Search`] ([`review_with`] with values
//! from anywhere); [`graph`] draws the value along the game as SVG. `tsuru review` (the lab)
//! and Python's `tsuru.review` are front ends of this module.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{ensure, Context, Result};

use crate::board::{notation, Board, Color, Move};
use crate::config::Level;
use crate::eval::win_probability::{WinModel, WinProbability};
use crate::formats::ggf::GgfGame;
use crate::search::time::Clock;
use crate::search::{Depth, Search, SearchLimits, SearchRequest};

pub mod graph;

/// The level a review searches at unless told otherwise: exact from 27 empties, so the last
/// 27 moves of a game are judged exactly, in about 14 s for a 60-move game on 2 cores
/// (level 16, exact from 24 empties, takes 1 to 3 s; level 20, exact from 30, over a
/// minute: docs/results.md).
pub const REVIEW_LEVEL: Level = match Level::new(18) {
    Some(level) => level,
    None => panic!("18 is a level"),
};

/// How bad a move was, by the discs it lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Lost under 1 disc: the best move or as good as it.
    Best,
    /// Lost 1 to under 4 discs.
    Inaccuracy,
    /// Lost 4 to under 8 discs.
    Mistake,
    /// Lost 8 discs or more.
    Blunder,
}

impl Mark {
    /// The mark of a move that lost `loss` discs.
    pub fn of(loss: f64) -> Mark {
        if loss < 1.0 {
            Mark::Best
        } else if loss < 4.0 {
            Mark::Inaccuracy
        } else if loss < 8.0 {
            Mark::Mistake
        } else {
            Mark::Blunder
        }
    }

    /// The mark's name, as the outputs write it.
    pub fn name(self) -> &'static str {
        match self {
            Mark::Best => "best",
            Mark::Inaccuracy => "inaccuracy",
            Mark::Mistake => "mistake",
            Mark::Blunder => "blunder",
        }
    }
}

/// One searched position of the game: its value for the side to move, the best move and
/// whether the value is exact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PositionValue {
    /// The value for the side to move, in discs.
    pub value: f64,
    /// The best move (a pass where it is forced; [`Move::Pass`] at the game's end).
    pub best: Move,
    /// Whether the value is the exact game-theoretic one.
    pub exact: bool,
}

/// One move of the game, reviewed.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReview {
    /// The move's number in the game, from 1 (passes count: they are moves of the record).
    pub number: usize,
    /// Who played it.
    pub color: Color,
    /// The move played.
    pub played: Move,
    /// What the move played is worth to its player, in discs.
    pub value: f64,
    /// The best move of the position.
    pub best: Move,
    /// What the best move is worth to the player, in discs.
    pub best_value: f64,
    /// The discs the move played gave away: `best_value - value`, never below zero.
    pub loss: f64,
    /// Whether `value` and `best_value` are exact (and so the loss).
    pub exact: bool,
    /// The mark of the loss.
    pub mark: Mark,
    /// The player's chances after the move, from its value
    /// ([`crate::eval::win_probability`]: certain where the value is exact).
    pub chances: WinProbability,
}

/// The move that decided the game: the last that changed its result.
#[derive(Clone, Debug, PartialEq)]
pub struct Decisive {
    /// The move's index in [`Review::moves`].
    pub index: usize,
    /// Black's result before the move and after it: 1 a win, 0 a draw, -1 a loss.
    pub before: i32,
    /// See `before`.
    pub after: i32,
    /// Whether both values are exact.
    pub exact: bool,
}

/// A reviewed game.
#[derive(Clone, Debug, PartialEq)]
pub struct Review {
    /// Every move that was a choice (forced passes are left out), in game order.
    pub moves: Vec<MoveReview>,
    /// The value of the game's first position for Black, in discs.
    pub start_value: f64,
    /// Black's and White's error totals: the sum of their moves' losses, in discs.
    pub error_totals: [f64; 2],
    /// The last move that changed the result, if any did.
    pub decisive: Option<Decisive>,
    /// Black's final disc difference when the game ended, `None` for a game that did not.
    pub result: Option<i32>,
}

/// A game to review: where it starts, its moves and what to call it in messages.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// The start position.
    pub start: Board,
    /// The moves, passes included.
    pub moves: Vec<Move>,
    /// Black's and White's names, where the record gives them.
    pub players: [Option<String>; 2],
    /// What the record is called in messages: the file and the game.
    pub name: String,
}

impl GameRecord {
    /// The game of `moves` played from `start`, the passes a transcript leaves out put back,
    /// called `name`, with no players' names. Errors name the first illegal move
    /// (`move 2 (F5)`), or say that there is no move to review.
    pub fn from_moves(start: &Board, moves: &[Move], name: &str) -> Result<GameRecord> {
        let start = start.without_history();
        let mut board = start.clone();
        notation::play_moves(&mut board, moves)?;
        ensure!(!moves.is_empty(), "the game has no moves to review");
        Ok(GameRecord {
            start,
            moves: board.history().collect(),
            players: [None, None],
            name: name.to_string(),
        })
    }

    /// The game of a GGF record, with the players' names of its `PB` and `PW` tags (a tag
    /// that is missing or blank gives none), called `name`.
    pub fn from_ggf(game: &GgfGame, name: &str) -> GameRecord {
        let tag = |key: &str| {
            game.tags
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        GameRecord {
            start: game.start().clone(),
            moves: game.moves().iter().map(|m| m.mv).collect(),
            players: [tag("PB"), tag("PW")],
            name: name.to_string(),
        }
    }
}

/// The positions of a game: `start` and the position after each move.
pub fn positions(start: &Board, moves: &[Move]) -> Result<Vec<Board>> {
    let mut board = start.without_history();
    let mut out = vec![board.clone()];
    for (i, &mv) in moves.iter().enumerate() {
        board
            .play(mv)
            .with_context(|| format!("move {} ({mv:#})", i + 1))?;
        out.push(board.without_history());
    }
    Ok(out)
}

/// Reviews the game `moves` from `start` with values from `value_of` (called on every
/// position, the last first), reporting each position done to `progress`.
pub fn review_with(
    start: &Board,
    moves: &[Move],
    mut value_of: impl FnMut(&Board) -> PositionValue,
    mut progress: impl FnMut(usize, usize),
) -> Result<Review> {
    ensure!(!moves.is_empty(), "the game has no moves to review");
    let boards = positions(start, moves)?;
    let mut values = vec![None; boards.len()];
    for (done, i) in (0..boards.len()).rev().enumerate() {
        values[i] = Some(value_of(&boards[i]));
        progress(done + 1, boards.len());
    }
    let values: Vec<PositionValue> = values.into_iter().map(|v| v.expect("searched")).collect();
    // A position's value for Black.
    let for_black = |i: usize| {
        let v = values[i].value;
        if boards[i].side_to_move() == Color::Black {
            v
        } else {
            -v
        }
    };
    let mut reviewed = Vec::new();
    let mut error_totals = [0.0; 2];
    let mut decisive = None;
    for (i, &mv) in moves.iter().enumerate() {
        let board = &boards[i];
        let color = board.side_to_move();
        let (before, after) = (outcome(for_black(i)), outcome(for_black(i + 1)));
        if before != after {
            decisive = Some(Decisive {
                index: reviewed.len(),
                before,
                after,
                exact: values[i].exact && values[i + 1].exact,
            });
        }
        if mv == Move::Pass {
            // A forced pass is no choice: nothing to review.
            continue;
        }
        let best = values[i];
        // The best move played is worth the position's value; another move, the next
        // position's value for the opponent (a pass is a move of its own), negated.
        let (value, exact) = if mv == best.best {
            (best.value, best.exact)
        } else {
            (-values[i + 1].value, best.exact && values[i + 1].exact)
        };
        let loss = (best.value - value).max(0.0);
        error_totals[color.index()] += loss;
        reviewed.push(MoveReview {
            number: i + 1,
            color,
            played: mv,
            value,
            best: best.best,
            best_value: best.value,
            loss,
            exact,
            mark: Mark::of(loss),
            chances: WinModel::shipped().of_value(value, board.empties() - 1, exact),
        });
    }
    let last = boards.last().expect("the start at least");
    // A decisive pass is reported at the move after it, the player's next choice.
    if let Some(d) = &mut decisive {
        d.index = d.index.min(reviewed.len().saturating_sub(1));
    }
    Ok(Review {
        moves: reviewed,
        start_value: for_black(0),
        error_totals,
        decisive,
        result: last
            .is_game_over()
            .then(|| last.final_score(Color::Black).get()),
    })
}

/// The value of `board` by `search` within `limits`, or sooner when `stop` is set: the
/// game's final score at its end.
pub fn search_value(
    search: &mut Search,
    board: &Board,
    limits: &SearchLimits,
    stop: &AtomicBool,
) -> PositionValue {
    if board.is_game_over() {
        return PositionValue {
            value: f64::from(board.final_score(board.side_to_move()).get()),
            best: Move::Pass,
            exact: true,
        };
    }
    let result = search.iterate(board, limits, stop, &mut |_| {});
    PositionValue {
        value: result.score.discs(),
        best: result.best,
        exact: result.depth == Depth::Exact,
    }
}

/// The search request of a review: each position searched at `level`, or for `move_time`
/// instead (then as deep as the time allows), or at [`REVIEW_LEVEL`] when neither is given.
/// Errors when both are given.
pub fn request(level: Option<Level>, move_time: Option<Duration>) -> Result<SearchRequest> {
    ensure!(
        level.is_none() || move_time.is_none(),
        "give a level or a time a position, not both"
    );
    Ok(SearchRequest {
        level: Some(level.unwrap_or(REVIEW_LEVEL)).filter(|_| move_time.is_none()),
        clock: move_time.map_or(Clock::Unlimited, Clock::PerMove),
        ..SearchRequest::default()
    })
}

/// Reviews `game` with `search` (its table kept from one position to the next), each
/// position searched by `request` with values in discs everywhere (where the request
/// solves win/loss/draw only, it solves exactly instead), reporting each position done to
/// `progress` (done, of). Errors on a game with an illegal move or none, a request with no
/// best move (`multi_pv` 0), or when `stop` was set before the review ended (from another
/// thread: the search under way returns at once, and so do the ones left).
pub fn review_game(
    search: &mut Search,
    request: &SearchRequest,
    game: &GameRecord,
    stop: &AtomicBool,
    progress: impl FnMut(usize, usize),
) -> Result<Review> {
    // The request's limits differ by position only in the time share; check it once.
    request.limits(60)?;
    review_with(
        &game.start,
        &game.moves,
        |board| {
            let mut limits = request.limits(board.empties()).expect("checked above");
            // Values in discs everywhere: no win/loss/draw-only proofs.
            limits.wld_empties = limits.exact_empties;
            search_value(search, board, &limits, stop)
        },
        progress,
    )
    .and_then(|review| {
        // A stopped search's value is not a review's: refuse the whole.
        ensure!(
            !stop.load(std::sync::atomic::Ordering::Relaxed),
            "the review was stopped"
        );
        Ok(review)
    })
}

/// A value as the outputs write it: whole discs when exact, else to a tenth, signed.
pub fn value_text(value: f64, exact: bool) -> String {
    if exact {
        format!("{:+}", value.round() as i64)
    } else {
        format!("{value:+.1}")
    }
}

/// `color`'s marked moves as a player reads them, e.g. `1 inaccuracy, 2 mistakes, 0 blunders`.
pub fn mark_counts(review: &Review, color: Color) -> String {
    let count = |mark: Mark| {
        review
            .moves
            .iter()
            .filter(|m| m.color == color && m.mark == mark)
            .count()
    };
    let words =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "{}, {}, {}",
        words(count(Mark::Inaccuracy), "inaccuracy", "inaccuracies"),
        words(count(Mark::Mistake), "mistake", "mistakes"),
        words(count(Mark::Blunder), "blunder", "blunders")
    )
}

/// The move that decided the game as the outputs describe it, e.g. `8 white b4, from a
/// white win to a black win (by the search)`; `None` when no move changed the result.
pub fn decisive_text(review: &Review) -> Option<String> {
    let d = review.decisive.as_ref()?;
    let m = &review.moves[d.index];
    Some(format!(
        "{} {} {:#}, from {} to {}{}",
        m.number,
        m.color,
        m.played,
        outcome_name(d.before),
        outcome_name(d.after),
        if d.exact {
            " (exact)"
        } else {
            " (by the search)"
        }
    ))
}

/// The result a value for Black stands for: 1 a black win, 0 a draw, -1 a white win.
pub fn outcome(value: f64) -> i32 {
    (value > 0.0) as i32 - (value < 0.0) as i32
}

/// An [`outcome`] in words: `a black win`, `a draw` or `a white win`.
pub fn outcome_name(outcome: i32) -> &'static str {
    match outcome {
        1 => "a black win",
        0 => "a draw",
        _ => "a white win",
    }
}

/// The review of f5 f6 e6 from the start with made-up exact values (the side to move's
/// view): black +2 (best f5), white -2 (best d6), black +6 (best c3), white -4; the players
/// are `Ann & <Bo>` and `Zöe` (characters the pictures escape). For tests of the outputs.
#[cfg(any(test, feature = "testkit"))]
pub fn example_review() -> (GameRecord, Review) {
    let moves = notation::parse_transcript("f5f6e6").expect("a transcript");
    let values = [(2.0, "f5"), (-2.0, "d6"), (6.0, "c3"), (-4.0, "pa")];
    let review = review_with(
        &Board::start(),
        &moves,
        |board| {
            let (value, best) = values[(60 - board.empties()) as usize];
            PositionValue {
                value,
                best: best.parse().expect("a move"),
                exact: true,
            }
        },
        |_, _| {},
    )
    .expect("a legal game");
    let record = GameRecord {
        start: Board::start(),
        moves,
        players: [Some("Ann & <Bo>".into()), Some("Z\u{f6}e".into())],
        name: "test".into(),
    };
    (record, review)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::SearchConfig;

    fn exact(value: f64, best: &str) -> PositionValue {
        PositionValue {
            value,
            best: best.parse().unwrap(),
            exact: true,
        }
    }

    #[test]
    fn marks_follow_the_documented_thresholds() {
        for (loss, mark) in [
            (0.0, Mark::Best),
            (0.9, Mark::Best),
            (1.0, Mark::Inaccuracy),
            (3.9, Mark::Inaccuracy),
            (4.0, Mark::Mistake),
            (7.9, Mark::Mistake),
            (8.0, Mark::Blunder),
            (40.0, Mark::Blunder),
        ] {
            assert_eq!(Mark::of(loss), mark, "{loss}");
        }
    }

    #[test]
    fn positions_are_searched_from_the_last_to_the_first() {
        let moves: Vec<Move> = notation::parse_transcript("f5f6e6").unwrap();
        let mut asked = Vec::new();
        let mut progress = Vec::new();
        review_with(
            &Board::start(),
            &moves,
            |board| {
                asked.push(board.empties());
                exact(0.0, "pa")
            },
            |done, of| progress.push((done, of)),
        )
        .unwrap();
        assert_eq!(asked, [57, 58, 59, 60]);
        assert_eq!(progress, [(1, 4), (2, 4), (3, 4), (4, 4)]);
    }

    #[test]
    fn losses_totals_and_the_decisive_move_come_from_the_values() {
        // example_review's values, the side to move's view: black +2 (best f5), white -2
        // (best d6), black +6 (best c3), white -4.
        let (_, review) = example_review();
        let losses: Vec<f64> = review.moves.iter().map(|m| m.loss).collect();
        // f5 is the best move: worth the position's +2, 0 lost. f6 is worth -6 to white where
        // d6 was worth -2: 4 lost.
        // e6 is worth +4 to black where c3 was worth +6: 2 lost.
        assert_eq!(losses, [0.0, 4.0, 2.0]);
        assert_eq!(
            review.moves.iter().map(|m| m.value).collect::<Vec<_>>(),
            [2.0, -6.0, 4.0]
        );
        assert_eq!(review.error_totals, [2.0, 4.0]);
        assert_eq!(
            review.moves.iter().map(|m| m.mark).collect::<Vec<_>>(),
            [Mark::Best, Mark::Mistake, Mark::Inaccuracy]
        );
        assert_eq!(
            mark_counts(&review, Color::Black),
            "1 inaccuracy, 0 mistakes, 0 blunders"
        );
        assert_eq!(
            mark_counts(&review, Color::White),
            "0 inaccuracies, 1 mistake, 0 blunders"
        );
        // Black was winning throughout: nothing changed the result.
        assert_eq!(review.decisive, None);
        assert_eq!(decisive_text(&review), None);
        assert_eq!(review.result, None);
        assert_eq!(review.start_value, 2.0);
    }

    #[test]
    fn the_decisive_move_is_the_last_that_changed_the_result() {
        let moves: Vec<Move> = notation::parse_transcript("f5f6e6").unwrap();
        // Black +2, then after f5 white to move at +2 (black -2: white wins), after f6
        // black to move at +2 (black wins), after e6 white to move at 0 (a draw).
        let values = [
            exact(2.0, "f5"),
            exact(2.0, "d6"),
            exact(2.0, "e6"),
            exact(0.0, "pa"),
        ];
        let review = review_with(
            &Board::start(),
            &moves,
            |board| values[(60 - board.empties()) as usize],
            |_, _| {},
        )
        .unwrap();
        let d = review.decisive.as_ref().expect("the result changed");
        assert_eq!((review.moves[d.index].number, d.before, d.after), (3, 1, 0));
        assert_eq!(
            decisive_text(&review).unwrap(),
            "3 black e6, from a black win to a draw (exact)"
        );
    }

    #[test]
    fn bad_games_are_refused_with_what_is_wrong() {
        let err = review_with(&Board::start(), &[], |_| exact(0.0, "pa"), |_, _| {});
        assert!(err.unwrap_err().to_string().contains("no moves"));
        let moves = notation::parse_transcript("f5a1").unwrap();
        let err = positions(&Board::start(), &moves).unwrap_err();
        assert!(format!("{err:#}").contains("move 2 (a1)"), "{err:#}");
        let err = GameRecord::from_moves(&Board::start(), &moves, "g").unwrap_err();
        assert!(format!("{err:#}").contains("move 2 (A1)"), "{err:#}");
        let err = GameRecord::from_moves(&Board::start(), &[], "g").unwrap_err();
        assert!(err.to_string().contains("no moves"), "{err:#}");
        assert!(request(Some(REVIEW_LEVEL), Some(Duration::from_secs(1))).is_err());
    }

    /// A random game to its end, passes included (the same for a seed).
    fn random_game(seed: u64) -> Board {
        crate::eval::pattern::random_board(&mut crate::rng::Rng::new(seed), 200)
    }

    #[test]
    fn a_record_puts_back_the_passes_a_transcript_leaves_out() {
        let game = (1..100)
            .map(random_game)
            .find(|b| b.history().any(|m| m == Move::Pass))
            .expect("a random game with a pass");
        assert!(game.is_game_over());
        let squares: Vec<Move> = game.history().filter(|&m| m != Move::Pass).collect();
        let record = GameRecord::from_moves(&Board::start(), &squares, "random").unwrap();
        assert!(record.moves.len() > squares.len());
        assert_eq!(record.moves, game.history().collect::<Vec<_>>());
        assert_eq!(record.name, "random");
    }

    #[test]
    fn a_searched_review_solves_the_end_exactly() {
        // The last 8 moves of a game: level 4 solves from 6 empties, so the last 6 moves'
        // values are exact, each the negated exact solve of the position after it; the two
        // before are midgame values.
        let game = random_game(2026);
        let all: Vec<Move> = game.history().collect();
        let from = all.len() - 8;
        let mut start = Board::start();
        for &mv in &all[..from] {
            start.play(mv).unwrap();
        }
        let record = GameRecord::from_moves(&start, &all[from..], "end").unwrap();
        let mut search = Search::new(SearchConfig::new(16, 1).unwrap());
        let level4 = request(Some(Level::new(4).unwrap()), None).unwrap();
        let never = AtomicBool::new(false);
        let mut done = Vec::new();
        let review = review_game(&mut search, &level4, &record, &never, |d, of| {
            done.push((d, of))
        })
        .unwrap();
        assert_eq!(done, (1..=9).map(|d| (d, 9)).collect::<Vec<_>>());
        let boards = positions(&record.start, &record.moves).unwrap();
        let mut solver = Search::new(SearchConfig::new(16, 1).unwrap());
        let solve = SearchLimits::for_level(Level::new(60).unwrap());
        let mut checked = 0;
        for m in &review.moves {
            let before = &boards[m.number - 1];
            assert_eq!(m.exact, before.empties() <= 6, "{m:?}");
            assert_eq!(m.loss, (m.best_value - m.value).max(0.0), "{m:?}");
            if m.exact {
                let after = search_value(&mut solver, &boards[m.number], &solve, &never);
                assert!(after.exact);
                assert_eq!(m.value, -after.value, "{m:?}");
                assert_eq!(
                    m.best_value,
                    search_value(&mut solver, before, &solve, &never).value
                );
                checked += 1;
            }
        }
        assert!(checked >= 5, "{checked}");
        assert_eq!(review.result, Some(game.final_score(Color::Black).get()));
        // A review whose flag is set is refused, not returned with stopped searches' values.
        let stopped = AtomicBool::new(true);
        let err = review_game(&mut search, &level4, &record, &stopped, |_, _| {}).unwrap_err();
        assert_eq!(err.to_string(), "the review was stopped");
    }
}
