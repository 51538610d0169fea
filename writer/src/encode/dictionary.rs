//! [`Dictionary`]: the dictionary of a byte-array or fixed-width (number or fixed-length
//! byte array) column chunk, built as `ArrowColumnWriter`'s encoders build it (distinct values in the order they
//! first come, `PLAIN`-encoded in the dictionary page) so that the indices and pages are the
//! same, and the open data page's indices.
//!
//! An Arrow dictionary array is looked up once per key and batch, not once per value: its keys
//! map to the chunk's indices through a cache the size of the Arrow dictionary.

use std::ops::Range;

mod numbers;

use super::dense_index::DenseIndex;
use super::index_table::{IndexTable, Slot};
use super::plain::PlainValues;
use super::rle::HybridRle;

/// A column chunk's dictionary and the indices of its open data page.
pub(crate) struct Dictionary {
    /// Whether values are byte arrays (each with its 4-byte length in the page), not numbers.
    byte_arrays: bool,
    /// The dictionary page: each distinct value `PLAIN`-encoded.
    page: Vec<u8>,
    /// How many distinct values `page` holds.
    len: u32,
    /// The indices of numbers while every one looked up lies in a window it can span
    /// (`None` once one did not, or for values other than numbers).
    dense: Option<DenseIndex>,
    /// The indices of numbers otherwise, found by their hash: 8-byte slots, so that a
    /// dictionary that grows to its page limit (131,072 `INT64` values at 1 MiB) fills a table
    /// half the size a slot holding the value too would take, with half its page faults and
    /// cache misses; a match (which must read the value in the page) is the rarer case while a
    /// dictionary grows.
    words: IndexTable<()>,
    /// The indices of byte arrays, found by their hash, with where each one's bytes start in
    /// `page` (after their length): the table grows, and tells most other values apart,
    /// without reading the stored bytes (each a cache miss in a large dictionary); a match
    /// reads one place.
    arrays: IndexTable<usize>,
    hasher: ahash::RandomState,
    /// The hashes of the values being looked up, computed ahead of the lookups when the table
    /// prefetches (see [`IndexTable::hash_at`]).
    hashes: Vec<u32>,
    /// The open data page's indices.
    keys: Vec<u32>,
    /// Values looked up so far: how fast the distinct ones grow tells how far a table will.
    looked_up: usize,
    /// `dictionary_page_size_limit`: past it the chunk falls back to `PLAIN`, so the tables
    /// never need room for many more values than it holds.
    page_limit: usize,
}

/// Dictionary indices of values, each below `distinct`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PageKeys<'a> {
    pub keys: &'a [u32],
    pub distinct: usize,
}

/// How a table makes room for a batch of values before they are looked up.
#[derive(Clone, Copy)]
struct Room {
    /// The values about to be looked up: all may be new.
    incoming: usize,
    /// The most distinct values the dictionary can hold before it falls back: its page's room
    /// at the stored size, plus the incoming values (which all go in before the check).
    most: usize,
    /// How many times larger a full table grows.
    growth: usize,
}

impl Room {
    /// How many values to reserve room for beyond the `len` a table holds, if its `capacity`
    /// is too small for the incoming values: `growth` times as many at once, but no more than
    /// `most` in all.
    fn additional(self, len: usize, capacity: usize) -> Option<usize> {
        (capacity - len < self.incoming).then(|| {
            let wanted = (len * (self.growth - 1)).min(self.most.saturating_sub(len));
            wanted.max(self.incoming)
        })
    }
}

impl std::fmt::Debug for Dictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dictionary")
            .field("values", &self.len)
            .field("page_bytes", &self.page.len())
            .field("keys", &self.keys.len())
            .finish_non_exhaustive()
    }
}

impl Dictionary {
    /// Distinct values the table is first made room for (it holds 5,120 before it grows, its
    /// slots five eighths full), as in parquet's interner: most chunks' dictionaries never
    /// rehash.
    const INITIAL_CAPACITY: usize = 4096;

    /// The most values a dictionary holds for [`Self::last_keys`] to give its indices.
    const KEYED_BOUNDS: usize = 4096;

    /// An empty dictionary of byte arrays (`width` `None`) or of fixed-width values of `width`
    /// bytes, whose page falls back at `page_limit` bytes.
    pub(crate) fn new(width: Option<usize>, page_limit: usize) -> Self {
        Self {
            byte_arrays: width.is_none(),
            page: Vec::new(),
            len: 0,
            dense: width
                .filter(|&width| Self::in_words(width))
                .map(|width| DenseIndex::new(page_limit / width)),
            words: IndexTable::new(),
            arrays: IndexTable::new(),
            hasher: ahash::RandomState::default(),
            hashes: Vec::new(),
            keys: Vec::new(),
            looked_up: 0,
            page_limit,
        }
    }

    /// Whether values of `width` bytes are looked up as integers ([`Self::append_words`]):
    /// numbers of 4 or 8 bytes, half floats of 2; wider fixed-length values are looked up as
    /// byte arrays are.
    fn in_words(width: usize) -> bool {
        matches!(width, 2 | 4 | 8)
    }

    /// Appends the indices of `values`' values in `range`, returning their unencoded length
    /// (that of byte arrays; fixed-width values return 0).
    /// `cache` maps the batch's Arrow dictionary keys to indices (`u32::MAX` where not yet
    /// looked up); it is unused for arrays without keys.
    pub(crate) fn append(
        &mut self,
        values: &PlainValues<'_>,
        range: Range<usize>,
        cache: &mut [u32],
    ) -> i64 {
        // Counted before the tables make room for them: [`Self::room`] grows a table by how
        // many of the values looked up before were new.
        self.looked_up += range.len();
        // Wider fixed-length values go on below, interned as byte arrays are.
        let keys = match values {
            PlainValues::Variable { keys, .. } => keys.as_ref(),
            PlainValues::Fixed { width, .. } if Self::in_words(*width) => {
                let bytes = values.fixed_bytes(range);
                match width {
                    2 => self.append_words::<2>(bytes),
                    4 => self.append_words::<4>(bytes),
                    _ => self.append_words::<8>(bytes),
                }
                return 0;
            }
            PlainValues::Fixed { .. } | PlainValues::Views(_) => None,
        };
        let mut bytes = 0;
        self.keys.reserve(range.len());
        let stored = match self.len {
            0 => 0,
            len => self.page.len() / len as usize,
        };
        // At least a length prefix and a byte.
        let room = self.room(range.len(), stored.max(5));
        Self::make_room(&mut self.arrays, room);
        match keys {
            Some(keys) => {
                for value in range {
                    let value_bytes = values.value_bytes(value);
                    bytes += value_bytes.len() as i64;
                    let cached = &mut cache[keys.get(value)];
                    if *cached == u32::MAX {
                        let hash = self.hasher.hash_one(value_bytes) as u32;
                        *cached = self.intern(value_bytes, hash);
                    }
                    self.keys.push(*cached);
                }
            }
            None => {
                let mut hashes = std::mem::take(&mut self.hashes);
                hashes.clear();
                if self.arrays.prefetches() {
                    let hasher = &self.hasher;
                    values.for_each_value_bytes(range.clone(), |value| {
                        hashes.push(hasher.hash_one(value) as u32);
                    });
                }
                let mut position = 0;
                values.for_each_value_bytes(range, |value| {
                    bytes += value.len() as i64;
                    let hash = self
                        .arrays
                        .hash_at(&hashes, position, || self.hasher.hash_one(value) as u32);
                    let index = self.intern(value, hash);
                    self.keys.push(index);
                    position += 1;
                });
                self.hashes = hashes;
            }
        }
        bytes
    }

    /// The index of the byte array `value`, whose hash is `hash`, adding it to the dictionary
    /// if it is new (after its length, for byte arrays; fixed-length values are all as long).
    fn intern(&mut self, value: &[u8], hash: u32) -> u32 {
        let Self {
            page,
            len,
            arrays,
            byte_arrays,
            ..
        } = self;
        let length = (value.len() as u32).to_le_bytes();
        let holds = |slot: &Slot<usize>, page: &Vec<u8>| {
            (!*byte_arrays || page[slot.at - 4..slot.at].first_chunk() == Some(&length))
                && same_bytes(&page[slot.at..slot.at + value.len()], value)
        };
        let slot = arrays.find_or_insert(hash, page, holds, |page| {
            let index = *len;
            if *byte_arrays {
                page.extend_from_slice(&length);
            }
            let start = page.len();
            page.extend_from_slice(value);
            *len += 1;
            Slot {
                index,
                hash,
                at: start,
            }
        });
        slot.index
    }

    /// Makes the room `room` asks for in `table`, for at least [`Self::INITIAL_CAPACITY`]
    /// values: a table is allocated when its first values come, so a chunk without values (of
    /// NULLs only, say) never fills one.
    fn make_room<T: Copy + Default>(table: &mut IndexTable<T>, room: Room) {
        if let Some(additional) = room.additional(table.len(), table.capacity()) {
            table.reserve(additional.max(Self::INITIAL_CAPACITY));
        }
    }

    /// The room to make for `incoming` values, for values `stored` bytes long in the page.
    /// A full table grows eight times while at least half the values looked up have been new
    /// (ids, measurements: a column that will fill the page), as a quarter of such a column's
    /// encoding time went to rehashing when tables grew two-fold; otherwise twice, so that a
    /// dictionary of repeating values takes no more room than parquet's.
    /// `incoming` are the last values counted in `looked_up`.
    fn room(&self, incoming: usize, stored: usize) -> Room {
        let len = self.len as usize;
        Room {
            incoming,
            most: len + self.page_limit.saturating_sub(self.page.len()) / stored + incoming,
            growth: if len * 2 >= self.looked_up - incoming {
                8
            } else {
                2
            },
        }
    }

    /// Bytes held: the dictionary page, its tables (a dense index's whole window, though the
    /// memory of a sparse one is mostly never touched), the open page's indices.
    pub(crate) fn memory_size(&self) -> usize {
        self.page.capacity()
            + self.dense.as_ref().map_or(0, DenseIndex::allocation_size)
            + self.words.allocation_size()
            + self.arrays.allocation_size()
            + (self.keys.capacity() + self.hashes.capacity()) * std::mem::size_of::<u32>()
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

    /// The indices of the last `count` values appended, while the dictionary holds at most
    /// [`Self::KEYED_BOUNDS`] values: a page's bounds are then cheaper to find by index
    /// ([`super::bounds::Bounds::of_keyed`], with a bit per index to clear each mini-batch).
    pub(crate) fn last_keys(&self, count: usize) -> Option<PageKeys<'_>> {
        let distinct = self.len as usize;
        (distinct <= Self::KEYED_BOUNDS).then(|| PageKeys {
            keys: &self.keys[self.keys.len() - count..],
            distinct,
        })
    }

    /// Bits per index: enough for the largest one.
    fn bit_width(&self) -> u8 {
        let largest = self.len.saturating_sub(1);
        (32 - largest.leading_zeros()) as u8
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
        (self.page, self.len as usize)
    }
}

/// Whether `stored` and `value`, of one length, hold the same bytes: up to 16 bytes compared
/// as two loads from each, which overlap where there are fewer, rather than by the call that
/// compares slices (which cost a dictionary of short strings more than the comparison did);
/// longer ones by their first 16 bytes, then the rest.
#[inline(always)]
fn same_bytes(stored: &[u8], value: &[u8]) -> bool {
    debug_assert_eq!(stored.len(), value.len());
    let len = value.len();
    let words = |at: usize| {
        let word =
            |bytes: &[u8]| u64::from_ne_bytes(bytes[at..at + 8].try_into().unwrap_or_default());
        word(stored) == word(value)
    };
    let halves = |at: usize| {
        let half =
            |bytes: &[u8]| u32::from_ne_bytes(bytes[at..at + 4].try_into().unwrap_or_default());
        half(stored) == half(value)
    };
    let bytes = |at: usize| stored[at] == value[at];
    match len {
        17.. => words(0) && words(8) && stored[16..] == value[16..],
        8.. => words(0) && words(len - 8),
        4.. => halves(0) && halves(len - 4),
        1.. => bytes(0) && bytes(len / 2) && bytes(len - 1),
        0 => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values of one length hold the same bytes when, and only when, every byte is the same:
    /// at every length up to past 16, with one byte changed at each position in turn.
    #[test]
    fn same_bytes_tells_every_differing_byte() {
        for len in 0..40usize {
            let value: Vec<u8> = (0..len as u8).map(|b| b.wrapping_mul(37)).collect();
            assert!(same_bytes(&value.clone(), &value));
            for at in 0..len {
                let mut other = value.clone();
                other[at] ^= 1;
                assert!(!same_bytes(&other, &value), "length {len}, byte {at}");
            }
        }
    }

    /// A table with room for the incoming values asks for none; a full one grows as many
    /// times as its `growth` says, never past `most`, and always by the incoming values.
    #[test]
    fn room_grows_by_the_growth_within_the_most() {
        let room = |incoming, most, growth| Room {
            incoming,
            most,
            growth,
        };
        assert_eq!(room(1024, 1 << 20, 8).additional(100, 4096), None);
        assert_eq!(room(1024, 1 << 20, 8).additional(4000, 4096), Some(28_000));
        assert_eq!(room(1024, 1 << 20, 2).additional(4000, 4096), Some(4000));
        assert_eq!(room(1024, 10_000, 8).additional(4000, 4096), Some(6000));
        assert_eq!(room(1024, 4500, 8).additional(4000, 4096), Some(1024));
    }

    /// Numbers that are all new grow the hash table eight-fold; once most values repeat,
    /// two-fold. (Spread over their type: numbers of a narrow range take the dense index.)
    #[test]
    fn growth_follows_how_many_values_were_new() {
        let mut dictionary = Dictionary::new(Some(4), 1 << 20);
        let append = |dictionary: &mut Dictionary, values: Vec<u32>| {
            let bytes = values
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<_>>();
            let plain = PlainValues::Fixed {
                bytes: arrow_buffer::Buffer::from_vec(bytes),
                width: 4,
                measured: false,
            };
            dictionary.append(&plain, 0..values.len(), &mut []);
        };
        append(
            &mut dictionary,
            (0..5000u32)
                .map(|v| v.wrapping_mul(2_654_435_761))
                .collect(),
        );
        assert!(dictionary.dense.is_none());
        assert_eq!(dictionary.words.len(), 5000);
        assert_eq!(dictionary.room(1024, 4).growth, 8);
        append(&mut dictionary, vec![0; 20_000]);
        assert_eq!(dictionary.room(1024, 4).growth, 2);
        assert_eq!(dictionary.len, 5000);
    }
}
