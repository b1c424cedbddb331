//! NBoard protocol v2, driven over pipes exactly as NBoard does (protocols.md section 1.8),
//! with every printed line checked against NBoard's response grammar (section 1.4).

mod common;

use std::time::{Duration, Instant};

use common::nboard::check_line;
use common::{Engine, Stream, PROMPT, START_BO, TIMEOUT};
use tsuru_core::board::{notation, Board, Color, Move};
use tsuru_core::formats::ggf::{GgfGame, GgfMove};
use tsuru_core::rng::Rng;

fn game(moves: &str) -> String {
    format!("(;GM[Othello]PC[NBoard]DT[2024-05-01 10:00:00 GMT]PB[alice]PW[OurEngine]RE[?]TI[5:00]TY[8]{START_BO}{moves};)")
}

/// Checks everything the engine printed, stdout and stderr merged.
fn check_transcript(engine: &Engine) {
    for (stream, line) in &engine.transcript {
        if let Err(why) = check_line(*stream, line) {
            panic!("{stream:?} line {line:?} would be rejected: {why}");
        }
    }
}

#[test]
fn the_checker_rejects_what_nboard_rejects() {
    for bad in [
        "search F5 D6 1.23 0 12",
        "search F5 nan 0 12",
        "search F5 1.5e3 0 12",
        "search F5 +1.00 x 12",
        "search F5 +1.00 0 @18",
        "set depth 5",
        "set myname My Engine",
        "pong x",
        "nodestats 12 1.5e-3",
        "=== Z9",
        "status caf\u{e9}",
        "hello",
        "",
    ] {
        assert!(check_line(Stream::Stdout, bad).is_err(), "{bad:?} accepted");
    }
    for good in [
        "search F5d6C3 +1.23 0 12",
        "search PA-C1 -3.00 0 100%W",
        "=== F6/-0.35/0.84",
        "=== PA",
        "nodestats 1843212 0.41",
        "analysis 9 13.00",
        "set myname tsuru",
        "status",
    ] {
        assert!(check_line(Stream::Stdout, good).is_ok(), "{good:?} refused");
    }
}

// ---- helpers ---------------------------------------------------------------------------

/// The `search` lines of a hint, grouped by depth string, in order.
fn hint_iterations(lines: &[String]) -> Vec<(String, Vec<(String, String)>)> {
    let mut out: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for line in lines.iter().filter(|l| l.starts_with("search ")) {
        let w: Vec<&str> = line.split_whitespace().collect();
        let entry = (w[1].to_string(), w[2].to_string());
        match out.last_mut() {
            Some((depth, entries))
                if depth == w[4] && !entries.iter().any(|e| e.0[..2] == entry.0[..2]) =>
            {
                entries.push(entry)
            }
            _ => out.push((w[4].to_string(), vec![entry])),
        }
    }
    out
}

fn first_move(pv: &str) -> Move {
    pv[..2].parse().unwrap()
}

fn board_after(moves: &str) -> Board {
    GgfGame::parse(&game(moves)).unwrap().board().clone()
}

// ---- the transcripts of protocols.md 1.8 -----------------------------------------------

#[test]
fn startup_hint_and_go() {
    let mut engine = Engine::start(&[]);
    engine.send("nboard 2");
    assert_eq!(
        engine.next_line(TIMEOUT).as_deref(),
        Some("set myname tsuru")
    );
    engine.send(&format!("set game {}", game("")));
    engine.send("set depth 6");
    engine.ping(1);
    engine.send("hint 4");
    let lines = engine.read_until(TIMEOUT, |l| l == "status");
    let iterations = hint_iterations(&lines);
    // Depths 1 and 2, then even depths (docs/architecture.md).
    let depths: Vec<&str> = iterations.iter().map(|(d, _)| d.as_str()).collect();
    assert_eq!(depths, ["1", "2", "4", "6"], "{lines:#?}");
    for (_, entries) in &iterations {
        assert_eq!(entries.len(), 4, "all four moves at every depth");
        for (pv, _) in entries {
            assert!(Board::start().is_legal(first_move(pv)));
        }
    }
    assert!(lines.iter().any(|l| l.starts_with("nodestats ")));

    // The user plays F5 after 3.1 s; the engine (White) is asked to move.
    engine.send("move F5//3.1");
    engine.ping(2);
    engine.send("go");
    let lines = engine.read_until(TIMEOUT, |l| l.starts_with("=== "));
    let answer = lines.last().unwrap();
    let token = answer.strip_prefix("=== ").unwrap();
    let mv = first_move(token);
    assert!(board_after("B[F5]").is_legal(mv), "{answer}");
    // `go` does not play the move: the same go again answers for the same position.
    engine.send("go");
    let again = engine.read_until(TIMEOUT, |l| l.starts_with("=== "));
    assert!(board_after("B[F5]").is_legal(first_move(&again.last().unwrap()[4..])));
    // NBoard then sends the engine's move back.
    engine.send(&format!("move {token}"));
    engine.ping(3);
    engine.send("hint 1");
    let lines = engine.read_until(TIMEOUT, |l| l == "status");
    let after = board_after(&format!("B[F5]W[{}]", &token[..2]));
    for (_, entries) in hint_iterations(&lines) {
        assert!(after.is_legal(first_move(&entries[0].0)));
    }
    check_transcript(&engine);
}

#[test]
fn hint_while_reviewing() {
    let mut engine = Engine::start(&["--nboard"]);
    engine.send("nboard 2");
    engine.send(&format!("set game {}", game("B[F5//3.1]W[D6/-0.40/0.52]")));
    engine.send("set depth 5");
    engine.ping(5);
    engine.send("hint 3");
    let lines = engine.read_until(TIMEOUT, |l| l == "status");
    let position = board_after("B[F5]W[D6]");
    let iterations = hint_iterations(&lines);
    // Depths 1, 2 and 4, then the odd limit.
    let depths: Vec<&str> = iterations.iter().map(|(d, _)| d.as_str()).collect();
    assert_eq!(depths, ["1", "2", "4", "5"], "{lines:#?}");
    for (_, entries) in &iterations {
        assert_eq!(entries.len(), 3);
        let evals: Vec<f64> = entries.iter().map(|e| e.1.parse().unwrap()).collect();
        assert!(
            evals.windows(2).all(|w| w[0] >= w[1]),
            "best first: {evals:?}"
        );
        for (pv, _) in entries {
            assert!(position.is_legal(first_move(pv)));
        }
    }
    check_transcript(&engine);
}

#[test]
fn an_endgame_hint_reports_probable_depths_then_the_exact_one() {
    // FFO #40: Black to move with 20 empties; A2 wins by 38. Level 14 solves 21 empties.
    let board =
        "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X--------".replace('X', "*");
    let ggf = format!(
        "(;GM[Othello]PC[NBoard]DT[2024-05-01 10:00:00 GMT]PB[alice]PW[bob]RE[?]TI[5:00]TY[8]\
         BO[8 {board} *];)"
    );
    let mut engine = Engine::start(&[]);
    engine.send("nboard 2");
    engine.send(&format!("set game {ggf}"));
    engine.send("set depth 14");
    engine.ping(1);
    engine.send("hint 1");
    let lines = engine.read_until(TIMEOUT, |l| l == "status");
    let iterations = hint_iterations(&lines);
    let depths: Vec<&str> = iterations.iter().map(|(d, _)| d.as_str()).collect();
    assert_eq!(
        depths,
        ["1", "2", "4", "73%", "87%", "95%", "99%", "100%"],
        "{lines:#?}"
    );
    let (pv, eval) = &iterations.last().unwrap().1[0];
    assert_eq!(&pv[..2].to_ascii_uppercase(), "A2");
    assert_eq!(eval.parse::<f64>().unwrap(), 38.0);
    check_transcript(&engine);
}

/// A hint of several lines that solves gives each line's whole principal variation (it gave
/// the move alone), and each variation is legal play to the end that scores the line's value.
#[test]
fn solved_hint_lines_carry_whole_principal_variations() {
    // FFO #1: Black to move, 14 empties; G8 +18, H1 +12, then A2 and H7 +6.
    let text = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO--";
    let root = notation::parse_board(&format!("{text} X")).unwrap();
    let ggf = format!(
        "(;GM[Othello]PC[NBoard]PB[alice]PW[bob]RE[?]TI[5:00]TY[8]BO[8 {} *];)",
        text.replace('X', "*")
    );
    let mut engine = Engine::start(&["--threads", "1"]);
    engine.send("nboard 2");
    engine.send(&format!("set game {ggf}"));
    engine.send("set depth 12");
    engine.ping(1);
    engine.send("hint 3");
    let lines = engine.read_until(TIMEOUT, |l| l == "status");
    let iterations = hint_iterations(&lines);
    let (depth, solved) = iterations.last().unwrap();
    assert_eq!(depth, "100%", "{lines:#?}");
    assert_eq!(solved.len(), 3, "{lines:#?}");
    for (pv, eval) in solved {
        let mut board = root.clone();
        for mv in pv.split('-') {
            let mv: Move = mv.parse().unwrap();
            assert!(board.is_legal(mv), "{mv} in {pv}");
            board.play(mv).unwrap();
        }
        assert!(board.is_game_over(), "{pv} stops before the end");
        let score = board.final_score(Color::Black).get();
        assert_eq!(f64::from(score), eval.parse::<f64>().unwrap(), "{pv}");
    }
    check_transcript(&engine);
}

#[test]
fn analyze_a_finished_game() {
    let mut engine = Engine::start(&[]);
    engine.send("nboard 2");
    let moves = "B[E6//2.2]W[F4/-1.02/0.8]B[E3//4.1]W[F6/-2.10/0.9]B[G5//3.0]W[D6/-8.50/1.1]B[E7//5.2]W[F5/-20.00/1.0]B[C5//2.7]";
    engine.send(&format!(
        "set game {}",
        game(moves).replace("RE[?]", "RE[64]")
    ));
    engine.send("set depth 4");
    engine.ping(9);
    engine.send("analyze");
    let lines = engine.read_until(TIMEOUT, |l| l == "status");
    let analysis: Vec<(u32, f64)> = lines
        .iter()
        .filter(|l| l.starts_with("analysis "))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[1].parse().unwrap(), w[2].parse().unwrap())
        })
        .collect();
    let made: Vec<u32> = analysis.iter().map(|a| a.0).collect();
    assert_eq!(made, (0..=9).rev().collect::<Vec<_>>());
    // The final position is Black's 64-0 wipeout, from Black's point of view.
    assert_eq!(analysis[0].1, 64.0);
    // Before C5, Black (to move) wins 64-0 by playing it: the search sees the wipeout.
    assert_eq!(analysis[1].1, 64.0);
    engine.send("learn");
    assert_eq!(engine.next_line(TIMEOUT).as_deref(), Some("learned"));
    check_transcript(&engine);
}

#[test]
fn the_three_pass_cases() {
    let mut engine = Engine::start(&[]);
    engine.send("nboard 2");
    // (a) White (the engine) must pass: a1 White, b1 Black, White to move? Use a1 Black,
    // b1 White, White to move: White has no move, Black has c1.
    let pass_bo = format!("BO[8 *O{} O]", "-".repeat(62));
    engine.send(&format!(
        "set game (;GM[Othello]PC[NBoard]PB[a]PW[b]RE[?]TI[5:00]TY[8]{pass_bo};)"
    ));
    engine.send("set depth 4");
    engine.ping(5);
    engine.send("go");
    let lines = engine.read_until(TIMEOUT, |l| l.starts_with("==="));
    assert_eq!(lines.last().unwrap(), "=== PA");
    // (b) NBoard appends the pass; later the user (Black) moves... here: the user passes in
    // the mirrored position, then the engine is asked to move.
    let user_pass_bo = format!("BO[8 O*{} *]", "-".repeat(62));
    engine.send(&format!(
        "set game (;GM[Othello]PC[NBoard]PB[a]PW[b]RE[?]TI[5:00]TY[8]{user_pass_bo};)"
    ));
    engine.send("move PA//1.3");
    engine.ping(6);
    engine.send("go");
    let lines = engine.read_until(TIMEOUT, |l| l.starts_with("==="));
    assert!(lines.last().unwrap().starts_with("=== C1/"), "{lines:?}");
    // (c) A hint while the user must pass: PA lines.
    engine.send(&format!(
        "set game (;GM[Othello]PC[NBoard]PB[a]PW[b]RE[?]TI[5:00]TY[8]{user_pass_bo};)"
    ));
    engine.ping(7);
    engine.send("hint 4");
    let lines = engine.read_until(TIMEOUT, |l| l == "status");
    let searches: Vec<&String> = lines.iter().filter(|l| l.starts_with("search")).collect();
    assert!(!searches.is_empty());
    assert!(
        searches.iter().all(|l| l.starts_with("search PA-C1 ")),
        "{searches:?}"
    );
    check_transcript(&engine);
}

#[test]
fn game_over_gets_only_status() {
    let mut engine = Engine::start(&[]);
    engine.send("nboard 2");
    let moves = "B[E6]W[F4]B[E3]W[F6]B[G5]W[D6]B[E7]W[F5]B[C5]";
    engine.send(&format!("set game {}", game(moves)));
    engine.ping(7);
    engine.send("go");
    engine.send("hint 4");
    engine.ping(8);
    let lines = engine.drain(Duration::from_millis(200));
    assert!(lines.is_empty(), "{lines:?}");
    for (_, line) in &engine.transcript {
        assert!(
            !line.starts_with("===") && !line.starts_with("search"),
            "{line}"
        );
    }
    check_transcript(&engine);
}

#[test]
fn ping_interrupts_a_deep_hint() {
    let mut engine = Engine::start(&[]);
    engine.send("nboard 2");
    engine.send(&format!(
        "set game {}",
        game("B[F5]W[D6]B[C3]W[D3]B[C4]W[F4]")
    ));
    engine.send("set depth 40");
    engine.ping(10);
    engine.send("hint 4");
    // Let it think, then interrupt as NBoard does when the user clicks.
    engine.read_until(TIMEOUT, |l| l.starts_with("search") && l.ends_with(" 6"));
    std::thread::sleep(Duration::from_millis(200));
    let sent = Instant::now();
    engine.send(&format!("set game {}", game("B[F5]")));
    engine.send("ping 11");
    engine.read_until(TIMEOUT, |l| l == "pong 11");
    eprintln!("pong latency during a deep hint: {:?}", sent.elapsed());
    // Nothing about the old request may follow the pong.
    let after = engine.drain(Duration::from_millis(500));
    assert!(
        after
            .iter()
            .all(|l| !l.starts_with("search") && !l.starts_with("===")),
        "{after:?}"
    );
    // The engine is still responsive and answers for the new position.
    engine.send("set depth 2");
    engine.ping(12);
    engine.send("go");
    let lines = engine.read_until(TIMEOUT, |l| l.starts_with("==="));
    assert!(board_after("B[F5]").is_legal(first_move(&lines.last().unwrap()[4..])));
    check_transcript(&engine);
}

#[test]
fn go_answers_legal_moves_in_random_positions() {
    let mut engine = Engine::start(&[]);
    engine.send("nboard 2");
    engine.send("set depth 3");
    let mut rng = Rng::new(61);
    let mut n = 100;
    for _ in 0..40 {
        // A random game prefix, written as NBoard would.
        let mut record = GgfGame::default();
        for _ in 0..rng.below(64) {
            let board = record.board();
            if board.is_game_over() {
                break;
            }
            let moves = board.legal_moves();
            let mv = if moves == 0 {
                Move::Pass
            } else {
                Move::Play(rng.pick(moves))
            };
            record.push(GgfMove::bare(mv)).unwrap();
        }
        let board = record.board().clone();
        engine.send(&format!("set game {}", record.to_ggf()));
        n += 1;
        engine.ping(n);
        engine.send("go");
        if board.is_game_over() {
            n += 1;
            let lines = engine.ping(n).lines;
            assert!(lines.iter().all(|l| !l.starts_with("===")), "{lines:?}");
            continue;
        }
        let lines = engine.read_until(TIMEOUT, |l| l.starts_with("==="));
        let token = lines.last().unwrap()[4..].to_string();
        let mv = first_move(&token);
        assert!(board.is_legal(mv), "{mv} in {board:?}");
        if board.must_pass() {
            assert_eq!(mv, Move::Pass);
        }
        // The position is unchanged: the answered move is accepted as the next move.
        engine.send(&format!("move {token}"));
        n += 1;
        engine.ping(n);
        engine.send("analyze");
        let lines = engine.read_until(TIMEOUT, |l| l == "status");
        let count = lines.iter().filter(|l| l.starts_with("analysis ")).count();
        assert_eq!(
            count,
            record.moves().len() + 2,
            "the move was appended to the game"
        );
    }
    check_transcript(&engine);
}

#[test]
fn bad_input_changes_nothing() {
    let mut engine = Engine::start(&[]);
    engine.send("nboard 2");
    engine.send(&format!("set game {}", game("B[F5]W[D6]")));
    engine.send("set depth 2");
    engine.ping(1);
    let expected = board_after("B[F5]W[D6]");
    let bad_inputs: Vec<Vec<u8>> = vec![
        b"frobnicate 1 2 3".to_vec(),
        b"set game (;GM[Othello]TY[10]BO[8 bad];)".to_vec(),
        format!("set game {}", game("B[F5]W[A1]")).into_bytes(),
        b"set depth 0".to_vec(),
        b"set depth x".to_vec(),
        b"set frobs 3".to_vec(),
        b"move A1".to_vec(),
        b"move PA".to_vec(),
        b"move Z9//1".to_vec(),
        b"hint x".to_vec(),
        b"ping".to_vec(),
        b"A1".to_vec(),
        vec![b'x'; 200_000],
        b"set game (;GM[Othello]PB[J\xe9r\xf4me]\xff\xfe".to_vec(),
        b"\xff\xfe\xfd".to_vec(),
        b"\r".to_vec(),
    ];
    for (i, bad) in bad_inputs.iter().enumerate() {
        let mut line = bad.clone();
        line.push(b'\n');
        engine.send_bytes(&line);
        engine.ping(100 + i as u32);
    }
    engine.send("go");
    let lines = engine.read_until(TIMEOUT, |l| l.starts_with("==="));
    let mv = first_move(&lines.last().unwrap()[4..]);
    assert!(
        expected.is_legal(mv),
        "{mv} is not legal in the old position"
    );
    assert_eq!(expected.side_to_move(), Color::Black);
    // Logs went to stderr only, and nothing printed would upset NBoard.
    check_transcript(&engine);
    engine.close();
    assert_eq!(engine.wait_exit(Duration::from_secs(10)), Some(0));
}

/// The answer of `go` at depth 1 on one thread after `lines`, sent after `set game` of the
/// game after `moves`.
fn go_after(moves: &str, lines: &[String]) -> (String, Engine) {
    let mut engine = Engine::start(&["--threads", "1"]);
    engine.send("nboard 2");
    engine.send(&format!("set game {}", game(moves)));
    engine.send("set depth 1");
    engine.ping(1);
    for (i, line) in lines.iter().enumerate() {
        engine.send(line);
        engine.ping(100 + i as u32);
    }
    engine.send("go");
    let answer = engine.read_until(TIMEOUT, |l| l.starts_with("==="));
    (answer.last().unwrap().clone(), engine)
}

/// A square is two characters: `move C30` is not `move C3` (it was, the rest being ignored,
/// and the engine's game then left the GUI's). Every legal move of the position, with a
/// digit, a letter or a second square after it, is refused and changes nothing.
#[test]
fn malformed_squares_are_refused_and_change_nothing() {
    let moves = "B[F5]W[D6]";
    let board = board_after(moves);
    let mut bad = Vec::new();
    for square in tsuru_core::board::bits::squares(board.legal_moves()) {
        for tail in ["0", "3", "x"] {
            bad.push(format!("move {square}{tail}"));
        }
        bad.push(format!("move {square}{square}//1.5"));
        bad.push(format!("move {}x/0.5/1", square.lower()));
    }
    bad.extend(["move A10", "move D33", "move F5x"].map(String::from));
    let (clean, _) = go_after(moves, &[]);
    let (after_bad, engine) = go_after(moves, &bad);
    assert_eq!(after_bad, clean, "the malformed moves changed the game");
    // Each refusal is logged on stderr (with RUST_LOG unset, quietly: nothing on stdout).
    check_transcript(&engine);
}

#[test]
fn end_of_input_ends_the_engine() {
    let mut engine = Engine::start(&[]);
    engine.send("nboard 2");
    engine.send(&format!("set game {}", game("")));
    engine.send("set depth 30");
    engine.send("hint 2");
    engine.read_until(TIMEOUT, |l| l.starts_with("search"));
    engine.close();
    assert_eq!(engine.wait_exit(Duration::from_secs(10)), Some(0));
    let _ = notation::board_to_string(&Board::start());
}

// ---- robustness (issue 18) -----------------------------------------------------------------

/// A seeded random game of up to `plies` moves (passes included) as GGF move tags, and the
/// position it reaches.
fn random_game(seed: u64, plies: usize) -> (String, Board) {
    let mut rng = Rng::new(seed);
    let mut board = Board::start();
    let mut tags = String::new();
    while board.ply() < plies && !board.is_game_over() {
        let legal = board.legal_moves();
        let mv = if legal == 0 {
            Move::Pass
        } else {
            Move::Play(rng.pick(legal))
        };
        let tag = if board.side_to_move() == Color::Black {
            'B'
        } else {
            'W'
        };
        tags.push_str(&format!("{tag}[{mv}]"));
        board.play(mv).unwrap();
    }
    (tags, board)
}

/// A long search (`set depth 30`, no clock), surely under way: its first depth is reported.
fn long_search(command: &str) -> Engine {
    let mut engine = Engine::start(&[]);
    engine.send("nboard 2");
    engine.send(&format!(
        "set game {}",
        game("B[F5]W[D6]").replace("TI[5:00]", "TI[0]")
    ));
    engine.send("set depth 30");
    engine.ping(1);
    engine.send(command);
    engine.read_until(TIMEOUT, |l| l.starts_with("search "));
    std::thread::sleep(Duration::from_millis(100));
    engine
}

/// End of input during a long `go` or `hint` ends the process within a second or so.
#[test]
fn end_of_input_during_a_long_search_exits_promptly() {
    for command in ["go", "hint 3"] {
        let mut engine = long_search(command);
        engine.close();
        let code = engine.wait_exit(PROMPT);
        assert_eq!(
            code,
            Some(0),
            "not exited with status 0 within {PROMPT:?} of the end of input during `{command}`\n{}",
            engine.diagnosis()
        );
        check_transcript(&engine);
    }
}

/// `quit` during a long `go` or `hint` ends the process within a second or so.
#[test]
fn quit_during_a_long_search_exits_promptly() {
    for command in ["go", "hint 3"] {
        let mut engine = long_search(command);
        engine.send("quit");
        let code = engine.wait_exit(PROMPT);
        assert_eq!(
            code,
            Some(0),
            "not exited with status 0 within {PROMPT:?} of `quit` during `{command}`\n{}",
            engine.diagnosis()
        );
        check_transcript(&engine);
    }
}

/// The clock panics of issue 18: absurd `TI`/`TB`/`TW` values and move times in `set game`.
/// The engine may accept or ignore the game, but it must survive `go`, answer `===` with a
/// legal move, and go on answering `ping`.
#[test]
fn absurd_clocks_in_set_game_do_not_crash_go() {
    // 213503982334601 days fit a Duration, but not three times a share of them: that needs a
    // position a few moves from the end.
    let (late, late_board) = random_game(18, 56);
    assert!(!late_board.is_game_over() && late_board.empties() <= 5);
    let early = board_after("B[F5]W[D6]");
    let cases: Vec<(String, Board)> = vec![
        (
            game("B[F5]W[D6]").replace("TI[5:00]", "TI[1e300]"),
            early.clone(),
        ),
        (
            game("B[F5]W[D6]").replace("TI[5:00]", "TI[5:00/1e300]"),
            early.clone(),
        ),
        (
            game("B[F5]W[D6]").replace("TI[5:00]", "TI[5:00]TB[1e300]"),
            early.clone(),
        ),
        (
            game("B[F5]").replace("TI[5:00]", "TI[5:00]TW[1e300]"),
            board_after("B[F5]"),
        ),
        (game("B[F5//-1e300]W[D6]"), early.clone()),
        (game("B[F5//-inf]W[D6]"), early.clone()),
        (
            game("B[F5]W[D6]").replace("TI[5:00]", "TI[inf]"),
            early.clone(),
        ),
        (
            game(&late).replace("TI[5:00]", "TI[213503982334601.00:00:00]"),
            late_board.clone(),
        ),
        (
            game(&late).replace("TI[5:00]", "TI[5:00//1e300]"),
            late_board.clone(),
        ),
    ];
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(ggf, board)| go_survives(ggf, board).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `set game GGF` then `go`: `Err` says what went wrong (no `===`, an illegal move, no `pong`,
/// a panic, output NBoard would reject).
fn go_survives(ggf: &str, board: &Board) -> Result<(), String> {
    let mut engine = Engine::start(&[]);
    engine.send("nboard 2");
    engine.send("set depth 4");
    engine.send(&format!("set game {ggf}"));
    engine.send("ping 1");
    engine.send("go");
    let answer = loop {
        match engine.next_line(TIMEOUT) {
            Some(line) if line.starts_with("=== ") => break line,
            Some(_) => {}
            None => return Err(format!("{ggf}: no `===`\n{}", engine.diagnosis())),
        }
    };
    engine.send("ping 2");
    loop {
        match engine.next_line(TIMEOUT) {
            Some(line) if line == "pong 2" => break,
            Some(_) => {}
            None => return Err(format!("{ggf}: no `pong 2`\n{}", engine.diagnosis())),
        }
    }
    let mv = first_move(&answer[4..]);
    // Legal in the game sent, or in the start position if the game was ignored.
    if !(board.is_legal(mv) || Board::start().is_legal(mv)) {
        return Err(format!("{ggf}: illegal answer {answer}"));
    }
    if engine
        .transcript
        .iter()
        .any(|(stream, line)| *stream == Stream::Stderr && line.contains("panicked"))
    {
        return Err(format!("{ggf}: {}", engine.diagnosis()));
    }
    for (stream, line) in &engine.transcript {
        check_line(*stream, line).map_err(|why| format!("{ggf}: {line:?}: {why}"))?;
    }
    Ok(())
}

/// `analyze` stopped by the next command still clears NBoard's status bar: a bare `status`
/// comes after `status Analyzing game` and before the `pong`.
#[test]
fn an_interrupted_analysis_clears_the_status_before_the_pong() {
    let (moves, board) = random_game(7, 40);
    assert!(!board.is_game_over());
    let mut engine = Engine::start(&[]);
    engine.send("nboard 2");
    engine.send("set depth 20");
    engine.send(&format!("set game {}", game(&moves)));
    engine.ping(1);
    engine.send("analyze");
    let lines = engine.ping(2).lines;
    let started = lines
        .iter()
        .position(|l| l == "status Analyzing game")
        .unwrap_or_else(|| panic!("no `status Analyzing game`: {lines:?}"));
    assert!(
        lines[started..].iter().any(|l| l == "status"),
        "no bare `status` between `status Analyzing game` and `pong 2`: {lines:?}"
    );
    check_transcript(&engine);
}

/// `ping TOKEN` answers `pong TOKEN` with the token exactly as received: leading zeros,
/// numbers past i64, words.
#[test]
fn ping_echoes_its_token_exactly() {
    let mut engine = Engine::start(&[]);
    engine.send("nboard 2");
    assert_eq!(
        engine.next_line(TIMEOUT).as_deref(),
        Some("set myname tsuru")
    );
    for (i, token) in ["007", "9223372036854775808", "abc"].iter().enumerate() {
        engine.send(&format!("ping {token}"));
        let lines = engine.ping(100 + i as u32).lines;
        assert_eq!(
            lines,
            [format!("pong {token}"), format!("pong {}", 100 + i)],
            "ping {token}"
        );
    }
}

/// Non-ASCII input logged with `RUST_LOG=warn` stays ASCII on stderr (NBoard merges stderr
/// and dies on characters above U+00FF): the character is escaped, never written raw.
#[test]
fn non_ascii_input_is_escaped_in_the_log() {
    let mut engine = Engine::start_with_env(&[], &[("RUST_LOG", Some("warn"))]);
    engine.send("nboard 2");
    engine.send("move \u{e9}5");
    engine.ping(1);
    engine.close();
    assert_eq!(engine.wait_exit(Duration::from_secs(10)), Some(0));
    let stderr = engine.lines_of(Stream::Stderr);
    assert!(
        stderr.iter().all(|l| l.is_ascii()),
        "non-ASCII on stderr: {stderr:?}"
    );
    assert!(
        stderr.iter().any(|l| l.contains("\\u{e9}")),
        "the ignored line is not logged with the character escaped as \\u{{e9}}: {stderr:?}"
    );
}

/// With a 4 GiB table (`--hash 4096`) the first `pong` comes within 2 s: the table is not
/// filled before the engine answers (today about 10 s). The memory is only reserved, so
/// this needs address space, not 4 GiB of RAM.
#[test]
fn the_first_pong_is_prompt_with_a_big_table() {
    let started = Instant::now();
    let mut engine = Engine::start(&["--hash", "4096"]);
    engine.send("nboard 2");
    engine.send("ping 1");
    engine.read_until(Duration::from_secs(60), |l| l == "pong 1");
    let elapsed = started.elapsed();
    assert!(
        elapsed <= Duration::from_secs(2),
        "`pong 1` came {elapsed:?} after the start with --hash 4096 (at most 2 s)"
    );
    engine.close();
    assert_eq!(engine.wait_exit(Duration::from_secs(30)), Some(0));
}
