//! [`BatchStream`]: a workload's batches, built on Rust threads and handed to Python in row
//! order. Each thread claims the next batch index, builds it without the GIL and parks it in
//! the pipeline's ordered hand-off ([`ReorderWindow`]); whoever completes the run from the
//! window's start sends it on, in order, into a small channel the reader takes from. So the
//! stream holds at most `window + threads` finished batches, and the rows and their order are
//! the same for any thread count.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use crossbeam_channel::{bounded, Receiver, RecvTimeoutError, Sender};
use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use shredlab_experiments::batches::BatchRanges;
use shredlab_experiments::error::panic_message;
use shredlab_experiments::gate::GateError;
use shredlab_experiments::generation::{generate_claimed, BatchClaims, Generation};
use shredlab_experiments::reorder::ReorderWindow;

use crate::capsule::{schema_capsule, ArrowBatch};
use crate::workload::Workload;

/// How often a reader waiting for a batch checks for Ctrl-C.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// How the rows are cut into batches, and how many threads build them.
#[derive(Debug, Clone)]
pub struct Batching {
    /// The rows, in batches.
    pub batches: BatchRanges,
    /// Threads building batches.
    pub threads: usize,
}

/// What the building threads share.
struct Shared {
    workload: Workload,
    batching: Batching,
    next: AtomicU64,
    window: ReorderWindow,
    stop: AtomicBool,
    /// Why the threads stopped early, when one failed.
    failure: Mutex<Option<String>>,
}

/// An iterator of [`ArrowBatch`]es in row order (`shredlab.generate` and `shredlab.contacts`
/// wrap it in a `pyarrow.RecordBatchReader`). Dropping or closing it stops and joins its threads.
#[pyclass(module = "shredlab._shredlab")]
pub struct BatchStream {
    schema: SchemaRef,
    shared: Arc<Shared>,
    /// `None` once closed.
    batches: Option<Receiver<RecordBatch>>,
    threads: Vec<JoinHandle<()>>,
}

impl BatchStream {
    /// Starts `batching.threads` threads building the batches of `workload`.
    pub fn start(workload: Workload, batching: Batching) -> PyResult<Self> {
        let schema = workload.schema();
        let threads = batching.threads;
        let shared = Arc::new(Shared {
            workload,
            batching,
            next: AtomicU64::new(0),
            window: ReorderWindow::new(2 * threads as u64),
            stop: AtomicBool::new(false),
            failure: Mutex::new(None),
        });
        let (sender, batches) = bounded(threads);
        let mut stream = Self {
            schema,
            shared,
            batches: Some(batches),
            threads: Vec::with_capacity(threads),
        };
        for index in 0..threads {
            let (shared, sender) = (Arc::clone(&stream.shared), sender.clone());
            let spawned = thread::Builder::new()
                .name(format!("shredlab-generate-{index}"))
                .spawn(move || build(&shared, &sender));
            match spawned {
                Ok(handle) => stream.threads.push(handle),
                Err(error) => {
                    // Dropping `stream` stops and joins the threads already started.
                    return Err(PyOSError::new_err(format!(
                        "cannot start a generator thread: {error}"
                    )));
                }
            }
        }
        Ok(stream)
    }

    /// Stops the threads and waits for them: each ends after the batch it is building.
    fn stop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // A thread blocked sending to a full channel returns once the receiver is gone.
        self.batches = None;
        for handle in self.threads.drain(..) {
            // A panic was caught in `build` and recorded as the failure.
            let _ = handle.join();
        }
    }

    fn failure(&self) -> Option<String> {
        lock(&self.shared.failure).clone()
    }
}

#[pymethods]
impl BatchStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next batch, waiting for it without the GIL; `KeyboardInterrupt` on Ctrl-C (the
    /// threads are stopped first), `RuntimeError` if a thread failed.
    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<ArrowBatch>> {
        loop {
            let Some(batches) = self.batches.as_ref() else {
                return Ok(None);
            };
            match py.detach(|| batches.recv_timeout(SIGNAL_CHECK)) {
                Ok(batch) => return Ok(Some(ArrowBatch::new(batch))),
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(interrupt) = py.check_signals() {
                        py.detach(|| self.stop());
                        return Err(interrupt);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    // Every thread has ended: after the last batch, or after a failure.
                    self.stop();
                    return match self.failure() {
                        Some(failure) => Err(PyRuntimeError::new_err(failure)),
                        None => Ok(None),
                    };
                }
            }
        }
    }

    /// The schema of every batch, as an `arrow_schema` capsule (for `pyarrow.schema()`).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.schema)
    }

    /// Stops building: the threads end after their current batch. Iterating then ends.
    fn close(&mut self, py: Python<'_>) {
        py.detach(|| self.stop());
    }
}

impl Drop for BatchStream {
    fn drop(&mut self) {
        self.stop();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// One building thread: claims batch indices until none are left or the stream stops.
fn build(shared: &Shared, sender: &Sender<RecordBatch>) {
    let claims = BatchClaims::Shared {
        next: &shared.next,
        count: shared.batching.batches.count(),
    };
    let built = catch_unwind(AssertUnwindSafe(|| {
        let mut generation = Generation::new(shared.workload.maker(), false);
        generate_claimed(
            &mut generation,
            claims,
            &shared.stop,
            Some(&shared.window),
            |index| shared.batching.batches.rows_of(index),
            |_, batch| sender.send(batch).map_err(|_| ReaderGone),
            || None,
        )
    }));
    let failure = match built {
        Ok(Ok(())) => return,
        // The reader is gone: stop everyone.
        Ok(Err(ReaderGone)) => None,
        Err(panic) => Some(format!(
            "a generator thread panicked: {}",
            panic_message(panic.as_ref())
        )),
    };
    if let Some(message) = failure {
        lock(&shared.failure).get_or_insert(message);
    }
    shared.stop.store(true, Ordering::SeqCst);
}

/// Why a building thread stopped handing batches on: the stream's reader is gone.
struct ReaderGone;

impl From<GateError> for ReaderGone {
    /// The streams make no digest, so no gate error arises; should one, the thread stops.
    fn from(_: GateError) -> Self {
        ReaderGone
    }
}
