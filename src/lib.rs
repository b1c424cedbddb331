//! tsuru: an Othello (Reversi) engine speaking NBoard v2 and GTP over stdin/stdout.
//!
//! ```text
//!   stdin/stdout
//!        |
//!   protocol (NBoard v2, GTP)      parse lines into typed commands, format replies
//!        |
//!   session                        owns the game and the board; commands are atomic
//!        |
//!   search (+ endgame solver)      iterative deepening, transposition table   } tsuru-core
//!        |                                                                    }
//!   board + eval                   mailbox with flip stack; static evaluation }
//! ```
//!
//! This package is the engine's front ends: the protocols, the session, the engine's command
//! line and the binary's `main` ([`app`]). The board, evaluation, search, book and formats are
//! the library `tsuru-core` (its API and examples are documented there); the lab's tools
//! (`tsuru-lab`) are the binary's other subcommands.

pub mod app;
mod cli;
mod protocol;
mod session;

/// What the crate's own whole-engine tests (`tests/`) check the binary's output against:
/// not part of the library's API.
#[doc(hidden)]
pub mod test_hooks {
    pub use crate::cli::options::ENGINE;
    pub use crate::protocol::gtp::COMMANDS;
    pub use crate::protocol::nboard::depth_text;
}
