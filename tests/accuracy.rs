//! `tsuru accuracy` and `tsuru solve --write-obf` over the binary, on FFO #1-#19 with every
//! legal move's exact score (`tests/fixtures/fforum-1-19-all-moves.obf`, written by
//! `tsuru solve tests/fixtures/fforum-1-19.obf --write-obf FILE`; its best moves and scores
//! agree with the FFO file's).

mod common;

use common::run_tsuru as tsuru;

const ALL_MOVES: &str = "tests/fixtures/fforum-1-19-all-moves.obf";

fn stdout(args: &[&str]) -> String {
    let output = tsuru(args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "tsuru {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("ASCII output")
}

/// The fixture's lines: the board and side (the first 66 characters) and `MOVE:score` pairs.
fn fixture() -> Vec<(String, Vec<(String, i32)>)> {
    std::fs::read_to_string(ALL_MOVES)
        .unwrap()
        .lines()
        .map(|line| {
            let (board, rest) = line.split_once(';').unwrap();
            let scores = rest
                .split(';')
                .filter_map(|field| field.trim().split_once(':'))
                .map(|(mv, score)| (mv.to_string(), score.parse().unwrap()))
                .collect();
            (board.to_string(), scores)
        })
        .collect()
}

/// The value of `name` in a summary line such as `... best move 57.6 %  in best 2 ...`.
fn figure(summary: &str, name: &str) -> f64 {
    let rest = summary
        .split(name)
        .nth(1)
        .unwrap_or_else(|| panic!("{name:?} in {summary:?}"));
    rest.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn a_depth_that_solves_answers_every_position_exactly() {
    // Level 14 solves exactly from 21 empties; these positions have 14 to 16.
    let out = stdout(&["accuracy", ALL_MOVES, "--depth", "14"]);
    let summary: String = out.lines().rev().take(2).collect::<Vec<_>>().join(" ");
    assert_eq!(figure(&summary, "positions"), 19.0, "{out}");
    for name in [
        "best move",
        "in best 2",
        "in best 3",
        "within 3 discs",
        "within 6 discs",
    ] {
        assert_eq!(figure(&summary, name), 100.0, "{name}: {out}");
    }
    assert_eq!(figure(&summary, "mean abs. error"), 0.0, "{out}");
    assert_eq!(figure(&summary, "mean loss"), 0.0, "{out}");
}

#[test]
fn a_shallow_search_is_scored_against_the_listed_moves() {
    // Depth 2 is a midgame search here: its moves and scores are the search's, and every
    // figure of the summary must follow from the lines and the fixture.
    let out = stdout(&["accuracy", ALL_MOVES, "--depth", "2"]);
    let fixture = fixture();
    let lines: Vec<&str> = out.lines().skip(1).take(fixture.len()).collect();
    let (mut best, mut within3, mut error_sum, mut loss_sum) = (0, 0, 0.0, 0);
    for (line, (_, scores)) in lines.iter().zip(&fixture) {
        // #, empties, move, score, best:exact, move's, error, nodes, seconds
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(fields.len(), 9, "{line}");
        let exact = scores.iter().map(|&(_, s)| s).max().unwrap();
        let move_score = scores
            .iter()
            .find(|(mv, _)| mv == fields[2])
            .map(|&(_, s)| s)
            .unwrap_or_else(|| panic!("{} is listed in the fixture", fields[2]));
        assert_eq!(fields[5].parse::<i32>().unwrap(), move_score, "{line}");
        let score: f64 = fields[3].parse().unwrap();
        let error = (score - f64::from(exact)).abs();
        assert!(
            (fields[6].parse::<f64>().unwrap() - error).abs() < 0.006,
            "{line}"
        );
        best += usize::from(move_score == exact);
        within3 += usize::from(error <= 3.0);
        error_sum += error;
        loss_sum += exact - move_score;
    }
    let summary: String = out.lines().rev().take(2).collect::<Vec<_>>().join(" ");
    let n = fixture.len() as f64;
    let percent = |count: usize| (1000.0 * count as f64 / n).round() / 10.0;
    assert_eq!(figure(&summary, "best move"), percent(best), "{out}");
    assert_eq!(
        figure(&summary, "within 3 discs"),
        percent(within3),
        "{out}"
    );
    assert!((figure(&summary, "mean abs. error") - error_sum / n).abs() < 0.006);
    assert!((figure(&summary, "mean loss") - f64::from(loss_sum) / n).abs() < 0.006);
    // A depth-2 search does not find every best move of these endgame problems.
    assert!(best < fixture.len(), "{out}");
}

#[test]
fn positions_without_scores_are_searched_and_timed_but_not_judged() {
    // The midgame fixture has no scores: every position is searched (its line has a move
    // and nodes, its exact value and error are "-"), none is judged, and the summary's
    // nodes are the lines' sum. Positions 1-4 are one game at 49, 44, 39 and 34 empties.
    let out = stdout(&[
        "accuracy",
        "tests/fixtures/midgame-160.obf",
        "--depth",
        "4",
        "--last",
        "4",
    ]);
    let lines: Vec<&str> = out.lines().skip(1).take(4).collect();
    let mut nodes = 0;
    for (line, empties) in lines.iter().zip([49, 44, 39, 34]) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(fields.len(), 9, "{line}");
        assert_eq!(fields[1].parse::<u32>().unwrap(), empties, "{line}");
        assert_eq!(&fields[4..7], &["-", "-", "-"], "{line}");
        let searched: u64 = fields[7].parse().unwrap();
        assert!(searched > 0, "{line}");
        nodes += searched;
    }
    let summary: String = out.lines().rev().take(2).collect::<Vec<_>>().join(" ");
    assert_eq!(figure(&summary, "positions"), 0.0, "{out}");
    assert_eq!(figure(&summary, "unscored"), 4.0, "{out}");
    assert_eq!(figure(&summary, "nodes"), nodes as f64, "{out}");
}

#[test]
fn solve_writes_every_moves_exact_score() {
    let dir = std::env::temp_dir().join(format!("tsuru-write-obf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("rescored.obf");
    let path = path.to_str().unwrap();
    stdout(&[
        "solve",
        "tests/fixtures/fforum-1-19.obf",
        "--last",
        "3",
        "--threads",
        "1",
        "--write-obf",
        path,
    ]);
    let written = std::fs::read_to_string(path).unwrap();
    let expected: Vec<String> = std::fs::read_to_string(ALL_MOVES)
        .unwrap()
        .lines()
        .take(3)
        .map(str::to_string)
        .collect();
    assert_eq!(written.lines().collect::<Vec<_>>(), expected);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn edax_style_end_entries_and_bad_depths() {
    let dir = std::env::temp_dir().join(format!("tsuru-edax-obf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("edax.obf");
    let first = std::fs::read_to_string(ALL_MOVES)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    std::fs::write(&path, format!("{first} --:-127;\n")).unwrap();
    let path = path.to_str().unwrap();
    let out = stdout(&["accuracy", path, "--depth", "14"]);
    assert!(out.contains("positions 1  best move 100.0 %"), "{out}");
    let solved = stdout(&["solve", path, "--threads", "1"]);
    assert!(solved.contains("wrong moves 0  wrong scores 0"), "{solved}");
    for bad in [&["accuracy", path][..], &["accuracy", path, "--depth", "0"]] {
        let output = tsuru(bad);
        assert_eq!(output.status.code(), Some(2), "{bad:?}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("depth"));
    }
    std::fs::remove_dir_all(&dir).ok();
}
