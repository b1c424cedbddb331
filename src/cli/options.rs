//! The engine's command line, declared as one [`ToolSpec`] ([`ENGINE`]) in the option system
//! the tools use too ([`tsuru_core::cli::tool_args`]): its table drives parsing, `--help` and
//! the tests, so they cannot drift apart, and the search options it shares with the tools are
//! the registry's rows ([`search_options`]), with one help text and one default each.
//!
//! Parsing only reads words into a [`Config`] (the settings, [`tsuru_core::config`]); the files
//! they name are read once at start-up ([`crate::session::Loaded`]). An unknown name is
//! answered with the nearest known one.

use anyhow::{anyhow, bail, Context, Result};

use tsuru_core::cli::search_options::{self, EVAL_FILE, HASH, LEVEL, MOVE_TIME, PROBCUT, THREADS};
use tsuru_core::cli::tool_args::{option_rows, Arg, ToolArgs, ToolOption, ToolSpec};
use tsuru_core::config::{BookSetting, Config, EvalChoice, Protocol};
use tsuru_core::search::time::saturating_seconds;

fn number<T: std::str::FromStr>(text: &str, what: &str) -> Result<T> {
    text.parse()
        .map_err(|_| anyhow!("{what} must be a number, not {text:?}"))
}

/// Every engine option: the engine's own command line (`tsuru [OPTIONS]`).
pub const ENGINE: ToolSpec = ToolSpec {
    name: "",
    about: "run the engine (protocol detected from the first line)",
    synopsis: "",
    options: &[
        ToolOption::new(
            "--gtp",
            "",
            "speak GTP (default: detect the protocol from the first input line)",
        ),
        ToolOption::new("--nboard", "", "speak NBoard protocol v2"),
        ToolOption::shared(LEVEL).with_aliases(&["--depth"]),
        ToolOption::shared(MOVE_TIME).with_default("none: the level, or the GUI's clock"),
        ToolOption::new(
            "--game-time",
            "SECONDS",
            "time for each whole game when the GUI gives no clock, shared out by the engine",
        ),
        ToolOption::shared(HASH),
        ToolOption::shared(EVAL_FILE),
        ToolOption::new(
            "--eval",
            "NAME",
            "evaluation: patterns (the trained one, default) or v1 (hand-made, from the seeds)",
        ),
        ToolOption::shared(PROBCUT),
        ToolOption::shared(THREADS),
        ToolOption::new(
            "--book",
            "FILE",
            "opening book to play from and learn into instead of the per-user one\n\
             (`tsuru book path`; the shipped book until NBoard's learn writes it); checked at\n\
             start-up (readable if it exists, writable), a missing file is created by learn",
        ),
        ToolOption::new(
            "--no-book",
            "",
            "play without an opening book (not even the shipped one)",
        ),
        ToolOption::new(
            "--ponder",
            "",
            "think on the opponent's time: search the position after the reply expected\n\
             (off by default: matches stay fair)",
        ),
        ToolOption::new(
            "--book-randomness",
            "R",
            "choose at random among book moves within R discs of the best\n\
             (default 0: the best)",
        ),
        ToolOption::new("--help", "", "print this help and exit").with_aliases(&["-h"]),
        ToolOption::new("--version", "", "print the version and exit").with_aliases(&["-V"]),
    ],
    notes: "",
};

/// Parses engine options (`--name value` or `--name=value`) against [`ENGINE`]; an unknown
/// option is an error that suggests the nearest known one when it is close.
pub fn parse<S: AsRef<str>>(args: &[S]) -> Result<Config> {
    let words: Vec<String> = args.iter().map(|arg| arg.as_ref().to_string()).collect();
    let mut config = Config::default();
    let mut args = ToolArgs::from_spec(&words, &ENGINE);
    while let Some(arg) = args.next_option()? {
        let Arg::Flag(flag) = arg else {
            return Err(args.unexpected(arg));
        };
        apply(&mut config, flag, &mut args).with_context(|| format!("option {flag}"))?;
    }
    Ok(config)
}

/// Sets what the option `flag` of [`ENGINE`] says, reading its value from `args`.
fn apply(config: &mut Config, flag: &str, args: &mut ToolArgs) -> Result<()> {
    match flag {
        "--gtp" => config.protocol = Some(Protocol::Gtp),
        "--nboard" => config.protocol = Some(Protocol::Nboard),
        "--level" => config.level = search_options::level(args.value(flag)?)?,
        "--move-time" => {
            let time = search_options::move_time(args.value(flag)?)?;
            if config.game_time.is_some() {
                bail!("give --move-time or --game-time, not both");
            }
            config.move_time = Some(time);
        }
        "--game-time" => {
            let secs: f64 = number(args.value(flag)?, "the game time")?;
            if !(secs > 0.0 && secs.is_finite()) {
                bail!("the game time must be a positive number of seconds");
            }
            if config.move_time.is_some() {
                bail!("give --move-time or --game-time, not both");
            }
            config.game_time = Some(saturating_seconds(secs));
        }
        "--hash" => config.hash_mb = search_options::hash_mb(args.value(flag)?)?,
        "--eval-file" => {
            let file = args.value(flag)?;
            EVAL_FILE.check(file)?;
            config.eval = EvalChoice::File(file.to_string());
        }
        "--eval" => {
            config.eval = match args.value(flag)? {
                "patterns" => EvalChoice::Shipped,
                "v1" => EvalChoice::V1,
                other => bail!("unknown evaluation {other:?} (patterns or v1)"),
            }
        }
        "--probcut" => config.selectivity = search_options::probcut(args.value(flag)?)?,
        "--threads" => config.threads = search_options::threads(args.value(flag)?)?,
        "--book" => config.book = BookSetting::File(std::path::PathBuf::from(args.value(flag)?)),
        "--no-book" => config.book = BookSetting::Off,
        "--ponder" => config.ponder = true,
        "--book-randomness" => {
            let discs: i32 = number(args.value(flag)?, "the book randomness")?;
            if !(0..=64).contains(&discs) {
                bail!("the book randomness must be from 0 to 64 discs");
            }
            config.book_randomness = tsuru_core::score::Discs::new(discs);
        }
        "--help" => config.help = true,
        "--version" => config.version = true,
        other => unreachable!("{other} is in ENGINE's table but has no setter"),
    }
    Ok(())
}

/// The options part of `--help`, one line or more per option, from [`ENGINE`].
pub fn help() -> String {
    option_rows(ENGINE.options)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use tsuru_core::search::Level;

    #[test]
    fn parses_every_option_form() {
        let config = parse(&["--gtp", "--level", "8", "--hash=16", "--move-time", "2.5"]).unwrap();
        assert_eq!(config.protocol, Some(Protocol::Gtp));
        assert_eq!(config.level, Level::new(8).unwrap());
        assert_eq!(config.hash_mb, 16);
        assert_eq!(config.move_time, Some(Duration::from_millis(2500)));
        assert_eq!(config.game_time, None);
        assert_eq!(
            parse(&["--game-time", "12.5"]).unwrap().game_time,
            Some(Duration::from_millis(12_500))
        );
        assert_eq!(
            parse(&["--depth", "3"]).unwrap().level,
            Level::new(3).unwrap()
        );
        assert_eq!(parse::<&str>(&[]).unwrap(), Config::default());
        let book = parse(&["--book", "x.book", "--book-randomness", "2"]).unwrap();
        assert_eq!(book.book, BookSetting::File("x.book".into()));
        assert_eq!(book.book_randomness, tsuru_core::score::Discs::new(2));
        assert_eq!(parse(&["--no-book"]).unwrap().book, BookSetting::Off);
    }

    #[test]
    fn rejects_bad_options() {
        for bad in [
            &["--level"][..],
            &["--level", "0"],
            &["--level", "x"],
            &["--hash", "-1"],
            &["--move-time", "nan"],
            &["--game-time", "0"],
            &["--game-time", "inf"],
            &["--game-time", "10", "--move-time", "1"],
            &["--move-time", "1", "--game-time", "10"],
            &["--frobnicate"],
            &["--gtp=1"],
            &["--book-randomness", "-1"],
            &["--book-randomness", "65"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn unknown_options_suggest_the_nearest_one() {
        let message = |args: &[&str]| format!("{:#}", parse(args).unwrap_err());
        let err = message(&["--levle", "5"]);
        assert_eq!(
            err,
            "unexpected argument '--levle'; did you mean '--level'? (usage: tsuru [OPTIONS])"
        );
        let err = message(&["--gtp", "--hahs=16"]);
        assert!(err.contains("did you mean '--hash'?"), "{err}");
        assert!(message(&["--vresion"]).contains("did you mean '--version'?"));
        assert!(message(&["--dpeth", "3"]).contains("did you mean '--depth'?"));
        let err = message(&["--frobnicate"]);
        assert!(!err.contains("did you mean"), "{err}");
        assert!(err.contains("(usage: tsuru [OPTIONS])"), "{err}");
        assert_eq!(
            message(&["--gtp=1"]),
            "--gtp takes no value (usage: tsuru [OPTIONS])"
        );
        assert_eq!(
            message(&["--hash"]),
            "option --hash: --hash needs a value (usage: tsuru [OPTIONS])"
        );
        assert_eq!(
            message(&["--threads", "0"]),
            "option --threads: the thread count must be from 1 to 512"
        );
    }

    #[test]
    fn the_defaults_the_help_states_are_the_ones_used() {
        use tsuru_core::search::SearchConfig;
        let defaults = Config::default();
        let stated = |flag: &str| ENGINE.option(flag).unwrap().default;
        assert_eq!(stated("--hash"), defaults.hash_mb.to_string());
        assert_eq!(defaults.hash_mb, SearchConfig::DEFAULT_HASH_MB);
        assert_eq!(stated("--threads"), "every core");
        assert_eq!(defaults.threads, SearchConfig::default_threads());
        assert_eq!(stated("--level"), defaults.level.get().to_string());
        assert_eq!(
            stated("--probcut"),
            defaults.selectivity.unwrap().to_string()
        );
    }

    #[test]
    fn help_lists_every_option_name_and_every_name_parses() {
        let help = help();
        for option in ENGINE.options {
            for name in std::iter::once(&option.flag).chain(option.aliases) {
                assert!(help.contains(name), "{name} missing from --help");
                let mut args = vec![*name];
                if !option.value.is_empty() {
                    args.push(match option.flag {
                        "--eval" => "patterns",
                        "--book" | "--eval-file" => "x",
                        _ => "1",
                    });
                }
                assert!(parse(&args).is_ok(), "{args:?}");
            }
        }
        assert!(parse(&["-h"]).unwrap().help);
        assert!(parse(&["-V"]).unwrap().version);
    }
}
