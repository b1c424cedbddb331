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
