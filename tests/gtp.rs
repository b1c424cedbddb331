//! GTP driven over pipes as Quarry and referee scripts do, and full games against GRhino.

mod common;

use std::time::{Duration, Instant};

use common::positions::score_text;
use common::{gtp, Engine, Stream, GRHINO, PROMPT, TIMEOUT};
use tsuru_core::board::{notation, Board, Color, Move};
use tsuru_core::rng::Rng;

fn color_name(color: Color) -> &'static str {
    match color {
        Color::Black => "black",
        Color::White => "white",
    }
}

fn ok(engine: &mut Engine, command: &str) -> String {
    let (success, text) = gtp(engine, command);
    assert!(success, "{command:?} failed: {text}");
    text
}

/// Every stdout line of the session forms `=`/`?` blocks ended by exactly one empty line.
fn check_framing(engine: &Engine) {
    let lines = engine.lines_of(Stream::Stdout);
    let mut at_block_start = true;
    for line in lines {
        assert!(line.is_ascii());
        if at_block_start {
            assert!(
                line.starts_with('=') || line.starts_with('?'),
                "{line:?} starts no response"
            );
            at_block_start = false;
        } else if line.is_empty() {
            at_block_start = true;
        }
    }
    assert!(at_block_start, "the last response is not terminated");
}

/// A random game from the start that contains at least one pass, as its list of moves.
fn game_with_a_pass(seed: u64) -> Vec<Move> {
    let mut rng = Rng::new(seed);
    loop {
        let mut board = Board::start();
        let mut moves = Vec::new();
        while !board.is_game_over() {
            let legal = board.legal_moves();
            let mv = if legal == 0 {
                Move::Pass
            } else {
                Move::Play(rng.pick(legal))
            };
            board.play(mv).unwrap();
            moves.push(mv);
        }
        if moves.contains(&Move::Pass) {
            return moves;
        }
    }
}

#[test]
fn quarry_sequence_with_implied_passes() {
    let mut engine = Engine::start(&["--level", "2"]);
    assert_eq!(ok(&mut engine, "protocol_version"), "2");
    assert_eq!(ok(&mut engine, "name"), "tsuru");
    assert!(!ok(&mut engine, "version").is_empty());
    let list = ok(&mut engine, "list_commands");
    for name in list.lines() {
        assert!(!name.is_empty() && !name.contains(' '), "{name:?}");
        assert_eq!(ok(&mut engine, &format!("known_command {name}")), "true");
    }
    for needed in [
        "play",
        "genmove",
        "undo",
        "set_game",
        "list_games",
        "final_score",
    ] {
        assert!(list.lines().any(|n| n == needed), "{needed} missing");
    }
    assert_eq!(ok(&mut engine, "known_command frobnicate"), "false");
    assert_eq!(ok(&mut engine, "list_games"), "Othello");
    ok(&mut engine, "set_game Othello");
    ok(&mut engine, "boardsize 8");
    ok(&mut engine, "clear_board");
    ok(&mut engine, "time_settings 300 0 0");

    // Replay a game with passes, never sending them (Quarry's way).
    let moves = game_with_a_pass(5);
    let mut board = Board::start();
    for mv in &moves {
        if let Move::Play(square) = mv {
            let color = color_name(board.side_to_move());
            let color = if board.must_pass() {
                color_name(board.side_to_move().opponent())
            } else {
                color
            };
            ok(&mut engine, &format!("play {color} {square}"));
        }
        if *mv == Move::Pass {
            board.make_pass();
        } else {
            board.play(*mv).unwrap();
        }
    }
    assert!(board.is_game_over());
    assert_eq!(ok(&mut engine, "final_score"), score_text(&board));
    assert_eq!(
        ok(&mut engine, "genmove black"),
        "pass",
        "a finished game answers pass"
    );

    // Two genmoves of one colour in a row: the other side's pass is implied.
    let pass_at = moves.iter().position(|m| *m == Move::Pass).unwrap();
    ok(&mut engine, "clear_board");
    let mut board = Board::start();
    for mv in &moves[..pass_at] {
        let color = color_name(board.side_to_move());
        ok(
            &mut engine,
            &format!("play {color} {}", mv.square().unwrap()),
        );
        board.play(*mv).unwrap();
    }
    assert!(board.must_pass());
    let mover = color_name(board.side_to_move().opponent());
    let answer = ok(&mut engine, &format!("genmove {mover}"));
    board.make_pass();
    let mv: Move = answer.parse().unwrap();
    assert!(board.is_legal(mv), "{answer} after an implied pass");
    check_framing(&engine);
    ok(&mut engine, "quit");
    assert_eq!(engine.wait_exit(Duration::from_secs(10)), Some(0));
}

#[test]
fn referee_style_with_ids_and_explicit_passes() {
    let mut engine = Engine::start(&["--gtp", "--level", "1"]);
    engine.send("1 clear_board");
    assert_eq!(engine.next_line(common::TIMEOUT).unwrap(), "=1");
    assert_eq!(engine.next_line(common::TIMEOUT).unwrap(), "");
    engine.send("2 play w pass");
    assert_eq!(
        engine.next_line(common::TIMEOUT).unwrap(),
        "?2 illegal move"
    );
    assert_eq!(engine.next_line(common::TIMEOUT).unwrap(), "");
    engine.send("3 genmove b");
    let answer = engine.next_line(common::TIMEOUT).unwrap();
    assert!(answer.starts_with("=3 "), "{answer}");
    assert!(Board::start().is_legal(answer[3..].parse().unwrap()));
    assert_eq!(engine.next_line(common::TIMEOUT).unwrap(), "");
    engine.send("4 frobnicate");
    assert_eq!(
        engine.next_line(common::TIMEOUT).unwrap(),
        "?4 unknown command"
    );
    assert_eq!(engine.next_line(common::TIMEOUT).unwrap(), "");

    // A whole game with explicit passes from the referee.
    let moves = game_with_a_pass(9);
    ok(&mut engine, "clear_board");
    let mut board = Board::start();
    for mv in &moves {
        let color = color_name(board.side_to_move());
        let vertex = match mv {
            Move::Play(square) => square.lower(),
            Move::Pass => "pass".into(),
        };
        ok(&mut engine, &format!("play {color} {vertex}"));
        board.play(*mv).unwrap();
    }
    assert_eq!(ok(&mut engine, "final_score"), score_text(&board));
    // Undo takes back passes too, one entry at a time.
    for _ in 0..moves.len() {
        ok(&mut engine, "undo");
    }
    assert!(!gtp(&mut engine, "undo").0);
    assert_eq!(
        ok(&mut engine, "showboard"),
        format!("\n{}", notation::diagram(&Board::start()))
    );
    check_framing(&engine);
}

#[test]
fn failing_commands_leave_the_position_unchanged() {
    let mut engine = Engine::start(&["--gtp", "--level", "1"]);
    ok(&mut engine, "play b f5");
    ok(&mut engine, "play w d6");
    let before = ok(&mut engine, "showboard");
    for bad in [
        "play b d6",   // occupied
        "play b a1",   // illegal
        "play w c3",   // wrong colour
        "play b pass", // Black has moves
        "play w pass", // not White's turn
        "play x f4",   // bad colour
        "play b z9",   // bad vertex
        "play b",      // missing vertex
        "genmove w",   // wrong colour
        "genmove",     // missing colour
        "boardsize 10",
        "boardsize x",
        "komi x",
        "set_game Go",
        "time_settings 1 2",
        "time_settings -1 0 0",
        "time_left b x 0",
        "frobnicate",
        "\u{1}frob\u{2}nicate",
    ] {
        let (success, text) = gtp(&mut engine, bad);
        assert!(!success, "{bad:?} succeeded: {text}");
        assert_eq!(ok(&mut engine, "showboard"), before, "after {bad:?}");
    }
    ok(&mut engine, "komi 6.5");
    ok(&mut engine, "boardsize 8");
    assert_eq!(ok(&mut engine, "showboard"), before);
    ok(&mut engine, "undo");
    ok(&mut engine, "undo");
    assert!(!gtp(&mut engine, "undo").0);
    assert_eq!(
        ok(&mut engine, "showboard"),
        format!("\n{}", notation::diagram(&Board::start()))
    );
    check_framing(&engine);
}

#[test]
fn gogui_rules_commands() {
    let mut engine = Engine::start(&["--gtp"]);
    assert_eq!(ok(&mut engine, "gogui-rules_game_id"), "Othello");
    assert_eq!(ok(&mut engine, "gogui-rules_board_size"), "8");
    assert_eq!(ok(&mut engine, "gogui-rules_side_to_move"), "black");
    assert_eq!(ok(&mut engine, "gogui-rules_legal_moves"), "D3 C4 F5 E6");
    assert_eq!(ok(&mut engine, "gogui-rules_final_result"), "unknown");
    let board = ok(&mut engine, "gogui-rules_board");
    let rows: Vec<&str> = board.trim_start_matches('\n').lines().collect();
    assert_eq!(rows.len(), 8);
    assert_eq!(rows[3], ". . . O X . . .");
    check_framing(&engine);
}

#[test]
fn protocol_is_detected_from_the_first_line() {
    let mut engine = Engine::start(&[]);
    engine.send("");
    engine.send("# a comment");
    assert_eq!(ok(&mut engine, "protocol_version"), "2");
    let mut engine = Engine::start(&[]);
    engine.send("1 name");
    assert_eq!(engine.next_line(common::TIMEOUT).unwrap(), "=1 tsuru");
    let mut engine = Engine::start(&[]);
    engine.send("nboard 2");
    assert_eq!(
        engine.next_line(common::TIMEOUT).unwrap(),
        "set myname tsuru"
    );
}

#[test]
fn command_line_help_version_and_errors() {
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tsuru"))
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let help = run(&["--help"]);
    assert!(help.status.success());
    let text = String::from_utf8(help.stdout).unwrap();
    let options = tsuru::test_hooks::ENGINE.options;
    let names = options
        .iter()
        .flat_map(|o| std::iter::once(&o.flag).chain(o.aliases));
    for name in names {
        assert!(text.contains(name), "{name} missing from --help");
    }
    for sub in ["perft", "solve", "bench"] {
        assert!(
            text.contains(&format!("tsuru {sub}")),
            "{sub} missing from --help"
        );
    }
    // `tsuru 0.1.0 (commit 96647e2, weights 191f50e4)`: the commit the binary was built
    // from (what git says HEAD is, where the tests run in a checkout) and the weights' id.
    let version = String::from_utf8(run(&["--version"]).stdout).unwrap();
    let rest = version
        .strip_prefix(&format!("tsuru {} (commit ", env!("CARGO_PKG_VERSION")))
        .unwrap_or_else(|| panic!("{version:?}"));
    let (commit, weights) = rest.split_once(", weights ").unwrap();
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short=7", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8(out.stdout).unwrap().trim().to_string());
    match head {
        Some(head) => assert!(
            commit == head || commit == format!("{head}+modified"),
            "{version:?}: HEAD is {head}"
        ),
        None => assert_eq!(commit, "unknown"),
    }
    let shipped = tsuru_core::eval::EvalBundle::shipped()
        .weights_id()
        .unwrap();
    assert_eq!(weights, format!("{shipped})\n"));
    // GTP's `version` says the same after the name.
    let mut engine = Engine::start(&["--gtp"]);
    assert_eq!(format!("tsuru {}\n", ok(&mut engine, "version")), version);
    // With other weights both name those: the weights the engine evaluates with.
    let mut other =
        tsuru_core::eval::pattern::Weights::from_bytes(tsuru_core::eval::SHIPPED_WEIGHTS).unwrap();
    other.bias[0] += 1;
    let bytes = other.to_bytes();
    let other_id = tsuru_core::eval::pattern::Weights::file_id(&bytes).unwrap();
    let path = std::env::temp_dir().join(format!("tsuru-version-{}.tsw", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    let path = path.to_str().unwrap();
    let with_other = String::from_utf8(run(&["--version", "--eval-file", path]).stdout).unwrap();
    assert_eq!(
        with_other,
        version.replace(&shipped.to_string(), &format!("{other_id:08x}"))
    );
    let mut engine = Engine::start(&["--gtp", "--eval-file", path]);
    assert_eq!(
        format!("tsuru {}\n", ok(&mut engine, "version")),
        with_other
    );
    std::fs::remove_file(path).unwrap();
    for bad in [&["--frobnicate"][..], &["--level", "0"], &["--hash"]] {
        let out = run(bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(out.stdout.is_empty(), "{bad:?} printed on stdout");
        assert!(!out.stderr.is_empty());
    }
}

/// Plays one game between tsuru and GRhino with a referee that keeps its own board, checks
/// every move and sends only implied passes (GRhino refuses explicit ones). Returns the
/// referee's final board.
fn play_grhino_game(tsuru_color: Color) -> Board {
    let mut tsuru = Engine::start(&["--gtp", "--level", "3"]);
    let mut rhino = Engine::start_program(GRHINO, &["-l", "1"]);
    for engine in [&mut tsuru, &mut rhino] {
        ok(engine, "boardsize 8");
        ok(engine, "clear_board");
    }
    let mut board = Board::start();
    while !board.is_game_over() {
        if board.must_pass() {
            board.make_pass();
            continue;
        }
        let color = board.side_to_move();
        let name = color_name(color);
        let (mover, other) = if color == tsuru_color {
            (&mut tsuru, &mut rhino)
        } else {
            (&mut rhino, &mut tsuru)
        };
        let answer = ok(mover, &format!("genmove {name}"));
        let mv: Move = answer
            .parse()
            .unwrap_or_else(|_| panic!("{name} answered {answer:?}"));
        assert!(
            board.is_legal(mv),
            "{name} played illegal {answer} in {board:?}"
        );
        board.play(mv).unwrap();
        ok(other, &format!("play {name} {answer}"));
    }
    let expected = score_text(&board);
    assert_eq!(ok(&mut tsuru, "final_score"), expected);
    assert_eq!(ok(&mut rhino, "final_score"), expected);
    check_framing(&tsuru);
    board
}

#[test]
fn full_games_against_grhino() {
    if !std::path::Path::new(GRHINO).exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "GRhino must be installed in CI (.ci/run)"
        );
        eprintln!("skipped: {GRHINO} is not installed (apt-get install grhino)");
        return;
    }
    for tsuru_color in [Color::Black, Color::White] {
        let board = play_grhino_game(tsuru_color);
        eprintln!(
            "tsuru as {}: final {} (tsuru {:+})",
            color_name(tsuru_color),
            score_text(&board),
            board.final_score(tsuru_color)
        );
    }
}

// ---- robustness (issue 18) -----------------------------------------------------------------

/// A level-30 `genmove` (minutes of search from the start position), surely under way.
fn deep_genmove() -> Engine {
    let mut engine = Engine::start(&["--gtp", "--level", "30"]);
    assert_eq!(ok(&mut engine, "name"), "tsuru");
    engine.send("1 genmove b");
    std::thread::sleep(Duration::from_millis(300));
    let early = engine.drain(Duration::ZERO);
    assert!(
        early.is_empty(),
        "a level-30 genmove answered at once: {early:?}"
    );
    engine
}

/// End of input during a long `genmove` ends the process within a second or so: the search
/// must not run on for minutes with nobody to answer.
#[test]
fn end_of_input_during_a_deep_genmove_exits_promptly() {
    let mut engine = deep_genmove();
    engine.close();
    let code = engine.wait_exit(PROMPT);
    assert_eq!(
        code,
        Some(0),
        "not exited with status 0 within {PROMPT:?} of the end of input during a level-30 \
         genmove\n{}",
        engine.diagnosis()
    );
}

/// `quit` during a long `genmove` is answered `=` (after the genmove's own response, if any)
/// and the process exits within a second or so.
#[test]
fn quit_during_a_deep_genmove_is_answered_and_exits_promptly() {
    let mut engine = deep_genmove();
    engine.send("2 quit");
    let sent = Instant::now();
    let mut lines = Vec::new();
    loop {
        let left = PROMPT.saturating_sub(sent.elapsed());
        let Some(line) = engine.next_line(left) else {
            panic!(
                "`quit` sent during a level-30 genmove was not answered within {PROMPT:?}; \
                 got {lines:?}\n{}",
                engine.diagnosis()
            );
        };
        let done = line == "=2" || line.starts_with("=2 ");
        lines.push(line);
        if done {
            break;
        }
    }
    // Before `=2`: nothing, or the genmove's one response (`=1 MOVE` or `?1 ...`).
    let before = &lines[..lines.len() - 1];
    assert!(
        before.is_empty()
            || (before.len() == 2
                && (before[0].starts_with("=1 ") || before[0].starts_with("?1 "))
                && before[1].is_empty()),
        "unexpected lines before quit's answer: {before:?}"
    );
    assert_eq!(
        engine.next_line(PROMPT).as_deref(),
        Some(""),
        "quit's answer ends with a blank line"
    );
    let left = PROMPT.saturating_sub(sent.elapsed());
    assert_eq!(
        engine.wait_exit(left),
        Some(0),
        "not exited with status 0 within {PROMPT:?} of `quit`\n{}",
        engine.diagnosis()
    );
}

/// A line over 64 KiB is answered `? line too long` (with its id) instead of being dropped
/// unanswered, and the engine keeps answering.
#[test]
fn an_over_long_line_is_answered_line_too_long() {
    let mut engine = Engine::start(&["--gtp"]);
    engine.send(&format!("5 {}", "x".repeat(70_000)));
    engine.send("6 name");
    engine.send(&"y".repeat(100_000));
    engine.send("7 name");
    let mut lines = engine.read_until(TIMEOUT, |l| l.starts_with("=7"));
    lines.extend(engine.next_line(TIMEOUT));
    assert_eq!(
        lines,
        [
            "?5 line too long",
            "",
            "=6 tsuru",
            "",
            "? line too long",
            "",
            "=7 tsuru",
            ""
        ]
    );
    check_framing(&engine);
}

/// The clock panics of issue 18: absurd `time_settings` / `time_left` values are accepted or
/// refused, but the next `genmove` must answer a legal move (no `Duration` overflow).
#[test]
fn absurd_clock_values_do_not_crash_genmove() {
    let setups: &[&[&str]] = &[
        &["time_settings 1e300 0 0"],
        &[
            "time_settings 300 0 0",
            "time_left b 18446744073709551616 1",
        ],
        &["time_settings 300 0 0", "time_left b 1e300 0"],
        &[
            "time_settings 300 0 0",
            "time_left b 18446744073709551616 0",
        ],
        &["time_settings 0 1e300 1"],
        &["time_settings 0 1e300 0", "time_left b 1e300 1"],
        &["time_settings 1e300 1e300 4294967295"],
    ];
    // Every setup is tried; the failure lists all that failed (each one's panic is printed).
    let failed: Vec<&[&str]> = setups
        .iter()
        .copied()
        .filter(|setup| {
            std::panic::catch_unwind(|| {
                let mut engine = Engine::start(&["--gtp", "--level", "2"]);
                for command in *setup {
                    // Accepted or refused: either is fine.
                    gtp(&mut engine, command);
                }
                engine.send("genmove b");
                let answer = engine.next_line(TIMEOUT).unwrap_or_else(|| {
                    panic!(
                        "no answer to genmove after {setup:?}\n{}",
                        engine.diagnosis()
                    )
                });
                assert!(
                    answer.starts_with("= "),
                    "genmove after {setup:?} answered {answer:?}"
                );
                let mv: Move = answer[2..]
                    .parse()
                    .unwrap_or_else(|_| panic!("{answer:?} after {setup:?}"));
                assert!(Board::start().is_legal(mv), "{answer:?} after {setup:?}");
                assert_eq!(engine.next_line(TIMEOUT).as_deref(), Some(""));
                assert_eq!(ok(&mut engine, "name"), "tsuru", "alive after {setup:?}");
                let stderr = engine.lines_of(Stream::Stderr);
                assert!(
                    stderr.iter().all(|l| !l.contains("panicked")),
                    "{setup:?}: {stderr:?}"
                );
                check_framing(&engine);
            })
            .is_err()
        })
        .collect();
    assert!(failed.is_empty(), "genmove failed after {failed:?}");
}

/// A first line that is neither GTP nor NBoard gets a hint on stderr naming both protocols
/// (even with logging off), and detection goes on.
#[test]
fn an_unknown_first_line_gets_a_hint_on_stderr() {
    let mut engine = Engine::start_with_env(&[], &[("RUST_LOG", None)]);
    engine.send("hello");
    let seen = std::cell::RefCell::new(String::new());
    let found = engine.wait_for_any(Duration::from_secs(5), |stream, line| {
        if stream == Stream::Stderr {
            let mut seen = seen.borrow_mut();
            seen.push_str(&line.to_ascii_lowercase());
            seen.push('\n');
            seen.contains("nboard") && seen.contains("gtp")
        } else {
            false
        }
    });
    assert!(
        found,
        "no hint naming NBoard and GTP on stderr after `hello`; stderr: {:?}",
        seen.borrow()
    );
    assert!(seen.borrow().is_ascii());
    assert_eq!(ok(&mut engine, "protocol_version"), "2");
}

#[test]
fn win_probability_answers_the_side_to_moves_three_chances() {
    let mut engine = Engine::start(&["--gtp", "--threads", "1", "--level", "8"]);
    let chances = |engine: &mut Engine| -> Vec<f64> {
        let text = ok(engine, "tsuru-win_probability");
        text.split_whitespace()
            .map(|w| w.parse().unwrap())
            .collect()
    };
    let start = chances(&mut engine);
    assert_eq!(start.len(), 3, "{start:?}");
    assert!((start.iter().sum::<f64>() - 1.0).abs() < 0.001, "{start:?}");
    assert!(start.iter().all(|p| (0.0..=1.0).contains(p)), "{start:?}");
    // After a legal move it is the other side's chances.
    ok(&mut engine, "play b f5");
    assert_eq!(chances(&mut engine).len(), 3);
    ok(&mut engine, "quit");
}
