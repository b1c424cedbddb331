//! The layers point one way: a module imports only from its own layer or the layers below
//! it, in the order docs/architecture.md gives (lowest first):
//!
//! ```text
//! board, score, rng < config < formats < eval < search < book < identity < session
//!     < protocol < cli < lab < app, lib, main
//! ```
//!
//! This test reads every `crate::` path in `src/**/*.rs` (comments aside) and fails on any
//! import of a higher layer that is not in [`KNOWN_UPWARD`] (empty: every cycle issue 39
//! named is closed). It also fails when one of those is gone, so that the list only shrinks
//! and stays true.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::rust_files;

/// The layers, lowest first; modules of one layer may import each other.
const LAYERS: &[&[&str]] = &[
    &["board", "score", "rng"],
    &["config"],
    &["formats"],
    &["eval"],
    &["search"],
    &["book"],
    &["identity"],
    &["session"],
    &["protocol"],
    &["cli"],
    &["lab"],
    &["app", "lib", "main"],
];

/// Upward imports that exist today, as (importing top module, imported top module, file):
/// none since issue 39 closed its cycles. An entry here would have to go away again (the
/// test fails once it is gone), so the list only shrinks.
const KNOWN_UPWARD: &[(&str, &str, &str)] = &[];

/// Macros exported at the crate root, by the module that defines them.
const MACROS: &[(&str, &str)] = &[("out", "cli"), ("outln", "cli")];

fn rank(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// The top module a file belongs to: `src/eval/pattern.rs` and `src/eval.rs` are `eval`.
fn top_module(relative: &Path) -> String {
    let first = relative.components().nth(1).unwrap();
    let name = first.as_os_str().to_str().unwrap();
    name.strip_suffix(".rs").unwrap_or(name).to_string()
}

/// The top modules a line of code names after `crate::`, including in `crate::{a, b}`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        let names: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            group[..end]
                .split(',')
                .map(|item| item.trim().split("::").next().unwrap_or(""))
                .collect()
        } else {
            vec![rest
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("")]
        };
        out.extend(
            names
                .into_iter()
                .filter(|n| !n.is_empty())
                .map(String::from),
        );
    }
    out
}

/// Every (importing module, imported module, file, line) whose import goes up the layers.
fn upward_imports() -> Vec<(String, String, String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in files {
        let relative = file.strip_prefix(root).unwrap().to_path_buf();
        let from = top_module(&relative);
        let from_rank = rank(&from)
            .unwrap_or_else(|| panic!("{}: module {from} is in no layer", relative.display()));
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            for name in crate_paths(code) {
                let module = MACROS
                    .iter()
                    .find(|(macro_name, _)| *macro_name == name)
                    .map_or(name.as_str(), |(_, module)| module);
                let Some(to_rank) = rank(module) else {
                    panic!(
                        "{}: `crate::{name}` names no module of a layer: {line:?}",
                        relative.display()
                    );
                };
                if to_rank > from_rank {
                    found.push((
                        from.clone(),
                        module.to_string(),
                        relative.display().to_string(),
                        line.trim().to_string(),
                    ));
                }
            }
        }
    }
    found
}

#[test]
fn imports_point_down_the_layers() {
    let found = upward_imports();
    let unknown: Vec<_> = found
        .iter()
        .filter(|(from, to, file, _)| {
            !KNOWN_UPWARD
                .iter()
                .any(|k| k.0 == from && k.1 == to && k.2 == file)
        })
        .collect();
    assert!(
        unknown.is_empty(),
        "imports against the layer order of docs/architecture.md:\n{unknown:#?}"
    );
    let present: BTreeSet<(&str, &str, &str)> = found
        .iter()
        .map(|(from, to, file, _)| (from.as_str(), to.as_str(), file.as_str()))
        .collect();
    for known in KNOWN_UPWARD {
        assert!(
            present.contains(known),
            "{known:?} no longer imports upward: take it off KNOWN_UPWARD"
        );
    }
}

#[test]
fn the_reader_finds_paths_in_every_form() {
    assert_eq!(crate_paths("use crate::board::{Board, Move};"), ["board"]);
    assert_eq!(
        crate_paths("use crate::{eval::EvalBundle, search::Search};"),
        ["eval", "search"]
    );
    assert_eq!(
        crate_paths("let x = crate::score::Score(1) + crate::rng::Rng::new(2);"),
        ["score", "rng"]
    );
    assert_eq!(crate_paths("crate::outln!(\"x\")?;"), ["outln"]);
    assert!(crate_paths("use super::Thing;").is_empty());
    assert_eq!(top_module(Path::new("src/eval/pattern.rs")), "eval");
    assert_eq!(top_module(Path::new("src/eval.rs")), "eval");
    assert!(rank("formats") < rank("eval") && rank("eval") < rank("search"));
}
