//! `tsuru.Book`: an opening book in tsuru's format (the shipped book, the per-user book
//! NBoard's `learn` writes, or any file `tsuru book` made), read-only.

use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use tsuru_core::book::{self, file, Book};

use crate::board::PyBoard;

/// A move the book knows in a position.
#[pyclass(module = "tsuru", name = "BookMove", frozen, get_all)]
#[derive(Clone)]
pub struct BookMove {
    /// The square (0..63).
    #[pyo3(name = "move")]
    pub mv: u32,
    /// Its value in discs for the side to move.
    pub value: i32,
    /// Whether it is a book move (a link) rather than the best move found outside the book.
    pub in_book: bool,
    /// Games through the position it leads to.
    pub games: u32,
    /// Depth of the search below it.
    pub depth: u8,
}

#[pymethods]
impl BookMove {
    fn __repr__(&self) -> String {
        format!(
            "BookMove(move={}, value={}, in_book={}, games={}, depth={})",
            self.mv,
            self.value,
            if self.in_book { "True" } else { "False" },
            self.games,
            self.depth
        )
    }
}

/// An opening book: ``Book()`` the book compiled into the engine, ``Book(path)`` a tsuru
/// book file, ``Book.user()`` the book the engine plays by default (the per-user book once
/// NBoard's ``learn`` has written it, else the shipped one).
#[pyclass(module = "tsuru", name = "Book", frozen)]
pub struct PyBook {
    book: Book,
    path: Option<PathBuf>,
}

#[pymethods]
impl PyBook {
    #[new]
    #[pyo3(signature = (path=None))]
    fn new(path: Option<PathBuf>) -> PyResult<PyBook> {
        let book = match &path {
            None => book::shipped(),
            Some(path) => file::load(path),
        }
        .map_err(|err| PyValueError::new_err(format!("{err:#}")))?;
        Ok(PyBook { book, path })
    }

    /// The book the engine plays from by default; ``path`` says which file (``None``: the
    /// shipped book).
    #[staticmethod]
    fn user() -> PyResult<PyBook> {
        match book::user::path() {
            Ok(path) if path.exists() => PyBook::new(Some(path)),
            _ => PyBook::new(None),
        }
    }

    /// The file the book was read from (``None`` for the shipped book).
    #[getter]
    fn path(&self) -> Option<PathBuf> {
        self.path.clone()
    }

    /// The moves the book knows in ``board``, best first (``[]`` when it is not a book
    /// position); values are from the side to move's view.
    fn moves(&self, board: PyRef<'_, PyBoard>) -> Vec<BookMove> {
        self.book
            .moves(&board.board)
            .unwrap_or_default()
            .into_iter()
            .map(|choice| BookMove {
                mv: choice.square.index() as u32,
                value: choice.value.get(),
                in_book: choice.in_book,
                games: choice.games,
                depth: choice.depth,
            })
            .collect()
    }

    /// The value of ``board`` for the side to move (its best move's), or ``None``.
    fn value(&self, board: PyRef<'_, PyBoard>) -> Option<i32> {
        self.book
            .moves(&board.board)
            .and_then(|choices| choices.first().map(|choice| choice.value.get()))
    }

    fn __contains__(&self, board: PyRef<'_, PyBoard>) -> bool {
        self.book.contains(&board.board)
    }

    fn __len__(&self) -> usize {
        self.book.len()
    }

    fn __repr__(&self) -> String {
        match &self.path {
            Some(path) => format!("Book({:?}) ({} positions)", path, self.book.len()),
            None => format!("Book() (shipped, {} positions)", self.book.len()),
        }
    }
}
