//! `tsuru review GAME [--game N] [--level N | --move-time S] [--threads N] [--hash MB]
//! [--eval-file W] [--json | --csv] [--svg FILE] [--html FILE]`: where a game went wrong.
//!
//! The review itself (each position searched from the last, values, losses, marks, error
//! totals, the decisive move, the value graph) is tsuru-core's [`tsuru_core::review`]; this
//! tool reads the game from its file, draws the progress bar and writes the review as a
//! table, JSON or CSV, the graph (`--svg`) and the page (`--html`, [`page`]).
//!
//! GAME is a GGF file (NBoard's saved games, GGS archives; `--game N` picks one), a WTHOR
//! file (`.wtb`, `--game N`), or a transcript (`f5d6c3...`, in a file or on the command
//! line). A game that did not end (resigned, lost on time) is reviewed up to its last move.
//! Bad input (an illegal move, a game number out of range, a truncated file, a game with
//! no moves) is an error naming the file, the game and the move.
//!
//! `--svg FILE` also writes the value along the game as a graph
//! ([`tsuru_core::review::graph`]), `--html FILE` a page that replays the game with the move
//! list and the graph ([`page`]).

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};

use tsuru_core::board::{notation, Board, Color, Move, Square};
use tsuru_core::cli::search_options::{
    self, SearchOptions, EVAL_FILE, HASH, LEVEL, MOVE_TIME, THREADS,
};
use tsuru_core::cli::tool_args::{Arg, ToolArgs, ToolOption, ToolSpec};
use tsuru_core::config::Level;
use tsuru_core::formats::ggf::GgfGame;
use tsuru_core::review::{
    decisive_text, graph, mark_counts, outcome, outcome_name, positions, review_game, value_text,
    GameRecord, MoveReview, Review,
};
use tsuru_core::search::time::Clock;
use tsuru_core::search::{Search, SearchRequest};

pub mod page;

/// The command line of `tsuru review`.
pub const SPEC: ToolSpec = ToolSpec {
    name: "review",
    about: "review a game: each move's value and loss against the best move, each player's \
            error total and the move that decided the game",
    synopsis: "GAME",
    options: &[
        ToolOption::new(
            "--game",
            "N",
            "the game to review in a GGF or WTHOR file of several, from 1 (default 1)",
        ),
        ToolOption::shared(LEVEL).with_default("18: exact from 27 empties"),
        ToolOption::shared(MOVE_TIME).with_default("none: the level"),
        ToolOption::shared(THREADS),
        ToolOption::shared(HASH),
        ToolOption::shared(EVAL_FILE),
        ToolOption::new("--json", "", "write the review as JSON instead of a table"),
        ToolOption::new("--csv", "", "write the moves as CSV instead of a table"),
        ToolOption::new(
            "--svg",
            "FILE",
            "also write the value for black along the game as an SVG graph, one point a\n\
             move, inaccuracies, mistakes and blunders ringed",
        ),
        ToolOption::new(
            "--html",
            "FILE",
            "also write one self-contained page replaying the game: the board (arrow keys,\n\
             Home, End), the move list, the graph and the best move of each position",
        ),
    ],
    notes: "GAME is a GGF file, a WTHOR file (.wtb) or a transcript (f5d6c3..., in a file or\n\
            given as the argument). Each position is searched at the level (exact from 3N/2\n\
            empties), or for --move-time seconds instead. Marks by the discs a move lost: best (under 1), inaccuracy\n\
            (1 to under 4), mistake (4 to under 8), blunder (8 or more). A progress bar is\n\
            drawn on stderr when it is a terminal.",
};

/// Reads game `number` (from 1) of `source`: a GGF file, a WTHOR file or a transcript (a file
/// holding one, or the text itself). Errors name the file, the game and the move.
pub fn read_game(source: &str, number: usize) -> Result<GameRecord> {
    ensure!(number >= 1, "--game counts from 1");
    let path = Path::new(source);
    if !path.exists() {
        // Not a file: a transcript given on the command line.
        return transcript_game(source, source, "the transcript");
    }
    let bytes = std::fs::read(path).with_context(|| format!("reading {source}"))?;
    let is_wthor = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("wtb"));
    if is_wthor {
        return wthor_game(source, &bytes, number);
    }
    let text = String::from_utf8_lossy(&bytes);
    if text.contains("(;") {
        return ggf_game(source, &text, number);
    }
    ensure!(
        number == 1,
        "{source} holds one transcript; --game {number} is out of range"
    );
    transcript_game(&text, source, "its transcript")
}

fn transcript_game(text: &str, name: &str, what: &str) -> Result<GameRecord> {
    let moves = notation::parse_transcript(text.trim())
        .with_context(|| format!("{name}: {what} is not a list of moves such as f5d6c3"))?;
    ensure!(!moves.is_empty(), "{name}: the game has no moves to review");
    GameRecord::from_moves(&Board::start(), &moves, name).with_context(|| format!("{name}: {what}"))
}

fn ggf_game(source: &str, text: &str, number: usize) -> Result<GameRecord> {
    let records: Vec<&str> = crate::tools::decided::records(text).collect();
    ensure!(
        !records.is_empty(),
        "{source}: no GGF game record (;...;) in it"
    );
    ensure!(
        number <= records.len(),
        "{source} holds {} game{}; --game {number} is out of range",
        records.len(),
        if records.len() == 1 { "" } else { "s" }
    );
    let name = format!("{source}, game {number}");
    let game = GgfGame::parse(records[number - 1]).with_context(|| name.clone())?;
    ensure!(
        !game.moves().is_empty(),
        "{name}: the game has no moves to review"
    );
    Ok(GameRecord::from_ggf(&game, &name))
}

/// WTHOR's layout: a 16-byte header (the record count at bytes 4-7), then 68-byte records
/// whose moves are bytes 8-67 (`10 * row + column`, from 1; 0 ends the game).
fn wthor_game(source: &str, bytes: &[u8], number: usize) -> Result<GameRecord> {
    ensure!(bytes.len() >= 16, "{source}: truncated (no WTHOR header)");
    let count = u32::from_le_bytes(bytes[4..8].try_into().expect("4 bytes")) as usize;
    let whole = (bytes.len() - 16) / 68;
    ensure!(
        number <= count,
        "{source} holds {count} game{}; --game {number} is out of range",
        if count == 1 { "" } else { "s" }
    );
    ensure!(
        number <= whole,
        "{source}: truncated: game {number} of the {count} announced is not in the file"
    );
    let name = format!("{source}, game {number}");
    let record = &bytes[16 + 68 * (number - 1)..16 + 68 * number];
    let mut board = Board::start();
    let mut moves = Vec::new();
    for (i, &code) in record[8..68].iter().take_while(|&&b| b != 0).enumerate() {
        let square = Square::from_coords(
            usize::from(code % 10).wrapping_sub(1),
            usize::from(code / 10).wrapping_sub(1),
        )
        .with_context(|| format!("{name}: move {}: no square is coded {code}", i + 1))?;
        if board.must_pass() && !board.is_game_over() {
            board.make_pass();
            moves.push(Move::Pass);
        }
        let mv = Move::Play(square);
        board
            .play(mv)
            .with_context(|| format!("{name}: move {} ({mv:#})", i + 1))?;
        moves.push(mv);
    }
    ensure!(!moves.is_empty(), "{name}: the game has no moves to review");
    Ok(GameRecord {
        start: Board::start(),
        moves,
        players: [None, None],
        name,
    })
}

/// The tool's settings.
struct Options {
    game: String,
    number: usize,
    level: Option<Level>,
    move_time: Option<Duration>,
    search: SearchOptions,
    format: Format,
    svg: Option<String>,
    html: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Table,
    Json,
    Csv,
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut game = None;
    let mut number = 1;
    let mut level = None;
    let mut move_time = None;
    let mut search = SearchOptions::default();
    let mut format = Format::Table;
    let (mut svg, mut html) = (None, None);
    let mut args = ToolArgs::from_spec(args, &SPEC);
    while let Some(arg) = args.next_option()? {
        match arg {
            Arg::Flag(flag @ "--game") => number = args.whole_number(flag)? as usize,
            Arg::Flag(flag @ "--level") => {
                level = Some(search_options::value(
                    flag,
                    args.value(flag)?,
                    search_options::level,
                )?);
            }
            Arg::Flag(flag @ "--move-time") => {
                move_time = Some(search_options::value(
                    flag,
                    args.value(flag)?,
                    search_options::move_time,
                )?);
            }
            Arg::Flag(flag) if SearchOptions::takes(flag) => search.set(flag, args.value(flag)?)?,
            Arg::Flag("--json") => format = Format::Json,
            Arg::Flag("--csv") => format = Format::Csv,
            Arg::Flag(flag @ "--svg") => svg = Some(writable(flag, args.value(flag)?)?),
            Arg::Flag(flag @ "--html") => html = Some(writable(flag, args.value(flag)?)?),
            Arg::Positional(name) if game.is_none() => game = Some(name.to_string()),
            other => return Err(args.unexpected(other)),
        }
    }
    let Some(game) = game else {
        bail!("usage: tsuru {}", SPEC.usage());
    };
    ensure!(
        !(level.is_some() && move_time.is_some()),
        "give --level or --move-time, not both"
    );
    Ok(Options {
        game,
        number,
        level,
        move_time,
        search,
        format,
        svg,
        html,
    })
}

/// `path` if a file can be written there (its folder exists), so that a review that takes
/// minutes does not fail at its end.
fn writable(flag: &str, path: &str) -> Result<String> {
    let folder = match Path::new(path).parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => Path::new("."),
    };
    ensure!(
        folder.is_dir(),
        "{flag} {path}: no folder {} to write it in",
        folder.display()
    );
    Ok(path.to_string())
}

/// Runs `tsuru review`.
pub fn run(args: &[String]) -> Result<()> {
    let options = parse_args(args)?;
    let record = read_game(&options.game, options.number)?;
    let config = options.search.config()?;
    let threads = config.threads();
    let mut search = Search::new(config);
    let request = tsuru_core::review::request(options.level, options.move_time)?;
    let started = Instant::now();
    let bar = progress_bar(record.moves.len() as u64 + 1);
    // Nothing stops a review from the command line but the end of the process.
    let never = std::sync::atomic::AtomicBool::new(false);
    let review = review_game(&mut search, &request, &record, &never, |done, _| {
        bar.set_position(done as u64)
    })
    .with_context(|| record.name.clone())?;
    bar.finish_and_clear();
    let elapsed = started.elapsed();
    let text = match options.format {
        Format::Table => table(&record, &review, &describe(&request, threads, elapsed)),
        Format::Json => json(&record, &review),
        Format::Csv => csv(&review),
    };
    if let Some(path) = &options.svg {
        std::fs::write(path, graph::svg_file(&record, &review))
            .with_context(|| format!("writing {path}"))?;
    }
    if let Some(path) = &options.html {
        let boards = positions(&record.start, &record.moves)?;
        std::fs::write(path, page::html(&record, &review, &boards))
            .with_context(|| format!("writing {path}"))?;
    }
    tsuru_core::out!("{text}")?;
    Ok(())
}

/// The progress bar on stderr: moves done, time left; drawn only when stderr is a terminal.
fn progress_bar(positions: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(positions),
        indicatif::ProgressDrawTarget::stderr(),
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "reviewing {bar:40} {pos}/{len} positions, {eta} left",
        )
        .expect("a valid template"),
    );
    bar
}

fn describe(request: &SearchRequest, threads: usize, elapsed: Duration) -> String {
    let search = match (request.level, request.clock) {
        (Some(level), _) => format!(
            "level {} (exact from {} empties)",
            level.get(),
            level.exact_empties()
        ),
        (None, Clock::PerMove(time)) => format!("{:.2} s a position", time.as_secs_f64()),
        (None, _) => "the deepest level".to_string(),
    };
    format!(
        "{search}, {threads} thread{}, {:.1} s",
        if threads == 1 { "" } else { "s" },
        elapsed.as_secs_f64()
    )
}

fn table(record: &GameRecord, review: &Review, search: &str) -> String {
    let mut out = String::new();
    let players = match &record.players {
        [Some(black), Some(white)] => format!(" {black} (black) - {white} (white);"),
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "{}:{players} {}",
        record.name,
        match review.result {
            Some(r) => format!("result {r:+} for black"),
            None => "the game did not end".to_string(),
        }
    );
    let _ = writeln!(out, "searched at {search}");
    let _ = writeln!(
        out,
        "{:>3}  {:<5}  {:<4}  {:>6}  {:>4}  {:<4}  {:>6}  {:>5}  mark",
        "#", "side", "move", "value", "win%", "best", "best v", "loss"
    );
    for m in &review.moves {
        let _ = writeln!(
            out,
            "{:>3}  {:<5}  {:<4}  {:>6}  {:>4.0}  {:<4}  {:>6}  {:>5.1}  {}{}",
            m.number,
            m.color.to_string(),
            format!("{:#}", m.played),
            value_text(m.value, m.exact),
            100.0 * m.chances.expected(),
            format!("{:#}", m.best),
            value_text(m.best_value, m.exact),
            m.loss,
            m.mark.name(),
            if m.exact { "" } else { " ~" }
        );
    }
    for color in Color::ALL {
        let _ = writeln!(
            out,
            "error total {:<5} {:>5.1} discs ({})",
            color.to_string(),
            review.error_totals[color.index()],
            mark_counts(review, color)
        );
    }
    match decisive_text(review) {
        Some(text) => {
            let _ = writeln!(out, "decisive move: {text}");
        }
        None => {
            let _ = writeln!(
                out,
                "decisive move: none; the start was already {}",
                outcome_name(outcome(review.start_value))
            );
        }
    }
    let _ = writeln!(
        out,
        "(~: a value by the search, not exact; win%: the player's expected score after the move)"
    );
    out
}

/// `text` as a JSON string literal (ASCII: everything else escaped).
fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_ascii_graphic() || c == ' ' => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
    out
}

fn json(record: &GameRecord, review: &Review) -> String {
    let mut out = String::from("{\n");
    let _ = writeln!(out, "  \"game\": {},", json_string(&record.name));
    for (key, color) in [("black", Color::Black), ("white", Color::White)] {
        let name = record.players[color.index()].as_deref().unwrap_or("");
        let _ = writeln!(out, "  \"{key}\": {},", json_string(name));
    }
    let _ = writeln!(
        out,
        "  \"result\": {},",
        review.result.map_or("null".to_string(), |r| r.to_string())
    );
    let _ = writeln!(out, "  \"moves\": [");
    for (i, m) in review.moves.iter().enumerate() {
        let fields: Vec<String> = MOVE_FIELD_NAMES
            .iter()
            .zip(move_fields(m))
            .map(|(name, (text, quoted))| {
                if quoted {
                    format!("\"{name}\": \"{text}\"")
                } else {
                    format!("\"{name}\": {text}")
                }
            })
            .collect();
        let comma = if i + 1 < review.moves.len() { "," } else { "" };
        let _ = writeln!(out, "    {{{}}}{comma}", fields.join(", "));
    }
    let _ = writeln!(out, "  ],");
    let _ = writeln!(
        out,
        "  \"error_totals\": {{\"black\": {}, \"white\": {}}},",
        review.error_totals[0], review.error_totals[1]
    );
    match &review.decisive {
        Some(d) => {
            let _ = writeln!(
                out,
                "  \"decisive\": {{\"number\": {}, \"before\": {}, \"after\": {}, \"exact\": {}}}",
                review.moves[d.index].number, d.before, d.after, d.exact
            );
        }
        None => {
            let _ = writeln!(out, "  \"decisive\": null");
        }
    }
    out.push_str("}\n");
    out
}

/// The names of a reviewed move's fields, in the order [`move_fields`] gives them: JSON's
/// keys and CSV's header.
const MOVE_FIELD_NAMES: [&str; 12] = [
    "number",
    "color",
    "move",
    "value",
    "best",
    "best_value",
    "loss",
    "exact",
    "mark",
    "win",
    "draw",
    "loss_chance",
];

/// A reviewed move's fields as JSON and CSV write them: the text, and whether JSON quotes it.
fn move_fields(m: &MoveReview) -> [(String, bool); 12] {
    [
        (m.number.to_string(), false),
        (m.color.to_string(), true),
        (format!("{:#}", m.played), true),
        (m.value.to_string(), false),
        (format!("{:#}", m.best), true),
        (m.best_value.to_string(), false),
        (m.loss.to_string(), false),
        (m.exact.to_string(), false),
        (m.mark.name().to_string(), true),
        (format!("{:.4}", m.chances.win), false),
        (format!("{:.4}", m.chances.draw), false),
        (format!("{:.4}", m.chances.loss), false),
    ]
}

fn csv(review: &Review) -> String {
    let mut out = MOVE_FIELD_NAMES.join(",");
    out.push('\n');
    for m in &review.moves {
        let row: Vec<String> = move_fields(m).into_iter().map(|(text, _)| text).collect();
        let _ = writeln!(out, "{}", row.join(","));
    }
    out
}
