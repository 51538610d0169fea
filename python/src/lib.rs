//! `shredlab._shredlab`, the native half of the `shredlab` Python package (`python/shredlab/`
//! is the other): the generator as ordered streams of Arrow batches made on Rust threads, the
//! parallel Parquet writer, and the data gate's digest. Arrow data crosses into and out of
//! Python through the Arrow PyCapsule interface, without copies.

use pyo3::prelude::*;

mod capsule;
mod errors;
mod interrupt;
mod local;
mod properties;
mod stream;
mod workload;
mod write;

/// The module Python imports as `shredlab._shredlab`.
#[pymodule]
fn _shredlab(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<stream::NativeStream>()?;
    module.add_function(wrap_pyfunction!(workload::spec_stream, module)?)?;
    module.add_function(wrap_pyfunction!(workload::contacts_stream, module)?)?;
    module.add_function(wrap_pyfunction!(write::write_parquet, module)?)?;
    module.add_function(wrap_pyfunction!(write::digest, module)?)?;
    module.add("DEFAULT_SEED", workload::DEFAULT_SEED)?;
    // The CLI's limits, so that the package checks its arguments against the same numbers.
    module.add("MAX_THREADS", shredlab_experiments::config::MAX_THREADS)?;
    module.add(
        "MAX_BATCH_ROWS",
        shredlab_experiments::config::MAX_BATCH_ROWS,
    )?;
    Ok(())
}
