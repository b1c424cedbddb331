//! Every file format tsuru reads or writes, parsed at the edge into plain records of engine
//! types: the opening book and its text form ([`book`]), GGF game records ([`ggf`]), OBF test
//! positions ([`obf`]), opening lists ([`openings`]), validation files ([`validation`]),
//! weights files ([`weights`]), self-play files ([`selfplay`]), positions files
//! ([`positions`]), search-value caches ([`search_cache`]) and match records
//! ([`match_record`]). A format module knows the layout (header, version, checksum, line
//! shape) and nothing of what the records are for: the evaluation, training and the referee
//! keep that logic and use the engine's public types only. (The ProbCut statistics files are
//! the exception: `search::probcut` reads them into its tables, and `tsuru probcut` writes
//! them.)

pub mod book;
pub mod ggf;
pub mod match_record;
pub mod obf;
pub mod openings;
pub mod positions;
pub mod search_cache;
pub mod selfplay;
pub mod validation;
pub mod weights;

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
    use super::lenient_number;

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
