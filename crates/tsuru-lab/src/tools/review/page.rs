//! The pictures of a review: `--svg`, the value along the game as an SVG graph, and `--html`,
//! one self-contained page (inline CSS and script, nothing fetched) with the board replayed
//! move by move, the move list and the graph.
//!
//! The graph plots the value for Black (in discs, positive when Black is ahead) after every
//! reviewed move, one `<circle class="move ...">` a move, in game order, with `data-move`
//! the move's number; its classes name the player and the mark, so mistakes and blunders
//! stand out (a coloured ring). Forced passes are no choice and get no point.
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

use super::{outcome_name, value_text, GameRecord, Mark, MoveReview, Review};

/// The graph's size in SVG user units (the page scales it to its width).
const WIDTH: f64 = 760.0;
/// See [`WIDTH`].
const HEIGHT: f64 = 300.0;
/// The plot's margins: left (value labels), right, top (title), bottom (move labels).
const MARGIN: [f64; 4] = [48.0, 14.0, 26.0, 34.0];

/// `text` escaped for XML and HTML text and attribute values: `& < > " '` as entities and
/// every non-ASCII character as a numeric reference, so the output is ASCII.
pub fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_ascii_graphic() || c == ' ' => out.push(c),
            // Control characters are not allowed in XML 1.0, even as references.
            c if c.is_ascii() => out.push(' '),
            c => {
                let _ = write!(out, "&#x{:x};", u32::from(c));
            }
        }
    }
    out
}

/// A move's value for Black, in discs.
fn for_black(m: &MoveReview) -> f64 {
    match m.color {
        Color::Black => m.value,
        Color::White => -m.value,
    }
}

/// A value as the pictures write it: whole discs when exact, else to a tenth.
/// The value range the graph shows, `-range..=range` discs: the largest value rounded up
/// to a multiple of 8, at least 8 and at most 64 (a value can never lie beyond).
fn value_range(review: &Review) -> f64 {
    let largest = review
        .moves
        .iter()
        .map(|m| for_black(m).abs())
        .fold(review.start_value.abs(), f64::max);
    ((largest / 8.0).ceil() * 8.0).clamp(8.0, 64.0)
}

/// One line of text about a reviewed move, for a point's tooltip and the page.
fn move_summary(m: &MoveReview) -> String {
    let mut text = format!(
        "{}. {} {:#}: {} for black",
        m.number,
        m.color,
        m.played,
        value_text(for_black(m), m.exact)
    );
    if m.mark == Mark::Best {
        let _ = write!(text, ", best");
    } else {
        let _ = write!(
            text,
            "; best {:#} ({}), lost {:.1}: {}",
            m.best,
            value_text(m.best_value, m.exact),
            m.loss,
            m.mark.name()
        );
    }
    if !m.exact {
        text.push_str(" (by the search)");
    }
    text
}

/// The graph of the value along the game as an `<svg>` element (no XML declaration): the
/// value for Black after each reviewed move, one `<circle class="move COLOR MARK"
/// data-move="N">` a move in game order, inside a self-contained picture of `WIDTH` by
/// `HEIGHT` units (its own style, no external reference). The x axis runs from the start
/// (0) to the last move's number; the y axis is clamped to the [`value_range`].
pub fn svg_element(record: &GameRecord, review: &Review) -> String {
    let [left, right, top, bottom] = MARGIN;
    let (plot_w, plot_h) = (WIDTH - left - right, HEIGHT - top - bottom);
    let last = record.moves.len().max(1) as f64;
    let range = value_range(review);
    let x = |number: usize| left + number as f64 * plot_w / last;
    let y = |value: f64| top + (range - value.clamp(-range, range)) * plot_h / (2.0 * range);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"review-graph\" viewBox=\"0 0 {WIDTH} \
         {HEIGHT}\" width=\"{WIDTH}\" height=\"{HEIGHT}\" role=\"img\">"
    );
    let _ = writeln!(
        out,
        "<title>{}: value for black along the game</title>",
        xml_escape(&record.name)
    );
    out.push_str(
        "<style>\
         .bg{fill:#fff}.ahead{fill:#f2f2f2}.grid{stroke:#ccc;stroke-width:1}\
         .zero{stroke:#888;stroke-width:1.2}.axis{font:11px sans-serif;fill:#444}\
         .value{fill:none;stroke:#2a6fb0;stroke-width:1.6}\
         .move{stroke:#333;stroke-width:1;cursor:pointer}.move.black{fill:#222}\
         .move.white{fill:#fff}.move.inaccuracy{stroke:#d8b400;stroke-width:2}\
         .move.mistake{stroke:#f08000;stroke-width:3}.move.blunder{stroke:#e00000;stroke-width:3.5}\
         .decisive{stroke:#a000c0;stroke-dasharray:4 3;stroke-width:1.2}\
         .cursor{stroke:#2a6fb0;stroke-width:1;stroke-dasharray:2 2}\
         </style>\n",
    );
    let _ = writeln!(
        out,
        "<rect class=\"bg\" x=\"0\" y=\"0\" width=\"{WIDTH}\" height=\"{HEIGHT}\"/>"
    );
    // Black's half shaded; the value grid every quarter of the range.
    let _ = writeln!(
        out,
        "<rect class=\"ahead\" x=\"{left}\" y=\"{top}\" width=\"{plot_w}\" height=\"{}\"/>",
        plot_h / 2.0
    );
    for step in -2..=2 {
        let value = range * f64::from(step) / 2.0;
        let _ = writeln!(
            out,
            "<line class=\"{}\" x1=\"{left}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/>\
             <text class=\"axis\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{:+}</text>",
            if step == 0 { "zero" } else { "grid" },
            left + plot_w,
            y(value),
            y(value),
            left - 5.0,
            y(value) + 4.0,
            value
        );
    }
    let mut tick = 0;
    while tick as f64 <= last {
        let _ = writeln!(
            out,
            "<line class=\"grid\" x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{top}\" y2=\"{1:.1}\"/>\
             <text class=\"axis\" x=\"{0:.1}\" y=\"{2:.1}\" text-anchor=\"middle\">{tick}</text>",
            x(tick),
            top + plot_h,
            top + plot_h + 14.0
        );
        tick += 10;
    }
    let _ = writeln!(
        out,
        "<text class=\"axis\" x=\"{left}\" y=\"16\">value for black (discs; shaded: black \
         ahead) after each move; ring: inaccuracy, mistake, blunder</text>\
         <text class=\"axis\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">move</text>",
        left + plot_w,
        HEIGHT - 4.0
    );
    if let Some(d) = &review.decisive {
        let m = &review.moves[d.index];
        let _ = writeln!(
            out,
            "<line class=\"decisive\" x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{top}\" y2=\"{1:.1}\">\
             <title>decisive move {2}: from {3} to {4}</title></line>",
            x(m.number),
            top + plot_h,
            m.number,
            outcome_name(d.before),
            outcome_name(d.after)
        );
    }
    let mut points = format!("{:.1},{:.1}", x(0), y(review.start_value));
    for m in &review.moves {
        let _ = write!(points, " {:.1},{:.1}", x(m.number), y(for_black(m)));
    }
    let _ = writeln!(out, "<polyline class=\"value\" points=\"{points}\"/>");
    for m in &review.moves {
        let radius = match m.mark {
            Mark::Best | Mark::Inaccuracy => 3.0,
            Mark::Mistake => 4.5,
            Mark::Blunder => 5.5,
        };
        let _ = writeln!(
            out,
            "<circle class=\"move {} {}\" data-move=\"{}\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"{radius}\">\
             <title>{}</title></circle>",
            m.color,
            m.mark.name(),
            m.number,
            x(m.number),
            y(for_black(m)),
            xml_escape(&move_summary(m))
        );
    }
    out.push_str("</svg>\n");
    out
}

/// The `--svg` file: an XML declaration and [`svg_element`].
pub fn svg_file(record: &GameRecord, review: &Review) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}",
        svg_element(record, review)
    )
}

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
/// after each move (see [`super::positions`]). See the module's description for what the
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
    let count = |color: Color, mark: Mark| {
        review
            .moves
            .iter()
            .filter(|m| m.color == color && m.mark == mark)
            .count()
    };
    for color in Color::ALL {
        let _ = writeln!(
            out,
            "<p>error total {color}: {:.1} discs ({} inaccuracies, {} mistakes, {} blunders)</p>",
            review.error_totals[color.index()],
            count(color, Mark::Inaccuracy),
            count(color, Mark::Mistake),
            count(color, Mark::Blunder)
        );
    }
    if let Some(d) = &review.decisive {
        let m = &review.moves[d.index];
        let _ = writeln!(
            out,
            "<p>decisive move: {} {} {:#}, from {} to {}{}</p>",
            m.number,
            m.color,
            m.played,
            outcome_name(d.before),
            outcome_name(d.after),
            if d.exact {
                " (exact)"
            } else {
                " (by the search)"
            }
        );
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
    fn escaping_keeps_the_output_ascii_and_well_formed() {
        assert_eq!(
            xml_escape("a<b & \"c\" 'd'>\u{e9}\u{1}"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;&#xe9; "
        );
        assert_eq!(script_string("</script>"), "\"\\u003c/script>\"");
    }

    /// The review of f5 f6 e6 from the start with made-up values (the side to move's view):
    /// black +2 (best f5), white -2 (best d6), black +6 (best c3), white -4.
    fn three_moves() -> (GameRecord, Review) {
        let moves = notation::parse_transcript("f5f6e6").unwrap();
        let values = [(2.0, "f5"), (-2.0, "d6"), (6.0, "c3"), (-4.0, "pa")];
        let review = super::super::review_with(
            &Board::start(),
            &moves,
            |board| {
                let (value, best) = values[(60 - board.empties()) as usize];
                super::super::PositionValue {
                    value,
                    best: best.parse().unwrap(),
                    exact: true,
                }
            },
            |_, _| {},
        )
        .unwrap();
        let record = GameRecord {
            start: Board::start(),
            moves,
            players: [Some("Ann & <Bo>".into()), Some("Z\u{f6}e".into())],
            name: "test".into(),
        };
        (record, review)
    }

    #[test]
    fn the_graph_has_a_point_a_move_placed_by_its_value_for_black() {
        let (record, review) = three_moves();
        let svg = svg_file(&record, &review);
        assert!(svg.is_ascii());
        let points: Vec<&str> = svg
            .lines()
            .filter(|l| l.starts_with("<circle class=\"move "))
            .collect();
        assert_eq!(points.len(), 3, "{svg}");
        // f6 lost 4 (a mistake), e6 2 (an inaccuracy); values for black +2, +6, +4.
        assert!(points[0].starts_with("<circle class=\"move black best\" data-move=\"1\""));
        assert!(points[1].starts_with("<circle class=\"move white mistake\" data-move=\"2\""));
        assert!(points[2].starts_with("<circle class=\"move black inaccuracy\" data-move=\"3\""));
        // The range is +-8 (the largest value, 6, rounded up to 8): the plot runs from y 26
        // (+8) to 266 (-8), so +2 is at 26 + 6 * 240 / 16 = 116 and +6 at 56; x runs from 48
        // to 746 over 3 moves.
        assert!(
            points[0].contains("cx=\"280.7\" cy=\"116.0\""),
            "{}",
            points[0]
        );
        assert!(
            points[1].contains("cx=\"513.3\" cy=\"56.0\""),
            "{}",
            points[1]
        );
        assert!(
            points[2].contains("cx=\"746.0\" cy=\"86.0\""),
            "{}",
            points[2]
        );
        assert_eq!(value_range(&review), 8.0);
    }

    #[test]
    fn the_page_holds_every_position_and_escapes_the_names() {
        let (record, review) = three_moves();
        let boards = super::super::positions(&record.start, &record.moves).unwrap();
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
