//! What every generating thread does, whichever design it serves (the channel designs'
//! producers, the fused workers, the Python package's streams): claim the next batch, wait for
//! room where a window bounds the batches in flight, make it, count it, hand it on, and take
//! spent buffers back. [`Generation`] is the making and counting; [`generate_claimed`] the loop
//! over claimed batch indices that the producers and the Python streams run (a fused worker
//! claims row groups instead, and makes each one's batches through the same [`Generation`]).

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use arrow_array::{Array, RecordBatch};

use crate::counters::Phase;
use crate::gate::{Digest, GateError};
use crate::reorder::ReorderWindow;
use crate::signals;
use crate::source::BatchMaker;

/// Hands out batch indices below `count`: claimed from a shared counter, or in fixed strides
/// per thread.
pub enum BatchClaims<'a> {
    /// The next index of a counter every thread shares.
    Shared {
        /// The counter.
        next: &'a AtomicU64,
        /// Indices below this exist.
        count: u64,
    },
    /// `first`, `first + step`, ...: a thread's own stride.
    Strided {
        /// The next index of this thread.
        next: u64,
        /// The number of threads.
        step: u64,
        /// Indices below this exist.
        count: u64,
    },
}

impl Iterator for BatchClaims<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        let (index, count) = match self {
            BatchClaims::Shared { next, count } => (next.fetch_add(1, Ordering::Relaxed), *count),
            BatchClaims::Strided { next, step, count } => {
                let index = *next;
                *next += *step;
                (index, *count)
            }
        };
        (index < count).then_some(index)
    }
}

/// A generating thread's batch maker, and what it has made: Arrow bytes, and the data gate's
/// digest when the gate is on.
pub struct Generation<'a> {
    maker: Box<dyn BatchMaker + 'a>,
    arrow_bytes: u64,
    digest: Option<Digest>,
}

impl<'a> Generation<'a> {
    /// Making batches with `maker`, digesting them when `digest` is set.
    pub fn new(maker: Box<dyn BatchMaker + 'a>, digest: bool) -> Self {
        Self {
            maker,
            arrow_bytes: 0,
            digest: digest.then(Digest::default),
        }
    }

    /// The batch of `rows`, counted.
    pub fn make(&mut self, rows: Range<u64>) -> Result<RecordBatch, GateError> {
        let batch = self.maker.make(rows);
        self.arrow_bytes += arrow_bytes(&batch);
        if let Some(digest) = self.digest.as_mut() {
            *digest += Digest::of_batch(&batch)?;
        }
        Ok(batch)
    }

    /// Gives an encoded (or dropped) batch's buffers back to the maker for the next batch.
    pub fn recycle(&mut self, batch: RecordBatch) {
        self.maker.recycle(batch);
    }

    /// Bytes of Arrow data made so far.
    pub fn arrow_bytes(&self) -> u64 {
        self.arrow_bytes
    }

    /// The digest of every batch made, when digesting.
    pub fn digest(&self) -> Option<Digest> {
        self.digest
    }
}

/// The loop of a thread that makes claimed batches: for each `(index, rows)` of `claims`, until
/// they run out or the run stops (`stop`, or a signal), it waits for room in `window` if there
/// is one, makes the batch of `rows` and hands it to `deliver`, in index order through the
/// window when there is one. Spent batches that `spent` gives back are recycled after each.
/// `enter` hears each phase as it starts, with the rows made in the one that ends:
/// [`Phase::Generate`] for making and recycling, [`Phase::Send`] for waiting for room and
/// handing over.
pub fn generate_claimed<E: From<GateError>>(
    generation: &mut Generation<'_>,
    claims: impl Iterator<Item = (u64, Range<u64>)>,
    stop: &AtomicBool,
    window: Option<&ReorderWindow>,
    mut deliver: impl FnMut(u64, RecordBatch) -> Result<(), E>,
    mut spent: impl FnMut() -> Option<RecordBatch>,
    mut enter: impl FnMut(Phase, u64),
) -> Result<(), E> {
    for (index, rows) in claims {
        if stop.load(Ordering::Relaxed) || signals::received().is_some() {
            break;
        }
        if let Some(window) = window {
            enter(Phase::Send, 0);
            if !window.wait_for_room(index, stop) {
                break;
            }
        }
        enter(Phase::Generate, 0);
        let batch = generation.make(rows)?;
        enter(Phase::Send, batch.num_rows() as u64);
        match window {
            None => deliver(index, batch)?,
            Some(window) => window.hand_over(index, batch, &mut deliver)?,
        }
        if let Some(batch) = spent() {
            enter(Phase::Generate, 0);
            generation.recycle(batch);
        }
    }
    Ok(())
}

/// Bytes of Arrow data a batch holds: the used part of its buffers, not their capacity.
pub(crate) fn arrow_bytes(batch: &RecordBatch) -> u64 {
    batch
        .columns()
        .iter()
        .map(|c| c.to_data().get_slice_memory_size().unwrap_or(0) as u64)
        .sum()
}
