//! Training the pattern evaluation ([`tsuru_core::eval::pattern`]) from games: reading game
//! collections ([`games`]), turning their positions into labelled samples (this module), and
//! fitting the weights by least squares ([`fit`]).
//!
//! A sample is a position's 55 feature entries ([`tsuru_core::eval::pattern::features`]: 54 pattern
//! copies and the mobility table, side to move's view, ties resolved) and a
//! label in discs for the side to move. Labels, best first:
//!
//! 1. **exact**: with `solve_empties = N`, every position of a game with N or fewer empties is
//!    solved exactly (the value is unique, so the labels do not depend on the solver's move
//!    ordering, and hence not on the weights of the build that trains);
//! 2. **theoretical**: WTHOR records the exact score at 24 empties; positions up to that
//!    point are labelled with it (the outcome if the endgame had been played perfectly);
//! 3. **result**: the game's final disc difference.
//!
//! The start position itself is labelled 0, its known exact value (a draw). Self-play games
//! ([`selfplay`]) carry the exact value of their solve point as the theoretical score, and
//! their random openings give no samples.
//!
//! Games are split into training and held-out sets by game number (every `holdout_every`-th
//! game is held out), never by position.

pub mod blend;
pub mod fit;
pub mod fm;
pub mod games;
pub mod pattern_nets;
pub mod positions;
pub mod selfplay;
pub mod shards;
pub mod win_probability;

use std::sync::atomic::AtomicBool;
use tsuru_core::search::SearchConfig;

use crate::parallel::map_chunks;
use games::Game;
use tsuru_core::board::{Board, Color};
use tsuru_core::eval::pattern::{features, stage_of, FEATURES};
use tsuru_core::eval::EvalBundle;
pub use tsuru_core::formats::positions::{LabelKind, Labelled};
use tsuru_core::score::Discs;
use tsuru_core::search::endgame::EndgameSolver;
use tsuru_core::search::{Search, SearchLimits};

/// One labelled position.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// The flat-table entries the position looks up (canonical, side to move's view).
    pub features: [u32; FEATURES],
    /// The target in discs, side to move's view.
    pub label: f32,
}

/// The training sample of a labelled position (the record itself, and its file, are
/// [`tsuru_core::formats::positions`]).
pub fn sample_of(position: &Labelled) -> Option<Sample> {
    let board = position.board()?;
    Some(Sample {
        features: features(&board),
        label: f32::from(position.label),
    })
}

/// Appends the labelled positions of one game to `out` (see the module doc for the labels),
/// in game order. Positions where the side to move must pass, finished positions and those
/// of a random opening are left out. `solver` is used when `solve_empties > 0`.
pub fn label_game(
    game: &Game,
    solve_empties: u32,
    mut solver: Option<&mut EndgameSolver>,
    out: &mut Vec<Labelled>,
) {
    let stop = AtomicBool::new(false);
    let mut board = Board::start();
    let result = i32::from(game.black_diff);
    let first = out.len();
    for &mv in &game.moves {
        if is_sample(game, &board) {
            let (mut black_label, mut kind) = match game.theoretical {
                // The start position is a draw with perfect play (Othello was weakly solved
                // by Takizawa in 2023), whatever a game played from it ended in.
                _ if board.ply() == 0 => (0, LabelKind::Exact),
                Some((empties, value)) if board.empties() >= u32::from(empties) => {
                    (i32::from(value), LabelKind::Theoretical)
                }
                _ => (result, LabelKind::Result),
            };
            if board.empties() <= solve_empties {
                if let Some(solver) = solver.as_deref_mut() {
                    if let Some(value) = solver.search(&mut board, -Discs::MAX, Discs::MAX, &stop) {
                        black_label = if board.side_to_move() == Color::Black {
                            value.get()
                        } else {
                            -value.get()
                        };
                        kind = LabelKind::Exact;
                    }
                }
            }
            let side = board.side_to_move();
            let label = if side == Color::Black {
                black_label
            } else {
                -black_label
            };
            out.push(Labelled {
                black: board.discs(Color::Black),
                white: board.discs(Color::White),
                side,
                label: label.clamp(-64, 64) as i8,
                kind,
                game_start: out.len() == first,
            });
        }
        if board.play(mv).is_err() {
            return;
        }
    }
}

/// Replaces every result label by the exact value of the first exactly solved position that
/// follows it in its game (when there is one), side to move's view. A game's final result
/// also counts the mistakes made after that position; the solved value does not, so it is
/// the closer estimate of the earlier position's own value (the same reasoning that makes
/// WTHOR's theoretical score the better label before 24 empties).
pub fn relabel_results_by_solved(positions: &mut [Labelled]) {
    let mut start = 0;
    while start < positions.len() {
        let end = (start + 1..positions.len())
            .find(|&i| positions[i].game_start)
            .unwrap_or(positions.len());
        let game = &mut positions[start..end];
        let solved = game
            .iter()
            .position(|p| p.kind == LabelKind::Exact && p.empties() < 60);
        if let Some(solved) = solved {
            let black_value = game[solved].black_label();
            for position in &mut game[..solved] {
                if position.kind == LabelKind::Result {
                    position.set_black_label(black_value);
                }
            }
        }
        start = end;
    }
}

/// Search values of `positions` (bootstrapped labels): for each position whose label is not
/// exact, the value of a `depth`-ply midgame search with `eval` (the weights and their
/// selective search), in whole discs for the side to move; an exact label is returned as it is.
///
/// Each game's positions are searched in order with the table cleared at the game's first
/// position (a 1 MiB table: the positions of one game share entries), so the values depend
/// only on the positions and the depth, not on how the work is cut into `threads` chunks.
/// `progress(done)` is called from the first chunk now and then with its own count.
pub fn search_values(
    positions: &[Labelled],
    depth: u32,
    threads: usize,
    eval: &EvalBundle,
    progress: impl Fn(usize) + Sync,
) -> Vec<i8> {
    // Chunks start at game boundaries so that every chunk's first position clears the table
    // as the game start would; map_chunks cuts by count, so cut by games here.
    let starts: Vec<usize> = (0..positions.len())
        .filter(|&i| positions[i].game_start || i == 0)
        .collect();
    let games: Vec<(usize, usize)> = starts
        .iter()
        .enumerate()
        .map(|(k, &start)| (start, starts.get(k + 1).copied().unwrap_or(positions.len())))
        .collect();
    let limits = SearchLimits::midgame(depth);
    map_chunks(&games, threads, |chunk, games| {
        let mut search = Search::new(
            SearchConfig::new(2, 1)
                .expect("a fixed table and one thread are in range")
                .with_eval(eval.clone()),
        );
        let stop = AtomicBool::new(false);
        let mut out = Vec::new();
        for &(start, end) in games {
            search.clear();
            for position in &positions[start..end] {
                let value = match position.board() {
                    Some(board) if position.kind != LabelKind::Exact => {
                        let result = search.iterate(&board, &limits, &stop, &mut |_| {});
                        result.score.discs().round().clamp(-64.0, 64.0) as i8
                    }
                    _ => position.label,
                };
                out.push(value);
            }
            if chunk == 0 {
                progress(out.len());
            }
        }
        out
    })
    .concat()
}

/// The description of the [`search_values`] of `count` training positions at `depth` plies,
/// as their cache records it (`tsuru train --search-cache`, `tsuru label`): the positions'
/// own description, the depth, the checksum of the weights `eval` that search (so values made
/// with other weights are not taken for these) and the count.
pub fn search_values_description(
    positions: &str,
    depth: u32,
    count: usize,
    eval: &EvalBundle,
) -> String {
    let weights = eval
        .weights_id()
        .map_or("v1".to_string(), |id| id.to_string());
    format!(
        "{positions} | search depth {depth} with weights {weights} | {count} training positions"
    )
}

/// Whether `board`, a position of `game`, is a training sample ([`label_game`] labels it):
/// after the game's excluded opening, with a move for the side to move.
fn is_sample(game: &Game, board: &Board) -> bool {
    board.ply() >= game.first_sample && !board.is_game_over() && !board.must_pass()
}

/// The recorded search scores of the positions `label_game` makes of `games` (in the same
/// order, one for each: the position's [`Game::recorded`] score, `None` where its game
/// records none for it).
pub fn recorded_values(games: &[Game]) -> Vec<Option<i8>> {
    let mut out = Vec::new();
    for game in games {
        let mut board = Board::start();
        for (ply, &mv) in game.moves.iter().enumerate() {
            if is_sample(game, &board) {
                out.push(game.recorded.get(ply).copied().flatten());
            }
            if board.play(mv).is_err() {
                break;
            }
        }
    }
    out
}

/// Puts the recorded search scores in place of the search values (`values`, one a
/// position, as [`search_values`] gives them) of the positions that have one and whose
/// label is not exact: the players' own deeper searches instead of a shallow one made now.
/// Returns, for each position, whether it took its recorded score.
pub fn use_recorded_values(
    positions: &[Labelled],
    recorded: &[Option<i8>],
    values: &mut [i8],
) -> Vec<bool> {
    positions
        .iter()
        .zip(recorded)
        .zip(values)
        .map(|((position, &score), value)| {
            match score.filter(|_| position.kind != LabelKind::Exact) {
                Some(score) => {
                    *value = score;
                    true
                }
                None => false,
            }
        })
        .collect()
}

/// Blends search values into the labels: every label that is not exact becomes
/// `w * search + (1 - w) * label`, rounded to whole discs, where `w` is `weight(i, position)`
/// for the `i`-th position.
pub fn blend_search_labels(
    positions: &mut [Labelled],
    values: &[i8],
    weight: impl Fn(usize, &Labelled) -> f32,
) {
    for (i, (position, &value)) in positions.iter_mut().zip(values).enumerate() {
        if position.kind != LabelKind::Exact {
            let w = weight(i, position);
            let blended = w * f32::from(value) + (1.0 - w) * f32::from(position.label);
            position.label = blended.round().clamp(-64.0, 64.0) as i8;
        }
    }
}

/// A blend weight that depends on a position's empty squares: linear between given points
/// `(empties, weight)`, the first point's weight below it and the last's above it. Written
/// `W` (one weight for every position) or `E:W,E:W,..` with the empties increasing.
#[derive(Clone, Debug, PartialEq)]
pub struct WeightByEmpties {
    points: Vec<(u32, f32)>,
}

impl WeightByEmpties {
    /// The same weight at every number of empties.
    pub fn constant(weight: f32) -> Self {
        WeightByEmpties {
            points: vec![(0, weight)],
        }
    }

    /// Parses `W` or `E:W,E:W,..`: each weight 0..1, each empties 0..60 and above the one
    /// before.
    pub fn parse(text: &str) -> Result<Self, String> {
        let weight = |w: &str| -> Result<f32, String> {
            match w.trim().parse::<f32>() {
                Ok(w) if (0.0..=1.0).contains(&w) => Ok(w),
                _ => Err(format!("a weight is a number 0..1, not {w:?}")),
            }
        };
        if !text.contains(':') {
            return Ok(Self::constant(weight(text)?));
        }
        let mut points: Vec<(u32, f32)> = Vec::new();
        for point in text.split(',') {
            let (empties, w) = point
                .split_once(':')
                .ok_or_else(|| format!("{point:?} is not EMPTIES:WEIGHT"))?;
            let empties = match empties.trim().parse::<u32>() {
                Ok(e) if e <= 60 => e,
                _ => return Err(format!("empties are 0..60, not {empties:?}")),
            };
            if points.last().is_some_and(|&(before, _)| before >= empties) {
                return Err(format!("the empties must increase: {text:?}"));
            }
            points.push((empties, weight(w)?));
        }
        Ok(WeightByEmpties { points })
    }

    /// The weight at `empties`.
    pub fn at(&self, empties: u32) -> f32 {
        let (first, last) = (self.points[0], self.points[self.points.len() - 1]);
        if empties <= first.0 {
            return first.1;
        }
        if empties >= last.0 {
            return last.1;
        }
        let after = self
            .points
            .iter()
            .position(|&(e, _)| e >= empties)
            .expect("inside");
        let ((e0, w0), (e1, w1)) = (self.points[after - 1], self.points[after]);
        w0 + (w1 - w0) * (empties - e0) as f32 / (e1 - e0) as f32
    }
}

impl std::fmt::Display for WeightByEmpties {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.points.as_slice() {
            [(_, w)] => write!(f, "{w}"),
            points => {
                let text: Vec<String> = points.iter().map(|(e, w)| format!("{e}:{w}")).collect();
                write!(f, "{}", text.join(","))
            }
        }
    }
}

/// Whether a position with `empties` empty squares trains stage `stage` of `stages` when
/// each stage also takes the positions up to `window` plies beyond its own (0: only its own).
/// A window gives a stage's rare pattern entries more samples from the neighbouring plies.
pub fn trains_stage(empties: u32, stage: usize, stages: usize, window: u32) -> bool {
    let low = stage_of(empties.saturating_add(window).min(60), stages);
    let high = stage_of(empties.saturating_sub(window), stages);
    (low..=high).contains(&stage)
}

/// The training samples of `stage` among `positions` (see [`trains_stage`]), in order.
pub fn stage_samples(
    positions: &[Labelled],
    stage: usize,
    stages: usize,
    window: u32,
) -> Vec<Sample> {
    positions
        .iter()
        .filter(|p| trains_stage(p.empties(), stage, stages, window))
        .filter_map(sample_of)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsuru_core::board::{Move, Square};

    fn game(moves: &str, black_diff: i8, theoretical: Option<(u8, i8)>) -> Game {
        let mut board = Board::start();
        let mut list = Vec::new();
        for chunk in moves.as_bytes().chunks(2) {
            let mv: Move = std::str::from_utf8(chunk).unwrap().parse().unwrap();
            board.play(mv).unwrap();
            list.push(mv);
        }
        Game {
            moves: list,
            black_diff,
            theoretical,
            first_sample: 0,
            recorded: Vec::new(),
        }
    }

    #[test]
    fn labels_follow_the_side_to_move_and_the_best_source() {
        let game = game("f5d6c3d3c4", 10, Some((57, -4)));
        let mut out = Vec::new();
        label_game(&game, 0, None, &mut out);
        assert_eq!(out.len(), 5);
        // The start position is a draw; 59 to 57 empties carry the theoretical -4 (Black's
        // view); 56 empties the result +10.
        let labels: Vec<i8> = out.iter().map(|p| p.label).collect();
        assert_eq!(labels, vec![0, 4, -4, 4, 10]);
        assert_eq!(out[1].side, Color::White);
        assert_eq!(out[3].empties(), 57);
        let board = out[3].board().unwrap();
        assert_eq!(board.side_to_move(), Color::White);
        assert_eq!(board.empties(), 57);
    }

    #[test]
    fn solved_labels_are_exact() {
        // A whole game (always the lowest legal square) recorded with a wrong result: the
        // positions with 10 or fewer empties get their exact value instead.
        let game = lowest_square_game();
        let mut solver = EndgameSolver::new(&tsuru_core::search::SearchConfig::new(1, 1).unwrap());
        let mut out = Vec::new();
        label_game(&game, 10, Some(&mut solver), &mut out);
        let stop = AtomicBool::new(false);
        // The start position is a draw whatever the record says.
        assert_eq!(out[0].label, 0);
        let mut solved = 0;
        for position in &out[1..] {
            let mut board = position.board().unwrap();
            if position.empties() <= 10 {
                let value =
                    EndgameSolver::new(&tsuru_core::search::SearchConfig::new(1, 1).unwrap())
                        .search(&mut board, -Discs::MAX, Discs::MAX, &stop)
                        .unwrap();
                assert_eq!(i32::from(position.label), value.get());
                solved += 1;
            } else {
                let black = if position.side == Color::Black {
                    64
                } else {
                    -64
                };
                assert_eq!(i32::from(position.label), black);
            }
        }
        assert!(solved >= 8, "{solved} solved positions");
    }

    #[test]
    fn result_labels_can_take_the_first_solved_value_of_their_game() {
        // The same game twice: in the first copy its last two positions are marked solved
        // (+6 and +7 for Black), the second copy has no solved position.
        let game = game("f5d6c3d3c4f4f6", 20, None);
        let mut out = Vec::new();
        label_game(&game, 0, None, &mut out);
        label_game(&game, 0, None, &mut out);
        assert_eq!(out.len(), 14);
        assert!(out[0].game_start && out[7].game_start);
        assert_eq!(out.iter().filter(|p| p.game_start).count(), 2);
        out[5].kind = LabelKind::Exact;
        out[5].set_black_label(6);
        out[6].kind = LabelKind::Exact;
        out[6].set_black_label(7);
        let before = out.clone();
        relabel_results_by_solved(&mut out);
        // The start position keeps its draw; plies 1-4 take the solved +6 (Black's view).
        assert_eq!(out[0], before[0]);
        for position in &out[1..5] {
            assert_eq!(position.black_label(), 6);
            assert_eq!(position.kind, LabelKind::Result);
        }
        assert_eq!(
            out[5..],
            before[5..],
            "solved positions and the unsolved game stay"
        );
        assert_eq!(out[8].black_label(), 20);
    }

    #[test]
    fn windows_widen_a_stage_by_plies() {
        // 15 stages of 4 plies: stage 11 holds plies 44..=47, that is 16..=13 empties.
        let own: Vec<u32> = (0..=60).filter(|&e| trains_stage(e, 11, 15, 0)).collect();
        assert_eq!(own, vec![13, 14, 15, 16]);
        let wide: Vec<u32> = (0..=60).filter(|&e| trains_stage(e, 11, 15, 2)).collect();
        assert_eq!(wide, vec![11, 12, 13, 14, 15, 16, 17, 18]);
        // Every position trains its own stage whatever the window.
        for empties in 0..=60 {
            let own = stage_of(empties, 15);
            assert!(trains_stage(empties, own, 15, 3));
        }
    }

    /// A whole game that always plays the lowest legal square, recorded with a wrong result
    /// (Black +64).
    fn lowest_square_game() -> Game {
        let mut board = Board::start();
        let mut moves = Vec::new();
        while !board.is_game_over() {
            let mv = if board.must_pass() {
                Move::Pass
            } else {
                Move::Play(Square::from_lowest_bit(board.legal_moves()))
            };
            board.play(mv).unwrap();
            moves.push(mv);
        }
        Game {
            moves,
            black_diff: 64,
            theoretical: None,
            first_sample: 0,
            recorded: Vec::new(),
        }
    }

    /// The positions of [`lowest_square_game`], as labelled by `label_game` without solving.
    fn lowest_square_positions() -> Vec<Labelled> {
        let mut out = Vec::new();
        label_game(&lowest_square_game(), 0, None, &mut out);
        out
    }

    #[test]
    fn search_values_are_exact_where_the_depth_reaches_the_end() {
        // At 6 plies, positions with 6 or fewer empties are searched to the end: their value
        // is the exact one. Exact labels (the start position) come back unchanged.
        let positions = lowest_square_positions();
        let values = search_values(&positions, 6, 1, &EvalBundle::shipped(), |_| {});
        assert_eq!(values.len(), positions.len());
        assert_eq!(positions[0].kind, LabelKind::Exact);
        assert_eq!(values[0], positions[0].label);
        let stop = AtomicBool::new(false);
        let mut checked = 0;
        for (position, &value) in positions.iter().zip(&values) {
            if position.empties() <= 6 {
                let mut board = position.board().unwrap();
                let exact =
                    EndgameSolver::new(&tsuru_core::search::SearchConfig::new(1, 1).unwrap())
                        .search(&mut board, -Discs::MAX, Discs::MAX, &stop)
                        .unwrap();
                assert_eq!(
                    i32::from(value),
                    exact.get(),
                    "at {} empties",
                    position.empties()
                );
                checked += 1;
            }
        }
        assert!(checked >= 4, "{checked} positions checked");
    }

    #[test]
    fn search_values_do_not_depend_on_the_thread_count() {
        // Two games: cut into two chunks or one, each game is searched from a clear table.
        let mut positions = lowest_square_positions();
        positions.extend(lowest_square_positions());
        let one = search_values(&positions, 3, 1, &EvalBundle::shipped(), |_| {});
        let two = search_values(&positions, 3, 2, &EvalBundle::shipped(), |_| {});
        assert_eq!(one, two);
        let half = positions.len() / 2;
        assert_eq!(
            one[..half],
            one[half..],
            "the same game gives the same values"
        );
    }

    #[test]
    fn blending_mixes_search_values_into_labels_that_are_not_exact() {
        let mut positions = lowest_square_positions()[..3].to_vec();
        positions[1].label = 10;
        positions[2].label = -3;
        let start_label = positions[0].label;
        // Weight 0.25: 0.25 * 30 + 0.75 * 10 = 15; 0.25 * 4 + 0.75 * -3 = -1.25 -> -1.
        blend_search_labels(&mut positions, &[50, 30, 4], |_, _| 0.25);
        assert_eq!(positions[0].label, start_label, "the exact start stays");
        assert_eq!(positions[1].label, 15);
        assert_eq!(positions[2].label, -1);
    }

    #[test]
    fn blending_takes_each_positions_own_weight() {
        let mut positions = lowest_square_positions()[..3].to_vec();
        positions[1].label = 10;
        positions[2].label = -3;
        // Position 1 weight 1 (the search alone), position 2 weight 0 (the label alone).
        blend_search_labels(
            &mut positions,
            &[50, 30, 4],
            |i, _| if i == 1 { 1.0 } else { 0.0 },
        );
        assert_eq!((positions[1].label, positions[2].label), (30, -3));
    }

    #[test]
    fn weights_by_empties_interpolate_between_their_points() {
        let curve = WeightByEmpties::parse("20:0,30:0.5,40:0.9").unwrap();
        assert_eq!(curve.at(0), 0.0);
        assert_eq!(curve.at(20), 0.0);
        assert_eq!(curve.at(25), 0.25);
        assert_eq!(curve.at(30), 0.5);
        assert!((curve.at(35) - 0.7).abs() < 1e-6);
        assert_eq!(curve.at(40), 0.9);
        assert_eq!(curve.at(60), 0.9);
        assert_eq!(curve.to_string(), "20:0,30:0.5,40:0.9");
        assert_eq!(WeightByEmpties::parse(&curve.to_string()).unwrap(), curve);
        let constant = WeightByEmpties::parse("0.75").unwrap();
        assert_eq!((constant.at(0), constant.at(60)), (0.75, 0.75));
        assert_eq!(constant, WeightByEmpties::constant(0.75));
        assert_eq!(constant.to_string(), "0.75");
        // "20" is read as a constant weight, out of 0..1.
        for bad in [
            "1.5",
            "-0.1",
            "x",
            "20",
            "30:0.5,20:0.1",
            "30:0.5,30:0.6",
            "61:0.5",
            "20:",
        ] {
            assert!(WeightByEmpties::parse(bad).is_err(), "{bad:?} is refused");
        }
    }
}
