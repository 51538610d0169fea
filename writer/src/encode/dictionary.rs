//! [`Dictionary`]: the dictionary of a byte-array or integer column chunk, built as
//! `ArrowColumnWriter`'s encoders build it (distinct values in the order they first come,
//! `PLAIN`-encoded in the dictionary page) so that the indices and pages are the same, and the
//! open data page's indices.
//!
//! An Arrow dictionary array is looked up once per key and batch, not once per value: its keys
//! map to the chunk's indices through a cache the size of the Arrow dictionary.

use std::collections::HashMap;
use std::ops::Range;

use super::plain::PlainValues;
use super::rle::HybridRle;

/// A column chunk's dictionary and the indices of its open data page.
#[derive(Debug, Default)]
pub(crate) struct Dictionary {
    /// Whether values are byte arrays (each with its 4-byte length in the page), not integers.
    byte_arrays: bool,
    /// The dictionary page: each distinct value `PLAIN`-encoded.
    page: Vec<u8>,
    /// Each distinct value's index, by its bytes.
    index: HashMap<Box<[u8]>, u32>,
    /// The open data page's indices.
    keys: Vec<u32>,
}

impl Dictionary {
    /// An empty dictionary of byte arrays (`byte_arrays`) or integers.
    pub(crate) fn new(byte_arrays: bool) -> Self {
        Self {
            byte_arrays,
            ..Self::default()
        }
    }

    /// Appends the indices of `values`' values in `range`, returning their unencoded length.
    /// `cache` maps the batch's Arrow dictionary keys to indices (`u32::MAX` where not yet
    /// looked up); it is unused for arrays without keys.
    pub(crate) fn append(
        &mut self,
        values: &PlainValues<'_>,
        range: Range<usize>,
        cache: &mut [u32],
    ) -> i64 {
        let (spans, data, keys) = match values {
            PlainValues::Variable { spans, data, keys } => (spans, data, keys),
            PlainValues::Fixed { bytes, width } => {
                self.keys.reserve(range.len());
                for value in bytes[range.start * width..range.end * width].chunks_exact(*width) {
                    let index = self.intern(value);
                    self.keys.push(index);
                }
                return 0;
            }
        };
        let mut bytes = 0;
        self.keys.reserve(range.len());
        for value in range {
            let span = spans[value].clone();
            bytes += span.len() as i64;
            let index = match keys {
                Some(keys) => {
                    let cached = &mut cache[keys[value]];
                    if *cached == u32::MAX {
                        *cached = self.intern(&data[span]);
                    }
                    *cached
                }
                None => self.intern(&data[span]),
            };
            self.keys.push(index);
        }
        bytes
    }

    fn intern(&mut self, value: &[u8]) -> u32 {
        if let Some(&index) = self.index.get(value) {
            return index;
        }
        let index = self.index.len() as u32;
        if self.byte_arrays {
            self.page
                .extend_from_slice(&(value.len() as u32).to_le_bytes());
        }
        self.page.extend_from_slice(value);
        self.index.insert(value.into(), index);
        index
    }

    /// The bytes of the dictionary page so far: what parquet compares with
    /// `dictionary_page_size_limit` to fall back to `PLAIN`.
    pub(crate) fn page_size(&self) -> usize {
        self.page.len()
    }

    /// The open data page's size as parquet estimates it: the longest RLE / bit-packed
    /// encoding its indices could take, and for byte arrays the bit width byte (parquet's
    /// integer encoder leaves it out).
    pub(crate) fn estimated_data_page_size(&self) -> usize {
        let width = self.bit_width() as usize;
        let runs = self.keys.len().div_ceil(8);
        let bit_packed = runs + runs * width;
        let rle = runs * (1 + width.div_ceil(8));
        usize::from(self.byte_arrays) + bit_packed.max(rle)
    }

    /// Bits per index: enough for the largest one.
    fn bit_width(&self) -> u8 {
        let largest = self.index.len().saturating_sub(1) as u64;
        (64 - largest.leading_zeros()) as u8
    }

    /// Appends the open data page's values (its bit width and RLE-encoded indices) to `sink`.
    pub(crate) fn finish_page_into(&mut self, sink: &mut Vec<u8>) {
        let width = self.bit_width();
        sink.push(width);
        let mut rle = HybridRle::new(width);
        rle.put_values(&self.keys, u64::from);
        rle.finish_into(sink);
        self.keys.clear();
    }

    /// The dictionary page's bytes and value count.
    pub(crate) fn into_page(self) -> (Vec<u8>, usize) {
        (self.page, self.index.len())
    }
}
