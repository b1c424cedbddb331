//! NBoard protocol version 2 (see protocol.md, "NBoard").
//!
//! Commands are applied strictly in order. `hint`, `go` and `analyze` run on the session's
//! search thread, which prints its own lines; every later command first stops that search
//! and waits for it, so nothing about an old request can follow a newer `pong`. Unknown or
//! malformed lines are logged on stderr and ignored; a failed command changes nothing.

use anyhow::{bail, Context, Result};
use tsuru_core::cli::search_options;

use super::input::Input;
use super::output::Output;
use super::{Event, InputQueue};
use crate::session::{Decision, DecisionListener, Loaded, Session};
use tsuru_core::board::Move;
use tsuru_core::book::BookChoice;
use tsuru_core::formats::ggf::{parse_move_token, GgfGame};
use tsuru_core::score::{Discs, Score, UNITS_PER_DISC};
use tsuru_core::search::{Depth, PvLine, SearchInfo};

/// The name sent with `set myname` (one token, as NBoard keeps only the first word).
pub const ENGINE_NAME: &str = "tsuru";

/// Runs the NBoard loop until `quit` or end of input.
pub fn run(loaded: Loaded, queue: &mut InputQueue, out: &Output) -> Result<()> {
    let mut session = Session::new(loaded);
    loop {
        let line = match queue.recv() {
            Event::Input(Input::Eof) => break,
            Event::Input(Input::TooLong(prefix)) => {
                log::warn!(
                    "ignored an over-long line starting \"{}\"",
                    super::output::escape(&prefix)
                );
                continue;
            }
            Event::Input(Input::Line(line)) => line,
            // NBoard's decisions print from the search thread; none comes here.
            Event::Decided(_) => continue,
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        // Whatever the command, an older request's search ends first (pondering, which
        // prints nothing, goes on while the game stays on its way).
        session.settle();
        match handle(&mut session, line, out) {
            Ok(Next::Continue) => {}
            Ok(Next::Quit) => break,
            Err(err) => log::warn!(
                "ignored \"{}\": {}",
                super::output::escape(line),
                super::output::escape(&format!("{err:#}"))
            ),
        }
    }
    session.stop();
    Ok(())
}

enum Next {
    Continue,
    Quit,
}

fn handle(session: &mut Session, line: &str, out: &Output) -> Result<Next> {
    let (command, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let rest = rest.trim();
    match command {
        "nboard" => out.line(&format!("set myname {ENGINE_NAME}")),
        // NBoard matches the number it sent: echo it exactly as received, whatever it is.
        "ping" if rest.is_empty() => bail!("ping needs a number"),
        "ping" => {
            // Only the first word is the token; anything after it is not NBoard's.
            let token = rest.split_whitespace().next().unwrap_or(rest);
            out.line(&format!("pong {}", super::output::escape(token)));
        }
        "set" => set(session, rest)?,
        "move" => session.play(parse_move_token(rest)?)?,
        "hint" => {
            let n: usize = rest.parse().context("hint needs a number")?;
            hint(session, n.max(1), out);
        }
        "go" => go(session, out),
        "learn" => {
            // NBoard waits for `learned` whatever happens; a failure is only logged.
            match session.learn() {
                Ok(Some(learned)) => log::info!("learned: {learned:?}"),
                Ok(None) => log::info!("learn: no book"),
                Err(err) => log::error!("learn: {err:#}"),
            }
            out.line("learned");
        }
        "analyze" => analyze(session, out),
        "quit" => return Ok(Next::Quit),
        // Protocol version 1 sends a bare move.
        _ if rest.is_empty() && is_bare_move(command) => {
            session.play(parse_move_token(command)?)?;
        }
        _ => bail!("unknown command"),
    }
    Ok(Next::Continue)
}

fn is_bare_move(word: &str) -> bool {
    word.len() == 2 && parse_move_token(word).is_ok()
}

fn set(session: &mut Session, rest: &str) -> Result<()> {
    let (name, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let value = value.trim();
    match name {
        // The registry's level (`--level`), with its parser.
        name if name == search_options::LEVEL.nboard => {
            session.set_level(search_options::level(value).context("set depth")?);
            Ok(())
        }
        "game" => {
            session.set_game(GgfGame::parse(value)?);
            Ok(())
        }
        "contempt" => {
            let discs: i32 = value.parse().context("contempt needs a number")?;
            session.set_contempt(Discs::new(discs));
            Ok(())
        }
        _ => bail!("unknown setting {name:?}"),
    }
}

/// A score as NBoard reads it: discs with a sign and two decimals (`+1.23`, `-0.40`,
/// `+0.00`); never an exponent, NaN or infinity.
pub fn score_text(score: Score) -> String {
    let units = score.units().unsigned_abs();
    let per_disc = UNITS_PER_DISC.unsigned_abs();
    let sign = if score.units() < 0 { '-' } else { '+' };
    let whole = units / per_disc;
    let hundredths = (units % per_disc) * 100 / per_disc;
    format!("{sign}{whole}.{hundredths:02}")
}

/// A depth as NBoard reads it: `12` plies, `95%` (a probable solve), `100%W` (win, loss or
/// draw proven), `100%` (exact).
pub fn depth_text(depth: Depth) -> String {
    match depth {
        Depth::Plies(n) => n.to_string(),
        Depth::Probable(percent) => format!("{percent}%"),
        Depth::WinLossDraw => "100%W".into(),
        Depth::Exact => "100%".into(),
    }
}

/// A PV as one token: moves in upper case joined by `-` (`F5-D6-C3`, `PA-C1`).
pub fn pv_token(pv: &[Move]) -> String {
    pv.iter().map(Move::to_string).collect::<Vec<_>>().join("-")
}

fn search_line(line: &PvLine, depth: Depth) -> String {
    format!(
        "search {} {} 0 {}",
        pv_token(&line.pv),
        score_text(line.score),
        depth_text(depth)
    )
}

/// A `book` line: the move's book line as the PV, its value, the games through it and the
/// depth of the search beneath it.
fn book_line(session: &Session, choice: &BookChoice) -> String {
    format!(
        "book {} {} {} {}",
        pv_token(&session.book_line(choice.square)),
        score_text(Score::from_discs(choice.value)),
        choice.games,
        choice.depth
    )
}

fn nodestats(nodes: u64, seconds: f64) -> String {
    format!("nodestats {nodes} {seconds:.3}")
}

/// `hint n`: the book's moves first (`book` lines), then the best `n` moves outside the
/// book after every iteration, up to the level's depth or a solve.
fn hint(session: &mut Session, n: usize, out: &Output) {
    let board = session.board();
    if board.is_game_over() {
        out.line("status game over");
        return;
    }
    let legal = board.legal_moves();
    let links: Vec<BookChoice> = session
        .book_moves()
        .unwrap_or_default()
        .into_iter()
        .filter(|c| c.in_book)
        .collect();
    out.line("status Analyzing");
    for choice in &links {
        out.line(&book_line(session, choice));
    }
    let in_book = links.iter().fold(0u64, |bits, c| bits | c.square.bit());
    if legal != 0 && legal & !in_book == 0 {
        out.line("status");
        return;
    }
    // Search lines for book moves would replace their book lines in NBoard: ask for enough
    // lines that `n` moves outside the book are reported, and print only those.
    let limits = session.analysis_limits(n + links.len());
    let info_out = out.clone();
    let done_out = out.clone();
    session.start_search(
        limits,
        move |info: &SearchInfo| {
            let outside = info
                .lines
                .iter()
                .filter(|line| line.mv.square().is_none_or(|sq| in_book & sq.bit() == 0));
            for line in outside.take(n) {
                info_out.line(&search_line(line, info.depth));
            }
        },
        move |result| {
            done_out.line(&nodestats(result.nodes, result.elapsed.as_secs_f64()));
            done_out.line("status");
        },
    );
}

/// `go`: the session's decision ([`Session::decide`]) reported, not played: `status game
/// over`, `=== PA` for a forced pass, the book's move at once, or a search's lines and then
/// its move.
fn go(session: &mut Session, out: &Output) {
    session.decide(None, Go { out: out.clone() });
}

/// How NBoard hears a move decision: every line it prints.
struct Go {
    out: Output,
}

impl DecisionListener for Go {
    fn searching(&mut self) {
        self.out.line("status Thinking");
    }

    fn info(&mut self, info: &SearchInfo) {
        if let Some(line) = info.lines.first() {
            self.out.line(&search_line(line, info.depth));
        }
    }

    fn decided(self, decision: Decision) {
        match decision {
            Decision::GameOver => self.out.line("status game over"),
            Decision::ForcedPass => self.out.line("=== PA"),
            Decision::Book(choice) => self.out.line(&format!(
                "=== {}/{}/0.00",
                choice.square,
                score_text(Score::from_discs(choice.value))
            )),
            Decision::Searched { result, elapsed } => {
                self.out
                    .line(&nodestats(result.nodes, result.elapsed.as_secs_f64()));
                self.out.line(&format!(
                    "=== {}/{}/{:.2}",
                    result.best,
                    score_text(result.score),
                    elapsed.as_secs_f64()
                ));
            }
        }
    }
}

/// `analyze`: the value of every position of the game from Black's point of view, from the
/// last position back to the start, as `analysis <movesMade> <eval>` lines, then a bare
/// `status` (also when a later command interrupts it, so NBoard's status bar is cleared).
fn analyze(session: &mut Session, out: &Output) {
    out.line("status Analyzing game");
    let line_out = out.clone();
    let done_out = out.clone();
    session.start_analysis(
        move |made, black: Score| line_out.line(&format!("analysis {made} {}", score_text(black))),
        move |_| done_out.line("status"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_and_depths_in_nboard_form() {
        assert_eq!(score_text(Score::from_units(123)), "+1.23");
        assert_eq!(score_text(Score::from_units(-40)), "-0.40");
        assert_eq!(score_text(Score::from_units(0)), "+0.00");
        assert_eq!(score_text(Score::from_discs(Discs::new(-64))), "-64.00");
        assert_eq!(score_text(Score::INFINITY), "+65.00");
        assert_eq!(depth_text(Depth::Plies(12)), "12");
        assert_eq!(depth_text(Depth::Probable(95)), "95%");
        assert_eq!(depth_text(Depth::WinLossDraw), "100%W");
        assert_eq!(depth_text(Depth::Exact), "100%");
    }

    #[test]
    fn pv_tokens_have_no_spaces() {
        let pv = [Move::Pass, "c1".parse().unwrap(), "d3".parse().unwrap()];
        assert_eq!(pv_token(&pv), "PA-C1-D3");
        assert_eq!(pv_token(&[]), "");
    }

    #[test]
    fn bare_moves_are_recognised() {
        assert!(is_bare_move("F5"));
        assert!(is_bare_move("pa"));
        assert!(!is_bare_move("go"));
        assert!(!is_bare_move("F55"));
    }
}
