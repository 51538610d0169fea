//! SIGINT, SIGTERM and SIGHUP end a run cleanly: producers stop claiming batches, writers finish,
//! nothing is committed and every temporary file is removed, then the process exits with 128 +
//! the signal's number (130, 143, 129), as a shell reports a process the signal killed. A second
//! signal while that happens ends the process at once.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::flag;

/// The signals that end a run cleanly. SIGHUP is among them because a closed terminal or SSH
/// session sends it: left to its default action, it would kill the run as SIGKILL does and leave
/// its temporary files behind.
const HANDLED: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];

/// The first termination signal received, or 0.
static RECEIVED: AtomicUsize = AtomicUsize::new(0);
/// Set by the first signal: from then on another one exits at once.
static ARMED: AtomicBool = AtomicBool::new(false);

/// Routes the [`HANDLED`] signals to [`received`] instead of killing the process.
pub fn install() -> io::Result<()> {
    for signal in HANDLED {
        // Order matters: the shutdown check runs before the flag that arms it is set.
        flag::register_conditional_shutdown(signal, 128 + signal, &ARMED)?;
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
