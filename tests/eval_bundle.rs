//! The evaluation bundle: `--eval-file X` plays X's weights with X's own statistics (the
//! sidecar files `X.probcut` and `X.probcut-endgame`) in the midgame search and the solver,
//! refuses statistics measured for other weights, and searches without selectivity when X has
//! none; `tsuru probcut --eval-file X` measures them for X.

mod common;

use common::positions::random_position;
use common::TSURU;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::AtomicBool;
use tsuru_core::search::SearchConfig;

use tsuru_core::board::Board;
use tsuru_core::eval::bundle::{Evaluator, ENDGAME_SUFFIX, PROBCUT_SUFFIX};
use tsuru_core::eval::pattern::{PatternEval, Weights, WeightsId};
use tsuru_core::eval::probcut::{EndgameCuts, ProbCutTable, SHIPPED, SHIPPED_ENDGAME};
use tsuru_core::eval::{EvalBundle, EvalChoice, Evaluation, SHIPPED_TERM, SHIPPED_WEIGHTS};
use tsuru_core::rng::Rng;
use tsuru_core::score::Discs;
use tsuru_core::search::endgame::{EndgameSolver, SolveMode};
use tsuru_core::search::{Search, SearchLimits};

/// A fresh directory for one test's files.
fn dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("eval_bundle")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Other weights: the shipped ones halved (so the move order that mixes the evaluation with
/// mobility changes too), written to `dir/other.tsw`; returns the path and the identity.
fn other_weights(dir: &std::path::Path) -> (String, WeightsId) {
    let mut weights = Weights::from_bytes(SHIPPED_WEIGHTS).unwrap();
    for table in &mut weights.tables {
        for value in table.iter_mut() {
            *value /= 2;
        }
    }
    let bytes = weights.to_bytes();
    let path = dir.join("other.tsw");
    std::fs::write(&path, &bytes).unwrap();
    let id = WeightsId(Weights::file_id(&bytes).unwrap());
    (path.to_str().unwrap().to_string(), id)
}

/// A statistics file's text with its `weights` line naming `id` and, when `sigma` is given,
/// every deviation replaced by it (in discs).
fn restated(text: &str, id: WeightsId, sigma: Option<f64>) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() == Some(&"weights") {
            out.push_str(&format!("weights {id}\n"));
            continue;
        }
        let record = words.first().is_some_and(|w| w.parse::<u32>().is_ok());
        match sigma {
            // Records: the deviation is the third field from the end of `... sigma samples`
            // (both kinds of file), before any comment.
            Some(sigma) if record => {
                let fields: Vec<&str> =
                    line.split('#').next().unwrap().split_whitespace().collect();
                let n = fields.len();
                let mut fields: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
                fields[n - 2] = format!("{sigma:.4}");
                out.push_str(&fields.join(" "));
                out.push('\n');
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// Positions with legal moves and `empties` empties.
fn positions(seed: u64, empties: u32, count: usize) -> Vec<Board> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let board = random_position(&mut rng, empties);
        if board.has_legal_move() && board.empties() == empties {
            out.push(board);
        }
    }
    out
}

/// A midgame search to `depth` plies (no solver).
fn midgame_limits(depth: u32) -> SearchLimits {
    SearchLimits {
        depth: Some(depth),
        exact_empties: 0,
        wld_empties: 0,
        ..SearchLimits::default()
    }
}

/// Total nodes of depth-8 midgame searches of `boards` (no solver) with `bundle`.
fn midgame_nodes(bundle: &EvalBundle, boards: &[Board], selective: bool) -> u64 {
    let selectivity = selective.then_some(SearchConfig::DEFAULT_SELECTIVITY);
    let mut search = Search::new(
        SearchConfig::new(8, 1)
            .unwrap()
            .with_eval(bundle.clone())
            .with_selectivity(selectivity)
            .unwrap(),
    );
    let limits = midgame_limits(8);
    let stop = AtomicBool::new(false);
    boards
        .iter()
        .map(|board| {
            search.clear();
            search.iterate(board, &limits, &stop, &mut |_| {}).nodes
        })
        .sum()
}

/// The nodes of each selective pass and of the whole exact solve of `board` with `bundle`.
fn solve_nodes(bundle: &EvalBundle, board: &Board) -> (Vec<u64>, u64, Discs) {
    let mut solver =
        EndgameSolver::new(&SearchConfig::new(16, 1).unwrap().with_eval(bundle.clone()));
    let mut passes = Vec::new();
    let solution = solver
        .solve_reporting(
            &mut board.clone(),
            SolveMode::Exact,
            &AtomicBool::new(false),
            &mut |pass| passes.push(pass.solution.nodes),
        )
        .unwrap();
    (passes, solution.nodes, solution.score)
}

#[test]
fn eval_file_with_other_weights_uses_that_files_statistics() {
    let dir = dir("own");
    let (path, id) = other_weights(&dir);
    // The file's own statistics: the shipped numbers with every deviation set to 0.1 disc in
    // the midgame and 1 disc in the endgame (far more cuts than the shipped deviations
    // allow), recorded for these weights.
    let own_probcut = restated(SHIPPED, id, Some(0.1));
    let own_endgame = restated(SHIPPED_ENDGAME, id, Some(1.0));
    std::fs::write(format!("{path}{PROBCUT_SUFFIX}"), &own_probcut).unwrap();
    std::fs::write(format!("{path}{ENDGAME_SUFFIX}"), &own_endgame).unwrap();

    let bundle = EvalChoice::File(path.clone()).build().unwrap();
    assert_eq!(bundle.weights_id(), Some(id));
    assert_eq!(
        bundle.probcut(),
        Some(&ProbCutTable::parse(&own_probcut).unwrap())
    );
    assert_eq!(
        bundle.endgame_cuts(),
        Some(&EndgameCuts::parse(&own_endgame).unwrap())
    );
    assert_ne!(bundle.probcut(), EvalBundle::shipped().probcut());

    // The same weights with the shipped numbers (restated for them): any difference in the
    // searches below comes from the statistics alone.
    let (eval, _) = PatternEval::from_file(&path).unwrap();
    let shipped_numbers = EvalBundle::new(
        eval,
        id,
        "same weights, shipped numbers",
        Some(ProbCutTable::parse(&restated(SHIPPED, id, None)).unwrap()),
        Some(EndgameCuts::parse(&restated(SHIPPED_ENDGAME, id, None)).unwrap()),
    )
    .unwrap();

    // The midgame search evaluates with the file's weights...
    let boards = positions(7, 40, 6);
    let search = Search::new(SearchConfig::new(2, 1).unwrap().with_eval(bundle.clone()));
    let shipped = EvalBundle::shipped();
    assert!(boards
        .iter()
        .any(|b| search.evaluate(b) != shipped.evaluator().evaluate(b)
            && search.evaluate(b) == bundle.evaluator().evaluate(b)));
    // ...and cuts with the file's statistics: narrower deviations cut more.
    let own = midgame_nodes(&bundle, &boards, true);
    let numbers = midgame_nodes(&shipped_numbers, &boards, true);
    let full = midgame_nodes(&bundle, &boards, false);
    assert!(own < numbers && numbers < full, "{own} {numbers} {full}");

    // The solver's selective passes cut with the file's statistics too, and its move order
    // uses the file's weights: the same exact score, other node counts.
    let board = &positions(11, 20, 1)[0];
    let (own_passes, own_nodes, own_score) = solve_nodes(&bundle, board);
    let (number_passes, number_nodes, number_score) = solve_nodes(&shipped_numbers, board);
    let (_, shipped_nodes, shipped_score) = solve_nodes(&EvalBundle::shipped(), board);
    assert_eq!(own_passes.len(), 4);
    assert!(
        own_passes[0] < number_passes[0],
        "{own_passes:?} {number_passes:?}"
    );
    assert_ne!(own_nodes, number_nodes);
    assert_ne!(number_nodes, shipped_nodes);
    assert_eq!((own_score, number_score), (shipped_score, shipped_score));
}

#[test]
fn statistics_of_other_weights_are_refused() {
    let dir = dir("refused");
    let (path, id) = other_weights(&dir);
    // The shipped statistics beside other weights: recorded for the shipped weights.
    std::fs::write(format!("{path}{PROBCUT_SUFFIX}"), SHIPPED).unwrap();
    let err = format!(
        "{:#}",
        EvalChoice::File(path.clone()).build().err().unwrap()
    );
    let shipped_id = EvalBundle::shipped().weights_id().unwrap();
    assert!(
        err.contains(&format!("measured for weights {shipped_id}"))
            && err.contains(&id.to_string()),
        "{err}"
    );
    // The engine refuses to start with them.
    let out = Command::new(TSURU)
        .args(["--gtp", "--eval-file", &path])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("measured for weights"), "{stderr}");

    // Matching midgame statistics with mismatched endgame ones are refused as well.
    std::fs::write(
        format!("{path}{PROBCUT_SUFFIX}"),
        restated(SHIPPED, id, None),
    )
    .unwrap();
    assert!(EvalChoice::File(path.clone()).build().is_ok());
    std::fs::write(format!("{path}{ENDGAME_SUFFIX}"), SHIPPED_ENDGAME).unwrap();
    assert!(EvalChoice::File(path).build().is_err());
}

#[test]
fn without_statistics_the_search_is_not_selective() {
    let dir = dir("none");
    let (path, _) = other_weights(&dir);
    let bundle = EvalChoice::File(path).build().unwrap();
    assert!(bundle.probcut().is_none() && bundle.endgame_cuts().is_none());
    // No midgame ProbCut: the default search is the full-width one.
    let boards = positions(13, 36, 3);
    assert_eq!(
        midgame_nodes(&bundle, &boards, true),
        midgame_nodes(&bundle, &boards, false)
    );
    // No selective passes before the exact solve.
    let board = &positions(17, 19, 1)[0];
    let (passes, _, _) = solve_nodes(&bundle, board);
    assert!(passes.is_empty());
    let (passes, _, _) = solve_nodes(&EvalBundle::shipped(), board);
    assert_eq!(passes.len(), 4);
    // Evaluation v1 has no statistics either.
    let v1 = EvalChoice::V1.build().unwrap();
    assert!(v1.probcut().is_none() && v1.endgame_cuts().is_none());
    assert!(matches!(v1.evaluator(), Evaluator::V1(_)));
}

#[test]
fn probcut_measures_endgame_statistics_for_an_eval_file() {
    let dir = dir("measure");
    let (path, id) = other_weights(&dir);
    // 40 positions at 14 empties with their exact values (the validation set's first ones).
    let fixture = format!(
        "{}/tests/fixtures/eval-validation.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(fixture).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(40)
        .collect();
    let validation = dir.join("validation.txt");
    std::fs::write(&validation, lines.join("\n") + "\n").unwrap();
    let out_file = format!("{path}{ENDGAME_SUFFIX}");
    succeeded(
        Command::new(TSURU)
            .args([
                "probcut",
                "--eval-file",
                &path,
                "--threads",
                "1",
                "--endgame",
            ])
            .arg(&validation)
            .args(["--out", &out_file]),
    );
    let written = std::fs::read_to_string(&out_file).unwrap();
    assert!(written.contains(&format!("\nweights {id}\n")), "{written}");
    let bundle = EvalChoice::File(path).build().unwrap();
    let cuts = bundle.endgame_cuts().expect("the sidecar was loaded");
    assert_eq!(cuts.weights(), id);
    // Measured with the halved weights, not the shipped ones: other fits.
    let shipped = EvalBundle::shipped();
    let shipped_cuts = shipped.endgame_cuts().unwrap();
    assert_ne!(cuts.get(14, 2), shipped_cuts.get(14, 2));
}

/// `tsuru probcut --endgame-sample ROOTS --out FILE` writes a validation file of positions
/// below the roots with their exact values, which `--endgame` then measures.
#[test]
fn probcut_samples_the_positions_its_passes_test_with_exact_values() {
    let dir = dir("sample");
    let roots: Vec<Board> = positions(21, 18, 4);
    let obf = dir.join("roots.obf");
    let text: String = roots
        .iter()
        .map(|board| format!("{};\n", tsuru_core::board::notation::board_to_string(board)))
        .collect();
    std::fs::write(&obf, text).unwrap();
    let sample_with = |threads: &str| {
        let sample = dir.join(format!("sample-{threads}.txt"));
        succeeded(
            Command::new(TSURU)
                .args(["probcut", "--threads", threads, "--every", "2"])
                .arg("--endgame-sample")
                .arg(&obf)
                .arg("--out")
                .arg(&sample),
        );
        sample
    };
    let sample = sample_with("1");
    // Each root is solved from an empty table, so the threads' shares change nothing.
    let records = |path: &std::path::Path| {
        let text = std::fs::read_to_string(path).unwrap();
        text.lines()
            .filter(|line| !line.starts_with('#'))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(records(&sample), records(&sample_with("2")));
    // A run cut short resumes from its journal: the first root's records, some exact values
    // and a line torn by the kill; the file written is the uninterrupted run's.
    let journal = std::fs::read_to_string(dir.join("sample-1.txt.journal")).unwrap();
    let first_root = journal.find("\nroot ").unwrap();
    let first_root_end = first_root + journal[first_root + 1..].find('\n').unwrap() + 2;
    let solved: Vec<&str> = journal
        .lines()
        .filter(|line| line.starts_with("solved "))
        .take(5)
        .collect();
    assert_eq!(solved.len(), 5, "{journal}");
    let cut = format!(
        "{}{}\ntested 3 ---",
        &journal[..first_root_end],
        solved.join("\n")
    );
    let resumed = dir.join("resumed.txt");
    std::fs::write(dir.join("resumed.txt.journal"), &cut).unwrap();
    let run = |out: &std::path::Path, caps: &[&str]| {
        Command::new(TSURU)
            .args(["probcut", "--threads", "2", "--every", "2"])
            .args(caps)
            .arg("--endgame-sample")
            .arg(&obf)
            .arg("--out")
            .arg(out)
            .output()
            .unwrap()
    };
    let output = run(&resumed, &[]);
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{said}");
    assert!(said.contains("(1 already in"), "{said}");
    assert!(said.contains("(5 already in the journal)"), "{said}");
    assert_eq!(records(&resumed), records(&sample));
    // Other caps reuse the journal: every root and value is in it, and the file keeps, of
    // each count from 16 empties up, the 3 positions of the lowest hashes.
    std::fs::copy(
        dir.join("sample-1.txt.journal"),
        dir.join("capped.txt.journal"),
    )
    .unwrap();
    let capped = dir.join("capped.txt");
    let output = run(&capped, &["--per-empties", "3", "--min-empties", "16"]);
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{said}");
    assert!(said.contains("(4 already in"), "{said}");
    assert!(!said.contains("\nsolved "), "{said}");
    let mut expected = tsuru_core::formats::validation::read(&sample).unwrap();
    expected.retain(|(board, _)| board.empties() >= 16);
    expected.sort_by_key(|(board, _)| (board.empties(), board.hash()));
    let mut per_count = std::collections::HashMap::new();
    expected.retain(|(board, _)| {
        let count = per_count.entry(board.empties()).or_insert(0);
        *count += 1;
        *count <= 3
    });
    assert!(expected.len() >= 3, "{expected:?}");
    assert_eq!(
        tsuru_core::formats::validation::read(&capped).unwrap(),
        expected
    );
    // A journal of other roots or options is refused, not mixed in.
    std::fs::write(
        dir.join("other.txt.journal"),
        "# tsuru probcut --endgame-sample journal 0123456789abcdef\n",
    )
    .unwrap();
    let output = run(&dir.join("other.txt"), &[]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("journal of another run"));
    let sampled = tsuru_core::formats::validation::read(&sample).unwrap();
    assert!(sampled.len() >= 30, "{} positions", sampled.len());
    let stop = AtomicBool::new(false);
    let mut solver = EndgameSolver::new(&SearchConfig::new(16, 1).unwrap());
    for (board, score) in sampled.iter().step_by(3) {
        assert!((14..18).contains(&board.empties()), "{board:?}");
        let rate = 2u64 >> (board.empties() - 14);
        assert_eq!(
            board.hash() % rate.max(1),
            0,
            "one in --every 2 by hash at 14"
        );
        let exact = solver
            .solve(&mut board.clone(), SolveMode::Exact, &stop)
            .unwrap();
        assert_eq!(exact.score, *score, "{board:?}");
    }
    // --endgame reads it back.
    let stats = Command::new(TSURU)
        .args(["probcut", "--threads", "1", "--endgame"])
        .arg(&sample)
        .output()
        .unwrap();
    assert!(stats.status.success());
    let written = String::from_utf8_lossy(&stats.stdout);
    assert!(
        written.lines().any(|line| line.starts_with("14 2 ")),
        "{written}"
    );
}

/// Runs `command` and asserts that it succeeded, showing its stderr if not; its output.
fn succeeded(command: &mut Command) -> std::process::Output {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `tsuru tables` with `args`; its stdout, after asserting that it succeeded.
fn tables(args: &[&str]) -> String {
    let output = Command::new(TSURU)
        .arg("tables")
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "tsuru tables {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Weights written as a factorisation-machine model (`--export-fm`, zero vectors) and
/// quantised back (`--fm`) are the same file, byte for byte: the route `crates/tsuru-lab/scripts/fm_train.py
/// --init` starts from loses nothing.
#[test]
fn weights_round_trip_through_an_fm_model_file() {
    let dir = dir("fm_round_trip");
    let shipped = dir.join("shipped.tsw");
    std::fs::write(&shipped, SHIPPED_WEIGHTS).unwrap();
    let model = dir.join("shipped.fmm");
    let back = dir.join("back.tsw");
    let p = |path: &PathBuf| path.to_str().unwrap().to_string();
    tables(&["--weights", &p(&shipped), "--export-fm", &p(&model)]);
    let said = tables(&["--fm", &p(&model), "--out", &p(&back)]);
    assert!(said.contains("no interaction term"), "{said}");
    assert_eq!(std::fs::read(&back).unwrap(), SHIPPED_WEIGHTS);
}

/// The shipped term written as a model file (`--export-fm`: its vectors and scales in
/// floating point) and quantised back onto the shipped tables (`--fm --fm-compact
/// --term-base`) is the shipped term file byte for byte, so a fit that goes on from the
/// shipped term (`fm_train.py --init`) starts from exactly what the engine plays.
#[test]
fn the_shipped_term_round_trips_through_an_fm_model_file() {
    let dir = dir("fm_term_round_trip");
    let p = |path: &PathBuf| path.to_str().unwrap().to_string();
    let (base, term) = (dir.join("shipped.tsw"), dir.join("shipped.tsi"));
    std::fs::write(&base, SHIPPED_WEIGHTS).unwrap();
    std::fs::write(&term, SHIPPED_TERM).unwrap();
    let (model, back) = (dir.join("term.fmm"), dir.join("back.tsi"));
    tables(&["--weights", &p(&term), "--export-fm", &p(&model)]);
    let record = tsuru_core::formats::fm_model::read(&model).unwrap();
    // The shipped term (b30t's) is 16 wide, the widest row the engine reads, and is written
    // back 16 wide.
    assert_eq!(record.dim, 16);
    assert!(record.scales.iter().any(|&s| s != 0.0));
    let widest = record.scales.iter().fold(0f32, |m, s| m.max(s.abs()));
    assert!((0.5..=2.0).contains(&widest), "widest scale {widest}");
    tables(&[
        "--fm",
        &p(&model),
        "--fm-compact",
        "--term-base",
        &p(&base),
        "--out",
        &p(&back),
    ]);
    assert_eq!(std::fs::read(&back).unwrap(), SHIPPED_TERM);
}

/// The shipped weights with a random interaction term, written to `dir`/fm.tsw: the path and
/// the file's bytes.
fn interaction_weights_file(dir: &std::path::Path) -> (PathBuf, Vec<u8>) {
    use tsuru_core::eval::pattern::Interaction;
    let mut weights = Weights::from_bytes(SHIPPED_WEIGHTS).unwrap();
    let total = weights.tables[0].len();
    let mut rng = Rng::new(71);
    // Random vectors (the same for tied entries is not needed: the file stores canonical
    // entries only and the load ties them).
    let vectors = (0..total)
        .map(|_| std::array::from_fn(|_| rng.below(201) as i16 - 100))
        .collect();
    weights.interaction = Some(Interaction {
        dim: tsuru_core::eval::pattern::MAX_INTERACTION_DIM,
        shift: 20,
        scales: vec![3000; weights.stages()],
        vectors,
    });
    let bytes = weights.to_bytes();
    let path = dir.join("fm.tsw");
    std::fs::write(&path, &bytes).unwrap();
    (path, bytes)
}

/// The evaluation cache never changes what the search returns: depth-7 searches of
/// midgame positions (the next search finds the values of the one before in the cache)
/// give the same nodes, scores and lines with no cache, a cache of 8 entries (every store
/// replaces another) and the default one, with the shipped weights and with an
/// interaction term.
#[test]
fn the_evaluation_cache_never_changes_a_search() {
    let dir = dir("eval_cache");
    let (path, _) = interaction_weights_file(&dir);
    let with_term = EvalBundle::from_file(path.to_str().unwrap()).unwrap();
    let boards: Vec<Board> = [36, 30, 24]
        .iter()
        .flat_map(|&empties| positions(empties as u64, empties, 4))
        .collect();
    let limits = midgame_limits(7);
    let stop = AtomicBool::new(false);
    for bundle in [EvalBundle::shipped(), with_term] {
        let runs: Vec<Vec<(u64, String)>> = [0, 3, tsuru_core::search::eval_cache::DEFAULT_BITS]
            .iter()
            .map(|&bits| {
                let mut search = Search::new(
                    SearchConfig::new(8, 1)
                        .unwrap()
                        .with_eval(bundle.clone())
                        .with_eval_cache_bits(bits)
                        .unwrap(),
                );
                boards
                    .iter()
                    .map(|board| {
                        search.clear();
                        let result = search.iterate(board, &limits, &stop, &mut |_| {});
                        (result.nodes, format!("{:?} {:?}", result.score, result.pv))
                    })
                    .collect()
            })
            .collect();
        assert!(runs[0].iter().all(|(nodes, _)| *nodes > 1000));
        assert_eq!(runs[1], runs[0], "a cache of 8 entries");
        assert_eq!(runs[2], runs[0], "the default cache");
    }
}

/// Weights with an interaction term load from a file under their own identity, value every
/// position as their definition does (within the folding's stated rounding), and the engine
/// plays with them over GTP.
#[test]
fn weights_with_an_interaction_term_load_and_play() {
    use tsuru_core::eval::pattern::{Interaction, MAX_INTERACTION_DIM};
    let dir = dir("fm_play");
    let (path, bytes) = interaction_weights_file(&dir);
    let loaded = Weights::from_bytes(&bytes).unwrap();
    let bundle = EvalBundle::from_file(path.to_str().unwrap()).unwrap();
    assert_eq!(
        bundle.weights_id(),
        Some(WeightsId(Weights::file_id(&bytes).unwrap()))
    );
    let Evaluator::Patterns(eval) = bundle.evaluator() else {
        panic!("pattern weights")
    };
    assert!(eval.has_interaction());
    let shipped = EvalBundle::shipped();
    let mut moved = 0;
    for board in positions(73, 30, 40) {
        let value = i64::from(eval.raw(&board));
        let definition = loaded.value_by_definition(&board);
        assert!(
            (value - definition).abs() <= Interaction::FOLDING_ERROR,
            "{value} against {definition}"
        );
        let linear = shipped.evaluator().evaluate(&board).units();
        moved += usize::from((value - i64::from(linear)).abs() > 100);
    }
    assert!(
        moved > 20,
        "the term changed only {moved} of 40 values by a disc"
    );
    assert_eq!(
        loaded.interaction.as_ref().unwrap().dim,
        MAX_INTERACTION_DIM
    );

    let output = Command::new(TSURU)
        .args(["--gtp", "--no-book", "--eval-file", path.to_str().unwrap()])
        .arg("--depth")
        .arg("6")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(b"genmove b\nquit\n")?;
            child.wait_with_output()
        })
        .unwrap();
    let answer = String::from_utf8(output.stdout).unwrap();
    let first = answer.lines().next().unwrap_or("").to_ascii_lowercase();
    assert!(
        ["= d3", "= c4", "= f5", "= e6"].contains(&first.as_str()),
        "{answer:?}"
    );
}
