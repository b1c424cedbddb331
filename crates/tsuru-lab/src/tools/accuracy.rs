//! `tsuru accuracy FILE.obf --depth D | --move-time S | --nodes N [--threads N] [--hash MB]
//! [--eval-file W] [--probcut T] [--first N] [--last N]`: how well a search sees, against
//! exact scores, at a fixed depth or at a fixed time or node budget a position.
//!
//! Each position of the OBF file is searched as NBoard's `set depth D` and `go` search it
//! (the level's midgame depth, its win/loss/draw and exact thresholds, one best line, no
//! book), from an empty table so that every position is measured alone and a one-thread run
//! is reproducible. `--move-time S` searches each position as the engine does with
//! `--move-time S` (level 60 unless `--depth` is given, the engine's time manager deciding
//! when to deepen and when to solve), so that two evaluations are compared at equal time, as
//! a game clock would compare them; `--nodes N` stops each search after about N nodes (equal
//! work, reproducible at one thread). The search's move and score are compared with the file's
//! exact scores (Edax's problem files list every legal move's; see [`tsuru_core::formats::obf`]):
//!
//! - **best move**: the move's exact score equals the best listed one;
//! - **in the best 2 / 3**: at most 1 / 2 listed moves score strictly better than it;
//! - **within 3 / 6 discs**: the search's score is at most 3 / 6 discs from the exact value
//!   of the position (the best listed score);
//! - **mean abs. error**: the mean distance, in discs, of the search's score from that value;
//! - **mean loss**: the mean of (best listed score - the move's exact score), the discs the
//!   chosen moves throw away.
//!
//! A move the file does not list counts as neither best nor in the best 2 or 3, and has no
//! loss (it is counted as `unlisted`). Positions without scores are searched and timed but
//! not judged (counted as `unscored`: a file of bare positions measures time to a depth);
//! finished games are skipped. One line per position, then the summary: its nodes, time and
//! time a position count every search, the rest the judged ones.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use tsuru_core::search::SearchConfig;

use anyhow::{bail, ensure, Context, Result};

use tsuru_core::board::Move;
use tsuru_core::cli::search_options::{self, SearchOptions, EVAL_FILE, HASH};
use tsuru_core::cli::tool_args::{Arg, ToolArgs, ToolOption, ToolSpec};
use tsuru_core::eval::EvalBundle;
use tsuru_core::formats::obf::{self, ObfPosition};
use tsuru_core::score::Discs;
use tsuru_core::search::time::Clock;
use tsuru_core::search::{Level, Search, SearchRequest, SearchResult};

/// The command line of `tsuru accuracy`.
pub const SPEC: ToolSpec = ToolSpec {
    name: "accuracy",
    about: "search every position of an OBF file to a fixed depth, time or node count and \
            score the answers",
    synopsis: "FILE.obf --depth D | --move-time S | --nodes N",
    options: &[
        ToolOption::new(
            "--depth",
            "D",
            "the level, as NBoard's `set depth D` (required unless a budget is\n\
             given; with one, the default is 60)",
        ),
        ToolOption::new(
            "--move-time",
            "S",
            "seconds a position, as the engine's --move-time S",
        ),
        ToolOption::new(
            "--nodes",
            "N",
            "nodes a position (about: the search stops near N)",
        ),
        ToolOption::reproducible_threads(),
        ToolOption::shared(HASH),
        ToolOption::shared(EVAL_FILE),
        ToolOption::new(
            "--probcut",
            "T",
            "Multi-ProbCut confidence, 0-10 (default 1.1, 0 = full width)",
        ),
        ToolOption::new("--first", "N", "skip the positions numbered below N"),
        ToolOption::new("--last", "N", "skip the positions numbered above N"),
    ],
    notes: "The file must give exact scores (Edax's problem files give every legal move's).",
};

/// How one search answered one position, next to the file's exact scores.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Answer {
    /// The exact value of the position (the best listed score).
    pub exact: Discs,
    /// The search's score for the side to move, in discs.
    pub score: f64,
    /// The exact score of the chosen move, if the file lists it.
    pub move_score: Option<Discs>,
    /// How many listed moves score strictly better than the chosen one (`None`: unlisted).
    pub better_moves: Option<usize>,
    /// Nodes the search visited.
    pub nodes: u64,
    /// The search's time.
    pub elapsed: Duration,
}

impl Answer {
    /// Compares `result` (a search of `position`) with the position's exact scores;
    /// `None` when the file gives no score.
    pub fn judge(position: &ObfPosition, result: &SearchResult) -> Option<Answer> {
        let exact = position.best_score()?;
        let move_score = position
            .scores
            .iter()
            .find(|&&(mv, _)| mv == result.best)
            .map(|&(_, score)| score);
        let better_moves = move_score.map(|own| {
            position
                .scores
                .iter()
                .filter(|&&(_, score)| score > own)
                .count()
        });
        Some(Answer {
            exact,
            score: result.score.discs(),
            move_score,
            better_moves,
            nodes: result.nodes,
            elapsed: result.elapsed,
        })
    }

    /// The distance of the search's score from the exact value, in discs.
    pub fn error(&self) -> f64 {
        (self.score - f64::from(self.exact.get())).abs()
    }

    /// Whether at most `k - 1` listed moves beat the chosen one.
    pub fn in_best(&self, k: usize) -> bool {
        self.better_moves.is_some_and(|better| better < k)
    }
}

/// The summary of many answers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Positions answered.
    pub positions: usize,
    /// Answers with the best move, in the best 2, in the best 3.
    pub best: [usize; 3],
    /// Answers within 3 and within 6 discs of the exact value.
    pub within: [usize; 2],
    /// Sum of the value errors, discs.
    pub error_sum: f64,
    /// Sum of the losses of listed moves, discs.
    pub loss_sum: i64,
    /// Chosen moves the file does not list.
    pub unlisted: usize,
    /// Positions searched without scores to judge the answer by.
    pub unscored: usize,
    /// Nodes, all searches (unscored positions' too).
    pub nodes: u64,
    /// Time, all searches.
    pub elapsed: Duration,
}

impl Summary {
    /// Adds one answer.
    pub fn add(&mut self, answer: &Answer) {
        self.positions += 1;
        for (k, count) in self.best.iter_mut().enumerate() {
            *count += usize::from(answer.in_best(k + 1));
        }
        for (limit, count) in [3.0, 6.0].iter().zip(self.within.iter_mut()) {
            *count += usize::from(answer.error() <= *limit);
        }
        self.error_sum += answer.error();
        match answer.move_score {
            Some(score) => self.loss_sum += i64::from(answer.exact.get() - score.get()),
            None => self.unlisted += 1,
        }
        self.nodes += answer.nodes;
        self.elapsed += answer.elapsed;
    }

    /// Adds the nodes and time of a search of a position without scores.
    pub fn add_unscored(&mut self, result: &SearchResult) {
        self.unscored += 1;
        self.nodes += result.nodes;
        self.elapsed += result.elapsed;
    }

    /// A count as a percentage of the positions.
    pub fn percent(&self, count: usize) -> f64 {
        100.0 * count as f64 / self.positions.max(1) as f64
    }

    /// Mean absolute error of the search's score, discs.
    pub fn mean_error(&self) -> f64 {
        self.error_sum / self.positions.max(1) as f64
    }

    /// Mean loss of the chosen (listed) moves, discs.
    pub fn mean_loss(&self) -> f64 {
        self.loss_sum as f64 / (self.positions - self.unlisted).max(1) as f64
    }
}

struct Options {
    file: String,
    level: Level,
    move_time: Option<Duration>,
    nodes: Option<u64>,
    threads: usize,
    hash_mb: usize,
    eval: EvalBundle,
    selectivity: Option<f32>,
    first: Option<usize>,
    last: Option<usize>,
}

/// Runs the tool.
pub fn run(args: &[String]) -> Result<()> {
    let options = parse_args(args)?;
    let text = std::fs::read_to_string(&options.file)
        .with_context(|| format!("reading {}", options.file))?;
    let positions = obf::parse_file(&text).with_context(|| format!("parsing {}", options.file))?;
    let described = describe_limits(&options);
    let mut search = Search::new(
        SearchConfig::new(options.hash_mb, options.threads)?
            .with_eval(options.eval)
            .with_selectivity(options.selectivity)?,
    );
    // The engine's one rule from a request to limits (the level, a clock of so much a
    // move, the node limit); the same for every position, whatever its empties.
    let request = SearchRequest {
        level: Some(options.level),
        clock: options.move_time.map_or(Clock::Unlimited, Clock::PerMove),
        nodes: options.nodes,
        ..SearchRequest::default()
    };
    let stop = AtomicBool::new(false);
    let started = Instant::now();
    let mut summary = Summary::default();
    tsuru_core::outln!(
        "{:>4} {:>3} {:>4} {:>7} {:>10} {:>6} {:>6} {:>12} {:>8}",
        "#",
        "emp",
        "move",
        "score",
        "exact",
        "move's",
        "error",
        "nodes",
        "seconds"
    )?;
    for (index, position) in positions.iter().enumerate() {
        let number = index + 1;
        if options.first.is_some_and(|f| number < f) || options.last.is_some_and(|l| number > l) {
            continue;
        }
        if position.board.is_game_over() {
            continue;
        }
        // Zeroed outside the timed search: a game faults the table's pages in once, not
        // every move.
        search.clear_in_place();
        let limits = request.limits(position.board.empties())?;
        let result = search.iterate(&position.board, &limits, &stop, &mut |_| {});
        // The judged columns (exact value, the move's score, the error), "-" unscored.
        let judged = match Answer::judge(position, &result) {
            Some(answer) => {
                summary.add(&answer);
                let best_moves = position
                    .best_moves()
                    .iter()
                    .map(Move::to_string)
                    .collect::<Vec<_>>()
                    .join("/");
                [
                    format!("{best_moves}:{:+}", answer.exact),
                    answer
                        .move_score
                        .map_or("-".to_string(), |s| format!("{s:+}")),
                    format!("{:.2}", answer.error()),
                ]
            }
            None => {
                summary.add_unscored(&result);
                ["-".to_string(), "-".to_string(), "-".to_string()]
            }
        };
        let [exact, move_score, error] = judged;
        tsuru_core::outln!(
            "{:>4} {:>3} {:>4} {:>+7.2} {:>10} {:>6} {:>6} {:>12} {:>8.3}",
            number,
            position.board.empties(),
            result.best.to_string(),
            result.score.discs(),
            exact,
            move_score,
            error,
            result.nodes,
            result.elapsed.as_secs_f64()
        )?;
    }
    let seconds = started.elapsed().as_secs_f64();
    tsuru_core::outln!(
        "{}  positions {}  best move {:.1} %  in best 2 {:.1} %  in best 3 {:.1} %  \
         within 3 discs {:.1} %  within 6 discs {:.1} %",
        described,
        summary.positions,
        summary.percent(summary.best[0]),
        summary.percent(summary.best[1]),
        summary.percent(summary.best[2]),
        summary.percent(summary.within[0]),
        summary.percent(summary.within[1]),
    )?;
    tsuru_core::outln!(
        "mean abs. error {:.2} discs  mean loss {:.2} discs  unlisted {}  unscored {}  nodes {}  \
         time {:.3} s  {:.0} nodes/s  {:.3} s a position",
        summary.mean_error(),
        summary.mean_loss(),
        summary.unlisted,
        summary.unscored,
        summary.nodes,
        seconds,
        summary.nodes as f64 / summary.elapsed.as_secs_f64().max(1e-9),
        summary.elapsed.as_secs_f64() / (summary.positions + summary.unscored).max(1) as f64
    )?;
    Ok(())
}

/// The summary's name for the limits: `depth 12`, `level 60, 0.1 s a position`, ...
fn describe_limits(options: &Options) -> String {
    let mut text = if options.move_time.is_none() && options.nodes.is_none() {
        format!("depth {}", options.level.get())
    } else {
        format!("level {}", options.level.get())
    };
    if let Some(time) = options.move_time {
        text.push_str(&format!(", {} s a position", time.as_secs_f64()));
    }
    if let Some(nodes) = options.nodes {
        text.push_str(&format!(", {nodes} nodes a position"));
    }
    text
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut file = None;
    let mut depth = None;
    let mut move_time = None;
    let mut nodes = None;
    let mut search = SearchOptions::reproducible();
    let mut selectivity = Some(SearchConfig::DEFAULT_SELECTIVITY);
    let mut first = None;
    let mut last = None;
    let mut args = ToolArgs::from_spec(args, &SPEC);
    while let Some(arg) = args.next_option()? {
        match arg {
            Arg::Flag(flag @ "--depth") => {
                let level = search_options::value(flag, args.value(flag)?, search_options::level)?;
                depth = Some(level);
            }
            Arg::Flag(flag @ "--move-time") => {
                move_time = Some(search_options::value(
                    flag,
                    args.value(flag)?,
                    search_options::move_time,
                )?);
            }
            Arg::Flag(flag @ "--nodes") => {
                let count = args.whole_number(flag)?;
                ensure!(count > 0, "{flag} must be at least 1");
                nodes = Some(count);
            }
            Arg::Flag(flag) if SearchOptions::takes(flag) => search.set(flag, args.value(flag)?)?,
            Arg::Flag(flag @ "--probcut") => {
                selectivity =
                    search_options::value(flag, args.value(flag)?, search_options::probcut)?;
            }
            Arg::Flag(flag @ "--first") => first = Some(args.whole_number(flag)? as usize),
            Arg::Flag(flag @ "--last") => last = Some(args.whole_number(flag)? as usize),
            Arg::Positional(name) if file.is_none() => file = Some(name.to_string()),
            other => return Err(args.unexpected(other)),
        }
    }
    let usage = || format!("usage: tsuru {}", SPEC.usage());
    let Some(file) = file else {
        bail!("{}", usage());
    };
    let budget = move_time.is_some() || nodes.is_some();
    let level = match depth {
        Some(level) => level,
        // With a budget the search deepens as the engine does under a clock.
        None if budget => Level::HIGHEST,
        None => bail!("--depth, --move-time or --nodes is required ({})", usage()),
    };
    Ok(Options {
        file,
        level,
        move_time,
        nodes,
        threads: search.threads,
        hash_mb: search.hash_mb,
        eval: search.eval()?,
        selectivity,
        first,
        last,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsuru_core::score::Score;
    use tsuru_core::search::{Depth, SearchLimits};

    fn position(line: &str) -> ObfPosition {
        obf::parse_line(line).unwrap().unwrap()
    }

    const LINE: &str = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; \
                        G8:+18; H1:+12; H7:+6; A2:+6; A3:+4;";

    fn result(mv: &str, score: f64) -> SearchResult {
        SearchResult {
            best: mv.parse().unwrap(),
            score: Score::from_units((score * f64::from(tsuru_core::score::UNITS_PER_DISC)) as i32),
            depth: Depth::Plies(4),
            pv: Vec::new(),
            lines: Vec::new(),
            nodes: 100,
            elapsed: Duration::from_millis(10),
            completed: true,
        }
    }

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_time_or_node_budget_replaces_the_depth() {
        let file = "tests/fixtures/fforum-1-19.obf";
        let depth = parse_args(&words(&[file, "--depth", "12"])).unwrap();
        assert_eq!(
            (depth.level.get(), depth.move_time, depth.nodes),
            (12, None, None)
        );
        assert_eq!(describe_limits(&depth), "depth 12");
        // A budget alone searches at level 60, as the engine does under a clock.
        let timed = parse_args(&words(&[file, "--move-time", "0.25"])).unwrap();
        assert_eq!(timed.level.get(), 60);
        assert_eq!(timed.move_time, Some(Duration::from_millis(250)));
        assert_eq!(describe_limits(&timed), "level 60, 0.25 s a position");
        let counted = parse_args(&words(&[file, "--nodes", "5000", "--depth", "20"])).unwrap();
        assert_eq!((counted.level.get(), counted.nodes), (20, Some(5000)));
        assert_eq!(describe_limits(&counted), "level 20, 5000 nodes a position");
        for bad in [
            &[file][..],
            &[file, "--move-time", "0"],
            &[file, "--move-time", "-1"],
            &[file, "--move-time", "nan"],
            &[file, "--nodes", "0"],
        ] {
            assert!(parse_args(&words(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn answers_are_judged_against_the_listed_scores() {
        let position = position(LINE);
        let best = Answer::judge(&position, &result("g8", 15.5)).unwrap();
        assert_eq!(best.exact, Discs::new(18));
        assert_eq!(best.better_moves, Some(0));
        assert!((best.error() - 2.5).abs() < 1e-9);
        assert!(best.in_best(1));
        // H7 and A2 tie at +6: two moves beat each of them, so both are in the best 3 only.
        let tied = Answer::judge(&position, &result("a2", 6.0)).unwrap();
        assert_eq!(tied.better_moves, Some(2));
        assert!(!tied.in_best(2) && tied.in_best(3));
        let unlisted = Answer::judge(&position, &result("b1", -3.0)).unwrap();
        assert_eq!(unlisted.move_score, None);
        assert!(!unlisted.in_best(3));
        let no_scores = obf::parse_line(&LINE[..67]).unwrap().unwrap();
        assert_eq!(Answer::judge(&no_scores, &result("g8", 0.0)), None);
    }

    #[test]
    fn the_summary_counts_every_figure() {
        let position = position(LINE);
        let mut summary = Summary::default();
        for (mv, score) in [("g8", 18.0), ("h1", 14.0), ("a3", 10.0), ("b1", 30.0)] {
            summary.add(&Answer::judge(&position, &result(mv, score)).unwrap());
        }
        assert_eq!(summary.positions, 4);
        assert_eq!(summary.best, [1, 2, 2]);
        // Errors 0, 4, 8 and 12 discs.
        assert_eq!(summary.within, [1, 2]);
        assert!((summary.mean_error() - 6.0).abs() < 1e-9);
        // Losses 0, 6 and 14 over the three listed moves.
        assert_eq!(summary.unlisted, 1);
        assert!((summary.mean_loss() - 20.0 / 3.0).abs() < 1e-9);
        assert_eq!(summary.nodes, 400);
        assert_eq!(summary.percent(summary.best[1]), 50.0);
        // A search of a position without scores adds its nodes and time, not an answer.
        summary.add_unscored(&result("g8", 0.0));
        assert_eq!((summary.positions, summary.unscored), (4, 1));
        assert_eq!(summary.nodes, 500);
        assert_eq!(summary.elapsed, Duration::from_millis(50));
        assert!((summary.mean_error() - 6.0).abs() < 1e-9);
    }

    #[test]
    fn a_search_deep_enough_to_solve_answers_exactly() {
        // FFO #1 (14 empties) at level 10 (exact from 15 empties): the search is the solver.
        let position = position(LINE);
        let mut search = Search::new(tsuru_core::search::SearchConfig::new(8, 1).unwrap());
        let limits = SearchLimits::for_level(Level::new(10).unwrap());
        let result = search.iterate(
            &position.board,
            &limits,
            &AtomicBool::new(false),
            &mut |_| {},
        );
        let answer = Answer::judge(&position, &result).unwrap();
        assert_eq!(result.depth, Depth::Exact);
        assert_eq!(answer.move_score, Some(Discs::new(18)));
        assert_eq!(answer.error(), 0.0);
    }
}
