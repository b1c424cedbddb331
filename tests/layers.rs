//! The layers point one way inside each crate of the workspace. Between crates the compiler
//! keeps them: tsuru-core depends on nothing of the workspace, and tsuru-lab and the Python
//! extension see tsuru-core's public API only. Inside a crate, a module imports only from its
//! own layer or the layers below it, in the order docs/architecture.md gives (lowest first):
//!
//! ```text
//! tsuru-core:  board, score, rng, io < config < formats < client < eval < search < book < identity < review < cli
//! tsuru:       session < protocol < cli < app, lib, main
//! ```
//!
//! This test reads every `crate::` path in each crate's `src/**/*.rs` (comments aside) and
//! fails on any import of a higher layer. The lab's tools are one layer of their own (the
//! compiler already keeps them above tsuru-core).

mod common;

use std::path::Path;

use common::rust_files;

/// A crate's layers, lowest first (modules of one layer may import each other), and the
/// macros it exports at its root, by the module that defines them.
struct Crate {
    src: &'static str,
    layers: &'static [&'static [&'static str]],
    macros: &'static [(&'static str, &'static str)],
}

/// The library the engine and the lab are built on.
const CORE: Crate = Crate {
    src: "crates/tsuru-core/src",
    layers: &[
        &["board", "score", "rng", "io"],
        &["config"],
        &["formats"],
        &["client"],
        &["eval"],
        &["search"],
        &["book"],
        &["identity"],
        &["review"],
        &["cli"],
        &["lib"],
    ],
    macros: &[("out", "io"), ("outln", "io")],
};

/// The engine: its front ends over tsuru-core.
const ENGINE: Crate = Crate {
    src: "src",
    layers: &[
        &["session"],
        &["protocol"],
        &["cli"],
        &["app", "lib", "main"],
    ],
    macros: &[],
};

/// The lab: its modules may import each other (the tools over the referee and training).
const LAB: Crate = Crate {
    src: "crates/tsuru-lab/src",
    layers: &[
        &["parallel"],
        &["referee", "training"],
        &["tools"],
        &["lib"],
    ],
    macros: &[],
};

fn rank(krate: &Crate, module: &str) -> Option<usize> {
    krate
        .layers
        .iter()
        .position(|layer| layer.contains(&module))
}

/// The top module a file belongs to, from its path under the crate's `src`:
/// `eval/pattern.rs` and `eval.rs` are `eval`.
fn top_module(relative: &Path) -> String {
    let first = relative.components().next().unwrap();
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
fn upward_imports(krate: &Crate) -> Vec<(String, String, String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(krate.src);
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(!files.is_empty(), "no sources under {}", krate.src);
    files.sort();
    let mut found = Vec::new();
    for file in files {
        let relative = file.strip_prefix(&root).unwrap().to_path_buf();
        let from = top_module(&relative);
        let from_rank = rank(krate, &from)
            .unwrap_or_else(|| panic!("{}: module {from} is in no layer", relative.display()));
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            for name in crate_paths(code) {
                let module = krate
                    .macros
                    .iter()
                    .find(|(macro_name, _)| *macro_name == name)
                    .map_or(name.as_str(), |(_, module)| module);
                let Some(to_rank) = rank(krate, module) else {
                    panic!(
                        "{}: `crate::{name}` names no module of a layer: {line:?}",
                        relative.display()
                    );
                };
                if to_rank > from_rank {
                    found.push((
                        from.clone(),
                        module.to_string(),
                        format!("{}/{}", krate.src, relative.display()),
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
    for krate in [&CORE, &ENGINE, &LAB] {
        let found = upward_imports(krate);
        assert!(
            found.is_empty(),
            "imports against the layer order of docs/architecture.md:\n{found:#?}"
        );
    }
}

#[test]
fn an_upward_import_is_found() {
    // The engine's session naming its protocol would go up a layer.
    let session_up = Crate {
        src: "src",
        layers: &[
            &["protocol"],
            &["session"],
            &["cli"],
            &["app", "lib", "main"],
        ],
        macros: &[],
    };
    let found = upward_imports(&session_up);
    assert!(
        found
            .iter()
            .any(|(from, to, _, _)| from == "protocol" && to == "session"),
        "{found:#?}"
    );
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
    assert_eq!(top_module(Path::new("eval/pattern.rs")), "eval");
    assert_eq!(top_module(Path::new("eval.rs")), "eval");
    assert!(rank(&CORE, "formats") < rank(&CORE, "eval"));
    assert!(rank(&CORE, "eval") < rank(&CORE, "search"));
}
