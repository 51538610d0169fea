//! Parquet output for Arrow data that knows nothing about what the data means.
//!
//! - [`ParallelArrowWriter`]: a drop-in replacement for `parquet::arrow::ArrowWriter` that
//!   encodes leaf columns on a persistent pool of workers, keeps several row groups in flight,
//!   bounds the memory it holds, and writes byte-for-byte the same file.
//! - `AsyncParallelArrowWriter` (feature `tokio`): the same for `AsyncArrowWriter`, encoding on
//!   tokio's blocking pool, never on the runtime's threads.
//! - [`PendingFile`]: crash-safe output files. Bytes go to a hidden temporary file in the
//!   destination directory, which takes the final name only after a successful close, so a
//!   failed, panicking or interrupted run never leaves a file that looks complete.

#[cfg(feature = "tokio")]
mod async_writer;
mod board;
mod budget;
mod options;
mod pending;
mod sync;
mod worker;
mod writer;

pub use options::{ParallelOptions, THREADS_ENV};
pub use pending::{PendingFile, PendingFileError};
pub use writer::ParallelArrowWriter;

#[cfg(feature = "tokio")]
pub use async_writer::AsyncParallelArrowWriter;
