#!/usr/bin/env python3
"""How many bytes a self-play game would take in a more compact shard encoding: measures the
choice of the next data format (issue 53: the repository's 60 MB budget) before building it.

Reads the first games of a v2 or v3 self-play file (`tsuru datagen`, plain or gzipped) and
prints, per game after `gzip -9`:

- the text lines as they are (what the shards hold now);
- each move as its index among the side to move's legal squares in square order (a1 = 0 ..
  h8 = 63; passes left out, since they follow from the position), one byte a move, with the
  game's header numbers and its recorded scores as bytes beside them (xz too, for comparison).

    python3 crates/tsuru-lab/scripts/shard_encoding.py data/selfplay-49/selfplay-49-0.txt.gz --games 3000

The game number (the line's position in its shard) is left out of the compact form. Pure
Python with no dependency; about a second per 300 games. (The v4 files `tsuru datagen` now
writes, `crates/tsuru-core/src/formats/selfplay.rs`, came from this measurement: ranks among the legal moves as
text characters, ordered by the opponent's replies, and the scores as differences: 45.3 bytes
a game with `gzip -9` where this script's bytes gave 49.7.)
"""

import argparse
import gzip
import lzma

DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def flips(player, opponent, square):
    """The discs of `opponent` a disc of `player` on `square` flips (0: illegal)."""
    row, col = divmod(square, 8)
    flipped = 0
    for dr, dc in DIRECTIONS:
        r, c, run = row + dr, col + dc, 0
        while 0 <= r < 8 and 0 <= c < 8 and opponent >> (r * 8 + c) & 1:
            run |= 1 << (r * 8 + c)
            r, c = r + dr, c + dc
        if run and 0 <= r < 8 and 0 <= c < 8 and player >> (r * 8 + c) & 1:
            flipped |= run
    return flipped


def legal_squares(player, opponent):
    """The side to move's legal squares, in square order."""
    empty = ~(player | opponent) & ((1 << 64) - 1)
    return [sq for sq in range(64) if empty >> sq & 1 and flips(player, opponent, sq)]


def move_indices(moves):
    """Each move of a game's move string (`d3c3..`, `pa` for a pass) as its index among the
    legal squares of its position; passes dropped."""
    player, opponent = (1 << 28) | (1 << 35), (1 << 27) | (1 << 36)
    indices = []
    for i in range(0, len(moves), 2):
        word = moves[i : i + 2]
        if word == "pa":
            player, opponent = opponent, player
            continue
        square = (ord(word[0]) - ord("a")) + 8 * (int(word[1]) - 1)
        indices.append(legal_squares(player, opponent).index(square))
        flipped = flips(player, opponent, square)
        player |= flipped | (1 << square)
        opponent &= ~flipped
        player, opponent = opponent, player
    return indices


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="a tsuru self-play file (.txt or .txt.gz)")
    parser.add_argument("--games", type=int, default=3000, help="games to read (default 3000)")
    args = parser.parse_args()
    opener = gzip.open if args.file.endswith(".gz") else open
    with opener(args.file, "rt") as f:
        games = []
        for line in f:
            if line.startswith("#"):
                continue
            games.append(line.split())
            if len(games) == args.games:
                break
    text, compact = bytearray(), bytearray()
    for words in games:
        text += (" ".join(words) + "\n").encode()
        # The numbers after the game's own: each fits a byte (two's complement for scores).
        compact += bytes(int(word) & 0xFF for word in words[1:4])
        indices = move_indices(words[4])
        compact += bytes([len(indices)]) + bytes(indices)
        scores = words[5].encode() if len(words) > 5 else b""
        compact += bytes([len(scores)]) + scores
    n = len(games)
    print(f"{n} games")
    print(f"text, gzip -9:            {len(gzip.compress(bytes(text), 9)) / n:.1f} bytes a game")
    print(f"move indices, gzip -9:    {len(gzip.compress(bytes(compact), 9)) / n:.1f} bytes a game")
    print(f"move indices, xz -9:      {len(lzma.compress(bytes(compact), preset=9)) / n:.1f} bytes a game")


if __name__ == "__main__":
    main()
