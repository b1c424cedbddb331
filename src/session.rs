//! The session: one game, the engine's settings, and a search running in the background.
//!
//! Both front ends (NBoard, GTP) drive a session; it knows no protocol. The game is kept as a
//! validated [`GgfGame`] (start position, moves with their evals and times, clocks), whose
//! board -- the mailbox with its flip stack -- is the current position. Every command is
//! atomic: a failing one leaves the game exactly as it was. Searches run on the
//! [`worker::Worker`] thread on a copy of the position, so input keeps being read while the
//! engine thinks; the transposition table lives in the worker and survives between searches.

pub mod worker;

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{bail, Result};

use crate::board::{Board, Color};
use crate::config::Config;
use crate::formats::ggf::{GgfGame, GgfMove};
use crate::search::{Search, SearchInfo, SearchLimits, SearchResult, TimeBudget};
use worker::Worker;

/// A game, its settings and the search thread.
pub struct Session {
    game: GgfGame,
    depth: u32,
    contempt: i32,
    move_time: Option<f64>,
    worker: Worker<Search>,
}

impl Session {
    /// A session at the start position with the command line's settings.
    pub fn new(config: &Config) -> Session {
        let mut search = Search::new(config.hash_mb);
        search.set_selectivity(config.selectivity);
        // The option parser already loaded the file once, so this only fails if it changed.
        match config.eval.build() {
            Ok(eval) => search.set_evaluation(eval),
            Err(err) => log::error!("evaluation: {err:#}; using the shipped weights"),
        }
        Session {
            game: GgfGame::default(),
            depth: config.depth,
            contempt: 0,
            move_time: config.move_time,
            worker: Worker::new(search),
        }
    }

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
        self.stop();
        self.game = game;
    }

    /// Starts a new game from `start` with no moves and no clock.
    pub fn new_game(&mut self, start: Board) {
        self.set_game(GgfGame::new(start));
    }

    /// Appends a move by the side to move (a pass only when forced). On error nothing changes.
    pub fn play(&mut self, mv: GgfMove) -> Result<()> {
        self.stop();
        self.game.push(mv)
    }

    /// Takes back the last move or pass; error (nothing changed) when there is none.
    pub fn undo(&mut self) -> Result<GgfMove> {
        self.stop();
        match self.game.pop() {
            Some(mv) => Ok(mv),
            None => bail!("no move to take back"),
        }
    }

    /// The midgame depth (level), 1 to 60.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// Sets the midgame depth (level); values outside 1..=60 are refused.
    pub fn set_depth(&mut self, depth: u32) -> Result<()> {
        if !(1..=60).contains(&depth) {
            bail!("depth must be between 1 and 60, not {depth}");
        }
        self.depth = depth;
        Ok(())
    }

    /// Draw value for Black in discs as NBoard sends it (stored; see protocol.md).
    pub fn contempt(&self) -> i32 {
        self.contempt
    }

    /// Stores NBoard's contempt setting.
    pub fn set_contempt(&mut self, contempt: i32) {
        self.contempt = contempt;
    }

    /// Limits for analysing the current position: the level's depth and endgame settings, no
    /// clock, the best `lines` moves.
    pub fn analysis_limits(&self, lines: usize) -> SearchLimits {
        SearchLimits {
            multi_pv: lines.max(1),
            ..SearchLimits::for_level(self.depth)
        }
    }

    /// Limits for choosing a move: the level, bounded by `time` when given, else by the
    /// game's clock for the side to move, else by `--move-time`, else by depth alone.
    pub fn move_limits(&self, time: Option<TimeBudget>) -> SearchLimits {
        let board = self.board();
        let clock = self
            .game
            .time_left(board.side_to_move())
            .zip(self.game.clock(board.side_to_move()))
            .map(|(left, clock)| {
                TimeBudget::from_clock(
                    Duration::from_secs_f64(left.max(0.0)),
                    Duration::from_secs_f64(clock.increment),
                    board.empties(),
                )
            });
        SearchLimits {
            time: time.or(clock).or(self.move_time.map(TimeBudget::per_move)),
            ..SearchLimits::for_level(self.depth)
        }
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
        let board = self.board().clone();
        self.worker.start(move |search, stop| {
            let result = search.iterate(&board, &limits, stop, &mut on_info);
            on_done(result);
        });
    }

    /// Runs any job on the search thread (e.g. analysing every position of a game).
    pub fn start_job(&mut self, job: impl FnOnce(&mut Search, &AtomicBool) + Send + 'static) {
        self.worker.start(job);
    }

    /// Searches the current position on the calling thread and returns the result.
    pub fn think(&mut self, limits: &SearchLimits) -> SearchResult {
        let board = self.board().clone();
        let stop = AtomicBool::new(false);
        self.worker
            .with_state(|search| search.iterate(&board, limits, &stop, &mut |_| {}))
    }

    /// Stops a background search and waits until it has printed its last line.
    pub fn stop(&mut self) {
        self.worker.stop();
    }

    /// Waits for a background search to finish by itself.
    pub fn wait(&mut self) {
        self.worker.wait();
    }

    /// Clears the search's tables.
    pub fn clear_tables(&mut self) {
        self.worker.with_state(Search::clear);
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.board().side_to_move()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_commands_leave_the_game_unchanged() {
        let mut session = Session::new(&Config::default());
        session.play(GgfMove::bare("f5".parse().unwrap())).unwrap();
        let before = session.game().to_ggf();
        assert!(session.play(GgfMove::bare("a1".parse().unwrap())).is_err());
        assert!(session.set_depth(0).is_err());
        assert!(session.set_depth(61).is_err());
        assert_eq!(session.game().to_ggf(), before);
        session.undo().unwrap();
        assert!(session.undo().is_err());
        assert_eq!(session.board(), &Board::start());
    }

    #[test]
    fn move_limits_follow_the_clock() {
        let mut session = Session::new(&Config::default());
        let game = GgfGame::parse("(;GM[Othello]TI[1:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5//50];)").unwrap();
        session.set_game(game);
        let limits = session.move_limits(None);
        let budget = limits.time.expect("a timed game gives a time limit");
        assert!(budget.hard <= Duration::from_secs(30));
        assert_eq!(limits.depth, Some(session.depth()));
        session.new_game(Board::start());
        assert_eq!(session.move_limits(None).time, None);
    }

    #[test]
    fn background_search_reports_and_finishes() {
        let mut session = Session::new(&Config::default());
        let (sender, receiver) = std::sync::mpsc::channel();
        session.start_search(
            SearchLimits::for_level(4),
            |_| {},
            move |r| sender.send(r).unwrap(),
        );
        session.wait();
        let result = receiver.recv().unwrap();
        assert!(session.board().is_legal(result.best));
    }
}
