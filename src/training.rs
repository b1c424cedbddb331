//! Training the pattern evaluation ([`crate::eval::pattern`]) from games: reading game
//! collections ([`games`]), turning their positions into labelled samples (this module), and
//! fitting the weights by least squares ([`fit`]).
//!
//! A sample is a position's 46 feature entries (side to move's view, ties resolved) and a
//! label in discs for the side to move. Labels, best first:
//!
//! 1. **exact**: with `solve_empties = N`, every position of a game with N or fewer empties is
//!    solved exactly (the value is unique, so the labels do not depend on the solver's move
//!    ordering, and hence not on the weights of the build that trains);
//! 2. **theoretical**: WTHOR records the exact score at 24 empties; positions up to that
//!    point are labelled with it (the outcome if the endgame had been played perfectly);
//! 3. **result**: the game's final disc difference.
//!
//! The start position itself is labelled 0, its known exact value (a draw). Self-play games
//! ([`selfplay`]) carry the exact value of their solve point as the theoretical score, and
//! their random openings give no samples.
//!
//! Games are split into training and held-out sets by game number (every `holdout_every`-th
//! game is held out), never by position.

pub mod fit;
pub mod games;
pub mod selfplay;

use std::sync::atomic::AtomicBool;

use crate::board::patterns::COPIES;
use crate::board::{Board, Color};
use crate::eval::pattern::{features, stage_of};
use crate::search::endgame::EndgameSolver;
use games::Game;

/// One labelled position.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// The flat-table entries the position looks up (canonical, side to move's view).
    pub features: [u32; COPIES],
    /// The target in discs, side to move's view.
    pub label: f32,
}

/// Samples split by stage.
#[derive(Default)]
pub struct Dataset {
    /// `stages[s]` holds the samples of stage `s`.
    pub stages: Vec<Vec<Sample>>,
}

impl Dataset {
    /// An empty dataset with `stages` stages.
    pub fn new(stages: usize) -> Dataset {
        Dataset {
            stages: vec![Vec::new(); stages],
        }
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.stages.iter().map(Vec::len).sum()
    }

    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn push(&mut self, board: &Board, black_label: f32) {
        if board.is_game_over() || board.must_pass() {
            return;
        }
        let label = if board.side_to_move() == Color::Black {
            black_label
        } else {
            -black_label
        };
        let stage = stage_of(board.empties(), self.stages.len());
        self.stages[stage].push(Sample {
            features: features(board),
            label,
        });
    }

    /// Adds the samples of one game (see the module doc for the labels). `solver` is used
    /// when `solve_empties > 0`.
    pub fn add_game(
        &mut self,
        game: &Game,
        solve_empties: u32,
        mut solver: Option<&mut EndgameSolver>,
    ) {
        let stop = AtomicBool::new(false);
        let mut board = Board::start();
        let result = f32::from(game.black_diff);
        for &mv in &game.moves {
            let mut label = match game.theoretical {
                // The start position is a draw with perfect play (Othello was weakly solved
                // by Takizawa in 2023), whatever a game played from it ended in.
                _ if board.ply() == 0 => 0.0,
                Some((empties, value)) if board.empties() >= u32::from(empties) => f32::from(value),
                _ => result,
            };
            if board.empties() <= solve_empties && !board.is_game_over() && !board.must_pass() {
                if let Some(solver) = solver.as_deref_mut() {
                    if let Some(value) = solver.search(&mut board, -64, 64, &stop) {
                        let black = if board.side_to_move() == Color::Black {
                            value
                        } else {
                            -value
                        };
                        label = black as f32;
                    }
                }
            }
            if board.ply() >= game.first_sample {
                self.push(&board, label);
            }
            if board.play(mv).is_err() {
                return;
            }
        }
    }
}
