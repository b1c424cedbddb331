//! The opening book through the binary: `tsuru book ...` and the engine with `--book`, over
//! pipes as NBoard and GTP drive it.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::nboard::check_line;
use common::run_tsuru as tsuru;
use common::{gtp, Engine, Stream, START_BO, TIMEOUT, TSURU};
use tsuru_core::board::{notation, Board, Move};
use tsuru_core::book::file;
use tsuru_core::book::{Book, BookEntry, BookMove, Key};
use tsuru_core::rng::Rng;
use tsuru_core::score::Discs;

/// A nine-move game Black wins 64-0.
const WIPEOUT: &str = "e6f4e3f6g5d6e7f5c5";

/// A fresh folder for one test's files.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tsuru-book-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn ok(args: &[&str]) -> String {
    let out = tsuru(args);
    assert!(
        out.status.success(),
        "tsuru {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn fails(args: &[&str]) -> String {
    let out = tsuru(args);
    assert!(!out.status.success(), "tsuru {args:?} should fail");
    String::from_utf8(out.stderr).unwrap()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A small book built by search at depth 2.
fn built_book(dir: &Path, positions: u32) -> PathBuf {
    let book = dir.join("small.book");
    let n = positions.to_string();
    ok(&[
        "book",
        "build",
        "--book",
        path(&book),
        "--depth",
        "2",
        "--positions",
        &n,
    ]);
    book
}

fn after(moves: &str) -> Board {
    let mut board = Board::start();
    notation::play_moves(&mut board, &notation::parse_transcript(moves).unwrap()).unwrap();
    board
}

#[test]
fn build_export_import_gives_the_same_bytes_and_symmetric_moves_one_value() {
    let dir = folder("roundtrip");
    let book = built_book(&dir, 12);
    let text = dir.join("book.txt");
    ok(&[
        "book",
        "export",
        "--book",
        path(&book),
        "--out",
        path(&text),
    ]);
    let copy = dir.join("copy.book");
    ok(&["book", "import", "--book", path(&copy), path(&text)]);
    assert_eq!(std::fs::read(&book).unwrap(), std::fs::read(&copy).unwrap());
    let exported = ok(&["book", "export", "--book", path(&copy)]);
    assert_eq!(exported, std::fs::read_to_string(&text).unwrap());
    assert_eq!(
        exported.lines().count(),
        1 + 12,
        "a header and one line a position"
    );

    // The start's four moves lead to one position: one entry, so one value for all four.
    let loaded = file::load(&book).unwrap();
    let moves = loaded.moves(&Board::start()).unwrap();
    assert_eq!(moves.len(), 4);
    assert!(moves.iter().all(|m| m.in_book && m.value == moves[0].value));
    let child = Key::of(&after("f5")).0;
    for first in ["f5", "d3", "c4", "e6"] {
        assert_eq!(Key::of(&after(first)).0, child);
    }
    let shown = ok(&["book", "show", "--book", path(&book), "d3"]);
    assert!(shown.contains("value"), "{shown}");
    let stats = ok(&["book", "stats", "--book", path(&book)]);
    assert!(stats.contains("positions   12"), "{stats}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn damaged_book_files_give_clear_errors() {
    let dir = folder("damaged");
    let book = built_book(&dir, 6);
    let bytes = std::fs::read(&book).unwrap();
    let cut = dir.join("cut.book");
    std::fs::write(&cut, &bytes[..bytes.len() - 20]).unwrap();
    let err = fails(&["book", "stats", "--book", path(&cut)]);
    assert!(err.contains("truncated"), "{err}");
    let err = fails(&["--book", path(&cut)]);
    assert!(err.contains("truncated"), "{err}");
    let mut bent = bytes.clone();
    bent[40] ^= 4;
    let corrupt = dir.join("corrupt.book");
    std::fs::write(&corrupt, &bent).unwrap();
    let err = fails(&["book", "show", "--book", path(&corrupt)]);
    assert!(err.contains("corrupted"), "{err}");
    let err = fails(&["book", "stats", "--book", "Cargo.toml"]);
    assert!(err.contains("not a tsuru book"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Ctrl-C during a build: the book is saved at once (not only at the next 30 s save), stdout
/// has only the usual summary line, and the exit is clean.
#[cfg(unix)]
#[test]
fn ctrl_c_during_a_build_saves_the_book_and_exits_cleanly() {
    use std::io::Read;
    let dir = folder("interrupt");
    let book = dir.join("interrupted.book");
    // A window no build at depth 6 gets through in the test's time.
    let mut child = Command::new(TSURU)
        .args([
            "book",
            "build",
            "--book",
            path(&book),
            "--depth",
            "6",
            "--window",
            "64",
            "--positions",
            "100000000",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut buffer = [0u8; 4096];
        while let Ok(n @ 1..) = stderr.read(&mut buffer) {
            all.extend_from_slice(&buffer[..n]);
            let _ = tx.send(());
        }
        String::from_utf8(all).unwrap()
    });
    // The first progress line comes after the handler is in place and a second of building.
    rx.recv_timeout(TIMEOUT)
        .expect("a progress line before Ctrl-C");
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < TIMEOUT, "the build did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let stderr = reader.join().unwrap();
    assert!(status.success(), "{status:?}: {stderr}");
    assert!(stderr.contains("Ctrl-C: saving"), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    assert!(lines[0].contains("stopped by Ctrl-C"), "{stdout}");
    // Everything the summary counts is in the file.
    let saved = file::load(&book).unwrap();
    assert!(saved.len() > 1);
    assert!(
        lines[0].starts_with(&format!("{} positions ", saved.len())),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `count` random finished games as transcripts (seeded).
fn random_games(count: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| {
            let mut board = Board::start();
            let mut moves = Vec::new();
            while !board.is_game_over() {
                if board.must_pass() {
                    board.make_pass();
                    continue;
                }
                let square = rng.pick(board.legal_moves());
                board.play(Move::Play(square)).unwrap();
                moves.push(Move::Play(square));
            }
            notation::transcript(moves)
        })
        .collect()
}

#[test]
fn a_book_killed_while_learning_keeps_every_earlier_game() {
    let dir = folder("killed");
    let games = random_games(300, 21);
    let list = dir.join("games.txt");
    std::fs::write(&list, games.join("\n")).unwrap();
    let book = dir.join("learned.book");
    let mut child = Command::new(TSURU)
        .args([
            "book",
            "learn",
            "--book",
            path(&book),
            "--depth",
            "1",
            path(&list),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wherever the kill lands (even after the last game), the file must hold whole games.
    std::thread::sleep(Duration::from_millis(400));
    let _ = child.kill();
    child.wait().unwrap();
    if !book.exists() {
        return; // Killed before the first game was written: nothing to check.
    }
    let loaded = file::load(&book).expect("the book file is whole after a kill");
    let learned = loaded
        .get(&Key::of(&Board::start()).0)
        .map_or(0, |entry| entry.games.total()) as usize;
    assert!(learned >= 1 && learned <= games.len());
    for game in &games[..learned] {
        let mut board = Board::start();
        for mv in notation::parse_transcript(game).unwrap() {
            if board.must_pass() {
                board.make_pass();
            }
            assert!(loaded.contains(&board), "a position of {game}");
            board.play(mv).unwrap();
        }
    }
    // Learning again after the kill works (the leftover temporary file is replaced).
    let few = dir.join("few.txt");
    std::fs::write(&few, WIPEOUT).unwrap();
    ok(&[
        "book",
        "learn",
        "--book",
        path(&book),
        "--depth",
        "1",
        path(&few),
    ]);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn nboard_game(moves: &str) -> String {
    format!("(;GM[Othello]PC[NBoard]PB[a]PW[b]RE[?]TI[5:00]TY[8]{START_BO}{moves};)")
}

/// The GGF moves of a transcript, Black first.
fn ggf_moves(transcript: &str) -> String {
    notation::parse_transcript(transcript)
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, m)| format!("{}[{m}]", if i % 2 == 0 { "B" } else { "W" }))
        .collect()
}

/// NBoard's `set contempt N` (a book draw is worth N discs to Black) values the book's draws
/// in both `hint`'s `book` lines and `go`'s choice. After f5, White to move: the book move F6
/// is a draw, the best move outside the book D6 loses by 1.
#[test]
fn set_contempt_values_book_draws_in_hint_and_go() {
    let dir = folder("contempt");
    let book_path = dir.join("draw.book");
    let board = after("f5");
    let (key, to_key) = Key::of(&board);
    let canonical = |square: &str| to_key.apply(square.parse().unwrap());
    let mut book = Book::new();
    let entry = BookEntry {
        links: vec![BookMove {
            square: canonical("f6"),
            value: Discs::ZERO,
        }],
        leaf: Some(BookMove {
            square: canonical("d6"),
            value: Discs::new(-1),
        }),
        depth: 4,
        ..BookEntry::default()
    };
    book.insert_checked(key, entry).unwrap();
    file::save(&book, &book_path).unwrap();

    let mut engine = Engine::start(&["--book", path(&book_path)]);
    engine.send("nboard 2");
    engine.send("set depth 2");
    engine.send(&format!("set game {}", nboard_game(&ggf_moves("f5"))));
    // (contempt sent, White's book line, go's answer): 100 is clamped to 64.
    let cases = [
        (0, "book F6 +0.00 0 4", "=== F6/+0.00/0.00"),
        (64, "book F6 -64.00 0 4", "=== D6/-1.00/0.00"),
        (100, "book F6 -64.00 0 4", "=== D6/-1.00/0.00"),
        (-3, "book F6 +3.00 0 4", "=== F6/+3.00/0.00"),
        (-1, "book F6 +1.00 0 4", "=== F6/+1.00/0.00"),
    ];
    for (ping, (contempt, book_line, answer)) in cases.into_iter().enumerate() {
        engine.send(&format!("set contempt {contempt}"));
        engine.send(&format!("ping {ping}"));
        engine.send("hint 1");
        engine.read_until(TIMEOUT, |l| l == format!("pong {ping}"));
        let lines = engine.read_until(TIMEOUT, |l| l == "status");
        let books: Vec<&String> = lines.iter().filter(|l| l.starts_with("book ")).collect();
        assert_eq!(books, [book_line], "contempt {contempt}: {lines:?}");
        for line in &lines {
            check_line(Stream::Stdout, line).unwrap();
        }
        engine.send("go");
        let said = engine.read_until(TIMEOUT, |l| l.starts_with("=== "));
        assert_eq!(
            said.last().unwrap(),
            answer,
            "contempt {contempt}: {said:?}"
        );
    }
    engine.send("quit");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn hint_prints_book_lines_first_and_go_answers_from_the_book() {
    let dir = folder("hint");
    let book = built_book(&dir, 20);
    let loaded = file::load(&book).unwrap();
    // A book position where some move is outside the book: its leaf is searched.
    let position = ["f5", "f5d6", "f5f6", "f5d6c3", "f5f4"]
        .into_iter()
        .find(|moves| {
            loaded
                .moves(&after(moves))
                .is_some_and(|m| m.iter().any(|c| c.in_book) && m.iter().any(|c| !c.in_book))
        })
        .expect("a book position with moves outside the book");
    let links: Vec<String> = loaded
        .moves(&after(position))
        .unwrap()
        .iter()
        .filter(|c| c.in_book)
        .map(|c| c.square.to_string())
        .collect();
    let mut engine = Engine::start(&["--book", path(&book)]);
    engine.send("nboard 2");
    engine.send("set depth 2");
    engine.send(&format!("set game {}", nboard_game(&ggf_moves(position))));
    engine.send("ping 1");
    engine.send("hint 3");
    engine.read_until(TIMEOUT, |l| l == "pong 1");
    let lines = engine.read_until(TIMEOUT, |l| l == "status");
    let books: Vec<&String> = lines.iter().filter(|l| l.starts_with("book ")).collect();
    assert_eq!(books.len(), links.len(), "{lines:?}");
    let first_search = lines.iter().position(|l| l.starts_with("search "));
    let last_book = lines.iter().rposition(|l| l.starts_with("book ")).unwrap();
    assert!(
        first_search.is_some(),
        "the moves outside the book are searched: {lines:?}"
    );
    assert!(last_book < first_search.unwrap(), "{lines:?}");
    for line in &lines {
        if let Some(rest) = line.strip_prefix("search ") {
            let mv = &rest[..2];
            assert!(
                !links.iter().any(|l| l == mv),
                "book move {mv} searched: {line}"
            );
        }
    }
    engine.send("go");
    let answer = engine.read_until(TIMEOUT, |l| l.starts_with("=== "));
    let played = &answer.last().unwrap()[4..6];
    let best = loaded.moves(&after(position)).unwrap()[0];
    assert_eq!(played, best.square.to_string(), "{answer:?}");
    assert!(
        !answer.iter().any(|l| l.starts_with("search ")),
        "no search in a book position: {answer:?}"
    );
    engine.send("quit");
    engine.wait_exit(TIMEOUT);
    for (stream, line) in &engine.transcript {
        if let Err(why) = check_line(*stream, line) {
            panic!("{stream:?} line {line:?} would be rejected: {why}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Over NBoard: the engine learns the WIPEOUT game (`learn` answers `learned`), then, set
/// one move before the game's end, plays that last move from its book at once.
fn learn_the_wipeout_and_play_its_last_move(engine: &mut Engine) {
    engine.send("nboard 2");
    engine.send("set depth 2");
    engine.send(&format!("set game {}", nboard_game(&ggf_moves(WIPEOUT))));
    engine.send("learn");
    engine.read_until(TIMEOUT, |l| l == "learned");
    let before_last = &WIPEOUT[..WIPEOUT.len() - 2];
    engine.send(&format!(
        "set game {}",
        nboard_game(&ggf_moves(before_last))
    ));
    engine.send("go");
    let answer = engine.read_until(TIMEOUT, |l| l.starts_with("=== "));
    assert_eq!(answer.last().unwrap(), "=== C5/+64.00/0.00");
}

#[test]
fn learn_answers_learned_and_the_game_is_in_the_book() {
    let dir = folder("learn");
    let book = dir.join("new.book");
    let mut engine = Engine::start(&["--book", path(&book)]);
    learn_the_wipeout_and_play_its_last_move(&mut engine);
    engine.send("quit");
    engine.wait_exit(TIMEOUT);
    assert!(engine
        .lines_of(Stream::Stdout)
        .iter()
        .all(|l| check_line(Stream::Stdout, l).is_ok()));

    let loaded: Book = file::load(&book).unwrap();
    let root = loaded.get(&Key::of(&Board::start()).0).unwrap();
    assert_eq!((root.games.wins, root.games.total()), (1, 1));
    let before_last = &WIPEOUT[..WIPEOUT.len() - 2];
    let shown = ok(&["book", "show", "--book", path(&book), before_last]);
    assert!(shown.contains("C5    +64.00"), "{shown}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gtp_genmove_answers_from_the_book() {
    let dir = folder("gtp");
    let book = built_book(&dir, 8);
    let mut engine = Engine::start(&["--gtp", "--book", path(&book)]);
    // The four first moves are worth the same: the first in square order is played.
    assert_eq!(gtp(&mut engine, "genmove b"), (true, "D3".to_string()));
    let (success, reply) = gtp(&mut engine, "genmove w");
    assert!(success);
    let loaded = file::load(&book).unwrap();
    assert_eq!(
        reply,
        loaded.moves(&after("d3")).unwrap()[0].square.to_string()
    );
    gtp(&mut engine, "quit");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_shipped_book_plays_by_default_and_learns_in_memory() {
    // GTP: the first move comes from the shipped book (the four first moves are worth the
    // same there: the first in square order is played), a search's moves with --no-book.
    let info = [("RUST_LOG", Some("info"))];
    let mut engine = Engine::start_with_shipped_book(&["--gtp"]);
    assert_eq!(gtp(&mut engine, "genmove b"), (true, "D3".to_string()));
    let shipped = tsuru_core::book::shipped().unwrap();
    let (success, reply) = gtp(&mut engine, "genmove w");
    assert!(success);
    assert_eq!(
        reply,
        shipped.moves(&after("d3")).unwrap()[0].square.to_string()
    );
    gtp(&mut engine, "quit");
    let mut engine = Engine::start_with_env(&["--gtp", "--level", "1"], &info);
    assert!(gtp(&mut engine, "genmove b").0);
    gtp(&mut engine, "quit");
    engine.wait_exit(TIMEOUT);
    assert!(
        !engine
            .lines_of(Stream::Stderr)
            .iter()
            .any(|l| l.contains("from the book")),
        "{:?}",
        engine.lines_of(Stream::Stderr)
    );

    // NBoard: with no per-user folder to keep a book in, learn changes the engine's copy of
    // the shipped book, and says no file is written (tests/user_book.rs: the per-user book).
    let nowhere = [
        ("RUST_LOG", Some("info")),
        ("XDG_DATA_HOME", Some("relative")),
        ("HOME", None),
    ];
    let mut engine = Engine::start_with_shipped_book_and_env(&[], &nowhere);
    learn_the_wipeout_and_play_its_last_move(&mut engine);
    engine.send("quit");
    engine.wait_exit(TIMEOUT);
    assert!(
        engine
            .lines_of(Stream::Stderr)
            .iter()
            .any(|l| l.contains("the shipped book is changed in memory only")),
        "{:?}",
        engine.lines_of(Stream::Stderr)
    );

    // The tool reads the shipped book without --book (no per-user book has been made).
    let stats = ok(&["book", "stats"]);
    assert!(
        stats.contains(&format!(
            "file        the shipped book (no per-user book yet) ({} bytes)",
            tsuru_core::book::SHIPPED.len()
        )),
        "{stats}"
    );
    assert!(
        stats.contains(&format!("positions   {}\n", shipped.len())),
        "{stats}"
    );
    assert_eq!(ok(&["book", "export"]), file::to_text(&shipped));
    let err = fails(&["book", "import", "x.txt"]);
    assert!(err.contains("tsuru book import needs --book FILE"), "{err}");
}
