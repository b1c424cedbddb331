//! Bitboard operations on the derived view of the board.
//!
//! A bitboard is a `u64` with bit `8 * row + col` set for each square in the set (a1 = bit 0,
//! h8 = bit 63). The board module keeps one bitboard per colour in step with the mailbox; the
//! functions here are pure and take the side to move's discs `p` and the opponent's `o`.
//!
//! Measured on perft (see `tsuru perft --reference`): generating moves and flips from these
//! bitboards is several times faster than the seeds' per-direction mailbox scan, which stays
//! in [`super::scan`] as the reference the tests compare against.

/// The eight directions as (column step, row step).
pub const DIRECTIONS: [(i32, i32); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (-1, -1),
    (-1, 1),
    (1, -1),
];

/// `RAYS[d][sq]`: the squares from `sq` (exclusive) to the edge in direction `d`.
/// Directions 0, 2, 4, 6 increase the bit index, 1, 3, 5, 7 decrease it.
const RAYS: [[u64; 64]; 8] = {
    let mut rays = [[0u64; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let (dc, dr) = DIRECTIONS[d];
        let mut sq = 0;
        while sq < 64 {
            let mut c = (sq % 8) as i32 + dc;
            let mut r = (sq / 8) as i32 + dr;
            let mut ray = 0u64;
            while c >= 0 && c < 8 && r >= 0 && r < 8 {
                ray |= 1u64 << (r * 8 + c);
                c += dc;
                r += dr;
            }
            rays[d][sq] = ray;
            sq += 1;
        }
        d += 1;
    }
    rays
};

/// The opponent discs that a disc placed on square `sq` by the side owning `p` would flip.
/// Zero when the move is illegal (or `sq` is occupied by `o` only in the sense that no line
/// closes; callers must not pass an occupied square).
#[inline]
pub fn flips(p: u64, o: u64, sq: usize) -> u64 {
    let mut flipped = 0u64;
    // Increasing directions: the first non-opponent square is the lowest set bit.
    let mut d = 0;
    while d < 8 {
        let ray = RAYS[d][sq];
        let stop = ray & !o;
        if stop != 0 {
            let first = stop & stop.wrapping_neg();
            if first & p != 0 {
                flipped |= ray & (first - 1);
            }
        }
        d += 2;
    }
    // Decreasing directions: the first non-opponent square is the highest set bit.
    let mut d = 1;
    while d < 8 {
        let ray = RAYS[d][sq];
        let stop = ray & !o;
        if stop != 0 {
            let first_index = 63 - stop.leading_zeros();
            if (p >> first_index) & 1 != 0 {
                flipped |= ray & (u64::MAX << first_index << 1);
            }
        }
        d += 2;
    }
    flipped
}

/// Squares where the side owning `p` may play: empty squares that flip at least one disc.
#[inline]
pub fn mobility(p: u64, o: u64) -> u64 {
    // Masks stop horizontal and diagonal runs from wrapping around the board's edge.
    const NOT_EDGE_COLS: u64 = 0x7e7e_7e7e_7e7e_7e7e;
    let empty = !(p | o);
    let inner = o & NOT_EDGE_COLS;
    let mut moves = 0u64;
    for (shift, mask) in [(1u32, inner), (8, o), (7, inner), (9, inner)] {
        let mut up = mask & (p << shift);
        let mut down = mask & (p >> shift);
        for _ in 0..5 {
            up |= mask & (up << shift);
            down |= mask & (down >> shift);
        }
        moves |= (up << shift) | (down >> shift);
    }
    moves & empty
}

/// The squares of a bitboard, lowest first.
#[inline]
pub fn squares(mut bits: u64) -> impl Iterator<Item = super::Square> {
    std::iter::from_fn(move || {
        if bits == 0 {
            None
        } else {
            let square = super::Square::from_lowest_bit(bits);
            bits &= bits - 1;
            Some(square)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rays_have_expected_lengths() {
        // a1 towards h1 holds b1..h1; a1 towards h8 holds b2..h8.
        assert_eq!(RAYS[0][0].count_ones(), 7);
        assert_eq!(RAYS[4][0].count_ones(), 7);
        assert_eq!(RAYS[1][0], 0);
        assert_eq!(RAYS[5][63].count_ones(), 7);
    }

    #[test]
    fn start_position_mobility_and_flips() {
        // Black: e4 (28), d5 (35); White: d4 (27), e5 (36).
        let black = (1 << 28) | (1 << 35);
        let white = (1 << 27) | (1 << 36);
        let moves = mobility(black, white);
        // d3 (19), c4 (26), f5 (37), e6 (44)
        assert_eq!(moves, (1 << 19) | (1 << 26) | (1 << 37) | (1 << 44));
        assert_eq!(flips(black, white, 37), 1 << 36);
        assert_eq!(flips(black, white, 19), 1 << 27);
        assert_eq!(flips(black, white, 0), 0);
    }
}
