"""tsuru.review: a real game reviewed in-process. Its losses are its values' differences, the
error totals their sums, the marks follow the documented thresholds, the solved end agrees
with tsuru.solve run on each position independently, and the value graph is the one
`tsuru review --svg` draws."""

from __future__ import annotations

import ast
import gzip
import inspect
import re
import subprocess
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import tsuru
from tsuru import BLACK, Board, IllegalMoveError

REPO_ROOT = Path(__file__).resolve().parent.parent.parent

#: Level 12 solves exactly from 18 empties: the last 18 moves of a 60-move game.
LEVEL = 12
EXACT_EMPTIES = 18


def real_game() -> str:
    """The first game of a kept match record (tsuru against GRhino, 60 moves, B+42) as its
    GGF record."""
    with gzip.open(REPO_ROOT / "matches" / "grhino-level5" / "games.ggf.gz", "rt") as f:
        return f.readline().strip()


def transcript(ggf: str) -> str:
    return "".join(m.lower() for m in re.findall(r"[BW]\[([A-H][1-8])", ggf))


@pytest.fixture(scope="module")
def review() -> tsuru.Review:
    return tsuru.review(real_game(), level=LEVEL, threads=1)


def expected_mark(loss: float) -> str:
    """The thresholds tsuru review documents: under 1, under 4, under 8 discs."""
    if loss < 1:
        return "best"
    if loss < 4:
        return "inaccuracy"
    if loss < 8:
        return "mistake"
    return "blunder"


def board_after(review: tsuru.Review, moves: int) -> Board:
    """The game's position after its first ``moves`` moves, passes included."""
    board = Board()
    for move in review.game[:moves]:
        board.push(move)
    return board


def test_a_record_a_move_with_losses_totals_and_marks_from_the_values(review) -> None:
    played = transcript(real_game())
    assert len(played) == 120
    # 60 moves and White's forced pass before the last: the pass is no choice.
    assert review.game[-2] == tsuru.PASS
    squares = [tsuru.parse_move(played[i : i + 2]) for i in range(0, 120, 2)]
    assert [m for m in review.game if m != tsuru.PASS] == squares
    assert len(review) == 60 == len(review.moves)
    assert review.players == ("tsuru", "grhino")
    # B+42 (53-11) in the record's games.txt.
    assert review.result == 42
    totals = [0.0, 0.0]
    for m, move in zip(review, squares):
        assert m.move == move == review.game[m.number - 1]
        assert m.color == board_after(review, m.number - 1).turn
        assert m.loss == max(0.0, m.best_value - m.value)
        assert m.loss >= 0
        if m.move == m.best:
            assert m.loss == 0
        assert m.mark == expected_mark(m.loss), m
        totals[0 if m.color == BLACK else 1] += m.loss
    assert [m.number for m in review] == list(range(1, 60)) + [61]
    assert review.error_totals == (totals[0], totals[1])
    # A lopsided game: both players lost discs, GRhino more.
    assert 0 < review.error_totals[0] < review.error_totals[1]
    assert any(m.mark != "best" for m in review)
    # The dicts hold the same values.
    dicts = review.to_dicts()
    assert len(dicts) == 60
    assert dicts[5] == {
        "number": 6,
        "color": review[5].color,
        "move": review[5].move,
        "value": review[5].value,
        "best": review[5].best,
        "best_value": review[5].best_value,
        "loss": review[5].loss,
        "exact": review[5].exact,
        "mark": review[5].mark,
        "win_probability": review[5].win_probability,
    }
    assert review[-1].number == 61 and [m.number for m in review[2:4]] == [3, 4]
    with pytest.raises(IndexError):
        review[60]


def sign(value: float) -> int:
    return (value > 0) - (value < 0)


def test_the_solved_end_is_exact_and_agrees_with_the_solver(review) -> None:
    solver = tsuru.Searcher(threads=1)
    checked = 0
    for m in review:
        before = board_after(review, m.number - 1)
        assert m.exact == (before.empties <= EXACT_EMPTIES), m
        if before.empties > 12:
            continue
        # The last 12 moves: each position solved again, by a searcher of its own.
        after = board_after(review, m.number)
        if after.is_game_over():
            black = after.final_score()
            after_value = black if after.turn == BLACK else -black
        else:
            after_value = solver.solve(after).score
        assert m.value == -after_value, m
        assert m.best_value == solver.solve(before).score, m
        # An exact value's chances are certain.
        certain = {1: (1.0, 0.0, 0.0), 0: (0.0, 1.0, 0.0), -1: (0.0, 0.0, 1.0)}
        assert m.win_probability == certain[sign(m.value)], m
        checked += 1
    assert checked == 12


def test_the_decisive_move_is_the_last_change_of_the_result(review) -> None:
    decisive = review.decisive
    assert decisive is not None
    assert review[decisive.index].number == decisive.number
    assert decisive.before != decisive.after
    # The last change of the result leads to the result the game had.
    assert decisive.after == sign(review.result)
    # Move 8, in the midgame: judged by the search.
    assert not decisive.exact


def test_a_board_a_transcript_and_a_list_of_moves_give_the_same_review(review) -> None:
    played = transcript(real_game())
    by_text = tsuru.review(played, level=LEVEL, threads=1)
    by_board = tsuru.review(Board(moves=played), level=LEVEL, threads=1)
    by_list = tsuru.review(review.game, level=LEVEL, threads=1)
    for other in (by_text, by_board, by_list):
        assert other.to_dicts() == review.to_dicts()
        assert other.error_totals == review.error_totals
    assert by_text.name == played


def test_the_graph_is_the_svg_of_tsuru_review(review, tsuru_bin: str, tmp_path: Path) -> None:
    svg = review._repr_svg_()
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    points = [
        c for c in root.iter("{http://www.w3.org/2000/svg}circle")
        if c.get("class", "").split()[0] == "move"
    ]
    assert [int(p.get("data-move")) for p in points] == [m.number for m in review]
    for point, m in zip(points, review):
        assert point.get("class").split() == ["move", m.color.name.lower(), m.mark]
    # The same review by the command line, of the same transcript: the same picture, less
    # the file's XML declaration.
    played = transcript(real_game())
    by_text = tsuru.review(played, level=LEVEL, threads=1)
    path = tmp_path / "graph.svg"
    out = subprocess.run(
        [tsuru_bin, "review", played, "--level", str(LEVEL), "--threads", "1", "--svg", str(path)],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    first, rest = path.read_text().split("\n", 1)
    assert first.startswith("<?xml ")
    assert rest == by_text._repr_svg_()


def test_bad_games_and_settings_are_refused_naming_what_is_wrong() -> None:
    with pytest.raises(IllegalMoveError, match=r"move 2 \(F5\)"):
        tsuru.review("f5f5", level=4)
    with pytest.raises(IllegalMoveError, match=r"move 3 \(A1\)"):
        tsuru.review(["f5", 43, "a1"], level=4)
    with pytest.raises(ValueError, match="not a list of moves"):
        tsuru.review("f5d6zz", level=4)
    with pytest.raises(ValueError, match="no moves"):
        tsuru.review("", level=4)
    with pytest.raises(ValueError, match="not both"):
        tsuru.review("f5", level=4, time=1.0)
    # The registry's parsers, as for tsuru.search.
    with pytest.raises(ValueError, match=re.escape("level (--level)")):
        tsuru.review("f5", level=61)
    with pytest.raises(ValueError, match=re.escape("threads (--threads)")):
        tsuru.review("f5", threads=0)
    with pytest.raises(ValueError, match=re.escape("hash_mb (--hash)")):
        tsuru.review("f5", hash_mb=0)
    with pytest.raises(ValueError, match=re.escape("time (--move-time)")):
        tsuru.review("f5", time=-1.0)


def test_a_review_stops_when_its_flag_is_set_from_another_thread() -> None:
    # Level 18 on a whole game takes seconds; the flag is set 0.2 s in.
    stop = tsuru.Stop()
    timer = threading.Timer(0.2, stop.set)
    timer.start()
    with pytest.raises(RuntimeError, match="the review was stopped"):
        tsuru.review(real_game(), level=18, threads=1, stop=stop)
    timer.join()
    # A flag cleared again lets the next review run to its end.
    stop.clear()
    assert len(tsuru.review("f5d6c3d3c4", level=4, stop=stop)) == 5


def test_a_time_a_position_reviews_without_a_level() -> None:
    quick = tsuru.review("f5d6c3d3c4", time=0.01)
    assert [m.number for m in quick] == [1, 2, 3, 4, 5]
    assert quick.result is None


def test_the_signature_is_the_stubs() -> None:
    stub = ast.parse((Path(tsuru.__file__).parent / "_native.pyi").read_text())
    (typed,) = [n for n in stub.body if isinstance(n, ast.FunctionDef) and n.name == "review"]
    signature = inspect.signature(tsuru.review)
    assert [a.arg for a in typed.args.args] == ["game"]
    assert [a.arg for a in typed.args.kwonlyargs] == list(signature.parameters)[1:]
    defaults = [ast.literal_eval(d) for d in typed.args.kw_defaults]
    assert defaults == [p.default for p in list(signature.parameters.values())[1:]]
