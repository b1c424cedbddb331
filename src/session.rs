//! The session: one game, the engine's settings, and a search running in the background.
//!
//! Both front ends (NBoard, GTP) drive a session; it knows no protocol. The game is kept as a
//! validated [`GgfGame`] (start position, moves with their evals and times, clocks), whose
//! board -- the mailbox with its flip stack -- is the current position. Every command is
//! atomic: a failing one leaves the game exactly as it was. Searches run on the
//! [`worker::Worker`] thread on a copy of the position, so input keeps being read while the
//! engine thinks; the transposition table lives in the worker and survives between searches.
//!
//! What to play is decided in one place, [`Session::decide`], for both protocols: the game's
//! end, a forced pass, the book's move, or a search within the level and the clock. The front
//! end only hears the [`Decision`] through its [`DecisionListener`] and formats it.

pub mod loaded;
mod ponder;
pub mod worker;

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};

pub use loaded::{build_eval, Loaded};
use ponder::{Phase, Plan, PonderShared};
use tsuru_core::board::{Board, Color, Move, Square};
use tsuru_core::book::learn::{Learned, SearchValuer};
use tsuru_core::book::{Book, BookChoice};
use tsuru_core::eval::pattern::WeightsId;
use tsuru_core::eval::win_probability::{WinModel, WinProbability};
use tsuru_core::formats::ggf::{GgfGame, GgfMove};
use tsuru_core::rng::Rng;
use tsuru_core::score::Discs;
use tsuru_core::score::Score;
use tsuru_core::search::time::{saturating_seconds, Clock};
use tsuru_core::search::{
    Level, Search, SearchInfo, SearchLimits, SearchRequest, SearchResult, TimeBudget,
};
use worker::Worker;

/// The deepest level NBoard's `learn` values new positions at, whatever the game's level:
/// a 60-move game new to the book took 1 s of CPU at level 12 (0.3 s at level 10) on the
/// development machine, well within the time NBoard waits for `learned`.
pub const LEARN_MAX_LEVEL: u32 = 12;

/// What the engine plays in the current position, and how it chose it.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// The game is over: there is no move to play.
    GameOver,
    /// The side to move has no legal move and passes.
    ForcedPass,
    /// The book's move (chosen within `--book-randomness`, draws valued by the contempt).
    Book(BookChoice),
    /// A search's move, with the time from the request to the decision.
    Searched {
        /// The search's outcome; `result.best` is the move.
        result: SearchResult,
        /// From [`Session::decide`] to the end of the search.
        elapsed: Duration,
    },
}

/// The front end's side of [`Session::decide`]: what it hears while the move is decided.
pub trait DecisionListener: Send + 'static {
    /// A search is about to start (on the calling thread, before the search thread runs).
    fn searching(&mut self) {}

    /// An iteration of the search completed (on the search thread).
    fn info(&mut self, _info: &SearchInfo) {}

    /// The decision: on the calling thread when no search is needed, else on the search
    /// thread when the search ends (also when it is stopped: the best move found so far).
    fn decided(self, decision: Decision)
    where
        Self: Sized;
}

/// A game, its settings and the search thread.
pub struct Session {
    game: GgfGame,
    level: Level,
    contempt: Discs,
    move_time: Option<Duration>,
    game_time: Option<Duration>,
    worker: Worker<Search>,
    /// The opening book, if any, and the file `learn` writes it to.
    book: Option<Book>,
    book_path: Option<std::path::PathBuf>,
    book_randomness: Discs,
    rng: Rng,
    /// Whether to ponder after deciding a move (`--ponder`).
    ponder_enabled: bool,
    /// The pondering that follows the last decision, if any ([`ponder`]).
    ponder: Option<Arc<PonderShared>>,
    /// The identity of the weights the search evaluates with ([`Session::weights_id`]).
    weights: Option<WeightsId>,
}

impl Session {
    /// A session at the start position with the command line's settings and the files they
    /// named, as [`Loaded::load`] read them.
    pub fn new(loaded: Loaded) -> Session {
        let Loaded {
            config,
            search,
            book,
            book_path,
        } = loaded;
        let weights = search.eval().weights_id();
        let search = Search::new(search);
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Session {
            game: GgfGame::default(),
            level: config.level,
            contempt: Discs::ZERO,
            move_time: config.move_time,
            game_time: config.game_time,
            worker: Worker::new(search),
            book,
            book_path,
            book_randomness: config.book_randomness,
            rng: Rng::new(seed),
            ponder_enabled: config.ponder,
            ponder: None,
            weights,
        }
    }

    /// The identity of the weights the session evaluates with (those of `--eval-file`, or
    /// the compiled-in ones); `None` for the evaluation v1.
    pub fn weights_id(&self) -> Option<WeightsId> {
        self.weights
    }

    /// The moves the book knows in the current position, draws valued by the contempt
    /// ([`Book::moves_with_contempt`]), best first; `None` without a book, out of it, or
    /// when the game is over.
    pub fn book_moves(&self) -> Option<Vec<BookChoice>> {
        let board = self.board();
        if board.is_game_over() {
            return None;
        }
        self.book
            .as_ref()?
            .moves_with_contempt(board, self.contempt)
    }

    /// The book's move in the current position (within `--book-randomness` of the best,
    /// draws valued by the contempt), or `None`.
    fn book_move(&mut self) -> Option<BookChoice> {
        let board = self.game.board();
        if board.is_game_over() {
            return None;
        }
        let book = self.book.as_ref()?;
        book.choose(board, self.book_randomness, self.contempt, &mut self.rng)
    }

    /// The book's line from the current position starting with `first`.
    pub fn book_line(&self, first: Square) -> Vec<Move> {
        match &self.book {
            Some(book) => book.line(self.board(), first),
            None => vec![Move::Play(first)],
        }
    }

    /// Adds the game so far to the book, valuing new positions at the level (at most
    /// [`LEARN_MAX_LEVEL`]), and writes the book file (`--book FILE` or the per-user book,
    /// under its lock: [`tsuru_core::book::user::learn_into`]; when neither can be written the
    /// book is changed in memory only); `None` without a book. On error the book is
    /// unchanged.
    pub fn learn(&mut self) -> Result<Option<Learned>> {
        self.stop();
        let Some(book) = self.book.as_mut() else {
            return Ok(None);
        };
        let level = Level::new(self.level.depth().min(LEARN_MAX_LEVEL)).unwrap_or(Level::DEFAULT);
        let moves: Vec<Move> = self.game.moves().iter().map(|m| m.mv).collect();
        let start = self.game.start();
        let path = self.book_path.as_deref();
        let learned = self.worker.with_state(|search| {
            let mut valuer = SearchValuer::new(search, level);
            match path {
                // Under the file's lock, on the file as it is now (another engine may have
                // learnt into it); a missing file starts from what this engine read.
                Some(path) => tsuru_core::book::user::learn_into(
                    path,
                    || Ok(book.clone()),
                    start,
                    &moves,
                    &mut valuer,
                )
                .map(|(fresh, learned)| {
                    *book = fresh;
                    learned
                }),
                None => book.learn_game(start, &moves, &mut valuer),
            }
        })?;
        if path.is_none() {
            log::info!(
                "learn: the shipped book is changed in memory only (no per-user book: {})",
                tsuru_core::book::user::path()
                    .map_or_else(|e| format!("{e:#}"), |p| p.display().to_string())
            );
        }
        Ok(Some(learned))
    }

    /// The side to move's chances of a win, a draw and a loss in the current position: its
    /// value by a search within the level and the clock ([`Session::move_limits`]), read by
    /// the shipped win probability (certain where the value is exact, and at the game's
    /// end). A running search is stopped first; this one runs on the calling thread.
    pub fn win_probability(&mut self) -> WinProbability {
        let board = self.board().clone();
        if board.is_game_over() {
            let score = board.final_score(board.side_to_move()).get();
            return WinProbability::exact(f64::from(score));
        }
        let limits = self.move_limits(None);
        let stop = std::sync::atomic::AtomicBool::new(false);
        let result = self
            .worker
            .with_state(|search| search.iterate(&board, &limits, &stop, &mut |_| {}));
        let exact = result.depth == tsuru_core::search::Depth::Exact;
        WinModel::shipped().of_value(result.score.discs(), board.empties(), exact)
    }

    #[cfg(test)]
    /// The game so far.
    pub fn game(&self) -> &GgfGame {
        &self.game
    }

    /// The current position (with the game's moves as its history).
    pub fn board(&self) -> &Board {
        self.game.board()
    }

    /// Replaces the whole game (stopping any search first).
    pub fn set_game(&mut self, game: GgfGame) {
        self.settle();
        self.game = game;
        self.follow_ponder();
    }

    /// Starts a new game from `start` with no moves and no clock.
    pub fn new_game(&mut self, start: Board) {
        self.set_game(GgfGame::new(start));
    }

    /// Appends a move by the side to move (a pass only when forced). On error nothing changes.
    pub fn play(&mut self, mv: GgfMove) -> Result<()> {
        self.settle();
        self.game.push(mv)?;
        self.follow_ponder();
        Ok(())
    }

    /// Takes back the last move or pass; error (nothing changed) when there is none.
    pub fn undo(&mut self) -> Result<GgfMove> {
        self.settle();
        let mv = match self.game.pop() {
            Some(mv) => mv,
            None => bail!("no move to take back"),
        };
        self.follow_ponder();
        Ok(mv)
    }

    #[cfg(test)]
    /// The level: midgame depth and endgame thresholds.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Sets the level (a [`Level`] is valid by construction: the front end checked it).
    pub fn set_level(&mut self, level: Level) {
        self.level = level;
    }

    /// Stores NBoard's contempt setting.
    pub fn set_contempt(&mut self, contempt: Discs) {
        self.contempt = contempt;
    }

    /// Limits for analysing the current position: the level's depth and endgame settings, no
    /// clock, the best `lines` moves.
    pub fn analysis_limits(&self, lines: usize) -> SearchLimits {
        SearchLimits {
            multi_pv: lines.max(1),
            ..SearchLimits::for_level(self.level)
        }
    }

    /// The side to move's clock: the game's (time left and increment), else `--move-time`
    /// per move, else `--game-time` less the seconds the record gives the mover's moves
    /// (sudden death), else none. Any number the GUI sent is clamped here, never trusted.
    pub fn clock(&self) -> Clock {
        let mover = self.board().side_to_move();
        if let (Some(left), Some(clock)) = (self.game.time_left(mover), self.game.clock(mover)) {
            return Clock::SuddenDeath {
                left: saturating_seconds(left),
                increment: saturating_seconds(clock.increment),
            };
        }
        match (self.move_time, self.game_time) {
            (Some(per_move), _) => Clock::PerMove(per_move),
            (None, Some(game)) => Clock::SuddenDeath {
                // The record's seconds are the GUI's numbers: any of them is clamped here.
                left: saturating_seconds(game.as_secs_f64() - self.game.seconds_spent(mover)),
                increment: Duration::ZERO,
            },
            (None, None) => Clock::Unlimited,
        }
    }

    /// Limits for choosing a move: the level, bounded by `clock` when the front end has one
    /// of its own (GTP's time control), else by [`Session::clock`].
    pub fn move_limits(&self, clock: Option<Clock>) -> SearchLimits {
        let request = SearchRequest {
            level: Some(self.level),
            clock: clock.unwrap_or_else(|| self.clock()),
            ..SearchRequest::default()
        };
        request
            .limits(self.board().empties())
            .expect("one best move is a valid request")
    }

    /// Starts searching the current position in the background. `on_info` is called after
    /// every iteration and `on_done` with the result, both on the search thread. A running
    /// search is stopped first.
    pub fn start_search(
        &mut self,
        limits: SearchLimits,
        mut on_info: impl FnMut(&SearchInfo) + Send + 'static,
        on_done: impl FnOnce(SearchResult) + Send + 'static,
    ) {
        self.stop();
        let board = self.board().clone();
        self.worker.start(move |search, stop| {
            let result = search.iterate(&board, &limits, stop, &mut on_info);
            on_done(result);
        });
    }

    /// Decides the move of the side to move, the one decision of both protocols: the game's
    /// end, a forced pass and the book's move are decided at once (`listener.decided` is
    /// called before this returns); otherwise a search within the level and the clock starts
    /// in the background (`listener.searching` first, then `info` after every iteration and
    /// `decided` at its end, on the search thread). `clock` is the front end's own clock
    /// (GTP's time control), else [`Session::clock`] applies. A running search is stopped
    /// first. The game is not changed: the front end plays the move or only reports it.
    pub fn decide(&mut self, clock: Option<Clock>, listener: impl DecisionListener) {
        let started = Instant::now();
        let Err(mut listener) = self.adopt_ponder(clock, listener, started) else {
            return;
        };
        self.stop();
        let board = self.board();
        if board.is_game_over() {
            return listener.decided(Decision::GameOver);
        }
        if board.must_pass() {
            return listener.decided(Decision::ForcedPass);
        }
        if let Some(choice) = self.book_move() {
            let line = self.book_line(choice.square);
            listener.decided(Decision::Book(choice));
            let position = self.board().clone();
            let budget = self.move_limits(clock).time;
            return self.ponder_after(&position, &line, budget);
        }
        let limits = self.move_limits(clock);
        listener.searching();
        let board = self.board().clone();
        let ponder = self
            .ponder_enabled
            .then(|| PonderShared::new(Phase::Deciding));
        self.ponder = ponder.clone();
        let settings = (self.level, limits.time);
        self.worker.start(move |search, stop| {
            let result = search.iterate(&board, &limits, stop, &mut |info| listener.info(info));
            let Some(shared) = ponder else {
                return listener.decided(Decision::Searched {
                    result,
                    elapsed: started.elapsed(),
                });
            };
            let plan = match stop.load(Ordering::Relaxed) {
                true => None,
                false => Plan::after(search, &board, &result.pv, settings, stop),
            };
            // Under the lock: no command sees this thread pondering before its answer is out.
            let mut phase = shared.lock();
            listener.decided(Decision::Searched {
                result,
                elapsed: started.elapsed(),
            });
            match plan {
                Some(plan) if !stop.load(Ordering::Relaxed) => {
                    *phase = Phase::Pondering(plan.clone());
                    drop(phase);
                    ponder::ponder(search, stop, &shared, plan);
                }
                _ => *phase = Phase::Done,
            }
        });
    }

    /// The request for a move in the position being pondered, answered by the pondering
    /// search: it goes on with the request's budget (and `listener` hears it as it would a
    /// search of its own), or its result is the answer when it has already ended. `Err`
    /// gives the listener back when nothing pondered fits the request.
    fn adopt_ponder<L: DecisionListener>(
        &mut self,
        clock: Option<Clock>,
        mut listener: L,
        asked: Instant,
    ) -> std::result::Result<(), L> {
        let Some(shared) = self.ponder.clone() else {
            return Err(listener);
        };
        let mut phase = shared.lock();
        let fits = |plan: &Plan| plan.expected == *self.board() && plan.level == self.level;
        match &*phase {
            Phase::Pondering(plan) if fits(plan) => {
                plan.live.start(self.move_limits(clock).time);
                log::debug!("ponder hit: the pondering search goes on for the request");
                listener.searching();
                shared.adopt(&mut phase, Box::new(listener), asked);
                Ok(())
            }
            Phase::Finished(plan, _) if fits(plan) => {
                let Phase::Finished(plan, result) = std::mem::replace(&mut *phase, Phase::Done)
                else {
                    unreachable!("matched just above")
                };
                drop(phase);
                log::debug!("ponder hit: the pondering search had ended; its move is played");
                let pv = result.pv.clone();
                if let Some(info) = shared.take_last_info() {
                    listener.info(&info);
                }
                listener.decided(Decision::Searched {
                    result,
                    elapsed: asked.elapsed(),
                });
                self.ponder_after(&plan.expected, &pv, plan.expected_budget);
                Ok(())
            }
            _ => Err(listener),
        }
    }

    /// With `--ponder`, starts pondering after the engine chose `line[0]` in `position`
    /// (`line[1]` being the reply it expects, if any), expecting `budget` for its next move.
    fn ponder_after(&mut self, position: &Board, line: &[Move], budget: Option<TimeBudget>) {
        if !self.ponder_enabled {
            return;
        }
        let settings = (self.level, budget);
        let plan = self.worker.with_state(|search| {
            Plan::after(
                search,
                position,
                line,
                settings,
                &std::sync::atomic::AtomicBool::new(false),
            )
        });
        let Some(plan) = plan else {
            return;
        };
        let shared = PonderShared::new(Phase::Pondering(plan.clone()));
        self.ponder = Some(Arc::clone(&shared));
        self.worker
            .start(move |search, stop| ponder::ponder(search, stop, &shared, plan));
    }

    /// Whether the engine is pondering (its search runs, or has ended, on the position it
    /// expects after its move and the reply).
    pub fn is_pondering(&self) -> bool {
        self.ponder.as_ref().is_some_and(|shared| {
            matches!(*shared.lock(), Phase::Pondering(_) | Phase::Finished(..))
        })
    }

    /// After the game changed: pondering goes on while the game is on the way to the
    /// pondered position, and stops otherwise.
    fn follow_ponder(&mut self) {
        let Some(shared) = &self.ponder else {
            return;
        };
        let keep = match &*shared.lock() {
            Phase::Pondering(plan) | Phase::Finished(plan, _) => {
                plan.leads_to_expected(self.game.board())
            }
            _ => false,
        };
        if !keep {
            log::debug!("the game left the pondered line: pondering stops");
            self.stop();
        }
    }

    /// Analyses every position of the game in the background, from the last one back to the
    /// start, at the level's depth: `on_position(moves_made, value)` gets each position's
    /// value for Black (a finished game its final disc count), and `on_done(completed)` is
    /// called last, also when the analysis is stopped (`completed` is then false).
    pub fn start_analysis(
        &mut self,
        mut on_position: impl FnMut(usize, Score) + Send + 'static,
        on_done: impl FnOnce(bool) + Send + 'static,
    ) {
        self.stop();
        let game = self.game.clone();
        let limits = SearchLimits::for_level(self.level);
        self.worker.start(move |search, stop| {
            let mut board = game.board().clone();
            let mut made = game.moves().len();
            loop {
                let value = if board.is_game_over() {
                    Score::from_discs(board.final_score(board.side_to_move()))
                } else {
                    let result = search.iterate(&board, &limits, stop, &mut |_| {});
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    result.score
                };
                let black = match board.side_to_move() {
                    Color::Black => value,
                    Color::White => -value,
                };
                on_position(made, black);
                if made == 0 {
                    on_done(true);
                    return;
                }
                // The flip stack takes the position back to the one before the last move.
                board.undo();
                made -= 1;
            }
            on_done(false);
        });
    }

    /// Stops a background search, pondering included, and waits until it has printed its
    /// last line.
    pub fn stop(&mut self) {
        self.worker.stop();
        self.ponder = None;
    }

    /// Stops a background search that answers a request (`hint`, `go`, `analyze`) and waits
    /// until it has printed its last line; pondering, which prints nothing, goes on (the
    /// commands that change the game decide whether it still fits).
    pub fn settle(&mut self) {
        if !self.is_pondering() {
            self.stop();
        }
    }

    #[cfg(test)]
    /// Waits for a background search to finish by itself.
    pub fn wait(&mut self) {
        self.worker.wait();
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.board().side_to_move()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsuru_core::config::Config;

    /// A session with `config`'s settings and files.
    fn session(config: Config) -> Session {
        Session::new(Loaded::load(config).unwrap())
    }

    #[test]
    fn win_probability_is_certain_where_solved_and_a_distribution_elsewhere() {
        let mut session = session(Config {
            threads: 1,
            ..Config::default()
        });
        // FFO #1: 14 empties, solved at the default level; the side to move wins by 18.
        let ffo1 = tsuru_core::board::notation::parse_board(
            "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X",
        )
        .unwrap();
        session.new_game(ffo1);
        let p = session.win_probability();
        assert_eq!((p.win, p.draw, p.loss), (1.0, 0.0, 0.0));
        session.new_game(Board::start());
        let p = session.win_probability();
        assert!((p.win + p.draw + p.loss - 1.0).abs() < 1e-9, "{p:?}");
        assert!(p.win > 0.2 && p.win < 0.8 && p.draw > 0.0, "{p:?}");
    }

    #[test]
    fn failed_commands_leave_the_game_unchanged() {
        let mut session = session(Config::default());
        session.play(GgfMove::bare("f5".parse().unwrap())).unwrap();
        let before = session.game().to_ggf();
        assert!(session.play(GgfMove::bare("a1".parse().unwrap())).is_err());
        assert_eq!(session.game().to_ggf(), before);
        session.undo().unwrap();
        assert!(session.undo().is_err());
        assert_eq!(session.board(), &Board::start());
    }

    #[test]
    fn move_limits_follow_the_clock() {
        let mut session = session(Config::default());
        let game = GgfGame::parse("(;GM[Othello]TI[1:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5//50];)").unwrap();
        session.set_game(game);
        let limits = session.move_limits(None);
        let budget = limits.time.expect("a timed game gives a time limit");
        assert!(budget.hard <= Duration::from_secs(30));
        assert_eq!(limits.depth, Some(session.level().depth()));
        session.new_game(Board::start());
        assert_eq!(session.move_limits(None).time, None);
    }

    #[test]
    fn game_time_is_a_clock_less_the_movers_recorded_seconds() {
        let mut session = session(Config {
            game_time: Some(Duration::from_secs(10)),
            ..Config::default()
        });
        let sudden_death = |seconds: f64| Clock::SuddenDeath {
            left: Duration::from_secs_f64(seconds),
            increment: Duration::ZERO,
        };
        assert_eq!(session.clock(), sudden_death(10.0));
        let timed = |square: &str, seconds: Option<f64>| GgfMove {
            seconds,
            ..GgfMove::bare(square.parse().unwrap())
        };
        session.play(timed("f5", Some(2.5))).unwrap();
        session.play(timed("d6", Some(4.0))).unwrap();
        session.play(timed("c3", None)).unwrap();
        // White to move: only White's 4 s count; Black's move without a time counts 0.
        assert_eq!(session.clock(), sudden_death(6.0));
        session.play(timed("d3", Some(1.0))).unwrap();
        assert_eq!(session.clock(), sudden_death(7.5));
        // A game clock the GUI sends comes first; a new game starts the clock again.
        let game = GgfGame::parse("(;GM[Othello]TI[1:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5//50];)").unwrap();
        session.set_game(game);
        assert_eq!(session.clock(), sudden_death(60.0));
        session.new_game(Board::start());
        assert_eq!(session.clock(), sudden_death(10.0));
        // Overdrawn: no time left, never a panic.
        session.play(timed("f5", Some(1e300))).unwrap();
        session.play(timed("d6", Some(11.0))).unwrap();
        assert_eq!(session.clock(), sudden_death(0.0));
    }

    #[test]
    fn absurd_game_clocks_are_clamped_not_trusted() {
        let mut session = session(Config::default());
        for clock in [
            "TI[1e300]",
            "TI[5:00/1e300]",
            "TB[1e300]TW[1:00]",
            "TI[213503982334601.00:00:00]",
        ] {
            let text = format!(
                "(;GM[Othello]{clock}TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5//-1e300];)"
            );
            session.set_game(GgfGame::parse(&text).unwrap());
            let budget = session.move_limits(None).time.expect("a timed game");
            assert!(budget.soft <= budget.hard, "{clock}");
            assert!(
                budget.hard <= tsuru_core::search::time::MAX_CLOCK,
                "{clock}"
            );
        }
        // A move time of NaN seconds leaves no time at all rather than panicking.
        let game = GgfGame::parse("(;GM[Othello]TI[1:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5//nan];)").unwrap();
        session.set_game(game);
        assert!(session.move_limits(None).time.is_some());
    }

    #[test]
    fn analysis_values_every_position_from_the_last_back() {
        let mut session = session(Config {
            level: Level::new(3).unwrap(),
            ..Config::default()
        });
        for mv in ["f5", "d6", "c3"] {
            session.play(GgfMove::bare(mv.parse().unwrap())).unwrap();
        }
        let (sender, receiver) = std::sync::mpsc::channel();
        let done = sender.clone();
        session.start_analysis(
            move |made, value| sender.send(Some((made, value))).unwrap(),
            move |completed| done.send(completed.then_some((99, Score::ZERO))).unwrap(),
        );
        session.wait();
        let got: Vec<_> = receiver.try_iter().collect();
        let made: Vec<usize> = got.iter().flatten().map(|(made, _)| *made).collect();
        assert_eq!(made, [3, 2, 1, 0, 99], "every position, then completion");
        // The same searches in the same order on a searcher like the session's (its table
        // carries over from one position to the next, which a selective search may use):
        // each value is the side to move's score, turned to Black's view when White moves.
        let mut search = Search::new(
            tsuru_core::search::SearchConfig::new(Config::default().hash_mb, 1).unwrap(),
        );
        let mut board = Board::start();
        let mut boards = vec![board.clone()];
        for mv in ["f5", "d6", "c3"] {
            assert!(board.make_move(mv.parse().unwrap()));
            boards.push(board.without_history());
        }
        for (made, board) in boards.iter().enumerate().rev() {
            let score = search
                .iterate(
                    board,
                    &SearchLimits::for_level(Level::new(3).unwrap()),
                    &std::sync::atomic::AtomicBool::new(false),
                    &mut |_| {},
                )
                .score;
            let black = if made % 2 == 0 { score } else { -score };
            assert_eq!(got[3 - made].unwrap(), (made, black), "after {made} moves");
        }
        // The session's game is untouched by the analysis.
        assert_eq!(session.game().moves().len(), 3);
    }

    #[test]
    fn a_stopped_analysis_still_reports_its_end() {
        let mut session = session(Config {
            level: Level::new(30).unwrap(),
            ..Config::default()
        });
        session.play(GgfMove::bare("f5".parse().unwrap())).unwrap();
        let (sender, receiver) = std::sync::mpsc::channel();
        session.start_analysis(|_, _| {}, move |completed| sender.send(completed).unwrap());
        session.stop();
        assert_eq!(receiver.try_recv(), Ok(false));
    }

    /// Hands each decision to a channel.
    struct Decisions(std::sync::mpsc::Sender<Decision>);

    impl DecisionListener for Decisions {
        fn decided(self, decision: Decision) {
            let _ = self.0.send(decision);
        }
    }

    /// A pondering session (no book, one thread, 0.1 s a move, no depth limit to speak of)
    /// that has decided its first move and played it; the decision's line.
    fn pondering_session() -> (Session, Vec<Move>) {
        let mut session = session(Config {
            ponder: true,
            level: Level::new(60).unwrap(),
            move_time: Some(Duration::from_millis(100)),
            threads: 1,
            book: tsuru_core::config::BookSetting::Off,
            ..Config::default()
        });
        let (sender, receiver) = std::sync::mpsc::channel();
        session.decide(None, Decisions(sender));
        let Decision::Searched { result, .. } = receiver.recv().unwrap() else {
            panic!("a search decides the first move without a book");
        };
        assert!(result.pv.len() >= 2, "a line with a reply: {:?}", result.pv);
        session.play(GgfMove::bare(result.best)).unwrap();
        (session, result.pv)
    }

    fn searched(decision: Decision) -> (SearchResult, Duration) {
        match decision {
            Decision::Searched { result, elapsed } => (result, elapsed),
            other => panic!("not a search: {other:?}"),
        }
    }

    #[test]
    fn the_expected_reply_continues_the_pondering_search() {
        let (mut session, pv) = pondering_session();
        assert!(session.is_pondering(), "pondering after its own move");
        session.play(GgfMove::bare(pv[1])).unwrap();
        assert!(
            session.is_pondering(),
            "the expected reply keeps it pondering"
        );
        std::thread::sleep(Duration::from_millis(400));
        let (sender, receiver) = std::sync::mpsc::channel();
        session.decide(None, Decisions(sender));
        let (result, elapsed) = searched(receiver.recv().unwrap());
        // The search that answered began before the request: it is the pondering search.
        assert!(result.elapsed >= Duration::from_millis(400), "{result:?}");
        assert!(elapsed < result.elapsed, "{elapsed:?} {result:?}");
        assert!(session.board().is_legal(result.best));
        session.play(GgfMove::bare(result.best)).unwrap();
        assert!(session.is_pondering(), "and ponders again after the answer");
    }

    #[test]
    fn another_reply_stops_pondering_and_searches_afresh() {
        let (mut session, pv) = pondering_session();
        let other = tsuru_core::board::bits::squares(session.board().legal_moves())
            .map(Move::Play)
            .find(|&mv| mv != pv[1])
            .expect("the opening has several replies");
        session.play(GgfMove::bare(other)).unwrap();
        assert!(!session.is_pondering());
        std::thread::sleep(Duration::from_millis(200));
        let (sender, receiver) = std::sync::mpsc::channel();
        session.decide(None, Decisions(sender));
        let (result, elapsed) = searched(receiver.recv().unwrap());
        // A search of its own: it began with the request.
        assert!(result.elapsed <= elapsed, "{elapsed:?} {result:?}");
        // Taking a move back also leaves the pondered line.
        session.play(GgfMove::bare(result.best)).unwrap();
        assert!(session.is_pondering());
        session.undo().unwrap();
        assert!(
            session.is_pondering(),
            "the position it decided in is on the way"
        );
        session.undo().unwrap();
        assert!(!session.is_pondering());
    }

    #[test]
    fn without_ponder_the_engine_waits_idle() {
        let mut session = session(Config {
            move_time: Some(Duration::from_millis(50)),
            threads: 1,
            book: tsuru_core::config::BookSetting::Off,
            ..Config::default()
        });
        let (sender, receiver) = std::sync::mpsc::channel();
        session.decide(None, Decisions(sender));
        let (result, _) = searched(receiver.recv().unwrap());
        session.play(GgfMove::bare(result.best)).unwrap();
        assert!(!session.is_pondering());
    }

    #[test]
    fn no_pondering_thread_outlives_the_session() {
        let (session, _) = pondering_session();
        let shared = Arc::clone(session.ponder.as_ref().expect("pondering"));
        assert_eq!(
            Arc::strong_count(&shared),
            3,
            "the session, its thread and this test"
        );
        drop(session);
        assert_eq!(
            Arc::strong_count(&shared),
            1,
            "the thread is gone with the session"
        );
    }

    #[test]
    fn background_search_reports_and_finishes() {
        let mut session = session(Config::default());
        let (sender, receiver) = std::sync::mpsc::channel();
        session.start_search(
            SearchLimits::for_level(Level::new(4).unwrap()),
            |_| {},
            move |r| sender.send(r).unwrap(),
        );
        session.wait();
        let result = receiver.recv().unwrap();
        assert!(session.board().is_legal(result.best));
    }
}
