"""Boards as SVG: the picture parses as XML and shows the board's discs, the marked moves
and the last move; a Board shows itself that way in Jupyter (``_repr_svg_``)."""

from __future__ import annotations

import doctest
import xml.etree.ElementTree as ET

import tsuru
from tsuru import Board, parse_move

NS = "{http://www.w3.org/2000/svg}"


def shapes(picture: str, cls: str) -> list:
    root = ET.fromstring(picture)
    return [e for e in root.iter() if cls in (e.get("class") or "").split()]


def test_the_picture_shows_the_discs_the_moves_and_the_last_move() -> None:
    board = Board(moves="f5d6c3d3c4")
    picture = tsuru.svg.board(board, moves=board.legal_moves(), last=parse_move("c4"))
    black, white = board.disc_count()
    assert len(shapes(picture, "black")) == black and len(shapes(picture, "white")) == white
    assert len(shapes(picture, "move")) == len(board.legal_moves())
    (ring,) = shapes(picture, "last")
    # c4 is column 2, row 3: its centre.
    assert (ring.get("cx"), ring.get("cy")) == (str(20 + 2 * 40 + 20), str(20 + 3 * 40 + 20))
    labelled = tsuru.svg.board(board, moves={parse_move("e3"): "+4", tsuru.PASS: "x"})
    (label,) = shapes(labelled, "move")
    assert label.text == "+4"


def test_a_board_shows_itself_as_svg() -> None:
    board = Board(moves="f5d6")
    picture = board._repr_svg_()
    assert picture == tsuru.svg.board(board, board.legal_moves(), parse_move("d6"))
    assert len(shapes(picture, "disc")) == 6
    assert len(shapes(Board()._repr_svg_(), "last")) == 0


def test_the_modules_example_holds() -> None:
    assert doctest.testmod(tsuru.svg).failed == 0
