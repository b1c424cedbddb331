//! `tsuru._native.EngineClient`: tsuru-core's client of GTP and NBoard engines
//! ([`tsuru_core::client`], the one `tsuru match` uses) as a Python object, for
//! `tsuru.engine`, which keeps only the Python-facing API over it.
//!
//! Every wait takes a timeout in seconds (`None`: none) and runs without the GIL. Errors are
//! `tsuru._native.ClientError(kind, detail, exit_code)`, `kind` one of `"terminated"`,
//! `"timeout"`, `"refused"`, `"malformed"`. Moves cross as ints (`0..64`, 64 a pass).

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyOSError, PyValueError};
use pyo3::prelude::*;

use tsuru_core::board::{notation, Color, Move};
use tsuru_core::client::gtp::{GtpClient, GtpClock};
use tsuru_core::client::nboard::{shown_game, HintEvent, NboardClient, NboardClock, SearchLine};
use tsuru_core::client::{self as client, EngineProcess, ErrorKind, Launch};
use tsuru_core::formats::ggf::{GgfGame, GgfMove};

use crate::board::{move_number, PASS};

create_exception!(
    _native,
    ClientError,
    PyException,
    "An error talking to an engine: args are (kind, detail, exit_code)."
);

/// The client's error as a `ClientError`.
fn error(err: client::Error) -> PyErr {
    let kind = match err.kind {
        ErrorKind::Terminated => "terminated",
        ErrorKind::Timeout => "timeout",
        ErrorKind::Refused => "refused",
        ErrorKind::Malformed => "malformed",
    };
    ClientError::new_err((kind, err.detail, err.exit_code))
}

/// A deadline `seconds` from now (`None`: none).
fn deadline(seconds: Option<f64>) -> Option<Instant> {
    seconds.map(|s| {
        Instant::now() + Duration::try_from_secs_f64(s.max(0.0)).unwrap_or(Duration::MAX / 4)
    })
}

/// A move from its number.
fn move_of(number: u32) -> PyResult<Move> {
    if number == PASS {
        return Ok(Move::Pass);
    }
    tsuru_core::board::Square::new(number as usize)
        .map(Move::Play)
        .ok_or_else(|| PyValueError::new_err(format!("not a move: {number}")))
}

/// The game `moves` from the board `start` (64-character form), tagged for the engine.
fn game_of(start: &str, moves: &[u32]) -> PyResult<GgfGame> {
    let board =
        notation::parse_board(start).map_err(|err| PyValueError::new_err(format!("{err:#}")))?;
    let mut game = GgfGame::new(board);
    game.tags = vec![
        ("PC".into(), "tsuru.engine".into()),
        ("PB".into(), "black".into()),
        ("PW".into(), "white".into()),
    ];
    for &number in moves {
        game.push(GgfMove::bare(move_of(number)?))
            .map_err(|err| PyValueError::new_err(format!("{err:#}")))?;
    }
    Ok(game)
}

/// A search line as a tuple: `(pv, score, depth, book, games, rank, text)`.
type LineTuple = (
    Vec<u32>,
    Option<f64>,
    String,
    bool,
    Option<u64>,
    u32,
    String,
);

fn line_tuple(line: SearchLine) -> LineTuple {
    (
        line.pv.into_iter().map(move_number).collect(),
        line.score,
        line.depth,
        line.book,
        line.games,
        line.rank,
        line.text,
    )
}

enum Driver {
    Gtp(GtpClient),
    Nboard(NboardClient),
}

/// An engine process spoken to in GTP or NBoard by tsuru-core's client.
///
/// ``EngineClient(argv, protocol=None, timeout=None, cwd=None, env=None)`` starts it and
/// greets it: ``protocol`` is ``"gtp"``, ``"nboard"`` or None to detect it (``nboard 2`` and
/// ``ping 1``; a GTP engine's answers to both are then read, or, should that fail, the
/// process is started again for GTP). An NBoard engine has answered a ``ping``.
#[pyclass(module = "tsuru._native", name = "EngineClient")]
pub struct EngineClient {
    /// The driver (a mutex only to make the class `Sync`: every method that uses it takes
    /// `&mut self`, or locks it for a moment).
    driver: Mutex<Driver>,
    pid: u32,
    argv: Vec<String>,
}

impl EngineClient {
    fn driver(&mut self) -> &mut Driver {
        self.driver.get_mut().unwrap_or_else(|p| p.into_inner())
    }

    fn shared(&self) -> std::sync::MutexGuard<'_, Driver> {
        self.driver.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn process(&mut self) -> &mut EngineProcess {
        match self.driver() {
            Driver::Gtp(gtp) => gtp.process(),
            Driver::Nboard(nboard) => nboard.process(),
        }
    }

    fn gtp(&mut self) -> PyResult<&mut GtpClient> {
        match self.driver() {
            Driver::Gtp(gtp) => Ok(gtp),
            Driver::Nboard(_) => Err(PyValueError::new_err("not a GTP engine")),
        }
    }

    fn nboard(&mut self) -> PyResult<&mut NboardClient> {
        match self.driver() {
            Driver::Nboard(nboard) => Ok(nboard),
            Driver::Gtp(_) => Err(PyValueError::new_err("not an NBoard engine")),
        }
    }
}

/// Starts the engine and greets it (see [`EngineClient`]).
fn start(launch: &Launch, protocol: Option<&str>, timeout: Option<f64>) -> client::Result<Driver> {
    let spawn = || EngineProcess::spawn(launch, None);
    let mut process = spawn()?;
    match protocol {
        Some("gtp") => return Ok(Driver::Gtp(GtpClient::new(process))),
        Some(_) => {
            let nboard = NboardClient::greet(process, Some(deadline(timeout)))?;
            return Ok(Driver::Nboard(nboard));
        }
        None => {}
    }
    match client::detect(&mut process, deadline(timeout))? {
        client::Detected::Nboard(name) => {
            Ok(Driver::Nboard(NboardClient::greeted(process, name, 1)))
        }
        client::Detected::Gtp => {
            // The rest of the answer to "nboard 2", and the whole answer to "ping 1".
            let until = deadline(timeout);
            let mut gtp = GtpClient::new(process);
            let drained = (|| -> client::Result<()> {
                let what = "the end of the answer to 'nboard 2'";
                while !gtp.process().recv(until, what)?.trim().is_empty() {}
                gtp.read_response("ping 1", until).map(|_| ())
            })();
            match drained {
                Ok(()) => Ok(Driver::Gtp(gtp)),
                Err(err) if err.kind == ErrorKind::Terminated => Err(err),
                Err(_) => {
                    // Out of step after the probe: a fresh process, spoken to in GTP.
                    drop(gtp);
                    Ok(Driver::Gtp(GtpClient::new(spawn()?)))
                }
            }
        }
    }
}

#[pymethods]
impl EngineClient {
    #[new]
    #[pyo3(signature = (argv, protocol=None, timeout=None, cwd=None, env=None))]
    fn new(
        py: Python<'_>,
        argv: Vec<String>,
        protocol: Option<&str>,
        timeout: Option<f64>,
        cwd: Option<PathBuf>,
        env: Option<Vec<(String, String)>>,
    ) -> PyResult<EngineClient> {
        if !matches!(protocol, None | Some("gtp" | "nboard")) {
            return Err(PyValueError::new_err(
                "protocol must be 'gtp', 'nboard' or None",
            ));
        }
        let name = std::path::Path::new(argv.first().map_or("", String::as_str))
            .file_name()
            .map_or_else(
                || "engine".to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
        let launch = Launch {
            name,
            argv: argv.clone(),
            cwd,
            env,
        };
        let driver = py
            .detach(|| start(&launch, protocol, timeout))
            .map_err(|err| {
                if err.detail.starts_with("cannot start") {
                    PyOSError::new_err(err.detail)
                } else {
                    error(err)
                }
            })?;
        let mut client = EngineClient {
            driver: Mutex::new(driver),
            pid: 0,
            argv,
        };
        client.pid = client.process().pid();
        Ok(client)
    }

    /// ``"gtp"`` or ``"nboard"``.
    #[getter]
    fn protocol(&self) -> &'static str {
        match *self.shared() {
            Driver::Gtp(_) => "gtp",
            Driver::Nboard(_) => "nboard",
        }
    }

    /// The process id.
    #[getter]
    fn pid(&self) -> u32 {
        self.pid
    }

    /// The program and arguments.
    #[getter]
    fn argv(&self) -> Vec<String> {
        self.argv.clone()
    }

    /// The exit code once the process has ended (-N: killed by signal N), else None.
    fn poll(&mut self) -> Option<i32> {
        self.process().exit_code()
    }

    /// The last lines of its stderr (at most 20).
    fn stderr_tail(&mut self) -> Vec<String> {
        self.process().stderr_tail()
    }

    /// Sends one raw line.
    fn send(&mut self, py: Python<'_>, line: &str) -> PyResult<()> {
        py.detach(|| self.process().send(line)).map_err(error)
    }

    /// Closes its stdin, waits up to ``grace`` seconds for it to exit, then kills it; returns
    /// the exit code.
    fn close(&mut self, py: Python<'_>, grace: f64) -> Option<i32> {
        py.detach(|| {
            self.process()
                .close(Duration::from_secs_f64(grace.max(0.0)))
        })
    }

    /// Kills the process and reaps it; returns the exit code.
    fn kill(&mut self, py: Python<'_>) -> Option<i32> {
        py.detach(|| self.process().kill())
    }

    /// NBoard: the name from ``set myname``, if it sent one; GTP: None.
    #[getter]
    fn nboard_name(&self) -> Option<String> {
        match &*self.shared() {
            Driver::Nboard(nboard) => nboard.name().map(str::to_string),
            Driver::Gtp(_) => None,
        }
    }

    /// GTP: whether the engine accepts ``play <colour> pass`` (None until a pass was sent).
    #[getter]
    fn explicit_pass(&self) -> Option<bool> {
        match &*self.shared() {
            Driver::Gtp(gtp) => gtp.explicit_pass(),
            Driver::Nboard(_) => None,
        }
    }

    /// GTP: sends ``command`` and returns ``(success, text)``.
    #[pyo3(signature = (command, timeout=None))]
    fn command(
        &mut self,
        py: Python<'_>,
        command: &str,
        timeout: Option<f64>,
    ) -> PyResult<(bool, String)> {
        let gtp = self.gtp()?;
        let answer = py
            .detach(|| gtp.command(command, deadline(timeout)))
            .map_err(error)?;
        Ok(match answer {
            Ok(text) => (true, text),
            Err(text) => (false, text),
        })
    }

    /// GTP: brings the engine's board to the game ``moves`` from ``start`` (64-character form).
    #[pyo3(signature = (start, moves, timeout=None))]
    fn sync(
        &mut self,
        py: Python<'_>,
        start: &str,
        moves: Vec<u32>,
        timeout: Option<f64>,
    ) -> PyResult<()> {
        let game = game_of(start, &moves)?;
        let moves: Vec<Move> = game.moves().iter().map(|m| m.mv).collect();
        let gtp = self.gtp()?;
        py.detach(|| gtp.sync(game.start(), &moves, deadline(timeout)))
            .map_err(error)
    }

    /// GTP: the clock for ``color``'s (0 Black, 1 White) move: ``game_time`` seconds left of
    /// a game clock, else ``move_time`` seconds a move, else none.
    #[pyo3(signature = (color, game_time=None, move_time=None, timeout=None))]
    fn set_clock(
        &mut self,
        py: Python<'_>,
        color: u8,
        game_time: Option<f64>,
        move_time: Option<f64>,
        timeout: Option<f64>,
    ) -> PyResult<()> {
        let clock = match (game_time, move_time) {
            (Some(left), _) => GtpClock::Game { main: left, left },
            (None, Some(time)) => GtpClock::PerMove(time),
            (None, None) => GtpClock::None,
        };
        let color = if color == 0 {
            Color::Black
        } else {
            Color::White
        };
        let gtp = self.gtp()?;
        py.detach(|| gtp.set_clock(color, clock, deadline(timeout)))
            .map_err(error)
    }

    /// GTP: ``verb`` (``genmove`` or ``reg_genmove``) for ``color``: ``(move, text)``, the
    /// move None when the engine resigned.
    #[pyo3(signature = (verb, color, timeout=None))]
    fn genmove(
        &mut self,
        py: Python<'_>,
        verb: &str,
        color: u8,
        timeout: Option<f64>,
    ) -> PyResult<(Option<u32>, String)> {
        let color = if color == 0 {
            Color::Black
        } else {
            Color::White
        };
        let gtp = self.gtp()?;
        let answer = py
            .detach(|| gtp.genmove(verb, color, deadline(timeout)))
            .map_err(error)?;
        Ok((answer.mv.map(move_number), answer.text))
    }

    /// GTP: ``undo``.
    #[pyo3(signature = (timeout=None))]
    fn undo(&mut self, py: Python<'_>, timeout: Option<f64>) -> PyResult<()> {
        let gtp = self.gtp()?;
        py.detach(|| gtp.undo(deadline(timeout))).map_err(error)
    }

    /// NBoard: sends the game ``moves`` from ``start`` under the clock (``game_time``, else
    /// ``move_time``), the depth if given, and a ``ping``, and waits for its ``pong``.
    #[pyo3(signature = (start, moves, depth=None, game_time=None, move_time=None, timeout=None))]
    #[allow(clippy::too_many_arguments)]
    fn prepare(
        &mut self,
        py: Python<'_>,
        start: &str,
        moves: Vec<u32>,
        depth: Option<u32>,
        game_time: Option<f64>,
        move_time: Option<f64>,
        timeout: Option<f64>,
    ) -> PyResult<()> {
        let clock = match (game_time, move_time) {
            (Some(time), _) => NboardClock::Game(time),
            (None, Some(time)) => NboardClock::PerMove(time),
            (None, None) => NboardClock::None,
        };
        let game = shown_game(&game_of(start, &moves)?, clock);
        let nboard = self.nboard()?;
        py.detach(|| nboard.prepare(&game, depth, deadline(timeout)))
            .map_err(error)
    }

    /// NBoard: ``go``: ``(move, eval, time, lines, nodes)``, each line
    /// ``(pv, score, depth, book, games, rank, text)``.
    #[pyo3(signature = (timeout=None))]
    #[allow(clippy::type_complexity)]
    fn go(
        &mut self,
        py: Python<'_>,
        timeout: Option<f64>,
    ) -> PyResult<(u32, Option<f64>, Option<f64>, Vec<LineTuple>, Option<u64>)> {
        let nboard = self.nboard()?;
        let answer = py.detach(|| nboard.go(deadline(timeout))).map_err(error)?;
        let lines = answer.lines.into_iter().map(line_tuple).collect();
        Ok((
            move_number(answer.mv),
            answer.eval,
            answer.time,
            lines,
            answer.nodes,
        ))
    }

    /// NBoard: starts ``hint n`` (after :meth:`prepare`); stopped by the client after
    /// ``stop_after`` seconds, given up after ``timeout``; the engine has ``stop_wait`` seconds
    /// to answer a stop.
    #[pyo3(signature = (n, stop_after=None, timeout=None, stop_wait=10.0))]
    fn hint(
        &mut self,
        py: Python<'_>,
        n: u32,
        stop_after: Option<f64>,
        timeout: Option<f64>,
        stop_wait: f64,
    ) -> PyResult<()> {
        let nboard = self.nboard()?;
        let wait = Duration::from_secs_f64(stop_wait.max(0.0));
        py.detach(|| nboard.hint(n, deadline(stop_after), deadline(timeout), wait))
            .map_err(error)
    }

    /// NBoard: whether a hint runs.
    #[getter]
    fn hinting(&self) -> bool {
        matches!(&*self.shared(), Driver::Nboard(nboard) if nboard.hinting())
    }

    /// NBoard: asks the running hint to stop (a ``ping``); with ``wait``, the engine has that
    /// many seconds from now to answer.
    #[pyo3(signature = (wait=None))]
    fn stop_hint(&mut self, py: Python<'_>, wait: Option<f64>) -> PyResult<()> {
        let nboard = self.nboard()?;
        let wait = wait.map(|w| Duration::from_secs_f64(w.max(0.0)));
        py.detach(|| nboard.stop_hint(wait)).map_err(error)
    }

    /// NBoard: the running hint's next event: ``("line", line)``, ``("nodestats", nodes,
    /// seconds, depth)``, or None at its end.
    fn next_hint(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let nboard = self.nboard()?;
        let event = py.detach(|| nboard.next_hint()).map_err(error)?;
        Ok(match event {
            HintEvent::Line(line) => Some(
                ("line", line_tuple(line))
                    .into_pyobject(py)?
                    .into_any()
                    .unbind(),
            ),
            HintEvent::NodeStats {
                nodes,
                seconds,
                depth,
            } => Some(
                ("nodestats", nodes, seconds, depth)
                    .into_pyobject(py)?
                    .into_any()
                    .unbind(),
            ),
            HintEvent::End => None,
        })
    }
}
