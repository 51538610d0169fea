//! [`PendingFile`]: a file that appears under its final name only when committed.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;
use thiserror::Error;

#[cfg(target_os = "linux")]
use crate::direct::DirectWrites;
use crate::preallocate::Preallocation;

/// Failure to create or commit a [`PendingFile`].
#[derive(Debug, Error)]
pub enum PendingFileError {
    /// The temporary file could not be created in the destination directory.
    #[error("cannot create a temporary file in {dir}: {source} (check that the directory exists and is writable)")]
    Create {
        /// The destination directory.
        dir: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// Something other than a regular file (or a symbolic link) is at the final path: the
    /// commit's rename would replace it (a device, a pipe) or fail after all the writing (a
    /// directory).
    #[error("{path} is {kind}, not a regular file: the output is written under a temporary name and renamed to this path, which would replace it; move it away or write elsewhere")]
    NotAFile {
        /// The final path.
        path: PathBuf,
        /// What is there: "a directory", "a named pipe (FIFO)", ...
        kind: &'static str,
    },
    /// The finished file could not be synced or renamed to its final name.
    #[error("cannot commit {path}: {source}")]
    Commit {
        /// The final path.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
}

/// A file written under a hidden temporary name next to `path`, renamed to `path` by
/// [`PendingFile::commit`]. Dropped without a commit, the temporary file is deleted.
#[derive(Debug)]
pub struct PendingFile {
    /// Set by [`PendingFile::with_direct_writes`]: the bytes go through it, not `temp`. Declared
    /// first, so its thread is joined before the temporary file is removed.
    #[cfg(target_os = "linux")]
    direct: Option<DirectWrites>,
    temp: NamedTempFile,
    path: PathBuf,
    /// Bytes written through the page cache (not counting direct writes): the file's length.
    written: u64,
    writeback: Option<Writeback>,
    preallocation: Option<Preallocation>,
    durable: bool,
    /// Nothing written since the last sync: a commit need not sync again.
    synced: bool,
}

/// Progress of early writeback: where the last writeback request ended.
#[derive(Debug, Clone, Copy)]
struct Writeback {
    step: u64,
    requested: u64,
}

impl PendingFile {
    /// Starts a file that will become `path`. The temporary name is `.<file name>.<random>.tmp`
    /// in the same directory, so the final rename never crosses file systems.
    pub fn create(path: impl Into<PathBuf>) -> Result<Self, PendingFileError> {
        let path = path.into();
        if let Some(kind) = std::fs::symlink_metadata(&path)
            .ok()
            .and_then(|m| not_a_file(m.file_type()))
        {
            return Err(PendingFileError::NotAFile { path, kind });
        }
        let dir = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let prefix = format!(
            ".{}.",
            path.file_name().unwrap_or_default().to_string_lossy()
        );
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        // The mode an ordinary new file gets (0666 less the umask), not tempfile's private 0600:
        // the committed file is output for others to read.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let temp = builder
            .tempfile_in(&dir)
            .map_err(|source| PendingFileError::Create { dir, source })?;
        Ok(Self {
            #[cfg(target_os = "linux")]
            direct: None,
            temp,
            path,
            written: 0,
            writeback: None,
            preallocation: None,
            durable: true,
            synced: false,
        })
    }

    /// Asks the kernel to start writing the data to disk every `step` bytes, without waiting
    /// for it, so the disk works while the file is still being produced and the sync in
    /// [`PendingFile::commit`] only waits for the tail. Without it, a freshly written file
    /// usually sits in the page cache until that sync, which then stalls for the whole file.
    /// Linux only (`sync_file_range`); elsewhere, and for `step == 0`, it changes nothing.
    pub fn with_early_writeback(mut self, step: u64) -> Self {
        self.writeback = (step > 0).then_some(Writeback { step, requested: 0 });
        self
    }

    /// Reserves the file's disk blocks `step` bytes ahead of the writes (`fallocate`, keeping
    /// the size), so the kernel copies each page written into a block that already exists
    /// instead of reserving one per page for delayed allocation (ext4). The commit (or
    /// [`PendingFile::sync`]) gives back the blocks past the end; until then at most `step`
    /// bytes of disk (or the last write, if longer) are held beyond what is written. A
    /// reservation is only asked for while the file system would keep 16 times as much free,
    /// and one refused is given back at once: the file then grows as it would without it.
    /// Linux only, on ext4 and tmpfs, where that truncate frees the blocks at once (see
    /// `preallocate.rs`); elsewhere, and for `step == 0`, it changes nothing.
    pub fn with_preallocation(mut self, step: u64) -> Self {
        self.preallocation = Preallocation::for_file(self.temp.as_file(), step);
        self
    }

    /// Writes the file with `O_DIRECT`, past the page cache: bytes are copied into one of two
    /// aligned buffers of `buffer_bytes` while a thread of the file's own writes the other to
    /// the disk, so the writing thread neither copies into cache pages nor has the kernel
    /// write them back and reclaim them. Replaces early writeback, which has no cache to
    /// drain. Where the file system takes no direct writes (tmpfs before Linux 6.6, some FUSE
    /// and network file systems), and outside Linux, the file is written through the page
    /// cache as before: [`PendingFile::writes_direct`] says which.
    pub fn with_direct_writes(mut self, buffer_bytes: usize) -> Self {
        #[cfg(target_os = "linux")]
        if let Ok(direct) = DirectWrites::open(self.temp.path(), buffer_bytes) {
            self.direct = Some(direct);
            self.writeback = None;
            self.preallocation = None;
        }
        #[cfg(not(target_os = "linux"))]
        let _ = buffer_bytes;
        self
    }

    /// Whether the bytes go to the disk with direct writes ([`PendingFile::with_direct_writes`]).
    pub fn writes_direct(&self) -> bool {
        #[cfg(target_os = "linux")]
        return self.direct.is_some();
        #[cfg(not(target_os = "linux"))]
        false
    }

    /// Commits without syncing the data or the directory: faster, but a crash soon after the
    /// commit can lose the file's contents. For comparisons with tools that never sync.
    pub fn without_sync(mut self) -> Self {
        self.durable = false;
        self
    }

    /// The name the file will have once committed.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the data is until the commit: the hidden temporary file.
    pub fn temp_path(&self) -> &Path {
        self.temp.path()
    }

    /// The temporary file's handle.
    pub fn file(&self) -> &File {
        self.temp.as_file()
    }

    /// Flushes the data to disk, so a later [`PendingFile::commit`] only renames (nothing
    /// [`PendingFile::without_sync`] but the last direct writes and the release of preallocated
    /// blocks).
    pub fn sync(&mut self) -> Result<(), PendingFileError> {
        let commit_error = |source| PendingFileError::Commit {
            path: self.path.clone(),
            source,
        };
        #[cfg(target_os = "linux")]
        if let Some(direct) = &mut self.direct {
            direct.flush().map_err(commit_error)?;
        }
        if let Some(preallocation) = &mut self.preallocation {
            preallocation
                .release(self.temp.as_file(), self.written)
                .map_err(commit_error)?;
        }
        if !self.durable || self.synced {
            return Ok(());
        }
        self.synced = true;
        self.temp.as_file().sync_data().map_err(commit_error)
    }

    /// Flushes the data to disk, renames the file to its final name (replacing any file there)
    /// and syncs the directory, so the new name survives a crash too (the syncs are skipped
    /// [`PendingFile::without_sync`]).
    pub fn commit(mut self) -> Result<PathBuf, PendingFileError> {
        self.sync()?;
        let Self {
            temp,
            path,
            durable,
            ..
        } = self;
        let commit_error = |source| PendingFileError::Commit {
            path: path.clone(),
            source,
        };
        temp.persist(&path)
            .map_err(|error| commit_error(error.error))?;
        if durable {
            sync_parent(&path).map_err(commit_error)?;
        }
        Ok(path)
    }
}

impl Write for PendingFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.synced = false;
        #[cfg(target_os = "linux")]
        if let Some(direct) = &mut self.direct {
            return direct.write(buf);
        }
        if let Some(preallocation) = &mut self.preallocation {
            preallocation.before_write(self.temp.as_file(), self.written, buf.len());
        }
        let written = self.temp.write(buf)?;
        self.written += written as u64;
        if let Some(progress) = &mut self.writeback {
            if self.written - progress.requested >= progress.step {
                start_writeback(
                    self.temp.as_file(),
                    progress.requested,
                    self.written - progress.requested,
                );
                progress.requested = self.written;
            }
        }
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        if let Some(direct) = &mut self.direct {
            return direct.flush();
        }
        self.temp.flush()
    }
}

/// What a path of `kind` holds that a commit must not replace, if it is not a regular file
/// or a symbolic link (which the rename replaces, as it replaces an earlier file).
fn not_a_file(kind: std::fs::FileType) -> Option<&'static str> {
    #[cfg(unix)]
    use std::os::unix::fs::FileTypeExt;
    #[cfg(unix)]
    let special = [
        (kind.is_char_device(), "a character device"),
        (kind.is_block_device(), "a block device"),
        (kind.is_fifo(), "a named pipe (FIFO)"),
        (kind.is_socket(), "a socket"),
    ];
    #[cfg(not(unix))]
    let special = [];
    match kind {
        _ if kind.is_file() || kind.is_symlink() => None,
        _ if kind.is_dir() => Some("a directory"),
        _ => Some(
            special
                .into_iter()
                .find(|(is, _)| *is)
                .map_or("an unknown kind of file", |(_, name)| name),
        ),
    }
}

/// Syncs the directory holding `path`, which makes a rename in it durable (Unix; elsewhere the
/// rename alone is what the platform offers).
fn sync_parent(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        let dir = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        File::open(dir)?.sync_all()?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Starts writeback of `len` bytes at `offset` and returns at once. Advisory: a failure here
/// (say, a file system without support) surfaces, if it matters, from the sync at commit.
#[cfg(target_os = "linux")]
fn start_writeback(file: &File, offset: u64, len: u64) {
    use std::os::fd::AsRawFd;
    let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
        return;
    };
    // SAFETY: sync_file_range only reads its integer arguments; the descriptor is open for
    // as long as `file` is borrowed.
    unsafe {
        libc::sync_file_range(file.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE);
    }
}

#[cfg(not(target_os = "linux"))]
fn start_writeback(_file: &File, _offset: u64, _len: u64) {}

#[cfg(test)]
mod tests;
