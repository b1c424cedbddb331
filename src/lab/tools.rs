//! Command-line tools beside the engine: `solve` (endgame test suites), `bench`, `match`
//! (engine-versus-engine games), `train` (fitting the pattern evaluation), `datagen`
//! (self-play games for training), `probcut` (measuring the selective search's
//! statistics) and `decided` (where a match's games were decided).
//!
//! The tools print through [`crate::out!`] and [`crate::outln!`], so that a closed stdout
//! ends them quietly (see [`crate::cli::output`]); `--help` is answered by the binary before
//! a tool runs.

pub mod bench;
pub mod datagen;
pub mod decided;
pub mod match_cli;
pub mod probcut;
pub mod solve;
pub mod train;

use crate::cli::suggest::did_you_mean;

/// The pairs `(flag, value)` of a tool's `--flag value` arguments; an error names the usage
/// when a flag has no value, or suggests a flag of `usage` when the last one is unknown.
pub(crate) fn flag_pairs<'a>(
    args: &'a [String],
    usage: &str,
) -> anyhow::Result<Vec<(&'a str, &'a str)>> {
    args.chunks(2)
        .map(|pair| match pair {
            [flag, value] => Ok((flag.as_str(), value.as_str())),
            [flag] if !usage_flags(usage).contains(&flag.as_str()) => {
                anyhow::bail!(unexpected_argument(flag, usage))
            }
            [flag] => anyhow::bail!("{flag} needs a value (usage: tsuru {usage})"),
            _ => unreachable!("chunks of two"),
        })
        .collect()
}

/// A flag's value as a whole number, or an error naming the flag.
pub(crate) fn whole_number(flag: &str, text: &str) -> anyhow::Result<u64> {
    use anyhow::Context;
    text.parse::<u64>()
        .with_context(|| format!("{flag} needs a whole number, not {text:?}"))
}

/// The whole number after the flag `args[i]` (for tools that also take a positional
/// argument, so cannot use [`flag_pairs`]); an error names the flag, and the usage when the
/// value is missing.
pub(crate) fn number_after(args: &[String], i: usize, usage: &str) -> anyhow::Result<u64> {
    use anyhow::Context;
    let flag = &args[i];
    let text = args
        .get(i + 1)
        .with_context(|| format!("{flag} needs a value (usage: tsuru {usage})"))?;
    whole_number(flag, text)
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
    fn flag_pairs_tell_a_missing_value_from_an_unknown_flag() {
        let usage = "datagen --out FILE --games N";
        let args = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let pairs = args(&["--out", "f", "--games", "3"]);
        assert_eq!(
            flag_pairs(&pairs, usage).unwrap(),
            [("--out", "f"), ("--games", "3")]
        );
        let missing = flag_pairs(&args(&["--out", "f", "--games"]), usage).unwrap_err();
        assert!(missing.to_string().contains("--games needs a value"));
        let unknown = flag_pairs(&args(&["--gmes"]), usage).unwrap_err();
        assert!(
            unknown.to_string().contains("did you mean '--games'?"),
            "{unknown}"
        );
    }
}
