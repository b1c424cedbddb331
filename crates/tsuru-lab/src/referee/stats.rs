//! Match statistics: wins, draws and losses, disc sums, and the Elo difference with a 95%
//! confidence interval.
//!
//! The Elo difference follows from the mean score `p` of one engine (1 a win, 1/2 a draw):
//! `D = -400 log10(1/p - 1)`; a score of 0 or 1 gives an infinite difference, shown as such.
//! The interval is the Wilson score interval for `p`, mapped through the same function. Unlike
//! `p +- 1.96 s`, it stays inside 0..1 near a lopsided score (19 wins of 20 leaves a finite
//! upper end) and gives all-won or all-lost matches a finite end, `n / (n + 1.96^2)`. Draws
//! narrow the spread of the per-game scores below a win-loss record's `p (1 - p)`, so the
//! interval uses the effective number of games `n p (1 - p) / s^2` for the observed variance
//! `s^2`, which is `n` without draws; all draws leave no spread and an interval of width 0.

use std::fmt;

use tsuru_core::score::Discs;

/// The Elo difference that a mean score `p` (0..1) implies; infinite at 0 and 1.
pub fn elo_from_score(p: f64) -> f64 {
    if p <= 0.0 {
        f64::NEG_INFINITY
    } else if p >= 1.0 {
        f64::INFINITY
    } else {
        // Adding 0.0 turns the -0.0 of an even score into 0.0.
        -400.0 * (1.0 / p - 1.0).log10() + 0.0
    }
}

/// An Elo difference and its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// The most likely difference.
    pub diff: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

impl EloEstimate {
    /// The estimate from per-game scores (each 0, 0.5 or 1) of one engine; `None` without games.
    pub fn from_scores(scores: &[f64]) -> Option<EloEstimate> {
        if scores.is_empty() {
            return None;
        }
        let n = scores.len() as f64;
        let mean = scores.iter().sum::<f64>() / n;
        let variance = scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / n;
        let (low, high) = if variance == 0.0 && mean > 0.0 && mean < 1.0 {
            (mean, mean)
        } else {
            let games = if variance > 0.0 {
                n * mean * (1.0 - mean) / variance
            } else {
                n
            };
            wilson_interval(mean, games)
        };
        Some(EloEstimate {
            diff: elo_from_score(mean),
            low: elo_from_score(low),
            high: elo_from_score(high),
        })
    }
}

/// The 95% Wilson score interval for a proportion `p` observed over `n` trials, within 0..=1
/// and exactly 0 or 1 at its end when `p` is.
fn wilson_interval(p: f64, n: f64) -> (f64, f64) {
    const Z: f64 = 1.96;
    let z2n = Z * Z / n;
    let centre = (p + z2n / 2.0) / (1.0 + z2n);
    let half = Z / (1.0 + z2n) * (p * (1.0 - p) / n + z2n / (4.0 * n)).sqrt();
    let low = if p <= 0.0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let high = if p >= 1.0 {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    (low, high)
}

/// Writes an Elo value: `+88`, `-12`, `+inf`.
fn write_elo(f: &mut fmt::Formatter<'_>, value: f64) -> fmt::Result {
    if value.is_infinite() {
        f.write_str(if value > 0.0 { "+inf" } else { "-inf" })
    } else {
        write!(f, "{:+.0}", value)
    }
}

impl fmt::Display for EloEstimate {
    /// `+88 (95% interval -60 .. +251)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_elo(f, self.diff)?;
        f.write_str(" (95% interval ")?;
        write_elo(f, self.low)?;
        f.write_str(" .. ")?;
        write_elo(f, self.high)?;
        f.write_str(")")
    }
}

/// One engine's totals over a match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// Sum of final disc differences from this engine's side.
    pub discs: i64,
}

impl Tally {
    /// Adds one game that ended `diff` discs up (negative: down) for this engine.
    pub fn add(&mut self, diff: Discs) {
        match diff.get().signum() {
            1 => self.wins += 1,
            0 => self.draws += 1,
            _ => self.losses += 1,
        }
        self.discs += i64::from(diff.get());
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points scored (a draw is half a point) as a percentage of the games.
    pub fn score_percent(&self) -> f64 {
        if self.games() == 0 {
            return 0.0;
        }
        100.0 * (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(self.games())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_of_known_scores() {
        assert_eq!(elo_from_score(0.5), 0.0);
        assert!((elo_from_score(0.75) - 190.85).abs() < 0.01);
        assert!((elo_from_score(0.25) + 190.85).abs() < 0.01);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn interval_brackets_the_estimate_and_shrinks_with_games() {
        let few = [1.0, 0.0, 1.0, 1.0];
        let many: Vec<f64> = few.iter().cycle().take(400).copied().collect();
        let small = EloEstimate::from_scores(&few).unwrap();
        let large = EloEstimate::from_scores(&many).unwrap();
        assert_eq!(small.diff, large.diff);
        assert!(small.low < small.diff && small.diff < small.high);
        assert!(large.high - large.low < small.high - small.low);
        // 75% from 400 games: Wilson centre 0.7476, half-width 0.0423, so 0.7053 .. 0.7899.
        assert_eq!(format!("{large}"), "+191 (95% interval +152 .. +230)");
        // 75% from 4 games: 0.3006 .. 0.9544, finite although p + 1.96 s passes 1.
        assert_eq!(format!("{small}"), "+191 (95% interval -147 .. +528)");
    }

    #[test]
    fn a_lopsided_score_has_a_finite_interval() {
        // 19 wins in 20 games: Wilson 0.7639 .. 0.9911 (p + 1.96 s would be 1.045).
        let mut scores = [1.0; 20];
        scores[7] = 0.0;
        let estimate = EloEstimate::from_scores(&scores).unwrap();
        assert_eq!(format!("{estimate}"), "+512 (95% interval +204 .. +819)");
    }

    #[test]
    fn draws_count_as_more_games() {
        // 3 wins, 2 draws, 1 loss: mean 2/3, variance 5/36 against 2/9 for a win-loss record
        // with the same mean, so 9.6 effective games: Wilson 0.3626 .. 0.8755.
        let scores = [1.0, 1.0, 1.0, 0.5, 0.5, 0.0];
        let estimate = EloEstimate::from_scores(&scores).unwrap();
        assert_eq!(format!("{estimate}"), "+120 (95% interval -98 .. +339)");
        let no_draws = EloEstimate::from_scores(&[1.0, 1.0, 1.0, 1.0, 0.0, 0.0]).unwrap();
        assert!(no_draws.high - no_draws.low > estimate.high - estimate.low);
    }

    #[test]
    fn all_draws_or_all_wins() {
        let draws = EloEstimate::from_scores(&[0.5; 10]).unwrap();
        assert_eq!((draws.diff, draws.low, draws.high), (0.0, 0.0, 0.0));
        // All won or all lost: the finite end is the Wilson bound, 100 / 103.84 = 0.963 for
        // 100 games, which is +566 Elo; 3 games only show the score is above 0.439 (-43).
        let wins = EloEstimate::from_scores(&[1.0; 100]).unwrap();
        assert_eq!(format!("{wins}"), "+inf (95% interval +566 .. +inf)");
        let few_wins = EloEstimate::from_scores(&[1.0; 3]).unwrap();
        assert_eq!(format!("{few_wins}"), "+inf (95% interval -43 .. +inf)");
        let losses = EloEstimate::from_scores(&[0.0; 100]).unwrap();
        assert_eq!(format!("{losses}"), "-inf (95% interval -inf .. -566)");
        assert!(EloEstimate::from_scores(&[]).is_none());
    }

    #[test]
    fn tally_counts_games_and_discs() {
        let mut tally = Tally::default();
        for diff in [12, 0, -64, 2] {
            tally.add(Discs::new(diff));
        }
        assert_eq!((tally.wins, tally.draws, tally.losses), (2, 1, 1));
        assert_eq!(tally.discs, -50);
        assert_eq!(tally.games(), 4);
        assert_eq!(tally.score_percent(), 62.5);
    }
}
