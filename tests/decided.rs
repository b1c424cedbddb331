//! `tsuru decided`: each game of a GGF file solved at N empties, and with `--positions-out`
//! the solved positions written as a validation file whose scores are the true values.

mod common;

use common::positions::minimax;
use common::run_tsuru as tsuru;

use tsuru_core::board::{Board, Color};
use tsuru_core::formats::ggf::GgfGame;
use tsuru_core::formats::validation;

/// Two games of a tsuru-NTest match (`matches/ntest-100-gen2`, the first two records).
const GAMES: [&str; 2] = [
    "(;GM[Othello]PC[tsuru match]DT[1795499170]PB[tsuru]PW[ntest]RE[-10.00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6]B[F7]W[G5]B[E6]W[F4]B[H4]W[C6]B[F3//1.01]W[E7/0.85/1.65]B[D6//1]W[D7/0.85/1.5]B[E3//1]W[G6/1.09/0.79]B[H5//0.95]W[G3/2.29/0.6]B[G4//1]W[H3/1.45/0.53]B[E8//0.77]W[D8/1.46/1.5]B[C3//0.78]W[H6/1.90/0.55]B[C5//1]W[F8/4.00/1.51]B[C7//0.66]W[C4/4.00/1.51]B[D3//0.7]W[F2/4.00/1.5]B[B3//1]W[D2/4.00/0.56]B[G8//1]W[H8/8.00/0.91]B[C8//1]W[B5/9.99/1.5]B[E2//0.89]W[E1/8.00/0.52]B[C1//1]W[D1/10.00/0.79]B[B4//0.66]W[A4/10.00/0]B[A5//0.01]W[C2/10.00/0]B[B7//0.01]W[B8/10.00/0]B[G2//0]W[A6/10.00/0]B[A8//0]W[A7/10.00/0]B[H7//0]W[G7/10.00/0]B[B6//0]W[H1/10.00/0]B[H2//0]W[B1/10.00/0]B[A3//0]W[B2/10.00/0]B[G1//0]W[F1//0]B[A2//0]W[A1//0];)",
    "(;GM[Othello]PC[tsuru match]DT[1795499170]PB[ntest]PW[tsuru]RE[-6.00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6]B[F7]W[G5]B[E6]W[F4]B[H4]W[C6]B[F3/-0.84/2.12]W[G6//0.93]B[G4/-0.48/0.55]W[H5//1]B[H6/-1.58/1.11]W[E7//0.66]B[D7/-1.56/1.24]W[G3//0.91]B[H3/-1.39/1.5]W[F8//1]B[D6/-1.71/1.5]W[C8//1]B[C5/-2.29/0.54]W[B6//1]B[C3/-3.30/1.5]W[E8//1]B[E3/-1.74/1.1]W[C4//1]B[B5/-2.71/1.49]W[A5//0.67]B[A6/-4.01/1.07]W[D3//1]B[D2/-5.00/1.5]W[C2//0.75]B[A4/-6.00/1.5]W[E1//0.94]B[B4/-6.00/1.5]W[E2//0.74]B[F2/-6.00/1.1]W[B3//0.38]B[D8/-6.00/0]W[F1//0.01]B[G2/-6.00/0]W[C7//0]B[B7/-6.00/0]W[A3//0]B[A2/-6.00/0]W[G7//0]B[H8/-6.00/0]W[A7//0]B[A8/-6.00/0]W[B8//0]B[G1/-6.00/0]W[B2//0]B[A1/-6.00/0]W[B1//0]B[C1/-6.00/0]W[D1//0]B[G8//0]W[H1//0]B[H2//0]W[H7//0];)",
];

/// The game's position at `empties`, replayed here independently of the tool.
fn position_at(record: &str, empties: u32) -> Board {
    let game = GgfGame::parse(record).expect("a GGF record");
    let mut board = game.start().clone();
    for mv in game.moves() {
        if board.empties() == empties {
            break;
        }
        board.play(mv.mv).expect("a legal move");
    }
    assert_eq!(board.empties(), empties);
    board.without_history()
}

/// `tsuru decided GGF --empties 10 --positions-out OUT [EXTRA...]`.
fn decided_at_10(ggf: &std::path::Path, out: &std::path::Path) -> std::process::Output {
    decided_at_10_with(ggf, out, &[])
}

fn decided_at_10_with(
    ggf: &std::path::Path,
    out: &std::path::Path,
    extra: &[&str],
) -> std::process::Output {
    let mut args = vec![
        "decided",
        ggf.to_str().unwrap(),
        "--empties",
        "10",
        "--hash",
        "16",
        "--positions-out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    tsuru(&args)
}

/// The position lines of a validation file, its comments left out.
fn position_lines(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_run_continued_by_game_numbers_writes_what_one_run_writes() {
    let dir = std::env::temp_dir().join(format!("tsuru-decided-range-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ggf = dir.join("games.ggf");
    std::fs::write(&ggf, GAMES.join("\n") + "\n").unwrap();
    let (whole, parts) = (dir.join("whole.txt"), dir.join("parts.txt"));
    for path in [&whole, &parts] {
        let _ = std::fs::remove_file(path);
    }
    assert_eq!(decided_at_10(&ggf, &whole).status.code(), Some(0));
    let head = decided_at_10_with(&ggf, &parts, &["--last", "1"]);
    assert_eq!(head.status.code(), Some(0));
    let rows = |run: &std::process::Output| {
        String::from_utf8_lossy(&run.stdout)
            .lines()
            .filter_map(|line| line.split_whitespace().next()?.parse::<usize>().ok())
            .collect::<Vec<_>>()
    };
    assert_eq!(rows(&head), [1], "only game 1");
    assert_eq!(position_lines(&parts).len(), 1);
    let tail = decided_at_10_with(&ggf, &parts, &["--first", "2"]);
    assert_eq!(tail.status.code(), Some(0));
    assert_eq!(rows(&tail), [2], "only game 2");
    assert_eq!(position_lines(&parts), position_lines(&whole));
    assert_eq!(position_lines(&whole).len(), 2);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_unwritable_positions_file_fails_before_any_solve() {
    let dir = std::env::temp_dir().join(format!("tsuru-decided-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ggf = dir.join("games.ggf");
    std::fs::write(&ggf, GAMES.join("\n") + "\n").unwrap();
    let run = decided_at_10(&ggf, &dir.join("no-such-folder").join("out.txt"));
    assert_ne!(run.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("no-such-folder"), "{stderr}");
    assert!(
        !String::from_utf8_lossy(&run.stdout).contains("tsuru"),
        "no game was solved"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn positions_out_holds_each_game_at_n_empties_with_its_true_value() {
    let dir = std::env::temp_dir().join(format!("tsuru-decided-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ggf = dir.join("games.ggf");
    let out = dir.join("solved.txt");
    std::fs::write(&ggf, GAMES.join("\n") + "\n").unwrap();
    let _ = std::fs::remove_file(&out);
    let run = decided_at_10(&ggf, &out);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    let solved = validation::read(&out).expect("a validation file");
    assert_eq!(solved.len(), 2);
    for (record, (board, score)) in GAMES.iter().zip(&solved) {
        let mut expected = position_at(record, 10);
        assert_eq!(board.discs(Color::Black), expected.discs(Color::Black));
        assert_eq!(board.discs(Color::White), expected.discs(Color::White));
        assert_eq!(board.side_to_move(), expected.side_to_move());
        assert_eq!(*score, minimax(&mut expected), "side to move's exact value");
    }
    // The table gives the same values from Black's side.
    for (number, (board, score)) in solved.iter().enumerate() {
        let black = if board.side_to_move() == Color::Black {
            score.get()
        } else {
            -score.get()
        };
        let row = stdout
            .lines()
            .find(|line| line.split_whitespace().next() == Some(&(number + 1).to_string()))
            .expect("a row per game");
        assert_eq!(
            row.split_whitespace().nth(3),
            Some(format!("{black:+}").as_str()),
            "{row}"
        );
    }
    // A second run appends.
    let again = decided_at_10(&ggf, &out);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(validation::read(&out).unwrap().len(), 4);
    std::fs::remove_dir_all(&dir).ok();
}
