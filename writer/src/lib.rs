//! Parquet output for Arrow data that knows nothing about what the data means.
//!
//! [`PendingFile`] gives every output file crash-safe semantics: bytes go to a hidden temporary
//! file in the destination directory, which takes the final name only after a successful close.
//! A failed, panicking or interrupted run therefore never leaves a file that looks complete.

mod pending;

pub use pending::{PendingFile, PendingFileError};
