//! The engine's and the tools' text input and output: stdin (or a child engine's stdout) read
//! line by line on a thread of its own ([`lines`]), text made ASCII for the pipes ([`ascii`]),
//! tool output that a closed stdout ends quietly ([`stdout`]: [`crate::out!`],
//! [`crate::outln!`]) and Ctrl-C as a request to stop ([`interrupt`]).

pub mod ascii;
pub mod interrupt;
pub mod lines;
pub mod stdout;
