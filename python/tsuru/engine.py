"""Drive any Othello engine over pipes, in the manner of python-chess's ``chess.engine``.

Two protocols are spoken, as tsuru's ``protocol.md`` describes them:

* **GTP** (GTP 2 with the Othello conventions): ``clear_board``, ``play <b|w> <vertex>``
  for every move the engine has not seen, ``time_settings``/``time_left`` for a clock,
  ``genmove <b|w>``.
* **NBoard protocol v2**: ``nboard 2``; ``set game <GGF>`` (or ``move <token>`` when
  exactly one move was added since), ``set depth D``, ``ping n``, then ``go`` (answered by
  ``=== MOVE/EVAL/TIME``) or ``hint N`` (``search`` lines, one set per completed depth,
  ended by ``nodestats`` and a bare ``status``).

Example::

    from tsuru.engine import Engine, Limit
    from tsuru.othello import Position

    with Engine.popen(["tsuru", "--no-book"]) as engine:
        pos = Position()
        while not pos.is_game_over():
            result = engine.play(pos, Limit(depth=6))
            pos.play(result.move)

Everything is synchronous: each engine has a background thread that reads its stdout
into a queue, so that every wait has a deadline and the death of the engine is noticed
(:class:`EngineTerminatedError`) within a fraction of a second.

**Timeouts.** ``timeout`` (given to :meth:`Engine.popen`, 10 s by default) bounds every
wait for a reply that should come promptly (start-up, ``ping``, ``play``, settings). A
search is bounded by ``timeout`` plus the clock of its :class:`Limit` (``time`` or
``game_time``); a search limited only by depth (or by the engine's own settings) has no
deadline unless the call is given ``timeout=``. A dead engine is always noticed.
"""

from __future__ import annotations

import atexit
import collections
import dataclasses
import logging
import math
import os
import queue
import re
import shlex
import subprocess
import threading
import time
import weakref
from typing import (
    Any,
    Callable,
    Deque,
    Dict,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Set,
    Tuple,
    Union,
    overload,
)

from .othello import (
    PASS,
    Color,
    Move,
    Position,
    _format_board,
    move_name,
    nboard_move_name,
    parse_move,
)

__all__ = [
    "Engine",
    "GtpEngine",
    "NBoardEngine",
    "Limit",
    "Info",
    "PlayResult",
    "AnalysisResult",
    "EngineError",
    "EngineTerminatedError",
    "EngineTimeoutError",
]

LOGGER = logging.getLogger("tsuru.engine")

#: How long a process that has exited may keep its stdout open (a grandchild holding the
#: pipe, say) before it is reported as terminated anyway.
_EXIT_GRACE = 0.5
#: How often a blocked read looks at the process.
_POLL = 0.05


# ----- errors ---------------------------------------------------------------------------


class EngineError(RuntimeError):
    """The engine refused a command (a GTP ``?`` answer), or sent a malformed line where a
    reply was expected (the message quotes the line), or answered an illegal move."""


class EngineTerminatedError(EngineError):
    """The engine process died, or closed its stdout."""


class EngineTimeoutError(EngineError, TimeoutError):
    """The expected reply did not come within the timeout."""


# ----- limits and results ---------------------------------------------------------------


def as_position(position: Any) -> Position:
    """``position`` as a :class:`~tsuru.othello.Position`: itself, or a :class:`tsuru.Board`
    (the compiled engine's board) replayed from its start board with its moves, so that the
    engine gets the whole game either way."""
    if isinstance(position, Position):
        return position
    start = getattr(position, "start_board_string", None)
    moves = getattr(position, "moves", None)
    if start is None or moves is None:
        raise TypeError(f"a Position or a tsuru.Board is wanted, not {type(position).__name__}")
    replay = Position(start())
    for move in moves:
        replay.play(move)
    return replay


@dataclasses.dataclass(frozen=True)
class Limit:
    """What bounds a search.

    * ``depth``: midgame depth in plies (1-60). Sent to NBoard engines as ``set depth D``.
      GTP has no depth command: over GTP the depth is ignored and the engine searches at the
      level it was started with (tsuru: ``--level N``; GRhino: ``-l N``).
    * ``time``: seconds for this move. GTP: ``time_settings 0 T 1`` and
      ``time_left <c> T 1`` (Canadian byo-yomi of T seconds a move); NBoard: the GGF clock
      ``TI[T/T/0]`` with every earlier move charged T, so T seconds are left at every move.
    * ``game_time``: seconds left on the side to move's game clock (sudden death). GTP:
      ``time_settings G 0 0`` (once) and ``time_left <c> G 0``; NBoard: ``TI[G//0]``.
      When both ``time`` and ``game_time`` are given, ``game_time`` is used.

    With only a clock and no depth, NBoard engines get ``set depth 60`` so that the clock
    decides (as tsuru's match referee does). An empty ``Limit()`` leaves the engine's
    current settings alone.

    For :meth:`Engine.analysis` (NBoard ``hint``, which has no clock), ``time`` is enforced
    by the client: the hint is stopped with a ``ping`` after that many seconds.
    """

    depth: Optional[int] = None
    time: Optional[float] = None
    game_time: Optional[float] = None

    def __post_init__(self) -> None:
        if self.depth is not None and (
            not isinstance(self.depth, int) or isinstance(self.depth, bool) or not 1 <= self.depth <= 60
        ):
            raise ValueError(f"depth must be an integer 1-60, got {self.depth!r}")
        for field in ("time", "game_time"):
            value = getattr(self, field)
            if value is not None and (not isinstance(value, (int, float)) or not value >= 0 or math.isinf(value)):
                raise ValueError(f"{field} must be a finite number of seconds >= 0, got {value!r}")

    @property
    def clock(self) -> Optional[float]:
        """The seconds the clock gives this move (``game_time``, else ``time``), or None."""
        return self.game_time if self.game_time is not None else self.time


@dataclasses.dataclass
class Info:
    """One line of search information (an NBoard ``search`` or ``book`` line), or the
    final result of a GTP engine's search (a move, nothing else).

    ``score`` is in discs from the side to move's point of view; ``depth`` is the engine's
    depth string: ``"12"`` (plies), ``"73%"`` .. ``"99%"`` (selective endgame passes),
    ``"100%W"`` (win/loss/draw proof), ``"100%"`` (exact).

    ``kind`` says which line it came from: ``"search"``, ``"book"``, ``"nodestats"`` (no
    pv: ``nodes`` and ``time`` of the search that just ended, ``depth`` the last one
    reported) or ``"move"`` (a GTP engine's move).
    """

    pv: List[Move]
    kind: str = "search"
    score: Optional[float] = None
    depth: Optional[str] = None
    multipv: int = 1
    book: bool = False
    games: Optional[int] = None
    nodes: Optional[int] = None
    time: Optional[float] = None
    string: str = ""

    @property
    def move(self) -> Optional[Move]:
        """The first move of the principal variation."""
        return self.pv[0] if self.pv else None

    @property
    def plies(self) -> Optional[int]:
        """The depth in plies when the depth string is a plain number, else None."""
        return int(self.depth) if self.depth is not None and self.depth.isdigit() else None

    @property
    def exact(self) -> bool:
        """Whether the score is an exact endgame result (depth ``100%``)."""
        return self.depth == "100%"


@dataclasses.dataclass
class PlayResult:
    """The engine's move and what it said about it.

    ``move`` is a square or :data:`~tsuru.othello.PASS` (None only when the engine resigned);
    ``score`` is in discs for the side to move, None if the engine gave none; ``depth`` is
    the depth string of the engine's last search line (None if it printed none); ``elapsed``
    is the wall time in seconds from the request (``go``/``genmove``) to the answer, measured
    by this client; ``engine_time`` the time the engine reported (NBoard ``===``).
    """

    move: Optional[Move]
    score: Optional[float] = None
    depth: Optional[str] = None
    pv: List[Move] = dataclasses.field(default_factory=list)
    elapsed: float = 0.0
    engine_time: Optional[float] = None
    nodes: Optional[int] = None
    resigned: bool = False
    infos: List[Info] = dataclasses.field(default_factory=list)

    @property
    def plies(self) -> Optional[int]:
        """The search depth in plies, when the depth string is a plain number."""
        return int(self.depth) if self.depth is not None and self.depth.isdigit() else None


# ----- the process ----------------------------------------------------------------------

_EOF = object()


class _Process:
    """A child process with a stdout reader thread feeding a queue, and the last lines of
    stderr kept for error messages."""

    def __init__(self, argv: Sequence[str], cwd: Optional[str], env: Optional[Mapping[str, str]]) -> None:
        self.argv = list(argv)
        self.proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=None if env is None else dict(env),
            bufsize=0,
        )
        self.pid = self.proc.pid
        self.lines: "queue.Queue[object]" = queue.Queue()
        self.stderr_tail: Deque[str] = collections.deque(maxlen=20)
        self.eof = False
        self._exit_seen: Optional[float] = None
        self._write_lock = threading.Lock()
        self._threads = [
            threading.Thread(target=self._read_stdout, name=f"tsuru-engine-{self.pid}-stdout", daemon=True),
            threading.Thread(target=self._read_stderr, name=f"tsuru-engine-{self.pid}-stderr", daemon=True),
        ]
        for t in self._threads:
            t.start()

    def _read_stdout(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        try:
            for raw in iter(stream.readline, b""):
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                LOGGER.debug("%s >> %s", self.pid, line)
                self.lines.put(line)
        except (OSError, ValueError):
            pass
        finally:
            self.lines.put(_EOF)

    def _read_stderr(self) -> None:
        stream = self.proc.stderr
        assert stream is not None
        try:
            for raw in iter(stream.readline, b""):
                self.stderr_tail.append(raw.decode("utf-8", "replace").rstrip("\r\n"))
        except (OSError, ValueError):
            pass

    def describe(self) -> str:
        return " ".join(shlex.quote(a) for a in self.argv)

    def _terminated(self, what: str) -> EngineTerminatedError:
        self.eof = True
        try:
            code: Optional[int] = self.proc.wait(timeout=0.3)
        except subprocess.TimeoutExpired:
            code = None
        msg = f"engine {self.describe()} (pid {self.pid}) terminated"
        msg += f" with exit code {code}" if code is not None else " (closed its stdout)"
        msg += f" while waiting for {what}"
        # Give the stderr reader a moment to collect the last words.
        time.sleep(0.02)
        if self.stderr_tail:
            msg += "; last stderr lines: " + " | ".join(self.stderr_tail)
        return EngineTerminatedError(msg)

    def send(self, line: str) -> None:
        """Writes one line (a newline is added) and flushes it."""
        if self.eof:
            raise self._terminated(f"to send {line!r}")
        LOGGER.debug("%s << %s", self.pid, line)
        data = (line + "\n").encode("utf-8")
        try:
            with self._write_lock:
                stdin = self.proc.stdin
                assert stdin is not None
                stdin.write(data)
                stdin.flush()
        except (BrokenPipeError, ConnectionResetError, OSError, ValueError):
            raise self._terminated(f"to send {line!r}") from None

    def get(self, deadline: Optional[float], what: str) -> Optional[str]:
        """The next line, or None when ``deadline`` (a ``time.monotonic()`` value) passes
        first. Raises :class:`EngineTerminatedError` on EOF or when the process has exited."""
        while True:
            if self.eof and self.lines.empty():
                raise self._terminated(what)
            now = time.monotonic()
            wait = _POLL if deadline is None else max(0.0, min(_POLL, deadline - now))
            try:
                item = self.lines.get(timeout=wait) if wait > 0 else self.lines.get_nowait()
            except queue.Empty:
                if self.proc.poll() is not None:
                    now = time.monotonic()
                    if self._exit_seen is None:
                        self._exit_seen = now
                    elif now - self._exit_seen > _EXIT_GRACE:
                        raise self._terminated(what) from None
                if deadline is not None and time.monotonic() >= deadline:
                    return None
                continue
            if item is _EOF:
                raise self._terminated(what)
            assert isinstance(item, str)
            return item

    def drain(self) -> List[str]:
        """Every line already received and not yet read (no waiting)."""
        out: List[str] = []
        while True:
            try:
                item = self.lines.get_nowait()
            except queue.Empty:
                return out
            if item is _EOF:
                self.eof = True
                return out
            assert isinstance(item, str)
            out.append(item)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self, grace: float) -> None:
        """Closes stdin, waits up to ``grace`` seconds for the exit, then kills."""
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.kill()
        self._close_pipes()

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.kill()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover
                pass
        self._close_pipes()

    def _close_pipes(self) -> None:
        for t in self._threads:
            t.join(timeout=1)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass


def _argv(command: Union[str, Sequence[str]]) -> List[str]:
    if isinstance(command, str):
        # A path to a program, or a command line to split like a shell would.
        if os.path.exists(command):
            return [command]
        return shlex.split(command)
    argv = [os.fspath(a) for a in command]
    if not argv:
        raise ValueError("empty engine command")
    return argv


_LIVE: "weakref.WeakSet[Engine]" = weakref.WeakSet()


@atexit.register
def _kill_all() -> None:
    for engine in list(_LIVE):
        try:
            engine.kill()
        except Exception:  # pragma: no cover - best effort at exit
            pass


def _seconds(value: float) -> str:
    """Seconds without an exponent: ``5``, ``2.5``, ``0.125``."""
    if value == int(value):
        return str(int(value))
    return f"{value:.3f}".rstrip("0").rstrip(".")


def _number(text: str) -> Optional[float]:
    """A lenient decimal (comma decimals accepted), or None."""
    try:
        value = float(text.strip().replace(",", "."))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


# ----- the engine -----------------------------------------------------------------------


class Engine:
    """A running engine. Start one with :meth:`Engine.popen`; use it as a context manager,
    or call :meth:`quit` when done (an engine left over is killed when it is garbage
    collected, or at interpreter exit)."""

    #: ``"gtp"`` or ``"nboard"``.
    protocol: str = ""

    def __init__(self, process: _Process, timeout: float) -> None:
        self._process = process
        self.timeout = timeout
        #: The engine's name (GTP: ``name`` and ``version``; NBoard: ``set myname``).
        self.name: Optional[str] = None
        #: What the engine said about itself: ``{"name": ..., "version": ...}`` (GTP) or
        #: ``{"name": ...}`` (NBoard).
        self.id: Dict[str, str] = {}
        self._analysis: Optional[AnalysisResult] = None
        self._closed = False
        _LIVE.add(self)

    # ----- starting ------------------------------------------------------------------

    @classmethod
    def popen(
        cls,
        command: Union[str, Sequence[str]],
        protocol: Optional[str] = None,
        timeout: float = 10.0,
        cwd: Optional[str] = None,
        env: Optional[Mapping[str, str]] = None,
    ) -> "Engine":
        """Starts an engine and greets it.

        ``command`` is a list of arguments, or a string: the path of a program, or else a
        command line split as a shell would (``"tsuru --no-book"``). ``protocol`` is
        ``"gtp"``, ``"nboard"`` or None to detect it: the engine gets ``nboard 2`` and
        ``ping 1``; ``pong 1`` (possibly after ``set myname ...``) means NBoard, a line
        starting with ``=`` or ``?`` means GTP. Detection uses the real process: an NBoard
        engine has then been greeted as it should be, and a GTP engine has answered two
        unknown commands (both answers are read); should that go wrong the process is
        restarted in GTP. Returns a :class:`GtpEngine` or an :class:`NBoardEngine`.

        Raises :class:`EngineTimeoutError` when no answer comes within ``timeout`` seconds,
        :class:`EngineTerminatedError` when the engine exits, and ``OSError`` (such as
        ``FileNotFoundError``) when it cannot be started.
        """
        if protocol is not None:
            protocol = protocol.lower()
            if protocol not in ("gtp", "nboard"):
                raise ValueError(f"protocol must be 'gtp', 'nboard' or None, got {protocol!r}")
        argv = _argv(command)
        process = _Process(argv, cwd, env)
        try:
            if protocol == "gtp":
                return GtpEngine(process, timeout)
            if protocol == "nboard":
                return NBoardEngine(process, timeout)
            detected, name = _detect(process, timeout)
            if detected == "nboard":
                return NBoardEngine(process, timeout, greeted=True, name=name)
            try:
                _drain_gtp_probe(process, timeout)
            except EngineTerminatedError:
                raise
            except EngineError as e:
                LOGGER.info("restarting %s in GTP after detection: %s", process.describe(), e)
                process.kill()
                process = _Process(argv, cwd, env)
            return GtpEngine(process, timeout)
        except BaseException:
            process.kill()
            raise

    # ----- common helpers -------------------------------------------------------------

    @property
    def pid(self) -> int:
        """The engine process's id."""
        return self._process.pid

    @property
    def returncode(self) -> Optional[int]:
        """The exit status once the process has ended, else None."""
        return self._process.proc.poll()

    def _deadline(self, seconds: Optional[float]) -> Optional[float]:
        return None if seconds is None else time.monotonic() + seconds

    def _search_deadline(self, limit: "Limit", timeout: Optional[float]) -> Optional[float]:
        if timeout is not None:
            return time.monotonic() + timeout
        clock = limit.clock
        if clock is None:
            return None
        return time.monotonic() + self.timeout + clock

    def _read(self, deadline: Optional[float], what: str) -> str:
        line = self._process.get(deadline, what)
        if line is None:
            raise EngineTimeoutError(f"engine {self.name or self._process.describe()}: no {what} in time")
        return line

    def _check_open(self) -> None:
        if self._closed:
            raise EngineError("the engine has been quit")

    def _finish_analysis(self) -> None:
        analysis = self._analysis
        if analysis is not None:
            self._analysis = None
            analysis._finish()

    def _begin(self, position: Position) -> bool:
        """Readies a request about ``position``: the engine open, no analysis running, the
        game not over (``ValueError``). True when the side to move must pass, which is
        answered without asking the engine."""
        self._check_open()
        self._finish_analysis()
        if position.is_game_over():
            raise ValueError("the game is over: no move to ask for")
        return position.must_pass()

    # ----- the API --------------------------------------------------------------------

    def play(self, position: Position, limit: Limit = Limit(), *, timeout: Optional[float] = None) -> PlayResult:
        """Asks the engine for its move in ``position`` (whose game is sent from its start).

        When the side to move must pass, :data:`~tsuru.othello.PASS` is returned without
        asking the engine. Raises ``ValueError`` on a finished game, :class:`EngineError`
        when the engine answers an illegal or malformed move.
        """
        raise NotImplementedError

    def analysis(
        self, position: Position, limit: Limit = Limit(), multipv: Optional[int] = None, *, timeout: Optional[float] = None
    ) -> "AnalysisResult":
        """Starts analysing ``position``; iterate over the result for each :class:`Info`
        as it arrives (NBoard: every ``search``, ``book`` and ``nodestats`` line of
        ``hint N``; GTP: just the final move, from ``reg_genmove``). See
        :class:`AnalysisResult`."""
        raise NotImplementedError

    @overload
    def analyse(
        self, position: Position, limit: Limit = ..., multipv: None = None, *, timeout: Optional[float] = None
    ) -> Info: ...

    @overload
    def analyse(
        self, position: Position, limit: Limit = ..., *, multipv: int, timeout: Optional[float] = None
    ) -> List[Info]: ...

    @overload
    def analyse(
        self, position: Position, limit: Limit, multipv: int, *, timeout: Optional[float] = None
    ) -> List[Info]: ...

    def analyse(
        self, position: Position, limit: Limit = Limit(), multipv: Optional[int] = None, *, timeout: Optional[float] = None
    ) -> Union[Info, List[Info]]:
        """Analyses ``position`` to the end and returns the final information: one
        :class:`Info` (the best line) when ``multipv`` is None, else the list of the best
        ``multipv`` lines of the last completed depth (book lines included), best first."""
        with self.analysis(position, limit, multipv, timeout=timeout) as result:
            result.wait()
        return result.info if multipv is None else result.multipv

    def stop(self) -> None:
        """Stops a running :meth:`analysis` (NBoard: by a ``ping``, which stops any search;
        the analysis's iterator then ends). GTP has no way to stop a search but ``quit``;
        there this does nothing."""
        if self._analysis is not None:
            self._analysis.stop()

    def quit(self) -> None:
        """Asks the engine to quit, and kills it if it has not exited within a second or
        two. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        try:
            analysis, self._analysis = self._analysis, None
            if analysis is not None and self._process.alive():
                try:
                    analysis._finish(timeout=min(self.timeout, 2.0))
                except EngineError:
                    pass
            if self._process.alive():
                try:
                    self._process.send("quit")
                except EngineError:
                    pass
            self._process.close(grace=min(self.timeout, 2.0))
        finally:
            _LIVE.discard(self)

    close = quit

    def kill(self) -> None:
        """Kills the engine process at once."""
        self._closed = True
        _LIVE.discard(self)
        self._process.kill()

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.quit()

    def __del__(self) -> None:
        process = getattr(self, "_process", None)
        if process is not None:
            try:
                process.kill()
            except Exception:  # pragma: no cover - best effort
                pass

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} pid={self.pid} protocol={self.protocol}>"


def _detect(process: _Process, timeout: float) -> Tuple[str, Optional[str]]:
    """Sends ``nboard 2`` and ``ping 1`` and decides from the answer."""
    process.send("nboard 2")
    process.send("ping 1")
    deadline = time.monotonic() + timeout
    name = None
    while True:
        line = process.get(deadline, "an answer to 'nboard 2' and 'ping 1'")
        if line is None:
            raise EngineTimeoutError(
                f"engine {process.describe()}: neither 'pong 1' (NBoard) nor a GTP answer within {timeout} s"
            )
        text = line.strip()
        if text.startswith("=") or text.startswith("?"):
            return "gtp", None
        words = text.split()
        if words[:2] == ["set", "myname"]:
            name = text.split(None, 2)[2] if len(words) > 2 else ""
        elif words == ["pong", "1"]:
            return "nboard", name


def _drain_gtp_probe(process: _Process, timeout: float) -> None:
    """Reads the rest of the GTP answer to ``nboard 2`` and the whole answer to ``ping 1``."""
    deadline = time.monotonic() + timeout
    # The first answer's first line has been read; the rest runs to an empty line.
    while True:
        line = process.get(deadline, "the end of the answer to 'nboard 2'")
        if line is None:
            raise EngineTimeoutError("no end to the answer to 'nboard 2'")
        if not line.strip():
            break
    _read_gtp_response(process, deadline, "ping 1")


def _read_gtp_response(process: _Process, deadline: Optional[float], command: str) -> Tuple[bool, str]:
    """One GTP response: ``(success, text)``; the text's lines joined by newlines."""
    what = f"an answer to {command!r}"
    while True:
        line = process.get(deadline, what)
        if line is None:
            raise EngineTimeoutError(f"engine {process.describe()}: no answer to {command!r} in time")
        if line.strip():
            break
    m = re.match(r"^([=?])(\d*)(?:[ \t](.*))?$", line.strip())
    if not m:
        raise EngineError(f"malformed answer to {command!r}: {line!r}")
    ok = m.group(1) == "="
    text = [m.group(3) or ""]
    while True:
        more = process.get(deadline, f"the end of the answer to {command!r}")
        if more is None:
            raise EngineTimeoutError(f"engine {process.describe()}: no end to the answer to {command!r}")
        if not more.strip():
            break
        text.append(more)
    return ok, "\n".join(text).strip()


# ----- GTP ------------------------------------------------------------------------------


class GtpEngine(Engine):
    """An engine spoken to in GTP.

    The engine's board is kept in step with the positions asked about: moves it has not
    seen are sent with ``play``, and anything else starts over with ``clear_board``. Passes
    are sent as ``play <colour> pass`` until the engine refuses one (GRhino answers
    ``? syntax error``); from then on they are implied by the colour of the next command.
    GTP has no command to set up a board, so only games from the standard start position
    can be played; and no depth command, so :attr:`Limit.depth` is ignored (start the engine
    with its own level flag, e.g. ``tsuru --level 6`` or ``gtp-rhino -l 2``).
    """

    protocol = "gtp"

    def __init__(self, process: _Process, timeout: float) -> None:
        super().__init__(process, timeout)
        #: Lower-case names from ``list_commands`` (empty if the engine has none).
        self.commands: Set[str] = set()
        # The moves on the engine's board (passes included), or None if unknown.
        self._known: Optional[List[Move]] = None
        # Whether the engine accepts "play <colour> pass" (None until tried).
        self._explicit_pass: Optional[bool] = None
        # Whether decimal seconds were refused (then integers are sent).
        self._integer_times = False
        # The time settings last sent since clear_board (None: nothing sent).
        self._time_mode: Optional[Tuple[Any, ...]] = None
        # After a timeout or a malformed answer, answers may be out of step with commands.
        self._out_of_step = False
        deadline = self._deadline(timeout)
        ok, name = self._command("name", deadline)
        if not ok:
            raise EngineError(f"engine {process.describe()} refused 'name': ? {name}")
        ok, version = self._command("version", deadline)
        self.id = {"name": name}
        if ok and version:
            self.id["version"] = version
        self.name = f"{name} {version}" if ok and version else name
        ok, listed = self._command("list_commands", deadline)
        if ok:
            self.commands = {line.strip().lower() for line in listed.splitlines() if line.strip()}

    def _command(self, command: str, deadline: Optional[float]) -> Tuple[bool, str]:
        if self._out_of_step:
            self._resync(deadline)
        stale = self._process.drain()
        if stale:
            LOGGER.warning("engine %s: ignored stale output %r", self.name, stale)
        self._process.send(command)
        try:
            return _read_gtp_response(self._process, deadline, command)
        except EngineError as e:
            if not isinstance(e, EngineTerminatedError):
                # A late or broken answer: get back in step before the next command, and
                # set the board up afresh.
                self._out_of_step = True
                self._known = None
                self._time_mode = None
            raise

    def _resync(self, deadline: Optional[float]) -> None:
        """After a timeout or a malformed answer: sends ``name`` and drops everything up to
        its answer (a late ``genmove`` answer, the rest of a broken one)."""
        want = self.id.get("name", "")
        self._process.drain()
        self._process.send("name")
        while True:
            line = self._process.get(deadline, "an answer to 'name' (to get back in step)")
            if line is None:
                raise EngineTimeoutError(f"engine {self.name}: still out of step (no answer to 'name' in time)")
            m = re.match(r"^=\d*(?:[ \t](.*))?$", line.strip())
            if m and (m.group(1) or "").strip() == want:
                break
            LOGGER.info("engine %s: dropped %r while getting back in step", self.name, line)
        while True:
            line = self._process.get(deadline, "the end of the answer to 'name'")
            if line is None:
                raise EngineTimeoutError(f"engine {self.name}: no end to the answer to 'name'")
            if not line.strip():
                break
        self._out_of_step = False

    def command(self, command: str, timeout: Optional[float] = None) -> str:
        """Sends any GTP command and returns its answer's text; raises :class:`EngineError`
        on a ``?`` answer. ``timeout`` defaults to the engine's."""
        self._check_open()
        self._finish_analysis()
        ok, text = self._command(command, self._deadline(self.timeout if timeout is None else timeout))
        if not ok:
            raise EngineError(f"engine {self.name} refused {command!r}: ? {text}")
        return text

    def _required(self, command: str, deadline: Optional[float]) -> str:
        ok, text = self._command(command, deadline)
        if not ok:
            raise EngineError(f"engine {self.name} refused {command!r}: ? {text}")
        return text

    def set_position(self, position: Position, timeout: Optional[float] = None) -> None:
        """Brings the engine's board to ``position`` (standard start only), without asking
        for a move: e.g. before ``command("final_score")``."""
        position = as_position(position)
        self._check_open()
        self._finish_analysis()
        self._sync(position, self._deadline(self.timeout if timeout is None else timeout))

    def _sync(self, position: Position, deadline: Optional[float]) -> None:
        if not position.is_standard_start():
            raise EngineError(
                "GTP has no command to set up a board: only games from the standard start "
                "position can be played over GTP (use NBoard for other starts)"
            )
        history = position.history()
        moves = [move for _, move in history]
        known = self._known
        if known is None or moves[: len(known)] != known:
            self._required("clear_board", deadline)
            self._known = known = []
            self._time_mode = None
        for mover, move in history[len(known):]:
            if move == PASS:
                if self._explicit_pass is not False:
                    ok, text = self._command(f"play {mover.gtp} pass", deadline)
                    if not ok:
                        if self._explicit_pass:
                            raise EngineError(f"engine {self.name} refused 'play {mover.gtp} pass': ? {text}")
                        LOGGER.info("engine %s refuses explicit passes (? %s): implying them", self.name, text)
                    self._explicit_pass = ok
            else:
                self._required(f"play {mover.gtp} {move_name(move)}", deadline)
            known.append(move)

    def _time_command(self, template: str, values: Sequence[float], deadline: Optional[float]) -> None:
        """Sends a time command; decimal seconds refused are sent again as whole ones."""
        if not self._integer_times:
            command = template.format(*(_seconds(v) for v in values))
            ok, text = self._command(command, deadline)
            if ok:
                return
            if all(v == int(v) for v in values):
                LOGGER.warning("engine %s refused %r: ? %s", self.name, command, text)
                return
            self._integer_times = True
            LOGGER.info("engine %s refused decimal seconds (%r: ? %s); sending whole seconds", self.name, command, text)
        command = template.format(*(str(max(1, int(v))) if v > 0 else "0" for v in values))
        ok, text = self._command(command, deadline)
        if not ok:
            LOGGER.warning("engine %s refused %r: ? %s", self.name, command, text)

    def _set_clock(self, color: Color, limit: Limit, deadline: Optional[float]) -> None:
        if limit.game_time is not None:
            if self._time_mode != ("game",):
                self._time_command("time_settings {} 0 0", [limit.game_time], deadline)
                self._time_mode = ("game",)
            self._time_command(f"time_left {color.gtp} {{}} 0", [limit.game_time], deadline)
        elif limit.time is not None:
            if self._time_mode != ("move", limit.time):
                self._time_command("time_settings 0 {} 1", [limit.time], deadline)
                self._time_mode = ("move", limit.time)
            self._time_command(f"time_left {color.gtp} {{}} 1", [limit.time], deadline)
        elif self._time_mode not in (None, ("none",)):
            # byo_time > 0 with byo_stones = 0: no time limit (Quarry's "0 1 0").
            self._time_command("time_settings 0 1 0", [], deadline)
            self._time_mode = ("none",)

    def _parse_genmove(self, position: Position, command: str, text: str) -> Tuple[Optional[Move], bool]:
        answer = text.strip()
        if answer.lower() == "resign":
            return None, True
        try:
            move = parse_move(answer)
        except ValueError:
            raise EngineError(f"malformed answer to {command!r}: {('= ' + text)!r}") from None
        if not position.is_legal(move):
            raise EngineError(
                f"engine {self.name} answered an illegal move to {command!r}: {answer!r} in {position.board_string()}"
            )
        return move, False

    def play(self, position: Position, limit: Limit = Limit(), *, timeout: Optional[float] = None) -> PlayResult:
        position = as_position(position)
        if self._begin(position):
            return PlayResult(move=PASS, pv=[PASS])
        move, resigned, elapsed, text = self._ask_move(position, limit, timeout, "genmove")
        if self._known is not None:
            self._known.append(PASS if move is None else move)
            if resigned:
                self._known = None
        info = Info(pv=[] if move is None else [move], kind="move", string=text)
        return PlayResult(
            move=move, pv=list(info.pv), elapsed=elapsed, resigned=resigned, infos=[info]
        )

    def _ask_move(
        self, position: Position, limit: Limit, timeout: Optional[float], verb: str
    ) -> Tuple[Optional[Move], bool, float, str]:
        """Brings the engine to ``position``, sets its clock and sends ``verb`` (``genmove``
        or ``reg_genmove``) for the side to move: the move (None when it resigned), whether
        it resigned, the seconds it took and its answer."""
        deadline = self._deadline(self.timeout)
        self._sync(position, deadline)
        self._set_clock(position.turn, limit, deadline)
        command = f"{verb} {position.turn.gtp}"
        start = time.monotonic()
        ok, text = self._command(command, self._search_deadline(limit, timeout))
        elapsed = time.monotonic() - start
        if not ok:
            raise EngineError(f"engine {self.name} refused {command!r}: ? {text}")
        move, resigned = self._parse_genmove(position, command, text)
        return move, resigned, elapsed, text

    def analysis(
        self, position: Position, limit: Limit = Limit(), multipv: Optional[int] = None, *, timeout: Optional[float] = None
    ) -> "AnalysisResult":
        """GTP has no analysis: the engine's move (``reg_genmove`` when the engine knows
        it, else ``genmove`` and ``undo``) is the one and only :class:`Info`. ``multipv``
        is ignored."""
        position = as_position(position)
        if self._begin(position):
            return AnalysisResult(self, iter([Info(pv=[PASS], kind="move")]))
        regular = "reg_genmove" in self.commands
        move, resigned, elapsed, text = self._ask_move(
            position, limit, timeout, "reg_genmove" if regular else "genmove"
        )
        if not regular and not resigned and self._known is not None:
            undo_ok, _ = self._command("undo", self._deadline(self.timeout))
            if not undo_ok:
                self._known = None
        info = Info(pv=[] if move is None else [move], kind="move", time=elapsed, string=text)
        return AnalysisResult(self, iter([info]))


# ----- NBoard ---------------------------------------------------------------------------


def _parse_pv(text: str) -> List[Move]:
    """``F5-D6-C3`` or ``F5d6C3`` or ``PA-C1`` as moves."""
    moves = []
    for token in re.findall(r"(?i)pass|pa|--|[a-h][1-8]|[^-\s]", text):
        try:
            moves.append(parse_move(token))
        except ValueError:
            raise ValueError(f"bad move {token!r} in pv {text!r}") from None
    return moves


def _parse_search_line(line: str) -> Info:
    """A ``search <pv> <eval> 0 <depth>`` or ``book <pv> <eval> <games> <depth>`` line."""
    words = line.split()
    if len(words) < 5:
        raise ValueError("too few fields")
    book = words[0] == "book"
    pv = _parse_pv(words[1])
    if not pv:
        raise ValueError("empty pv")
    score_text = words[2].split(",")[0]
    score = _number(score_text)
    if score is None and score_text.lower() != "nan":
        raise ValueError(f"bad eval {words[2]!r}")
    if not words[3].isdigit():
        raise ValueError(f"bad games count {words[3]!r}")
    depth = words[4]
    if not re.match(r"^\d", depth):
        raise ValueError(f"bad depth {depth!r}")
    return Info(
        pv=pv,
        kind="book" if book else "search",
        score=score,
        depth=depth,
        book=book,
        games=int(words[3]) if book else None,
        string=line,
    )


class NBoardEngine(Engine):
    """An engine spoken to in NBoard protocol v2.

    Before each request the game is sent (``set game`` with the whole GGF, or ``move`` when
    exactly one move was added to what was last sent, as the NBoard GUI does), then
    ``set depth`` if it changed, then ``ping n``; lines printed before ``pong n`` belong to
    older requests and are dropped.
    """

    protocol = "nboard"

    def __init__(self, process: _Process, timeout: float, greeted: bool = False, name: Optional[str] = None) -> None:
        super().__init__(process, timeout)
        self._ping_number = 1 if greeted else 0
        self._depth: Optional[int] = None
        self._sent_prefix: Optional[str] = None
        self._sent_tokens: List[str] = []
        self.name = name
        if not greeted:
            process.send("nboard 2")
            self._ping(self._deadline(timeout))
        if self.name is not None:
            self.id = {"name": self.name}

    def _note(self, line: str) -> bool:
        """Handles lines that may come at any time; True if the line was one."""
        words = line.split(None, 2)
        if words[:2] == ["set", "myname"]:
            self.name = words[2].strip() if len(words) > 2 else ""
            self.id = {"name": self.name}
            return True
        return False

    def _ping(self, deadline: Optional[float]) -> int:
        """``ping n`` and a wait for ``pong n``; earlier output is dropped."""
        self._ping_number += 1
        n = self._ping_number
        self._process.send(f"ping {n}")
        self._wait_pong(n, deadline)
        return n

    def _wait_pong(self, n: int, deadline: Optional[float]) -> None:
        while True:
            line = self._read(deadline, f"'pong {n}'")
            if self._note(line):
                continue
            words = line.split()
            if words and words[0] == "pong":
                if len(words) != 2 or not words[1].lstrip("-").isdigit():
                    raise EngineError(f"malformed pong waiting for 'pong {n}': {line!r}")
                if int(words[1]) == n:
                    return

    def _send_game(self, position: Position, limit: Limit) -> None:
        """``set game`` or ``move``, and ``set depth``, for a request on ``position``."""
        black, white, turn = position._start
        board = _format_board(black, white, turn, black_char="*")
        if limit.game_time is not None:
            clock = f"{_seconds(limit.game_time)}//0"
            charge = ""
        elif limit.time is not None:
            clock = f"{_seconds(limit.time)}/{_seconds(limit.time)}/0"
            charge = f"//{_seconds(limit.time)}"
        else:
            clock = "0"
            charge = ""
        prefix = f"(;GM[Othello]PC[tsuru.engine]PB[black]PW[white]RE[?]TI[{clock}]TY[8]BO[8 {board}]"
        tokens = [
            f"{'B' if mover is Color.BLACK else 'W'}[{nboard_move_name(move)}{charge}]"
            for mover, move in position.history()
        ]
        sent = self._sent_tokens
        if prefix == self._sent_prefix and tokens == sent:
            pass
        elif prefix == self._sent_prefix and len(tokens) == len(sent) + 1 and tokens[:-1] == sent:
            self._process.send(f"move {tokens[-1][2:-1]}")
        else:
            self._process.send("set game " + prefix + "".join(tokens) + ";)")
        self._sent_prefix, self._sent_tokens = prefix, tokens
        depth = limit.depth
        if depth is None and limit.clock is not None:
            depth = 60
        if depth is not None and depth != self._depth:
            self._process.send(f"set depth {depth}")
            self._depth = depth

    def _parse_info(self, line: str) -> Info:
        try:
            return _parse_search_line(line)
        except ValueError as e:
            raise EngineError(f"engine {self.name}: malformed line ({e}): {line!r}") from None

    def _send_game_in_step(self, position: Position, limit: Limit) -> None:
        """Sends the game and settings for ``position`` and waits for the engine to take
        them (``ping``); on an error nothing is assumed sent, so the next request sends the
        whole game."""
        try:
            self._send_game(position, limit)
            self._ping(self._deadline(self.timeout))
        except EngineError:
            self._sent_prefix = None
            raise

    def play(self, position: Position, limit: Limit = Limit(), *, timeout: Optional[float] = None) -> PlayResult:
        position = as_position(position)
        if self._begin(position):
            return PlayResult(move=PASS, pv=[PASS])
        self._send_game_in_step(position, limit)
        start = time.monotonic()
        self._process.send("go")
        deadline = self._search_deadline(limit, timeout)
        infos: List[Info] = []
        nodes: Optional[int] = None
        while True:
            line = self._read(deadline, "the answer to 'go' ('=== ...')")
            if self._note(line):
                continue
            words = line.split()
            if not words:
                continue
            head = words[0]
            if head in ("search", "book"):
                infos.append(self._parse_info(line))
            elif head == "nodestats":
                if len(words) >= 2 and words[1].isdigit():
                    nodes = int(words[1])
                else:
                    raise EngineError(f"engine {self.name}: malformed line: {line!r}")
            elif head == "===":
                break
            elif line.startswith("==="):
                # "===F5" with no space
                break
        elapsed = time.monotonic() - start
        # "=== MOVE/EVAL/TIME"; whitespace inside counts as "/" (Edax writes "=== d6 -1.00 0.0").
        rest = "/".join(line[3:].split())
        fields = rest.split("/") if rest else []
        try:
            if not fields:
                raise ValueError
            move = parse_move(fields[0])
        except ValueError:
            raise EngineError(f"engine {self.name}: malformed answer to 'go': {line!r}") from None
        if not position.is_legal(move):
            raise EngineError(
                f"engine {self.name} answered an illegal move to 'go': {line!r} in {position.board_string()}"
            )
        score = _number(fields[1]) if len(fields) > 1 and fields[1].strip() else None
        engine_time = _number(fields[2]) if len(fields) > 2 and fields[2].strip() else None
        last = next((i for i in reversed(infos) if not i.book), infos[-1] if infos else None)
        pv = [move]
        depth = None
        if last is not None:
            depth = last.depth
            if last.pv and last.pv[0] == move:
                pv = list(last.pv)
                if score is None:
                    score = last.score
        return PlayResult(
            move=move,
            score=score,
            depth=depth,
            pv=pv,
            elapsed=elapsed,
            engine_time=engine_time,
            nodes=nodes,
            infos=infos,
        )

    def analysis(
        self, position: Position, limit: Limit = Limit(), multipv: Optional[int] = None, *, timeout: Optional[float] = None
    ) -> "AnalysisResult":
        """``hint N`` (N = ``multipv``, 1 by default): yields one :class:`Info` per
        ``search``, ``book`` or ``nodestats`` line as it arrives, and ends at the engine's closing ``status``
        (or ``status game over``), or once a :meth:`AnalysisResult.stop` (sent as ``ping``;
        also after ``limit.time`` seconds) is answered. The engine's clock plays no part
        (``hint`` has none): ``limit.depth`` bounds the search, ``limit.time`` is enforced
        here."""
        position = as_position(position)
        self._check_open()
        self._finish_analysis()
        n = 1 if multipv is None else int(multipv)
        if n < 1:
            raise ValueError("multipv must be at least 1")
        untimed = Limit(depth=limit.depth)
        self._send_game_in_step(position, untimed)
        self._process.send(f"hint {n}")
        result = AnalysisResult(self)
        result._n = n
        stop_at = None if limit.time is None else time.monotonic() + limit.time
        deadline = None if timeout is None else time.monotonic() + timeout
        result._set_source(self._hint_lines(result, stop_at, deadline), self._stop_hint(result))
        self._analysis = result
        return result

    def _stop_hint(self, result: "AnalysisResult") -> Callable[[], None]:
        def stop() -> None:
            if result._stop_ping is None and not result._done:
                self._ping_number += 1
                result._stop_ping = self._ping_number
                self._process.send(f"ping {result._stop_ping}")

        return stop

    def _hint_lines(self, result: "AnalysisResult", stop_at: Optional[float], deadline: Optional[float]) -> Iterator[Info]:
        started = False
        ended = False
        group_depth: Optional[str] = None
        rank = 0
        book_rank = 0
        while True:
            wait_until: Optional[float]
            if result._stop_ping is not None:
                wait_until = time.monotonic() + self.timeout if result._stop_deadline is None else result._stop_deadline
                result._stop_deadline = wait_until
            elif stop_at is not None:
                wait_until = stop_at if deadline is None else min(stop_at, deadline)
            else:
                wait_until = deadline
            line = self._process.get(wait_until, "analysis output")
            if line is None:
                if result._stop_ping is None and stop_at is not None and time.monotonic() >= stop_at:
                    result.stop()
                    continue
                raise EngineTimeoutError(f"engine {self.name}: the analysis did not end in time")
            if self._note(line):
                continue
            words = line.split()
            if not words:
                continue
            head = words[0]
            if head == "pong":
                if result._stop_ping is not None and words[1:] == [str(result._stop_ping)]:
                    return
                continue
            if ended:
                continue  # waiting for the stop's pong only
            if head in ("search", "book"):
                info = self._parse_info(line)
                if info.book:
                    book_rank += 1
                    info.multipv = book_rank
                else:
                    if info.depth != group_depth:
                        group_depth = info.depth
                        rank = 0
                    rank += 1
                    info.multipv = rank
                result._add(info)
                yield info
            elif head == "nodestats":
                if len(words) >= 3 and words[1].isdigit():
                    result.nodes = int(words[1])
                    result.time = _number(words[2])
                else:
                    raise EngineError(f"engine {self.name}: malformed line: {line!r}")
                yield Info(
                    pv=[], kind="nodestats", depth=group_depth, nodes=result.nodes, time=result.time, string=line
                )
            elif head == "status":
                text = line.split(None, 1)[1].strip() if len(words) > 1 else ""
                if text == "game over" or (text == "" and (started or result.lines)):
                    ended = True
                elif text:
                    started = True
                if ended:
                    if result._stop_ping is None:
                        return
                    # A stop crossed the end: its pong is still to come.


class AnalysisResult(Iterator[Info]):
    """A running analysis: iterate over it for each :class:`Info` as the engine sends it.

    The iteration ends when the analysis does (the engine's closing ``status``, or the
    answer to :meth:`stop`). :meth:`wait` runs it to the end; :attr:`info` and
    :attr:`multipv` then hold the final result. Used as a context manager, leaving the
    block stops the analysis and reads what remains, so the engine is ready for the next
    command (the engine does the same before any new command).
    """

    def __init__(self, engine: Engine, source: Optional[Iterator[Info]] = None) -> None:
        self.engine = engine
        #: Every ``search``, ``book`` (or GTP ``move``) :class:`Info` received so far, in order.
        self.lines: List[Info] = []
        #: The node count and seconds of the engine's ``nodestats``, if any.
        self.nodes: Optional[int] = None
        self.time: Optional[float] = None
        self._source: Iterator[Info] = iter(()) if source is None else source
        self._stop_fn: Callable[[], None] = lambda: None
        self._stop_ping: Optional[int] = None
        self._stop_deadline: Optional[float] = None
        self._done = False
        self._n: Optional[int] = None
        if source is not None:
            # A finished list (GTP): record it at once.
            items = list(source)
            for item in items:
                self._add(item)
            self._source = iter(items)

    def _set_source(self, source: Iterator[Info], stop: Callable[[], None]) -> None:
        self._source = source
        self._stop_fn = stop

    def _add(self, info: Info) -> None:
        if info.kind in ("search", "book", "move"):
            self.lines.append(info)

    def __iter__(self) -> "AnalysisResult":
        return self

    def __next__(self) -> Info:
        if self._done:
            raise StopIteration
        try:
            return next(self._source)
        except StopIteration:
            self._end()
            raise
        except BaseException:
            self._end()
            raise

    def _end(self) -> None:
        self._done = True
        if self.engine._analysis is self:
            self.engine._analysis = None

    def next(self) -> Optional[Info]:
        """The next :class:`Info`, or None when the analysis has ended."""
        try:
            return next(self)
        except StopIteration:
            return None

    def stop(self) -> None:
        """Asks the engine to stop (NBoard: ``ping``); iteration then ends shortly. Safe to
        call from another thread, and more than once."""
        if not self._done:
            self._stop_fn()

    def wait(self) -> "AnalysisResult":
        """Reads everything up to the end of the analysis; returns self."""
        for _ in self:
            pass
        return self

    def _finish(self, timeout: Optional[float] = None) -> None:
        if self._done:
            return
        self.stop()
        if timeout is not None:
            self._stop_deadline = time.monotonic() + timeout
        self.wait()

    @property
    def multipv(self) -> List[Info]:
        """The final lines, best first: the book lines and the last depth's search lines,
        by score."""
        books: Dict[Move, Info] = {}
        last_depth: Optional[str] = None
        group: List[Info] = []
        for info in self.lines:
            if info.book:
                if info.move is not None:
                    books[info.move] = info
                continue
            if info.depth != last_depth:
                last_depth = info.depth
                group = []
            group.append(info)
        merged = list(books.values()) + [i for i in group if i.move not in books]
        merged.sort(key=lambda i: -math.inf if i.score is None or math.isnan(i.score) else i.score, reverse=True)
        return merged if self._n is None else merged[: self._n]

    @property
    def info(self) -> Info:
        """The best line of the final result (an empty :class:`Info` if there was none)."""
        lines = self.multipv
        if not lines:
            return Info(pv=[])
        best = dataclasses.replace(lines[0])
        best.nodes = self.nodes
        best.time = self.time if self.time is not None else best.time
        return best

    def __enter__(self) -> "AnalysisResult":
        return self

    def __exit__(self, *exc: Any) -> None:
        if not self._done and self.engine._process.alive():
            try:
                self._finish(timeout=self.engine.timeout)
            except EngineError:
                if exc[0] is None:
                    raise
