//! The command line: the engine's options ([`options`]), the search options the engine and
//! every searching tool share ([`search_options`]), did-you-mean suggestions for every parser
//! ([`suggest`]), stdout writing that reports a closed pipe instead of panicking
//! ([`output`]), and Ctrl-C as a request to stop ([`interrupt`]).

pub mod interrupt;
pub mod options;
pub mod output;
pub mod search_options;
pub mod suggest;
