//! The `tsuru` binary: the engine on stdin/stdout, or one of the tools.

use std::time::Instant;

use anyhow::{bail, Context, Result};
use tsuru::board::{notation, perft, Board};
use tsuru::cli::output::is_broken_pipe;
use tsuru::cli::suggest::did_you_mean;
use tsuru::config::Config;
use tsuru::lab::tools::{Arg, ToolArgs};
use tsuru::outln;

/// A tool run as `tsuru NAME ...`.
struct Subcommand {
    name: &'static str,
    usage: &'static str,
    help: &'static str,
    /// The tool answers `--help` itself (with more than its usage); otherwise the binary
    /// prints the usage and `help` for it.
    own_help: bool,
    run: fn(&[String]) -> Result<()>,
}

/// The usage line of `tsuru perft`.
const PERFT_USAGE: &str = "perft DEPTH [--board \"<64 squares> <side>\"] [--reference]";

/// Every subcommand; `--help` lists them from here.
const SUBCOMMANDS: &[Subcommand] = &[
    Subcommand {
        name: "perft",
        usage: PERFT_USAGE,
        help: "count game-tree leaves per depth (a pass is a ply) and print leaves/s",
        own_help: false,
        run: perft_command,
    },
    Subcommand {
        name: "solve",
        usage: tsuru::lab::tools::solve::USAGE,
        help: "solve every position of an OBF file exactly and check the answers",
        own_help: false,
        run: tsuru::lab::tools::solve::run,
    },
    Subcommand {
        name: "bench",
        usage: tsuru::lab::tools::bench::USAGE,
        help: "search fixed positions to fixed depths; prints nodes/s and a node signature",
        own_help: false,
        run: tsuru::lab::tools::bench::run,
    },
    Subcommand {
        name: "match",
        usage: tsuru::lab::tools::match_cli::USAGE,
        help: "play two GTP or NBoard engines against each other from an opening list",
        own_help: true,
        run: tsuru::lab::tools::match_cli::run,
    },
    Subcommand {
        name: "decided",
        usage: tsuru::lab::tools::decided::USAGE,
        help: "solve each game of a GGF file at N empties: discs lost before and after them",
        own_help: false,
        run: tsuru::lab::tools::decided::run,
    },
    Subcommand {
        name: "train",
        usage: tsuru::lab::tools::train::USAGE,
        help: "fit the pattern evaluation to game collections; write weights and report errors",
        own_help: false,
        run: tsuru::lab::tools::train::run,
    },
    Subcommand {
        name: "datagen",
        usage: tsuru::lab::tools::datagen::USAGE,
        help: "self-play games solved exactly from a set number of empties, appended to a file",
        own_help: false,
        run: tsuru::lab::tools::datagen::run,
    },
    Subcommand {
        name: "book",
        usage: tsuru::lab::tools::book::USAGE,
        help: "build, learn into, show, export or import the opening book",
        own_help: false,
        run: tsuru::lab::tools::book::run,
    },
    Subcommand {
        name: "probcut",
        usage: tsuru::lab::tools::probcut::USAGE,
        help: "measure the Multi-ProbCut statistics of the evaluation (shallow vs deep values)",
        own_help: false,
        run: tsuru::lab::tools::probcut::run,
    },
];

fn main() {
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
                tsuru::protocol::output::escape(&record.args().to_string())
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
            tsuru::protocol::output::ascii(&format!("{err:#}"))
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
        if !sub.own_help && rest.iter().any(|arg| arg == "--help" || arg == "-h") {
            outln!("usage: tsuru {}\n\n{}", sub.usage, sub.help)?;
            return Ok(());
        }
        return (sub.run)(rest);
    }
    let config = Config::parse(args)?;
    if config.help {
        tsuru::out!("{}", help_text())?;
        return Ok(());
    }
    if config.version {
        outln!("tsuru {}", env!("CARGO_PKG_VERSION"))?;
        return Ok(());
    }
    tsuru::protocol::run(&config)
}

/// The subcommand called `name`, or an error suggesting the nearest one.
fn find_subcommand(name: &str) -> Result<&'static Subcommand> {
    if let Some(sub) = SUBCOMMANDS.iter().find(|sub| sub.name == name) {
        return Ok(sub);
    }
    let names: Vec<&str> = SUBCOMMANDS.iter().map(|sub| sub.name).collect();
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
    text.push_str(&Config::options_help());
    text.push_str("\nSubcommands:\n");
    for sub in SUBCOMMANDS {
        text.push_str(&format!(
            "  {:<8} {}\n           tsuru {}\n",
            sub.name, sub.help, sub.usage
        ));
    }
    text.push_str(
        "\nLevels: level (depth) N searches N plies in the midgame, proves win/loss/draw from\n\
         3N/2 + 2 empty squares and solves exactly from 3N/2 empty squares (level 12: exact\n\
         from 18 empties; level 40 and above: the whole game). A time limit (the game's clock\n\
         or --move-time) can end a search sooner; its last completed depth is used.\n",
    );
    text.push_str("\nGTP commands:\n");
    text.push_str(&tsuru::protocol::gtp::commands_help());
    text
}

/// `tsuru perft`: leaf counts per depth from the start or a given position.
fn perft_command(args: &[String]) -> Result<()> {
    let mut depth = None;
    let mut board = Board::start();
    let mut reference = false;
    let mut args = ToolArgs::new(args, PERFT_USAGE);
    while let Some(arg) = args.next_arg() {
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
        bail!("usage: tsuru {PERFT_USAGE}");
    };
    let total = Instant::now();
    for d in 1..=depth {
        let start = Instant::now();
        let leaves = if reference {
            tsuru::board::scan::perft(&mut board, d)
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
