//! Perft from the start position against the published counts in `tests/fixtures/perft.txt`.

use tsuru_core::board::{notation, perft, Board};

/// (depth, leaves) pairs read from the fixture, comments skipped.
fn expected_counts() -> Vec<(u32, u64)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/perft.txt");
    let text = std::fs::read_to_string(path).expect("perft fixture");
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let mut fields = line.split_whitespace();
            let depth = fields.next().unwrap().parse().unwrap();
            let leaves = fields.next().unwrap().parse().unwrap();
            (depth, leaves)
        })
        .collect()
}

fn check_depths(range: std::ops::RangeInclusive<u32>) {
    let mut board = Board::start();
    for (depth, leaves) in expected_counts() {
        if range.contains(&depth) {
            assert_eq!(perft::perft(&mut board, depth), leaves, "depth {depth}");
            assert_eq!(board, Board::start(), "perft left the board changed");
        }
    }
}

#[test]
fn perft_depths_1_to_9_match_the_published_counts() {
    check_depths(1..=9);
}

/// About 1.5 s in release; kept in the default run.
#[test]
fn perft_depths_10_and_11_match_the_published_counts() {
    check_depths(10..=11);
}

/// Counts from a position with passes: from a position where Black must pass, every line
/// starts with the pass, so perft(d) equals perft(d - 1) after the pass.
#[test]
fn perft_counts_a_forced_pass_as_a_ply() {
    let text = format!("OX{} X", "-".repeat(62));
    let mut board = notation::parse_board(&text).unwrap();
    assert!(board.must_pass());
    let mut after_pass = board.clone();
    after_pass.make_pass();
    for depth in 1..=4 {
        assert_eq!(
            perft::perft(&mut board, depth),
            perft::perft(&mut after_pass, depth - 1),
            "depth {depth}"
        );
    }
    // A finished game is a single leaf at every depth.
    let mut done = notation::parse_board(&format!("X{} O", "-".repeat(63))).unwrap();
    assert!(done.is_game_over());
    assert_eq!(perft::perft(&mut done, 5), 1);
}

/// The reference mailbox scan reaches the same counts (slower, so to depth 8).
#[test]
fn reference_scan_perft_matches_to_depth_8() {
    let mut board = Board::start();
    for (depth, leaves) in expected_counts().into_iter().filter(|(d, _)| *d <= 8) {
        assert_eq!(
            tsuru_core::board::scan::perft(&mut board, depth),
            leaves,
            "depth {depth}"
        );
    }
}
