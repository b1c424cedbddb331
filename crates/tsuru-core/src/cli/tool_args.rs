//! The one option system: every command line (the engine's own and each tool's) is declared
//! once as a [`ToolSpec`] (its `SPEC`), a table from which its usage line, its `--help` text
//! and the flags its parser ([`ToolArgs`]) accepts, with a did-you-mean for any other, all
//! come; flags take their value as the next word or inline (`--hash=16`). The rows of the
//! search options the engine and the tools share (`--threads`, `--hash`, `--eval-file`, ...)
//! are [`ToolOption::shared`] rows of the registry ([`crate::cli::search_options`]), with
//! its one default, parsed by its functions, so they read the same in every command. The
//! tools print through [`crate::out!`] and [`crate::outln!`], so that a closed stdout ends
//! them quietly (see [`crate::io::stdout`]); `--help` is answered by the binary, from the
//! spec, before a tool runs.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::cli::search_options::SharedOption;
use crate::cli::suggest::did_you_mean;

/// One option of a tool's table: a row of its `--help`, a bracketed word group of its usage
/// line, and a flag its parser accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolOption {
    /// The flag, `--name`.
    pub flag: &'static str,
    /// The name of its value (`N`, `FILE`), or `""` for a switch that takes none.
    pub value: &'static str,
    /// What it does and its default; `\n` starts another line of help.
    pub help: &'static str,
    /// The default, shown after the help as `(default ...)`; empty when the help says it or
    /// there is none (the rows of the shared search options give it here).
    pub default: &'static str,
    /// Whether it may be given more than once (`[--flag VALUE]...` in the usage).
    pub repeats: bool,
    /// Other spellings the parser takes for it (the engine's `--depth` for `--level`, `-h`
    /// for `--help`); [`ToolArgs::next_option`] answers them with [`ToolOption::flag`].
    pub aliases: &'static [&'static str],
}

impl ToolOption {
    /// An option given at most once.
    pub const fn new(flag: &'static str, value: &'static str, help: &'static str) -> ToolOption {
        ToolOption {
            flag,
            value,
            help,
            default: "",
            repeats: false,
            aliases: &[],
        }
    }

    /// The row of a registered option ([`crate::cli::search_options::REGISTRY`]: `--threads`,
    /// `--hash`, `--eval-file`, ...) with the registry's default, so that its flag, value
    /// name, help and default are the same in every command that takes it.
    pub const fn shared(option: SharedOption) -> ToolOption {
        ToolOption {
            default: option.default,
            ..ToolOption::new(option.flag, option.value, option.help)
        }
    }

    /// The `--threads` row of a command whose output is a record that must repeat exactly
    /// (bench's signature, accuracy, datagen, the book, decided): one thread,
    /// [`crate::search::SearchConfig::REPRODUCIBLE_THREADS`], unless the flag says otherwise.
    pub const fn reproducible_threads() -> ToolOption {
        ToolOption {
            default: REPRODUCIBLE_THREADS_DEFAULT,
            ..ToolOption::shared(crate::cli::search_options::THREADS)
        }
    }

    /// The same row, with other spellings the parser also takes.
    pub const fn with_aliases(self, aliases: &'static [&'static str]) -> ToolOption {
        ToolOption { aliases, ..self }
    }

    /// The same row, with its default stated after the help.
    pub const fn with_default(self, default: &'static str) -> ToolOption {
        ToolOption { default, ..self }
    }

    /// Whether `word` is this option's flag or one of its aliases.
    pub fn answers(&self, word: &str) -> bool {
        self.flag == word || self.aliases.contains(&word)
    }

    /// An option that may be given more than once.
    pub const fn repeated(
        flag: &'static str,
        value: &'static str,
        help: &'static str,
    ) -> ToolOption {
        ToolOption {
            repeats: true,
            ..ToolOption::new(flag, value, help)
        }
    }

    /// The flag with its value name, as the usage shows it.
    fn form(&self) -> String {
        if self.value.is_empty() {
            self.flag.to_string()
        } else {
            format!("{} {}", self.flag, self.value)
        }
    }

    /// The flag and its aliases with the value name, as the help shows them
    /// (`--level, --depth N`).
    fn help_form(&self) -> String {
        let mut names = self.flag.to_string();
        for alias in self.aliases {
            let _ = write!(names, ", {alias}");
        }
        if self.value.is_empty() {
            names
        } else {
            format!("{names} {}", self.value)
        }
    }
}

/// The default the `--threads` row of a reproducible command states.
const REPRODUCIBLE_THREADS_DEFAULT: &str = "1, so that the output repeats exactly";

/// The help's lines for `options`, one or more an option: its flags and value name, then its
/// help (and default) from [`HELP_COLUMN`]. The help of a tool ([`ToolSpec::help`]) and of
/// the engine (`tsuru --help`) are both made by it.
pub fn option_rows(options: &[ToolOption]) -> String {
    let mut text = String::new();
    for option in options {
        let mut form = format!("  {}", option.help_form());
        if form.len() + 1 > HELP_COLUMN {
            let _ = writeln!(text, "{form}");
            form.clear();
        }
        let help = if option.default.is_empty() {
            Cow::Borrowed(option.help)
        } else {
            Cow::Owned(format!("{} (default {})", option.help, option.default))
        };
        for (number, line) in help.lines().enumerate() {
            let lead = if number == 0 { form.as_str() } else { "" };
            let _ = writeln!(text, "{lead:<HELP_COLUMN$}{line}");
        }
    }
    text
}

/// A tool's command line described once: [`ToolSpec::usage`], [`ToolSpec::help`] and the
/// flags [`ToolArgs::from_spec`] accepts all come from it, so they cannot disagree.
#[derive(Clone, Copy, Debug)]
pub struct ToolSpec {
    /// The tool's name, `tsuru NAME`.
    pub name: &'static str,
    /// What the tool does, one line (`tsuru --help` lists it).
    pub about: &'static str,
    /// The words the usage line starts with, as written: positional arguments and the flags
    /// that must be given (`FILE.obf`, `--out FILE --games N`); may be empty. Options of the
    /// table that it names are not repeated in brackets after it.
    pub synopsis: &'static str,
    /// Every flag the tool takes.
    pub options: &'static [ToolOption],
    /// What the table cannot say (options that exclude or need each other), printed after
    /// the options by `--help`; may be empty.
    pub notes: &'static str,
}

/// The column at which an option's help starts in `--help`.
const HELP_COLUMN: usize = 27;

impl ToolSpec {
    /// The usage line (without `tsuru `): the name, the synopsis, then each other option in
    /// brackets, in table order. A spec without a name is the engine's own command line,
    /// whose usage is `[OPTIONS]`.
    pub fn usage(&self) -> String {
        if self.name.is_empty() {
            // The engine's own command line: too many options for one line, and `tsuru
            // --help` lists them.
            return "[OPTIONS]".to_string();
        }
        let mut usage = self.name.to_string();
        if !self.synopsis.is_empty() {
            usage.push(' ');
            usage.push_str(self.synopsis);
        }
        let named = usage_flags(self.synopsis);
        for option in self.options.iter().filter(|o| !named.contains(&o.flag)) {
            let _ = write!(usage, " [{}]", option.form());
            if option.repeats {
                usage.push_str("...");
            }
        }
        usage
    }

    /// The text of `tsuru NAME --help`: the usage, what the tool does, a line or more per
    /// option, and the notes.
    pub fn help(&self) -> String {
        let mut text = format!(
            "usage: tsuru {}\n\n{}\n\nOptions of tsuru {}:\n",
            self.usage(),
            self.about,
            self.name
        );
        text.push_str(&option_rows(self.options));
        if !self.notes.is_empty() {
            let _ = write!(text, "\n{}\n", self.notes.trim_end());
        }
        text
    }

    /// The option whose flag (or one of whose aliases) is `flag`, if the table has it.
    pub fn option(&self, flag: &str) -> Option<&'static ToolOption> {
        self.options.iter().find(|option| option.answers(flag))
    }
}

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
/// (and `perft`'s). A tool made [`ToolArgs::from_spec`] loops over [`ToolArgs::next_option`],
/// which refuses a flag its table lacks ([`ToolArgs::next_arg`] reads words without the
/// table's check; the unit tests also make parsers from a bare usage line). Either matches each [`Arg`] by name, takes a flag's
/// value with [`ToolArgs::value`] (or [`ToolArgs::whole_number`]) and refuses anything else
/// with [`ToolArgs::unexpected`], so that a missing value and an unknown flag read the same
/// in every tool.
pub struct ToolArgs<'a> {
    args: &'a [String],
    next: usize,
    usage: Cow<'a, str>,
    spec: Option<&'a ToolSpec>,
    /// The flag and value of a word `--flag=value` until [`ToolArgs::value`] takes the value;
    /// still there at the next word, it was given to a flag that takes none.
    inline: Option<(&'a str, &'a str)>,
}

impl<'a> ToolArgs<'a> {
    /// The arguments after the tool's name, and the tool's usage line (for error messages
    /// and did-you-mean suggestions). Only the unit tests read arguments without a table.
    #[cfg(test)]
    pub fn new(args: &'a [String], usage: &'a str) -> ToolArgs<'a> {
        ToolArgs {
            args,
            next: 0,
            usage: Cow::Borrowed(usage),
            spec: None,
            inline: None,
        }
    }

    /// The arguments after the tool's name, read against the tool's table (the preferred
    /// way: the flags accepted and the suggestions come from the same table as the help).
    pub fn from_spec(args: &'a [String], spec: &'a ToolSpec) -> ToolArgs<'a> {
        ToolArgs {
            args,
            next: 0,
            usage: Cow::Owned(spec.usage()),
            spec: Some(spec),
            inline: None,
        }
    }

    /// The next word like [`ToolArgs::next_arg`], checked against the table (or, without
    /// one, the usage line): a flag it does not have is an error suggesting the nearest one,
    /// an alias (`--depth`, `-h`) is answered with its option's flag, and a value given inline
    /// to a flag that takes none (`--gtp=1`) is an error.
    pub fn next_option(&mut self) -> anyhow::Result<Option<Arg<'a>>> {
        if let Some((flag, _)) = self.inline.take() {
            anyhow::bail!("{flag} takes no value (usage: tsuru {})", self.usage);
        }
        match self.next_arg() {
            Some(Arg::Flag(flag)) => {
                let known = match self.spec {
                    Some(spec) => spec.option(flag).map(|option| option.flag),
                    None => usage_flags(&self.usage).contains(&flag).then_some(flag),
                };
                match known {
                    Some(flag) => Ok(Some(Arg::Flag(flag))),
                    None => Err(self.unexpected(Arg::Flag(flag))),
                }
            }
            Some(Arg::Positional(word)) => {
                // A short alias (`-h`) is not a `--` word, so only the table knows it.
                let alias = self
                    .spec
                    .and_then(|spec| spec.options.iter().find(|o| o.aliases.contains(&word)));
                Ok(Some(match alias {
                    Some(option) => Arg::Flag(option.flag),
                    None => Arg::Positional(word),
                }))
            }
            None => Ok(None),
        }
    }

    /// The next word, `None` after the last; `--flag=value` is the flag, whose value
    /// [`ToolArgs::value`] then gives.
    pub fn next_arg(&mut self) -> Option<Arg<'a>> {
        let word = self.args.get(self.next)?.as_str();
        self.next += 1;
        if !word.starts_with("--") {
            return Some(Arg::Positional(word));
        }
        if let Some((flag, value)) = word.split_once('=') {
            self.inline = Some((flag, value));
            return Some(Arg::Flag(flag));
        }
        Some(Arg::Flag(word))
    }

    /// The value of `flag`: the one given inline (`--flag=value`), else the next word,
    /// whatever it is; an error naming the flag and the usage when there is none.
    pub fn value(&mut self, flag: &str) -> anyhow::Result<&'a str> {
        if let Some((_, value)) = self.inline.take() {
            return Ok(value);
        }
        let usage = &self.usage;
        let word = self
            .args
            .get(self.next)
            .ok_or_else(|| anyhow::anyhow!("{flag} needs a value (usage: tsuru {usage})"))?;
        self.next += 1;
        Ok(word)
    }

    /// The value of `flag` as a whole number (digits only); an error names the flag.
    pub fn whole_number(&mut self, flag: &str) -> anyhow::Result<u64> {
        whole_number(flag, self.value(flag)?)
    }

    /// The error for a word the tool does not take: names it, suggests the nearest flag of
    /// the table (or of the usage line, or `--help`) when one is close, and shows the usage.
    pub fn unexpected(&self, arg: Arg) -> anyhow::Error {
        let flags = match self.spec {
            Some(spec) => spec
                .options
                .iter()
                .flat_map(|option| {
                    std::iter::once(option.flag).chain(option.aliases.iter().copied())
                })
                .collect(),
            None => usage_flags(&self.usage),
        };
        anyhow::anyhow!(unexpected_among(arg.text(), &flags, &self.usage))
    }
}

/// A flag's value as a whole number, or an error naming the flag.
pub fn whole_number(flag: &str, text: &str) -> anyhow::Result<u64> {
    use anyhow::Context;
    text.parse::<u64>()
        .with_context(|| format!("{flag} needs a whole number, not {text:?}"))
}

/// The error message for an argument a tool does not know: names it, suggests the nearest
/// flag of `usage` (or `--help`) when one is close, and shows the usage.
pub fn unexpected_argument(arg: &str, usage: &str) -> String {
    unexpected_among(arg, &usage_flags(usage), usage)
}

/// The error message for an argument a command does not know, suggesting the nearest of
/// `flags` (or `--help`).
fn unexpected_among(arg: &str, flags: &[&str], usage: &str) -> String {
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
    }

    const SPEC: ToolSpec = ToolSpec {
        name: "demo",
        about: "does a demo",
        synopsis: "FILE --out DIR",
        options: &[
            ToolOption::new("--out", "DIR", "where to write"),
            ToolOption::new("--fast", "", "go fast"),
            ToolOption::repeated("--extra", "FILE", "another file\nas often as wanted"),
            ToolOption::new("--a-very-long-flag-name", "VALUE", "long"),
        ],
        notes: "--fast is not for real work.",
    };

    #[test]
    fn the_usage_and_the_help_come_from_the_table() {
        assert_eq!(
            SPEC.usage(),
            "demo FILE --out DIR [--fast] [--extra FILE]... [--a-very-long-flag-name VALUE]"
        );
        assert_eq!(
            SPEC.help(),
            "usage: tsuru demo FILE --out DIR [--fast] [--extra FILE]... \
             [--a-very-long-flag-name VALUE]\n\n\
             does a demo\n\n\
             Options of tsuru demo:\n\
            \x20 --out DIR                where to write\n\
            \x20 --fast                   go fast\n\
            \x20 --extra FILE             another file\n\
            \x20                          as often as wanted\n\
            \x20 --a-very-long-flag-name VALUE\n\
            \x20                          long\n\
             \n--fast is not for real work.\n"
        );
    }

    #[test]
    fn a_table_parser_refuses_flags_the_table_lacks() {
        let words: Vec<String> = ["x", "--fast", "--out", "d", "--fats"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut parsed = ToolArgs::from_spec(&words, &SPEC);
        assert_eq!(parsed.next_option().unwrap(), Some(Arg::Positional("x")));
        assert_eq!(parsed.next_option().unwrap(), Some(Arg::Flag("--fast")));
        assert_eq!(parsed.next_option().unwrap(), Some(Arg::Flag("--out")));
        assert_eq!(parsed.value("--out").unwrap(), "d");
        let err = parsed.next_option().unwrap_err().to_string();
        assert!(
            err.starts_with(
                "unexpected argument '--fats'; did you mean '--fast'? (usage: tsuru demo FILE"
            ),
            "{err}"
        );
        assert_eq!(parsed.next_option().unwrap(), None);
        // Without a table, the flags of the usage line are the known ones.
        let words = vec!["--hsh".to_string()];
        let err = ToolArgs::new(&words, "bench [--hash MB]")
            .next_option()
            .unwrap_err()
            .to_string();
        assert!(err.contains("did you mean '--hash'?"), "{err}");
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
