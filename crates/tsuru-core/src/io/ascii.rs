//! Text made ASCII for the pipes: NBoard's reader thread dies on any character above
//! U+00FF, so every protocol line, log line and referee record goes through [`ascii`] (lossy:
//! for output) or [`escape`] (lossless: for echoing input back).

/// `text` with every non-ASCII character replaced by `?` and carriage returns removed.
pub fn ascii(text: &str) -> String {
    text.chars()
        .filter(|&c| c != '\r')
        .map(|c| if c.is_ascii() { c } else { '?' })
        .collect()
}

/// `text` made ASCII for echoing input back (logs, `pong`): printable ASCII is kept, every
/// other character is written as a Rust escape (`\u{e9}`, `\t`, `\u{0}`), so nothing of the
/// input is lost or printed raw.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == ' ' || c.is_ascii_graphic() {
            out.push(c);
        } else {
            out.extend(c.escape_default());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_replaces_other_characters_and_drops_carriage_returns() {
        assert_eq!(ascii("caf\u{e9} \u{2192} ok\r"), "caf? ? ok");
    }

    #[test]
    fn escaping_keeps_ascii_and_spells_out_the_rest() {
        assert_eq!(escape("move F5"), "move F5");
        assert_eq!(escape("\u{e9}5\t\0\r"), "\\u{e9}5\\t\\u{0}\\r");
        assert!(escape("\u{1F600} \u{fffd}").is_ascii());
    }
}
