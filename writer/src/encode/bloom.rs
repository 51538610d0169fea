//! [`ChunkBloom`]: a column chunk's bloom filter, filled with the values `ArrowColumnWriter`
//! puts in it, and kept or dropped as it decides.
//!
//! A split-block bloom filter sets bits by the hash of each value and nothing else, so the
//! filter depends only on which values went in, not on their order or how often: parquet adds
//! a dictionary's distinct values when it writes the dictionary page and every `PLAIN` value as
//! it encodes it, and so does this one. The filter itself is parquet's public [`Sbbf`], sized,
//! hashed and folded by parquet.

use std::ops::Range;

use parquet::bloom_filter::Sbbf;
use parquet::errors::Result;
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnDescPtr;

use super::plain::PlainValues;

/// The bloom filter of one column chunk, while it is written.
pub(crate) struct ChunkBloom {
    filter: Sbbf,
    /// The false-positive rate it is folded down to at the end.
    fpp: f64,
    /// Whether a chunk whose data pages are all dictionary-encoded keeps its filter.
    for_dictionary_chunks: bool,
}

impl std::fmt::Debug for ChunkBloom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkBloom")
            .field("blocks", &self.filter.num_blocks())
            .field("fpp", &self.fpp)
            .finish_non_exhaustive()
    }
}

impl ChunkBloom {
    /// The filter `props` asks for on the leaf `descr`, sized as parquet sizes it for the
    /// column's distinct values and false-positive rate; `None` without one.
    ///
    /// # Errors
    ///
    /// parquet refuses the column's bloom filter settings.
    pub(crate) fn new(descr: &ColumnDescPtr, props: &WriterProperties) -> Result<Option<Self>> {
        let Some(settings) = props.bloom_filter_properties(descr.path()) else {
            return Ok(None);
        };
        Ok(Some(Self {
            filter: Sbbf::new_with_ndv_fpp(settings.ndv(), settings.fpp())?,
            fpp: settings.fpp(),
            for_dictionary_chunks: props.bloom_filter_for_dictionary_encoded_chunks(),
        }))
    }

    /// Adds the values of `values` in `range` (values a `PLAIN` page holds), each as its
    /// physical type's bytes, as parquet hashes it.
    pub(crate) fn insert_values(&mut self, values: &PlainValues<'_>, range: Range<usize>) {
        values.for_each_value_bytes(range, |value| self.filter.insert(value));
    }

    /// Adds the distinct values of a `PLAIN`-encoded dictionary page: values of `width` bytes,
    /// or byte arrays each after its 4-byte length where `width` is `None`.
    pub(crate) fn insert_dictionary(&mut self, page: &[u8], width: Option<usize>) {
        match width {
            Some(width) => page
                .chunks_exact(width)
                .for_each(|value| self.filter.insert(value)),
            None => {
                let mut rest = page;
                while let Some((length, tail)) = rest.split_first_chunk::<4>() {
                    let (value, tail) = tail.split_at(u32::from_le_bytes(*length) as usize);
                    self.filter.insert(value);
                    rest = tail;
                }
            }
        }
    }

    /// The finished filter, folded to its false-positive rate, or `None` where parquet drops
    /// it: the chunk's data pages were all dictionary-encoded (`non_dictionary_pages` false)
    /// and the properties keep no filter for such chunks.
    pub(crate) fn finish(mut self, non_dictionary_pages: bool) -> Option<Sbbf> {
        if !non_dictionary_pages && !self.for_dictionary_chunks {
            return None;
        }
        self.filter.fold_to_target_fpp(self.fpp);
        Some(self.filter)
    }

    /// Bytes the filter holds: 32 per block.
    pub(crate) fn memory_size(&self) -> usize {
        self.filter.num_blocks() * 32
    }
}
