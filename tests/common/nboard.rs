//! The grammar of the lines NBoard accepts from an engine (protocols.md section 1.4): one
//! checker for the NBoard tests and the protocol fuzzer.

use super::Stream;

/// A decimal number as NBoard reads it: an optional sign, digits, an optional fraction.
pub fn is_decimal(text: &str) -> bool {
    let body = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (whole, fraction) = body.split_once('.').unwrap_or((body, "0"));
    !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && !fraction.is_empty()
        && fraction.bytes().all(|b| b.is_ascii_digit())
}

/// A move (or the start of a PV token) in either case: a square, or a pass (`PA`, `--`).
pub fn is_move(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    if lower.starts_with("pa") || lower.starts_with("--") {
        return true;
    }
    let b = lower.as_bytes();
    b.len() >= 2 && (b'a'..=b'h').contains(&b[0]) && (b'1'..=b'8').contains(&b[1])
}

/// A search depth: plies, or a percentage (`95%`, `100%W`); never `@`.
pub fn is_depth(text: &str) -> bool {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && !text.contains('@')
}

/// Why NBoard would reject (or we refuse to print) a line, or `Ok`. On stdout only the lines
/// NBoard parses may appear, in its syntax (no empty lines); stderr may carry anything ASCII.
pub fn check_line(stream: Stream, line: &str) -> Result<(), String> {
    if !line.is_ascii() {
        return Err("non-ASCII character".into());
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some(&first) = words.first() else {
        return match stream {
            Stream::Stdout => Err("empty line on stdout".into()),
            Stream::Stderr => Ok(()),
        };
    };
    let ok = match first {
        "set" => words.len() == 3 && words[1] == "myname" && line.starts_with("set myname "),
        "pong" => words.len() == 2 && words[1].parse::<i64>().is_ok(),
        "status" => line == "status" || line.starts_with("status "),
        "learned" => line == "learned",
        "nodestats" => {
            words.len() == 3 && words[1].bytes().all(|b| b.is_ascii_digit()) && is_decimal(words[2])
        }
        "search" | "book" => {
            words.len() >= 5
                && is_move(words[1])
                && is_decimal(words[2])
                && words[3].parse::<u64>().is_ok()
                && (first == "book" || words[3] == "0")
                && is_depth(words[4])
        }
        "===" => {
            words.len() == 2 && {
                let mut parts = words[1].split('/');
                is_move(parts.next().unwrap_or(""))
                    && parts.next().is_none_or(|e| e.is_empty() || is_decimal(e))
                    && parts.next().is_none_or(is_decimal)
                    && parts.next().is_none()
            }
        }
        "analysis" => words.len() == 3 && words[1].parse::<u32>().is_ok() && is_decimal(words[2]),
        // NBoard ignores other first words; our stdout must not carry any.
        _ => stream == Stream::Stderr,
    };
    if ok {
        Ok(())
    } else {
        Err("malformed".into())
    }
}
