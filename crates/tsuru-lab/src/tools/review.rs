//! `tsuru review GAME [--game N] [--level N | --move-time S] [--threads N] [--hash MB]
//! [--eval-file W] [--json | --csv] [--svg FILE] [--html FILE]`: where a game went wrong.
//!
//! Every position of the game is searched, from the last to the first so that the solver's
//! table, filled by the end of the game, serves the earlier positions. A move's **value** is
//! what the move played is worth to its player (the next position's value, negated), the
//! **best** move is the search's, and the **loss** is what the move played gave away: the
//! best value less the played one, never below zero. From where the level solves exactly
//! (`3N/2` empties at level N) the values, and so the losses, are exact. Each move gets a
//! mark by its loss ([`Mark`]); each player's **error total** is the sum of their losses,
//! the figure Othello players compare; the **decisive move** is the last move that changed
//! the game's result (a win, a draw or a loss for Black) as the values judge it, exact when
//! both of its positions are solved.
//!
//! GAME is a GGF file (NBoard's saved games, GGS archives; `--game N` picks one), a WTHOR
//! file (`.wtb`, `--game N`), or a transcript (`f5d6c3...`, in a file or on the command
//! line). A game that did not end (resigned, lost on time) is reviewed up to its last move.
//! Bad input (an illegal move, a game number out of range, a truncated file, a game with
//! no moves) is an error naming the file, the game and the move.
//!
//! `--svg FILE` also writes the value along the game as a graph, `--html FILE` a page that
//! replays the game with the move list and the graph ([`page`]).

use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};

use tsuru_core::board::{notation, Board, Color, Move, Square};
use tsuru_core::cli::search_options::{
    self, SearchOptions, EVAL_FILE, HASH, LEVEL, MOVE_TIME, THREADS,
};
use tsuru_core::cli::tool_args::{Arg, ToolArgs, ToolOption, ToolSpec};
use tsuru_core::config::Level;
use tsuru_core::eval::win_probability::{WinModel, WinProbability};
use tsuru_core::formats::ggf::GgfGame;
use tsuru_core::search::time::Clock;
use tsuru_core::search::{Depth, Search, SearchLimits, SearchRequest};

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

/// The level a review searches at unless `--level` says otherwise: exact from 27 empties,
/// so the last 27 moves of a game are judged exactly, in about 14 s for a 60-move game on
/// 2 cores (level 16, exact from 24 empties, takes 1 to 3 s; level 20, exact from 30, over
/// a minute: docs/results.md).
pub const REVIEW_LEVEL: Level = match Level::new(18) {
    Some(level) => level,
    None => panic!("18 is a level"),
};

/// How bad a move was, by the discs it lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Lost under 1 disc: the best move or as good as it.
    Best,
    /// Lost 1 to under 4 discs.
    Inaccuracy,
    /// Lost 4 to under 8 discs.
    Mistake,
    /// Lost 8 discs or more.
    Blunder,
}

impl Mark {
    /// The mark of a move that lost `loss` discs.
    pub fn of(loss: f64) -> Mark {
        if loss < 1.0 {
            Mark::Best
        } else if loss < 4.0 {
            Mark::Inaccuracy
        } else if loss < 8.0 {
            Mark::Mistake
        } else {
            Mark::Blunder
        }
    }

    /// The mark's name, as the outputs write it.
    pub fn name(self) -> &'static str {
        match self {
            Mark::Best => "best",
            Mark::Inaccuracy => "inaccuracy",
            Mark::Mistake => "mistake",
            Mark::Blunder => "blunder",
        }
    }
}

/// One searched position of the game: its value for the side to move, the best move and
/// whether the value is exact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PositionValue {
    /// The value for the side to move, in discs.
    pub value: f64,
    /// The best move (a pass where it is forced; [`Move::Pass`] at the game's end).
    pub best: Move,
    /// Whether the value is the exact game-theoretic one.
    pub exact: bool,
}

/// One move of the game, reviewed.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReview {
    /// The move's number in the game, from 1 (passes count: they are moves of the record).
    pub number: usize,
    /// Who played it.
    pub color: Color,
    /// The move played.
    pub played: Move,
    /// What the move played is worth to its player, in discs.
    pub value: f64,
    /// The best move of the position.
    pub best: Move,
    /// What the best move is worth to the player, in discs.
    pub best_value: f64,
    /// The discs the move played gave away: `best_value - value`, never below zero.
    pub loss: f64,
    /// Whether `value` and `best_value` are exact (and so the loss).
    pub exact: bool,
    /// The mark of the loss.
    pub mark: Mark,
    /// The player's chances after the move, from its value
    /// ([`tsuru_core::eval::win_probability`]: certain where the value is exact).
    pub chances: WinProbability,
}

/// The move that decided the game: the last that changed its result.
#[derive(Clone, Debug, PartialEq)]
pub struct Decisive {
    /// The move's index in [`Review::moves`].
    pub index: usize,
    /// Black's result before the move and after it: 1 a win, 0 a draw, -1 a loss.
    pub before: i32,
    /// See `before`.
    pub after: i32,
    /// Whether both values are exact.
    pub exact: bool,
}

/// A reviewed game.
#[derive(Clone, Debug, PartialEq)]
pub struct Review {
    /// Every move that was a choice (forced passes are left out), in game order.
    pub moves: Vec<MoveReview>,
    /// The value of the game's first position for Black, in discs.
    pub start_value: f64,
    /// Black's and White's error totals: the sum of their moves' losses, in discs.
    pub error_totals: [f64; 2],
    /// The last move that changed the result, if any did.
    pub decisive: Option<Decisive>,
    /// Black's final disc difference when the game ended, `None` for a game that did not.
    pub result: Option<i32>,
}

/// The positions of a game: `start` and the position after each move.
pub fn positions(start: &Board, moves: &[Move]) -> Result<Vec<Board>> {
    let mut board = start.without_history();
    let mut out = vec![board.clone()];
    for (i, &mv) in moves.iter().enumerate() {
        board
            .play(mv)
            .with_context(|| format!("move {} ({mv:#})", i + 1))?;
        out.push(board.without_history());
    }
    Ok(out)
}

/// Reviews the game `moves` from `start` with values from `value_of` (called on every
/// position, the last first), reporting each position done to `progress`.
pub fn review_with(
    start: &Board,
    moves: &[Move],
    mut value_of: impl FnMut(&Board) -> PositionValue,
    mut progress: impl FnMut(usize, usize),
) -> Result<Review> {
    ensure!(!moves.is_empty(), "the game has no moves to review");
    let boards = positions(start, moves)?;
    let mut values = vec![None; boards.len()];
    for (done, i) in (0..boards.len()).rev().enumerate() {
        values[i] = Some(value_of(&boards[i]));
        progress(done + 1, boards.len());
    }
    let values: Vec<PositionValue> = values.into_iter().map(|v| v.expect("searched")).collect();
    // A position's value for Black.
    let for_black = |i: usize| {
        let v = values[i].value;
        if boards[i].side_to_move() == Color::Black {
            v
        } else {
            -v
        }
    };
    let mut reviewed = Vec::new();
    let mut error_totals = [0.0; 2];
    let mut decisive = None;
    for (i, &mv) in moves.iter().enumerate() {
        let board = &boards[i];
        let color = board.side_to_move();
        let (before, after) = (outcome(for_black(i)), outcome(for_black(i + 1)));
        if before != after {
            decisive = Some(Decisive {
                index: reviewed.len(),
                before,
                after,
                exact: values[i].exact && values[i + 1].exact,
            });
        }
        if mv == Move::Pass {
            // A forced pass is no choice: nothing to review.
            continue;
        }
        let best = values[i];
        // The best move played is worth the position's value; another move, the next
        // position's value for the opponent (a pass is a move of its own), negated.
        let (value, exact) = if mv == best.best {
            (best.value, best.exact)
        } else {
            (-values[i + 1].value, best.exact && values[i + 1].exact)
        };
        let loss = (best.value - value).max(0.0);
        error_totals[color.index()] += loss;
        reviewed.push(MoveReview {
            number: i + 1,
            color,
            played: mv,
            value,
            best: best.best,
            best_value: best.value,
            loss,
            exact,
            mark: Mark::of(loss),
            chances: WinModel::shipped().of_value(value, board.empties() - 1, exact),
        });
    }
    let last = boards.last().expect("the start at least");
    // A decisive pass is reported at the move after it, the player's next choice.
    if let Some(d) = &mut decisive {
        d.index = d.index.min(reviewed.len().saturating_sub(1));
    }
    Ok(Review {
        moves: reviewed,
        start_value: for_black(0),
        error_totals,
        decisive,
        result: last
            .is_game_over()
            .then(|| last.final_score(Color::Black).get()),
    })
}

/// The value of `board` by `search` within `limits`: the game's final score at its end.
pub fn search_value(search: &mut Search, board: &Board, limits: &SearchLimits) -> PositionValue {
    if board.is_game_over() {
        return PositionValue {
            value: f64::from(board.final_score(board.side_to_move()).get()),
            best: Move::Pass,
            exact: true,
        };
    }
    let stop = AtomicBool::new(false);
    let result = search.iterate(board, limits, &stop, &mut |_| {});
    PositionValue {
        value: result.score.discs(),
        best: result.best,
        exact: result.depth == Depth::Exact,
    }
}

/// A game to review: where it starts, its moves and what to call it in messages.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// The start position.
    pub start: Board,
    /// The moves, passes included.
    pub moves: Vec<Move>,
    /// Black's and White's names, where the record gives them.
    pub players: [Option<String>; 2],
    /// What the record is called in messages: the file and the game.
    pub name: String,
}

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
    let mut board = Board::start();
    notation::play_moves(&mut board, &moves).with_context(|| format!("{name}: {what}"))?;
    ensure!(!moves.is_empty(), "{name}: the game has no moves to review");
    // The passes the transcript left out, put back.
    let moves: Vec<Move> = board.history().collect();
    Ok(GameRecord {
        start: Board::start(),
        moves,
        players: [None, None],
        name: name.to_string(),
    })
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
    let tag = |key: &str| {
        game.tags
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    Ok(GameRecord {
        start: game.start().clone(),
        moves: game.moves().iter().map(|m| m.mv).collect(),
        players: [tag("PB"), tag("PW")],
        name,
    })
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
    let request = SearchRequest {
        level: Some(options.level.unwrap_or(REVIEW_LEVEL)).filter(|_| options.move_time.is_none()),
        clock: options.move_time.map_or(Clock::Unlimited, Clock::PerMove),
        ..SearchRequest::default()
    };
    let started = Instant::now();
    let bar = progress_bar(record.moves.len() as u64 + 1);
    let review = review_with(
        &record.start,
        &record.moves,
        |board| {
            let mut limits = request
                .limits(board.empties())
                .expect("one best move is a valid request");
            // Values in discs everywhere: no win/loss/draw-only proofs.
            limits.wld_empties = limits.exact_empties;
            search_value(&mut search, board, &limits)
        },
        |done, _| bar.set_position(done as u64),
    )
    .with_context(|| record.name.clone())?;
    bar.finish_and_clear();
    let elapsed = started.elapsed();
    let text = match options.format {
        Format::Table => table(&record, &review, &describe(&request, threads, elapsed)),
        Format::Json => json(&record, &review),
        Format::Csv => csv(&review),
    };
    if let Some(path) = &options.svg {
        std::fs::write(path, page::svg_file(&record, &review))
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

/// A value as the table writes it: whole discs when exact, else to a tenth.
fn value_text(value: f64, exact: bool) -> String {
    if exact {
        format!("{:+}", value.round() as i64)
    } else {
        format!("{value:+.1}")
    }
}

/// The result a value for Black stands for: 1 a black win, 0 a draw, -1 a white win.
fn outcome(value: f64) -> i32 {
    (value > 0.0) as i32 - (value < 0.0) as i32
}

fn outcome_name(outcome: i32) -> &'static str {
    match outcome {
        1 => "a black win",
        0 => "a draw",
        _ => "a white win",
    }
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
        let mine = review.moves.iter().filter(|m| m.color == color);
        let count = |mark: Mark| mine.clone().filter(|m| m.mark == mark).count();
        let _ = writeln!(
            out,
            "error total {:<5} {:>5.1} discs ({} inaccuracies, {} mistakes, {} blunders)",
            color.to_string(),
            review.error_totals[color.index()],
            count(Mark::Inaccuracy),
            count(Mark::Mistake),
            count(Mark::Blunder)
        );
    }
    match &review.decisive {
        Some(d) => {
            let m = &review.moves[d.index];
            let _ = writeln!(
                out,
                "decisive move: {} {} {:#}, from {} to {}{}",
                m.number,
                m.color,
                m.played,
                outcome_name(d.before),
                outcome_name(d.after),
                if d.exact {
                    " (exact)"
                } else {
                    " (by the search)"
                }
            );
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

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(value: f64, best: &str) -> PositionValue {
        PositionValue {
            value,
            best: best.parse().unwrap(),
            exact: true,
        }
    }

    #[test]
    fn marks_follow_the_documented_thresholds() {
        for (loss, mark) in [
            (0.0, Mark::Best),
            (0.9, Mark::Best),
            (1.0, Mark::Inaccuracy),
            (3.9, Mark::Inaccuracy),
            (4.0, Mark::Mistake),
            (7.9, Mark::Mistake),
            (8.0, Mark::Blunder),
            (40.0, Mark::Blunder),
        ] {
            assert_eq!(Mark::of(loss), mark, "{loss}");
        }
    }

    #[test]
    fn losses_totals_and_the_decisive_move_come_from_the_values() {
        // Three moves from the start; made-up values for each position, side to move's view:
        // black +2 (best f5), white -2 (best d6), black +6 (best c3), white -4.
        let moves: Vec<Move> = notation::parse_transcript("f5f6e6").unwrap();
        let values = [
            exact(2.0, "f5"),
            exact(-2.0, "d6"),
            exact(6.0, "c3"),
            exact(-4.0, "pa"),
        ];
        let mut asked = Vec::new();
        let review = review_with(
            &Board::start(),
            &moves,
            |board| {
                asked.push(board.empties());
                values[(60 - board.empties()) as usize]
            },
            |_, _| {},
        )
        .unwrap();
        // Searched from the last position to the first.
        assert_eq!(asked, [57, 58, 59, 60]);
        let losses: Vec<f64> = review.moves.iter().map(|m| m.loss).collect();
        // f5 is the best move: worth the position's +2, 0 lost. f6 is worth -6 to white where
        // d6 was worth -2: 4 lost.
        // e6 is worth +4 to black where c3 was worth +6: 2 lost.
        assert_eq!(losses, [0.0, 4.0, 2.0]);
        assert_eq!(review.error_totals, [2.0, 4.0]);
        assert_eq!(
            review.moves.iter().map(|m| m.mark).collect::<Vec<_>>(),
            [Mark::Best, Mark::Mistake, Mark::Inaccuracy]
        );
        // Black was winning throughout: nothing changed the result.
        assert_eq!(review.decisive, None);
        assert_eq!(review.result, None);
    }

    #[test]
    fn the_decisive_move_is_the_last_that_changed_the_result() {
        let moves: Vec<Move> = notation::parse_transcript("f5f6e6").unwrap();
        // Black +2, then after f5 white to move at +2 (black -2: white wins), after f6
        // black to move at +2 (black wins), after e6 white to move at 0 (a draw).
        let values = [
            exact(2.0, "f5"),
            exact(2.0, "d6"),
            exact(2.0, "e6"),
            exact(0.0, "pa"),
        ];
        let review = review_with(
            &Board::start(),
            &moves,
            |board| values[(60 - board.empties()) as usize],
            |_, _| {},
        )
        .unwrap();
        let d = review.decisive.expect("the result changed");
        assert_eq!((review.moves[d.index].number, d.before, d.after), (3, 1, 0));
    }

    #[test]
    fn bad_games_are_refused_with_what_is_wrong() {
        let err = review_with(&Board::start(), &[], |_| exact(0.0, "pa"), |_, _| {});
        assert!(err.unwrap_err().to_string().contains("no moves"));
        let moves = notation::parse_transcript("f5a1").unwrap();
        let err = positions(&Board::start(), &moves).unwrap_err();
        assert!(format!("{err:#}").contains("move 2 (a1)"), "{err:#}");
    }
}
