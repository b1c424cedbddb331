//! The chances of a win, a draw and a loss that a search value stands for.
//!
//! A value `v` (discs, side to move's view) at `e` empty squares is read as an ordered logit:
//! with `w = v + d`, `P(win) = s(a * (w - c))`, `P(loss) = s(a * (-w - c))` and `P(draw)`
//! the rest, where `s` is the logistic function and the empties' bucket has its scale
//! `a > 0`, its draw margin `c >= 0` (so `P(draw) >= 0` always) and its shift `d` (what the
//! searches' values for the side to move are off by on average). The parameters are fitted to self-play games' results
//! (`tsuru winprob`, docs/training.md, "Win probability"); the shipped ones are compiled in
//! ([`SHIPPED`]). An exact value needs no fit: a win, a draw or a loss for sure.

use anyhow::{bail, ensure, Context, Result};
use std::sync::OnceLock;

/// The shipped parameters, as `tsuru winprob` writes them.
pub const SHIPPED: &str = include_str!("win-probability.txt");

/// Buckets of empties: 0-24 (where the games are mostly solved: the nearest fitted bucket),
/// then 25-29, ..., 55-60.
pub const BUCKETS: usize = 8;

/// The bucket of `empties` empty squares.
pub fn bucket(empties: u32) -> usize {
    (empties.saturating_sub(20) / 5).min(BUCKETS as u32 - 1) as usize
}

/// The chances of the side to move: each in [0, 1], summing to 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WinProbability {
    /// The chance of a win.
    pub win: f64,
    /// The chance of a draw.
    pub draw: f64,
    /// The chance of a loss.
    pub loss: f64,
}

impl WinProbability {
    /// The certain outcome of an exact value: a win above 0, a draw at 0, a loss below.
    pub fn exact(value: f64) -> WinProbability {
        let (win, draw, loss) = if value > 0.0 {
            (1.0, 0.0, 0.0)
        } else if value < 0.0 {
            (0.0, 0.0, 1.0)
        } else {
            (0.0, 1.0, 0.0)
        };
        WinProbability { win, draw, loss }
    }

    /// The expected score: a win 1, a draw 1/2, a loss 0.
    pub fn expected(&self) -> f64 {
        self.win + 0.5 * self.draw
    }

    /// The same chances for the other player.
    pub fn flipped(&self) -> WinProbability {
        WinProbability {
            win: self.loss,
            draw: self.draw,
            loss: self.win,
        }
    }
}

/// The fitted parameters: a scale and a draw margin for each bucket of empties.
#[derive(Clone, Debug, PartialEq)]
pub struct WinModel {
    /// `a` of each bucket, per disc.
    pub scale: [f64; BUCKETS],
    /// `c` of each bucket, in discs.
    pub draw_margin: [f64; BUCKETS],
    /// `d` of each bucket, in discs.
    pub shift: [f64; BUCKETS],
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

impl WinModel {
    /// The compiled-in model.
    pub fn shipped() -> &'static WinModel {
        static MODEL: OnceLock<WinModel> = OnceLock::new();
        MODEL.get_or_init(|| WinModel::parse(SHIPPED).expect("the shipped model parses"))
    }

    /// The chances a value `value` (discs, side to move) at `empties` empties stands for.
    pub fn probability(&self, value: f64, empties: u32) -> WinProbability {
        let b = bucket(empties);
        let (a, c, w) = (self.scale[b], self.draw_margin[b], value + self.shift[b]);
        let win = logistic(a * (w - c));
        let loss = logistic(a * (-w - c));
        WinProbability {
            win,
            loss,
            draw: (1.0 - win - loss).max(0.0),
        }
    }

    /// The chances of a search's value: certain when it is exact, else the model's.
    pub fn of_value(&self, value: f64, empties: u32, exact: bool) -> WinProbability {
        if exact {
            WinProbability::exact(value)
        } else {
            self.probability(value, empties)
        }
    }

    /// Reads the text form: `#` comments, then one line a bucket, `bucket SCALE MARGIN SHIFT`.
    pub fn parse(text: &str) -> Result<WinModel> {
        let mut scale = [f64::NAN; BUCKETS];
        let mut draw_margin = [f64::NAN; BUCKETS];
        let mut shift = [f64::NAN; BUCKETS];
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let parse = || -> Result<(usize, f64, f64, f64)> {
                ensure!(
                    words.len() == 4,
                    "four fields: bucket, scale, draw margin, shift"
                );
                let number = |k: usize| -> Result<f64> { Ok(words[k].parse()?) };
                Ok((words[0].parse()?, number(1)?, number(2)?, number(3)?))
            };
            let (b, a, c, d) = parse().with_context(|| format!("line {}: {line:?}", number + 1))?;
            ensure!(b < BUCKETS, "line {}: no bucket {b}", number + 1);
            ensure!(
                a.is_finite() && a > 0.0 && c.is_finite() && c >= 0.0 && d.is_finite(),
                "line {}: the scale must be above 0, the margin at least 0",
                number + 1
            );
            scale[b] = a;
            draw_margin[b] = c;
            shift[b] = d;
        }
        if let Some(b) = scale.iter().position(|a| a.is_nan()) {
            bail!("bucket {b} is missing");
        }
        Ok(WinModel {
            scale,
            draw_margin,
            shift,
        })
    }

    /// The text form [`WinModel::parse`] reads, after `header` (comment lines).
    pub fn to_text(&self, header: &str) -> String {
        let mut out = String::new();
        for line in header.lines() {
            out.push_str("# ");
            out.push_str(line);
            out.push('\n');
        }
        for b in 0..BUCKETS {
            out.push_str(&format!(
                "{b} {:.6} {:.6} {:.6}\n",
                self.scale[b], self.draw_margin[b], self.shift[b]
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chances_sum_to_one_and_follow_the_value() {
        let model = WinModel::shipped();
        let mut last = 0.0;
        for v in -64..=64 {
            for empties in [10, 24, 30, 45, 60] {
                let p = model.probability(f64::from(v), empties);
                assert!((p.win + p.draw + p.loss - 1.0).abs() < 1e-9, "{p:?}");
                assert!(p.draw >= 0.0 && p.win >= 0.0 && p.loss >= 0.0);
            }
            let p = model.probability(f64::from(v), 40).expected();
            assert!(p >= last, "the expected score grows with the value");
            last = p;
        }
        // A value that the shift makes even is an even game; around it the chances mirror.
        let b = bucket(40);
        let even = model.probability(-model.shift[b], 40);
        assert!((even.win - even.loss).abs() < 1e-12);
        let p = model.probability(6.0 - model.shift[b], 40);
        let q = model.probability(-6.0 - model.shift[b], 40);
        assert!((p.flipped().win - q.win).abs() < 1e-12);
    }

    #[test]
    fn exact_values_are_certain() {
        let model = WinModel::shipped();
        assert_eq!(model.of_value(2.0, 30, true).expected(), 1.0);
        assert_eq!(model.of_value(0.0, 30, true).expected(), 0.5);
        assert_eq!(model.of_value(-2.0, 30, true).expected(), 0.0);
        assert!(model.of_value(2.0, 30, false).expected() < 1.0);
    }

    #[test]
    fn the_text_form_reads_back_and_bad_files_are_refused() {
        let model = WinModel::shipped();
        assert_eq!(
            &WinModel::parse(&model.to_text("a comment")).unwrap(),
            model
        );
        assert!(WinModel::parse("0 0.1 1.0 0\n").is_err(), "buckets missing");
        assert!(
            WinModel::parse("0 -0.1 1.0 0\n").is_err(),
            "a negative scale"
        );
        assert!(WinModel::parse("9 0.1 1.0 0\n").is_err(), "no such bucket");
        assert!(WinModel::parse("0 0.1 1.0\n").is_err(), "a field missing");
        assert_eq!(bucket(0), 0);
        assert_eq!(bucket(24), 0);
        assert_eq!(bucket(25), 1);
        assert_eq!(bucket(60), BUCKETS - 1);
    }
}
