//! `tsuru datagen` as a long run uses it: stopped and resumed, or split into shards, it writes
//! exactly the games of one uninterrupted run; a file made with other settings or other
//! weights is refused, and its header names the weights that played.

mod common;

use common::TSURU;

use std::path::PathBuf;
use std::process::Command;

use tsuru::eval::pattern::Weights;
use tsuru::eval::SHIPPED_WEIGHTS;

/// Small, quick settings: two-ply players, solved from 12 empties.
const SETTINGS: [&str; 6] = ["--depth", "2", "--solve-empties", "12", "--seed", "5"];

fn path(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("datagen");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(name);
    let _ = std::fs::remove_file(&file);
    file
}

fn datagen(out: &PathBuf, extra: &[&str]) -> std::process::Output {
    Command::new(TSURU)
        .arg("datagen")
        .arg("--out")
        .arg(out)
        .args(SETTINGS)
        .args(extra)
        .output()
        .unwrap()
}

fn game_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| !l.starts_with('#')).collect()
}

#[test]
fn resumed_and_sharded_runs_equal_one_run() {
    let whole = path("whole.txt");
    assert!(datagen(&whole, &["--games", "6"]).status.success());
    let whole_text = std::fs::read_to_string(&whole).unwrap();
    assert_eq!(game_lines(&whole_text).len(), 6);

    // Stopped after 2 games, resumed twice with the same command and a larger count.
    let resumed = path("resumed.txt");
    for games in ["2", "4", "6", "6"] {
        let out = datagen(&resumed, &["--games", games]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(std::fs::read_to_string(&resumed).unwrap(), whole_text);

    // Killed while writing the last game: the partial line is dropped and the game replayed.
    let cut = whole_text.len() - game_lines(&whole_text)[5].len() / 2 - 1;
    let partial = path("partial.txt");
    std::fs::write(&partial, &whole_text[..cut]).unwrap();
    assert!(datagen(&partial, &["--games", "6"]).status.success());
    assert_eq!(std::fs::read_to_string(&partial).unwrap(), whole_text);

    // Two shards by index range, concatenated without the second header.
    let first = path("first.txt");
    let second = path("second.txt");
    assert!(datagen(&first, &["--games", "3"]).status.success());
    assert!(datagen(&second, &["--games", "3", "--first-index", "3"])
        .status
        .success());
    let second_text = std::fs::read_to_string(&second).unwrap();
    let merged = std::fs::read_to_string(&first).unwrap()
        + &game_lines(&second_text)
            .iter()
            .map(|l| format!("{l}\n"))
            .collect::<String>();
    assert_eq!(merged, whole_text);
}

#[test]
fn other_settings_and_bad_arguments_are_refused() {
    let file = path("settings.txt");
    assert!(datagen(&file, &["--games", "1"]).status.success());
    let before = std::fs::read_to_string(&file).unwrap();
    let out = Command::new(TSURU)
        .args(["datagen", "--out"])
        .arg(&file)
        .args([
            "--games",
            "2",
            "--depth",
            "3",
            "--solve-empties",
            "12",
            "--seed",
            "5",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("other settings"));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        before,
        "the file was changed"
    );

    for args in [
        vec!["datagen", "--games", "2"],
        vec![
            "datagen", "--out", "/tmp/x", "--games", "2", "--random", "9",
        ],
        vec!["datagen", "--out", "/tmp/x", "--games", "2", "--depth", "0"],
        vec!["datagen", "--out", "/tmp/x", "--games", "two"],
    ] {
        let out = Command::new(TSURU).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn the_header_names_the_players_weights() {
    let shipped = path("shipped.txt");
    assert!(datagen(&shipped, &["--games", "1"]).status.success());
    let text = std::fs::read_to_string(&shipped).unwrap();
    let id = Weights::file_id(SHIPPED_WEIGHTS).unwrap();
    assert_eq!(
        text.lines().next().unwrap(),
        format!("# tsuru self-play v2 seed 5 depth 2 solve 12 random 8 30 weights {id:08x}")
    );

    // Other weights (the shipped ones with one bias changed) are named by their own checksum,
    // and may not continue a file that the shipped weights started.
    let mut other = Weights::from_bytes(SHIPPED_WEIGHTS).unwrap();
    other.bias[5] += 1;
    let other_bytes = other.to_bytes();
    let other_file = path("other.tsw");
    std::fs::write(&other_file, &other_bytes).unwrap();
    let other_id = Weights::file_id(&other_bytes).unwrap();
    assert_ne!(other_id, id);
    let with_other = path("with-other.txt");
    let eval_file = ["--eval-file", other_file.to_str().unwrap()];
    let out = datagen(&with_other, &[&["--games", "1"][..], &eval_file].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let header = std::fs::read_to_string(&with_other).unwrap();
    assert!(
        header.starts_with("# tsuru self-play v2 ")
            && header.contains(&format!("weights {other_id:08x}\n")),
        "{header}"
    );
    let out = datagen(&shipped, &[&["--games", "2"][..], &eval_file].concat());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("other settings"));
    assert_eq!(std::fs::read_to_string(&shipped).unwrap(), text);

    // A v1 file (weights not recorded) is not continued; a damaged weights file is refused.
    let v1 = path("v1.txt");
    let v1_text = text
        .replacen(" v2 ", " v1 ", 1)
        .replacen(&format!(" weights {id:08x}"), "", 1);
    std::fs::write(&v1, &v1_text).unwrap();
    let out = datagen(&v1, &["--games", "2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("v1 file"));
    assert_eq!(std::fs::read_to_string(&v1).unwrap(), v1_text);
    let mut damaged = other_bytes.clone();
    damaged[200] ^= 4;
    std::fs::write(&other_file, &damaged).unwrap();
    let out = datagen(
        &path("damaged.txt"),
        &[&["--games", "1"][..], &eval_file].concat(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("checksum"));
}
