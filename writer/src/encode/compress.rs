//! [`PageCodec`]: page compression for the native encoder's own pages, through the same codec
//! crates and calls parquet's compression module makes (which parquet keeps private), so the
//! compressed bytes are the same.

use std::cell::RefCell;

use parquet::basic::Compression;
use parquet::errors::{ParquetError, Result};

/// Whether [`PageCodec`] compresses as parquet does with `compression`: none, Snappy, Zstandard
/// at any level, LZ4_RAW and Hadoop-framed LZ4: every codec this project builds parquet with.
/// gzip and Brotli (not built) stay with parquet.
pub(crate) fn supported(compression: Compression) -> bool {
    matches!(
        compression,
        Compression::UNCOMPRESSED
            | Compression::SNAPPY
            | Compression::ZSTD(_)
            | Compression::LZ4_RAW
            | Compression::LZ4
    )
}

/// One column chunk's page compressor.
pub(crate) enum PageCodec {
    /// Snappy's encoder keeps a 2 KiB table: boxed, so the writer stays small to move.
    Snappy(Box<snap::raw::Encoder>),
    Zstd(zstd::bulk::Compressor<'static>),
    Lz4Raw,
    /// The LZ4 codec parquet writes under `LZ4`: one LZ4 block after Hadoop's frame header.
    Lz4Hadoop,
}

impl std::fmt::Debug for PageCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Snappy(_) => "Snappy",
            Self::Zstd(_) => "Zstd",
            Self::Lz4Raw => "Lz4Raw",
            Self::Lz4Hadoop => "Lz4Hadoop",
        })
    }
}

impl PageCodec {
    /// The compressor for `compression` (which [`supported`] accepts); `None` without one.
    ///
    /// # Errors
    ///
    /// A codec [`supported`] refuses, or Zstandard refused the level.
    pub fn new(compression: Compression) -> Result<Option<Self>> {
        Ok(match compression {
            Compression::UNCOMPRESSED => None,
            Compression::SNAPPY => Some(Self::Snappy(Box::new(snap::raw::Encoder::new()))),
            Compression::ZSTD(level) => Some(Self::Zstd(
                zstd::bulk::Compressor::new(level.compression_level()).map_err(external)?,
            )),
            Compression::LZ4_RAW => Some(Self::Lz4Raw),
            Compression::LZ4 => Some(Self::Lz4Hadoop),
            other => {
                return Err(ParquetError::NYI(format!(
                    "{other} pages in the native encoder"
                )))
            }
        })
    }

    /// `page` compressed, in a buffer of exactly its length (which a chunk keeps as it is).
    ///
    /// # Errors
    ///
    /// What the codec fails on.
    pub fn compress(&mut self, page: &[u8]) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.compress_into(page, &mut out)?;
        Ok(out)
    }

    /// Appends `page` compressed to `out`: compressed into the thread's scratch block, then
    /// copied. Compressing straight into `out` meant growing it to the codec's bound (more than
    /// the page) and filling that with zeros for every page, in memory the allocator had just
    /// handed out: a copy of what was written costs less than the zeros and the page faults.
    ///
    /// # Errors
    ///
    /// What the codec fails on.
    pub fn compress_into(&mut self, page: &[u8], out: &mut Vec<u8>) -> Result<()> {
        with_scratch(self.bound(page.len()), |block| {
            let written = self.compress_block(page, block)?;
            out.extend_from_slice(&block[..written]);
            Ok(())
        })
    }

    /// The most bytes `len` bytes can compress to (0 where Snappy refuses that length, which
    /// its compressor then reports).
    fn bound(&self, len: usize) -> usize {
        match self {
            Self::Snappy(_) => snap::raw::max_compress_len(len),
            Self::Zstd(_) => zstd::zstd_safe::compress_bound(len),
            Self::Lz4Raw => lz4_flex::block::get_maximum_output_size(len),
            Self::Lz4Hadoop => HADOOP_HEADER + lz4_flex::block::get_maximum_output_size(len),
        }
    }

    /// Compresses `page` into the start of `block` (of [`Self::bound`] bytes), returning how
    /// many bytes it wrote.
    fn compress_block(&mut self, page: &[u8], block: &mut [u8]) -> Result<usize> {
        match self {
            Self::Snappy(encoder) => encoder.compress(page, block).map_err(external),
            Self::Zstd(compressor) => compressor.compress_to_buffer(page, block).map_err(external),
            Self::Lz4Raw => lz4_flex::block::compress_into(page, block).map_err(external),
            Self::Lz4Hadoop => {
                // Hadoop's frame: the page's length and the block's, each 4 bytes big-endian
                // (cut to 32 bits as parquet cuts them), then the block.
                let (header, rest) = block.split_at_mut(HADOOP_HEADER);
                let written = lz4_flex::block::compress_into(page, rest).map_err(external)?;
                header[..4].copy_from_slice(&(page.len() as u32).to_be_bytes());
                header[4..].copy_from_slice(&(written as u32).to_be_bytes());
                Ok(HADOOP_HEADER + written)
            }
        }
    }
}

/// The bytes of the Hadoop LZ4 frame's header: two lengths.
const HADOOP_HEADER: usize = 8;

/// The largest scratch block a thread keeps between pages (a 1 MiB page's bound is about
/// 1.2 MiB): a page whose bound is larger, under a page size limit raised far past parquet's
/// default, is compressed into a block of its own, so no thread holds on to one.
const KEPT_SCRATCH: usize = 8 << 20;

thread_local! {
    /// The block the thread's pages are compressed into, reused from page to page (filled with
    /// zeros once, when it grows).
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Calls `compress` with a block of `bound` bytes: the thread's scratch block, or one of its
/// own past [`KEPT_SCRATCH`] or where the thread has none to lend (while its thread-locals are
/// torn down, say, when a writer is dropped by another one's destructor).
fn with_scratch<R>(bound: usize, mut compress: impl FnMut(&mut [u8]) -> R) -> R {
    if bound <= KEPT_SCRATCH {
        let kept = SCRATCH.try_with(|scratch| {
            let mut scratch = scratch.try_borrow_mut().ok()?;
            if scratch.len() < bound {
                scratch.resize(bound, 0);
            }
            Some(compress(&mut scratch[..bound]))
        });
        if let Ok(Some(result)) = kept {
            return result;
        }
    }
    compress(&mut vec![0; bound])
}

fn external(error: impl std::error::Error + Send + Sync + 'static) -> ParquetError {
    ParquetError::External(Box::new(error))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codecs() -> Vec<Compression> {
        vec![
            Compression::SNAPPY,
            Compression::ZSTD(Default::default()),
            Compression::LZ4_RAW,
            Compression::LZ4,
        ]
    }

    /// `len` bytes that compress somewhat: runs of a byte between noise.
    fn page(len: usize, seed: u64) -> Vec<u8> {
        let mut state = seed;
        (0..len)
            .map(|at| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                match at % 64 < 40 {
                    true => (at / 64) as u8,
                    false => (state >> 56) as u8,
                }
            })
            .collect()
    }

    fn compressed(compression: Compression, page: &[u8]) -> Vec<u8> {
        let mut codec = PageCodec::new(compression).unwrap().unwrap();
        codec.compress(page).unwrap()
    }

    /// A page compresses to the same bytes whatever the thread's scratch block held before (a
    /// larger page's leftovers) and on a fresh thread, and past the kept block's size too;
    /// every page decompresses back.
    #[test]
    fn pages_compress_alike_whatever_the_scratch_block_held() {
        let (small, large) = (page(3_000, 1), page(KEPT_SCRATCH + 1_000, 2));
        for compression in codecs() {
            let fresh = std::thread::spawn(move || compressed(compression, &page(3_000, 1)))
                .join()
                .unwrap();
            let large_out = compressed(compression, &large);
            let medium = compressed(compression, &page(1 << 20, 3));
            let small_out = compressed(compression, &small);
            assert_eq!(small_out, fresh, "{compression}");
            assert!(medium.len() < 1 << 20, "{compression}");
            for (input, output) in [(&small, &small_out), (&large, &large_out)] {
                assert_eq!(&decompressed(compression, output, input.len()), input);
            }
        }
    }

    fn decompressed(compression: Compression, output: &[u8], len: usize) -> Vec<u8> {
        match compression {
            Compression::SNAPPY => snap::raw::Decoder::new().decompress_vec(output).unwrap(),
            Compression::ZSTD(_) => zstd::bulk::decompress(output, len).unwrap(),
            Compression::LZ4_RAW => lz4_flex::block::decompress(output, len).unwrap(),
            _ => {
                let (header, block) = output.split_at(HADOOP_HEADER);
                assert_eq!(header[..4], (len as u32).to_be_bytes());
                assert_eq!(header[4..], (block.len() as u32).to_be_bytes());
                lz4_flex::block::decompress(block, len).unwrap()
            }
        }
    }
}
