//! `tsuru review` over a real game, driven as a user runs it: the losses of the moves it
//! reviews with exact values are the exact values' differences (each position solved again
//! here by a solver of its own), the error totals are their sums, and bad input is refused
//! with a message naming the file, the game and the move. `--svg` and `--html` write the
//! pictures: the graph is well-formed XML with a point a move, and the page, loaded in
//! headless Chromium at `#20`, shows the board after the game's first 20 moves, without a
//! script error (its screenshot is kept in `target/review-screenshot.png`).

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::run_tsuru;
use tsuru_core::board::{notation, Board, Color, Move};
use tsuru_core::rng::Rng;
use tsuru_core::search::endgame::{EndgameSolver, SolveMode};
use tsuru_core::search::SearchConfig;

/// A random legal game to its end (passes included), the same for a seed.
fn random_game(seed: u64) -> Vec<Move> {
    let mut rng = Rng::new(seed);
    let mut board = Board::start();
    while !board.is_game_over() {
        if board.must_pass() {
            board.make_pass();
            continue;
        }
        let moves = board.legal_moves();
        let pick = rng.below(u64::from(moves.count_ones())) as u32;
        let mut bits = moves;
        for _ in 0..pick {
            bits &= bits - 1;
        }
        board.make_move(tsuru_core::board::Square::new(bits.trailing_zeros() as usize).unwrap());
    }
    board.history().collect()
}

/// The value of a number field `key` on a line of the review's JSON (one move a line).
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    let start = line
        .find(&format!("\"{key}\": "))
        .unwrap_or_else(|| panic!("{key} in {line}"))
        + key.len()
        + 4;
    let rest = &line[start..];
    let end = rest.find([',', '}']).unwrap();
    rest[..end].trim().trim_matches('"')
}

fn temp_file(name: &str, bytes: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("tsuru-review-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn the_losses_of_the_solved_end_are_the_exact_values_differences() {
    let moves = random_game(2026);
    let transcript = notation::transcript(moves.iter().copied());
    let file = temp_file("game.txt", transcript.as_bytes());
    let review = |format: &str| {
        run_tsuru(&[
            "review",
            &file,
            format,
            "--level",
            "12",
            "--threads",
            "1",
            "--hash",
            "16",
        ])
    };
    let out = review("--json");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text.lines().filter(|l| l.contains("\"number\"")).collect();
    let reviewed: Vec<&str> = rows
        .iter()
        .copied()
        .filter(|l| l.contains("\"loss\""))
        .collect();
    let played = moves.iter().filter(|m| **m != Move::Pass).count();
    assert_eq!(reviewed.len(), played, "one row a move played");

    // Every position of the game, and a solver that shares nothing with the reviewer.
    let mut boards = vec![Board::start()];
    for &mv in &moves {
        let mut next = boards.last().unwrap().clone();
        next.play(mv).unwrap();
        boards.push(next.without_history());
    }
    let mut solver = EndgameSolver::new(&SearchConfig::new(16, 1).unwrap());
    let stop = AtomicBool::new(false);
    let mut exact = |board: &Board| -> i32 {
        if board.is_game_over() {
            return board.final_score(board.side_to_move()).get();
        }
        let mut work = board.clone();
        solver
            .solve(&mut work, SolveMode::Exact, &stop)
            .unwrap()
            .score
            .get()
    };
    let mut totals = [0.0f64; 2];
    let mut checked = 0;
    for row in &reviewed {
        let number: usize = field(row, "number").parse().unwrap();
        let loss: f64 = field(row, "loss").parse().unwrap();
        let color = if field(row, "color") == "black" {
            Color::Black
        } else {
            Color::White
        };
        totals[color.index()] += loss;
        let before = &boards[number - 1];
        assert_eq!(before.side_to_move(), color);
        assert_eq!(field(row, "move"), format!("{:#}", moves[number - 1]));
        // The last 16 moves: level 12 solves from 18 empties.
        if before.empties() > 16 {
            continue;
        }
        assert_eq!(field(row, "exact"), "true", "{row}");
        let best = exact(before);
        let after = -exact(&boards[number]);
        assert_eq!(loss, f64::from(best - after), "move {number}: {row}");
        assert_eq!(
            field(row, "value").parse::<f64>().unwrap(),
            f64::from(after),
            "{row}"
        );
        assert_eq!(
            field(row, "best_value").parse::<f64>().unwrap(),
            f64::from(best),
            "{row}"
        );
        // An exact value's chances are certain.
        let win: f64 = field(row, "win").parse().unwrap();
        assert_eq!(win, if after > 0 { 1.0 } else { 0.0 }, "{row}");
        checked += 1;
    }
    assert!(checked >= 15, "{checked} exact moves checked");
    let line = text
        .lines()
        .find(|l| l.contains("\"error_totals\""))
        .unwrap();
    assert_eq!(
        field(line, "black").parse::<f64>().unwrap(),
        totals[0],
        "{line}"
    );
    assert_eq!(
        field(line, "white").parse::<f64>().unwrap(),
        totals[1],
        "{line}"
    );
    // The game ended: its result is Black's final disc difference.
    let result = boards.last().unwrap().final_score(Color::Black).get();
    assert!(text.contains(&format!("\"result\": {result},")), "{text}");

    // The same review as CSV: a header and a row a move, the same losses.
    let out = review("--csv");
    let csv = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "number,color,move,value,best,best_value,loss,exact,mark,win,draw,loss_chance"
    );
    assert_eq!(lines.len(), played + 1);
    for (row, json) in lines[1..].iter().zip(&reviewed) {
        assert_eq!(row.split(',').nth(6).unwrap(), field(json, "loss"));
    }
}

#[test]
fn a_game_that_did_not_end_is_reviewed_to_its_last_move() {
    let ggf = "(;GM[Othello]PC[test]PB[Ann]PW[Bob]RE[?]TY[8]\
               BO[8 ---------------------------O*------*O--------------------------- *]\
               B[F5]W[D6]B[C3]W[D3]B[C4];)";
    let file = temp_file("unfinished.ggf", ggf.as_bytes());
    let out = run_tsuru(&["review", &file, "--threads", "1", "--level", "6"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Ann (black) - Bob (white); the game did not end"),
        "{text}"
    );
    let rows = text
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()));
    let moves: Vec<&str> = rows.map(|l| l.split_whitespace().nth(2).unwrap()).collect();
    assert_eq!(moves, ["f5", "d6", "c3", "d3", "c4"]);
    assert!(text.contains("error total black"), "{text}");
}

#[test]
fn bad_input_is_refused_naming_the_file_the_game_and_the_move() {
    let illegal = temp_file(
        "illegal.ggf",
        b"(;GM[Othello]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[D6]B[A1];)",
    );
    let empty = temp_file(
        "empty.ggf",
        b"(;GM[Othello]TY[8]BO[8 ---------------------------O*------*O--------------------------- *];)",
    );
    // A WTHOR file announcing 2 games and holding 1, whose game has an illegal second move.
    let mut wthor = vec![0u8; 16];
    wthor[4..8].copy_from_slice(&2u32.to_le_bytes());
    let mut record = vec![0u8; 68];
    record[8] = 56; // f5: column 6, row 5
    record[9] = 11; // a1
    wthor.extend_from_slice(&record);
    let wtb = temp_file("games.wtb", &wthor);
    let truncated = temp_file("short.wtb", &wthor[..10]);
    for (args, expected) in [
        (
            vec![illegal.as_str()],
            format!("{illegal}, game 1: move 3 (black A1)"),
        ),
        (
            vec![illegal.as_str(), "--game", "2"],
            "holds 1 game; --game 2 is out of range".into(),
        ),
        (
            vec![empty.as_str()],
            "game 1: the game has no moves to review".into(),
        ),
        (
            vec![wtb.as_str(), "--game", "5"],
            "holds 2 games; --game 5 is out of range".into(),
        ),
        (
            vec![wtb.as_str(), "--game", "2"],
            "truncated: game 2 of the 2 announced".into(),
        ),
        (vec![wtb.as_str()], format!("{wtb}, game 1: move 2 (a1)")),
        (
            vec![truncated.as_str()],
            "truncated (no WTHOR header)".into(),
        ),
        (vec!["f5d6zz"], "not a list of moves".into()),
        (vec!["f5f5"], "move 2 (F5)".into()),
        (
            vec!["f5d6", "--html", "/no/such/folder/review.html"],
            "--html /no/such/folder/review.html: no folder /no/such/folder".into(),
        ),
    ] {
        let mut full = vec!["review"];
        full.extend(args.iter().copied());
        full.extend(["--threads", "1"]);
        let out = run_tsuru(&full);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(err.contains(&expected), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// An element of an XML document: its name and its attributes, in document order.
#[derive(Debug)]
struct Element {
    name: String,
    attributes: Vec<(String, String)>,
}

impl Element {
    fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The elements of `text` if it is a well-formed XML document (an optional declaration,
/// comments, one root element; every tag closed in order, attributes quoted and unique,
/// `<` only in markup and `&` only in the five entities or character references), else what
/// is wrong and where. DTDs, CDATA and processing instructions past the declaration are
/// refused: the review's SVG has none.
fn xml_elements(text: &str) -> Result<Vec<Element>, String> {
    fn is_name(c: char) -> bool {
        c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':')
    }
    fn check_text(text: &str, at: usize) -> Result<(), String> {
        let mut rest = text;
        while let Some(i) = rest.find('&') {
            let tail = &rest[i + 1..];
            let end = tail.find(';').ok_or(format!("& without ; at {at}"))?;
            let entity = &tail[..end];
            let ok = matches!(entity, "amp" | "lt" | "gt" | "quot" | "apos")
                || entity
                    .strip_prefix("#x")
                    .is_some_and(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()))
                || entity
                    .strip_prefix('#')
                    .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()));
            if !ok {
                return Err(format!("bad reference &{entity}; at {at}"));
            }
            rest = &tail[end + 1..];
        }
        if text.contains("]]>") {
            return Err(format!("]]> in text at {at}"));
        }
        Ok(())
    }
    let mut elements = Vec::new();
    let mut open: Vec<String> = Vec::new();
    let mut roots = 0;
    let mut pos = 0;
    if text.starts_with("<?xml") {
        pos = text.find("?>").ok_or("unclosed declaration")? + 2;
    }
    while pos < text.len() {
        let rest = &text[pos..];
        let Some(lt) = rest.find('<') else {
            if !open.is_empty() {
                return Err(format!("unclosed <{}>", open.last().unwrap()));
            }
            if !rest.trim().is_empty() {
                return Err(format!("text after the root at {pos}"));
            }
            break;
        };
        let between = &rest[..lt];
        if open.is_empty() && !between.trim().is_empty() {
            return Err(format!("text outside the root at {pos}"));
        }
        check_text(between, pos)?;
        pos += lt;
        let rest = &text[pos..];
        if let Some(comment) = rest.strip_prefix("<!--") {
            let end = comment
                .find("-->")
                .ok_or(format!("unclosed comment at {pos}"))?;
            pos += 4 + end + 3;
            continue;
        }
        if let Some(close) = rest.strip_prefix("</") {
            let end = close
                .find('>')
                .ok_or(format!("unclosed end tag at {pos}"))?;
            let name = close[..end].trim_end();
            match open.pop() {
                Some(expected) if expected == name => {}
                other => return Err(format!("</{name}> closes {other:?} at {pos}")),
            }
            pos += 2 + end + 1;
            continue;
        }
        // A start tag: a name, attributes, then > or />.
        let mut chars = rest[1..].char_indices().peekable();
        let mut name = String::new();
        while let Some(&(_, c)) = chars.peek() {
            if !is_name(c) {
                break;
            }
            name.push(c);
            chars.next();
        }
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            return Err(format!("bad tag name at {pos}"));
        }
        let mut attributes: Vec<(String, String)> = Vec::new();
        let (end, empty) = loop {
            let Some((i, c)) = chars.next() else {
                return Err(format!("unclosed <{name} at {pos}"));
            };
            match c {
                c if c.is_ascii_whitespace() => {}
                '>' => break (i, false),
                '/' => match chars.next() {
                    Some((i, '>')) => break (i, true),
                    _ => return Err(format!("/ not followed by > in <{name} at {pos}")),
                },
                c if is_name(c) => {
                    let mut key = String::from(c);
                    while let Some(&(_, c)) = chars.peek() {
                        if !is_name(c) {
                            break;
                        }
                        key.push(c);
                        chars.next();
                    }
                    while chars.peek().is_some_and(|(_, c)| c.is_ascii_whitespace()) {
                        chars.next();
                    }
                    if chars.next().map(|(_, c)| c) != Some('=') {
                        return Err(format!("attribute {key} without a value at {pos}"));
                    }
                    while chars.peek().is_some_and(|(_, c)| c.is_ascii_whitespace()) {
                        chars.next();
                    }
                    let quote = match chars.next() {
                        Some((_, q @ ('"' | '\''))) => q,
                        _ => return Err(format!("attribute {key} not quoted at {pos}")),
                    };
                    let mut value = String::new();
                    loop {
                        match chars.next() {
                            Some((_, c)) if c == quote => break,
                            Some((_, '<')) => return Err(format!("< in {key} at {pos}")),
                            Some((_, c)) => value.push(c),
                            None => return Err(format!("unclosed value of {key} at {pos}")),
                        }
                    }
                    check_text(&value, pos)?;
                    if attributes.iter().any(|(k, _)| *k == key) {
                        return Err(format!("{key} twice in <{name} at {pos}"));
                    }
                    attributes.push((key, value));
                }
                c => return Err(format!("{c:?} in <{name} at {pos}")),
            }
        };
        if open.is_empty() {
            roots += 1;
            if roots > 1 {
                return Err(format!("a second root <{name}> at {pos}"));
            }
        }
        if !empty {
            open.push(name.clone());
        }
        elements.push(Element { name, attributes });
        pos += 1 + end + 1;
    }
    if let Some(name) = open.last() {
        return Err(format!("unclosed <{name}>"));
    }
    if roots == 0 {
        return Err("no root element".into());
    }
    Ok(elements)
}

#[test]
fn the_xml_check_refuses_what_is_not_well_formed() {
    assert_eq!(
        xml_elements("<?xml version=\"1.0\"?>\n<a x='1'><b/>&amp;&#x41;<!-- c --></a>\n")
            .unwrap()
            .len(),
        2
    );
    for bad in [
        "<a><b></a></b>",
        "<a x=1/>",
        "<a x='1' x='2'/>",
        "<a>&nbsp;</a>",
        "<a>a < b</a>",
        "<a/><b/>",
        "<a>",
        "text",
        "<a x='<'/>",
    ] {
        assert!(xml_elements(bad).is_err(), "{bad}");
    }
}

/// Runs `command` to its end or for `limit` at most (then kills it and fails), returning
/// its stdout and stderr.
fn run_within(command: &mut Command, limit: Duration) -> (String, String) {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting chromium");
    let pipe_reader = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = pipe_reader(Box::new(child.stdout.take().unwrap()));
    let stderr = pipe_reader(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium ran over {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (stdout.join().unwrap(), stderr.join().unwrap())
}

/// Headless Chromium, or `None` (with a notice) where it is not installed outside CI; in CI
/// (`CI=true`) its absence fails the test.
fn chromium() -> Option<PathBuf> {
    let path = PathBuf::from("/usr/bin/chromium");
    if path.exists() {
        return Some(path);
    }
    assert_ne!(
        std::env::var("CI").as_deref(),
        Ok("true"),
        "/usr/bin/chromium is missing in CI (.ci/run installs it)"
    );
    eprintln!("notice: /usr/bin/chromium is not installed; the review page is not loaded");
    None
}

/// `chromium --headless` with the given arguments on the page `url`, each run with a fresh
/// profile; returns its stdout and stderr.
fn headless(chromium: &Path, args: &[&str], url: &str) -> (String, String) {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let profile = std::env::temp_dir().join(format!(
        "tsuru-review-chromium-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&profile);
    let out = run_within(
        Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--enable-logging=stderr",
                "--v=0",
                "--virtual-time-budget=3000",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(args)
            .arg(url),
        Duration::from_secs(120),
    );
    let _ = std::fs::remove_dir_all(&profile);
    out
}

/// The start tags named `name` of an HTML document, each as its text.
fn tags<'a>(html: &'a str, name: &str) -> Vec<&'a str> {
    let open = format!("<{name} ");
    html.match_indices(&open)
        .map(|(i, _)| {
            let end = html[i..].find('>').unwrap();
            &html[i..i + end + 1]
        })
        .collect()
}

/// The value of attribute `name` in a start tag, `Some("")` for one without a value.
fn tag_attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    if let Some(i) = tag.find(&key) {
        let rest = &tag[i + key.len()..];
        return Some(&rest[..rest.find('"').unwrap()]);
    }
    (tag.contains(&format!(" {name}>")) || tag.contains(&format!(" {name} "))).then_some("")
}

/// `--svg` and `--html` on a random game: the SVG is well-formed XML with one point a
/// reviewed move (its number, player and mark, higher for a better value for Black); the
/// page, loaded in headless Chromium at `#20`, shows the board after the first 20 moves (as
/// tsuru_core plays them), the 20th move marked and the review's best move for the 21st,
/// with no script error or console message. Its screenshot (1200x900) is written to
/// `target/review-screenshot.png` for CI to keep. Without /usr/bin/chromium the page is not
/// loaded (a notice), except in CI (`CI=true`), where that fails.
#[test]
fn the_pictures_show_the_game_the_review_judged() {
    let moves = random_game(83);
    assert!(moves.len() > 21);
    let transcript = notation::transcript(moves.iter().copied());
    let file = temp_file("pictures.txt", transcript.as_bytes());
    let svg_path = temp_file("review.svg", b"");
    let html_path = temp_file("review.html", b"");
    let out = run_tsuru(&[
        "review",
        &file,
        "--json",
        "--level",
        "10",
        "--threads",
        "1",
        "--hash",
        "16",
        "--svg",
        &svg_path,
        "--html",
        &html_path,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = json.lines().filter(|l| l.contains("\"loss\"")).collect();
    let played = moves.iter().filter(|m| **m != Move::Pass).count();
    assert_eq!(rows.len(), played);

    // The graph: well-formed, self-contained, a point a reviewed move in game order with
    // its player and mark, higher the better the value for Black.
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(svg.is_ascii());
    let elements = xml_elements(&svg).unwrap_or_else(|e| panic!("{e}:\n{svg}"));
    assert_eq!(elements[0].name, "svg");
    assert_eq!(
        elements[0].attribute("xmlns"),
        Some("http://www.w3.org/2000/svg")
    );
    assert!(!svg.contains("href"), "nothing outside the file");
    let points: Vec<&Element> = elements
        .iter()
        .filter(|e| {
            e.name == "circle"
                && e.attribute("class")
                    .is_some_and(|c| c.split(' ').any(|w| w == "move"))
        })
        .collect();
    assert_eq!(points.len(), played, "a point a move");
    let mut by_value = Vec::new();
    for (point, row) in points.iter().zip(&rows) {
        assert_eq!(point.attribute("data-move"), Some(field(row, "number")));
        let class: Vec<&str> = point.attribute("class").unwrap().split(' ').collect();
        assert_eq!(class, ["move", field(row, "color"), field(row, "mark")]);
        let value: f64 = field(row, "value").parse().unwrap();
        let for_black = if field(row, "color") == "black" {
            value
        } else {
            -value
        };
        let cy: f64 = point.attribute("cy").unwrap().parse().unwrap();
        by_value.push((for_black, cy));
    }
    by_value.sort_by(|a, b| a.partial_cmp(b).unwrap());
    for pair in by_value.windows(2) {
        assert!(pair[0].1 >= pair[1].1, "a better value is higher: {pair:?}");
    }

    // The page, loaded at move 20: its board is the game's after 20 moves, with the move
    // played marked and the review's best move for move 21.
    let page = std::fs::read_to_string(&html_path).unwrap();
    assert!(page.is_ascii());
    for fetch in [" src=", " href=", "<link", "url(", "@import", "fetch("] {
        assert!(!page.contains(fetch), "the page fetches nothing: {fetch}");
    }
    println!("page: {} bytes for {} moves", page.len(), moves.len());
    let Some(chromium) = chromium() else {
        return;
    };
    const SHOWN: usize = 20;
    let url = format!("file://{html_path}#{SHOWN}");
    let (dom, log) = headless(&chromium, &["--dump-dom"], &url);
    let root = tags(&dom, "html");
    assert_eq!(
        tag_attribute(root[0], "data-errors"),
        Some("0"),
        "script errors: {log}"
    );
    for line in log.lines() {
        assert!(
            !line.contains(":CONSOLE") && !line.contains("Uncaught"),
            "the page logged: {line}"
        );
    }
    let mut board = Board::start();
    for &mv in &moves[..SHOWN] {
        board.play(mv).unwrap();
    }
    let cells = tags(&dom, "div")
        .into_iter()
        .filter(|t| tag_attribute(t, "data-square").is_some())
        .collect::<Vec<_>>();
    assert_eq!(cells.len(), 64, "{dom}");
    let mut shown = Vec::new();
    let mut expected = Vec::new();
    let (mut last, mut best) = (None, None);
    for cell in &cells {
        let square: tsuru_core::board::Square =
            tag_attribute(cell, "data-square").unwrap().parse().unwrap();
        shown.push((
            square,
            tag_attribute(cell, "data-disc").unwrap().to_string(),
        ));
        let disc = match board.disc(square) {
            Some(color) => color.to_string(),
            None => "empty".to_string(),
        };
        expected.push((square, disc));
        if tag_attribute(cell, "data-last").is_some() {
            assert!(last.replace(square).is_none(), "one last move");
        }
        if tag_attribute(cell, "data-best").is_some() {
            assert!(best.replace(square).is_none(), "one best move");
        }
    }
    shown.sort();
    expected.sort();
    assert_eq!(shown, expected, "the board after {SHOWN} moves");
    assert_eq!(last.map(Move::Play), Some(moves[SHOWN - 1]));
    let next = rows
        .iter()
        .find(|r| field(r, "number") == (SHOWN + 1).to_string());
    assert_eq!(
        best.map(|s| s.lower()),
        next.map(|r| field(r, "best").to_string()),
        "the best move of move {}",
        SHOWN + 1
    );

    // A screenshot of the page, kept for CI as target/review-screenshot.png.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap();
    let shot = target.join("review-screenshot.png");
    let _ = std::fs::remove_file(&shot);
    headless(
        &chromium,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1200,900",
        ],
        &url,
    );
    let png = std::fs::read(&shot).expect("the screenshot");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // IHDR: the width and height, big-endian, at bytes 16 and 20.
    let size = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    assert_eq!((size(16), size(20)), (1200, 900));
}
