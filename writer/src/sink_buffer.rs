//! The buffer between parquet's file writer and the caller's sink.
//!
//! parquet splices a column chunk that shredlab's encoder wrote into the row group through
//! `std::io::copy` (`SerializedRowGroupWriter::append_column`, the public way in), whose 8 KiB
//! pieces would each reach the sink as one write: for a file, one system call per 8 KiB (7,253
//! writes for 2 M contacts against 602 with arrow-rs's encoder, whose chunks parquet writes a
//! page at a time). Here they are gathered into writes of up to [`CAPACITY`] (or the size
//! `ParallelOptions::with_sink_buffer` sets); a page that size or larger goes straight through.

use std::io::{BufWriter, Write};

use parquet::errors::{ParquetError, Result};

/// Bytes gathered before they are written to the sink, by default.
pub(crate) const CAPACITY: usize = 1 << 20;

/// `sink` behind a buffer of `capacity` bytes (0: every write goes straight through).
pub(crate) fn wrap<W: Write>(sink: W, capacity: usize) -> BufWriter<W> {
    BufWriter::with_capacity(capacity, sink)
}

/// The sink, once every buffered byte is written to it.
///
/// # Errors
///
/// Writing the buffered bytes failed.
pub(crate) fn unwrap<W: Write>(buffered: BufWriter<W>) -> Result<W> {
    buffered
        .into_inner()
        .map_err(|error| ParquetError::External(Box::new(error.into_error())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink that counts its writes.
    #[derive(Default)]
    struct Counting {
        writes: usize,
        bytes: Vec<u8>,
    }

    impl Write for Counting {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.writes += 1;
            self.bytes.extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn small_pieces_are_gathered_and_every_byte_arrives() {
        let mut buffered = wrap(Counting::default(), CAPACITY);
        let piece = [7u8; 8192];
        for _ in 0..300 {
            buffered.write_all(&piece).unwrap();
        }
        let sink = unwrap(buffered).unwrap();
        assert_eq!(sink.bytes.len(), 300 * 8192);
        assert_eq!(sink.writes, (300 * 8192usize).div_ceil(CAPACITY));
        let mut unbuffered = wrap(Counting::default(), 0);
        unbuffered.write_all(&piece).unwrap();
        assert_eq!(
            unbuffered.get_ref().writes,
            1,
            "no buffer: straight through"
        );
    }
}
