//! The training data pipeline run as docs/training.md shows it, with GNU parallel: two
//! `datagen` shards and two `label` shards, run side by side on this machine and on two
//! "machines" reached through parallel's remote mode (`--sshlogin`, `--basefile`,
//! `--transferfile`, `--return`, `--cleanup`), merge into the files of one unsharded run.
//!
//! The remote mode runs through a stand-in for ssh (written by the test) whose hosts are
//! folders, so that everything parallel does over ssh (rsync of the files, the remote
//! commands, the clean-up) happens without a network. Needs `parallel` and `rsync`
//! (`apt-get install parallel rsync`); run by hand:
//! `cargo test --release --test pipeline -- --ignored`.

mod common;

use common::TSURU;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Small, quick games: two-ply players, solved from 12 empties.
const GAMES: [&str; 8] = [
    "--games",
    "24",
    "--depth",
    "2",
    "--solve-empties",
    "12",
    "--seed",
    "9",
];

/// The stand-in for ssh: skips ssh's options, takes the host (after any `user@`), and runs
/// the remote command with bash in the host's folder, as its home.
const FAKE_SSH: &str = r#"#!/bin/bash
while [[ "$1" == -* ]]; do
  case "$1" in -l|-p|-o|-S|-i|-F|-c|-e) shift 2 ;; *) shift ;; esac
done
host=${1#*@}; shift
[ "$1" = "--" ] && shift
dir="$(dirname "$0")/hosts/$host"
mkdir -p "$dir"
cd "$dir" && HOME="$PWD" exec bash -c "$*"
"#;

/// Runs `program args` in `dir`; panics with its stderr unless it succeeds.
fn run(dir: &Path, program: &str, args: &[&str]) {
    let out = Command::new(program)
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("{program} could not run ({e}): apt-get install parallel rsync")
        });
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn same(dir: &Path, a: &str, b: &str) {
    let (a_bytes, b_bytes) = (
        std::fs::read(dir.join(a)).unwrap(),
        std::fs::read(dir.join(b)).unwrap(),
    );
    assert!(a_bytes == b_bytes, "{a} and {b} differ");
}

#[test]
#[ignore]
fn gnu_parallel_runs_two_shards_like_one_run() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pipeline");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(TSURU, dir.join("tsuru")).unwrap();
    let ssh = dir.join("fake-ssh");
    std::fs::write(&ssh, FAKE_SSH).unwrap();
    std::fs::set_permissions(&ssh, std::fs::Permissions::from_mode(0o755)).unwrap();
    let ssh = ssh.to_str().unwrap();

    // One unsharded run, its positions, and the search values train writes for them.
    run(
        &dir,
        "./tsuru",
        &[&["datagen", "--out", "whole.txt"][..], &GAMES].concat(),
    );
    let positions = ["--selfplay", "whole.txt", "--positions", "positions.bin"];
    run(
        &dir,
        "./tsuru",
        &[&["train", "--positions-only"][..], &positions].concat(),
    );
    let search = ["--search-labels", "2", "--search-cache", "train-values.bin"];
    let fit = ["--stages", "1", "--epochs", "1"];
    run(
        &dir,
        "./tsuru",
        &[&["train"][..], &positions, &search, &fit].concat(),
    );

    // Two shards side by side on this machine.
    let shard = ["--shard", "{}/2", ":::", "0", "1"];
    let datagen = ["./tsuru", "datagen", "--out", "local-{}.txt"];
    run(
        &dir,
        "parallel",
        &[&["-j2"][..], &datagen, &GAMES, &shard].concat(),
    );
    run(
        &dir,
        "./tsuru",
        &["merge", "--out", "local.txt", "local-0.txt", "local-1.txt"],
    );
    same(&dir, "local.txt", "whole.txt");

    // Two shards on two machines: the binary sent once to each, the shard files sent back
    // and removed there. The second shard has been started before: its file goes along and
    // is continued there.
    let remote = [
        "--ssh",
        ssh,
        "--sshlogin",
        "1/alice@m1,1/bob@m2",
        "--basefile",
        "tsuru",
        "--transferfile",
        "remote-{}.txt",
        "--return",
        "remote-{}.txt",
        "--cleanup",
    ];
    let local_1 = std::fs::read_to_string(dir.join("local-1.txt")).unwrap();
    std::fs::write(dir.join("remote-1.txt"), &local_1[..local_1.len() / 2]).unwrap();
    let datagen = ["./tsuru", "datagen", "--out", "remote-{}.txt"];
    run(
        &dir,
        "parallel",
        &[&remote[..], &datagen, &GAMES, &shard].concat(),
    );
    run(
        &dir,
        "./tsuru",
        &[
            "merge",
            "--out",
            "remote.txt",
            "remote-1.txt",
            "remote-0.txt",
        ],
    );
    same(&dir, "remote.txt", "whole.txt");

    // The labels: two shards on the two machines, the positions file sent to each.
    let remote = [
        "--ssh",
        ssh,
        "--sshlogin",
        "alice@m1,bob@m2",
        "-j1",
        "--basefile",
        "tsuru",
        "--basefile",
        "positions.bin",
        "--return",
        "values-{}.bin",
        "--cleanup",
    ];
    let label = [
        "./tsuru",
        "label",
        "--positions",
        "positions.bin",
        "--depth",
        "2",
        "--out",
        "values-{}.bin",
    ];
    run(&dir, "parallel", &[&remote[..], &label, &shard].concat());
    run(
        &dir,
        "./tsuru",
        &[
            "merge",
            "--out",
            "values.bin",
            "values-0.bin",
            "values-1.bin",
        ],
    );
    same(&dir, "values.bin", "train-values.bin");

    // Nothing was left on the machines.
    for host in ["m1", "m2"] {
        let left: Vec<_> = std::fs::read_dir(dir.join("hosts").join(host))
            .map(|entries| entries.map(|e| e.unwrap().file_name()).collect())
            .unwrap_or_default();
        assert!(left.is_empty(), "{host} kept {left:?}");
    }
}
