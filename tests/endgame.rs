//! The exact endgame solver against known truth: plain minimax on small positions, the FFO
//! suite's exact scores, symmetry, and stopping.

mod common;

use common::positions::{minimax, random_position, score_of_final};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tsuru_core::search::SearchConfig;

use tsuru_core::board::{notation, Move, Symmetry};
use tsuru_core::formats::obf;
use tsuru_core::rng::Rng;
use tsuru_core::score::Discs;
use tsuru_core::search::endgame::{
    EndgameSolver, SolveMode, SELECTIVE_LEVELS, SELECTIVE_ROOT_EMPTIES,
};

#[test]
fn solver_equals_minimax_on_small_positions() {
    let mut rng = Rng::new(11);
    let mut solver = EndgameSolver::new(&SearchConfig::new(4, 1).unwrap());
    let stop = AtomicBool::new(false);
    let (mut passes, mut finished) = (0, 0);
    for i in 0..260 {
        // Every 20th game is played out to its end, so finished positions are covered too.
        let empties = match i {
            _ if i % 20 == 0 => 0,
            _ if i < 240 => 1 + (i % 9),
            _ => 10,
        };
        let mut board = random_position(&mut rng, empties);
        passes += usize::from(board.must_pass());
        finished += usize::from(board.is_game_over());
        let expected = minimax(&mut board.clone());

        let value = solver
            .search(&mut board, -Discs::MAX, Discs::MAX, &stop)
            .unwrap();
        assert_eq!(value, expected, "{board:?}");
        let wld = solver
            .search(&mut board, Discs::new(-1), Discs::new(1), &stop)
            .unwrap();
        assert_eq!(wld.signum(), expected.signum(), "{board:?}");

        let solution = solver.solve(&mut board, SolveMode::Exact, &stop).unwrap();
        assert_eq!(solution.score, expected, "{board:?}");
        if !board.is_game_over() {
            // The best move achieves the score, and the PV, replayed, ends the game with it.
            let mut child = board.clone();
            child.play(solution.best).unwrap();
            assert_eq!(-minimax(&mut child), expected, "{board:?}");
            assert_eq!(solution.pv[0], solution.best);
            assert_eq!(score_of_final(&board, &solution.pv), expected);
        }
        let wld = solver
            .solve(&mut board, SolveMode::WinLossDraw, &stop)
            .unwrap();
        assert_eq!(wld.score, expected.signum(), "{board:?}");
        let all = solver
            .solve_all(&mut board, SolveMode::Exact, &stop)
            .unwrap();
        if !board.is_game_over() {
            assert_eq!(all[0].1, expected);
            assert!(all.windows(2).all(|w| w[0].1 >= w[1].1));
        }
        // The board is untouched by every call.
        board.check_invariants().unwrap();
        assert_eq!(board.ply(), 0);
    }
    assert!(passes > 0, "no pass position was tested");
    assert!(finished > 0, "no finished position was tested");
}

fn check_ffo(file: &str) {
    let path = format!("{}/tests/fixtures/{file}", env!("CARGO_MANIFEST_DIR"));
    let positions = obf::parse_file(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut solver = EndgameSolver::new(&SearchConfig::new(64, 1).unwrap());
    let stop = AtomicBool::new(false);
    for (i, position) in positions.iter().enumerate() {
        let mut board = position.board.clone();
        let solution = solver.solve(&mut board, SolveMode::Exact, &stop).unwrap();
        assert_eq!(Some(solution.score), position.best_score(), "{file} #{i}");
        assert!(
            position.best_moves().contains(&solution.best),
            "{file} #{i}: {} not among {:?}",
            solution.best,
            position.best_moves()
        );
        assert_eq!(
            score_of_final(&position.board, &solution.pv),
            solution.score
        );
    }
}

#[test]
fn ffo_1_to_19_are_solved_exactly() {
    check_ffo("fforum-1-19.obf");
}

/// About 10 s in release on this 2-core machine (135 M nodes).
#[test]
fn ffo_20_to_39_are_solved_exactly() {
    check_ffo("fforum-20-39.obf");
}

/// The balanced validation set (positions of tsuru-NTest games at 24 empties, made by
/// `tsuru decided --positions-out`): every position has 24 empties, the values are balanced
/// (most within a few discs), and a spread sample of them is confirmed by the solver.
#[test]
fn balanced_validation_values_are_exact() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/eval-validation-balanced.txt"
    );
    let positions = tsuru_core::formats::validation::read(std::path::Path::new(path)).unwrap();
    assert_eq!(positions.len(), 400);
    assert!(positions.iter().all(|(board, _)| board.empties() == 24));
    let close = positions
        .iter()
        .filter(|(_, score)| score.get().abs() <= 6)
        .count();
    assert!(close >= 300, "{close} of 400 within 6 discs");
    let mut solver = EndgameSolver::new(&SearchConfig::new(64, 1).unwrap());
    let stop = AtomicBool::new(false);
    for (board, score) in positions.iter().step_by(199) {
        let solution = solver
            .solve(&mut board.clone(), SolveMode::Exact, &stop)
            .unwrap();
        assert_eq!(solution.score, *score, "{board:?}");
    }
}

#[test]
fn exact_scores_are_the_same_on_all_symmetries() {
    let mut rng = Rng::new(17);
    let mut solver = EndgameSolver::new(&SearchConfig::new(16, 1).unwrap());
    let stop = AtomicBool::new(false);
    for empties in [12, 13, 14, 15, 16] {
        let board = random_position(&mut rng, empties);
        let expected = solver
            .search(&mut board.clone(), -Discs::MAX, Discs::MAX, &stop)
            .unwrap();
        for symmetry in Symmetry::ALL {
            solver.clear();
            let mut image = board.transformed(symmetry);
            assert_eq!(
                solver.search(&mut image, -Discs::MAX, Discs::MAX, &stop),
                Some(expected),
                "{board:?} under {symmetry:?}"
            );
        }
    }
}

#[test]
fn a_stopped_solve_returns_none_and_leaves_the_board_unchanged() {
    // 26 empties from random play: far too big to solve in the 20 ms before the stop.
    let mut rng = Rng::new(23);
    let board = random_position(&mut rng, 26);
    let stop = Arc::new(AtomicBool::new(false));
    let raiser = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            stop.store(true, Ordering::SeqCst);
        })
    };
    let mut solver = EndgameSolver::new(&SearchConfig::new(16, 1).unwrap());
    let mut work = board.clone();
    let outcome = solver.solve(&mut work, SolveMode::Exact, &*stop);
    raiser.join().unwrap();
    assert_eq!(outcome, None);
    assert_eq!(work, board);
    assert_eq!(work.ply(), 0);
    work.check_invariants().unwrap();
    assert_eq!(
        notation::board_to_string(&work),
        notation::board_to_string(&board)
    );
}

#[test]
fn selective_passes_precede_the_exact_solve_of_a_large_root() {
    // FFO #40: Black to move with 20 empties; A2 wins by 38.
    let path = format!(
        "{}/tests/fixtures/fforum-40-59.obf",
        env!("CARGO_MANIFEST_DIR")
    );
    let positions = obf::parse_file(&std::fs::read_to_string(path).unwrap()).unwrap();
    let position = &positions[0];
    assert_eq!(position.board.empties(), 20);
    let mut board = position.board.clone();
    let mut solver = EndgameSolver::new(&SearchConfig::new(16, 1).unwrap());
    let stop = AtomicBool::new(false);
    let mut passes = Vec::new();
    let solution = solver
        .solve_reporting(&mut board, SolveMode::Exact, &stop, &mut |pass| {
            passes.push(pass.clone())
        })
        .unwrap();
    let percents: Vec<u8> = passes.iter().map(|p| p.percent).collect();
    let expected: Vec<u8> = SELECTIVE_LEVELS.iter().map(|l| l.1).collect();
    assert_eq!(percents, expected);
    for pass in &passes {
        let Move::Play(square) = pass.solution.best else {
            panic!("a pass move where moves are legal")
        };
        assert!(position.board.is_legal(Move::Play(square)));
        // A selective value is a probable one: it stays within a few discs of the truth here.
        assert!((pass.solution.score.get() - 38).abs() <= 8, "{pass:?}");
    }
    assert!(passes
        .windows(2)
        .all(|w| w[0].solution.nodes <= w[1].solution.nodes));
    assert!(passes.last().unwrap().solution.nodes < solution.nodes);
    assert_eq!(solution.score, Discs::new(38));
    assert_eq!(solution.best, "a2".parse().unwrap());
    assert_eq!(
        score_of_final(&position.board, &solution.pv),
        Discs::new(38)
    );
    assert_eq!(board, position.board);

    // Below the threshold the solve is exact at once.
    let mut rng = Rng::new(5);
    let mut small = random_position(&mut rng, SELECTIVE_ROOT_EMPTIES - 1);
    let mut reported = 0;
    solver
        .solve_reporting(&mut small, SolveMode::Exact, &stop, &mut |_| reported += 1)
        .unwrap();
    assert_eq!(reported, 0);
}

#[test]
fn a_node_limit_stops_a_solve_at_the_next_poll() {
    use tsuru_core::search::stop::StopCheck;
    let board = random_position(&mut Rng::new(29), 24);
    let flag = AtomicBool::new(false);
    let mut solver = EndgameSolver::new(&SearchConfig::new(16, 1).unwrap());
    let limit = 50_000;
    let check = StopCheck::new(&flag).with_node_limit(limit);
    let outcome = solver.solve(&mut board.clone(), SolveMode::Exact, check);
    assert_eq!(outcome, None);
    // Polled every few thousand nodes (selective passes' shallow searches run in between).
    assert!(
        (limit..limit + 40_000).contains(&solver.nodes()),
        "{}",
        solver.nodes()
    );
    // The same solver with the flag alone goes on to the exact score.
    solver.reset_nodes();
    let solution = solver
        .solve(&mut board.clone(), SolveMode::Exact, &flag)
        .unwrap();
    assert!(solver.nodes() > limit + 40_000, "{}", solver.nodes());
    assert_eq!(
        solution.score,
        solver
            .search(&mut board.clone(), -Discs::MAX, Discs::MAX, &flag)
            .unwrap()
    );
}
