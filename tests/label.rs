//! `tsuru label` as a labelling job cut among machines uses it: the search values of a
//! positions file, unsharded or as shards joined by `tsuru merge`, are byte for byte the cache
//! that `tsuru train --search-labels D --search-cache FILE` writes for the same positions,
//! and `train` reads the merged file instead of searching. A stopped shard is finished by its
//! own command; shards of other jobs, missing or unfinished ones are refused.

mod common;

use common::TSURU;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn path(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("label");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(name);
    let _ = std::fs::remove_file(&file);
    file
}

fn tsuru(args: &[&str]) -> Output {
    Command::new(TSURU).args(args).output().unwrap()
}

fn succeeded(out: &Output) -> bool {
    if !out.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    }
    out.status.success()
}

fn text(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A positions file of 12 small self-play games (2-ply players, solved from 12 empties),
/// every 4th game held out: about 370 training positions in 9 games. Each test names its
/// own files (`test`), since the tests of this file run at once.
fn positions(test: &str) -> (PathBuf, PathBuf) {
    let games = path(&format!("{test}-games.txt"));
    let settings = ["--depth", "2", "--solve-empties", "12", "--seed", "3"];
    let out = tsuru(
        &[
            &["datagen", "--out", text(&games), "--games", "12"][..],
            &settings,
        ]
        .concat(),
    );
    assert!(succeeded(&out));
    let positions = path(&format!("{test}-positions.bin"));
    let out = tsuru(&[
        "train",
        "--selfplay",
        text(&games),
        "--holdout-every",
        "4",
        "--positions",
        text(&positions),
        "--positions-only",
    ]);
    assert!(succeeded(&out));
    assert!(positions.exists());
    (games, positions)
}

/// `tsuru train` on the games and positions with 2-ply search labels cached in `cache`, a
/// one-stage, one-epoch fit (the fit is not what is tested).
fn train_with_cache(games: &Path, positions: &Path, cache: &Path) -> Output {
    train_with_cache_and(games, positions, cache, &[])
}

/// [`train_with_cache`] with `extra` arguments.
fn train_with_cache_and(games: &Path, positions: &Path, cache: &Path, extra: &[&str]) -> Output {
    let args = [
        "train",
        "--selfplay",
        text(games),
        "--holdout-every",
        "4",
        "--positions",
        text(positions),
        "--search-labels",
        "2",
        "--search-cache",
        text(cache),
        "--stages",
        "1",
        "--epochs",
        "1",
    ];
    tsuru(&[&args[..], extra].concat())
}

fn label(positions: &Path, out: &Path, extra: &[&str]) -> Output {
    let args = [
        "label",
        "--positions",
        text(positions),
        "--depth",
        "2",
        "--out",
        text(out),
    ];
    tsuru(&[&args[..], extra].concat())
}

#[test]
fn two_label_shards_merged_equal_the_unsharded_values_and_train_reads_them() {
    let (games, positions) = positions("shards");
    // What train searches and writes by itself.
    let cache = path("train-cache.bin");
    let out = train_with_cache(&games, &positions, &cache);
    assert!(succeeded(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("searching"));
    let cache_bytes = std::fs::read(&cache).unwrap();
    let header_end = cache_bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    let description = std::str::from_utf8(&cache_bytes[8..header_end - 1]).unwrap();
    let count: usize = description
        .rsplit(" | ")
        .next()
        .unwrap()
        .strip_suffix(" training positions")
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(cache_bytes.len(), header_end + count);
    assert!(count > 200, "{count} positions");

    // Unsharded, on one thread or two: the same file.
    for threads in ["1", "2"] {
        let whole = path("whole.bin");
        assert!(succeeded(&label(
            &positions,
            &whole,
            &["--threads", threads]
        )));
        assert_eq!(std::fs::read(&whole).unwrap(), cache_bytes);
    }

    // Two shards, the second stopped part-way through a game and finished by its command.
    let first = path("shard-0.bin");
    let second = path("shard-1.bin");
    assert!(succeeded(&label(&positions, &first, &["--shard", "0/2"])));
    assert!(succeeded(&label(&positions, &second, &["--shard", "1/2"])));
    let second_bytes = std::fs::read(&second).unwrap();
    let values = |bytes: &[u8]| bytes.len() - (bytes.iter().position(|&b| b == b'\n').unwrap() + 1);
    let (first_values, second_values) = (
        values(&std::fs::read(&first).unwrap()),
        values(&second_bytes),
    );
    assert_eq!(
        first_values + second_values,
        count,
        "the shards hold every position once"
    );
    assert!(first_values > 0 && second_values > 0);
    std::fs::write(&second, &second_bytes[..second_bytes.len() - 7]).unwrap();
    let out = label(&positions, &second, &["--shard", "1/2"]);
    assert!(succeeded(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("of an unfinished game"), "{stderr}");
    assert_eq!(std::fs::read(&second).unwrap(), second_bytes);

    // Merged in either order: train's cache, byte for byte; train reads it and searches not.
    for order in [[&first, &second], [&second, &first]] {
        let merged = path("merged.bin");
        let out = tsuru(&[
            "merge",
            "--out",
            text(&merged),
            text(order[0]),
            text(order[1]),
        ]);
        assert!(succeeded(&out));
        assert_eq!(std::fs::read(&merged).unwrap(), cache_bytes);
        let out = train_with_cache(&games, &positions, &merged);
        assert!(succeeded(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("search values from"), "{stderr}");
        assert!(!stderr.contains("searching"), "{stderr}");
    }

    // Refused: a missing shard, an unfinished one, one of another depth; a label run on a
    // file made for another depth or shard.
    let unfinished = path("unfinished.bin");
    std::fs::write(&unfinished, &second_bytes[..second_bytes.len() - 1]).unwrap();
    let deeper = path("deeper.bin");
    let out = tsuru(&[
        "label",
        "--positions",
        text(&positions),
        "--depth",
        "3",
        "--out",
        text(&deeper),
        "--shard",
        "1/2",
    ]);
    assert!(succeeded(&out));
    let merged = path("refused.bin");
    for (shards, error) in [
        (vec![&first], "shards missing: 1/2"),
        (vec![&first, &unfinished], "finish it first"),
        (vec![&first, &deeper], "not shards of one job"),
        (vec![&first, &cache], "is not a shard"),
        (vec![&first, &games], "must all be self-play files"),
    ] {
        let mut args = vec!["merge", "--out", text(&merged)];
        args.extend(shards.iter().map(|s| text(s)));
        let out = tsuru(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{shards:?}: {stderr}");
        assert!(stderr.contains(error), "{shards:?}: {stderr}");
        assert!(!merged.exists());
    }
    for (file, shard) in [(&deeper, "1/2"), (&second, "0/2"), (&second, "1/3")] {
        let before = std::fs::read(file).unwrap();
        let out = label(&positions, file, &["--shard", shard]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("other positions, depth"));
        assert_eq!(std::fs::read(file).unwrap(), before, "the file was changed");
    }
}

/// The search values of other weights (`tsuru label --eval-file`, `tsuru train
/// --search-eval-file`): the two write the same cache, which names those weights, differs
/// from the shipped weights' values, and is read back only for the same weights.
#[test]
fn search_values_of_other_weights_are_named_and_kept_apart() {
    use tsuru_core::eval::pattern::Weights;
    use tsuru_core::eval::SHIPPED_WEIGHTS;
    let (games, positions) = positions("other-weights");
    // The shipped weights with every stage's bias three discs higher: other values.
    let mut other = Weights::from_bytes(SHIPPED_WEIGHTS).unwrap();
    for bias in other.bias.iter_mut() {
        *bias += 300;
    }
    let other_bytes = other.to_bytes();
    let other_file = path("other-weights.tsw");
    std::fs::write(&other_file, &other_bytes).unwrap();
    let other_id = format!("{:08x}", Weights::file_id(&other_bytes).unwrap());

    let labelled = path("other-labels.bin");
    assert!(succeeded(&label(
        &positions,
        &labelled,
        &["--eval-file", text(&other_file)]
    )));
    let shipped = path("shipped-labels.bin");
    assert!(succeeded(&label(&positions, &shipped, &[])));
    let (other_values, shipped_values) = (
        std::fs::read(&labelled).unwrap(),
        std::fs::read(&shipped).unwrap(),
    );
    let header = |bytes: &[u8]| {
        let end = bytes.iter().position(|&b| b == b'\n').unwrap();
        String::from_utf8(bytes[..end].to_vec()).unwrap()
    };
    assert!(header(&other_values).contains(&format!("with weights {other_id} ")));
    assert!(!header(&shipped_values).contains(&other_id));
    assert_ne!(
        other_values[header(&other_values).len()..],
        shipped_values[header(&shipped_values).len()..]
    );

    // train with those weights writes the same cache, and reads it back without searching.
    let cache = path("other-cache.bin");
    let with_other = |cache: &Path| {
        train_with_cache_and(
            &games,
            &positions,
            cache,
            &["--search-eval-file", text(&other_file)],
        )
    };
    assert!(succeeded(&with_other(&cache)));
    assert_eq!(std::fs::read(&cache).unwrap(), other_values);
    let out = with_other(&labelled);
    assert!(succeeded(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("search values from"));
    // The shipped weights do not take the other weights' values.
    let out = train_with_cache(&games, &positions, &labelled);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds search values of other"));
}
