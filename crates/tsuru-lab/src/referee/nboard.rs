//! Driving an NBoard engine as the NBoard GUI does (protocols.md 1.2): `nboard 2` and
//! `set depth` once; then, for every move asked, the game state (`move <token>` when exactly
//! one move was added since the text last sent, `set game <GGF>` otherwise), `ping n`, a wait
//! for `pong n`, and `go`, answered by `=== <move>[/<eval>[/<time>]]`.
//!
//! Lines before the pong are stale and ignored; so are `search`, `status`, `nodestats` and
//! `set myname` lines. The clock is the GGF clock: a game clock is sent as `TI[T//0]` with the
//! real move times; NBoard has no time per move, so `--move-time S` is shown as a clock of
//! `S` seconds with an increment of `S` on which every earlier move is charged exactly `S`,
//! which leaves `S` seconds on it at every move.

use std::time::Instant;

use super::engine::EngineProcess;
use super::{EngineMove, Fault, FaultKind, Limits, MoveRequest, Player};
use tsuru_core::formats::ggf::{self, GgfClock, GgfGame, GgfMove};
use tsuru_core::search::Level;

/// An NBoard engine process and what it has been told.
pub struct NboardPlayer {
    process: EngineProcess,
    /// The GGF text of the game as last sent (by `set game` or `move`).
    sent: Option<String>,
    /// The last ping number used.
    ping: u64,
}

impl NboardPlayer {
    /// Greets a started engine with `nboard 2` and the depth, if the match sets one (or
    /// depth 60 when only a clock limits the game, so that the clock decides).
    pub fn start(mut process: EngineProcess, limits: &Limits) -> Result<NboardPlayer, Fault> {
        process.send("nboard 2")?;
        let depth = match limits.depth {
            Some(depth) => Some(depth),
            None if limits.game_time.is_some() || limits.move_time.is_some() => Level::new(60),
            None => None,
        };
        if let Some(depth) = depth {
            process.send(&format!("set depth {depth}"))?;
        }
        Ok(NboardPlayer {
            process,
            sent: None,
            ping: 0,
        })
    }
}

/// The game as the engine is shown it: the referee's record with the match clock.
fn engine_view(game: &GgfGame, limits: &Limits) -> GgfGame {
    let mut view = GgfGame::new(game.start().clone());
    view.tags = game.tags.clone();
    let per_move = limits.move_time.filter(|_| limits.game_time.is_none());
    if let Some(time) = limits.game_time {
        let clock = GgfClock {
            main: time.as_secs_f64(),
            increment: 0.0,
            grace: 0.0,
        };
        view.clocks = [Some(clock), Some(clock)];
    } else if let Some(time) = per_move {
        let clock = GgfClock {
            main: time.as_secs_f64(),
            increment: time.as_secs_f64(),
            grace: 0.0,
        };
        view.clocks = [Some(clock), Some(clock)];
    }
    for mv in game.moves() {
        let shown = GgfMove {
            seconds: per_move.map(|time| time.as_secs_f64()).or(mv.seconds),
            ..*mv
        };
        view.push(shown).expect("the referee's record is legal");
    }
    view
}

impl Player for NboardPlayer {
    fn new_game(&mut self, _deadline: Instant) -> Result<(), Fault> {
        // The next request sends the whole game with `set game`.
        self.sent = None;
        Ok(())
    }

    fn choose(&mut self, request: &MoveRequest<'_>) -> Result<EngineMove, Fault> {
        let view = engine_view(request.game, request.limits);
        let text = view.to_ggf();
        let mut shorter = view.clone();
        let appended = shorter.pop();
        let command = match (&self.sent, appended) {
            (Some(sent), Some(mv)) if *sent == shorter.to_ggf() => format!("move {mv}"),
            _ => format!("set game {text}"),
        };
        self.process.send(&command)?;
        self.sent = Some(text);
        self.ping += 1;
        let ping = self.ping;
        self.process.send(&format!("ping {ping}"))?;
        let pong = format!("pong {ping}");
        while self.process.recv(request.deadline)?.trim() != pong {}
        self.process.send("go")?;
        loop {
            let line = self.process.recv(request.deadline)?;
            let Some(rest) = line.trim().strip_prefix("===") else {
                continue;
            };
            let token = rest.trim();
            let answer = ggf::parse_move_token(token).map_err(|_| {
                Fault::new(
                    FaultKind::Garbled,
                    format!("go answered \"=== {token}\", not a move"),
                )
            })?;
            return Ok(EngineMove {
                mv: answer.mv,
                eval: answer.eval,
            });
        }
    }
}
