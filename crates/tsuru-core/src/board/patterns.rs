//! Board patterns for the evaluation: fixed lists of squares read as base-3 numbers, kept up
//! to date by the board on every make and undo.
//!
//! A pattern *shape* is a list of squares; its *copies* are its images under the eight board
//! symmetries (images covering the same squares count once), and all copies of a shape share
//! one weight table. The index of a copy is `sum(digit(square_i) * 3^i)` over its squares in
//! the shape's order, with the digit 0 for an empty square, 1 for Black and 2 for White
//! (absolute colours: the evaluation turns them into "side to move / opponent").
//!
//! ```text
//!   corner 3x3   angle          corner 2x5      edge + 2X       edge block
//!   a1 b1 c1     a1 b1 c1 d1 e1 a1 b1 c1 d1 e1  a1 b1 .. g1 h1  a1 . c1 d1 e1 f1 . h1
//!   a2 b2 c2     a2 b2          a2 b2 c2 d2 e2     b2 .. .. g2        c2 d2 e2 f2
//!   a3 b3 c3     a3 a4 a5
//!
//!   and rows 2-4, diagonals of length 8 to 4
//! ```
//!
//! [`pattern_tables`] holds, for every square, the copies it belongs to and its power of 3 in
//! each; [`crate::board::Board`] adds or subtracts those on every placed and flipped disc.

use std::sync::OnceLock;

use super::{Square, Symmetry};

/// A pattern shape: a name and its squares in index order (the first square is digit 3^0).
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Short name for reports.
    pub name: &'static str,
    /// The squares, lower case.
    pub squares: &'static [&'static str],
}

/// The pattern set: a corner 3x3, the corner "angle", a corner 2x5, the edge with both
/// X-squares, the edge block, rows 2-4 and the diagonals of length 8 to 4 (54 copies in all).
pub const SHAPES: [Shape; 13] = [
    Shape {
        name: "corner3x3",
        squares: &["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"],
    },
    Shape {
        name: "angle",
        squares: &["a5", "a4", "a3", "a2", "a1", "b2", "b1", "c1", "d1", "e1"],
    },
    Shape {
        name: "corner2x5",
        squares: &["a1", "b1", "c1", "d1", "e1", "a2", "b2", "c2", "d2", "e2"],
    },
    Shape {
        name: "edge2x",
        squares: &["b2", "a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "g2"],
    },
    Shape {
        name: "edgeblock",
        squares: &["a1", "c1", "d1", "c2", "d2", "e2", "f2", "e1", "f1", "h1"],
    },
    Shape {
        name: "row2",
        squares: &["a2", "b2", "c2", "d2", "e2", "f2", "g2", "h2"],
    },
    Shape {
        name: "row3",
        squares: &["a3", "b3", "c3", "d3", "e3", "f3", "g3", "h3"],
    },
    Shape {
        name: "row4",
        squares: &["a4", "b4", "c4", "d4", "e4", "f4", "g4", "h4"],
    },
    Shape {
        name: "diag8",
        squares: &["a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8"],
    },
    Shape {
        name: "diag7",
        squares: &["b1", "c2", "d3", "e4", "f5", "g6", "h7"],
    },
    Shape {
        name: "diag6",
        squares: &["c1", "d2", "e3", "f4", "g5", "h6"],
    },
    Shape {
        name: "diag5",
        squares: &["d1", "e2", "f3", "g4", "h5"],
    },
    Shape {
        name: "diag4",
        squares: &["e1", "f2", "g3", "h4"],
    },
];

/// Number of pattern copies on the board.
pub const COPIES: usize = 54;

/// Length of a board's index array: the copies plus padding to a multiple of 16 lanes, so
/// that updating all of them is a few vector additions.
pub const LANES: usize = COPIES.div_ceil(16) * 16;

/// One copy of a shape: which shape, and its squares in index order.
#[derive(Clone, Debug)]
pub struct Copy {
    /// Index into [`SHAPES`].
    pub shape: usize,
    /// The squares, in the shape's order.
    pub squares: Vec<Square>,
}

/// The precomputed pattern tables (see the module doc).
pub struct PatternTables {
    /// Every copy, grouped by shape in [`SHAPES`] order.
    pub copies: Vec<Copy>,
    /// Per square: how many copies contain it.
    pub count: [u8; 64],
    /// Per square: its power of 3 in every copy (0 where the copy does not contain it).
    pub powers: [[u16; LANES]; 64],
}

/// 3^n.
pub const fn pow3(n: usize) -> usize {
    let mut value = 1;
    let mut i = 0;
    while i < n {
        value *= 3;
        i += 1;
    }
    value
}

fn square(name: &str) -> Square {
    name.parse().expect("pattern squares are valid")
}

/// The squares of every copy of `shape`: its images under the eight symmetries, keeping the
/// first image of each set of squares.
pub fn shape_copies(shape: &Shape) -> Vec<Vec<Square>> {
    let base: Vec<Square> = shape.squares.iter().map(|name| square(name)).collect();
    let mut copies: Vec<Vec<Square>> = Vec::new();
    for symmetry in Symmetry::ALL {
        let image: Vec<Square> = base.iter().map(|&sq| symmetry.apply(sq)).collect();
        let key = image.iter().fold(0u64, |acc, sq| acc | sq.bit());
        if !copies
            .iter()
            .any(|c| c.iter().fold(0u64, |acc, sq| acc | sq.bit()) == key)
        {
            copies.push(image);
        }
    }
    copies
}

/// The tables, built once.
pub fn pattern_tables() -> &'static PatternTables {
    static TABLES: OnceLock<PatternTables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut copies = Vec::new();
        for (shape_index, shape) in SHAPES.iter().enumerate() {
            for squares in shape_copies(shape) {
                copies.push(Copy {
                    shape: shape_index,
                    squares,
                });
            }
        }
        assert_eq!(copies.len(), COPIES, "pattern copy count");
        let mut count = [0u8; 64];
        let mut powers = [[0u16; LANES]; 64];
        for (copy_index, copy) in copies.iter().enumerate() {
            for (position, sq) in copy.squares.iter().enumerate() {
                count[sq.index()] += 1;
                powers[sq.index()][copy_index] = pow3(position) as u16;
            }
        }
        PatternTables {
            copies,
            count,
            powers,
        }
    })
}

/// The digit of a square's content: 0 empty, 1 Black, 2 White.
fn digit(black: u64, white: u64, sq: Square) -> usize {
    if black & sq.bit() != 0 {
        1
    } else if white & sq.bit() != 0 {
        2
    } else {
        0
    }
}

/// Every copy's index computed from scratch from the discs (the incremental indices of a
/// board must always equal these).
pub fn indices_from_scratch(black: u64, white: u64) -> [u16; LANES] {
    let tables = pattern_tables();
    let mut indices = [0u16; LANES];
    for (index, copy) in tables.copies.iter().enumerate() {
        let mut value = 0usize;
        for (position, &sq) in copy.squares.iter().enumerate() {
            value += digit(black, white, sq) * pow3(position);
        }
        indices[index] = value as u16;
    }
    indices
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_per_shape() {
        let counts: Vec<usize> = SHAPES.iter().map(|s| shape_copies(s).len()).collect();
        assert_eq!(counts, [4, 4, 8, 4, 4, 4, 4, 4, 2, 4, 4, 4, 4]);
        let tables = pattern_tables();
        // Every square is covered, and the per-square lists agree with the copies.
        let total: usize = tables.count.iter().map(|&c| c as usize).sum();
        let squares: usize = tables.copies.iter().map(|c| c.squares.len()).sum();
        assert_eq!(total, squares);
        assert!(tables.count.iter().all(|&c| c > 0));
    }

    #[test]
    fn indices_read_digits_in_shape_order() {
        // Black on a1 and White on b1: the corner 3x3 copy at a1 reads 1 + 2*3.
        let a1 = square("a1").bit();
        let b1 = square("b1").bit();
        let indices = indices_from_scratch(a1, b1);
        assert_eq!(indices[0], 7);
        // The empty board reads 0 everywhere; a full black board reads (3^n - 1) / 2.
        assert_eq!(indices_from_scratch(0, 0), [0; LANES]);
        let full = indices_from_scratch(u64::MAX, 0);
        for (copy, &index) in pattern_tables().copies.iter().zip(&full) {
            assert_eq!(index as usize, (pow3(copy.squares.len()) - 1) / 2);
        }
    }
}
