//! The option registry: every search setting that more than one entry point takes, declared
//! once ([`REGISTRY`]: `--threads`, `--hash`, `--eval-file`, `--level`, `--probcut`,
//! `--move-time`) with its flag, value name, help, its Python keyword and NBoard `set` name
//! where those exist, and its value parser ([`SharedOption::check`]). The group every
//! searching tool takes is [`GROUP`].
//!
//! The engine's option table (the `tsuru` package's `cli::options`) and every tool that
//! searches (the lab's `ToolSpec` tables) take their rows for these options from here and
//! parse them with the same functions, so a flag has one name, one value name, one help
//! text, one range, one error message and one default wherever it is given: 64 MiB of tables
//! ([`SearchConfig::DEFAULT_HASH_MB`]) and every core ([`SearchConfig::default_threads`]).
//! The one exception is by purpose, and named: the commands whose output is a record that
//! must repeat exactly (bench's signature, accuracy, datagen, the book, decided) search on
//! [`SearchConfig::REPRODUCIBLE_THREADS`] (one thread) unless told otherwise, since more
//! threads make a search's result depend on their timing. A command may state another
//! default for `--level` (review's deeper one): a level is a command's work, not a setting.
//!
//! The parsers' errors do not name the flag; [`SearchOptions::set`] and the engine's parser
//! put `option --FLAG: ` before them, so `--threads 0` reads the same in every command.

use anyhow::{anyhow, bail, Context, Result};

use crate::config::Level;
use crate::eval::{EvalBundle, EvalChoice};
use crate::search::SearchConfig;

/// One shared option: its flag, the name of its value and what it does (each command adds its
/// default).
#[derive(Clone, Copy, Debug)]
pub struct SharedOption {
    /// The flag, `--name`.
    pub flag: &'static str,
    /// The name of its value.
    pub value: &'static str,
    /// What it does, one line, without the default.
    pub help: &'static str,
    /// Its default as the help states it (`""`: none to state, such as `--eval-file`'s
    /// shipped weights), the same in every command (tests check it against the constants).
    pub default: &'static str,
    /// The keyword argument of Python's `Searcher`, `search` and `solve` that sets it (`""`:
    /// none).
    pub python: &'static str,
    /// The NBoard `set NAME VALUE` that sets it (`""`: none).
    pub nboard: &'static str,
    /// The parser of its value: what every entry point accepts, with one error message.
    pub parse: fn(&str) -> Result<()>,
}

impl SharedOption {
    /// Whether `text` is a value of this option, by the parser every entry point uses: the
    /// error says what is wrong without naming the flag (each entry point names it its way).
    pub fn check(&self, text: &str) -> Result<()> {
        (self.parse)(text)
    }
}

/// `--threads N`: search threads.
pub const THREADS: SharedOption = SharedOption {
    flag: "--threads",
    value: "N",
    help: "search threads, 1-512",
    default: "every core",
    python: "threads",
    nboard: "",
    parse: |text| threads(text).map(drop),
};

/// `--hash MB`: the most the transposition tables use.
pub const HASH: SharedOption = SharedOption {
    flag: "--hash",
    value: "MB",
    help: "MiB the transposition tables may use, 1-65536",
    default: "64",
    python: "hash_mb",
    nboard: "",
    parse: |text| hash_mb(text).map(drop),
};

/// `--eval-file WEIGHTS`: other weights than the shipped ones.
pub const EVAL_FILE: SharedOption = SharedOption {
    flag: "--eval-file",
    value: "WEIGHTS",
    help: "pattern weights to search with instead of the shipped ones (or a\n\
           term file: the shipped weights with its interaction term)",
    default: "",
    python: "eval_file",
    nboard: "",
    parse: |text| {
        anyhow::ensure!(!text.is_empty(), "the weights file needs a name");
        Ok(())
    },
};

/// `--level N` (the tools' `--depth` where it is one): the midgame depth and the endgame
/// thresholds.
pub const LEVEL: SharedOption = SharedOption {
    flag: "--level",
    value: "N",
    help: "midgame search depth in plies, 1-60",
    default: "12",
    python: "level",
    nboard: "depth",
    parse: |text| level(text).map(drop),
};

/// `--probcut T`: the Multi-ProbCut confidence factor.
pub const PROBCUT: SharedOption = SharedOption {
    flag: "--probcut",
    value: "T",
    help: "Multi-ProbCut confidence factor, 0 (off) to 10",
    default: "1.1",
    python: "",
    nboard: "",
    parse: |text| probcut(text).map(drop),
};

/// `--move-time SECONDS`: the time a move (a position) when no clock says otherwise.
pub const MOVE_TIME: SharedOption = SharedOption {
    flag: "--move-time",
    value: "SECONDS",
    help: "seconds a move, more than 0",
    default: "",
    python: "time",
    nboard: "",
    parse: |text| move_time(text).map(drop),
};

/// Every registered option.
pub const REGISTRY: [SharedOption; 6] = [THREADS, HASH, EVAL_FILE, LEVEL, PROBCUT, MOVE_TIME];

/// `--move-time`'s value: seconds, more than 0 and finite.
pub fn move_time(text: &str) -> Result<std::time::Duration> {
    let seconds: f64 = number(text, "the move time")?;
    if !(seconds > 0.0 && seconds.is_finite()) {
        bail!("the move time must be a positive number of seconds");
    }
    Ok(crate::search::time::saturating_seconds(seconds))
}

/// The group every tool that searches takes, in the order of [`SearchOptions`]' fields.
pub const GROUP: [SharedOption; 3] = [THREADS, HASH, EVAL_FILE];

/// The value `text` of the option `flag`, read by `parse` (one of this module's parsers); an
/// error starts `option FLAG: `, as the engine's do.
pub fn value<T>(flag: &str, text: &str, parse: fn(&str) -> Result<T>) -> Result<T> {
    parse(text).with_context(|| format!("option {flag}"))
}

/// A number, or an error naming `what`.
fn number<T: std::str::FromStr>(text: &str, what: &str) -> Result<T> {
    text.parse()
        .map_err(|_| anyhow!("{what} must be a number, not {text:?}"))
}

/// `--threads`' value: 1 to [`SearchConfig::MAX_THREADS`].
pub fn threads(text: &str) -> Result<usize> {
    let threads: usize = number(text, "the thread count")?;
    if !(1..=SearchConfig::MAX_THREADS).contains(&threads) {
        bail!(
            "the thread count must be from 1 to {}",
            SearchConfig::MAX_THREADS
        );
    }
    Ok(threads)
}

/// `--hash`'s value in MiB: 1 to [`SearchConfig::MAX_HASH_MB`].
pub fn hash_mb(text: &str) -> Result<usize> {
    let mb: usize = number(text, "the hash size")?;
    if !(1..=SearchConfig::MAX_HASH_MB).contains(&mb) {
        bail!(
            "the hash size must be between 1 and {} MiB",
            SearchConfig::MAX_HASH_MB
        );
    }
    Ok(mb)
}

/// A level (`--level`, and the tools' `--depth` where it is one): 1 to 60.
pub fn level(text: &str) -> Result<Level> {
    let n: u32 = number(text, "the level")?;
    Level::new(n).ok_or_else(|| {
        anyhow!(
            "the level must be between {} and {}",
            Level::MIN,
            Level::MAX
        )
    })
}

/// `--probcut`'s confidence factor, 0 to 10: `None` (no selective cuts) for 0.
pub fn probcut(text: &str) -> Result<Option<f32>> {
    let t: f32 = number(text, "the ProbCut confidence")?;
    if !(0.0..=10.0).contains(&t) {
        bail!("the ProbCut confidence must be between 0 (off) and 10");
    }
    Ok((t > 0.0).then_some(t))
}

/// The values of the group, as a tool reads them: its defaults until a flag sets one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// `--threads`.
    pub threads: usize,
    /// `--hash`, MiB.
    pub hash_mb: usize,
    /// `--eval-file` (`None`: the shipped weights).
    pub eval_file: Option<String>,
}

impl Default for SearchOptions {
    /// The registry's defaults: every core, [`SearchConfig::DEFAULT_HASH_MB`], the shipped
    /// weights.
    fn default() -> SearchOptions {
        SearchOptions {
            threads: SearchConfig::default_threads(),
            hash_mb: SearchConfig::DEFAULT_HASH_MB,
            eval_file: None,
        }
    }
}

impl SearchOptions {
    /// The defaults of a command whose output must repeat exactly:
    /// [`SearchConfig::REPRODUCIBLE_THREADS`], otherwise as [`SearchOptions::default`].
    pub fn reproducible() -> SearchOptions {
        SearchOptions {
            threads: SearchConfig::REPRODUCIBLE_THREADS,
            ..SearchOptions::default()
        }
    }

    /// Whether `flag` is one of the group's.
    pub fn takes(flag: &str) -> bool {
        GROUP.iter().any(|option| option.flag == flag)
    }

    /// Sets the option `flag` (one of [`GROUP`]) from its value `text`; an error starts
    /// `option FLAG: `, as the engine's do.
    pub fn set(&mut self, flag: &str, text: &str) -> Result<()> {
        match flag {
            "--threads" => self.threads = value(flag, text, threads)?,
            "--hash" => self.hash_mb = value(flag, text, hash_mb)?,
            "--eval-file" => self.eval_file = Some(text.to_string()),
            _ => bail!("{flag} is not a search option"),
        }
        Ok(())
    }

    /// The search these options set up: `--threads` threads, `--hash`'s tables and
    /// `--eval-file`'s evaluation (read now), with the default selectivity and cache.
    pub fn config(&self) -> Result<SearchConfig> {
        Ok(SearchConfig::new(self.hash_mb, self.threads)?.with_eval(self.eval()?))
    }

    /// The evaluation bundle to search with: `--eval-file`'s weights and statistics, or the
    /// shipped ones.
    pub fn eval(&self) -> Result<EvalBundle> {
        match &self.eval_file {
            Some(path) => EvalChoice::File(path.clone()).build(),
            None => Ok(EvalBundle::shipped()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked_against_one_range() {
        assert_eq!(threads("1").unwrap(), 1);
        assert_eq!(
            threads(&SearchConfig::MAX_THREADS.to_string()).unwrap(),
            SearchConfig::MAX_THREADS
        );
        assert_eq!(hash_mb("65536").unwrap(), 65536);
        assert_eq!(level("60").unwrap().get(), 60);
        assert_eq!(probcut("0").unwrap(), None);
        assert_eq!(probcut("1.5").unwrap(), Some(1.5));
        for (result, message) in [
            (
                threads("0").map(|_| ()),
                "the thread count must be from 1 to 512",
            ),
            (
                threads("513").map(|_| ()),
                "the thread count must be from 1 to 512",
            ),
            (
                threads("x").map(|_| ()),
                "the thread count must be a number, not \"x\"",
            ),
            (
                hash_mb("0").map(|_| ()),
                "the hash size must be between 1 and 65536 MiB",
            ),
            (
                hash_mb("65537").map(|_| ()),
                "the hash size must be between 1 and 65536 MiB",
            ),
            (
                level("61").map(|_| ()),
                "the level must be between 1 and 60",
            ),
            (
                probcut("-1").map(|_| ()),
                "the ProbCut confidence must be between 0 (off) and 10",
            ),
        ] {
            assert_eq!(result.unwrap_err().to_string(), message);
        }
    }

    #[test]
    fn the_registry_states_the_defaults_the_constants_hold() {
        assert_eq!(HASH.default, SearchConfig::DEFAULT_HASH_MB.to_string());
        assert_eq!(
            PROBCUT.default,
            SearchConfig::DEFAULT_SELECTIVITY.to_string()
        );
        assert_eq!(LEVEL.default, Level::DEFAULT.get().to_string());
        assert_eq!(THREADS.default, "every core");
        let defaults = SearchOptions::default();
        assert_eq!(defaults.threads, SearchConfig::default_threads());
        assert_eq!(defaults.hash_mb, SearchConfig::DEFAULT_HASH_MB);
        assert_eq!(defaults.eval_file, None);
        let reproducible = SearchOptions::reproducible();
        assert_eq!(reproducible.threads, 1);
        // The reproducible commands' row states that number.
        let stated = crate::cli::tool_args::ToolOption::reproducible_threads().default;
        assert!(stated.starts_with(&format!("{}, ", SearchConfig::REPRODUCIBLE_THREADS)));
        assert_eq!(reproducible.hash_mb, defaults.hash_mb);
    }

    #[test]
    fn the_help_states_the_ranges_the_parsers_check() {
        assert!(THREADS
            .help
            .ends_with(&format!("1-{}", SearchConfig::MAX_THREADS)));
        assert!(HASH
            .help
            .ends_with(&format!("1-{}", SearchConfig::MAX_HASH_MB)));
    }

    #[test]
    fn the_group_sets_its_fields_and_names_the_flag_in_errors() {
        let mut options = SearchOptions::reproducible();
        for flag in GROUP.map(|option| option.flag) {
            assert!(SearchOptions::takes(flag), "{flag}");
        }
        assert!(!SearchOptions::takes("--depth"));
        options.set("--threads", "3").unwrap();
        options.set("--hash", "8").unwrap();
        options.set("--eval-file", "w.tsw").unwrap();
        assert_eq!(
            options,
            SearchOptions {
                threads: 3,
                hash_mb: 8,
                eval_file: Some("w.tsw".into())
            }
        );
        let err = options.set("--threads", "0").unwrap_err();
        assert_eq!(
            format!("{err:#}"),
            "option --threads: the thread count must be from 1 to 512"
        );
    }
}
