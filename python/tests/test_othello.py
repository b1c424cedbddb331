"""Tests of tsuru.othello: move generation, play/undo, passes, the board form, perft."""

from __future__ import annotations

import random
import re
import subprocess

import pytest

from tsuru.othello import (
    BLACK,
    PASS,
    START_BOARD,
    WHITE,
    IllegalMoveError,
    Position,
    move_name,
    names,
    nboard_move_name,
    parse_move,
    square,
)

# FFO endgame position #1 (tsuru's tests/fixtures/fforum-1-19-all-moves.obf): Black to
# move, 14 empties; its legal moves are exactly the eight the OBF line scores.
FFO_1 = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X"
FFO_1_MOVES = {"g8", "h1", "a2", "h7", "a3", "b1", "a4", "g2"}

# From the start, after these 8 moves Black has no legal move and must pass.
PASS_GAME = "d3c3e6d2d1e1b2c1"


def random_game(seed: int, stop_at: int = 100) -> Position:
    rng = random.Random(seed)
    pos = Position()
    while not pos.is_game_over() and pos.ply < stop_at:
        pos.play(rng.choice(pos.legal_moves()))
    return pos


@pytest.mark.parametrize(
    "depth,leaves", [(1, 4), (2, 12), (3, 56), (4, 244), (5, 1396), (6, 8200), (7, 55092), (8, 390216)]
)
def test_perft_from_start(depth: int, leaves: int) -> None:
    assert Position().perft(depth) == leaves


def test_start_position() -> None:
    pos = Position()
    assert pos.board_string() == START_BOARD
    assert pos.turn is BLACK
    assert pos.disc_count() == (2, 2)
    assert pos.empty_count() == 60
    assert names(pos.legal_moves()) == ["d3", "c4", "f5", "e6"]
    assert not pos.must_pass() and not pos.is_game_over()
    assert pos.is_standard_start()


def test_known_position_legal_moves() -> None:
    pos = Position.from_board_string(FFO_1 + "; G8:+18;")
    assert pos.empty_count() == 14
    assert pos.turn is BLACK
    assert set(names(pos.legal_moves())) == FFO_1_MOVES
    # After f5 from the start: White's four replies, the discs flipped.
    pos = Position()
    pos.play("f5")
    assert pos.board_string() == "---------------------------OX------XXX-------------------------- O"
    assert names(pos.legal_moves()) == ["f4", "d6", "f6"]
    assert pos.disc_count() == (4, 1)


def test_play_flips_every_direction() -> None:
    # A white disc on d4 surrounded by black lines in all eight directions, each ended by white.
    board = ["-"] * 64
    centre = square("d4")
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if dr == dc == 0:
                continue
            r, c = divmod(centre, 8)
            board[(r + dr) * 8 + c + dc] = "X"
            board[(r + 2 * dr) * 8 + c + 2 * dc] = "O"
    pos = Position("".join(board) + " O")
    assert pos.is_legal(centre)
    assert bin(pos.flips(centre)).count("1") == 8
    pos.play(centre)
    assert pos.disc_count() == (0, 17)
    assert pos.turn is BLACK


def test_move_names() -> None:
    assert parse_move("a1") == 0 and parse_move("H8") == 63 and parse_move(" f5 ") == 37
    for text in ("pass", "PASS", "pa", "PA", "--"):
        assert parse_move(text) == PASS
    for m in range(64):
        assert parse_move(move_name(m)) == m
        assert parse_move(move_name(m, upper=True)) == m
    assert move_name(PASS) == "pass" and nboard_move_name(PASS) == "PA" and nboard_move_name(37) == "F5"
    for bad in ("i1", "a9", "a0", "f", "f55", "", "resign"):
        with pytest.raises(ValueError):
            parse_move(bad)


def test_board_string_round_trip() -> None:
    for seed in range(30):
        pos = random_game(seed, stop_at=seed * 2)
        text = pos.board_string()
        assert re.fullmatch(r"[XO-]{64} [XO]", text)
        again = Position.from_board_string(text)
        assert again.board_string() == text
        assert again.same_board(pos)
        assert (again.black, again.white, again.turn) == (pos.black, pos.white, pos.turn)
    # The other spellings tsuru accepts: * x / o 0 / . _ , whitespace between squares.
    pos = Position.from_board_string(FFO_1)
    alt = FFO_1[:64].replace("X", "*").replace("O", "0").replace("-", ".")
    spaced = " ".join(alt[i : i + 8] for i in range(0, 64, 8)) + " x"
    assert Position.from_board_string(spaced).board_string() == FFO_1
    assert pos.board_string(sep="") == FFO_1.replace(" ", "")
    for bad in (FFO_1[:-1], FFO_1 + "X", FFO_1[:64] + " Z", "Q" + FFO_1[1:]):
        with pytest.raises(ValueError):
            Position.from_board_string(bad)


def test_play_undo_and_copy_round_trips() -> None:
    for seed in range(40):
        rng = random.Random(seed)
        pos = Position()
        snapshots = []
        while not pos.is_game_over():
            snapshots.append(pos.copy())
            move = rng.choice(pos.legal_moves())
            pos.play(move)
            assert pos.moves[-1] == move
        end = pos.copy()
        assert end == pos and end is not pos
        for snapshot in reversed(snapshots):
            pos.undo()
            assert pos == snapshot
            assert pos.board_string() == snapshot.board_string()
        assert pos == Position()
        with pytest.raises(IndexError):
            pos.undo()
        # Replaying the transcript gives the same game, passes included or implied.
        assert Position.from_transcript(end.transcript()) == end
        assert Position.from_transcript(end.transcript(passes=False)) == end
        # A copy is independent.
        copy = end.copy()
        if copy.ply:
            copy.undo()
            assert copy != end and end.ply == copy.ply + 1


def test_forced_pass_and_game_over() -> None:
    pos = Position.from_transcript(PASS_GAME)
    assert pos.turn is BLACK
    assert pos.must_pass() and not pos.is_game_over()
    assert pos.legal_moves() == [PASS]
    with pytest.raises(IllegalMoveError):
        pos.play("a1")
    pos.play(PASS)
    assert pos.turn is WHITE and pos.moves[-1] == PASS
    assert pos.legal_moves() and PASS not in pos.legal_moves()
    with pytest.raises(IllegalMoveError):
        pos.play(PASS)  # White has moves: no pass
    assert pos.undo() == PASS and pos.turn is BLACK
    # A wipe-out: Black wins 64-0 with the empties (perft counts an ended game as one leaf).
    over = Position.from_transcript("d3c3b3d2e1d6d7e3f4")  # a nine-move game, Black wins
    assert over.is_game_over() and over.legal_moves() == []
    assert over.disc_count() == (13, 0)
    assert over.final_score() == 64 and over.winner() is BLACK
    assert over.perft(3) == 1
    with pytest.raises(IllegalMoveError):
        over.play(PASS)


def test_illegal_moves_leave_position_unchanged() -> None:
    pos = Position()
    before = pos.copy()
    for bad in ("a1", "d4", "e4", "pass", 99, "zz"):
        with pytest.raises(IllegalMoveError):
            pos.play(bad)  # type: ignore[arg-type]
        assert pos == before


def test_non_standard_start_and_history() -> None:
    pos = Position(FFO_1)
    assert not pos.is_standard_start()
    pos.play("g8")
    assert pos.start_board_string() == FFO_1
    assert pos.history() == [(BLACK, square("g8"))]
    assert Position.from_transcript("g8", start=FFO_1) == pos
    root = pos.root()
    assert root.board_string() == FFO_1 and root.ply == 0


def test_perft_matches_tsuru(tsuru_bin: str) -> None:
    """The engine's move generation, through Position, agrees with the engine's reference
    generator (``tsuru perft --reference``: square by square, independent of the bitboards)
    on positions from random games."""
    for seed in range(4):
        pos = random_game(100 + seed, stop_at=12 + 9 * seed)
        depth = 4
        out = subprocess.run(
            [tsuru_bin, "perft", str(depth), "--reference", "--board", pos.board_string()],
            capture_output=True, text=True, timeout=60, check=True,
        ).stdout
        counts = {int(d): int(n) for d, n in re.findall(r"depth\s+(\d+)\s+leaves\s+(\d+)", out)}
        assert counts, out
        for d, n in counts.items():
            assert pos.perft(d) == n, (pos.board_string(), d)
