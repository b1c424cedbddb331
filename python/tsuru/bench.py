"""Speed of the compiled engine called from Python: ``python3 -m tsuru.bench [--runs N]``.

Prints calls a second of the board's basic calls (``legal_moves``, ``push`` with ``pop``,
``copy``) and the nodes a second of ``tsuru bench``'s ten positions searched in-process, to
the same depths from a cleared table, so that its node total equals the binary's bench
signature and the two speeds compare directly (run ``tsuru bench`` beside it). A
benchmark, not a test: it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable, List, Tuple

from ._native import Board, Searcher

#: ``tsuru bench``'s positions (crates/tsuru-lab/src/tools/bench.rs): how to reach each, and its depth.
BENCH_POSITIONS: List[Tuple[str, int]] = [
    ("", 12),
    ("f5d6c4d3c2b3b4b5", 12),
    ("f5f4g3g6f3g4e3e2", 12),
    ("f5f6d3c5d6c7b5e3", 12),
    ("f5d6c3d3c4f4f6f3e6e7", 11),
    ("f5f6e6d6f7g6h5g4", 12),
    ("O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X", 12),
    ("---XXXX-X-XXXO--XXOXOO--XXXOXO--XXOXXO---OXXXOO-O-OOOO------OO-- X", 12),
    ("----X-----XXX----OOOXOOO-OOOXOOO-OXOXOXO-OOXXOOO--OOXO----O--O-- X", 12),
    ("--------X-X------XXXXOOOOOXOXX--OOOXXXX-OOXXXX--O-OOOX-----OO--- O", 12),
]


def bench_board(setup: str) -> Board:
    return Board(setup) if len(setup) >= 64 else Board(moves=setup)


def bench_search(searcher: Searcher) -> Tuple[int, float]:
    """``tsuru bench`` in-process: (total nodes, seconds spent searching)."""
    nodes, seconds = 0, 0.0
    for setup, depth in BENCH_POSITIONS:
        board = bench_board(setup)
        searcher.clear()
        result = searcher.search(board, level=depth, endgame=False)
        nodes += result.nodes
        seconds += result.time
    return nodes, seconds


def calls_per_second(call: Callable[[], object], seconds: float = 0.3) -> float:
    count, started = 0, time.perf_counter()
    while True:
        for _ in range(1000):
            call()
        count += 1000
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            return count / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="repetitions; medians are printed (default 9)")
    args = parser.parse_args()

    board = Board(moves="f5d6c3d3c4f4f6f3e6e7")
    move = board.legal_moves()[0]

    def push_pop() -> None:
        board.push(move)
        board.pop()

    for name, call in (("legal_moves", board.legal_moves), ("push+pop", push_pop), ("copy", board.copy)):
        rate = statistics.median(calls_per_second(call) for _ in range(args.runs))
        print(f"{name:<12} {rate / 1e6:8.3f} M calls/s")

    # One thread: the signature is the binary's only on one.
    searcher = Searcher(hash_mb=64, threads=1)
    runs = [bench_search(searcher) for _ in range(args.runs)]
    nodes = runs[0][0]
    seconds = statistics.median(s for _, s in runs)
    print(f"bench        signature {nodes}  median {seconds:.4f} s  {nodes / seconds / 1e6:.2f} M nodes/s")


if __name__ == "__main__":
    main()
