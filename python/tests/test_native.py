"""Tests of the compiled engine (tsuru._native): the board against the published perft
counts and against tsuru.othello, exact undo, search and solve against the binary, stopping
from another thread, the GIL released during a search, the book, the evaluation and the
data readers."""

from __future__ import annotations

import copy
import gzip
import random
import re
import subprocess
import threading
import time
from pathlib import Path
from typing import List

import pytest

import tsuru
from tsuru import PASS, Board, Book, IllegalMoveError, Searcher, Stop, evaluate, search, solve
from tsuru.data import COLUMNS, NO_SCORE, read_obf, read_selfplay, selfplay_positions
from tsuru.engine import Engine, Limit, as_position
from tsuru.othello import BLACK, WHITE, Position, move_name

from test_othello import FFO_1, PASS_GAME

REPO = Path(__file__).resolve().parents[2]
FFO_1_19 = REPO / "tests" / "fixtures" / "fforum-1-19.obf"
SELFPLAY_SHARD = REPO / "data" / "selfplay-48" / "selfplay-48-1.txt.gz"
# A game Black wins 64-0 in nine moves.
WIPEOUT = "e6f4e3f6g5d6e7f5c5"
PUBLISHED_PERFT = [4, 12, 56, 244, 1396, 8200, 55092, 390216]


def random_board(seed: int, plies: int = 100) -> Board:
    rng = random.Random(seed)
    board = Board()
    while not board.is_game_over() and board.ply < plies:
        board.push(rng.choice(board.legal_moves()))
    return board


def flip_vertical(bits: int) -> int:
    return int.from_bytes(bits.to_bytes(8, "little"), "big")


# ----- board ------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", range(1, 9))
def test_perft_matches_published_counts(depth: int) -> None:
    assert Board().perft(depth) == PUBLISHED_PERFT[depth - 1]


def test_start_board() -> None:
    board = Board()
    assert board.turn is BLACK
    assert board.disc_count() == (2, 2) and board.empties == 60 and board.ply == 0
    assert [move_name(m) for m in board] == ["d3", "c4", "f5", "e6"]
    assert board.legal_moves() == list(board) and board.legal_mask() == sum(1 << m for m in board)
    assert board.board_string() == Position().board_string()
    assert board == Board(Position().board_string()) and hash(board) == hash(Board(board.board_string()))
    assert "Black (X) to move" in str(board)


def test_position_reports_what_its_board_does() -> None:
    """tsuru.othello.Position, a wrapper of the native Board, reports the board's moves, board
    string, passes, end and history along random games (its translation of each query)."""
    for seed in range(40):
        rng = random.Random(seed)
        board, position = Board(), Position()
        while True:
            assert board.legal_moves() == position.legal_moves()
            assert board.board_string() == position.board_string()
            assert board.must_pass() == position.must_pass()
            assert board.is_game_over() == position.is_game_over()
            if board.is_game_over():
                assert board.final_score() == position.final_score()
                break
            move = rng.choice(board.legal_moves())
            board.push(move)
            position.play(move)
        assert board.moves == [m for _, m in position.history()]


def test_push_pop_restore_exactly() -> None:
    for seed in range(20):
        board = random_board(seed)
        before = [
            (board.board_string(), board.legal_moves(), hash(board), board.moves)
        ]
        states = []
        replay = Board()
        for move in board.moves:
            states.append((replay.board_string(), replay.legal_moves(), hash(replay), replay.moves))
            replay.push(move)
        assert replay == board and replay.moves == board.moves
        for state in reversed(states):
            played = replay.moves[-1]
            assert replay.pop() == played
            assert (replay.board_string(), replay.legal_moves(), hash(replay), replay.moves) == state
        assert before[0][0] == board.board_string()  # the original was not touched
    with pytest.raises(IndexError):
        Board().pop()


def test_forced_pass_and_names() -> None:
    board = Board(moves=PASS_GAME)
    assert board.must_pass() and board.legal_moves() == [PASS] and list(board) == [PASS]
    board.push("pass")
    assert board.moves[-1] == PASS and board.turn is WHITE
    assert board.pop() == PASS
    board.push(PASS)
    again = Board(moves=PASS_GAME + "pa")
    assert again == board
    assert eval(repr(board), {"Board": Board}) == board  # repr round-trips, passes included
    assert Board(moves="f5d6c3").transcript() == "f5d6c3"


def test_illegal_moves_leave_the_board_unchanged() -> None:
    board = Board(moves="f5d6")
    before = (board.board_string(), board.moves)
    for bad in ("a1", 0, 64, "pass", 65, -1, "z9", "", 3.5, None):
        with pytest.raises(ValueError):  # IllegalMoveError is a ValueError
            board.push(bad)  # type: ignore[arg-type]
        assert (board.board_string(), board.moves) == before
    with pytest.raises(IllegalMoveError):
        board.push("a1")
    with pytest.raises(IllegalMoveError):
        Board(moves="f5f5")
    with pytest.raises(ValueError):
        Board("not a board")
    assert not board.is_legal("a1") and board.is_legal("c3") and board.flips("a1") == 0


def test_copies_are_independent() -> None:
    board = Board(moves="f5d6")
    for other in (board.copy(), copy.copy(board), copy.deepcopy(board)):
        other.push("c3")
        assert board.moves == [37, 43] and other.moves == [37, 43, 18]


def test_bitboards_and_game_end() -> None:
    position = Position(FFO_1)
    board = Board.from_bitboards(position.black, position.white, "black")
    assert board == Board(FFO_1) and board.black == position.black and board.white == position.white
    with pytest.raises(ValueError):
        Board.from_bitboards(1, 1, BLACK)
    for seed in range(10):
        full = random_board(seed, plies=200)
        assert full.is_game_over() and full.legal_moves() == [] and list(full) == []
        black, white = full.disc_count()
        # Empty squares go to the winner.
        empties_to_black = full.empties if black > white else -full.empties if white > black else 0
        assert full.final_score() == black - white + empties_to_black
    wipeout = Board(moves=WIPEOUT)
    assert wipeout.is_game_over() and wipeout.final_score() == 64


# ----- search and solve -------------------------------------------------------------------


def test_win_probability_is_certain_when_solved_and_a_distribution_otherwise() -> None:
    solved = tsuru.solve(Board(FFO_1))
    assert solved.kind == "exact" and solved.score == 18.0
    assert solved.win_probability == (1.0, 0.0, 0.0)
    searched = tsuru.search(Board(), level=6)
    win, draw, loss = searched.win_probability
    assert searched.kind == "midgame"
    assert abs(win + draw + loss - 1.0) < 1e-9
    assert 0.2 < win < 0.8 and 0.2 < loss < 0.8 and draw > 0.0


def binary_solutions(tsuru_bin: str, obf: Path) -> List[tuple]:
    """(move, score) of each position as `tsuru solve` reports them."""
    out = subprocess.run([tsuru_bin, "solve", str(obf), "--threads", "1"], capture_output=True, text=True, check=True).stdout
    rows = re.findall(r"^\s+\d+\s+\d+\s+([A-H][1-8]|PA)\s+([+-]\d+)\s", out, re.MULTILINE)
    return [(move.lower(), int(score)) for move, score in rows]


def test_solve_ffo_1_to_5_as_the_binary(tsuru_bin: str, tmp_path: Path) -> None:
    positions = read_obf(FFO_1_19)[:5]
    first_five = tmp_path / "ffo-1-5.obf"
    first_five.write_text("".join(line + "\n" for line in FFO_1_19.read_text().splitlines()[:5]))
    expected = binary_solutions(tsuru_bin, first_five)
    assert len(expected) == 5
    searcher = Searcher(hash_mb=16, threads=1)
    for position, (move, score) in zip(positions, expected):
        result = searcher.solve(position.board)
        assert result.kind == "exact" and result.completed and result.selectivity == 100
        assert result.score == score == position.best_score
        # Several moves may share the best score (FFO #4: h8 and a5); the solver's choice
        # is the binary's.
        assert move_name(result.move) == move
        assert result.pv[0] == result.move and result.nodes > 0
        wld = solve(position.board, wld=True, hash_mb=16, threads=1)
        assert wld.kind == "wld" and wld.score == (score > 0) - (score < 0)


def test_search_matches_the_binary_over_nboard(engines: list, tsuru_bin: str) -> None:
    """The same level and table size give the same move, score and nodes in-process as the
    engine over NBoard (one thread, no book)."""
    for seed in (1, 2, 3):
        board = random_board(seed, plies=20)
        engine = Engine.popen([tsuru_bin, "--nboard", "--no-book", "--threads", "1", "--hash", "16"])
        engines.append(engine)
        position = Position(board.start_board_string())
        for move in board.moves:
            position.play(move)
        over_pipes = engine.play(position, Limit(depth=8))
        engine.quit()
        in_process = search(board, level=8, hash_mb=16, threads=1)
        assert in_process.kind == "midgame" and in_process.depth == 8 and in_process.completed
        assert in_process.move == over_pipes.move
        assert round(in_process.score, 2) == over_pipes.score
        assert in_process.nodes == over_pipes.nodes


def test_bench_signature_as_the_binary(tsuru_bin: str) -> None:
    """`tsuru bench`'s positions searched in-process visit exactly the binary's nodes."""
    from tsuru.bench import bench_search

    out = subprocess.run([tsuru_bin, "bench"], capture_output=True, text=True, check=True).stdout
    signature = int(re.search(r"^signature (\d+)$", out, re.MULTILINE).group(1))
    nodes, seconds = bench_search(Searcher(hash_mb=64, threads=1))
    assert nodes == signature and seconds > 0


def test_multipv_lines() -> None:
    board = Board(moves="f5d6c3d3c4")
    result = search(board, level=6, multipv=3)
    assert len(result.lines) == 3
    assert result.lines[0].move == result.move and result.lines[0].score == result.score
    scores = [line.score for line in result.lines]
    assert scores == sorted(scores, reverse=True)
    assert len({line.move for line in result.lines}) == 3
    assert all(board.is_legal(line.move) and line.pv[0] == line.move for line in result.lines)
    with pytest.raises(ValueError):
        search(board, multipv=0)


def test_limits_are_checked() -> None:
    board = Board()
    for bad in ({"level": 0}, {"level": 61}, {"time": -1.0}, {"time": float("nan")}, {"level": 5, "depth": 5}, {"time": 1.0, "clock": 10.0}):
        with pytest.raises(ValueError):
            search(board, **bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Searcher(hash_mb=0)
    with pytest.raises(ValueError):
        Searcher(threads=0)
    with pytest.raises(ValueError):
        Searcher(eval_file="/nonexistent/weights.tsw")


def test_time_and_node_limits() -> None:
    board = random_board(11, plies=16)
    timed = search(board, time=0.2)
    assert 0.05 < timed.time < 1.0 and board.is_legal(timed.move)
    limited = search(board, nodes=20000, level=60)
    assert not limited.completed and limited.nodes < 40000
    clocked = search(board, clock=5.0)
    assert clocked.time < 2.5 and board.is_legal(clocked.move)


def test_finished_game_and_forced_pass() -> None:
    over = random_board(3, plies=200)
    result = search(over)
    assert result.move == PASS and result.kind == "exact" and result.score == over.final_score() * (1 if over.turn is BLACK else -1)
    result = search(Board(moves=PASS_GAME))
    assert result.move == PASS


def test_search_stopped_from_another_thread() -> None:
    board = random_board(5, plies=14)
    stop = Stop()
    results: list = []
    worker = threading.Thread(target=lambda: results.append(search(board, level=60, stop=stop)))
    started = time.monotonic()
    worker.start()
    time.sleep(0.3)
    assert worker.is_alive()
    stop.set()
    worker.join(timeout=5)
    assert not worker.is_alive() and time.monotonic() - started < 1.5
    (result,) = results
    assert not result.completed and board.is_legal(result.move)

    searcher = Searcher(hash_mb=16)
    results.clear()
    worker = threading.Thread(target=lambda: results.append(searcher.solve(board)))
    worker.start()
    time.sleep(0.3)
    searcher.stop()
    worker.join(timeout=5)
    assert not worker.is_alive() and not results[0].completed


def test_search_releases_the_gil() -> None:
    """Python code runs in the main thread while a search runs in another."""
    board = random_board(6, plies=14)
    worker = threading.Thread(target=lambda: search(board, time=1.0))
    worker.start()
    time.sleep(0.05)
    count, until = 0, time.monotonic() + 0.3
    while time.monotonic() < until:
        count += 1
    still_searching = worker.is_alive()
    worker.join()
    assert still_searching and count > 10000


def test_two_searches_at_once() -> None:
    boards = [random_board(seed, plies=20) for seed in (8, 9)]
    alone = [search(b, level=9, hash_mb=16, threads=1) for b in boards]
    together: dict = {}
    workers = [
        threading.Thread(target=lambda i=i: together.__setitem__(i, search(boards[i], level=9, hash_mb=16, threads=1)))
        for i in range(2)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    for i, result in enumerate(alone):
        assert (together[i].move, together[i].score, together[i].nodes) == (result.move, result.score, result.nodes)


# ----- evaluation and book ----------------------------------------------------------------


def test_evaluation_is_symmetric_and_shared() -> None:
    searcher = Searcher(hash_mb=1)
    for seed in range(10):
        board = random_board(seed, plies=30)
        value = evaluate(board)
        assert -64 < value < 64 and value == searcher.evaluate(board)
        mirrored = Board.from_bitboards(flip_vertical(board.black), flip_vertical(board.white), board.turn)
        assert evaluate(mirrored) == value


def test_book() -> None:
    book = Book()
    assert book.path is None and len(book) > 1000 and Board() in book
    moves = book.moves(Board(moves="f5"))
    assert moves and [m.value for m in moves] == sorted((m.value for m in moves), reverse=True)
    assert all(Board(moves="f5").is_legal(m.move) for m in moves)
    assert book.value(Board(moves="f5")) == moves[0].value
    far = random_board(1, plies=40)
    assert far not in book and book.moves(far) == [] and book.value(far) is None
    with pytest.raises(ValueError):
        Book("/nonexistent/tsuru.book")


def test_book_file_and_user_book(tsuru_bin: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert Book.user().path is None  # no per-user book yet: the shipped one
    # The per-user book as NBoard's learn leaves it: a game learned into the user's file.
    user_file = tmp_path / "tsuru" / "book"
    user_file.parent.mkdir()
    games = tmp_path / "games.txt"
    games.write_text(WIPEOUT + "\n")
    subprocess.run(
        [tsuru_bin, "book", "learn", "--book", str(user_file), "--depth", "1", str(games)],
        capture_output=True, text=True, check=True, timeout=60,
    )
    user = Book.user()
    assert user.path is not None and Path(user.path) == user_file
    assert len(Book(user_file)) == len(user) > 0
    before_last = Board(moves=WIPEOUT[:-2])
    assert before_last in user and before_last not in Book()
    (best, *_) = user.moves(before_last)
    assert (move_name(best.move), best.value, best.in_book) == ("c5", 64, True)


# ----- data readers -----------------------------------------------------------------------


def test_read_obf() -> None:
    positions = read_obf(FFO_1_19)
    assert len(positions) == 19
    first = positions[0]
    assert first.board == Board(FFO_1) and first.best_score == 18
    assert first.scores[0] == (tsuru.parse_move("g8"), 18)
    with pytest.raises(ValueError):
        tsuru._native.parse_obf("this is not an obf line\n")


def test_read_selfplay_and_positions() -> None:
    np = pytest.importorskip("numpy")
    header, games = read_selfplay(SELFPLAY_SHARD)
    lines = [l for l in gzip.open(SELFPLAY_SHARD, "rt").read().splitlines()[1:] if l.strip() and not l.startswith("#")]
    assert header.startswith("#") or header
    assert len(games) == len(lines) > 100
    game = games[0]
    replay = Board()
    for move in game.moves:
        replay.push(move)
    assert replay.is_game_over() and replay.final_score() == game.black_result

    data = selfplay_positions(SELFPLAY_SHARD)
    assert set(data) == set(COLUMNS)
    rows = len(data["player"])
    assert all(len(column) == rows for column in data.values()) and rows > 20 * len(games)
    assert data["player"].dtype == np.uint64 and data["result"].dtype == np.int8
    assert not np.any(data["player"] & data["opponent"])
    discs = np.array([bin(int(p | o)).count("1") for p, o in zip(data["player"][:2000], data["opponent"][:2000])])
    assert np.all(discs + data["empties"][:2000] == 64)
    # The first game's rows, replayed: the side to move's discs and its result's sign.
    first = data["game"] == 0
    board = Board()
    expected_rows = []
    for ply, move in enumerate(game.moves):
        if ply >= game.random_moves and not board.must_pass():
            player = board.black if board.turn is BLACK else board.white
            result = game.black_result if board.turn is BLACK else -game.black_result
            expected_rows.append((player, result, move))
        board.push(move)
    got = list(zip(data["player"][first].tolist(), data["result"][first].tolist(), data["move"][first].tolist()))
    assert got == expected_rows
    # A v2 shard records no search scores.
    assert np.all(data["score"] == NO_SCORE)
    two = selfplay_positions([SELFPLAY_SHARD, SELFPLAY_SHARD])
    assert len(two["player"]) == 2 * rows and two["game"].max() == 2 * len(games) - 1
    with pytest.raises(ValueError):
        tsuru._native.parse_selfplay("garbage\n")


@pytest.mark.parametrize("form", ["v3", "v4"])
def test_selfplay_scores_of_a_v3_or_v4_file(tsuru_bin: str, tmp_path: Path, form: str) -> None:
    np = pytest.importorskip("numpy")
    out = tmp_path / f"{form}.txt"
    subprocess.run(
        [tsuru_bin, "datagen", "--out", str(out), "--games", "3", "--depth", "3", "--solve-empties", "12"]
        + ["--format", form],
        check=True,
        capture_output=True,
    )
    assert out.read_text().startswith(f"# tsuru self-play {form} ")
    header, games = read_selfplay(out)
    data = selfplay_positions(out)
    assert set(data) == set(COLUMNS)
    # Every searched position has its score, no solved one does; each is the value a fresh
    # 3-ply search gives the side to move, rounded to whole discs.
    searched = data["exact"] == 0
    assert np.all(data["score"][searched] != NO_SCORE) and np.all(data["score"][~searched] == NO_SCORE)
    assert searched.sum() > 20 and (~searched).sum() > 20
    for player, opponent, score in list(zip(data["player"], data["opponent"], data["score"]))[:30]:
        if score == NO_SCORE:
            continue
        board = Board.from_bitboards(int(player), int(opponent), BLACK)
        value = search(board, level=3, endgame=False).score
        assert score == max(-46, min(46, round(value))), (board, value, score)


def test_engine_version_names_the_build(tsuru_bin: str) -> None:
    version = subprocess.run([tsuru_bin, "--version"], capture_output=True, text=True).stdout.strip()
    assert tsuru.ENGINE_VERSION.startswith("tsuru ") and "weights" in tsuru.ENGINE_VERSION
    # The same weights as the binary the tests drive (the commit may differ where the
    # package was built from another tree).
    assert tsuru.ENGINE_VERSION.split("weights")[1] == version.split("weights")[1]


def test_readme_example_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """python/README.md's in-process example runs as written (from the repository root)."""
    readme = (REPO / "python" / "README.md").read_text()
    section = readme.split("## The engine in-process", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    namespace: dict = {}
    exec(compile(code, "python/README.md", "exec"), namespace)
    assert namespace["result"].kind in ("midgame", "probable", "exact", "wld")
    assert len(namespace["columns"]["player"]) > 1000


def test_engine_client_takes_a_native_board(engines: list, tsuru_bin: str) -> None:
    """tsuru.engine accepts a tsuru.Board wherever it takes a Position (its whole game is
    sent), and agrees with the in-process search."""
    board = Board(moves="f5d6c3d3c4")
    replay = as_position(board)
    assert replay.board_string() == board.board_string()
    assert [move for _, move in replay.history()] == board.moves
    for protocol in ("--nboard", "--gtp"):
        engine = Engine.popen([tsuru_bin, protocol, "--no-book", "--threads", "1", "--hash", "16", "--level", "6"])
        engines.append(engine)
        result = engine.play(board, Limit(depth=6))
        assert result.move == search(board, level=6, hash_mb=16).move
    with pytest.raises(TypeError):
        engines[0].play("f5d6")  # type: ignore[arg-type]
