//! [`Preallocation`]: a file's disk blocks reserved ahead of its writes, in steps.
//!
//! A file that grows by buffered writes has its blocks found one page at a time: on ext4 every
//! page copied in is reserved for delayed allocation (`ext4_da_get_block_prep`), and the blocks
//! are allocated at writeback. Reserving the next `step` bytes with one `fallocate` call lets
//! the writes land in blocks that already exist (unwritten extents, which read as zeros until
//! written and are converted as each writeback completes), so each page costs the writing
//! thread less. The reservation keeps the file's size (`FALLOC_FL_KEEP_SIZE`): readers never
//! see it, and [`Preallocation::release`] gives back the blocks past the end once the file is
//! complete.
//!
//! Only on file systems where that release was checked to free the blocks at once (`du` before
//! and after, and this crate's tests): ext4 (and the ext2/ext3 it mounts, which share its magic
//! number) and tmpfs. Elsewhere it is not used, since a truncate that keeps the length is not
//! known to give the blocks back there (a review reading the kernel's btrfs and XFS code
//! expected btrfs to keep a partly written extent whole and XFS to write the file back first;
//! neither was tried here).

use std::fs::File;

/// Free blocks of the file system, in steps, below which no step is reserved: near a full disk
/// a reservation could take the room another file's writes need, while going without one
/// costs only speed.
const HEADROOM_STEPS: u64 = 16;

/// Where a file's reserved blocks end, and how far ahead of the writes they reach.
#[derive(Debug)]
pub(crate) struct Preallocation {
    step: u64,
    /// End of the reserved blocks: at or past the bytes written while reserving works.
    reserved: u64,
    /// Set once a reservation was refused (no room for a step, or an error): the file then
    /// grows as it would without one.
    refused: bool,
}

impl Preallocation {
    /// Reservations of `step` bytes (at least the write that needs one) for `file`, if its file
    /// system is one where [`Preallocation::release`] frees what is left; `None` elsewhere, and
    /// for `step == 0`.
    pub(crate) fn for_file(file: &File, step: u64) -> Option<Self> {
        (step > 0 && releases_past_the_end(file)).then_some(Self {
            step,
            reserved: 0,
            refused: false,
        })
    }

    /// Reserves blocks for `len` more bytes after the `written` already in `file`, if they pass
    /// the reserved end. Advisory: a refusal stops reserving for this file and gives back at
    /// once whatever part of the step the file system did reserve, so the writes that follow
    /// find the room they would have found without it; a real lack of space is theirs to
    /// report.
    pub(crate) fn before_write(&mut self, file: &File, written: u64, len: usize) {
        let end = written.saturating_add(len as u64);
        if self.refused || end <= self.reserved {
            return;
        }
        let bytes = self.step.max(end - self.reserved);
        if has_room_for(file, bytes) && reserve(file, self.reserved, bytes) {
            self.reserved += bytes;
            return;
        }
        self.refused = true;
        // A failed fallocate may have reserved part of its range (ext4 keeps it).
        if file.set_len(written).is_ok() {
            self.reserved = written;
        }
    }

    /// Gives back the blocks reserved past the `written` bytes of `file`, without touching its
    /// data: truncating a file to its own length frees them. Call when the file is complete; a
    /// later write reserves again.
    pub(crate) fn release(&mut self, file: &File, written: u64) -> std::io::Result<()> {
        if self.reserved <= written {
            return Ok(());
        }
        file.set_len(written)?;
        self.reserved = written;
        Ok(())
    }

    /// End of the reserved blocks (for tests).
    #[cfg(test)]
    pub(crate) fn reserved(&self) -> u64 {
        self.reserved
    }
}

/// Whether truncating `file` to its own length frees its blocks past the end at once: ext4
/// (and ext2/ext3, which share its magic number) or tmpfs.
#[cfg(target_os = "linux")]
fn releases_past_the_end(file: &File) -> bool {
    use std::os::fd::AsRawFd;
    const EXT4_SUPER_MAGIC: i64 = 0xEF53;
    const TMPFS_MAGIC: i64 = 0x0102_1994;
    let mut stat = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: fstatfs fills `stat` and returns 0, or returns -1 and leaves it unread; the
    // descriptor is open for as long as `file` is borrowed.
    if unsafe { libc::fstatfs(file.as_raw_fd(), stat.as_mut_ptr()) } != 0 {
        return false;
    }
    // SAFETY: initialized by the successful fstatfs above.
    let stat = unsafe { stat.assume_init() };
    // f_type is an i64 here, narrower or unsigned on other Linux targets.
    #[allow(clippy::useless_conversion)]
    let kind = i64::from(stat.f_type);
    kind == EXT4_SUPER_MAGIC || kind == TMPFS_MAGIC
}

#[cfg(not(target_os = "linux"))]
fn releases_past_the_end(_file: &File) -> bool {
    false
}

/// Whether the file system of `file` keeps at least [`HEADROOM_STEPS`] times `bytes` free after
/// `bytes` more are reserved.
#[cfg(target_os = "linux")]
fn has_room_for(file: &File, bytes: u64) -> bool {
    use std::os::fd::AsRawFd;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: as in `releases_past_the_end`, with fstatvfs.
    if unsafe { libc::fstatvfs(file.as_raw_fd(), stat.as_mut_ptr()) } != 0 {
        return false;
    }
    // SAFETY: initialized by the successful fstatvfs above.
    let stat = unsafe { stat.assume_init() };
    // u64 here, u32 on 32-bit targets.
    #[allow(clippy::useless_conversion)]
    let free = u64::from(stat.f_bavail).saturating_mul(u64::from(stat.f_frsize));
    free / bytes > HEADROOM_STEPS
}

#[cfg(not(target_os = "linux"))]
fn has_room_for(_file: &File, _bytes: u64) -> bool {
    false
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

#[cfg(not(target_os = "linux"))]
fn reserve(_file: &File, _offset: u64, _len: u64) -> bool {
    false
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::io::Write;
    use std::os::unix::fs::MetadataExt;

    use super::*;

    /// A file in the crate's directory, on the file system a user's output would be on.
    fn scratch() -> File {
        tempfile::tempfile_in(env!("CARGO_MANIFEST_DIR")).unwrap()
    }

    fn held(file: &File) -> u64 {
        file.metadata().unwrap().blocks() * 512
    }

    #[test]
    fn a_write_past_the_step_reserves_all_of_it() {
        let file = scratch();
        let Some(mut preallocation) = Preallocation::for_file(&file, 1 << 20) else {
            // Not ext4 or tmpfs: nothing to reserve, as in a run.
            return;
        };
        preallocation.before_write(&file, 0, 10);
        assert_eq!(preallocation.reserved(), 1 << 20);
        preallocation.before_write(&file, 10, 3 << 20);
        assert_eq!(
            preallocation.reserved(),
            10 + (3 << 20),
            "to the end of the write"
        );
        assert!(held(&file) >= 3 << 20, "{} bytes held", held(&file));
        assert_eq!(file.metadata().unwrap().len(), 0, "the size is kept");
        preallocation.release(&file, 0).unwrap();
        assert_eq!(held(&file), 0);
    }

    #[test]
    fn a_refused_reservation_gives_back_its_step_and_stops() {
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let path = dir.path().join("x");
        let mut file = File::create(&path).unwrap();
        let Some(mut preallocation) = Preallocation::for_file(&file, 1 << 20) else {
            return;
        };
        file.write_all(b"abc").unwrap();
        preallocation.before_write(&file, 3, 10);
        assert!(held(&file) >= 1 << 20);
        // fallocate needs a descriptor open for writing: this one is refused (EBADF), and its
        // truncate too, so the reserved end stays where it was.
        let read_only = File::open(&path).unwrap();
        preallocation.before_write(&read_only, 3, 2 << 20);
        assert!(preallocation.refused);
        assert_eq!(preallocation.reserved(), 1 << 20);
        // Refused on a writable descriptor (a step past any disk): given back at once.
        let mut huge = Preallocation::for_file(&file, u64::MAX / 2).unwrap();
        huge.before_write(&file, 3, 10);
        assert!(huge.refused);
        assert_eq!(huge.reserved(), 3);
        assert!(held(&file) < 1 << 20, "{} bytes still held", held(&file));
        huge.before_write(&file, 3, 2 << 20);
        assert_eq!(huge.reserved(), 3, "no second attempt");
        assert_eq!(std::fs::read(&path).unwrap(), b"abc");
    }
}
