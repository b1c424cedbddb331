//! Command-line tools beside the engine: `solve` (endgame test suites), `bench`, and `match`
//! (engine-versus-engine games) and `train` (fitting the pattern evaluation).

pub mod bench;
pub mod match_cli;
pub mod solve;
pub mod train;
