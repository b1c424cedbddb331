//! Command-line tools beside the engine: `book` (the opening book), `solve` (endgame test
//! suites), `accuracy` (fixed-depth searches against exact scores), `bench`, `match`
//! (engine-versus-engine games), `train` (fitting the pattern evaluation), `datagen`
//! (self-play games for training), `label` (the search values of training positions), `merge`
//! (joining the shards of a `datagen` run or a `label` job), `rescore` (search scores for
//! the games of a self-play file made without them), `probcut` (measuring the
//! selective search's statistics), `decided` (where a match's games were decided) and
//! `review` (where a game went wrong: each move's loss, the error totals).
//!
//! Each declares its command line as a [`tsuru_core::cli::tool_args::ToolSpec`] (its `SPEC`)
//! and runs from `run(&[String])`; the `tsuru` binary lists them as its subcommands.

pub mod accuracy;
pub mod bench;
pub mod book;
pub mod datagen;
pub mod decided;
pub mod label;
pub mod match_cli;
pub mod merge;
pub mod probcut;
pub mod rescore;
pub mod review;
pub mod solve;
pub mod tables;
pub mod train;
pub mod winprob;

#[cfg(test)]
mod tests {
    use super::*;
    use tsuru_core::cli::tool_args::{usage_flags, ToolSpec};

    #[test]
    fn the_usage_lines_come_from_the_tables() {
        let usage = train::SPEC.usage();
        let flags = usage_flags(&usage);
        for flag in ["--wthor", "--selfplay", "--shrink-to", "--make-validation"] {
            assert!(flags.contains(&flag), "{flag} in {flags:?}");
        }
        // The tools' tables give the usage lines they had when they were written by hand, with
        // the shared search options that solve, decided and datagen gained.
        assert_eq!(
            bench::SPEC.usage(),
            "bench [--hash MB] [--depth-offset N] [--threads N] [--eval-file WEIGHTS] \
             [--eval-cache BITS]"
        );
        assert_eq!(
            solve::SPEC.usage(),
            "solve FILE.obf [--wld] [--hash MB] [--threads N] [--eval-file WEIGHTS] [--first N] \
             [--last N] [--write-obf FILE]"
        );
        assert_eq!(
            accuracy::SPEC.usage(),
            "accuracy FILE.obf --depth D | --move-time S | --nodes N [--threads N] [--hash MB] \
             [--eval-file WEIGHTS] \
             [--probcut T] [--first N] [--last N]"
        );
        assert_eq!(
            decided::SPEC.usage(),
            "decided FILE.ggf [--empties N] [--hash MB] [--threads N] [--eval-file WEIGHTS] \
             [--positions-out FILE] [--first N] [--last N]"
        );
        assert_eq!(
            datagen::SPEC.usage(),
            "datagen --out FILE --games N [--seed S] [--depth D] [--solve-empties E] \
             [--random MIN-MAX] [--first-index K] [--shard K/N] [--hash MB] [--threads N] \
             [--eval-file WEIGHTS] [--format v4|v3]"
        );
        assert_eq!(
            label::SPEC.usage(),
            "label --positions FILE --depth D --out FILE [--shard K/N] [--threads N] \
             [--eval-file WEIGHTS]"
        );
        assert_eq!(
            rescore::SPEC.usage(),
            "rescore --in FILE --out FILE [--threads N] [--hash MB] [--eval-file WEIGHTS]"
        );
        assert_eq!(merge::SPEC.usage(), "merge --out FILE SHARD...");
    }

    /// The tools that search with the engine's search options, so take the whole shared group
    /// ([`tsuru_core::cli::search_options::GROUP`]); tests/cli.rs runs the same tools with every
    /// option of it.
    const SEARCHING: [&ToolSpec; 7] = [
        &accuracy::SPEC,
        &bench::SPEC,
        &book::SPEC,
        &datagen::SPEC,
        &decided::SPEC,
        &review::SPEC,
        &solve::SPEC,
    ];

    #[test]
    fn the_shared_search_options_have_one_row_in_every_tool() {
        use tsuru_core::cli::search_options::{SharedOption, GROUP};
        let same = |spec: &ToolSpec, shared: SharedOption| {
            let row = spec
                .option(shared.flag)
                .unwrap_or_else(|| panic!("{} lacks {}", spec.name, shared.flag));
            assert_eq!(
                (row.flag, row.value, row.help),
                (shared.flag, shared.value, shared.help),
                "{}",
                spec.name
            );
        };
        for spec in SEARCHING {
            for shared in GROUP {
                same(spec, shared);
            }
        }
        // Three tools search with settings of their own and take part of the group: label's
        // values must be those train computes (a small fixed table), probcut's table sizes
        // are part of what it measures, and rescore's threads score games, one search each.
        for (spec, flags) in [
            (&label::SPEC, &["--threads", "--eval-file"][..]),
            (&rescore::SPEC, &["--threads", "--hash", "--eval-file"]),
            (&probcut::SPEC, &["--threads", "--eval-file"]),
        ] {
            for shared in GROUP {
                if flags.contains(&shared.flag) {
                    same(spec, shared);
                } else {
                    assert!(spec.option(shared.flag).is_none(), "{}", spec.name);
                }
            }
        }
    }

    #[test]
    fn every_tool_states_the_one_default_of_each_search_setting() {
        use tsuru_core::cli::search_options::{HASH, THREADS};
        use tsuru_core::cli::tool_args::ToolOption;
        // The commands whose output is a record that must repeat exactly search on one
        // thread unless told otherwise; every other default is the registry's.
        let reproducible = ["accuracy", "bench", "book", "datagen", "decided"];
        let mut seen = 0;
        for spec in SEARCHING
            .into_iter()
            .chain([&label::SPEC, &rescore::SPEC, &probcut::SPEC])
        {
            if let Some(row) = spec.option("--hash") {
                assert_eq!(row.default, HASH.default, "{}", spec.name);
            }
            let row = spec.option("--threads").unwrap();
            let expected = if reproducible.contains(&spec.name) {
                ToolOption::reproducible_threads()
            } else {
                ToolOption::shared(THREADS)
            };
            assert_eq!(row, &expected, "{}", spec.name);
            seen += reproducible.contains(&spec.name) as usize;
        }
        assert_eq!(seen, reproducible.len());
    }
}
