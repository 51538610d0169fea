//! [`PageCodec`]: page compression for the native encoder's own pages, through the same codec
//! crates and calls parquet's compression module makes (which parquet keeps private), so the
//! compressed bytes are the same.

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

    /// `page` compressed.
    ///
    /// # Errors
    ///
    /// What the codec fails on.
    pub fn compress(&mut self, page: &[u8]) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(page.len());
        self.compress_into(page, &mut out)?;
        Ok(out)
    }

    /// Appends `page` compressed to `out`.
    ///
    /// # Errors
    ///
    /// What the codec fails on.
    pub fn compress_into(&mut self, page: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let start = out.len();
        match self {
            Self::Snappy(encoder) => {
                out.resize(start + snap::raw::max_compress_len(page.len()), 0);
                let written = encoder
                    .compress(page, &mut out[start..])
                    .map_err(external)?;
                out.truncate(start + written);
            }
            Self::Zstd(compressor) => {
                out.reserve(zstd::zstd_safe::compress_bound(page.len()));
                // Written after the cursor: what `out` holds already stays.
                let mut after = std::io::Cursor::new(&mut *out);
                after.set_position(start as u64);
                compressor
                    .compress_to_buffer(page, &mut after)
                    .map_err(external)?;
            }
            Self::Lz4Raw => lz4_block_into(page, out)?,
            Self::Lz4Hadoop => {
                // Hadoop's frame: the page's length and the block's, each 4 bytes big-endian
                // (cut to 32 bits as parquet cuts them), then the block.
                out.resize(start + HADOOP_HEADER, 0);
                lz4_block_into(page, out)?;
                let block = (out.len() - start - HADOOP_HEADER) as u32;
                out[start..start + 4].copy_from_slice(&(page.len() as u32).to_be_bytes());
                out[start + 4..start + HADOOP_HEADER].copy_from_slice(&block.to_be_bytes());
            }
        }
        Ok(())
    }
}

/// The bytes of the Hadoop LZ4 frame's header: two lengths.
const HADOOP_HEADER: usize = 8;

/// Appends `page` compressed as one LZ4 block to `out`.
fn lz4_block_into(page: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let start = out.len();
    out.resize(
        start + lz4_flex::block::get_maximum_output_size(page.len()),
        0,
    );
    let written = lz4_flex::block::compress_into(page, &mut out[start..]).map_err(external)?;
    out.truncate(start + written);
    Ok(())
}

fn external(error: impl std::error::Error + Send + Sync + 'static) -> ParquetError {
    ParquetError::External(Box::new(error))
}
