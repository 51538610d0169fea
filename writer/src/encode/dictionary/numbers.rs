//! How a [`Dictionary`] looks up numbers (of 2, 4 or 8 bytes): as integers, in the dense index
//! while they lie in a narrow range, in the hash table otherwise.

use super::{DenseIndex, Dictionary, Slot};

impl Dictionary {
    /// Appends the indices of `bytes`' values of `N` bytes each (at most 8): compared and
    /// hashed as integers (a float by its bits, as parquet tells them apart), not as slices of
    /// unknown length.
    pub(super) fn append_words<const N: usize>(&mut self, bytes: &[u8]) {
        if let Some(mut dense) = self.dense.take() {
            let bounds = DenseIndex::bounds(bytes.chunks_exact(N).map(word::<N>));
            if bounds.is_none_or(|(low, high)| dense.cover(low, high)) {
                self.append_dense::<N>(&mut dense, bytes);
                self.dense = Some(dense);
                return;
            }
            // A number beyond any window the index may span: the numbers so far move to the
            // hash table, which looks up every number from now on. (Never half floats: every
            // window may span their 65,536 numbers.)
            self.hash_words::<N>(bytes.len() / N);
        }
        let room = self.room(bytes.len() / N, N);
        Self::make_room(&mut self.words, room);
        let Self {
            page,
            len,
            words,
            hasher,
            hashes,
            keys,
            ..
        } = self;
        let hash_of = |value: &[u8]| hasher.hash_one(word::<N>(value)) as u32;
        hashes.clear();
        if words.prefetches() {
            hashes.extend(bytes.chunks_exact(N).map(hash_of));
        }
        keys.reserve(bytes.len() / N);
        for (position, value) in bytes.chunks_exact(N).enumerate() {
            let hash = words.hash_at(hashes, position, || hash_of(value));
            let holds =
                |slot: &Slot<()>, page: &Vec<u8>| page[slot.index as usize * N..][..N] == *value;
            let slot = words.find_or_insert(hash, page, holds, |page| {
                let index = *len;
                page.extend_from_slice(value);
                *len += 1;
                Slot {
                    index,
                    hash,
                    at: (),
                }
            });
            keys.push(slot.index);
        }
    }

    /// Appends the indices of `bytes`' numbers of `N` bytes each, all in `dense`'s window.
    fn append_dense<const N: usize>(&mut self, dense: &mut DenseIndex, bytes: &[u8]) {
        let Self {
            page, len, keys, ..
        } = self;
        keys.reserve(bytes.len() / N);
        let prefetches = dense.prefetches();
        let word_at = |position: usize| bytes.get(position * N..(position + 1) * N).map(word::<N>);
        for (position, value) in bytes.chunks_exact(N).enumerate() {
            if prefetches {
                dense.prefetch_ahead(|distance| word_at(position + distance));
            }
            let entry = dense.entry(word::<N>(value));
            if *entry == 0 {
                page.extend_from_slice(value);
                *len += 1;
                *entry = *len;
            }
            keys.push(*entry - 1);
        }
    }

    /// Puts every number of the dictionary so far (each of `N` bytes, all distinct) in the
    /// hash table, at its index, with room for `incoming` more.
    fn hash_words<const N: usize>(&mut self, incoming: usize) {
        let Self {
            page,
            len,
            words,
            hasher,
            ..
        } = self;
        words.reserve((*len as usize + incoming).max(Self::INITIAL_CAPACITY));
        for (index, value) in (0..*len).zip(page.chunks_exact(N)) {
            let hash = hasher.hash_one(word::<N>(value)) as u32;
            let slot = Slot {
                index,
                hash,
                at: (),
            };
            words.find_or_insert(hash, &mut (), |_, _| false, |_| slot);
        }
    }
}

/// A number of `N` bytes (at most 8) as the little-endian integer they hold: numbers are
/// compared, hashed and placed as integers (a float by its bits, as parquet tells them apart).
#[inline(always)]
fn word<const N: usize>(value: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word[..N].copy_from_slice(value);
    u64::from_le_bytes(word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::plain::PlainValues;

    /// Numbers of a narrow range take the dense index as their window grows up and down; one
    /// far away moves them to the hash table, which goes on with the same indices: the keys
    /// and page are first-seen order's, whichever looks them up.
    #[test]
    fn dense_and_hashed_lookups_give_first_seen_indices() {
        let batches: [Vec<u64>; 5] = [
            (0..3000).map(|v| 1_000 + v * 7 % 500).collect(),
            (0..3000).map(|v| 1_400 + v % 900).collect(),
            (0..100).map(|v| 600 + v).collect(),
            vec![1_000, 1 << 40, 1_003, 5],
            (0..3000).map(|v| v * 13 % 4000).collect(),
        ];
        let mut dictionary = Dictionary::new(Some(8), 1 << 20);
        let mut first_seen = std::collections::HashMap::new();
        let (mut keys, mut page) = (Vec::new(), Vec::new());
        for (batch, values) in batches.iter().enumerate() {
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            let plain = PlainValues::Fixed {
                bytes: arrow_buffer::Buffer::from_vec(bytes),
                width: 8,
                measured: false,
            };
            dictionary.append(&plain, 0..values.len(), &mut []);
            assert_eq!(dictionary.dense.is_some(), batch < 3, "batch {batch}");
            for &value in values {
                let next = first_seen.len() as u32;
                keys.push(*first_seen.entry(value).or_insert_with(|| {
                    page.extend_from_slice(&value.to_le_bytes());
                    next
                }));
            }
        }
        assert_eq!(dictionary.keys, keys);
        assert_eq!(dictionary.into_page(), (page, first_seen.len()));
    }
}
