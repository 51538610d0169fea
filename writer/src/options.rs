//! [`ParallelOptions`]: how many workers, how much memory, how much work stays inline.

use std::any::Any;
use std::sync::Arc;

use parquet::errors::ParquetError;

use crate::encode::ColumnEncoder;

/// The environment variable that sets the worker count when the builder does not.
pub const THREADS_ENV: &str = "SHREDLAB_WRITER_THREADS";

/// Told on each encoding worker thread as it starts; what it returns is dropped on the same
/// thread as the worker ends. A profiler can so attribute a worker's work from its first
/// instruction to its last: shredlab's `pipeline --counters` opens per-thread perf events this
/// way.
pub trait WorkerObserver: Send + Sync {
    /// Called on a new worker thread before it takes any work.
    fn worker_started(&self) -> Box<dyn Any>;
}

/// The observer of [`ParallelOptions::with_worker_observer`]: options compare equal when they
/// hold the same observer.
#[derive(Clone)]
struct Observer(Arc<dyn WorkerObserver>);

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WorkerObserver")
    }
}

impl PartialEq for Observer {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Observer {}

/// Settings of a [`crate::ParallelArrowWriter`] beyond Parquet's `WriterProperties`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParallelOptions {
    threads: Option<usize>,
    memory_budget: usize,
    row_groups_in_flight: usize,
    inline_threshold: usize,
    observer: Option<Observer>,
    encoder: ColumnEncoder,
    sink_buffer: usize,
}

impl Default for ParallelOptions {
    fn default() -> Self {
        Self {
            threads: None,
            memory_budget: 32 * 1024 * 1024,
            row_groups_in_flight: 2,
            inline_threshold: 128 * 1024,
            observer: None,
            encoder: ColumnEncoder::default(),
            sink_buffer: crate::sink_buffer::CAPACITY,
        }
    }
}

impl ParallelOptions {
    /// Default settings: workers from [`THREADS_ENV`] or the machine, a 32 MiB budget for
    /// queued Arrow data, two row groups in flight, shredlab's column encoder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Encoding workers (0 or 1 encodes everything on the calling thread). Overrides
    /// [`THREADS_ENV`] and the machine's available parallelism.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads);
        self
    }

    /// Bytes of Arrow data that may wait for encoding before `write` blocks.
    pub fn with_memory_budget(mut self, bytes: usize) -> Self {
        self.memory_budget = bytes;
        self
    }

    /// Closed row groups that may be encoding while the next one fills (at least 1).
    pub fn with_row_groups_in_flight(mut self, row_groups: usize) -> Self {
        self.row_groups_in_flight = row_groups.max(1);
        self
    }

    /// Leaf values (rows x leaf columns) a row group takes on the calling thread before its
    /// columns move to the workers; small writes never pay for cross-thread hand-offs.
    pub fn with_inline_threshold(mut self, leaf_values: usize) -> Self {
        self.inline_threshold = leaf_values;
        self
    }

    /// Tells `observer` of every encoding worker the writer starts, on the worker's thread
    /// (see [`WorkerObserver`]); work done inline, on the calling thread, is the caller's.
    pub fn with_worker_observer(mut self, observer: Arc<dyn WorkerObserver>) -> Self {
        self.observer = Some(Observer(observer));
        self
    }

    /// Writes the column chunks with `encoder`: shredlab's own, the default, where it supports
    /// the leaf, or parquet's `ArrowColumnWriter` for every leaf. The bytes are the same. With
    /// `max_row_group_bytes` set in the properties every leaf is parquet's, whose size estimate
    /// decides where `ArrowWriter` cuts the row groups.
    pub fn with_encoder(mut self, encoder: ColumnEncoder) -> Self {
        self.encoder = encoder;
        self
    }

    /// The column encoder asked for.
    pub fn encoder(&self) -> ColumnEncoder {
        self.encoder
    }

    /// Gathers the file's bytes into writes of up to `bytes` before they reach the sink
    /// (default 1 MiB; 0 hands every piece on as parquet writes it). parquet splices the chunks
    /// of shredlab's encoder in 8 KiB pieces, each one write to the sink: for a file, one system
    /// call each without the buffer. Up to `bytes` are held in memory.
    pub fn with_sink_buffer(mut self, bytes: usize) -> Self {
        self.sink_buffer = bytes;
        self
    }

    /// The sink buffer's size in bytes.
    pub fn sink_buffer(&self) -> usize {
        self.sink_buffer
    }

    /// The observer told of each worker, if any.
    pub(crate) fn worker_observer(&self) -> Option<Arc<dyn WorkerObserver>> {
        self.observer.as_ref().map(|o| Arc::clone(&o.0))
    }

    /// The memory budget in bytes.
    pub fn memory_budget(&self) -> usize {
        self.memory_budget
    }

    /// Row groups in flight.
    pub fn row_groups_in_flight(&self) -> usize {
        self.row_groups_in_flight
    }

    /// The inline threshold in leaf values.
    pub fn inline_threshold(&self) -> usize {
        self.inline_threshold
    }

    /// The worker count: the builder's, else [`THREADS_ENV`], else available parallelism.
    pub fn resolve_threads(&self) -> Result<usize, ParquetError> {
        if let Some(threads) = self.threads {
            return Ok(threads);
        }
        match std::env::var(THREADS_ENV) {
            Ok(text) => text.trim().parse::<usize>().map_err(|_| {
                ParquetError::General(format!(
                    "{THREADS_ENV}={text:?} is not a whole number of threads: set it to e.g. 4, or unset it to use every core"
                ))
            }),
            Err(_) => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
        }
    }
}
