//! What the threads of a run share and hand back, whichever way they are arranged (the channel
//! pipeline of `pipeline.rs`, the fused workers of `fused.rs`): the stop-on-panic
//! guard, what a producer made and a writer wrote, and their joined results.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use arrow_array::{Array, RecordBatch};
use parquet::errors::ParquetError;

use crate::error::PipelineError;
use crate::gate::Digest;

/// Raises the shared stop flag if its thread unwinds, so the other threads stop too.
pub(crate) struct StopOnPanic<'a>(pub(crate) &'a AtomicBool);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if thread::panicking() {
            self.0.store(true, Ordering::SeqCst);
        }
    }
}

/// What one producer made.
#[derive(Default)]
pub(crate) struct Produced {
    pub(crate) arrow_bytes: u64,
    pub(crate) digest: Option<Digest>,
}

/// What one writer wrote: its finished sink, rows and batches, and the encoder threads it used.
pub(crate) struct Written<W> {
    pub(crate) sink: W,
    pub(crate) rows: u64,
    pub(crate) batches: u64,
    pub(crate) pool_threads: usize,
}

/// What a writer thread returned, joined.
pub(crate) type WriterResult<W> = thread::Result<Result<Written<W>, ParquetError>>;
/// What a producer thread returned, joined.
pub(crate) type ProducerResult = thread::Result<Result<Produced, PipelineError>>;
/// Every thread's result, joined, or the error that kept one from starting.
pub(crate) type Joined<W> = io::Result<(Vec<WriterResult<W>>, Vec<ProducerResult>)>;

/// The handle of a started thread; if it could not start, raises `stop` and keeps the first
/// such error, naming the thread.
pub(crate) fn started_or_stop<T>(
    started: io::Result<T>,
    name: &str,
    stop: &AtomicBool,
    first_error: &mut Option<io::Error>,
) -> Option<T> {
    started
        .map_err(|error| {
            stop.store(true, Ordering::SeqCst);
            first_error.get_or_insert(io::Error::new(error.kind(), format!("{name}: {error}")));
        })
        .ok()
}

/// Bytes of Arrow data a batch holds: the used part of its buffers, not their capacity.
pub(crate) fn arrow_bytes(batch: &RecordBatch) -> u64 {
    batch
        .columns()
        .iter()
        .map(|c| c.to_data().get_slice_memory_size().unwrap_or(0) as u64)
        .sum()
}
