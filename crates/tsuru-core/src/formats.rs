//! Every file format tsuru reads or writes, parsed at the edge into plain records of engine
//! types: the opening book and its text form ([`book`]), GGF game records ([`ggf`]), OBF test
//! positions ([`obf`]), opening lists ([`openings`]), validation files ([`validation`]),
//! weights files ([`weights`]) with their one checksum ([`checksum`]), interaction-term files
//! ([`term`]), self-play files ([`selfplay`]), positions files
//! ([`positions`]), search-value caches ([`search_values`]), samples files for an outside
//! trainer ([`samples`]), pattern-network files ([`pattern_nets`]), factorisation-machine model
//! files ([`fm_model`]) and match records
//! ([`match_record`]), and the [`Shard`] naming one part of a job cut among machines. A
//! format module knows the layout (header, version, checksum, line
//! shape) and nothing of what the records are for: the evaluation, training and the referee
//! keep that logic and use the engine's public types only. (The ProbCut statistics files are
//! the exception: `eval::probcut` reads them into its tables, and `tsuru probcut` writes
//! them.)

pub mod book;
pub mod bytes;
pub mod checksum;
pub mod edax_book;
pub mod fm_model;
pub mod ggf;
pub mod match_record;
pub mod obf;
pub mod openings;
pub mod pattern_nets;
pub mod positions;
pub mod samples;
pub mod search_values;
pub mod selfplay;
pub mod term;
pub mod validation;
pub mod weights;

use anyhow::{ensure, Context, Result};

/// Part `index` of a job cut into `count` parts (`K/N` on command lines and in file headers);
/// [`Shard::parse`] guarantees `index < count`. Which items a part holds is the business of
/// the job that cuts it (`tsuru datagen` deals game indices out in turn, `tsuru label` cuts
/// contiguous ranges).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which part, from 0.
    pub index: u64,
    /// How many parts.
    pub count: u64,
}

impl Shard {
    /// Reads `K/N`, `0 <= K < N`.
    pub fn parse(text: &str) -> Result<Shard> {
        let (index, count) = text
            .split_once('/')
            .with_context(|| format!("a shard is K/N, not {text:?}"))?;
        let number = |word: &str| -> Result<u64> {
            ensure!(
                !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()),
                "a shard is K/N with whole numbers, not {text:?}"
            );
            word.parse()
                .with_context(|| format!("shard number out of range in {text:?}"))
        };
        let shard = Shard {
            index: number(index)?,
            count: number(count)?,
        };
        ensure!(
            shard.index < shard.count,
            "shard {text}: K must be below N (shards are numbered 0 to N-1)"
        );
        Ok(shard)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Parses a decimal leniently, as GUIs write them: a comma decimal separator (`1,23`) and
/// Java-style exponents (`5.0E-4`) are accepted; anything unparsable or non-finite is `None`.
pub fn lenient_number(text: &str) -> Option<f64> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    text.replace(',', ".")
        .parse::<f64>()
        .ok()
        .filter(|value| value.is_finite())
}

#[cfg(test)]
mod tests {
    use super::{lenient_number, Shard};

    #[test]
    fn shards_read_and_print_as_k_of_n() {
        let shard = Shard::parse("1/2").unwrap();
        assert_eq!(shard, Shard { index: 1, count: 2 });
        assert_eq!(shard.to_string(), "1/2");
        assert_eq!(Shard::parse("0/1").unwrap(), Shard { index: 0, count: 1 });
        for bad in [
            "2/2", "0/0", "1", "1/", "/2", "-1/2", "+1/2", "1/2/3", "a/2", " 1/2",
        ] {
            assert!(Shard::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn numbers_accept_commas_and_exponents() {
        assert_eq!(lenient_number("1,23"), Some(1.23));
        assert_eq!(lenient_number("-0.40"), Some(-0.4));
        assert_eq!(lenient_number("+3"), Some(3.0));
        assert_eq!(lenient_number("5.0E-4"), Some(0.0005));
        for bad in ["", " ", "abc", "nan", "inf", "1.2.3"] {
            assert_eq!(lenient_number(bad), None, "{bad:?}");
        }
    }
}
