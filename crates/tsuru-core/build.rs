//! Records which commit the binary is built from, for `tsuru --version` and the records that
//! name a build (`src/identity.rs`): `TSURU_COMMIT` is the short commit id, with
//! `+modified` when tracked files differ from it, or `unknown` outside a git checkout.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let commit = git(&["rev-parse", "--short=7", "HEAD"]).filter(|c| !c.is_empty());
    let value = match commit {
        Some(commit) => {
            let modified = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|status| !status.is_empty());
            if modified {
                format!("{commit}+modified")
            } else {
                commit
            }
        }
        None => "unknown".to_string(),
    };
    println!("cargo:rustc-env=TSURU_COMMIT={value}");
    // Run again when the commit or the tracked sources of the workspace change (not on
    // every build: listing a folder here makes cargo compare the times of the files in it).
    // The paths are the workspace's, from this crate's folder.
    for path in [
        "src",
        "build.rs",
        "Cargo.toml",
        "../../src",
        "../../tests",
        "../../crates/tsuru-lab",
        "../../python/src",
        "../../Cargo.toml",
        "../../Cargo.lock",
    ] {
        println!("cargo:rerun-if-changed={path}");
    }
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        for name in ["HEAD", "index", "refs"] {
            println!("cargo:rerun-if-changed={dir}/{name}");
        }
    }
}
