//! [`Segments`]: a column chunk's bytes kept as the pieces they were written in, so that a
//! growing chunk never copies what it already holds (a `Vec` that doubles copies a chunk's
//! bytes about once more), and a page's data announced beforehand is kept without a copy; read
//! back in order when the chunk is spliced into its row group.

use std::collections::VecDeque;
use std::io::{Read, Write};

use bytes::{Buf, Bytes};
use parquet::errors::{ParquetError, Result};
use parquet::file::reader::{ChunkReader, Length};

/// Bytes written in pieces: each write is one piece.
#[derive(Debug, Default)]
pub(crate) struct Segments {
    pieces: Vec<Bytes>,
    len: u64,
    /// Bytes about to be written from where they lie: kept as they are, not copied.
    expected: Option<Bytes>,
}

impl Segments {
    /// Announces that `bytes` are about to be written (a page's data, through parquet's page
    /// writer): a write of exactly their memory keeps `bytes` as its piece instead of a copy.
    pub(crate) fn expect(&mut self, bytes: Option<Bytes>) {
        self.expected = bytes;
    }
}

impl Write for Segments {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let same = |bytes: &mut Bytes| bytes.as_ptr() == buf.as_ptr() && bytes.len() == buf.len();
        let piece = match self.expected.take_if(same) {
            Some(bytes) => bytes,
            None => Bytes::copy_from_slice(buf),
        };
        self.pieces.push(piece);
        self.len += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Length for Segments {
    fn len(&self) -> u64 {
        self.len
    }
}

impl ChunkReader for Segments {
    type T = SegmentsReader;

    fn get_read(&self, start: u64) -> Result<SegmentsReader> {
        if start > self.len {
            return Err(ParquetError::EOF(format!(
                "a read from byte {start} of a {}-byte column chunk",
                self.len
            )));
        }
        let mut pieces: VecDeque<Bytes> = self.pieces.iter().cloned().collect();
        let mut skip = start as usize;
        while let Some(front) = pieces.front_mut() {
            if skip < front.len() {
                front.advance(skip);
                break;
            }
            skip -= front.len();
            pieces.pop_front();
        }
        Ok(SegmentsReader { pieces })
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        let mut bytes = vec![0; length];
        self.get_read(start)?.read_exact(&mut bytes)?;
        Ok(bytes.into())
    }
}

/// Reads [`Segments`]' pieces in order, from where [`ChunkReader::get_read`] started.
#[derive(Debug)]
pub(crate) struct SegmentsReader {
    pieces: VecDeque<Bytes>,
}

impl Read for SegmentsReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while let Some(front) = self.pieces.front_mut() {
            if front.is_empty() {
                self.pieces.pop_front();
                continue;
            }
            let count = front.len().min(buf.len());
            buf[..count].copy_from_slice(&front[..count]);
            front.advance(count);
            return Ok(count);
        }
        Ok(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(pieces: &[&[u8]]) -> Segments {
        let mut segments = Segments::default();
        for piece in pieces {
            segments.write_all(piece).unwrap();
        }
        segments
    }

    #[test]
    fn reads_back_what_was_written_from_any_start() {
        let segments = written(&[b"abc", b"", b"de", b"fghij"]);
        assert_eq!(segments.len(), 10);
        for start in 0..=10 {
            let mut read = Vec::new();
            segments
                .get_read(start)
                .unwrap()
                .read_to_end(&mut read)
                .unwrap();
            assert_eq!(read, &b"abcdefghij"[start as usize..]);
        }
        assert_eq!(&segments.get_bytes(2, 5).unwrap()[..], b"cdefg");
    }

    #[test]
    fn expected_bytes_are_kept_not_copied() {
        let page = Bytes::from(vec![7u8; 100]);
        let mut segments = written(&[b"header"]);
        segments.expect(Some(page.clone()));
        segments.write_all(&page[..50]).unwrap();
        segments.write_all(&page).unwrap();
        assert_ne!(
            segments.pieces[1].as_ptr(),
            page.as_ptr(),
            "a part is copied"
        );
        assert_eq!(segments.pieces[2].as_ptr(), page.as_ptr());
        assert!(segments.expected.is_none());
        assert_eq!(segments.len(), 156);
        assert_eq!(&segments.get_bytes(0, 8).unwrap()[..], b"header\x07\x07");
    }

    #[test]
    fn reads_past_the_end_fail() {
        let segments = written(&[b"abc"]);
        assert!(segments.get_read(4).is_err());
        assert!(segments.get_bytes(1, 3).is_err());
    }
}
