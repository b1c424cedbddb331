//! `tsuru book import-edax`, `export-edax`, `merge` and `path`: the book exchanged with
//! Edax ([`tsuru_core::book::edax`]), books joined ([`tsuru_core::book::merge`]), and where the
//! per-user book lives ([`tsuru_core::book::user`]).

use std::collections::HashSet;
use std::path::Path;

use anyhow::{ensure, Context, Result};

use super::{read, Action, Options};
use tsuru_core::book::file;
use tsuru_core::book::learn::SearchValuer;
use tsuru_core::book::{edax, user, Book, Key};

/// The checks of these actions' arguments, for `parse`.
pub(super) fn check(action: Action, rest: &[String], out: Option<&Path>) -> Result<()> {
    match action {
        Action::ImportEdax | Action::ExportEdax => ensure!(
            rest.len() == 1,
            "tsuru book {} needs the Edax book file (.dat)",
            if action == Action::ImportEdax {
                "import-edax"
            } else {
                "export-edax"
            }
        ),
        Action::Merge => {
            ensure!(
                !rest.is_empty(),
                "tsuru book merge needs the books to merge"
            );
            ensure!(out.is_some(), "tsuru book merge needs --out FILE");
        }
        _ => {}
    }
    Ok(())
}

/// Positions of `keys` that still have no leaf while a legal move is outside their links.
fn still_unvalued(book: &Book, keys: &HashSet<Key>) -> Vec<Key> {
    let mut left: Vec<Key> = keys
        .iter()
        .filter(|key| {
            let Some(entry) = book.get(key) else {
                return false;
            };
            let legal = key.board().map_or(0, |b| b.legal_moves());
            entry.leaf.is_none() && legal & !entry.link_bits() != 0
        })
        .copied()
        .collect();
    left.sort_unstable();
    left
}

/// Merges `other` into `book`, searching again the leaves the merge lost.
fn merge_into(book: &mut Book, other: &Book, options: &Options) -> (usize, usize, usize) {
    let merged = book.merge(other);
    let keys: HashSet<Key> = merged.unvalued.iter().copied().collect();
    let left = still_unvalued(book, &keys);
    if !left.is_empty() {
        let mut search = options.new_search();
        book.revalue(&left, &mut SearchValuer::new(&mut search, options.level));
    }
    (merged.added, merged.combined, left.len())
}

pub(super) fn import_edax(options: &Options) -> Result<()> {
    let dat = Path::new(&options.rest[0]);
    let (imported, report) = edax::load(dat)?;
    for line in report.lines() {
        tsuru_core::outln!("{line}")?;
    }
    match &options.book {
        Some(path) => {
            let _lock = user::lock(path)?;
            file::save(&imported, path)?;
            tsuru_core::outln!("{} positions written to {}", imported.len(), path.display())?;
        }
        None => {
            let path = user::path()?;
            let (book, (added, combined, searched)) =
                user::update(&path, tsuru_core::book::shipped, |book| {
                    Ok(merge_into(book, &imported, options))
                })?;
            tsuru_core::outln!(
                "merged into the per-user book {}: {added} positions added, {combined} combined, \
                 {searched} searched again, {} in all",
                path.display(),
                book.len()
            )?;
        }
    }
    Ok(())
}

pub(super) fn export_edax(options: &Options) -> Result<()> {
    let book = read(options)?;
    edax::check_exportable(&book)?;
    let (edax, report) = edax::export(&book);
    let bytes = tsuru_core::formats::edax_book::to_bytes(&edax);
    let out = Path::new(&options.rest[0]);
    let temp = tsuru_core::formats::book::temp_path(out);
    std::fs::write(&temp, &bytes)
        .and_then(|()| std::fs::rename(&temp, out))
        .with_context(|| format!("writing the Edax book {}", out.display()))?;
    for line in report.lines() {
        tsuru_core::outln!("{line}")?;
    }
    tsuru_core::outln!(
        "{} positions ({} bytes) written to {}",
        edax.positions.len(),
        bytes.len(),
        out.display()
    )?;
    Ok(())
}

pub(super) fn merge(options: &Options) -> Result<()> {
    let out = options
        .out
        .as_deref()
        .context("tsuru book merge needs --out FILE")?;
    let mut book = file::load(Path::new(&options.rest[0]))?;
    let (mut added, mut combined, mut searched) = (0, 0, 0);
    for other in &options.rest[1..] {
        let other = file::load(Path::new(other))?;
        let (a, c, s) = merge_into(&mut book, &other, options);
        (added, combined, searched) = (added + a, combined + c, searched + s);
    }
    {
        let _lock = user::lock(out)?;
        file::save(&book, out)?;
    }
    tsuru_core::outln!(
        "{} books merged: {} positions ({added} added, {combined} combined, {searched} searched \
         again at depth {}) written to {}",
        options.rest.len(),
        book.len(),
        options.level.depth(),
        out.display()
    )?;
    Ok(())
}

/// What `tsuru book learn` last wrote, so that each game is learnt into the file as it is:
/// read again when another process (an engine's `learn`) changed it meanwhile.
pub(super) struct Written {
    stamp: Option<(u64, std::time::SystemTime)>,
}

fn stamp(path: &Path) -> Option<(u64, std::time::SystemTime)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

impl Written {
    /// The file at `path` as the run read it (or found it missing).
    pub(super) fn new(path: &Path) -> Written {
        Written { stamp: stamp(path) }
    }

    /// Applies `change` to `book` and writes it to `path`, under the book's lock, first
    /// reading the file again if it is not the one this run last wrote.
    pub(super) fn learn<T>(
        &mut self,
        book: &mut Book,
        path: &Path,
        change: impl FnOnce(&mut Book) -> Result<T>,
    ) -> Result<T> {
        let _lock = user::lock(path)?;
        if stamp(path) != self.stamp && path.exists() {
            *book = file::load(path)?;
        }
        let result = change(book)?;
        file::save(book, path)?;
        self.stamp = stamp(path);
        Ok(result)
    }
}

pub(super) fn path() -> Result<()> {
    let path = user::path()?;
    tsuru_core::outln!("{}", path.display())?;
    Ok(())
}
