//! The `tsuru` binary's entry: the engine on stdin/stdout, or one of the tools.

use std::time::Instant;

use crate::cli::options;
use anyhow::{bail, Context, Result};
use tsuru_core::board::{notation, perft, Board};
use tsuru_core::cli::suggest::did_you_mean;
use tsuru_core::cli::tool_args::{Arg, ToolArgs, ToolOption, ToolSpec};
use tsuru_core::io::stdout::is_broken_pipe;
use tsuru_core::outln;
use tsuru_lab::tools;

/// A tool run as `tsuru NAME ...`: its command line ([`ToolSpec`]: name, usage, help) and
/// what runs it.
struct Subcommand {
    spec: &'static ToolSpec,
    run: fn(&[String]) -> Result<()>,
}

/// The command line of `tsuru perft`.
const PERFT: ToolSpec = ToolSpec {
    name: "perft",
    about: "count game-tree leaves per depth (a pass is a ply) and print leaves/s",
    synopsis: "DEPTH",
    options: &[
        ToolOption::new(
            "--board",
            "\"<64 squares> <side>\"",
            "count from this position instead of the start",
        ),
        ToolOption::new(
            "--reference",
            "",
            "use the slow square-by-square move generator (a cross-check)",
        ),
    ],
    notes: "",
};

/// Every subcommand; `--help` lists them from here.
const SUBCOMMANDS: &[Subcommand] = &[
    Subcommand {
        spec: &PERFT,
        run: perft_command,
    },
    Subcommand {
        spec: &tools::solve::SPEC,
        run: tools::solve::run,
    },
    Subcommand {
        spec: &tools::review::SPEC,
        run: tools::review::run,
    },
    Subcommand {
        spec: &tools::accuracy::SPEC,
        run: tools::accuracy::run,
    },
    Subcommand {
        spec: &tools::bench::SPEC,
        run: tools::bench::run,
    },
    Subcommand {
        spec: &tools::match_cli::SPEC,
        run: tools::match_cli::run,
    },
    Subcommand {
        spec: &tools::decided::SPEC,
        run: tools::decided::run,
    },
    Subcommand {
        spec: &tools::train::SPEC,
        run: tools::train::run,
    },
    Subcommand {
        spec: &tools::tables::SPEC,
        run: tools::tables::run,
    },
    Subcommand {
        spec: &tools::datagen::SPEC,
        run: tools::datagen::run,
    },
    Subcommand {
        spec: &tools::rescore::SPEC,
        run: tools::rescore::run,
    },
    Subcommand {
        spec: &tools::label::SPEC,
        run: tools::label::run,
    },
    Subcommand {
        spec: &tools::merge::SPEC,
        run: tools::merge::run,
    },
    Subcommand {
        spec: &tools::book::SPEC,
        run: tools::book::run,
    },
    Subcommand {
        spec: &tools::winprob::SPEC,
        run: tools::winprob::run,
    },
    Subcommand {
        spec: &tools::probcut::SPEC,
        run: tools::probcut::run,
    },
];

/// The binary's `main`: logging, then the engine or a tool; exits 2 on an error.
pub fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("error"))
        .target(env_logger::Target::Stderr)
        // Every log line is one ASCII line starting with '[': whatever input a message
        // echoes is escaped (NBoard merges stderr into its stdout reader, which takes ASCII).
        .format(|buf, record| {
            use std::io::Write;
            writeln!(
                buf,
                "[{} {:<5} {}] {}",
                buf.timestamp(),
                record.level(),
                record.target(),
                crate::protocol::output::escape(&record.args().to_string())
            )
        })
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(err) = run(&args) {
        if is_broken_pipe(&err) {
            // The reader of stdout has gone (`tsuru perft 99 | head`): it asked for no
            // more, so this is a normal end, without a message and with status 0.
            return;
        }
        eprintln!(
            "tsuru: error: {}",
            crate::protocol::output::ascii(&format!("{err:#}"))
        );
        std::process::exit(2);
    }
}

/// Runs a subcommand when the first argument is a bare word, else the engine with options.
fn run(args: &[String]) -> Result<()> {
    // Engine options all start with '-', so a bare first word can only be a subcommand.
    if let Some(first) = args.first().filter(|first| !first.starts_with('-')) {
        let sub = find_subcommand(first)?;
        let rest = &args[1..];
        if rest.iter().any(|arg| arg == "--help" || arg == "-h") {
            tsuru_core::out!("{}", sub.spec.help())?;
            return Ok(());
        }
        return (sub.run)(rest);
    }
    let config = options::parse(args)?;
    if config.help {
        tsuru_core::out!("{}", help_text())?;
        return Ok(());
    }
    if config.version {
        // The weights named are those the engine would evaluate with (`--eval-file`'s).
        let eval = crate::session::build_eval(&config.eval)?;
        outln!(
            "{}",
            tsuru_core::identity::version_line_with(eval.weights_id())
        )?;
        return Ok(());
    }
    // Every file the settings name is read here, once: a bad one ends the engine before it
    // reads any input.
    crate::protocol::run(crate::session::Loaded::load(config)?)
}

/// The subcommand called `name`, or an error suggesting the nearest one.
fn find_subcommand(name: &str) -> Result<&'static Subcommand> {
    if let Some(sub) = SUBCOMMANDS.iter().find(|sub| sub.spec.name == name) {
        return Ok(sub);
    }
    let names: Vec<&str> = SUBCOMMANDS.iter().map(|sub| sub.spec.name).collect();
    let hint = did_you_mean(name, names.iter().copied());
    if hint.is_empty() {
        bail!(
            "unknown subcommand '{name}' (subcommands: {}; try --help)",
            names.join(", ")
        );
    }
    bail!("unknown subcommand '{name}'{hint}")
}

/// The text of `tsuru --help`.
fn help_text() -> String {
    let mut text = String::from(
        "tsuru: an Othello engine for NBoard (protocol v2) and GTP over stdin/stdout.\n\n\
         Usage: tsuru [OPTIONS]            run the engine (protocol detected from the first line)\n\
        \x20      tsuru SUBCOMMAND [ARGS]    run a tool\n\
        \x20      tsuru SUBCOMMAND --help    show a tool's usage\n\nOptions:\n",
    );
    text.push_str(&options::help());
    text.push_str("\nSubcommands:\n");
    for sub in SUBCOMMANDS {
        text.push_str(&format!(
            "  {:<8} {}\n           tsuru {}\n",
            sub.spec.name,
            sub.spec.about,
            sub.spec.usage()
        ));
    }
    text.push_str(
        "\nLevels: level (depth) N searches N plies in the midgame, proves win/loss/draw from\n\
         3N/2 + 2 empty squares and solves exactly from 3N/2 empty squares (level 12: exact\n\
         from 18 empties; level 40 and above: the whole game). A time limit (the game's clock\n\
         or --move-time) can end a search sooner; its last completed depth is used.\n",
    );
    text.push_str("\nGTP commands:\n");
    text.push_str(&crate::protocol::gtp::commands_help());
    text
}

/// `tsuru perft`: leaf counts per depth from the start or a given position.
fn perft_command(args: &[String]) -> Result<()> {
    let mut depth = None;
    let mut board = Board::start();
    let mut reference = false;
    let mut args = ToolArgs::from_spec(args, &PERFT);
    while let Some(arg) = args.next_option()? {
        match arg {
            Arg::Flag(flag @ "--board") => board = notation::parse_board(args.value(flag)?)?,
            Arg::Flag("--reference") => reference = true,
            Arg::Positional(text) if !text.starts_with('-') && depth.is_none() => {
                depth = Some(text.parse::<u32>().context("DEPTH must be a number")?)
            }
            other => return Err(args.unexpected(other)),
        }
    }
    let Some(depth) = depth else {
        bail!("usage: tsuru {}", PERFT.usage());
    };
    let total = Instant::now();
    for d in 1..=depth {
        let start = Instant::now();
        let leaves = if reference {
            tsuru_core::board::scan::perft(&mut board, d)
        } else {
            perft::perft(&mut board, d)
        };
        let secs = start.elapsed().as_secs_f64();
        outln!(
            "depth {:2}  leaves {:15}  time {:9.3} s  {:8.1} M leaves/s",
            d,
            leaves,
            secs,
            leaves as f64 / secs.max(1e-9) / 1e6
        )?;
    }
    outln!("total time {:.3} s", total.elapsed().as_secs_f64())?;
    Ok(())
}
