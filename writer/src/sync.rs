//! Lock and wait steps shared by the byte budget and the worker pool.
//!
//! Each state behind these mutexes changes in single steps under the lock, so a panic on another
//! thread cannot leave it half-updated: a poisoned lock is used as it is.

use std::sync::{Condvar, Mutex, MutexGuard};

/// Locks `mutex`, poisoned or not.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Waits once on `condvar`, counted in the state's counter `waiters` picks out while waiting, so
/// that a notifier can skip the system call when the count is zero.
pub(crate) fn wait_counted<'a, T>(
    mut guard: MutexGuard<'a, T>,
    condvar: &Condvar,
    waiters: fn(&mut T) -> &mut usize,
) -> MutexGuard<'a, T> {
    *waiters(&mut guard) += 1;
    guard = condvar
        .wait(guard)
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    *waiters(&mut guard) -= 1;
    guard
}
