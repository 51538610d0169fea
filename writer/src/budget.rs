//! A byte budget shared by the writer and its workers: `write` blocks while the Arrow data queued
//! for encoding exceeds it.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::sync::{lock, wait_counted};

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
    /// A worker ran out of queued work: the next waiter resumes as soon as its bytes fit.
    starving: bool,
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
        lock(&self.state)
    }

    /// Bytes currently taken.
    pub(crate) fn used(&self) -> usize {
        self.lock().used
    }

    /// Takes `bytes`, waiting until they fit. A request larger than the whole budget is granted
    /// once nothing else is taken, so one huge batch cannot deadlock the writer.
    ///
    /// A caller that has to wait resumes only once half the budget is free again, or a worker
    /// has run out of work: one wake-up then admits many batches, instead of every release
    /// waking the writer (a context switch each, which on a machine with as many workers as
    /// cores also preempts a worker).
    pub(crate) fn acquire(self: &Arc<Self>, bytes: usize) -> Permit {
        let mut state = self.lock();
        if state.used + bytes > self.limit {
            while state.used > 0 && !self.resumes(&state, bytes) {
                state = wait_counted(state, &self.freed, |s| &mut s.waiting);
            }
        }
        state.used += bytes;
        state.starving = false;
        Permit {
            budget: Arc::clone(self),
            bytes,
        }
    }

    /// Whether a waiter for `bytes` may go on: they fit, and at least half the budget is free
    /// or a worker is starving.
    fn resumes(&self, state: &State, bytes: usize) -> bool {
        state.used + bytes <= self.limit && self.wakes(state)
    }

    /// Whether a release leaving `state` should wake waiting writers: half the budget is free,
    /// or a worker is starving.
    fn wakes(&self, state: &State) -> bool {
        state.starving || state.used <= self.limit / 2
    }

    /// Called by a worker about to wait for work: a waiting writer resumes as soon as its
    /// batch fits, so that worker does not sit idle until half the budget is free.
    pub(crate) fn starving(&self) {
        let mut state = self.lock();
        state.starving = true;
        if state.waiting > 0 {
            self.freed.notify_all();
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
            if state.waiting > 0 && self.budget.wakes(&state) {
                self.budget.freed.notify_all();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

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
    fn a_waiter_resumes_when_its_bytes_fit_and_half_is_free_or_a_worker_starves() {
        let budget = Budget::new(100);
        let state = |used, starving| State {
            used,
            waiting: 1,
            starving,
        };
        // 20 more fit with 60 taken, but 60% is still taken and no worker is idle.
        assert!(!budget.resumes(&state(60, false), 20));
        assert!(budget.resumes(&state(50, false), 20));
        assert!(budget.resumes(&state(60, true), 20));
        // A starving worker never lets a waiter past the limit.
        assert!(!budget.resumes(&state(90, true), 20));
    }

    /// Waits until `budget` counts `n` blocked waiters: they are inside `acquire`'s wait.
    fn until_waiting(budget: &Budget, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while budget.lock().waiting != n {
            assert!(Instant::now() < deadline, "no waiter blocked");
            std::thread::yield_now();
        }
    }

    /// A budget of 100 with 60 and 30 taken, and a thread blocked taking 20 more.
    fn blocked_waiter() -> (Arc<Budget>, Permit, Permit, std::thread::JoinHandle<Permit>) {
        let budget = Budget::new(100);
        let (first, second) = (budget.acquire(60), budget.acquire(30));
        let waiter = {
            let budget = Arc::clone(&budget);
            std::thread::spawn(move || budget.acquire(20))
        };
        until_waiting(&budget, 1);
        (budget, first, second, waiter)
    }

    #[test]
    fn a_blocked_waiter_takes_its_bytes_once_enough_is_released() {
        let (budget, first, second, waiter) = blocked_waiter();
        assert_eq!(budget.used(), 90, "the waiter took bytes past the limit");
        drop((first, second));
        drop(waiter.join().unwrap());
        assert_eq!(budget.used(), 0);
    }

    #[test]
    fn a_starving_worker_wakes_a_waiter_whose_bytes_fit() {
        let (budget, first, second, waiter) = blocked_waiter();
        // 60 taken: the 20 fit, but under the half-free rule the release wakes nobody.
        drop(second);
        budget.starving();
        let permit = waiter.join().unwrap();
        assert_eq!(budget.used(), 80);
        drop((first, permit));
        assert_eq!(budget.used(), 0);
    }
}
