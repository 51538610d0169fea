//! [`DirectWrites`]: a file's bytes written with `O_DIRECT`, past the page cache, from two
//! aligned buffers: one fills while a thread of the file's own hands the other to the disk.
//!
//! Through the page cache every byte is copied into a cache page by the writing thread, and the
//! kernel later allocates, writes back and reclaims those pages, much of it on the writing CPU
//! too. A direct write goes from the buffer to the device. What it needs is alignment: buffer
//! addresses, lengths and file offsets in multiples of [`BLOCK`]. The writer keeps the file
//! offset of its buffer a multiple of the block; the bytes past the last whole block are written
//! padded with zeros and the file cut back to its true length (`set_len`), and they stay at the
//! start of the buffer, so the next write of that block overwrites the padding.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::{self, JoinHandle};

/// The alignment of direct writes: the page size, a multiple of the logical block size of the
/// usual disks and of the direct-I/O alignment ext4, XFS and btrfs ask for.
pub(crate) const BLOCK: usize = 4096;

/// A buffer whose `len` bytes start at an address aligned to [`BLOCK`]; `len` is a multiple of
/// it. Safe code only: a vector a block longer, used from its first aligned byte.
struct AlignedBuffer {
    bytes: Vec<u8>,
    start: usize,
    len: usize,
}

impl AlignedBuffer {
    fn new(len: usize) -> Self {
        let bytes = vec![0; len + BLOCK];
        let start = bytes.as_ptr().align_offset(BLOCK);
        Self { bytes, start, len }
    }

    fn as_slice(&self) -> &[u8] {
        &self.bytes[self.start..self.start + self.len]
    }

    fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.bytes[self.start..self.start + self.len]
    }
}

/// One buffer for the disk: its first `len` bytes go to `offset`, then the file is cut to
/// `set_len` if given.
struct Request {
    buffer: AlignedBuffer,
    offset: u64,
    len: usize,
    set_len: Option<u64>,
}

/// The writing end of a file opened with `O_DIRECT`. Bytes are copied into the filling buffer;
/// a full buffer goes to the file's disk thread, which writes it while the other fills.
/// [`Write::flush`] writes everything so far, the last partial block included, and waits for
/// the disk. The first failure is reported by the write or flush that meets it and by every
/// later one. Dropping it stops and joins the thread; bytes not flushed are lost.
pub(crate) struct DirectWrites {
    filling: AlignedBuffer,
    /// Bytes in `filling`.
    filled: usize,
    /// Bytes written since the last flush: a flush without them has nothing to do.
    unflushed: bool,
    /// The file offset of `filling`'s first byte, a multiple of [`BLOCK`].
    offset: u64,
    /// The second buffer when it is not with the disk thread.
    spare: Option<AlignedBuffer>,
    to_disk: Option<SyncSender<Request>>,
    from_disk: Receiver<io::Result<AlignedBuffer>>,
    thread: Option<JoinHandle<()>>,
    /// Set once a write failed, to its kind and message: the file is incomplete, and every
    /// later call says so.
    failed: Option<(io::ErrorKind, String)>,
}

impl DirectWrites {
    /// Opens `path`, which must exist, for direct writes from offset 0, with two buffers of
    /// `buffer_bytes` (rounded up to whole blocks) and a disk thread. Fails where the file
    /// system takes no `O_DIRECT` (tmpfs before Linux 6.6, some FUSE and network file
    /// systems): the caller then writes through the cache.
    pub(crate) fn open(path: &Path, buffer_bytes: usize) -> io::Result<Self> {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_DIRECT)
            .open(path)?;
        let len = buffer_bytes.max(1).div_ceil(BLOCK) * BLOCK;
        let (to_disk, requests) = mpsc::sync_channel(1);
        let (done, from_disk) = mpsc::sync_channel(2);
        let thread = thread::Builder::new()
            .name("shredlab-direct-writes".to_string())
            .spawn(move || write_requests(file, requests, done))?;
        Ok(Self {
            filling: AlignedBuffer::new(len),
            filled: 0,
            unflushed: false,
            offset: 0,
            spare: Some(AlignedBuffer::new(len)),
            to_disk: Some(to_disk),
            from_disk,
            thread: Some(thread),
            failed: None,
        })
    }

    fn check(&self) -> io::Result<()> {
        match &self.failed {
            None => Ok(()),
            Some((kind, message)) => Err(io::Error::new(
                *kind,
                format!("an earlier direct write to this file failed ({message}); the file is incomplete"),
            )),
        }
    }

    /// Hands the filling buffer's first `len` bytes to the disk thread and takes the other
    /// buffer to fill, waiting for the disk if it still has it.
    fn hand_over(&mut self, len: usize, set_len: Option<u64>) -> io::Result<()> {
        let next = match self.spare.take() {
            Some(buffer) => buffer,
            None => self.returned()?,
        };
        let request = Request {
            buffer: std::mem::replace(&mut self.filling, next),
            offset: self.offset,
            len,
            set_len,
        };
        let sent = self.to_disk.as_ref().map(|to_disk| to_disk.send(request));
        if !matches!(sent, Some(Ok(()))) {
            return Err(self.fail(io::Error::other("the direct-write thread has stopped")));
        }
        Ok(())
    }

    /// The buffer the disk thread had, once written.
    fn returned(&mut self) -> io::Result<AlignedBuffer> {
        let result = self
            .from_disk
            .recv()
            .unwrap_or_else(|_| Err(io::Error::other("the direct-write thread has stopped")));
        result.map_err(|error| self.fail(error))
    }

    fn fail(&mut self, error: io::Error) -> io::Error {
        self.failed = Some((error.kind(), error.to_string()));
        error
    }
}

impl Write for DirectWrites {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.check()?;
        let room = self.filling.len - self.filled;
        let taken = room.min(data.len());
        self.filling.as_mut_slice()[self.filled..self.filled + taken]
            .copy_from_slice(&data[..taken]);
        self.filled += taken;
        self.unflushed = true;
        if self.filled == self.filling.len {
            let whole = self.filled;
            self.hand_over(whole, None)?;
            self.offset += whole as u64;
            self.filled = 0;
        }
        Ok(taken)
    }

    /// Writes every byte so far and waits for the disk: the whole blocks, and the partial last
    /// one padded with zeros, after which the file is cut back to its true length. The partial
    /// block stays at the start of the buffer, to be written whole later.
    fn flush(&mut self) -> io::Result<()> {
        self.check()?;
        if self.filled > 0 && self.unflushed {
            let whole = self.filled / BLOCK * BLOCK;
            let padded = self.filled.div_ceil(BLOCK) * BLOCK;
            let mut tail = [0; BLOCK];
            let tail_len = self.filled - whole;
            tail[..tail_len].copy_from_slice(&self.filling.as_slice()[whole..self.filled]);
            self.filling.as_mut_slice()[self.filled..padded].fill(0);
            let end = self.offset + self.filled as u64;
            self.hand_over(padded, Some(end))?;
            self.offset += whole as u64;
            self.filling.as_mut_slice()[..tail_len].copy_from_slice(&tail[..tail_len]);
            self.filled = tail_len;
        }
        if self.spare.is_none() {
            let buffer = self.returned()?;
            self.spare = Some(buffer);
        }
        self.unflushed = false;
        Ok(())
    }
}

impl Drop for DirectWrites {
    fn drop(&mut self) {
        // Closing the channel ends the thread's loop once its current write is done.
        self.to_disk = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl std::fmt::Debug for DirectWrites {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirectWrites")
            .field("buffer_bytes", &self.filling.len)
            .field("filled", &self.filled)
            .field("offset", &self.offset)
            .field("failed", &self.failed)
            .finish_non_exhaustive()
    }
}

/// The disk thread: writes each request's buffer where it belongs and sends the buffer back,
/// or the error, until the writer closes the channel.
fn write_requests(
    file: File,
    requests: Receiver<Request>,
    done: SyncSender<io::Result<AlignedBuffer>>,
) {
    for request in requests {
        let Request {
            buffer,
            offset,
            len,
            set_len,
        } = request;
        let written = file
            .write_all_at(&buffer.as_slice()[..len], offset)
            .and_then(|()| set_len.map_or(Ok(()), |end| file.set_len(end)));
        if done.send(written.map(|()| buffer)).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The files go under the crate's directory, not /tmp, which may be a file system without
    // O_DIRECT.

    /// Writes `data` in `chunk`-byte pieces, flushing after every `flush_every` pieces.
    fn written(data: &[u8], buffer_bytes: usize, chunk: usize, flush_every: usize) -> Vec<u8> {
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let path = dir.path().join("direct");
        File::create(&path).unwrap();
        let mut file = DirectWrites::open(&path, buffer_bytes).unwrap();
        for (i, piece) in data.chunks(chunk).enumerate() {
            file.write_all(piece).unwrap();
            if (i + 1) % flush_every == 0 {
                file.flush().unwrap();
                let len = std::fs::metadata(&path).unwrap().len() as usize;
                assert_eq!(len, ((i + 1) * chunk).min(data.len()), "after flush {i}");
            }
        }
        file.flush().unwrap();
        drop(file);
        std::fs::read(&path).unwrap()
    }

    fn pattern(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 % 251) as u8).collect()
    }

    #[test]
    fn keeps_every_byte_in_order() {
        let data = pattern(1_000_003);
        assert_eq!(written(&data, 3 * BLOCK, 777, usize::MAX), data);
        assert_eq!(written(&data, 64 * 1024, 100_000, usize::MAX), data);
    }

    #[test]
    fn flushes_mid_file_leave_the_true_length_and_lose_nothing() {
        let data = pattern(300_001);
        assert_eq!(written(&data, 2 * BLOCK, 1_001, 3), data);
        assert_eq!(written(&data, 8 * BLOCK, BLOCK, 5), data);
    }

    #[test]
    fn an_empty_file_stays_empty() {
        assert!(written(&[], BLOCK, 1, 1).is_empty());
    }

    #[test]
    fn a_failed_write_is_reported_then_and_after() {
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let path = dir.path().join("direct");
        File::create(&path).unwrap();
        let mut file = DirectWrites::open(&path, BLOCK).unwrap();
        // A write past the largest file size the file system allows fails in the thread.
        file.offset = (i64::MAX as u64) / BLOCK as u64 * BLOCK as u64;
        file.write_all(&[1; BLOCK]).unwrap();
        assert!(file.flush().is_err());
        let later = file.write(&[1]).unwrap_err();
        assert!(later.to_string().contains("incomplete"), "{later}");
    }
}
