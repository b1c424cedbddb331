//! The parallel solver (issue 20): on several threads its exact scores are one thread's and
//! its win/loss/draw results agree in sign. (The table's integrity under concurrent writes is
//! tested beside the table, `search::tt`.)

mod common;

use std::sync::atomic::AtomicBool;

use common::positions::random_position;
use tsuru::board::{Board, Move};
use tsuru::formats::obf;
use tsuru::rng::Rng;
use tsuru::search::endgame::{EndgameSolver, SolveMode, PARALLEL_MIN_EMPTIES};

/// A solver on `threads` threads.
fn solver(threads: usize) -> EndgameSolver {
    let mut solver = EndgameSolver::new(64);
    solver.set_threads(threads);
    solver
}

/// The final disc difference for the side to move after playing `pv` out.
fn score_of_final(board: &Board, pv: &[Move]) -> i32 {
    let mut replay = board.clone();
    let me = replay.side_to_move();
    for &mv in pv {
        replay.play(mv).unwrap();
    }
    assert!(replay.is_game_over(), "PV {pv:?} does not end the game");
    replay.final_score(me)
}

#[test]
fn parallel_solves_equal_one_thread_on_ffo_1_to_19() {
    let path = format!(
        "{}/tests/fixtures/fforum-1-19.obf",
        env!("CARGO_MANIFEST_DIR")
    );
    let positions = obf::parse_file(&std::fs::read_to_string(path).unwrap()).unwrap();
    // Every position is big enough to be solved on all threads.
    assert!(positions
        .iter()
        .all(|p| p.board.empties() >= PARALLEL_MIN_EMPTIES));
    let stop = AtomicBool::new(false);
    let mut one = solver(1);
    for threads in [2, 4] {
        let mut many = solver(threads);
        for (i, position) in positions.iter().enumerate() {
            let number = i + 1;
            let expected = one
                .solve(&mut position.board.clone(), SolveMode::Exact, &stop)
                .unwrap();
            let mut board = position.board.clone();
            let solution = many.solve(&mut board, SolveMode::Exact, &stop).unwrap();
            assert_eq!(board, position.board, "#{number}: the board is restored");
            assert_eq!(solution.score, expected.score, "#{number} on {threads}");
            assert_eq!(Some(solution.score), position.best_score(), "#{number}");
            assert!(
                position.best_moves().contains(&solution.best),
                "#{number} on {threads}: {} not among {:?}",
                solution.best,
                position.best_moves()
            );
            assert_eq!(
                score_of_final(&position.board, &solution.pv),
                solution.score
            );
        }
    }
}

#[test]
fn parallel_solves_equal_one_thread_on_random_positions() {
    let mut rng = Rng::new(2020);
    let stop = AtomicBool::new(false);
    let mut one = solver(1);
    let mut many = [solver(2), solver(4)];
    for empties in 14..=20 {
        for _ in 0..2 {
            let board = random_position(&mut rng, empties);
            let exact = one
                .solve(&mut board.clone(), SolveMode::Exact, &stop)
                .unwrap();
            for solver in &mut many {
                let solution = solver
                    .solve(&mut board.clone(), SolveMode::Exact, &stop)
                    .unwrap();
                assert_eq!(solution.score, exact.score, "{board:?}");
                assert_eq!(score_of_final(&board, &solution.pv), solution.score);
                let wld = solver
                    .solve(&mut board.clone(), SolveMode::WinLossDraw, &stop)
                    .unwrap();
                assert_eq!(wld.score, exact.score.signum(), "{board:?}");
            }
        }
    }
}

#[test]
fn every_move_is_valued_as_one_thread_values_it() {
    // The multi-PV solve (`solve_all`, behind NBoard's `hint N` in the endgame) shares the
    // root moves among the threads: the same list, in the same order.
    let mut rng = Rng::new(31);
    let stop = AtomicBool::new(false);
    let mut one = solver(1);
    let mut many = solver(4);
    for empties in [14, 16, 18] {
        let board = random_position(&mut rng, empties);
        for mode in [SolveMode::Exact, SolveMode::WinLossDraw] {
            let expected = one.solve_all(&mut board.clone(), mode, &stop).unwrap();
            let mut work = board.clone();
            assert_eq!(many.solve_all(&mut work, mode, &stop), Some(expected));
            assert_eq!(work, board);
        }
    }
}
