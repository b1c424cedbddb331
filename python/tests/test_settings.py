"""The option registry: every option more than one entry point takes is declared once in the
engine (tsuru_core::cli::search_options::REGISTRY) and read the same way by the engine's flag,
Python's keyword argument and the typed stub. Values the engine's parser refuses, Python
refuses; values it accepts, Python accepts."""

from __future__ import annotations

import inspect
import re
import subprocess
from pathlib import Path

import pytest

import tsuru
from tsuru import Board, _native

from test_othello import FFO_1

#: Values to try for each registered option, accepted and refused ones.
SAMPLES = {
    "--threads": ["1", "2", "512", "0", "513", "x"],
    "--hash": ["1", "64", "65536", "0", "65537", "-3"],
    "--level": ["1", "12", "60", "0", "61", "depth"],
    "--move-time": ["0.05", "2", "0", "-1", "nan"],
    "--probcut": ["0", "1.1", "10", "10.5", "-1"],
    "--eval-file": [],
}

#: What each Python keyword is passed to, with a value.
def call(keyword: str, value: str) -> None:
    if keyword in ("threads", "hash_mb"):
        tsuru.Searcher(**{keyword: int(value)})
    elif keyword == "level":
        tsuru.search(Board(FFO_1), level=int(value))
    elif keyword == "time":
        tsuru.search(Board(FFO_1), time=float(value))
    else:
        raise AssertionError(f"no call for {keyword}")


def registry() -> list:
    entries = _native.settings()
    assert {flag for flag, *_ in entries} == set(SAMPLES), "a sample list for every option"
    return entries


def test_the_python_keywords_are_the_registrys_in_the_signatures_and_the_stub() -> None:
    stub = (Path(tsuru.__file__).parent / "_native.pyi").read_text()
    signatures = [inspect.signature(tsuru.search), inspect.signature(tsuru.Searcher)]
    keywords = [python for _, _, python, _, _, _ in registry() if python]
    assert keywords == ["threads", "hash_mb", "eval_file", "level", "time"]
    for keyword in keywords:
        assert any(keyword in s.parameters for s in signatures), keyword
        assert re.search(rf"\b{keyword}: ", stub), f"{keyword} typed in _native.pyi"
    # NBoard's `set depth` is the level.
    assert [(flag, nboard) for flag, _, _, nboard, _, _ in registry() if nboard] == [("--level", "depth")]


def test_python_states_the_registrys_one_default_of_each_setting() -> None:
    defaults = {flag: default for flag, _, _, _, _, default in registry()}
    assert defaults["--hash"] == "64" and defaults["--threads"] == "every core"
    stub = (Path(tsuru.__file__).parent / "_native.pyi").read_text()
    for function in (tsuru.search, tsuru.solve, tsuru.Searcher, tsuru.review):
        parameters = inspect.signature(function).parameters
        assert parameters["hash_mb"].default == int(defaults["--hash"]), function
        # None: every core, as the engine's --threads.
        assert parameters["threads"].default is None, function
    assert "hash_mb: int = 16" not in stub and "threads: int = 1" not in stub


def test_python_and_the_engines_flag_accept_the_same_values(tsuru_bin: str) -> None:
    checked = 0
    for flag, _, keyword, _, _, _ in registry():
        for text in SAMPLES[flag]:
            try:
                _native.check_setting(flag, text)
                accepted = True
            except ValueError:
                accepted = False
            # The engine's flag: it starts and ends at once on a closed stdin, or refuses.
            out = subprocess.run(
                [tsuru_bin, flag, text], stdin=subprocess.DEVNULL, capture_output=True,
                text=True, timeout=60,
            )
            assert (out.returncode == 0) == accepted, (flag, text, out.stderr)
            if not accepted:
                assert f"option {flag}" in out.stderr, out.stderr
            if keyword and re.fullmatch(r"-?[0-9.]+", text):
                if accepted:
                    call(keyword, text)
                else:
                    with pytest.raises(ValueError, match=re.escape(f"{keyword} ({flag})")):
                        call(keyword, text)
            checked += 1
    assert checked == sum(len(v) for v in SAMPLES.values())
