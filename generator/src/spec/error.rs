//! The one error every spec check returns: where in the file, and what is wrong.

use thiserror::Error;

/// A spec that cannot be used, with where and why.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{path}: {message}")]
pub struct SpecError {
    /// Where in the file, e.g. `fields[2].children[0]`.
    pub path: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// A [`SpecError`] at `path`.
pub(super) fn error(path: &str, message: impl Into<String>) -> SpecError {
    SpecError {
        path: path.to_string(),
        message: message.into(),
    }
}
