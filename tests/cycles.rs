//! No two modules import each other, inside a layer or across layers (tests/layers.rs checks
//! the direction across layers; this test catches a loop between two modules of one layer,
//! such as `eval::pattern` and the network term that once imported each other).
//!
//! Each crate of the workspace is read on its own (an import loop between crates the compiler
//! refuses). A module is a file of the crate's `src/` (`eval/pattern.rs` is `eval::pattern`,
//! `eval.rs` is `eval`). An import is a path written with `crate::` or `super::`, resolved to the longest
//! module it names (`crate::eval::pattern::Weights` is `eval::pattern`). What a parent does
//! with its own parts (`mod pattern; pub use pattern::Weights;`) is not an import, and unit
//! tests (from a file's `#[cfg(test)]` module on) are not part of the module graph.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::rust_files;

/// The module of a file relative to `src/`: `["eval", "pattern"]`; `lib.rs` and `main.rs`
/// are the root, `[]`.
fn module_of(relative: &Path) -> Vec<String> {
    let text = relative.with_extension("");
    let parts: Vec<String> = text
        .components()
        .map(|c| c.as_os_str().to_str().unwrap().to_string())
        .collect();
    if parts == ["lib"] || parts == ["main"] {
        Vec::new()
    } else {
        parts
    }
}

/// The code of a file before its unit tests, comments cut off.
fn product_code(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut previous = "";
    for line in text.lines() {
        if previous.trim() == "#[cfg(test)]" && line.trim_start().starts_with("mod tests") {
            lines.pop();
            break;
        }
        lines.push(line.split("//").next().unwrap_or("").to_string());
        previous = line;
    }
    lines
}

/// The module paths a line names with `crate::` or `super::` (relative to `module`), each
/// as written, including every item of a `{a, b::c}` group.
fn named_paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (marker, base) in [
        ("crate::", Vec::new()),
        ("super::", module[..module.len().saturating_sub(1)].to_vec()),
    ] {
        let mut rest = code;
        while let Some(at) = rest.find(marker) {
            // `crate::` inside an identifier (`foo_crate::`) is not a path start.
            let before = rest[..at].chars().last();
            rest = &rest[at + marker.len()..];
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut prefix = base.clone();
            let mut tail = rest;
            loop {
                if let Some(group) = tail.strip_prefix('{') {
                    let end = group.find('}').unwrap_or(group.len());
                    for item in group[..end].split(',') {
                        let mut path = prefix.clone();
                        path.extend(
                            item.trim()
                                .split("::")
                                .map(|w| w.trim().to_string())
                                .filter(|w| !w.is_empty() && w != "self"),
                        );
                        out.push(path);
                    }
                    break;
                }
                let word: String = tail
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if word.is_empty() {
                    out.push(prefix.clone());
                    break;
                }
                prefix.push(word.clone());
                tail = &tail[word.len()..];
                match tail.strip_prefix("::") {
                    Some(next) => tail = next,
                    None => {
                        out.push(prefix.clone());
                        break;
                    }
                }
            }
        }
    }
    out
}

/// The longest prefix of `path` that is a module.
fn resolve(path: &[String], modules: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    (1..=path.len())
        .rev()
        .map(|k| path[..k].to_vec())
        .find(|prefix| modules.contains(prefix))
}

/// Every import edge between two different modules, given each module's product code.
fn imports(code: &BTreeMap<Vec<String>, Vec<String>>) -> BTreeSet<(Vec<String>, Vec<String>)> {
    let modules: BTreeSet<Vec<String>> = code.keys().cloned().collect();
    let mut edges = BTreeSet::new();
    for (module, lines) in code {
        for line in lines {
            for path in named_paths(line, module) {
                if let Some(target) = resolve(&path, &modules) {
                    if &target != module {
                        edges.insert((module.clone(), target));
                    }
                }
            }
        }
    }
    edges
}

/// The pairs of modules that import each other.
fn mutual(edges: &BTreeSet<(Vec<String>, Vec<String>)>) -> Vec<(String, String)> {
    edges
        .iter()
        .filter(|(a, b)| a < b && edges.contains(&(b.clone(), a.clone())))
        .map(|(a, b)| (a.join("::"), b.join("::")))
        .collect()
}

/// The sources of each crate: the engine's, the library's and the lab's.
const CRATES: [&str; 3] = ["src", "crates/tsuru-core/src", "crates/tsuru-lab/src"];

fn tree_code(src: &str) -> BTreeMap<Vec<String>, Vec<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(src);
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files
        .into_iter()
        .map(|file| {
            let module = module_of(file.strip_prefix(&root).unwrap());
            let text = std::fs::read_to_string(&file).unwrap();
            (module, product_code(&text))
        })
        .collect()
}

#[test]
fn no_two_modules_import_each_other() {
    let mut read = 0;
    for src in CRATES {
        let code = tree_code(src);
        read += code.len();
        assert_eq!(
            mutual(&imports(&code)),
            Vec::<(String, String)>::new(),
            "{src}"
        );
    }
    assert!(read > 90, "{read} modules read");
    // The scan sees real imports: the evaluation reads the board, the search the evaluation.
    let edges = imports(&tree_code("crates/tsuru-core/src"));
    let module = |path: &str| -> Vec<String> { path.split("::").map(String::from).collect() };
    assert!(edges.contains(&(module("eval::pattern"), module("board"))));
    assert!(edges.contains(&(module("search"), module("eval"))));
}

#[test]
fn a_loop_is_found_wherever_it_is_written() {
    // Two sibling modules that import each other, one with `super::`, one with a `crate::`
    // group; a third that only imports: one loop, found once.
    let lines = |text: &[&str]| -> Vec<String> { text.iter().map(|l| l.to_string()).collect() };
    let mut code = BTreeMap::new();
    let name = |path: &str| -> Vec<String> { path.split("::").map(String::from).collect() };
    code.insert(name("eval"), lines(&["pub mod a;", "pub mod b;"]));
    code.insert(name("eval::a"), lines(&["use super::b::Thing;"]));
    code.insert(
        name("eval::b"),
        lines(&["use crate::{board::Board, eval::a::{Other, More}};"]),
    );
    code.insert(name("board"), lines(&["use crate::eval::a;"]));
    code.insert(name("search"), lines(&["use crate::board::Board;"]));
    let edges = imports(&code);
    assert_eq!(
        mutual(&edges),
        vec![("eval::a".to_string(), "eval::b".to_string())]
    );
    // Unit tests are cut off: an import from them makes no edge.
    let test_only = product_code("use a::b;\n#[cfg(test)]\nmod tests {\n    use crate::x;\n}\n");
    assert_eq!(test_only, vec!["use a::b;".to_string()]);
}
