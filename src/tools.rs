//! Command-line tools beside the engine: `solve` (endgame test suites), `bench`, and `match`
//! (engine-versus-engine games).

pub mod bench;
pub mod match_cli;
pub mod solve;
