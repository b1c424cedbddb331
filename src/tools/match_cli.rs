//! `tsuru match`: plays two engines against each other over GTP or NBoard and reports the
//! result (see [`crate::referee`] for how games are played and judged).
//!
//! ```text
//! tsuru match --engine tsuru="tsuru --gtp --level 2" --engine grhino="gtp-rhino -l 1" --games 4
//! ```
//!
//! Writes into the output folder (`--out`, default `match-out`): `games.ggf` (one GGF record
//! per line, in order of completion), `games.txt` (one line per game: number, opening,
//! players, result, reason) and `engines.log` (every line sent to and received from each
//! engine, and their stderr). Progress goes to stderr; the result table to stdout and to
//! `results.txt`.

use std::fmt::Write as _;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, ensure, Context, Result};

use crate::board::Color;
use crate::referee::openings::{self, Opening};
use crate::referee::stats::{EloEstimate, Tally};
use crate::referee::{self, EngineLog, EngineSpec, GameReport, Limits, MatchConfig, Protocol};

/// The usage line shown by `--help`.
pub const USAGE: &str = "match --engine NAME=CMD --engine NAME=CMD [--protocol NAME=gtp|nboard] \
[--openings FILE] [--games N] [--seed S] [--depth D | --move-time S | --time-per-game S] \
[--timeout S] [--margin S] [--concurrency K] [--out DIR]";

/// `tsuru match --help`.
const HELP: &str = "\
Options of tsuru match:
  --engine NAME=CMD        an engine (exactly two): a name (letters, digits, - _ .) and its
                           command line (quotes group words)
  --protocol NAME=P        gtp or nboard; otherwise detected with nboard 2 / ping 1
  --openings FILE          one transcript per line (default: the 10784 XOT openings)
  --games N                games to play (default 2); each opening is played twice, colours
                           swapped
  --seed S                 which openings, in which order (default 1)
  --depth D                midgame depth, sent to NBoard engines with set depth
  --move-time S            seconds per move, enforced by the referee
  --time-per-game S        a sudden-death clock per player, enforced by the referee
  --margin S               lag allowed beyond a clock (default 1)
  --timeout S              longest wait when no clock applies (default 300)
  --concurrency K          games played at once (default 1)
  --out DIR                games.ggf, games.txt, results.txt, engines.log (default match-out)
";

/// Everything `tsuru match` was asked to do.
struct Options {
    engines: Vec<EngineSpec>,
    protocols: Vec<(String, Protocol)>,
    openings: Option<PathBuf>,
    games: usize,
    seed: u64,
    limits: Limits,
    concurrency: usize,
    out: PathBuf,
}

/// Runs the tool: plays the match, prints the table; errors on bad arguments or when an
/// engine cannot be started at all.
pub fn run(args: &[String]) -> Result<()> {
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        print!("usage: tsuru {USAGE}\n\n{HELP}");
        return Ok(());
    }
    let options = parse_args(args)?;
    let list = match &options.openings {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            openings::parse(&text).with_context(|| format!("in {}", path.display()))?
        }
        None => openings::parse(openings::XOT_LARGE)?,
    };
    ensure!(!list.is_empty(), "the opening list is empty");
    let chosen = openings::choose(&list, options.games.div_ceil(2), options.seed);
    let engines: [EngineSpec; 2] = [options.engines[0].clone(), options.engines[1].clone()];
    let config = MatchConfig {
        engines,
        openings: chosen,
        games: options.games,
        limits: options.limits,
        concurrency: options.concurrency,
    };

    std::fs::create_dir_all(&options.out)
        .with_context(|| format!("creating {}", options.out.display()))?;
    let create = |name: &str| -> Result<File> {
        let path = options.out.join(name);
        File::create(&path).with_context(|| format!("creating {}", path.display()))
    };
    let log = EngineLog::new(Box::new(create("engines.log")?));
    let mut ggf_file = create("games.ggf")?;
    let mut games_file = create("games.txt")?;
    let names = [
        config.engines[0].name.clone(),
        config.engines[1].name.clone(),
    ];
    eprintln!(
        "match: {} vs {}, {} games, {}, openings seed {}; output in {}",
        names[0],
        names[1],
        config.games,
        describe_limits(&config.limits),
        options.seed,
        options.out.display()
    );

    let mut tallies = [Tally::default(); 2];
    let mut done = 0;
    let mut write_error = None;
    let reports = referee::run_match(&config, &log, |report| {
        done += 1;
        tallies[0].add(report.disc_diff(0));
        tallies[1].add(report.disc_diff(1));
        let line = game_line(report, &config);
        let written = writeln!(ggf_file, "{}", report.outcome.record.to_ggf())
            .and_then(|()| writeln!(games_file, "{line}"))
            .and_then(|()| ggf_file.flush())
            .and_then(|()| games_file.flush());
        if let Err(err) = written {
            write_error.get_or_insert(err);
        }
        eprintln!(
            "[{done}/{}] {line}  | {} {:.1} - {:.1} {}",
            config.games,
            names[0],
            points(&tallies[0]),
            points(&tallies[1]),
            names[1]
        );
    })?;
    if let Some(err) = write_error {
        bail!("writing the game files in {}: {err}", options.out.display());
    }
    let table = results_table(&config, &reports);
    print!("{table}");
    std::io::stdout().flush()?;
    create("results.txt")?.write_all(table.as_bytes())?;
    Ok(())
}

/// Points of a tally (a draw is half a point).
fn points(tally: &Tally) -> f64 {
    f64::from(tally.wins) + 0.5 * f64::from(tally.draws)
}

/// The limits in words, for the header.
fn describe_limits(limits: &Limits) -> String {
    let mut parts = Vec::new();
    if let Some(depth) = limits.depth {
        parts.push(format!("depth {depth}"));
    }
    if let Some(seconds) = limits.move_time {
        parts.push(format!("{seconds} s per move"));
    }
    if let Some(seconds) = limits.game_time {
        parts.push(format!("{seconds} s per game"));
    }
    if parts.is_empty() {
        parts.push("the engines' own limits".into());
    }
    parts.join(", ")
}

/// One line per game: `game 3  f5d6c3d3c4f4f6f3  black=a white=b  B+12 (38-26)` and the reason
/// of a forfeit.
fn game_line(report: &GameReport, config: &MatchConfig) -> String {
    let outcome = &report.outcome;
    let black = &config.engines[report.engine_of(Color::Black)].name;
    let white = &config.engines[report.engine_of(Color::White)].name;
    let board = outcome.record.board();
    let result = match outcome.black_diff.signum() {
        1 => format!("B+{}", outcome.black_diff),
        -1 => format!("W+{}", -outcome.black_diff),
        _ => "draw".to_string(),
    };
    let mut line = format!(
        "game {:>3}  {}  black={} white={}  {}",
        report.index + 1,
        config.openings[report.opening].name,
        black,
        white,
        result
    );
    match &outcome.fault {
        None => {
            let _ = write!(
                line,
                " ({}-{})",
                board.count(Color::Black),
                board.count(Color::White)
            );
        }
        Some((color, fault)) => {
            let loser = &config.engines[report.engine_of(*color)].name;
            let _ = write!(line, "  forfeit: {loser} ({color}): {fault}");
        }
    }
    line
}

/// The final table: per-engine totals, the Elo difference, forfeits, and split openings.
fn results_table(config: &MatchConfig, reports: &[GameReport]) -> String {
    let names = [&config.engines[0].name, &config.engines[1].name];
    let width = names.iter().map(|n| n.len()).max().unwrap_or(6).max(6);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<width$}  {:>5}  {:>4}  {:>5}  {:>6}  {:>6}  {:>6}",
        "engine", "games", "wins", "draws", "losses", "discs", "score"
    );
    for (engine, name) in names.iter().enumerate() {
        let mut tally = Tally::default();
        for report in reports {
            tally.add(report.disc_diff(engine));
        }
        let _ = writeln!(
            out,
            "{:<width$}  {:>5}  {:>4}  {:>5}  {:>6}  {:>+6}  {:>5.1}%",
            name,
            tally.games(),
            tally.wins,
            tally.draws,
            tally.losses,
            tally.discs,
            tally.score_percent()
        );
    }
    let scores: Vec<f64> = reports.iter().map(|r| r.points(0)).collect();
    if let Some(elo) = EloEstimate::from_scores(&scores) {
        let _ = writeln!(out, "Elo difference {} - {}: {elo}", names[0], names[1]);
    }
    let forfeits: Vec<String> = reports
        .iter()
        .filter_map(|report| {
            let (color, fault) = report.outcome.fault.as_ref()?;
            let loser = names[report.engine_of(*color)];
            Some(format!(
                "  game {}: {loser} lost by {fault}",
                report.index + 1
            ))
        })
        .collect();
    if !forfeits.is_empty() {
        let _ = writeln!(out, "Forfeits:");
        for line in forfeits {
            let _ = writeln!(out, "{line}");
        }
    }
    let splits = split_openings(config, reports);
    if !splits.is_empty() {
        let _ = writeln!(
            out,
            "Openings where the pair split (each engine won one game):"
        );
        for (opening, black_won) in splits {
            let side = if black_won { "Black" } else { "White" };
            let _ = writeln!(out, "  {}  (won by {side} both times)", opening.name);
        }
    }
    out
}

/// The openings whose two games each engine won once, with whether Black won both times.
fn split_openings<'a>(config: &'a MatchConfig, reports: &[GameReport]) -> Vec<(&'a Opening, bool)> {
    let mut splits = Vec::new();
    for pair in reports.chunks(2) {
        if let [first, second] = pair {
            if first.opening == second.opening
                && first.points(0) + second.points(0) == 1.0
                && first.points(0) != 0.5
            {
                splits.push((
                    &config.openings[first.opening],
                    first.outcome.black_diff > 0,
                ));
            }
        }
    }
    splits
}

/// Splits a command line into words: whitespace separates, single and double quotes group,
/// a backslash escapes the next character (outside single quotes).
pub fn split_command(text: &str) -> Result<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => bail!("unclosed ' in {text:?}"),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => word.push(chars.next().context("trailing \\")?),
                        Some(c) => word.push(c),
                        None => bail!("unclosed \" in {text:?}"),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next().context("trailing \\")?);
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// Parses the arguments of `tsuru match`.
fn parse_args(args: &[String]) -> Result<Options> {
    let mut options = Options {
        engines: Vec::new(),
        protocols: Vec::new(),
        openings: None,
        games: 2,
        seed: 1,
        limits: Limits::default(),
        concurrency: 1,
        out: PathBuf::from("match-out"),
    };
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        let value = args
            .get(i + 1)
            .with_context(|| format!("{flag} needs a value (usage: tsuru {USAGE})"));
        let seconds = |text: &String| -> Result<f64> {
            let value: f64 = text
                .parse()
                .with_context(|| format!("{flag} needs seconds, not {text:?}"))?;
            ensure!(value.is_finite() && value > 0.0, "{flag} must be positive");
            Ok(value)
        };
        match flag {
            "--engine" => {
                let text = value?;
                let (name, command) = text
                    .split_once('=')
                    .with_context(|| format!("--engine needs NAME=CMD, not {text:?}"))?;
                let name = checked_name(name)?;
                let command = split_command(command)?;
                ensure!(!command.is_empty(), "--engine {name}= needs a command");
                options.engines.push(EngineSpec {
                    name,
                    command,
                    protocol: None,
                });
            }
            "--protocol" => {
                let text = value?;
                let (name, protocol) = text
                    .split_once('=')
                    .with_context(|| format!("--protocol needs NAME=gtp|nboard, not {text:?}"))?;
                options
                    .protocols
                    .push((name.to_string(), protocol.parse()?));
            }
            "--openings" => options.openings = Some(PathBuf::from(value?)),
            "--games" => {
                options.games = value?.parse().context("--games needs a number")?;
                ensure!(options.games > 0, "--games must be at least 1");
            }
            "--seed" => options.seed = value?.parse().context("--seed needs a number")?,
            "--depth" => {
                let depth: u32 = value?.parse().context("--depth needs a number")?;
                ensure!((1..=60).contains(&depth), "--depth must be 1..60");
                options.limits.depth = Some(depth);
            }
            "--move-time" => options.limits.move_time = Some(seconds(value?)?),
            "--time-per-game" => options.limits.game_time = Some(seconds(value?)?),
            "--timeout" => options.limits.timeout = seconds(value?)?,
            "--margin" => options.limits.margin = seconds(value?)?,
            "--concurrency" => {
                options.concurrency = value?.parse().context("--concurrency needs a number")?;
                ensure!(options.concurrency > 0, "--concurrency must be at least 1");
            }
            "--out" => options.out = PathBuf::from(value?),
            other => bail!("unexpected argument {other:?} (usage: tsuru {USAGE})"),
        }
        i += 2;
    }
    ensure!(
        options.engines.len() == 2,
        "give exactly two engines with --engine NAME=CMD (usage: tsuru {USAGE})"
    );
    ensure!(
        options.engines[0].name != options.engines[1].name,
        "the two engines need different names"
    );
    ensure!(
        options.limits.move_time.is_none() || options.limits.game_time.is_none(),
        "give --move-time or --time-per-game, not both"
    );
    for (name, protocol) in &options.protocols {
        let engine = options
            .engines
            .iter_mut()
            .find(|engine| engine.name == *name)
            .with_context(|| format!("--protocol names no engine: {name:?}"))?;
        engine.protocol = Some(*protocol);
    }
    Ok(options)
}

/// An engine name: letters, digits, `-`, `_` and `.` (it goes into GGF tags and file lines).
fn checked_name(name: &str) -> Result<String> {
    ensure!(
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)),
        "engine name {name:?} must be letters, digits, '-', '_' or '.'"
    );
    Ok(name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_split_like_a_shell() {
        assert_eq!(
            split_command("  tsuru --gtp  --level 2 ").unwrap(),
            ["tsuru", "--gtp", "--level", "2"]
        );
        assert_eq!(
            split_command(r#"'/opt/my engine/run' "a b" c\ d ''"#).unwrap(),
            ["/opt/my engine/run", "a b", "c d", ""]
        );
        assert!(split_command("'open").is_err());
        assert!(split_command("x\\").is_err());
    }

    #[test]
    fn arguments_are_checked() {
        let args = |text: &str| -> Vec<String> { split_command(text).unwrap() };
        let ok = parse_args(&args(
            "--engine a=x --engine b='y -l 1' --protocol b=nboard --games 6 --depth 3",
        ))
        .unwrap();
        assert_eq!(ok.engines[1].command, ["y", "-l", "1"]);
        assert_eq!(ok.engines[1].protocol, Some(Protocol::Nboard));
        assert_eq!(ok.engines[0].protocol, None);
        assert_eq!((ok.games, ok.limits.depth), (6, Some(3)));
        for bad in [
            "--engine a=x",
            "--engine a=x --engine a=y",
            "--engine a=x --engine b=",
            "--engine a]=x --engine b=y",
            "--engine a=x --engine b=y --protocol c=gtp",
            "--engine a=x --engine b=y --protocol a=uci",
            "--engine a=x --engine b=y --games 0",
            "--engine a=x --engine b=y --move-time 1 --time-per-game 60",
            "--engine a=x --engine b=y --move-time -1",
            "--engine a=x --engine b=y --depth",
            "--engine a=x --engine b=y --bogus 1",
        ] {
            assert!(parse_args(&args(bad)).is_err(), "{bad}");
        }
    }
}
