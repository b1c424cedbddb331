"""Shared fixtures: the tsuru binary (built if missing), GRhino, and the fake engine."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator, List

import pytest

PYTHON_DIR = Path(__file__).resolve().parent.parent
REPO_ROOT = PYTHON_DIR.parent

# The package under test is the installed one (`pip install ./python` builds its compiled
# part, tsuru._native); the source folder alone cannot be imported without it.
try:
    import tsuru._native  # noqa: F401
except ImportError as err:  # pragma: no cover - a setup error, reported once
    raise pytest.UsageError(
        f"the tsuru package is not installed with its compiled part ({err}); "
        "run `python3 -m pip install ./python` from the repository root first"
    ) from err

GRHINO = "/usr/games/gtp-rhino"
FAKE_ENGINE = Path(__file__).resolve().parent / "fake_gtp_engine.py"


@pytest.fixture(scope="session")
def tsuru_bin() -> str:
    """$TSURU_BIN, else target/release/tsuru (built with `cargo build --release` if missing)."""
    path = os.environ.get("TSURU_BIN")
    if path:
        if not os.access(path, os.X_OK):
            pytest.fail(f"TSURU_BIN={path} is not an executable file")
        return path
    binary = REPO_ROOT / "target" / "release" / "tsuru"
    if not binary.exists():
        cargo = shutil.which("cargo")
        if cargo is None:
            pytest.skip(f"{binary} is missing and cargo is not installed to build it")
        build = subprocess.run(
            [cargo, "build", "--release"], cwd=REPO_ROOT, capture_output=True, text=True
        )
        if build.returncode != 0 or not binary.exists():
            pytest.fail(f"cargo build --release failed:\n{build.stderr[-3000:]}")
    return str(binary)


@pytest.fixture(scope="session")
def grhino_bin() -> str:
    """GRhino's GTP front end (Debian package grhino); the test is skipped without it."""
    path = os.environ.get("GRHINO_BIN", GRHINO)
    if not os.access(path, os.X_OK):
        pytest.skip(f"GRhino is not installed ({path} is missing; `apt-get install grhino`)")
    return path


@pytest.fixture(scope="session")
def ntest_command() -> List[str]:
    """NTest started in $NTEST_DIR (a folder made by ../shared/tools/build-ntest.sh: the
    binary with its coefficients); the test is skipped when it is not set."""
    folder = os.environ.get("NTEST_DIR")
    if not folder:
        pytest.skip("NTest is not built here (set NTEST_DIR to a folder from build-ntest.sh)")
    if not os.access(os.path.join(folder, "ntest"), os.X_OK):
        pytest.fail(f"NTEST_DIR={folder} has no ntest binary")
    return ["sh", "-c", f"cd '{folder}' && exec ./ntest x"]


@pytest.fixture
def fake_engine() -> List[str]:
    """The command of the fake GTP engine; append a mode (see fake_gtp_engine.py)."""
    return [sys.executable, str(FAKE_ENGINE)]


@pytest.fixture
def engines() -> Iterator[list]:
    """A list to put engines in; each is killed at the end of the test."""
    started: list = []
    yield started
    for engine in started:
        engine.kill()
