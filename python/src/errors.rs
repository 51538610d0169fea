//! Rust errors as the Python exceptions a user expects: bad arguments are `ValueError`, I/O and
//! storage failures `OSError`, and anything the data or a writer refused `RuntimeError`.

use arrow_schema::ArrowError;
use parquet::errors::ParquetError;
use std::io;

use pyo3::exceptions::{
    PyFileExistsError, PyFileNotFoundError, PyIsADirectoryError, PyOSError, PyPermissionError,
    PyRuntimeError, PyValueError,
};
use pyo3::PyErr;
use shredlab_experiments::error::PipelineError;
use shredlab_writer::PendingFileError;

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

/// An I/O failure as the `OSError` subclass Python gives its kind (`PermissionError`,
/// `FileNotFoundError`, ...), so that `except PermissionError` works as with `open()`.
pub fn io(kind: io::ErrorKind, message: String) -> PyErr {
    match kind {
        io::ErrorKind::PermissionDenied => PyPermissionError::new_err(message),
        io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
        io::ErrorKind::AlreadyExists => PyFileExistsError::new_err(message),
        io::ErrorKind::IsADirectory => PyIsADirectoryError::new_err(message),
        _ => PyOSError::new_err(message),
    }
}

/// A temporary file that could not be created or committed.
pub fn pending(error: PendingFileError) -> PyErr {
    let kind = match &error {
        PendingFileError::Create { source, .. } | PendingFileError::Commit { source, .. } => {
            source.kind()
        }
        // `LocalFile::prepare` refused a directory already.
        PendingFileError::NotAFile { .. } => io::ErrorKind::InvalidInput,
    };
    io(kind, error.to_string())
}
