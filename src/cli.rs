//! The engine's command line ([`options`]: one table drives parsing and `--help`). The options
//! the engine shares with the tools, and the tools' own parsers, are `tsuru_core::cli`.

pub mod options;
