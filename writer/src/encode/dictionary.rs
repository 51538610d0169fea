//! [`Dictionary`]: the dictionary of a byte-array or integer column chunk, built as
//! `ArrowColumnWriter`'s encoders build it (distinct values in the order they first come,
//! `PLAIN`-encoded in the dictionary page) so that the indices and pages are the same, and the
//! open data page's indices.
//!
//! An Arrow dictionary array is looked up once per key and batch, not once per value: its keys
//! map to the chunk's indices through a cache the size of the Arrow dictionary.

use std::ops::Range;

use hashbrown::hash_table::{Entry, HashTable};

use super::plain::PlainValues;
use super::rle::HybridRle;

/// A column chunk's dictionary and the indices of its open data page.
#[derive(Default)]
pub(crate) struct Dictionary {
    /// Whether values are byte arrays (each with its 4-byte length in the page), not integers.
    byte_arrays: bool,
    /// The dictionary page: each distinct value `PLAIN`-encoded.
    page: Vec<u8>,
    /// Where each distinct value's bytes lie in `page`, by index.
    entries: Vec<(usize, usize)>,
    /// The indices, found by their value's hash: values are stored once, in `page`.
    table: HashTable<Slot>,
    hasher: ahash::RandomState,
    /// The open data page's indices.
    keys: Vec<u32>,
}

/// A distinct value's index and 32 bits of its hash: the table grows, and tells most other
/// values apart, without reading the stored bytes (each a cache miss in a large dictionary).
#[derive(Clone, Copy)]
struct Slot {
    index: u32,
    hash: u32,
}

impl Slot {
    /// The table's hash of a slot: the 32 bits twice, so that both the bucket (low bits) and
    /// the tag hashbrown keeps per bucket (high bits) come from them.
    fn table_hash(hash: u32) -> u64 {
        (u64::from(hash) << 32) | u64::from(hash)
    }
}

impl std::fmt::Debug for Dictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dictionary")
            .field("values", &self.entries.len())
            .field("page_bytes", &self.page.len())
            .field("keys", &self.keys.len())
            .finish_non_exhaustive()
    }
}

impl Dictionary {
    /// Distinct values the table has room for before it first grows, as in parquet's
    /// interner: most chunks' dictionaries never rehash.
    const INITIAL_CAPACITY: usize = 4096;

    /// An empty dictionary of byte arrays (`byte_arrays`) or integers.
    pub(crate) fn new(byte_arrays: bool) -> Self {
        Self {
            byte_arrays,
            table: HashTable::with_capacity(Self::INITIAL_CAPACITY),
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
        let keys = match values {
            PlainValues::Variable { keys, .. } => keys.as_ref(),
            PlainValues::Fixed { bytes, width } => {
                // Dictionaries hold INT32 or INT64 values: 4 or 8 bytes.
                let bytes = &bytes[range.start * width..range.end * width];
                match width {
                    4 => self.append_fixed::<4>(bytes),
                    _ => self.append_fixed::<8>(bytes),
                }
                return 0;
            }
        };
        let mut bytes = 0;
        self.keys.reserve(range.len());
        for value in range {
            let value_bytes = values.byte_array(value);
            bytes += value_bytes.len() as i64;
            let index = match keys {
                Some(keys) => {
                    let cached = &mut cache[keys.get(value)];
                    if *cached == u32::MAX {
                        *cached = self.intern(value_bytes);
                    }
                    *cached
                }
                None => self.intern(value_bytes),
            };
            self.keys.push(index);
        }
        bytes
    }

    /// Appends the indices of `bytes`' values of `N` bytes each (at most 8): compared and
    /// hashed as integers, not as slices of unknown length.
    fn append_fixed<const N: usize>(&mut self, bytes: &[u8]) {
        let widen = |value: &[u8]| {
            let mut word = [0u8; 8];
            word[..N].copy_from_slice(value);
            u64::from_le_bytes(word)
        };
        self.keys.reserve(bytes.len() / N);
        for value in bytes.chunks_exact(N) {
            let word = widen(value);
            let hash = self.hasher.hash_one(word);
            let index = self.index_of(value, hash, |stored| widen(stored) == word);
            self.keys.push(index);
        }
    }

    fn intern(&mut self, value: &[u8]) -> u32 {
        let hash = self.hasher.hash_one(value);
        self.index_of(value, hash, |stored| stored == value)
    }

    /// The index of `value`, whose hash is `hash`, adding it to the dictionary if it is new:
    /// `same` says whether a stored value's bytes are `value`'s.
    fn index_of(&mut self, value: &[u8], hash: u64, same: impl Fn(&[u8]) -> bool) -> u32 {
        let Self {
            page,
            entries,
            table,
            byte_arrays,
            ..
        } = self;
        let short = hash as u32;
        let entry = table.entry(
            Slot::table_hash(short),
            |slot| {
                let (start, len) = entries[slot.index as usize];
                slot.hash == short && same(&page[start..start + len])
            },
            |slot| Slot::table_hash(slot.hash),
        );
        match entry {
            Entry::Occupied(found) => found.get().index,
            Entry::Vacant(vacant) => {
                let index = entries.len() as u32;
                if *byte_arrays {
                    page.extend_from_slice(&(value.len() as u32).to_le_bytes());
                }
                entries.push((page.len(), value.len()));
                page.extend_from_slice(value);
                vacant.insert(Slot { index, hash: short });
                index
            }
        }
    }

    /// Bytes held: the dictionary page, its entries and table, the open page's indices.
    pub(crate) fn memory_size(&self) -> usize {
        self.page.capacity()
            + self.entries.capacity() * std::mem::size_of::<(usize, usize)>()
            + self.table.allocation_size()
            + self.keys.capacity() * std::mem::size_of::<u32>()
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
        let largest = self.entries.len().saturating_sub(1) as u64;
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
        (self.page, self.entries.len())
    }
}
