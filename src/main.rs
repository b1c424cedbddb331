//! The `tsuru` binary: command-line entry point.

use std::time::Instant;

use anyhow::{bail, Context, Result};
use tsuru::board::{notation, perft, Board};

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("error"))
        .target(env_logger::Target::Stderr)
        .init();
    if let Err(err) = run(std::env::args().skip(1).collect()) {
        eprintln!("tsuru: error: {err:#}");
        std::process::exit(2);
    }
}

fn run(args: Vec<String>) -> Result<()> {
    match args.first().map(String::as_str) {
        Some("perft") => perft_command(&args[1..]),
        Some("solve") => tsuru::tools::solve::run(&args[1..]),
        Some("bench") => tsuru::tools::bench::run(&args[1..]),
        _ => bail!("usage: tsuru perft DEPTH [--board \"<64 squares> <side>\"] [--reference]"),
    }
}

fn perft_command(args: &[String]) -> Result<()> {
    let mut depth = None;
    let mut board = Board::start();
    let mut reference = false;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--board" => {
                let text = args.get(i + 1).context("--board needs a position")?;
                board = notation::parse_board(text)?;
                i += 1;
            }
            "--reference" => reference = true,
            text => depth = Some(text.parse::<u32>().context("DEPTH must be a number")?),
        }
        i += 1;
    }
    let depth = depth.context("perft needs a DEPTH")?;
    let total = Instant::now();
    let mut leaves = 0;
    for d in 1..=depth {
        let start = Instant::now();
        leaves = if reference {
            tsuru::board::scan::perft(&mut board, d)
        } else {
            perft::perft(&mut board, d)
        };
        let secs = start.elapsed().as_secs_f64();
        println!(
            "depth {:2}  leaves {:15}  time {:9.3} s  {:8.1} M leaves/s",
            d,
            leaves,
            secs,
            leaves as f64 / secs.max(1e-9) / 1e6
        );
    }
    let _ = leaves;
    println!("total time {:.3} s", total.elapsed().as_secs_f64());
    Ok(())
}
