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

/// The evaluation cache only saves evaluations: without one, or with one of 16 entries, the
/// bench searches the same nodes.
#[test]
fn bench_signature_is_the_same_without_the_evaluation_cache() {
    for bits in ["0", "4"] {
        assert_eq!(
            number_after(&["bench", "--eval-cache", bits], "signature"),
            pinned("bench"),
            "--eval-cache {bits}"
        );
    }
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

/// FFO #20-#29 (20 to 24 empties) are solved after the selective passes, so their node count
/// also pins the endgame ProbCut statistics and how the solver reads them.
#[test]
fn ffo_20_to_29_take_the_pinned_node_count() {
    let nodes = number_after(
        &[
            "solve",
            "tests/fixtures/fforum-20-39.obf",
            "--threads",
            "1",
            "--hash",
            "64",
            "--last",
            "29",
        ],
        "nodes",
    );
    assert_eq!(nodes, pinned("ffo-20-29"));
}

/// `tsuru bench --eval-file X` searches with X and the statistics beside it: the shipped
/// weights and statistics copied to a file give the shipped signature, and the same weights
/// without their statistics search full width, so another.
#[test]
fn bench_searches_with_the_weights_file_it_is_given() {
    let dir = std::env::temp_dir().join(format!("tsuru-bench-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The shipped evaluation as a file: the shipped term (a term file applies to the
    // compiled-in tables).
    let with_stats = dir.join("shipped.tsi");
    let bare = dir.join("bare.tsi");
    for target in [&with_stats, &bare] {
        std::fs::copy("crates/tsuru-core/src/eval/term.tsi", target).unwrap();
    }
    let with_stats_name = with_stats.to_str().unwrap().to_string();
    std::fs::copy(
        "crates/tsuru-core/src/eval/probcut.txt",
        format!("{with_stats_name}.probcut"),
    )
    .unwrap();
    std::fs::copy(
        "crates/tsuru-core/src/eval/probcut-endgame.txt",
        format!("{with_stats_name}.probcut-endgame"),
    )
    .unwrap();
    let short = ["bench", "--depth-offset", "-3", "--hash", "8"];
    let signature = |eval_file: Option<&str>| {
        let mut args = short.to_vec();
        if let Some(path) = eval_file {
            args.extend(["--eval-file", path]);
        }
        number_after(&args, "signature")
    };
    let shipped = signature(None);
    assert_eq!(signature(Some(&with_stats_name)), shipped);
    assert_ne!(signature(Some(bare.to_str().unwrap())), shipped);
    std::fs::remove_dir_all(&dir).unwrap();
}
