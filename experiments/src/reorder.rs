//! The ordered hand-off: batches reach their writers in batch-index order, whatever order the
//! producers finish them in, so each file holds the same rows in the same order, and the same
//! command writes the same bytes, for any producer count or schedule.
//!
//! A producer may build batch `i` only while `i` is less than `window` batches ahead of the next
//! batch to hand over, so at most `window` finished batches ever wait here, and no producer waits
//! for longer than the building of the batches in the window before its own. A finished batch is
//! parked; the producer that parks the next batch to hand over becomes the releaser and sends
//! every consecutive parked batch to its writer, outside the lock, while the others go on
//! building. One releaser at a time keeps each writer's channel in order.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use arrow_array::RecordBatch;

use crate::signals;

/// How often a producer waiting for room rechecks the stop flag and signals.
const STOP_CHECK: Duration = Duration::from_millis(20);

/// The batches between the next one to hand over and the window's end.
#[derive(Debug)]
pub struct ReorderWindow {
    window: u64,
    state: Mutex<WindowState>,
    /// Signalled whenever the next batch to hand over moves on.
    room: Condvar,
}

#[derive(Debug, Default)]
struct WindowState {
    /// The index of the next batch to hand to its writer.
    next: u64,
    /// Finished batches that wait for the ones before them.
    parked: BTreeMap<u64, RecordBatch>,
    /// Whether a producer is sending a run of batches to the writers.
    releasing: bool,
}

/// Consecutive batches, from the window's start, for the releaser to send in order.
type Run = Vec<(u64, RecordBatch)>;

impl ReorderWindow {
    /// A window of `window` batches (at least 1).
    pub fn new(window: u64) -> Self {
        Self {
            window: window.max(1),
            state: Mutex::new(WindowState::default()),
            room: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, WindowState> {
        // A producer that panicked holding the lock left the map whole: each step is one call.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits until batch `index` is inside the window; `false` if `stop` was raised, or a signal
    /// received, meanwhile.
    pub fn wait_for_room(&self, index: u64, stop: &AtomicBool) -> bool {
        let mut state = self.lock();
        while index >= state.next + self.window {
            if stop.load(Ordering::Relaxed) || signals::received().is_some() {
                return false;
            }
            state = self
                .room
                .wait_timeout(state, STOP_CHECK)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        true
    }

    /// Hands over the finished batch `index`: parks it and, if the caller thereby becomes the
    /// releaser, passes every batch it may release to `send`, in index order, until none is
    /// left. The first error of `send` ends the hand-over and is returned; the batches not yet
    /// sent are dropped, and the caller is expected to stop the run.
    pub fn hand_over<E>(
        &self,
        index: u64,
        batch: RecordBatch,
        mut send: impl FnMut(u64, RecordBatch) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut run = self.park(index, batch);
        while let Some(batches) = run {
            for (index, batch) in batches {
                send(index, batch)?;
            }
            run = self.next_run();
        }
        Ok(())
    }

    /// Parks the finished batch `index`. If it completes a run from the window's start and no
    /// one is releasing, the caller becomes the releaser: the run is returned, to be sent in
    /// order, followed by calls to [`Self::next_run`] until it returns nothing.
    fn park(&self, index: u64, batch: RecordBatch) -> Option<Run> {
        let mut state = self.lock();
        state.parked.insert(index, batch);
        if state.releasing {
            return None;
        }
        let run = self.take_run(&mut state);
        state.releasing = !run.is_empty();
        (!run.is_empty()).then_some(run)
    }

    /// For the releaser, once it has sent its run: the batches parked meanwhile that continue it,
    /// or `None`, which ends its turn as releaser.
    fn next_run(&self) -> Option<Run> {
        let mut state = self.lock();
        let run = self.take_run(&mut state);
        if run.is_empty() {
            state.releasing = false;
            return None;
        }
        Some(run)
    }

    /// Takes the consecutive parked batches from the window's start and moves the window on.
    fn take_run(&self, state: &mut WindowState) -> Run {
        let mut run = Vec::new();
        while let Some(batch) = state.parked.remove(&state.next) {
            run.push((state.next, batch));
            state.next += 1;
        }
        if !run.is_empty() {
            self.room.notify_all();
        }
        run
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, UInt64Array};

    use super::*;

    fn batch(index: u64) -> RecordBatch {
        let column: ArrayRef = Arc::new(UInt64Array::from(vec![index]));
        RecordBatch::try_from_iter([("i", column)]).unwrap()
    }

    fn indices(run: &Run) -> Vec<u64> {
        run.iter().map(|(i, _)| *i).collect()
    }

    #[test]
    fn out_of_order_batches_come_out_in_order() {
        let window = ReorderWindow::new(4);
        assert!(window.park(2, batch(2)).is_none());
        assert!(window.park(1, batch(1)).is_none());
        let run = window.park(0, batch(0)).expect("0 completes a run");
        assert_eq!(indices(&run), [0, 1, 2]);
        // While the releaser sends, a batch parked by another producer waits for it.
        assert!(window.park(3, batch(3)).is_none());
        assert_eq!(indices(&window.next_run().unwrap()), [3]);
        assert!(window.next_run().is_none());
        assert_eq!(indices(&window.park(4, batch(4)).unwrap()), [4]);
    }

    #[test]
    fn producers_wait_for_room_until_stopped() {
        let window = ReorderWindow::new(2);
        let stop = AtomicBool::new(false);
        assert!(window.wait_for_room(1, &stop));
        stop.store(true, Ordering::SeqCst);
        assert!(!window.wait_for_room(2, &stop), "2 is outside [0, 2)");
    }

    #[test]
    fn many_producers_hand_over_every_batch_once_in_order() {
        let window = ReorderWindow::new(3);
        let stop = AtomicBool::new(false);
        let next = std::sync::atomic::AtomicU64::new(0);
        let sent = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= 500 {
                        break;
                    }
                    assert!(window.wait_for_room(index, &stop));
                    let mut run = window.park(index, batch(index));
                    while let Some(batches) = run {
                        sent.lock().unwrap().extend(indices(&batches));
                        run = window.next_run();
                    }
                });
            }
        });
        assert_eq!(sent.into_inner().unwrap(), (0..500).collect::<Vec<_>>());
    }
}
