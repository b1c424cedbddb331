"""Tests of tsuru.engine against the real tsuru binary (GTP and NBoard), GRhino, and a fake
GTP engine that misbehaves on purpose."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from typing import List, Sequence

import pytest

from tsuru.engine import (
    AnalysisResult,
    Engine,
    EngineError,
    EngineTerminatedError,
    EngineTimeoutError,
    GtpEngine,
    Info,
    Limit,
    NBoardEngine,
    PlayResult,
)
from tsuru.othello import BLACK, PASS, WHITE, Position, move_name, names, parse_move

from test_othello import FFO_1, PASS_GAME

FLAGS = ["--no-book", "--threads", "1"]


def start(engines: list, command: Sequence[str], **kwargs) -> Engine:
    engine = Engine.popen(command, **kwargs)
    engines.append(engine)
    return engine


def play_game(black: Engine, white: Engine, limit: Limit = Limit()) -> List[PlayResult]:
    """Plays a whole game; every move is checked legal by tsuru.othello."""
    pos = Position()
    results = []
    while not pos.is_game_over():
        engine = black if pos.turn is BLACK else white
        legal = pos.legal_moves()
        result = engine.play(pos, limit)
        assert result.move in legal, (engine.name, pos.board_string(), result)
        pos.play(result.move)  # raises IllegalMoveError if it were not legal
        results.append(result)
    assert pos.is_game_over() and pos.legal_moves() == []
    assert sum(pos.disc_count()) + pos.empty_count() == 64
    play_game.last = pos  # type: ignore[attr-defined]
    return results


def gtp_score(score: int) -> str:
    return "0" if score == 0 else f"B+{score}" if score > 0 else f"W+{-score}"


def rhino_board(engine: GtpEngine) -> str:
    """GRhino's showboard as 64 characters X/O/-."""
    rows = []
    for line in engine.command("showboard").splitlines():
        parts = line.split()
        if len(parts) == 9 and parts[0].isdigit():
            rows.append("".join({"X": "X", "O": "O"}.get(c, "-") for c in parts[1:]))
    assert len(rows) == 8, rows
    return "".join(rows)


# ----- detection and names --------------------------------------------------------------


def test_detects_gtp_and_parses_name(engines: list, tsuru_bin: str) -> None:
    engine = start(engines, [tsuru_bin, "--gtp", *FLAGS, "--level", "4"])
    version = subprocess.run([tsuru_bin, "--version"], capture_output=True, text=True).stdout.strip()
    assert isinstance(engine, GtpEngine) and engine.protocol == "gtp"
    assert engine.id["name"] == "tsuru"
    assert engine.name == version  # "tsuru 0.1.0 (commit ..., weights ...)"
    assert {"genmove", "play", "clear_board", "time_left", "reg_genmove"} <= engine.commands
    assert engine.command("protocol_version") == "2"
    # The two probe commands were answered and read: the session is in step.
    assert engine.command("gogui-rules_legal_moves") == "D3 C4 F5 E6"


def test_detects_nboard_and_parses_name(engines: list, tsuru_bin: str) -> None:
    for command in ([tsuru_bin, *FLAGS], [tsuru_bin, "--nboard", *FLAGS]):
        engine = start(engines, command)
        assert isinstance(engine, NBoardEngine) and engine.protocol == "nboard"
        assert engine.name == "tsuru" and engine.id == {"name": "tsuru"}
        result = engine.play(Position(), Limit(depth=2))
        assert move_name(result.move) in ("d3", "c4", "f5", "e6")


def test_explicit_protocols(engines: list, tsuru_bin: str) -> None:
    # tsuru without a flag detects the protocol itself from the first line.
    gtp = start(engines, [tsuru_bin, *FLAGS, "--level", "2"], protocol="gtp")
    assert isinstance(gtp, GtpEngine) and gtp.id["name"] == "tsuru"
    nboard = start(engines, f"{tsuru_bin} --no-book --threads 1", protocol="NBoard")
    assert isinstance(nboard, NBoardEngine) and nboard.name == "tsuru"
    with pytest.raises(ValueError):
        Engine.popen([tsuru_bin], protocol="uci")


def test_detects_grhino(engines: list, grhino_bin: str) -> None:
    engine = start(engines, [grhino_bin, "-l", "1"])
    assert isinstance(engine, GtpEngine)
    assert engine.id["name"] == "GTP GRhino"
    assert engine.name.startswith("GTP GRhino 0.")


# ----- whole games ----------------------------------------------------------------------


def test_full_game_tsuru_gtp_vs_tsuru_nboard(engines: list, tsuru_bin: str) -> None:
    gtp = start(engines, [tsuru_bin, "--gtp", *FLAGS, "--level", "3"])
    nboard = start(engines, [tsuru_bin, "--nboard", *FLAGS])
    for black, white in ((gtp, nboard), (nboard, gtp)):
        results = play_game(black, white, Limit(depth=3))
        final: Position = play_game.last  # type: ignore[attr-defined]
        assert len(results) == final.ply >= 9
        for result, (mover, move) in zip(results, final.history()):
            assert result.move == move
            if isinstance(result, PlayResult) and (black if mover is BLACK else white) is nboard and move != PASS:
                assert result.score is not None and result.depth is not None
                assert result.pv[0] == move
        # The GTP engine's board, brought up to the end, scores the game as othello.py does.
        gtp.set_position(final)
        assert gtp.command("final_score") == gtp_score(final.final_score())
        assert gtp.command("gogui-rules_legal_moves") == ""


def test_full_game_tsuru_vs_grhino(engines: list, tsuru_bin: str, grhino_bin: str) -> None:
    tsuru = start(engines, [tsuru_bin, "--gtp", *FLAGS, "--level", "4"])
    rhino = start(engines, [grhino_bin, "-l", "1"])
    for black, white in ((tsuru, rhino), (rhino, tsuru)):
        play_game(black, white)
        final: Position = play_game.last  # type: ignore[attr-defined]
        for engine in (tsuru, rhino):
            assert isinstance(engine, GtpEngine)
            engine.set_position(final)
            assert engine.command("final_score") == gtp_score(final.final_score())
        assert rhino_board(rhino) == final.board_string(sep="")[:64]


def test_full_game_tsuru_vs_ntest_over_nboard(engines: list, tsuru_bin: str, ntest_command: List[str]) -> None:
    ntest = start(engines, ntest_command)
    assert isinstance(ntest, NBoardEngine)  # detected: it answers nboard 2 and ping
    tsuru = start(engines, [tsuru_bin, "--gtp", *FLAGS, "--level", "4"])
    for black, white in ((tsuru, ntest), (ntest, tsuru)):
        results = play_game(black, white, Limit(depth=4))
        final: Position = play_game.last  # type: ignore[attr-defined]
        replay = Position()
        for result, (mover, move) in zip(results, final.history()):
            # NTest answers a move it has no choice about at once, without a score.
            if (black if mover is BLACK else white) is ntest and len(replay.legal_moves()) > 1:
                assert result.score is not None and result.move == move, result
            replay.play(move)
    assert ntest.name is not None and ntest.name.startswith("Ntest")  # sent after a set


@pytest.mark.parametrize("which", ["tsuru", "grhino"])
def test_passes_explicit_for_tsuru_implied_for_grhino(engines: list, request: pytest.FixtureRequest, which: str) -> None:
    if which == "tsuru":
        engine = start(engines, [request.getfixturevalue("tsuru_bin"), "--gtp", *FLAGS, "--level", "2"])
        explicit = True
    else:
        engine = start(engines, [request.getfixturevalue("grhino_bin"), "-l", "1"])
        explicit = False
    assert isinstance(engine, GtpEngine)
    pos = Position.from_transcript(PASS_GAME)
    assert pos.must_pass()
    result = engine.play(pos)  # not asked: a forced pass
    assert result.move == PASS and result.elapsed == 0
    pos.play(PASS)
    result = engine.play(pos)
    assert engine._explicit_pass is explicit  # GRhino: "play b pass" -> "? syntax error"
    assert pos.turn is WHITE and result.move in pos.legal_moves()
    pos.play(result.move)
    engine.set_position(pos)
    if which == "tsuru":
        assert engine.command("gogui-rules_side_to_move") == ("black" if pos.turn is BLACK else "white")
        assert engine.command("gogui-rules_legal_moves") == " ".join(names(pos.legal_moves(), upper=True))
    else:
        assert rhino_board(engine) == pos.board_string(sep="")[:64]


def test_gtp_refuses_non_standard_start(engines: list, tsuru_bin: str) -> None:
    engine = start(engines, [tsuru_bin, "--gtp", *FLAGS])
    with pytest.raises(EngineError, match="standard start"):
        engine.play(Position(FFO_1))


def test_game_over_and_forced_pass_are_not_sent(engines: list, fake_engine: List[str]) -> None:
    # This fake would never answer genmove: the pass comes from the client.
    engine = start(engines, [*fake_engine, "silent-genmove"], timeout=2)
    result = engine.play(Position.from_transcript(PASS_GAME))
    assert result.move == PASS
    with pytest.raises(ValueError, match="game is over"):
        engine.play(Position.from_transcript("d3c3b3d2e1d6d7e3f4"))


# ----- NBoard search information --------------------------------------------------------


def test_nboard_play_reports_each_depth(engines: list, tsuru_bin: str) -> None:
    engine = start(engines, [tsuru_bin, "--nboard", *FLAGS])
    pos = Position.from_transcript("f5d6c3d3c4")
    result = engine.play(pos, Limit(depth=8))
    depths = [info.depth for info in result.infos]
    assert len(set(depths)) >= 2 and depths[-1] == "8"
    assert [int(d) for d in depths] == sorted(int(d) for d in depths)
    assert result.depth == "8" and result.plies == 8
    assert result.move == result.pv[0] == result.infos[-1].move
    assert result.score == result.infos[-1].score
    assert result.nodes and result.nodes > 0 and result.engine_time is not None


def test_nboard_analysis_streams_depths(engines: list, tsuru_bin: str) -> None:
    engine = start(engines, [tsuru_bin, "--nboard", *FLAGS])
    pos = Position.from_transcript("f5d6c3d3c4")
    seen: List[Info] = []
    analysis = engine.analysis(pos, Limit(depth=8))
    assert isinstance(analysis, AnalysisResult)
    kinds = []
    for info in analysis:
        kinds.append(info.kind)
        if info.kind == "search":
            assert info.move in pos.legal_moves() and info.score is not None
            seen.append(info)
    assert kinds[-1] == "nodestats" and set(kinds[:-1]) == {"search"}
    depths = [info.depth for info in seen]
    assert len(set(depths)) >= 2 and depths[-1] == "8"
    final = analysis.info
    assert final.depth == "8" and final.move == seen[-1].move and final.nodes
    # multipv: the best three of the last depth, best first.
    lines = engine.analyse(pos, Limit(depth=6), multipv=3)
    assert isinstance(lines, list) and len(lines) == 3
    assert len({line.move for line in lines}) == 3 and all(line.depth == "6" for line in lines)
    assert [line.score for line in lines] == sorted((line.score for line in lines), reverse=True)
    assert [line.multipv for line in lines] == [1, 2, 3]


def test_nboard_analysis_arrives_while_searching_and_stops_on_time(engines: list, tsuru_bin: str) -> None:
    engine = start(engines, [tsuru_bin, "--nboard", *FLAGS])
    pos = Position.from_transcript("f5d6c3")
    t0 = time.monotonic()
    arrivals = []
    with engine.analysis(pos, Limit(depth=60, time=1.0)) as analysis:
        for info in analysis:
            arrivals.append((time.monotonic() - t0, info.depth))
    end = time.monotonic() - t0
    assert len({d for _, d in arrivals}) >= 3
    assert arrivals[0][0] < 0.5  # the first depths come long before the search ends
    assert 0.9 <= end < 2.5  # stopped by the client (ping) after about a second
    # The engine is ready at once for the next request.
    result = engine.play(pos, Limit(depth=2))
    assert result.move in pos.legal_moves() and result.depth == "2"


def test_nboard_stop_and_context_manager(engines: list, tsuru_bin: str) -> None:
    engine = start(engines, [tsuru_bin, "--nboard", *FLAGS])
    pos = Position.from_transcript("f5f6")
    analysis = engine.analysis(pos, Limit(depth=60))
    first = next(analysis)
    assert first.depth == "1"
    t0 = time.monotonic()
    engine.stop()
    rest = list(analysis)
    assert time.monotonic() - t0 < 1.0
    assert all(info.move in pos.legal_moves() for info in rest if info.kind == "search")
    assert rest and rest[-1].kind == "nodestats"  # the stopped search's last words
    # Leaving the block early stops the hint; the engine answers the next request.
    with engine.analysis(pos, Limit(depth=60)) as analysis:
        next(analysis)
    assert engine.analyse(pos, Limit(depth=3)).depth == "3"


def test_nboard_exact_solve_from_a_set_up_board(engines: list, tsuru_bin: str) -> None:
    """FFO #1 (14 empties): at level 10 tsuru solves it exactly: G8 wins by 18."""
    engine = start(engines, [tsuru_bin, "--nboard", *FLAGS])
    pos = Position(FFO_1)
    info = engine.analyse(pos, Limit(depth=10))
    assert isinstance(info, Info)
    assert info.exact and info.depth == "100%"
    assert move_name(info.move) == "g8" and info.score == 18
    result = engine.play(pos, Limit(depth=10))
    assert move_name(result.move) == "g8" and result.score == 18 and result.depth == "100%"
    # One move further (sent as "move G8"), White's best reply loses by 18 too.
    pos.play(result.move)
    reply = engine.play(pos, Limit(depth=10))
    assert reply.score == -18 and reply.move in pos.legal_moves()


def test_nboard_book_lines(engines: list, tsuru_bin: str) -> None:
    """With the shipped book, a hint on the start position begins with `book` lines."""
    engine = start(engines, [tsuru_bin, "--nboard", "--threads", "1"])
    pos = Position()
    infos = list(engine.analysis(pos, Limit(depth=4), multipv=4))
    books = [info for info in infos if info.kind == "book"]
    assert books and all(info.book and info.games is not None for info in books)
    assert all(info.move in pos.legal_moves() for info in infos if info.kind in ("book", "search"))
    assert infos.index(books[-1]) < min((i for i, info in enumerate(infos) if info.kind == "search"), default=99)
    assert engine.play(pos, Limit(depth=4)).move in pos.legal_moves()


def test_gtp_analysis_yields_the_move(engines: list, tsuru_bin: str) -> None:
    engine = start(engines, [tsuru_bin, "--gtp", *FLAGS, "--level", "4"])
    pos = Position.from_transcript("f5d6")
    infos = list(engine.analysis(pos))
    assert len(infos) == 1 and infos[0].move in pos.legal_moves() and infos[0].score is None
    # reg_genmove changed nothing: the same position is still on the engine's board.
    assert engine.play(pos).move == infos[0].move


# ----- clocks -----------------------------------------------------------------------------


def test_clocks_reach_the_engine(engines: list, tsuru_bin: str) -> None:
    """At level 60 only the clock can end these searches in time."""
    pos = Position.from_transcript("f5d6c3d3c4")
    gtp = start(engines, [tsuru_bin, "--gtp", *FLAGS, "--level", "60"])
    nboard = start(engines, [tsuru_bin, "--nboard", *FLAGS])
    for engine in (gtp, nboard):
        result = engine.play(pos, Limit(time=0.4))
        assert result.move in pos.legal_moves() and result.elapsed < 1.2, (engine, result.elapsed)
        result = engine.play(pos, Limit(game_time=3.0))
        assert result.move in pos.legal_moves() and result.elapsed < 2.5, (engine, result.elapsed)
    assert nboard.play(pos, Limit(time=0.4)).depth is not None


# ----- failures ---------------------------------------------------------------------------


def test_killed_mid_search_gtp(engines: list, tsuru_bin: str) -> None:
    engine = start(engines, [tsuru_bin, "--gtp", *FLAGS, "--level", "60"])
    killed_at: List[float] = []

    def kill() -> None:
        killed_at.append(time.monotonic())
        os.kill(engine.pid, signal.SIGKILL)

    timer = threading.Timer(0.5, kill)
    timer.start()
    with pytest.raises(EngineTerminatedError, match="terminated") as caught:
        engine.play(Position())  # no clock, level 60: searches until killed
    assert killed_at and time.monotonic() - killed_at[0] < 1.0
    assert "-9" in str(caught.value) or "stdout" in str(caught.value)
    # Later requests fail at once too.
    t0 = time.monotonic()
    with pytest.raises(EngineTerminatedError):
        engine.play(Position())
    assert time.monotonic() - t0 < 1.0


def test_killed_mid_search_nboard(engines: list, tsuru_bin: str) -> None:
    engine = start(engines, [tsuru_bin, "--nboard", *FLAGS])
    analysis = engine.analysis(Position(), Limit(depth=60))
    next(analysis)
    killed_at: List[float] = []

    def kill() -> None:
        killed_at.append(time.monotonic())
        os.kill(engine.pid, signal.SIGKILL)

    timer = threading.Timer(0.3, kill)
    timer.start()
    with pytest.raises(EngineTerminatedError):
        for _ in analysis:
            pass
    assert killed_at and time.monotonic() - killed_at[0] < 1.0


def test_engine_exit_during_genmove(engines: list, fake_engine: List[str]) -> None:
    engine = start(engines, [*fake_engine, "crash-genmove"])
    t0 = time.monotonic()
    with pytest.raises(EngineTerminatedError, match="exit code 3"):
        engine.play(Position())
    assert time.monotonic() - t0 < 1.0


def test_malformed_reply_raises_engine_error(engines: list, fake_engine: List[str]) -> None:
    engine = start(engines, [*fake_engine, "garbage-genmove"])
    assert isinstance(engine, GtpEngine) and engine.name == "fake 1.0"
    with pytest.raises(EngineError) as caught:
        engine.play(Position())
    assert not isinstance(caught.value, (EngineTerminatedError, EngineTimeoutError))
    assert "'garbage'" in str(caught.value)
    # An illegal move is refused the same way, quoting the answer.
    assert engine.command("name") == "fake"  # back in step after the broken answer
    engine = start(engines, [*fake_engine, "illegal-genmove"])
    with pytest.raises(EngineError, match="illegal move.*A1"):
        engine.play(Position())


def test_timeouts(engines: list, fake_engine: List[str]) -> None:
    for protocol in (None, "gtp", "nboard"):
        t0 = time.monotonic()
        with pytest.raises(EngineTimeoutError):
            Engine.popen([*fake_engine, "silent"], protocol=protocol, timeout=0.5)
        assert 0.5 <= time.monotonic() - t0 < 2.0
    engine = start(engines, [*fake_engine, "silent-genmove"], timeout=0.5)
    t0 = time.monotonic()
    with pytest.raises(EngineTimeoutError):
        engine.play(Position(), Limit(time=0.3))  # waits the clock plus the timeout
    assert 0.8 <= time.monotonic() - t0 < 2.0
    engine = start(engines, [*fake_engine, "silent-genmove"], timeout=5)
    t0 = time.monotonic()
    with pytest.raises(EngineTimeoutError):
        engine.play(Position(), timeout=0.4)  # an untimed search given its own timeout
    assert 0.4 <= time.monotonic() - t0 < 1.5


def test_gtp_gets_back_in_step_after_a_late_answer(engines: list, fake_engine: List[str]) -> None:
    engine = start(engines, [*fake_engine, "slow-genmove"], timeout=5)
    with pytest.raises(EngineTimeoutError):
        engine.play(Position(), timeout=0.3)  # answered "= D3" after a second: too late
    # The late "= D3" is dropped, not taken for the answer to a later command.
    assert engine.command("name") == "fake"
    assert engine.command("version") == "1.0"
    result = engine.play(Position(), timeout=3)
    assert result.move == parse_move("d3")


# ----- clean-up ---------------------------------------------------------------------------


def test_quit_context_manager_and_garbage_collection(tsuru_bin: str) -> None:
    with Engine.popen([tsuru_bin, *FLAGS]) as engine:
        assert engine.returncode is None
        engine.play(Position(), Limit(depth=2))
    assert engine.returncode == 0  # quit, exited by itself
    engine.quit()  # twice is fine
    with pytest.raises(EngineError):
        engine.play(Position())
    engine = Engine.popen([tsuru_bin, "--gtp", *FLAGS])
    process = engine._process.proc
    del engine
    gc.collect()
    assert process.wait(timeout=2) is not None


def test_no_engine_left_behind_at_exit(fake_engine: List[str], tmp_path) -> None:
    """An engine that ignores EOF (the fake, asleep in genmove) is killed at interpreter exit."""
    script = tmp_path / "leave.py"
    script.write_text(
        textwrap.dedent(
            f"""
            from tsuru.engine import Engine
            engine = Engine.popen({[*fake_engine, "silent-genmove"]!r})
            engine._process.send("genmove b")
            print(engine.pid, flush=True)
            """
        )
    )
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=20)
    assert out.returncode == 0, out.stderr
    pid = int(out.stdout.split()[0])
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.fail(f"engine process {pid} was left running")
