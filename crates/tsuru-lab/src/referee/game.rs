//! One refereed game: the opening is played on the referee's board, then each engine is
//! asked for its move in turn until neither side can move or an engine forfeits.
//!
//! A side with no legal move passes without being asked (as Quarry does; GTP engines such as
//! GRhino expect it). The time of every answer is measured by the referee from the moment the
//! engine's turn begins, so it includes telling the engine the moves it has not seen. The
//! record is a [`GgfGame`] with `PC`, `DT`, `PB`, `PW`, `RE` and, in a timed game, `TI`; a
//! forfeit is written as GGS does, `RE[+64.00:t]` for a loss on time and `:r` for any other
//! forfeit (illegal move, crash, garbled answer), and the reason goes to the game report.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::{Fault, FaultKind, Limits, MoveRequest, Player};
use tsuru_core::board::{Board, Color, Move};
use tsuru_core::formats::ggf::{GgfClock, GgfGame, GgfMove};
use tsuru_core::score::Discs;

/// How a game ended.
#[derive(Clone, Debug)]
pub struct GameOutcome {
    /// The record: opening, every move with eval and time, tags.
    pub record: GgfGame,
    /// Final disc difference for Black (empty squares to the winner); a forfeit is +-64.
    pub black_diff: Discs,
    /// The colour that forfeited and why, or `None` for a game played to the end.
    pub fault: Option<(Color, Fault)>,
}

impl GameOutcome {
    /// The result as GGF writes it, from Black's side: `+12.00`, `-64.00:t`.
    pub fn result_tag(&self) -> String {
        let suffix = match &self.fault {
            None => "",
            Some((_, fault)) if fault.kind == FaultKind::Timeout => ":t",
            Some(_) => ":r",
        };
        format!("{:+.2}{suffix}", f64::from(self.black_diff.get()))
    }
}

/// The record of a new game: the opening played from the start, with the header tags.
fn new_record(names: [&str; 2], opening: &[Move], limits: &Limits) -> GgfGame {
    let mut record = GgfGame::new(Board::start());
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    record.tags = vec![
        ("PC".into(), "tsuru match".into()),
        ("DT".into(), seconds.to_string()),
        ("PB".into(), names[0].into()),
        ("PW".into(), names[1].into()),
    ];
    if let Some(main) = limits.game_time {
        let clock = GgfClock {
            main: main.as_secs_f64(),
            increment: 0.0,
            grace: 0.0,
        };
        record.clocks = [Some(clock), Some(clock)];
    }
    for &mv in opening {
        if mv != Move::Pass && record.board().must_pass() {
            record.push(GgfMove::bare(Move::Pass)).expect("forced pass");
        }
        // Openings are checked when they are read, so this cannot fail.
        record.push(GgfMove::bare(mv)).expect("legal opening");
    }
    record
}

/// Ends a record: adds `RE` and returns the outcome.
fn finish(mut record: GgfGame, fault: Option<(Color, Fault)>) -> GameOutcome {
    let black_diff = match &fault {
        None => record.board().final_score(Color::Black),
        Some((Color::Black, _)) => Discs::new(-64),
        Some((Color::White, _)) => Discs::new(64),
    };
    let mut outcome = GameOutcome {
        record: GgfGame::new(Board::start()),
        black_diff,
        fault,
    };
    record.tags.push(("RE".into(), outcome.result_tag()));
    outcome.record = record;
    outcome
}

/// The outcome of a game that could not start because the engine playing `color` failed
/// (it could not be started, say).
pub fn forfeit_before_start(
    names: [&str; 2],
    opening: &[Move],
    color: Color,
    fault: Fault,
) -> GameOutcome {
    finish(
        new_record(names, opening, &Limits::default()),
        Some((color, fault)),
    )
}

/// Plays one game from `opening` between `black` and `white` (named `names`, Black first)
/// under `limits`, and adjudicates it.
pub fn play_game(
    black: &mut dyn Player,
    white: &mut dyn Player,
    names: [&str; 2],
    opening: &[Move],
    limits: &Limits,
) -> GameOutcome {
    let mut record = new_record(names, opening, limits);
    let setup_deadline = Instant::now() + limits.timeout;
    if let Err(fault) = black.new_game(setup_deadline) {
        return finish(record, Some((Color::Black, fault)));
    }
    if let Err(fault) = white.new_game(setup_deadline) {
        return finish(record, Some((Color::White, fault)));
    }
    let mut used = [Duration::ZERO; 2];
    while !record.board().is_game_over() {
        let mover = record.board().side_to_move();
        if record.board().must_pass() {
            record
                .push(GgfMove {
                    mv: Move::Pass,
                    eval: None,
                    seconds: Some(0.0),
                })
                .expect("forced pass");
            continue;
        }
        let time_left = limits
            .game_time
            .map(|main| main.saturating_sub(used[mover.index()]));
        let allowance = time_left
            .or(limits.move_time)
            .map_or(limits.timeout, |time| time + limits.margin);
        let started = Instant::now();
        let request = MoveRequest {
            game: &record,
            time_left,
            limits,
            deadline: started + allowance,
        };
        let player: &mut dyn Player = if mover == Color::Black {
            &mut *black
        } else {
            &mut *white
        };
        let answer = match player.choose(&request) {
            Ok(answer) => answer,
            Err(fault) if fault.kind == FaultKind::Timeout => {
                let detail = format!("no answer within {:.1} s", allowance.as_secs_f64());
                return finish(
                    record,
                    Some((mover, Fault::new(FaultKind::Timeout, detail))),
                );
            }
            Err(fault) => return finish(record, Some((mover, fault))),
        };
        let spent = started.elapsed();
        let seconds = spent.as_secs_f64();
        used[mover.index()] += spent;
        if spent > allowance {
            let fault = Fault::new(
                FaultKind::Timeout,
                format!(
                    "answered after {seconds:.2} s, allowed {:.2} s",
                    allowance.as_secs_f64()
                ),
            );
            return finish(record, Some((mover, fault)));
        }
        if !record.board().is_legal(answer.mv) {
            let fault = Fault::new(
                FaultKind::IllegalMove,
                format!(
                    "played {} in {}",
                    answer.mv,
                    tsuru_core::board::notation::board_to_string(record.board())
                ),
            );
            return finish(record, Some((mover, fault)));
        }
        record
            .push(GgfMove {
                mv: answer.mv,
                eval: answer.eval,
                seconds: Some((seconds * 100.0).round() / 100.0),
            })
            .expect("checked legal");
    }
    finish(record, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A player that answers from a fixed list of moves.
    struct Scripted(Vec<Move>);

    impl Player for Scripted {
        fn new_game(&mut self, _deadline: Instant) -> Result<(), Fault> {
            Ok(())
        }

        fn choose(&mut self, request: &MoveRequest<'_>) -> Result<super::super::EngineMove, Fault> {
            let _ = request.game;
            if self.0.is_empty() {
                return Err(Fault::new(FaultKind::Crashed, "script ended"));
            }
            Ok(super::super::EngineMove {
                mv: self.0.remove(0),
                eval: None,
            })
        }
    }

    fn moves(text: &str) -> Vec<Move> {
        tsuru_core::board::notation::parse_transcript(text).unwrap()
    }

    #[test]
    fn a_game_played_to_the_end_is_scored_with_empties_to_the_winner() {
        // One of the shortest games: Black wipes White out in 9 moves; 51 squares stay empty.
        let all = moves("d3c3b3d2e1d6d7e3f4");
        let (black_moves, white_moves): (Vec<_>, Vec<_>) =
            all.iter().enumerate().partition(|(i, _)| i % 2 == 0);
        let mut black = Scripted(black_moves.into_iter().map(|(_, m)| *m).collect());
        let mut white = Scripted(white_moves.into_iter().map(|(_, m)| *m).collect());
        let outcome = play_game(&mut black, &mut white, ["b", "w"], &[], &Limits::default());
        assert!(outcome.fault.is_none());
        assert!(outcome.record.board().is_game_over());
        assert_eq!(outcome.black_diff, Discs::new(64));
        assert_eq!(outcome.result_tag(), "+64.00");
        let text = outcome.record.to_ggf();
        assert!(text.contains("PB[b]PW[w]RE[+64.00]"), "{text}");
        let parsed = GgfGame::parse(&text).unwrap();
        assert_eq!(parsed.board().hash(), outcome.record.board().hash());
    }

    /// Plays f5 d6 and then Black's `black` moves against a White that has none to give.
    fn forfeit_after_f5d6(black: &str) -> (GameOutcome, Color, Fault) {
        let mut black = Scripted(moves(black));
        let mut white = Scripted(vec![]);
        let opening = moves("f5d6");
        let outcome = play_game(
            &mut black,
            &mut white,
            ["b", "w"],
            &opening,
            &Limits::default(),
        );
        let (color, fault) = outcome.fault.clone().expect("a forfeit");
        (outcome, color, fault)
    }

    #[test]
    fn an_illegal_answer_forfeits_with_the_move_named() {
        let (outcome, color, fault) = forfeit_after_f5d6("d4");
        assert_eq!(color, Color::Black);
        assert_eq!(fault.kind, FaultKind::IllegalMove);
        assert!(fault.detail.starts_with("played D4"), "{}", fault.detail);
        assert_eq!(outcome.result_tag(), "-64.00:r");
        assert_eq!(outcome.record.moves().len(), 2);
    }

    #[test]
    fn a_failing_engine_forfeits_and_the_opponent_is_not_blamed() {
        let (outcome, color, fault) = forfeit_after_f5d6("c3");
        assert_eq!(color, Color::White);
        assert_eq!(fault.kind, FaultKind::Crashed);
        assert_eq!(outcome.black_diff, Discs::new(64));
        assert_eq!(outcome.result_tag(), "+64.00:r");
        assert_eq!(outcome.record.moves().len(), 3);
    }
}
