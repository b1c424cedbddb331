//! The command line the engine and every tool share: the search options declared once
//! ([`search_options`]: `--threads`, `--hash`, `--eval-file`, with one range and error each),
//! each tool's command line declared as a table ([`tool_args`]), and did-you-mean suggestions
//! for every parser ([`suggest`]).

pub mod search_options;
pub mod suggest;
pub mod tool_args;
