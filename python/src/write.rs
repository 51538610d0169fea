//! `write_parquet` and `digest`: an Arrow C stream from any producer, read on a thread of its
//! own (see [`crate::interrupt`]), encoded into a Parquet file that appears only once complete,
//! or digested by the data gate.

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use arrow_array::ffi_stream::RecordBatchStreamReader;
use arrow_array::{RecordBatch, RecordBatchReader};
use parquet::file::properties::WriterProperties;
use pyo3::exceptions::{PyFileExistsError, PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict};
use shredlab_experiments::compression::CompressionSpec;
use shredlab_experiments::config::newest_file_options;
use shredlab_experiments::encoder::{EncoderKind, FileEncoder};
use shredlab_experiments::gate::Digest;
use shredlab_experiments::output::store::{Client, ObjectSink};
use shredlab_experiments::output::StoreUrl;
use shredlab_experiments::run::available_cores;
use shredlab_writer::{ParallelOptions, PendingFile};

use crate::capsule::stream_reader;
use crate::errors::{self, invalid};
use crate::interrupt::interruptible;
use crate::local::LocalFile;
use crate::properties::{writer_properties, FileSettings};

/// What was written.
struct Written {
    rows: u64,
    bytes: u64,
    row_groups: usize,
    encoder_threads: usize,
}

/// Where the file goes.
enum Target {
    /// A local path, checked.
    File(LocalFile),
    /// An object in an S3-compatible store, with the client's settings.
    Object(StoreUrl, Vec<(String, String)>),
}

/// Writes the stream in `stream` (an `arrow_array_stream` capsule) to `path`, a local path or
/// `s3://bucket/key`; returns a dict of what was written. See `shredlab.write_parquet`.
#[pyfunction]
#[pyo3(signature = (stream, path, *, compression = "none", row_group_rows = None, threads = None, properties = None, writer = "parallel", storage_options = None, overwrite = false))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments, one each.
pub fn write_parquet<'py>(
    py: Python<'py>,
    stream: &Bound<'py, PyCapsule>,
    path: &str,
    compression: &str,
    row_group_rows: Option<usize>,
    threads: Option<usize>,
    properties: Option<&Bound<'py, PyDict>>,
    writer: &str,
    storage_options: Option<HashMap<String, String>>,
    overwrite: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let compression: CompressionSpec = compression
        .parse()
        .map_err(|e| invalid(format!("compression: {e}")))?;
    let settings = FileSettings {
        compression,
        row_group_rows,
    };
    let properties = writer_properties(&settings, properties)?;
    let kind = encoder_kind(writer, threads)?;
    // A local path is checked before anything is read or encoded.
    let target = target(path, storage_options, overwrite)?;
    let reader = stream_reader(stream)?;
    properties.check_schema(&reader.schema())?;
    let properties = properties.writer;
    let started = Instant::now();
    let written = interruptible(py, "shredlab-write", move |stop| match target {
        Target::Object(url, settings) => {
            to_object(url, &settings, overwrite, reader, properties, kind, stop)
        }
        Target::File(local) => to_file(&local, reader, properties, kind, stop),
    })?;
    let summary = PyDict::new(py);
    summary.set_item("path", path)?;
    summary.set_item("rows", written.rows)?;
    summary.set_item("bytes", written.bytes)?;
    summary.set_item("row_groups", written.row_groups)?;
    summary.set_item("writer", writer)?;
    summary.set_item("encoder_threads", written.encoder_threads)?;
    summary.set_item("seconds", started.elapsed().as_secs_f64())?;
    Ok(summary)
}

/// Rows digested between checks for Ctrl-C.
const DIGEST_SLICE_ROWS: usize = 65_536;

/// The data gate's digest (`ROWS:SUM`) of every row of the stream in `stream`.
#[pyfunction]
pub fn digest(py: Python<'_>, stream: &Bound<'_, PyCapsule>) -> PyResult<String> {
    let reader = stream_reader(stream)?;
    interruptible(py, "shredlab-digest", move |stop| {
        let mut digest = Digest::default();
        for batch in reader {
            let batch = batch.map_err(|e| errors::arrow("the stream failed", e))?;
            // A digest is a sum over rows, so slices of a batch add up to the batch's; Ctrl-C
            // is seen between them, even when the stream is one big batch.
            for start in (0..batch.num_rows()).step_by(DIGEST_SLICE_ROWS) {
                if stop.load(Ordering::Relaxed) {
                    return Err(PyRuntimeError::new_err("the digest was interrupted"));
                }
                let rows = DIGEST_SLICE_ROWS.min(batch.num_rows() - start);
                digest += Digest::of_batch(&batch.slice(start, rows))
                    .map_err(|e| invalid(e.to_string()))?;
            }
        }
        Ok(digest.to_string())
    })
}

fn encoder_kind(writer: &str, threads: Option<usize>) -> PyResult<EncoderKind> {
    match (writer, threads) {
        ("parallel", threads) => {
            let threads = threads.unwrap_or_else(available_cores);
            if threads == 0 {
                return Err(invalid("threads must be at least 1"));
            }
            Ok(EncoderKind::Parallel(
                ParallelOptions::new().with_threads(threads),
            ))
        }
        ("arrow", None | Some(1)) => Ok(EncoderKind::Upstream),
        ("arrow", Some(threads)) => Err(invalid(format!(
            "threads={threads} with writer='arrow': parquet's ArrowWriter encodes on the calling thread; use writer='parallel'"
        ))),
        (other, _) => Err(invalid(format!(
            "writer is '{other}': use 'parallel' (shredlab's ParallelArrowWriter) or 'arrow' (parquet's ArrowWriter)"
        ))),
    }
}

fn target(
    path: &str,
    storage_options: Option<HashMap<String, String>>,
    overwrite: bool,
) -> PyResult<Target> {
    let settings: Vec<(String, String)> = storage_options.unwrap_or_default().into_iter().collect();
    match StoreUrl::parse(path) {
        Some(url) => {
            let url = url.map_err(errors::pipeline)?;
            if url.prefix.as_ref().is_empty() {
                return Err(invalid(format!(
                    "{path} names a bucket but no object: give s3://BUCKET/KEY.parquet"
                )));
            }
            Ok(Target::Object(url, settings))
        }
        None if path.contains("://") => Err(invalid(format!(
            "{path}: write_parquet writes to a local path or to s3://BUCKET/KEY"
        ))),
        None if !settings.is_empty() => Err(invalid(
            "storage_options apply to s3:// paths only; this path is local",
        )),
        None if path.is_empty() => Err(invalid("path is empty: give a file name")),
        None => Ok(Target::File(LocalFile::prepare(path, overwrite)?)),
    }
}

fn to_file(
    local: &LocalFile,
    reader: RecordBatchStreamReader,
    properties: WriterProperties,
    kind: EncoderKind,
    stop: &AtomicBool,
) -> PyResult<Written> {
    // As the newest experiment's files: early writeback, so the sync before the rename waits
    // only for the tail, and blocks reserved ahead of the writes.
    let file = PendingFile::create(&local.path)
        .map_err(errors::pending)?
        .with_options(&newest_file_options());
    local.keep_mode(&file)?;
    let (file, mut written) = encode(file, reader, properties, kind, stop)?;
    let path = file.commit().map_err(errors::pending)?;
    written.bytes = std::fs::metadata(&path)
        .map_err(|e| errors::io(e.kind(), format!("cannot stat {}: {e}", path.display())))?
        .len();
    Ok(written)
}

fn to_object(
    url: StoreUrl,
    settings: &[(String, String)],
    overwrite: bool,
    reader: RecordBatchStreamReader,
    properties: WriterProperties,
    kind: EncoderKind,
    stop: &AtomicBool,
) -> PyResult<Written> {
    let client = Client::connect(&url, settings).map_err(errors::pipeline)?;
    let key = url.prefix.clone();
    if !overwrite && client.exists(&key).map_err(errors::pipeline)? {
        return Err(PyFileExistsError::new_err(format!(
            "{url} exists: pass overwrite=True to replace it"
        )));
    }
    let sink = ObjectSink::start(client, url, key).map_err(errors::pipeline)?;
    let (mut sink, mut written) = encode(sink, reader, properties, kind, stop)?;
    sink.complete().map_err(errors::pipeline)?;
    written.bytes = sink.bytes();
    sink.release();
    Ok(written)
}

/// Encodes every batch of `reader` into `sink`, unless `stop` is raised first. A batch is
/// written a row group at a time, so that an interrupt is seen between row groups even when
/// the whole table comes as one batch (as polars exports a DataFrame); the cuts are where
/// the writer would cut it anyway, so the bytes are the same.
fn encode<W: Write + Send>(
    sink: W,
    reader: RecordBatchStreamReader,
    properties: WriterProperties,
    kind: EncoderKind,
    stop: &AtomicBool,
) -> PyResult<(W, Written)> {
    let parquet = |e| errors::parquet("cannot write the Parquet file", e);
    let group_rows = properties
        .max_row_group_row_count()
        .filter(|_| properties.max_row_group_bytes().is_none());
    let mut encoder =
        FileEncoder::try_new(sink, reader.schema(), properties, kind).map_err(parquet)?;
    let mut rows = 0;
    for batch in reader {
        check_stop(stop)?;
        let batch = batch.map_err(|e| errors::arrow("the input stream failed", e))?;
        write_by_row_group(&mut encoder, &batch, group_rows, stop)?;
        rows += batch.num_rows() as u64;
    }
    encoder.flush().map_err(parquet)?;
    let row_groups = encoder.row_groups();
    let encoder_threads = encoder.pool_threads();
    let sink = encoder.into_inner().map_err(parquet)?;
    // The last check before the caller commits: an interrupt during the last row group's
    // encoding must not leave a finished file in place of an earlier one.
    check_stop(stop)?;
    Ok((
        sink,
        Written {
            rows,
            bytes: 0,
            row_groups,
            encoder_threads,
        },
    ))
}

/// Writes `batch` in pieces that each end where the writer closes a row group (at most
/// `group_rows` rows in one), checking `stop` before each; whole without a row limit.
fn write_by_row_group<W: Write + Send>(
    encoder: &mut FileEncoder<W>,
    batch: &RecordBatch,
    group_rows: Option<usize>,
    stop: &AtomicBool,
) -> PyResult<()> {
    let parquet = |e| errors::parquet("cannot write the Parquet file", e);
    let Some(group_rows) = group_rows.filter(|_| batch.num_rows() > 0) else {
        return encoder.write(batch).map_err(parquet);
    };
    let mut offset = 0;
    while offset < batch.num_rows() {
        check_stop(stop)?;
        let room = group_rows.saturating_sub(encoder.in_progress_rows()).max(1);
        let length = room.min(batch.num_rows() - offset);
        encoder
            .write(&batch.slice(offset, length))
            .map_err(parquet)?;
        offset += length;
    }
    Ok(())
}

/// Fails with "interrupted" once `stop` is raised (the caller then raises the
/// `KeyboardInterrupt` and nothing is committed).
fn check_stop(stop: &AtomicBool) -> PyResult<()> {
    if stop.load(Ordering::Relaxed) {
        return Err(PyOSError::new_err("interrupted"));
    }
    Ok(())
}
