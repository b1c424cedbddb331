//! Game and position file formats, parsed at the edge into typed values: the opening book
//! ([`book`]), GGF game records ([`ggf`]), OBF test positions ([`obf`]), opening lists ([`openings`]) and validation files
//! ([`validation`]).

pub mod book;
pub mod ggf;
pub mod obf;
pub mod openings;
pub mod validation;

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
