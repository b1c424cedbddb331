//! tsuru: an Othello (Reversi) engine.
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
//! Beside the engine, the [`lab`] (match referee, training, data generation, measuring tools)
//! uses it only through its public interface.
//!
//! # Using the engine as a library
//!
//! A position from a transcript, its legal moves, a move played and taken back:
//!
//! ```
//! use tsuru::board::{notation, Board, Color, Move};
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
//! assert_eq!(tsuru::board::perft::perft(&mut Board::start(), 4), 244);
//! ```
//!
//! A search to a fixed depth, and an exact solve (FFO #1: the side to move wins by 18):
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use tsuru::board::{notation, Board};
//! use tsuru::search::{Depth, Level, Search, SearchLimits};
//!
//! let mut search = Search::new(16); // transposition table of 16 MiB
//! search.set_threads(1);
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

pub mod board;
pub mod book;
pub mod cli;
pub mod config;
pub mod eval;
pub mod formats;
pub mod identity;
pub mod lab;
pub mod protocol;
pub mod rng;
pub mod score;
pub mod search;
pub mod session;
