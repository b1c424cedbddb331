//! `tsuru book ACTION [--book FILE] ...`: build, learn into, look at, export and import the
//! opening book ([`tsuru_core::book`], its files in [`tsuru_core::book::file`]).
//!
//! - `build`: best-first expansion from the start (or from every line of `--openings`) of
//!   the lines within `--window` discs of the best, leaves valued at `--depth` (the exact
//!   solver near the end), until `--positions` new positions; positions within the exact
//!   solver's reach at that depth are leaves, never expanded ([`horizon`]); the file is
//!   rewritten every 30 seconds, at the end and at the first Ctrl-C (heeded between batches
//!   of searches; a second one ends the process at once), and a later run resumes from it.
//!   Progress on stderr.
//! - `learn`: adds games (GGF records, or transcripts one a line) and rewrites the file
//!   after each, so a crash loses at most the game being added.
//! - `show`: the moves of a position (the start, or after a transcript) with values, game
//!   counts and depths. `stats`: counts. `export`: the text form (to `--out` or stdout).
//!   `import`: a text form made into the book file (replacing it).
//!
//! `show`, `stats`, `export` and `export-edax` read the book the engine plays from when no
//! `--book` is given: the per-user book ([`tsuru_core::book::user`]) once NBoard's `learn` has made
//! it, the shipped book ([`tsuru_core::book::SHIPPED`]) before; they say which. The actions that
//! write (`build`, `learn`, `import`) need `--book`.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tsuru_core::search::SearchConfig;

use anyhow::{bail, ensure, Context, Result};

mod interop;

use crate::parallel::map_chunks;
use tsuru_core::board::{notation, Board, Move};
use tsuru_core::book::build::{add_roots, expand, horizon, Candidate, Expansion};
use tsuru_core::book::file;
use tsuru_core::book::learn::SearchValuer;
use tsuru_core::book::{Book, Key};
use tsuru_core::cli::search_options::{self, SearchOptions, EVAL_FILE, HASH};
use tsuru_core::cli::tool_args::{Arg, ToolArgs, ToolOption, ToolSpec};
use tsuru_core::eval::EvalBundle;
use tsuru_core::formats::ggf::GgfGame;
use tsuru_core::io::interrupt;
use tsuru_core::score::{Discs, Score};
use tsuru_core::search::{Level, Search};

/// The command line of `tsuru book`: one table for every action (an action ignores the
/// options it has no use for; the notes say which it uses).
pub const SPEC: ToolSpec = ToolSpec {
    name: "book",
    about: "build, learn into, show, export, import or merge the opening book; Edax's books",
    synopsis: "build|learn|show|stats|export|import|import-edax|export-edax|merge|path \
               [--book FILE] [ARG]...",
    options: &[
        ToolOption::new(
            "--book",
            "FILE",
            "the book file: build, learn and import need one; show, stats,\n\
             export and export-edax read the engine's book without it (the\n\
             per-user book once it exists, else the shipped one), import-edax\n\
             merges into the per-user book without it",
        ),
        ToolOption::new(
            "--openings",
            "FILE",
            "build: expand from every line of this opening list (default: the start)",
        ),
        ToolOption::new(
            "--depth",
            "D",
            "build, learn, merge: search depth that values new positions, 1..60\n\
             (default 10)",
        ),
        ToolOption::new(
            "--positions",
            "N",
            "build: stop after N new positions (default 100)",
        ),
        ToolOption::new(
            "--window",
            "W",
            "build: expand the lines within W discs of the best (default 2)",
        ),
        ToolOption::reproducible_threads(),
        ToolOption::shared(HASH),
        ToolOption::shared(EVAL_FILE),
        ToolOption::new(
            "--out",
            "TEXT",
            "export: write the text form there (default: stdout); merge: the\n\
             merged book's file (needed)",
        ),
    ],
    notes: "The searches of build, learn and merge use --hash and --eval-file (each its own\n\
            table); build runs --threads of them at once.\n\
            \n\
            Actions (and their ARGs):\n\
           \x20 build            add --positions new positions, best-first, to the book (made if\n\
           \x20                  missing; a later build resumes it); saved every 30 s, at the end\n\
           \x20                  and on Ctrl-C\n\
           \x20 learn GAMES...   add the games of these files (GGF records, or one transcript a line);\n\
           \x20                  the book is saved after each game\n\
           \x20 show [MOVES]     the position after a transcript (default: the start) and its moves\n\
           \x20                  with values, games and depths\n\
           \x20 stats            counts: positions, book moves, leaves, games, positions by move\n\
           \x20 export           the book's text form (to --out, or stdout)\n\
           \x20 import TEXT      the book file made from a text form (replacing the file)\n\
           \x20 import-edax DAT  Edax's binary book made into the book file (replacing it); without\n\
           \x20                  --book merged into the per-user book; what cannot be mapped is named\n\
           \x20 export-edax DAT  the book written as an Edax binary book (Edax 4.6 reads it)\n\
           \x20 merge BOOKS...   the books joined into --out: games added, the deeper leaf kept,\n\
           \x20                  leaves both books lost searched at --depth, values backed up\n\
           \x20 path             where the per-user book is (the engine's book without --book)",
};

/// The actions, as typed.
const ACTIONS: [&str; 10] = [
    "build",
    "learn",
    "show",
    "stats",
    "export",
    "import",
    "import-edax",
    "export-edax",
    "merge",
    "path",
];

/// Depth of the searches that value leaves unless `--depth` says otherwise.
pub const DEFAULT_DEPTH: u32 = 10;

/// [`DEFAULT_DEPTH`] as the level the searches run at.
const DEFAULT_LEVEL: Level = match Level::new(DEFAULT_DEPTH) {
    Some(level) => level,
    None => panic!("the default depth is a level"),
};

/// Discs from the best value within which lines are expanded unless `--window` says.
pub const DEFAULT_WINDOW: i32 = 2;

/// Time between two progress lines.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// Time between two writes of the book while building.
const SAVE_EVERY: Duration = Duration::from_secs(30);

/// What the tool is asked to do (in the order of [`ACTIONS`], which names them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Build,
    Learn,
    Show,
    Stats,
    Export,
    Import,
    ImportEdax,
    ExportEdax,
    Merge,
    Path,
}

/// The command line, parsed and checked.
#[derive(Clone)]
struct Options {
    action: Action,
    /// The book file; `None` (show, stats and export only): the shipped book.
    book: Option<PathBuf>,
    openings: Option<PathBuf>,
    level: Level,
    positions: u64,
    window: Discs,
    /// `--threads` (build's searches at once), `--hash` (each search's table), `--eval-file`.
    search: SearchOptions,
    /// The evaluation of `--eval-file`, read once (`None`: the shipped one, every search's
    /// own default).
    eval: Option<EvalBundle>,
    out: Option<PathBuf>,
    /// Game files (`learn`), the transcript (`show`), the text file (`import`).
    rest: Vec<String>,
}

impl Options {
    /// A search that values positions: `--hash`'s table, `--eval-file`'s evaluation.
    fn new_search(&self) -> Search {
        let config = SearchConfig::new(self.search.hash_mb, 1)
            .expect("--hash was checked against the same range");
        Search::new(match &self.eval {
            Some(eval) => config.with_eval(eval.clone()),
            None => config,
        })
    }
}

/// Parses the whole command line (the one place that knows the tool's flags).
fn parse(args: &[String]) -> Result<Options> {
    let mut args = ToolArgs::from_spec(args, &SPEC);
    let mut action = None;
    let (mut book, mut openings, mut out) = (None, None, None);
    let (mut depth, mut positions, mut window) = (DEFAULT_LEVEL, 100, DEFAULT_WINDOW);
    let mut search = SearchOptions::reproducible();
    let mut rest = Vec::new();
    while let Some(arg) = args.next_option()? {
        match arg {
            Arg::Flag(flag @ "--book") => book = Some(PathBuf::from(args.value(flag)?)),
            Arg::Flag(flag @ "--openings") => openings = Some(PathBuf::from(args.value(flag)?)),
            Arg::Flag(flag @ "--out") => out = Some(PathBuf::from(args.value(flag)?)),
            Arg::Flag(flag @ "--depth") => {
                depth = search_options::value(flag, args.value(flag)?, search_options::level)?;
            }
            Arg::Flag(flag @ "--positions") => positions = args.whole_number(flag)?,
            Arg::Flag(flag @ "--window") => {
                window = args.whole_number(flag)?.min(128) as i32;
            }
            Arg::Flag(flag) if SearchOptions::takes(flag) => search.set(flag, args.value(flag)?)?,
            Arg::Positional(word) if action.is_none() => {
                action = Some(match word {
                    "build" => Action::Build,
                    "learn" => Action::Learn,
                    "show" => Action::Show,
                    "stats" => Action::Stats,
                    "export" => Action::Export,
                    "import" => Action::Import,
                    "import-edax" => Action::ImportEdax,
                    "export-edax" => Action::ExportEdax,
                    "merge" => Action::Merge,
                    "path" => Action::Path,
                    _ => {
                        let hint = tsuru_core::cli::suggest::did_you_mean(word, ACTIONS);
                        bail!(
                            "unknown book action '{word}'{hint} (actions: {})",
                            ACTIONS.join(", ")
                        )
                    }
                })
            }
            Arg::Positional(word) => rest.push(word.to_string()),
            other => return Err(args.unexpected(other)),
        }
    }
    let usage = SPEC.usage();
    let Some(action) = action else {
        bail!(
            "tsuru book needs an action: {} (usage: tsuru {usage})",
            ACTIONS.join(", ")
        );
    };
    let writes = matches!(action, Action::Build | Action::Learn | Action::Import);
    ensure!(
        book.is_some() || !writes,
        "tsuru book {} needs --book FILE (usage: tsuru {usage})",
        ACTIONS[action as usize]
    );
    let eval = match search.eval_file {
        Some(_) => Some(search.eval()?),
        None => None,
    };
    let allowed = match action {
        Action::Learn => usize::MAX,
        Action::Merge => usize::MAX,
        Action::Show | Action::Import | Action::ImportEdax | Action::ExportEdax => 1,
        _ => 0,
    };
    ensure!(
        rest.len() <= allowed,
        "unexpected argument '{}' (usage: tsuru {usage})",
        rest[allowed.min(rest.len())]
    );
    ensure!(
        action != Action::Learn || !rest.is_empty(),
        "tsuru book learn needs game files"
    );
    ensure!(
        action != Action::Import || rest.len() == 1,
        "tsuru book import needs the text file"
    );
    interop::check(action, &rest, out.as_deref())?;
    Ok(Options {
        action,
        book,
        openings,
        level: depth,
        positions,
        window: Discs::new(window),
        search,
        eval,
        out,
        rest,
    })
}

/// Runs the tool.
pub fn run(args: &[String]) -> Result<()> {
    let options = parse(args)?;
    match options.action {
        Action::Build => build(&options, written(&options)?),
        Action::Learn => learn(&options, written(&options)?),
        Action::Show => show(&options),
        Action::Stats => stats(&options),
        Action::Export => export(&options),
        Action::Import => import(&options, written(&options)?),
        Action::ImportEdax => interop::import_edax(&options),
        Action::ExportEdax => interop::export_edax(&options),
        Action::Merge => interop::merge(&options),
        Action::Path => interop::path(),
    }
}

/// The file an action that writes the book writes (`parse` made sure there is one).
fn written(options: &Options) -> Result<&Path> {
    options
        .book
        .as_deref()
        .context("this action needs --book FILE")
}

/// Where the book an action reads comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Source {
    /// `--book FILE`.
    Given(PathBuf),
    /// The per-user book, the one the engine plays from without `--book`.
    User(PathBuf),
    /// The book compiled into the binary (no per-user book yet).
    Shipped,
}

impl Source {
    /// The book the engine plays from: `--book`'s file, else the per-user book at `user` when
    /// that file exists, else the shipped book.
    fn of(options: &Options, user: Option<PathBuf>) -> Source {
        match (&options.book, user) {
            (Some(path), _) => Source::Given(path.clone()),
            (None, Some(user)) if user.exists() => Source::User(user),
            (None, _) => Source::Shipped,
        }
    }

    /// What the output says the book is.
    fn describe(&self) -> String {
        match self {
            Source::Given(path) => path.display().to_string(),
            Source::User(path) => format!("{} (the per-user book)", path.display()),
            Source::Shipped => "the shipped book (no per-user book yet)".to_string(),
        }
    }

    fn load(&self) -> Result<Book> {
        match self {
            Source::Given(path) | Source::User(path) => file::load(path),
            Source::Shipped => tsuru_core::book::shipped(),
        }
    }
}

/// The source of the book an action that only reads it reads ([`Source::of`] with this
/// user's per-user book).
fn source(options: &Options) -> Source {
    Source::of(options, tsuru_core::book::user::path().ok())
}

/// The book an action that only reads it reads, the same book the engine plays from
/// ([`source`]); which one it is goes to stderr.
fn read(options: &Options) -> Result<Book> {
    let source = source(options);
    eprintln!("book: {}", source.describe());
    source.load()
}

/// The book file, or an empty book when it does not exist yet.
fn open(path: &Path) -> Result<Book> {
    if path.exists() {
        file::load(path)
    } else {
        Ok(Book::new())
    }
}

/// The positions an opening list leads to (with the moves there), or the start.
fn roots(openings: Option<&Path>) -> Result<Vec<(Board, Vec<Move>)>> {
    let Some(path) = openings else {
        return Ok(vec![(Board::start(), Vec::new())]);
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the openings {}", path.display()))?;
    let list = tsuru_core::formats::openings::parse(&text)
        .with_context(|| format!("openings {}", path.display()))?;
    ensure!(!list.is_empty(), "no opening in {}", path.display());
    list.into_iter()
        .map(|opening| {
            let mut board = Board::start();
            notation::play_moves(&mut board, &opening.moves)?;
            Ok((board.without_history(), opening.moves))
        })
        .collect()
}

fn build(options: &Options, path: &Path) -> Result<()> {
    // First, so that no Ctrl-C from here on loses the work since the last save.
    interrupt::catch();
    let mut book = open(path)?;
    let roots = roots(options.openings.as_deref())?;
    let searches: Vec<Mutex<Search>> = (0..options.search.threads)
        .map(|_| Mutex::new(options.new_search()))
        .collect();
    let started = Instant::now();
    let level = options.level;
    let lines: Vec<Vec<Move>> = roots.iter().map(|(_, moves)| moves.clone()).collect();
    let mut added = 0;
    {
        let mut search = searches[0].lock().expect("no search panicked");
        let mut valuer = SearchValuer::new(&mut search, level);
        // One opening at a time, so that Ctrl-C is heeded during a long opening list too.
        for line in lines.chunks(1) {
            if interrupt::requested() {
                break;
            }
            added += add_roots(&mut book, line, &mut valuer)? as u64;
        }
    }
    let boards: Vec<Board> = roots.into_iter().map(|(board, _)| board).collect();
    let (mut saved, mut shown) = (Instant::now(), Instant::now());
    let mut ended = "the positions asked for were added";
    while added < options.positions {
        // Polled between batches: a batch's searches are not stopped half-way, as their
        // values would be stored.
        if interrupt::requested() {
            ended = "stopped by Ctrl-C (a later build resumes)";
            break;
        }
        let batch = book.frontier(
            &boards,
            options.window,
            horizon(level),
            options.search.threads,
        );
        if batch.is_empty() {
            ended = "no line within the window is left to expand";
            break;
        }
        let expansions: Vec<Expansion> =
            map_chunks(&batch, options.search.threads, |index, part| {
                let mut search = searches[index].lock().expect("no search panicked");
                let mut valuer = SearchValuer::new(&mut search, level);
                part.iter()
                    .map(|candidate: &Candidate| expand(&book, candidate, &mut valuer))
                    .collect::<Vec<_>>()
            })
            .into_iter()
            .flatten()
            .collect();
        for expansion in expansions {
            added += book.apply(expansion) as u64;
        }
        book.negamax();
        if saved.elapsed() >= SAVE_EVERY {
            file::save(&book, path)?;
            saved = Instant::now();
        }
        if shown.elapsed() < PROGRESS_EVERY {
            continue;
        }
        shown = Instant::now();
        let seconds = started.elapsed().as_secs_f64();
        eprint!(
            "\rbook: {added}/{} new positions, {:.2}/s, {} in all, line {} (cost {})   ",
            options.positions,
            added as f64 / seconds.max(1e-9),
            book.len(),
            notation::transcript(batch[0].line.iter().copied()),
            batch[0].cost.get()
        );
    }
    eprintln!();
    if interrupt::requested() {
        eprintln!("book: Ctrl-C: saving {} and stopping", path.display());
    }
    file::save(&book, path)?;
    let seconds = started.elapsed().as_secs_f64();
    tsuru_core::outln!(
        "{} positions ({added} new) at depth {} in {seconds:.1} s: {:.2} new positions/s; {ended}",
        book.len(),
        level.depth(),
        added as f64 / seconds.max(1e-9)
    )?;
    Ok(())
}

/// The games of a file: GGF records when it has any, else one transcript a line (blank
/// lines and `#` comments skipped), each as (start, moves).
fn games(path: &str) -> Result<Vec<(Board, Vec<Move>)>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
    if text.contains("(;") {
        return super::decided::records(&text)
            .enumerate()
            .map(|(index, record)| {
                let game = GgfGame::parse(record)
                    .with_context(|| format!("{path}: game {}", index + 1))?;
                let moves = game.moves().iter().map(|m| m.mv).collect();
                Ok((game.start().clone(), moves))
            })
            .collect();
    }
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .map(|(number, line)| {
            let moves = notation::parse_transcript(line.trim())
                .with_context(|| format!("{path}: line {}", number + 1))?;
            Ok((Board::start(), moves))
        })
        .collect()
}

fn learn(options: &Options, book_path: &Path) -> Result<()> {
    // Stamped first: a change made while the book is read is seen at the first game.
    let mut written = interop::Written::new(book_path);
    let mut book = open(book_path)?;
    let mut search = options.new_search();
    let (mut games_learned, mut added) = (0, 0);
    let started = Instant::now();
    for path in &options.rest {
        for (index, (start, moves)) in games(path)?.into_iter().enumerate() {
            let mut valuer = SearchValuer::new(&mut search, options.level);
            // Written after every game, under the book's lock (an engine may be learning
            // into it too): a crash loses at most the game being added.
            let learned = written
                .learn(&mut book, book_path, |book| {
                    book.learn_game(&start, &moves, &mut valuer)
                })
                .with_context(|| format!("{path}: game {}", index + 1))?;
            games_learned += 1;
            added += learned.added;
            eprint!("\rlearned {games_learned} games, {added} new positions   ");
        }
    }
    eprintln!();
    tsuru_core::outln!(
        "{games_learned} games learned, {added} new positions, {} in all ({:.1} s)",
        book.len(),
        started.elapsed().as_secs_f64()
    )?;
    Ok(())
}

fn show(options: &Options) -> Result<()> {
    let book = read(options)?;
    let mut board = Board::start();
    let transcript = options.rest.first().map_or("", String::as_str);
    notation::play_moves(&mut board, &notation::parse_transcript(transcript)?)?;
    if board.must_pass() {
        board.make_pass();
    }
    tsuru_core::outln!("{}", notation::diagram(&board).trim_end())?;
    let Some(entry) = book.get(&Key::of(&board).0) else {
        tsuru_core::outln!("not in the book")?;
        return Ok(());
    };
    let games = entry.games;
    tsuru_core::outln!(
        "value {} for the side to move, games {} (won {}, drawn {}, lost {}), depth {}",
        entry
            .value()
            .map_or("?".to_string(), |v| format!("{:+}", v.get())),
        games.total(),
        games.wins,
        games.draws,
        games.losses,
        entry.depth
    )?;
    tsuru_core::outln!(
        "{:<5} {:>6} {:>6} {:>5}  line",
        "move",
        "value",
        "games",
        "depth"
    )?;
    for choice in book.moves(&board).unwrap_or_default() {
        let line = notation::transcript(book.line(&board, choice.square));
        tsuru_core::outln!(
            "{:<5} {:>6} {:>6} {:>5}  {}{}",
            choice.square.to_string(),
            format!("{:+.2}", Score::from_discs(choice.value).discs()),
            choice.games,
            choice.depth,
            line,
            if choice.in_book {
                ""
            } else {
                "  (best outside the book)"
            }
        )?;
    }
    Ok(())
}

fn stats(options: &Options) -> Result<()> {
    let source = source(options);
    let book = source.load()?;
    let stats = book.stats();
    let bytes = match &source {
        Source::Given(path) | Source::User(path) => std::fs::metadata(path).map_or(0, |m| m.len()),
        Source::Shipped => tsuru_core::book::SHIPPED.len() as u64,
    };
    tsuru_core::outln!("file        {} ({bytes} bytes)", source.describe())?;
    tsuru_core::outln!("positions   {}", stats.positions)?;
    tsuru_core::outln!("book moves  {}", stats.links)?;
    tsuru_core::outln!("leaves      {}", stats.leaves)?;
    tsuru_core::outln!("with games  {}", stats.with_games)?;
    tsuru_core::outln!("max depth   {}", stats.max_depth)?;
    if let Some(root) = book.get(&Key::of(&Board::start()).0) {
        tsuru_core::outln!(
            "start       value {:+}, {} games",
            root.value().map_or(0, |v| v.get()),
            root.games.total()
        )?;
    }
    tsuru_core::outln!("positions by moves played:")?;
    for (discs, count) in stats.by_discs.iter().enumerate() {
        if *count > 0 {
            tsuru_core::outln!("  {:>2} {count}", discs.saturating_sub(4))?;
        }
    }
    Ok(())
}

fn export(options: &Options) -> Result<()> {
    let text = file::to_text(&read(options)?);
    match &options.out {
        Some(path) => {
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
        }
        None => Ok(tsuru_core::out!("{text}")?),
    }
}

fn import(options: &Options, book_path: &Path) -> Result<()> {
    let path = &options.rest[0];
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
    let book = file::from_text(&text).with_context(|| format!("importing {path}"))?;
    file::save(&book, book_path)?;
    tsuru_core::outln!(
        "{} positions written to {}",
        book.len(),
        book_path.display()
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_command_line_is_checked() {
        let options = parse(&words(&[
            "build",
            "--book",
            "b",
            "--depth",
            "4",
            "--positions",
            "7",
            "--threads",
            "2",
        ]))
        .unwrap();
        assert_eq!(options.action, Action::Build);
        assert_eq!(
            (
                options.level.depth(),
                options.positions,
                options.search.threads
            ),
            (4, 7, 2)
        );
        for bad in [
            &["build"][..],
            &["import", "text"],
            &["learn", "games.ggf"],
            &["frobnicate", "--book", "b"],
            &["build", "--book", "b", "--depth", "0"],
            &["learn", "--book", "b"],
            &["stats", "--book", "b", "extra"],
            &["show", "--book", "b", "--bokk"],
        ] {
            assert!(parse(&words(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_reading_actions_read_the_engines_book() {
        for action in ["show", "stats", "export"] {
            let options = parse(&words(&[action])).unwrap();
            assert_eq!(options.book, None, "{action}");
        }
        let options = parse(&words(&["stats"])).unwrap();
        // No per-user book, or none made yet: the shipped book.
        assert_eq!(Source::of(&options, None), Source::Shipped);
        let missing = std::env::temp_dir().join("tsuru-no-such-dir/book");
        assert_eq!(Source::of(&options, Some(missing)), Source::Shipped);
        let shipped = Source::Shipped.load().unwrap();
        assert_eq!(shipped.len(), tsuru_core::book::shipped().unwrap().len());
        // Once the per-user book exists, that file; --book wins over both.
        let user = std::env::temp_dir().join(format!("tsuru-user-book-{}", std::process::id()));
        std::fs::write(&user, b"x").unwrap();
        assert_eq!(
            Source::of(&options, Some(user.clone())),
            Source::User(user.clone())
        );
        let given = parse(&words(&["stats", "--book", "b"])).unwrap();
        assert_eq!(
            Source::of(&given, Some(user.clone())),
            Source::Given("b".into())
        );
        std::fs::remove_file(&user).unwrap();
    }

    #[test]
    fn the_help_names_every_action_and_option() {
        let help = SPEC.help();
        for action in ACTIONS {
            assert!(help.contains(&format!("\n  {action} ")), "{action}: {help}");
            assert!(SPEC.usage().contains(action), "{action}");
        }
        for flag in [
            "--book",
            "--openings",
            "--depth",
            "--positions",
            "--window",
            "--threads",
            "--hash",
            "--out",
        ] {
            assert!(SPEC.option(flag).is_some(), "{flag}");
        }
        let err = parse(&words(&["stats", "--bok", "b"]))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("did you mean '--book'?"), "{err}");
        let err = parse(&words(&["stast", "--book", "b"]))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("did you mean 'stats'?"), "{err}");
    }
}
