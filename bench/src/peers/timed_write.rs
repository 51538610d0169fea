//! One timed write of the hand-over batches by a Rust writer, reported in the record every peer
//! writer reports (the Python peers write the same JSON).

use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::file::properties::WriterProperties;
use serde::{Deserialize, Serialize};
use shredlab_experiments::process;
use shredlab_writer::{FileOptions, PendingFile};

use crate::writer_bench::{write_all, Contender};

/// What one timed write cost. The clock covers the write, closing the file and `fsync`, for every
/// writer alike; loading the hand-over file, and removing the file an earlier run left at the
/// path, come before it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WriteRecord {
    /// Wall-clock seconds.
    pub wall_s: f64,
    /// User + system CPU seconds of the whole process, every thread.
    pub cpu_s: Option<f64>,
    /// Peak resident memory of the process during the write (the loaded data included).
    pub peak_rss_bytes: Option<u64>,
    /// Resident memory when the clock started: the loaded data and the runtime.
    pub loaded_rss_bytes: Option<u64>,
    /// Size of the Parquet file written.
    pub file_bytes: u64,
}

/// Writes `batches` to `path` with `contender` and `props` into a [`PendingFile`]: synced and
/// renamed into place when complete, so an interrupted write never leaves a file under `path`.
/// `files` says how the file reaches the disk (the pipeline's early writeback and
/// preallocation, or none of them).
pub fn timed_write(
    contender: Contender,
    path: &Path,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    props: &WriterProperties,
    files: &FileOptions,
) -> Result<WriteRecord> {
    remove_earlier_run(path)?;
    let mut file = PendingFile::create(path)?.with_options(files);
    let peak_known = process::reset_peak();
    let loaded_rss_bytes = process::current_rss();
    let cpu_before = process::cpu_seconds();
    let started = Instant::now();
    write_all(contender, &mut file, schema, batches, props)?;
    file.commit()?;
    let file_bytes = std::fs::metadata(path)?.len();
    let wall_s = started.elapsed().as_secs_f64();
    Ok(WriteRecord {
        wall_s,
        cpu_s: cpu_before
            .zip(process::cpu_seconds())
            .map(|(before, after)| after - before),
        peak_rss_bytes: process::peak_rss().filter(|_| peak_known),
        loaded_rss_bytes,
        file_bytes,
    })
}

/// Removes the file an earlier run wrote at `path`, if any: the clock times writing a file, and
/// replacing one would charge the write with freeing the old file's blocks and cached pages
/// (the Python peers remove theirs the same way).
fn remove_earlier_run(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(error.into()),
        _ => Ok(()),
    }
}
