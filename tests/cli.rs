//! The command line of the whole binary: `--help` of every subcommand, suggestions for
//! mistyped subcommands and options, and a quiet end when stdout is closed.

mod common;

use common::run_tsuru as tsuru;
use common::TSURU;

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Longest wait for a process expected to end on its own.
const DEADLINE: Duration = Duration::from_secs(120);

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The subcommand names listed under "Subcommands:" in `tsuru --help`.
fn subcommands() -> Vec<String> {
    let help = tsuru(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    let stdout = text(&help.stdout);
    let section = stdout
        .split("Subcommands:\n")
        .nth(1)
        .expect("a Subcommands section in --help");
    section
        .lines()
        .take_while(|line| !line.is_empty())
        // Entries are "  NAME  description"; their usage lines are indented further.
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .map(|line| line.split_whitespace().next().unwrap().to_string())
        .collect()
}

/// Waits for `child` to end by itself within [`DEADLINE`]; kills it and fails otherwise.
fn wait_bounded(child: &mut Child, what: &str) -> std::process::ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("waiting for tsuru") {
            return status;
        }
        if started.elapsed() > DEADLINE {
            child.kill().ok();
            child.wait().ok();
            panic!("{what}: still running after {DEADLINE:?}; killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits for `child` (with piped stderr) as [`wait_bounded`] does, and asserts that it ended
/// quietly: status 0 and no panic message.
fn assert_ends_quietly(child: &mut Child, what: &str) {
    let status = wait_bounded(child, what);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("reading stderr");
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    assert_ne!(status.code(), Some(101), "{what}: {stderr}");
    assert_eq!(status.code(), Some(0), "{what}: {stderr}");
}

#[test]
fn help_lists_every_subcommand() {
    let names = subcommands();
    for expected in [
        "perft", "solve", "bench", "match", "train", "datagen", "label", "merge", "book", "probcut",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} in {names:?}"
        );
    }
}

#[test]
fn every_subcommand_answers_help_with_its_usage() {
    for name in subcommands() {
        for flag in ["--help", "-h"] {
            let out = tsuru(&[&name, flag]);
            let stdout = text(&out.stdout);
            assert_eq!(out.status.code(), Some(0), "{name} {flag}: {out:?}");
            assert!(
                stdout.starts_with(&format!("usage: tsuru {name}")),
                "{name} {flag}: {stdout}"
            );
            assert!(
                out.stderr.is_empty(),
                "{name} {flag}: {}",
                text(&out.stderr)
            );
        }
    }
    // After other arguments too, and match keeps its longer help.
    let out = tsuru(&["match", "--games", "4", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("Options of tsuru match"));
    let out = tsuru(&["datagen", "--out", "x", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).starts_with("usage: tsuru datagen"));
}

#[test]
fn an_unknown_subcommand_suggests_the_nearest() {
    for (word, meant) in [
        ("perf", "perft"),
        ("sovle", "solve"),
        ("datagne", "datagen"),
    ] {
        let out = tsuru(&[word, "3"]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{word}: {stderr}");
        assert!(out.stdout.is_empty(), "{word}");
        assert!(
            stderr.contains(&format!(
                "unknown subcommand '{word}'; did you mean '{meant}'?"
            )),
            "{word}: {stderr}"
        );
    }
    // Nothing close: the error lists the subcommands instead.
    let out = tsuru(&["xyzzy"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("did you mean"), "{stderr}");
    assert!(stderr.contains("unknown subcommand 'xyzzy'"), "{stderr}");
    assert!(stderr.contains("perft, solve"), "{stderr}");
}

#[test]
fn unknown_options_suggest_the_nearest() {
    let cases: &[(&[&str], &str)] = &[
        (&["--levle", "5"], "--level"),
        (&["--gtp", "--hsh=8"], "--hash"),
        (&["perft", "--refrence", "3"], "--reference"),
        (&["solve", "x.obf", "--frist", "3"], "--first"),
        (&["bench", "--hsh", "8"], "--hash"),
        (&["match", "--gaems", "2"], "--games"),
        (&["match", "--resum"], "--resume"),
        (&["train", "--epoks", "3"], "--epochs"),
        (&["datagen", "--gmes", "5"], "--games"),
        (&["datagen", "--out", "x", "--sede"], "--seed"),
        (&["probcut", "--seeed", "1"], "--seed"),
        (&["probcut", "--hepl"], "--help"),
    ];
    for (args, meant) in cases {
        let out = tsuru(args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            stderr.contains(&format!("did you mean '{meant}'?")),
            "{args:?}: {stderr}"
        );
    }
    let out = tsuru(&["bench", "--frobnicate", "1"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("unexpected argument '--frobnicate'"),
        "{stderr}"
    );
    assert!(!stderr.contains("did you mean"), "{stderr}");
}

#[test]
fn perft_ends_quietly_when_its_reader_closes() {
    let mut child = Command::new(TSURU)
        .args(["perft", "99"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting tsuru perft");
    let mut reader = BufReader::new(child.stdout.take().expect("stdout"));
    for depth in 1..=4 {
        let mut line = String::new();
        reader.read_line(&mut line).expect("reading perft");
        assert!(
            line.starts_with(&format!("depth {depth:2}")),
            "line {depth}: {line}"
        );
    }
    // Depth 12 and beyond take seconds to minutes: the process only ends this soon if its
    // next line, written after this close, ends it.
    drop(reader);
    assert_ends_quietly(&mut child, "perft 99 | head -4");
}

#[test]
fn output_to_a_closed_pipe_ends_quietly() {
    let mut runs: Vec<Vec<String>> = vec![
        vec!["--help".into()],
        vec!["--version".into()],
        vec!["perft".into(), "99".into()],
        vec!["bench".into(), "--depth-offset".into(), "-20".into()],
        vec![
            "solve".into(),
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/fforum-1-19.obf"
            )
            .into(),
            "--hash".into(),
            "1".into(),
            "--last".into(),
            "0".into(),
        ],
    ];
    runs.extend(
        subcommands()
            .into_iter()
            .map(|name| vec![name, "--help".into()]),
    );
    for args in runs {
        // The read end is closed before the process starts, so its first write fails.
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let mut child = Command::new(TSURU)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting tsuru");
        // Stderr carries a few lines at most, well within a pipe's buffer, so waiting
        // first cannot block the process.
        assert_ends_quietly(&mut child, &args.join(" "));
    }
}

/// Every option of the shared search group (`GROUP`, src/cli/search_options.rs) is accepted
/// by the engine and by each tool that searches, and a value out of range is refused with the
/// same message by all of them.
#[test]
fn the_shared_search_options_read_the_same_everywhere() {
    use tsuru_core::cli::search_options::GROUP;
    // The engine (no subcommand) and the tools that take the whole group.
    let commands: &[&[&str]] = &[
        &[],
        &["accuracy"],
        &["bench"],
        &["book"],
        &["datagen"],
        &["decided"],
        &["solve"],
    ];
    let good = [
        ("--threads", "2"),
        ("--hash", "8"),
        ("--eval-file", "w.tsw"),
    ];
    assert_eq!(good.map(|(flag, _)| flag), GROUP.map(|option| option.flag));
    let bad = [
        ("--threads", "0", "the thread count must be from 1 to 512"),
        ("--threads", "513", "the thread count must be from 1 to 512"),
        (
            "--threads",
            "x",
            "the thread count must be a number, not \"x\"",
        ),
        (
            "--hash",
            "0",
            "the hash size must be between 1 and 65536 MiB",
        ),
        (
            "--hash",
            "65537",
            "the hash size must be between 1 and 65536 MiB",
        ),
    ];
    for command in commands {
        let name = command.first().copied().unwrap_or("the engine");
        let run = |extra: &[&str]| {
            // A last word no command knows: a parser that takes the option reaches it and
            // fails there, so that nothing runs.
            let args: Vec<&str> = command.iter().chain(extra).copied().collect();
            let out = tsuru(&args);
            assert_eq!(out.status.code(), Some(2), "{name} {extra:?}");
            text(&out.stderr)
        };
        for (flag, value) in good {
            let stderr = run(&[flag, value, "--zzz"]);
            assert!(stderr.contains("'--zzz'"), "{name} {flag}: {stderr}");
        }
        for (flag, value, message) in bad {
            let stderr = run(&[flag, value, "--zzz"]);
            assert_eq!(
                stderr,
                format!("tsuru: error: option {flag}: {message}\n"),
                "{name} {flag} {value}"
            );
        }
    }
}

/// Every option of the registry (`REGISTRY`, crates/tsuru-core/src/cli/search_options.rs) is
/// read with its one parser by the engine's flag and by a tool that takes it: each sample is
/// accepted by the parser, the engine and the tool, or refused by all three with the
/// parser's message (Python's keywords: python/tests/test_settings.py; NBoard's `set depth`
/// calls the same parser).
#[test]
fn every_registered_option_is_read_by_its_one_parser() {
    use tsuru_core::cli::search_options::REGISTRY;
    let dir = std::env::temp_dir().join(format!("tsuru-registry-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A game of one move from FFO #1 (14 empties): any level reviews it at once.
    let game = dir.join("ffo1.ggf");
    std::fs::write(
        &game,
        "(;GM[Othello]TY[8]BO[8 --XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- *]B[G8];)",
    )
    .unwrap();
    let game = game.to_str().unwrap();
    let samples: &[(&str, &[&str])] = &[
        ("--threads", &["1", "2", "0", "513", "x"]),
        ("--hash", &["1", "16", "0", "65537", "-3"]),
        ("--level", &["1", "60", "0", "61", "deep"]),
        ("--move-time", &["0.05", "0", "-1", "nan"]),
        ("--probcut", &["0", "1.1", "10", "10.5", "-1"]),
    ];
    let mut checked = 0;
    for option in REGISTRY.iter().filter(|o| o.flag != "--eval-file") {
        let (_, texts) = samples
            .iter()
            .find(|(flag, _)| *flag == option.flag)
            .unwrap_or_else(|| panic!("samples for {}", option.flag));
        for &text in *texts {
            let parsed = option.check(text);
            let tool: Vec<&str> = if option.flag == "--probcut" {
                vec![
                    "accuracy",
                    "tests/fixtures/fforum-1-19.obf",
                    "--depth",
                    "2",
                    "--last",
                    "1",
                ]
            } else {
                vec!["review", game, "--threads", "1"]
            };
            for command in [vec![], tool] {
                let mut args = command.clone();
                args.extend([option.flag, text]);
                let out = common::run_tsuru(&args);
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert_eq!(out.status.success(), parsed.is_ok(), "{args:?}: {stderr}");
                if let Err(err) = &parsed {
                    assert!(stderr.contains(&err.to_string()), "{args:?}: {stderr}");
                }
                checked += 1;
            }
        }
    }
    assert_eq!(
        checked,
        2 * samples.iter().map(|(_, t)| t.len()).sum::<usize>()
    );
}
