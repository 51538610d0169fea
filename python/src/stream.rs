//! [`NativeStream`]: a workload's batches, built on Rust threads and handed to Python as an
//! Arrow C stream (`__arrow_c_stream__`), in row order. Each thread claims the next batch
//! index, builds it and parks it in the pipeline's ordered hand-off ([`ReorderWindow`]);
//! whoever completes the run from the window's start sends it on, in order, into a small
//! channel the stream's reader takes from. So the stream holds at most `window + threads`
//! finished batches, and the rows and their order are the same for any thread count.
//!
//! The consumer owns the stream: `pyarrow.RecordBatchReader.close()`, or releasing the reader,
//! releases it, which stops and joins the threads, and pyarrow refuses any later read.

use std::ffi::c_ulong;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use crossbeam_channel::{bounded, Receiver, Sender};
use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use shredlab_experiments::batches::BatchRanges;
use shredlab_experiments::error::panic_message;
use shredlab_experiments::gate::GateError;
use shredlab_experiments::generation::{generate_claimed, BatchClaims, Generation};
use shredlab_experiments::reorder::ReorderWindow;

use crate::capsule::stream_capsule;
use crate::workload::Workload;

/// How the rows are cut into batches, and how many threads build them.
#[derive(Debug, Clone)]
pub struct Batching {
    /// The rows, in batches.
    pub batches: BatchRanges,
    /// Threads building batches.
    pub threads: usize,
}

/// A workload's batches for Python: an object with `__arrow_c_stream__`, which hands its
/// stream to the first consumer (`pyarrow.RecordBatchReader.from_stream`, polars, DuckDB).
#[pyclass(module = "shredlab._shredlab")]
pub struct NativeStream {
    /// `None` once a consumer took it.
    stream: Option<BatchStream>,
}

impl NativeStream {
    /// Starts `batching.threads` threads building the batches of `workload`.
    pub fn start(py: Python<'_>, workload: Workload, batching: Batching) -> PyResult<Self> {
        let main_thread = if default_interrupt_handler(py)? {
            Some(
                py.import("threading")?
                    .call_method0("main_thread")?
                    .getattr("ident")?
                    .extract()?,
            )
        } else {
            None
        };
        let stream = BatchStream::start(workload, batching, main_thread)?;
        Ok(Self {
            stream: Some(stream),
        })
    }
}

#[pymethods]
impl NativeStream {
    /// The batches as an `arrow_array_stream` capsule, once. The requested schema, which the
    /// interface lets a producer ignore, is ignored: the batches are exported as they are.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &mut self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let stream = self.stream.take().ok_or_else(|| {
            PyRuntimeError::new_err("this stream was already handed to a reader; make a new one")
        })?;
        stream_capsule(py, Box::new(stream))
    }
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

/// The batches in row order, as a [`RecordBatchReader`]. Dropping it stops and joins its
/// threads: each ends after the batch it is building.
struct BatchStream {
    schema: SchemaRef,
    shared: Arc<Shared>,
    /// `None` once stopped.
    batches: Option<Receiver<RecordBatch>>,
    threads: Vec<JoinHandle<()>>,
    /// Python's main thread, the only one that sees Ctrl-C; `None` when SIGINT had a handler
    /// of the program's own when the stream started: that handler decides what Ctrl-C means,
    /// and the stream goes on.
    main_thread: Option<c_ulong>,
    /// Set once Ctrl-C stopped the stream: every later read says so.
    interrupted: bool,
    /// Set when a read found a Ctrl-C that Python had not handled yet (see [`Self::next`]).
    interrupt_seen: bool,
}

impl BatchStream {
    fn start(
        workload: Workload,
        batching: Batching,
        main_thread: Option<c_ulong>,
    ) -> PyResult<Self> {
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
            main_thread,
            interrupted: false,
            interrupt_seen: false,
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

    /// Whether Ctrl-C arrived and Python has not run its handler since: the reader is then in
    /// a native loop that never returns to Python between batches (pyarrow's `read_all`, a
    /// consumer importing the whole stream), and only the stream can end it. A `for` loop over
    /// the batches returns to Python after each one, where the handler runs as usual. The
    /// flag is raised again, so Python still raises `KeyboardInterrupt` when it next looks.
    fn unhandled_interrupt(&self) -> bool {
        // SAFETY: reads the calling thread's id; needs no GIL.
        let Some(main_thread) = self.main_thread else {
            return false;
        };
        if unsafe { pyo3::ffi::PyThread_get_thread_ident() } != main_thread {
            return false;
        }
        // `try_attach`: never during the interpreter's shutdown.
        Python::try_attach(|_| {
            // SAFETY: called with the GIL held, on Python's main thread.
            unsafe {
                if pyo3::ffi::PyOS_InterruptOccurred() == 0 {
                    return false;
                }
                pyo3::ffi::PyErr_SetInterrupt();
            }
            true
        })
        .unwrap_or(false)
    }
}

/// Whether SIGINT has Python's default handler, which raises `KeyboardInterrupt`.
fn default_interrupt_handler(py: Python<'_>) -> PyResult<bool> {
    let signal = py.import("signal")?;
    let handler = signal.call_method1("getsignal", (signal.getattr("SIGINT")?,))?;
    Ok(handler.is(&signal.getattr("default_int_handler")?))
}

impl Iterator for BatchStream {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        // A Ctrl-C found unhandled stops the stream only when the read before found it too: a
        // `for` loop returns to Python between reads, whose handler raises `KeyboardInterrupt`
        // there, so a Ctrl-C that lands during one read (between Python's checks) must not end
        // that read with an error (the `OSError` came first, and the `KeyboardInterrupt`
        // followed inside the code handling it); a native loop (`read_all`) never runs the
        // handler, so the next read finds it again and stops.
        if !self.interrupted && self.batches.is_some() {
            match (self.unhandled_interrupt(), self.interrupt_seen) {
                (true, true) => {
                    self.interrupted = true;
                    self.stop();
                }
                (seen, _) => self.interrupt_seen = seen,
            }
        }
        if self.interrupted {
            return Some(Err(ArrowError::IoError(
                "interrupted by Ctrl-C (KeyboardInterrupt follows): the stream stopped its threads"
                    .into(),
                io::Error::from(io::ErrorKind::Interrupted),
            )));
        }
        match self.batches.as_ref()?.recv() {
            Ok(batch) => Some(Ok(batch)),
            Err(_) => {
                // Every thread has ended: after the last batch, or after a failure.
                self.stop();
                self.failure()
                    .map(|failure| Err(ArrowError::ExternalError(failure.into())))
            }
        }
    }
}

impl RecordBatchReader for BatchStream {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }
}

impl Drop for BatchStream {
    fn drop(&mut self) {
        // The joins wait for each thread's batch: without the GIL, so that Python's other
        // threads run meanwhile (pyarrow may release the stream with the GIL held).
        if Python::try_attach(|py| py.detach(|| self.stop())).is_none() {
            self.stop();
        }
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
            claims.map(|index| (index, shared.batching.batches.rows_of(index))),
            &shared.stop,
            Some(&shared.window),
            |_, batch| sender.send(batch).map_err(|_| BuildStop::ReaderGone),
            || None,
            |_, _| {},
        )
    }));
    let failure = match built {
        Ok(Ok(())) => return,
        // The reader is gone: stop everyone.
        Ok(Err(BuildStop::ReaderGone)) => None,
        Ok(Err(BuildStop::Gate(error))) => Some(error.to_string()),
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

/// Why a building thread stopped before its last batch.
enum BuildStop {
    /// The stream's reader is gone.
    ReaderGone,
    /// The data gate could not digest a batch.
    Gate(GateError),
}

impl From<GateError> for BuildStop {
    fn from(error: GateError) -> Self {
        Self::Gate(error)
    }
}
