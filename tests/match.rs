//! `tsuru match` run as a user runs it: tsuru against itself over both protocols, against
//! GRhino, and against misbehaving fake engines (`tests/fixtures/engines/faulty.sh`).

mod common;

use common::{GRHINO, TSURU};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tsuru_core::board::Color;
use tsuru_core::formats::ggf::GgfGame;

/// The misbehaving fake engine (its first argument says how it misbehaves).
const FAULTY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/engines/faulty.sh"
);

/// A fresh output folder for one test.
fn out_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tsuru-match-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Runs `tsuru match ARGS --out DIR` with `$TSURU` set for the fake engines.
fn run_match(dir: &Path, args: &[&str]) -> Output {
    Command::new(TSURU)
        .arg("match")
        .args(args)
        .arg("--out")
        .arg(dir)
        .env("TSURU", TSURU)
        .output()
        .expect("running tsuru match")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("output is UTF-8")
}

/// The table row of `name`: games, wins, draws, losses, discs.
fn row(stdout: &str, name: &str) -> [i64; 5] {
    let line = stdout
        .lines()
        .find(|line| line.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no row for {name} in:\n{stdout}"));
    let fields: Vec<i64> = line
        .split_whitespace()
        .skip(1)
        .take(5)
        .map(|field| field.parse().unwrap_or_else(|_| panic!("bad row {line:?}")))
        .collect();
    fields.try_into().unwrap()
}

/// One parsed game and its line in games.txt.
struct Played {
    game: GgfGame,
    line: String,
}

fn tag<'a>(game: &'a GgfGame, name: &str) -> &'a str {
    game.tags
        .iter()
        .find(|(tag, _)| tag == name)
        .map(|(_, value)| value.as_str())
        .unwrap_or_else(|| panic!("no {name} tag"))
}

/// Reads games.ggf and games.txt, checks that they hold `games` games that agree with each
/// other, and returns them in game-number order.
fn read_games(dir: &Path, games: usize) -> Vec<Played> {
    let records = std::fs::read_to_string(dir.join("games.ggf")).unwrap();
    let lines = std::fs::read_to_string(dir.join("games.txt")).unwrap();
    let records: Vec<&str> = records.lines().collect();
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(records.len(), games, "games.ggf");
    assert_eq!(lines.len(), games, "games.txt");
    let mut played: Vec<(usize, Played)> = records
        .iter()
        .zip(&lines)
        .map(|(record, line)| {
            let game = GgfGame::parse(record)
                .unwrap_or_else(|err| panic!("{record} does not parse: {err:#}"));
            let number: usize = line.split_whitespace().nth(1).unwrap().parse().unwrap();
            let black = format!("black={}", tag(&game, "PB"));
            let white = format!("white={}", tag(&game, "PW"));
            assert!(
                line.contains(&black) && line.contains(&white),
                "{line} vs {record}"
            );
            (
                number,
                Played {
                    game,
                    line: line.to_string(),
                },
            )
        })
        .collect();
    played.sort_by_key(|(number, _)| *number);
    let numbers: Vec<usize> = played.iter().map(|(number, _)| *number).collect();
    assert_eq!(numbers, (1..=games).collect::<Vec<_>>());
    played.into_iter().map(|(_, game)| game).collect()
}

/// Checks a game that was played to the end: the record's final position is over, and its
/// `RE` tag and the games.txt line give the score of that position.
fn check_finished(played: &Played) {
    let board = played.game.board();
    assert!(board.is_game_over(), "{}", played.line);
    let diff = board.final_score(Color::Black);
    assert_eq!(
        tag(&played.game, "RE"),
        format!("{:+.2}", f64::from(diff.get()))
    );
    let counts = format!(
        "({}-{})",
        board.count(Color::Black),
        board.count(Color::White)
    );
    assert!(
        played.line.ends_with(&counts),
        "{} vs {counts}",
        played.line
    );
    assert!(!played.line.contains("forfeit"), "{}", played.line);
}

/// Checks that the table adds up for engines `a` and `b` over `games` games, and that the
/// disc sums match the records.
fn check_table(stdout: &str, a: &str, b: &str, games: usize, played: &[Played]) {
    let [games_a, wins_a, draws_a, losses_a, discs_a] = row(stdout, a);
    let [games_b, wins_b, draws_b, losses_b, discs_b] = row(stdout, b);
    assert_eq!((games_a, games_b), (games as i64, games as i64));
    assert_eq!(wins_a + draws_a + losses_a, games as i64);
    assert_eq!((wins_a, draws_a, losses_a), (losses_b, draws_b, wins_b));
    assert_eq!(discs_a, -discs_b);
    let discs_a_from_records: i64 = played
        .iter()
        .map(|p| {
            let re: f64 = tag(&p.game, "RE")
                .split(':')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            let sign = if tag(&p.game, "PB") == a { 1.0 } else { -1.0 };
            (sign * re) as i64
        })
        .sum();
    assert_eq!(discs_a, discs_a_from_records);
    assert!(
        stdout.contains(&format!("Elo difference {a} - {b}: ")),
        "{stdout}"
    );
}

#[test]
fn tsuru_against_itself_over_gtp_and_nboard() {
    let dir = out_dir("self");
    let gtp_engine = format!("gtp={TSURU} --no-book --gtp --depth 1");
    let nboard_engine = format!("nboard={TSURU} --no-book");
    let output = run_match(
        &dir,
        &[
            "--engine",
            &gtp_engine,
            "--engine",
            &nboard_engine,
            "--depth",
            "1",
            "--games",
            "6",
            "--seed",
            "11",
            "--concurrency",
            "2",
        ],
    );
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    let played = read_games(&dir, 6);
    for game in &played {
        check_finished(game);
    }
    check_table(&stdout, "gtp", "nboard", 6, &played);
    // Each opening was played twice with colours swapped.
    for pair in played.chunks(2) {
        let opening = |p: &Played| p.line.split_whitespace().nth(2).unwrap().to_string();
        assert_eq!(opening(&pair[0]), opening(&pair[1]));
        assert_eq!(tag(&pair[0].game, "PB"), tag(&pair[1].game, "PW"));
    }
    // Detection found each engine's protocol, and each was spoken to in it.
    let log = std::fs::read_to_string(dir.join("engines.log")).unwrap();
    assert!(log
        .lines()
        .any(|l| l.starts_with("gtp[") && l.ends_with("> genmove b")));
    assert!(log
        .lines()
        .any(|l| l.starts_with("nboard[") && l.ends_with("> set depth 1")));
    assert!(log
        .lines()
        .any(|l| l.starts_with("nboard[") && l.contains("< === ")));
    assert!(!log
        .lines()
        .any(|l| l.starts_with("gtp[") && l.ends_with("> go")));
    let results = std::fs::read_to_string(dir.join("results.txt")).unwrap();
    assert_eq!(results, stdout);
    // The record describes itself: the referee, each engine's command line, the settings.
    let description = std::fs::read_to_string(dir.join("match.txt")).unwrap();
    assert!(
        description.starts_with("# tsuru match record, started"),
        "{description}"
    );
    assert!(description.contains(&format!(
        "engine 1: gtp = {TSURU} --no-book --gtp --depth 1 (protocol: detected at the start)"
    )));
    assert!(description.contains(&format!("engine 2: nboard = {TSURU} --no-book")));
    // ... and which builds played: each engine's own account of itself (GTP's name and
    // version, NBoard's myname), and the referee's.
    let version = tsuru_core::identity::version_line();
    assert!(
        description.contains(&format!("engine 1 version: {version}\n")),
        "{description}"
    );
    assert!(
        description.contains("engine 2 version: myname tsuru (nboard)\n"),
        "{description}"
    );
    assert!(description.contains(&format!("referee: {version}\n")));
    assert!(description.contains("games: 6\n"));
    assert!(description.contains("seed 11"));
    assert!(description.contains("concurrency: 2\n"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn clocks_over_both_protocols() {
    // A game clock over NBoard and a time per move over GTP; no engine may overrun them.
    for (name, protocol, limit, value) in [
        ("game-clock", "nboard", "--time-per-game", "3"),
        ("move-time", "gtp", "--move-time", "0.1"),
    ] {
        let dir = out_dir(name);
        let flag = if protocol == "gtp" { " --gtp" } else { "" };
        let first = format!("one={TSURU} --no-book{flag}");
        let second = format!("two={TSURU} --no-book{flag}");
        let protocol_one = format!("one={protocol}");
        let protocol_two = format!("two={protocol}");
        let output = run_match(
            &dir,
            &[
                "--engine",
                &first,
                "--engine",
                &second,
                "--protocol",
                &protocol_one,
                "--protocol",
                &protocol_two,
                limit,
                value,
                "--games",
                "2",
                "--margin",
                "2",
            ],
        );
        let stdout = text(&output.stdout);
        assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
        let played = read_games(&dir, 2);
        for game in &played {
            check_finished(game);
            // Every engine move carries the time the referee measured.
            let engine_moves = &game.game.moves()[8..];
            assert!(engine_moves.iter().all(|mv| mv.seconds.is_some()));
            if protocol == "nboard" {
                assert!(game.game.to_ggf().contains("TI[3//0]"));
                for color in [0, 1] {
                    let used: f64 = engine_moves
                        .iter()
                        .skip(color)
                        .step_by(2)
                        .map(|mv| mv.seconds.unwrap())
                        .sum();
                    assert!(used <= 3.0 + 2.0, "{used} s on a 3 s clock");
                }
            }
        }
        check_table(&stdout, "one", "two", 2, &played);
        let log = std::fs::read_to_string(dir.join("engines.log")).unwrap();
        if protocol == "gtp" {
            assert!(log.contains("> time_settings 0 0.1 1"), "{log}");
            assert!(log.contains("> time_left b 0.1 1"), "{log}");
        } else {
            assert!(log.contains("> set depth 60"));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn an_engine_keeps_its_own_game_time_when_the_referee_sets_no_clock() {
    // `--game-time 3` on the engines' command lines, no limit from the referee: each side
    // spends its 3 s over the game (well beyond what one quick move takes at this level),
    // and never overruns them.
    let dir = out_dir("game-time");
    let first = format!("one={TSURU} --no-book --gtp --threads 1 --level 60 --game-time 3");
    let second = format!("two={TSURU} --no-book --gtp --threads 1 --level 60 --game-time 3");
    let output = run_match(
        &dir,
        &["--engine", &first, "--engine", &second, "--games", "2"],
    );
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    let played = read_games(&dir, 2);
    for game in &played {
        check_finished(game);
        let engine_moves = &game.game.moves()[8..];
        for color in [0, 1] {
            let used: f64 = engine_moves
                .iter()
                .skip(color)
                .step_by(2)
                .map(|mv| mv.seconds.unwrap())
                .sum();
            assert!(used <= 3.0 + 1.0, "{used} s on a 3 s game time");
            assert!(used >= 1.0, "only {used} s of a 3 s game time spent");
        }
    }
    let log = std::fs::read_to_string(dir.join("engines.log")).unwrap();
    assert!(!log.contains("time_settings"), "{log}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tsuru_against_grhino_over_gtp() {
    if !Path::new(GRHINO).exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "GRhino must be installed in CI (.ci/run)"
        );
        eprintln!("skipped: {GRHINO} is not installed (apt-get install grhino)");
        return;
    }
    let dir = out_dir("grhino");
    let tsuru = format!("tsuru={TSURU} --no-book --gtp --level 2");
    let grhino = format!("grhino={GRHINO} -l 1");
    let output = run_match(
        &dir,
        &[
            "--engine", &tsuru, "--engine", &grhino, "--games", "4", "--seed", "5",
        ],
    );
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    let played = read_games(&dir, 4);
    for game in &played {
        check_finished(game);
    }
    check_table(&stdout, "tsuru", "grhino", 4, &played);
    assert!(!stdout.contains("Forfeits"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn faulty_engines_lose_with_the_reason_and_the_match_goes_on() {
    for (mode, reason) in [
        ("illegal", "illegal move: played D4 in "),
        (
            "garbled",
            "garbled answer: genmove answered \"I think so\", not a move",
        ),
        ("silent", "timeout: no answer within 1.5 s"),
        (
            "quit",
            "crash: its output ended: the process exited (exit status: 3)",
        ),
    ] {
        let dir = out_dir(mode);
        let fake = format!("fake=bash {FAULTY} {mode}");
        let tsuru = format!("tsuru={TSURU} --no-book --gtp --depth 1");
        let output = run_match(
            &dir,
            &[
                "--engine",
                &fake,
                "--engine",
                &tsuru,
                "--games",
                "2",
                "--timeout",
                "1.5",
            ],
        );
        let stdout = text(&output.stdout);
        assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
        // Both games were played, the fake lost both (as Black and as White) with the reason.
        let played = read_games(&dir, 2);
        assert_eq!(row(&stdout, "fake"), [2, 0, 0, 2, -128], "{stdout}");
        for (game, fake_color) in played.iter().zip(["black", "white"]) {
            let expected = format!("forfeit: fake ({fake_color}): {reason}");
            assert!(game.line.contains(&expected), "{mode}: {}", game.line);
            let re = if fake_color == "black" {
                "-64.00"
            } else {
                "+64.00"
            };
            let suffix = if mode == "silent" { ":t" } else { ":r" };
            assert_eq!(tag(&game.game, "RE"), format!("{re}{suffix}"));
            if mode == "quit" {
                // It played two moves before it quit: the game was under way.
                assert!(game.game.moves().len() >= 8 + 4, "{}", game.line);
            }
        }
        assert!(
            stdout.contains("Forfeits:\n  game 1: fake lost by "),
            "{stdout}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn an_interrupted_match_resumes_where_it_stopped() {
    // Depth-1 tsuru is deterministic, so a match cut after two games and resumed must end
    // with the same games and the same table as one played straight through.
    let gtp_engine = format!("gtp={TSURU} --no-book --gtp --depth 1");
    let nboard_engine = format!("nboard={TSURU} --no-book --depth 1");
    let args = [
        "--engine",
        &gtp_engine,
        "--engine",
        &nboard_engine,
        "--games",
        "4",
        "--seed",
        "5",
    ];
    let whole = out_dir("whole");
    let output = run_match(&whole, &args);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let straight = text(&output.stdout);
    let lines = std::fs::read_to_string(whole.join("games.txt")).unwrap();
    let records = std::fs::read_to_string(whole.join("games.ggf")).unwrap();

    // The interruption: two games finished, the third game's line cut short.
    let cut = out_dir("cut");
    std::fs::create_dir_all(&cut).unwrap();
    let kept: Vec<&str> = lines.lines().take(2).collect();
    let partial = &lines.lines().nth(2).unwrap()[..20];
    std::fs::write(
        cut.join("games.txt"),
        format!("{}\n{partial}", kept.join("\n")),
    )
    .unwrap();
    let kept_records: Vec<&str> = records.lines().take(3).collect();
    std::fs::write(cut.join("games.ggf"), kept_records.join("\n")).unwrap();
    let mut resumed_args = args.to_vec();
    resumed_args.push("--resume");
    let output = run_match(&cut, &resumed_args);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("4 games (2 already played)"), "{stderr}");
    assert_eq!(text(&output.stdout), straight);
    let played = read_games(&cut, 4);
    for (game, line) in played.iter().zip(lines.lines()) {
        assert_eq!(game.line, line);
        check_finished(game);
    }
    // Resuming a finished match plays nothing and gives the same table again.
    let output = run_match(&cut, &resumed_args);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), straight);
    assert_eq!(read_games(&cut, 4).len(), 4);

    // Another schedule (a different seed) or other engines do not resume these games.
    let mut other_seed = resumed_args.clone();
    other_seed[7] = "6";
    let output = run_match(&cut, &other_seed);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("was not played as this match schedules it"),
        "{}",
        text(&output.stderr)
    );
    let renamed = format!("other={TSURU} --no-book --depth 1");
    let mut other_engine = resumed_args.clone();
    other_engine[3] = &renamed;
    let output = run_match(&cut, &other_engine);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        lines,
        std::fs::read_to_string(cut.join("games.txt")).unwrap()
    );
    std::fs::remove_dir_all(&whole).unwrap();
    std::fs::remove_dir_all(&cut).unwrap();
}

#[test]
fn forfeits_survive_a_resumed_match() {
    let dir = out_dir("resume-forfeit");
    let fake = format!("fake=bash {FAULTY} illegal");
    let tsuru = format!("tsuru={TSURU} --no-book --gtp --depth 1");
    let mut args = vec!["--engine", &fake, "--engine", &tsuru, "--games", "2"];
    let output = run_match(&dir, &args);
    assert!(output.status.success(), "{}", text(&output.stderr));
    args.extend(["--games", "4", "--resume"]);
    let output = run_match(&dir, &args);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    assert_eq!(row(&stdout, "fake"), [4, 0, 0, 4, -256], "{stdout}");
    for game in 1..=4 {
        assert!(
            stdout.contains(&format!(
                "  game {game}: fake lost by illegal move: played D4 in "
            )),
            "{stdout}"
        );
    }
    assert_eq!(read_games(&dir, 4).len(), 4);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The SPRT line of a results table: `SPRT: llr X (bounds ...), VERDICT`, with X parsed.
fn sprt_line(stdout: &str) -> (f64, &str) {
    let line = stdout
        .lines()
        .find(|line| line.starts_with("SPRT: llr "))
        .unwrap_or_else(|| panic!("no SPRT line in:\n{stdout}"));
    let rest = &line["SPRT: llr ".len()..];
    let (llr, rest) = rest.split_once(' ').unwrap();
    (llr.parse().unwrap(), rest)
}

#[test]
fn an_sprt_match_stops_at_a_bound() {
    // A fake engine that forfeits every game: each pair is won twice by tsuru. For elo0 0 and
    // elo1 200 (score 0.759747), a separate calculation gives the LLR of k such pairs as
    // 2.929162 for k = 7 and 3.347539 for k = 8, so H1 is accepted after 16 games of the 100
    // allowed; with the fake first, k pairs lost twice give -2.933441 for k = 4 and -3.666356
    // for k = 5, so H0 is accepted after 10 games.
    let tsuru = format!("tsuru={TSURU} --no-book --gtp --depth 1");
    let fake = format!("fake=bash {FAULTY} illegal");
    for (first, second, games, llr, verdict, pentanomial) in [
        (&tsuru, &fake, 16, 3.35, "H1 accepted", "0 0 0 0 8"),
        (&fake, &tsuru, 10, -3.67, "H0 accepted", "5 0 0 0 0"),
    ] {
        let dir = out_dir(&format!("sprt-{games}"));
        let output = run_match(
            &dir,
            &[
                "--engine", first, "--engine", second, "--games", "100", "--sprt", "0,200",
            ],
        );
        let stdout = text(&output.stdout);
        let stderr = text(&output.stderr);
        assert!(output.status.success(), "{stdout}{stderr}");
        assert_eq!(read_games(&dir, games).len(), games);
        assert_eq!(
            sprt_line(&stdout),
            (
                llr,
                "(bounds -2.94 .. 2.94), H1 accepted"
                    .replace("H1 accepted", verdict)
                    .as_str()
            )
        );
        let name = first.split('=').next().unwrap();
        assert!(
            stdout.contains(&format!(
                "SPRT elo0 0, elo1 200, alpha 0.05, beta 0.05: {} pairs scoring 0 / 0.5 / 1 / \
                 1.5 / 2 points for {name}: {pentanomial}\n",
                games / 2
            )),
            "{stdout}"
        );
        // The progress lines show the running LLR: 0.418890 after the first pair won twice,
        // -0.734693 after one lost twice (separate calculation).
        assert!(stderr.contains("at most 100 games"), "{stderr}");
        assert!(
            stderr.lines().any(|line| line.starts_with("[2/100] ")
                && line.ends_with(if games == 16 { "llr 0.42" } else { "llr -0.73" })),
            "{stderr}"
        );
        let results = std::fs::read_to_string(dir.join("results.txt")).unwrap();
        assert_eq!(results, stdout);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn an_sprt_match_with_games_in_flight_completes_its_pairs() {
    // Two games at a time: when the bound is reached after 8 pairs, a game under way may add
    // one more pair, which is finished rather than left half played (LLR 3.765917 for 9 pairs
    // won twice, in a separate calculation).
    let dir = out_dir("sprt-concurrent");
    let tsuru = format!("tsuru={TSURU} --no-book --gtp --depth 1");
    let fake = format!("fake=bash {FAULTY} illegal");
    let output = run_match(
        &dir,
        &[
            "--engine",
            &tsuru,
            "--engine",
            &fake,
            "--sprt",
            "0,200",
            "--concurrency",
            "2",
        ],
    );
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    let lines = std::fs::read_to_string(dir.join("games.txt")).unwrap();
    let games = lines.lines().count();
    assert!(games == 16 || games == 18, "{games} games:\n{lines}");
    read_games(&dir, games);
    // The verdict is that of the crossing; a ninth pair shows where the LLR was then.
    let expected = if games == 16 {
        (3.35, "(bounds -2.94 .. 2.94), H1 accepted")
    } else {
        (
            3.77,
            "(bounds -2.94 .. 2.94), H1 accepted when it reached 3.35 after 8 pairs",
        )
    };
    assert_eq!(sprt_line(&stdout), expected);
    assert!(!stdout.contains("incomplete"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_resumed_sprt_match_recomputes_the_test_from_its_games() {
    let tsuru = format!("tsuru={TSURU} --no-book --gtp --depth 1");
    let fake = format!("fake=bash {FAULTY} illegal");
    let args = ["--engine", &tsuru, "--engine", &fake, "--sprt", "0,200"];
    let straight_dir = out_dir("sprt-straight");
    let output = run_match(&straight_dir, &args);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let straight = text(&output.stdout);

    // Stopped at 6 games, inconclusive (3 pairs: llr 1.26 in a separate calculation).
    let dir = out_dir("sprt-resumed");
    let mut short = args.to_vec();
    short.extend(["--games", "6"]);
    let output = run_match(&dir, &short);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        sprt_line(&stdout),
        (1.26, "(bounds -2.94 .. 2.94), inconclusive")
    );
    // Resumed without the limit: it goes on to the same stop, with the same table.
    let mut resumed = args.to_vec();
    resumed.push("--resume");
    let output = run_match(&dir, &resumed);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("at most 20000 games (6 already played)"),
        "{stderr}"
    );
    assert_eq!(text(&output.stdout), straight);
    assert_eq!(read_games(&dir, 16).len(), 16);
    // Resumed once more, the verdict is already in games.txt: nothing is played.
    let output = run_match(&dir, &resumed);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("reached its verdict in the games already played"),
        "{stderr}"
    );
    assert_eq!(text(&output.stdout), straight);
    assert_eq!(read_games(&dir, 16).len(), 16);
    std::fs::remove_dir_all(&straight_dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_and_engines_that_cannot_start_are_errors() {
    let dir = out_dir("bad");
    for (args, message) in [
        (vec!["--engine", "a=x"], "exactly two engines"),
        (
            vec![
                "--engine",
                "a=/nonexistent/engine",
                "--engine",
                "b=/nonexistent/too",
            ],
            "cannot start",
        ),
        (
            vec![
                "--engine",
                "a=x",
                "--engine",
                "b=y",
                "--openings",
                "/nonexistent.txt",
            ],
            "reading /nonexistent.txt",
        ),
    ] {
        let output = run_match(&dir, &args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = text(&output.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The trained evaluation against evaluation v1 at depth 4 over 40 XOT openings, colours
/// swapped (80 games). Slow; run by hand: `cargo test --release --test match -- --ignored`.
#[test]
#[ignore]
fn patterns_beat_evaluation_v1_at_depth_4() {
    let dir = out_dir("patterns-v1");
    let patterns = format!("patterns={TSURU} --no-book --gtp --depth 4");
    let v1 = format!("v1={TSURU} --no-book --gtp --depth 4 --eval v1");
    let output = run_match(
        &dir,
        &[
            "--engine", &patterns, "--engine", &v1, "--games", "80", "--seed", "2026",
        ],
    );
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    println!("{stdout}");
    let [games, wins, draws, _, _] = row(&stdout, "patterns");
    assert_eq!(games, 80);
    let score = (wins as f64 + 0.5 * draws as f64) / games as f64;
    assert!(score >= 0.75, "patterns scored {:.1}%", 100.0 * score);
    std::fs::remove_dir_all(&dir).unwrap();
}
