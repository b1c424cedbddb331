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
//! `results.txt`. `match.txt` describes the record: the referee's version and command line,
//! each engine's name, command line and protocol, and the settings (a resumed match appends
//! the same for each sitting). The line formats of `games.txt` and `games.ggf` are
//! [`tsuru_core::formats::match_record`].
//!
//! `--resume` continues a match that was stopped: the games listed in `games.txt` count as
//! played (their lines are checked against the schedule: number, opening, colours), the
//! others are played, and the table covers them all. A long match, such as 100 games against
//! GRhino's strongest level, can so be played in several sittings.
//!
//! `--sprt ELO0,ELO1` runs a sequential probability ratio test on the colour-swapped pairs
//! (see [`crate::referee::sprt`]): H1 says the first engine is `ELO1` stronger than the
//! second, H0 only `ELO0`. `--games` is then the most games to play (default
//! [`SPRT_MAX_GAMES`]); the match starts no new pair once the log-likelihood ratio reaches a
//! bound, and the table ends with the LLR, the bounds and the decision. `--resume` recomputes
//! the test from `games.txt`, in the order the games finished, so it stops where an
//! uninterrupted match would have.

use std::fmt::Write as _;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, ensure, Context, Result};

use crate::referee::identity::identify;
use crate::referee::sprt::{PairedSprt, Sprt};
use crate::referee::stats::{EloEstimate, Tally};
use crate::referee::{self, EngineLog, EngineSpec, GameReport, Limits, MatchConfig, MatchFlow};
use tsuru_core::board::Color;
use tsuru_core::cli::search_options;
use tsuru_core::cli::tool_args::{Arg, ToolArgs, ToolOption, ToolSpec};
use tsuru_core::config::Protocol;
use tsuru_core::formats::match_record::{self, GameEnd, GameLine};
use tsuru_core::formats::openings::{self, Opening};
use tsuru_core::score::Discs;
use tsuru_core::search::time::saturating_seconds;

/// The most games of an SPRT match when `--games` does not say.
pub const SPRT_MAX_GAMES: usize = 20_000;

/// The command line of `tsuru match`.
pub const SPEC: ToolSpec = ToolSpec {
    name: "match",
    about: "play two GTP or NBoard engines against each other from an opening list",
    synopsis: "--engine NAME=CMD --engine NAME=CMD",
    options: &[
        ToolOption::repeated(
            "--engine",
            "NAME=CMD",
            "an engine (exactly two): a name (letters, digits, - _ .) and its\n\
             command line (quotes group words)",
        ),
        ToolOption::repeated(
            "--protocol",
            "NAME=gtp|nboard",
            "the engine's protocol; otherwise detected with nboard 2 / ping 1",
        ),
        ToolOption::new(
            "--openings",
            "FILE",
            "one transcript per line (default: the 10784 XOT openings)",
        ),
        ToolOption::new(
            "--games",
            "N",
            "games to play (default 2; with --sprt the most, default 20000);\n\
             each opening is played twice, colours swapped",
        ),
        ToolOption::new("--seed", "S", "which openings, in which order (default 1)"),
        ToolOption::new(
            "--depth",
            "D",
            "midgame depth, sent to NBoard engines with set depth",
        ),
        ToolOption::new(
            "--move-time",
            "S",
            "seconds per move, enforced by the referee",
        ),
        ToolOption::new(
            "--time-per-game",
            "S",
            "a sudden-death clock per player, enforced by the referee",
        ),
        ToolOption::new(
            "--timeout",
            "S",
            "longest wait when no clock applies (default 300)",
        ),
        ToolOption::new("--margin", "S", "lag allowed beyond a clock (default 1)"),
        ToolOption::new("--concurrency", "K", "games played at once (default 1)"),
        ToolOption::new(
            "--out",
            "DIR",
            "match.txt, games.ggf, games.txt, results.txt, engines.log\n\
             (default match-out)",
        ),
        ToolOption::new(
            "--resume",
            "",
            "continue the interrupted match in --out: keep its finished games\n\
             (games.txt) and play the rest of the schedule; give the same\n\
             engines, openings, --games and --seed",
        ),
        ToolOption::new(
            "--sprt",
            "ELO0,ELO1",
            "a sequential probability ratio test on the colour-swapped pairs:\n\
             stop once the first engine is shown ELO1 (H1) or only ELO0 (H0)\n\
             Elo stronger than the second (logistic Elo, pentanomial counts)",
        ),
        ToolOption::new(
            "--alpha",
            "A",
            "the test's rate of accepting H1 when H0 holds (default 0.05)",
        ),
        ToolOption::new(
            "--beta",
            "B",
            "the test's rate of accepting H0 when H1 holds (default 0.05)",
        ),
    ],
    notes: "Give at most one of --move-time and --time-per-game; --alpha and --beta go with\n\
            --sprt.",
};

/// Everything `tsuru match` was asked to do.
struct Options {
    engines: Vec<EngineSpec>,
    protocols: Vec<(String, Protocol)>,
    openings: Option<PathBuf>,
    /// The games to play, or with `sprt` the most.
    games: usize,
    seed: u64,
    limits: Limits,
    concurrency: usize,
    out: PathBuf,
    resume: bool,
    /// The sequential test, if asked for.
    sprt: Option<Sprt>,
}

/// Runs the tool: plays the match, prints the table; errors on bad arguments or when an
/// engine cannot be started at all.
pub fn run(args: &[String]) -> Result<()> {
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
    let earlier = if options.resume {
        resume_files(&options.out, &config)?
    } else {
        Vec::new()
    };
    let open = |name: &str| -> Result<File> {
        let path = options.out.join(name);
        std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .append(options.resume)
            .truncate(!options.resume)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))
    };
    let log = EngineLog::new(Box::new(open("engines.log")?));
    // Each engine's own account of itself, so the record names the builds that played.
    let identities: Vec<String> = config
        .engines
        .iter()
        .map(|spec| {
            identify(
                spec,
                &log,
                config.limits.timeout.min(Duration::from_secs(30)),
            )
        })
        .collect();
    let description = describe_record(args, &options, &config, &identities);
    open("match.txt")?
        .write_all(description.as_bytes())
        .with_context(|| format!("writing match.txt in {}", options.out.display()))?;
    let mut ggf_file = open("games.ggf")?;
    let mut games_file = open("games.txt")?;
    let names = [
        config.engines[0].name.clone(),
        config.engines[1].name.clone(),
    ];
    eprintln!(
        "match: {} vs {}, {}{} games{}, {}, openings seed {}; output in {}",
        names[0],
        names[1],
        match &options.sprt {
            Some(test) => {
                let (lower, upper) = test.bounds();
                format!(
                    "SPRT elo0 {} elo1 {} (alpha {}, beta {}, llr bounds {lower:.2} .. \
                     {upper:.2}), at most ",
                    test.elo0, test.elo1, test.alpha, test.beta
                )
            }
            None => String::new(),
        },
        config.games,
        if earlier.is_empty() {
            String::new()
        } else {
            format!(" ({} already played)", earlier.len())
        },
        describe_limits(&config.limits),
        options.seed,
        options.out.display()
    );

    let mut tallies = [Tally::default(); 2];
    // `earlier` is in the order of games.txt, the order in which the games finished.
    let mut sprt = options.sprt.map(PairedSprt::new);
    for game in &earlier {
        tallies[0].add(game.disc_diff(0));
        tallies[1].add(game.disc_diff(1));
        if let Some(sprt) = &mut sprt {
            sprt.add_game(game.index, game.points(0));
        }
    }
    let mut done = earlier.len();
    let mut write_error = None;
    let played: Vec<usize> = earlier.iter().map(|game| game.index).collect();
    let decided = sprt.as_ref().is_some_and(|sprt| sprt.crossing().is_some());
    if decided {
        eprintln!("match: the SPRT reached its verdict in the games already played");
    }
    let on_game = |report: &GameReport| -> MatchFlow {
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
        let mut flow = MatchFlow::Continue;
        let mut llr = String::new();
        if let Some(sprt) = &mut sprt {
            if sprt.add_game(report.index, report.points(0)) {
                flow = MatchFlow::Stop;
            }
            llr = format!("  llr {:.2}", sprt.llr());
        }
        eprintln!(
            "[{done}/{}] {line}  | {} {:.1} - {:.1} {}{llr}",
            config.games,
            names[0],
            points(&tallies[0]),
            points(&tallies[1]),
            names[1]
        );
        flow
    };
    let reports = if decided {
        Vec::new()
    } else {
        referee::run_match(&config, &log, &played, on_game)?
    };
    if let Some(err) = write_error {
        bail!("writing the game files in {}: {err}", options.out.display());
    }
    let mut finished = earlier;
    finished.extend(reports.iter().map(Finished::of));
    finished.sort_by_key(|game| game.index);
    let mut table = results_table(&config, &finished);
    if let Some(sprt) = &sprt {
        table += &sprt.summary(&names[0]);
    }
    // The record first: a closed stdout must not cost the results file.
    File::create(options.out.join("results.txt"))
        .and_then(|mut file| file.write_all(table.as_bytes()))
        .with_context(|| format!("writing results.txt in {}", options.out.display()))?;
    tsuru_core::out!("{table}")?;
    std::io::stdout().flush()?;
    Ok(())
}

/// A finished game as the results table needs it, from a report of this run or from a line
/// of an earlier run's `games.txt`.
#[derive(Clone, Debug, PartialEq)]
struct Finished {
    /// 0-based game number in the schedule.
    index: usize,
    /// Index into the match's openings.
    opening: usize,
    /// Which engine played Black.
    black: usize,
    /// Final disc difference for Black (a forfeit is +-64).
    black_diff: Discs,
    /// The engine that forfeited, and why.
    forfeit: Option<(usize, String)>,
}

impl Finished {
    fn of(report: &GameReport) -> Finished {
        Finished {
            index: report.index,
            opening: report.opening,
            black: report.black,
            black_diff: report.outcome.black_diff,
            forfeit: report
                .outcome
                .fault
                .as_ref()
                .map(|(color, fault)| (report.engine_of(*color), fault.to_string())),
        }
    }

    /// Parses a line written by [`game_line`] and checks it against the schedule of `config`.
    fn parse(line: &str, config: &MatchConfig) -> Result<Finished> {
        let record = GameLine::parse(line)?;
        let number = record.number;
        ensure!(
            (1..=config.games).contains(&number),
            "game {number} is not in a match of {} games",
            config.games
        );
        let index = number - 1;
        let (opening, black) = schedule_of(index, config);
        let names = [&config.engines[0].name, &config.engines[1].name];
        ensure!(
            record.opening == config.openings[opening].name
                && &record.black == names[black]
                && &record.white == names[1 - black],
            "game {number} was not played as this match schedules it ({line:?}): give the \
             same engines, openings and --seed"
        );
        let forfeit = match record.end {
            GameEnd::Played { .. } => None,
            GameEnd::Forfeit { loser, reason, .. } => {
                let engine = names
                    .iter()
                    .position(|name| **name == loser)
                    .with_context(|| format!("no loser in {line:?}"))?;
                Some((engine, reason))
            }
        };
        Ok(Finished {
            index,
            opening,
            black,
            black_diff: record.black_diff,
            forfeit,
        })
    }

    /// The final disc difference from engine `engine`'s side.
    fn disc_diff(&self, engine: usize) -> Discs {
        if engine == self.black {
            self.black_diff
        } else {
            -self.black_diff
        }
    }

    /// Points scored by engine `engine`: 1 for a win, 0.5 for a draw, 0 for a loss.
    fn points(&self, engine: usize) -> f64 {
        referee::points_of(self.disc_diff(engine))
    }
}

/// The opening and the engine playing Black of game `index` (as the referee schedules them).
fn schedule_of(index: usize, config: &MatchConfig) -> (usize, usize) {
    ((index / 2) % config.openings.len(), index % 2)
}

/// Reads the finished games of an interrupted match from `games.txt` in `out`, checks them
/// against the schedule, and rewrites `games.txt` and `games.ggf` without a line cut short
/// by the interruption, so that new games can be appended.
fn resume_files(out: &std::path::Path, config: &MatchConfig) -> Result<Vec<Finished>> {
    let complete_lines = |name: &str| -> Result<Vec<String>> {
        let path = out.join(name);
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(match_record::complete_lines(&text)),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(err) => Err(err).with_context(|| format!("reading {}", path.display())),
        }
    };
    let lines = complete_lines("games.txt")?;
    let records = complete_lines("games.ggf")?;
    let mut finished = Vec::with_capacity(lines.len());
    for line in &lines {
        let game = Finished::parse(line, config).context("in games.txt")?;
        ensure!(
            finished.iter().all(|f: &Finished| f.index != game.index),
            "game {} is listed twice in games.txt",
            game.index + 1
        );
        finished.push(game);
    }
    let rewrite = |name: &str, lines: &[String]| -> Result<()> {
        let path = out.join(name);
        let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))
    };
    rewrite("games.txt", &lines)?;
    rewrite("games.ggf", &records[..records.len().min(lines.len())])?;
    Ok(finished)
}

/// Points of a tally (a draw is half a point).
fn points(tally: &Tally) -> f64 {
    f64::from(tally.wins) + 0.5 * f64::from(tally.draws)
}

/// The record's description of itself (`match.txt`): the referee's version and command
/// line, each engine's name, command line, protocol and what it says it is (`identities`,
/// [`identify`]), and the settings; written at the
/// start of each sitting (a resumed match appends one).
fn describe_record(
    args: &[String],
    options: &Options,
    config: &MatchConfig,
    identities: &[String],
) -> String {
    let mut text = String::new();
    let sitting = if options.resume { "resumed" } else { "started" };
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let _ = writeln!(
        text,
        "# tsuru match record, {sitting} at unix time {started}"
    );
    let _ = writeln!(text, "referee: {}", tsuru_core::identity::version_line());
    let _ = writeln!(text, "command: tsuru match {}", quote_words(args));
    for (number, engine) in config.engines.iter().enumerate() {
        let protocol = match engine.protocol {
            Some(Protocol::Gtp) => "gtp",
            Some(Protocol::Nboard) => "nboard",
            None => "detected at the start",
        };
        let _ = writeln!(
            text,
            "engine {}: {} = {} (protocol: {protocol})",
            number + 1,
            engine.name,
            quote_words(&engine.command)
        );
        if let Some(identity) = identities.get(number) {
            let _ = writeln!(text, "engine {} version: {identity}", number + 1);
        }
    }
    let games = match &options.sprt {
        Some(test) => format!(
            "at most {} (SPRT elo0 {} elo1 {}, alpha {}, beta {})",
            config.games, test.elo0, test.elo1, test.alpha, test.beta
        ),
        None => config.games.to_string(),
    };
    let _ = writeln!(text, "games: {games}");
    let openings = match &options.openings {
        Some(path) => path.display().to_string(),
        None => "the built-in XOT list".to_string(),
    };
    let _ = writeln!(
        text,
        "openings: {openings}, {} chosen with seed {}",
        config.openings.len(),
        options.seed
    );
    let _ = writeln!(
        text,
        "limits: {}; timeout {} s, margin {} s",
        describe_limits(&config.limits),
        config.limits.timeout.as_secs_f64(),
        config.limits.margin.as_secs_f64()
    );
    let _ = writeln!(text, "concurrency: {}", config.concurrency);
    text
}

/// Words as a shell (and [`split_command`]) reads them back: plain words as they are, others
/// in single quotes.
fn quote_words(words: &[String]) -> String {
    let plain = |word: &str| {
        !word.is_empty()
            && word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    };
    words
        .iter()
        .map(|word| {
            if plain(word) {
                word.clone()
            } else {
                format!("'{}'", word.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The limits in words, for the header.
fn describe_limits(limits: &Limits) -> String {
    let mut parts = Vec::new();
    if let Some(depth) = limits.depth {
        parts.push(format!("depth {depth}"));
    }
    if let Some(time) = limits.move_time {
        parts.push(format!("{} s per move", time.as_secs_f64()));
    }
    if let Some(time) = limits.game_time {
        parts.push(format!("{} s per game", time.as_secs_f64()));
    }
    if parts.is_empty() {
        parts.push("the engines' own limits".into());
    }
    parts.join(", ")
}

/// The `games.txt` line of a game ([`GameLine`]).
fn game_line(report: &GameReport, config: &MatchConfig) -> String {
    let outcome = &report.outcome;
    let name = |color| config.engines[report.engine_of(color)].name.clone();
    let board = outcome.record.board();
    let end = match &outcome.fault {
        None => GameEnd::Played {
            black: board.count(Color::Black),
            white: board.count(Color::White),
        },
        Some((color, fault)) => GameEnd::Forfeit {
            loser: name(*color),
            color: *color,
            reason: fault.to_string(),
        },
    };
    GameLine {
        number: report.index + 1,
        opening: config.openings[report.opening].name.clone(),
        black: name(Color::Black),
        white: name(Color::White),
        black_diff: outcome.black_diff,
        end,
    }
    .to_line()
}

/// The final table: per-engine totals, the Elo difference, forfeits, and split openings.
fn results_table(config: &MatchConfig, reports: &[Finished]) -> String {
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
            let (loser, fault) = report.forfeit.as_ref()?;
            Some(format!(
                "  game {}: {} lost by {fault}",
                report.index + 1,
                names[*loser]
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
fn split_openings<'a>(config: &'a MatchConfig, reports: &[Finished]) -> Vec<(&'a Opening, bool)> {
    let mut splits = Vec::new();
    for pair in reports.chunks(2) {
        if let [first, second] = pair {
            if first.opening == second.opening
                && first.points(0) + second.points(0) == 1.0
                && first.points(0) != 0.5
            {
                splits.push((
                    &config.openings[first.opening],
                    first.black_diff > Discs::ZERO,
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
        resume: false,
        sprt: None,
    };
    let mut games = None;
    let mut elos = None;
    let mut rates = [None, None];
    let mut args = ToolArgs::from_spec(args, &SPEC);
    while let Some(arg) = args.next_option()? {
        let Arg::Flag(flag) = arg else {
            return Err(args.unexpected(arg));
        };
        if flag == "--resume" {
            options.resume = true;
            continue;
        }
        let seconds = |text: &str| -> Result<Duration> {
            let value: f64 = text
                .parse()
                .with_context(|| format!("{flag} needs seconds, not {text:?}"))?;
            ensure!(value.is_finite() && value > 0.0, "{flag} must be positive");
            Ok(saturating_seconds(value))
        };
        match flag {
            "--engine" => {
                let text = args.value(flag)?;
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
                let text = args.value(flag)?;
                let (name, protocol) = text
                    .split_once('=')
                    .with_context(|| format!("--protocol needs NAME=gtp|nboard, not {text:?}"))?;
                options
                    .protocols
                    .push((name.to_string(), protocol.parse()?));
            }
            "--openings" => options.openings = Some(PathBuf::from(args.value(flag)?)),
            "--games" => {
                let count: usize = args
                    .value(flag)?
                    .parse()
                    .context("--games needs a number")?;
                ensure!(count > 0, "--games must be at least 1");
                games = Some(count);
            }
            "--sprt" => {
                let text = args.value(flag)?;
                let parsed = text.split_once(',').and_then(|(elo0, elo1)| {
                    Some((elo0.trim().parse().ok()?, elo1.trim().parse().ok()?))
                });
                elos = Some(parsed.with_context(|| {
                    format!("--sprt needs ELO0,ELO1 such as 0,10, not {text:?}")
                })?);
            }
            "--alpha" | "--beta" => {
                let rate: f64 = args
                    .value(flag)?
                    .parse()
                    .with_context(|| format!("{flag} needs a probability"))?;
                rates[usize::from(flag == "--beta")] = Some(rate);
            }
            "--seed" => {
                options.seed = args.value(flag)?.parse().context("--seed needs a number")?
            }
            "--depth" => {
                let level = search_options::value(flag, args.value(flag)?, search_options::level)?;
                options.limits.depth = Some(level);
            }
            "--move-time" => options.limits.move_time = Some(seconds(args.value(flag)?)?),
            "--time-per-game" => options.limits.game_time = Some(seconds(args.value(flag)?)?),
            "--timeout" => options.limits.timeout = seconds(args.value(flag)?)?,
            "--margin" => options.limits.margin = seconds(args.value(flag)?)?,
            "--concurrency" => {
                options.concurrency = args
                    .value(flag)?
                    .parse()
                    .context("--concurrency needs a number")?;
                ensure!(options.concurrency > 0, "--concurrency must be at least 1");
            }
            "--out" => options.out = PathBuf::from(args.value(flag)?),
            _ => return Err(args.unexpected(arg)),
        }
    }
    match elos {
        Some((elo0, elo1)) => {
            let [alpha, beta] = rates.map(|rate| rate.unwrap_or(0.05));
            options.sprt = Some(Sprt::new(elo0, elo1, alpha, beta).context("--sprt")?);
            options.games = games.unwrap_or(SPRT_MAX_GAMES);
        }
        None => {
            ensure!(rates == [None, None], "--alpha and --beta go with --sprt");
            options.games = games.unwrap_or(2);
        }
    }
    ensure!(
        options.engines.len() == 2,
        "give exactly two engines with --engine NAME=CMD (usage: tsuru {})",
        SPEC.usage()
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
    use tsuru_core::search::Level;

    #[test]
    fn quoted_words_split_back_the_same() {
        let words: Vec<String> = ["tsuru", "--engine", "a=/bin/x --gtp", "it's", ""]
            .map(String::from)
            .to_vec();
        let text = quote_words(&words);
        assert_eq!(text, "tsuru --engine 'a=/bin/x --gtp' 'it'\\''s' ''");
        assert_eq!(split_command(&text).unwrap(), words);
    }

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
        assert_eq!((ok.games, ok.limits.depth), (6, Level::new(3)));
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
            "--engine a=x --engine b=y --sprt 10",
            "--engine a=x --engine b=y --sprt 10,0",
            "--engine a=x --engine b=y --sprt 0,x",
            "--engine a=x --engine b=y --sprt 0,10 --alpha 0",
            "--engine a=x --engine b=y --sprt 0,10 --beta 0.6 --alpha 0.5",
            "--engine a=x --engine b=y --alpha 0.1",
        ] {
            assert!(parse_args(&args(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn sprt_arguments() {
        let args = |text: &str| -> Vec<String> { split_command(text).unwrap() };
        let plain = parse_args(&args("--engine a=x --engine b=y")).unwrap();
        assert_eq!((plain.games, plain.sprt), (2, None));
        let sprt = parse_args(&args("--engine a=x --engine b=y --sprt -1.5,4")).unwrap();
        assert_eq!(sprt.games, SPRT_MAX_GAMES);
        assert_eq!(sprt.sprt, Some(Sprt::new(-1.5, 4.0, 0.05, 0.05).unwrap()));
        let rates = parse_args(&args(
            "--engine a=x --engine b=y --games 500 --sprt 0,5 --alpha 0.1 --beta 0.2",
        ))
        .unwrap();
        assert_eq!(rates.games, 500);
        assert_eq!(rates.sprt, Some(Sprt::new(0.0, 5.0, 0.1, 0.2).unwrap()));
    }
}
