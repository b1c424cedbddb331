//! Driving a GTP engine as a referee script does: `clear_board`, `play <colour> <vertex>` for
//! every move it has not seen, `time_left`, then `genmove <colour>`.
//!
//! Passes: the first pass it must hear is sent explicitly (`play b pass`). An engine that
//! refuses that (GRhino does) is from then on told passes the implied way, by the colour of
//! the next `play` or `genmove`, as Quarry does. Commands carry no ids; a response is `=` or
//! `?`, its text, and a blank line. Times are sent in seconds as decimals (`time_left b 2.5
//! 0`); GTP's examples use whole seconds, but sub-second limits need the fraction.

use std::time::Instant;

use super::engine::EngineProcess;
use super::{EngineMove, Fault, FaultKind, MoveRequest, Player};
use tsuru_core::board::{Color, Move};

/// A GTP engine process and what it has been told.
pub struct GtpPlayer {
    process: EngineProcess,
    /// How many moves of the current game the engine has on its board.
    known: usize,
    /// Whether it accepts `play <colour> pass` (`None` until first tried).
    explicit_pass: Option<bool>,
}

impl GtpPlayer {
    /// Wraps a started GTP engine.
    pub fn new(process: EngineProcess) -> GtpPlayer {
        GtpPlayer {
            process,
            known: 0,
            explicit_pass: None,
        }
    }

    /// Sends a command and reads its response: `Ok(Ok(text))` for `=`, `Ok(Err(text))` for
    /// `?`. Output before the response that is not part of one is ignored.
    pub(super) fn command(
        &mut self,
        command: &str,
        deadline: Instant,
    ) -> Result<Result<String, String>, Fault> {
        self.process.send(command)?;
        let (success, mut text) = loop {
            let line = self.process.recv(deadline)?;
            if let Some(rest) = line.strip_prefix('=') {
                break (true, rest.trim().to_string());
            }
            if let Some(rest) = line.strip_prefix('?') {
                break (false, rest.trim().to_string());
            }
            log::debug!("gtp: ignoring {line:?} before a response");
        };
        loop {
            let line = self.process.recv(deadline)?;
            if line.trim().is_empty() {
                break;
            }
            text.push('\n');
            text.push_str(line.trim_end());
        }
        Ok(if success { Ok(text) } else { Err(text) })
    }

    /// Sends a command the engine may not know; a `?` answer is logged and ignored.
    fn optional(&mut self, command: &str, deadline: Instant) -> Result<(), Fault> {
        if let Err(message) = self.command(command, deadline)? {
            log::debug!("gtp: {command:?} refused: {message}");
        }
        Ok(())
    }

    /// Sends a command that must succeed; a `?` answer is a [`FaultKind::Refused`] fault.
    fn required(&mut self, command: &str, deadline: Instant) -> Result<(), Fault> {
        self.command(command, deadline)?
            .map(|_| ())
            .map_err(|message| {
                Fault::new(
                    FaultKind::Refused,
                    format!("it answered {command:?} with ? {message}"),
                )
            })
    }
}

/// GTP's name for a colour.
fn colour(color: Color) -> &'static str {
    match color {
        Color::Black => "b",
        Color::White => "w",
    }
}

impl Player for GtpPlayer {
    fn new_game(&mut self, deadline: Instant) -> Result<(), Fault> {
        self.optional("boardsize 8", deadline)?;
        self.required("clear_board", deadline)?;
        self.known = 0;
        Ok(())
    }

    fn choose(&mut self, request: &MoveRequest<'_>) -> Result<EngineMove, Fault> {
        let deadline = request.deadline;
        let game = request.game;
        if self.known == 0 {
            // Time settings go with the first request of a game (GTP: before any genmove).
            if let Some(time) = request.limits.game_time {
                let seconds = time.as_secs_f64();
                self.optional(&format!("time_settings {seconds} 0 0"), deadline)?;
            } else if let Some(time) = request.limits.move_time {
                let seconds = time.as_secs_f64();
                self.optional(&format!("time_settings 0 {seconds} 1"), deadline)?;
            }
        }
        let mut mover = game.start().side_to_move();
        for (i, mv) in game.moves().iter().enumerate() {
            if i >= self.known {
                match mv.mv {
                    Move::Play(square) => {
                        self.required(&format!("play {} {}", colour(mover), square), deadline)?;
                    }
                    Move::Pass if self.explicit_pass != Some(false) => {
                        let command = format!("play {} pass", colour(mover));
                        let accepted = self.command(&command, deadline)?.is_ok();
                        self.explicit_pass = Some(accepted);
                    }
                    Move::Pass => {}
                }
                self.known = i + 1;
            }
            mover = mover.opponent();
        }
        if let Some(left) = request.time_left {
            let command = format!("time_left {} {:.1} 0", colour(mover), left.as_secs_f64());
            self.optional(&command, deadline)?;
        } else if let Some(time) = request.limits.move_time {
            let command = format!("time_left {} {} 1", colour(mover), time.as_secs_f64());
            self.optional(&command, deadline)?;
        }
        let answer = self
            .command(&format!("genmove {}", colour(mover)), deadline)?
            .map_err(|message| {
                Fault::new(FaultKind::Garbled, format!("genmove failed: ? {message}"))
            })?;
        let text = answer.trim();
        if text.eq_ignore_ascii_case("resign") {
            return Err(Fault::new(FaultKind::Resigned, "it resigned"));
        }
        let mv = text.parse::<Move>().map_err(|_| {
            Fault::new(
                FaultKind::Garbled,
                format!("genmove answered {text:?}, not a move"),
            )
        })?;
        // The engine has played its answer on its own board.
        self.known = game.moves().len() + 1;
        Ok(EngineMove { mv, eval: None })
    }
}
