//! Text forms of positions and games, parsed at the edge into typed values.
//!
//! * **Board strings**: 64 square characters from a1 across to h1, then a2 ... h8, followed by
//!   the side to move. Black discs are `X`, `*` or `x`; White `O`, `o` or `0`; empty `-`, `.`
//!   or `_`. Whitespace between squares is skipped (rows may be spaced); the side is `X`/`*`/`x`
//!   (or `B`) for Black and `O`/`o`/`0` (or `W`) for White.
//! * **Transcripts**: moves run together or separated by spaces or commas, e.g. `f5d6c3` or
//!   `F5 D6 C3`; passes may be written `pa`/`PA`/`--` but may also be left out, in which case
//!   they are inserted where the side to move has no legal move.
//! * **Diagrams**: ASCII, row 1 on top, for humans and GTP's `showboard`.

use anyhow::{anyhow, bail, Context, Result};

use super::{Board, Color, Move, Square};

/// Parses a board string (64 squares and the side to move) into a position with no history.
/// Anything after the side character (an OBF `;`, comments) is ignored.
pub fn parse_board(text: &str) -> Result<Board> {
    let mut squares = [None; 64];
    let mut chars = text.chars().filter(|c| !c.is_whitespace());
    for (i, slot) in squares.iter_mut().enumerate() {
        let c = chars
            .next()
            .ok_or_else(|| anyhow!("board string has only {i} of 64 squares"))?;
        *slot = match c {
            '-' | '.' | '_' => None,
            _ => Some(
                Color::from_symbol(c)
                    .filter(|_| !matches!(c, 'B' | 'b' | 'W' | 'w'))
                    .ok_or_else(|| anyhow!("unexpected character {:?} in board string", c))?,
            ),
        };
    }
    let side_char = chars
        .next()
        .ok_or_else(|| anyhow!("board string has no side to move"))?;
    let side = Color::from_symbol(side_char)
        .ok_or_else(|| anyhow!("unexpected side to move {:?}", side_char))?;
    let mut discs = [0u64; 2];
    for (square, disc) in Square::ALL.iter().zip(squares) {
        if let Some(color) = disc {
            discs[color.index()] |= square.bit();
        }
    }
    Board::from_discs(discs[0], discs[1], side)
}

/// The 64 squares (`X`, `O`, `-`), a space and the side to move (`X` or `O`).
pub fn board_to_string(board: &Board) -> String {
    let mut text: String = Square::ALL
        .iter()
        .map(|&sq| board.disc(sq).map_or('-', Color::symbol))
        .collect();
    text.push(' ');
    text.push(board.side_to_move().symbol());
    text
}

/// Parses a transcript into moves (passes only where written).
pub fn parse_transcript(text: &str) -> Result<Vec<Move>> {
    let compact: Vec<char> = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != ',')
        .collect();
    if !compact.len().is_multiple_of(2) {
        bail!("transcript has an odd number of characters");
    }
    compact
        .chunks(2)
        .map(|pair| {
            let token: String = pair.iter().collect();
            token.parse::<Move>()
        })
        .collect()
}

/// Plays moves from `board`'s position, inserting a pass wherever a side with no legal move
/// is given a square (transcripts usually leave passes out). On error `board` is unchanged
/// and the message names the offending move.
pub fn play_moves(board: &mut Board, moves: &[Move]) -> Result<()> {
    let mut work = board.clone();
    for (i, &mv) in moves.iter().enumerate() {
        if let Move::Play(_) = mv {
            if work.must_pass() {
                work.make_pass();
            }
        }
        work.play(mv)
            .with_context(|| format!("move {} ({})", i + 1, mv))?;
    }
    *board = work;
    Ok(())
}

/// Writes moves as a lower-case transcript (`f5d6c3`), leaving passes out.
pub fn transcript(moves: impl IntoIterator<Item = Move>) -> String {
    moves
        .into_iter()
        .filter_map(Move::square)
        .map(|sq| sq.lower())
        .collect()
}

/// An ASCII diagram with row 1 on top, e.g. for GTP's `showboard`:
///
/// ```text
///   A B C D E F G H
/// 1 - - - - - - - - 1
/// ...
/// 4 - - - O X - - - 4
/// ...
///   A B C D E F G H
/// Black (X) to move; X 2, O 2, empty 60
/// ```
pub fn diagram(board: &Board) -> String {
    let mut out = String::from("  A B C D E F G H\n");
    for row in 0..8 {
        out.push_str(&format!("{} ", row + 1));
        for col in 0..8 {
            let square = Square::from_coords(col, row).expect("in range");
            out.push(board.disc(square).map_or('-', Color::symbol));
            out.push(' ');
        }
        out.push_str(&format!("{}\n", row + 1));
    }
    out.push_str("  A B C D E F G H\n");
    let state = if board.is_game_over() {
        "game over".to_string()
    } else {
        let side = board.side_to_move();
        let name = if side == Color::Black {
            "Black"
        } else {
            "White"
        };
        format!("{} ({}) to move", name, side.symbol())
    };
    out.push_str(&format!(
        "{}; X {}, O {}, empty {}",
        state,
        board.count(Color::Black),
        board.count(Color::White),
        board.empties()
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "---------------------------OX------XO--------------------------- X";

    #[test]
    fn board_strings_round_trip_and_accept_every_symbol() {
        let board = parse_board(START).unwrap();
        assert_eq!(board, Board::start());
        assert_eq!(board_to_string(&board), START);
        let spaced = "-------- -------- -------- ---o*--- ---*0--- ________ ........ -------- *";
        assert_eq!(parse_board(spaced).unwrap(), Board::start());
        let white = parse_board(&START.replace(" X", " o;")).unwrap();
        assert_eq!(white.side_to_move(), Color::White);
    }

    #[test]
    fn bad_board_strings_are_errors() {
        for bad in [
            "",
            "--- X",
            &START.replace(" X", ""),
            &START.replace(" X", " Q"),
            &START.replace("OX", "OZ"),
        ] {
            assert!(parse_board(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn transcripts_insert_missing_passes() {
        let moves = parse_transcript("f5d6c3d3c4f4f6f3e6e7").unwrap();
        let mut board = Board::start();
        play_moves(&mut board, &moves).unwrap();
        assert_eq!(board.ply(), 10);
        assert_eq!(transcript(board.history()), "f5d6c3d3c4f4f6f3e6e7");
        assert_eq!(parse_transcript("F5 D6, c3").unwrap().len(), 3);

        // a1 White, b1 Black, Black to move: Black has no move, White has c1. A White square
        // gets Black's pass inserted before it.
        let mut board = parse_board(&format!("OX{} X", "-".repeat(62))).unwrap();
        assert!(board.must_pass());
        play_moves(&mut board, &parse_transcript("c1").unwrap()).unwrap();
        assert_eq!(
            board.history().collect::<Vec<_>>(),
            [Move::Pass, "c1".parse().unwrap()]
        );
    }

    #[test]
    fn illegal_transcripts_leave_the_board_unchanged() {
        let mut board = Board::start();
        let err = play_moves(&mut board, &parse_transcript("f5a1").unwrap()).unwrap_err();
        assert!(format!("{err:#}").contains("move 2"));
        assert_eq!(board, Board::start());
        assert_eq!(board.ply(), 0);
        assert!(parse_transcript("f5d").is_err());
        assert!(parse_transcript("f5z9").is_err());
    }

    #[test]
    fn diagram_has_row_one_on_top() {
        let text = diagram(&Board::start());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "  A B C D E F G H");
        assert_eq!(lines[1], "1 - - - - - - - - 1");
        assert_eq!(lines[4], "4 - - - O X - - - 4");
        assert_eq!(lines[5], "5 - - - X O - - - 5");
        assert!(lines[10].starts_with("Black (X) to move"));
    }
}
