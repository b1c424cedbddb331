//! Driving an NBoard engine (protocol v2, protocol.md) as the NBoard GUI does: `nboard 2`;
//! before each request the game state (`move <token>` when exactly one move was added since
//! the text last sent, `set game <GGF>` otherwise, nothing when it is the same), `set depth`
//! when it changed, `ping n` and a wait for `pong n` (lines before it are stale and dropped);
//! then `go`, answered by `=== <move>[/<eval>[/<time>]]`, or `hint N`, answered by `search`
//! and `book` lines as the search goes, `nodestats` and a closing `status`.
//!
//! `set myname` may come at any time; its name is kept. The clock is the GGF clock: a game
//! clock is `TI[T//0]` with the real move times; NBoard has no time per move, so `S` seconds
//! a move is shown as a clock of `S` with an increment of `S` on which every earlier move is
//! charged exactly `S`, which leaves `S` seconds on it at every move.

use std::time::{Duration, Instant};

use super::{number, EngineProcess, Error, ErrorKind, Result};
use crate::board::Move;
use crate::formats::ggf::{GgfClock, GgfGame, GgfMove};

/// The clock a request is made under.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NboardClock {
    /// No clock (the engine's depth decides).
    None,
    /// Seconds per game and player, `TI[T//0]`.
    Game(f64),
    /// Seconds per move, `TI[S/S/0]` with every earlier move charged `S`.
    PerMove(f64),
}

/// The game as an engine is shown it: `game`'s start, tags and moves with `clock` (which
/// replaces the game's own; the move times are the game's, or `S` each for `PerMove(S)`).
pub fn shown_game(game: &GgfGame, clock: NboardClock) -> GgfGame {
    let mut view = GgfGame::new(game.start().clone());
    view.tags = game.tags.clone();
    let (main, increment, charge) = match clock {
        NboardClock::None => (None, 0.0, None),
        NboardClock::Game(time) => (Some(time), 0.0, None),
        NboardClock::PerMove(time) => (Some(time), time, Some(time)),
    };
    if let Some(main) = main {
        let clock = GgfClock {
            main,
            increment,
            grace: 0.0,
        };
        view.clocks = [Some(clock), Some(clock)];
    }
    for mv in game.moves() {
        let shown = GgfMove {
            seconds: charge.or(mv.seconds),
            ..*mv
        };
        view.push(shown).expect("a legal game stays legal");
    }
    view
}

/// The name in a `set myname NAME` line.
pub fn myname(line: &str) -> Option<String> {
    let mut words = line.trim().splitn(3, char::is_whitespace);
    match (words.next(), words.next()) {
        (Some("set"), Some("myname")) => Some(words.next().unwrap_or("").trim().to_string()),
        _ => None,
    }
}

/// One `search` or `book` line: a line of play the engine reports.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchLine {
    /// The principal variation, first move first.
    pub pv: Vec<Move>,
    /// The score in discs for the side to move (`None` when the engine wrote `nan`).
    pub score: Option<f64>,
    /// The engine's depth: `12` (plies), `73%` (a selective endgame pass), `100%W`, `100%`.
    pub depth: String,
    /// Whether it came from the engine's book.
    pub book: bool,
    /// The book's game count (book lines only).
    pub games: Option<u64>,
    /// Its rank among the lines of the same depth (book lines: among the book lines), from 1.
    pub rank: u32,
    /// The line as received.
    pub text: String,
}

/// `F5-D6-C3`, `F5d6C3`, `PA-C1` as moves.
fn parse_pv(text: &str) -> std::result::Result<Vec<Move>, String> {
    let mut moves = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '-' && !rest.starts_with("--") || c.is_whitespace() {
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let lower = rest.to_ascii_lowercase();
        let len = if lower.starts_with("pass") {
            4
        } else if lower.starts_with("pa")
            || lower.starts_with("--")
            || (lower.len() >= 2
                && lower.is_char_boundary(2)
                && lower.as_bytes()[0].is_ascii_lowercase()
                && lower.as_bytes()[1].is_ascii_digit())
        {
            2
        } else {
            c.len_utf8()
        };
        let token = &rest[..len];
        moves.push(
            token
                .parse::<Move>()
                .map_err(|_| format!("bad move '{token}' in pv '{text}'"))?,
        );
        rest = &rest[len..];
    }
    Ok(moves)
}

/// Reads a `search <pv> <eval> 0 <depth>` or `book <pv> <eval> <games> <depth>` line (rank 1).
pub fn parse_search_line(line: &str) -> std::result::Result<SearchLine, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.len() < 5 {
        return Err("too few fields".into());
    }
    let book = words[0] == "book";
    let pv = parse_pv(words[1])?;
    if pv.is_empty() {
        return Err("empty pv".into());
    }
    let score_text = words[2].split(',').next().unwrap_or("");
    let score = number(score_text);
    if score.is_none() && !score_text.eq_ignore_ascii_case("nan") {
        return Err(format!("bad eval '{}'", words[2]));
    }
    let games: u64 = words[3]
        .parse()
        .map_err(|_| format!("bad games count '{}'", words[3]))?;
    let depth = words[4];
    if !depth.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(format!("bad depth '{depth}'"));
    }
    Ok(SearchLine {
        pv,
        score,
        depth: depth.to_string(),
        book,
        games: book.then_some(games),
        rank: 1,
        text: line.to_string(),
    })
}

/// The answer to `go`.
#[derive(Clone, Debug, PartialEq)]
pub struct GoAnswer {
    /// The move.
    pub mv: Move,
    /// Its evaluation in discs for the mover, if given.
    pub eval: Option<f64>,
    /// The seconds the engine says it took, if given.
    pub time: Option<f64>,
    /// The `search` and `book` lines before it, in order.
    pub lines: Vec<SearchLine>,
    /// The node count of its `nodestats`, if any.
    pub nodes: Option<u64>,
}

/// What a running `hint` gave next.
#[derive(Clone, Debug, PartialEq)]
pub enum HintEvent {
    /// A `search` or `book` line, ranked.
    Line(SearchLine),
    /// `nodestats`: the nodes and seconds of the search so far, and its last depth.
    NodeStats {
        /// Nodes searched.
        nodes: u64,
        /// Seconds, if readable.
        seconds: Option<f64>,
        /// The depth of the last `search` line, if any.
        depth: Option<String>,
    },
    /// The analysis has ended (the closing `status`, or the answer to the stop).
    End,
}

/// The state of a running `hint`.
#[derive(Clone, Debug, Default)]
struct Hint {
    /// When the client stops it by itself.
    stop_at: Option<Instant>,
    /// When waiting for its lines gives up.
    deadline: Option<Instant>,
    /// How long the engine has to answer a stop.
    stop_wait: Duration,
    /// The ping sent to stop it, and the deadline for its pong.
    stop: Option<(u64, Instant)>,
    started: bool,
    ended: bool,
    any_line: bool,
    depth: Option<String>,
    rank: u32,
    book_rank: u32,
}

/// An NBoard engine process and what it has been told.
pub struct NboardClient {
    process: EngineProcess,
    /// The GGF text of the game as last sent (by `set game` or `move`).
    sent: Option<String>,
    /// The depth last sent.
    depth: Option<u32>,
    /// The last ping number used.
    ping: u64,
    /// The name from `set myname`, if it sent one.
    name: Option<String>,
    /// The running hint, if any.
    hint: Option<Hint>,
}

impl NboardClient {
    /// Greets a started engine with `nboard 2`. With `deadline`, also `ping` and a wait for
    /// its `pong` (a name sent meanwhile is kept).
    pub fn greet(
        process: EngineProcess,
        deadline: Option<Option<Instant>>,
    ) -> Result<NboardClient> {
        let mut client = NboardClient::greeted(process, None, 0);
        client.process.send("nboard 2")?;
        if let Some(deadline) = deadline {
            client.ping(deadline)?;
        }
        Ok(client)
    }

    /// Wraps an engine already greeted (by [`super::detect`]: `ping` numbers up to `ping` used,
    /// `name` from its `set myname`).
    pub fn greeted(process: EngineProcess, name: Option<String>, ping: u64) -> NboardClient {
        NboardClient {
            process,
            sent: None,
            depth: None,
            ping,
            name,
            hint: None,
        }
    }

    /// The process.
    pub fn process(&mut self) -> &mut EngineProcess {
        &mut self.process
    }

    /// The name from its `set myname`, if it sent one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Reads a line, keeping a name from `set myname`; `None` for such a line.
    fn next_line(&mut self, deadline: Option<Instant>, what: &str) -> Result<Option<String>> {
        let line = self.process.recv(deadline, what)?;
        if let Some(name) = myname(&line) {
            self.name = Some(name);
            return Ok(None);
        }
        Ok(Some(line))
    }

    /// Forgets what was sent, so that the next request sends the whole game.
    pub fn forget(&mut self) {
        self.sent = None;
    }

    /// Sends `game` (GGF text as [`shown_game`] makes it): `move <token>` when it is the game
    /// last sent plus one move, nothing when it is that game, `set game` otherwise.
    pub fn set_game(&mut self, game: &GgfGame) -> Result<()> {
        let text = game.to_ggf();
        if self.sent.as_deref() == Some(text.as_str()) {
            return Ok(());
        }
        let mut shorter = game.clone();
        let command = match (&self.sent, shorter.pop()) {
            (Some(sent), Some(mv)) if *sent == shorter.to_ggf() => format!("move {mv}"),
            _ => format!("set game {text}"),
        };
        self.sent = None;
        self.process.send(&command)?;
        self.sent = Some(text);
        Ok(())
    }

    /// Sends `set depth D` unless `depth` was the last one sent.
    pub fn set_depth(&mut self, depth: u32) -> Result<()> {
        if self.depth != Some(depth) {
            self.process.send(&format!("set depth {depth}"))?;
            self.depth = Some(depth);
        }
        Ok(())
    }

    /// `ping n` and a wait for `pong n`; earlier output is dropped. Returns n.
    pub fn ping(&mut self, deadline: Option<Instant>) -> Result<u64> {
        self.ping += 1;
        let n = self.ping;
        self.process.send(&format!("ping {n}"))?;
        let what = format!("'pong {n}'");
        loop {
            let Some(line) = self.next_line(deadline, &what)? else {
                continue;
            };
            let words: Vec<&str> = line.split_whitespace().collect();
            if words.first() == Some(&"pong") {
                match words.get(1).and_then(|w| w.parse::<i64>().ok()) {
                    Some(m) if words.len() == 2 => {
                        if m == n as i64 {
                            return Ok(n);
                        }
                    }
                    _ => {
                        return Err(Error::new(
                            ErrorKind::Malformed,
                            format!("malformed pong waiting for 'pong {n}': '{line}'"),
                        ))
                    }
                }
            }
        }
    }

    /// Sends the game, the depth (if any) and a `ping`, and waits for its `pong`: the engine
    /// has then taken them. On an error the whole game is sent next time.
    pub fn prepare(
        &mut self,
        game: &GgfGame,
        depth: Option<u32>,
        deadline: Option<Instant>,
    ) -> Result<()> {
        let sent = (|| {
            self.set_game(game)?;
            if let Some(depth) = depth {
                self.set_depth(depth)?;
            }
            self.ping(deadline).map(|_| ())
        })();
        if sent.is_err() {
            self.sent = None;
        }
        sent
    }

    /// `go`, and its answer: the move with the `search`, `book` and `nodestats` lines before
    /// it. A malformed line or answer is [`ErrorKind::Malformed`].
    pub fn go(&mut self, deadline: Option<Instant>) -> Result<GoAnswer> {
        self.process.send("go")?;
        let mut lines = Vec::new();
        let mut nodes = None;
        let line = loop {
            let Some(line) = self.next_line(deadline, "the answer to 'go' ('=== ...')")? else {
                continue;
            };
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.first().copied() {
                Some("search" | "book") => lines.push(self.search_line(&line)?),
                Some("nodestats") => nodes = Some(self.nodestats(&line)?.0),
                _ if line.trim_start().starts_with("===") => break line,
                _ => {}
            }
        };
        // "=== MOVE/EVAL/TIME"; whitespace inside counts as "/" (Edax: "=== d6 -1.00 0.0").
        let rest = line.trim_start()[3..]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join("/");
        let fields: Vec<&str> = rest.split('/').collect();
        let mv = fields[0].parse::<Move>().map_err(|_| {
            Error::new(
                ErrorKind::Malformed,
                format!("go answered \"{}\", not a move", line.trim()),
            )
        })?;
        let field = |i: usize| fields.get(i).and_then(|text| number(text));
        Ok(GoAnswer {
            mv,
            eval: field(1),
            time: field(2),
            lines,
            nodes,
        })
    }

    fn search_line(&self, line: &str) -> Result<SearchLine> {
        parse_search_line(line).map_err(|why| {
            Error::new(
                ErrorKind::Malformed,
                format!("malformed line ({why}): '{line}'"),
            )
        })
    }

    /// `nodestats N S`: the nodes and the seconds.
    fn nodestats(&self, line: &str) -> Result<(u64, Option<f64>)> {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.get(1).and_then(|w| w.parse().ok()) {
            Some(nodes) => Ok((nodes, words.get(2).and_then(|w| number(w)))),
            None => Err(Error::new(
                ErrorKind::Malformed,
                format!("malformed line: '{line}'"),
            )),
        }
    }

    /// Starts `hint n` (the game prepared with [`NboardClient::prepare`]). Its lines are read
    /// with [`NboardClient::next_hint`]; the client stops it by itself at `stop_at`, gives up
    /// waiting at `deadline`, and allows the engine `stop_wait` to answer a stop.
    pub fn hint(
        &mut self,
        n: u32,
        stop_at: Option<Instant>,
        deadline: Option<Instant>,
        stop_wait: Duration,
    ) -> Result<()> {
        self.hint = None;
        self.process.send(&format!("hint {n}"))?;
        self.hint = Some(Hint {
            stop_at,
            deadline,
            stop_wait,
            ..Hint::default()
        });
        Ok(())
    }

    /// Whether a hint is running (started and its end not read).
    pub fn hinting(&self) -> bool {
        self.hint.is_some()
    }

    /// Asks a running hint to stop (a `ping`, which stops any search); its lines then end once
    /// the `pong` is read. Does nothing when no hint runs or a stop was already sent. With
    /// `wait`, the engine has that long from now to answer.
    pub fn stop_hint(&mut self, wait: Option<Duration>) -> Result<()> {
        let Some(hint) = &mut self.hint else {
            return Ok(());
        };
        if let Some(wait) = wait {
            let until = Instant::now() + wait;
            if let Some((_, deadline)) = &mut hint.stop {
                *deadline = until;
            }
            hint.stop_wait = wait;
        }
        if hint.stop.is_none() {
            self.ping += 1;
            let n = self.ping;
            hint.stop = Some((n, Instant::now() + hint.stop_wait));
            self.process.send(&format!("ping {n}"))?;
        }
        Ok(())
    }

    /// The next event of the running hint ([`HintEvent::End`] when none runs). An error ends
    /// the hint.
    pub fn next_hint(&mut self) -> Result<HintEvent> {
        let event = self.next_hint_event();
        if !matches!(event, Ok(HintEvent::Line(_) | HintEvent::NodeStats { .. })) {
            self.hint = None;
        }
        event
    }

    fn next_hint_event(&mut self) -> Result<HintEvent> {
        loop {
            let Some(hint) = &self.hint else {
                return Ok(HintEvent::End);
            };
            let wait_until = match (hint.stop, hint.stop_at) {
                (Some((_, until)), _) => Some(until),
                (None, Some(stop_at)) => Some(hint.deadline.map_or(stop_at, |d| d.min(stop_at))),
                (None, None) => hint.deadline,
            };
            let line = match self.next_line(wait_until, "analysis output") {
                Ok(Some(line)) => line,
                Ok(None) => continue,
                Err(err) if err.kind == ErrorKind::Timeout => {
                    let hint = self.hint.as_ref().expect("running");
                    if hint.stop.is_none() && hint.stop_at.is_some_and(|at| Instant::now() >= at) {
                        self.stop_hint(None)?;
                        continue;
                    }
                    return Err(Error::new(
                        ErrorKind::Timeout,
                        "the analysis did not end in time",
                    ));
                }
                Err(err) => return Err(err),
            };
            let words: Vec<&str> = line.split_whitespace().collect();
            let Some(&head) = words.first() else {
                continue;
            };
            let hint = self.hint.as_mut().expect("running");
            if head == "pong" {
                if matches!(hint.stop, Some((n, _)) if words[1..] == [n.to_string().as_str()]) {
                    return Ok(HintEvent::End);
                }
                continue;
            }
            if hint.ended {
                continue; // waiting for the stop's pong only
            }
            match head {
                "search" | "book" => {
                    let mut parsed = parse_search_line(&line).map_err(|why| {
                        Error::new(
                            ErrorKind::Malformed,
                            format!("malformed line ({why}): '{line}'"),
                        )
                    })?;
                    if parsed.book {
                        hint.book_rank += 1;
                        parsed.rank = hint.book_rank;
                    } else {
                        if hint.depth.as_deref() != Some(parsed.depth.as_str()) {
                            hint.depth = Some(parsed.depth.clone());
                            hint.rank = 0;
                        }
                        hint.rank += 1;
                        parsed.rank = hint.rank;
                    }
                    hint.any_line = true;
                    return Ok(HintEvent::Line(parsed));
                }
                "nodestats" => {
                    let depth = hint.depth.clone();
                    let (nodes, seconds) = self.nodestats(&line)?;
                    return Ok(HintEvent::NodeStats {
                        nodes,
                        seconds,
                        depth,
                    });
                }
                "status" => {
                    let text = line.trim().strip_prefix("status").unwrap_or("").trim();
                    if text == "game over" || (text.is_empty() && (hint.started || hint.any_line)) {
                        hint.ended = true;
                    } else if !text.is_empty() {
                        hint.started = true;
                    }
                    if hint.ended && hint.stop.is_none() {
                        return Ok(HintEvent::End);
                    }
                    // A stop crossed the end: its pong is still to come.
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_lines_are_read_with_their_pv_score_and_depth() {
        let line = parse_search_line("search F5-d6-PA-C3 -2.5,-1 0 12").unwrap();
        let pv: Vec<String> = line.pv.iter().map(Move::to_string).collect();
        assert_eq!(pv, ["F5", "D6", "PA", "C3"]);
        assert_eq!(
            (line.score, line.depth.as_str(), line.book),
            (Some(-2.5), "12", false)
        );
        let book = parse_search_line("book f5d6 nan 40 100%").unwrap();
        assert_eq!((book.score, book.games, book.book), (None, Some(40), true));
        assert_eq!(book.pv.len(), 2);
        assert!(parse_search_line("search F5 x 0 12").is_err());
        assert!(parse_search_line("search Z9 1 0 12").is_err());
        assert!(parse_search_line("search F5 1 0").is_err());
    }

    #[test]
    fn myname_lines_give_the_name() {
        assert_eq!(myname("set myname Edax 4.4"), Some("Edax 4.4".to_string()));
        assert_eq!(myname("set depth 3"), None);
    }
}
