//! A byte budget shared by the writer and its workers: `write` blocks while the Arrow data queued
//! for encoding exceeds it.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// Counts bytes in use against a limit.
#[derive(Debug)]
pub(crate) struct Budget {
    limit: usize,
    state: Mutex<State>,
    freed: Condvar,
}

/// Bytes taken, and how many threads wait for some to be given back: a release wakes them only
/// when there are any, so the common case makes no system call.
#[derive(Debug, Default)]
struct State {
    used: usize,
    waiting: usize,
}

/// Bytes taken from a [`Budget`], given back when dropped (also on error or unwind).
#[derive(Debug)]
pub(crate) struct Permit {
    budget: Arc<Budget>,
    bytes: usize,
}

impl Budget {
    pub(crate) fn new(limit: usize) -> Arc<Self> {
        Arc::new(Self {
            limit,
            state: Mutex::new(State::default()),
            freed: Condvar::new(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Bytes currently taken.
    pub(crate) fn used(&self) -> usize {
        self.lock().used
    }

    /// Takes `bytes`, waiting until they fit. A request larger than the whole budget is granted
    /// once nothing else is taken, so one huge batch cannot deadlock the writer.
    pub(crate) fn acquire(self: &Arc<Self>, bytes: usize) -> Permit {
        let mut state = self.lock();
        while state.used > 0 && state.used + bytes > self.limit {
            state.waiting += 1;
            state = self
                .freed
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            state.waiting -= 1;
        }
        state.used += bytes;
        Permit {
            budget: Arc::clone(self),
            bytes,
        }
    }
}

impl Permit {
    /// Splits off `bytes` of this permit into a new one.
    pub(crate) fn split(&mut self, bytes: usize) -> Permit {
        let bytes = bytes.min(self.bytes);
        self.bytes -= bytes;
        Permit {
            budget: Arc::clone(&self.budget),
            bytes,
        }
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        if self.bytes > 0 {
            let mut state = self.budget.lock();
            state.used -= self.bytes;
            if state.waiting > 0 {
                self.budget.freed.notify_all();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn permits_give_bytes_back() {
        let budget = Budget::new(100);
        let mut permit = budget.acquire(80);
        let part = permit.split(30);
        assert_eq!(budget.used(), 80);
        drop(part);
        assert_eq!(budget.used(), 50);
        drop(permit);
        assert_eq!(budget.used(), 0);
        let huge = budget.acquire(1_000);
        assert_eq!(budget.used(), 1_000);
        drop(huge);
    }

    #[test]
    fn acquire_waits_for_release() {
        let budget = Budget::new(100);
        let held = budget.acquire(90);
        let waiter = {
            let budget = Arc::clone(&budget);
            std::thread::spawn(move || drop(budget.acquire(20)))
        };
        std::thread::sleep(Duration::from_millis(20));
        assert!(!waiter.is_finished(), "acquire went past the limit");
        drop(held);
        waiter.join().unwrap();
        assert_eq!(budget.used(), 0);
    }
}
