"""tsuru: the tsuru Othello engine in Python.

In-process, compiled from the engine's own Rust code (:mod:`tsuru._native`):

* :class:`Board`: the engine's board (legal moves, ``push``/``pop`` with exact undo, the
  64-character form, transcripts, perft).
* :func:`search`, :func:`solve`, :class:`Searcher`: the engine's search and exact solver
  (depth, time, game clock or node limits, multi-PV, a :class:`Stop` flag); they run
  without the GIL, so several run at once in threads.
* :func:`evaluate`: the pattern evaluation; :class:`Book`: opening books.
* :func:`review`: a game reviewed as ``tsuru review`` does it (each move's value, best move
  and loss, the error totals, the decisive move): a :class:`Review` of :class:`MoveReview`
  records, which shows its value graph in Jupyter.
* :mod:`tsuru.data`: OBF problem sets and self-play shards as NumPy arrays.
* :mod:`tsuru.engine`: a client that drives any Othello engine over pipes, in GTP or
  NBoard protocol v2, in the manner of python-chess's ``chess.engine``: the Python API over
  the engine's own client (:class:`tsuru._native.EngineClient`, the one ``tsuru match``
  uses).
* :mod:`tsuru.othello`: :class:`Position`, the position engine clients use (``play``/
  ``undo``, passes, history, notation), a thin wrapper of :class:`Board`; :class:`Color`,
  :class:`IllegalMoveError` and the move names.

Moves are ints everywhere: a square ``0..63`` (``a1`` = 0, ``h1`` = 7, ``h8`` = 63) or
:data:`PASS` (64); :func:`move_name` and :func:`parse_move` convert.
"""

from types import ModuleType

from . import othello, svg
from ._native import (
    ENGINE_VERSION,
    Board,
    Book,
    BookMove,
    Decisive,
    Line,
    MoveReview,
    Review,
    Searcher,
    SearchResult,
    Stop,
    evaluate,
    review,
    search,
    solve,
)
from .othello import BLACK, PASS, WHITE, Color, IllegalMoveError, Position, move_name, parse_move

__version__ = "0.1.0"

__all__ = [
    "Board",
    "Book",
    "BookMove",
    "Line",
    "Searcher",
    "SearchResult",
    "Stop",
    "search",
    "solve",
    "evaluate",
    "review",
    "Review",
    "MoveReview",
    "Decisive",
    "ENGINE_VERSION",
    "othello",
    "svg",
    "engine",
    "data",
    "Position",
    "Color",
    "BLACK",
    "WHITE",
    "PASS",
    "IllegalMoveError",
    "parse_move",
    "move_name",
    "__version__",
]


def __getattr__(name: str) -> ModuleType:
    # Lazy: "import tsuru" neither starts threads nor registers atexit (engine), nor
    # imports NumPy (data).
    if name in ("engine", "data"):
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
