//! GGF records as NBoard and GGS write them: a corpus of valid records that must reach the
//! right final position, invalid ones that must be refused without a panic, clock arithmetic,
//! and write-then-read round trips.

mod common;

use common::START_BO;

use tsuru_core::board::{notation, Board, Color, Move};
use tsuru_core::formats::ggf::{GgfGame, GgfMove};
use tsuru_core::rng::Rng;

/// The position reached by playing a transcript from the start position.
fn after(transcript: &str) -> Board {
    let mut board = Board::start();
    notation::play_moves(&mut board, &notation::parse_transcript(transcript).unwrap()).unwrap();
    board
}

/// (name, record, expected final position as a board string)
fn valid_corpus() -> Vec<(&'static str, String, String)> {
    let s = |b: Board| notation::board_to_string(&b);
    // a1 White, b1 Black, Black to move: Black has no move, White's only move is c1.
    let pass_bo = format!("BO[8 O*{} *]", "-".repeat(62));
    let mut after_pass = notation::parse_board(&format!("OX{} X", "-".repeat(62))).unwrap();
    after_pass.make_pass();
    assert!(after_pass.make_move("c1".parse().unwrap()));
    vec![
        (
            "nboard normal form",
            format!("(;GM[Othello]PC[NBoard]DT[2024-05-01 10:00:00 GMT]PB[alice]PW[OurEngine]RE[?]TI[5:00]TY[8]{START_BO}B[F5//3.1]W[D6/-0.40/0.52];)"),
            s(after("f5d6")),
        ),
        (
            "nboard analyze game (a wipeout)",
            format!("(;GM[Othello]PC[NBoard]DT[2024-05-01 10:00:00 GMT]PB[alice]PW[OurEngine]RE[64]TI[5:00]TY[8]{START_BO}B[E6//2.2]W[F4/-1.02/0.8]B[E3//4.1]W[F6/-2.10/0.9]B[G5//3.0]W[D6/-8.50/1.1]B[E7//5.2]W[F5/-20.00/1.0]B[C5//2.7];)"),
            s(after("e6f4e3f6g5d6e7f5c5")),
        ),
        (
            "GGS style: match count, lowercase moves, spaced BO, blank increment",
            "1 (;GM[Othello]PC[GGS/os]DT[947375357]PB[some one]PW[other player]RB[1800.00]RW[1700.00]TI[05:00//02:00]TY[8]RE[+0.000]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]B[f5//0.01]W[d6/-1.23/4.5]B[c3//0.02];)".to_string(),
            s(after("f5d6c3")),
        ),
        (
            "comma decimals, exponent times, unknown tags, synchro type",
            format!("(;GM[othello]XX[what ever]CO[a comment, with spaces]TY[s8r20]{START_BO}B[F5/1,23/5.0E-4]W[f6/-0,5/1E1]KM[0];)"),
            s(after("f5f6")),
        ),
        (
            "set-up position with an explicit pass",
            format!("(;GM[Othello]PC[NBoard]TI[0]TY[8]{pass_bo}B[PA]W[C1//1.0];)"),
            s(after_pass.clone()),
        ),
        (
            "set-up position with a GGS pass token",
            format!("(;GM[Othello]TY[8]{pass_bo}B[pass//4.23]W[c1];)"),
            s(after_pass.clone()),
        ),
        (
            "set-up position with the pass left out (inserted)",
            format!("(;GM[Othello]TY[8]{pass_bo}W[c1];)"),
            s(after_pass),
        ),
        (
            "no moves, whitespace around tags",
            format!("  (; GM[Othello] TY[8] {START_BO} ;)  "),
            s(Board::start()),
        ),
    ]
}

#[test]
fn valid_records_reach_the_right_final_position() {
    for (name, record, expected) in valid_corpus() {
        let game = GgfGame::parse(&record).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        assert_eq!(notation::board_to_string(game.board()), expected, "{name}");
        game.board().check_invariants().unwrap();
    }
}

#[test]
fn the_wipeout_is_over_and_passes_are_recorded() {
    let corpus = valid_corpus();
    let wipeout = GgfGame::parse(&corpus[1].1).unwrap();
    assert!(wipeout.board().is_game_over());
    assert_eq!(wipeout.board().count(Color::White), 0);
    assert_eq!(
        wipeout.board().final_score(Color::Black),
        tsuru_core::score::Discs::new(64)
    );
    let inserted = GgfGame::parse(&corpus[6].1).unwrap();
    assert_eq!(inserted.moves().len(), 2);
    assert_eq!(inserted.moves()[0].mv, Move::Pass);
    let names = GgfGame::parse(&corpus[2].1).unwrap();
    assert!(names
        .tags
        .contains(&("PB".to_string(), "some one".to_string())));
}

#[test]
fn invalid_records_are_errors() {
    let good = &valid_corpus()[0].1;
    let cases = [
        ("size 10", good.replace("BO[8 ", "BO[10 ")),
        ("anti", good.replace("TY[8]", "TY[8a]")),
        ("size 10 type", good.replace("TY[8]", "TY[10]")),
        ("chess", good.replace("GM[Othello]", "GM[Chess]")),
        ("no GM", good.replace("GM[Othello]", "")),
        ("no BO", good.replace(START_BO, "")),
        ("illegal move", good.replace("W[D6/-0.40/0.52]", "W[A1]")),
        (
            "out of turn",
            good.replace("B[F5//3.1]W[D6/-0.40/0.52]", "W[F5]"),
        ),
        ("pass with moves", good.replace("B[F5//3.1]", "B[PA]")),
        ("bad move token", good.replace("B[F5//3.1]", "B[Z9]")),
        ("short BO", good.replace("O*------*O", "O*---*O")),
        ("bad square char", good.replace("O*------*O", "O*--?---*O")),
        ("unclosed tag", good.replace("0.52];)", "0.52;)")),
        ("bad clock", good.replace("TI[5:00]", "TI[five]")),
        ("trailing text", format!("{good} extra")),
        ("empty", String::new()),
        ("garbage", "\u{1}\u{ff}garbage[[[]]];)".to_string()),
        (
            "move after the end",
            valid_corpus()[1].1.replace(";)", "W[A1];)"),
        ),
    ];
    for (name, record) in cases {
        assert!(GgfGame::parse(&record).is_err(), "{name} was accepted");
    }
}

#[test]
fn every_prefix_of_a_record_is_handled_without_panic() {
    for (_, record, _) in valid_corpus() {
        let chars: Vec<char> = record.chars().collect();
        for cut in 0..chars.len() {
            let prefix: String = chars[..cut].iter().collect();
            // Only the complete record may parse; a prefix must be refused, never panic.
            if GgfGame::parse(&prefix).is_ok() {
                assert!(prefix.trim_end().ends_with(";)"), "{prefix:?} accepted");
            }
        }
    }
}

#[test]
fn clocks_count_down_from_ti_tb_tw() {
    let corpus = valid_corpus();
    let game = GgfGame::parse(&corpus[0].1).unwrap();
    assert!((game.time_left(Color::Black).unwrap() - 296.9).abs() < 1e-9);
    assert!((game.time_left(Color::White).unwrap() - 299.48).abs() < 1e-9);
    let untimed = GgfGame::parse(&corpus[4].1).unwrap();
    assert_eq!(untimed.time_left(Color::Black), None);
    let no_clock = GgfGame::parse(&corpus[3].1).unwrap();
    assert_eq!(no_clock.time_left(Color::White), None);
    let split = corpus[0].1.replace("TI[5:00]", "TB[1:00]TW[10:00/5/30]");
    let game = GgfGame::parse(&split).unwrap();
    assert!((game.time_left(Color::Black).unwrap() - 56.9).abs() < 1e-9);
    // White: 600 - 0.52 + 5 increment.
    assert!((game.time_left(Color::White).unwrap() - 604.48).abs() < 1e-9);
    // Running out adds the grace period once.
    let late = corpus[0].1.replace("B[F5//3.1]", "B[F5//301]");
    let game = GgfGame::parse(&late).unwrap();
    assert!((game.time_left(Color::Black).unwrap() - 119.0).abs() < 1e-9);
}

fn assert_same_game(a: &GgfGame, b: &GgfGame) {
    assert_eq!(a.start(), b.start());
    assert_eq!(a.moves(), b.moves());
    assert_eq!(a.board(), b.board());
    assert_eq!(a.clocks, b.clocks);
    assert_eq!(a.tags, b.tags);
}

#[test]
fn corpus_round_trips_through_writing() {
    for (name, record, _) in valid_corpus() {
        let game = GgfGame::parse(&record).unwrap();
        let written = game.to_ggf();
        assert!(written.is_ascii());
        let again = GgfGame::parse(&written).unwrap_or_else(|e| panic!("{name}: {e:#}\n{written}"));
        assert_same_game(&game, &again);
        assert_eq!(again.to_ggf(), written, "{name}");
    }
}

#[test]
fn random_games_round_trip_through_writing() {
    let mut rng = Rng::new(99);
    for game_number in 0..200 {
        // Half the games start from a position reached by random play (a set-up BO).
        let mut start = Board::start();
        if game_number % 2 == 1 {
            for _ in 0..rng.below(30) {
                let moves = start.legal_moves();
                if moves == 0 {
                    break;
                }
                start.make_move(rng.pick(moves));
            }
        }
        let mut game = GgfGame::new(start);
        game.tags
            .push(("PB".into(), format!("player {game_number}")));
        while !game.board().is_game_over() {
            let moves = game.board().legal_moves();
            let mv = if moves == 0 {
                Move::Pass
            } else {
                Move::Play(rng.pick(moves))
            };
            let eval = (rng.below(3) > 0).then(|| (rng.below(12801) as f64 - 6400.0) / 100.0);
            let seconds = (rng.below(3) > 0).then(|| rng.below(100_000) as f64 / 1000.0);
            game.push(GgfMove { mv, eval, seconds }).unwrap();
        }
        let again = GgfGame::parse(&game.to_ggf()).unwrap();
        assert_same_game(&game, &again);
    }
}

#[test]
fn push_refuses_illegal_moves_and_leaves_the_game_unchanged() {
    let mut game = GgfGame::default();
    let before = game.to_ggf();
    assert!(game.push(GgfMove::bare("a1".parse().unwrap())).is_err());
    assert!(game.push(GgfMove::bare(Move::Pass)).is_err());
    assert_eq!(game.to_ggf(), before);
    game.push(GgfMove::bare("f5".parse().unwrap())).unwrap();
    assert_eq!(game.pop().unwrap().mv, "f5".parse().unwrap());
    assert_eq!(game.to_ggf(), before);
    assert!(game.pop().is_none());
}
