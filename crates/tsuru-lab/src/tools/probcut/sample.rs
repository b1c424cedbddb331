//! `tsuru probcut --endgame-sample ROOTS.obf --out FILE`: a validation file of the positions
//! at which the solver's selective passes test ProbCut, with their exact values.
//!
//! The endgame statistics (`--endgame FILE`) are a regression of exact values on shallow
//! searches; they are used at the null-window nodes of at least 14 empties that the selective
//! passes reach from a root, so that is where they are best measured. Each root of ROOTS is
//! solved with the evaluation's own statistics (one thread a root, so the nodes are those of
//! a one-thread solve, each from an empty table so that the file does not depend on the
//! number of threads), keeping one tested position in `--every` K by board hash at 14
//! empties, twice as many with each empty square more (each position once); then every kept
//! position is solved exactly and written as a validation line (position, exact score for
//! the side to move), by empties.
//!
//! A run keeps a journal beside its output ([`Journal`], `FILE.journal`): each root's tested
//! positions once the root is solved and each exact value once found. A run stopped part way
//! and started again with the same roots, evaluation and `--every` takes up where it
//! stopped; the file it writes is the one an uninterrupted run writes.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;
use tsuru_core::search::SearchConfig;

use anyhow::{bail, ensure, Context, Result};

use crate::parallel::map_with_state;
use tsuru_core::board::{notation, Board};
use tsuru_core::eval::EvalBundle;
use tsuru_core::formats::{checksum, obf, validation};
use tsuru_core::score::Discs;
use tsuru_core::search::endgame::{EndgameSolver, SolveMode};

/// MiB of table for each solve: the roots are the size of the FFO and Edax problem sets.
const HASH_MB: usize = 64;

/// Which tested positions a sample keeps and solves.
#[derive(Clone, Copy, Debug)]
pub struct Keep {
    /// One tested position in this many by board hash at 14 empties, twice as many with
    /// each empty square more (`--every`).
    pub every: u64,
    /// At most this many of each count of empties, those of the lowest hashes
    /// (`--per-empties`).
    pub per_empties: usize,
    /// Only the counts of empties from this one up (`--min-empties`): rows above those
    /// already measured without solving the smaller positions again.
    pub min_empties: u32,
}

/// The first word of a journal's first line, before the key of the run it belongs to.
const JOURNAL_HEADER: &str = "# tsuru probcut --endgame-sample journal";

/// What a sampling run has done, read back from its journal file and appended to as it goes:
/// one line a record, each written whole and flushed.
///
/// ```text
/// # tsuru probcut --endgame-sample journal <key>
/// tested <root index> <board>      a tested position of that root (before its `root` line)
/// root <root index>                the root is solved: its `tested` lines are all above
/// solved <board> <exact score>     an exact value, as a validation line
/// ```
///
/// The key is a checksum of the roots, the evaluation and its statistics and `--every`, which
/// decide every record: a journal of another run is refused, not mixed in. `--per-empties`
/// and `--min-empties` only choose among the records, so a run with other caps reuses the
/// journal (the roots' solves above all). A last line without its line break (the run was
/// killed while writing it) is ignored, and so are the `tested` lines of a root without its
/// `root` line.
pub struct Journal {
    file: Mutex<std::fs::File>,
    /// The tested positions of each root whose `root` line is written, by root index.
    roots: HashMap<usize, Vec<Board>>,
    /// The exact values found, by position (its board string).
    solved: HashMap<String, Discs>,
}

impl Journal {
    /// Opens the journal at `path` for the run identified by `key`: reads what it holds, or
    /// starts it when there is no file.
    pub fn open(path: &Path, key: u64) -> Result<Journal> {
        let header = format!("{JOURNAL_HEADER} {key:016x}\n");
        let mut roots: HashMap<usize, Vec<Board>> = HashMap::new();
        let mut solved = HashMap::new();
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(error) => {
                return Err(error).with_context(|| format!("reading {}", path.display()));
            }
        };
        // A new journal starts with its header; an old one loses a torn last line, so that
        // the records appended next start a line.
        let kept = if text.is_empty() {
            header.clone()
        } else {
            ensure!(
                text.starts_with(&header),
                "{} is the journal of another run (other roots, evaluation or --every): \
                     remove it to start afresh",
                path.display()
            );
            let mut tested: HashMap<usize, Vec<Board>> = HashMap::new();
            let complete = &text[..text.rfind('\n').map_or(0, |end| end + 1)];
            for (number, line) in complete.lines().enumerate().skip(1) {
                let parsed = (|| -> Result<()> {
                    let (kind, rest) = line.split_once(' ').context("no record")?;
                    match kind {
                        "tested" => {
                            let (index, board) = rest.split_once(' ').context("no board")?;
                            let board = notation::parse_board(board)?;
                            tested.entry(index.parse()?).or_default().push(board);
                        }
                        "root" => {
                            let index: usize = rest.parse()?;
                            roots.insert(index, tested.remove(&index).unwrap_or_default());
                        }
                        "solved" => {
                            let (board, score) = validation::parse_line(rest)?;
                            solved.insert(notation::board_to_string(&board), score);
                        }
                        _ => bail!("unknown record {kind:?}"),
                    }
                    Ok(())
                })();
                parsed.with_context(|| format!("{}:{}", path.display(), number + 1))?;
            }
            complete.to_string()
        };
        std::fs::write(path, kept).with_context(|| format!("writing {}", path.display()))?;
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .with_context(|| format!("opening {}", path.display()))?;
        Ok(Journal {
            file: Mutex::new(file),
            roots,
            solved,
        })
    }

    /// Appends `text` (whole lines) at once. A failed write only costs the resume, so it is
    /// logged, not fatal.
    fn append(&self, text: &str) {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(error) = file.write_all(text.as_bytes()).and_then(|()| file.flush()) {
            log::warn!("writing the journal: {error}");
        }
    }

    /// Records that root `index` is solved with `tested` as its tested positions.
    fn root_done(&self, index: usize, tested: &[Board]) {
        let mut text = String::new();
        for board in tested {
            text += &format!("tested {index} {}\n", notation::board_to_string(board));
        }
        text += &format!("root {index}\n");
        self.append(&text);
    }

    /// The exact value of `board` if the journal holds it.
    fn value_of(&self, board: &Board) -> Option<Discs> {
        self.solved.get(&notation::board_to_string(board)).copied()
    }

    /// Records the exact value of `board`.
    fn solved(&self, board: &Board, score: Discs) {
        self.append(&format!("solved {}\n", validation::line(board, score)));
    }
}

/// The journal key of a run: a checksum of what decides its output.
fn journal_key(roots: &[Board], bundle: &EvalBundle, every: u64) -> u64 {
    let mut text = format!("{:?} {:?} {every}\n", bundle.id(), bundle.endgame_cuts());
    for root in roots {
        text += &notation::board_to_string(root);
        text.push('\n');
    }
    checksum::fnv1a_64(text.as_bytes())
}

/// Where the journal of a run writing `out` lives: `out` with `.journal` added.
pub fn journal_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".journal");
    PathBuf::from(name)
}

/// Solves `roots` with `bundle` (its statistics drive the passes) and returns the tested
/// positions that `keep` keeps (each once) with their exact values, ordered by empties.
/// What `journal` holds is taken from it, not solved again, and what is solved is added to
/// it; progress goes to stderr.
pub fn sample(
    roots: &[Board],
    bundle: &EvalBundle,
    keep: Keep,
    threads: usize,
    journal: &Journal,
) -> Vec<(Board, Discs)> {
    let Keep {
        every,
        per_empties,
        min_empties,
    } = keep;
    let stop = AtomicBool::new(false);
    let config = SearchConfig::new(HASH_MB, 1)
        .expect("a fixed table and one thread are in range")
        .with_eval(bundle.clone());
    let solver = || EndgameSolver::new(&config);
    let indexed: Vec<(usize, &Board)> = roots.iter().enumerate().collect();
    let done = AtomicUsize::new(journal.roots.len());
    let per_root: Vec<Vec<Board>> = map_with_state(
        &indexed,
        threads,
        || {
            let mut solver = solver();
            solver.sample_probcut_positions(every);
            solver
        },
        |solver, &(index, root)| {
            if let Some(tested) = journal.roots.get(&index) {
                return tested.clone();
            }
            // Each root from an empty table, so that what is sampled does not depend on
            // which roots a thread solved before it.
            solver.clear();
            let mut board = root.clone();
            solver.solve(&mut board, SolveMode::Exact, &stop);
            let tested = solver.take_probcut_positions();
            journal.root_done(index, &tested);
            let done = done.fetch_add(1, Ordering::Relaxed) + 1;
            eprintln!("root {done}/{} solved", roots.len());
            tested
        },
    );
    // A position reached from two roots is kept once, with the first.
    let mut seen = std::collections::HashSet::new();
    let mut positions: Vec<Board> = per_root
        .into_iter()
        .flatten()
        .filter(|board| seen.insert(board.hash()))
        .collect();
    // At most `per_empties` of each count of empties, those of the lowest hashes: a choice
    // that does not depend on the order the roots were solved in. Exact solves of 20 and
    // more empties are what the run's time goes to.
    positions.sort_by_key(|board| (board.empties(), board.hash()));
    let mut counts = [0usize; 61];
    positions.retain(|board| {
        if board.empties() < min_empties {
            return false;
        }
        let count = &mut counts[board.empties() as usize];
        *count += 1;
        *count <= per_empties
    });
    // Solved in hash order, so that the threads' shares mix small and large positions.
    positions.sort_by_key(Board::hash);
    let known = positions
        .iter()
        .filter(|board| journal.value_of(board).is_some())
        .count();
    eprintln!(
        "solving the {} positions kept exactly ({known} already in the journal)...",
        positions.len()
    );
    let done = AtomicUsize::new(known);
    let values = map_with_state(&positions, threads, solver, |solver, board| {
        if let Some(score) = journal.value_of(board) {
            return score;
        }
        solver.clear();
        let score = solver
            .solve(&mut board.clone(), SolveMode::Exact, &stop)
            .expect("an unstopped solve finishes")
            .score;
        journal.solved(board, score);
        let done = done.fetch_add(1, Ordering::Relaxed) + 1;
        eprintln!(
            "solved {done}/{} ({} empties)",
            positions.len(),
            board.empties()
        );
        score
    });
    let mut solved: Vec<_> = positions.into_iter().zip(values).collect();
    solved.sort_by_key(|(board, _)| (board.empties(), board.hash()));
    solved
}

/// `--endgame-sample ROOTS`: samples ROOTS' solves and writes the validation file to `out`,
/// keeping the run's journal beside it ([`journal_path`]).
pub fn run(
    roots_path: &Path,
    bundle: &EvalBundle,
    keep: Keep,
    threads: usize,
    out: &Path,
    started: Instant,
) -> Result<()> {
    let Keep {
        every,
        per_empties,
        min_empties,
    } = keep;
    ensure!(
        bundle.endgame_cuts().is_some(),
        "{} has no endgame statistics: its solves have no selective passes to sample",
        bundle.source()
    );
    let text = std::fs::read_to_string(roots_path)
        .with_context(|| format!("reading {}", roots_path.display()))?;
    let roots: Vec<Board> = obf::parse_file(&text)
        .with_context(|| format!("parsing {}", roots_path.display()))?
        .into_iter()
        .map(|position| position.board)
        .collect();
    ensure!(
        !roots.is_empty(),
        "no positions in {}",
        roots_path.display()
    );
    let journal_file = journal_path(out);
    let journal = Journal::open(&journal_file, journal_key(&roots, bundle, every))?;
    eprintln!(
        "solving {} roots ({} already in {}), keeping 1 in {every} tested positions at 14 \
         empties...",
        roots.len(),
        journal.roots.len(),
        journal_file.display()
    );
    let solved = sample(&roots, bundle, keep, threads, &journal);
    let mut counts = std::collections::BTreeMap::new();
    for (board, _) in &solved {
        *counts.entry(board.empties()).or_insert(0usize) += 1;
    }
    let mut lines = format!(
        "# tsuru validation set: <board> <exact score for the side to move>\n\
         # the positions at which the selective passes tested ProbCut in solving {} (1 in {every} \
         by hash at 14 empties, twice as many a square higher, at most {per_empties} a count of \
         empties, from {min_empties} empties up), written by\n# tsuru {}\n# positions by empties: {}\n",
        roots_path.display(),
        std::env::args().skip(1).collect::<Vec<_>>().join(" "),
        counts
            .iter()
            .map(|(empties, n)| format!("{empties}:{n}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    for (board, score) in &solved {
        lines.push_str(&validation::line(board, *score));
        lines.push('\n');
    }
    std::fs::write(out, lines).with_context(|| format!("writing {}", out.display()))?;
    eprintln!(
        "{} positions in {:.1} s (the journal {} can be removed)",
        solved.len(),
        started.elapsed().as_secs_f64(),
        journal_file.display()
    );
    Ok(())
}
