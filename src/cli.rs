//! Helpers shared by the command-line tools of the binary: stdout writing that reports a
//! closed pipe instead of panicking ([`output`]), and Ctrl-C as a request to stop
//! ([`interrupt`]). Suggestions for mistyped names are [`crate::config::suggest`], below the
//! engine options' parser that uses them first.

pub mod interrupt;
pub mod output;
