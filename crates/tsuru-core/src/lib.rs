//! tsuru-core: the Othello engine's building blocks, as a library.
//!
//! ```text
//!   stdin/stdout
//!        |
//!   protocol (NBoard v2, GTP)      parse lines into typed commands, format replies
//!        |
//!   session                        owns the game and the board; commands are atomic
//!        |
//!   search (+ endgame solver)      iterative deepening, transposition table
//!        |
//!   board + eval                   mailbox with flip stack; static evaluation
//! ```
//!
//! The [`board`] module is the source of truth for positions; everything else reads it.
//!
//! **The library's API** is every module: [`board`] (positions, moves, notation, perft),
//! [`search`] (the search and the exact solver, with their limits), [`eval`] (the
//! evaluation), [`book`] (opening books), [`score`] (the score types), [`formats`] (the
//! project's files), [`config`] (the engine's settings, defaults and limits), [`identity`]
//! (the build's version line), [`review`] (game review: each move's loss against the best
//! move, the error totals, the decisive move, the value graph), [`rng`], [`client`] (a client of GTP and NBoard engines
//! over pipes, behind `tsuru match` and Python's `tsuru.engine`), [`cli`] (the command-line options the engine and every
//! tool share, and each tool's declared command line) and [`io`] (the pipes' line reader, ASCII
//! output, stdout that a closed pipe ends quietly, Ctrl-C as a request to stop).
//!
//! The engine (the `tsuru` package at the workspace's root: protocols, session, command line)
//! and the lab (`tsuru-lab`: match referee, training, data generation, measuring tools) are
//! built on this crate's public API; the compiler keeps them to it.
//!
//! # Using the engine as a library
//!
//! A position from a transcript, its legal moves, a move played and taken back:
//!
//! ```
//! use tsuru_core::board::{notation, Board, Color, Move};
//!
//! let mut board = Board::start();
//! notation::play_moves(&mut board, &notation::parse_transcript("f5d6c3").unwrap()).unwrap();
//! assert_eq!(board.side_to_move(), Color::White);
//! assert_eq!(board.legal_moves().count_ones(), 4);
//! board.play(Move::Play("d3".parse().unwrap())).unwrap();
//! assert_eq!(board.count(Color::White), 4); // d3 placed and one disc turned
//! board.undo();
//! assert_eq!(board.count(Color::White), 2);
//! // The leaves of the game tree four plies deep (a pass is a ply).
//! assert_eq!(tsuru_core::board::perft::perft(&mut Board::start(), 4), 244);
//! ```
//!
//! A search to a fixed depth, and an exact solve (FFO #1: the side to move wins by 18):
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use tsuru_core::board::{notation, Board};
//! use tsuru_core::search::{Depth, Level, Search, SearchConfig, SearchLimits};
//!
//! // Tables of 16 MiB, one thread; SearchConfig::new checks both against their ranges.
//! let mut search = Search::new(SearchConfig::new(16, 1).unwrap());
//! let stop = AtomicBool::new(false); // set it from another thread to stop the search
//! let limits = SearchLimits::for_level(Level::new(6).unwrap());
//! let result = search.iterate(&Board::start(), &limits, &stop, &mut |_| {});
//! assert_eq!(result.depth, Depth::Plies(6));
//! assert!(Board::start().legal_moves() & result.best.square().unwrap().bit() != 0);
//!
//! let ffo1 = notation::parse_board(
//!     "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X",
//! )
//! .unwrap();
//! let solved = search.iterate(&ffo1, &SearchLimits::for_level(Level::new(12).unwrap()), &stop, &mut |_| {});
//! assert_eq!(solved.depth, Depth::Exact);
//! assert_eq!(solved.best.to_string(), "G8");
//! assert_eq!(solved.score.discs(), 18.0);
//! ```
//!
//! The other limits: only win, loss or draw (the score is then -1, 0 or +1 disc); the best
//! three moves with their scores (multi-PV); a time per move; a node limit; and a stop
//! requested from another thread, after which the search returns its best result so far:
//!
//! ```
//! use std::sync::atomic::{AtomicBool, Ordering};
//! use std::time::{Duration, Instant};
//! use tsuru_core::board::{notation, Board, Color};
//! use tsuru_core::search::{Depth, Level, Search, SearchConfig, SearchLimits, TimeBudget};
//!
//! let mut search = Search::new(SearchConfig::new(16, 1).unwrap());
//! let never = AtomicBool::new(false);
//! let ffo1 = notation::parse_board(
//!     "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X",
//! )
//! .unwrap();
//! let wld = SearchLimits { exact_empties: 0, wld_empties: 60, ..SearchLimits::for_level(Level::new(4).unwrap()) };
//! let won = search.iterate(&ffo1, &wld, &never, &mut |_| {});
//! assert_eq!((won.depth, won.score.discs()), (Depth::WinLossDraw, 1.0));
//!
//! // The same position from its two bitboards (bit n is square n, a1 = 0).
//! let same = Board::from_discs(ffo1.discs(Color::Black), ffo1.discs(Color::White), Color::Black).unwrap();
//! let three = SearchLimits { multi_pv: 3, ..SearchLimits::for_level(Level::new(20).unwrap()) };
//! let lines = search.iterate(&same, &three, &never, &mut |_| {}).lines;
//! let best: Vec<(String, f64)> = lines.iter().map(|l| (l.mv.to_string(), l.score.discs())).collect();
//! assert_eq!(best, [("G8".to_string(), 18.0), ("H1".to_string(), 12.0), ("A2".to_string(), 6.0)]);
//!
//! let mut opening = Board::start();
//! notation::play_moves(&mut opening, &notation::parse_transcript("f5d6c3d3c4").unwrap()).unwrap();
//! let timed = SearchLimits {
//!     time: Some(TimeBudget::per_move(Duration::from_millis(50))),
//!     ..SearchLimits::for_level(Level::new(60).unwrap())
//! };
//! let started = Instant::now();
//! let result = search.iterate(&opening, &timed, &never, &mut |_| {});
//! assert!(!result.completed && started.elapsed() < Duration::from_secs(2));
//!
//! let counted = SearchLimits { nodes: Some(5_000), ..SearchLimits::for_level(Level::new(60).unwrap()) };
//! assert!(search.iterate(&opening, &counted, &never, &mut |_| {}).nodes < 10_000);
//!
//! let stop = AtomicBool::new(false);
//! let unlimited = SearchLimits::for_level(Level::new(60).unwrap());
//! let stopped = std::thread::scope(|scope| {
//!     scope.spawn(|| {
//!         std::thread::sleep(Duration::from_millis(50));
//!         stop.store(true, Ordering::Relaxed);
//!     });
//!     search.iterate(&opening, &unlimited, &stop, &mut |_| {})
//! });
//! assert!(!stopped.completed && opening.is_legal(stopped.best));
//! ```
//!
//! The shipped opening book's moves and values, the static evaluation, and the leaf count of
//! the game tree (perft):
//!
//! ```
//! use tsuru_core::board::{notation, perft::perft, Board};
//! use tsuru_core::eval::{EvalBundle, Evaluation};
//!
//! let book = tsuru_core::book::shipped().unwrap();
//! let mut board = Board::start();
//! notation::play_moves(&mut board, &notation::parse_transcript("f5").unwrap()).unwrap();
//! let moves = book.moves(&board).unwrap(); // None outside the book
//! assert!(moves.iter().all(|m| board.is_legal_square(m.square)));
//! assert!(moves.windows(2).all(|w| w[0].value >= w[1].value)); // best first, in discs
//!
//! let value = EvalBundle::shipped().evaluator().evaluate(&board); // for the side to move
//! assert!(value.discs().abs() < 64.0);
//! assert_eq!(perft(&mut Board::start(), 8), 390_216);
//! ```

pub mod board;
pub mod book;
pub mod cli;
pub mod client;
pub mod config;
pub mod eval;
pub mod formats;
pub mod identity;
pub mod io;
pub mod review;
pub mod rng;
pub mod score;
pub mod search;
