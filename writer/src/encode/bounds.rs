//! [`Bounds`]: the smallest and largest values of a page or chunk, compared as parquet's
//! column writer compares them: integers by the leaf's signed or unsigned sort order
//! ([`IntegerOrder`]), byte arrays byte by byte.

use std::ops::Range;

use super::plain::PlainValues;

/// The smallest and largest value seen, as sort keys: integers widened so that one signed
/// comparison orders them as the leaf's sort order does, byte arrays as their bytes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Bounds {
    Integer(i128, i128),
    Bytes(Vec<u8>, Vec<u8>),
}

impl Bounds {
    /// The bounds of `values`' values in `range` (`None` if it is empty, or the values are
    /// not of the kind `integers` says: integers with it, byte arrays without).
    pub(crate) fn of(
        values: &PlainValues<'_>,
        range: Range<usize>,
        integers: Option<IntegerOrder>,
    ) -> Option<Self> {
        if range.is_empty() {
            return None;
        }
        Some(match (values, integers) {
            (PlainValues::Fixed { bytes, width }, Some(order)) => {
                let (min, max) = order.bounds(&bytes[range.start * width..range.end * width])?;
                Self::Integer(min, max)
            }
            (PlainValues::Variable { .. }, None) => {
                let (min, max) = byte_bounds(range.map(|value| values.byte_array(value)))?;
                Self::Bytes(min.to_vec(), max.to_vec())
            }
            _ => return None,
        })
    }

    /// Whether this min or max lies above `other`'s: pages stopped ascending (this one before
    /// `other`) or descending (`other` before this one).
    pub(crate) fn exceeds(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Integer(min, max), Self::Integer(low, high)) => min > low || max > high,
            (Self::Bytes(min, max), Self::Bytes(low, high)) => min > low || max > high,
            _ => false,
        }
    }

    /// Widens these bounds to take in `other`'s.
    pub(crate) fn merge(&mut self, other: &Self) {
        match (self, other) {
            (Self::Integer(min, max), Self::Integer(low, high)) => {
                *min = (*min).min(*low);
                *max = (*max).max(*high);
            }
            (Self::Bytes(min, max), Self::Bytes(low, high)) => {
                if low < min {
                    min.clone_from(low);
                }
                if high > max {
                    max.clone_from(high);
                }
            }
            _ => {}
        }
    }
}

/// The smallest and largest of `values` byte by byte (`None` if there are none), each compared
/// by its first 8 bytes first: most comparisons end there, without a call to compare slices
/// (two calls per value were a quarter of the CPU of flat strings with statistics).
fn byte_bounds<'a>(mut values: impl Iterator<Item = &'a [u8]>) -> Option<(&'a [u8], &'a [u8])> {
    let first = values.next()?;
    let (mut min, mut max) = (first, first);
    let (mut min_key, mut max_key) = (prefix(first), prefix(first));
    for value in values {
        let key = prefix(value);
        // A value below the smallest cannot lie above the largest.
        if key < min_key || (key == min_key && value < min) {
            (min, min_key) = (value, key);
        } else if key > max_key || (key == max_key && value > max) {
            (max, max_key) = (value, key);
        }
    }
    Some((min, max))
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

/// How a leaf's integer values become sort keys.
#[derive(Debug, Clone, Copy)]
pub(crate) struct IntegerOrder {
    pub width: usize,
    pub unsigned: bool,
}

impl IntegerOrder {
    /// The smallest and largest sort keys of the values in `bytes` (`None` if there are
    /// none), compared in the values' own type rather than widened one by one.
    pub(crate) fn bounds(self, bytes: &[u8]) -> Option<(i128, i128)> {
        match (self.width, self.unsigned) {
            (4, false) => min_max(bytes, i32::from_le_bytes),
            (4, true) => min_max(bytes, u32::from_le_bytes),
            (_, false) => min_max(bytes, i64::from_le_bytes),
            (_, true) => min_max(bytes, u64::from_le_bytes),
        }
    }

    /// The key's value as the physical type's little-endian bytes.
    pub(crate) fn bytes(self, key: i128) -> Vec<u8> {
        match self.width {
            4 => (key as u32).to_le_bytes().to_vec(),
            _ => (key as u64).to_le_bytes().to_vec(),
        }
    }
}

/// The smallest and largest of the `N`-byte values in `bytes`, read by `decode`.
fn min_max<T: Ord + Copy + Into<i128>, const N: usize>(
    bytes: &[u8],
    decode: fn([u8; N]) -> T,
) -> Option<(i128, i128)> {
    let (values, _) = bytes.as_chunks::<N>();
    let first = decode(*values.first()?);
    let (min, max) = values.iter().fold((first, first), |(min, max), &value| {
        let value = decode(value);
        (min.min(value), max.max(value))
    });
    Some((min.into(), max.into()))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// The prefix comparison finds the bounds that comparing whole slices finds: values
        /// that share their first bytes, end early, or hold zero bytes.
        #[test]
        fn byte_bounds_are_the_slices_min_and_max(
            values in prop::collection::vec(prop::collection::vec(0u8..3, 0..12), 1..40)
        ) {
            let found = byte_bounds(values.iter().map(Vec::as_slice));
            let min = values.iter().min().map(Vec::as_slice);
            let max = values.iter().max().map(Vec::as_slice);
            prop_assert_eq!(found, min.zip(max));
        }
    }
}
