//! An NBoard engine as a referee's player, over [`tsuru_core::client::nboard`]: `nboard 2`
//! and `set depth` once; then, for every move asked, the game as [`shown_game`] shows it
//! under the match clock (`move <token>` or `set game <GGF>`), `ping n` and its `pong n`, and
//! `go`, answered by `=== <move>[/<eval>[/<time>]]`.

use std::time::Instant;

use super::{EngineMove, Fault, Limits, MoveRequest, Player};
use tsuru_core::client::nboard::{shown_game, NboardClient, NboardClock};
use tsuru_core::client::EngineProcess;

/// An NBoard engine process and what it has been told.
pub struct NboardPlayer(NboardClient);

/// The depth the engine is given: the match's, or 60 when only a clock limits the game (so
/// that the clock decides), or none.
fn depth_of(limits: &Limits) -> Option<u32> {
    match limits.depth {
        Some(depth) => Some(depth.get()),
        None if limits.game_time.is_some() || limits.move_time.is_some() => Some(60),
        None => None,
    }
}

impl NboardPlayer {
    /// Greets a started engine with `nboard 2` and the depth, if the match sets one (or
    /// depth 60 when only a clock limits the game).
    pub fn start(process: EngineProcess, limits: &Limits) -> Result<NboardPlayer, Fault> {
        let mut client = NboardClient::greet(process, None)?;
        if let Some(depth) = depth_of(limits) {
            client.set_depth(depth)?;
        }
        Ok(NboardPlayer(client))
    }
}

impl Player for NboardPlayer {
    fn new_game(&mut self, _deadline: Instant) -> Result<(), Fault> {
        // The next request sends the whole game with `set game`.
        self.0.forget();
        Ok(())
    }

    fn choose(&mut self, request: &MoveRequest<'_>) -> Result<EngineMove, Fault> {
        let limits = request.limits;
        let clock = match (limits.game_time, limits.move_time) {
            (Some(time), _) => NboardClock::Game(time.as_secs_f64()),
            (None, Some(time)) => NboardClock::PerMove(time.as_secs_f64()),
            (None, None) => NboardClock::None,
        };
        let view = shown_game(request.game, clock);
        let deadline = Some(request.deadline);
        self.0.prepare(&view, depth_of(limits), deadline)?;
        let answer = self.0.go(deadline)?;
        Ok(EngineMove {
            mv: answer.mv,
            eval: answer.eval,
        })
    }
}
