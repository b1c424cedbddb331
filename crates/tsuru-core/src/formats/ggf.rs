//! GGF game records, read and written as NBoard and GGS produce them.
//!
//! A record is `(;` followed by tags `NAME[value]` and closed by `;)`, optionally preceded by
//! a GGS match count (`1 `). Tags are split on brackets, never on spaces (player names and
//! dates contain spaces; `]` is not escaped). The tags that matter to an engine:
//!
//! * `GM[Othello]` (required); `TY[8]` the match type: board size 8, with any of the letters
//!   `s` (synchro), `k` (komi), `r<n>` (rand), `b`/`w` (colour) -- `a` (anti) is refused;
//! * `BO[8 <64 squares> <side>]` the start position (whitespace between squares allowed;
//!   `*` to move is Black, anything else White);
//! * `B[move/eval/time]`, `W[...]` the moves in order, passes written `PA` or `pass`; eval and
//!   time are parsed leniently and never reject a record;
//! * `TI`, `TB`, `TW` clocks `main[/increment[/grace]]`, each `[days.][hours:][minutes:]seconds`.
//!
//! Every other tag is kept, in order, and written back. Moves are replayed on load: an
//! illegal one rejects the record, and where a side with no legal move is skipped over (the
//! other colour moves twice in a row) its pass is inserted, as NBoard does.

use std::fmt;
use std::str::FromStr;

use anyhow::{anyhow, bail, Context, Result};

use super::lenient_number;
use crate::board::{notation, Board, Color, Move, Square};

/// Default grace period of a GGF clock, in seconds.
pub const DEFAULT_GRACE_SECONDS: f64 = 120.0;

/// One move of a record with its optional eval (discs, mover's view) and time (seconds).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GgfMove {
    /// The move played.
    pub mv: Move,
    /// The mover's evaluation in discs, if given.
    pub eval: Option<f64>,
    /// Seconds the mover used, if given.
    pub seconds: Option<f64>,
}

impl GgfMove {
    /// A move with no eval and no time.
    pub fn bare(mv: Move) -> GgfMove {
        GgfMove {
            mv,
            eval: None,
            seconds: None,
        }
    }
}

/// Parses a move token `<move>[/<eval>[/<time>]]` as NBoard sends it in `move` and in GGF:
/// the move is exactly a square (two characters, any case) or a pass (`PA`, `pass`, any
/// prefix of `PASS`, `--`); anything else (`A10`, `D33`, `F5x`) is an error, so that a
/// malformed square is never read as another square. A blank or unparsable eval or time
/// becomes `None`.
pub fn parse_move_token(text: &str) -> Result<GgfMove> {
    let mut parts = text.trim().split('/');
    let move_text = parts.next().unwrap_or("").trim();
    let mv = parse_lenient_move(move_text)?;
    let eval = parts.next().and_then(lenient_number);
    let seconds = parts.next().and_then(lenient_number);
    Ok(GgfMove { mv, eval, seconds })
}

fn parse_lenient_move(text: &str) -> Result<Move> {
    let lower = text.to_ascii_lowercase();
    if lower == "--" || (!lower.is_empty() && "pass".starts_with(&lower)) {
        return Ok(Move::Pass);
    }
    if let Ok(square) = lower.parse::<Square>() {
        return Ok(Move::Play(square));
    }
    bail!("not a move: {:?}", text.escape_debug().to_string())
}

impl fmt::Display for GgfMove {
    /// NBoard's form: `F5`, `F5//3.1` (time, no eval), `D6/-0.40/0.52`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.mv)?;
        if self.eval.is_none() && self.seconds.is_none() {
            return Ok(());
        }
        f.write_str("/")?;
        if let Some(eval) = self.eval {
            write!(f, "{eval:.2}")?;
        }
        if let Some(seconds) = self.seconds {
            write!(f, "/{seconds}")?;
        }
        Ok(())
    }
}

/// A GGF clock: main time, increment added after each move, and a grace period granted once
/// when the main time runs out. All in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GgfClock {
    /// Starting time in seconds.
    pub main: f64,
    /// Seconds added after each of the player's moves.
    pub increment: f64,
    /// Seconds granted once when the clock first goes negative.
    pub grace: f64,
}

impl GgfClock {
    /// Parses `main[/increment[/grace]]`; a blank part takes its default (0 s increment,
    /// 120 s grace).
    pub fn parse(text: &str) -> Result<GgfClock> {
        let mut parts = text.split('/');
        let main = parse_clock_part(parts.next().unwrap_or(""))?.unwrap_or(0.0);
        let increment = parse_clock_part(parts.next().unwrap_or(""))?.unwrap_or(0.0);
        let grace = parse_clock_part(parts.next().unwrap_or(""))?.unwrap_or(DEFAULT_GRACE_SECONDS);
        if parts.next().is_some() {
            bail!("clock {text:?} has more than three parts");
        }
        Ok(GgfClock {
            main,
            increment,
            grace,
        })
    }

    /// Whether the clock means "no time limit" (a starting clock of 0 and no increment).
    pub fn is_untimed(&self) -> bool {
        self.main == 0.0 && self.increment == 0.0
    }

    /// The time left after moves that used `spent` seconds each, as NBoard computes it.
    pub fn time_left(&self, spent: impl IntoIterator<Item = f64>) -> f64 {
        let mut left = self.main;
        let mut grace_used = false;
        for seconds in spent {
            left -= seconds;
            if left < 0.0 && !grace_used {
                left += self.grace;
                grace_used = true;
            }
            left += self.increment;
        }
        left
    }
}

impl fmt::Display for GgfClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_clock_part(self.main))?;
        if self.grace != DEFAULT_GRACE_SECONDS {
            let increment = if self.increment == 0.0 {
                String::new()
            } else {
                format_clock_part(self.increment)
            };
            write!(f, "/{}/{}", increment, format_clock_part(self.grace))
        } else if self.increment != 0.0 {
            write!(f, "/{}", format_clock_part(self.increment))
        } else {
            Ok(())
        }
    }
}

/// `[days.][hours:][minutes:]seconds` in seconds; `None` when blank.
fn parse_clock_part(text: &str) -> Result<Option<f64>> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let bad = || anyhow!("bad clock value {text:?}");
    let (days, rest) = match (text.find('.'), text.find(':')) {
        (Some(dot), Some(colon)) if dot < colon => (&text[..dot], &text[dot + 1..]),
        _ => ("0", text),
    };
    let days: f64 = days.parse().map_err(|_| bad())?;
    let mut total = 0.0;
    let fields: Vec<&str> = rest.split(':').collect();
    if fields.len() > 3 {
        return Err(bad());
    }
    for field in &fields {
        let value: f64 = field.trim().parse().map_err(|_| bad())?;
        if !value.is_finite() || value < 0.0 {
            return Err(bad());
        }
        total = total * 60.0 + value;
    }
    let total = days * 86400.0 + total;
    if !total.is_finite() || total < 0.0 {
        return Err(bad());
    }
    Ok(Some(total))
}

/// Seconds as `M:SS` when whole and at least a minute, else plain seconds.
fn format_clock_part(seconds: f64) -> String {
    if seconds.fract() == 0.0 && seconds >= 60.0 {
        let whole = seconds as u64;
        format!("{}:{:02}", whole / 60, whole % 60)
    } else {
        format!("{seconds}")
    }
}

/// A validated game record: a start position and a legal sequence of moves.
#[derive(Clone, Debug)]
pub struct GgfGame {
    start: Board,
    moves: Vec<GgfMove>,
    board: Board,
    /// Tags other than GM, TY, BO, B, W, TI, TB, TW, in the order read (PC, DT, PB, PW, RE...).
    pub tags: Vec<(String, String)>,
    /// The match type as written (`8` unless the record said otherwise).
    pub match_type: String,
    /// Black's and White's clocks (`None` for a record without one).
    pub clocks: [Option<GgfClock>; 2],
}

impl Default for GgfGame {
    fn default() -> GgfGame {
        GgfGame::new(Board::start())
    }
}

impl GgfGame {
    /// A game with no moves from `start` (its history is dropped), untimed, no other tags.
    pub fn new(start: Board) -> GgfGame {
        let start = start.without_history();
        GgfGame {
            board: start.clone(),
            start,
            moves: Vec::new(),
            tags: Vec::new(),
            match_type: "8".into(),
            clocks: [None, None],
        }
    }

    /// Parses and validates a record (see the module doc). On error nothing is returned.
    pub fn parse(text: &str) -> Result<GgfGame> {
        let body = record_body(text)?;
        let mut game = GgfGame::new(Board::start());
        let mut saw_gm = false;
        let mut saw_bo = false;
        let mut moves: Vec<(Color, GgfMove)> = Vec::new();
        for (name, value) in tags(body)? {
            match name {
                "GM" => {
                    if !value.trim().eq_ignore_ascii_case("othello") {
                        bail!("not an Othello game: GM[{}]", value.trim());
                    }
                    saw_gm = true;
                }
                "TY" => {
                    check_match_type(value)?;
                    game.match_type = value.trim().to_string();
                }
                "BO" => {
                    if !moves.is_empty() {
                        bail!("BO comes after the first move");
                    }
                    game.start = parse_bo(value)?;
                    saw_bo = true;
                }
                "B" | "W" => {
                    let color = if name == "B" {
                        Color::Black
                    } else {
                        Color::White
                    };
                    let mv = parse_move_token(value)
                        .with_context(|| format!("move {} {name}[{value}]", moves.len() + 1))?;
                    moves.push((color, mv));
                }
                "TI" => {
                    let clock = GgfClock::parse(value).context("TI")?;
                    game.clocks = [Some(clock), Some(clock)];
                }
                "TB" => game.clocks[0] = Some(GgfClock::parse(value).context("TB")?),
                "TW" => game.clocks[1] = Some(GgfClock::parse(value).context("TW")?),
                _ => game.tags.push((name.to_string(), value.to_string())),
            }
        }
        if !saw_gm {
            bail!("no GM[Othello] tag");
        }
        if !saw_bo {
            bail!("no BO (board) tag");
        }
        game.board = game.start.clone();
        for (i, (color, mv)) in moves.into_iter().enumerate() {
            game.replay(color, mv)
                .with_context(|| format!("move {} ({} {})", i + 1, color, mv.mv))?;
        }
        Ok(game)
    }

    /// Plays one move of `color` while loading, inserting the other side's pass when that side
    /// had no legal move.
    fn replay(&mut self, color: Color, mv: GgfMove) -> Result<()> {
        if self.board.is_game_over() {
            bail!("the game is already over");
        }
        if self.board.side_to_move() != color {
            if !self.board.must_pass() {
                bail!("it is {}'s turn", self.board.side_to_move());
            }
            self.board.make_pass();
            self.moves.push(GgfMove::bare(Move::Pass));
        }
        self.board.play(mv.mv)?;
        self.moves.push(mv);
        Ok(())
    }

    /// The start position (no history).
    pub fn start(&self) -> &Board {
        &self.start
    }

    /// The moves, passes included.
    pub fn moves(&self) -> &[GgfMove] {
        &self.moves
    }

    /// The position after all moves, with the moves as its history.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Appends a move by the side to move; passes only when forced. On error the game is
    /// unchanged.
    pub fn push(&mut self, mv: GgfMove) -> Result<()> {
        self.board.play(mv.mv)?;
        self.moves.push(mv);
        Ok(())
    }

    /// Removes the last move (passes included) and returns it, or `None` with no moves.
    pub fn pop(&mut self) -> Option<GgfMove> {
        let mv = self.moves.pop()?;
        self.board.undo();
        Some(mv)
    }

    /// The clock of `color`, if the game is timed for it.
    pub fn clock(&self, color: Color) -> Option<GgfClock> {
        self.clocks[color.index()].filter(|clock| !clock.is_untimed())
    }

    /// Seconds left on `color`'s clock after the moves (`None` when untimed).
    pub fn time_left(&self, color: Color) -> Option<f64> {
        let clock = self.clock(color)?;
        Some(clock.time_left(self.seconds_of(color)))
    }

    /// The seconds recorded for `color`'s moves, summed (a move without a time counts 0).
    pub fn seconds_spent(&self, color: Color) -> f64 {
        self.seconds_of(color).sum()
    }

    /// The seconds recorded for each of `color`'s moves, in order (0 where none is given).
    fn seconds_of(&self, color: Color) -> impl Iterator<Item = f64> + '_ {
        let first = self.start.side_to_move();
        self.moves.iter().enumerate().filter_map(move |(i, mv)| {
            let mover = if i % 2 == 0 { first } else { first.opponent() };
            (mover == color).then(|| mv.seconds.unwrap_or(0.0))
        })
    }

    /// The record in NBoard's normal form: `(;GM[Othello]` other tags, clocks, `TY`, `BO`,
    /// the moves, `;)`.
    pub fn to_ggf(&self) -> String {
        let mut out = String::from("(;GM[Othello]");
        for (name, value) in &self.tags {
            out.push_str(&format!("{name}[{value}]"));
        }
        match self.clocks {
            [Some(black), Some(white)] if black == white => {
                out.push_str(&format!("TI[{black}]"));
            }
            [black, white] => {
                if let Some(clock) = black {
                    out.push_str(&format!("TB[{clock}]"));
                }
                if let Some(clock) = white {
                    out.push_str(&format!("TW[{clock}]"));
                }
            }
        }
        out.push_str(&format!("TY[{}]", self.match_type));
        let squares = notation::board_to_string(&self.start);
        let side = if self.start.side_to_move() == Color::Black {
            '*'
        } else {
            'O'
        };
        out.push_str(&format!(
            "BO[8 {} {}]",
            &squares[..64].replace('X', "*"),
            side
        ));
        let mut mover = self.start.side_to_move();
        for mv in &self.moves {
            let tag = if mover == Color::Black { 'B' } else { 'W' };
            out.push_str(&format!("{tag}[{mv}]"));
            mover = mover.opponent();
        }
        out.push_str(";)");
        out
    }
}

impl FromStr for GgfGame {
    type Err = anyhow::Error;

    fn from_str(text: &str) -> Result<GgfGame> {
        GgfGame::parse(text)
    }
}

impl fmt::Display for GgfGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_ggf())
    }
}

/// The text between `(;` and the closing `;)`, after an optional leading match count.
fn record_body(text: &str) -> Result<&str> {
    let text = text.trim();
    let text = text
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start();
    let body = text
        .strip_prefix("(;")
        .ok_or_else(|| anyhow!("a GGF record starts with \"(;\""))?;
    let end = body
        .rfind(";)")
        .ok_or_else(|| anyhow!("the GGF record is not closed with \";)\""))?;
    if !body[end + 2..].trim().is_empty() {
        bail!("text after the end of the GGF record");
    }
    Ok(&body[..end])
}

/// Splits a record body into `(NAME, value)` pairs.
fn tags(body: &str) -> Result<Vec<(&str, &str)>> {
    let mut out = Vec::new();
    let mut rest = body;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return Ok(out);
        }
        let open = rest
            .find('[')
            .ok_or_else(|| anyhow!("text without a tag: {:?}", short(rest)))?;
        let name = rest[..open].trim();
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric()) {
            bail!("bad tag name {:?}", short(name));
        }
        let close = rest[open..]
            .find(']')
            .map(|i| open + i)
            .ok_or_else(|| anyhow!("tag {name} is not closed"))?;
        out.push((name, &rest[open + 1..close]));
        rest = &rest[close + 1..];
    }
}

fn short(text: &str) -> String {
    text.chars()
        .take(20)
        .collect::<String>()
        .escape_debug()
        .to_string()
}

/// Accepts board size 8 with the letters s, k, b, w and r<n>; refuses anti and other sizes.
fn check_match_type(value: &str) -> Result<()> {
    let value = value.trim();
    let mut size = String::new();
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '0'..='9' => size.push(c),
            's' | 'k' | 'b' | 'w' => {}
            'r' => {
                while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                    chars.next();
                }
            }
            'a' => bail!("anti Othello (TY[{value}]) is not supported"),
            _ => bail!("unknown match type TY[{value}]"),
        }
    }
    if size != "8" {
        bail!("board size {size:?} is not supported (only 8)");
    }
    Ok(())
}

/// `8 <64 squares> <side>`: only size 8; `*` to move is Black, anything else White.
fn parse_bo(value: &str) -> Result<Board> {
    let value = value.trim_start();
    let size_len = value
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(value.len());
    if &value[..size_len] != "8" {
        bail!(
            "board size {:?} is not supported (only 8)",
            &value[..size_len]
        );
    }
    let cells: Vec<char> = value[size_len..]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    if cells.len() != 65 {
        bail!(
            "BO needs 64 squares and a side to move, found {} characters",
            cells.len()
        );
    }
    let side = if cells[64] == '*' { 'X' } else { 'O' };
    let squares: String = cells[..64].iter().collect();
    notation::parse_board(&format!("{squares} {side}")).context("BO")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_parts() {
        assert_eq!(parse_clock_part("5:00").unwrap(), Some(300.0));
        assert_eq!(parse_clock_part("05:00").unwrap(), Some(300.0));
        assert_eq!(parse_clock_part("1:00:00").unwrap(), Some(3600.0));
        assert_eq!(parse_clock_part("1.00:00:10").unwrap(), Some(86410.0));
        assert_eq!(parse_clock_part("2.5").unwrap(), Some(2.5));
        assert_eq!(parse_clock_part("").unwrap(), None);
        assert!(parse_clock_part("5:xx").is_err());
        assert!(parse_clock_part("1:2:3:4").is_err());
        assert!(parse_clock_part("-5").is_err());
    }

    #[test]
    fn clocks_parse_and_print() {
        let clock = GgfClock::parse("05:00//02:00").unwrap();
        assert_eq!(
            (clock.main, clock.increment, clock.grace),
            (300.0, 0.0, 120.0)
        );
        assert_eq!(clock.to_string(), "5:00");
        let odd = GgfClock::parse("10:00/5/1:00").unwrap();
        assert_eq!(odd.to_string(), "10:00/5/1:00");
        assert_eq!(GgfClock::parse(&odd.to_string()).unwrap(), odd);
        assert!(GgfClock::parse("0").unwrap().is_untimed());
        assert!(GgfClock::parse("1/2/3/4").is_err());
    }

    #[test]
    fn time_left_adds_grace_once_and_increments() {
        let clock = GgfClock {
            main: 10.0,
            increment: 1.0,
            grace: 5.0,
        };
        assert_eq!(clock.time_left([3.0]), 8.0);
        // 10 - 12 = -2, + 5 grace = 3, + 1 = 4; then 4 - 6 = -2 (no more grace), + 1 = -1.
        assert_eq!(clock.time_left([12.0, 6.0]), -1.0);
    }

    #[test]
    fn move_tokens_are_lenient_in_their_fields_and_strict_in_their_square() {
        let t = parse_move_token("D6/-0.40/0.52").unwrap();
        assert_eq!(
            (t.mv.to_string(), t.eval, t.seconds),
            ("D6".into(), Some(-0.4), Some(0.52))
        );
        let t = parse_move_token("F5//1.5").unwrap();
        assert_eq!((t.eval, t.seconds), (None, Some(1.5)));
        let t = parse_move_token("f5/1,23/5.0E-4").unwrap();
        assert_eq!((t.eval, t.seconds), (Some(1.23), Some(0.0005)));
        assert_eq!(parse_move_token("PA//2.1").unwrap().mv, Move::Pass);
        assert_eq!(parse_move_token("pass").unwrap().mv, Move::Pass);
        assert_eq!(parse_move_token("P").unwrap().mv, Move::Pass);
        assert_eq!(parse_move_token("F5/junk/junk").unwrap().eval, None);
        // A square is two characters: nothing after it is ignored (A10 is not A1).
        for bad in [
            "", "Z9", "f", "f9", "/1/2", "f5-d6", "A10", "D33", "F5x", "f5x/1/2", "a1a",
        ] {
            assert!(parse_move_token(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn move_tokens_print_in_nboard_form() {
        let mv = |text: &str| parse_move_token(text).unwrap().to_string();
        assert_eq!(mv("f5"), "F5");
        assert_eq!(mv("F5//3.1"), "F5//3.1");
        assert_eq!(mv("D6/-0.4/0.52"), "D6/-0.40/0.52");
        assert_eq!(mv("F6/0.48"), "F6/0.48");
        assert_eq!(mv("pass"), "PA");
    }

    #[test]
    fn match_types() {
        for ok in ["8", "s8", "8r20", "8k", "8b", " 8 "] {
            assert!(check_match_type(ok).is_ok(), "{ok}");
        }
        for bad in ["10", "8a", "a8", "", "8z"] {
            assert!(check_match_type(bad).is_err(), "{bad}");
        }
    }
}
