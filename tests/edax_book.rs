//! Edax's binary books: the sample Edax wrote itself (`../shared/data/edax-book/`, beside the
//! repository; skipped without it) is imported and checked against Edax's own listing of it;
//! export then import gives the same positions and values; damaged files are refused.

use std::path::PathBuf;

use tsuru_core::board::{bits, Board, Color, Move, Symmetry};
use tsuru_core::book::learn::Valuer;
use tsuru_core::book::{edax, Book, BookMove, Key};
use tsuru_core::formats::edax_book;
use tsuru_core::rng::Rng;
use tsuru_core::score::Discs;

fn shared(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/edax-book")
        .join(name)
}

fn sample() -> Option<Vec<u8>> {
    let path = shared("sample-edax.book.dat");
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(_) => {
            eprintln!("skipped: {} not found", path.display());
            None
        }
    }
}

#[test]
fn the_edax_sample_imports_as_edax_lists_it() {
    let Some(bytes) = sample() else { return };
    let raw = edax_book::from_bytes(&bytes).unwrap();
    assert_eq!(raw.positions.len(), 2284);
    let (book, report) = edax::import(&raw).unwrap();
    eprintln!("{}", report.lines().join("\n"));
    assert_eq!(report.read, 2284);
    assert_eq!(book.len() + report.passes + report.finished, 2284);
    assert_eq!(report.dangling, 0);
    assert_eq!(report.changed_values, 0);
    // Edax's listing: board (X to move), level, leaf move, leaf value.
    let listing = std::fs::read_to_string(shared("sample-edax.book.export.txt")).unwrap();
    let mut checked = 0;
    for line in listing.lines() {
        let (board, rest) = line.split_once(' ').unwrap();
        let fields: Vec<&str> = rest.split(',').collect();
        let (mut player, mut opponent) = (0u64, 0u64);
        for (i, c) in board.chars().enumerate() {
            match c {
                'X' => player |= 1 << i,
                'O' => opponent |= 1 << i,
                _ => {}
            }
        }
        let position = Board::from_discs(player, opponent, Color::Black).unwrap();
        let key = Key::of(&position).0;
        let Some(entry) = book.get(&key) else {
            assert!(!position.has_legal_move(), "{line}");
            continue;
        };
        assert_eq!(entry.depth.to_string(), fields[1], "{line}");
        match entry.leaf {
            Some(leaf) => {
                assert_eq!(leaf.square.to_string(), fields[2], "{line}");
                assert_eq!(leaf.value.get().to_string(), fields[3], "{line}");
            }
            None => assert_eq!(fields[2], "--", "{line}"),
        }
        checked += 1;
    }
    assert_eq!(checked, book.len());
}

/// Values the lowest open move (in the position's canonical orientation) by its square.
struct Lowest;

impl Valuer for Lowest {
    fn best_outside(&mut self, board: &Board, exclude: u64) -> Option<BookMove> {
        let (_, to_key) = Key::of(board);
        bits::squares(board.legal_moves() & !exclude)
            .min_by_key(|&sq| to_key.apply(sq).index())
            .map(|square| BookMove {
                square,
                value: Discs::new(to_key.apply(square).index() as i32 % 9 - 4),
            })
    }

    fn depth(&self) -> u8 {
        5
    }
}

/// Whole random games (with their passes and final scores) learnt into a book.
fn learnt_book(games: usize, seed: u64) -> Book {
    let mut rng = Rng::new(seed);
    let mut book = Book::new();
    let mut passes = 0;
    for _ in 0..games {
        let mut board = Board::start();
        let mut moves = Vec::new();
        while !board.is_game_over() {
            if board.must_pass() {
                board.make_pass();
                moves.push(Move::Pass);
                passes += 1;
                continue;
            }
            let legal: Vec<_> = bits::squares(board.legal_moves()).collect();
            let square = legal[rng.below(legal.len() as u64) as usize];
            board.make_move(square);
            moves.push(Move::Play(square));
        }
        book.learn_game(&Board::start(), &moves, &mut Lowest)
            .unwrap();
    }
    assert!(passes > 0, "some game passes");
    book
}

#[test]
fn export_then_import_gives_the_same_positions_and_values() {
    for book in [tsuru_core::book::shipped().unwrap(), learnt_book(40, 3)] {
        let (exported, out) = edax::export(&book);
        let bytes = edax_book::to_bytes(&exported);
        let (back, report) = edax::import(&edax_book::from_bytes(&bytes).unwrap()).unwrap();
        assert_eq!(out.written, book.len() + out.passes + out.finished);
        assert_eq!((report.passes, report.finished), (out.passes, out.finished));
        assert_eq!((report.dangling, report.changed_values), (0, 0));
        // Positions, links, leaves, values, game counts and depths: the same book.
        assert_eq!(back, book);
        for (key, entry) in book.sorted() {
            assert_eq!(back.get(key).unwrap().value(), entry.value());
        }
    }
    // The learnt games end, and some pass: Edax gets those positions of its own.
    let (_, out) = edax::export(&learnt_book(40, 3));
    assert!(out.passes > 0 && out.finished > 0, "{out:?}");
}

#[test]
fn the_eight_symmetries_of_a_position_find_one_entry() {
    let book = match sample() {
        Some(bytes) => {
            edax::import(&edax_book::from_bytes(&bytes).unwrap())
                .unwrap()
                .0
        }
        None => tsuru_core::book::shipped().unwrap(),
    };
    let mut board = Board::start();
    for mv in tsuru_core::board::notation::parse_transcript("f5d6c3").unwrap() {
        board.play(mv).unwrap();
    }
    let moves = book.moves(&board).expect("f5d6c3 is in the book");
    assert!(moves.len() >= 2, "{moves:?}");
    for s in Symmetry::ALL {
        let image = board.transformed(s);
        let turned = book.moves(&image).expect("every form finds the entry");
        assert_eq!(turned.len(), moves.len());
        // Equal values come in square order, which the symmetry changes: match by square.
        for a in &moves {
            let b = turned.iter().find(|b| b.square == s.apply(a.square));
            let b = b.unwrap_or_else(|| panic!("{s:?}: {} not found turned", a.square));
            assert_eq!((a.value, a.in_book), (b.value, b.in_book), "{s:?}");
            assert!(image.is_legal(Move::Play(b.square)));
        }
    }
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tsuru-edax-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The data folder the commands are given (never the real user's).
fn xdg() -> PathBuf {
    std::env::temp_dir().join(format!("tsuru-edax-test-{}-xdg", std::process::id()))
}

fn tsuru(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tsuru"))
        .args(args)
        .env("XDG_DATA_HOME", xdg())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "tsuru {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.is_ascii());
    text
}

#[test]
fn the_commands_round_trip_the_shipped_book_and_name_what_is_not_mapped() {
    let dir = temp("commands");
    let dat = dir.join("shipped.dat");
    let back = dir.join("back.book");
    let said = tsuru(&["book", "export-edax", dat.to_str().unwrap()]);
    assert!(said.contains("not mapped: Edax's value bounds"), "{said}");
    assert!(said.contains("16419 positions"), "{said}");
    let said = tsuru(&[
        "book",
        "import-edax",
        dat.to_str().unwrap(),
        "--book",
        back.to_str().unwrap(),
    ]);
    assert!(
        said.contains("not mapped: Edax's unterminated line counts"),
        "{said}"
    );
    assert_eq!(std::fs::read(&back).unwrap(), tsuru_core::book::SHIPPED);
    // Without --book the Edax book is merged into the per-user book, made from the shipped
    // one first.
    if sample().is_some() {
        merge_the_sample_into_the_user_book();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

fn merge_the_sample_into_the_user_book() {
    let said = tsuru(&[
        "book",
        "import-edax",
        shared("sample-edax.book.dat").to_str().unwrap(),
    ]);
    assert!(said.contains("merged into the per-user book"), "{said}");
    let user = tsuru_core::book::file::load(&xdg().join("tsuru/book")).unwrap();
    let (sample, _) = edax::load(&shared("sample-edax.book.dat")).unwrap();
    let shipped = tsuru_core::book::shipped().unwrap();
    for (key, _) in sample.sorted().into_iter().chain(shipped.sorted()) {
        assert!(user.get(key).is_some());
    }
}

#[test]
fn merge_joins_books_on_the_command_line() {
    let dir = temp("merge");
    let games = [
        "f5d6c3d3c4f4f6f3e6e7",
        "f5f6e6f4e3c5c6d6",
        "e6f4e3f6g5d6e7f5c5",
        "d3c5f6f5e6e3",
    ];
    let part = |name: &str, games: &[&str]| {
        let list = dir.join(format!("{name}.txt"));
        std::fs::write(&list, games.join("\n")).unwrap();
        let book = dir.join(format!("{name}.book"));
        let (b, l) = (book.to_str().unwrap(), list.to_str().unwrap());
        tsuru(&["book", "learn", "--book", b, "--depth", "1", l]);
        book
    };
    let (one, two) = (part("one", &games[..2]), part("two", &games[2..]));
    let all = dir.join("all.book");
    let (o, t, a) = (
        one.to_str().unwrap(),
        two.to_str().unwrap(),
        all.to_str().unwrap(),
    );
    let said = tsuru(&["book", "merge", o, t, "--out", a, "--depth", "1"]);
    assert!(said.starts_with("2 books merged"), "{said}");
    let load = |p: &PathBuf| tsuru_core::book::file::load(p).unwrap();
    let (one_book, two_book, merged) = (load(&one), load(&two), load(&all));
    let start = Key::of(&Board::start()).0;
    assert_eq!(
        merged.get(&start).unwrap().games.total(),
        1,
        "one game ended"
    );
    for (key, _) in one_book.sorted().into_iter().chain(two_book.sorted()) {
        assert!(merged.get(key).is_some());
    }
    // A book merged with itself: the same positions and values, counts doubled.
    tsuru(&["book", "merge", o, o, "--out", a]);
    let twice = load(&all);
    assert_eq!(twice.len(), one_book.len());
    for (key, entry) in one_book.sorted() {
        let doubled = twice.get(key).unwrap();
        assert_eq!(doubled.value(), entry.value());
        assert_eq!(doubled.games.total(), 2 * entry.games.total());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
