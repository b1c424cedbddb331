//! The engine's settings with the files they name loaded, once, at start-up.
//!
//! The command line's parser only reads words into a [`Config`]; [`Loaded::load`] then reads
//! what the settings name (the evaluation's weights and statistics, the opening book) and
//! checks what start-up promises to check (a `--book` file is readable if it exists and can
//! be written), so that a bad file ends the engine before it reads any input, and the session
//! starts from the values read here instead of reading the files again.

use std::path::PathBuf;
use tsuru_core::search::SearchConfig;

use anyhow::{Context, Result};

use tsuru_core::book::Book;
use tsuru_core::config::{BookSetting, Config};
use tsuru_core::eval::EvalBundle;

/// A configuration and what its files hold: what [`super::Session::new`] starts from.
pub struct Loaded {
    /// The settings as the command line gave them.
    pub config: Config,
    /// The search the settings describe (`--hash`, `--threads`, `--probcut`), checked, with
    /// the evaluation [`Config::eval`] names built.
    pub search: SearchConfig,
    /// The opening book, if any.
    pub book: Option<Book>,
    /// The file `learn` writes the book to, if any.
    pub book_path: Option<PathBuf>,
}

impl Loaded {
    /// Loads the evaluation and the book `config` names. A weights or statistics file that
    /// cannot be read, and a `--book` file that cannot be read (when it exists) or written,
    /// are errors naming their option; the per-user book's troubles are logged instead
    /// ([`tsuru_core::book::user::for_session`]), as the engine plays on without it.
    pub fn load(config: Config) -> Result<Loaded> {
        let search = SearchConfig::new(config.hash_mb, config.threads)?
            .with_selectivity(config.selectivity)?
            .with_eval(build_eval(&config.eval)?);
        let (book, book_path) = match &config.book {
            BookSetting::Off => (None, None),
            BookSetting::Shipped => tsuru_core::book::user::for_session(),
            BookSetting::File(path) => {
                let book = open_book_file(path).context("option --book")?;
                (Some(book), Some(path.clone()))
            }
        };
        Ok(Loaded {
            config,
            search,
            book,
            book_path,
        })
    }
}

/// The evaluation `choice` names, built; an error names the option that chose it.
pub fn build_eval(choice: &tsuru_core::config::EvalChoice) -> Result<EvalBundle> {
    choice.build().with_context(|| match choice {
        tsuru_core::config::EvalChoice::File(_) => "option --eval-file",
        _ => "option --eval",
    })
}

/// The book of `--book FILE`: the file's, or an empty book when it does not exist yet (the
/// first `learn` creates it). The file must be writable either way: refused now rather than
/// at the first `learn`, whose games would be lost.
fn open_book_file(path: &std::path::Path) -> Result<Book> {
    let book = if path.exists() {
        tsuru_core::book::file::load(path)?
    } else {
        Book::new()
    };
    tsuru_core::book::user::check_writable(path)?;
    Ok(book)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_book_file_is_loaded_or_started_and_must_be_writable() {
        // A missing book in a folder that can be made is accepted (learn creates it).
        let dir = std::env::temp_dir().join(format!("tsuru-loaded-{}", std::process::id()));
        let path = dir.join("new/x.book");
        let loaded = Loaded::load(Config {
            book: BookSetting::File(path.clone()),
            ..Config::default()
        })
        .unwrap();
        assert_eq!(loaded.book_path, Some(path));
        assert!(loaded.book.is_some());
        std::fs::remove_dir_all(&dir).unwrap();
        // Not a book, and a folder inside a file (it can never be written).
        for bad in ["Cargo.toml", "Cargo.toml/x.book"] {
            let err = Loaded::load(Config {
                book: BookSetting::File(bad.into()),
                ..Config::default()
            })
            .err()
            .unwrap();
            assert!(format!("{err:#}").starts_with("option --book: "), "{err:#}");
        }
        let err = Loaded::load(Config {
            eval: tsuru_core::config::EvalChoice::File("Cargo.toml".into()),
            ..Config::default()
        })
        .err()
        .unwrap();
        assert!(
            format!("{err:#}").starts_with("option --eval-file: "),
            "{err:#}"
        );
    }
}
