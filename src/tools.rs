//! Command-line tools beside the engine: `solve` (endgame test suites), `bench`, `match`
//! (engine-versus-engine games), `train` (fitting the pattern evaluation), `datagen`
//! (self-play games for training) and `probcut` (measuring the selective search's
//! statistics).

pub mod bench;
pub mod datagen;
pub mod match_cli;
pub mod probcut;
pub mod solve;
pub mod train;
