"""An Othello (Reversi) position for scripts and engine clients, over the engine's board.

Squares are numbered 0..63: ``a1`` is 0, ``h1`` is 7, ``a2`` is 8 ... ``h8`` is 63, with
row 1 on top (the usual Othello notation, as tsuru, NBoard and GTP for Othello use it).
A move is a square number or :data:`PASS` (64). Bitboards are Python ints with bit *n*
set for square *n*.

A :class:`Position` is a thin wrapper of :class:`tsuru.Board`, the engine's own board
(tsuru_core's, compiled): move generation, flips, passes, undo and perft are the engine's.
This module adds the Python-side vocabulary (:class:`Color`, :class:`IllegalMoveError`, move
names) and the :class:`Position` API that engine clients use: a position remembers where
its game started and every move (passes included) played since, so that a client can
replay the game (GTP ``play``) or send it whole (NBoard ``set game``).

Example::

    >>> from tsuru.othello import Position
    >>> pos = Position()
    >>> [move_name(m) for m in pos.legal_moves()]
    ['d3', 'c4', 'f5', 'e6']
    >>> pos.play("f5")
    >>> pos.board_string()
    '---------------------------OX------XXX-------------------------- O'
"""

from __future__ import annotations

import enum
import re
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from ._native import Board as _Board

__all__ = [
    "Color",
    "BLACK",
    "WHITE",
    "PASS",
    "Move",
    "IllegalMoveError",
    "Position",
    "START_BOARD",
    "parse_move",
    "move_name",
    "square",
    "popcount",
    "nboard_move_name",
]

#: A move: a square number 0..63 (``a1`` = 0, ``h8`` = 63) or :data:`PASS`.
Move = int

#: The pass move.
PASS: Move = 64

#: The standard start position in the 64-character form, Black to move.
START_BOARD = "---------------------------OX------XO--------------------------- X"


class Color(enum.IntEnum):
    """A side: ``Color.BLACK`` (moves first in the standard game) or ``Color.WHITE``."""

    BLACK = 0
    WHITE = 1

    @property
    def opponent(self) -> "Color":
        """The other colour."""
        return Color.WHITE if self is Color.BLACK else Color.BLACK

    @property
    def char(self) -> str:
        """``X`` for Black, ``O`` for White (the board-string letters)."""
        return "X" if self is Color.BLACK else "O"

    @property
    def gtp(self) -> str:
        """``b`` or ``w``, as GTP commands take it."""
        return "b" if self is Color.BLACK else "w"


BLACK = Color.BLACK
WHITE = Color.WHITE


class IllegalMoveError(ValueError):
    """A move that is not legal in the position it was played in (or not a move at all)."""


def popcount(bits: int) -> int:
    """The number of set bits of a bitboard."""
    return bin(bits).count("1")


def square(name: str) -> int:
    """The square number of a name such as ``f5`` or ``F5`` (no pass); ``ValueError`` if bad."""
    move = parse_move(name)
    if move == PASS:
        raise ValueError(f"not a square: {name!r}")
    return move


_MOVE_RE = re.compile(r"^([a-hA-H])([1-8])$")


def parse_move(text: str) -> Move:
    """Parses a move: a square (``f5``, ``F5``) or a pass (``pass``, ``PA``, ``pa``, ``--``).

    Leading and trailing whitespace is ignored. Raises ``ValueError`` for anything else.
    """
    t = text.strip()
    if t.lower() in ("pass", "pa", "--"):
        return PASS
    m = _MOVE_RE.match(t)
    if not m:
        raise ValueError(f"not a move: {text!r}")
    return (int(m.group(2)) - 1) * 8 + (ord(m.group(1).lower()) - ord("a"))


def move_name(move: Move, upper: bool = False) -> str:
    """The name of a move: ``f5`` (``F5`` with ``upper``) or ``pass``.

    For NBoard's spelling of a pass (``PA``) use :func:`nboard_move_name`.
    """
    if move == PASS:
        return "pass"
    if not 0 <= move < 64:
        raise ValueError(f"not a move: {move!r}")
    name = "abcdefgh"[move % 8] + str(move // 8 + 1)
    return name.upper() if upper else name


def nboard_move_name(move: Move) -> str:
    """The name of a move as NBoard and GGF write it: ``F5`` or ``PA``."""
    return "PA" if move == PASS else move_name(move, upper=True)


def _native_board(text: str) -> _Board:
    """The engine's board of a board string, which must be 64 squares and a side to move
    and nothing more (the engine's parser ignores what follows the side)."""
    length = sum(not ch.isspace() for ch in text)
    if length != 65:
        raise ValueError(
            f"a board string needs 64 squares and a side to move, got {length} characters: {text!r}"
        )
    return _Board(text)


class Position:
    """An Othello position with the game that led to it: a :class:`tsuru.Board` underneath.

    ``Position()`` is the standard start (Black to move); ``Position(board)`` starts from a
    board string such as ``"---...OX------XO---... X"`` (see :meth:`from_board_string`).
    :meth:`play` and :meth:`undo` walk the game; :attr:`moves` lists it, passes included,
    from :attr:`start_board_string`. :meth:`from_board` and :meth:`to_board` convert from
    and to the engine's board (for :func:`tsuru.search` and the like).
    """

    __slots__ = ("_board",)

    _board: _Board

    def __init__(self, board: Optional[str] = None) -> None:
        self._board = _Board() if board is None else _native_board(board)

    # ----- construction ---------------------------------------------------------------

    @classmethod
    def _wrap(cls, board: _Board) -> "Position":
        pos = cls.__new__(cls)
        pos._board = board
        return pos

    @classmethod
    def from_board(cls, board: _Board) -> "Position":
        """A position over a copy of a :class:`tsuru.Board`, its start board and moves
        included."""
        return cls._wrap(board.copy())

    def to_board(self) -> _Board:
        """A copy of the :class:`tsuru.Board` underneath (its start board and moves included)."""
        return self._board.copy()

    @classmethod
    def from_board_string(cls, text: str) -> "Position":
        """A position from 64 squares (``a1`` across to ``h1``, then ``a2`` ... ``h8``) and the
        side to move, as tsuru's ``--board`` and OBF files write it.

        Black is ``X``, ``x`` or ``*``; White ``O``, ``o`` or ``0``; empty ``-``, ``.`` or
        ``_``; the side to move may also be ``B`` or ``W``; whitespace is ignored. An OBF
        line's ``;`` and what follows are ignored.
        """
        return cls(text.split(";", 1)[0])

    @classmethod
    def from_bitboards(cls, black: int, white: int, turn: Color = Color.BLACK) -> "Position":
        """A position from two bitboards and the side to move (no history)."""
        if black < 0 or white < 0 or (black | white) >> 64:
            raise ValueError("bitboards exceed 64 squares")
        return cls._wrap(_Board.from_bitboards(black, white, turn))

    @classmethod
    def from_transcript(cls, transcript: str, start: Optional[str] = None) -> "Position":
        """Plays a transcript such as ``"f5d6c3"`` or ``"f5 d6 pass c3"`` from ``start``
        (a board string; the standard start by default).

        Moves run together or are separated by spaces or commas, in any case. Passes may be
        written ``pass``, ``pa`` or ``--``, or left out: a pass is inserted where the side to
        move has no legal move. Raises :class:`IllegalMoveError` on an illegal move.
        """
        tokens = re.findall(r"(?i)pass|pa|--|[a-h][1-8]|\S", transcript.replace(",", " "))
        for token in tokens:
            if len(token) == 1:
                raise IllegalMoveError(f"bad transcript token {token!r} in {transcript!r}")
        pos = cls(start)
        # The engine's transcript reader takes two characters a move and inserts the passes.
        pos._board.push_moves("".join("pa" if parse_move(t) == PASS else t for t in tokens))
        return pos

    def copy(self, stack: bool = True) -> "Position":
        """A copy; with ``stack=False`` the copy starts at the current position, with no moves."""
        return Position._wrap(self._board.copy() if stack else self._board.without_history())

    def root(self) -> "Position":
        """The start position of this game (a new object, no moves)."""
        return Position._wrap(self._board.start())

    # ----- the board -------------------------------------------------------------------

    @property
    def black(self) -> int:
        """Black's discs (a bitboard)."""
        return self._board.black

    @property
    def white(self) -> int:
        """White's discs (a bitboard)."""
        return self._board.white

    @property
    def turn(self) -> Color:
        """The side to move."""
        return self._board.turn

    @property
    def player(self) -> int:
        """The side to move's discs."""
        return self._board.black if self.turn is Color.BLACK else self._board.white

    @property
    def opponent(self) -> int:
        """The discs of the side not to move."""
        return self._board.white if self.turn is Color.BLACK else self._board.black

    def piece_at(self, sq: int) -> Optional[Color]:
        """The colour of the disc on a square, or ``None`` if it is empty."""
        if self._board.black >> sq & 1:
            return Color.BLACK
        if self._board.white >> sq & 1:
            return Color.WHITE
        return None

    def disc_count(self) -> Tuple[int, int]:
        """``(black discs, white discs)``."""
        return self._board.disc_count()

    def empty_count(self) -> int:
        """The number of empty squares."""
        return self._board.empties

    def board_string(self, sep: str = " ") -> str:
        """The 64-character form plus the side to move (``X`` Black, ``O`` White), e.g.
        ``---------------------------OX------XO--------------------------- X``."""
        return self._board.board_string().replace(" ", sep)

    def start_board_string(self, sep: str = " ") -> str:
        """:meth:`board_string` of the position the game started from."""
        return self._board.start_board_string().replace(" ", sep)

    def is_standard_start(self) -> bool:
        """Whether the game started from the standard start position with Black to move."""
        return self._board.start_board_string() == START_BOARD

    # ----- moves -----------------------------------------------------------------------

    def legal_bitboard(self) -> int:
        """The side to move's legal squares as a bitboard (0 if it must pass or the game is over)."""
        return self._board.legal_mask()

    def legal_moves(self) -> List[Move]:
        """The legal moves in ascending square order; ``[PASS]`` when the side to move must
        pass; ``[]`` when the game is over."""
        return self._board.legal_moves()

    def is_legal(self, move: Move) -> bool:
        """Whether a move (square or :data:`PASS`) is legal here."""
        return self._board.is_legal(move)

    def must_pass(self) -> bool:
        """The side to move has no legal move but the opponent has one."""
        return self._board.must_pass()

    def is_game_over(self) -> bool:
        """Neither side has a legal move."""
        return self._board.is_game_over()

    def flips(self, move: Move) -> int:
        """The discs a move would flip (a bitboard; 0 for a pass or an illegal square)."""
        return self._board.flips(move)

    def play(self, move: Union[Move, str]) -> None:
        """Plays a move (a square number, :data:`PASS`, or a name such as ``"f5"``).

        A pass is legal only when the side to move has no move and the opponent has one.
        Raises :class:`IllegalMoveError` otherwise and leaves the position unchanged.
        """
        if isinstance(move, str):
            try:
                move = parse_move(move)
            except ValueError as e:
                raise IllegalMoveError(str(e)) from None
        elif not isinstance(move, int):
            raise IllegalMoveError(f"not a move: {move!r}")
        self._board.push(move)

    push = play

    def undo(self) -> Move:
        """Takes back the last move (or pass) and returns it; ``IndexError`` at the start."""
        return self._board.pop()

    pop = undo

    @property
    def moves(self) -> Tuple[Move, ...]:
        """Every move played from the start position, passes included."""
        return tuple(self._board.moves)

    @property
    def ply(self) -> int:
        """The number of moves (passes included) played from the start position."""
        return self._board.ply

    def history(self) -> List[Tuple[Color, Move]]:
        """``(mover, move)`` for every move from the start position."""
        return self._board.history()

    def transcript(self, passes: bool = True) -> str:
        """The moves run together (``f5d6c3``); passes written ``pa`` (left out with
        ``passes=False``, which :meth:`from_transcript` reinserts)."""
        return self._board.transcript(passes=passes)

    # ----- scoring ---------------------------------------------------------------------

    def final_score(self) -> int:
        """Black's discs minus White's with the empty squares given to the side ahead (the
        usual Othello scoring; meaningful when the game is over)."""
        return self._board.final_score()

    def winner(self) -> Optional[Color]:
        """The side ahead on discs (the winner once the game is over), ``None`` for a tie."""
        s = self.final_score()
        return Color.BLACK if s > 0 else Color.WHITE if s < 0 else None

    # ----- perft -----------------------------------------------------------------------

    def perft(self, depth: int) -> int:
        """Leaves of the game tree ``depth`` plies below this position.

        A forced pass counts as a ply and a game that ends earlier counts as one leaf (the
        convention of OEIS A124004 and of ``tsuru perft``): from the start, depths 1..7 give
        4, 12, 56, 244, 1396, 8200, 55092.
        """
        return self._board.perft(depth)

    # ----- comparisons, copies and display ---------------------------------------------

    def same_board(self, other: "Position") -> bool:
        """Same discs and side to move (histories may differ)."""
        return self._board == other._board

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return (
            self._board == other._board
            and self._board.moves == other._board.moves
            and self._board.start_board_string() == other._board.start_board_string()
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __copy__(self) -> "Position":
        return self.copy()

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Position":
        return self.copy()

    def __reduce__(self) -> Tuple[Any, ...]:
        return (_replay, (self._board.start_board_string(), self.moves))

    def __repr__(self) -> str:
        if self.is_standard_start():
            return f"Position.from_transcript({self.transcript()!r})"
        return f"Position.from_transcript({self.transcript()!r}, start={self.start_board_string()!r})"

    def __str__(self) -> str:
        lines = ["  a b c d e f g h"]
        for r in range(8):
            row = []
            for c in range(8):
                piece = self.piece_at(r * 8 + c)
                row.append("X" if piece is Color.BLACK else "O" if piece is Color.WHITE else ".")
            lines.append(f"{r + 1} " + " ".join(row))
        b, w = self.disc_count()
        if self.is_game_over():
            lines.append(f"game over, X {b} O {w}")
        else:
            lines.append(f"{self.turn.char} to move, X {b} O {w}")
        return "\n".join(lines)


def _replay(start: str, moves: Sequence[Move]) -> Position:
    """A position from its start board and moves (how a :class:`Position` is unpickled)."""
    pos = Position(start)
    for move in moves:
        pos.play(move)
    return pos


def moves_from_names(names: Iterable[str]) -> List[Move]:
    """Parses a sequence of move names."""
    return [parse_move(n) for n in names]


def names(moves: Sequence[Move], upper: bool = False) -> List[str]:
    """The names of a sequence of moves."""
    return [move_name(m, upper) for m in moves]
