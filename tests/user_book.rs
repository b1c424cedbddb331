//! The per-user book: with no `--book`, NBoard's `learn` writes to
//! `$XDG_DATA_HOME/tsuru/book` (made from the shipped book on first use), which the next
//! start reads; two engines learning into it at once lose no game; a SIGKILL during `learn`
//! loses at most that game. Every test has its own `XDG_DATA_HOME` in the temporary folder.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{run_tsuru, Engine, START_BO, TIMEOUT};
use tsuru_core::board::{Board, Color, Move};
use tsuru_core::book::file;
use tsuru_core::book::Key;
use tsuru_core::rng::Rng;

/// A fresh data folder for one test.
fn data_home(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tsuru-user-book-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn book_file(home: &Path) -> PathBuf {
    home.join("tsuru").join("book")
}

fn engine(home: &Path) -> Engine {
    let home = home.to_str().unwrap();
    let mut engine = Engine::start_with_shipped_book_and_env(&[], &[("XDG_DATA_HOME", Some(home))]);
    engine.send("nboard 2");
    engine.send("set depth 1");
    engine
}

/// A whole random game as (transcript, GGF moves with passes).
fn random_game(rng: &mut Rng) -> (Vec<Move>, String) {
    let mut board = Board::start();
    let (mut moves, mut ggf) = (Vec::new(), String::new());
    while !board.is_game_over() {
        let color = if board.side_to_move() == Color::Black {
            "B"
        } else {
            "W"
        };
        let mv = if board.must_pass() {
            Move::Pass
        } else {
            Move::Play(rng.pick(board.legal_moves()))
        };
        board.play(mv).unwrap();
        ggf.push_str(&format!(
            "{color}[{}]",
            if mv == Move::Pass {
                "PA".to_string()
            } else {
                mv.to_string()
            }
        ));
        moves.push(mv);
    }
    (moves, ggf)
}

fn set_game(engine: &mut Engine, ggf: &str) {
    engine.send(&format!(
        "set game (;GM[Othello]PC[NBoard]PB[a]PW[b]RE[?]TI[5:00]TY[8]{START_BO}{ggf};)"
    ));
}

fn learn(engine: &mut Engine, ggf: &str) {
    set_game(engine, ggf);
    engine.send("learn");
    let lines = engine.read_until(TIMEOUT, |l| l == "learned");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("learned"),
        "{lines:?}"
    );
}

/// Every position of the game is in the book file.
fn assert_learnt(book: &tsuru_core::book::Book, moves: &[Move]) {
    let mut board = Board::start();
    for &mv in moves {
        if board.must_pass() {
            board.make_pass();
        }
        if mv != Move::Pass {
            assert!(book.contains(&board), "a position of {moves:?}");
        }
        board.play(mv).unwrap_or(());
    }
}

fn start_games(book: &tsuru_core::book::Book) -> u32 {
    book.get(&Key::of(&Board::start()).0)
        .map_or(0, |e| e.games.total())
}

#[test]
fn the_path_is_under_xdg_data_home_else_home() {
    let home = data_home("path");
    let out = std::process::Command::new(common::TSURU)
        .args(["book", "path"])
        .env("XDG_DATA_HOME", &home)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        book_file(&home).to_str().unwrap()
    );
    let out = std::process::Command::new(common::TSURU)
        .args(["book", "path"])
        .env_remove("XDG_DATA_HOME")
        .env("HOME", &home)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        home.join(".local/share/tsuru/book").to_str().unwrap()
    );
    // The tests' own runs never name the real home.
    let ours = String::from_utf8(run_tsuru(&["book", "path"]).stdout).unwrap();
    assert!(
        ours.starts_with(std::env::temp_dir().to_str().unwrap()),
        "{ours}"
    );
    std::fs::remove_dir_all(&home).unwrap();
}

#[test]
fn learning_persists_across_a_restart() {
    let home = data_home("restart");
    let mut rng = Rng::new(5);
    let (moves, ggf) = random_game(&mut rng);
    let mut first = engine(&home);
    assert!(
        !book_file(&home).exists(),
        "nothing is written before a game is learnt"
    );
    learn(&mut first, &ggf);
    first.send("quit");
    first.wait_exit(TIMEOUT);
    let book = file::load(&book_file(&home)).unwrap();
    assert!(book.len() > tsuru_core::book::shipped().unwrap().len());
    assert_learnt(&book, &moves);
    assert_eq!(start_games(&book), 1);

    // The next start reads it: one move before the end, the last move comes from the book.
    let mut second = engine(&home);
    let before_last: String = {
        let cut = ggf.rfind("B[").max(ggf.rfind("W[")).unwrap();
        ggf[..cut].to_string()
    };
    set_game(&mut second, &before_last);
    second.send("go");
    let answer = second.read_until(TIMEOUT, |l| l.starts_with("=== "));
    // Answered from the book: at once, with no search status.
    assert!(answer.last().unwrap().ends_with("/0.00"), "{answer:?}");
    assert!(
        !answer.iter().any(|l| l.starts_with("status")),
        "{answer:?}"
    );
    // A second game adds to the same file.
    let (more, ggf) = random_game(&mut rng);
    learn(&mut second, &ggf);
    second.send("quit");
    second.wait_exit(TIMEOUT);
    let book = file::load(&book_file(&home)).unwrap();
    assert_learnt(&book, &moves);
    assert_learnt(&book, &more);
    assert_eq!(start_games(&book), 2);
    std::fs::remove_dir_all(&home).unwrap();
}

#[test]
fn two_engines_learning_into_one_book_lose_no_game() {
    let home = data_home("two");
    let mut rng = Rng::new(9);
    let mut engines = [engine(&home), engine(&home)];
    let mut games = Vec::new();
    for _ in 0..4 {
        // Both engines are sent their game before either is waited for.
        let round: Vec<(Vec<Move>, String)> = (0..2).map(|_| random_game(&mut rng)).collect();
        for (engine, (_, ggf)) in engines.iter_mut().zip(&round) {
            set_game(engine, ggf);
            engine.send("learn");
        }
        for engine in engines.iter_mut() {
            let lines = engine.read_until(TIMEOUT, |l| l == "learned");
            assert_eq!(lines.last().map(String::as_str), Some("learned"));
        }
        games.extend(round.into_iter().map(|(moves, _)| moves));
    }
    for mut engine in engines {
        engine.send("quit");
        engine.wait_exit(TIMEOUT);
    }
    let book = file::load(&book_file(&home)).unwrap();
    for moves in &games {
        assert_learnt(&book, moves);
    }
    assert_eq!(start_games(&book), games.len() as u32);
    std::fs::remove_dir_all(&home).unwrap();
}

#[test]
fn a_kill_during_learn_loses_at_most_that_game() {
    let home = data_home("kill");
    let book_path = book_file(&home);
    let temp = tsuru_core::formats::book::temp_path(&book_path);
    let mut rng = Rng::new(13);
    let mut kept: Vec<Vec<Move>> = Vec::new();
    let mut mid_write = 0;
    for round in 0..6 {
        let mut engine = engine(&home);
        let (moves, ggf) = random_game(&mut rng);
        learn(&mut engine, &ggf);
        kept.push(moves);
        // The next learn is killed (SIGKILL) as soon as its temporary file appears, while
        // the new book is being written: odd rounds at once, even rounds a moment later.
        let (_, ggf) = random_game(&mut rng);
        set_game(&mut engine, &ggf);
        engine.send("learn");
        let started = std::time::Instant::now();
        let mut answered = false;
        while started.elapsed() < TIMEOUT {
            if temp.exists() {
                if round % 2 == 0 {
                    std::thread::sleep(Duration::from_micros(300));
                }
                break;
            }
            if engine.next_line(Duration::from_micros(50)).as_deref() == Some("learned") {
                answered = true;
                break;
            }
        }
        engine.kill();
        if !answered && temp.exists() {
            mid_write += 1;
        }
        let book = file::load(&book_path).expect("the book is whole after a SIGKILL");
        for moves in &kept {
            assert_learnt(&book, moves);
        }
        let games = start_games(&book) as usize;
        assert!(
            games == kept.len() || games == kept.len() + 1,
            "{games} games for {} learnt",
            kept.len()
        );
        if games > kept.len() {
            // The killed game was written whole: it counts from now on.
            kept.push(Vec::new());
        }
    }
    // The kill really landed while the book was being written (the temporary file left).
    assert!(mid_write > 0, "no kill landed during a write");
    std::fs::remove_dir_all(&home).unwrap();
}

#[test]
fn the_book_tool_and_an_engine_learning_into_one_file_lose_no_game() {
    let home = data_home("tool");
    let book = home.join("shared.book");
    let mut rng = Rng::new(17);
    let tool_games: Vec<(Vec<Move>, String)> = (0..30).map(|_| random_game(&mut rng)).collect();
    let list = home.join("games.txt");
    let transcripts: Vec<String> = tool_games
        .iter()
        .map(|(moves, _)| tsuru_core::board::notation::transcript(moves.iter().copied()))
        .collect();
    std::fs::write(&list, transcripts.join("\n")).unwrap();
    let (b, l) = (book.to_str().unwrap(), list.to_str().unwrap());
    let mut tool = std::process::Command::new(common::TSURU)
        .args(["book", "learn", "--book", b, "--depth", "1", l])
        .env("XDG_DATA_HOME", &home)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut engine = Engine::start_with_shipped_book_and_env(
        &["--book", b],
        &[("XDG_DATA_HOME", Some(home.to_str().unwrap()))],
    );
    engine.send("nboard 2");
    engine.send("set depth 1");
    let engine_games: Vec<(Vec<Move>, String)> = (0..6).map(|_| random_game(&mut rng)).collect();
    for (_, ggf) in &engine_games {
        learn(&mut engine, ggf);
    }
    engine.send("quit");
    engine.wait_exit(TIMEOUT);
    assert!(tool.wait().unwrap().success());
    let learnt = file::load(&book).unwrap();
    for (moves, _) in tool_games.iter().chain(&engine_games) {
        assert_learnt(&learnt, moves);
    }
    assert_eq!(start_games(&learnt), 36);
    std::fs::remove_dir_all(&home).unwrap();
}

/// `tsuru book ACTION` run with `home` as the data folder: (stdout, stderr).
fn book_tool(home: &Path, args: &[&str]) -> (String, String) {
    let out = std::process::Command::new(common::TSURU)
        .arg("book")
        .args(args)
        .env("XDG_DATA_HOME", home)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn the_book_tools_read_the_book_the_engine_plays() {
    let home = data_home("tools");
    // Before any learn: the shipped book, and they say so.
    let (stats, _) = book_tool(&home, &["stats"]);
    assert!(stats.contains("the shipped book"), "{stats}");
    let shipped = tsuru_core::book::shipped().unwrap().len();
    assert!(
        stats.contains(&format!("positions   {shipped}\n")),
        "{stats}"
    );

    let mut rng = Rng::new(21);
    let (moves, ggf) = random_game(&mut rng);
    let mut engine = engine(&home);
    learn(&mut engine, &ggf);
    engine.send("quit");
    engine.wait_exit(TIMEOUT);
    let learnt = file::load(&book_file(&home)).unwrap();

    // After it: stats, show and export read the per-user book, name it, and show the game.
    let (stats, _) = book_tool(&home, &["stats"]);
    let path = book_file(&home);
    assert!(
        stats.contains(&format!("{} (the per-user book)", path.display())),
        "{stats}"
    );
    assert!(
        stats.contains(&format!("positions   {}\n", learnt.len())),
        "{stats}"
    );
    assert!(learnt.len() > shipped);
    // After the game's first three moves the book shows the game, played once, and its
    // fourth move among the book moves with that game.
    let line: String = moves[..3].iter().map(|m| m.to_string()).collect();
    let (show, said) = book_tool(&home, &["show", &line]);
    assert!(said.contains("the per-user book"), "{said}");
    assert!(show.contains(", games 1 ("), "{show}");
    let fourth = moves[3].to_string().to_uppercase();
    let row = show
        .lines()
        .find(|l| l.starts_with(&format!("{fourth} ")))
        .unwrap_or_else(|| panic!("{fourth} in {show}"));
    assert_eq!(row.split_whitespace().nth(2), Some("1"), "{row}");
    let (export, _) = book_tool(&home, &["export"]);
    assert_eq!(export, file::to_text(&learnt));
    std::fs::remove_dir_all(&home).unwrap();
}

#[test]
fn a_book_that_cannot_be_written_is_refused_at_start() {
    // A folder inside a file can never be made, whoever runs the test.
    let bad = format!("{}/x.book", common::TSURU);
    let out = std::process::Command::new(common::TSURU)
        .args(["--book", &bad])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success(), "{out:?}");
    let said = String::from_utf8(out.stderr).unwrap();
    assert!(said.contains(&bad), "{said}");
    assert!(said.contains("cannot be written"), "{said}");
    assert!(out.stdout.is_empty(), "nothing on the protocol's stream");
}
