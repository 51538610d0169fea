//! Long calls that Ctrl-C can interrupt. Python runs signal handlers only on its main thread and
//! only between bytecodes, so a call that works for seconds without the GIL would hold
//! `KeyboardInterrupt` back until it ends. Here the work runs on a thread of its own while the
//! calling thread waits without the GIL and checks for signals; on one, the work is told to
//! stop, waited for, and the `KeyboardInterrupt` raised.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use crossbeam_channel::{bounded, RecvTimeoutError};
use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use shredlab_experiments::error::panic_message;

/// How often the waiting thread checks for signals.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// Runs `work` on a thread named `name`, passing it a flag raised on Ctrl-C (it should return
/// soon after, cleaning up); returns its result, or raises the `KeyboardInterrupt`. A thread
/// that pulls from a Python-made stream takes the GIL itself, which the caller has released.
pub fn interruptible<T, F>(py: Python<'_>, name: &str, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce(&AtomicBool) -> PyResult<T> + Send,
{
    let stop = AtomicBool::new(false);
    let mut interrupt: Option<PyErr> = None;
    let (done, finished) = bounded(1);
    let outcome = py.detach(|| {
        thread::scope(|scope| {
            let stop = &stop;
            thread::Builder::new()
                .name(name.to_string())
                .spawn_scoped(scope, move || {
                    let _ = done.send(catch_unwind(AssertUnwindSafe(|| work(stop))));
                })
                .map_err(|e| PyOSError::new_err(format!("cannot start the {name} thread: {e}")))?;
            loop {
                match finished.recv_timeout(SIGNAL_CHECK) {
                    Ok(outcome) => return Ok(outcome),
                    Err(RecvTimeoutError::Timeout) if interrupt.is_none() => {
                        if let Err(error) = Python::attach(|py| py.check_signals()) {
                            stop.store(true, Ordering::SeqCst);
                            interrupt = Some(error);
                        }
                    }
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => {
                        return Err(PyRuntimeError::new_err(format!(
                            "the {name} thread ended without an outcome"
                        )))
                    }
                }
            }
        })
    });
    if let Some(interrupt) = interrupt {
        return Err(interrupt);
    }
    match outcome? {
        Ok(result) => result,
        Err(panic) => Err(PyRuntimeError::new_err(format!(
            "the {name} thread panicked: {}",
            panic_message(panic.as_ref())
        ))),
    }
}
