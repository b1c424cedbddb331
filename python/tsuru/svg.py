"""Boards as SVG pictures, as python-chess draws chess boards: :func:`board` returns the
picture of a :class:`tsuru.Board` (or a :class:`tsuru.othello.Position`) as SVG text, with
moves marked (the legal ones, or suggested ones with a label each) and the last move
ringed. ``tsuru.Board`` shows itself this way in Jupyter (``Board._repr_svg_``).

Example::

    >>> import tsuru
    >>> b = tsuru.Board(moves="f5d6")
    >>> picture = tsuru.svg.board(b, moves=b.legal_moves(), last=tsuru.parse_move("d6"))
    >>> picture.startswith("<svg") and picture.count('class="disc') == 6
    True
"""

from __future__ import annotations

from typing import Iterable, Mapping, Optional, Union

__all__ = ["board"]

#: Pixels a square.
SQUARE = 40
#: The margin for the coordinates.
MARGIN = 20


def _xy(square: int) -> tuple:
    """The centre of ``square`` (a1 = 0 top left, as boards are printed)."""
    column, row = square % 8, square // 8
    return MARGIN + column * SQUARE + SQUARE // 2, MARGIN + row * SQUARE + SQUARE // 2


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def board(
    position,
    moves: Optional[Union[Iterable[int], Mapping[int, str]]] = None,
    last: Optional[int] = None,
    size: Optional[int] = None,
) -> str:
    """The SVG picture of ``position`` (anything with ``black`` and ``white`` bitboards, such
    as :class:`tsuru.Board`): a green board with its discs and the coordinates. ``moves``
    marks squares: a list of squares gets a dot each (the legal moves, say), a mapping of
    square to text a label each (a suggested move's score). ``last`` rings the disc of the
    last move. ``size`` scales the picture to that many pixels wide."""
    width = 2 * MARGIN + 8 * SQUARE
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {width}"'
        + (f' width="{size}" height="{size}"' if size else "")
        + ">",
        f'<rect x="0" y="0" width="{width}" height="{width}" fill="#f4f1e8"/>',
        f'<rect class="board" x="{MARGIN}" y="{MARGIN}" width="{8 * SQUARE}" height="{8 * SQUARE}" '
        'fill="#2e7d32" stroke="#1b3d1c"/>',
    ]
    for i in range(1, 8):
        at = MARGIN + i * SQUARE
        out.append(f'<line x1="{at}" y1="{MARGIN}" x2="{at}" y2="{MARGIN + 8 * SQUARE}" stroke="#1b3d1c"/>')
        out.append(f'<line x1="{MARGIN}" y1="{at}" x2="{MARGIN + 8 * SQUARE}" y2="{at}" stroke="#1b3d1c"/>')
    for i in range(8):
        centre = MARGIN + i * SQUARE + SQUARE // 2
        out.append(f'<text x="{centre}" y="{MARGIN - 6}" font-size="12" text-anchor="middle">{"abcdefgh"[i]}</text>')
        out.append(f'<text x="{MARGIN // 2}" y="{centre + 4}" font-size="12" text-anchor="middle">{i + 1}</text>')
    black, white = position.black, position.white
    for square in range(64):
        bit = 1 << square
        if not (black | white) & bit:
            continue
        x, y = _xy(square)
        colour = "black" if black & bit else "white"
        fill = "#111" if colour == "black" else "#f8f8f8"
        out.append(
            f'<circle class="disc {colour}" cx="{x}" cy="{y}" r="{SQUARE // 2 - 4}" fill="{fill}" stroke="#111"/>'
        )
    if last is not None and 0 <= last < 64:
        x, y = _xy(last)
        out.append(f'<circle class="last" cx="{x}" cy="{y}" r="{SQUARE // 2 - 2}" fill="none" stroke="#e53935" stroke-width="3"/>')
    if moves is not None:
        labelled = moves.items() if isinstance(moves, Mapping) else ((m, None) for m in moves)
        for square, label in labelled:
            if not 0 <= square < 64:
                continue  # a pass has no square
            x, y = _xy(square)
            if label is None:
                out.append(f'<circle class="move" cx="{x}" cy="{y}" r="5" fill="#ffd54f" stroke="#5d4037"/>')
            else:
                out.append(
                    f'<text class="move" x="{x}" y="{y + 5}" font-size="14" font-weight="bold" '
                    f'text-anchor="middle" fill="#ffd54f">{_escape(str(label))}</text>'
                )
    out.append("</svg>")
    return "\n".join(out)
