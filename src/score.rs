//! Scores: a disc difference from the side to move's point of view, in two units.
//!
//! [`Discs`] is a whole number of discs: a final score, an endgame solver's value, an OBF
//! score. [`Score`] is an integer number of [`UNITS_PER_DISC`]ths of a disc, so the static
//! evaluation can tell apart positions worth less than a disc; exact endgame values are whole
//! discs (multiples of the unit). This file is the one place that converts between them
//! ([`Score::from_discs`], and back with [`Score::rounded_discs`], [`Score::floor_discs`],
//! [`Score::ceil_discs`]). Scores are bounded: a final disc difference lies in -64..=64, and
//! evaluations are clamped into the same range.
//!
//! The types carry values, not text: each front end writes them in its own form (NBoard's
//! `+1.23` is in [`crate::protocol::nboard`]); [`Score::discs`] gives the number.

use std::fmt;

/// Internal units per disc.
pub const UNITS_PER_DISC: i32 = 100;

/// A disc difference in whole discs, from one side's point of view (which side, the holder
/// says): a final score lies in -64..=64.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Discs(pub i32);

impl Discs {
    /// A draw.
    pub const ZERO: Discs = Discs(0);

    /// -1, 0 or +1: a loss, a draw or a win.
    pub fn signum(self) -> Discs {
        Discs(self.0.signum())
    }
}

impl std::ops::Neg for Discs {
    type Output = Discs;
    /// The same difference from the other side's point of view.
    fn neg(self) -> Discs {
        Discs(-self.0)
    }
}

impl std::ops::Add for Discs {
    type Output = Discs;
    fn add(self, other: Discs) -> Discs {
        Discs(self.0 + other.0)
    }
}

impl std::ops::Sub for Discs {
    type Output = Discs;
    fn sub(self, other: Discs) -> Discs {
        Discs(self.0 - other.0)
    }
}

impl fmt::Display for Discs {
    /// The integer, honouring the formatter's flags (`{:+}` gives `+12`, `-3`, `+0`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// A score in 1/[`UNITS_PER_DISC`] discs, from the side to move's point of view.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Score(pub i32);

impl Score {
    /// Larger than any real score (a search bound).
    pub const INFINITY: Score = Score(65 * UNITS_PER_DISC);
    /// The largest score a position can have: all 64 discs.
    pub const MAX: Score = Score(64 * UNITS_PER_DISC);
    /// A draw.
    pub const ZERO: Score = Score(0);

    /// A whole number of discs: the conversion from [`Discs`].
    pub const fn from_discs(discs: Discs) -> Score {
        Score(discs.0 * UNITS_PER_DISC)
    }

    /// The score in discs, as a float.
    pub fn discs(self) -> f64 {
        self.0 as f64 / UNITS_PER_DISC as f64
    }

    /// The score rounded to whole discs (halves away from zero).
    pub fn rounded_discs(self) -> Discs {
        let half = UNITS_PER_DISC / 2;
        Discs(if self.0 >= 0 {
            (self.0 + half) / UNITS_PER_DISC
        } else {
            -((-self.0 + half) / UNITS_PER_DISC)
        })
    }

    /// The most discs at or below the score (rounded toward minus infinity).
    pub fn floor_discs(self) -> Discs {
        Discs(self.0.div_euclid(UNITS_PER_DISC))
    }

    /// The fewest discs at or above the score (rounded toward plus infinity).
    pub fn ceil_discs(self) -> Discs {
        Discs((self.0 + UNITS_PER_DISC - 1).div_euclid(UNITS_PER_DISC))
    }

    /// Clamped into the range of real scores (`-MAX..=MAX`): an evaluation past it (a
    /// midgame value) becomes a possible final score.
    pub fn clamped(self) -> Score {
        Score(self.0.clamp(-Score::MAX.0, Score::MAX.0))
    }
}

impl std::ops::Neg for Score {
    type Output = Score;
    /// The same score from the other side's point of view.
    fn neg(self) -> Score {
        Score(-self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_and_conversion() {
        assert_eq!(Score::from_discs(Discs(12)).rounded_discs(), Discs(12));
        assert_eq!(Score(149).rounded_discs(), Discs(1));
        assert_eq!(Score(150).rounded_discs(), Discs(2));
        assert_eq!(Score(-150).rounded_discs(), Discs(-2));
        assert_eq!(Score(-149).rounded_discs(), Discs(-1));
        assert_eq!(
            (Score(-150).floor_discs(), Score(-150).ceil_discs()),
            (Discs(-2), Discs(-1))
        );
        assert_eq!(
            (Score(200).floor_discs(), Score(200).ceil_discs()),
            (Discs(2), Discs(2))
        );
        assert_eq!(
            format!("{:+}/{:+}/{}", Discs(12), Discs(0), -Discs(3)),
            "+12/+0/-3"
        );
        assert_eq!(Score(250).discs(), 2.5);
        assert_eq!(Score(9000).clamped(), Score::MAX);
        assert_eq!(Score(-9000).clamped(), -Score::MAX);
        assert_eq!(Score(-250).clamped(), Score(-250));
        assert_eq!(-Score(5), Score(-5));
    }
}
