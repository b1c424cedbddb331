//! Pondering (`--ponder`), driven over pipes as NBoard and a GTP controller drive it: the
//! engine searches on the opponent's time, answers every command as promptly as during a
//! search, goes on with its search when the expected reply comes, and leaves no thread
//! behind.

mod common;

use std::time::{Duration, Instant};

use common::nboard::check_line;
use common::{gtp, Engine, Pong, PROMPT, START_BO, TIMEOUT};

fn game(moves: &str) -> String {
    format!("(;GM[Othello]PC[NBoard]TY[8]{START_BO}{moves};)")
}

/// Waits until the engine runs `threads` threads (Linux; `false` without /proc).
fn reaches_thread_count(engine: &Engine, threads: usize) -> bool {
    let deadline = Instant::now() + PROMPT;
    while let Some(count) = engine.thread_count() {
        if count == threads {
            return true;
        }
        assert!(
            Instant::now() < deadline,
            "{count} threads, not {threads} as expected"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

/// `go` until `===`: the principal variation of the last `search` line (its first move
/// checked against the answer), the seconds of the `nodestats` line (the search's own time)
/// and of the `===` line (the time of the request).
fn go(engine: &mut Engine) -> (Vec<String>, f64, f64) {
    engine.send("go");
    let lines = engine.read_until(TIMEOUT, |l| l.starts_with("=== "));
    let pv: Vec<String> = lines
        .iter()
        .rev()
        .find_map(|l| l.strip_prefix("search "))
        .and_then(|rest| rest.split_whitespace().next())
        .map(|pv| pv.split('-').map(str::to_string).collect())
        .unwrap_or_default();
    let seconds = |line: Option<&String>, field: usize| -> f64 {
        line.and_then(|l| l.split(['/', ' ']).nth(field))
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no time in {lines:?}"))
    };
    let searched = seconds(lines.iter().find(|l| l.starts_with("nodestats ")), 2);
    let answered = seconds(lines.last(), 3);
    let answer = lines.last().unwrap()[4..6].to_string();
    assert_eq!(
        pv.first(),
        Some(&answer),
        "the line of the answer: {lines:?}"
    );
    (pv, searched, answered)
}

#[test]
fn nboard_ponders_on_the_expected_reply_and_answers_every_command_promptly() {
    let mut engine = Engine::start(&["--ponder", "--threads", "1", "--move-time", "0.2"]);
    engine.send("nboard 2");
    engine.send("set depth 60");
    engine.send(&format!("set game {}", game("")));
    engine.ping(1);
    let idle = engine.thread_count();
    let (pv, _, _) = go(&mut engine);
    assert!(pv.len() >= 2, "a line with the reply it expects: {pv:?}");
    // NBoard plays the engine's move on its board and sends it back.
    engine.send(&format!("move {}/0.00/0.20", pv[0]));
    let Pong {
        lines: printed,
        took: latency,
        ..
    } = engine.ping(2);
    eprintln!("pong latency while pondering: {latency:?}");
    assert_eq!(printed, ["pong 2"], "pondering prints nothing");
    if let Some(idle) = idle {
        assert!(
            reaches_thread_count(&engine, idle + 1),
            "the pondering thread"
        );
    }
    // The opponent thinks, then plays the reply the engine expected.
    std::thread::sleep(Duration::from_millis(800));
    engine.send(&format!("move {}//0.80", pv[1]));
    let printed = engine.ping(3).lines;
    assert_eq!(printed, ["pong 3"]);
    let (next_pv, searched, answered) = go(&mut engine);
    // The search that answered began before the request: pondering went on into it.
    assert!(
        searched >= 0.8 && answered < searched,
        "searched {searched} s, answered in {answered} s"
    );
    // Pondering again after the answer; another game stops it and its thread.
    engine.send(&format!("move {}", next_pv[0]));
    let printed = engine.ping(4).lines;
    assert_eq!(printed, ["pong 4"]);
    engine.send(&format!("set game {}", game("B[F5]W[F6]")));
    let Pong {
        lines: printed,
        took: latency,
        ..
    } = engine.ping(5);
    eprintln!("pong latency after set game while pondering: {latency:?}");
    assert_eq!(printed, ["pong 5"]);
    if let Some(idle) = idle {
        assert!(reaches_thread_count(&engine, idle), "pondering stopped");
    }
    // Pondering again, then quit: the engine ends at once.
    let (pv, _, _) = go(&mut engine);
    engine.send(&format!("move {}", pv[0]));
    std::thread::sleep(Duration::from_millis(200));
    let sent = Instant::now();
    engine.send("quit");
    assert_eq!(engine.wait_exit(PROMPT), Some(0), "{}", engine.diagnosis());
    eprintln!("exit after quit while pondering: {:?}", sent.elapsed());
    for (stream, line) in &engine.transcript {
        if let Err(why) = check_line(*stream, line) {
            panic!("{stream:?} line {line:?} would be rejected: {why}");
        }
    }
}

#[test]
fn a_reply_not_expected_stops_pondering_and_the_move_is_searched_afresh() {
    let mut engine = Engine::start(&["--ponder", "--threads", "1", "--move-time", "0.2"]);
    engine.send("nboard 2");
    engine.send("set depth 60");
    engine.send(&format!("set game {}", game("B[F5]")));
    let (pv, _, _) = go(&mut engine);
    let mut board = tsuru_core::board::Board::start();
    assert!(board.make_move("f5".parse().unwrap()));
    assert!(board.make_move(pv[0].parse().unwrap()));
    let other = tsuru_core::board::bits::squares(board.legal_moves())
        .map(|square| square.to_string())
        .find(|square| !square.eq_ignore_ascii_case(&pv[1]))
        .expect("several replies");
    engine.send(&format!("move {}", pv[0]));
    std::thread::sleep(Duration::from_millis(500));
    engine.send(&format!("move {other}"));
    let (_, searched, answered) = go(&mut engine);
    // A search of its own: it began with the request.
    assert!(searched <= answered + 0.01, "{searched} {answered}");
    // End of input while pondering ends the engine.
    engine.send(&format!("move {}", pv[0]));
    engine.close();
    assert_eq!(engine.wait_exit(PROMPT), Some(0), "{}", engine.diagnosis());
}

#[test]
fn gtp_ponders_between_genmoves_and_answers_every_command_promptly() {
    let mut engine = Engine::start(&[
        "--gtp",
        "--ponder",
        "--threads",
        "1",
        "--move-time",
        "0.2",
        "--level",
        "60",
    ]);
    assert!(gtp(&mut engine, "clear_board").0);
    let idle = engine.thread_count();
    let (ok, own) = gtp(&mut engine, "genmove b");
    assert!(ok, "{own}");
    if let Some(idle) = idle {
        assert!(
            reaches_thread_count(&engine, idle + 1),
            "the pondering thread"
        );
    }
    let sent = Instant::now();
    assert_eq!(gtp(&mut engine, "name"), (true, "tsuru".to_string()));
    eprintln!("GTP answer latency while pondering: {:?}", sent.elapsed());
    // Whatever White plays, the next genmove answers within its time, with a legal move.
    let mut board = tsuru_core::board::Board::start();
    assert!(board.make_move(own.to_lowercase().parse().unwrap()));
    let reply = tsuru_core::board::bits::squares(board.legal_moves())
        .next()
        .unwrap();
    assert!(gtp(&mut engine, &format!("play w {reply}")).0);
    assert!(board.make_move(reply));
    let (ok, answer) = gtp(&mut engine, "genmove b");
    assert!(ok && board.make_move(answer.to_lowercase().parse().unwrap()));
    // A new game while pondering stops it and its thread.
    assert!(gtp(&mut engine, "clear_board").0);
    if let Some(idle) = idle {
        assert!(reaches_thread_count(&engine, idle), "pondering stopped");
    }
    assert!(gtp(&mut engine, "genmove b").0);
    let sent = Instant::now();
    engine.send("quit");
    engine.read_until(TIMEOUT, |l| l == "=");
    assert_eq!(engine.wait_exit(PROMPT), Some(0), "{}", engine.diagnosis());
    eprintln!("exit after quit while pondering: {:?}", sent.elapsed());
}
