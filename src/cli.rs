//! Helpers shared by the command-line parsers of the binary and its tools: suggestions for
//! mistyped names ([`suggest`]), stdout writing that reports a closed pipe instead of
//! panicking ([`output`]), and Ctrl-C as a request to stop ([`interrupt`]).

pub mod interrupt;
pub mod output;
pub mod suggest;
