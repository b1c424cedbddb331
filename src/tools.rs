//! Command-line tools beside the engine: `solve` (endgame test suites), `bench`, `match`
//! (engine-versus-engine games), `train` (fitting the pattern evaluation), `datagen`
//! (self-play games for training) and `probcut` (measuring the selective search's
//! statistics).

pub mod bench;
pub mod datagen;
pub mod match_cli;
pub mod probcut;
pub mod solve;
pub mod train;

/// The pairs `(flag, value)` of a tool's `--flag value` arguments; an error names the usage
/// when a flag has no value.
pub(crate) fn flag_pairs<'a>(
    args: &'a [String],
    usage: &str,
) -> anyhow::Result<Vec<(&'a str, &'a str)>> {
    args.chunks(2)
        .map(|pair| match pair {
            [flag, value] => Ok((flag.as_str(), value.as_str())),
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
