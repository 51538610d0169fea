//! Data pages v1 and v2, assembled from one page's encoded levels and values and compressed as
//! parquet's column writer compresses them.
//!
//! A v1 page is the levels (each with its 4-byte length) and the values, compressed as one. A
//! v2 page keeps its levels (without lengths) uncompressed in front and compresses the values
//! alone, unless that saves too little: parquet then writes them as they are, and says so.

use bytes::Bytes;
use parquet::basic::Encoding;
use parquet::column::page::{CompressedPage, Page};
use parquet::errors::Result;
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::schema::types::ColumnPath;

use super::compress::PageCodec;
use super::rle::HybridRle;

/// The data page version a chunk writes, from its writer version.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum PageFormat {
    V1,
    /// Values compressed only while their compressed size stays below this share of the
    /// page's uncompressed size (parquet's `data_page_v2_compression_ratio_threshold`).
    V2 {
        threshold: f64,
    },
}

/// One data page's encoded levels and values in one buffer: `buf[start..values_at]` are the
/// levels (repetition levels first, `rep_len` bytes of them), `buf[values_at..]` the values.
#[derive(Debug)]
pub(crate) struct PageBody {
    pub buf: Vec<u8>,
    pub start: usize,
    pub values_at: usize,
    pub rep_len: usize,
}

/// What a data page's header counts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PageCounts {
    pub levels: u32,
    pub rows: u32,
    /// Levels without a value: nulls and empty lists.
    pub nulls: u32,
    pub encoding: Encoding,
}

impl PageFormat {
    /// The format of the column `path`'s data pages under `props`.
    pub(crate) fn of(props: &WriterProperties, path: &ColumnPath) -> Self {
        match props.writer_version() {
            WriterVersion::PARQUET_1_0 => Self::V1,
            WriterVersion::PARQUET_2_0 => Self::V2 {
                threshold: props.column_data_page_v2_compression_ratio_threshold(path),
            },
        }
    }

    /// Whether each kind of level goes after its 4-byte length (v1).
    fn prefixes_levels(self) -> bool {
        self == Self::V1
    }

    /// The open page's levels from `rep` and `def` (where the leaf has them): repetition
    /// levels first, each kind after its 4-byte length in a v1 page; and the bytes of the
    /// repetition levels (with their length).
    pub(crate) fn finish_levels(
        self,
        rep: Option<&mut HybridRle>,
        def: Option<&mut HybridRle>,
    ) -> (Vec<u8>, usize) {
        let length = match self.prefixes_levels() {
            true => 4,
            false => 0,
        };
        let bound: usize = [rep.as_deref(), def.as_deref()]
            .into_iter()
            .flatten()
            .map(|rle| length + rle.len_bound())
            .sum();
        let mut buf = Vec::with_capacity(bound);
        let mut rep_len = 0;
        for (rle, repetition) in [(rep, true), (def, false)] {
            if let Some(rle) = rle {
                let start = buf.len();
                buf.resize(start + length, 0);
                rle.finish_into(&mut buf);
                if length > 0 {
                    let encoded = (buf.len() - start - length) as u32;
                    buf[start..start + length].copy_from_slice(&encoded.to_le_bytes());
                }
            }
            if repetition {
                rep_len = buf.len();
            }
        }
        (buf, rep_len)
    }

    /// The page of `body`, compressed with `codec` if there is one.
    ///
    /// # Errors
    ///
    /// What the codec fails on.
    pub(crate) fn assemble(
        self,
        body: PageBody,
        counts: PageCounts,
        codec: Option<&mut PageCodec>,
    ) -> Result<CompressedPage> {
        let PageBody {
            buf,
            start,
            values_at,
            rep_len,
        } = body;
        let size = buf.len() - start;
        let page = match self {
            Self::V1 => Page::DataPage {
                buf: match codec {
                    Some(codec) => fitted(codec.compress(&buf[start..])?),
                    None => fitted(buf).slice(start..),
                },
                num_values: counts.levels,
                encoding: counts.encoding,
                def_level_encoding: Encoding::RLE,
                rep_level_encoding: Encoding::RLE,
                statistics: None,
            },
            Self::V2 { threshold } => {
                let levels = values_at - start;
                let (buf, is_compressed) = match codec {
                    Some(codec) => {
                        let mut out = Vec::with_capacity(size);
                        out.extend_from_slice(&buf[start..values_at]);
                        codec.compress_into(&buf[values_at..], &mut out)?;
                        let compressed = out.len() - levels;
                        match compressed as f64 >= size as f64 * threshold {
                            true => (fitted(buf).slice(start..), false),
                            false => (fitted(out), true),
                        }
                    }
                    None => (fitted(buf).slice(start..), false),
                };
                Page::DataPageV2 {
                    buf,
                    num_values: counts.levels,
                    encoding: counts.encoding,
                    num_nulls: counts.nulls,
                    num_rows: counts.rows,
                    def_levels_byte_len: (levels - rep_len) as u32,
                    rep_levels_byte_len: rep_len as u32,
                    is_compressed,
                    statistics: None,
                }
            }
        };
        Ok(CompressedPage::new(page, size))
    }
}

/// `page` as the bytes a chunk keeps until it is written (the buffer itself, not a copy):
/// without the room a buffer sized for the worst case left unused (a compressor's bound, the
/// longest index encoding, a full page for the chunk's last one).
pub(crate) fn fitted(mut page: Vec<u8>) -> Bytes {
    if page.capacity() > page.len() + page.len() / 8 {
        page.shrink_to_fit();
    }
    Bytes::from(page)
}
