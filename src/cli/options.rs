//! The engine's command line: one option table ([`OPTIONS`]) drives parsing, `--help` and
//! the tests, so they cannot drift apart.
//!
//! Parsing only reads words into a [`Config`] (the settings, [`tsuru_core::config`]); the files
//! they name are read once at start-up ([`crate::session::Loaded`]). Subcommands (`perft`,
//! `solve`, `bench`, ...) have their own tables and parse their own arguments, all in one
//! shape (the lab's `ToolArgs`). An unknown name is answered with the nearest known one
//! ([`super::suggest`]).

use anyhow::{anyhow, bail, Context, Result};

use tsuru_core::cli::search_options;
use tsuru_core::cli::suggest;
use tsuru_core::config::{BookSetting, Config, EvalChoice, Protocol};
use tsuru_core::search::time::saturating_seconds;

/// One command-line option: its names, its value's name (if it takes one), its help text and
/// how it changes the configuration.
pub struct OptionSpec {
    /// Spellings, e.g. `["--level", "--depth"]`.
    pub names: &'static [&'static str],
    /// Name of the value for `--help` (`None` for a flag).
    pub value: Option<&'static str>,
    /// One-line description for `--help`.
    pub help: &'static str,
    /// The default, shown after the help as `(default ...)`; empty when the help says it or
    /// there is none. The rows of the shared search options ([`search_options`]) take their
    /// flag, value name and help from there and add the engine's default here.
    pub default: &'static str,
    apply: fn(&mut Config, &str) -> Result<()>,
}

fn number<T: std::str::FromStr>(text: &str, what: &str) -> Result<T> {
    text.parse()
        .map_err(|_| anyhow!("{what} must be a number, not {text:?}"))
}

/// Every engine option.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        names: &["--gtp"],
        value: None,
        help: "speak GTP (default: detect the protocol from the first input line)",
        default: "",
        apply: |c, _| {
            c.protocol = Some(Protocol::Gtp);
            Ok(())
        },
    },
    OptionSpec {
        names: &["--nboard"],
        value: None,
        help: "speak NBoard protocol v2",
        default: "",
        apply: |c, _| {
            c.protocol = Some(Protocol::Nboard);
            Ok(())
        },
    },
    OptionSpec {
        names: &[search_options::LEVEL.flag, "--depth"],
        value: Some(search_options::LEVEL.value),
        help: "midgame search depth in plies, 1-60 (default 12); see protocol.md for when it solves exactly",
        default: "",
        apply: |c, v| {
            c.level = search_options::level(v)?;
            Ok(())
        },
    },
    OptionSpec {
        names: &[search_options::MOVE_TIME.flag],
        value: Some(search_options::MOVE_TIME.value),
        help: "time per move when the GUI gives no clock (default: depth only)",
        default: "",
        apply: |c, v| {
            let time = search_options::move_time(v)?;
            if c.game_time.is_some() {
                bail!("give --move-time or --game-time, not both");
            }
            c.move_time = Some(time);
            Ok(())
        },
    },
    OptionSpec {
        names: &["--game-time"],
        value: Some("SECONDS"),
        help: "time for each whole game when the GUI gives no clock, shared out by the engine",
        default: "",
        apply: |c, v| {
            let secs: f64 = number(v, "the game time")?;
            if !(secs > 0.0 && secs.is_finite()) {
                bail!("the game time must be a positive number of seconds");
            }
            if c.move_time.is_some() {
                bail!("give --move-time or --game-time, not both");
            }
            c.game_time = Some(saturating_seconds(secs));
            Ok(())
        },
    },
    OptionSpec {
        names: &[search_options::HASH.flag],
        value: Some(search_options::HASH.value),
        help: search_options::HASH.help,
        default: "64",
        apply: |c, v| {
            c.hash_mb = search_options::hash_mb(v)?;
            Ok(())
        },
    },
    OptionSpec {
        names: &[search_options::EVAL_FILE.flag],
        value: Some(search_options::EVAL_FILE.value),
        help: search_options::EVAL_FILE.help,
        default: "",
        apply: |c, v| {
            c.eval = EvalChoice::File(v.to_string());
            Ok(())
        },
    },
    OptionSpec {
        names: &["--eval"],
        value: Some("NAME"),
        help: "evaluation: patterns (the trained one, default) or v1 (hand-made, from the seeds)",
        default: "",
        apply: |c, v| {
            c.eval = match v {
                "patterns" => EvalChoice::Shipped,
                "v1" => EvalChoice::V1,
                _ => bail!("unknown evaluation {v:?} (patterns or v1)"),
            };
            Ok(())
        },
    },
    OptionSpec {
        names: &[search_options::PROBCUT.flag],
        value: Some(search_options::PROBCUT.value),
        help: "Multi-ProbCut confidence factor in the midgame (default 1.1; larger is safer, 0 turns it off)",
        default: "",
        apply: |c, v| {
            c.selectivity = search_options::probcut(v)?;
            Ok(())
        },
    },
    OptionSpec {
        names: &[search_options::THREADS.flag],
        value: Some(search_options::THREADS.value),
        help: search_options::THREADS.help,
        default: "every core; one thread searches deterministically",
        apply: |c, v| {
            c.threads = search_options::threads(v)?;
            Ok(())
        },
    },
    OptionSpec {
        names: &["--book"],
        value: Some("FILE"),
        help: "opening book to play from and learn into instead of the per-user one (`tsuru book path`; the shipped book until NBoard's learn writes it); checked at start-up (readable if it exists, writable), a missing file is created by learn",
        default: "",
        apply: |c, v| {
            c.book = BookSetting::File(std::path::PathBuf::from(v));
            Ok(())
        },
    },
    OptionSpec {
        names: &["--no-book"],
        value: None,
        help: "play without an opening book (not even the shipped one)",
        default: "",
        apply: |c, _| {
            c.book = BookSetting::Off;
            Ok(())
        },
    },
    OptionSpec {
        names: &["--ponder"],
        value: None,
        help: "think on the opponent's time: search the position after the reply expected (off by default: matches stay fair)",
        default: "",
        apply: |c, _| {
            c.ponder = true;
            Ok(())
        },
    },
    OptionSpec {
        names: &["--book-randomness"],
        value: Some("R"),
        help: "choose at random among book moves within R discs of the best (default 0: the best)",
        default: "",
        apply: |c, v| {
            let discs: i32 = number(v, "the book randomness")?;
            if !(0..=64).contains(&discs) {
                bail!("the book randomness must be from 0 to 64 discs");
            }
            c.book_randomness = tsuru_core::score::Discs::new(discs);
            Ok(())
        },
    },
    OptionSpec {
        names: &["--help", "-h"],
        value: None,
        help: "print this help and exit",
        default: "",
        apply: |c, _| {
            c.help = true;
            Ok(())
        },
    },
    OptionSpec {
        names: &["--version", "-V"],
        value: None,
        help: "print the version and exit",
        default: "",
        apply: |c, _| {
            c.version = true;
            Ok(())
        },
    },
];

/// Parses engine options (`--name value` or `--name=value`); an unknown option is an
/// error that suggests the nearest known one when it is close.
pub fn parse<S: AsRef<str>>(args: &[S]) -> Result<Config> {
    let mut config = Config::default();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_ref();
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value)),
            _ => (arg, None),
        };
        let spec = OPTIONS
            .iter()
            .find(|spec| spec.names.contains(&name))
            .ok_or_else(|| {
                let names = OPTIONS.iter().flat_map(|spec| spec.names.iter().copied());
                let hint = suggest::did_you_mean(name, names);
                anyhow!("unknown option '{name}'{hint} (try --help)")
            })?;
        let value = match (spec.value, inline) {
            (None, None) => "",
            (None, Some(_)) => bail!("{name} takes no value"),
            (Some(_), Some(value)) => value,
            (Some(meta), None) => {
                i += 1;
                args.get(i)
                    .map(|s| s.as_ref())
                    .with_context(|| format!("{name} needs a value {meta}"))?
            }
        };
        (spec.apply)(&mut config, value).with_context(|| format!("option {name}"))?;
        i += 1;
    }
    Ok(config)
}

/// The options part of `--help`, one line per option, from [`OPTIONS`].
pub fn help() -> String {
    OPTIONS
        .iter()
        .map(|spec| {
            let names = spec.names.join(", ");
            let left = match spec.value {
                Some(value) => format!("{names} {value}"),
                None => names,
            };
            if spec.default.is_empty() {
                format!("  {left:<24} {}\n", spec.help)
            } else {
                format!("  {left:<24} {} (default {})\n", spec.help, spec.default)
            }
        })
        .collect()
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
        assert!(err.contains("unknown option '--levle'"), "{err}");
        assert!(err.contains("did you mean '--level'?"), "{err}");
        let err = message(&["--gtp", "--hahs=16"]);
        assert!(err.contains("did you mean '--hash'?"), "{err}");
        assert!(message(&["--vresion"]).contains("did you mean '--version'?"));
        let err = message(&["--frobnicate"]);
        assert!(!err.contains("did you mean"), "{err}");
        assert!(err.contains("try --help"), "{err}");
    }

    #[test]
    fn the_hash_default_the_help_states_is_the_one_used() {
        let hash = OPTIONS.iter().find(|o| o.names == ["--hash"]).unwrap();
        assert_eq!(
            hash.default,
            tsuru_core::search::SearchConfig::DEFAULT_HASH_MB.to_string()
        );
    }

    #[test]
    fn help_lists_every_option_name() {
        let help = help();
        for spec in OPTIONS {
            for name in spec.names {
                assert!(help.contains(name), "{name} missing from --help");
            }
        }
    }
}
