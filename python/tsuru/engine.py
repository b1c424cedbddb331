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

Everything is synchronous. The protocols are spoken by tsuru-core's client, the one
``tsuru match`` uses (:class:`tsuru._native.EngineClient`): it reads the engine's stdout on
a thread of its own, so that every wait has a deadline and the death of the engine is
noticed (:class:`EngineTerminatedError`) within a fraction of a second; this module keeps
the Python-facing API over it.

**Timeouts.** ``timeout`` (given to :meth:`Engine.popen`, 10 s by default) bounds every
wait for a reply that should come promptly (start-up, ``ping``, ``play``, settings). A
search is bounded by ``timeout`` plus the clock of its :class:`Limit` (``time`` or
``game_time``); a search limited only by depth (or by the engine's own settings) has no
deadline unless the call is given ``timeout=``. A dead engine is always noticed.
"""

from __future__ import annotations

import atexit
import dataclasses
import logging
import math
import os
import shlex
import time
import weakref
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Set, Tuple, Union, overload

from ._native import Board, ClientError, EngineClient
from .othello import PASS, Move, Position

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
    (the compiled engine's board) wrapped with its start board and moves, so that the
    engine gets the whole game either way."""
    if isinstance(position, Position):
        return position
    if isinstance(position, Board):
        return Position.from_board(position)
    raise TypeError(f"a Position or a tsuru.Board is wanted, not {type(position).__name__}")


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


# ----- the process ---------------------------------------------------------------------


class _Process:
    """The engine process as the native client runs it, with what error messages need."""

    def __init__(self, client: EngineClient) -> None:
        self.client = client
        self.argv: List[str] = client.argv
        self.pid: int = client.pid
        self.proc = _Proc(client)

    def describe(self) -> str:
        return " ".join(shlex.quote(a) for a in self.argv)

    def send(self, line: str) -> None:
        """Writes one raw line (a newline is added)."""
        self.call(self.client.send, line, what=f"to send {line!r}")

    def alive(self) -> bool:
        return self.client.poll() is None

    def close(self, grace: float) -> None:
        self.client.close(grace)

    def kill(self) -> None:
        self.client.kill()

    def call(self, method: Callable[..., Any], *args: Any, what: str = "an answer", **kwargs: Any) -> Any:
        """Calls the native client, its errors turned into this module's."""
        try:
            return method(*args, **kwargs)
        except ClientError as e:
            raise self.error(e, what) from None

    def error(self, e: ClientError, what: str) -> EngineError:
        kind, detail, code = e.args
        if kind == "terminated":
            msg = f"engine {self.describe()} (pid {self.pid}) terminated"
            msg += f" with exit code {code}" if code is not None else " (closed its stdout)"
            msg += f" while waiting for {what} ({detail})"
            tail = self.client.stderr_tail()
            if tail:
                msg += "; last stderr lines: " + " | ".join(tail)
            return EngineTerminatedError(msg)
        if kind == "timeout":
            return EngineTimeoutError(f"engine {self.describe()}: {detail}")
        return EngineError(f"engine {self.describe()}: {detail}")


class _Proc:
    """``returncode``, ``poll`` and ``wait`` of the engine process, as ``subprocess.Popen``
    has them."""

    def __init__(self, client: EngineClient) -> None:
        self._client = client

    @property
    def returncode(self) -> Optional[int]:
        return self._client.poll()

    def poll(self) -> Optional[int]:
        return self._client.poll()

    def wait(self, timeout: Optional[float] = None) -> Optional[int]:
        deadline = None if timeout is None else time.monotonic() + timeout
        while (code := self._client.poll()) is None:
            if deadline is not None and time.monotonic() >= deadline:
                return None
            time.sleep(0.01)
        return code


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


def _start_string(position: Position) -> str:
    """The 64-character form of the board ``position``'s game started from."""
    return position.start_board_string()


def _moves(position: Position) -> List[Move]:
    return list(position.moves)


def _remaining(deadline: Optional[float]) -> Optional[float]:
    """Seconds from now to a ``time.monotonic()`` deadline (None: none)."""
    return None if deadline is None else max(0.0, deadline - time.monotonic())


# ----- the engine -----------------------------------------------------------------------


class Engine:
    """A running engine. Start one with :meth:`Engine.popen`; use it as a context manager,
    or call :meth:`quit` when done (an engine left over is killed when it is garbage
    collected, or at interpreter exit)."""

    #: ``"gtp"`` or ``"nboard"``.
    protocol: str = ""

    def __init__(self, process: _Process, timeout: float) -> None:
        self._process = process
        self._client = process.client
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
        :class:`EngineTerminatedError` when the engine exits, and ``OSError`` when it cannot
        be started.
        """
        if protocol is not None:
            protocol = protocol.lower()
            if protocol not in ("gtp", "nboard"):
                raise ValueError(f"protocol must be 'gtp', 'nboard' or None, got {protocol!r}")
        argv = _argv(command)
        environment = None if env is None else [(str(k), str(v)) for k, v in env.items()]
        try:
            client = EngineClient(argv, protocol, timeout, None if cwd is None else os.fspath(cwd), environment)
        except ClientError as e:
            kind, detail, _ = e.args
            error = {"timeout": EngineTimeoutError, "terminated": EngineTerminatedError}.get(kind, EngineError)
            raise error(f"engine {' '.join(shlex.quote(a) for a in argv)}: {detail}") from None
        process = _Process(client)
        try:
            if client.protocol == "nboard":
                return NBoardEngine(process, timeout, name=client.nboard_name)
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
        return self._client.poll()

    def _deadline(self, seconds: Optional[float]) -> Optional[float]:
        return None if seconds is None else time.monotonic() + seconds

    def _search_deadline(self, limit: "Limit", timeout: Optional[float]) -> Optional[float]:
        if timeout is not None:
            return time.monotonic() + timeout
        clock = limit.clock
        if clock is None:
            return None
        return time.monotonic() + self.timeout + clock

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

    def _illegal(self, position: Position, command: str, answer: str) -> EngineError:
        return EngineError(
            f"engine {self.name} answered an illegal move to {command!r}: {answer!r} in {position.board_string()}"
        )

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

    @property
    def _explicit_pass(self) -> Optional[bool]:
        """Whether the engine accepts ``play <colour> pass`` (None until a pass was sent)."""
        return self._client.explicit_pass

    def _command(self, command: str, deadline: Optional[float]) -> Tuple[bool, str]:
        ok, text = self._process.call(
            self._client.command, command, _remaining(deadline), what=f"an answer to {command!r}"
        )
        return ok, text

    def command(self, command: str, timeout: Optional[float] = None) -> str:
        """Sends any GTP command and returns its answer's text; raises :class:`EngineError`
        on a ``?`` answer. ``timeout`` defaults to the engine's."""
        self._check_open()
        self._finish_analysis()
        ok, text = self._command(command, self._deadline(self.timeout if timeout is None else timeout))
        if not ok:
            raise EngineError(f"engine {self.name} refused {command!r}: ? {text}")
        return text

    def set_position(self, position: Position, timeout: Optional[float] = None) -> None:
        """Brings the engine's board to ``position`` (standard start only), without asking
        for a move: e.g. before ``command("final_score")``."""
        position = as_position(position)
        self._check_open()
        self._finish_analysis()
        self._sync(position, self.timeout if timeout is None else timeout)

    def _sync(self, position: Position, timeout: Optional[float]) -> None:
        self._process.call(
            self._client.sync, _start_string(position), _moves(position), timeout, what="the game to be set up"
        )

    def play(self, position: Position, limit: Limit = Limit(), *, timeout: Optional[float] = None) -> PlayResult:
        position = as_position(position)
        if self._begin(position):
            return PlayResult(move=PASS, pv=[PASS])
        move, elapsed, text = self._ask_move(position, limit, timeout, "genmove")
        info = Info(pv=[] if move is None else [move], kind="move", string=text)
        return PlayResult(move=move, pv=list(info.pv), elapsed=elapsed, resigned=move is None, infos=[info])

    def _ask_move(
        self, position: Position, limit: Limit, timeout: Optional[float], verb: str
    ) -> Tuple[Optional[Move], float, str]:
        """Brings the engine to ``position``, sets its clock and sends ``verb`` (``genmove``
        or ``reg_genmove``) for the side to move: the move (None when it resigned), the
        seconds it took and its answer."""
        self._sync(position, self.timeout)
        color = int(position.turn)
        self._process.call(
            self._client.set_clock, color, limit.game_time, limit.time, self.timeout, what="the clock to be set"
        )
        command = f"{verb} {position.turn.gtp}"
        start = time.monotonic()
        try:
            move, text = self._client.genmove(verb, color, _remaining(self._search_deadline(limit, timeout)))
        except ClientError as e:
            raise self._process.error(e, f"an answer to {command!r}") from None
        elapsed = time.monotonic() - start
        if move is not None and not position.is_legal(move):
            raise self._illegal(position, command, text.strip())
        return move, elapsed, text

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
        move, elapsed, text = self._ask_move(position, limit, timeout, "reg_genmove" if regular else "genmove")
        if not regular and move is not None:
            self._process.call(self._client.undo, self.timeout, what="an answer to 'undo'")
        info = Info(pv=[] if move is None else [move], kind="move", time=elapsed, string=text)
        return AnalysisResult(self, iter([info]))


# ----- NBoard ---------------------------------------------------------------------------


def _info(line: Tuple[Any, ...]) -> Info:
    """An :class:`Info` from the native client's search line."""
    pv, score, depth, book, games, rank, text = line
    return Info(
        pv=list(pv),
        kind="book" if book else "search",
        score=score,
        depth=depth,
        multipv=rank,
        book=book,
        games=games,
        string=text,
    )


class NBoardEngine(Engine):
    """An engine spoken to in NBoard protocol v2.

    Before each request the game is sent (``set game`` with the whole GGF, or ``move`` when
    exactly one move was added to what was last sent, as the NBoard GUI does), then
    ``set depth`` if it changed, then ``ping n``; lines printed before ``pong n`` belong to
    older requests and are dropped.
    """

    protocol = "nboard"

    def __init__(self, process: _Process, timeout: float, name: Optional[str] = None) -> None:
        super().__init__(process, timeout)
        self.name = name
        if self.name is not None:
            self.id = {"name": self.name}

    def _note_name(self) -> None:
        name = self._client.nboard_name
        if name is not None and name != self.name:
            self.name = name
            self.id = {"name": name}

    def _prepare(self, position: Position, limit: Limit) -> None:
        """Sends the game and settings for ``position`` and waits for the engine to take
        them (``ping``)."""
        depth = limit.depth
        if depth is None and limit.clock is not None:
            depth = 60
        self._process.call(
            self._client.prepare,
            _start_string(position),
            _moves(position),
            depth,
            limit.game_time,
            limit.time,
            self.timeout,
            what="a pong",
        )
        self._note_name()

    def play(self, position: Position, limit: Limit = Limit(), *, timeout: Optional[float] = None) -> PlayResult:
        position = as_position(position)
        if self._begin(position):
            return PlayResult(move=PASS, pv=[PASS])
        self._prepare(position, limit)
        start = time.monotonic()
        move, score, engine_time, lines, nodes = self._process.call(
            self._client.go, _remaining(self._search_deadline(limit, timeout)), what="the answer to 'go' ('=== ...')"
        )
        elapsed = time.monotonic() - start
        self._note_name()
        infos = [_info(line) for line in lines]
        if not position.is_legal(move):
            raise self._illegal(position, "go", f"=== {move}")
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
            move=move, score=score, depth=depth, pv=pv, elapsed=elapsed, engine_time=engine_time, nodes=nodes, infos=infos
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
        self._prepare(position, Limit(depth=limit.depth))
        self._process.call(self._client.hint, n, limit.time, timeout, self.timeout, what="the hint to start")
        result = AnalysisResult(self)
        result._n = n
        result._set_source(self._hint_lines(result), self._stop_hint)
        self._analysis = result
        return result

    def _stop_hint(self, wait: Optional[float] = None) -> None:
        self._process.call(self._client.stop_hint, wait, what="the hint to stop")

    def _hint_lines(self, result: "AnalysisResult") -> Iterator[Info]:
        while True:
            event = self._process.call(self._client.next_hint, what="analysis output")
            if event is None:
                return
            if event[0] == "line":
                info = _info(event[1])
                result._add(info)
                yield info
            else:
                _, nodes, seconds, depth = event
                result.nodes, result.time = nodes, seconds
                yield Info(pv=[], kind="nodestats", depth=depth, nodes=nodes, time=seconds)


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
        self._stop_fn: Callable[[Optional[float]], None] = lambda wait=None: None
        self._done = False
        self._n: Optional[int] = None
        if source is not None:
            # A finished list (GTP): record it at once.
            items = list(source)
            for item in items:
                self._add(item)
            self._source = iter(items)

    def _set_source(self, source: Iterator[Info], stop: Callable[[Optional[float]], None]) -> None:
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
        if not self._done:
            self._stop_fn(timeout)
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
