#!/usr/bin/env python3
"""Positions of self-play games at a given number of empty squares, as OBF lines.

Reads `tsuru datagen` files (one game a line: index, random moves, solve point, result,
moves; a v4 file's moves are ranks, turned back into the transcript here) and writes, for every K-th game, its position at E empties (skipping a game whose
side to move must pass there) as an OBF line without scores, the input of
`tsuru solve FILE --write-obf OUT`, which solves every move and makes a validation set:

    python3 crates/tsuru-lab/scripts/selfplay_positions.py --empties 24 --every 15 selfplay-*.txt > sp24.obf
    tsuru solve sp24.obf --write-obf data/validation/selfplay-24.obf

Pure Python, no dependencies.
"""

import argparse
import sys

DIRS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def flips(board, side, square):
    """The squares `side` flips by playing `square` (row, column), or [] if illegal."""
    r0, c0 = square
    if board[r0][c0] != ".":
        return []
    other = "O" if side == "X" else "X"
    out = []
    for dr, dc in DIRS:
        r, c, line = r0 + dr, c0 + dc, []
        while 0 <= r < 8 and 0 <= c < 8 and board[r][c] == other:
            line.append((r, c))
            r, c = r + dr, c + dc
        if line and 0 <= r < 8 and 0 <= c < 8 and board[r][c] == side:
            out.extend(line)
    return out


def has_move(board, side):
    return any(flips(board, side, (r, c)) for r in range(8) for c in range(8))


RANKS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def play(board, side, square):
    """Plays a legal `square` for `side` in place."""
    for r, c in flips(board, side, square):
        board[r][c] = side
    board[square[0]][square[1]] = side


def v4_transcript(ranks):
    """The transcript of a v4 line's moves field: each character is the move's rank among
    the legal squares ordered by the opponent's replies after it, fewest first, then by
    square (a1 = 0 .. h8 = 63); passes, left out there, are put back as `pa`."""
    board = [["."] * 8 for _ in range(8)]
    board[3][3] = board[4][4] = "O"
    board[3][4] = board[4][3] = "X"
    side, out = "X", []
    for char in ranks:
        other = "O" if side == "X" else "X"
        if not has_move(board, side):
            out.append("pa")
            side, other = other, side
        ranked = []
        for r in range(8):
            for c in range(8):
                if flips(board, side, (r, c)):
                    child = [row[:] for row in board]
                    play(child, side, (r, c))
                    replies = sum(1 for rr in range(8) for cc in range(8) if flips(child, other, (rr, cc)))
                    ranked.append((replies, 8 * r + c))
        ranked.sort()
        square = ranked[RANKS.index(char)][1]
        row, col = divmod(square, 8)
        play(board, side, (row, col))
        out.append("abcdefgh"[col] + str(row + 1))
        side = other
    return "".join(out)


def position_at(moves, empties):
    """The board and side to move when `empties` squares are empty, or None."""
    board = [["."] * 8 for _ in range(8)]
    board[3][3] = board[4][4] = "O"
    board[3][4] = board[4][3] = "X"
    side = "X"
    i = 0
    while i < len(moves):
        if sum(row.count(".") for row in board) == empties:
            if not has_move(board, side):
                return None
            return board, side
        word = moves[i : i + 2].lower()
        i += 2
        if word == "pa":
            side = "O" if side == "X" else "X"
            continue
        square = (int(word[1]) - 1, ord(word[0]) - ord("a"))
        turned = flips(board, side, square)
        if not turned:
            raise ValueError(f"illegal move {word}")
        board[square[0]][square[1]] = side
        for r, c in turned:
            board[r][c] = side
        side = "O" if side == "X" else "X"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--empties", type=int, default=24)
    parser.add_argument("--every", type=int, default=1, help="take every K-th game")
    args = parser.parse_args()
    count = 0
    for name in args.files:
        with open(name) as f:
            header = f.readline()
            v4 = header.split()[3:4] == ["v4"]
            for number, line in enumerate(line for line in f if not line.startswith("#")):
                if number % args.every:
                    continue
                words = line.split()
                if len(words) < 5:
                    continue
                moves = v4_transcript(words[4]) if v4 else words[4]
                found = position_at(moves, args.empties)
                if found is None:
                    continue
                board, side = found
                squares = "".join("".join(row) for row in board).replace(".", "-")
                print(f"{squares} {side}; % {name} game {words[0]}")
                count += 1
    print(f"{count} positions", file=sys.stderr)


if __name__ == "__main__":
    main()
