//! [`DenseIndex`]: the dictionary indices of numbers that lie in a narrow range (keys, dates,
//! quantities, codes), kept in an array at each value's distance from the range's start.
//!
//! Such a value's index is one load away: no hash to compute, no probe, and no read of the
//! dictionary page to confirm a match, which in a dictionary past the cache is a second miss.
//! The indices are the same as an [`super::index_table::IndexTable`]'s (the order in which
//! values first come), so the pages are too.

use super::index_table::{prefetch, CACHED_BYTES, PREFETCH_DISTANCE};

/// Entries a window may always reach, however small the dictionary's limit: 256 KiB of them,
/// which a core's L2 cache holds (and every 2-byte number).
const SMALLEST_LIMIT: usize = 1 << 16;

/// Entries a window may have whatever the dictionary's limit (8 MiB of them): a page limit
/// raised far past parquet's default must not let a few numbers far apart take gigabytes; more
/// distinct numbers than this go to the hash table, which grows with the numbers themselves.
const LARGEST_LIMIT: usize = 1 << 21;

/// How many entries per value the dictionary page can hold a window may reach: at four
/// (16 bytes per value) it takes about the room a hash table's slots take for the same values,
/// and a column that fills its page leaves at least a quarter of the entries taken.
const ENTRIES_PER_VALUE: usize = 4;

/// An array of entries, one per number in a window `[base, base + len)`: 0 where the number
/// has no index yet, else its index plus one (so that a new array is all zeros, which the
/// allocator hands out without writing).
pub(crate) struct DenseIndex {
    base: u64,
    entries: Vec<u32>,
    /// The most entries the window may span.
    limit: usize,
}

impl DenseIndex {
    /// An empty window for a dictionary that holds at most `values` numbers before it falls
    /// back.
    pub(crate) fn new(values: usize) -> Self {
        Self {
            base: 0,
            entries: Vec::new(),
            limit: values
                .saturating_mul(ENTRIES_PER_VALUE)
                .clamp(SMALLEST_LIMIT, LARGEST_LIMIT),
        }
    }

    /// The smallest and largest of `words`, or `None` if there are none.
    pub(crate) fn bounds(words: impl Iterator<Item = u64>) -> Option<(u64, u64)> {
        words.fold(None, |bounds, word| match bounds {
            None => Some((word, word)),
            Some((low, high)) => Some((low.min(word), high.max(word))),
        })
    }

    /// Widens the window to take in every number from `low` to `high` (doubling it where it
    /// grows, within its limit and the numbers' ends, so that a rising column moves its entries
    /// a few times, not once a batch): `false`, with the window as it was, if it would span
    /// more than its limit.
    pub(crate) fn cover(&mut self, low: u64, high: u64) -> bool {
        let len = self.entries.len() as u64;
        let (start, end) = match len {
            0 => (low, high),
            _ => (low.min(self.base), high.max(self.base + (len - 1))),
        };
        let needed = match (end - start).checked_add(1) {
            Some(needed) if needed <= self.limit as u64 => needed,
            _ => return false,
        };
        if len == needed {
            return true;
        }
        let target = needed.max(len.saturating_mul(2)).min(self.limit as u64);
        let spare = target - needed;
        // The spare entries go where the window grew: above it if its top rose.
        let (start, end) = match len > 0 && low >= self.base {
            true => (start, end.saturating_add(spare)),
            false => (start.saturating_sub(spare), end),
        };
        let mut entries = vec![0; (end - start + 1) as usize];
        let shift = (self.base - start.min(self.base)) as usize;
        entries[shift..shift + self.entries.len()].copy_from_slice(&self.entries);
        self.entries = entries;
        self.base = start;
        true
    }

    /// The entry of `word`, which the window covers: 0 if it has no index, else its index
    /// plus one.
    #[inline(always)]
    pub(crate) fn entry(&mut self, word: u64) -> &mut u32 {
        &mut self.entries[(word - self.base) as usize]
    }

    /// Whether the entries outgrow the cache, so that a lookup gains from prefetching.
    pub(crate) fn prefetches(&self) -> bool {
        self.allocation_size() > CACHED_BYTES
    }

    /// Starts loading the entry of the number [`PREFETCH_DISTANCE`] places after the one
    /// being looked up, if `ahead` gives it (the window covers every number of the batch).
    #[inline(always)]
    pub(crate) fn prefetch_ahead(&self, ahead: impl FnOnce(usize) -> Option<u64>) {
        if let Some(word) = ahead(PREFETCH_DISTANCE) {
            prefetch(&self.entries[(word - self.base) as usize]);
        }
    }

    /// Bytes held by the entries.
    pub(crate) fn allocation_size(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<u32>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window takes in what it is asked to, keeps every entry at its number as it grows
    /// down and up, grows at least two-fold, and refuses a span past its limit.
    #[test]
    fn a_window_keeps_its_entries_as_it_grows() {
        let mut index = DenseIndex::new(0);
        assert_eq!(index.limit, SMALLEST_LIMIT);
        assert!(index.cover(100, 199));
        *index.entry(150) = 7;
        assert!(index.cover(100, 250));
        assert!(index.entries.len() >= 200);
        assert_eq!(*index.entry(150), 7);
        assert!(index.cover(40, 120));
        assert!(index.base <= 40);
        assert_eq!(*index.entry(150), 7);
        assert_eq!(*index.entry(40), 0);
        assert!(!index.cover(0, SMALLEST_LIMIT as u64));
        assert_eq!(*index.entry(150), 7);
        assert!(index.cover(0, SMALLEST_LIMIT as u64 - 1));
        assert_eq!(index.entries.len(), SMALLEST_LIMIT);
        assert_eq!(*index.entry(150), 7);
    }

    /// A dictionary allowed any page size still gets a window of bounded size.
    #[test]
    fn the_window_s_limit_is_bounded() {
        assert_eq!(DenseIndex::new(usize::MAX).limit, LARGEST_LIMIT);
        assert_eq!(DenseIndex::new(131_072).limit, 524_288);
        let mut index = DenseIndex::new(usize::MAX);
        assert!(!index.cover(0, LARGEST_LIMIT as u64));
        assert!(index.entries.is_empty());
    }

    /// Windows at the ends of the numbers neither overflow nor refuse what fits.
    #[test]
    fn windows_at_the_ends_of_the_numbers() {
        let mut top = DenseIndex::new(0);
        assert!(top.cover(u64::MAX - 10, u64::MAX));
        assert!(top.cover(u64::MAX - 1000, u64::MAX));
        *top.entry(u64::MAX) = 1;
        assert!(top.cover(u64::MAX - 5000, u64::MAX - 3000));
        assert_eq!(*top.entry(u64::MAX), 1);
        let mut bottom = DenseIndex::new(0);
        assert!(bottom.cover(5, 10));
        assert!(bottom.cover(0, 3));
        *bottom.entry(0) = 2;
        assert!(!bottom.cover(0, u64::MAX));
        assert_eq!(*bottom.entry(0), 2);
        assert_eq!(DenseIndex::bounds([3, 9, 1].into_iter()), Some((1, 9)));
        assert_eq!(DenseIndex::bounds(std::iter::empty()), None);
    }
}
