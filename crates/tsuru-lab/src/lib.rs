//! The lab: everything beside the engine that measures, trains and referees it. The
//! [`referee`] plays engines against each other (`tsuru match`), [`training`] fits the pattern
//! evaluation from games and generates self-play data, and [`tools`] holds the command-line
//! tools (`solve`, `bench`, `match`, `decided`, `train`, `datagen`, `label`, `merge`,
//! `probcut`).
//!
//! The lab uses the engine (board, evaluation, search, session, protocols, formats) only
//! through its public interface, as any other program could. Work spread over threads goes
//! through one helper, [`parallel`].

pub mod parallel;
pub mod referee;
pub mod tools;
pub mod training;
