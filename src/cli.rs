//! Helpers shared by the command-line parsers of the binary and its tools: suggestions for
//! mistyped names ([`suggest`]) and stdout writing that reports a closed pipe instead of
//! panicking ([`output`]).

pub mod output;
pub mod suggest;
