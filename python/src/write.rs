//! `write_parquet` and `digest`: an Arrow C stream from any producer, read on a thread of its
//! own (see [`crate::interrupt`]), encoded into a Parquet file that appears only once complete,
//! or digested by the data gate.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use arrow_array::ffi_stream::RecordBatchStreamReader;
use arrow_array::RecordBatchReader;
use parquet::file::properties::WriterProperties;
use pyo3::exceptions::{PyIsADirectoryError, PyOSError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict};
use shredlab_experiments::compression::CompressionSpec;
use shredlab_experiments::config::WRITEBACK_STEP;
use shredlab_experiments::encoder::{EncoderKind, FileEncoder};
use shredlab_experiments::gate::Digest;
use shredlab_experiments::output::store::{Client, ObjectSink};
use shredlab_experiments::output::StoreUrl;
use shredlab_experiments::run::available_cores;
use shredlab_writer::{ParallelOptions, PendingFile};

use crate::capsule::stream_reader;
use crate::errors::{self, invalid};
use crate::interrupt::interruptible;
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
    /// A local path.
    File(String),
    /// An object in an S3-compatible store, with the client's settings.
    Object(StoreUrl, Vec<(String, String)>),
}

/// Writes the stream in `stream` (an `arrow_array_stream` capsule) to `path`, a local path or
/// `s3://bucket/key`; returns a dict of what was written. See `shredlab.write_parquet`.
#[pyfunction]
#[pyo3(signature = (stream, path, *, compression = "none", row_group_rows = None, threads = None, properties = None, writer = "parallel", storage_options = None))]
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
    let target = target(path, storage_options)?;
    let reader = stream_reader(stream)?;
    let started = Instant::now();
    let written = interruptible(py, "shredlab-write", move |stop| match target {
        Target::File(path) => to_file(Path::new(&path), reader, properties, kind, stop),
        Target::Object(url, settings) => to_object(url, &settings, reader, properties, kind, stop),
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

/// The data gate's digest (`ROWS:SUM`) of every row of the stream in `stream`.
#[pyfunction]
pub fn digest(py: Python<'_>, stream: &Bound<'_, PyCapsule>) -> PyResult<String> {
    let reader = stream_reader(stream)?;
    interruptible(py, "shredlab-digest", move |stop| {
        let mut digest = Digest::default();
        for batch in reader {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let batch = batch.map_err(|e| errors::arrow("the stream failed", e))?;
            digest += Digest::of_batch(&batch).map_err(|e| invalid(e.to_string()))?;
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

fn target(path: &str, storage_options: Option<HashMap<String, String>>) -> PyResult<Target> {
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
        None => Ok(Target::File(path.to_string())),
    }
}

fn to_file(
    path: &Path,
    reader: RecordBatchStreamReader,
    properties: WriterProperties,
    kind: EncoderKind,
    stop: &AtomicBool,
) -> PyResult<Written> {
    if path.is_dir() {
        return Err(PyIsADirectoryError::new_err(format!(
            "{} is a directory: give a file name inside it",
            path.display()
        )));
    }
    let os = |e: shredlab_writer::PendingFileError| PyOSError::new_err(e.to_string());
    // As the pipeline's files from experiment 20 on: writeback starts every 8 MiB, so the sync
    // before the rename waits only for the tail.
    let file = PendingFile::create(path)
        .map_err(os)?
        .with_early_writeback(WRITEBACK_STEP);
    let (file, mut written) = encode(file, reader, properties, kind, stop)?;
    let path = file.commit().map_err(os)?;
    written.bytes = std::fs::metadata(&path)
        .map_err(|e| PyOSError::new_err(format!("cannot stat {}: {e}", path.display())))?
        .len();
    Ok(written)
}

fn to_object(
    url: StoreUrl,
    settings: &[(String, String)],
    reader: RecordBatchStreamReader,
    properties: WriterProperties,
    kind: EncoderKind,
    stop: &AtomicBool,
) -> PyResult<Written> {
    let client = Client::connect(&url, settings).map_err(errors::pipeline)?;
    let key = url.prefix.clone();
    let sink = ObjectSink::start(client, url, key).map_err(errors::pipeline)?;
    let (mut sink, mut written) = encode(sink, reader, properties, kind, stop)?;
    sink.complete().map_err(errors::pipeline)?;
    written.bytes = sink.bytes();
    sink.release();
    Ok(written)
}

/// Encodes every batch of `reader` into `sink`, unless `stop` is raised first.
fn encode<W: Write + Send>(
    sink: W,
    reader: RecordBatchStreamReader,
    properties: WriterProperties,
    kind: EncoderKind,
    stop: &AtomicBool,
) -> PyResult<(W, Written)> {
    let parquet = |e| errors::parquet("cannot write the Parquet file", e);
    let mut encoder =
        FileEncoder::try_new(sink, reader.schema(), properties, kind).map_err(parquet)?;
    let mut rows = 0;
    for batch in reader {
        if stop.load(Ordering::Relaxed) {
            return Err(PyOSError::new_err("interrupted"));
        }
        let batch = batch.map_err(|e| errors::arrow("the input stream failed", e))?;
        encoder.write(&batch).map_err(parquet)?;
        rows += batch.num_rows() as u64;
    }
    encoder.flush().map_err(parquet)?;
    let row_groups = encoder.row_groups();
    let encoder_threads = encoder.pool_threads();
    let sink = encoder.into_inner().map_err(parquet)?;
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
