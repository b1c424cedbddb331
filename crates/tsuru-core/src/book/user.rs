//! The per-user book: where the engine keeps what NBoard's `learn` teaches it when no
//! `--book` is given, so that the next start plays it.
//!
//! The file is `$XDG_DATA_HOME/tsuru/book`, else `$HOME/.local/share/tsuru/book` ([`path`];
//! `tsuru book path` prints it). Until the first game is learnt it does not exist and the
//! engine reads the shipped book; the first `learn` makes it from the shipped book.
//!
//! Learning into a book file ([`learn_into`], also for `--book FILE`) takes an exclusive
//! advisory lock on `FILE.lock` (the operating system's file lock, released when the process
//! ends however it ends), reads the file afresh, adds the game, writes the book to a
//! temporary file, flushes it and renames it over the book ([`crate::book::file::save`]),
//! and lets the lock go. Two engines learning into one book at once therefore each add
//! their game to the other's, and a process killed at any moment leaves the previous book
//! or the new one whole: at most the game being learnt is lost.

use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::learn::{Learned, Valuer};
use super::Book;
use crate::board::{Board, Move};
use crate::book::file;

/// The per-user book's file, from the environment (`XDG_DATA_HOME`, else `HOME`); an error
/// when neither names an absolute folder.
pub fn path() -> Result<PathBuf> {
    let absolute = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    if let Some(data) = absolute("XDG_DATA_HOME") {
        return Ok(data.join("tsuru").join("book"));
    }
    if let Some(home) = absolute("HOME") {
        return Ok(home.join(".local/share/tsuru/book"));
    }
    bail!("no per-user book: neither XDG_DATA_HOME nor HOME names an absolute folder")
}

/// The engine's default book and the file `learn` writes: the per-user book (or the shipped
/// book until that file exists) and its path. Without a per-user path, or when its file
/// cannot be read (it is then left alone), the shipped book with no file: learning stays in
/// memory. `(None, None)` only if the shipped book itself is damaged.
pub fn for_session() -> (Option<Book>, Option<PathBuf>) {
    let shipped = || match super::shipped() {
        Ok(book) => Some(book),
        Err(err) => {
            log::error!("{err:#}; playing without a book");
            None
        }
    };
    match path() {
        Ok(path) if path.exists() => match file::load(&path) {
            Ok(book) => (Some(book), Some(path)),
            Err(err) => {
                log::error!("{err:#}; playing from the shipped book, learning in memory only");
                (shipped(), None)
            }
        },
        Ok(path) => {
            let book = shipped();
            let path = book.is_some().then_some(path);
            (book, path)
        }
        Err(err) => {
            log::warn!("{err:#}; learning stays in memory");
            (shipped(), None)
        }
    }
}

/// Checks at start-up that `learn` will be able to write the book file at `path`: its folder
/// exists or can be made, and a file can be made in it (the lock file `learn` takes, which is
/// left in place as `learn` leaves it). An error names the path and why.
pub fn check_writable(path: &Path) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).with_context(|| {
            format!(
                "the book {} cannot be written: its folder {} cannot be made",
                path.display(),
                dir.display()
            )
        })?;
    }
    let lock = lock_path(path);
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock)
        .with_context(|| {
            format!(
                "the book {} cannot be written: no file can be made beside it ({})",
                path.display(),
                lock.display()
            )
        })?;
    Ok(())
}

/// The lock file beside a book.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

/// An exclusive lock on a book, held until dropped (or the process ends).
pub struct Locked {
    file: File,
}

impl Drop for Locked {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// Locks the book at `path` (making its folder if needed), waiting for another process
/// that holds it.
pub fn lock(path: &Path) -> Result<Locked> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).with_context(|| format!("making the folder {}", dir.display()))?;
    }
    let lock = lock_path(path);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock)
        .with_context(|| format!("opening the lock file {}", lock.display()))?;
    file.lock()
        .with_context(|| format!("locking {}", lock.display()))?;
    Ok(Locked { file })
}

/// Applies `change` to the book file at `path` under its lock: the file as it is now (or
/// `missing` when there is none), changed, written crash-safely; the book written.
pub fn update<T>(
    path: &Path,
    missing: impl FnOnce() -> Result<Book>,
    change: impl FnOnce(&mut Book) -> Result<T>,
) -> Result<(Book, T)> {
    let _lock = lock(path)?;
    let mut book = if path.exists() {
        file::load(path)?
    } else {
        missing()?
    };
    let result = change(&mut book)?;
    file::save(&book, path)?;
    Ok((book, result))
}

/// Learns a game into the book file at `path` under its lock (see the module
/// documentation); a missing file starts from `missing` (the shipped book for the per-user
/// book, an empty one for `--book FILE`). Returns the book as written, with the games
/// other processes added meanwhile.
pub fn learn_into(
    path: &Path,
    missing: impl FnOnce() -> Result<Book>,
    start: &Board,
    moves: &[Move],
    valuer: &mut dyn Valuer,
) -> Result<(Book, Learned)> {
    update(path, missing, |book| book.learn_game(start, moves, valuer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::notation;
    use crate::book::learn::tests::{Fixed, WIPEOUT};
    use crate::book::Key;

    #[test]
    fn learning_under_the_lock_keeps_every_process_game() {
        let dir = std::env::temp_dir().join(format!("tsuru-user-book-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let path = dir.join("tsuru").join("book");
        let games = ["f5d6c3d3c4", "f5f6e6f4", WIPEOUT, "d3c5f6f5", "c4e3f6e6"];
        std::thread::scope(|scope| {
            for game in games {
                let path = &path;
                scope.spawn(move || {
                    let moves = notation::parse_transcript(game).unwrap();
                    learn_into(
                        path,
                        || Ok(Book::new()),
                        &Board::start(),
                        &moves,
                        &mut Fixed,
                    )
                    .unwrap();
                });
            }
        });
        let book = file::load(&path).unwrap();
        for game in games {
            let mut board = Board::start();
            for mv in notation::parse_transcript(game).unwrap() {
                assert!(book.contains(&board), "{game}");
                board.play(mv).unwrap();
            }
        }
        // One finished game: counted once at the start.
        let root = book.get(&Key::of(&Board::start()).0).unwrap();
        assert_eq!(root.games.total(), 1);
        assert!(lock_path(&path).exists());
        fs::remove_dir_all(&dir).unwrap();
    }
}
