"""tsuru: Python tools for the tsuru Othello engine.

* :mod:`tsuru.othello`: an Othello position (bitboards, legal moves, passes, the
  64-character board form, perft).
* :mod:`tsuru.engine`: a client that drives any Othello engine over pipes, in GTP or
  NBoard protocol v2, in the manner of python-chess's ``chess.engine``.

Pure Python for now; a compiled extension module may later join this package.
"""

from types import ModuleType

from . import othello
from .othello import BLACK, PASS, WHITE, Color, IllegalMoveError, Position, move_name, parse_move

__version__ = "0.1.0"

__all__ = [
    "othello",
    "engine",
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


def __getattr__(name: str) -> ModuleType:  # lazy: "import tsuru" does not start threads or register atexit
    if name == "engine":
        import importlib

        return importlib.import_module(".engine", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
