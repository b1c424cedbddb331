//! The sequential probability ratio test (SPRT) of a match: after each colour-swapped pair of
//! games, is the first engine `elo1` stronger than the second (H1) or only `elo0` (H0)?
//!
//! Model (fishtest's "logistic" SPRT): an Elo difference `e` means an expected score per game
//! of `s(e) = 1 / (1 + 10^(-e/400))`; H0 is `s = s(elo0)`, H1 is `s = s(elo1)`. The results
//! are counts of outcomes with evenly spaced scores from 0 to 1: a trinomial (a game lost,
//! drawn, won: 0, 1/2, 1) or a pentanomial (a colour-swapped pair that scored 0, 1/2, 1, 3/2
//! or 2 points, a mean score of 0, 1/4, 1/2, 3/4, 1). The pentanomial counts the two games
//! of an opening as one outcome, so the pair's correlation (a lopsided opening wins for the
//! same colour twice) does not count as evidence.
//!
//! The log-likelihood ratio is the generalized one (GSPRT) of Michel Van den Bergh: for each
//! hypothesis, the outcome distribution of greatest likelihood among those whose mean is
//! `s`, which is `p_i = q_i / (1 + l (x_i - s))` for the observed frequencies `q_i` at scores
//! `x_i` and the root `l` of `sum q_i (x_i - s) / (1 + l (x_i - s)) = 0`; then
//! `LLR = sum n_i ln(p1_i / p0_i)` over the counts `n_i`. Its normal approximation
//! `N (s1 - s0) (2 m - s0 - s1) / (2 var)` (mean `m` and variance `var` of the observed
//! scores) is not used: it agrees over hundreds of pairs, but a first few pairs that all
//! ended alike have a variance near 0 and so an LLR past any bound (two pairs won twice over
//! give 15 for elo0 = 0, elo1 = 10, where the exact ratio is 0.057). As fishtest does, a count
//! of 0 is taken as 0.001 so that both extreme scores have weight and the maximum exists.
//!
//! Wald's bounds: H0 is accepted when the LLR falls to `ln(beta / (1 - alpha))`, H1 when it
//! rises to `ln((1 - beta) / alpha)`; for alpha = beta = 0.05 these are -+ln 19 = -+2.944.

use std::collections::BTreeMap;
use std::fmt;

use anyhow::{ensure, Result};

/// The expected score per game of an engine `elo` stronger than its opponent (logistic).
pub fn logistic_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The hypotheses and error rates of a test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo difference of H0.
    pub elo0: f64,
    /// Elo difference of H1 (above `elo0`).
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    pub beta: f64,
}

/// What the test says at some point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The LLR reached the lower bound.
    H0,
    /// The LLR reached the upper bound.
    H1,
    /// The LLR is between the bounds.
    Inconclusive,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::H0 => "H0 accepted",
            Verdict::H1 => "H1 accepted",
            Verdict::Inconclusive => "inconclusive",
        })
    }
}

impl Sprt {
    /// A test of `elo0` against `elo1` with error rates `alpha` and `beta`; errors unless
    /// `elo0 < elo1` (both finite), both rates are positive and `alpha + beta < 1` (so that
    /// the lower bound is below 0 and the upper above).
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt> {
        ensure!(
            elo0.is_finite() && elo1.is_finite() && elo0 < elo1,
            "the SPRT needs ELO0 < ELO1, not {elo0}, {elo1}"
        );
        ensure!(
            alpha > 0.0 && beta > 0.0 && alpha + beta < 1.0,
            "alpha and beta must be positive with alpha + beta < 1, not {alpha}, {beta}"
        );
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// The lower and upper bound of the LLR.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The verdict for an LLR of `llr`.
    pub fn verdict(&self, llr: f64) -> Verdict {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Verdict::H1
        } else if llr <= lower {
            Verdict::H0
        } else {
            Verdict::Inconclusive
        }
    }

    /// The generalized LLR of H1 against H0 for `counts[i]` outcomes with score
    /// `i / (counts.len() - 1)` (3 counts: losses, draws, wins; 5: pairs from 0 to 2
    /// points); 0 without any outcome. Panics with fewer than two counts.
    pub fn llr(&self, counts: &[u32]) -> f64 {
        assert!(counts.len() >= 2, "at least two outcomes");
        if counts.iter().all(|&count| count == 0) {
            return 0.0;
        }
        let last = (counts.len() - 1) as f64;
        let outcomes: Vec<(f64, f64)> = counts
            .iter()
            .enumerate()
            .map(|(i, &count)| {
                let count = if count == 0 { 0.001 } else { f64::from(count) };
                (i as f64 / last, count)
            })
            .collect();
        let total: f64 = outcomes.iter().map(|(_, count)| count).sum();
        let frequencies: Vec<(f64, f64)> = outcomes
            .iter()
            .map(|&(score, count)| (score, count / total))
            .collect();
        let [l0, l1] = [self.elo0, self.elo1].map(|elo| {
            let s = logistic_score(elo);
            (s, multiplier(&frequencies, s))
        });
        outcomes
            .iter()
            .map(|&(x, count)| count * ((l0.1 * (x - l0.0)).ln_1p() - (l1.1 * (x - l1.0)).ln_1p()))
            .sum()
    }
}

/// The root `l` of `sum q_i (x_i - s) / (1 + l (x_i - s)) = 0` for frequencies `q_i > 0` at
/// scores `x_i` from 0 to 1 and a mean `s` strictly between: the multiplier of the most likely
/// distribution with mean `s`. The sum falls from +inf to -inf on the interval where every
/// `1 + l (x_i - s)` is positive, `(-1 / (1 - s), 1 / s)`, so bisection finds the one root.
fn multiplier(frequencies: &[(f64, f64)], s: f64) -> f64 {
    let sum = |l: f64| -> f64 {
        frequencies
            .iter()
            .map(|&(x, q)| q * (x - s) / (1.0 + l * (x - s)))
            .sum()
    };
    let (mut low, mut high) = (-1.0 / (1.0 - s), 1.0 / s);
    // 200 halvings of an interval narrower than 1 / (s (1 - s)) leave it far below f64
    // resolution; the loop usually ends sooner, when the midpoint is an end.
    for _ in 0..200 {
        let middle = 0.5 * (low + high);
        if middle <= low || middle >= high {
            break;
        }
        if sum(middle) > 0.0 {
            low = middle;
        } else {
            high = middle;
        }
    }
    0.5 * (low + high)
}

/// Where the LLR first reached a bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Crossing {
    /// H0 or H1.
    pub verdict: Verdict,
    /// The LLR then.
    pub llr: f64,
    /// Complete pairs then.
    pub pairs: u32,
}

/// The SPRT over a match's colour-swapped pairs, fed one game at a time in the order the games
/// finished. Games `2k` and `2k + 1` (0-based) are pair `k`; a game counts once its pair is
/// complete, and a game whose other game has not finished waits (and is left out if it never
/// does). The first time the LLR reaches a bound, the verdict is kept: games that finish
/// afterwards change the LLR shown but not the decision.
#[derive(Clone, Debug)]
pub struct PairedSprt {
    test: Sprt,
    /// Points of the first engine in the finished game of each pair still missing one, by
    /// pair number.
    waiting: BTreeMap<usize, f64>,
    /// Complete pairs by the first engine's points times 2 (0 to 4).
    pentanomial: [u32; 5],
    crossing: Option<Crossing>,
}

impl PairedSprt {
    /// No games yet.
    pub fn new(test: Sprt) -> PairedSprt {
        PairedSprt {
            test,
            waiting: BTreeMap::new(),
            pentanomial: [0; 5],
            crossing: None,
        }
    }

    /// Adds game `game` (0-based) in which the first engine scored `points` (0, 0.5 or 1);
    /// returns whether the test has reached a verdict (now or before).
    pub fn add_game(&mut self, game: usize, points: f64) -> bool {
        debug_assert!([0.0, 0.5, 1.0].contains(&points), "points {points}");
        let pair = game / 2;
        match self.waiting.remove(&pair) {
            None => {
                self.waiting.insert(pair, points);
            }
            Some(other) => {
                let half_points = (2.0 * (points + other)).round() as usize;
                self.pentanomial[half_points.min(4)] += 1;
                if self.crossing.is_none() {
                    let llr = self.llr();
                    let verdict = self.test.verdict(llr);
                    if verdict != Verdict::Inconclusive {
                        self.crossing = Some(Crossing {
                            verdict,
                            llr,
                            pairs: self.pairs(),
                        });
                    }
                }
            }
        }
        self.crossing.is_some()
    }

    /// The LLR over the complete pairs.
    pub fn llr(&self) -> f64 {
        self.test.llr(&self.pentanomial)
    }

    /// Complete pairs.
    pub fn pairs(&self) -> u32 {
        self.pentanomial.iter().sum()
    }

    #[cfg(test)]
    /// Complete pairs by the first engine's points: 0, 0.5, 1, 1.5, 2.
    pub fn pentanomial(&self) -> [u32; 5] {
        self.pentanomial
    }

    /// Where the LLR first reached a bound, if it has.
    pub fn crossing(&self) -> Option<Crossing> {
        self.crossing
    }

    /// The verdict: that of the first crossing, or inconclusive.
    pub fn verdict(&self) -> Verdict {
        self.crossing
            .map_or(Verdict::Inconclusive, |crossing| crossing.verdict)
    }

    /// The test's lines for the results table, the first engine being `first`:
    ///
    /// ```text
    /// SPRT elo0 0, elo1 10, alpha 0.05, beta 0.05: 40 pairs scoring 0 / 0.5 / 1 / 1.5 / 2 points for new: 3 9 14 10 4
    /// SPRT: llr 0.31 (bounds -2.94 .. 2.94), inconclusive
    /// ```
    pub fn summary(&self, first: &str) -> String {
        let (lower, upper) = self.test.bounds();
        let counts: Vec<String> = self.pentanomial.iter().map(u32::to_string).collect();
        let mut text = format!(
            "SPRT elo0 {}, elo1 {}, alpha {}, beta {}: {} pairs scoring 0 / 0.5 / 1 / 1.5 / 2 \
             points for {first}: {}\n",
            self.test.elo0,
            self.test.elo1,
            self.test.alpha,
            self.test.beta,
            self.pairs(),
            counts.join(" ")
        );
        let llr = self.llr();
        text += &format!(
            "SPRT: llr {llr:.2} (bounds {lower:.2} .. {upper:.2}), {}",
            self.verdict()
        );
        if let Some(crossing) = self.crossing {
            if crossing.pairs != self.pairs() {
                text += &format!(
                    " when it reached {:.2} after {} pairs",
                    crossing.llr, crossing.pairs
                );
            }
        }
        text.push('\n');
        if !self.waiting.is_empty() {
            text += &format!(
                "({} game(s) whose pair is incomplete left out of the SPRT)\n",
                self.waiting.len()
            );
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(value: f64, expected: f64, tolerance: f64) -> bool {
        (value - expected).abs() <= tolerance
    }

    #[test]
    fn logistic_scores_and_bounds() {
        // 1 / (1 + 10^(-10/400)) = 1 / (1 + 0.944061) = 0.514387.
        assert!(close(logistic_score(10.0), 0.514387, 1e-6));
        assert_eq!(logistic_score(0.0), 0.5);
        assert!(close(logistic_score(-10.0), 0.485613, 1e-6));
        let test = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
        let (lower, upper) = test.bounds();
        // ln(0.05 / 0.95) = -ln 19 = -2.944439.
        assert!(close(lower, -2.944439, 1e-6) && close(upper, 2.944439, 1e-6));
        // alpha 0.05, beta 0.1: ln(0.1 / 0.95) = -2.251292 and ln(0.9 / 0.05) = ln 18 = 2.890372.
        let (lower, upper) = Sprt::new(0.0, 10.0, 0.05, 0.1).unwrap().bounds();
        assert!(close(lower, -2.251292, 1e-6) && close(upper, 2.890372, 1e-6));
        for (elo0, elo1, alpha, beta) in [
            (10.0, 0.0, 0.05, 0.05),
            (0.0, 0.0, 0.05, 0.05),
            (0.0, f64::INFINITY, 0.05, 0.05),
            (0.0, 10.0, 0.0, 0.05),
            (0.0, 10.0, 0.5, 0.5),
        ] {
            assert!(Sprt::new(elo0, elo1, alpha, beta).is_err());
        }
    }

    #[test]
    fn verdict_flips_at_the_bounds() {
        let test = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
        assert_eq!(test.verdict(2.94), Verdict::Inconclusive);
        assert_eq!(test.verdict(2.95), Verdict::H1);
        assert_eq!(test.verdict(-2.94), Verdict::Inconclusive);
        assert_eq!(test.verdict(-2.95), Verdict::H0);
        assert_eq!(test.verdict(0.0), Verdict::Inconclusive);
    }

    #[test]
    fn trinomial_llr_by_hand() {
        // 40 losses, 30 draws, 60 wins (130 games), elo0 0, elo1 10.
        // H0 (s = 1/2): the root is l = 2 (60 - 40) / (60 + 40) = 0.4, so the most likely
        // distribution keeps the draws and splits the decisive games evenly: 50, 30, 50 of 130.
        // H1 (s = 0.514387, deviations d = -0.514387, -0.014387, 0.485613): clearing the
        // denominators gives 0.467196 l^2 - 25.090054 l + 8.129666 = 0, whose root inside
        // (-2.059, 1.944) is l = 0.325998: 48.058982, 30.141369, 51.799649 of 130.
        // LLR = 40 ln(48.058982/50) + 30 ln(30.141369/30) + 60 ln(51.799649/50) = 0.678901.
        let test = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
        assert!(close(test.llr(&[40, 30, 60]), 0.678901, 1e-5));
        // The mirror image is the same evidence for the other engine: elo -10 against 0.
        let mirror = Sprt::new(-10.0, 0.0, 0.05, 0.05).unwrap();
        assert!(close(mirror.llr(&[60, 30, 40]), -0.678901, 1e-5));
        // One loss and one win is an even score: slightly against H1 (-0.000829).
        assert!(close(test.llr(&[1, 0, 1]), -0.000829, 1e-6));
        assert_eq!(test.llr(&[0, 0, 0]), 0.0);
    }

    #[test]
    fn pentanomial_llr() {
        // Expected values from a separate calculation (Newton's method on the same
        // equation, in Python).
        let test = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
        assert!(close(test.llr(&[5, 10, 40, 25, 20]), 1.770862, 1e-5));
        assert!(close(test.llr(&[20, 25, 40, 10, 5]), -1.951924, 1e-5));
        // Over many pairs the exact LLR and the normal approximation agree: mean 0.5, variance
        // 0.075 for 1000 pairs, approximation 1000 * 0.014387 * (1 - 1.014387) / 0.15
        // = -1.37994, exact -1.378992.
        assert!(close(test.llr(&[100, 200, 400, 200, 100]), -1.378992, 1e-5));
        assert!(close(
            test.llr(&[1000, 2000, 4200, 2200, 1100]),
            4.692105,
            1e-5
        ));
        // One pair won twice is little evidence. With the zero counts at 0.001, the most likely
        // distribution of mean s puts about s on two wins and 1 - s on two losses, so the LLR
        // is about ln(0.514387 / 0.5) = 0.028364 (exactly 0.028424), where the normal
        // approximation gives 3.8, past the bound.
        assert!(close(test.llr(&[0, 0, 0, 0, 1]), 0.028424, 1e-5));
        assert!(close(test.llr(&[0, 0, 0, 0, 2]), 0.056792, 1e-5));
        // A symmetric hypothesis pair, elo -5 against +5.
        let symmetric = Sprt::new(-5.0, 5.0, 0.05, 0.05).unwrap();
        assert!(close(symmetric.llr(&[30, 80, 130]), 4.317165, 1e-5));
    }

    #[test]
    fn pairs_count_when_complete_and_the_first_crossing_is_kept() {
        let test = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
        let mut sprt = PairedSprt::new(test);
        // Pair 1 finishes first (one win, one draw), then pair 0's first game waits.
        assert!(!sprt.add_game(3, 1.0));
        assert!(!sprt.add_game(2, 0.5));
        assert!(!sprt.add_game(0, 0.0));
        assert_eq!(sprt.pentanomial(), [0, 0, 0, 1, 0]);
        assert_eq!(sprt.pairs(), 1);
        assert!(!sprt.add_game(1, 0.0));
        assert_eq!(sprt.pentanomial(), [1, 0, 0, 1, 0]);
        assert_eq!(sprt.verdict(), Verdict::Inconclusive);
        // Pairs of a win and a draw until the bound: in a separate calculation, the LLR of
        // [1, 0, 0, k, 0] is 2.919467 for k = 105 and 2.947835 for k = 106.
        for game in (4..).step_by(2).take(104) {
            sprt.add_game(game, 1.0);
            assert!(!sprt.add_game(game + 1, 0.5), "crossed at game {game}");
        }
        assert_eq!(sprt.pentanomial(), [1, 0, 0, 105, 0]);
        assert!(close(sprt.llr(), 2.919467, 1e-5));
        sprt.add_game(212, 0.5);
        assert!(sprt.add_game(213, 1.0));
        let crossing = sprt.crossing().unwrap();
        assert_eq!(crossing.verdict, Verdict::H1);
        assert!(close(crossing.llr, 2.947835, 1e-5));
        assert_eq!(crossing.pairs, 107);
        // Lost pairs afterwards bring the LLR back inside, but the verdict stays.
        for game in [20_000, 20_001, 20_002, 20_003] {
            sprt.add_game(game, 0.0);
        }
        assert!(sprt.llr() < crossing.llr);
        assert_eq!(sprt.verdict(), Verdict::H1);
        let summary = sprt.summary("new");
        assert!(
            summary.contains("), H1 accepted when it reached 2.95 after 107 pairs\n"),
            "{summary}"
        );
    }

    #[test]
    fn summary_lines() {
        let mut sprt = PairedSprt::new(Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap());
        // Pairs scoring 2, 1.5, 1 and 1 point; game 8 has no partner.
        for (game, points) in [(0, 1.0), (1, 1.0), (2, 1.0), (3, 0.5), (4, 0.5)] {
            sprt.add_game(game, points);
        }
        for (game, points) in [(5, 0.5), (6, 0.0), (7, 1.0), (8, 1.0)] {
            sprt.add_game(game, points);
        }
        assert_eq!(sprt.pentanomial(), [0, 0, 2, 1, 1]);
        // The LLR of [0, 0, 2, 1, 1] is 0.113385 in a separate calculation.
        assert!(close(sprt.llr(), 0.113385, 1e-5));
        assert_eq!(
            sprt.summary("new"),
            "SPRT elo0 0, elo1 10, alpha 0.05, beta 0.05: 4 pairs scoring 0 / 0.5 / 1 / 1.5 / 2 \
             points for new: 0 0 2 1 1\n\
             SPRT: llr 0.11 (bounds -2.94 .. 2.94), inconclusive\n\
             (1 game(s) whose pair is incomplete left out of the SPRT)\n"
        );
    }
}
