//! The value along a reviewed game as an SVG graph: `tsuru review --svg`'s file, the graph
//! of its `--html` page, and what Python's `tsuru.Review` shows in a notebook.
//!
//! The graph plots the value for Black (in discs, positive when Black is ahead) after every
//! reviewed move, one `<circle class="move ...">` a move, in game order, with `data-move`
//! the move's number; its classes name the player and the mark, so mistakes and blunders
//! stand out (a coloured ring). Forced passes are no choice and get no point. All output is
//! ASCII.

use std::fmt::Write as _;

use crate::board::Color;

use super::{outcome_name, value_text, GameRecord, Mark, MoveReview, Review};

/// The graph's size in SVG user units (the page scales it to its width).
pub const WIDTH: f64 = 760.0;
/// See [`WIDTH`].
pub const HEIGHT: f64 = 300.0;
/// The plot's margins: left (value labels), right, top (title), bottom (move labels).
pub const MARGIN: [f64; 4] = [48.0, 14.0, 26.0, 34.0];

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
pub fn move_summary(m: &MoveReview) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_keeps_the_output_ascii_and_well_formed() {
        assert_eq!(
            xml_escape("a<b & \"c\" 'd'>\u{e9}\u{1}"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;&#xe9; "
        );
    }

    #[test]
    fn the_graph_has_a_point_a_move_placed_by_its_value_for_black() {
        let (record, review) = crate::review::example_review();
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
}
