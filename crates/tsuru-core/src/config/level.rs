//! The engine's strength setting: a level from 1 to 60.
//!
//! A level is checked once, where it enters the engine (the command line's `--level`,
//! NBoard's `set depth N`), and is a valid [`Level`] from then on. It yields the three search
//! thresholds: the midgame depth in plies, and from how many empties the search proves
//! win/loss/draw and solves exactly.

use std::fmt;

/// A level, always within [`Level::MIN`]..=[`Level::MAX`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(u32);

impl Level {
    /// The lowest level: a one-ply midgame search.
    pub const MIN: u32 = 1;
    /// The highest level: a game has at most 60 empties, so deeper means nothing more.
    pub const MAX: u32 = 60;
    /// The level when neither the GUI nor the command line gives one.
    pub const DEFAULT: Level = Level(12);
    /// The highest level, [`Level::MAX`]: the whole game within reach of the solver.
    pub const HIGHEST: Level = Level(Level::MAX);

    /// The level `n`, or `None` outside [`Level::MIN`]..=[`Level::MAX`].
    pub const fn new(n: u32) -> Option<Level> {
        if Level::MIN <= n && n <= Level::MAX {
            Some(Level(n))
        } else {
            None
        }
    }

    /// The level's number, 1 to 60.
    pub const fn get(self) -> u32 {
        self.0
    }

    /// The midgame search depth in plies: the level itself.
    pub const fn depth(self) -> u32 {
        self.0
    }

    /// From how many empties the level solves exactly: `level * 3 / 2`, at most 60 (so level
    /// 12 solves 18 empties exactly, level 16 solves 24, level 40 and above the whole game).
    pub const fn exact_empties(self) -> u32 {
        let empties = self.0 * 3 / 2;
        if empties < 60 {
            empties
        } else {
            60
        }
    }

    /// From how many empties the level proves win/loss/draw: two more than it solves exactly,
    /// at most 60.
    pub const fn wld_empties(self) -> u32 {
        let empties = self.exact_empties() + 2;
        if empties < 60 {
            empties
        } else {
            60
        }
    }
}

impl Default for Level {
    fn default() -> Level {
        Level::DEFAULT
    }
}

impl fmt::Display for Level {
    /// The level's number.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_1_to_60_are_levels() {
        assert_eq!(Level::new(0), None);
        assert_eq!(Level::new(61), None);
        assert_eq!(Level::new(1).map(Level::get), Some(1));
        assert_eq!(Level::new(60).map(Level::get), Some(60));
    }

    #[test]
    fn thresholds() {
        let level = |n| Level::new(n).unwrap();
        assert_eq!(level(12).depth(), 12);
        assert_eq!(
            (level(12).exact_empties(), level(12).wld_empties()),
            (18, 20)
        );
        assert_eq!((level(1).exact_empties(), level(1).wld_empties()), (1, 3));
        assert_eq!(
            (level(39).exact_empties(), level(39).wld_empties()),
            (58, 60)
        );
        assert_eq!(
            (level(40).exact_empties(), level(40).wld_empties()),
            (60, 60)
        );
        assert_eq!(
            (level(60).exact_empties(), level(60).wld_empties()),
            (60, 60)
        );
        assert_eq!(Level::DEFAULT.get(), 12);
    }
}
