//! The parallel search (issue 20): on several threads the solver's exact scores are one
//! thread's (and the fixtures' on roots with selective passes) and its win/loss/draw results
//! agree in sign, the full-width midgame search's
//! root scores are one thread's; a parallel search stops promptly
//! with a legal move, and no thread outlives it. (The table's integrity under concurrent
//! writes is tested beside the table, `search::tt`.)

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tsuru_core::search::SearchConfig;

use common::positions::{random_position, score_of_final};
use common::{Engine, TIMEOUT};
use tsuru_core::formats::obf;
use tsuru_core::rng::Rng;
use tsuru_core::score::Score;
use tsuru_core::search::endgame::{
    EndgameSolver, SolveMode, PARALLEL_MIN_EMPTIES, SELECTIVE_ROOT_EMPTIES,
};
use tsuru_core::search::{Level, Search, SearchLimits};

/// A solver on `threads` threads.
fn solver(threads: usize) -> EndgameSolver {
    EndgameSolver::new(&SearchConfig::new(64, threads).unwrap())
}

#[test]
fn parallel_solves_equal_one_thread_on_ffo_1_to_19() {
    let path = format!(
        "{}/tests/fixtures/fforum-1-19.obf",
        env!("CARGO_MANIFEST_DIR")
    );
    let positions = obf::parse_file(&std::fs::read_to_string(path).unwrap()).unwrap();
    // #13-#19 (16 empties) are big enough to be split among the threads; the smaller ones
    // are solved by one thread whatever the count.
    let parallel = positions
        .iter()
        .filter(|p| p.board.empties() >= PARALLEL_MIN_EMPTIES)
        .count();
    assert_eq!(parallel, 7);
    // #13-#19 take a few milliseconds: on a loaded machine a helper thread may not be
    // scheduled before they are solved. The first two positions of 22 or more empties in
    // the FFO #20-#39 fixture give the helpers work to take whatever the load (the
    // assertion at the end).
    let more = format!(
        "{}/tests/fixtures/fforum-20-39.obf",
        env!("CARGO_MANIFEST_DIR")
    );
    let more = obf::parse_file(&std::fs::read_to_string(more).unwrap()).unwrap();
    let positions: Vec<_> = positions
        .into_iter()
        .chain(more.into_iter().filter(|p| p.board.empties() >= 22).take(2))
        .collect();
    let stop = AtomicBool::new(false);
    let mut one = solver(1);
    for threads in [2, 4] {
        let mut many = solver(threads);
        let mut helper_nodes = 0;
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
            let counts = many.progress();
            helper_nodes += (1..threads).map(|t| counts.get(t)).sum::<u64>();
        }
        // The helpers took moves at split points (their counts are published as they poll).
        assert!(helper_nodes > 0, "no helper searched on {threads} threads");
    }
}

/// The first six roots of FFO #20-#39 with selective passes (19 and 20 empties), solved
/// after the passes with the first pass's guess: on 2 and 4 threads the answers are the
/// fixture's.
#[test]
fn parallel_solves_of_ffo_20_to_39_after_selective_passes_are_exact() {
    let path = format!(
        "{}/tests/fixtures/fforum-20-39.obf",
        env!("CARGO_MANIFEST_DIR")
    );
    let positions = obf::parse_file(&std::fs::read_to_string(path).unwrap()).unwrap();
    let stop = AtomicBool::new(false);
    for threads in [2, 4] {
        let mut many = solver(threads);
        let selective = positions
            .iter()
            .enumerate()
            .filter(|(_, p)| p.board.empties() >= SELECTIVE_ROOT_EMPTIES)
            .take(6);
        for (i, position) in selective {
            let number = i + 20;
            let mut board = position.board.clone();
            let solution = many.solve(&mut board, SolveMode::Exact, &stop).unwrap();
            assert_eq!(board, position.board, "#{number}: the board is restored");
            assert_eq!(
                Some(solution.score),
                position.best_score(),
                "#{number} on {threads}"
            );
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
    // From 14 empties (one thread) to 20 (split among the threads, after selective passes).
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

#[test]
fn parallel_full_width_midgame_searches_value_the_root_as_one_thread_does() {
    // Without Multi-ProbCut the table cuts only on entries of the node's own depth, so the
    // root's score is the exact minimax value at the depth, whatever the threads share:
    // split points (Young Brothers Wait) must give the same score as one thread.
    let mut rng = Rng::new(404);
    let stop = AtomicBool::new(false);
    let mut one = Search::new(
        SearchConfig::new(16, 1)
            .unwrap()
            .with_selectivity(None)
            .unwrap(),
    );
    let mut many: Vec<(usize, Search)> = [2, 4]
        .into_iter()
        .map(|threads| {
            let config = SearchConfig::new(16, threads).unwrap();
            (threads, Search::new(config.with_selectivity(None).unwrap()))
        })
        .collect();
    let mut helper_nodes = [0u64; 2];
    // The last, deeper search gives the helpers work to take even on a loaded machine, where
    // a helper thread may not be scheduled before a search of a few milliseconds ends.
    for (empties, depth) in [(44, 6), (40, 7), (36, 6), (32, 7), (28, 6), (40, 9)] {
        for _ in 0..2 {
            let board = random_position(&mut rng, empties);
            if board.is_game_over() {
                continue;
            }
            let limits = SearchLimits {
                depth: Some(depth),
                exact_empties: 0,
                wld_empties: 0,
                ..SearchLimits::default()
            };
            let expected = one.iterate(&board, &limits, &stop, &mut |_| {});
            for (k, (threads, search)) in many.iter_mut().enumerate() {
                search.clear();
                let result = search.iterate(&board, &limits, &stop, &mut |_| {});
                assert!(result.completed);
                assert_eq!(
                    result.score, expected.score,
                    "{board:?} on {threads} threads"
                );
                assert!(board.is_legal(result.best), "{:?}", result.best);
                assert_eq!(result.pv.first(), Some(&result.best));
                let counts = search.progress();
                helper_nodes[k] += (1..*threads).map(|t| counts.get(t)).sum::<u64>();
            }
        }
    }
    // The helpers took moves at split points.
    assert!(helper_nodes.iter().all(|&n| n > 0), "{helper_nodes:?}");
}

#[test]
fn parallel_searches_solve_endgames_as_one_thread_does() {
    // The whole search (midgame iterations, then the solve) on 4 threads, exact and
    // win/loss/draw, against the one-thread solver.
    let mut rng = Rng::new(77);
    let stop = AtomicBool::new(false);
    let mut one = solver(1);
    let mut search = Search::new(SearchConfig::new(64, 4).unwrap());
    for empties in [16, 18, 20] {
        let board = random_position(&mut rng, empties);
        let exact = one
            .solve(&mut board.clone(), SolveMode::Exact, &stop)
            .unwrap();
        let limits = SearchLimits::for_level(Level::new(20).unwrap());
        let result = search.iterate(&board, &limits, &stop, &mut |_| {});
        assert_eq!(
            result.score.units(),
            Score::from_discs(exact.score).units(),
            "{board:?}"
        );
        assert!(result.completed);
        let wld = SearchLimits {
            exact_empties: 0,
            wld_empties: 60,
            ..limits
        };
        let result = search.iterate(&board, &wld, &stop, &mut |_| {});
        assert_eq!(
            result.score.units().signum(),
            exact.score.get().signum(),
            "{board:?}"
        );
    }
}

#[test]
fn a_parallel_search_grows_the_solver_table_for_a_large_solve() {
    // The engine's whole search on 2 threads, solving a root of 27 empties: its solver's
    // table grows from 16 to 64 MiB before the solve (which needs every helper of the
    // midgame iterations gone), and the answer is the one-thread solver's. White has one
    // disc, so the solve is quick.
    let stop = AtomicBool::new(false);
    let board = tsuru_core::board::notation::parse_board(&format!(
        "{}XXXOX---{} O",
        "X".repeat(32),
        "-".repeat(24)
    ))
    .unwrap();
    assert_eq!(board.empties(), 27);
    let exact = solver(1)
        .solve(&mut board.clone(), SolveMode::Exact, &stop)
        .unwrap();
    let mut search = Search::new(SearchConfig::new(256, 2).unwrap());
    assert_eq!(search.solver_table_bytes(), 16 << 20);
    let limits = SearchLimits::for_level(Level::new(60).unwrap());
    let result = search.iterate(&board, &limits, &stop, &mut |_| {});
    assert!(result.completed);
    assert_eq!(
        result.score.units(),
        Score::from_discs(exact.score).units(),
        "{board:?}"
    );
    assert_eq!(search.solver_table_bytes(), 64 << 20);
    // The helpers are gone: nothing else holds the tables.
    search.clear();
}

#[test]
fn a_stopped_parallel_search_answers_promptly_with_a_legal_move() {
    let mut rng = Rng::new(5);
    for (empties, delay) in [(40, 5), (40, 60), (24, 30), (24, 200)] {
        let board = random_position(&mut rng, empties);
        let mut search = Search::new(SearchConfig::new(16, 4).unwrap());
        let stop = Arc::new(AtomicBool::new(false));
        let raiser = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(delay));
                let raised = Instant::now();
                stop.store(true, Ordering::SeqCst);
                raised
            })
        };
        // Deep enough never to finish before the stop.
        let limits = SearchLimits::for_level(Level::new(60).unwrap());
        let result = search.iterate(&board, &limits, &stop, &mut |_| {});
        let returned = Instant::now();
        let raised = raiser.join().unwrap();
        assert!(!result.completed);
        assert!(board.is_legal(result.best), "{:?}", result.best);
        let latency = returned.saturating_duration_since(raised);
        eprintln!("{empties} empties, stopped after {delay} ms: returned in {latency:?}");
        // Generous for a loaded machine; typically well under a millisecond.
        assert!(latency < Duration::from_millis(500), "{latency:?}");
        // The helpers are gone: nothing else holds the tables (`clear` needs them alone).
        search.clear();
    }
}

#[test]
fn a_ping_stops_a_parallel_search_and_no_thread_outlives_it() {
    let mut engine = Engine::start(&["--threads", "4"]);
    engine.send("nboard 2");
    engine.ping(1);
    let Some(idle) = engine.thread_count() else {
        eprintln!("no /proc: thread counts not checked");
        return;
    };
    engine.send("set depth 40");
    engine.send("go");
    // Searching: the helpers are running.
    let deadline = Instant::now() + TIMEOUT;
    while engine.thread_count().unwrap() < idle + 3 {
        assert!(Instant::now() < deadline, "no helper threads appeared");
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(300));
    let sent = engine.ping(2).sent;
    eprintln!(
        "pong latency during a 4-thread search: {:?}",
        sent.elapsed()
    );
    // The search was answered or dropped before the pong; its threads are joined by then
    // (allow the kernel a moment to remove their entries).
    let deadline = Instant::now() + Duration::from_secs(1);
    while engine.thread_count().unwrap() > idle {
        assert!(
            Instant::now() < deadline,
            "a search thread outlived the search"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    engine.send("quit");
    engine.wait_exit(TIMEOUT);
}

#[test]
fn a_stopped_parallel_solve_returns_nothing_and_leaves_no_helper() {
    // 30 empties on 4 threads: far from solved when the flag goes up.
    let mut rng = Rng::new(11);
    let board = random_position(&mut rng, 30);
    let mut many = solver(4);
    let stop = Arc::new(AtomicBool::new(false));
    let raiser = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            stop.store(true, Ordering::SeqCst);
        })
    };
    let mut work = board.clone();
    assert_eq!(many.solve(&mut work, SolveMode::Exact, &*stop), None);
    raiser.join().unwrap();
    assert_eq!(work, board, "the board is restored");
    // Every helper is joined (`clear` needs the table alone), and the solver still solves.
    many.clear();
    let small = random_position(&mut rng, 18);
    let flag = AtomicBool::new(false);
    let expected = solver(1)
        .solve(&mut small.clone(), SolveMode::Exact, &flag)
        .unwrap();
    let solution = many
        .solve(&mut small.clone(), SolveMode::Exact, &flag)
        .unwrap();
    assert_eq!(solution.score, expected.score);
}
