//! Edax's binary books: the sample Edax wrote itself (`../shared/data/edax-book/`, beside the
//! repository; skipped without it) is imported and checked against Edax's own listing of it;
//! export then import gives the same positions and values; damaged files are refused.

use std::path::PathBuf;

use tsuru::board::{bits, Board, Color, Move, Symmetry};
use tsuru::book::learn::Valuer;
use tsuru::book::{edax, Book, BookMove, Key};
use tsuru::formats::edax_book;
use tsuru::rng::Rng;
use tsuru::score::Discs;

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
                assert_eq!(leaf.value.0.to_string(), fields[3], "{line}");
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
                value: Discs(to_key.apply(square).index() as i32 % 9 - 4),
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
    for book in [tsuru::book::shipped().unwrap(), learnt_book(40, 3)] {
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
        None => tsuru::book::shipped().unwrap(),
    };
    let mut board = Board::start();
    for mv in tsuru::board::notation::parse_transcript("f5d6c3").unwrap() {
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
