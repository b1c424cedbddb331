"""The project's data files as Python objects and NumPy arrays.

* :func:`read_obf`: an OBF problem set (Edax's format, as the FFO and hard-20/25 sets come)
  as a list of :class:`ObfPosition` (a :class:`tsuru.Board` and each listed move's exact
  score).
* :func:`read_selfplay`: a self-play shard (``tsuru datagen``'s text, gzipped or not) as its
  header and :class:`Game` records, every game replayed and checked.
* :func:`selfplay_positions`: the labelled positions of self-play shards as NumPy arrays,
  the form a trainer reads.

Example::

    >>> from tsuru.data import selfplay_positions
    >>> data = selfplay_positions("data/selfplay-48/selfplay-48-1.txt.gz")  # doctest: +SKIP
    >>> data["player"].dtype, data["result"][:3]                             # doctest: +SKIP
    (dtype('uint64'), array([ 4,  4, -4], dtype=int8))
"""

from __future__ import annotations

import gzip
import os
from typing import Dict, Iterable, List, NamedTuple, Optional, Tuple, Union

from . import _native
from ._native import Board

__all__ = ["ObfPosition", "Game", "read_obf", "read_selfplay", "selfplay_positions", "COLUMNS", "NO_SCORE"]

PathLike = Union[str, "os.PathLike[str]"]

#: The columns of :func:`selfplay_positions` and their NumPy types.
COLUMNS: Dict[str, str] = {
    "player": "<u8",  # the side to move's discs (bit n: square n)
    "opponent": "<u8",  # the other side's discs
    "empties": "u1",  # empty squares
    "result": "i1",  # the game's final disc difference for the side to move
    "move": "u1",  # the move played (0..63)
    "exact": "u1",  # 1 where the result was proven from this position on
    "game": "<u4",  # the game's number in the file (0 = first)
    "score": "i1",  # the players' search score for the side to move (v3, v4 files), else -128
}

#: The ``score`` column's value where a position has no search score (v1 and v2 files, the
#: solved end of a game).
NO_SCORE = -128


class ObfPosition(NamedTuple):
    """One position of an OBF file."""

    board: Board
    #: ``[(move, exact score), ...]`` as the file lists them (best first).
    scores: List[Tuple[int, int]]
    comment: Optional[str]

    @property
    def best_score(self) -> Optional[int]:
        """The best listed score, if any."""
        return max((score for _, score in self.scores), default=None)


class Game(NamedTuple):
    """One self-play game."""

    index: int  # the game's index in its run
    random_moves: int  # leading moves (passes included) that were random
    solve_empties: int  # empties when the exact solver took over (0: none)
    black_result: int  # Black's final disc difference
    moves: bytes  # every move from the start, passes (64) included


def _read_text(path: PathLike) -> str:
    opener = gzip.open if os.fspath(path).endswith(".gz") else open
    with opener(path, "rt", encoding="ascii") as stream:  # type: ignore[operator]
        return stream.read()


def read_obf(path: PathLike) -> List[ObfPosition]:
    """The positions of an OBF file (``ValueError`` on a malformed line)."""
    return [ObfPosition(*position) for position in _native.parse_obf(_read_text(path))]


def read_selfplay(path: PathLike) -> Tuple[str, List[Game]]:
    """A self-play file's header line and games (``ValueError`` if damaged)."""
    header, games = _native.parse_selfplay(_read_text(path))
    return header, [Game(*game) for game in games]


def selfplay_positions(paths: Union[PathLike, Iterable[PathLike]]) -> "Dict[str, object]":
    """The labelled positions of one or several self-play files as NumPy arrays, one row a
    position where the side to move has a move, from the first move after the random
    opening to the end (columns: :data:`COLUMNS`; ``game`` counts on across files)."""
    import numpy as np

    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    parts: List[Dict[str, "np.ndarray"]] = []
    games = 0
    for path in paths:
        count, raw_columns = _native.selfplay_columns(_read_text(path))
        columns = {name: np.frombuffer(raw, dtype=COLUMNS[name]) for name, raw in raw_columns}
        columns["game"] = columns["game"] + np.uint32(games)
        games += count
        parts.append(columns)
    if not parts:
        return {name: np.zeros(0, dtype=dtype) for name, dtype in COLUMNS.items()}
    return {name: np.concatenate([part[name] for part in parts]) for name in COLUMNS}
