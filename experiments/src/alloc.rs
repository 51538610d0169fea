//! The process's allocator, chosen once per process so it can be an experiment like any other
//! instead of a second build.
//!
//! [`SwitchableAllocator`] reads `SHREDLAB_ALLOCATOR` (`mimalloc` or `system`) at the first
//! allocation and keeps that choice for the life of the process, so every block is freed by the
//! allocator that made it and the hot path pays one predictable branch. A binary whose run needs
//! the other allocator calls [`ensure`], which re-executes the same command line with the
//! variable set (one `exec`, about a millisecond, before any work starts).

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::{c_char, CStr};
use std::sync::atomic::{AtomicU8, Ordering};

use mimalloc::MiMalloc;

/// The environment variable that selects the allocator.
pub const ALLOCATOR_ENV: &str = "SHREDLAB_ALLOCATOR";

/// An allocator the process can run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allocator {
    /// The platform's `malloc` (glibc on Linux).
    System = 1,
    /// mimalloc.
    Mimalloc = 2,
}

impl Allocator {
    /// The value of [`ALLOCATOR_ENV`] that selects it.
    pub fn name(self) -> &'static str {
        match self {
            Allocator::System => "system",
            Allocator::Mimalloc => "mimalloc",
        }
    }
}

const UNDECIDED: u8 = 0;
static CHOSEN: AtomicU8 = AtomicU8::new(UNDECIDED);

extern "C" {
    // The C library's getenv: reading the environment through std would allocate.
    fn getenv(name: *const c_char) -> *const c_char;
}

#[cold]
fn decide() -> u8 {
    // SAFETY: the name is a NUL-terminated literal; getenv returns NULL or a NUL-terminated string
    // owned by the environment, which we only read.
    let value = unsafe {
        let value = getenv(c"SHREDLAB_ALLOCATOR".as_ptr());
        (!value.is_null()).then(|| CStr::from_ptr(value).to_bytes() == b"mimalloc")
    };
    let chosen = if value == Some(true) {
        Allocator::Mimalloc
    } else {
        Allocator::System
    } as u8;
    match CHOSEN.compare_exchange(UNDECIDED, chosen, Ordering::SeqCst, Ordering::SeqCst) {
        Ok(_) => chosen,
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
    if chosen() == Allocator::Mimalloc as u8 {
        Allocator::Mimalloc
    } else {
        Allocator::System
    }
}

/// Makes sure the process runs on `wanted`: returns at once if it does, otherwise re-executes the
/// current command line with [`ALLOCATOR_ENV`] set and never returns (unless `exec` fails).
/// Only meaningful in binaries whose global allocator is [`SwitchableAllocator`].
pub fn ensure(wanted: Allocator) -> std::io::Result<()> {
    if active() == wanted {
        return Ok(());
    }
    use std::os::unix::process::CommandExt;
    let mut args = std::env::args_os();
    let program = std::env::current_exe()?;
    args.next();
    Err(std::process::Command::new(program)
        .args(args)
        .env(ALLOCATOR_ENV, wanted.name())
        .exec())
}

/// The global allocator of shredlab's binaries: see the module documentation.
#[derive(Debug, Default, Clone, Copy)]
pub struct SwitchableAllocator;

// SAFETY: the choice of allocator never changes once made, so each block is freed or resized by
// the allocator that allocated it, and each forwards under GlobalAlloc's contract.
unsafe impl GlobalAlloc for SwitchableAllocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded under the caller's GlobalAlloc contract.
        unsafe {
            if chosen() == Allocator::Mimalloc as u8 {
                MiMalloc.alloc(layout)
            } else {
                System.alloc(layout)
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded under the caller's GlobalAlloc contract.
        unsafe {
            if chosen() == Allocator::Mimalloc as u8 {
                MiMalloc.alloc_zeroed(layout)
            } else {
                System.alloc_zeroed(layout)
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded under the caller's GlobalAlloc contract.
        unsafe {
            if chosen() == Allocator::Mimalloc as u8 {
                MiMalloc.dealloc(ptr, layout);
            } else {
                System.dealloc(ptr, layout);
            }
        }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded under the caller's GlobalAlloc contract.
        unsafe {
            if chosen() == Allocator::Mimalloc as u8 {
                MiMalloc.realloc(ptr, layout, new_size)
            } else {
                System.realloc(ptr, layout, new_size)
            }
        }
    }
}
