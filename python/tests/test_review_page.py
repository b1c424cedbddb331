"""The page `tsuru review --html` writes, in a real browser driven as a user drives it.

Headless Chromium (Debian's `chromium`, which .ci/run installs) is started with the DevTools
protocol on a pipe (`--remote-debugging-pipe`: Chromium reads commands on its fd 3 and
writes replies and events on its fd 4, each a JSON message ended by a NUL byte). The test
loads the page of a real game, presses the right arrow key 20 times and reads the board back
from the page's DOM: it must be `tsuru.Board` after the game's first 20 moves, with the
20th move marked and the review's best move for the 21st. A click on the graph's point of
move 40 must show move 40. No script error or console error is allowed, and a screenshot is
kept in target/review-screenshot-keys.png (a CI artefact).

Without /usr/bin/chromium the test is skipped, except in CI (CI=true), where that fails. Every
read from the browser has a time limit, so a hung browser fails the test.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import select
import subprocess
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

import tsuru

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
CHROMIUM = "/usr/bin/chromium"
#: The screenshot, kept by CI.
SCREENSHOT = REPO_ROOT / "target" / "review-screenshot-keys.png"
#: The browser's window, and so the screenshot's size.
WIDTH, HEIGHT = 1200, 900
#: Seconds to wait for any one reply or event.
READ_LIMIT = 30.0


def chromium() -> str:
    if os.access(CHROMIUM, os.X_OK):
        return CHROMIUM
    if os.environ.get("CI") == "true":
        pytest.fail(f"{CHROMIUM} is missing in CI (.ci/run installs Debian's chromium)")
    pytest.skip(f"{CHROMIUM} is not installed (Debian's chromium): the page is not loaded")


class DevTools:
    """A client of the DevTools protocol over Chromium's pipe: commands with their replies,
    and the events that arrive meanwhile, kept in order."""

    def __init__(self, binary: str, profile: Path, log: Path) -> None:
        # Chromium reads commands on fd 3 and writes on fd 4. The pipes' ends are passed
        # (pass_fds) at the numbers they have here, and bash moves them to 3 and 4 (and
        # closes the originals) before it becomes Chromium.
        commands_read, self.commands = os.pipe()
        self.replies, replies_write = os.pipe()
        self.buffer = b""
        self.next_id = 0
        self.events: List[Dict[str, Any]] = []
        args = [
            binary,
            "--headless",
            "--remote-debugging-pipe",
            "--no-sandbox",
            "--disable-gpu",
            f"--user-data-dir={profile}",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--hide-scrollbars",
            f"--window-size={WIDTH},{HEIGHT}",
            "about:blank",
        ]
        move = (
            f"exec 3<&{commands_read} 4>&{replies_write} "
            f"{commands_read}<&- {replies_write}>&-; exec \"$@\""
        )
        self.log = open(log, "wb")
        self.process = subprocess.Popen(
            ["bash", "-c", move, "bash", *args],
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            pass_fds=(commands_read, replies_write),
        )
        # Chromium holds its own ends now: a closed pipe then means Chromium is gone.
        os.close(commands_read)
        os.close(replies_write)

    def close(self) -> None:
        try:
            if self.process.poll() is None:
                self.send("Browser.close", timeout=10)
        except (OSError, TimeoutError, EOFError, RuntimeError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        for fd in (self.commands, self.replies):
            os.close(fd)
        self.log.close()

    def _read(self, deadline: float) -> Dict[str, Any]:
        """The next message, or TimeoutError at ``deadline``."""
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            ready = select.select([self.replies], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                raise TimeoutError("Chromium sent nothing in time")
            chunk = os.read(self.replies, 1 << 16)
            if not chunk:
                raise EOFError(f"Chromium closed the DevTools pipe (exit {self.process.poll()})")
            self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(message)

    def send(
        self,
        method: str,
        params: Optional[Dict[str, Any]] = None,
        session: Optional[str] = None,
        timeout: float = READ_LIMIT,
    ) -> Dict[str, Any]:
        """Sends a command (to ``session``'s page, or to the browser) and returns its result;
        an error reply raises RuntimeError."""
        self.next_id += 1
        message: Dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self.commands, data) :]
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") != self.next_id:
                self.events.append(reply)
                continue
            if "error" in reply:
                raise RuntimeError(f"{method}: {reply['error']}")
            return reply["result"]

    def wait_for(self, method: str, session: str, timeout: float = READ_LIMIT) -> Dict[str, Any]:
        """The parameters of the first event ``method`` of ``session`` not yet waited for,
        kept already or to come."""
        deadline = time.monotonic() + timeout
        at = 0
        while True:
            for event in self.events[at:]:
                if event.get("method") == method and event.get("sessionId") == session:
                    if not event.get("waited"):
                        event["waited"] = True
                        return event["params"]
            at = len(self.events)
            self.events.append(self._read(deadline))

    def errors(self) -> List[str]:
        """The script errors and console errors the events report."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(json.dumps(params["exceptionDetails"])[:500])
            elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
                found.append(f"log: {params['entry'].get('text')} ({params['entry'].get('url')})")
            elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
                found.append(f"console.{params['type']}: {json.dumps(params['args'])[:300]}")
        return found


def evaluate(devtools: DevTools, session: str, expression: str) -> Any:
    """The value of a JavaScript expression in the page (JSON-like values)."""
    result = devtools.send(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session
    )
    assert "exceptionDetails" not in result, result
    return result["result"].get("value")


def press(devtools: DevTools, session: str, key: str, code: int) -> None:
    """Presses and releases ``key`` (its DOM key and code name, Windows key code ``code``)."""
    for kind in ("keyDown", "keyUp"):
        devtools.send(
            "Input.dispatchKeyEvent",
            {"type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code,
             "nativeVirtualKeyCode": code},
            session,
        )


def click(devtools: DevTools, session: str, x: float, y: float) -> None:
    """A left click at (x, y), CSS pixels of the viewport."""
    for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
        devtools.send(
            "Input.dispatchMouseEvent",
            {"type": kind, "x": x, "y": y, "button": "none" if kind == "mouseMoved" else "left",
             "clickCount": 0 if kind == "mouseMoved" else 1},
            session,
        )


#: The board's cells as the page shows them: square, disc, and the two markers.
READ_BOARD = """JSON.stringify(Array.from(document.querySelectorAll('#board .cell')).map(c =>
    [c.getAttribute('data-square'), c.getAttribute('data-disc'),
     c.hasAttribute('data-last'), c.hasAttribute('data-best')]))"""


def shown(devtools: DevTools, session: str) -> Dict[str, Any]:
    """The position the page shows: the disc of each square, the marked squares, the move."""
    cells = json.loads(evaluate(devtools, session, READ_BOARD))
    assert len(cells) == 64, cells
    return {
        "discs": {square: disc for square, disc, _, _ in cells},
        "last": [square for square, _, last, _ in cells if last],
        "best": [square for square, _, _, best in cells if best],
        "status": evaluate(devtools, session, "document.getElementById('status').textContent"),
        "hash": evaluate(devtools, session, "location.hash"),
    }


def discs(board: tsuru.Board) -> Dict[str, str]:
    """The disc of each square of ``board`` as the page names them."""
    out = {}
    for square in range(64):
        bit = 1 << square
        out[tsuru.move_name(square)] = (
            "black" if board.black & bit else "white" if board.white & bit else "empty"
        )
    return out


def png_size(png: bytes) -> tuple:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    # IHDR: the width and height, big-endian, at bytes 16 and 20.
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def test_the_page_shows_the_game_driven_by_keys_and_clicks(tsuru_bin: str, tmp_path: Path) -> None:
    binary = chromium()
    # A real game (tsuru against GRhino, a kept match record), reviewed by the command line.
    with gzip.open(REPO_ROOT / "matches" / "grhino-level5" / "games.ggf.gz", "rt") as f:
        ggf = f.readline()
    played = "".join(m.lower() for m in re.findall(r"[BW]\[([A-H][1-8])", ggf))
    game = tmp_path / "game.ggf"
    game.write_text(ggf)
    page = tmp_path / "review.html"
    out = subprocess.run(
        [tsuru_bin, "review", str(game), "--json", "--level", "8", "--threads", "1",
         "--html", str(page)],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    review = json.loads(out.stdout)
    best = {row["number"]: row["best"] for row in review["moves"]}

    devtools = DevTools(binary, tmp_path / "profile", tmp_path / "chromium.log")
    try:
        target = devtools.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = devtools.send(
            "Target.attachToTarget", {"targetId": target, "flatten": True}
        )["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            devtools.send(f"{domain}.enable", session=session)
        devtools.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
            session,
        )
        devtools.send("Emulation.setFocusEmulationEnabled", {"enabled": True}, session)
        devtools.send("Page.navigate", {"url": page.as_uri()}, session)
        devtools.wait_for("Page.loadEventFired", session)

        start = shown(devtools, session)
        assert start["discs"] == discs(tsuru.Board())
        assert start["status"] == "move 0 of 61"
        # Home, then the right arrow 20 times: the board after the first 20 moves.
        press(devtools, session, "Home", 36)
        for _ in range(20):
            press(devtools, session, "ArrowRight", 39)
        at20 = shown(devtools, session)
        assert at20["status"] == "move 20 of 61" and at20["hash"] == "#20"
        assert at20["discs"] == discs(tsuru.Board(moves=played[:40]))
        assert at20["last"] == [played[38:40]]
        assert at20["best"] == [best[21]]

        # A click on the graph's point of move 40 goes there.
        box = evaluate(
            devtools, session,
            """(function () {
                 var point = document.querySelector('#graph circle[data-move="40"]');
                 point.scrollIntoView({block: 'center'});
                 var r = point.getBoundingClientRect();
                 return [r.left + r.width / 2, r.top + r.height / 2];
               })()""",
        )
        click(devtools, session, box[0], box[1])
        at40 = shown(devtools, session)
        assert at40["status"] == "move 40 of 61", at40
        assert at40["discs"] == discs(tsuru.Board(moves=played[:80]))
        assert at40["last"] == [played[78:80]]

        # Back to move 20 by the left arrow, for the screenshot.
        for _ in range(20):
            press(devtools, session, "ArrowLeft", 37)
        evaluate(devtools, session, "window.scrollTo(0, 0)")
        assert shown(devtools, session)["discs"] == at20["discs"]
        shot = base64.b64decode(
            devtools.send("Page.captureScreenshot", {"format": "png"}, session)["data"]
        )
        assert png_size(shot) == (WIDTH, HEIGHT)
        SCREENSHOT.parent.mkdir(exist_ok=True)
        SCREENSHOT.write_bytes(shot)

        assert evaluate(devtools, session, "document.documentElement.dataset.errors") == "0"
        assert devtools.errors() == []
    finally:
        devtools.close()
        # Shown with a failure: what Chromium wrote.
        print((tmp_path / "chromium.log").read_text(errors="replace")[-3000:])
