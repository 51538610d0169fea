//! SIGINT, SIGTERM and SIGHUP end a run cleanly: producers stop claiming batches, writers finish,
//! nothing is committed and every temporary file is removed, then the process exits with 128 +
//! the signal's number (130, 143, 129), as a shell reports a process the signal killed. A second
//! signal while that happens ends the process at once, saying what it may leave behind.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::{flag, low_level};

/// The signals that end a run cleanly. SIGHUP is among them because a closed terminal or SSH
/// session sends it: left to its default action, it would kill the run as SIGKILL does and leave
/// its temporary files behind.
const HANDLED: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];

/// The first termination signal received, or 0.
static RECEIVED: AtomicUsize = AtomicUsize::new(0);
/// Set by the first signal: from then on another one exits at once.
static ARMED: AtomicBool = AtomicBool::new(false);

/// What a second signal prints before the process ends. The clean stop was cut short, so the
/// temporary files (and, mid-commit, an earlier run's files set aside) may remain; a run into
/// the same output names each and its fix.
const CUT_SHORT: &[u8] = b"\nerror: a second signal ended the run at once, before it had cleaned up: the output may hold its temporary files; the next run into it names them and what to do\n";

/// Routes the [`HANDLED`] signals to [`received`] instead of killing the process.
pub fn install() -> io::Result<()> {
    for signal in HANDLED {
        // Order matters: the shutdown check runs before the flag that arms it is set.
        let exit_if_armed = move || {
            if ARMED.load(Ordering::SeqCst) {
                // SAFETY: write(2) on a static buffer is async-signal-safe; a failed write
                // changes nothing, as the process ends next either way.
                unsafe {
                    libc::write(
                        libc::STDERR_FILENO,
                        CUT_SHORT.as_ptr().cast(),
                        CUT_SHORT.len(),
                    )
                };
                low_level::exit(128 + signal);
            }
        };
        // SAFETY: the action is async-signal-safe: an atomic load, write(2) and _exit.
        unsafe { low_level::register(signal, exit_if_armed) }?;
        flag::register_usize(signal, &RECEIVED, signal as usize)?;
        flag::register(signal, &ARMED)?;
    }
    Ok(())
}

/// The termination signal received since [`install`], if any.
pub fn received() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal as i32),
    }
}
