#!/usr/bin/env python3
"""How close each training label of self-play positions is to the exact value: the players'
recorded search score (v3 files), the game's result, a shallow search made now, and the
blends `tsuru train` makes of them (`--search-weight 0.5`, with and without
`--recorded-scores`).

Draws positions with a recorded score at a range of empties from a v3 self-play file, solves
each exactly (one thread) and prints each label's mean absolute error and correlation:

    python3 crates/tsuru-lab/scripts/label_quality.py data/selfplay-49/selfplay-49-0.txt.gz --empties 21-24 --count 400

The range must be solvable in reasonable time (24 empties: about a second a position). Where it
is not, `--reference-depth D` measures against a D-ply search of the shipped evaluation
instead of the exact value (a proxy: its errors are not independent of the recorded score's,
which came from a shallower search of the same kind). It also prints, for each weight W of the
recorded score, the blend `W * score + (1 - W) * result` (`tsuru train --recorded-weights`).
Needs the Python package (`pip install ./python`) and NumPy.
"""

import argparse
import time

import numpy as np

from tsuru import Board, search, solve
from tsuru.data import NO_SCORE, selfplay_positions
from tsuru.othello import BLACK


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", help="a v3 self-play file (gzipped or not)")
    parser.add_argument("--empties", default="21-24", help="MIN-MAX empties (default 21-24)")
    parser.add_argument("--count", type=int, default=400, help="positions (default 400)")
    parser.add_argument("--depth", type=int, default=4, help="the shallow search's depth (default 4)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--reference-depth", type=int, default=0, help="compare with a search this deep, not the exact value"
    )
    args = parser.parse_args()
    low, high = (int(x) for x in args.empties.split("-"))

    data = selfplay_positions(args.file)
    pool = np.where((data["score"] != NO_SCORE) & (data["empties"] >= low) & (data["empties"] <= high))[0]
    chosen = np.random.default_rng(args.seed).choice(pool, size=min(args.count, len(pool)), replace=False)
    started = time.time()
    rows = []
    for i in chosen:
        board = Board.from_bitboards(int(data["player"][i]), int(data["opponent"][i]), BLACK)
        if args.reference_depth:
            exact = search(board, depth=args.reference_depth, endgame=False, hash_mb=64).score
        else:
            exact = solve(board).score
        shallow = search(board, level=args.depth, endgame=False).score
        rows.append((exact, int(data["score"][i]), int(data["result"][i]), shallow))
    exact, score, result, shallow = np.array(rows, dtype=float).T
    labels = {
        "recorded search score": score,
        "game result": result,
        f"{args.depth}-ply search now": shallow,
        f"0.5 result + 0.5 {args.depth}-ply search": 0.5 * result + 0.5 * shallow,
        "0.5 result + 0.5 recorded score": 0.5 * result + 0.5 * score,
    }
    reference = f"a {args.reference_depth}-ply search" if args.reference_depth else "the exact value"
    print(
        f"against {reference}: {len(rows)} positions at {low}-{high} empties from {data['game'].max() + 1} games "
        f"({time.time() - started:.0f} s); mean |exact| {np.mean(np.abs(exact)):.2f}"
    )
    for name, label in labels.items():
        mae = np.mean(np.abs(label - exact))
        corr = np.corrcoef(label, exact)[0, 1]
        print(f"  {name:<36} mean abs. error {mae:5.2f}  correlation {corr:.3f}")
    weights = np.linspace(0.0, 1.0, 21)
    errors = [np.mean(np.abs(w * score + (1 - w) * result - exact)) for w in weights]
    print("  W * recorded + (1 - W) * result: " + ", ".join(f"{w:.2f} {e:.2f}" for w, e in zip(weights[::5], errors[::5])))
    best = int(np.argmin(errors))
    print(f"  best W {weights[best]:.2f}: mean abs. error {errors[best]:.2f}")


if __name__ == "__main__":
    main()
