//! `tsuru.Searcher`, `tsuru.search`, `tsuru.solve`, `tsuru.evaluate` and `tsuru.Stop`: the
//! engine's search called in-process. Every search runs without the GIL, so several run at
//! once in Python threads (one `Searcher` serves one search at a time).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use tsuru_core::board::Board;
use tsuru_core::cli::search_options::{self, SharedOption};
use tsuru_core::eval::win_probability::WinModel;
use tsuru_core::eval::{EvalBundle, Evaluation};
use tsuru_core::search::time::{saturating_seconds, Clock};
use tsuru_core::search::{
    Depth, Level, PvLine, Search, SearchConfig, SearchLimits, SearchRequest, SearchResult,
};

use crate::board::{move_number, PyBoard};

/// A flag that stops the searches it is given (``search(..., stop=flag)``) when set from
/// another thread.
#[pyclass(module = "tsuru", name = "Stop", frozen)]
#[derive(Default)]
pub struct Stop {
    pub(crate) flag: Arc<AtomicBool>,
}

#[pymethods]
impl Stop {
    #[new]
    fn new() -> Stop {
        Stop::default()
    }

    /// Asks every search running with this flag to stop and return its best result so far.
    fn set(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    /// Makes the flag usable again.
    fn clear(&self) {
        self.flag.store(false, Ordering::Relaxed);
    }

    /// Whether the flag is set.
    fn is_set(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }
}

/// One move of a multi-PV analysis: its score and principal variation.
#[pyclass(module = "tsuru", name = "Line", frozen, get_all)]
#[derive(Clone)]
pub struct Line {
    /// The move (a square 0..63, or 64 for a forced pass).
    #[pyo3(name = "move")]
    pub mv: u32,
    /// Its score in discs for the side to move.
    pub score: f64,
    /// The principal variation, starting with the move.
    pub pv: Vec<u32>,
}

#[pymethods]
impl Line {
    fn __repr__(&self) -> String {
        format!(
            "Line(move={}, score={:?}, pv={:?})",
            self.mv, self.score, self.pv
        )
    }
}

impl Line {
    fn from_pv_line(line: &PvLine) -> Line {
        Line {
            mv: move_number(line.mv),
            score: line.score.discs(),
            pv: line.pv.iter().copied().map(move_number).collect(),
        }
    }
}

/// What a search found.
#[pyclass(module = "tsuru", name = "SearchResult", frozen, get_all)]
pub struct PySearchResult {
    /// The move to play (64: pass, forced or in a finished game).
    #[pyo3(name = "move")]
    pub mv: u32,
    /// Its score in discs for the side to move (exact when ``kind`` is ``"exact"``; the
    /// sign only, -1, 0 or +1, when ``"wld"``).
    pub score: f64,
    /// ``"midgame"``, ``"probable"`` (a selective solve), ``"wld"`` or ``"exact"``.
    pub kind: &'static str,
    /// Plies of a midgame result; empty squares of a solve.
    pub depth: u32,
    /// The probability in per cent that each cut of a selective solve was right (100 for
    /// a proof, ``None`` for a midgame result).
    pub selectivity: Option<u8>,
    /// The principal variation from the position.
    pub pv: Vec<u32>,
    /// The best moves with their scores (``multipv`` of them), best first.
    pub lines: Vec<Line>,
    /// Nodes searched.
    pub nodes: u64,
    /// Seconds spent.
    pub time: f64,
    /// Whether the search reached its depth or solved, rather than being stopped.
    pub completed: bool,
    /// The side to move's chances ``(win, draw, loss)``: certain for a proven result
    /// (``"exact"`` or ``"wld"``), else the engine's win probability of the score, fitted to
    /// self-play games' results (docs/training.md, "Win probability").
    pub win_probability: (f64, f64, f64),
}

#[pymethods]
impl PySearchResult {
    fn __repr__(&self) -> String {
        format!(
            "SearchResult(move={}, score={:?}, kind={:?}, depth={}, selectivity={}, pv={:?}, \
             nodes={}, time={:.3}, completed={})",
            self.mv,
            self.score,
            self.kind,
            self.depth,
            self.selectivity
                .map_or_else(|| "None".to_string(), |p| p.to_string()),
            self.pv,
            self.nodes,
            self.time,
            if self.completed { "True" } else { "False" }
        )
    }

    /// Nodes a second.
    #[getter]
    fn nps(&self) -> f64 {
        if self.time > 0.0 {
            self.nodes as f64 / self.time
        } else {
            0.0
        }
    }
}

impl PySearchResult {
    fn new(result: &SearchResult, empties: u32) -> PySearchResult {
        let (kind, depth, selectivity) = match result.depth {
            Depth::Plies(plies) => ("midgame", plies, None),
            Depth::Probable(percent) => ("probable", empties, Some(percent)),
            Depth::WinLossDraw => ("wld", empties, Some(100)),
            Depth::Exact => ("exact", empties, Some(100)),
        };
        PySearchResult {
            mv: move_number(result.best),
            score: result.score.discs(),
            kind,
            depth,
            selectivity,
            pv: result.pv.iter().copied().map(move_number).collect(),
            lines: result.lines.iter().map(Line::from_pv_line).collect(),
            nodes: result.nodes,
            time: result.elapsed.as_secs_f64(),
            completed: result.completed,
            win_probability: {
                let proven = matches!(result.depth, Depth::Exact | Depth::WinLossDraw);
                let p = WinModel::shipped().of_value(result.score.discs(), empties, proven);
                (p.win, p.draw, p.loss)
            },
        }
    }
}

/// Checks a keyword argument's `value` with its registered option's parser (the one the
/// engine's flag, the tools' and NBoard's `set` use); the error names the keyword and the
/// flag.
fn registered(option: &SharedOption, value: impl std::fmt::Display) -> PyResult<()> {
    option.check(&value.to_string()).map_err(|err| {
        PyValueError::new_err(format!("{} ({}): {err:#}", option.python, option.flag))
    })
}

/// The option registry (`tsuru_core::cli::search_options::REGISTRY`): for each option its
/// flag, value name, Python keyword (``""``: none), NBoard ``set`` name (``""``: none), help
/// and default as the help states it (``""``: none to state).
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn settings() -> Vec<(
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
)> {
    search_options::REGISTRY
        .iter()
        .map(|o| (o.flag, o.value, o.python, o.nboard, o.help, o.default))
        .collect()
}

/// Checks ``text`` as the value of the registered option ``flag`` with the parser every entry
/// point uses: ``None`` when it is one, else ``ValueError`` with the parser's message.
#[pyfunction]
pub fn check_setting(flag: &str, text: &str) -> PyResult<()> {
    let option = search_options::REGISTRY
        .iter()
        .find(|o| o.flag == flag)
        .ok_or_else(|| PyValueError::new_err(format!("{flag} is not a registered option")))?;
    option
        .check(text)
        .map_err(|err| PyValueError::new_err(format!("{err:#}")))
}

/// Seconds from Python, refused when negative or not a number.
fn seconds(name: &str, value: f64) -> PyResult<Duration> {
    if value.is_nan() || value < 0.0 {
        return Err(PyValueError::new_err(format!(
            "{name} must be a number of seconds >= 0, not {value}"
        )));
    }
    Ok(saturating_seconds(value))
}

/// The keyword `time`, seconds a move, checked by the registry's `--move-time` parser.
pub(crate) fn move_time(time: f64) -> PyResult<Duration> {
    registered(&search_options::MOVE_TIME, time)?;
    seconds("time", time)
}

/// The keyword `level`, checked by the registry's `--level` parser.
pub(crate) fn level_setting(level: i64) -> PyResult<Level> {
    registered(&search_options::LEVEL, level)?;
    Ok(Level::new(level as u32).expect("checked"))
}

/// The limits of one request, checked: the request is the engine's ([`SearchRequest`]), so
/// a level, a time a move or a game clock, and the default level when none is given follow
/// the session's rules; only the keyword arguments' checks are Python's.
#[allow(clippy::too_many_arguments)]
fn limits(
    board: &Board,
    level: Option<i64>,
    time: Option<f64>,
    clock: Option<f64>,
    increment: f64,
    nodes: Option<u64>,
    multipv: usize,
    endgame: bool,
) -> PyResult<SearchLimits> {
    if time.is_some() && clock.is_some() {
        return Err(PyValueError::new_err(
            "give either time (a move) or clock (the game), not both",
        ));
    }
    let clock = match (time, clock) {
        (Some(time), _) => Clock::PerMove(move_time(time)?),
        (None, Some(left)) => Clock::SuddenDeath {
            left: seconds("clock", left)?,
            increment: seconds("increment", increment)?,
        },
        (None, None) => Clock::Unlimited,
    };
    let level = level.map(level_setting).transpose()?;
    if multipv == 0 {
        return Err(PyValueError::new_err("multipv must be at least 1"));
    }
    let request = SearchRequest {
        level,
        clock,
        nodes,
        multi_pv: multipv,
        midgame_only: !endgame,
    };
    request
        .limits(board.empties())
        .map_err(|err| PyValueError::new_err(format!("{err:#}")))
}

/// The limits of an exact (or win/loss/draw) solve: the whole game, any depth.
fn solve_limits(wld: bool) -> SearchLimits {
    let mut limits = SearchLimits::for_level(Level::new(Level::MAX).expect("in range"));
    if wld {
        limits.exact_empties = 0;
    }
    limits
}

/// The level from `level` or its alias `depth` (the engine's `--level`/`--depth`).
fn level_of(level: Option<i64>, depth: Option<i64>) -> PyResult<Option<i64>> {
    match (level, depth) {
        (Some(_), Some(_)) => Err(PyValueError::new_err(
            "give level or depth (the same setting), not both",
        )),
        (level, depth) => Ok(level.or(depth)),
    }
}

/// The shipped evaluation, built once.
fn shipped_bundle() -> &'static EvalBundle {
    static BUNDLE: OnceLock<EvalBundle> = OnceLock::new();
    BUNDLE.get_or_init(EvalBundle::shipped)
}

// The keyword defaults are written as literals so that Python's signatures show them
// (python/tests/test_settings.py checks them against the registry); this keeps them the
// engine's.
const _: () = assert!(SearchConfig::DEFAULT_HASH_MB == 64);

/// The configuration of a search of `hash_mb` MiB and `threads` threads (`None`: every
/// core, the engine's default) with the shipped evaluation or `eval_file`'s: the engine's
/// options (`--hash`, `--threads`), read by the same parsers (a negative number is refused
/// there too, as a ValueError).
pub(crate) fn search_config(
    hash_mb: i64,
    threads: Option<i64>,
    eval_file: Option<&str>,
) -> PyResult<SearchConfig> {
    let threads = threads.unwrap_or(SearchConfig::default_threads() as i64);
    registered(&search_options::HASH, hash_mb)?;
    registered(&search_options::THREADS, threads)?;
    let (hash_mb, threads) = (hash_mb as usize, threads as usize);
    let bundle = match eval_file {
        None => shipped_bundle().clone(),
        Some(path) => {
            EvalBundle::from_file(path).map_err(|err| PyValueError::new_err(format!("{err:#}")))?
        }
    };
    Ok(SearchConfig::new(hash_mb, threads)
        .map_err(|err| PyValueError::new_err(format!("{err:#}")))?
        .with_eval(bundle))
}

/// The engine's searcher: a transposition table (``hash_mb`` MiB), ``threads`` search
/// threads and an evaluation (the shipped weights, or ``eval_file``), kept across searches
/// so that later searches of related positions reuse what earlier ones stored.
#[pyclass(module = "tsuru", name = "Searcher", frozen)]
pub struct Searcher {
    search: Mutex<Search>,
    /// The stop flag of the running (or last) search.
    stop: Mutex<Arc<AtomicBool>>,
}

impl Searcher {
    fn run(
        &self,
        py: Python<'_>,
        board: &Board,
        limits: SearchLimits,
        stop: Option<&Stop>,
    ) -> PyResult<PySearchResult> {
        let board = board.without_history();
        // The flag this search stops on: the caller's, or a fresh one; `Searcher.stop`
        // sets whichever the running search uses.
        let flag = stop.map_or_else(|| Arc::new(AtomicBool::new(false)), |s| s.flag.clone());
        *lock(&self.stop)? = flag.clone();
        let result = py.detach(|| {
            lock(&self.search).map(|mut search| search.iterate(&board, &limits, &flag, &mut |_| {}))
        })?;
        Ok(PySearchResult::new(&result, board.empties()))
    }
}

/// Locks `mutex`; an error where an earlier panic poisoned it.
fn lock<T>(mutex: &Mutex<T>) -> PyResult<std::sync::MutexGuard<'_, T>> {
    mutex
        .lock()
        .map_err(|_| PyRuntimeError::new_err("the searcher was poisoned by an earlier panic"))
}

#[pymethods]
impl Searcher {
    #[new]
    #[pyo3(signature = (hash_mb=64, threads=None, eval_file=None))]
    fn new(
        py: Python<'_>,
        hash_mb: i64,
        threads: Option<i64>,
        eval_file: Option<&str>,
    ) -> PyResult<Searcher> {
        let config = search_config(hash_mb, threads, eval_file)?;
        let search = py.detach(move || Search::new(config));
        Ok(Searcher {
            search: Mutex::new(search),
            stop: Mutex::new(Arc::new(AtomicBool::new(false))),
        })
    }

    /// Searches ``board`` and returns a :class:`SearchResult`.
    ///
    /// ``level`` (or ``depth``, the same setting, 1 to 60, as the engine's ``--level``) is
    /// the midgame depth in plies, and the search proves win/loss/draw from ``level*3/2+2``
    /// empties and solves exactly from ``level*3/2``; it is 12 unless a clock is given,
    /// then 60. ``time`` is seconds for this move; ``clock`` the seconds left for the game
    /// (with ``increment`` a move), which the engine's time manager shares out; ``nodes``
    /// a node limit; ``multipv`` how many best moves get exact scores (``result.lines``);
    /// ``endgame=False`` keeps to the midgame search (no solve, as ``tsuru bench``).
    #[pyo3(signature = (board, *, level=None, depth=None, time=None, clock=None, increment=0.0, nodes=None, multipv=1, endgame=true, stop=None))]
    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        py: Python<'_>,
        board: PyRef<'_, PyBoard>,
        level: Option<i64>,
        depth: Option<i64>,
        time: Option<f64>,
        clock: Option<f64>,
        increment: f64,
        nodes: Option<u64>,
        multipv: usize,
        endgame: bool,
        stop: Option<PyRef<'_, Stop>>,
    ) -> PyResult<PySearchResult> {
        let board = board.board.clone();
        let limits = limits(
            &board,
            level_of(level, depth)?,
            time,
            clock,
            increment,
            nodes,
            multipv,
            endgame,
        )?;
        self.run(py, &board, limits, stop.as_deref())
    }

    /// Solves ``board`` to the end of the game: the exact score, or with ``wld=True`` only
    /// whether the side to move wins, loses or draws (score +1, -1 or 0).
    #[pyo3(signature = (board, *, wld=false, stop=None))]
    fn solve(
        &self,
        py: Python<'_>,
        board: PyRef<'_, PyBoard>,
        wld: bool,
        stop: Option<PyRef<'_, Stop>>,
    ) -> PyResult<PySearchResult> {
        let board = board.board.clone();
        self.run(py, &board, solve_limits(wld), stop.as_deref())
    }

    /// Stops this searcher's running search (it returns its best result so far).
    fn stop(&self) -> PyResult<()> {
        lock(&self.stop)?.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// Empties the transposition table, zeroed where it is: the next search does not pay
    /// for faulting a fresh allocation's pages in (``tsuru.bench`` times searches after it).
    fn clear(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| lock(&self.search).map(|mut search| search.clear_in_place()))
    }

    /// The static evaluation of ``board`` in discs for the side to move (this searcher's
    /// evaluation).
    fn evaluate(&self, py: Python<'_>, board: PyRef<'_, PyBoard>) -> PyResult<f64> {
        let board = board.board.clone();
        py.detach(|| lock(&self.search).map(|search| search.evaluate(&board).discs()))
    }
}

/// Searches ``board`` with a new :class:`Searcher` (``hash_mb`` MiB, ``threads`` threads,
/// every core unless given); the other arguments are :meth:`Searcher.search`'s.
#[pyfunction]
#[pyo3(signature = (board, *, level=None, depth=None, time=None, clock=None, increment=0.0, nodes=None, multipv=1, endgame=true, threads=None, hash_mb=64, stop=None))]
#[allow(clippy::too_many_arguments)]
pub fn search(
    py: Python<'_>,
    board: PyRef<'_, PyBoard>,
    level: Option<i64>,
    depth: Option<i64>,
    time: Option<f64>,
    clock: Option<f64>,
    increment: f64,
    nodes: Option<u64>,
    multipv: usize,
    endgame: bool,
    threads: Option<i64>,
    hash_mb: i64,
    stop: Option<PyRef<'_, Stop>>,
) -> PyResult<PySearchResult> {
    let searcher = Searcher::new(py, hash_mb, threads, None)?;
    searcher.search(
        py, board, level, depth, time, clock, increment, nodes, multipv, endgame, stop,
    )
}

/// Solves ``board`` with a new :class:`Searcher`; see :meth:`Searcher.solve`.
#[pyfunction]
#[pyo3(signature = (board, *, wld=false, threads=None, hash_mb=64, stop=None))]
pub fn solve(
    py: Python<'_>,
    board: PyRef<'_, PyBoard>,
    wld: bool,
    threads: Option<i64>,
    hash_mb: i64,
    stop: Option<PyRef<'_, Stop>>,
) -> PyResult<PySearchResult> {
    let searcher = Searcher::new(py, hash_mb, threads, None)?;
    searcher.solve(py, board, wld, stop)
}

/// The shipped pattern evaluation of ``board``, in discs for the side to move.
#[pyfunction]
pub fn evaluate(board: PyRef<'_, PyBoard>) -> f64 {
    shipped_bundle().evaluator().evaluate(&board.board).discs()
}
