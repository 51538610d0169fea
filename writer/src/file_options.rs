//! How a [`PendingFile`] reaches the disk, as one value: early writeback, preallocation and
//! direct writes, each off unless given.

use crate::pending::PendingFile;

/// The disk-side settings of a [`PendingFile`], applied together by [`PendingFile::with_options`].
/// The default writes through the page cache and leaves allocation and writeback to the kernel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FileOptions {
    /// Start writeback every this many bytes ([`PendingFile::with_early_writeback`]).
    pub writeback_step: Option<u64>,
    /// Reserve disk blocks this many bytes ahead of the writes
    /// ([`PendingFile::with_preallocation`]).
    pub preallocation_step: Option<u64>,
    /// Write past the page cache from two buffers of this many bytes
    /// ([`PendingFile::with_direct_writes`]); it replaces the other two where the file system
    /// takes direct writes.
    pub direct_write_buffer: Option<usize>,
}

impl PendingFile {
    /// This file with every setting of `options` applied.
    pub fn with_options(self, options: &FileOptions) -> Self {
        let file = match options.writeback_step {
            Some(step) => self.with_early_writeback(step),
            None => self,
        };
        let file = match options.preallocation_step {
            Some(step) => file.with_preallocation(step),
            None => file,
        };
        match options.direct_write_buffer {
            Some(bytes) => file.with_direct_writes(bytes),
            None => file,
        }
    }
}
