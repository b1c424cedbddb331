//! The page of a review, `--html`: one self-contained page (inline CSS and script, nothing
//! fetched) with the board replayed move by move, the move list and the value graph
//! ([`tsuru_core::review::graph`]: one `<circle class="move ..." data-move="N">` a reviewed
//! move).
//!
//! The page's board is 64 cells `<div class="cell" data-square="a1" data-disc="black">`
//! (`black`, `white` or `empty`); the best move of the position shown carries `data-best`,
//! the move that led to it `data-last`. `goTo(n)` (a global function) or the address
//! `page.html#n` shows the position after move `n` (0: the start); the arrow keys, Home and
//! End step through the game, and a click on a move of the list or a point of the graph
//! goes to that move. A script error or a `console.error` is counted in the `<html>`
//! element's `data-errors` attribute (0 when none). All output is ASCII.

use std::fmt::Write as _;

use tsuru_core::board::{Board, Color, Square};
use tsuru_core::review::graph::{move_summary, svg_element, xml_escape, HEIGHT, MARGIN, WIDTH};
use tsuru_core::review::{decisive_text, mark_counts, value_text, GameRecord, Mark, Review};

/// A board as the page's script holds it: 64 characters, a1 first, `b`, `w` or `-`.
fn board_text(board: &Board) -> String {
    Square::ALL
        .iter()
        .map(|&s| match board.disc(s) {
            Some(Color::Black) => 'b',
            Some(Color::White) => 'w',
            None => '-',
        })
        .collect()
}

/// `text` as a JSON string that is safe inside a `<script>` element (no `<`).
fn script_string(text: &str) -> String {
    super::json_string(text).replace('<', "\\u003c")
}

const STYLE: &str = "\
body{font:14px sans-serif;margin:16px;color:#222;background:#fafafa}\
h1{font-size:18px;margin:0 0 4px;word-break:break-all}p{margin:2px 0}\
#main{display:flex;flex-wrap:wrap;gap:20px;align-items:flex-start;margin-top:10px}\
#right{flex:1;min-width:420px;max-width:760px}\
#board{display:grid;grid-template-columns:18px repeat(8,44px);grid-template-rows:18px repeat(8,44px);\
width:max-content}\
.label{font-size:11px;color:#555;display:flex;align-items:center;justify-content:center}\
.cell{background:#2e8b57;border:1px solid #1d5e3a;position:relative;cursor:default}\
.cell::after{content:'';position:absolute;inset:5px;border-radius:50%}\
.cell[data-disc=black]::after{background:#111;box-shadow:1px 1px 2px #000}\
.cell[data-disc=white]::after{background:#f4f4f4;box-shadow:1px 1px 2px #000}\
.cell[data-last]{box-shadow:inset 0 0 0 3px #e33}\
.cell[data-best]::before{content:'';position:absolute;inset:14px;border-radius:50%;\
border:3px solid #ffd700;z-index:1}\
#nav{margin:8px 0;display:flex;gap:6px;align-items:center}\
#info{width:390px;min-height:40px}\
#moves{list-style:none;margin:0;padding:0;display:grid;grid-auto-flow:column;column-gap:18px;\
justify-content:start}\
#moves li{padding:1px 4px;cursor:pointer;white-space:nowrap;font-family:monospace}\
#moves li.current{background:#cfe3f7}\
.loss.inaccuracy{color:#a08000}.loss.mistake{color:#e07000;font-weight:bold}\
.loss.blunder{color:#d00000;font-weight:bold}.loss.best{color:#2a7a2a}\
#graph{margin-top:14px}#graph svg{width:100%;height:auto}\
";

const SCRIPT: &str = r#"
(function () {
  var data = REVIEW;
  var cells = {};
  document.querySelectorAll('#board .cell').forEach(function (c) {
    cells[c.getAttribute('data-square')] = c;
  });
  var items = document.querySelectorAll('#moves li');
  var svg = document.querySelector('#graph svg');
  var cursor = document.createElementNS('http://www.w3.org/2000/svg', 'line');
  cursor.setAttribute('class', 'cursor');
  svg.appendChild(cursor);
  var names = {b: 'black', w: 'white', '-': 'empty'};
  var current = -1;
  function square(i) {
    return String.fromCharCode(97 + i % 8) + String.fromCharCode(49 + Math.floor(i / 8));
  }
  function goTo(n) {
    n = Math.max(0, Math.min(data.boards.length - 1, Number(n) || 0));
    current = n;
    var board = data.boards[n];
    for (var i = 0; i < 64; i++) {
      var c = cells[square(i)];
      c.setAttribute('data-disc', names[board.charAt(i)]);
      c.removeAttribute('data-best');
      c.removeAttribute('data-last');
    }
    var played = n > 0 ? data.moves[n - 1] : null;
    if (played && cells[played.move]) cells[played.move].setAttribute('data-last', '');
    var next = n < data.moves.length ? data.moves[n] : null;
    if (next && next.reviewed && cells[next.best]) cells[next.best].setAttribute('data-best', '');
    items.forEach(function (li) {
      li.classList.toggle('current', Number(li.getAttribute('data-move')) === n);
    });
    var item = document.querySelector('#moves li[data-move="' + n + '"]');
    if (item && item.scrollIntoView) item.scrollIntoView({block: 'nearest'});
    var text = n === 0 ? 'Start.' : 'After ' + played.summary + '.';
    var side = next ? next.side.charAt(0).toUpperCase() + next.side.slice(1) : '';
    if (n === data.moves.length) {
      text += ' ' + data.end;
    } else if (next.reviewed) {
      text += ' ' + side + ' to move; best ' + next.best + ' (' + next.best_value +
        ' for ' + next.side + ').';
    } else {
      text += ' ' + side + ' must pass.';
    }
    document.getElementById('info').textContent = text;
    document.getElementById('status').textContent = 'move ' + n + ' of ' + data.moves.length;
    var point = data.moves.length ? n / data.moves.length : 0;
    var box = data.plot;
    var x = String(box[0] + point * box[2]);
    cursor.setAttribute('x1', x);
    cursor.setAttribute('x2', x);
    cursor.setAttribute('y1', String(box[1]));
    cursor.setAttribute('y2', String(box[1] + box[3]));
    if (location.hash !== '#' + n) location.replace('#' + n);
  }
  window.goTo = goTo;
  function fromHash() {
    var n = parseInt(location.hash.slice(1), 10);
    goTo(isNaN(n) ? 0 : n);
  }
  window.addEventListener('hashchange', function () {
    if (location.hash !== '#' + current) fromHash();
  });
  document.addEventListener('keydown', function (e) {
    var to = {ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0,
              End: data.moves.length}[e.key];
    if (to !== undefined) {
      e.preventDefault();
      goTo(to);
    }
  });
  document.getElementById('moves').addEventListener('click', function (e) {
    var li = e.target.closest('li[data-move]');
    if (li) goTo(li.getAttribute('data-move'));
  });
  svg.addEventListener('click', function (e) {
    var point = e.target.closest('[data-move]');
    if (point) goTo(point.getAttribute('data-move'));
  });
  [['first', function () { return 0; }], ['back', function () { return current - 1; }],
   ['forward', function () { return current + 1; }],
   ['last', function () { return data.moves.length; }]].forEach(function (b) {
    document.getElementById(b[0]).addEventListener('click', function () { goTo(b[1]()); });
  });
  fromHash();
})();
"#;

/// The error counter, run before anything else: a script error or a `console.error` adds
/// one to `<html data-errors>`.
const ERRORS: &str = "\
(function(){var root=document.documentElement;\
function count(){root.setAttribute('data-errors',String(Number(root.getAttribute('data-errors'))+1));}\
window.addEventListener('error',count);\
var error=console.error;console.error=function(){count();return error.apply(console,arguments);};})();";

/// The `--html` page: one self-contained document (inline style, script and graph; nothing
/// fetched) replaying the game. `boards` are the game's positions, the start first and one
/// after each move (see [`tsuru_core::review::positions`]). See the module's description for what the
/// page holds and how a script or a test drives it.
pub fn html(record: &GameRecord, review: &Review, boards: &[Board]) -> String {
    assert_eq!(boards.len(), record.moves.len() + 1, "a board a move");
    let title = format!("Review: {}", record.name);
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\" data-errors=\"0\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{}</title>\n<script>{ERRORS}</script>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        xml_escape(&title)
    );
    let _ = writeln!(out, "<h1>{}</h1>", xml_escape(&record.name));
    if let [Some(black), Some(white)] = &record.players {
        let _ = writeln!(
            out,
            "<p>{} (black) - {} (white)</p>",
            xml_escape(black),
            xml_escape(white)
        );
    }
    let end = match review.result {
        Some(r) => format!("The game ended {r:+} for black."),
        None => "The game did not end.".to_string(),
    };
    let _ = writeln!(out, "<p>{}</p>", xml_escape(&end));
    for color in Color::ALL {
        let _ = writeln!(
            out,
            "<p>error total {color}: {:.1} discs ({})</p>",
            review.error_totals[color.index()],
            mark_counts(review, color)
        );
    }
    if let Some(text) = decisive_text(review) {
        let _ = writeln!(out, "<p>decisive move: {text}</p>");
    }
    // The board: a corner, the column letters, then each row's number and its 8 cells,
    // drawn at the start position (the script redraws them).
    out.push_str("<div id=\"main\">\n<div>\n<div id=\"board\">\n<div class=\"label\"></div>");
    for col in 'a'..='h' {
        let _ = write!(out, "<div class=\"label\">{col}</div>");
    }
    out.push('\n');
    let start = &boards[0];
    for row in 0..8 {
        let _ = write!(out, "<div class=\"label\">{}</div>", row + 1);
        for col in 0..8 {
            let square = Square::from_coords(col, row).expect("on the board");
            let disc = match start.disc(square) {
                Some(color) => color.to_string(),
                None => "empty".to_string(),
            };
            let _ = write!(
                out,
                "<div class=\"cell\" data-square=\"{square:#}\" data-disc=\"{disc}\"></div>"
            );
        }
        out.push('\n');
    }
    out.push_str(
        "</div>\n<div id=\"nav\"><button id=\"first\">|&lt;</button><button id=\"back\">&lt;\
         </button><button id=\"forward\">&gt;</button><button id=\"last\">&gt;|</button>\
         <span id=\"status\"></span></div>\n<div id=\"info\"></div>\n\
         <p>Keys: left and right arrows, Home, End. Click a move or a point of the graph.</p>\n\
         </div>\n<div id=\"right\">\n",
    );
    // Three columns of moves, filled down.
    let _ = writeln!(
        out,
        "<ol id=\"moves\" style=\"grid-template-rows:repeat({},auto)\">\n\
         <li data-move=\"0\">start</li>",
        (record.moves.len() + 1).div_ceil(3)
    );
    let mut reviewed = review.moves.iter().peekable();
    for (i, &mv) in record.moves.iter().enumerate() {
        let number = i + 1;
        let color = boards[i].side_to_move();
        match reviewed.next_if(|m| m.number == number) {
            Some(m) => {
                let _ = writeln!(
                    out,
                    "<li data-move=\"{number}\" class=\"{color}\" title=\"{}\">{number:>2}. {:#} \
                     <span class=\"loss {}\">{}</span></li>",
                    xml_escape(&move_summary(m)),
                    mv,
                    m.mark.name(),
                    if m.mark == Mark::Best {
                        "best".to_string()
                    } else {
                        format!("-{:.1}", m.loss)
                    }
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "<li data-move=\"{number}\" class=\"{color}\">{number:>2}. {mv:#}</li>"
                );
            }
        }
    }
    out.push_str("</ol>\n<div id=\"graph\">\n");
    out.push_str(&svg_element(record, review));
    out.push_str("</div>\n</div>\n</div>\n<script>\n");
    // The game's data: every position, and each move with its review.
    let mut data = String::from("{\"boards\": [");
    for (i, board) in boards.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        let _ = write!(data, "{sep}\n\"{}\"", board_text(board));
    }
    data.push_str("],\n\"moves\": [");
    let mut reviewed = review.moves.iter().peekable();
    for (i, &mv) in record.moves.iter().enumerate() {
        let number = i + 1;
        let sep = if i == 0 { "" } else { "," };
        let side = boards[i].side_to_move();
        let _ = write!(
            data,
            "{sep}\n{{\"move\": \"{mv:#}\", \"side\": \"{side}\", "
        );
        match reviewed.next_if(|m| m.number == number) {
            Some(m) => {
                let _ = write!(
                    data,
                    "\"reviewed\": true, \"best\": \"{:#}\", \"best_value\": \"{}\", \
                     \"summary\": {}}}",
                    m.best,
                    value_text(m.best_value, m.exact),
                    script_string(&move_summary(m))
                );
            }
            None => {
                let _ = write!(
                    data,
                    "\"reviewed\": false, \"summary\": {}}}",
                    script_string(&format!("{number}. {side} passes"))
                );
            }
        }
    }
    let [left, right, top, bottom] = MARGIN;
    let _ = write!(
        data,
        "],\n\"end\": {},\n\"plot\": [{left}, {top}, {}, {}]}}",
        script_string(&end),
        WIDTH - left - right,
        HEIGHT - top - bottom
    );
    out.push_str(&SCRIPT.replace("REVIEW", &data));
    out.push_str("</script>\n</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsuru_core::board::notation;

    #[test]
    fn script_strings_cannot_end_the_script() {
        assert_eq!(script_string("</script>"), "\"\\u003c/script>\"");
    }

    #[test]
    fn the_page_holds_every_position_and_escapes_the_names() {
        let (record, review) = tsuru_core::review::example_review();
        let boards = tsuru_core::review::positions(&record.start, &record.moves).unwrap();
        let page = html(&record, &review, &boards);
        assert!(page.is_ascii());
        assert!(page.contains("Ann &amp; &lt;Bo&gt; (black) - Z&#xf6;e (white)"));
        assert_eq!(page.matches("data-square=").count(), 64);
        for board in &boards {
            assert!(page.contains(&format!("\"{}\"", board_text(board))));
        }
        // A move a list entry, and the start.
        assert_eq!(page.matches("<li data-move=").count(), 4);
        assert!(page.contains(
            "{\"move\": \"f6\", \"side\": \"white\", \"reviewed\": true, \"best\": \"d6\""
        ));
    }

    #[test]
    fn a_board_is_64_characters_a1_first() {
        let mut board = Board::start();
        notation::play_moves(&mut board, &notation::parse_transcript("f5").unwrap()).unwrap();
        let text = board_text(&board);
        assert_eq!(text.len(), 64);
        // d4 (index 27) stays white, e4 black; f5 (index 37) flipped e5: d5 to f5 are black.
        assert_eq!(&text[24..40], "---wb------bbb--");
    }
}
