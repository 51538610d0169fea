//! [`SwitchableAllocator`]: the global allocator of shredlab's binaries, forwarding to the
//! allocator the process chose (see the parent module).

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::c_char;

use mimalloc::MiMalloc;
use tikv_jemallocator::Jemalloc;

use std::sync::atomic::Ordering;

use super::{
    chosen, Allocator, ALLOCATIONS, BYTES_REQUESTED, COUNTING, LIVE_BYTES, PEAK_LIVE_BYTES,
};

/// jemalloc's options, read before `main`: one arena for every thread. Here batches are built on
/// producer threads and freed on encoder threads, and page buffers the other way round; with an
/// arena per thread each kept its own free extents and the RSS grew with the run (`make memory`,
/// `make billion`). `tikv-jemallocator` builds jemalloc with the `_rjem_` symbol prefix.
#[used]
#[export_name = "_rjem_malloc_conf"]
pub static JEMALLOC_CONF: Option<&'static c_char> =
    // SAFETY: a NUL-terminated literal, alive for the whole program.
    Some(unsafe { &*c"narenas:1".as_ptr() });

/// The global allocator of shredlab's binaries: see the module documentation.
#[derive(Debug, Default, Clone, Copy)]
pub struct SwitchableAllocator;

// SAFETY: the choice of allocator never changes once made, so each block is freed or resized by
// the allocator that allocated it, and each forwards under GlobalAlloc's contract. Counting only
// reads the sizes the caller passes.
unsafe impl GlobalAlloc for SwitchableAllocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let chosen = chosen();
        // SAFETY: forwarded under the caller's GlobalAlloc contract.
        let ptr = unsafe {
            match Allocator::from_bits(chosen) {
                Allocator::Mimalloc => MiMalloc.alloc(layout),
                Allocator::Jemalloc => Jemalloc.alloc(layout),
                Allocator::System => System.alloc(layout),
            }
        };
        counted_new(chosen, ptr, layout.size())
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let chosen = chosen();
        // SAFETY: forwarded under the caller's GlobalAlloc contract.
        let ptr = unsafe {
            match Allocator::from_bits(chosen) {
                Allocator::Mimalloc => MiMalloc.alloc_zeroed(layout),
                Allocator::Jemalloc => Jemalloc.alloc_zeroed(layout),
                Allocator::System => System.alloc_zeroed(layout),
            }
        };
        counted_new(chosen, ptr, layout.size())
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let chosen = chosen();
        // SAFETY: forwarded under the caller's GlobalAlloc contract.
        unsafe {
            match Allocator::from_bits(chosen) {
                Allocator::Mimalloc => MiMalloc.dealloc(ptr, layout),
                Allocator::Jemalloc => Jemalloc.dealloc(ptr, layout),
                Allocator::System => System.dealloc(ptr, layout),
            }
        }
        if chosen & COUNTING != 0 {
            count_free(layout.size());
        }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let chosen = chosen();
        // SAFETY: forwarded under the caller's GlobalAlloc contract.
        let moved = unsafe {
            match Allocator::from_bits(chosen) {
                Allocator::Mimalloc => MiMalloc.realloc(ptr, layout, new_size),
                Allocator::Jemalloc => Jemalloc.realloc(ptr, layout, new_size),
                Allocator::System => System.realloc(ptr, layout, new_size),
            }
        };
        if chosen & COUNTING != 0 && !moved.is_null() {
            count_free(layout.size());
            count_allocation(new_size);
        }
        moved
    }
}

#[inline]
fn count_allocation(size: usize) {
    ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    BYTES_REQUESTED.fetch_add(size as u64, Ordering::Relaxed);
    let live = LIVE_BYTES.fetch_add(size, Ordering::Relaxed) + size;
    PEAK_LIVE_BYTES.fetch_max(live, Ordering::Relaxed);
}

/// `ptr`, a new block of `size` bytes, counted when the process counts.
#[inline]
fn counted_new(chosen: u8, ptr: *mut u8, size: usize) -> *mut u8 {
    if chosen & COUNTING != 0 && !ptr.is_null() {
        count_allocation(size);
    }
    ptr
}

#[inline]
fn count_free(size: usize) {
    LIVE_BYTES.fetch_sub(size, Ordering::Relaxed);
}
