//! The eight symmetries of the board (the dihedral group of the square).
//!
//! Othello's rules are invariant under all eight, so a position and its images have the same
//! game-theoretic value; the tests use this to check the solver and the evaluation.

use super::Square;

/// One of the eight symmetries. `0` is the identity; bit 0 mirrors columns (a <-> h),
/// bit 1 mirrors rows (1 <-> 8), bit 2 transposes (a1-h8 diagonal), applied in that order
/// after the transpose.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Symmetry(u8);

impl Symmetry {
    /// All eight symmetries, the identity first.
    pub const ALL: [Symmetry; 8] = [
        Symmetry(0),
        Symmetry(1),
        Symmetry(2),
        Symmetry(3),
        Symmetry(4),
        Symmetry(5),
        Symmetry(6),
        Symmetry(7),
    ];

    /// The image of a square.
    pub fn apply(self, square: Square) -> Square {
        let (mut col, mut row) = (square.col(), square.row());
        if self.0 & 4 != 0 {
            std::mem::swap(&mut col, &mut row);
        }
        if self.0 & 1 != 0 {
            col = 7 - col;
        }
        if self.0 & 2 != 0 {
            row = 7 - row;
        }
        Square::from_coords(col, row).expect("symmetry keeps squares on the board")
    }

    /// The symmetry that undoes this one: `s.inverse().apply(s.apply(x)) == x` for every
    /// square (each symmetry is its own inverse except the two quarter turns, which swap).
    pub fn inverse(self) -> Symmetry {
        // Two squares off every axis and diagonal, whose images fix the symmetry.
        let probes = [Square::ALL[1], Square::ALL[2]];
        *Symmetry::ALL
            .iter()
            .find(|t| probes.iter().all(|&sq| t.apply(self.apply(sq)) == sq))
            .expect("the eight symmetries form a group")
    }

    /// The image of a bitboard: the same as mapping every square with [`Symmetry::apply`],
    /// in a few word operations (the book takes eight images of every position it meets).
    pub fn apply_bits(self, mut bits: u64) -> u64 {
        if self.0 & 4 != 0 {
            bits = transpose(bits);
        }
        if self.0 & 1 != 0 {
            // Reversing all 64 bits mirrors both ways; reversing the bytes back undoes the rows.
            bits = bits.reverse_bits().swap_bytes();
        }
        if self.0 & 2 != 0 {
            bits = bits.swap_bytes();
        }
        bits
    }
}

/// Swaps columns and rows (square `col + 8 row` goes to `row + 8 col`): three delta swaps,
/// of 4x4 blocks, then 2x2, then single squares.
fn transpose(mut x: u64) -> u64 {
    let t = 0x0f0f_0f0f_0000_0000 & (x ^ (x << 28));
    x ^= t ^ (t >> 28);
    let t = 0x3333_0000_3333_0000 & (x ^ (x << 14));
    x ^= t ^ (t >> 14);
    let t = 0x5500_5500_5500_5500 & (x ^ (x << 7));
    x ^ t ^ (t >> 7)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetries_are_distinct_permutations() {
        let corner_images: Vec<_> = Symmetry::ALL
            .iter()
            .map(|s| (s.apply(Square::ALL[1]), s.apply(Square::ALL[2])))
            .collect();
        for (i, a) in corner_images.iter().enumerate() {
            for b in &corner_images[i + 1..] {
                assert_ne!(a, b);
            }
        }
        for s in Symmetry::ALL {
            assert_eq!(s.apply_bits(u64::MAX), u64::MAX);
            let corners = 1 | (1 << 7) | (1 << 56) | (1 << 63);
            assert_eq!(s.apply_bits(corners), corners);
            for square in Square::ALL {
                assert_eq!(s.apply_bits(square.bit()), s.apply(square).bit(), "{s:?}");
                assert_eq!(s.inverse().apply(s.apply(square)), square);
                assert_eq!(s.apply(s.inverse().apply(square)), square);
            }
        }
    }
}
