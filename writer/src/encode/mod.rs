//! shredlab's column-chunk encoder: the same bytes as parquet's `ArrowColumnWriter`, built to
//! take over its work stage by stage.
//!
//! `EncodePlan` decides per leaf column which encoder writes it. The native encoder computes
//! the leaf's repetition and definition levels itself (`levels`: from list offsets and
//! validity bitmaps, a whole range of rows at a time). Where `encodings` finds the leaf's
//! encodings and statistics among those it writes, it writes the pages itself (`pages`: data
//! page v1 or v2 in `data_page`; levels RLE-encoded run by run in `rle`; `PLAIN` values copied
//! from the Arrow buffers in `plain` (booleans bit-packed; fixed-length byte arrays laid out in
//! `fixed_len`: fixed-size binaries, decimals of high precision, half floats, intervals), `DELTA_*`, `RLE` or
//! `BYTE_STREAM_SPLIT` values in `value_encoders` and `delta`, or dictionary indices in
//! `dictionary`; statistics, if on, in `stats` for booleans, numbers, byte arrays and
//! fixed-length byte arrays (compared in `bounds`); the bloom
//! filter, if on, in `bloom`; pages compressed in `compress` with Snappy, Zstandard, LZ4_RAW or
//! Hadoop's LZ4; `chunk` keeps the pages and builds the metadata); otherwise it hands levels and values
//! to parquet's public typed column writer, which cuts the pages and writes the values,
//! statistics and indexes. The finished chunk is spliced into the row group with
//! `SerializedRowGroupWriter::append_column`. Every leaf or setting it does not support goes
//! to `ArrowColumnWriter`, leaf by leaf, in the same file. `ArrowWriter`'s bytes are the
//! oracle: the tests compare every file byte for byte.

mod batches;
mod bloom;
mod bounds;
mod byte_bounds;
mod chunk;
mod column;
mod compress;
mod data_page;
mod delta;
mod dense_index;
mod dictionary;
mod encodings;
mod fallback;
mod fixed_len;
mod index_table;
mod leaf;
mod levels;
mod pages;
mod plain;
mod plan;
mod positions;
mod project;
mod rle;
mod segments;
mod shape;
mod sizes;
mod spans;
mod stats;
mod tally;
mod total_order;
mod truncate;
mod value_encoders;
mod values;
mod views;

pub(crate) use leaf::{LeafChunk, LeafWriter};
pub(crate) use plan::EncodePlan;

/// Which encoder wrote each leaf column of a file, by path (`a.list.item`), in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeafEncoders {
    /// Leaves whose pages shredlab's encoder writes: levels, values, statistics.
    pub native_pages: Vec<String>,
    /// Leaves whose levels shredlab's encoder computes, for parquet's typed column writer.
    pub native_levels: Vec<String>,
    /// Leaves parquet's `ArrowColumnWriter` writes.
    pub arrow_rs: Vec<String>,
}

impl LeafEncoders {
    /// The leaves shredlab's encoder takes part in: its own pages, then its levels only.
    pub fn native(&self) -> impl Iterator<Item = &String> {
        self.native_pages.iter().chain(&self.native_levels)
    }
}

/// Which encoder writes the column chunks of a file.
///
/// The native one is the writers' default; the pipeline's catalog entries before 36 keep
/// parquet's, and 36 turns the native one on (measured on the contacts' encoding floor:
/// `results/vm/ab-native-encoder-floor`). Both write the same bytes. The native encoder is
/// faster where it writes the pages itself (booleans, numbers, byte arrays and fixed-length
/// byte arrays; no gzip or Brotli, no `ALP`; data page v1 or v2); elsewhere it computes the levels
/// of leaves inside lists and maps for parquet's typed writer and leaves the rest to
/// `ArrowColumnWriter`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColumnEncoder {
    /// shredlab's encoder where it supports the leaf and the properties, parquet's
    /// `ArrowColumnWriter` for the rest.
    #[default]
    Native,
    /// parquet's `ArrowColumnWriter` for every leaf.
    ArrowRs,
}
