//! The pinned search signatures (`tests/fixtures/signatures.txt`): the midgame bench's node
//! count and the solver's node count on FFO #1-#19. A change of search behaviour changes one
//! of them; the commit that means it updates the file and names the new values.

use std::process::Command;

/// The value of `key` in the signatures file.
fn pinned(key: &str) -> u64 {
    let text = std::fs::read_to_string("tests/fixtures/signatures.txt").unwrap();
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| line.strip_prefix(key)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {key} in tests/fixtures/signatures.txt"))
}

/// Runs the binary and returns the number after `word` in the last line that has one.
fn number_after(args: &[&str], word: &str) -> u64 {
    let out = Command::new(env!("CARGO_BIN_EXE_tsuru"))
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "tsuru {args:?} failed");
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .rev()
        .find_map(|line| {
            let mut words = line.split_whitespace();
            words.position(|w| w == word)?;
            words.next()?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no '{word} N' in the output of tsuru {args:?}:\n{text}"))
}

#[test]
fn bench_signature_is_the_pinned_one() {
    // The bench searches on one thread unless told otherwise.
    assert_eq!(number_after(&["bench"], "signature"), pinned("bench"));
}

#[test]
fn ffo_1_to_19_take_the_pinned_node_count() {
    // One thread (the default, given explicitly): only one thread repeats node counts.
    let nodes = number_after(
        &["solve", "tests/fixtures/fforum-1-19.obf", "--threads", "1"],
        "nodes",
    );
    assert_eq!(nodes, pinned("ffo-1-19"));
}
