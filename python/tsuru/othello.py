"""A small, correct Othello (Reversi) position for scripts and engine clients.

Squares are numbered 0..63: ``a1`` is 0, ``h1`` is 7, ``a2`` is 8 ... ``h8`` is 63, with
row 1 on top (the usual Othello notation, as tsuru, NBoard and GTP for Othello use it).
A move is a square number or :data:`PASS` (64). Bitboards are Python ints with bit *n*
set for square *n*.

The board is kept as two bitboards (Black's and White's discs) plus the side to move;
a :class:`Position` also remembers where its game started and every move (passes
included) played since, so that engine clients can replay the game (GTP ``play``) or
send it whole (NBoard ``set game``).

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
from typing import Iterable, List, Optional, Sequence, Tuple, Union

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

_FULL = (1 << 64) - 1
_INNER_COLUMNS = 0x7E7E7E7E7E7E7E7E  # files b..g: stops horizontal and diagonal wrap-around
_BLACK_START = (1 << 28) | (1 << 35)  # e4, d5
_WHITE_START = (1 << 27) | (1 << 36)  # d4, e5


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


def _legal_bits(p: int, o: int) -> int:
    """The legal moves (a bitboard) of the player with discs ``p`` against ``o``."""
    empty = ~(p | o) & _FULL
    oh = o & _INNER_COLUMNS
    moves = 0
    # East (+1) and west (-1): only inner columns can be flipped horizontally.
    x = oh & (p << 1)
    x |= oh & (x << 1)
    x |= oh & (x << 1)
    x |= oh & (x << 1)
    x |= oh & (x << 1)
    x |= oh & (x << 1)
    moves |= x << 1
    x = oh & (p >> 1)
    x |= oh & (x >> 1)
    x |= oh & (x >> 1)
    x |= oh & (x >> 1)
    x |= oh & (x >> 1)
    x |= oh & (x >> 1)
    moves |= x >> 1
    # South (+8) and north (-8).
    x = o & (p << 8)
    x |= o & (x << 8)
    x |= o & (x << 8)
    x |= o & (x << 8)
    x |= o & (x << 8)
    x |= o & (x << 8)
    moves |= x << 8
    x = o & (p >> 8)
    x |= o & (x >> 8)
    x |= o & (x >> 8)
    x |= o & (x >> 8)
    x |= o & (x >> 8)
    x |= o & (x >> 8)
    moves |= x >> 8
    # Diagonals: +9, -9, +7, -7.
    for s in (9, 7):
        x = oh & (p << s)
        x |= oh & (x << s)
        x |= oh & (x << s)
        x |= oh & (x << s)
        x |= oh & (x << s)
        x |= oh & (x << s)
        moves |= x << s
        x = oh & (p >> s)
        x |= oh & (x >> s)
        x |= oh & (x >> s)
        x |= oh & (x >> s)
        x |= oh & (x >> s)
        x |= oh & (x >> s)
        moves |= x >> s
    return moves & empty


def _build_rays() -> List[List[Tuple[int, ...]]]:
    rays: List[List[Tuple[int, ...]]] = []
    for sq in range(64):
        r, c = divmod(sq, 8)
        mine: List[Tuple[int, ...]] = []
        for dr, dc in ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)):
            ray = []
            rr, cc = r + dr, c + dc
            while 0 <= rr < 8 and 0 <= cc < 8:
                ray.append(1 << (rr * 8 + cc))
                rr += dr
                cc += dc
            if len(ray) >= 2:
                mine.append(tuple(ray))
        rays.append(mine)
    return rays


_RAYS = _build_rays()


def _flips(sq: int, p: int, o: int) -> int:
    """The discs of ``o`` that a disc of ``p`` placed on ``sq`` flips (0 if none)."""
    flips = 0
    for ray in _RAYS[sq]:
        f = 0
        for b in ray:
            if o & b:
                f |= b
            elif p & b:
                flips |= f
                break
            else:
                break
    return flips


def _squares(bits: int) -> List[int]:
    """The set squares of a bitboard, in ascending order."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


_BLACK_CHARS = "Xx*"
_WHITE_CHARS = "Oo0"
_EMPTY_CHARS = "-._"


def _parse_board(text: str) -> Tuple[int, int, Color]:
    """Parses 64 squares (a1..h1, a2..h8) and a side to move; whitespace is ignored."""
    chars = [ch for ch in text if not ch.isspace()]
    if len(chars) != 65:
        raise ValueError(
            f"a board string needs 64 squares and a side to move, got {len(chars)} characters: {text!r}"
        )
    black = white = 0
    for i, ch in enumerate(chars[:64]):
        if ch in _BLACK_CHARS:
            black |= 1 << i
        elif ch in _WHITE_CHARS:
            white |= 1 << i
        elif ch not in _EMPTY_CHARS:
            raise ValueError(f"bad square {ch!r} at {move_name(i)} in board string {text!r}")
    side = chars[64]
    if side in _BLACK_CHARS:
        turn = Color.BLACK
    elif side in _WHITE_CHARS:
        turn = Color.WHITE
    else:
        raise ValueError(f"bad side to move {side!r} in board string {text!r}")
    return black, white, turn


def _format_board(black: int, white: int, turn: Color, black_char: str = "X", sep: str = " ") -> str:
    cells = []
    for i in range(64):
        b = 1 << i
        cells.append(black_char if black & b else "O" if white & b else "-")
    return "".join(cells) + sep + (black_char if turn is Color.BLACK else "O")


class Position:
    """An Othello position with the game that led to it.

    ``Position()`` is the standard start (Black to move); ``Position(board)`` starts from a
    board string such as ``"---...OX------XO---... X"`` (see :meth:`from_board_string`).
    :meth:`play` and :meth:`undo` walk the game; :attr:`moves` lists it, passes included,
    from :attr:`start_board_string`.
    """

    __slots__ = ("black", "white", "turn", "_start", "_stack")

    black: int
    """Black's discs (a bitboard)."""
    white: int
    """White's discs (a bitboard)."""
    turn: Color
    """The side to move."""

    def __init__(self, board: Optional[str] = None) -> None:
        if board is None:
            black, white, turn = _BLACK_START, _WHITE_START, Color.BLACK
        else:
            black, white, turn = _parse_board(board)
        self.black = black
        self.white = white
        self.turn = turn
        self._start: Tuple[int, int, Color] = (black, white, turn)
        # One entry per move played: (move, black before, white before, turn before).
        self._stack: List[Tuple[Move, int, int, Color]] = []

    # ----- construction ---------------------------------------------------------------

    @classmethod
    def from_board_string(cls, text: str) -> "Position":
        """A position from 64 squares (``a1`` across to ``h1``, then ``a2`` ... ``h8``) and the
        side to move, as tsuru's ``--board`` and OBF files write it.

        Black is ``X``, ``x`` or ``*``; White ``O``, ``o`` or ``0``; empty ``-``, ``.`` or
        ``_``; whitespace is ignored. An OBF line's ``;`` and what follows are ignored.
        """
        return cls(text.split(";", 1)[0])

    @classmethod
    def from_bitboards(cls, black: int, white: int, turn: Color = Color.BLACK) -> "Position":
        """A position from two bitboards and the side to move (no history)."""
        if black & white or (black | white) >> 64:
            raise ValueError("bitboards overlap or exceed 64 squares")
        pos = cls()
        pos.black, pos.white, pos.turn = black, white, Color(turn)
        pos._start = (black, white, Color(turn))
        return pos

    @classmethod
    def from_transcript(cls, transcript: str, start: Optional[str] = None) -> "Position":
        """Plays a transcript such as ``"f5d6c3"`` or ``"f5 d6 pass c3"`` from ``start``
        (a board string; the standard start by default).

        Moves run together or are separated by spaces or commas, in any case. Passes may be
        written ``pass``, ``pa`` or ``--``, or left out: a pass is inserted where the side to
        move has no legal move. Raises :class:`IllegalMoveError` on an illegal move.
        """
        pos = cls(start)
        for token in re.findall(r"(?i)pass|pa|--|[a-h][1-8]|\S", transcript.replace(",", " ")):
            move = parse_move(token) if len(token) > 1 else None
            if move is None:
                raise IllegalMoveError(f"bad transcript token {token!r} in {transcript!r}")
            if move != PASS and pos.must_pass():
                pos.play(PASS)
            pos.play(move)
        return pos

    def copy(self, stack: bool = True) -> "Position":
        """A copy; with ``stack=False`` the copy starts at the current position, with no moves."""
        pos = Position.__new__(Position)
        pos.black, pos.white, pos.turn = self.black, self.white, self.turn
        if stack:
            pos._start = self._start
            pos._stack = list(self._stack)
        else:
            pos._start = (self.black, self.white, self.turn)
            pos._stack = []
        return pos

    def root(self) -> "Position":
        """The start position of this game (a new object, no moves)."""
        black, white, turn = self._start
        return Position.from_bitboards(black, white, turn)

    # ----- the board -------------------------------------------------------------------

    @property
    def player(self) -> int:
        """The side to move's discs."""
        return self.black if self.turn is Color.BLACK else self.white

    @property
    def opponent(self) -> int:
        """The discs of the side not to move."""
        return self.white if self.turn is Color.BLACK else self.black

    def piece_at(self, sq: int) -> Optional[Color]:
        """The colour of the disc on a square, or ``None`` if it is empty."""
        b = 1 << sq
        if self.black & b:
            return Color.BLACK
        if self.white & b:
            return Color.WHITE
        return None

    def disc_count(self) -> Tuple[int, int]:
        """``(black discs, white discs)``."""
        return popcount(self.black), popcount(self.white)

    def empty_count(self) -> int:
        """The number of empty squares."""
        return 64 - popcount(self.black | self.white)

    def board_string(self, sep: str = " ") -> str:
        """The 64-character form plus the side to move (``X`` Black, ``O`` White), e.g.
        ``---------------------------OX------XO--------------------------- X``."""
        return _format_board(self.black, self.white, self.turn, "X", sep)

    def start_board_string(self, sep: str = " ") -> str:
        """:meth:`board_string` of the position the game started from."""
        black, white, turn = self._start
        return _format_board(black, white, turn, "X", sep)

    def is_standard_start(self) -> bool:
        """Whether the game started from the standard start position with Black to move."""
        return self._start == (_BLACK_START, _WHITE_START, Color.BLACK)

    # ----- moves -----------------------------------------------------------------------

    def legal_bitboard(self) -> int:
        """The side to move's legal squares as a bitboard (0 if it must pass or the game is over)."""
        return _legal_bits(self.player, self.opponent)

    def legal_moves(self) -> List[Move]:
        """The legal moves in ascending square order; ``[PASS]`` when the side to move must
        pass; ``[]`` when the game is over."""
        bits = self.legal_bitboard()
        if bits:
            return _squares(bits)
        if _legal_bits(self.opponent, self.player):
            return [PASS]
        return []

    def is_legal(self, move: Move) -> bool:
        """Whether a move (square or :data:`PASS`) is legal here."""
        if move == PASS:
            return self.must_pass()
        return 0 <= move < 64 and bool(self.legal_bitboard() >> move & 1)

    def must_pass(self) -> bool:
        """The side to move has no legal move but the opponent has one."""
        return not self.legal_bitboard() and bool(_legal_bits(self.opponent, self.player))

    def is_game_over(self) -> bool:
        """Neither side has a legal move."""
        return not self.legal_bitboard() and not _legal_bits(self.opponent, self.player)

    def flips(self, move: Move) -> int:
        """The discs a move would flip (a bitboard; 0 for a pass or an illegal square)."""
        if move == PASS:
            return 0
        if (self.black | self.white) >> move & 1:
            return 0
        return _flips(move, self.player, self.opponent)

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
        p, o = self.player, self.opponent
        if move == PASS:
            if _legal_bits(p, o) or not _legal_bits(o, p):
                raise IllegalMoveError(f"pass is not legal here: {self.board_string()}")
            self._stack.append((PASS, self.black, self.white, self.turn))
            self.turn = self.turn.opponent
            return
        if not isinstance(move, int) or not 0 <= move < 64 or (p | o) >> move & 1:
            raise IllegalMoveError(f"illegal move {move!r} in {self.board_string()}")
        f = _flips(move, p, o)
        if not f:
            raise IllegalMoveError(f"illegal move {move_name(move)} in {self.board_string()}")
        self._stack.append((move, self.black, self.white, self.turn))
        p |= f | (1 << move)
        o &= ~f
        if self.turn is Color.BLACK:
            self.black, self.white = p, o
        else:
            self.white, self.black = p, o
        self.turn = self.turn.opponent

    push = play

    def undo(self) -> Move:
        """Takes back the last move (or pass) and returns it; ``IndexError`` at the start."""
        if not self._stack:
            raise IndexError("no move to undo")
        move, self.black, self.white, self.turn = self._stack.pop()
        return move

    pop = undo

    @property
    def moves(self) -> Tuple[Move, ...]:
        """Every move played from the start position, passes included."""
        return tuple(entry[0] for entry in self._stack)

    @property
    def ply(self) -> int:
        """The number of moves (passes included) played from the start position."""
        return len(self._stack)

    def history(self) -> List[Tuple[Color, Move]]:
        """``(mover, move)`` for every move from the start position."""
        return [(entry[3], entry[0]) for entry in self._stack]

    def transcript(self, passes: bool = True) -> str:
        """The moves run together (``f5d6c3``); passes written ``pa`` (left out with
        ``passes=False``, which :meth:`from_transcript` reinserts)."""
        return "".join(
            ("pa" if passes else "") if m == PASS else move_name(m) for m in self.moves
        )

    # ----- scoring ---------------------------------------------------------------------

    def final_score(self) -> int:
        """Black's discs minus White's with the empty squares given to the side ahead (the
        usual Othello scoring; meaningful when the game is over)."""
        b, w = self.disc_count()
        empties = 64 - b - w
        if b > w:
            b += empties
        elif w > b:
            w += empties
        return b - w

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
        return _perft(self.player, self.opponent, depth)

    # ----- comparisons and display -----------------------------------------------------

    def same_board(self, other: "Position") -> bool:
        """Same discs and side to move (histories may differ)."""
        return (self.black, self.white, self.turn) == (other.black, other.white, other.turn)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return (
            self.same_board(other)
            and self._start == other._start
            and self._stack == other._stack
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

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


def _perft(p: int, o: int, depth: int) -> int:
    if depth == 0:
        return 1
    bits = _legal_bits(p, o)
    if not bits:
        if not _legal_bits(o, p):
            return 1
        if depth == 1:
            return 1
        return _perft(o, p, depth - 1)
    if depth == 1:
        return popcount(bits)
    total = 0
    while bits:
        low = bits & -bits
        bits ^= low
        f = _flips(low.bit_length() - 1, p, o)
        total += _perft(o & ~f, p | f | low, depth - 1)
    return total


def moves_from_names(names: Iterable[str]) -> List[Move]:
    """Parses a sequence of move names."""
    return [parse_move(n) for n in names]


def names(moves: Sequence[Move], upper: bool = False) -> List[str]:
    """The names of a sequence of moves."""
    return [move_name(m, upper) for m in moves]
