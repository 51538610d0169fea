//! The process's allocator, chosen once per process so it can be an experiment like any other
//! instead of a second build.
//!
//! [`SwitchableAllocator`] reads `SHREDLAB_ALLOCATOR` (`system`, or its other name `glibc`;
//! `mimalloc`; `jemalloc`; unset or empty is `system`) at the first allocation and keeps that
//! choice for the life of the process, so every block is freed by the allocator that made it and
//! the hot path pays one predictable branch. It cannot report an error there, so it takes any
//! other value as `system`: binaries call [`check_variable`] first to refuse it. A binary whose
//! run needs another allocator calls [`ensure`], which re-executes the same command line with
//! the variable set (one `exec` before any work starts).
//!
//! With `SHREDLAB_COUNT_ALLOCATIONS=1` the same allocator also counts: allocations, bytes
//! requested, and live heap bytes with their peak ([`counts`]). Counting is off by default,
//! because its shared counters cost every allocation a contended atomic add: timed runs never
//! pay for it, and figures taken with it on are labelled as such.

use std::ffi::{c_char, CStr};
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering};

use thiserror::Error;

// The allocators themselves: left out of builds that never install one (the Python extension),
// so they do not compile jemalloc.
#[cfg(feature = "allocators")]
mod switchable;
#[cfg(feature = "allocators")]
pub use switchable::{SwitchableAllocator, JEMALLOC_CONF};

/// The environment variable that selects the allocator.
pub const ALLOCATOR_ENV: &str = "SHREDLAB_ALLOCATOR";

/// The environment variable that switches allocation counting on (`1`).
pub const COUNT_ENV: &str = "SHREDLAB_COUNT_ALLOCATIONS";

/// An allocator the process can run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allocator {
    /// The platform's `malloc` (glibc on Linux).
    System = 1,
    /// mimalloc.
    Mimalloc = 2,
    /// jemalloc with a single arena (see [`JEMALLOC_CONF`]).
    Jemalloc = 3,
}

impl Allocator {
    /// The value of [`ALLOCATOR_ENV`] that selects it.
    pub fn name(self) -> &'static str {
        match self {
            Allocator::System => "system",
            Allocator::Mimalloc => "mimalloc",
            Allocator::Jemalloc => "jemalloc",
        }
    }

    /// The allocator a value of [`ALLOCATOR_ENV`] names, compared without allocating.
    fn from_name(name: &[u8]) -> Option<Self> {
        match name {
            b"system" | b"glibc" => Some(Allocator::System),
            b"mimalloc" => Some(Allocator::Mimalloc),
            b"jemalloc" => Some(Allocator::Jemalloc),
            _ => None,
        }
    }

    fn from_bits(bits: u8) -> Self {
        match bits & ALLOCATOR_BITS {
            2 => Allocator::Mimalloc,
            3 => Allocator::Jemalloc,
            _ => Allocator::System,
        }
    }
}

/// A name that is not an allocator's.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{ALLOCATOR_ENV}={0} names no allocator: set it to system (or glibc, the same), mimalloc or jemalloc, or unset it")]
pub struct UnknownAllocator(pub String);

impl FromStr for Allocator {
    type Err = UnknownAllocator;

    /// `system` (or `glibc`), `mimalloc` or `jemalloc`.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Allocator::from_name(name.as_bytes()).ok_or_else(|| UnknownAllocator(name.to_string()))
    }
}

/// Checks the value of [`ALLOCATOR_ENV`]: unset, empty or an allocator's name. Any other value
/// runs the process on the system allocator, so a binary refuses it before any work.
pub fn check_variable() -> Result<(), UnknownAllocator> {
    match std::env::var_os(ALLOCATOR_ENV) {
        Some(value) if !value.is_empty() => {
            let text = value.to_string_lossy();
            text.parse::<Allocator>().map(|_| ())
        }
        _ => Ok(()),
    }
}

const UNDECIDED: u8 = 0;
/// The bits of [`CHOSEN`] that hold the allocator's number.
const ALLOCATOR_BITS: u8 = 3;
/// Set in [`CHOSEN`] next to the allocator's number when allocations are counted.
const COUNTING: u8 = 4;
static CHOSEN: AtomicU8 = AtomicU8::new(UNDECIDED);

extern "C" {
    // The C library's getenv: reading the environment through std would allocate.
    fn getenv(name: *const c_char) -> *const c_char;
}

/// `read` applied to the value of environment variable `name` (a NUL-terminated literal), read
/// without allocating.
fn read_env<T>(name: &CStr, read: impl FnOnce(Option<&[u8]>) -> T) -> T {
    // SAFETY: `name` is NUL-terminated; getenv returns NULL or a NUL-terminated string owned by
    // the environment, which we only read, within this call.
    let value = unsafe {
        let value = getenv(name.as_ptr());
        (!value.is_null()).then(|| CStr::from_ptr(value).to_bytes())
    };
    read(value)
}

#[cold]
fn decide() -> u8 {
    let allocator = read_env(c"SHREDLAB_ALLOCATOR", |value| {
        value.and_then(Allocator::from_name)
    })
    .unwrap_or(Allocator::System) as u8;
    let counting = if read_env(c"SHREDLAB_COUNT_ALLOCATIONS", |value| value == Some(b"1")) {
        COUNTING
    } else {
        0
    };
    match CHOSEN.compare_exchange(
        UNDECIDED,
        allocator | counting,
        Ordering::SeqCst,
        Ordering::SeqCst,
    ) {
        Ok(_) => allocator | counting,
        Err(already) => already,
    }
}

#[inline]
fn chosen() -> u8 {
    match CHOSEN.load(Ordering::Relaxed) {
        UNDECIDED => decide(),
        chosen => chosen,
    }
}

/// The allocator this process runs on.
pub fn active() -> Allocator {
    Allocator::from_bits(chosen())
}

/// Whether this process counts its allocations.
pub fn counting() -> bool {
    chosen() & COUNTING != 0
}

/// Makes sure the process runs on `wanted`, counting allocations or not as `count` says: returns
/// at once if it does, otherwise re-executes the current command line with [`ALLOCATOR_ENV`] and
/// [`COUNT_ENV`] set and never returns (unless `exec` fails). Only meaningful in binaries whose
/// global allocator is [`SwitchableAllocator`].
pub fn ensure(wanted: Allocator, count: bool) -> std::io::Result<()> {
    if active() == wanted && counting() == count {
        return Ok(());
    }
    use std::os::unix::process::CommandExt;
    let mut args = std::env::args_os();
    let program = std::env::current_exe()?;
    args.next();
    Err(std::process::Command::new(program)
        .args(args)
        .env(ALLOCATOR_ENV, wanted.name())
        .env(COUNT_ENV, if count { "1" } else { "0" })
        .exec())
}

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES_REQUESTED: AtomicU64 = AtomicU64::new(0);
static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);
static PEAK_LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);

/// What the counting allocator has seen since the process started (peak: since the last
/// [`reset_peak`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AllocationCounts {
    /// Allocations, reallocations included.
    pub allocations: u64,
    /// Bytes requested by those allocations (a reallocation counts its new size).
    pub bytes_requested: u64,
    /// Heap bytes allocated and not yet freed, as requested (allocator overhead excluded).
    pub live_bytes: usize,
    /// The highest `live_bytes` reached.
    pub peak_live_bytes: usize,
}

/// The counts so far, or `None` when this process does not count.
pub fn counts() -> Option<AllocationCounts> {
    counting().then(|| AllocationCounts {
        allocations: ALLOCATIONS.load(Ordering::Relaxed),
        bytes_requested: BYTES_REQUESTED.load(Ordering::Relaxed),
        live_bytes: LIVE_BYTES.load(Ordering::Relaxed),
        peak_live_bytes: PEAK_LIVE_BYTES.load(Ordering::Relaxed),
    })
}

/// Starts a new peak from the bytes live now, so a run's peak excludes what came before it.
pub fn reset_peak() {
    PEAK_LIVE_BYTES.store(LIVE_BYTES.load(Ordering::Relaxed), Ordering::Relaxed);
}
