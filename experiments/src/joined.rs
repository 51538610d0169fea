//! What the threads of a run share and hand back, whichever way they are arranged (the channel
//! pipeline of `pipeline.rs`, the fused workers of `fused.rs`): the stop-on-panic
//! guard, what a producer made and a writer wrote, and their joined results.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use parquet::errors::ParquetError;

use crate::error::PipelineError;
use crate::gate::Digest;
use crate::generation::Generation;

/// Raises the shared stop flag if its thread unwinds, so the other threads stop too.
pub(crate) struct StopOnPanic<'a>(pub(crate) &'a AtomicBool);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if thread::panicking() {
            self.0.store(true, Ordering::SeqCst);
        }
    }
}

/// What one generating thread made.
#[derive(Default)]
pub(crate) struct Produced {
    pub(crate) arrow_bytes: u64,
    pub(crate) digest: Option<Digest>,
}

impl From<Generation<'_>> for Produced {
    fn from(generation: Generation<'_>) -> Self {
        Self {
            arrow_bytes: generation.arrow_bytes(),
            digest: generation.digest(),
        }
    }
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

/// Starts a run's named threads in one scope. A thread that cannot be started raises the run's
/// stop flag, so the ones already started wind down, and the first such error is kept, naming
/// the thread.
pub(crate) struct Spawner<'a> {
    stop: &'a AtomicBool,
    error: Option<io::Error>,
}

impl<'a> Spawner<'a> {
    pub(crate) fn new(stop: &'a AtomicBool) -> Self {
        Self { stop, error: None }
    }

    /// Starts `body` on a thread called `name` in `scope`; `None` if it could not start.
    pub(crate) fn spawn<'scope, 'env, T: Send + 'scope>(
        &mut self,
        scope: &'scope thread::Scope<'scope, 'env>,
        name: String,
        body: impl FnOnce() -> T + Send + 'scope,
    ) -> Option<thread::ScopedJoinHandle<'scope, T>> {
        let started = thread::Builder::new()
            .name(name.clone())
            .spawn_scoped(scope, body);
        started
            .map_err(|error| {
                self.stop.store(true, Ordering::SeqCst);
                let named = io::Error::new(error.kind(), format!("{name}: {error}"));
                self.error.get_or_insert(named);
            })
            .ok()
    }

    /// The first error that kept a thread from starting, if any.
    pub(crate) fn finish(self) -> io::Result<()> {
        self.error.map_or(Ok(()), Err)
    }
}

/// Joins every thread that started, so that none of their panics escapes the scope.
pub(crate) fn join_started<T>(
    handles: Vec<Option<thread::ScopedJoinHandle<'_, T>>>,
) -> Vec<thread::Result<T>> {
    handles.into_iter().flatten().map(|h| h.join()).collect()
}
