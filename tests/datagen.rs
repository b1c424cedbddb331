//! `tsuru datagen` as a long run uses it: stopped and resumed, or split into shards, it writes
//! exactly the games of one uninterrupted run; a file made with other settings or other
//! weights is refused, and its header names the weights that played. `tsuru merge` joins the
//! shards of a `--shard K/N` run into that run's file, and refuses shards of other runs or
//! unfinished ones.

mod common;

use common::TSURU;

use std::path::PathBuf;
use std::process::Command;

use tsuru_core::eval::pattern::Weights;
use tsuru_core::eval::SHIPPED_WEIGHTS;
use tsuru_core::formats::selfplay::read_file;

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

fn merge(out: &PathBuf, shards: &[&PathBuf]) -> std::process::Output {
    Command::new(TSURU)
        .args(["merge", "--out"])
        .arg(out)
        .args(shards)
        .output()
        .unwrap()
}

fn succeeded(out: &std::process::Output) -> bool {
    if !out.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    }
    out.status.success()
}

#[test]
fn two_shards_merged_equal_one_unsharded_run() {
    // Games 3 .. 9 (7 of them): shard 0/2 plays 4, 6, 8 and shard 1/2 plays 3, 5, 7, 9.
    let run = ["--games", "7", "--first-index", "3"];
    let whole = path("run-whole.txt");
    assert!(succeeded(&datagen(&whole, &run)));
    let whole_text = std::fs::read_to_string(&whole).unwrap();
    assert_eq!(game_lines(&whole_text).len(), 7);

    let shard = |k: &'static str| -> Vec<&'static str> { [&run[..], &["--shard", k]].concat() };
    let first = path("run-shard-0.txt");
    let second = path("run-shard-1.txt");
    assert!(succeeded(&datagen(&first, &shard("0/2"))));
    assert!(succeeded(&datagen(&second, &shard("1/2"))));
    let first_text = std::fs::read_to_string(&first).unwrap();
    let header = whole_text.lines().next().unwrap();
    assert_eq!(
        first_text.lines().next().unwrap(),
        format!("{header} shard 0/2 first 3 games 7")
    );
    let indices = |text: &str| -> Vec<String> {
        game_lines(text)
            .iter()
            .map(|l| l.split(' ').next().unwrap().to_string())
            .collect()
    };
    assert_eq!(indices(&first_text), ["4", "6", "8"]);
    assert_eq!(
        indices(&std::fs::read_to_string(&second).unwrap()),
        ["3", "5", "7", "9"]
    );

    // A shard stopped in the middle of its third game is finished by the same command.
    let second_text = std::fs::read_to_string(&second).unwrap();
    let lines = game_lines(&second_text);
    let cut = second_text.len() - lines[3].len() - 1 - lines[2].len() / 2 - 1;
    std::fs::write(&second, &second_text[..cut]).unwrap();
    assert!(succeeded(&datagen(&second, &shard("1/2"))));
    assert_eq!(std::fs::read_to_string(&second).unwrap(), second_text);
    // Run again when finished, it plays nothing more.
    assert!(succeeded(&datagen(&second, &shard("1/2"))));
    assert_eq!(std::fs::read_to_string(&second).unwrap(), second_text);

    // Merged in either order: the unsharded run's file, byte for byte.
    for order in [[&first, &second], [&second, &first]] {
        let merged = path("run-merged.txt");
        assert!(succeeded(&merge(&merged, &order)));
        assert_eq!(std::fs::read_to_string(&merged).unwrap(), whole_text);
    }
}

#[test]
fn merges_refuse_incompatible_or_incomplete_shards() {
    let shard = |name: &str, k: &str, extra: &[&str]| -> PathBuf {
        let file = path(name);
        let args = [&["--games", "4", "--shard", k][..], extra].concat();
        assert!(succeeded(&datagen(&file, &args)));
        file
    };
    let a = shard("bad-0.txt", "0/2", &[]);
    let b = shard("bad-1.txt", "1/2", &[]);
    let third = shard("bad-1-of-3.txt", "1/3", &[]);
    let other_games = shard("bad-1-six.txt", "1/2", &["--games", "6"]);
    let other_first = shard("bad-1-first.txt", "1/2", &["--first-index", "2"]);
    let other_seed = path("bad-1-seed.txt");
    let out = Command::new(TSURU)
        .args(["datagen", "--out"])
        .arg(&other_seed)
        .args(["--depth", "2", "--solve-empties", "12", "--seed", "6"])
        .args(["--games", "4", "--shard", "1/2"])
        .output()
        .unwrap();
    assert!(succeeded(&out));
    let whole = path("bad-whole.txt");
    assert!(succeeded(&datagen(&whole, &["--games", "4"])));
    // Shard 1/2 with its last game missing, and with its last game cut in half.
    let b_text = std::fs::read_to_string(&b).unwrap();
    let last = game_lines(&b_text)[1].len();
    let short = path("bad-1-short.txt");
    std::fs::write(&short, &b_text[..b_text.len() - last - 1]).unwrap();
    let cut = path("bad-1-cut.txt");
    std::fs::write(&cut, &b_text[..b_text.len() - last / 2]).unwrap();

    let merged = path("bad-merged.txt");
    for (shards, error) in [
        (vec![&a], "shards missing: 1/2"),
        (vec![&a, &a, &b], "are both shard 0/2"),
        (vec![&a, &third], "not shards of one run"),
        (vec![&a, &other_games], "not shards of one run"),
        (vec![&a, &other_first], "not shards of one run"),
        (vec![&a, &other_seed], "not shards of one run"),
        (vec![&a, &short], "holds 1 of the 2 games of shard 1/2"),
        (vec![&a, &cut], "unfinished shard"),
        (vec![&a, &whole], "is not a shard"),
        (vec![&a, &merged], "is one of the shards"),
    ] {
        let out = merge(&merged, &shards);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{shards:?}: {stderr}");
        assert!(stderr.contains(error), "{shards:?}: {stderr}");
        assert!(
            !merged.exists(),
            "{shards:?}: a refused merge wrote its output"
        );
    }
    // The shards of one run merge; a shard is continued only as the same shard of the run.
    assert!(succeeded(&merge(&merged, &[&b, &a])));
    assert_eq!(
        std::fs::read_to_string(&merged).unwrap(),
        std::fs::read_to_string(&whole).unwrap()
    );
    let out = datagen(&a, &["--games", "4", "--shard", "1/2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("other settings"));
    let out = datagen(&a, &["--games", "4"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("other settings"));
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
        vec![
            "datagen", "--out", "/tmp/x", "--games", "2", "--shard", "2/2",
        ],
        vec!["datagen", "--out", "/tmp/x", "--games", "2", "--shard", "1"],
        vec![
            "datagen", "--out", "/tmp/x", "--games", "2", "--format", "v5",
        ],
    ] {
        let out = Command::new(TSURU).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn the_header_names_the_players_weights() {
    let shipped = path("shipped.txt");
    let v3 = ["--format", "v3"];
    assert!(datagen(&shipped, &[&["--games", "1"][..], &v3].concat())
        .status
        .success());
    let text = std::fs::read_to_string(&shipped).unwrap();
    // The engine's evaluation: the shipped tables with the shipped term.
    let id = tsuru_core::eval::EvalBundle::shipped()
        .weights_id()
        .unwrap()
        .0;
    assert_eq!(
        text.lines().next().unwrap(),
        format!("# tsuru self-play v3 seed 5 depth 2 solve 12 random 8 30 weights {id:08x}")
    );

    // By default a new file is v4: the same games in the compact form.
    let compact = path("compact.txt");
    assert!(datagen(&compact, &["--games", "2"]).status.success());
    let compact_text = std::fs::read_to_string(&compact).unwrap();
    assert_eq!(
        compact_text.lines().next().unwrap(),
        format!("# tsuru self-play v4 seed 5 depth 2 solve 12 random 8 30 weights {id:08x}")
    );
    let (_, compact_games) = read_file(&compact_text).unwrap();
    let (_, text_games) = read_file(&text).unwrap();
    assert_eq!(compact_games.len(), 2);
    assert_eq!(compact_games[..1], text_games[..]);

    // A v2 file (no search scores: begun before they were stored) is continued as v2, its
    // games without scores, the same games otherwise.
    let v2 = path("v2.txt");
    let strip = |line: &str| match line.rsplit_once(" s") {
        Some((game, _)) if !line.starts_with('#') => game.to_string(),
        _ => line.replacen(" v3 ", " v2 ", 1),
    };
    let v2_text: String = text.lines().map(|l| strip(l) + "\n").collect();
    std::fs::write(&v2, &v2_text).unwrap();
    assert!(datagen(&v2, &["--games", "2"]).status.success());
    // A v3 file is continued as v3 without `--format`, the second game as the v4 run's.
    assert!(datagen(&shipped, &["--games", "2"]).status.success());
    let v3_two = std::fs::read_to_string(&shipped).unwrap();
    assert!(v3_two.starts_with(text.lines().next().unwrap()));
    assert_eq!(read_file(&v3_two).unwrap().1, compact_games);
    let v2_two = std::fs::read_to_string(&v2).unwrap();
    assert_eq!(v2_two.lines().count(), 3);
    let expected: String = v3_two.lines().map(|l| strip(l) + "\n").collect();
    assert_eq!(v2_two, expected);
    assert!(v3_two.lines().skip(1).all(|l| l.split(' ').count() == 6));
    std::fs::write(&shipped, &text).unwrap();

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
        header.starts_with("# tsuru self-play v4 ")
            && header.contains(&format!("weights {other_id:08x}\n")),
        "{header}"
    );
    let out = datagen(&shipped, &[&["--games", "2"][..], &eval_file].concat());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("other settings"));
    assert_eq!(std::fs::read_to_string(&shipped).unwrap(), text);

    // A v1 file (weights not recorded) is not continued; a damaged weights file is refused.
    let v1 = path("v1.txt");
    let v1_text =
        v2_text
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

#[test]
fn a_damaged_shard_is_refused_with_the_line_named() {
    // Two finished shards; in one, a move of its second game is changed to one that is not
    // legal there (a1 is never legal in the first moves).
    let (a, b) = (path("damaged-a.txt"), path("damaged-b.txt"));
    let shard = |k| ["--games", "4", "--shard", k, "--format", "v3"];
    assert!(succeeded(&datagen(&a, &shard("0/2"))));
    assert!(succeeded(&datagen(&b, &shard("1/2"))));
    let text = std::fs::read_to_string(&a).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let game = lines.iter().position(|l| !l.starts_with('#')).unwrap() + 1;
    let mut words: Vec<String> = lines[game].split(' ').map(String::from).collect();
    let moves = &mut words[4];
    moves.replace_range(4..6, "a1");
    lines[game] = words.join(" ");
    std::fs::write(&a, lines.join("\n") + "\n").unwrap();
    let file = a.display().to_string();

    let merged = merge(&path("damaged-merged.txt"), &[&a, &b]);
    assert!(!merged.status.success());
    let said = String::from_utf8_lossy(&merged.stderr);
    assert!(
        said.contains(&file) && said.contains(&format!("line {}: illegal move", game + 1)),
        "{said}"
    );
    assert!(!path("damaged-merged.txt").exists(), "nothing is written");

    // Resuming the shard refuses it too, and leaves it as it is.
    let resumed = datagen(&a, &["--games", "6", "--shard", "0/2"]);
    assert!(!resumed.status.success());
    assert!(String::from_utf8_lossy(&resumed.stderr).contains("illegal move"));
    assert_eq!(
        std::fs::read_to_string(&a).unwrap(),
        lines.join("\n") + "\n"
    );

    // The same in the compact form (v4): a move's rank beyond the legal moves there (no
    // position of a game's first moves has 62), named by line and move.
    let (c, d) = (path("damaged-c.txt"), path("damaged-d.txt"));
    let shard = |k| ["--games", "4", "--shard", k];
    assert!(succeeded(&datagen(&c, &shard("0/2"))));
    assert!(succeeded(&datagen(&d, &shard("1/2"))));
    let text = std::fs::read_to_string(&c).unwrap();
    assert!(text.starts_with("# tsuru self-play v4 "));
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut words: Vec<String> = lines[game].split(' ').map(String::from).collect();
    words[4].replace_range(2..3, "z");
    lines[game] = words.join(" ");
    std::fs::write(&c, lines.join("\n") + "\n").unwrap();
    let merged = merge(&path("damaged-merged.txt"), &[&c, &d]);
    assert!(!merged.status.success());
    let said = String::from_utf8_lossy(&merged.stderr);
    assert!(
        said.contains(&c.display().to_string())
            && said.contains(&format!("line {}: move 3: illegal move", game + 1)),
        "{said}"
    );
    assert!(!path("damaged-merged.txt").exists(), "nothing is written");
}

/// `tsuru train --recorded-scores` labels the searched positions of a v3 file's training
/// games with their recorded scores: it says how many, and that is the number of scores the
/// training games hold (game 0 is held out, as every `--holdout-every`-th from the first);
/// a v2 file gives it none.
#[test]
fn training_reads_the_recorded_scores() {
    let v3 = path("train-v3.txt");
    assert!(datagen(&v3, &["--games", "4", "--format", "v3"])
        .status
        .success());
    let text = std::fs::read_to_string(&v3).unwrap();
    let scores_of = |line: &str| {
        let field = line.rsplit_once(' ').unwrap().1;
        field[1..].chars().filter(|&c| c != '~').count()
    };
    let lines = game_lines(&text);
    let expected: usize = lines[1..].iter().map(|l| scores_of(l)).sum();
    assert!(expected > 20);
    let train = |file: &PathBuf| {
        Command::new(TSURU)
            .args(["train", "--selfplay"])
            .arg(file)
            .args([
                "--recorded-scores",
                "--holdout-every",
                "1000",
                "--epochs",
                "2",
            ])
            .args(["--out"])
            .arg(path("recorded.tsw"))
            .output()
            .unwrap()
    };
    let line = format!("{expected} training positions take their games' recorded search scores");
    // The same games in a v4 file give the same scores.
    let v4 = path("train-v4.txt");
    assert!(datagen(&v4, &["--games", "4"]).status.success());
    for file in [&v3, &v4] {
        let out = train(file);
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{said}");
        assert!(said.lines().any(|l| l == line), "{said}");
    }
    let v2 = path("train-v2.txt");
    std::fs::write(&v2, without_scores(&text)).unwrap();
    let out = train(&v2);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(
        said.lines()
            .any(|l| l == "0 training positions take their games' recorded search scores"),
        "{said}"
    );
}

/// `text`, a v3 self-play file, as the v2 file of the same games (no scores).
fn without_scores(text: &str) -> String {
    text.lines()
        .map(|l| match l.rsplit_once(" s") {
            Some((game, _)) if !l.starts_with('#') => format!("{game}\n"),
            _ => format!("{}\n", l.replacen(" v3 ", " v2 ", 1)),
        })
        .collect()
}

fn rescore(input: &PathBuf, out: &PathBuf, extra: &[&str]) -> std::process::Output {
    Command::new(TSURU)
        .arg("rescore")
        .arg("--in")
        .arg(input)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

/// `tsuru rescore` turns a v2 file into the v3 file of the same games: at the players' depth
/// (two plies here, where a search's value does not depend on what its table held before)
/// exactly the file a v3 run writes, on one thread or two, and the same again when a stopped
/// run is continued; an output of other games and a file played with other weights are
/// refused.
#[test]
fn rescoring_a_v2_file_gives_the_v3_run() {
    let v3 = path("rescore-v3.txt");
    assert!(datagen(&v3, &["--games", "5", "--format", "v3"])
        .status
        .success());
    let whole = std::fs::read_to_string(&v3).unwrap();
    let v2 = path("rescore-v2.txt");
    std::fs::write(&v2, without_scores(&whole)).unwrap();
    for threads in ["1", "2"] {
        let out = path("rescored.txt");
        let done = rescore(&v2, &out, &["--threads", threads]);
        assert!(
            succeeded(&done),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
        assert_eq!(std::fs::read_to_string(&out).unwrap(), whole);
    }
    // Stopped in the middle of writing the third game: continued to the same file.
    let out = path("rescored-partial.txt");
    let lines = game_lines(&whole);
    let cut = whole.find(lines[2]).unwrap() + lines[2].len() / 2;
    std::fs::write(&out, &whole[..cut]).unwrap();
    assert!(succeeded(&rescore(&v2, &out, &["--threads", "2"])));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), whole);
    // A v3 input is scored again the same way.
    let again = path("rescored-again.txt");
    assert!(succeeded(&rescore(&v3, &again, &[])));
    assert_eq!(std::fs::read_to_string(&again).unwrap(), whole);
    // A v4 input gives the v4 file of the run.
    let v4 = path("rescore-v4.txt");
    assert!(datagen(&v4, &["--games", "5"]).status.success());
    let again = path("rescored-v4.txt");
    assert!(succeeded(&rescore(&v4, &again, &[])));
    assert_eq!(
        std::fs::read_to_string(&again).unwrap(),
        std::fs::read_to_string(&v4).unwrap()
    );

    // An output that holds other games (the first one left out) is refused and kept.
    let other = path("rescored-other.txt");
    let header_end = whole.find('\n').unwrap() + 1;
    let skipped = format!("{}{}\n", &whole[..header_end], lines[1]);
    std::fs::write(&other, &skipped).unwrap();
    let refused = rescore(&v2, &other, &[]);
    assert!(!succeeded(&refused));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("does not hold the first games"));
    assert_eq!(std::fs::read_to_string(&other).unwrap(), skipped);
    // A file whose header names other weights than the players' searched with.
    let foreign = path("rescore-foreign.txt");
    let v2_text = without_scores(&whole);
    let id = format!(
        "{}",
        tsuru_core::eval::EvalBundle::shipped()
            .weights_id()
            .unwrap()
    );
    assert!(v2_text.contains(&id));
    std::fs::write(&foreign, v2_text.replacen(&id, "0badc0de", 1)).unwrap();
    let refused = rescore(&foreign, &path("rescored-foreign.txt"), &[]);
    assert!(!succeeded(&refused));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("was played with weights 0badc0de"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}
