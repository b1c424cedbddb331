//! `tsuru._native`: the tsuru Othello engine as a CPython extension module, built by
//! maturin (python/pyproject.toml) and re-exported by the `tsuru` package
//! (python/tsuru/__init__.py). It calls the engine's library API as any program would:
//! [`board`] (the engine's board), [`search`] (search, solve, evaluation, stop), [`book`]
//! (opening books), [`data`] (OBF and self-play readers), [`review`] (game review) and [`client`] (tsuru-core's client
//! of GTP and NBoard engines, under `tsuru.engine`).

use pyo3::prelude::*;

mod board;
mod book;
mod client;
mod data;
mod review;
mod search;

/// The tsuru engine, compiled (see the `tsuru` package for the Python-side documentation).
#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<board::PyBoard>()?;
    module.add_class::<search::Searcher>()?;
    module.add_class::<search::PySearchResult>()?;
    module.add_class::<search::Line>()?;
    module.add_class::<search::Stop>()?;
    module.add_class::<book::PyBook>()?;
    module.add_class::<book::BookMove>()?;
    module.add_class::<review::PyReview>()?;
    module.add_class::<review::PyMoveReview>()?;
    module.add_class::<review::PyDecisive>()?;
    module.add_class::<client::EngineClient>()?;
    module.add("ClientError", module.py().get_type::<client::ClientError>())?;
    module.add_function(wrap_pyfunction!(search::search, module)?)?;
    module.add_function(wrap_pyfunction!(search::solve, module)?)?;
    module.add_function(wrap_pyfunction!(search::evaluate, module)?)?;
    module.add_function(wrap_pyfunction!(review::review, module)?)?;
    module.add_function(wrap_pyfunction!(search::settings, module)?)?;
    module.add_function(wrap_pyfunction!(search::check_setting, module)?)?;
    module.add_function(wrap_pyfunction!(data::parse_obf, module)?)?;
    module.add_function(wrap_pyfunction!(data::parse_selfplay, module)?)?;
    module.add_function(wrap_pyfunction!(data::selfplay_columns, module)?)?;
    module.add("PASS", board::PASS)?;
    module.add("ENGINE_VERSION", tsuru_core::identity::version_line())?;
    Ok(())
}
