//! `tsuru review` over a real game, driven as a user runs it: the losses of the moves it
//! reviews with exact values are the exact values' differences (each position solved again
//! here by a solver of its own), the error totals are their sums, and bad input is refused
//! with a message naming the file, the game and the move.

mod common;

use std::sync::atomic::AtomicBool;

use common::run_tsuru;
use tsuru_core::board::{notation, Board, Color, Move};
use tsuru_core::rng::Rng;
use tsuru_core::search::endgame::{EndgameSolver, SolveMode};
use tsuru_core::search::SearchConfig;

/// A random legal game to its end (passes included), the same for a seed.
fn random_game(seed: u64) -> Vec<Move> {
    let mut rng = Rng::new(seed);
    let mut board = Board::start();
    while !board.is_game_over() {
        if board.must_pass() {
            board.make_pass();
            continue;
        }
        let moves = board.legal_moves();
        let pick = rng.below(u64::from(moves.count_ones())) as u32;
        let mut bits = moves;
        for _ in 0..pick {
            bits &= bits - 1;
        }
        board.make_move(tsuru_core::board::Square::new(bits.trailing_zeros() as usize).unwrap());
    }
    board.history().collect()
}

/// The value of a number field `key` on a line of the review's JSON (one move a line).
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    let start = line
        .find(&format!("\"{key}\": "))
        .unwrap_or_else(|| panic!("{key} in {line}"))
        + key.len()
        + 4;
    let rest = &line[start..];
    let end = rest.find([',', '}']).unwrap();
    rest[..end].trim().trim_matches('"')
}

fn temp_file(name: &str, bytes: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("tsuru-review-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn the_losses_of_the_solved_end_are_the_exact_values_differences() {
    let moves = random_game(2026);
    let transcript = notation::transcript(moves.iter().copied());
    let file = temp_file("game.txt", transcript.as_bytes());
    let review = |format: &str| {
        run_tsuru(&[
            "review",
            &file,
            format,
            "--level",
            "12",
            "--threads",
            "1",
            "--hash",
            "16",
        ])
    };
    let out = review("--json");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text.lines().filter(|l| l.contains("\"number\"")).collect();
    let reviewed: Vec<&str> = rows
        .iter()
        .copied()
        .filter(|l| l.contains("\"loss\""))
        .collect();
    let played = moves.iter().filter(|m| **m != Move::Pass).count();
    assert_eq!(reviewed.len(), played, "one row a move played");

    // Every position of the game, and a solver that shares nothing with the reviewer.
    let mut boards = vec![Board::start()];
    for &mv in &moves {
        let mut next = boards.last().unwrap().clone();
        next.play(mv).unwrap();
        boards.push(next.without_history());
    }
    let mut solver = EndgameSolver::new(&SearchConfig::new(16, 1).unwrap());
    let stop = AtomicBool::new(false);
    let mut exact = |board: &Board| -> i32 {
        if board.is_game_over() {
            return board.final_score(board.side_to_move()).get();
        }
        let mut work = board.clone();
        solver
            .solve(&mut work, SolveMode::Exact, &stop)
            .unwrap()
            .score
            .get()
    };
    let mut totals = [0.0f64; 2];
    let mut checked = 0;
    for row in &reviewed {
        let number: usize = field(row, "number").parse().unwrap();
        let loss: f64 = field(row, "loss").parse().unwrap();
        let color = if field(row, "color") == "black" {
            Color::Black
        } else {
            Color::White
        };
        totals[color.index()] += loss;
        let before = &boards[number - 1];
        assert_eq!(before.side_to_move(), color);
        assert_eq!(field(row, "move"), format!("{:#}", moves[number - 1]));
        // The last 16 moves: level 12 solves from 18 empties.
        if before.empties() > 16 {
            continue;
        }
        assert_eq!(field(row, "exact"), "true", "{row}");
        let best = exact(before);
        let after = -exact(&boards[number]);
        assert_eq!(loss, f64::from(best - after), "move {number}: {row}");
        assert_eq!(
            field(row, "value").parse::<f64>().unwrap(),
            f64::from(after),
            "{row}"
        );
        assert_eq!(
            field(row, "best_value").parse::<f64>().unwrap(),
            f64::from(best),
            "{row}"
        );
        // An exact value's chances are certain.
        let win: f64 = field(row, "win").parse().unwrap();
        assert_eq!(win, if after > 0 { 1.0 } else { 0.0 }, "{row}");
        checked += 1;
    }
    assert!(checked >= 15, "{checked} exact moves checked");
    let line = text
        .lines()
        .find(|l| l.contains("\"error_totals\""))
        .unwrap();
    assert_eq!(
        field(line, "black").parse::<f64>().unwrap(),
        totals[0],
        "{line}"
    );
    assert_eq!(
        field(line, "white").parse::<f64>().unwrap(),
        totals[1],
        "{line}"
    );
    // The game ended: its result is Black's final disc difference.
    let result = boards.last().unwrap().final_score(Color::Black).get();
    assert!(text.contains(&format!("\"result\": {result},")), "{text}");

    // The same review as CSV: a header and a row a move, the same losses.
    let out = review("--csv");
    let csv = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "number,color,move,value,best,best_value,loss,exact,mark,win,draw,loss_chance"
    );
    assert_eq!(lines.len(), played + 1);
    for (row, json) in lines[1..].iter().zip(&reviewed) {
        assert_eq!(row.split(',').nth(6).unwrap(), field(json, "loss"));
    }
}

#[test]
fn a_game_that_did_not_end_is_reviewed_to_its_last_move() {
    let ggf = "(;GM[Othello]PC[test]PB[Ann]PW[Bob]RE[?]TY[8]\
               BO[8 ---------------------------O*------*O--------------------------- *]\
               B[F5]W[D6]B[C3]W[D3]B[C4];)";
    let file = temp_file("unfinished.ggf", ggf.as_bytes());
    let out = run_tsuru(&["review", &file, "--threads", "1", "--level", "6"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Ann (black) - Bob (white); the game did not end"),
        "{text}"
    );
    let rows = text
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()));
    let moves: Vec<&str> = rows.map(|l| l.split_whitespace().nth(2).unwrap()).collect();
    assert_eq!(moves, ["f5", "d6", "c3", "d3", "c4"]);
    assert!(text.contains("error total black"), "{text}");
}

#[test]
fn bad_input_is_refused_naming_the_file_the_game_and_the_move() {
    let illegal = temp_file(
        "illegal.ggf",
        b"(;GM[Othello]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[D6]B[A1];)",
    );
    let empty = temp_file(
        "empty.ggf",
        b"(;GM[Othello]TY[8]BO[8 ---------------------------O*------*O--------------------------- *];)",
    );
    // A WTHOR file announcing 2 games and holding 1, whose game has an illegal second move.
    let mut wthor = vec![0u8; 16];
    wthor[4..8].copy_from_slice(&2u32.to_le_bytes());
    let mut record = vec![0u8; 68];
    record[8] = 56; // f5: column 6, row 5
    record[9] = 11; // a1
    wthor.extend_from_slice(&record);
    let wtb = temp_file("games.wtb", &wthor);
    let truncated = temp_file("short.wtb", &wthor[..10]);
    for (args, expected) in [
        (
            vec![illegal.as_str()],
            format!("{illegal}, game 1: move 3 (black A1)"),
        ),
        (
            vec![illegal.as_str(), "--game", "2"],
            "holds 1 game; --game 2 is out of range".into(),
        ),
        (
            vec![empty.as_str()],
            "game 1: the game has no moves to review".into(),
        ),
        (
            vec![wtb.as_str(), "--game", "5"],
            "holds 2 games; --game 5 is out of range".into(),
        ),
        (
            vec![wtb.as_str(), "--game", "2"],
            "truncated: game 2 of the 2 announced".into(),
        ),
        (vec![wtb.as_str()], format!("{wtb}, game 1: move 2 (a1)")),
        (
            vec![truncated.as_str()],
            "truncated (no WTHOR header)".into(),
        ),
        (vec!["f5d6zz"], "not a list of moves".into()),
        (vec!["f5f5"], "move 2 (F5)".into()),
    ] {
        let mut full = vec!["review"];
        full.extend(args.iter().copied());
        full.extend(["--threads", "1"]);
        let out = run_tsuru(&full);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(err.contains(&expected), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
