//! The referee behind `tsuru match`: games between two engines that speak GTP or NBoard.
//!
//! ```text
//!   run_match ---- K worker threads, one game at a time each ----+
//!      |                                                        |
//!   schedule: openings x 2 colours       game::play_game(black, white, opening, limits)
//!      |                                    |            |
//!   reports (in order of completion)     Player (gtp)  Player (nboard)   one child process
//!      |                                    |            |               per engine per worker
//!   stats: W/D/L, discs, Elo            tsuru_core::client (GtpClient, NboardClient over an
//!                                       EngineProcess; all traffic copied to the engine log)
//! ```
//!
//! The referee keeps the authoritative board. An engine is told the moves in its protocol's
//! way and asked for one move at a time; whatever it answers is checked against that board.
//! An illegal move, an unreadable answer, a crash or no answer in time loses the game for that
//! engine, with the reason recorded, and its process is replaced before the next game.

pub mod game;
pub mod gtp;
pub mod identity;
pub mod nboard;
pub mod sprt;
pub mod stats;

use std::fmt;
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use game::GameOutcome;
use tsuru_core::board::{Color, Move};
pub use tsuru_core::client::EngineLog;
use tsuru_core::client::{self as client, EngineProcess, ErrorKind, Launch};
use tsuru_core::config::Protocol;
use tsuru_core::formats::openings::Opening;
use tsuru_core::score::Discs;
use tsuru_core::search::Level;

/// An engine as the user named it: a name for tables and records, the command line that
/// starts it, and its protocol if known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The name shown in tables and written to `PB`/`PW`.
    pub name: String,
    /// Program and arguments.
    pub command: Vec<String>,
    /// The protocol, or `None` to find out by asking the engine.
    pub protocol: Option<Protocol>,
}

/// What limits the engines' thinking, and how long the referee waits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Midgame depth, sent to NBoard engines with `set depth` (GTP has no such command: give
    /// it on a GTP engine's command line).
    pub depth: Option<Level>,
    /// Time per move.
    pub move_time: Option<Duration>,
    /// Time per game and player (a sudden-death clock).
    pub game_time: Option<Duration>,
    /// Longest wait for any answer that no clock bounds (depth-only games, set-up commands).
    pub timeout: Duration,
    /// Lag allowed beyond a clock before an engine loses on time.
    pub margin: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            depth: None,
            move_time: None,
            game_time: None,
            timeout: Duration::from_secs(300),
            margin: Duration::from_secs(1),
        }
    }
}

/// Why an engine lost a game without finishing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// It played a move that is not legal in the referee's position.
    IllegalMove,
    /// Its answer could not be read as a move (or broke the protocol).
    Garbled,
    /// Its process ended, or could not be started or written to.
    Crashed,
    /// It did not answer in time.
    Timeout,
    /// It refused a command it must accept (such as a legal move by its opponent).
    Refused,
    /// It resigned.
    Resigned,
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FaultKind::IllegalMove => "illegal move",
            FaultKind::Garbled => "garbled answer",
            FaultKind::Crashed => "crash",
            FaultKind::Timeout => "timeout",
            FaultKind::Refused => "refused a command",
            FaultKind::Resigned => "resigned",
        })
    }
}

/// A game lost by an engine's misbehaviour: the kind, and what exactly happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The kind, used for tables.
    pub kind: FaultKind,
    /// A one-line description (ASCII).
    pub detail: String,
}

impl Fault {
    /// A fault of `kind` described by `detail`.
    pub fn new(kind: FaultKind, detail: impl Into<String>) -> Fault {
        Fault {
            kind,
            detail: tsuru_core::io::ascii::ascii(&detail.into()),
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.detail)
    }
}

/// A move as an engine answered it: the move, its evaluation if it gave one, and the time the
/// referee measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EngineMove {
    /// The move (a pass only if the engine said so).
    pub mv: Move,
    /// The engine's evaluation in discs, mover's view, if its protocol carries one.
    pub eval: Option<f64>,
}

/// One engine process driven in its protocol. The game loop in [`game`] calls `new_game`
/// once per game and then `choose` whenever this engine is to move.
pub trait Player: Send {
    /// Prepares the engine for a new game (GTP: `clear_board`; NBoard: forget what was sent).
    fn new_game(&mut self, deadline: Instant) -> Result<(), Fault>;

    /// Tells the engine the moves of `request.game` it has not seen and asks for its move.
    fn choose(&mut self, request: &MoveRequest<'_>) -> Result<EngineMove, Fault>;
}

/// What an engine is asked to move in.
pub struct MoveRequest<'a> {
    /// The game so far, as the referee keeps it (start position, every move with its time).
    pub game: &'a tsuru_core::formats::ggf::GgfGame,
    /// Time left on the mover's clock in a timed game (zero when it ran over).
    pub time_left: Option<Duration>,
    /// The limits of the match.
    pub limits: &'a Limits,
    /// When the referee stops waiting for the answer.
    pub deadline: Instant,
}

impl From<client::Error> for Fault {
    /// The client's errors as faults: a process that ended is a crash, a malformed answer a
    /// garbled one.
    fn from(err: client::Error) -> Fault {
        let kind = match err.kind {
            ErrorKind::Terminated => FaultKind::Crashed,
            ErrorKind::Timeout => FaultKind::Timeout,
            ErrorKind::Refused => FaultKind::Refused,
            ErrorKind::Malformed => FaultKind::Garbled,
        };
        Fault::new(kind, err.detail)
    }
}

/// How the client starts the engine `spec` names.
pub fn launch(spec: &EngineSpec) -> Launch {
    Launch {
        name: spec.name.clone(),
        argv: spec.command.clone(),
        ..Launch::default()
    }
}

/// Starts an engine and greets it in `protocol`; the result is ready for `new_game`.
pub fn connect(
    spec: &EngineSpec,
    protocol: Protocol,
    limits: &Limits,
    log: &EngineLog,
) -> Result<Box<dyn Player>, Fault> {
    let process = EngineProcess::spawn(&launch(spec), Some(log))?;
    Ok(match protocol {
        Protocol::Gtp => Box::new(gtp::GtpPlayer::new(process)),
        Protocol::Nboard => Box::new(nboard::NboardPlayer::start(process, limits)?),
    })
}

/// Finds out which protocol an engine speaks, in a process of its own ([`client::detect`]:
/// `nboard 2` and `ping 1`, answered by `pong 1` or by GTP's `=` or `?`). No answer within
/// `timeout` is an error.
pub fn detect_protocol(spec: &EngineSpec, log: &EngineLog, timeout: Duration) -> Result<Protocol> {
    let mut process = EngineProcess::spawn(&launch(spec), Some(log))
        .map_err(|err| anyhow::anyhow!("{}: {}", spec.name, Fault::from(err)))?;
    let deadline = Instant::now() + timeout;
    match client::detect(&mut process, Some(deadline)) {
        Ok(client::Detected::Gtp) => Ok(Protocol::Gtp),
        Ok(client::Detected::Nboard(_)) => Ok(Protocol::Nboard),
        Err(err) => bail!(
            "cannot tell which protocol {} speaks ({}); give --protocol {}=gtp|nboard",
            spec.name,
            Fault::from(err),
            spec.name
        ),
    }
}

/// A whole match: two engines, the openings to play (each twice, colours swapped), limits.
pub struct MatchConfig {
    /// The two engines; engine 0 plays Black in the first game of each opening pair.
    pub engines: [EngineSpec; 2],
    /// Openings in the order they are used.
    pub openings: Vec<Opening>,
    /// Number of games; opening `i` is used by games `2i` and `2i+1`.
    pub games: usize,
    /// The limits.
    pub limits: Limits,
    /// Games played at the same time, each by its own pair of engine processes.
    pub concurrency: usize,
}

/// Points for a final disc difference: 1 for a win, 0.5 for a draw, 0 for a loss.
pub fn points_of(disc_diff: Discs) -> f64 {
    match disc_diff.get().signum() {
        1 => 1.0,
        0 => 0.5,
        _ => 0.0,
    }
}

/// One finished game of a match.
#[derive(Clone, Debug)]
pub struct GameReport {
    /// 0-based game number in the schedule.
    pub index: usize,
    /// Index into [`MatchConfig::openings`].
    pub opening: usize,
    /// Which engine (0 or 1) played Black.
    pub black: usize,
    /// The game and how it ended.
    pub outcome: GameOutcome,
}

impl GameReport {
    /// Points scored by engine `engine`: 1 for a win, 0.5 for a draw, 0 for a loss.
    pub fn points(&self, engine: usize) -> f64 {
        points_of(self.disc_diff(engine))
    }

    /// The final disc difference from engine `engine`'s side (a forfeit counts 64).
    pub fn disc_diff(&self, engine: usize) -> Discs {
        if engine == self.black {
            self.outcome.black_diff
        } else {
            -self.outcome.black_diff
        }
    }

    /// The engine (0 or 1) that played `color`.
    pub fn engine_of(&self, color: Color) -> usize {
        if color == Color::Black {
            self.black
        } else {
            1 - self.black
        }
    }
}

/// What the match does after a game, as the caller of [`run_match`] decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchFlow {
    /// Go on with the schedule.
    Continue,
    /// Start no new game, except the other game of a colour-swapped pair whose first game has
    /// finished or is under way, so that no pair is left half played; games under way finish.
    Stop,
}

/// Hands out the games of the schedule to the workers, in order, until the match stops.
struct Dispenser {
    /// Game numbers still to play, ascending.
    schedule: Vec<usize>,
    /// How many of `schedule` have been handed out or skipped.
    cursor: usize,
    /// For each game number: finished in an earlier run, or handed out in this one.
    begun: Vec<bool>,
    /// Whether [`MatchFlow::Stop`] was asked for.
    stopping: bool,
}

impl Dispenser {
    fn new(schedule: Vec<usize>, games: usize, done: &[usize]) -> Dispenser {
        let mut begun = vec![false; games];
        for &index in done {
            if let Some(slot) = begun.get_mut(index) {
                *slot = true;
            }
        }
        Dispenser {
            schedule,
            cursor: 0,
            begun,
            stopping: false,
        }
    }

    /// The next game to play, or `None` when the schedule is used up or the match stops.
    fn next(&mut self) -> Option<usize> {
        while let Some(&index) = self.schedule.get(self.cursor) {
            self.cursor += 1;
            let partner_begun = self.begun.get(index ^ 1).copied().unwrap_or(false);
            if !self.stopping || partner_begun {
                self.begun[index] = true;
                return Some(index);
            }
        }
        None
    }
}

/// Plays the games of the match whose schedule numbers are not in `done` (those an earlier,
/// interrupted run finished); calls `on_game` on the calling thread as each game ends (in
/// order of completion), stopping early once it returns [`MatchFlow::Stop`], and returns the
/// reports of the games played, in schedule order. Protocols not given are detected first;
/// an engine that cannot be started or identified is an error before any game.
pub fn run_match(
    config: &MatchConfig,
    log: &EngineLog,
    done: &[usize],
    mut on_game: impl FnMut(&GameReport) -> MatchFlow,
) -> Result<Vec<GameReport>> {
    if config.openings.is_empty() {
        bail!("no openings to play");
    }
    let schedule: Vec<usize> = (0..config.games)
        .filter(|index| !done.contains(index))
        .collect();
    if schedule.is_empty() {
        return Ok(Vec::new());
    }
    let mut protocols = [Protocol::Gtp; 2];
    for (slot, spec) in protocols.iter_mut().zip(&config.engines) {
        *slot = match spec.protocol {
            Some(protocol) => protocol,
            None => {
                let protocol = detect_protocol(
                    spec,
                    log,
                    config.limits.timeout.min(Duration::from_secs(30)),
                )?;
                log::info!("{} speaks {}", spec.name, protocol);
                protocol
            }
        };
    }
    // Each report travels with a channel on which the worker waits until `on_game` has judged
    // it, so that a worker takes its next game only after a stop has been seen: one worker
    // plays exactly the games an SPRT would play one after another.
    let (sender, receiver) = mpsc::channel::<(GameReport, mpsc::Sender<()>)>();
    let workers = config.concurrency.clamp(1, schedule.len());
    let mut reports = Vec::with_capacity(schedule.len());
    let dispenser = Mutex::new(Dispenser::new(schedule, config.games, done));
    // A worker that panicked while holding the lock left the dispenser consistent (its
    // fields are updated together), so a poisoned lock is used as it is.
    let lock = || {
        dispenser
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    std::thread::scope(|scope| -> Result<()> {
        for worker in 0..workers {
            let sender = sender.clone();
            let lock = &lock;
            std::thread::Builder::new()
                .name(format!("match-worker-{worker}"))
                .spawn_scoped(scope, move || {
                    let mut players: [Option<Box<dyn Player>>; 2] = [None, None];
                    loop {
                        // A `let` statement releases the lock before the game (the scrutinee
                        // of a `while let` would hold it through the loop body).
                        let next = lock().next();
                        let Some(index) = next else { break };
                        let report = play_scheduled(config, &protocols, log, index, &mut players);
                        let (judged, wait) = mpsc::channel();
                        if sender.send((report, judged)).is_err() || wait.recv().is_err() {
                            break;
                        }
                    }
                })
                .context("starting a match worker")?;
        }
        drop(sender);
        for (report, judged) in receiver {
            if on_game(&report) == MatchFlow::Stop {
                lock().stopping = true;
            }
            reports.push(report);
            // A worker that has gone away needs no answer.
            let _ = judged.send(());
        }
        Ok(())
    })?;
    reports.sort_by_key(|report| report.index);
    Ok(reports)
}

/// Plays game `index` of the schedule with this worker's engine processes, starting or
/// replacing them as needed.
fn play_scheduled(
    config: &MatchConfig,
    protocols: &[Protocol; 2],
    log: &EngineLog,
    index: usize,
    players: &mut [Option<Box<dyn Player>>; 2],
) -> GameReport {
    let opening = (index / 2) % config.openings.len();
    let black = index % 2;
    let order = [black, 1 - black];
    // Connect both engines (Black first); a failure to start is that engine's forfeit.
    let mut failed = None;
    for (color_index, &engine) in order.iter().enumerate() {
        if players[engine].is_none() {
            match connect(
                &config.engines[engine],
                protocols[engine],
                &config.limits,
                log,
            ) {
                Ok(player) => players[engine] = Some(player),
                Err(fault) => {
                    failed = Some((Color::ALL[color_index], fault));
                    break;
                }
            }
        }
    }
    let names = [
        config.engines[order[0]].name.as_str(),
        config.engines[order[1]].name.as_str(),
    ];
    let moves = &config.openings[opening].moves;
    let outcome = match failed {
        Some((color, fault)) => game::forfeit_before_start(names, moves, color, fault),
        None => {
            let [first, second] = players;
            let (black_player, white_player) = if black == 0 {
                (first, second)
            } else {
                (second, first)
            };
            game::play_game(
                black_player.as_deref_mut().expect("connected"),
                white_player.as_deref_mut().expect("connected"),
                names,
                moves,
                &config.limits,
            )
        }
    };
    if let Some((color, _)) = &outcome.fault {
        // The faulty engine's state is unknown: replace its process before the next game.
        players[order[color.index()]] = None;
    }
    GameReport {
        index,
        opening,
        black,
        outcome,
    }
}
