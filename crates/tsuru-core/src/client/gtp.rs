//! Driving a GTP engine (GTP 2 with the Othello conventions of protocol.md), as a referee
//! script does: `clear_board`, `play <colour> <vertex>` for every move it has not seen,
//! `time_settings`/`time_left` for a clock, then `genmove <colour>`.
//!
//! Passes: a pass is sent as `play <colour> pass` until the engine refuses one (GRhino does);
//! from then on passes are implied by the colour of the next `play` or `genmove`, as Quarry
//! does. Responses are `=` or `?` (an id may follow), their text, and a blank line; blank
//! lines before a response are skipped, anything else there is [`ErrorKind::Malformed`].
//! After a timeout or a malformed answer the next command first gets the engine back in step
//! (`name`, and everything up to its answer dropped) and the board is set up afresh. Times
//! are sent in seconds as decimals (`time_left b 2.5 0`); an engine that refuses decimals is
//! sent whole seconds from then on.

use std::time::Instant;

use super::{seconds, EngineProcess, Error, ErrorKind, Result};
use crate::board::{Board, Color, Move};

/// The clock a move is asked under.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GtpClock {
    /// None: the engine's own settings (no time command is sent, unless an earlier request
    /// set a clock, which is then lifted with `time_settings 0 1 0`).
    None,
    /// Sudden death: `time_settings MAIN 0 0` once per game, `time_left <c> LEFT 0` each move.
    Game {
        /// Seconds per game and player.
        main: f64,
        /// Seconds left on the mover's clock.
        left: f64,
    },
    /// Seconds per move: `time_settings 0 T 1` and `time_left <c> T 1` (Canadian byo-yomi of
    /// one stone).
    PerMove(f64),
}

/// The clock's kind as last set up on the engine's board.
#[derive(Clone, Copy, Debug, PartialEq)]
enum ClockMode {
    Lifted,
    Game,
    PerMove(f64),
}

/// An engine's answer to `genmove`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenMove {
    /// The move, or `None` when the engine resigned.
    pub mv: Option<Move>,
    /// The answer's text as given.
    pub text: String,
}

/// A GTP engine process and what it has been told.
pub struct GtpClient {
    process: EngineProcess,
    /// The moves on the engine's board (passes included), or `None` when unknown.
    known: Option<Vec<Move>>,
    /// Whether it accepts `play <colour> pass` (`None` until tried).
    explicit_pass: Option<bool>,
    /// Whether decimal seconds were refused (whole seconds are then sent).
    integer_times: bool,
    /// The clock set up since `clear_board`, if any.
    clock: Option<ClockMode>,
    /// After a timeout or a malformed answer, answers may be out of step with commands.
    out_of_step: bool,
    /// The engine's answer to `name`, used to get back in step.
    name: Option<String>,
}

/// GTP's name for a colour.
pub fn colour(color: Color) -> &'static str {
    match color {
        Color::Black => "b",
        Color::White => "w",
    }
}

/// One response line's head: `=` or `?`, an optional id, then a space or tab and the text.
fn response_head(line: &str) -> Option<(bool, &str)> {
    let success = match line.as_bytes().first() {
        Some(b'=') => true,
        Some(b'?') => false,
        _ => return None,
    };
    let rest = line[1..].trim_start_matches(|c: char| c.is_ascii_digit());
    if rest.is_empty() {
        return Some((success, ""));
    }
    rest.strip_prefix([' ', '\t'])
        .map(|text| (success, text.trim()))
}

impl GtpClient {
    /// Wraps a started GTP engine; nothing is sent.
    pub fn new(process: EngineProcess) -> GtpClient {
        GtpClient {
            process,
            known: None,
            explicit_pass: None,
            integer_times: false,
            clock: None,
            out_of_step: false,
            name: None,
        }
    }

    /// Whether it accepts `play <colour> pass` (`None` until a pass was sent).
    pub fn explicit_pass(&self) -> Option<bool> {
        self.explicit_pass
    }

    /// The process.
    pub fn process(&mut self) -> &mut EngineProcess {
        &mut self.process
    }

    /// Reads one response to `command` (already sent): `Ok(Ok(text))` for `=`, `Ok(Err(text))`
    /// for `?`, the text's lines joined by newlines.
    pub fn read_response(
        &mut self,
        command: &str,
        deadline: Option<Instant>,
    ) -> Result<std::result::Result<String, String>> {
        let what = format!("an answer to '{command}'");
        let line = loop {
            let line = self.process.recv(deadline, &what)?;
            if !line.trim().is_empty() {
                break line;
            }
        };
        let Some((success, first)) = response_head(line.trim()) else {
            return Err(Error::new(
                ErrorKind::Malformed,
                format!("malformed answer to '{command}': '{}'", line.trim()),
            ));
        };
        let mut text = first.to_string();
        loop {
            let more = self.process.recv(deadline, &format!("the end of {what}"))?;
            if more.trim().is_empty() {
                break;
            }
            text.push('\n');
            text.push_str(more.trim_end());
        }
        let text = text.trim().to_string();
        Ok(if success { Ok(text) } else { Err(text) })
    }

    /// Sends a command and reads its response: `Ok(Ok(text))` for `=`, `Ok(Err(text))` for
    /// `?`. Output left over from earlier commands is dropped first. A timeout or a
    /// malformed answer leaves the engine to be brought back in step before the next command
    /// and its board to be set up afresh.
    pub fn command(
        &mut self,
        command: &str,
        deadline: Option<Instant>,
    ) -> Result<std::result::Result<String, String>> {
        if self.out_of_step {
            self.resync(deadline)?;
        }
        let stale = self.process.drain();
        if !stale.is_empty() {
            log::warn!("gtp: ignored stale output {stale:?}");
        }
        self.process.send(command)?;
        let answer = self.read_response(command, deadline);
        if let Err(err) = &answer {
            if err.kind != ErrorKind::Terminated {
                self.out_of_step = true;
                self.known = None;
                self.clock = None;
            }
        }
        if command == "name" {
            if let Ok(Ok(name)) = &answer {
                self.name = Some(name.clone());
            }
        }
        answer
    }

    /// Sends `name` and drops everything up to its answer (a late `genmove` answer, the rest
    /// of a broken one).
    fn resync(&mut self, deadline: Option<Instant>) -> Result<()> {
        self.process.drain();
        self.process.send("name")?;
        let want = self.name.clone().unwrap_or_default();
        loop {
            let line = self
                .process
                .recv(deadline, "an answer to 'name' (to get back in step)")?;
            if matches!(response_head(line.trim()), Some((true, text)) if text == want) {
                break;
            }
            log::info!("gtp: dropped {line:?} while getting back in step");
        }
        while !self
            .process
            .recv(deadline, "the end of the answer to 'name'")?
            .trim()
            .is_empty()
        {}
        self.out_of_step = false;
        Ok(())
    }

    /// Sends a command that must succeed; a `?` answer is an [`ErrorKind::Refused`] error.
    pub fn required(&mut self, command: &str, deadline: Option<Instant>) -> Result<String> {
        self.command(command, deadline)?.map_err(|message| {
            Error::new(
                ErrorKind::Refused,
                format!("it answered '{command}' with ? {message}"),
            )
        })
    }

    /// Sends a command the engine may not know; a `?` answer is logged and ignored.
    pub fn optional(&mut self, command: &str, deadline: Option<Instant>) -> Result<()> {
        if let Err(message) = self.command(command, deadline)? {
            log::debug!("gtp: {command:?} refused: {message}");
        }
        Ok(())
    }

    /// Starts a new game on the engine's board: `boardsize 8` (may be refused), `clear_board`.
    pub fn new_game(&mut self, deadline: Option<Instant>) -> Result<()> {
        self.optional("boardsize 8", deadline)?;
        self.clear_board(deadline)
    }

    fn clear_board(&mut self, deadline: Option<Instant>) -> Result<()> {
        self.required("clear_board", deadline)?;
        self.known = Some(Vec::new());
        self.clock = None;
        Ok(())
    }

    /// Brings the engine's board to the game `moves` played from `start`: the moves it has
    /// not seen with `play`, after `clear_board` when its board is not a step of this game.
    /// GTP cannot set up a board: a start other than the standard one is refused
    /// ([`ErrorKind::Refused`]) before anything is sent.
    pub fn sync(&mut self, start: &Board, moves: &[Move], deadline: Option<Instant>) -> Result<()> {
        if *start != Board::start() {
            return Err(Error::new(
                ErrorKind::Refused,
                "GTP has no command to set up a board: only games from the standard start \
                 position can be played over GTP (use NBoard for other starts)",
            ));
        }
        let prefix = matches!(&self.known, Some(known) if moves.starts_with(known));
        if !prefix {
            self.clear_board(deadline)?;
        }
        let mut mover = start.side_to_move();
        for (i, &mv) in moves.iter().enumerate() {
            if i >= self.known.as_ref().map_or(0, Vec::len) {
                match mv {
                    Move::Play(square) => {
                        self.required(&format!("play {} {}", colour(mover), square), deadline)?;
                    }
                    Move::Pass if self.explicit_pass != Some(false) => {
                        let command = format!("play {} pass", colour(mover));
                        if let Err(message) = self.command(&command, deadline)? {
                            if self.explicit_pass == Some(true) {
                                return Err(Error::new(
                                    ErrorKind::Refused,
                                    format!("it answered '{command}' with ? {message}"),
                                ));
                            }
                            log::info!("gtp: explicit passes refused (? {message}): implied");
                            self.explicit_pass = Some(false);
                        } else {
                            self.explicit_pass = Some(true);
                        }
                    }
                    Move::Pass => {}
                }
                if let Some(known) = &mut self.known {
                    known.push(mv);
                }
            }
            mover = mover.opponent();
        }
        Ok(())
    }

    /// Sends a time command built from `template` (each `{}` a value in seconds); decimals
    /// refused are sent again as whole seconds, and from then on always. A refusal is logged.
    fn time_command(
        &mut self,
        template: &str,
        values: &[f64],
        deadline: Option<Instant>,
    ) -> Result<()> {
        let fill = |texts: Vec<String>| {
            texts.into_iter().fold(template.to_string(), |text, value| {
                text.replacen("{}", &value, 1)
            })
        };
        if !self.integer_times {
            let command = fill(values.iter().map(|&v| seconds(v)).collect());
            let Err(message) = self.command(&command, deadline)? else {
                return Ok(());
            };
            if values.iter().all(|v| v.fract() == 0.0) {
                log::warn!("gtp: {command:?} refused: ? {message}");
                return Ok(());
            }
            self.integer_times = true;
            log::info!("gtp: decimal seconds refused ({command:?}: ? {message}); sending whole");
        }
        let whole = values
            .iter()
            .map(|&v| {
                if v > 0.0 {
                    (v as i64).max(1).to_string()
                } else {
                    "0".into()
                }
            })
            .collect();
        let command = fill(whole);
        if let Err(message) = self.command(&command, deadline)? {
            log::warn!("gtp: {command:?} refused: ? {message}");
        }
        Ok(())
    }

    /// Sets the clock for `color`'s next move (see [`GtpClock`]); refusals are logged only.
    pub fn set_clock(
        &mut self,
        color: Color,
        clock: GtpClock,
        deadline: Option<Instant>,
    ) -> Result<()> {
        let c = colour(color);
        match clock {
            GtpClock::Game { main, left } => {
                if self.clock != Some(ClockMode::Game) {
                    self.time_command("time_settings {} 0 0", &[main], deadline)?;
                    self.clock = Some(ClockMode::Game);
                }
                self.time_command(&format!("time_left {c} {{}} 0"), &[left], deadline)
            }
            GtpClock::PerMove(time) => {
                if self.clock != Some(ClockMode::PerMove(time)) {
                    self.time_command("time_settings 0 {} 1", &[time], deadline)?;
                    self.clock = Some(ClockMode::PerMove(time));
                }
                self.time_command(&format!("time_left {c} {{}} 1"), &[time], deadline)
            }
            GtpClock::None => {
                if matches!(self.clock, Some(ClockMode::Game | ClockMode::PerMove(_))) {
                    // byo-yomi time with no stones: no time limit (Quarry's "0 1 0").
                    self.time_command("time_settings 0 1 0", &[], deadline)?;
                    self.clock = Some(ClockMode::Lifted);
                }
                Ok(())
            }
        }
    }

    /// Asks for `color`'s move with `verb` (`genmove`, or `reg_genmove`, which leaves the
    /// engine's board as it was). A `genmove` move is then on the engine's board; a
    /// resignation leaves it unknown. A `?` answer is [`ErrorKind::Refused`]; an answer that
    /// is not a move, `resign` or `pass` is [`ErrorKind::Malformed`].
    pub fn genmove(
        &mut self,
        verb: &str,
        color: Color,
        deadline: Option<Instant>,
    ) -> Result<GenMove> {
        let command = format!("{verb} {}", colour(color));
        let text = self.command(&command, deadline)?.map_err(|message| {
            Error::new(ErrorKind::Refused, format!("{verb} failed: ? {message}"))
        })?;
        let answer = text.trim();
        let mv = if answer.eq_ignore_ascii_case("resign") {
            self.known = None;
            None
        } else {
            let mv = answer.parse::<Move>().map_err(|_| {
                Error::new(
                    ErrorKind::Malformed,
                    format!("{verb} answered \"{answer}\", not a move"),
                )
            })?;
            if verb == "genmove" {
                if let Some(known) = &mut self.known {
                    known.push(mv);
                }
            }
            Some(mv)
        };
        Ok(GenMove { mv, text })
    }

    /// Takes back the last move with `undo`; a refusal leaves the engine's board unknown (set
    /// up afresh by the next [`GtpClient::sync`]).
    pub fn undo(&mut self, deadline: Option<Instant>) -> Result<()> {
        match self.command("undo", deadline)? {
            Ok(_) => {
                if let Some(known) = &mut self.known {
                    known.pop();
                }
            }
            Err(_) => self.known = None,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_heads_take_ids_and_refuse_other_lines() {
        assert_eq!(response_head("= F5"), Some((true, "F5")));
        assert_eq!(response_head("=12 F5"), Some((true, "F5")));
        assert_eq!(response_head("="), Some((true, "")));
        assert_eq!(
            response_head("? unknown command"),
            Some((false, "unknown command"))
        );
        assert_eq!(response_head("=F5"), None);
        assert_eq!(response_head("garbage"), None);
    }
}
