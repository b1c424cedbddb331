//! README.md is the user's manual, and this test keeps it one: its Options table lists
//! exactly the options the built engine's `tsuru --help` lists, each spelt as `--help` prints
//! it (every flag of the table is in `--help`, and every flag of `--help` is in the table),
//! and the README stays within 200 lines.

mod common;

use std::collections::BTreeSet;

/// The most lines README.md may have (issue 82: recipes and figures live in docs/).
const MAX_LINES: usize = 200;

/// The option entries of `tsuru --help`: the left column of each line of its `Options:`
/// section that starts with a flag, e.g. `--level, --depth N` or `--help, -h`.
fn help_entries() -> Vec<String> {
    let help = common::run_tsuru(&["--help"]);
    assert_eq!(help.status.code(), Some(0), "tsuru --help failed");
    let help = String::from_utf8(help.stdout).expect("--help is UTF-8");
    let section = help
        .split("\nOptions:\n")
        .nth(1)
        .expect("an Options section in --help");
    section
        .lines()
        .take_while(|line| !line.is_empty())
        // Entries are "  FLAGS ARG    description"; a wrapped description does not start with '-'.
        .filter(|line| line.trim_start().starts_with('-'))
        .map(|line| line.trim().split("  ").next().unwrap().to_string())
        .collect()
}

/// The first column of README.md's Options table, without its backticks.
fn readme_entries(readme: &str) -> Vec<String> {
    let section = readme
        .split("\n## Options\n")
        .nth(1)
        .expect("an Options section in README.md");
    let section = section.split("\n## ").next().unwrap();
    section
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .map(|row| {
            row.split('|')
                .next()
                .unwrap()
                .trim()
                .trim_end_matches('`')
                .to_string()
        })
        .collect()
}

/// The flags of entries: `--level, --depth N` gives `--level` and `--depth`.
fn flags(entries: &[String]) -> BTreeSet<String> {
    entries
        .iter()
        .flat_map(|entry| entry.split(", "))
        .map(|part| part.split_whitespace().next().unwrap().to_string())
        .collect()
}

#[test]
fn readme_options_table_is_the_help_options_and_readme_is_short() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("reading README.md");
    let help = help_entries();
    let table = readme_entries(&readme);
    assert!(
        help.len() >= 10,
        "too few options parsed from --help: {help:?}"
    );

    let (help_flags, table_flags) = (flags(&help), flags(&table));
    let not_in_help: Vec<_> = table_flags.difference(&help_flags).collect();
    let not_in_table: Vec<_> = help_flags.difference(&table_flags).collect();
    assert!(
        not_in_help.is_empty(),
        "README's Options table lists flags `tsuru --help` does not: {not_in_help:?}"
    );
    assert!(
        not_in_table.is_empty(),
        "`tsuru --help` lists flags README's Options table does not: {not_in_table:?}"
    );
    // Each row as `--help` prints it, arguments and aliases included.
    for entry in &table {
        assert!(
            help.contains(entry),
            "README's option `{entry}` is not spelt as in --help: {help:?}"
        );
    }

    let lines = readme.lines().count();
    assert!(
        lines <= MAX_LINES,
        "README.md has {lines} lines, more than {MAX_LINES}"
    );
}
