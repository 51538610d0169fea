//! [`Preallocation`]: a file's disk blocks reserved ahead of its writes, in steps.
//!
//! A file that grows by buffered writes has its blocks found one page at a time: on ext4 every
//! page written is reserved for delayed allocation as it is copied in, and the blocks are
//! allocated at writeback. Reserving the next `step` bytes with one `fallocate` call lets the
//! writes land in blocks that already exist (unwritten extents, which read as zeros until
//! written), so each page costs the kernel less. The reservation keeps the file's size
//! (`FALLOC_FL_KEEP_SIZE`): readers never see it, and [`Preallocation::release`] gives back the
//! blocks past the end once the file is complete.

use std::fs::File;

/// Where a file's reserved blocks end, and how far ahead of the writes they reach.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Preallocation {
    step: u64,
    /// Bytes written so far: the file's length.
    written: u64,
    /// End of the blocks asked for; `written` stays at or below it while reserving works.
    reserved: u64,
    /// Set when a reservation failed (no support, or no room for a whole step): the file then
    /// grows as it would without one. A failed request may still have reserved part of its
    /// range, so `reserved` counts it, for [`Preallocation::release`].
    stopped: bool,
}

impl Preallocation {
    /// Reservations of `step` bytes (at least the write that needs one).
    pub(crate) fn new(step: u64) -> Self {
        Self {
            step,
            written: 0,
            reserved: 0,
            stopped: false,
        }
    }

    /// Reserves blocks for the next `len` bytes written to `file`, if they pass the reserved
    /// end. Advisory: a failure stops reserving for this file and is otherwise ignored, since
    /// the writes themselves report a full disk.
    pub(crate) fn before_write(&mut self, file: &File, len: usize) {
        let end = self.written.saturating_add(len as u64);
        if self.stopped || end <= self.reserved {
            return;
        }
        let bytes = self.step.max(end - self.reserved);
        self.stopped = !reserve(file, self.reserved, bytes);
        self.reserved = self.reserved.saturating_add(bytes);
    }

    /// Counts `len` bytes written.
    pub(crate) fn after_write(&mut self, len: usize) {
        self.written += len as u64;
    }

    /// Gives back the blocks reserved past the file's end, without touching its data:
    /// truncating a file to its own length frees them (on ext4 and tmpfs, where this was
    /// checked; `pending.rs` tests it in the crate's directory). Call when the file is complete;
    /// a later write reserves again.
    pub(crate) fn release(&mut self, file: &File) -> std::io::Result<()> {
        if self.reserved <= self.written {
            return Ok(());
        }
        file.set_len(self.written)?;
        self.reserved = self.written;
        Ok(())
    }

    /// End of the reserved blocks (for tests).
    #[cfg(test)]
    pub(crate) fn reserved(&self) -> u64 {
        self.reserved
    }
}

/// Reserves `len` bytes of blocks at `offset` without changing the size; false if the file
/// system refused.
#[cfg(target_os = "linux")]
fn reserve(file: &File, offset: u64, len: u64) -> bool {
    use std::os::fd::AsRawFd;
    let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
        return false;
    };
    // SAFETY: fallocate only reads its integer arguments; the descriptor is open for as long
    // as `file` is borrowed.
    unsafe { libc::fallocate(file.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, offset, len) == 0 }
}

/// Elsewhere there is no reservation that keeps the size: the file grows as written.
#[cfg(not(target_os = "linux"))]
fn reserve(_file: &File, _offset: u64, _len: u64) -> bool {
    false
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_write_past_the_step_reserves_all_of_it() {
        let file = tempfile::tempfile().unwrap();
        let mut preallocation = Preallocation::new(1000);
        preallocation.before_write(&file, 10);
        assert_eq!(preallocation.reserved(), 1000);
        preallocation.after_write(10);
        preallocation.before_write(&file, 5000);
        assert_eq!(preallocation.reserved(), 5010, "to the end of the write");
        assert_eq!(file.metadata().unwrap().len(), 0, "the size is kept");
    }

    #[test]
    fn a_refused_reservation_stops_reserving_and_is_released() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x");
        std::fs::write(&path, b"abc").unwrap();
        // fallocate needs a descriptor open for writing: this one is refused (EBADF).
        let read_only = File::open(&path).unwrap();
        let mut preallocation = Preallocation::new(1000);
        preallocation.after_write(3);
        preallocation.before_write(&read_only, 10);
        assert!(preallocation.stopped);
        let asked = preallocation.reserved();
        preallocation.before_write(&read_only, 10_000);
        assert_eq!(preallocation.reserved(), asked, "no second attempt");
        let writable = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        preallocation.release(&writable).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"abc");
    }
}
