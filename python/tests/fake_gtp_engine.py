"""A fake GTP engine for the tests: it speaks GTP well enough but misbehaves in one way.

Usage: python fake_gtp_engine.py MODE, where MODE is one of
  garbage-genmove  answers `genmove` with the line `garbage`
  illegal-genmove  answers `genmove` with `= A1` (never legal early in a game)
  silent-genmove   never answers `genmove`
  slow-genmove     answers `genmove` with `= D3` after a second
  crash-genmove    exits with status 3 on `genmove`
  silent           answers nothing at all
  good             answers `genmove` with `= pass`
"""

import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"


def reply(text: str = "") -> None:
    sys.stdout.write(f"= {text}\n\n" if text else "=\n\n")
    sys.stdout.flush()


def main() -> None:
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        command = words[0].lower()
        if MODE == "silent":
            continue
        if command == "quit":
            reply()
            return
        if command == "name":
            reply("fake")
        elif command == "version":
            reply("1.0")
        elif command == "list_commands":
            reply("name\nversion\nlist_commands\nclear_board\nplay\ngenmove\nquit")
        elif command in ("clear_board", "play", "boardsize", "time_settings", "time_left"):
            reply()
        elif command == "genmove":
            if MODE == "garbage-genmove":
                sys.stdout.write("garbage\n\n")
                sys.stdout.flush()
            elif MODE == "illegal-genmove":
                reply("A1")
            elif MODE == "silent-genmove":
                time.sleep(3600)
            elif MODE == "slow-genmove":
                time.sleep(1.0)
                reply("D3")
            elif MODE == "crash-genmove":
                sys.exit(3)
            else:
                reply("pass")
        else:
            sys.stdout.write("? unknown command\n\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
