//! [`ByteBounds`]: the smallest and largest of a page's byte arrays (and of fixed-length byte
//! arrays, decimals among them), compared byte by byte through their first 8 bytes.

use std::ops::Range;

use arrow_buffer::ArrowNativeType;

use super::dictionary::PageKeys;
use super::plain::PlainValues;
use super::spans::Spans;

/// The smallest and largest byte arrays so far, byte by byte, each with its first 8 bytes as
/// a key: most comparisons end there, without a call to compare slices (two calls per value
/// were a quarter of the CPU of flat strings with statistics). Signed values (all of one
/// length) have their key's sign bit flipped; where two keys are equal, so are the values'
/// signs, and the bytes after decide as unsigned bytes.
#[derive(Clone, Copy)]
pub(crate) struct ByteBounds<'a> {
    min: &'a [u8],
    max: &'a [u8],
    min_key: u64,
    max_key: u64,
    /// The bit flipped in each key: the sign bit for signed values, else none.
    sign: u64,
}

impl<'a> ByteBounds<'a> {
    /// The smallest and largest of `values`' values in `range` (not empty), compared as
    /// unsigned bytes, or as big-endian two's complement integers where `signed`.
    pub(crate) fn of(
        values: &'a PlainValues<'_>,
        range: Range<usize>,
        signed: bool,
    ) -> (&'a [u8], &'a [u8]) {
        let mut bounds = Self::new(values.value_bytes(range.start), signed);
        let rest = range.start + 1..range.end;
        match values {
            // The loop of an Arrow string or binary array's own values, with the bounds in
            // registers: the closure `for_each_value_bytes` calls at each of its kinds of
            // values was not inlined, and a value's key is read from the buffer in one load.
            PlainValues::Variable {
                spans: Spans::Offsets(offsets),
                data,
                keys: None,
            } => bounds.add_between(data, offsets, rest),
            PlainValues::Variable {
                spans: Spans::LargeOffsets(offsets),
                data,
                keys: None,
            } => bounds.add_between(data, offsets, rest),
            _ => values.for_each_value_bytes(rest, |value| bounds.add(value, prefix(value))),
        }
        (bounds.min, bounds.max)
    }

    /// [`Self::of`] for values whose dictionary indices are `keys` (one per value of `range`):
    /// each index's value is compared once, where it first comes, so that a page of a few
    /// repeating values (categories, flags) is not compared value by value. `seen` is scratch
    /// space, one bit per index.
    pub(crate) fn of_keyed(
        values: &'a PlainValues<'_>,
        range: Range<usize>,
        keys: PageKeys<'_>,
        seen: &mut Vec<u64>,
        signed: bool,
    ) -> (&'a [u8], &'a [u8]) {
        debug_assert_eq!(range.len(), keys.keys.len());
        let mut bounds = Self::new(values.value_bytes(range.start), signed);
        seen.clear();
        seen.resize(keys.distinct.div_ceil(64), 0);
        for (value, &key) in range.zip(keys.keys) {
            let (word, bit) = (key as usize / 64, 1u64 << (key % 64));
            if seen[word] & bit == 0 {
                seen[word] |= bit;
                let bytes = values.value_bytes(value);
                bounds.add(bytes, prefix(bytes));
            }
        }
        (bounds.min, bounds.max)
    }

    fn new(first: &'a [u8], signed: bool) -> Self {
        let sign = u64::from(signed) << 63;
        let key = prefix(first) ^ sign;
        Self {
            min: first,
            max: first,
            min_key: key,
            max_key: key,
            sign,
        }
    }

    /// Takes in the values of `range` that Arrow `offsets` delimit in `data`.
    fn add_between<O: ArrowNativeType>(
        &mut self,
        data: &'a [u8],
        offsets: &[O],
        range: Range<usize>,
    ) {
        let mut bounds = *self;
        for pair in offsets[range.start..=range.end].windows(2) {
            let (start, end) = (pair[0].as_usize(), pair[1].as_usize());
            let value = &data[start..end];
            let key = match data.get(start..).and_then(<[u8]>::first_chunk) {
                Some(word) => masked_prefix(word, value.len()),
                None => prefix(value),
            };
            bounds.add(value, key);
        }
        *self = bounds;
    }

    /// Takes in `value`, whose [`prefix`] is `prefix`.
    #[inline(always)]
    fn add(&mut self, value: &'a [u8], prefix: u64) {
        let key = prefix ^ self.sign;
        // A value below the smallest cannot lie above the largest.
        if key < self.min_key || (key == self.min_key && below(value, self.min)) {
            (self.min, self.min_key) = (value, key);
        } else if key > self.max_key || (key == self.max_key && below(self.max, value)) {
            (self.max, self.max_key) = (value, key);
        }
    }
}

/// Whether `value` orders before `other`, whose prefixes are equal: where both are at most 8
/// bytes long the prefixes hold all their bytes, zero-padded, so the shorter comes first
/// (values of a few categories, each equal to a bound in turn, then need no call to compare
/// slices); otherwise the bytes decide.
#[inline(always)]
fn below(value: &[u8], other: &[u8]) -> bool {
    match value.len() <= 8 && other.len() <= 8 {
        true => value.len() < other.len(),
        false => value < other,
    }
}

/// `value`'s first 8 bytes as a big-endian integer, zero-padded: where two arrays' prefixes
/// differ, they order the arrays as their bytes do (a shorter array that the other begins
/// with pads with zeros, the least byte); where equal, the bytes decide.
#[inline(always)]
fn prefix(value: &[u8]) -> u64 {
    match value.first_chunk::<8>() {
        Some(head) => u64::from_be_bytes(*head),
        None => {
            let mut word = [0u8; 8];
            word[..value.len()].copy_from_slice(value);
            u64::from_be_bytes(word)
        }
    }
}

/// The [`prefix`] of a value of `len` bytes that `word`, the 8 bytes from its start, begins
/// with: the bytes past its end zeroed, with no copy of a length known only at run time.
#[inline(always)]
fn masked_prefix(word: &[u8; 8], len: usize) -> u64 {
    let word = u64::from_be_bytes(*word);
    // The low 64 - 8 * len bits go: none for 8 bytes or more, all for none.
    let kept = !u64::MAX.checked_shr(8 * len.min(8) as u32).unwrap_or(0);
    word & kept
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// `values` back to back after `skip` bytes of another value, and their offsets.
    fn joined(values: &[Vec<u8>], skip: usize) -> (Vec<u8>, Vec<usize>) {
        let mut data = vec![1; skip];
        let mut offsets = vec![skip];
        for value in values {
            data.extend_from_slice(value);
            offsets.push(data.len());
        }
        (data, offsets)
    }

    proptest! {
        /// The prefix comparison finds the bounds that comparing whole slices finds: values
        /// that share their first bytes, end early, or hold zero bytes, read one by one and
        /// from 32- and 64-bit Arrow offsets that start past the buffer's start (short values
        /// near its end included), over any range.
        #[test]
        fn byte_bounds_are_the_slices_min_and_max(
            values in prop::collection::vec(prop::collection::vec(0u8..3, 0..12), 1..40),
            ends in (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
            skip in 0usize..10,
        ) {
            let (data, offsets) = joined(&values, skip);
            let (a, b) = (ends.0.index(values.len()), ends.1.index(values.len()));
            let range = a.min(b)..a.max(b) + 1;
            let min = values[range.clone()].iter().min().map(Vec::as_slice);
            let max = values[range.clone()].iter().max().map(Vec::as_slice);
            let narrow: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
            let wide: Vec<i64> = offsets.iter().map(|&o| o as i64).collect();
            for spans in [Spans::Offsets(&narrow), Spans::LargeOffsets(&wide)] {
                let read = PlainValues::Variable { spans, data: &data, keys: None };
                let found = ByteBounds::of(&read, range.clone(), false);
                prop_assert_eq!(Some(found), min.zip(max));
            }
            let mut one_by_one = ByteBounds::new(&values[range.start], false);
            values[range.start + 1..range.end]
                .iter()
                .for_each(|value| one_by_one.add(value, prefix(value)));
            prop_assert_eq!(Some((one_by_one.min, one_by_one.max)), min.zip(max));
        }

        /// Comparing each dictionary index's value once finds the bounds of every value,
        /// signed or not, whichever indices come and however often.
        #[test]
        fn keyed_bounds_are_the_slices_min_and_max(
            vocabulary in prop::collection::vec(prop::collection::vec(0u8..4, 0..12), 1..70),
            picks in prop::collection::vec(any::<prop::sample::Index>(), 1..200),
            signed in any::<bool>(),
        ) {
            let keys: Vec<u32> = picks.iter().map(|p| p.index(vocabulary.len()) as u32).collect();
            let values: Vec<Vec<u8>> = keys.iter().map(|&k| vocabulary[k as usize].clone()).collect();
            let (data, offsets) = joined(&values, 0);
            let narrow: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
            let read = PlainValues::Variable { spans: Spans::Offsets(&narrow), data: &data, keys: None };
            let keyed = PageKeys { keys: &keys, distinct: vocabulary.len() };
            let mut seen = vec![u64::MAX; 3];
            let found = ByteBounds::of_keyed(&read, 0..values.len(), keyed, &mut seen, signed);
            prop_assert_eq!(found, ByteBounds::of(&read, 0..values.len(), signed));
        }

        /// A masked word is the prefix of the value it begins with, at every length.
        #[test]
        fn masked_prefixes_are_prefixes(word in any::<[u8; 8]>(), len in 0usize..12) {
            let value = &word[..len.min(8)];
            prop_assert_eq!(masked_prefix(&word, len), prefix(value));
        }
    }
}
