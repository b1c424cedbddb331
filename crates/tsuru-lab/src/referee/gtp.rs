//! A GTP engine as a referee's player, over [`tsuru_core::client::gtp`]: `boardsize 8` and
//! `clear_board` for each game, then for each move asked the moves it has not seen
//! (`play`), the clock (`time_settings` once, `time_left`) and `genmove <colour>`.

use std::time::Instant;

use super::{EngineMove, Fault, FaultKind, MoveRequest, Player};
use tsuru_core::client::gtp::{GtpClient, GtpClock};
use tsuru_core::client::{EngineProcess, ErrorKind};

/// A GTP engine process and what it has been told.
pub struct GtpPlayer(GtpClient);

impl GtpPlayer {
    /// Wraps a started GTP engine.
    pub fn new(process: EngineProcess) -> GtpPlayer {
        GtpPlayer(GtpClient::new(process))
    }
}

impl Player for GtpPlayer {
    fn new_game(&mut self, deadline: Instant) -> Result<(), Fault> {
        Ok(self.0.new_game(Some(deadline))?)
    }

    fn choose(&mut self, request: &MoveRequest<'_>) -> Result<EngineMove, Fault> {
        let deadline = Some(request.deadline);
        let game = request.game;
        let moves: Vec<_> = game.moves().iter().map(|mv| mv.mv).collect();
        self.0.sync(game.start(), &moves, deadline)?;
        let clock = match (request.limits.game_time, request.limits.move_time) {
            (Some(main), _) => GtpClock::Game {
                main: main.as_secs_f64(),
                left: request.time_left.unwrap_or_default().as_secs_f64(),
            },
            (None, Some(time)) => GtpClock::PerMove(time.as_secs_f64()),
            (None, None) => GtpClock::None,
        };
        let mover = game.board().side_to_move();
        self.0.set_clock(mover, clock, deadline)?;
        let answer = self.0.genmove("genmove", mover, deadline).map_err(|err| {
            match err.kind {
                // A refused genmove is an answer that is no move.
                ErrorKind::Refused => Fault::new(FaultKind::Garbled, err.detail),
                _ => Fault::from(err),
            }
        })?;
        match answer.mv {
            Some(mv) => Ok(EngineMove { mv, eval: None }),
            None => Err(Fault::new(FaultKind::Resigned, "it resigned")),
        }
    }
}
