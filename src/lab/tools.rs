//! Command-line tools beside the engine: `book` (the opening book), `solve` (endgame test
//! suites), `bench`, `match`
//! (engine-versus-engine games), `train` (fitting the pattern evaluation), `datagen`
//! (self-play games for training), `probcut` (measuring the selective search's
//! statistics) and `decided` (where a match's games were decided).
//!
//! The tools print through [`crate::out!`] and [`crate::outln!`], so that a closed stdout
//! ends them quietly (see [`crate::cli::output`]); `--help` is answered by the binary before
//! a tool runs.

pub mod bench;
pub mod book;
pub mod datagen;
pub mod decided;
pub mod match_cli;
pub mod probcut;
pub mod solve;
pub mod train;

use crate::cli::suggest::did_you_mean;

/// One word of a tool's command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg<'a> {
    /// A word starting with `--`: a flag, whose value (if it takes one) is the next word.
    Flag(&'a str),
    /// Any other word: a file, a depth.
    Positional(&'a str),
}

impl<'a> Arg<'a> {
    /// The word as given.
    pub fn text(self) -> &'a str {
        match self {
            Arg::Flag(text) | Arg::Positional(text) => text,
        }
    }
}

/// A tool's command line, read one word at a time: the one shape of every tool's parser
/// (and `perft`'s). A tool loops over [`ToolArgs::next_arg`], matches each [`Arg`] by name,
/// takes a flag's value with [`ToolArgs::value`] (or [`ToolArgs::whole_number`]) and
/// refuses anything else with [`ToolArgs::unexpected`], so that a missing value and an
/// unknown flag read the same in every tool.
pub struct ToolArgs<'a> {
    args: &'a [String],
    next: usize,
    usage: &'a str,
}

impl<'a> ToolArgs<'a> {
    /// The arguments after the tool's name, and the tool's usage line (for error messages
    /// and did-you-mean suggestions).
    pub fn new(args: &'a [String], usage: &'a str) -> ToolArgs<'a> {
        ToolArgs {
            args,
            next: 0,
            usage,
        }
    }

    /// The next word, `None` after the last.
    pub fn next_arg(&mut self) -> Option<Arg<'a>> {
        let word = self.args.get(self.next)?.as_str();
        self.next += 1;
        Some(if word.starts_with("--") {
            Arg::Flag(word)
        } else {
            Arg::Positional(word)
        })
    }

    /// The value of `flag`: the next word, whatever it is; an error naming the flag and the
    /// usage when there is none.
    pub fn value(&mut self, flag: &str) -> anyhow::Result<&'a str> {
        let usage = self.usage;
        let word = self
            .args
            .get(self.next)
            .ok_or_else(|| anyhow::anyhow!("{flag} needs a value (usage: tsuru {usage})"))?;
        self.next += 1;
        Ok(word)
    }

    /// The value of `flag` as a whole number ([`whole_number`]).
    pub fn whole_number(&mut self, flag: &str) -> anyhow::Result<u64> {
        whole_number(flag, self.value(flag)?)
    }

    /// The error for a word the tool does not take ([`unexpected_argument`]).
    pub fn unexpected(&self, arg: Arg) -> anyhow::Error {
        anyhow::anyhow!(unexpected_argument(arg.text(), self.usage))
    }
}

/// A flag's value as a whole number, or an error naming the flag.
pub(crate) fn whole_number(flag: &str, text: &str) -> anyhow::Result<u64> {
    use anyhow::Context;
    text.parse::<u64>()
        .with_context(|| format!("{flag} needs a whole number, not {text:?}"))
}

/// The error message for an argument a tool does not know: names it, suggests the nearest
/// flag of `usage` (or `--help`) when one is close, and shows the usage.
pub fn unexpected_argument(arg: &str, usage: &str) -> String {
    let flags = usage_flags(usage);
    let hint = did_you_mean(arg, flags.iter().copied().chain(["--help"]));
    format!("unexpected argument '{arg}'{hint} (usage: tsuru {usage})")
}

/// The flags (`--name`) that a usage line mentions, in order, each once.
pub fn usage_flags(usage: &str) -> Vec<&str> {
    let mut flags: Vec<&str> = Vec::new();
    for word in usage.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
        if word.starts_with("--") && word.len() > 2 && !flags.contains(&word) {
            flags.push(word);
        }
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_flags_are_read_from_the_usage_line() {
        assert_eq!(
            usage_flags("bench [--hash MB] [--depth-offset N]"),
            ["--hash", "--depth-offset"]
        );
        assert_eq!(
            usage_flags("x [--a FILE]... [--b-c zero|one] | x --a F [--d=N]"),
            ["--a", "--b-c", "--d"]
        );
        let flags = usage_flags(train::USAGE);
        for flag in ["--wthor", "--selfplay", "--shrink-to", "--make-validation"] {
            assert!(flags.contains(&flag), "{flag} in {flags:?}");
        }
    }

    #[test]
    fn unexpected_arguments_suggest_a_flag_of_the_usage() {
        let usage = "bench [--hash MB] [--depth-offset N]";
        let err = unexpected_argument("--hsh", usage);
        assert!(err.contains("did you mean '--hash'?"), "{err}");
        assert!(err.contains(usage), "{err}");
        let err = unexpected_argument("--hepl", usage);
        assert!(err.contains("did you mean '--help'?"), "{err}");
        let err = unexpected_argument("--zzzzzz", usage);
        assert!(!err.contains("did you mean"), "{err}");
    }

    #[test]
    fn tool_args_tell_a_missing_value_from_an_unknown_flag() {
        let usage = "solve FILE.obf --games N";
        let args = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let words = args(&["file", "--games", "3"]);
        let mut parsed = ToolArgs::new(&words, usage);
        assert_eq!(parsed.next_arg(), Some(Arg::Positional("file")));
        assert_eq!(parsed.next_arg(), Some(Arg::Flag("--games")));
        assert_eq!(parsed.whole_number("--games").unwrap(), 3);
        assert_eq!(parsed.next_arg(), None);
        let words = args(&["--games"]);
        let mut parsed = ToolArgs::new(&words, usage);
        let flag = parsed.next_arg().unwrap();
        let missing = parsed.value(flag.text()).unwrap_err().to_string();
        assert!(
            missing.contains("--games needs a value (usage: tsuru solve"),
            "{missing}"
        );
        let unknown = parsed.unexpected(Arg::Flag("--gmes")).to_string();
        assert!(unknown.contains("did you mean '--games'?"), "{unknown}");
        let words = args(&["--games", "x"]);
        let mut parsed = ToolArgs::new(&words, usage);
        parsed.next_arg();
        let bad = parsed.whole_number("--games").unwrap_err().to_string();
        assert!(
            bad.contains("--games needs a whole number, not \"x\""),
            "{bad}"
        );
    }
}
