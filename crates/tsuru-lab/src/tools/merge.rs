//! `tsuru merge`: joins the shards of a `tsuru datagen --shard K/N` run, or of a `tsuru label
//! --shard K/N` job, into the file the whole run or job writes unsharded, byte for byte.
//!
//! ```text
//! tsuru merge --out selfplay.txt selfplay-0.txt selfplay-1.txt
//! tsuru merge --out search-d4.bin search-0.bin search-1.bin
//! ```
//!
//! The kind of the shards is read from their first bytes. The shards must be of one run or job
//! (the same settings and weights, or positions, depth and weights), each of the N given once
//! and finished; anything else is refused and nothing is written
//! ([`crate::training::shards`]). The output is written beside itself and renamed into
//! place, so it never holds half a merge.

use std::path::PathBuf;

use anyhow::{bail, ensure, Context, Result};

use crate::training::shards::{merge_search_values, merge_selfplay};
use tsuru_core::cli::tool_args::{Arg, ToolArgs, ToolOption, ToolSpec};
use tsuru_core::formats::search_values;

/// The command line of `tsuru merge`.
pub const SPEC: ToolSpec = ToolSpec {
    name: "merge",
    about: "join the shards of a datagen run or a label job into the whole run's file",
    synopsis: "--out FILE SHARD...",
    options: &[ToolOption::new(
        "--out",
        "FILE",
        "the merged file, replaced if it exists (required)",
    )],
    notes: "SHARD...: every shard file of one run (tsuru datagen --shard K/N) or one job\n\
            (tsuru label --shard K/N), in any order.",
};

/// The start of a self-play file.
const SELFPLAY_MAGIC: &[u8] = b"# tsuru self-play ";

/// Runs the tool.
pub fn run(args: &[String]) -> Result<()> {
    let mut out = None;
    let mut shards = Vec::new();
    let mut args = ToolArgs::from_spec(args, &SPEC);
    while let Some(arg) = args.next_option()? {
        match arg {
            Arg::Flag("--out") => out = Some(PathBuf::from(args.value("--out")?)),
            Arg::Positional(name) => shards.push(PathBuf::from(name)),
            other => return Err(args.unexpected(other)),
        }
    }
    let out = out.with_context(|| format!("--out is required (usage: tsuru {})", SPEC.usage()))?;
    ensure!(
        !shards.is_empty(),
        "no shards given (usage: tsuru {})",
        SPEC.usage()
    );
    ensure!(
        !shards.contains(&out),
        "--out {} is one of the shards",
        out.display()
    );
    let mut inputs = Vec::new();
    for path in &shards {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        inputs.push((path.display().to_string(), bytes));
    }
    let merged = if inputs
        .iter()
        .all(|(_, bytes)| bytes.starts_with(search_values::MAGIC))
    {
        merge_search_values(&inputs)?
    } else if inputs
        .iter()
        .all(|(_, bytes)| bytes.starts_with(SELFPLAY_MAGIC))
    {
        let mut texts = Vec::new();
        for (name, bytes) in inputs {
            let text =
                String::from_utf8(bytes).with_context(|| format!("{name} is not a text file"))?;
            texts.push((name, text));
        }
        merge_selfplay(&texts)?.into_bytes()
    } else {
        bail!(
            "the shards must all be self-play files (tsuru datagen) or all search-value files \
             (tsuru label)"
        );
    };
    let mut temporary = out.clone().into_os_string();
    temporary.push(".merging");
    let temporary = PathBuf::from(temporary);
    std::fs::write(&temporary, &merged)
        .with_context(|| format!("writing {}", temporary.display()))?;
    std::fs::rename(&temporary, &out).with_context(|| format!("writing {}", out.display()))?;
    eprintln!(
        "merged {} shards into {} ({} bytes)",
        shards.len(),
        out.display(),
        merged.len()
    );
    Ok(())
}
