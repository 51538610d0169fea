//! Rust errors as the Python exceptions a user expects: bad arguments are `ValueError`, I/O and
//! storage failures `OSError`, and anything the data or a writer refused `RuntimeError`.

use arrow_schema::ArrowError;
use parquet::errors::ParquetError;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::PyErr;
use shredlab_experiments::error::PipelineError;

/// A `ValueError` with `message`.
pub fn invalid(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// An Arrow error met while reading a stream: the stream's producer failed, or sent data the
/// writer cannot take.
pub fn arrow(context: &str, error: ArrowError) -> PyErr {
    match error {
        ArrowError::IoError(message, _) => PyOSError::new_err(format!("{context}: {message}")),
        other => PyRuntimeError::new_err(format!("{context}: {other}")),
    }
}

/// A Parquet writer's error: `OSError` when the sink failed, else `RuntimeError` (a type the
/// writer does not support, an invalid property).
pub fn parquet(context: &str, error: ParquetError) -> PyErr {
    match error {
        ParquetError::External(source) => PyOSError::new_err(format!("{context}: {source}")),
        ParquetError::ArrowError(message) => {
            PyRuntimeError::new_err(format!("{context}: {message}"))
        }
        other => PyRuntimeError::new_err(format!("{context}: {other}")),
    }
}

/// A pipeline error from the object-store or output code: storage trouble is `OSError`, a bad
/// URL or setting `ValueError`.
pub fn pipeline(error: PipelineError) -> PyErr {
    match error {
        PipelineError::StoreUrl { .. } => PyValueError::new_err(error.to_string()),
        other => PyOSError::new_err(other.to_string()),
    }
}
