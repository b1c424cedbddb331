//! Scores: a disc difference from the side to move's point of view, in two units.
//!
//! [`Discs`] is a whole number of discs: a final score, an endgame solver's value (its
//! windows, node values and table entries), an OBF score. [`Score`] is an integer number of
//! [`UNITS_PER_DISC`]ths of a disc, so the static evaluation can tell apart positions worth
//! less than a disc: evaluations and the midgame search's windows, node values and table
//! entries; exact endgame values are whole discs (multiples of the unit). This file is the one
//! place that converts between them ([`Score::from_discs`], and back with
//! [`Score::rounded_discs`], [`Score::rounded_even_discs`], [`Score::floor_discs`],
//! [`Score::ceil_discs`]). Scores are bounded: a final disc difference lies in -64..=64, and
//! evaluations are clamped into the same range.
//!
//! Both are `#[repr(transparent)]` integers with private fields: a bare number becomes one
//! only by saying its unit ([`Discs::new`], [`Score::from_units`]) and comes out the same way
//! ([`Discs::get`], [`Score::units`]), while the searches do their window arithmetic on the
//! types themselves (negation, sums, differences, order; [`Discs::ONE`] and [`Score::UNIT`]
//! are a null window's width) at no cost. [`Value`] is what the two have in common, for the
//! search machinery written once for both.
//!
//! The types carry values, not text: each front end writes them in its own form (NBoard's
//! `+1.23` is in the engine's `protocol::nboard`); [`Score::discs`] gives the number.

use std::fmt;
use std::ops::{Add, Neg, Sub};

/// Internal units per disc.
pub const UNITS_PER_DISC: i32 = 100;

/// A disc difference in whole discs, from one side's point of view (which side, the holder
/// says): a final score lies in -64..=64.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
#[repr(transparent)]
pub struct Discs(i32);

impl Discs {
    /// A draw.
    pub const ZERO: Discs = Discs(0);
    /// One disc: the smallest step between two values (a null window's width).
    pub const ONE: Discs = Discs(1);
    /// The largest disc difference a game can end with: all 64 discs.
    pub const MAX: Discs = Discs(64);
    /// Larger than any real disc difference (a search bound).
    pub const INFINITY: Discs = Discs(65);

    /// `discs` whole discs.
    #[inline]
    pub const fn new(discs: i32) -> Discs {
        Discs(discs)
    }

    /// The number of discs.
    #[inline]
    pub const fn get(self) -> i32 {
        self.0
    }

    /// -1, 0 or +1: a loss, a draw or a win.
    #[inline]
    pub fn signum(self) -> Discs {
        Discs(self.0.signum())
    }
}

impl Neg for Discs {
    type Output = Discs;
    /// The same difference from the other side's point of view.
    #[inline]
    fn neg(self) -> Discs {
        Discs(-self.0)
    }
}

impl Add for Discs {
    type Output = Discs;
    #[inline]
    fn add(self, other: Discs) -> Discs {
        Discs(self.0 + other.0)
    }
}

impl Sub for Discs {
    type Output = Discs;
    #[inline]
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
#[repr(transparent)]
pub struct Score(i32);

impl Score {
    /// Larger than any real score (a search bound).
    pub const INFINITY: Score = Score::from_discs(Discs::INFINITY);
    /// The largest score a position can have: all 64 discs.
    pub const MAX: Score = Score::from_discs(Discs::MAX);
    /// A draw.
    pub const ZERO: Score = Score(0);
    /// One unit: the smallest step between two scores (a null window's width).
    pub const UNIT: Score = Score(1);

    /// `units` 1/[`UNITS_PER_DISC`]ths of a disc.
    #[inline]
    pub const fn from_units(units: i32) -> Score {
        Score(units)
    }

    /// The score in 1/[`UNITS_PER_DISC`]ths of a disc.
    #[inline]
    pub const fn units(self) -> i32 {
        self.0
    }

    /// A whole number of discs: the conversion from [`Discs`].
    #[inline]
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

    /// The score rounded to an even number of discs (pairs of discs, halves away from
    /// zero): every final score of a full board is even.
    pub fn rounded_even_discs(self) -> Discs {
        let pairs = (self.0 as f32 / (2 * UNITS_PER_DISC) as f32).round() as i32;
        Discs(2 * pairs)
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
        self.clamp(-Score::MAX, Score::MAX)
    }

    /// Clamped strictly inside the range of proven results (`-MAX..=MAX` less a unit at
    /// each end): where an evaluation ends up.
    #[inline]
    pub fn clamped_below_max(self) -> Score {
        let limit = Score::MAX.0 - 1;
        Score(self.0.clamp(-limit, limit))
    }
}

impl Neg for Score {
    type Output = Score;
    /// The same score from the other side's point of view.
    #[inline]
    fn neg(self) -> Score {
        Score(-self.0)
    }
}

impl Add for Score {
    type Output = Score;
    #[inline]
    fn add(self, other: Score) -> Score {
        Score(self.0 + other.0)
    }
}

impl Sub for Score {
    type Output = Score;
    #[inline]
    fn sub(self, other: Score) -> Score {
        Score(self.0 - other.0)
    }
}

/// What the two units have in common, for the search machinery written once for both (the
/// transposition table's entries, the split points of a parallel search): ordering, window
/// arithmetic, and the bare integer in the type's own unit that such machinery packs into
/// its words. No conversion between units: a value comes back as the type it went in, and
/// only through [`from_stored`], so no other code makes a value from a bare integer:
///
/// ```compile_fail
/// // Outside the crate there is no way back from a bare integer.
/// let forged: tsuru::score::Score = tsuru::score::from_stored(5);
/// ```
///
/// ```compile_fail
/// use tsuru::score::{Score, Value};
/// let forged = <Score as tsuru::score::raw::FromRaw>::from_raw(5, todo!());
/// ```
pub trait Value:
    raw::FromRaw
    + Copy
    + Ord
    + Default
    + fmt::Debug
    + Neg<Output = Self>
    + Add<Output = Self>
    + Sub<Output = Self>
{
    /// The value as its bare integer, in its own unit.
    fn raw(self) -> i32;
}

/// The way back from a bare integer, callable only from this module: the method needs an
/// [`raw::Inside`], which only this module can make.
mod raw {
    /// Proof that the caller is the score module.
    pub struct Inside(pub(super) ());

    /// A value from its bare integer ([`super::Value::raw`]).
    pub trait FromRaw {
        /// The value whose bare integer is `raw`.
        fn from_raw(raw: i32, inside: Inside) -> Self;
    }
}

/// The value whose bare integer a table stored ([`Value::raw`] gave it): for the search's
/// tables, which keep values as bare integers in their words and give them back as the type
/// that went in.
#[inline]
pub(crate) fn from_stored<V: Value>(raw: i32) -> V {
    V::from_raw(raw, raw::Inside(()))
}

impl Value for Discs {
    #[inline]
    fn raw(self) -> i32 {
        self.0
    }
}

impl raw::FromRaw for Discs {
    #[inline]
    fn from_raw(raw: i32, _: raw::Inside) -> Discs {
        Discs(raw)
    }
}

impl Value for Score {
    #[inline]
    fn raw(self) -> i32 {
        self.0
    }
}

impl raw::FromRaw for Score {
    #[inline]
    fn from_raw(raw: i32, _: raw::Inside) -> Score {
        Score(raw)
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
        assert_eq!(Score::INFINITY, Score(6500));
        assert_eq!(Score::MAX.clamped_below_max(), Score(6399));
        assert_eq!(Score(-7000).clamped_below_max(), Score(-6399));
        assert_eq!(Score(250) - Score(300) + Score::UNIT, Score(-49));
        assert_eq!(Discs::MAX - Discs::ONE + Discs(3), Discs(66));
    }

    #[test]
    fn rounding_to_even_discs() {
        // Pairs of discs rounded half away from zero, as the solver's first guess wants.
        for (units, discs) in [
            (0, 0),
            (99, 0),
            (100, 2),
            (299, 2),
            (300, 4),
            (-100, -2),
            (-99, 0),
            (-301, -4),
            (6400, 64),
        ] {
            assert_eq!(Score(units).rounded_even_discs(), Discs(discs), "{units}");
        }
    }

    #[test]
    fn the_bare_integers_come_back_as_they_went_in() {
        for raw in [-6500, -1, 0, 7, 6500] {
            assert_eq!(from_stored::<Score>(raw).raw(), raw);
            assert_eq!(from_stored::<Discs>(raw).raw(), raw);
            assert_eq!(
                from_stored::<Score>(Score::from_units(raw).raw()),
                Score::from_units(raw)
            );
            assert_eq!(Score::from_units(raw).units(), raw);
            assert_eq!(Discs::new(raw).get(), raw);
        }
    }
}
