//! What a run used between two points: CPU seconds and, when the process counts them, heap
//! allocations (see [`crate::alloc`]).

use serde::Serialize;

use crate::alloc::{self, AllocationCounts};
use crate::process;

/// The process's CPU time and allocation counters at the start of a run.
#[derive(Debug, Clone, Copy, Default)]
pub struct UsageMark {
    cpu_s: Option<f64>,
    stolen_s: Option<f64>,
    allocations: Option<AllocationCounts>,
}

impl UsageMark {
    /// Reads the counters now, and starts a new heap peak from here.
    pub fn now() -> Self {
        alloc::reset_peak();
        Self {
            cpu_s: process::cpu_seconds(),
            stolen_s: process::machine_steal_seconds(),
            allocations: alloc::counts(),
        }
    }

    /// What the process used from this mark until now.
    pub fn usage(&self) -> Usage {
        let allocations = self
            .allocations
            .zip(alloc::counts())
            .map(|(start, end)| HeapUse {
                allocations: end.allocations - start.allocations,
                bytes_requested: end.bytes_requested - start.bytes_requested,
                peak_live_bytes: end.peak_live_bytes,
                live_bytes_at_start: start.live_bytes,
            });
        Usage {
            cpu_s: self.cpu_s.zip(process::cpu_seconds()).map(|(a, b)| b - a),
            stolen_s: self
                .stolen_s
                .zip(process::machine_steal_seconds())
                .map(|(a, b)| b - a),
            heap: allocations,
        }
    }
}

/// CPU and heap use over a span.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    /// User plus system CPU seconds (10 ms resolution; `None` without `/proc`).
    pub cpu_s: Option<f64>,
    /// CPU seconds the hypervisor took from this machine's CPUs over the span, every CPU
    /// (10 ms resolution; `None` without `/proc/stat`).
    pub stolen_s: Option<f64>,
    /// Heap use, when the process counts allocations.
    pub heap: Option<HeapUse>,
}

/// Heap allocations over a span, from the counting allocator.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct HeapUse {
    /// Allocations made, reallocations included.
    pub allocations: u64,
    /// Bytes those allocations requested.
    pub bytes_requested: u64,
    /// The most heap bytes live at once (requested sizes; the allocator's own overhead and
    /// the memory it retains are what peak RSS adds on top).
    pub peak_live_bytes: usize,
    /// Heap bytes already live when the span started.
    pub live_bytes_at_start: usize,
}
