//! Command-line tools beside the engine: `solve` (endgame test suites) and `bench`.

pub mod bench;
pub mod solve;
