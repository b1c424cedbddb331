//! The session: one game, its board, the engine's settings, and a search running in the
//! background. Both front ends (NBoard, GTP) drive it; it knows no protocol.

pub mod worker;
